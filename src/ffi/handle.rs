//! Handles: the one scheme for every object C holds by pointer (endpoints, restore points,
//! library-owned strings, frame readers). A handle is a number, never an address: a closed or freed handle
//! is told from a live one (and from another kind's) without touching freed memory, in
//! constant time, and a number is never given out twice.
//!
//! Each kind has a table ([`Handles`]): sixteen shards, each a slab of slots with
//! generations. A removed object's slot serves a later insertion under the next generation,
//! so every number the slot gave out before names nothing live; a slot whose generations are
//! used up is retired, never wrapped. A lookup finds its slot without a lock (slots live in
//! segments that never move) and hands out what keeps the object alive for the whole call,
//! even if another thread frees the handle meanwhile. Insertions and removals lock their
//! shard only, so threads that each use their own endpoint (and its restore points) do not
//! contend. How a slot holds its object is the kind's choice ([`Cell`]): [`Shared`] for
//! objects looked up by every call and made rarely (endpoints: a lookup takes no lock and
//! writes no shared memory; frame readers, which a thread's reads also find in a per-thread
//! cache), [`Owned`] for objects made and freed as often as they are used (restore points, strings: a
//! cheap insertion and removal, a lookup under the slot's own small lock).
//!
//! [`Handle`] ties a C handle type to its object and its table (rustls-ffi's `Castable`, for
//! numbered handles); [`issue`], [`resolve`] and [`free`] are the only ways in and out, and
//! every refusal is [`Handles::refusal`]'s: `MJB_REASON_NULL_ARGUMENT`, `MJB_REASON_CLOSED`
//! (given out once, now closed or freed) or `MJB_REASON_FOREIGN_HANDLE` (never given out by
//! this table: another kind's handle, an address, any other number).

use super::pointer::null_refusal;
use crate::outcome::{Outcome, Reason, Refusal};
use arc_swap::ArcSwapOption;
use parking_lot::Mutex;
use std::cell::UnsafeCell;
use std::ops::Deref;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

const _: () = assert!(usize::BITS == 64, "handle numbers need 64-bit pointers");

// A handle's bits, low to high: four zero bits (aligned like a pointer), the generation, the
// shard, the slot's index, the kind's tag (the top bit stays clear, so a host that reads a
// handle as a signed integer sees a positive one). User-space addresses have no tag bits.
const ZERO_BITS: u32 = 4;
const GEN_BITS: u32 = 20;
const SHARD_BITS: u32 = 4;
const INDEX_BITS: u32 = 32;
const GEN_SHIFT: u32 = ZERO_BITS;
const SHARD_SHIFT: u32 = GEN_SHIFT + GEN_BITS;
const INDEX_SHIFT: u32 = SHARD_SHIFT + SHARD_BITS;
const TAG_SHIFT: u32 = INDEX_SHIFT + INDEX_BITS;

const SHARDS: usize = 1 << SHARD_BITS;
const LAST_GENERATION: u32 = (1 << GEN_BITS) - 1;
/// A slot's generation once its last one was freed: above every number's.
const RETIRED: u32 = LAST_GENERATION + 1;
/// Slots one shard can hand out.
const SLOTS: usize = 1 << INDEX_BITS;

// Slots live in segments that never move (a lookup needs no lock): segment k holds
// FIRST << k slots, allocated when the first of them is handed out.
const FIRST_BITS: u32 = 5;
const FIRST: usize = 1 << FIRST_BITS;
const SEGMENTS: usize = (INDEX_BITS + 1 - FIRST_BITS) as usize;

/// How a table names its handles: the tag in the numbers and the words of its refusals.
pub struct Kind {
    /// 1..=7, one per kind.
    pub tag: usize,
    /// The argument's name when it is NULL ("endpoint is NULL").
    pub what: &'static str,
    /// A handle given out once, now closed or freed.
    pub gone: &'static str,
    /// A number this table never gave out.
    pub foreign: &'static str,
}

