//! `mjbridge replay RECORDING --model MODEL.xml`: re-execute a recording
//! (`mjb_history_export`) on a fresh endpoint of the model and check every verification point
//! it carries: the state hash of every tick and of every keyframe.
//!
//! The recording is read by the library's strict reader ([`mjbridge::recording::read`]); the
//! engine and the model fingerprint must be the ones it names; its start checkpoint and its
//! restores go through `Endpoint::restore` (the strict checkpoint reader), its inputs through
//! `Endpoint::input_write`, its steps through `Endpoint::step`, as a host's would.

use crate::say;
use mjbridge::doc::{obj, Num, Value};
use mjbridge::endpoint::{state_hash, Answer, Endpoint, WAIT_FOREVER};
use mjbridge::outcome::{Outcome, Reason, Refusal};
use mjbridge::recording::{self, Event, Recording};
use std::io::Read as _;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// Exit codes of `replay` beyond the common ones (0 verified, 2 usage, 3 unreadable).
pub const REFUSED: u8 = 4;
pub const DIVERGED: u8 = 5;

/// How long the recording may take to open and read to its end, by default (`--timeout`): a
/// FIFO nobody writes, or a pipe or device that stalls, ends the command instead of holding it.
pub const DEFAULT_TIMEOUT_SECS: u64 = 60;

/// Why a replay did not verify.
enum Failure {
    /// The recording (or the model) cannot be replayed: it was refused before any
    /// verification point was compared.
    Refused(Reason, Option<String>, String),
    /// A verification point differed.
    Diverged(String),
    /// A file could not be read, or the model not loaded.
    Unreadable(String),
}

fn refused(r: Refusal, context: &str) -> Failure {
    Failure::Refused(r.reason, r.pointer, format!("{context}: {}", r.message))
}

fn answer(a: Answer, context: &str) -> Result<(), Failure> {
    match (a.report.outcome, a.detail) {
        (Outcome::Ok, _) => Ok(()),
        (_, Some(r)) => Err(refused(r, context)),
        (o, None) => Err(Failure::Refused(
            a.report.reason,
            None,
            format!("{context}: {}", o.name()),
        )),
    }
}

/// Run the command; the exit code.
pub fn run(file: &Path, model: &Path, timeout: Duration) -> u8 {
    match replay(file, model, timeout) {
        Ok(line) => {
            say!("{line}");
            0
        }
        Err(Failure::Refused(reason, pointer, msg)) => {
            let at = pointer.map(|p| format!(" at {p:?}")).unwrap_or_default();
            say!("refused: {}{at}: {msg}", reason.name());
            REFUSED
        }
        Err(Failure::Diverged(msg)) => {
            say!("diverged: {msg}");
            DIVERGED
        }
        Err(Failure::Unreadable(msg)) => {
            crate::tell(format_args!("error: {msg}"));
            3
        }
    }
}

