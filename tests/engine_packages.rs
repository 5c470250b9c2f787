//! The Unity package and the Unreal plugin, as `scripts/release.sh --engines` ships them, and the
//! C# binding's IL2CPP rule.
//!
//! Built once per test binary: the Linux x86_64 and Windows x86_64 install trees
//! (`scripts/install.sh --bundle-mujoco`, the release build folder tests/cross.rs uses), the
//! release's engine packages (its Unity tarball and Unreal zip, unpacked here) and a second
//! Unity tarball made directly from the trees (the two must be the same bytes). Checked here:
//! - Unity: the npm-pack layout, package.json, the assembly definition, a `.meta` for every
//!   file and folder with unique GUIDs and the importer Unity gives that kind of file, each
//!   binary's PluginImporter against the binary's own ELF/PE header (Any disabled, exactly its
//!   platform and CPU), `libmujoco.so` and the DT_NEEDED naming it, the C# of `Runtime/` compiled
//!   with mcs and run on Mono against the package's Linux libraries (nothing on
//!   LD_LIBRARY_PATH), a C host against the package's Windows DLLs under Wine from the package
//!   folder;
//! - IL2CPP: every delegate the compiled binding hands to native code targets a static
//!   `[MonoPInvokeCallback]` method (`bindings/csharp/tests/Il2cppCheck.cs`, which reads the IL);
//!   the check refuses a closure, an instance method, an unmarked or mis-marked method and a
//!   converted delegate (`Il2cppBad.cs`);
//! - Unreal: the `.uplugin`, every path the `Build.cs` files and the module name, every shipped
//!   library staged, the Linux SONAME, and an MSVC-mode C program (clang, `lld-link`, the plugin's
//!   `mjbridge.lib`, no C runtime) run under Wine from the plugin's Win64 folder;
//! - Windows: the DLLs and the command import nothing a clean Windows 10 lacks but MuJoCo (and
//!   MuJoCo itself only the Visual C++ runtime besides), and the check catches a MinGW runtime
//!   DLL.
//!
//! Not run here (no Unity, no Unreal): Unity's importer, IL2CPP code generation, player
//! builds; UnrealBuildTool, cooking and staging.

#[path = "common/toolchain.rs"]
mod toolchain;
#[path = "common/windows.rs"]
mod windows;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use toolchain::{require_all, root, tool};

const LINUX: &str = "x86_64-unknown-linux-gnu";
const WINDOWS: &str = "x86_64-pc-windows-gnu";
const UNITY_NAME: &str = "com.mjbridge.mjbridge";
const VERSION: &str = env!("CARGO_PKG_VERSION");

fn skip(msg: &str) {
    if require_all() {
        panic!("TOOLCHAIN MISSING: {msg} and MJB_REQUIRE_ALL_TOOLCHAINS=1");
    }
    eprintln!("\n!!!!!!!! TOOLCHAIN MISSING: {msg} — SKIPPED !!!!!!!!\n");
}

/// The packages are built from the default engine's trees (the pinned 4.0.0 wheels); the
/// engine-matrix runs of scripts/test.sh do not repeat them.
fn default_engine() -> bool {
    let source = env!("MJB_ENGINE_SOURCE");
    let default = source.starts_with("pinned wheel mujoco-core==4.0.0");
    if !default {
        eprintln!("engine packages: built with the default engine only (this run: {source})");
    }
    default
}

struct Packages {
    work: PathBuf,
    linux_tree: PathBuf,
    windows_tree: PathBuf,
    /// What release.sh wrote.
    release: PathBuf,
    /// The release's Unity tarball, unpacked: its `package/` folder.
    unity: PathBuf,
    /// The release's Unreal zip, unpacked: its `MjBridge/` folder.
    unreal: PathBuf,
    /// Scratch space for programs (never inside a package).
    progs: PathBuf,
    mingw_cc: PathBuf,
}

impl Packages {
    fn unity_linux(&self) -> PathBuf {
        self.unity.join("Runtime/Plugins/Linux/x86_64")
    }
    fn unity_windows(&self) -> PathBuf {
        self.unity.join("Runtime/Plugins/Windows/x86_64")
    }
    fn unreal_bins(&self) -> PathBuf {
        self.unreal.join("Binaries/ThirdParty/MjBridgeLibrary")
    }
    fn unity_tgz(&self) -> PathBuf {
        self.release.join(format!("{UNITY_NAME}-{VERSION}.tgz"))
    }
    fn unreal_zip(&self) -> PathBuf {
        self.release
            .join(format!("mjbridge-{VERSION}-unreal-plugin.zip"))
    }
}

fn packages() -> Option<&'static Packages> {
    static P: OnceLock<Option<Packages>> = OnceLock::new();
    P.get_or_init(setup).as_ref()
}

fn cache() -> PathBuf {
    std::env::var_os("MJB_MUJOCO_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/mujoco-cache"))
}

fn bash(script: &str, args: &[&str]) {
    let out = Command::new("bash")
        .arg(root().join(script))
        .args(args)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("DESTDIR")
        .env("MJB_MUJOCO_CACHE", cache())
        .output()
        .unwrap_or_else(|e| panic!("run {script}: {e}"));
    print!("{}", String::from_utf8_lossy(&out.stdout));
    assert!(
        out.status.success(),
        "{script} {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn setup() -> Option<Packages> {
    if !default_engine() {
        return None;
    }
    for (var, name) in [
        ("PATCHELF", "patchelf"),
        ("READELF", "readelf"),
        ("WINE", "wine"),
        ("ZIP", "zip"),
        ("MINGW_OBJDUMP", "x86_64-w64-mingw32-objdump"),
    ] {
        tool(var, name)?;
    }
    // Tools without a --version that exits 0: present when they start.
    for (name, package) in [("unzip", "unzip"), ("llvm-dlltool", "llvm")] {
        if Command::new(name).arg("-h").output().is_err() {
            skip(&format!("`{name}` (Debian: {package})"));
            return None;
        }
    }
    let mingw_cc = tool("MINGW_CC", "x86_64-w64-mingw32-gcc")?;
    let sysroot = String::from_utf8_lossy(
        &Command::new("rustc")
            .args(["--print", "sysroot"])
            .output()
            .expect("rustc")
            .stdout,
    )
    .trim()
    .to_owned();
    if !Path::new(&sysroot)
        .join("lib/rustlib")
        .join(WINDOWS)
        .is_dir()
    {
        skip(&format!(
            "rust-std for {WINDOWS} (rustup target add {WINDOWS})"
        ));
        return None;
    }
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("engine-packages");
    let _ = std::fs::remove_dir_all(&work);
    let progs = work.join("progs");
    std::fs::create_dir_all(&progs).unwrap();
    let build_dir = root().join("target/cross-install");
    let build_dir = build_dir.to_str().unwrap();
    let linux_tree = work.join("trees").join(LINUX);
    let windows_tree = work.join("trees").join(WINDOWS);
    for (triple, tree) in [(LINUX, &linux_tree), (WINDOWS, &windows_tree)] {
        bash(
            "scripts/install.sh",
            &[
                "--target",
                triple,
                "--bundle-mujoco",
                "--prefix",
                tree.to_str().unwrap(),
                "--target-dir",
                build_dir,
            ],
        );
    }
    let release = work.join("release");
    bash(
        "scripts/release.sh",
        &[
            "--target",
            WINDOWS,
            "--engines",
            "--out",
            release.to_str().unwrap(),
            "--target-dir",
            build_dir,
        ],
    );
    let p = Packages {
        unity: work.join("unity/package"),
        unreal: work.join("unreal/MjBridge"),
        work,
        linux_tree,
        windows_tree,
        release,
        progs,
        mingw_cc,
    };
    std::fs::create_dir_all(p.work.join("unity")).unwrap();
    let tar = Command::new("tar")
        .arg("-C")
        .arg(p.work.join("unity"))
        .arg("-xzf")
        .arg(p.unity_tgz())
        .output()
        .unwrap();
    assert!(
        tar.status.success(),
        "{}",
        String::from_utf8_lossy(&tar.stderr)
    );
    let unzip = Command::new("unzip")
        .arg("-q")
        .arg(p.unreal_zip())
        .arg("-d")
        .arg(p.work.join("unreal"))
        .output()
        .unwrap();
    assert!(
        unzip.status.success(),
        "{}",
        String::from_utf8_lossy(&unzip.stderr)
    );
    windows::processprng_standin(&p.mingw_cc, &p.progs);
    Some(p)
}

// ---- small readers -------------------------------------------------------------------------

/// What a file is built for, from its own header.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Kind {
    ElfX86_64,
    PeX86_64,
    OtherBinary,
    NotBinary,
}

