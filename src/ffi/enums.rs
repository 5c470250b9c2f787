//! The ABI's enums as C sees them: each one written out for cbindgen (the header's enum, its
//! values and their documentation), then paired with the crate's own type by `abi_enum!`
//! (`From` both ways, one value per pair, the C values dense from 0). Code below `ffi` uses
//! the domain types; an export converts at the boundary. The rule for their values (dense,
//! never renumbered, removed or reused, appended) is stated once, on `abi_enum!` in lib.rs.

use crate::frame::Cause;
use crate::host::Level;
use crate::native::fields::{Field, ObjectKind};
use crate::outcome::{Outcome, Reason};

/// What happened to the endpoint's native state. Values are part of the ABI: never renumber.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum mjb_outcome {
    /// The call took full effect.
    MJB_OK = 0,
    /// Refused before any effect: native state, tick, stop history and fence untouched.
    MJB_REJECTED = 1,
    /// A native effect failed (or a stop halted a rewind) and the prior state was restored
    /// and proven by readback.
    MJB_ROLLED_BACK = 2,
    /// The effect could not be proven either way; the endpoint is now fenced.
    MJB_UNKNOWN = 3,
    /// The endpoint was fenced before this call; mutation or acknowledgement refused.
    MJB_FENCED = 4,
    /// NULL where not allowed, bad UTF-8, or a closed or foreign handle.
    MJB_INVALID_ARGUMENT = 5,
    /// A Rust panic was caught at the boundary; the endpoint is now fenced.
    MJB_PANIC = 6,
}

abi_enum!(mjb_outcome <=> Outcome {
    MJB_OK <=> Ok,
    MJB_REJECTED <=> Rejected,
    MJB_ROLLED_BACK <=> RolledBack,
    MJB_UNKNOWN <=> Unknown,
    MJB_FENCED <=> Fenced,
    MJB_INVALID_ARGUMENT <=> InvalidArgument,
    MJB_PANIC <=> Panic,
});