fn replay(file: &Path, model: &Path, timeout: Duration) -> Result<String, Failure> {
    let bytes = read_recording(file, timeout)?;
    let rec = recording::read(&bytes).map_err(|r| refused(r, "the recording"))?;
    drop(bytes);
    let engine = mjbridge::native::engine();
    if rec.engine != engine.version_string
        || rec.engine_version != i64::from(engine.runtime_version)
    {
        return Err(Failure::Refused(
            Reason::Engine,
            Some("/recording/engine".into()),
            format!(
                "the recording was made on MuJoCo {} ({}); this is MuJoCo {} ({})",
                rec.engine, rec.engine_version, engine.version_string, engine.runtime_version
            ),
        ));
    }
    let config = obj([
        (
            "model",
            obj([("xml_path", Value::Str(model.to_string_lossy().into_owned()))]),
        ),
        ("profile", rec.profile.as_str().into()),
        ("seed", rec.seed.into()),
    ]);
    // At the model configuration the recording was taken at (its checkpoints name it: a
    // recording made after model replacements restores only there).
    let configuration = configuration_of(&rec.descriptor);
    let ep = Endpoint::open_at_configuration(config.to_json().as_bytes(), configuration).map_err(
        |r| match r.reason {
            Reason::ModelLoad => Failure::Unreadable(format!(
                "the model {} could not be loaded: {}",
                model.display(),
                r.message
            )),
            _ => refused(r, "the recording's profile and seed"),
        },
    )?;
    let shape = ep.shape();
    if shape.fingerprint != rec.model_fingerprint {
        return Err(Failure::Refused(
            Reason::ModelFingerprint,
            Some("/recording/model_fingerprint".into()),
            format!(
                "the recording is of model {}; {} is model {}",
                rec.model_fingerprint,
                model.display(),
                shape.fingerprint
            ),
        ));
    }
    check_descriptor(&ep, &rec)?;
    check_keyframe_checks(&rec)?;
    let Some(layout) = shape.layout.as_ref() else {
        return Err(Failure::Refused(
            Reason::Unsupported,
            None,
            "this engine has no state API: nothing to verify against".into(),
        ));
    };
    answer(ep.restore(&rec.start, WAIT_FOREVER), "the start checkpoint")
        .map_err(|f| at(f, "/recording/start"))?;
    let tick = ep
        .with_native(WAIT_FOREVER, |_, tick| tick)
        .map_err(|r| refused(r, "reading the tick"))?;
    if tick != rec.first_tick {
        return Err(Failure::Refused(
            Reason::OutOfRange,
            Some("/recording/tick_hashes/first".into()),
            format!(
                "the start checkpoint is at tick {tick}, the hashes start at {}",
                rec.first_tick
            ),
        ));
    }
    let mut buf = vec![0.0; layout.size];
    let mut hash = |ep: &Endpoint| -> Result<u64, Failure> {
        ep.with_native(WAIT_FOREVER, |mj, _| mj.get_state(layout.sig, &mut buf))
            .map_err(|r| refused(r, "reading the state"))?
            .map_err(|e| Failure::Refused(Reason::EngineError, None, e.message().to_owned()))?;
        Ok(state_hash(&buf))
    };
    verify(&ep, &rec, &mut hash)
}

/// The recording's bytes (`-`: standard input), reading at most one byte more than
/// [`recording::MAX_RECORDING_BYTES`] whatever the file is (a regular file, a pipe, a FIFO,
/// `/dev/zero`, a sparse file of terabytes): a larger one is refused (`MJB_REASON_TOO_LARGE`)
/// without being read further, and memory stays the limit's. The open and the read happen on
/// a thread of their own, waited for at most `timeout` (opening a FIFO blocks until a writer
/// opens it): past it the recording is unreadable (exit 3) and the command ends, leaving the
/// thread to the process's exit.
fn read_recording(file: &Path, timeout: Duration) -> Result<Vec<u8>, Failure> {
    let (tx, rx) = mpsc::channel();
    let path = file.to_path_buf();
    std::thread::Builder::new()
        .name("replay-read".into())
        .spawn(move || {
            // The receiver is gone only when the command ended past its timeout.
            let _ = tx.send(read_at_most(&path));
        })
        .map_err(|e| Failure::Unreadable(format!("{}: {e}", file.display())))?;
    let limit = recording::MAX_RECORDING_BYTES;
    match rx.recv_timeout(timeout) {
        Ok(Ok(bytes)) if bytes.len() > limit => Err(Failure::Refused(
            Reason::TooLarge,
            Some(String::new()),
            format!("the recording: more than {limit} bytes (the limit); read no further"),
        )),
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(e)) => Err(Failure::Unreadable(format!("{}: {e}", file.display()))),
        Err(_) => Err(Failure::Unreadable(format!(
            "{}: not read to its end within {} s (--timeout): a FIFO without a writer, or a \
             pipe or device that stalls",
            file.display(),
            timeout.as_secs_f64()
        ))),
    }
}

