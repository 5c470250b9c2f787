//! A global allocator that counts heap in use and its peak, for memory bounds measured in
//! tests and benches (`#[global_allocator] static A: Counting = Counting;` in the binary).
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

pub struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = CURRENT.fetch_add(by, SeqCst) + by;
    PEAK.fetch_max(now, SeqCst);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(l);
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        CURRENT.fetch_sub(l.size(), SeqCst);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = System.realloc(p, l, new);
        if !q.is_null() {
            // Both blocks may be live during the move: count the new one first.
            grew(new);
            CURRENT.fetch_sub(l.size(), SeqCst);
        }
        q
    }
}

/// Peak heap of `f` above the heap in use when it started.
pub fn peak_of(f: impl FnOnce()) -> usize {
    let base = CURRENT.load(SeqCst);
    PEAK.store(base, SeqCst);
    f();
    PEAK.load(SeqCst) - base
}
