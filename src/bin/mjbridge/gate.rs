//! The package gate: load the package, compare the live contract with `reference.json`, run
//! the checkpoint conformance checks on the package's model, and write a fresh `gate.json`.
//!
//! The digest is never reused. It is computed on every run from what the package holds now:
//! `digest = sha256(JCS(covered))`, where `covered` is
//! `{"reference": {"file": "reference.json", "canonical_sha256": sha256(JCS(reference))},
//!   "files": {path: sha256(bytes)}}` over `package.json`, every file the model loads
//! (includes and assets included) and the fidelity evidence file. `gate.json` records
//! `covered`, so a stored digest that no longer matches names the files that changed.
//! `gate.json` carries no time stamp: the same package, engine and driver give the same bytes,
//! which is what `--check` compares.

use crate::doc;
use crate::files;
use crate::manifest::MANIFEST;
use crate::pretty;
use crate::reference::{self, member, Loaded, Stored, REFERENCE, REFERENCE_MD};
use crate::say;
use crate::{progress, warn, Problem, Result};
use mjbridge::checkpoint::Profile;
use mjbridge::conformance;
use mjbridge::doc::{jcs, obj, Value};
use mjbridge::endpoint::{Answer, Endpoint, WAIT_FOREVER};
use mjbridge::outcome::{Outcome, Reason};
use std::path::Path;

pub const GATE: &str = "gate.json";
pub const FORMAT: &str = "mjbridge-package-gate/1";
/// Engine steps after the checkpoint in the continuation check.
pub const DEFAULT_STEPS: u32 = 200;
/// Engine steps before the checkpoint, so the state is not the initial one.
const WARMUP: u32 = 25;

pub struct Options {
    pub check: bool,
    pub steps: u32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Pass,
    Fail,
    /// The profile does not promise it; nothing was claimed, nothing checked.
    NotPromised,
    /// An earlier failure made the check meaningless.
    NotRun,
}

impl Verdict {
    fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::NotPromised => "not_promised",
            Verdict::NotRun => "not_run",
        }
    }
}

struct Check {
    name: &'static str,
    verdict: Verdict,
    detail: String,
    /// One line per difference found (the reference check).
    differences: Vec<String>,
    cases: Vec<Value>,
}

impl Check {
    fn new(name: &'static str, verdict: Verdict, detail: impl Into<String>) -> Self {
        Check {
            name,
            verdict,
            detail: detail.into(),
            differences: Vec::new(),
            cases: Vec::new(),
        }
    }

    fn value(&self) -> Value {
        let mut f = vec![
            ("name".to_owned(), Value::from(self.name)),
            ("result".to_owned(), self.verdict.name().into()),
            ("detail".to_owned(), self.detail.as_str().into()),
        ];
        if !self.differences.is_empty() {
            f.push((
                "differences".to_owned(),
                Value::Arr(self.differences.iter().map(|d| d.as_str().into()).collect()),
            ));
        }
        if !self.cases.is_empty() {
            f.push(("cases".to_owned(), Value::Arr(self.cases.clone())));
        }
        Value::Obj(f)
    }
}

// ---- driving the endpoint -----------------------------------------------------------------

/// The gate's control input at a tick: a function of the tick alone, so a run replayed from a
/// restored checkpoint gets the same inputs.
fn ctrl_at(tick: u64, nu: usize) -> Vec<f64> {
    (0..nu)
        .map(|i| 0.5 * (tick as f64 * 0.05 + i as f64).sin())
        .collect()
}

fn answer_text(a: &Answer) -> String {
    let mut s = format!("{} ({})", a.report.outcome.name(), a.report.reason.name());
    if let Some(d) = &a.detail {
        if let Some(p) = &d.pointer {
            s.push_str(&format!(" at {p}"));
        }
        s.push_str(&format!(": {}", d.message));
    }
    s
}

