/* See shim.h: accessors, constants and setjmp-guarded calls, nothing else. */
#include "shim.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

/* What the headers declare: build.rs reads them and defines each MJB_HAS_* (and
 * MJB_EQ_ACTIVE_IN_MODEL) as 0 or 1, never from the version number (the 3.x line went on
 * being released beside 4.x). A build without them is refused rather than guessed. */
#if !defined(MJB_HAS_STATE_API) || !defined(MJB_HAS_EQ_ACTIVE_STATE) ||                \
    !defined(MJB_EQ_ACTIVE_IN_MODEL) || !defined(MJB_HAS_HISTORY_STATE) ||             \
    !defined(MJB_HAS_PLASTIC_STATE) || !defined(MJB_HAS_LOG_HANDLER) ||                \
    !defined(MJB_HAS_BUFFER_VFS) || !defined(MJB_HAS_PRINTF_ERROR) ||                  \
    !defined(MJB_HAS_PLUGIN_STATE) || !defined(MJB_HAS_PLUGIN_LOADING) ||              \
    !defined(MJB_HAS_MODEL_PATHS) || !defined(MJB_HAS_MESH_PATHADR) ||                 \
    !defined(MJB_HAS_SKIN_PATHADR) || !defined(MJB_HAS_HFIELD_PATHADR) ||              \
    !defined(MJB_HAS_TEX_PATHADR)
#error "the MJB_HAS_* facts of the MuJoCo headers are defined by build.rs"
#endif

/* ---- error routing ------------------------------------------------------------------------
 * A guarded call publishes its jump buffer in a thread-local slot. MuJoCo's error path calls the
 * bridge's handler on the thread that raised; if that thread is inside a guard, the handler
 * copies the message and jumps back to the guard (C frames only). Otherwise the error is
 * passed on to whatever handler was installed before the bridge's, so the host's handling of
 * errors outside the bridge is unchanged.
 *
 * The per-call path takes no lock and writes no process-wide memory: it writes thread-locals
 * only, and where it must look at MuJoCo's process-wide handler it reads it (a write happens
 * only when a host replaced the handler since). On MuJoCo >= 4.0 the guard installs MuJoCo's
 * per-thread log handler instead (MJB_HAS_TLS_LOG_HANDLER, found by build.rs): the host's
 * process-wide handler is then never touched at all.
 *
 * The jump must not unwind. On Windows, mingw's setjmp/longjmp unwinds through SEH, walking
 * the frames in between, which here are MSVC-built MuJoCo frames (a known crash class:
 * STATUS_BAD_STACK). GCC's __builtin_setjmp/__builtin_longjmp only restore the frame and stack
 * pointers and land on the guard, with no unwinding and no runtime library involved. On Linux,
 * glibc's longjmp never unwinds either and is the one the sanitizers understand. */

#if defined(_WIN32)
typedef void* mjb_jmp_buf[5];
#define MJB_SETJMP(buf) __builtin_setjmp(buf)
#define MJB_LONGJMP(buf) __builtin_longjmp(buf, 1)
#else
typedef jmp_buf mjb_jmp_buf;
#define MJB_SETJMP(buf) setjmp(buf)
#define MJB_LONGJMP(buf) longjmp(buf, 1)
#endif

static _Thread_local mjb_jmp_buf* tls_guard = NULL;
static _Thread_local char* tls_msg = NULL;
/* A recording guard (RECORD_BEGIN): an error is recorded and the handler returns to MuJoCo,
 * which then returns from the call it was in. For calls whose error may be raised inside a
 * frame that must not be jumped over: a plugin library registers its plugins from its
 * constructor, inside dlopen/LoadLibrary with the system loader's lock held, and MuJoCo 3.x
 * loads a directory's libraries holding its plugin table's lock. A jump out of either leaves
 * that lock held and hangs the next library load on any thread. */
static _Thread_local int tls_record_only = 0;
static _Thread_local int tls_recorded = 0;
#if MJB_HAS_PLUGIN_LOADING
static mjb_jmp_buf record_marker; /* the guard slot's value inside a recording guard */
#endif

static void copy_msg(char* dst, const char* text) {
  if (!dst) return;
  if (!text) text = "(no message)";
  snprintf(dst, MJB_SHIM_MSG_CAP, "%s", text);
}

/* Leave through the active guard; returns 0 only when this thread has none, 1 when a
 * recording guard took the error (the caller returns to MuJoCo). Never inlined:
 * __builtin_longjmp must not run in the function that called __builtin_setjmp. */
