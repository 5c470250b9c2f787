//! The rest of the host surface: model facts and names without the lock, the last error of
//! the most recent call, restoring a world document, and the log callback.

mod common;
use common::*;
use mjbridge::ffi::*;
use mjbridge::outcome::Outcome;
use serde_json::{json, Value};
use std::ffi::{c_void, CStr, CString};
use std::os::raw::c_char;
use std::sync::Mutex;

use mjb_object_kind::*;

fn name_to_id(ep: &Ep, kind: mjb_object_kind, name: &str) -> Result<i32, String> {
    let c = CString::new(name).unwrap();
    let mut id = 7;
    let o = unsafe { mjb_name_to_id(ep.0, kind as i32, c.as_ptr(), &mut id) };
    match o {
        mjb_outcome::MJB_OK => Ok(id),
        _ => {
            assert_eq!(id, -1, "id is -1 on refusal");
            Err(last_reason())
        }
    }
}

fn id_to_name(ep: &Ep, kind: mjb_object_kind, id: i32) -> Result<String, String> {
    let mut needed = 0usize;
    let o = unsafe { mjb_id_to_name(ep.0, kind as i32, id, std::ptr::null_mut(), 0, &mut needed) };
    if o != Outcome::Ok && last_reason() != "MJB_REASON_TOO_LARGE" {
        return Err(last_reason());
    }
    let mut buf = vec![1 as c_char; needed];
    let o = unsafe {
        mjb_id_to_name(
            ep.0,
            kind as i32,
            id,
            buf.as_mut_ptr(),
            buf.len(),
            &mut needed,
        )
    };
    assert_eq!(o, Outcome::Ok);
    Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_str()
        .unwrap()
        .to_owned())
}

