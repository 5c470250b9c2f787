//! Checkpoints (mujoco_integration_v1): the document, strict validation before any native
//! effect, restore with bitwise verification, exact continuation, the world document and its
//! state hash, world writes and model replacement.
//!
//! Built only against engines with the complete state API (`mjb_integration`: MuJoCo >= 2.3.6;
//! before 3.0 equality activation is the model's, not a state segment, and the tests that write
//! it run from 3.0 on, `mjb_eq_active`); on older engines the basic profile's coverage is
//! tests/conformance.rs.
#![cfg(mjb_integration)]

mod common;
#[path = "common/gate.rs"]
mod gate;
use common::*;
use mjbridge::outcome::{Outcome, Reason};
use serde_json::{json, Value};

const FIELDS: [&str; 13] = [
    "profile",
    "engine",
    "engine_version",
    "descriptor",
    "signature",
    "size",
    "values",
    "tick",
    "seed",
    "time",
    "qpos",
    "qvel",
    "ctrl",
];

fn parse(doc: &str) -> Value {
    serde_json::from_str(doc).unwrap()
}

/// Offset and length of a named component in this engine's integration vector.
fn segment(ep: &Ep, name: &str) -> (usize, usize) {
    with_endpoint(ep, |e| {
        let shape = e.shape();
        let s = shape
            .layout
            .as_ref()
            .unwrap()
            .segment(name)
            .unwrap()
            .clone();
        (s.offset, s.len)
    })
}

fn has_segment(ep: &Ep, name: &str) -> bool {
    with_endpoint(ep, |e| {
        e.shape()
            .layout
            .as_ref()
            .is_some_and(|l| l.segment(name).is_some())
    })
}

/// A model with more userdata so the segments are easy to see.
fn contact_ep(extra: &str) -> Ep {
    open_model("contact_act.xml", extra)
}

#[test]
fn checkpoint_has_exactly_the_contract_fields_and_public_fields_are_segments_of_values() {
    let ep = contact_ep("\"seed\":11");
    ep.set_ctrl(&[0.3, -0.4]);
    ep.step_ok(25);
    let c = parse(&ep.checkpoint());
    let keys: Vec<&str> = c.as_object().unwrap().keys().map(String::as_str).collect();
    let mut want = FIELDS.to_vec();
    want.sort();
    assert_eq!(keys, want);
    assert_eq!(c["profile"], "mujoco_integration_v1");
    assert_eq!(c["tick"], 25);
    assert_eq!(c["seed"], 11);
    let d = &c["descriptor"];
    assert_eq!(
        d.as_object().unwrap().keys().collect::<Vec<_>>().len(),
        11,
        "descriptor: nq nv na nu nbody neq nmocap nuserdata npluginstate timestep configuration"
    );
    assert_eq!(
        (
            d["nq"].as_u64(),
            d["nv"].as_u64(),
            d["na"].as_u64(),
            d["nu"].as_u64()
        ),
        (Some(23), Some(20), Some(1), Some(2))
    );
    assert_eq!(
        (
            d["neq"].as_u64(),
            d["nmocap"].as_u64(),
            d["nuserdata"].as_u64()
        ),
        (Some(2), Some(1), Some(3))
    );
    assert_eq!(d["timestep"], 0.002);
    assert_eq!(d["configuration"], 0);
    let values: Vec<f64> = c["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(values.len() as u64, c["size"].as_u64().unwrap());
    let p = ep.public();
    assert_eq!(c["time"].as_f64().unwrap().to_bits(), p.time.to_bits());
    for (name, live) in [("qpos", &p.qpos), ("qvel", &p.qvel), ("ctrl", &p.ctrl)] {
        let (off, len) = segment(&ep, name);
        let doc: Vec<f64> = c[name]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert!(same_bits(&doc, live), "{name} is the live field");
        assert!(
            same_bits(&values[off..off + len], live),
            "{name} is its segment of values"
        );
    }
    // The layout comes from the engine's masks: the equality activations of this model are
    // [tether active, couple inactive], and the activation is the actuator's filter state.
    if cfg!(mjb_eq_active) {
        let (eq, n) = segment(&ep, "eq_active");
        assert_eq!(&values[eq..eq + n], &[1.0, 0.0]);
    } else {
        assert!(!has_segment(&ep, "eq_active"), "activation is the model's");
    }
    let (act, n) = segment(&ep, "act");
    assert!(same_bits(&values[act..act + n], &p.act));
    assert_ne!(p.act[0], 0.0, "activation dynamics ran");
}

#[test]
fn numbers_round_trip_bit_for_bit_including_negative_zero_and_subnormals() {
    let ep = contact_ep("");
    let odd = [-0.0, 5e-324];
    assert_eq!(ep.set_ctrl(&odd), Outcome::Ok);
    let doc = ep.checkpoint();
    assert!(
        doc.contains("\"ctrl\":[-0,5e-324]"),
        "{}",
        &doc[doc.len() - 80..]
    );
    let c = parse(&doc);
    let ctrl: Vec<f64> = c["ctrl"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert!(
        same_bits(&ctrl, &odd),
        "an independent parser reads the same bits"
    );
    ep.step_ok(3);
    let (o, _) = ep.restore(&doc);
    assert_eq!(o, Outcome::Ok);
    assert!(same_bits(&ep.public().ctrl, &odd));
    assert_eq!(
        ep.checkpoint(),
        doc,
        "restored state prints to the same bytes"
    );
}

#[test]
fn world_read_and_snapshot_are_the_same_bytes_and_the_hash_is_jcs_sha256() {
    let ep = contact_ep("\"name\":\"hash\",\"fidelity\":{\"claim\":\"bitwise replay on this build\",\"scope\":\"this package\",\"evidence\":[\"ci run 1\"]}");
    ep.set_ctrl(&[-0.0, 0.1]);
    ep.step_ok(40);
    let w = ep.world();
    assert_eq!(ep.snapshot(), w);
    let v = parse(&w);
    assert_eq!(v["world"]["determinism"]["derived"], "none");
    assert_eq!(
        v["world"]["determinism"]["declared"]["claim"],
        "bitwise replay on this build"
    );
    assert_eq!(
        v["world"]["native_checkpoint"],
        parse(&ep.checkpoint()),
        "the world carries the checkpoint"
    );
    // A second, independent JCS implementation (Python, its own number formatter) agrees.
    let py = std::process::Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/tools/jcs_hash.py"
        ))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn();
    let Ok(mut py) = py else {
        assert!(
            std::env::var("MJB_REQUIRE_ALL_TOOLCHAINS").is_err(),
            "python3 missing"
        );
        eprintln!("!!!!!!!! python3 missing: independent JCS check SKIPPED !!!!!!!!");
        return;
    };
    use std::io::Write;
    py.stdin.take().unwrap().write_all(w.as_bytes()).unwrap();
    let out = py.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        v["state_hash"].as_str().unwrap()
    );
    // The hash sees the checkpoint: a change only inside native_checkpoint (warm-start) moves it.
    let before = ep.hash();
    let mut c = parse(&ep.checkpoint());
    let (ws, _) = segment(&ep, "warmstart");
    c["values"][ws] = json!(c["values"][ws].as_f64().unwrap() + 1.0);
    assert_eq!(ep.restore(&c.to_string()).0, Outcome::Ok);
    assert_eq!(
        ep.public().qpos,
        parse(&w)["world"]["qpos"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect::<Vec<_>>()
    );
    assert_ne!(ep.hash(), before);
}

