//! Admission: the native lock with a deadline, the fence before and after it, the order of
//! admitted calls, work in flight, and the safety acknowledgements (which never take the lock).

use super::{Answer, Endpoint, Native, Shape, WAIT_FOREVER};
use crate::outcome::{Outcome, Reason, Refusal};
use crate::safety::{InFlight, SafetyView};
use parking_lot::MutexGuard;
use std::sync::Arc;
use std::time::Duration;

/// While a mutation's native phase runs: if it panics, the endpoint is fenced here, where the
/// admission tick and sequence are known, and they are kept for the report the C boundary
/// writes when it catches the panic ([`crate::panics::Site`]).
struct NativePhase<'a> {
    ep: &'a Endpoint,
    site: crate::panics::Site,
}

impl Drop for NativePhase<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.ep.safety.fence(Reason::MJB_REASON_PANIC);
            self.site.tick_after = self.ep.safety.view_tick();
            crate::panics::unwound_at(self.site);
        }
    }
}

impl Endpoint {
    /// Take the native lock within `timeout_ms` (`0` tries once, [`WAIT_FOREVER`] waits).
    pub(super) fn admit(&self, timeout_ms: u32) -> Result<MutexGuard<'_, Native>, Refusal> {
        let guard = match timeout_ms {
            WAIT_FOREVER => Some(self.native.lock()),
            0 => self.native.try_lock(),
            ms => self
                .native
                .try_lock_for(Duration::from_millis(u64::from(ms))),
        };
        guard.ok_or_else(|| {
            Refusal::rejected(
                Reason::MJB_REASON_BUSY,
                format!("the native lock was not free within {timeout_ms} ms; nothing was done"),
            )
        })
    }

    pub(super) fn fenced_refusal(&self) -> Option<Refusal> {
        self.safety.fenced().map(|r| {
            Refusal::new(
                Outcome::MJB_FENCED,
                r,
                format!(
                    "the endpoint is fenced ({}); only reads, stop and free work",
                    r.name()
                ),
            )
        })
    }

    /// The common frame of every mutation: fence, admission, fence again, the admission
    /// sequence, work in flight; then `f`, the native phase.
    pub(super) fn mutate(
        &self,
        timeout_ms: u32,
        f: impl FnOnce(&mut Native, &InFlight) -> Answer,
    ) -> Answer {
        let tick = || self.safety.view_tick();
        if let Some(r) = self.fenced_refusal() {
            return Answer::refused(r, tick(), tick());
        }
        let mut native = match self.admit(timeout_ms) {
            Ok(g) => g,
            Err(r) => return Answer::refused(r, tick(), tick()),
        };
        if let Some(r) = self.fenced_refusal() {
            return Answer::refused(r, native.tick, native.tick);
        }
        native.admitted += 1;
        let sequence = native.admitted;
        let work = self.safety.begin_work();
        let phase = NativePhase {
            ep: self,
            site: crate::panics::Site {
                tick_before: native.tick,
                tick_after: native.tick,
                sequence,
            },
        };
        let mut answer = f(&mut native, &work);
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
            Refusal::new(Outcome::MJB_UNKNOWN, reason, message),
            before,
            after,
        )
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
                    Reason::MJB_REASON_NOT_STOPPED => "the endpoint is not stopped",
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
            Reason::MJB_REASON_CONFIGURATION,
            format!(
                "the model was replaced (configuration {} -> {}) while {what} waited; nothing was done",
                checked.configuration, n.shape.configuration
            ),
        )
    })
}
