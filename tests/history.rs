//! History and rewind (config `"history"`, `mjb_rewind`, `mjb_history_info`): every tick of
//! the window comes back byte for byte, through input writes every tick, world writes,
//! restores and restore-point applies; refusals change nothing; a replay that diverges is
//! caught and rolled back; rewinds race stop and free.

mod common;

use common::*;
use mjbridge::endpoint::WAIT_FOREVER;
use mjbridge::ffi::*;
use mjbridge::outcome::{Outcome, Reason};
use std::collections::BTreeMap;

const WINDOW: u64 = 200;
const EVERY: u64 = 16;

fn history(window: u64, every: u64) -> String {
    format!("\"history\":{{\"window_ticks\":{window},\"keyframe_every\":{every}}}")
}

fn rewind(ep: &Ep, tick: u64) -> (Outcome, mjb_report) {
    let mut r = mjb_report::default();
    let o = unsafe { mjb_rewind(ep.0, tick, WAIT_FOREVER, &mut r) };
    assert_eq!(r.outcome, o as i32);
    (o.into(), r)
}

fn info(ep: &Ep) -> (Outcome, mjb_history_state) {
    let mut i = mjb_history_state {
        oldest_tick: 7,
        ..Default::default()
    };
    let o = unsafe { mjb_history_info(ep.0, &mut i) };
    (o.into(), i)
}

fn info_ok(ep: &Ep) -> mjb_history_state {
    let (o, i) = info(ep);
    assert_eq!(o, Outcome::Ok, "{:?}", last_error());
    i
}

/// A small deterministic generator (the test's random ticks and inputs).
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

/// What a host leaves at each tick: every mutation of the recorder's kinds. Returns the
/// checkpoint read at each tick just before the endpoint left it (after the tick's inputs),
/// and the final one at the newest tick.
fn drive(ep: &Ep, ticks: u64, rng: &mut Lcg) -> BTreeMap<u64, String> {
    let d = ep.dims();
    let (nv, nx) = (d.nv as usize, 6 * d.nbody as usize);
    let mut seen: BTreeMap<u64, String> = BTreeMap::new();
    let mut saved: Vec<(u64, String)> = Vec::new();
    let mut rp: *mut mjb_restore_point = std::ptr::null_mut();
    for i in 0..ticks {
        let tick = ep.frame_info().tick;
        // Discontinuities: a restore of a checkpoint taken 20-40 ticks earlier, and a
        // restore-point apply; the ticks after the restored one are then the new branch's.
        let jump = if i % 97 == 96 {
            saved.iter().rev().find(|(t, _)| *t + 20 <= tick).cloned()
        } else {
            None
        };
        if let Some((t, cp)) = jump {
            assert_eq!(ep.restore(&cp).0, Outcome::Ok, "{:?}", last_error());
            seen.retain(|k, _| *k < t);
        } else if i % 61 == 60 && !rp.is_null() {
            let mut info = mjb_read_info::default();
            assert_eq!(
                unsafe { mjb_restore_point_info(rp, &mut info) },
                Outcome::Ok
            );
            if info.tick > tick {
                // Not a jump ahead (that clears the history: its own test).
                continue;
            }
            let mut r = mjb_report::default();
            let o = unsafe { mjb_restore_point_apply(ep.0, rp, WAIT_FOREVER, &mut r) };
            assert_eq!(o, Outcome::Ok, "{:?}", last_error());
            seen.retain(|k, _| *k < info.tick);
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
            let p = [0.5 + rng.unit() * 0.1, rng.unit() * 0.1, 0.7];
            ep.input_ok(Field::MocapPos, 0, &p);
        }
        if i % 7 == 0 && Field::EqActive.available() {
            ep.input_ok(Field::EqActive, 1, &[(i % 2) as f64]);
        }
        if i % 11 == 0 {
            let doc = format!("{{\"world\":{{\"ctrl\":[{},{}]}}}}", rng.unit(), rng.unit());
            assert_eq!(ep.world_write(&doc), Outcome::Ok, "{:?}", last_error());
        }
        let cp = ep.checkpoint();
        if i % 10 == 0 {
            saved.push((tick, cp.clone()));
        }
        if i % 37 == 0 {
            if !rp.is_null() {
                assert_eq!(unsafe { mjb_restore_point_free(rp) }, Outcome::Ok);
            }
            rp = std::ptr::null_mut();
            let o = unsafe { mjb_restore_point_capture(ep.0, WAIT_FOREVER, &mut rp) };
            assert_eq!(o, Outcome::Ok);
        }
        seen.insert(tick, cp);
        ep.step_ok(1);
    }
    if !rp.is_null() {
        assert_eq!(unsafe { mjb_restore_point_free(rp) }, Outcome::Ok);
    }
    seen.insert(ep.frame_info().tick, ep.checkpoint());
    seen
}