/// Run `k` steps, checkpoint, `m` steps, restore, `m` steps: the replay is bit-identical.
fn continuation(xml: &str, k: u32, m: u32, prepare: impl Fn(&Ep)) {
    let ep = open_xml(xml, "\"seed\":5");
    prepare(&ep);
    ep.set_ctrl(&[0.35, -0.6]);
    ep.step_ok(k);
    let cp = ep.checkpoint();
    let at_checkpoint = ep.world();
    ep.step_ok(m);
    let first = ep.world();
    let first_pub = ep.public();
    let (o, r) = ep.restore(&cp);
    assert_eq!(o, Outcome::Ok, "{:?}", last_error());
    assert_eq!(
        (r.tick_before, r.tick_after),
        (u64::from(k + m), u64::from(k))
    );
    assert_eq!(
        ep.world(),
        at_checkpoint,
        "restore reproduces the world document"
    );
    ep.step_ok(m);
    let replay = ep.public();
    assert!(same_bits(&replay.qpos, &first_pub.qpos), "qpos");
    assert!(same_bits(&replay.qvel, &first_pub.qvel), "qvel");
    assert!(same_bits(&replay.act, &first_pub.act), "act");
    assert_eq!(ep.world(), first, "identical world documents");
}

fn with_integrator(name: &str) -> String {
    model_xml("contact_act.xml").replace("integrator=\"Euler\"", &format!("integrator=\"{name}\""))
}

/// Make every user-facing component non-trivial by restoring a crafted (valid) checkpoint:
/// userdata, mocap pose, applied forces, and the second equality switched on.
fn busy_user_state(ep: &Ep) {
    let mut c = parse(&ep.checkpoint());
    let set = |c: &mut Value, name: &str, vals: &[f64]| {
        let (off, len) = segment(ep, name);
        assert_eq!(len, vals.len(), "{name}");
        for (i, v) in vals.iter().enumerate() {
            c["values"][off + i] = json!(v);
        }
    };
    set(&mut c, "userdata", &[1.5, -2.0, 0.25]);
    set(&mut c, "mocap_pos", &[0.45, 0.05, 0.72]);
    set(
        &mut c,
        "mocap_quat",
        &[0.9950041652780258, 0.0, 0.09983341664682815, 0.0],
    );
    if cfg!(mjb_eq_active) {
        set(&mut c, "eq_active", &[1.0, 1.0]);
    }
    let (qfrc, n) = segment(ep, "qfrc_applied");
    c["values"][qfrc + n - 1] = json!(0.05);
    let (xfrc, _) = segment(ep, "xfrc_applied");
    c["values"][xfrc + 6 * 2 + 2] = json!(0.4); // upward force on body 2 (ball)
    let (o, _) = ep.restore(&c.to_string());
    assert_eq!(o, Outcome::Ok, "{:?}", last_error());
}

