//! Library-owned result strings: NUL-terminated UTF-8, handed out as handles like every
//! other object ([`super::handle`]) and freed only by `mjb_string_free`, so a double free or
//! a foreign pointer is refused instead of corrupting memory.

use super::handle::{self, thread_key};
use crate::outcome::Refusal;
use std::sync::Arc;

/// A library-owned, NUL-terminated UTF-8 string (opaque to C).
#[allow(non_camel_case_types)]
pub struct mjb_string {
    /// The text followed by one NUL byte. A `Vec` (not a boxed slice) so that handing a
    /// document over never reallocates it to trim spare capacity. Its bytes do not move
    /// while the string is live: `mjb_string_data` points into them.
    bytes: Vec<u8>,
}

/// A new string holding `text`, owned by the caller until `mjb_string_free`.
pub fn new_string(text: String) -> Result<*mut mjb_string, Refusal> {
    let mut bytes = text.into_bytes();
    bytes.push(0);
    handle::issue(thread_key(), Arc::new(mjb_string { bytes }))
}

/// The bytes of a live string with their NUL, or None (NULL, freed, foreign). They stay
/// valid until the string is freed: the table holds them.
pub fn bytes(s: *const mjb_string) -> Option<(*const u8, usize)> {
    let s = handle::resolve(s).ok()?;
    Some((s.bytes.as_ptr(), s.bytes.len()))
}

// Strings are made and freed as often as they are used: a cheap insertion and removal.
handle::handle_kind!(mjb_string => Owned<mjb_string>, STRING);
