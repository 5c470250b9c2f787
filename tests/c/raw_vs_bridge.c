/* Host program: the bridge's stepping equals raw mj_step bit for bit.
 * Loads the same model twice; steps one pair with plain mj_step and hands the other to an
 * endpoint (mjb_endpoint_adopt) that steps it through mjb_endpoint_step. After 1000 steps with
 * the same controls, time, qpos, qvel and act must be identical bytes.
 * Usage: raw_vs_bridge <model.xml> */
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define STEPS 1000

static int same(const mjtNum* a, const mjtNum* b, long n, const char* what) {
  if (n > 0 && memcmp(a, b, sizeof(mjtNum) * (size_t)n) != 0) {
    fprintf(stderr, "%s differs\n", what);
    return 0;
  }
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <model.xml>\n", argv[0]);
    return 2;
  }
  char err[1000] = "";
  mjModel* m_raw = mj_loadXML(argv[1], NULL, err, sizeof err);
  mjModel* m_br = mj_loadXML(argv[1], NULL, err, sizeof err);
  if (!m_raw || !m_br) {
    fprintf(stderr, "load: %s\n", err);
    return 2;
  }
  mjData* d_raw = mj_makeData(m_raw);
  mjData* d_br = mj_makeData(m_br);
  CHECK(m_raw->nu >= 1 && m_raw->na >= 1 && m_raw->neq >= 1);

  mjb_endpoint* ep = NULL;
  const char* config = "{\"name\":\"adopted\"}";
  CHECK_OUTCOME(mjb_endpoint_adopt(m_br, d_br, config, strlen(config), &ep), MJB_OK);

  double ctrl[8] = {0.3, -0.2, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1};
  for (int i = 0; i < m_raw->nu; i++) d_raw->ctrl[i] = ctrl[i];
  mjb_report report;
  CHECK_OUTCOME(mjb_set_ctrl(ep, ctrl, (size_t)m_raw->nu, MJB_WAIT_FOREVER, &report), MJB_OK);

  for (int i = 0; i < STEPS; i++) mj_step(m_raw, d_raw);
  for (int i = 0; i < STEPS / 100; i++) {
    CHECK_OUTCOME(mjb_endpoint_step(ep, 100, MJB_WAIT_FOREVER, &report), MJB_OK);
  }
  CHECK(report.tick_after == STEPS);

  /* The endpoint owns d_br now; reading it while no call is in flight is safe here. */
  CHECK(memcmp(&d_raw->time, &d_br->time, sizeof(mjtNum)) == 0);
  CHECK(same(d_raw->qpos, d_br->qpos, (long)m_raw->nq, "qpos"));
  CHECK(same(d_raw->qvel, d_br->qvel, (long)m_raw->nv, "qvel"));
  CHECK(same(d_raw->act, d_br->act, (long)m_raw->na, "act"));
  CHECK(d_raw->ncon > 0); /* the model really is in contact */
  printf("after %d steps: time %.17g qpos[2] %.17g act[0] %.17g ncon %d\n", STEPS, d_raw->time,
         d_raw->qpos[2], d_raw->act[0], (int)d_raw->ncon);

  CHECK_OUTCOME(mjb_endpoint_free(ep), MJB_OK); /* frees m_br and d_br */
  mj_deleteData(d_raw);
  mj_deleteModel(m_raw);
  return check_done("raw_vs_bridge");
}
