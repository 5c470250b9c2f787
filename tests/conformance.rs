//! Engine conformance: what this build promises on the MuJoCo it was compiled against.
//! CI runs this file against MuJoCo 4.0.0, 3.17.0, 3.3.7, 2.3.7 and 2.2.2 (see scripts/test.sh).
//!
//! Fixtures in tests/fixtures/ are checkpoints of tests/models/pendulum.xml taken by each
//! engine (`MJB_BLESS=1` rewrites the running engine's own); each engine must accept its own
//! and refuse every other engine's.

mod common;
#[path = "common/toolchain.rs"]
mod toolchain;
use common::*;
use mjbridge::native::engine;
use mjbridge::outcome::Outcome;
use serde_json::{json, Value};
use std::path::PathBuf;

fn parse(doc: &str) -> Value {
    serde_json::from_str(doc).unwrap()
}

#[test]
fn auto_profile_follows_the_engines_api_and_integration_is_refused_where_incomplete() {
    let e = engine();
    println!(
        "engine {} (header {}), integration: {}",
        e.version_string,
        e.header_version,
        e.supports_integration()
    );
    let ep = open_model("pendulum.xml", "\"profile\":\"auto\"");
    assert_eq!(ep.world_json()["world"]["profile"], auto_profile());
    let cfg = format!(
        "{{\"model\":{{\"xml_path\":{}}},\"profile\":\"mujoco_integration_v1\"}}",
        js(&model_path("pendulum.xml"))
    );
    match try_open(&cfg) {
        Ok(_) => assert!(e.supports_integration()),
        Err((o, err)) => {
            assert!(!e.supports_integration());
            assert_eq!(o, Outcome::Rejected);
            assert_eq!(err["reason"], "MJB_REASON_PROFILE");
            assert_eq!(err["pointer"], "/profile");
            assert!(err["message"].as_str().unwrap().contains(&e.version_string));
        }
    }
}

#[test]
fn a_step_that_would_pass_the_maximum_tick_is_refused_before_any_engine_step() {
    for profile in profiles() {
        let ep = open_model("pendulum.xml", &format!("\"profile\":{}", js(profile)));
        ep.step_ok(3);
        let mut c = parse(&ep.checkpoint());
        c["tick"] = json!(u64::MAX - 1);
        assert_eq!(
            ep.restore(&c.to_string()).0,
            Outcome::Ok,
            "{:?}",
            last_error()
        );
        // Two steps would wrap: refused whole, nothing stepped.
        let hash = ep.hash();
        let public = ep.public();
        let (o, r) = ep.step(2);
        assert_eq!(o, Outcome::Rejected);
        assert_eq!(reason_of(&r), mjbridge::outcome::Reason::TickOverflow);
        assert_eq!((r.tick_before, r.tick_after), (u64::MAX - 1, u64::MAX - 1));
        assert_eq!(last_reason(), "MJB_REASON_TICK_OVERFLOW");
        assert_eq!(ep.hash(), hash, "{profile}: no engine step was taken");
        assert!(same_bits(&ep.public().qpos, &public.qpos));
        // One step reaches the maximum; the next is refused; zero steps are fine.
        ep.step_ok(1);
        assert_eq!(ep.world_json()["world"]["tick"], json!(u64::MAX));
        let hash = ep.hash();
        let (o, r) = ep.step(1);
        assert_eq!(o, Outcome::Rejected);
        assert_eq!(reason_of(&r), mjbridge::outcome::Reason::TickOverflow);
        assert_eq!(ep.hash(), hash);
        assert!(!ep.safety().fenced);
        assert_eq!(ep.step(0).0, Outcome::Ok);
        // Restoring a smaller tick makes stepping possible again.
        c["tick"] = json!(5);
        assert_eq!(ep.restore(&c.to_string()).0, Outcome::Ok);
        ep.step_ok(1);
    }
}

#[test]
fn basic_profile_restores_and_verifies_time_qpos_qvel_ctrl_act() {
    let ep = open_model(
        "contact_act.xml",
        "\"profile\":\"mujoco_basic_v1\",\"seed\":21",
    );
    ep.set_ctrl(&[0.5, -0.5]);
    ep.step_ok(60);
    let cp = ep.checkpoint();
    let at = ep.public();
    assert!(
        at.act[0] != 0.0,
        "activation is part of the basic checkpoint"
    );
    let c = parse(&cp);
    assert_eq!(c["profile"], "mujoco_basic_v1");
    assert_eq!(c["engine"], engine().version_string.as_str());
    assert_eq!(
        ep.world_json()["world"]["checkpoint_scope"],
        "public_fields_only_no_exact_continuation"
    );
    ep.set_ctrl(&[0.0, 0.0]);
    ep.step_ok(30);
    let (o, r) = ep.restore(&cp);
    assert_eq!(o, Outcome::Ok);
    assert_eq!((r.tick_before, r.tick_after), (90, 60));
    assert!(
        ep.public().same_bits(&at),
        "readback equals the checkpoint bit for bit"
    );
    // Refusals leave everything as it was.
    let hash = ep.hash();
    for (doc, reason) in [
        (cp.replace("\"seed\":21", "\"seed\":22"), "MJB_REASON_SEED"),
        (
            cp.replace(
                "\"profile\":\"mujoco_basic_v1\"",
                "\"profile\":\"mujoco_integration_v1\"",
            ),
            "MJB_REASON_PROFILE",
        ),
        (
            cp.replace("\"tick\":60", "\"tick\":60.5"),
            "MJB_REASON_NOT_AN_INTEGER",
        ),
    ] {
        assert_eq!(ep.restore(&doc).0, Outcome::Rejected);
        assert_eq!(last_reason(), reason);
        assert_eq!(ep.hash(), hash);
    }
}

