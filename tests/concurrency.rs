//! Stop, fence and concurrency: stop stays responsive, deadlines bound admission only,
//! nothing tears, nothing is lost. Deterministic: gates and joins, not sleeps, are the proof.

mod common;
#[path = "common/gate.rs"]
mod gate;
use common::*;
use mjbridge::endpoint::WAIT_FOREVER;
use mjbridge::ffi::*;
use mjbridge::outcome::{Outcome, Reason};
use std::thread;

#[test]
fn stop_latches_at_once_while_a_step_is_blocked_in_a_control_callback() {
    let ep = open_model("contact_act.xml", "");
    let g = gate::install(model_of(&ep));
    let stepper = spawn_step(&ep, 5);
    g.wait_entered(1); // inside mj_step, holding the native lock

    let st = ep.stop();
    assert!(st.stopped, "latched without the lock");
    assert!(
        !st.confirmed,
        "a step is in flight: the pause is not confirmed"
    );
    assert_eq!(st.in_flight, 1);
    assert_eq!(ep.safety(), st);
    assert_eq!(mjb_confirm_paused(ep.0), Outcome::Rejected);
    assert_eq!(last_reason(), "MJB_REASON_UNRESOLVED_NATIVE_WORK");
    assert_eq!(mjb_safety_reset(ep.0), Outcome::Rejected);
    assert_eq!(last_reason(), "MJB_REASON_UNRESOLVED_NATIVE_WORK");
    // The lock is held: a read with a deadline is refused as busy.
    let mut s = std::ptr::null_mut();
    assert_eq!(
        unsafe { mjb_world_read(ep.0, 5, &mut s) },
        Outcome::Rejected
    );
    assert_eq!(last_reason(), "MJB_REASON_BUSY");

    g.open();
    let (o, r) = stepper.join().unwrap();
    assert_eq!(o, Outcome::Ok, "halting at a stop is not a failure");
    assert_eq!(reason_of(&r), Reason::StopLatched);
    assert_eq!(
        (r.tick_before, r.tick_after),
        (0, 1),
        "the step in progress finished; no more"
    );

    let st = ep.safety();
    assert!(st.stopped && st.confirmed && st.in_flight == 0);
    assert_eq!(mjb_confirm_paused(ep.0), Outcome::Ok);
    let (o, r) = ep.step(3);
    assert_eq!(
        o,
        Outcome::Rejected,
        "a step admitted after the latch is refused"
    );
    assert_eq!(reason_of(&r), Reason::StopLatched);
    assert_eq!(r.tick_after, 1, "no step taken");
    assert_eq!(mjb_safety_reset(ep.0), Outcome::Ok);
    ep.step_ok(3);
    assert_eq!(ep.safety().stop_count, 1);
}

#[test]
fn acknowledgements_need_a_latched_stop() {
    let ep = open_model("pendulum.xml", "");
    assert_eq!(mjb_confirm_paused(ep.0), Outcome::Rejected);
    assert_eq!(last_reason(), "MJB_REASON_NOT_STOPPED");
    assert_eq!(mjb_safety_reset(ep.0), Outcome::Rejected);
    assert_eq!(last_reason(), "MJB_REASON_NOT_STOPPED");
    let st = ep.stop();
    assert!(st.confirmed, "nothing in flight: confirmed at once");
    assert_eq!(mjb_confirm_paused(ep.0), Outcome::Ok);
    assert_eq!(mjb_safety_reset(ep.0), Outcome::Ok);
    assert!(!ep.safety().stopped);
    let o = unsafe { mjb_stop(ep.0, std::ptr::null_mut()) };
    assert_eq!(o, Outcome::Ok, "state is nullable");
}