/// Step `steps` times with the gate's controls; every step must simply succeed.
fn drive(ep: &Endpoint, steps: u32, label: &str) -> std::result::Result<(), String> {
    let nu = ep.shape().dims.nu.max(0) as usize;
    for s in 0..steps {
        let tick = ep.tick();
        let a = ep.set_ctrl(&ctrl_at(tick, nu), WAIT_FOREVER);
        if a.report.outcome != Outcome::Ok {
            return Err(format!("writing ctrl at tick {tick}: {}", answer_text(&a)));
        }
        let a = ep.step(1, WAIT_FOREVER);
        if a.report.outcome != Outcome::Ok || a.report.reason != Reason::None {
            return Err(format!("step at tick {tick}: {}", answer_text(&a)));
        }
        progress::tick(label, || format!("{label}: step {s}/{steps}"));
    }
    Ok(())
}

fn world(ep: &Endpoint) -> std::result::Result<String, String> {
    ep.world_read(WAIT_FOREVER).map_err(|r| r.to_string())
}

fn checkpoint(ep: &Endpoint) -> std::result::Result<String, String> {
    ep.checkpoint_read(WAIT_FOREVER).map_err(|r| r.to_string())
}

/// Restore round trip and, for the integration profile, exact continuation: checkpoint,
/// step k, restore, step k again, and the world documents must be the same bytes.
fn continuation(ep: &Endpoint, steps: u32) -> Vec<Check> {
    let run = || -> std::result::Result<(Check, Check), String> {
        drive(ep, WARMUP, "warm-up")?;
        let cp = checkpoint(ep)?;
        let at_cp = world(ep)?;
        drive(ep, steps, "continuation, first run")?;
        let first = world(ep)?;
        let a = ep.restore(cp.as_bytes(), WAIT_FOREVER);
        if a.report.outcome != Outcome::Ok {
            return Err(format!("restoring the checkpoint: {}", answer_text(&a)));
        }
        let round_trip = if a.report.tick_after != u64::from(WARMUP) {
            Check::new(
                "restore_round_trip",
                Verdict::Fail,
                format!(
                    "the restore reported tick {}, the checkpoint was taken at tick {WARMUP}",
                    a.report.tick_after
                ),
            )
        } else if world(ep)? != at_cp {
            Check::new(
                "restore_round_trip",
                Verdict::Fail,
                "the world document after the restore differs from the one at the checkpoint",
            )
        } else {
            Check::new(
                "restore_round_trip",
                Verdict::Pass,
                format!("checkpoint at tick {WARMUP}, {steps} steps, restore: the world document is the one at the checkpoint, byte for byte, tick included"),
            )
        };
        let exact = match ep.profile() {
            Profile::Basic => Check::new(
                "exact_continuation",
                Verdict::NotPromised,
                "mujoco_basic_v1 does not promise exact continuation",
            ),
            Profile::Integration => {
                drive(ep, steps, "continuation, second run")?;
                if world(ep)? == first {
                    Check::new(
                        "exact_continuation",
                        Verdict::Pass,
                        format!("checkpoint at tick {WARMUP}, {steps} steps, restore, the same {steps} steps: the world documents are bit-identical"),
                    )
                } else {
                    Check::new(
                        "exact_continuation",
                        Verdict::Fail,
                        format!("after the restore, the same {steps} steps gave a different world document"),
                    )
                }
            }
        };
        Ok((round_trip, exact))
    };
    match run() {
        Ok((a, b)) => vec![a, b],
        Err(e) => vec![
            Check::new("restore_round_trip", Verdict::Fail, e),
            Check::new(
                "exact_continuation",
                Verdict::NotRun,
                "the round trip could not complete",
            ),
        ],
    }
}

