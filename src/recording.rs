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
use crate::doc::{Kind, Reader, Text};
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

/// One mutation of a recording, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// An input write at `tick` (`id` None: the whole field).
    Input {
        tick: u64,
        field: Field,
        id: Option<usize>,
        values: Vec<f64>,
    },
    /// A discontinuity at `tick` (a restore, a restore-point apply): its checkpoint's text.
    Restore { tick: u64, checkpoint: String },
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
pub(crate) enum Out<'a> {
    Input {
        tick: u64,
        field: Field,
        id: Option<usize>,
        values: Vec<f64>,
    },
    Restore {
        tick: u64,
        state: &'a [f64],
    },
}

pub(crate) struct Export<'a> {
    pub facts: Facts<'a>,
    pub from_tick: u64,
    pub end_tick: u64,
    pub start_tick: u64,
    pub start: &'a [f64],
    pub events: Vec<Out<'a>>,
    pub hashes: Vec<u64>,
    pub keyframes: Vec<Check>,
}

fn hex16(h: u64) -> String {
    format!("{h:016x}")
}

/// Print a recording document.
pub(crate) fn write(e: &Export) -> Result<String, Refusal> {
    let f = &e.facts;
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
    let mut checkpoint = |w: &mut Writer, state: &[f64], tick: u64| match write_integration(
        w,
        f,
        state,
        tick,
        &Printed::default(),
    ) {
        Ok(c) => c,
        Err(r) => {
            failed.get_or_insert(r);
            w.text.push_str("null");
            unhashed()
        }
    };
    w.field("start", |w| checkpoint(w, e.start, e.start_tick));
    w.field("events", |w| {
        w.text.push('[');
        for (i, ev) in e.events.iter().enumerate() {
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
                        w.f64s_field("values", values);
                        w.end_object()
                    });
                }
                Out::Restore { tick, state } => {
                    w.u64_field("tick", *tick);
                    w.field("restore", |w| checkpoint(w, state, *tick));
                }
            }
            w.end_object();
        }
        w.text.push(']');
        unhashed()
    });
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
    let hash = hash_value(&inner)?;
    let mut out = String::with_capacity(inner.len() + 100);
    out.push_str("{\"recording\":");
    out.push_str(&inner);
    out.push_str(",\"recording_hash\":\"");
    out.push_str(&hash);
    out.push_str("\"}");
    Ok(out)
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
    let ptr = r.pointer();
    Ok(match read_string(r)? {
        Slot::Got(s) => {
            let ok = s.len() == 16 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
            match ok {
                true => Slot::Got(u64::from_str_radix(&s, 16).expect("checked hex")),
                false => Slot::Bad(refuse(
                    Reason::WrongType,
                    &ptr,
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

/// An object's raw text (kept for a later strict reader).
fn read_object_text(r: &mut Reader) -> Result<Slot<String>, Refusal> {
    if let Some(bad) = schema::expect(r, Kind::Object, "an object")? {
        return Ok(Slot::Bad(bad));
    }
    Ok(Slot::Got(r.raw()?.to_owned()))
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
    let recording = judge(raw)?;
    let (a, b) = span.expect("present");
    let got = hash_value(&r.text()[a..b])?;
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
            5 => raw.descriptor = keep(bad, P, name, read_object_text(r)?),
            6 => raw.seed = keep(bad, P, name, read_u64(r)?),
            7 => raw.from_tick = keep(bad, P, name, read_u64(r)?),
            8 => raw.end_tick = keep(bad, P, name, read_u64(r)?),
            9 => raw.start = keep(bad, P, name, read_object_text(r)?),
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

/// An array member of at most `max` elements, each read by `item`: a value that is not an
/// array, or an element past `max` (refused as "a recording has at most {max} {what}"), is
/// kept in `bad` and the pass goes on past it.
fn bounded_array(
    r: &mut Reader,
    bad: &mut Option<Refusal>,
    max: usize,
    what: &str,
    mut item: impl FnMut(&mut Reader, &mut Option<Refusal>) -> Result<(), Refusal>,
) -> Result<(), Refusal> {
    if let Some(b) = schema::expect(r, Kind::Array, "an array")? {
        bad.get_or_insert(b);
        return Ok(());
    }
    r.array(|r, i| {
        if i >= max {
            bad.get_or_insert(refuse(
                Reason::TooManyValues,
                &r.pointer(),
                format!("a recording has at most {max} {what}"),
            ));
            return r.skip();
        }
        item(r, bad)
    })?;
    Ok(())
}

fn read_events(
    r: &mut Reader,
    out: &mut Vec<Event>,
    bad: &mut Option<Refusal>,
) -> Result<(), Refusal> {
    bounded_array(r, bad, MAX_EVENTS, "events", |r, bad| {
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
                1 => input = read_input(r, bad)?,
                _ => restore = keep(bad, &ptr, "restore", read_object_text(r)?),
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

type InputParts = (Field, Option<usize>, Vec<f64>);

fn read_input(r: &mut Reader, bad: &mut Option<Refusal>) -> Result<Option<InputParts>, Refusal> {
    let ptr = r.pointer();
    if let Some(b) = schema::expect(r, Kind::Object, "an object")? {
        bad.get_or_insert(b);
        return Ok(None);
    }
    const IN: [&str; 3] = ["field", "id", "values"];
    let (mut field, mut id, mut values) = (None, None, Vec::new());
    let mut got_values = false;
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
                if let Some(n) = keep(
                    bad,
                    &ptr,
                    "values",
                    read_numbers(r, &mut values, MAX_VALUES)?,
                ) {
                    if n.count > MAX_VALUES {
                        bad.get_or_insert(refuse(
                            Reason::TooManyValues,
                            &p,
                            format!("an input has at most {MAX_VALUES} values"),
                        ));
                    } else if let Err(e) = n.strict() {
                        bad.get_or_insert(e);
                    } else {
                        got_values = true;
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
    Ok(match (field, id, got_values) {
        (Some(f), Some(id), true) => Some((f, usize::try_from(id).ok(), values)),
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
    bounded_array(r, bad, MAX_TICKS, "tick hashes", |r, bad| {
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
    bounded_array(r, bad, MAX_TICKS, "keyframe hashes", |r, bad| {
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
    let want = (end - first).checked_add(1);
    if want != Some(raw.tick_hashes.len() as u64) {
        return Err(refuse(
            Reason::Size,
            &at("tick_hashes/xxh3_64"),
            format!(
                "{} tick hashes for ticks {first}..={end} ({} expected)",
                raw.tick_hashes.len(),
                end - first + 1
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
