// The header compiles as C++17 with -Wall -Wextra -Werror, together with mujoco.h, and a C++
// host can pass MuJoCo's own mjModel*/mjData* types to it.
#include <mujoco/mujoco.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "mjbridge.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  char err[1000] = "";
  mjModel* m = mj_loadXML(argv[1], nullptr, err, sizeof err);
  if (!m) return 2;
  mjData* d = mj_makeData(m);
  mjb_endpoint* ep = nullptr;
  std::string config = R"({"profile":"auto"})";
  if (mjb_endpoint_adopt(m, d, config.data(), config.size(), &ep) != MJB_OK) return 1;
  mjb_report report{};
  if (mjb_endpoint_step(ep, 5, MJB_WAIT_FOREVER, &report) != MJB_OK || report.tick_after != 5)
    return 1;
  mjb_string* s = nullptr;
  if (mjb_checkpoint_read(ep, MJB_WAIT_FOREVER, &s) != MJB_OK) return 1;
  std::string doc(mjb_string_data(s), mjb_string_len(s));
  mjb_string_free(s);
  mjb_endpoint_free(ep);
  if (doc.find("\"tick\":5") == std::string::npos) return 1;
  std::printf("header_cpp17: checkpoint of %zu bytes\nheader_cpp17: all checks passed\n", doc.size());
  return 0;
}