#[cfg(mjb_integration)]
fn recording(window: u64, every: u64) -> Ep {
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
fn rewind_restores_every_tick_of_the_window_byte_for_byte() {
    let ep = recording(WINDOW, EVERY);
    let mut rng = Lcg(26);
    let seen = drive(&ep, 800, &mut rng);
    let newest = ep.frame_info().tick;
    let i = info_ok(&ep);
    assert_eq!(i.newest_tick, newest);
    // The window is the last WINDOW ticks of the newest tick reached; a restore back (at most
    // 40 ticks here) shortens it until the endpoint is there again.
    assert!(i.oldest_tick + WINDOW <= newest + 80, "{i:?}");
    assert!(i.oldest_tick + WINDOW + EVERY > newest, "{i:?}");
    assert!(
        i.keyframes >= WINDOW / EVERY && i.keyframes <= WINDOW / EVERY + 36,
        "{i:?}"
    );
    assert!(i.bytes > 0);
    // Random ticks across the window, its two ends and back to the tip, in any order.
    let mut ticks: Vec<u64> = (0..60)
        .map(|_| i.oldest_tick + rng.next() % (newest - i.oldest_tick + 1))
        .collect();
    ticks.extend([
        i.oldest_tick,
        newest,
        newest - 1,
        i.oldest_tick + EVERY,
        newest,
    ]);
    for t in ticks {
        let (o, r) = rewind(&ep, t);
        assert_eq!(o, Outcome::Ok, "rewind to {t}: {:?}", last_error());
        assert_eq!((r.tick_after, reason_of(&r)), (t, Reason::None));
        assert_eq!(ep.checkpoint(), seen[&t], "tick {t}");
        // Scrubbing keeps the window.
        assert_eq!(info_ok(&ep).newest_tick, newest);
    }
}

#[cfg(mjb_integration)]
#[test]
fn a_mutation_after_a_rewind_starts_a_new_branch() {
    let ep = recording(100, 10);
    let mut rng = Lcg(7);
    let seen = drive(&ep, 150, &mut rng);
    let newest = ep.frame_info().tick;
    let mid = newest - 40;
    assert_eq!(rewind(&ep, mid).0, Outcome::Ok);
    // A new branch from mid: other inputs, 5 ticks.
    let mut branch = BTreeMap::new();
    for _ in 0..5 {
        assert_eq!(ep.set_ctrl(&[0.9, -0.9]), Outcome::Ok);
        branch.insert(ep.frame_info().tick, ep.checkpoint());
        ep.step_ok(1);
    }
    branch.insert(ep.frame_info().tick, ep.checkpoint());
    let i = info_ok(&ep);
    assert_eq!(i.newest_tick, mid + 5);
    // The old branch's ticks after mid + 5 are gone: refused, nothing changed.
    let (hash, tick) = (ep.hash(), ep.frame_info());
    let (o, r) = rewind(&ep, newest);
    assert_eq!((o, reason_of(&r)), (Outcome::Rejected, Reason::OutOfRange));
    assert_eq!((ep.hash(), ep.frame_info().frame), (hash, tick.frame));
    // Before mid: the recorded past; from mid on: the new branch.
    for (t, want) in [(mid - 3, &seen[&(mid - 3)]), (mid + 2, &branch[&(mid + 2)])] {
        assert_eq!(rewind(&ep, t).0, Outcome::Ok, "{:?}", last_error());
        assert_eq!(&ep.checkpoint(), want, "tick {t}");
    }
    assert_eq!(rewind(&ep, mid + 5).0, Outcome::Ok);
    assert_eq!(ep.checkpoint(), branch[&(mid + 5)]);
}

#[cfg(mjb_integration)]
#[test]
fn ticks_outside_the_window_are_refused_with_nothing_changed() {
    let ep = recording(50, 10);
    let mut rng = Lcg(3);
    drive(&ep, 130, &mut rng);
    let i = info_ok(&ep);
    let before = (ep.hash(), ep.frame_info(), ep.safety());
    for t in [0, i.oldest_tick - 1, i.newest_tick + 1, u64::MAX] {
        let (o, r) = rewind(&ep, t);
        assert_eq!((o, reason_of(&r)), (Outcome::Rejected, Reason::OutOfRange));
        assert_eq!(
            (r.tick_before, r.tick_after),
            (i.newest_tick, i.newest_tick)
        );
        let e = last_error();
        let window = format!("{}..={}", i.oldest_tick, i.newest_tick);
        assert!(e["message"].as_str().unwrap().contains(&window), "{e}");
        assert_eq!((ep.hash(), ep.frame_info(), ep.safety()), before);
        assert_eq!(info_ok(&ep), i);
    }
    // A precondition that no longer holds: nothing done.
    let stale = mjb_expect {
        flags: MJB_EXPECT_TICK,
        tick: i.newest_tick - 1,
        ..Default::default()
    };
    let mut r = mjb_report::default();
    let o = unsafe { mjb_rewind_if(ep.0, &stale, i.newest_tick - 5, WAIT_FOREVER, &mut r) };
    assert_eq!(
        (Outcome::from(o), reason_of(&r)),
        (Outcome::Rejected, Reason::Precondition)
    );
    assert_eq!((ep.hash(), ep.frame_info(), ep.safety()), before);
    let fresh = mjb_expect {
        flags: MJB_EXPECT_TICK | MJB_EXPECT_FRAME,
        tick: i.newest_tick,
        frame: before.1.frame,
        ..Default::default()
    };
    let o = unsafe { mjb_rewind_if(ep.0, &fresh, i.newest_tick - 5, WAIT_FOREVER, &mut r) };
    assert_eq!(Outcome::from(o), Outcome::Ok, "{:?}", last_error());
}

#[test]
fn without_history_nothing_is_recorded_and_rewind_is_refused() {
    let ep = open_model("contact_act.xml", "");
    ep.set_ctrl(&[0.3, -0.3]);
    ep.step_ok(10);
    let before = (ep.hash(), ep.frame_info());
    let (o, r) = rewind(&ep, 5);
    assert_eq!((o, reason_of(&r)), (Outcome::Rejected, Reason::OutOfRange));
    assert!(last_error()["message"]
        .as_str()
        .unwrap()
        .contains("no history"));
    let (o, i) = info(&ep);
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(i, mjb_history_state::default(), "zeroed on entry");
    assert_eq!((ep.hash(), ep.frame_info()), before);
    let o = unsafe { mjb_history_info(ep.0, std::ptr::null_mut()) };
    assert_eq!(Outcome::from(o), Outcome::InvalidArgument);
    assert_eq!((ep.hash(), ep.frame_info()), before);
}

#[cfg(mjb_integration)]
#[test]
fn a_model_replacement_clears_the_history() {
    let ep = recording(40, 8);
    ep.set_ctrl(&[0.3, -0.3]);
    ep.step_ok(30);
    assert_eq!(info_ok(&ep).oldest_tick, 0);
    ep.replace_model_ok("contact_act.xml");
    let i = info_ok(&ep);
    assert_eq!((i.oldest_tick, i.newest_tick, i.keyframes), (30, 30, 0));
    let hash = ep.hash();
    assert_eq!(rewind(&ep, 10).0, Outcome::Rejected);
    assert_eq!(ep.hash(), hash);
    // Recording starts again on the new model.
    ep.step_ok(12);
    let cp = ep.checkpoint();
    ep.step_ok(3);
    assert_eq!(rewind(&ep, 42).0, Outcome::Ok, "{:?}", last_error());
    assert_eq!(ep.checkpoint(), cp);
}

/// The config's `"history"`: strict, bounds stated, each refusal with its reason and pointer;
/// nothing is opened.
#[test]
fn history_config_refusals_carry_reason_and_pointer() {
    let cases: &[(&str, Reason, &str)] = &[
        ("5", Reason::WrongType, "/history"),
        ("[]", Reason::WrongType, "/history"),
        (
            "{\"window_ticks\":\"10\",\"keyframe_every\":1}",
            Reason::WrongType,
            "/history/window_ticks",
        ),
        (
            "{\"window_ticks\":10.5,\"keyframe_every\":1}",
            Reason::NotAnInteger,
            "/history/window_ticks",
        ),
        (
            "{\"window_ticks\":true,\"keyframe_every\":1}",
            Reason::NotAnInteger,
            "/history/window_ticks",
        ),
        (
            "{\"window_ticks\":0,\"keyframe_every\":1}",
            Reason::OutOfRange,
            "/history/window_ticks",
        ),
        (
            "{\"window_ticks\":1000001,\"keyframe_every\":1000}",
            Reason::OutOfRange,
            "/history/window_ticks",
        ),
        (
            "{\"window_ticks\":10,\"keyframe_every\":0}",
            Reason::OutOfRange,
            "/history/keyframe_every",
        ),
        (
            "{\"window_ticks\":10,\"keyframe_every\":11}",
            Reason::OutOfRange,
            "/history/keyframe_every",
        ),
        (
            "{\"window_ticks\":1000000,\"keyframe_every\":10}",
            Reason::OutOfRange,
            "/history/keyframe_every",
        ),
        (
            "{\"window_ticks\":10}",
            Reason::MissingField,
            "/history/keyframe_every",
        ),
        (
            "{\"keyframe_every\":1}",
            Reason::MissingField,
            "/history/window_ticks",
        ),
        (
            "{\"window_ticks\":10,\"keyframe_every\":2,\"keep\":1}",
            Reason::UnknownField,
            "/history/keep",
        ),
        (
            "{\"window_ticks\":10,\"keyframe_every\":2,\"window_ticks\":10}",
            Reason::DuplicateField,
            "/history/window_ticks",
        ),
    ];
    for (history, reason, pointer) in cases {
        let cfg = format!(
            "{{\"model\":{{\"xml_path\":{}}},\"history\":{history}}}",
            js(&model_path("contact_act.xml"))
        );
        let (o, e) = match try_open(&cfg) {
            Ok(_) => panic!("{history} opened"),
            Err(e) => e,
        };
        assert_eq!(o, Outcome::Rejected, "{history}: {e}");
        assert_eq!(e["reason"], reason.name(), "{history}: {e}");
        assert_eq!(e["pointer"], *pointer, "{history}: {e}");
    }
    // The largest window and the fewest keyframes it allows are accepted; null is none.
    for ok in [
        "{\"window_ticks\":1000000,\"keyframe_every\":245}",
        "{\"window_ticks\":1,\"keyframe_every\":1}",
        "null",
    ] {
        let cfg = format!(
            "{{\"model\":{{\"xml_path\":{}}},\"history\":{ok}}}",
            js(&model_path("contact_act.xml"))
        );
        let opened = try_open(&cfg);
        if cfg!(mjb_integration) {
            assert!(opened.is_ok(), "{ok}: {:?}", opened.err());
        }
    }
}

/// The basic profile keeps no complete state: a history is refused at open, with nothing
/// opened.
#[test]
fn the_basic_profile_refuses_a_history_at_open() {
    let cfg = format!(
        "{{\"model\":{{\"xml_path\":{}}},\"profile\":\"mujoco_basic_v1\",{}}}",
        js(&model_path("contact_act.xml")),
        history(10, 2)
    );
    let (o, e) = try_open(&cfg).err().expect("refused");
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(e["reason"], "MJB_REASON_PROFILE");
    assert_eq!(e["pointer"], "/history");
}

/// A rewind is admitted while stopped, like a restore: the endpoint stays stopped and its stop
/// history is kept.
#[cfg(mjb_integration)]
#[test]
fn a_rewind_is_admitted_while_stopped_and_keeps_the_stop_history() {
    let ep = recording(60, 6);
    let mut rng = Lcg(11);
    let seen = drive(&ep, 40, &mut rng);
    let stopped = ep.stop();
    let (o, _) = ep.step(1);
    assert_eq!(o, Outcome::Rejected);
    let t = ep.frame_info().tick - 17;
    assert_eq!(rewind(&ep, t).0, Outcome::Ok, "{:?}", last_error());
    assert_eq!(ep.checkpoint(), seen[&t]);
    let s = ep.safety();
    assert!(s.stopped);
    assert_eq!(
        (s.stop_count, s.first_stop_tick, s.last_stop_tick),
        (
            stopped.stop_count,
            stopped.first_stop_tick,
            stopped.last_stop_tick
        )
    );
}

/// A rewind of `ep` to `tick` with a stop latched `after` it was admitted (by another thread):
/// its answer and how long it took.
#[cfg(mjb_integration)]
fn rewind_stopped_after(
    ep: &Ep,
    tick: u64,
    after: std::time::Duration,
) -> ((Outcome, mjb_report), std::time::Duration) {
    let raw = ep.0 as usize;
    let busy = ep.safety().in_flight;
    let stopper = std::thread::spawn(move || {
        let ep = raw as *mut mjb_endpoint;
        let mut s = mjb_safety_state::default();
        // The rewind is admitted once its work is in flight.
        while s.in_flight == busy {
            assert_eq!(unsafe { mjb_safety_read(ep, &mut s) }, Outcome::Ok);
            std::hint::spin_loop();
        }
        std::thread::sleep(after);
        assert_eq!(unsafe { mjb_stop(ep, &mut s) }, Outcome::Ok);
    });
    let start = std::time::Instant::now();
    let answer = rewind(ep, tick);
    let took = start.elapsed();
    stopper.join().expect("the stopper panicked");
    (answer, took)
}

/// A stop latched while a rewind replays ends the replay at the next engine step, as a stop
/// ends a step call: the rewind does not land (`MJB_ROLLED_BACK`, `MJB_REASON_STOP_LATCHED`),
/// the endpoint is where it was before it (state, tick, history; the stop latched and
/// counted), and the answer comes long before the whole replay would have ended. A rewind
/// admitted while stopped is halted by a later stop too; one with no stop meanwhile lands.
#[cfg(mjb_integration)]
#[test]
fn a_stop_latched_during_a_rewind_halts_its_replay_and_rolls_it_back() {
    // Long enough that a replay of N steps dwarfs the stop's latency (a stop latched as soon
    // as the rewind is admitted), short enough for the qemu and ThreadSanitizer lanes.
    const N: u64 = 20_000;
    // One keyframe a window: a rewind to the tick before the tip replays N - 1 steps.
    let ep = open_model(
        "contact_act.xml",
        &format!("\"profile\":\"mujoco_integration_v1\",{}", history(N, N)),
    );
    ep.step_ok(N as u32);
    let start = std::time::Instant::now();
    assert_eq!(rewind(&ep, N - 1).0, Outcome::Ok, "{:?}", last_error());
    let full = start.elapsed();
    assert_eq!(rewind(&ep, N).0, Outcome::Ok, "{:?}", last_error());
    ep.step_ok(1);
    let tip = N + 1;
    let before = (ep.hash(), ep.checkpoint(), info_ok(&ep));
    assert_eq!(before.2.oldest_tick, 0);
    for round in 1..=2u64 {
        let ((o, r), took) = rewind_stopped_after(&ep, N - 1, std::time::Duration::ZERO);
        assert_eq!(
            (o, reason_of(&r)),
            (Outcome::RolledBack, Reason::StopLatched),
            "round {round}: {:?}",
            last_error()
        );
        assert_eq!((r.tick_before, r.tick_after), (tip, tip));
        assert!(
            took < full / 2,
            "round {round}: the halted rewind took {took:?}, the whole replay {full:?}"
        );
        eprintln!("round {round}: halted after {took:?}; the whole replay took {full:?}");
        assert_eq!((ep.hash(), ep.checkpoint(), info_ok(&ep)), before);
        assert_eq!(ep.frame_info().tick, tip);
        let s = ep.safety();
        assert!(s.stopped && s.stop_count == round, "{s:?}");
    }
    // Admitted while stopped with no stop meanwhile: it lands, and the history still holds
    // the tip it came from.
    assert_eq!(rewind(&ep, N).0, Outcome::Ok, "{:?}", last_error());
    assert_eq!(rewind(&ep, tip).0, Outcome::Ok, "{:?}", last_error());
    assert_eq!(ep.checkpoint(), before.1);
}

/// Rewinds on several threads while another latches stops and the endpoint is freed: every
/// call answers (done, halted by a stop, or the handle closed), nothing crashes, and the
/// pair outlives the calls inside it.
#[cfg(mjb_integration)]
#[test]
fn rewinds_race_stop_and_free() {
    let mut rewound = 0;
    for round in 0..4 {
        let mut ep = recording(80, 8);
        let mut rng = Lcg(round);
        drive(&ep, 90, &mut rng);
        let i = info_ok(&ep);
        let raw = ep.0 as usize;
        let span = i.newest_tick - i.oldest_tick + 1;
        let rewinders: Vec<_> = (0..2)
            .map(|k| {
                std::thread::spawn(move || {
                    let mut rng = Lcg(round * 10 + k);
                    let mut done = 0u32;
                    loop {
                        let t = i.oldest_tick + rng.next() % span;
                        let mut r = mjb_report::default();
                        let o = unsafe {
                            mjb_rewind(raw as *mut mjb_endpoint, t, WAIT_FOREVER, &mut r)
                        };
                        match Outcome::from(o) {
                            Outcome::Ok => {
                                assert_eq!(r.tick_after, t);
                                done += 1;
                            }
                            // A stop latched during its replay halted it.
                            Outcome::RolledBack => {
                                assert_eq!(reason_of(&r), Reason::StopLatched);
                            }
                            Outcome::InvalidArgument => return done,
                            other => panic!("rewind answered {other:?}: {:?}", last_error()),
                        }
                    }
                })
            })
            .collect();
        let stopper = std::thread::spawn(move || {
            for _ in 0..50 {
                let mut s = mjb_safety_state::default();
                let o = unsafe { mjb_stop(raw as *mut mjb_endpoint, &mut s) };
                if Outcome::from(o) != Outcome::Ok {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
        });
        // The summary read without the lock never tears: a window, within the first one.
        let reader = std::thread::spawn(move || loop {
            let mut h = mjb_history_state::default();
            let o = unsafe { mjb_history_info(raw as *mut mjb_endpoint, &mut h) };
            if Outcome::from(o) != Outcome::Ok {
                return;
            }
            assert!(h.oldest_tick <= h.newest_tick, "{h:?}");
            assert!(
                h.oldest_tick >= i.oldest_tick && h.newest_tick == i.newest_tick,
                "{h:?}"
            );
            assert!(h.keyframes >= 1 && h.bytes > 0, "{h:?}");
        });
        std::thread::sleep(std::time::Duration::from_millis(30));
        assert_eq!(mjb_endpoint_free(ep.0), Outcome::Ok);
        ep.0 = std::ptr::null_mut();
        for t in rewinders {
            rewound += t.join().expect("a rewinder panicked");
        }
        stopper.join().expect("the stopper panicked");
        reader.join().expect("the summary reader panicked");
    }
    assert!(rewound > 0, "no rewind ran before the frees");
}

#[cfg(all(mjb_integration, feature = "fault-injection"))]
#[test]
fn a_replay_that_diverges_is_refused_and_rolled_back() {
    use mjbridge::native::Fault;
    // One keyframe (at 0) and no discontinuity in 60 ticks: a rewind to 40 replays 40 steps.
    let ep = recording(100, 100);
    let mut rng = Lcg(5);
    let seen = drive(&ep, 60, &mut rng);
    assert_eq!(info_ok(&ep).keyframes, 1);
    let t = 40;
    let before = (
        ep.hash(),
        ep.frame_info().tick,
        ep.safety(),
        ep.checkpoint(),
    );
    assert_eq!(
        mjb_test_inject_fault(ep.0, Fault::StepPerturbed as i32),
        Outcome::Ok
    );
    let (o, r) = rewind(&ep, t);
    assert_eq!(
        (o, reason_of(&r)),
        (Outcome::RolledBack, Reason::ReplayDiverged),
        "{:?}",
        last_error()
    );
    assert!(last_error()["message"]
        .as_str()
        .unwrap()
        .contains("not the recorded"));
    assert_eq!(
        (
            ep.hash(),
            ep.frame_info().tick,
            ep.safety(),
            ep.checkpoint()
        ),
        before
    );
    assert!(!ep.safety().fenced);
    // The fault was one-shot: the same rewind now reproduces the tick.
    assert_eq!(rewind(&ep, t).0, Outcome::Ok, "{:?}", last_error());
    assert_eq!(ep.checkpoint(), seen[&t]);
}

#[cfg(all(mjb_integration, feature = "fault-injection"))]
#[test]
fn an_engine_error_in_a_replay_is_rolled_back() {
    use mjbridge::native::Fault;
    let ep = recording(100, 100);
    let mut rng = Lcg(9);
    drive(&ep, 60, &mut rng);
    assert_eq!(info_ok(&ep).keyframes, 1);
    let t = 40;
    let before = (ep.hash(), ep.frame_info().tick, ep.checkpoint());
    assert_eq!(
        mjb_test_inject_fault(ep.0, Fault::StepError as i32),
        Outcome::Ok
    );
    let (o, r) = rewind(&ep, t);
    assert_eq!(
        (o, reason_of(&r)),
        (Outcome::RolledBack, Reason::EngineError),
        "{:?}",
        last_error()
    );
    assert_eq!((ep.hash(), ep.frame_info().tick, ep.checkpoint()), before);
}

/// A restore ahead of the newest tick leaves a gap: the history restarts at the restored tick.
#[cfg(mjb_integration)]
#[test]
fn a_restore_ahead_clears_the_history_and_starts_from_it() {
    let ep = recording(100, 10);
    let mut rng = Lcg(13);
    drive(&ep, 60, &mut rng);
    let ahead = ep.checkpoint();
    let tick = ep.frame_info().tick;
    let back = tick - 30;
    assert_eq!(rewind(&ep, back).0, Outcome::Ok);
    let before = info_ok(&ep);
    assert_eq!(before.newest_tick, tick);
    // A restore (a mutation) of the tip's checkpoint from the rewound tick: a jump ahead.
    assert_eq!(ep.restore(&ahead).0, Outcome::Ok, "{:?}", last_error());
    let i = info_ok(&ep);
    assert_eq!((i.oldest_tick, i.newest_tick, i.keyframes), (tick, tick, 1));
    let hash = ep.hash();
    let (o, r) = rewind(&ep, back);
    assert_eq!((o, reason_of(&r)), (Outcome::Rejected, Reason::OutOfRange));
    assert_eq!(ep.hash(), hash);
    ep.set_ctrl(&[0.1, 0.2]);
    let cp = ep.checkpoint();
    ep.step_ok(4);
    assert_eq!(rewind(&ep, tick).0, Outcome::Ok, "{:?}", last_error());
    assert_eq!(ep.checkpoint(), cp);
}

/// Without discontinuities the window is the last `window_ticks` ticks (at most one keyframe
/// interval more), with one keyframe per interval, and its memory stops growing once full.
#[cfg(mjb_integration)]
#[test]
fn the_window_is_bounded_and_its_memory_steady() {
    let ep = recording(50, 10);
    // Before anything is recorded: an empty window at tick 0, the hash ring already held.
    let at_open = info_ok(&ep);
    assert_eq!(
        (at_open.oldest_tick, at_open.newest_tick, at_open.keyframes),
        (0, 0, 0)
    );
    assert!(at_open.bytes >= (50 + 10) * 8, "{at_open:?}");
    let run = |ticks: u64| {
        for k in 0..ticks {
            assert_eq!(ep.set_ctrl(&[(k % 7) as f64 / 7.0, -0.2]), Outcome::Ok);
            ep.step_ok(1);
        }
        info_ok(&ep)
    };
    let full = run(200);
    assert_eq!(full.newest_tick, 200);
    assert!(
        full.oldest_tick <= 150 && full.oldest_tick > 140,
        "{full:?}"
    );
    assert!(full.keyframes <= 50 / 10 + 2, "{full:?}");
    let later = run(400);
    assert_eq!(later.newest_tick, 600);
    assert_eq!((later.keyframes, later.bytes), (full.keyframes, full.bytes));
    let cp = ep.checkpoint();
    assert_eq!(rewind(&ep, later.oldest_tick).0, Outcome::Ok);
    assert_eq!(rewind(&ep, 600).0, Outcome::Ok);
    assert_eq!(ep.checkpoint(), cp);
}

/// The state at a past tick is the one its step started from: the inputs of `mjb_write_step`
/// at that tick included. Rewinding to it and stepping once reproduces the next tick exactly.
#[cfg(mjb_integration)]
#[test]
fn a_rewound_tick_continues_exactly_into_the_next() {
    let ep = recording(100, 10);
    let mut arrival = BTreeMap::new();
    for i in 0..80u64 {
        let tick = ep.frame_info().tick;
        arrival.insert(tick, ep.checkpoint());
        let ctrl = [((i * 7) % 11) as f64 / 11.0 - 0.5, 0.3];
        if i % 2 == 0 {
            assert_eq!(ep.set_ctrl(&ctrl), Outcome::Ok);
            ep.step_ok(1);
        } else {
            let f = vec![0.01 * i as f64; ep.dims().nv as usize];
            let (o, _) =
                ep.write_step(&[(Field::Ctrl, -1, &ctrl), (Field::QfrcApplied, -1, &f)], 1);
            assert_eq!(o, Outcome::Ok, "{:?}", last_error());
        }
    }
    let newest = ep.frame_info().tick;
    arrival.insert(newest, ep.checkpoint());
    let oldest = info_ok(&ep).oldest_tick;
    // Downwards: each step after a rewind drops the ticks after it, not the ones below.
    for t in (oldest..newest).rev().step_by(3) {
        assert_eq!(rewind(&ep, t).0, Outcome::Ok, "{t}: {:?}", last_error());
        ep.step_ok(1);
        assert_eq!(ep.checkpoint(), arrival[&(t + 1)], "tick {t} + 1");
        assert_eq!(info_ok(&ep).newest_tick, t + 1);
    }
}

/// Every fault the fault-injection build can arm, during a rewind, ends in one of the
/// restore's outcomes: rolled back with the world unchanged (and the endpoint still working),
/// or unknown / panic with the endpoint fenced. Nothing ends in a silently different state.
#[cfg(all(mjb_integration, feature = "fault-injection"))]
#[test]
fn every_fault_during_a_rewind_ends_in_a_restore_outcome() {
    use mjbridge::native::Fault;
    let cases = [
        (
            Fault::SetterError,
            Outcome::RolledBack,
            Reason::SetterFailed,
        ),
        (
            Fault::SetterUnexpected,
            Outcome::Unknown,
            Reason::SetterUnexpectedCompletion,
        ),
        (
            Fault::ReadbackMismatch,
            Outcome::RolledBack,
            Reason::VerificationMismatch,
        ),
        (
            Fault::RollbackUnproven,
            Outcome::Unknown,
            Reason::RollbackUnproven,
        ),
        (Fault::StepError, Outcome::RolledBack, Reason::EngineError),
        (Fault::Panic, Outcome::Panic, Reason::Panic),
        (
            Fault::StepPerturbed,
            Outcome::RolledBack,
            Reason::ReplayDiverged,
        ),
    ];
    for (fault, outcome, reason) in cases {
        let ep = recording(100, 25);
        let mut rng = Lcg(fault as u64);
        let seen = drive(&ep, 60, &mut rng);
        // 40 is 15 ticks past the keyframe at 25: a put and 15 replayed steps.
        let t = 40;
        let before = (ep.hash(), ep.frame_info().tick, ep.checkpoint());
        let hist = info_ok(&ep);
        assert_eq!(
            mjb_test_inject_fault(ep.0, fault as i32),
            Outcome::Ok,
            "{fault:?}"
        );
        let (o, r) = rewind(&ep, t);
        assert_eq!(o, outcome, "{fault:?}: {:?}", last_error());
        if outcome != Outcome::Panic {
            assert_eq!(reason_of(&r), reason, "{fault:?}: {:?}", last_error());
        }
        let s = ep.safety();
        if outcome == Outcome::RolledBack {
            assert!(!s.fenced, "{fault:?}");
            assert_eq!(
                (ep.hash(), ep.frame_info().tick, ep.checkpoint()),
                before,
                "{fault:?}: the world is the one before the rewind"
            );
            // The same window and keyframes (its bytes may include the replay's scratch
            // buffer, kept for the next replay).
            let now = info_ok(&ep);
            assert_eq!(
                (now.oldest_tick, now.newest_tick, now.keyframes),
                (hist.oldest_tick, hist.newest_tick, hist.keyframes),
                "{fault:?}: the history is as it was"
            );
            // The faults are one-shot: the same rewind now lands on the recorded bits.
            assert_eq!(
                rewind(&ep, t).0,
                Outcome::Ok,
                "{fault:?}: {:?}",
                last_error()
            );
            assert_eq!(ep.checkpoint(), seen[&t], "{fault:?}");
        } else {
            assert!(s.fenced, "{fault:?}");
            assert_eq!(s.fence_reason, reason as i32, "{fault:?}");
            assert_eq!(rewind(&ep, t).0, Outcome::Fenced, "{fault:?}");
            assert_eq!(ep.step(1).0, Outcome::Fenced, "{fault:?}");
        }
    }
}

/// A model replacement racing rewinds: each rewind either lands on a tick of the history it
/// was admitted against, or is refused because the replacement cleared it; never a state of
/// one model rewound with the other's records.
#[cfg(mjb_integration)]
#[test]
fn rewinds_race_a_model_replacement() {
    for round in 0..3 {
        let ep = recording(80, 8);
        let mut rng = Lcg(100 + round);
        drive(&ep, 90, &mut rng);
        let i = info_ok(&ep);
        let raw = ep.0 as usize;
        let span = i.newest_tick - i.oldest_tick + 1;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let rewinders: Vec<_> = (0..2)
            .map(|k| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut rng = Lcg(round * 10 + k);
                    let (mut done, mut refused) = (0u32, 0u32);
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        let t = i.oldest_tick + rng.next() % span;
                        let mut r = mjb_report::default();
                        let o = unsafe {
                            mjb_rewind(raw as *mut mjb_endpoint, t, WAIT_FOREVER, &mut r)
                        };
                        match Outcome::from(o) {
                            Outcome::Ok => {
                                assert_eq!(r.tick_after, t);
                                done += 1;
                            }
                            Outcome::Rejected => {
                                assert_eq!(reason_of(&r), Reason::OutOfRange);
                                refused += 1;
                            }
                            other => panic!("rewind answered {other:?}: {:?}", last_error()),
                        }
                    }
                    (done, refused)
                })
            })
            .collect();
        std::thread::sleep(std::time::Duration::from_millis(5));
        ep.replace_model_ok("contact_act.xml");
        std::thread::sleep(std::time::Duration::from_millis(5));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let mut refused = 0;
        for t in rewinders {
            refused += t.join().expect("a rewinder panicked").1;
        }
        assert!(refused > 0, "no rewind ran after the replacement");
        // After the replacement the endpoint is at the tick it had; its history is empty
        // until the next mutation (its window is the current tick alone), and a rewind to
        // another tick of the old window is refused with nothing changed. The last rewind
        // before the replacement may have left the endpoint at the old window's oldest tick,
        // so the target is one the endpoint is not at.
        let before = (ep.hash(), ep.frame_info().tick);
        let old = if before.1 == i.oldest_tick {
            i.oldest_tick + 1
        } else {
            i.oldest_tick
        };
        let w = info_ok(&ep);
        assert_eq!((w.oldest_tick, w.newest_tick), (before.1, before.1));
        let (o, r) = rewind(&ep, old);
        assert_eq!((o, reason_of(&r)), (Outcome::Rejected, Reason::OutOfRange));
        assert_eq!((ep.hash(), ep.frame_info().tick), before);
    }
}

