/* Prelude of docs/c.md's planner fragment: K rollouts of H steps on the shipped model, a cost
 * (the cart's distance from 0.2 m) and the best rollout kept. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mjbridge.h"

enum { K = 8, H = 20 };
static double ctrl[2];
static const mjb_input input = {MJB_FIELD_CTRL, -1, ctrl, 2};
static int best = -1;
static double best_cost = INFINITY;

static void sample_ctrl(int k, int h, double* out) {
  out[0] = (k - K / 2) * 0.5 + 0.01 * h;
  out[1] = 0.0;
}

static double cost(mjb_endpoint* ep) {
  double qpos[13];
  size_t written = 0;
  mjb_frame_info info;
  mjb_frame_read(ep, MJB_FIELD_QPOS, qpos, 13, &written, &info);
  return fabs(qpos[0] - 0.2);
}

static void keep_if_best(int k, double c) {
  if (c < best_cost) {
    best_cost = c;
    best = k;
  }
}

int main(void) {
  const char* config = "{\"model\":{\"xml_path\":\"examples/models/cart_pole.xml\"}}";
  mjb_endpoint* ep = NULL;
  if (mjb_endpoint_open(config, strlen(config), &ep) != MJB_OK) return 1;
  mjb_endpoint_step(ep, 5, MJB_WAIT_FOREVER, NULL);
  {
{{block}}
  }
  printf("best rollout %d, cost %g\n", best, best_cost);
  mjb_endpoint_free(ep);
  return best >= 0 ? 0 : 1;
}