/// What a number a table did not resolve was.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Gone {
    /// Given out once; its object was removed.
    Freed,
    /// Never given out by this table.
    Unknown,
}

/// Which shard, which slot, which generation.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Number {
    shard: usize,
    index: usize,
    generation: u32,
}

fn encode(tag: usize, n: Number) -> usize {
    (tag << TAG_SHIFT)
        | (n.index << INDEX_SHIFT)
        | (n.shard << SHARD_SHIFT)
        | ((n.generation as usize) << GEN_SHIFT)
}

/// The number a handle of this tag carries, if it is one.
fn decode(tag: usize, h: usize) -> Option<Number> {
    if h >> TAG_SHIFT != tag || h & ((1 << ZERO_BITS) - 1) != 0 {
        return None;
    }
    let bits = |shift: u32, width: u32| (h >> shift) & ((1 << width) - 1);
    Some(Number {
        shard: bits(SHARD_SHIFT, SHARD_BITS),
        index: bits(INDEX_SHIFT, INDEX_BITS),
        generation: bits(GEN_SHIFT, GEN_BITS) as u32,
    })
}

/// Which segment holds slot `index`, and where in it.
fn place(index: usize) -> (usize, usize) {
    let j = index + FIRST;
    let k = (usize::BITS - 1 - j.leading_zeros() - FIRST_BITS) as usize;
    (k, j - (FIRST << k))
}

/// How a slot holds its object.
pub trait Cell: Send + Sync + Sized + 'static {
    type Object: Send + Sync + 'static;
    /// What a lookup hands out: the object stays alive while it lives.
    type Live: Deref<Target = Self::Object>;
    /// Whether a lookup takes the shard's writer lock.
    const LOCKED: bool;
    /// An empty slot's cell (a fresh value each time it is named).
    const EMPTY: Self;
    /// # Safety
    /// When [`Cell::LOCKED`], the caller holds the writer lock of the slot's shard.
    unsafe fn load(&self) -> Option<Self::Live>;
    /// # Safety
    /// The caller holds the writer lock of the slot's shard.
    unsafe fn put(&self, object: Arc<Self::Object>);
    /// # Safety
    /// The caller holds the writer lock of the slot's shard.
    unsafe fn take(&self) -> Option<Arc<Self::Object>>;
}

/// A lookup takes no lock and writes no shared memory (arc-swap's loads use per-thread
/// slots); an insertion or a removal settles with the readers of every thread, so it costs
/// more.
pub struct Shared<T>(ArcSwapOption<T>);

/// What a lookup in a [`Shared`] slot hands out: a loaded `Arc`, not counted.
pub struct Loaded<T>(arc_swap::Guard<Option<Arc<T>>>);

impl<T> Loaded<T> {
    /// A counted reference to the object, to keep beyond the call.
    pub fn to_arc(&self) -> Arc<T> {
        Arc::clone(
            self.0
                .as_ref()
                .expect("only a live slot's load is handed out"),
        )
    }
}

impl<T> Deref for Loaded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.0
            .as_deref()
            .expect("only a live slot's load is handed out")
    }
}

impl<T: Send + Sync + 'static> Cell for Shared<T> {
    type Object = T;
    type Live = Loaded<T>;
    const LOCKED: bool = false;
    #[allow(clippy::declare_interior_mutable_const)] // only ever copied into a new slot
    const EMPTY: Self = Shared(ArcSwapOption::const_empty());
    unsafe fn load(&self) -> Option<Loaded<T>> {
        let g = self.0.load();
        g.is_some().then_some(Loaded(g))
    }
    unsafe fn put(&self, object: Arc<T>) {
        self.0.store(Some(object));
    }
    unsafe fn take(&self) -> Option<Arc<T>> {
        self.0.swap(None)
    }
}

/// A lookup locks the shard (as an insertion and a removal do) and counts a reference; an
/// insertion and a removal cost one uncontended lock.
pub struct Owned<T>(UnsafeCell<Option<Arc<T>>>);