/// The recording document of the whole window (`mjb_history_export`), read back.
#[cfg(mjb_integration)]
fn export(ep: &Ep) -> (String, mjbridge::recording::Recording) {
    let i = info_ok(ep);
    let mut s: *mut mjb_string = std::ptr::null_mut();
    let o = unsafe { mjb_history_export(ep.0, i.oldest_tick, u64::MAX, WAIT_FOREVER, &mut s) };
    assert_eq!(Outcome::from(o), Outcome::Ok, "{:?}", last_error());
    let text = take_string(s);
    let rec = mjbridge::recording::read(text.as_bytes()).expect("the export reads back");
    (text, rec)
}

/// The recording document of the whole window (`mjb_history_export_window`), or its refusal.
#[cfg(mjb_integration)]
fn export_window(ep: *mut mjb_endpoint) -> Result<String, (Outcome, serde_json::Value)> {
    let mut s: *mut mjb_string = std::ptr::null_mut();
    match Outcome::from(unsafe { mjb_history_export_window(ep, WAIT_FOREVER, &mut s) }) {
        Outcome::Ok => Ok(take_string(s)),
        o => Err((o, last_error())),
    }
}

/// The whole window exported while another thread steps as fast as it can (the window slides
/// at every step): `mjb_history_export_window` decides the window under the lock it exports
/// with, so it is never refused, and each export reads back as a recording of a window (its
/// first tick the oldest keyframe's, `N` to `N + K - 1` ticks after it, never an earlier end
/// than the export before). The two calls a host made before (`mjb_history_info`, then
/// `mjb_history_export` from its oldest tick) race the stepper: their refusals are counted.
#[cfg(mjb_integration)]
#[test]
fn the_window_export_is_never_refused_while_another_thread_steps() {
    use std::sync::atomic::{AtomicBool, Ordering};
    const EXPORTS: usize = 2000;
    let (n, k) = (40u64, 8u64);
    let ep = recording(n, k);
    ep.step_ok(n as u32 + 3);
    let raw = ep.0 as usize;
    let done = std::sync::Arc::new(AtomicBool::new(false));
    let stepper = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut steps = 0u64;
            while !done.load(Ordering::Relaxed) {
                let o = unsafe {
                    mjb_endpoint_step(
                        raw as *mut mjb_endpoint,
                        1,
                        WAIT_FOREVER,
                        std::ptr::null_mut(),
                    )
                };
                assert_eq!(o, Outcome::Ok);
                steps += 1;
            }
            steps
        })
    };
    let mut end = 0;
    for i in 0..EXPORTS {
        let text = export_window(ep.0).unwrap_or_else(|e| panic!("export {i} refused: {e:?}"));
        let rec = mjbridge::recording::read(text.as_bytes()).expect("the export reads back");
        assert_eq!(
            rec.from_tick, rec.first_tick,
            "export {i}: from the oldest keyframe"
        );
        let span = rec.end_tick - rec.from_tick;
        assert!(span >= n && span < n + k, "export {i}: {span} ticks");
        assert!(rec.end_tick >= end, "export {i}: ends at {}", rec.end_tick);
        end = rec.end_tick;
    }
    let mut refused = 0;
    for _ in 0..EXPORTS {
        let i = info_ok(&ep);
        let mut s: *mut mjb_string = std::ptr::null_mut();
        let o = unsafe { mjb_history_export(ep.0, i.oldest_tick, u64::MAX, WAIT_FOREVER, &mut s) };
        match Outcome::from(o) {
            Outcome::Ok => drop(take_string(s)),
            _ => refused += 1,
        }
    }
    done.store(true, Ordering::Relaxed);
    let steps = stepper.join().expect("the stepper panicked");
    assert!(steps > EXPORTS as u64 / 10, "the window slid {steps} times");
    eprintln!(
        "{EXPORTS} window exports: none refused; {refused} of {EXPORTS} info-then-export pairs refused; {steps} steps"
    );
}

