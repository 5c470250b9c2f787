/* The C shim between mjbridge (Rust) and MuJoCo.
 *
 * It owns nothing and decides nothing: field accessors, version constants, the
 * mjSTATE_* masks of the headers it is compiled against, and calls wrapped in a
 * setjmp guard so that mju_error returns here as a status instead of ending the
 * process. The jump only ever travels between frames of this file and MuJoCo's, never
 * unwinds (see the routing section of shim.c), and no Rust frame sits between a
 * guard's setjmp and the MuJoCo call that may raise. Plugin loading jumps nowhere: its
 * errors can be raised inside the system loader, whose lock a jump would leave held, so
 * they are recorded and MuJoCo returns from the call. Portable C11: no threads library.
 *
 * Policy (what an error means, rollback, fencing) lives in Rust.
 */
#ifndef MJBRIDGE_SHIM_H
#define MJBRIDGE_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mjModel_;
struct mjData_;

/* Status of a guarded call. */
enum {
  MJB_SHIM_OK = 0,
  MJB_SHIM_ENGINE_ERROR = 1, /* mju_error was raised inside the guard */
  MJB_SHIM_FAILED = 2,       /* the call reported failure without raising */
  MJB_SHIM_UNSUPPORTED = 3   /* the engine these headers describe has no such API */
};

/* Size of the message buffer every guarded call fills on failure. */
#define MJB_SHIM_MSG_CAP 1024

/* What the headers and the linked library say about the engine. */
typedef struct mjb_shim_engine {
  int header_version;        /* mjVERSION_HEADER as compiled */
  int runtime_version;       /* mj_version() of the linked library */
  const char* version_string; /* mj_versionString() of the linked library */
  int has_state_api;         /* mj_stateSize/mj_getState/mj_setState exist */
  int has_eq_active_state;   /* mjSTATE_EQ_ACTIVE exists */
  uint32_t sig_integration;  /* mjSTATE_INTEGRATION, 0 without the state API */
  int eq_active_size;        /* sizeof(mjData.eq_active[0]) */
  int eq_active_in_model;    /* equality activation is mjModel.eq_active (before 3.0) */
  uint32_t sig_user;         /* mjSTATE_USER (the host's inputs), 0 without the state API */
} mjb_shim_engine;

/* Model dimensions the bridge keeps in Rust. */
typedef struct mjb_shim_dims {
  int64_t nq, nv, na, nu, nbody, neq, nmocap, nuserdata, npluginstate;
  double timestep;
  int64_t njnt, ngeom, nsite, nsensor, nsensordata;
} mjb_shim_dims;

/* Public fields of mjData, borrowed from the data they came from. */
typedef struct mjb_shim_fields {
  double* time;
  double* qpos;
  double* qvel;
  double* act;
  double* ctrl;
} mjb_shim_fields;

/* Counters of the warnings MuJoCo raises when it resets a diverged simulation. */
typedef struct mjb_shim_warnings {
  int64_t badqpos, badqvel, badqacc;
} mjb_shim_warnings;

void mjb_shim_engine_info(mjb_shim_engine* out);

/* Named single-bit state components of these headers, in header order.
 * Returns the number of components; fills name/mask for index i < count. */
int mjb_shim_state_component(int i, const char** name, uint32_t* mask);

/* Put the bridge's error routing in front of the process-wide handler (idempotent, any thread,
 * no lock; a no-op where the guards use MuJoCo's per-thread log handler). */
void mjb_shim_install_error_handler(void);

/* Guarded calls. msg (MJB_SHIM_MSG_CAP bytes) receives MuJoCo's message on failure.
 * The two loads are not reentrant in MuJoCo (its parser keeps process-wide state): the caller
 * serializes them (a lock in src/native/mod.rs; the shim has no threads library). */
int mjb_shim_load_xml_path(const char* path, struct mjModel_** out, char* msg);
int mjb_shim_load_xml_string(const char* xml, size_t len, struct mjModel_** out, char* msg);
int mjb_shim_make_data(const struct mjModel_* m, struct mjData_** out, char* msg);
int mjb_shim_step(const struct mjModel_* m, struct mjData_* d, char* msg);
int mjb_shim_reset(const struct mjModel_* m, struct mjData_* d, char* msg);
int mjb_shim_state_size(const struct mjModel_* m, uint32_t sig, int* out, char* msg);
int mjb_shim_get_state(const struct mjModel_* m, const struct mjData_* d, double* state,
                       uint32_t sig, char* msg);
int mjb_shim_set_state(const struct mjModel_* m, struct mjData_* d, const double* state,
                       uint32_t sig, char* msg);
/* mjb_shim_step with the reset-warning counters zeroed before it and read after it (into
 * `resets`, also after an engine error): a step of the bridge's step path in one call. */
int mjb_shim_step_counted(const struct mjModel_* m, struct mjData_* d, char* msg,
                          mjb_shim_warnings* resets);
/* Where mj_getState reads the single-bit state component `mask` of `d` from: *ptr is the
 * array in d, and the result its element type (1: mjtNum, 2: one byte per value, which the
 * state holds as 0.0/1.0), or 0 for a component these headers do not name (then *ptr is NULL).
 * The caller proves the mapping against mj_getState before it relies on it. */
int mjb_shim_state_source(struct mjData_* d, uint32_t mask, void** ptr);
/* mjData's main buffer, which holds all of its arrays (`*bytes` long): the one allocation a
 * copy of several neighbouring arrays at once reads across. */
void mjb_shim_data_buffer(const struct mjData_* d, const void** ptr, size_t* bytes);
/* Raise mju_error(text) inside a guard: proves the guard, drives fault injection. */
int mjb_shim_raise(const char* text, char* msg);

