//! Recordings (`mjb_history_export`, `mjbridge replay`): an export after a drive with inputs
//! every tick, world writes, restores and restore-point applies holds every tick's exact
//! state hash; `mjbridge replay` re-executes it in a fresh process; an edited recording
//! diverges at its tick; another model is refused; hostile documents are refused with reason
//! and pointer; bad export calls change nothing.

mod common;

use common::*;
use mjbridge::endpoint::{state_hash, WAIT_FOREVER};
use mjbridge::ffi::*;
use mjbridge::outcome::Outcome;
use mjbridge::recording::{self, Event};
use std::collections::BTreeMap;

fn history(window: u64, every: u64) -> String {
    format!("\"history\":{{\"window_ticks\":{window},\"keyframe_every\":{every}}}")
}

/// A small deterministic generator.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn unit(&mut self) -> f64 {
        (self.next() % 2001) as f64 / 1000.0 - 1.0
    }
}

fn export(ep: &Ep, from: u64, to: u64) -> Result<String, (Outcome, serde_json::Value)> {
    let mut s: *mut mjb_string = std::ptr::null_mut();
    let o: Outcome = unsafe { mjb_history_export(ep.0, from, to, WAIT_FOREVER, &mut s) }.into();
    match o {
        Outcome::Ok => Ok(take_string(s)),
        o => {
            assert!(s.is_null());
            Err((o, last_error()))
        }
    }
}

fn info(ep: &Ep) -> mjb_history_state {
    let mut i = mjb_history_state::default();
    let o = unsafe { mjb_history_info(ep.0, &mut i) };
    assert_eq!(o, Outcome::Ok, "{:?}", last_error());
    i
}

/// Every mutation of the recorder's kinds, for `ticks` steps: ctrl every tick, qfrc/xfrc/
/// mocap writes, world writes, a restore every 97 ticks and a restore-point apply every 61.
/// Returns the hash of the state each tick was left with (and of the newest tick's).
fn drive(ep: &Ep, ticks: u64, rng: &mut Lcg) -> BTreeMap<u64, u64> {
    let d = ep.dims();
    let (nv, nx) = (d.nv as usize, 6 * d.nbody as usize);
    let mut seen = BTreeMap::new();
    let mut saved: Vec<(u64, String)> = Vec::new();
    let mut rp: *mut mjb_restore_point = std::ptr::null_mut();
    for i in 0..ticks {
        let tick = ep.frame_info().tick;
        let jump = match i % 97 == 96 {
            true => saved.iter().rev().find(|(t, _)| *t + 20 <= tick).cloned(),
            false => None,
        };
        if let Some((t, cp)) = jump {
            assert_eq!(ep.restore(&cp).0, Outcome::Ok, "{:?}", last_error());
            seen.retain(|k, _| *k < t);
        } else if i % 61 == 60 && !rp.is_null() {
            let mut ri = mjb_read_info::default();
            assert_eq!(unsafe { mjb_restore_point_info(rp, &mut ri) }, Outcome::Ok);
            if ri.tick <= tick {
                let mut r = mjb_report::default();
                let o = unsafe { mjb_restore_point_apply(ep.0, rp, WAIT_FOREVER, &mut r) };
                assert_eq!(o, Outcome::Ok, "{:?}", last_error());
                seen.retain(|k, _| *k < ri.tick);
            }
        }
        let tick = ep.frame_info().tick;
        assert_eq!(ep.set_ctrl(&[rng.unit(), rng.unit()]), Outcome::Ok);
        if i % 3 == 0 {
            let f: Vec<f64> = (0..nv).map(|_| rng.unit()).collect();
            ep.input_ok(Field::QfrcApplied, -1, &f);
        }
        if i % 5 == 0 {
            let w: Vec<f64> = (0..nx).map(|_| rng.unit() * 0.01).collect();
            ep.input_ok(Field::XfrcApplied, -1, &w);
            ep.input_ok(
                Field::MocapPos,
                0,
                &[0.5 + rng.unit() * 0.1, rng.unit() * 0.1, 0.7],
            );
        }
        if i % 11 == 0 {
            let doc = format!("{{\"world\":{{\"ctrl\":[{},{}]}}}}", rng.unit(), rng.unit());
            assert_eq!(ep.world_write(&doc), Outcome::Ok, "{:?}", last_error());
        }
        if i % 10 == 0 {
            saved.push((tick, ep.checkpoint()));
        }
        if i % 37 == 0 {
            if !rp.is_null() {
                assert_eq!(unsafe { mjb_restore_point_free(rp) }, Outcome::Ok);
            }
            rp = std::ptr::null_mut();
            let o = unsafe { mjb_restore_point_capture(ep.0, WAIT_FOREVER, &mut rp) };
            assert_eq!(o, Outcome::Ok);
        }
        seen.insert(tick, state_hash(&ep.state_vector().unwrap()));
        ep.step_ok(1);
    }
    if !rp.is_null() {
        assert_eq!(unsafe { mjb_restore_point_free(rp) }, Outcome::Ok);
    }
    seen.insert(
        ep.frame_info().tick,
        state_hash(&ep.state_vector().unwrap()),
    );
    seen
}

