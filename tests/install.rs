//! The installed library, tested the way its users meet it: `scripts/install.sh` into a
//! temporary prefix, the build output it came from (target folder and MuJoCo wheel cache)
//! deleted and the prefix moved elsewhere, then real consumers configured, built and run against
//! the moved install: CMake `find_package` with C++17 and the RAII header, a C program with
//! `pkg-config`, the static CMake target, the C# binding on Mono, the Python binding installed
//! with pip and run by pytest, and the three examples. The Python wheel that carries the
//! library (`scripts/python_wheel.sh`, built from the same build folder) is installed into a
//! fresh venv with nothing else and run there; mypy checks the binding's type hints.

#[path = "common/toolchain.rs"]
mod toolchain;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use toolchain::{root, tool, venv_dir, PY_VENV_PACKAGES};

struct Installed {
    /// Where the tree lives after the move.
    prefix: PathBuf,
    /// The folder it was installed to before the move (must appear nowhere in it).
    staged: PathBuf,
    version: String,
    /// `libmujoco.so.X.Y.Z`
    mujoco_file: String,
    bundled: bool,
    /// Scratch space of this test binary (outside the prefix).
    work: PathBuf,
    /// The wheel `scripts/python_wheel.sh` made (None without Python).
    wheel: Option<PathBuf>,
    /// The further runs of install.sh on the same build that find MuJoCo's license texts or
    /// refuse to bundle without them.
    licenses: LicenseRuns,
}

struct LicenseRuns {
    /// `--bundle-mujoco --mujoco-licenses DIR` (DIR: `texts`): the tree carries DIR's files.
    explicit: PathBuf,
    texts: PathBuf,
    /// `--bundle-mujoco --mujoco-licenses EMPTY`: refused, nothing installed.
    refused: PathBuf,
    refusal: std::process::Output,
    /// Debian's libmujoco bundled (the 2.2.2 run): its copyright file found by itself.
    distro: Option<PathBuf>,
}

impl Installed {
    fn lib(&self) -> PathBuf {
        self.prefix.join("lib")
    }
}

fn installed() -> &'static Installed {
    static INSTALLED: OnceLock<Result<Installed, String>> = OnceLock::new();
    match INSTALLED.get_or_init(install) {
        Ok(i) => i,
        Err(e) => panic!("install failed: {e}"),
    }
}

