//! Windows programs and DLLs from this Linux machine: what a PE file imports, whether that is
//! only Windows itself (a clean machine has nothing else), and running programs under Wine.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// DLLs every Windows 10 or later x86_64 installation has, that a MinGW-built mjbridge.dll or
/// mjbridge.exe imports today. Lower-case. Kept to what is used, so a new import is looked at:
/// - kernel32, ntdll: the Win32 and native APIs (Rust's std, the C shim);
/// - msvcrt: the C runtime MinGW links against (a system component since Windows 2000; not the
///   Visual C++ redistributable's);
/// - bcryptprimitives: `ProcessPrng` (Rust's std since 1.78, for HashMap keys);
/// - advapi32, userenv, ws2_32: what Rust's std links on Windows (security and registry, the
///   user's profile folder, sockets);
/// - `api-ms-win-*` API sets, resolved by the loader to system DLLs (`api-ms-win-core-synch-l1-2-0`
///   is `WaitOnAddress`/`WakeByAddress*`, Windows 8 and later: Rust's std locks).
pub const SYSTEM_DLLS: &[&str] = &[
    "kernel32.dll",
    "ntdll.dll",
    "msvcrt.dll",
    "bcryptprimitives.dll",
    "advapi32.dll",
    "userenv.dll",
    "ws2_32.dll",
];

/// The Visual C++ 2015-2022 runtime (x64) an MSVC-built library such as MuJoCo's `mujoco.dll`
/// links against: not part of Windows; installed by the VC++ redistributable (which Unreal's
/// prerequisites installer ships). The Universal CRT behind `api-ms-win-crt-*` is part of
/// Windows 10.
pub const MSVC_RUNTIME_DLLS: &[&str] = &[
    "vcruntime140.dll",
    "vcruntime140_1.dll",
    "msvcp140.dll",
    "msvcp140_atomic_wait.dll",
];

/// Whether `dll` is a system DLL of Windows 10 or later.
pub fn is_system_dll(dll: &str) -> bool {
    let d = dll.to_ascii_lowercase();
    SYSTEM_DLLS.contains(&d.as_str()) || d.starts_with("api-ms-win-")
}

/// The imports of `dlls` that are neither system DLLs nor in `also`.
pub fn foreign_imports(dlls: &[String], also: &[&str]) -> Vec<String> {
    dlls.iter()
        .filter(|d| !is_system_dll(d) && !also.iter().any(|a| a.eq_ignore_ascii_case(d)))
        .cloned()
        .collect()
}

/// DLL names a PE file imports (`x86_64-w64-mingw32-objdump -p`, its import tables).
pub fn objdump_imports(pe: &Path) -> Vec<String> {
    let o = Command::new("x86_64-w64-mingw32-objdump")
        .arg("-p")
        .arg(pe)
        .output()
        .expect("x86_64-w64-mingw32-objdump");
    assert!(
        o.status.success(),
        "objdump -p {}: {}",
        pe.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("pei-x86-64"),
        "{} is not a PE x86-64 file",
        pe.display()
    );
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("DLL Name: ").map(str::to_owned))
        .collect()
}

/// Panics naming every import of `pe` that a clean Windows machine lacks (`also`: the DLLs the
/// file's package ships beside it, such as mujoco.dll).
pub fn assert_only_system_imports(pe: &Path, also: &[&str]) {
    let imports = objdump_imports(pe);
    assert!(!imports.is_empty(), "{} imports nothing?", pe.display());
    let foreign = foreign_imports(&imports, also);
    assert!(
        foreign.is_empty(),
        "{} imports {foreign:?}: not Windows system DLLs (a MinGW runtime DLL such as \
         libgcc_s_seh-1.dll or libwinpthread-1.dll is missing on a clean machine: link it \
         statically); all imports: {imports:?}",
        pe.display()
    );
}

/// The Wine prefix the test binaries share (its first start takes a while).
pub fn wine_prefix() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wineprefix")
}

/// Create the Wine prefix once per test binary (a no-op when it exists).
pub fn wine_boot() {
    static BOOT: std::sync::Once = std::sync::Once::new();
    BOOT.call_once(|| {
        let _ = Command::new("wineboot")
            .arg("--init")
            .env("WINEPREFIX", wine_prefix())
            .env("WINEDEBUG", "-all")
            .env("WINEDLLOVERRIDES", "mscoree=;mshtml=")
            .output();
    });
}

/// `wine exe` with the suite's settings: its own prefix, no debug output, the native ProcessPrng
/// stand-in preferred (`bcryptprimitives.dll` beside the program, see `processprng_standin`), no
/// Mono/Gecko install dialogs, and nothing on Wine's PATH (WINEPATH unset).
pub fn wine(exe: &Path) -> Command {
    wine_boot();
    let mut c = Command::new("wine");
    c.arg(exe)
        .env("WINEPREFIX", wine_prefix())
        .env("WINEDEBUG", "-all")
        .env("WINEDLLOVERRIDES", "bcryptprimitives=n,b;mscoree=;mshtml=")
        .env_remove("WINEPATH");
    c
}

/// Wine 8 lacks `bcryptprimitives.dll!ProcessPrng`, which Rust's std imports on Windows:
/// `tests/windows/processprng.c` built into a stand-in DLL in `dir` (beside the test programs
/// only, never in a shipped tree).
pub fn processprng_standin(mingw_cc: &Path, dir: &Path) {
    let o = Command::new(mingw_cc)
        .args(["-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-o"])
        .arg(dir.join("bcryptprimitives.dll"))
        .arg(crate::toolchain::root().join("tests/windows/processprng.c"))
        .arg("-ladvapi32")
        .output()
        .expect("run the mingw compiler");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
