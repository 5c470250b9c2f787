//! The world document: its schema (which fields are served, which a world write may carry),
//! writing it with its state hash, restoring from it, and world writes.
//!
//! `state_hash` is SHA-256 over the RFC 8785 (JCS) canonical form of the `world` object, so any
//! JCS implementation can recompute it. It covers `native_checkpoint`: nothing is cached or
//! left out. The document is printed once; the hash streams the canonical bytes through
//! SHA-256, reusing the printed numbers (`crate::doc::jcs::described`).

use crate::checkpoint::{self, Buffers, Checkpoint, Embedded, Facts, Profile};
use crate::doc::jcs;
use crate::doc::jcs::Canon;
use crate::doc::plan::Plan;
use crate::doc::schema::{self, missing, read_numbers, read_string, Slot};
use crate::doc::write::{Piece, Writer};
use crate::doc::{pointer_push, Kind, Reader, Text};
use crate::inputs::{self, Input};
use crate::native::fields::Field;
use crate::native::{Dims, Public};
use crate::outcome::{Reason, Refusal};
use sha2::{Digest, Sha256};

/// The fields a world write may carry (the inputs of `crate::inputs`), and the ones it must
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
    "model_fingerprint",
    "determinism",
    "checkpoint_scope",
    "native_checkpoint",
];

/// The arrays a world document serves, in order (the public fields, then the inputs beside
/// `ctrl`); each is also a segment of the integration state under the same name.
pub(crate) const ARRAYS: [&str; 9] = [
    "qpos",
    "qvel",
    "ctrl",
    "act",
    "qfrc_applied",
    "xfrc_applied",
    "mocap_pos",
    "mocap_quat",
    "eq_active",
];

/// What a profile promises, said in the world document itself.
pub fn continuation(profile: Profile) -> &'static str {
    match profile {
        Profile::Integration => "complete_integration_state",
        Profile::Basic => "public_fields_only_no_exact_continuation",
    }
}

pub(crate) struct WorldParts<'a> {
    pub name: &'a str,
    pub facts: &'a Facts<'a>,
    pub tick: u64,
    pub time: f64,
    /// The served arrays, in order: `qpos`, `qvel`, `ctrl`, `act`, then the inputs beside
    /// `ctrl` (`qfrc_applied`, `xfrc_applied`, `mocap_pos`, `mocap_quat`, and `eq_active`
    /// where mjData has it). Each is a segment of the integration state under its name, so
    /// the checkpoint copies what was printed here.
    pub arrays: &'a [(&'static str, &'a [f64])],
    /// The fidelity declaration: served and canonical text (`null` when there is none).
    pub declared: (&'a str, &'a str),
    /// What the checkpoint holds: the integration state vector, or the public fields.
    pub checkpoint: Held<'a>,
}

