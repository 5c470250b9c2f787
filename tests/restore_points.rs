//! Restore points (`mjb_restore_point_*`): continuation bit-identical to the JSON path and to
//! an uninterrupted run, `to_json` the checkpoint read at capture byte for byte, `from_json`
//! validated exactly like `mjb_restore`, refusals of a foreign endpoint's or a stale
//! configuration's restore point with nothing changed, handle misuse, every native failure
//! path through apply, and apply racing stop, model replacement and free.

mod common;
use common::*;
use mjbridge::endpoint::WAIT_FOREVER;
use mjbridge::ffi::*;
use mjbridge::outcome::{Outcome, Reason};

/// A restore point handle that frees itself.
#[derive(Debug)]
struct Rp(*mut mjb_restore_point);

impl Drop for Rp {
    fn drop(&mut self) {
        if !self.0.is_null() {
            assert_eq!(unsafe { mjb_restore_point_free(self.0) }, Outcome::Ok);
        }
    }
}

fn capture(ep: &Ep) -> Rp {
    let mut rp = std::ptr::null_mut();
    let o = unsafe { mjb_restore_point_capture(ep.0, WAIT_FOREVER, &mut rp) };
    assert_eq!(o, Outcome::Ok, "{}", last_error());
    assert!(!rp.is_null());
    Rp(rp)
}

fn apply(ep: &Ep, rp: &Rp) -> (Outcome, mjb_report) {
    let mut r = mjb_report::default();
    let o = unsafe { mjb_restore_point_apply(ep.0, rp.0, WAIT_FOREVER, &mut r) };
    assert_eq!(r.outcome, o as i32);
    (o.into(), r)
}

fn to_json(rp: &Rp) -> String {
    let mut s = std::ptr::null_mut();
    assert_eq!(
        unsafe { mjb_restore_point_to_json(rp.0, &mut s) },
        Outcome::Ok
    );
    take_string(s)
}

fn from_json(ep: &Ep, doc: &str) -> Result<Rp, (Outcome, serde_json::Value)> {
    let mut rp = std::ptr::null_mut();
    let o = unsafe { mjb_restore_point_from_json(ep.0, doc.as_ptr().cast(), doc.len(), &mut rp) };
    if o == Outcome::Ok {
        Ok(Rp(rp))
    } else {
        assert!(rp.is_null());
        Err((o.into(), last_error()))
    }
}

fn contact(profile: &str) -> Ep {
    let ep = open_model(
        "contact_act.xml",
        &format!("\"profile\":\"{profile}\",\"seed\":3"),
    );
    ep.set_ctrl(&[0.4, -0.2]);
    ep
}

#[test]
fn applying_continues_bit_identically_to_the_json_path_and_to_an_uninterrupted_run() {
    for profile in profiles() {
        let ep = contact(profile);
        ep.step_ok(20);
        let rp = capture(&ep);
        let cp = ep.checkpoint();
        assert_eq!(
            to_json(&rp),
            cp,
            "{profile}: to_json is the checkpoint read at capture"
        );
        ep.step_ok(30);
        let first = ep.world();
        // The restore point, again and again (a planner's K rollouts).
        for _ in 0..3 {
            let (o, r) = apply(&ep, &rp);
            assert_eq!(o, Outcome::Ok, "{profile}: {}", last_error());
            assert_eq!((r.tick_before, r.tick_after), (50, 20));
            assert_eq!(
                ep.checkpoint(),
                cp,
                "{profile}: the captured state, bit for bit"
            );
            ep.step_ok(30);
            if profile == "mujoco_integration_v1" {
                assert_eq!(ep.world(), first, "{profile}: continuation");
            }
        }
        // The JSON path lands in the same place.
        assert_eq!(ep.restore(&cp).0, Outcome::Ok);
        ep.step_ok(30);
        if profile == "mujoco_integration_v1" {
            assert_eq!(ep.world(), first, "{profile}: JSON path continuation");
            // An uninterrupted run of 50 steps.
            let straight = contact(profile);
            straight.step_ok(50);
            assert_eq!(straight.world(), first, "{profile}: uninterrupted run");
        }
        // What a restore point holds.
        let mut info = mjb_read_info::default();
        assert_eq!(
            unsafe { mjb_restore_point_info(rp.0, &mut info) },
            Outcome::Ok
        );
        assert_eq!((info.tick, info.configuration), (20, 0));
    }
}

