//! Writing documents: every served document is printed once, straight into its output string,
//! and its RFC 8785 (JCS) canonical form is described alongside (which bytes of the served
//! text it reuses, in which key order), so a state hash streams through SHA-256 without
//! printing any number a second time.
//!
//! The served text and the canonical text differ only in key order (JCS sorts keys by UTF-16
//! code units), in `-0` (served as `-0`, canonical `0`) and in integers above 2^53
//! (canonicalized through their double); strings are escaped identically.

use super::value::Value;
use std::fmt::Write as _;
use std::ops::Range;

/// How the canonical form of one value is obtained.
#[derive(Clone, Debug)]
pub enum Canon {
    /// The served bytes at this range are canonical as they are, except that a `-0` number
    /// token in them (when `negative_zero`) is canonically `0`.
    Served {
        range: Range<usize>,
        negative_zero: bool,
    },
    /// Canonical text that differs from the served text (or was never served).
    Text(String),
    /// An object: its members in served order.
    Object(Vec<(&'static str, Canon)>),
}

/// Numbers printed once in a document (the inside of an array), to be copied elsewhere in it.
#[derive(Clone, Debug, Default)]
pub struct Piece {
    pub range: Range<usize>,
    pub negative_zero: bool,
}

impl Piece {
    /// The inside of an array written at `canon` (its brackets dropped).
    pub fn inside(canon: &Canon) -> Piece {
        match canon {
            Canon::Served {
                range,
                negative_zero,
            } => Piece {
                range: range.start + 1..range.end - 1,
                negative_zero: *negative_zero,
            },
            _ => unreachable!("arrays of numbers are served as printed"),
        }
    }
}

/// A document being written: the served text and, per object, its canonical description.
pub struct Writer {
    pub text: String,
    /// Members of the objects currently open, innermost last.
    stack: Vec<(Vec<(&'static str, Canon)>, bool)>,
}

impl Writer {
    pub fn with_capacity(bytes: usize) -> Self {
        Writer {
            text: String::with_capacity(bytes),
            stack: Vec::new(),
        }
    }

    /// Reuse a buffer (cleared) for the served text.
    pub fn reusing(mut text: String) -> Self {
        text.clear();
        Writer {
            text,
            stack: Vec::new(),
        }
    }

    pub fn begin_object(&mut self) {
        self.text.push('{');
        self.stack.push((Vec::with_capacity(16), false));
    }

    /// Close the innermost object; returns its canonical description.
    pub fn end_object(&mut self) -> Canon {
        self.text.push('}');
        let (members, _) = self.stack.pop().expect("an object is open");
        Canon::Object(members)
    }

    fn key(&mut self, key: &str) {
        let top = self.stack.last_mut().expect("an object is open");
        if top.1 {
            self.text.push(',');
        }
        top.1 = true;
        write_str(key, &mut self.text);
        self.text.push(':');
    }

    fn member(&mut self, key: &'static str, canon: Canon) {
        self.stack
            .last_mut()
            .expect("an object is open")
            .0
            .push((key, canon));
    }

    /// A member whose value is written by `f`; its canonical form is whatever `f` returns.
    pub fn field(&mut self, key: &'static str, f: impl FnOnce(&mut Writer) -> Canon) {
        self.key(key);
        let canon = f(self);
        self.member(key, canon);
    }

    pub fn str_field(&mut self, key: &'static str, value: &str) {
        self.field(key, |w| {
            let start = w.text.len();
            write_str(value, &mut w.text);
            Canon::Served {
                range: start..w.text.len(),
                negative_zero: false,
            }
        });
    }

    pub fn u64_field(&mut self, key: &'static str, value: u64) {
        self.field(key, |w| w.integer(i128::from(value)));
    }

    pub fn i64_field(&mut self, key: &'static str, value: i64) {
        self.field(key, |w| w.integer(i128::from(value)));
    }

    pub fn f64_field(&mut self, key: &'static str, value: f64) {
        self.field(key, |w| w.number(value));
    }

    pub fn f64s_field(&mut self, key: &'static str, values: &[f64]) {
        self.field(key, |w| w.numbers(values));
    }

    /// A small value from the `Value` model (a declaration, `null`).
    pub fn value_field(&mut self, key: &'static str, value: &Value) {
        self.field(key, |w| {
            w.text.push_str(&value.to_json());
            Canon::Text(value.to_canonical())
        });
    }

    /// An integer: canonical as served unless it is beyond 2^53 (JCS goes through doubles).
    pub fn integer(&mut self, v: i128) -> Canon {
        let start = self.text.len();
        let mut b = itoa::Buffer::new();
        self.text.push_str(b.format(v));
        if v.unsigned_abs() > 1u128 << 53 {
            let mut c = String::new();
            write_f64(v as f64, &mut c, true);
            Canon::Text(c)
        } else {
            Canon::Served {
                range: start..self.text.len(),
                negative_zero: false,
            }
        }
    }

    pub fn number(&mut self, x: f64) -> Canon {
        let start = self.text.len();
        write_f64(x, &mut self.text, false);
        Canon::Served {
            range: start..self.text.len(),
            negative_zero: x == 0.0 && x.is_sign_negative(),
        }
    }

    /// An array of doubles, printed once.
    pub fn numbers(&mut self, xs: &[f64]) -> Canon {
        let start = self.text.len();
        // The caller sized the buffer (from the last document or an estimate); reserving
        // the worst case here would grow it for nothing.
        self.text.push('[');
        let negative_zero = self.bare_numbers(xs, true);
        self.text.push(']');
        Canon::Served {
            range: start..self.text.len(),
            negative_zero,
        }
    }

    /// Print numbers (no brackets), each after a comma unless it is the first of the array;
    /// returns whether one was `-0`.
    pub fn bare_numbers(&mut self, xs: &[f64], first: bool) -> bool {
        let mut negative_zero = false;
        let mut buf = ryu_js::Buffer::new();
        for (i, &x) in xs.iter().enumerate() {
            if i > 0 || !first {
                self.text.push(',');
            }
            if x == 0.0 {
                if x.is_sign_negative() {
                    negative_zero = true;
                    self.text.push_str("-0");
                } else {
                    self.text.push('0');
                }
            } else {
                self.text.push_str(buf.format_finite(x));
            }
        }
        negative_zero
    }

    /// Copy text printed earlier in this document (the inside of an array: numbers and
    /// commas), after a comma unless `first`.
    pub fn copy_bare(&mut self, text: &Piece, first: bool) {
        if text.range.is_empty() {
            return;
        }
        if !first {
            self.text.push(',');
        }
        self.text.extend_from_within(text.range.clone());
    }

    /// An array whose inside was printed earlier in this document.
    pub fn copied_array(&mut self, text: &Piece) -> Canon {
        let start = self.text.len();
        self.text.push('[');
        self.copy_bare(text, true);
        self.text.push(']');
        Canon::Served {
            range: start..self.text.len(),
            negative_zero: text.negative_zero,
        }
    }

    /// Finish: the served text.
    pub fn into_text(self) -> String {
        debug_assert!(self.stack.is_empty());
        self.text
    }
}

// ---- the number and string printers every document shares ---------------------------------

/// ECMAScript `Number::toString` of a finite double (the text RFC 8785 requires), printed by
/// the `ryu-js` crate (Ryu's shortest round-trip digits, ECMAScript's layout). `canonical`
/// prints `-0` as `0`, as JCS requires; served documents keep `-0`.
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
    out.push_str(ryu_js::Buffer::new().format_finite(x));
}

/// A JSON string literal, escaped as RFC 8785 requires (so served and canonical agree).
pub fn write_str(s: &str, out: &mut String) {
    out.push('"');
    // Most strings (keys, names, engine versions) need no escape: one copy.
    if !needs_escape(s) {
        out.push_str(s);
        out.push('"');
        return;
    }
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

/// Whether a string holds a character JSON (and RFC 8785) escapes.
pub fn needs_escape(s: &str) -> bool {
    s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\')
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
            // A tie between two shortest digit strings: ECMAScript takes the even one (the
            // formatter this crate used before ryu-js printed ...0.3 here).
            (f64::from_bits(0x4315_50F7_DCA7_0001), "1500000000000000.2"),
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
}
