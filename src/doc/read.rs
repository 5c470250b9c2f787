//! A strict, streaming JSON reader: the only way the bridge reads documents.
//!
//! Why not a tree: a general tree costs a node per value (48 bytes for a number written as
//! `0,`), so a hostile 1 MiB document could make every call allocate tens of MiB before any
//! field was checked. Callers here walk the document with the schema they expect and read
//! numbers straight into their own buffers; everything else is validated and skipped without
//! being kept. Why not serde_json: it keeps the last of duplicate keys in `Value`, reports
//! `1e400` as a syntax error without a pointer, and its typed path gives no JSON pointer
//! without a second crate; `BENCHMARKS.md` has the measurements that decided it.
//!
//! What is strict: one top-level object; no duplicate keys (at any depth); finite numbers only
//! (`1e400` is refused with `MJB_REASON_NOT_FINITE`, `NaN`/`Infinity` are not JSON); no bad
//! escapes or lone surrogates; nesting at most [`MAX_DEPTH`]; at most [`MAX_DOCUMENT_BYTES`].
//! Those are *parse* errors: the first one in document order ends the read, with the JSON
//! pointer of where it happened. Field-level problems (unknown, missing, wrong type) are the
//! caller's, which records them and keeps reading so that a later parse error still wins.
//!
//! Numbers are parsed by `lexical-core` in its JSON format: grammar and exact value in one
//! pass over the token (zeros, common in state vectors, skip it).
//!
//! Memory: besides what the caller keeps, the reader holds one 8-byte span per key of the
//! objects currently open (duplicates are found by sorting them when an object closes, or
//! when a parse error needs to know whether a duplicate came first), so at most about one
//! byte per byte of input; JSON pointers are built only when something is refused.

use super::{pointer_index, pointer_push, Text, MAX_DEPTH, MAX_DOCUMENT_BYTES};
use crate::outcome::{Reason, Refusal};
use std::borrow::Cow;

/// What the next value is, by its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

impl Kind {
    pub fn article(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool => "a boolean",
            Kind::Number => "a number",
            Kind::String => "a string",
            Kind::Array => "an array",
            Kind::Object => "an object",
        }
    }
}

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

#[derive(Clone, Copy)]
enum Seg {
    /// A key, as the byte range of its raw text between the quotes.
    Key(u32, u32),
    Index(usize),
}

#[derive(Clone, Copy)]
struct KeySpan {
    start: u32,
    /// End of the raw text; the top bit says the text holds escapes.
    end: u32,
}

const ESCAPED: u32 = 1 << 31;

impl KeySpan {
    fn new(start: usize, end: usize, escaped: bool) -> KeySpan {
        KeySpan {
            start: start as u32,
            end: end as u32 | if escaped { ESCAPED } else { 0 },
        }
    }

    fn end(self) -> u32 {
        self.end & !ESCAPED
    }

    fn escaped(self) -> bool {
        self.end & ESCAPED != 0
    }
}

pub struct Reader<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    path: Vec<Seg>,
    /// Key spans of every open object, innermost last; `opened[k]` is where object k's start.
    keys: Vec<KeySpan>,
    opened: Vec<usize>,
    /// The path length at which each open object sits (where its members' pointers start).
    object_depths: Vec<usize>,
    /// World-document shape checking ([`check_shape`](Self::check_shape)): `None` when off,
    /// else the first violation noted.
    shape: Option<Option<Refusal>>,
    /// Strict objects' members, recorded for a canonical pass ([`record`](Self::record)).
    recorder: Option<Box<Recorder>>,
}

