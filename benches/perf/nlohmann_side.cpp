// The nlohmann::json contender of benches/perf.rs: the same checkpoint written and read by
// the most common C++ JSON library, with no checks at all (values only, no validation), on a
// MuJoCo pair of its own. Compiled by the bench at run time against the headers and library
// the bridge links; loaded with dlopen.
#include <mujoco/mujoco.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {
struct Side {
  mjModel* m = nullptr;
  mjData* d = nullptr;
  int sig = 0;
  std::vector<mjtNum> state;
  std::string text;
};
}  // namespace

extern "C" {

void* side_open(const char* xml_path, int sig) {
  char err[1000] = {0};
  mjModel* m = mj_loadXML(xml_path, nullptr, err, sizeof err);
  if (!m) return nullptr;
  auto* s = new Side;
  s->m = m;
  s->d = mj_makeData(m);
  s->sig = sig;
  s->state.resize(mj_stateSize(m, sig));
  return s;
}

void side_close(void* h) {
  auto* s = static_cast<Side*>(h);
  mj_deleteData(s->d);
  mj_deleteModel(s->m);
  delete s;
}

// mj_getState, then a JSON document holding the values (nlohmann's default number printing).
size_t side_write(void* h, const char** out) {
  auto* s = static_cast<Side*>(h);
  mj_getState(s->m, s->d, s->state.data(), s->sig);
  nlohmann::json j;
  j["values"] = s->state;
  s->text = j.dump();
  *out = s->text.c_str();
  return s->text.size();
}

// Parse a document (any of the bridge's checkpoints), take "values", mj_setState. No checks.
int side_restore(void* h, const char* doc, size_t len) {
  auto* s = static_cast<Side*>(h);
  auto j = nlohmann::json::parse(doc, doc + len);
  auto values = j["values"].get<std::vector<mjtNum>>();
  if (values.size() != s->state.size()) return 1;
  mj_setState(s->m, s->d, values.data(), s->sig);
  return 0;
}
}