/// The cause inside an outcome. Values are part of the ABI: never renumber; a retired value
/// stays reserved here as a comment.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum mjb_reason {
    /// Only with `MJB_OK` when there is nothing to add.
    MJB_REASON_NONE = 0,
    /// The bytes are not one JSON object (syntax, depth, bad escape).
    MJB_REASON_MALFORMED_JSON = 1,
    /// The document is over 1 MiB, or a result would be.
    MJB_REASON_TOO_LARGE = 2,
    /// More than 32,768 native values.
    MJB_REASON_TOO_MANY_VALUES = 3,
    /// An object member the document's schema does not have (also a config naming both
    /// `xml_path` and `xml`, or a frame field that does not exist); the pointer names it.
    MJB_REASON_UNKNOWN_FIELD = 4,
    /// A required member is absent; the pointer names where it belongs.
    MJB_REASON_MISSING_FIELD = 5,
    /// A member appears twice in one object (or a frame field is listed twice); the pointer
    /// names the second.
    MJB_REASON_DUPLICATE_FIELD = 6,
    /// A value of the wrong JSON type (a string where a number goes, an object where the
    /// schema has none); the pointer names it.
    MJB_REASON_WRONG_TYPE = 7,
    /// A fraction, an exponent or a boolean where an integer goes.
    MJB_REASON_NOT_AN_INTEGER = 8,
    /// A number that does not fit a finite double (`1e400`).
    MJB_REASON_NOT_FINITE = 9,
    /// An integer outside its field's range.
    MJB_REASON_OUT_OF_RANGE = 10,
    /// The document's profile is not the endpoint's, or the engine cannot serve the profile.
    MJB_REASON_PROFILE = 11,
    /// Engine string or number differs from the running engine, or the linked library is
    /// not the release the bridge was compiled against.
    MJB_REASON_ENGINE = 12,
    /// A descriptor dimension or the timestep differs from the live model.
    MJB_REASON_DESCRIPTOR = 13,
    /// The model configuration counter differs (the model was replaced).
    MJB_REASON_CONFIGURATION = 14,
    /// A checkpoint's `signature` is not the running engine's `mjSTATE_INTEGRATION` value: it
    /// was taken by an engine whose integration state has other components.
    MJB_REASON_SIGNATURE = 15,
    /// `size` differs from the native state size, or `values` does not hold `size` numbers.
    MJB_REASON_SIZE = 16,
    /// An equality activation that is not exactly 0 or 1.
    MJB_REASON_EQ_ACTIVE_DOMAIN = 17,
    /// `time`/`qpos`/`qvel`/`ctrl` differ from their segment of `values`.
    MJB_REASON_PUBLIC_FIELD_MISMATCH = 18,
    /// A checkpoint's `seed` is not the endpoint's configured `seed` (config `"seed"`).
    MJB_REASON_SEED = 19,
    /// A world write names a served field that is not an input (`native_checkpoint`, `tick`,
    /// `time`, `qpos`, `qvel`, ...), or a typed input names a field that is not an input.
    MJB_REASON_READ_ONLY_FIELD = 20,
    /// The deadline passed before the native lock was free.
    MJB_REASON_BUSY = 21,
    /// A stop is latched. With `MJB_OK`: a step call halted at a step boundary (the report's
    /// `tick_after` shows the steps done). With `MJB_REJECTED`: a step call admitted after
    /// the latch took no step. With `MJB_ROLLED_BACK`: a stop latched during a rewind halted
    /// its replay, and the state before the rewind was put back and proven.
    /// `mjb_safety_reset` clears the latch.
    MJB_REASON_STOP_LATCHED = 22,
    /// Native work is still in flight on the endpoint, so `mjb_confirm_paused` or
    /// `mjb_safety_reset` cannot acknowledge the pause yet (retry when it has finished). Also
    /// `mjb_set_log_callback` called from inside the log callback.
    MJB_REASON_UNRESOLVED_NATIVE_WORK = 23,
    /// `mjb_confirm_paused` or `mjb_safety_reset` on an endpoint with no stop latched.
    MJB_REASON_NOT_STOPPED = 24,
    /// A restore's native state write failed (the guarded setter raised a MuJoCo error or
    /// reported a failure); with `MJB_ROLLED_BACK` the prior state was put back and proven.
    MJB_REASON_SETTER_FAILED = 25,
    /// A restore's state setter returned a status that is neither completion nor an engine
    /// error, so what it did is unknown: `MJB_UNKNOWN`, the endpoint is fenced.
    MJB_REASON_SETTER_UNEXPECTED_COMPLETION = 26,
    /// A restored state did not read back bit for bit equal to the document; with
    /// `MJB_ROLLED_BACK` the prior state was put back and proven.
    MJB_REASON_VERIFICATION_MISMATCH = 27,
    /// After a failed step or restore, putting the prior state back failed or did not read
    /// back bit for bit: `MJB_UNKNOWN`, the endpoint is fenced.
    MJB_REASON_ROLLBACK_UNPROVEN = 28,
    /// MuJoCo raised an error (`mju_error`) inside a guarded call.
    MJB_REASON_ENGINE_ERROR = 29,
    /// The handle was closed.
    MJB_REASON_CLOSED = 30,
    /// A required pointer was NULL.
    MJB_REASON_NULL_ARGUMENT = 31,
    /// Input bytes are not UTF-8.
    MJB_REASON_INVALID_UTF8 = 32,
    /// The handle was never issued by this library.
    MJB_REASON_FOREIGN_HANDLE = 33,
    /// MuJoCo could not load or compile the model; its message is in `mjb_last_error`.
    MJB_REASON_MODEL_LOAD = 34,
    /// An array's length does not match the model's dimension.
    MJB_REASON_DIMENSION = 35,
    /// The engine reset the simulation after a NaN/Inf (its warning counters moved).
    MJB_REASON_ENGINE_RESET = 36,
    /// A Rust panic was caught.
    MJB_REASON_PANIC = 37,
    /// An integer-coded value of the native state outside its native domain (a HISTORY
    /// ring-buffer cursor that is not an integer in its buffer's range).
    MJB_REASON_STATE_DOMAIN = 38,
    /// The tick would pass its maximum (u64); refused before any engine step.
    MJB_REASON_TICK_OVERFLOW = 39,
    /// A world document's `state_hash` is not the hash of its `world` (edited or corrupted).
    MJB_REASON_STATE_HASH = 40,
    /// No object of that kind has that name.
    MJB_REASON_UNKNOWN_NAME = 41,
    /// The running engine lacks what the call needs (plugins before MuJoCo 2.3.1, equality
    /// activation in mjData before 3.0).
    MJB_REASON_UNSUPPORTED = 42,
    /// MuJoCo could not load a plugin library; its message is in `mjb_last_error`.
    MJB_REASON_PLUGIN_LOAD = 43,
    /// The field is not in the endpoint's frame selection (config `"frame"`).
    MJB_REASON_NOT_IN_FRAME = 44,
    /// The call's precondition (`mjb_expect`: the tick, the model configuration or the last
    /// frame's publication number the caller saw) no longer holds: another call moved the
    /// endpoint on first. Nothing was done.
    MJB_REASON_PRECONDITION = 45,
    /// A world document's `model_fingerprint` is not the endpoint's model: another model,
    /// even with the same dimensions (or the same file compiled by another engine build).
    MJB_REASON_MODEL_FINGERPRINT = 46,
    /// The restore point was captured on (or read for) another endpoint.
    MJB_REASON_OTHER_ENDPOINT = 47,
    /// A rewind's replay did not reach the state recorded at its tick (a state hash that
    /// differs): rolled back to the state before the rewind and proven, never reported done.
    MJB_REASON_REPLAY_DIVERGED = 48,
}