// SAFETY: the value is only reached through `Cell`'s methods, whose callers hold the shard's
// writer lock (`LOCKED`), so one thread at a time touches it; `Arc<T>` is Send and Sync for
// these `T`.
unsafe impl<T: Send + Sync> Sync for Owned<T> {}
unsafe impl<T: Send + Sync> Send for Owned<T> {}

impl<T: Send + Sync + 'static> Cell for Owned<T> {
    type Object = T;
    type Live = Arc<T>;
    const LOCKED: bool = true;
    #[allow(clippy::declare_interior_mutable_const)] // only ever copied into a new slot
    const EMPTY: Self = Owned(UnsafeCell::new(None));
    unsafe fn load(&self) -> Option<Arc<T>> {
        // SAFETY: the shard's writer lock is held (the trait's contract).
        unsafe { (*self.0.get()).clone() }
    }
    unsafe fn put(&self, object: Arc<T>) {
        // SAFETY: as for `load`.
        unsafe { *self.0.get() = Some(object) }
    }
    unsafe fn take(&self) -> Option<Arc<T>> {
        // SAFETY: as for `load`.
        unsafe { (*self.0.get()).take() }
    }
}

struct Slot<C> {
    /// The generation of the slot's object, or of its next one while it is empty.
    generation: AtomicU32,
    value: C,
}

impl<C: Cell> Slot<C> {
    #[allow(clippy::declare_interior_mutable_const)] // only ever copied into a new slot
    const EMPTY: Self = Slot {
        generation: AtomicU32::new(0),
        value: C::EMPTY,
    };
}

/// The writers' side of a shard.
struct Writer {
    /// Emptied slots, for the next insertions (the latest first: its lines are warm).
    free: Vec<u32>,
    /// Slots handed out so far.
    len: usize,
}

/// Cache lines of their own.
#[repr(align(128))]
struct Lines<X>(X);

#[repr(align(128))]
struct Shard<C> {
    /// On lines of its own: readers never write it, nor see it written.
    writer: Lines<Mutex<Writer>>,
    /// The first slots, in place: most tables never need more (a segment lookup saved).
    first: [Slot<C>; FIRST],
    /// The slots after those (segment 0 stays unused: `first` holds its slots).
    segments: [OnceLock<Box<[Slot<C>]>>; SEGMENTS],
}

impl<C: Cell> Shard<C> {
    const fn new() -> Self {
        Shard {
            writer: Lines(Mutex::new(Writer {
                free: Vec::new(),
                len: 0,
            })),
            first: [const { Slot::EMPTY }; FIRST],
            segments: [const { OnceLock::new() }; SEGMENTS],
        }
    }

    fn slot(&self, index: usize) -> Option<&Slot<C>> {
        if let Some(s) = self.first.get(index) {
            return Some(s);
        }
        let (k, at) = place(index);
        self.segments.get(k)?.get()?.get(at)
    }

    /// Why a lookup of `n` failed, under the writer lock (a refusal's path only).
    #[cold]
    #[inline(never)]
    fn diagnose(&self, n: Number) -> Gone {
        let w = self.writer.0.lock();
        match self.slot(n.index) {
            Some(s) if n.index < w.len && n.generation < s.generation.load(Ordering::Relaxed) => {
                Gone::Freed
            }
            _ => Gone::Unknown,
        }
    }
}

/// One kind's table of live objects by handle number.
pub struct Handles<C> {
    kind: Kind,
    shards: [Shard<C>; SHARDS],
}

impl<C: Cell> Handles<C> {
    pub const fn new(kind: Kind) -> Self {
        Handles {
            kind,
            shards: [const { Shard::new() }; SHARDS],
        }
    }

