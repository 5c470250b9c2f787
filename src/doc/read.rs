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
//! escapes or lone surrogates; nesting at most [`MAX_DEPTH`]; at most [`super::MAX_DOCUMENT_BYTES`] (a recording: its own limit).
//! Those are *parse* errors: the first one in document order ends the read, with the JSON
//! pointer of where it happened. Field-level problems (unknown, missing, wrong type) are the
//! caller's, which records them and keeps reading so that a later parse error still wins.
//!
//! Numbers are parsed by `lexical-core` in its JSON format: grammar and exact value in one
//! pass over the token (zeros, common in state vectors, skip it).
//!
//! Memory: besides what the caller keeps, the reader holds one 4-byte key position per key of
//! the objects currently open (duplicates are found by sorting them when an object closes, or
//! when a parse error needs to know whether a duplicate came first; past a thousand the list
//! grows by a quarter), so well under one byte per byte of input; JSON pointers are built
//! only when something is refused.
use super::{Text, MAX_DEPTH};
use crate::outcome::{Reason, Refusal};
use std::borrow::Cow;

pub use super::keys::decode_chars;
use super::keys::{KeySpan, Seg};
pub use super::number::Number;
pub use super::tree::{Node, Recorder, Tree};

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

pub struct Reader<'a> {
    pub(super) s: &'a str,
    pub(super) b: &'a [u8],
    pub(super) i: usize,
    pub(super) path: Vec<Seg>,
    /// Key spans of every open object, innermost last; `opened[k]` is where object k's start.
    pub(super) keys: Vec<KeySpan>,
    pub(super) opened: Vec<usize>,
    /// The path length at which each open object sits (where its members' pointers start).
    pub(super) object_depths: Vec<usize>,
    /// World-document shape checking ([`check_shape`](Self::check_shape)): `None` when off,
    /// else the first violation noted.
    pub(super) shape: Option<Option<Refusal>>,
    /// Strict objects' members, recorded for a canonical pass ([`record`](Self::record)).
    pub(super) recorder: Option<Box<Recorder>>,
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

impl<'a> Reader<'a> {
    /// A reader over a document's text (its size and encoding checked by [`Text`]); positioned
    /// at the first value, which must be an object.
    pub fn new(text: Text<'a>) -> Result<Self, Refusal> {
        let s = text.as_str();
        #[cfg(test)]
        PARSES.with(|n| n.set(n.get() + 1));
        let mut r = Reader {
            s,
            b: s.as_bytes(),
            i: 0,
            path: Vec::with_capacity(8),
            // Enough for a checkpoint's keys and its descriptor's without growing.
            keys: Vec::with_capacity(32),
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
                let bad =
                    Refusal::rejected(Reason::WrongType, "a world document has no object here")
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

    /// What the next value is (after whitespace); malformed when no value can start here or
    /// when it would sit deeper than [`MAX_DEPTH`] containers.
    #[inline]
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
            if self.keys.len() == self.keys.capacity() && self.keys.len() >= 1024 {
                // Past a thousand open keys, grow by a quarter rather than double: the spans
                // are the reader's one cost per byte of input (the memory bound).
                self.keys.reserve_exact(self.keys.len() / 4);
            }
            self.keys.push(KeySpan::new(a));
            key.clear();
            if escaped {
                // One allocation of the decoded size (a hostile key is megabytes long).
                let raw = &self.s[a..b];
                key.reserve(decode_chars(raw).map(char::len_utf8).sum());
                key.extend(decode_chars(raw));
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

    /// A look at the array at the reader's position before it is read: how many elements it
    /// holds (its commas at its own depth, plus one) and its bytes, by a scan of brackets and
    /// strings only (nothing validated, the reader does not move). What a caller reserves
    /// for before the strict pass; on text that is not JSON, at least what that pass accepts.
    pub fn array_len_ahead(&mut self) -> (usize, usize) {
        self.ws();
        let b = &self.b[self.i..];
        if b.first() != Some(&b'[') {
            return (0, 0);
        }
        let (mut depth, mut commas, mut any) = (0usize, 0usize, false);
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'"' => {
                    any = any || depth == 1;
                    i += 1;
                    while i < b.len() && b[i] != b'"' {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                }
                b'[' | b'{' => {
                    any = any || depth == 1;
                    depth += 1;
                }
                b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return (commas + usize::from(any), i + 1);
                    }
                }
                b',' if depth == 1 => commas += 1,
                b' ' | b'\t' | b'\n' | b'\r' => {}
                _ => any = any || depth == 1,
            }
            i += 1;
        }
        (commas + usize::from(any), b.len())
    }

    /// Move to byte `at` of a text read before (a canonical pass revisiting a member).
    pub(super) fn seek(&mut self, at: usize) {
        self.i = at;
    }

