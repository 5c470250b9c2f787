//! The ABI promise: every 0.x release is a drop-in for an older one.
//!
//! - `scripts/abi_check.sh` (run by `scripts/test.sh` on the release builds) compares the header
//!   and the libraries with the stored release baselines (`abi/<version>/`). The tests here run
//!   the same script on mutated copies of the header and of the export lists, and prove that it
//!   fails on each kind of break, naming it, and passes additions.
//! - A host written for 0.2.0, compiled against the 0.2.0 header, runs on the current library.

mod common;
use common::model_path;
#[path = "common/toolchain.rs"]
mod toolchain;
use toolchain::*;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The tools the check needs; None (after saying so, or a panic in CI) when one is missing.
fn check_tools() -> Option<()> {
    for (var, name) in [
        ("ABIDW", "abidw"),
        ("ABIDIFF", "abidiff"),
        ("CLANG", "clang"),
        ("PYTHON3", "python3"),
        ("CC", "cc"),
    ] {
        tool(var, name)?;
    }
    Some(())
}

/// A scratch folder of its own for one test.
fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("abi")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The functions the library of this test run exports, in the baselines' list format (the
/// fault-injection build's test hook left out, as the header leaves it out by default).
fn export_lists() -> (String, String) {
    let o = Command::new("nm")
        .args(["-D", "--defined-only", "--format=posix"])
        .arg(lib_dir().join("libmjbridge.so"))
        .output()
        .expect("run nm");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let names: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| !n.starts_with("mjb_test_"))
        .map(str::to_owned)
        .collect();
    assert!(names.iter().any(|n| n == "mjb_endpoint_open"), "{names:?}");
    let list = |kind: &str| {
        names
            .iter()
            .map(|n| format!("symbol {n} = {kind}\n"))
            .collect()
    };
    (list("FUNC"), list("exported"))
}

/// The current header and export lists, each edited by its function, checked by the script
/// against the 0.3.0 baseline. Returns (passed, stdout, stderr).
struct Copies {
    header: String,
    linux: String,
    windows: String,
}

fn run_check(name: &str, edit: impl FnOnce(&mut Copies)) -> (bool, String, String) {
    let dir = scratch(name);
    let (linux, windows) = export_lists();
    let mut c = Copies {
        header: std::fs::read_to_string(root().join("include/mjbridge.h")).unwrap(),
        linux,
        windows,
    };
    edit(&mut c);
    std::fs::write(dir.join("mjbridge.h"), &c.header).unwrap();
    std::fs::write(dir.join("libmjbridge.so.txt"), &c.linux).unwrap();
    std::fs::write(dir.join("mjbridge.dll.txt"), &c.windows).unwrap();
    let o = Command::new("bash")
        .arg(root().join("scripts/abi_check.sh"))
        .arg("--header")
        .arg(dir.join("mjbridge.h"))
        .arg("--linux-exports")
        .arg(dir.join("libmjbridge.so.txt"))
        .arg("--windows-exports")
        .arg(dir.join("mjbridge.dll.txt"))
        .arg("--baseline")
        .arg(root().join("abi/0.3.0"))
        .output()
        .expect("run abi_check.sh");
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    println!("{stdout}");
    eprintln!("{stderr}");
    (o.status.success(), stdout, stderr)
}

/// Replace exactly one occurrence (so a reworded header cannot turn a mutation into a no-op).
fn replace_once(text: &mut String, from: &str, to: &str) {
    assert_eq!(
        text.matches(from).count(),
        1,
        "the header has no single `{from}`"
    );
    *text = text.replacen(from, to, 1);
}

/// Drop the declaration of `function` from a header: from its `MJB_API` to its `;`.
fn remove_declaration(header: &mut String, function: &str) {
    let name = format!(" {function}(");
    assert_eq!(
        header.matches(&name).count(),
        1,
        "{function} is not declared once"
    );
    let at = header.find(&name).unwrap();
    let start = header[..at].rfind("\nMJB_API").expect("MJB_API before it") + 1;
    let end = at + header[at..].find(';').unwrap() + 1;
    header.replace_range(start..end, "");
}

fn assert_fails_naming(result: (bool, String, String), wanted: &[&str]) {
    let (passed, stdout, stderr) = result;
    assert!(!passed, "the check passed a break:\n{stdout}\n{stderr}");
    assert!(stderr.contains("ABI CHECK FAILED"), "{stderr}");
    for w in wanted {
        assert!(stderr.contains(w), "no `{w}` in the failure:\n{stderr}");
    }
}

