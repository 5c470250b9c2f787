//! The Python wheels an index would accept, one per target, made by `scripts/python_wheel.sh`
//! into one folder, each through another door (the library built in `target/cross-install`
//! like tests/cross.rs, so a suite run finds it up to date): Linux x86_64 with `--target`, Linux
//! aarch64 by `scripts/release.sh --wheel` (beside the archive, both with a SHA-256 that
//! checks), Windows with `--from-prefix` a Windows tree that also holds the Wine ProcessPrng
//! stand-in the test programs use, which the wheel must leave out:
//!
//! - the Linux wheels carry the `manylinux_2_NN_<arch>` tag that `auditwheel show` (pinned, in
//!   the script's tools venv) confirms for that very wheel, between MuJoCo's own floor (2_28) and
//!   the stated glibc floor (docs/platforms.md);
//! - every wheel passes `twine check --strict`, states its license (SPDX, metadata 2.4) and
//!   carries the bridge's texts and those of the MuJoCo wheel of its own target;
//! - `pip install --no-index --find-links DIR mjbridge` in a fresh venv takes the x86_64 wheel,
//!   which opens, steps, checkpoints and restores with nothing else installed; pip's own platform
//!   selection takes the aarch64 wheel for an aarch64 machine with a new enough glibc (and
//!   refuses one with an older glibc) and the Windows wheel for win_amd64;
//! - the aarch64 wheel's libraries run under qemu (C hosts built with the aarch64 cross compiler
//!   against the extracted wheel: the demo and a model needing the bundled plugins);
//! - the Windows wheel holds exactly the binding, `mjbridge.dll`, `mujoco.dll` and MuJoCo's
//!   plugin DLLs (PE32+ x86-64, importing only Windows, the VC++ runtime and each other), the
//!   binding's Windows loader path takes the bundled pair (run with `sys.platform` patched: no
//!   Windows Python runs here), and the same DLLs run the C hosts under Wine.

#[path = "common/toolchain.rs"]
mod toolchain;
#[path = "common/windows.rs"]
mod windows;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use toolchain::{require_all, root, tool, venv_dir};

const LINUX: &str = "x86_64-unknown-linux-gnu";
const AARCH64: &str = "aarch64-unknown-linux-gnu";
const WINDOWS: &str = "x86_64-pc-windows-gnu";

/// The glibc range a Linux wheel's tag may name: MuJoCo's own wheel is manylinux_2_28, and the
/// floor docs/platforms.md states ("The glibc floor") is 2.34.
const MANYLINUX_MIN: u32 = 28;
const MANYLINUX_MAX: u32 = 34;

fn skip(msg: &str) {
    if require_all() {
        panic!("TOOLCHAIN MISSING: {msg} and MJB_REQUIRE_ALL_TOOLCHAINS=1");
    }
    eprintln!("\n!!!!!!!! TOOLCHAIN MISSING: {msg} — SKIPPED !!!!!!!!\n");
}

struct Wheels {
    /// The folder holding the three wheels (pip's --find-links).
    dir: PathBuf,
    linux: PathBuf,
    aarch64: PathBuf,
    windows: PathBuf,
    /// The Windows tree the Windows wheel was made from (with the stand-in in its bin/).
    windows_tree: PathBuf,
    /// The script's tools venv (auditwheel, twine).
    tools: PathBuf,
    python: PathBuf,
    work: PathBuf,
}

impl Wheels {
    fn of(&self, triple: &str) -> &Path {
        match triple {
            LINUX => &self.linux,
            AARCH64 => &self.aarch64,
            _ => &self.windows,
        }
    }
}

fn cache() -> PathBuf {
    std::env::var_os("MJB_MUJOCO_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/mujoco-cache"))
}

/// The MuJoCo wheel cache folder of a target (build.rs: `<version>[-<arch>-<os>]`).
fn mujoco_cache(triple: &str) -> PathBuf {
    cache().join(match triple {
        LINUX => "4.0.0",
        AARCH64 => "4.0.0-aarch64-linux",
        _ => "4.0.0-x86_64-windows",
    })
}

