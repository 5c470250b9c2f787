//! The outcome of a call on an endpoint: what a mutation did ([`Report`]) and, when it did not
//! simply succeed, why ([`Answer::detail`], for `mjb_last_error`).

use crate::outcome::{Outcome, Reason, Refusal};

/// What a mutation did: the outcome, its reason, and the tick before and after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Report {
    pub outcome: Outcome,
    pub reason: Reason,
    pub tick_before: u64,
    pub tick_after: u64,
    /// Engine auto-resets (NaN/Inf in qpos/qvel/qacc) seen during the call.
    pub engine_resets: u64,
    /// The endpoint's admission counter for this call (1, 2, ... in lock order), 0 when the
    /// call was not admitted.
    pub sequence: u64,
}

/// A report plus, when the call did not simply succeed, the detail for `mjb_last_error`.
#[derive(Clone, Debug)]
pub struct Answer {
    pub report: Report,
    pub detail: Option<Refusal>,
}

impl Answer {
    pub(super) fn ok(tick_before: u64, tick_after: u64) -> Self {
        Answer {
            report: Report {
                outcome: Outcome::Ok,
                reason: Reason::None,
                tick_before,
                tick_after,
                engine_resets: 0,
                sequence: 0,
            },
            detail: None,
        }
    }

    /// A refusal before admission, at the endpoint's last published tick.
    pub fn refused_at(r: Refusal, tick: u64) -> Self {
        Self::refused(r, tick, tick)
    }

    pub(super) fn refused(r: Refusal, tick_before: u64, tick_after: u64) -> Self {
        Answer {
            report: Report {
                outcome: r.outcome,
                reason: r.reason,
                tick_before,
                tick_after,
                engine_resets: 0,
                sequence: 0,
            },
            detail: Some(r),
        }
    }
}