/// The input writes a recording holds at `tick`: field, object and values.
#[cfg(mjb_integration)]
fn writes_at(rec: &mjbridge::recording::Recording, tick: u64) -> Vec<(Field, i64, Vec<f64>)> {
    rec.events
        .iter()
        .filter_map(|e| match e {
            mjbridge::recording::Event::Input {
                tick: t,
                field,
                id,
                values,
            } if *t == tick => Some((*field, id.map_or(-1, |i| i as i64), values.to_vec())),
            _ => None,
        })
        .collect()
}

/// Writes at one tick with no step between them supersede exactly what they overwrite: a
/// whole-field write every earlier write of its field, an object's write the earlier writes of
/// that object (and a whole-field write when the object is the whole field), never a
/// whole-field write by one object's. The tick still comes back byte for byte.
#[cfg(mjb_integration)]
#[test]
fn writes_at_one_tick_supersede_exactly_what_they_cover() {
    let ep = recording(100, 10);
    ep.set_ctrl(&[0.1, 0.2]);
    ep.step_ok(3);
    let t = 3;
    let nv = ep.dims().nv as usize;
    assert_eq!(ep.field_len(Field::MocapPos), 3, "one mocap body");
    ep.input_ok(Field::Ctrl, -1, &[0.5, 0.6]);
    ep.input_ok(Field::Ctrl, 0, &[0.7]); // after a whole-field write: both kept
    ep.input_ok(Field::Ctrl, 1, &[0.8]);
    ep.input_ok(Field::Ctrl, 1, &[0.9]); // supersedes the 0.8
    let (_, rec) = export(&ep);
    assert_eq!(
        writes_at(&rec, t),
        [
            (Field::Ctrl, -1, vec![0.5, 0.6]),
            (Field::Ctrl, 0, vec![0.7]),
            (Field::Ctrl, 1, vec![0.9]),
        ]
    );
    ep.input_ok(Field::Ctrl, -1, &[-0.1, -0.2]); // supersedes all three
    ep.input_ok(Field::Ctrl, 0, &[-0.3]);
    ep.input_ok(Field::QfrcApplied, -1, &vec![0.01; nv]);
    ep.input_ok(Field::Ctrl, 0, &[-0.4]); // supersedes the -0.3, not the whole write
    ep.input_ok(Field::MocapPos, -1, &[0.5, 0.0, 0.7]);
    ep.input_ok(Field::MocapPos, 0, &[0.5, 0.1, 0.7]); // one object is the whole field
    let (_, rec) = export(&ep);
    assert_eq!(
        writes_at(&rec, t),
        [
            (Field::Ctrl, -1, vec![-0.1, -0.2]),
            (Field::QfrcApplied, -1, vec![0.01; nv]),
            (Field::Ctrl, 0, vec![-0.4]),
            (Field::MocapPos, 0, vec![0.5, 0.1, 0.7]),
        ]
    );
    let at_t = ep.checkpoint();
    assert_eq!(ep.owned_field(Field::Ctrl), [-0.4, -0.2]);
    ep.step_ok(5);
    assert_eq!(rewind(&ep, t).0, Outcome::Ok, "{:?}", last_error());
    assert_eq!(ep.checkpoint(), at_t);
}