/// The members of strict objects recorded while a value was read ([`Reader::record`]), so
/// that a canonical pass ([`crate::doc::jcs::tree`]) visits every byte once.
#[derive(Debug, Default)]
pub struct Tree {
    objects: Vec<Vec<(&'static str, Node)>>,
}

/// A member's value: a span of the text (no recorded object inside it), or a recorded object.
#[derive(Clone, Copy, Debug)]
pub enum Node {
    Leaf(usize, usize),
    Object(usize),
}

impl Tree {
    /// A new, empty object; returns its node.
    pub fn object(&mut self) -> Node {
        self.objects.push(Vec::with_capacity(16));
        Node::Object(self.objects.len() - 1)
    }

    /// Add a member to a recorded object. Keys are the schema's own (plain ASCII, listed once
    /// per object: a repeated key is refused by the reader, so it is not recorded twice).
    pub fn member(&mut self, object: Node, key: &'static str, node: Node) {
        let Node::Object(i) = object else {
            unreachable!("members belong to objects")
        };
        self.objects[i].push((key, node));
    }

    /// The members of object `i`, in document order.
    pub fn members(&self, i: usize) -> &[(&'static str, Node)] {
        &self.objects[i]
    }
}

/// What [`Reader::record`] keeps: the [`Tree`] of the strict objects read so far, and where
/// each one started (so that a member whose value is one of them points at it).
#[derive(Default)]
pub struct Recorder {
    pub tree: Tree,
    starts: Vec<(usize, Node)>,
}

impl Recorder {
    /// A strict object starts at byte `at`.
    pub fn begin(&mut self, at: usize) -> Node {
        let node = self.tree.object();
        self.starts.push((at, node));
        node
    }

    /// A member of `object` whose value spans `start..end`.
    pub fn member(&mut self, object: Node, key: &'static str, start: usize, end: usize) {
        let node = self
            .starts
            .iter()
            .find(|(at, _)| *at == start)
            .map_or(Node::Leaf(start, end), |(_, n)| *n);
        self.tree.member(object, key, node);
    }

    /// The node of the object that started at byte `at`.
    pub fn at(&self, at: usize) -> Option<Node> {
        self.starts.iter().find(|(a, _)| *a == at).map(|(_, n)| *n)
    }
}

#[cfg(test)]
thread_local! {
    static PARSES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many documents this thread began to parse (readers made by [`Reader::new`]): the unit
/// tests hold a restore to one parse per document.
#[cfg(test)]
pub(crate) fn parses() -> usize {
    PARSES.with(|n| n.get())
}

fn malformed_at(i: usize, what: &str) -> String {
    format!("{what} (byte {i})")
}

impl<'a> Reader<'a> {
    /// A reader over a document's text (its size and encoding checked by [`Text`]); positioned
    /// at the first value, which must be an object.
    pub fn new(text: Text<'a>) -> Result<Self, Refusal> {
        let s = text.as_str();
        debug_assert!(s.len() <= MAX_DOCUMENT_BYTES);
        #[cfg(test)]
        PARSES.with(|n| n.set(n.get() + 1));
        let mut r = Reader {
            s,
            b: s.as_bytes(),
            i: 0,
            path: Vec::with_capacity(8),
            keys: Vec::new(),
            opened: Vec::with_capacity(8),
            object_depths: Vec::with_capacity(8),
            shape: None,
            recorder: None,
        };
        r.ws();
        if r.peek() != Some(b'{') {
            return Err(r.malformed("the document must be one JSON object"));
        }
        Ok(r)
    }

    /// A reader over one value of any kind that an earlier read validated and returned with
    /// [`raw`](Self::raw) (to revisit it, as the world document's state hash does to emit an
    /// object's members in key order).
    pub fn for_value(text: &'a str) -> Self {
        Reader {
            s: text,
            b: text.as_bytes(),
            i: 0,
            path: Vec::new(),
            keys: Vec::new(),
            opened: Vec::new(),
            object_depths: Vec::new(),
            shape: None,
            recorder: None,
        }
    }

    /// The top-level object's first key (escapes decoded), looked at without reading on:
    /// what tells one schema from another before the one pass. `None` when the object is
    /// empty or does not start with a key and its `:` (the pass then refuses it).
    pub fn first_key(&mut self) -> Option<Cow<'a, str>> {
        let at = self.i;
        let key = self.key_after_brace();
        self.i = at;
        key
    }

    fn key_after_brace(&mut self) -> Option<Cow<'a, str>> {
        self.ws();
        if self.peek() != Some(b'{') {
            return None;
        }
        self.i += 1;
        self.ws();
        if self.peek() != Some(b'"') {
            return None;
        }
        let (a, b, escaped) = self.string_span().ok()?;
        self.ws();
        if self.peek() != Some(b':') {
            return None;
        }
        let s = self.s;
        Some(match escaped {
            true => Cow::Owned(decode_chars(&s[a..b]).collect()),
            false => Cow::Borrowed(&s[a..b]),
        })
    }

