/* Host program run with a MuJoCo library of another release in place of the one the bridge
 * was compiled against (via LD_LIBRARY_PATH): opening an endpoint must be refused with the
 * engine reason, and the process must keep running. Usage: engine_mismatch <model.xml> */
#include <stdio.h>
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  mjb_string* info = NULL;
  CHECK_OUTCOME(mjb_build_info(&info), MJB_OK);
  printf("build info: %s\n", mjb_string_data(info));
  mjb_string_free(info);
  char config[4096];
  snprintf(config, sizeof config, "{\"model\":{\"xml_path\":\"%s\"}}", argv[1]);
  mjb_endpoint* ep = NULL;
  CHECK_OUTCOME(mjb_endpoint_open(config, strlen(config), &ep), MJB_REJECTED);
  CHECK(ep == NULL);
  CHECK(strstr(last_error_text(), "MJB_REASON_ENGINE") != NULL);
  printf("refused: %s\n", last_error_text());
  return check_done("engine_mismatch");
}
