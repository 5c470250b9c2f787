//! History and rewind: the endpoint's flight recorder (config `"history"`); the rewind
//! ([`Endpoint::rewind`]) is in `rewind.rs`, the recording of a stretch of it
//! (`mjb_history_export`) in `export.rs`.
//!
//! What is kept, in bounded memory, under the native lock:
//! - **keyframes**: the complete integration state (`mjSTATE_INTEGRATION`) every
//!   `keyframe_every` ticks, at each discontinuity (a restore, a restore-point apply), and the
//!   tip when a rewind leaves it; each with its tick, its place in the record stream and its
//!   hash;
//! - **records**: every input write between keyframes ([`Record`]: the field, the object, the
//!   values, the tick it was made at), but those a later write of the same tick overwrites
//!   ([`Record::covers`]): a tick keeps at most one write per target on each side of its
//!   keyframe, however many a host makes (while stopped, say). Steps are not records: a step is
//!   the tick advancing, and its record is the hash of the state it left ([`state_hash`],
//!   XXH3-64 of the state vector, taken from the pre-step image the step path captures
//!   anyway), kept once the step took effect (a step rolled back leaves the history as it was);
//! - **tick hashes**: for every tick of the window but the newest, the hash of the state the
//!   endpoint had when it left that tick (every input write made at it included).
//!
//! The state at tick `t` is the state the endpoint last had at `t` on its own timeline: for a
//! past tick, the state that left it (the next step's pre-image); for the newest, the current
//! state. A rewind to `t` installs the last keyframe at or before `t`, re-applies the records
//! after it up to `t` (stepping between them) and compares the hash of the state reached with
//! the recorded one: a replay that does not reproduce it is rolled back
//! (`MJB_REASON_REPLAY_DIVERGED`).
//!
//! Everything here is allocated once and reused: the per-tick cost is one hash of the
//! pre-step image and one push into a ring; a keyframe copies the state into a recycled
//! buffer every `keyframe_every` ticks.

use super::{Endpoint, Native};
use crate::config::{HistoryConfig, MAX_WINDOW_KEYFRAMES};
use crate::inputs::Input;
use crate::native::fields::Field;
use crate::native::Mujoco;
use crate::outcome::{Reason, Refusal};
use std::collections::VecDeque;
use std::sync::atomic::{fence, AtomicU64, Ordering};

mod export;
mod rewind;

/// The verification hash of a state vector: XXH3-64 (seed 0) of its values' IEEE-754 bits as
/// little-endian bytes. An export names it so another process can check a replay.
pub fn state_hash(state: &[f64]) -> u64 {
    #[cfg(target_endian = "little")]
    {
        // SAFETY: any f64 is 8 initialized bytes; the slice covers exactly the values, and on
        // a little-endian target their bytes are the little-endian form.
        let bytes = unsafe {
            std::slice::from_raw_parts(state.as_ptr().cast::<u8>(), std::mem::size_of_val(state))
        };
        twox_hash::XxHash3_64::oneshot(bytes)
    }
    #[cfg(not(target_endian = "little"))]
    {
        let bytes: Vec<u8> = state.iter().flat_map(|v| v.to_le_bytes()).collect();
        twox_hash::XxHash3_64::oneshot(&bytes)
    }
}

/// One recorded mutation: an input write (`ctrl`, `qfrc_applied`, `xfrc_applied`, mocap,
/// `eq_active`; a `set_ctrl` and a world write are input writes) at `tick`, its `len` values
/// next in the value ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub tick: u64,
    pub field: Field,
    /// The object written (`None`: the whole field).
    pub id: Option<usize>,
    pub len: u32,
}

// README.md's memory bound counts 32 bytes per record.
const _: () = assert!(std::mem::size_of::<Record>() <= 32);

impl Record {
    /// Whether this write, made after `earlier` at the same tick with no step between them,
    /// overwrites every value `earlier` wrote: the same field, and the whole field, or the
    /// same object, or an object that is the whole field (a field of one object). A replay
    /// that skips `earlier` then reaches the same state, so the recorder drops it.
    fn covers(&self, earlier: &Record) -> bool {
        self.field == earlier.field
            && (self.id.is_none()
                || self.id == earlier.id
                || (earlier.id.is_none() && self.len == earlier.len))
    }
}