fn fixture_dir() -> PathBuf {
    toolchain::root().join("tests/fixtures")
}

fn fixture_name(version: &str, profile: &str) -> String {
    format!("pendulum-{version}-{profile}.json")
}

/// The fixture recipe: pendulum, seed 0, ctrl 0.5, 25 steps.
fn fixture_checkpoint(profile: &str) -> (Ep, String) {
    let ep = open_model("pendulum.xml", &format!("\"profile\":\"{profile}\""));
    ep.set_ctrl(&[0.5]);
    ep.step_ok(25);
    let cp = ep.checkpoint();
    (ep, cp)
}

#[test]
fn checkpoints_from_another_engine_are_refused_even_when_sizes_match() {
    let me = &engine().version_string;
    if std::env::var_os("MJB_BLESS").is_some() {
        for p in profiles() {
            let (_, cp) = fixture_checkpoint(p);
            std::fs::write(fixture_dir().join(fixture_name(me, p)), cp + "\n").unwrap();
        }
    }
    let mut foreign = 0;
    for entry in std::fs::read_dir(fixture_dir()).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let doc = parse(&text);
        let profile = doc["profile"].as_str().unwrap();
        if !profiles().contains(&profile) {
            continue; // this engine cannot open that profile at all (tested above)
        }
        let (ep, own) = fixture_checkpoint(profile);
        let hash = ep.hash();
        let (o, _) = ep.restore(text.trim_end());
        if doc["engine"] == me.as_str() {
            assert_eq!(
                o,
                Outcome::Ok,
                "{}: own fixture: {}",
                path.display(),
                last_error()
            );
            assert_eq!(parse(&own)["descriptor"], doc["descriptor"]);
        } else {
            foreign += 1;
            assert_eq!(o, Outcome::Rejected, "{}", path.display());
            assert_eq!(last_reason(), "MJB_REASON_ENGINE", "{}", path.display());
            assert_eq!(last_error()["pointer"], "/engine");
            assert_eq!(ep.hash(), hash, "refused, nothing changed");
            if profile == "mujoco_integration_v1" {
                // Same model, same dimensions: the sizes match; the engine still differs.
                assert_eq!(parse(&own)["size"], doc["size"], "{}", path.display());
                // Only the engine fields differ in validation terms: with them replaced the
                // document gets past the engine step. Releases with other component masks
                // stop it at the signature or later; a release with the same masks (3.0.x to
                // 3.4.x share 3.3.7's, 3.5.x to 3.16.x 3.17.0's, built with MUJOCO_DIR) takes
                // it: there the engine check is all that refuses it.
                let mut d = doc.clone();
                d["engine"] = json!(me);
                d["engine_version"] = json!(engine().runtime_version);
                let o = ep.restore(&d.to_string()).0;
                if parse(&own)["signature"] == doc["signature"] {
                    assert_eq!(o, Outcome::Ok, "{}: {}", path.display(), last_error());
                } else {
                    assert_eq!(o, Outcome::Rejected, "{}", path.display());
                    assert_ne!(last_reason(), "MJB_REASON_ENGINE");
                }
            }
        }
    }
    assert!(foreign >= 1, "fixtures from another engine are present");
    let own: Vec<_> = profiles()
        .iter()
        .map(|p| fixture_dir().join(fixture_name(me, p)))
        .collect();
    for p in own {
        assert!(
            p.is_file(),
            "no fixture for this engine: {} (MJB_BLESS=1 writes it)",
            p.display()
        );
    }
}