__attribute__((noinline)) static int leave_through_guard(const char* text) {
  mjb_jmp_buf* guard = tls_guard;
  if (guard && tls_record_only) {
    if (!tls_recorded) copy_msg(tls_msg, text); /* the first error is the cause */
    tls_recorded = 1;
    return 1;
  }
  if (guard) {
    copy_msg(tls_msg, text);
    tls_guard = NULL;
    MJB_LONGJMP(*guard);
  }
  return 0;
}

/* Warnings (and MuJoCo's other non-error messages) raised inside a guard go to the bridge's
 * sink, never to MuJoCo's default handler (which writes MUJOCO_LOG.TXT in the working
 * directory). Returns 1 when the message was taken. */
static _Atomic(mjb_shim_log_sink) log_sink = NULL;

void mjb_shim_set_log_sink(mjb_shim_log_sink sink) { atomic_store(&log_sink, sink); }

static int take_inside_guard(int level, const char* text) {
  if (!tls_guard) return 0;
  mjb_shim_log_sink sink = atomic_load_explicit(&log_sink, memory_order_acquire);
  if (sink) sink(level, text ? text : "");
  return 1;
}

#if MJB_HAS_LOG_HANDLER && defined(MJB_HAS_TLS_LOG_HANDLER)
/* Exported by MuJoCo >= 4.0 (not in its public headers): sets the calling thread's log
 * handler, which takes precedence over the process-wide one, and returns the previous one. */
MJAPI mjfLogHandler _mjPRIVATE_setTlsLogHandler(mjfLogHandler handler);

static void guard_log(const mjLogMessage* message) {
  if (message->level == mjLOG_ERROR && leave_through_guard(message->subject)) return;
  if (take_inside_guard(message->level, message->subject)) return;
  /* Only installed while a guard is active, so not reached; never return from an error. */
  fprintf(stderr, "mjbridge: MuJoCo message outside a guard: %s\n", message->subject);
  if (message->level == mjLOG_ERROR) abort();
}

static void ensure_routing(void) {}

#define ROUTING_SAVE mjfLogHandler guard_prev_log = _mjPRIVATE_setTlsLogHandler(guard_log);
#define ROUTING_RESTORE _mjPRIVATE_setTlsLogHandler(guard_prev_log);
#elif MJB_HAS_LOG_HANDLER
/* The handler the bridge's routing forwards to: read by any thread that raises, atomic. */
static _Atomic(mjfLogHandler) prev_log_handler = NULL;

static void route_log(const mjLogMessage* message) {
  if (message->level == mjLOG_ERROR) {
    if (leave_through_guard(message->subject)) return;
  } else if (take_inside_guard(message->level, message->subject)) {
    return;
  }
  mjfLogHandler prev = atomic_load(&prev_log_handler);
  if (prev) prev(message);
}

/* Without a per-thread handler, mju_setLogHandler is the only way to read the active handler:
 * swap ours in and remember what was there unless it was ours already. (This fallback writes
 * MuJoCo's process-wide handler at each guarded call; the pinned 4.0.0 never takes it.) */
static void ensure_routing(void) {
  mjfLogHandler prev = mju_setLogHandler(route_log);
  if (prev != route_log) atomic_store(&prev_log_handler, prev);
}
#define ROUTING_SAVE ensure_routing();
#define ROUTING_RESTORE
#else
typedef void (*mjb_error_fn)(const char*);
static _Atomic(mjb_error_fn) prev_user_error = NULL;

static void route_error(const char* text) {
  if (leave_through_guard(text)) return; /* a recording guard: MuJoCo returns from the call */
  mjb_error_fn prev = atomic_load(&prev_user_error);
  if (prev) {
    prev(text); /* must not return, by MuJoCo's contract */
  }
  /* Nobody else handles it: do what MuJoCo does by default (report and exit), minus the
   * "press Enter" wait of old releases, which would hang a host with no console. */
  fprintf(stderr, "ERROR: %s\n", text ? text : "");
  exit(EXIT_FAILURE);
}

static _Atomic(mjb_error_fn) prev_user_warning = NULL;

/* mjLOG_WARNING's value in the releases that have levels. */
#define MJB_LEVEL_WARNING 2

static void route_warning(const char* text) {
  if (take_inside_guard(MJB_LEVEL_WARNING, text)) return;
  mjb_error_fn prev = atomic_load(&prev_user_warning);
  if (prev) {
    prev(text);
    return;
  }
  /* MuJoCo's default prints and appends to MUJOCO_LOG.TXT; the bridge prints only. */
  fprintf(stderr, "WARNING: %s\n", text ? text : "");
}

