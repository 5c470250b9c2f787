//! Frames: published under the native lock after every state change, read without it, never
//! torn, never waiting for a step; after a restore, poses come from kinematics on a scratch copy
//! and what only a step computes is marked stale.

mod common;
#[path = "common/gate.rs"]
mod gate;
use common::*;
use mjbridge::ffi::*;
use mjbridge::native::{MjData, MjModel, ModelSource, Mujoco};
use mjbridge::outcome::Outcome;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;

use Field::*;

extern "C" {
    fn mj_kinematics(m: *const MjModel, d: *mut MjData);
}

const POSES: [Field; 6] = [Xpos, Xquat, Xmat, SiteXpos, SiteXmat, GeomXpos];

fn all_fields_json(fields: &[Field]) -> String {
    let names: Vec<String> = fields.iter().map(|f| js(f.name())).collect();
    format!("[{}]", names.join(","))
}

fn bits(fields: &[Field]) -> u64 {
    fields.iter().fold(0, |m, f| m | f.bit())
}

/// Poses of a fresh pair of the same model in the given state, by a plain `mj_kinematics`.
fn fresh_kinematics(
    model: &str,
    state: Option<&[f64]>,
    qpos: &[f64],
    mocap: &[Vec<f64>; 2],
) -> Mujoco {
    let mut mj = Mujoco::load(&ModelSource::XmlPath(model_path(model))).unwrap();
    match state {
        Some(s) => {
            let sig = mjbridge::native::engine().sig_integration;
            mj.set_state(sig, s).unwrap();
        }
        None => {
            mj.field_mut(Qpos).copy_from_slice(qpos);
            mj.field_mut(MocapPos).copy_from_slice(&mocap[0]);
            mj.field_mut(MocapQuat).copy_from_slice(&mocap[1]);
        }
    }
    unsafe { mj_kinematics(mj.model_ptr(), mj.data_ptr()) };
    mj
}

#[test]
fn default_selection_and_first_frame_at_open() {
    let ep = open_model("host.xml", "");
    let d = ep.dims();
    let info = ep.frame_info();
    assert_eq!(info.cause, mjb_frame_cause::MJB_FRAME_OPEN as i32);
    assert_eq!((info.tick, info.frame, info.configuration), (0, 1, 0));
    let default = [
        Qpos, Qvel, Act, Ctrl, Sensordata, Xpos, Xquat, MocapPos, MocapQuat,
    ];
    assert_eq!(info.fields, bits(&default));
    assert_eq!(
        info.stale,
        Sensordata.bit(),
        "no step has computed the sensors yet"
    );
    assert_eq!(ep.field_len(Xpos), 3 * d.nbody as usize);
    assert_eq!(ep.field_len(Sensordata), d.nsensordata as usize);
    // The open frame's poses are the model's initial kinematics, not mj_makeData's zeros.
    let (f, _) = ep.frame(&[Qpos, Xpos, MocapPos, MocapQuat]);
    let fresh = fresh_kinematics("host.xml", None, &f[0], &[f[2].clone(), f[3].clone()]);
    assert!(same_bits(&f[1], fresh.field(Xpos)));
    assert!(f[1].iter().any(|x| *x != 0.0));
}

