//! `reference.json` and `REFERENCE.md`: a package's public contract, generated from the live
//! endpoint.
//!
//! Every member but two is generated: `format`, `package`, `driver`, `engine`, `profile` (with
//! what it promises), `model` (entry file and the SHA-256 of every file the model loads),
//! `seed`, `descriptor`, `integration_state` (signature, size, segments; null for the basic
//! profile), `fields` (every world-document field and its access, from `world::WRITABLE_FIELDS`
//! / `world::READ_ONLY_FIELDS`), `checkpoint_limits`, `determinism`. The human-written
//! `attribution` and `review` are carried over from the existing file as the exact JSON text of
//! each member's value (its byte span, from the library's strict reader: `Reader::raw`), never
//! re-serialized; a package without them gets `{}` placeholders and a warning.

use crate::doc::{self, ValueExt};
use crate::files::{self, ModelFile};
use crate::manifest::{self, Manifest};
use crate::pretty::{self, MemberText};
use crate::say;
use crate::{progress, warn, Problem, Result};
use mjbridge::checkpoint::{self, Profile};
use mjbridge::doc::{self as json, obj, pointer_push, Value};
use mjbridge::endpoint::{Endpoint, WAIT_FOREVER};
use mjbridge::outcome::Reason;
use mjbridge::world;
use std::path::Path;

pub const REFERENCE: &str = "reference.json";
pub const REFERENCE_MD: &str = "REFERENCE.md";
pub const FORMAT: &str = "mjbridge-package-reference/1";

/// The generated members, in file order.
pub const GENERATED: &[&str] = &[
    "format",
    "package",
    "driver",
    "engine",
    "profile",
    "model",
    "seed",
    "descriptor",
    "integration_state",
    "fields",
    "checkpoint_limits",
    "determinism",
];
/// The human-written members, carried over byte for byte.
pub const HUMAN: &[&str] = &["attribution", "review"];
const PLACEHOLDER: &str = "{}";

/// A package whose model is loaded in an endpoint.
pub struct Loaded {
    pub manifest: Manifest,
    pub files: Vec<ModelFile>,
    pub endpoint: Endpoint,
}

/// Read `package.json`, find and hash the model's files, open an endpoint on the model.
pub fn load(dir: &Path) -> Result<Loaded> {
    progress::show("reading package.json and model files");
    let manifest = manifest::load(dir)?;
    let files = files::model_files(&manifest.dir, &manifest.model)?;
    progress::show("loading the model");
    let endpoint = Endpoint::open(manifest.endpoint_config().as_bytes()).map_err(|r| {
        let msg = format!("{} ({})", r.message, r.reason.name());
        if r.reason == Reason::ModelLoad {
            Problem::Unreadable(format!(
                "the model {} could not be loaded: {msg}",
                manifest.model
            ))
        } else {
            Problem::Failed(format!("the endpoint refused the package: {msg}"))
        }
    })?;
    Ok(Loaded {
        manifest,
        files,
        endpoint,
    })
}

/// A member of an object, if present.
pub fn member<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    match v {
        Value::Obj(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
        _ => None,
    }
}

fn served<'a>(v: &'a Value, path: &[&str]) -> Result<&'a Value> {
    let mut cur = v;
    for key in path {
        cur = member(cur, key).ok_or_else(|| {
            Problem::Failed(format!(
                "the live world document has no /{} (the library and this tool disagree)",
                path.join("/")
            ))
        })?;
    }
    Ok(cur)
}

/// The world document the endpoint serves now, parsed.
pub fn world_document(ep: &Endpoint) -> Result<Value> {
    let text = ep
        .world_read(WAIT_FOREVER)
        .map_err(|r| Problem::Failed(format!("reading the world document: {r}")))?;
    doc::parse(text.as_bytes())
        .map_err(|r| Problem::Failed(format!("the served world document does not parse: {r}")))
}

