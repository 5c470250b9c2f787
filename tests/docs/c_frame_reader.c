/* Prelude of docs/c.md's frame-reader fragment: an endpoint on the shipped model; the fragment
 * steps it three times and reads each frame through one prepared reader. */
#include <stdio.h>
#include <string.h>

#include "mjbridge.h"

int main(void) {
  const char* config = "{\"model\":{\"xml_path\":\"examples/models/cart_pole.xml\"}}";
  mjb_endpoint* ep = NULL;
  if (mjb_endpoint_open(config, strlen(config), &ep) != MJB_OK) return 1;
  {
{{block}}
    if (reqs[0].written != 13 || seen.tick != 3 || reader_outcome != MJB_OK) return 1;
  }
  mjb_endpoint_free(ep);
  return 0;
}