    /// The whole text being read.
    pub fn text(&self) -> &'a str {
        self.s
    }

    /// Where the next value starts (after whitespace).
    pub fn pos(&mut self) -> usize {
        self.ws();
        self.i
    }

    /// The byte just after what was read so far.
    pub fn offset(&self) -> usize {
        self.i
    }

    // ---- recording for a canonical pass ------------------------------------------------------

    /// From now on, record the members of every strict object read through
    /// `crate::doc::schema::object` (their first occurrence, by the schema's own keys), so
    /// that `Tree::emit` can canonicalize the text visiting each byte once.
    pub fn record(&mut self) {
        self.recorder = Some(Box::default());
    }

    pub fn recorder(&mut self) -> Option<&mut Recorder> {
        self.recorder.as_deref_mut()
    }

    /// What was recorded.
    pub fn take_recorder(&mut self) -> Option<Recorder> {
        self.recorder.take().map(|b| *b)
    }

    // ---- world-document shape ------------------------------------------------------------------

    /// From now on, note the first shape violation of a world document: an unknown member
    /// ([`note_shape`](Self::note_shape), from the strict-object helper) or an object in a leaf
    /// position ([`skip_leaf`](Self::skip_leaf)). Reading goes on; the caller decides when the
    /// violation counts (before the state hash is checked).
    pub fn check_shape(&mut self) {
        self.shape = Some(None);
    }

    /// The first shape violation noted, if shape checking is on.
    pub fn shape_violation(&mut self) -> Option<Refusal> {
        self.shape.as_mut().and_then(Option::take)
    }

    /// Note a shape violation (the first one is kept) when shape checking is on.
    pub fn note_shape(&mut self, r: &Refusal) {
        if let Some(first @ None) = &mut self.shape {
            *first = Some(r.clone());
        }
    }

    /// Skip a value that sits where a world document has no object: with shape checking on,
    /// an object anywhere inside it is noted.
    pub fn skip_leaf(&mut self) -> Result<(), Refusal> {
        if !matches!(self.shape, Some(None)) {
            return self.skip();
        }
        match self.kind()? {
            Kind::Object => {
                let bad = Refusal::rejected(
                    Reason::MJB_REASON_WRONG_TYPE,
                    "a world document has no object here",
                )
                .at(self.pointer());
                self.note_shape(&bad);
                self.skip()
            }
            Kind::Array => self
                .array(|r, _| {
                    if r.at_number() {
                        r.number().map(drop)
                    } else {
                        r.skip_leaf()
                    }
                })
                .map(drop),
            _ => self.skip(),
        }
    }

    /// After the top-level value: only whitespace may follow.
    pub fn finish(&mut self) -> Result<(), Refusal> {
        self.ws();
        if self.i != self.b.len() {
            return Err(self.malformed("unexpected content after the top-level object"));
        }
        Ok(())
    }

    // ---- pointers and errors ------------------------------------------------------------------

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

    fn key_text(&self, a: u32, b: u32) -> String {
        decode_chars(&self.s[a as usize..b as usize]).collect()
    }

