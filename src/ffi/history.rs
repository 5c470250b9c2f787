//! Exports of history and rewind (v0.4): an endpoint opened with `"history"` in its config
//! keeps the last ticks (keyframes and every mutation between them), and `mjb_rewind` puts
//! back the exact state of any of them. The work is the endpoint's
//! (`crate::endpoint::Endpoint::rewind`).

use super::boundary::{call, mutation, on_endpoint, refuse_early};
use super::enums::mjb_outcome;
use super::pointer::{admission, out_param};
use super::types::{mjb_endpoint, mjb_expect, mjb_history_state, mjb_report};
use crate::outcome::Outcome;

/// Rewind to `tick`: restore the exact state the endpoint had at that tick of its own
/// timeline (for a past tick, the state that left it, every input write made at it included;
/// for the newest, the state before the rewind). The nearest keyframe at or before `tick` is
/// installed, the recorded mutations after it re-applied and the engine stepped to `tick`;
/// the state reached must have the recorded state hash.
/// A mutation with the restore's rules: admission (`timeout_ms`), fence (`MJB_FENCED`),
/// admitted while stopped (the stop history and the latch are kept; the replay runs to its
/// end), the native phase of a restore (pre-image, guarded setter, bitwise readback) and its
/// outcomes. A replay that does not reach the recorded state is rolled back to the state before
/// the call and proven (`MJB_ROLLED_BACK`, `MJB_REASON_REPLAY_DIVERGED`); an engine error in it
/// likewise (`MJB_REASON_ENGINE_ERROR`). Until the next mutation, the ticks after `tick` are
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
