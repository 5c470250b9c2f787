/* A host that includes MuJoCo 4.0's batch API next to the bridge and links MuJoCo first: the
 * batch API declares and exports its own mjb_step, so the bridge's is left out of this
 * translation unit (MJBRIDGE_NO_MJB_STEP) and mjb_endpoint_step steps the endpoint. */
#define MJBRIDGE_NO_MJB_STEP
#include <mujoco/mujoco.h>
#include <mujoco/mjbatch.h>
#include <mjbridge.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: batch_clash MODEL\n");
    return 2;
  }
  char config[4096];
  snprintf(config, sizeof config, "{\"model\":{\"xml_path\":\"%s\"}}", argv[1]);
  mjb_endpoint* ep = NULL;
  if (mjb_endpoint_open(config, strlen(config), &ep) != MJB_OK) {
    fprintf(stderr, "open refused\n");
    return 1;
  }
  mjb_report r;
  if (mjb_endpoint_step(ep, 7, MJB_WAIT_FOREVER, &r) != MJB_OK || r.tick_after != 7) {
    fprintf(stderr, "mjb_endpoint_step did not step: outcome %d tick %llu\n", r.outcome,
            (unsigned long long)r.tick_after);
    return 1;
  }
  /* The batch API is MuJoCo's and still usable beside the bridge. */
  mjBatchConfig bc;
  mjb_defaultConfig(&bc);
  mjb_endpoint_free(ep);
  printf("batch_clash: all checks passed\n");
  return 0;
}
