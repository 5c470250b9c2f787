//! Writing documents: every served document is printed once, straight into its output string,
//! and its RFC 8785 (JCS) canonical form is described alongside (which bytes of the served
//! text it reuses, in which key order), so a state hash streams through SHA-256 without
//! printing any number a second time.
//!
//! The served text and the canonical text differ only in key order (JCS sorts keys by UTF-16
//! code units), in `-0` (served as `-0`, canonical `0`) and in integers above 2^53
//! (canonicalized through their double); strings are escaped identically.

use super::jcs::Canon;
use super::print::{write_f64, write_str};
use std::ops::Range;

/// Numbers printed once in a document (the inside of an array), to be copied elsewhere in it.
#[derive(Clone, Debug, Default)]
pub struct Piece {
    pub range: Range<usize>,
    pub negative_zero: bool,
}

impl Piece {
    /// The whole of a value written at `canon`.
    pub fn whole(canon: &Canon) -> Piece {
        match canon {
            Canon::Served {
                range,
                negative_zero,
            } => Piece {
                range: range.clone(),
                negative_zero: *negative_zero,
            },
            _ => unreachable!("numbers are served as printed"),
        }
    }

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

    /// A member whose served and canonical texts were made once beforehand (a fidelity
    /// declaration, kept by its endpoint).
    pub fn raw_field(&mut self, key: &'static str, served: &str, canonical: &str) {
        self.field(key, |w| {
            w.text.push_str(served);
            Canon::Text(canonical.to_owned())
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