#[test]
fn every_state_change_publishes_a_frame_under_the_lock() {
    let ep = open_frames(
        "host.xml",
        "[\"qpos\",\"ctrl\",\"sensordata\",\"qacc\"]",
        "",
    );
    let first = ep.frame_info().frame;
    ep.step_ok(5);
    let i = ep.frame_info();
    assert_eq!(
        (i.tick, i.frame - first, i.stale),
        (5, 5, 0),
        "one frame per engine step"
    );
    assert_eq!(i.cause, mjb_frame_cause::MJB_FRAME_STEP as i32);
    let (f, _) = ep.frame(&[Qpos]);
    assert!(
        same_bits(&f[0], &ep.public().qpos),
        "the frame is the owned data's state"
    );

    assert_eq!(ep.set_ctrl(&[0.5, -0.25]), Outcome::Ok);
    let (f, i) = ep.frame(&[Ctrl]);
    assert_eq!(i.cause, mjb_frame_cause::MJB_FRAME_INPUT as i32);
    assert_eq!((i.tick, f[0].clone()), (5, vec![0.5, -0.25]));

    let cp = ep.checkpoint();
    ep.step_ok(3);
    assert_eq!(ep.restore(&cp).0, Outcome::Ok);
    let i = ep.frame_info();
    assert_eq!(i.cause, mjb_frame_cause::MJB_FRAME_RESTORE as i32);
    assert_eq!(i.tick, 5);
    assert_eq!(i.stale, bits(&[Sensordata, Qacc]));

    // Model replacement: new configuration, new sizes, same tick, frame numbers go on.
    let before = ep.frame_info().frame;
    ep.replace_model_ok("pendulum.xml");
    let (f, i) = ep.frame(&[Qpos, Ctrl]);
    assert_eq!(i.cause, mjb_frame_cause::MJB_FRAME_REPLACE as i32);
    assert_eq!((i.configuration, i.tick, i.frame), (1, 5, before + 1));
    assert_eq!((f[0].len(), f[1].len()), (1, 1));
    assert_eq!(ep.dims().configuration, 1);
    assert_eq!(ep.dims().nq, 1);

    // end_of_call publishes once per step call.
    let ep = open_frames(
        "host.xml",
        "{\"fields\":[\"qpos\"],\"publish\":\"end_of_call\"}",
        "",
    );
    ep.step_ok(10);
    let i = ep.frame_info();
    assert_eq!((i.tick, i.frame), (10, 2));
    assert_eq!(i.fields, Qpos.bit());
}

#[test]
fn frame_selection_is_strict() {
    let path = js(&model_path("host.xml"));
    for (frame, reason, ptr) in [
        (
            "[\"qpos\",\"bogus\"]",
            "MJB_REASON_UNKNOWN_FIELD",
            "/frame/1",
        ),
        (
            "[\"qpos\",\"qpos\"]",
            "MJB_REASON_DUPLICATE_FIELD",
            "/frame/1",
        ),
        ("[1]", "MJB_REASON_WRONG_TYPE", "/frame/0"),
        ("\"qpos\"", "MJB_REASON_WRONG_TYPE", "/frame"),
        (
            "{\"fields\":[],\"when\":1}",
            "MJB_REASON_UNKNOWN_FIELD",
            "/frame/when",
        ),
        (
            "{\"publish\":\"sometimes\"}",
            "MJB_REASON_OUT_OF_RANGE",
            "/frame/publish",
        ),
    ] {
        let cfg = format!("{{\"model\":{{\"xml_path\":{path}}},\"frame\":{frame}}}");
        let (o, e) = try_open(&cfg).err().expect("refused");
        assert_eq!(o, Outcome::Rejected, "{frame}");
        assert_eq!(e["reason"], reason, "{frame}");
        assert_eq!(e["pointer"], ptr, "{frame}");
    }
    let cfg = format!("{{\"model\":{{\"xml_path\":{path}}},\"frame\":[\"eq_active\"]}}");
    if cfg!(mjb_eq_active) {
        let ep = open(&cfg);
        assert_eq!(
            ep.frame(&[EqActive]).0[0],
            vec![0.0],
            "tether starts inactive"
        );
    } else {
        let (_, e) = try_open(&cfg)
            .err()
            .expect("no eq_active in mjData before 3.0");
        assert_eq!(e["reason"], "MJB_REASON_UNSUPPORTED");
        assert_eq!(e["pointer"], "/frame/0");
    }
    // An empty selection publishes tick, time and cause alone.
    let ep = open_frames("host.xml", "[]", "");
    ep.step_ok(2);
    let i = ep.frame_info();
    assert_eq!((i.tick, i.fields), (2, 0));
}

