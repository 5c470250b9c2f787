//! The world document and its state hash.
//!
//! `state_hash` is SHA-256 over the RFC 8785 (JCS) canonical form of the `world` object, so any
//! JCS implementation can recompute it. It covers `native_checkpoint`: nothing is cached or
//! left out. The document is printed once; the hash streams the canonical bytes through
//! SHA-256, reusing the printed numbers (see [`crate::checkpoint::write`]).

use crate::checkpoint::json::Value;
use crate::checkpoint::read::{Kind, Reader};
use crate::checkpoint::write::{self, Canon, Piece, Writer};
use crate::checkpoint::{self, Buffers, Checkpoint, Facts, Profile};
use crate::native::Public;
use crate::outcome::{Reason, Refusal};

/// The fields a world write may carry (the inputs of [`crate::inputs`]), and the ones it must
/// refuse as read-only.
pub const WRITABLE_FIELDS: &[&str] = &[
    "ctrl",
    "qfrc_applied",
    "xfrc_applied",
    "mocap_pos",
    "mocap_quat",
    "eq_active",
];
pub const READ_ONLY_FIELDS: &[&str] = &[
    "name",
    "profile",
    "tick",
    "time",
    "qpos",
    "qvel",
    "act",
    "seed",
    "determinism",
    "checkpoint_scope",
    "native_checkpoint",
];

/// What a profile promises, said in the world document itself.
pub fn continuation(profile: Profile) -> &'static str {
    match profile {
        Profile::Integration => "complete_integration_state",
        Profile::Basic => "public_fields_only_no_exact_continuation",
    }
}

pub struct WorldParts<'a> {
    pub name: &'a str,
    pub facts: &'a Facts<'a>,
    pub tick: u64,
    pub public: &'a Public,
    pub declared: Option<&'a Value>,
    /// The integration state vector (integration profile only).
    pub state: Option<&'a [f64]>,
    /// The served inputs beside `ctrl` (`qfrc_applied`, `xfrc_applied`, `mocap_pos`,
    /// `mocap_quat`, and `eq_active` where mjData has it), in that order.
    pub inputs: &'a [(&'static str, Vec<f64>)],
}

/// Read a world document `{"world": {...}, "state_hash": "..."}` and recompute its hash:
/// returns `(stored, recomputed)` (either may be absent when the field is).
pub fn recompute_hash(bytes: &[u8]) -> Result<(Option<String>, Option<String>), Refusal> {
    let mut r = crate::checkpoint::read::Reader::new(bytes)?;
    let (mut stored, mut recomputed) = (None, None);
    r.object(|r, key| {
        match key {
            "world" => recomputed = Some(canonical_hash(r.raw()?)?),
            "state_hash" if r.kind()? == crate::checkpoint::read::Kind::String => {
                stored = Some(r.string()?)
            }
            _ => r.skip()?,
        }
        Ok(())
    })?;
    r.finish()?;
    Ok((stored, recomputed))
}

/// The served bytes of the world document: `{"world": {...}, "state_hash": "sha256:<hex>"}`,
/// written into `out` (cleared first; pass a reused buffer).
pub fn write_document(parts: WorldParts, out: String) -> Result<String, Refusal> {
    let p = parts.public;
    let mut w = Writer::reusing(out);
    w.text.push_str("{\"world\":");
    let world_start = w.text.len();
    w.begin_object();
    w.str_field("name", parts.name);
    w.str_field("profile", parts.facts.profile.name());
    w.str_field("checkpoint_scope", continuation(parts.facts.profile));
    w.u64_field("tick", parts.tick);
    w.f64_field("time", p.time);
    // The public arrays are printed here once; the checkpoint below copies them.
    let mut printed = checkpoint::Printed::default();
    for (name, xs) in [
        ("qpos", &p.qpos),
        ("qvel", &p.qvel),
        ("ctrl", &p.ctrl),
        ("act", &p.act),
    ] {
        w.field(name, |w| {
            let c = w.numbers(xs);
            printed.add(name, Piece::inside(&c));
            c
        });
    }
    // The inputs are state segments too (same names): printed here, copied below.
    for (name, xs) in parts.inputs {
        w.field(name, |w| {
            let c = w.numbers(xs);
            printed.add(name, Piece::inside(&c));
            c
        });
    }
    w.u64_field("seed", parts.facts.seed);
    w.field("determinism", |w| {
        w.begin_object();
        w.str_field("derived", "none");
        w.value_field("declared", parts.declared.unwrap_or(&Value::Null));
        w.end_object()
    });
    let mut result = Ok(());
    w.field("native_checkpoint", |w| match parts.state {
        Some(state) => checkpoint::write_integration(w, parts.facts, state, parts.tick, &printed)
            .unwrap_or_else(|e| {
                result = Err(e);
                Canon::Text(String::new())
            }),
        None => checkpoint::write_basic(w, parts.facts, p, parts.tick, &printed),
    });
    result?;
    let world = w.end_object();
    let hash = write::state_hash(&w.text, &world);
    debug_assert!(world_start > 0);
    w.text.push_str(",\"state_hash\":\"");
    w.text.push_str(&hash);
    w.text.push_str("\"}");
    Ok(w.into_text())
}

