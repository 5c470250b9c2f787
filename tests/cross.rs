//! The Windows x86_64 and Linux aarch64 builds, run for real from this Linux x86_64 machine:
//! `scripts/install.sh --target TRIPLE --bundle-mujoco` into a temporary prefix, host programs
//! built with the cross compilers (`x86_64-w64-mingw32-gcc/g++`, `aarch64-linux-gnu-gcc/g++`)
//! against that installed tree, and run under Wine and qemu user emulation with the tree's own
//! MuJoCo (`mujoco.dll` and its plugin DLLs; `libmujoco.so.4.0.0`): the demo host (continuation
//! bit-identical), the C lifecycle host, `examples/host_loop.c` (threads), the C++ RAII host,
//! the CMake package (CMake with a cross toolchain file), the static library, a model that
//! needs MuJoCo's plugins, the fault-injection suite (Windows: the longjmp path through the
//! MSVC-built MuJoCo), a checkpoint taken on Linux x86_64 restored on the other two, and the
//! newest GLIBC symbol version each Linux library of the trees needs.
//!
//! Wine 8 lacks `bcryptprimitives.dll!ProcessPrng`, which Rust's standard library imports on
//! Windows: `tests/windows/processprng.c` is built into a stand-in DLL placed beside the test
//! programs only, never in the installed tree.

#[path = "common/toolchain.rs"]
mod toolchain;
#[path = "common/windows.rs"]
mod windows;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use toolchain::{require_all, root, tool};

const WINDOWS: &str = "x86_64-pc-windows-gnu";
const AARCH64: &str = "aarch64-unknown-linux-gnu";

/// The newest GLIBC symbol version a Linux library of an installed tree may need
/// (docs/platforms.md, "The glibc floor").
const GLIBC_FLOOR: (u32, u32) = (2, 34);

fn skip(msg: &str) {
    if require_all() {
        panic!("TOOLCHAIN MISSING: {msg} and MJB_REQUIRE_ALL_TOOLCHAINS=1");
    }
    eprintln!("\n!!!!!!!! TOOLCHAIN MISSING: {msg} — SKIPPED !!!!!!!!\n");
}

/// Rust's standard library for `triple` (rustup target add).
fn rust_target(triple: &str) -> bool {
    let out = Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .expect("rustc");
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let ok = Path::new(&sysroot)
        .join("lib/rustlib")
        .join(triple)
        .join("lib")
        .is_dir();
    if !ok {
        skip(&format!(
            "rust-std for {triple} (rustup target add {triple})"
        ));
    }
    ok
}

struct Platform {
    triple: &'static str,
    cc: PathBuf,
    cxx: PathBuf,
    /// The installed tree.
    prefix: PathBuf,
    /// Test programs and their scratch files (outside the tree).
    progs: PathBuf,
}

impl Platform {
    fn windows(&self) -> bool {
        self.triple == WINDOWS
    }

    /// The runtime folder of the tree: bin/ (DLLs) on Windows, lib/ on Linux.
    fn runtime_dir(&self) -> PathBuf {
        self.prefix.join(if self.windows() { "bin" } else { "lib" })
    }

    /// A path as the program under emulation sees it (Wine maps `/` to drive Z:).
    fn path(&self, p: &Path) -> String {
        if self.windows() {
            format!("Z:{}", p.display())
        } else {
            p.display().to_string()
        }
    }

    fn model(&self, name: &str) -> String {
        self.path(&root().join("tests/models").join(name))
    }

    fn exe(&self, name: &str) -> PathBuf {
        self.progs.join(if self.windows() {
            format!("{name}.exe")
        } else {
            name.to_owned()
        })
    }

    /// Compile C or C++ sources into a program linked against the installed tree's shared
    /// library (`-lmjbridge`: `libmjbridge.dll.a` or `libmjbridge.so`).
    fn build(&self, name: &str, cxx: bool, sources: &[PathBuf], extra: &[&str]) -> PathBuf {
        self.build_linked(name, cxx, sources, extra, true)
    }

    /// As `build`; `link_bridge` false leaves the bridge to the sources (an import library).
    fn build_linked(
        &self,
        name: &str,
        cxx: bool,
        sources: &[PathBuf],
        extra: &[&str],
        link_bridge: bool,
    ) -> PathBuf {
        let exe = self.exe(name);
        let mut cmd = Command::new(if cxx { &self.cxx } else { &self.cc });
        cmd.arg(if cxx { "-std=c++17" } else { "-std=c99" })
            .args(["-Wall", "-Wextra", "-Werror", "-O2"])
            .arg("-I")
            .arg(self.prefix.join("include"))
            .arg("-I")
            .arg(root().join("tests/c"))
            .args(sources)
            .arg("-o")
            .arg(&exe)
            .arg("-L")
            .arg(self.prefix.join("lib"));
        if link_bridge && self.windows() {
            // The import library by name: `-static` below would make -lmjbridge pick the archive.
            cmd.arg(self.prefix.join("lib/libmjbridge.dll.a"));
        } else if link_bridge {
            cmd.arg("-lmjbridge");
        }
        cmd.args(extra);
        if self.windows() {
            // The mingw runtime (libgcc, libstdc++, winpthread) inside the program, so only the
            // tree's DLLs and Windows' own are needed at run time.
            cmd.arg("-static");
        } else {
            cmd.arg(format!("-Wl,-rpath,{}", self.prefix.join("lib").display()));
        }
        let o = cmd.output().expect("run compiler");
        assert!(
            o.status.success(),
            "compiling {name} for {} failed: {cmd:?}\n{}",
            self.triple,
            String::from_utf8_lossy(&o.stderr)
        );
        exe
    }