#[test]
fn model_facts_and_names_without_the_lock() {
    let ep = open_model("host.xml", "");
    let d = ep.dims();
    assert_eq!(
        [
            d.nq,
            d.nv,
            d.na,
            d.nu,
            d.nbody,
            d.njnt,
            d.ngeom,
            d.nsite,
            d.nsensor,
            d.nsensordata,
            d.nmocap,
            d.neq,
            d.nuserdata
        ],
        [13, 11, 0, 2, 6, 4, 6, 3, 4, 8, 1, 1, 0]
    );
    assert_eq!((d.timestep, d.configuration), (0.002, 0));
    let named: &[(mjb_object_kind, &[&str])] = &[
        (
            MJB_OBJ_BODY,
            &["world", "target", "cart", "pole", "ball", ""],
        ),
        (MJB_OBJ_JOINT, &["slide", "hinge", "ball_free", ""]),
        (
            MJB_OBJ_GEOM,
            &["floor", "", "cart_geom", "pole_geom", "ball_geom", ""],
        ),
        (MJB_OBJ_SITE, &["target_site", "tip", "ball_site"]),
        (MJB_OBJ_ACTUATOR, &["push", "twist"]),
        (
            MJB_OBJ_SENSOR,
            &["slide_pos", "hinge_vel", "tip_pos", "ball_acc"],
        ),
        (MJB_OBJ_EQUALITY, &["tether"]),
        (MJB_OBJ_MOCAP, &["target"]),
    ];
    for (kind, names) in named {
        for (i, n) in names.iter().enumerate() {
            assert_eq!(
                id_to_name(&ep, *kind, i as i32).as_deref(),
                Ok(*n),
                "{kind:?} {i}"
            );
            if !n.is_empty() {
                assert_eq!(name_to_id(&ep, *kind, n), Ok(i as i32), "{kind:?} {n}");
            }
        }
        assert_eq!(
            id_to_name(&ep, *kind, names.len() as i32),
            Err("MJB_REASON_OUT_OF_RANGE".into())
        );
        assert_eq!(
            id_to_name(&ep, *kind, -1),
            Err("MJB_REASON_OUT_OF_RANGE".into())
        );
    }
    // mj_name2id semantics: exact, per kind; unknown names are refused with a reason.
    assert_eq!(
        name_to_id(&ep, MJB_OBJ_BODY, "Ball"),
        Err("MJB_REASON_UNKNOWN_NAME".into())
    );
    assert_eq!(
        name_to_id(&ep, MJB_OBJ_JOINT, "ball"),
        Err("MJB_REASON_UNKNOWN_NAME".into())
    );
    assert_eq!(
        name_to_id(&ep, MJB_OBJ_MOCAP, "ball"),
        Err("MJB_REASON_UNKNOWN_NAME".into())
    );
    assert!(last_error()["message"]
        .as_str()
        .unwrap()
        .contains("mocap body"));
    let mut id = 0;
    let o = unsafe { mjb_name_to_id(ep.0, 42, c"x".as_ptr(), &mut id) };
    assert_eq!((o, id), (mjb_outcome::MJB_INVALID_ARGUMENT, -1));
    let o = unsafe { mjb_name_to_id(ep.0, 0, std::ptr::null(), &mut id) };
    assert_eq!(o, Outcome::InvalidArgument);
    // A too-small buffer: refused, size reported, nothing copied.
    let mut buf = [b'z' as c_char; 3];
    let mut needed = 0;
    let o = unsafe {
        mjb_id_to_name(
            ep.0,
            MJB_OBJ_BODY as i32,
            4,
            buf.as_mut_ptr(),
            3,
            &mut needed,
        )
    };
    assert_eq!(
        (o, needed, buf[0]),
        (mjb_outcome::MJB_REJECTED, 5, b'z' as c_char)
    );

    // Sensor and joint slices.
    let slices: Vec<(usize, usize)> = (0..4)
        .map(|i| {
            let (mut a, mut n) = (9, 9);
            assert_eq!(
                unsafe { mjb_sensor_slice(ep.0, i, &mut a, &mut n) },
                Outcome::Ok
            );
            (a, n)
        })
        .collect();
    assert_eq!(slices, [(0, 1), (1, 1), (2, 3), (5, 3)]);
    let (mut a, mut n) = (9, 9);
    assert_eq!(
        unsafe { mjb_sensor_slice(ep.0, 4, &mut a, &mut n) },
        Outcome::Rejected
    );
    assert_eq!((a, n), (0, 0));
    let joints: Vec<[u64; 4]> = (0..4)
        .map(|j| {
            let mut s = mjb_joint_adr::default();
            assert_eq!(unsafe { mjb_joint_slice(ep.0, j, &mut s) }, Outcome::Ok);
            [s.qpos_adr, s.qpos_len, s.dof_adr, s.dof_len]
        })
        .collect();
    assert_eq!(
        joints,
        [[0, 1, 0, 1], [1, 1, 1, 1], [2, 7, 2, 6], [9, 4, 8, 3]]
    );
    // The sensor slice really addresses sensordata: tip_pos is the tip site's position.
    ep.step_ok(1);
    ep.step_ok(1);
    let (f, _) = ep.frame(&[Field::Sensordata]);
    let tip_z = f[0][2 + 2];
    assert!(tip_z > 0.5 && tip_z < 0.7, "tip height {tip_z}");

    // Replacing the model refreshes facts and names.
    ep.replace_model_ok("pendulum.xml");
    let d = ep.dims();
    assert_eq!((d.nq, d.nbody, d.nsensor, d.configuration), (1, 2, 0, 1));
    assert_eq!(name_to_id(&ep, MJB_OBJ_BODY, "pole"), Ok(1));
    assert_eq!(
        name_to_id(&ep, MJB_OBJ_BODY, "ball"),
        Err("MJB_REASON_UNKNOWN_NAME".into())
    );
}

