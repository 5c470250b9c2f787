/* Prelude of a docs/c.md fragment that needs an open endpoint `ep` on the shipped model; after
 * it, a world document must have been read at tick 10. */
#include <string.h>

#include "mjbridge.h"

int main(void) {
  const char* config = "{\"model\":{\"xml_path\":\"examples/models/cart_pole.xml\"}}";
  mjb_endpoint* ep = NULL;
  if (mjb_endpoint_open(config, strlen(config), &ep) != MJB_OK) return 1;
  {
{{block}}
    if (r.tick_after != 10 || world == NULL || strstr(mjb_string_data(world), "\"tick\":10") == NULL) return 1;
    mjb_string_free(world);
  }
  mjb_endpoint_free(ep);
  return 0;
}
