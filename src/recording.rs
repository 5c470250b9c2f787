//! Recording documents (`mjbridge_recording_v1`): what `mjb_history_export` serves and what
//! `mjbridge replay` (and the fuzz target) reads. One writer, one strict reader, both here.
//!
//! ```text
//! {"recording": {
//!    "format": "mjbridge_recording_v1",
//!    "engine": "3.3.0", "engine_version": 330,
//!    "model_fingerprint": "sha256:<64 hex>",
//!    "profile": "mujoco_integration_v1",
//!    "descriptor": {<the checkpoint descriptor>},
//!    "seed": 0,
//!    "from_tick": 12, "end_tick": 40,
//!    "start": {<checkpoint document: the keyframe at or before from_tick>},
//!    "events": [{"tick": 12, "input": {"field": "ctrl", "id": -1, "values": [0.5]}},
//!               {"tick": 20, "restore": {<checkpoint document>}}, ...],
//!    "tick_hashes": {"first": 10, "xxh3_64": ["<16 hex>", ...]},
//!    "keyframe_hashes": [{"tick": 10, "event": 0, "xxh3_64": "<16 hex>"}, ...]},
//!  "recording_hash": "sha256:<64 hex>"}
//! ```
//!
//! Steps are implicit: the tick advancing between events is a step. `tick_hashes.xxh3_64[i]`
//! is [`crate::endpoint::state_hash`] of the state at tick `first + i` (every event at that
//! tick applied), for every tick from the start checkpoint's to `end_tick`. `recording_hash`
//! is the SHA-256 of the RFC 8785 canonical form of the `recording` value.
//!
//! The reader checks the document's own consistency (schema, types, bounds, hex, lengths,
//! order of ticks, the hash); the checkpoints it carries are kept as text and judged against
//! the model by the endpoint that restores them (the strict checkpoint reader).

use crate::checkpoint::{write_descriptor, write_integration, Facts, Printed, MAX_VALUES};
use crate::doc::jcs::{hash_value, Canon};
use crate::doc::schema::{self, read_int, read_numbers, read_string, read_u64, Slot};
use crate::doc::write::Writer;
use crate::doc::{Kind, Reader, Text, MAX_DOCUMENT_BYTES};
use crate::native::fields::Field;
use crate::outcome::{Reason, Refusal};

/// The `format` of a recording.
pub const FORMAT: &str = "mjbridge_recording_v1";
/// Recordings over this many bytes are refused before parsing (64 MiB: a window of a
/// million ticks of a few inputs each; the 1 MiB limit of the documents an endpoint reads
/// does not apply to recordings).
pub const MAX_RECORDING_BYTES: usize = 64 << 20;
/// At most this many events and tick hashes (a window is at most 1,000,000 + its keyframe
/// interval ticks).
pub const MAX_EVENTS: usize = 4_000_000;
pub const MAX_TICKS: usize = 2_000_001;

/// One mutation of a recording, in order. Small (40 bytes, its texts exactly sized): a
/// recording of tiny events must not cost more than its text.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// An input write at `tick` (`id` None: the whole field).
    Input {
        tick: u64,
        field: Field,
        id: Option<u32>,
        values: Values,
    },
    /// A discontinuity at `tick` (a restore, a restore-point apply): its checkpoint's text.
    Restore { tick: u64, checkpoint: Box<str> },
}

/// An input's values, kept as the array's text the reader validated (finite numbers, at most
/// [`MAX_VALUES`]): a double costs 8 bytes where `0,` costs 2, so values are parsed when they
/// are used, not when the recording is read.
#[derive(Clone, Debug, PartialEq)]
pub struct Values(Box<str>);

impl Values {
    /// The values, parsed (exactly the doubles the text names).
    pub fn to_vec(&self) -> Vec<f64> {
        let mut r = Reader::for_value(&self.0);
        let mut out = Vec::new();
        r.array(|r, _| {
            out.push(r.number()?.value);
            Ok(())
        })
        .expect("the reader validated the values");
        out
    }

    /// The array's text, as the recording holds it.
    pub fn text(&self) -> &str {
        &self.0
    }
}

impl Event {
    pub fn tick(&self) -> u64 {
        match self {
            Event::Input { tick, .. } | Event::Restore { tick, .. } => *tick,
        }
    }
}

/// A recording that passed the reader.
#[derive(Clone, Debug, PartialEq)]
pub struct Recording {
    pub engine: String,
    pub engine_version: i64,
    pub model_fingerprint: String,
    pub profile: String,
    /// The descriptor object's text.
    pub descriptor: String,
    pub seed: u64,
    /// The first tick asked for, and the last.
    pub from_tick: u64,
    pub end_tick: u64,
    /// The start checkpoint's text (its tick is `first_tick`).
    pub start: String,
    pub events: Vec<Event>,
    /// The tick of `tick_hashes[0]` (the start checkpoint's tick).
    pub first_tick: u64,
    pub tick_hashes: Vec<u64>,
    pub keyframe_hashes: Vec<Check>,
}

/// A keyframe's hash: the state at `tick` must have `hash` when the replay has applied the
/// first `event` events (a discontinuity's right after its restore event; a periodic
/// keyframe's before the events at its tick).
pub type Check = (u64, u64, u64);

