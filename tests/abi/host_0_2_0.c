/* A host written for mjbridge 0.2.0: compiled against the 0.2.0 header (mjbridge-0.2.0.h, kept
 * as released: `git show 1e44d71:include/mjbridge.h`) with its calls only, linked and run
 * against the current library. Every 0.x release is a drop-in for an older one: the calls,
 * the structs they fill and the enum values mean what they meant in 0.2.0.
 * Usage: host_0_2_0 <pendulum.xml> */
#include <stdio.h>
#include <string.h>

#include "mjbridge-0.2.0.h"

#if MJB_VERSION_MAJOR != 0 || MJB_VERSION_MINOR != 2
#error "this host must be compiled against the 0.2.0 header"
#endif

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                              \
    }                                                                          \
  } while (0)

static const char* last_error(void) {
  static char buf[4096];
  size_t needed = 0;
  if (mjb_last_error(buf, sizeof buf, &needed) != MJB_OK) return "(last error too long)";
  return buf;
}

#define CHECK_OUTCOME(got, want)                                                           \
  do {                                                                                     \
    mjb_outcome got_ = (got);                                                              \
    if (got_ != (want)) {                                                                  \
      fprintf(stderr, "%s:%d: %s returned %s, want %s; last error %s\n", __FILE__, __LINE__, \
              #got, mjb_outcome_name(got_), mjb_outcome_name(want), last_error());         \
      failures++;                                                                          \
    }                                                                                      \
  } while (0)

/* The world document's state hash (the text after "state_hash":), copied into out. */
static void state_hash(mjb_endpoint* ep, char* out, size_t cap) {
  mjb_string* world = NULL;
  out[0] = '\0';
  CHECK_OUTCOME(mjb_world_read(ep, MJB_WAIT_FOREVER, &world), MJB_OK);
  if (!world) return;
  const char* at = strstr(mjb_string_data(world), "\"state_hash\":\"");
  CHECK(at != NULL);
  if (at) {
    at += strlen("\"state_hash\":\"");
    size_t n = strcspn(at, "\"");
    if (n < cap) {
      memcpy(out, at, n);
      out[n] = '\0';
    }
  }
  CHECK_OUTCOME(mjb_string_free(world), MJB_OK);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <pendulum.xml>\n", argv[0]);
    return 2;
  }
  /* Built against 0.2.0, running on a newer library. */
  printf("header %s, library %s\n", MJB_VERSION, mjb_version());
  CHECK(strcmp(mjb_version(), MJB_VERSION) != 0);
  CHECK(strncmp(mjb_version(), "0.", 2) == 0);

  char config[4096];
  snprintf(config, sizeof config, "{\"model\":{\"xml_path\":\"%s\"},\"seed\":7}", argv[1]);
  mjb_endpoint* ep = NULL;
  CHECK_OUTCOME(mjb_endpoint_open(config, strlen(config), &ep), MJB_OK);
  if (!ep) return 1;

  /* Step: the report is the 0.2.0 struct, filled field by field. */
  double ctrl[1] = {0.5};
  mjb_report report;
  memset(&report, 0xAB, sizeof report);
  CHECK_OUTCOME(mjb_set_ctrl(ep, ctrl, 1, MJB_WAIT_FOREVER, &report), MJB_OK);
  CHECK_OUTCOME(mjb_step(ep, 50, MJB_WAIT_FOREVER, &report), MJB_OK);
  CHECK(report.outcome == MJB_OK && report.reason == MJB_REASON_NONE);
  CHECK(report.tick_before == 0 && report.tick_after == 50);
  CHECK(report.engine_resets == 0 && report.sequence > 0);

  /* Checkpoint, step on, restore: back to the state and tick of the checkpoint. */
  mjb_string* checkpoint = NULL;
  CHECK_OUTCOME(mjb_checkpoint_read(ep, MJB_WAIT_FOREVER, &checkpoint), MJB_OK);
  if (!checkpoint) return 1;
  char at_checkpoint[128];
  state_hash(ep, at_checkpoint, sizeof at_checkpoint);
  CHECK(strncmp(at_checkpoint, "sha256:", 7) == 0);
  CHECK_OUTCOME(mjb_step(ep, 25, MJB_WAIT_FOREVER, &report), MJB_OK);
  CHECK(report.tick_after == 75);
  char later[128];
  state_hash(ep, later, sizeof later);
  CHECK(strcmp(later, at_checkpoint) != 0);
  CHECK_OUTCOME(mjb_restore(ep, mjb_string_data(checkpoint), mjb_string_len(checkpoint),
                            MJB_WAIT_FOREVER, &report),
                MJB_OK);
  CHECK(report.tick_before == 75 && report.tick_after == 50);
  char restored[128];
  state_hash(ep, restored, sizeof restored);
  CHECK(strcmp(restored, at_checkpoint) == 0);

  /* The 0.2.0 snapshot is the world document, byte for byte. */
  mjb_string* snapshot = NULL;
  mjb_string* world = NULL;
  CHECK_OUTCOME(mjb_snapshot(ep, MJB_WAIT_FOREVER, &snapshot), MJB_OK);
  CHECK_OUTCOME(mjb_world_read(ep, MJB_WAIT_FOREVER, &world), MJB_OK);
  CHECK(snapshot && world && strcmp(mjb_string_data(snapshot), mjb_string_data(world)) == 0);
  CHECK_OUTCOME(mjb_string_free(snapshot), MJB_OK);
  CHECK_OUTCOME(mjb_string_free(world), MJB_OK);

  /* Refusals: reasons with their 0.2.0 values, and nothing changed. */
  const char* malformed = "{\"profile\":";
  CHECK_OUTCOME(mjb_restore(ep, malformed, strlen(malformed), MJB_WAIT_FOREVER, &report),
                MJB_REJECTED);
  CHECK(report.outcome == MJB_REJECTED && report.reason == MJB_REASON_MALFORMED_JSON);
  CHECK(report.tick_before == 50 && report.tick_after == 50);
  CHECK(strstr(last_error(), "\"MJB_REASON_MALFORMED_JSON\"") != NULL);
  double two[2] = {1.0, 2.0};
  CHECK_OUTCOME(mjb_set_ctrl(ep, two, 2, MJB_WAIT_FOREVER, &report), MJB_REJECTED);
  CHECK(report.reason == MJB_REASON_DIMENSION);
  CHECK(strcmp(mjb_reason_name(MJB_REASON_DIMENSION), "MJB_REASON_DIMENSION") == 0);
  CHECK(strcmp(mjb_reason_name(MJB_REASON_TICK_OVERFLOW), "MJB_REASON_TICK_OVERFLOW") == 0);
  CHECK(strcmp(mjb_outcome_name(MJB_PANIC), "MJB_PANIC") == 0);
  char after_refusals[128];
  state_hash(ep, after_refusals, sizeof after_refusals);
  CHECK(strcmp(after_refusals, at_checkpoint) == 0);

  /* Stop, confirm, reset: the 0.2.0 safety state struct. A step while stopped is refused. */
  mjb_safety_state safety;
  memset(&safety, 0xAB, sizeof safety);
  CHECK_OUTCOME(mjb_stop(ep, &safety), MJB_OK);
  CHECK(safety.stopped && safety.confirmed && safety.stop_count == 1);
  CHECK(safety.first_stop_tick == 50 && safety.last_stop_tick == 50);
  CHECK(safety.in_flight == 0 && !safety.fenced && safety.fence_reason == MJB_REASON_NONE);
  CHECK_OUTCOME(mjb_step(ep, 1, MJB_WAIT_FOREVER, &report), MJB_REJECTED);
  CHECK(report.reason == MJB_REASON_STOP_LATCHED && report.tick_after == 50);
  CHECK_OUTCOME(mjb_confirm_paused(ep), MJB_OK);
  CHECK_OUTCOME(mjb_safety_reset(ep), MJB_OK);
  CHECK_OUTCOME(mjb_safety_read(ep, &safety), MJB_OK);
  CHECK(!safety.stopped && safety.stop_count == 1);
  CHECK_OUTCOME(mjb_step(ep, 1, MJB_WAIT_FOREVER, &report), MJB_OK);
  CHECK(report.tick_after == 51);

  CHECK_OUTCOME(mjb_string_free(checkpoint), MJB_OK);
  CHECK_OUTCOME(mjb_endpoint_free(ep), MJB_OK);
  CHECK_OUTCOME(mjb_endpoint_free(ep), MJB_INVALID_ARGUMENT);
  if (failures) {
    fprintf(stderr, "host_0_2_0: %d check(s) failed\n", failures);
    return 1;
  }
  printf("host_0_2_0: all checks passed\n");
  return 0;
}
