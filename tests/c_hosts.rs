//! C and C++ host programs, compiled against the committed header and the built library with
//! real compilers (-Wall -Wextra -Werror) and run.

mod common;
use common::model_path;
#[path = "common/toolchain.rs"]
mod toolchain;
use toolchain::*;

struct Host<'a> {
    /// Env var and default name of the compiler.
    compiler: (&'a str, &'a str),
    std: &'a str,
    /// Path below the repository.
    source: &'a str,
    with_mujoco: bool,
    extra: &'a [&'a str],
    env: &'a [(&'a str, &'a str)],
}

/// Build and run a host program with the given test models; it must report success.
fn host(name: &str, h: Host, models: &[&str]) {
    let Some(compiler) = tool(h.compiler.0, h.compiler.1) else {
        return;
    };
    let exe = build(
        Build {
            compiler: &compiler,
            std: h.std,
            sources: vec![root().join(h.source)],
            with_mujoco: h.with_mujoco,
            extra: h.extra.iter().map(|s| s.to_string()).collect(),
        },
        name,
    );
    let args: Vec<String> = models.iter().map(|m| model_path(m)).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run(&exe, &args, h.env);
    let done = format!("{}: all checks passed", name.trim_end_matches("_asan"));
    assert!(out.contains(&done), "{out}");
}

/// ASan (with leak detection) and UBSan, any finding fatal.
const SANITIZE: &[&str] = &[
    "-fsanitize=address,undefined",
    "-fno-omit-frame-pointer",
    "-fno-sanitize-recover=all",
];
const SANITIZE_ENV: &[(&str, &str)] = &[("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")];

const C99: Host = Host {
    compiler: ("CC", "cc"),
    std: "c99",
    source: "",
    with_mujoco: false,
    extra: &[],
    env: &[],
};

#[test]
fn header_compiles_as_c99_without_mujoco_h() {
    let h = Host {
        source: "tests/c/header_c99.c",
        extra: &["-pedantic"],
        ..C99
    };
    host("header_c99", h, &[]);
}

#[test]
fn header_compiles_as_cpp17_with_mujoco_h_and_adopts_a_host_pair() {
    let h = Host {
        compiler: ("CXX", "c++"),
        std: "c++17",
        source: "tests/cpp/header_cpp17.cpp",
        with_mujoco: true,
        ..C99
    };
    host("header_cpp17", h, &["pendulum.xml"]);
}

#[test]
fn c_host_lifecycle_null_double_free_and_compile_error() {
    let h = Host {
        source: "tests/c/lifecycle.c",
        ..C99
    };
    host("lifecycle", h, &["pendulum.xml", "broken.xml"]);
}

#[test]
fn c_host_lifecycle_under_address_and_undefined_sanitizers() {
    let h = Host {
        source: "tests/c/lifecycle.c",
        extra: SANITIZE,
        env: SANITIZE_ENV,
        ..C99
    };
    host("lifecycle_asan", h, &["pendulum.xml", "broken.xml"]);
}

#[test]
fn bridge_steps_equal_raw_mj_step_bit_for_bit_after_1000_steps() {
    let h = Host {
        std: "c11",
        source: "tests/c/raw_vs_bridge.c",
        with_mujoco: true,
        ..C99
    };
    host("raw_vs_bridge", h, &["contact_act.xml"]);
}

#[test]
fn errors_outside_the_bridge_still_reach_the_hosts_own_handler() {
    let h = Host {
        std: "c11",
        source: "tests/c/host_error_handler.c",
        with_mujoco: true,
        ..C99
    };
    host("host_error_handler", h, &["pendulum.xml"]);
}

#[test]
fn cpp_binding_owns_handles_raii_and_reports_refusals() {
    let h = Host {
        compiler: ("CXX", "c++"),
        std: "c++17",
        source: "tests/cpp/binding_raii.cpp",
        ..C99
    };
    host("binding_raii", h, &["contact_act.xml", "broken.xml"]);
}

#[test]
fn cpp_binding_under_address_and_undefined_sanitizers() {
    let h = Host {
        compiler: ("CXX", "c++"),
        std: "c++17",
        source: "tests/cpp/binding_raii.cpp",
        extra: SANITIZE,
        env: SANITIZE_ENV,
        ..C99
    };
    host("binding_raii_asan", h, &["contact_act.xml", "broken.xml"]);
}

