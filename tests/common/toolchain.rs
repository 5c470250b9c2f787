//! Finding and driving the real toolchains the host tests need (C, C++).
//! A missing toolchain is reported loudly; with MJB_REQUIRE_ALL_TOOLCHAINS=1 it fails the test.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn require_all() -> bool {
    std::env::var("MJB_REQUIRE_ALL_TOOLCHAINS").is_ok_and(|v| v == "1")
}

/// The tool on PATH (or from `env_var`), or None after saying so (panics when CI requires it).
pub fn tool(env_var: &str, default: &str) -> Option<PathBuf> {
    let name = std::env::var(env_var).unwrap_or_else(|_| default.to_owned());
    let found = Command::new(&name)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return Some(PathBuf::from(name));
    }
    let msg = format!("TOOLCHAIN MISSING: `{name}` (set {env_var}); this test cannot run here");
    if require_all() {
        panic!("{msg} and MJB_REQUIRE_ALL_TOOLCHAINS=1");
    }
    eprintln!("\n!!!!!!!! {msg} — SKIPPED !!!!!!!!\n");
    None
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// target/<profile>, where cargo puts libmjbridge.so. `cargo test` builds only the rlib for
/// the tests, so the shared library is built here once, with this test run's features (a
/// no-op when it is up to date).
pub fn lib_dir() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().unwrap();
            let dir = exe.parent().unwrap().parent().unwrap().to_path_buf();
            let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
            // The target folder this test binary was built in (scripts/test.sh gives each
            // engine lane its own with --target-dir, which a child cargo does not inherit).
            cmd.args(["build", "--lib", "--quiet", "--manifest-path"])
                .arg(root().join("Cargo.toml"))
                .arg("--target-dir")
                .arg(dir.parent().unwrap());
            if cfg!(feature = "fault-injection") {
                cmd.args(["--features", "fault-injection"]);
            }
            let status = cmd.status().expect("run cargo build");
            assert!(status.success(), "cargo build --lib failed");
            assert!(
                dir.join("libmjbridge.so").is_file(),
                "no libmjbridge.so in {}",
                dir.display()
            );
            dir
        })
        .clone()
}

pub fn out_dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hosts");
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub struct Build<'a> {
    pub compiler: &'a Path,
    pub std: &'a str,
    pub sources: Vec<PathBuf>,
    pub with_mujoco: bool,
    pub extra: Vec<String>,
}

/// Compile and link a host program against include/mjbridge.h and libmjbridge.so.
pub fn build(b: Build, out_name: &str) -> PathBuf {
    let out = out_dir().join(out_name);
    let mut cmd = Command::new(b.compiler);
    cmd.arg(format!("-std={}", b.std))
        .args(["-Wall", "-Wextra", "-Werror", "-g"])
        .arg("-I")
        .arg(root().join("include"))
        .arg("-I")
        .arg(root().join("tests/c"))
        .arg("-I")
        .arg(root().join("bindings/cpp"));
    if b.with_mujoco {
        cmd.arg("-I").arg(env!("MJB_ENGINE_INCLUDE"));
    }
    cmd.args(&b.extra).args(&b.sources).arg("-o").arg(&out);
    cmd.arg("-L").arg(lib_dir()).arg("-lmjbridge");
    cmd.arg(format!("-Wl,-rpath,{}", lib_dir().display()));
    if b.with_mujoco {
        let lib = Path::new(env!("MJB_ENGINE_LIBRARY"));
        cmd.arg(lib);
        cmd.arg(format!("-Wl,-rpath,{}", lib.parent().unwrap().display()));
    }
    let o = cmd.output().expect("run compiler");
    assert!(
        o.status.success(),
        "compiling {out_name} failed: {cmd:?}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

/// Run a host program; assert it exits 0; return its stdout.
pub fn run(exe: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let o = Command::new(exe)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("run host program");
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    print!("{stdout}");
    eprint!("{stderr}");
    assert!(
        o.status.success(),
        "{} failed: {:?}\n{stderr}",
        exe.display(),
        o.status
    );
    stdout
}

/// What the bindings' Python venv (`py-venv`: tests/docs.rs, tests/install.rs) holds.
pub const PY_VENV_PACKAGES: &str = "pytest numpy setuptools>=77 wheel mypy";

/// Where a test keeps a Python venv made from `pins` (the text of the requirements it
/// installs): `$MJB_VENV_DIR/NAME-<12 hex digits of the pins' SHA-256>` when the venv cache of
/// scripts/ci_lib.sh is set (so a fresh clone on the same machine reuses it, and two pin sets
/// never overwrite each other), else `target/NAME` (a plain `cargo test`).
pub fn venv_dir(name: &str, pins: &[u8]) -> PathBuf {
    use sha2::{Digest, Sha256};
    match std::env::var_os("MJB_VENV_DIR") {
        Some(cache) if !cache.is_empty() => {
            let hex: String = Sha256::digest(pins)
                .iter()
                .take(6)
                .map(|b| format!("{b:02x}"))
                .collect();
            PathBuf::from(cache).join(format!("{name}-{hex}"))
        }
        _ => root().join("target").join(name),
    }
}

/// The bindings' venv (`py-venv`, shared by tests/docs.rs, tests/bindings_engine.rs and
/// tests/install.rs), made if it is not there and given `packages` by pip when `import
/// {imports}` fails in it; None (after saying so) without a python3.
pub fn py_venv(imports: &str, packages: &[&str]) -> Option<PathBuf> {
    let system = tool("PYTHON", "python3")?;
    let dir = venv_dir("py-venv", PY_VENV_PACKAGES.as_bytes());
    let py = dir.join("bin/python");
    let run = |cmd: &mut Command| {
        let o = cmd.output().unwrap_or_else(|e| panic!("run {cmd:?}: {e}"));
        assert!(
            o.status.success(),
            "{cmd:?}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    };
    if !py.is_file() {
        run(Command::new(&system).args(["-m", "venv"]).arg(&dir));
    }
    let has = Command::new(&py)
        .args(["-c", &format!("import {imports}")])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !has {
        run(Command::new(&py)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(packages));
    }
    Some(py)
}
