//! Admission: the native lock with a deadline (in arrival order, [`super::lock`]), the fence
//! before and after it, the order of admitted calls, work in flight, and the safety
//! acknowledgements (which never take the lock).

use super::lock::Guard;
use super::{Answer, Endpoint, Native, Shape, WAIT_FOREVER};
use crate::outcome::{Outcome, Reason, Refusal};
use crate::panics::Fence;
use crate::safety::{InFlight, SafetyView};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How a mutation is admitted: its deadline, and where the endpoint must still be when it is
/// (a compare-and-step: refused with `MJB_REASON_PRECONDITION` when another call moved it on).
/// A bare `u32` is a deadline alone: `ep.step(1, WAIT_FOREVER)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    pub timeout_ms: u32,
    pub expect: Expect,
}

/// Where the caller expects the endpoint to be (each member checked when set).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Expect {
    /// The tick the caller saw (a frame's, a read's, a report's `tick_after`).
    pub tick: Option<u64>,
    /// The model configuration the caller saw (bumped by each model replacement).
    pub configuration: Option<u64>,
    /// The publication number of the last frame the caller saw (bumped by every change).
    pub frame: Option<u64>,
}

impl From<u32> for Call {
    fn from(timeout_ms: u32) -> Call {
        Call {
            timeout_ms,
            expect: Expect::default(),
        }
    }
}

impl Expect {
    /// The refusal when the endpoint is not where the caller expects it (a call that expects
    /// nothing, nearly every one, is answered here without a call).
    #[inline]
    fn refusal(&self, tick: u64, configuration: u64, frame: u64) -> Option<Refusal> {
        if *self == Expect::default() {
            return None;
        }
        self.mismatch(tick, configuration, frame)
    }

    #[cold]
    fn mismatch(&self, tick: u64, configuration: u64, frame: u64) -> Option<Refusal> {
        let mut wrong = Vec::new();
        if let Some(t) = self.tick.filter(|t| *t != tick) {
            wrong.push(format!("the tick is {tick}, not the expected {t}"));
        }
        if let Some(c) = self.configuration.filter(|c| *c != configuration) {
            wrong.push(format!(
                "the model configuration is {configuration}, not the expected {c}"
            ));
        }
        if let Some(f) = self.frame.filter(|f| *f != frame) {
            wrong.push(format!(
                "the last frame is number {frame}, not the expected {f}"
            ));
        }
        (!wrong.is_empty()).then(|| {
            Refusal::rejected(
                Reason::Precondition,
                format!(
                    "{}: another call moved the endpoint on first; nothing was done",
                    wrong.join(" and ")
                ),
            )
        })
    }
}

/// The refusal of a call on an endpoint fenced for `reason` (out of line, as every rare
/// answer of the step's path: see `endpoint/step.rs`).
#[cold]
fn fenced(reason: Reason) -> Refusal {
    Refusal::new(
        Outcome::Fenced,
        reason,
        format!(
            "the endpoint is fenced ({}); only reads, stop and free work",
            reason.name()
        ),
    )
}

/// The refusal when the native lock was not free within `timeout_ms`.
#[cold]
fn busy(timeout_ms: u32) -> Refusal {
    Refusal::rejected(
        Reason::Busy,
        format!("the native lock was not free within {timeout_ms} ms; nothing was done"),
    )
}

