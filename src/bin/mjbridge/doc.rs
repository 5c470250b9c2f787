//! The tool's small JSON files (package.json, reference.json, gate.json, a checkpoint to
//! inspect) as `Value` trees ([`mjbridge::doc::value::parse`]: the library's strict reader, so
//! they get the same strictness as every document the bridge reads), with typed access that
//! names the JSON pointer of whatever is refused.

use mjbridge::doc::{pointer_push, Num, Value};
use mjbridge::outcome::{Reason, Refusal};

pub use mjbridge::doc::value::{parse, raw_members};

fn wrong_type(ptr: &str, want: &str, got: &Value) -> Refusal {
    let kind = match got {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Num(_) => "a number",
        Value::Str(_) => "a string",
        Value::Arr(_) => "an array",
        Value::Obj(_) => "an object",
    };
    Refusal::rejected(Reason::WrongType, format!("expected {want}, found {kind}")).at(ptr)
}

/// Typed access with the pointer of a refusal.
pub trait ValueExt {
    fn as_obj(&self, ptr: &str) -> Result<&[(String, Value)], Refusal>;
    fn as_str(&self, ptr: &str) -> Result<&str, Refusal>;
    /// A JSON integer (no fraction or exponent, not a boolean) within `min..=max`.
    fn as_int(&self, ptr: &str, min: i128, max: i128) -> Result<i128, Refusal>;
    fn as_u64(&self, ptr: &str) -> Result<u64, Refusal>;
}

impl ValueExt for Value {
    fn as_obj(&self, ptr: &str) -> Result<&[(String, Value)], Refusal> {
        match self {
            Value::Obj(f) => Ok(f),
            v => Err(wrong_type(ptr, "an object", v)),
        }
    }

    fn as_str(&self, ptr: &str) -> Result<&str, Refusal> {
        match self {
            Value::Str(s) => Ok(s),
            v => Err(wrong_type(ptr, "a string", v)),
        }
    }

    fn as_int(&self, ptr: &str, min: i128, max: i128) -> Result<i128, Refusal> {
        let v = match self {
            Value::Num(Num::Int(Some(v), _)) => *v,
            Value::Num(Num::Int(None, _)) => {
                return Err(Refusal::rejected(
                    Reason::OutOfRange,
                    format!("integer out of range {min}..={max}"),
                )
                .at(ptr))
            }
            Value::Num(Num::Float(_)) | Value::Bool(_) => {
                return Err(Refusal::rejected(
                    Reason::NotAnInteger,
                    format!("expected an integer, found {}", self.to_json()),
                )
                .at(ptr))
            }
            v => return Err(wrong_type(ptr, "an integer", v)),
        };
        if v < min || v > max {
            return Err(Refusal::rejected(
                Reason::OutOfRange,
                format!("integer {v} is out of range {min}..={max}"),
            )
            .at(ptr));
        }
        Ok(v)
    }

    fn as_u64(&self, ptr: &str) -> Result<u64, Refusal> {
        self.as_int(ptr, 0, u64::MAX.into()).map(|v| v as u64)
    }
}

/// Strict reading of one object: every member must be in `allowed`, every `required` one
/// present (unknown members are reported first: they name the mistake best).
pub struct Fields<'a> {
    ptr: String,
    fields: &'a [(String, Value)],
}

impl<'a> Fields<'a> {
    pub fn new(
        v: &'a Value,
        ptr: &str,
        allowed: &[&str],
        required: &[&str],
    ) -> Result<Self, Refusal> {
        let fields = v.as_obj(ptr)?;
        if let Some((k, _)) = fields.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
            return Err(
                Refusal::rejected(Reason::UnknownField, format!("unknown field {k:?}"))
                    .at(pointer_push(ptr, k)),
            );
        }
        if let Some(k) = required
            .iter()
            .find(|r| !fields.iter().any(|(k, _)| k == *r))
        {
            return Err(
                Refusal::rejected(Reason::MissingField, format!("missing field {k:?}"))
                    .at(pointer_push(ptr, k)),
            );
        }
        Ok(Fields {
            ptr: ptr.to_owned(),
            fields,
        })
    }

    pub fn get(&self, name: &str) -> Option<(&'a Value, String)> {
        self.fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| (v, pointer_push(&self.ptr, name)))
    }

    /// A member `new` already proved present.
    pub fn req(&self, name: &str) -> (&'a Value, String) {
        self.get(name)
            .expect("required member checked in Fields::new")
    }
}
