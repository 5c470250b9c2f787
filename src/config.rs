//! Endpoint configuration documents (`mjb_endpoint_open`, `mjb_endpoint_adopt`,
//! `mjb_endpoint_replace_model`) and their parts: the model source, a fidelity declaration and
//! the frame selection. Strict JSON, read in one streaming pass like every input.

use crate::checkpoint::Profile;
use crate::doc::schema::{self, missing, read_string, Slot};
use crate::doc::{pointer_push, Kind, Reader, Text, Value};
use crate::frame::{Publish, Selection};
use crate::native::fields::Field;
use crate::native::ModelSource;
use crate::outcome::{Reason, Refusal};

/// The endpoint configuration from `mjb_endpoint_open` / `mjb_endpoint_adopt`.
#[derive(Clone, Debug)]
pub struct Config {
    pub model: Option<ModelSource>,
    pub name: String,
    pub seed: u64,
    /// `None` is "auto".
    pub profile: Option<Profile>,
    pub fidelity: Option<Value>,
    /// What frames carry and when they are published (`"frame"`).
    pub frame: Selection,
    /// The flight recorder (`"history"`); `None`: nothing is recorded.
    pub history: Option<HistoryConfig>,
}

/// `"history": {"window_ticks": N, "keyframe_every": K}`: keep a keyframe every `K` ticks and
/// every mutation between them, for the last `N` ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryConfig {
    pub window_ticks: u64,
    pub keyframe_every: u64,
}

/// The largest `window_ticks` (a step's record is one hash: 8 bytes a tick).
pub const MAX_WINDOW_TICKS: u64 = 1_000_000;
/// The most keyframes a window may need (`ceil(window_ticks / keyframe_every)`): what bounds the
/// memory of the full states kept.
pub const MAX_WINDOW_KEYFRAMES: u64 = 4096;

const HISTORY_KEYS: &[&str] = &["window_ticks", "keyframe_every"];

/// The config's `"history"` where the reader stands: null (none) or the strict object.
fn read_history(r: &mut Reader) -> Member<Option<HistoryConfig>> {
    if r.kind()? == Kind::Null {
        r.null()?;
        return Ok(Ok(None));
    }
    if let Some(bad) = schema::expect(r, Kind::Object, "an object")? {
        return Ok(Err(bad));
    }
    let ptr = r.pointer();
    let (mut window, mut every) = (Slot::Absent, Slot::Absent);
    let mut m = schema::object(r, HISTORY_KEYS, |r, i| {
        match i {
            0 => window = schema::read_int(r, 1, MAX_WINDOW_TICKS.into())?,
            _ => every = schema::read_int(r, 1, MAX_WINDOW_TICKS.into())?,
        }
        Ok(())
    })?;
    if let Err(u) = m.refuse_unknown() {
        return Ok(Err(u));
    }
    if let Err(missing) = m.require(&ptr, HISTORY_KEYS, |_| true) {
        return Ok(Err(missing));
    }
    let (window_ticks, keyframe_every) = match (window.get(), every.get()) {
        (Ok(w), Ok(k)) => (w as u64, k as u64),
        (Err(b), _) | (_, Err(b)) => return Ok(Err(b)),
    };
    if keyframe_every > window_ticks {
        return Ok(Err(Refusal::rejected(
            Reason::OutOfRange,
            format!("keyframe_every {keyframe_every} is more than window_ticks {window_ticks}"),
        )
        .at(pointer_push(&ptr, "keyframe_every"))));
    }
    if window_ticks.div_ceil(keyframe_every) > MAX_WINDOW_KEYFRAMES {
        return Ok(Err(Refusal::rejected(
            Reason::OutOfRange,
            format!(
                "window_ticks {window_ticks} / keyframe_every {keyframe_every} needs {} keyframes; at most {MAX_WINDOW_KEYFRAMES} (keyframe_every >= {})",
                window_ticks.div_ceil(keyframe_every),
                window_ticks.div_ceil(MAX_WINDOW_KEYFRAMES)
            ),
        )
        .at(pointer_push(&ptr, "keyframe_every"))));
    }
    Ok(Ok(Some(HistoryConfig {
        window_ticks,
        keyframe_every,
    })))
}

/// A member the schema reads as a whole: the outer error is a parse error (it ends the read),
/// the inner one this member's refusal (reported in the schema's order).
type Member<T> = Result<Result<T, Refusal>, Refusal>;