/// Run `scripts/install.sh` on a private copy of the MuJoCo it needs, then delete the build
/// output and move the installed tree.
fn install() -> Result<Installed, String> {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("install");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let build = work.join("build");
    let staged = work.join("staged");
    let prefix = work.join("moved").join("prefix");

    let library = Path::new(env!("MJB_ENGINE_LIBRARY"));
    let mujoco_file = library.file_name().unwrap().to_string_lossy().into_owned();
    let from_wheel = env!("MJB_ENGINE_SOURCE").starts_with("pinned wheel");
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("scripts/install.sh"))
        .arg("--prefix")
        .arg(&staged)
        .arg("--target-dir")
        .arg(&build)
        .env_remove("CARGO_TARGET_DIR");
    // The wheel's cache (shared with the rest of the suite) is copied, so the copy can be
    // deleted with the build output. Other sources (MUJOCO_*, pkg-config) are installations of
    // their own and come through the environment this test runs in.
    let cache = work.join("mujoco-cache");
    if from_wheel {
        let version_dir = library.parent().and_then(Path::parent).unwrap();
        let copy = cache.join(version_dir.file_name().unwrap());
        copy_dir(&version_dir.join("mujoco"), &copy.join("mujoco"))?;
        // MuJoCo's license texts with their stamp, so the copy needs no wheel either.
        copy_dir(&version_dir.join("licenses"), &copy.join("licenses"))?;
        for stamp in ["extracted.sha256", "licenses.sha256"] {
            std::fs::copy(version_dir.join(stamp), copy.join(stamp))
                .map_err(|e| format!("wheel cache stamp {stamp}: {e}"))?;
        }
        cmd.env("MJB_MUJOCO_CACHE", &cache);
    }
    let out = cmd.output().map_err(|e| e.to_string())?;
    print!("{}", String::from_utf8_lossy(&out.stdout));
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        return Err(format!("scripts/install.sh: {:?}", out.status));
    }

    // The license rules, on the same build (cargo finds it up to date): texts named by
    // --mujoco-licenses, a refusal without them, and Debian's copyright file by itself.
    let again = |prefix: &Path, extra: &[&std::ffi::OsStr]| {
        let mut c = Command::new("bash");
        c.arg(root().join("scripts/install.sh"))
            .arg("--prefix")
            .arg(prefix)
            .arg("--target-dir")
            .arg(&build)
            .args(extra)
            .env_remove("CARGO_TARGET_DIR");
        if from_wheel {
            c.env("MJB_MUJOCO_CACHE", &cache);
        }
        c.output().map_err(|e| e.to_string())
    };
    let texts = work.join("mujoco-texts");
    std::fs::create_dir_all(&texts).map_err(|e| e.to_string())?;
    std::fs::write(
        texts.join("LICENSE"),
        "MuJoCo's license, as the user names it\n",
    )
    .map_err(|e| e.to_string())?;
    std::fs::write(
        texts.join("LICENSES_THIRD_PARTY.md"),
        "MuJoCo's third parties, as the user names them\n",
    )
    .map_err(|e| e.to_string())?;
    let explicit = work.join("explicit");
    let o = again(
        &explicit,
        &[
            "--bundle-mujoco".as_ref(),
            "--mujoco-licenses".as_ref(),
            texts.as_os_str(),
        ],
    )?;
    if !o.status.success() {
        return Err(format!(
            "install.sh --mujoco-licenses: {:?}\n{}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    let empty = work.join("no-texts");
    std::fs::create_dir_all(&empty).map_err(|e| e.to_string())?;
    let refused = work.join("refused");
    let refusal = again(
        &refused,
        &[
            "--bundle-mujoco".as_ref(),
            "--mujoco-licenses".as_ref(),
            empty.as_os_str(),
        ],
    )?;
    let distro = if library.starts_with("/usr/lib") {
        let p = work.join("distro");
        let o = again(&p, &["--bundle-mujoco".as_ref()])?;
        if !o.status.success() {
            return Err(format!(
                "install.sh --bundle-mujoco of {}: {:?}\n{}",
                library.display(),
                o.status,
                String::from_utf8_lossy(&o.stderr)
            ));
        }
        Some(p)
    } else {
        None
    };
    let licenses = LicenseRuns {
        explicit,
        texts,
        refused,
        refusal,
        distro,
    };

    // The wheel, from the same build folder (install.sh finds it up to date), before the build
    // output goes away.
    let wheel = match venv() {
        Some(py) => {
            let dir = work.join("wheel");
            let mut w = Command::new("bash");
            w.arg(root().join("scripts/python_wheel.sh"))
                .arg(&dir)
                .arg("--target-dir")
                .arg(&build)
                .env_remove("CARGO_TARGET_DIR")
                .env("PYTHON", &py);
            if from_wheel {
                w.env("MJB_MUJOCO_CACHE", &cache);
            } else {
                // A system MuJoCo (Debian's) needs libraries outside the manylinux set: the
                // wheel is for this machine only.
                w.arg("--local");
            }
            let out = w.output().map_err(|e| e.to_string())?;
            print!("{}", String::from_utf8_lossy(&out.stdout));
            eprint!("{}", String::from_utf8_lossy(&out.stderr));
            if !out.status.success() {
                return Err(format!("scripts/python_wheel.sh: {:?}", out.status));
            }
            let found = std::fs::read_dir(&dir)
                .map_err(|e| e.to_string())?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .find(|p| p.extension().is_some_and(|x| x == "whl"))
                .ok_or("python_wheel.sh made no .whl")?;
            Some(found)
        }
        None => None,
    };

    // The build output goes away, and the tree moves: nothing may still point at either.
    std::fs::remove_dir_all(&build).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&cache);
    std::fs::create_dir_all(prefix.parent().unwrap()).map_err(|e| e.to_string())?;
    std::fs::rename(&staged, &prefix).map_err(|e| e.to_string())?;
    Ok(Installed {
        prefix,
        staged,
        version: env!("CARGO_PKG_VERSION").to_owned(),
        mujoco_file,
        bundled: from_wheel,
        work,
        wheel,
        licenses,
    })
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| e.to_string())?;
    for entry in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let target = to.join(entry.file_name());
        if entry.file_type().map_err(|e| e.to_string())?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// Run a command; assert it succeeds; return its stdout.
fn run(cmd: &mut Command) -> String {
    let o = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    print!("{stdout}");
    eprint!("{stderr}");
    assert!(
        o.status.success(),
        "{cmd:?} failed: {:?}\n{stderr}",
        o.status
    );
    stdout
}

fn model(name: &str) -> String {
    root()
        .join("tests/models")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// `readelf -d` of a file: (tag, value) pairs.
fn dynamic(readelf: &Path, file: &Path) -> Vec<(String, String)> {
    let text = run(Command::new(readelf).arg("-d").arg(file));
    text.lines()
        .filter_map(|l| {
            let tag = &l[l.find('(')? + 1..l.find(')')?];
            let value = &l[l.find('[')? + 1..l.rfind(']')?];
            Some((tag.to_owned(), value.to_owned()))
        })
        .collect()
}

fn tag<'a>(dyn_: &'a [(String, String)], name: &str) -> Vec<&'a str> {
    dyn_.iter()
        .filter(|(t, _)| t == name)
        .map(|(_, v)| v.as_str())
        .collect()
}

/// A CMake project: configure against the install, build, return the build folder.
fn cmake_build(cmake: &Path, source: &Path, name: &str, prefix: &Path) -> PathBuf {
    let build = installed().work.join("cmake").join(name);
    let _ = std::fs::remove_dir_all(&build);
    run(Command::new(cmake)
        .arg("-S")
        .arg(source)
        .arg("-B")
        .arg(&build)
        .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display())));
    run(Command::new(cmake).arg("--build").arg(&build));
    build
}