    /// The members of the object at the reader's position, in a text validated before (its
    /// duplicates, depth and numbers are not checked again): `key(at, slow)` for each, `at`
    /// where its key's raw text starts, `slow` when that text holds an escape or a non-ASCII
    /// character. The values are skipped unread and nothing is kept; the reader ends after
    /// the object.
    pub(super) fn member_keys(&mut self, mut key: impl FnMut(usize, bool)) -> Result<(), Refusal> {
        self.ws();
        self.expect(b'{')?;
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(());
        }
        loop {
            self.ws();
            let (a, b) = self.member_key()?;
            let raw = &self.s[a..b];
            key(a, !raw.is_ascii() || raw.contains('\\'));
            self.skip_validated()?;
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return Err(self.malformed("expected ',' or '}'")),
            }
        }
    }

    /// A member's key at the reader's position and its `:`; the raw text's range (between
    /// the quotes). The reader ends where the value starts.
    pub(super) fn member_key(&mut self) -> Result<(usize, usize), Refusal> {
        if self.peek() != Some(b'"') {
            return Err(self.malformed("expected a field name"));
        }
        let (a, b, _) = self.string_span()?;
        self.ws();
        self.expect(b':')?;
        self.ws();
        Ok((a, b))
    }

    /// Skip one value of a text validated before: containers by their brackets (strings
    /// inside them stepped over whole), scalars to their delimiter. Nothing is kept.
    fn skip_validated(&mut self) -> Result<(), Refusal> {
        self.ws();
        match self.peek() {
            Some(b'"') => self.string_span().map(drop),
            Some(b'{' | b'[') => {
                let mut depth = 0usize;
                loop {
                    match self.peek() {
                        Some(b'"') => {
                            self.string_span()?;
                            continue;
                        }
                        Some(b'{' | b'[') => depth += 1,
                        Some(b'}' | b']') => {
                            depth -= 1;
                            if depth == 0 {
                                self.i += 1;
                                return Ok(());
                            }
                        }
                        Some(_) => {}
                        None => return Err(self.malformed("unexpected end of document")),
                    }
                    self.i += 1;
                }
            }
            _ => {
                while let Some(c) = self.peek() {
                    if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.i += 1;
                }
                Ok(())
            }
        }
    }

    /// [`span`](Self::span) of a value in a leaf position (see [`skip_leaf`](Self::skip_leaf)).
    pub fn span_leaf(&mut self) -> Result<(usize, usize), Refusal> {
        self.ws();
        let start = self.i;
        self.skip_leaf()?;
        Ok((start, self.i))
    }
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
        assert_eq!(e.reason, Reason::DuplicateField);
        assert_eq!(e.pointer.as_deref(), Some("/a/b"));
        // Escapes do not hide a duplicate.
        let e = parse(br#"{"x":[{"ab":1,"a\u0062":2}]}"#).unwrap_err();
        assert_eq!(e.pointer.as_deref(), Some("/x/0/ab"));
    }

    #[test]
    fn the_first_parse_error_in_document_order_wins_even_when_a_duplicate_is_found_later() {
        // The duplicate "a" (byte 9) comes before the syntax error in the nested value.
        let e = parse(br#"{"a":1,"a":{"b":[1,}}"#).unwrap_err();
        assert_eq!(e.reason, Reason::DuplicateField);
        assert_eq!(e.pointer.as_deref(), Some("/a"));
        // An outer duplicate before an inner one: the outer is reported.
        let e = parse(br#"{"o":1,"o":2,"i":{"k":1,"k":2}}"#).unwrap_err();
        assert_eq!(e.pointer.as_deref(), Some("/o"));
        // An inner duplicate closed before the outer one appears: the inner is reported.
        let e = parse(br#"{"i":{"k":1,"k":2},"o":1,"o":2}"#).unwrap_err();
        assert_eq!(e.pointer.as_deref(), Some("/i/k"));
        // A syntax error before any duplicate.
        let e = parse(br#"{"a":[1,,2],"a":1}"#).unwrap_err();
        assert_eq!(e.reason, Reason::MalformedJson);
        assert_eq!(e.pointer.as_deref(), Some("/a/1"));
    }

    #[test]
    fn non_finite_numbers_are_refused_where_they_are() {
        let e = parse(br#"{"v":[1,2,1e400]}"#).unwrap_err();
        assert_eq!(e.reason, Reason::NotFinite);
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
            assert_eq!(e.reason, Reason::MalformedJson, "{bad:?}");
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
        assert_eq!(e.reason, Reason::DuplicateField);
        assert_eq!(e.pointer.as_deref(), Some("/k0"));
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(100), "]".repeat(100));
        let e = parse(deep.as_bytes()).unwrap_err();
        assert_eq!(e.reason, Reason::MalformedJson);
        // 64 levels below the top-level object are fine.
        let ok = format!("{{\"a\":{}1{}}}", "[".repeat(63), "]".repeat(63));
        parse(ok.as_bytes()).unwrap();
        let over = format!("{{\"a\":{}1{}}}", "[".repeat(64), "]".repeat(64));
        assert!(parse(over.as_bytes()).is_err());
    }
}
