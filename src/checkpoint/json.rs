//! Strict JSON: the only parser and printer the bridge uses for documents.
//!
//! Why not serde_json's `Value`: it keeps the last of duplicate keys, refuses `1e400` as a
//! syntax error without saying where, and forgets whether a number was written as an
//! integer. This parser refuses duplicates, non-finite numbers and nesting deeper than
//! [`MAX_DEPTH`], keeps each number's text so integer fields can refuse `1.0` and `1e0`, and
//! reports every refusal with the JSON pointer of the offending element.
//!
//! Printing: numbers in shortest round-trip form (ECMAScript `Number::toString`, so the same
//! text RFC 8785 uses), except that served documents keep the sign of `-0`. Parsing a printed
//! number with Rust's exact `str::parse::<f64>` gives back the same bits.

use crate::outcome::{Reason, Refusal};
use std::fmt::Write as _;

/// Documents over this many bytes are refused before parsing.
pub const MAX_DOCUMENT_BYTES: usize = 1 << 20;
/// Arrays and objects nested deeper than this are refused (no recursion without bound).
pub const MAX_DEPTH: usize = 64;

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

/// Append one reference token to a JSON pointer (RFC 6901 escaping).
pub fn pointer_push(base: &str, token: &str) -> String {
    let mut p = String::with_capacity(base.len() + token.len() + 1);
    p.push_str(base);
    p.push('/');
    for c in token.chars() {
        match c {
            '~' => p.push_str("~0"),
            '/' => p.push_str("~1"),
            c => p.push(c),
        }
    }
    p
}

pub fn pointer_index(base: &str, i: usize) -> String {
    format!("{base}/{i}")
}

// ---- parsing --------------------------------------------------------------------------------

/// Parse one strict JSON document whose top level is an object.
pub fn parse_document(bytes: &[u8]) -> Result<Value, Refusal> {
    if bytes.len() > MAX_DOCUMENT_BYTES {
        return Err(Refusal::rejected(
            Reason::MJB_REASON_TOO_LARGE,
            format!(
                "document is {} bytes; the limit is {MAX_DOCUMENT_BYTES}",
                bytes.len()
            ),
        )
        .at(""));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Refusal::rejected(
            Reason::MJB_REASON_INVALID_UTF8,
            format!("document is not UTF-8: {e}"),
        )
    })?;
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
        path: Vec::new(),
    };
    p.ws();
    if p.peek() != Some(b'{') {
        return Err(p.malformed("the document must be one JSON object"));
    }
    let v = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.malformed("unexpected content after the top-level object"));
    }
    Ok(v)
}

enum Seg {
    Key(String),
    Index(usize),
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    path: Vec<Seg>,
}

