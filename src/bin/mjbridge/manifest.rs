//! `package.json`: the hand-written part of a package that says what to load.
//!
//! ```json
//! {
//!   "name": "tethered_arm",
//!   "model": "model.xml",
//!   "profile": "auto",
//!   "seed": 0,
//!   "fidelity": null
//! }
//! ```
//! `name` and `model` (the MJCF entry file, relative to the package directory) are required;
//! `profile` ("auto", "mujoco_integration_v1", "mujoco_basic_v1"; default "auto"), `seed`
//! (checkpoint metadata, default 0) and `fidelity` (default null) are optional. Parsed with the
//! library's strict JSON: unknown, duplicate or mistyped fields are refused with a pointer.
//!
//! A fidelity declaration is accepted only with its justification:
//! ```json
//! "fidelity": {
//!   "claim": "...", "scope": "...",
//!   "justification": {"compared": "...", "engine": "...", "platform": "...",
//!                     "evidence": "evidence/file.txt"}
//! }
//! ```
//! every string non-empty, and the evidence a file inside the package (covered by the gate's
//! digest). It is reported under `determinism.declared`; `derived` stays what the bridge
//! derives (`none`).

use crate::doc::{self, Fields, ValueExt};
use crate::files;
use crate::{Problem, Result};
use mjbridge::checkpoint::Profile;
use mjbridge::doc::{obj, Value};
use mjbridge::outcome::Refusal;
use std::path::{Path, PathBuf};

pub const MANIFEST: &str = "package.json";

#[derive(Debug)]
pub struct Manifest {
    /// The package directory (canonical).
    pub dir: PathBuf,
    pub name: String,
    /// The MJCF entry file, relative to `dir`, `/`-separated.
    pub model: String,
    /// `None` is "auto".
    pub profile: Option<Profile>,
    pub seed: u64,
    pub fidelity: Option<Declaration>,
}

/// A justified fidelity declaration.
#[derive(Debug, Clone)]
pub struct Declaration {
    pub claim: String,
    pub scope: String,
    /// What was compared.
    pub compared: String,
    /// The engine the comparison ran on.
    pub engine: String,
    /// The platform (machine, OS) it ran on.
    pub platform: String,
    /// The evidence file, relative to the package directory.
    pub evidence: String,
}

impl Declaration {
    /// The declaration as the endpoint config takes it (`{claim, scope, evidence}`); the world
    /// document serves it under `determinism.declared`.
    pub fn endpoint_form(&self) -> Value {
        obj([
            ("claim", self.claim.as_str().into()),
            ("scope", self.scope.as_str().into()),
            ("evidence", self.evidence.as_str().into()),
        ])
    }

    /// The declaration as the reference reports it, justification included.
    pub fn reference_form(&self) -> Value {
        obj([
            ("claim", self.claim.as_str().into()),
            ("scope", self.scope.as_str().into()),
            (
                "justification",
                obj([
                    ("compared", self.compared.as_str().into()),
                    ("engine", self.engine.as_str().into()),
                    ("platform", self.platform.as_str().into()),
                    ("evidence", self.evidence.as_str().into()),
                ]),
            ),
        ])
    }
}

impl Manifest {
    /// The endpoint configuration for this package's model.
    pub fn endpoint_config(&self) -> String {
        let path = self.dir.join(&self.model).to_string_lossy().into_owned();
        let mut fields = vec![
            ("model".to_owned(), obj([("xml_path", Value::Str(path))])),
            ("name".to_owned(), self.name.as_str().into()),
            ("seed".to_owned(), self.seed.into()),
            (
                "profile".to_owned(),
                self.profile.map_or("auto", |p| p.name()).into(),
            ),
        ];
        if let Some(d) = &self.fidelity {
            fields.push(("fidelity".to_owned(), d.endpoint_form()));
        }
        Value::Obj(fields).to_json()
    }

    pub fn requested_profile(&self) -> &'static str {
        self.profile.map_or("auto", |p| p.name())
    }
}

/// A refusal of the library's strict JSON, said for a file.
pub fn refusal_in(file: &str, r: &Refusal) -> String {
    match &r.pointer {
        Some(p) if !p.is_empty() => format!("{file} at {p}: {} ({})", r.message, r.reason.name()),
        _ => format!("{file}: {} ({})", r.message, r.reason.name()),
    }
}

fn unreadable(r: Refusal) -> Problem {
    Problem::Unreadable(refusal_in(MANIFEST, &r))
}

