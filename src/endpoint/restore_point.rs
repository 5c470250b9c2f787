//! Restore points: a verified in-memory checkpoint. A capture copies, under the native lock,
//! exactly what the endpoint's profile restores (the integration state vector, or the public
//! fields on the basic profile) with its tick, stamped with the endpoint and the model
//! configuration it belongs to. Applying one runs the restore native phase of every restore
//! ([`Endpoint::install`]: pre-image, setter, bitwise readback, rollback proven or fence) with
//! the same admission, fence, stop-history, deadline and precondition rules, without printing
//! or parsing JSON. `to_json` prints the checkpoint document `mjb_checkpoint_read` would have
//! served at the capture, byte for byte; `from_json` validates a document exactly as
//! `mjb_restore` does and keeps what it restores.
//!
//! A restore point is immutable: any thread may apply it, to its own endpoint.

use super::image::Image;
use super::read::print_checkpoint;
use super::{engine_refusal, Answer, Call, Endpoint, Shape};
use crate::checkpoint::{Buffers, Profile};
use crate::doc::Source;
use crate::native::Public;
use crate::outcome::{Reason, Refusal};
use crate::world;
use std::sync::Arc;

/// Freed restore points of an endpoint, reused whole by its next captures (their state
/// buffer and their allocation): a host that captures, applies and frees in a loop allocates
/// nothing after the first capture.
#[derive(Debug, Default)]
pub(super) struct Pool(parking_lot::Mutex<Vec<Arc<RestorePoint>>>);

/// Restore points kept for reuse per endpoint (more would only hold memory).
const POOLED: usize = 8;

impl Pool {
    /// A freed restore point whose state buffer has `size` values, owned by nobody else.
    fn take(&self, size: usize) -> Option<Arc<RestorePoint>> {
        let mut spare = self.0.lock();
        while let Some(rp) = spare.pop() {
            if matches!(&rp.held, Held::State(b) if b.len() == size) {
                return Some(rp);
            }
        }
        None
    }
}

/// Keep a freed restore point for its endpoint's next capture, when nobody else holds it (an
/// apply on another thread may still), it holds a state vector and the endpoint is alive.
pub(crate) fn recycle(rp: Arc<RestorePoint>) {
    if Arc::strong_count(&rp) != 1 || !matches!(rp.held, Held::State(_)) {
        return;
    }
    if let Some(pool) = rp.pool.upgrade() {
        let mut spare = pool.0.lock();
        if spare.len() < POOLED {
            spare.push(rp);
        }
    }
}

/// A restore point's state vector: a heap buffer whose placement is chosen, not left to the
/// allocator. A 256 KiB state (1032 boxes) from glibc's brk heap lands at whatever page offset
/// the heap's history gives it, and some offsets made `mj_setState`'s copy from it into mjData
/// 3-4x slower (the apply 100-140 us against 28; docs/performance.md, "The 1032-box apply"):
/// large buffers are page-aligned, small ones cache-line aligned.
pub(super) struct StateBuf {
    ptr: std::ptr::NonNull<f64>,
    len: usize,
}

// SAFETY: a uniquely owned heap buffer of plain doubles, like a `Box<[f64]>`.
unsafe impl Send for StateBuf {}
// SAFETY: as above; shared access is read-only through `Deref`.
unsafe impl Sync for StateBuf {}

impl StateBuf {
    /// From this many bytes on, a buffer is page-aligned.
    const PAGE_FROM: usize = 64 * 1024;

    fn layout(len: usize) -> std::alloc::Layout {
        let bytes = len
            .checked_mul(std::mem::size_of::<f64>())
            .expect("state size");
        let align = if bytes >= Self::PAGE_FROM { 4096 } else { 64 };
        std::alloc::Layout::from_size_align(bytes, align).expect("state size")
    }

    /// `len` zeros.
    pub(super) fn zeroed(len: usize) -> StateBuf {
        if len == 0 {
            return StateBuf {
                ptr: std::ptr::NonNull::dangling(),
                len,
            };
        }
        let layout = Self::layout(len);
        // SAFETY: a non-zero size; all-zero bytes are the double 0.0.
        let p = unsafe { std::alloc::alloc_zeroed(layout) };
        let ptr = std::ptr::NonNull::new(p.cast::<f64>())
            .unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        StateBuf { ptr, len }
    }

    fn from_slice(v: &[f64]) -> StateBuf {
        let mut b = Self::zeroed(v.len());
        b.copy_from_slice(v);
        b
    }
}

impl std::ops::Deref for StateBuf {
    type Target = [f64];
    fn deref(&self) -> &[f64] {
        // SAFETY: `ptr` holds `len` initialised doubles (or is dangling with `len` 0).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl std::ops::DerefMut for StateBuf {
    fn deref_mut(&mut self) -> &mut [f64] {
        // SAFETY: as for `deref`, and `self` is borrowed uniquely.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for StateBuf {
    fn drop(&mut self) {
        if self.len > 0 {
            // SAFETY: allocated in `zeroed` with this very layout.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr().cast(), Self::layout(self.len)) };
        }
    }
}

impl std::fmt::Debug for StateBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StateBuf({} values)", self.len)
    }
}

/// What a restore point holds of the state.
#[derive(Debug)]
enum Held {
    /// The integration state vector (`mujoco_integration_v1`).
    State(StateBuf),
    /// The public fields (`mujoco_basic_v1`).
    Public(Public),
}

