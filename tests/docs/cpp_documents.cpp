// Prelude of docs/cpp.md's documents fragment: the restore must be accepted and land on the
// checkpoint's tick.
#include <cstdio>
#include <string>

#include <mjbridge.hpp>

#define CHECK(c) \
  if (!(c)) { std::fprintf(stderr, "failed: %s\n", #c); return 1; }

int main() {
  mjb::Endpoint ep = mjb::Endpoint::open(mjb::Config::from_path("examples/models/cart_pole.xml"));
  ep.step(20);
  {
{{block}}
    CHECK(r.ok() && r.report.tick_after == 20 && doc.tick == 20);
  }
  return 0;
}
