// The C++ binding (bindings/cpp/mjbridge.hpp): RAII ownership, move-only endpoints, results
// for mutations and exceptions for refused opens and reads, against the real library.
// Usage: binding_raii <contact_act.xml> <broken.xml>
#include <cstdio>
#include <string>
#include <utility>

#include "mjbridge.hpp"

static int failures = 0;
#define CHECK(cond)                                                               \
  do {                                                                            \
    if (!(cond)) {                                                                \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                                 \
    }                                                                             \
  } while (0)

static std::string config(const char* path) {
  return std::string(R"({"model":{"xml_path":")") + path + R"("},"seed":4})";
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  CHECK(mjb::version() == MJB_VERSION);
  CHECK(mjb::build_info().find("\"engine\"") != std::string::npos);

  mjb::Endpoint ep = mjb::Endpoint::open(config(argv[1]));
  CHECK(ep.set_ctrl({0.2, -0.1}).ok());
  mjb::Result r = ep.step(50);
  CHECK(r.ok() && r.report.tick_after == 50);
  std::string cp = ep.checkpoint();
  std::string at_checkpoint = ep.world();
  CHECK(ep.snapshot() == at_checkpoint);
  CHECK(ep.step(25).ok());

  // Move: the handle travels, the moved-from object owns nothing.
  mjb::Endpoint moved = std::move(ep);
  CHECK(ep.get() == nullptr);
  r = moved.restore(cp);
  CHECK(r.ok() && r.report.tick_before == 75 && r.report.tick_after == 50);
  CHECK(moved.world() == at_checkpoint);

  // A refused document is a Result, not an exception, and carries the detail.
  r = moved.restore(std::string(cp).replace(cp.find("\"seed\":4"), 8, "\"seed\":5"));
  CHECK(r.outcome() == MJB_REJECTED && r.reason() == MJB_REASON_SEED);
  CHECK(r.detail.find("\"pointer\":\"/seed\"") != std::string::npos);
  CHECK(mjb::reason_name(r.reason()) == "MJB_REASON_SEED");
  CHECK(mjb::outcome_name(r.outcome()) == "MJB_REJECTED");

  // Stop halts stepping; the acknowledgements follow the C rules.
  mjb_safety_state s = moved.stop();
  CHECK(s.stopped && s.confirmed);
  r = moved.step(1);
  CHECK(r.outcome() == MJB_REJECTED && r.reason() == MJB_REASON_STOP_LATCHED);
  CHECK(moved.confirm_paused() == MJB_OK);
  CHECK(moved.safety_reset() == MJB_OK);
  CHECK(!moved.safety().stopped);

  // A model that does not compile: open throws with MuJoCo's message.
  bool threw = false;
  try {
    mjb::Endpoint bad = mjb::Endpoint::open(config(argv[2]));
  } catch (const mjb::Error& e) {
    threw = e.outcome() == MJB_REJECTED && e.detail().find("MJB_REASON_MODEL_LOAD") != std::string::npos;
  }
  CHECK(threw);

  // Close early; the destructor then does nothing.
  moved.close();
  moved.close();
  threw = false;
  try {
    (void)moved.world();
  } catch (const mjb::Error& e) {
    threw = e.outcome() == MJB_INVALID_ARGUMENT;
  }
  CHECK(threw);

  if (failures) return 1;
  std::printf("binding_raii: all checks passed\n");
  return 0;
}
