//! Tick and configuration preconditions (`mjb_*_if`, `mjb_expect`) and reads that say where
//! the endpoint was (`mjb_*_read_info`): a mutation conditional on what the caller saw is
//! refused with `MJB_REASON_PRECONDITION`, and nothing changes, once another call moved the
//! endpoint on.

mod common;
use common::*;
use mjbridge::endpoint::WAIT_FOREVER;
use mjbridge::ffi::*;
use mjbridge::outcome::{Outcome, Reason};
use std::ffi::CString;

fn at_tick(tick: u64) -> mjb_expect {
    mjb_expect {
        flags: MJB_EXPECT_TICK,
        tick,
        ..Default::default()
    }
}

fn at_configuration(configuration: u64) -> mjb_expect {
    mjb_expect {
        flags: MJB_EXPECT_CONFIGURATION,
        configuration,
        ..Default::default()
    }
}

fn at_frame(frame: u64) -> mjb_expect {
    mjb_expect {
        flags: MJB_EXPECT_FRAME,
        frame,
        ..Default::default()
    }
}

/// What one call did: its name, outcome, report and the thread's last error right after it.
type Done = (&'static str, Outcome, mjb_report, serde_json::Value);

/// Every mutation, conditional on `expect`.
fn every_mutation(ep: &Ep, expect: &mjb_expect) -> Vec<Done> {
    let mut out = Vec::new();
    let mut run = |name, f: &mut dyn FnMut(&mut mjb_report) -> Outcome| {
        let mut r = mjb_report::default();
        let o = f(&mut r);
        out.push((name, o, r, last_error()));
    };
    let e: *const mjb_expect = expect;
    let ctrl = vec![0.25; ep.dims().nu as usize];
    let cp = ep.checkpoint();
    let write = format!("{{\"world\":{{\"ctrl\":{}}}}}", serde_json::json!(ctrl));
    let replace = format!(
        "{{\"model\":{{\"xml_path\":{}}}}}",
        js(&model_path("contact_act.xml"))
    );
    let input = mjb_input {
        field: Field::Ctrl as i32,
        id: -1,
        values: ctrl.as_ptr(),
        n: ctrl.len(),
    };
    unsafe {
        run("step", &mut |r| {
            mjb_step_if(ep.0, e, 1, WAIT_FOREVER, r).into()
        });
        run("set_ctrl", &mut |r| {
            mjb_set_ctrl_if(ep.0, e, ctrl.as_ptr(), ctrl.len(), WAIT_FOREVER, r).into()
        });
        run("input_write", &mut |r| {
            mjb_input_write_if(
                ep.0,
                e,
                Field::Ctrl as i32,
                -1,
                ctrl.as_ptr(),
                ctrl.len(),
                WAIT_FOREVER,
                r,
            )
            .into()
        });
        run("write_step", &mut |r| {
            mjb_write_step_if(ep.0, e, &input, 1, 1, WAIT_FOREVER, r).into()
        });
        run("world_write", &mut |r| {
            mjb_world_write_if(ep.0, e, write.as_ptr().cast(), write.len(), WAIT_FOREVER, r).into()
        });
        run("restore", &mut |r| {
            mjb_restore_if(ep.0, e, cp.as_ptr().cast(), cp.len(), WAIT_FOREVER, r).into()
        });
        run("replace_model", &mut |r| {
            mjb_endpoint_replace_model_if(
                ep.0,
                e,
                replace.as_ptr().cast(),
                replace.len(),
                WAIT_FOREVER,
                r,
            )
            .into()
        });
    }
    out
}

#[test]
fn a_stale_tick_refuses_every_mutation_and_changes_nothing() {
    let ep = open_model("contact_act.xml", "");
    ep.step_ok(7);
    let before = (ep.hash(), ep.world(), ep.safety(), ep.dims());
    for (name, o, r, e) in every_mutation(&ep, &at_tick(6)) {
        assert_eq!(o, Outcome::Rejected, "{name}");
        assert_eq!(reason_of(&r), Reason::Precondition, "{name}");
        assert_eq!((r.tick_before, r.tick_after), (7, 7), "{name}");
        assert!(
            e["message"]
                .as_str()
                .unwrap()
                .contains("the tick is 7, not the expected 6"),
            "{name}: {e}"
        );
        assert_eq!(
            (ep.hash(), ep.world(), ep.safety(), ep.dims()),
            before,
            "{name} changed the endpoint"
        );
    }
}

#[test]
fn the_expected_tick_and_configuration_admit_every_mutation() {
    let ep = open_model("contact_act.xml", "");
    ep.step_ok(3);
    // Each mutation in turn, expecting where the previous one left the endpoint.
    for (name, advance) in [
        ("step", 1u64),
        ("set_ctrl", 0),
        ("input_write", 0),
        ("write_step", 1),
        ("world_write", 0),
    ] {
        let expect = mjb_expect {
            flags: MJB_EXPECT_TICK | MJB_EXPECT_CONFIGURATION,
            tick: ep.frame_info().tick,
            configuration: ep.dims().configuration,
            frame: 0,
        };
        let (o, r) = one(&ep, &expect, name);
        assert_eq!(o, Outcome::Ok, "{name}: {}", last_error());
        assert_eq!(r.tick_after, expect.tick + advance, "{name}");
        assert_eq!(reason_of(&r), Reason::None, "{name}");
    }
}

/// One of the inputs-and-steps mutations, conditional on `expect`.
fn one(ep: &Ep, expect: &mjb_expect, which: &str) -> (Outcome, mjb_report) {
    let e: *const mjb_expect = expect;
    let ctrl = vec![0.25; ep.dims().nu as usize];
    let write = format!("{{\"world\":{{\"ctrl\":{}}}}}", serde_json::json!(ctrl));
    let input = mjb_input {
        field: Field::Ctrl as i32,
        id: -1,
        values: ctrl.as_ptr(),
        n: ctrl.len(),
    };
    let mut r = mjb_report::default();
    let o = unsafe {
        match which {
            "step" => mjb_step_if(ep.0, e, 1, WAIT_FOREVER, &mut r),
            "set_ctrl" => mjb_set_ctrl_if(ep.0, e, ctrl.as_ptr(), ctrl.len(), WAIT_FOREVER, &mut r),
            "input_write" => mjb_input_write_if(
                ep.0,
                e,
                Field::Ctrl as i32,
                -1,
                ctrl.as_ptr(),
                ctrl.len(),
                WAIT_FOREVER,
                &mut r,
            ),
            "write_step" => mjb_write_step_if(ep.0, e, &input, 1, 1, WAIT_FOREVER, &mut r),
            "world_write" => mjb_world_write_if(
                ep.0,
                e,
                write.as_ptr().cast(),
                write.len(),
                WAIT_FOREVER,
                &mut r,
            ),
            other => panic!("{other}"),
        }
    };
    (o.into(), r)
}

#[test]
fn restore_and_replacement_take_preconditions_too() {
    let ep = open_model("contact_act.xml", "");
    ep.step_ok(4);
    let cp = ep.checkpoint();
    ep.step_ok(2);
    let mut r = mjb_report::default();
    let e = at_tick(6);
    let o = unsafe { mjb_restore_if(ep.0, &e, cp.as_ptr().cast(), cp.len(), WAIT_FOREVER, &mut r) };
    assert_eq!(o, Outcome::Ok, "{}", last_error());
    assert_eq!((r.tick_before, r.tick_after), (6, 4));
    // The configuration a caller saw before a replacement no longer holds after it.
    let replace = format!(
        "{{\"model\":{{\"xml_path\":{}}}}}",
        js(&model_path("contact_act.xml"))
    );
    let e = at_configuration(0);
    let o = unsafe {
        mjb_endpoint_replace_model_if(
            ep.0,
            &e,
            replace.as_ptr().cast(),
            replace.len(),
            WAIT_FOREVER,
            &mut r,
        )
    };
    assert_eq!(o, Outcome::Ok);
    assert_eq!(ep.dims().configuration, 1);
    let before = (ep.hash(), ep.world(), ep.dims());
    for (name, o, r, e) in every_mutation(&ep, &at_configuration(0)) {
        assert_eq!(o, Outcome::Rejected, "{name}");
        assert_eq!(reason_of(&r), Reason::Precondition, "{name}");
        assert!(
            e["message"]
                .as_str()
                .unwrap()
                .contains("the model configuration is 1, not the expected 0"),
            "{name}: {e}"
        );
        assert_eq!((ep.hash(), ep.world(), ep.dims()), before, "{name}");
    }
}

/// What a tick cannot see, the frame number does: a restore back to the same tick, an input
/// write (no step), a replacement back at tick 0. Each refuses every mutation expecting the
/// frame from before it, changing nothing; the tick precondition alone admits them.
#[test]
fn the_frame_precondition_sees_every_change_the_tick_misses() {
    let ep = open_model("contact_act.xml", "");
    ep.step_ok(4);
    let at_four = ep.checkpoint();
    let ctrl = vec![0.5; ep.dims().nu as usize];
    let replace = format!(
        "{{\"model\":{{\"xml_path\":{}}}}}",
        js(&model_path("contact_act.xml"))
    );
    let changes: [(&str, &dyn Fn()); 3] = [
        ("a restore to the same tick", &|| {
            ep.step_ok(3);
            assert_eq!(ep.restore(&at_four).0, Outcome::Ok);
        }),
        ("an input write", &|| {
            assert_eq!(ep.set_ctrl(&ctrl), Outcome::Ok)
        }),
        ("a replacement at tick 0", &|| {
            let mut r = mjb_report::default();
            let o = unsafe {
                mjb_endpoint_replace_model(
                    ep.0,
                    replace.as_ptr().cast(),
                    replace.len(),
                    WAIT_FOREVER,
                    &mut r,
                )
            };
            assert_eq!(o, Outcome::Ok, "{}", last_error());
        }),
    ];
    for (what, change) in changes {
        let seen = ep.frame_info();
        change();
        let now = ep.frame_info();
        assert!(now.frame > seen.frame, "{what} published a frame");
        let before = (ep.hash(), ep.world(), ep.safety(), ep.dims());
        for (name, o, r, e) in every_mutation(&ep, &at_frame(seen.frame)) {
            assert_eq!(o, Outcome::Rejected, "{what}: {name}");
            assert_eq!(reason_of(&r), Reason::Precondition, "{what}: {name}");
            let expected = format!(
                "the last frame is number {}, not the expected {}",
                now.frame, seen.frame
            );
            assert!(
                e["message"].as_str().unwrap().contains(&expected),
                "{what}: {name}: {e}"
            );
            assert_eq!(
                (ep.hash(), ep.world(), ep.safety(), ep.dims()),
                before,
                "{what}: {name} changed the endpoint"
            );
        }
        // The current frame number admits a mutation.
        let mut r = mjb_report::default();
        let o = unsafe { mjb_step_if(ep.0, &at_frame(now.frame), 1, WAIT_FOREVER, &mut r) };
        assert_eq!(o, Outcome::Ok, "{what}: {}", last_error());
    }
    // The tick alone cannot tell a restore to the same tick from nothing at all.
    let tick = ep.frame_info().tick;
    let here = ep.checkpoint();
    ep.step_ok(2);
    assert_eq!(ep.restore(&here).0, Outcome::Ok);
    let mut r = mjb_report::default();
    let o = unsafe { mjb_step_if(ep.0, &at_tick(tick), 1, WAIT_FOREVER, &mut r) };
    assert_eq!(o, Outcome::Ok, "the tick matched after the restore");
}

#[test]
fn a_null_precondition_is_none_and_unknown_flags_are_invalid() {
    let ep = open_model("contact_act.xml", "");
    let mut r = mjb_report::default();
    let o = unsafe { mjb_step_if(ep.0, std::ptr::null(), 2, WAIT_FOREVER, &mut r) };
    assert_eq!((o, r.tick_after), (mjb_outcome::MJB_OK, 2));
    let before = ep.hash();
    let bad = mjb_expect {
        flags: 8,
        tick: 2,
        ..Default::default()
    };
    let o = unsafe { mjb_step_if(ep.0, &bad, 1, WAIT_FOREVER, &mut r) };
    assert_eq!(o, Outcome::InvalidArgument);
    assert_eq!(reason_of(&r), Reason::OutOfRange);
    assert_eq!(ep.hash(), before);
}

#[test]
fn reads_report_the_tick_and_configuration_they_saw() {
    let ep = open_model("contact_act.xml", "");
    ep.step_ok(11);
    type Read = unsafe extern "C" fn(
        *mut mjb_endpoint,
        u32,
        *mut *mut mjb_string,
        *mut mjb_read_info,
    ) -> mjb_outcome;
    // The deprecated `mjb_snapshot_info` too: the same call as `mjb_world_read_info`.
    #[allow(deprecated)]
    let reads: [(&str, Read); 3] = [
        ("checkpoint", mjb_checkpoint_read_info),
        ("world", mjb_world_read_info),
        ("snapshot", mjb_snapshot_info),
    ];
    for (name, read) in reads {
        let mut s = std::ptr::null_mut();
        let mut info = mjb_read_info {
            tick: 99,
            configuration: 99,
            frame: 99,
        };
        assert_eq!(
            unsafe { read(ep.0, WAIT_FOREVER, &mut s, &mut info) },
            Outcome::Ok
        );
        let text = take_string(s);
        assert_eq!((info.tick, info.configuration), (11, 0), "{name}");
        assert_eq!(
            info.frame,
            ep.frame_info().frame,
            "{name}: the last frame's number"
        );
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let tick = doc["tick"].as_u64().or(doc["world"]["tick"].as_u64());
        assert_eq!(tick, Some(11), "{name}: the document's own tick");
        // The same bytes as the plain read.
        let plain = if name == "checkpoint" {
            ep.checkpoint()
        } else {
            ep.world()
        };
        assert_eq!(text, plain, "{name}");
    }
    // A refused read leaves info zeroed.
    let mut s = std::ptr::null_mut();
    let mut info = mjb_read_info {
        tick: 5,
        configuration: 5,
        frame: 5,
    };
    let closed = {
        let other = open_model("contact_act.xml", "");
        other.0
    };
    let o = unsafe { mjb_checkpoint_read_info(closed, 0, &mut s, &mut info) };
    assert_eq!(o, Outcome::InvalidArgument);
    assert_eq!(info, mjb_read_info::default());
    assert!(s.is_null());
}

/// The controller's compare-and-step against a thread that restores: inputs chosen for the
/// tick a frame showed land at that tick or not at all.
#[test]
fn compare_and_step_never_lands_inputs_on_a_state_they_were_not_chosen_for() {
    let ep = open_model("contact_act.xml", "");
    ep.step_ok(5);
    let cp = CString::new(ep.checkpoint()).unwrap();
    let raw = ep.0 as usize;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let s = stop.clone();
    let restorer = std::thread::spawn(move || {
        let mut n = 0;
        while !s.load(std::sync::atomic::Ordering::Relaxed) {
            let bytes = cp.as_bytes();
            let o = unsafe {
                mjb_restore(
                    raw as *mut mjb_endpoint,
                    bytes.as_ptr().cast(),
                    bytes.len(),
                    WAIT_FOREVER,
                    std::ptr::null_mut(),
                )
            };
            assert_eq!(o, Outcome::Ok);
            n += 1;
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
        n
    });
    let nu = ep.dims().nu as usize;
    let (mut landed, mut refused) = (0, 0);
    for i in 0..3000 {
        let seen = ep.frame_info().tick;
        let ctrl = vec![(seen % 7) as f64 * 0.1; nu];
        let input = mjb_input {
            field: Field::Ctrl as i32,
            id: -1,
            values: ctrl.as_ptr(),
            n: nu,
        };
        let mut r = mjb_report::default();
        let o =
            unsafe { mjb_write_step_if(ep.0, &at_tick(seen), &input, 1, 1, WAIT_FOREVER, &mut r) };
        match o {
            mjb_outcome::MJB_OK => {
                assert_eq!(
                    r.tick_before, seen,
                    "call {i}: inputs for tick {seen} landed at {}",
                    r.tick_before
                );
                landed += 1;
            }
            mjb_outcome::MJB_REJECTED => {
                assert_eq!(reason_of(&r), Reason::Precondition);
                refused += 1;
            }
            other => panic!("{other:?}"),
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let restores = restorer.join().unwrap();
    assert!(
        landed > 0 && restores > 0,
        "landed {landed}, refused {refused}, restores {restores}"
    );
}

#[test]
fn the_one_call_host_loop_takes_a_precondition_too() {
    let ep = open_model("contact_act.xml", "");
    ep.step_ok(4);
    let nu = ep.dims().nu as usize;
    let ctrl = vec![0.3; nu];
    let input = mjb_input {
        field: Field::Ctrl as i32,
        id: -1,
        values: ctrl.as_ptr(),
        n: nu,
    };
    let mut qpos = vec![-7.0; ep.field_len(Field::Qpos)];
    let mut req = mjb_frame_request {
        field: Field::Qpos as i32,
        buf: qpos.as_mut_ptr(),
        cap: qpos.len(),
        written: usize::MAX,
    };
    let before = (ep.hash(), ep.world());
    let mut info = mjb_frame_info::default();
    let mut r = mjb_report::default();
    let o = unsafe {
        mjb_write_step_read_if(
            ep.0,
            &at_tick(3),
            &input,
            1,
            1,
            WAIT_FOREVER,
            &mut req,
            1,
            &mut info,
            &mut r,
        )
    };
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(reason_of(&r), Reason::Precondition);
    assert_eq!((ep.hash(), ep.world()), before, "nothing written, no step");
    assert!(
        qpos.iter().all(|&x| x == -7.0) && req.written == 0,
        "nothing read"
    );
    assert_eq!(info, mjb_frame_info::default());
    let o = unsafe {
        mjb_write_step_read_if(
            ep.0,
            &at_tick(4),
            &input,
            1,
            1,
            WAIT_FOREVER,
            &mut req,
            1,
            &mut info,
            &mut r,
        )
    };
    assert_eq!(o, Outcome::Ok, "{}", last_error());
    assert_eq!((r.tick_after, info.tick, req.written), (5, 5, qpos.len()));
}