#[test]
fn installed_tree_has_soname_symlinks_and_no_build_machine_paths() {
    let Some(readelf) = tool("READELF", "readelf") else {
        return;
    };
    let i = installed();
    let lib = i.lib();
    let real = format!("libmjbridge.so.{}", i.version);
    let major = env!("CARGO_PKG_VERSION_MAJOR");
    for f in [
        "include/mjbridge.h",
        "include/mjbridge.hpp",
        "lib/libmjbridge.a",
        "lib/pkgconfig/mjbridge.pc",
        "lib/cmake/mjbridge/mjbridgeConfig.cmake",
        "lib/cmake/mjbridge/mjbridgeConfigVersion.cmake",
        "share/mjbridge/csharp/MjBridge.cs",
    ] {
        assert!(i.prefix.join(f).is_file(), "{f} is not installed");
    }
    for (installed, source) in [
        ("include/mjbridge.h", "include/mjbridge.h"),
        ("include/mjbridge.hpp", "bindings/cpp/mjbridge.hpp"),
    ] {
        assert_eq!(
            std::fs::read(i.prefix.join(installed)).unwrap(),
            std::fs::read(root().join(source)).unwrap(),
            "{installed} is not {source}"
        );
    }
    assert!(lib.join(&real).is_file());
    let so_major = format!("libmjbridge.so.{major}");
    assert_eq!(
        std::fs::read_link(lib.join(&so_major)).unwrap(),
        Path::new(&real)
    );
    assert_eq!(
        std::fs::read_link(lib.join("libmjbridge.so")).unwrap(),
        Path::new(&so_major)
    );

    let d = dynamic(&readelf, &lib.join(&real));
    assert_eq!(tag(&d, "SONAME"), [so_major.as_str()], "{d:?}");
    assert_eq!(tag(&d, "RUNPATH"), ["$ORIGIN"], "{d:?}");
    assert!(tag(&d, "RPATH").is_empty(), "old-style RPATH: {d:?}");
    assert!(tag(&d, "NEEDED").contains(&i.mujoco_file.as_str()), "{d:?}");

    // Every shared object in the tree finds its dependencies inside the tree, or on the
    // system's own path: a RUNPATH is $ORIGIN-relative or absent.
    let mut objects = vec![lib.join(&real)];
    if i.bundled {
        objects.push(lib.join(&i.mujoco_file));
        let plugins = lib.join("mujoco_plugin");
        if plugins.is_dir() {
            for p in std::fs::read_dir(&plugins).unwrap() {
                objects.push(p.unwrap().path());
            }
        }
    } else {
        assert!(!lib.join(&i.mujoco_file).exists(), "MuJoCo bundled unasked");
    }
    let strict = tool("PATCHELF", "patchelf").is_some();
    for o in &objects {
        let d = dynamic(&readelf, o);
        for rp in tag(&d, "RUNPATH").iter().chain(tag(&d, "RPATH").iter()) {
            let inside = rp.split(':').all(|e| e.starts_with("$ORIGIN"));
            if !inside && !strict && o.parent().unwrap().ends_with("mujoco_plugin") {
                eprintln!(
                    "!!!!!!!! patchelf missing: {} keeps RUNPATH {rp} !!!!!!!!",
                    o.display()
                );
                continue;
            }
            assert!(inside, "{} has RUNPATH {rp}", o.display());
        }
    }

    // The package files name no folder of the build machine, nor where the tree was installed
    // before it moved.
    let repo = root().to_string_lossy().into_owned();
    let staged = i.staged.to_string_lossy().into_owned();
    for f in [
        "lib/pkgconfig/mjbridge.pc",
        "lib/cmake/mjbridge/mjbridgeConfig.cmake",
        "lib/cmake/mjbridge/mjbridgeConfigVersion.cmake",
    ] {
        let text = std::fs::read_to_string(i.prefix.join(f)).unwrap();
        assert!(!text.contains(&repo), "{f} names the source tree {repo}");
        assert!(
            !text.contains(&staged),
            "{f} names the install folder {staged}"
        );
        assert!(!text.contains("mujoco-cache"), "{f} names a wheel cache");
    }
}

/// The license texts every tree carries (share/licenses/mjbridge/): the bridge's LICENSE and
/// THIRD_PARTY_NOTICES.md, and with MuJoCo bundled MuJoCo's own, each the very file it was
/// copied from.
fn assert_license_texts(prefix: &Path, mujoco: Option<&Path>, names: &[&str]) {
    let dir = prefix.join("share/licenses/mjbridge");
    for f in ["LICENSE", "THIRD_PARTY_NOTICES.md"] {
        let installed =
            std::fs::read(dir.join(f)).unwrap_or_else(|e| panic!("{}: {f}: {e}", prefix.display()));
        assert!(!installed.is_empty(), "{f} is empty");
        assert_eq!(
            installed,
            std::fs::read(root().join(f)).unwrap(),
            "{f} is not the repository's"
        );
    }
    match mujoco {
        Some(source) => {
            let mut listed: Vec<String> = std::fs::read_dir(dir.join("mujoco"))
                .unwrap_or_else(|e| panic!("{}: no MuJoCo license texts: {e}", prefix.display()))
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            listed.sort();
            assert_eq!(listed, names, "{}", prefix.display());
            for f in names {
                let installed = std::fs::read(dir.join("mujoco").join(f)).unwrap();
                assert!(!installed.is_empty(), "mujoco/{f} is empty");
                assert_eq!(
                    installed,
                    std::fs::read(source.join(f)).unwrap(),
                    "mujoco/{f} is not {}",
                    source.join(f).display()
                );
            }
        }
        None => assert!(
            !dir.join("mujoco").exists(),
            "MuJoCo's license texts in a tree without MuJoCo"
        ),
    }
}

/// The folder build.rs took MuJoCo's license texts into (the pinned wheel), or None.
fn wheel_licenses() -> Option<&'static Path> {
    Some(Path::new(env!("MJB_ENGINE_LICENSES"))).filter(|p| !p.as_os_str().is_empty())
}

#[test]
fn installed_tree_carries_the_license_texts() {
    let i = installed();
    let texts = if i.bundled {
        let dir = wheel_licenses().expect("a bundled wheel MuJoCo has its license folder");
        let license = std::fs::read_to_string(dir.join("LICENSE")).unwrap();
        assert!(license.contains("Apache License") && license.contains("Version 2.0"));
        Some(dir)
    } else {
        None
    };
    assert_license_texts(&i.prefix, texts, &["LICENSE", "LICENSES_THIRD_PARTY.md"]);
}