abi_enum!(mjb_reason <=> Reason {
    MJB_REASON_NONE <=> None,
    MJB_REASON_MALFORMED_JSON <=> MalformedJson,
    MJB_REASON_TOO_LARGE <=> TooLarge,
    MJB_REASON_TOO_MANY_VALUES <=> TooManyValues,
    MJB_REASON_UNKNOWN_FIELD <=> UnknownField,
    MJB_REASON_MISSING_FIELD <=> MissingField,
    MJB_REASON_DUPLICATE_FIELD <=> DuplicateField,
    MJB_REASON_WRONG_TYPE <=> WrongType,
    MJB_REASON_NOT_AN_INTEGER <=> NotAnInteger,
    MJB_REASON_NOT_FINITE <=> NotFinite,
    MJB_REASON_OUT_OF_RANGE <=> OutOfRange,
    MJB_REASON_PROFILE <=> Profile,
    MJB_REASON_ENGINE <=> Engine,
    MJB_REASON_DESCRIPTOR <=> Descriptor,
    MJB_REASON_CONFIGURATION <=> Configuration,
    MJB_REASON_SIGNATURE <=> Signature,
    MJB_REASON_SIZE <=> Size,
    MJB_REASON_EQ_ACTIVE_DOMAIN <=> EqActiveDomain,
    MJB_REASON_PUBLIC_FIELD_MISMATCH <=> PublicFieldMismatch,
    MJB_REASON_SEED <=> Seed,
    MJB_REASON_READ_ONLY_FIELD <=> ReadOnlyField,
    MJB_REASON_BUSY <=> Busy,
    MJB_REASON_STOP_LATCHED <=> StopLatched,
    MJB_REASON_UNRESOLVED_NATIVE_WORK <=> UnresolvedNativeWork,
    MJB_REASON_NOT_STOPPED <=> NotStopped,
    MJB_REASON_SETTER_FAILED <=> SetterFailed,
    MJB_REASON_SETTER_UNEXPECTED_COMPLETION <=> SetterUnexpectedCompletion,
    MJB_REASON_VERIFICATION_MISMATCH <=> VerificationMismatch,
    MJB_REASON_ROLLBACK_UNPROVEN <=> RollbackUnproven,
    MJB_REASON_ENGINE_ERROR <=> EngineError,
    MJB_REASON_CLOSED <=> Closed,
    MJB_REASON_NULL_ARGUMENT <=> NullArgument,
    MJB_REASON_INVALID_UTF8 <=> InvalidUtf8,
    MJB_REASON_FOREIGN_HANDLE <=> ForeignHandle,
    MJB_REASON_MODEL_LOAD <=> ModelLoad,
    MJB_REASON_DIMENSION <=> Dimension,
    MJB_REASON_ENGINE_RESET <=> EngineReset,
    MJB_REASON_PANIC <=> Panic,
    MJB_REASON_STATE_DOMAIN <=> StateDomain,
    MJB_REASON_TICK_OVERFLOW <=> TickOverflow,
    MJB_REASON_STATE_HASH <=> StateHash,
    MJB_REASON_UNKNOWN_NAME <=> UnknownName,
    MJB_REASON_UNSUPPORTED <=> Unsupported,
    MJB_REASON_PLUGIN_LOAD <=> PluginLoad,
    MJB_REASON_NOT_IN_FRAME <=> NotInFrame,
    MJB_REASON_PRECONDITION <=> Precondition,
    MJB_REASON_MODEL_FINGERPRINT <=> ModelFingerprint,
    MJB_REASON_OTHER_ENDPOINT <=> OtherEndpoint,
    MJB_REASON_REPLAY_DIVERGED <=> ReplayDiverged,
});