#[test]
fn restore_past_its_deadline_is_busy_and_never_takes_effect_later() {
    let ep = open_model("contact_act.xml", "");
    ep.step_ok(10);
    let cp = ep.checkpoint();
    let g = gate::install(model_of(&ep));
    let stepper = spawn_step(&ep, 4);
    g.wait_entered(1);
    let mut r = mjb_report::default();
    let o = unsafe { mjb_restore(ep.0, cp.as_ptr().cast(), cp.len(), 20, &mut r) };
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(reason_of(&r), Reason::Busy);
    assert_eq!(r.sequence, 0, "never admitted");
    g.open();
    let (o, r) = stepper.join().unwrap();
    assert_eq!((o, r.tick_after, r.sequence), (Outcome::Ok, 14, 2));
    // Nothing is queued: later calls see the stepped state, never the checkpoint's.
    ep.step_ok(2);
    let w = ep.world_json();
    assert_eq!(w["world"]["tick"], 16);
    let (o, r) = ep.restore(&cp);
    assert_eq!(
        (o, r.sequence),
        (Outcome::Ok, 4),
        "sequence counts admitted mutations only"
    );
}

#[test]
fn stop_history_survives_restore_and_refusals_and_restore_keeps_the_latch() {
    let ep = open_model("contact_act.xml", "");
    ep.step_ok(20);
    let cp = ep.checkpoint();
    ep.step_ok(10);
    let st = ep.stop();
    assert_eq!(
        (st.stop_count, st.first_stop_tick, st.last_stop_tick),
        (1, 30, 30)
    );
    let (o, r) = ep.restore(&cp);
    assert_eq!(o, Outcome::Ok, "restore is admitted while stopped");
    assert_eq!(r.tick_after, 20, "the tick is rewound");
    let after = ep.safety();
    assert!(after.stopped, "the endpoint stays stopped");
    assert_eq!(
        (
            after.stop_count,
            after.first_stop_tick,
            after.last_stop_tick
        ),
        (1, 30, 30)
    );
    let bad = cp.replace("\"seed\":0", "\"seed\":1");
    assert_eq!(ep.restore(&bad).0, Outcome::Rejected);
    assert_eq!(ep.safety(), after);
    assert_eq!(mjb_safety_reset(ep.0), Outcome::Ok);
    ep.step_ok(5);
    let st = ep.stop();
    assert_eq!(
        (st.stop_count, st.first_stop_tick, st.last_stop_tick),
        (2, 30, 25)
    );
}

#[test]
fn an_arena_overflow_inside_mj_step_is_caught_and_rolled_back() {
    // A real engine error: the arena is too small for the solver once six boxes pile up on
    // the floor (every engine raises a stack overflow from inside mj_step).
    let mut boxes = String::new();
    for i in 0..6 {
        boxes.push_str(&format!(
            r#"<body pos="{} {} {}"><freejoint/><geom type="box" size=".1 .1 .1"/></body>"#,
            (i % 2) as f64 * 0.05,
            (i % 3) as f64 * 0.04,
            0.2 + i as f64 * 0.25
        ));
    }
    // MuJoCo 2.2 sizes its stack in mjtNums (nstack); later releases size one arena (memory).
    let size = if mjbridge::native::engine().header_version == 222 {
        r#"nstack="3000""#
    } else {
        r#"memory="64K""#
    };
    let xml = &format!(
        r#"<mujoco><size {size}/><worldbody><geom type="plane" size="5 5 .1"/>{boxes}</worldbody></mujoco>"#
    );
    let ep = open_xml(xml, "");
    let mut last_good = (ep.hash(), 0u64);
    loop {
        let (o, r) = ep.step(1);
        if o != Outcome::Ok {
            assert_eq!(o, Outcome::RolledBack);
            assert_eq!(reason_of(&r), Reason::EngineError);
            let e = last_error();
            let msg = e["message"].as_str().unwrap().to_lowercase();
            assert!(msg.contains("stack overflow"), "{e}");
            assert_eq!(r.tick_after, last_good.1, "the failed step did not count");
            assert_eq!(
                ep.hash(),
                last_good.0,
                "the pre-step state was restored exactly"
            );
            assert!(!ep.safety().fenced);
            break;
        }
        assert!(r.tick_after < 2000, "the arena never overflowed");
        last_good = (ep.hash(), r.tick_after);
    }
}