    /// Run a program of this platform under Wine or qemu; returns (success, stdout).
    fn run_status(&self, exe: &Path, args: &[&str]) -> (bool, String) {
        let mut cmd = if self.windows() {
            let mut c = Command::new("wine");
            c.arg(exe)
                .env("WINEPREFIX", wine_prefix())
                .env("WINEDEBUG", "-all")
                // Native stand-in for ProcessPrng; no Mono/Gecko install dialogs.
                .env("WINEDLLOVERRIDES", "bcryptprimitives=n,b;mscoree=;mshtml=")
                // The tree's DLLs (mjbridge.dll, mujoco.dll) are found through PATH.
                .env(
                    "WINEPATH",
                    self.path(&self.runtime_dir()).replace('/', "\\"),
                );
            c
        } else {
            let mut c = Command::new("qemu-aarch64-static");
            c.args(["-L", "/usr/aarch64-linux-gnu"]).arg(exe);
            c
        };
        cmd.args(args).current_dir(&self.progs);
        let o = cmd.output().expect("run emulator");
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        print!("{stdout}");
        eprint!("{}", String::from_utf8_lossy(&o.stderr));
        (o.status.success(), stdout)
    }

    fn run(&self, exe: &Path, args: &[&str]) -> String {
        let (ok, out) = self.run_status(exe, args);
        assert!(
            ok,
            "{} failed under emulation for {}",
            exe.display(),
            self.triple
        );
        out
    }
}

fn wine_prefix() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wineprefix")
}