#[cfg(mjb_integration)]
fn recorder(window: u64, every: u64) -> Ep {
    open_model(
        "contact_act.xml",
        &format!(
            "\"profile\":\"mujoco_integration_v1\",{}",
            history(window, every)
        ),
    )
}

#[cfg(mjb_integration)]
#[test]
fn an_export_holds_every_tick_and_mutation_of_its_range() {
    let ep = recorder(300, 16);
    let mut rng = Lcg(4);
    let seen = drive(&ep, 400, &mut rng);
    let i = info(&ep);
    let from = i.oldest_tick + 5;
    let text = export(&ep, from, u64::MAX).unwrap();
    let rec = recording::read(text.as_bytes()).unwrap();
    assert_eq!((rec.from_tick, rec.end_tick), (from, i.newest_tick));
    assert!(rec.first_tick <= from && from - rec.first_tick < 16 + 40);
    for t in rec.first_tick..=rec.end_tick {
        if let Some(h) = seen.get(&t) {
            assert_eq!(rec.hash_at(t), Some(*h), "tick {t}");
        }
    }
    let restores = rec
        .events
        .iter()
        .filter(|e| matches!(e, Event::Restore { .. }))
        .count();
    assert!(restores >= 2, "{restores} restores");
    let inputs = rec.events.len() - restores;
    assert!(inputs as u64 >= rec.end_tick - rec.first_tick, "{inputs}");
    // A sub-range ends where asked; the export is a read (nothing changed).
    let before = (ep.hash(), ep.frame_info(), info(&ep));
    let part = recording::read(export(&ep, from, from + 20).unwrap().as_bytes()).unwrap();
    assert_eq!(part.end_tick, from + 20);
    assert_eq!(part.hash_at(from + 20), rec.hash_at(from + 20));
    assert_eq!((ep.hash(), ep.frame_info(), info(&ep)), before);
}

#[cfg(mjb_integration)]
#[test]
fn bad_export_calls_are_refused_with_nothing_changed() {
    let ep = recorder(50, 10);
    let mut rng = Lcg(5);
    drive(&ep, 120, &mut rng);
    let i = info(&ep);
    let before = (ep.hash(), ep.frame_info(), ep.safety(), i);
    let window = format!("{}..={}", i.oldest_tick, i.newest_tick);
    for (from, to) in [
        (0, i.newest_tick),
        (i.oldest_tick - 1, i.newest_tick),
        (i.oldest_tick, i.newest_tick + 1),
        (i.newest_tick, i.oldest_tick),
        (u64::MAX, u64::MAX),
    ] {
        let (o, e) = export(&ep, from, to).unwrap_err();
        assert_eq!(o, Outcome::Rejected, "{from}..={to}");
        assert_eq!(e["reason"], "MJB_REASON_OUT_OF_RANGE", "{e}");
        let msg = e["message"].as_str().unwrap();
        assert!(msg.contains(&window) || msg.contains("after"), "{e}");
        assert_eq!((ep.hash(), ep.frame_info(), ep.safety(), info(&ep)), before);
    }
    // NULL out parameter and NULL handle.
    let o =
        unsafe { mjb_history_export(ep.0, i.oldest_tick, i.newest_tick, 0, std::ptr::null_mut()) };
    assert_eq!(o, Outcome::InvalidArgument);
    let mut s: *mut mjb_string = std::ptr::null_mut();
    let o = unsafe { mjb_history_export(std::ptr::null_mut(), 0, 1, 0, &mut s) };
    assert_eq!(
        (Outcome::from(o), s.is_null()),
        (Outcome::InvalidArgument, true)
    );
    assert_eq!((ep.hash(), ep.frame_info(), ep.safety(), info(&ep)), before);
}

#[test]
fn without_history_an_export_is_refused() {
    let ep = open_model("contact_act.xml", "");
    ep.step_ok(3);
    let before = (ep.hash(), ep.frame_info());
    let (o, e) = export(&ep, 0, u64::MAX).unwrap_err();
    assert_eq!(
        (o, e["reason"].as_str()),
        (Outcome::Rejected, Some("MJB_REASON_OUT_OF_RANGE"))
    );
    assert!(e["message"].as_str().unwrap().contains("no history"), "{e}");
    assert_eq!((ep.hash(), ep.frame_info()), before);
}