/* One HISTORY ring buffer of the model (MuJoCo >= 3.5): a delayed actuator or sensor.
 * The buffer is [user, cursor, times(nsample), values(nsample*dim)] at `adr` in
 * mjData.history; its cursor (an int stored as mjtNum) must lie in [0, nsample-1]. */
typedef struct mjb_shim_history_buffer {
  int32_t kind; /* 0 actuator, 1 sensor */
  int32_t id;   /* actuator or sensor id */
  int64_t adr;  /* offset in mjData.history (so in the HISTORY state component) */
  int64_t nsample;
  int64_t dim;
} mjb_shim_history_buffer;

/* Fill up to cap buffers in (actuators, then sensors) order; returns how many the model has
 * (0 on engines without history). */
int mjb_shim_history_buffers(const struct mjModel_* m, mjb_shim_history_buffer* out, int cap);

void mjb_shim_delete(struct mjModel_* m, struct mjData_* d);
void mjb_shim_dims_of(const struct mjModel_* m, mjb_shim_dims* out);
void mjb_shim_fields_of(struct mjData_* d, mjb_shim_fields* out);
void mjb_shim_warnings_of(const struct mjData_* d, mjb_shim_warnings* out);
/* Zero the three counters above. An auto-reset zeroes every warning counter and then counts
 * itself again, so after one reset the counter stays at 1 whatever follows: only counters
 * cleared before each step show every reset. */
void mjb_shim_clear_reset_warnings(struct mjData_* d);

/* ---- host surface: frames, inputs, names, plugins, log ------------------------------------ */

/* mjData arrays by index, in the order of `Field` in src/native/fields.rs (the Rust side checks
 * the names). Returns the number of fields; for i < count fills the name, a pointer into d (NULL
 * for eq_active, which is not an array of doubles, and for fields this engine lacks) and the
 * length in doubles for model m. */
int mjb_shim_field(const struct mjModel_* m, struct mjData_* d, int i, const char** name,
                   double** ptr, int64_t* len);
/* mjData.eq_active (one byte per equality), NULL before MuJoCo 3.0 where it is not in mjData. */
unsigned char* mjb_shim_eq_active(struct mjData_* d);

/* Kinematics for the state of `src` computed on `scratch` (a data of the same model): copies
 * time, qpos, mocap_pos and mocap_quat, then a guarded mj_kinematics(m, scratch). Nothing is
 * written to src; no callback runs. */
int mjb_shim_kinematics(const struct mjModel_* m, const struct mjData_* src,
                        struct mjData_* scratch, char* msg);

/* Object kinds of the bridge's name API (mjb_object), mapped here to this engine's mjOBJ_*. */
enum {
  MJB_SHIM_OBJ_BODY = 0,
  MJB_SHIM_OBJ_JOINT = 1,
  MJB_SHIM_OBJ_GEOM = 2,
  MJB_SHIM_OBJ_SITE = 3,
  MJB_SHIM_OBJ_ACTUATOR = 4,
  MJB_SHIM_OBJ_SENSOR = 5,
  MJB_SHIM_OBJ_EQUALITY = 6
};
/* mj_id2name for a bridge object kind: NULL for an unnamed object or an unknown kind. */
const char* mjb_shim_name(const struct mjModel_* m, int kind, int id);
/* m->body_mocapid[body]: the mocap index of a body, -1 when it is not a mocap body. */
int mjb_shim_body_mocapid(const struct mjModel_* m, int body);
/* Where sensor i's values sit in sensordata. */
void mjb_shim_sensor_slice(const struct mjModel_* m, int i, int64_t* adr, int64_t* dim);
/* Where joint j's values sit in qpos and qvel. */
void mjb_shim_joint_slice(const struct mjModel_* m, int j, int64_t* qposadr, int64_t* nq,
                          int64_t* dofadr, int64_t* nv);

/* Guarded mj_loadPluginLibrary / mj_loadAllPluginLibraries. `plugins` receives how many
 * plugins became registered, `libraries` how many libraries registered at least one.
 * MJB_SHIM_UNSUPPORTED on engines without the plugin API. */
int mjb_shim_plugin_load(const char* path, int* plugins, char* msg);
int mjb_shim_plugin_load_dir(const char* dir, int* libraries, int* plugins, char* msg);

/* Where MuJoCo warnings raised inside a guarded call go: `sink(level, text)` on the raising
 * thread, inside the guard (it must neither call MuJoCo nor unwind). Warnings outside guarded
 * calls keep going to the handler the host installed, or to stderr when there is none: the
 * bridge never lets MuJoCo write MUJOCO_LOG.TXT. Levels are mjLOG_* (2 warning, 3 error). */
typedef void (*mjb_shim_log_sink)(int level, const char* text);
void mjb_shim_set_log_sink(mjb_shim_log_sink sink);

/* ---- model identity ------------------------------------------------------------------------ */

/* The size of the compiled model as MuJoCo serializes it (mj_sizeModel): an upper bound of
 * what mjb_shim_save_model writes. */
int64_t mjb_shim_model_size(const struct mjModel_* m);
/* Guarded: MuJoCo's own binary serialization (mj_saveModel) of a copy of the compiled model
 * without its asset paths (MuJoCo >= 3 records where each mesh, skin, height field and texture
 * file was found, as the host addressed it: the same model opened through another path must
 * not look like another model). Writes at most `cap` bytes into `buf`, the count to
 * `*written`; this is what the bridge hashes into the model's fingerprint. */
int mjb_shim_save_model(const struct mjModel_* m, void* buf, int64_t cap, int64_t* written,
                        char* msg);

#ifdef __cplusplus
}
#endif

#endif /* MJBRIDGE_SHIM_H */