/// The state a world document's checkpoint prints.
#[derive(Clone, Copy)]
pub(crate) enum Held<'a> {
    State(&'a [f64]),
    Public(&'a Public),
}

/// Read a world document `{"world": {...}, "state_hash": "..."}` and recompute its hash:
/// returns `(stored, recomputed)` (either may be absent when the field is).
pub fn recompute_hash(bytes: &[u8]) -> Result<(Option<String>, Option<String>), Refusal> {
    let mut r = Reader::new(Text::new(bytes)?)?;
    let (mut stored, mut recomputed) = (None, None);
    r.object(|r, key| {
        match key {
            "world" => recomputed = Some(jcs::hash_value(r.raw()?)?),
            "state_hash" if r.kind()? == Kind::String => stored = Some(r.string()?),
            _ => r.skip()?,
        }
        Ok(())
    })?;
    r.finish()?;
    Ok((stored, recomputed))
}

/// The served bytes of the world document: `{"world": {...}, "state_hash": "sha256:<hex>"}`,
/// written into `out` (cleared first; pass a reused buffer).
///
/// `plan` is the document's static text for this endpoint and model configuration (made by
/// the first call, kept by the caller): with it, a call prints only what changes (the tick,
/// the time, the arrays) and hashes the canonical form from the same pieces.
pub(crate) fn write_document(
    parts: WorldParts,
    out: String,
    plan: &mut Option<WorldPlan>,
) -> Result<String, Refusal> {
    // JCS canonicalizes an integer beyond 2^53 through its double: not as served.
    let planned = parts.tick <= 1 << 53;
    if let Some(p) = plan.as_ref().filter(|p| planned && p.fits(&parts)) {
        let text = p.write(&parts, out);
        #[cfg(debug_assertions)]
        {
            let (unplanned, world, end) = write_described(&parts, String::new())?;
            debug_assert_eq!(
                text,
                with_hash(unplanned, &world, end),
                "the plan writes the same"
            );
        }
        return Ok(text);
    }
    let (text, world, end) = write_described(&parts, out)?;
    if planned {
        *plan = WorldPlan::of(&parts, &text, &world, end);
    }
    Ok(with_hash(text, &world, end))
}

/// The world document written member by member, with its canonical description; returns the
/// text up to the end of `world` (the hash not yet appended), the description, and that end.
fn write_described(parts: &WorldParts, out: String) -> Result<(String, Canon, usize), Refusal> {
    let mut w = Writer::reusing(out);
    w.text.push_str("{\"world\":");
    w.begin_object();
    w.str_field("name", parts.name);
    w.str_field("profile", parts.facts.profile.name());
    w.str_field("checkpoint_scope", continuation(parts.facts.profile));
    w.u64_field("tick", parts.tick);
    w.f64_field("time", parts.time);
    // The arrays are printed here once; the checkpoint below copies them.
    let mut printed = checkpoint::Printed::default();
    for &(name, xs) in parts.arrays {
        w.field(name, |w| {
            let c = w.numbers(xs);
            printed.add(name, Piece::inside(&c));
            c
        });
    }
    w.u64_field("seed", parts.facts.seed);
    w.str_field("model_fingerprint", parts.facts.fingerprint);
    w.field("determinism", |w| {
        w.begin_object();
        w.str_field("derived", "none");
        w.raw_field("declared", parts.declared.0, parts.declared.1);
        w.end_object()
    });
    let mut result = Ok(());
    w.field("native_checkpoint", |w| match parts.checkpoint {
        Held::State(state) => {
            checkpoint::write_integration(w, parts.facts, state, parts.tick, &printed)
                .unwrap_or_else(|e| {
                    result = Err(e);
                    Canon::Text(String::new())
                })
        }
        Held::Public(p) => checkpoint::write_basic(w, parts.facts, p, parts.tick, &printed),
    });
    result?;
    let world = w.end_object();
    let end = w.text.len();
    Ok((w.into_text(), world, end))
}

/// Append `,"state_hash":"sha256:<hex>"}` (the hash of the world described by `world`).
fn with_hash(mut text: String, world: &Canon, end: usize) -> String {
    let hash = jcs::hash_described(&text[..end], world);
    push_hash(&mut text, &hash);
    text
}

fn push_hash(text: &mut String, hash: &str) {
    text.push_str(",\"state_hash\":\"");
    text.push_str(hash);
    text.push_str("\"}");
}

/// A member of the world document that changes from call to call (everything else is the
/// same for an endpoint and its model configuration).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Changing {
    Tick,
    Time,
    /// `parts.arrays[i]`.
    Array(usize),
    /// The checkpoint's `values` (integration profile).
    Values,
    /// The checkpoint's public field `COPIED[i]` or, in the basic profile, the array named so.
    Copy(&'static str),
}

/// The world document's plan for one endpoint and model configuration (`doc::plan`), with
/// what it was made for.
#[derive(Debug)]
pub(crate) struct WorldPlan {
    plan: Plan,
    values: Vec<Changing>,
    configuration: u64,
    fingerprint: String,
    seed: u64,
    profile: Profile,
    name: String,
    declared: String,
    arrays: Vec<&'static str>,
}

impl WorldPlan {
    /// The plan of a document just written (`text[..end]`, described by `world`), or `None`
    /// when its members are not where a plan expects them.
    fn of(parts: &WorldParts, text: &str, world: &Canon, end: usize) -> Option<WorldPlan> {
        let Canon::Object(members) = world else {
            return None;
        };
        let mut found: Vec<(std::ops::Range<usize>, Changing)> = Vec::new();
        for (key, canon) in members {
            let changing = match *key {
                "tick" => Changing::Tick,
                "time" => Changing::Time,
                "native_checkpoint" => {
                    let Canon::Object(inner) = canon else {
                        return None;
                    };
                    for (key, canon) in inner {
                        let changing = match *key {
                            "tick" => Changing::Tick,
                            "time" => Changing::Time,
                            "values" => Changing::Values,
                            "qpos" | "qvel" | "ctrl" | "act" => Changing::Copy(key),
                            _ => continue,
                        };
                        found.push((served_range(canon)?, changing));
                    }
                    continue;
                }
                k => match parts.arrays.iter().position(|(n, _)| *n == k) {
                    Some(i) => Changing::Array(i),
                    None => continue,
                },
            };
            found.push((served_range(canon)?, changing));
        }
        found.sort_by_key(|(r, _)| r.start);
        let ranges: Vec<_> = found.iter().map(|(r, _)| r.clone()).collect();
        Some(WorldPlan {
            plan: Plan::of(text, end, world, &ranges)?,
            values: found.into_iter().map(|(_, c)| c).collect(),
            configuration: parts.facts.configuration,
            fingerprint: parts.facts.fingerprint.to_owned(),
            seed: parts.facts.seed,
            profile: parts.facts.profile,
            name: parts.name.to_owned(),
            declared: parts.declared.0.to_owned(),
            arrays: parts.arrays.iter().map(|(n, _)| *n).collect(),
        })
    }

    /// Whether these parts are the ones the plan was made for (their static text is the
    /// plan's).
    fn fits(&self, parts: &WorldParts) -> bool {
        self.configuration == parts.facts.configuration
            && self.fingerprint == parts.facts.fingerprint
            && self.seed == parts.facts.seed
            && self.profile == parts.facts.profile
            && self.name == parts.name
            && self.declared == parts.declared.0
            && self.arrays.len() == parts.arrays.len()
            && self
                .arrays
                .iter()
                .zip(parts.arrays)
                .all(|(a, (b, _))| a == b)
    }

    /// Write the document: the plan's text, the changing values printed (each number once,
    /// copied where the document repeats it), the hash from the plan's canonical pieces.
    fn write(&self, parts: &WorldParts, out: String) -> String {
        let mut w = Writer::reusing(out);
        let mut printed = checkpoint::Printed::default();
        let mut copies: [Piece; 3] = Default::default();
        let pieces = self.plan.write(&mut w, |w, i| match self.values[i] {
            Changing::Tick => Piece::whole(&w.integer(i128::from(parts.tick))),
            Changing::Time => Piece::whole(&w.number(parts.time)),
            Changing::Array(k) => {
                let (name, xs) = parts.arrays[k];
                let c = w.numbers(xs);
                printed.add(name, Piece::inside(&c));
                Piece::whole(&c)
            }
            Changing::Values => {
                let layout = parts
                    .facts
                    .layout
                    .expect("the integration profile has a layout");
                let Held::State(state) = parts.checkpoint else {
                    unreachable!("values are the integration profile's")
                };
                let (c, at) = checkpoint::write_values(w, layout, state, &printed);
                copies = at;
                Piece::whole(&c)
            }
            Changing::Copy(name) => {
                let at = match parts.checkpoint {
                    Held::State(_) => checkpoint::COPIED.iter().position(|n| *n == name),
                    Held::Public(_) => None,
                };
                match (at, printed.get(name), parts.checkpoint) {
                    (Some(k), _, _) => Piece::whole(&w.copied_array(&copies[k])),
                    (None, Some(p), _) => Piece::whole(&w.copied_array(p)),
                    (None, None, Held::Public(p)) => {
                        Piece::whole(&w.numbers(public_field(p, name)))
                    }
                    (None, None, Held::State(_)) => unreachable!("copied from values"),
                }
            }
        });
        let end = w.text.len();
        let mut h = jcs::Gathered::default();
        self.plan.canonical(&w.text[..end], &pieces, &mut h);
        let mut text = w.into_text();
        push_hash(&mut text, &h.digest_text());
        text
    }
}

/// A public field by name.
fn public_field<'a>(p: &'a Public, name: &str) -> &'a [f64] {
    match name {
        "qpos" => &p.qpos,
        "qvel" => &p.qvel,
        "ctrl" => &p.ctrl,
        _ => &p.act,
    }
}

