//! Plans: the text of a document that stays the same from call to call (keys, names, the
//! descriptor, punctuation), in its served order and in its canonical (JCS) order, made once
//! from one written document and its description. A later call copies those pieces, prints
//! only the values that change, and streams the canonical form from the same pieces: no key
//! is printed, sorted or described again. The world document keeps one per model
//! configuration (`crate::world`).

use super::jcs::{self, Canon, Sink};
use super::write::{Piece, Writer};
use std::ops::Range;

/// One step of writing a planned document.
#[derive(Clone, Debug, PartialEq)]
enum Op {
    /// Text of the plan's own, copied as it is.
    Static(Range<usize>),
    /// The value at this index (in served order) of the values that change.
    Value(usize),
}

#[derive(Debug)]
pub(crate) struct Plan {
    text: String,
    served: Vec<Op>,
    canonical: Vec<Op>,
    values: usize,
}

/// Gathers a plan's canonical pieces: a [`Sink`] for the static text, cut where a value is.
struct Cutter {
    text: String,
    ops: Vec<Op>,
    from: usize,
}

impl Sink for Cutter {
    fn put(&mut self, s: &str) {
        self.text.push_str(s);
    }
}

impl Cutter {
    fn cut(&mut self, op: Option<Op>) {
        if self.text.len() > self.from {
            self.ops.push(Op::Static(self.from..self.text.len()));
        }
        self.from = self.text.len();
        self.ops.extend(op);
    }
}

impl Plan {
    /// The plan of a document written as `served[..end]`, whose canonical part is described by
    /// `canon` (its ranges index `served`), and whose changing values are the served ranges
    /// `values` (in served order, each a whole value that `canon` describes as served).
    /// `None` when a value is not where the description has one.
    pub(crate) fn of(
        served: &str,
        end: usize,
        canon: &Canon,
        values: &[Range<usize>],
    ) -> Option<Plan> {
        let mut c = Cutter {
            text: String::new(),
            ops: Vec::new(),
            from: 0,
        };
        let mut claimed = 0;
        jcs::described_with(served, canon, &mut c, &mut |v, c: &mut Cutter| match v {
            Canon::Served { range, .. } => match values.iter().position(|r| r == range) {
                Some(i) => {
                    claimed += 1;
                    c.cut(Some(Op::Value(i)));
                    true
                }
                None => false,
            },
            _ => false,
        });
        c.cut(None);
        if claimed != values.len() {
            return None;
        }
        let canonical = std::mem::take(&mut c.ops);
        let mut at = 0;
        for (i, r) in values.iter().enumerate() {
            if r.start < at || r.end > end {
                return None;
            }
            c.text.push_str(&served[at..r.start]);
            c.cut(Some(Op::Value(i)));
            at = r.end;
        }
        c.text.push_str(&served[at..end]);
        c.cut(None);
        Some(Plan {
            text: c.text,
            served: c.ops,
            canonical,
            values: values.len(),
        })
    }

    /// Write the served text into `w`: the plan's pieces, and each value by `value(w, i)` in
    /// served order, which returns where it wrote it. Returns those pieces.
    pub(crate) fn write(
        &self,
        w: &mut Writer,
        mut value: impl FnMut(&mut Writer, usize) -> Piece,
    ) -> Vec<Piece> {
        let mut pieces = Vec::with_capacity(self.values);
        for op in &self.served {
            match op {
                Op::Static(r) => w.text.push_str(&self.text[r.clone()]),
                Op::Value(i) => {
                    debug_assert_eq!(*i, pieces.len());
                    pieces.push(value(w, *i));
                }
            }
        }
        pieces
    }

    /// Stream the canonical form of a document this plan wrote (`served`, `pieces`).
    pub(crate) fn canonical<S: Sink>(&self, served: &str, pieces: &[Piece], sink: &mut S) {
        for op in &self.canonical {
            match op {
                Op::Static(r) => sink.put(&self.text[r.clone()]),
                Op::Value(i) => {
                    let p = &pieces[*i];
                    let canon = Canon::Served {
                        range: p.range.clone(),
                        negative_zero: p.negative_zero,
                    };
                    jcs::described(served, &canon, sink);
                }
            }
        }
    }
}