/* Reads MuJoCo's two handler variables and writes them only when they are not the bridge's
 * (first use, or a host assigned its own since): the steady state is two reads of memory
 * nobody writes, so concurrent guarded calls on many threads share those lines read-only. */
static void ensure_routing(void) {
  if (mju_user_error != route_error) {
    atomic_store(&prev_user_error, mju_user_error);
    mju_user_error = route_error;
  }
  if (mju_user_warning != route_warning) {
    atomic_store(&prev_user_warning, mju_user_warning);
    mju_user_warning = route_warning;
  }
}
#define ROUTING_SAVE ensure_routing();
#define ROUTING_RESTORE
#endif

void mjb_shim_install_error_handler(void) { ensure_routing(); }

/* A host may install its own handler after the bridge did; the guard makes sure its routing is
 * in front before each guarded call, so the guard is never bypassed and the host's handler
 * keeps serving everything else. */
#define GUARD_BEGIN(msgbuf)                               \
  mjb_jmp_buf guard_env;                                  \
  mjb_jmp_buf* volatile guard_saved = tls_guard;          \
  char* volatile guard_saved_msg = tls_msg;               \
  ROUTING_SAVE                                            \
  if (MJB_SETJMP(guard_env)) {                            \
    ROUTING_RESTORE                                       \
    tls_guard = guard_saved;                              \
    tls_msg = guard_saved_msg;                            \
    return MJB_SHIM_ENGINE_ERROR;                         \
  }                                                       \
  tls_msg = (msgbuf);                                     \
  tls_guard = &guard_env;

#define GUARD_END()          \
  ROUTING_RESTORE            \
  tls_guard = guard_saved;   \
  tls_msg = guard_saved_msg;

/* A recording guard: no jump; after RECORD_END, `tls_recorded` says whether MuJoCo raised an
 * error (its message in msgbuf). Warnings go to the log sink as inside any guard. */
#define RECORD_BEGIN(msgbuf)                              \
  mjb_jmp_buf* guard_saved = tls_guard;                   \
  char* guard_saved_msg = tls_msg;                        \
  int record_saved = tls_record_only;                     \
  ROUTING_SAVE                                            \
  tls_msg = (msgbuf);                                     \
  tls_recorded = 0;                                       \
  tls_record_only = 1;                                    \
  tls_guard = &record_marker;

#define RECORD_END()                 \
  ROUTING_RESTORE                    \
  tls_guard = guard_saved;           \
  tls_msg = guard_saved_msg;         \
  tls_record_only = record_saved;

/* ---- engine facts ------------------------------------------------------------------------- */

void mjb_shim_engine_info(mjb_shim_engine* out) {
  out->header_version = mjVERSION_HEADER;
  out->runtime_version = mj_version();
  out->version_string = mj_versionString();
  out->has_state_api = MJB_HAS_STATE_API;
  out->has_eq_active_state = MJB_HAS_EQ_ACTIVE_STATE;
  out->eq_active_in_model = MJB_EQ_ACTIVE_IN_MODEL;
#if MJB_HAS_STATE_API
  out->sig_integration = (uint32_t)mjSTATE_INTEGRATION;
  out->sig_user = (uint32_t)mjSTATE_USER;
#else
  out->sig_integration = 0;
  out->sig_user = 0;
#endif
#if MJB_HAS_EQ_ACTIVE_STATE
  out->eq_active_size = (int)sizeof(((mjData*)0)->eq_active[0]);
#else
  out->eq_active_size = 0;
#endif
}

#if MJB_HAS_STATE_API
static const struct {
  const char* name;
  uint32_t mask;
} components[] = {
    {"time", mjSTATE_TIME},
    {"qpos", mjSTATE_QPOS},
    {"qvel", mjSTATE_QVEL},
    {"act", mjSTATE_ACT},
#if MJB_HAS_HISTORY_STATE
    {"history", mjSTATE_HISTORY},
#endif
    {"warmstart", mjSTATE_WARMSTART},
    {"ctrl", mjSTATE_CTRL},
    {"qfrc_applied", mjSTATE_QFRC_APPLIED},
    {"xfrc_applied", mjSTATE_XFRC_APPLIED},
#if MJB_HAS_EQ_ACTIVE_STATE
    {"eq_active", mjSTATE_EQ_ACTIVE},
#endif
    {"mocap_pos", mjSTATE_MOCAP_POS},
    {"mocap_quat", mjSTATE_MOCAP_QUAT},
    {"userdata", mjSTATE_USERDATA},
    {"plugin", mjSTATE_PLUGIN},
#if MJB_HAS_PLASTIC_STATE
    {"plastic", mjSTATE_PLASTIC},
#endif
};
#endif

