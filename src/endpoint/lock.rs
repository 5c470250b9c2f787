//! The native lock: admission in arrival order, deadlines honoured, no yielding.
//!
//! Why not `parking_lot::Mutex`: measured with a thread stepping flat out and another keeping
//! the other core busy (`cargo bench --bench admission`), a reader's `try_lock_for(1 ms)` waited
//! about 10 ms and was refused 83% of the time. Two things in its slow path cost that: an
//! unlock lets the stepper take the lock straight back (the waiter is woken to find it taken
//! again), and before parking a waiter spins with `sched_yield`, which on a busy core hands the
//! CPU away for a whole scheduler slice. This lock keeps parking_lot's queue of parked threads
//! (`parking_lot_core`, the same crate) and changes exactly those two things:
//! - an unlock with a parked waiter hands the lock to the first one (it stays locked), so a
//!   thread that steps in a loop queues behind every waiter that came before its next step;
//! - a waiter spins only briefly with `spin_loop` hints, never yields, then parks until it is
//!   handed the lock or its deadline passes.
//!
//! With no waiter, locking and unlocking are one compare-and-swap each, as before.
//!
//! What a caller can count on: a call is admitted after every call queued before it has run
//! and the current holder has finished its native work (a step, a restore), or refused at its
//! deadline; the only delay beyond that is the scheduler waking the thread.

use parking_lot_core::{ParkResult, ParkToken, UnparkToken, DEFAULT_PARK_TOKEN};
use std::cell::{Cell, UnsafeCell};
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Instant;

const LOCKED: u8 = 1;
const PARKED: u8 = 2;
/// The unlocking thread handed the lock over: the woken thread holds it.
const HANDOFF: UnparkToken = UnparkToken(1);
const RETRY: UnparkToken = UnparkToken(0);
/// Brief spins before parking (the holder may be about to unlock): 2^1 + ... + 2^6 hints.
const SPINS: u32 = 6;

/// Aligned to 128 bytes (two cache lines: the adjacent-line prefetcher pairs them), so the
/// lock word and the pair's hot fields behind it, written by every call, never share a line
/// with another endpoint's (each endpoint, and so its `Arc` allocation, starts on its own
/// lines): endpoints stepped on different threads do not slow each other down.
#[repr(align(128))]
pub(super) struct NativeLock<T> {
    state: AtomicU8,
    data: UnsafeCell<T>,
}

// SAFETY: the data is only reached through a guard, and at most one guard exists at a time.
unsafe impl<T: Send> Send for NativeLock<T> {}
unsafe impl<T: Send> Sync for NativeLock<T> {}

/// Holds the lock; `Send` like the data, but never `Sync`: a shared `&Guard` would hand `&T`
/// to several threads at once, and the data (MuJoCo's pair, with its `RefCell` caches) is not
/// `Sync` (`std::sync::MutexGuard` is `Sync` only for `T: Sync`, for the same reason).
pub(super) struct Guard<'a, T> {
    lock: &'a NativeLock<T>,
    _not_sync: PhantomData<Cell<()>>,
}

// SAFETY: a shared guard gives shared access to the data, so it may be shared across threads
// only when the data may.
unsafe impl<T: Sync> Sync for Guard<'_, T> {}

impl<T> NativeLock<T> {
    pub(super) fn new(data: T) -> Self {
        NativeLock {
            state: AtomicU8::new(0),
            data: UnsafeCell::new(data),
        }
    }

    fn addr(&self) -> usize {
        self as *const Self as usize
    }