/// Every corrupted document is refused with its reason and pointer, and nothing changes.
fn corrupted_refused(ep: &Endpoint) -> Check {
    let cp = match checkpoint(ep) {
        Ok(c) => c,
        Err(e) => return Check::new("corrupted_documents_refused", Verdict::Fail, e),
    };
    let mut check = Check::new("corrupted_documents_refused", Verdict::Pass, "");
    let mut failed = Vec::new();
    let cases = conformance::corruptions(ep, &cp);
    let n = cases.len();
    for (i, case) in cases.into_iter().enumerate() {
        progress::tick("corrupted documents", || {
            format!("corrupted documents: {}/{n}", i + 1)
        });
        let conformance::Refused {
            answer: a,
            pointer,
            unchanged,
            ok,
        } = case.refuse(ep);
        if !ok {
            failed.push(format!(
                "{}: expected MJB_REJECTED ({}) at {}, state unchanged; got {}{}",
                case.name,
                case.reason.name(),
                case.pointer.as_deref().unwrap_or("-"),
                answer_text(&a),
                if unchanged { "" } else { "; the state changed" }
            ));
        }
        // The pointer is recorded where it is part of the promise (not for malformed JSON,
        // where it only says how far the parser got).
        check.cases.push(obj([
            ("case", case.name.into()),
            ("outcome", a.report.outcome.name().into()),
            ("reason", a.report.reason.name().into()),
            (
                "pointer",
                case.pointer
                    .as_ref()
                    .and(pointer)
                    .map_or(Value::Null, Value::from),
            ),
            ("state_unchanged", Value::Bool(unchanged)),
            ("result", if ok { "pass" } else { "fail" }.into()),
        ]));
    }
    if failed.is_empty() {
        check.detail = format!(
            "{n} corrupted checkpoint documents refused (MJB_REJECTED) with the expected reason and pointer; world document and safety state unchanged after each"
        );
    } else {
        check.verdict = Verdict::Fail;
        check.detail = failed.join("; ");
    }
    check
}

/// A latched stop refuses a step; a restore is admitted while stopped and keeps it; the
/// acknowledgements clear it; stepping works again.
fn stop_latch(ep: &Endpoint) -> Check {
    let run = || -> std::result::Result<String, String> {
        let cp = checkpoint(ep)?;
        let before = world(ep)?;
        let tick = ep.tick();
        let count = ep.safety_view().stop_count;
        if !ep.stop().stopped {
            return Err("mjb_stop did not latch".into());
        }
        let a = ep.step(1, WAIT_FOREVER);
        if a.report.outcome != Outcome::Rejected
            || a.report.reason != Reason::StopLatched
            || a.report.tick_after != tick
            || world(ep)? != before
        {
            return Err(format!(
                "a step while stopped gave {} and the state {}",
                answer_text(&a),
                if world(ep)? == before {
                    "is unchanged"
                } else {
                    "changed"
                }
            ));
        }
        let a = ep.restore(cp.as_bytes(), WAIT_FOREVER);
        if a.report.outcome != Outcome::Ok {
            return Err(format!("a restore while stopped gave {}", answer_text(&a)));
        }
        if !ep.safety_view().stopped {
            return Err("the restore cleared the stop latch".into());
        }
        ep.confirm_paused()
            .map_err(|r| format!("confirming the pause: {r}"))?;
        ep.safety_reset()
            .map_err(|r| format!("resetting the latch: {r}"))?;
        let v = ep.safety_view();
        if v.stopped || v.stop_count != count + 1 {
            return Err(format!(
                "after the reset: stopped {}, stop count {} (expected false, {})",
                v.stopped,
                v.stop_count,
                count + 1
            ));
        }
        let a = ep.step(1, WAIT_FOREVER);
        if a.report.outcome != Outcome::Ok || a.report.tick_after != tick + 1 {
            return Err(format!("a step after the reset gave {}", answer_text(&a)));
        }
        Ok("a latched stop refused a step (MJB_REASON_STOP_LATCHED, tick and state unchanged); a restore was admitted and kept the latch; confirm and reset cleared it with the stop history kept; the next step ran".into())
    };
    match run() {
        Ok(d) => Check::new("stop_latch", Verdict::Pass, d),
        Err(e) => Check::new("stop_latch", Verdict::Fail, e),
    }
}

// ---- digest -------------------------------------------------------------------------------

