//! The `repr(C)` structs of the ABI and the log callback's type, with their conversions from the
//! crate's own types. Layouts never change; fields are only appended.

use crate::endpoint::Report;
use crate::frame::FrameInfo;
use crate::native::{MjData, MjModel};
use crate::safety::SafetyView;
use std::ffi::c_void;
use std::os::raw::c_char;

/// An endpoint handle as C sees it. Opaque: its value is not an address.
#[allow(non_camel_case_types)]
pub struct mjb_endpoint {
    _private: u8,
}

/// A restore point as C sees it: library-owned, immutable, freed by
/// `mjb_restore_point_free`. Opaque: its value is not an address.
#[allow(non_camel_case_types)]
pub struct mjb_restore_point {
    _private: u8,
}

/// Opaque MuJoCo model (`mjModel` in `mujoco.h`).
#[allow(non_camel_case_types)]
pub type mjModel_ = MjModel;
/// Opaque MuJoCo data (`mjData` in `mujoco.h`).
#[allow(non_camel_case_types)]
pub type mjData_ = MjData;

/// The result of a mutation. Written whenever the pointer is not NULL, also on refusal.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct mjb_report {
    /// Same value the function returns.
    pub outcome: i32,
    /// An `mjb_reason`; `MJB_REASON_NONE` only with `MJB_OK` and nothing to add.
    pub reason: i32,
    /// The endpoint's tick when the call was admitted (or last known, if it was not).
    pub tick_before: u64,
    /// The tick when the call returned: after a step, `tick_before` + steps done.
    pub tick_after: u64,
    /// Engine auto-resets (NaN/Inf) during a step; never silent.
    pub engine_resets: u64,
    /// This call's place in the endpoint's admission order (1, 2, ...): calls from several
    /// threads took effect in increasing `sequence`. 0 when the call was not admitted.
    pub sequence: u64,
}

/// The lock-free safety state of an endpoint.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct mjb_safety_state {
    /// A stop is latched.
    pub stopped: bool,
    /// Stopped and no native work in flight.
    pub confirmed: bool,
    /// Stops ever latched on this endpoint (never rewound).
    pub stop_count: u64,
    /// The tick at which the first stop was latched (0 while `stop_count` is 0).
    pub first_stop_tick: u64,
    /// The tick at which the most recent stop was latched (0 while `stop_count` is 0).
    pub last_stop_tick: u64,
    /// Native mutations in flight right now.
    pub in_flight: u64,
    /// The endpoint is fenced (permanent).
    pub fenced: bool,
    /// The `mjb_reason` that fenced it, `MJB_REASON_NONE` when not fenced.
    pub fence_reason: i32,
}

impl From<SafetyView> for mjb_safety_state {
    fn from(v: SafetyView) -> Self {
        mjb_safety_state {
            stopped: v.stopped,
            confirmed: v.confirmed,
            stop_count: v.stop_count,
            first_stop_tick: v.first_stop_tick.unwrap_or(0),
            last_stop_tick: v.last_stop_tick.unwrap_or(0),
            in_flight: v.in_flight,
            fenced: v.fence.is_some(),
            fence_reason: v.fence.map_or(0, |r| r as i32),
        }
    }
}

impl From<Report> for mjb_report {
    fn from(r: Report) -> Self {
        mjb_report {
            outcome: r.outcome as i32,
            reason: r.reason as i32,
            tick_before: r.tick_before,
            tick_after: r.tick_after,
            engine_resets: r.engine_resets,
            sequence: r.sequence,
        }
    }
}

/// Model dimensions and the configuration counter, as `mjb_dims` reports them.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[allow(non_camel_case_types)]
pub struct mjb_model_dims {
    /// Generalized coordinates (`mjModel.nq`): the length of `qpos`.
    pub nq: i64,
    /// Degrees of freedom (`nv`): the length of `qvel`, `qacc` and `qfrc_applied`.
    pub nv: i64,
    /// Actuator activations (`na`): the length of `act`.
    pub na: i64,
    /// Actuators (`nu`): the length of `ctrl` and `actuator_force`.
    pub nu: i64,
    /// Bodies (`nbody`), the world body included: `xpos` holds 3 × `nbody` values.
    pub nbody: i64,
    /// Joints (`njnt`): ids for `mjb_joint_slice` and `MJB_OBJ_JOINT`.
    pub njnt: i64,
    /// Geoms (`ngeom`): `geom_xpos` holds 3 × `ngeom` values.
    pub ngeom: i64,
    /// Sites (`nsite`): `site_xpos` holds 3 × `nsite` values.
    pub nsite: i64,
    /// Sensors (`nsensor`): ids for `mjb_sensor_slice` and `MJB_OBJ_SENSOR`.
    pub nsensor: i64,
    /// Sensor values (`nsensordata`): the length of `sensordata`.
    pub nsensordata: i64,
    /// Mocap bodies (`nmocap`): `mocap_pos` holds 3 × `nmocap` values.
    pub nmocap: i64,
    /// Equality constraints (`neq`): the length of `eq_active`.
    pub neq: i64,
    /// User data values (`nuserdata`): the length of `userdata`.
    pub nuserdata: i64,
    /// The timestep in seconds (`mjModel.opt.timestep`): the simulated time one step advances.
    pub timestep: f64,
    /// The endpoint's model configuration (bumped by `mjb_endpoint_replace_model`).
    pub configuration: u64,
}