    /// Give `object` a number, in shard `key` modulo the shards.
    pub fn insert(&self, key: u64, object: Arc<C::Object>) -> Result<usize, Refusal> {
        let shard = (key % SHARDS as u64) as usize;
        let s = &self.shards[shard];
        let mut w = s.writer.0.lock();
        let index = match w.free.pop() {
            Some(i) => i as usize,
            None if w.len < SLOTS => {
                let (k, _) = place(w.len);
                if w.len >= FIRST {
                    s.segments[k].get_or_init(|| (0..FIRST << k).map(|_| Slot::EMPTY).collect());
                }
                w.len += 1;
                w.len - 1
            }
            None => {
                return Err(Refusal::rejected(
                    Reason::TooLarge,
                    format!(
                        "every {} number of this shard was given out; nothing was made",
                        self.kind.what
                    ),
                ))
            }
        };
        let slot = s.slot(index).expect("the slot's segment is allocated");
        let generation = slot.generation.load(Ordering::Relaxed);
        // SAFETY: the shard's writer lock is held (`w`).
        unsafe { slot.value.put(object) };
        Ok(encode(
            self.kind.tag,
            Number {
                shard,
                index,
                generation,
            },
        ))
    }

    /// The live object behind number `h` (no lock).
    pub fn get(&self, h: usize) -> Result<C::Live, Gone> {
        let n = decode(self.kind.tag, h).ok_or(Gone::Unknown)?;
        let s = &self.shards[n.shard];
        let slot = s.slot(n.index).ok_or(Gone::Unknown)?;
        // The value first, then its generation: a later insertion into the slot stores after
        // the removal moved the generation on, so a value loaded here that is not this
        // number's object shows a generation that is not this number's.
        let locked = C::LOCKED.then(|| s.writer.0.lock());
        // SAFETY: the shard's writer lock is held when the cell needs it (`locked`).
        if let Some(v) = unsafe { slot.value.load() } {
            if slot.generation.load(Ordering::Acquire) == n.generation {
                return Ok(v);
            }
        }
        drop(locked);
        Err(s.diagnose(n))
    }

    /// Take the object out; its number names nothing from now on.
    pub fn remove(&self, h: usize) -> Result<Arc<C::Object>, Gone> {
        let n = decode(self.kind.tag, h).ok_or(Gone::Unknown)?;
        let s = &self.shards[n.shard];
        let mut w = s.writer.0.lock();
        let slot = match s.slot(n.index) {
            Some(slot) if n.index < w.len => slot,
            _ => return Err(Gone::Unknown),
        };
        let g = slot.generation.load(Ordering::Relaxed);
        if n.generation != g {
            return Err(if n.generation < g {
                Gone::Freed
            } else {
                Gone::Unknown
            });
        }
        // Emptied, then the generation moved on: a lookup that loaded the object before it was
        // taken may still answer with it (the call came first); one that loads the slot's next
        // object sees the next generation (an insertion comes after both).
        // SAFETY: the shard's writer lock is held (`w`).
        let Some(v) = (unsafe { slot.value.take() }) else {
            return Err(Gone::Unknown); // the slot's next generation, not given out yet
        };
        let next = if g == LAST_GENERATION { RETIRED } else { g + 1 };
        slot.generation.store(next, Ordering::Release);
        if next != RETIRED {
            w.free.push(n.index as u32);
        }
        Ok(v)
    }

    /// The refusal for a number that did not resolve: the same shape for every kind.
    #[cold]
    pub fn refusal(&self, gone: Gone) -> Refusal {
        let (reason, message) = match gone {
            Gone::Freed => (Reason::Closed, self.kind.gone),
            Gone::Unknown => (Reason::ForeignHandle, self.kind.foreign),
        };
        Refusal::new(Outcome::InvalidArgument, reason, message)
    }
}

/// A C handle type, the Rust object behind it and the table that maps one to the other.
pub trait Handle: Sized + 'static {
    type Cell: Cell;
    fn handles() -> &'static Handles<Self::Cell>;
}

type Object<H> = <<H as Handle>::Cell as Cell>::Object;

