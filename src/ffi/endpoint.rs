//! Exports of the endpoint's contract: open, adopt and free; the mutations (step, controls,
//! world write, model replacement, restore); the document reads; stop and the safety
//! acknowledgements. Each one translates its arguments at the boundary and calls the
//! [`Endpoint`].

use super::boundary::{call, mutation, on_endpoint, read, refuse_early};
use super::enums::mjb_outcome;
use super::handle::{self, thread_key};
use super::mjb_string;
use super::pointer::{admission, null_refusal, out_param, out_zeroed, slice, utf8, zeroed};
use super::types::{
    mjData_, mjModel_, mjb_endpoint, mjb_expect, mjb_read_info, mjb_report, mjb_safety_state,
};
use crate::endpoint::Endpoint;
use crate::outcome::Outcome;
use std::os::raw::c_char;
use std::ptr::NonNull;
use std::sync::Arc;

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
        let out = out_param(out, std::ptr::null_mut(), "out")?;
        let ep = Endpoint::open(utf8(config_json, len, "config_json")?)?;
        *out = handle::issue(thread_key(), Arc::new(ep))?;
        Ok(Outcome::Ok)
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
        let out = out_param(out, std::ptr::null_mut(), "out")?;
        let m = NonNull::new(model).ok_or_else(|| null_refusal("model"))?;
        let d = NonNull::new(data).ok_or_else(|| null_refusal("data"))?;
        let ep = Endpoint::adopt(m, d, utf8(config_json, len, "config_json")?)?;
        *out = handle::issue(thread_key(), Arc::new(ep))?;
        Ok(Outcome::Ok)
    })
}

/// Close an endpoint handle.
///
/// NULL is a no-op returning `MJB_OK`. A closed or foreign handle returns
/// `MJB_INVALID_ARGUMENT` (never undefined behaviour). Closing while another thread is inside
/// a call on the same endpoint is safe: that call finishes, and the native pair is freed when
/// it returns. Works on fenced endpoints. Takes no endpoint lock. The endpoint's frame readers
/// stay to be freed; their reads are refused (`MJB_REASON_CLOSED`).
#[no_mangle]
pub extern "C" fn mjb_endpoint_free(ep: *mut mjb_endpoint) -> mjb_outcome {
    call(|| {
        // Dropped here, outside the table's lock (freeing MuJoCo's data can take a while), or
        // later by the last call still using it.
        if let Some(e) = handle::free(ep)? {
            // Prepared frame readers are refused from now on, even while a call still runs.
            e.frames().retire();
        }
        Ok(Outcome::Ok)
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
/// @deprecated Kept, unchanged: use `mjb_endpoint_step`, the same call under a name MuJoCo 4.0
/// does not also export.
#[cfg(not(mjbridge_no_mjb_step))]
#[deprecated(
    note = "use mjb_endpoint_step, the same call (MuJoCo 4.0's mjbatch.h declares an mjb_step of its own)"
)]
#[no_mangle]
pub unsafe extern "C" fn mjb_step(
    ep: *mut mjb_endpoint,
    nstep: u32,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    mjb_step_if(ep, std::ptr::null(), nstep, timeout_ms, report)
}

/// `mjb_step` under a name of its own. MuJoCo 4.0's batch API (`mjbatch.h`) exports a function
/// called `mjb_step` too: a host that links MuJoCo directly and puts it before the bridge on
/// its link line gets MuJoCo's, and a translation unit cannot include both `mjbatch.h` and this
/// header's `mjb_step` (define `MJBRIDGE_NO_MJB_STEP` before including this header to leave it
/// out). `mjb_endpoint_step` is the same call with no such name: same arguments, effects,
/// outcomes and locking as `mjb_step`.
#[no_mangle]
pub unsafe extern "C" fn mjb_endpoint_step(
    ep: *mut mjb_endpoint,
    nstep: u32,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    mjb_step_if(ep, std::ptr::null(), nstep, timeout_ms, report)
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
    mjb_set_ctrl_if(ep, std::ptr::null(), ctrl, n, timeout_ms, report)
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
    mjb_world_write_if(ep, std::ptr::null(), json, len, timeout_ms, report)
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
    mjb_world_read_info(ep, timeout_ms, out_string, std::ptr::null_mut())
}

/// Capture a snapshot: the same world document as `mjb_world_read`, byte for byte.
/// Ownership and locking as for `mjb_world_read`.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
/// @deprecated Kept, unchanged: use `mjb_world_read`, the same call.
#[deprecated(note = "use mjb_world_read, the same call")]
#[no_mangle]
pub unsafe extern "C" fn mjb_snapshot(
    ep: *mut mjb_endpoint,
    timeout_ms: u32,
    out_string: *mut *mut mjb_string,
) -> mjb_outcome {
    mjb_world_read_info(ep, timeout_ms, out_string, std::ptr::null_mut())
}

/// Read the checkpoint document alone (the profile's format; see docs/contract.md, "Checkpoint
/// documents").
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
    mjb_checkpoint_read_info(ep, timeout_ms, out_string, std::ptr::null_mut())
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
    mjb_endpoint_replace_model_if(ep, std::ptr::null(), config_json, len, timeout_ms, report)
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
    mjb_restore_if(ep, std::ptr::null(), json, len, timeout_ms, report)
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
        let state = zeroed(safety_state);
        let view = on_endpoint(ep, |e| Ok(e.stop()))?;
        if let Some(s) = state {
            *s = view.into();
        }
        Ok(Outcome::Ok)
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
        Ok(Outcome::Ok)
    })
}