/// The keyframes never pass the documented bound, `ceil(N/K) + 34`, and reach it (the bytes
/// stay within theirs): a window
/// of periodic keyframes, then a restore at every tick (each a discontinuity) and a rewind
/// from each new tip (its tip keyframe, added without eviction). Every rewind still lands.
#[cfg(mjb_integration)]
#[test]
fn keyframes_never_pass_the_documented_bound() {
    let (n, k) = (100u64, 10u64);
    let bound = n.div_ceil(k) + 34;
    let ep = recording(n, k);
    let mut most = 0;
    let bytes = ep.history_memory_bound(n, k);
    let mut check = |ep: &Ep| {
        let i = info_ok(ep);
        assert!(i.keyframes <= bound, "{i:?}: more than {bound} keyframes");
        assert!(i.bytes <= bytes, "{i:?}: more than {bytes} bytes");
        most = most.max(i.keyframes);
    };
    for j in 0..150u64 {
        assert_eq!(ep.set_ctrl(&[(j % 5) as f64 / 5.0, -0.1]), Outcome::Ok);
        ep.step_ok(1);
        check(&ep);
    }
    for j in 0..60u64 {
        let cp = ep.checkpoint();
        assert_eq!(ep.restore(&cp).0, Outcome::Ok, "{:?}", last_error());
        check(&ep);
        assert_eq!(ep.set_ctrl(&[0.1, (j % 3) as f64 / 3.0]), Outcome::Ok);
        ep.step_ok(1);
        check(&ep);
        let tip = ep.frame_info().tick;
        let cp = ep.checkpoint();
        assert_eq!(rewind(&ep, tip - 2).0, Outcome::Ok, "{:?}", last_error());
        check(&ep);
        assert_eq!(rewind(&ep, tip).0, Outcome::Ok, "{:?}", last_error());
        assert_eq!(ep.checkpoint(), cp);
        check(&ep);
    }
    assert_eq!(most, bound, "the bound is the true maximum");
    let i = info_ok(&ep);
    assert_eq!(
        rewind(&ep, i.oldest_tick).0,
        Outcome::Ok,
        "{:?}",
        last_error()
    );
}