/// `mjbridge replay FILE --model MODEL` in a fresh process: exit code and stdout.
fn replay(doc: &str, model: &str) -> (i32, String) {
    let dir = std::env::temp_dir().join(format!(
        "mjb-recording-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("recording.json");
    std::fs::write(&file, doc).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mjbridge"))
        .arg("replay")
        .arg(&file)
        .arg("--model")
        .arg(model_path(model))
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code().unwrap_or(-1), text)
}

static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The exit codes docs/command.md states for `replay`.
const REFUSED: i32 = 4;
const DIVERGED: i32 = 5;

/// Re-hash a recording after an edit (so that only the edit differs, not the document hash).
fn rehash(doc: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(doc).unwrap();
    rehash_text(&serde_json::to_string(&v["recording"]).unwrap())
}

/// A document of this `recording` text, with its hash.
fn rehash_text(inner: &str) -> String {
    let hash = mjbridge::doc::jcs::hash_value(inner).unwrap();
    format!("{{\"recording\":{inner},\"recording_hash\":\"{hash}\"}}")
}

/// The `recording` text of a document as exported.
fn inner_text(doc: &str) -> &str {
    let end = doc.rfind(",\"recording_hash\"").unwrap();
    &doc["{\"recording\":".len()..end]
}

#[cfg(mjb_integration)]
#[test]
fn a_replay_in_a_fresh_process_verifies_every_tick() {
    let ep = recorder(300, 16);
    let mut rng = Lcg(7);
    drive(&ep, 260, &mut rng);
    let i = info(&ep);
    let doc = export(&ep, i.oldest_tick + 3, u64::MAX).unwrap();
    let rec = recording::read(doc.as_bytes()).unwrap();
    let (code, out) = replay(&doc, "contact_act.xml");
    assert_eq!(code, 0, "{out}");
    let range = format!("verified ticks {}..={}", rec.first_tick, rec.end_tick);
    assert!(out.contains(&range), "{out}");
    // A restore event whose checkpoint is of another tick than the event's: refused there.
    let k = rec
        .events
        .iter()
        .position(|e| matches!(e, Event::Restore { .. }))
        .expect("the drive restores");
    let mut v: serde_json::Value = serde_json::from_str(&doc).unwrap();
    let t = &mut v["recording"]["events"][k]["restore"]["tick"];
    *t = serde_json::json!(t.as_u64().unwrap() + 1);
    let (code, out) = replay(&rehash(&v.to_string()), "contact_act.xml");
    assert_eq!(code, REFUSED, "{out}");
    assert!(
        out.contains(&format!("at \"/recording/events/{k}/restore/tick\"")),
        "{out}"
    );
}

#[cfg(mjb_integration)]
#[test]
fn an_input_edited_by_one_ulp_diverges_at_its_tick() {
    let ep = recorder(200, 16);
    let mut rng = Lcg(8);
    drive(&ep, 150, &mut rng);
    let i = info(&ep);
    let doc = export(&ep, i.oldest_tick, u64::MAX).unwrap();
    let rec = recording::read(doc.as_bytes()).unwrap();
    // A ctrl input in the middle of the range, after the last restore before it (so no
    // restore hides the edit).
    let (index, tick) = rec
        .events
        .iter()
        .enumerate()
        .filter_map(|(k, e)| match e {
            Event::Input {
                tick,
                field,
                values,
                ..
            } if *field == Field::Ctrl
                && values.to_vec()[0] != 0.0
                && *tick > rec.first_tick + 30 =>
            {
                Some((k, *tick))
            }
            _ => None,
        })
        .find(|(k, t)| {
            !rec.events[*k..]
                .iter()
                .any(|e| matches!(e, Event::Restore { tick, .. } if *tick <= t + 1))
        })
        .expect("a ctrl input not followed by a restore at once");
    let mut v: serde_json::Value = serde_json::from_str(&doc).unwrap();
    let x = &mut v["recording"]["events"][index]["input"]["values"][0];
    let old = x.as_f64().unwrap();
    let new = f64::from_bits(old.to_bits() + 1);
    *x = serde_json::json!(new);
    let edited = rehash(&serde_json::to_string(&v).unwrap());
    let (code, out) = replay(&edited, "contact_act.xml");
    assert_eq!(code, DIVERGED, "{out}");
    assert!(
        out.contains(&format!("first diverging tick {tick}:")),
        "{out}"
    );
}

#[cfg(mjb_integration)]
#[test]
fn a_recording_of_another_model_or_engine_is_refused() {
    let ep = recorder(100, 10);
    let mut rng = Lcg(9);
    drive(&ep, 40, &mut rng);
    let doc = export(&ep, info(&ep).oldest_tick, u64::MAX).unwrap();
    let (code, out) = replay(&doc, "pendulum.xml");
    assert_eq!(code, REFUSED, "{out}");
    assert!(out.contains("MJB_REASON_MODEL_FINGERPRINT"), "{out}");
    let mut v: serde_json::Value = serde_json::from_str(&doc).unwrap();
    v["recording"]["engine"] = serde_json::json!("0.0.1");
    let (code, out) = replay(&rehash(&v.to_string()), "contact_act.xml");
    assert_eq!(code, REFUSED, "{out}");
    assert!(out.contains("MJB_REASON_ENGINE"), "{out}");
    // A recording edited without its hash.
    let (code, out) = replay(
        &doc.replacen("\"tick\":", "\"tick\": ", 1),
        "contact_act.xml",
    );
    assert_eq!(code, 0, "whitespace is not content: {out}");
    let tampered = v.to_string();
    let (code, out) = replay(&tampered, "contact_act.xml");
    assert_eq!(code, REFUSED, "{out}");
    assert!(
        out.contains("MJB_REASON_STATE_HASH") && out.contains("/recording_hash"),
        "{out}"
    );
}

#[cfg(mjb_integration)]
#[test]
fn hostile_recordings_are_refused_with_reason_and_pointer() {
    let ep = recorder(60, 10);
    let mut rng = Lcg(10);
    drive(&ep, 30, &mut rng);
    let doc = export(&ep, info(&ep).oldest_tick, u64::MAX).unwrap();
    let good: serde_json::Value = serde_json::from_str(&doc).unwrap();
    let edit = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut v = good.clone();
        f(&mut v);
        rehash(&v.to_string())
    };
    let cases: Vec<(String, &str, &str)> = vec![
        (
            doc[..doc.len() / 2].to_owned(),
            "MJB_REASON_MALFORMED_JSON",
            "?",
        ),
        (
            edit(&|v| v["recording"]["extra"] = 1.into()),
            "MJB_REASON_UNKNOWN_FIELD",
            "/recording/extra",
        ),
        (
            edit(&|v| v["recording"]["end_tick"] = "10".into()),
            "MJB_REASON_WRONG_TYPE",
            "/recording/end_tick",
        ),
        (
            rehash_text(&inner_text(&doc).replacen(
                "\"end_tick\":",
                "\"end_tick\":123456789012345678901234567890,\"x\":",
                1,
            )),
            "MJB_REASON_OUT_OF_RANGE",
            "/recording/end_tick",
        ),
        (
            edit(&|v| v["recording"]["tick_hashes"]["xxh3_64"][2] = "abc".into()),
            "MJB_REASON_WRONG_TYPE",
            "/recording/tick_hashes/xxh3_64/2",
        ),
        (
            edit(&|v| v["recording"]["tick_hashes"]["xxh3_64"][0] = "0123456789ABCDEF".into()),
            "MJB_REASON_WRONG_TYPE",
            "/recording/tick_hashes/xxh3_64/0",
        ),
        (
            edit(&|v| {
                v["recording"]["tick_hashes"]["xxh3_64"]
                    .as_array_mut()
                    .unwrap()
                    .pop();
            }),
            "MJB_REASON_SIZE",
            "/recording/tick_hashes/xxh3_64",
        ),
        (
            edit(&|v| v["recording"]["events"][0]["input"]["field"] = "qacc".into()),
            "MJB_REASON_UNKNOWN_NAME",
            "/recording/events/0/input/field",
        ),
        (
            edit(&|v| v["recording"]["events"][0]["tick"] = serde_json::json!(u64::MAX)),
            "MJB_REASON_OUT_OF_RANGE",
            "/recording/events/0/tick",
        ),
        (
            edit(&|v| v["recording"]["format"] = "mjbridge_recording_v9".into()),
            "MJB_REASON_UNSUPPORTED",
            "/recording/format",
        ),
        (
            edit(&|v| {
                v["recording"].as_object_mut().unwrap().remove("start");
            }),
            "MJB_REASON_MISSING_FIELD",
            "/recording/start",
        ),
        (
            edit(&|v| v["recording"]["start"]["seed"] = 99.into()),
            "MJB_REASON_SEED",
            "/recording/start/seed",
        ),
    ];
    for (text, reason, pointer) in &cases {
        let (code, out) = replay(text, "contact_act.xml");
        assert_eq!(code, REFUSED, "{reason}: {out}");
        assert!(out.contains(reason), "{reason}: {out}");
        // "?": a pointer, wherever the text was cut.
        let shown = format!("at \"{pointer}\"");
        assert!(out.contains(&shown) || *pointer == "?", "{pointer}: {out}");
        if !reason.ends_with("SEED") {
            // The library's reader says the same.
            let r = recording::read(text.as_bytes()).unwrap_err();
            assert_eq!(r.reason.name(), *reason, "{r:?}");
            match *pointer {
                "?" => assert!(
                    r.pointer
                        .as_ref()
                        .is_some_and(|p| p.starts_with("/recording")),
                    "{r:?}"
                ),
                p => assert_eq!(r.pointer.as_deref(), Some(p), "{r:?}"),
            }
        }
    }
    // Oversize: refused before parsing.
    let big = vec![b' '; recording::MAX_RECORDING_BYTES + 1];
    let r = recording::read(&big).unwrap_err();
    assert_eq!(
        (r.reason.name(), r.pointer.as_deref()),
        ("MJB_REASON_TOO_LARGE", Some(""))
    );
}

