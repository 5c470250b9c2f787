/* A downstream program of a colcon workspace: opens an endpoint on a small model (given
 * inline, so the package carries no files besides this one), steps, checkpoints, steps on,
 * restores and steps again, and checks that the continuation after the restore is
 * bit-identical to the first one. Exit status 0 only then.
 * Usage: mjbridge_downstream [k] [m]   (k steps before the checkpoint, m after; 200 and 300) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mjbridge.h>

/* A pendulum on a hinge, driven by a motor. */
static const char* const kConfig =
    "{\"model\":{\"xml\":\"<mujoco><option timestep='0.002'/><worldbody>"
    "<body pos='0 0 1'><joint name='hinge' type='hinge' axis='0 1 0'/>"
    "<geom type='capsule' fromto='0 0 0 0.3 0 -0.3' size='0.04' mass='1'/></body>"
    "</worldbody><actuator><motor joint='hinge' gear='1'/></actuator></mujoco>\"},"
    "\"name\":\"downstream\",\"seed\":7,\"profile\":\"auto\"}";

static int fail(const char* what, mjb_outcome o) {
  char err[2048];
  size_t needed = 0;
  mjb_last_error(err, sizeof err, &needed);
  fprintf(stderr, "%s: %s %s\n", what, mjb_outcome_name(o), err);
  return 1;
}

/* The world document, copied into a malloc'd string (NULL on failure). */
static char* world(mjb_endpoint* ep) {
  mjb_string* s = NULL;
  mjb_outcome o = mjb_world_read(ep, MJB_WAIT_FOREVER, &s);
  if (o != MJB_OK) {
    fail("mjb_world_read", o);
    return NULL;
  }
  size_t len = mjb_string_len(s);
  char* copy = malloc(len + 1);
  if (copy) memcpy(copy, mjb_string_data(s), len + 1);
  mjb_string_free(s);
  return copy;
}

int main(int argc, char** argv) {
  unsigned k = argc > 1 ? (unsigned)atoi(argv[1]) : 200;
  unsigned m = argc > 2 ? (unsigned)atoi(argv[2]) : 300;
  printf("mjbridge %s\n", mjb_version());

  mjb_endpoint* ep = NULL;
  mjb_outcome o = mjb_endpoint_open(kConfig, strlen(kConfig), &ep);
  if (o != MJB_OK) return fail("mjb_endpoint_open", o);

  int rc = 1;
  mjb_report r;
  mjb_string* cp = NULL;
  char *first = NULL, *restored = NULL, *replay = NULL, *at_checkpoint = NULL;
  double ctrl[1] = {0.5};
  if ((o = mjb_set_ctrl(ep, ctrl, 1, MJB_WAIT_FOREVER, &r)) != MJB_OK) {
    fail("mjb_set_ctrl", o);
    goto done;
  }
  if ((o = mjb_endpoint_step(ep, k, MJB_WAIT_FOREVER, &r)) != MJB_OK) {
    fail("mjb_endpoint_step", o);
    goto done;
  }
  if (!(at_checkpoint = world(ep))) goto done;
  if ((o = mjb_checkpoint_read(ep, MJB_WAIT_FOREVER, &cp)) != MJB_OK) {
    fail("mjb_checkpoint_read", o);
    goto done;
  }
  if ((o = mjb_endpoint_step(ep, m, MJB_WAIT_FOREVER, &r)) != MJB_OK) {
    fail("mjb_endpoint_step", o);
    goto done;
  }
  if (!(first = world(ep))) goto done;
  if ((o = mjb_restore(ep, mjb_string_data(cp), mjb_string_len(cp), MJB_WAIT_FOREVER, &r)) !=
      MJB_OK) {
    fail("mjb_restore", o);
    goto done;
  }
  printf("restored: tick %llu -> %llu\n", (unsigned long long)r.tick_before,
         (unsigned long long)r.tick_after);
  if (!(restored = world(ep))) goto done;
  if ((o = mjb_endpoint_step(ep, m, MJB_WAIT_FOREVER, &r)) != MJB_OK) {
    fail("mjb_endpoint_step", o);
    goto done;
  }
  if (!(replay = world(ep))) goto done;

  int back = strcmp(restored, at_checkpoint) == 0;
  int same = strcmp(replay, first) == 0;
  int moved = strcmp(first, at_checkpoint) != 0;
  printf("world after restore equals the checkpoint's: %s\n", back ? "yes" : "NO");
  printf("continuation after restore is bit-identical (%u steps): %s\n", m, same ? "yes" : "NO");
  if (!moved) fprintf(stderr, "the model did not move in %u steps\n", m);
  rc = back && same && moved ? 0 : 1;

done:
  free(at_checkpoint);
  free(first);
  free(restored);
  free(replay);
  if (cp) mjb_string_free(cp);
  mjb_endpoint_free(ep);
  return rc;
}