/// `{"xml_path": "..."}` or `{"xml": "..."}`, read where the reader stands.
fn read_model(r: &mut Reader) -> Member<ModelSource> {
    if let Some(bad) = schema::expect(r, Kind::Object, "an object")? {
        return Ok(Err(bad));
    }
    let ptr = r.pointer();
    let (mut path, mut xml) = (Slot::Absent, Slot::Absent);
    let mut m = schema::object(r, &["xml_path", "xml"], |r, i| {
        match i {
            0 => path = read_string(r)?,
            _ => xml = read_string(r)?,
        }
        Ok(())
    })?;
    if let Err(u) = m.refuse_unknown() {
        return Ok(Err(u));
    }
    // Exactly one source: with neither, the pointer names the missing member (as every
    // missing-field refusal does); with both, the second is the one not allowed.
    Ok(match (path, xml) {
        (Slot::Absent, Slot::Absent) => Err(Refusal::rejected(
            Reason::MissingField,
            "model needs exactly one of \"xml_path\" or \"xml\"",
        )
        .at(pointer_push(&ptr, "xml_path"))),
        (p, Slot::Absent) => p.get().map(ModelSource::XmlPath),
        (Slot::Absent, x) => x.get().map(ModelSource::Xml),
        _ => Err(Refusal::rejected(
            Reason::UnknownField,
            "model takes exactly one of \"xml_path\" or \"xml\", not both",
        )
        .at(pointer_push(&ptr, "xml"))),
    })
}

const FIDELITY_KEYS: &[&str] = &["claim", "scope", "evidence"];

/// A fidelity declaration: what is claimed, for what scope, on what evidence. Kept as a small
/// `Value` (in document order) for the world document.
fn read_fidelity(r: &mut Reader) -> Member<Option<Value>> {
    if r.kind()? == Kind::Null {
        r.null()?;
        return Ok(Ok(None));
    }
    if let Some(bad) = schema::expect(r, Kind::Object, "an object")? {
        return Ok(Err(bad));
    }
    let ptr = r.pointer();
    let mut slots: [Slot<Value>; 3] = std::array::from_fn(|_| Slot::Absent);
    let mut m = schema::object(r, FIDELITY_KEYS, |r, i| {
        slots[i] = match i {
            0 | 1 => read_string(r)?.map(Value::Str),
            _ => read_evidence(r)?,
        };
        Ok(())
    })?;
    if let Err(u) = m.refuse_unknown() {
        return Ok(Err(u));
    }
    if let Err(missing) = m.require(&ptr, FIDELITY_KEYS, |_| true) {
        return Ok(Err(missing));
    }
    // Types in the order claim, scope, evidence.
    let mut out = Vec::with_capacity(3);
    for (k, slot) in FIDELITY_KEYS.iter().zip(slots) {
        match slot.get() {
            Ok(v) => out.push(((*k).to_owned(), v)),
            Err(b) => return Ok(Err(b)),
        }
    }
    Ok(Ok(Some(Value::Obj(out))))
}

/// `evidence`: a string or an array of strings.
fn read_evidence(r: &mut Reader) -> Result<Slot<Value>, Refusal> {
    Ok(match r.kind()? {
        Kind::String => Slot::Got(Value::Str(r.string()?)),
        Kind::Array => {
            let mut items = Vec::new();
            let mut bad = None;
            r.array(|r, _| {
                match read_string(r)? {
                    Slot::Got(s) => items.push(Value::Str(s)),
                    Slot::Bad(b) => {
                        bad.get_or_insert(b);
                    }
                    Slot::Absent => {}
                }
                Ok(())
            })?;
            match bad {
                Some(b) => Slot::Bad(b),
                None => Slot::Got(Value::Arr(items)),
            }
        }
        _ => {
            let bad = schema::wrong_type(r, "a string or an array of strings");
            r.skip()?;
            Slot::Bad(bad)
        }
    })
}

/// The config's `"frame"` where the reader stands: an array of field names, or
/// `{"fields": [...], "publish": "every_step" | "end_of_call"}`, or null (the default).
fn read_selection(r: &mut Reader) -> Member<Selection> {
    match r.kind()? {
        Kind::Null => {
            r.null()?;
            Ok(Ok(Selection::default()))
        }
        Kind::Array => Ok(read_fields(r)?.map(|fields| Selection {
            fields,
            publish: Publish::EveryStep,
        })),
        Kind::Object => {
            let mut fields = None;
            let mut publish = Ok(Publish::EveryStep);
            let mut m = schema::object(r, &["fields", "publish"], |r, i| {
                match i {
                    0 => {
                        fields = Some(
                            match schema::expect(r, Kind::Array, "an array of field names")? {
                                None => read_fields(r)?,
                                Some(bad) => Err(bad),
                            },
                        )
                    }
                    _ => {
                        publish = match read_string(r)? {
                            Slot::Got(s) if s == "every_step" => Ok(Publish::EveryStep),
                            Slot::Got(s) if s == "end_of_call" => Ok(Publish::EndOfCall),
                            Slot::Got(s) => Err(Refusal::rejected(
                                Reason::OutOfRange,
                                format!("publish {s:?} is not \"every_step\" or \"end_of_call\""),
                            )
                            .at(r.pointer())),
                            Slot::Bad(b) => Err(b),
                            Slot::Absent => Ok(Publish::EveryStep),
                        }
                    }
                }
                Ok(())
            })?;
            if let Err(u) = m.refuse_unknown() {
                return Ok(Err(u));
            }
            let publish = match publish {
                Ok(p) => p,
                Err(b) => return Ok(Err(b)),
            };
            Ok(match fields {
                None => Ok(Selection {
                    publish,
                    ..Selection::default()
                }),
                Some(f) => f.map(|fields| Selection { fields, publish }),
            })
        }
        _ => {
            let bad = schema::wrong_type(r, "an array of field names or {\"fields\", \"publish\"}");
            r.skip()?;
            Ok(Err(bad))
        }
    }
}

