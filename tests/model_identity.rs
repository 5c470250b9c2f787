//! Model identity: the world document names its model (`model_fingerprint`, SHA-256 of MuJoCo's
//! serialization of the compiled model), a world document of another model is refused even with
//! the same dimensions, and what a checkpoint is valid for (same endpoint, after a model reload,
//! in a fresh endpoint) is what docs/contract.md ("What a checkpoint is valid for") says.

mod common;
use common::*;
use mjbridge::endpoint::WAIT_FOREVER;
use mjbridge::ffi::*;
use mjbridge::outcome::Outcome;

/// contact_act.xml with its first joint damping changed: the same dimensions, another model.
fn damped_xml() -> String {
    let xml = model_xml("contact_act.xml");
    let changed = if xml.contains("damping=\"") {
        xml.replacen("damping=\"", "damping=\"7", 1)
    } else {
        xml.replacen("<joint ", "<joint damping=\"0.7\" ", 1)
    };
    assert_ne!(changed, xml);
    changed
}

fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), dst).unwrap();
        }
    }
}

fn fingerprint(ep: &Ep) -> String {
    let mut buf = [0 as std::os::raw::c_char; 128];
    let mut needed = 0usize;
    let o = unsafe { mjb_model_fingerprint(ep.0, buf.as_mut_ptr(), buf.len(), &mut needed) };
    assert_eq!(o, Outcome::Ok, "{}", last_error());
    let s = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(needed, s.len() + 1);
    s
}

/// Replace the world's member `key` (or remove it) and recompute the state hash, as an editor
/// that knows JCS would.
fn rewritten(world_doc: &str, key: &str, value: Option<serde_json::Value>) -> String {
    let mut v: serde_json::Value = serde_json::from_str(world_doc).unwrap();
    match value {
        Some(x) => v["world"][key] = x,
        None => {
            v["world"].as_object_mut().unwrap().remove(key);
        }
    }
    v["state_hash"] = "sha256:0".into();
    let text = v.to_string();
    let (_, recomputed) = mjbridge::world::recompute_hash(text.as_bytes()).unwrap();
    v["state_hash"] = recomputed.unwrap().into();
    v.to_string()
}

fn assert_refused(ep: &Ep, doc: &str, reason: &str, pointer: &str) {
    let before = (ep.hash(), ep.world(), ep.safety());
    let (o, r) = ep.restore(doc);
    assert_eq!(o, Outcome::Rejected, "{}", last_error());
    assert_eq!(reason_of(&r).name(), reason, "{}", last_error());
    assert_eq!(last_error()["pointer"], pointer);
    assert_eq!(
        (ep.hash(), ep.world(), ep.safety()),
        before,
        "nothing changed"
    );
}

#[test]
fn the_same_model_has_one_fingerprint_however_it_is_opened() {
    let a = open_model("contact_act.xml", "");
    let path = std::path::Path::new(&model_path("contact_act.xml")).to_path_buf();
    let dir = path.parent().unwrap().to_path_buf();
    // Through a path with a detour, and from the XML text itself.
    let detour = dir
        .join("..")
        .join(dir.file_name().unwrap())
        .join("contact_act.xml");
    let b = open(&format!(
        "{{\"model\":{{\"xml_path\":{}}}}}",
        js(detour.to_str().unwrap())
    ));
    let c = open_xml(&model_xml("contact_act.xml"), "");
    let fa = fingerprint(&a);
    assert!(fa.starts_with("sha256:") && fa.len() == 71, "{fa}");
    assert_eq!(fingerprint(&b), fa);
    assert_eq!(fingerprint(&c), fa);
    // A model with a mesh: MuJoCo records where it found the mesh file, which must not count.
    let arm = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("packages/tethered_arm");
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("elsewhere");
    copy_tree(&arm, &copy);
    let at = |dir: &std::path::Path| {
        open(&format!(
            "{{\"model\":{{\"xml_path\":{}}}}}",
            js(dir.join("model.xml").to_str().unwrap())
        ))
    };
    let (here, there) = (at(&arm), at(&copy));
    assert_eq!(fingerprint(&here), fingerprint(&there));
    // Nor does its length: the buffer's byte count, which counts the recorded paths padded to
    // 64 bytes, is a size of the serialization too. Paths from 1 to 200 characters longer.
    for extra in [1, 40, 80, 120, 200] {
        let far = tmp.path().join("x".repeat(extra)).join("arm");
        copy_tree(&arm, &far);
        assert_eq!(
            fingerprint(&at(&far)),
            fingerprint(&here),
            "{extra} more characters"
        );
    }
    assert_ne!(fingerprint(&here), fa);
    // The world document carries the same text, inside `world` (so the state hash covers it).
    assert_eq!(a.world_json()["world"]["model_fingerprint"], fa.as_str());
    // A short buffer is refused with the size needed, nothing copied.
    let mut small = [7 as std::os::raw::c_char; 8];
    let mut needed = 0usize;
    let o = unsafe { mjb_model_fingerprint(a.0, small.as_mut_ptr(), small.len(), &mut needed) };
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(needed, 72);
    assert_eq!(last_error()["reason"], "MJB_REASON_TOO_LARGE");
    assert!(small.iter().all(|&c| c == 7));
}