/// An mjData array a frame can carry (and, for inputs, a typed write can set). Values are part
/// of the ABI: never renumber; append only.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(non_camel_case_types)]
pub enum mjb_field {
    /// `qpos` (nq): joint positions, the generalized coordinates.
    MJB_FIELD_QPOS = 0,
    /// `qvel` (nv): joint velocities, one per degree of freedom.
    MJB_FIELD_QVEL = 1,
    /// `act` (na): actuator activations (the state of stateful actuators).
    MJB_FIELD_ACT = 2,
    /// `ctrl` (nu): actuator controls. Input: per actuator, width 1.
    MJB_FIELD_CTRL = 3,
    /// `qacc` (nv): accelerations. Computed by a step; stale after a restore until the next step.
    MJB_FIELD_QACC = 4,
    /// `sensordata` (nsensordata): every sensor's values. Computed by a step; stale after a
    /// restore.
    MJB_FIELD_SENSORDATA = 5,
    /// `xpos` (3 × nbody): body positions.
    MJB_FIELD_XPOS = 6,
    /// `xquat` (4 × nbody): body orientations.
    MJB_FIELD_XQUAT = 7,
    /// `xmat` (9 × nbody): body orientations as row-major matrices.
    MJB_FIELD_XMAT = 8,
    /// `site_xpos` (3 × nsite): site positions.
    MJB_FIELD_SITE_XPOS = 9,
    /// `site_xmat` (9 × nsite): site orientations as row-major matrices.
    MJB_FIELD_SITE_XMAT = 10,
    /// `geom_xpos` (3 × ngeom): geom positions.
    MJB_FIELD_GEOM_XPOS = 11,
    /// `geom_xmat` (9 × ngeom): geom orientations as row-major matrices.
    MJB_FIELD_GEOM_XMAT = 12,
    /// `mocap_pos` (3 × nmocap): mocap body positions. Input: per mocap body, width 3.
    MJB_FIELD_MOCAP_POS = 13,
    /// `mocap_quat` (4 × nmocap): mocap body orientations. Input: per mocap body, width 4.
    MJB_FIELD_MOCAP_QUAT = 14,
    /// `qfrc_applied` (nv): generalized forces applied by the host. Input: per degree of
    /// freedom, width 1.
    MJB_FIELD_QFRC_APPLIED = 15,
    /// `xfrc_applied` (6 × nbody): Cartesian force then torque applied by the host to each body,
    /// in world coordinates. Input: per body, width 6.
    MJB_FIELD_XFRC_APPLIED = 16,
    /// `eq_active` (neq): whether each equality constraint is active, as 0.0 / 1.0 (MuJoCo >= 3.0).
    /// Input: per equality, exactly 0 or 1.
    MJB_FIELD_EQ_ACTIVE = 17,
    /// `actuator_force` (nu): the force each actuator produced. Computed by a step; stale
    /// after a restore.
    MJB_FIELD_ACTUATOR_FORCE = 18,
    /// `userdata` (nuserdata): the model's user data array, which the engine never touches.
    MJB_FIELD_USERDATA = 19,
}

abi_enum!(mjb_field <=> Field {
    MJB_FIELD_QPOS <=> Qpos,
    MJB_FIELD_QVEL <=> Qvel,
    MJB_FIELD_ACT <=> Act,
    MJB_FIELD_CTRL <=> Ctrl,
    MJB_FIELD_QACC <=> Qacc,
    MJB_FIELD_SENSORDATA <=> Sensordata,
    MJB_FIELD_XPOS <=> Xpos,
    MJB_FIELD_XQUAT <=> Xquat,
    MJB_FIELD_XMAT <=> Xmat,
    MJB_FIELD_SITE_XPOS <=> SiteXpos,
    MJB_FIELD_SITE_XMAT <=> SiteXmat,
    MJB_FIELD_GEOM_XPOS <=> GeomXpos,
    MJB_FIELD_GEOM_XMAT <=> GeomXmat,
    MJB_FIELD_MOCAP_POS <=> MocapPos,
    MJB_FIELD_MOCAP_QUAT <=> MocapQuat,
    MJB_FIELD_QFRC_APPLIED <=> QfrcApplied,
    MJB_FIELD_XFRC_APPLIED <=> XfrcApplied,
    MJB_FIELD_EQ_ACTIVE <=> EqActive,
    MJB_FIELD_ACTUATOR_FORCE <=> ActuatorForce,
    MJB_FIELD_USERDATA <=> Userdata,
});