/// The C++ binding as Unreal compiles it (`-fno-exceptions -fno-rtti`): results everywhere,
/// frames into caller spans, names, configs escaped (a scratch folder with quotes and
/// non-ASCII in its name); once plain and once under ASan/UBSan.
fn cpp_binding_without_exceptions(name: &str, extra: &[&str], env: &[(&str, &str)]) {
    let Some(cxx) = tool("CXX", "c++") else {
        return;
    };
    let mut flags = vec!["-fno-exceptions".to_owned(), "-fno-rtti".to_owned()];
    flags.extend(extra.iter().map(|s| s.to_string()));
    let exe = build(
        Build {
            compiler: &cxx,
            std: "c++17",
            sources: vec![root().join("tests/cpp/binding_noexcept.cpp")],
            with_mujoco: false,
            extra: flags,
        },
        name,
    );
    let scratch = out_dir().join(format!("{name} Zo\u{eb} \"q\" \u{6a5f}\u{68b0}"));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let args = [
        model_path("host.xml"),
        model_path("pendulum.xml"),
        scratch.to_string_lossy().into_owned(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run(&exe, &args, env);
    assert!(out.contains("binding_noexcept: all checks passed"), "{out}");
}

#[test]
fn cpp_binding_compiles_and_runs_without_exceptions_or_rtti() {
    cpp_binding_without_exceptions("binding_noexcept", &[], &[]);
}

#[test]
fn cpp_binding_without_exceptions_under_address_and_undefined_sanitizers() {
    cpp_binding_without_exceptions("binding_noexcept_asan", SANITIZE, SANITIZE_ENV);
}

/// A program may mix translation units built with and without exceptions (an Unreal module
/// beside an exception-enabled library). The wrapper's inline functions then must not be one
/// symbol with two definitions (the linker would keep either, and a no-exception caller could
/// end up throwing): each mode's code lives in its own inline namespace.
#[test]
fn cpp_binding_modes_share_no_symbol_when_mixed_in_one_program() {
    let Some(cxx) = tool("CXX", "c++") else {
        return;
    };
    let objects: Vec<(String, std::path::PathBuf)> =
        [("with", "-fexceptions"), ("without", "-fno-exceptions")]
            .iter()
            .map(|(mode, flag)| {
                let obj = out_dir().join(format!("mode_probe_{mode}.o"));
                let o = std::process::Command::new(&cxx)
                    .args(["-std=c++17", "-O0", "-c", flag, "-I"])
                    .arg(root().join("include"))
                    .arg("-I")
                    .arg(root().join("bindings/cpp"))
                    .arg(root().join("tests/cpp/mode_probe.cpp"))
                    .arg("-o")
                    .arg(&obj)
                    .output()
                    .unwrap();
                assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
                (mode.to_string(), obj)
            })
            .collect();
    let mjb_symbols = |obj: &std::path::PathBuf| -> std::collections::BTreeSet<String> {
        let o = std::process::Command::new("nm")
            .args(["-C", "--defined-only"])
            .arg(obj)
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter_map(|l| l.splitn(3, ' ').nth(2))
            .filter(|name| name.contains("mjb::"))
            .map(str::to_owned)
            .collect()
    };
    let with = mjb_symbols(&objects[0].1);
    let without = mjb_symbols(&objects[1].1);
    assert!(
        with.iter().any(|s| s.contains("fail")) && without.iter().any(|s| s.contains("fail")),
        "the probes emit the wrapper's refusal path: {with:?} {without:?}"
    );
    let shared: Vec<_> = with.intersection(&without).collect();
    assert!(shared.is_empty(), "defined in both modes: {shared:?}");
}

/// A panic caught inside the bridge reports where it happened and prints nothing on the
/// host's stderr, even with RUST_BACKTRACE=1 (fault-injection builds only).
#[cfg(feature = "fault-injection")]
#[test]
fn a_caught_panic_reports_its_admission_and_keeps_the_hosts_stderr_quiet() {
    let Some(cc) = tool("CC", "cc") else {
        return;
    };
    let exe = build(
        Build {
            compiler: &cc,
            std: "c99",
            sources: vec![root().join("tests/c/panic_quiet.c")],
            with_mujoco: false,
            extra: vec![],
        },
        "panic_quiet",
    );
    let o = std::process::Command::new(&exe)
        .arg(model_path("pendulum.xml"))
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains("panic_quiet: all checks passed"),
        "{stdout}"
    );
    assert_eq!(stderr, "", "the host's stderr stays quiet");
}

/// Run a host program under valgrind memcheck: no error, no definite leak.
fn memcheck(name: &str, source: &str, args: &[&str]) {
    let Some(valgrind) = tool("VALGRIND", "valgrind") else {
        return;
    };
    let Some(cc) = tool("CC", "cc") else {
        return;
    };
    let exe = build(
        Build {
            compiler: &cc,
            std: "c99",
            sources: vec![root().join(source)],
            with_mujoco: false,
            extra: vec![],
        },
        name,
    );
    let o = std::process::Command::new(valgrind)
        .args([
            "--tool=memcheck",
            "--error-exitcode=99",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite",
            "--show-leak-kinds=definite",
        ])
        .arg(&exe)
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success(),
        "{name} under memcheck: {:?}\n{stdout}\n{stderr}",
        o.status
    );
    assert!(
        stdout.contains(&format!("{name}: all checks passed")),
        "{stdout}"
    );
    assert!(stderr.contains("ERROR SUMMARY: 0 errors"), "{stderr}");
    let summary: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("SUMMARY") || l.contains("definitely lost"))
        .collect();
    println!("{name}: {}", summary.join(" | "));
}

