/* The header alone compiles as C99 with -Wall -Wextra -Werror -pedantic and needs no
 * mujoco.h. */
#include <stdio.h>

#include "mjbridge.h"

int main(void) {
  mjb_report report = {0, 0, 0, 0, 0, 0};
  mjb_safety_state safety;
  (void)safety;
  if (mjb_endpoint_step(NULL, 0, MJB_WAIT_FOREVER, &report) != MJB_INVALID_ARGUMENT ||
      report.reason != MJB_REASON_NULL_ARGUMENT) {
    return 1;
  }
  printf("header_c99: all checks passed\n");
  return 0;
}
