//! `mjb_write_step_read`: a host loop's write, step and frame read in one call. Its step part
//! is `mjb_write_step`'s (the same report and refusals); its frame part is
//! `mjb_frame_read_many`'s (the same values), and a request that cannot be served refuses the
//! call before anything is written.

mod common;
use common::*;
use mjbridge::endpoint::WAIT_FOREVER;
use mjbridge::ffi::*;
use mjbridge::outcome::{Outcome, Reason};

const FRAME: &str = "[\"qpos\",\"qvel\",\"ctrl\",\"sensordata\"]";
const READ: [Field; 4] = [Field::Qpos, Field::Qvel, Field::Ctrl, Field::Sensordata];

struct Call {
    bufs: Vec<Vec<f64>>,
    reqs: Vec<mjb_frame_request>,
    info: mjb_frame_info,
    report: mjb_report,
}

impl Call {
    /// Buffers for `fields`, each `extra` doubles longer (negative: shorter) than the field.
    fn new(ep: &Ep, fields: &[Field], extra: isize) -> Call {
        let mut bufs: Vec<Vec<f64>> = fields
            .iter()
            .map(|f| vec![-7.0; (ep.field_len(*f) as isize + extra).max(0) as usize])
            .collect();
        let reqs = requests(fields, &mut bufs);
        Call {
            bufs,
            reqs,
            info: mjb_frame_info {
                frame: u64::MAX,
                ..Default::default()
            },
            report: mjb_report::default(),
        }
    }

    fn run(&mut self, ep: &Ep, inputs: &[(Field, i32, &[f64])], nstep: u32) -> Outcome {
        let raw = c_inputs(inputs);
        let o = unsafe {
            mjb_write_step_read(
                ep.0,
                raw.as_ptr(),
                raw.len(),
                nstep,
                WAIT_FOREVER,
                self.reqs.as_mut_ptr(),
                self.reqs.len(),
                &mut self.info,
                &mut self.report,
            )
        };
        assert_eq!(self.report.outcome, o as i32);
        o.into()
    }

    fn untouched(&self) -> bool {
        self.reqs.iter().all(|r| r.written == 0)
            && self.bufs.iter().flatten().all(|&v| v == -7.0)
            && self.info == mjb_frame_info::default()
    }
}

#[test]
fn write_step_read_steps_like_write_step_and_returns_the_frame_a_read_would() {
    let a = open_frames("host.xml", FRAME, "");
    let b = open_frames("host.xml", FRAME, "");
    let ctrl = [0.5, -0.25];
    let mut call = Call::new(&a, &READ, 3);
    for k in 0..5u64 {
        let o = call.run(&a, &[(Field::Ctrl, -1, &ctrl)], 4);
        assert_eq!(o, Outcome::Ok, "{:?}", last_error());
        assert_eq!(last_error(), serde_json::json!({}));
        let (ob, rb) = b.write_step(&[(Field::Ctrl, -1, &ctrl)], 4);
        assert_eq!(ob, Outcome::Ok);
        assert_eq!(
            (call.report.tick_before, call.report.tick_after),
            (4 * k, 4 * k + 4)
        );
        assert_eq!(
            (call.report.tick_before, call.report.tick_after),
            (rb.tick_before, rb.tick_after)
        );
        // The frame it copied is the frame a separate read sees, and the twin's, bit for bit.
        let (values, info) = a.frame(&READ);
        let (twin, _) = b.frame(&READ);
        assert_eq!(call.info, info);
        assert_eq!(call.info.tick, 4 * k + 4);
        for (i, v) in values.iter().enumerate() {
            assert_eq!(call.reqs[i].written, v.len());
            assert!(same_bits(&call.bufs[i][..v.len()], v));
            assert!(same_bits(v, &twin[i]));
            // Past the field's length the caller's buffer is not written.
            assert!(call.bufs[i][v.len()..].iter().all(|&x| x == -7.0));
        }
        assert_eq!(call.bufs[2][..2], ctrl);
    }
    assert_eq!(a.hash(), b.hash());
}