#[test]
fn exact_continuation_euler() {
    continuation(&with_integrator("Euler"), 300, 400, busy_user_state);
}

#[test]
fn exact_continuation_rk4() {
    continuation(&with_integrator("RK4"), 300, 400, busy_user_state);
}

#[test]
fn exact_continuation_implicitfast() {
    continuation(&with_integrator("implicitfast"), 300, 400, busy_user_state);
}

#[test]
fn exact_continuation_with_default_user_state() {
    continuation(&with_integrator("Euler"), 1, 700, |_| {});
}

/// The converse: a restore that drops the warm-start segment does not continue exactly, so
/// the continuation tests can see a difference when there is one.
#[test]
fn dropping_the_warm_start_segment_diverges() {
    for integrator in ["Euler", "RK4", "implicitfast"] {
        let ep = open_xml(&with_integrator(integrator), "");
        ep.set_ctrl(&[0.35, -0.6]);
        ep.step_ok(300);
        let mut c = parse(&ep.checkpoint());
        ep.step_ok(400);
        let first = ep.public();
        let (ws, n) = segment(&ep, "warmstart");
        assert!(n > 0);
        assert!(
            (ws..ws + n).any(|i| c["values"][i].as_f64().unwrap() != 0.0),
            "warm-start in use"
        );
        for i in ws..ws + n {
            c["values"][i] = json!(0.0);
        }
        assert_eq!(ep.restore(&c.to_string()).0, Outcome::Ok);
        ep.step_ok(400);
        let replay = ep.public();
        assert!(
            !same_bits(&replay.qpos, &first.qpos) || !same_bits(&replay.qvel, &first.qvel),
            "{integrator}: zeroed warm-start should change the continuation"
        );
    }
}

// ---- refusals --------------------------------------------------------------------------------

/// Everything a refusal must leave as it was.
fn observable(ep: &Ep) -> (String, String, mjbridge::ffi::mjb_safety_state) {
    (ep.hash(), ep.world(), ep.safety())
}

/// Restore `doc` and assert: refused with `reason` at `pointer`, and nothing changed.
fn assert_refused(ep: &Ep, doc: &[u8], reason: &str, pointer: Option<&str>) {
    let before = observable(ep);
    let mut r = mjbridge::ffi::mjb_report::default();
    let o = unsafe { mjbridge::ffi::mjb_restore(ep.0, doc.as_ptr().cast(), doc.len(), 0, &mut r) };
    let e = last_error();
    let shown = String::from_utf8_lossy(&doc[..doc.len().min(200)]).into_owned();
    if reason == "MJB_REASON_INVALID_UTF8" {
        assert_eq!(o, Outcome::InvalidArgument);
    } else {
        assert_eq!(o, Outcome::Rejected, "{shown}: {e}");
    }
    assert_eq!(e["reason"], reason, "{shown}: {e}");
    assert_eq!(
        r.reason,
        Reason::ALL
            .iter()
            .find(|x| x.name() == reason)
            .map(|x| *x as i32)
            .unwrap()
    );
    if let Some(p) = pointer {
        assert_eq!(e["pointer"], p, "{shown}: {e}");
    }
    assert_eq!(r.tick_before, r.tick_after);
    assert_eq!(
        observable(ep),
        before,
        "a refused document changed nothing: {shown}"
    );
}

/// Replace the token of values[i] in a compact document with raw text.
fn with_value_token(c: &Value, i: usize, token: &str) -> String {
    let mut c2 = c.clone();
    c2["values"][i] = json!("@@TOKEN@@");
    c2.to_string().replace("\"@@TOKEN@@\"", token)
}

fn edited(c: &Value, f: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut c2 = c.clone();
    f(&mut c2);
    c2.to_string().into_bytes()
}