/// The served range of a value the writer printed.
fn served_range(canon: &Canon) -> Option<std::ops::Range<usize>> {
    match canon {
        Canon::Served { range, .. } => Some(range.clone()),
        _ => None,
    }
}

/// What `mjb_restore` takes: a checkpoint document, or a world document (what `mjb_snapshot`
/// and `mjb_world_read` serve) whose `state_hash` must be the hash of its `world` and whose
/// `native_checkpoint` is then validated exactly as a checkpoint (refusals inside it point
/// below `/world/native_checkpoint`).
///
/// The document is parsed once. Its first key says which schema that pass reads it with
/// (a world document's members are `world` and `state_hash`, a checkpoint's never are):
/// - a checkpoint: one pass, numbers into `bufs`, then the judgement in the contract's order;
///   a refused one with a `world` member further on is refused as a world document (its first
///   key is a member a world document does not have);
/// - a world document: syntax, the document's members, the world's shape (objects only where
///   a world document has them, each with its own keys) and the embedded checkpoint read into
///   `bufs` (judged later), while the members of each object are recorded; then the state
///   hash from those records, each leaf's bytes read once (`jcs::tree`).
///
/// Refusals keep their order: a syntax error anywhere; the document's own members; the
/// world's shape; the state hash; the model's fingerprint; then the checkpoint's steps.
/// Memory stays within the documents' bound: only the schema's known members are recorded,
/// once each.
pub(crate) fn validate_restore(
    text: Text,
    f: &Facts,
    bufs: &mut Buffers,
) -> Result<Checkpoint, Refusal> {
    let mut r = Reader::new(text)?;
    let first = r.first_key();
    match first.as_deref() {
        Some(key) if DOCUMENT_KEYS.contains(&key) => validate_world(r, f, bufs),
        _ => {
            let mut world = false;
            let seen = |key: &str| world |= key == DOCUMENT_KEYS[0];
            let judged = checkpoint::validate_document(r, f, bufs, seen)?;
            match (judged, first) {
                (Err(_), Some(key)) if world => {
                    Err(schema::unknown_member(pointer_push("", &key), &key))
                }
                (judged, _) => judged,
            }
        }
    }
}

