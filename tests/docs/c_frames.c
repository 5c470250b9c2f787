/* Prelude of docs/c.md's frame-read fragment: an endpoint on the shipped model, stepped once
 * with the hinge moving, so the fragment's read shows a real value. */
#include <stdio.h>
#include <string.h>

#include "mjbridge.h"

int main(void) {
  const char* config = "{\"model\":{\"xml_path\":\"examples/models/cart_pole.xml\"}}";
  mjb_endpoint* ep = NULL;
  if (mjb_endpoint_open(config, strlen(config), &ep) != MJB_OK) return 1;
  double twist[2] = {0.0, 1.0};
  mjb_set_ctrl(ep, twist, 2, MJB_WAIT_FOREVER, NULL);
  mjb_endpoint_step(ep, 10, MJB_WAIT_FOREVER, NULL);
  {
{{block}}
    if (hinge < 0 || written != 13 || info.tick != 10 || qpos[adr.qpos_adr] == 0.0) return 1;
  }
  mjb_endpoint_free(ep);
  return 0;
}