#[test]
fn refused_documents_leave_state_tick_stop_history_and_fence_untouched() {
    let ep = contact_ep("\"seed\":77");
    ep.step_ok(20);
    let good = ep.checkpoint();
    let c = parse(&good);
    ep.step_ok(10);
    ep.stop(); // stop history must survive refusals too
    let history = ep.safety();
    assert_eq!(history.stop_count, 1);

    // Size, syntax, strictness.
    let mut big = good.clone().into_bytes();
    big.extend(std::iter::repeat_n(b' ', (1 << 20) + 1 - big.len()));
    assert_refused(&ep, &big, "MJB_REASON_TOO_LARGE", Some(""));
    assert_refused(&ep, b"{\"profile\":", "MJB_REASON_MALFORMED_JSON", None);
    assert_refused(&ep, b"[1,2]", "MJB_REASON_MALFORMED_JSON", None);
    assert_refused(
        &ep,
        b"{\"profile\":\"mujoco_integration_v1\",\xff}",
        "MJB_REASON_INVALID_UTF8",
        None,
    );
    let n = c["values"].as_array().unwrap().len();
    let too_many = edited(&c, |c| c["values"] = json!(vec![0.0; 32_769]));
    assert_refused(
        &ep,
        &too_many,
        "MJB_REASON_TOO_MANY_VALUES",
        Some("/values"),
    );
    assert_refused(
        &ep,
        &edited(&c, |c| c["descriptor"]["nx"] = json!(1)),
        "MJB_REASON_UNKNOWN_FIELD",
        Some("/descriptor/nx"),
    );
    for f in FIELDS.iter().filter(|f| **f != "profile") {
        let doc = edited(&c, |c| {
            c.as_object_mut().unwrap().remove(*f);
        });
        assert_refused(
            &ep,
            &doc,
            "MJB_REASON_MISSING_FIELD",
            Some(&format!("/{f}")),
        );
    }
    assert_refused(
        &ep,
        &edited(&c, |c| {
            c.as_object_mut().unwrap().remove("profile");
        }),
        "MJB_REASON_MISSING_FIELD",
        Some("/profile"),
    );
    assert_refused(
        &ep,
        &edited(&c, |c| {
            c["descriptor"].as_object_mut().unwrap().remove("nbody");
        }),
        "MJB_REASON_MISSING_FIELD",
        Some("/descriptor/nbody"),
    );
    let dup = good.replacen("\"tick\":20", "\"tick\":20,\"tick\":20", 1);
    assert_refused(
        &ep,
        dup.as_bytes(),
        "MJB_REASON_DUPLICATE_FIELD",
        Some("/tick"),
    );

    // Types.
    for (field, v, reason) in [
        ("profile", json!(1), "MJB_REASON_WRONG_TYPE"),
        ("engine", json!(4), "MJB_REASON_WRONG_TYPE"),
        ("descriptor", json!([]), "MJB_REASON_WRONG_TYPE"),
        ("values", json!({}), "MJB_REASON_WRONG_TYPE"),
        ("qpos", json!("0"), "MJB_REASON_WRONG_TYPE"),
        ("time", json!(true), "MJB_REASON_WRONG_TYPE"),
        ("time", json!(null), "MJB_REASON_WRONG_TYPE"),
        ("tick", json!("20"), "MJB_REASON_WRONG_TYPE"),
        ("tick", json!(20.0), "MJB_REASON_NOT_AN_INTEGER"),
        ("tick", json!(true), "MJB_REASON_NOT_AN_INTEGER"),
        ("size", json!(141.5), "MJB_REASON_NOT_AN_INTEGER"),
        ("signature", json!(1e3), "MJB_REASON_NOT_AN_INTEGER"),
        ("engine_version", json!(4e6), "MJB_REASON_NOT_AN_INTEGER"),
        ("tick", json!(-1), "MJB_REASON_OUT_OF_RANGE"),
        (
            "engine_version",
            json!(4294967296u64),
            "MJB_REASON_OUT_OF_RANGE",
        ),
    ] {
        let doc = edited(&c, |c| c[field] = v.clone());
        assert_refused(&ep, &doc, reason, Some(&format!("/{field}")));
    }
    let overflow = good.replacen("\"seed\":77", "\"seed\":18446744073709551616", 1);
    assert_refused(
        &ep,
        overflow.as_bytes(),
        "MJB_REASON_OUT_OF_RANGE",
        Some("/seed"),
    );
    let overflow = good.replacen("\"nq\":23", "\"nq\":9223372036854775808", 1);
    assert_refused(
        &ep,
        overflow.as_bytes(),
        "MJB_REASON_OUT_OF_RANGE",
        Some("/descriptor/nq"),
    );
    let exp_int = good.replacen("\"nq\":23", "\"nq\":2.3e1", 1);
    assert_refused(
        &ep,
        exp_int.as_bytes(),
        "MJB_REASON_NOT_AN_INTEGER",
        Some("/descriptor/nq"),
    );
    assert_refused(
        &ep,
        with_value_token(&c, 3, "true").as_bytes(),
        "MJB_REASON_WRONG_TYPE",
        Some("/values/3"),
    );
    assert_refused(
        &ep,
        with_value_token(&c, 3, "1e400").as_bytes(),
        "MJB_REASON_NOT_FINITE",
        Some("/values/3"),
    );
    assert_refused(
        &ep,
        with_value_token(&c, 3, "-1e400").as_bytes(),
        "MJB_REASON_NOT_FINITE",
        Some("/values/3"),
    );
    assert_refused(
        &ep,
        with_value_token(&c, 3, "NaN").as_bytes(),
        "MJB_REASON_MALFORMED_JSON",
        Some("/values/3"),
    );
    assert_refused(
        &ep,
        with_value_token(&c, 3, "Infinity").as_bytes(),
        "MJB_REASON_MALFORMED_JSON",
        Some("/values/3"),
    );

    // Profile, engine, descriptor (each field), configuration, signature, size.
    let ev = c["engine_version"].as_i64().unwrap();
    assert_refused(
        &ep,
        &edited(&c, |c| c["engine_version"] = json!(ev + 1)),
        "MJB_REASON_ENGINE",
        Some("/engine_version"),
    );
    for f in [
        "nq",
        "nv",
        "na",
        "nu",
        "nbody",
        "neq",
        "nmocap",
        "nuserdata",
        "npluginstate",
    ] {
        let v = c["descriptor"][f].as_u64().unwrap();
        let doc = edited(&c, |c| c["descriptor"][f] = json!(v + 1));
        assert_refused(
            &ep,
            &doc,
            "MJB_REASON_DESCRIPTOR",
            Some(&format!("/descriptor/{f}")),
        );
    }
    let ts = c["descriptor"]["timestep"].as_f64().unwrap();
    let next = f64::from_bits(ts.to_bits() + 1);
    assert_refused(
        &ep,
        &edited(&c, |c| c["descriptor"]["timestep"] = json!(next)),
        "MJB_REASON_DESCRIPTOR",
        Some("/descriptor/timestep"),
    );
    let sig = c["signature"].as_u64().unwrap();
    assert_refused(
        &ep,
        &edited(&c, |c| c["signature"] = json!(sig >> 1)),
        "MJB_REASON_SIGNATURE",
        Some("/signature"),
    );
    assert_refused(
        &ep,
        &edited(&c, |c| c["size"] = json!(n + 1)),
        "MJB_REASON_SIZE",
        Some("/size"),
    );
    let short = edited(&c, |c| {
        c["values"].as_array_mut().unwrap().pop();
    });
    assert_refused(&ep, &short, "MJB_REASON_SIZE", Some("/values"));

    // The equality-activation domain, with the pointer of the first bad element (where
    // mjData holds equality activation: from MuJoCo 3.0).
    if cfg!(mjb_eq_active) {
        let (eq, len) = segment(&ep, "eq_active");
        assert_eq!(len, 2);
        for token in [
            "0.5",
            "2",
            "-1",
            "-0",
            "-0.0",
            "1.0000000000000002",
            "true",
            "false",
            "null",
            "\"1\"",
        ] {
            let doc = with_value_token(&c, eq + 1, token);
            assert_refused(
                &ep,
                doc.as_bytes(),
                "MJB_REASON_EQ_ACTIVE_DOMAIN",
                Some(&format!("/values/{}", eq + 1)),
            );
        }
        assert_refused(
            &ep,
            with_value_token(&c, eq, "1e400").as_bytes(),
            "MJB_REASON_NOT_FINITE",
            Some(&format!("/values/{eq}")),
        );
        let two_bad = with_value_token(&parse(&with_value_token(&c, eq + 1, "0.5")), eq, "2");
        assert_refused(
            &ep,
            two_bad.as_bytes(),
            "MJB_REASON_EQ_ACTIVE_DOMAIN",
            Some(&format!("/values/{eq}")),
        );
    }
    // Exactly 0 or 1 in any spelling of those numbers is accepted (shown below by restores).

    // Public fields one ulp off their segment of values.
    let nudge = |x: f64| f64::from_bits(x.to_bits() ^ 1);
    let t = c["time"].as_f64().unwrap();
    assert_refused(
        &ep,
        &edited(&c, |c| c["time"] = json!(nudge(t))),
        "MJB_REASON_PUBLIC_FIELD_MISMATCH",
        Some("/time"),
    );
    for (name, i) in [("qpos", 3usize), ("qvel", 1), ("ctrl", 0)] {
        let x = c[name][i].as_f64().unwrap();
        let doc = edited(&c, |c| c[name][i] = json!(nudge(x)));
        assert_refused(
            &ep,
            &doc,
            "MJB_REASON_PUBLIC_FIELD_MISMATCH",
            Some(&format!("/{name}/{i}")),
        );
    }
    let doc = edited(&c, |c| {
        c["qvel"].as_array_mut().unwrap().pop();
    });
    assert_refused(&ep, &doc, "MJB_REASON_PUBLIC_FIELD_MISMATCH", Some("/qvel"));

    // The package gate's corrupted documents (truncated, unknown member, other profile, engine,
    // descriptor, configuration, seed, a non-finite value, qpos off its segment, an equality
    // activation of 0.5): one list, shared with `mjbridge package gate`.
    let cases = with_endpoint(&ep, |e| mjbridge::conformance::corruptions(e, &good));
    // (No equality-activation case where the model holds activation: before MuJoCo 3.0.)
    let expected = if cfg!(mjb_eq_active) { 10 } else { 9 };
    assert!(cases.len() >= expected, "{} cases", cases.len());
    for case in &cases {
        assert_refused(
            &ep,
            case.doc.as_bytes(),
            case.reason.name(),
            case.pointer.as_deref(),
        );
    }

    // None of that touched the stop history; the good document still restores.
    assert_eq!(ep.safety(), history);
    let (o, r) = ep.restore(&good);
    assert_eq!(o, Outcome::Ok);
    assert_eq!((r.tick_before, r.tick_after), (30, 20));
    if cfg!(mjb_eq_active) {
        let (eq, _) = segment(&ep, "eq_active");
        let eq_ok = with_value_token(&c, eq + 1, "1e0");
        assert_eq!(ep.restore(&eq_ok).0, Outcome::Ok, "1e0 is exactly 1");
    }
    assert_eq!(
        ep.safety(),
        history,
        "restore keeps stop history and the latch"
    );
}

