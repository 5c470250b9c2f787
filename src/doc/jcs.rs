//! The one RFC 8785 (JCS) canonicalizer: canonical bytes streamed into a [`Sink`] (SHA-256 for
//! a state hash, a string otherwise), never built as a tree.
//!
//! What JCS asks of a JSON value: object members sorted by their keys' UTF-16 code units,
//! numbers printed as ECMAScript prints their double (so `1.0` is `1`, `-0` is `0`, an integer
//! beyond 2^53 goes through its double), strings escaped minimally (`\"`, `\\`, the short
//! control escapes, `\u00xx` for other control characters), no whitespace.
//!
//! Three inputs, one set of rules:
//! - [`value`]: the text of a validated JSON value (a document as received);
//! - [`tree`]: a value whose objects' members were recorded (a [`Tree`]) during an
//!   earlier pass (a world document being restored: its objects sit at known places, so the
//!   hash pass reads each byte once);
//! - `described`: a document the bridge just wrote, through its `Canon` description
//!   (numbers already printed are reused, not printed again).

use super::print::{escape_char, needs_escape, write_f64, write_str};
use super::read::{decode_chars, Kind, Node, Reader, Tree};
use super::value::Value;
use super::MAX_DEPTH;
use crate::outcome::Refusal;
use sha2::{Digest, Sha256};
use std::cmp::Ordering;
use std::ops::Range;