fn promises(p: Profile) -> (Vec<&'static str>, Vec<&'static str>) {
    match p {
        Profile::Integration => (
            vec![
                "a checkpoint holds the complete mjSTATE_INTEGRATION vector of this engine, integration inputs such as actuator activation and warm-start included",
                "a restore is validated completely before any native call, never calls mj_forward, restores the tick and is verified by bitwise readback",
                "on the same engine build, stepping on from a restored checkpoint repeats the original run bit for bit",
            ],
            vec![
                "callback, plugin or external RNG completeness",
                "determinism across engine versions or architectures",
                "fidelity to hardware",
                "restoring into another engine or another model configuration",
            ],
        ),
        Profile::Basic => (
            vec![
                "time (not rounded), qpos, qvel, ctrl, act, the seed metadata and the tick are restored exactly and verified by readback",
            ],
            vec![
                "the complete native integration state or exact continuation",
                "callback, plugin or external RNG completeness",
                "determinism across engine versions or architectures",
                "fidelity to hardware",
            ],
        ),
    }
}

fn strings(xs: Vec<&str>) -> Value {
    Value::Arr(xs.into_iter().map(Value::from).collect())
}

/// What a served value looks like, for people (lengths follow the model).
fn shape(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "boolean".into(),
        Value::Num(_) => "number".into(),
        Value::Str(_) => "string".into(),
        Value::Arr(items) if items.iter().all(|i| matches!(i, Value::Num(_))) => {
            format!("array of {} numbers", items.len())
        }
        Value::Arr(items) => format!("array of {} values", items.len()),
        Value::Obj(_) => "object".into(),
    }
}

/// The generated members of the reference, from the live endpoint (human members excluded).
pub fn live(l: &Loaded) -> Result<Value> {
    let m = &l.manifest;
    let ep = &l.endpoint;
    let doc = world_document(ep)?;
    let w = served(&doc, &["world"])?;
    let cp = served(w, &["native_checkpoint"])?;
    let profile = ep.profile();
    served_agrees(w, l)?;
    let fields = served_fields(w)?;
    let integration_state = integration_state(ep);
    let (yes, no) = promises(profile);
    Ok(obj([
        ("format", FORMAT.into()),
        ("package", m.name.as_str().into()),
        (
            "driver",
            obj([
                ("name", "mjbridge".into()),
                ("version", env!("CARGO_PKG_VERSION").into()),
            ]),
        ),
        (
            "engine",
            obj([
                ("version", served(cp, &["engine"])?.clone()),
                ("version_number", served(cp, &["engine_version"])?.clone()),
            ]),
        ),
        (
            "profile",
            obj([
                ("name", profile.name().into()),
                ("requested", m.requested_profile().into()),
                (
                    "checkpoint_scope",
                    served(w, &["checkpoint_scope"])?.clone(),
                ),
                ("promises", strings(yes)),
                ("does_not_promise", strings(no)),
            ]),
        ),
        (
            "model",
            obj([
                ("entry", m.model.as_str().into()),
                (
                    "fingerprint",
                    l.endpoint.shape().fingerprint.as_str().into(),
                ),
                (
                    "files",
                    Value::Obj(
                        l.files
                            .iter()
                            .map(|f| (f.path.clone(), f.sha256.as_str().into()))
                            .collect(),
                    ),
                ),
            ]),
        ),
        ("seed", m.seed.into()),
        ("descriptor", served(cp, &["descriptor"])?.clone()),
        ("integration_state", integration_state),
        ("fields", Value::Obj(fields)),
        (
            "checkpoint_limits",
            obj([
                ("max_values", (checkpoint::MAX_VALUES as u64).into()),
                (
                    "max_document_bytes",
                    (json::MAX_DOCUMENT_BYTES as u64).into(),
                ),
            ]),
        ),
        (
            "determinism",
            obj([
                ("derived", served(w, &["determinism", "derived"])?.clone()),
                (
                    "declared",
                    m.fidelity
                        .as_ref()
                        .map_or(Value::Null, |d| d.reference_form()),
                ),
            ]),
        ),
    ]))
}

/// The world document serves the endpoint's profile and the package's fidelity declaration.
fn served_agrees(w: &Value, l: &Loaded) -> Result<()> {
    let profile = l.endpoint.profile();
    let served_profile = served(w, &["profile"])?;
    if served_profile.as_str("").ok() != Some(profile.name()) {
        return Err(Problem::Failed(format!(
            "the world document serves profile {} but the endpoint reports {}",
            served_profile.to_json(),
            profile.name()
        )));
    }
    let declared_live = served(w, &["determinism", "declared"])?;
    let declared_want = l
        .manifest
        .fidelity
        .as_ref()
        .map_or(Value::Null, |d| d.endpoint_form());
    if declared_live.to_json() != declared_want.to_json() {
        return Err(Problem::Failed(format!(
            "the endpoint serves determinism.declared {} instead of the package's declaration",
            declared_live.to_json()
        )));
    }
    Ok(())
}

