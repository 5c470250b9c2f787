// Prelude of docs/cpp.md's ctrl_step forms: each of the five forms must write both controls and
// take the five steps it asks for.
#include <array>
#include <cstdio>
#include <vector>

#include <mjbridge.hpp>

#define CHECK(c) \
  if (!(c)) { std::fprintf(stderr, "failed: %s\n", #c); return 1; }

int main() {
  mjb::Endpoint ep = mjb::Endpoint::open(mjb::Config::from_path("examples/models/cart_pole.xml"));
  {
{{block}}
  }
  double ctrl[2] = {0, 0};
  auto info = ep.frame(MJB_FIELD_CTRL, ctrl);
  CHECK(info.ok());
  CHECK(ctrl[0] == 0.5 && ctrl[1] == -0.25);
  CHECK(info->tick == 25);
  return 0;
}