impl Recording {
    /// The hash the state at `tick` must have (`first_tick..=end_tick`).
    pub fn hash_at(&self, tick: u64) -> Option<u64> {
        let i = tick.checked_sub(self.first_tick)?;
        self.tick_hashes.get(usize::try_from(i).ok()?).copied()
    }
}

/// What an export writes (the endpoint gathers it under the native lock).
/// What an export writes: copied under the native lock (the values and states it needs, nothing
/// borrowed), printed and hashed after it is released.
pub(crate) enum Out {
    /// An input write, its values at `values` in [`Parts::values`].
    Input {
        tick: u64,
        field: Field,
        id: Option<usize>,
        values: std::ops::Range<usize>,
    },
    /// A discontinuity, its state [`Parts::states`]`[state]`.
    Restore { tick: u64, state: usize },
}

/// A recording's parts, owned (see [`Out`]).
pub(crate) struct Parts {
    pub from_tick: u64,
    pub end_tick: u64,
    pub start_tick: u64,
    pub start: Box<[f64]>,
    pub events: Vec<Out>,
    pub values: Vec<f64>,
    pub states: Vec<Box<[f64]>>,
    pub hashes: Vec<u64>,
    pub keyframes: Vec<Check>,
}

pub(crate) struct Export<'a> {
    pub facts: Facts<'a>,
    pub parts: Parts,
}

/// The fewest bytes a recording of `parts` can print as, counting only what no number can
/// shorten: 19 per tick hash (`"<16 hex>",`), 50 per input event and 2 per value (`0,`), 2 per
/// value of a carried state, 50 per keyframe check.
pub(crate) fn min_bytes(parts: &Parts) -> u64 {
    let values = parts.values.len() as u64;
    let state = |s: &[f64]| 2 * s.len() as u64;
    19 * parts.hashes.len() as u64
        + 50 * parts.events.len() as u64
        + 2 * values
        + state(&parts.start)
        + parts.states.iter().map(|s| state(s)).sum::<u64>()
        + 50 * parts.keyframes.len() as u64
}

/// An export that the reader would refuse for its counts, or that cannot fit its size limit
/// whatever its numbers print as: refused before any of it is printed.
pub(crate) fn refuse_unreadable(parts: &Parts) -> Result<(), Refusal> {
    let range = format!("ticks {}..={}", parts.from_tick, parts.end_tick);
    let over = |what: String| {
        Err(Refusal::rejected(
            Reason::TooLarge,
            format!(
                "the recording of {range} would hold {what}, more than `mjbridge replay` reads: \
                 export fewer ticks; nothing was exported"
            ),
        ))
    };
    if parts.events.len() > MAX_EVENTS {
        return over(format!(
            "{} events (at most {MAX_EVENTS})",
            parts.events.len()
        ));
    }
    if parts.hashes.len() > MAX_TICKS || parts.keyframes.len() > MAX_TICKS {
        return over(format!(
            "{} tick hashes and {} keyframe checks (at most {MAX_TICKS} each)",
            parts.hashes.len(),
            parts.keyframes.len()
        ));
    }
    let least = min_bytes(parts);
    if least > MAX_RECORDING_BYTES as u64 {
        return over(format!(
            "at least {least} bytes ({} tick hashes, {} events of {} values; the limit is \
             {MAX_RECORDING_BYTES})",
            parts.hashes.len(),
            parts.events.len(),
            parts.values.len()
        ));
    }
    Ok(())
}

fn hex16(h: u64) -> String {
    format!("{h:016x}")
}

/// Print a recording document: refused (`MJB_REASON_TOO_LARGE`) as soon as it passes what the
/// reader reads (64 MiB in all, 1 MiB a carried checkpoint), so an export never serves a
/// recording its own reader refuses, and stops printing early when it would.
pub(crate) fn write(ex: &Export) -> Result<String, Refusal> {
    let (f, e) = (&ex.facts, &ex.parts);
    refuse_unreadable(e)?;
    let range = format!("ticks {}..={}", e.from_tick, e.end_tick);
    let mut w = Writer::reusing(String::with_capacity(4096 + 24 * e.hashes.len()));
    let mut failed = None;
    w.begin_object();
    w.str_field("format", FORMAT);
    w.str_field("engine", &f.engine.version_string);
    w.i64_field("engine_version", i64::from(f.engine.runtime_version));
    w.str_field("model_fingerprint", f.fingerprint);
    w.str_field("profile", f.profile.name());
    w.field("descriptor", |w| write_descriptor(w, f));
    w.u64_field("seed", f.seed);
    w.u64_field("from_tick", e.from_tick);
    w.u64_field("end_tick", e.end_tick);
    w.field("start", |w| {
        checkpoint(w, f, &e.start, e.start_tick, &range, &mut failed)
    });
    w.field("events", |w| write_events(w, f, e, &range, &mut failed));
    w.field("tick_hashes", |w| {
        w.begin_object();
        w.u64_field("first", e.start_tick);
        w.field("xxh3_64", |w| {
            push_hashes(&mut w.text, e.hashes.iter().copied());
            unhashed()
        });
        w.end_object()
    });
    w.field("keyframe_hashes", |w| {
        w.text.push('[');
        for (i, (tick, event, hash)) in e.keyframes.iter().enumerate() {
            if i > 0 {
                w.text.push(',');
            }
            w.begin_object();
            w.u64_field("tick", *tick);
            w.u64_field("event", *event);
            w.str_field("xxh3_64", &hex16(*hash));
            w.end_object();
        }
        w.text.push(']');
        unhashed()
    });
    w.end_object();
    if let Some(r) = failed {
        return Err(r);
    }
    let inner = w.into_text();
    // The envelope adds the hash and 40 bytes.
    if inner.len() + 120 > MAX_RECORDING_BYTES {
        return Err(Refusal::rejected(
            Reason::TooLarge,
            format!(
                "the recording of {range} would be over {MAX_RECORDING_BYTES} bytes, more than \
                 `mjbridge replay` reads: export fewer ticks; nothing was exported"
            ),
        ));
    }
    let hash = hash_value(&inner)?;
    let mut out = String::with_capacity(inner.len() + 100);
    out.push_str("{\"recording\":");
    out.push_str(&inner);
    out.push_str(",\"recording_hash\":\"");
    out.push_str(&hash);
    out.push_str("\"}");
    Ok(out)
}

