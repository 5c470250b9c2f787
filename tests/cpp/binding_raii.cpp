// The C++ binding (bindings/cpp/mjbridge.hpp) with exceptions: RAII ownership, move-only
// endpoints, results for every fallible call, and mjb::Error from value()/ensure_ok()/open()
// on a refusal, against the real library. tests/cpp/binding_noexcept.cpp is the
// -fno-exceptions side.
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
  CHECK(mjb::build_info().value().find("\"engine\"") != std::string::npos);

  mjb::Endpoint ep = mjb::Endpoint::open(config(argv[1]));
  CHECK(ep.set_ctrl({0.2, -0.1}).ok());
  mjb::Result r = ep.step(50);
  CHECK(r.ok() && r.report.tick_after == 50);
  std::string cp = ep.checkpoint().value();
  std::string at_checkpoint = *ep.world();
  CHECK(ep.snapshot().value() == at_checkpoint);
  CHECK(ep.step(25).ok());

  // Move: the handle travels, the moved-from object owns nothing.
  mjb::Endpoint moved = std::move(ep);
  CHECK(ep.get() == nullptr);
  r = moved.restore(cp);
  CHECK(r.ok() && r.report.tick_before == 75 && r.report.tick_after == 50);
  CHECK(moved.world().value() == at_checkpoint);

  // A refused document is a Result, not an exception, and carries the detail.
  r = moved.restore(std::string(cp).replace(cp.find("\"seed\":4"), 8, "\"seed\":5"));
  CHECK(r.outcome() == MJB_REJECTED && r.reason() == MJB_REASON_SEED);
  CHECK(r.detail.find("\"pointer\":\"/seed\"") != std::string::npos);
  CHECK(r.pointer() == "/seed" && !r);
  bool threw_ensure = false;
  try {
    r.ensure_ok();
  } catch (const mjb::Error& e) {
    threw_ensure = e.outcome() == MJB_REJECTED && e.reason() == MJB_REASON_SEED;
  }
  CHECK(threw_ensure);
  CHECK(mjb::reason_name(r.reason()) == "MJB_REASON_SEED");
  CHECK(mjb::outcome_name(r.outcome()) == "MJB_REJECTED");

  // Stop halts stepping; the acknowledgements follow the C rules.
  mjb_safety_state s = moved.stop().value();
  CHECK(s.stopped && s.confirmed);
  r = moved.step(1);
  CHECK(r.outcome() == MJB_REJECTED && r.reason() == MJB_REASON_STOP_LATCHED);
  CHECK(moved.confirm_paused().ok());
  CHECK(moved.safety_reset().ok());
  CHECK(!moved.safety()->stopped);
  mjb::Status again = moved.confirm_paused();
  CHECK(!again && again.outcome() == MJB_REJECTED && again.reason() == MJB_REASON_NOT_STOPPED);

  // Host surface: facts, names, typed inputs, the combined write+step, frames, logging.
  {
    std::vector<std::pair<int, std::string>> log;
    mjb::set_log_callback(
        [&log](mjb_log_level l, std::string_view m) { log.emplace_back(l, std::string(m)); },
        MJB_LOG_INFO);
    mjb_model_dims d = moved.dims().value();
    CHECK(d.nu == 2 && d.nmocap == 1 && d.nbody == 7);
    CHECK(moved.name_to_id(MJB_OBJ_BODY, "ball").value() == 2);
    auto nobody = moved.name_to_id(MJB_OBJ_BODY, "nobody");
    CHECK(!nobody && nobody.reason() == MJB_REASON_UNKNOWN_NAME && nobody.value_or(-1) == -1);
    CHECK(moved.id_to_name(MJB_OBJ_ACTUATOR, 1).value() == "servo");
    CHECK(moved.id_to_name(MJB_OBJ_BODY, 0).value() == "world");
    CHECK(moved.joint_slice(0)->qpos_len == 7);
    bool threw = false;
    try {
      (void)moved.sensor_slice(0).value();
    } catch (const mjb::Error& e) {
      threw = e.outcome() == MJB_REJECTED && e.reason() == MJB_REASON_OUT_OF_RANGE;
    }
    CHECK(threw);  // this model has no sensors
    CHECK(moved.input(MJB_FIELD_MOCAP_POS, 0, {0.4, 0.0, 0.8}).ok());
    mjb::Result bad = moved.input(MJB_FIELD_XFRC_APPLIED, 99, {0, 0, 0, 0, 0, 0});
    CHECK(bad.outcome() == MJB_REJECTED && bad.reason() == MJB_REASON_OUT_OF_RANGE);
    CHECK(!log.empty() && log.back().second.find("refused") != std::string::npos);
    mjb::Result ws = moved.ctrl_step({0.3, 0.1}, 4);
    CHECK(ws.ok() && ws.report.tick_after == ws.report.tick_before + 4);
    mjb_input ins[1] = {{MJB_FIELD_CTRL, 0, nullptr, 1}};
    double one = 0.5;
    ins[0].values = &one;
    CHECK(moved.write_step({ins[0]}, 1).ok());
    std::vector<double> qpos, ctrl, mocap;
    mjb_frame_info info = moved.frame({{MJB_FIELD_QPOS, &qpos}, {MJB_FIELD_CTRL, &ctrl}}).value();
    CHECK(info.cause == MJB_FRAME_STEP && qpos.size() == size_t(d.nq) && ctrl[0] == 0.5);
    info = moved.frame(MJB_FIELD_MOCAP_POS, mocap).value();
    CHECK(mocap.size() == 3 && mocap[2] == 0.8);
    CHECK(moved.frame_field_len(MJB_FIELD_XQUAT).value() == size_t(4 * d.nbody));
    CHECK(mjb::field_name(MJB_FIELD_SENSORDATA) == "sensordata");
    // A snapshot is a restore point.
    std::string snap = moved.snapshot().value();
    CHECK(moved.step(3).ok());
    CHECK(moved.restore(snap).ok());
    CHECK(moved.snapshot().value() == snap);
    mjb::set_log_callback(nullptr);
    threw = false;
    try {
      mjb::plugin_load("/no/such/plugin.so").value();
    } catch (const mjb::Error& e) {
      threw = e.detail().find("MJB_REASON_PLUGIN_LOAD") != std::string::npos ||
              e.detail().find("MJB_REASON_UNSUPPORTED") != std::string::npos;
    }
    CHECK(threw);
    threw = false;
    try {
      mjb::plugin_load_dir("/no/such/dir").value();
    } catch (const mjb::Error& e) {
      threw = e.outcome() == MJB_REJECTED;
    }
    CHECK(threw);
  }

  // Preconditions, documents and restore points with exceptions: a stale tick is a Result
  // whose ensure_ok() throws, value() of a refused capture throws.
  {
    mjb::Document seen = moved.world().value();
    std::vector<double> q;
    CHECK(seen.tick == moved.frame(MJB_FIELD_QPOS, q)->tick && seen.configuration == 0);
    CHECK(moved.step(1).ok());  // another caller moved it on
    const std::string before = moved.world().value();
    mjb::Result stale = moved.step(mjb::Expect::at(seen), 1);
    bool threw_stale = false;
    try {
      stale.ensure_ok();
    } catch (const mjb::Error& e) {
      threw_stale = e.outcome() == MJB_REJECTED && e.reason() == MJB_REASON_PRECONDITION;
    }
    CHECK(threw_stale && moved.world().value() == before);
    mjb::RestorePoint rp = moved.capture().value();
    CHECK(rp.info().value().tick == moved.world()->tick);
    CHECK(moved.step(5).ok() && moved.apply(rp).ok() && moved.world().value() == before);
    mjb::Endpoint twin = mjb::Endpoint::open(config(argv[1]));
    threw_stale = false;
    try {
      twin.apply(rp).ensure_ok();
    } catch (const mjb::Error& e) {
      threw_stale = e.reason() == MJB_REASON_OTHER_ENDPOINT;
    }
    CHECK(threw_stale);
    CHECK(twin.model_fingerprint().value() == moved.model_fingerprint().value());
    twin.close();
    threw_stale = false;
    try {
      (void)twin.capture().value();
    } catch (const mjb::Error& e) {
      threw_stale = e.outcome() == MJB_INVALID_ARGUMENT;
    }
    CHECK(threw_stale);
  }

  // A model that does not compile: open throws with MuJoCo's message.
  bool threw = false;
  try {
    mjb::Endpoint bad_model = mjb::Endpoint::open(config(argv[2]));
  } catch (const mjb::Error& e) {
    threw = e.outcome() == MJB_REJECTED && e.detail().find("MJB_REASON_MODEL_LOAD") != std::string::npos;
  }
  CHECK(threw);

  // Close early; the destructor then does nothing.
  moved.close();
  moved.close();
  threw = false;
  try {
    (void)moved.world().value();
  } catch (const mjb::Error& e) {
    threw = e.outcome() == MJB_INVALID_ARGUMENT;
  }
  CHECK(threw);

  if (failures) return 1;
  std::printf("binding_raii: all checks passed\n");
  return 0;
}