#[cfg(mjb_integration)]
#[test]
fn an_export_after_an_emergency_stop_holds_the_ticks_up_to_the_stop() {
    let ep = recorder(500, 25);
    let mut rng = Lcg(11);
    drive(&ep, 120, &mut rng);
    let at_stop = ep.frame_info().tick;
    let hash_at_stop = state_hash(&ep.state_vector().unwrap());
    ep.stop();
    // Steps are refused: the history stops growing.
    assert_eq!(ep.step(1).0, Outcome::Rejected);
    let i = info(&ep);
    assert_eq!(i.newest_tick, at_stop);
    let doc = export(&ep, i.oldest_tick, u64::MAX).unwrap();
    let rec = recording::read(doc.as_bytes()).unwrap();
    assert_eq!(rec.end_tick, at_stop);
    assert_eq!(rec.hash_at(at_stop), Some(hash_at_stop));
    let (code, out) = replay(&doc, "contact_act.xml");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(&format!("..={at_stop}")), "{out}");
}

#[cfg(mjb_integration)]
#[test]
fn an_export_after_a_rewind_is_of_the_kept_timeline() {
    let ep = recorder(200, 16);
    let mut rng = Lcg(12);
    drive(&ep, 150, &mut rng);
    let i = info(&ep);
    let whole = export(&ep, i.oldest_tick, u64::MAX).unwrap();
    let mut r = mjb_report::default();
    let o = unsafe { mjb_rewind(ep.0, i.oldest_tick + 40, WAIT_FOREVER, &mut r) };
    assert_eq!(o, Outcome::Ok, "{:?}", last_error());
    // Scrubbed back: the same timeline, to the same newest tick (and one more keyframe
    // check: the tip the rewind left).
    let scrubbed = export(&ep, i.oldest_tick, u64::MAX).unwrap();
    let (a, b) = (
        recording::read(whole.as_bytes()).unwrap(),
        recording::read(scrubbed.as_bytes()).unwrap(),
    );
    assert_eq!((b.first_tick, b.end_tick), (a.first_tick, a.end_tick));
    assert!(a.tick_hashes == b.tick_hashes && a.events == b.events && a.start == b.start);
    assert!(b.keyframe_hashes.starts_with(&a.keyframe_hashes));
    for doc in [&whole, &scrubbed] {
        let (code, out) = replay(doc, "contact_act.xml");
        assert_eq!(code, 0, "{out}");
    }
}

