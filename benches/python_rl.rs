//! Drives `benches/python_rl.py`: a Python RL loop (ctrl -> step -> qpos/qvel/sensordata into
//! caller arrays) on the Python binding against the same loop on MuJoCo's own Python bindings,
//! and reset by restore against `mj_setState` + `mj_forward`, in one process on one engine.
//!
//! It builds the release library, makes a venv (`target/py-bench`) with numpy and the MuJoCo
//! Python package of exactly the engine the bridge links (`mujoco-core==4.0.0` for 4.0.x,
//! `mujoco==X.Y.Z` for 3.x; both from PyPI), and runs the script on the shared humanoid (when
//! `MJB_MODELS_DIR` or `../shared/models/mujoco` has it) and `tests/models/host.xml`.
//! Run: `cargo bench --bench python_rl` (`MJB_BENCH_QUICK=1` for a short run).

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support.rs"]
mod support;
use support::{release_library, run};

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let engine = mjbridge::native::engine();
    let version = engine.version_string.clone();
    let package = match version.split('.').next() {
        Some("4") => format!("mujoco-core=={version}"),
        Some("3") => format!("mujoco=={version}"),
        _ => {
            println!(
                "python_rl: MuJoCo {version} has no Python package for this Python; nothing to compare"
            );
            return;
        }
    };
    let release = release_library();
    assert!(release.join("libmjbridge.so").is_file());

    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let venv = release.parent().unwrap().join("py-bench");
    let py = venv.join("bin/python");
    if !py.is_file() {
        run(Command::new(&python).args(["-m", "venv"]).arg(&venv));
    }
    let installed = Command::new(&py)
        .args(["-c", "import mujoco, numpy; print(mujoco.__version__)"])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == version);
    if !installed {
        run(Command::new(&py).args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "numpy",
            &package,
        ]));
    }
    let models_dir = std::env::var_os("MJB_MODELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/models/mujoco"));
    let mut models: Vec<PathBuf> = vec![root.join("tests/models/host.xml")];
    let humanoid = models_dir.join("humanoid.xml");
    if humanoid.is_file() {
        models.push(humanoid);
    } else {
        println!(
            "(no humanoid at {}; set MJB_MODELS_DIR)",
            models_dir.display()
        );
    }
    run(Command::new(&py)
        .arg(root.join("benches/python_rl.py"))
        .args(models.iter().map(|m| m.as_os_str()))
        .env("MJBRIDGE_LIB", &release)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(Path::new(&root)));
}
