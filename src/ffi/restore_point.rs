//! Exports of restore points: verified in-memory checkpoints for hosts that restore often
//! (planners, tree search, resets, an editor's rewind). Arguments are translated at the
//! boundary; the work is the endpoint's ([`crate::endpoint::RestorePoint`]).

use super::boundary::{call, mutation, on_endpoint, refuse_early};
use super::enums::mjb_outcome;
use super::handle::{self, resolve};
use super::pointer::{admission, out_param, out_zeroed, utf8};
use super::string::{mjb_string, new_string};
use super::types::{mjb_endpoint, mjb_expect, mjb_read_info, mjb_report, mjb_restore_point};
use crate::endpoint::RestorePoint;
use crate::outcome::{Outcome, Refusal};
use std::os::raw::c_char;
use std::sync::Arc;

/// A handle for a new restore point, in its endpoint's shard: planners on different threads,
/// each with its own endpoint, capture and free without contending.
fn issue(rp: Arc<RestorePoint>) -> Result<*mut mjb_restore_point, Refusal> {
    handle::issue(rp.endpoint(), rp)
}

/// Capture a restore point: under the native lock, the complete state the endpoint's profile
/// restores (`mujoco_integration_v1`: the `mjSTATE_INTEGRATION` vector; `mujoco_basic_v1`:
/// time, qpos, qvel, act, ctrl) and the tick, stamped with the endpoint and its model
/// configuration. No JSON is printed.
/// `out`: must not be NULL; NULL on entry, on `MJB_OK` a new restore point the caller owns and
/// frees with `mjb_restore_point_free`. A restore point is immutable: it may be applied (to
/// this endpoint) and read from any thread, concurrently.
/// Takes the native lock (admission bounded by `timeout_ms`). Works on fenced endpoints.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_restore_point_capture(
    ep: *mut mjb_endpoint,
    timeout_ms: u32,
    out: *mut *mut mjb_restore_point,
) -> mjb_outcome {
    call(|| {
        let out = out_param(out, std::ptr::null_mut(), "out")?;
        let rp = on_endpoint(ep, |e| e.capture(timeout_ms))?;
        *out = issue(rp)?;
        Ok(Outcome::Ok)
    })
}

/// Restore a restore point: exactly what `mjb_restore` does once a document is validated,
/// without the document. The same admission (`timeout_ms`), fence (`MJB_FENCED`), stop rules
/// (admitted while stopped; the stop history and the latch are kept) and outcomes; then, under
/// the native lock, the restore native phase: pre-image, guarded `mj_setState`, bitwise
/// readback, tick, a frame; a failed setter or readback rolled back and proven
/// (`MJB_ROLLED_BACK`) or the endpoint fenced (`MJB_UNKNOWN`).
/// Refused (`MJB_REJECTED`, nothing changed): a restore point of another endpoint
/// (`MJB_REASON_OTHER_ENDPOINT`) or of an older model configuration
/// (`MJB_REASON_CONFIGURATION`). `rp`: borrowed; NULL, freed or foreign handles are
/// `MJB_INVALID_ARGUMENT`. `report`: nullable.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_restore_point_apply(
    ep: *mut mjb_endpoint,
    rp: *const mjb_restore_point,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    mjb_restore_point_apply_if(ep, std::ptr::null(), rp, timeout_ms, report)
}

/// `mjb_restore_point_apply` with a precondition (`expect` as for `mjb_step_if`; nothing is
/// restored when it does not hold).
#[no_mangle]
pub unsafe extern "C" fn mjb_restore_point_apply_if(
    ep: *mut mjb_endpoint,
    expect: *const mjb_expect,
    rp: *const mjb_restore_point,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    match (resolve(rp), admission(timeout_ms, expect)) {
        (Ok(rp), Ok(c)) => mutation(ep, report, |e| e.apply(&rp, c)),
        (Err(r), _) | (_, Err(r)) => refuse_early(report, r),
    }
}

/// The checkpoint document of a restore point: byte for byte what `mjb_checkpoint_read`
/// returned (or would have returned) at the capture; for one read from JSON, the checkpoint
/// of the state that document restores. `out_string`: must not be NULL; NULL on entry, on
/// `MJB_OK` a new string the caller frees with `mjb_string_free`. `rp`: borrowed; NULL,
/// freed or foreign handles are `MJB_INVALID_ARGUMENT`. Takes no lock. Any thread.
#[no_mangle]
pub unsafe extern "C" fn mjb_restore_point_to_json(
    rp: *const mjb_restore_point,
    out_string: *mut *mut mjb_string,
) -> mjb_outcome {
    call(|| {
        let out = out_param(out_string, std::ptr::null_mut(), "out_string")?;
        let text = resolve(rp)?.to_json()?;
        *out = new_string(text)?;
        Ok(Outcome::Ok)
    })
}

/// A restore point from a checkpoint or world document (`json`/`len`, borrowed), validated
/// exactly as `mjb_restore` validates it (same refusals, reasons and JSON pointers), restoring
/// nothing: load a saved state once, apply it many times. It belongs to this endpoint and its
/// current model configuration. `out`: must not be NULL; NULL on entry, on `MJB_OK` a new
/// restore point the caller frees with `mjb_restore_point_free`. Takes no lock.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_restore_point_from_json(
    ep: *mut mjb_endpoint,
    json: *const c_char,
    len: usize,
    out: *mut *mut mjb_restore_point,
) -> mjb_outcome {
    call(|| {
        let out = out_param(out, std::ptr::null_mut(), "out")?;
        let doc = utf8(json, len, "json")?;
        let rp = on_endpoint(ep, |e| e.restore_point_from(doc))?;
        *out = issue(rp)?;
        Ok(Outcome::Ok)
    })
}

/// What a restore point restores: its tick and the model configuration it belongs to, into
/// `info` (must not be NULL; zeroed on entry, filled on `MJB_OK`). `rp`: borrowed; NULL, freed
/// or foreign handles are `MJB_INVALID_ARGUMENT`. Takes no lock. Any thread.
#[no_mangle]
pub unsafe extern "C" fn mjb_restore_point_info(
    rp: *const mjb_restore_point,
    info: *mut mjb_read_info,
) -> mjb_outcome {
    call(|| {
        let info = out_zeroed(info, "info")?;
        let rp = resolve(rp)?;
        *info = mjb_read_info {
            tick: rp.tick(),
            configuration: rp.configuration(),
            frame: 0,
        };
        Ok(Outcome::Ok)
    })
}

/// Free a restore point. NULL is a no-op (`MJB_OK`); a restore point freed before, or not made
/// by this library, is `MJB_INVALID_ARGUMENT` (never undefined behaviour). Freeing while
/// another thread applies it is safe: that call finishes with it. Any thread.
#[no_mangle]
pub unsafe extern "C" fn mjb_restore_point_free(rp: *mut mjb_restore_point) -> mjb_outcome {
    call(|| {
        if let Some(removed) = handle::free(rp)? {
            // Outside the table's lock: back to its endpoint for the next capture, or dropped.
            crate::endpoint::recycle_restore_point(removed);
        }
        Ok(Outcome::Ok)
    })
}

// Restore points are made and freed as often as they are used: a cheap insertion and removal.
handle::handle_kind!(mjb_restore_point => Owned<RestorePoint>, RESTORE_POINT);