/// The installed tree of `triple`, built once per test binary; None (after saying so) when a
/// toolchain is missing.
fn platform(triple: &'static str) -> Option<&'static Platform> {
    static WIN: OnceLock<Option<Platform>> = OnceLock::new();
    static ARM: OnceLock<Option<Platform>> = OnceLock::new();
    let cell = if triple == WINDOWS { &WIN } else { &ARM };
    cell.get_or_init(|| setup(triple)).as_ref()
}

/// The cross trees are built with the default engine (the pinned 4.0.0 wheels of each target);
/// the engine-matrix runs of scripts/test.sh (3.3.7, Debian's 2.2.2, x86_64 only) do not
/// repeat this file.
fn default_engine() -> bool {
    let source = env!("MJB_ENGINE_SOURCE");
    let default = source.starts_with("pinned wheel mujoco-core==4.0.0");
    if !default {
        eprintln!(
            "cross lane: runs with the default engine only (this run: {source}); not repeated here"
        );
    }
    default
}

fn setup(triple: &'static str) -> Option<Platform> {
    if !default_engine() {
        return None;
    }
    let (cc, cxx, emulator) = if triple == WINDOWS {
        (
            tool("MINGW_CC", "x86_64-w64-mingw32-gcc")?,
            // The posix thread model: std::thread (examples/cpp) on GCC 12.
            tool("MINGW_CXX", "x86_64-w64-mingw32-g++-posix")?,
            tool("WINE", "wine")?,
        )
    } else {
        (
            tool("AARCH64_CC", "aarch64-linux-gnu-gcc")?,
            tool("AARCH64_CXX", "aarch64-linux-gnu-g++")?,
            tool("QEMU_AARCH64", "qemu-aarch64-static")?,
        )
    };
    let _ = emulator;
    if !rust_target(triple) {
        return None;
    }
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("cross")
        .join(triple);
    let _ = std::fs::remove_dir_all(&work);
    let prefix = work.join("prefix");
    let progs = work.join("progs");
    std::fs::create_dir_all(&progs).unwrap();
    let out = Command::new("bash")
        .arg(root().join("scripts/install.sh"))
        .args(["--target", triple, "--bundle-mujoco", "--prefix"])
        .arg(&prefix)
        .arg("--target-dir")
        .arg(root().join("target/cross-install"))
        .env_remove("CARGO_TARGET_DIR")
        .env(
            "MJB_MUJOCO_CACHE",
            std::env::var_os("MJB_MUJOCO_CACHE")
                .map(PathBuf::from)
                .unwrap_or_else(|| root().join("target/mujoco-cache")),
        )
        .output()
        .expect("run install.sh");
    print!("{}", String::from_utf8_lossy(&out.stdout));
    assert!(
        out.status.success(),
        "install.sh --target {triple} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let p = Platform {
        triple,
        cc,
        cxx,
        prefix,
        progs,
    };
    if p.windows() {
        // The ProcessPrng stand-in, beside the programs only.
        let o = Command::new(&p.cc)
            .args(["-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-o"])
            .arg(p.progs.join("bcryptprimitives.dll"))
            .arg(root().join("tests/windows/processprng.c"))
            .arg("-ladvapi32")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // A fresh Wine prefix once (its first start takes a while).
        let _ = Command::new("wineboot")
            .arg("--init")
            .env("WINEPREFIX", wine_prefix())
            .env("WINEDEBUG", "-all")
            .env("WINEDLLOVERRIDES", "mscoree=;mshtml=")
            .output();
    }
    Some(p)
}

// ---- the same hosts on both platforms ------------------------------------------------------

fn demo_host(triple: &'static str) {
    let Some(p) = platform(triple) else { return };
    let exe = p.build(
        "checkpoint_demo",
        false,
        &[root().join("examples/checkpoint_demo.c")],
        &[],
    );
    let out = p.run(&exe, &[&p.model("contact_act.xml"), "500", "1000"]);
    assert!(
        out.contains("continuation after restore is bit-identical to the first run: YES"),
        "{out}"
    );
}

fn lifecycle_host(triple: &'static str) {
    let Some(p) = platform(triple) else { return };
    let exe = p.build(
        "lifecycle",
        false,
        &[root().join("tests/c/lifecycle.c")],
        &[],
    );
    let out = p.run(&exe, &[&p.model("pendulum.xml"), &p.model("broken.xml")]);
    assert!(out.contains("lifecycle: all checks passed"), "{out}");
}

fn threaded_host_loop(triple: &'static str) {
    let Some(p) = platform(triple) else { return };
    // POSIX threads: glibc's, or mingw's winpthreads linked into the program (`-static`).
    let threads: &[&str] = &["-lpthread"];
    let exe = p.build(
        "host_loop",
        false,
        &[root().join("examples/host_loop.c")],
        threads,
    );
    let out = p.run(&exe, &[&p.model("contact_act.xml"), "300", "--fast"]);
    assert!(out.contains("host_loop: all checks passed"), "{out}");
}

fn cpp_raii_host(triple: &'static str) {
    let Some(p) = platform(triple) else { return };
    let exe = p.build(
        "binding_raii",
        true,
        &[root().join("tests/cpp/binding_raii.cpp")],
        &[],
    );
    let out = p.run(&exe, &[&p.model("contact_act.xml"), &p.model("broken.xml")]);
    assert!(out.contains("binding_raii: all checks passed"), "{out}");
}

/// CMake with a cross toolchain file configures `examples/cpp` against the installed package.
fn cmake_package(triple: &'static str, static_lib: bool) {
    let Some(p) = platform(triple) else { return };
    let Some(cmake) = tool("CMAKE", "cmake") else {
        return;
    };
    let name = if static_lib {
        "c-static"
    } else {
        "example-cpp"
    };
    let source = if static_lib {
        root().join("tests/install/c_static")
    } else {
        root().join("examples/cpp")
    };
    let build = p.progs.join(format!("cmake-{name}"));
    let _ = std::fs::remove_dir_all(&build);
    std::fs::create_dir_all(&build).unwrap();
    let toolchain = build.join("toolchain.cmake");
    let text = if p.windows() {
        format!(
            "set(CMAKE_SYSTEM_NAME Windows)\nset(CMAKE_SYSTEM_PROCESSOR x86_64)\n\
             set(CMAKE_C_COMPILER {})\nset(CMAKE_CXX_COMPILER {})\n\
             set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)\n\
             set(CMAKE_EXE_LINKER_FLAGS_INIT \"-static-libgcc -static-libstdc++ -static\")\n",
            p.cc.display(),
            p.cxx.display()
        )
    } else {
        format!(
            "set(CMAKE_SYSTEM_NAME Linux)\nset(CMAKE_SYSTEM_PROCESSOR aarch64)\n\
             set(CMAKE_C_COMPILER {})\nset(CMAKE_CXX_COMPILER {})\n",
            p.cc.display(),
            p.cxx.display()
        )
    };
    std::fs::write(&toolchain, text).unwrap();
    let configure = Command::new(&cmake)
        .arg("-S")
        .arg(&source)
        .arg("-B")
        .arg(&build)
        .arg(format!("-DCMAKE_TOOLCHAIN_FILE={}", toolchain.display()))
        .arg(format!(
            "-Dmjbridge_DIR={}",
            p.prefix.join("lib/cmake/mjbridge").display()
        ))
        .arg("-DCMAKE_BUILD_TYPE=Release")
        .output()
        .unwrap();
    assert!(
        configure.status.success(),
        "cmake configure ({name}, {triple}):\n{}{}",
        String::from_utf8_lossy(&configure.stdout),
        String::from_utf8_lossy(&configure.stderr)
    );
    let b = Command::new(&cmake)
        .arg("--build")
        .arg(&build)
        .output()
        .unwrap();
    assert!(
        b.status.success(),
        "cmake build ({name}, {triple}):\n{}{}",
        String::from_utf8_lossy(&b.stdout),
        String::from_utf8_lossy(&b.stderr)
    );
    let exe_name = if static_lib {
        "consumer_static"
    } else {
        "mjbridge_example"
    };
    let exe = build.join(if p.windows() {
        format!("{exe_name}.exe")
    } else {
        exe_name.to_owned()
    });
    // Run from the programs folder (the ProcessPrng stand-in sits there).
    let here = p.progs.join(exe.file_name().unwrap());
    std::fs::copy(&exe, &here).unwrap();
    if static_lib {
        let out = p.run(&here, &[&p.model("pendulum.xml")]);
        assert!(out.contains("consumer: all checks passed"), "{out}");
        if p.windows() {
            let imports = objdump_imports(&here);
            assert!(
                !imports
                    .iter()
                    .any(|d| d.eq_ignore_ascii_case("mjbridge.dll")),
                "{imports:?}"
            );
            assert!(imports.iter().any(|d| d.eq_ignore_ascii_case("mujoco.dll")));
        }
    } else {
        let out = p.run(&here, &[]);
        for want in [
            "restored: tick 150 -> 100",
            "MJB_REASON_SEED",
            "stop latched from another thread",
            "example-cpp: done",
        ] {
            assert!(out.contains(want), "{want:?} missing:\n{out}");
        }
    }
}

fn plugin_model(triple: &'static str) {
    let Some(p) = platform(triple) else { return };
    let exe = p.build(
        "plugin_host",
        false,
        &[root().join("tests/c/plugin_host.c")],
        &[],
    );
    let plugins = p.runtime_dir().join("mujoco_plugin");
    assert!(
        plugins.is_dir(),
        "no bundled plugin folder {}",
        plugins.display()
    );
    let out = p.run(&exe, &[&p.path(&plugins), &p.model("pid_plugin.xml")]);
    assert!(out.contains("plugin_host: all checks passed"), "{out}");
}

/// A checkpoint taken by the Linux x86_64 build restores on this platform's build of the same
/// model and engine, bit for bit (the state hash covers every integration-state byte), and the
/// continuation there is deterministic (two restores, the same 500 steps, the same state).
/// Whether that continuation equals Linux x86_64's is measured and printed, not asserted:
/// MuJoCo promises determinism only within one build and architecture (docs/platforms.md,
/// "A checkpoint across platforms").
fn linux_x86_64_checkpoint_restores(triple: &'static str) {
    let Some(p) = platform(triple) else { return };
    let Some(host_cc) = tool("CC", "cc") else {
        return;
    };
    let native = toolchain::build(
        toolchain::Build {
            compiler: &host_cc,
            std: "c99",
            sources: vec![root().join("tests/c/cross_checkpoint.c")],
            with_mujoco: false,
            extra: vec![],
        },
        "cross_checkpoint_x86_64",
    );
    let exe = p.build(
        "cross_checkpoint",
        false,
        &[root().join("tests/c/cross_checkpoint.c")],
        &[],
    );
    let line = |out: &str, key: &str| {
        out.lines()
            .find(|l| l.starts_with(key))
            .unwrap_or_else(|| panic!("no {key} in {out}"))
            .to_owned()
    };
    for model in ["contact_act.xml", "history_plastic.xml", "pendulum.xml"] {
        let file = p.progs.join(format!("{model}.checkpoint.json"));
        let here = toolchain::run(
            &native,
            &[
                "take",
                &root().join("tests/models").join(model).to_string_lossy(),
                "300",
                "500",
                &file.to_string_lossy(),
            ],
            &[],
        );
        let there = p.run(&exe, &["restore", &p.model(model), &p.path(&file), "500"]);
        let again = p.run(&exe, &["restore", &p.model(model), &p.path(&file), "500"]);
        assert!(there.contains("restore: MJB_OK"), "{model}: {there}");
        assert_eq!(
            line(&here, "hash-at-checkpoint"),
            line(&there, "hash-at-checkpoint"),
            "{model}: the restored state differs on {triple}"
        );
        assert_eq!(
            line(&there, "hash-after-m"),
            line(&again, "hash-after-m"),
            "{model}: two restores on {triple} continue differently"
        );
        eprintln!(
            "{model}: the compiled model's fingerprint on {triple} {} the Linux x86_64 one",
            if line(&here, "model") == line(&there, "model") {
                "equals"
            } else {
                "differs from"
            }
        );
        let same = line(&here, "hash-after-m") == line(&there, "hash-after-m");
        println!(
            "MEASURED {model}: Linux x86_64 checkpoint restored on {triple} bit for bit; \
             500 steps later the state is {} Linux x86_64's",
            if same {
                "bit-identical to"
            } else {
                "NOT bit-identical to"
            }
        );
    }
}

/// The header alone compiles as C99 (`-pedantic`, no mujoco.h) and as C++17 together with the
/// target's mujoco.h (the C++ host adopts its own pair, MuJoCo linked through the tree: on
/// Windows its `mujoco.lib` import library) with the cross compilers, and both run.
fn header_standalone(triple: &'static str) {
    let Some(p) = platform(triple) else { return };
    let exe = p.build(
        "header_c99",
        false,
        &[root().join("tests/c/header_c99.c")],
        &["-pedantic"],
    );
    assert!(p.run(&exe, &[]).contains("header_c99: all checks passed"));
    let cache = std::env::var_os("MJB_MUJOCO_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/mujoco-cache"));
    let folder = if p.windows() {
        "4.0.0-x86_64-windows"
    } else {
        "4.0.0-aarch64-linux"
    };
    let include = cache.join(folder).join("mujoco/include");
    let mujoco = if p.windows() {
        p.prefix.join("lib/mujoco.lib")
    } else {
        p.prefix.join("lib/libmujoco.so.4.0.0")
    };
    let include_flag = format!("-I{}", include.display());
    // MuJoCo after the bridge: MuJoCo 4.0 exports a `mjb_step` of its own (its batch API), and
    // the first library that defines a name is the one a program binds (docs/c.md, "Linking
    // MuJoCo yourself").
    let mujoco = mujoco.to_string_lossy().into_owned();
    let exe = p.build(
        "header_cpp17",
        true,
        &[root().join("tests/cpp/header_cpp17.cpp")],
        &[&include_flag, &mujoco],
    );
    let out = p.run(&exe, &[&p.model("pendulum.xml")]);
    assert!(out.contains("header_cpp17: all checks passed"), "{out}");
}