/// A checkpoint a recording carries (its start, a restore event's), or `null` and the first
/// refusal in `failed` (a checkpoint over what a restore reads included).
fn checkpoint(
    w: &mut Writer,
    f: &Facts,
    state: &[f64],
    tick: u64,
    range: &str,
    failed: &mut Option<Refusal>,
) -> Canon {
    let at = w.text.len();
    let c = write_integration(w, f, state, tick, &Printed::default());
    let len = w.text.len() - at;
    match c {
        Ok(_) if len > MAX_DOCUMENT_BYTES => {
            failed.get_or_insert(Refusal::rejected(
                Reason::TooLarge,
                format!(
                    "the checkpoint of tick {tick} in the recording of {range} would be {len} \
                     bytes; a recording's checkpoints are at most {MAX_DOCUMENT_BYTES} (what a \
                     restore reads); nothing was exported"
                ),
            ));
            unhashed()
        }
        Ok(c) => c,
        Err(r) => {
            failed.get_or_insert(r);
            w.text.push_str("null");
            unhashed()
        }
    }
}

/// The `events` array; it stops early once the text is past what the reader reads (the caller
/// refuses it then).
fn write_events(
    w: &mut Writer,
    f: &Facts,
    e: &Parts,
    range: &str,
    failed: &mut Option<Refusal>,
) -> Canon {
    w.text.push('[');
    for (i, ev) in e.events.iter().enumerate() {
        if w.text.len() > MAX_RECORDING_BYTES {
            break; // refused by the caller: printing the rest cannot make it fit
        }
        if i > 0 {
            w.text.push(',');
        }
        w.begin_object();
        match ev {
            Out::Input {
                tick,
                field,
                id,
                values,
            } => {
                w.u64_field("tick", *tick);
                w.field("input", |w| {
                    w.begin_object();
                    w.str_field("field", field.name());
                    w.i64_field("id", id.map_or(-1, |i| i as i64));
                    w.f64s_field("values", &e.values[values.clone()]);
                    w.end_object()
                });
            }
            Out::Restore { tick, state } => {
                w.u64_field("tick", *tick);
                w.field("restore", |w| {
                    checkpoint(w, f, &e.states[*state], *tick, range, failed)
                });
            }
        }
        w.end_object();
    }
    w.text.push(']');
    unhashed()
}

/// The canonical description of a member the recording hash does not take from the writer
/// (the hash is computed from the printed text, as the reader computes it).
fn unhashed() -> Canon {
    Canon::Text(String::new())
}

fn push_hashes(text: &mut String, hashes: impl Iterator<Item = u64>) {
    text.push('[');
    for (i, h) in hashes.enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push('"');
        text.push_str(&hex16(h));
        text.push('"');
    }
    text.push(']');
}

fn refuse(reason: Reason, ptr: &str, msg: impl Into<String>) -> Refusal {
    Refusal::rejected(reason, msg).at(ptr)
}

/// Keep the first refusal found; the value when there is one.
fn keep<T>(bad: &mut Option<Refusal>, ptr: &str, name: &str, slot: Slot<T>) -> Option<T> {
    match slot {
        Slot::Got(v) => Some(v),
        Slot::Bad(r) => {
            bad.get_or_insert(r);
            None
        }
        Slot::Absent => {
            bad.get_or_insert(schema::missing(ptr, name));
            None
        }
    }
}

/// A 16-digit lowercase hex hash at the reader's position.
fn read_hex16(r: &mut Reader) -> Result<Slot<u64>, Refusal> {
    Ok(match read_string(r)? {
        Slot::Got(s) => {
            let ok = s.len() == 16 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
            match ok {
                true => Slot::Got(u64::from_str_radix(&s, 16).expect("checked hex")),
                false => Slot::Bad(refuse(
                    Reason::WrongType,
                    &r.pointer(),
                    format!(
                        "expected 16 lowercase hex digits (XXH3-64), found {:?}",
                        short(&s)
                    ),
                )),
            }
        }
        other => other.map(|_| 0),
    })
}

fn short(s: &str) -> String {
    s.chars().take(40).collect()
}

