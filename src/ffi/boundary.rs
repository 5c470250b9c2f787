//! The boundary: the crate's only `catch_unwind`, and the wrappers every export's body runs
//! in. [`call`] (with [`mutation`], [`refuse_early`] and [`read`] on top of it) clears the
//! thread's last error, catches unwinding, records a refusal and delivers queued log events;
//! [`guard`] serves the few exports that return no `mjb_outcome`, and [`from_c`] the Rust
//! functions C calls back (a panic must never unwind into C).
//!
//! What a panic fences is decided in one place, [`crate::panics::Fence`]: [`on_endpoint`]
//! arms it for the whole call on an endpoint; a mutation's native phase arms it too, so that
//! the endpoint is fenced before the native lock passes on, with the ticks and sequence that
//! [`mutation`] reports.

use super::enums::mjb_outcome;
use super::handle::resolve;
use super::last_error;
use super::pointer::{out_param, zeroed};
use super::{mjb_endpoint, mjb_read_info, mjb_report, mjb_string};
use crate::endpoint::{Answer, Endpoint, Seen};
use crate::outcome::{Outcome, Reason, Refusal};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The one place unwinding is caught: a panic becomes an `MJB_PANIC` refusal, after
/// `on_panic` saw where it happened (the native phase it interrupted, if any).
fn catch<T>(
    f: impl FnOnce() -> Result<T, Refusal>,
    on_panic: impl FnOnce(Option<crate::panics::Site>),
) -> Result<T, Refusal> {
    let _inside = crate::panics::enter();
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        on_panic(crate::panics::take_site());
        Err(crate::panics::refusal(p))
    })
}

/// Run an export that returns no outcome (a pointer, a length): a panic gives `fallback`.
pub fn guard<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    catch(|| Ok(f()), |_| {}).unwrap_or(fallback)
}

/// Run a Rust function that C calls (MuJoCo's log sink): a panic is caught and dropped, as
/// it must not unwind into C.
pub(crate) fn from_c(f: impl FnOnce()) {
    let _ = catch(
        || {
            f();
            Ok(())
        },
        |_| {},
    );
}

/// Run an export's body: a panic becomes `MJB_PANIC`, a refusal is recorded for
/// `mjb_last_error` and its outcome returned. The thread's last error describes this call
/// only: it is cleared on entry, so a success leaves `{}`. Log events the call queued are
/// delivered to the host's callback on the way out, outside every lock. The outcome becomes
/// its C form here.
pub fn call(f: impl FnOnce() -> Result<Outcome, Refusal>) -> mjb_outcome {
    run(f, |_| {}).into()
}

fn run(
    f: impl FnOnce() -> Result<Outcome, Refusal>,
    on_panic: impl FnOnce(Option<crate::panics::Site>),
) -> Outcome {
    last_error::take();
    let o = match catch(f, on_panic) {
        Ok(o) => o,
        Err(refusal) => {
            crate::host::event_for(&refusal);
            let o = refusal.outcome;
            last_error::set(refusal);
            o
        }
    };
    if crate::host::pending() {
        // The callback may call the bridge; this call's last error must survive that.
        let kept = last_error::get();
        let _ = catch(
            || {
                crate::host::flush();
                Ok(())
            },
            |_| {},
        );
        last_error::restore(kept);
    }
    o
}

/// Run `f` on a live endpoint; a panic inside fences it.
pub fn on_endpoint<T>(
    ep: *mut mjb_endpoint,
    f: impl FnOnce(&Endpoint) -> Result<T, Refusal>,
) -> Result<T, Refusal> {
    let e = resolve(ep)?;
    let _fence = e.fence_on_panic();
    f(&e)
}

/// Finish a mutation: write the report, record the detail, return the outcome.
fn answer(a: Answer, report: Option<&mut mjb_report>) -> Result<Outcome, Refusal> {
    if let Some(rep) = report {
        *rep = a.report.into();
    }
    if let Some(d) = a.detail {
        if d.outcome != Outcome::Ok {
            return Err(d);
        }
        crate::host::event_for(&d);
        last_error::set(d);
    }
    Ok(a.report.outcome)
}

/// Run a mutation export: the report (nullable) is zeroed on entry and written on every
/// outcome, also for a refusal before the endpoint was reached and for a caught panic (with
/// the ticks and sequence of the native phase it interrupted).
///
/// # Safety
/// `report` is NULL or valid for writes.
pub unsafe fn mutation(
    ep: *mut mjb_endpoint,
    report: *mut mjb_report,
    f: impl FnOnce(&Endpoint) -> Answer,
) -> mjb_outcome {
    let body = || {
        zeroed(report);
        match on_endpoint(ep, |e| Ok(f(e))) {
            Ok(a) => answer(a, report.as_mut()),
            Err(r) => {
                if let Some(rep) = report.as_mut() {
                    rep.outcome = r.outcome as i32;
                    rep.reason = r.reason as i32;
                }
                Err(r)
            }
        }
    };
    run(body, |site| {
        if let Some(rep) = report.as_mut() {
            rep.outcome = Outcome::Panic as i32;
            rep.reason = Reason::Panic as i32;
            if let Some(s) = site {
                rep.tick_before = s.tick_before;
                rep.tick_after = s.tick_after;
                rep.sequence = s.sequence;
            }
        }
    })
    .into()
}

