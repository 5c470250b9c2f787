//! Foundation: the engine guard, endpoint lifecycle, stepping, strict config and handles.

mod common;
#[path = "common/gate.rs"]
mod gate;
use common::*;
use mjbridge::ffi::*;
use mjbridge::outcome::{Outcome, Reason};

#[test]
fn build_reports_the_engine_it_was_built_against_and_loads_exactly_that_file() {
    let mut s = std::ptr::null_mut();
    assert_eq!(unsafe { mjb_build_info(&mut s) }, Outcome::Ok);
    let info: serde_json::Value = serde_json::from_str(&take_string(s)).unwrap();
    println!("{info}");
    assert_eq!(
        info["engine_header_version"],
        info["engine_runtime_version"]
    );
    assert_eq!(info["bridge"], env!("CARGO_PKG_VERSION"));
    // CI names the engine it meant to build against; the build must report that one.
    if let Ok(want) = std::env::var("MJB_EXPECT_ENGINE") {
        assert_eq!(info["engine"].as_str(), Some(want.as_str()));
    }
    // The process mapped exactly the library file the build linked, and no other libmujoco.
    let built = std::path::Path::new(env!("MJB_ENGINE_LIBRARY"));
    assert_eq!(
        info["engine_library"].as_str(),
        built.file_name().and_then(|n| n.to_str())
    );
    let lib = std::fs::canonicalize(built).unwrap();
    let _ep = open_model("pendulum.xml", "");
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let mapped: std::collections::BTreeSet<&str> = maps
        .lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .filter(|p| p.contains("libmujoco"))
        .collect();
    assert_eq!(mapped.len(), 1, "{mapped:?}");
    assert_eq!(
        std::fs::canonicalize(mapped.iter().next().unwrap()).unwrap(),
        lib
    );
}

#[test]
fn open_from_xml_string_and_path_give_the_same_world() {
    let a = open_model("contact_act.xml", "\"name\":\"w\"");
    let b = open_xml(&model_xml("contact_act.xml"), "\"name\":\"w\"");
    a.step_ok(50);
    b.step_ok(50);
    assert_eq!(a.world(), b.world());
}

#[test]
fn compile_error_is_rejected_with_mujocos_message_never_an_exit() {
    let bad = "<mujoco><worldbody><geom type=\"sphere\" size=\"0.1\"/></worldbody><actuator><motor joint=\"nope\"/></actuator></mujoco>";
    let cfg = format!("{{\"model\":{{\"xml\":{}}}}}", js(bad));
    let (o, e) = try_open(&cfg).err().expect("refused");
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(e["reason"], "MJB_REASON_MODEL_LOAD");
    assert_eq!(e["pointer"], "/model");
    assert!(e["message"].as_str().unwrap().contains("nope"), "{e}");
    let missing = format!("{{\"model\":{{\"xml_path\":{}}}}}", js("/no/such/file.xml"));
    let (o, e) = try_open(&missing).err().expect("refused");
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(e["reason"], "MJB_REASON_MODEL_LOAD");
}

