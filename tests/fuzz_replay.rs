//! Replays the fuzzing corpora's seeds and every kept crasher (`fuzz/seeds/<target>/`,
//! `fuzz/regressions/<target>/`) through the same invariants the cargo-fuzz targets check
//! (`fuzz/invariants.rs`), so a regression is caught by plain `cargo test` on every engine,
//! without the fuzzer. `MJB_BLESS=1` rewrites this engine's seeds from real checkpoints.

#[path = "../fuzz/invariants.rs"]
mod invariants;

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let mut v = Vec::new();
    for dir in ["fuzz/seeds", "fuzz/regressions"] {
        let d = root().join(dir).join(target);
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
        files.sort();
        let visible = |f: &PathBuf| !f.file_name().unwrap().to_string_lossy().starts_with('.');
        for f in files.into_iter().filter(|f| f.is_file() && visible(f)) {
            let bytes = std::fs::read(&f).unwrap();
            v.push((f, bytes));
        }
    }
    v
}

fn engine_tag() -> String {
    let e = mjbridge::native::engine();
    e.version_string.clone()
}

/// Write this engine's seeds: real checkpoints, world documents and world writes of every
/// harness endpoint, and configurations.
fn bless(harnesses: &[invariants::Harness]) {
    let tag = engine_tag();
    let seeds = root().join("fuzz/seeds");
    for h in harnesses {
        let stem = Path::new(h.name.split(' ').next().unwrap())
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let profile = if h.name.contains("basic") {
            "basic"
        } else {
            "integration"
        };
        let name = format!("{tag}-{stem}-{profile}");
        let world = h.world();
        std::fs::write(
            seeds.join(format!("restore/{name}-checkpoint.json")),
            h.checkpoint(),
        )
        .unwrap();
        std::fs::write(seeds.join(format!("restore/{name}-world.json")), &world).unwrap();
        let w: serde_json::Value = serde_json::from_str(&world).unwrap();
        let write = serde_json::json!({"world": {"ctrl": w["world"]["ctrl"]}});
        std::fs::write(
            seeds.join(format!("world_write/{name}-ctrl.json")),
            write.to_string(),
        )
        .unwrap();
        std::fs::write(seeds.join(format!("world_write/{name}-world.json")), &world).unwrap();
    }
    bless_recordings(&tag);
    let xml = std::fs::read_to_string(root().join("tests/models/pendulum.xml")).unwrap();
    for (name, cfg) in [
        (
            "inline",
            serde_json::json!({"model": {"xml": xml}, "name": "seed", "seed": 3, "profile": "auto"}),
        ),
        (
            "fidelity",
            serde_json::json!({"model": {"xml": xml}, "fidelity": {"claim": "c", "scope": "s", "evidence": ["e"]}}),
        ),
        (
            "path",
            serde_json::json!({"model": {"xml_path": "tests/models/pendulum.xml"}, "profile": "mujoco_basic_v1"}),
        ),
    ] {
        std::fs::write(
            seeds.join(format!("endpoint_config/{name}.json")),
            cfg.to_string(),
        )
        .unwrap();
    }
}

/// Recording seeds: real exports (`mjb_history_export`) of a short drive of the model with
/// contacts (ctrl every tick, a world write, a restore), where the engine has the
/// integration profile.
fn bless_recordings(tag: &str) {
    use mjbridge::endpoint::{Endpoint, WAIT_FOREVER};
    if !mjbridge::native::engine().has_state_api {
        return;
    }
    let dir = root().join("fuzz/seeds/recording");
    std::fs::create_dir_all(&dir).unwrap();
    let path = root().join("tests/models/contact_act.xml");
    let config = serde_json::json!({
        "model": {"xml_path": path.to_string_lossy()},
        "profile": "mujoco_integration_v1",
        "history": {"window_ticks": 12, "keyframe_every": 4},
    });
    let ep = Endpoint::open(config.to_string().as_bytes()).unwrap();
    let mut saved = String::new();
    for i in 0..16u32 {
        let x = f64::from(i) / 16.0;
        assert!(ep.set_ctrl(&[x, -x], WAIT_FOREVER).detail.is_none());
        if i == 3 {
            saved = ep.checkpoint_read(WAIT_FOREVER).unwrap();
            let w = r#"{"world":{"ctrl":[0.25,-0.5]}}"#;
            assert!(ep.world_write(w, WAIT_FOREVER).detail.is_none());
        }
        if i == 9 {
            assert!(ep.restore(&saved, WAIT_FOREVER).detail.is_none());
        }
        assert!(ep.step(1, WAIT_FOREVER).detail.is_none());
    }
    for (name, from, to) in [("window", 0, u64::MAX), ("short", 6, 8)] {
        let info = ep.history_info().unwrap();
        let from = from.max(info.oldest);
        let doc = ep.history_export(from, to, WAIT_FOREVER).unwrap();
        std::fs::write(dir.join(format!("{tag}-contact_act-{name}.json")), doc).unwrap();
    }
}

#[test]
fn fuzz_seeds_and_kept_crashers_replay_through_the_fuzz_invariants() {
    let harnesses = invariants::harnesses(&root().join("tests/models"));
    assert!(!harnesses.is_empty());
    if std::env::var("MJB_BLESS").is_ok_and(|v| v == "1") {
        bless(&harnesses);
    }
    let mut counts = Vec::new();
    for target in ["restore", "world_write", "endpoint_config", "recording"] {
        let inputs = inputs(target);
        assert!(!inputs.is_empty(), "no seeds for {target}");
        for (path, bytes) in &inputs {
            let run = std::panic::catch_unwind(|| match target {
                "restore" => harnesses.iter().for_each(|h| h.restore(bytes)),
                "world_write" => harnesses.iter().for_each(|h| h.world_write(bytes)),
                "recording" => invariants::recording(bytes),
                _ => invariants::endpoint_config(bytes),
            });
            assert!(
                run.is_ok(),
                "{target}: {} broke an invariant",
                path.display()
            );
        }
        counts.push(format!("{target}: {}", inputs.len()));
    }
    println!("replayed {}", counts.join(", "));
}
