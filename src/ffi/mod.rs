//! The C ABI. Every function here is a thin export: check pointers, call into safe Rust,
//! write out-params. The conventions every export follows are in the header preamble
//! (`cbindgen.toml`) and the README.
//!
//! The exports are `unsafe extern "C"` because they take raw pointers from C; each one's doc
//! states what it requires of them (the header carries the same text), so clippy's
//! `# Safety` section would only repeat it.
#![allow(clippy::missing_safety_doc)]

mod boundary;
mod fast;
mod host;
mod string;

pub use boundary::mjb_endpoint;
pub use fast::*;
pub use host::*;
pub use string::mjb_string;

use crate::endpoint::{Answer, Endpoint, Report};
use crate::native::{MjData, MjModel};
use crate::outcome::{mjb_outcome, mjb_reason, Outcome, Reason, Refusal};
use crate::safety::SafetyView;
use boundary::{call, null_refusal, on_endpoint, utf8};
use std::os::raw::c_char;
use std::ptr::NonNull;

/// Opaque MuJoCo model (`mjModel` in `mujoco.h`).
#[allow(non_camel_case_types)]
pub type mjModel_ = MjModel;
/// Opaque MuJoCo data (`mjData` in `mujoco.h`).
#[allow(non_camel_case_types)]
pub type mjData_ = MjData;

/// `timeout_ms` value that waits for the native lock without a deadline.
// The cast is what makes cbindgen print `(uint32_t)UINT32_MAX`: a uint32_t in C too.
#[allow(clippy::unnecessary_cast)]
pub const MJB_WAIT_FOREVER: u32 = u32::MAX as u32;
/// At most this many values in a checkpoint's `values`.
pub const MJB_MAX_CHECKPOINT_VALUES: usize = 32768;
/// Input documents over this many bytes are refused before parsing.
pub const MJB_MAX_DOCUMENT_BYTES: usize = 1048576;

// The header's literals are the values the code uses.
const _: () = {
    assert!(MJB_WAIT_FOREVER == crate::endpoint::WAIT_FOREVER);
    assert!(MJB_MAX_CHECKPOINT_VALUES == crate::checkpoint::MAX_VALUES);
    assert!(MJB_MAX_DOCUMENT_BYTES == crate::checkpoint::json::MAX_DOCUMENT_BYTES);
};

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
    /// Tick of the first and last stop (valid when `stop_count` > 0).
    pub first_stop_tick: u64,
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

/// Zero an out-param on entry.
///
/// # Safety
/// `p` is NULL or valid for writes.
unsafe fn zero<T: Default>(p: *mut T) {
    if !p.is_null() {
        p.write(T::default());
    }
}

/// Finish a mutation: write the report, record the detail, return the outcome.
///
/// # Safety
/// `report` is NULL or valid for writes.
unsafe fn answer(a: Answer, report: *mut mjb_report) -> Result<Outcome, Refusal> {
    if !report.is_null() {
        report.write(a.report.into());
    }
    if let Some(d) = a.detail {
        if d.outcome != Outcome::MJB_OK {
            return Err(d);
        }
        crate::host::event_for(&d);
        boundary::set_last_error(d);
    }
    Ok(a.report.outcome)
}

/// A refusal before the endpoint was reached still fills the report.
///
/// # Safety
/// `report` is NULL or valid for writes.
unsafe fn mutation(
    ep: *mut mjb_endpoint,
    report: *mut mjb_report,
    f: impl FnOnce(&Endpoint) -> Answer,
) -> mjb_outcome {
    call(|| {
        zero(report);
        match on_endpoint(ep, |e| Ok(f(e))) {
            Ok(a) => answer(a, report),
            Err(r) => {
                report_refusal(report, &r);
                Err(r)
            }
        }
    })
}

/// Put a refusal's outcome and reason in a (zeroed) report.
///
/// # Safety
/// `report` is NULL or valid for writes.
unsafe fn report_refusal(report: *mut mjb_report, r: &Refusal) {
    if !report.is_null() {
        (*report).outcome = r.outcome as i32;
        (*report).reason = r.reason as i32;
    }
}

