/* Prelude of docs/c.md's "keep old code building" fragment: with the macro defined empty, an old
 * host's deprecated calls compile under -Werror (the suite's flags) and still work. */
{{block}}

int main(void) {
  mjb_endpoint* ep = NULL;
  const char* config = "{\"model\":{\"xml_path\":\"examples/models/cart_pole.xml\"}}";
  if (mjb_endpoint_open(config, 54, &ep) != MJB_OK) return 1;
  mjb_report r;
  if (mjb_step(ep, 3, MJB_WAIT_FOREVER, &r) != MJB_OK || r.tick_after != 3) return 1;
  mjb_string* world = NULL;
  if (mjb_snapshot(ep, MJB_WAIT_FOREVER, &world) != MJB_OK) return 1;
  mjb_string_free(world);
  mjb_endpoint_free(ep);
  return 0;
}