/// What an MSVC consumer sees (the header preprocessed with `_MSC_VER` defined): every export
/// `__declspec(dllimport)`, none with `MJBRIDGE_STATIC`; nothing for gcc/mingw.
#[test]
fn header_marks_exports_dllimport_for_msvc_consumers_only() {
    let Some(cc) = tool("CC", "cc") else { return };
    let header = root().join("include/mjbridge.h");
    let pre = |defs: &[&str]| {
        let o = Command::new(&cc)
            .args(["-E", "-P", "-x", "c"])
            .args(defs)
            .arg(&header)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).replace('\n', " ")
    };
    let msvc = pre(&["-D_MSC_VER=1930"]);
    let exports = msvc.matches("mjb_outcome mjb_step(").count();
    assert_eq!(exports, 1, "{msvc}");
    assert!(
        msvc.contains("__declspec(dllimport) mjb_outcome mjb_endpoint_step("),
        "MSVC consumers import the DLL's exports"
    );
    // A deprecated export is imported the same way, its deprecation after the import (gcc
    // takes the macro's __GNUC__ branch even with _MSC_VER defined).
    assert!(
        msvc.contains("__declspec(dllimport) __attribute__((deprecated(\"use mjb_endpoint_step"),
        "a deprecated export is still imported: {msvc}"
    );
    assert!(msvc.contains("__declspec(dllimport) const char *mjb_version("));
    for text in [pre(&["-D_MSC_VER=1930", "-DMJBRIDGE_STATIC"]), pre(&[])] {
        assert!(!text.contains("__declspec"), "{text}");
    }
}

/// A real engine error deep inside `mj_step` (the arena overflows once the boxes touch), not an
/// injected one: rolled back and proven, not fenced, on this platform's build.
fn engine_error_in_mj_step(triple: &'static str) {
    let Some(p) = platform(triple) else { return };
    let exe = p.build(
        "engine_error_host",
        false,
        &[root().join("tests/c/engine_error_host.c")],
        &[],
    );
    let out = p.run(&exe, &[&p.model("arena_overflow.xml")]);
    assert!(
        out.contains("engine_error_host: all checks passed"),
        "{out}"
    );
}