#[test]
fn a_request_the_frame_cannot_serve_refuses_before_anything_is_written() {
    let ep = open_frames("host.xml", FRAME, "");
    ep.step_ok(3);
    let before = ep.world();
    let ctrl = [1.0, 1.0];
    // A field outside the selection, then a buffer one double short.
    let cases: [(Vec<Field>, isize, Reason, &str); 2] = [
        (
            vec![Field::Qpos, Field::Xpos],
            0,
            Reason::NotInFrame,
            "/requests/1/field",
        ),
        (vec![Field::Qvel], -1, Reason::Dimension, "/requests/0/cap"),
    ];
    for (fields, short, reason, pointer) in cases {
        let selected: Vec<Field> = fields
            .iter()
            .copied()
            .filter(|f| *f != Field::Xpos)
            .collect();
        let mut call = Call::new(&ep, &selected, short);
        if fields.len() > selected.len() {
            // xpos is not selected: a buffer as long as the field would be.
            call.bufs.push(vec![-7.0; 3 * ep.dims().nbody as usize]);
            let b = call.bufs.last_mut().unwrap();
            call.reqs.push(mjb_frame_request {
                field: Field::Xpos as i32,
                buf: b.as_mut_ptr(),
                cap: b.len(),
                written: usize::MAX,
            });
        }
        let o = call.run(&ep, &[(Field::Ctrl, -1, &ctrl)], 2);
        assert_eq!(o, Outcome::Rejected);
        assert_eq!(reason_of(&call.report), reason);
        assert_eq!(last_error()["pointer"], pointer);
        // Refused before admission, as a refused document is: at the endpoint's tick, with no
        // place in the admission order.
        assert_eq!(
            (
                call.report.tick_before,
                call.report.tick_after,
                call.report.sequence
            ),
            (3, 3, 0)
        );
        assert!(call.untouched());
        assert_eq!(ep.world(), before, "{reason:?} changed the world");
    }
    let mut call = Call::new(&ep, &[Field::Qpos], 0);
    call.reqs[0].field = 99;
    assert_eq!(call.run(&ep, &[], 1), Outcome::InvalidArgument);
    assert_eq!(last_error()["pointer"], "/requests/0/field");
    call.reqs[0].field = Field::Qpos as i32;
    call.reqs[0].buf = std::ptr::null_mut();
    assert_eq!(call.run(&ep, &[], 1), Outcome::InvalidArgument);
    assert_eq!(reason_of(&call.report), Reason::NullArgument);
    assert_eq!(ep.world(), before);
}

#[test]
fn refused_inputs_and_a_latched_stop_leave_buffers_and_state_untouched() {
    let ep = open_frames("host.xml", FRAME, "");
    ep.step_ok(2);
    let before = ep.world();
    let mut call = Call::new(&ep, &READ, 0);
    // A non-finite control: mjb_write_step's refusal, with its pointer.
    let o = call.run(&ep, &[(Field::Ctrl, -1, &[f64::NAN, 0.0])], 1);
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(reason_of(&call.report), Reason::NotFinite);
    assert_eq!(last_error()["pointer"], "/inputs/0/values/0");
    assert!(call.untouched());
    assert_eq!(ep.world(), before);
    // Stopped: refused with nothing written or stepped.
    ep.stop();
    let safety = ep.safety();
    let o = call.run(&ep, &[(Field::Ctrl, -1, &[0.1, 0.2])], 1);
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(reason_of(&call.report), Reason::StopLatched);
    assert!(call.untouched());
    assert_eq!(ep.world(), before);
    assert_eq!(ep.safety(), safety);
}

#[test]
fn closed_and_null_handles_are_refused_with_the_report_filled() {
    let ep = open_frames("host.xml", FRAME, "");
    let mut call = Call::new(&ep, &READ, 0);
    let raw = ep.0;
    drop(ep);
    let mut report = mjb_report {
        tick_after: 9,
        ..Default::default()
    };
    for (handle, reason) in [
        (raw, Reason::Closed),
        (std::ptr::null_mut(), Reason::NullArgument),
    ] {
        let o = unsafe {
            mjb_write_step_read(
                handle,
                std::ptr::null(),
                0,
                1,
                WAIT_FOREVER,
                call.reqs.as_mut_ptr(),
                call.reqs.len(),
                &mut call.info,
                &mut report,
            )
        };
        assert_eq!(o, Outcome::InvalidArgument);
        assert_eq!(report.outcome, o as i32);
        assert_eq!(report.reason, reason as i32);
        assert_eq!(report.tick_after, 0);
        assert!(call.untouched());
    }
}

#[test]
fn a_stop_latched_during_the_steps_still_returns_the_frame_of_the_steps_done() {
    // contact_act.xml steps slowly enough for a second thread to latch mid-call.
    let ep = open_frames("contact_act.xml", "[\"qpos\"]", "");
    let mut call = Call::new(&ep, &[Field::Qpos], 0);
    let raw = ep.0 as usize;
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(5));
        let mut s = mjb_safety_state::default();
        unsafe { mjb_stop(raw as *mut mjb_endpoint, &mut s) };
    });
    let o = call.run(&ep, &[], 1_000_000);
    stopper.join().unwrap();
    assert_eq!(o, Outcome::Ok, "{:?}", last_error());
    assert_eq!(reason_of(&call.report), Reason::StopLatched);
    // As after mjb_write_step: the report carries the reason.
    assert_eq!(last_error(), serde_json::json!({}));
    let done = call.report.tick_after;
    assert!(done > 0 && done < 1_000_000, "{done}");
    assert_eq!(call.info.tick, done);
    let (qpos, _) = ep.frame(&[Field::Qpos]);
    assert!(same_bits(&call.bufs[0], &qpos[0]));
}
