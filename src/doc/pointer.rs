//! Where the strict reader is, for refusals: the JSON pointer of its path of keys and indices
//! (built only when something is refused), the duplicate keys among the open objects (found
//! by sorting their key spans when an object closes, or when a parse error needs to know
//! whether a duplicate came first), and the parse errors themselves. The path and the spans
//! are [`super::keys`]'.

use super::keys::{decode_chars, duplicate_in, KeySpan, Seg};
use super::print::shorten;
use super::read::Reader;
use crate::outcome::{Reason, Refusal};

fn malformed_at(i: usize, what: &str) -> String {
    format!("{what} (byte {i})")
}

impl Reader<'_> {
    /// The JSON pointer of the value being read (built only for refusals).
    pub fn pointer(&self) -> String {
        self.pointer_of(&self.path)
    }

    /// The JSON pointer of a path prefix, built in one string of its exact size (a key of
    /// megabytes is decoded straight into it, never copied whole on the way).
    fn pointer_of(&self, path: &[Seg]) -> String {
        let size = path.iter().fold(0, |n, seg| match *seg {
            Seg::Key(a, b) => {
                let token = decode_chars(&self.s[a as usize..b as usize]);
                n + 1
                    + token
                        .map(|c| c.len_utf8() + usize::from(matches!(c, '~' | '/')))
                        .sum::<usize>()
            }
            Seg::Index(i) => n + 1 + i.checked_ilog10().unwrap_or(0) as usize + 1,
        });
        let mut p = String::with_capacity(size);
        for seg in path {
            match *seg {
                Seg::Key(a, b) => {
                    p.push('/');
                    for c in decode_chars(&self.s[a as usize..b as usize]) {
                        match c {
                            '~' => p.push_str("~0"),
                            '/' => p.push_str("~1"),
                            c => p.push(c),
                        }
                    }
                }
                Seg::Index(i) => {
                    use std::fmt::Write as _;
                    let _ = write!(p, "/{i}");
                }
            }
        }
        p
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
                if best.is_none_or(|(at, _, _)| second.start() < at) {
                    best = Some((second.start(), level, second));
                }
            }
        }
        best.map(|(_, level, key)| self.duplicate_refusal(level, key))
    }

    pub(super) fn duplicate_refusal(&self, level: usize, key: KeySpan) -> Refusal {
        // The object at `level` is the value at the path prefix that holds `level` keys or
        // indices before it: the path has one segment per enclosing container.
        let depth_of_object = self.object_depths[level];
        let (a, b) = (key.start(), key.end(self.s).0);
        let mut path = self.path[..depth_of_object].to_vec();
        path.push(Seg::Key(a, b));
        // The message shows the key's first characters (the pointer holds it whole).
        let start: String = decode_chars(&self.s[a as usize..b as usize])
            .take(41)
            .collect();
        let message = format!("field {:?} appears more than once", shorten(&start));
        Refusal::rejected(Reason::DuplicateField, message).at(self.pointer_of(&path))
    }

    pub(super) fn close_object(&mut self) -> Result<(), Refusal> {
        let start = *self.opened.last().expect("an object is open");
        if let Some(second) = duplicate_in(self.s, &mut self.keys[start..]) {
            // Closing it found a duplicate; one in an enclosing object may come earlier.
            let level = self.opened.len() - 1;
            let mine = self.duplicate_refusal(level, second);
            let outer = self.first_duplicate_in_open_objects_before(level, second.start());
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
                if second.start() < at && best.is_none_or(|(b, _, _)| second.start() < b) {
                    best = Some((second.start(), l, second));
                }
            }
        }
        best.map(|(_, l, key)| self.duplicate_refusal(l, key))
    }
}