/// Object kinds of the name API. Values are part of the ABI: never renumber; append only.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum mjb_object_kind {
    /// Bodies, by body id (0 is the world body; the index into `xpos`, `xfrc_applied`, ...).
    MJB_OBJ_BODY = 0,
    /// Joints, by joint id (`mjb_joint_slice` maps one to its `qpos` and dof entries).
    MJB_OBJ_JOINT = 1,
    /// Geoms, by geom id (the index into `geom_xpos`/`geom_xmat`).
    MJB_OBJ_GEOM = 2,
    /// Sites, by site id (the index into `site_xpos`/`site_xmat`).
    MJB_OBJ_SITE = 3,
    /// Actuators, by actuator id (the index into `ctrl` and `actuator_force`).
    MJB_OBJ_ACTUATOR = 4,
    /// Sensors, by sensor id (`mjb_sensor_slice` maps one to its `sensordata` entries).
    MJB_OBJ_SENSOR = 5,
    /// Equality constraints, by equality id (the index into `eq_active`).
    MJB_OBJ_EQUALITY = 6,
    /// Mocap bodies, by mocap index (the index into `mocap_pos`/`mocap_quat`); the name is
    /// the body's.
    MJB_OBJ_MOCAP = 7,
}

abi_enum!(mjb_object_kind <=> ObjectKind {
    MJB_OBJ_BODY <=> Body,
    MJB_OBJ_JOINT <=> Joint,
    MJB_OBJ_GEOM <=> Geom,
    MJB_OBJ_SITE <=> Site,
    MJB_OBJ_ACTUATOR <=> Actuator,
    MJB_OBJ_SENSOR <=> Sensor,
    MJB_OBJ_EQUALITY <=> Equality,
    MJB_OBJ_MOCAP <=> Mocap,
});

/// Why a frame was published. Values are part of the ABI: never renumber; append only.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum mjb_frame_cause {
    /// The endpoint was opened (or adopted a pair).
    MJB_FRAME_OPEN = 0,
    /// An engine step.
    MJB_FRAME_STEP = 1,
    /// A restore.
    MJB_FRAME_RESTORE = 2,
    /// An input write (ctrl, applied forces, mocap pose, equality activation).
    MJB_FRAME_INPUT = 3,
    /// The model was replaced.
    MJB_FRAME_REPLACE = 4,
    /// A failed step or restore was rolled back to the prior state.
    MJB_FRAME_ROLLBACK = 5,
}

abi_enum!(mjb_frame_cause <=> Cause {
    MJB_FRAME_OPEN <=> Open,
    MJB_FRAME_STEP <=> Step,
    MJB_FRAME_RESTORE <=> Restore,
    MJB_FRAME_INPUT <=> Input,
    MJB_FRAME_REPLACE <=> Replace,
    MJB_FRAME_ROLLBACK <=> Rollback,
});

/// Severity of a log message (the same values as MuJoCo's `mjtLogLevel`). Values are part of
/// the ABI: never renumber.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[allow(non_camel_case_types)]
pub enum mjb_log_level {
    /// MuJoCo's debug messages raised inside a bridge call (engines with leveled logging);
    /// the bridge itself sends none.
    MJB_LOG_DEBUG = 0,
    /// A refused call (`MJB_REJECTED` other than busy or stop latched) with its reason and
    /// pointer, and MuJoCo's info messages raised inside a bridge call.
    MJB_LOG_INFO = 1,
    /// A rollback, an engine reset after NaN/Inf, poses a frame could not recompute, and
    /// MuJoCo's warnings raised inside a bridge call.
    MJB_LOG_WARNING = 2,
    /// An endpoint was fenced (`MJB_UNKNOWN`) or a panic was caught (`MJB_PANIC`).
    MJB_LOG_ERROR = 3,
}

abi_enum!(mjb_log_level <=> Level {
    MJB_LOG_DEBUG <=> Debug,
    MJB_LOG_INFO <=> Info,
    MJB_LOG_WARNING <=> Warning,
    MJB_LOG_ERROR <=> Error,
});