impl Parser<'_> {
    fn pointer(&self) -> String {
        let mut p = String::new();
        for seg in &self.path {
            match seg {
                Seg::Key(k) => p = pointer_push(&p, k),
                Seg::Index(i) => p = pointer_index(&p, *i),
            }
        }
        p
    }

    fn malformed(&self, what: &str) -> Refusal {
        Refusal::rejected(
            Reason::MJB_REASON_MALFORMED_JSON,
            format!("{what} (byte {})", self.i),
        )
        .at(self.pointer())
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), Refusal> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.malformed(&format!("expected '{}'", c as char)))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, Refusal> {
        if depth > MAX_DEPTH {
            return Err(self.malformed(&format!("nesting deeper than {MAX_DEPTH}")));
        }
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => Ok(Value::Str(self.string()?)),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.malformed("unexpected character")),
            None => Err(self.malformed("unexpected end of document")),
        }
    }

    fn literal(&mut self, word: &str, v: Value) -> Result<Value, Refusal> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            // NaN, Infinity and other bare words land here.
            Err(self.malformed("invalid literal"))
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, Refusal> {
        self.expect(b'{')?;
        let mut fields: Vec<(String, Value)> = Vec::new();
        // Duplicate detection must stay linear: a 1 MiB object can hold 100k distinct keys.
        let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(Value::Obj(fields));
        }
        loop {
            self.ws();
            if self.peek() != Some(b'"') {
                return Err(self.malformed("expected a field name"));
            }
            let key = self.string()?;
            if !seen.insert(key.clone()) {
                let at = pointer_push(&self.pointer(), &key);
                return Err(Refusal::rejected(
                    Reason::MJB_REASON_DUPLICATE_FIELD,
                    format!("field {key:?} appears more than once"),
                )
                .at(at));
            }
            self.ws();
            self.expect(b':')?;
            self.ws();
            self.path.push(Seg::Key(key.clone()));
            let v = self.value(depth + 1)?;
            self.path.pop();
            fields.push((key, v));
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Value::Obj(fields));
                }
                _ => return Err(self.malformed("expected ',' or '}'")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, Refusal> {
        self.expect(b'[')?;
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(Value::Arr(items));
        }
        loop {
            self.ws();
            self.path.push(Seg::Index(items.len()));
            let v = self.value(depth + 1)?;
            self.path.pop();
            items.push(v);
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Value::Arr(items));
                }
                _ => return Err(self.malformed("expected ',' or ']'")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, Refusal> {
        let digits = self
            .s
            .get(self.i..self.i + 4)
            .ok_or_else(|| self.malformed("truncated \\u escape"))?;
        let text = std::str::from_utf8(digits).map_err(|_| self.malformed("bad \\u escape"))?;
        let v = u32::from_str_radix(text, 16).map_err(|_| self.malformed("bad \\u escape"))?;
        if !digits.iter().all(u8::is_ascii_hexdigit) {
            return Err(self.malformed("bad \\u escape"));
        }
        self.i += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<String, Refusal> {
        self.expect(b'"')?;
        let mut out = String::new();
        loop {
            let start = self.i;
            while let Some(c) = self.peek() {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.i += 1;
            }
            // The input is valid UTF-8 and we stopped at an ASCII byte: a char boundary.
            out.push_str(std::str::from_utf8(&self.s[start..self.i]).expect("utf-8 checked"));
            match self.peek() {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let c = self
                        .peek()
                        .ok_or_else(|| self.malformed("truncated escape"))?;
                    self.i += 1;
                    match c {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            let cp = if (0xD800..0xDC00).contains(&hi) {
                                if !self.s[self.i..].starts_with(b"\\u") {
                                    return Err(self.malformed("lone surrogate in \\u escape"));
                                }
                                self.i += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.malformed("lone surrogate in \\u escape"));
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else if (0xDC00..0xE000).contains(&hi) {
                                return Err(self.malformed("lone surrogate in \\u escape"));
                            } else {
                                hi
                            };
                            out.push(char::from_u32(cp).expect("valid scalar"));
                        }
                        _ => return Err(self.malformed("invalid escape")),
                    }
                }
                Some(_) => return Err(self.malformed("control character in string")),
                None => return Err(self.malformed("unterminated string")),
            }
        }
    }

    fn number(&mut self) -> Result<Value, Refusal> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.malformed("invalid number")),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.malformed("invalid number"));
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.malformed("invalid number"));
            }
            self.digits();
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).expect("ascii");
        match text.parse::<f64>() {
            Ok(x) if x.is_finite() => {
                let integer = !text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'));
                Ok(Value::Num(if integer {
                    // i128 holds every integer of up to 38 digits; longer ones are out of
                    // range for any integer field.
                    let digits = text.len() - usize::from(text.starts_with('-'));
                    Num::Int(
                        (digits <= 38).then(|| text.parse().expect("integer token")),
                        x,
                    )
                } else {
                    Num::Float(x)
                }))
            }
            _ => Err(Refusal::rejected(
                Reason::MJB_REASON_NOT_FINITE,
                format!("number {text} is not a finite double"),
            )
            .at(self.pointer())),
        }
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
    }
}

// ---- typed access ---------------------------------------------------------------------------

fn wrong_type(ptr: &str, want: &str) -> Refusal {
    Refusal::rejected(Reason::MJB_REASON_WRONG_TYPE, format!("expected {want}")).at(ptr)
}