#[test]
fn the_unchanged_header_and_exports_pass_the_check() {
    if check_tools().is_none() {
        return;
    }
    let (passed, stdout, stderr) = run_check("unchanged", |_| {});
    assert!(passed, "{stdout}\n{stderr}");
    assert!(stdout.contains("against the 0.3.0 baseline"), "{stdout}");
    assert!(
        stdout.contains("nothing of 1 baseline(s) removed or changed"),
        "{stdout}"
    );
}

#[test]
fn an_export_removed_from_either_library_fails_the_check() {
    if check_tools().is_none() {
        return;
    }
    let result = run_check("removed_linux_export", |c| {
        replace_once(&mut c.linux, "symbol mjb_confirm_paused = FUNC\n", "");
    });
    assert_fails_naming(
        result,
        &[
            "libmjbridge.so: removed symbol mjb_confirm_paused",
            "libmjbridge.so does not export mjb_confirm_paused, which mjbridge.h declares",
        ],
    );
    let result = run_check("removed_windows_export", |c| {
        replace_once(&mut c.windows, "symbol mjb_dims = exported\n", "");
    });
    assert_fails_naming(result, &["mjbridge.dll: removed symbol mjb_dims"]);
}

#[test]
fn a_declaration_removed_from_the_header_fails_the_check() {
    if check_tools().is_none() {
        return;
    }
    let result = run_check("removed_declaration", |c| {
        remove_declaration(&mut c.header, "mjb_confirm_paused");
    });
    assert_fails_naming(
        result,
        &[
            "mjbridge.h: removed function mjb_confirm_paused",
            "mjb_abi_mjb_confirm_paused",
            "declarations of 0.3.0 removed",
            "libmjbridge.so exports mjb_confirm_paused, which mjbridge.h does not declare",
        ],
    );
}

#[test]
fn a_changed_signature_fails_the_check() {
    if check_tools().is_none() {
        return;
    }
    let result = run_check("changed_signature", |c| {
        replace_once(
            &mut c.header,
            "mjb_outcome mjb_confirm_paused(struct mjb_endpoint *ep);",
            "mjb_outcome mjb_confirm_paused(struct mjb_endpoint *ep, uint32_t timeout_ms);",
        );
    });
    assert_fails_naming(
        result,
        &[
            "mjb_abi_mjb_confirm_paused",
            "types or signatures of 0.3.0 changed",
        ],
    );
}

#[test]
fn a_changed_struct_layout_fails_the_check() {
    if check_tools().is_none() {
        return;
    }
    // A member's type (and so every offset after it).
    let result = run_check("changed_member", |c| {
        replace_once(
            &mut c.header,
            "  int32_t reason;\n  /**\n   * The endpoint's tick when the call was admitted",
            "  int64_t reason;\n  /**\n   * The endpoint's tick when the call was admitted",
        );
    });
    assert_fails_naming(
        result,
        &[
            "mjbridge.h: changed member mjb_report.reason: was offset 4, size 4, now offset 8, size 8",
            "mjbridge.h: changed struct mjb_report: was size 40, align 8, now size 48, align 8",
            "struct mjb_report",
        ],
    );
    // A member appended: a host of 0.3.0 allocates the old size, the library would write past it.
    let result = run_check("appended_member", |c| {
        replace_once(
            &mut c.header,
            "  int32_t fence_reason;\n} mjb_safety_state;",
            "  int32_t fence_reason;\n  uint64_t added;\n} mjb_safety_state;",
        );
    });
    assert_fails_naming(
        result,
        &["mjbridge.h: changed struct mjb_safety_state: was size 48, align 8, now size 56"],
    );
    // A member renamed (abidiff counts it harmless; the header's facts do not).
    let result = run_check("renamed_member", |c| {
        replace_once(
            &mut c.header,
            "  uint64_t tick_after;",
            "  uint64_t tick_end;",
        );
    });
    assert_fails_naming(
        result,
        &["mjbridge.h: removed member mjb_report.tick_after (was offset 16, size 8)"],
    );
}