#[test]
fn config_is_strict() {
    let model = format!("{{\"xml_path\":{}}}", js(&model_path("pendulum.xml")));
    let cases = [
        (
            format!("{{\"model\":{model},\"extra\":1}}"),
            "MJB_REASON_UNKNOWN_FIELD",
            "/extra",
        ),
        (
            "{\"name\":\"x\"}".to_owned(),
            "MJB_REASON_MISSING_FIELD",
            "/model",
        ),
        (
            format!("{{\"model\":{model},\"seed\":1.0}}"),
            "MJB_REASON_NOT_AN_INTEGER",
            "/seed",
        ),
        (
            format!("{{\"model\":{model},\"seed\":-1}}"),
            "MJB_REASON_OUT_OF_RANGE",
            "/seed",
        ),
        (
            format!("{{\"model\":{model},\"seed\":true}}"),
            "MJB_REASON_NOT_AN_INTEGER",
            "/seed",
        ),
        (
            format!("{{\"model\":{model},\"name\":5}}"),
            "MJB_REASON_WRONG_TYPE",
            "/name",
        ),
        (
            format!("{{\"model\":{model},\"profile\":\"fast\"}}"),
            "MJB_REASON_PROFILE",
            "/profile",
        ),
        (
            format!("{{\"model\":{model},\"model\":{model}}}"),
            "MJB_REASON_DUPLICATE_FIELD",
            "/model",
        ),
        (
            "{\"model\":{\"xml\":\"<mujoco/>\",\"xml_path\":\"a\"}}".to_owned(),
            "MJB_REASON_UNKNOWN_FIELD",
            "/model/xml",
        ),
        (
            // Found by fuzzing: the pointer names the missing member, not the object.
            "{\"model\":{   }}".to_owned(),
            "MJB_REASON_MISSING_FIELD",
            "/model/xml_path",
        ),
        (
            format!("{{\"model\":{model},\"fidelity\":{{\"claim\":\"x\"}}}}"),
            "MJB_REASON_MISSING_FIELD",
            "/fidelity/scope",
        ),
        (
            format!("{{\"model\":{model}}} trailing"),
            "MJB_REASON_MALFORMED_JSON",
            "",
        ),
    ];
    for (cfg, reason, ptr) in cases {
        let (o, e) = try_open(&cfg)
            .err()
            .unwrap_or_else(|| panic!("accepted {cfg}"));
        assert_eq!(o, Outcome::Rejected, "{cfg}");
        assert_eq!(e["reason"], reason, "{cfg}: {e}");
        assert_eq!(e["pointer"], ptr, "{cfg}: {e}");
    }
}

#[test]
fn step_advances_tick_by_steps_done_and_set_ctrl_is_checked() {
    let ep = open_model("contact_act.xml", "");
    let before = ep.public();
    let (o, r) = ep.step(7);
    assert_eq!((o, r.tick_before, r.tick_after), (Outcome::Ok, 0, 7));
    assert_eq!(reason_of(&r), Reason::None);
    assert_ne!(ep.public().qpos, before.qpos);
    let (o, r) = ep.step(0);
    assert_eq!((o, r.tick_before, r.tick_after), (Outcome::Ok, 7, 7));

    assert_eq!(ep.set_ctrl(&[0.5, -0.25]), Outcome::Ok);
    assert_eq!(ep.public().ctrl, vec![0.5, -0.25]);
    let hash = ep.hash();
    assert_eq!(ep.set_ctrl(&[1.0]), Outcome::Rejected);
    assert_eq!(last_reason(), "MJB_REASON_DIMENSION");
    assert_eq!(ep.set_ctrl(&[1.0, f64::NAN]), Outcome::Rejected);
    assert_eq!(last_reason(), "MJB_REASON_NOT_FINITE");
    assert_eq!(last_error()["pointer"], "/ctrl/1");
    assert_eq!(ep.set_ctrl(&[f64::INFINITY, 0.0]), Outcome::Rejected);
    assert_eq!(ep.hash(), hash, "refused controls changed nothing");
}

#[test]
fn handles_closed_twice_or_foreign_are_invalid_arguments_not_ub() {
    let ep = open_model("pendulum.xml", "");
    let raw = ep.0;
    std::mem::forget(ep);
    assert_eq!(mjb_endpoint_free(raw), Outcome::Ok);
    assert_eq!(mjb_endpoint_free(raw), Outcome::InvalidArgument);
    assert_eq!(last_reason(), "MJB_REASON_CLOSED");
    let mut r = mjb_report::default();
    assert_eq!(
        unsafe { mjb_endpoint_step(raw, 1, 0, &mut r) },
        Outcome::InvalidArgument
    );
    assert_eq!(reason_of(&r), Reason::Closed);
    let mut st = mjb_safety_state::default();
    assert_eq!(unsafe { mjb_stop(raw, &mut st) }, Outcome::InvalidArgument);
    let foreign = 0x1234usize as *mut mjb_endpoint;
    assert_eq!(mjb_endpoint_free(foreign), Outcome::InvalidArgument);
    assert_eq!(last_reason(), "MJB_REASON_FOREIGN_HANDLE");
    assert_eq!(mjb_endpoint_free(std::ptr::null_mut()), Outcome::Ok);
}

