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

use super::print::{needs_escape, write_f64, write_str};
use super::read::{decode_chars, Kind, Node, Reader, Tree};
use super::value::Value;
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
/// are collected as spans, sorted, and each visited again.
pub fn value<S: Sink>(text: &str, sink: &mut S) -> Result<(), Refusal> {
    let mut r = Reader::for_value(text);
    let mut buf = String::new();
    next(&mut r, sink, &mut buf)
}

/// Canonicalize the value at the reader's position.
fn next<S: Sink>(r: &mut Reader, sink: &mut S, buf: &mut String) -> Result<(), Refusal> {
    match r.kind()? {
        Kind::Object => {
            let mut members: Vec<(String, &str)> = Vec::new();
            r.object(|r, key| {
                members.push((key.to_owned(), r.raw()?));
                Ok(())
            })?;
            members.sort_by(|a, b| key_order(&a.0, &b.0));
            sink.put("{");
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    sink.put(",");
                }
                put_key(k, sink, buf);
                next(&mut Reader::for_value(v), sink, buf)?;
            }
            sink.put("}");
        }
        Kind::Array => {
            sink.put("[");
            r.array(|r, i| {
                if i > 0 {
                    sink.put(",");
                }
                next(r, sink, buf)
            })?;
            sink.put("]");
        }
        Kind::String => {
            let raw = r.raw()?;
            let inner = &raw[1..raw.len() - 1];
            if inner.contains('\\') {
                buf.clear();
                let decoded: String = decode_chars(inner).collect();
                write_str(&decoded, buf);
                sink.put(buf);
            } else {
                // No escape: the reader admits no control character or quote unescaped, so
                // the text is canonical as it is.
                sink.put(raw);
            }
        }
        Kind::Number => {
            buf.clear();
            write_f64(r.number()?.value, buf, true);
            sink.put(buf);
        }
        Kind::Bool => sink.put(if r.boolean()? { "true" } else { "false" }),
        Kind::Null => {
            r.null()?;
            sink.put("null");
        }
    }
    Ok(())
}

/// Emit the canonical form of `node` of a recorded [`Tree`] (`text` is what its spans index):
/// members in key order, leaves streamed from their spans, each byte visited once.
pub fn tree<S: Sink>(tree: &Tree, text: &str, node: Node, sink: &mut S) -> Result<(), Refusal> {
    let mut buf = String::new();
    tree_node(tree, text, node, sink, &mut buf)
}

fn tree_node<S: Sink>(
    tree: &Tree,
    text: &str,
    node: Node,
    sink: &mut S,
    buf: &mut String,
) -> Result<(), Refusal> {
    match node {
        Node::Leaf(a, b) => next(&mut Reader::for_value(&text[a..b]), sink, buf),
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
                put_key(key, sink, buf);
                tree_node(tree, text, *node, sink, buf)?;
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
    let mut h = Sha256::new();
    value(text, &mut h)?;
    Ok(digest_text(&h.finalize()))
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
