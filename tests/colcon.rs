//! The checkout as a package of a colcon workspace (`package.xml`, the top-level
//! `CMakeLists.txt`), the way ROS 2 users build it: colcon from PyPI (the pinned
//! `tests/colcon/requirements.txt`, with hashes, in a venv kept under the target folder), a
//! fresh workspace with the checkout under an unusual folder name and `examples/ros2_downstream`
//! beside it, then
//!
//! - `colcon build --cmake-args -DMUJOCO_DIR=<the suite's MuJoCo>`: the tree installed into
//!   `install/mjbridge` is the one `scripts/install.sh` installs (same files, same bytes), plus
//!   colcon's own setup files and hooks and nothing else; with `-DMJBRIDGE_BUNDLE_MUJOCO=ON` it
//!   is install.sh's bundled tree;
//! - `colcon test` and `colcon test-result --verbose` pass (the package's ctest builds and runs a
//!   host against the installed tree);
//! - in a shell started with an empty environment, `source install/setup.bash` is all the
//!   downstream program (found on PATH) needs to load the bridge and MuJoCo, and it continues
//!   bit-identically after a restore;
//! - cargo's target folder and the MuJoCo wheel cache default to the build folder, and the
//!   source folder gains no file; `MUJOCO_INCLUDE_DIR`/`MUJOCO_LIB_DIR` given as CMake
//!   arguments reach the build (a library folder without MuJoCo is refused, naming both, with
//!   nothing installed);
//! - colcon finds the two packages of the workspace, and only mjbridge in the checkout itself
//!   (a package's folder is not searched further, so `examples/ros2_downstream` inside it is
//!   not a second package).
//!
//! Cost: cargo's target folder is kept across runs (`-DMJBRIDGE_CARGO_TARGET_DIR`) and the
//! workspace has the same path each time (the copied sources keep their times), so a second
//! run rebuilds nothing. Runs with the default engine only (the pinned MuJoCo 4.0.0 wheel),
//! not in the engine-matrix runs of scripts/test.sh: each would be one more release build.

#[path = "common/toolchain.rs"]
mod toolchain;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use toolchain::{require_all, root, tool, venv_dir};

/// The checkout's folder name in the workspace: nothing like the package's name.
const CHECKOUT: &str = "bridge checkout-1";

struct Workspace {
    ws: PathBuf,
    venv_bin: PathBuf,
    cargo_target: PathBuf,
    mujoco_dir: PathBuf,
    /// Files of the source copy before the build (path -> modification time).
    source_before: BTreeMap<PathBuf, std::time::SystemTime>,
    /// `colcon list` in the workspace and in the checkout alone.
    list_ws: String,
    list_checkout: String,
    test: Output,
    test_result: Output,
    /// The reference trees: scripts/install.sh run by hand, as the colcon build ran it.
    reference: PathBuf,
    reference_bundled: PathBuf,
    /// The second colcon build, with -DMJBRIDGE_BUNDLE_MUJOCO=ON.
    bundled_install: PathBuf,
}

fn work() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("colcon")
}

/// The pinned wheel 4.0.0 of the default run (the other engines are not repeated here).
fn default_engine() -> bool {
    let source = env!("MJB_ENGINE_SOURCE");
    let default = source.starts_with("pinned wheel mujoco-core==4.0.0");
    if !default {
        eprintln!(
            "colcon: runs with the default engine only (this run: {source}); not repeated here"
        );
    }
    default
}

/// Missing tool or network: loud skip, or a failure with MJB_REQUIRE_ALL_TOOLCHAINS=1.
fn missing(what: &str) {
    let msg = format!("TOOLCHAIN MISSING: {what}; the colcon tests cannot run here");
    if require_all() {
        panic!("{msg} and MJB_REQUIRE_ALL_TOOLCHAINS=1");
    }
    eprintln!("\n!!!!!!!! {msg} — SKIPPED !!!!!!!!\n");
}

