//! The world document and its state hash.
//!
//! `state_hash` is SHA-256 over the RFC 8785 (JCS) canonical form of the `world` object, so any
//! JCS implementation can recompute it. It covers `native_checkpoint`: nothing is cached or
//! left out.

use crate::checkpoint::json::{obj, Value};
use crate::checkpoint::Profile;
use crate::native::Public;
use sha2::{Digest, Sha256};

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

pub struct WorldParts<'a> {
    pub name: &'a str,
    pub profile: Profile,
    pub tick: u64,
    pub public: &'a Public,
    pub seed: u64,
    pub declared: Option<&'a Value>,
    pub checkpoint: Value,
}

/// What a profile promises, said in the world document itself.
fn continuation(profile: Profile) -> &'static str {
    match profile {
        Profile::Integration => "complete_integration_state",
        Profile::Basic => "public_fields_only_no_exact_continuation",
    }
}

/// The served bytes of the world document: `{"world": {...}, "state_hash": "sha256:<hex>"}`.
pub fn document(parts: WorldParts) -> String {
    let p = parts.public;
    let world = obj([
        ("name", parts.name.into()),
        ("profile", parts.profile.name().into()),
        ("checkpoint_scope", continuation(parts.profile).into()),
        ("tick", parts.tick.into()),
        ("time", p.time.into()),
        ("qpos", Value::from(&p.qpos[..])),
        ("qvel", Value::from(&p.qvel[..])),
        ("ctrl", Value::from(&p.ctrl[..])),
        ("act", Value::from(&p.act[..])),
        ("seed", parts.seed.into()),
        (
            "determinism",
            obj([
                ("derived", "none".into()),
                ("declared", parts.declared.cloned().unwrap_or(Value::Null)),
            ]),
        ),
        ("native_checkpoint", parts.checkpoint),
    ]);
    let hash = state_hash(&world);
    let mut out = String::with_capacity(4096);
    out.push_str("{\"world\":");
    out.push_str(&world.to_json());
    out.push_str(",\"state_hash\":\"");
    out.push_str(&hash);
    out.push_str("\"}");
    out
}

/// `sha256:<hex>` of the JCS form of a world object.
pub fn state_hash(world: &Value) -> String {
    let digest = Sha256::digest(world.to_canonical().as_bytes());
    let mut s = String::from("sha256:");
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}