impl Value {
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Num(_) => "a number",
            Value::Str(_) => "a string",
            Value::Arr(_) => "an array",
            Value::Obj(_) => "an object",
        }
    }

    pub fn as_obj(&self, ptr: &str) -> Result<&[(String, Value)], Refusal> {
        match self {
            Value::Obj(f) => Ok(f),
            _ => Err(wrong_type(ptr, "an object")),
        }
    }

    pub fn as_arr(&self, ptr: &str) -> Result<&[Value], Refusal> {
        match self {
            Value::Arr(a) => Ok(a),
            _ => Err(wrong_type(ptr, "an array")),
        }
    }

    pub fn as_str(&self, ptr: &str) -> Result<&str, Refusal> {
        match self {
            Value::Str(s) => Ok(s),
            _ => Err(wrong_type(ptr, "a string")),
        }
    }

    /// A finite number, exactly as written. Booleans are not numbers.
    pub fn as_f64(&self, ptr: &str) -> Result<f64, Refusal> {
        self.number().ok_or_else(|| wrong_type(ptr, "a number"))
    }

    /// The value of a number, or None for anything else.
    pub fn number(&self) -> Option<f64> {
        match self {
            Value::Num(n) => Some(n.value()),
            _ => None,
        }
    }

    /// A JSON integer (no fraction, no exponent, not a boolean) within `min..=max`.
    pub fn as_int(&self, ptr: &str, min: i128, max: i128) -> Result<i128, Refusal> {
        let not_int = |what: &str| {
            Refusal::rejected(
                Reason::MJB_REASON_NOT_AN_INTEGER,
                format!("expected an integer, found {what}"),
            )
            .at(ptr)
        };
        let v: i128 = match self {
            Value::Num(Num::Int(Some(v), _)) => *v,
            Value::Num(Num::Int(None, x)) => {
                return Err(Refusal::rejected(
                    Reason::MJB_REASON_OUT_OF_RANGE,
                    format!("integer {x:e} is out of range {min}..={max}"),
                )
                .at(ptr))
            }
            Value::Num(n @ Num::Float(_)) => {
                return Err(not_int(&format!("the number {}", Value::Num(*n).to_json())))
            }
            Value::Bool(_) => return Err(not_int("a boolean")),
            other => {
                return Err(wrong_type(
                    ptr,
                    &format!("an integer, not {}", other.kind()),
                ))
            }
        };
        if v < min || v > max {
            return Err(Refusal::rejected(
                Reason::MJB_REASON_OUT_OF_RANGE,
                format!("integer {v} is out of range {min}..={max}"),
            )
            .at(ptr));
        }
        Ok(v)
    }

    pub fn as_u64(&self, ptr: &str) -> Result<u64, Refusal> {
        self.as_int(ptr, 0, u64::MAX as i128).map(|v| v as u64)
    }

    /// Finite numbers, one per element, with the pointer of the first bad element.
    pub fn as_f64_vec(&self, ptr: &str) -> Result<Vec<f64>, Refusal> {
        self.as_arr(ptr)?
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.number()
                    .ok_or_else(|| wrong_type(&pointer_index(ptr, i), "a number"))
            })
            .collect()
    }
}

/// Strict reading of one object: every field must be in `allowed`, every `req` field present.
pub struct Fields<'a> {
    ptr: String,
    fields: &'a [(String, Value)],
}

impl<'a> Fields<'a> {
    /// Refuse unknown fields first (they name the mistake best), then missing ones.
    pub fn new(
        v: &'a Value,
        ptr: &str,
        allowed: &[&str],
        required: &[&str],
    ) -> Result<Self, Refusal> {
        let fields = v.as_obj(ptr)?;
        if let Some((k, _)) = fields.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
            return Err(Refusal::rejected(
                Reason::MJB_REASON_UNKNOWN_FIELD,
                format!("unknown field {k:?}"),
            )
            .at(pointer_push(ptr, k)));
        }
        if let Some(k) = required
            .iter()
            .find(|r| !fields.iter().any(|(k, _)| k == *r))
        {
            return Err(Refusal::rejected(
                Reason::MJB_REASON_MISSING_FIELD,
                format!("missing field {k:?}"),
            )
            .at(pointer_push(ptr, k)));
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

    /// A field `new` already proved present.
    pub fn req(&self, name: &str) -> (&'a Value, String) {
        self.get(name)
            .expect("required field checked in Fields::new")
    }
}

// ---- printing -------------------------------------------------------------------------------

impl Value {
    /// Compact JSON in field order; numbers in shortest round-trip form, `-0` kept.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, false);
        out
    }