fn workspace() -> Option<&'static Workspace> {
    static WS: OnceLock<Option<Workspace>> = OnceLock::new();
    WS.get_or_init(setup).as_ref()
}

/// colcon in a venv, installed from the pinned requirements; kept while they are unchanged.
fn venv() -> Result<PathBuf, String> {
    let python = tool("PYTHON", "python3").ok_or("python3")?;
    let requirements = root().join("tests/colcon/requirements.txt");
    let pinned = std::fs::read(&requirements).map_err(|e| e.to_string())?;
    let dir = venv_dir("colcon-venv", &pinned);
    let stamp = dir.join("requirements.txt");
    if std::fs::read(&stamp).ok().as_ref() != Some(&pinned) {
        let _ = std::fs::remove_dir_all(&dir);
        let o = Command::new(&python)
            .args(["-m", "venv"])
            .arg(&dir)
            .output()
            .map_err(|e| e.to_string())?;
        if !o.status.success() {
            return Err(format!(
                "python3 -m venv (Debian: python3-venv): {}",
                String::from_utf8_lossy(&o.stderr)
            ));
        }
        let o = Command::new(dir.join("bin/python"))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--require-hashes",
                "--no-deps",
                "-r",
            ])
            .arg(&requirements)
            .output()
            .map_err(|e| e.to_string())?;
        if !o.status.success() {
            return Err(format!(
                "pip install -r tests/colcon/requirements.txt (PyPI reachable?): {}",
                String::from_utf8_lossy(&o.stderr)
            ));
        }
        std::fs::write(&stamp, &pinned).map_err(|e| e.to_string())?;
    }
    Ok(dir.join("bin"))
}

/// A command with a clean environment: PATH (colcon's venv first), HOME and the Rust
/// toolchain's homes, nothing of this test's cargo run.
fn clean(program: impl AsRef<std::ffi::OsStr>, venv_bin: &Path) -> Command {
    let mut c = Command::new(program);
    c.env_clear();
    let path = std::env::var("PATH").unwrap_or_default();
    c.env("PATH", format!("{}:{path}", venv_bin.display()));
    for var in [
        "HOME",
        "CARGO_HOME",
        "RUSTUP_HOME",
        "RUSTUP_TOOLCHAIN",
        "TMPDIR",
        "LANG",
    ] {
        if let Some(v) = std::env::var_os(var) {
            c.env(var, v);
        }
    }
    c
}

fn output(cmd: &mut Command) -> Output {
    let o = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    print!("{}", String::from_utf8_lossy(&o.stdout));
    eprint!("{}", String::from_utf8_lossy(&o.stderr));
    o
}

fn run(cmd: &mut Command) -> String {
    let o = output(cmd);
    assert!(
        o.status.success(),
        "{cmd:?} failed: {:?}\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The files git knows in the checkout (tracked, and new ones not ignored), copied with their
/// times (so cargo finds an unchanged source unchanged).
fn copy_checkout(to: &Path) {
    let list = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root())
        .output()
        .expect("git ls-files");
    assert!(list.status.success(), "git ls-files failed");
    std::fs::create_dir_all(to).unwrap();
    let files: Vec<&[u8]> = list
        .stdout
        .split(|b| *b == 0)
        .filter(|f| !f.is_empty())
        .filter(|f| {
            // Deleted in the work tree but still in the index.
            use std::os::unix::ffi::OsStrExt;
            root().join(std::ffi::OsStr::from_bytes(f)).exists()
        })
        .collect();
    for chunk in files.chunks(200) {
        let mut cp = Command::new("cp");
        cp.args(["-a", "--parents", "-t"]).arg(to);
        for f in chunk {
            use std::os::unix::ffi::OsStrExt;
            cp.arg(std::ffi::OsStr::from_bytes(f));
        }
        run(cp.current_dir(root()));
    }
}

/// Every file and symlink below `dir` (relative path -> mtime).
fn files(dir: &Path) -> BTreeMap<PathBuf, std::time::SystemTime> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let e = e.unwrap();
            let t = e.file_type().unwrap();
            if t.is_dir() {
                stack.push(e.path());
            } else {
                let m = std::fs::symlink_metadata(e.path()).unwrap();
                out.insert(
                    e.path().strip_prefix(dir).unwrap().to_path_buf(),
                    m.modified().unwrap(),
                );
            }
        }
    }
    out
}

