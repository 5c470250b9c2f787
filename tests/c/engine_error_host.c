/* Host program: a real MuJoCo error raised deep inside mj_step (not injected): the arena of
 * arena_overflow.xml overflows once its boxes make contact. The bridge's guard comes back from
 * MuJoCo's frames (on Windows with a non-unwinding jump across the MSVC-built DLL), rolls the
 * step back and proves it: the state hash after the refused step is the one before it, the
 * tick did not move, the endpoint is not fenced, and the next step fails the same way.
 * Usage: engine_error_host <arena_overflow.xml> */
#include <stdio.h>
#include <string.h>

#include "check.h"

static void state_hash(mjb_endpoint* ep, char* out, size_t cap) {
  mjb_string* s = NULL;
  out[0] = '\0';
  if (mjb_world_read(ep, MJB_WAIT_FOREVER, &s) != MJB_OK) return;
  const char* h = strstr(mjb_string_data(s), "\"state_hash\":\"");
  if (h) snprintf(out, cap, "%.71s", h + strlen("\"state_hash\":\""));
  mjb_string_free(s);
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  char config[4096];
  snprintf(config, sizeof config, "{\"model\":{\"xml_path\":\"%s\"},\"seed\":1}", argv[1]);
  mjb_endpoint* ep = NULL;
  CHECK_OUTCOME(mjb_endpoint_open(config, strlen(config), &ep), MJB_OK);
  if (!ep) return check_done("engine_error_host");
  char before[128], after[128];
  int errors = 0;
  for (int i = 0; i < 2000 && errors < 2; i++) {
    state_hash(ep, before, sizeof before);
    mjb_report r;
    mjb_outcome o = mjb_endpoint_step(ep, 1, MJB_WAIT_FOREVER, &r);
    if (o == MJB_OK) continue;
    errors++;
    CHECK_OUTCOME(o, MJB_ROLLED_BACK);
    const char* err = last_error_text();
    CHECK(strstr(err, "stack") != NULL || strstr(err, "memory") != NULL);
    CHECK(r.tick_after == r.tick_before);
    state_hash(ep, after, sizeof after);
    CHECK(strcmp(before, after) == 0);
    printf("engine error at tick %llu: %s, state %s unchanged: %s\n",
           (unsigned long long)r.tick_before, mjb_outcome_name(o), after,
           strcmp(before, after) == 0 ? "yes" : "NO");
    printf("  last error: %s\n", err);
  }
  CHECK(errors == 2);
  mjb_safety_state s;
  CHECK_OUTCOME(mjb_safety_read(ep, &s), MJB_OK);
  CHECK(!s.fenced);
  CHECK_OUTCOME(mjb_endpoint_free(ep), MJB_OK);
  return check_done("engine_error_host");
}
