//! The Python binding's extras, run by pytest in a venv of their own: `mjbridge.gymnasium`
//! (Gymnasium's env checker, bit-for-bit continuation after `load_state`, seeded resets,
//! refusals, and Gymnasium's `MujocoEnv.set_state(qpos, qvel)` diverging on a model with
//! actuator activations where `load_state` does not), `examples/python/gym_exact_reset.py`, and
//! `examples/python/ray_rollouts.py` on a local two-CPU Ray cluster (every worker's result
//! bit-identical to the serial run; another model's document refused on arrival).
//!
//! The venv (`target/py-gym`, kept across runs and shared by the engine lanes of
//! scripts/test.sh, like `target/py-venv`) holds the pinned packages below from PyPI; the binding
//! is installed into it by pip from `bindings/python` (with its `gymnasium` extra declared) on
//! every run, against this lane's library (`MJBRIDGE_LIB`). MuJoCo's Python package is the
//! 4.0.0 one in every lane: Gymnasium's MujocoEnv runs on it, in the same process as the
//! bridge's own engine (each library resolves its MuJoCo through its own dependencies).

#[path = "common/toolchain.rs"]
mod toolchain;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use toolchain::{lib_dir, root, tool, venv_dir};

/// What the extras' tests need, pinned (Ray's wheel is the big one: about 70 MB).
const PINS: &[(&str, &str)] = &[
    ("gymnasium", "1.4.0"),
    ("ray", "2.60.0"),
    ("mujoco-core", "4.0.0"),
    // gymnasium.envs.mujoco imports these (its `mujoco` extra, without the full mujoco package).
    ("glfw", "2.11.0"),
    ("imageio", "2.38.2"),
    ("packaging", "26.4"),
    ("pytest", "9.2.0"),
];

fn run(cmd: &mut Command) -> String {
    let o = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    print!("{stdout}");
    eprint!("{stderr}");
    assert!(
        o.status.success(),
        "{cmd:?} failed: {:?}\n{stdout}\n{stderr}",
        o.status
    );
    stdout
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Whether this engine lane runs the extras: the default engine (4.0.0, the integration
/// profile) runs both; Debian's 2.2.2 (the basic profile, the weaker promise) runs the
/// Gymnasium tests too. The other lanes would repeat 4.0.0's checks at 30-90 s each.
fn lane_runs(what: &str, engines: &[&str]) -> bool {
    match std::env::var("MJB_EXPECT_ENGINE") {
        Ok(engine) if !engines.contains(&engine.as_str()) => {
            eprintln!("{what}: runs on the engines {engines:?} only (this lane: {engine})");
            false
        }
        _ => true,
    }
}

/// The venv's python, with the pins installed and this checkout's binding installed by pip.
fn venv() -> Option<PathBuf> {
    static VENV: OnceLock<Option<PathBuf>> = OnceLock::new();
    VENV.get_or_init(|| {
        let python = tool("PYTHON", "python3")?;
        let pins: Vec<String> = PINS.iter().map(|(n, v)| format!("{n}=={v}")).collect();
        let dir = venv_dir("py-gym", pins.join(" ").as_bytes());
        let py = dir.join("bin/python");
        if !py.is_file() {
            run(Command::new(&python).args(["-m", "venv"]).arg(&dir));
        }
        let check = PINS
            .iter()
            .map(|(name, version)| format!("v('{name}') == '{version}'"))
            .collect::<Vec<_>>()
            .join(" and ");
        let pinned = Command::new(&py)
            .args([
                "-c",
                &format!(
                    "import sys; from importlib.metadata import version as v; \
                     import numpy, setuptools, mypy, packaging.version; \
                     sys.exit(not ({check} and int(setuptools.__version__.split('.')[0]) >= 77))"
                ),
            ])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !pinned {
            let start = std::time::Instant::now();
            let mut pip = Command::new(&py);
            pip.args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "numpy",
                "setuptools>=77",
                "wheel",
                "mypy",
            ]);
            pip.args(
                PINS.iter()
                    .map(|(name, version)| format!("{name}=={version}")),
            );
            run(&mut pip);
            println!(
                "py-gym venv: pinned packages installed in {:.0} s",
                start.elapsed().as_secs_f64()
            );
        }
        // From a copy: setuptools writes build/ and *.egg-info into the folder it builds.
        let source = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("py-gym-source");
        let _ = std::fs::remove_dir_all(&source);
        copy_dir(&root().join("bindings/python"), &source);
        run(Command::new(&py)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-build-isolation",
                "--no-deps",
                "--force-reinstall",
            ])
            .arg(&source));
        Some(py)
    })
    .clone()
}