    /// RFC 8785 (JCS) canonical form: keys sorted by UTF-16 code units, ECMAScript numbers.
    pub fn to_canonical(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, true);
        out
    }

    fn write(&self, out: &mut String, canonical: bool) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Num(n) => write_num(n, out, canonical),
            Value::Str(s) => write_str(s, out),
            Value::Arr(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write(out, canonical);
                }
                out.push(']');
            }
            Value::Obj(fields) => {
                out.push('{');
                let mut order: Vec<&(String, Value)> = fields.iter().collect();
                if canonical {
                    order.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
                }
                for (i, (k, v)) in order.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(k, out);
                    out.push(':');
                    v.write(out, canonical);
                }
                out.push('}');
            }
        }
    }
}

fn write_num(n: &Num, out: &mut String, canonical: bool) {
    match *n {
        Num::Float(x) => write_f64(x, out, canonical),
        // JCS works on doubles: an integer beyond 2^53 is canonicalized through its double.
        Num::Int(Some(i), x) if canonical && i.unsigned_abs() > 1u128 << 53 => {
            write_f64(x, out, true)
        }
        Num::Int(Some(i), _) => {
            let _ = write!(out, "{i}");
        }
        Num::Int(None, x) => write_f64(x, out, canonical),
    }
}

/// A small stack buffer for formatting one number without a heap allocation.
struct NumBuf {
    b: [u8; 32],
    n: usize,
}

impl std::fmt::Write for NumBuf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.n + s.len();
        self.b
            .get_mut(self.n..end)
            .ok_or(std::fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.n = end;
        Ok(())
    }
}

/// ECMAScript Number::toString of a finite double (the digits are Rust's shortest
/// round-trip digits). `canonical` prints `-0` as `0`, as JCS requires.
pub fn write_f64(x: f64, out: &mut String, canonical: bool) {
    debug_assert!(x.is_finite());
    if x == 0.0 {
        out.push_str(if x.is_sign_negative() && !canonical {
            "-0"
        } else {
            "0"
        });
        return;
    }
    if x < 0.0 {
        out.push('-');
    }
    // "d.ddde-7": shortest digits in scientific form (at most 17 digits and "e-324").
    let mut sci = NumBuf { b: [0; 32], n: 0 };
    write!(sci, "{:e}", x.abs()).expect("fits 32 bytes");
    let sci = std::str::from_utf8(&sci.b[..sci.n]).expect("ascii");
    let (mantissa, exp) = sci.split_once('e').expect("scientific form");
    let exp: i32 = exp.parse().expect("exponent");
    let mut digit_buf = [0u8; 20];
    let mut k = 0usize;
    for b in mantissa.bytes().filter(|b| *b != b'.') {
        digit_buf[k] = b;
        k += 1;
    }
    let digits = std::str::from_utf8(&digit_buf[..k]).expect("ascii");
    let k = k as i32;
    let n = exp + 1; // value = 0.digits × 10^n
    if k <= n && n <= 21 {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let e = n - 1;
        let _ = write!(out, "e{}{}", if e >= 0 { "+" } else { "-" }, e.abs());
    }
}