/// An array of frame field names, each known, available on this engine and listed once.
fn read_fields(r: &mut Reader) -> Member<Vec<Field>> {
    let mut fields = Vec::new();
    let mut bad = None;
    r.array(|r, _| {
        let name = match read_string(r)? {
            Slot::Got(s) => s,
            Slot::Bad(b) => {
                bad.get_or_insert(b);
                return Ok(());
            }
            Slot::Absent => return Ok(()),
        };
        if bad.is_some() {
            return Ok(());
        }
        let refusal = match Field::from_name(&name) {
            None => {
                let known: Vec<&str> = Field::ALL.iter().map(|f| f.name()).collect();
                Some(Refusal::rejected(
                    Reason::UnknownField,
                    format!("no frame field {name:?} (known: {})", known.join(", ")),
                ))
            }
            Some(f) if !f.available() => Some(Refusal::rejected(
                Reason::Unsupported,
                format!(
                    "{name} is not in mjData on this engine ({})",
                    crate::native::engine().version_string
                ),
            )),
            Some(f) if fields.contains(&f) => Some(Refusal::rejected(
                Reason::DuplicateField,
                format!("frame field {name:?} is listed twice"),
            )),
            Some(f) => {
                fields.push(f);
                None
            }
        };
        if let Some(refusal) = refusal {
            bad = Some(refusal.at(r.pointer()));
        }
        Ok(())
    })?;
    if let Some(b) = bad {
        return Ok(Err(b));
    }
    fields.sort_by_key(|f| f.index());
    Ok(Ok(fields))
}

const CONFIG_KEYS: &[&str] = &[
    "model", "name", "seed", "profile", "fidelity", "frame", "history",
];

/// Parse a strict endpoint configuration. `with_model` says whether `model` is required
/// (open) or not allowed (adopt: the host brings the model).
pub fn parse_config(text: Text, with_model: bool) -> Result<Config, Refusal> {
    let mut r = Reader::new(text)?;
    let keys = if with_model {
        CONFIG_KEYS
    } else {
        &CONFIG_KEYS[1..]
    };
    let mut model = None;
    let mut name = Slot::Absent;
    let mut seed = Slot::Absent;
    let mut profile = Slot::Absent;
    let mut fidelity = None;
    let mut frame = None;
    let mut history = None;
    let mut m = schema::object(&mut r, keys, |r, i| {
        match keys[i] {
            "model" => model = Some(read_model(r)?),
            "name" => name = read_string(r)?,
            "seed" => seed = schema::read_u64(r)?,
            "profile" => profile = read_string(r)?,
            "fidelity" => fidelity = Some(read_fidelity(r)?),
            "frame" => frame = Some(read_selection(r)?),
            _ => history = Some(read_history(r)?),
        }
        Ok(())
    })?;
    r.finish()?;
    m.refuse_unknown()?;
    if with_model && model.is_none() {
        return Err(missing("", "model"));
    }
    let model = model.transpose()?;
    let name = name.opt()?.unwrap_or_default();
    let seed = seed.opt()?.unwrap_or(0);
    let profile = match profile.opt()? {
        None => None,
        Some(s) if s == "auto" => None,
        Some(s) => Some(Profile::from_name(&s).ok_or_else(|| {
            Refusal::rejected(
                Reason::Profile,
                format!("unknown profile {s:?} (auto, mujoco_integration_v1, mujoco_basic_v1)"),
            )
            .at("/profile")
        })?),
    };
    let fidelity = fidelity.transpose()?.flatten();
    let frame = frame.transpose()?.unwrap_or_default();
    let history = history.transpose()?.flatten();
    Ok(Config {
        model,
        name,
        seed,
        profile,
        fidelity,
        frame,
        history,
    })
}

/// `{"model": {...}}` for `mjb_endpoint_replace_model`.
pub fn parse_replacement(text: Text) -> Result<ModelSource, Refusal> {
    let mut r = Reader::new(text)?;
    let mut model = None;
    let mut m = schema::object(&mut r, &["model"], |r, _| {
        model = Some(read_model(r)?);
        Ok(())
    })?;
    r.finish()?;
    m.refuse_unknown()?;
    match model {
        Some(m) => m,
        None => Err(missing("", "model")),
    }
}