/// A checkpoint document's (or its descriptor's) raw text, kept for the strict checkpoint
/// reader that judges it when it is restored: an object of at most the
/// [`MAX_DOCUMENT_BYTES`] a checkpoint may have (a larger one is refused here, at its
/// pointer: the endpoint would refuse it anyway, and what a recording keeps stays the size of
/// what it can use).
fn read_checkpoint_text(r: &mut Reader) -> Result<Slot<Box<str>>, Refusal> {
    if let Some(bad) = schema::expect(r, Kind::Object, "an object")? {
        return Ok(Slot::Bad(bad));
    }
    let ptr = r.pointer();
    let text = r.raw()?;
    if text.len() > MAX_DOCUMENT_BYTES {
        return Ok(Slot::Bad(refuse(
            Reason::TooLarge,
            &ptr,
            format!(
                "a checkpoint document is at most {MAX_DOCUMENT_BYTES} bytes; this one is {}",
                text.len()
            ),
        )));
    }
    Ok(Slot::Got(text.into()))
}

const TOP: [&str; 2] = ["recording", "recording_hash"];
const KEYS: [&str; 13] = [
    "format",
    "engine",
    "engine_version",
    "model_fingerprint",
    "profile",
    "descriptor",
    "seed",
    "from_tick",
    "end_tick",
    "start",
    "events",
    "tick_hashes",
    "keyframe_hashes",
];

#[derive(Default)]
struct Raw {
    format: Option<String>,
    engine: Option<String>,
    engine_version: Option<i64>,
    model_fingerprint: Option<String>,
    profile: Option<String>,
    descriptor: Option<String>,
    seed: Option<u64>,
    from_tick: Option<u64>,
    end_tick: Option<u64>,
    start: Option<String>,
    events: Vec<Event>,
    /// `tick_hashes.first`.
    first_tick: Option<u64>,
    tick_hashes: Vec<u64>,
    keyframe_hashes: Vec<Check>,
}

/// Read and validate a recording document strictly: every refusal has its reason and the JSON
/// pointer of the offending element (`""` for the size or the encoding).
pub fn read(bytes: &[u8]) -> Result<Recording, Refusal> {
    if bytes.len() > MAX_RECORDING_BYTES {
        return Err(refuse(
            Reason::TooLarge,
            "",
            format!(
                "the recording is {} bytes; the limit is {MAX_RECORDING_BYTES}",
                bytes.len()
            ),
        ));
    }
    let text = Text::unbounded(bytes)?;
    let mut r = Reader::new(text)?;
    let mut bad: Option<Refusal> = None;
    let mut raw = Raw::default();
    let mut span = None;
    let mut claimed = None;
    let mut top = schema::object(&mut r, &TOP, |r, i| {
        match i {
            0 => {
                let at = r.pos();
                if let Some(b) = schema::expect(r, Kind::Object, "an object")? {
                    bad.get_or_insert(b);
                    return Ok(());
                }
                read_body(r, &mut raw, &mut bad)?;
                span = Some((at, r.offset()));
            }
            _ => claimed = keep(&mut bad, "", "recording_hash", read_string(r)?),
        }
        Ok(())
    })?;
    r.finish()?;
    top.refuse_unknown()?;
    top.require("", &TOP, |_| true)?;
    if let Some(b) = bad {
        return Err(b);
    }
    // The reader's buffers (the key spans of the widest object read) go before the hash pass.
    let text = r.text();
    drop(r);
    let recording = judge(raw)?;
    let (a, b) = span.expect("present");
    let got = hash_value(&text[a..b])?;
    let claimed = claimed.expect("present");
    if claimed != got {
        return Err(refuse(
            Reason::StateHash,
            "/recording_hash",
            format!(
                "the recording hashes to {got}, not the {:?} it names",
                short(&claimed)
            ),
        ));
    }
    Ok(recording)
}

fn read_body(r: &mut Reader, raw: &mut Raw, bad: &mut Option<Refusal>) -> Result<(), Refusal> {
    const P: &str = "/recording";
    let mut m = schema::object(r, &KEYS, |r, i| {
        let name = KEYS[i];
        match i {
            0 => raw.format = keep(bad, P, name, read_string(r)?),
            1 => raw.engine = keep(bad, P, name, read_string(r)?),
            2 => {
                let v = read_int(r, i64::MIN.into(), i64::MAX.into())?;
                raw.engine_version = keep(bad, P, name, v).map(|v| v as i64);
            }
            3 => raw.model_fingerprint = keep(bad, P, name, read_string(r)?),
            4 => raw.profile = keep(bad, P, name, read_string(r)?),
            5 => raw.descriptor = keep(bad, P, name, read_checkpoint_text(r)?).map(String::from),
            6 => raw.seed = keep(bad, P, name, read_u64(r)?),
            7 => raw.from_tick = keep(bad, P, name, read_u64(r)?),
            8 => raw.end_tick = keep(bad, P, name, read_u64(r)?),
            9 => raw.start = keep(bad, P, name, read_checkpoint_text(r)?).map(String::from),
            10 => read_events(r, &mut raw.events, bad)?,
            11 => read_tick_hashes(r, raw, bad)?,
            _ => read_keyframes(r, &mut raw.keyframe_hashes, bad)?,
        }
        Ok(())
    })?;
    if bad.is_none() {
        if let Err(e) = m
            .refuse_unknown()
            .and_then(|()| m.require(P, &KEYS, |_| true))
        {
            *bad = Some(e);
        }
    }
    Ok(())
}

