//! A small JSON value model for the few pieces built as trees: a fidelity declaration, the
//! `mjb_last_error` record, build information, the `mjbridge` command's reports. Documents
//! themselves are read by `super::read` and written by `super::write`; a `Value` prints
//! through the same number and string printers, served or in RFC 8785 canonical form.

use super::print::{write_f64, write_str};
use super::{Kind, Reader, Text};
use crate::outcome::Refusal;
use std::fmt::Write as _;

/// A finite JSON number, parsed once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// Written with a fraction or an exponent, or built from a double.
    Float(f64),
    /// Written as an integer: its exact value when it fits an i128, and the nearest double.
    Int(Option<i128>, f64),
}

impl Num {
    /// The number as a double (exactly as `str::parse::<f64>` reads its text).
    pub fn value(self) -> f64 {
        match self {
            Num::Float(x) | Num::Int(_, x) => x,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Num(Num),
    Str(String),
    Arr(Vec<Value>),
    Obj(Vec<(String, Value)>),
}

impl From<f64> for Value {
    fn from(x: f64) -> Self {
        Value::Num(Num::Float(x))
    }
}
impl From<u64> for Value {
    fn from(x: u64) -> Self {
        Value::Num(Num::Int(Some(x.into()), x as f64))
    }
}
impl From<i64> for Value {
    fn from(x: i64) -> Self {
        Value::Num(Num::Int(Some(x.into()), x as f64))
    }
}
impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::Str(s.to_owned())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::Str(s)
    }
}
impl From<&[f64]> for Value {
    fn from(xs: &[f64]) -> Self {
        Value::Arr(xs.iter().map(|&x| Value::from(x)).collect())
    }
}

/// Build an object from `(key, value)` pairs, keeping their order.
pub fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Obj(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

// ---- printing -------------------------------------------------------------------------------

impl Value {
    /// Compact JSON in field order; numbers in shortest round-trip form, `-0` kept.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Num(Num::Float(x)) | Value::Num(Num::Int(None, x)) => write_f64(*x, out, false),
            Value::Num(Num::Int(Some(i), _)) => {
                let _ = write!(out, "{i}");
            }
            Value::Str(s) => write_str(s, out),
            Value::Arr(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write(out);
                }
                out.push(']');
            }
            Value::Obj(fields) => {
                out.push('{');
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(k, out);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }
}

// ---- reading a tree ------------------------------------------------------------------------

fn read_value(r: &mut Reader) -> Result<Value, Refusal> {
    Ok(match r.kind()? {
        Kind::Object => {
            let mut fields = Vec::new();
            r.object(|r, key| {
                fields.push((key.to_owned(), read_value(r)?));
                Ok(())
            })?;
            Value::Obj(fields)
        }
        Kind::Array => {
            let mut items = Vec::new();
            r.array(|r, _| {
                items.push(read_value(r)?);
                Ok(())
            })?;
            Value::Arr(items)
        }
        Kind::String => Value::Str(r.string()?),
        Kind::Number => {
            let n = r.number()?;
            Value::Num(if n.is_integer() {
                Num::Int(n.integer(), n.value)
            } else {
                Num::Float(n.value)
            })
        }
        Kind::Bool => Value::Bool(r.boolean()?),
        Kind::Null => {
            r.null()?;
            Value::Null
        }
    })
}

/// Parse one strict JSON document whose top level is an object into a tree (for small files:
/// a command's package and reference files, a checkpoint to inspect or corrupt; documents on
/// the restore path are streamed, never built as trees).
pub fn parse(bytes: &[u8]) -> Result<Value, Refusal> {
    let mut r = Reader::new(Text::new(bytes)?)?;
    let v = read_value(&mut r)?;
    r.finish()?;
    Ok(v)
}

/// The exact text of each top-level member's value, as it stands in the document (its byte
/// span: nothing is re-serialized). The document must already have passed [`parse`].
pub fn raw_members(bytes: &[u8]) -> Result<Vec<(String, String)>, Refusal> {
    let mut r = Reader::new(Text::new(bytes)?)?;
    let mut out = Vec::new();
    r.object(|r, key| {
        out.push((key.to_owned(), r.raw()?.to_owned()));
        Ok(())
    })?;
    r.finish()?;
    Ok(out)
}
