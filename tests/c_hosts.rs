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

/// The 500 Hz host loop of docs/c.md: a control thread (write + step under one admission), a
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

/// Issue 27, item 1: every call that takes values takes an `mjb::Span`, and a C array, a
/// `std::array`, a `std::vector`, braced values and `mjb::span(ptr, n)` each write exactly their
/// elements and take the steps asked for, with and without a precondition; and (item 4) a
/// config string is a document when it starts with '{', else a model path. Built with
/// exceptions and as Unreal builds it.
#[test]
fn cpp_binding_takes_every_contiguous_form_with_its_own_length() {
    for (name, extra) in [
        ("binding_spans", &[][..]),
        (
            "binding_spans_noexcept",
            &["-fno-exceptions", "-fno-rtti"][..],
        ),
    ] {
        let h = Host {
            compiler: ("CXX", "c++"),
            std: "c++17",
            source: "tests/cpp/binding_spans.cpp",
            extra,
            ..C99
        };
        host(name, h, &["host.xml", "pendulum.xml"]);
    }
}

/// Whether `bodies` (each the body of a function with `mjb::Endpoint& ep`, `const double* ptr`
/// and `mjb_frame_info seen` in scope, returning an `mjb::Result`) compile in one translation
/// unit against the C++ binding, and the compiler's output.
fn cpp_compiles(
    cxx: &std::path::Path,
    name: &str,
    flags: &[&str],
    bodies: &[&str],
) -> (bool, String) {
    let source = out_dir().join(format!("{name}.cpp"));
    let mut text = "#include <array>\n#include <vector>\n#include \"mjbridge.hpp\"\n".to_owned();
    for (i, body) in bodies.iter().enumerate() {
        text += &format!(
            "mjb::Result probe{i}(mjb::Endpoint& ep, const double* ptr, mjb_frame_info seen) {{\n\
             (void)ptr; (void)seen;\n  {body}\n}}\n"
        );
    }
    std::fs::write(&source, text).unwrap();
    let o = std::process::Command::new(cxx)
        .args(["-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror"])
        .args(flags)
        .arg("-I")
        .arg(root().join("include"))
        .arg("-I")
        .arg(root().join("bindings/cpp"))
        .arg(&source)
        .output()
        .expect("run the compiler");
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The misuse that compiled silently (a pointer, then a step count the old overload read as
/// the length) and every other bare-pointer call of the old overloads fail to compile, each
/// on its own, with the static_assert that names `mjb::span(ptr, n)`; the C array, container
/// and span forms of the same calls compile. The misuse and the accepted forms in both
/// exception modes (the refusing overloads are the same code in both).
#[test]
fn cpp_binding_refuses_to_compile_a_pointer_without_its_length() {
    let Some(cxx) = tool("CXX", "c++") else {
        return;
    };
    // docs/cpp.md's compare-and-step with a pointer: bound as n = 1 before.
    let misuse = "return ep.ctrl_step(mjb::Expect::at(seen), ptr, 1);";
    let refused = [
        misuse,
        "return ep.ctrl_step(ptr, 2, 1);",
        "return ep.ctrl_step(ptr, 2);",
        "return ep.ctrl_step(mjb::Expect::at(seen), ptr, 2, 1);",
        "return ep.set_ctrl(ptr, 2);",
        "return ep.set_ctrl(mjb::Expect::at(seen), ptr, 2);",
        "return ep.input(MJB_FIELD_CTRL, -1, ptr, 2);",
        "return ep.input(mjb::Expect::at(seen), MJB_FIELD_CTRL, -1, ptr, 2);",
        "mjb_input in{MJB_FIELD_CTRL, -1, ptr, 2}; return ep.write_step(&in, 1, 1);",
        "mjb_input in{MJB_FIELD_CTRL, -1, ptr, 2}; return ep.write_step(mjb::Expect::at(seen), &in, 1, 1);",
        "mjb_input in{MJB_FIELD_CTRL, -1, ptr, 2}; double q[13]; \
         mjb_frame_request r[1] = {{MJB_FIELD_QPOS, q, 13, 0}}; mjb_frame_info fi{}; \
         return ep.write_step_read(&in, 1, 1, r, 1, &fi);",
    ];
    // Refused by the compiler's own rules (no overload takes them): a pointer where
    // ctrl_step_read's span goes, and a braced pointer and length for a read-only span (next
    // to braced values it would read as two values of another type).
    let refused_plainly = [
        (
            "double q[13]; return ep.ctrl_step_read(ptr, 1, {{MJB_FIELD_QPOS, q}});",
            "no matching",
        ),
        ("return ep.ctrl_step({ptr, 2}, 1);", "Span<const double>"),
    ];
    let accepted = [
        // The misuse's call with a C array: binds to the span, 2 values, nstep 1.
        "double ctrl[2] = {0.1, 0.2}; return ep.ctrl_step(mjb::Expect::at(seen), ctrl, 1);",
        "const double ctrl[2] = {0.1, 0.2}; return ep.ctrl_step(ctrl, 1);",
        "std::array<double, 2> ctrl{}; return ep.ctrl_step(mjb::Expect::at(seen), ctrl, 1);",
        "std::vector<double> ctrl(2); return ep.ctrl_step(mjb::Expect::at(seen), ctrl, 1);",
        "return ep.ctrl_step(mjb::Expect::at(seen), mjb::span(ptr, 2), 1);",
        "return ep.ctrl_step(mjb::Span<const double>(ptr, 2), 1);",
        "return ep.ctrl_step(mjb::Expect::at(seen), {0.1, 0.2}, 1);",
        "return ep.set_ctrl(mjb::span(ptr, 2));",
        "return ep.input(MJB_FIELD_CTRL, -1, mjb::span(ptr, 2));",
        "mjb_input in{MJB_FIELD_CTRL, -1, ptr, 2}; return ep.write_step(mjb::span(&in, 1), 1);",
        "mjb_input in[1] = {{MJB_FIELD_CTRL, -1, ptr, 2}}; \
         double q[13]; mjb_frame_request r[1] = {{MJB_FIELD_QPOS, q, 13, 0}}; mjb_frame_info fi{}; \
         return ep.write_step_read(mjb::Expect::at(seen), in, 1, r, &fi);",
        "double q[13]; (void)ep.frame({{MJB_FIELD_QPOS, {q, 13}}}); return mjb::Result();",
        "double q[13]; const double c[2] = {0, 0}; \
         return ep.ctrl_step_read(c, 1, {{MJB_FIELD_QPOS, q}});",
    ];
    let noexcept: &[&str] = &["-fno-exceptions", "-fno-rtti"];
    // (name, flags, body, what the compiler's message must say)
    let span_message = "mjb::span(ptr, n)";
    let mut cases: Vec<(String, &[&str], &str, &str)> = Vec::new();
    for (i, body) in refused.iter().enumerate() {
        cases.push((format!("span_refused_{i}"), &[], body, span_message));
    }
    cases.push((
        "span_refused_noexcept".into(),
        noexcept,
        misuse,
        span_message,
    ));
    for (i, (body, why)) in refused_plainly.iter().enumerate() {
        cases.push((format!("span_plain_{i}"), &[], body, why));
    }
    // Two at a time (the compilers take a core each).
    for pair in cases.chunks(2) {
        let results: Vec<(bool, String)> = std::thread::scope(|s| {
            let handles: Vec<_> = pair
                .iter()
                .map(|(name, flags, body, _)| {
                    let cxx = &cxx;
                    s.spawn(move || cpp_compiles(cxx, name, flags, &[body]))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for ((_, flags, body, why), (ok, err)) in pair.iter().zip(results) {
            assert!(!ok, "compiled ({flags:?}), but must not: {body}");
            assert!(
                err.contains(why),
                "refused ({flags:?}) for another reason than {why:?}: {body}\n{err}"
            );
        }
    }
    for (name, flags) in [
        ("span_accepted", &[][..]),
        ("span_accepted_noexcept", noexcept),
    ] {
        let (ok, err) = cpp_compiles(&cxx, name, flags, &accepted);
        assert!(ok, "the span forms do not compile ({flags:?}):\n{err}");
    }
}
