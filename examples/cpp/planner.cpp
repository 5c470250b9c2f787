// The planner pattern with restore points, with the C++17 binding (mjbridge.hpp) of an installed
// mjbridge: K rollouts of H steps from one restore point, each applying it, writing controls
// and stepping; the best by a cost; then the best rollout replayed from the same restore point,
// reproducing its cost bit for bit. Written without exceptions (results checked), as an Unreal
// module would. Usage: mjbridge_planner [model.xml]
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <mjbridge.hpp>

namespace {

// A pendulum with one motor, inline so the example runs anywhere.
const char* kPendulum =
    "<mujoco><option timestep='0.01'/><worldbody><body pos='0 0 1'>"
    "<joint name='hinge' type='hinge' axis='0 1 0' damping='0.1'/><geom type='capsule' "
    "fromto='0 0 0 0 0 -0.5' size='0.03' mass='1'/></body></worldbody><actuator>"
    "<motor name='motor' joint='hinge'/></actuator></mujoco>";

constexpr int kRollouts = 16;  // K
constexpr int kHorizon = 50;   // H
constexpr double kTarget = 1.0;  // the first joint's angle to reach (rad)

int fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "planner-cpp: %s: %s\n", what, detail.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  mjb::Config config = argc > 1 ? mjb::Config::from_path(argv[1]) : mjb::Config::from_xml(kPendulum);
  config.name("planner-cpp").seed(1).frame({MJB_FIELD_QPOS, MJB_FIELD_QVEL});
  auto opened = mjb::Endpoint::try_open(config);
  if (!opened) return fail("open", opened.detail());
  mjb::Endpoint ep = std::move(opened).value();
  mjb_model_dims dims = ep.dims().value_or(mjb_model_dims{});
  const size_t nu = size_t(dims.nu);
  if (nu == 0) return fail("model", "it has no actuator to plan for");
  std::vector<double> qpos(size_t(dims.nq)), qvel(size_t(dims.nv));

  // Where planning starts: a few steps in, captured once (no JSON).
  if (mjb::Result r = ep.step(20); !r) return fail("step", r.detail);
  auto captured = ep.capture();
  if (!captured) return fail("capture", captured.detail());
  const mjb::RestorePoint start = std::move(captured).value();
  const uint64_t start_tick = start.info().value_or(mjb_read_info{}).tick;

  // One rollout: back to the start, then H steps of the plan's controls; the cost of the
  // states it passes through. ctrl_step_read writes, steps and reads in one call.
  auto rollout = [&](const std::vector<double>& plan, double& cost) -> mjb::Result {
    mjb::Result r = ep.apply(start);
    cost = 0.0;
    for (int t = 0; r.ok() && t < kHorizon; t++) {
      mjb::Span<const double> ctrl(plan.data() + size_t(t) * nu, nu);
      r = ep.ctrl_step_read(ctrl, 1, {{MJB_FIELD_QPOS, qpos}, {MJB_FIELD_QVEL, qvel}});
      const double err = qpos[0] - kTarget;
      cost += err * err + 0.01 * qvel[0] * qvel[0] + 0.001 * ctrl[0] * ctrl[0];
    }
    return r;
  };

  // K random control sequences (a sampling planner's candidates), each rolled out.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> torque(-2.0, 2.0);
  std::vector<std::vector<double>> plans(kRollouts, std::vector<double>(kHorizon * nu));
  std::vector<double> costs(kRollouts);
  int best = 0;
  for (int k = 0; k < kRollouts; k++) {
    for (double& u : plans[size_t(k)]) u = torque(rng);
    if (mjb::Result r = rollout(plans[size_t(k)], costs[size_t(k)]); !r)
      return fail("rollout", r.detail);
    if (costs[size_t(k)] < costs[size_t(best)]) best = k;
  }
  std::printf("planner-cpp: %d rollouts of %d steps from tick %llu; best rollout %d, cost %.17g\n",
              kRollouts, kHorizon, (unsigned long long)start_tick, best, costs[size_t(best)]);

  // The restore point restores exactly: the best rollout's controls again give its cost, bit
  // for bit.
  double again = 0.0;
  if (mjb::Result r = rollout(plans[size_t(best)], again); !r) return fail("replay", r.detail);
  const bool same = std::memcmp(&again, &costs[size_t(best)], sizeof again) == 0;
  std::printf("planner-cpp: replayed rollout %d: cost %.17g, %s\n", best, again,
              same ? "the same bit for bit" : "DIFFERENT");
  if (!same) return 1;

  // Act: back to the start and take the best plan's first step, on the condition that nobody
  // moved the endpoint since (the restore point's tick; refused with MJB_REASON_PRECONDITION
  // otherwise).
  if (mjb::Result r = ep.apply(start); !r) return fail("apply", r.detail);
  // (The plan's first nu values: a pointer into the plan, its length beside it.)
  mjb::Result act =
      ep.ctrl_step(mjb::Expect::tick(start_tick), mjb::span(plans[size_t(best)].data(), nu), 1);
  if (!act) return fail("act", act.detail);
  std::printf("planner-cpp: acted from tick %llu to %llu\n",
              (unsigned long long)act.report.tick_before, (unsigned long long)act.report.tick_after);
  std::printf("planner-cpp: done\n");
  return 0;
}