fn non_empty(v: &Value, ptr: &str) -> Result<String> {
    let s = v.as_str(ptr).map_err(unreadable)?;
    if s.trim().is_empty() {
        return Err(Problem::Unreadable(format!(
            "{MANIFEST} at {ptr}: must not be empty"
        )));
    }
    Ok(s.to_owned())
}

/// Read and check `DIR/package.json`.
pub fn load(dir: &Path) -> Result<Manifest> {
    let dir = dir
        .canonicalize()
        .map_err(|e| Problem::Unreadable(format!("the package directory cannot be opened: {e}")))?;
    if !dir.is_dir() {
        return Err(Problem::Unreadable("not a directory".into()));
    }
    let path = dir.join(MANIFEST);
    let bytes = std::fs::read(&path).map_err(|e| {
        Problem::Unreadable(format!(
            "{MANIFEST} cannot be read ({e}); a package directory starts with one (see docs/command.md: Packages)"
        ))
    })?;
    let doc = doc::parse(&bytes).map_err(unreadable)?;
    let f = Fields::new(
        &doc,
        "",
        &["name", "model", "profile", "seed", "fidelity"],
        &["name", "model"],
    )
    .map_err(unreadable)?;

    let (v, p) = f.req("name");
    let name = non_empty(v, &p)?;
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        return Err(Problem::Unreadable(format!(
            "{MANIFEST} at /name: {name:?} may hold only ASCII letters, digits, '_', '-' and '.'"
        )));
    }
    let (v, p) = f.req("model");
    let model = files::package_path(&dir, "", &non_empty(v, &p)?, &format!("{MANIFEST} /model"))?;

    let profile = match f.get("profile") {
        None => None,
        Some((v, p)) => match v.as_str(&p).map_err(unreadable)? {
            "auto" => None,
            s => Some(Profile::from_name(s).ok_or_else(|| {
                Problem::Unreadable(format!(
                    "{MANIFEST} at /profile: unknown profile {s:?} (auto, mujoco_integration_v1, mujoco_basic_v1)"
                ))
            })?),
        },
    };
    let seed = match f.get("seed") {
        None => 0,
        Some((v, p)) => v.as_u64(&p).map_err(unreadable)?,
    };
    let fidelity = match f.get("fidelity") {
        None | Some((Value::Null, _)) => None,
        Some((v, p)) => Some(declaration(&dir, v, &p)?),
    };
    Ok(Manifest {
        dir,
        name,
        model,
        profile,
        seed,
        fidelity,
    })
}

const JUSTIFICATION: &str =
    "what was compared (\"compared\"), on which engine (\"engine\") and platform (\"platform\"), and the evidence file (\"evidence\")";

fn declaration(dir: &Path, v: &Value, ptr: &str) -> Result<Declaration> {
    let fields = v.as_obj(ptr).map_err(unreadable)?;
    if !fields.iter().any(|(k, _)| k == "justification") {
        return Err(Problem::Unreadable(format!(
            "{MANIFEST} at {ptr}: a fidelity declaration is accepted only with a justification: \
             add \"justification\": {{...}} with {JUSTIFICATION}"
        )));
    }
    let d = Fields::new(
        v,
        ptr,
        &["claim", "scope", "justification"],
        &["claim", "scope", "justification"],
    )
    .map_err(unreadable)?;
    let (c, cp) = d.req("claim");
    let (s, sp) = d.req("scope");
    let (j, jp) = d.req("justification");
    let jf = Fields::new(
        j,
        &jp,
        &["compared", "engine", "platform", "evidence"],
        &["compared", "engine", "platform", "evidence"],
    )
    .map_err(|r| {
        Problem::Unreadable(format!(
            "{}; a justification states {JUSTIFICATION}",
            refusal_in(MANIFEST, &r)
        ))
    })?;
    let get = |k: &str| {
        let (v, p) = jf.req(k);
        non_empty(v, &p)
    };
    let claim = non_empty(c, &cp)?;
    let scope = non_empty(s, &sp)?;
    let compared = get("compared")?;
    let engine = get("engine")?;
    let platform = get("platform")?;
    let (_, ep) = jf.req("evidence");
    let evidence = files::package_path(dir, "", &get("evidence")?, &format!("{MANIFEST} {ep}"))?;
    Ok(Declaration {
        claim,
        scope,
        compared,
        engine,
        platform,
        evidence,
    })
}
