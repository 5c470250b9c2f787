/* Host program: a model that needs MuJoCo's engine plugins (the PID actuator), opened by a host
 * that never links MuJoCo, after the bridge loaded the installed plugin folder.
 * Usage: plugin_host <plugin folder> <pid_plugin.xml> */
#include <stdio.h>
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  char config[4096];
  snprintf(config, sizeof config, "{\"model\":{\"xml_path\":\"%s\"}}", argv[2]);
  mjb_endpoint* ep = NULL;
  /* Before the plugins are loaded the model does not compile: refused, not a process exit. */
  CHECK_OUTCOME(mjb_endpoint_open(config, strlen(config), &ep), MJB_REJECTED);
  CHECK(ep == NULL);
  size_t libraries = 0, plugins = 0;
  CHECK_OUTCOME(mjb_plugin_load_dir(argv[1], &libraries, &plugins), MJB_OK);
  printf("plugins: %zu libraries, %zu plugins\n", libraries, plugins);
  CHECK(libraries >= 1 && plugins >= 1);
  CHECK_OUTCOME(mjb_endpoint_open(config, strlen(config), &ep), MJB_OK);
  mjb_report r;
  CHECK_OUTCOME(mjb_endpoint_step(ep, 100, MJB_WAIT_FOREVER, &r), MJB_OK);
  CHECK(r.tick_after == 100);
  mjb_string* cp = NULL;
  CHECK_OUTCOME(mjb_checkpoint_read(ep, MJB_WAIT_FOREVER, &cp), MJB_OK);
  CHECK_OUTCOME(mjb_endpoint_step(ep, 50, MJB_WAIT_FOREVER, &r), MJB_OK);
  CHECK_OUTCOME(mjb_restore(ep, mjb_string_data(cp), mjb_string_len(cp), MJB_WAIT_FOREVER, &r),
                MJB_OK);
  CHECK(r.tick_after == 100);
  mjb_string_free(cp);
  CHECK_OUTCOME(mjb_endpoint_free(ep), MJB_OK);
  return check_done("plugin_host");
}