/// A world document's members (the key at 0 is the one a checkpoint is told from).
const DOCUMENT_KEYS: [&str; 2] = ["world", "state_hash"];

/// Where a checkpoint's `descriptor/configuration` is in the document it was read from: what
/// a restore points at when the model was replaced between validation and admission.
pub(crate) fn configuration_pointer(c: &Checkpoint) -> &'static str {
    if c.model_checked() {
        "/world/native_checkpoint/descriptor/configuration"
    } else {
        "/descriptor/configuration"
    }
}

/// A world document (the reader at its top-level object): its one pass, the state hash from
/// what the pass recorded, the model it names, then its checkpoint judged.
fn validate_world(mut r: Reader, f: &Facts, bufs: &mut Buffers) -> Result<Checkpoint, Refusal> {
    r.check_shape();
    r.record();
    let (at, members, stored) = read_document(&mut r, f, bufs)?;
    if let Some(bad) = r.shape_violation() {
        return Err(bad);
    }
    let rec = r.take_recorder().expect("recording");
    let root = rec.at(at).expect("the world object was recorded");
    let mut h = Sha256::new();
    jcs::tree(&rec.tree, r.text(), root, &mut h)?;
    let recomputed = jcs::digest_text(&h.finalize());
    if stored != recomputed {
        return Err(Refusal::rejected(
            Reason::StateHash,
            format!(
                "state_hash {stored:?} is not the hash of this world ({recomputed}): the document was edited or corrupted"
            ),
        )
        .at("/state_hash"));
    }
    // The model: a world document names it (a checkpoint cannot).
    let fingerprint = match members.fingerprint {
        Slot::Absent => return Err(missing("/world", "model_fingerprint")),
        s => s.get()?,
    };
    if fingerprint != f.fingerprint {
        return Err(Refusal::rejected(
            Reason::ModelFingerprint,
            format!(
                "taken on the model {fingerprint}; this endpoint's model is {} (another model, even if its dimensions are the same)",
                f.fingerprint
            ),
        )
        .at("/world/model_fingerprint"));
    }
    match members.checkpoint {
        Some(e) => e.judge(f, bufs).map(|mut c| {
            c.model_checked = true;
            c
        }),
        None => Err(missing("/world", "native_checkpoint")),
    }
}