#[test]
fn validation_order_reports_the_earliest_step() {
    let ep = contact_ep("");
    let c = parse(&ep.checkpoint());
    // Wrong engine and wrong seed: the engine (step 2) is reported before the seed (step 5).
    let doc = edited(&c, |c| {
        c["engine"] = json!("9.9.9");
        c["seed"] = json!(1);
    });
    assert_refused(&ep, &doc, "MJB_REASON_ENGINE", Some("/engine"));
    // Bad activation and a public-field mismatch: the domain (step 3) comes first.
    if cfg!(mjb_eq_active) {
        let (eq, _) = segment(&ep, "eq_active");
        let doc = with_value_token(&edited_value(&c, |c| c["time"] = json!(1.0)), eq, "0.5");
        assert_refused(&ep, doc.as_bytes(), "MJB_REASON_EQ_ACTIVE_DOMAIN", None);
    }
    // A value that is not finite and a public-field mismatch: finiteness (step 3) first.
    let (qvel, _) = segment(&ep, "qvel");
    let doc = with_value_token(&edited_value(&c, |c| c["time"] = json!(1.0)), qvel, "1e400");
    assert_refused(&ep, doc.as_bytes(), "MJB_REASON_NOT_FINITE", None);
}

fn edited_value(c: &Value, f: impl FnOnce(&mut Value)) -> Value {
    let mut c2 = c.clone();
    f(&mut c2);
    c2
}

