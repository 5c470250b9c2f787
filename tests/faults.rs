//! Native failure paths, driven through the real MuJoCo build by the `fault-injection`
//! feature: each test asserts the exact outcome, the fence, and the state.

mod common;

#[cfg(not(feature = "fault-injection"))]
#[test]
fn fault_injection_feature_is_required_for_these_tests() {
    let msg =
        "tests/faults.rs needs `--features fault-injection`; the failure-path tests did not run";
    assert!(
        std::env::var("MJB_REQUIRE_ALL_TOOLCHAINS").is_err(),
        "{msg}"
    );
    eprintln!("\n!!!!!!!! {msg} — SKIPPED !!!!!!!!\n");
}

#[cfg(feature = "fault-injection")]
mod with_faults {
    use super::common::*;
    use mjbridge::ffi::*;
    use mjbridge::native::Fault;
    use mjbridge::outcome::{Outcome, Reason};

    fn arm(ep: &Ep, f: Fault) {
        assert_eq!(mjb_test_inject_fault(ep.0, f as i32), Outcome::Ok);
    }

    /// An endpoint at tick 30 with a checkpoint taken at tick 20.
    fn setup(profile: &str) -> (Ep, String) {
        let ep = open_model("contact_act.xml", &format!("\"profile\":\"{profile}\""));
        ep.set_ctrl(&[0.3, -0.3]);
        ep.step_ok(20);
        let cp = ep.checkpoint();
        ep.step_ok(10);
        (ep, cp)
    }

    fn assert_fenced_as(ep: &Ep, reason: Reason) {
        let s = ep.safety();
        assert!(s.fenced);
        assert_eq!(s.fence_reason, reason as i32);
        // Mutations and positive acknowledgements are refused...
        let (o, _) = ep.step(1);
        assert_eq!(o, Outcome::Fenced);
        assert_eq!(ep.set_ctrl(&[0.0, 0.0]), Outcome::Fenced);
        let cp = ep.checkpoint(); // ...reads still work...
        assert_eq!(ep.restore(&cp).0, Outcome::Fenced);
        let st = ep.stop(); // ...and so does stop.
        assert!(st.stopped && st.fenced);
        assert_eq!(mjb_confirm_paused(ep.0), Outcome::Fenced);
        assert_eq!(mjb_safety_reset(ep.0), Outcome::Fenced);
    }

    #[test]
    fn setter_engine_error_is_rolled_back_and_proven() {
        for profile in profiles() {
            let (ep, cp) = setup(profile);
            let (hash, world) = (ep.hash(), ep.world());
            arm(&ep, Fault::SetterError);
            let (o, r) = ep.restore(&cp);
            assert_eq!(o, Outcome::RolledBack, "{profile}");
            assert_eq!(reason_of(&r), Reason::SetterFailed);
            assert!(last_error()["message"]
                .as_str()
                .unwrap()
                .contains("injected fault"));
            assert_eq!((r.tick_before, r.tick_after), (30, 30), "tick unchanged");
            assert_eq!(ep.hash(), hash, "{profile}: prior state restored");
            assert_eq!(ep.world(), world);
            assert!(!ep.safety().fenced);
            assert_eq!(ep.restore(&cp).0, Outcome::Ok, "the endpoint still works");
        }
    }

    #[test]
    fn readback_mismatch_is_rolled_back_and_proven() {
        for profile in profiles() {
            let (ep, cp) = setup(profile);
            let hash = ep.hash();
            arm(&ep, Fault::ReadbackMismatch);
            let (o, r) = ep.restore(&cp);
            assert_eq!(o, Outcome::RolledBack, "{profile}");
            assert_eq!(reason_of(&r), Reason::VerificationMismatch);
            assert_eq!(r.tick_after, 30);
            assert_eq!(ep.hash(), hash);
            assert!(!ep.safety().fenced);
        }
    }

    #[test]
    fn unprovable_rollback_is_unknown_and_fences() {
        for profile in profiles() {
            let (ep, cp) = setup(profile);
            arm(&ep, Fault::RollbackUnproven);
            let (o, r) = ep.restore(&cp);
            assert_eq!(o, Outcome::Unknown, "{profile}");
            assert_eq!(reason_of(&r), Reason::RollbackUnproven);
            assert_fenced_as(&ep, Reason::RollbackUnproven);
        }
    }

    #[test]
    fn unexpected_setter_completion_is_unknown_and_fences() {
        let (ep, cp) = setup(auto_profile());
        let history = ep.safety();
        arm(&ep, Fault::SetterUnexpected);
        let (o, r) = ep.restore(&cp);
        assert_eq!(o, Outcome::Unknown);
        assert_eq!(reason_of(&r), Reason::SetterUnexpectedCompletion);
        assert_eq!(r.tick_after, 30, "tick not claimed");
        assert_eq!(ep.safety().stop_count, history.stop_count);
        assert_fenced_as(&ep, Reason::SetterUnexpectedCompletion);
        assert_eq!(
            ep.safety().stop_count,
            1,
            "stop on a fenced endpoint still counts"
        );
    }