/// A step that fails after a rewind (rolled back: the engine raised; refused: its pre-step
/// state could not be read) leaves the history exactly as it was: the same window, keyframes
/// and bytes, the same export, and the scrubbed ticks after the rewound one kept (a rewind to
/// the old tip lands on it).
#[cfg(all(mjb_integration, feature = "fault-injection"))]
#[test]
fn a_step_rolled_back_or_refused_leaves_the_history_as_it_was() {
    use mjbridge::native::Fault;
    let ep = recording(100, 10);
    let mut rng = Lcg(21);
    let seen = drive(&ep, 80, &mut rng);
    let tip = ep.frame_info().tick;
    assert_eq!(rewind(&ep, tip - 30).0, Outcome::Ok, "{:?}", last_error());
    let (hist, (doc, _)) = (info_ok(&ep), export(&ep));
    let (hash, tick) = (ep.hash(), ep.frame_info().tick);
    for (fault, outcome) in [
        (Fault::StepError, Outcome::RolledBack),
        (Fault::StateReadError, Outcome::Rejected),
    ] {
        assert_eq!(mjb_test_inject_fault(ep.0, fault as i32), Outcome::Ok);
        let (o, r) = ep.step(1);
        assert_eq!(
            (o, reason_of(&r)),
            (outcome, Reason::EngineError),
            "{fault:?}: {:?}",
            last_error()
        );
        assert_eq!((r.tick_before, r.tick_after), (tick, tick), "{fault:?}");
        assert_eq!((ep.hash(), ep.frame_info().tick), (hash.clone(), tick));
        assert_eq!(info_ok(&ep), hist, "{fault:?}: the history is as it was");
        assert_eq!(export(&ep).0, doc, "{fault:?}: the same recording");
    }
    assert_eq!(rewind(&ep, tip).0, Outcome::Ok, "{:?}", last_error());
    assert_eq!(ep.checkpoint(), seen[&tip]);
}