#[test]
fn c_host_lifecycle_under_valgrind_memcheck() {
    memcheck(
        "lifecycle",
        "tests/c/lifecycle.c",
        &[&model_path("pendulum.xml"), &model_path("broken.xml")],
    );
}

/// Open/free cycles, refused documents and a fenced endpoint under memcheck.
#[cfg(feature = "fault-injection")]
#[test]
fn open_step_restore_refuse_stop_free_cycles_under_valgrind_memcheck() {
    memcheck(
        "memcheck_cycles",
        "tests/c/memcheck_cycles.c",
        &[&model_path("contact_act.xml"), "12"],
    );
}

#[test]
fn c_host_uses_the_host_surface_with_typed_constants() {
    let h = Host {
        std: "c11",
        source: "tests/c/host_surface.c",
        ..C99
    };
    host("host_surface", h, &["host.xml"]);
}

/// The README's 500 Hz example: a control thread (write + step under one admission), a
/// publisher reading frames without the lock, a service thread that stops, confirms, restores
/// and resets. Paced at 500 Hz, and once more at full speed under the sanitizers.
#[test]
fn the_500_hz_host_loop_example_runs() {
    let Some(cc) = tool("CC", "cc") else {
        return;
    };
    for (name, extra, args, env) in [
        ("host_loop", vec![], vec!["500"], vec![]),
        (
            "host_loop_asan",
            SANITIZE.to_vec(),
            vec!["400", "--fast"],
            SANITIZE_ENV.to_vec(),
        ),
    ] {
        let mut flags = vec!["-pthread".to_owned()];
        flags.extend(extra.iter().map(|s| s.to_string()));
        let exe = build(
            Build {
                compiler: &cc,
                std: "c11",
                sources: vec![root().join("examples/host_loop.c")],
                with_mujoco: false,
                extra: flags,
            },
            name,
        );
        let model = model_path("host.xml");
        let mut a = vec![model.as_str()];
        a.extend(args);
        let out = run(&exe, &a, &env);
        assert!(out.contains("host_loop: all checks passed"), "{out}");
    }
}

/// MuJoCo 4.0's batch API exports a `mjb_step` of its own. A host that includes `mjbatch.h`
/// beside the bridge's header and links MuJoCo first still steps its endpoint, through
/// `mjb_endpoint_step`, with the bridge's `mjb_step` left out of the translation unit.
#[test]
fn a_host_of_mujocos_batch_api_steps_through_mjb_endpoint_step() {
    let engine = mjbridge::native::engine();
    let include = std::path::Path::new(env!("MJB_ENGINE_INCLUDE"));
    if !include.join("mujoco/mjbatch.h").is_file() {
        eprintln!("(this engine, {}, has no batch API)", engine.version_string);
        return;
    }
    let Some(cc) = tool("CC", "cc") else {
        return;
    };
    let exe = out_dir().join("batch_clash");
    let lib = std::path::Path::new(env!("MJB_ENGINE_LIBRARY"));
    let o = std::process::Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror"])
        .arg("-I")
        .arg(root().join("include"))
        .arg("-I")
        .arg(include)
        .arg(root().join("tests/c/batch_clash.c"))
        .arg("-o")
        .arg(&exe)
        // MuJoCo first: the order that would give this host MuJoCo's mjb_step.
        .arg(lib)
        .arg(format!("-Wl,-rpath,{}", lib.parent().unwrap().display()))
        .arg("-L")
        .arg(lib_dir())
        .arg("-lmjbridge")
        .arg(format!("-Wl,-rpath,{}", lib_dir().display()))
        .output()
        .expect("run the compiler");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = run(&exe, &[&model_path("pendulum.xml")], &[]);
    assert!(out.contains("batch_clash: all checks passed"), "{out}");
}
