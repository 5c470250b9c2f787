//! The C ABI of a host's inner loop in one call: write inputs, step, read the frame. Built from
//! the exports it combines (`mjb_write_step`, then the frame read of `mjb_frame_read_many`), so
//! its effects, refusals and reports are theirs; what it adds is that the frame buffers are
//! checked before anything is written, and one crossing of the boundary instead of two.

use super::boundary::{call, null_refusal, on_endpoint, set_last_error};
use super::host::{mjb_frame_info, mjb_frame_read_many, mjb_frame_request, mjb_input};
use super::{mjb_endpoint, mjb_report, report_refusal, zero};
use crate::native::fields::Field;
use crate::outcome::{mjb_outcome, Outcome, Reason, Refusal};

/// At most this many frame requests in one call (as for `mjb_frame_read_many`).
const MAX_REQUESTS: usize = 64;

fn out_of_range(what: String) -> Refusal {
    Refusal::new(
        Outcome::MJB_INVALID_ARGUMENT,
        Reason::MJB_REASON_OUT_OF_RANGE,
        what,
    )
}

/// Check every request against the endpoint's frame selection, as `mjb_frame_read_many` would,
/// before any native effect: a request that cannot be served refuses the whole call.
///
/// # Safety
/// `requests` is NULL or valid for `n` requests.
unsafe fn check_requests(
    ep: *mut mjb_endpoint,
    requests: *mut mjb_frame_request,
    n: usize,
) -> Result<(), Refusal> {
    if n == 0 {
        return on_endpoint(ep, |_| Ok(()));
    }
    if requests.is_null() {
        return Err(null_refusal("requests"));
    }
    if n > MAX_REQUESTS {
        return Err(out_of_range(format!(
            "{n} requests; at most {MAX_REQUESTS}"
        )));
    }
    let reqs = std::slice::from_raw_parts_mut(requests, n);
    for r in reqs.iter_mut() {
        r.written = 0;
    }
    on_endpoint(ep, |e| {
        let view = e.frames().view();
        for (k, r) in reqs.iter().enumerate() {
            let f = Field::from_i32(r.field).ok_or_else(|| {
                out_of_range(format!("{} is not an mjb_field", r.field))
                    .at(format!("/requests/{k}/field"))
            })?;
            let len = view.field_len(f).ok_or_else(|| {
                Refusal::rejected(
                    Reason::MJB_REASON_NOT_IN_FRAME,
                    format!(
                        "{} is not published: the endpoint's \"frame\" selection does not list it",
                        f.name()
                    ),
                )
                .at(format!("/requests/{k}/field"))
            })?;
            if r.cap < len {
                return Err(Refusal::rejected(
                    Reason::MJB_REASON_DIMENSION,
                    format!("{} has {len} values; the buffer holds {}", f.name(), r.cap),
                )
                .at(format!("/requests/{k}/cap")));
            }
            if r.buf.is_null() && r.cap != 0 {
                return Err(null_refusal("requests[].buf"));
            }
            if r.cap > isize::MAX as usize / std::mem::size_of::<f64>() {
                return Err(out_of_range(format!(
                    "requests[{k}].cap: {} doubles is larger than any array",
                    r.cap
                )));
            }
        }
        Ok(())
    })
}

/// One step of a host loop in one call: write `ninputs` typed inputs and step up to `nstep`
/// times exactly as `mjb_write_step` does (same checks, refusals, stop latch, rollback, report),
/// then copy fields of the latest frame into the caller's buffers exactly as
/// `mjb_frame_read_many` does.
///
/// `inputs`: as for `mjb_write_step` (borrowed; NULL only with `ninputs` 0). `requests`: `n`
/// caller-owned requests (NULL only with `nrequests` 0; at most 64), each `written` zeroed on
/// entry. Every request is checked before anything is written: a field outside the endpoint's
/// frame selection (`MJB_REASON_NOT_IN_FRAME`, pointer `/requests/<k>/field`) or a `cap` smaller
/// than the field (`MJB_REASON_DIMENSION`, `/requests/<k>/cap`) refuses the call with no effect.
/// `info` (nullable) is zeroed on entry. `report` (nullable) is written on every outcome, as for
/// `mjb_write_step`.
/// The frame is read only when the step part returns `MJB_OK` (also a step halted by a stop,
/// `MJB_REASON_STOP_LATCHED`); after any other outcome the buffers are untouched, `written` and
/// `info` stay zero. The frame read is the latest complete one, without the lock: this call's
/// last frame unless another thread mutated the endpoint in between (`info->tick` and
/// `info->frame` tell). If another thread replaced the model in between and a buffer no longer
/// fits, the call still returns the step's `MJB_OK` with `info->frame` 0 (nothing read) and
/// `mjb_last_error` names the reason.
/// Takes the native lock once (admission bounded by `timeout_ms`), for the write and the steps;
/// the frame read takes no lock. Any thread.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn mjb_write_step_read(
    ep: *mut mjb_endpoint,
    inputs: *const mjb_input,
    ninputs: usize,
    nstep: u32,
    timeout_ms: u32,
    requests: *mut mjb_frame_request,
    nrequests: usize,
    info: *mut mjb_frame_info,
    report: *mut mjb_report,
) -> mjb_outcome {
    call(|| {
        zero(info);
        if let Err(r) = check_requests(ep, requests, nrequests) {
            zero(report);
            report_refusal(report, &r);
            return Err(r);
        }
        // The step part is the export itself: it records its own refusal and log events, which
        // this call passes on unchanged (returning its outcome as a success of this body).
        let stepped = super::host::mjb_write_step(ep, inputs, ninputs, nstep, timeout_ms, report);
        if stepped != Outcome::MJB_OK {
            return Ok(stepped);
        }
        // An OK with a reason (a stop halted the steps, an engine reset) is the step's detail:
        // keep it over the read's.
        let kept = super::boundary::last_error();
        let read = mjb_frame_read_many(ep, requests, nrequests, info);
        match (read, kept) {
            (Outcome::MJB_OK, Some(k)) => set_last_error(k),
            (Outcome::MJB_OK, None) => {}
            (_, kept) => {
                let why = super::boundary::last_error()
                    .map(|r| (r.reason, r.message))
                    .unwrap_or((Reason::MJB_REASON_NONE, String::new()));
                zero(info);
                let step = kept.map(|k| format!(" (step: {})", k.message));
                set_last_error(Refusal::new(
                    Outcome::MJB_OK,
                    why.0,
                    format!(
                        "stepped, but the frame was not read: {}{}",
                        why.1,
                        step.unwrap_or_default()
                    ),
                ));
            }
        }
        Ok(Outcome::MJB_OK)
    })
}