#[test]
fn a_different_mujoco_release_at_run_time_is_refused_at_open() {
    // MJB_FOREIGN_MUJOCO_LIB names a libmujoco.so of another release; it is put in place of
    // the linked one with LD_LIBRARY_PATH (searched before the bridge's runpath).
    // Only a pairing whose library still has every symbol the shim links can load at all
    // (the library is bound at load time); the CI matrix runs it as a 3.3.7 build with the
    // 4.0.0 library and says `none` for the other builds.
    if std::env::var_os("MJB_FOREIGN_MUJOCO_LIB").is_some_and(|v| v == "none") {
        println!("engine-mismatch check: no loadable foreign library for this build");
        return;
    }
    let Some(foreign) = std::env::var_os("MJB_FOREIGN_MUJOCO_LIB") else {
        let msg = "MJB_FOREIGN_MUJOCO_LIB is not set: the engine-mismatch check cannot run";
        assert!(!toolchain::require_all(), "{msg}");
        eprintln!("\n!!!!!!!! {msg} — SKIPPED !!!!!!!!\n");
        return;
    };
    let Some(cc) = toolchain::tool("CC", "cc") else {
        return;
    };
    let exe = toolchain::build(
        toolchain::Build {
            compiler: &cc,
            std: "c99",
            sources: vec![toolchain::root().join("tests/c/engine_mismatch.c")],
            with_mujoco: false,
            extra: vec![],
        },
        "engine_mismatch",
    );
    let soname = PathBuf::from(env!("MJB_ENGINE_LIBRARY"))
        .file_name()
        .unwrap()
        .to_owned();
    let dir = toolchain::out_dir().join("foreign-mujoco");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&foreign, dir.join(&soname)).unwrap();
    let out = toolchain::run(
        &exe,
        &[&model_path("pendulum.xml")],
        &[("LD_LIBRARY_PATH", dir.to_str().unwrap())],
    );
    assert!(out.contains("engine_mismatch: all checks passed"));
    assert!(out.contains("engine mismatch"), "{out}");
}

#[cfg(mjb_integration)]
mod integration {
    use super::*;

    #[cfg(any(mjb_eq_active, mjb_history))]
    fn segment(ep: &Ep, name: &str) -> std::ops::Range<usize> {
        with_endpoint(ep, |e| e.shape().layout.as_ref().unwrap().range(name))
    }

    /// k steps, checkpoint, m steps, restore, m steps: bit-identical, same world documents.
    fn exact(file: &str, ctrl: &[f64], k: u32, m: u32) -> Ep {
        let ep = open_model(file, "");
        assert_eq!(ep.set_ctrl(ctrl), Outcome::Ok);
        ep.step_ok(k);
        let cp = ep.checkpoint();
        ep.step_ok(m);
        let first = ep.world();
        assert_eq!(ep.restore(&cp).0, Outcome::Ok);
        ep.step_ok(m);
        assert_eq!(ep.world(), first, "{file}: continuation differs");
        ep
    }

    #[test]
    fn exact_continuation_on_this_engine() {
        exact("contact_act.xml", &[0.3, -0.7], 250, 500);
        exact("pendulum.xml", &[0.5], 10, 300);
    }

    #[cfg(mjb_eq_active)]
    #[test]
    fn eq_active_domain_on_this_build() {
        let e = engine();
        assert_eq!(
            e.eq_active_size, 1,
            "mjtByte (3.x) or bool (4.x): one byte per activation"
        );
        let ep = open_model("contact_act.xml", "");
        let mut c = parse(&ep.checkpoint());
        let eq = segment(&ep, "eq_active");
        assert_eq!(eq.len(), 2);
        let hash = ep.hash();
        for bad in [json!(0.5), json!(2), json!(-1), json!(true), json!(255)] {
            let mut d = c.clone();
            d["values"][eq.start + 1] = bad.clone();
            assert_eq!(ep.restore(&d.to_string()).0, Outcome::Rejected, "{bad}");
            assert_eq!(last_reason(), "MJB_REASON_EQ_ACTIVE_DOMAIN");
            assert_eq!(ep.hash(), hash);
        }
        // Exactly 0 and 1 are restored and read back exactly, both ways.
        c["values"][eq.start] = json!(0);
        c["values"][eq.start + 1] = json!(1);
        assert_eq!(ep.restore(&c.to_string()).0, Outcome::Ok);
        let now = parse(&ep.checkpoint());
        assert_eq!(now["values"][eq.start], 0);
        assert_eq!(now["values"][eq.start + 1], 1);
    }

    /// The HISTORY ring-buffer cursors of tests/models/history.xml (and of history_plastic.xml,
    /// whose plastic state comes after them), found from the
    /// engine's own behaviour rather than from the bridge's layout: the state is
    /// time(1) qpos(2) qvel(2) act(0), then the actuator buffer [user, cursor, 8 times,
    /// 8 values] and the sensor buffer [user, cursor, 4 times, 4 values]. Every step inserts one
    /// sample into each, so after k steps the cursors are (7 + k) % 8 and (3 + k) % 4.
    #[cfg(mjb_history)]
    const CURSORS: [(usize, u32); 2] = [(5 + 1, 8), (5 + 18 + 1, 4)];