fn write_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(x: f64, canonical: bool) -> String {
        let mut s = String::new();
        write_f64(x, &mut s, canonical);
        s
    }

    #[test]
    fn numbers_print_like_ecmascript() {
        // Expected texts are ECMAScript's Number::toString results (RFC 8785 appendix B).
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (1.0, "1"),
            (-1.5, "-1.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (123456789012345680000.0, "123456789012345680000"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (5e-324, "5e-324"),
            (-5e-324, "-5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            (0.1 + 0.2, "0.30000000000000004"),
            (9007199254740992.0, "9007199254740992"),
            (295147905179352830000.0, "295147905179352830000"),
            (4.5, "4.5"),
            (0.002, "0.002"),
            (0.000001234, "0.000001234"),
            (1.234e-7, "1.234e-7"),
            (333333333.3333333, "333333333.3333333"),
        ];
        for &(x, want) in cases {
            assert_eq!(num(x, true), want, "{x:e}");
        }
        assert_eq!(num(-0.0, true), "0");
        assert_eq!(num(-0.0, false), "-0");
    }

    #[test]
    fn printed_numbers_parse_back_to_the_same_bits() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let specials = [0.0, -0.0, 5e-324, -5e-324, f64::MAX, f64::MIN, f64::EPSILON];
        let mut check = |x: f64| {
            let text = num(x, false);
            let back: f64 = text.parse().unwrap();
            assert_eq!(back.to_bits(), x.to_bits(), "{text}");
            // An independent parser agrees.
            let sj: f64 = serde_json::from_str(&text).unwrap();
            assert_eq!(sj.to_bits(), x.to_bits(), "serde_json on {text}");
        };
        specials.into_iter().for_each(&mut check);
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let x = f64::from_bits(state);
            if x.is_finite() {
                check(x);
            }
        }
    }

    #[test]
    fn duplicate_keys_are_refused_with_their_pointer() {
        let e = parse_document(br#"{"a":{"b":1,"b":2}}"#).unwrap_err();
        assert_eq!(e.reason, Reason::MJB_REASON_DUPLICATE_FIELD);
        assert_eq!(e.pointer.as_deref(), Some("/a/b"));
    }

    #[test]
    fn non_finite_numbers_are_refused_where_they_are() {
        let e = parse_document(br#"{"v":[1,2,1e400]}"#).unwrap_err();
        assert_eq!(e.reason, Reason::MJB_REASON_NOT_FINITE);
        assert_eq!(e.pointer.as_deref(), Some("/v/2"));
        for bad in [
            &br#"{"v":NaN}"#[..],
            br#"{"v":Infinity}"#,
            br#"{"v":-Infinity}"#,
            br#"{"v":01}"#,
            br#"{"v":1.}"#,
            br#"{"v":.5}"#,
            br#"{"v":+1}"#,
            br#"[1]"#,
            br#"{"v":1} x"#,
            br#"{"v":"\ud800"}"#,
        ] {
            let e = parse_document(bad).unwrap_err();
            assert_eq!(e.reason, Reason::MJB_REASON_MALFORMED_JSON, "{bad:?}");
        }
    }

    #[test]
    fn an_object_with_eighty_thousand_keys_parses_in_linear_time() {
        // Quadratic duplicate detection would make this take minutes (just under 1 MiB).
        let mut doc = String::from("{");
        for i in 0..80_000 {
            doc.push_str(&format!("\"k{i}\":0,"));
        }
        doc.push_str("\"k0\":1}");
        let e = parse_document(doc.as_bytes()).unwrap_err();
        assert_eq!(e.reason, Reason::MJB_REASON_DUPLICATE_FIELD);
        assert_eq!(e.pointer.as_deref(), Some("/k0"));
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(100), "]".repeat(100));
        let e = parse_document(deep.as_bytes()).unwrap_err();
        assert_eq!(e.reason, Reason::MJB_REASON_MALFORMED_JSON);
    }

    #[test]
    fn integers_refuse_fractions_exponents_booleans_and_overflow() {
        let doc =
            parse_document(br#"{"a":1.0,"b":1e0,"c":true,"d":18446744073709551616,"e":-1,"f":7}"#)
                .unwrap();
        let f = Fields::new(&doc, "", &["a", "b", "c", "d", "e", "f"], &[]).unwrap();
        let r = |k: &str| f.req(k).0.as_u64(&f.req(k).1).map_err(|e| e.reason);
        assert_eq!(r("a"), Err(Reason::MJB_REASON_NOT_AN_INTEGER));
        assert_eq!(r("b"), Err(Reason::MJB_REASON_NOT_AN_INTEGER));
        assert_eq!(r("c"), Err(Reason::MJB_REASON_NOT_AN_INTEGER));
        assert_eq!(r("d"), Err(Reason::MJB_REASON_OUT_OF_RANGE));
        assert_eq!(r("e"), Err(Reason::MJB_REASON_OUT_OF_RANGE));
        assert_eq!(r("f"), Ok(7));
    }

    #[test]
    fn canonical_form_sorts_keys_by_utf16_and_escapes_like_jcs() {
        let doc = parse_document(
            "{\"b\":[-0,1e21,0.5],\"a\":\"\\u0007\\u00e9\\n\",\"\u{20ac}\":1,\"\u{1f600}\":2}"
                .as_bytes(),
        )
        .unwrap();
        assert_eq!(
            doc.to_canonical(),
            "{\"a\":\"\\u0007\u{e9}\\n\",\"b\":[0,1e+21,0.5],\"\u{20ac}\":1,\"\u{1f600}\":2}"
        );
    }
}