/// Refuse before the endpoint is looked at (bad pointer or bytes), still filling the report.
///
/// # Safety
/// `report` is NULL or valid for writes.
unsafe fn refuse_early(report: *mut mjb_report, r: Refusal) -> mjb_outcome {
    call(|| {
        zero(report);
        report_refusal(report, &r);
        Err(r)
    })
}

/// Read a document-producing call into a library-owned string.
///
/// # Safety
/// `out` is NULL or valid for writes.
unsafe fn read_into(
    ep: *mut mjb_endpoint,
    out: *mut *mut mjb_string,
    f: impl FnOnce(&Endpoint) -> Result<String, Refusal>,
) -> mjb_outcome {
    call(|| {
        if out.is_null() {
            return Err(null_refusal("out_string"));
        }
        out.write(std::ptr::null_mut());
        let text = on_endpoint(ep, f)?;
        out.write(string::new_string(text));
        Ok(Outcome::MJB_OK)
    })
}

/// Open an endpoint that loads and owns a MuJoCo model/data pair.
///
/// `config_json`/`len`: a strict JSON object, borrowed for the call:
/// `{"model": {"xml_path": "..."} | {"xml": "..."}, "name": "...", "seed": <u64>,
/// "profile": "auto" | "mujoco_integration_v1" | "mujoco_basic_v1", "fidelity": {...} | null}`;
/// only `model` is required.
/// `out`: must not be NULL; set to NULL on entry and to a new handle on `MJB_OK`. The caller
/// owns the handle and closes it with `mjb_endpoint_free`.
/// Refusals: `MJB_REJECTED` with `MJB_REASON_ENGINE` when the loaded MuJoCo is not the release
/// the bridge was compiled against, `MJB_REASON_MODEL_LOAD` with MuJoCo's compiler message
/// (never a process exit), `MJB_REASON_PROFILE` when the engine cannot serve the profile.
/// Thread-safe; takes no endpoint lock.
#[no_mangle]
pub unsafe extern "C" fn mjb_endpoint_open(
    config_json: *const c_char,
    len: usize,
    out: *mut *mut mjb_endpoint,
) -> mjb_outcome {
    call(|| {
        if out.is_null() {
            return Err(null_refusal("out"));
        }
        out.write(std::ptr::null_mut());
        let cfg = utf8(config_json, len, "config_json")?;
        let ep = Endpoint::open(cfg)?;
        out.write(boundary::register(ep));
        Ok(Outcome::MJB_OK)
    })
}

/// Open an endpoint that takes ownership of a host's MuJoCo pair.
///
/// `model`, `data`: must not be NULL; `data` must have been made for `model` by the same
/// MuJoCo the bridge links. On `MJB_OK` the endpoint owns both and frees them with
/// `mj_deleteData`/`mj_deleteModel` when it is closed; the host must not use, mutate or free
/// them (nor change MuJoCo callbacks or plugins they depend on) while the endpoint lives. On
/// any other outcome ownership stays with the host and nothing was touched.
/// `config_json`/`len`: as for `mjb_endpoint_open` without `model`.
/// `out`: must not be NULL; NULL on entry, the new handle on `MJB_OK`.
/// Thread-safe; takes no endpoint lock.
#[no_mangle]
pub unsafe extern "C" fn mjb_endpoint_adopt(
    model: *mut mjModel_,
    data: *mut mjData_,
    config_json: *const c_char,
    len: usize,
    out: *mut *mut mjb_endpoint,
) -> mjb_outcome {
    call(|| {
        if out.is_null() {
            return Err(null_refusal("out"));
        }
        out.write(std::ptr::null_mut());
        let m = NonNull::new(model).ok_or_else(|| null_refusal("model"))?;
        let d = NonNull::new(data).ok_or_else(|| null_refusal("data"))?;
        let cfg = utf8(config_json, len, "config_json")?;
        let ep = Endpoint::adopt(m, d, cfg)?;
        out.write(boundary::register(ep));
        Ok(Outcome::MJB_OK)
    })
}

