//! Library-owned result strings: NUL-terminated UTF-8, freed only by `mjb_string_free`.
//! Live strings are tracked so that a double free is refused instead of corrupting memory.

use parking_lot::Mutex;
use std::collections::BTreeSet;

/// A library-owned, NUL-terminated UTF-8 string (opaque to C).
#[allow(non_camel_case_types)]
pub struct mjb_string {
    /// The text followed by one NUL byte. A `Vec` (not a boxed slice) so that handing a
    /// document over never reallocates it to trim spare capacity.
    bytes: Vec<u8>,
}

static LIVE: Mutex<BTreeSet<usize>> = Mutex::new(BTreeSet::new());

pub fn new_string(text: String) -> *mut mjb_string {
    let mut v = text.into_bytes();
    v.push(0);
    let p = Box::into_raw(Box::new(mjb_string { bytes: v }));
    LIVE.lock().insert(p as usize);
    p
}

/// The string behind a live pointer, or None (NULL, freed, foreign).
pub fn with_live<R>(s: *const mjb_string, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
    let live = LIVE.lock();
    if s.is_null() || !live.contains(&(s as usize)) {
        return None;
    }
    // SAFETY: the pointer is live (in the set, so not yet freed) and we hold the set's lock,
    // so no other thread can free it while we read.
    let st = unsafe { &*s };
    Some(f(&st.bytes))
}

/// Free a live string. Returns false when the pointer is not a live string.
pub fn free(s: *mut mjb_string) -> bool {
    if !LIVE.lock().remove(&(s as usize)) {
        return false;
    }
    // SAFETY: it came from Box::into_raw in new_string and was live until just now.
    drop(unsafe { Box::from_raw(s) });
    true
}