#[test]
fn an_engine_auto_reset_after_a_nan_is_reported_never_silent() {
    let ep = open_model("contact_act.xml", "");
    ep.step_ok(2);
    let mut c: serde_json::Value = serde_json::from_str(&ep.checkpoint()).unwrap();
    c["qvel"][0] = serde_json::json!(1e308);
    // The integration profile also carries qvel inside values, bit for bit.
    let qvel = with_endpoint(&ep, |e| {
        e.shape().layout.as_ref().map(|l| l.range("qvel").start)
    });
    if let Some(off) = qvel {
        c["values"][off] = serde_json::json!(1e308);
    }
    // Every reset is reported, not only the first: MuJoCo leaves its counter at 1 after a
    // reset, so a second one used to go unseen.
    for round in 0..3 {
        assert_eq!(ep.restore(&c.to_string()).0, Outcome::Ok);
        let (o, r) = ep.step(3);
        assert_eq!(o, Outcome::Ok);
        assert_eq!(r.engine_resets, 1, "round {round}: {r:?}");
        assert_eq!(reason_of(&r), Reason::EngineReset);
        assert!(last_error()["message"].as_str().unwrap().contains("reset"));
        // Steps after a reset, with nothing diverging, report none.
        let (o, r) = ep.step(2);
        assert_eq!((o, r.engine_resets), (Outcome::Ok, 0), "round {round}");
        assert_eq!(reason_of(&r), Reason::None);
    }
}

/// The handshake: a stop reported as confirmed is never followed by a step that missed the
/// latch. Races a stepping thread against stops many times; every round checks the exact
/// tick recorded at a confirmed stop against the final tick.
#[test]
fn a_confirmed_stop_is_never_followed_by_a_step() {
    let ep = open_model("pendulum.xml", "");
    let mut confirmed_rounds = 0;
    for round in 0..300 {
        let raw = ep.0 as usize;
        let stepper = thread::spawn(move || loop {
            let mut r = mjb_report::default();
            let o = unsafe { mjb_endpoint_step(raw as *mut mjb_endpoint, 1, WAIT_FOREVER, &mut r) };
            if o == Outcome::Rejected || r.reason == Reason::StopLatched as i32 {
                return;
            }
        });
        for _ in 0..(round % 7) * 50 {
            std::hint::spin_loop();
        }
        let st = ep.stop();
        stepper.join().unwrap();
        let tick = ep.world_json()["world"]["tick"].as_u64().unwrap();
        if st.confirmed {
            confirmed_rounds += 1;
            assert_eq!(
                tick, st.last_stop_tick,
                "round {round}: a step ran after a confirmed stop"
            );
        } else {
            assert!(tick >= st.last_stop_tick);
        }
        assert_eq!(mjb_safety_reset(ep.0), Outcome::Ok);
    }
    assert!(confirmed_rounds > 0);
}

// ---- stress ------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Effect {
    Step(u64),
    Restore(usize),
    Ctrl([f64; 2]),
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const CONFIG_EXTRA: &str = "\"name\":\"stress\",\"seed\":1";

/// Hash-verify a world document and check it does not tear: the public fields are the
/// checkpoint's segments and the ticks agree.
fn verify_world(doc: &str) {
    let (stored, recomputed) =
        mjbridge::world::recompute_hash(doc.as_bytes()).expect("served documents parse strictly");
    assert!(stored.is_some());
    assert_eq!(recomputed, stored, "hash verifies");
    let j: serde_json::Value = serde_json::from_str(doc).unwrap();
    let w = &j["world"];
    let c = &w["native_checkpoint"];
    assert_eq!(w["tick"], c["tick"]);
    for f in ["time", "qpos", "qvel", "ctrl"] {
        assert_eq!(w[f], c[f], "{f} does not tear");
    }
}

