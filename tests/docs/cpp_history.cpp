// Prelude of docs/cpp.md's history fragment: an endpoint `ep` of the shipped model with a
// history, 300 ticks stepped; the fragment must land on `h.oldest_tick + 10` and leave
// `recording` holding a recording. On an engine with the basic profile only the open is
// refused at /history (checked) and nothing else runs.
#include <cstdio>
#include <string>

#include <mjbridge.hpp>

#define CHECK(c) \
  if (!(c)) { std::fprintf(stderr, "failed: %s\n", #c); return 1; }

int main() {
  auto opened = mjb::Endpoint::try_open(
      mjb::Config::from_path("examples/models/cart_pole.xml").history(1000, 100));
  if (!opened) {
    CHECK(opened.detail().find("\"pointer\":\"/history\"") != std::string::npos);
    CHECK(mjb::build_info().value().find("\"integration_profile\":false") != std::string::npos);
    return 0;
  }
  mjb::Endpoint ep = std::move(opened.value());
  CHECK(ep.step(300).ok());
  std::string recording;
  {
{{block}}
    CHECK(r.ok() && r.report.tick_after == h.oldest_tick + 10);
    CHECK(ep.checkpoint().value().tick == h.oldest_tick + 10);
  }
  CHECK(recording.find("\"mjbridge_recording_v1\"") != std::string::npos);
  return 0;
}
