//! The thread's last error: what `mjb_last_error` describes. Every call that returns an
//! `mjb_outcome` clears it on entry ([`super::boundary::call`]) and records its refusal, or
//! the reason an `MJB_OK` came with, on the way out; so it always describes this thread's
//! most recent call, and a plain success leaves `{}`.

use crate::outcome::Refusal;
use std::cell::{Cell, RefCell};

thread_local! {
    static LAST_ERROR: RefCell<Option<Refusal>> = const { RefCell::new(None) };
    /// Whether `LAST_ERROR` holds one: a plain flag (no destructor to register, so no state
    /// to check), which is all the common call (a success after a success) reads.
    static RECORDED: Cell<bool> = const { Cell::new(false) };
}

pub fn set(r: Refusal) {
    RECORDED.set(true);
    LAST_ERROR.with(|e| *e.borrow_mut() = Some(r));
}

pub fn get() -> Option<Refusal> {
    if !RECORDED.get() {
        return None;
    }
    LAST_ERROR.with(|e| e.borrow().clone())
}

/// Forget it (a new call begins); returns what it was.
pub fn take() -> Option<Refusal> {
    if !RECORDED.replace(false) {
        return None;
    }
    LAST_ERROR.with(|e| e.borrow_mut().take())
}

/// Put back what [`take`] returned (a call made from inside the log callback must not
/// replace the error of the call that delivered it).
pub fn restore(kept: Option<Refusal>) {
    RECORDED.set(kept.is_some());
    LAST_ERROR.with(|e| *e.borrow_mut() = kept);
}

/// The JSON text `mjb_last_error` copies out: `{"outcome","reason","pointer","message"}`,
/// or `{}` when nothing is recorded.
pub fn text() -> String {
    use crate::doc::{obj, Value};
    match get() {
        None => "{}".to_owned(),
        Some(e) => obj([
            ("outcome", e.outcome.name().into()),
            ("reason", e.reason.name().into()),
            ("pointer", e.pointer.map(Value::from).unwrap_or(Value::Null)),
            ("message", e.message.into()),
        ])
        .to_json(),
    }
}