#[test]
fn frame_read_refusals_copy_nothing_and_say_why() {
    let ep = open_frames("host.xml", "[\"qpos\",\"xpos\"]", "");
    ep.step_ok(3);
    let mut buf = vec![7.0; 64];
    let mut written = 99usize;
    let mut info = mjb_frame_info {
        tick: 99,
        ..Default::default()
    };
    let read = |f: i32,
                buf: &mut [f64],
                cap: usize,
                written: &mut usize,
                info: &mut mjb_frame_info| unsafe {
        mjb_frame_read(ep.0, f, buf.as_mut_ptr(), cap, written, info)
    };
    let o = read(Qvel as i32, &mut buf, 64, &mut written, &mut info);
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(last_reason(), "MJB_REASON_NOT_IN_FRAME");
    assert_eq!(last_error()["pointer"], "/requests/0/field");
    assert_eq!((written, info.tick), (0, 0), "out-params zeroed");
    let nq = ep.dims().nq as usize;
    let o = read(Qpos as i32, &mut buf, nq - 1, &mut written, &mut info);
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(last_reason(), "MJB_REASON_DIMENSION");
    assert!(buf.iter().all(|x| *x == 7.0), "nothing copied");
    let o = read(77, &mut buf, 64, &mut written, &mut info);
    assert_eq!(o, Outcome::InvalidArgument);
    let o = unsafe { mjb_frame_read(ep.0, 0, std::ptr::null_mut(), 4, &mut written, &mut info) };
    assert_eq!(o, Outcome::InvalidArgument);
    assert_eq!(last_reason(), "MJB_REASON_NULL_ARGUMENT");
    // Success: exactly nq values, the rest of the buffer untouched.
    let o = read(Qpos as i32, &mut buf, 64, &mut written, &mut info);
    assert_eq!(o, Outcome::Ok);
    assert_eq!((written, info.tick), (nq, 3));
    assert!(same_bits(&buf[..nq], &ep.public().qpos));
    assert_eq!(buf[nq], 7.0);
    assert_eq!(
        last_error(),
        serde_json::json!({}),
        "a success leaves no last error"
    );
    // A many-read with one bad request refuses the whole read.
    let mut a = vec![5.0; 64];
    let mut reqs = [
        mjb_frame_request {
            field: Qpos as i32,
            buf: a.as_mut_ptr(),
            cap: 64,
            written: 9,
        },
        mjb_frame_request {
            field: Sensordata as i32,
            buf: a.as_mut_ptr(),
            cap: 64,
            written: 9,
        },
    ];
    let o = unsafe { mjb_frame_read_many(ep.0, reqs.as_mut_ptr(), 2, &mut info) };
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(last_error()["pointer"], "/requests/1/field");
    assert!(a.iter().all(|x| *x == 5.0));
    assert_eq!((reqs[0].written, reqs[1].written), (0, 0));
    // Every request's `written` is zeroed on entry, also those after the one refused: a field
    // that is not an mjb_field (refused at the boundary) and one that is not selected (refused
    // by the frames), each in the first request.
    for (bad, outcome) in [
        (77, Outcome::InvalidArgument),
        (Sensordata as i32, Outcome::Rejected),
    ] {
        reqs[0].field = bad;
        reqs[1].field = Qpos as i32;
        reqs[0].written = 9;
        reqs[1].written = 9;
        let o = unsafe { mjb_frame_read_many(ep.0, reqs.as_mut_ptr(), 2, &mut info) };
        assert_eq!(o, outcome);
        assert_eq!(last_error()["pointer"], "/requests/0/field");
        assert!(a.iter().all(|x| *x == 5.0));
        assert_eq!((reqs[0].written, reqs[1].written), (0, 0), "field {bad}");
    }
}

#[test]
fn frame_reads_do_not_wait_for_a_step_in_progress() {
    let ep = open_frames("host.xml", "[\"qpos\",\"qvel\",\"xpos\"]", "");
    ep.step_ok(4);
    let (at4, i4) = ep.frame(&[Qpos, Qvel, Xpos]);
    let g = gate::install(model_of(&ep));
    let stepper = spawn_step(&ep, 3);
    g.wait_entered(1); // inside mj_step, holding the native lock
    let mut s = std::ptr::null_mut();
    assert_eq!(
        unsafe { mjb_world_read(ep.0, 5, &mut s) },
        Outcome::Rejected
    );
    assert_eq!(last_reason(), "MJB_REASON_BUSY", "the lock is held");
    for _ in 0..1000 {
        let (f, i) = ep.frame(&[Qpos, Qvel, Xpos]);
        assert_eq!(i.tick, 4, "the latest complete frame");
        assert_eq!(f, at4);
        assert_eq!(i.frame, i4.frame);
    }
    // Model facts and names need no lock either.
    assert_eq!(ep.dims().nq, 13);
    let mut id = -1;
    let name = c"ball";
    assert_eq!(
        unsafe {
            mjb_name_to_id(
                ep.0,
                mjb_object_kind::MJB_OBJ_BODY as i32,
                name.as_ptr(),
                &mut id,
            )
        },
        Outcome::Ok
    );
    g.open();
    let (o, r) = stepper.join().unwrap();
    assert_eq!((o, r.tick_after), (Outcome::Ok, 7));
    assert_eq!(ep.frame_info().tick, 7);
}