    /// A parse error here, unless a duplicate key came before it in an object still open.
    fn parse_error(&mut self, reason: Reason, message: String) -> Refusal {
        if let Some(dup) = self.first_duplicate_in_open_objects() {
            return dup;
        }
        Refusal::rejected(reason, message).at(self.pointer())
    }

    fn malformed(&mut self, what: &str) -> Refusal {
        let msg = malformed_at(self.i, what);
        self.parse_error(Reason::MJB_REASON_MALFORMED_JSON, msg)
    }

    /// The duplicate whose second occurrence comes first in the document, among the open
    /// objects (each object's keys sorted by content, then scanned for equal neighbours).
    fn first_duplicate_in_open_objects(&mut self) -> Option<Refusal> {
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

    fn duplicate_refusal(&self, level: usize, key: KeySpan) -> Refusal {
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
            Reason::MJB_REASON_DUPLICATE_FIELD,
            format!("field {text:?} appears more than once"),
        )
        .at(p)
    }

    // ---- scanning -----------------------------------------------------------------------------

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
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

    /// What the next value is (after whitespace); malformed when no value can start here or
    /// when it would sit deeper than [`MAX_DEPTH`] containers.
    pub fn kind(&mut self) -> Result<Kind, Refusal> {
        self.ws();
        if self.path.len() > MAX_DEPTH {
            return Err(self.malformed(&format!("nesting deeper than {MAX_DEPTH}")));
        }
        match self.peek() {
            Some(b'{') => Ok(Kind::Object),
            Some(b'[') => Ok(Kind::Array),
            Some(b'"') => Ok(Kind::String),
            Some(b't' | b'f') => Ok(Kind::Bool),
            Some(b'n') => Ok(Kind::Null),
            Some(b'-' | b'0'..=b'9') => Ok(Kind::Number),
            Some(_) => Err(self.malformed("unexpected character")),
            None => Err(self.malformed("unexpected end of document")),
        }
    }

