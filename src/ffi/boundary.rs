//! The boundary: the only `catch_unwind`, handle resolution, and every pointer, slice and
//! out-param check. Export files translate C arguments through the helpers here and call
//! safe Rust; below `src/ffi/` the code sees typed values only.
//!
//! Panics: [`call`] (and [`guard`], for the few exports that return no `mjb_outcome`) catch
//! unwinding once. A panic inside an endpoint call fences that endpoint: [`on_endpoint`]
//! holds a guard that fences on unwinding, and a mutation's native phase records where it was
//! (its ticks and sequence, [`crate::panics::Site`]) so that [`mutation`] reports it.

use super::enums::mjb_outcome;
use super::types::{mjb_endpoint, mjb_report, mjb_restore_point};
use crate::endpoint::RestorePoint;
use crate::endpoint::{Answer, Endpoint};
use crate::outcome::{Outcome, Reason, Refusal};
use arc_swap::ArcSwap;
use parking_lot::Mutex;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ffi::CStr;
use std::os::raw::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

// ---- handles ----------------------------------------------------------------------------------

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

// ---- restore point handles --------------------------------------------------------------------

// Restore points are numbers too, in their own range: a shard, a slot of the shard's slab and
// the slot's generation, so that a freed handle is told from a live one (and from an
// endpoint's) without touching freed memory, in constant time on the planner's hot path. A
// restore point lives in its endpoint's shard (the endpoint's serial modulo the shards), each
// shard with its own lock on its own cache lines: planners on different threads, each with
// its own endpoint, do not contend.
const RP_BASE: usize = 0x7000_0000_0000;
const RP_GEN_BITS: u32 = 20;
const RP_GEN_MASK: usize = (1 << RP_GEN_BITS) - 1;
const RP_SHARD_BITS: u32 = 4;
const RP_SHARDS: usize = 1 << RP_SHARD_BITS;

/// Slots with generations: a removed entry's slot serves the next insertion under the next
/// generation, so every number a slot gave out before names nothing live. A slot whose
/// generations are used up is retired (never handed out again) rather than wrapped, so a
/// number is never reused, however many captures and frees a host makes.
struct Slab<T> {
    slots: Vec<(usize, Option<T>)>,
    free: Vec<usize>,
}

/// What a number a slab did not resolve was.
#[derive(Debug, PartialEq)]
enum Gone {
    /// Given out once; its entry was removed.
    Freed,
    /// Never given out by this slab.
    Unknown,
}

impl<T> Slab<T> {
    const RETIRED: usize = RP_GEN_MASK + 1;

    const fn new() -> Self {
        Slab {
            slots: Vec::new(),
            free: Vec::new(),
        }
    }

    /// Insert; returns the slot and its generation.
    fn insert(&mut self, v: T) -> (usize, usize) {
        match self.free.pop() {
            Some(i) => {
                self.slots[i].1 = Some(v);
                (i, self.slots[i].0)
            }
            None => {
                self.slots.push((0, Some(v)));
                (self.slots.len() - 1, 0)
            }
        }
    }

    fn get(&self, i: usize, generation: usize) -> Result<&T, Gone> {
        match self.slots.get(i) {
            Some((g, Some(v))) if *g == generation => Ok(v),
            Some(_) => Err(Gone::Freed),
            None => Err(Gone::Unknown),
        }
    }

    fn remove(&mut self, i: usize, generation: usize) -> Result<T, Gone> {
        let slot = self.slots.get_mut(i).ok_or(Gone::Unknown)?;
        if slot.0 != generation || slot.1.is_none() {
            return Err(Gone::Freed);
        }
        let v = slot.1.take();
        if slot.0 == RP_GEN_MASK {
            slot.0 = Self::RETIRED;
        } else {
            slot.0 += 1;
            self.free.push(i);
        }
        v.ok_or(Gone::Freed)
    }
}

#[repr(align(128))]
struct Shard(parking_lot::Mutex<Slab<Arc<RestorePoint>>>);

static RESTORE_POINTS: [Shard; RP_SHARDS] =
    [const { Shard(parking_lot::Mutex::new(Slab::new())) }; RP_SHARDS];

/// A handle's number: which shard, which slot, which generation.
#[derive(Clone, Copy, Debug, PartialEq)]
struct RpNumber {
    shard: usize,
    index: usize,
    generation: usize,
}

fn rp_handle(n: RpNumber) -> *mut mjb_restore_point {
    let v = (((n.index << RP_SHARD_BITS) | n.shard) << RP_GEN_BITS) | n.generation;
    (RP_BASE + v * HANDLE_STRIDE) as *mut mjb_restore_point
}

