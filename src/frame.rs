//! Frames: what a host sees of the simulation without the native lock.
//!
//! After every native mutation that changes state (each engine step, restore, rollback, input
//! write, model replacement, and at open) the holder of the native lock publishes a *frame*:
//! tick, time, cause, and the fields the host selected at open. Readers copy the latest complete
//! frame without the lock; they never wait for a step in progress and never see a torn frame.
//!
//! The scheme is a **seqlock over three slots** (Lamport's version counters; the memory-model
//! recipe of Boehm, "Can seqlocks get along with programming language memory models?", 2012):
//! - every slot has a sequence number, odd while it is being written;
//! - the single writer (the native lock's holder) always writes the slot *after* the latest one:
//!   `seq = odd` (relaxed), release fence, payload stores (relaxed), `seq = even` (release),
//!   then `latest = slot` (release);
//! - a reader loads `latest` (acquire) and that slot's `seq` (acquire), copies the payload
//!   (relaxed loads), issues an acquire fence and loads `seq` again: equal and even means every
//!   value it copied belongs to one publication. Otherwise the writer lapped it (it published
//!   two more frames and came back to this slot during the copy) and the reader starts over on
//!   the new latest slot, which is complete. A reader never waits for the writer.
//!
//! The payload is `AtomicU64` (the bits of each double), so concurrent reads and writes are
//! atomic accesses, not data races: no undefined behaviour in Rust. Slots are allocated when
//! the model is (open, replacement); publishing allocates nothing.
//!
//! Model replacement swaps the whole [`View`] (model facts and frame slots) through an
//! `arc-swap` pointer, so a reader sees either the old model's frames or the new one's.

use crate::native::fields::{Catalog, Class, Field, FIELD_COUNT};
use crate::native::{copy_words, Dims, Mujoco, NativeError};
use crate::outcome::{Reason, Refusal};
use arc_swap::ArcSwap;
use std::sync::atomic::{fence, AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering::*};
use std::sync::Arc;

/// Slots per frame buffer: a reader is only disturbed when the writer publishes twice during
/// one read.
const SLOTS: usize = 3;

// Header words at the start of every slot.
const H_TICK: usize = 0;
const H_TIME: usize = 1;
const H_FRAME: usize = 2;
const H_CAUSE: usize = 3;
const H_STALE: usize = 4;
const HEADER: usize = 5;

abi_enum! {
    /// Why a frame was published (`mjb_frame_cause` in C, the same values).
    pub enum Cause {
        Open = "MJB_FRAME_OPEN",
        Step = "MJB_FRAME_STEP",
        Restore = "MJB_FRAME_RESTORE",
        Input = "MJB_FRAME_INPUT",
        Replace = "MJB_FRAME_REPLACE",
        Rollback = "MJB_FRAME_ROLLBACK",
    }
}

impl Cause {
    fn from_u64(v: u64) -> Cause {
        i32::try_from(v)
            .ok()
            .and_then(Cause::from_i32)
            .unwrap_or(Cause::Open)
    }

    /// Causes after which the owned data's derived arrays do not describe its state (the state
    /// was set without running the pipeline, which the bridge never does on the owned data).
    fn state_set_directly(self) -> bool {
        !matches!(self, Cause::Step | Cause::Input)
    }
}

/// When frames are published during a multi-step call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Publish {
    /// After every engine step (the default).
    EveryStep,
    /// Once, when the step call returns.
    EndOfCall,
}

/// The fields a host selected at open (`"frame"` in the endpoint config).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Selection {
    pub fields: Vec<Field>,
    pub publish: Publish,
}

impl Default for Selection {
    /// qpos, qvel, act, ctrl, sensordata, xpos, xquat, mocap_pos, mocap_quat; every step.
    fn default() -> Self {
        use crate::native::fields::Field::*;
        Selection {
            fields: vec![
                Qpos, Qvel, Act, Ctrl, Sensordata, Xpos, Xquat, MocapPos, MocapQuat,
            ],
            publish: Publish::EveryStep,
        }
    }
}

impl Selection {
    fn mask(&self) -> u64 {
        self.fields.iter().fold(0, |m, f| m | f.bit())
    }

