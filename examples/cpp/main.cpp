// open -> step -> checkpoint -> restore -> stop from another thread, with the C++17 RAII
// binding (mjbridge.hpp) of an installed mjbridge. Usage: mjbridge_example [model.xml]
#include <atomic>
#include <cstdio>
#include <string>
#include <thread>

#include <mjbridge.hpp>

namespace {

// A pendulum with one motor, inline so the example runs anywhere.
const char* kConfig =
    R"({"model":{"xml":"<mujoco><option timestep='0.01'/><worldbody><body pos='0 0 1'>)"
    R"(<joint name='hinge' type='hinge' axis='0 1 0' damping='0.1'/><geom type='capsule' )"
    R"(fromto='0 0 0 0 0 -0.5' size='0.03' mass='1'/></body></worldbody><actuator>)"
    R"(<motor joint='hinge'/></actuator></mujoco>"},"name":"example-cpp","seed":1})";

int fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "example-cpp: %s: %s\n", what, detail.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string config = kConfig;
    if (argc > 1) config = std::string(R"({"model":{"xml_path":")") + argv[1] + R"("},"seed":1})";
    mjb::Endpoint ep = mjb::Endpoint::open(config);  // throws mjb::Error when refused
    std::printf("mjbridge %s\n", mjb::version().c_str());

    // Step, take a checkpoint, step on, restore: the world is back, byte for byte.
    mjb::Result r = ep.step(100);
    if (!r.ok()) return fail("step", r.detail);
    const std::string checkpoint = ep.checkpoint();
    const std::string at_checkpoint = ep.world();
    if (!ep.step(50).ok()) return fail("step", "");
    r = ep.restore(checkpoint);
    if (!r.ok()) return fail("restore", r.detail);
    if (ep.world() != at_checkpoint) return fail("restore", "the world differs from the checkpoint's");
    std::printf("restored: tick %llu -> %llu\n", (unsigned long long)r.report.tick_before,
                (unsigned long long)r.report.tick_after);

    // A refused document changes nothing and says why and where.
    std::string bad = checkpoint;
    bad.replace(bad.find("\"seed\":1"), 8, "\"seed\":2");
    r = ep.restore(bad);
    if (r.outcome() != MJB_REJECTED || r.reason() != MJB_REASON_SEED) return fail("bad restore", r.detail);
    if (ep.world() != at_checkpoint) return fail("bad restore", "the world changed");
    std::printf("refused: %s\n", r.detail.c_str());

    // Stop from another thread while this one steps: a UI button, a ROS 2 service or a
    // watchdog does this. stop() never waits for the native lock.
    std::atomic<bool> stepping{false};
    std::thread stopper([&] {
      while (!stepping.load()) std::this_thread::yield();
      mjb_safety_state s = ep.stop();
      std::printf("stop latched from another thread (confirmed: %s)\n", s.confirmed ? "yes" : "no");
    });
    for (;;) {
      r = ep.step(10);
      stepping = true;
      // Halted at a step boundary (MJB_OK) or refused before stepping (MJB_REJECTED).
      if (r.reason() == MJB_REASON_STOP_LATCHED) break;
      if (!r.ok()) {
        stopper.join();
        return fail("step", r.detail);
      }
    }
    stopper.join();
    std::printf("stopped at tick %llu\n", (unsigned long long)r.report.tick_after);
    if (ep.confirm_paused() != MJB_OK) return fail("confirm_paused", mjb::last_error());
    if (ep.safety_reset() != MJB_OK) return fail("safety_reset", mjb::last_error());
    if (!ep.step(1).ok()) return fail("step after reset", mjb::last_error());
    std::printf("example-cpp: done\n");
    return 0;
  } catch (const mjb::Error& e) {
    return fail("refused", e.what());
  }
}