    fn guard(&self) -> Guard<'_, T> {
        Guard {
            lock: self,
            _not_sync: PhantomData,
        }
    }

    /// Take the lock only if it is free now.
    pub(super) fn try_lock(&self) -> Option<Guard<'_, T>> {
        let mut s = self.state.load(Ordering::Relaxed);
        while s & LOCKED == 0 {
            match self.state.compare_exchange_weak(
                s,
                s | LOCKED,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Some(self.guard()),
                Err(now) => s = now,
            }
        }
        None
    }

    /// Take the lock, waiting in line until `deadline` (`None`: without one). `None` back
    /// means the deadline passed first.
    pub(super) fn lock_until(&self, deadline: Option<Instant>) -> Option<Guard<'_, T>> {
        if self
            .state
            .compare_exchange(0, LOCKED, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            return Some(self.guard());
        }
        self.lock_slow(deadline)
    }

    #[cold]
    fn lock_slow(&self, deadline: Option<Instant>) -> Option<Guard<'_, T>> {
        let mut spins = 0;
        loop {
            let s = self.state.load(Ordering::Relaxed);
            if s & LOCKED == 0 {
                if self
                    .state
                    .compare_exchange_weak(s, s | LOCKED, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
                {
                    return Some(self.guard());
                }
                continue;
            }
            // Nobody waits yet: the holder may unlock in a moment. Spin briefly, never yield.
            if s & PARKED == 0 && spins < SPINS {
                spins += 1;
                for _ in 0..(1u32 << spins) {
                    std::hint::spin_loop();
                }
                continue;
            }
            if s & PARKED == 0
                && self
                    .state
                    .compare_exchange_weak(s, s | PARKED, Ordering::Relaxed, Ordering::Relaxed)
                    .is_err()
            {
                continue;
            }
            let validate = || self.state.load(Ordering::Relaxed) == LOCKED | PARKED;
            let timed_out = |_, was_last: bool| {
                if was_last {
                    self.state.fetch_and(!PARKED, Ordering::Relaxed);
                }
            };
            // SAFETY: the address is this lock's, valid while any thread waits on it (a thread
            // parked here holds a reference to the lock); no callback panics or re-enters
            // parking_lot_core.
            let parked = unsafe {
                parking_lot_core::park(
                    self.addr(),
                    validate,
                    || {},
                    timed_out,
                    DEFAULT_PARK_TOKEN,
                    deadline,
                )
            };
            match parked {
                ParkResult::Unparked(HANDOFF) => return Some(self.guard()),
                ParkResult::TimedOut => return None,
                ParkResult::Unparked(_) | ParkResult::Invalid => spins = 0,
            }
        }
    }

    fn unlock(&self) {
        if self
            .state
            .compare_exchange(LOCKED, 0, Ordering::Release, Ordering::Relaxed)
            .is_ok()
        {
            return;
        }
        self.unlock_slow();
    }

    #[cold]
    fn unlock_slow(&self) {
        let callback = |result: parking_lot_core::UnparkResult| {
            if result.unparked_threads != 0 {
                // The lock passes to the woken thread: it stays LOCKED.
                if !result.have_more_threads {
                    self.state.store(LOCKED, Ordering::Relaxed);
                }
                HANDOFF
            } else {
                self.state.store(0, Ordering::Release);
                RETRY
            }
        };
        // SAFETY: as in `lock_slow`; the callback neither panics nor re-enters.
        unsafe {
            parking_lot_core::unpark_one(self.addr(), callback);
        }
    }
}

/// Parked threads carry no token of their own (they wait for the lock, nothing else).
const _: ParkToken = DEFAULT_PARK_TOKEN;

impl<T> Deref for Guard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: this guard is the only one.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T> DerefMut for Guard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: this guard is the only one.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T> Drop for Guard<'_, T> {
    fn drop(&mut self) {
        self.lock.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn one_holder_at_a_time_and_every_increment_counted() {
        let lock = Arc::new(NativeLock::new(0u64));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let l = lock.clone();
                std::thread::spawn(move || {
                    for _ in 0..20_000 {
                        *l.lock_until(None).unwrap() += 1;
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*lock.lock_until(None).unwrap(), 80_000);
    }

    #[test]
    fn a_deadline_refuses_and_leaves_the_lock_usable() {
        let lock = Arc::new(NativeLock::new(()));
        let held = lock.try_lock().unwrap();
        assert!(lock.try_lock().is_none());
        let l = lock.clone();
        let waiter = std::thread::spawn(move || {
            l.lock_until(Some(Instant::now() + Duration::from_millis(20)))
                .is_none()
        });
        assert!(waiter.join().unwrap(), "refused at its deadline");
        drop(held);
        assert!(
            lock.try_lock().is_some(),
            "free again after the timed-out wait"
        );
    }

    #[test]
    fn an_unlock_hands_the_lock_to_the_waiter_not_back_to_the_holder() {
        // The holder re-locks at once after each unlock, as a flat-out stepper does. A waiter
        // is let in after at most the holder's current turn (and one more it may win while the
        // waiter spins before parking), never after an unbounded run of them.
        use std::sync::atomic::{AtomicBool, AtomicU64};
        let lock = Arc::new(NativeLock::new(()));
        let turns = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (l, t, s) = (lock.clone(), turns.clone(), stop.clone());
        let stepper = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                let _g = l.lock_until(None).unwrap();
                t.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(Duration::from_micros(200));
            }
        });
        while turns.load(Ordering::Relaxed) == 0 {
            std::thread::yield_now();
        }
        let mut worst = 0;
        for _ in 0..50 {
            let before = turns.load(Ordering::Relaxed);
            let g = lock.lock_until(None).unwrap();
            worst = worst.max(turns.load(Ordering::Relaxed) - before);
            drop(g);
        }
        stop.store(true, Ordering::Relaxed);
        stepper.join().unwrap();
        assert!(
            worst <= 2,
            "the waiter waited {worst} of the holder's turns"
        );
    }
}