    fn has_poses(&self) -> bool {
        self.fields.iter().any(|f| f.class() == Class::Pose)
    }
}

struct Slot {
    seq: AtomicU64,
    /// The header and the payload, in whole 128-byte blocks of their own: the writer stores
    /// into every block each publication, and no other endpoint's allocation shares them.
    lines: Box<[Line]>,
    len: usize,
}

/// 16 words on two cache lines of their own.
#[repr(C, align(128))]
struct Line([AtomicU64; 16]);

impl Slot {
    fn new(len: usize) -> Slot {
        Slot {
            seq: AtomicU64::new(0),
            lines: (0..len.div_ceil(16))
                .map(|_| Line(std::array::from_fn(|_| AtomicU64::new(0))))
                .collect(),
            len,
        }
    }

    fn words(&self) -> &[AtomicU64] {
        // SAFETY: `Line` is 16 `AtomicU64`s with no padding (`repr(C)`, 128 bytes), so the
        // blocks are `16 * lines.len() >= len` contiguous words.
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast::<AtomicU64>(), self.len) }
    }
}

/// The frame slots of one model configuration; 128-byte aligned like the slots' blocks, so
/// the sequence numbers the writer stores are on lines no other endpoint writes.
#[repr(align(128))]
struct FrameBuf {
    /// Where each selected field is in a slot (`None`: not selected).
    at: [Option<Span>; FIELD_COUNT],
    /// What a publication copies: the fields with values, each with where it comes from
    /// (decided once per configuration, not per publication).
    copies: Vec<Copy>,
    mask: u64,
    latest: AtomicUsize,
    slots: [Slot; SLOTS],
}

/// A selected field's words in a slot: `len` values from `offset` (after the header).
#[derive(Clone, Copy)]
struct Span {
    offset: usize,
    len: usize,
}

/// One field of a publication: `len` values at `offset` in the slot.
struct Copy {
    field: Field,
    offset: usize,
    len: usize,
    kind: CopyKind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum CopyKind {
    /// From the owned data.
    Data,
    /// A pose: from the owned data, or from the scratch data after a state was set directly.
    Pose,
    /// `eq_active`: bytes, published as 0.0 or 1.0.
    EqActive,
}

impl FrameBuf {
    fn new(sel: &Selection, dims: &Dims) -> FrameBuf {
        let mut layout = Vec::with_capacity(sel.fields.len());
        let mut at = [None; FIELD_COUNT];
        let mut offset = HEADER;
        for &f in &sel.fields {
            let len = f.len(dims);
            at[f.index()] = Some(Span { offset, len });
            layout.push((f, offset, len));
            offset += len;
        }
        let slot = || Slot::new(offset);
        let copies = layout
            .iter()
            .filter(|(_, _, len)| *len > 0)
            .map(|&(field, offset, len)| Copy {
                field,
                offset,
                len,
                kind: if field == Field::EqActive {
                    CopyKind::EqActive
                } else if field.class() == Class::Pose {
                    CopyKind::Pose
                } else {
                    CopyKind::Data
                },
            })
            .collect();
        FrameBuf {
            at,
            copies,
            mask: sel.mask(),
            latest: AtomicUsize::new(0),
            slots: [slot(), slot(), slot()],
        }
    }
}

/// What readers see of one model configuration: its facts and its frames. Replaced as a whole
/// when the model is.
pub struct View {
    pub dims: Dims,
    pub configuration: u64,
    pub catalog: Catalog,
    frames: FrameBuf,
    /// Whether this view still shows the endpoint's frames: [`LIVE`], or why not
    /// ([`REPLACED`], [`CLOSED`]). Set once, before the endpoint stops publishing into it;
    /// a [`Prepared`] read checks it.
    retired: AtomicU8,
    /// Set when the endpoint closes: shared by every view it ever made, so a reader of a view
    /// replaced before the close is refused as closed too, not as replaced.
    closed: Arc<AtomicBool>,
}

const LIVE: u8 = 0;
const REPLACED: u8 = 1;
const CLOSED: u8 = 2;

/// One read's destination: a field and the caller's buffer for it.
pub struct Request<'a> {
    pub field: Field,
    pub out: &'a mut [f64],
    /// Set to the number of doubles copied.
    pub written: usize,
}

