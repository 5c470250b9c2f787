/* Prelude of docs/c.md's compare-and-step fragment: an endpoint on the shipped model and a
 * policy; after the fragment, the same precondition (now stale: the fragment's own step moved
 * the endpoint on) must be refused with nothing done. */
#include <stdio.h>
#include <string.h>

#include "mjbridge.h"

static void choose_ctrl(const double* qpos, const double* qvel, double* ctrl) {
  ctrl[0] = -2.0 * qpos[0] - 0.5 * qvel[0];   /* push the cart back to the middle */
  ctrl[1] = 0.0;
}

int main(void) {
  const char* config = "{\"model\":{\"xml_path\":\"examples/models/cart_pole.xml\"}}";
  mjb_endpoint* ep = NULL;
  if (mjb_endpoint_open(config, strlen(config), &ep) != MJB_OK) return 1;
  {
{{block}}
    if (o != MJB_OK || seen.tick != 1) return 1;
    mjb_frame_info after;
    o = mjb_write_step_read_if(ep, &expect, &input, 1, 1, MJB_WAIT_FOREVER, reqs, 2, &after, &report);
    if (o != MJB_REJECTED || report.reason != MJB_REASON_PRECONDITION || report.tick_after != 1) return 1;
  }
  mjb_endpoint_free(ep);
  return 0;
}