#[test]
fn closing_while_another_thread_steps_lets_that_call_finish() {
    let ep = open_model("pendulum.xml", "");
    let g = gate::install(model_of(&ep));
    let stepper = spawn_step(&ep, 3);
    g.wait_entered(1); // the stepper is inside mj_step, holding the native lock
    let raw_ep = ep.0;
    std::mem::forget(ep);
    assert_eq!(mjb_endpoint_free(raw_ep), Outcome::Ok);
    // The handle is closed for everyone else at once...
    let mut st = mjb_safety_state::default();
    assert_eq!(
        unsafe { mjb_safety_read(raw_ep, &mut st) },
        Outcome::InvalidArgument
    );
    // ...while the call already inside finishes normally on the still-live pair.
    g.open();
    let (o, r) = stepper.join().unwrap();
    assert_eq!(o, Outcome::Ok);
    assert_eq!(r.tick_after, 3);
}

#[test]
fn adopt_takes_a_host_pair_and_refusal_leaves_ownership_with_the_host() {
    // Use the bridge's own loader to make a host pair, then hand its raw pointers over.
    let src = mjbridge::native::ModelSource::XmlPath(model_path("pendulum.xml"));
    let mj = mjbridge::native::Mujoco::load(&src).unwrap();
    let (m, d) = (mj.model_ptr(), mj.data_ptr());
    let mut ep = std::ptr::null_mut();
    let bad = "{\"model\":{\"xml\":\"<mujoco/>\"}}"; // adopt takes no model field
    let o = unsafe { mjb_endpoint_adopt(m, d, bad.as_ptr().cast(), bad.len(), &mut ep) };
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(last_error()["pointer"], "/model");
    assert!(ep.is_null());
    // Still ours: mj frees it on drop below unless we hand it over now.
    let cfg = "{\"name\":\"adopted\",\"seed\":9}";
    let o = unsafe { mjb_endpoint_adopt(m, d, cfg.as_ptr().cast(), cfg.len(), &mut ep) };
    assert_eq!(o, Outcome::Ok);
    std::mem::forget(mj); // the endpoint owns the pair now
    let ep = Ep(ep);
    ep.step_ok(3);
    assert_eq!(ep.world_json()["world"]["seed"], 9);
    let o = unsafe {
        mjb_endpoint_adopt(
            std::ptr::null_mut(),
            d,
            cfg.as_ptr().cast(),
            cfg.len(),
            &mut std::ptr::null_mut(),
        )
    };
    assert_eq!(o, Outcome::InvalidArgument);
}

#[test]
fn last_error_reports_size_needed_and_refuses_a_short_buffer() {
    let _ = try_open("{");
    let mut needed = 0usize;
    let mut small = [0 as std::os::raw::c_char; 4];
    let o = unsafe { mjb_last_error(small.as_mut_ptr(), small.len(), &mut needed) };
    assert_eq!(o, Outcome::Rejected);
    assert!(needed > 4);
    assert_eq!(small, [0; 4], "nothing copied into a short buffer");
    assert_eq!(last_error()["reason"], "MJB_REASON_MALFORMED_JSON");
}