fn bash(script: &str, args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new("bash")
        .arg(root().join(script))
        .args(args)
        .env_remove("CARGO_TARGET_DIR")
        .env("MJB_MUJOCO_CACHE", cache())
        .output()
        .unwrap_or_else(|e| panic!("{script}: {e}"))
}

fn run(cmd: &mut Command) -> String {
    let o = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    print!("{stdout}");
    eprint!("{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{cmd:?} failed: {:?}", o.status);
    stdout
}

fn wheels() -> Option<&'static Wheels> {
    static WHEELS: OnceLock<Option<Wheels>> = OnceLock::new();
    WHEELS.get_or_init(build).as_ref()
}

fn build() -> Option<Wheels> {
    // Built with the default engine (the pinned 4.0.0 wheels of each target), like the cross
    // lanes; the engine-matrix runs of scripts/test.sh do not repeat this file.
    let source = env!("MJB_ENGINE_SOURCE");
    if !source.starts_with("pinned wheel mujoco-core==4.0.0") {
        eprintln!("python wheels: built with the default engine only (this run: {source})");
        return None;
    }
    let python = tool("PYTHON", "python3")?;
    tool("AARCH64_CC", "aarch64-linux-gnu-gcc")?;
    tool("MINGW_CC", "x86_64-w64-mingw32-gcc")?;
    tool("MINGW_OBJDUMP", "x86_64-w64-mingw32-objdump")?;
    let sysroot = String::from_utf8_lossy(
        &Command::new("rustc")
            .args(["--print", "sysroot"])
            .output()
            .expect("rustc")
            .stdout,
    )
    .trim()
    .to_owned();
    for t in [AARCH64, WINDOWS] {
        if !Path::new(&sysroot).join("lib/rustlib").join(t).is_dir() {
            skip(&format!("rust-std for {t} (rustup target add {t})"));
            return None;
        }
    }
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("python-wheels");
    let _ = std::fs::remove_dir_all(&work);
    let dir = work.join("dist");
    std::fs::create_dir_all(&dir).unwrap();
    let build_dir = root().join("target/cross-install");
    let script = |args: &[&std::ffi::OsStr]| {
        let o = Command::new("bash")
            .arg(root().join("scripts/python_wheel.sh"))
            .arg(&dir)
            .args(args)
            .arg("--target-dir")
            .arg(&build_dir)
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("MJB_WHEEL_TOOLS")
            .env("MJB_MUJOCO_CACHE", cache())
            .env("PYTHON", &python)
            .output()
            .unwrap();
        print!("{}", String::from_utf8_lossy(&o.stdout));
        eprint!("{}", String::from_utf8_lossy(&o.stderr));
        assert!(
            o.status.success(),
            "python_wheel.sh {args:?}: {:?}",
            o.status
        );
    };
    let started = std::time::Instant::now();
    script(&["--target".as_ref(), LINUX.as_ref()]);
    println!(
        "python wheels: x86_64 wheel after {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // The aarch64 wheel as a release ships it: `release.sh --wheel`, beside the archive of the
    // same tree, each with a SHA-256 that checks.
    let release = work.join("release");
    let o = bash(
        "scripts/release.sh",
        &[
            "--target".as_ref(),
            AARCH64.as_ref(),
            "--wheel".as_ref(),
            "--out".as_ref(),
            release.as_os_str(),
            "--target-dir".as_ref(),
            build_dir.as_os_str(),
        ],
    );
    print!("{}", String::from_utf8_lossy(&o.stdout));
    assert!(
        o.status.success(),
        "release.sh --wheel: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut released: Vec<String> = std::fs::read_dir(&release)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    released.sort();
    let version = env!("CARGO_PKG_VERSION");
    let archive = format!("mjbridge-{version}-{AARCH64}.tar.gz");
    let wheel = released
        .iter()
        .find(|n| n.ends_with("_aarch64.whl"))
        .unwrap_or_else(|| panic!("no aarch64 wheel in the release: {released:?}"))
        .clone();
    assert_eq!(
        released,
        [
            archive.clone(),
            format!("{archive}.sha256"),
            wheel.clone(),
            format!("{wheel}.sha256")
        ],
        "the release folder"
    );
    let check = Command::new("sha256sum")
        .args([
            "-c",
            &format!("{wheel}.sha256"),
            &format!("{archive}.sha256"),
        ])
        .current_dir(&release)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    std::fs::copy(release.join(&wheel), dir.join(&wheel)).unwrap();
    println!(
        "python wheels: aarch64 release after {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // The Windows tree, with the stand-in the Wine test programs need in its bin/ (as a careless
    // copy of a test folder would have it): the wheel takes the bridge, MuJoCo and its plugins.
    let windows_tree = work.join("windows-tree");
    let o = bash(
        "scripts/install.sh",
        &[
            "--target".as_ref(),
            WINDOWS.as_ref(),
            "--bundle-mujoco".as_ref(),
            "--prefix".as_ref(),
            windows_tree.as_os_str(),
            "--target-dir".as_ref(),
            build_dir.as_os_str(),
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    windows::processprng_standin(
        Path::new("x86_64-w64-mingw32-gcc"),
        &windows_tree.join("bin"),
    );
    script(&["--from-prefix".as_ref(), windows_tree.as_os_str()]);
    println!(
        "python wheels: all three after {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let find = |suffix: &str| {
        let found: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(suffix))
            .collect();
        assert_eq!(
            found.len(),
            1,
            "one *{suffix} in {}: {found:?}",
            dir.display()
        );
        found[0].clone()
    };
    let w = Wheels {
        linux: find("_x86_64.whl"),
        aarch64: find("_aarch64.whl"),
        windows: find("-win_amd64.whl"),
        dir: dir.clone(),
        windows_tree,
        tools: venv_dir(
            "wheel-tools",
            &std::fs::read(root().join("packaging/python/wheel-tools.txt")).unwrap(),
        ),
        python,
        work,
    };
    let names = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(
        names,
        3,
        "three wheels and nothing else in {}",
        dir.display()
    );
    Some(w)
}

/// The wheel of `triple` extracted (by Python's zipfile, as pip reads it), once per test binary.
fn extracted(w: &Wheels, triple: &str) -> PathBuf {
    let dir = w.work.join("extracted").join(triple);
    static DONE: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut done = DONE.lock().unwrap_or_else(|e| e.into_inner());
    if !done.iter().any(|t| t == triple) {
        let _ = std::fs::remove_dir_all(&dir);
        run(Command::new(&w.python)
            .args([
                "-c",
                "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])",
            ])
            .arg(w.of(triple))
            .arg(&dir));
        done.push(triple.to_owned());
    }
    dir
}

/// The files of the wheel of `triple`: member name -> bytes.
fn members(w: &Wheels, triple: &str) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut std::collections::BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                let name = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
                out.insert(name, std::fs::read(&p).unwrap());
            }
        }
    }
    let dir = extracted(w, triple);
    let mut out = std::collections::BTreeMap::new();
    walk(&dir, &dir, &mut out);
    out
}