/// What the digest covers, with the hash of each part.
fn covered(l: &Loaded, stored: &Stored) -> Result<Value> {
    let dir = &l.manifest.dir;
    let mut files: Vec<(String, String)> = l
        .files
        .iter()
        .map(|f| (f.path.clone(), f.sha256.clone()))
        .collect();
    files.push((MANIFEST.into(), files::sha256(&files::read(dir, MANIFEST)?)));
    if let Some(d) = &l.manifest.fidelity {
        files.push((
            d.evidence.clone(),
            files::sha256(&files::read(dir, &d.evidence)?),
        ));
    }
    files.sort();
    files.dedup();
    Ok(obj([
        (
            "reference",
            obj([
                ("file", REFERENCE.into()),
                (
                    "canonical_sha256",
                    files::sha256(jcs::of_value(&stored.value).as_bytes()).into(),
                ),
            ]),
        ),
        (
            "files",
            Value::Obj(files.into_iter().map(|(k, v)| (k, v.into())).collect()),
        ),
    ]))
}

/// What changed since the gate that wrote `previous` (one line per file).
fn changes_since(previous: &Value, covered_now: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    let hash_of = |c: Option<&Value>| {
        c.and_then(|c| member(c, "reference"))
            .and_then(|r| member(r, "canonical_sha256"))
            .map(|v| v.to_json())
    };
    let before = member(previous, "covered");
    if hash_of(before) != hash_of(Some(covered_now)) {
        lines.push(format!("{REFERENCE} changed"));
    }
    let files_of = |c: Option<&Value>| -> Vec<(String, String)> {
        match c.and_then(|c| member(c, "files")) {
            Some(Value::Obj(f)) => f.iter().map(|(k, v)| (k.clone(), v.to_json())).collect(),
            _ => Vec::new(),
        }
    };
    let (old, new) = (files_of(before), files_of(Some(covered_now)));
    for (k, v) in &new {
        match old.iter().find(|(ok, _)| ok == k) {
            None => lines.push(format!("{k} is new")),
            Some((_, ov)) if ov != v => lines.push(format!("{k} changed")),
            _ => {}
        }
    }
    for (k, _) in &old {
        if !new.iter().any(|(nk, _)| nk == k) {
            lines.push(format!("{k} is no longer covered"));
        }
    }
    lines
}

fn platform() -> String {
    format!("{}-{}", std::env::consts::ARCH, std::env::consts::OS)
}

// ---- the gate -----------------------------------------------------------------------------