/// The number a handle carries, if it is one of this library's.
fn rp_number(h: *const mjb_restore_point) -> Option<RpNumber> {
    let h = (h as usize).checked_sub(RP_BASE)?;
    if !h.is_multiple_of(HANDLE_STRIDE) {
        return None;
    }
    let v = h / HANDLE_STRIDE;
    let slot = v >> RP_GEN_BITS;
    Some(RpNumber {
        shard: slot & (RP_SHARDS - 1),
        index: slot >> RP_SHARD_BITS,
        generation: v & RP_GEN_MASK,
    })
}

pub fn register_restore_point(rp: Arc<RestorePoint>) -> *mut mjb_restore_point {
    let shard = (rp.endpoint() % RP_SHARDS as u64) as usize;
    let (index, generation) = RESTORE_POINTS[shard].0.lock().insert(rp);
    rp_handle(RpNumber {
        shard,
        index,
        generation,
    })
}

fn rp_refusal(gone: Gone) -> Refusal {
    match gone {
        Gone::Freed => Refusal::new(
            Outcome::MJB_INVALID_ARGUMENT,
            Reason::MJB_REASON_CLOSED,
            "the restore point was freed",
        ),
        Gone::Unknown => Refusal::new(
            Outcome::MJB_INVALID_ARGUMENT,
            Reason::MJB_REASON_FOREIGN_HANDLE,
            "not a restore point of this library",
        ),
    }
}

/// The live restore point behind a handle (kept alive for the call, even if another thread
/// frees the handle meanwhile).
pub fn resolve_restore_point(h: *const mjb_restore_point) -> Result<Arc<RestorePoint>, Refusal> {
    if h.is_null() {
        return Err(null_refusal("restore point"));
    }
    let n = rp_number(h).ok_or_else(|| rp_refusal(Gone::Unknown))?;
    let s = RESTORE_POINTS[n.shard].0.lock();
    s.get(n.index, n.generation).cloned().map_err(rp_refusal)
}

/// Free a restore point handle; a second free is refused (its slot moved on).
pub fn unregister_restore_point(h: *mut mjb_restore_point) -> Result<(), Refusal> {
    let n = rp_number(h).ok_or_else(|| rp_refusal(Gone::Unknown))?;
    let removed = RESTORE_POINTS[n.shard]
        .0
        .lock()
        .remove(n.index, n.generation)
        .map_err(rp_refusal)?;
    // Outside the lock: back to its endpoint for the next capture, or dropped.
    crate::endpoint::recycle_restore_point(removed);
    Ok(())
}

/// Fences its endpoint when dropped by unwinding (a panic inside a call on it).
struct FenceOnUnwind<'a>(&'a Endpoint);

impl Drop for FenceOnUnwind<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.safety.fence(Reason::MJB_REASON_PANIC);
        }
    }
}

/// Run `f` on a live endpoint; a panic inside fences it.
pub fn on_endpoint<T>(
    ep: *mut mjb_endpoint,
    f: impl FnOnce(&Endpoint) -> Result<T, Refusal>,
) -> Result<T, Refusal> {
    let e = resolve(ep)?;
    let _fence = FenceOnUnwind(&e);
    f(&e)
}

// ---- pointers, slices, out-params --------------------------------------------------------------

pub fn null_refusal(what: &str) -> Refusal {
    Refusal::new(
        Outcome::MJB_INVALID_ARGUMENT,
        Reason::MJB_REASON_NULL_ARGUMENT,
        format!("{what} is NULL"),
    )
}

pub fn out_of_range(what: String) -> Refusal {
    Refusal::new(
        Outcome::MJB_INVALID_ARGUMENT,
        Reason::MJB_REASON_OUT_OF_RANGE,
        what,
    )
}

/// Borrow `(ptr, n)` elements of `T`; NULL only with `n == 0`.
///
/// # Safety
/// `ptr` must be valid for reads of `n` elements for the duration of the call.
pub unsafe fn slice<'a, T>(ptr: *const T, n: usize, what: &str) -> Result<&'a [T], Refusal> {
    if n == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(null_refusal(what));
    }
    if n > isize::MAX as usize / std::mem::size_of::<T>().max(1) {
        return Err(out_of_range(format!(
            "{what}: {n} elements is larger than any array"
        )));
    }
    Ok(std::slice::from_raw_parts(ptr, n))
}

/// Borrow `(ptr, n)` elements of `T` for writing; NULL only with `n == 0`.
///
/// # Safety
/// `ptr` must be valid for reads and writes of `n` elements for the duration of the call.
pub unsafe fn slice_mut<'a, T>(ptr: *mut T, n: usize, what: &str) -> Result<&'a mut [T], Refusal> {
    if n == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(null_refusal(what));
    }
    if n > isize::MAX as usize / std::mem::size_of::<T>().max(1) {
        return Err(out_of_range(format!(
            "{what}: {n} elements is larger than any array"
        )));
    }
    Ok(std::slice::from_raw_parts_mut(ptr, n))
}