/// The same host on the build machine's own build: the reference for the two above.
#[test]
fn linux_x86_64_engine_error_in_mj_step_is_rolled_back() {
    // The model overflows MuJoCo 4.0.0's arena; other releases size it differently.
    if !default_engine() {
        return;
    }
    let Some(cc) = tool("CC", "cc") else { return };
    let exe = toolchain::build(
        toolchain::Build {
            compiler: &cc,
            std: "c99",
            sources: vec![root().join("tests/c/engine_error_host.c")],
            with_mujoco: false,
            extra: vec![],
        },
        "engine_error_host",
    );
    let out = toolchain::run(
        &exe,
        &[&root()
            .join("tests/models/arena_overflow.xml")
            .to_string_lossy()],
        &[],
    );
    assert!(
        out.contains("engine_error_host: all checks passed"),
        "{out}"
    );
}

/// DLL names a PE file imports.
fn objdump_imports(exe: &Path) -> Vec<String> {
    let o = Command::new("x86_64-w64-mingw32-objdump")
        .arg("-p")
        .arg(exe)
        .output()
        .expect("x86_64-w64-mingw32-objdump");
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("DLL Name: ").map(str::to_owned))
        .collect()
}

// ---- Windows x86_64 under Wine -------------------------------------------------------------

#[test]
fn windows_demo_host_continues_bit_identically_under_wine() {
    demo_host(WINDOWS);
}

#[test]
fn windows_header_is_standalone_c99_and_cpp17_with_the_mingw_compilers() {
    header_standalone(WINDOWS);
}

#[test]
fn windows_lifecycle_host_passes_under_wine() {
    lifecycle_host(WINDOWS);
}

#[test]
fn windows_host_loop_stops_from_another_thread_frames_never_torn() {
    threaded_host_loop(WINDOWS);
}

#[test]
fn windows_cpp_raii_host_built_with_mingw_gxx_passes() {
    cpp_raii_host(WINDOWS);
}

#[test]
fn windows_cmake_package_with_a_mingw_toolchain_file_builds_the_example() {
    cmake_package(WINDOWS, false);
}

#[test]
fn windows_static_library_links_and_runs() {
    cmake_package(WINDOWS, true);
}

#[test]
fn windows_model_needing_mujoco_plugin_dlls_opens_and_steps() {
    plugin_model(WINDOWS);
}

#[test]
fn windows_restores_a_linux_x86_64_checkpoint_bit_for_bit() {
    linux_x86_64_checkpoint_restores(WINDOWS);
}

/// The MSVC-format import library (from the .def, by llvm-dlltool) names every export of the
/// DLL and links a working program (GNU ld reads MSVC short import libraries too).
#[test]
fn windows_msvc_import_library_lists_every_export_and_links() {
    let Some(p) = platform(WINDOWS) else { return };
    let def = std::fs::read_to_string(p.prefix.join("lib/mjbridge.def")).unwrap();
    let exports: Vec<&str> = def
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("mjb_"))
        .collect();
    let header = std::fs::read_to_string(root().join("include/mjbridge.h")).unwrap();
    // Every export is declared `MJB_API <type> <name>(` (cbindgen's [fn] prefix), on one line
    // or with the prefix alone on the line before.
    // A deprecated export has its MJB_DEPRECATED("...") line between the two.
    let flat = header
        .lines()
        .filter(|l| !l.starts_with("MJB_DEPRECATED("))
        .collect::<Vec<_>>()
        .join("\n")
        .replace("MJB_API\n", "MJB_API ");
    let declared: Vec<String> = flat
        .lines()
        .filter_map(|l| l.strip_prefix("MJB_API "))
        .filter_map(|l| {
            l.split('(')
                .next()?
                .rsplit([' ', '*'])
                .next()
                .map(str::to_owned)
        })
        // mjb_test_* exist only in fault-injection builds, never in a tree.
        .filter(|n| !n.starts_with("mjb_test_"))
        .collect();
    for d in &declared {
        assert!(exports.contains(&d.as_str()), "{d} not in mjbridge.def");
    }
    assert_eq!(exports.len(), declared.len(), "{exports:?} vs {declared:?}");
    let lib = p.prefix.join("lib/mjbridge.lib");
    let o = Command::new("llvm-readobj")
        .arg(&lib)
        .output()
        .expect("llvm-readobj");
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        text.matches("Format: COFF-import-file").count(),
        exports.len(),
        "one short import member per export"
    );
    let exe = p.build_linked(
        "demo_msvc_implib",
        false,
        &[root().join("examples/checkpoint_demo.c"), lib],
        &[],
        false,
    );
    let out = p.run(&exe, &[&p.model("contact_act.xml"), "100", "200"]);
    assert!(out.contains("bit-identical to the first run: YES"), "{out}");
}