/// Clear the stop latch, under the same conditions as `mjb_confirm_paused`. Stop history is
/// kept. Never takes the native lock.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "C" fn mjb_safety_reset(ep: *mut mjb_endpoint) -> mjb_outcome {
    call(|| {
        on_endpoint(ep, |e| e.safety_reset())?;
        Ok(Outcome::Ok)
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
        // All zero is the state's empty value (false, 0, no fence).
        let state = out_zeroed(safety_state, "safety_state")?;
        *state = on_endpoint(ep, |e| Ok(e.safety_view()))?.into();
        Ok(Outcome::Ok)
    })
}

// ---- preconditions and read information (v0.3) -------------------------------------------------
//
// A controller's compare-and-step: read a frame (or a document) and note its publication
// number, choose the inputs, then call the `_if` form with `MJB_EXPECT_FRAME` and that number.
// When another call changed the endpoint in between (stepped, restored, wrote inputs, replaced
// the model), the call is refused (`MJB_REASON_PRECONDITION`) with nothing done, so inputs
// chosen for one state never land on another. `MJB_EXPECT_TICK` is the weaker check (a restore
// to the same tick passes it); `MJB_EXPECT_CONFIGURATION` pins the model.

/// `mjb_step` with a precondition. `expect` (nullable: none; borrowed): the tick, model
/// configuration and/or last frame number the caller expects at admission; when one does not hold the call is
/// `MJB_REJECTED` (`MJB_REASON_PRECONDITION`) and no step is taken. Unknown flag bits are
/// `MJB_INVALID_ARGUMENT`. Everything else as for `mjb_step`.
#[no_mangle]
pub unsafe extern "C" fn mjb_step_if(
    ep: *mut mjb_endpoint,
    expect: *const mjb_expect,
    nstep: u32,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    match admission(timeout_ms, expect) {
        Ok(c) => mutation(ep, report, |e| e.step(nstep, c)),
        Err(r) => refuse_early(report, r),
    }
}

/// `mjb_set_ctrl` with a precondition (`expect` as for `mjb_step_if`; nothing is written when
/// it does not hold).
#[no_mangle]
pub unsafe extern "C" fn mjb_set_ctrl_if(
    ep: *mut mjb_endpoint,
    expect: *const mjb_expect,
    ctrl: *const f64,
    n: usize,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    match (slice(ctrl, n, "ctrl"), admission(timeout_ms, expect)) {
        (Ok(values), Ok(c)) => mutation(ep, report, |e| e.set_ctrl(values, c)),
        (Err(r), _) | (_, Err(r)) => refuse_early(report, r),
    }
}