/// Every served field, with the access src/world.rs gives it.
fn served_fields(w: &Value) -> Result<Vec<(String, Value)>> {
    let mut fields: Vec<(String, Value)> = Vec::new();
    let access = |name: &str| -> Result<&'static str> {
        if world::WRITABLE_FIELDS.contains(&name) {
            Ok("writable")
        } else if world::READ_ONLY_FIELDS.contains(&name) {
            Ok("read-only")
        } else {
            Err(Problem::Failed(format!(
                "the world document serves world.{name}, which src/world.rs lists neither as writable nor as read-only"
            )))
        }
    };
    for (k, v) in w
        .as_obj("/world")
        .map_err(|r| Problem::Failed(r.to_string()))?
    {
        fields.push((
            format!("world.{k}"),
            obj([("access", access(k)?.into()), ("shape", shape(v).into())]),
        ));
    }
    for name in world::WRITABLE_FIELDS
        .iter()
        .chain(world::READ_ONLY_FIELDS.iter())
    {
        if member(w, name).is_none() {
            fields.push((
                format!("world.{name}"),
                obj([
                    ("access", access(name)?.into()),
                    ("shape", "not served in the world document".into()),
                ]),
            ));
        }
    }
    fields.push((
        "state_hash".into(),
        obj([
            ("access", "read-only".into()),
            (
                "shape",
                "string: sha256 over the RFC 8785 form of world".into(),
            ),
        ]),
    ));

    Ok(fields)
}

/// The integration state's signature, size and segments (null on the basic profile).
fn integration_state(ep: &Endpoint) -> Value {
    match (ep.profile(), &ep.shape().layout) {
        (Profile::Integration, Some(layout)) => obj([
            ("signature", u64::from(layout.sig).into()),
            ("size", (layout.size as u64).into()),
            (
                "segments",
                Value::Arr(
                    layout
                        .segments
                        .iter()
                        .map(|s| {
                            obj([
                                ("name", s.name.as_str().into()),
                                ("offset", (s.offset as u64).into()),
                                ("length", (s.len as u64).into()),
                            ])
                        })
                        .collect(),
                ),
            ),
        ]),
        _ => Value::Null,
    }
}

/// An existing reference.json.
pub struct Stored {
    pub value: Value,
    /// The exact JSON text of each human member's value, where present.
    pub human: Vec<(&'static str, Option<String>)>,
}

/// Read `DIR/reference.json` (None when there is none). `complete` asks for every member
/// (the gate); otherwise only unknown members are refused (regenerate would drop them).
pub fn read_stored(dir: &Path, complete: bool) -> Result<Option<Stored>> {
    let path = dir.join(REFERENCE);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(Problem::Unreadable(format!(
                "{REFERENCE} cannot be read: {e}"
            )))
        }
    };
    let value = doc::parse(&bytes).map_err(|r| {
        Problem::Unreadable(format!(
            "{} (malformed; fix it by hand or restore it from version control: regenerating would lose attribution and review)",
            manifest::refusal_in(REFERENCE, &r)
        ))
    })?;
    let text = String::from_utf8(bytes).expect("the strict parser accepted it as UTF-8");
    let all: Vec<&str> = GENERATED.iter().chain(HUMAN).copied().collect();
    let required: &[&str] = if complete { &all } else { &[] };
    doc::Fields::new(&value, "", &all, required).map_err(|r| {
        let hint = if r.reason == Reason::UnknownField {
            "; a reference holds only generated members and the human-written attribution and review (move other text into those)"
        } else {
            "; the reference is partial: run `mjbridge package regenerate`"
        };
        Problem::Unreadable(format!("{}{hint}", manifest::refusal_in(REFERENCE, &r)))
    })?;
    let raws = doc::raw_members(text.as_bytes())
        .map_err(|r| Problem::Unreadable(manifest::refusal_in(REFERENCE, &r)))?;
    let human = HUMAN
        .iter()
        .map(|h| {
            (
                *h,
                raws.iter().find(|(k, _)| k == h).map(|(_, v)| v.clone()),
            )
        })
        .collect();
    Ok(Some(Stored { value, human }))
}

