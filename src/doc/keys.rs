//! What the strict reader keeps of where it is, as plain data: the path of keys and indices
//! (keys as byte ranges of the document, decoded only for a refusal), the key spans of the
//! open objects, and comparing and decoding raw key texts (escapes decoded). It reads nothing
//! itself: [`super::read`] and [`super::pointer`] hold the reader that fills it.

#[derive(Clone, Copy)]
pub(super) enum Seg {
    /// A key, as the byte range of its raw text between the quotes.
    Key(u32, u32),
    Index(usize),
}

/// A key of an open object: where its raw text starts (after the opening quote). Four
/// bytes, the reader's one cost per key it keeps: its end, and whether it holds escapes, are
/// found again in the validated text when a comparison needs them.
#[derive(Clone, Copy)]
pub(super) struct KeySpan(u32);

impl KeySpan {
    pub(super) fn new(start: usize) -> KeySpan {
        KeySpan(start as u32)
    }

    pub(super) fn start(self) -> u32 {
        self.0
    }

    /// The end of the raw text (its closing quote) and whether the text holds escapes.
    pub(super) fn end(self, s: &str) -> (u32, bool) {
        let b = s.as_bytes();
        let (mut i, mut escaped) = (self.0 as usize, false);
        while b[i] != b'"' {
            if b[i] == b'\\' {
                escaped = true;
                i += 1;
            }
            i += 1;
        }
        (i as u32, escaped)
    }
}

/// Compare two raw key texts by their decoded characters.
fn key_cmp(s: &str, a: KeySpan, b: KeySpan) -> std::cmp::Ordering {
    let ((ea, xa), (eb, xb)) = (a.end(s), b.end(s));
    let ra = &s.as_bytes()[a.start() as usize..ea as usize];
    let rb = &s.as_bytes()[b.start() as usize..eb as usize];
    if !xa && !xb {
        // Keys are short: a loop beats a `memcmp` call per comparison.
        for (x, y) in ra.iter().zip(rb) {
            if x != y {
                return x.cmp(y);
            }
        }
        return ra.len().cmp(&rb.len());
    }
    let (ra, rb) = (
        &s[a.start() as usize..ea as usize],
        &s[b.start() as usize..eb as usize],
    );
    decode_chars(ra).cmp(decode_chars(rb))
}

/// Sort one object's key spans by content and return the later occurrence of the duplicate
/// whose later occurrence comes first in the document, if any.
pub(super) fn duplicate_in(s: &str, keys: &mut [KeySpan]) -> Option<KeySpan> {
    if keys.len() < 2 {
        return None;
    }
    // Equal keys end up adjacent, in document order (ties broken by position; sorting in
    // place allocates nothing).
    keys.sort_unstable_by(|a, b| key_cmp(s, *a, *b).then(a.start().cmp(&b.start())));
    let mut best: Option<KeySpan> = None;
    for w in keys.windows(2) {
        if key_cmp(s, w[0], w[1]).is_eq() && best.is_none_or(|b| w[1].start() < b.start()) {
            best = Some(w[1]);
        }
    }
    best
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
