//! The tokens of the strict reader other than numbers: whitespace, the structural bytes,
//! literals and strings (escapes and surrogates checked, decoded only when a key or a value
//! is wanted as text).

use super::keys::decode_chars;
use super::read::Reader;
use crate::outcome::Refusal;

impl<'a> Reader<'a> {
    #[inline]
    pub(super) fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    #[inline]
    pub(super) fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    #[inline]
    pub(super) fn expect(&mut self, c: u8) -> Result<(), Refusal> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.malformed(&format!("expected '{}'", c as char)))
        }
    }

    pub fn boolean(&mut self) -> Result<bool, Refusal> {
        if self.b[self.i..].starts_with(b"true") {
            self.i += 4;
            Ok(true)
        } else if self.b[self.i..].starts_with(b"false") {
            self.i += 5;
            Ok(false)
        } else {
            Err(self.malformed("invalid literal"))
        }
    }

    pub fn null(&mut self) -> Result<(), Refusal> {
        if self.b[self.i..].starts_with(b"null") {
            self.i += 4;
            Ok(())
        } else {
            Err(self.malformed("invalid literal"))
        }
    }

    /// Read a string value.
    pub fn string(&mut self) -> Result<String, Refusal> {
        let (a, b, escaped) = self.string_span()?;
        Ok(if escaped {
            decode_chars(&self.s[a..b]).collect()
        } else {
            self.s[a..b].to_owned()
        })
    }

    /// Validate a string; return the byte range of its raw text between the quotes and
    /// whether it holds escapes.
    pub(super) fn string_span(&mut self) -> Result<(usize, usize, bool), Refusal> {
        self.expect(b'"')?;
        let start = self.i;
        let mut escaped = false;
        loop {
            while let Some(c) = self.peek() {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.i += 1;
            }
            match self.peek() {
                Some(b'"') => {
                    let end = self.i;
                    self.i += 1;
                    return Ok((start, end, escaped));
                }
                Some(b'\\') => {
                    escaped = true;
                    self.i += 1;
                    let Some(c) = self.peek() else {
                        return Err(self.malformed("truncated escape"));
                    };
                    self.i += 1;
                    match c {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                        b'u' => {
                            let hi = self.hex4()?;
                            if (0xD800..0xDC00).contains(&hi) {
                                if !self.b[self.i..].starts_with(b"\\u") {
                                    return Err(self.malformed("lone surrogate in \\u escape"));
                                }
                                self.i += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.malformed("lone surrogate in \\u escape"));
                                }
                            } else if (0xDC00..0xE000).contains(&hi) {
                                return Err(self.malformed("lone surrogate in \\u escape"));
                            }
                        }
                        _ => return Err(self.malformed("invalid escape")),
                    }
                }
                Some(_) => return Err(self.malformed("control character in string")),
                None => return Err(self.malformed("unterminated string")),
            }
        }
    }

    pub(super) fn hex4(&mut self) -> Result<u32, Refusal> {
        match self.b.get(self.i..self.i + 4) {
            Some(d) if d.iter().all(u8::is_ascii_hexdigit) => {
                self.i += 4;
                Ok(hex_value(d))
            }
            Some(_) => Err(self.malformed("bad \\u escape")),
            None => Err(self.malformed("truncated \\u escape")),
        }
    }
}

fn hex_value(d: &[u8]) -> u32 {
    d.iter().fold(0, |acc, &c| {
        acc * 16
            + match c {
                b'0'..=b'9' => u32::from(c - b'0'),
                b'a'..=b'f' => u32::from(c - b'a' + 10),
                _ => u32::from(c - b'A' + 10),
            }
    })
}