/// What `mjb_restore` takes: a checkpoint document, or a world document (what `mjb_snapshot`
/// and `mjb_world_read` serve) whose `state_hash` must be the hash of its `world` and whose
/// `native_checkpoint` is then validated exactly as a checkpoint (refusals inside it point
/// below `/world/native_checkpoint`).
///
/// Memory stays within the documents' bound: objects may appear only where a world document
/// has them, with their own keys (checked before hashing), and the hash streams the canonical
/// form through SHA-256, revisiting each object's members in key order from their spans in
/// the input.
pub fn validate_restore(
    bytes: &[u8],
    f: &Facts,
    bufs: &mut Buffers,
) -> Result<Checkpoint, Refusal> {
    if !first_key_is_world(bytes)? {
        match checkpoint::validate(bytes, f, bufs) {
            Ok(c) => return Ok(c),
            // A world document whose members come in another order: only a refused
            // checkpoint pays for looking.
            Err(r) if !has_world_member(bytes) => return Err(r),
            Err(_) => {}
        }
    }
    // 1. The document: `world` (an object) and `state_hash` (a string), nothing else.
    let mut r = Reader::new(bytes)?;
    let mut unknown = None;
    let mut world: Option<Result<&str, Refusal>> = None;
    let mut stored: Option<Result<String, Refusal>> = None;
    r.object(|r, key| {
        match key {
            "world" => {
                world = Some(if r.kind()? == Kind::Object {
                    Ok(r.raw()?)
                } else {
                    let bad =
                        Refusal::rejected(Reason::MJB_REASON_WRONG_TYPE, "expected an object")
                            .at(r.pointer());
                    r.skip()?;
                    Err(bad)
                })
            }
            "state_hash" => {
                stored = Some(if r.kind()? == Kind::String {
                    Ok(r.string()?)
                } else {
                    let bad = Refusal::rejected(Reason::MJB_REASON_WRONG_TYPE, "expected a string")
                        .at(r.pointer());
                    r.skip()?;
                    Err(bad)
                })
            }
            _ => checkpoint::unknown_field(r, key, &mut unknown)?,
        }
        Ok(())
    })?;
    r.finish()?;
    if let Some(u) = unknown {
        return Err(u);
    }
    let world = world.ok_or_else(|| checkpoint::missing("", "world"))??;
    let stored = stored.ok_or_else(|| checkpoint::missing("", "state_hash"))??;
    // 2. The world's shape: objects only where a world document has them, with their own
    //    keys (so that hashing keeps a handful of members per object, whatever the input).
    let under_world = |mut e: Refusal| {
        e.pointer = Some(format!("/world{}", e.pointer.as_deref().unwrap_or("")));
        e
    };
    let mut r = Reader::new(world.as_bytes()).map_err(under_world)?;
    if let Some(bad) = check_shape(&mut r, Shape::World, f).map_err(under_world)? {
        return Err(under_world(bad));
    }
    // 3. The hash, recomputed over the JCS form of `world` as received.
    let recomputed = canonical_hash(world).map_err(under_world)?;
    if stored != recomputed {
        return Err(Refusal::rejected(
            Reason::MJB_REASON_STATE_HASH,
            format!(
                "state_hash {stored:?} is not the hash of this world ({recomputed}): the document was edited or corrupted"
            ),
        )
        .at("/state_hash"));
    }
    // 4. The checkpoint inside, read exactly as a checkpoint.
    let mut r = Reader::new(world.as_bytes()).map_err(under_world)?;
    let mut found = None;
    r.object(|r, key| match key {
        "native_checkpoint" => {
            found = Some(checkpoint::read_embedded(r, f, bufs)?);
            Ok(())
        }
        _ => r.skip(),
    })
    .map_err(under_world)?;
    match found {
        Some(c) => c.map_err(under_world),
        None => Err(checkpoint::missing("/world", "native_checkpoint")),
    }
}

/// Where a value sits in a world document, for [`check_shape`].
#[derive(Clone, Copy)]
enum Shape {
    World,
    Determinism,
    Declared,
    Checkpoint,
    Descriptor,
    /// Numbers, strings, booleans, null, and arrays of those: no object.
    Leaf,
}

