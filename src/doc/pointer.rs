//! Where the strict reader is, for refusals: the path of keys and indices (JSON pointers
//! built only when something is refused), the key spans of the open objects and the
//! duplicate keys among them (found by sorting when an object closes, or when a parse error
//! needs to know whether a duplicate came first), and the parse errors themselves.

use super::lex::decode_chars;
use super::read::Reader;
use super::{pointer_index, pointer_push};
use crate::outcome::{Reason, Refusal};

#[derive(Clone, Copy)]
pub(super) enum Seg {
    /// A key, as the byte range of its raw text between the quotes.
    Key(u32, u32),
    Index(usize),
}

#[derive(Clone, Copy)]
pub(super) struct KeySpan {
    pub(super) start: u32,
    /// End of the raw text; the top bit says the text holds escapes.
    pub(super) end: u32,
}

const ESCAPED: u32 = 1 << 31;

impl KeySpan {
    pub(super) fn new(start: usize, end: usize, escaped: bool) -> KeySpan {
        KeySpan {
            start: start as u32,
            end: end as u32 | if escaped { ESCAPED } else { 0 },
        }
    }

    pub(super) fn end(self) -> u32 {
        self.end & !ESCAPED
    }

    pub(super) fn escaped(self) -> bool {
        self.end & ESCAPED != 0
    }
}

fn malformed_at(i: usize, what: &str) -> String {
    format!("{what} (byte {i})")
}

impl Reader<'_> {
    /// The JSON pointer of the value being read (built only for refusals).
    pub fn pointer(&self) -> String {
        let mut p = String::new();
        for seg in &self.path {
            match *seg {
                Seg::Key(a, b) => p = pointer_push(&p, &self.key_text(a, b)),
                Seg::Index(i) => p = pointer_index(&p, i),
            }
        }
        p
    }

    pub(super) fn key_text(&self, a: u32, b: u32) -> String {
        decode_chars(&self.s[a as usize..b as usize]).collect()
    }

    /// A parse error here, unless a duplicate key came before it in an object still open.
    pub(super) fn parse_error(&mut self, reason: Reason, message: String) -> Refusal {
        if let Some(dup) = self.first_duplicate_in_open_objects() {
            return dup;
        }
        Refusal::rejected(reason, message).at(self.pointer())
    }

    pub(super) fn malformed(&mut self, what: &str) -> Refusal {
        let msg = malformed_at(self.i, what);
        self.parse_error(Reason::MalformedJson, msg)
    }

    /// The duplicate whose second occurrence comes first in the document, among the open
    /// objects (each object's keys sorted by content, then scanned for equal neighbours).
    pub(super) fn first_duplicate_in_open_objects(&mut self) -> Option<Refusal> {
        let mut best: Option<(u32, usize, KeySpan)> = None;
        for level in 0..self.opened.len() {
            let start = self.opened[level];
            let end = self
                .opened
                .get(level + 1)
                .copied()
                .unwrap_or(self.keys.len());
            if let Some(second) = duplicate_in(self.s, &mut self.keys[start..end]) {
                if best.is_none_or(|(at, _, _)| second.start < at) {
                    best = Some((second.start, level, second));
                }
            }
        }
        best.map(|(_, level, key)| self.duplicate_refusal(level, key))
    }

    pub(super) fn duplicate_refusal(&self, level: usize, key: KeySpan) -> Refusal {
        // The object at `level` is the value at the path prefix that holds `level` keys or
        // indices before it: the path has one segment per enclosing container.
        let depth_of_object = self.object_depths[level];
        let mut p = String::new();
        for seg in &self.path[..depth_of_object] {
            match *seg {
                Seg::Key(a, b) => p = pointer_push(&p, &self.key_text(a, b)),
                Seg::Index(i) => p = pointer_index(&p, i),
            }
        }
        let text = self.key_text(key.start, key.end());
        let p = pointer_push(&p, &text);
        Refusal::rejected(
            Reason::DuplicateField,
            format!("field {text:?} appears more than once"),
        )
        .at(p)
    }

    pub(super) fn close_object(&mut self) -> Result<(), Refusal> {
        let start = *self.opened.last().expect("an object is open");
        if let Some(second) = duplicate_in(self.s, &mut self.keys[start..]) {
            // Closing it found a duplicate; one in an enclosing object may come earlier.
            let level = self.opened.len() - 1;
            let mine = self.duplicate_refusal(level, second);
            let outer = self.first_duplicate_in_open_objects_before(level, second.start);
            return Err(outer.unwrap_or(mine));
        }
        self.keys.truncate(start);
        self.opened.pop();
        self.object_depths.pop();
        Ok(())
    }

    /// A duplicate in an object enclosing `level` whose second occurrence is before `at`.
    pub(super) fn first_duplicate_in_open_objects_before(
        &mut self,
        level: usize,
        at: u32,
    ) -> Option<Refusal> {
        let mut best: Option<(u32, usize, KeySpan)> = None;
        for l in 0..level {
            let start = self.opened[l];
            let end = self.opened[l + 1];
            if let Some(second) = duplicate_in(self.s, &mut self.keys[start..end]) {
                if second.start < at && best.is_none_or(|(b, _, _)| second.start < b) {
                    best = Some((second.start, l, second));
                }
            }
        }
        best.map(|(_, l, key)| self.duplicate_refusal(l, key))
    }
}

/// Compare two raw key texts by their decoded characters.
fn key_cmp(s: &str, a: KeySpan, b: KeySpan) -> std::cmp::Ordering {
    let ra = &s.as_bytes()[a.start as usize..a.end() as usize];
    let rb = &s.as_bytes()[b.start as usize..b.end() as usize];
    if !a.escaped() && !b.escaped() {
        // Keys are short: a loop beats a `memcmp` call per comparison.
        for (x, y) in ra.iter().zip(rb) {
            if x != y {
                return x.cmp(y);
            }
        }
        return ra.len().cmp(&rb.len());
    }
    let (ra, rb) = (
        &s[a.start as usize..a.end() as usize],
        &s[b.start as usize..b.end() as usize],
    );
    decode_chars(ra).cmp(decode_chars(rb))
}

/// Sort one object's key spans by content and return the later occurrence of the duplicate
/// whose later occurrence comes first in the document, if any.
fn duplicate_in(s: &str, keys: &mut [KeySpan]) -> Option<KeySpan> {
    if keys.len() < 2 {
        return None;
    }
    // Equal keys end up adjacent, in document order (ties broken by position; sorting in
    // place allocates nothing).
    keys.sort_unstable_by(|a, b| key_cmp(s, *a, *b).then(a.start.cmp(&b.start)));
    let mut best: Option<KeySpan> = None;
    for w in keys.windows(2) {
        if key_cmp(s, w[0], w[1]).is_eq() && best.is_none_or(|b| w[1].start < b.start) {
            best = Some(w[1]);
        }
    }
    best
}