/// An array member of at most `max` elements, each read by `item` into `out`: a value that is
/// not an array, or an element past `max` (refused as "a recording has at most {max} {what}"),
/// is kept in `bad` and the pass goes on past it.
///
/// `out` is sized once, before the pass, from a look at the array (its elements, at most
/// one per `min_bytes` of it, the size of the smallest element `item` keeps): it never grows
/// by doubling, which would hold three times the elements while it moves them.
fn bounded_array<T>(
    r: &mut Reader,
    bad: &mut Option<Refusal>,
    (max, min_bytes): (usize, usize),
    what: &str,
    out: &mut Vec<T>,
    mut item: impl FnMut(&mut Reader, &mut Option<Refusal>, &mut Vec<T>) -> Result<(), Refusal>,
) -> Result<(), Refusal> {
    if let Some(b) = schema::expect(r, Kind::Array, "an array")? {
        bad.get_or_insert(b);
        return Ok(());
    }
    let (elements, bytes) = r.array_len_ahead();
    out.reserve_exact(elements.min(max).min(bytes / min_bytes + 1));
    r.array(|r, i| {
        if i >= max {
            bad.get_or_insert(refuse(
                Reason::TooManyValues,
                &r.pointer(),
                format!("a recording has at most {max} {what}"),
            ));
            return r.skip();
        }
        item(r, bad, out)
    })?;
    Ok(())
}

/// The smallest texts of an element each array keeps: `{"tick":0,"restore":{}},` (an event),
/// `"0123456789abcdef",` (a tick hash), `{"tick":0,"event":0,"xxh3_64":"<16 hex>"},`.
const MIN_EVENT_BYTES: usize = 24;
const MIN_HASH_BYTES: usize = 19;
const MIN_KEYFRAME_BYTES: usize = 50;

fn read_events(
    r: &mut Reader,
    out: &mut Vec<Event>,
    bad: &mut Option<Refusal>,
) -> Result<(), Refusal> {
    // One buffer checks every input's values (at most MAX_VALUES doubles: 256 KiB).
    let mut scratch = Vec::new();
    let limits = (MAX_EVENTS, MIN_EVENT_BYTES);
    bounded_array(r, bad, limits, "events", out, |r, bad, out| {
        let ptr = r.pointer();
        if let Some(b) = schema::expect(r, Kind::Object, "an object")? {
            bad.get_or_insert(b);
            return Ok(());
        }
        let (mut tick, mut input, mut restore) = (None, None, None);
        const EV: [&str; 3] = ["tick", "input", "restore"];
        let mut m = schema::object(r, &EV, |r, k| {
            match k {
                0 => tick = keep(bad, &ptr, "tick", read_u64(r)?),
                1 => input = read_input(r, bad, &mut scratch)?,
                _ => restore = keep(bad, &ptr, "restore", read_checkpoint_text(r)?),
            }
            Ok(())
        })?;
        if let Err(e) = m
            .refuse_unknown()
            .and_then(|()| m.require(&ptr, &EV, |k| k == 0))
        {
            bad.get_or_insert(e);
            return Ok(());
        }
        let ev = match (m.has(1), m.has(2)) {
            (true, true) => {
                bad.get_or_insert(refuse(
                    Reason::UnknownField,
                    &format!("{ptr}/restore"),
                    "an event has one of \"input\" and \"restore\", not both",
                ));
                return Ok(());
            }
            (false, false) => {
                bad.get_or_insert(schema::missing(&ptr, "input"));
                return Ok(());
            }
            _ => (tick, input, restore),
        };
        match ev {
            (Some(tick), Some((field, id, values)), None) => out.push(Event::Input {
                tick,
                field,
                id,
                values,
            }),
            (Some(tick), None, Some(checkpoint)) => out.push(Event::Restore { tick, checkpoint }),
            _ => {} // a refusal is recorded
        }
        Ok(())
    })
}

type InputParts = (Field, Option<u32>, Values);

fn read_input(
    r: &mut Reader,
    bad: &mut Option<Refusal>,
    scratch: &mut Vec<f64>,
) -> Result<Option<InputParts>, Refusal> {
    let ptr = r.pointer();
    if let Some(b) = schema::expect(r, Kind::Object, "an object")? {
        bad.get_or_insert(b);
        return Ok(None);
    }
    const IN: [&str; 3] = ["field", "id", "values"];
    let (mut field, mut id, mut values) = (None, None, None);
    let mut m = schema::object(r, &IN, |r, k| {
        match k {
            0 => {
                let p = r.pointer();
                if let Some(name) = keep(bad, &ptr, "field", read_string(r)?) {
                    match Field::from_name(&name).filter(|f| f.input_width().is_some()) {
                        Some(f) => field = Some(f),
                        None => {
                            bad.get_or_insert(refuse(
                                Reason::UnknownName,
                                &p,
                                format!("{:?} is not an input field", short(&name)),
                            ));
                        }
                    }
                }
            }
            1 => id = keep(bad, &ptr, "id", read_int(r, -1, i32::MAX.into())?),
            _ => {
                let p = r.pointer();
                let at = r.pos();
                if let Some(n) = keep(bad, &ptr, "values", read_numbers(r, scratch, MAX_VALUES)?) {
                    if n.count > MAX_VALUES {
                        bad.get_or_insert(refuse(
                            Reason::TooManyValues,
                            &p,
                            format!("an input has at most {MAX_VALUES} values"),
                        ));
                    } else if let Err(e) = n.strict() {
                        bad.get_or_insert(e);
                    } else {
                        values = Some(Values(r.text()[at..r.offset()].into()));
                    }
                }
            }
        }
        Ok(())
    })?;
    if let Err(e) = m
        .refuse_unknown()
        .and_then(|()| m.require(&ptr, &IN, |_| true))
    {
        bad.get_or_insert(e);
        return Ok(None);
    }
    Ok(match (field, id, values) {
        (Some(f), Some(id), Some(v)) => Some((f, u32::try_from(id).ok(), v)),
        _ => None,
    })
}