int mjb_shim_state_component(int i, const char** name, uint32_t* mask) {
#if MJB_HAS_STATE_API
  int count = (int)(sizeof(components) / sizeof(components[0]));
  if (i >= 0 && i < count) {
    *name = components[i].name;
    *mask = components[i].mask;
  }
  return count;
#else
  (void)i;
  (void)name;
  (void)mask;
  return 0;
#endif
}

/* ---- guarded calls ------------------------------------------------------------------------ */

static int load_path_guarded(const char* path, const mjVFS* vfs, mjModel** out, char* msg) {
  GUARD_BEGIN(msg)
  mjModel* m = mj_loadXML(path, vfs, msg, MJB_SHIM_MSG_CAP);
  GUARD_END()
  *out = m;
  return m ? MJB_SHIM_OK : MJB_SHIM_FAILED;
}

int mjb_shim_load_xml_path(const char* path, struct mjModel_** out, char* msg) {
  msg[0] = '\0';
  return load_path_guarded(path, NULL, out, msg);
}

int mjb_shim_load_xml_string(const char* xml, size_t len, struct mjModel_** out, char* msg) {
  static const char name[] = "mjbridge-model.xml";
  int status;
  msg[0] = '\0';
  *out = NULL;
  if (len > (size_t)0x7fffffff) {
    copy_msg(msg, "XML string too large");
    return MJB_SHIM_FAILED;
  }
  /* The VFS is on the heap: up to 3.1.x it holds every file by value (about 2 MB, more than a
   * thread's stack may have; 3.1.3 to 3.1.6 already have mj_addBufferVFS), later it is one
   * pointer. */
  mjVFS* vfs = (mjVFS*)calloc(1, sizeof(mjVFS));
  if (!vfs) {
    copy_msg(msg, "out of memory");
    return MJB_SHIM_FAILED;
  }
  mj_defaultVFS(vfs);
#if MJB_HAS_BUFFER_VFS
  if (mj_addBufferVFS(vfs, name, xml, (int)len) != 0) {
    copy_msg(msg, "could not add the XML string to a virtual file system");
    status = MJB_SHIM_FAILED;
  } else {
    status = load_path_guarded(name, vfs, out, msg);
  }
#else
  int idx = -1;
  if (mj_makeEmptyFileVFS(vfs, name, (int)len) == 0) idx = mj_findFileVFS(vfs, name);
  if (idx < 0) {
    copy_msg(msg, "could not add the XML string to a virtual file system");
    status = MJB_SHIM_FAILED;
  } else {
    memcpy(vfs->filedata[idx], xml, len);
    status = load_path_guarded(name, vfs, out, msg);
  }
#endif
  mj_deleteVFS(vfs);
  free(vfs);
  return status;
}

int mjb_shim_make_data(const struct mjModel_* m, struct mjData_** out, char* msg) {
  msg[0] = '\0';
  *out = NULL;
  GUARD_BEGIN(msg)
  mjData* d = mj_makeData(m);
  GUARD_END()
  if (!d) {
    copy_msg(msg, "mj_makeData returned NULL");
    return MJB_SHIM_FAILED;
  }
  *out = d;
  return MJB_SHIM_OK;
}

int mjb_shim_step(const struct mjModel_* m, struct mjData_* d, char* msg) {
  msg[0] = '\0';
  GUARD_BEGIN(msg)
  mj_step(m, d);
  GUARD_END()
  return MJB_SHIM_OK;
}

int mjb_shim_reset(const struct mjModel_* m, struct mjData_* d, char* msg) {
  msg[0] = '\0';
  GUARD_BEGIN(msg)
  mj_resetData(m, d);
  GUARD_END()
  return MJB_SHIM_OK;
}

int mjb_shim_state_size(const struct mjModel_* m, uint32_t sig, int* out, char* msg) {
  msg[0] = '\0';
  *out = 0;
#if MJB_HAS_STATE_API
  GUARD_BEGIN(msg)
  int size = mj_stateSize(m, sig);
  GUARD_END()
  *out = size;
  return MJB_SHIM_OK;
#else
  (void)m;
  (void)sig;
  copy_msg(msg, "this MuJoCo has no state API");
  return MJB_SHIM_UNSUPPORTED;
#endif
}

