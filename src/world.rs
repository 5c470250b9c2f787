//! The world document and its state hash.
//!
//! `state_hash` is SHA-256 over the RFC 8785 (JCS) canonical form of the `world` object, so any
//! JCS implementation can recompute it. It covers `native_checkpoint`: nothing is cached or
//! left out. The document is printed once; the hash streams the canonical bytes through
//! SHA-256, reusing the printed numbers (see [`crate::checkpoint::write`]).

use crate::checkpoint::json::Value;
use crate::checkpoint::write::{self, Canon, Piece, Writer};
use crate::checkpoint::{self, Facts, Profile};
use crate::native::Public;
use crate::outcome::Refusal;

/// The fields a world write may carry, and the ones it must refuse as read-only.
pub const WRITABLE_FIELDS: &[&str] = &["ctrl"];
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
}

/// `sha256:<hex>` of the JCS canonical form of a JSON value (given as its canonical text).
pub fn hash_of_canonical(canonical: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(canonical.as_bytes());
    let mut s = String::from("sha256:");
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Read a world document `{"world": {...}, "state_hash": "..."}` and recompute its hash:
/// returns `(stored, recomputed)` (either may be absent when the field is).
pub fn recompute_hash(bytes: &[u8]) -> Result<(Option<String>, Option<String>), Refusal> {
    let mut r = crate::checkpoint::read::Reader::new(bytes)?;
    let (mut stored, mut recomputed) = (None, None);
    r.object(|r, key| {
        match key {
            "world" => {
                let mut c = String::new();
                r.canonical(&mut c)?;
                recomputed = Some(hash_of_canonical(&c));
            }
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
    let numbers = parts.state.map_or(0, <[f64]>::len)
        + 2 * (p.qpos.len() + p.qvel.len())
        + p.ctrl.len()
        + p.act.len();
    let mut w = Writer::reusing(out);
    w.text.reserve(numbers.min(64) + 256);
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
        let mut piece = None;
        w.field(name, |w| {
            let c = w.numbers(xs);
            piece = Some(Piece::inside(&c));
            c
        });
        match name {
            "qpos" => printed.qpos = piece,
            "qvel" => printed.qvel = piece,
            "ctrl" => printed.ctrl = piece,
            _ => printed.act = piece,
        }
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