/// Close an endpoint handle.
///
/// NULL is a no-op returning `MJB_OK`. A closed or foreign handle returns
/// `MJB_INVALID_ARGUMENT` (never undefined behaviour). Closing while another thread is inside
/// a call on the same endpoint is safe: that call finishes, and the native pair is freed when
/// it returns. Works on fenced endpoints. Takes no endpoint lock.
#[no_mangle]
pub extern "C" fn mjb_endpoint_free(ep: *mut mjb_endpoint) -> mjb_outcome {
    call(|| {
        if ep.is_null() {
            return Ok(Outcome::MJB_OK);
        }
        boundary::unregister(ep)?;
        Ok(Outcome::MJB_OK)
    })
}

/// Step the simulation: `mj_step` up to `nstep` times; the tick advances by one per step.
///
/// Halts at a latched stop between steps: returns `MJB_OK` with `MJB_REASON_STOP_LATCHED` and
/// the report's `tick_after` shows the steps done. A call admitted after the latch is refused
/// (`MJB_REJECTED`, stop latched) with no step taken. An engine error in a step rolls that step
/// back (`MJB_ROLLED_BACK`, or `MJB_UNKNOWN` and a fence when not provable); an engine
/// auto-reset after NaN/Inf is counted in `report->engine_resets` with
/// `MJB_REASON_ENGINE_RESET`.
/// `timeout_ms`: bounds admission only (`0` tries once, `MJB_WAIT_FOREVER` waits); past it the
/// call is `MJB_REJECTED` (busy) with no effect. `report`: nullable.
/// Takes the native lock.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_step(
    ep: *mut mjb_endpoint,
    nstep: u32,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    mutation(ep, report, |e| e.step(nstep, timeout_ms))
}

/// Write the controls: `ctrl` holds `n` doubles, borrowed for the call; `n` must equal the
/// model's `nu` and every value must be finite (else `MJB_REJECTED`, nothing written). `ctrl`
/// may be NULL only when `n` is 0. `report`: nullable. Takes the native lock.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_set_ctrl(
    ep: *mut mjb_endpoint,
    ctrl: *const f64,
    n: usize,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    if ctrl.is_null() && n != 0 {
        return refuse_early(report, null_refusal("ctrl"));
    }
    if n > isize::MAX as usize / std::mem::size_of::<f64>() {
        let r = Refusal::new(
            Outcome::MJB_INVALID_ARGUMENT,
            Reason::MJB_REASON_OUT_OF_RANGE,
            "n is larger than any array",
        );
        return refuse_early(report, r);
    }
    let values: &[f64] = if n == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(ctrl, n)
    };
    mutation(ep, report, |e| e.set_ctrl(values, timeout_ms))
}

/// Apply a partial world document `{"world": {...}}` (borrowed for the call) carrying any of
/// the inputs, whole arrays: `ctrl`, `qfrc_applied`, `xfrc_applied`, `mocap_pos`,
/// `mocap_quat`, `eq_active` (0 or 1; MuJoCo >= 3.0). Publishes a frame.
///
/// Only writable fields are accepted; `native_checkpoint`, `tick`, `time`, `qpos`, `qvel` (and
/// the other served fields) are refused with `MJB_REASON_READ_ONLY_FIELD` and the JSON
/// pointer. The whole document is validated before anything is written. `report`: nullable.
/// Takes the native lock.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_world_write(
    ep: *mut mjb_endpoint,
    json: *const c_char,
    len: usize,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    match utf8(json, len, "json") {
        Ok(doc) => mutation(ep, report, |e| e.world_write(doc, timeout_ms)),
        Err(r) => refuse_early(report, r),
    }
}

/// Read the world document (resource read).
///
/// `out_string`: must not be NULL; NULL on entry, on `MJB_OK` a new string the caller frees
/// with `mjb_string_free`. Takes the native lock (admission bounded by `timeout_ms`, as for
/// `mjb_step`): the public fields and the checkpoint never tear. Works on fenced endpoints.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_world_read(
    ep: *mut mjb_endpoint,
    timeout_ms: u32,
    out_string: *mut *mut mjb_string,
) -> mjb_outcome {
    read_into(ep, out_string, |e| e.world_read(timeout_ms))
}