fn info() -> String {
    format!("mjbridge-{}.dist-info", env!("CARGO_PKG_VERSION"))
}

/// The tag of a wheel's file name (`mjbridge-X.Y.Z-py3-none-TAG.whl`).
fn platform_tag(wheel: &Path) -> String {
    let name = wheel.file_name().unwrap().to_string_lossy().into_owned();
    let prefix = format!("mjbridge-{}-py3-none-", env!("CARGO_PKG_VERSION"));
    name.strip_prefix(&prefix)
        .and_then(|n| n.strip_suffix(".whl"))
        .unwrap_or_else(|| panic!("{name} is not a py3-none wheel of mjbridge"))
        .to_owned()
}

fn auditwheel_show(w: &Wheels, wheel: &Path) -> String {
    let out = run(Command::new(w.tools.join("bin/auditwheel"))
        .arg("show")
        .arg(wheel));
    let flat = out.split_whitespace().collect::<Vec<_>>().join(" ");
    let rest = flat
        .split_once("consistent with the following platform tag: \"")
        .unwrap_or_else(|| panic!("auditwheel names no tag:\n{out}"))
        .1;
    rest.split('"').next().unwrap().to_owned()
}

#[test]
fn linux_wheels_carry_the_manylinux_tag_auditwheel_confirms() {
    let Some(w) = wheels() else { return };
    for (triple, arch, machine) in [(LINUX, "x86_64", 62u16), (AARCH64, "aarch64", 183)] {
        let wheel = w.of(triple);
        let tag = platform_tag(wheel);
        let glibc: u32 = tag
            .strip_prefix("manylinux_2_")
            .and_then(|t| t.strip_suffix(&format!("_{arch}")))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{tag}: not manylinux_2_NN_{arch}"));
        assert!(
            (MANYLINUX_MIN..=MANYLINUX_MAX).contains(&glibc),
            "{tag}: outside manylinux_2_{MANYLINUX_MIN}..2_{MANYLINUX_MAX}"
        );
        assert_eq!(
            auditwheel_show(w, wheel),
            tag,
            "auditwheel's tag for {}",
            wheel.display()
        );
        let m = members(w, triple);
        let wheel_file = String::from_utf8(m[&format!("{}/WHEEL", info())].clone()).unwrap();
        let tags: Vec<&str> = wheel_file
            .lines()
            .filter_map(|l| l.strip_prefix("Tag: "))
            .collect();
        assert_eq!(tags, [format!("py3-none-{tag}")], "{wheel_file}");
        // Every library is an ELF file of that architecture (e_machine at byte 18).
        let libs: Vec<&String> = m
            .keys()
            .filter(|n| n.starts_with("mjbridge/_lib/"))
            .collect();
        for want in [
            "mjbridge/_lib/libmjbridge.so.0",
            "mjbridge/_lib/libmujoco.so.4.0.0",
            "mjbridge/_lib/mujoco_plugin/libactuator.so",
        ] {
            assert!(m.contains_key(want), "{want} missing: {libs:?}");
        }
        for n in libs {
            let b = &m[n];
            assert!(b.starts_with(b"\x7fELF"), "{n} is not ELF");
            assert_eq!(
                u16::from_le_bytes([b[18], b[19]]),
                machine,
                "{n} is not {arch}"
            );
        }
        println!("{}: {tag}", wheel.display());
    }
    // auditwheel is not a rubber stamp: the same x86_64 wheel claiming manylinux_2_28 (older than
    // the symbols it needs) is still found consistent with its real tag only.
    let forged = w.work.join("forged").join(
        w.linux
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace(&platform_tag(&w.linux), "manylinux_2_28_x86_64"),
    );
    std::fs::create_dir_all(forged.parent().unwrap()).unwrap();
    std::fs::copy(&w.linux, &forged).unwrap();
    assert_eq!(auditwheel_show(w, &forged), platform_tag(&w.linux));
}