fn stress_endpoint(
    ep: &Ep,
    docs: &[String],
    bad: &[String],
    threads: usize,
    ops: usize,
    seed: u64,
) -> Vec<(u64, Effect)> {
    let log = std::sync::Mutex::new(Vec::new());
    thread::scope(|s| {
        for t in 0..threads {
            let log = &log;
            let raw = ep.0 as usize;
            s.spawn(move || {
                let ep = raw as *mut mjb_endpoint;
                let mut rng = Rng(seed ^ (t as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                for _ in 0..ops {
                    let timeout = [0, 1, 50, WAIT_FOREVER][rng.below(4) as usize];
                    let mut r = mjb_report::default();
                    match rng.below(10) {
                        0..=2 => {
                            let n = 1 + rng.below(5) as u32;
                            let o = unsafe { mjb_endpoint_step(ep, n, timeout, &mut r) };
                            match (o, Reason::from_i32(r.reason).unwrap()) {
                                (mjb_outcome::MJB_OK, Reason::None | Reason::StopLatched) => {}
                                (mjb_outcome::MJB_REJECTED, Reason::Busy | Reason::StopLatched) => {
                                }
                                other => panic!("step: {other:?}"),
                            }
                            if r.sequence > 0 && r.tick_after > r.tick_before {
                                log.lock()
                                    .unwrap()
                                    .push((r.sequence, Effect::Step(r.tick_after - r.tick_before)));
                            }
                        }
                        3 => {
                            let i = rng.below(docs.len() as u64) as usize;
                            let d = &docs[i];
                            let o = unsafe {
                                mjb_restore(ep, d.as_ptr().cast(), d.len(), timeout, &mut r)
                            };
                            match (o, Reason::from_i32(r.reason).unwrap()) {
                                (mjb_outcome::MJB_OK, _) => {
                                    log.lock().unwrap().push((r.sequence, Effect::Restore(i)))
                                }
                                (mjb_outcome::MJB_REJECTED, Reason::Busy) => {
                                    assert_eq!(r.sequence, 0)
                                }
                                other => panic!("restore: {other:?}"),
                            }
                        }
                        4 => {
                            let d = &bad[rng.below(bad.len() as u64) as usize];
                            let o = unsafe {
                                mjb_restore(ep, d.as_ptr().cast(), d.len(), timeout, &mut r)
                            };
                            assert_eq!(o, Outcome::Rejected);
                            assert_eq!(r.sequence, 0, "a bad document is refused before admission");
                        }
                        5 => {
                            let c = [(rng.below(1000) as f64) / 1000.0 - 0.5, -0.25];
                            let o = unsafe { mjb_set_ctrl(ep, c.as_ptr(), 2, timeout, &mut r) };
                            match o {
                                mjb_outcome::MJB_OK => {
                                    log.lock().unwrap().push((r.sequence, Effect::Ctrl(c)))
                                }
                                mjb_outcome::MJB_REJECTED => {
                                    assert_eq!(r.reason, Reason::Busy as i32)
                                }
                                other => panic!("set_ctrl: {other:?}"),
                            }
                        }
                        6 => {
                            let mut s = std::ptr::null_mut();
                            // The deprecated name too: the same call, under the same lock.
                            #[allow(deprecated)]
                            let f = if rng.below(2) == 0 {
                                mjb_world_read
                            } else {
                                mjb_snapshot
                            };
                            match unsafe { f(ep, timeout, &mut s) } {
                                mjb_outcome::MJB_OK => verify_world(&take_string(s)),
                                mjb_outcome::MJB_REJECTED => assert!(s.is_null()),
                                other => panic!("read: {other:?}"),
                            }
                        }
                        7 => {
                            let mut st = mjb_safety_state::default();
                            assert_eq!(unsafe { mjb_stop(ep, &mut st) }, Outcome::Ok);
                            assert!(st.stopped && !st.fenced);
                        }
                        8 => {
                            let o = if rng.below(2) == 0 {
                                mjb_safety_reset(ep)
                            } else {
                                mjb_confirm_paused(ep)
                            };
                            assert!(
                                matches!(o, mjb_outcome::MJB_OK | mjb_outcome::MJB_REJECTED),
                                "{o:?}"
                            );
                        }
                        _ => {
                            let mut st = mjb_safety_state::default();
                            assert_eq!(unsafe { mjb_safety_read(ep, &mut st) }, Outcome::Ok);
                            assert!(!st.fenced);
                            if st.confirmed {
                                assert!(st.stopped);
                            }
                        }
                    }
                }
            });
        }
    });
    let mut log = log.into_inner().unwrap();
    log.sort_by_key(|(s, _)| *s);
    log
}

/// Apply the admitted effects in sequence order on a fresh endpoint, single-threaded.
fn replay(xml_path: &str, docs: &[String], log: &[(u64, Effect)]) -> String {
    let r = open_model(xml_path, CONFIG_EXTRA);
    for (_, e) in log {
        match e {
            Effect::Step(n) => r.step_ok(*n as u32),
            Effect::Restore(i) => assert_eq!(r.restore(&docs[*i]).0, Outcome::Ok),
            Effect::Ctrl(c) => assert_eq!(r.set_ctrl(c), Outcome::Ok),
        }
    }
    r.world()
}

fn stress_fixture() -> (Vec<String>, Vec<String>) {
    let donor = open_model("contact_act.xml", CONFIG_EXTRA);
    let mut docs = vec![donor.checkpoint()];
    donor.set_ctrl(&[0.2, 0.1]);
    donor.step_ok(15);
    docs.push(donor.checkpoint());
    donor.step_ok(25);
    docs.push(donor.checkpoint());
    let bad = vec![
        docs[1].replace("\"seed\":1", "\"seed\":2"),
        docs[1][..docs[1].len() / 2].to_owned(),
        docs[2].replace(auto_profile(), "mujoco_other_v1"),
    ];
    (docs, bad)
}

#[test]
fn stress_one_endpoint_many_threads_then_replay_single_threaded() {
    let (docs, bad) = stress_fixture();
    for seed in [1u64, 2, 3] {
        let ep = open_model("contact_act.xml", CONFIG_EXTRA);
        let log = stress_endpoint(&ep, &docs, &bad, 4, 150, seed);
        let steps = log
            .iter()
            .filter(|(_, e)| matches!(e, Effect::Step(_)))
            .count();
        let restores = log
            .iter()
            .filter(|(_, e)| matches!(e, Effect::Restore(_)))
            .count();
        println!(
            "seed {seed}: {} admitted effects ({steps} steps, {restores} restores)",
            log.len()
        );
        assert!(
            steps > 10 && restores > 10,
            "the replay must cover both kinds of effect"
        );
        let seqs: Vec<u64> = log.iter().map(|(s, _)| *s).collect();
        assert!(
            seqs.windows(2).all(|w| w[0] < w[1]),
            "sequence numbers are unique"
        );
        assert!(!ep.safety().fenced);
        let final_world = ep.world();
        verify_world(&final_world);
        assert_eq!(
            replay("contact_act.xml", &docs, &log),
            final_world,
            "seed {seed}: replay differs"
        );
    }
}

#[test]
fn stress_several_endpoints_at_once() {
    let (docs, bad) = stress_fixture();
    let eps: Vec<Ep> = (0..3)
        .map(|_| open_model("contact_act.xml", CONFIG_EXTRA))
        .collect();
    let logs: Vec<Vec<(u64, Effect)>> = thread::scope(|s| {
        let hs: Vec<_> = eps
            .iter()
            .enumerate()
            .map(|(i, ep)| {
                let (docs, bad) = (&docs, &bad);
                s.spawn(move || stress_endpoint(ep, docs, bad, 3, 100, 40 + i as u64))
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (ep, log) in eps.iter().zip(&logs) {
        assert_eq!(replay("contact_act.xml", &docs, log), ep.world());
    }
}