#[test]
fn a_restore_publishes_poses_from_kinematics_on_a_scratch_copy_and_marks_sensors_stale() {
    let mut sel = vec![Qpos, Qvel, Qacc, Sensordata];
    sel.extend(POSES);
    sel.extend([MocapPos, MocapQuat, ActuatorForce]);
    sel.sort_by_key(|f| *f as i32);
    let ep = open_frames("host.xml", &all_fields_json(&sel), "");
    let mut ball = -1;
    unsafe {
        mjb_name_to_id(
            ep.0,
            mjb_object_kind::MJB_OBJ_BODY as i32,
            c"ball".as_ptr(),
            &mut ball,
        )
    };
    ep.input_ok(Ctrl, -1, &[1.0, -0.3]);
    ep.input_ok(XfrcApplied, ball, &[0.0, 0.2, 1.5, 0.0, 0.01, 0.0]);
    ep.input_ok(MocapPos, 0, &[0.35, 0.05, 0.55]);
    ep.step_ok(150);
    let cp = ep.checkpoint();
    let at_cp = ep.state_vector();
    let mocap_cp = [ep.owned_field(MocapPos), ep.owned_field(MocapQuat)];
    ep.step_ok(200);
    let at_350 = ep.state_vector();
    let qpos_350 = ep.public().qpos;
    // Move on with other inputs, so that restoring them matters.
    ep.input_ok(MocapPos, 0, &[0.0, 0.0, 1.0]);
    ep.input_ok(Ctrl, -1, &[-2.0, 0.5]);
    ep.step_ok(10);
    let owned_before: Vec<Vec<f64>> = POSES.iter().map(|f| ep.owned_field(*f)).collect();

    let (o, r) = ep.restore(&cp);
    assert_eq!(o, Outcome::Ok, "{:?}", last_error());
    assert_eq!(r.tick_after, 150);
    let (f, info) = ep.frame(&sel);
    let get = |field: Field| &f[sel.iter().position(|s| *s == field).unwrap()];
    assert_eq!(info.cause, mjb_frame_cause::MJB_FRAME_RESTORE as i32);
    assert_eq!(info.tick, 150);
    assert_eq!(
        info.stale,
        bits(&[Qacc, Sensordata, ActuatorForce]),
        "what only a step computes is stale; poses are not"
    );
    // The frame's poses are those of a fresh mj_kinematics on the restored state (the basic
    // profile restores qpos but leaves the mocap pose as it was).
    let mocap_now = [ep.owned_field(MocapPos), ep.owned_field(MocapQuat)];
    if at_cp.is_some() {
        assert_eq!(mocap_now, mocap_cp, "the checkpoint carries the mocap pose");
    }
    assert!(same_bits(get(MocapPos), &mocap_now[0]));
    let fresh = fresh_kinematics("host.xml", at_cp.as_deref(), get(Qpos), &mocap_now);
    for p in POSES {
        assert!(
            same_bits(get(p), fresh.field(p)),
            "{} after restore",
            p.name()
        );
    }
    assert!(!same_bits(get(Xpos), &owned_before[0]), "the pose moved");
    // Nothing was computed on the owned data: its derived arrays are still the old ones.
    for (p, before) in POSES.iter().zip(&owned_before) {
        assert!(
            same_bits(&ep.owned_field(*p), before),
            "owned {} untouched",
            p.name()
        );
    }
    if let Some(at_cp) = &at_cp {
        // Warm-start, controls, applied forces, mocap, equality activation: all bit-identical.
        assert!(same_bits(&ep.state_vector().unwrap(), at_cp));
    } else {
        assert!(same_bits(&ep.public().qpos, get(Qpos)));
    }
    // An input write while poses come from the scratch copy keeps them consistent.
    let moved = [0.2, -0.1, 0.6];
    ep.input_ok(MocapPos, 0, &moved);
    let (f2, i2) = ep.frame(&[Xpos, MocapPos]);
    assert_eq!(i2.cause, mjb_frame_cause::MJB_FRAME_INPUT as i32);
    assert_eq!(i2.stale, info.stale, "still stale until the next step");
    assert_eq!(
        &f2[0][3..6],
        &moved[..],
        "the mocap body's pose follows at once"
    );
    ep.input_ok(MocapPos, 0, &mocap_cp[0]);

    ep.step_ok(200);
    let i = ep.frame_info();
    assert_eq!(
        (i.stale, i.cause),
        (0, mjb_frame_cause::MJB_FRAME_STEP as i32)
    );
    if let Some(at_350) = &at_350 {
        assert!(
            same_bits(&ep.state_vector().unwrap(), at_350),
            "continuation after the restore is bit-identical"
        );
    } else {
        let _ = qpos_350; // basic profile: no claim of exact continuation
    }
}

