// Prelude of docs/cpp.md's compare-and-step fragment: an endpoint on the shipped model and a
// policy; after the fragment the step must have been taken, and the same (now stale)
// precondition refused with nothing done.
#include <cstdio>

#include <mjbridge.hpp>

#define CHECK(c) \
  if (!(c)) { std::fprintf(stderr, "failed: %s\n", #c); return 1; }

static void policy(const double* qpos, const double* qvel, double* ctrl) {
  ctrl[0] = -2.0 * qpos[0] - 0.5 * qvel[0];
  ctrl[1] = 0.1;
}

int main() {
  mjb::Endpoint ep = mjb::Endpoint::open(mjb::Config::from_path("examples/models/cart_pole.xml"));
  {
{{block}}
    CHECK(r.ok() && r.report.tick_after == 1);
    mjb::Result stale = ep.ctrl_step(mjb::Expect::at(seen), ctrl, 1);
    CHECK(stale.reason() == MJB_REASON_PRECONDITION && stale.report.tick_after == 1);
  }
  return 0;
}