#[test]
fn the_last_error_describes_the_most_recent_call_only() {
    let ep = open_model("pendulum.xml", "");
    assert_eq!(ep.set_ctrl(&[f64::NAN]), Outcome::Rejected);
    assert_eq!(last_reason(), "MJB_REASON_NOT_FINITE");
    ep.step_ok(1);
    assert_eq!(last_error(), json!({}), "a success clears it");
    assert_eq!(
        ep.world_write("{\"world\":{\"qpos\":[0]}}"),
        Outcome::Rejected
    );
    assert_eq!(last_reason(), "MJB_REASON_READ_ONLY_FIELD");
    let _ = ep.dims();
    assert_eq!(
        last_error(),
        json!({}),
        "a lock-free read that succeeds clears it too"
    );
    assert_eq!(mjb_confirm_paused(ep.0), Outcome::Rejected);
    assert_eq!(mjb_string_free(std::ptr::null_mut()), Outcome::Ok);
    assert_eq!(last_error(), json!({}));
    // A success with something to say (halted at a stop, engine reset) still says it.
    let gate_free = ep.stop();
    assert!(gate_free.stopped);
    let (o, _) = ep.step(1);
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(last_reason(), "MJB_REASON_STOP_LATCHED");
    // Each thread has its own.
    let raw = ep.0 as usize;
    std::thread::spawn(move || {
        assert_eq!(last_error(), json!({}));
        let mut d = mjb_model_dims::default();
        assert_eq!(
            unsafe { mjb_dims(raw as *mut mjb_endpoint, &mut d) },
            Outcome::Ok
        );
    })
    .join()
    .unwrap();
    assert_eq!(last_reason(), "MJB_REASON_STOP_LATCHED");
}

/// Recompute a world document's state hash after editing it (the bridge's own JCS printer;
/// tests/tools/jcs_hash.py cross-checks it against an independent implementation).
fn rehash(doc: &mut Value) {
    let text = serde_json::to_string(&doc).unwrap();
    let (_, recomputed) = mjbridge::world::recompute_hash(text.as_bytes()).unwrap();
    doc["state_hash"] = json!(recomputed.unwrap());
}

#[test]
fn a_snapshot_is_a_restore_point_and_a_tampered_one_is_refused() {
    for profile in profiles() {
        let ep = open_model("host.xml", &format!("\"profile\":{}", js(profile)));
        ep.set_ctrl(&[0.5, -0.1]);
        ep.step_ok(10);
        let snap = ep.world();
        let at = ep.public();
        let hash_at = ep.hash();
        ep.step_ok(10);
        let (o, r) = ep.restore(&snap);
        assert_eq!(o, Outcome::Ok, "{profile}: {:?}", last_error());
        assert_eq!(r.tick_after, 10);
        assert!(ep.public().same_bits(&at));
        if profile == "mujoco_integration_v1" {
            assert_eq!(ep.hash(), hash_at, "the world is back, whole");
        }
        ep.step_ok(5);
        let before = ep.hash();

        let doc: Value = serde_json::from_str(&snap).unwrap();
        let mut edited = doc.clone();
        edited["world"]["qpos"][0] = json!(0.125);
        let mut cases = vec![(edited, "MJB_REASON_STATE_HASH", "/state_hash".to_owned())];
        let mut nq = doc.clone();
        nq["world"]["native_checkpoint"]["descriptor"]["nq"] = json!(12);
        rehash(&mut nq);
        cases.push((
            nq,
            "MJB_REASON_DESCRIPTOR",
            "/world/native_checkpoint/descriptor/nq".into(),
        ));
        let mut seed = doc.clone();
        seed["world"]["native_checkpoint"]["seed"] = json!(1);
        rehash(&mut seed);
        cases.push((
            seed,
            "MJB_REASON_SEED",
            "/world/native_checkpoint/seed".into(),
        ));
        let mut none = doc.clone();
        none["world"]
            .as_object_mut()
            .unwrap()
            .remove("native_checkpoint");
        rehash(&mut none);
        cases.push((
            none,
            "MJB_REASON_MISSING_FIELD",
            "/world/native_checkpoint".into(),
        ));
        let mut extra = doc.clone();
        extra["note"] = json!("x");
        cases.push((extra, "MJB_REASON_UNKNOWN_FIELD", "/note".into()));
        let mut nohash = doc.clone();
        nohash.as_object_mut().unwrap().remove("state_hash");
        cases.push((nohash, "MJB_REASON_MISSING_FIELD", "/state_hash".into()));
        if profile == "mujoco_integration_v1" {
            let mut v = doc.clone();
            v["world"]["native_checkpoint"]["values"][3] = json!(true);
            rehash(&mut v);
            cases.push((
                v,
                "MJB_REASON_WRONG_TYPE",
                "/world/native_checkpoint/values/3".into(),
            ));
        }
        for (d, reason, ptr) in cases {
            let (o, r) = ep.restore(&d.to_string());
            assert_eq!(o, Outcome::Rejected, "{profile} {reason}");
            assert_eq!(last_reason(), reason, "{profile}");
            assert_eq!(last_error()["pointer"], ptr.as_str(), "{profile}");
            assert_eq!(r.sequence, 0, "refused before admission");
            assert_eq!(
                ep.hash(),
                before,
                "{profile}: a refused document changed nothing"
            );
        }
        // A rehashed but otherwise honest edit of the public fields restores the checkpoint
        // (only native_checkpoint is restored; the hash proves the document is consistent).
        let mut tick_only = doc.clone();
        tick_only["world"]["seed"] = json!(0);
        rehash(&mut tick_only);
        assert_eq!(ep.restore(&tick_only.to_string()).0, Outcome::Ok);
    }
}

