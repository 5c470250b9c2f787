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
use crate::native::{Dims, Mujoco, NativeError};
use crate::outcome::{Reason, Refusal};
use arc_swap::ArcSwap;
use std::sync::atomic::{fence, AtomicU64, AtomicUsize, Ordering::*};
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
    words: Box<[AtomicU64]>,
}

/// The frame slots of one model configuration.
struct FrameBuf {
    /// (field, offset after the header, length) of every selected field, in field order.
    layout: Vec<(Field, usize, usize)>,
    /// Where each field is in `layout`.
    at: [Option<usize>; FIELD_COUNT],
    mask: u64,
    latest: AtomicUsize,
    slots: [Slot; SLOTS],
}

impl FrameBuf {
    fn new(sel: &Selection, dims: &Dims) -> FrameBuf {
        let mut layout = Vec::with_capacity(sel.fields.len());
        let mut at = [None; FIELD_COUNT];
        let mut offset = HEADER;
        for &f in &sel.fields {
            let len = f.len(dims);
            at[f.index()] = Some(layout.len());
            layout.push((f, offset, len));
            offset += len;
        }
        let slot = || Slot {
            seq: AtomicU64::new(0),
            words: (0..offset).map(|_| AtomicU64::new(0)).collect(),
        };
        FrameBuf {
            layout,
            at,
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
}

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
    fn set_written(&mut self, k: usize, n: usize) {
        self[k].written = n;
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
        let fb = &self.frames;
        for k in 0..requests.count() {
            requests.set_written(k, 0);
            let f = requests.field(k);
            let Some(i) = fb.at[f.index()] else {
                return Err(Refusal::rejected(
                    Reason::MJB_REASON_NOT_IN_FRAME,
                    format!(
                        "{} is not published: the endpoint's \"frame\" selection does not list it",
                        f.name()
                    ),
                )
                .at(format!("/requests/{k}/field")));
            };
            let len = fb.layout[i].2;
            let cap = requests.out(k).len();
            if cap < len {
                return Err(Refusal::rejected(
                    Reason::MJB_REASON_DIMENSION,
                    format!("{} has {len} values; the buffer holds {cap}", f.name()),
                )
                .at(format!("/requests/{k}/cap")));
            }
        }
        Ok(())
    }

    /// Copy the latest complete frame into the requests. Never takes a lock, never waits.
    pub fn read<R: Requests + ?Sized>(&self, requests: &mut R) -> Result<FrameInfo, Refusal> {
        self.check(requests)?;
        let fb = &self.frames;
        let span = |f: Field| {
            let (_, offset, len) = fb.layout[fb.at[f.index()].expect("checked")];
            (offset, len)
        };
        let mut retries = 0u64;
        loop {
            let slot = &fb.slots[fb.latest.load(Acquire)];
            let s1 = slot.seq.load(Acquire);
            if s1 & 1 == 0 {
                let w = &slot.words;
                let header: [u64; HEADER] = std::array::from_fn(|i| w[i].load(Relaxed));
                for k in 0..requests.count() {
                    let (offset, len) = span(requests.field(k));
                    load(&w[offset..offset + len], &mut requests.out(k)[..len]);
                }
                fence(Acquire);
                if slot.seq.load(Relaxed) == s1 {
                    for k in 0..requests.count() {
                        let len = span(requests.field(k)).1;
                        requests.set_written(k, len);
                    }
                    return Ok(FrameInfo {
                        tick: header[H_TICK],
                        time: f64::from_bits(header[H_TIME]),
                        configuration: self.configuration,
                        frame: header[H_FRAME],
                        cause: Cause::from_u64(header[H_CAUSE]) as i32,
                        fields: fb.mask,
                        stale: header[H_STALE],
                        retries,
                    });
                }
            }
            retries += 1;
            std::hint::spin_loop();
        }
    }

    /// Length of a field in this configuration's frames, None when it is not selected.
    pub fn field_len(&self, f: Field) -> Option<usize> {
        self.frames.at[f.index()].map(|i| self.frames.layout[i].2)
    }

    /// How many doubles a frame carries for `f`, refused when `f` is not selected.
    pub fn frame_len(&self, f: Field) -> Result<usize, Refusal> {
        self.field_len(f).ok_or_else(|| {
            Refusal::rejected(
                Reason::MJB_REASON_NOT_IN_FRAME,
                format!("{} is not in the endpoint's frame selection", f.name()),
            )
        })
    }
}

// The payload copies: relaxed 8-byte atomic accesses (plain moves on x86-64 and AArch64),
// four at a time so the loop is not the bottleneck.

#[inline]
fn store(dst: &[AtomicU64], src: &[f64]) {
    let n = dst.len().min(src.len());
    let (dst, src) = (&dst[..n], &src[..n]);
    let mut d4 = dst.chunks_exact(4);
    let mut s4 = src.chunks_exact(4);
    for (d, s) in (&mut d4).zip(&mut s4) {
        d[0].store(s[0].to_bits(), Relaxed);
        d[1].store(s[1].to_bits(), Relaxed);
        d[2].store(s[2].to_bits(), Relaxed);
        d[3].store(s[3].to_bits(), Relaxed);
    }
    for (d, s) in d4.remainder().iter().zip(s4.remainder()) {
        d.store(s.to_bits(), Relaxed);
    }
}

#[inline]
fn load(src: &[AtomicU64], dst: &mut [f64]) {
    let n = dst.len().min(src.len());
    let (src, dst) = (&src[..n], &mut dst[..n]);
    let mut s4 = src.chunks_exact(4);
    let mut d4 = dst.chunks_exact_mut(4);
    for (s, d) in (&mut s4).zip(&mut d4) {
        let v = [
            s[0].load(Relaxed),
            s[1].load(Relaxed),
            s[2].load(Relaxed),
            s[3].load(Relaxed),
        ];
        d[0] = f64::from_bits(v[0]);
        d[1] = f64::from_bits(v[1]);
        d[2] = f64::from_bits(v[2]);
        d[3] = f64::from_bits(v[3]);
    }
    for (s, d) in s4.remainder().iter().zip(d4.into_remainder()) {
        *d = f64::from_bits(s.load(Relaxed));
    }
}

/// The readers' end, held by the endpoint: lock-free loads of the current [`View`].
pub struct Frames {
    view: ArcSwap<View>,
}

impl Frames {
    pub fn view(&self) -> arc_swap::Guard<Arc<View>> {
        self.view.load()
    }

    /// Make a writer's view the one readers see (model replacement).
    pub(crate) fn install(&self, w: &Writer) {
        self.view.store(w.view.clone());
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
    pub fn new(
        mj: &mut Mujoco,
        selection: &Selection,
        configuration: u64,
        published: u64,
        tick: u64,
        cause: Cause,
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
        let w = &slot.words;
        w[H_TICK].store(tick, Relaxed);
        w[H_TIME].store(mj.time().to_bits(), Relaxed);
        w[H_FRAME].store(self.published, Relaxed);
        w[H_CAUSE].store(cause as u64, Relaxed);
        w[H_STALE].store(self.stale, Relaxed);
        for &(f, offset, len) in &fb.layout {
            let dst = &w[offset..offset + len];
            match f.class() {
                Class::Pose if self.poses_from_scratch => store(dst, mj.scratch_field(f)),
                _ if f == Field::EqActive => {
                    for (d, &b) in dst.iter().zip(mj.eq_active().unwrap_or(&[])) {
                        d.store(f64::from(u8::from(b != 0)).to_bits(), Relaxed);
                    }
                }
                _ => store(dst, mj.field(f)),
            }
        }
        slot.seq.store(seq.wrapping_add(2), Release);
        fb.latest.store(next, Release);
    }
}
