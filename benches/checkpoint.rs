//! Checkpoint costs and an exact-continuation conformance run on real MuJoCo models.
//!
//! Uses the models in `MJB_MODELS_DIR`, else `../shared/models/mujoco` beside the repository
//! when it is there (humanoid, 22 humanoids, humanoid100, car, the PID plugin), plus the
//! project's own test model. Figures are medians from one run, reported with their ratio to one
//! engine step of the same model. Run: `cargo bench --bench checkpoint`.

#[path = "../tests/common/mod.rs"]
mod common;

use common::*;
use mjbridge::endpoint::WAIT_FOREVER;
use mjbridge::ffi::*;
use mjbridge::outcome::Outcome;
use std::path::{Path, PathBuf};
use std::time::Instant;

extern "C" {
    fn mj_loadPluginLibrary(path: *const std::os::raw::c_char);
}

fn median(mut f: impl FnMut() -> u64, n: usize) -> u64 {
    let mut v: Vec<u64> = (0..n).map(|_| f()).collect();
    v.sort_unstable();
    v[n / 2]
}

fn timed(f: impl FnOnce()) -> u64 {
    let t = Instant::now();
    f();
    t.elapsed().as_nanos() as u64
}

fn models() -> Vec<PathBuf> {
    let mut v = vec![PathBuf::from(model_path("contact_act.xml"))];
    let dir = std::env::var_os("MJB_MODELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/models/mujoco"));
    if dir.is_dir() {
        for name in [
            "humanoid.xml",
            "22_humanoids.xml",
            "humanoid100.xml",
            "car.xml",
            "pid.xml",
        ] {
            if dir.join(name).is_file() {
                v.push(dir.join(name));
            }
        }
    } else {
        println!(
            "(no shared models at {}; set MJB_MODELS_DIR)",
            dir.display()
        );
    }
    v
}

/// Make the wheel's plugin libraries known to MuJoCo (the PID model needs mujoco.pid).
fn load_plugins() {
    let lib = Path::new(env!("MJB_ENGINE_LIBRARY"));
    let dir = lib.parent().unwrap().join("plugin");
    for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let p = std::ffi::CString::new(e.path().to_string_lossy().as_bytes()).unwrap();
        unsafe { mj_loadPluginLibrary(p.as_ptr()) };
    }
}

fn main() {
    load_plugins();
    let n = 200;
    println!("engine {}", mjbridge::native::engine().version_string);
    println!(
        "{:<18} {:>6} {:>7} {:>9} | {:>9} {:>10} {:>10} {:>10} {:>10} | {:>8} {:>8} | exact",
        "model",
        "nq",
        "values",
        "doc bytes",
        "step ns",
        "read ns",
        "restore ns",
        "refuse ns",
        "world ns",
        "restore/step",
        "refuse/step"
    );
    for path in models() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let cfg = format!(
            "{{\"model\":{{\"xml_path\":{}}},\"seed\":1}}",
            js(&path.to_string_lossy())
        );
        let ep = match try_open(&cfg) {
            Ok(ep) => ep,
            Err((o, e)) => {
                println!("{name:<18} open refused: {o:?} {}", e["message"]);
                continue;
            }
        };
        ep.step_ok(100);
        let mut s = std::ptr::null_mut();
        if unsafe { mjb_checkpoint_read(ep.0, WAIT_FOREVER, &mut s) } != Outcome::Ok {
            println!("{name:<18} checkpoint refused: {}", last_error()["message"]);
            continue;
        }
        let doc = take_string(s);
        let values = serde_json::from_str::<serde_json::Value>(&doc).unwrap()["values"]
            .as_array()
            .map_or(0, |a| a.len());
        let nq = ep.public().qpos.len();
        let step = median(|| timed(|| ep.step_ok(1)), n);
        let read = median(|| timed(|| drop(ep.checkpoint())), n);
        let restore = median(|| timed(|| assert_eq!(ep.restore(&doc).0, Outcome::Ok)), n);
        // A wrong seed is found at the last validation step: the full cost of validating.
        let bad = doc.replacen("\"seed\":1", "\"seed\":2", 1);
        let refuse = median(
            || timed(|| assert_eq!(ep.restore(&bad).0, Outcome::Rejected)),
            n,
        );
        let world = median(|| timed(|| drop(ep.world())), n);

        // Conformance: checkpoint, 300 steps, restore, 300 steps: identical world documents.
        assert_eq!(ep.restore(&doc).0, Outcome::Ok);
        ep.step_ok(300);
        let first = ep.world();
        assert_eq!(ep.restore(&doc).0, Outcome::Ok);
        ep.step_ok(300);
        let exact = ep.world() == first;

        println!(
            "{name:<18} {nq:>6} {values:>7} {:>9} | {step:>9} {read:>10} {restore:>10} {refuse:>10} {world:>10} | {:>8.3} {:>8.3} | {}",
            doc.len(),
            restore as f64 / step as f64,
            refuse as f64 / step as f64,
            if exact { "yes" } else { "NO" }
        );
    }
}