#[cfg(all(mjb_integration, feature = "fault-injection"))]
#[test]
fn an_export_works_on_a_fenced_endpoint() {
    let ep = recorder(200, 16);
    let mut rng = Lcg(13);
    drive(&ep, 60, &mut rng);
    let i = info(&ep);
    let before = export(&ep, i.oldest_tick, u64::MAX).unwrap();
    let cp = ep.checkpoint();
    assert_eq!(
        mjb_test_inject_fault(ep.0, mjbridge::native::Fault::SetterUnexpected as i32),
        Outcome::Ok
    );
    assert_eq!(ep.restore(&cp).0, Outcome::Unknown);
    assert!(ep.safety().fenced);
    let after = export(&ep, i.oldest_tick, u64::MAX).unwrap();
    assert_eq!(after, before);
}

#[test]
fn replay_usage_and_unreadable_files_have_their_exit_codes() {
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_mjbridge"))
            .args(args)
            .output()
            .unwrap()
            .status
            .code()
    };
    let model = model_path("contact_act.xml");
    assert_eq!(run(&["replay", "recording.json"]), Some(2), "no --model");
    assert_eq!(
        run(&["replay", "/nonexistent/recording.json", "--model", &model]),
        Some(3)
    );
    // Not a recording at all: refused (4), before the model is opened.
    let (code, out) = replay("{}", "contact_act.xml");
    assert_eq!(code, REFUSED, "{out}");
    assert!(out.contains("MJB_REASON_MISSING_FIELD"), "{out}");
}

/// While stopped, input writes are admitted and take effect (a host zeroes its controls, say),
/// and a write supersedes the earlier writes of its tick that it covers: a million writes at
/// the stop tick leave the recorder's bytes as they were after the first thousand, within
/// the documented bound, and the export still holds the stop tick's exact state and verifies
/// in a fresh process.
#[cfg(mjb_integration)]
#[test]
fn writes_while_stopped_keep_the_history_bounded_and_its_export_verifies() {
    let (n, k) = (500, 25);
    let ep = recorder(n, k);
    let mut rng = Lcg(14);
    drive(&ep, 120, &mut rng);
    let at_stop = ep.frame_info().tick;
    ep.stop();
    assert_eq!(ep.step(1).0, Outcome::Rejected, "steps are refused");
    let d = ep.dims();
    let (nv, nbody) = (d.nv as usize, d.nbody as i32);
    let qfrc = vec![0.0; nv];
    let write = |j: u64| {
        let x = (j % 1000) as f64 / 1000.0;
        match j % 8 {
            0..=3 => assert_eq!(ep.set_ctrl(&[x, -x]), Outcome::Ok),
            4 => ep.input_ok(Field::Ctrl, (j % 2) as i32, &[x]),
            5 => ep.input_ok(Field::QfrcApplied, -1, &qfrc),
            6 => ep.input_ok(Field::XfrcApplied, (j % 7) as i32 % nbody, &[x; 6]),
            _ => ep.input_ok(Field::MocapPos, 0, &[0.5, x * 0.1, 0.7]),
        }
    };
    for j in 0..1000 {
        write(j);
    }
    let first = info(&ep);
    for j in 1000..1_000_000 {
        write(j);
    }
    let i = info(&ep);
    assert_eq!(
        i, first,
        "a million writes later the recorder holds what it held"
    );
    assert_eq!(i.newest_tick, at_stop);
    assert!(i.bytes <= ep.history_memory_bound(n, k), "{i:?}");
    let last = state_hash(&ep.state_vector().unwrap());
    let doc = export(&ep, i.oldest_tick, u64::MAX).unwrap();
    let rec = recording::read(doc.as_bytes()).unwrap();
    assert_eq!(rec.end_tick, at_stop);
    assert_eq!(
        rec.hash_at(at_stop),
        Some(last),
        "the last writes are in it"
    );
    let at_tick = rec.events.iter().filter(|e| e.tick() == at_stop).count();
    assert!(
        at_tick <= 1 + 2 + 1 + 7,
        "{at_tick} writes kept at the stop tick"
    );
    let (code, out) = replay(&doc, "contact_act.xml");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(&format!("..={at_stop}")), "{out}");
}