#[test]
fn a_changed_enum_value_or_constant_fails_the_check() {
    if check_tools().is_none() {
        return;
    }
    let result = run_check("changed_enumerator", |c| {
        replace_once(
            &mut c.header,
            "MJB_REASON_BUSY = 21,",
            "MJB_REASON_BUSY = 99,",
        );
    });
    assert_fails_naming(
        result,
        &[
            "mjbridge.h: changed enumerator mjb_reason.MJB_REASON_BUSY: was int 21, now int 99",
            "'mjb_reason::MJB_REASON_BUSY' from value '21' to '99'",
        ],
    );
    let result = run_check("changed_constant", |c| {
        replace_once(
            &mut c.header,
            "#define MJB_EXPECT_FRAME 4",
            "#define MJB_EXPECT_FRAME 8",
        );
    });
    assert_fails_naming(
        result,
        &["mjbridge.h: changed constant MJB_EXPECT_FRAME: was int 4, now int 8"],
    );
    // The same value with another type is another constant for a host's compiler.
    let result = run_check("retyped_constant", |c| {
        replace_once(
            &mut c.header,
            "#define MJB_WAIT_FOREVER (uint32_t)UINT32_MAX",
            "#define MJB_WAIT_FOREVER 4294967295",
        );
    });
    assert_fails_naming(
        result,
        &["mjbridge.h: changed constant MJB_WAIT_FOREVER: was unsigned int 4294967295, now long 4294967295"],
    );
}

#[test]
fn additions_pass_the_check() {
    if check_tools().is_none() {
        return;
    }
    let (passed, stdout, stderr) = run_check("additions", |c| {
        // A new call (declared and exported), a new struct, an appended enumerator, a new
        // constant.
        replace_once(
            &mut c.header,
            "MJB_API mjb_outcome mjb_confirm_paused(struct mjb_endpoint *ep);",
            "MJB_API mjb_outcome mjb_confirm_paused(struct mjb_endpoint *ep);\n\n\
             typedef struct mjb_added { uint64_t tick; } mjb_added;\n\
             MJB_API mjb_outcome mjb_added_call(struct mjb_endpoint *ep, mjb_added *out);",
        );
        replace_once(
            &mut c.header,
            "MJB_REASON_REPLAY_DIVERGED = 48,",
            "MJB_REASON_REPLAY_DIVERGED = 48,\n  MJB_REASON_ADDED = 49,",
        );
        replace_once(
            &mut c.header,
            "#define MJB_EXPECT_FRAME 4",
            "#define MJB_EXPECT_FRAME 4\n#define MJB_ADDED_CONSTANT 16",
        );
        c.linux.push_str("symbol mjb_added_call = FUNC\n");
        c.windows.push_str("symbol mjb_added_call = exported\n");
    });
    assert!(passed, "additions were refused:\n{stdout}\n{stderr}");
    assert!(stdout.contains("mjbridge.h:"), "{stdout}");
    // One more than the exports this tree already adds to the baseline.
    let (ok, unchanged, _) = run_check("unchanged", |_| {});
    assert!(ok, "{unchanged}");
    for lib in ["libmjbridge.so", "mjbridge.dll"] {
        let added = |out: &str| {
            out.lines()
                .find_map(|l| l.trim().strip_prefix(&format!("{lib}: ")))
                .and_then(|r| r.split(' ').next()?.parse::<u32>().ok())
                .unwrap_or(0)
        };
        assert_eq!(added(&stdout), added(&unchanged) + 1, "{lib}: {stdout}");
    }
}

#[test]
fn header_and_libraries_must_agree() {
    if check_tools().is_none() {
        return;
    }
    // Declared, not exported: a host would fail to link (or to load) it.
    let result = run_check("declared_not_exported", |c| {
        replace_once(
            &mut c.header,
            "MJB_API mjb_outcome mjb_confirm_paused(struct mjb_endpoint *ep);",
            "MJB_API mjb_outcome mjb_confirm_paused(struct mjb_endpoint *ep);\n\
             MJB_API mjb_outcome mjb_never_built(void);",
        );
    });
    assert_fails_naming(
        result,
        &[
            "libmjbridge.so does not export mjb_never_built, which mjbridge.h declares",
            "mjbridge.dll does not export mjb_never_built, which mjbridge.h declares",
        ],
    );
    // Exported outside the namespace.
    let result = run_check("outside_namespace", |c| {
        c.linux.push_str("symbol helper_leaked = FUNC\n");
    });
    assert_fails_naming(
        result,
        &["libmjbridge.so exports helper_leaked, outside the mjb_ namespace"],
    );
}

/// A host built against the 0.2.0 header with 0.2.0's calls, run on the current library.
#[test]
fn a_host_built_against_the_0_2_0_header_runs_on_the_current_library() {
    let Some(cc) = tool("CC", "cc") else {
        return;
    };
    let old = root().join("tests/abi/mjbridge-0.2.0.h");
    let text = std::fs::read_to_string(&old).unwrap();
    assert!(text.contains("#define MJB_VERSION \"0.2.0\""));
    let exe = build(
        Build {
            compiler: &cc,
            std: "c99",
            sources: vec![root().join("tests/abi/host_0_2_0.c")],
            with_mujoco: false,
            extra: vec!["-I".into(), root().join("tests/abi").display().to_string()],
        },
        "host_0_2_0",
    );
    let out = run(&exe, &[&model_path("pendulum.xml")], &[]);
    assert!(out.contains("host_0_2_0: all checks passed"), "{out}");
    assert!(
        out.contains(&format!(
            "header 0.2.0, library {}",
            env!("CARGO_PKG_VERSION")
        )),
        "{out}"
    );
}

