/* A host that still calls the deprecated exports (mjb_step, mjb_snapshot, mjb_snapshot_info):
 * it compiles (with warnings naming the replacements) and each call does exactly what its
 * replacement does, on success and on refusal.
 * Usage: deprecated_host <pendulum.xml> */
#include <string.h>

#include "check.h"

static char* take(mjb_string* s) {
  CHECK(s != NULL);
  if (!s) return NULL;
  size_t n = mjb_string_len(s);
  char* copy = malloc(n + 1);
  memcpy(copy, mjb_string_data(s), n + 1);
  CHECK_OUTCOME(mjb_string_free(s), MJB_OK);
  return copy;
}

static char* world(mjb_endpoint* ep) {
  mjb_string* s = NULL;
  CHECK_OUTCOME(mjb_world_read(ep, MJB_WAIT_FOREVER, &s), MJB_OK);
  return take(s);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <pendulum.xml>\n", argv[0]);
    return 2;
  }
  char config[4096];
  snprintf(config, sizeof config, "{\"model\":{\"xml_path\":\"%s\"},\"seed\":5}", argv[1]);
  mjb_endpoint* ep = NULL;
  CHECK_OUTCOME(mjb_endpoint_open(config, strlen(config), &ep), MJB_OK);
  if (!ep) return 1;
  double ctrl[1] = {0.3};
  CHECK_OUTCOME(mjb_set_ctrl(ep, ctrl, 1, MJB_WAIT_FOREVER, NULL), MJB_OK);
  mjb_string* s = NULL;
  CHECK_OUTCOME(mjb_checkpoint_read(ep, MJB_WAIT_FOREVER, &s), MJB_OK);
  char* start = take(s);

  /* mjb_step and mjb_endpoint_step: the same steps from the same state. */
  mjb_report old_report, new_report;
  CHECK_OUTCOME(mjb_step(ep, 20, MJB_WAIT_FOREVER, &old_report), MJB_OK);
  char* after_old = world(ep);
  CHECK_OUTCOME(mjb_restore(ep, start, strlen(start), MJB_WAIT_FOREVER, NULL), MJB_OK);
  CHECK_OUTCOME(mjb_endpoint_step(ep, 20, MJB_WAIT_FOREVER, &new_report), MJB_OK);
  char* after_new = world(ep);
  CHECK(old_report.outcome == new_report.outcome && old_report.reason == new_report.reason);
  CHECK(old_report.tick_before == new_report.tick_before);
  CHECK(old_report.tick_after == 20 && new_report.tick_after == 20);
  CHECK(after_old && after_new && strcmp(after_old, after_new) == 0);

  /* mjb_snapshot is mjb_world_read; mjb_snapshot_info is mjb_world_read_info. */
  mjb_string* snap = NULL;
  CHECK_OUTCOME(mjb_snapshot(ep, MJB_WAIT_FOREVER, &snap), MJB_OK);
  char* snapshot = take(snap);
  CHECK(snapshot && after_new && strcmp(snapshot, after_new) == 0);
  mjb_read_info old_info, new_info;
  mjb_string* a = NULL;
  mjb_string* b = NULL;
  CHECK_OUTCOME(mjb_snapshot_info(ep, MJB_WAIT_FOREVER, &a, &old_info), MJB_OK);
  CHECK_OUTCOME(mjb_world_read_info(ep, MJB_WAIT_FOREVER, &b, &new_info), MJB_OK);
  char* old_doc = take(a);
  char* new_doc = take(b);
  CHECK(old_doc && new_doc && strcmp(old_doc, new_doc) == 0);
  CHECK(old_info.tick == 20 && old_info.tick == new_info.tick);
  CHECK(old_info.configuration == new_info.configuration && old_info.frame == new_info.frame);

  /* The same refusals. */
  CHECK_OUTCOME(mjb_step(NULL, 1, 0, &old_report), MJB_INVALID_ARGUMENT);
  CHECK_OUTCOME(mjb_endpoint_step(NULL, 1, 0, &new_report), MJB_INVALID_ARGUMENT);
  CHECK(old_report.reason == MJB_REASON_NULL_ARGUMENT && new_report.reason == old_report.reason);
  CHECK_OUTCOME(mjb_snapshot(ep, 0, NULL), MJB_INVALID_ARGUMENT);
  CHECK(strstr(last_error_text(), "MJB_REASON_NULL_ARGUMENT") != NULL);
  CHECK_OUTCOME(mjb_snapshot_info(NULL, 0, &a, &old_info), MJB_INVALID_ARGUMENT);
  CHECK(a == NULL && old_info.tick == 0);
  char* unchanged = world(ep);
  CHECK(unchanged && after_new && strcmp(unchanged, after_new) == 0);

  free(start);
  free(after_old);
  free(after_new);
  free(snapshot);
  free(old_doc);
  free(new_doc);
  free(unchanged);
  CHECK_OUTCOME(mjb_endpoint_free(ep), MJB_OK);
  return check_done("deprecated_host");
}