/// Where a read puts its values: requests numbered `0..count()`, each a field and a buffer.
pub trait Requests {
    fn count(&self) -> usize;
    fn field(&self, k: usize) -> Field;
    fn out(&mut self, k: usize) -> &mut [f64];
    /// How many doubles request `k`'s buffer holds (`out(k).len()`).
    fn cap(&self, k: usize) -> usize;
    fn set_written(&mut self, k: usize, n: usize);
}

impl Requests for [Request<'_>] {
    fn count(&self) -> usize {
        self.len()
    }
    fn field(&self, k: usize) -> Field {
        self[k].field
    }
    fn out(&mut self, k: usize) -> &mut [f64] {
        self[k].out
    }
    fn cap(&self, k: usize) -> usize {
        self[k].out.len()
    }
    fn set_written(&mut self, k: usize, n: usize) {
        self[k].written = n;
    }
}

/// Where a read's frame header goes: a [`FrameInfo`], or a caller's own type (the C ABI's
/// struct), filled in place.
pub trait Header {
    fn set(&mut self, info: FrameInfo);
}

impl Header for FrameInfo {
    #[inline]
    fn set(&mut self, info: FrameInfo) {
        *self = info;
    }
}

/// What a read returns beside the values.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameInfo {
    pub tick: u64,
    pub time: f64,
    pub configuration: u64,
    pub frame: u64,
    pub cause: i32,
    pub fields: u64,
    pub stale: u64,
    pub retries: u64,
}

impl View {
    /// Whether every request can be served from this configuration's frames: its field is
    /// selected and its buffer holds it (the pointer names the request). Zeroes `written`.
    pub fn check<R: Requests + ?Sized>(&self, requests: &mut R) -> Result<(), Refusal> {
        // Every `written` first: a refusal at request k leaves none of them stale.
        for k in 0..requests.count() {
            requests.set_written(k, 0);
        }
        for k in 0..requests.count() {
            let f = requests.field(k);
            let Some(s) = self.frames.at[f.index()] else {
                return Err(not_in_frame(f, k));
            };
            let cap = requests.cap(k);
            if cap < s.len {
                return Err(too_small(f, s.len, cap, k));
            }
        }
        Ok(())
    }

    /// Copy the latest complete frame into the requests. Never takes a lock, never waits.
    pub fn read<R: Requests + ?Sized>(&self, requests: &mut R) -> Result<FrameInfo, Refusal> {
        self.check(requests)?;
        let fb = &self.frames;
        let span = |f: Field| fb.at[f.index()].expect("checked");
        let mut info = FrameInfo::default();
        self.latest(
            |w| {
                for k in 0..requests.count() {
                    let s = span(requests.field(k));
                    load(&w[s.offset..s.offset + s.len], requests.out(k));
                }
            },
            &mut info,
        );
        for k in 0..requests.count() {
            requests.set_written(k, span(requests.field(k)).len);
        }
        Ok(info)
    }

    /// The seqlock's reader: run `copy` on the latest slot's words until one copy was not
    /// lapped by the writer, and give `info` that frame's header. (Handed to its destination,
    /// not returned: a 64-byte value passed back through the callers' frames is stored in words
    /// and reloaded in wider moves, which stalls store forwarding at every level, about 5 ns
    /// each on the benchmark machine.)
    #[inline]
    fn latest(&self, mut copy: impl FnMut(&[AtomicU64]), info: &mut impl Header) {
        let fb = &self.frames;
        let mut retries = 0u64;
        loop {
            let slot = &fb.slots[fb.latest.load(Acquire)];
            let s1 = slot.seq.load(Acquire);
            if s1 & 1 == 0 {
                let w = slot.words();
                let header: [u64; HEADER] = std::array::from_fn(|i| w[i].load(Relaxed));
                copy(w);
                fence(Acquire);
                if slot.seq.load(Relaxed) == s1 {
                    info.set(FrameInfo {
                        tick: header[H_TICK],
                        time: f64::from_bits(header[H_TIME]),
                        configuration: self.configuration,
                        frame: header[H_FRAME],
                        cause: Cause::from_u64(header[H_CAUSE]) as i32,
                        fields: fb.mask,
                        stale: header[H_STALE],
                        retries,
                    });
                    return;
                }
            }
            retries += 1;
            std::hint::spin_loop();
        }
    }