/// `mjbridge package gate [--check] DIR`.
pub fn gate(dir: &Path, opts: &Options) -> Result<()> {
    let l = reference::load(dir)?;
    let pdir = l.manifest.dir.clone();
    let stored = reference::read_stored(&pdir, true)?.ok_or_else(|| {
        Problem::Unreadable(format!(
            "there is no {REFERENCE}: run `mjbridge package regenerate {}` first",
            dir.display()
        ))
    })?;
    let human: Vec<(&'static str, String)> = stored
        .human
        .iter()
        .map(|(k, v)| (*k, v.clone().expect("complete reference")))
        .collect();
    let warnings = gate_warnings(&l, &human);

    progress::show("comparing reference.json with the live endpoint");
    let live = reference::live(&l)?;
    let diffs = reference::describe(&reference::diff(&stored.value, &live));
    let mut checks = vec![reference_check(&diffs)];
    let md_now = std::fs::read_to_string(pdir.join(REFERENCE_MD)).ok();
    checks.push(reference_md_check(
        md_now,
        &reference::render_md(&stored.value, &human),
    ));
    checks.extend(endpoint_checks(&l.endpoint, opts.steps, diffs.is_empty()));
    let passed = checks
        .iter()
        .all(|c| matches!(c.verdict, Verdict::Pass | Verdict::NotPromised));

    let covered = covered(&l, &stored)?;
    let digest = files::sha256(jcs::of_value(&covered).as_bytes());
    let value = gate_document(&l, opts, &covered, &digest, passed, &checks, &warnings);
    let text = pretty::to_pretty(&value);

    // The stored gate.json is compared, never trusted.
    let gate_path = pdir.join(GATE);
    let previous_text = std::fs::read_to_string(&gate_path).ok();
    let previous = previous_text.as_ref().map(|t| doc::parse(t.as_bytes()));
    let stale = match &previous {
        Some(Ok(p)) => stale_since(p, &covered, &digest),
        _ => Vec::new(),
    };

    progress::clear_line();
    for w in &warnings {
        warn(w);
    }
    say!(
        "{}: gate {} (engine {}, profile {}, digest {digest})",
        dir.display(),
        if passed { "passed" } else { "FAILED" },
        mjbridge::native::engine().version_string,
        l.endpoint.profile().name()
    );
    for c in &checks {
        say!("  {:<13} {}: {}", c.verdict.name(), c.name, c.detail);
        for d in &c.differences {
            say!("                  {d}");
        }
    }

    if opts.check {
        let previous = previous_text.as_deref().zip(previous.as_ref());
        check_current(previous, &text, &value, &digest, &stale).map_err(Problem::Failed)?;
        say!("  {GATE} is current");
    } else {
        if !stale.is_empty() {
            say!(
                "  the previous {GATE} was stale and is replaced (never reused): {}",
                stale.join(", ")
            );
        }
        reference::write_atomic(&gate_path, &text)?;
        say!("  wrote a fresh {GATE}");
    }
    if passed {
        Ok(())
    } else {
        Err(Problem::Failed(failure(&checks, &diffs)))
    }
}

/// What the gate warns about without failing: placeholders a person must still write, and a
/// fidelity declaration justified on another engine.
fn gate_warnings(l: &Loaded, human: &[(&'static str, String)]) -> Vec<String> {
    let mut warnings = Vec::new();
    for (k, raw) in human {
        if reference::is_placeholder(raw) {
            warnings.push(format!(
                "{REFERENCE}: {k} is an empty placeholder; a person must write it"
            ));
        }
    }
    if let Some(d) = &l.manifest.fidelity {
        let running = &mjbridge::native::engine().version_string;
        if !d.engine.contains(running.as_str()) {
            warnings.push(format!(
                "the fidelity declaration was justified on engine {:?}; this gate runs MuJoCo {running}: its evidence does not cover this engine",
                d.engine
            ));
        }
    }
    warnings
}

/// `reference_matches_live_endpoint`: every generated member equals the live endpoint's.
fn reference_check(diffs: &[String]) -> Check {
    if diffs.is_empty() {
        return Check::new(
            "reference_matches_live_endpoint",
            Verdict::Pass,
            "every generated member of reference.json equals what the live endpoint reports",
        );
    }
    let mut c = Check::new(
        "reference_matches_live_endpoint",
        Verdict::Fail,
        format!(
            "{} difference(s) between reference.json and the live endpoint",
            diffs.len()
        ),
    );
    c.differences = diffs.to_vec();
    c
}

/// `reference_md_current`: REFERENCE.md is what regenerate writes.
fn reference_md_check(md_now: Option<String>, md_want: &str) -> Check {
    match md_now {
        Some(m) if m == md_want => Check::new(
            "reference_md_current",
            Verdict::Pass,
            "REFERENCE.md is what regenerate writes for this reference.json",
        ),
        Some(_) => Check::new(
            "reference_md_current",
            Verdict::Fail,
            "REFERENCE.md differs from what regenerate writes for this reference.json",
        ),
        None => Check::new(
            "reference_md_current",
            Verdict::Fail,
            "REFERENCE.md is missing",
        ),
    }
}

/// The checks that drive the endpoint; not run when reference.json does not describe it.
fn endpoint_checks(ep: &Endpoint, steps: u32, reference_matches: bool) -> Vec<Check> {
    if reference_matches {
        let mut checks = continuation(ep, steps);
        checks.push(corrupted_refused(ep));
        checks.push(stop_latch(ep));
        return checks;
    }
    [
        "restore_round_trip",
        "exact_continuation",
        "corrupted_documents_refused",
        "stop_latch",
    ]
    .into_iter()
    .map(|name| {
        Check::new(
            name,
            Verdict::NotRun,
            "reference.json differs from the live endpoint",
        )
    })
    .collect()
}

/// gate.json: the verdict, what it covers and its digest, and every check.
fn gate_document(
    l: &Loaded,
    opts: &Options,
    covered: &Value,
    digest: &str,
    passed: bool,
    checks: &[Check],
    warnings: &[String],
) -> Value {
    obj([
        ("format", FORMAT.into()),
        ("package", l.manifest.name.as_str().into()),
        ("result", if passed { "pass" } else { "fail" }.into()),
        ("digest", digest.into()),
        ("covered", covered.clone()),
        (
            "driver",
            obj([
                ("name", "mjbridge".into()),
                ("version", env!("CARGO_PKG_VERSION").into()),
            ]),
        ),
        (
            "engine",
            mjbridge::native::engine().version_string.as_str().into(),
        ),
        ("platform", platform().into()),
        ("profile", l.endpoint.profile().name().into()),
        ("continuation_steps", u64::from(opts.steps).into()),
        (
            "checks",
            Value::Arr(checks.iter().map(Check::value).collect()),
        ),
        (
            "warnings",
            Value::Arr(warnings.iter().map(|w| w.as_str().into()).collect()),
        ),
    ])
}

/// What changed since a stored gate.json whose digest is not the package's now (empty when it
/// is).
fn stale_since(previous: &Value, covered: &Value, digest: &str) -> Vec<String> {
    if member(previous, "digest").map(|d| d.to_json()) == Some(Value::from(digest).to_json()) {
        return Vec::new();
    }
    let mut c = changes_since(previous, covered);
    if c.is_empty() {
        c.push("its digest does not match what it says it covers".into());
    }
    c
}

/// `--check`: the stored gate.json (its text and how it parsed) is exactly what this gate
/// writes; else why not.
fn check_current(
    previous: Option<(
        &str,
        &std::result::Result<Value, mjbridge::outcome::Refusal>,
    )>,
    text: &str,
    value: &Value,
    digest: &str,
    stale: &[String],
) -> std::result::Result<(), String> {
    match previous {
        None => Err(format!("there is no {GATE} to check")),
        Some((_, Err(r))) => Err(format!("{GATE} is unreadable: {r}")),
        Some((t, _)) if t == text => Ok(()),
        Some((_, Ok(p))) if !stale.is_empty() => Err(format!(
            "{GATE} is stale: its digest {} is not the digest of the package as it is now ({digest}); since it was written: {}. Run `mjbridge package gate` (and regenerate first if a model changed)",
            member(p, "digest").map_or("(none)".into(), |d| d.to_json()),
            stale.join(", ")
        )),
        Some((_, Ok(p))) => Err(format!(
            "{GATE} is not what a fresh gate writes: {}",
            reference::describe_plain(&reference::diff_values(p, value)).join("; ")
        )),
    }
}

/// Why a gate failed: the failed checks, and what to do when reference.json is out of date.
fn failure(checks: &[Check], diffs: &[String]) -> String {
    let failed: Vec<&str> = checks
        .iter()
        .filter(|c| c.verdict == Verdict::Fail)
        .map(|c| c.name)
        .collect();
    let hint = if diffs.is_empty() {
        String::new()
    } else {
        let files: Vec<String> = diffs
            .iter()
            .filter_map(|d| d.strip_prefix("model file "))
            .filter_map(|d| d.split(' ').next())
            .map(str::to_owned)
            .collect();
        format!(
            ". reference.json differs from the live endpoint ({} difference(s) listed above{}): run `mjbridge package regenerate`, review the change, and gate again",
            diffs.len(),
            if files.is_empty() {
                String::new()
            } else {
                format!("; model files changed: {}", files.join(", "))
            }
        )
    };
    format!("gate failed: {}{hint}", failed.join(", "))
}