/// A complete state of the timeline: where replays start. A tick has at most one.
#[derive(Debug)]
struct Keyframe {
    tick: u64,
    /// The absolute index of the first record after it (records before it are in its state).
    record: u64,
    /// The absolute index of that record's first value.
    value: u64,
    state: Box<[f64]>,
    hash: u64,
    /// A discontinuity (a restore, a restore-point apply): a state no step reaches, which an
    /// export carries as a `restore` event. Periodic, first and tip keyframes are states the
    /// timeline reaches by stepping (an export names only their hash).
    restore: bool,
}

// README.md's memory bound counts 64 bytes per keyframe beside its state.
const _: () = assert!(std::mem::size_of::<Keyframe>() <= 64);

/// What `mjb_history_info` reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HistoryInfo {
    /// The oldest and newest tick a rewind reaches (both 0 when nothing is recorded yet).
    pub oldest: u64,
    pub newest: u64,
    pub keyframes: u64,
    /// The bytes the recorder holds (its buffers' capacities).
    pub bytes: u64,
}

/// The recorder's summary, published under the native lock and read without it (a seqlock:
/// one writer, the native-lock holder).
#[derive(Debug, Default)]
pub(super) struct Summary {
    seq: AtomicU64,
    fields: [AtomicU64; 4],
}

impl Summary {
    pub(super) fn publish(&self, i: HistoryInfo) {
        let s = self.seq.load(Ordering::Relaxed);
        self.seq.store(s + 1, Ordering::Relaxed);
        fence(Ordering::Release);
        for (f, v) in self
            .fields
            .iter()
            .zip([i.oldest, i.newest, i.keyframes, i.bytes])
        {
            f.store(v, Ordering::Relaxed);
        }
        self.seq.store(s + 2, Ordering::Release);
    }

    pub(super) fn read(&self) -> HistoryInfo {
        loop {
            let s = self.seq.load(Ordering::Acquire);
            if s % 2 == 1 {
                std::hint::spin_loop();
                continue;
            }
            let v = self.fields.each_ref().map(|f| f.load(Ordering::Relaxed));
            fence(Ordering::Acquire);
            if self.seq.load(Ordering::Relaxed) == s {
                return HistoryInfo {
                    oldest: v[0],
                    newest: v[1],
                    keyframes: v[2],
                    bytes: v[3],
                };
            }
        }
    }
}

/// The flight recorder of one endpoint and model configuration (see the module's doc).
#[derive(Debug)]
pub(super) struct History {
    config: HistoryConfig,
    /// The integration state's signature and size.
    sig: u32,
    size: usize,
    keyframes: VecDeque<Keyframe>,
    /// State buffers of dropped keyframes, for the next ones.
    spare: Vec<Box<[f64]>>,
    records: VecDeque<Record>,
    first_record: u64,
    values: VecDeque<f64>,
    first_value: u64,
    /// `hashes[i]`: the state that left tick `first_hash + i`.
    hashes: VecDeque<u64>,
    first_hash: u64,
    /// A rewind put the endpoint at an earlier tick and nothing changed it since: the ticks
    /// after it are kept (scrubbing) until the next mutation drops them.
    scrubbed: bool,
    max_keyframes: usize,
    /// Reused by replays: one record's values, contiguous.
    scratch: Vec<f64>,
    /// The tip keyframe of the rewind under way, until it lands or is refused.
    tip: Option<Tip>,
}

/// What a rewind's tip keyframe changed, so that a rewind that does not land takes it back.
#[derive(Debug)]
struct Tip {
    /// The keyframe it superseded at its tick (with records after it), kept aside.
    old: Option<Keyframe>,
    /// The pool's size before the tip took a buffer from it.
    spare: usize,
}