/// Capture a snapshot: the same world document as `mjb_world_read`, byte for byte.
/// Ownership and locking as for `mjb_world_read`.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_snapshot(
    ep: *mut mjb_endpoint,
    timeout_ms: u32,
    out_string: *mut *mut mjb_string,
) -> mjb_outcome {
    read_into(ep, out_string, |e| e.world_read(timeout_ms))
}

/// Read the checkpoint document alone (the profile's format; see the README).
///
/// A model whose integration state has more than 32,768 values is refused
/// (`MJB_REASON_TOO_MANY_VALUES`), never truncated. Ownership and locking as for
/// `mjb_world_read`.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_checkpoint_read(
    ep: *mut mjb_endpoint,
    timeout_ms: u32,
    out_string: *mut *mut mjb_string,
) -> mjb_outcome {
    read_into(ep, out_string, |e| e.checkpoint_read(timeout_ms))
}

/// Replace the owned model/data with a newly loaded one (`{"model": {...}}`, borrowed).
///
/// Bumps the descriptor's `configuration`, so checkpoints taken before are refused. Tick and
/// safety state are kept. The model is compiled before the lock is taken; the swap happens
/// under it. `report`: nullable.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_endpoint_replace_model(
    ep: *mut mjb_endpoint,
    config_json: *const c_char,
    len: usize,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    match utf8(config_json, len, "config_json") {
        Ok(doc) => mutation(ep, report, |e| e.replace_model(doc, timeout_ms)),
        Err(r) => refuse_early(report, r),
    }
}

/// Restore a checkpoint document, or a world document as `mjb_snapshot` / `mjb_world_read`
/// serve it (borrowed for the call), and its tick.
///
/// A world document's `state_hash` is recomputed (SHA-256 of the JCS form of `world`) and must
/// match, else `MJB_REJECTED` with `MJB_REASON_STATE_HASH`; its `native_checkpoint` is then
/// validated and restored exactly as a checkpoint (pointers below `/world/native_checkpoint`).
///
/// Every byte is validated in Rust before the lock is taken; a bad document is `MJB_REJECTED`
/// with the reason and JSON pointer in `mjb_last_error`, and nothing changes. Then, under the
/// native lock: fence check, descriptor re-check, pre-restore image, guarded `mj_setState`,
/// bitwise readback, tick, a frame (poses by kinematics on a scratch copy, sensors marked
/// stale). Never calls `mj_forward` on the owned data. A failed setter or readback is rolled
/// back (`MJB_ROLLED_BACK`) or, when that cannot be proven, `MJB_UNKNOWN` and the endpoint is
/// fenced. Admitted while stopped; the endpoint stays stopped. `report`: nullable.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_restore(
    ep: *mut mjb_endpoint,
    json: *const c_char,
    len: usize,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    match utf8(json, len, "json") {
        Ok(doc) => mutation(ep, report, |e| e.restore(doc, timeout_ms)),
        Err(r) => refuse_early(report, r),
    }
}

/// Latch a stop, at once, from any thread; never waits for the native lock (also while a long
/// step holds it) and works on fenced endpoints. `safety_state` (nullable) receives the state
/// right after latching; `confirmed` is true only when no native work is in flight.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_stop(
    ep: *mut mjb_endpoint,
    safety_state: *mut mjb_safety_state,
) -> mjb_outcome {
    call(|| {
        zero(safety_state);
        let view = on_endpoint(ep, |e| Ok(e.safety.stop()))?;
        if !safety_state.is_null() {
            safety_state.write(view.into());
        }
        Ok(Outcome::MJB_OK)
    })
}

/// Positive acknowledgement that the simulation is paused: `MJB_OK` only when a stop is
/// latched, no native work is in flight and the endpoint is not fenced; otherwise
/// `MJB_REJECTED` (`MJB_REASON_NOT_STOPPED` / `MJB_REASON_UNRESOLVED_NATIVE_WORK`) or
/// `MJB_FENCED`. Never takes the native lock.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "C" fn mjb_confirm_paused(ep: *mut mjb_endpoint) -> mjb_outcome {
    call(|| {
        on_endpoint(ep, |e| e.confirm_paused())?;
        Ok(Outcome::MJB_OK)
    })
}