/// A new handle for `object`, in the shard of `key` (objects used together share one).
pub fn issue<H: Handle>(key: u64, object: Arc<Object<H>>) -> Result<*mut H, Refusal> {
    H::handles().insert(key, object).map(|h| h as *mut H)
}

/// The live object behind a handle: NULL, closed, freed and foreign handles are refused.
pub fn resolve<H: Handle>(h: *const H) -> Result<<H::Cell as Cell>::Live, Refusal> {
    let t = H::handles();
    if h.is_null() {
        return Err(null_refusal(t.kind.what));
    }
    t.get(h as usize).map_err(|g| t.refusal(g))
}

/// Close a handle: its object (dropped when the last call using it returns), or `None` for
/// NULL (freeing NULL is a no-op); a second free is refused.
pub fn free<H: Handle>(h: *mut H) -> Result<Option<Arc<Object<H>>>, Refusal> {
    if h.is_null() {
        return Ok(None);
    }
    let t = H::handles();
    t.remove(h as usize).map(Some).map_err(|g| t.refusal(g))
}

/// A shard key for objects that belong to no endpoint: the calling thread's own, so threads
/// that each make and free their own strings do not contend.
pub fn thread_key() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    thread_local! {
        static KEY: u64 = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    KEY.with(|k| *k)
}

// ---- the kinds ----------------------------------------------------------------------------------
//
// Every kind's tag and words, in one list (the tags differ: checked below). Each kind's table
// and its `impl Handle` live with the object, in the room that makes it (`ffi/endpoint.rs`,
// `ffi/restore_point.rs`, `ffi/string.rs`, `ffi/frame_reader.rs`), so this room names no
// object type and imports none of them.

pub const ENDPOINT: Kind = Kind {
    tag: 1,
    what: "endpoint",
    gone: "the endpoint handle was closed",
    foreign: "not an endpoint handle issued by this library",
};

pub const RESTORE_POINT: Kind = Kind {
    tag: 2,
    what: "restore point",
    gone: "the restore point was freed",
    foreign: "not a restore point of this library",
};

pub const STRING: Kind = Kind {
    tag: 3,
    what: "string",
    gone: "the string was freed",
    foreign: "not a string of this library",
};

pub const FRAME_READER: Kind = Kind {
    tag: 4,
    what: "frame reader",
    gone: "the frame reader was freed",
    foreign: "not a frame reader of this library",
};

/// Tie a C handle type to its table: `handle_kind!(mjb_string => Owned<mjb_string>, STRING)`
/// makes the kind's table (a `static` in the object's room) and its `impl Handle`.
macro_rules! handle_kind {
    ($c:ty => $cell:ident<$object:ty>, $kind:ident) => {
        impl $crate::ffi::handle::Handle for $c {
            type Cell = $crate::ffi::handle::$cell<$object>;
            fn handles() -> &'static $crate::ffi::handle::Handles<Self::Cell> {
                static TABLE: $crate::ffi::handle::Handles<$crate::ffi::handle::$cell<$object>> =
                    $crate::ffi::handle::Handles::new($crate::ffi::handle::$kind);
                &TABLE
            }
        }
    };
}
pub(crate) use handle_kind;