/// The tree's layout, its target stated, and nothing but system DLLs and MuJoCo imported.
#[test]
fn windows_tree_layout_states_its_target_and_needs_only_system_dlls() {
    let Some(p) = platform(WINDOWS) else { return };
    for f in [
        "bin/mjbridge.dll",
        "bin/mjbridge.exe",
        "bin/mujoco.dll",
        "lib/mjbridge.lib",
        "lib/libmjbridge.dll.a",
        "lib/mjbridge.def",
        "lib/libmjbridge.a",
        "lib/mujoco.lib",
        "include/mjbridge.h",
        "include/mjbridge.hpp",
        "lib/cmake/mjbridge/mjbridgeConfig.cmake",
        "lib/pkgconfig/mjbridge.pc",
        "share/mjbridge/csharp/MjBridge.cs",
        "share/mjbridge/TARGET",
    ] {
        assert!(p.prefix.join(f).is_file(), "{f} is not installed");
    }
    let plugins: Vec<_> = std::fs::read_dir(p.prefix.join("bin/mujoco_plugin"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(plugins.iter().any(|n| n == "actuator.dll"), "{plugins:?}");
    assert!(
        !p.prefix.join("bin/bcryptprimitives.dll").exists(),
        "the Wine stand-in must never enter a tree"
    );
    let target = std::fs::read_to_string(p.prefix.join("share/mjbridge/TARGET")).unwrap();
    assert!(target.contains("target=x86_64-pc-windows-gnu"), "{target}");
    let cmake =
        std::fs::read_to_string(p.prefix.join("lib/cmake/mjbridge/mjbridgeConfig.cmake")).unwrap();
    assert!(cmake.contains("IMPORTED_IMPLIB") && cmake.contains("IMPORTED_LOCATION"));
    assert!(cmake.contains("set(mjbridge_TARGET \"x86_64-pc-windows-gnu\")"));
    // Nothing a clean Windows 10 lacks but mujoco.dll (tests/common/windows.rs: the list).
    for dll in ["bin/mjbridge.dll", "bin/mjbridge.exe"] {
        windows::assert_only_system_imports(&p.prefix.join(dll), &["mujoco.dll"]);
    }
    // The mjbridge command runs from the tree.
    let exe = p.progs.join("mjbridge.exe");
    std::fs::copy(p.prefix.join("bin/mjbridge.exe"), &exe).unwrap();
    let out = p.run(&exe, &["--version"]);
    assert!(out.contains(env!("CARGO_PKG_VERSION")), "{out}");
}

/// A host that brings its own MuJoCo for Windows (`MUJOCO_DIR` in the layout of MuJoCo's own
/// release: `include/`, `bin/mujoco.dll`, `lib/mujoco.lib`): the build links the import
/// library, and the tree must still bundle the DLL (not the import library under its name), and
/// the CMake package, bundled or not, must name the DLL as the location and an import library
/// as the implib.
#[test]
fn windows_tree_from_a_mujoco_release_layout_names_the_dll_and_its_import_library() {
    let Some(_) = platform(WINDOWS) else { return };
    let cache = std::env::var_os("MJB_MUJOCO_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/mujoco-cache"))
        .join("4.0.0-x86_64-windows/mujoco");
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cross/mujoco-release-layout");
    let _ = std::fs::remove_dir_all(&work);
    let release = work.join("mujoco-4.0.0-windows-x86_64");
    for d in ["bin/mujoco_plugin", "lib"] {
        std::fs::create_dir_all(release.join(d)).unwrap();
    }
    let cp = Command::new("cp")
        .arg("-r")
        .arg(cache.join("include"))
        .arg(&release)
        .status()
        .unwrap();
    assert!(cp.success());
    std::fs::copy(cache.join("mujoco.dll"), release.join("bin/mujoco.dll")).unwrap();
    for e in std::fs::read_dir(cache.join("plugin")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(
            e.path(),
            release.join("bin/mujoco_plugin").join(e.file_name()),
        )
        .unwrap();
    }
    let def = Command::new("gendef")
        .args(["-", "mujoco.dll"])
        .current_dir(release.join("bin"))
        .output()
        .unwrap();
    std::fs::write(work.join("mujoco.def"), &def.stdout).unwrap();
    let implib = Command::new("llvm-dlltool")
        .args(["-m", "i386:x86-64", "-D", "mujoco.dll", "-d"])
        .arg(work.join("mujoco.def"))
        .arg("-l")
        .arg(release.join("lib/mujoco.lib"))
        .status()
        .unwrap();
    assert!(implib.success());

    let run_install = |prefix: &Path, bundle: &str| {
        Command::new("bash")
            .arg(root().join("scripts/install.sh"))
            .args(["--target", WINDOWS, bundle, "--prefix"])
            .arg(prefix)
            .arg("--target-dir")
            .arg(root().join("target/cross-install-mujoco-dir"))
            .env_remove("CARGO_TARGET_DIR")
            .env("MUJOCO_DIR", &release)
            .output()
            .expect("run install.sh")
    };
    // No license texts in MUJOCO_DIR: a tree that would carry mujoco.dll is refused, and
    // nothing is installed.
    let refused = work.join("refused");
    let out = run_install(&refused, "--bundle-mujoco");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("would be bundled without its license texts"),
        "{stderr}"
    );
    assert!(!refused.exists(), "a refused install left files");
    // With MuJoCo's LICENSE and LICENSES_THIRD_PARTY.md at the top of MUJOCO_DIR (here the
    // wheel's, standing in for a release's), they are bundled beside the DLL.
    let texts = cache.parent().unwrap().join("licenses");
    for f in ["LICENSE", "LICENSES_THIRD_PARTY.md"] {
        std::fs::copy(texts.join(f), release.join(f)).unwrap();
    }
    let install = |prefix: &Path, bundle: &str| {
        let out = run_install(prefix, bundle);
        assert!(
            out.status.success(),
            "install.sh {bundle} with MUJOCO_DIR failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read_to_string(prefix.join("lib/cmake/mjbridge/mjbridgeConfig.cmake")).unwrap()
    };
    let bundled = work.join("bundled");
    let cmake = install(&bundled, "--bundle-mujoco");
    assert_eq!(
        std::fs::read(bundled.join("bin/mujoco.dll")).unwrap(),
        std::fs::read(cache.join("mujoco.dll")).unwrap(),
        "the tree bundles the DLL itself"
    );
    assert!(bundled.join("bin/mujoco_plugin/actuator.dll").is_file());
    for f in ["LICENSE", "LICENSES_THIRD_PARTY.md"] {
        let carried =
            std::fs::read(bundled.join("share/licenses/mjbridge/mujoco").join(f)).unwrap();
        assert!(!carried.is_empty());
        assert_eq!(carried, std::fs::read(release.join(f)).unwrap(), "{f}");
    }
    assert!(
        cmake.contains("set(mjbridge_MUJOCO_LIBRARY \"${_mjbridge_prefix}/bin/mujoco.dll\")")
            && cmake.contains("IMPORTED_IMPLIB \"${_mjbridge_libdir}/mujoco.lib\""),
        "{cmake}"
    );

    let external = work.join("external");
    let cmake = install(&external, "--no-bundle-mujoco");
    assert!(!external.join("bin/mujoco.dll").exists());
    assert!(external.join("share/licenses/mjbridge/LICENSE").is_file());
    assert!(!external.join("share/licenses/mjbridge/mujoco").exists());
    let location = release.join("bin/mujoco.dll");
    let imported = release.join("lib/mujoco.lib");
    assert!(
        cmake.contains(&format!(
            "set(mjbridge_MUJOCO_LIBRARY \"{}\")",
            location.display()
        )) && cmake.contains(&format!("IMPORTED_IMPLIB \"{}\"", imported.display())),
        "{cmake}"
    );
}

/// The fault-injection suite (`tests/faults.rs`), built for Windows and run under Wine: engine
/// errors in `mj_step` and in the state setter come back through the guard's non-unwinding
/// jump across MSVC-built MuJoCo frames and are rolled back and proven; unprovable ones fence.
#[test]
fn windows_fault_injection_suite_passes_under_wine() {
    let Some(p) = platform(WINDOWS) else { return };
    let exe = cross_test_binary(WINDOWS, "faults");
    let here = p.progs.join("faults.exe");
    std::fs::copy(&exe, &here).unwrap();
    let out = p.run(&here, &["--test-threads=1"]);
    assert!(
        out.contains("engine_error_inside_a_step_rolls_that_step_back ... ok")
            && out.contains("setter_engine_error_is_rolled_back_and_proven ... ok")
            && out.contains("unprovable_rollback_is_unknown_and_fences ... ok"),
        "{out}"
    );
    // Every test of tests/faults.rs ran and passed (at least the 10 it holds on 2026-12-05).
    let passed = out
        .split("test result: ok. ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse::<u32>().ok());
    assert!(
        passed.is_some_and(|n| n >= 10) && out.contains(" 0 failed;"),
        "{out}"
    );
}

#[test]
fn windows_real_engine_error_inside_mj_step_is_rolled_back_under_wine() {
    engine_error_in_mj_step(WINDOWS);
}

/// Build one integration test binary of this crate for `triple` with fault injection; its path.
fn cross_test_binary(triple: &str, test: &str) -> PathBuf {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(root())
        .args([
            "test",
            "--no-run",
            "--features",
            "fault-injection",
            "--target",
            triple,
        ])
        .args(["--test", test, "--message-format=json", "--target-dir"])
        .arg(root().join("target/cross-tests"))
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .expect("cargo test --no-run");
    assert!(
        out.status.success(),
        "cargo test --no-run --target {triple}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let exe = text
        .lines()
        // The integration test target itself (cargo also builds the crate's bin for tests).
        .filter(|l| {
            l.contains("\"reason\":\"compiler-artifact\"")
                && l.contains("\"kind\":[\"test\"]")
                && l.contains(&format!("\"name\":\"{test}\""))
        })
        .filter_map(|l| l.split("\"executable\":\"").nth(1))
        .filter_map(|r| r.split('"').next())
        .next()
        .unwrap_or_else(|| panic!("no test executable for {test} in cargo's messages"));
    PathBuf::from(exe)
}

// ---- Linux aarch64 under qemu --------------------------------------------------------------

#[test]
fn aarch64_demo_host_continues_bit_identically_under_qemu() {
    demo_host(AARCH64);
}

#[test]
fn aarch64_header_is_standalone_c99_and_cpp17_with_the_cross_compilers() {
    header_standalone(AARCH64);
}

#[test]
fn aarch64_lifecycle_host_passes_under_qemu() {
    lifecycle_host(AARCH64);
}

#[test]
fn aarch64_host_loop_stops_from_another_thread_frames_never_torn() {
    threaded_host_loop(AARCH64);
}

#[test]
fn aarch64_cpp_raii_host_passes_under_qemu() {
    cpp_raii_host(AARCH64);
}

#[test]
fn aarch64_cmake_package_with_a_cross_toolchain_file_builds_the_example() {
    cmake_package(AARCH64, false);
}

#[test]
fn aarch64_static_library_links_and_runs() {
    cmake_package(AARCH64, true);
}

#[test]
fn aarch64_model_needing_mujoco_plugins_opens_and_steps() {
    plugin_model(AARCH64);
}

#[test]
fn aarch64_restores_a_linux_x86_64_checkpoint_bit_for_bit() {
    linux_x86_64_checkpoint_restores(AARCH64);
}

#[test]
fn aarch64_real_engine_error_inside_mj_step_is_rolled_back_under_qemu() {
    engine_error_in_mj_step(AARCH64);
}

/// The aarch64 tree keeps the x86_64 promises: SONAME, `$ORIGIN` only, the target stated.
#[test]
fn aarch64_tree_has_soname_origin_runpath_and_states_its_target() {
    let Some(p) = platform(AARCH64) else { return };
    let Some(readelf) = tool("READELF", "readelf") else {
        return;
    };
    let lib = p.prefix.join("lib");
    let so = lib.join(format!("libmjbridge.so.{}", env!("CARGO_PKG_VERSION")));
    let d = String::from_utf8_lossy(
        &Command::new(&readelf)
            .args(["-h", "-d"])
            .arg(&so)
            .output()
            .unwrap()
            .stdout,
    )
    .into_owned();
    assert!(d.contains("AArch64"), "{d}");
    assert!(d.contains("Library soname: [libmjbridge.so.0]"), "{d}");
    assert!(d.contains("Library runpath: [$ORIGIN]"), "{d}");
    assert!(lib.join("libmujoco.so.4.0.0").is_file());
    assert!(lib.join("mujoco_plugin/libactuator.so").is_file());
    let target = std::fs::read_to_string(p.prefix.join("share/mjbridge/TARGET")).unwrap();
    assert!(
        target.contains("target=aarch64-unknown-linux-gnu"),
        "{target}"
    );
    let pc = std::fs::read_to_string(lib.join("pkgconfig/mjbridge.pc")).unwrap();
    assert!(pc.contains("target=aarch64-unknown-linux-gnu"), "{pc}");
    let out = p.run(&p.prefix.join("bin/mjbridge"), &["--version"]);
    assert!(out.contains(env!("CARGO_PKG_VERSION")), "{out}");
}

/// Every Linux library of the aarch64 tree and of a host (x86_64) tree needs no GLIBC symbol
/// version newer than the floor docs/platforms.md states.
#[test]
fn linux_trees_need_no_glibc_newer_than_the_stated_floor() {
    if !default_engine() {
        return;
    }
    let Some(objdump) = tool("OBJDUMP", "objdump") else {
        return;
    };
    let mut trees = Vec::new();
    if let Some(p) = platform(AARCH64) {
        trees.push(p.prefix.clone());
    }
    // The host tree: installed here for this check only.
    let host = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cross/host-prefix");
    let out = Command::new("bash")
        .arg(root().join("scripts/install.sh"))
        .args(["--bundle-mujoco", "--prefix"])
        .arg(&host)
        .arg("--target-dir")
        .arg(root().join("target/cross-install"))
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    trees.push(host);
    for tree in trees {
        let mut files = vec![tree.join("bin/mjbridge")];
        for dir in [tree.join("lib"), tree.join("lib/mujoco_plugin")] {
            for e in std::fs::read_dir(&dir).unwrap() {
                let path = e.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if name.contains(".so.") || (name.ends_with(".so") && !path.is_symlink()) {
                    files.push(path);
                }
            }
        }
        for f in files {
            let o = Command::new(&objdump).arg("-T").arg(&f).output().unwrap();
            let text = String::from_utf8_lossy(&o.stdout);
            let newest = text
                .split("GLIBC_")
                .skip(1)
                .filter_map(|v| {
                    let v: String = v
                        .chars()
                        .take_while(|c| c.is_ascii_digit() || *c == '.')
                        .collect();
                    let mut it = v.split('.').map(|n| n.parse::<u32>().unwrap_or(0));
                    Some((it.next()?, it.next().unwrap_or(0)))
                })
                .max()
                .unwrap_or((0, 0));
            println!("{}: newest GLIBC_{}.{}", f.display(), newest.0, newest.1);
            assert!(
                newest <= GLIBC_FLOOR,
                "{} needs GLIBC_{}.{}, newer than the README's floor {}.{}",
                f.display(),
                newest.0,
                newest.1,
                GLIBC_FLOOR.0,
                GLIBC_FLOOR.1
            );
        }
    }
}

/// `scripts/release.sh` makes one archive per target with a SHA-256 file that checks, holding
/// one self-contained tree that states its target (and never the Wine stand-in).
#[test]
fn release_archive_per_target_with_its_sha256() {
    for triple in [WINDOWS, AARCH64] {
        let Some(p) = platform(triple) else { continue };
        let out = p.progs.join("release");
        let o = Command::new("bash")
            .arg(root().join("scripts/release.sh"))
            .args(["--target", triple, "--out"])
            .arg(&out)
            .arg("--target-dir")
            .arg(root().join("target/cross-install"))
            .env_remove("CARGO_TARGET_DIR")
            // A DESTDIR in the caller's environment is not the archive's business.
            .env("DESTDIR", p.progs.join("stray-destdir"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(!p.progs.join("stray-destdir").exists());
        let name = format!("mjbridge-{}-{triple}", env!("CARGO_PKG_VERSION"));
        let archive = if p.windows() {
            format!("{name}.zip")
        } else {
            format!("{name}.tar.gz")
        };
        let check = Command::new("sha256sum")
            .args(["-c", &format!("{archive}.sha256")])
            .current_dir(&out)
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "{}",
            String::from_utf8_lossy(&check.stdout)
        );
        let leftovers: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".part"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        let list = if p.windows() {
            Command::new("unzip")
                .arg("-l")
                .arg(out.join(&archive))
                .output()
        } else {
            Command::new("tar")
                .arg("-tzf")
                .arg(out.join(&archive))
                .output()
        }
        .unwrap();
        let list = String::from_utf8_lossy(&list.stdout);
        assert!(
            list.contains(&format!("{name}/share/mjbridge/TARGET")),
            "{list}"
        );
        assert!(
            list.contains(&format!("{name}/include/mjbridge.h")),
            "{list}"
        );
        assert!(!list.contains("bcryptprimitives"), "{list}");

        // The license texts, each the file it was copied from: the bridge's, the crates'
        // notices and the bundled MuJoCo's (the target's pinned wheel).
        let wheel_texts = std::env::var_os("MJB_MUJOCO_CACHE")
            .map(PathBuf::from)
            .unwrap_or_else(|| root().join("target/mujoco-cache"))
            .join(if p.windows() {
                "4.0.0-x86_64-windows"
            } else {
                "4.0.0-aarch64-linux"
            })
            .join("licenses");
        for (member, source) in [
            ("LICENSE", root().join("LICENSE")),
            (
                "THIRD_PARTY_NOTICES.md",
                root().join("THIRD_PARTY_NOTICES.md"),
            ),
            ("mujoco/LICENSE", wheel_texts.join("LICENSE")),
            (
                "mujoco/LICENSES_THIRD_PARTY.md",
                wheel_texts.join("LICENSES_THIRD_PARTY.md"),
            ),
        ] {
            let member = format!("{name}/share/licenses/mjbridge/{member}");
            let o = if p.windows() {
                Command::new("unzip")
                    .arg("-p")
                    .arg(out.join(&archive))
                    .arg(&member)
                    .output()
            } else {
                Command::new("tar")
                    .arg("-xOzf")
                    .arg(out.join(&archive))
                    .arg(&member)
                    .output()
            }
            .unwrap();
            assert!(o.status.success(), "{member} is not in {archive}");
            assert!(!o.stdout.is_empty(), "{member} is empty");
            assert_eq!(
                o.stdout,
                std::fs::read(&source).unwrap(),
                "{member} is not {}",
                source.display()
            );
        }
    }
}