/// A panic during a rewind fences the endpoint, and its history stays: `mjb_history_info`
/// reports what the recorder holds (the tip the rewind kept included), and the export, the
/// incident record, holds the same ticks and writes as before the rewind and verifies in a
/// fresh process.
#[cfg(all(mjb_integration, feature = "fault-injection"))]
#[test]
fn a_panic_during_a_rewind_keeps_the_history_exportable() {
    let ep = recorder(200, 16);
    let mut rng = Lcg(15);
    let seen = drive(&ep, 90, &mut rng);
    // A write at the tip: the rewind keeps a tip keyframe.
    assert_eq!(ep.set_ctrl(&[0.3, 0.1]), Outcome::Ok);
    let tip = ep.frame_info().tick;
    let at_tip = state_hash(&ep.state_vector().unwrap());
    let i = info(&ep);
    let before = recording::read(export(&ep, i.oldest_tick, u64::MAX).unwrap().as_bytes()).unwrap();
    assert_eq!(before.keyframe_hashes.len() as u64, i.keyframes);
    assert_eq!(
        mjb_test_inject_fault(ep.0, mjbridge::native::Fault::Panic as i32),
        Outcome::Ok
    );
    let mut r = mjb_report::default();
    let o = unsafe { mjb_rewind(ep.0, i.oldest_tick + 20, WAIT_FOREVER, &mut r) };
    assert_eq!(o, Outcome::Panic, "{:?}", last_error());
    assert!(ep.safety().fenced);
    let after = info(&ep);
    assert_eq!(
        (after.oldest_tick, after.newest_tick, after.keyframes),
        (i.oldest_tick, tip, i.keyframes + 1),
        "the window, and the tip's keyframe"
    );
    let doc = export(&ep, i.oldest_tick, u64::MAX).unwrap();
    let rec = recording::read(doc.as_bytes()).unwrap();
    assert_eq!(rec.keyframe_hashes.len() as u64, after.keyframes);
    assert_eq!(
        (
            rec.first_tick,
            rec.end_tick,
            &rec.events,
            &rec.tick_hashes[..]
        ),
        (
            before.first_tick,
            before.end_tick,
            &before.events,
            &before.tick_hashes[..]
        )
    );
    assert_eq!(rec.hash_at(tip), Some(at_tip));
    assert_eq!(rec.hash_at(tip - 1), seen.get(&(tip - 1)).copied());
    let (code, out) = replay(&doc, "contact_act.xml");
    assert_eq!(code, 0, "{out}");
}

/// While stopped, a host that writes, rewinds away and back, and writes again at the stop tick
/// (each rewind keeps a tip keyframe there, superseding the last one) leaves the recorder's
/// bytes as they were after the first rounds, and the tick's writes still replay exactly: the
/// rewinds land on the stop tick's latest state and the export verifies.
#[cfg(mjb_integration)]
#[test]
fn writes_between_rewinds_while_stopped_stay_bounded_and_exact() {
    let ep = recorder(200, 16);
    let mut rng = Lcg(16);
    drive(&ep, 70, &mut rng);
    let at_stop = ep.frame_info().tick;
    ep.stop();
    let rewind = |t: u64| {
        let mut r = mjb_report::default();
        let o = unsafe { mjb_rewind(ep.0, t, WAIT_FOREVER, &mut r) };
        assert_eq!(o, Outcome::Ok, "{:?}", last_error());
    };
    let mut first = None;
    for j in 0..300u64 {
        let x = (j % 17) as f64 / 17.0;
        assert_eq!(ep.set_ctrl(&[x, 0.5 - x]), Outcome::Ok);
        ep.input_ok(Field::Ctrl, (j % 2) as i32, &[-x]);
        ep.input_ok(Field::MocapPos, 0, &[0.5, 0.1 * x, 0.7]);
        let cp = ep.checkpoint();
        rewind(at_stop - 1 - j % 5);
        rewind(at_stop);
        assert_eq!(
            ep.checkpoint(),
            cp,
            "round {j}: the stop tick's latest state"
        );
        if j == 10 {
            first = Some(info(&ep));
        }
    }
    let i = info(&ep);
    assert_eq!(Some(i), first, "300 rounds hold what 10 did");
    let doc = export(&ep, i.oldest_tick, u64::MAX).unwrap();
    let rec = recording::read(doc.as_bytes()).unwrap();
    assert_eq!(rec.end_tick, at_stop);
    assert_eq!(
        rec.hash_at(at_stop),
        Some(state_hash(&ep.state_vector().unwrap()))
    );
    let (code, out) = replay(&doc, "contact_act.xml");
    assert_eq!(code, 0, "{out}");
}