#[test]
fn from_json_validates_exactly_like_restore_and_changes_nothing() {
    for profile in profiles() {
        let ep = contact(profile);
        ep.step_ok(12);
        let cp = ep.checkpoint();
        let world = ep.world();
        ep.step_ok(8);
        let before = (ep.hash(), ep.world(), ep.safety());
        let cases = with_endpoint(&ep, |e| mjbridge::conformance::corruptions(e, &cp));
        for case in &cases {
            let (o, e) = from_json(&ep, &case.doc).expect_err(case.name);
            assert_eq!(o, Outcome::Rejected, "{}", case.name);
            assert_eq!(e["reason"], case.reason.name(), "{}", case.name);
            if let Some(p) = &case.pointer {
                assert_eq!(e["pointer"], p.as_str(), "{}", case.name);
            }
            // The same refusal as mjb_restore.
            let (ro, _) = ep.restore(&case.doc);
            assert_eq!((ro, last_error()), (o, e.clone()), "{}", case.name);
            assert_eq!(
                (ep.hash(), ep.world(), ep.safety()),
                before,
                "{}",
                case.name
            );
        }
        // A checkpoint and a world document both make one; it restores what restore restores.
        for doc in [&cp, &world] {
            let rp = from_json(&ep, doc).unwrap();
            assert_eq!(to_json(&rp), cp, "{profile}");
            assert_eq!(apply(&ep, &rp).0, Outcome::Ok);
            assert_eq!(ep.checkpoint(), cp);
            ep.step_ok(8);
        }
    }
}

