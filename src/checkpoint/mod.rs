//! Checkpoint documents: what they hold, how they are printed, and the strict validation that
//! runs in pure Rust, before any lock or native call, against the facts the endpoint keeps
//! (engine, dimensions, layout, configuration, seed).
//!
//! Both profiles share one skeleton: parse → profile → fields and types → engine and
//! descriptor → values → public fields → seed. Each step refuses with its own reason and the
//! JSON pointer of the first offending element.
//!
//! Reading is one streaming pass ([`read::Reader`]): numbers go straight into the caller's
//! reusable buffers ([`Buffers`]), nothing else of the document is kept, and a field-level
//! problem is only recorded during the pass, then reported in the order of the steps above
//! (a syntax error anywhere still wins, as it must: the document is not JSON).

pub mod json;
pub mod read;
pub mod write;

use crate::native::{Dims, EngineInfo, Layout, Public};
use crate::outcome::{Reason, Refusal};
use json::pointer_index;
use read::{Kind, Reader};
use write::{Canon, Piece, Writer};

/// At most this many native values in a checkpoint.
pub const MAX_VALUES: usize = 32_768;

/// The checkpoint format an endpoint serves, and its promise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// The complete `mjSTATE_INTEGRATION` vector: exact continuation on the same engine build.
    Integration,
    /// time/qpos/qvel/ctrl/act only: no claim of complete state or exact continuation.
    Basic,
}

impl Profile {
    pub fn name(self) -> &'static str {
        match self {
            Profile::Integration => "mujoco_integration_v1",
            Profile::Basic => "mujoco_basic_v1",
        }
    }

    pub fn from_name(s: &str) -> Option<Profile> {
        [Profile::Integration, Profile::Basic]
            .into_iter()
            .find(|p| p.name() == s)
    }

    /// The checkpoint's fields, in the order they are served.
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            Profile::Integration => INTEGRATION_FIELDS,
            Profile::Basic => BASIC_FIELDS,
        }
    }
}

/// What a checkpoint is validated against: everything the endpoint knows without the lock.
pub struct Facts<'a> {
    pub profile: Profile,
    pub engine: &'a EngineInfo,
    pub dims: Dims,
    pub configuration: u64,
    /// The integration layout (present for the integration profile).
    pub layout: Option<&'a Layout>,
    pub seed: u64,
}

/// Reusable number buffers for reading a checkpoint: after the first restore on an endpoint,
/// reading allocates nothing for numbers.
#[derive(Default, Debug)]
pub struct Buffers {
    pub values: Vec<f64>,
    pub qpos: Vec<f64>,
    pub qvel: Vec<f64>,
    pub ctrl: Vec<f64>,
    pub act: Vec<f64>,
}

impl Buffers {
    /// Buffers already large enough for this model's checkpoints.
    pub fn for_shape(shape: &crate::endpoint::Shape) -> Buffers {
        let d = &shape.dims;
        let n = |x: i64| Vec::with_capacity(x.max(0) as usize);
        Buffers {
            values: Vec::with_capacity(shape.layout.as_ref().map_or(0, |l| l.size)),
            qpos: n(d.nq),
            qvel: n(d.nv),
            ctrl: n(d.nu),
            act: n(d.na),
        }
    }
}

/// A checkpoint that passed validation, ready for the native phase. It owns the buffers it
/// was read into; [`Checkpoint::into_buffers`] gives them back for reuse.
#[derive(Debug)]
pub struct Checkpoint {
    pub profile: Profile,
    pub tick: u64,
    /// Integration: the state vector in `values`. Basic: the public fields in `qpos`, `qvel`,
    /// `ctrl`, `act` (and `time`).
    pub time: f64,
    pub buffers: Buffers,
}

impl Checkpoint {
    pub fn tick(&self) -> u64 {
        self.tick
    }

    pub fn into_buffers(self) -> Buffers {
        self.buffers
    }

    /// The basic profile's public fields (copies).
    pub fn public(&self) -> Public {
        Public {
            time: self.time,
            qpos: self.buffers.qpos.clone(),
            qvel: self.buffers.qvel.clone(),
            act: self.buffers.act.clone(),
            ctrl: self.buffers.ctrl.clone(),
        }
    }
}