/// FNV-1a over the bits of a frame's values, time and number.
fn frame_hash(values: &[Vec<f64>], info: &mjb_frame_info) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |x: u64| {
        for b in x.to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for v in values.iter().flatten() {
        eat(v.to_bits());
    }
    eat(info.time.to_bits());
    eat(info.frame);
    eat(info.cause as u64);
    h
}

fn ctrl_at(t: u64, nu: usize) -> Vec<f64> {
    (0..nu)
        .map(|i| ((t as f64) * 0.05 + i as f64).sin())
        .collect()
}

/// Readers on two threads check every frame they copy against a single-threaded replay of the
/// same run: each read's values must be exactly those published at its tick.
fn never_torn(model: &str, ticks: u64) {
    let fields = [Qpos, Qvel, Ctrl, Sensordata, Xpos, Xquat];
    let sel = all_fields_json(&fields);
    let replay = open_frames(model, &sel, "");
    let nu = replay.dims().nu as usize;
    let mut expected = HashMap::new();
    let (f, i) = replay.frame(&fields);
    expected.insert(0u64, frame_hash(&f, &i));
    for t in 0..ticks {
        let c = ctrl_at(t, nu);
        let (o, _) = replay.write_step(&[(Ctrl, -1, &c)], 1);
        assert_eq!(o, Outcome::Ok);
        let (f, i) = replay.frame(&fields);
        assert_eq!(i.tick, t + 1);
        expected.insert(i.tick, frame_hash(&f, &i));
    }
    let expected = Arc::new(expected);

    let ep = Arc::new(open_frames(model, &sel, ""));
    let done = Arc::new(AtomicBool::new(false));
    let lens: Vec<usize> = fields.iter().map(|f| ep.field_len(*f)).collect();
    // One reader per spare core: it runs while the writer steps.
    let readers: Vec<_> = (0..1)
        .map(|_| {
            let (ep, done, expected, lens) =
                (ep.clone(), done.clone(), expected.clone(), lens.clone());
            thread::spawn(move || {
                let mut bufs: Vec<Vec<f64>> = lens.iter().map(|n| vec![0.0; *n]).collect();
                let (mut reads, mut retries, mut seen) =
                    (0u64, 0u64, std::collections::BTreeSet::new());
                // Every other read through a prepared reader over the same buffers.
                let prepared = reader_over(&ep, &fields, &mut bufs);
                while !done.load(Ordering::Acquire) || reads < 2 {
                    let (o, i) = if reads % 2 == 1 {
                        reader_read(prepared)
                    } else {
                        let mut reqs = requests(&fields, &mut bufs);
                        let mut i = mjb_frame_info::default();
                        let n = reqs.len();
                        let o = unsafe { mjb_frame_read_many(ep.0, reqs.as_mut_ptr(), n, &mut i) };
                        (o.into(), i)
                    };
                    assert_eq!(o, Outcome::Ok);
                    assert_eq!(
                        expected.get(&i.tick),
                        Some(&frame_hash(&bufs, &i)),
                        "frame of tick {} is not the one published at that tick (read {reads})",
                        i.tick
                    );
                    reads += 1;
                    retries += i.retries;
                    seen.insert(i.tick);
                }
                assert_eq!(unsafe { mjb_frame_reader_free(prepared) }, Outcome::Ok);
                (reads, retries, seen.len())
            })
        })
        .collect();
    for t in 0..ticks {
        let c = ctrl_at(t, nu);
        let (o, _) = ep.write_step(&[(Ctrl, -1, &c)], 1);
        assert_eq!(o, Outcome::Ok);
    }
    done.store(true, Ordering::Release);
    let stats: Vec<_> = readers.into_iter().map(|r| r.join().unwrap()).collect();
    println!("{model}: {ticks} ticks; per reader (reads, retries, distinct ticks): {stats:?}");
    let distinct: usize = stats.iter().map(|s| s.2).max().unwrap();
    assert!(
        distinct >= 2,
        "readers ran while the writer stepped: {stats:?}"
    );
}