// ---- log callback -------------------------------------------------------------------------

type Seen = Mutex<Vec<(std::thread::ThreadId, i32, String)>>;

unsafe extern "C" fn record(user: *mut c_void, level: i32, message: *const c_char) {
    let seen = &*(user as *const Seen);
    let text = CStr::from_ptr(message).to_string_lossy().into_owned();
    seen.lock()
        .unwrap()
        .push((std::thread::current().id(), level, text));
}

/// A callback that also calls the bridge, to prove it runs outside the native lock.
unsafe extern "C" fn record_and_call(user: *mut c_void, level: i32, message: *const c_char) {
    record(user, level, message);
    let seen = &*(user as *const Seen);
    let n = seen.lock().unwrap().len();
    let mut s = std::ptr::null_mut();
    assert_eq!(mjb_build_info(&mut s), Outcome::Ok, "bridge callable ({n})");
    mjb_string_free(s);
}

fn mine(seen: &Seen) -> Vec<(i32, String)> {
    let me = std::thread::current().id();
    seen.lock()
        .unwrap()
        .iter()
        .filter(|(t, _, _)| *t == me)
        .map(|(_, l, m)| (*l, m.clone()))
        .collect()
}

/// A checkpoint whose qvel diverges at the next step (MuJoCo warns and resets).
fn diverging(ep: &Ep) -> String {
    let mut c: Value = serde_json::from_str(&ep.checkpoint()).unwrap();
    c["qvel"][0] = json!(1e308);
    let off = with_endpoint(ep, |e| {
        e.shape().layout.as_ref().map(|l| l.range("qvel").start)
    });
    if let Some(off) = off {
        c["values"][off] = json!(1e308);
    }
    c.to_string()
}