fn read_tick_hashes(
    r: &mut Reader,
    raw: &mut Raw,
    bad: &mut Option<Refusal>,
) -> Result<(), Refusal> {
    let ptr = r.pointer();
    if let Some(b) = schema::expect(r, Kind::Object, "an object")? {
        bad.get_or_insert(b);
        return Ok(());
    }
    const TH: [&str; 2] = ["first", "xxh3_64"];
    let mut m = schema::object(r, &TH, |r, k| {
        match k {
            0 => raw.first_tick = keep(bad, &ptr, "first", read_u64(r)?),
            _ => read_hash_list(r, &mut raw.tick_hashes, bad)?,
        }
        Ok(())
    })?;
    if let Err(e) = m
        .refuse_unknown()
        .and_then(|()| m.require(&ptr, &TH, |_| true))
    {
        bad.get_or_insert(e);
    }
    Ok(())
}

fn read_hash_list(
    r: &mut Reader,
    out: &mut Vec<u64>,
    bad: &mut Option<Refusal>,
) -> Result<(), Refusal> {
    let limits = (MAX_TICKS, MIN_HASH_BYTES);
    bounded_array(r, bad, limits, "tick hashes", out, |r, bad, out| {
        if let Some(h) = keep(bad, "", "", read_hex16(r)?) {
            out.push(h);
        }
        Ok(())
    })
}

fn read_keyframes(
    r: &mut Reader,
    out: &mut Vec<Check>,
    bad: &mut Option<Refusal>,
) -> Result<(), Refusal> {
    let limits = (MAX_TICKS, MIN_KEYFRAME_BYTES);
    bounded_array(r, bad, limits, "keyframe hashes", out, |r, bad, out| {
        let ptr = r.pointer();
        if let Some(b) = schema::expect(r, Kind::Object, "an object")? {
            bad.get_or_insert(b);
            return Ok(());
        }
        const KF: [&str; 3] = ["tick", "event", "xxh3_64"];
        let (mut tick, mut event, mut hash) = (None, None, None);
        let mut m = schema::object(r, &KF, |r, k| {
            match k {
                0 => tick = keep(bad, &ptr, "tick", read_u64(r)?),
                1 => event = keep(bad, &ptr, "event", read_u64(r)?),
                _ => hash = keep(bad, &ptr, "xxh3_64", read_hex16(r)?),
            }
            Ok(())
        })?;
        if let Err(e) = m
            .refuse_unknown()
            .and_then(|()| m.require(&ptr, &KF, |_| true))
        {
            bad.get_or_insert(e);
        }
        if let (Some(t), Some(e), Some(h)) = (tick, event, hash) {
            out.push((t, e, h));
        }
        Ok(())
    })
}