    /// Read an object, calling `field(reader, key)` for each member; `field` must consume
    /// the member's value (read it or [`skip`](Self::skip) it). The next value must be an
    /// object (check [`kind`](Self::kind) first).
    pub fn object(
        &mut self,
        mut field: impl FnMut(&mut Self, &str) -> Result<(), Refusal>,
    ) -> Result<(), Refusal> {
        self.kind()?;
        self.expect(b'{')?;
        self.opened.push(self.keys.len());
        self.object_depths.push(self.path.len());
        let mut key = String::new();
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return self.close_object();
        }
        loop {
            self.ws();
            if self.peek() != Some(b'"') {
                return Err(self.malformed("expected a field name"));
            }
            let (a, b, escaped) = self.string_span()?;
            self.keys.push(KeySpan::new(a, b, escaped));
            key.clear();
            if escaped {
                key.extend(decode_chars(&self.s[a..b]));
            } else {
                key.push_str(&self.s[a..b]);
            }
            self.ws();
            self.expect(b':')?;
            self.path.push(Seg::Key(a as u32, b as u32));
            field(self, &key)?;
            self.path.pop();
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return self.close_object();
                }
                _ => return Err(self.malformed("expected ',' or '}'")),
            }
        }
    }

    fn close_object(&mut self) -> Result<(), Refusal> {
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
    fn first_duplicate_in_open_objects_before(&mut self, level: usize, at: u32) -> Option<Refusal> {
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

    /// Read an array, calling `item(reader, index)` for each element; `item` must consume it.
    /// Returns the number of elements.
    pub fn array(
        &mut self,
        mut item: impl FnMut(&mut Self, usize) -> Result<(), Refusal>,
    ) -> Result<usize, Refusal> {
        self.kind()?;
        self.expect(b'[')?;
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(0);
        }
        let mut n = 0usize;
        self.path.push(Seg::Index(0));
        let at = self.path.len() - 1;
        // Elements sit one level deeper than the array (checked here once, so that
        // `at_number` need not).
        if self.path.len() > MAX_DEPTH {
            return Err(self.malformed(&format!("nesting deeper than {MAX_DEPTH}")));
        }
        loop {
            self.ws();
            self.path[at] = Seg::Index(n);
            item(self, n)?;
            n += 1;
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    self.path.pop();
                    return Ok(n);
                }
                _ => return Err(self.malformed("expected ',' or ']'")),
            }
        }
    }

    /// Whether an array element (the array's loop already skipped whitespace) starts a
    /// number: the hot path of number arrays, without [`kind`](Self::kind)'s checks.
    #[inline]
    pub fn at_number(&self) -> bool {
        matches!(self.peek(), Some(b'-' | b'0'..=b'9'))
    }

    /// Validate and skip one value of any kind.
    pub fn skip(&mut self) -> Result<(), Refusal> {
        match self.kind()? {
            Kind::Object => self.object(|r, _| r.skip()),
            Kind::Array => self.array(|r, _| r.skip()).map(drop),
            Kind::String => self.string_span().map(drop),
            Kind::Number => self.number().map(drop),
            Kind::Bool => self.boolean().map(drop),
            Kind::Null => self.null(),
        }
    }

    /// The raw text of the next value (validated and skipped), for messages.
    pub fn raw(&mut self) -> Result<&'a str, Refusal> {
        let (a, b) = self.span()?;
        Ok(&self.s[a..b])
    }

    /// The byte range of the next value in [`text`](Self::text) (validated and skipped).
    pub fn span(&mut self) -> Result<(usize, usize), Refusal> {
        self.ws();
        let start = self.i;
        self.skip()?;
        Ok((start, self.i))
    }

    /// [`span`](Self::span) of a value in a leaf position (see [`skip_leaf`](Self::skip_leaf)).
    pub fn span_leaf(&mut self) -> Result<(usize, usize), Refusal> {
        self.ws();
        let start = self.i;
        self.skip_leaf()?;
        Ok((start, self.i))
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
    fn string_span(&mut self) -> Result<(usize, usize, bool), Refusal> {
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

    fn hex4(&mut self) -> Result<u32, Refusal> {
        match self.b.get(self.i..self.i + 4) {
            Some(d) if d.iter().all(u8::is_ascii_hexdigit) => {
                self.i += 4;
                Ok(hex_value(d))
            }
            Some(_) => Err(self.malformed("bad \\u escape")),
            None => Err(self.malformed("truncated \\u escape")),
        }
    }

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
                        Reason::MJB_REASON_NOT_FINITE,
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

/// The characters of a validated string's raw text, escapes decoded.
pub fn decode_chars(raw: &str) -> impl Iterator<Item = char> + '_ {
    let mut it = raw.chars();
    std::iter::from_fn(move || {
        let c = it.next()?;
        if c != '\\' {
            return Some(c);
        }
        Some(match it.next()? {
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'u' => {
                let hi = hex4_chars(&mut it);
                if (0xD800..0xDC00).contains(&hi) {
                    it.next(); // '\\'
                    it.next(); // 'u'
                    let lo = hex4_chars(&mut it);
                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                        .unwrap_or('\u{FFFD}')
                } else {
                    char::from_u32(hi).unwrap_or('\u{FFFD}')
                }
            }
            other => other, // '"', '\\', '/'
        })
    })
}

fn hex4_chars(it: &mut std::str::Chars) -> u32 {
    (0..4).fold(0u32, |acc, _| {
        acc * 16 + it.next().and_then(|c| c.to_digit(16)).unwrap_or(0)
    })
}

/// Compare two raw key texts by their decoded characters.
fn key_cmp(s: &str, a: KeySpan, b: KeySpan) -> std::cmp::Ordering {
    let ra = &s.as_bytes()[a.start as usize..a.end() as usize];
    let rb = &s.as_bytes()[b.start as usize..b.end() as usize];
    if !a.escaped() && !b.escaped() {
        return ra.cmp(rb);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Read a whole document (every value validated and skipped).
    fn parse(bytes: &[u8]) -> Result<(), Refusal> {
        let mut r = Reader::new(Text::new(bytes)?)?;
        r.skip()?;
        r.finish()
    }

    #[test]
    fn duplicate_keys_are_refused_with_their_pointer_at_any_depth() {
        let e = parse(br#"{"a":{"b":1,"b":2}}"#).unwrap_err();
        assert_eq!(e.reason, Reason::MJB_REASON_DUPLICATE_FIELD);
        assert_eq!(e.pointer.as_deref(), Some("/a/b"));
        // Escapes do not hide a duplicate.
        let e = parse(br#"{"x":[{"ab":1,"a\u0062":2}]}"#).unwrap_err();
        assert_eq!(e.pointer.as_deref(), Some("/x/0/ab"));
    }

    #[test]
    fn the_first_parse_error_in_document_order_wins_even_when_a_duplicate_is_found_later() {
        // The duplicate "a" (byte 9) comes before the syntax error in the nested value.
        let e = parse(br#"{"a":1,"a":{"b":[1,}}"#).unwrap_err();
        assert_eq!(e.reason, Reason::MJB_REASON_DUPLICATE_FIELD);
        assert_eq!(e.pointer.as_deref(), Some("/a"));
        // An outer duplicate before an inner one: the outer is reported.
        let e = parse(br#"{"o":1,"o":2,"i":{"k":1,"k":2}}"#).unwrap_err();
        assert_eq!(e.pointer.as_deref(), Some("/o"));
        // An inner duplicate closed before the outer one appears: the inner is reported.
        let e = parse(br#"{"i":{"k":1,"k":2},"o":1,"o":2}"#).unwrap_err();
        assert_eq!(e.pointer.as_deref(), Some("/i/k"));
        // A syntax error before any duplicate.
        let e = parse(br#"{"a":[1,,2],"a":1}"#).unwrap_err();
        assert_eq!(e.reason, Reason::MJB_REASON_MALFORMED_JSON);
        assert_eq!(e.pointer.as_deref(), Some("/a/1"));
    }

    #[test]
    fn non_finite_numbers_are_refused_where_they_are() {
        let e = parse(br#"{"v":[1,2,1e400]}"#).unwrap_err();
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
            br#"{"v":-}"#,
            br#"{"v":1e}"#,
            br#"[1]"#,
            br#"{"v":1} x"#,
            br#"{"v":"\ud800"}"#,
            br#"{"v":"\udc00"}"#,
            br#"{"v":"\ud800\u0041"}"#,
            br#"{"v":"\x"}"#,
            br#"{"v":"\u12"}"#,
            b"{\"v\":\"\x01\"}",
            br#"{"v":tru}"#,
            br#"{"v" 1}"#,
            br#"{"v":1,}"#,
            br#"{"v":[1 2]}"#,
            br#"{1:2}"#,
            b"",
            b"   ",
        ] {
            let e = parse(bad).unwrap_err();
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
        let e = parse(doc.as_bytes()).unwrap_err();
        assert_eq!(e.reason, Reason::MJB_REASON_DUPLICATE_FIELD);
        assert_eq!(e.pointer.as_deref(), Some("/k0"));
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(100), "]".repeat(100));
        let e = parse(deep.as_bytes()).unwrap_err();
        assert_eq!(e.reason, Reason::MJB_REASON_MALFORMED_JSON);
        // 64 levels below the top-level object are fine.
        let ok = format!("{{\"a\":{}1{}}}", "[".repeat(63), "]".repeat(63));
        parse(ok.as_bytes()).unwrap();
        let over = format!("{{\"a\":{}1{}}}", "[".repeat(64), "]".repeat(64));
        assert!(parse(over.as_bytes()).is_err());
    }

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
