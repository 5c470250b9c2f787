// The C++ binding built as Unreal builds it: -fno-exceptions -fno-rtti. Every fallible call
// returns a result checked here; frames go into caller spans, inputs come as spans (a
// pointer as mjb::span(ptr, n)); names resolve through the index; configs are built with escaping; every mutation
// with a precondition (mjb::Expect), documents with their tick, the model fingerprint and
// restore points (mjb::RestorePoint), each refusal with its reason and nothing changed.
// Usage: binding_noexcept <host.xml> <pendulum.xml> <scratch folder>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
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

static std::string cfg_of(const std::string& path) {
  return mjb::Config::from_path(path).seed(3).frame(
      {MJB_FIELD_QPOS, MJB_FIELD_QVEL, MJB_FIELD_CTRL, MJB_FIELD_SENSORDATA}).json();
}

// Every mutation with a precondition: refused with MJB_REASON_PRECONDITION and nothing
// changed when the tick or the configuration is stale, admitted when it holds.
static void preconditions(mjb::Endpoint& ep, const std::string& host) {
  CHECK(ep.step(2).ok());
  // Reads say where they were, without parsing.
  double qpos[13];
  mjb_frame_info seen = ep.frame(MJB_FIELD_QPOS, qpos).value_or(mjb_frame_info{});
  mjb::Document world = ep.world().value_or(mjb::Document());
  mjb::Document cp = ep.checkpoint().value_or(mjb::Document());
  mjb::Document snap = ep.snapshot().value_or(mjb::Document());
  const uint64_t cfg = ep.dims()->configuration;
  CHECK(world.tick == seen.tick && cp.tick == seen.tick && snap.tick == seen.tick);
  CHECK(world.configuration == cfg && cp.configuration == cfg && snap.configuration == cfg);
  CHECK(snap == world && world.text.find("\"tick\":" + std::to_string(seen.tick)) != std::string::npos);
  CHECK(world.info().tick == seen.tick);

  std::vector<double> ctrl = {0.25, -0.5};
  const std::string write = "{\"world\":{\"ctrl\":[0.5,0.5]}}";
  mjb_input in{MJB_FIELD_CTRL, -1, ctrl.data(), ctrl.size()};
  std::vector<mjb_input> ins = {in};
  double qvel[11];
  mjb_frame_request reqs[1] = {{MJB_FIELD_QPOS, qpos, 13, 0}};
  const mjb::Config same_model = mjb::Config::from_path(host);
  mjb::RestorePoint rp = ep.capture().value_or(mjb::RestorePoint());
  CHECK(bool(rp));

  // Every conditional mutation, as a table: name, call.
  struct Call {
    const char* name;
    std::function<mjb::Result(const mjb::Expect&)> run;
  };
  std::vector<Call> calls = {
      {"step", [&](const mjb::Expect& e) { return ep.step(e, 1); }},
      {"set_ctrl span", [&](const mjb::Expect& e) { return ep.set_ctrl(e, mjb::span(ctrl.data(), 2)); }},
      {"set_ctrl vector", [&](const mjb::Expect& e) { return ep.set_ctrl(e, ctrl); }},
      {"world_write", [&](const mjb::Expect& e) { return ep.world_write(e, write); }},
      {"restore", [&](const mjb::Expect& e) { return ep.restore(e, cp); }},
      {"input span", [&](const mjb::Expect& e) { return ep.input(e, MJB_FIELD_CTRL, 1, mjb::span(&ctrl[1], 1)); }},
      {"input vector", [&](const mjb::Expect& e) { return ep.input(e, MJB_FIELD_CTRL, -1, ctrl); }},
      {"write_step span", [&](const mjb::Expect& e) { return ep.write_step(e, mjb::span(&in, 1), 1); }},
      {"write_step vector", [&](const mjb::Expect& e) { return ep.write_step(e, ins, 1); }},
      {"ctrl_step ptr span", [&](const mjb::Expect& e) { return ep.ctrl_step(e, mjb::span(ctrl.data(), 2), 1); }},
      {"ctrl_step span", [&](const mjb::Expect& e) { return ep.ctrl_step(e, mjb::Span<const double>(ctrl), 1); }},
      {"ctrl_step vector", [&](const mjb::Expect& e) { return ep.ctrl_step(e, ctrl, 1); }},
      {"write_step_read", [&](const mjb::Expect& e) {
         mjb_frame_info fi{};
         mjb::Result r = ep.write_step_read(e, mjb::span(&in, 1), 1, reqs, &fi);
         CHECK(r.ok() == (fi.frame != 0) && r.ok() == (reqs[0].written == 13));
         return r;
       }},
      {"ctrl_step_read", [&](const mjb::Expect& e) {
         return ep.ctrl_step_read(e, ctrl, 1, {{MJB_FIELD_QVEL, qvel}});
       }},
      {"apply", [&](const mjb::Expect& e) { return ep.apply(e, rp); }},
      {"replace_model view", [&](const mjb::Expect& e) { return ep.replace_model(e, same_model.model_json()); }},
      {"replace_model config", [&](const mjb::Expect& e) { return ep.replace_model(e, same_model); }},
  };
  for (const Call& c : calls) {
    auto d = ep.dims().value_or(mjb_model_dims{});
    mjb::Document before = ep.world().value_or(mjb::Document());
    const uint64_t tick = before.tick;
    for (const mjb::Expect& stale : {mjb::Expect::tick(tick + 1), mjb::Expect::configuration(d.configuration + 1),
                                     mjb::Expect::at(before).with_tick(tick - 1)}) {
      mjb::Result r = c.run(stale);
      if (r.outcome() != MJB_REJECTED || r.reason() != MJB_REASON_PRECONDITION)
        std::fprintf(stderr, "%s: %s\n", c.name, r.detail.c_str());
      CHECK(r.outcome() == MJB_REJECTED && r.reason() == MJB_REASON_PRECONDITION);
      CHECK(r.detail.find("another call moved the endpoint on first") != std::string::npos);
      CHECK(r.report.tick_after == tick && ep.world().value_or(mjb::Document()) == before);
    }
    mjb::Result r = c.run(mjb::Expect::at(before));
    if (!r.ok()) std::fprintf(stderr, "%s: %s\n", c.name, r.detail.c_str());
    CHECK(r.ok() && r.report.tick_before == tick);
    // A default Expect checks nothing.
    CHECK(c.run(mjb::Expect()).ok());
  }
  // The replacements (the last calls) kept the tick and bumped the configuration each time.
  CHECK(ep.dims()->configuration == 4);

  // The compare-and-step of a controller: another caller stepped between the read and the
  // write, so the inputs chosen for the old tick are refused, not applied to the new state.
  seen = ep.frame(MJB_FIELD_QPOS, qpos).value_or(mjb_frame_info{});
  CHECK(ep.step(1).ok());  // "another thread"
  mjb::Document before = ep.world().value_or(mjb::Document());
  mjb::Result r = ep.ctrl_step(mjb::Expect::at(seen), ctrl, 1);
  CHECK(r.reason() == MJB_REASON_PRECONDITION && ep.world().value_or(mjb::Document()) == before);
  seen = ep.frame(MJB_FIELD_QPOS, qpos).value_or(mjb_frame_info{});
  CHECK(ep.ctrl_step(mjb::Expect::at(seen), ctrl, 1).ok());
  // A conditional write_step_read with a request the frame cannot serve refuses before
  // anything is written, as the unconditional one does.
  before = ep.world().value_or(mjb::Document());
  double xpos[18];
  double kept[13];
  for (double& q : kept) q = -7.0;
  std::memcpy(qpos, kept, sizeof qpos);
  r = ep.ctrl_step_read(mjb::Expect::at(before), ctrl, 1, {{MJB_FIELD_QPOS, qpos}, {MJB_FIELD_XPOS, xpos}});
  CHECK(r.outcome() == MJB_REJECTED && r.reason() == MJB_REASON_NOT_IN_FRAME);
  CHECK(r.pointer() == "/requests/1/field");
  CHECK(ep.world().value_or(mjb::Document()) == before && same_bits(qpos, kept, 13));
  // A stale precondition leaves the caller's buffers alone too.
  r = ep.ctrl_step_read(mjb::Expect::tick(before.tick + 1), ctrl, 1, {{MJB_FIELD_QPOS, qpos}});
  CHECK(r.reason() == MJB_REASON_PRECONDITION && same_bits(qpos, kept, 13));
  CHECK(ep.world().value_or(mjb::Document()) == before);
}