/// Clear the stop latch, under the same conditions as `mjb_confirm_paused`. Stop history is
/// kept. Never takes the native lock.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "C" fn mjb_safety_reset(ep: *mut mjb_endpoint) -> mjb_outcome {
    call(|| {
        on_endpoint(ep, |e| e.safety_reset())?;
        Ok(Outcome::MJB_OK)
    })
}

/// Read the latch, confirmation, stop history, work in flight and fence without the native
/// lock. `safety_state`: must not be NULL.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_safety_read(
    ep: *mut mjb_endpoint,
    safety_state: *mut mjb_safety_state,
) -> mjb_outcome {
    call(|| {
        if safety_state.is_null() {
            return Err(null_refusal("safety_state"));
        }
        zero(safety_state);
        let view = on_endpoint(ep, |e| Ok(e.safety.view()))?;
        safety_state.write(view.into());
        Ok(Outcome::MJB_OK)
    })
}

/// The bytes of a library-owned string (NUL-terminated UTF-8), valid until it is freed.
/// NULL, freed or foreign strings give NULL.
#[no_mangle]
pub extern "C" fn mjb_string_data(s: *const mjb_string) -> *const c_char {
    let r = std::panic::catch_unwind(|| {
        string::with_live(s, |b| b.as_ptr().cast::<c_char>()).unwrap_or(std::ptr::null())
    });
    r.unwrap_or(std::ptr::null())
}

/// The length in bytes of a library-owned string, without its NUL. NULL, freed or foreign
/// strings give 0.
#[no_mangle]
pub extern "C" fn mjb_string_len(s: *const mjb_string) -> usize {
    let r = std::panic::catch_unwind(|| string::with_live(s, |b| b.len() - 1).unwrap_or(0));
    r.unwrap_or(0)
}

/// Free a library-owned string. NULL is a no-op (`MJB_OK`); a string freed before, or not made
/// by this library, returns `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "C" fn mjb_string_free(s: *mut mjb_string) -> mjb_outcome {
    call(|| {
        if s.is_null() || string::free(s) {
            Ok(Outcome::MJB_OK)
        } else {
            Err(Refusal::new(
                Outcome::MJB_INVALID_ARGUMENT,
                Reason::MJB_REASON_FOREIGN_HANDLE,
                "not a live string of this library (freed before?)",
            ))
        }
    })
}

/// Describe this thread's most recent call (every function returning an `mjb_outcome` but this
/// one), as a JSON object `{"outcome","reason","pointer","message"}` (pointer is an RFC 6901
/// JSON pointer or null): its refusal, or the reason an `MJB_OK` came with (a step halted at a
/// stop, an engine reset), or `{}` after a plain success.
///
/// `needed` (nullable) receives the size including the NUL. When `buf` is not NULL and `cap`
/// is at least that, the text is copied and `MJB_OK` returned; otherwise nothing is copied and
/// `MJB_REJECTED` (`MJB_REASON_TOO_LARGE`) is returned. With no error recorded the text is
/// `{}`. Does not change the recorded error. Takes no lock.
#[no_mangle]
pub unsafe extern "C" fn mjb_last_error(
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
) -> mjb_outcome {
    let r = std::panic::catch_unwind(|| {
        let text = match boundary::last_error() {
            None => "{}".to_owned(),
            Some(e) => {
                use crate::checkpoint::json::{obj, Value};
                obj([
                    ("outcome", e.outcome.name().into()),
                    ("reason", e.reason.name().into()),
                    ("pointer", e.pointer.map(Value::from).unwrap_or(Value::Null)),
                    ("message", e.message.into()),
                ])
                .to_json()
            }
        };
        let size = text.len() + 1;
        if !needed.is_null() {
            needed.write(size);
        }
        if buf.is_null() || cap < size {
            return Outcome::MJB_REJECTED;
        }
        std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), text.len());
        buf.add(text.len()).write(0);
        Outcome::MJB_OK
    });
    r.unwrap_or(Outcome::MJB_PANIC)
}