pub fn is_placeholder(raw: &str) -> bool {
    matches!(raw.trim(), "{}" | "null" | "\"\"" | "[]")
}

/// The reference.json text: generated members printed, human members spliced verbatim.
pub fn render_json(generated: &Value, human: &[(&'static str, String)]) -> String {
    let mut members: Vec<(String, MemberText)> = match generated {
        Value::Obj(f) => f
            .iter()
            .map(|(k, v)| (k.clone(), MemberText::Value(v.clone())))
            .collect(),
        _ => unreachable!("the reference is an object"),
    };
    for (k, raw) in human {
        members.push((k.to_string(), MemberText::Raw(raw.clone())));
    }
    let mut out = String::new();
    pretty::object_with(&members, 0, &mut out);
    out.push('\n');
    out
}

fn text_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::Str(s)) => s.clone(),
        Some(v) => v.to_json(),
        None => String::new(),
    }
}

/// REFERENCE.md: the same contract for people.
pub fn render_md(r: &Value, human: &[(&'static str, String)]) -> String {
    let mut md = Md {
        r,
        s: String::new(),
    };
    md_head(&mut md);
    md_promises(&mut md);
    md_model(&mut md);
    md_model_files(&mut md);
    md_descriptor(&mut md);
    md_integration_state(&mut md);
    md_fields(&mut md);
    md_limits(&mut md);
    md_determinism(&mut md);
    md_human(&mut md, human);
    md.s
}

/// REFERENCE.md as it is written: the reference it renders, and the text so far.
struct Md<'a> {
    r: &'a Value,
    s: String,
}

impl<'a> Md<'a> {
    fn line(&mut self, l: &str) {
        self.s.push_str(l);
        self.s.push('\n');
    }

    /// The reference's member at `path`.
    fn get(&self, path: &[&str]) -> Option<&'a Value> {
        let mut cur = self.r;
        for k in path {
            cur = member(cur, k)?;
        }
        Some(cur)
    }

    /// The text of the member at `path`.
    fn t(&self, path: &[&str]) -> String {
        text_of(self.get(path))
    }

    /// The texts of the array at `path` (empty when it is not one).
    fn list(&self, path: &[&str]) -> Vec<String> {
        match self.get(path) {
            Some(Value::Arr(items)) => items.iter().map(|i| text_of(Some(i))).collect(),
            _ => Vec::new(),
        }
    }
}

/// The title, what the file is, and the summary table.
fn md_head(md: &mut Md) {
    md.line(&format!(
        "# Package `{}`: public contract",
        md.t(&["package"])
    ));
    md.line("");
    md.line(
        "Generated by `mjbridge package regenerate` from the live endpoint, like `reference.json`",
    );
    md.line("beside it; do not edit by hand. `attribution` and `review` are written by people in");
    md.line("`reference.json` and carried over verbatim.");
    md.line("");
    md.line("| | |");
    md.line("| --- | --- |");
    md.line(&format!(
        "| driver | {} {} |",
        md.t(&["driver", "name"]),
        md.t(&["driver", "version"])
    ));
    md.line(&format!(
        "| engine | MuJoCo {} (`mj_version` {}) |",
        md.t(&["engine", "version"]),
        md.t(&["engine", "version_number"])
    ));
    md.line(&format!(
        "| profile | `{}` (requested: {}) |",
        md.t(&["profile", "name"]),
        md.t(&["profile", "requested"])
    ));
    md.line(&format!(
        "| checkpoint scope | `{}` |",
        md.t(&["profile", "checkpoint_scope"])
    ));
    md.line(&format!(
        "| model | `{}`, seed {} |",
        md.t(&["model", "entry"]),
        md.t(&["seed"])
    ));
    md.line("");
}

/// `## What the profile promises`.
fn md_promises(md: &mut Md) {
    md.line("## What the profile promises");
    md.line("");
    for p in md.list(&["profile", "promises"]) {
        md.line(&format!("- {p}"));
    }
    md.line("");
    md.line("Not promised:");
    md.line("");
    for p in md.list(&["profile", "does_not_promise"]) {
        md.line(&format!("- {p}"));
    }
    md.line("");
}

