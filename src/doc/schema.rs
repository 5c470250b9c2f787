//! Strict objects and typed members: the skeleton every document's schema is written on.
//!
//! A schema reads its object with [`object`]: each member whose key it lists is handed to it
//! by index, the first unknown one is recorded (with its pointer) and skipped, and the
//! [`Members`] it returns say which keys were present. Typed readers ([`read_string`],
//! [`read_int`], [`read_numbers`], ...) record a wrong type as a [`Slot::Bad`] and keep
//! reading, so that a parse error later in the document still wins, and the schema judges the
//! recorded problems in its own order afterwards.

use super::print::{shorten, write_f64};
use super::read::{Kind, Reader};
use super::{pointer_push, Refusal};
use crate::outcome::Reason;

/// A member as read: absent, read, or refused (the refusal is reported in the schema's order).
#[derive(Debug)]
pub enum Slot<T> {
    Absent,
    Got(T),
    Bad(Refusal),
}

impl<T> Slot<T> {
    /// The value, or the recorded refusal (for a member proven present).
    pub fn get(self) -> Result<T, Refusal> {
        match self {
            Slot::Got(v) => Ok(v),
            Slot::Bad(r) => Err(r),
            Slot::Absent => unreachable!("presence is checked before types"),
        }
    }

    /// An optional member: absent is `None`.
    pub fn opt(self) -> Result<Option<T>, Refusal> {
        match self {
            Slot::Got(v) => Ok(Some(v)),
            Slot::Bad(r) => Err(r),
            Slot::Absent => Ok(None),
        }
    }

    pub fn is_absent(&self) -> bool {
        matches!(self, Slot::Absent)
    }

    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Slot<U> {
        match self {
            Slot::Got(v) => Slot::Got(f(v)),
            Slot::Bad(b) => Slot::Bad(b),
            Slot::Absent => Slot::Absent,
        }
    }
}

/// What a strict object held: which of the schema's keys were present, and the first member
/// it does not know.
#[derive(Debug)]
pub struct Members {
    present: u64,
    pub unknown: Option<Refusal>,
}

impl Members {
    /// Whether the key at `index` (in the schema's list) was present.
    pub fn has(&self, index: usize) -> bool {
        self.present & (1 << index) != 0
    }

    /// Refuse the first unknown member, if there was one.
    pub fn refuse_unknown(&mut self) -> Result<(), Refusal> {
        self.unknown.take().map_or(Ok(()), Err)
    }

    /// Refuse the first of `keys` that is required (`required(index)`) and absent, with the
    /// pointer `base/<key>`.
    pub fn require(
        &self,
        base: &str,
        keys: &[&str],
        required: impl Fn(usize) -> bool,
    ) -> Result<(), Refusal> {
        match (0..keys.len()).find(|&i| required(i) && !self.has(i)) {
            Some(i) => Err(missing(base, keys[i])),
            None => Ok(()),
        }
    }
}