#[test]
fn every_wheel_passes_twine_check_and_carries_its_license_texts() {
    let Some(w) = wheels() else { return };
    let out = run(Command::new(w.tools.join("bin/twine"))
        .args(["check", "--strict"])
        .arg(&w.linux)
        .arg(&w.aarch64)
        .arg(&w.windows));
    assert_eq!(out.matches("PASSED").count(), 3, "{out}");
    let readme = std::fs::read_to_string(root().join("bindings/python/README.md")).unwrap();
    for triple in [LINUX, AARCH64, WINDOWS] {
        let m = members(w, triple);
        let metadata = String::from_utf8(m[&format!("{}/METADATA", info())].clone()).unwrap();
        for line in [
            "Metadata-Version: 2.4\n",
            "\nName: mjbridge\n",
            "\nLicense-Expression: Apache-2.0\n",
            "\nRequires-Python: >=3.8\n",
            "\nDescription-Content-Type: text/markdown\n",
            "\nClassifier: Programming Language :: Python :: 3\n",
            "\nProject-URL: Repository, ",
        ] {
            assert!(
                metadata.contains(line),
                "{triple}: no {line:?} in\n{metadata}"
            );
        }
        let (head, body) = metadata.split_once("\n\n").unwrap();
        assert_eq!(
            body.trim(),
            readme.trim(),
            "{triple}: the long description is the README"
        );
        let mujoco = mujoco_cache(triple).join("licenses");
        let mut expected = vec![
            ("LICENSE".to_owned(), root().join("LICENSE")),
            (
                "THIRD_PARTY_NOTICES.md".to_owned(),
                root().join("THIRD_PARTY_NOTICES.md"),
            ),
        ];
        for n in ["LICENSE", "LICENSES_THIRD_PARTY.md"] {
            expected.push((format!("mujoco/{n}"), mujoco.join(n)));
        }
        let prefix = format!("{}/licenses/", info());
        let carried: Vec<&str> = m.keys().filter_map(|n| n.strip_prefix(&prefix)).collect();
        let mut names: Vec<&str> = expected.iter().map(|(n, _)| n.as_str()).collect();
        names.sort();
        assert_eq!(carried, names, "{triple}: the wheel's license files");
        for (n, source) in &expected {
            let text = &m[&format!("{prefix}{n}")];
            assert!(!text.is_empty(), "{triple}: {n} is empty");
            assert_eq!(
                text,
                &std::fs::read(source).unwrap(),
                "{triple}: {n} is not {}",
                source.display()
            );
            assert!(
                head.contains(&format!("\nLicense-File: {n}\n")),
                "{triple}: {n}: {head}"
            );
        }
    }
}