impl mjb_model_dims {
    pub fn of(d: &crate::native::Dims, configuration: u64) -> Self {
        mjb_model_dims {
            nq: d.nq,
            nv: d.nv,
            na: d.na,
            nu: d.nu,
            nbody: d.nbody,
            njnt: d.njnt,
            ngeom: d.ngeom,
            nsite: d.nsite,
            nsensor: d.nsensor,
            nsensordata: d.nsensordata,
            nmocap: d.nmocap,
            neq: d.neq,
            nuserdata: d.nuserdata,
            timestep: d.timestep,
            configuration,
        }
    }
}

/// A precondition of a mutation (the `_if` functions): where the caller expects the endpoint to
/// be when the call is admitted. A member is checked when its flag is set; when one does not
/// hold, the call is `MJB_REJECTED` with `MJB_REASON_PRECONDITION` and nothing is done.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct mjb_expect {
    /// `MJB_EXPECT_TICK`, `MJB_EXPECT_CONFIGURATION`, `MJB_EXPECT_FRAME`, or any of them.
    pub flags: u32,
    /// The tick the caller saw (a frame's, a read's, a report's `tick_after`).
    pub tick: u64,
    /// The model configuration the caller saw (`mjb_dims`, a frame, a read).
    pub configuration: u64,
    /// The publication number of the last frame the caller saw (`mjb_frame_info.frame`, a
    /// read's `mjb_read_info.frame`). Every change of the native state publishes a frame (a
    /// step, a restore, an input write, a replacement, a rollback), so this catches what a
    /// tick cannot: a restore to the same tick, an input write, a replacement back at tick 0.
    pub frame: u64,
}

/// Where the endpoint was when a document was read (the `_info` reads).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct mjb_read_info {
    /// The endpoint's tick the document describes.
    pub tick: u64,
    /// The model configuration it was read under.
    pub configuration: u64,
    /// The publication number of the endpoint's last frame when it was read (for
    /// `MJB_EXPECT_FRAME`); 0 for a restore point, which is not a reading of the endpoint.
    pub frame: u64,
}

impl From<crate::endpoint::Seen> for mjb_read_info {
    fn from(s: crate::endpoint::Seen) -> Self {
        mjb_read_info {
            tick: s.tick,
            configuration: s.configuration,
            frame: s.frame,
        }
    }
}

/// What an endpoint's flight recorder holds (`mjb_history_info`, v0.4).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct mjb_history_state {
    /// The oldest tick `mjb_rewind` reaches (the first keyframe's).
    pub oldest_tick: u64,
    /// The newest tick `mjb_rewind` reaches (after a rewind back, the branch it left is kept
    /// until the next mutation).
    pub newest_tick: u64,
    /// Keyframes held (complete states: one every `keyframe_every` ticks, one per restore).
    pub keyframes: u64,
    /// Bytes the recorder holds (its buffers' capacities: keyframes, records, hashes).
    pub bytes: u64,
}

impl From<crate::endpoint::HistoryInfo> for mjb_history_state {
    fn from(i: crate::endpoint::HistoryInfo) -> Self {
        mjb_history_state {
            oldest_tick: i.oldest,
            newest_tick: i.newest,
            keyframes: i.keyframes,
            bytes: i.bytes,
        }
    }
}