/// The pass over a world document: syntax, its members and the world's (the checkpoint read,
/// not judged). Returns where the world object starts, what it holds, and the stored hash.
fn read_document(
    r: &mut Reader,
    f: &Facts,
    bufs: &mut Buffers,
) -> Result<(usize, FirstPass, String), Refusal> {
    let mut world: Option<Result<(usize, FirstPass), Refusal>> = None;
    let mut stored = Slot::Absent;
    let mut top = schema::object(r, &DOCUMENT_KEYS, |r, i| {
        match i {
            0 => {
                world = Some(match schema::expect(r, Kind::Object, "an object")? {
                    Some(bad) => Err(bad),
                    None => {
                        let at = r.pos();
                        Ok((at, read_world(r, f, bufs)?))
                    }
                })
            }
            _ => stored = read_string(r)?,
        }
        Ok(())
    })?;
    r.finish()?;
    top.refuse_unknown()?;
    let (at, members) = world.ok_or_else(|| missing("", "world"))??;
    if stored.is_absent() {
        return Err(missing("", "state_hash"));
    }
    Ok((at, members, stored.get()?))
}

/// What the first pass keeps of a world object: its checkpoint (read, judged later) and the
/// model it names.
struct FirstPass {
    checkpoint: Option<Embedded>,
    fingerprint: Slot<String>,
}

/// Every member a world may carry: what it serves and what a world write may carry.
fn world_keys() -> &'static [&'static str] {
    static KEYS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| {
        READ_ONLY_FIELDS
            .iter()
            .chain(WRITABLE_FIELDS)
            .copied()
            .collect()
    })
}

/// The world object at the reader's position (pass 1): its shape, its checkpoint read and the
/// model it names.
fn read_world(r: &mut Reader, f: &Facts, bufs: &mut Buffers) -> Result<FirstPass, Refusal> {
    let keys = world_keys();
    let mut embedded = None;
    let mut fingerprint = Slot::Absent;
    schema::object(r, keys, |r, i| match keys[i] {
        "native_checkpoint" => {
            embedded = Some(Embedded::read(r, f, bufs)?);
            Ok(())
        }
        "model_fingerprint" => {
            fingerprint = read_string(r)?;
            Ok(())
        }
        "determinism" => read_member_object(r, &["derived", "declared"], |r, i| {
            if i == 1 {
                read_member_object(r, &["claim", "scope", "evidence"], |r, _| r.skip_leaf())
            } else {
                r.skip_leaf()
            }
        }),
        _ => r.skip_leaf(),
    })?;
    Ok(FirstPass {
        checkpoint: embedded,
        fingerprint,
    })
}