#[test]
fn world_write_takes_ctrl_and_refuses_read_only_fields() {
    let ep = contact_ep("");
    ep.step_ok(5);
    assert_eq!(
        ep.world_write("{\"world\":{\"ctrl\":[0.25,-0.5]}}"),
        Outcome::Ok
    );
    assert_eq!(ep.public().ctrl, vec![0.25, -0.5]);
    let before = observable(&ep);
    for field in [
        "native_checkpoint",
        "tick",
        "time",
        "qpos",
        "qvel",
        "act",
        "name",
        "seed",
        "profile",
        "determinism",
    ] {
        let doc = format!("{{\"world\":{{\"ctrl\":[0,0],\"{field}\":0}}}}");
        assert_eq!(ep.world_write(&doc), Outcome::Rejected, "{field}");
        assert_eq!(last_reason(), "MJB_REASON_READ_ONLY_FIELD");
        assert_eq!(last_error()["pointer"], format!("/world/{field}"));
    }
    for (doc, reason, ptr) in [
        (
            "{\"world\":{\"ctrl\":[1]}}",
            "MJB_REASON_DIMENSION",
            "/world/ctrl",
        ),
        (
            "{\"world\":{\"ctrl\":[1,true]}}",
            "MJB_REASON_WRONG_TYPE",
            "/world/ctrl/1",
        ),
        (
            "{\"world\":{\"ctrl\":[1,1e999]}}",
            "MJB_REASON_NOT_FINITE",
            "/world/ctrl/1",
        ),
        (
            "{\"world\":{\"gravity\":1}}",
            "MJB_REASON_UNKNOWN_FIELD",
            "/world/gravity",
        ),
        (
            "{\"world\":{},\"state_hash\":\"x\"}",
            "MJB_REASON_READ_ONLY_FIELD",
            "/state_hash",
        ),
        ("{\"ctrl\":[0,0]}", "MJB_REASON_UNKNOWN_FIELD", "/ctrl"),
    ] {
        assert_eq!(ep.world_write(doc), Outcome::Rejected, "{doc}");
        assert_eq!(last_reason(), reason, "{doc}");
        assert_eq!(last_error()["pointer"], ptr, "{doc}");
    }
    assert_eq!(
        observable(&ep),
        before,
        "refused world writes changed nothing"
    );
}