/// `mjbridge replay PATH --model contact_act.xml ARGS...` with the child's address space
/// capped at `limit` bytes: exit code, stdout, stderr and how long it took.
fn replay_file(
    path: &std::path::Path,
    args: &[&str],
    limit: u64,
) -> (Option<i32>, String, String, std::time::Duration) {
    use std::os::unix::process::CommandExt as _;
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_mjbridge"));
    cmd.arg("replay")
        .arg(path)
        .arg("--model")
        .arg(model_path("contact_act.xml"))
        .args(args)
        .stdin(std::process::Stdio::null());
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let r = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &r) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let started = std::time::Instant::now();
    let out = cmd.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        started.elapsed(),
    )
}

/// An address space the command runs in comfortably when it reads at most the 64 MiB limit,
/// and that a command reading a file of gigabytes whole would exhaust.
const REPLAY_ADDRESS_SPACE: u64 = 1 << 30;

#[test]
fn replay_reads_at_most_the_limit_of_an_endless_device_or_a_huge_sparse_file() {
    let dir = tempfile::tempdir().unwrap();
    let sparse = dir.path().join("sparse.json");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(16 << 30)
        .unwrap();
    for path in [std::path::Path::new("/dev/zero"), &sparse] {
        let (code, out, err, _) = replay_file(path, &[], REPLAY_ADDRESS_SPACE);
        assert_eq!(code, Some(REFUSED), "{path:?}: {out}{err}");
        assert!(
            out.contains(
                "refused: MJB_REASON_TOO_LARGE at \"\": the recording: more than 67108864 bytes"
            ),
            "{path:?}: {out}{err}"
        );
    }
}

#[test]
fn replay_of_a_fifo_nobody_writes_ends_at_its_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("recording.fifo");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let (code, out, err, took) = replay_file(&fifo, &["--timeout", "1"], REPLAY_ADDRESS_SPACE);
    assert_eq!(code, Some(3), "{out}{err}");
    assert!(
        err.contains("not read to its end within 1 s (--timeout)"),
        "{err}"
    );
    assert!(took < std::time::Duration::from_secs(30), "{took:?}");
    // A usage error: no timeout of 0.
    let (code, _, err, _) = replay_file(&fifo, &["--timeout", "0"], REPLAY_ADDRESS_SPACE);
    assert_eq!(code, Some(2), "{err}");
}

#[test]
fn replay_reads_a_recording_from_standard_input() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mjbridge"))
        .args(["replay", "-", "--model", &model_path("contact_act.xml")])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child.stdin.take().unwrap().write_all(b"{}").unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(REFUSED), "{text}");
    assert!(text.contains("MJB_REASON_MISSING_FIELD"), "{text}");
}

/// A recording taken after model replacements (its checkpoints carry configuration 2) replays:
/// the replay's endpoint opens at the configuration the recording's descriptor names.
#[cfg(mjb_integration)]
#[test]
fn a_recording_taken_after_model_replacements_replays_and_verifies() {
    let ep = recorder(300, 16);
    let mut rng = Lcg(5);
    drive(&ep, 20, &mut rng);
    ep.replace_model_ok("contact_act.xml");
    ep.replace_model_ok("contact_act.xml");
    drive(&ep, 200, &mut rng);
    let i = info(&ep);
    let doc = export(&ep, i.oldest_tick, u64::MAX).unwrap();
    assert!(
        doc.contains("\"configuration\":2"),
        "after two replacements"
    );
    let (code, out) = replay(&doc, "contact_act.xml");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("verified ticks"), "{out}");
}

