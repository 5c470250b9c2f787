// open -> step -> checkpoint -> restore -> stop from another thread, with the C++17 RAII
// binding (mjbridge.hpp) of an installed mjbridge. Usage: mjbridge_example [model.xml]
#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <mjbridge.hpp>

namespace {

// A pendulum with one motor, inline so the example runs anywhere.
const char* kPendulum =
    "<mujoco><option timestep='0.01'/><worldbody><body pos='0 0 1'>"
    "<joint name='hinge' type='hinge' axis='0 1 0' damping='0.1'/><geom type='capsule' "
    "fromto='0 0 0 0 0 -0.5' size='0.03' mass='1'/></body></worldbody><actuator>"
    "<motor name='motor' joint='hinge'/></actuator></mujoco>";

int fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "example-cpp: %s: %s\n", what, detail.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    // The builder escapes every string (a Windows path, quotes, non-ASCII names).
    mjb::Config config = argc > 1 ? mjb::Config::from_path(argv[1]) : mjb::Config::from_xml(kPendulum);
    config.name("example-cpp").seed(1);
    mjb::Endpoint ep = mjb::Endpoint::open(config);  // throws mjb::Error when refused
    // (without exceptions: auto opened = mjb::Endpoint::try_open(config); if (!opened) ...)
    std::printf("mjbridge %s\n", mjb::version().c_str());

    // Step, take a checkpoint, step on, restore: the world is back, byte for byte.
    mjb::Result r = ep.step(100);
    if (!r.ok()) return fail("step", r.detail);
    const std::string checkpoint = ep.checkpoint().value();  // value() throws when refused
    const std::string at_checkpoint = ep.world().value();
    if (!ep.step(50).ok()) return fail("step", "");
    r = ep.restore(checkpoint);
    if (!r.ok()) return fail("restore", r.detail);
    if (ep.world().value() != at_checkpoint) return fail("restore", "the world differs from the checkpoint's");
    std::printf("restored: tick %llu -> %llu\n", (unsigned long long)r.report.tick_before,
                (unsigned long long)r.report.tick_after);

    // A refused document changes nothing and says why and where.
    std::string bad = checkpoint;
    bad.replace(bad.find("\"seed\":1"), 8, "\"seed\":2");
    r = ep.restore(bad);
    if (r.outcome() != MJB_REJECTED || r.reason() != MJB_REASON_SEED) return fail("bad restore", r.detail);
    if (ep.world().value() != at_checkpoint) return fail("bad restore", "the world changed");
    std::printf("refused: %s\n", r.detail.c_str());

    // A control loop's tick in one call: ctrl in, a step, the joint's qpos out by name into a
    // caller array (no allocation).
    mjb::ModelIndex index = ep.index().value();
    mjb_model_dims dims = ep.dims().value();
    std::vector<double> ctrl(size_t(dims.nu), 0.5), qpos(size_t(dims.nq));  // made once
    mjb_frame_info info{};
    r = ep.ctrl_step_read(ctrl, 1, {{MJB_FIELD_QPOS, qpos}}, &info);
    if (!r.ok()) return fail("ctrl_step_read", r.detail);
    if (auto first = index.qpos(index.joints().at(0)))
      std::printf("tick %llu: %s = %.6f\n", (unsigned long long)info.tick, index.joints()[0].c_str(),
                  qpos[first->start]);
    if (!ep.restore(checkpoint).ok()) return fail("restore", "");

    // Stop from another thread while this one steps: a UI button, a ROS 2 service or a
    // watchdog does this. stop() never waits for the native lock.
    std::atomic<bool> stepping{false};
    std::thread stopper([&] {
      while (!stepping.load()) std::this_thread::yield();
      mjb_safety_state s = ep.stop().value_or(mjb_safety_state{});
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
    if (mjb::Status s = ep.confirm_paused(); !s) return fail("confirm_paused", s.detail());
    if (mjb::Status s = ep.safety_reset(); !s) return fail("safety_reset", s.detail());
    if (!ep.step(1).ok()) return fail("step after reset", mjb::last_error());
    std::printf("example-cpp: done\n");
    return 0;
  } catch (const mjb::Error& e) {
    return fail("refused", e.what());
  }
}
