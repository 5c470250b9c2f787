/* A C host of an installed mjbridge, built with pkg-config (shared) and with CMake's
 * mjbridge::mjbridge_static target. Usage: consumer <pendulum.xml> */
#include <stdio.h>
#include <string.h>

#include "check.h"

static char* take(mjb_string* s, char* buf, size_t cap) {
  size_t n = mjb_string_len(s);
  if (n >= cap) n = cap - 1;
  memcpy(buf, mjb_string_data(s), n);
  buf[n] = '\0';
  mjb_string_free(s);
  return buf;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  CHECK(strcmp(mjb_version(), MJB_VERSION) == 0);
  mjb_string* info = NULL;
  CHECK_OUTCOME(mjb_build_info(&info), MJB_OK);
  static char text[1 << 20], at_checkpoint[1 << 20], checkpoint[1 << 20];
  printf("%s\n", take(info, text, sizeof text));

  char config[4096];
  snprintf(config, sizeof config, "{\"model\":{\"xml_path\":\"%s\"},\"seed\":9}", argv[1]);
  mjb_endpoint* ep = NULL;
  CHECK_OUTCOME(mjb_endpoint_open(config, strlen(config), &ep), MJB_OK);
  mjb_report r;
  CHECK_OUTCOME(mjb_endpoint_step(ep, 20, MJB_WAIT_FOREVER, &r), MJB_OK);
  mjb_string* s = NULL;
  CHECK_OUTCOME(mjb_checkpoint_read(ep, MJB_WAIT_FOREVER, &s), MJB_OK);
  take(s, checkpoint, sizeof checkpoint);
  CHECK_OUTCOME(mjb_world_read(ep, MJB_WAIT_FOREVER, &s), MJB_OK);
  take(s, at_checkpoint, sizeof at_checkpoint);
  CHECK_OUTCOME(mjb_endpoint_step(ep, 7, MJB_WAIT_FOREVER, &r), MJB_OK);
  CHECK_OUTCOME(mjb_restore(ep, checkpoint, strlen(checkpoint), MJB_WAIT_FOREVER, &r), MJB_OK);
  CHECK(r.tick_before == 27 && r.tick_after == 20);
  CHECK_OUTCOME(mjb_world_read(ep, MJB_WAIT_FOREVER, &s), MJB_OK);
  CHECK(strcmp(take(s, text, sizeof text), at_checkpoint) == 0);

  /* A refused document: reason and pointer, and the world is unchanged. */
  char* seed = strstr(checkpoint, "\"seed\":9");
  CHECK(seed != NULL);
  if (seed) seed[7] = '8';
  CHECK_OUTCOME(mjb_restore(ep, checkpoint, strlen(checkpoint), MJB_WAIT_FOREVER, &r), MJB_REJECTED);
  CHECK(r.reason == MJB_REASON_SEED);
  CHECK(strstr(last_error_text(), "\"pointer\":\"/seed\"") != NULL);
  CHECK_OUTCOME(mjb_world_read(ep, MJB_WAIT_FOREVER, &s), MJB_OK);
  CHECK(strcmp(take(s, text, sizeof text), at_checkpoint) == 0);

  mjb_safety_state st;
  CHECK_OUTCOME(mjb_stop(ep, &st), MJB_OK);
  CHECK(st.stopped && st.confirmed && st.stop_count == 1);
  CHECK_OUTCOME(mjb_endpoint_step(ep, 1, MJB_WAIT_FOREVER, &r), MJB_REJECTED);
  CHECK(r.reason == MJB_REASON_STOP_LATCHED && r.tick_after == 20);
  CHECK_OUTCOME(mjb_endpoint_free(ep), MJB_OK);
  return check_done("consumer");
}
