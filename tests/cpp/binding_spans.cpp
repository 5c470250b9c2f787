// The C++ binding's value arguments (issue 27, item 1): every call that takes values takes an
// mjb::Span, and a C array, a std::array, a std::vector, braced values and an explicit
// mjb::span(ptr, n) each write exactly their elements and take exactly the steps asked for,
// with and without a precondition. The misuse that used to compile (a pointer, then a step
// count read as the length) is checked not to compile by tests/c_hosts.rs. And item 4: a config
// string is a document when it starts with '{' (after JSON whitespace), else a model path.
// Usage: binding_spans <host.xml> <pendulum.xml>   (host: nu 2, nq 13, one mocap body; pendulum:
// nq 1); it reports under the name it was built as (built with and without exceptions).
#include <array>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "mjbridge.hpp"

static int failures = 0;
static int checks = 0;
#define CHECK(cond)                                                                 \
  do {                                                                              \
    checks++;                                                                       \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s [%s]\n", __FILE__, __LINE__, #cond, \
                   form);                                                           \
      failures++;                                                                   \
    }                                                                               \
  } while (0)

static const char* form = "";

static bool same_bits(const double* a, const double* b, size_t n) {
  return std::memcmp(a, b, n * sizeof(double)) == 0;
}

// Where the endpoint is, read from its frame: ctrl and the frame's info.
struct Seen {
  mjb_frame_info info{};
  double ctrl[2] = {0, 0};
};
static Seen seen(mjb::Endpoint& ep) {
  Seen s;
  s.info = ep.frame(MJB_FIELD_CTRL, s.ctrl).value_or(mjb_frame_info{});
  return s;
}

// After a call that was asked to write `want` (2 values) and take `nstep` steps from `before`:
// it was accepted, took exactly those steps and ctrl holds exactly those values.
static void wrote(mjb::Endpoint& ep, const mjb::Result& r, const Seen& before, const double* want,
                  uint32_t nstep) {
  if (!r.ok()) std::fprintf(stderr, "[%s] refused: %s\n", form, r.detail.c_str());
  CHECK(r.ok());
  CHECK(r.report.tick_before == before.info.tick);
  CHECK(r.report.tick_after == before.info.tick + nstep);
  Seen after = seen(ep);
  CHECK(after.info.tick == before.info.tick + nstep);
  CHECK(same_bits(after.ctrl, want, 2));
}

// Zero ctrl, so that each call's values are its own.
static void clear(mjb::Endpoint& ep) {
  const double zero[2] = {0.0, 0.0};
  CHECK(ep.set_ctrl(zero).ok());
}

// Every call that takes ctrl values, with `ctrl` (2 values equal to `want`) as it is given:
// a C array, a std::array, a std::vector or a span, passed on as the caller holds it.
template <typename Ctrl>
static void ctrl_calls(mjb::Endpoint& ep, const char* name, Ctrl&& ctrl, const double* want) {
  form = name;
  double qpos[13];

  clear(ep);
  Seen s = seen(ep);
  wrote(ep, ep.set_ctrl(ctrl), s, want, 0);
  clear(ep);
  s = seen(ep);
  wrote(ep, ep.set_ctrl(mjb::Expect::at(s.info), ctrl), s, want, 0);

  clear(ep);
  s = seen(ep);
  wrote(ep, ep.ctrl_step(ctrl), s, want, 1);
  clear(ep);
  s = seen(ep);
  wrote(ep, ep.ctrl_step(ctrl, 3), s, want, 3);
  clear(ep);
  s = seen(ep);
  // The compare-and-step of docs/cpp.md, which a C array used to misread as one value.
  wrote(ep, ep.ctrl_step(mjb::Expect::at(s.info), ctrl, 1), s, want, 1);
  clear(ep);
  s = seen(ep);
  wrote(ep, ep.ctrl_step(mjb::Expect::at(s.info), ctrl, 4), s, want, 4);
  clear(ep);
  s = seen(ep);
  wrote(ep, ep.ctrl_step(mjb::Expect::at(s.info), ctrl, 2, MJB_WAIT_FOREVER), s, want, 2);

  clear(ep);
  s = seen(ep);
  wrote(ep, ep.input(MJB_FIELD_CTRL, -1, ctrl), s, want, 0);
  clear(ep);
  s = seen(ep);
  wrote(ep, ep.input(mjb::Expect::at(s.info), MJB_FIELD_CTRL, -1, ctrl), s, want, 0);

  clear(ep);
  s = seen(ep);
  mjb_frame_info info{};
  wrote(ep, ep.ctrl_step_read(ctrl, 3, {{MJB_FIELD_QPOS, qpos}}, &info), s, want, 3);
  CHECK(info.tick == s.info.tick + 3);
  clear(ep);
  s = seen(ep);
  wrote(ep, ep.ctrl_step_read(mjb::Expect::at(s.info), ctrl, 2, {{MJB_FIELD_QPOS, qpos}}, &info),
        s, want, 2);
  CHECK(info.tick == s.info.tick + 2);

  // Stale: another call stepped after `s` was seen. Refused, nothing written, no step.
  clear(ep);
  s = seen(ep);
  CHECK(ep.step(1).ok());
  const mjb::Document before = ep.world().value_or(mjb::Document());
  const mjb::Expect stale = mjb::Expect::at(s.info);
  for (mjb::Result r : {ep.ctrl_step(stale, ctrl, 1), ep.set_ctrl(stale, ctrl),
                        ep.input(stale, MJB_FIELD_CTRL, -1, ctrl),
                        ep.ctrl_step_read(stale, ctrl, 1, {{MJB_FIELD_QPOS, qpos}})}) {
    CHECK(r.outcome() == MJB_REJECTED && r.reason() == MJB_REASON_PRECONDITION);
  }
  CHECK(ep.world().value_or(mjb::Document()) == before);
}

// Every call that takes inputs (mjb_input) and frame requests, with `inputs` (one input: ctrl
// = `want`) and `reqs` (one request: qpos into `qpos`) as they are given.
template <typename Inputs, typename Requests>
static void input_calls(mjb::Endpoint& ep, const char* name, Inputs&& inputs, Requests&& reqs,
                        const double* qpos, const double* want) {
  form = name;
  clear(ep);
  Seen s = seen(ep);
  wrote(ep, ep.write_step(inputs, 2), s, want, 2);
  clear(ep);
  s = seen(ep);
  wrote(ep, ep.write_step(mjb::Expect::at(s.info), inputs, 3), s, want, 3);

  for (int with_expect = 0; with_expect < 2; with_expect++) {
    clear(ep);
    s = seen(ep);
    mjb_frame_info info{};
    const uint32_t nstep = with_expect ? 2 : 5;
    mjb::Result r = with_expect
                        ? ep.write_step_read(mjb::Expect::at(s.info), inputs, nstep, reqs, &info)
                        : ep.write_step_read(inputs, nstep, reqs, &info);
    wrote(ep, r, s, want, nstep);
    CHECK(info.tick == s.info.tick + nstep);
    double now[13];
    CHECK(ep.frame(MJB_FIELD_QPOS, now).ok() && same_bits(now, qpos, 13));
  }

  // A prepared reader over two spans reads what a frame read reads; a short span is refused.
  form = "frame reader";
  double q[13], v[11], now[13], small[2];
  auto fr = ep.frame_reader({{MJB_FIELD_QPOS, {q, 13}}, {MJB_FIELD_QVEL, {v, 11}}});
  CHECK(fr.ok());
  if (fr.ok()) {
    auto i = fr->read();
    CHECK(i.ok() && ep.frame(MJB_FIELD_QPOS, now).ok() && same_bits(now, q, 13));
    CHECK(!ep.frame_reader({{MJB_FIELD_QPOS, {small, 2}}}).ok());
    fr->reset();
    fr->reset();
    CHECK(!*fr);
  }
}

// Endpoint::try_open and replace_model read a string by the bindings' rule.
static void string_configs(const std::string& host, const std::string& pendulum) {
  form = "string configs";
  auto by_path = mjb::Endpoint::try_open(host);
  CHECK(by_path.ok() && by_path->dims().value_or(mjb_model_dims{}).nq == 13);
  const std::string document = mjb::Config::from_path(pendulum).seed(9).json();
  auto by_document = mjb::Endpoint::try_open(" \n\t" + document);
  CHECK(by_document.ok());
  if (by_document) {
    const std::string world = by_document->world().value_or(mjb::Document());
    CHECK(world.find("\"seed\":9") != std::string::npos);
  }
  const std::string missing = host + ".missing.xml";
  auto refused = mjb::Endpoint::try_open(missing);
  CHECK(!refused && refused.reason() == MJB_REASON_MODEL_LOAD && refused.pointer() == "/model");
  CHECK(refused.detail().find("missing.xml") != std::string::npos);
  auto not_a_config = mjb::Endpoint::try_open("[1]");  // not '{' first: a path
  CHECK(!not_a_config && not_a_config.reason() == MJB_REASON_MODEL_LOAD);
  auto broken = mjb::Endpoint::try_open("  {\"model\":");
  CHECK(!broken && broken.reason() == MJB_REASON_MALFORMED_JSON);
  if (!by_path) return;
  mjb::Endpoint& ep = *by_path;
  CHECK(ep.step(3).ok());
  mjb::Result r = ep.replace_model(pendulum);
  CHECK(r.ok() && ep.dims().value_or(mjb_model_dims{}).nq == 1);
  CHECK(ep.dims().value_or(mjb_model_dims{}).configuration == 1);
  const mjb::Document before = ep.world().value_or(mjb::Document());
  r = ep.replace_model(missing);
  CHECK(r.reason() == MJB_REASON_MODEL_LOAD && r.pointer() == "/model");
  r = ep.replace_model(mjb::Expect::configuration(0), host);
  CHECK(r.reason() == MJB_REASON_PRECONDITION);
  CHECK(ep.world().value_or(mjb::Document()) == before);
  CHECK(ep.dims().value_or(mjb_model_dims{}).configuration == 1);
  r = ep.replace_model(mjb::Expect::at(before), host);
  CHECK(r.ok() && ep.dims().value_or(mjb_model_dims{}).nq == 13);
  CHECK(ep.replace_model("\r\n" + mjb::Config::from_path(pendulum).model_json()).ok());
  CHECK(ep.dims().value_or(mjb_model_dims{}).nq == 1);
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  auto opened = mjb::Endpoint::try_open(
      mjb::Config::from_path(argv[1]).frame(
          {MJB_FIELD_QPOS, MJB_FIELD_QVEL, MJB_FIELD_CTRL, MJB_FIELD_MOCAP_POS}));
  if (!opened) {
    std::fprintf(stderr, "open: %s\n", opened.detail().c_str());
    return 1;
  }
  mjb::Endpoint ep = std::move(opened).value();
  {
    auto d = ep.dims().value_or(mjb_model_dims{});
    if (d.nu != 2 || d.nq != 13 || d.nmocap != 1) return 2;
  }

  // ctrl, each form.
  double c_array[2] = {0.5, -0.25};
  ctrl_calls(ep, "C array", c_array, c_array);
  const double const_array[2] = {0.75, 0.125};
  ctrl_calls(ep, "const C array", const_array, const_array);
  std::array<double, 2> std_array = {-1.5, 2.0};
  ctrl_calls(ep, "std::array", std_array, std_array.data());
  const std::array<double, 2> const_std_array = {1.25, -0.5};
  ctrl_calls(ep, "const std::array", const_std_array, const_std_array.data());
  std::vector<double> vec = {0.0625, 3.0};
  ctrl_calls(ep, "std::vector", vec, vec.data());
  const std::vector<double> const_vec = {-3.5, 0.375};
  ctrl_calls(ep, "const std::vector", const_vec, const_vec.data());
  std::vector<double> longer = {9.0, 2.5, -1.0, 7.0};  // a pointer into a longer buffer
  const double* ptr = longer.data() + 1;
  ctrl_calls(ep, "mjb::span(ptr, n)", mjb::span(ptr, 2), ptr);
  ctrl_calls(ep, "mjb::Span<const double>(ptr, n)", mjb::Span<const double>(ptr, 2), ptr);
  double* mut = longer.data() + 2;
  ctrl_calls(ep, "mjb::span(double*, n)", mjb::span(mut, 2), mut);

  // Braced values (a temporary list, alive for the call).
  {
    form = "braced values";
    const double want[2] = {1.0, -2.0};
    clear(ep);
    Seen s = seen(ep);
    wrote(ep, ep.set_ctrl({1.0, -2.0}), s, want, 0);
    clear(ep);
    s = seen(ep);
    wrote(ep, ep.ctrl_step({1.0, -2.0}, 3), s, want, 3);
    clear(ep);
    s = seen(ep);
    wrote(ep, ep.ctrl_step(mjb::Expect::at(s.info), {1.0, -2.0}, 1), s, want, 1);
    clear(ep);
    s = seen(ep);
    wrote(ep, ep.input(mjb::Expect::at(s.info), MJB_FIELD_CTRL, -1, {1.0, -2.0}), s, want, 0);
  }

  // The length is the array's own: a C array of 3 for a model of nu 2 is refused whole, and a
  // span names exactly its elements.
  {
    form = "lengths";
    double three[3] = {0.1, 0.2, 0.3};
    const mjb::Document before = ep.world().value_or(mjb::Document());
    mjb::Result r = ep.ctrl_step(three, 1);
    CHECK(r.outcome() == MJB_REJECTED && r.reason() == MJB_REASON_DIMENSION);
    CHECK(r.detail.find("ctrl has 3 values") != std::string::npos);
    r = ep.ctrl_step(mjb::span(three, 1), 2);
    CHECK(r.outcome() == MJB_REJECTED && r.reason() == MJB_REASON_DIMENSION);
    r = ep.set_ctrl(mjb::Expect::at(seen(ep).info), mjb::span(three, 1));
    CHECK(r.outcome() == MJB_REJECTED && r.reason() == MJB_REASON_DIMENSION);
    CHECK(ep.world().value_or(mjb::Document()) == before);
    // One object's slice: the second actuator alone, from the middle of an array.
    const double two[2] = {0.0, 0.0};
    CHECK(ep.set_ctrl(two).ok());
    Seen s = seen(ep);
    CHECK(ep.input(mjb::Expect::at(s.info), MJB_FIELD_CTRL, 1, mjb::span(&three[2], 1)).ok());
    const double want[2] = {0.0, 0.3};
    CHECK(same_bits(seen(ep).ctrl, want, 2));
    // Another field, another length: mocap_pos of the one mocap body (3 values).
    std::array<double, 3> target = {0.4, 0.1, 0.8};
    CHECK(ep.input(MJB_FIELD_MOCAP_POS, 0, target).ok());
    double mocap[3];
    CHECK(ep.frame(MJB_FIELD_MOCAP_POS, mocap).ok() && same_bits(mocap, target.data(), 3));
  }

  // Inputs and requests, each form.
  {
    const double want[2] = {0.25, -0.75};
    mjb_input in{MJB_FIELD_CTRL, -1, want, 2};
    double q1[13], q2[13], q3[13], q4[13], q5[13];
    mjb_input in_array[1] = {in};
    mjb_frame_request req_array[1] = {{MJB_FIELD_QPOS, q1, 13, 0}};
    input_calls(ep, "inputs: C arrays", in_array, req_array, q1, want);
    std::array<mjb_input, 1> in_std = {in};
    std::array<mjb_frame_request, 1> req_std = {{{MJB_FIELD_QPOS, q2, 13, 0}}};
    input_calls(ep, "inputs: std::array", in_std, req_std, q2, want);
    std::vector<mjb_input> in_vec = {in};
    std::vector<mjb_frame_request> req_vec = {{MJB_FIELD_QPOS, q3, 13, 0}};
    input_calls(ep, "inputs: std::vector", in_vec, req_vec, q3, want);
    mjb_frame_request req_one{MJB_FIELD_QPOS, q4, 13, 0};
    input_calls(ep, "inputs: mjb::span", mjb::span(&in, 1), mjb::span(&req_one, 1), q4, want);
    form = "inputs: braced";
    clear(ep);
    Seen s = seen(ep);
    wrote(ep, ep.write_step({in}, 2), s, want, 2);
    clear(ep);
    s = seen(ep);
    wrote(ep, ep.write_step(mjb::Expect::at(s.info), {in}, 1), s, want, 1);
    // A C array of two requests: both are served (its length is 2, not the step count).
    double v5[11];
    mjb_frame_request two[2] = {{MJB_FIELD_QPOS, q5, 13, 0}, {MJB_FIELD_QVEL, v5, 11, 0}};
    form = "requests: C array of 2";
    clear(ep);
    s = seen(ep);
    mjb_frame_info info{};
    wrote(ep, ep.write_step_read(mjb::Expect::at(s.info), {in}, 1, two, &info), s, want, 1);
    CHECK(two[0].written == 13 && two[1].written == 11 && info.tick == s.info.tick + 1);
  }

  const char* name = std::strrchr(argv[0], '/') ? std::strrchr(argv[0], '/') + 1 : argv[0];
  string_configs(argv[1], argv[2]);

  if (failures) {
    std::fprintf(stderr, "%s: %d of %d checks failed\n", name, failures, checks);
    return 1;
  }
  std::printf("%s: %d checks, MJB_EXCEPTIONS %d\n%s: all checks passed\n", name, checks,
              MJB_EXCEPTIONS, name);
  return 0;
}