/// Open `path` (`-`: standard input) and read at most the limit and one byte more.
fn read_at_most(path: &Path) -> std::io::Result<Vec<u8>> {
    let cap = recording::MAX_RECORDING_BYTES as u64 + 1;
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin().lock().take(cap).read_to_end(&mut bytes)?;
        return Ok(bytes);
    }
    let f = std::fs::File::open(path)?;
    // A regular file says its size: one allocation of exactly it (a sparse file of any size
    // is refused here, read no further than the limit).
    if let Some(m) = f.metadata().ok().filter(|m| m.is_file()) {
        bytes.reserve_exact(m.len().min(cap) as usize);
    }
    f.take(cap).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The `configuration` the recording's descriptor names (0 when it names none: the
/// descriptor check refuses such a descriptor).
fn configuration_of(descriptor: &str) -> u64 {
    let Ok(Value::Obj(members)) = mjbridge::doc::value::parse(descriptor.as_bytes()) else {
        return 0;
    };
    members
        .iter()
        .find(|(k, _)| k == "configuration")
        .and_then(|(_, v)| match v {
            Value::Num(Num::Int(Some(n), _)) => u64::try_from(*n).ok(),
            _ => None,
        })
        .unwrap_or(0)
}

/// The recording's descriptor must be this model's, at the recording's configuration, as the
/// endpoint prints it (compared in canonical form: the recording's hash covers the canonical
/// form only, so a re-indented file is the same recording).
fn check_descriptor(ep: &Endpoint, rec: &Recording) -> Result<(), Failure> {
    let checkpoint = ep
        .checkpoint_read(WAIT_FOREVER)
        .map_err(|r| refused(r, "printing this model's descriptor"))?;
    let ours = mjbridge::doc::value::raw_members(checkpoint.as_bytes())
        .ok()
        .and_then(|m| m.into_iter().find(|(k, _)| k == "descriptor"))
        .map(|(_, v)| v)
        .expect("a checkpoint has a descriptor");
    let canonical = |t: &str| mjbridge::doc::jcs::hash_value(t).ok();
    if canonical(&ours) != canonical(&rec.descriptor) {
        return Err(Failure::Refused(
            Reason::Descriptor,
            Some("/recording/descriptor".into()),
            format!(
                "the recording's descriptor is not the model's at configuration {}: the \
                 recording has {}, this model {ours}",
                ep.shape().configuration,
                shorten(&rec.descriptor)
            ),
        ));
    }
    Ok(())
}

