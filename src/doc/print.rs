//! The number and string printers every document shares: ECMAScript's shortest round-trip
//! number text (what RFC 8785 requires, and what parses back to the same bits) and JSON string
//! escaping (the same for served and canonical text).

use std::fmt::Write as _;

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
        escape_char(c, out);
    }
    out.push('"');
}

/// One character of a JSON string literal's content, escaped as RFC 8785 requires.
#[inline]
pub fn escape_char(c: char, out: &mut String) {
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

/// A value's (or a key's) text for a message, cut to a readable length: a message never
/// copies a hostile document's long string whole (its pointer holds it once).
pub(crate) fn shorten(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
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