#[test]
fn a_foreign_endpoints_or_stale_configurations_restore_point_is_refused() {
    let a = contact(auto_profile());
    let b = contact(auto_profile());
    a.step_ok(5);
    b.step_ok(9);
    let rp = capture(&a);
    let before = (b.hash(), b.world(), b.safety());
    let (o, r) = apply(&b, &rp);
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(reason_of(&r), Reason::OtherEndpoint);
    assert_eq!((r.tick_before, r.tick_after, r.sequence), (9, 9, 0));
    assert_eq!((b.hash(), b.world(), b.safety()), before);
    // A model replacement makes it stale on its own endpoint.
    let replace = format!(
        "{{\"model\":{{\"xml_path\":{}}}}}",
        js(&model_path("contact_act.xml"))
    );
    let o = unsafe {
        mjb_endpoint_replace_model(
            a.0,
            replace.as_ptr().cast(),
            replace.len(),
            WAIT_FOREVER,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(o, Outcome::Ok);
    let before = (a.hash(), a.world(), a.safety());
    let (o, r) = apply(&a, &rp);
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(reason_of(&r), Reason::Configuration);
    assert_eq!((a.hash(), a.world(), a.safety()), before);
    // A precondition applies too.
    let rp = capture(&a);
    a.step_ok(1);
    let stale = mjb_expect {
        flags: MJB_EXPECT_TICK,
        tick: 5,
        ..Default::default()
    };
    let mut r = mjb_report::default();
    let o = unsafe { mjb_restore_point_apply_if(a.0, &stale, rp.0, WAIT_FOREVER, &mut r) };
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(reason_of(&r), Reason::Precondition);
}

#[test]
fn handles_are_checked_never_undefined() {
    let ep = contact(auto_profile());
    let rp = capture(&ep);
    let raw = rp.0;
    std::mem::forget(rp);
    assert_eq!(unsafe { mjb_restore_point_free(raw) }, Outcome::Ok);
    // Freed: every use and a second free are refused.
    assert_eq!(
        unsafe { mjb_restore_point_free(raw) },
        Outcome::InvalidArgument
    );
    assert_eq!(last_error()["reason"], "MJB_REASON_CLOSED");
    let mut r = mjb_report {
        tick_after: 7,
        ..Default::default()
    };
    let before = ep.hash();
    let o = unsafe { mjb_restore_point_apply(ep.0, raw, WAIT_FOREVER, &mut r) };
    assert_eq!(o, Outcome::InvalidArgument);
    assert_eq!((r.outcome, r.reason), (o as i32, Reason::Closed as i32));
    assert_eq!(r.tick_after, 0, "the report is zeroed, then filled");
    assert_eq!(ep.hash(), before);
    let mut s = std::ptr::null_mut();
    assert_eq!(
        unsafe { mjb_restore_point_to_json(raw, &mut s) },
        Outcome::InvalidArgument
    );
    assert!(s.is_null());
    // A slot reused by a new restore point does not revive the old handle.
    let fresh = capture(&ep);
    assert_ne!(fresh.0, raw);
    assert_eq!(
        unsafe { mjb_restore_point_free(raw) },
        Outcome::InvalidArgument
    );
    assert_eq!(to_json(&fresh), ep.checkpoint());
    // NULL, an endpoint handle and an arbitrary number.
    assert_eq!(
        unsafe { mjb_restore_point_free(std::ptr::null_mut()) },
        Outcome::Ok
    );
    for bogus in [ep.0 as *mut mjb_restore_point, 0x1234 as *mut _] {
        assert_eq!(
            unsafe { mjb_restore_point_free(bogus) },
            Outcome::InvalidArgument
        );
        assert_eq!(last_error()["reason"], "MJB_REASON_FOREIGN_HANDLE");
    }
    let o = unsafe { mjb_restore_point_apply(ep.0, std::ptr::null(), WAIT_FOREVER, &mut r) };
    assert_eq!(o, Outcome::InvalidArgument);
    assert_eq!(r.reason, Reason::NullArgument as i32);
    // NULL out-params.
    let o = unsafe { mjb_restore_point_capture(ep.0, WAIT_FOREVER, std::ptr::null_mut()) };
    assert_eq!(o, Outcome::InvalidArgument);
}

#[test]
fn applying_while_stopped_keeps_the_latch_and_the_stop_history() {
    let ep = contact(auto_profile());
    ep.step_ok(6);
    let rp = capture(&ep);
    ep.step_ok(4);
    ep.stop();
    let history = ep.safety();
    let (o, r) = apply(&ep, &rp);
    assert_eq!(o, Outcome::Ok, "{}", last_error());
    assert_eq!(r.tick_after, 6);
    assert_eq!(
        ep.safety(),
        history,
        "stopped, and the history is never rewound"
    );
}

#[cfg(feature = "fault-injection")]
#[test]
fn every_native_failure_through_apply_is_rolled_back_and_proven_or_fenced() {
    use mjbridge::native::Fault;
    for (fault, outcome, reason) in [
        (
            Fault::SetterError,
            Outcome::RolledBack,
            Reason::SetterFailed,
        ),
        (
            Fault::ReadbackMismatch,
            Outcome::RolledBack,
            Reason::VerificationMismatch,
        ),
        (
            Fault::SetterUnexpected,
            Outcome::Unknown,
            Reason::SetterUnexpectedCompletion,
        ),
        (
            Fault::RollbackUnproven,
            Outcome::Unknown,
            Reason::RollbackUnproven,
        ),
    ] {
        for profile in profiles() {
            let ep = contact(profile);
            ep.step_ok(10);
            let rp = capture(&ep);
            ep.step_ok(5);
            let at15 = ep.checkpoint();
            assert_eq!(mjb_test_inject_fault(ep.0, fault as i32), Outcome::Ok);
            let (o, r) = apply(&ep, &rp);
            assert_eq!(o, outcome, "{fault:?} {profile}: {}", last_error());
            assert_eq!(reason_of(&r), reason, "{fault:?} {profile}");
            assert_eq!((r.tick_before, r.tick_after), (15, 15));
            let s = ep.safety();
            if outcome == Outcome::RolledBack {
                assert!(!s.fenced);
                assert_eq!(ep.checkpoint(), at15, "{fault:?}: the prior state, proven");
            } else {
                assert!(s.fenced, "{fault:?}: fenced");
                assert_eq!(apply(&ep, &rp).0, Outcome::Fenced);
            }
        }
    }
}

#[test]
fn apply_races_stop_replacement_and_free_on_other_threads() {
    let ep = contact(auto_profile());
    ep.step_ok(3);
    let raw = ep.0 as usize;
    let rp = capture(&ep);
    let rp_raw = rp.0 as usize;
    std::mem::forget(rp);
    let stopper = std::thread::spawn(move || {
        let mut st = mjb_safety_state::default();
        for _ in 0..200 {
            assert_eq!(
                unsafe { mjb_stop(raw as *mut mjb_endpoint, &mut st) },
                Outcome::Ok
            );
            let _ = mjb_safety_reset(raw as *mut mjb_endpoint);
        }
    });
    let replace = format!(
        "{{\"model\":{{\"xml_path\":{}}}}}",
        js(&model_path("contact_act.xml"))
    );
    let replacer = std::thread::spawn(move || {
        for _ in 0..5 {
            let o = unsafe {
                mjb_endpoint_replace_model(
                    raw as *mut mjb_endpoint,
                    replace.as_ptr().cast(),
                    replace.len(),
                    WAIT_FOREVER,
                    std::ptr::null_mut(),
                )
            };
            assert_eq!(o, Outcome::Ok);
        }
    });
    let freer = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(2));
        unsafe { mjb_restore_point_free(rp_raw as *mut mjb_restore_point) }
    });
    let mut outcomes = std::collections::BTreeMap::new();
    for _ in 0..400 {
        let mut r = mjb_report::default();
        let o = unsafe {
            mjb_restore_point_apply(
                raw as *mut mjb_endpoint,
                rp_raw as *const mjb_restore_point,
                WAIT_FOREVER,
                &mut r,
            )
        };
        // Applied, refused for the replaced model, or the handle was freed: nothing else.
        let key = (o as i32, r.reason);
        assert!(
            matches!(
                (o, Reason::ALL[r.reason as usize]),
                (mjb_outcome::MJB_OK, _)
                    | (mjb_outcome::MJB_REJECTED, Reason::Configuration)
                    | (mjb_outcome::MJB_INVALID_ARGUMENT, Reason::Closed)
            ),
            "{key:?}: {}",
            last_error()
        );
        *outcomes.entry(key).or_insert(0) += 1;
    }
    stopper.join().unwrap();
    replacer.join().unwrap();
    assert_eq!(freer.join().unwrap(), Outcome::Ok);
    assert!(!ep.safety().fenced, "{outcomes:?}");
    // The endpoint is freed while another thread applies a fresh restore point.
    let rp = capture(&ep);
    let (rp_raw, ep_raw) = (rp.0 as usize, ep.0 as usize);
    let applier = std::thread::spawn(move || {
        for _ in 0..200 {
            let o = unsafe {
                mjb_restore_point_apply(
                    ep_raw as *mut mjb_endpoint,
                    rp_raw as *const mjb_restore_point,
                    WAIT_FOREVER,
                    std::ptr::null_mut(),
                )
            };
            if o == Outcome::InvalidArgument {
                return true;
            }
            assert_eq!(o, Outcome::Ok);
        }
        false
    });
    std::thread::sleep(std::time::Duration::from_millis(1));
    drop(ep);
    applier.join().unwrap();
    drop(rp);
}