/// `## Model`.
fn md_model(md: &mut Md) {
    md.line("## Model");
    md.line("");
    md.line(&format!(
        "The compiled model's fingerprint (SHA-256 of MuJoCo's own serialization, `mj_saveModel`; a world document names it and is refused by another model): `{}`",
        text_of(md.get(&["model", "fingerprint"]))
    ));
    md.line("");
}

/// `## Model files`.
fn md_model_files(md: &mut Md) {
    md.line("## Model files");
    md.line("");
    md.line("Every file the model loads (entry, includes, assets), with its SHA-256:");
    md.line("");
    md.line("| file | sha256 |");
    md.line("| --- | --- |");
    if let Some(Value::Obj(files)) = md.get(&["model", "files"]) {
        for (k, v) in files {
            md.line(&format!("| `{k}` | `{}` |", text_of(Some(v))));
        }
    }
    md.line("");
}

/// `## Descriptor`.
fn md_descriptor(md: &mut Md) {
    md.line("## Descriptor");
    md.line("");
    md.line(
        "What a checkpoint's `descriptor` must hold (not a fingerprint of the compiled model):",
    );
    md.line("");
    if let Some(Value::Obj(d)) = md.get(&["descriptor"]) {
        md.line(&format!(
            "| {} |",
            d.iter()
                .map(|(k, _)| k.as_str())
                .collect::<Vec<_>>()
                .join(" | ")
        ));
        md.line(&format!("|{}", " --- |".repeat(d.len())));
        md.line(&format!(
            "| {} |",
            d.iter()
                .map(|(_, v)| text_of(Some(v)))
                .collect::<Vec<_>>()
                .join(" | ")
        ));
    }
    md.line("");
}

/// `## Integration state`.
fn md_integration_state(md: &mut Md) {
    md.line("## Integration state");
    md.line("");
    match md.get(&["integration_state"]) {
        Some(Value::Obj(_)) => {
            md.line(&format!(
                "Signature {} (`mjSTATE_INTEGRATION` of this engine), {} values, in this order:",
                md.t(&["integration_state", "signature"]),
                md.t(&["integration_state", "size"])
            ));
            md.line("");
            md.line("| component | offset | length |");
            md.line("| --- | --- | --- |");
            if let Some(Value::Arr(segs)) = md.get(&["integration_state", "segments"]) {
                for seg in segs {
                    md.line(&format!(
                        "| {} | {} | {} |",
                        text_of(member(seg, "name")),
                        text_of(member(seg, "offset")),
                        text_of(member(seg, "length"))
                    ));
                }
            }
        }
        _ => md.line("None: this profile does not carry the native state vector."),
    }
    md.line("");
}

/// `## World document fields`.
fn md_fields(md: &mut Md) {
    md.line("## World document fields");
    md.line("");
    md.line("| field | access | shape |");
    md.line("| --- | --- | --- |");
    if let Some(Value::Obj(fields)) = md.get(&["fields"]) {
        for (k, v) in fields {
            md.line(&format!(
                "| `{k}` | {} | {} |",
                text_of(member(v, "access")),
                text_of(member(v, "shape"))
            ));
        }
    }
    md.line("");
}

/// `## Checkpoint limits`.
fn md_limits(md: &mut Md) {
    md.line("## Checkpoint limits");
    md.line("");
    md.line(&format!(
        "- at most {} native values",
        md.t(&["checkpoint_limits", "max_values"])
    ));
    md.line(&format!(
        "- at most {} bytes of JSON",
        md.t(&["checkpoint_limits", "max_document_bytes"])
    ));
    md.line("");
}

/// `## Determinism`.
fn md_determinism(md: &mut Md) {
    md.line("## Determinism");
    md.line("");
    md.line(&format!(
        "- derived: `{}` (the bridge derives no determinism from the presence of a state API)",
        md.t(&["determinism", "derived"])
    ));
    match md.get(&["determinism", "declared"]) {
        Some(Value::Obj(_)) => {
            md.line("- declared by the package (a claim with its justification, not derived):");
            md.line(&format!(
                "  - claim: {}",
                md.t(&["determinism", "declared", "claim"])
            ));
            md.line(&format!(
                "  - scope: {}",
                md.t(&["determinism", "declared", "scope"])
            ));
            for k in ["compared", "engine", "platform", "evidence"] {
                md.line(&format!(
                    "  - {k}: {}",
                    md.t(&["determinism", "declared", "justification", k])
                ));
            }
        }
        _ => md.line("- declared: none"),
    }
}

