//! `mjbridge replay RECORDING --model MODEL.xml`: re-execute a recording
//! (`mjb_history_export`) on a fresh endpoint of the model and check every verification point
//! it carries: the state hash of every tick and of every keyframe.
//!
//! The recording is read by the library's strict reader ([`mjbridge::recording::read`]); the
//! engine and the model fingerprint must be the ones it names; its start checkpoint and its
//! restores go through `Endpoint::restore` (the strict checkpoint reader), its inputs through
//! `Endpoint::input_write`, its steps through `Endpoint::step`, as a host's would.

use crate::say;
use mjbridge::doc::{obj, Value};
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
    let ep = Endpoint::open(config.to_json().as_bytes()).map_err(|r| match r.reason {
        Reason::ModelLoad => Failure::Unreadable(format!(
            "the model {} could not be loaded: {}",
            model.display(),
            r.message
        )),
        _ => refused(r, "the recording's profile and seed"),
    })?;
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