int mjb_shim_get_state(const struct mjModel_* m, const struct mjData_* d, double* state,
                       uint32_t sig, char* msg) {
  msg[0] = '\0';
#if MJB_HAS_STATE_API
  GUARD_BEGIN(msg)
  mj_getState(m, d, state, sig);
  GUARD_END()
  return MJB_SHIM_OK;
#else
  (void)m;
  (void)d;
  (void)state;
  (void)sig;
  copy_msg(msg, "this MuJoCo has no state API");
  return MJB_SHIM_UNSUPPORTED;
#endif
}

int mjb_shim_set_state(const struct mjModel_* m, struct mjData_* d, const double* state,
                       uint32_t sig, char* msg) {
  msg[0] = '\0';
#if MJB_HAS_STATE_API
  GUARD_BEGIN(msg)
  mj_setState(m, d, state, sig);
  GUARD_END()
  return MJB_SHIM_OK;
#else
  (void)m;
  (void)d;
  (void)state;
  (void)sig;
  copy_msg(msg, "this MuJoCo has no state API");
  return MJB_SHIM_UNSUPPORTED;
#endif
}

int mjb_shim_raise(const char* text, char* msg) {
  msg[0] = '\0';
  GUARD_BEGIN(msg)
#if MJB_HAS_PRINTF_ERROR
  mju_error("%s", text);
#else
  mju_error(text);
#endif
  GUARD_END()
  /* mju_error returned: no handler routed it (cannot happen with the routing above). */
  return MJB_SHIM_OK;
}

/* ---- state sources ------------------------------------------------------------------------ */

void mjb_shim_data_buffer(const struct mjData_* d, const void** ptr, size_t* bytes) {
  *ptr = d->buffer;
  *bytes = d->nbuffer > 0 ? (size_t)d->nbuffer : 0;
}

int mjb_shim_state_source(struct mjData_* d, uint32_t mask, void** ptr) {
  *ptr = NULL;
#if MJB_HAS_STATE_API
  switch (mask) {
    case mjSTATE_TIME: *ptr = &d->time; return 1;
    case mjSTATE_QPOS: *ptr = d->qpos; return 1;
    case mjSTATE_QVEL: *ptr = d->qvel; return 1;
    case mjSTATE_ACT: *ptr = d->act; return 1;
#if MJB_HAS_HISTORY_STATE
    case mjSTATE_HISTORY: *ptr = d->history; return 1;
#endif
    case mjSTATE_WARMSTART: *ptr = d->qacc_warmstart; return 1;
    case mjSTATE_CTRL: *ptr = d->ctrl; return 1;
    case mjSTATE_QFRC_APPLIED: *ptr = d->qfrc_applied; return 1;
    case mjSTATE_XFRC_APPLIED: *ptr = d->xfrc_applied; return 1;
#if MJB_HAS_EQ_ACTIVE_STATE
    case mjSTATE_EQ_ACTIVE:
      *ptr = d->eq_active;
      return sizeof(d->eq_active[0]) == 1 ? 2 : 0;
#endif
    case mjSTATE_MOCAP_POS: *ptr = d->mocap_pos; return 1;
    case mjSTATE_MOCAP_QUAT: *ptr = d->mocap_quat; return 1;
    case mjSTATE_USERDATA: *ptr = d->userdata; return 1;
#if MJB_HAS_PLUGIN_STATE
    case mjSTATE_PLUGIN: *ptr = d->plugin_state; return 1;
#endif
#if MJB_HAS_PLASTIC_STATE
    case mjSTATE_PLASTIC: *ptr = d->plastic; return 1;
#endif
    default: return 0;
  }
#else
  (void)d;
  (void)mask;
  return 0;
#endif
}

int mjb_shim_step_counted(const struct mjModel_* m, struct mjData_* d, char* msg,
                          mjb_shim_warnings* resets) {
  /* MuJoCo's reset zeroes its warning counters and then counts itself again, so a counter
   * left at 1 by an earlier reset would hide the next one: zero them first. */
  mjb_shim_clear_reset_warnings(d);
  int status = mjb_shim_step(m, d, msg);
  mjb_shim_warnings_of(d, resets);
  return status;
}

/* ---- plain accessors ---------------------------------------------------------------------- */

