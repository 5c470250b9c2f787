//! Panics inside the bridge: caught once, at the C boundary (`ffi/boundary.rs`), turned into
//! `MJB_PANIC` refusals, kept off the host's stderr, and what they fence ([`Fence`]).
//!
//! The default panic hook prints a message and backtrace to stderr, which for a host (a Unity
//! editor, a ROS node) is noise from a library that then answers `MJB_PANIC` anyway. The
//! bridge installs, once, a hook that wraps whatever hook was there: a panic on a thread that
//! is inside a bridge call is recorded (message and location) for the refusal and passed to
//! the log sink; any other panic goes to the previous hook unchanged, so a Rust program
//! linking the crate keeps its own panic reporting.

use crate::outcome::{Outcome, Reason, Refusal};
use crate::safety::Safety;
use std::cell::{Cell, RefCell};
use std::sync::Once;

/// The thread's bridge calls: how deep it is inside them, and where a native phase panicked
/// (one thread-local, so a call reaches both with one lookup).
struct Calls {
    depth: Cell<u32>,
    site: Cell<Option<Site>>,
}

thread_local! {
    static CALLS: Calls = const {
        Calls {
            depth: Cell::new(0),
            site: Cell::new(None),
        }
    };
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Marks the current thread as inside a bridge call for as long as it lives.
pub struct Inside(());

impl Drop for Inside {
    fn drop(&mut self) {
        CALLS.with(|c| c.depth.set(c.depth.get().saturating_sub(1)));
    }
}

/// Enter a bridge call (nesting is fine); installs the hook on first use. The outermost call
/// starts with no panic site: one left by a native phase that no boundary caught (the Rust
/// API) is not this call's.
pub fn enter() -> Inside {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if CALLS.with(|c| c.depth.get()) == 0 {
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
    CALLS.with(|c| {
        if c.depth.replace(c.depth.get() + 1) == 0 {
            c.site.set(None);
        }
    });
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
        Outcome::Panic,
        Reason::Panic,
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

/// The one rule for what a panic fences: a panic inside a call on an endpoint fences that
/// endpoint (`MJB_REASON_PANIC`), once, where the first armed guard unwinds. The boundary
/// arms one for the whole call ([`Fence::call`]); a mutation's native phase arms one inside
/// the native lock ([`Fence::native_phase`]), so the endpoint is fenced before the lock passes
/// to the next caller (who then sees the fence, not a half-done mutation), and the phase's
/// ticks and sequence are kept for the report the boundary writes ([`take_site`]).
#[must_use = "the guard fences when it is dropped by unwinding"]
pub struct Fence<'a> {
    safety: &'a Safety,
    site: Option<Site>,
}

impl<'a> Fence<'a> {
    /// A call on an endpoint.
    pub fn call(safety: &'a Safety) -> Self {
        Fence { safety, site: None }
    }

    /// A mutation's native phase, admitted at `site` (its tick and sequence).
    pub fn native_phase(safety: &'a Safety, site: Site) -> Self {
        Fence {
            safety,
            site: Some(site),
        }
    }
}

impl Drop for Fence<'_> {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            return;
        }
        // The first fence wins: a later guard of the same unwinding changes nothing.
        self.safety.fence(Reason::Panic);
        if let Some(mut site) = self.site {
            site.tick_after = self.safety.view_tick();
            CALLS.with(|c| c.site.set(Some(site)));
        }
    }
}

/// The site of the panic being caught, if it happened inside a native phase.
pub fn take_site() -> Option<Site> {
    CALLS.with(|c| c.site.take())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_outermost_call_starts_without_an_earlier_calls_panic_site() {
        let stale = Site {
            tick_before: 1,
            tick_after: 2,
            sequence: 3,
        };
        CALLS.with(|c| c.site.set(Some(stale)));
        let outer = enter();
        assert_eq!(take_site(), None, "left by a phase no boundary caught");
        CALLS.with(|c| c.site.set(Some(stale)));
        let inner = enter();
        assert_eq!(
            take_site(),
            Some(stale),
            "a nested call keeps the outer one's"
        );
        drop((inner, outer));
    }
}