#[test]
fn frame_reads_are_never_torn_while_a_writer_steps_flat_out() {
    never_torn("host.xml", 3000);
    never_torn("many_bodies.xml", 150);
}

/// A prepared reader over `bufs` (one request per field, each buffer exactly as large).
fn reader_over(ep: &Ep, fields: &[Field], bufs: &mut [Vec<f64>]) -> *mut mjb_frame_reader {
    let mut reqs = requests(fields, bufs);
    let mut fr = std::ptr::null_mut();
    let o = unsafe { mjb_frame_reader_new(ep.0, reqs.as_mut_ptr(), reqs.len(), &mut fr) };
    assert_eq!(o, Outcome::Ok, "{:?}", last_error());
    assert!(!fr.is_null());
    for (r, f) in reqs.iter().zip(fields) {
        assert_eq!(
            r.written,
            ep.field_len(*f),
            "written: what every read copies"
        );
    }
    fr
}

fn reader_read(fr: *mut mjb_frame_reader) -> (Outcome, mjb_frame_info) {
    let mut info = mjb_frame_info {
        tick: 99,
        ..Default::default()
    };
    let o = unsafe { mjb_frame_reader_read(fr, &mut info) };
    (o.into(), info)
}

#[test]
fn a_frame_reader_reads_what_a_many_read_reads_with_the_checks_done_once() {
    let fields = [Qpos, Qvel, Act, Xpos, Xquat];
    let ep = open_frames("host.xml", &all_fields_json(&fields), "");
    let mut bufs: Vec<Vec<f64>> = fields.iter().map(|f| vec![7.0; ep.field_len(*f)]).collect();
    // One buffer larger than its field: the values beyond the field's length stay untouched.
    bufs[0].push(7.0);
    let fr = reader_over(&ep, &fields, &mut bufs);
    let nq = ep.dims().nq as usize;
    assert_eq!(bufs[0].len(), nq + 1);
    for ticks in [0, 1, 5] {
        ep.step_ok(ticks);
        let (o, info) = reader_read(fr);
        assert_eq!(o, Outcome::Ok, "{:?}", last_error());
        let (expected, expected_info) = ep.frame(&fields);
        assert_eq!(info, expected_info);
        assert!(same_bits(&bufs[0][..nq], &expected[0]));
        assert_eq!(bufs[0][nq], 7.0, "beyond the field: untouched");
        for (b, e) in bufs.iter().zip(&expected).skip(1) {
            assert!(same_bits(b, e));
        }
        assert_eq!(last_error(), serde_json::json!({}));
    }
    // A NULL info is allowed.
    assert_eq!(
        unsafe { mjb_frame_reader_read(fr, std::ptr::null_mut()) },
        Outcome::Ok
    );
    // Two readers of one endpoint, different fields, side by side.
    let mut other = vec![vec![0.0; ep.field_len(Qvel)]];
    let fr2 = reader_over(&ep, &[Qvel], &mut other);
    assert_eq!(reader_read(fr2).0, Outcome::Ok);
    assert!(same_bits(&other[0], &bufs[1]));
    // A reader of no request reads the info alone.
    let fr0 = reader_over(&ep, &[], &mut []);
    let (o, info) = reader_read(fr0);
    assert_eq!((o, info.tick), (Outcome::Ok, 6));
    for r in [fr, fr2, fr0] {
        assert_eq!(unsafe { mjb_frame_reader_free(r) }, Outcome::Ok);
    }
}

