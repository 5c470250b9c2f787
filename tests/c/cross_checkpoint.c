/* Host program: a checkpoint taken by one build of the bridge, restored by another (Linux
 * x86_64 -> Windows x86_64 or Linux aarch64, same model and engine release). Usage:
 *   cross_checkpoint take <model.xml> <k> <m> <checkpoint.json>
 *       step k, write the checkpoint, step m more, print the state hash
 *   cross_checkpoint restore <model.xml> <checkpoint.json> <m>
 *       restore the file into a fresh endpoint, step m, print the state hash
 * Prints "restore: <outcome> <reason>", "hash-at-checkpoint: <checkpoint document>" and
 * "hash-after-m: <checkpoint document>" (the checkpoint holds every integration-state byte; the
 * world document also names the model, whose compiled form may differ between platforms), and
 * "model: <fingerprint>". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjbridge.h"

static int fail(const char* what, mjb_outcome o) {
  char err[4096];
  size_t needed = 0;
  mjb_last_error(err, sizeof err, &needed);
  fprintf(stderr, "%s: %s %s\n", what, mjb_outcome_name(o), err);
  return 1;
}

static mjb_endpoint* open_model(const char* path) {
  char config[4096];
  snprintf(config, sizeof config, "{\"model\":{\"xml_path\":\"%s\"},\"seed\":1}", path);
  mjb_endpoint* ep = NULL;
  mjb_outcome o = mjb_endpoint_open(config, strlen(config), &ep);
  if (o != MJB_OK) {
    fail("mjb_endpoint_open", o);
    exit(1);
  }
  return ep;
}

static int print_hash(mjb_endpoint* ep, const char* label) {
  mjb_string* s = NULL;
  mjb_outcome o = mjb_checkpoint_read(ep, MJB_WAIT_FOREVER, &s);
  if (o != MJB_OK) return fail("mjb_checkpoint_read", o);
  printf("%s: %s\n", label, mjb_string_data(s));
  mjb_string_free(s);
  char fp[128];
  size_t needed = 0;
  o = mjb_model_fingerprint(ep, fp, sizeof fp, &needed);
  if (o != MJB_OK) return fail("mjb_model_fingerprint", o);
  printf("model: %s\n", fp);
  return 0;
}

static int step(mjb_endpoint* ep, unsigned n) {
  mjb_report r;
  mjb_outcome o = mjb_endpoint_step(ep, n, MJB_WAIT_FOREVER, &r);
  return o == MJB_OK ? 0 : fail("mjb_endpoint_step", o);
}

int main(int argc, char** argv) {
  if (argc == 6 && strcmp(argv[1], "take") == 0) {
    mjb_endpoint* ep = open_model(argv[2]);
    if (step(ep, (unsigned)atoi(argv[3]))) return 1;
    mjb_string* cp = NULL;
    mjb_outcome o = mjb_checkpoint_read(ep, MJB_WAIT_FOREVER, &cp);
    if (o != MJB_OK) return fail("mjb_checkpoint_read", o);
    FILE* f = fopen(argv[5], "wb");
    if (!f || fwrite(mjb_string_data(cp), 1, mjb_string_len(cp), f) != mjb_string_len(cp)) {
      fprintf(stderr, "cannot write %s\n", argv[5]);
      return 1;
    }
    fclose(f);
    mjb_string_free(cp);
    if (print_hash(ep, "hash-at-checkpoint") || step(ep, (unsigned)atoi(argv[4])) ||
        print_hash(ep, "hash-after-m"))
      return 1;
    mjb_endpoint_free(ep);
    return 0;
  }
  if (argc == 5 && strcmp(argv[1], "restore") == 0) {
    FILE* f = fopen(argv[3], "rb");
    if (!f) {
      fprintf(stderr, "cannot read %s\n", argv[3]);
      return 1;
    }
    static char doc[1 << 20];
    size_t len = fread(doc, 1, sizeof doc, f);
    fclose(f);
    mjb_endpoint* ep = open_model(argv[2]);
    mjb_report r;
    mjb_outcome o = mjb_restore(ep, doc, len, MJB_WAIT_FOREVER, &r);
    printf("restore: %s %s\n", mjb_outcome_name(o), mjb_reason_name(r.reason));
    if (o != MJB_OK) {
      fail("mjb_restore", o);
      return 3;
    }
    if (print_hash(ep, "hash-at-checkpoint") || step(ep, (unsigned)atoi(argv[4])) ||
        print_hash(ep, "hash-after-m"))
      return 1;
    mjb_endpoint_free(ep);
    return 0;
  }
  fprintf(stderr, "usage: %s take <model> <k> <m> <out> | restore <model> <in> <m>\n", argv[0]);
  return 2;
}
