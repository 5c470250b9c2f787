/* Tiny assertion helpers shared by the C host programs. */
#ifndef MJB_TEST_CHECK_H
#define MJB_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "mjbridge.h"

static int check_failures = 0;

#define CHECK(cond)                                                       \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      check_failures++;                                                   \
    }                                                                     \
  } while (0)

#define CHECK_OUTCOME(got, want)                                              \
  do {                                                                        \
    mjb_outcome got_ = (got);                                                 \
    if (got_ != (want)) {                                                     \
      char buf_[2048];                                                        \
      size_t need_ = 0;                                                       \
      mjb_last_error(buf_, sizeof buf_, &need_);                              \
      fprintf(stderr, "%s:%d: %s returned %s, want %s; last error %s\n", __FILE__, \
              __LINE__, #got, mjb_outcome_name(got_), mjb_outcome_name(want), buf_); \
      check_failures++;                                                       \
    }                                                                         \
  } while (0)

/* The last error's JSON text (static buffer). */
static inline const char* last_error_text(void) {
  static char buf[4096];
  size_t needed = 0;
  if (mjb_last_error(buf, sizeof buf, &needed) != MJB_OK) return "(last error too long)";
  return buf;
}

static inline int check_done(const char* name) {
  if (check_failures) {
    fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    return 1;
  }
  printf("%s: all checks passed\n", name);
  return 0;
}

#endif