/// MuJoCo's license texts are found where its source keeps them, or named with
/// --mujoco-licenses; without them a tree that would carry MuJoCo is refused, and nothing is
/// installed.
#[test]
fn install_bundles_mujoco_only_with_its_license_texts() {
    let i = installed();
    let runs = &i.licenses;
    assert_license_texts(
        &runs.explicit,
        Some(&runs.texts),
        &["LICENSE", "LICENSES_THIRD_PARTY.md"],
    );
    assert!(runs.explicit.join("lib").join(&i.mujoco_file).is_file());

    let stderr = String::from_utf8_lossy(&runs.refusal.stderr);
    assert!(
        !runs.refusal.status.success(),
        "bundled without license texts"
    );
    assert!(
        stderr.contains("would be bundled without its license texts")
            && stderr.contains("--mujoco-licenses"),
        "{stderr}"
    );
    assert!(
        !runs.refused.exists(),
        "a refused install left {}",
        runs.refused.display()
    );

    if let Some(distro) = &runs.distro {
        let version = i.mujoco_file.trim_start_matches("libmujoco.so.");
        let doc = PathBuf::from(format!("/usr/share/doc/libmujoco{version}"));
        assert_license_texts(distro, Some(&doc), &["copyright"]);
        assert!(distro.join("lib").join(&i.mujoco_file).is_file());
    }
}