/// How the canonical form of one value is obtained.
#[derive(Clone, Debug)]
pub(crate) enum Canon {
    /// The served bytes at this range are canonical as they are, except that a `-0` number
    /// token in them (when `negative_zero`) is canonically `0`.
    Served {
        range: Range<usize>,
        negative_zero: bool,
    },
    /// Canonical text that differs from the served text (or was never served).
    Text(String),
    /// An object: its members in served order.
    Object(Vec<(&'static str, Canon)>),
}

/// Where canonical bytes go.
pub trait Sink {
    fn put(&mut self, s: &str);
}

impl Sink for String {
    fn put(&mut self, s: &str) {
        self.push_str(s);
    }
}

impl Sink for Sha256 {
    fn put(&mut self, s: &str) {
        self.update(s.as_bytes());
    }
}

/// SHA-256 fed in runs: the many short pieces of a canonical form (keys, punctuation, small
/// numbers) are gathered here before they reach the hasher, whose every update costs more
/// than a copy; long pieces (arrays of numbers) go straight through.
pub struct Gathered {
    hash: Sha256,
    buf: [u8; GATHER],
    len: usize,
}

const GATHER: usize = 512;

impl Default for Gathered {
    fn default() -> Self {
        Gathered {
            hash: Sha256::new(),
            buf: [0; GATHER],
            len: 0,
        }
    }
}

impl Gathered {
    fn flush(&mut self) {
        self.hash.update(&self.buf[..self.len]);
        self.len = 0;
    }

    /// `sha256:<hex>` of everything put.
    pub fn digest_text(mut self) -> String {
        self.flush();
        digest_text(&self.hash.finalize())
    }
}

impl Sink for Gathered {
    #[inline]
    fn put(&mut self, s: &str) {
        let b = s.as_bytes();
        if self.len + b.len() > GATHER || b.len() >= GATHER / 4 {
            self.flush();
        }
        if b.len() >= GATHER / 4 {
            self.hash.update(b);
        } else {
            self.buf[self.len..self.len + b.len()].copy_from_slice(b);
            self.len += b.len();
        }
    }
}

/// JCS member order: keys compared by UTF-16 code units (byte order for ASCII keys, which
/// every key the bridge writes is).
pub fn key_order(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        // Short keys: a loop beats a `memcmp` call per comparison.
        for (x, y) in a.bytes().zip(b.bytes()) {
            if x != y {
                return x.cmp(&y);
            }
        }
        return a.len().cmp(&b.len());
    }
    a.encode_utf16().cmp(b.encode_utf16())
}

/// A member key, quoted and escaped, followed by `:`.
fn put_key<S: Sink>(key: &str, sink: &mut S, buf: &mut String) {
    if !needs_escape(key) {
        // Every key the bridge writes: no buffer, no copy.
        sink.put("\"");
        sink.put(key);
        sink.put("\":");
        return;
    }
    buf.clear();
    write_str(key, buf);
    buf.push(':');
    sink.put(buf);
}

/// The canonical form of one JSON value's text (validated earlier: a document's text, or a
/// span an earlier read returned). Arrays and scalars stream in one pass; an object's members
/// are found by their keys' positions, sorted, and each value visited again from its own.
///
/// Memory: 4 bytes per member of the objects open at once (one stack for every depth: the
/// text is never copied, re-read into a new reader or sorted as copies), plus a 4 KiB buffer
/// for strings with escapes, which stream through it.
pub fn value<S: Sink>(text: &str, sink: &mut S) -> Result<(), Refusal> {
    let mut r = Reader::for_value(text);
    next(&mut r, sink, &mut Scratch::default())
}

/// What the text canonicalizer reuses: the key positions of the open objects' members
/// (innermost last; the top bit marks a key that needs more than a byte comparison), and a
/// buffer for escaped text.
#[derive(Default)]
struct Scratch {
    members: Vec<u32>,
    buf: String,
    /// Objects open (arrays are on the reader's path): the depth stays bounded even on text
    /// no reader validated.
    objects: usize,
}

/// A key position's flag: the key holds an escape or a non-ASCII character.
const SLOW_KEY: u32 = 1 << 31;

/// Canonicalize the value at the reader's position.
fn next<S: Sink>(r: &mut Reader, sink: &mut S, c: &mut Scratch) -> Result<(), Refusal> {
    match r.kind()? {
        Kind::Object => object(r, sink, c)?,
        Kind::Array => {
            sink.put("[");
            r.array(|r, i| {
                if i > 0 {
                    sink.put(",");
                }
                next(r, sink, c)
            })?;
            sink.put("]");
        }
        Kind::String => {
            let (a, b) = r.span()?;
            put_string(&r.text()[a..b], sink, &mut c.buf);
        }
        Kind::Number => {
            c.buf.clear();
            write_f64(r.number()?.value, &mut c.buf, true);
            sink.put(&c.buf);
        }
        Kind::Bool => sink.put(if r.boolean()? { "true" } else { "false" }),
        Kind::Null => {
            r.null()?;
            sink.put("null");
        }
    }
    Ok(())
}

/// An object: its members' key positions gathered on the shared stack (values skipped),
/// sorted by key, then each member emitted from its key; the stack is cut back after.
fn object<S: Sink>(r: &mut Reader, sink: &mut S, c: &mut Scratch) -> Result<(), Refusal> {
    // An object at depth 64 is the deepest the strict reader admits (empty, then).
    if c.objects + r.path.len() > MAX_DEPTH {
        return Err(r.malformed(&format!("nesting deeper than {MAX_DEPTH}")));
    }
    c.objects += 1;
    let base = c.members.len();
    r.member_keys(|at, slow| {
        c.members.push(at as u32 | if slow { SLOW_KEY } else { 0 });
    })?;
    let end = r.offset();
    let text = r.text();
    c.members[base..].sort_unstable_by(|&a, &b| raw_key_order(text, a, b));
    sink.put("{");
    for k in base..c.members.len() {
        if k > base {
            sink.put(",");
        }
        let at = (c.members[k] & !SLOW_KEY) as usize;
        r.seek(at - 1);
        let (a, b) = r.member_key()?;
        put_string(&text[a - 1..b + 1], sink, &mut c.buf);
        sink.put(":");
        next(r, sink, c)?;
    }
    sink.put("}");
    c.members.truncate(base);
    c.objects -= 1;
    r.seek(end);
    Ok(())
}

/// The raw text of the key whose text starts at `at` (validated: it ends at the first quote
/// that is not escaped).
fn raw_key(text: &str, at: usize) -> &str {
    let b = text.as_bytes();
    let mut i = at;
    while b[i] != b'"' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    &text[at..i]
}

/// JCS member order of two key positions: raw bytes for plain ASCII keys, else UTF-16 code
/// units of the decoded keys (compared as they decode: nothing is allocated).
fn raw_key_order(text: &str, a: u32, b: u32) -> Ordering {
    let (ka, kb) = (
        raw_key(text, (a & !SLOW_KEY) as usize),
        raw_key(text, (b & !SLOW_KEY) as usize),
    );
    if (a | b) & SLOW_KEY == 0 {
        return key_order(ka, kb);
    }
    let units = |raw| {
        decode_chars(raw).flat_map(|ch: char| {
            let mut u = [0u16; 2];
            let n = ch.encode_utf16(&mut u).len();
            u.into_iter().take(n)
        })
    };
    units(ka).cmp(units(kb))
}

/// A string, canonical, from its raw text (quotes included): as it is when it has no escape
/// (the reader admits no control character or quote unescaped), else decoded and escaped
/// again through `buf` in runs of at most 4 KiB.
fn put_string<S: Sink>(quoted: &str, sink: &mut S, buf: &mut String) {
    if !quoted.contains('\\') {
        sink.put(quoted);
        return;
    }
    buf.clear();
    buf.push('"');
    for ch in decode_chars(&quoted[1..quoted.len() - 1]) {
        escape_char(ch, buf);
        if buf.len() >= 4096 {
            sink.put(buf);
            buf.clear();
        }
    }
    buf.push('"');
    sink.put(buf);
}

/// Emit the canonical form of `node` of a recorded [`Tree`] (`text` is what its spans index):
/// members in key order, leaves streamed from their spans, each byte visited once.
pub fn tree<S: Sink>(tree: &Tree, text: &str, node: Node, sink: &mut S) -> Result<(), Refusal> {
    tree_node(tree, text, node, sink, &mut Scratch::default())
}

fn tree_node<S: Sink>(
    tree: &Tree,
    text: &str,
    node: Node,
    sink: &mut S,
    c: &mut Scratch,
) -> Result<(), Refusal> {
    match node {
        Node::Leaf(a, b) => next(&mut Reader::for_value(&text[a..b]), sink, c),
        Node::Object(i) => {
            let mut members = tree.members(i).to_vec();
            if members.iter().all(|(k, _)| k.is_ascii()) {
                members.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            } else {
                members.sort_unstable_by(|a, b| key_order(a.0, b.0));
            }
            sink.put("{");
            for (k, (key, node)) in members.iter().enumerate() {
                if k > 0 {
                    sink.put(",");
                }
                put_key(key, sink, &mut c.buf);
                tree_node(tree, text, *node, sink, c)?;
            }
            sink.put("}");
            Ok(())
        }
    }
}

/// The canonical form of a small [`Value`] (a fidelity declaration).
pub fn of_value(v: &Value) -> String {
    let mut out = String::new();
    value(&v.to_json(), &mut out).expect("a printed value is valid JSON");
    out
}

/// Stream the canonical bytes of a document the bridge wrote: `canon` describes it, `served`
/// holds its text.
pub(crate) fn described<S: Sink>(served: &str, canon: &Canon, sink: &mut S) {
    described_with(served, canon, sink, &mut |_, _| false);
}

/// [`described`], except that a value `claim(value, sink)` takes (returns true for) is left
/// to it: how a plan (`crate::doc::plan`) finds the values that change between calls.
pub(crate) fn described_with<S: Sink>(
    served: &str,
    canon: &Canon,
    sink: &mut S,
    claim: &mut dyn FnMut(&Canon, &mut S) -> bool,
) {
    if claim(canon, sink) {
        return;
    }
    match canon {
        Canon::Served {
            range,
            negative_zero: false,
        } => sink.put(&served[range.clone()]),
        Canon::Served {
            range,
            negative_zero: true,
        } => without_negative_zero(&served[range.clone()], sink),
        Canon::Text(t) => sink.put(t),
        Canon::Object(members) => {
            let mut order: Vec<&(&'static str, Canon)> = members.iter().collect();
            if members.iter().all(|(k, _)| k.is_ascii()) {
                // Every key the bridge writes: byte order is UTF-16 order, checked once.
                order.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            } else {
                order.sort_unstable_by(|a, b| key_order(a.0, b.0));
            }
            sink.put("{");
            let mut buf = String::new();
            for (i, (k, v)) in order.into_iter().enumerate() {
                if i > 0 {
                    sink.put(",");
                }
                put_key(k, sink, &mut buf);
                described_with(served, v, sink, claim);
            }
            sink.put("}");
        }
    }
}

/// Served number text with every `-0` token written as `0` (the only difference JCS makes
/// for numbers the bridge printed). A `-0` token is `-0` followed by a delimiter or the end;
/// `-0.5` and `-0e1` are other numbers.
fn without_negative_zero<S: Sink>(text: &str, sink: &mut S) {
    let bytes = text.as_bytes();
    let mut from = 0;
    let mut i = 0;
    while i + 1 < bytes.len() {
        let at_token_start = i == 0 || matches!(bytes[i - 1], b'[' | b',' | b':');
        if at_token_start
            && bytes[i] == b'-'
            && bytes[i + 1] == b'0'
            && matches!(bytes.get(i + 2), None | Some(b',' | b']' | b'}'))
        {
            sink.put(&text[from..i]);
            from = i + 1; // drop the '-'
            i += 2;
        } else {
            i += 1;
        }
    }
    sink.put(&text[from..]);
}

/// `sha256:<hex>` of a SHA-256 digest: the form every hash the bridge serves takes.
pub fn digest_text(digest: &[u8]) -> String {
    let mut s = String::with_capacity(7 + 2 * digest.len());
    s.push_str("sha256:");
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for &b in digest {
        s.push(HEX[usize::from(b >> 4)] as char);
        s.push(HEX[usize::from(b & 15)] as char);
    }
    s
}

/// `sha256:<hex>` of the canonical form of a document the bridge wrote.
pub(crate) fn hash_described(served: &str, canon: &Canon) -> String {
    let mut h = Gathered::default();
    described(served, canon, &mut h);
    h.digest_text()
}

/// `sha256:<hex>` of the canonical form of a validated value's text.
pub fn hash_value(text: &str) -> Result<String, Refusal> {
    let mut h = Gathered::default();
    value(text, &mut h)?;
    Ok(h.digest_text())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canonical(text: &str) -> String {
        let mut out = String::new();
        value(text, &mut out).unwrap();
        out
    }

    #[test]
    fn canonical_form_sorts_keys_by_utf16_and_escapes_like_jcs() {
        assert_eq!(
            canonical(
                "{\"b\":[-0,1e21,0.5,1.0,1E2],\"a\":\"\\u0007\\u00e9\\n\",\"\u{20ac}\":1,\"\u{1f600}\":2}"
            ),
            "{\"a\":\"\\u0007\u{e9}\\n\",\"b\":[0,1e+21,0.5,1,100],\"\u{20ac}\":1,\"\u{1f600}\":2}"
        );
        // Nested objects sort at every depth; whitespace goes.
        assert_eq!(
            canonical("{ \"z\" : { \"b\" : 1 , \"a\" : [ true , null ] } , \"y\" : \"x\" }"),
            "{\"y\":\"x\",\"z\":{\"a\":[true,null],\"b\":1}}"
        );
    }

    #[test]
    fn keys_with_escapes_sort_by_their_decoded_utf16_units_at_every_depth() {
        // U+FF61 is after U+1F600's high surrogate in UTF-16 (0xFF61 > 0xD83D), before it in
        // code points; an escaped key sorts as the character it names.
        assert_eq!(
            canonical("[{\"\\ud83d\\ude00\":1,\"\u{ff61}\":2,\"\\u0062\":[{\"y\":0,\"x\":\"\\/\"}],\"a\":{}}]"),
            "[{\"a\":{},\"b\":[{\"x\":\"/\",\"y\":0}],\"\u{1f600}\":1,\"\u{ff61}\":2}]"
        );
        // Nested objects, each level emitted in order, none copied.
        let deep = format!(
            "{}{}",
            "{\"b\":0,\"a\":".repeat(40),
            "null".to_owned() + &"}".repeat(40)
        );
        let want = format!(
            "{}{}",
            "{\"a\":".repeat(40),
            "null".to_owned() + &",\"b\":0}".repeat(40)
        );
        assert_eq!(canonical(&deep), want);
    }

    #[test]
    fn nesting_is_bounded_on_text_no_reader_validated() {
        let ok = format!("{}{{}}{}", "{\"a\":".repeat(64), "}".repeat(64));
        assert_eq!(canonical(&ok), ok);
        let deep = format!("{}1{}", "{\"a\":[".repeat(40), "]}".repeat(40));
        assert!(value(&deep, &mut String::new()).is_err());
        let deeper = "{\"a\":".repeat(100_000);
        assert!(value(&deeper, &mut String::new()).is_err());
    }

    #[test]
    fn a_long_escaped_string_streams_in_runs() {
        let text = format!("{{\"s\":\"{}\"}}", "\\u0001\\n\\u00e9".repeat(5000));
        let want = format!("{{\"s\":\"{}\"}}", "\\u0001\\n\u{e9}".repeat(5000));
        assert_eq!(canonical(&text), want);
    }

    #[test]
    fn a_recorded_tree_emits_what_the_text_canonicalizer_emits() {
        let text = "{\"n\":\"w\",\"a\":[1.50,-0],\"o\":{\"y\":2,\"x\":\"\\u0041\"}}";
        let mut t = Tree::default();
        let root = t.object();
        t.member(root, "n", Node::Leaf(5, 8));
        t.member(root, "a", Node::Leaf(13, 22));
        let o = t.object();
        t.member(root, "o", o);
        t.member(o, "y", Node::Leaf(32, 33));
        t.member(o, "x", Node::Leaf(38, 46));
        let mut out = String::new();
        tree(&t, text, root, &mut out).unwrap();
        assert_eq!(out, canonical(text));
    }

    #[test]
    fn gathered_pieces_hash_as_one_run() {
        let pieces: Vec<String> = (0..400).map(|i| "x".repeat(i % 300)).collect();
        let mut g = Gathered::default();
        let mut whole = String::new();
        for p in &pieces {
            g.put(p);
            whole.push_str(p);
        }
        assert_eq!(
            g.digest_text(),
            digest_text(&Sha256::digest(whole.as_bytes()))
        );
    }

    #[test]
    fn served_negative_zeros_hash_as_zeros() {
        let mut out = String::new();
        without_negative_zero("[-0,-0.5,1,-0]", &mut out);
        assert_eq!(out, "[0,-0.5,1,0]");
    }
}