/// pytest on some of `bindings/python/tests_extras`, from a folder outside the checkout (the
/// installed package is the one imported), under a timeout so a stuck Ray cannot hang CI.
fn pytest(py: &Path, files: &[&str]) -> String {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("py-gym-run");
    std::fs::create_dir_all(&work).unwrap();
    let mut cmd = Command::new("timeout");
    cmd.args(["--kill-after=10", "600"]).arg(py).args([
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-rA",
    ]);
    for f in files {
        cmd.arg(root().join("bindings/python/tests_extras").join(f));
    }
    let out = run(cmd
        .current_dir(&work)
        .env("MJBRIDGE_LIB", lib_dir())
        .env("MJB_TEST_MODELS", root().join("tests/models"))
        .env("MJB_EXAMPLE_MODELS", root().join("examples/models"))
        .env("MJB_EXAMPLES_PYTHON", root().join("examples/python"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("RAY_USAGE_STATS_ENABLED", "0"));
    // pytest's closing line: "N passed in S" (", M warnings" may follow), nothing else.
    let last = out
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    assert!(last.contains(" passed"), "{out}");
    for bad in ["skipped", "failed", "xfail", "xpass", "error", "deselected"] {
        assert!(!last.contains(bad), "pytest said {bad}:\n{out}");
    }
    out
}

/// Whether pytest's `-rA` summary lists the test as passed.
fn passed(out: &str, name: &str) -> bool {
    out.lines()
        .any(|l| l.starts_with("PASSED ") && l.ends_with(&format!("::{name}")))
}

#[test]
fn gymnasium_env_checks_resets_exactly_and_beats_set_state() {
    if !lane_runs("gymnasium", &["4.0.0", "2.2.2"]) {
        return;
    }
    let Some(py) = venv() else { return };
    let out = pytest(&py, &["test_gymnasium.py"]);
    for name in [
        "test_check_env_passes_on_a_model_with_activations",
        "test_load_state_continues_bit_for_bit",
        "test_mujoco_env_set_state_diverges_where_load_state_does_not",
    ] {
        assert!(passed(&out, name), "{name}:\n{out}");
    }
    // The module type-checks under pyproject's `mypy --strict` against the real gymnasium too
    // (tests/install.rs checks the package without it).
    let source = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("py-gym-source");
    let checked = run(Command::new(&py)
        .args(["-m", "mypy", "--no-incremental", "-p", "mjbridge"])
        .current_dir(&source));
    assert!(checked.contains("Success: no issues found"), "{checked}");
    // The example shows an exact reset, which MuJoCo 2.2.2's basic profile does not promise
    // (test_gymnasium.py checks what it does promise there).
    if std::env::var("MJB_EXPECT_ENGINE").as_deref() == Ok("2.2.2") {
        eprintln!("gym_exact_reset.py: needs the integration profile; 2.2.2 has the basic one");
        return;
    }
    let example = run(Command::new(&py)
        .arg(root().join("examples/python/gym_exact_reset.py"))
        .arg(root().join("tests/models/gym_act.xml"))
        .current_dir(std::env::temp_dir())
        .env("MJBRIDGE_LIB", lib_dir())
        .env("PYTHONDONTWRITEBYTECODE", "1"));
    for want in [
        "gym-exact-reset: 200 steps replayed from the saved state: identical",
        "gym-exact-reset: done",
    ] {
        assert!(example.contains(want), "{want:?} missing:\n{example}");
    }
}

#[test]
fn ray_rollouts_on_a_local_cluster_match_the_serial_run() {
    if !lane_runs("ray", &["4.0.0"]) {
        return;
    }
    let Some(py) = venv() else { return };
    let out = pytest(&py, &["test_ray.py"]);
    for name in [
        "test_workers_reproduce_the_serial_rollouts_bit_for_bit",
        "test_workers_refuse_a_document_of_another_model",
    ] {
        assert!(passed(&out, name), "{name}:\n{out}");
    }
}