    /// Check `requests` once for reads that repeat them ([`Prepared::read`]): refused as
    /// [`View::read`] refuses; on success each request's `written` is set to its field's
    /// length, what every read of the prepared requests copies.
    pub fn prepare<R: Requests + ?Sized>(
        self: &Arc<Self>,
        requests: &mut R,
    ) -> Result<Prepared, Refusal> {
        self.check(requests)?;
        let spans: Box<[Span]> = (0..requests.count())
            .map(|k| self.frames.at[requests.field(k).index()].expect("checked"))
            .collect();
        for (k, s) in spans.iter().enumerate() {
            requests.set_written(k, s.len);
        }
        Ok(Prepared {
            view: self.clone(),
            spans,
        })
    }

    /// Length of a field in this configuration's frames, None when it is not selected.
    pub fn field_len(&self, f: Field) -> Option<usize> {
        self.frames.at[f.index()].map(|s| s.len)
    }

    /// How many doubles a frame carries for `f`, refused when `f` is not selected.
    pub fn frame_len(&self, f: Field) -> Result<usize, Refusal> {
        self.field_len(f).ok_or_else(|| {
            Refusal::rejected(
                Reason::NotInFrame,
                format!("{} is not in the endpoint's frame selection", f.name()),
            )
        })
    }
}

/// Requests checked once against one configuration's frames, for a host that reads the same
/// fields into the same buffers every frame: a read skips the checks (the C ABI's
/// `mjb_frame_reader`). It keeps the frames it was made for, not the endpoint: after a model
/// replacement or a close its reads are refused.
pub struct Prepared {
    view: Arc<View>,
    /// Each request's words in a slot, in the requests' order.
    spans: Box<[Span]>,
}

impl Prepared {
    /// How many doubles request `k` receives per read.
    pub fn len(&self, k: usize) -> usize {
        self.spans[k].len
    }

    /// Copy the latest complete frame into `out(k)` for each request `k` (the buffers the
    /// requests were prepared with, or as large), its header into `info`. Never takes a lock,
    /// never waits. Refused when the endpoint no longer publishes these frames: its model was
    /// replaced (`MJB_REASON_CONFIGURATION`) or it was closed (`MJB_REASON_CLOSED`).
    ///
    /// # Safety
    /// For every request `k`, `out(k)` is valid for writing [`Prepared::len`]`(k)` doubles,
    /// which nothing else reads or writes during the call.
    #[inline]
    pub unsafe fn read(
        &self,
        mut out: impl FnMut(usize) -> *mut f64,
        info: &mut impl Header,
    ) -> Result<(), Refusal> {
        match self.view.retired.load(Acquire) {
            LIVE => {}
            why => return Err(self.retired(why)),
        }
        self.view.latest(
            |w| {
                for (k, s) in self.spans.iter().enumerate() {
                    let src = &w[s.offset..s.offset + s.len];
                    // SAFETY: `out(k)` holds `len` doubles for the call (this function's
                    // contract); the slot is only accessed as in `copy_words`.
                    unsafe { copy_words(src.as_ptr().cast(), out(k).cast(), s.len) }
                }
            },
            info,
        );
        Ok(())
    }

    #[cold]
    fn retired(&self, why: u8) -> Refusal {
        if why == CLOSED || self.view.closed.load(Acquire) {
            return Refusal::new(
                crate::outcome::Outcome::InvalidArgument,
                Reason::Closed,
                "the reader's endpoint was closed; free the reader",
            );
        }
        Refusal::rejected(
            Reason::Configuration,
            format!(
                "the endpoint's model was replaced after the reader was made (it reads model \
                 configuration {}): the fields' lengths may differ; make a new reader",
                self.view.configuration
            ),
        )
    }
}