#[test]
fn a_world_document_of_another_model_with_the_same_dimensions_is_refused() {
    let a = open_model("contact_act.xml", "");
    let b = open_xml(&damped_xml(), "");
    assert_eq!(a.dims(), b.dims(), "the same dimensions");
    assert_ne!(fingerprint(&a), fingerprint(&b), "another model");
    a.step_ok(5);
    b.step_ok(5);
    let other_world = b.world();
    assert_refused(
        &a,
        &other_world,
        "MJB_REASON_MODEL_FINGERPRINT",
        "/world/model_fingerprint",
    );
    // Validation alone says the same.
    let v = with_endpoint(&a, |e| e.validate_checkpoint(other_world.as_bytes()));
    assert_eq!(
        v.unwrap_err().reason,
        mjbridge::outcome::Reason::ModelFingerprint
    );
    // A bare checkpoint cannot name the model: its fields are the contract's, and this one
    // fits (docs/contract.md says so, and the command says it cannot tell).
    let other_checkpoint = b.checkpoint();
    let (o, _) = a.restore(&other_checkpoint);
    assert_eq!(o, Outcome::Ok, "{}", last_error());
    let checked = with_endpoint(&a, |e| e.validate_checkpoint(other_checkpoint.as_bytes()));
    assert!(!checked.unwrap().model_checked());
    // The endpoint's own snapshot names its model and restores.
    let own = a.snapshot();
    assert_eq!(a.restore(&own).0, Outcome::Ok);
    assert!(with_endpoint(&a, |e| e.validate_checkpoint(own.as_bytes()))
        .unwrap()
        .model_checked());
}

#[test]
fn a_world_document_without_its_model_or_with_a_forged_one_is_refused() {
    let a = open_model("contact_act.xml", "");
    a.step_ok(3);
    let world = a.snapshot();
    assert_refused(
        &a,
        &rewritten(&world, "model_fingerprint", None),
        "MJB_REASON_MISSING_FIELD",
        "/world/model_fingerprint",
    );
    assert_refused(
        &a,
        &rewritten(&world, "model_fingerprint", Some(7.into())),
        "MJB_REASON_WRONG_TYPE",
        "/world/model_fingerprint",
    );
    assert_refused(
        &a,
        &rewritten(
            &world,
            "model_fingerprint",
            Some(format!("sha256:{}", "0".repeat(64)).into()),
        ),
        "MJB_REASON_MODEL_FINGERPRINT",
        "/world/model_fingerprint",
    );
    // Editing it without recomputing the hash is caught by the hash first.
    let fp = a.world_json()["world"]["model_fingerprint"]
        .as_str()
        .unwrap()
        .to_owned();
    let edited = world.replace(&fp, &format!("sha256:{}", "1".repeat(64)));
    assert_refused(&a, &edited, "MJB_REASON_STATE_HASH", "/state_hash");
    // A world write may not carry it.
    let write = format!("{{\"world\":{{\"model_fingerprint\":{}}}}}", js(&fp));
    assert_eq!(a.world_write(&write), Outcome::Rejected);
    assert_eq!(last_error()["reason"], "MJB_REASON_READ_ONLY_FIELD");
}

