//! Documents: the one strict JSON reader, the one writer and number printer, the one RFC 8785
//! (JCS) canonicalizer and streaming hasher. Every document the bridge reads or serves goes
//! through here; each document's schema lives with its concept (endpoint config and frame
//! selection in `crate::config`, checkpoint profiles in `crate::checkpoint`, the world
//! document and world writes in [`crate::world`]).
//!
//! - [`read`]: a streaming reader over validated text; numbers go straight into the caller's
//!   buffers, nothing else is kept.
//! - `schema`: strict objects (unknown members recorded, missing ones reported) and typed
//!   members (strings, integers, numbers, arrays of numbers), each refusal with its pointer.
//! - [`write`]: the served text, printed once, with a description of its canonical form;
//!   `print`: the number and string printers every document shares.
//! - [`jcs`]: RFC 8785 canonical bytes of a validated value or of a written document, streamed
//!   into SHA-256 (`state_hash`) or a string.
//! - [`value`]: a small value model for the few documents built as trees (a fidelity
//!   declaration, `mjb_last_error`, build information).
//!
//! Nothing here knows an endpoint, a model or MuJoCo.

pub mod jcs;
mod keys;
mod lex;
mod number;
pub(crate) mod plan;
mod pointer;
pub mod print;
pub mod read;
pub(crate) mod schema;
mod tree;
pub mod value;
pub(crate) mod write;

pub use read::{Kind, Reader};
pub use value::{obj, Num, Value};

use crate::outcome::{Reason, Refusal};

/// Documents over this many bytes are refused before parsing.
pub const MAX_DOCUMENT_BYTES: usize = 1 << 20;
/// Arrays and objects nested deeper than this are refused (no recursion without bound).
pub const MAX_DEPTH: usize = 64;

/// A document's text, checked once per call: at most [`MAX_DOCUMENT_BYTES`] and UTF-8. Every
/// reader of a document starts from one, so the bytes are never checked twice.
#[derive(Clone, Copy, Debug)]
pub struct Text<'a>(&'a str);

impl<'a> Text<'a> {
    /// Check the size, then the encoding.
    pub fn new(bytes: &'a [u8]) -> Result<Self, Refusal> {
        check_size(bytes.len())?;
        std::str::from_utf8(bytes).map(Text).map_err(|e| {
            Refusal::rejected(Reason::InvalidUtf8, format!("document is not UTF-8: {e}"))
        })
    }

    /// Bytes whose size the caller bounded with its own limit (a recording): the encoding
    /// only.
    pub fn unbounded(bytes: &'a [u8]) -> Result<Self, Refusal> {
        std::str::from_utf8(bytes).map(Text).map_err(|e| {
            Refusal::rejected(Reason::InvalidUtf8, format!("document is not UTF-8: {e}")).at("")
        })
    }

    /// Text whose encoding was checked already (at the C boundary): the size only.
    pub fn checked(s: &'a str) -> Result<Self, Refusal> {
        check_size(s.len())?;
        Ok(Text(s))
    }

    pub fn as_str(self) -> &'a str {
        self.0
    }
}

fn check_size(len: usize) -> Result<(), Refusal> {
    if len > MAX_DOCUMENT_BYTES {
        return Err(Refusal::rejected(
            Reason::TooLarge,
            format!("document is {len} bytes; the limit is {MAX_DOCUMENT_BYTES}"),
        )
        .at(""));
    }
    Ok(())
}

/// A document the bridge is about to serve (a checkpoint, a world document, a restore point's
/// JSON): refused when its own readers would refuse it for its size, so the bridge never
/// serves a document it cannot read back (`MJB_REASON_TOO_LARGE`, pointer `""`).
pub fn servable(text: String, what: &str) -> Result<String, Refusal> {
    if text.len() > MAX_DOCUMENT_BYTES {
        return Err(Refusal::rejected(
            Reason::TooLarge,
            format!(
                "the {what} would be {} bytes, and a document read back is at most \
                 {MAX_DOCUMENT_BYTES}; nothing was served (a restore point keeps the state \
                 in memory)",
                text.len()
            ),
        )
        .at(""));
    }
    Ok(text)
}

/// Where a document comes from: bytes (checked for size and UTF-8) or a `&str` (the C
/// boundary checked its encoding already; the size is checked here).
pub trait Source<'a> {
    fn text(self) -> Result<Text<'a>, Refusal>;
}

impl<'a> Source<'a> for &'a [u8] {
    fn text(self) -> Result<Text<'a>, Refusal> {
        Text::new(self)
    }
}

impl<'a, const N: usize> Source<'a> for &'a [u8; N] {
    fn text(self) -> Result<Text<'a>, Refusal> {
        Text::new(self)
    }
}

impl<'a> Source<'a> for &'a str {
    fn text(self) -> Result<Text<'a>, Refusal> {
        Text::checked(self)
    }
}

impl<'a> Source<'a> for &'a String {
    fn text(self) -> Result<Text<'a>, Refusal> {
        Text::checked(self)
    }
}

impl<'a> Source<'a> for &'a Vec<u8> {
    fn text(self) -> Result<Text<'a>, Refusal> {
        Text::new(self)
    }
}

impl<'a> Source<'a> for Text<'a> {
    fn text(self) -> Result<Text<'a>, Refusal> {
        Ok(self)
    }
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

/// A refusal found inside a value read on its own, moved below `base` (a world document's
/// `/world`, a write's `/inputs/3`).
pub fn below(base: &str, mut r: Refusal) -> Refusal {
    r.pointer = Some(format!("{base}{}", r.pointer.as_deref().unwrap_or("")));
    r
}
