// "Export the last ten seconds on stop", in the style of a ROS 2 node without ROS 2: a control
// loop thread steps the simulation with a history window of ten seconds of ticks, a second
// thread (the emergency-stop subscriber of a real node) latches the stop, and on the stop the
// node writes the history window to a recording file and exits. `mjbridge replay FILE --model
// MODEL.xml` re-executes and verifies that file in another process.
// Usage: mjbridge_estop_export MODEL.xml RECORDING.json [stop_after_ticks]
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <mjbridge.hpp>

namespace {

class EStopRecorderNode {
 public:
  EStopRecorderNode(const std::string& model, std::string out, uint64_t stop_after)
      : out_(std::move(out)), stop_after_(stop_after) {
    // Ten seconds of ticks: the model's timestep decides the window (read from a first open).
    double dt = mjb::Endpoint::open(mjb::Config::from_path(model)).dims().value().timestep;
    window_ = uint64_t(std::lround(10.0 / dt));
    ep_ = std::make_unique<mjb::Endpoint>(mjb::Endpoint::open(
        mjb::Config::from_path(model).name("estop-node").seed(7).history(window_, window_ / 10)));
    std::printf("estop-cpp: history window %llu ticks (10 s at dt %g)\n",
                (unsigned long long)window_, dt);
  }

  // The control loop (a timer callback in a real node): a control every tick, then a step;
  // a step refused with MJB_REASON_STOP_LATCHED ends it. Returns the tick it stopped at.
  uint64_t control_loop() {
    std::vector<double> ctrl(size_t(ep_->dims().value().nu));
    for (uint64_t t = 0;; t++) {
      for (size_t i = 0; i < ctrl.size(); i++) ctrl[i] = std::sin(0.01 * double(t) + double(i));
      mjb::Result r = ep_->set_ctrl(ctrl);
      if (r.ok()) r = ep_->step(1);
      ticks_.store(r.report.tick_after);
      if (r.reason() == MJB_REASON_STOP_LATCHED) return r.report.tick_before;
      if (!r.ok()) {
        std::fprintf(stderr, "estop-cpp: control loop: %s\n", r.detail.c_str());
        std::exit(1);
      }
    }
  }

  // The emergency-stop subscriber: latches the stop from its own thread (here once the loop
  // has run `stop_after` ticks). mjb_stop never waits for the native lock.
  void estop_subscriber() {
    while (ticks_.load() < stop_after_) std::this_thread::yield();
    mjb_safety_state s = ep_->stop().value();
    std::printf("estop-cpp: emergency stop latched at tick %llu\n",
                (unsigned long long)s.last_stop_tick);
  }

  // On the stop: the history stops growing (steps are refused), so the window holds the ten
  // seconds before it. Export it whole (from its oldest tick to its newest) to the file.
  int export_window(uint64_t stopped_at) {
    mjb_history_state h = ep_->history().value();
    mjb::Expected<std::string> doc = ep_->history_export(h.oldest_tick, h.newest_tick);
    if (!doc) {
      std::fprintf(stderr, "estop-cpp: export refused: %s\n", mjb::reason_name(doc.reason()).c_str());
      return 1;
    }
    std::ofstream(out_, std::ios::binary) << doc.value();
    std::printf("estop-cpp: stopped at tick %llu; exported ticks %llu..=%llu (%zu bytes) to %s\n",
                (unsigned long long)stopped_at, (unsigned long long)h.oldest_tick,
                (unsigned long long)h.newest_tick, doc.value().size(), out_.c_str());
    return 0;
  }

 private:
  std::string out_;
  uint64_t stop_after_, window_ = 0;
  std::unique_ptr<mjb::Endpoint> ep_;
  std::atomic<uint64_t> ticks_{0};
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: mjbridge_estop_export MODEL.xml RECORDING.json [stop_after_ticks]\n");
    return 2;
  }
  try {
    EStopRecorderNode node(argv[1], argv[2], argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 7000);
    std::thread estop([&] { node.estop_subscriber(); });
    uint64_t stopped_at = node.control_loop();
    estop.join();
    int rc = node.export_window(stopped_at);
    if (rc == 0) std::printf("estop-cpp: done\n");
    return rc;
  } catch (const mjb::Error& e) {
    std::fprintf(stderr, "estop-cpp: %s\n", e.what());
    return 1;
  }
}
