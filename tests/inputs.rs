//! Typed inputs: controls, applied forces, mocap poses and equality activation; checked before
//! anything is written, written under the lock as one world mutation, served and accepted by
//! the world document, carried by checkpoints, and combined with stepping in one admission.

mod common;
use common::*;
use mjbridge::endpoint::WAIT_FOREVER;
use mjbridge::ffi::*;
use mjbridge::outcome::Outcome;
use serde_json::{json, Value};

use Field::*;

const INPUT_FRAME: &str =
    "[\"ctrl\",\"qfrc_applied\",\"xfrc_applied\",\"mocap_pos\",\"mocap_quat\",\"qpos\"]";

fn id_of(ep: &Ep, kind: mjb_object_kind, name: &str) -> i32 {
    let c = std::ffi::CString::new(name).unwrap();
    let mut id = -1;
    let o = unsafe { mjb_name_to_id(ep.0, kind as i32, c.as_ptr(), &mut id) };
    assert_eq!(o, Outcome::Ok, "{name}: {:?}", last_error());
    id
}

/// A served array as doubles (the printer writes 1.0 as 1).
fn f64s(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// Everything a refused write must leave as it was.
fn observable(ep: &Ep) -> (String, u64, Option<Vec<f64>>) {
    (ep.hash(), ep.frame_info().frame, ep.state_vector())
}

#[test]
fn typed_inputs_write_whole_fields_and_single_objects() {
    let ep = open_frames("host.xml", INPUT_FRAME, "");
    let d = ep.dims();
    let ball = id_of(&ep, mjb_object_kind::MJB_OBJ_BODY, "ball");
    let target = id_of(&ep, mjb_object_kind::MJB_OBJ_MOCAP, "target");
    let twist = id_of(&ep, mjb_object_kind::MJB_OBJ_ACTUATOR, "twist");
    assert_eq!((target, twist), (0, 1));
    ep.step_ok(3);

    let (o, r) = ep.input(Ctrl, -1, &[1.0, 2.0]);
    assert_eq!(o, Outcome::Ok);
    assert_eq!((r.tick_before, r.tick_after), (3, 3));
    assert!(r.sequence > 0, "a world mutation with a report");
    ep.input_ok(Ctrl, twist, &[3.0]);
    ep.input_ok(QfrcApplied, 1, &[0.5]);
    let wrench = [0.1, -0.2, 30.0, 0.01, 0.02, -0.03];
    ep.input_ok(XfrcApplied, ball, &wrench);
    ep.input_ok(MocapPos, target, &[0.4, 0.1, 0.6]);
    ep.input_ok(MocapQuat, -1, &[0.0, 1.0, 0.0, 0.0]);

    let (f, i) = ep.frame(&[Ctrl, QfrcApplied, XfrcApplied, MocapPos, MocapQuat]);
    assert_eq!(i.cause, mjb_frame_cause::MJB_FRAME_INPUT as i32);
    assert_eq!(f[0], vec![1.0, 3.0]);
    let mut qfrc = vec![0.0; d.nv as usize];
    qfrc[1] = 0.5;
    assert_eq!(f[1], qfrc);
    let b = ball as usize * 6;
    assert_eq!(&f[2][b..b + 6], &wrench);
    assert_eq!(
        f[2].iter().filter(|x| **x != 0.0).count(),
        6,
        "only the ball's wrench"
    );
    assert_eq!(f[3], vec![0.4, 0.1, 0.6]);
    assert_eq!(f[4], vec![0.0, 1.0, 0.0, 0.0]);
    // The owned data holds the same, and the world document serves it.
    assert_eq!(ep.owned_field(XfrcApplied), f[2]);
    let w = ep.world_json();
    assert_eq!(f64s(&w["world"]["ctrl"]), vec![1.0, 3.0]);
    assert_eq!(f64s(&w["world"]["qfrc_applied"]), qfrc);
    assert_eq!(f64s(&w["world"]["xfrc_applied"]), f[2]);
    assert_eq!(f64s(&w["world"]["mocap_pos"]), vec![0.4, 0.1, 0.6]);
    assert_eq!(f64s(&w["world"]["mocap_quat"]), vec![0.0, 1.0, 0.0, 0.0]);
    if cfg!(mjb_eq_active) {
        let tether = id_of(&ep, mjb_object_kind::MJB_OBJ_EQUALITY, "tether");
        assert_eq!(f64s(&w["world"]["eq_active"]), vec![0.0]);
        ep.input_ok(EqActive, tether, &[1.0]);
        assert_eq!(f64s(&ep.world_json()["world"]["eq_active"]), vec![1.0]);
    } else {
        assert!(
            w["world"].get("eq_active").is_none(),
            "not in mjData before 3.0"
        );
    }
    // The wrench acts in the next step.
    ep.step_ok(1);
    assert!(
        ep.public().qvel[2 + 2] > 0.0,
        "the ball is pushed up (free joint dof z)"
    );
}

#[test]
fn refused_inputs_write_nothing_and_say_why() {
    let ep = open_frames("host.xml", INPUT_FRAME, "");
    ep.input_ok(Ctrl, -1, &[0.25, -0.5]);
    ep.step_ok(2);
    let before = observable(&ep);
    let nan = f64::NAN;
    let eq_case = |v: f64| -> (Field, i32, Vec<f64>, &'static str, &'static str) {
        if cfg!(mjb_eq_active) {
            (
                EqActive,
                0,
                vec![v],
                "MJB_REASON_EQ_ACTIVE_DOMAIN",
                "/values/0",
            )
        } else {
            (EqActive, 0, vec![v], "MJB_REASON_UNSUPPORTED", "/field")
        }
    };
    let cases: Vec<(Field, i32, Vec<f64>, &str, &str)> = vec![
        (Ctrl, -1, vec![1.0], "MJB_REASON_DIMENSION", "/values"),
        (Ctrl, 2, vec![1.0], "MJB_REASON_OUT_OF_RANGE", "/id"),
        (Ctrl, -2, vec![1.0], "MJB_REASON_OUT_OF_RANGE", "/id"),
        (
            XfrcApplied,
            1,
            vec![1.0; 3],
            "MJB_REASON_DIMENSION",
            "/values",
        ),
        (
            XfrcApplied,
            99,
            vec![1.0; 6],
            "MJB_REASON_OUT_OF_RANGE",
            "/id",
        ),
        (
            QfrcApplied,
            0,
            vec![nan],
            "MJB_REASON_NOT_FINITE",
            "/values/0",
        ),
        (
            MocapQuat,
            0,
            vec![1.0, 0.0, f64::INFINITY, 0.0],
            "MJB_REASON_NOT_FINITE",
            "/values/2",
        ),
        (MocapPos, 1, vec![0.0; 3], "MJB_REASON_OUT_OF_RANGE", "/id"),
        eq_case(0.5),
        eq_case(-0.0),
        eq_case(2.0),
        (
            Qpos,
            -1,
            vec![0.0; 13],
            "MJB_REASON_READ_ONLY_FIELD",
            "/field",
        ),
        (
            Sensordata,
            -1,
            vec![],
            "MJB_REASON_READ_ONLY_FIELD",
            "/field",
        ),
    ];
    for (f, id, values, reason, ptr) in cases {
        let (o, r) = ep.input(f, id, &values);
        assert_eq!(o, Outcome::Rejected, "{} id {id} {values:?}", f.name());
        assert_eq!(last_reason(), reason, "{} {values:?}", f.name());
        assert_eq!(last_error()["pointer"], ptr, "{} {values:?}", f.name());
        assert_eq!(
            (r.tick_before, r.tick_after, r.sequence),
            (2, 2, 0),
            "not admitted"
        );
    }
    let mut r = mjb_report::default();
    let o = unsafe { mjb_input_write(ep.0, 99, -1, [0.0].as_ptr(), 1, WAIT_FOREVER, &mut r) };
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(last_error()["pointer"], "/field");
    let o = unsafe {
        mjb_input_write(
            ep.0,
            Ctrl as i32,
            -1,
            std::ptr::null(),
            2,
            WAIT_FOREVER,
            &mut r,
        )
    };
    assert_eq!(o, Outcome::InvalidArgument);
    assert_eq!(last_reason(), "MJB_REASON_NULL_ARGUMENT");
    assert_eq!(
        r.outcome,
        Outcome::InvalidArgument as i32,
        "the report is filled"
    );
    // One bad input of several: none is written.
    let (o, _) = ep.write_step(&[(Ctrl, -1, &[9.0, 9.0]), (QfrcApplied, 0, &[nan])], 5);
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(last_error()["pointer"], "/inputs/1/values/0");
    assert_eq!(observable(&ep), before, "refused inputs changed nothing");
    assert_eq!(ep.public().ctrl, vec![0.25, -0.5]);
}

#[test]
fn the_world_document_serves_and_accepts_the_inputs() {
    let ep = open_model("host.xml", "");
    let d = ep.dims();
    let w = ep.world_json();
    let mut keys: Vec<&str> = w["world"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    let mut want = vec![
        "act",
        "checkpoint_scope",
        "ctrl",
        "determinism",
        "mocap_pos",
        "mocap_quat",
        "name",
        "native_checkpoint",
        "profile",
        "qfrc_applied",
        "qpos",
        "qvel",
        "seed",
        "tick",
        "time",
        "xfrc_applied",
        "model_fingerprint",
    ];
    want.sort();
    if cfg!(mjb_eq_active) {
        want.push("eq_active");
        want.sort();
    }
    assert_eq!(keys, want);
    let mut xfrc = vec![0.0; 6 * d.nbody as usize];
    xfrc[6 * 3 + 2] = 2.5;
    let doc = json!({"world": {"xfrc_applied": xfrc, "mocap_pos": [0.1, 0.2, 0.3], "qfrc_applied": vec![0.125; d.nv as usize]}});
    assert_eq!(
        ep.world_write(&doc.to_string()),
        Outcome::Ok,
        "{:?}",
        last_error()
    );
    let w = ep.world_json();
    assert_eq!(f64s(&w["world"]["xfrc_applied"]), xfrc);
    assert_eq!(f64s(&w["world"]["mocap_pos"]), vec![0.1, 0.2, 0.3]);
    assert_eq!(ep.owned_field(QfrcApplied), vec![0.125; d.nv as usize]);
    let (f, i) = ep.frame(&[MocapPos]);
    assert_eq!(
        (f[0].clone(), i.cause),
        (vec![0.1, 0.2, 0.3], mjb_frame_cause::MJB_FRAME_INPUT as i32)
    );

    let before = ep.hash();
    let eq = if cfg!(mjb_eq_active) {
        (
            "{\"world\":{\"eq_active\":[0.5]}}",
            "MJB_REASON_EQ_ACTIVE_DOMAIN",
            "/world/eq_active/0",
        )
    } else {
        (
            "{\"world\":{\"eq_active\":[1]}}",
            "MJB_REASON_UNSUPPORTED",
            "/world/eq_active",
        )
    };
    for (doc, reason, ptr) in [
        (
            "{\"world\":{\"mocap_pos\":[1,2]}}",
            "MJB_REASON_DIMENSION",
            "/world/mocap_pos",
        ),
        (
            "{\"world\":{\"mocap_quat\":[1,0,0,true]}}",
            "MJB_REASON_WRONG_TYPE",
            "/world/mocap_quat/3",
        ),
        (
            "{\"world\":{\"xfrc_applied\":{}}}",
            "MJB_REASON_WRONG_TYPE",
            "/world/xfrc_applied",
        ),
        (
            "{\"world\":{\"ctrl\":[0,0],\"qpos\":[]}}",
            "MJB_REASON_READ_ONLY_FIELD",
            "/world/qpos",
        ),
        (
            "{\"world\":{\"qfrc\":[]}}",
            "MJB_REASON_UNKNOWN_FIELD",
            "/world/qfrc",
        ),
        eq,
    ] {
        assert_eq!(ep.world_write(doc), Outcome::Rejected, "{doc}");
        assert_eq!(last_reason(), reason, "{doc}");
        assert_eq!(last_error()["pointer"], ptr, "{doc}");
    }
    assert_eq!(ep.hash(), before, "refused world writes changed nothing");
}

#[cfg(mjb_integration)]
#[test]
fn a_restore_brings_every_input_back_exactly() {
    let ep = open_frames("host.xml", INPUT_FRAME, "");
    let ball = id_of(&ep, mjb_object_kind::MJB_OBJ_BODY, "ball");
    let inputs_of = |ep: &Ep| -> Value {
        let w = ep.world_json();
        json!([
            w["world"]["ctrl"],
            w["world"]["qfrc_applied"],
            w["world"]["xfrc_applied"],
            w["world"]["mocap_pos"],
            w["world"]["mocap_quat"],
            w["world"]["eq_active"]
        ])
    };
    ep.input_ok(Ctrl, -1, &[0.1 + 1e-17, -0.7]);
    ep.input_ok(QfrcApplied, 0, &[1.0 / 3.0]);
    ep.input_ok(XfrcApplied, ball, &[0.0, 0.0, 1.0, 0.0, 0.0, -0.0]);
    ep.input_ok(MocapPos, 0, &[0.31, 0.02, 0.52]);
    ep.input_ok(MocapQuat, 0, &[0.5, 0.5, 0.5, 0.5]);
    if cfg!(mjb_eq_active) {
        // Equality activation is an input where mjData holds it (MuJoCo >= 3.0).
        ep.input_ok(EqActive, 0, &[1.0]);
    }
    ep.step_ok(20);
    let cp = ep.checkpoint();
    let snapshot = ep.world();
    let a = inputs_of(&ep);
    let state_a = ep.state_vector().unwrap();

    ep.input_ok(Ctrl, -1, &[5.0, 5.0]);
    ep.input_ok(QfrcApplied, -1, &vec![0.0; ep.dims().nv as usize]);
    ep.input_ok(XfrcApplied, ball, &[1.0; 6]);
    ep.input_ok(MocapPos, 0, &[0.0, 0.0, 0.0]);
    ep.input_ok(MocapQuat, 0, &[1.0, 0.0, 0.0, 0.0]);
    if cfg!(mjb_eq_active) {
        // Equality activation is an input where mjData holds it (MuJoCo >= 3.0).
        ep.input_ok(EqActive, 0, &[0.0]);
    }
    ep.step_ok(20);
    assert_ne!(inputs_of(&ep), a);

    for doc in [&cp, &snapshot] {
        let (o, _) = ep.restore(doc);
        assert_eq!(o, Outcome::Ok, "{:?}", last_error());
        assert_eq!(
            inputs_of(&ep),
            a,
            "the world document serves the restored inputs"
        );
        assert!(
            same_bits(&ep.state_vector().unwrap(), &state_a),
            "bit for bit"
        );
        let (f, _) = ep.frame(&[XfrcApplied, Ctrl]);
        assert!(same_bits(&f[0], &ep.owned_field(XfrcApplied)));
        assert_eq!(
            f[0][ball as usize * 6 + 5].to_bits(),
            (-0.0f64).to_bits(),
            "-0 kept"
        );
        assert_eq!(f[1][0].to_bits(), (0.1f64 + 1e-17).to_bits());
        ep.step_ok(3);
    }
}

#[test]
fn write_step_takes_the_lock_once_and_equals_separate_calls() {
    let a = open_model("host.xml", "");
    let b = open_model("host.xml", "");
    for t in 0..60u32 {
        let c = [(f64::from(t) * 0.1).sin(), 0.3];
        let s0 = b.world_json()["world"]["native_checkpoint"].clone();
        let _ = s0;
        assert_eq!(a.set_ctrl(&c), Outcome::Ok);
        a.step_ok(1);
        let (o, r) = b.write_step(&[(Ctrl, -1, &c)], 1);
        assert_eq!(o, Outcome::Ok, "{:?}", last_error());
        assert_eq!(
            (r.tick_before, r.tick_after),
            (u64::from(t), u64::from(t) + 1)
        );
    }
    assert!(
        a.public().same_bits(&b.public()),
        "the same simulation, bit for bit"
    );
    assert_eq!(a.state_vector(), b.state_vector());
    // One admission per call: the sequence moves by one.
    let (_, r1) = b.write_step(&[(Ctrl, 0, &[0.0])], 2);
    let (_, r2) = b.write_step(&[(Ctrl, 0, &[0.0])], 2);
    assert_eq!(r2.sequence, r1.sequence + 1);
    // nstep 0 writes and publishes.
    let (o, r) = b.write_step(&[(Ctrl, -1, &[0.75, 0.0])], 0);
    assert_eq!((o, r.tick_before, r.tick_after), (Outcome::Ok, 64, 64));
    let (f, i) = b.frame(&[Ctrl]);
    assert_eq!(
        (f[0].clone(), i.cause),
        (vec![0.75, 0.0], mjb_frame_cause::MJB_FRAME_INPUT as i32)
    );
    // A latched stop refuses the call with nothing written.
    b.stop();
    let before = b.hash();
    let (o, r) = b.write_step(&[(Ctrl, -1, &[1.0, 1.0])], 1);
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(reason_of(&r), mjbridge::outcome::Reason::StopLatched);
    assert_eq!(b.hash(), before);
    assert_eq!(mjb_safety_reset(b.0), Outcome::Ok);
    // No inputs: exactly mjb_step.
    let (o, r) = b.write_step(&[], 3);
    assert_eq!((o, r.tick_after), (Outcome::Ok, 67));
}