/// Refuse a mutation before the endpoint is looked at (a bad pointer or slice), still
/// filling the report.
///
/// # Safety
/// `report` is NULL or valid for writes.
pub unsafe fn refuse_early(report: *mut mjb_report, r: Refusal) -> mjb_outcome {
    call(|| {
        if let Some(rep) = zeroed(report) {
            rep.outcome = r.outcome as i32;
            rep.reason = r.reason as i32;
        }
        Err(r)
    })
}

/// Run a document-producing export into a library-owned string, with where the endpoint was
/// (`info`, nullable, zeroed on entry, written on `MJB_OK`).
///
/// # Safety
/// `out_string` and `info` are NULL or valid for writes.
pub unsafe fn read(
    ep: *mut mjb_endpoint,
    out_string: *mut *mut mjb_string,
    info: *mut mjb_read_info,
    f: impl FnOnce(&Endpoint) -> Result<(String, Seen), Refusal>,
) -> mjb_outcome {
    call(|| {
        let info = zeroed(info);
        let out = out_param(out_string, std::ptr::null_mut(), "out_string")?;
        let (text, seen) = on_endpoint(ep, f)?;
        *out = super::string::new_string(text)?;
        if let Some(i) = info {
            *i = seen.into();
        }
        Ok(Outcome::Ok)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::panics::{Fence, Site};
    use crate::safety::Safety;
    use std::cell::Cell;

    /// Stands for the native lock's guard: records whether the endpoint was fenced when it
    /// was released.
    struct Unlock<'a>(&'a Safety, &'a Cell<Option<Option<Reason>>>);

    impl Drop for Unlock<'_> {
        fn drop(&mut self) {
            self.1.set(Some(self.0.fenced()));
        }
    }

    #[test]
    fn a_panic_in_a_native_phase_fences_before_the_lock_passes_and_reports_its_site() {
        let s = Safety::new(7);
        let at_unlock = Cell::new(None);
        let mut seen = None;
        let o = run(
            || {
                let _call = Fence::call(&s);
                let _lock = Unlock(&s, &at_unlock);
                let site = Site {
                    tick_before: 7,
                    tick_after: 7,
                    sequence: 3,
                };
                let _phase = Fence::native_phase(&s, site);
                s.publish_tick(9);
                panic!("inside the native phase");
            },
            |site| seen = site,
        );
        assert_eq!(o, Outcome::Panic);
        assert_eq!(at_unlock.get(), Some(Some(Reason::Panic)));
        let site = Site {
            tick_before: 7,
            tick_after: 9,
            sequence: 3,
        };
        assert_eq!(seen, Some(site));
        let e = last_error::get().expect("recorded");
        assert_eq!((e.outcome, e.reason), (o, Reason::Panic));
        assert!(
            e.message.contains("inside the native phase"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_panic_outside_a_native_phase_fences_on_the_way_out_without_a_site() {
        let s = Safety::new(0);
        let mut seen = Some(Site::default());
        let o = run(
            || {
                let _call = Fence::call(&s);
                assert_eq!(s.fenced(), None);
                panic!("before the lock");
            },
            |site| seen = site,
        );
        assert_eq!(o, Outcome::Panic);
        assert_eq!(s.fenced(), Some(Reason::Panic));
        assert_eq!(seen, None);
        // A fence already there is kept: the first reason wins.
        let other = Safety::new(0);
        other.fence(Reason::RollbackUnproven);
        guard((), || {
            let _call = Fence::call(&other);
            panic!("on a fenced endpoint");
        });
        assert_eq!(other.fenced(), Some(Reason::RollbackUnproven));
    }

    #[test]
    fn a_call_without_a_panic_fences_nothing_and_a_success_leaves_no_error() {
        let s = Safety::new(0);
        last_error::set(Refusal::rejected(Reason::Busy, "an earlier call"));
        let o = call(|| {
            let _call = Fence::call(&s);
            let _phase = Fence::native_phase(&s, Site::default());
            Ok(Outcome::Ok)
        });
        assert_eq!(o, Outcome::Ok);
        assert_eq!(s.fenced(), None);
        assert!(last_error::get().is_none());
        from_c(|| panic!("in a callback from C"));
    }
}