const INTEGRATION_FIELDS: &[&str] = &[
    "profile",
    "engine",
    "engine_version",
    "descriptor",
    "signature",
    "size",
    "values",
    "tick",
    "seed",
    "time",
    "qpos",
    "qvel",
    "ctrl",
];
const BASIC_FIELDS: &[&str] = &[
    "profile",
    "engine",
    "engine_version",
    "descriptor",
    "tick",
    "seed",
    "time",
    "qpos",
    "qvel",
    "ctrl",
    "act",
];
pub(crate) const DESCRIPTOR_FIELDS: &[&str] = &[
    "nq",
    "nv",
    "na",
    "nu",
    "nbody",
    "neq",
    "nmocap",
    "nuserdata",
    "npluginstate",
    "timestep",
    "configuration",
];

// ---- writing ------------------------------------------------------------------------------------

fn write_descriptor(w: &mut Writer, f: &Facts) -> Canon {
    w.begin_object();
    for (k, v) in f.dims.named() {
        w.i64_field(k, v);
    }
    w.f64_field("timestep", f.dims.timestep);
    w.u64_field("configuration", f.configuration);
    w.end_object()
}

fn too_many(n: usize) -> Refusal {
    Refusal::rejected(
        Reason::MJB_REASON_TOO_MANY_VALUES,
        format!("this model's integration state has {n} values; a checkpoint holds at most {MAX_VALUES}"),
    )
}