/// A member that a world document holds as an object with these keys (anything else there is
/// a leaf: an object inside it is a shape violation).
fn read_member_object(
    r: &mut Reader,
    keys: &[&'static str],
    member: impl FnMut(&mut Reader, usize) -> Result<(), Refusal>,
) -> Result<(), Refusal> {
    if r.kind()? != Kind::Object {
        return r.skip_leaf();
    }
    schema::object(r, keys, member).map(drop)
}

// ---- world writes ---------------------------------------------------------------------------------

/// Inputs parsed from a partial world document, owning their values.
pub(crate) struct Write {
    pub items: Vec<(Field, Vec<f64>)>,
}

impl Write {
    pub(crate) fn inputs(&self) -> Vec<Input<'_>> {
        self.items
            .iter()
            .map(|(f, v)| Input {
                field: *f,
                id: None,
                values: v,
            })
            .collect()
    }
}

/// Parse and check `{"world": {<writable fields>}}` (whole arrays) against the dimensions, in
/// one streaming pass: parse errors first, then `state_hash` (read-only), unknown top-level
/// fields, a missing `world`, read-only or unknown world fields, then each input's values.
pub(crate) fn parse_write(text: Text, dims: &Dims) -> Result<Write, Refusal> {
    let mut r = Reader::new(text)?;
    let mut state_hash = false;
    let mut world: Option<Result<(), Refusal>> = None;
    let mut read_only = None;
    let mut world_unknown = None;
    let mut got: Vec<(Field, Slot<schema::Numbers>, Vec<f64>)> = Vec::new();
    let world_fields = world_keys();
    let mut top = schema::object(&mut r, &["state_hash", "world"], |r, i| {
        if i == 0 {
            state_hash = true;
            return r.skip();
        }
        if let Some(bad) = schema::expect(r, Kind::Object, "an object")? {
            world = Some(Err(bad));
            return Ok(());
        }
        world = Some(Ok(()));
        let mut m = schema::object(r, world_fields, |r, i| {
            let key = world_fields[i];
            if READ_ONLY_FIELDS.contains(&key) {
                if read_only.is_none() {
                    read_only = Some(
                        Refusal::rejected(
                            Reason::ReadOnlyField,
                            format!("world.{key} is read-only"),
                        )
                        .at(r.pointer()),
                    );
                }
                return r.skip();
            }
            let f = inputs::FIELDS
                .into_iter()
                .find(|f| f.name() == key)
                .expect("writable fields are the inputs");
            // Read at most one more than the model has: enough to refuse a wrong length,
            // never more memory than the model's own arrays.
            let mut buf = Vec::new();
            let n = read_numbers(r, &mut buf, f.len(dims) + 1)?;
            got.push((f, n, buf));
            Ok(())
        })?;
        world_unknown = m.unknown.take();
        Ok(())
    })?;
    r.finish()?;
    if state_hash {
        return Err(Refusal::rejected(
            Reason::ReadOnlyField,
            "state_hash is computed by the bridge",
        )
        .at("/state_hash"));
    }
    top.refuse_unknown()?;
    match world {
        None => return Err(missing("", "world")),
        Some(w) => w?,
    }
    if let Some(r) = read_only.or(world_unknown) {
        return Err(r);
    }
    let mut items = Vec::with_capacity(got.len());
    // Judged in the order the inputs are served, so that a refusal names the same field
    // whatever order the host wrote them in.
    got.sort_by_key(|(f, _, _)| inputs::FIELDS.iter().position(|g| g == f));
    for (f, n, values) in got {
        let p = pointer_push("/world", f.name());
        let count = n.get()?.strict()?;
        if count != values.len() {
            return Err(Refusal::rejected(
                Reason::Dimension,
                format!(
                    "{} has {count} values; the model has {}",
                    f.name(),
                    f.len(dims)
                ),
            )
            .at(p));
        }
        // Finite by construction: the reader refuses non-finite numbers.
        inputs::check(f as i32, -1, &values, dims, &p, true)?;
        items.push((f, values));
    }
    Ok(Write { items })
}