/// The human members, each under its own heading: the JSON as written, or a placeholder's note.
fn md_human(md: &mut Md, human: &[(&'static str, String)]) {
    for (k, raw) in human {
        md.line("");
        let mut title = k.to_string();
        title[..1].make_ascii_uppercase();
        md.line(&format!("## {title}"));
        md.line("");
        if is_placeholder(raw) {
            md.line(&format!(
                "Not provided yet: write it in `reference.json` (`{k}`) and regenerate."
            ));
        } else {
            md.line("```json");
            md.line(raw);
            md.line("```");
        }
    }
}

/// One difference between the stored reference and the live one.
pub struct Difference {
    pub pointer: String,
    pub stored: Option<String>,
    pub live: Option<String>,
}

fn short(v: &Value) -> String {
    let s = v.to_json();
    if s.chars().count() > 96 {
        let cut: String = s.chars().take(93).collect();
        format!("{cut}...")
    } else {
        s
    }
}

fn is_scalar(v: &Value) -> bool {
    !matches!(v, Value::Obj(_) | Value::Arr(_))
}

fn diff_into(ptr: &str, a: Option<&Value>, b: Option<&Value>, out: &mut Vec<Difference>) {
    match (a, b) {
        (Some(va @ Value::Obj(fa)), Some(vb @ Value::Obj(fb))) => {
            for (k, x) in fa {
                diff_into(&pointer_push(ptr, k), Some(x), member(vb, k), out);
            }
            for (k, y) in fb {
                if member(va, k).is_none() {
                    diff_into(&pointer_push(ptr, k), None, Some(y), out);
                }
            }
        }
        // Arrays of scalars whose lengths differ are one difference; otherwise element-wise.
        (Some(Value::Arr(xa)), Some(Value::Arr(xb)))
            if xa.len() == xb.len() || !xa.iter().chain(xb).all(is_scalar) =>
        {
            for i in 0..xa.len().max(xb.len()) {
                diff_into(&json::pointer_index(ptr, i), xa.get(i), xb.get(i), out);
            }
        }
        (Some(x), Some(y)) if x.to_json() == y.to_json() => {}
        (None, None) => {}
        _ => out.push(Difference {
            pointer: ptr.to_owned(),
            stored: a.map(short),
            live: b.map(short),
        }),
    }
}

/// Every difference between two documents, by JSON pointer.
pub fn diff_values(a: &Value, b: &Value) -> Vec<Difference> {
    let mut out = Vec::new();
    diff_into("", Some(a), Some(b), &mut out);
    out
}

/// Field-by-field differences of the generated members (human members are not compared).
pub fn diff(stored: &Value, live: &Value) -> Vec<Difference> {
    let mut out = Vec::new();
    for k in GENERATED {
        diff_into(
            &pointer_push("", k),
            member(stored, k),
            member(live, k),
            &mut out,
        );
    }
    out
}

fn unescape_token(t: &str) -> String {
    t.replace("~1", "/").replace("~0", "~")
}

/// The differences as lines for people: one per field, and one per model file.
pub fn describe(diffs: &[Difference]) -> Vec<String> {
    let mut lines = Vec::new();
    for d in diffs {
        if let Some(file) = d.pointer.strip_prefix("/model/files/") {
            let file = unescape_token(file);
            lines.push(match (&d.stored, &d.live) {
                (Some(_), Some(_)) => format!(
                    "model file {file} changed since reference.json was generated ({} -> {})",
                    d.stored.as_deref().unwrap_or(""),
                    d.live.as_deref().unwrap_or("")
                ),
                (None, Some(_)) => {
                    format!("model file {file} is loaded now but not in reference.json")
                }
                _ => format!("model file {file} is in reference.json but no longer loaded"),
            });
            continue;
        }
        lines.push(match (&d.stored, &d.live) {
            (Some(s), Some(l)) => format!(
                "{}: reference.json has {s}, the live endpoint reports {l}",
                d.pointer
            ),
            (None, Some(l)) => format!(
                "{}: missing from reference.json, the live endpoint reports {l}",
                d.pointer
            ),
            (Some(s), None) => format!(
                "{}: reference.json has {s}, the live endpoint does not report it",
                d.pointer
            ),
            (None, None) => unreachable!(),
        });
    }
    lines
}

/// Write a file through a temporary beside it and a rename, so a reader never sees half.
pub fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension("tmp~");
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            Problem::Unreadable(format!("cannot write {}: {e}", path.display()))
        })
}