#[test]
fn warnings_and_bridge_events_reach_the_callback_and_nothing_is_written_to_disk() {
    let log = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("MUJOCO_LOG.TXT");
    let _ = std::fs::remove_file(&log);
    let ep = open_model("contact_act.xml", "");
    ep.step_ok(2);

    // No callback: a diverging step warns inside MuJoCo; nothing is printed to a file.
    assert_eq!(ep.restore(&diverging(&ep)).0, Outcome::Ok);
    let (o, r) = ep.step(3);
    assert_eq!((o, r.engine_resets > 0), (Outcome::Ok, true));
    assert!(!log.exists(), "MUJOCO_LOG.TXT was written");

    // With a callback: MuJoCo's warning, the bridge's reset, refusals, at or above min_level.
    let seen: &'static Seen = Box::leak(Box::new(Mutex::new(Vec::new())));
    let user = seen as *const Seen as *mut c_void;
    assert_eq!(
        unsafe {
            mjb_set_log_callback(
                Some(record_and_call),
                user,
                mjb_log_level::MJB_LOG_INFO as i32,
            )
        },
        Outcome::Ok
    );
    // A fresh pair: MuJoCo words a warning only the first time its counter moves.
    let ep = open_model("contact_act.xml", "");
    ep.step_ok(1);
    assert_eq!(ep.restore(&diverging(&ep)).0, Outcome::Ok);
    let (o, r) = ep.step(3);
    assert_eq!(o, Outcome::Ok);
    assert_eq!(
        last_reason(),
        "MJB_REASON_ENGINE_RESET",
        "the callback's own calls kept it: {r:?} {:?}",
        mine(seen)
    );
    let got = mine(seen);
    let warn = mjb_log_level::MJB_LOG_WARNING as i32;
    assert!(
        got.iter()
            .any(|(l, m)| *l == warn && m.starts_with("MuJoCo: ") && m.contains("Time =")),
        "MuJoCo's warning: {got:?}"
    );
    assert!(
        got.iter().any(|(l, m)| *l == warn
            && m.contains("engine reset")
            && m.contains("MJB_REASON_ENGINE_RESET")),
        "the bridge's event: {got:?}"
    );
    assert!(!log.exists(), "MUJOCO_LOG.TXT was written");

    assert_eq!(
        ep.restore("{\"profile\":1}"),
        (Outcome::Rejected, ep.restore("{\"profile\":1}").1)
    );
    let got = mine(seen);
    assert!(
        got.iter()
            .any(|(l, m)| *l == mjb_log_level::MJB_LOG_INFO as i32
                && m.contains("refused")
                && m.contains("MJB_REASON_WRONG_TYPE")
                && m.contains("/profile")),
        "refused document summary: {got:?}"
    );
    assert_eq!(
        last_reason(),
        "MJB_REASON_WRONG_TYPE",
        "kept across the callback's calls"
    );

    #[cfg(feature = "fault-injection")]
    {
        assert_eq!(mjb_test_inject_fault(ep.0, 5), Outcome::Ok);
        assert_eq!(ep.step(1).0, Outcome::RolledBack);
        assert_eq!(mjb_test_inject_fault(ep.0, 4), Outcome::Ok);
        let cp = ep.checkpoint();
        assert_eq!(ep.restore(&cp).0, Outcome::Unknown);
        let got = mine(seen);
        assert!(
            got.iter()
                .any(|(l, m)| *l == warn && m.contains("rolled back")),
            "{got:?}"
        );
        let err = mjb_log_level::MJB_LOG_ERROR as i32;
        assert!(
            got.iter().any(|(l, m)| *l == err && m.contains("fenced")),
            "{got:?}"
        );
    }

    // min_level filters; removing the callback stops deliveries at once.
    seen.lock().unwrap().clear();
    assert_eq!(
        unsafe { mjb_set_log_callback(Some(record), user, mjb_log_level::MJB_LOG_ERROR as i32) },
        Outcome::Ok
    );
    assert_eq!(
        ep.world_write("{\"world\":{\"qpos\":[]}}"),
        Outcome::Rejected
    );
    assert!(mine(seen).is_empty(), "info is below min_level");
    assert_eq!(
        unsafe { mjb_set_log_callback(None, std::ptr::null_mut(), 0) },
        Outcome::Ok
    );
    assert_eq!(
        unsafe { mjb_set_log_callback(Some(record), user, 9) },
        Outcome::InvalidArgument
    );
    let ep2 = open_model("contact_act.xml", "");
    ep2.step_ok(1);
    assert_eq!(ep2.restore(&diverging(&ep2)).0, Outcome::Ok);
    ep2.step(2);
    assert!(mine(seen).is_empty(), "no callback, no delivery");
    assert!(!log.exists(), "MUJOCO_LOG.TXT was written");
}