#[cold]
fn not_in_frame(f: Field, k: usize) -> Refusal {
    Refusal::rejected(
        Reason::NotInFrame,
        format!(
            "{} is not published: the endpoint's \"frame\" selection does not list it",
            f.name()
        ),
    )
    .at(format!("/requests/{k}/field"))
}

#[cold]
fn too_small(f: Field, len: usize, cap: usize, k: usize) -> Refusal {
    Refusal::rejected(
        Reason::Dimension,
        format!("{} has {len} values; the buffer holds {cap}", f.name()),
    )
    .at(format!("/requests/{k}/cap"))
}

// The payload copies. In the language's terms each is a loop of relaxed 8-byte atomic
// accesses to the slot, one per value: that is the portable version below, and what makes a
// read racing a publication not a data race. On x86-64 the same accesses are made by an `asm!`
// block that moves two aligned words per SSE2 instruction (`movups`), with one 8-byte move for
// an odd last word. Each 8-byte half of such a move is a single-copy-atomic aligned quadword
// access, as a relaxed `AtomicU64` load or store is (a plain `mov`); the compiler sees neither
// side's accesses as plain memory it may reorder or merge (the block is opaque, and the fences
// and sequence loads around it keep their orderings). A value one could see torn across a
// publication is never returned: the reader's sequence check discards the whole copy. (A
// copy of 8 KiB or more is one `rep movsb`, whose accesses have no size or order to rely on:
// see `copy_words_string` for why the sequence check is enough there too.) The
// assembly copies at memcpy speed where the atomic loop cannot be vectorized (issue 23: the
// humanoid's 174-value read was 2.8x the memcpy before this, the copy alone).

/// Publish `src` into a slot's words (the writer, under the native lock).
#[inline]
fn store(dst: &[AtomicU64], src: &[f64]) {
    let n = dst.len().min(src.len());
    // SAFETY: both hold at least n words; the slot is only accessed as in `copy_words`.
    unsafe { copy_words(src.as_ptr().cast(), dst.as_ptr().cast_mut().cast(), n) }
}

/// Copy a slot's words out into a caller's buffer (a reader, no lock).
#[inline]
fn load(src: &[AtomicU64], dst: &mut [f64]) {
    let n = dst.len().min(src.len());
    // SAFETY: both hold at least n words; the caller's buffer is exclusively borrowed.
    unsafe { copy_words(src.as_ptr().cast(), dst.as_mut_ptr().cast(), n) }
}

/// The readers' end, held by the endpoint: lock-free loads of the current [`View`].
pub struct Frames {
    view: ArcSwap<View>,
}

impl Frames {
    pub fn view(&self) -> arc_swap::Guard<Arc<View>> {
        self.view.load()
    }

    /// Make a writer's view the one readers see (model replacement); prepared reads of the
    /// old one are refused from now on.
    pub(crate) fn install(&self, w: &Writer) {
        let old = self.view.swap(w.view.clone());
        old.retired.store(REPLACED, Release);
    }

    /// The endpoint is closed: prepared reads of its frames are refused from now on.
    pub fn retire(&self) {
        let v = self.view.load();
        v.closed.store(true, Release);
        v.retired.store(CLOSED, Release);
    }
}

impl Drop for Frames {
    fn drop(&mut self) {
        self.retire();
    }
}

/// The writer's end, kept beside the owned pair under the native lock.
pub(crate) struct Writer {
    view: Arc<View>,
    selection: Selection,
    /// Frames published so far by this endpoint (across model replacements).
    published: u64,
    /// The selected pose fields come from the scratch data (after a state was set directly),
    /// until the next engine step.
    poses_from_scratch: bool,
    stale: u64,
}

impl Writer {
    /// Slots and scratch data for a pair (open, adopt, replacement), and its first frame.
    /// `after`: the writer it replaces (a model replacement), whose endpoint it serves.
    pub fn new(
        mj: &mut Mujoco,
        selection: &Selection,
        (configuration, published, tick): (u64, u64, u64),
        cause: Cause,
        after: Option<&Writer>,
    ) -> Result<Writer, NativeError> {
        if selection.has_poses() {
            mj.prepare_scratch()?;
        }
        let dims = mj.dims();
        let mut w = Writer {
            view: Arc::new(View {
                dims,
                configuration,
                catalog: mj.catalog(),
                frames: FrameBuf::new(selection, &dims),
                retired: AtomicU8::new(LIVE),
                closed: after.map_or_else(Arc::default, |w| w.view.closed.clone()),
            }),
            selection: selection.clone(),
            published,
            poses_from_scratch: false,
            stale: 0,
        };
        w.publish(mj, tick, cause);
        Ok(w)
    }

