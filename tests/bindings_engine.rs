//! The bindings' own test suites against this engine lane's library: the Python binding's
//! pytest files (`bindings/python/tests`) and the C# binding's `Tests.cs` on Mono, each loading
//! the `libmjbridge.so` of the build folder (the engine this lane was built against).
//!
//! tests/install.rs runs the same suites against an installed tree, which is built from the
//! default engine only; this file keeps the bindings' calls into the library (profiles,
//! refusals, the state each engine serves) tested on every engine of scripts/test.sh.

#[path = "common/toolchain.rs"]
mod toolchain;

use std::path::PathBuf;
use std::process::Command;
use toolchain::{lib_dir, out_dir, py_venv, root, tool, PY_VENV_PACKAGES};

fn run(cmd: &mut Command) -> String {
    let o = cmd.output().unwrap_or_else(|e| panic!("run {cmd:?}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        o.status.success(),
        "{cmd:?} failed ({:?}):\n{text}",
        o.status
    );
    text
}

/// The bindings' venv, with pytest and numpy.
fn python() -> Option<PathBuf> {
    let packages: Vec<&str> = PY_VENV_PACKAGES.split(' ').collect();
    py_venv("pytest, numpy", &packages)
}

#[test]
fn python_binding_passes_pytest_against_this_engines_library() {
    let Some(py) = python() else {
        return;
    };
    let work = out_dir().join("bindings-engine-py");
    std::fs::create_dir_all(&work).unwrap();
    let out = run(Command::new(&py)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(root().join("bindings/python/tests"))
        .current_dir(&work)
        .env("PYTHONPATH", root().join("bindings/python"))
        .env("MJBRIDGE_LIB", lib_dir().join("libmjbridge.so"))
        .env("MJB_TEST_MODELS", root().join("tests/models"))
        .env("PYTHONDONTWRITEBYTECODE", "1"));
    assert!(out.contains(" passed"), "{out}");
    assert!(!out.contains("failed"), "{out}");
}

#[test]
fn csharp_binding_tests_pass_on_mono_against_this_engines_library() {
    let (Some(mcs), Some(mono)) = (tool("MCS", "mcs"), tool("MONO", "mono")) else {
        return;
    };
    let dir = out_dir().join("bindings-engine-cs");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("tests.exe");
    run(Command::new(mcs)
        .arg(format!("-out:{}", exe.display()))
        .args(["-warn:4", "-warnaserror+"])
        .arg(root().join("bindings/csharp/MjBridge.cs"))
        .arg(root().join("bindings/csharp/tests/Tests.cs")));
    let out = run(Command::new(mono)
        .arg("--debug")
        .arg(&exe)
        .arg(root().join("tests/models"))
        .env("LD_LIBRARY_PATH", lib_dir()));
    assert!(out.contains(" passed, 0 failed"), "{out}");
    assert!(!out.contains("FAIL"), "{out}");
}
