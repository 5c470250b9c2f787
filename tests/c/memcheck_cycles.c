/* Open/step/checkpoint/restore/refuse/stop/free cycles, a fenced endpoint and refused
 * documents, for valgrind memcheck (run by tests/c_hosts.rs with fault injection): no
 * invalid access, no uninitialised read, no definite leak. */
#include <string.h>

#include "check.h"

mjb_outcome mjb_test_inject_fault(mjb_endpoint* ep, int32_t fault);

static mjb_endpoint* open_model(const char* path) {
  char config[4096];
  snprintf(config, sizeof config, "{\"model\":{\"xml_path\":\"%s\"},\"seed\":3}", path);
  mjb_endpoint* ep = NULL;
  CHECK_OUTCOME(mjb_endpoint_open(config, strlen(config), &ep), MJB_OK);
  return ep;
}

static char* read_checkpoint(mjb_endpoint* ep) {
  mjb_string* s = NULL;
  CHECK_OUTCOME(mjb_checkpoint_read(ep, MJB_WAIT_FOREVER, &s), MJB_OK);
  size_t n = mjb_string_len(s);
  char* copy = malloc(n + 1);
  memcpy(copy, mjb_string_data(s), n + 1);
  CHECK_OUTCOME(mjb_string_free(s), MJB_OK);
  CHECK_OUTCOME(mjb_string_free(s), MJB_INVALID_ARGUMENT); /* double free refused */
  return copy;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  int cycles = argc > 2 ? atoi(argv[2]) : 20;
  mjb_report r;
  for (int i = 0; i < cycles; i++) {
    mjb_endpoint* ep = open_model(argv[1]);
    CHECK_OUTCOME(mjb_endpoint_step(ep, 5, MJB_WAIT_FOREVER, &r), MJB_OK);
    char* cp = read_checkpoint(ep);
    CHECK_OUTCOME(mjb_endpoint_step(ep, 3, MJB_WAIT_FOREVER, &r), MJB_OK);
    CHECK_OUTCOME(mjb_restore(ep, cp, strlen(cp), MJB_WAIT_FOREVER, &r), MJB_OK);
    const char* bad[] = {"{\"profile\":1}", "{\"profile\":\"x\",\"a\":[1,2,1e400]}", "[]",
                         "{\"a\":{\"b\":1,\"b\":2}}", "{\"world\":{\"qpos\":[0]}}"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
      CHECK_OUTCOME(mjb_restore(ep, bad[k], strlen(bad[k]), MJB_WAIT_FOREVER, &r), MJB_REJECTED);
      CHECK_OUTCOME(mjb_world_write(ep, bad[k], strlen(bad[k]), MJB_WAIT_FOREVER, &r),
                    MJB_REJECTED);
      char err[4096];
      size_t need = 0;
      CHECK_OUTCOME(mjb_last_error(err, sizeof err, &need), MJB_OK);
    }
    mjb_string* w = NULL;
    CHECK_OUTCOME(mjb_world_read(ep, MJB_WAIT_FOREVER, &w), MJB_OK);
    CHECK_OUTCOME(mjb_string_free(w), MJB_OK);
    mjb_safety_state st;
    CHECK_OUTCOME(mjb_stop(ep, &st), MJB_OK);
    CHECK(st.stopped);
    CHECK_OUTCOME(mjb_confirm_paused(ep), MJB_OK);
    CHECK_OUTCOME(mjb_safety_reset(ep), MJB_OK);
    if (i == 0) {
      /* A fenced endpoint: a rollback that cannot be proven. */
      CHECK_OUTCOME(mjb_test_inject_fault(ep, 4), MJB_OK);
      CHECK_OUTCOME(mjb_restore(ep, cp, strlen(cp), MJB_WAIT_FOREVER, &r), MJB_UNKNOWN);
      CHECK_OUTCOME(mjb_endpoint_step(ep, 1, MJB_WAIT_FOREVER, &r), MJB_FENCED);
      CHECK_OUTCOME(mjb_safety_read(ep, &st), MJB_OK);
      CHECK(st.fenced);
    }
    free(cp);
    CHECK_OUTCOME(mjb_endpoint_free(ep), MJB_OK);
    CHECK_OUTCOME(mjb_endpoint_free(ep), MJB_INVALID_ARGUMENT);
  }
  return check_done("memcheck_cycles");
}
