//! The one panic boundary, handle resolution, pointer checks and the thread's last error.
//!
//! Every export runs its body through [`call`]; bodies that act on an endpoint go through
//! [`on_endpoint`], which also fences that endpoint if the body panics. Below this module the
//! code sees typed Rust values only.

use crate::endpoint::Endpoint;
use crate::outcome::{Outcome, Reason, Refusal};
use arc_swap::ArcSwap;
use parking_lot::Mutex;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::os::raw::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// An endpoint handle as C sees it. Opaque: its value is not an address.
#[allow(non_camel_case_types)]
pub struct mjb_endpoint {
    _private: u8,
}

// Handles are numbers, never addresses: a closed handle can be told from a live one without
// touching freed memory, and a new endpoint never reuses an old value.
const HANDLE_BASE: usize = 0x6d6a_6200_0000;
const HANDLE_STRIDE: usize = 16;

#[derive(Clone, Default)]
struct Registry {
    next_id: usize,
    live: BTreeMap<usize, Arc<Endpoint>>,
}

/// Read by every call on every thread, written only by open and close: a call resolves its
/// handle in the current map without a lock and without writing shared memory (arc-swap's
/// loads use per-thread slots), so endpoints on different threads never contend here. Open
/// and close copy the map under WRITERS and publish the copy.
static REGISTRY: std::sync::LazyLock<ArcSwap<Registry>> =
    std::sync::LazyLock::new(|| ArcSwap::from_pointee(Registry::default()));
static WRITERS: Mutex<()> = Mutex::new(());

pub fn register(ep: Endpoint) -> *mut mjb_endpoint {
    let _writer = WRITERS.lock();
    let mut r = Registry::clone(&REGISTRY.load());
    let id = r.next_id;
    r.next_id += 1;
    let handle = HANDLE_BASE + id * HANDLE_STRIDE;
    r.live.insert(handle, Arc::new(ep));
    REGISTRY.store(Arc::new(r));
    handle as *mut mjb_endpoint
}

fn handle_refusal(handle: usize, next_id: usize) -> Refusal {
    let issued = handle >= HANDLE_BASE
        && (handle - HANDLE_BASE).is_multiple_of(HANDLE_STRIDE)
        && (handle - HANDLE_BASE) / HANDLE_STRIDE < next_id;
    if issued {
        Refusal::new(
            Outcome::MJB_INVALID_ARGUMENT,
            Reason::MJB_REASON_CLOSED,
            "the endpoint handle was closed",
        )
    } else {
        Refusal::new(
            Outcome::MJB_INVALID_ARGUMENT,
            Reason::MJB_REASON_FOREIGN_HANDLE,
            "not an endpoint handle issued by this library",
        )
    }
}

/// The live endpoint behind a handle. The returned `Arc` keeps the native pair alive for the
/// whole call even if another thread closes the handle meanwhile.
pub fn resolve(ep: *mut mjb_endpoint) -> Result<Arc<Endpoint>, Refusal> {
    if ep.is_null() {
        return Err(null_refusal("endpoint"));
    }
    let r = REGISTRY.load();
    r.live
        .get(&(ep as usize))
        .cloned()
        .ok_or_else(|| handle_refusal(ep as usize, r.next_id))
}

/// Close a handle; the endpoint is dropped when the last call using it returns.
pub fn unregister(ep: *mut mjb_endpoint) -> Result<(), Refusal> {
    let removed = {
        let _writer = WRITERS.lock();
        let mut r = Registry::clone(&REGISTRY.load());
        let removed = match r.live.remove(&(ep as usize)) {
            Some(e) => e,
            None => return Err(handle_refusal(ep as usize, r.next_id)),
        };
        REGISTRY.store(Arc::new(r));
        removed
    };
    drop(removed); // outside the registry lock: freeing MuJoCo data can take a while
    Ok(())
}

pub fn null_refusal(what: &str) -> Refusal {
    Refusal::new(
        Outcome::MJB_INVALID_ARGUMENT,
        Reason::MJB_REASON_NULL_ARGUMENT,
        format!("{what} is NULL"),
    )
}

/// Borrow `(ptr, len)` as bytes; NULL is allowed only with `len == 0`.
///
/// # Safety
/// `ptr` must be valid for `len` bytes for the duration of the call.
pub unsafe fn bytes<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<&'a [u8], Refusal> {
    if ptr.is_null() {
        return if len == 0 {
            Ok(&[])
        } else {
            Err(null_refusal(what))
        };
    }
    if len > isize::MAX as usize {
        return Err(Refusal::new(
            Outcome::MJB_INVALID_ARGUMENT,
            Reason::MJB_REASON_OUT_OF_RANGE,
            format!("{what}: length {len} is larger than any buffer"),
        ));
    }
    Ok(std::slice::from_raw_parts(ptr.cast::<u8>(), len))
}

/// Borrow a JSON document, refusing bad UTF-8 as an invalid argument.
///
/// # Safety
/// As for [`bytes`].
pub unsafe fn utf8<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<&'a [u8], Refusal> {
    let b = bytes(ptr, len, what)?;
    match std::str::from_utf8(b) {
        Ok(_) => Ok(b),
        Err(e) => Err(Refusal::new(
            Outcome::MJB_INVALID_ARGUMENT,
            Reason::MJB_REASON_INVALID_UTF8,
            format!("{what} is not UTF-8: {e}"),
        )),
    }
}

thread_local! {
    static LAST_ERROR: RefCell<Option<Refusal>> = const { RefCell::new(None) };
}

pub fn set_last_error(r: Refusal) {
    LAST_ERROR.with(|e| *e.borrow_mut() = Some(r));
}

pub fn last_error() -> Option<Refusal> {
    LAST_ERROR.with(|e| e.borrow().clone())
}

/// Run an export's body: a panic becomes `MJB_PANIC`, a refusal is recorded for
/// `mjb_last_error` and its outcome returned. The thread's last error describes this call
/// only: it is cleared on entry, so a success leaves `{}`. Log events the call queued are
/// delivered to the host's callback on the way out, outside every lock.
pub fn call(f: impl FnOnce() -> Result<Outcome, Refusal>) -> Outcome {
    LAST_ERROR.with(|e| e.borrow_mut().take());
    let r = {
        let _inside = crate::panics::enter();
        catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| Err(crate::panics::refusal(p)))
    };
    let o = match r {
        Ok(o) => o,
        Err(refusal) => {
            crate::host::event_for(&refusal);
            let o = refusal.outcome;
            set_last_error(refusal);
            o
        }
    };
    if crate::host::pending() {
        // The callback may call the bridge; this call's last error must survive that.
        let kept = last_error();
        let _ = catch_unwind(crate::host::flush);
        LAST_ERROR.with(|e| *e.borrow_mut() = kept);
    }
    o
}

/// Run `f` on a live endpoint; a panic inside fences it.
pub fn on_endpoint<T>(
    ep: *mut mjb_endpoint,
    f: impl FnOnce(&Endpoint) -> Result<T, Refusal>,
) -> Result<T, Refusal> {
    let e = resolve(ep)?;
    match catch_unwind(AssertUnwindSafe(|| f(&e))) {
        Ok(r) => r,
        Err(p) => {
            e.safety.fence(Reason::MJB_REASON_PANIC);
            Err(crate::panics::refusal(p))
        }
    }
}