fn shorten(s: &str) -> String {
    match s.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// The keyframe checks the export wrote, and only those: the first is the start's (tick
/// `first_tick`, before any event); every later one is past `from_tick` (the export starts at
/// the last keyframe at or before it) and at a tick of its own (a keyframe supersedes another
/// at its tick); every restore event has its check right after it. (The reader has checked
/// their order and bounds.) A periodic keyframe's check holds the state the tick hashes
/// already imply (the step from a verified state), so a recording without one verifies the
/// same states.
fn check_keyframe_checks(rec: &Recording) -> Result<(), Failure> {
    let bad = |i: usize, msg: String| {
        Failure::Refused(
            Reason::OutOfRange,
            Some(format!("/recording/keyframe_hashes/{i}")),
            msg,
        )
    };
    match rec.keyframe_hashes.first() {
        Some(&(t, 0, _)) if t == rec.first_tick => {}
        _ => {
            return Err(bad(
                0,
                format!(
                    "the first keyframe check must be the start's (tick {}, event 0)",
                    rec.first_tick
                ),
            ))
        }
    }
    for (i, w) in rec.keyframe_hashes.windows(2).enumerate() {
        let (t, _, _) = w[1];
        if t <= w[0].0 {
            return Err(bad(
                i + 1,
                format!("a second keyframe check at tick {t} (one keyframe a tick)"),
            ));
        }
        if t <= rec.from_tick {
            return Err(bad(
                i + 1,
                format!(
                    "a keyframe check at tick {t}, at or before from_tick {}: the recording \
                     would start there",
                    rec.from_tick
                ),
            ));
        }
    }
    for (i, e) in rec.events.iter().enumerate() {
        if let Event::Restore { tick, .. } = e {
            let after = i as u64 + 1;
            // One check a tick, in tick order (checked above): a binary search.
            let found = rec
                .keyframe_hashes
                .binary_search_by_key(tick, |k| k.0)
                .is_ok_and(|k| rec.keyframe_hashes[k].1 == after);
            if !found {
                return Err(Failure::Refused(
                    Reason::OutOfRange,
                    Some(format!("/recording/events/{i}")),
                    format!(
                        "the restore event at tick {tick} has no keyframe check after it \
                         ({{\"tick\": {tick}, \"event\": {after}}})"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Put a refusal without a pointer at `base`.
fn at(f: Failure, base: &str) -> Failure {
    match f {
        Failure::Refused(r, p, m) => {
            Failure::Refused(r, Some(format!("{base}{}", p.unwrap_or_default())), m)
        }
        other => other,
    }
}

/// From the start: at each tick, the keyframe checks and events due there, in order, then
/// the tick's hash, then a step.
fn verify(
    ep: &Endpoint,
    rec: &Recording,
    hash: &mut dyn FnMut(&Endpoint) -> Result<u64, Failure>,
) -> Result<String, Failure> {
    let (mut cursor, mut check) = (0usize, 0usize);
    let diverged = |what: String, t: u64| {
        let verified = match t > rec.first_tick {
            true => format!("ticks {}..={} verified", rec.first_tick, t - 1),
            false => "no tick verified".to_owned(),
        };
        Failure::Diverged(format!("first diverging tick {t}: {what} ({verified})"))
    };
    for t in rec.first_tick..=rec.end_tick {
        loop {
            while let Some(&(kt, ke, kh)) = rec.keyframe_hashes.get(check) {
                if kt != t || ke != cursor as u64 {
                    break;
                }
                let got = hash(ep)?;
                if got != kh {
                    return Err(diverged(
                        format!("keyframe state hash {got:016x}, recorded {kh:016x}"),
                        t,
                    ));
                }
                check += 1;
            }
            match rec.events.get(cursor) {
                Some(e) if e.tick() == t => {
                    let ptr = format!("/recording/events/{cursor}");
                    let a = match e {
                        Event::Input {
                            field, id, values, ..
                        } => ep.input_write(
                            field.index() as i32,
                            id.map_or(-1, i64::from),
                            &values.to_vec(),
                            WAIT_FOREVER,
                        ),
                        Event::Restore { checkpoint, .. } => {
                            ep.restore(&**checkpoint, WAIT_FOREVER)
                        }
                    };
                    answer(a, &format!("event {cursor} at tick {t}")).map_err(|f| at(f, &ptr))?;
                    let now = ep
                        .with_native(WAIT_FOREVER, |_, tick| tick)
                        .map_err(|r| refused(r, "reading the tick"))?;
                    if now != t {
                        return Err(Failure::Refused(
                            Reason::OutOfRange,
                            Some(format!("{ptr}/restore/tick")),
                            format!(
                                "the restore event at tick {t} holds a checkpoint of tick {now}"
                            ),
                        ));
                    }
                    cursor += 1;
                }
                _ => break,
            }
        }
        let want = rec.hash_at(t).expect("the reader checked the length");
        let got = hash(ep)?;
        if got != want {
            return Err(diverged(
                format!("state hash {got:016x}, recorded {want:016x}"),
                t,
            ));
        }
        if t < rec.end_tick {
            answer(ep.step(1, WAIT_FOREVER), &format!("the step from tick {t}"))?;
        }
    }
    if check < rec.keyframe_hashes.len() || cursor < rec.events.len() {
        return Err(Failure::Refused(
            Reason::OutOfRange,
            Some(format!("/recording/keyframe_hashes/{check}")),
            format!(
                "{} keyframe checks and {} events are at no point of the replay",
                rec.keyframe_hashes.len() - check,
                rec.events.len() - cursor
            ),
        ));
    }
    Ok(format!(
        "verified ticks {}..={} ({} ticks, {} keyframes, {} events; requested {}..={})",
        rec.first_tick,
        rec.end_tick,
        rec.end_tick - rec.first_tick + 1,
        rec.keyframe_hashes.len(),
        rec.events.len(),
        rec.from_tick,
        rec.end_tick
    ))
}