/// The name of an outcome value (`"MJB_OK"`, ...), or `"MJB_OUTCOME_UNKNOWN_VALUE"`. Static
/// string: do not free.
#[no_mangle]
pub extern "C" fn mjb_outcome_name(outcome: i32) -> *const c_char {
    static_name(
        mjb_outcome::from_i32(outcome).map(|o| o.name()),
        "MJB_OUTCOME_UNKNOWN_VALUE",
    )
}

/// The name of a reason value (`"MJB_REASON_BUSY"`, ...), or `"MJB_REASON_UNKNOWN_VALUE"`.
/// Static string: do not free.
#[no_mangle]
pub extern "C" fn mjb_reason_name(reason: i32) -> *const c_char {
    static_name(
        mjb_reason::from_i32(reason).map(|r| r.name()),
        "MJB_REASON_UNKNOWN_VALUE",
    )
}

fn static_name(name: Option<&'static str>, fallback: &'static str) -> *const c_char {
    use std::collections::BTreeMap;
    use std::ffi::CString;
    use std::sync::OnceLock;
    // Names are Rust &str without NUL; keep one C copy of each for the process lifetime.
    static NAMES: OnceLock<BTreeMap<&'static str, CString>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        mjb_outcome::all()
            .into_iter()
            .map(|o| o.name())
            .chain(mjb_reason::ALL.iter().map(|r| r.name()))
            .chain(["MJB_OUTCOME_UNKNOWN_VALUE", "MJB_REASON_UNKNOWN_VALUE"])
            .map(|n| (n, CString::new(n).expect("no NUL")))
            .collect()
    });
    names[name.unwrap_or(fallback)].as_ptr()
}

/// The bridge's version (for example `"0.2.0"`, from Cargo.toml). Static string: do not free.
#[no_mangle]
pub extern "C" fn mjb_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// Which MuJoCo the bridge was built against and which it runs with, as a JSON object:
/// `{"bridge", "engine_header_version", "engine_runtime_version", "engine", "engine_source",
/// "engine_library", "integration_profile"}`. `out_string`: must not be NULL; the caller frees
/// the result with `mjb_string_free`.
#[no_mangle]
pub unsafe extern "C" fn mjb_build_info(out_string: *mut *mut mjb_string) -> mjb_outcome {
    call(|| {
        if out_string.is_null() {
            return Err(null_refusal("out_string"));
        }
        out_string.write(std::ptr::null_mut());
        out_string.write(string::new_string(crate::build_info()));
        Ok(Outcome::MJB_OK)
    })
}

/// Test builds only (cargo feature `fault-injection`): arm a one-shot native fault on the
/// endpoint's real MuJoCo pair. `fault`: 1 setter raises after writing, 2 setter completes
/// unexpectedly, 3 readback mismatch, 4 rollback unproven, 5 step raises, 6 panic in the next
/// step. Takes the native lock (waits).
#[cfg(feature = "fault-injection")]
#[no_mangle]
pub extern "C" fn mjb_test_inject_fault(ep: *mut mjb_endpoint, fault: i32) -> mjb_outcome {
    call(|| {
        let f = crate::native::Fault::from_i32(fault).ok_or_else(|| {
            Refusal::new(
                Outcome::MJB_INVALID_ARGUMENT,
                Reason::MJB_REASON_OUT_OF_RANGE,
                format!("no fault {fault}"),
            )
        })?;
        on_endpoint(ep, |e| e.arm_fault(f, crate::endpoint::WAIT_FOREVER))?;
        Ok(Outcome::MJB_OK)
    })
}

/// Hooks for the crate's own Rust tests: reach the endpoint behind a live handle.
#[doc(hidden)]
pub mod testing {
    use super::*;

    pub fn with_endpoint<R>(ep: *mut mjb_endpoint, f: impl FnOnce(&Endpoint) -> R) -> Option<R> {
        boundary::resolve(ep).ok().map(|e| f(&e))
    }
}