/// Where a keyframe's state comes from.
#[derive(Clone, Copy)]
enum Source<'a> {
    /// A state at hand (a restore's, a step's pre-image).
    State(&'a [f64]),
    /// The engine's current state, read now (a read can fail).
    Engine(&'a Mujoco),
}

impl History {
    pub(super) fn new(config: HistoryConfig, sig: u32, size: usize) -> History {
        let kf = config.window_ticks.div_ceil(config.keyframe_every) as usize;
        // The window's keyframes, the one before it and a few discontinuities; more (restores
        // every few ticks) shorten the window rather than grow the memory. A rewind's tip is
        // one more, added without eviction: `ceil(N/K) + 34` in all (docs/contract.md).
        let max_keyframes = kf + 1 + DISCONTINUITIES;
        debug_assert!(kf as u64 <= MAX_WINDOW_KEYFRAMES);
        let ticks = (config.window_ticks + config.keyframe_every + 2) as usize;
        History {
            config,
            sig,
            size,
            keyframes: VecDeque::with_capacity(max_keyframes + 1),
            spare: Vec::new(),
            records: VecDeque::new(),
            first_record: 0,
            values: VecDeque::new(),
            first_value: 0,
            hashes: VecDeque::with_capacity(ticks),
            first_hash: 0,
            scrubbed: false,
            max_keyframes,
            scratch: Vec::new(),
            tip: None,
        }
    }

    fn next_record(&self) -> u64 {
        self.first_record + self.records.len() as u64
    }

    fn next_value(&self) -> u64 {
        self.first_value + self.values.len() as u64
    }

    fn buffer(&mut self) -> Box<[f64]> {
        self.spare
            .pop()
            .unwrap_or_else(|| vec![0.0; self.size].into_boxed_slice())
    }

    /// A buffer (from the pool) holding the keyframe state `source` gives; `None` when the
    /// engine's state could not be read (the buffer back in the pool, or freed when it did
    /// not come from there: the bytes held are as they were).
    fn capture(&mut self, source: Source) -> Option<Box<[f64]>> {
        let pooled = self.spare.len();
        let mut buf = self.buffer();
        match source {
            Source::State(s) => buf.copy_from_slice(s),
            Source::Engine(mj) => {
                if mj.get_state(self.sig, &mut buf).is_err() {
                    if self.spare.len() < pooled {
                        self.spare.push(buf);
                    }
                    return None;
                }
            }
        }
        Some(buf)
    }

    /// Keep `state` as the keyframe at `tick`, after every record so far.
    fn keep(&mut self, tick: u64, state: Box<[f64]>, restore: bool) {
        debug_assert!(self.keyframes.back().is_none_or(|k| k.tick < tick));
        let hash = state_hash(&state);
        self.keyframes.push_back(Keyframe {
            tick,
            record: self.next_record(),
            value: self.next_value(),
            state,
            hash,
            restore,
        });
        if self.hashes.is_empty() {
            self.first_hash = tick;
        }
    }

    /// Take out the newest keyframe when it is at `tick` (a new one supersedes it).
    fn supersede(&mut self, tick: u64) -> Option<Keyframe> {
        self.keyframes
            .back()
            .is_some_and(|k| k.tick == tick)
            .then(|| self.keyframes.pop_back().expect("a keyframe"))
    }

    /// Keep a keyframe at `tick` from `source` (see [`keep`](Self::keep)); false, nothing
    /// changed, when the engine's state could not be read. A keyframe at `tick` is superseded
    /// (a rewind to a tick replays from its last keyframe) by a state at hand only (a
    /// restore's): a read that fails must leave the history as it was. A keyframe
    /// superseding a discontinuity stays one (its state holds the restore and what was
    /// written after it).
    fn push_keyframe(&mut self, tick: u64, source: Source, restore: bool) -> bool {
        let restore = match self.supersede(tick) {
            Some(old) => {
                debug_assert!(matches!(source, Source::State(_)));
                self.spare.push(old.state);
                self.merge(tick);
                restore || old.restore
            }
            None => restore,
        };
        let Some(buf) = self.capture(source) else {
            return false;
        };
        self.keep(tick, buf, restore);
        true
    }

    /// While a rewind leaves the tip (the endpoint at `tick`, its current state), keep it as
    /// a keyframe so that a rewind can come back to it; until [`keep_tip`](Self::keep_tip)
    /// or [`take_back_tip`](Self::take_back_tip) ends it, what it changed can be undone.
    /// Nothing is added when the newest keyframe is already that state (at `tick`, nothing
    /// recorded after it). False, nothing changed, when the state could not be read.
    fn push_tip(&mut self, tick: u64, mj: &Mujoco) -> bool {
        let current = self
            .keyframes
            .back()
            .is_some_and(|k| k.tick == tick && k.record == self.next_record());
        if current {
            return true;
        }
        let spare = self.spare.len();
        let Some(buf) = self.capture(Source::Engine(mj)) else {
            return false;
        };
        let old = self.supersede(tick);
        let restore = old.as_ref().is_some_and(|k| k.restore);
        self.keep(tick, buf, restore);
        self.tip = Some(Tip { old, spare });
        true
    }

    /// The rewind landed: the keyframe the tip superseded goes to the pool, and the records of
    /// its tick, all before the tip now, are merged (as [`push_keyframe`](Self::push_keyframe)
    /// does).
    fn keep_tip(&mut self) {
        let Some(Tip { old: Some(old), .. }) = self.tip.take() else {
            return;
        };
        self.spare.push(old.state);
        let mut tip = self.keyframes.pop_back().expect("the tip");
        self.merge(tip.tick);
        tip.record = self.next_record();
        tip.value = self.next_value();
        self.keyframes.push_back(tip);
    }

    /// A rewind that did not end (it panicked): the tip keyframe it added stays (a state of
    /// the timeline, the newest tick's), the one it superseded goes to the pool; the records
    /// of its tick are left as they are (the endpoint is fenced, nothing is written again).
    fn abandon_tip(&mut self) {
        if let Some(Tip { old: Some(old), .. }) = self.tip.take() {
            self.spare.push(old.state);
        }
    }

    /// The rewind did not land: the tip keyframe is taken back (its buffer back to the pool
    /// when it came from there, else freed) and the one it superseded put back, so the
    /// history is exactly as it was.
    fn take_back_tip(&mut self) {
        let Some(tip) = self.tip.take() else {
            return;
        };
        let k = self.keyframes.pop_back().expect("the tip");
        if self.spare.len() < tip.spare {
            self.spare.push(k.state);
        }
        if let Some(old) = tip.old {
            self.keyframes.push_back(old);
        }
    }

    /// The first (relative) index of the records at `tick` after the newest keyframe: the
    /// writes a new write at `tick` may supersede.
    fn segment(&self, tick: u64) -> usize {
        let floor = self
            .keyframes
            .back()
            .map_or(0, |k| (k.record - self.first_record) as usize);
        let mut i = self.records.len();
        while i > floor && self.records[i - 1].tick == tick {
            i -= 1;
        }
        i
    }

    /// Drop the records at `tick` after the newest keyframe that a later one of them covers
    /// ([`Record::covers`]): after a keyframe at `tick` was superseded, the writes before and
    /// after it are one stretch again.
    fn merge(&mut self, tick: u64) {
        let from = self.segment(tick);
        self.drop_records(from, |rs, i| rs.range(i + 1..).any(|l| l.covers(&rs[i])));
    }

    /// Remove the records from (relative) index `from` on that `gone` picks, and their
    /// values; the others keep their order. No keyframe may follow `from`.
    fn drop_records(&mut self, from: usize, gone: impl Fn(&VecDeque<Record>, usize) -> bool) {
        let tail: usize = self.records.range(from..).map(|r| r.len as usize).sum();
        let mut v = self.values.len() - tail;
        let (mut w, mut vw) = (from, v);
        for i in from..self.records.len() {
            let r = self.records[i];
            let len = r.len as usize;
            if !gone(&self.records, i) {
                if w != i {
                    self.records[w] = r;
                    for k in 0..len {
                        self.values[vw + k] = self.values[v + k];
                    }
                }
                w += 1;
                vw += len;
            }
            v += len;
        }
        self.records.truncate(w);
        self.values.truncate(vw);
    }

    /// Forget everything (a restore ahead of the timeline or before all of it).
    fn clear(&mut self) {
        for k in self.keyframes.drain(..) {
            self.spare.push(k.state);
        }
        self.first_record += self.records.len() as u64;
        self.records.clear();
        self.first_value += self.values.len() as u64;
        self.values.clear();
        self.hashes.clear();
        self.scrubbed = false;
    }

    /// Drop what is recorded after tick `tick` (records, keyframes) and from it (the hash of
    /// the state that left it): the endpoint continues from `tick` on a new branch.
    fn truncate_after(&mut self, tick: u64) {
        while self.keyframes.back().is_some_and(|k| k.tick > tick) {
            let k = self.keyframes.pop_back().expect("a keyframe");
            self.spare.push(k.state);
        }
        while let Some(r) = self.records.back().filter(|r| r.tick > tick) {
            let keep = self.values.len() - r.len as usize;
            self.values.truncate(keep);
            self.records.pop_back();
        }
        let keep = tick.saturating_sub(self.first_hash) as usize;
        self.hashes.truncate(keep);
    }

    /// Before a mutation takes effect at `tick` from `source` (the state now): a scrubbed
    /// future is dropped, and the history starts (its first keyframe, that state) when it is
    /// empty. When that state cannot be read the history stays empty (and records nothing).
    fn begin(&mut self, tick: u64, source: Source) {
        if std::mem::take(&mut self.scrubbed) {
            self.truncate_after(tick);
        }
        if self.keyframes.is_empty() {
            self.push_keyframe(tick, source, false);
        }
    }

    /// Input writes made at `tick` (after [`begin`](Self::begin)). A write supersedes the
    /// earlier ones of its tick that it covers ([`Record::covers`]; not across a keyframe):
    /// a tick keeps at most one write per target on each side of its keyframe, however many
    /// are made (while stopped, say).
    fn record(&mut self, tick: u64, inputs: &[Input]) {
        if self.keyframes.is_empty() {
            return;
        }
        for i in inputs {
            let r = Record {
                tick,
                field: i.field,
                id: i.id,
                len: i.values.len() as u32,
            };
            let from = self.segment(tick);
            self.drop_records(from, |rs, j| r.covers(&rs[j]));
            self.records.push_back(r);
            self.values.extend(i.values.iter().copied());
        }
    }

    /// A step that took effect, from `left` (its pre-image `pre`) to `left + 1`: begun as a
    /// mutation at `left` (only now: a step rolled back leaves the history as it was), the
    /// hash of the state that left `left`, a keyframe when one is due (one that cannot be
    /// read is taken at the next step instead), and the window's old end dropped.
    pub(super) fn stepped(&mut self, mj: &Mujoco, left: u64, pre: &[f64]) {
        self.begin(left, Source::State(pre));
        let last = self.keyframes.back().expect("begun").tick;
        debug_assert_eq!(self.first_hash + self.hashes.len() as u64, left);
        self.hashes.push_back(state_hash(pre));
        let now = left + 1;
        if now - last >= self.config.keyframe_every {
            self.push_keyframe(now, Source::Engine(mj), false);
        }
        self.evict(now);
    }

    /// A whole state set at `tick` (a restore, an apply) while the endpoint was at `before`:
    /// a discontinuity. What is recorded from `tick` on is dropped (everything, when the
    /// restore jumps ahead), and `state` is its keyframe.
    pub(super) fn restored(&mut self, before: u64, tick: u64, state: &[f64]) {
        if std::mem::take(&mut self.scrubbed) {
            self.truncate_after(before);
        }
        if tick > before || self.keyframes.front().is_none_or(|k| k.tick >= tick) {
            // Ahead of the timeline (a gap), or before all of it: nothing recorded leads here.
            self.clear();
        } else {
            // The ticks before `tick` stay (their hashes too); what was recorded at it and
            // after is another branch. Records at `tick` before the new keyframe are never
            // replayed again (a replay to `tick` starts at that keyframe).
            self.truncate_after(tick);
        }
        self.push_keyframe(tick, Source::State(state), true);
        self.evict(tick);
    }

    /// Drop the oldest keyframe (and what only it reaches) while the next one still covers
    /// the window, or while there are more keyframes than the bound.
    fn evict(&mut self, newest: u64) {
        let window = self.config.window_ticks;
        while self.keyframes.len() > 1
            && (self.keyframes[1].tick.saturating_add(window) <= newest
                || self.keyframes.len() > self.max_keyframes)
        {
            let old = self.keyframes.pop_front().expect("a keyframe");
            self.spare.push(old.state);
            let front = &self.keyframes[0];
            let (r, v, t) = (front.record, front.value, front.tick);
            self.records.drain(..(r - self.first_record) as usize);
            self.first_record = r;
            self.values.drain(..(v - self.first_value) as usize);
            self.first_value = v;
            self.hashes.drain(..(t - self.first_hash) as usize);
            self.first_hash = t;
        }
    }

    /// The ticks a rewind reaches: from the oldest keyframe to the newest tick recorded.
    fn window(&self, current: u64) -> (u64, u64) {
        match self.keyframes.front() {
            None => (current, current),
            Some(k) => {
                let left = self.first_hash + self.hashes.len() as u64;
                let last = self.keyframes.back().map_or(0, |k| k.tick);
                let rec = self.records.back().map_or(0, |r| r.tick);
                (k.tick, left.max(last).max(rec).max(current))
            }
        }
    }

    pub(super) fn info(&self, current: u64) -> HistoryInfo {
        let (oldest, newest) = self.window(current);
        let state = (self.keyframes.len() + self.spare.len()) * self.size * 8;
        let bytes = state
            + self.keyframes.capacity() * std::mem::size_of::<Keyframe>()
            + self.records.capacity() * std::mem::size_of::<Record>()
            + (self.values.capacity() + self.hashes.capacity() + self.scratch.capacity()) * 8;
        HistoryInfo {
            oldest,
            newest,
            keyframes: self.keyframes.len() as u64,
            bytes: bytes as u64,
        }
    }

    /// The hash the state at `tick` must have: the one recorded when the endpoint left it,
    /// else (the newest tick) its keyframe's when nothing was recorded at it after that.
    fn expected(&self, tick: u64, kf: usize) -> Option<u64> {
        if tick >= self.first_hash && tick < self.first_hash + self.hashes.len() as u64 {
            return Some(self.hashes[(tick - self.first_hash) as usize]);
        }
        let k = &self.keyframes[kf];
        let after = (k.record - self.first_record) as usize;
        let more = self.records.get(after).is_some_and(|r| r.tick <= tick);
        (k.tick == tick && !more).then_some(k.hash)
    }
}

impl Native {
    /// Record input writes about to be made at the current tick (a recording endpoint).
    pub(super) fn record_inputs(&mut self, inputs: &[Input]) {
        if let Some(h) = self.history.as_mut() {
            h.begin(self.tick, Source::Engine(&self.mj));
            h.record(self.tick, inputs);
        }
    }

    /// Record input writes made already at the current tick, once they took effect (a
    /// `mjb_write_step`'s: see `endpoint/step.rs`), `self.pre` holding the state they were
    /// written on (the first step's pre-image, captured before them): a history that starts
    /// here keyframes it, as [`record_inputs`](Self::record_inputs) would have before the
    /// writes. `self.pre` then gets them too: the state that leaves the tick, which the
    /// step's record hashes.
    pub(super) fn record_applied(&mut self, inputs: &[Input]) {
        let Some(h) = self.history.as_mut() else {
            return;
        };
        h.begin(self.tick, Source::State(&self.pre));
        h.record(self.tick, inputs);
        let l = self
            .shape
            .layout
            .as_ref()
            .expect("history needs the state layout");
        crate::inputs::apply_to_state(&mut self.pre, l, inputs);
    }
}

/// Discontinuity keyframes a window keeps beyond its periodic ones.
const DISCONTINUITIES: usize = 32;

impl Endpoint {
    /// The recorder's window, keyframes and bytes, published by the last mutation (no lock).
    pub fn history_info(&self) -> Result<HistoryInfo, Refusal> {
        match self.history {
            None => Err(Refusal::rejected(
                Reason::OutOfRange,
                "the endpoint keeps no history (config \"history\")",
            )),
            Some(_) => Ok(self.history_summary.read()),
        }
    }

    /// Publish the recorder's summary after a mutation (under the native lock).
    pub(super) fn publish_history(&self, n: &Native) {
        if let Some(h) = &n.history {
            self.history_summary.publish(h.info(n.tick));
        }
    }
}