/// The human members to write: carried over verbatim, or placeholders with a warning.
pub fn carried_human(stored: Option<&Stored>) -> Vec<(&'static str, String)> {
    HUMAN
        .iter()
        .map(|h| {
            let raw = stored.and_then(|s| {
                s.human
                    .iter()
                    .find(|(k, _)| k == h)
                    .and_then(|(_, v)| v.clone())
            });
            match raw {
                Some(r) => (*h, r),
                None => {
                    warn(&format!(
                        "{REFERENCE} has no {h:?}: writing an empty placeholder ({PLACEHOLDER}); a person must write it"
                    ));
                    (*h, PLACEHOLDER.to_owned())
                }
            }
        })
        .collect()
}

/// `mjbridge package regenerate DIR`.
pub fn regenerate(dir: &Path) -> Result<()> {
    // Read the old reference first: a malformed one is refused before anything is loaded,
    // and nothing is written.
    let stored = read_stored(dir, false)?;
    let l = load(dir)?;
    let generated = live(&l)?;
    let human = carried_human(stored.as_ref());
    for (k, raw) in &human {
        if is_placeholder(raw) && raw != PLACEHOLDER {
            warn(&format!(
                "{REFERENCE}: {k} is empty ({raw}); a person must write it"
            ));
        }
    }
    let text = render_json(&generated, &human);
    // What is written must read back strictly with the same human text, byte for byte.
    let reread = doc::parse(text.as_bytes()).map_err(|r| {
        Problem::Failed(format!(
            "internal: the regenerated reference does not parse: {r}"
        ))
    })?;
    let raws =
        doc::raw_members(text.as_bytes()).map_err(|r| Problem::Failed(format!("internal: {r}")))?;
    for (k, raw) in &human {
        if raws.iter().find(|(rk, _)| rk == k).map(|(_, v)| v) != Some(raw) {
            return Err(Problem::Failed(format!(
                "internal: {k} would not be carried over byte for byte"
            )));
        }
    }
    let md = render_md(&reread, &human);
    let changes = match &stored {
        Some(s) => describe(&diff(&s.value, &generated)),
        None => vec!["(no previous reference.json)".into()],
    };
    write_atomic(&l.manifest.dir.join(REFERENCE), &text)?;
    write_atomic(&l.manifest.dir.join(REFERENCE_MD), &md)?;
    progress::clear_line();
    say!(
        "{}: regenerated {REFERENCE} and {REFERENCE_MD} (engine {}, profile {})",
        dir.display(),
        text_of(member(&generated, "engine").and_then(|e| member(e, "version"))),
        l.endpoint.profile().name()
    );
    if changes.is_empty() {
        say!("  the generated contract is unchanged");
    }
    for c in changes {
        say!("  {c}");
    }
    let carried: Vec<&str> = human
        .iter()
        .filter(|(k, _)| {
            stored
                .as_ref()
                .is_some_and(|s| s.human.iter().any(|(h, v)| h == k && v.is_some()))
        })
        .map(|(k, _)| *k)
        .collect();
    if !carried.is_empty() {
        say!("  carried over byte for byte: {}", carried.join(", "));
    }
    say!("  next: review the change, then run `mjbridge package gate`");
    Ok(())
}

/// Differences between a stored and a freshly computed document, for people.
pub fn describe_plain(diffs: &[Difference]) -> Vec<String> {
    diffs
        .iter()
        .map(|d| {
            format!(
                "{}: stored {}, fresh {}",
                d.pointer,
                d.stored.as_deref().unwrap_or("(absent)"),
                d.live.as_deref().unwrap_or("(absent)")
            )
        })
        .collect()
}
