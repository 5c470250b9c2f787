//! Drives `benches/python_gym.py`: `mjbridge.gymnasium.MjBridgeEnv` against Gymnasium's own
//! `MujocoEnv` (the smallest subclass over the same MJCF), env.step and env.reset, in one
//! process on one engine; the ratio is measured in the one run (target: step throughput ≥ 0.9
//! of MujocoEnv's).
//!
//! It builds the release library and uses the venv of `cargo bench --bench python_rl`
//! (`target/py-bench`: numpy and the MuJoCo Python package of exactly the engine the bridge
//! links), adding Gymnasium (pinned as in tests/gym.rs) and the two packages its MuJoCo
//! environments import (glfw, imageio, packaging); models: `tests/models/gym_act.xml` (activations,
//! contacts), `tests/models/host.xml` and the shared humanoid when `MJB_MODELS_DIR` or
//! `../shared/models/mujoco` has it. Run: `cargo bench --bench gym` (`MJB_BENCH_QUICK=1` for a
//! short run).

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support.rs"]
mod support;
use support::{release_library, run};

const GYM: &[&str] = &[
    "gymnasium==1.4.0",
    "glfw==2.11.0",
    "imageio==2.38.2",
    "packaging==26.4",
];

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let version = mjbridge::native::engine().version_string.clone();
    let package = match version.split('.').next() {
        Some("4") => format!("mujoco-core=={version}"),
        Some("3") => format!("mujoco=={version}"),
        _ => {
            println!(
                "gym: MuJoCo {version} has no Python package for this Python; nothing to compare"
            );
            return;
        }
    };
    let release = release_library();
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let venv = release.parent().unwrap().join("py-bench");
    let py = venv.join("bin/python");
    if !py.is_file() {
        run(Command::new(&python).args(["-m", "venv"]).arg(&venv));
    }
    let installed = Command::new(&py)
        .args([
            "-c",
            "import mujoco, numpy, glfw, imageio, packaging.version, gymnasium; print(mujoco.__version__, gymnasium.__version__)",
        ])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == format!("{version} 1.4.0"));
    if !installed {
        let mut pip = Command::new(&py);
        pip.args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "numpy",
        ])
        .arg(&package)
        .args(GYM);
        run(&mut pip);
    }
    let models_dir = std::env::var_os("MJB_MODELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/models/mujoco"));
    let mut models = vec![
        root.join("tests/models/gym_act.xml"),
        root.join("tests/models/host.xml"),
    ];
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
        .arg(root.join("benches/python_gym.py"))
        .args(models.iter().map(|m| m.as_os_str()))
        .env("MJBRIDGE_LIB", &release)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(Path::new(&root)));
}