/// `mjb_world_write` with a precondition (`expect` as for `mjb_step_if`; the document is
/// validated first, and nothing is written when the precondition does not hold).
#[no_mangle]
pub unsafe extern "C" fn mjb_world_write_if(
    ep: *mut mjb_endpoint,
    expect: *const mjb_expect,
    json: *const c_char,
    len: usize,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    match (utf8(json, len, "json"), admission(timeout_ms, expect)) {
        (Ok(doc), Ok(c)) => mutation(ep, report, |e| e.world_write(doc, c)),
        (Err(r), _) | (_, Err(r)) => refuse_early(report, r),
    }
}

/// `mjb_endpoint_replace_model` with a precondition (`expect` as for `mjb_step_if`; the model
/// is compiled first and dropped when the precondition does not hold).
#[no_mangle]
pub unsafe extern "C" fn mjb_endpoint_replace_model_if(
    ep: *mut mjb_endpoint,
    expect: *const mjb_expect,
    config_json: *const c_char,
    len: usize,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    match (
        utf8(config_json, len, "config_json"),
        admission(timeout_ms, expect),
    ) {
        (Ok(doc), Ok(c)) => mutation(ep, report, |e| e.replace_model(doc, c)),
        (Err(r), _) | (_, Err(r)) => refuse_early(report, r),
    }
}

/// `mjb_restore` with a precondition (`expect` as for `mjb_step_if`; the document is validated
/// first, and nothing is restored when the precondition does not hold).
#[no_mangle]
pub unsafe extern "C" fn mjb_restore_if(
    ep: *mut mjb_endpoint,
    expect: *const mjb_expect,
    json: *const c_char,
    len: usize,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    match (utf8(json, len, "json"), admission(timeout_ms, expect)) {
        (Ok(doc), Ok(c)) => mutation(ep, report, |e| e.restore(doc, c)),
        (Err(r), _) | (_, Err(r)) => refuse_early(report, r),
    }
}

/// `mjb_checkpoint_read`, and where the endpoint was when it was read: `info` (nullable;
/// zeroed on entry, filled on `MJB_OK`) receives the tick, the model configuration and the
/// last frame's publication number, for a mutation conditional on them (`mjb_expect`)
/// without parsing the document.
#[no_mangle]
pub unsafe extern "C" fn mjb_checkpoint_read_info(
    ep: *mut mjb_endpoint,
    timeout_ms: u32,
    out_string: *mut *mut mjb_string,
    info: *mut mjb_read_info,
) -> mjb_outcome {
    read(ep, out_string, info, |e| e.checkpoint_read_seen(timeout_ms))
}

/// `mjb_world_read` with `info` as for `mjb_checkpoint_read_info`.
#[no_mangle]
pub unsafe extern "C" fn mjb_world_read_info(
    ep: *mut mjb_endpoint,
    timeout_ms: u32,
    out_string: *mut *mut mjb_string,
    info: *mut mjb_read_info,
) -> mjb_outcome {
    read(ep, out_string, info, |e| e.world_read_seen(timeout_ms))
}

/// `mjb_snapshot` with `info` as for `mjb_checkpoint_read_info`.
/// @deprecated Kept, unchanged: use `mjb_world_read_info`, the same call.
#[deprecated(note = "use mjb_world_read_info, the same call")]
#[no_mangle]
pub unsafe extern "C" fn mjb_snapshot_info(
    ep: *mut mjb_endpoint,
    timeout_ms: u32,
    out_string: *mut *mut mjb_string,
    info: *mut mjb_read_info,
) -> mjb_outcome {
    mjb_world_read_info(ep, timeout_ms, out_string, info)
}

// An endpoint handle resolves without a lock: every call looks it up.
handle::handle_kind!(mjb_endpoint => Shared<Endpoint>, ENDPOINT);