/// The inputs a `mjb_write_step` writes before its steps for the tests below: several fields,
/// one object's write overlapping a whole-field write.
#[cfg(mjb_integration)]
fn step_inputs(nv: usize) -> Vec<(Field, i32, Vec<f64>)> {
    vec![
        (Field::Ctrl, -1, vec![0.7, -0.7]),
        (
            Field::QfrcApplied,
            -1,
            (0..nv).map(|i| 0.01 * i as f64).collect(),
        ),
        (Field::MocapPos, 0, vec![0.45, 0.05, 0.65]),
        (Field::Ctrl, 1, vec![0.3]),
    ]
}

#[cfg(mjb_integration)]
fn borrowed(inputs: &[(Field, i32, Vec<f64>)]) -> Vec<(Field, i32, &[f64])> {
    inputs.iter().map(|(f, id, v)| (*f, *id, &v[..])).collect()
}

/// A `mjb_write_step` whose first step raises is rolled back to the state before the call, its
/// inputs taken back too (`MJB_ROLLED_BACK` promises the prior state), and leaves the history
/// exactly as it was: the same window, keyframes, bytes and export, the scrubbed ticks after
/// a rewind kept (a rewind to the old tip lands on it). A history that starts with such a call
/// stays empty; the call that then takes effect starts it from the state before its inputs.
#[cfg(all(mjb_integration, feature = "fault-injection"))]
#[test]
fn a_write_step_whose_first_step_fails_takes_its_inputs_back_and_leaves_the_history() {
    use mjbridge::native::Fault;
    let ep = recording(100, 10);
    let mut rng = Lcg(23);
    let seen = drive(&ep, 80, &mut rng);
    let tip = ep.frame_info().tick;
    let t = tip - 10;
    assert_eq!(rewind(&ep, t).0, Outcome::Ok, "{:?}", last_error());
    let inputs = step_inputs(ep.dims().nv as usize);
    let before = (ep.hash(), ep.checkpoint(), ep.state_vector().unwrap());
    let (hist, (doc, _)) = (info_ok(&ep), export(&ep));
    for nstep in [1, 4] {
        assert_eq!(
            mjb_test_inject_fault(ep.0, Fault::StepError as i32),
            Outcome::Ok
        );
        let (o, r) = ep.write_step(&borrowed(&inputs), nstep);
        assert_eq!(
            (o, reason_of(&r)),
            (Outcome::RolledBack, Reason::EngineError),
            "{:?}",
            last_error()
        );
        assert_eq!((r.tick_before, r.tick_after), (t, t));
        assert_eq!(
            ep.hash(),
            before.0,
            "nstep {nstep}: the inputs were taken back"
        );
        assert_eq!(ep.checkpoint(), before.1);
        assert!(same_bits(&ep.state_vector().unwrap(), &before.2));
        assert_eq!(
            info_ok(&ep),
            hist,
            "nstep {nstep}: the history is as it was"
        );
        assert_eq!(export(&ep).0, doc, "nstep {nstep}: the same recording");
    }
    // A pre-step state that cannot be read refuses the call before its inputs are written.
    assert_eq!(
        mjb_test_inject_fault(ep.0, Fault::StateReadError as i32),
        Outcome::Ok
    );
    let (o, r) = ep.write_step(&borrowed(&inputs), 1);
    assert_eq!(
        (o, reason_of(&r)),
        (Outcome::Rejected, Reason::EngineError),
        "{:?}",
        last_error()
    );
    assert_eq!(
        (ep.hash(), ep.checkpoint()),
        (before.0.clone(), before.1.clone())
    );
    assert_eq!(info_ok(&ep), hist);
    assert_eq!(export(&ep).0, doc);
    assert_eq!(rewind(&ep, tip).0, Outcome::Ok, "{:?}", last_error());
    assert_eq!(ep.checkpoint(), seen[&tip]);

    // A history that starts with the call.
    let ep = recording(100, 10);
    let (hash, cp, state) = (ep.hash(), ep.checkpoint(), ep.state_vector().unwrap());
    let empty = info_ok(&ep);
    assert_eq!(
        mjb_test_inject_fault(ep.0, Fault::StepError as i32),
        Outcome::Ok
    );
    assert_eq!(ep.write_step(&borrowed(&inputs), 1).0, Outcome::RolledBack);
    assert_eq!((ep.hash(), ep.checkpoint()), (hash, cp));
    assert_eq!(info_ok(&ep), empty, "nothing recorded");
    let (o, _) = ep.write_step(&borrowed(&inputs), 2);
    assert_eq!(o, Outcome::Ok, "{:?}", last_error());
    let (_, rec) = export(&ep);
    assert_eq!(
        rec.keyframe_hashes[0],
        (0, 0, mjbridge::endpoint::state_hash(&state)),
        "the first keyframe is the state before the inputs"
    );
    assert_eq!(writes_at(&rec, 0).len(), inputs.len(), "{:?}", rec.events);
}

