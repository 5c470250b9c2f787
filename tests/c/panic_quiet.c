/* A panic inside the bridge (fault-injection build) is answered with MJB_PANIC, its report
 * carries the admission tick and sequence, and nothing is printed on the host's stderr: the
 * test that runs this program checks that stderr stays empty with RUST_BACKTRACE=1 set. */
#include <string.h>

#include "check.h"

mjb_outcome mjb_test_inject_fault(mjb_endpoint* ep, int32_t fault);

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  char config[4096];
  snprintf(config, sizeof config, "{\"model\":{\"xml_path\":\"%s\"}}", argv[1]);
  mjb_endpoint* ep = NULL;
  CHECK_OUTCOME(mjb_endpoint_open(config, strlen(config), &ep), MJB_OK);
  mjb_report r;
  CHECK_OUTCOME(mjb_endpoint_step(ep, 10, MJB_WAIT_FOREVER, &r), MJB_OK);
  uint64_t seq = r.sequence;
  CHECK_OUTCOME(mjb_test_inject_fault(ep, 6), MJB_OK);
  CHECK_OUTCOME(mjb_endpoint_step(ep, 3, MJB_WAIT_FOREVER, &r), MJB_PANIC);
  CHECK(r.outcome == MJB_PANIC);
  CHECK(r.reason == MJB_REASON_PANIC);
  CHECK(r.tick_before == 10);
  CHECK(r.tick_after == 10);
  CHECK(r.sequence == seq + 1);
  CHECK(strstr(last_error_text(), "injected fault") != NULL);
  mjb_safety_state s;
  CHECK_OUTCOME(mjb_safety_read(ep, &s), MJB_OK);
  CHECK(s.fenced && s.fence_reason == MJB_REASON_PANIC);
  CHECK_OUTCOME(mjb_endpoint_free(ep), MJB_OK);
  return check_done("panic_quiet");
}