/// Where a joint's values sit in `qpos` and in `qvel` (and every nv-sized field).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct mjb_joint_adr {
    /// Index of the joint's first value in `qpos` (`mjModel.jnt_qposadr`).
    pub qpos_adr: u64,
    /// How many `qpos` values it has: 7 for a free joint, 4 for a ball, 1 for a slide or hinge.
    pub qpos_len: u64,
    /// Index of its first degree of freedom in `qvel` and every nv-sized field
    /// (`mjModel.jnt_dofadr`).
    pub dof_adr: u64,
    /// How many degrees of freedom it has: 6 for a free joint, 3 for a ball, 1 for a slide or
    /// hinge.
    pub dof_len: u64,
}

/// What a frame read returns beside the values.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[allow(non_camel_case_types)]
pub struct mjb_frame_info {
    /// The endpoint's tick when the frame was published.
    pub tick: u64,
    /// `mjData.time` of the frame.
    pub time: f64,
    /// The model configuration the frame belongs to.
    pub configuration: u64,
    /// Publication number: 1 for the endpoint's first frame, +1 per frame, never reset.
    pub frame: u64,
    /// Why it was published (`mjb_frame_cause`).
    pub cause: i32,
    /// The published fields: bit `1 << f` for each `mjb_field` f of the selection.
    pub fields: u64,
    /// Fields not recomputed for this frame's state (bit `1 << f`): after a restore (or open,
    /// replacement, rollback) what only a step computes (qacc, sensordata, actuator_force)
    /// is stale until the next step; poses are recomputed by kinematics on a scratch copy.
    pub stale: u64,
    /// Times this read started over because the writer lapped it (diagnostics).
    pub retries: u64,
}

/// A read fills the caller's struct in place (see [`crate::frame::Header`]).
impl crate::frame::Header for mjb_frame_info {
    #[inline]
    fn set(&mut self, info: FrameInfo) {
        *self = info.into();
    }
}

impl From<FrameInfo> for mjb_frame_info {
    fn from(i: FrameInfo) -> Self {
        mjb_frame_info {
            tick: i.tick,
            time: i.time,
            configuration: i.configuration,
            frame: i.frame,
            cause: i.cause,
            fields: i.fields,
            stale: i.stale,
            retries: i.retries,
        }
    }
}

/// One field of a multi-field frame read: the caller's buffer of `cap` doubles; `written`
/// receives the number copied.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct mjb_frame_request {
    /// An `mjb_field` in the endpoint's frame selection (else `MJB_REASON_NOT_IN_FRAME`).
    pub field: i32,
    /// Where the field's values go: `cap` doubles, caller-owned, written during the call only.
    /// NULL only with `cap` 0.
    pub buf: *mut f64,
    /// The capacity of `buf` in doubles; less than the field's length (`mjb_frame_field_len`)
    /// refuses the whole read (`MJB_REASON_DIMENSION`).
    pub cap: usize,
    /// Zeroed on entry; on `MJB_OK` the number of doubles copied (the field's length).
    pub written: usize,
}

/// One typed input of `mjb_write_step`: `n` doubles for `field` (an input field), for the
/// whole field (`id` = -1) or one object (`id` ≥ 0: actuator for ctrl, degree of freedom for
/// qfrc_applied, body for xfrc_applied, mocap index for mocap_pos/quat, equality for eq_active).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct mjb_input {
    /// The `mjb_field` to write: `MJB_FIELD_CTRL`, `QFRC_APPLIED`, `XFRC_APPLIED`, `MOCAP_POS`,
    /// `MOCAP_QUAT` or `EQ_ACTIVE` (any other is `MJB_REASON_READ_ONLY_FIELD`).
    pub field: i32,
    /// -1 for the whole field, or the id (≥ 0) of the one object to write.
    pub id: i32,
    /// `n` doubles, borrowed for the call; NULL only with `n` 0.
    pub values: *const f64,
    /// How many values: the field's length for `id` -1, else the object's width (1 for ctrl,
    /// qfrc_applied and eq_active, 6 for xfrc_applied, 3 for mocap_pos, 4 for mocap_quat).
    pub n: usize,
}

/// The host's log callback: `user_data` as given to `mjb_set_log_callback`, the level, and a
/// NUL-terminated UTF-8 message valid during the call only.
#[allow(non_camel_case_types)]
pub type mjb_log_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, level: i32, message: *const c_char)>;

// The host plumbing takes the callback as it is.
const _: fn(mjb_log_fn) -> crate::host::LogCallback = |f| f;

/// A prepared frame reader as C sees it: library-owned, made by `mjb_frame_reader_new`, freed
/// by `mjb_frame_reader_free`. Opaque: its value is not an address.
#[allow(non_camel_case_types)]
pub struct mjb_frame_reader {
    _private: u8,
}