fn colcon(w_bin: &Path, ws: &Path, args: &[&str]) -> Command {
    let mut c = clean(w_bin.join("colcon"), w_bin);
    c.args(args).current_dir(ws);
    c
}

fn setup() -> Option<Workspace> {
    if !default_engine() {
        return None;
    }
    tool("CMAKE", "cmake")?;
    tool("CC", "cc")?;
    let venv_bin = match venv() {
        Ok(b) => b,
        Err(e) => {
            missing(&e);
            return None;
        }
    };
    let work = work();
    let ws = work.join("ws");
    let _ = std::fs::remove_dir_all(&ws);
    let checkout = ws.join("src").join(CHECKOUT);
    copy_checkout(&checkout);
    run(Command::new("cp")
        .arg("-a")
        .arg(root().join("examples/ros2_downstream"))
        .arg(ws.join("src")));
    let list_ws = run(&mut colcon(&venv_bin, &ws, &["list"]));
    let list_checkout = run(&mut colcon(
        &venv_bin,
        &checkout,
        &["--log-base", "/dev/null", "list"],
    ));
    let source_before = files(&checkout);

    // The suite's MuJoCo: the pinned wheel's folder (include/ and the library).
    let include = Path::new(env!("MJB_ENGINE_INCLUDE"));
    let mujoco_dir = include.parent().unwrap().to_path_buf();
    let library = Path::new(env!("MJB_ENGINE_LIBRARY"));
    assert_eq!(
        library.parent(),
        Some(mujoco_dir.as_path()),
        "the wheel's library is not beside its include/"
    );
    let cargo_target = work.join("cargo");
    let cache = work.join("mujoco-cache");
    let common = [
        format!("-DMUJOCO_DIR={}", mujoco_dir.display()),
        format!("-DMJBRIDGE_CARGO_TARGET_DIR={}", cargo_target.display()),
        format!("-DMJBRIDGE_MUJOCO_CACHE={}", cache.display()),
    ];
    let mut build: Vec<&str> = vec![
        "build",
        "--event-handlers",
        "console_direct+",
        "--cmake-args",
    ];
    build.extend(common.iter().map(String::as_str));
    let start = std::time::Instant::now();
    run(&mut colcon(&venv_bin, &ws, &build));
    eprintln!("colcon build: {:.1} s", start.elapsed().as_secs_f64());

    let test = output(&mut colcon(
        &venv_bin,
        &ws,
        &["test", "--event-handlers", "console_direct+"],
    ));
    let test_result = output(&mut colcon(&venv_bin, &ws, &["test-result", "--verbose"]));

    // install.sh by hand, as the build ran it (same checkout, target folder and environment:
    // cargo finds everything up to date).
    let install_sh = |prefix: &Path, extra: &[&str]| {
        let _ = std::fs::remove_dir_all(prefix);
        let mut c = clean("bash", &venv_bin);
        c.arg(checkout.join("scripts/install.sh"))
            .arg("--prefix")
            .arg(prefix)
            .arg("--target-dir")
            .arg(&cargo_target)
            .args(extra)
            .env("MUJOCO_DIR", &mujoco_dir)
            .env("MJB_MUJOCO_CACHE", &cache);
        run(&mut c);
    };
    let reference = work.join("reference");
    install_sh(&reference, &[]);

    // The bundled variant: a second colcon build (own build, install and log folders, the
    // same cargo target folder: only the install differs).
    let licenses = library.parent().unwrap().parent().unwrap().join("licenses");
    let bundled_args = [
        "-DMJBRIDGE_BUNDLE_MUJOCO=ON".to_owned(),
        format!("-DMJBRIDGE_MUJOCO_LICENSES={}", licenses.display()),
    ];
    let mut build: Vec<&str> = vec![
        "--log-base",
        "log-bundled",
        "build",
        "--build-base",
        "build-bundled",
        "--install-base",
        "install-bundled",
        "--event-handlers",
        "console_direct+",
        "--cmake-args",
    ];
    build.extend(common.iter().map(String::as_str));
    build.extend(bundled_args.iter().map(String::as_str));
    run(&mut colcon(&venv_bin, &ws, &build));
    let reference_bundled = work.join("reference-bundled");
    let lic = licenses.to_string_lossy().into_owned();
    install_sh(
        &reference_bundled,
        &["--bundle-mujoco", "--mujoco-licenses", &lic],
    );

    Some(Workspace {
        bundled_install: ws.join("install-bundled/mjbridge"),
        ws,
        venv_bin,
        cargo_target,
        mujoco_dir,
        source_before,
        list_ws,
        list_checkout,
        test,
        test_result,
        reference,
        reference_bundled,
    })
}