    #[test]
    fn engine_error_inside_a_step_rolls_that_step_back() {
        let (ep, _) = setup(auto_profile());
        ep.step_ok(5); // tick 35
        let hash = ep.hash();
        arm(&ep, Fault::StepError);
        let (o, r) = ep.step(10);
        assert_eq!(o, Outcome::RolledBack);
        assert_eq!(reason_of(&r), Reason::EngineError);
        assert_eq!(
            (r.tick_before, r.tick_after),
            (35, 35),
            "the failing first step was undone"
        );
        assert_eq!(ep.hash(), hash);
        assert!(!ep.safety().fenced);
        ep.step_ok(1);
    }

    /// Where the engine has the state API, even a basic-profile endpoint rolls back to the
    /// complete integration state (warm-start included), not only the public fields.
    #[cfg(mjb_integration)]
    #[test]
    fn basic_profile_rollback_restores_the_complete_state_where_the_engine_can_read_it() {
        let (ep, _) = setup("mujoco_basic_v1");
        let full = || {
            with_endpoint(&ep, |e| {
                e.with_native(mjbridge::endpoint::WAIT_FOREVER, |mj, _| {
                    let sig = mjbridge::native::engine().sig_integration;
                    let mut v = vec![0.0; mj.state_size(sig).unwrap()];
                    mj.get_state(sig, &mut v).unwrap();
                    v
                })
                .unwrap()
            })
        };
        let before = full();
        let ws = with_endpoint(&ep, |e| {
            e.shape().layout.as_ref().unwrap().range("warmstart")
        });
        assert!(before[ws].iter().any(|x| *x != 0.0), "warm-start is live");
        arm(&ep, Fault::StepError);
        assert_eq!(ep.step(1).0, Outcome::RolledBack);
        assert!(
            same_bits(&full(), &before),
            "every integration component is back"
        );
    }

    /// A step copies the host's inputs into its pre-step image only when something wrote the
    /// data since the last step (MuJoCo's pipeline never writes them); a rolled-back step
    /// still puts back the inputs of its own moment: those written just before it, those
    /// written several steps back, and the zeros MuJoCo's auto-reset left in them.
    #[cfg(mjb_integration)]
    #[test]
    fn a_rolled_back_step_puts_back_the_inputs_of_its_own_moment() {
        let (ep, _) = setup("mujoco_integration_v1");
        let rolls_back_to_now = |what: &str| {
            let (hash, before) = (ep.hash(), ep.state_vector().unwrap());
            arm(&ep, Fault::StepError);
            let (o, r) = ep.step(1);
            assert_eq!(
                (o, reason_of(&r)),
                (Outcome::RolledBack, Reason::EngineError),
                "{what}"
            );
            assert_eq!(ep.hash(), hash, "{what}");
            assert!(same_bits(&ep.state_vector().unwrap(), &before), "{what}");
        };
        let ramp = |n: usize, k: f64| (0..n).map(|i| k * (i as f64 + 1.0)).collect::<Vec<_>>();
        ep.input_ok(
            Field::QfrcApplied,
            -1,
            &ramp(ep.owned_field(Field::QfrcApplied).len(), 0.01),
        );
        ep.input_ok(
            Field::XfrcApplied,
            -1,
            &ramp(ep.owned_field(Field::XfrcApplied).len(), 0.02),
        );
        ep.input_ok(Field::MocapPos, 0, &[0.4, 0.1, 0.6]);
        // 2.3.7 keeps equality activation in the model, not in mjData.
        if Field::EqActive.available() {
            ep.input_ok(Field::EqActive, 1, &[1.0]);
        }
        assert_eq!(ep.set_ctrl(&[0.1, 0.2]), Outcome::Ok);
        rolls_back_to_now("inputs written just before the step");
        ep.step_ok(3);
        rolls_back_to_now("inputs written three steps back");
        assert_eq!(ep.set_ctrl(&[-0.2, 0.05]), Outcome::Ok);
        ep.step_ok(1);
        assert_eq!(ep.set_ctrl(&[0.25, 0.0]), Outcome::Ok);
        rolls_back_to_now("ctrl written again");
        // A diverging velocity: the call's first step resets the data (inputs included), its
        // second step and the next call's start from there.
        let mut c: serde_json::Value = serde_json::from_str(&ep.checkpoint()).unwrap();
        c["qvel"][0] = serde_json::json!(1e308);
        let off = with_endpoint(&ep, |e| {
            e.shape().layout.as_ref().unwrap().range("qvel").start
        });
        c["values"][off] = serde_json::json!(1e308);
        assert_eq!(ep.restore(&c.to_string()).0, Outcome::Ok);
        let (o, r) = ep.step(2);
        assert_eq!((o, r.engine_resets), (Outcome::Ok, 1));
        assert_eq!(
            ep.owned_field(Field::Ctrl),
            [0.0, 0.0],
            "the reset zeroed ctrl"
        );
        rolls_back_to_now("after an engine reset");
    }