fn kind(path: &Path) -> Kind {
    let b = std::fs::read(path).unwrap();
    if b.len() >= 20 && b[..4] == [0x7f, b'E', b'L', b'F'] {
        // 64-bit, little-endian, e_machine EM_X86_64 (62).
        let machine = u16::from_le_bytes([b[18], b[19]]);
        return if b[4] == 2 && b[5] == 1 && machine == 62 {
            Kind::ElfX86_64
        } else {
            Kind::OtherBinary
        };
    }
    if b.len() >= 64 && b[..2] == *b"MZ" {
        let pe = u32::from_le_bytes([b[60], b[61], b[62], b[63]]) as usize;
        if b.len() >= pe + 6 && b[pe..pe + 4] == *b"PE\0\0" {
            // IMAGE_FILE_MACHINE_AMD64.
            let machine = u16::from_le_bytes([b[pe + 4], b[pe + 5]]);
            return if machine == 0x8664 {
                Kind::PeX86_64
            } else {
                Kind::OtherBinary
            };
        }
        return Kind::OtherBinary;
    }
    Kind::NotBinary
}

/// Every file and folder below `dir`, relative, sorted.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

fn readelf_d(path: &Path) -> String {
    let o = Command::new("readelf")
        .arg("-d")
        .arg(path)
        .output()
        .unwrap();
    assert!(o.status.success());
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn needed(dynamic: &str) -> Vec<String> {
    dynamic
        .lines()
        .filter_map(|l| l.split("Shared library: [").nth(1))
        .map(|r| r.trim_end_matches(']').to_owned())
        .collect()
}

fn dyn_value(dynamic: &str, key: &str) -> Option<String> {
    dynamic
        .lines()
        .find_map(|l| l.split(&format!("{key}: [")).nth(1))
        .map(|r| r.trim_end_matches(']').to_owned())
}

fn text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The mujoco library file of the Linux tree (libmujoco.so.A.B.C).
fn tree_mujoco(p: &Packages) -> String {
    std::fs::read_dir(p.linux_tree.join("lib"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with("libmujoco.so."))
        .expect("the Linux tree bundles libmujoco.so.A.B.C")
}

fn is_license_name(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    n.starts_with("LICENSE")
        || n.starts_with("COPYING")
        || n.starts_with("NOTICE")
        || (n.contains("THIRD") && n.contains("PARTY"))
}

/// The license and notice files the Linux tree carries (the bridge's, the crates', MuJoCo's),
/// relative to the folder they share, with their bytes: what a package's `Licenses/` must hold.
/// The repository's LICENSE when the tree carries none.
fn expected_licenses(p: &Packages) -> BTreeMap<PathBuf, Vec<u8>> {
    let found: Vec<PathBuf> = walk(&p.linux_tree)
        .into_iter()
        .filter(|r| !r.starts_with("include") && p.linux_tree.join(r).is_file())
        .filter(|r| is_license_name(&r.file_name().unwrap().to_string_lossy()))
        .collect();
    let mut map = BTreeMap::new();
    if found.is_empty() {
        if root().join("LICENSE").is_file() {
            map.insert(
                PathBuf::from("LICENSE"),
                std::fs::read(root().join("LICENSE")).unwrap(),
            );
        }
        return map;
    }
    let mut common = found[0].parent().unwrap().to_path_buf();
    while !found.iter().all(|f| f.starts_with(&common)) {
        common = common.parent().unwrap().to_path_buf();
    }
    for f in found {
        let bytes = std::fs::read(p.linux_tree.join(&f)).unwrap();
        map.insert(f.strip_prefix(&common).unwrap().to_path_buf(), bytes);
    }
    map
}

/// A package's license files below `dir` (its `.meta` files aside), with their bytes.
fn shipped_licenses(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    if !dir.is_dir() {
        return BTreeMap::new();
    }
    walk(dir)
        .into_iter()
        .filter(|r| dir.join(r).is_file() && r.extension().is_none_or(|e| e != "meta"))
        .map(|r| {
            let bytes = std::fs::read(dir.join(&r)).unwrap();
            (r, bytes)
        })
        .collect()
}

/// The package carries every license file of the tree under `Licenses/`, and the bridge's own
/// (the shallowest LICENSE* outside a MuJoCo folder; the repository's LICENSE once it has one)
/// again at the top as `own_name`.
fn check_licenses(p: &Packages, package: &Path, own_name: &str) {
    let expected = expected_licenses(p);
    let shipped = shipped_licenses(&package.join("Licenses"));
    let names = |m: &BTreeMap<PathBuf, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
    println!("license files in the tree: {:?}", names(&expected));
    assert_eq!(
        names(&shipped),
        names(&expected),
        "{}/Licenses",
        package.display()
    );
    assert!(
        shipped == expected,
        "{}/Licenses: contents differ from the tree's",
        package.display()
    );
    let own = expected
        .iter()
        .filter(|(r, _)| {
            r.file_name()
                .unwrap()
                .to_string_lossy()
                .to_ascii_uppercase()
                .starts_with("LICENSE")
        })
        .filter(|(r, _)| !r.to_string_lossy().to_ascii_lowercase().contains("mujoco"))
        .min_by_key(|(r, _)| r.as_os_str().len())
        .map(|(_, b)| b.clone());
    let top = package.join(own_name);
    match own {
        Some(bytes) => {
            assert!(
                std::fs::read(&top).ok() == Some(bytes.clone()),
                "{} is not the bridge's license",
                top.display()
            );
            if let Ok(repo) = std::fs::read(root().join("LICENSE")) {
                assert!(
                    repo == bytes,
                    "{} is not the repository's LICENSE",
                    top.display()
                );
            }
        }
        None => assert!(
            !top.exists(),
            "{} without a license in the tree",
            top.display()
        ),
    }
}

// ---- Unity: .meta files ----------------------------------------------------------------------

#[derive(Debug, Default)]
struct Meta {
    file_format: String,
    guid: String,
    folder: bool,
    importer: String,
    platforms: Vec<PlatformEntry>,
}

#[derive(Debug, Default, Clone)]
struct PlatformEntry {
    /// ("Editor", "Editor"), ("Standalone", "Win64"), ("Any", ""), ("", "Any")
    key: (String, String),
    enabled: bool,
    settings: BTreeMap<String, String>,
}

fn indent(l: &str) -> usize {
    l.len() - l.trim_start().len()
}

/// `key: value` of a YAML line (the key may be empty: Unity writes `: Any`).
fn pair(l: &str) -> (String, String) {
    let t = l.trim();
    let (k, v) = t.split_once(':').unwrap_or((t, ""));
    (k.trim().to_owned(), v.trim().to_owned())
}

/// Reads the .meta subset Unity writes: the header keys, the importer's name, and a
/// PluginImporter's platformData list.
fn parse_meta(s: &str) -> Meta {
    let mut m = Meta::default();
    let lines: Vec<&str> = s.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        if indent(l) == 0 {
            let (k, v) = pair(l);
            match k.as_str() {
                "fileFormatVersion" => m.file_format = v,
                "guid" => m.guid = v,
                "folderAsset" => m.folder = v == "yes",
                _ if v.is_empty() && m.importer.is_empty() => m.importer = k,
                _ => {}
            }
        } else if l.trim() == "platformData:" {
            let base = indent(l);
            i += 1;
            while i < lines.len() && indent(lines[i]) >= base && lines[i].trim() != "" {
                let l = lines[i];
                if l.trim() == "- first:" {
                    let mut e = PlatformEntry {
                        key: pair(lines[i + 1]),
                        ..Default::default()
                    };
                    i += 2;
                    while i < lines.len()
                        && indent(lines[i]) > base
                        && lines[i].trim() != "- first:"
                    {
                        let (k, v) = pair(lines[i]);
                        match k.as_str() {
                            "second" => {}
                            "enabled" => e.enabled = v == "1",
                            "settings" => {}
                            _ if indent(lines[i]) >= base + 6 => {
                                e.settings.insert(k, v);
                            }
                            _ => break,
                        }
                        i += 1;
                    }
                    m.platforms.push(e);
                    continue;
                }
                if indent(l) == base {
                    break;
                }
                i += 1;
            }
            continue;
        }
        i += 1;
    }
    m
}

#[test]
fn meta_reader_reads_unitys_plugin_importer_layout() {
    let m = parse_meta(
        "fileFormatVersion: 2\nguid: 0123456789abcdef0123456789abcdef\nPluginImporter:\n  \
         externalObjects: {}\n  platformData:\n  - first:\n      : Any\n    second:\n      \
         enabled: 0\n      settings:\n        Exclude Win64: 1\n  - first:\n      Editor: \
         Editor\n    second:\n      enabled: 1\n      settings:\n        CPU: x86_64\n        \
         OS: Linux\n  userData: \n",
    );
    assert_eq!(m.importer, "PluginImporter");
    assert_eq!(m.guid.len(), 32);
    assert_eq!(m.platforms.len(), 2, "{m:?}");
    assert_eq!(m.platforms[0].key, (String::new(), "Any".to_owned()));
    assert!(!m.platforms[0].enabled);
    assert_eq!(m.platforms[0].settings["Exclude Win64"], "1");
    assert_eq!(m.platforms[1].key, ("Editor".into(), "Editor".into()));
    assert!(m.platforms[1].enabled);
    assert_eq!(m.platforms[1].settings["OS"], "Linux");
}

// ---- Unity -------------------------------------------------------------------------------------

#[test]
fn unity_tarball_has_the_npm_pack_layout_package_json_and_assembly_definition() {
    let Some(p) = packages() else { return };
    let list = Command::new("tar")
        .arg("-tzf")
        .arg(p.unity_tgz())
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&list.stdout).into_owned();
    assert!(!list.is_empty());
    for member in list.lines() {
        assert!(
            member == "package/" || member.starts_with("package/"),
            "{member}: everything under package/ (npm pack's layout)"
        );
        assert!(
            !member.contains("bcryptprimitives"),
            "the Wine stand-in shipped: {member}"
        );
    }
    let pkg: serde_json::Value =
        serde_json::from_str(&text(&p.unity.join("package.json"))).unwrap();
    let name = pkg["name"].as_str().unwrap();
    assert_eq!(name, UNITY_NAME);
    let parts: Vec<&str> = name.split('.').collect();
    assert!(
        parts.len() >= 3
            && parts.iter().all(|s| !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')),
        "reverse-DNS, lowercase: {name}"
    );
    assert_eq!(pkg["version"], VERSION, "the crate's version");
    assert_eq!(pkg["license"], "Apache-2.0");
    for key in ["displayName", "description", "unity"] {
        assert!(
            pkg[key].as_str().is_some_and(|s| !s.is_empty()),
            "package.json lacks {key}"
        );
    }
    let unity = pkg["unity"].as_str().unwrap();
    let (year, minor) = unity.split_once('.').expect("unity: YEAR.MINOR");
    assert!(
        year.parse::<u32>().unwrap() >= 2021 && minor.parse::<u32>().is_ok(),
        "{unity}"
    );
    assert!(text(&p.unity.join("README.md")).contains(VERSION));

    // The binding, as shipped in the trees, and an assembly definition allowing no unsafe code
    // because the binding has none.
    let cs = text(&p.unity.join("Runtime/MjBridge.cs"));
    assert_eq!(cs, text(&root().join("bindings/csharp/MjBridge.cs")));
    let asmdef: serde_json::Value =
        serde_json::from_str(&text(&p.unity.join("Runtime/MjBridge.asmdef"))).unwrap();
    assert_eq!(asmdef["name"], "MjBridge");
    let uses_unsafe = cs
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .any(|w| w == "unsafe");
    assert_eq!(asmdef["allowUnsafeCode"], uses_unsafe);
    // UnityEngine referenced: its AOT.MonoPInvokeCallbackAttribute is the one IL2CPP reads
    // (the binding defines its own only outside Unity).
    assert_eq!(asmdef["noEngineReferences"], false);
    assert!(cs.contains("#if !UNITY_5_3_OR_NEWER"));

    // Licenses: whatever the tree carries (or the repository's LICENSE), the bridge's own also
    // as LICENSE.md.
    check_licenses(p, &p.unity, "LICENSE.md");
}

#[test]
fn unity_every_file_and_folder_has_a_meta_with_a_unique_guid_and_unitys_importer() {
    let Some(p) = packages() else { return };
    let entries = walk(&p.unity);
    let mut guids = BTreeMap::new();
    let mut metas = 0;
    for rel in &entries {
        let path = p.unity.join(rel);
        let name = rel.to_string_lossy().into_owned();
        if name.ends_with(".meta") {
            let asset = p.unity.join(name.trim_end_matches(".meta"));
            assert!(asset.exists(), "{name} belongs to no file or folder");
            continue;
        }
        let meta_path = PathBuf::from(format!("{}.meta", path.display()));
        assert!(meta_path.is_file(), "{name} has no .meta");
        metas += 1;
        let meta = parse_meta(&text(&meta_path));
        assert_eq!(meta.file_format, "2", "{name}.meta");
        assert!(
            meta.guid.len() == 32 && meta.guid.chars().all(|c| c.is_ascii_hexdigit()),
            "{name}.meta: guid {:?}",
            meta.guid
        );
        if let Some(other) = guids.insert(meta.guid.clone(), name.clone()) {
            panic!("{name} and {other} share the GUID {}", meta.guid);
        }
        let want = if path.is_dir() {
            assert!(meta.folder, "{name}.meta: folderAsset: yes");
            "DefaultImporter"
        } else if kind(&path) != Kind::NotBinary {
            "PluginImporter"
        } else if name.ends_with(".cs") {
            "MonoImporter"
        } else if name.ends_with(".asmdef") {
            "AssemblyDefinitionImporter"
        } else if name == "package.json" {
            "PackageManifestImporter"
        } else if name.ends_with(".md") || name.ends_with(".txt") || name.ends_with(".json") {
            "TextScriptImporter"
        } else {
            "DefaultImporter"
        };
        assert_eq!(meta.importer, want, "{name}.meta");
        assert!(
            path.is_dir() || !meta.folder,
            "{name}.meta: folderAsset on a file"
        );
    }
    assert!(metas >= 20, "{metas} metas");
    println!("{metas} .meta files, {} unique GUIDs", guids.len());
}

#[test]
fn unity_plugin_importer_enables_exactly_the_platform_and_cpu_of_each_binarys_header() {
    let Some(p) = packages() else { return };
    let mut binaries = 0;
    for rel in walk(&p.unity) {
        let path = p.unity.join(&rel);
        let name = rel.to_string_lossy().into_owned();
        if path.is_dir() || name.ends_with(".meta") {
            continue;
        }
        let k = kind(&path);
        let in_plugins = rel.starts_with("Runtime/Plugins");
        assert_eq!(
            in_plugins,
            k != Kind::NotBinary,
            "{name}: binaries live in Runtime/Plugins, nothing else does"
        );
        if k == Kind::NotBinary {
            continue;
        }
        binaries += 1;
        let (os, standalone, folder, ext) = match k {
            Kind::ElfX86_64 => ("Linux", "Linux64", "Runtime/Plugins/Linux/x86_64", ".so"),
            Kind::PeX86_64 => ("Windows", "Win64", "Runtime/Plugins/Windows/x86_64", ".dll"),
            _ => panic!("{name} is a binary for neither ELF x86-64 nor PE x86-64"),
        };
        assert!(rel.starts_with(folder), "{name} ({k:?}) outside {folder}");
        assert!(
            name.ends_with(ext),
            "{name}: Unity ships a native file only under its platform's extension {ext}"
        );
        let meta = parse_meta(&text(Path::new(&format!("{}.meta", path.display()))));
        assert_eq!(meta.importer, "PluginImporter", "{name}");
        let enabled: Vec<&PlatformEntry> = meta.platforms.iter().filter(|e| e.enabled).collect();
        let keys: BTreeSet<(String, String)> = enabled.iter().map(|e| e.key.clone()).collect();
        let want: BTreeSet<(String, String)> = [
            ("Editor".to_owned(), "Editor".to_owned()),
            ("Standalone".to_owned(), standalone.to_owned()),
        ]
        .into();
        assert_eq!(keys, want, "{name}: enabled platforms");
        assert_eq!(enabled.len(), 2, "{name}: each platform once");
        for e in &enabled {
            assert_eq!(
                e.settings.get("CPU").map(String::as_str),
                Some("x86_64"),
                "{name} {:?}",
                e.key
            );
        }
        let editor = enabled.iter().find(|e| e.key.0 == "Editor").unwrap();
        assert_eq!(
            editor.settings.get("OS").map(String::as_str),
            Some(os),
            "{name}"
        );
        let any: Vec<&PlatformEntry> = meta
            .platforms
            .iter()
            .filter(|e| e.key.0 == "Any" || e.key.1 == "Any")
            .collect();
        assert_eq!(any.len(), 2, "{name}: both Any entries written");
        assert!(any.iter().all(|e| !e.enabled), "{name}: Any disabled");
        // The other standalone platforms are there and off.
        for other in ["Linux64", "Win64", "Win", "OSXUniversal"] {
            if other == standalone {
                continue;
            }
            let e = meta
                .platforms
                .iter()
                .find(|e| e.key == ("Standalone".to_owned(), other.to_owned()))
                .unwrap_or_else(|| panic!("{name}: no Standalone {other} entry"));
            assert!(!e.enabled && e.settings.get("CPU").map(String::as_str) == Some("None"));
        }
    }
    // The bridge, MuJoCo and its three engine plugins, for each platform.
    assert_eq!(binaries, 10, "binaries in the package");
}

#[test]
fn unity_linux_bridge_needs_libmujoco_so_and_finds_it_beside_itself() {
    let Some(p) = packages() else { return };
    let mujoco = tree_mujoco(p);
    let lib = p.unity_linux();
    let d = readelf_d(&lib.join("libmjbridge.so"));
    let needs = needed(&d);
    assert!(needs.contains(&"libmujoco.so".to_owned()), "{needs:?}");
    assert!(!needs.iter().any(|n| n == &mujoco), "{needs:?}");
    assert_eq!(dyn_value(&d, "Library runpath").as_deref(), Some("$ORIGIN"));
    assert!(
        std::fs::read(lib.join("libmujoco.so")).unwrap()
            == std::fs::read(p.linux_tree.join("lib").join(&mujoco)).unwrap(),
        "libmujoco.so is the tree's MuJoCo, renamed"
    );
    assert!(!lib.join(&mujoco).exists());
    for e in std::fs::read_dir(lib.join("mujoco_plugin")).unwrap() {
        let f = e.unwrap().path();
        if f.extension().is_some_and(|x| x == "meta") {
            continue;
        }
        let d = readelf_d(&f);
        assert!(
            needed(&d).contains(&"libmujoco.so".to_owned()),
            "{}: {d}",
            f.display()
        );
        let runpath = dyn_value(&d, "Library runpath").unwrap_or_default();
        assert!(
            runpath.split(':').any(|r| r == "$ORIGIN/..")
                && runpath.split(':').any(|r| r == "$ORIGIN"),
            "{}: {runpath}",
            f.display()
        );
    }
    // The loader agrees: every dependency of the package's bridge resolves, MuJoCo from the
    // package (ldd runs nothing of the library).
    let o = Command::new("ldd")
        .arg(lib.join("libmjbridge.so"))
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    let ldd = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(!ldd.contains("not found"), "{ldd}");
    assert!(
        ldd.contains(&format!(
            "libmujoco.so => {}",
            lib.join("libmujoco.so").display()
        )),
        "{ldd}"
    );
}

/// Compile C# with mcs; panics with its output on failure.
fn mcs(args: &[&str]) {
    let mcs = tool("MCS", "mcs").unwrap();
    let o = Command::new(mcs)
        .args(["-warn:4", "-warnaserror+"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "mcs {args:?}:\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn unity_runtime_compiles_with_mcs_and_runs_on_mono_against_the_packages_linux_libraries() {
    let Some(p) = packages() else { return };
    let (Some(_), Some(mono)) = (tool("MCS", "mcs"), tool("MONO", "mono")) else {
        return;
    };
    let dir = p.progs.join("unity-mono");
    std::fs::create_dir_all(&dir).unwrap();
    // The MjBridge assembly as Unity compiles it: every .cs below the asmdef's folder.
    let sources: Vec<String> = walk(&p.unity.join("Runtime"))
        .iter()
        .filter(|r| r.extension().is_some_and(|e| e == "cs"))
        .map(|r| {
            p.unity
                .join("Runtime")
                .join(r)
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(sources.len(), 1, "{sources:?}");
    let dll = dir.join("MjBridge.dll");
    let mut args = vec![
        "-target:library".to_owned(),
        format!("-out:{}", dll.display()),
    ];
    args.extend(sources);
    mcs(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let exe = dir.join("package_host.exe");
    mcs(&[
        &format!("-out:{}", exe.display()),
        &format!("-r:{}", dll.display()),
        root()
            .join("bindings/csharp/tests/PackageHost.cs")
            .to_str()
            .unwrap(),
    ]);
    // "mjbridge" resolves to the package's file, as Unity's importer settings make it (Mono's
    // dllmap); MuJoCo is found by the bridge alone.
    let so = p.unity_linux().join("libmjbridge.so");
    std::fs::write(
        dir.join("MjBridge.dll.config"),
        format!(
            "<configuration>\n  <dllmap dll=\"mjbridge\" target=\"{}\"/>\n</configuration>\n",
            so.display()
        ),
    )
    .unwrap();
    let plugins = p.unity_linux().join("mujoco_plugin");
    let o = Command::new(&mono)
        .arg(&exe)
        .arg(root().join("tests/models"))
        .arg(&plugins)
        .current_dir(&dir)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    print!("{out}");
    eprint!("{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        o.status.success() && out.contains("package-host: all checks passed"),
        "{out}"
    );
    let mapped: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("mapped: "))
        .collect();
    for want in [
        so.clone(),
        p.unity_linux().join("libmujoco.so"),
        plugins.join("libactuator.so"),
    ] {
        assert!(
            mapped.iter().any(|m| Path::new(m) == want),
            "{} not mapped from the package: {mapped:?}",
            want.display()
        );
    }
    assert!(
        mapped.iter().all(|m| Path::new(m).starts_with(&p.unity)),
        "a library from outside the package: {mapped:?}"
    );
    // The package's compiled binding passes the IL2CPP check too.
    let report = il2cpp_check(&dll);
    assert!(report.0, "{}", report.1);
}

/// A C host against the package's Windows DLLs, under Wine, started from the package's
/// Windows folder with nothing on Wine's PATH: the lifecycle host, and a model needing
/// MuJoCo's engine plugin DLLs from the package.
#[test]
fn unity_windows_libraries_run_a_c_host_under_wine_from_the_package_folder() {
    let Some(p) = packages() else { return };
    let folder = p.unity_windows();
    let build = |name: &str, source: &str| {
        let exe = p.progs.join(format!("unity_{name}.exe"));
        let o = Command::new(&p.mingw_cc)
            .args(["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-I"])
            .arg(root().join("include"))
            .arg("-I")
            .arg(root().join("tests/c"))
            .arg(root().join(source))
            // Linked against the package's DLL itself (GNU ld reads its export table).
            .arg(folder.join("mjbridge.dll"))
            .arg("-static")
            .arg("-o")
            .arg(&exe)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        exe
    };
    let z = |path: &Path| format!("Z:{}", path.display());
    let lifecycle = build("lifecycle", "tests/c/lifecycle.c");
    let run = |exe: &Path, args: &[String], cwd: &Path| {
        let o = windows::wine(exe)
            .args(args)
            .current_dir(cwd)
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        print!("{out}");
        (o.status.success(), out)
    };
    let models = root().join("tests/models");
    let args = [
        z(&models.join("pendulum.xml")),
        z(&models.join("broken.xml")),
    ];
    let (ok, out) = run(&lifecycle, &args, &folder);
    assert!(ok && out.contains("lifecycle: all checks passed"), "{out}");
    // Started anywhere else, Windows finds no mjbridge.dll: the run above used the package's.
    let (ok, _) = run(&lifecycle, &args, &p.progs);
    assert!(!ok, "the host started without the package folder");

    let plugin_host = build("plugin_host", "tests/c/plugin_host.c");
    let args = [
        z(&folder.join("mujoco_plugin")),
        z(&models.join("pid_plugin.xml")),
    ];
    let (ok, out) = run(&plugin_host, &args, &folder);
    assert!(
        ok && out.contains("plugin_host: all checks passed"),
        "{out}"
    );
}

#[test]
fn unity_package_is_reproducible_and_the_release_ships_the_same_bytes() {
    let Some(p) = packages() else { return };
    let tgz = |out: &Path| {
        bash(
            "scripts/unity_package.sh",
            &[
                out.to_str().unwrap(),
                "--linux-tree",
                p.linux_tree.to_str().unwrap(),
                "--windows-tree",
                p.windows_tree.to_str().unwrap(),
            ],
        );
        std::fs::read(out.join(format!("{UNITY_NAME}-{VERSION}.tgz"))).unwrap()
    };
    let first = tgz(&p.work.join("unity-direct-1"));
    let second = tgz(&p.work.join("unity-direct-2"));
    assert!(
        first == second,
        "two runs on the same trees made different tarballs"
    );
    assert!(
        first == std::fs::read(p.unity_tgz()).unwrap(),
        "release.sh's tarball differs from the one made from the same build's trees"
    );
}

#[test]
fn unity_package_refuses_a_tree_of_another_target_and_writes_nothing() {
    let Some(p) = packages() else { return };
    let out = p.work.join("unity-refused");
    let o = Command::new("bash")
        .arg(root().join("scripts/unity_package.sh"))
        .arg(&out)
        .arg("--linux-tree")
        .arg(&p.windows_tree)
        .arg("--windows-tree")
        .arg(&p.windows_tree)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("is not a x86_64-unknown-linux-gnu tree"),
        "{err}"
    );
    assert!(!out.exists() || std::fs::read_dir(&out).unwrap().next().is_none());
}

// ---- IL2CPP --------------------------------------------------------------------------------

/// Run Il2cppCheck on an assembly: (passed, its report).
fn il2cpp_check(assembly: &Path) -> (bool, String) {
    static CHECKER: OnceLock<PathBuf> = OnceLock::new();
    let checker = CHECKER.get_or_init(|| {
        let exe = toolchain::out_dir().join("il2cppcheck.exe");
        mcs(&[
            &format!("-out:{}", exe.display()),
            root()
                .join("bindings/csharp/tests/Il2cppCheck.cs")
                .to_str()
                .unwrap(),
        ]);
        exe
    });
    let o = Command::new(tool("MONO", "mono").unwrap())
        .arg(checker)
        .arg(assembly)
        .output()
        .unwrap();
    let report =
        String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    (o.status.success(), report)
}

/// Every delegate the binding hands to native code is one IL2CPP can marshal. Why the IL and
/// not the source: what matters is what the compiler made of a lambda or method group (a
/// closure class's instance method, a cached static), which the source does not show; and a
/// delegate can reach an import through any field or local, so the checker finds every
/// construction of a native-facing delegate type instead of following values.
#[test]
fn csharp_binding_hands_native_code_only_static_monopinvokecallback_delegates() {
    let (Some(_), Some(_)) = (tool("MCS", "mcs"), tool("MONO", "mono")) else {
        return;
    };
    let dll = toolchain::out_dir().join("MjBridge.il2cpp.dll");
    mcs(&[
        "-target:library",
        &format!("-out:{}", dll.display()),
        root().join("bindings/csharp/MjBridge.cs").to_str().unwrap(),
    ]);
    let (ok, report) = il2cpp_check(&dll);
    print!("{report}");
    assert!(ok, "{report}");
    // Not vacuous: the log callback's delegate type was found and its one construction checked.
    assert!(
        report.contains("native-facing delegate: MjBridge.LogCallback"),
        "{report}"
    );
    assert!(
        report.contains(
            "ok in MjBridge.Bridge..cctor: new MjBridge.LogCallback(MjBridge.Bridge.DeliverLog)"
        ),
        "{report}"
    );
    assert!(report.contains(", 0 it cannot"), "{report}");
}

/// The check fails on each pattern IL2CPP cannot marshal, naming the method.
#[test]
fn il2cpp_check_refuses_closures_instance_methods_and_unmarked_callbacks() {
    let (Some(_), Some(_)) = (tool("MCS", "mcs"), tool("MONO", "mono")) else {
        return;
    };
    for (define, why) in [
        ("CLOSURE", "<Set>c__AnonStorey0.<>m__0): an instance method"),
        ("INSTANCE", "Il2cppBad+Sink.OnLog): an instance method"),
        (
            "UNMARKED",
            "Il2cppBad.OnLog): a static method without [MonoPInvokeCallback",
        ),
        (
            "WRONG_TYPE",
            "Il2cppBad.OnLog): [MonoPInvokeCallback] names another type",
        ),
        ("CONVERTED", ".Invoke): an instance method"),
    ] {
        let dll = toolchain::out_dir().join(format!("il2cpp_bad_{define}.dll"));
        mcs(&[
            "-target:library",
            &format!("-define:{define}"),
            &format!("-out:{}", dll.display()),
            root().join("bindings/csharp/MjBridge.cs").to_str().unwrap(),
            root()
                .join("bindings/csharp/tests/Il2cppBad.cs")
                .to_str()
                .unwrap(),
        ]);
        let (ok, report) = il2cpp_check(&dll);
        assert!(!ok, "{define} passed the check:\n{report}");
        assert!(
            report.contains("BAD in Il2cppBad.Set: new MjBridge.LogCallback(")
                && report.contains(why),
            "{define}:\n{report}"
        );
        assert!(report.contains(", 1 it cannot"), "{define}:\n{report}");
    }
}

// ---- Unreal --------------------------------------------------------------------------------

#[test]
fn unreal_uplugin_parses_and_names_its_runtime_module() {
    let Some(p) = packages() else { return };
    let d: serde_json::Value =
        serde_json::from_str(&text(&p.unreal.join("MjBridge.uplugin"))).expect(".uplugin is JSON");
    assert_eq!(d["FileVersion"], 3);
    assert_eq!(d["VersionName"], VERSION);
    assert!(d["Version"].as_u64().is_some());
    assert!(d["FriendlyName"].as_str().is_some_and(|s| !s.is_empty()));
    let modules = d["Modules"].as_array().expect("Modules");
    assert_eq!(modules.len(), 1, "{modules:?}");
    let m = &modules[0];
    assert_eq!(m["Name"], "MjBridge");
    assert_eq!(m["Type"], "Runtime");
    assert!(m["LoadingPhase"].as_str().is_some());
    let platforms: BTreeSet<&str> = m["PlatformAllowList"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(platforms, ["Linux", "Win64"].into());
    // Each module has its rules and its class; the runtime module's dependency is the
    // external module of the libraries.
    let rules = text(&p.unreal.join("Source/MjBridge/MjBridge.Build.cs"));
    assert!(
        rules.contains("public class MjBridge : ModuleRules"),
        "{rules}"
    );
    assert!(
        rules.contains("\"MjBridgeLibrary\"") && rules.contains("\"Projects\""),
        "{rules}"
    );
    let lib_rules = text(
        &p.unreal
            .join("Source/ThirdParty/MjBridgeLibrary/MjBridgeLibrary.Build.cs"),
    );
    assert!(lib_rules.contains("public class MjBridgeLibrary : ModuleRules"));
    assert!(lib_rules.contains("Type = ModuleType.External;"));
    // The runtime module loads the libraries from the plugin's folder and frees them (a source
    // check: no UnrealBuildTool here to compile it).
    let cpp = text(&p.unreal.join("Source/MjBridge/Private/MjBridgeModule.cpp"));
    for want in [
        "IPluginManager::Get().FindPlugin(TEXT(\"MjBridge\"))->GetBaseDir()",
        "FPlatformProcess::GetDllHandle(*MujocoPath)",
        "FPlatformProcess::GetDllHandle(*BridgePath)",
        "FPlatformProcess::FreeDllHandle(BridgeHandle)",
        "FPlatformProcess::FreeDllHandle(MujocoHandle)",
        "void FMjBridgeModule::StartupModule()",
        "void FMjBridgeModule::ShutdownModule()",
        "IMPLEMENT_MODULE(FMjBridgeModule, MjBridge)",
    ] {
        assert!(cpp.contains(want), "MjBridgeModule.cpp lacks {want}");
    }
    assert!(p
        .unreal
        .join("Source/MjBridge/Public/MjBridgeModule.h")
        .is_file());
    // The libraries the module loads by name are where it looks.
    let bins = p.unreal_bins();
    for (folder, names) in [
        (
            "Win64",
            vec!["mujoco.dll".to_owned(), "mjbridge.dll".to_owned()],
        ),
        (
            "Linux/x86_64-unknown-linux-gnu",
            vec![tree_mujoco(p), "libmjbridge.so".to_owned()],
        ),
    ] {
        for n in names {
            assert!(
                cpp.contains(&format!("TEXT(\"{n}\")")),
                "the module does not load {n}"
            );
            assert!(bins.join(folder).join(&n).is_file(), "{folder}/{n} missing");
        }
    }
}

/// The paths a Build.cs names: `Path.Combine(ModuleDirectory|PluginDirectory, "a", ...)` and
/// `"$(PluginDir)/..."` strings. Any other `Path.Combine` or `$(` form fails, so a path cannot
/// hide from the check in a form it does not read.
fn build_cs_paths(rules: &str, module_dir: &Path, plugin_dir: &Path) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    let mut rest = rules;
    while let Some(i) = rest.find("Path.Combine(") {
        let args = &rest[i + "Path.Combine(".len()..];
        let close = args.find(')').expect("Path.Combine( closed");
        let parts: Vec<&str> = args[..close].split(',').map(str::trim).collect();
        let mut path = match parts[0] {
            "ModuleDirectory" => module_dir.to_path_buf(),
            "PluginDirectory" => plugin_dir.to_path_buf(),
            other => panic!("Path.Combine from {other}: not a base this check reads"),
        };
        for part in &parts[1..] {
            let lit = part
                .strip_prefix('"')
                .and_then(|s| s.strip_suffix('"'))
                .unwrap_or_else(|| panic!("Path.Combine part {part} is not a string literal"));
            path.push(lit);
        }
        paths.push(path);
        rest = &args[close..];
    }
    let mut rest = rules;
    while let Some(i) = rest.find("$(") {
        let s = &rest[i..];
        let lit = &s[..s.find('"').expect("a $(...) string")];
        let rel = lit
            .strip_prefix("$(PluginDir)/")
            .unwrap_or_else(|| panic!("{lit}: not a $(PluginDir) path"));
        paths.push(plugin_dir.join(rel));
        rest = &s[lit.len()..];
    }
    paths
}

#[test]
fn unreal_every_path_the_build_files_name_exists_and_every_library_is_staged() {
    let Some(p) = packages() else { return };
    let mut named = Vec::new();
    for rel in walk(&p.unreal) {
        if !rel.to_string_lossy().ends_with(".Build.cs") {
            continue;
        }
        let file = p.unreal.join(&rel);
        let rules = text(&file);
        for path in build_cs_paths(&rules, file.parent().unwrap(), &p.unreal) {
            assert!(
                path.exists(),
                "{} names {} (missing)",
                rel.display(),
                path.display()
            );
            named.push(path);
        }
    }
    let lib_rules = text(
        &p.unreal
            .join("Source/ThirdParty/MjBridgeLibrary/MjBridgeLibrary.Build.cs"),
    );
    assert!(lib_rules.contains("PublicDelayLoadDLLs.Add(\"mjbridge.dll\");"));
    let (win, linux) = lib_rules
        .split_once("UnrealTargetPlatform.Linux")
        .expect("a Linux branch");
    for want in [
        "lib/Win64/mjbridge.lib",
        "Win64/mjbridge.dll",
        "Win64/mujoco.dll",
    ] {
        assert!(
            named.iter().any(|n| n.ends_with(want))
                && win.contains(want.rsplit('/').next().unwrap()),
            "the Win64 rules lack {want}"
        );
    }
    assert!(linux.contains("libmjbridge.so") && linux.contains(&tree_mujoco(p)));
    // Every shipped library is staged (RuntimeDependencies), under its own platform's branch.
    for (folder, branch) in [("Win64", win), ("Linux", linux)] {
        for rel in walk(&p.unreal_bins().join(folder)) {
            let f = p.unreal_bins().join(folder).join(&rel);
            if f.is_dir() {
                continue;
            }
            let staged = format!(
                "RuntimeDependencies.Add(\"$(PluginDir)/{}\");",
                f.strip_prefix(&p.unreal).unwrap().display()
            );
            assert!(branch.contains(&staged), "{} is not staged", f.display());
        }
    }
    // Headers in the include path the rules add.
    for h in ["mjbridge.h", "mjbridge.hpp"] {
        assert_eq!(
            text(
                &p.unreal
                    .join("Source/ThirdParty/MjBridgeLibrary/include")
                    .join(h)
            ),
            text(&p.windows_tree.join("include").join(h))
        );
    }
    assert!(!walk(&p.unreal)
        .iter()
        .any(|r| r.to_string_lossy().contains("bcryptprimitives")));
    // Licenses, as in the Unity package.
    check_licenses(p, &p.unreal, "LICENSE");
}

#[test]
fn build_cs_path_reader_refuses_forms_it_cannot_read() {
    let here = Path::new("/m");
    let ok = build_cs_paths(
        "PublicIncludePaths.Add(Path.Combine(ModuleDirectory, \"include\"));\n\
         RuntimeDependencies.Add(\"$(PluginDir)/Binaries/x.dll\");",
        here,
        Path::new("/p"),
    );
    assert_eq!(
        ok,
        vec![
            PathBuf::from("/m/include"),
            PathBuf::from("/p/Binaries/x.dll")
        ]
    );
    for bad in [
        "Path.Combine(Lib, \"x.so\")",
        "Path.Combine(ModuleDirectory, Name)",
        "RuntimeDependencies.Add(\"$(BinaryOutputDir)/x.dll\");",
    ] {
        let r = std::panic::catch_unwind(|| build_cs_paths(bad, here, here));
        assert!(r.is_err(), "{bad} was read");
    }
}

/// Linux: the file Build.cs links is the one a program needs at run time (SONAME
/// libmjbridge.so), and it finds MuJoCo beside itself: a C host linked like UnrealBuildTool
/// links (the library's full path, an RPATH to its folder) runs with nothing else.
#[test]
fn unreal_linux_library_is_linked_by_its_path_and_finds_mujoco_beside_itself() {
    let Some(p) = packages() else { return };
    let Some(cc) = tool("CC", "cc") else { return };
    let dir = p.unreal_bins().join("Linux/x86_64-unknown-linux-gnu");
    let d = readelf_d(&dir.join("libmjbridge.so"));
    assert_eq!(
        dyn_value(&d, "Library soname").as_deref(),
        Some("libmjbridge.so")
    );
    assert_eq!(dyn_value(&d, "Library runpath").as_deref(), Some("$ORIGIN"));
    let mujoco = tree_mujoco(p);
    assert!(needed(&d).contains(&mujoco), "{d}");
    assert_eq!(kind(&dir.join("libmjbridge.so")), Kind::ElfX86_64);
    let exe = p.progs.join("unreal_lifecycle");
    let o = Command::new(cc)
        .args(["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(p.unreal.join("Source/ThirdParty/MjBridgeLibrary/include"))
        .arg("-I")
        .arg(root().join("tests/c"))
        .arg(root().join("tests/c/lifecycle.c"))
        .arg(dir.join("libmjbridge.so"))
        .arg(format!("-Wl,-rpath,{}", dir.display()))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(needed(&readelf_d(&exe)).contains(&"libmjbridge.so".to_owned()));
    let models = root().join("tests/models");
    let o = Command::new(&exe)
        .arg(models.join("pendulum.xml"))
        .arg(models.join("broken.xml"))
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && out.contains("lifecycle: all checks passed"),
        "{out}"
    );
}

/// What an MSVC-built Unreal module does on Win64: `mjbridge.h` compiled in MSVC mode (every
/// export `__declspec(dllimport)`), linked by lld-link against the plugin's `mjbridge.lib`
/// alone (no C runtime: the program brings its own entry point and kernel32 calls), run under
/// Wine from the plugin's Win64 folder: open, step, checkpoint, restore bit for bit, a refused
/// restore that changes nothing, a refused NULL endpoint.
#[test]
fn unreal_msvc_mode_c_program_runs_under_wine_from_the_plugins_win64_folder() {
    let Some(p) = packages() else { return };
    let (Some(clang), Some(lld_link)) = (tool("CLANG", "clang"), tool("LLD_LINK", "lld-link"))
    else {
        return;
    };
    let dir = p.progs.join("msvc");
    std::fs::create_dir_all(&dir).unwrap();
    // kernel32's import library for the three functions the program calls (no Windows SDK
    // here): made from a .def by llvm-dlltool, as install.sh makes mjbridge.lib.
    std::fs::write(
        dir.join("kernel32.def"),
        "LIBRARY kernel32.dll\nEXPORTS\nGetStdHandle\nWriteFile\nExitProcess\n",
    )
    .unwrap();
    let o = Command::new("llvm-dlltool")
        .args(["-m", "i386:x86-64", "-d"])
        .arg(dir.join("kernel32.def"))
        .arg("-l")
        .arg(dir.join("kernel32.lib"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let obj = dir.join("msvc_host.obj");
    let o = Command::new(&clang)
        .args([
            "--target=x86_64-pc-windows-msvc",
            "-ffreestanding",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-I",
        ])
        .arg(p.unreal.join("Source/ThirdParty/MjBridgeLibrary/include"))
        .arg("-c")
        .arg(root().join("tests/windows/msvc_host.c"))
        .arg("-o")
        .arg(&obj)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The program sits beside the ProcessPrng stand-in, not in the plugin.
    let exe = p.progs.join("msvc_host.exe");
    let o = Command::new(&lld_link)
        .args([
            "/nologo",
            "/entry:start",
            "/subsystem:console",
            "/nodefaultlib",
        ])
        .arg(format!("/out:{}", exe.display()))
        .arg(&obj)
        .arg(
            p.unreal
                .join("Source/ThirdParty/MjBridgeLibrary/lib/Win64/mjbridge.lib"),
        )
        .arg(dir.join("kernel32.lib"))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let imports = windows::objdump_imports(&exe);
    let lower: BTreeSet<String> = imports.iter().map(|s| s.to_ascii_lowercase()).collect();
    assert_eq!(
        lower,
        ["kernel32.dll".to_owned(), "mjbridge.dll".to_owned()].into(),
        "no C runtime"
    );
    let win64 = p.unreal_bins().join("Win64");
    let o = windows::wine(&exe).current_dir(&win64).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    print!("{out}");
    assert!(
        o.status.success() && out.contains("msvc_host: all checks passed"),
        "{out}"
    );
    assert!(out.contains("msvc_host: restored tick 120 -> 50"), "{out}");
    assert!(out.contains("\"outcome\":\"MJB_REJECTED\""), "{out}");
    // From any other folder mjbridge.dll is not found: the run above used the plugin's.
    let o = windows::wine(&exe).current_dir(&p.progs).output().unwrap();
    assert!(
        !o.status.success(),
        "the program found an mjbridge.dll outside the plugin"
    );
}

// ---- Windows: a clean machine ----------------------------------------------------------------

/// mjbridge.dll and mjbridge.exe need only Windows itself and mujoco.dll: in the tree and in
/// both packages. MuJoCo's own DLLs need Windows, MuJoCo and the Visual C++ runtime (stated in
/// the packages' READMEs); anything new there fails here too.
#[test]
fn windows_dlls_import_only_windows_system_dlls_and_mujoco() {
    let Some(p) = packages() else { return };
    let bridge = [
        p.windows_tree.join("bin/mjbridge.dll"),
        p.windows_tree.join("bin/mjbridge.exe"),
        p.unity_windows().join("mjbridge.dll"),
        p.unreal_bins().join("Win64/mjbridge.dll"),
    ];
    for f in &bridge {
        windows::assert_only_system_imports(f, &["mujoco.dll"]);
        println!("{}: {:?}", f.display(), windows::objdump_imports(f));
    }
    let mut engine = vec![p.windows_tree.join("bin/mujoco.dll")];
    for e in std::fs::read_dir(p.windows_tree.join("bin/mujoco_plugin")).unwrap() {
        engine.push(e.unwrap().path());
    }
    let mut also: Vec<&str> = windows::MSVC_RUNTIME_DLLS.to_vec();
    also.push("mujoco.dll");
    for f in &engine {
        windows::assert_only_system_imports(f, &also);
    }
    println!(
        "{}: {:?}",
        engine[0].display(),
        windows::objdump_imports(&engine[0])
    );
    // The packages ship the tree's DLLs unchanged.
    for copy in [p.unity_windows(), p.unreal_bins().join("Win64")] {
        for n in ["mjbridge.dll", "mujoco.dll"] {
            assert!(
                std::fs::read(copy.join(n)).unwrap()
                    == std::fs::read(p.windows_tree.join("bin").join(n)).unwrap(),
                "{} is not the tree's",
                copy.join(n).display()
            );
        }
    }
}

/// The check is not vacuous: a DLL built with MinGW's shared runtime (no -static) imports
/// libgcc_s_seh-1.dll / libstdc++-6.dll, which a clean Windows lacks, and is named.
#[test]
fn windows_import_check_catches_a_mingw_runtime_dll() {
    let Some(cxx) = tool("MINGW_CXX", "x86_64-w64-mingw32-g++") else {
        return;
    };
    if tool("MINGW_OBJDUMP", "x86_64-w64-mingw32-objdump").is_none() {
        return;
    }
    let dir = toolchain::out_dir().join("mingw-shared-runtime");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("uses_runtime.cpp");
    std::fs::write(
        &src,
        "#include <stdexcept>\n#include <string>\n\
         extern \"C\" __declspec(dllexport) int f(int x) {\n\
           try { if (x < 0) throw std::runtime_error(std::to_string(x)); }\n\
           catch (const std::exception& e) { return (int)std::string(e.what()).size(); }\n\
           return x; }\n",
    )
    .unwrap();
    let dll = dir.join("uses_runtime.dll");
    let o = Command::new(&cxx)
        .args(["-O2", "-shared", "-shared-libgcc", "-o"])
        .arg(&dll)
        .arg(&src)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let imports = windows::objdump_imports(&dll);
    let foreign = windows::foreign_imports(&imports, &["mujoco.dll"]);
    assert!(
        foreign
            .iter()
            .any(|d| d.eq_ignore_ascii_case("libgcc_s_seh-1.dll")
                || d.eq_ignore_ascii_case("libstdc++-6.dll")),
        "{imports:?}"
    );
    let r = std::panic::catch_unwind(|| windows::assert_only_system_imports(&dll, &[]));
    assert!(r.is_err(), "the check passed a DLL importing {foreign:?}");
    assert!(
        windows::is_system_dll("KERNEL32.dll")
            && windows::is_system_dll("api-ms-win-core-synch-l1-2-0.dll")
    );
    assert!(!windows::is_system_dll("libwinpthread-1.dll"));
}

// ---- the release -------------------------------------------------------------------------------

#[test]
fn release_writes_the_unity_tarball_and_the_unreal_zip_with_their_sha256() {
    let Some(p) = packages() else { return };
    for archive in [p.unity_tgz(), p.unreal_zip()] {
        let name = archive.file_name().unwrap().to_string_lossy().into_owned();
        let check = Command::new("sha256sum")
            .args(["-c", &format!("{name}.sha256")])
            .current_dir(&p.release)
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "{}",
            String::from_utf8_lossy(&check.stdout)
        );
    }
    let leftovers: Vec<String> = std::fs::read_dir(&p.release)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".part"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let list = Command::new("unzip")
        .arg("-Z1")
        .arg(p.unreal_zip())
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&list.stdout).into_owned();
    assert!(list.lines().all(|l| l.starts_with("MjBridge/")), "{list}");
    assert!(list.contains("MjBridge/MjBridge.uplugin"), "{list}");
    // The plugin folder made directly from the trees is the release's, file for file.
    let direct = p.work.join("unreal-direct");
    bash(
        "scripts/unreal_plugin.sh",
        &[
            direct.to_str().unwrap(),
            "--linux-tree",
            p.linux_tree.to_str().unwrap(),
            "--windows-tree",
            p.windows_tree.to_str().unwrap(),
        ],
    );
    let a = walk(&direct.join("MjBridge"));
    assert_eq!(a, walk(&p.unreal));
    for rel in a {
        let (x, y) = (direct.join("MjBridge").join(&rel), p.unreal.join(&rel));
        if x.is_file() {
            assert!(
                std::fs::read(&x).unwrap() == std::fs::read(&y).unwrap(),
                "{}",
                rel.display()
            );
        }
    }
}