// Restore points: capture, apply, to_json, from_json, info, free; refusals with their reason
// and nothing changed.
static void restore_points(mjb::Endpoint& ep, const std::string& host, const std::string& pendulum) {
  double ctrl[2] = {0.3, -0.2};
  CHECK(ep.ctrl_step(ctrl, 5).ok());
  mjb::Document cp = ep.checkpoint().value_or(mjb::Document());
  auto captured = ep.capture();
  CHECK(captured.ok());
  if (!captured) return;
  mjb::RestorePoint rp = std::move(captured).value();
  auto info = rp.info();
  CHECK(info.ok() && info->tick == cp.tick && info->configuration == cp.configuration);
  auto json = rp.to_json();
  CHECK(json.ok() && *json == cp && json->tick == cp.tick);  // byte for byte

  CHECK(ep.step(7).ok());
  const std::string after = ep.world().value_or(mjb::Document());
  for (int k = 0; k < 3; k++) {
    mjb::Result r = ep.apply(rp);
    CHECK(r.ok() && r.report.tick_before == cp.tick + 7 && r.report.tick_after == cp.tick);
    CHECK(ep.checkpoint().value_or(mjb::Document()) == cp);
    CHECK(ep.step(7).ok());
    CHECK(ep.world().value_or(mjb::Document()) == after);  // the same continuation
  }

  // From JSON: validated like restore(); the same state.
  auto loaded = ep.restore_point_from_json(cp);
  CHECK(loaded.ok() && loaded->to_json().value_or(mjb::Document()) == cp);
  CHECK(loaded && ep.apply(*loaded).ok() && ep.checkpoint().value_or(mjb::Document()) == cp);
  const mjb::Document before = ep.world().value_or(mjb::Document());
  std::string other_seed = cp.text;
  other_seed.replace(other_seed.find("\"seed\":3"), 8, "\"seed\":4");
  auto bad = ep.restore_point_from_json(other_seed);
  CHECK(!bad && bad.outcome() == MJB_REJECTED && bad.reason() == MJB_REASON_SEED && bad.pointer() == "/seed");
  auto garbage = ep.restore_point_from_json("{\"profile\":");
  CHECK(!garbage && garbage.reason() == MJB_REASON_MALFORMED_JSON);
  CHECK(ep.world().value_or(mjb::Document()) == before);

  // Another endpoint of the same model refuses it; nothing changes there.
  auto other = mjb::Endpoint::try_open(cfg_of(host));
  CHECK(other.ok());
  if (other) {
    CHECK(other->step(4).ok());
    const mjb::Document theirs = other->world().value_or(mjb::Document());
    mjb::Result r = other->apply(rp);
    CHECK(r.outcome() == MJB_REJECTED && r.reason() == MJB_REASON_OTHER_ENDPOINT);
    CHECK(r.report.tick_after == 4 && other->world().value_or(mjb::Document()) == theirs);
    // The same model has the same fingerprint, another model another one.
    auto fa = ep.model_fingerprint(), fb = other->model_fingerprint();
    CHECK(fa.ok() && fb.ok() && *fa == *fb && fa->size() == 71 && fa->rfind("sha256:", 0) == 0);
    CHECK(theirs.text.find("\"model_fingerprint\":\"" + *fb + "\"") != std::string::npos);
    CHECK(other->replace_model(mjb::Config::from_path(pendulum)).ok());
    auto fp = other->model_fingerprint();
    CHECK(fp.ok() && *fp != *fa && other->world()->text.find(*fp) != std::string::npos);
  }

  // A moved-from or reset restore point holds nothing: refused as an invalid argument.
  mjb::RestorePoint moved = std::move(rp);
  CHECK(!rp && moved);
  mjb::Result r = ep.apply(rp);
  CHECK(r.outcome() == MJB_INVALID_ARGUMENT && ep.world().value_or(mjb::Document()) == before);
  CHECK(!rp.info() && !rp.to_json() && rp.to_json().outcome() == MJB_INVALID_ARGUMENT);
  // Ownership through the C ABI and back.
  mjb::RestorePoint adopted(moved.release());
  CHECK(!moved && adopted && ep.apply(adopted).ok());
  adopted.reset();
  adopted.reset();
  CHECK(!adopted);

  // A model replacement makes the endpoint's old restore points stale.
  mjb::RestorePoint old = ep.capture().value_or(mjb::RestorePoint());
  CHECK(ep.replace_model(mjb::Config::from_path(host)).ok());
  const mjb::Document replaced = ep.world().value_or(mjb::Document());
  r = ep.apply(old);
  CHECK(r.outcome() == MJB_REJECTED && r.reason() == MJB_REASON_CONFIGURATION);
  CHECK(ep.world().value_or(mjb::Document()) == replaced);
  // A stopped endpoint still admits an apply (as a restore), and keeps the latch.
  mjb::RestorePoint fresh = ep.capture().value_or(mjb::RestorePoint());
  CHECK(ep.step(2).ok() && ep.stop().ok());
  CHECK(ep.apply(fresh).ok() && ep.safety()->stopped);
  CHECK(ep.confirm_paused().ok() && ep.safety_reset().ok());
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
    if (ep) CHECK(ep->world()->text.find("\"name\":\"Zo\xc3\xab \\\"q\\\"\"") != std::string::npos);
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

  // The loop: ctrl in (a C array, its own length), steps, fields out into caller arrays, one call.
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
  CHECK(ep.ctrl_step(ctrl, 1).ok() && ep.set_ctrl(ctrl).ok());
  CHECK(ep.input(MJB_FIELD_CTRL, 1, mjb::span(&ctrl[1], 1)).ok());

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
  CHECK(ep.set_ctrl(mjb::span(ctrl, 1)).reason() == MJB_REASON_DIMENSION);
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

  preconditions(ep, host);
  restore_points(ep, host, pendulum);

  ep.close();
  auto closed = ep.world();
  CHECK(!closed && closed.outcome() == MJB_INVALID_ARGUMENT && closed.reason() == MJB_REASON_NULL_ARGUMENT);

  if (failures) return 1;
  std::printf("binding_noexcept: all checks passed\n");
  return 0;
}