#[cfg(test)]
mod tests {
    use crate::doc::read::parses;
    use crate::endpoint::{Endpoint, WAIT_FOREVER};
    use crate::outcome::Reason;

    fn endpoint() -> Endpoint {
        let model = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/models/contact_act.xml");
        let config = format!("{{\"model\":{{\"xml_path\":{model:?}}},\"seed\":3}}");
        let ep = Endpoint::open(config.as_str()).expect("open");
        assert!(ep.step(7, WAIT_FOREVER).detail.is_none());
        ep
    }

    /// Validate `doc` and count the documents parsed to do it.
    fn parsed(ep: &Endpoint, doc: &str) -> (Option<Reason>, usize) {
        let before = parses();
        let reason = ep.validate_checkpoint(doc).err().map(|r| r.reason);
        (reason, parses() - before)
    }

    #[test]
    fn a_restore_parses_its_document_once_whether_it_is_refused_or_not() {
        let ep = endpoint();
        let cp = ep.checkpoint_read(WAIT_FOREVER).unwrap();
        let world = ep.world_read(WAIT_FOREVER).unwrap();
        let body = world.strip_prefix("{\"world\":").unwrap();
        let (inner, hash) = body.rsplit_once(",\"state_hash\":").unwrap();
        let cases = [
            (cp.clone(), None),
            (world.clone(), None),
            // A checkpoint refused at its last step (the seed).
            (
                cp.replacen("\"seed\":3", "\"seed\":4", 1),
                Some(Reason::Seed),
            ),
            // A world document whose hash no longer matches.
            (
                world.replacen("\"tick\":7", "\"tick\":8", 1),
                Some(Reason::StateHash),
            ),
            // A world document whose members come in another order (first key not `world`).
            (
                format!(
                    "{{\"state_hash\":{},\"world\":{inner}}}",
                    hash.trim_end_matches('}')
                ),
                None,
            ),
            // A checkpoint with a world member further on: refused as a world document.
            (
                cp.replacen('{', "{\"x\":1,\"world\":{},", 1),
                Some(Reason::UnknownField),
            ),
            (cp[..cp.len() / 2].to_owned(), Some(Reason::MalformedJson)),
        ];
        for (doc, want) in cases {
            assert_eq!(parsed(&ep, &doc), (want, 1), "{}", &doc[..60]);
        }
        assert_eq!(ep.tick(), 7, "validation changes nothing");
    }
}

#[cfg(test)]
mod plan_tests {
    use crate::endpoint::{Endpoint, WAIT_FOREVER};

    /// Every world read after the first is written from the plan; debug builds also write it
    /// member by member and compare (`write_document`), so this holds them byte-identical
    /// over steps, both profiles, and a `-0` in the served arrays.
    #[test]
    fn planned_world_documents_are_the_documents_written_member_by_member() {
        let model = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/models/contact_act.xml");
        for profile in ["mujoco_integration_v1", "mujoco_basic_v1"] {
            let config = format!(
                "{{\"model\":{{\"xml_path\":{model:?}}},\"profile\":\"{profile}\",\"name\":\"p\\u00e9\"}}"
            );
            let Ok(ep) = Endpoint::open(config.as_str()) else {
                assert_eq!(profile, "mujoco_integration_v1", "basic opens everywhere");
                continue;
            };
            assert!(ep.set_ctrl(&[-0.0, 0.25], WAIT_FOREVER).detail.is_none());
            for _ in 0..4 {
                let w = ep.world_read(WAIT_FOREVER).unwrap();
                assert!(ep.validate_checkpoint(w.as_str()).is_ok(), "{profile}");
                assert!(w.contains("\"ctrl\":[-0,0.25]"), "{w}");
                assert!(ep.step(3, WAIT_FOREVER).detail.is_none());
            }
        }
    }
}
