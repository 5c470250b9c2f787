//! Printing checkpoint documents, once, straight into the output (a checkpoint read, or the
//! `native_checkpoint` of a world document, which then copies the arrays it printed already).

use super::{Facts, Profile, MAX_VALUES};
use crate::doc::jcs::Canon;
use crate::doc::write::{Piece, Writer};
use crate::native::{Layout, Public};
use crate::outcome::{Reason, Refusal};

pub(crate) fn write_descriptor(w: &mut Writer, f: &Facts) -> Canon {
    w.begin_object();
    for (k, v) in f.dims.named() {
        w.i64_field(k, v);
    }
    w.f64_field("timestep", f.dims.timestep);
    w.u64_field("configuration", f.configuration);
    w.end_object()
}

fn too_many(n: usize) -> Refusal {
    Refusal::rejected(
        Reason::TooManyValues,
        format!("this model's integration state has {n} values; a checkpoint holds at most {MAX_VALUES}"),
    )
}

/// Arrays a world document printed before its checkpoint (the public fields and the inputs,
/// named as their state segments), to be copied into the checkpoint instead of printed again.
#[derive(Default)]
pub(crate) struct Printed(Vec<(&'static str, Piece)>);

impl Printed {
    pub(crate) fn add(&mut self, segment: &'static str, piece: Piece) {
        self.0.push((segment, piece));
    }

    pub(crate) fn get(&self, segment: &str) -> Option<&Piece> {
        self.0.iter().find(|(n, _)| *n == segment).map(|(_, p)| p)
    }
}

/// Write the integration checkpoint for a state vector read under the native lock; returns
/// its canonical description (for a state hash over a document that embeds it). Every
/// number is printed once: `values` segment by segment (copying what `printed` already
/// holds), then `qpos`, `qvel`, `ctrl` as copies of their segments.
pub(crate) fn write_integration(
    w: &mut Writer,
    f: &Facts,
    values: &[f64],
    tick: u64,
    printed: &Printed,
) -> Result<Canon, Refusal> {
    let layout = f.layout.expect("integration profile has a layout");
    if values.len() > MAX_VALUES {
        return Err(too_many(values.len()));
    }
    w.begin_object();
    w.str_field("profile", Profile::Integration.name());
    w.str_field("engine", &f.engine.version_string);
    w.i64_field("engine_version", i64::from(f.engine.runtime_version));
    w.field("descriptor", |w| write_descriptor(w, f));
    w.u64_field("signature", u64::from(layout.sig));
    w.u64_field("size", layout.size as u64);
    // Where qpos, qvel and ctrl sit in `values`, to copy them below.
    let mut copies = Default::default();
    w.field("values", |w| {
        let (canon, pieces) = write_values(w, layout, values, printed);
        copies = pieces;
        canon
    });
    w.u64_field("tick", tick);
    w.u64_field("seed", f.seed);
    w.f64_field("time", values[layout.range("time")][0]);
    for (name, piece) in COPIED.iter().zip(&copies) {
        w.field(name, |w| w.copied_array(piece));
    }
    Ok(w.end_object())
}

/// The public fields an integration checkpoint copies from its `values`, in order.
pub(crate) const COPIED: [&str; 3] = ["qpos", "qvel", "ctrl"];

/// The `values` array of an integration checkpoint, segment by segment (copying what
/// `printed` already holds); returns its canonical description and where the segments of
/// [`COPIED`] sit in it.
pub(crate) fn write_values(
    w: &mut Writer,
    layout: &Layout,
    values: &[f64],
    printed: &Printed,
) -> (Canon, [Piece; 3]) {
    let mut copies: [Piece; 3] = Default::default();
    let start = w.text.len();
    w.text.push('[');
    let mut negative_zero = false;
    let mut first = true;
    for seg in &layout.segments {
        if seg.len == 0 {
            continue;
        }
        let piece = match printed.get(&seg.name) {
            Some(p) => {
                w.copy_bare(p, first);
                let end = w.text.len();
                Piece {
                    range: end - p.range.len()..end,
                    negative_zero: p.negative_zero,
                }
            }
            None => {
                let from = w.text.len() + usize::from(!first);
                let nz = w.bare_numbers(&values[seg.offset..seg.offset + seg.len], first);
                Piece {
                    range: from..w.text.len(),
                    negative_zero: nz,
                }
            }
        };
        negative_zero |= piece.negative_zero;
        if let Some(k) = COPIED.iter().position(|n| *n == seg.name) {
            copies[k] = piece;
        }
        first = false;
    }
    w.text.push(']');
    let canon = Canon::Served {
        range: start..w.text.len(),
        negative_zero,
    };
    (canon, copies)
}

/// Write the basic checkpoint for public fields read under the native lock (copying the
/// arrays a world document printed already).
pub(crate) fn write_basic(
    w: &mut Writer,
    f: &Facts,
    p: &Public,
    tick: u64,
    printed: &Printed,
) -> Canon {
    w.begin_object();
    w.str_field("profile", Profile::Basic.name());
    w.str_field("engine", &f.engine.version_string);
    w.i64_field("engine_version", i64::from(f.engine.runtime_version));
    w.field("descriptor", |w| write_descriptor(w, f));
    w.u64_field("tick", tick);
    w.u64_field("seed", f.seed);
    w.f64_field("time", p.time);
    for (name, xs) in [
        ("qpos", &p.qpos),
        ("qvel", &p.qvel),
        ("ctrl", &p.ctrl),
        ("act", &p.act),
    ] {
        match printed.get(name) {
            Some(piece) => w.field(name, |w| w.copied_array(piece)),
            None => w.f64s_field(name, xs),
        }
    }
    w.end_object()
}

/// Bytes a checkpoint of `values` numbers is likely to take (to size output buffers once).
pub(crate) fn estimated_bytes(numbers: usize) -> usize {
    512 + numbers * 25
}