int mjb_shim_history_buffers(const struct mjModel_* m, mjb_shim_history_buffer* out, int cap) {
#if MJB_HAS_HISTORY_STATE
  int count = 0;
  for (int i = 0; i < m->nu; i++) {
    if (m->actuator_history[2 * i] <= 0) continue;
    if (count < cap) {
      mjb_shim_history_buffer b = {0, i, m->actuator_historyadr[i], m->actuator_history[2 * i], 1};
      out[count] = b;
    }
    count++;
  }
  for (int i = 0; i < m->nsensor; i++) {
    if (m->sensor_history[2 * i] <= 0) continue;
    if (count < cap) {
      mjb_shim_history_buffer b = {1, i, m->sensor_historyadr[i], m->sensor_history[2 * i],
                                   m->sensor_dim[i]};
      out[count] = b;
    }
    count++;
  }
  return count;
#else
  (void)m;
  (void)out;
  (void)cap;
  return 0;
#endif
}

void mjb_shim_delete(struct mjModel_* m, struct mjData_* d) {
  if (d) mj_deleteData(d);
  if (m) mj_deleteModel(m);
}

void mjb_shim_dims_of(const struct mjModel_* m, mjb_shim_dims* out) {
  out->nq = m->nq;
  out->nv = m->nv;
  out->na = m->na;
  out->nu = m->nu;
  out->nbody = m->nbody;
  out->neq = m->neq;
  out->nmocap = m->nmocap;
  out->nuserdata = m->nuserdata;
#if MJB_HAS_PLUGIN_STATE
  out->npluginstate = m->npluginstate;
#else
  out->npluginstate = 0;
#endif
  out->timestep = m->opt.timestep;
  out->njnt = m->njnt;
  out->ngeom = m->ngeom;
  out->nsite = m->nsite;
  out->nsensor = m->nsensor;
  out->nsensordata = m->nsensordata;
}

void mjb_shim_fields_of(struct mjData_* d, mjb_shim_fields* out) {
  out->time = &d->time;
  out->qpos = d->qpos;
  out->qvel = d->qvel;
  out->act = d->act;
  out->ctrl = d->ctrl;
}

void mjb_shim_clear_reset_warnings(struct mjData_* d) {
  d->warning[mjWARN_BADQPOS].number = 0;
  d->warning[mjWARN_BADQVEL].number = 0;
  d->warning[mjWARN_BADQACC].number = 0;
}

void mjb_shim_warnings_of(const struct mjData_* d, mjb_shim_warnings* out) {
  out->badqpos = d->warning[mjWARN_BADQPOS].number;
  out->badqvel = d->warning[mjWARN_BADQVEL].number;
  out->badqacc = d->warning[mjWARN_BADQACC].number;
}

/* ---- host surface ------------------------------------------------------------------------- */

int mjb_shim_field(const struct mjModel_* m, struct mjData_* d, int i, const char** name,
                   double** ptr, int64_t* len) {
  /* Same order as `Field` in src/native/fields.rs. */
  struct {
    const char* name;
    double* ptr;
    int64_t len;
  } table[] = {
      {"qpos", d->qpos, m->nq},
      {"qvel", d->qvel, m->nv},
      {"act", d->act, m->na},
      {"ctrl", d->ctrl, m->nu},
      {"qacc", d->qacc, m->nv},
      {"sensordata", d->sensordata, m->nsensordata},
      {"xpos", d->xpos, 3 * (int64_t)m->nbody},
      {"xquat", d->xquat, 4 * (int64_t)m->nbody},
      {"xmat", d->xmat, 9 * (int64_t)m->nbody},
      {"site_xpos", d->site_xpos, 3 * (int64_t)m->nsite},
      {"site_xmat", d->site_xmat, 9 * (int64_t)m->nsite},
      {"geom_xpos", d->geom_xpos, 3 * (int64_t)m->ngeom},
      {"geom_xmat", d->geom_xmat, 9 * (int64_t)m->ngeom},
      {"mocap_pos", d->mocap_pos, 3 * (int64_t)m->nmocap},
      {"mocap_quat", d->mocap_quat, 4 * (int64_t)m->nmocap},
      {"qfrc_applied", d->qfrc_applied, m->nv},
      {"xfrc_applied", d->xfrc_applied, 6 * (int64_t)m->nbody},
      {"eq_active", NULL, m->neq},
      {"actuator_force", d->actuator_force, m->nu},
      {"userdata", d->userdata, m->nuserdata},
  };
  int count = (int)(sizeof(table) / sizeof(table[0]));
  if (i >= 0 && i < count) {
    *name = table[i].name;
    *ptr = table[i].ptr;
    *len = table[i].len;
  }
  return count;
}

unsigned char* mjb_shim_eq_active(struct mjData_* d) {
#if MJB_HAS_EQ_ACTIVE_STATE
  return (unsigned char*)d->eq_active;
#else
  (void)d;
  return NULL;
#endif
}

