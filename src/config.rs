//! Endpoint configuration documents (`mjb_endpoint_open`, `mjb_endpoint_adopt`,
//! `mjb_endpoint_replace_model`): strict JSON, read in one streaming pass like every input.

use crate::checkpoint::json::{pointer_push, Value};
use crate::checkpoint::read::{Kind, Reader};
use crate::checkpoint::{missing, read_string, read_u64, unknown_field, Profile, Slot};
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
    pub frame: crate::frame::Selection,
}

fn wrong_type(r: &Reader, want: &str) -> Refusal {
    Refusal::rejected(Reason::MJB_REASON_WRONG_TYPE, format!("expected {want}")).at(r.pointer())
}

/// `{"xml_path": "..."}` or `{"xml": "..."}`, read where the reader stands.
fn read_model(r: &mut Reader) -> Result<Result<ModelSource, Refusal>, Refusal> {
    if r.kind()? != Kind::Object {
        let bad = wrong_type(r, "an object");
        r.skip()?;
        return Ok(Err(bad));
    }
    let ptr = r.pointer();
    let mut unknown = None;
    let (mut path, mut xml) = (Slot::Absent, Slot::Absent);
    r.object(|r, key| {
        match key {
            "xml_path" => path = read_string(r)?,
            "xml" => xml = read_string(r)?,
            _ => unknown_field(r, key, &mut unknown)?,
        }
        Ok(())
    })?;
    if let Some(u) = unknown {
        return Ok(Err(u));
    }
    // Exactly one source: with neither, the pointer names the missing member (as every
    // missing-field refusal does); with both, the second is the one not allowed.
    Ok(match (path, xml) {
        (Slot::Absent, Slot::Absent) => Err(Refusal::rejected(
            Reason::MJB_REASON_MISSING_FIELD,
            "model needs exactly one of \"xml_path\" or \"xml\"",
        )
        .at(pointer_push(&ptr, "xml_path"))),
        (p, Slot::Absent) => p.get().map(ModelSource::XmlPath),
        (Slot::Absent, x) => x.get().map(ModelSource::Xml),
        _ => Err(Refusal::rejected(
            Reason::MJB_REASON_UNKNOWN_FIELD,
            "model takes exactly one of \"xml_path\" or \"xml\", not both",
        )
        .at(pointer_push(&ptr, "xml"))),
    })
}

/// A fidelity declaration: what is claimed, for what scope, on what evidence. Kept as a small
/// `Value` (in document order) for the world document.
fn read_fidelity(r: &mut Reader) -> Result<Result<Option<Value>, Refusal>, Refusal> {
    match r.kind()? {
        Kind::Null => {
            r.null()?;
            return Ok(Ok(None));
        }
        Kind::Object => {}
        _ => {
            let bad = wrong_type(r, "an object");
            r.skip()?;
            return Ok(Err(bad));
        }
    }
    let ptr = r.pointer();
    let mut unknown = None;
    let mut members: Vec<(String, Slot<Value>)> = Vec::new();
    r.object(|r, key| {
        match key {
            "claim" | "scope" => {
                let v = match read_string(r)? {
                    Slot::Got(s) => Slot::Got(Value::Str(s)),
                    Slot::Bad(b) => Slot::Bad(b),
                    Slot::Absent => Slot::Absent,
                };
                members.push((key.to_owned(), v));
            }
            "evidence" => {
                let v = match r.kind()? {
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
                        let bad = wrong_type(r, "a string or an array of strings");
                        r.skip()?;
                        Slot::Bad(bad)
                    }
                };
                members.push((key.to_owned(), v));
            }
            _ => unknown_field(r, key, &mut unknown)?,
        }
        Ok(())
    })?;
    if let Some(u) = unknown {
        return Ok(Err(u));
    }
    for k in ["claim", "scope", "evidence"] {
        if !members.iter().any(|(m, _)| m == k) {
            return Ok(Err(missing(&ptr, k)));
        }
    }
    let mut out = Vec::with_capacity(3);
    // Types in the order claim, scope, evidence.
    for k in ["claim", "scope", "evidence"] {
        let i = members.iter().position(|(m, _)| m == k).expect("present");
        let (_, slot) = members.remove(i);
        match slot.get() {
            Ok(v) => out.push((k.to_owned(), v)),
            Err(b) => return Ok(Err(b)),
        }
    }
    Ok(Ok(Some(Value::Obj(out))))
}

/// Parse a strict endpoint configuration. `with_model` says whether `model` is required
/// (open) or not allowed (adopt: the host brings the model).
pub fn parse_config(bytes: &[u8], with_model: bool) -> Result<Config, Refusal> {
    let mut r = Reader::new(bytes)?;
    let mut unknown = None;
    let mut model = None;
    let mut name = Slot::Absent;
    let mut seed = Slot::Absent;
    let mut profile = Slot::Absent;
    let mut fidelity = None;
    let mut frame = None;
    r.object(|r, key| {
        match key {
            "model" if with_model => model = Some(read_model(r)?),
            "name" => name = read_string(r)?,
            "seed" => seed = read_u64(r)?,
            "profile" => profile = read_string(r)?,
            "fidelity" => fidelity = Some(read_fidelity(r)?),
            "frame" => frame = Some(crate::frame::read_selection(r)?),
            _ => unknown_field(r, key, &mut unknown)?,
        }
        Ok(())
    })?;
    r.finish()?;
    if let Some(u) = unknown {
        return Err(u);
    }
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
                Reason::MJB_REASON_PROFILE,
                format!("unknown profile {s:?} (auto, mujoco_integration_v1, mujoco_basic_v1)"),
            )
            .at("/profile")
        })?),
    };
    let fidelity = fidelity.transpose()?.flatten();
    let frame = frame.transpose()?.unwrap_or_default();
    Ok(Config {
        model,
        name,
        seed,
        profile,
        fidelity,
        frame,
    })
}

/// `{"model": {...}}` for `mjb_endpoint_replace_model`.
pub fn parse_replacement(bytes: &[u8]) -> Result<ModelSource, Refusal> {
    let mut r = Reader::new(bytes)?;
    let mut unknown = None;
    let mut model = None;
    r.object(|r, key| {
        match key {
            "model" => model = Some(read_model(r)?),
            _ => unknown_field(r, key, &mut unknown)?,
        }
        Ok(())
    })?;
    r.finish()?;
    if let Some(u) = unknown {
        return Err(u);
    }
    match model {
        Some(m) => m,
        None => Err(missing("", "model")),
    }
}
