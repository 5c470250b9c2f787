/* mjbridge host loop: the 500 Hz pattern of a ROS 2-style node, in C11 with POSIX threads,
 * against include/mjbridge.h only (the host never links MuJoCo).
 *
 *   control thread    every 2 ms: read qpos/qvel of the latest frame (no lock), compute a PD
 *                     control, then mjb_write_step(ctrl, 1 step): one admission per tick.
 *   publisher thread  reads frames (qpos, xpos, sensordata) as fast as it likes, without the
 *                     lock, and checks they are never older than the last one it saw.
 *   service thread    once the run is under way: stop -> confirm paused -> restore the
 *                     checkpoint taken at start -> safety reset; the controller carries on.
 *
 * Usage: host_loop <model.xml> [control ticks, default 500] [--fast: do not pace at 500 Hz]
 * The model should have an actuator "push" on a slide joint "slide" (tests/models/host.xml);
 * with other models the controller sends zeros. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mjbridge.h"

#define PERIOD_NS 2000000L /* 500 Hz */

static mjb_endpoint* ep;
static atomic_int done;
static atomic_int failures;
static atomic_int restored;
static atomic_ulong control_ticks;
static atomic_ulong stop_tick; /* the tick the restore rewound from */
static int fast;

#define EXPECT(cond, ...)                                       \
  do {                                                          \
    if (!(cond)) {                                              \
      char err_[2048];                                          \
      size_t need_ = 0;                                         \
      mjb_last_error(err_, sizeof err_, &need_);                \
      fprintf(stderr, "host_loop: %s: ", #cond);                \
      fprintf(stderr, __VA_ARGS__);                             \
      fprintf(stderr, " (last error %s)\n", err_);              \
      atomic_fetch_add(&failures, 1);                           \
    }                                                           \
  } while (0)

static void sleep_until(struct timespec* t) {
  t->tv_nsec += PERIOD_NS;
  if (t->tv_nsec >= 1000000000L) {
    t->tv_nsec -= 1000000000L;
    t->tv_sec += 1;
  }
  if (!fast) clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL);
}

/* ---- control: frame in, ctrl out, one lock per tick ---------------------------------------- */

static void* control(void* arg) {
  unsigned long ticks = *(unsigned long*)arg;
  mjb_model_dims d;
  EXPECT(mjb_dims(ep, &d) == MJB_OK, "dims");
  int32_t push = -1, slide = -1;
  mjb_joint_adr js = {0, 0, 0, 0};
  if (mjb_name_to_id(ep, MJB_OBJ_ACTUATOR, "push", &push) != MJB_OK ||
      mjb_name_to_id(ep, MJB_OBJ_JOINT, "slide", &slide) != MJB_OK ||
      mjb_joint_slice(ep, slide, &js) != MJB_OK)
    push = -1; /* another model: send zeros */
  double* qpos = calloc((size_t)d.nq + 1, sizeof(double));
  double* qvel = calloc((size_t)d.nv + 1, sizeof(double));
  double* ctrl = calloc((size_t)d.nu + 1, sizeof(double));
  mjb_frame_request req[2] = {{MJB_FIELD_QPOS, qpos, (size_t)d.nq, 0},
                              {MJB_FIELD_QVEL, qvel, (size_t)d.nv, 0}};
  mjb_input in = {MJB_FIELD_CTRL, -1, ctrl, (size_t)d.nu};
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  /* Run the ticks asked for, and on until the service thread has done its restore. */
  while (atomic_load(&control_ticks) < ticks || !atomic_load(&restored)) {
    mjb_frame_info info;
    EXPECT(mjb_frame_read_many(ep, req, 2, &info) == MJB_OK, "frame read");
    if (push >= 0) {
      double target = 0.2;
      ctrl[push] = -8.0 * (qpos[js.qpos_adr] - target) - 1.0 * qvel[js.dof_adr];
    }
    mjb_report r;
    mjb_outcome o = mjb_write_step(ep, &in, 1, 1, 50, &r);
    if (o == MJB_OK && r.tick_after == r.tick_before + 1) {
      atomic_fetch_add(&control_ticks, 1);
    } else {
      /* Paused by the service thread (stop latched), or it held the lock: try next period. */
      EXPECT(o == MJB_REJECTED || r.reason == MJB_REASON_STOP_LATCHED, "write_step: %s %s",
             mjb_outcome_name(o), mjb_reason_name(r.reason));
    }
    sleep_until(&t);
  }
  free(qpos);
  free(qvel);
  free(ctrl);
  atomic_store(&done, 1);
  return NULL;
}

/* ---- publisher: frames without the lock ----------------------------------------------------- */

