//! C and C++ host programs, compiled against the committed header and the built library with
//! real compilers (-Wall -Wextra -Werror) and run.

mod common;
use common::model_path;
#[path = "common/toolchain.rs"]
mod toolchain;
use toolchain::*;

fn c_src(name: &str) -> Vec<std::path::PathBuf> {
    vec![root().join("tests/c").join(name)]
}

#[test]
fn header_compiles_as_c99_without_mujoco_h() {
    let Some(cc) = tool("CC", "cc") else { return };
    let exe = build(
        Build {
            compiler: &cc,
            std: "c99",
            sources: c_src("header_c99.c"),
            with_mujoco: false,
            extra: vec!["-pedantic".into()],
        },
        "header_c99",
    );
    run(&exe, &[], &[]);
}

#[test]
fn header_compiles_as_cpp17_with_mujoco_h_and_adopts_a_host_pair() {
    let Some(cxx) = tool("CXX", "c++") else {
        return;
    };
    let exe = build(
        Build {
            compiler: &cxx,
            std: "c++17",
            sources: vec![root().join("tests/cpp/header_cpp17.cpp")],
            with_mujoco: true,
            extra: vec![],
        },
        "header_cpp17",
    );
    let out = run(&exe, &[&model_path("pendulum.xml")], &[]);
    assert!(out.contains("header_cpp17: checkpoint of"));
}

#[test]
fn c_host_lifecycle_null_double_free_and_compile_error() {
    let Some(cc) = tool("CC", "cc") else { return };
    let exe = build(
        Build {
            compiler: &cc,
            std: "c99",
            sources: c_src("lifecycle.c"),
            with_mujoco: false,
            extra: vec![],
        },
        "lifecycle",
    );
    let out = run(
        &exe,
        &[&model_path("pendulum.xml"), &model_path("broken.xml")],
        &[],
    );
    assert!(out.contains("lifecycle: all checks passed"));
}

#[test]
fn c_host_lifecycle_under_address_and_undefined_sanitizers() {
    let Some(cc) = tool("CC", "cc") else { return };
    let exe = build(
        Build {
            compiler: &cc,
            std: "c99",
            sources: c_src("lifecycle.c"),
            with_mujoco: false,
            extra: vec![
                "-fsanitize=address,undefined".into(),
                "-fno-omit-frame-pointer".into(),
                "-fno-sanitize-recover=all".into(),
            ],
        },
        "lifecycle_asan",
    );
    let out = run(
        &exe,
        &[&model_path("pendulum.xml"), &model_path("broken.xml")],
        &[("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")],
    );
    assert!(out.contains("lifecycle: all checks passed"));
}

#[test]
fn bridge_steps_equal_raw_mj_step_bit_for_bit_after_1000_steps() {
    let Some(cc) = tool("CC", "cc") else { return };
    let exe = build(
        Build {
            compiler: &cc,
            std: "c11",
            sources: c_src("raw_vs_bridge.c"),
            with_mujoco: true,
            extra: vec![],
        },
        "raw_vs_bridge",
    );
    let out = run(&exe, &[&model_path("contact_act.xml")], &[]);
    assert!(out.contains("raw_vs_bridge: all checks passed"));
}
