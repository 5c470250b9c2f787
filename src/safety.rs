//! The lock-free half of an endpoint: stop latch, stop history, native work in flight, fence.
//!
//! Nothing here waits for the native lock, so `mjb_stop` and `mjb_safety_read` answer at once
//! even while a long step holds it.
//!
//! The stop/in-flight handshake (why a pause can never be confirmed while a step that missed
//! the latch is still running):
//! - a stopper does `stopped.store(true)` then `in_flight.load()`;
//! - a worker does `in_flight.fetch_add(1)` then `stopped.load()` before every engine step,
//!   and only steps when it read `false`.
//!
//! All four are `SeqCst`, so they sit in one total order. If the stopper's load saw 0, the
//! worker's `fetch_add` comes after that load, hence after the store, so the worker's latch
//! check (after its `fetch_add`) sees `true` and it does not step. If the worker's check saw
//! `false`, the check precedes the store, so its `fetch_add` precedes the stopper's load, which
//! then sees a count above zero and reports the pause as unconfirmed.

use crate::outcome::Reason;
use std::sync::atomic::{
    AtomicBool, AtomicI32, AtomicU64,
    Ordering::{Release, SeqCst},
};

const NO_TICK: u64 = u64::MAX;

#[derive(Debug, Default)]
pub struct Safety {
    stopped: AtomicBool,
    stop_count: AtomicU64,
    first_stop_tick: AtomicU64,
    last_stop_tick: AtomicU64,
    in_flight: AtomicU64,
    /// 0 when not fenced, else the `mjb_reason` that fenced the endpoint.
    fence: AtomicI32,
    /// The endpoint's tick as last published by the holder of the native lock, so that stop
    /// history can record a tick without taking the lock.
    tick: AtomicU64,
}

/// A copy of the safety state at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SafetyView {
    pub stopped: bool,
    pub confirmed: bool,
    pub stop_count: u64,
    pub first_stop_tick: Option<u64>,
    pub last_stop_tick: Option<u64>,
    pub in_flight: u64,
    pub fence: Option<Reason>,
}

/// Marks native work in flight for as long as it lives.
pub struct InFlight<'a>(&'a Safety);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, SeqCst);
    }
}

impl InFlight<'_> {
    /// The latch check a worker makes before each engine step (see the module comment).
    pub fn stop_latched(&self) -> bool {
        self.0.stopped.load(SeqCst)
    }

    /// The stops latched so far (every `mjb_stop`, also on a stopped endpoint): work admitted
    /// while stopped (a rewind) ends at a stop latched after it began when this count moves.
    pub fn stops(&self) -> u64 {
        self.0.stop_count.load(SeqCst)
    }
}

impl Safety {
    pub fn new(tick: u64) -> Self {
        let s = Safety {
            first_stop_tick: AtomicU64::new(NO_TICK),
            last_stop_tick: AtomicU64::new(NO_TICK),
            ..Default::default()
        };
        s.tick.store(tick, SeqCst);
        s
    }

    /// Latch a stop. Returns the state this stop produced: `stopped` is always true (a reset
    /// racing in from another thread afterwards is a later event, not this stop's result) and
    /// `confirmed` comes from the handshake in the module comment.
    pub fn stop(&self) -> SafetyView {
        self.stopped.store(true, SeqCst);
        let in_flight = self.in_flight.load(SeqCst);
        let confirmed = in_flight == 0;
        // Read after the in-flight load: when confirmed, every step that passed the latch
        // check has published its tick and left, so this is the exact tick of the pause.
        let tick = self.tick.load(SeqCst);
        self.stop_count.fetch_add(1, SeqCst);
        let _ = self
            .first_stop_tick
            .compare_exchange(NO_TICK, tick, SeqCst, SeqCst);
        self.last_stop_tick.store(tick, SeqCst);
        let later = self.view();
        SafetyView {
            stopped: true,
            confirmed,
            in_flight,
            ..later
        }
    }

    pub fn is_stopped(&self) -> bool {
        self.stopped.load(SeqCst)
    }

    /// Begin native work; pair every engine step with [`InFlight::stop_latched`].
    pub fn begin_work(&self) -> InFlight<'_> {
        self.in_flight.fetch_add(1, SeqCst);
        InFlight(self)
    }

    /// Publish the tick a call reached (under the native lock: every step, a restore, a
    /// rewind). `Release`, not `SeqCst`: the tick is not part of the handshake above. A
    /// stopper that found nothing in flight read the count from the worker's `fetch_sub` (a
    /// release, after this store in the worker's order) with a `SeqCst` load (an acquire), so
    /// its tick load that follows sees this store or a later one. Every other reader only
    /// needs a tick that some call published, and a later release (the fence's, the count's)
    /// still orders this store before it for whoever acquires that. On x86-64 a `SeqCst` store
    /// is an `xchg`, a locked instruction on every step; this is a plain `mov`.
    pub fn publish_tick(&self, tick: u64) {
        self.tick.store(tick, Release);
    }

    pub fn fence(&self, reason: Reason) {
        let _ = self
            .fence
            .compare_exchange(0, reason as i32, SeqCst, SeqCst);
    }

    pub fn fenced(&self) -> Option<Reason> {
        match self.fence.load(SeqCst) {
            0 => None,
            r => Some(Reason::from_i32(r).unwrap_or(Reason::Panic)),
        }
    }

    /// The tick last published by the holder of the native lock.
    pub fn view_tick(&self) -> u64 {
        self.tick.load(SeqCst)
    }

    /// Positive acknowledgements need a latched stop and nothing in flight (the caller checks
    /// the fence first).
    pub fn check_acknowledgeable(&self) -> Result<(), Reason> {
        if !self.stopped.load(SeqCst) {
            return Err(Reason::NotStopped);
        }
        if self.in_flight.load(SeqCst) != 0 {
            return Err(Reason::UnresolvedNativeWork);
        }
        Ok(())
    }

    /// Clear the latch. History stays: resetting is not forgetting.
    pub fn clear_latch(&self) {
        self.stopped.store(false, SeqCst);
    }

    pub fn view(&self) -> SafetyView {
        let stopped = self.stopped.load(SeqCst);
        let in_flight = self.in_flight.load(SeqCst);
        let opt = |v: u64| (v != NO_TICK).then_some(v);
        SafetyView {
            stopped,
            confirmed: stopped && in_flight == 0,
            stop_count: self.stop_count.load(SeqCst),
            first_stop_tick: opt(self.first_stop_tick.load(SeqCst)),
            last_stop_tick: opt(self.last_stop_tick.load(SeqCst)),
            in_flight,
            fence: self.fenced(),
        }
    }
}
