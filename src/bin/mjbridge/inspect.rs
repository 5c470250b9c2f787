//! `checkpoint validate` (the validation `mjb_restore` runs first, against a package's model,
//! restoring nothing) and `checkpoint inspect` (what a checkpoint or world document holds).

use crate::doc::{self, ValueExt};
use crate::reference::{self, member};
use crate::{progress, Problem, Result};
use crate::{say, say_raw};
use mjbridge::doc::{obj, Value};
use std::path::Path;

fn read_file(file: &Path) -> Result<Vec<u8>> {
    std::fs::read(file)
        .map_err(|e| Problem::Unreadable(format!("{} cannot be read: {e}", file.display())))
}

/// `mjbridge checkpoint validate --package DIR FILE`.
pub fn validate(package: &Path, file: &Path) -> Result<()> {
    let bytes = read_file(file)?;
    let l = reference::load(package)?;
    progress::clear_line();
    match l.endpoint.validate_checkpoint(&bytes) {
        Ok(c) if c.model_checked() => {
            say!(
                "{}: valid for package {} ({}, engine {}, model {}): restoring it would be admitted at tick {}",
                file.display(),
                l.manifest.name,
                l.endpoint.profile().name(),
                mjbridge::native::engine().version_string,
                l.endpoint.shape().fingerprint,
                c.tick()
            );
            Ok(())
        }
        Ok(c) => {
            say!(
                "{}: fits package {} ({}, engine {}, the descriptor's dimensions, seed): restoring it would be admitted at tick {}",
                file.display(),
                l.manifest.name,
                l.endpoint.profile().name(),
                mjbridge::native::engine().version_string,
                c.tick()
            );
            say!(
                "  a bare checkpoint does not name the model's content, so another model with the same dimensions would pass too; a world document (mjb_snapshot) carries the model's fingerprint and is checked against the package's model"
            );
            Ok(())
        }
        Err(r) => {
            say!("{}: refused ({})", file.display(), r.outcome.name());
            say!("  reason:  {}", r.reason.name());
            if let Some(p) = r.pointer.as_deref().filter(|p| !p.is_empty()) {
                say!("  pointer: {p}");
            }
            say!("  message: {}", r.message);
            Err(Problem::Reported)
        }
    }
}

fn len_of(v: Option<&Value>) -> Value {
    match v {
        Some(Value::Arr(a)) => (a.len() as u64).into(),
        _ => Value::Null,
    }
}

/// `mjbridge checkpoint inspect [--package DIR] [--json] FILE`.
pub fn inspect(file: &Path, package: Option<&Path>, as_json: bool) -> Result<()> {
    let bytes = read_file(file)?;
    let doc = doc::parse(&bytes).map_err(|r| {
        Problem::Failed(format!(
            "{} is not a strict JSON document: {} at {}: {}",
            file.display(),
            r.reason.name(),
            r.pointer.as_deref().unwrap_or("(no pointer)"),
            r.message
        ))
    })?;
    let mut problems = Vec::new();
    let (kind, cp, hash) = match member(&doc, "world") {
        Some(w) => {
            let (stored, recomputed) = mjbridge::world::recompute_hash(&bytes)
                .map_err(|r| Problem::Failed(format!("{}: {r}", file.display())))?;
            let recomputed = recomputed.unwrap_or_default();
            let stored = stored.map_or(Value::Null, Value::from);
            let matches = stored.as_str("").ok() == Some(recomputed.as_str());
            if !matches {
                problems.push("state_hash does not match the world object".to_owned());
            }
            let hash = obj([
                ("stored", stored),
                ("recomputed", recomputed.into()),
                ("matches", Value::Bool(matches)),
            ]);
            (
                "world document",
                member(w, "native_checkpoint")
                    .cloned()
                    .unwrap_or(Value::Null),
                hash,
            )
        }
        None => ("checkpoint document", doc.clone(), Value::Null),
    };
    let f = |k: &str| member(&cp, k).cloned().unwrap_or(Value::Null);
    if matches!(f("profile"), Value::Null) {
        problems.push("no profile: this is not a checkpoint or world document".into());
    }
    let (segments, note) = segments(&cp, package)?;
    let summary = obj([
        ("document", kind.into()),
        ("profile", f("profile")),
        ("engine", f("engine")),
        ("engine_version", f("engine_version")),
        ("descriptor", f("descriptor")),
        ("signature", f("signature")),
        ("size", f("size")),
        ("values", len_of(member(&cp, "values"))),
        ("tick", f("tick")),
        ("seed", f("seed")),
        ("time", f("time")),
        ("qpos", len_of(member(&cp, "qpos"))),
        ("qvel", len_of(member(&cp, "qvel"))),
        ("ctrl", len_of(member(&cp, "ctrl"))),
        ("act", len_of(member(&cp, "act"))),
        ("bytes", (bytes.len() as u64).into()),
        ("state_hash", hash),
        ("segments", segments),
        ("segments_note", note.into()),
    ]);
    progress::clear_line();
    if as_json {
        say_raw!("{}", crate::pretty::to_pretty(&summary));
    } else {
        say!("{}: {kind}", file.display());
        print_summary(&summary);
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Problem::Failed(format!(
            "{}: {}",
            file.display(),
            problems.join("; ")
        )))
    }
}