/// Borrow `(ptr, len)` as a document: NULL only with `len == 0`; bad UTF-8 is an invalid
/// argument (the document's size is checked where it is read).
///
/// # Safety
/// `ptr` must be valid for `len` bytes for the duration of the call.
pub unsafe fn utf8<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<&'a str, Refusal> {
    if ptr.is_null() && len != 0 {
        return Err(null_refusal(what));
    }
    if len > isize::MAX as usize {
        return Err(out_of_range(format!(
            "{what}: length {len} is larger than any buffer"
        )));
    }
    let b: &[u8] = if len == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(ptr.cast::<u8>(), len)
    };
    std::str::from_utf8(b).map_err(|e| {
        Refusal::new(
            Outcome::MJB_INVALID_ARGUMENT,
            Reason::MJB_REASON_INVALID_UTF8,
            format!("{what} is not UTF-8: {e}"),
        )
    })
}

/// A mutation's precondition: NULL is none; unknown flag bits are refused.
///
/// # Safety
/// `p` is NULL or valid for reads.
pub unsafe fn expect(
    p: *const super::types::mjb_expect,
) -> Result<crate::endpoint::Expect, Refusal> {
    use super::constants::{MJB_EXPECT_CONFIGURATION, MJB_EXPECT_FRAME, MJB_EXPECT_TICK};
    let Some(e) = p.as_ref() else {
        return Ok(Default::default());
    };
    if e.flags & !(MJB_EXPECT_TICK | MJB_EXPECT_CONFIGURATION | MJB_EXPECT_FRAME) != 0 {
        return Err(out_of_range(format!(
            "mjb_expect.flags {:#x} has bits that are not MJB_EXPECT_TICK, MJB_EXPECT_CONFIGURATION or MJB_EXPECT_FRAME",
            e.flags
        )));
    }
    Ok(crate::endpoint::Expect {
        tick: (e.flags & MJB_EXPECT_TICK != 0).then_some(e.tick),
        configuration: (e.flags & MJB_EXPECT_CONFIGURATION != 0).then_some(e.configuration),
        frame: (e.flags & MJB_EXPECT_FRAME != 0).then_some(e.frame),
    })
}

/// A call's admission: its deadline and precondition.
///
/// # Safety
/// `p` is NULL or valid for reads.
pub unsafe fn admission(
    timeout_ms: u32,
    p: *const super::types::mjb_expect,
) -> Result<crate::endpoint::Call, Refusal> {
    Ok(crate::endpoint::Call {
        timeout_ms,
        expect: expect(p)?,
    })
}

/// A required NUL-terminated string (borrowed for the call).
///
/// # Safety
/// `ptr` is NULL or a valid NUL-terminated string.
pub unsafe fn c_str<'a>(ptr: *const c_char, what: &str) -> Result<&'a CStr, Refusal> {
    if ptr.is_null() {
        return Err(null_refusal(what));
    }
    Ok(CStr::from_ptr(ptr))
}

/// A required out-param: NULL is refused; otherwise it is reset to `empty` on entry.
///
/// # Safety
/// `p` is NULL or valid for writes.
pub unsafe fn out_param<'a, T>(p: *mut T, empty: T, what: &str) -> Result<&'a mut T, Refusal> {
    if p.is_null() {
        return Err(null_refusal(what));
    }
    p.write(empty);
    Ok(&mut *p)
}

/// A nullable out-param, zeroed on entry.
///
/// # Safety
/// `p` is NULL or valid for writes.
pub unsafe fn zeroed<'a, T: Default>(p: *mut T) -> Option<&'a mut T> {
    if p.is_null() {
        return None;
    }
    p.write(T::default());
    Some(&mut *p)
}

// ---- the thread's last error ----------------------------------------------------------------

thread_local! {
    static LAST_ERROR: RefCell<Option<Refusal>> = const { RefCell::new(None) };
}

pub fn set_last_error(r: Refusal) {
    LAST_ERROR.with(|e| *e.borrow_mut() = Some(r));
}

pub fn last_error() -> Option<Refusal> {
    LAST_ERROR.with(|e| e.borrow().clone())
}

// ---- calls ---------------------------------------------------------------------------------------

/// The one place unwinding is caught: a panic becomes an `MJB_PANIC` refusal.
fn catch<T>(f: impl FnOnce() -> Result<T, Refusal>) -> Result<T, Refusal> {
    let _inside = crate::panics::enter();
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| Err(crate::panics::refusal(p)))
}

/// Run an export that returns no outcome (a pointer, a length): a panic gives `fallback`.
pub fn guard<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    catch(|| Ok(f())).unwrap_or(fallback)
}