    #[cfg(mjb_history)]
    #[test]
    fn history_cursors_outside_their_ring_buffer_are_refused_and_nothing_changes() {
        let ep = open_model("history.xml", "");
        ep.set_ctrl(&[1.0, 3.0]);
        ep.step_ok(7);
        let good = parse(&ep.checkpoint());
        assert_eq!(good["values"][CURSORS[0].0], json!((7 + 7) % 8));
        assert_eq!(good["values"][CURSORS[1].0], json!((3 + 7) % 4));
        // The layout the bridge derived agrees with the engine's behaviour.
        let cursors = with_endpoint(&ep, |e| e.shape().layout.clone().unwrap().cursors);
        let derived: Vec<(usize, u32)> = cursors.iter().map(|c| (c.index, c.nsample)).collect();
        assert_eq!(derived, CURSORS);

        for (index, nsample) in CURSORS {
            assert_eq!(ep.restore(&good.to_string()).0, Outcome::Ok);
            let hash = ep.hash();
            let safety = ep.safety();
            let bad = [
                json!(1e12),
                json!(2147483647),
                json!(-1),
                json!(nsample),
                json!(nsample as f64 + 0.5),
                json!(0.5),
                json!(-0.0),
                json!(-2147483648i64),
                json!(true),
                json!(null),
            ];
            for v in bad {
                let mut c = good.clone();
                c["values"][index] = v.clone();
                let (o, r) = ep.restore(&c.to_string());
                assert_eq!(o, Outcome::Rejected, "cursor {index} = {v}");
                let err = last_error();
                assert_eq!(
                    err["reason"], "MJB_REASON_STATE_DOMAIN",
                    "cursor {index} = {v}: {err}"
                );
                assert_eq!(err["pointer"], format!("/values/{index}"));
                assert_eq!(r.sequence, 0, "refused before admission");
                assert_eq!(
                    ep.hash(),
                    hash,
                    "state unchanged after cursor {index} = {v}"
                );
                assert_eq!(ep.safety(), safety);
            }
            // Every cursor the engine itself can write is accepted and reads back exactly.
            for k in 0..nsample {
                let mut c = good.clone();
                c["values"][index] = json!(k);
                assert_eq!(
                    ep.restore(&c.to_string()).0,
                    Outcome::Ok,
                    "{:?}",
                    last_error()
                );
                assert_eq!(parse(&ep.checkpoint())["values"][index], json!(k));
            }
        }
        // The repro of the defect: a far cursor made the next step write into the actuator's
        // buffer. Now it is refused, and stepping from the good checkpoint matches a reference.
        assert_eq!(ep.restore(&good.to_string()).0, Outcome::Ok);
        let mut far = good.clone();
        far["values"][CURSORS[1].0] = json!(1e12);
        assert_eq!(ep.restore(&far.to_string()).0, Outcome::Rejected);
        ep.step_ok(1);
        let after = parse(&ep.checkpoint());
        let reference = open_model("history.xml", "");
        reference.set_ctrl(&[1.0, 3.0]);
        reference.step_ok(8);
        assert_eq!(after["values"], parse(&reference.checkpoint())["values"]);
    }

    /// Every named component is in the state with live values, the continuation from a
    /// checkpoint is exact, and zeroing any one of them changes it.
    #[cfg(mjb_history)]
    fn components_are_restored_exactly(file: &str, names: &[&str]) {
        let ep = exact(file, &[1.0, 3.0], 120, 300);
        let c = parse(&ep.checkpoint());
        for name in names {
            let r = segment(&ep, name);
            assert!(!r.is_empty(), "{name} is in the state");
            assert!(
                r.clone().any(|i| c["values"][i].as_f64().unwrap() != 0.0),
                "{name} holds live values"
            );
        }
        // The converse: dropping any component changes the continuation.
        for name in names {
            let ep = open_model(file, "");
            ep.set_ctrl(&[1.0, 3.0]);
            ep.step_ok(120);
            let mut cp = parse(&ep.checkpoint());
            ep.step_ok(300);
            let first = ep.public();
            for i in segment(&ep, name) {
                cp["values"][i] = json!(0.0);
            }
            assert_eq!(ep.restore(&cp.to_string()).0, Outcome::Ok);
            ep.step_ok(300);
            let replay = ep.public();
            assert!(
                !same_bits(&replay.qpos, &first.qpos),
                "{file}: zeroed {name} should change qpos"
            );
        }
    }

    #[cfg(mjb_history)]
    #[test]
    fn history_component_is_restored_exactly() {
        components_are_restored_exactly("history.xml", &["history"]);
    }

    #[cfg(all(mjb_history, mjb_plastic))]
    #[test]
    fn history_and_plastic_components_are_restored_exactly() {
        components_are_restored_exactly("history_plastic.xml", &["history", "plastic"]);
    }
}