/// Arrays a world document printed before its checkpoint (the public fields and the inputs,
/// named as their state segments), to be copied into the checkpoint instead of printed again.
#[derive(Default)]
pub struct Printed(Vec<(&'static str, Piece)>);

impl Printed {
    pub fn add(&mut self, segment: &'static str, piece: Piece) {
        self.0.push((segment, piece));
    }

    fn get(&self, segment: &str) -> Option<&Piece> {
        self.0.iter().find(|(n, _)| *n == segment).map(|(_, p)| p)
    }
}

/// Write the integration checkpoint for a state vector read under the native lock; returns
/// its canonical description (for a state hash over a document that embeds it). Every
/// number is printed once: `values` segment by segment (copying what `printed` already
/// holds), then `qpos`, `qvel`, `ctrl` as copies of their segments.
pub fn write_integration(
    w: &mut Writer,
    f: &Facts,
    values: &[f64],
    tick: u64,
    printed: &Printed,
) -> Result<Canon, Refusal> {
    let layout = f.layout.expect("integration profile has a layout");
    if values.len() > MAX_VALUES {
        return Err(too_many(values.len()));
    }
    w.begin_object();
    w.str_field("profile", Profile::Integration.name());
    w.str_field("engine", &f.engine.version_string);
    w.i64_field("engine_version", i64::from(f.engine.runtime_version));
    w.field("descriptor", |w| write_descriptor(w, f));
    w.u64_field("signature", u64::from(layout.sig));
    w.u64_field("size", layout.size as u64);
    // Where qpos, qvel and ctrl sit in `values`, to copy them below.
    let (mut qpos, mut qvel, mut ctrl) = (Piece::default(), Piece::default(), Piece::default());
    w.field("values", |w| {
        let start = w.text.len();
        w.text.push('[');
        let mut negative_zero = false;
        let mut first = true;
        for seg in &layout.segments {
            if seg.len == 0 {
                continue;
            }
            let piece = match printed.get(&seg.name) {
                Some(p) => {
                    w.copy_bare(p, first);
                    let end = w.text.len();
                    Piece {
                        range: end - p.range.len()..end,
                        negative_zero: p.negative_zero,
                    }
                }
                None => {
                    let from = w.text.len() + usize::from(!first);
                    let nz = w.bare_numbers(&values[seg.offset..seg.offset + seg.len], first);
                    Piece {
                        range: from..w.text.len(),
                        negative_zero: nz,
                    }
                }
            };
            negative_zero |= piece.negative_zero;
            match seg.name.as_str() {
                "qpos" => qpos = piece,
                "qvel" => qvel = piece,
                "ctrl" => ctrl = piece,
                _ => {}
            }
            first = false;
        }
        w.text.push(']');
        Canon::Served {
            range: start..w.text.len(),
            negative_zero,
        }
    });
    w.u64_field("tick", tick);
    w.u64_field("seed", f.seed);
    w.f64_field("time", values[layout.range("time")][0]);
    for (name, piece) in [("qpos", &qpos), ("qvel", &qvel), ("ctrl", &ctrl)] {
        w.field(name, |w| w.copied_array(piece));
    }
    Ok(w.end_object())
}

/// Write the basic checkpoint for public fields read under the native lock (copying the
/// arrays a world document printed already).
pub fn write_basic(w: &mut Writer, f: &Facts, p: &Public, tick: u64, printed: &Printed) -> Canon {
    w.begin_object();
    w.str_field("profile", Profile::Basic.name());
    w.str_field("engine", &f.engine.version_string);
    w.i64_field("engine_version", i64::from(f.engine.runtime_version));
    w.field("descriptor", |w| write_descriptor(w, f));
    w.u64_field("tick", tick);
    w.u64_field("seed", f.seed);
    w.f64_field("time", p.time);
    for (name, xs) in [
        ("qpos", &p.qpos),
        ("qvel", &p.qvel),
        ("ctrl", &p.ctrl),
        ("act", &p.act),
    ] {
        match printed.get(name) {
            Some(piece) => w.field(name, |w| w.copied_array(piece)),
            None => w.f64s_field(name, xs),
        }
    }
    w.end_object()
}

/// Bytes a checkpoint of `values` numbers is likely to take (to size output buffers once).
pub fn estimated_bytes(numbers: usize) -> usize {
    512 + numbers * 25
}

// ---- reading: typed fields ------------------------------------------------------------------------

/// A field as read: absent, read, or refused (the refusal is reported in step order).
pub(crate) enum Slot<T> {
    Absent,
    Got(T),
    Bad(Refusal),
}

impl<T> Slot<T> {
    /// The value, or the recorded refusal (a field proven present by the missing-field check).
    pub(crate) fn get(self) -> Result<T, Refusal> {
        match self {
            Slot::Got(v) => Ok(v),
            Slot::Bad(r) => Err(r),
            Slot::Absent => unreachable!("presence is checked before types"),
        }
    }

    /// An optional field: absent is `None`.
    pub(crate) fn opt(self) -> Result<Option<T>, Refusal> {
        match self {
            Slot::Got(v) => Ok(Some(v)),
            Slot::Bad(r) => Err(r),
            Slot::Absent => Ok(None),
        }
    }

    pub(crate) fn is_absent(&self) -> bool {
        matches!(self, Slot::Absent)
    }
}

fn wrong_type(r: &Reader, want: &str) -> Refusal {
    Refusal::rejected(Reason::MJB_REASON_WRONG_TYPE, format!("expected {want}")).at(r.pointer())
}

pub(crate) fn read_string(r: &mut Reader) -> Result<Slot<String>, Refusal> {
    if r.kind()? == Kind::String {
        return Ok(Slot::Got(r.string()?));
    }
    let bad = wrong_type(r, "a string");
    r.skip()?;
    Ok(Slot::Bad(bad))
}

/// A finite number (booleans are not numbers).
pub(crate) fn read_f64(r: &mut Reader) -> Result<Slot<f64>, Refusal> {
    if r.kind()? == Kind::Number {
        return Ok(Slot::Got(r.number()?.value));
    }
    let bad = wrong_type(r, "a number");
    r.skip()?;
    Ok(Slot::Bad(bad))
}

/// A JSON integer (no fraction, no exponent, not a boolean) within `min..=max`.
pub(crate) fn read_int(r: &mut Reader, min: i128, max: i128) -> Result<Slot<i128>, Refusal> {
    let not_int = |r: &Reader, what: &str| {
        Refusal::rejected(
            Reason::MJB_REASON_NOT_AN_INTEGER,
            format!("expected an integer, found {what}"),
        )
        .at(r.pointer())
    };
    let kind = r.kind()?;
    let bad = match kind {
        Kind::Number => {
            let n = r.number()?;
            if !n.is_integer() {
                let mut shown = String::new();
                json::write_f64(n.value, &mut shown, false);
                return Ok(Slot::Bad(not_int(r, &format!("the number {shown}"))));
            }
            let out_of_range = |r: &Reader, shown: String| {
                Refusal::rejected(
                    Reason::MJB_REASON_OUT_OF_RANGE,
                    format!("integer {shown} is out of range {min}..={max}"),
                )
                .at(r.pointer())
            };
            return Ok(match n.integer() {
                Some(v) if (min..=max).contains(&v) => Slot::Got(v),
                Some(v) => Slot::Bad(out_of_range(r, v.to_string())),
                None => Slot::Bad(out_of_range(r, format!("{:e}", n.value))),
            });
        }
        Kind::Bool => not_int(r, "a boolean"),
        other => wrong_type(r, &format!("an integer, not {}", other.article())),
    };
    r.skip()?;
    Ok(Slot::Bad(bad))
}

pub(crate) fn read_u64(r: &mut Reader) -> Result<Slot<u64>, Refusal> {
    Ok(match read_int(r, 0, u64::MAX.into())? {
        Slot::Got(v) => Slot::Got(v as u64),
        Slot::Bad(b) => Slot::Bad(b),
        Slot::Absent => Slot::Absent,
    })
}

/// Numbers of an array: the first `cap` are kept in `buf`; returns how many there were, or
/// the refusal for the first element that is not a number (later elements are still checked
/// for syntax).
pub(crate) fn read_numbers(
    r: &mut Reader,
    buf: &mut Vec<f64>,
    cap: usize,
) -> Result<Slot<usize>, Refusal> {
    buf.clear();
    if r.kind()? != Kind::Array {
        let bad = wrong_type(r, "an array");
        r.skip()?;
        return Ok(Slot::Bad(bad));
    }
    let mut bad = None;
    let n = r.array(|r, i| {
        if r.at_number() {
            let x = r.number()?.value;
            if i < cap {
                buf.push(x);
            }
        } else {
            r.kind()?;
            if bad.is_none() {
                bad = Some(wrong_type(r, "a number"));
            }
            r.skip()?;
        }
        Ok(())
    })?;
    Ok(match bad {
        Some(b) => Slot::Bad(b),
        None => Slot::Got(n),
    })
}

/// `values`: numbers into `buf` (up to `cap`), the element count, and the first element that
/// is not a number (its index and text) — whether that is a type error or a domain error
/// depends on where it sits, decided in step 3.
struct Values {
    count: usize,
    first_other: Option<(usize, String)>,
}

fn read_values(r: &mut Reader, buf: &mut Vec<f64>, cap: usize) -> Result<Slot<Values>, Refusal> {
    buf.clear();
    if r.kind()? != Kind::Array {
        let bad = wrong_type(r, "an array");
        r.skip()?;
        return Ok(Slot::Bad(bad));
    }
    let mut first_other = None;
    let count = r.array(|r, i| {
        if r.at_number() {
            let x = r.number()?.value;
            if i < cap && first_other.is_none() {
                buf.push(x);
            }
        } else {
            let text = r.raw()?;
            if first_other.is_none() {
                first_other = Some((i, shorten(text)));
            }
        }
        Ok(())
    })?;
    Ok(Slot::Got(Values { count, first_other }))
}

/// A value's text for a message, cut to a readable length.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The fields of a strict object: records the first unknown one (its pointer) and skips it.
pub(crate) fn unknown_field(
    r: &mut Reader,
    key: &str,
    first: &mut Option<Refusal>,
) -> Result<(), Refusal> {
    if first.is_none() {
        *first = Some(
            Refusal::rejected(
                Reason::MJB_REASON_UNKNOWN_FIELD,
                format!("unknown field {key:?}"),
            )
            .at(r.pointer()),
        );
    }
    r.skip()
}

pub(crate) fn missing(ptr: &str, name: &str) -> Refusal {
    Refusal::rejected(
        Reason::MJB_REASON_MISSING_FIELD,
        format!("missing field {name:?}"),
    )
    .at(json::pointer_push(ptr, name))
}

// ---- reading: the checkpoint ------------------------------------------------------------------------

struct Descriptor {
    unknown: Option<Refusal>,
    dims: [Slot<i128>; 9],
    timestep: Slot<f64>,
    configuration: Slot<u64>,
}

impl Descriptor {
    fn slot_absent(&self, name: &str) -> bool {
        match DESCRIPTOR_FIELDS.iter().position(|k| *k == name) {
            Some(i) if i < 9 => self.dims[i].is_absent(),
            _ if name == "timestep" => self.timestep.is_absent(),
            _ => self.configuration.is_absent(),
        }
    }
}

fn read_descriptor(r: &mut Reader) -> Result<Slot<Descriptor>, Refusal> {
    if r.kind()? != Kind::Object {
        let bad = wrong_type(r, "an object");
        r.skip()?;
        return Ok(Slot::Bad(bad));
    }
    let mut d = Descriptor {
        unknown: None,
        dims: std::array::from_fn(|_| Slot::Absent),
        timestep: Slot::Absent,
        configuration: Slot::Absent,
    };
    r.object(|r, key| {
        match DESCRIPTOR_FIELDS.iter().position(|k| *k == key) {
            Some(i) if i < 9 => d.dims[i] = read_int(r, 0, i64::MAX.into())?,
            Some(9) => d.timestep = read_f64(r)?,
            Some(_) => d.configuration = read_u64(r)?,
            None => unknown_field(r, key, &mut d.unknown)?,
        }
        Ok(())
    })?;
    Ok(Slot::Got(d))
}

/// Everything the pass recorded, before any step is judged.
struct Raw {
    unknown: Option<Refusal>,
    profile: Slot<String>,
    engine: Slot<String>,
    engine_version: Slot<i128>,
    descriptor: Slot<Descriptor>,
    signature: Slot<i128>,
    size: Slot<i128>,
    values: Slot<Values>,
    tick: Slot<u64>,
    seed: Slot<u64>,
    time: Slot<f64>,
    qpos: Slot<usize>,
    qvel: Slot<usize>,
    ctrl: Slot<usize>,
    act: Slot<usize>,
}

impl Raw {
    fn absent(&self, name: &str) -> bool {
        match name {
            "profile" => self.profile.is_absent(),
            "engine" => self.engine.is_absent(),
            "engine_version" => self.engine_version.is_absent(),
            "descriptor" => self.descriptor.is_absent(),
            "signature" => self.signature.is_absent(),
            "size" => self.size.is_absent(),
            "values" => self.values.is_absent(),
            "tick" => self.tick.is_absent(),
            "seed" => self.seed.is_absent(),
            "time" => self.time.is_absent(),
            "qpos" => self.qpos.is_absent(),
            "qvel" => self.qvel.is_absent(),
            "ctrl" => self.ctrl.is_absent(),
            _ => self.act.is_absent(),
        }
    }
}

fn refuse(reason: Reason, ptr: &str, msg: impl Into<String>) -> Refusal {
    Refusal::rejected(reason, msg).at(ptr)
}

/// Read one checkpoint document into `bufs`, recording every field-level problem.
fn read_raw(r: &mut Reader, f: &Facts, bufs: &mut Buffers) -> Result<Raw, Refusal> {
    let mut raw = Raw {
        unknown: None,
        profile: Slot::Absent,
        engine: Slot::Absent,
        engine_version: Slot::Absent,
        descriptor: Slot::Absent,
        signature: Slot::Absent,
        size: Slot::Absent,
        values: Slot::Absent,
        tick: Slot::Absent,
        seed: Slot::Absent,
        time: Slot::Absent,
        qpos: Slot::Absent,
        qvel: Slot::Absent,
        ctrl: Slot::Absent,
        act: Slot::Absent,
    };
    let names = f.profile.fields();
    let (cap_values, cap_qpos, cap_qvel, cap_ctrl) = match f.layout {
        Some(l) if f.profile == Profile::Integration => (
            l.size,
            l.range("qpos").len(),
            l.range("qvel").len(),
            l.range("ctrl").len(),
        ),
        _ => (
            0,
            f.dims.nq.max(0) as usize,
            f.dims.nv.max(0) as usize,
            f.dims.nu.max(0) as usize,
        ),
    };
    let cap_act = f.dims.na.max(0) as usize;
    r.object(|r, key| {
        if !names.contains(&key) {
            return unknown_field(r, key, &mut raw.unknown);
        }
        match key {
            "profile" => raw.profile = read_string(r)?,
            "engine" => raw.engine = read_string(r)?,
            "engine_version" => raw.engine_version = read_int(r, i32::MIN.into(), i32::MAX.into())?,
            "descriptor" => raw.descriptor = read_descriptor(r)?,
            "signature" => raw.signature = read_int(r, 0, u32::MAX.into())?,
            "size" => raw.size = read_int(r, 0, i64::MAX.into())?,
            "values" => raw.values = read_values(r, &mut bufs.values, cap_values)?,
            "tick" => raw.tick = read_u64(r)?,
            "seed" => raw.seed = read_u64(r)?,
            "time" => raw.time = read_f64(r)?,
            "qpos" => raw.qpos = read_numbers(r, &mut bufs.qpos, cap_qpos)?,
            "qvel" => raw.qvel = read_numbers(r, &mut bufs.qvel, cap_qvel)?,
            "ctrl" => raw.ctrl = read_numbers(r, &mut bufs.ctrl, cap_ctrl)?,
            _ => raw.act = read_numbers(r, &mut bufs.act, cap_act)?,
        }
        Ok(())
    })?;
    Ok(raw)
}

/// Validate a checkpoint document completely, without the lock and without a native call.
/// Numbers are read into `bufs` (reused: pass the buffers of an earlier checkpoint); on
/// refusal they are returned through `bufs` as well.
pub fn validate(bytes: &[u8], f: &Facts, bufs: &mut Buffers) -> Result<Checkpoint, Refusal> {
    let mut r = Reader::new(bytes)?;
    let raw = read_raw(&mut r, f, bufs)?;
    r.finish()?;
    judge(raw, f, bufs, "")
}

/// Read a checkpoint that sits inside another document (a world document's
/// `native_checkpoint`), at the reader's position; pointers are relative to the reader's path.
pub fn read_embedded(
    r: &mut Reader,
    f: &Facts,
    bufs: &mut Buffers,
) -> Result<Result<Checkpoint, Refusal>, Refusal> {
    if r.kind()? != Kind::Object {
        let bad = wrong_type(r, "an object");
        r.skip()?;
        return Ok(Err(bad));
    }
    let base = r.pointer();
    let raw = read_raw(r, f, bufs)?;
    Ok(judge(raw, f, bufs, &base))
}

/// Judge what the pass recorded, step by step.
fn judge(raw: Raw, f: &Facts, bufs: &mut Buffers, base: &str) -> Result<Checkpoint, Refusal> {
    let at = |p: &str| format!("{base}{p}");
    // 1. profile, fields and their types.
    let first_missing = f.profile.fields().iter().find(|k| raw.absent(k)).copied();
    let profile = match raw.profile {
        Slot::Absent => {
            return Err(refuse(
                Reason::MJB_REASON_MISSING_FIELD,
                &at("/profile"),
                "missing field \"profile\"",
            ))
        }
        Slot::Bad(b) => return Err(b),
        Slot::Got(p) => p,
    };
    if profile != f.profile.name() {
        return Err(refuse(
            Reason::MJB_REASON_PROFILE,
            &at("/profile"),
            format!(
                "profile {profile:?} is not this endpoint's {:?}",
                f.profile.name()
            ),
        ));
    }
    if let Some(u) = raw.unknown {
        return Err(u);
    }
    if let Some(k) = first_missing {
        return Err(missing(base, k));
    }
    let engine = raw.engine.get()?;
    let engine_version = raw.engine_version.get()?;
    let desc = raw.descriptor.get()?;
    if let Some(u) = desc.unknown {
        return Err(u);
    }
    if let Some(k) = DESCRIPTOR_FIELDS.iter().find(|k| desc.slot_absent(k)) {
        return Err(missing(&at("/descriptor"), k));
    }
    let mut dims = Vec::with_capacity(9);
    for slot in desc.dims {
        dims.push(slot.get()?);
    }
    let timestep = desc.timestep.get()?;
    let configuration = desc.configuration.get()?;
    let tick = raw.tick.get()?;
    let seed = raw.seed.get()?;
    let time = raw.time.get()?;
    let qpos_n = raw.qpos.get()?;
    let qvel_n = raw.qvel.get()?;
    let ctrl_n = raw.ctrl.get()?;
    let integration = match f.profile {
        Profile::Integration => {
            let signature = raw.signature.get()?;
            let size = raw.size.get()?;
            let values = raw.values.get()?;
            if values.count > MAX_VALUES {
                return Err(refuse(
                    Reason::MJB_REASON_TOO_MANY_VALUES,
                    &at("/values"),
                    format!("{} values; at most {MAX_VALUES}", values.count),
                ));
            }
            Some((signature, size, values))
        }
        Profile::Basic => None,
    };

    // 2. engine, descriptor, signature, size.
    if engine != f.engine.version_string {
        return Err(refuse(
            Reason::MJB_REASON_ENGINE,
            &at("/engine"),
            format!(
                "taken under engine {engine:?}; this is {:?}",
                f.engine.version_string
            ),
        ));
    }
    if engine_version != i128::from(f.engine.runtime_version) {
        return Err(refuse(
            Reason::MJB_REASON_ENGINE,
            &at("/engine_version"),
            format!(
                "taken under engine_version {engine_version}; this is {}",
                f.engine.runtime_version
            ),
        ));
    }
    for ((name, want), got) in f.dims.named().into_iter().zip(&dims) {
        if *got != i128::from(want) {
            return Err(refuse(
                Reason::MJB_REASON_DESCRIPTOR,
                &at(&format!("/descriptor/{name}")),
                format!("descriptor {name} is {got}; the live model has {want}"),
            ));
        }
    }
    if timestep.to_bits() != f.dims.timestep.to_bits() {
        return Err(refuse(
            Reason::MJB_REASON_DESCRIPTOR,
            &at("/descriptor/timestep"),
            format!(
                "descriptor timestep is {timestep:e}; the live model has {:e}",
                f.dims.timestep
            ),
        ));
    }
    if configuration != f.configuration {
        return Err(refuse(
            Reason::MJB_REASON_CONFIGURATION,
            &at("/descriptor/configuration"),
            format!(
                "taken under model configuration {configuration}; the endpoint is at {} (the model was replaced)",
                f.configuration
            ),
        ));
    }

    match integration {
        Some((signature, size, values)) => {
            let layout = f.layout.expect("integration profile has a layout");
            if signature != i128::from(layout.sig) {
                return Err(refuse(
                    Reason::MJB_REASON_SIGNATURE,
                    &at("/signature"),
                    format!(
                        "signature {signature} is not this engine's mjSTATE_INTEGRATION {}",
                        layout.sig
                    ),
                ));
            }
            if size != layout.size as i128 {
                return Err(refuse(
                    Reason::MJB_REASON_SIZE,
                    &at("/size"),
                    format!("size {size} is not the native state size {}", layout.size),
                ));
            }
            if values.count != layout.size {
                return Err(refuse(
                    Reason::MJB_REASON_SIZE,
                    &at("/values"),
                    format!(
                        "values holds {} numbers; size is {}",
                        values.count, layout.size
                    ),
                ));
            }
            // 3. every value a finite number; every integer-coded value in its native domain.
            check_values(layout, &bufs.values, values.first_other, &at("/values"))?;
            // 4. the public fields are their segments of values, bit for bit.
            let out = &bufs.values;
            let segment_matches =
                |name: &str, got: &[f64], count: usize, ptr: &str| -> Result<(), Refusal> {
                    let want = &out[layout.range(name)];
                    if count != want.len() {
                        return Err(refuse(
                            Reason::MJB_REASON_PUBLIC_FIELD_MISMATCH,
                            ptr,
                            format!(
                                "{name} has {count} numbers; its segment of values has {}",
                                want.len()
                            ),
                        ));
                    }
                    if let Some(i) = (0..count).find(|&i| got[i].to_bits() != want[i].to_bits()) {
                        // `time` is a number, the others arrays.
                        let p = if name == "time" {
                            ptr.to_owned()
                        } else {
                            pointer_index(ptr, i)
                        };
                        return Err(refuse(
                            Reason::MJB_REASON_PUBLIC_FIELD_MISMATCH,
                            &p,
                            format!("{name}[{i}] is not bit-identical to its segment of values"),
                        ));
                    }
                    Ok(())
                };
            segment_matches("time", &[time], 1, &at("/time"))?;
            segment_matches("qpos", &bufs.qpos, qpos_n, &at("/qpos"))?;
            segment_matches("qvel", &bufs.qvel, qvel_n, &at("/qvel"))?;
            segment_matches("ctrl", &bufs.ctrl, ctrl_n, &at("/ctrl"))?;
        }
        None => {
            let act_n = raw.act.get()?;
            // 3./4. lengths against the live dimensions (finiteness was checked at parse).
            for (name, n, want) in [
                ("qpos", qpos_n, f.dims.nq),
                ("qvel", qvel_n, f.dims.nv),
                ("ctrl", ctrl_n, f.dims.nu),
                ("act", act_n, f.dims.na),
            ] {
                if n as i64 != want {
                    return Err(refuse(
                        Reason::MJB_REASON_DIMENSION,
                        &at(&format!("/{name}")),
                        format!("{name} has {n} numbers; the model has {want}"),
                    ));
                }
            }
        }
    }

    // 5. seed metadata.
    if seed != f.seed {
        return Err(refuse(
            Reason::MJB_REASON_SEED,
            &at("/seed"),
            format!("seed {seed} is not the configured seed {}", f.seed),
        ));
    }
    Ok(Checkpoint {
        profile: f.profile,
        tick,
        time,
        buffers: std::mem::take(bufs),
    })
}

/// Step 3: the first value (by index) that is not a number, or that the engine would convert
/// to an integer outside its native domain: equality activations exactly `0` or `1` (not
/// `-0`, not a boolean), history cursors integers in `0..nsample`.
fn check_values(
    layout: &Layout,
    values: &[f64],
    first_other: Option<(usize, String)>,
    ptr: &str,
) -> Result<(), Refusal> {
    let eq = layout.range("eq_active");
    let eq_ok = |x: f64| x.to_bits() == 0f64.to_bits() || x == 1.0;
    let eq_refusal = |i: usize, shown: &str| {
        refuse(
            Reason::MJB_REASON_EQ_ACTIVE_DOMAIN,
            &pointer_index(ptr, i),
            format!("equality activation {shown} must be exactly 0 or 1"),
        )
    };
    let cursor_refusal = |c: &crate::native::Cursor, shown: &str| {
        refuse(
            Reason::MJB_REASON_STATE_DOMAIN,
            &pointer_index(ptr, c.index),
            format!(
                "history cursor of {} is {shown}; it must be an integer in 0..={} (the engine indexes its ring buffer with it)",
                c.owner,
                c.nsample - 1
            ),
        )
    };
    let shown = |x: f64| {
        let mut s = String::new();
        json::write_f64(x, &mut s, false);
        s
    };
    // Numbers before the first non-number are all in `values`.
    let limit = first_other.as_ref().map_or(values.len(), |(i, _)| *i);
    let first_eq = eq
        .clone()
        .take_while(|&i| i < limit)
        .find(|&i| !eq_ok(values[i]));
    let first_cursor = layout
        .cursors
        .iter()
        .take_while(|c| c.index < limit)
        .find(|c| !c.admits(values[c.index]));
    let first_bad = [first_eq, first_cursor.map(|c| c.index)]
        .into_iter()
        .flatten()
        .min();
    match (first_bad, first_other) {
        (Some(i), _) if first_eq == Some(i) => Err(eq_refusal(i, &shown(values[i]))),
        (Some(_), _) => {
            let c = first_cursor.expect("a cursor");
            Err(cursor_refusal(c, &shown(values[c.index])))
        }
        (None, Some((i, text))) => {
            if eq.contains(&i) {
                Err(eq_refusal(i, &text))
            } else if let Some(c) = layout.cursors.iter().find(|c| c.index == i) {
                Err(cursor_refusal(c, &text))
            } else {
                Err(refuse(
                    Reason::MJB_REASON_WRONG_TYPE,
                    &pointer_index(ptr, i),
                    "expected a number",
                ))
            }
        }
        (None, None) => Ok(()),
    }
}