    /// A readers' end showing this writer's frames.
    pub fn frames(&self) -> Frames {
        Frames {
            view: ArcSwap::new(self.view.clone()),
        }
    }

    pub fn publishes_every_step(&self) -> bool {
        self.selection.publish == Publish::EveryStep
    }

    pub fn published(&self) -> u64 {
        self.published
    }

    /// Publish the owned pair's current state. `written` are the input fields an input write
    /// changed (mocap poses move bodies: kinematics is recomputed when poses come from the
    /// scratch data).
    pub fn publish_after_input(&mut self, mj: &mut Mujoco, tick: u64, written: u64) {
        use crate::native::fields::Field::*;
        let moves = MocapPos.bit() | MocapQuat.bit();
        if self.poses_from_scratch && written & moves != 0 {
            self.recompute_poses(mj);
        }
        self.write(mj, tick, Cause::Input);
    }

    /// Publish after a step, restore, rollback, replacement or open.
    pub fn publish(&mut self, mj: &mut Mujoco, tick: u64, cause: Cause) {
        if cause.state_set_directly() {
            // Restore never runs the pipeline on the owned data: poses come from kinematics
            // on the scratch data; what only a step computes is stale until the next one.
            self.poses_from_scratch = self.selection.has_poses();
            self.stale = self
                .selection
                .fields
                .iter()
                .filter(|f| f.class() == Class::Forward)
                .fold(0, |m, f| m | f.bit());
            if self.poses_from_scratch {
                self.recompute_poses(mj);
            }
        } else if cause == Cause::Step {
            self.poses_from_scratch = false;
            self.stale = 0;
        }
        self.write(mj, tick, cause);
    }

    fn recompute_poses(&mut self, mj: &mut Mujoco) {
        let poses = self
            .selection
            .fields
            .iter()
            .filter(|f| f.class() == Class::Pose)
            .fold(0, |m, f| m | f.bit());
        match mj.kinematics_on_scratch() {
            Ok(()) => self.stale &= !poses,
            Err(e) => {
                self.stale |= poses;
                crate::host::event(
                    crate::host::Level::Warning,
                    format!(
                        "kinematics for the frame failed ({}); poses are marked stale",
                        e.message()
                    ),
                );
            }
        }
    }

    fn write(&mut self, mj: &Mujoco, tick: u64, cause: Cause) {
        self.published += 1;
        let fb = &self.view.frames;
        let next = (fb.latest.load(Relaxed) + 1) % SLOTS;
        let slot = &fb.slots[next];
        let seq = slot.seq.load(Relaxed);
        slot.seq.store(seq.wrapping_add(1), Relaxed);
        fence(Release);
        let w = slot.words();
        w[H_TICK].store(tick, Relaxed);
        w[H_TIME].store(mj.time().to_bits(), Relaxed);
        w[H_FRAME].store(self.published, Relaxed);
        w[H_CAUSE].store(cause as u64, Relaxed);
        w[H_STALE].store(self.stale, Relaxed);
        for c in &fb.copies {
            let dst = &w[c.offset..c.offset + c.len];
            match c.kind {
                CopyKind::Pose if self.poses_from_scratch => store(dst, mj.scratch_field(c.field)),
                CopyKind::Data | CopyKind::Pose => store(dst, mj.field(c.field)),
                CopyKind::EqActive => {
                    for (d, &b) in dst.iter().zip(mj.eq_active().unwrap_or(&[])) {
                        d.store(f64::from(u8::from(b != 0)).to_bits(), Relaxed);
                    }
                }
            }
        }
        slot.seq.store(seq.wrapping_add(2), Release);
        fb.latest.store(next, Release);
    }
}