/// The summary for people: one line per member present (the document kind, first, is in the
/// heading already), the segments as a table.
fn print_summary(summary: &Value) {
    let Value::Obj(fields) = summary else {
        return;
    };
    for (k, v) in fields.iter().skip(1) {
        match (k.as_str(), v) {
            (_, Value::Null) => {}
            ("segments", Value::Arr(segs)) => {
                say!("  segments:");
                for s in segs {
                    say!(
                        "    {:<14} offset {:>6}  length {:>6}",
                        member(s, "name")
                            .and_then(|n| n.as_str("").ok())
                            .unwrap_or(""),
                        member(s, "offset").map_or(String::new(), |v| v.to_json()),
                        member(s, "length").map_or(String::new(), |v| v.to_json())
                    );
                }
            }
            ("qpos" | "qvel" | "ctrl" | "act" | "values", v) => {
                say!("  {k}: {} numbers", v.to_json())
            }
            (_, Value::Str(s)) => say!("  {k}: {s}"),
            (_, v) => say!("  {k}: {}", v.to_json()),
        }
    }
}

/// The state segments of an integration checkpoint, from the package's model (the layout is
/// derived from the engine's own state sizes; it is not guessed from the descriptor).
fn segments(cp: &Value, package: Option<&Path>) -> Result<(Value, String)> {
    let sig = member(cp, "signature").and_then(|v| v.as_u64("").ok());
    let size = member(cp, "size").and_then(|v| v.as_u64("").ok());
    let (Some(sig), Some(size)) = (sig, size) else {
        return Ok((
            Value::Null,
            "no native state vector (not mujoco_integration_v1)".into(),
        ));
    };
    let Some(dir) = package else {
        return Ok((
            Value::Null,
            "derivable only from the model: pass --package DIR".into(),
        ));
    };
    let l = reference::load(dir)?;
    let shape = l.endpoint.shape();
    let Some(layout) = shape.layout.as_ref() else {
        return Ok((
            Value::Null,
            format!(
                "this engine (MuJoCo {}) has no state API",
                mjbridge::native::engine().version_string
            ),
        ));
    };
    if u64::from(layout.sig) != sig || layout.size as u64 != size {
        return Ok((
            Value::Null,
            format!(
                "package {} on this engine has signature {} and size {}; the checkpoint has {sig} and {size}",
                l.manifest.name, layout.sig, layout.size
            ),
        ));
    }
    let segs = layout
        .segments
        .iter()
        .map(|s| {
            obj([
                ("name", s.name.as_str().into()),
                ("offset", (s.offset as u64).into()),
                ("length", (s.len as u64).into()),
            ])
        })
        .collect();
    Ok((
        Value::Arr(segs),
        format!("from package {}'s model on this engine", l.manifest.name),
    ))
}