#[test]
fn replacing_the_model_bumps_configuration_and_refuses_older_checkpoints() {
    let ep = contact_ep("");
    ep.step_ok(10);
    let old = ep.checkpoint();
    let cfg = format!(
        "{{\"model\":{{\"xml_path\":{}}}}}",
        js(&model_path("contact_act.xml"))
    );
    let mut r = mjbridge::ffi::mjb_report::default();
    let o = unsafe {
        mjbridge::ffi::mjb_endpoint_replace_model(
            ep.0,
            cfg.as_ptr().cast(),
            cfg.len(),
            1000,
            &mut r,
        )
    };
    assert_eq!(o, Outcome::Ok);
    assert_eq!((r.tick_before, r.tick_after), (10, 10), "tick is kept");
    let now = parse(&ep.checkpoint());
    assert_eq!(now["descriptor"]["configuration"], 1);
    // Same dimensions, same engine: only the configuration tells them apart.
    assert_refused(
        &ep,
        old.as_bytes(),
        "MJB_REASON_CONFIGURATION",
        Some("/descriptor/configuration"),
    );
    assert_eq!(ep.restore(&now.to_string()).0, Outcome::Ok);
    // A model that does not compile leaves the endpoint as it was.
    let before = observable(&ep);
    let bad = format!(
        "{{\"model\":{{\"xml_path\":{}}}}}",
        js(&model_path("broken.xml"))
    );
    let o = unsafe {
        mjbridge::ffi::mjb_endpoint_replace_model(
            ep.0,
            bad.as_ptr().cast(),
            bad.len(),
            1000,
            &mut r,
        )
    };
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(last_reason(), "MJB_REASON_MODEL_LOAD");
    assert_eq!(observable(&ep), before);
}

#[test]
fn a_model_with_more_than_32768_state_values_is_refused_not_truncated() {
    let mut xml = String::from("<mujoco><option timestep=\"0.01\"/><worldbody>");
    for i in 0..1200 {
        xml.push_str(&format!(
            "<body pos=\"{} {} 1\"><freejoint/><geom type=\"sphere\" size=\"0.05\" contype=\"0\" conaffinity=\"0\"/></body>",
            i % 40,
            i / 40
        ));
    }
    xml.push_str("</worldbody></mujoco>");
    let ep = open_xml(&xml, "");
    ep.step_ok(1);
    for f in [
        mjbridge::ffi::mjb_checkpoint_read,
        mjbridge::ffi::mjb_world_read,
    ] {
        let mut s = std::ptr::null_mut();
        let o = unsafe { f(ep.0, 1000, &mut s) };
        assert_eq!(o, Outcome::Rejected);
        assert!(s.is_null());
        assert_eq!(last_reason(), "MJB_REASON_TOO_MANY_VALUES");
        assert!(last_error()["message"].as_str().unwrap().contains("32768"));
    }
}

#[test]
fn basic_profile_on_an_engine_with_the_state_api_is_explicit_and_weaker() {
    let ep = contact_ep("\"profile\":\"mujoco_basic_v1\",\"seed\":3");
    ep.set_ctrl(&[0.2, 0.1]);
    ep.step_ok(50);
    let cp = ep.checkpoint();
    let c = parse(&cp);
    let mut keys: Vec<&str> = c.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "act",
            "ctrl",
            "descriptor",
            "engine",
            "engine_version",
            "profile",
            "qpos",
            "qvel",
            "seed",
            "tick",
            "time"
        ]
    );
    let w = ep.world_json();
    assert_eq!(
        w["world"]["checkpoint_scope"],
        "public_fields_only_no_exact_continuation"
    );
    let at = ep.public();
    ep.step_ok(20);
    assert_eq!(ep.restore(&cp).0, Outcome::Ok);
    assert!(
        ep.public().same_bits(&at),
        "basic restore writes time/qpos/qvel/ctrl/act exactly"
    );
    assert_refused(
        &ep,
        &edited(&c, |c| c["seed"] = json!(4)),
        "MJB_REASON_SEED",
        Some("/seed"),
    );
    assert_refused(
        &ep,
        &edited(&c, |c| c["act"] = json!([])),
        "MJB_REASON_DIMENSION",
        Some("/act"),
    );
    assert_refused(
        &ep,
        &edited(&c, |c| c["profile"] = json!("mujoco_integration_v1")),
        "MJB_REASON_PROFILE",
        Some("/profile"),
    );
    let t = c["time"].as_f64().unwrap();
    let doc = edited(&c, |c| c["time"] = json!(t + 1e-12));
    assert_eq!(
        ep.restore(std::str::from_utf8(&doc).unwrap()).0,
        Outcome::Ok
    );
    assert_eq!(
        ep.public().time.to_bits(),
        (t + 1e-12).to_bits(),
        "native time kept exactly"
    );
}