#[test]
fn what_a_checkpoint_is_valid_for() {
    // The same endpoint: restores (the whole suite shows it); a model reload bumps the
    // configuration and refuses what came before.
    let a = open_model("contact_act.xml", "");
    a.step_ok(4);
    let (cp0, world0) = (a.checkpoint(), a.snapshot());
    let replace = format!(
        "{{\"model\":{{\"xml_path\":{}}}}}",
        js(&model_path("contact_act.xml"))
    );
    let mut r = mjb_report::default();
    let o = unsafe {
        mjb_endpoint_replace_model(
            a.0,
            replace.as_ptr().cast(),
            replace.len(),
            WAIT_FOREVER,
            &mut r,
        )
    };
    assert_eq!(o, Outcome::Ok);
    assert_refused(
        &a,
        &cp0,
        "MJB_REASON_CONFIGURATION",
        "/descriptor/configuration",
    );
    assert_refused(
        &a,
        &world0,
        "MJB_REASON_CONFIGURATION",
        "/world/native_checkpoint/descriptor/configuration",
    );
    // The same model file reloaded has the same fingerprint: only the counter tells them apart.
    assert_eq!(a.world_json()["world"]["model_fingerprint"], {
        let v: serde_json::Value = serde_json::from_str(&world0).unwrap();
        v["world"]["model_fingerprint"].clone()
    });
    let (cp1, world1) = (a.checkpoint(), a.snapshot());
    // A fresh endpoint of the same model (configuration 0, as in a new process): what the
    // first endpoint took before its reload restores, what it took after is refused.
    let fresh = open_model("contact_act.xml", "");
    assert_eq!(fresh.restore(&cp0).0, Outcome::Ok, "{}", last_error());
    assert_eq!(fresh.restore(&world0).0, Outcome::Ok, "{}", last_error());
    assert_refused(
        &fresh,
        &cp1,
        "MJB_REASON_CONFIGURATION",
        "/descriptor/configuration",
    );
    assert_refused(
        &fresh,
        &world1,
        "MJB_REASON_CONFIGURATION",
        "/world/native_checkpoint/descriptor/configuration",
    );
    // And another seed is another session's: refused.
    let seeded = open_model("contact_act.xml", "\"seed\":9");
    assert_refused(&seeded, &cp0, "MJB_REASON_SEED", "/seed");
}

/// A replacement that lands while a world document is being restored is refused with the
/// world document's pointer, wherever it lands: before the validation (the descriptor is
/// judged against the new configuration) or between the validation and the admission (the
/// restore sees the model replaced meanwhile).
#[test]
fn a_world_document_overtaken_by_a_replacement_points_into_the_world() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let ep = open_model("many_bodies.xml", "\"frame\":[]");
    let raw = ep.0 as usize;
    let cfg = format!(
        "{{\"model\":{{\"xml_path\":{}}}}}",
        js(&model_path("many_bodies.xml"))
    );
    let done = AtomicBool::new(false);
    // Set when the replacing thread ends, however it ends (a failed assertion included).
    struct Done<'a>(&'a AtomicBool);
    impl Drop for Done<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Release);
        }
    }
    let (mut admitted, mut refused) = (0u32, 0u32);
    std::thread::scope(|s| {
        s.spawn(|| {
            let _done = Done(&done);
            for _ in 0..40 {
                let mut r = mjb_report::default();
                let o = unsafe {
                    mjb_endpoint_replace_model(
                        raw as *mut mjb_endpoint,
                        cfg.as_ptr().cast(),
                        cfg.len(),
                        WAIT_FOREVER,
                        &mut r,
                    )
                };
                assert_eq!(o, Outcome::Ok, "{}", last_error());
            }
        });
        let ep = raw as *mut mjb_endpoint;
        while !done.load(Ordering::Acquire) {
            let mut s = std::ptr::null_mut();
            assert_eq!(
                unsafe { mjb_world_read(ep, WAIT_FOREVER, &mut s) },
                Outcome::Ok
            );
            let world = take_string(s);
            let mut r = mjb_report::default();
            let o = unsafe {
                mjb_restore(ep, world.as_ptr().cast(), world.len(), WAIT_FOREVER, &mut r)
            };
            if o == Outcome::Ok {
                admitted += 1;
                continue;
            }
            refused += 1;
            assert_eq!(o, Outcome::Rejected);
            assert_eq!(last_reason(), "MJB_REASON_CONFIGURATION");
            assert_eq!(
                last_error()["pointer"],
                "/world/native_checkpoint/descriptor/configuration",
                "{}",
                last_error()
            );
        }
    });
    assert!(
        admitted > 0 && refused > 0,
        "{admitted} admitted, {refused} refused"
    );
}