#[test]
fn frame_reader_refusals_make_nothing_change_nothing_and_say_where() {
    let ep = open_frames("host.xml", "[\"qpos\",\"xpos\"]", "");
    ep.step_ok(3);
    let hash = ep.hash();
    let nq = ep.field_len(Qpos);
    let mut a = vec![5.0; 64];
    let mut b = vec![5.0; 64];
    let new = |reqs: &mut [mjb_frame_request], n: usize| {
        let mut fr: *mut mjb_frame_reader = 0x10 as *mut _;
        let o = unsafe { mjb_frame_reader_new(ep.0, reqs.as_mut_ptr(), n, &mut fr) };
        assert!(fr.is_null(), "out is NULL on a refusal");
        Outcome::from(o)
    };
    let req = |field: Field, buf: &mut Vec<f64>, cap: usize| mjb_frame_request {
        field: field as i32,
        buf: buf.as_mut_ptr(),
        cap,
        written: 9,
    };
    let cases: Vec<(Vec<mjb_frame_request>, Outcome, &str, &str)> = vec![
        (
            vec![req(Qpos, &mut a, 64), req(Sensordata, &mut b, 64)],
            Outcome::Rejected,
            "MJB_REASON_NOT_IN_FRAME",
            "/requests/1/field",
        ),
        (
            vec![req(Qpos, &mut a, nq - 1), req(Xpos, &mut b, 64)],
            Outcome::Rejected,
            "MJB_REASON_DIMENSION",
            "/requests/0/cap",
        ),
        (
            vec![
                mjb_frame_request {
                    field: 77,
                    ..req(Qpos, &mut a, 64)
                },
                req(Xpos, &mut b, 64),
            ],
            Outcome::InvalidArgument,
            "MJB_REASON_OUT_OF_RANGE",
            "/requests/0/field",
        ),
        (
            vec![mjb_frame_request {
                buf: std::ptr::null_mut(),
                ..req(Qpos, &mut a, 64)
            }],
            Outcome::InvalidArgument,
            "MJB_REASON_NULL_ARGUMENT",
            "",
        ),
    ];
    for (mut reqs, outcome, reason, pointer) in cases {
        let n = reqs.len();
        assert_eq!(new(&mut reqs, n), outcome, "{reason}");
        assert_eq!(last_reason(), reason);
        if !pointer.is_empty() {
            assert_eq!(last_error()["pointer"], pointer);
        }
        assert!(
            reqs.iter().all(|r| r.written == 0),
            "{reason}: written zeroed"
        );
    }
    assert!(a.iter().chain(&b).all(|x| *x == 5.0), "nothing copied");
    // More than 64 requests.
    let mut many: Vec<mjb_frame_request> = (0..65).map(|_| req(Qpos, &mut a, 64)).collect();
    assert_eq!(new(&mut many, 65), Outcome::InvalidArgument);
    assert_eq!(last_reason(), "MJB_REASON_OUT_OF_RANGE");
    // A NULL out, a NULL or foreign endpoint.
    let mut one = [req(Qpos, &mut a, 64)];
    let o: Outcome =
        unsafe { mjb_frame_reader_new(ep.0, one.as_mut_ptr(), 1, std::ptr::null_mut()) }.into();
    assert_eq!(
        (o, last_reason().as_str()),
        (Outcome::InvalidArgument, "MJB_REASON_NULL_ARGUMENT")
    );
    let mut fr = std::ptr::null_mut();
    let o: Outcome =
        unsafe { mjb_frame_reader_new(std::ptr::null_mut(), one.as_mut_ptr(), 1, &mut fr) }.into();
    assert_eq!(
        (o, last_reason().as_str()),
        (Outcome::InvalidArgument, "MJB_REASON_NULL_ARGUMENT")
    );
    assert_eq!(ep.hash(), hash, "no refusal changed the state");

    // Reads and frees of what is not a live reader.
    let mut bufs = vec![vec![3.0; nq]];
    let fr = reader_over(&ep, &[Qpos], &mut bufs);
    for (bad, reason) in [
        (std::ptr::null_mut(), "MJB_REASON_NULL_ARGUMENT"),
        (ep.0.cast::<mjb_frame_reader>(), "MJB_REASON_FOREIGN_HANDLE"),
        (
            (fr as usize | 8) as *mut mjb_frame_reader,
            "MJB_REASON_FOREIGN_HANDLE",
        ),
    ] {
        let (o, info) = reader_read(bad);
        assert_eq!(
            (o, last_reason().as_str(), info.tick),
            (Outcome::InvalidArgument, reason, 0)
        );
    }
    assert_eq!(
        unsafe { mjb_frame_reader_free(ep.0.cast()) },
        Outcome::InvalidArgument,
        "an endpoint is not a reader"
    );
    assert_eq!(ep.frame_info().tick, 3, "the endpoint is untouched");
    assert_eq!(unsafe { mjb_frame_reader_free(fr) }, Outcome::Ok);
    bufs[0].fill(3.0);
    let (o, _) = reader_read(fr);
    assert_eq!(
        (o, last_reason().as_str()),
        (Outcome::InvalidArgument, "MJB_REASON_CLOSED")
    );
    assert!(
        bufs[0].iter().all(|x| *x == 3.0),
        "a freed reader copies nothing"
    );
    assert_eq!(
        unsafe { mjb_frame_reader_free(fr) },
        Outcome::InvalidArgument,
        "a second free"
    );
    assert_eq!(last_reason(), "MJB_REASON_CLOSED");
    assert_eq!(
        unsafe { mjb_frame_reader_free(std::ptr::null_mut()) },
        Outcome::Ok
    );
    assert_eq!(ep.hash(), hash);
}

