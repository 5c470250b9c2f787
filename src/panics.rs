//! Panics inside the bridge: caught once, at the C boundary, turned into `MJB_PANIC`
//! refusals, and kept off the host's stderr.
//!
//! The default panic hook prints a message and backtrace to stderr, which for a host (a Unity
//! editor, a ROS node) is noise from a library that then answers `MJB_PANIC` anyway. The
//! bridge installs, once, a hook that wraps whatever hook was there: a panic on a thread that
//! is inside a bridge call is recorded (message and location) for the refusal and passed to
//! the log sink; any other panic goes to the previous hook unchanged, so a Rust program
//! linking the crate keeps its own panic reporting.

use crate::outcome::{Outcome, Reason, Refusal};
use std::cell::{Cell, RefCell};
use std::sync::Once;

thread_local! {
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Marks the current thread as inside a bridge call for as long as it lives.
pub struct Inside(());

impl Drop for Inside {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// Enter a bridge call (nesting is fine); installs the hook on first use.
pub fn enter() -> Inside {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if DEPTH.with(Cell::get) == 0 {
                return previous(info);
            }
            let at = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            let text = format!("{}{at}", payload_text(info.payload()));
            crate::log::panic_caught(&text);
            LAST.with(|l| *l.borrow_mut() = Some(text));
        }));
    });
    DEPTH.with(|d| d.set(d.get() + 1));
    Inside(())
}

fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// The refusal for a caught panic: its message and, when the hook saw it, its location.
pub fn refusal(payload: Box<dyn std::any::Any + Send>) -> Refusal {
    let text = LAST
        .with(|l| l.borrow_mut().take())
        .unwrap_or_else(|| payload_text(&*payload));
    Refusal::new(
        Outcome::MJB_PANIC,
        Reason::MJB_REASON_PANIC,
        format!("a panic was caught inside the bridge: {text}"),
    )
}

/// Where a mutation's native phase panicked: the report the C boundary writes for it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Site {
    pub tick_before: u64,
    pub tick_after: u64,
    pub sequence: u64,
}

thread_local! {
    static SITE: Cell<Option<Site>> = const { Cell::new(None) };
}

/// Called while unwinding out of a native phase (the endpoint is fenced already).
pub fn unwound_at(site: Site) {
    SITE.with(|s| s.set(Some(site)));
}

/// The site of the panic being caught, if it happened inside a native phase.
pub fn take_site() -> Option<Site> {
    SITE.with(Cell::take)
}