int mjb_shim_kinematics(const struct mjModel_* m, const struct mjData_* src,
                        struct mjData_* scratch, char* msg) {
  msg[0] = '\0';
  scratch->time = src->time;
  if (m->nq) memcpy(scratch->qpos, src->qpos, sizeof(mjtNum) * m->nq);
  if (m->nmocap) {
    memcpy(scratch->mocap_pos, src->mocap_pos, sizeof(mjtNum) * 3 * m->nmocap);
    memcpy(scratch->mocap_quat, src->mocap_quat, sizeof(mjtNum) * 4 * m->nmocap);
  }
  GUARD_BEGIN(msg)
  mj_kinematics(m, scratch);
  GUARD_END()
  return MJB_SHIM_OK;
}

const char* mjb_shim_name(const struct mjModel_* m, int kind, int id) {
  int type;
  switch (kind) {
    case MJB_SHIM_OBJ_BODY: type = mjOBJ_BODY; break;
    case MJB_SHIM_OBJ_JOINT: type = mjOBJ_JOINT; break;
    case MJB_SHIM_OBJ_GEOM: type = mjOBJ_GEOM; break;
    case MJB_SHIM_OBJ_SITE: type = mjOBJ_SITE; break;
    case MJB_SHIM_OBJ_ACTUATOR: type = mjOBJ_ACTUATOR; break;
    case MJB_SHIM_OBJ_SENSOR: type = mjOBJ_SENSOR; break;
    case MJB_SHIM_OBJ_EQUALITY: type = mjOBJ_EQUALITY; break;
    default: return NULL;
  }
  return mj_id2name(m, type, id);
}

int mjb_shim_body_mocapid(const struct mjModel_* m, int body) { return m->body_mocapid[body]; }

void mjb_shim_sensor_slice(const struct mjModel_* m, int i, int64_t* adr, int64_t* dim) {
  *adr = m->sensor_adr[i];
  *dim = m->sensor_dim[i];
}

void mjb_shim_joint_slice(const struct mjModel_* m, int j, int64_t* qposadr, int64_t* nq,
                          int64_t* dofadr, int64_t* nv) {
  *qposadr = m->jnt_qposadr[j];
  *dofadr = m->jnt_dofadr[j];
  switch (m->jnt_type[j]) {
    case mjJNT_FREE: *nq = 7; *nv = 6; break;
    case mjJNT_BALL: *nq = 4; *nv = 3; break;
    default: *nq = 1; *nv = 1; break; /* slide, hinge */
  }
}

#if MJB_HAS_PLUGIN_LOADING
static _Thread_local int tls_plugin_libraries = 0;
static _Thread_local int tls_plugin_count = 0;

/* MuJoCo 2.3.x ignores a plugin library it cannot load (no error, no warning), where later
 * releases raise an error. So after a load that raised nothing, the shim checks that each
 * library is in the process and refuses, naming the first that is not. On the releases that
 * raise, every library that got this far is loaded and the check changes nothing. */
#if defined(_WIN32)
/* kernel32, declared here rather than through <windows.h> (whose macros MuJoCo's headers do
 * not expect). MuJoCo loads a plugin DLL by its path; a module of that file name is looked
 * for. */
__declspec(dllimport) void* __stdcall GetModuleHandleA(const char* name);
#define MJB_PLUGIN_SUFFIX ".dll"
static int library_loaded(const char* path) {
  const char* base = path;
  for (const char* c = path; *c; c++) {
    if (*c == '/' || *c == '\\') base = c + 1;
  }
  return GetModuleHandleA(base) != NULL;
}
#else
#include <dlfcn.h>
#if defined(__APPLE__)
#define MJB_PLUGIN_SUFFIX ".dylib"
#else
#define MJB_PLUGIN_SUFFIX ".so"
#endif
/* RTLD_NOLOAD: a handle only when the file is already loaded (the loader compares the file
 * itself, not the spelling of its path); nothing is loaded and no constructor runs. */
static int library_loaded(const char* path) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (handle) dlclose(handle);
  return handle != NULL;
}
#endif

static int refuse_unloaded(const char* path, char* msg) {
  snprintf(msg, MJB_SHIM_MSG_CAP,
           "MuJoCo did not load %.900s and raised no error (not a loadable library?)", path);
  return MJB_SHIM_FAILED;
}