impl Endpoint {
    /// Take the native lock within `timeout_ms` (`0` tries once, [`WAIT_FOREVER`] waits).
    pub(super) fn admit(&self, timeout_ms: u32) -> Result<Guard<'_, Native>, Refusal> {
        let guard = match timeout_ms {
            WAIT_FOREVER => self.native.lock_until(None),
            0 => self.native.try_lock(),
            ms => {
                let deadline = Instant::now() + Duration::from_millis(u64::from(ms));
                self.native.lock_until(Some(deadline))
            }
        };
        guard.ok_or_else(|| busy(timeout_ms))
    }

    pub(super) fn fenced_refusal(&self) -> Option<Refusal> {
        self.safety.fenced().map(fenced)
    }

    /// The common frame of every mutation: fence, admission, fence again, the admission
    /// sequence, work in flight; then `f`, the native phase.
    pub(super) fn mutate(
        &self,
        call: Call,
        f: impl FnOnce(&mut Native, &InFlight) -> Answer,
    ) -> Answer {
        let tick = || self.safety.view_tick();
        if let Some(r) = self.fenced_refusal() {
            return Answer::refused(r, tick(), tick());
        }
        let mut native = match self.admit(call.timeout_ms) {
            Ok(g) => g,
            Err(r) => return Answer::refused(r, tick(), tick()),
        };
        if let Some(r) = self.fenced_refusal() {
            return Answer::refused(r, native.tick, native.tick);
        }
        native.admitted += 1;
        let sequence = native.admitted;
        if let Some(r) = call.expect.refusal(
            native.tick,
            native.shape.configuration,
            native.writer.published(),
        ) {
            let mut a = Answer::refused(r, native.tick, native.tick);
            a.report.sequence = sequence;
            return a;
        }
        let work = self.safety.begin_work();
        // A panic from here on fences the endpoint before the lock passes on.
        let phase = Fence::native_phase(
            &self.safety,
            crate::panics::Site {
                tick_before: native.tick,
                tick_after: native.tick,
                sequence,
            },
        );
        let mut answer = f(&mut native, &work);
        self.publish_history(&native);
        drop(phase);
        answer.report.sequence = sequence;
        answer
    }

    /// Fence the endpoint and answer `MJB_UNKNOWN`.
    pub(super) fn unknown(
        &self,
        reason: Reason,
        message: String,
        before: u64,
        after: u64,
    ) -> Answer {
        self.safety.fence(reason);
        Answer::refused(
            Refusal::new(Outcome::Unknown, reason, message),
            before,
            after,
        )
    }

    /// Arm the panic fence for a call on this endpoint ([`Fence`] decides what a panic
    /// fences); the C boundary holds it for every call.
    pub(crate) fn fence_on_panic(&self) -> Fence<'_> {
        Fence::call(&self.safety)
    }

    /// Latch a stop (never waits for the native lock); the safety state right after.
    pub fn stop(&self) -> SafetyView {
        self.safety.stop()
    }

    /// The safety state: latch, confirmation, stop history, work in flight, fence.
    pub fn safety_view(&self) -> SafetyView {
        self.safety.view()
    }

    /// The tick last published by the holder of the native lock (no lock).
    pub fn tick(&self) -> u64 {
        self.safety.view_tick()
    }

    pub fn confirm_paused(&self) -> Result<(), Refusal> {
        self.check_acknowledgeable()
    }

    pub fn safety_reset(&self) -> Result<(), Refusal> {
        self.check_acknowledgeable()?;
        self.safety.clear_latch();
        Ok(())
    }

    fn check_acknowledgeable(&self) -> Result<(), Refusal> {
        if let Some(r) = self.fenced_refusal() {
            return Err(r);
        }
        self.safety.check_acknowledgeable().map_err(|reason| {
            Refusal::rejected(
                reason,
                match reason {
                    Reason::NotStopped => "the endpoint is not stopped",
                    _ => "native work is still in flight; the pause is not confirmed",
                },
            )
        })
    }
}

/// A call checked against the model `checked` is refused when the model was replaced between
/// the check and admission (`what` waited: "the document", "the inputs").
pub(super) fn replaced_meanwhile(n: &Native, checked: &Arc<Shape>, what: &str) -> Option<Refusal> {
    (!Arc::ptr_eq(&n.shape, checked)).then(|| {
        Refusal::rejected(
            Reason::Configuration,
            format!(
                "the model was replaced (configuration {} -> {}) while {what} waited; nothing was done",
                checked.configuration, n.shape.configuration
            ),
        )
    })
}