/// colcon's own files in a package's install folder: its setup files and environment hooks.
fn colcon_file(p: &Path) -> bool {
    let s = p.to_string_lossy();
    let below = |folder: &str| {
        s.strip_prefix(folder)
            .is_some_and(|rest| !rest.contains('/'))
    };
    s == "share/colcon-core/packages/mjbridge"
        || below("share/mjbridge/package.")
        || below("share/mjbridge/hook/")
}

/// The colcon install equals install.sh's tree (same paths; same bytes or symlink targets)
/// plus colcon's files; returns those.
fn assert_same_tree(colcon: &Path, reference: &Path) -> Vec<PathBuf> {
    let got = files(colcon);
    let want = files(reference);
    assert!(
        want.len() > 10,
        "install.sh installed only {want:?} in {}",
        reference.display()
    );
    for p in want.keys() {
        assert!(
            got.contains_key(p),
            "{} is in install.sh's tree, not in colcon's {}",
            p.display(),
            colcon.display()
        );
        let (a, b) = (colcon.join(p), reference.join(p));
        if std::fs::symlink_metadata(&b)
            .unwrap()
            .file_type()
            .is_symlink()
        {
            assert_eq!(
                std::fs::read_link(&a).ok(),
                std::fs::read_link(&b).ok(),
                "{} links elsewhere",
                p.display()
            );
        } else {
            assert!(
                std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
                "{} differs from install.sh's",
                p.display()
            );
        }
    }
    let extra: Vec<PathBuf> = got
        .keys()
        .filter(|p| !want.contains_key(*p))
        .cloned()
        .collect();
    for p in &extra {
        assert!(
            colcon_file(p),
            "{} is in colcon's tree but not install.sh's, and is not a colcon setup file",
            p.display()
        );
    }
    extra
}