/// `pip install --no-index --find-links DIR mjbridge` into a fresh venv takes the x86_64 wheel
/// (of the three in DIR), which then runs with nothing else installed.
#[test]
fn pip_installs_the_x86_64_wheel_from_the_folder_and_it_runs() {
    let Some(w) = wheels() else { return };
    let venv = w.work.join("venv");
    let _ = std::fs::remove_dir_all(&venv);
    run(Command::new(&w.python).args(["-m", "venv"]).arg(&venv));
    let py = venv.join("bin/python");
    run(Command::new(&py)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-index",
        ])
        .arg("--find-links")
        .arg(&w.dir)
        .arg("mjbridge"));
    let site = run(Command::new(&py).args([
        "-c",
        "import mjbridge, os; print(os.path.dirname(mjbridge.__file__))",
    ]));
    let package = PathBuf::from(site.trim());
    assert!(package.starts_with(&venv), "{package:?}");
    let info_dir = package.parent().unwrap().join(info());
    let wheel_file = std::fs::read_to_string(info_dir.join("WHEEL")).unwrap();
    assert!(
        wheel_file.contains(&format!("\nTag: py3-none-{}\n", platform_tag(&w.linux))),
        "not the x86_64 wheel: {wheel_file}"
    );
    assert!(!package.join("_lib/mjbridge.dll").exists());
    // Open, step, checkpoint, restore (and a refusal), from the bundled library only.
    let out = run(Command::new(&py)
        .arg(root().join("bindings/python/tests/typed_consumer.py"))
        .arg(root().join("tests/models/host.xml"))
        .current_dir(&w.work)
        .env_remove("MJBRIDGE_LIB")
        .env_remove("MJBRIDGE_PREFIX")
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("PKG_CONFIG_PATH")
        .env_remove("PYTHONPATH")
        .env("PYTHONDONTWRITEBYTECODE", "1"));
    let lib = package.join("_lib/libmjbridge.so.0");
    assert!(out.contains(&format!("library {}", lib.display())), "{out}");
    assert!(out.contains("tick 2 -> 5 -> 2 | refused True"), "{out}");
}