/// Compile `source` against the current header and library with `flags` (and `-Wall -Wextra`),
/// returning the executable on success and the compiler's messages either way.
fn compile(cc: &Path, source: &str, out_name: &str, flags: &[&str]) -> (Option<PathBuf>, String) {
    let exe = out_dir().join(out_name);
    let _ = std::fs::remove_file(&exe);
    let o = Command::new(cc)
        // Plain ASCII quotes in the messages, whatever the machine's locale.
        .env("LC_ALL", "C")
        .args(["-std=c11", "-Wall", "-Wextra", "-g"])
        .args(flags)
        .arg("-I")
        .arg(root().join("include"))
        .arg("-I")
        .arg(root().join("tests/c"))
        .arg(root().join(source))
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(lib_dir())
        .arg("-lmjbridge")
        .arg(format!("-Wl,-rpath,{}", lib_dir().display()))
        .output()
        .expect("run the compiler");
    let messages = String::from_utf8_lossy(&o.stderr).into_owned();
    (o.status.success().then_some(exe), messages)
}

/// Deprecation, not removal: a host calling the deprecated exports builds with a warning that
/// names each replacement and runs (they behave exactly as their replacements); a host that
/// treats the warning as an error does not build; defining MJB_DEPRECATED empty silences it.
#[test]
fn deprecated_exports_warn_naming_their_replacement_and_still_work() {
    let Some(cc) = tool("CC", "cc") else {
        return;
    };
    let source = "tests/abi/deprecated_host.c";
    let (exe, warnings) = compile(&cc, source, "deprecated_host", &[]);
    let exe = exe.unwrap_or_else(|| panic!("a deprecated call must not stop a build:\n{warnings}"));
    for (old, new) in [
        ("mjb_step", "mjb_endpoint_step"),
        ("mjb_snapshot", "mjb_world_read"),
        ("mjb_snapshot_info", "mjb_world_read_info"),
    ] {
        assert!(
            warnings.lines().any(|l| l.contains("warning")
                && l.contains(&format!("'{old}' is deprecated: use {new},"))
                && l.contains("-Wdeprecated-declarations")),
            "no deprecation warning for {old} naming {new}:\n{warnings}"
        );
    }
    // Nothing else warns.
    let other: Vec<&str> = warnings
        .lines()
        .filter(|l| l.contains("warning:") && !l.contains("is deprecated"))
        .collect();
    assert!(other.is_empty(), "{other:?}");
    let out = run(&exe, &[&model_path("pendulum.xml")], &[]);
    assert!(out.contains("deprecated_host: all checks passed"), "{out}");

    let (exe, errors) = compile(
        &cc,
        source,
        "deprecated_host_werror",
        &["-Werror=deprecated-declarations"],
    );
    assert!(
        exe.is_none(),
        "-Werror=deprecated-declarations let it build"
    );
    assert!(
        errors.contains("error: 'mjb_step' is deprecated: use mjb_endpoint_step"),
        "{errors}"
    );

    let (exe, messages) = compile(
        &cc,
        source,
        "deprecated_host_silenced",
        &["-Werror", "-DMJB_DEPRECATED(msg)="],
    );
    assert!(exe.is_some() && messages.is_empty(), "{messages}");

    // The Windows cross compiler (mingw-w64's gcc) takes the same branch of the macro.
    let Some(mingw) = tool("MINGW_CC", "x86_64-w64-mingw32-gcc") else {
        return;
    };
    let o = Command::new(mingw)
        .env("LC_ALL", "C")
        .args([
            "-std=c11",
            "-fsyntax-only",
            "-Werror=deprecated-declarations",
            "-I",
        ])
        .arg(root().join("include"))
        .arg("-I")
        .arg(root().join("tests/c"))
        .arg(root().join(source))
        .output()
        .expect("run the mingw compiler");
    let errors = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success(),
        "mingw built a deprecated call as an error"
    );
    assert!(
        errors.contains("error: 'mjb_snapshot' is deprecated: use mjb_world_read"),
        "{errors}"
    );
}