#[test]
fn a_frame_reader_is_refused_after_a_model_replacement_and_after_its_endpoint_closes() {
    let ep = open_frames("host.xml", "[\"qpos\",\"ctrl\"]", "");
    ep.step_ok(2);
    let mut bufs: Vec<Vec<f64>> = [Qpos, Ctrl]
        .iter()
        .map(|f| vec![0.0; ep.field_len(*f)])
        .collect();
    let fr = reader_over(&ep, &[Qpos, Ctrl], &mut bufs);
    assert_eq!(reader_read(fr).0, Outcome::Ok);
    ep.replace_model_ok("pendulum.xml");
    let hash = ep.hash();
    for b in &mut bufs {
        b.fill(4.0);
    }
    let (o, info) = reader_read(fr);
    assert_eq!((o, info.tick), (Outcome::Rejected, 0));
    assert_eq!(last_reason(), "MJB_REASON_CONFIGURATION");
    let message = last_error()["message"].as_str().unwrap().to_owned();
    assert!(message.contains("make a new reader"), "{message}");
    assert!(bufs.iter().flatten().all(|x| *x == 4.0), "nothing copied");
    assert_eq!(ep.hash(), hash, "the refused read changed nothing");
    // A reader made for the new model reads it.
    let mut new_bufs = vec![vec![0.0; 1], vec![0.0; 1]];
    let fr_new = reader_over(&ep, &[Qpos, Ctrl], &mut new_bufs);
    let (o, info) = reader_read(fr_new);
    assert_eq!((o, info.configuration, info.tick), (Outcome::Ok, 1, 2));
    // After the endpoint closes, both readers are refused as closed (the older one too: a
    // host told "replaced" would prepare again, which a closed endpoint refuses), and both
    // are still freed.
    drop(ep);
    let (o, _) = reader_read(fr);
    assert_eq!(
        (o, last_reason().as_str()),
        (Outcome::InvalidArgument, "MJB_REASON_CLOSED")
    );
    let (o, _) = reader_read(fr_new);
    assert_eq!(
        (o, last_reason().as_str()),
        (Outcome::InvalidArgument, "MJB_REASON_CLOSED")
    );
    assert!(
        last_error()["message"]
            .as_str()
            .unwrap()
            .contains("endpoint was closed"),
        "{:?}",
        last_error()
    );
    for f in [fr, fr_new] {
        assert_eq!(unsafe { mjb_frame_reader_free(f) }, Outcome::Ok);
    }
}

#[test]
fn a_reader_freed_on_one_thread_is_refused_on_another_that_read_it_before() {
    let ep = open_frames("host.xml", "[\"qpos\"]", "");
    ep.step_ok(1);
    let mut bufs = vec![vec![0.0; ep.field_len(Qpos)]];
    let fr = reader_over(&ep, &[Qpos], &mut bufs) as usize;
    let barrier = std::sync::Barrier::new(2);
    thread::scope(|s| {
        let other = s.spawn(|| {
            let fr = fr as *mut mjb_frame_reader;
            // Read on this thread first: the reader is in this thread's recent readers now.
            let (o, info) = reader_read(fr);
            assert_eq!((o, info.tick), (Outcome::Ok, 1));
            barrier.wait(); // freed on the other thread
            barrier.wait();
            let (o, info) = reader_read(fr);
            assert_eq!(
                (o, last_reason().as_str()),
                (Outcome::InvalidArgument, "MJB_REASON_CLOSED")
            );
            assert_eq!(info.tick, 0);
        });
        barrier.wait();
        assert_eq!(unsafe { mjb_frame_reader_free(fr as *mut _) }, Outcome::Ok);
        barrier.wait();
        other.join().unwrap();
    });
}