/// pip's own platform selection over the folder: an aarch64 machine with glibc 2.35 (Ubuntu
/// 22.04, JetPack 6) gets the aarch64 wheel, one with glibc 2.31 (Ubuntu 20.04) gets none; a
/// win_amd64 machine gets the Windows wheel. The platform lists are the tags pip itself
/// accepts on such machines (manylinux_2_N down to 2_17, then linux_<arch>).
#[test]
fn pip_picks_the_aarch64_and_windows_wheels_for_their_platforms() {
    let Some(w) = wheels() else { return };
    let download = |name: &str, platforms: &[String]| {
        let to = w.work.join("download").join(name);
        let _ = std::fs::remove_dir_all(&to);
        let mut c = Command::new(&w.python);
        c.args([
            "-m",
            "pip",
            "download",
            "--quiet",
            "--disable-pip-version-check",
            "--no-index",
        ])
        .args([
            "--only-binary=:all:",
            "--python-version",
            "3.11",
            "--implementation",
            "cp",
        ])
        .arg("--find-links")
        .arg(&w.dir)
        .arg("-d")
        .arg(&to);
        for p in platforms {
            c.args(["--platform", p]);
        }
        let o = c.arg("mjbridge").output().unwrap();
        let got: Vec<String> = std::fs::read_dir(&to)
            .map(|d| {
                d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        (o, got)
    };
    let glibc = |minor: u32, arch: &str| -> Vec<String> {
        let mut v: Vec<String> = (17..=minor)
            .rev()
            .map(|n| format!("manylinux_2_{n}_{arch}"))
            .collect();
        v.push(format!("linux_{arch}"));
        v
    };
    let (o, got) = download("jetpack6", &glibc(35, "aarch64"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        got,
        [w.aarch64.file_name().unwrap().to_string_lossy()],
        "aarch64, glibc 2.35"
    );
    let (o, got) = download("focal", &glibc(31, "aarch64"));
    assert!(
        !o.status.success(),
        "an aarch64 machine with glibc 2.31 got {got:?}"
    );
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("No matching distribution found for mjbridge"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(got.is_empty(), "{got:?}");
    let (o, got) = download("windows", &["win_amd64".to_owned()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        got,
        [w.windows.file_name().unwrap().to_string_lossy()],
        "win_amd64"
    );
}

/// Programs built with a target's cross compiler against the extracted wheel's `_lib/`.
struct Host {
    triple: &'static str,
    lib: PathBuf,
    progs: PathBuf,
}

impl Host {
    fn new(w: &Wheels, triple: &'static str) -> Host {
        let dir = extracted(w, triple);
        let progs = w.work.join("progs").join(triple);
        std::fs::create_dir_all(&progs).unwrap();
        if triple == WINDOWS {
            // The Wine stand-in beside the programs, never in the wheel.
            windows::processprng_standin(Path::new("x86_64-w64-mingw32-gcc"), &progs);
        }
        Host {
            triple,
            lib: dir.join("mjbridge/_lib"),
            progs,
        }
    }

    fn path(&self, p: &Path) -> String {
        if self.triple == WINDOWS {
            format!("Z:{}", p.display())
        } else {
            p.display().to_string()
        }
    }

    fn build(&self, name: &str, source: &str) -> PathBuf {
        let windows = self.triple == WINDOWS;
        let exe = self.progs.join(if windows {
            format!("{name}.exe")
        } else {
            name.to_owned()
        });
        let mut c = Command::new(if windows {
            "x86_64-w64-mingw32-gcc"
        } else {
            "aarch64-linux-gnu-gcc"
        });
        c.args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-I"])
            .arg(root().join("include"))
            .arg("-I")
            .arg(root().join("tests/c"))
            .arg(root().join(source))
            .arg("-o")
            .arg(&exe);
        if windows {
            // GNU ld links against the DLL itself (the wheel carries no import library).
            c.arg(self.lib.join("mjbridge.dll")).arg("-static");
        } else {
            c.arg("-L")
                .arg(&self.lib)
                .arg("-l:libmjbridge.so.0")
                .arg(format!("-Wl,-rpath,{}", self.lib.display()));
        }
        run(&mut c);
        exe
    }

    fn run(&self, exe: &Path, args: &[String]) -> String {
        let mut c = if self.triple == WINDOWS {
            let mut c = windows::wine(exe);
            // The wheel's folder is where the DLLs come from.
            c.env("WINEPATH", self.path(&self.lib).replace('/', "\\"));
            c
        } else {
            let mut c = Command::new("qemu-aarch64-static");
            c.args(["-L", "/usr/aarch64-linux-gnu"]).arg(exe);
            c
        };
        run(c.args(args).current_dir(&self.progs))
    }

    fn demo_and_plugins(&self) {
        let model = |n: &str| self.path(&root().join("tests/models").join(n));
        let demo = self.build("checkpoint_demo", "examples/checkpoint_demo.c");
        let out = self.run(
            &demo,
            &[model("contact_act.xml"), "500".into(), "1000".into()],
        );
        assert!(
            out.contains("continuation after restore is bit-identical to the first run: YES"),
            "{out}"
        );
        let host = self.build("plugin_host", "tests/c/plugin_host.c");
        let plugins = self.path(&self.lib.join("mujoco_plugin"));
        let out = self.run(&host, &[plugins, model("pid_plugin.xml")]);
        assert!(out.contains("plugin_host: all checks passed"), "{out}");
    }
}

#[test]
fn aarch64_wheel_libraries_run_under_qemu() {
    let Some(w) = wheels() else { return };
    let Some(_) = tool("QEMU_AARCH64", "qemu-aarch64-static") else {
        return;
    };
    Host::new(w, AARCH64).demo_and_plugins();
}

/// The Windows wheel: its files, its DLLs' format and imports, the same DLLs as the tree (and
/// not the tree's stand-in), and the programs that run on them under Wine.
#[test]
fn windows_wheel_holds_the_bridge_and_mujoco_dlls_only_and_they_run_under_wine() {
    let Some(w) = wheels() else { return };
    let Some(_) = tool("WINE", "wine") else {
        return;
    };
    let m = members(w, WINDOWS);
    let mut plugins: Vec<String> = std::fs::read_dir(w.windows_tree.join("bin/mujoco_plugin"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    plugins.sort();
    assert!(plugins.iter().any(|p| p == "actuator.dll"), "{plugins:?}");
    // The package's own files (every module and py.typed, as the source folder has them),
    // then the libraries.
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("bindings/python/mjbridge");
    let mut want: Vec<String> = std::fs::read_dir(&source)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".py") || n == "py.typed")
        .chain(["_lib/mjbridge.dll".to_owned(), "_lib/mujoco.dll".to_owned()])
        .map(|n| format!("mjbridge/{n}"))
        .collect();
    assert!(want.contains(&"mjbridge/_native.py".to_owned()), "{want:?}");
    want.extend(
        plugins
            .iter()
            .map(|p| format!("mjbridge/_lib/mujoco_plugin/{p}")),
    );
    want.sort();
    let package: Vec<&String> = m.keys().filter(|n| !n.starts_with(&info())).collect();
    assert_eq!(
        package,
        want.iter().collect::<Vec<_>>(),
        "the Windows wheel's files"
    );
    assert!(
        w.windows_tree.join("bin/bcryptprimitives.dll").is_file(),
        "the tree held the stand-in"
    );
    assert!(!m
        .keys()
        .any(|n| n.to_ascii_lowercase().contains("bcryptprimitives")));
    let lib = extracted(w, WINDOWS).join("mjbridge/_lib");
    // The tree's files, unchanged; PE32+ x86-64, importing only what a clean Windows 10 with the
    // VC++ runtime has (tests/common/windows.rs).
    for n in want.iter().filter_map(|n| n.strip_prefix("mjbridge/_lib/")) {
        assert_eq!(
            std::fs::read(lib.join(n)).unwrap(),
            std::fs::read(w.windows_tree.join("bin").join(n)).unwrap(),
            "{n} is not the tree's"
        );
    }
    windows::assert_only_system_imports(&lib.join("mjbridge.dll"), &["mujoco.dll"]);
    let mut also: Vec<&str> = windows::MSVC_RUNTIME_DLLS.to_vec();
    also.push("mujoco.dll");
    windows::assert_only_system_imports(&lib.join("mujoco.dll"), &also);
    for p in &plugins {
        windows::assert_only_system_imports(&lib.join("mujoco_plugin").join(p), &also);
    }
    Host::new(w, WINDOWS).demo_and_plugins();
}

/// The binding's Windows path, from the installed Windows wheel: `pip install --platform
/// win_amd64 --target DIR` lays it out as on Windows, then the package is imported with
/// `sys.platform` set to win32 and `ctypes.CDLL`/`os.add_dll_directory` recording their calls
/// (no Windows Python runs here): the loader takes `_lib/mjbridge.dll`, after adding `_lib/`
/// (where mujoco.dll is) to the DLL search path, and the bundled plugin folder is `_lib/mujoco_plugin`.
#[test]
fn windows_wheel_loader_takes_the_bundled_dll_after_adding_its_folder() {
    let Some(w) = wheels() else { return };
    let target = w.work.join("win-site");
    let _ = std::fs::remove_dir_all(&target);
    run(Command::new(&w.python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-index",
        ])
        .args([
            "--only-binary=:all:",
            "--platform",
            "win_amd64",
            "--python-version",
            "3.11",
        ])
        .args(["--implementation", "cp", "--find-links"])
        .arg(&w.dir)
        .arg("--target")
        .arg(&target)
        .arg("mjbridge"));
    let lib = target.join("mjbridge/_lib");
    assert!(lib.join("mjbridge.dll").is_file() && lib.join("mujoco.dll").is_file());
    let script = r#"
import ctypes, json, os, sys
calls = []
class Lib:
    def __init__(self, path):
        self._name = path
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        f = type("Fn", (), {})()
        setattr(self, name, f)
        return f
def cdll(path, *args, **kwargs):
    calls.append(["CDLL", path])
    return Lib(path)
def add_dll_directory(folder):
    calls.append(["add_dll_directory", folder])
    return object()
sys.platform = "win32"
os.add_dll_directory = add_dll_directory
ctypes.CDLL = cdll
import mjbridge
from mjbridge import _native
_native.load()
print(json.dumps({"calls": calls, "plugins": mjbridge.bundled_plugin_dir()}))
"#;
    let out = run(Command::new(&w.python)
        .args(["-s", "-c", script])
        .current_dir(&w.work)
        .env("PYTHONPATH", &target)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env_remove("MJBRIDGE_LIB")
        .env_remove("MJBRIDGE_PREFIX")
        .env_remove("PKG_CONFIG_PATH"));
    let dll = lib.join("mjbridge.dll");
    let expect = format!(
        "{{\"calls\": [[\"add_dll_directory\", \"{}\"], [\"CDLL\", \"{}\"]], \"plugins\": \"{}\"}}",
        lib.display(),
        dll.display(),
        lib.join("mujoco_plugin").display()
    );
    assert_eq!(out.trim(), expect);
}

/// The script refuses a tree of another target than `--target` names, and writes nothing.
#[test]
fn python_wheel_refuses_a_tree_of_another_target() {
    let Some(w) = wheels() else { return };
    let out = w.work.join("refused");
    let o = Command::new("bash")
        .arg(root().join("scripts/python_wheel.sh"))
        .arg(&out)
        .args(["--target", AARCH64, "--from-prefix"])
        .arg(&w.windows_tree)
        .env("PYTHON", &w.python)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains(&format!("--target {AARCH64}, but")) && stderr.contains(WINDOWS),
        "{stderr}"
    );
    let written: Vec<_> = std::fs::read_dir(&out)
        .map(|d| d.collect())
        .unwrap_or_default();
    assert!(written.is_empty(), "{written:?}");
}
