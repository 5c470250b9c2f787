/* Host program: MuJoCo errors raised outside the bridge's calls still reach the handler the
 * host installed, before or after the bridge installed its own routing, and the bridge's
 * guarded calls keep working in between. Usage: host_error_handler <model.xml> */
#include <mujoco/mujoco.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

static jmp_buf host_env;
static char host_msg[1024];
static int host_calls = 0;
static const char* host_tag = "";

/* The host's own mju_user_error: MuJoCo requires it not to return, so it longjmps home. */
static void host_handler(const char* msg) {
  host_calls++;
  snprintf(host_msg, sizeof host_msg, "%s:%s", host_tag, msg);
  longjmp(host_env, 1);
}

/* The host's own warning handler: warnings outside the bridge's calls still reach it. */
static int host_warnings = 0;
static char host_warning_msg[1024];
static void host_warning(const char* msg) {
  host_warnings++;
  snprintf(host_warning_msg, sizeof host_warning_msg, "%s", msg);
}

/* Raise an engine error from host code, outside any bridge call. */
static int host_raises(const char* text) {
  host_msg[0] = '\0';
  if (setjmp(host_env) == 0) {
#if mjVERSION_HEADER < 233 /* before 2.3.3 mju_error took the message only */
    mju_error(text);
#else
    mju_error("%s", text);
#endif
    return 0; /* not reached when a handler took it */
  }
  return 1;
}

static void step_ok(mjb_endpoint* ep) {
  mjb_report r;
  CHECK_OUTCOME(mjb_endpoint_step(ep, 5, MJB_WAIT_FOREVER, &r), MJB_OK);
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  char config[4096];
  snprintf(config, sizeof config, "{\"model\":{\"xml_path\":\"%s\"}}", argv[1]);

  /* 1. Handler installed before the bridge. */
  host_tag = "first";
  mju_user_error = host_handler;
  mjb_endpoint* ep = NULL;
  CHECK_OUTCOME(mjb_endpoint_open(config, strlen(config), &ep), MJB_OK);
  step_ok(ep);
  CHECK(host_raises("outside the bridge"));
  CHECK(host_calls == 1);
  CHECK(strstr(host_msg, "first:") == host_msg);
  CHECK(strstr(host_msg, "outside the bridge") != NULL);

  /* 2. The host replaces its handler while the endpoint lives: the bridge re-chains at its
   *    next guarded call, so the new handler serves errors outside the bridge. */
  host_tag = "second";
  mju_user_error = host_handler;
  step_ok(ep);
  CHECK(host_raises("again outside"));
  CHECK(host_calls == 2);
  CHECK(strstr(host_msg, "second:") == host_msg);
  step_ok(ep);

  /* 3. Warnings: the bridge routes those raised inside its calls to its log callback; the
   *    host's warning handler keeps serving its own. */
  mju_user_warning = host_warning;
  step_ok(ep);
#if mjVERSION_HEADER < 233
  mju_warning("host warning");
#else
  mju_warning("%s", "host warning");
#endif
  CHECK(host_warnings == 1);
  CHECK(strstr(host_warning_msg, "host warning") != NULL);
  step_ok(ep);
  mju_user_warning = NULL;

  CHECK_OUTCOME(mjb_endpoint_free(ep), MJB_OK);
  printf("host handler saw: %s\n", host_msg);
  return check_done("host_error_handler");
}