/// A captured (or read) state of one endpoint, for one model configuration.
#[derive(Debug)]
pub struct RestorePoint {
    /// The endpoint it belongs to ([`Endpoint::serial`]).
    endpoint: u64,
    /// The model configuration it belongs to: its facts print its checkpoint.
    shape: Arc<Shape>,
    profile: Profile,
    seed: u64,
    tick: u64,
    held: Held,
    /// Where it goes back when it is freed (its endpoint's pool).
    pool: std::sync::Weak<Pool>,
}

impl RestorePoint {
    /// The endpoint it belongs to ([`Endpoint::serial`]).
    pub fn endpoint(&self) -> u64 {
        self.endpoint
    }

    /// The tick it restores.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// The model configuration it belongs to.
    pub fn configuration(&self) -> u64 {
        self.shape.configuration
    }

    fn image(&self) -> Image<'_> {
        match &self.held {
            Held::State(v) => Image::State(v),
            Held::Public(p) => Image::Public(p),
        }
    }

    /// The checkpoint document of this state: what `mjb_checkpoint_read` served (or would have
    /// served) at the capture, byte for byte.
    pub fn to_json(&self) -> Result<String, Refusal> {
        let facts = self.shape.facts(self.profile, self.seed);
        print_checkpoint(&facts, self.image(), self.tick, 0)
    }
}

impl Endpoint {
    /// Capture a restore point: under the native lock, what this endpoint's profile restores,
    /// and the tick. Works on a fenced endpoint (a read), as a checkpoint read does.
    pub fn capture(&self, timeout_ms: u32) -> Result<Arc<RestorePoint>, Refusal> {
        let n = self.admit(timeout_ms)?;
        let read = |e| engine_refusal(&e, "reading the state");
        let held = match self.profile {
            Profile::Integration => {
                let l = n
                    .shape
                    .layout
                    .as_ref()
                    .expect("the integration profile has a layout");
                if let Some(mut reused) = self.pool.take(l.size) {
                    let rp = Arc::get_mut(&mut reused).expect("pooled restore points are unique");
                    let Held::State(state) = &mut rp.held else {
                        unreachable!("pooled restore points hold a state vector")
                    };
                    n.mj.get_state(l.sig, state).map_err(read)?;
                    if !Arc::ptr_eq(&rp.shape, &n.shape) {
                        rp.shape = n.shape.clone();
                    }
                    rp.tick = n.tick;
                    return Ok(reused);
                }
                let mut state = StateBuf::zeroed(l.size);
                n.mj.get_state(l.sig, &mut state).map_err(read)?;
                Held::State(state)
            }
            Profile::Basic => Held::Public(n.mj.public()),
        };
        Ok(Arc::new(RestorePoint {
            endpoint: self.serial,
            shape: n.shape.clone(),
            profile: self.profile,
            seed: self.seed,
            tick: n.tick,
            held,
            pool: Arc::downgrade(&self.pool),
        }))
    }

    /// A restore point from a checkpoint or world document, validated exactly as
    /// [`Endpoint::restore`] validates it (no lock, no native call). It belongs to this
    /// endpoint and its current model configuration.
    pub fn restore_point_from<'a>(
        &self,
        doc: impl Source<'a>,
    ) -> Result<Arc<RestorePoint>, Refusal> {
        let shape = self.shape();
        let mut bufs = Buffers::default();
        let c = world::validate_restore(doc.text()?, &self.facts(&shape), &mut bufs)?;
        let held = match c.profile {
            Profile::Integration => Held::State(StateBuf::from_slice(&c.buffers.values)),
            Profile::Basic => Held::Public(c.public()),
        };
        Ok(Arc::new(RestorePoint {
            endpoint: self.serial,
            tick: c.tick(),
            shape,
            profile: self.profile,
            seed: self.seed,
            held,
            pool: Arc::downgrade(&self.pool),
        }))
    }

    /// Apply a restore point of this endpoint: admitted and checked like a restore (fence,
    /// deadline, precondition; admitted while stopped, the stop history kept), refused when it
    /// was taken on another endpoint or under another model configuration, then the restore
    /// native phase.
    pub fn apply(&self, rp: &RestorePoint, call: impl Into<Call>) -> Answer {
        if rp.endpoint != self.serial {
            return Answer::refused_at(
                Refusal::rejected(
                    Reason::OtherEndpoint,
                    "the restore point belongs to another endpoint; nothing was done",
                ),
                self.safety.view_tick(),
            );
        }
        self.mutate(call.into(), |n, _| {
            if !Arc::ptr_eq(&n.shape, &rp.shape) {
                let r = Refusal::rejected(
                    Reason::Configuration,
                    format!(
                        "the restore point belongs to model configuration {}; the endpoint is at {} (the model was replaced); nothing was done",
                        rp.shape.configuration, n.shape.configuration
                    ),
                );
                return Answer::refused_at(r, n.tick);
            }
            self.install(n, rp.image(), rp.tick)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::StateBuf;

    #[test]
    fn state_buffers_hold_their_values_at_their_alignment() {
        let empty = StateBuf::zeroed(0);
        assert!(empty.is_empty());
        for len in [1usize, 233, 8191, 8192, 31_999] {
            let values: Vec<f64> = (0..len).map(|i| i as f64 - 0.5).collect();
            let b = StateBuf::from_slice(&values);
            assert_eq!(b.len(), len);
            assert!(b
                .iter()
                .zip(&values)
                .all(|(a, v)| a.to_bits() == v.to_bits()));
            let align = if len * 8 >= StateBuf::PAGE_FROM {
                4096
            } else {
                64
            };
            assert_eq!(b.as_ptr() as usize % align, 0, "{len} values");
            let z = StateBuf::zeroed(len);
            assert!(z.iter().all(|v| v.to_bits() == 0));
        }
    }
}