#[test]
fn colcon_build_installs_the_tree_install_sh_installs() {
    let Some(w) = workspace() else { return };
    let install = w.ws.join("install/mjbridge");
    let extra = assert_same_tree(&install, &w.reference);
    for p in [
        "bin/mjbridge",
        "include/mjbridge.h",
        "include/mjbridge.hpp",
        "lib/cmake/mjbridge/mjbridgeConfig.cmake",
        "lib/pkgconfig/mjbridge.pc",
        "lib/libmjbridge.so",
        "share/licenses/mjbridge/LICENSE",
        "share/licenses/mjbridge/THIRD_PARTY_NOTICES.md",
    ] {
        assert!(install.join(p).exists(), "install/mjbridge/{p} is missing");
    }
    let target = std::fs::read_to_string(install.join("share/mjbridge/TARGET")).unwrap();
    assert!(target.contains("mujoco_bundled=no"), "{target}");
    // colcon's hooks: CMAKE_PREFIX_PATH, LD_LIBRARY_PATH, PATH, PKG_CONFIG_PATH, and ours.
    for hook in [
        "cmake_prefix_path.dsv",
        "ld_library_path_lib.dsv",
        "path.dsv",
        "pkg_config_path.dsv",
        "mujoco_library_path.dsv",
    ] {
        let p = PathBuf::from("share/mjbridge/hook").join(hook);
        assert!(extra.contains(&p), "no {} in {extra:?}", p.display());
    }
    let hook = std::fs::read_to_string(install.join("share/mjbridge/hook/mujoco_library_path.dsv"))
        .unwrap();
    assert!(
        hook.contains(&format!(
            "prepend-non-duplicate;LD_LIBRARY_PATH;{}\n",
            w.mujoco_dir.display()
        )),
        "{hook}"
    );
    let package_dsv = std::fs::read_to_string(install.join("share/mjbridge/package.dsv")).unwrap();
    assert!(
        package_dsv.contains("source;share/mjbridge/hook/mujoco_library_path.dsv"),
        "colcon.pkg's hook is not in package.dsv (colcon-metadata):\n{package_dsv}"
    );
}

#[test]
fn colcon_build_with_bundled_mujoco_installs_install_sh_s_bundled_tree() {
    let Some(w) = workspace() else { return };
    assert_same_tree(&w.bundled_install, &w.reference_bundled);
    let mujoco = Path::new(env!("MJB_ENGINE_LIBRARY")).file_name().unwrap();
    assert!(w.bundled_install.join("lib").join(mujoco).is_file());
    assert!(w
        .bundled_install
        .join("share/licenses/mjbridge/mujoco/LICENSE")
        .is_file());
    let hook = std::fs::read_to_string(
        w.bundled_install
            .join("share/mjbridge/hook/mujoco_library_path.dsv"),
    )
    .unwrap();
    assert!(
        !hook.contains("LD_LIBRARY_PATH"),
        "a tree with MuJoCo in it needs no folder: {hook}"
    );
}

#[test]
fn colcon_test_passes_and_test_result_counts_the_ctest() {
    let Some(w) = workspace() else { return };
    assert!(w.test.status.success(), "colcon test failed");
    let out = String::from_utf8_lossy(&w.test.stdout);
    assert!(
        out.contains("continuation after restore is bit-identical (300 steps): yes"),
        "the ctest did not run the host:\n{out}"
    );
    let summary = String::from_utf8_lossy(&w.test_result.stdout);
    assert!(
        w.test_result.status.success(),
        "colcon test-result: {summary}"
    );
    assert!(
        summary.contains("Summary: 1 test, 0 errors, 0 failures, 0 skipped"),
        "{summary}"
    );
}

