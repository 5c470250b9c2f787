// The C++ binding built as Unreal builds it: -fno-exceptions -fno-rtti. Every fallible call
// returns a result checked here; frames go into caller spans, inputs come as pointer +
// length; names resolve through the index; configs are built with escaping.
// Usage: binding_noexcept <host.xml> <pendulum.xml> <scratch folder>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "mjbridge.hpp"

#if MJB_EXCEPTIONS
#error "this host must be compiled without exceptions"
#endif

static int failures = 0;
#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                                   \
    }                                                                               \
  } while (0)

static bool same_bits(const double* a, const double* b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0) return false;
  return true;
}

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const std::string host = argv[1], pendulum = argv[2], scratch = argv[3];

  // Configs: a Windows path, quotes, non-ASCII, control characters, escaped by the builder.
  const std::string windows = "C:\\Users\\Zo\xc3\xab\\robot \"v2\".xml";
  mjb::Config cfg = mjb::Config::from_path(windows);
  cfg.name("Zo\xc3\xab \"q\" \xe6\xa9\x9f\xe6\xa2\xb0 \\ \t").seed(7).frame({MJB_FIELD_QPOS}).publish("end_of_call");
  CHECK(cfg.json() ==
        "{\"model\":{\"xml_path\":\"C:\\\\Users\\\\Zo\xc3\xab\\\\robot \\\"v2\\\".xml\"},"
        "\"name\":\"Zo\xc3\xab \\\"q\\\" \xe6\xa9\x9f\xe6\xa2\xb0 \\\\ \\t\",\"seed\":7,"
        "\"frame\":{\"publish\":\"end_of_call\",\"fields\":[\"qpos\"]}}");
  auto missing = mjb::Endpoint::try_open(cfg);
  CHECK(!missing && missing.outcome() == MJB_REJECTED);
  CHECK(missing.reason() == MJB_REASON_MODEL_LOAD && missing.pointer() == "/model");
  // The exact path reached MuJoCo (its message carries it, JSON-escaped).
  CHECK(missing.detail().find("C:\\\\Users\\\\Zo\xc3\xab\\\\robot \\\"v2\\\".xml") != std::string::npos);

  // A real folder with quotes and non-ASCII (MuJoCo reads '\' as a separator).
  const std::string copy = scratch + "/pendulum.xml";
  {
    std::FILE* in = std::fopen(pendulum.c_str(), "rb");
    std::FILE* out = std::fopen(copy.c_str(), "wb");
    CHECK(in && out);
    if (!in || !out) return 1;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, in)) > 0) std::fwrite(buf, 1, n, out);
    std::fclose(in);
    std::fclose(out);
  }
  {
    auto ep = mjb::Endpoint::try_open(mjb::Config::from_path(copy).name("Zo\xc3\xab \"q\""));
    CHECK(ep.ok());
    if (ep) CHECK(ep->world()->find("\"name\":\"Zo\xc3\xab \\\"q\\\"\"") != std::string::npos);
  }

  auto opened = mjb::Endpoint::try_open(mjb::Config::from_path(host).seed(3).frame(
      {MJB_FIELD_QPOS, MJB_FIELD_QVEL, MJB_FIELD_CTRL, MJB_FIELD_SENSORDATA}));
  CHECK(opened.ok());
  if (!opened) return 1;
  mjb::Endpoint ep = std::move(opened).value();
  mjb_model_dims d = ep.dims().value_or(mjb_model_dims{});
  CHECK(d.nq == 13 && d.nv == 11 && d.nu == 2 && d.nsensordata == 8);

  // Names: slices by name, no table by hand.
  auto idx = ep.index();
  CHECK(idx.ok());
  if (!idx) return 1;
  CHECK(idx->joints().size() == 3 && idx->joints()[2] == "ball_free");
  CHECK(idx->qpos("ball_free") == (mjb::Slice{2, 7}) && idx->qvel("ball_free") == (mjb::Slice{2, 6}));
  CHECK(idx->ctrl("twist") == (mjb::Slice{1, 1}));
  CHECK(idx->sensordata("tip_pos") == (mjb::Slice{2, 3}));
  CHECK(!idx->qpos("nope").has_value() && !idx->ctrl("slide").has_value());

  // The loop: ctrl in (pointer + length), steps, fields out into caller arrays, one call.
  double ctrl[2] = {0.5, -0.25};
  double qpos[13], qvel[11], sensors[8];
  mjb_frame_info info{};
  mjb::Result r = ep.ctrl_step_read(ctrl, 4, {{MJB_FIELD_QPOS, qpos}, {MJB_FIELD_QVEL, {qvel, 11}},
                                              {MJB_FIELD_SENSORDATA, sensors}}, &info);
  CHECK(r.ok() && r.report.tick_after == 4 && info.tick == 4);
  double again[13];
  auto fi = ep.frame(MJB_FIELD_QPOS, again);
  CHECK(fi.ok() && fi->tick == 4 && same_bits(qpos, again, 13));
  std::vector<double> v(11);
  std::array<double, 8> s{};
  CHECK(ep.frame({{MJB_FIELD_QVEL, v}, {MJB_FIELD_SENSORDATA, s}}).ok());
  CHECK(same_bits(v.data(), qvel, 11) && same_bits(s.data(), sensors, 8));
  CHECK(idx->qpos("slide")->start == 0 && idx->qvel("hinge")->start == 1);
  CHECK(ep.ctrl_step(ctrl, 2, 1).ok() && ep.set_ctrl(ctrl, 2).ok());
  CHECK(ep.input(MJB_FIELD_CTRL, 1, &ctrl[1], 1).ok());

  // Refusals are values, and change nothing.
  const std::string before = ep.world().value_or("");
  double nan_ctrl[2] = {std::nan(""), 0.0};
  r = ep.ctrl_step_read(nan_ctrl, 1, {{MJB_FIELD_QPOS, again}}, &info);
  CHECK(!r && r.reason() == MJB_REASON_NOT_FINITE && r.pointer() == "/inputs/0/values/0");
  CHECK(info.frame == 0);
  double xpos[18];
  r = ep.ctrl_step_read(ctrl, 1, {{MJB_FIELD_XPOS, xpos}});
  CHECK(r.reason() == MJB_REASON_NOT_IN_FRAME && r.pointer() == "/requests/0/field");
  r = ep.ctrl_step_read(ctrl, 1, {{MJB_FIELD_QPOS, {again, 12}}});
  CHECK(r.reason() == MJB_REASON_DIMENSION && r.pointer() == "/requests/0/cap");
  auto short_read = ep.frame(MJB_FIELD_QPOS, mjb::Span<double>(again, 5));
  CHECK(!short_read && short_read.reason() == MJB_REASON_DIMENSION);
  CHECK(ep.set_ctrl(ctrl, 1).reason() == MJB_REASON_DIMENSION);
  CHECK(ep.world().value_or("") == before);

  // Acknowledgements are Status values.
  mjb::Status st = ep.confirm_paused();
  CHECK(!st && st.outcome() == MJB_REJECTED && st.reason() == MJB_REASON_NOT_STOPPED);
  auto stopped = ep.stop();
  CHECK(stopped.ok() && stopped->stopped);
  r = ep.step(1);
  CHECK(r.outcome() == MJB_REJECTED && r.reason() == MJB_REASON_STOP_LATCHED);
  CHECK(ep.confirm_paused().ok() && ep.safety_reset().ok());
  CHECK(ep.step(1).ok());
  CHECK(ep.world().value_or("") != before);

  // A checkpoint round trip through Expected values.
  auto cp = ep.checkpoint();
  CHECK(cp.ok());
  CHECK(ep.step(3).ok());
  CHECK(cp && ep.restore(*cp).ok());
  CHECK(mjb::plugin_load("/no/such/plugin.so").outcome() == MJB_REJECTED);

  ep.close();
  auto closed = ep.world();
  CHECK(!closed && closed.outcome() == MJB_INVALID_ARGUMENT && closed.reason() == MJB_REASON_NULL_ARGUMENT);

  if (failures) return 1;
  std::printf("binding_noexcept: all checks passed\n");
  return 0;
}