#[test]
fn names_cover_every_value_and_unknown_values() {
    for &o in Outcome::ALL {
        let n = unsafe { std::ffi::CStr::from_ptr(mjb_outcome_name(o as i32)) };
        assert_eq!(n.to_str().unwrap(), o.name());
    }
    for (i, r) in Reason::ALL.iter().enumerate() {
        assert_eq!(
            *r as i32, i as i32,
            "reasons are dense and never renumbered"
        );
        let n = unsafe { std::ffi::CStr::from_ptr(mjb_reason_name(*r as i32)) };
        assert_eq!(n.to_str().unwrap(), r.name());
    }
    let n = unsafe { std::ffi::CStr::from_ptr(mjb_reason_name(-3)) };
    assert_eq!(n.to_str().unwrap(), "MJB_REASON_UNKNOWN_VALUE");
    assert_eq!(Outcome::Panic as i32, 6);
}

/// `mjb_build_info` tells where MuJoCo came from as a kind (and the pinned wheel with its
/// SHA-256), never as a folder of the build machine: an installed library must carry none.
#[test]
fn build_info_names_the_engines_source_without_a_folder_of_the_build_machine() {
    let mut s = std::ptr::null_mut();
    assert_eq!(unsafe { mjb_build_info(&mut s) }, Outcome::Ok);
    let text = take_string(s);
    let info: serde_json::Value = serde_json::from_str(&text).unwrap();
    let library = std::path::Path::new(env!("MJB_ENGINE_LIBRARY"));
    let folders = [
        library.parent().unwrap().to_str().unwrap(),
        env!("MJB_ENGINE_INCLUDE"),
        env!("CARGO_MANIFEST_DIR"),
    ];
    for folder in folders {
        assert!(!text.contains(folder), "{folder} in {text}");
    }
    if let Ok(home) = std::env::var("HOME") {
        assert!(!text.contains(&format!("{home}/")), "{home} in {text}");
    }
    let lib = info["engine_library"].as_str().unwrap();
    assert!(!lib.contains('/') && !lib.contains('\\'), "{lib}");
    let origin = info["engine_origin"].as_str().unwrap();
    assert!(
        [
            "pinned_wheel",
            "MUJOCO_DIR",
            "MUJOCO_INCLUDE_DIR/MUJOCO_LIB_DIR",
            "pkg-config"
        ]
        .contains(&origin),
        "{origin}"
    );
    let wheel = &info["engine_wheel"];
    let sha = &info["engine_wheel_sha256"];
    if origin == "pinned_wheel" {
        let sha = sha.as_str().unwrap();
        assert_eq!(sha.len(), 64);
        assert!(sha.bytes().all(|b| b.is_ascii_hexdigit()));
        let file = wheel.as_str().unwrap();
        assert!(file.ends_with(".whl") && !file.contains('/'), "{file}");
        let source = info["engine_source"].as_str().unwrap();
        assert!(source.starts_with("pinned wheel ") && source.contains(sha));
    } else {
        assert!(wheel.is_null() && sha.is_null(), "{text}");
        assert!(info["engine_source"]
            .as_str()
            .unwrap()
            .starts_with(origin.trim_end_matches("/MUJOCO_LIB_DIR")));
    }
    assert!(
        info["target"]
            .as_str()
            .unwrap()
            .starts_with(std::env::consts::ARCH),
        "{text}"
    );
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    assert_eq!(info["build_profile"], profile);
    assert_eq!(info["install_build"], false);
    assert_eq!(info["fault_injection"], cfg!(feature = "fault-injection"));
}

#[test]
fn build_cfgs_agree_with_the_shims_engine_facts() {
    let e = mjbridge::native::engine();
    assert_eq!(cfg!(mjb_integration), e.supports_integration());
    assert_eq!(cfg!(mjb_eq_active), e.has_eq_active_state);
    assert_eq!(cfg!(mjb_eq_active), e.component_mask("eq_active").is_some());
    assert_eq!(cfg!(mjb_history), e.component_mask("history").is_some());
    assert_eq!(cfg!(mjb_plastic), e.component_mask("plastic").is_some());
}