    /// A `mjb_write_step` whose first step raises is rolled back to the state before the
    /// call, its inputs taken back (`MJB_ROLLED_BACK` promises the prior state); one whose
    /// third step raises keeps its inputs and the two steps that took effect.
    #[test]
    fn a_write_step_rolled_back_at_its_first_step_takes_its_inputs_back() {
        for profile in profiles() {
            let (ep, _) = setup(profile);
            let nv = ep.owned_field(Field::QfrcApplied).len();
            let qfrc: Vec<f64> = (0..nv).map(|i| 0.02 * i as f64 - 0.01).collect();
            let mut inputs: Vec<(Field, i32, &[f64])> = vec![
                (Field::Ctrl, -1, &[0.6, -0.6]),
                (Field::QfrcApplied, -1, &qfrc),
                (Field::MocapPos, 0, &[0.4, 0.1, 0.6]),
                (Field::Ctrl, 0, &[0.2]),
            ];
            // 2.3.7 keeps equality activation in the model, not in mjData.
            if Field::EqActive.available() {
                inputs.push((Field::EqActive, 1, &[1.0]));
            }
            let before = (ep.hash(), ep.world(), ep.state_vector());
            let fields = |ep: &Ep| {
                [Field::Ctrl, Field::QfrcApplied, Field::MocapPos].map(|f| ep.owned_field(f))
            };
            let owned = fields(&ep);
            arm(&ep, Fault::StepError);
            let (o, r) = ep.write_step(&inputs, 3);
            assert_eq!(
                (o, reason_of(&r)),
                (Outcome::RolledBack, Reason::EngineError),
                "{profile}: {:?}",
                last_error()
            );
            assert_eq!((r.tick_before, r.tick_after), (30, 30));
            assert_eq!(fields(&ep), owned, "{profile}: the inputs were taken back");
            assert_eq!(ep.hash(), before.0, "{profile}");
            assert_eq!(ep.world(), before.1, "{profile}");
            if let (Some(now), Some(was)) = (ep.state_vector(), &before.2) {
                assert!(same_bits(&now, was), "{profile}");
            }
            assert!(!ep.safety().fenced);

            arm(&ep, Fault::ThirdStepError);
            let (o, r) = ep.write_step(&inputs, 5);
            assert_eq!(
                (o, reason_of(&r)),
                (Outcome::RolledBack, Reason::EngineError),
                "{profile}: {:?}",
                last_error()
            );
            assert_eq!((r.tick_before, r.tick_after), (30, 32), "two steps stand");
            let reached = ep.hash();
            assert_eq!(ep.owned_field(Field::Ctrl), [0.2, -0.6], "the inputs stay");
            // The same inputs and two steps from the same state reach the same state (where
            // the first rollback put back the complete state: the engine has the state API).
            let (twin, _) = setup(profile);
            assert_eq!(twin.write_step(&inputs, 2).0, Outcome::Ok);
            if before.2.is_some() {
                assert_eq!(twin.hash(), reached, "{profile}");
            }
        }
    }

    #[test]
    fn a_panic_is_caught_at_the_boundary_and_fences_the_endpoint() {
        let (ep, _) = setup(auto_profile());
        let (_, before) = ep.step(0);
        arm(&ep, Fault::Panic);
        let (o, r) = ep.step(1);
        assert_eq!(o, Outcome::Panic);
        assert_eq!(r.outcome, Outcome::Panic as i32);
        // The report says where: the admission tick (30, from setup) and its sequence.
        assert_eq!((r.tick_before, r.tick_after), (30, 30));
        assert_eq!(r.sequence, before.sequence + 1);
        assert_eq!(last_reason(), "MJB_REASON_PANIC");
        assert_fenced_as(&ep, Reason::Panic);
        // The process and other endpoints carry on.
        let other = open_model("pendulum.xml", "");
        other.step_ok(3);
    }

    #[test]
    fn unknown_fault_values_are_refused() {
        let ep = open_model("pendulum.xml", "");
        assert_eq!(mjb_test_inject_fault(ep.0, 99), Outcome::InvalidArgument);
        assert_eq!(
            mjb_test_inject_fault(std::ptr::null_mut(), 1),
            Outcome::InvalidArgument
        );
    }
}
