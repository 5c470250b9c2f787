//! Exports of history and rewind (v0.4): an endpoint opened with `"history"` in its config
//! keeps the last ticks (keyframes and every mutation between them), and `mjb_rewind` puts
//! back the exact state of any of them; `mjb_history_export` and `mjb_history_export_window`
//! serve them as a recording. The work is the endpoint's
//! (`crate::endpoint::Endpoint::rewind`).

use super::boundary::{call, mutation, on_endpoint, read, refuse_early};
use super::enums::mjb_outcome;
use super::pointer::{admission, out_param};
use super::string::mjb_string;
use super::types::{mjb_endpoint, mjb_expect, mjb_history_state, mjb_report};
use crate::outcome::Outcome;

/// Rewind to `tick`: restore the exact state the endpoint had at that tick of its own
/// timeline (for a past tick, the state that left it, every input write made at it included;
/// for the newest, the state before the rewind). The nearest keyframe at or before `tick` is
/// installed, the recorded mutations after it re-applied and the engine stepped to `tick`;
/// the state reached must have the recorded state hash.
/// A mutation with the restore's rules: admission (`timeout_ms`), fence (`MJB_FENCED`),
/// admitted while stopped (the stop history and the latch are kept), the native phase of a
/// restore (pre-image, guarded setter, bitwise readback) and its outcomes. A replay that does
/// not reach the recorded state is rolled back to the state before the call and proven
/// (`MJB_ROLLED_BACK`, `MJB_REASON_REPLAY_DIVERGED`); an engine error in it likewise
/// (`MJB_REASON_ENGINE_ERROR`), and a stop latched after the call was admitted (any
/// `mjb_stop`, also on an endpoint stopped before), which halts the replay at the next engine
/// step (`MJB_REASON_STOP_LATCHED`); the history is then as it was. Until the next mutation, the ticks after `tick` are
/// kept, so a host can rewind back and forth; the next mutation starts a new branch there.
/// Refused (`MJB_REJECTED`, `MJB_REASON_OUT_OF_RANGE`, nothing changed): an endpoint without
/// `"history"`, a tick outside the window (the message names it; `mjb_history_info` reads it).
/// `report`: nullable. `ep`: a live handle; NULL, closed or foreign handles return
/// `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_rewind(
    ep: *mut mjb_endpoint,
    tick: u64,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    mjb_rewind_if(ep, std::ptr::null(), tick, timeout_ms, report)
}

/// `mjb_rewind` with a precondition (`expect` as for `mjb_step_if`; nothing is restored when
/// it does not hold).
#[no_mangle]
pub unsafe extern "C" fn mjb_rewind_if(
    ep: *mut mjb_endpoint,
    expect: *const mjb_expect,
    tick: u64,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    match admission(timeout_ms, expect) {
        Ok(c) => mutation(ep, report, |e| e.rewind(tick, c)),
        Err(r) => refuse_early(report, r),
    }
}

/// What the endpoint's flight recorder holds: the oldest and newest tick `mjb_rewind`
/// reaches, the keyframes and the bytes, into `info` (must not be NULL; zeroed on entry,
/// filled on `MJB_OK`), as the last mutation left them. Takes no lock; any thread; works on a
/// fenced endpoint. Refused (`MJB_REJECTED`, `MJB_REASON_OUT_OF_RANGE`) on an endpoint
/// without `"history"`. `ep`: a live handle; NULL, closed or foreign handles return
/// `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_history_info(
    ep: *mut mjb_endpoint,
    info: *mut mjb_history_state,
) -> mjb_outcome {
    call(|| {
        let info = out_param(info, Default::default(), "info")?;
        *info = on_endpoint(ep, |e| e.history_info())?.into();
        Ok(Outcome::Ok)
    })
}

/// Export ticks `from_tick..=to_tick` of the history window as a recording document
/// (`mjbridge_recording_v1`, strict JSON; see docs/contract.md, "History and rewind"):
/// the checkpoint of the last keyframe at or before `from_tick` (the recording starts there,
/// exactly: no replay is needed to write it), every input write and discontinuity (restore,
/// restore-point apply, with its checkpoint) after it up to `to_tick` with its tick, the state
/// hash (XXH3-64) of every tick from the keyframe's to `to_tick` and each keyframe's, the
/// engine, the model fingerprint, the descriptor and the profile; `mjbridge replay` re-executes
/// and verifies it. `to_tick` = `UINT64_MAX`: the newest tick (the whole window, its oldest
/// tick decided under the lock: `mjb_history_export_window`). A read under the native lock
/// (`timeout_ms` as for `mjb_checkpoint_read`): it changes nothing and works on a fenced or
/// stopped endpoint (after a stop, steps are refused, so the history ends at the stop).
/// On `MJB_OK`, `*out_string` is a new string the caller frees with `mjb_string_free`
/// (ownership as for `mjb_checkpoint_read`). Refused (`MJB_REJECTED`,
/// `MJB_REASON_OUT_OF_RANGE`, nothing changed; the message names the window): an endpoint
/// without `"history"`, `from_tick > to_tick`, a tick outside the window.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_history_export(
    ep: *mut mjb_endpoint,
    from_tick: u64,
    to_tick: u64,
    timeout_ms: u32,
    out_string: *mut *mut mjb_string,
) -> mjb_outcome {
    read(ep, out_string, std::ptr::null_mut(), |e| {
        let text = e.history_export(from_tick, to_tick, timeout_ms)?;
        Ok((text, Default::default()))
    })
}

/// Export the whole history window as a recording document, as `mjb_history_export` does for
/// the ticks from the window's oldest to its newest, both read under the native lock the
/// export holds: a thread that steps meanwhile cannot slide the window between them (unlike
/// `mjb_history_info` then `mjb_history_export(oldest_tick, UINT64_MAX)`, whose oldest tick
/// a step in between can drop: refused, `MJB_REASON_OUT_OF_RANGE`). A read under the native
/// lock (`timeout_ms` as for `mjb_checkpoint_read`): it changes nothing and works on a fenced
/// or stopped endpoint; any thread. On `MJB_OK`, `*out_string` (must not be NULL; set to NULL
/// on entry) is a new string the caller frees with `mjb_string_free`. Refused (`MJB_REJECTED`,
/// `MJB_REASON_OUT_OF_RANGE`, nothing changed): an endpoint without `"history"`, or one that
/// has recorded nothing yet (no mutation since it was opened, its model replaced or its
/// history started again). `ep`: a live handle; NULL, closed or foreign handles return
/// `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_history_export_window(
    ep: *mut mjb_endpoint,
    timeout_ms: u32,
    out_string: *mut *mut mjb_string,
) -> mjb_outcome {
    read(ep, out_string, std::ptr::null_mut(), |e| {
        let text = e.history_export_window(timeout_ms)?;
        Ok((text, Default::default()))
    })
}
