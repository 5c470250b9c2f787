/* mjbridge demo host, in plain C against include/mjbridge.h only:
 *   open -> step -> checkpoint -> step -> restore -> step
 * and show that the continuation after the restore is bit-identical to the first run.
 * Usage: checkpoint_demo <model.xml> [k] [m] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjbridge.h"

static void fail(const char* what, mjb_outcome o) {
  char err[4096];
  size_t needed = 0;
  mjb_last_error(err, sizeof err, &needed);
  fprintf(stderr, "%s: %s %s\n", what, mjb_outcome_name(o), err);
  exit(1);
}

/* The world document as a malloc'd C string. */
static char* world(mjb_endpoint* ep) {
  mjb_string* s = NULL;
  mjb_outcome o = mjb_world_read(ep, MJB_WAIT_FOREVER, &s);
  if (o != MJB_OK) fail("mjb_world_read", o);
  char* copy = malloc(mjb_string_len(s) + 1);
  memcpy(copy, mjb_string_data(s), mjb_string_len(s) + 1);
  mjb_string_free(s);
  return copy;
}

/* Print `"key":<value>` (first occurrence; arrays cut at 60 characters) from a document. */
static void show(const char* doc, const char* key) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":", key);
  const char* p = strstr(doc, pattern);
  if (!p) return;
  p += strlen(pattern);
  int array = *p == '[';
  size_t n = strcspn(p, array ? "]" : ",}");
  size_t cut = array && n > 60 ? 60 : n;
  printf("    %-10s %.*s%s\n", key, (int)cut, p, cut < n ? "...]" : (array ? "]" : ""));
}

static void step(mjb_endpoint* ep, unsigned n) {
  mjb_report r;
  mjb_outcome o = mjb_endpoint_step(ep, n, MJB_WAIT_FOREVER, &r);
  if (o != MJB_OK) fail("mjb_endpoint_step", o);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s <model.xml> [k] [m]\n", argv[0]);
    return 2;
  }
  unsigned k = argc > 2 ? (unsigned)atoi(argv[2]) : 500;
  unsigned m = argc > 3 ? (unsigned)atoi(argv[3]) : 1000;
  printf("mjbridge %s\n", mjb_version());
  mjb_string* info = NULL;
  mjb_build_info(&info);
  printf("build: %s\n\n", mjb_string_data(info));
  mjb_string_free(info);

  char config[4096];
  snprintf(config, sizeof config,
           "{\"model\":{\"xml_path\":\"%s\"},\"name\":\"demo\",\"seed\":42,\"profile\":\"auto\"}",
           argv[1]);
  mjb_endpoint* ep = NULL;
  mjb_outcome o = mjb_endpoint_open(config, strlen(config), &ep);
  if (o != MJB_OK) fail("mjb_endpoint_open", o);

  double ctrl[2] = {0.4, -0.3};
  mjb_report r;
  o = mjb_set_ctrl(ep, ctrl, 2, MJB_WAIT_FOREVER, &r);
  if (o != MJB_OK) fail("mjb_set_ctrl", o);

  printf("1. open and step %u\n", k);
  step(ep, k);
  char* w0 = world(ep);
  show(w0, "tick");
  show(w0, "time");
  show(w0, "qpos");
  show(w0, "state_hash");

  printf("2. checkpoint at tick %u\n", k);
  mjb_string* cp = NULL;
  o = mjb_checkpoint_read(ep, MJB_WAIT_FOREVER, &cp);
  if (o != MJB_OK) fail("mjb_checkpoint_read", o);
  show(mjb_string_data(cp), "profile");
  show(mjb_string_data(cp), "size");
  printf("    %zu bytes of JSON\n", mjb_string_len(cp));

  printf("3. step %u more (first run)\n", m);
  step(ep, m);
  char* w1 = world(ep);
  show(w1, "tick");
  show(w1, "qpos");
  show(w1, "state_hash");

  printf("4. restore the checkpoint\n");
  o = mjb_restore(ep, mjb_string_data(cp), mjb_string_len(cp), MJB_WAIT_FOREVER, &r);
  if (o != MJB_OK) fail("mjb_restore", o);
  printf("    %s, tick %llu -> %llu\n", mjb_outcome_name(o), (unsigned long long)r.tick_before,
         (unsigned long long)r.tick_after);
  char* wr = world(ep);
  show(wr, "state_hash");
  int restored_same = strcmp(wr, w0) == 0;
  printf("    world document equals the one at the checkpoint: %s\n", restored_same ? "yes" : "NO");

  printf("5. step %u again (replay)\n", m);
  step(ep, m);
  char* w2 = world(ep);
  show(w2, "tick");
  show(w2, "qpos");
  show(w2, "state_hash");

  int identical = strcmp(w1, w2) == 0;
  printf("\ncontinuation after restore is bit-identical to the first run: %s\n",
         identical && restored_same ? "YES" : "NO");
  mjb_string_free(cp);
  free(w0);
  free(w1);
  free(wr);
  free(w2);
  mjb_endpoint_free(ep);
  return identical && restored_same ? 0 : 1;
}
