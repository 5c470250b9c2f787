/* Prelude of docs/c.md's history fragment: an endpoint `ep` of the shipped model with a
 * history, 300 ticks stepped; the fragment must leave `exported` holding a recording and the
 * endpoint at tick `h.oldest_tick + 10`. On an engine with the basic profile only the open is
 * refused (the reason is checked) and nothing else runs. */
#include <string.h>

#include "mjbridge.h"

int main(void) {
  const char* config =
      "{\"model\":{\"xml_path\":\"examples/models/cart_pole.xml\"},"
      "\"history\":{\"window_ticks\":1000,\"keyframe_every\":100}}";
  mjb_endpoint* ep = NULL;
  if (mjb_endpoint_open(config, strlen(config), &ep) != MJB_OK) {
    char buf[1024];
    size_t needed = 0;
    mjb_last_error(buf, sizeof buf, &needed);
    mjb_string* info = NULL;
    if (mjb_build_info(&info) != MJB_OK) return 1;
    int basic_only = strstr(mjb_string_data(info), "\"integration_profile\":false") != NULL;
    mjb_string_free(info);
    return basic_only && strstr(buf, "\"pointer\":\"/history\"") ? 0 : 1;
  }
  if (mjb_endpoint_step(ep, 300, MJB_WAIT_FOREVER, NULL) != MJB_OK) return 1;
  mjb_string* exported = NULL;
  uint64_t landed = 0;
  {
{{block}}
    landed = h.oldest_tick + 10;
  }
  if (exported == NULL || strstr(mjb_string_data(exported), "\"mjbridge_recording_v1\"") == NULL) return 1;
  mjb_string_free(exported);
  mjb_string* doc = NULL;
  mjb_read_info at;
  if (mjb_checkpoint_read_info(ep, MJB_WAIT_FOREVER, &doc, &at) != MJB_OK || at.tick != landed) return 1;
  mjb_string_free(doc);
  mjb_endpoint_free(ep);
  return 0;
}