static void* publisher(void* arg) {
  (void)arg;
  mjb_model_dims d;
  mjb_dims(ep, &d);
  size_t nx = 3 * (size_t)d.nbody, ns = (size_t)d.nsensordata;
  double* qpos = calloc((size_t)d.nq + 1, sizeof(double));
  double* xpos = calloc(nx + 1, sizeof(double));
  double* sens = calloc(ns + 1, sizeof(double));
  mjb_frame_request req[3] = {{MJB_FIELD_QPOS, qpos, (size_t)d.nq, 0},
                              {MJB_FIELD_XPOS, xpos, nx, 0},
                              {MJB_FIELD_SENSORDATA, sens, ns, 0}};
  unsigned long reads = 0, last_frame = 0, stale_seen = 0;
  while (!atomic_load(&done)) {
    mjb_frame_info info;
    mjb_outcome o = mjb_frame_read_many(ep, req, 3, &info);
    EXPECT(o == MJB_OK, "publisher read");
    EXPECT(info.frame >= last_frame, "frames go forward: %lu after %lu", (unsigned long)info.frame,
           last_frame);
    last_frame = info.frame;
    if (info.stale & (1ull << MJB_FIELD_SENSORDATA)) stale_seen++;
    reads++;
    struct timespec pause = {0, 200000}; /* a 5 kHz publisher */
    nanosleep(&pause, NULL);
  }
  printf("publisher: %lu frame reads, last frame %lu, %lu with sensors stale after a restore\n",
         reads, last_frame, stale_seen);
  EXPECT(reads > 0, "the publisher read frames");
  free(qpos);
  free(xpos);
  free(sens);
  return NULL;
}

/* ---- service: stop, confirm, restore, reset ------------------------------------------------- */

static void* service(void* arg) {
  const char* checkpoint = arg;
  unsigned long half = 0;
  while (!atomic_load(&done) && atomic_load(&control_ticks) < 100) {
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
  }
  if (atomic_load(&done)) return NULL;
  mjb_safety_state s;
  EXPECT(mjb_stop(ep, &s) == MJB_OK && s.stopped, "stop");
  /* The pause is confirmed once no native work is in flight. */
  while (mjb_confirm_paused(ep) != MJB_OK) half++;
  mjb_report r;
  EXPECT(mjb_restore(ep, checkpoint, strlen(checkpoint), MJB_WAIT_FOREVER, &r) == MJB_OK,
         "restore");
  mjb_frame_info info;
  EXPECT(mjb_frame_read_many(ep, NULL, 0, &info) == MJB_OK, "info");
  EXPECT(info.cause == MJB_FRAME_RESTORE && info.tick == 0, "restored frame at tick 0");
  EXPECT(info.stale & (1ull << MJB_FIELD_SENSORDATA), "sensors stale until the next step");
  printf("service: stopped at tick %lu, confirmed after %lu polls, restored tick 0\n",
         (unsigned long)s.last_stop_tick, half);
  atomic_store(&stop_tick, (unsigned long)r.tick_before); /* the restore rewound from here */
  atomic_store(&restored, 1);
  EXPECT(mjb_safety_reset(ep) == MJB_OK, "reset");
  return NULL;
}

static void on_log(void* user, int32_t level, const char* message) {
  (void)user;
  fprintf(stderr, "[mjbridge %d] %s\n", level, message);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s <model.xml> [ticks] [--fast]\n", argv[0]);
    return 2;
  }
  unsigned long ticks = argc > 2 ? strtoul(argv[2], NULL, 10) : 500;
  fast = argc > 3 && strcmp(argv[3], "--fast") == 0;
  mjb_set_log_callback(on_log, NULL, MJB_LOG_WARNING);

  char config[4096];
  snprintf(config, sizeof config,
           "{\"model\":{\"xml_path\":\"%s\"},\"frame\":[\"qpos\",\"qvel\",\"xpos\",\"sensordata\"]}",
           argv[1]);
  mjb_outcome o = mjb_endpoint_open(config, strlen(config), &ep);
  if (o != MJB_OK) {
    char err[2048];
    size_t need = 0;
    mjb_last_error(err, sizeof err, &need);
    fprintf(stderr, "open: %s %s\n", mjb_outcome_name(o), err);
    return 1;
  }
  mjb_string* cp = NULL;
  EXPECT(mjb_checkpoint_read(ep, MJB_WAIT_FOREVER, &cp) == MJB_OK, "checkpoint");

  pthread_t c, p, s;
  pthread_create(&p, NULL, publisher, NULL);
  pthread_create(&s, NULL, service, (void*)mjb_string_data(cp));
  pthread_create(&c, NULL, control, &ticks);
  pthread_join(c, NULL);
  pthread_join(s, NULL);
  pthread_join(p, NULL);

  mjb_frame_info info;
  mjb_frame_read_many(ep, NULL, 0, &info);
  printf("control: %lu ticks at %s; endpoint tick %lu, %lu frames published\n",
         atomic_load(&control_ticks), fast ? "full speed" : "500 Hz", (unsigned long)info.tick,
         (unsigned long)info.frame);
  EXPECT(atomic_load(&restored) == 1, "the service thread restored");
  EXPECT(info.tick == atomic_load(&control_ticks) - atomic_load(&stop_tick),
         "every step counted once: tick %lu", (unsigned long)info.tick);
  mjb_string_free(cp);
  mjb_endpoint_free(ep);
  mjb_set_log_callback(NULL, NULL, 0);
  if (atomic_load(&failures)) return 1;
  printf("host_loop: all checks passed\n");
  return 0;
}