#[test]
fn downstream_runs_after_sourcing_setup_bash_in_an_empty_environment() {
    let Some(w) = workspace() else { return };
    let o = output(
        Command::new("env")
            .args(["-i", "bash", "--noprofile", "--norc", "-c"])
            .arg(
                "source install/setup.bash; set -eu; \
                 command -v mjbridge_downstream; mjbridge_downstream 100 250; \
                 mjbridge --version; pkg-config --modversion mjbridge; \
                 echo \"CMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH\"",
            )
            .current_dir(&w.ws),
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    let ws = w.ws.display();
    assert!(
        out.contains(&format!(
            "{ws}/install/mjbridge_downstream/bin/mjbridge_downstream"
        )),
        "{out}"
    );
    let version = env!("CARGO_PKG_VERSION");
    assert!(out.contains(&format!("mjbridge {version}\n")), "{out}");
    assert!(
        out.contains("continuation after restore is bit-identical (250 steps): yes"),
        "{out}"
    );
    assert!(out.contains(&format!("\n{version}\n")), "pkg-config: {out}");
    assert!(
        out.contains(&format!("{ws}/install/mjbridge")),
        "CMAKE_PREFIX_PATH: {out}"
    );
}

#[test]
fn colcon_finds_the_two_packages_and_only_mjbridge_in_the_checkout() {
    let Some(w) = workspace() else { return };
    let names = |list: &str| -> Vec<String> {
        list.lines()
            .map(|l| l.split('\t').take(3).collect::<Vec<_>>().join(" "))
            .collect()
    };
    assert_eq!(
        names(&w.list_ws),
        [
            format!("mjbridge src/{CHECKOUT} (ros.cmake)"),
            "mjbridge_downstream src/ros2_downstream (ros.cmake)".to_owned()
        ]
    );
    assert_eq!(names(&w.list_checkout), ["mjbridge . (ros.cmake)"]);
}

#[test]
fn build_output_stays_out_of_the_source_folder() {
    let Some(w) = workspace() else { return };
    let checkout = w.ws.join("src").join(CHECKOUT);
    assert_eq!(
        files(&checkout),
        w.source_before,
        "the build added or changed files in the source folder"
    );
    // cargo's output went to the folder the build was given (<triple>/release/).
    let built = std::fs::read_dir(&w.cargo_target)
        .unwrap()
        .filter_map(Result::ok)
        .any(|e| e.path().join("release/libmjbridge.so").is_file());
    assert!(
        built,
        "no */release/libmjbridge.so in {}",
        w.cargo_target.display()
    );
    // The defaults, without the cache variables and MJB_MUJOCO_CACHE: both in the build folder.
    let build = work().join("configure-defaults");
    let _ = std::fs::remove_dir_all(&build);
    let mut c = clean("cmake", &w.venv_bin);
    c.arg("-S").arg(&checkout).arg("-B").arg(&build);
    run(&mut c);
    let cache = std::fs::read_to_string(build.join("CMakeCache.txt")).unwrap();
    for (var, dir) in [
        ("MJBRIDGE_CARGO_TARGET_DIR", "cargo"),
        ("MJBRIDGE_MUJOCO_CACHE", "mujoco-cache"),
    ] {
        let line = format!("{var}:PATH={}", build.join(dir).display());
        assert!(
            cache.lines().any(|l| l == line),
            "no `{line}` in CMakeCache.txt"
        );
    }
}

#[test]
fn include_and_lib_dirs_given_as_cmake_args_reach_the_build() {
    let Some(w) = workspace() else { return };
    let empty = work().join("no-mujoco-here");
    std::fs::create_dir_all(&empty).unwrap();
    let include = Path::new(env!("MJB_ENGINE_INCLUDE"));
    for d in ["build-pair", "install-pair", "log-pair"] {
        let _ = std::fs::remove_dir_all(w.ws.join(d));
    }
    let inc = format!("-DMUJOCO_INCLUDE_DIR={}", include.display());
    let lib = format!("-DMUJOCO_LIB_DIR={}", empty.display());
    // Its own cargo folder: the refused build script run must not touch the kept one.
    let target = format!(
        "-DMJBRIDGE_CARGO_TARGET_DIR={}",
        work().join("cargo-pair").display()
    );
    let o = output(&mut colcon(
        &w.venv_bin,
        &w.ws,
        &[
            "--log-base",
            "log-pair",
            "build",
            "--build-base",
            "build-pair",
            "--install-base",
            "install-pair",
            "--event-handlers",
            "console_direct+",
            "--cmake-args",
            &inc,
            &lib,
            &target,
        ],
    ));
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        !o.status.success(),
        "a library folder without MuJoCo was accepted"
    );
    assert!(
        all.contains(&format!(
            "MuJoCo from MUJOCO_INCLUDE_DIR/MUJOCO_LIB_DIR (headers {}, library folder {})",
            include.display(),
            empty.display()
        )),
        "the refusal does not name both folders:\n{all}"
    );
    let installed = w.ws.join("install-pair/mjbridge");
    assert!(
        !installed.join("lib").exists() && !installed.join("bin").exists(),
        "a refused build installed something"
    );
    assert!(!w.ws.join("install-pair/mjbridge_downstream").exists());
}