#[test]
fn pkg_config_c_consumer_builds_and_runs_against_the_moved_install() {
    let (Some(pkg_config), Some(cc)) = (tool("PKG_CONFIG", "pkg-config"), tool("CC", "cc")) else {
        return;
    };
    let i = installed();
    let pc = |args: &[&str]| {
        run(Command::new(&pkg_config)
            .args(args)
            .arg("mjbridge")
            .env("PKG_CONFIG_PATH", i.lib().join("pkgconfig")))
        .trim()
        .to_owned()
    };
    assert_eq!(pc(&["--modversion"]), i.version);
    let libdir = PathBuf::from(pc(&["--variable=libdir"]));
    assert_eq!(
        libdir.canonicalize().unwrap(),
        i.lib().canonicalize().unwrap()
    );
    let static_libs = pc(&["--static", "--libs"]);
    for want in [
        format!("-l:{}", i.mujoco_file),
        "-lm".into(),
        "-lpthread".into(),
        "-ldl".into(),
    ] {
        assert!(static_libs.contains(&want), "{want} missing: {static_libs}");
    }
    let flags = pc(&["--cflags", "--libs"]);
    let exe = i.work.join("consumer_pkgconfig");
    run(Command::new(&cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(root().join("tests/c"))
        .arg(root().join("tests/install/consumer.c"))
        .args(flags.split_whitespace())
        .arg(format!("-Wl,-rpath,{}", libdir.display()))
        .arg("-o")
        .arg(&exe));
    let out = run(Command::new(&exe).arg(model("pendulum.xml")));
    assert!(out.contains("consumer: all checks passed"), "{out}");
}

#[test]
fn cmake_cpp17_example_finds_mjbridge_0_1_and_runs() {
    let (Some(cmake), Some(readelf)) = (tool("CMAKE", "cmake"), tool("READELF", "readelf")) else {
        return;
    };
    let i = installed();
    let build = cmake_build(
        &cmake,
        &root().join("examples/cpp"),
        "example-cpp",
        &i.prefix,
    );
    let exe = build.join("mjbridge_example");
    let d = dynamic(&readelf, &exe);
    assert!(tag(&d, "NEEDED").contains(&"libmjbridge.so.0"), "{d:?}");
    let out = run(&mut Command::new(&exe));
    for want in [
        "restored: tick 150 -> 100",
        "MJB_REASON_SEED",
        "stop latched from another thread",
        "example-cpp: done",
    ] {
        assert!(out.contains(want), "{want:?} missing:\n{out}");
    }
    // The planner pattern: K rollouts from one restore point, the best replayed bit for bit.
    let out = run(&mut Command::new(build.join("mjbridge_planner")));
    for want in [
        "planner-cpp: 16 rollouts of 50 steps from tick 20; best rollout",
        "the same bit for bit",
        "planner-cpp: acted from tick 20 to 21",
        "planner-cpp: done",
    ] {
        assert!(out.contains(want), "{want:?} missing:\n{out}");
    }
    estop_export_example_writes_a_recording_that_replays(&build.join("mjbridge_estop_export"));
}

/// examples/cpp/estop_export.cpp: a control loop thread steps with a ten-second history, a
/// second thread latches the stop, the node exports the window to a file. The file is a
/// recording ending at the stop's tick, and the installed `mjbridge replay` verifies it. On an
/// engine with the basic profile only, the history is refused at open (and the example fails
/// naming `/history`).
fn estop_export_example_writes_a_recording_that_replays(exe: &Path) {
    let i = installed();
    let model = root().join("examples/models/cart_pole.xml");
    let file = i.work.join("estop-recording.json");
    let _ = std::fs::remove_file(&file);
    if !cfg!(mjb_integration) {
        let o = Command::new(exe).arg(&model).arg(&file).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains("/history"), "{err}");
        assert!(!file.exists());
        return;
    }
    let out = run(Command::new(exe).arg(&model).arg(&file).arg("7000"));
    assert!(
        out.contains("history window 5000 ticks (10 s at dt 0.002)"),
        "{out}"
    );
    assert!(out.contains("estop-cpp: done"), "{out}");
    let stopped: u64 = out
        .split("stopped at tick ")
        .nth(1)
        .and_then(|s| s.split(';').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no stop tick in:\n{out}"));
    assert!(stopped >= 7000, "{out}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.starts_with("{\"recording\":"),
        "{}",
        &text[..200.min(text.len())]
    );
    assert!(text.contains("\"mjbridge_recording_v1\""));
    let end = format!("\"end_tick\":{stopped}");
    let at = text
        .find(&end)
        .unwrap_or_else(|| panic!("no {end} in the recording"));
    assert!(
        !text.as_bytes()[at + end.len()].is_ascii_digit(),
        "{end}: a longer number"
    );
    let replay = run(Command::new(i.prefix.join("bin/mjbridge"))
        .arg("replay")
        .arg(&file)
        .arg("--model")
        .arg(&model));
    assert!(
        replay.starts_with("verified ticks ") && replay.contains(&format!("..={stopped} (")),
        "{replay}"
    );
}

#[test]
fn cmake_static_target_links_the_archive_and_runs() {
    let (Some(cmake), Some(readelf)) = (tool("CMAKE", "cmake"), tool("READELF", "readelf")) else {
        return;
    };
    let i = installed();
    let build = cmake_build(
        &cmake,
        &root().join("tests/install/c_static"),
        "c-static",
        &i.prefix,
    );
    let exe = build.join("consumer_static");
    let d = dynamic(&readelf, &exe);
    let needed = tag(&d, "NEEDED");
    assert!(
        !needed.iter().any(|n| n.starts_with("libmjbridge")),
        "{needed:?}"
    );
    assert!(needed.contains(&i.mujoco_file.as_str()), "{needed:?}");
    let out = run(Command::new(&exe).arg(model("pendulum.xml")));
    assert!(out.contains("consumer: all checks passed"), "{out}");
}

#[test]
fn cmake_package_refuses_an_incompatible_version_request() {
    let Some(cmake) = tool("CMAKE", "cmake") else {
        return;
    };
    let i = installed();
    for (request, ok) in [
        ("0.1", true),
        (env!("CARGO_PKG_VERSION"), true),
        ("0.1...0.5", true),
        ("0.99", false),
        ("1.0", false),
        ("0.1...<0.2", false),
    ] {
        let dir = i
            .work
            .join("cmake-version")
            .join(request.replace(['.', '<'], "_"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("CMakeLists.txt"),
            format!(
                "cmake_minimum_required(VERSION 3.19)\nproject(v LANGUAGES NONE)\n\
                 find_package(mjbridge {request} REQUIRED)\n\
                 message(STATUS \"mjbridge ${{mjbridge_VERSION}} bundled=${{mjbridge_MUJOCO_BUNDLED}}\")\n"
            ),
        )
        .unwrap();
        let o = Command::new(&cmake)
            .arg("-S")
            .arg(&dir)
            .arg("-B")
            .arg(dir.join("build"))
            .arg(format!("-DCMAKE_PREFIX_PATH={}", i.prefix.display()))
            .output()
            .unwrap();
        let text =
            String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
        assert_eq!(
            o.status.success(),
            ok,
            "find_package(mjbridge {request}):\n{text}"
        );
        if ok {
            assert!(text.contains(&format!("mjbridge {}", i.version)), "{text}");
        }
    }
}

/// Compile C# sources (the installed MjBridge.cs plus `extra`) with mcs.
fn mcs(out: &Path, extra: &[PathBuf]) -> Option<PathBuf> {
    let mcs = tool("MCS", "mcs")?;
    let i = installed();
    run(Command::new(mcs)
        .arg(format!("-out:{}", out.display()))
        .args(["-warn:4", "-warnaserror+"])
        .arg(i.prefix.join("share/mjbridge/csharp/MjBridge.cs"))
        .args(extra));
    Some(out.to_owned())
}

#[test]
fn csharp_binding_tests_pass_on_mono_against_the_install() {
    let Some(mono) = tool("MONO", "mono") else {
        return;
    };
    let i = installed();
    let dir = i.work.join("csharp-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let Some(exe) = mcs(
        &dir.join("tests.exe"),
        &[root().join("bindings/csharp/tests/Tests.cs")],
    ) else {
        return;
    };
    let out = run(Command::new(mono)
        .arg("--debug")
        .arg(&exe)
        .arg(root().join("tests/models"))
        .env("LD_LIBRARY_PATH", i.lib()));
    assert!(out.contains(" passed, 0 failed"), "{out}");
    assert!(!out.contains("FAIL"), "{out}");
}

/// Unity loads `Assets/Plugins/x86_64/libmjbridge.so` next to the managed code, without
/// LD_LIBRARY_PATH: the example runs from such a flat folder, MuJoCo bundled beside it.
#[test]
fn csharp_example_runs_from_a_unity_style_plugin_folder() {
    let Some(mono) = tool("MONO", "mono") else {
        return;
    };
    let i = installed();
    let plugins = i.work.join("unity").join("Plugins").join("x86_64");
    let _ = std::fs::remove_dir_all(&plugins);
    std::fs::create_dir_all(&plugins).unwrap();
    let Some(exe) = mcs(
        &plugins.join("example.exe"),
        &[root().join("examples/csharp/Example.cs")],
    ) else {
        return;
    };
    // Unity's asset folders hold files, not symlinks: copy the real library under the plain name.
    std::fs::copy(
        i.lib().join("libmjbridge.so"),
        plugins.join("libmjbridge.so"),
    )
    .unwrap();
    if i.bundled {
        std::fs::copy(i.lib().join(&i.mujoco_file), plugins.join(&i.mujoco_file)).unwrap();
    }
    let out = run(Command::new(&mono)
        .arg(&exe)
        .current_dir(i.work.join("unity"))
        .env_remove("LD_LIBRARY_PATH"));
    for want in [
        "restored: tick 150 -> 100",
        "refused: Rejected Seed at /seed",
        "stop latched from another thread",
        "example-csharp: done",
    ] {
        assert!(out.contains(want), "{want:?} missing:\n{out}");
    }
    // The planner pattern: K rollouts from one restore point, the best replayed bit for bit.
    let Some(planner) = mcs(
        &plugins.join("planner.exe"),
        &[root().join("examples/csharp/Planner.cs")],
    ) else {
        return;
    };
    let out = run(Command::new(&mono)
        .arg(&planner)
        .current_dir(i.work.join("unity"))
        .env_remove("LD_LIBRARY_PATH"));
    for want in [
        "planner-csharp: 16 rollouts of 50 steps from tick 20; best rollout",
        "the same bit for bit",
        "planner-csharp: acted from tick 20 to 21",
        "planner-csharp: done",
    ] {
        assert!(out.contains(want), "{want:?} missing:\n{out}");
    }
    // The timeline scrub (examples/csharp/Scrub.cs): record, scrub with Rewind (each scrubbed
    // frame's checkpoint byte-identical to the one read when it was recorded), branch.
    let Some(scrub) = mcs(
        &plugins.join("scrub.exe"),
        &[root().join("examples/csharp/Scrub.cs")],
    ) else {
        return;
    };
    let mut cmd = Command::new(&mono);
    cmd.arg(&scrub)
        .current_dir(i.work.join("unity"))
        .env_remove("LD_LIBRARY_PATH");
    if !cfg!(mjb_integration) {
        // The basic profile only: a history is refused at open.
        let o = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && err.contains("Profile at /history"),
            "{err}"
        );
        return;
    }
    let out = run(&mut cmd);
    for want in [
        "scrub-csharp: recorded ticks 0..=300",
        "scrub-csharp: frame at tick 250 byte-identical",
        "scrub-csharp: frame at tick 0 byte-identical",
        "scrub-csharp: 10 of 10 scrubbed frames byte-identical",
        "scrub-csharp: branched at tick 100; timeline now 0..=120",
        "scrub-csharp: the old timeline's tick 250: OutOfRange (tick 250 is outside the history window 0..=120",
        "scrub-csharp: tick 100 on the branch differs from the recording",
        "scrub-csharp: done",
    ] {
        assert!(out.contains(want), "{want:?} missing:\n{out}");
    }
    assert!(!out.contains("DIFFERS"), "{out}");
}

/// A venv with pytest and numpy, and the binding installed into it by pip from
/// `bindings/python`, as a user installs it. The venv is kept in the repository's `target/`
/// (shared by the engine runs of scripts/test.sh, which run one after the other), so pytest and
/// numpy are fetched once.
fn venv() -> Option<PathBuf> {
    static VENV: OnceLock<Option<PathBuf>> = OnceLock::new();
    VENV.get_or_init(|| {
        let python = tool("PYTHON", "python3")?;
        let dir = venv_dir("py-venv", PY_VENV_PACKAGES.as_bytes());
        let py = dir.join("bin/python");
        if !py.is_file() {
            run(Command::new(&python).args(["-m", "venv"]).arg(&dir));
        }
        let has = |m: &str| {
            Command::new(&py)
                .args(["-c", &format!("import {m}")])
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        // setuptools 77 or newer: the first with metadata 2.4's license files (pyproject's
        // `license-files`); a venv made by Python 3.11 starts with an older one.
        let setuptools_77 = Command::new(&py)
            .args([
                "-c",
                "import setuptools, sys; sys.exit(int(setuptools.__version__.split('.')[0]) < 77)",
            ])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !setuptools_77 || !["pytest", "numpy", "wheel", "mypy"].iter().all(|m| has(m)) {
            run(Command::new(&py).args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "pytest",
                "numpy",
                "setuptools>=77",
                "wheel",
                "mypy",
            ]));
        }
        // From a copy: setuptools writes build/ and *.egg-info into the folder it builds.
        let source = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("py-source");
        let _ = std::fs::remove_dir_all(&source);
        copy_dir(&root().join("bindings/python"), &source).unwrap();
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

#[test]
fn python_binding_passes_pytest_installed_with_pip_against_the_install() {
    let Some(py) = venv() else {
        return;
    };
    let i = installed();
    let out = run(Command::new(&py)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(root().join("bindings/python/tests"))
        .current_dir(&i.work)
        .env("MJBRIDGE_LIB", i.lib())
        .env("MJB_TEST_MODELS", root().join("tests/models"))
        .env("MJB_TEST_EXPECT_INSTALLED", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1"));
    assert!(out.contains(" passed"), "{out}");
    assert!(!out.contains("skipped"), "a test was skipped:\n{out}");
}

/// Without MJBRIDGE_LIB the binding finds the library of an installed prefix through pkg-config.
#[test]
fn python_binding_finds_an_installed_prefix_through_pkg_config() {
    let (Some(py), Some(_)) = (venv(), tool("PKG_CONFIG", "pkg-config")) else {
        return;
    };
    let i = installed();
    let out = run(Command::new(&py)
        .args([
            "-c",
            "import os, mjbridge, mjbridge._native as n; print(mjbridge.version()); \
             print(n.candidates()); print(os.path.realpath(mjbridge.library()._name))",
        ])
        .current_dir(&i.work)
        .env_remove("MJBRIDGE_LIB")
        .env_remove("MJBRIDGE_PREFIX")
        .env_remove("LD_LIBRARY_PATH")
        .env("PKG_CONFIG_PATH", i.lib().join("pkgconfig")));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], i.version, "{out}");
    assert!(lines[1].contains("'pkg-config'"), "{out}");
    let real = i.lib().join(format!("libmjbridge.so.{}", i.version));
    assert_eq!(Path::new(lines[2]), real.canonicalize().unwrap(), "{out}");
}

#[test]
fn python_example_runs_against_the_install() {
    let Some(py) = venv() else {
        return;
    };
    let i = installed();
    let out = run(Command::new(&py)
        .arg(root().join("examples/python/example.py"))
        .current_dir(&i.work)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("MJBRIDGE_LIB", i.lib()));
    for want in [
        "restored: tick 150 -> 100",
        "refused: REJECTED SEED /seed",
        "stop latched from another thread",
        "example-python: done",
    ] {
        assert!(out.contains(want), "{want:?} missing:\n{out}");
    }
    // The planner pattern: K rollouts from one restore point, the best replayed bit for bit.
    let out = run(Command::new(&py)
        .arg(root().join("examples/python/planner.py"))
        .current_dir(&i.work)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("MJBRIDGE_LIB", i.lib()));
    for want in [
        "planner-python: 16 rollouts of 50 steps from tick 20; best rollout",
        "the same bit for bit",
        "planner-python: acted from tick 20 to 21",
        "planner-python: done",
    ] {
        assert!(out.contains(want), "{want:?} missing:\n{out}");
    }
}

/// `pip install mjbridge-….whl` into a fresh venv, with nothing else installed and nothing in
/// the environment pointing at a library: the binding loads the library it carries, which finds
/// the MuJoCo it carries; MuJoCo's plugins load from the bundled folder; the example and the
/// typed smoke host run; the package is found with its py.typed by mypy.
#[test]
fn python_wheel_carries_the_library_and_runs_in_a_fresh_venv() {
    let (Some(test_py), Some(python)) = (venv(), tool("PYTHON", "python3")) else {
        return;
    };
    let i = installed();
    let wheel = i.wheel.as_ref().expect("the wheel was built");
    let name = wheel.file_name().unwrap().to_string_lossy().into_owned();
    // The manylinux tag auditwheel derives (tests/python_wheels.rs checks it); a wheel that
    // bundles a system MuJoCo is linux_ (`--local`).
    let platform = if i.bundled { "manylinux_2_" } else { "linux_" };
    assert!(
        name.starts_with(&format!("mjbridge-{}-py3-none-{platform}", i.version))
            && name.ends_with(&format!("_{}.whl", std::env::consts::ARCH)),
        "{name}"
    );
    let fresh = i.work.join("wheel-venv");
    let _ = std::fs::remove_dir_all(&fresh);
    run(Command::new(&python).args(["-m", "venv"]).arg(&fresh));
    let py = fresh.join("bin/python");
    run(Command::new(&py)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-index",
        ])
        .arg(wheel));
    // Nothing but the wheel (and pip itself) in the venv.
    let listed = run(Command::new(&py).args(["-m", "pip", "list", "--format=freeze"]));
    let others: Vec<&str> = listed
        .lines()
        .filter(|l| {
            !l.starts_with("mjbridge==")
                && !l.starts_with("pip==")
                && !l.starts_with("setuptools==")
        })
        .collect();
    assert!(
        others.is_empty(),
        "the venv holds more than the wheel: {others:?}"
    );
    let clean = |c: &mut Command| {
        c.current_dir(&i.work)
            .env_remove("MJBRIDGE_LIB")
            .env_remove("MJBRIDGE_PREFIX")
            .env_remove("LD_LIBRARY_PATH")
            .env_remove("PKG_CONFIG_PATH")
            .env_remove("PYTHONPATH")
            .env("PYTHONDONTWRITEBYTECODE", "1");
    };
    let site = run(Command::new(&py).args([
        "-c",
        "import mjbridge, os; print(os.path.dirname(mjbridge.__file__))",
    ]));
    let package = PathBuf::from(site.trim());
    assert!(package.starts_with(&fresh), "{package:?}");
    let mut smoke = Command::new(&py);
    smoke
        .arg(root().join("bindings/python/tests/typed_consumer.py"))
        .arg(model("host.xml"));
    clean(&mut smoke);
    let out = run(&mut smoke);
    let lib = package.join("_lib/libmjbridge.so.0");
    assert!(
        out.contains(&format!("library {}", lib.display())),
        "not the bundled library:\n{out}"
    );
    assert!(out.contains("tick 2 -> 5 -> 2 | refused True"), "{out}");
    assert!(package.join("_lib").join(&i.mujoco_file).is_file());
    assert!(package.join("py.typed").is_file());
    // The bundled library loads MuJoCo from its own folder, not from anywhere else.
    let mut maps = Command::new(&py);
    maps.args([
        "-c",
        "import mjbridge; mjbridge.version(); print([l.split()[-1] for l in open('/proc/self/maps') if 'libmujoco' in l][0])",
    ]);
    clean(&mut maps);
    let mapped = run(&mut maps);
    assert_eq!(
        Path::new(mapped.trim()),
        package
            .join("_lib")
            .join(&i.mujoco_file)
            .canonicalize()
            .unwrap()
    );
    if i.bundled {
        let mut plugins = Command::new(&py);
        plugins.args([
            "-c",
            "import mjbridge; libs, n = mjbridge.plugin_load_dir(mjbridge.bundled_plugin_dir()); print(libs, n)",
        ]);
        clean(&mut plugins);
        let counts = run(&mut plugins);
        let libs: usize = counts.split_whitespace().next().unwrap().parse().unwrap();
        assert!(libs > 0, "no bundled plugin loaded: {counts}");
    }
    let mut example = Command::new(&py);
    example.arg(root().join("examples/python/example.py"));
    clean(&mut example);
    let out = run(&mut example);
    assert!(out.contains("example-python: done"), "{out}");
    // mypy (from the test venv) reads the installed package's hints through its py.typed.
    run(Command::new(&test_py)
        .args([
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--python-executable",
        ])
        .arg(&py)
        .arg(root().join("bindings/python/tests/typed_consumer.py"))
        .current_dir(&i.work));
}

/// The wheel carries the tree's license texts in its dist-info's licenses/ folder, each named
/// by a License-File line of its metadata (2.4) beside License-Expression: Apache-2.0.
#[test]
fn python_wheel_carries_the_license_texts_in_its_dist_info() {
    let i = installed();
    let Some(wheel) = &i.wheel else { return };
    // Info-ZIP's unzip answers -v, not --version (which `tool` probes): .ci/run installs it.
    let unzip = "unzip";
    if !Command::new(unzip)
        .arg("-v")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        assert!(
            !toolchain::require_all(),
            "TOOLCHAIN MISSING: `unzip` and MJB_REQUIRE_ALL_TOOLCHAINS=1"
        );
        eprintln!("\n!!!!!!!! TOOLCHAIN MISSING: `unzip` — SKIPPED !!!!!!!!\n");
        return;
    }
    let info = format!("mjbridge-{}.dist-info", i.version);
    let read = |member: &str| {
        let o = Command::new(unzip)
            .arg("-p")
            .arg(wheel)
            .arg(member)
            .output()
            .unwrap();
        assert!(o.status.success(), "{member} is not in {}", wheel.display());
        o.stdout
    };
    let metadata = String::from_utf8(read(&format!("{info}/METADATA"))).unwrap();
    assert!(
        metadata.starts_with("Metadata-Version: 2.4\n"),
        "{metadata}"
    );
    assert!(
        metadata.contains("\nLicense-Expression: Apache-2.0\n"),
        "{metadata}"
    );
    // The wheel always carries MuJoCo: the pinned wheel's texts, or Debian's copyright file
    // when the engine is Debian's libmujoco.
    let (mujoco, mujoco_names) = match wheel_licenses() {
        Some(dir) => (
            dir.to_path_buf(),
            vec!["LICENSE", "LICENSES_THIRD_PARTY.md"],
        ),
        None => {
            let version = i.mujoco_file.trim_start_matches("libmujoco.so.");
            (
                PathBuf::from(format!("/usr/share/doc/libmujoco{version}")),
                vec!["copyright"],
            )
        }
    };
    let mut expected = vec![
        ("LICENSE".to_owned(), root().join("LICENSE")),
        (
            "THIRD_PARTY_NOTICES.md".to_owned(),
            root().join("THIRD_PARTY_NOTICES.md"),
        ),
    ];
    for n in mujoco_names {
        expected.push((format!("mujoco/{n}"), mujoco.join(n)));
    }
    let listed = String::from_utf8(
        Command::new(unzip)
            .arg("-Z1")
            .arg(wheel)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let prefix = format!("{info}/licenses/");
    let mut carried: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.strip_prefix(prefix.as_str()))
        .filter(|l| !l.is_empty() && !l.ends_with('/'))
        .collect();
    carried.sort();
    let mut names: Vec<&str> = expected.iter().map(|(n, _)| n.as_str()).collect();
    names.sort();
    assert_eq!(carried, names, "the wheel's license files");
    for (n, source) in &expected {
        let text = read(&format!("{info}/licenses/{n}"));
        assert!(!text.is_empty(), "{n} is empty");
        assert_eq!(
            text,
            std::fs::read(source).unwrap(),
            "{n} is not {}",
            source.display()
        );
        assert!(
            metadata.contains(&format!("\nLicense-File: {n}\n")),
            "{n}: {metadata}"
        );
    }
}

