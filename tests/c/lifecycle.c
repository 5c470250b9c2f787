/* Host program: open -> step -> free, NULL and double-free cases, a compile error in XML,
 * the string and last-error conventions. Usage: lifecycle <pendulum.xml> <broken.xml> */
#include <stdio.h>
#include <string.h>

#include "check.h"

static mjb_endpoint* open_path(const char* path, mjb_outcome* outcome) {
  char config[4096];
  snprintf(config, sizeof config, "{\"model\":{\"xml_path\":\"%s\"},\"name\":\"c-host\",\"seed\":3}",
           path);
  mjb_endpoint* ep = (mjb_endpoint*)0x1; /* must be overwritten with NULL or a handle */
  *outcome = mjb_endpoint_open(config, strlen(config), &ep);
  return ep;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <pendulum.xml> <broken.xml>\n", argv[0]);
    return 2;
  }
  printf("mjbridge %s\n", mjb_version());
  CHECK(strcmp(mjb_version(), MJB_VERSION) == 0); /* header and library agree */

  /* open -> step -> read -> free */
  mjb_outcome o;
  mjb_endpoint* ep = open_path(argv[1], &o);
  CHECK_OUTCOME(o, MJB_OK);
  CHECK(ep != NULL);
  double ctrl[1] = {0.25};
  mjb_report report;
  CHECK_OUTCOME(mjb_set_ctrl(ep, ctrl, 1, MJB_WAIT_FOREVER, &report), MJB_OK);
  CHECK_OUTCOME(mjb_endpoint_step(ep, 100, MJB_WAIT_FOREVER, &report), MJB_OK);
  CHECK(report.outcome == MJB_OK);
  CHECK(report.tick_before == 0 && report.tick_after == 100);
  mjb_string* world = NULL;
  CHECK_OUTCOME(mjb_world_read(ep, MJB_WAIT_FOREVER, &world), MJB_OK);
  CHECK(world != NULL);
  CHECK(mjb_string_len(world) == strlen(mjb_string_data(world)));
  CHECK(strstr(mjb_string_data(world), "\"tick\":100") != NULL);
  CHECK(strstr(mjb_string_data(world), "\"state_hash\":\"sha256:") != NULL);
  CHECK_OUTCOME(mjb_string_free(world), MJB_OK);
  /* a freed string is detected, not freed twice */
  CHECK_OUTCOME(mjb_string_free(world), MJB_INVALID_ARGUMENT);
  CHECK(mjb_string_data(world) == NULL);
  CHECK(mjb_string_len(world) == 0);
  CHECK_OUTCOME(mjb_string_free(NULL), MJB_OK);

  /* wrong ctrl length: refused, nothing written, report filled */
  double two[2] = {1.0, 2.0};
  CHECK_OUTCOME(mjb_set_ctrl(ep, two, 2, MJB_WAIT_FOREVER, &report), MJB_REJECTED);
  CHECK(report.reason == MJB_REASON_DIMENSION);
  CHECK(strstr(last_error_text(), "MJB_REASON_DIMENSION") != NULL);

  /* NULL arguments */
  CHECK_OUTCOME(mjb_endpoint_step(NULL, 1, 0, &report), MJB_INVALID_ARGUMENT);
  CHECK(report.outcome == MJB_INVALID_ARGUMENT && report.reason == MJB_REASON_NULL_ARGUMENT);
  CHECK_OUTCOME(mjb_endpoint_step(ep, 1, 0, NULL), MJB_OK);
  CHECK_OUTCOME(mjb_world_read(ep, 0, NULL), MJB_INVALID_ARGUMENT);
  CHECK_OUTCOME(mjb_safety_read(ep, NULL), MJB_INVALID_ARGUMENT);
  CHECK_OUTCOME(mjb_endpoint_open(NULL, 5, &ep), MJB_INVALID_ARGUMENT);
  CHECK(ep == NULL); /* out-param set to NULL on entry */
  ep = open_path(argv[1], &o);
  CHECK_OUTCOME(mjb_endpoint_open("{}", 2, NULL), MJB_INVALID_ARGUMENT);
  CHECK_OUTCOME(mjb_set_ctrl(ep, NULL, 1, 0, &report), MJB_INVALID_ARGUMENT);
  CHECK(report.reason == MJB_REASON_NULL_ARGUMENT);

  /* bad UTF-8 is an invalid argument */
  const char bad_utf8[] = "{\"world\":{\"ctrl\":[\"\xff\"]}}";
  CHECK_OUTCOME(mjb_world_write(ep, bad_utf8, sizeof bad_utf8 - 1, 0, &report),
                MJB_INVALID_ARGUMENT);
  CHECK(report.reason == MJB_REASON_INVALID_UTF8);

  /* close, then use and close again: detected, never UB */
  CHECK_OUTCOME(mjb_endpoint_free(ep), MJB_OK);
  CHECK_OUTCOME(mjb_endpoint_step(ep, 1, 0, &report), MJB_INVALID_ARGUMENT);
  CHECK(report.reason == MJB_REASON_CLOSED);
  CHECK_OUTCOME(mjb_endpoint_free(ep), MJB_INVALID_ARGUMENT);
  CHECK(strstr(last_error_text(), "MJB_REASON_CLOSED") != NULL);
  CHECK_OUTCOME(mjb_endpoint_free(NULL), MJB_OK);
  /* a pointer this library never issued */
  static int not_a_handle;
  CHECK_OUTCOME(mjb_endpoint_step((mjb_endpoint*)&not_a_handle, 1, 0, &report),
                MJB_INVALID_ARGUMENT);
  CHECK(report.reason == MJB_REASON_FOREIGN_HANDLE);

  /* a model that does not compile: refused with MuJoCo's message, process keeps running */
  ep = open_path(argv[2], &o);
  CHECK_OUTCOME(o, MJB_REJECTED);
  CHECK(ep == NULL);
  CHECK(strstr(last_error_text(), "MJB_REASON_MODEL_LOAD") != NULL);
  CHECK(strstr(last_error_text(), "no_such_joint") != NULL);
  printf("compile error reported as: %s\n", last_error_text());

  /* a strict config: unknown field */
  const char* unknown = "{\"model\":{\"xml\":\"<mujoco/>\"},\"colour\":1}";
  CHECK_OUTCOME(mjb_endpoint_open(unknown, strlen(unknown), &ep), MJB_REJECTED);
  CHECK(strstr(last_error_text(), "\"pointer\":\"/colour\"") != NULL);

  /* names */
  CHECK(strcmp(mjb_outcome_name(MJB_UNKNOWN), "MJB_UNKNOWN") == 0);
  CHECK(strcmp(mjb_reason_name(MJB_REASON_BUSY), "MJB_REASON_BUSY") == 0);
  CHECK(strcmp(mjb_outcome_name(99), "MJB_OUTCOME_UNKNOWN_VALUE") == 0);

  return check_done("lifecycle");
}