/// Run an export's body: a panic becomes `MJB_PANIC`, a refusal is recorded for
/// `mjb_last_error` and its outcome returned. The thread's last error describes this call
/// only: it is cleared on entry, so a success leaves `{}`. Log events the call queued are
/// delivered to the host's callback on the way out, outside every lock. The outcome becomes
/// its C form here.
pub fn call(f: impl FnOnce() -> Result<Outcome, Refusal>) -> mjb_outcome {
    LAST_ERROR.with(|e| e.borrow_mut().take());
    let o = match catch(f) {
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
        let _ = catch(|| {
            crate::host::flush();
            Ok(())
        });
        LAST_ERROR.with(|e| *e.borrow_mut() = kept);
    }
    o.into()
}

/// Finish a mutation: write the report, record the detail, return the outcome.
fn answer(a: Answer, report: Option<&mut mjb_report>) -> Result<Outcome, Refusal> {
    if let Some(rep) = report {
        *rep = a.report.into();
    }
    if let Some(d) = a.detail {
        if d.outcome != Outcome::MJB_OK {
            return Err(d);
        }
        crate::host::event_for(&d);
        set_last_error(d);
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
    let outcome = call(|| {
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
    });
    if outcome == mjb_outcome::MJB_PANIC {
        let site = crate::panics::take_site();
        if let Some(rep) = report.as_mut() {
            rep.outcome = Outcome::MJB_PANIC as i32;
            rep.reason = Reason::MJB_REASON_PANIC as i32;
            if let Some(s) = site {
                rep.tick_before = s.tick_before;
                rep.tick_after = s.tick_after;
                rep.sequence = s.sequence;
            }
        }
    }
    outcome
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
/// (`info`, nullable, zeroed on entry).
///
/// # Safety
/// `out` and `info` are NULL or valid for writes.
pub unsafe fn read_seen(
    ep: *mut mjb_endpoint,
    out_string: *mut *mut super::mjb_string,
    info: *mut super::types::mjb_read_info,
    f: impl FnOnce(&Endpoint) -> Result<(String, crate::endpoint::Seen), Refusal>,
) -> mjb_outcome {
    call(|| {
        let info = zeroed(info);
        let out = out_param(out_string, std::ptr::null_mut(), "out_string")?;
        let (text, seen) = on_endpoint(ep, f)?;
        *out = super::string::new_string(text);
        if let Some(i) = info {
            *i = seen.into();
        }
        Ok(Outcome::MJB_OK)
    })
}

/// Run a document-producing export into a library-owned string.
///
/// # Safety
/// `out` is NULL or valid for writes.
pub unsafe fn read_into(
    ep: *mut mjb_endpoint,
    out_string: *mut *mut super::mjb_string,
    f: impl FnOnce(&Endpoint) -> Result<String, Refusal>,
) -> mjb_outcome {
    call(|| {
        let out = out_param(out_string, std::ptr::null_mut(), "out_string")?;
        let text = on_endpoint(ep, f)?;
        *out = super::string::new_string(text);
        Ok(Outcome::MJB_OK)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_whose_generations_are_used_up_is_retired_never_reused() {
        let mut s = Slab::new();
        let (i, g) = s.insert(1u32);
        assert_eq!((i, g), (0, 0));
        assert_eq!(s.remove(i, g), Ok(1));
        assert_eq!(s.remove(i, g), Err(Gone::Freed), "a second free");
        assert_eq!(s.get(i, g), Err(Gone::Freed));
        // The freed slot serves the next insertion, under the next generation.
        assert_eq!(s.insert(2), (0, 1));
        assert_eq!(
            s.get(0, 0),
            Err(Gone::Freed),
            "the old number names nothing"
        );
        assert_eq!(s.get(0, 1), Ok(&2));
        // A slot at its last generation: removed, it is retired, not wrapped to 0.
        s.slots[0].0 = RP_GEN_MASK;
        assert_eq!(s.remove(0, RP_GEN_MASK), Ok(2));
        assert_eq!(s.insert(3), (1, 0), "a new slot, not the retired one");
        for g in [0, 1, RP_GEN_MASK] {
            assert_eq!(s.get(0, g), Err(Gone::Freed), "generation {g}");
            assert_eq!(s.remove(0, g), Err(Gone::Freed), "generation {g}");
        }
        assert_eq!(s.get(7, 0), Err(Gone::Unknown));
        // Handles round-trip through their numbers.
        for n in [(0, 0, 0), (5, RP_SHARDS - 1, RP_GEN_MASK), (1 << 20, 3, 7)] {
            let n = RpNumber {
                index: n.0,
                shard: n.1,
                generation: n.2,
            };
            assert_eq!(rp_number(rp_handle(n)), Some(n));
        }
    }
}