/// Every member a replay does not reproduce by stepping is checked against what the replay
/// has: the descriptor against the model's, `from_tick` against the start, the keyframe checks
/// against the keyframes an export writes (the start's first, one a tick, each restore's). A
/// recording edited in any of them, and hashed again, is refused with the pointer of the
/// member, never "verified".
#[cfg(mjb_integration)]
#[test]
fn replay_refuses_a_recording_whose_members_disagree_with_what_it_reproduces() {
    use serde_json::{json, Value};
    let ep = recorder(300, 16);
    let mut rng = Lcg(11);
    drive(&ep, 240, &mut rng);
    let i = info(&ep);
    let doc = export(&ep, i.oldest_tick + 20, u64::MAX).unwrap();
    let rec = recording::read(doc.as_bytes()).unwrap();
    assert_eq!(replay(&doc, "contact_act.xml").0, 0, "the export verifies");
    assert!(rec.keyframe_hashes.len() >= 3, "{:?}", rec.keyframe_hashes);
    let restore = rec
        .events
        .iter()
        .position(|e| matches!(e, Event::Restore { .. }))
        .expect("the drive restores inside the window");
    let Event::Restore { tick: rt, .. } = &rec.events[restore] else {
        unreachable!()
    };
    let restore_check = rec
        .keyframe_hashes
        .iter()
        .position(|&(t, e, _)| t == *rt && e == restore as u64 + 1)
        .expect("each restore has its check");
    let v: Value = serde_json::from_str(&doc).unwrap();
    let edited = |f: &dyn Fn(&mut Value)| {
        let mut w = v.clone();
        f(&mut w["recording"]);
        rehash(&w.to_string())
    };
    let second = rec.keyframe_hashes[1].0;
    let cases: Vec<(&str, String, &str, String)> = vec![
        (
            "descriptor emptied",
            edited(&|r| r["descriptor"] = json!({})),
            "MJB_REASON_DESCRIPTOR",
            "/recording/descriptor".into(),
        ),
        (
            "descriptor of another model",
            edited(&|r| {
                let nq = r["descriptor"]["nq"].as_i64().unwrap();
                r["descriptor"]["nq"] = json!(nq + 1);
            }),
            "MJB_REASON_DESCRIPTOR",
            "/recording/descriptor".into(),
        ),
        (
            "from_tick past a later keyframe",
            edited(&|r| r["from_tick"] = json!(second)),
            "MJB_REASON_OUT_OF_RANGE",
            "/recording/keyframe_hashes/1".into(),
        ),
        (
            "the start's check removed",
            edited(&|r| {
                r["keyframe_hashes"].as_array_mut().unwrap().remove(0);
            }),
            "MJB_REASON_OUT_OF_RANGE",
            "/recording/keyframe_hashes/0".into(),
        ),
        (
            "a check duplicated",
            edited(&|r| {
                let a = r["keyframe_hashes"].as_array_mut().unwrap();
                let c = a[1].clone();
                a.insert(2, c);
            }),
            "MJB_REASON_OUT_OF_RANGE",
            "/recording/keyframe_hashes/2".into(),
        ),
        (
            "a restore's check removed",
            edited(&|r| {
                r["keyframe_hashes"]
                    .as_array_mut()
                    .unwrap()
                    .remove(restore_check);
            }),
            "MJB_REASON_OUT_OF_RANGE",
            format!("/recording/events/{restore}"),
        ),
    ];
    for (what, doc, reason, pointer) in cases {
        let (code, out) = replay(&doc, "contact_act.xml");
        assert_eq!(code, REFUSED, "{what}: {out}");
        assert!(
            out.contains(reason) && out.contains(&format!("at \"{pointer}\"")),
            "{what}: {out}"
        );
        assert!(!out.contains("verified"), "{what}: {out}");
    }
}

/// An export whose recording the reader would refuse is refused, with nothing changed: here a
/// start checkpoint over the 1 MiB a restore reads (32,000 controls of 24 characters, printed
/// twice in a checkpoint).
#[cfg(mjb_integration)]
#[test]
fn an_export_its_own_reader_would_refuse_is_refused() {
    let n = 32_000;
    let mut xml = String::from(
        "<mujoco><worldbody><body><joint name=\"j\"/><geom size=\"0.1\"/></body></worldbody><actuator>",
    );
    xml.push_str(&"<motor joint=\"j\"/>".repeat(n));
    xml.push_str("</actuator></mujoco>");
    // A keyframe every 2 ticks: the one at tick 2 holds the controls written at tick 0.
    let ep = open_xml(&xml, &history(100, 2));
    let ctrl: Vec<f64> = (0..n)
        .map(|i| -1.234_567_890_123_456_7e-100 * (1.0 + i as f64 * 1e-9))
        .collect();
    assert_eq!(ep.set_ctrl(&ctrl), Outcome::Ok, "{:?}", last_error());
    ep.step_ok(3);
    let before = (ep.state_vector().unwrap(), info(&ep));
    let Err((o, e)) = export(&ep, 2, u64::MAX) else {
        panic!("an export whose start checkpoint is over 1 MiB was served");
    };
    assert_eq!(o, Outcome::Rejected, "{e}");
    assert_eq!(e["reason"], "MJB_REASON_TOO_LARGE", "{e}");
    let m = e["message"].as_str().unwrap();
    assert!(
        m.contains("checkpoint of tick 2") && m.contains("nothing was exported"),
        "{m}"
    );
    // The range before the controls were kept in a keyframe exports (they are an input event).
    let doc = export(&ep, 0, 1).expect("the first ticks fit");
    recording::read(doc.as_bytes()).expect("and read back");
    let after = (ep.state_vector().unwrap(), info(&ep));
    assert!(same_bits(&before.0, &after.0), "the state is unchanged");
    assert_eq!(
        (before.1.oldest_tick, before.1.newest_tick, before.1.bytes),
        (after.1.oldest_tick, after.1.newest_tick, after.1.bytes)
    );
}