/// The binding's own sources type-check under `mypy --strict` (pyproject's `[tool.mypy]`).
#[test]
fn python_binding_type_checks_with_mypy_strict() {
    let Some(py) = venv() else {
        return;
    };
    let source = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("py-mypy");
    let _ = std::fs::remove_dir_all(&source);
    copy_dir(&root().join("bindings/python"), &source).unwrap();
    let out = run(Command::new(&py)
        .args(["-m", "mypy", "--no-incremental", "-p", "mjbridge"])
        .current_dir(&source));
    assert!(out.contains("Success: no issues found"), "{out}");
}

/// `git clone` names the checkout `mjbridge`, and cargo then spells the package id
/// `path+file:///…/mjbridge#0.2.0` (no `mjbridge@`): the script installs from such a folder too.
#[test]
fn install_works_from_a_checkout_folder_named_mjbridge() {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("install-named");
    let _ = std::fs::remove_dir_all(&work);
    let checkout = work.join("mjbridge");
    let files = run(Command::new("git").current_dir(root()).args([
        "ls-files",
        "--cached",
        "--others",
        "--exclude-standard",
    ]));
    for f in files.lines().filter(|f| !f.is_empty()) {
        let from = root().join(f);
        if !from.is_file() {
            continue; // deleted in the work tree
        }
        let to = checkout.join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&from, &to).unwrap();
    }
    let prefix = work.join("prefix");
    let out = run(Command::new("bash")
        .arg(checkout.join("scripts/install.sh"))
        .arg("--prefix")
        .arg(&prefix)
        .arg("--target-dir")
        .arg(root().join("target/install-named"))
        .env_remove("CARGO_TARGET_DIR")
        .env(
            "MJB_MUJOCO_CACHE",
            std::env::var_os("MJB_MUJOCO_CACHE")
                .map(PathBuf::from)
                .unwrap_or_else(|| root().join("target/mujoco-cache")),
        ));
    assert!(out.contains("==> installed:"), "{out}");
    for f in [
        format!("lib/libmjbridge.so.{}", env!("CARGO_PKG_VERSION")),
        "bin/mjbridge".to_owned(),
        "share/mjbridge/TARGET".to_owned(),
    ] {
        assert!(prefix.join(&f).is_file(), "{f} is not installed");
    }
    // The installed command runs from the tree (RUNPATH $ORIGIN/../lib finds MuJoCo only when
    // bundled; the wheel build bundles by default).
    let version = run(Command::new(prefix.join("bin/mjbridge")).arg("--version"));
    assert!(version.contains(env!("CARGO_PKG_VERSION")), "{version}");
}

/// A failing install says what failed (an ERR trap names the command), never exits silently.
#[test]
fn install_failure_names_the_failed_command() {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("install-fails");
    let o = Command::new("bash")
        .arg(root().join("scripts/install.sh"))
        .arg("--prefix")
        .arg(work.join("prefix"))
        // No Rust toolchain on PATH: the first command that needs it fails.
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert!(!o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("install.sh: failed") && stderr.contains("rustc"),
        "no reason given: {stderr}"
    );
}