/// Check that objects appear only where a world document has them, each with its own keys.
/// The outer error is a parse error; the inner one the first refusal.
fn check_shape(r: &mut Reader, at: Shape, f: &Facts) -> Result<Option<Refusal>, Refusal> {
    let keys: &[&str] = match at {
        Shape::World => &[],
        Shape::Determinism => &["derived", "declared"],
        Shape::Declared => &["claim", "scope", "evidence"],
        Shape::Checkpoint => f.profile.fields(),
        Shape::Descriptor => checkpoint::DESCRIPTOR_FIELDS,
        Shape::Leaf => &[],
    };
    match r.kind()? {
        Kind::Object if !matches!(at, Shape::Leaf) => {
            let mut bad = None;
            r.object(|r, key| {
                let known = match at {
                    Shape::World => {
                        READ_ONLY_FIELDS.contains(&key) || WRITABLE_FIELDS.contains(&key)
                    }
                    _ => keys.contains(&key),
                };
                if !known {
                    return checkpoint::unknown_field(r, key, &mut bad);
                }
                let inner = match (at, key) {
                    (Shape::World, "determinism") => Shape::Determinism,
                    (Shape::World, "native_checkpoint") => Shape::Checkpoint,
                    (Shape::Determinism, "declared") => Shape::Declared,
                    (Shape::Checkpoint, "descriptor") => Shape::Descriptor,
                    _ => Shape::Leaf,
                };
                if let Some(b) = check_shape(r, inner, f)? {
                    bad.get_or_insert(b);
                }
                Ok(())
            })?;
            Ok(bad)
        }
        Kind::Object => {
            let bad = Refusal::rejected(
                Reason::MJB_REASON_WRONG_TYPE,
                "a world document has no object here",
            )
            .at(r.pointer());
            r.skip()?;
            Ok(Some(bad))
        }
        Kind::Array => {
            let mut bad = None;
            r.array(|r, _| {
                if r.at_number() {
                    return r.number().map(drop);
                }
                if let Some(b) = check_shape(r, Shape::Leaf, f)? {
                    bad.get_or_insert(b);
                }
                Ok(())
            })?;
            Ok(bad)
        }
        _ => r.skip().map(|()| None),
    }
}

/// `sha256:<hex>` of the JCS canonical form of one validated JSON value, streamed.
fn canonical_hash(value: &str) -> Result<String, Refusal> {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    let mut buf = String::new();
    feed_canonical(&mut h, value, &mut buf)?;
    Ok(write::digest_text(&h.finalize()))
}

fn feed_canonical(h: &mut sha2::Sha256, value: &str, buf: &mut String) -> Result<(), Refusal> {
    use sha2::Digest;
    let mut r = Reader::for_value(value);
    match r.kind()? {
        Kind::Object => {
            let mut members: Vec<(String, &str)> = Vec::new();
            r.object(|r, key| {
                members.push((key.to_owned(), r.raw()?));
                Ok(())
            })?;
            members.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            h.update(b"{");
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    h.update(b",");
                }
                buf.clear();
                crate::checkpoint::json::write_str(k, buf);
                buf.push(':');
                h.update(buf.as_bytes());
                feed_canonical(h, v, buf)?;
            }
            h.update(b"}");
        }
        Kind::Array => {
            h.update(b"[");
            r.array(|r, i| {
                if i > 0 {
                    h.update(b",");
                }
                if r.at_number() {
                    buf.clear();
                    crate::checkpoint::json::write_f64(r.number()?.value, buf, true);
                    h.update(buf.as_bytes());
                    Ok(())
                } else {
                    let v = r.raw()?;
                    feed_canonical(h, v, buf)
                }
            })?;
            h.update(b"]");
        }
        _ => {
            buf.clear();
            r.canonical(buf)?;
            h.update(buf.as_bytes());
        }
    }
    Ok(())
}

/// A world document's members are `world` and `state_hash`; a checkpoint's never are. Only the
/// first key is looked at, so telling the two apart costs no pass over a checkpoint.
fn first_key_is_world(bytes: &[u8]) -> Result<bool, Refusal> {
    let mut r = Reader::new(bytes)?;
    let mut first = None;
    let stop = Refusal::rejected(Reason::MJB_REASON_NONE, "first key seen");
    let _ = r.object(|_, key| {
        first = Some(matches!(key, "world" | "state_hash"));
        Err(stop.clone())
    });
    Ok(first.unwrap_or(false))
}

/// Whether the top level has a `world` member (a full pass; false when the document does not
/// even parse).
fn has_world_member(bytes: &[u8]) -> bool {
    let Ok(mut r) = Reader::new(bytes) else {
        return false;
    };
    let mut world = false;
    let read = r.object(|r, key| {
        world |= key == "world";
        r.skip()
    });
    read.is_ok() && world
}