#[test]
fn restore_never_runs_the_control_callback_so_never_mj_forward() {
    let ep = contact_ep("");
    let g = gate::install(model_of(&ep));
    g.open();
    ep.step_ok(4);
    let per_step = g.entered();
    assert!(
        per_step >= 4,
        "the control callback runs inside every mj_step"
    );
    let cp = ep.checkpoint();
    ep.step_ok(4);
    let before = g.entered();
    assert_eq!(ep.restore(&cp).0, Outcome::Ok);
    let _ = ep.world();
    assert_eq!(g.entered(), before, "restore and reads ran no forward pass");
}

/// What the endpoint holds, bit for bit: its state vector (integration) or its public fields.
fn held(ep: &Ep) -> Vec<u64> {
    let values = ep.state_vector().unwrap_or_else(|| {
        let p = ep.public();
        [vec![p.time], p.qpos, p.qvel, p.ctrl, p.act].concat()
    });
    values.iter().map(|v| v.to_bits()).collect()
}

/// Read a document with `read` (an export serving a string): Ok(text) or the refusal.
fn served(
    read: impl FnOnce(*mut *mut mjbridge::ffi::mjb_string) -> Outcome,
) -> Result<String, (Outcome, Value)> {
    let mut s = std::ptr::null_mut();
    match read(&mut s) {
        Outcome::Ok => Ok(take_string(s)),
        o => {
            assert!(s.is_null(), "a refusal serves nothing");
            Err((o, last_error()))
        }
    }
}

#[test]
fn a_document_too_large_to_read_back_is_refused_instead_of_served() {
    use mjbridge::endpoint::WAIT_FOREVER;
    use mjbridge::ffi::{
        mjb_checkpoint_read, mjb_restore_point_capture, mjb_restore_point_free,
        mjb_restore_point_to_json, mjb_world_read,
    };
    // One hinge and 32,000 motors on it: a state within the 32,768 values a checkpoint holds,
    // whose controls an integration checkpoint prints twice (in `values` and as `ctrl`), and
    // a world document twice more.
    let n = 32_000;
    let mut xml = String::from(
        "<mujoco><worldbody><body><joint name=\"j\"/><geom size=\"0.1\"/></body></worldbody><actuator>",
    );
    xml.push_str(&"<motor joint=\"j\"/>".repeat(n));
    xml.push_str("</actuator></mujoco>");
    let ep = open_xml(&xml, "");
    // Controls whose shortest round-trip form is 24 characters.
    let ctrl: Vec<f64> = (0..n)
        .map(|i| -1.234_567_890_123_456_7e-100 * (1.0 + i as f64 * 1e-9))
        .collect();
    assert_eq!(ep.set_ctrl(&ctrl), Outcome::Ok, "{:?}", last_error());
    let before = held(&ep);
    let too_large = |r: Result<String, (Outcome, Value)>, what: &str| {
        let (o, e) = r.expect_err(what);
        assert_eq!(o, Outcome::Rejected, "{what}: {e}");
        assert_eq!(e["reason"], "MJB_REASON_TOO_LARGE", "{what}: {e}");
        assert_eq!(e["pointer"], "", "{what}: {e}");
        let m = e["message"].as_str().unwrap();
        assert!(
            m.contains("1048576") && m.contains("nothing was served"),
            "{m}"
        );
    };
    let checkpoint = served(|s| unsafe { mjb_checkpoint_read(ep.0, WAIT_FOREVER, s) }.into());
    let world = served(|s| unsafe { mjb_world_read(ep.0, WAIT_FOREVER, s) }.into());
    too_large(world, "the world document holds the controls four times");
    let mut rp = std::ptr::null_mut();
    assert_eq!(
        unsafe { mjb_restore_point_capture(ep.0, WAIT_FOREVER, &mut rp) },
        Outcome::Ok
    );
    let rp_json = served(|s| unsafe { mjb_restore_point_to_json(rp, s) }.into());
    assert_eq!(unsafe { mjb_restore_point_free(rp) }, Outcome::Ok);
    if auto_profile() == "mujoco_integration_v1" {
        too_large(checkpoint, "an integration checkpoint holds them twice");
        too_large(rp_json, "a restore point's JSON is its checkpoint");
    } else {
        // The basic checkpoint holds them once: served, and read back.
        let doc = checkpoint.expect("a basic checkpoint within the limit");
        assert!(doc.len() <= mjbridge::doc::MAX_DOCUMENT_BYTES);
        assert_eq!(rp_json.as_deref().ok(), Some(doc.as_str()));
        let (o, r) = ep.restore(&doc);
        assert_eq!((o, r.outcome), (Outcome::Ok, 0), "{:?}", last_error());
    }
    assert_eq!(held(&ep), before, "no refused read changed the state");
}