/* The first library file of `dir` (by MuJoCo's suffix) that is not in the process, or 0. */
static int first_unloaded_in(const char* dir, char* path, size_t cap) {
  DIR* d = opendir(dir);
  if (!d) return 0;
  const size_t k = strlen(MJB_PLUGIN_SUFFIX);
  int found = 0;
  struct dirent* e;
  while (!found && (e = readdir(d)) != NULL) {
    size_t n = strlen(e->d_name);
    if (n <= k || strcmp(e->d_name + n - k, MJB_PLUGIN_SUFFIX) != 0) continue;
    snprintf(path, cap, "%s/%s", dir, e->d_name);
    found = !library_loaded(path);
  }
  closedir(d);
  return found;
}

static void count_plugins(const char* filename, int first, int count) {
  (void)filename;
  (void)first;
  if (count > 0) {
    tls_plugin_libraries += 1;
    tls_plugin_count += count;
  }
}
#endif

int mjb_shim_plugin_load(const char* path, int* plugins, char* msg) {
  msg[0] = '\0';
  *plugins = 0;
#if MJB_HAS_PLUGIN_LOADING
  int before = mjp_pluginCount();
  RECORD_BEGIN(msg)
  mj_loadPluginLibrary(path);
  RECORD_END()
  *plugins = mjp_pluginCount() - before;
  if (tls_recorded) {
    tls_recorded = 0;
    return MJB_SHIM_ENGINE_ERROR;
  }
  if (!library_loaded(path)) return refuse_unloaded(path, msg);
  return MJB_SHIM_OK;
#else
  (void)path;
  copy_msg(msg, "this MuJoCo has no plugin API (mj_loadPluginLibrary needs MuJoCo >= 2.3.1)");
  return MJB_SHIM_UNSUPPORTED;
#endif
}

int mjb_shim_plugin_load_dir(const char* dir, int* libraries, int* plugins, char* msg) {
  msg[0] = '\0';
  *libraries = 0;
  *plugins = 0;
#if MJB_HAS_PLUGIN_LOADING
  tls_plugin_libraries = 0;
  tls_plugin_count = 0;
  RECORD_BEGIN(msg)
  mj_loadAllPluginLibraries(dir, count_plugins);
  RECORD_END()
  *libraries = tls_plugin_libraries;
  *plugins = tls_plugin_count;
  if (tls_recorded) {
    tls_recorded = 0;
    return MJB_SHIM_ENGINE_ERROR;
  }
  char unloaded[4096];
  if (first_unloaded_in(dir, unloaded, sizeof unloaded)) return refuse_unloaded(unloaded, msg);
  return MJB_SHIM_OK;
#else
  (void)dir;
  copy_msg(msg, "this MuJoCo has no plugin API (mj_loadAllPluginLibraries needs MuJoCo >= 2.3.1)");
  return MJB_SHIM_UNSUPPORTED;
#endif
}

/* ---- model identity ------------------------------------------------------------------------ */

int64_t mjb_shim_model_size(const struct mjModel_* m) { return (int64_t)mj_sizeModel(m); }

int mjb_shim_save_model(const struct mjModel_* m, void* buf, int64_t cap, int64_t* written,
                        char* msg) {
  msg[0] = '\0';
  *written = 0;
  GUARD_BEGIN(msg)
  mjModel* c = mj_copyModel(NULL, m);
#if MJB_HAS_MODEL_PATHS
  /* The paths array goes (its length is a size of the serialization), and with it every
   * address into it, and the buffer's byte count, which counts the paths (padded to 64
   * bytes) and is written as a size too; every other array is written by its own size. */
  c->npaths = 0;
  c->nbuffer = 0;
#if MJB_HAS_MESH_PATHADR
  for (int i = 0; i < c->nmesh; i++) c->mesh_pathadr[i] = -1;
#endif
#if MJB_HAS_SKIN_PATHADR
  for (int i = 0; i < c->nskin; i++) c->skin_pathadr[i] = -1;
#endif
#if MJB_HAS_HFIELD_PATHADR
  for (int i = 0; i < c->nhfield; i++) c->hfield_pathadr[i] = -1;
#endif
#if MJB_HAS_TEX_PATHADR
  for (int i = 0; i < c->ntex; i++) c->tex_pathadr[i] = -1;
#endif
#endif
  int64_t size = (int64_t)mj_sizeModel(c);
  if (size <= cap) {
    /* The size parameter is int before MuJoCo 4.0 and mjtSize from it; it fits either. */
    mj_saveModel(c, NULL, buf, size);
    *written = size;
  }
  mj_deleteModel(c);
  GUARD_END()
  if (*written == 0) {
    copy_msg(msg, "the model's serialization is larger than mj_sizeModel said");
    return MJB_SHIM_FAILED;
  }
  return MJB_SHIM_OK;
}