/// The checks across members, after the pass.
fn judge(raw: Raw) -> Result<Recording, Refusal> {
    const P: &str = "/recording";
    let at = |k: &str| format!("{P}/{k}");
    let format = raw.format.expect("present");
    if format != FORMAT {
        return Err(refuse(
            Reason::Unsupported,
            &at("format"),
            format!("format {:?} is not {FORMAT:?}", short(&format)),
        ));
    }
    let (from, end) = (
        raw.from_tick.expect("present"),
        raw.end_tick.expect("present"),
    );
    let first = raw.first_tick.expect("present");
    if from > end {
        return Err(refuse(
            Reason::OutOfRange,
            &at("from_tick"),
            format!("from_tick {from} is after end_tick {end}"),
        ));
    }
    if first > from {
        return Err(refuse(
            Reason::OutOfRange,
            &at("tick_hashes/first"),
            format!("the first hashed tick {first} is after from_tick {from}"),
        ));
    }
    // `first <= from <= end`: the span cannot underflow, but it counts 2^64 ticks when the
    // range is all of them (u128: every count is exact, none overflows).
    let want = u128::from(end - first) + 1;
    if want != raw.tick_hashes.len() as u128 {
        return Err(refuse(
            Reason::Size,
            &at("tick_hashes/xxh3_64"),
            format!(
                "{} tick hashes for ticks {first}..={end} ({want} expected)",
                raw.tick_hashes.len(),
            ),
        ));
    }
    let mut last = first;
    for (i, e) in raw.events.iter().enumerate() {
        let t = e.tick();
        if t < last || t > end {
            return Err(refuse(
                Reason::OutOfRange,
                &format!("{P}/events/{i}/tick"),
                format!("event tick {t} is outside {last}..={end} (events are in tick order)"),
            ));
        }
        last = t;
    }
    let (mut last, mut last_event) = (first, 0);
    let count = raw.events.len() as u64;
    for (i, &(t, e, _)) in raw.keyframe_hashes.iter().enumerate() {
        if t < last || t > end {
            return Err(refuse(
                Reason::OutOfRange,
                &format!("{P}/keyframe_hashes/{i}/tick"),
                format!("keyframe tick {t} is outside {last}..={end} (in tick order)"),
            ));
        }
        if e < last_event || e > count {
            return Err(refuse(
                Reason::OutOfRange,
                &format!("{P}/keyframe_hashes/{i}/event"),
                format!("keyframe event {e} is outside {last_event}..={count} (in order)"),
            ));
        }
        (last, last_event) = (t, e);
    }
    Ok(Recording {
        engine: raw.engine.expect("present"),
        engine_version: raw.engine_version.expect("present"),
        model_fingerprint: raw.model_fingerprint.expect("present"),
        profile: raw.profile.expect("present"),
        descriptor: raw.descriptor.expect("present"),
        seed: raw.seed.expect("present"),
        from_tick: from,
        end_tick: end,
        start: raw.start.expect("present"),
        events: raw.events,
        first_tick: first,
        tick_hashes: raw.tick_hashes,
        keyframe_hashes: raw.keyframe_hashes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parts of an export of `ticks` ticks with one input of `values` values a tick.
    fn parts(ticks: usize, values: usize) -> Parts {
        Parts {
            from_tick: 0,
            end_tick: ticks as u64 - 1,
            start_tick: 0,
            start: vec![0.0; 20].into(),
            events: (0..ticks)
                .map(|t| Out::Input {
                    tick: t as u64,
                    field: Field::Ctrl,
                    id: None,
                    values: t * values..(t + 1) * values,
                })
                .collect(),
            values: vec![0.0; ticks * values],
            states: Vec::new(),
            hashes: vec![0; ticks],
            keyframes: vec![(0, 0, 0)],
        }
    }

    #[test]
    fn an_export_its_reader_would_refuse_is_refused_before_it_is_printed() {
        // The issue's window: 1,000,000 ticks of one control value (97.7 MB when printed).
        let big = parts(1_000_000, 1);
        assert!(
            min_bytes(&big) > MAX_RECORDING_BYTES as u64,
            "{}",
            min_bytes(&big)
        );
        let r = refuse_unreadable(&big).unwrap_err();
        assert_eq!(r.reason, Reason::TooLarge);
        assert!(
            r.message.contains("ticks 0..=999999") && r.message.contains("export fewer ticks"),
            "{}",
            r.message
        );
        // More events than the reader takes, however short.
        let mut many = parts(10, 1);
        many.events = (0..=MAX_EVENTS)
            .map(|_| Out::Input {
                tick: 0,
                field: Field::Ctrl,
                id: None,
                values: 0..0,
            })
            .collect();
        assert_eq!(
            refuse_unreadable(&many).unwrap_err().reason,
            Reason::TooLarge
        );
        // A window the reader takes is not refused here.
        assert!(refuse_unreadable(&parts(100_000, 2)).is_ok());
    }

    /// A recording whose `recording` members are the defaults of a minimal valid one with
    /// `edits` in place (raw JSON), hashed (so that only the edits can be refused).
    fn doc(edits: &[(&str, &str)]) -> String {
        let members = [
            ("format", "\"mjbridge_recording_v1\""),
            ("engine", "\"4.0.0\""),
            ("engine_version", "400"),
            ("model_fingerprint", "\"sha256:0\""),
            ("profile", "\"mujoco_integration_v1\""),
            ("descriptor", "{}"),
            ("seed", "0"),
            ("from_tick", "0"),
            ("end_tick", "1"),
            ("start", "{}"),
            ("events", "[]"),
            (
                "tick_hashes",
                "{\"first\":0,\"xxh3_64\":[\"0000000000000000\",\"00000000000000ff\"]}",
            ),
            ("keyframe_hashes", "[]"),
        ];
        let inner = members
            .iter()
            .map(|(k, v)| {
                let v = edits.iter().find(|(e, _)| e == k).map_or(*v, |(_, v)| *v);
                format!("\"{k}\":{v}")
            })
            .collect::<Vec<_>>()
            .join(",");
        let inner = format!("{{{inner}}}");
        let hash = hash_value(&inner).unwrap();
        format!("{{\"recording\":{inner},\"recording_hash\":\"{hash}\"}}")
    }

    fn refusal(edits: &[(&str, &str)]) -> (Reason, String, String) {
        let r = read(doc(edits).as_bytes()).unwrap_err();
        (r.reason, r.pointer.unwrap_or_default(), r.message)
    }

    #[test]
    fn a_minimal_recording_is_read() {
        let rec = read(doc(&[]).as_bytes()).unwrap();
        assert_eq!((rec.first_tick, rec.end_tick), (0, 1));
        assert_eq!(rec.hash_at(1), Some(0xff));
        assert_eq!(rec.hash_at(u64::MAX), None);
    }

    #[test]
    fn ticks_at_the_end_of_the_u64_range_are_refused_without_overflow() {
        // All 2^64 ticks: the count of hashes expected is 2^64, one more than a u64 holds.
        let (reason, ptr, msg) = refusal(&[("end_tick", "18446744073709551615")]);
        assert_eq!(
            (reason, ptr.as_str()),
            (Reason::Size, "/recording/tick_hashes/xxh3_64")
        );
        assert!(msg.contains("18446744073709551616 expected"), "{msg}");
        // The last two ticks of the range, one hash short.
        let (reason, ptr, msg) = refusal(&[
            ("end_tick", "18446744073709551615"),
            ("from_tick", "18446744073709551614"),
            (
                "tick_hashes",
                "{\"first\":18446744073709551614,\"xxh3_64\":[\"0000000000000000\"]}",
            ),
        ]);
        assert_eq!(
            (reason, ptr.as_str()),
            (Reason::Size, "/recording/tick_hashes/xxh3_64")
        );
        assert!(msg.contains("(2 expected)"), "{msg}");
        // Events and keyframe checks at u64::MAX, past the end: refused where they are.
        let last = "18446744073709551615";
        let ev = format!(
            "[{{\"tick\":{last},\"input\":{{\"field\":\"ctrl\",\"id\":0,\"values\":[1]}}}}]"
        );
        let (reason, ptr, _) = refusal(&[("events", &ev)]);
        assert_eq!(
            (reason, ptr.as_str()),
            (Reason::OutOfRange, "/recording/events/0/tick")
        );
        let kf = format!("[{{\"tick\":1,\"event\":{last},\"xxh3_64\":\"0000000000000000\"}}]");
        let (reason, ptr, _) = refusal(&[("keyframe_hashes", &kf)]);
        assert_eq!(
            (reason, ptr.as_str()),
            (Reason::OutOfRange, "/recording/keyframe_hashes/0/event")
        );
        // A tick past u64: not an integer of the range.
        let (reason, ptr, _) = refusal(&[("end_tick", "18446744073709551616")]);
        assert_eq!(
            (reason, ptr.as_str()),
            (Reason::OutOfRange, "/recording/end_tick")
        );
    }

    #[test]
    fn checkpoints_a_recording_carries_are_held_to_the_checkpoint_size_limit() {
        let big = format!("{{\"a\":\"{}\"}}", "x".repeat(MAX_DOCUMENT_BYTES));
        for (member, ptr) in [
            ("descriptor", "/recording/descriptor"),
            ("start", "/recording/start"),
        ] {
            let (reason, p, _) = refusal(&[(member, &big)]);
            assert_eq!((reason, p.as_str()), (Reason::TooLarge, ptr));
        }
        let ev = format!("[{{\"tick\":1,\"restore\":{{}}}},{{\"tick\":1,\"restore\":{big}}}]");
        let (reason, p, _) = refusal(&[("events", &ev)]);
        assert_eq!(
            (reason, p.as_str()),
            (Reason::TooLarge, "/recording/events/1/restore")
        );
        // At the limit: kept.
        let fits = format!("{{\"a\":\"{}\"}}", "x".repeat(MAX_DOCUMENT_BYTES - 8));
        assert_eq!(fits.len(), MAX_DOCUMENT_BYTES);
        assert_eq!(
            read(doc(&[("start", &fits)]).as_bytes()).unwrap().start,
            fits
        );
    }

    /// The fuzz target's seeds of hostile shapes (fuzz/seeds/recording/hostile-*.json): their
    /// `recording_hash` is Python's canonical form of the recording (sorted keys), so an
    /// accepted one proves the canonical pass over deep nesting and many keys too.
    #[test]
    fn hostile_seeds_are_accepted_or_refused_where_their_shape_says() {
        let seed = |name: &str| {
            let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/seeds/recording");
            std::fs::read(format!("{dir}/hostile-{name}.json")).unwrap()
        };
        for name in ["nested-60", "many-keys", "restore-flood", "values-zeros"] {
            let rec = read(&seed(name)).unwrap_or_else(|r| panic!("{name}: {r:?}"));
            assert_eq!(rec.tick_hashes.len(), 1);
        }
        for (name, reason, ptr) in [
            (
                "end-tick-max",
                Reason::Size,
                "/recording/tick_hashes/xxh3_64",
            ),
            (
                "escaped-duplicate",
                Reason::DuplicateField,
                "/recording/descriptor/ab",
            ),
            (
                "too-deep",
                Reason::MalformedJson,
                &format!("/recording/descriptor{}", "/a".repeat(63)),
            ),
        ] {
            let r = read(&seed(name)).unwrap_err();
            assert_eq!(
                (r.reason, r.pointer.as_deref()),
                (reason, Some(ptr)),
                "{name}: {r:?}"
            );
        }
    }

    #[test]
    fn input_values_are_kept_as_their_text_and_parse_to_the_same_doubles() {
        let ev = "[{\"tick\":1,\"input\":{\"field\":\"ctrl\",\"id\":-1,\"values\":[ 0.5, -0, 1e-300 ]}}]";
        let rec = read(doc(&[("events", ev)]).as_bytes()).unwrap();
        let Event::Input { id, values, .. } = &rec.events[0] else {
            panic!("{:?}", rec.events)
        };
        assert_eq!(*id, None);
        assert_eq!(values.text(), "[ 0.5, -0, 1e-300 ]");
        let v = values.to_vec();
        assert_eq!(v.len(), 3);
        assert_eq!(
            v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            [0.5f64, -0.0, 1e-300].map(f64::to_bits)
        );
        assert!(std::mem::size_of::<Event>() <= 40);
    }
}