/// A `mjb_write_step` whose third step raises: that step is rolled back, the two before it
/// stand, and so do the inputs they consumed (written and recorded at the call's tick).
#[cfg(all(mjb_integration, feature = "fault-injection"))]
#[test]
fn a_write_step_failing_at_a_later_step_keeps_its_inputs_and_the_steps_before() {
    use mjbridge::native::Fault;
    let ep = recording(100, 10);
    let mut rng = Lcg(24);
    drive(&ep, 30, &mut rng);
    let t = ep.frame_info().tick;
    let inputs = step_inputs(ep.dims().nv as usize);
    assert_eq!(
        mjb_test_inject_fault(ep.0, Fault::ThirdStepError as i32),
        Outcome::Ok
    );
    let (o, r) = ep.write_step(&borrowed(&inputs), 5);
    assert_eq!(
        (o, reason_of(&r)),
        (Outcome::RolledBack, Reason::EngineError),
        "{:?}",
        last_error()
    );
    assert_eq!((r.tick_before, r.tick_after), (t, t + 2));
    assert_eq!(ep.owned_field(Field::Ctrl), [0.7, 0.3]);
    let reached = (ep.hash(), ep.checkpoint());
    assert_eq!(info_ok(&ep).newest_tick, t + 2);
    let (_, rec) = export(&ep);
    assert_eq!(writes_at(&rec, t).len(), inputs.len(), "{:?}", rec.events);
    // The tick's state holds the inputs: two steps from it reach the state the call left.
    assert_eq!(rewind(&ep, t).0, Outcome::Ok, "{:?}", last_error());
    assert_eq!(ep.owned_field(Field::Ctrl), [0.7, 0.3]);
    ep.step_ok(2);
    assert_eq!((ep.hash(), ep.checkpoint()), reached);
}

/// A keyframe whose state cannot be read is not taken, and the window is kept: the next step
/// takes it, and every tick still comes back.
#[cfg(all(mjb_integration, feature = "fault-injection"))]
#[test]
fn a_keyframe_that_cannot_be_read_is_taken_at_the_next_step() {
    use mjbridge::native::Fault;
    let ep = recording(50, 10);
    let mut arrival = BTreeMap::new();
    let tick = |ep: &Ep, j: u64, arrival: &mut BTreeMap<u64, String>| {
        assert_eq!(ep.set_ctrl(&[(j % 7) as f64 / 7.0, 0.2]), Outcome::Ok);
        arrival.insert(ep.frame_info().tick, ep.checkpoint());
    };
    for j in 0..29 {
        tick(&ep, j, &mut arrival);
        ep.step_ok(1);
    }
    tick(&ep, 29, &mut arrival);
    let before = info_ok(&ep);
    assert_eq!((before.oldest_tick, before.keyframes), (0, 3), "{before:?}");
    // The step to 30 is due a keyframe; reading it raises.
    assert_eq!(
        mjb_test_inject_fault(ep.0, Fault::StateReadErrorAfterStep as i32),
        Outcome::Ok
    );
    ep.step_ok(1);
    let i = info_ok(&ep);
    assert_eq!(
        (i.oldest_tick, i.newest_tick, i.keyframes),
        (0, 30, 3),
        "the window kept, no keyframe at 30"
    );
    tick(&ep, 30, &mut arrival);
    ep.step_ok(1);
    let i = info_ok(&ep);
    assert_eq!(
        (i.oldest_tick, i.newest_tick, i.keyframes),
        (0, 31, 4),
        "the keyframe taken at 31"
    );
    arrival.insert(31, ep.checkpoint());
    for t in [0, 12, 29, 30, 31, 30] {
        assert_eq!(rewind(&ep, t).0, Outcome::Ok, "{t}: {:?}", last_error());
        assert_eq!(ep.checkpoint(), arrival[&t], "tick {t}");
    }
}

/// A rewind whose tip keyframe cannot be read is refused with nothing changed: the history
/// keeps its window (it was wiped), and the same rewind then lands.
#[cfg(all(mjb_integration, feature = "fault-injection"))]
#[test]
fn a_rewind_whose_tip_cannot_be_read_is_refused_with_the_history_kept() {
    use mjbridge::native::Fault;
    let ep = recording(100, 10);
    let mut rng = Lcg(22);
    let seen = drive(&ep, 45, &mut rng);
    // A write at the tip: the tip is no keyframe yet.
    assert_eq!(ep.set_ctrl(&[0.25, -0.5]), Outcome::Ok);
    let (hist, (doc, _)) = (info_ok(&ep), export(&ep));
    let (hash, tick) = (ep.hash(), ep.frame_info().tick);
    assert_eq!(
        mjb_test_inject_fault(ep.0, Fault::StateReadError as i32),
        Outcome::Ok
    );
    let (o, r) = rewind(&ep, tick - 20);
    assert_eq!(
        (o, reason_of(&r)),
        (Outcome::Rejected, Reason::EngineError),
        "{:?}",
        last_error()
    );
    assert_eq!((ep.hash(), ep.frame_info().tick), (hash, tick));
    assert_eq!(info_ok(&ep), hist);
    assert_eq!(export(&ep).0, doc);
    assert_eq!(rewind(&ep, tick - 20).0, Outcome::Ok, "{:?}", last_error());
    assert_eq!(ep.checkpoint(), seen[&(tick - 20)]);
}
