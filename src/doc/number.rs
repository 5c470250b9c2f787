//! Number tokens: the strict JSON grammar and the exact double in one pass (`lexical-core`),
//! finite only, with the token kept so that integers are told from `1.0`.

use super::read::Reader;
use crate::outcome::{Reason, Refusal};

/// A number token, parsed once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Number<'a> {
    /// The exact double (`str::parse::<f64>` of the token), always finite.
    pub value: f64,
    /// The token: no fraction or exponent means a JSON integer.
    pub text: &'a str,
}

impl Number<'_> {
    pub fn is_integer(&self) -> bool {
        !self.text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'))
    }

    /// The integer's exact value when it is written as an integer of at most 38 digits (so it
    /// fits an i128); longer integers are out of range for every integer field.
    pub fn integer(&self) -> Option<i128> {
        if !self.is_integer() {
            return None;
        }
        let digits = self.text.len() - usize::from(self.text.starts_with('-'));
        (digits <= 38).then(|| self.text.parse().expect("integer token"))
    }
}

impl<'a> Reader<'a> {
    /// Read a number: strict JSON grammar, and finite.
    pub fn number(&mut self) -> Result<Number<'a>, Refusal> {
        // One pass over the token: lexical-core checks the JSON number grammar (no `+`, no
        // leading zeros, digits on both sides of `.`, no `NaN`/`Infinity`) and parses the
        // value exactly (Eisel-Lemire with a big-integer fallback) as it scans.
        const OPTIONS: lexical_core::ParseFloatOptions = lexical_core::ParseFloatOptions::new();
        let start = self.i;
        // Zeros are common in state vectors (forces, velocities at rest): `0` and `-0` ending
        // at a delimiter need no parser.
        let zero_at = start + usize::from(self.b.get(start) == Some(&b'-'));
        if self.b.get(zero_at) == Some(&b'0')
            && matches!(
                self.b.get(zero_at + 1),
                None | Some(b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t')
            )
        {
            self.i = zero_at + 1;
            let text = &self.s[start..self.i];
            let value = if zero_at > start { -0.0 } else { 0.0 };
            return Ok(Number { value, text });
        }
        match lexical_core::parse_partial_with_options::<f64, { lexical_core::format::JSON }>(
            &self.b[start..],
            &OPTIONS,
        ) {
            Ok((value, used)) if used > 0 => {
                self.i = start + used;
                let text = &self.s[start..self.i];
                if value.is_finite() {
                    Ok(Number { value, text })
                } else {
                    Err(self.parse_error(
                        Reason::NotFinite,
                        format!("number {text} is not a finite double"),
                    ))
                }
            }
            _ => {
                self.i = start;
                Err(self.malformed("invalid number"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Text;
    use super::*;

    #[test]
    fn numbers_read_exactly_as_rust_parses_them() {
        // Shortest forms, 17-digit forms, exponents, subnormals, zeros, integers beyond 2^53:
        // the reader's double is bit for bit `str::parse::<f64>`'s.
        let mut texts: Vec<String> = vec![
            "0",
            "-0",
            "0.0",
            "-0.0",
            "1e-400",
            "5e-324",
            "2.2250738585072014e-308",
            "1.7976931348623157e308",
            "9007199254740993",
            "123456789012345678901234567890",
            "0.1",
            "1E2",
            "1e+2",
            "2.5e-3",
            "100000000000000000000000",
        ]
        .into_iter()
        .map(String::from)
        .collect();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..100_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let x = f64::from_bits(state);
            if x.is_finite() {
                texts.push(format!("{x:e}"));
                texts.push(format!("{x:.17e}"));
                texts.push(format!("{}", (state % 1_000_000_007) as f64 / 7.0));
            }
        }
        for chunk in texts.chunks(20_000) {
            let mut doc = String::from("{\"v\":[");
            doc.push_str(&chunk.join(","));
            doc.push_str("]}");
            let mut r = Reader::new(Text::new(doc.as_bytes()).unwrap()).unwrap();
            let mut got = Vec::new();
            r.object(|r, _| {
                r.array(|r, _| {
                    got.push(r.number()?.value);
                    Ok(())
                })
                .map(drop)
            })
            .unwrap();
            assert_eq!(got.len(), chunk.len());
            for (t, x) in chunk.iter().zip(got) {
                let want: f64 = t.parse().unwrap();
                assert_eq!(x.to_bits(), want.to_bits(), "{t}");
            }
        }
    }

    #[test]
    fn integers_are_told_from_fractions_and_exponents() {
        let n = |t: &str| {
            let doc = format!("{{\"n\":{t}}}");
            let mut r = Reader::new(Text::new(doc.as_bytes()).unwrap()).unwrap();
            let mut got = None;
            r.object(|r, _| {
                let n = r.number()?;
                got = Some((n.is_integer(), n.integer()));
                Ok(())
            })
            .unwrap();
            got.unwrap()
        };
        assert_eq!(n("7"), (true, Some(7)));
        assert_eq!(n("-0"), (true, Some(0)));
        assert_eq!(n("1.0"), (false, None));
        assert_eq!(n("1e0"), (false, None));
        assert_eq!(
            n("18446744073709551616"),
            (true, Some(18446744073709551616))
        );
        assert_eq!(n(&"9".repeat(39)), (true, None));
    }
}