const _: () = {
    let tags = [
        ENDPOINT.tag,
        RESTORE_POINT.tag,
        STRING.tag,
        FRAME_READER.tag,
    ];
    let mut i = 0;
    while i < tags.len() {
        assert!(tags[i] >= 1 && tags[i] <= 7, "a tag is 1..=7");
        let mut j = i + 1;
        while j < tags.len() {
            assert!(tags[i] != tags[j], "two kinds share a tag");
            j += 1;
        }
        i += 1;
    }
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::{mjb_restore_point, mjb_string};

    fn table() -> Handles<Owned<u32>> {
        Handles::new(Kind {
            tag: 5,
            what: "thing",
            gone: "the thing was freed",
            foreign: "not a thing of this table",
        })
    }

    fn reason<C: Cell>(t: &Handles<C>, g: Gone) -> Reason {
        t.refusal(g).reason
    }

    #[test]
    fn a_live_number_resolves_to_its_object() {
        let t = table();
        let h = t.insert(3, Arc::new(7)).unwrap();
        assert_eq!(*t.get(h).unwrap(), 7);
        assert_eq!(h % 16, 0, "aligned like a pointer");
        assert_eq!(h >> TAG_SHIFT, 5);
        assert_eq!(*t.remove(h).unwrap(), 7);
        // Past the slots in place, into segments allocated as they are needed.
        let many: Vec<usize> = (0..200)
            .map(|v| t.insert(3, Arc::new(v)).unwrap())
            .collect();
        for (v, h) in many.iter().enumerate() {
            assert_eq!(*t.get(*h).unwrap(), v as u32);
        }
        assert_eq!(decode(5, many[199]).unwrap().index, 199);
        for (v, h) in many.iter().enumerate() {
            assert_eq!(*t.remove(*h).unwrap(), v as u32);
            assert_eq!(t.get(*h), Err(Gone::Freed));
        }
    }

    #[test]
    fn a_freed_number_is_refused_as_closed_and_a_second_free_too() {
        let t = table();
        let h = t.insert(0, Arc::new(1)).unwrap();
        t.remove(h).unwrap();
        assert_eq!(t.get(h), Err(Gone::Freed));
        assert_eq!(t.remove(h), Err(Gone::Freed));
        assert_eq!(reason(&t, Gone::Freed), Reason::Closed);
        let r = t.refusal(Gone::Freed);
        assert_eq!(r.outcome, Outcome::InvalidArgument);
        assert_eq!(r.message, "the thing was freed");
    }

    #[test]
    fn a_stale_generation_does_not_resolve_to_the_slots_new_object() {
        let t = table();
        let old = t.insert(0, Arc::new(1)).unwrap();
        t.remove(old).unwrap();
        let new = t.insert(0, Arc::new(2)).unwrap();
        let (o, n) = (decode(5, old).unwrap(), decode(5, new).unwrap());
        assert_eq!((o.index, o.shard), (n.index, n.shard), "the slot is reused");
        assert_eq!(n.generation, o.generation + 1);
        assert_ne!(old, new, "under a new number");
        assert_eq!(t.get(old), Err(Gone::Freed));
        assert_eq!(t.remove(old), Err(Gone::Freed));
        assert_eq!(*t.get(new).unwrap(), 2, "the stale free removed nothing");
    }

    #[test]
    fn numbers_never_given_out_are_foreign() {
        let t = table();
        let h = t.insert(0, Arc::new(1)).unwrap();
        let n = decode(5, h).unwrap();
        let unknown = [
            0x1234,                              // an address-like number
            h | 8,                               // not aligned
            encode(6, n),                        // another kind's tag
            encode(5, Number { index: 1, ..n }), // a slot never handed out
            encode(
                5,
                Number {
                    index: 1 << 20,
                    ..n
                },
            ), // in no allocated segment
            encode(5, Number { generation: 1, ..n }), // a generation to come
            encode(
                5,
                Number {
                    shard: n.shard + 1,
                    ..n
                },
            ), // a shard never used
        ];
        for u in unknown {
            assert_eq!(t.get(u), Err(Gone::Unknown), "{u:#x}");
            assert_eq!(t.remove(u), Err(Gone::Unknown), "{u:#x}");
        }
        assert_eq!(reason(&t, Gone::Unknown), Reason::ForeignHandle);
        assert_eq!(*t.get(h).unwrap(), 1, "refused frees removed nothing");
        // The slot's next generation is not given out until it is reused.
        t.remove(h).unwrap();
        let next = encode(5, Number { generation: 1, ..n });
        assert_eq!(t.get(next), Err(Gone::Unknown));
        assert_eq!(t.remove(next), Err(Gone::Unknown));
        assert_eq!(t.insert(0, Arc::new(2)).unwrap(), next);
    }

    #[test]
    fn a_slot_whose_generations_are_used_up_is_retired_never_reused() {
        let t = table();
        let h = t.insert(0, Arc::new(1)).unwrap();
        let n = decode(5, h).unwrap();
        t.remove(h).unwrap();
        let slot = t.shards[0].slot(n.index).unwrap();
        slot.generation.store(LAST_GENERATION, Ordering::Relaxed);
        let last = t.insert(0, Arc::new(2)).unwrap();
        assert_eq!(decode(5, last).unwrap().generation, LAST_GENERATION);
        t.remove(last).unwrap();
        let fresh = t.insert(0, Arc::new(3)).unwrap();
        assert_eq!(decode(5, fresh).unwrap().index, n.index + 1, "a new slot");
        for g in [0, 1, LAST_GENERATION] {
            let old = encode(5, Number { generation: g, ..n });
            assert_eq!(t.get(old), Err(Gone::Freed), "generation {g}");
            assert_eq!(t.remove(old), Err(Gone::Freed), "generation {g}");
        }
    }

    #[test]
    fn null_is_refused_as_a_null_argument_and_freeing_it_is_a_no_op() {
        let r = resolve::<mjb_restore_point>(std::ptr::null()).unwrap_err();
        assert_eq!(
            (r.outcome, r.reason),
            (Outcome::InvalidArgument, Reason::NullArgument)
        );
        assert_eq!(r.message, "restore point is NULL");
        assert!(matches!(free::<mjb_string>(std::ptr::null_mut()), Ok(None)));
    }

    #[test]
    fn numbers_round_trip_and_kinds_do_not_overlap() {
        for n in [
            (0, 0, 0),
            (5, SHARDS - 1, LAST_GENERATION),
            (SLOTS - 1, 3, 7),
        ] {
            let n = Number {
                index: n.0,
                shard: n.1,
                generation: n.2,
            };
            for tag in 1..=7 {
                let h = encode(tag, n);
                assert_eq!(decode(tag, h), Some(n));
                assert!(h < 1 << 63, "positive as a signed integer");
                assert_eq!(decode(tag % 7 + 1, h), None, "another kind's");
            }
        }
        let mut k = 0;
        for index in [0, FIRST - 1, FIRST, 3 * FIRST, SLOTS - 1] {
            let (seg, at) = place(index);
            assert!(seg < SEGMENTS && at < FIRST << seg, "{index}");
            assert!(seg >= k);
            k = seg;
        }
    }

    #[test]
    fn concurrent_lookups_see_their_object_or_a_refusal_never_another() {
        concurrently(Box::leak(Box::new(table())));
        concurrently(Box::leak(Box::new(Handles::<Shared<u32>>::new(Kind {
            tag: 6,
            what: "shared thing",
            gone: "the shared thing was freed",
            foreign: "not a shared thing",
        }))));
    }

    fn concurrently<C: Cell<Object = u32>>(t: &'static Handles<C>) {
        use std::sync::atomic::AtomicUsize;
        let h = t.insert(0, Arc::new(0)).unwrap();
        let refused: &'static AtomicUsize = Box::leak(Box::new(AtomicUsize::new(0)));
        let stop: &'static std::sync::atomic::AtomicBool = Box::leak(Box::default());
        let reader = std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                match t.get(h) {
                    Ok(v) => assert_eq!(*v, 0, "the first object only"),
                    Err(g) => {
                        assert_eq!(g, Gone::Freed);
                        refused.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        });
        t.remove(h).unwrap();
        // The slot is reused over and over while the old number is looked up: it must never
        // see those objects.
        let mut v = 1u32;
        while v < 20_000 || refused.load(Ordering::Relaxed) < 1_000 {
            let n = t.insert(0, Arc::new(v)).unwrap();
            assert_eq!(*t.get(n).unwrap(), v);
            t.remove(n).unwrap();
            v += 1;
        }
        stop.store(true, Ordering::Relaxed);
        reader.join().unwrap();
    }
}