/// Read a strict object at the reader's position (check that it is one first): `member(r, i)`
/// must consume the value of each member whose key is `keys[i]`; other members are recorded
/// as unknown (the first one) and skipped. At most 64 keys.
///
/// When the reader [records](Reader::record), the object and the first occurrence of each
/// known member go into its tree (a repeated key is refused by the reader anyway).
pub fn object(
    r: &mut Reader,
    keys: &[&'static str],
    member: impl FnMut(&mut Reader, usize) -> Result<(), Refusal>,
) -> Result<Members, Refusal> {
    object_seeing(r, keys, member, |_| {})
}

/// [`object`], and `unknown(key)` sees the key of every member not in `keys` (a document that
/// may be one of two schemas looks for the other's members there).
pub fn object_seeing(
    r: &mut Reader,
    keys: &[&'static str],
    mut member: impl FnMut(&mut Reader, usize) -> Result<(), Refusal>,
    mut unknown: impl FnMut(&str),
) -> Result<Members, Refusal> {
    debug_assert!(keys.len() <= 64);
    let mut m = Members {
        present: 0,
        unknown: None,
    };
    let node = match r.recorder().is_some() {
        true => {
            let at = r.pos();
            r.recorder().map(|rec| rec.begin(at))
        }
        false => None,
    };
    r.object(|r, key| match position(keys, key) {
        Some(i) => {
            let first = !m.has(i);
            m.present |= 1 << i;
            match node {
                Some(object) if first => {
                    let start = r.pos();
                    member(r, i)?;
                    let end = r.offset();
                    if let Some(rec) = r.recorder() {
                        rec.member(object, keys[i], start, end);
                    }
                    Ok(())
                }
                _ => member(r, i),
            }
        }
        None => {
            unknown(key);
            unknown_field(r, key, &mut m.unknown)
        }
    })?;
    Ok(m)
}

/// Where `key` is in `keys`: the first byte and the length tell most schema keys apart
/// before their bytes are compared.
#[inline]
fn position(keys: &[&str], key: &str) -> Option<usize> {
    let first = key.as_bytes().first();
    keys.iter()
        .position(|k| k.len() == key.len() && k.as_bytes().first() == first && *k == key)
}

/// Record the first unknown member of an object (its pointer) and skip its value. With
/// world-document shape checking on, the reader notes it too.
pub fn unknown_field(
    r: &mut Reader,
    key: &str,
    first: &mut Option<Refusal>,
) -> Result<(), Refusal> {
    if first.is_none() {
        let u = unknown_member(r.pointer(), key);
        r.note_shape(&u);
        *first = Some(u);
    }
    r.skip()
}

/// The refusal of an unknown member `key` whose pointer is `ptr`.
pub fn unknown_member(ptr: String, key: &str) -> Refusal {
    Refusal::rejected(
        Reason::UnknownField,
        format!("unknown field {:?}", shorten(key)),
    )
    .at(ptr)
}

pub fn missing(ptr: &str, name: &str) -> Refusal {
    Refusal::rejected(Reason::MissingField, format!("missing field {name:?}"))
        .at(pointer_push(ptr, name))
}

pub fn wrong_type(r: &Reader, want: &str) -> Refusal {
    Refusal::rejected(Reason::WrongType, format!("expected {want}")).at(r.pointer())
}

/// Unless the next value is of `kind`: record it as the wrong type (`want` says what was
/// expected), skip it and return the refusal.
pub fn expect(r: &mut Reader, kind: Kind, want: &str) -> Result<Option<Refusal>, Refusal> {
    if r.kind()? == kind {
        return Ok(None);
    }
    let bad = wrong_type(r, want);
    r.skip_leaf()?;
    Ok(Some(bad))
}

pub fn read_string(r: &mut Reader) -> Result<Slot<String>, Refusal> {
    Ok(match expect(r, Kind::String, "a string")? {
        None => Slot::Got(r.string()?),
        Some(bad) => Slot::Bad(bad),
    })
}

/// A finite number (booleans are not numbers).
pub fn read_f64(r: &mut Reader) -> Result<Slot<f64>, Refusal> {
    Ok(match expect(r, Kind::Number, "a number")? {
        None => Slot::Got(r.number()?.value),
        Some(bad) => Slot::Bad(bad),
    })
}

/// A JSON integer (no fraction, no exponent, not a boolean) within `min..=max`.
pub fn read_int(r: &mut Reader, min: i128, max: i128) -> Result<Slot<i128>, Refusal> {
    let not_int = |r: &Reader, what: &str| {
        Refusal::rejected(
            Reason::NotAnInteger,
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
                write_f64(n.value, &mut shown, false);
                return Ok(Slot::Bad(not_int(r, &format!("the number {shown}"))));
            }
            let out_of_range = |r: &Reader, shown: String| {
                Refusal::rejected(
                    Reason::OutOfRange,
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
    r.skip_leaf()?;
    Ok(Slot::Bad(bad))
}

pub fn read_u64(r: &mut Reader) -> Result<Slot<u64>, Refusal> {
    Ok(read_int(r, 0, u64::MAX.into())?.map(|v| v as u64))
}

/// An array of numbers as read: how many elements it had, and the first one that is not a
/// number (whether that is a wrong type or a domain error depends on where it sits).
#[derive(Debug)]
pub struct Numbers {
    pub count: usize,
    pub first_other: Option<Other>,
}

/// The first element of a number array that is not a number.
#[derive(Debug)]
pub struct Other {
    pub index: usize,
    /// Its text, cut to a readable length, for messages.
    pub text: String,
    /// Its JSON pointer.
    pub pointer: String,
}

impl Numbers {
    /// The count, or the wrong-type refusal of the first element that is not a number.
    pub fn strict(self) -> Result<usize, Refusal> {
        match self.first_other {
            None => Ok(self.count),
            Some(o) => Err(Refusal::rejected(Reason::WrongType, "expected a number").at(o.pointer)),
        }
    }
}

/// An array of numbers: the first `cap` go into `buf` (cleared first), up to the first element
/// that is not a number; later elements are still read for syntax.
pub fn read_numbers(
    r: &mut Reader,
    buf: &mut Vec<f64>,
    cap: usize,
) -> Result<Slot<Numbers>, Refusal> {
    buf.clear();
    if let Some(bad) = expect(r, Kind::Array, "an array")? {
        return Ok(Slot::Bad(bad));
    }
    let mut first_other: Option<Other> = None;
    let count = r.array(|r, i| {
        if r.at_number() {
            let x = r.number()?.value;
            if i < cap && first_other.is_none() {
                buf.push(x);
            }
        } else if first_other.is_none() {
            r.kind()?;
            let pointer = r.pointer();
            let (a, b) = r.span_leaf()?;
            first_other = Some(Other {
                index: i,
                text: shorten(&r.text()[a..b]),
                pointer,
            });
        } else {
            r.skip_leaf()?;
        }
        Ok(())
    })?;
    Ok(Slot::Got(Numbers { count, first_other }))
}
