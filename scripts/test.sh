#!/usr/bin/env bash
# The full test suite: formatting, lints, licenses, the Rust integration tests and the C/C++
# hosts on five MuJoCo releases, the packaging and documentation on the default engine, Linux
# aarch64 under qemu, ThreadSanitizer, reproducible builds, the ABI check and the demo host.
#
#   bash scripts/test.sh            the whole suite (what .ci/run runs)
#   bash scripts/test.sh --quick    the developer's inner loop: fmt, then the engine tests and
#                                   the C hosts on the default engine only (a few minutes warm)
#   bash scripts/test.sh --engine V one engine lane alone (3.17.0, 3.3.7, 2.3.7 or 2.2.2)
#
# Which test binary runs in which lane, and why, is docs/testing.md's "Lanes"; every file of
# tests/ must be named in exactly one of the lists below (checked first). Each test binary is
# run on its own and timed: target/test-times/<lane>.tsv holds the seconds, and
# `bash scripts/test_times.sh` writes them into docs/testing.md's timing table.
#
# Toolchains a test needs but the machine lacks are reported loudly and skipped, unless
# MJB_REQUIRE_ALL_TOOLCHAINS=1 (CI), which turns every such skip into a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/ci_lib.sh
. scripts/ci_lib.sh

quick=0
only_engine=""
case "${1:-}" in
  "") ;;
  --quick) quick=1 ;;
  --engine) only_engine="${2:?--engine takes a version}" ;;
  -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "test.sh: unknown argument: $1 (usage: test.sh [--quick | --engine VERSION])" >&2; exit 2 ;;
esac

# What depends on the engine: the library's behaviour through its exports (checkpoints,
# conformance, history and recordings, faults, frames, plugins, numbers, inputs...), the C
# hosts, the 0.2.0 host of the ABI promise and the bindings' suites calling into the library,
# the `mjbridge` command's engine-specific references. Runs in every engine lane.
ENGINE_TESTS=(abi admission bindings bindings_engine c_hosts checkpoint concurrency conformance fast_path faults
  foundation frames fuzz_replay history host_surface inputs memory model_identity numbers
  packages plugins preconditions properties recording restore_points step_path validate_only)
# The Python extras (Gymnasium, Ray): the default engine, and 2.2.2 for the basic profile's
# weaker promise (tests/gym.rs says which half runs where).
GYM_ENGINES=(4.0.0 2.2.2)
# The install tree from a system MuJoCo (Debian's 2.2.2: not bundled from a wheel, its
# copyright file as MuJoCo's license text, a --local Python wheel) besides the default lane's
# install from the pinned wheel: tests/install.rs in the 2.2.2 lane too.
SYSTEM_MUJOCO_ENGINE=2.2.2
# What does not depend on the engine: packaging (install trees, wheels, colcon, Unity/Unreal,
# the cross-built trees, which are built from the default engine's wheels of each target),
# the documentation, the header and the bindings' generated declarations, the ABI baselines,
# the repository's own rules, the recording reader's memory bound (no endpoint, no engine).
# Runs once, on the default engine.
ONCE_TESTS=(apiref bindings_gen colcon cross docs engine_packages function_length header
  install python_wheels recording_memory repository)
# The aarch64 lane under qemu: every engine test that drives the library through its exports
# (not the ones that build host programs with the machine's compilers or start the built
# `mjbridge` command: c_hosts, bindings, packages, recording; tests/cross.rs runs host
# programs built with the aarch64 cross compilers).
AARCH64_TESTS=(faults foundation frames fuzz_replay host_surface inputs memory step_path
  validate_only properties concurrency plugins conformance checkpoint numbers history)

# Inside two engine test binaries, tests that check nothing of the engine run in the default
# lane only; the other engine lanes pass these libtest arguments. abi: the engine lanes run the
# hosts built against old headers (the 0.2.0 host, the deprecated calls) on their library, not
# abi_check.sh on mutated copies of the header and export lists. c_hosts: a C++ program that
# must not compile fails the same way whatever the engine.
declare -A ENGINE_LANE_SUBSET=(
  [abi]="a_host_built_against_the_0_2_0_header_runs_on_the_current_library deprecated_exports_warn_naming_their_replacement_and_still_work"
  [c_hosts]="--skip cpp_binding_refuses_to_compile_a_pointer_without_its_length"
)

# Every tests/*.rs in exactly one lane list (gym has its own).
check_lists() {
  local f name bad=0 listed
  listed=" ${ENGINE_TESTS[*]} ${ONCE_TESTS[*]} gym "
  for f in tests/*.rs; do
    name="$(basename "$f" .rs)"
    case "$listed" in
      *" $name "*) ;;
      *) echo "test.sh: tests/$name.rs is in no lane (ENGINE_TESTS or ONCE_TESTS)" >&2; bad=1 ;;
    esac
  done
  for name in "${ENGINE_TESTS[@]}" "${ONCE_TESTS[@]}" "${AARCH64_TESTS[@]}"; do
    [ -f "tests/$name.rs" ] || { echo "test.sh: the lane lists name tests/$name.rs, which does not exist" >&2; bad=1; }
  done
  [ "$(printf '%s\n' "${ENGINE_TESTS[@]}" "${ONCE_TESTS[@]}" | sort | uniq -d)" = "" ] ||
    { echo "test.sh: a test is in both ENGINE_TESTS and ONCE_TESTS" >&2; bad=1; }
  return "$bad"
}
check_lists

times_dir=target/test-times
mkdir -p "$times_dir"

# run_lane LANE CARGO_ARGS... -- TARGETS...: builds every target in one cargo call, then runs
# each one alone (`--lib`, `--doc` or a test name), timed into $times_dir/LANE.tsv. Every
# target runs even when one fails; the lane fails at the end, naming the failures. Outside the
# default lane a target of ENGINE_LANE_SUBSET runs only its subset, which must run a test.
run_lane() {
  local lane="$1" args=() targets=() t sel start secs failed=()
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  targets=("$@")
  local sels=()
  for t in "${targets[@]}"; do
    case "$t" in --lib|--doc) [ "$t" = --doc ] || sels+=("$t") ;; *) sels+=(--test "$t") ;; esac
  done
  : >"$times_dir/$lane.tsv"
  echo "--- $lane: building ${#targets[@]} test targets"
  start=$(date +%s)
  cargo test "${args[@]}" --no-run "${sels[@]}" || return 1
  printf '(build)\t%s\n' "$(( $(date +%s) - start ))" >>"$times_dir/$lane.tsv"
  for t in "${targets[@]}"; do
    case "$t" in --lib|--doc) sel=("$t") ;; *) sel=(--test "$t") ;; esac
    local subset=()
    if [ "$lane" != 4.0.0 ] && [ -n "${ENGINE_LANE_SUBSET[$t]:-}" ]; then
      read -r -a subset <<<"${ENGINE_LANE_SUBSET[$t]}"
      sel+=(-- "${subset[@]}")
    fi
    start=$(date +%s.%N)
    if ! cargo test "${args[@]}" "${sel[@]}" 2>&1 | tee "$times_dir/last.log"; then
      failed+=("$t")
    elif [ "${#subset[@]}" -gt 0 ] && ! grep -q 'test result: ok\. [1-9]' "$times_dir/last.log"; then
      echo "test.sh: $lane: $t ${subset[*]} ran no test (renamed?)" >&2
      failed+=("$t")
    fi
    secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    printf '%s\t%s\n' "${t#--}" "$secs" >>"$times_dir/$lane.tsv"
    echo "--- $lane: ${t#--}: $secs s"
  done
  if [ "${#failed[@]}" -gt 0 ]; then
    echo "test.sh: $lane: failed: ${failed[*]}" >&2
    return 1
  fi
}

use_sccache
cache="$MJB_MUJOCO_CACHE"
debian_inc=/usr/include
debian_lib=/usr/lib/x86_64-linux-gnu

# The default engine: everything once, with fault injection on.
default_lane() {
  local targets=(--lib "${ENGINE_TESTS[@]}" gym)
  [ "$quick" = 1 ] || targets+=("${ONCE_TESTS[@]}" --doc)
  MJB_EXPECT_ENGINE=4.0.0 MJB_FOREIGN_MUJOCO_LIB=none \
    run_lane 4.0.0 --features fault-injection -- "${targets[@]}"
}

# The engine matrix: the engine tests against the newest 3.x (3.17.0), 3.3.7 (official wheels),
# 2.3.7 (the last 2.x: the state API, equality activation still in the model) and Debian's
# 2.2.2 (no state API: the basic profile). Every integration-profile engine runs both profiles
# (the tests open each profile the engine serves). Separate target folders (each links its own
# MuJoCo); the dependencies come from the compiler cache. The foreign library of the
# engine-mismatch test must have every symbol the build links: 4.0.0's for the 3.x builds, none
# for 2.3.7.
engine_lane() { # VERSION FOREIGN_LIB [NAME=VALUE...]
  local version="$1" foreign="$2" targets=(--lib "${ENGINE_TESTS[@]}") kv
  shift 2
  case " ${GYM_ENGINES[*]} " in *" $version "*) targets+=(gym) ;; esac
  [ "$version" != "$SYSTEM_MUJOCO_ENGINE" ] || targets+=(install)
  for kv in "$@"; do export "${kv?}"; done
  export MJB_EXPECT_ENGINE="$version" MJB_FOREIGN_MUJOCO_LIB="$foreign"
  # --target-dir, not CARGO_TARGET_DIR: sccache hashes every CARGO_* variable, and one that
  # names each lane's folder would keep the lanes from sharing a single compiled dependency.
  run_lane "$version" --features fault-injection --target-dir "target/engine-$version" \
    -- "${targets[@]}"
}
engine_lanes() { # [VERSION]: every engine lane, or the one named
  local v
  for v in 3.17.0 3.3.7 2.3.7 2.2.2; do
    [ -z "${1:-}" ] || [ "$1" = "$v" ] || continue
    case "$v" in
      3.*) timed "cargo test: MuJoCo $v (pinned wheel): engine tests" \
        engine_lane "$v" "$cache/4.0.0/mujoco/libmujoco.so.4.0.0" MJB_MUJOCO_VERSION="$v" ;;
      2.3.7) timed "cargo test: MuJoCo $v (pinned wheel, x86_64 only): engine tests" \
        engine_lane "$v" none MJB_MUJOCO_VERSION="$v" ;;
      2.2.2)
        if [ -f "$debian_inc/mujoco/mujoco.h" ] && [ -f "$debian_lib/libmujoco.so.2.2.2" ]; then
          timed "cargo test: MuJoCo 2.2.2 (Debian libmujoco-dev): engine tests" \
            engine_lane 2.2.2 none MUJOCO_INCLUDE_DIR="$debian_inc" MUJOCO_LIB_DIR="$debian_lib"
        elif [ "${MJB_REQUIRE_ALL_TOOLCHAINS:-}" = 1 ]; then
          echo "MuJoCo 2.2.2 (apt install libmujoco-dev) is missing and MJB_REQUIRE_ALL_TOOLCHAINS=1" >&2
          return 1
        else
          echo "!!!!!!!! MuJoCo 2.2.2 not installed (apt install libmujoco-dev): 2.2.2 suite SKIPPED !!!!!!!!"
        fi ;;
    esac
  done
}
if [ -n "$only_engine" ]; then
  case " 3.17.0 3.3.7 2.3.7 2.2.2 " in
    *" $only_engine "*) engine_lanes "$only_engine"; exit 0 ;;
    *) echo "test.sh: --engine takes 3.17.0, 3.3.7, 2.3.7 or 2.2.2 (the default engine: --quick or the whole suite)" >&2; exit 2 ;;
  esac
fi
if [ "$quick" = 1 ]; then
  timed "cargo fmt --check" cargo fmt --all -- --check
  timed "cargo test: MuJoCo 4.0.0, engine tests and C hosts (--quick)" default_lane
  echo
  echo "quick suite passed (the whole suite: bash scripts/test.sh)"
  exit 0
fi

timed "cargo fmt --check" cargo fmt --all -- --check
timed "cargo clippy -D warnings" \
  cargo clippy --all-targets --features fault-injection --quiet -- -D warnings

# The notices of the Rust crates in the artifacts (THIRD_PARTY_NOTICES.md) against a fresh
# cargo-about generation, and cargo-deny's license, bans and sources policy (deny.toml); offline.
timed "licenses: THIRD_PARTY_NOTICES.md is current, cargo deny check licenses bans sources" \
  bash scripts/licenses.sh

timed "cargo test: MuJoCo 4.0.0 (default, pinned wheel): every test binary" default_lane

engine_lanes

# The Rust suite on Linux aarch64, under qemu user emulation (.cargo/config.toml's runner),
# compiled with opt-level 1 (debug assertions and overflow checks stay on): qemu translates
# unoptimised code slowly, and the optimised build runs the same tests in 45 s instead of 158 s
# here for 15 s more of compiling.
aarch64_lane() {
  local sels=() t
  for t in "${AARCH64_TESTS[@]}"; do sels+=(--test "$t"); done
  MJB_EXPECT_ENGINE=4.0.0 MJB_FOREIGN_MUJOCO_LIB=none \
    cargo test --target aarch64-unknown-linux-gnu --features fault-injection \
    --config profile.dev.opt-level=1 "${sels[@]}"
}
if command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64-static >/dev/null &&
  [ -d "$(rustc --print sysroot)/lib/rustlib/aarch64-unknown-linux-gnu" ]; then
  timed "cargo test: Linux aarch64 under qemu (MuJoCo 4.0.0 aarch64 wheel, fault injection on)" \
    aarch64_lane
elif [ "${MJB_REQUIRE_ALL_TOOLCHAINS:-}" = 1 ]; then
  echo "aarch64 cross toolchain (gcc-aarch64-linux-gnu, qemu-user-static, rustup target add aarch64-unknown-linux-gnu) is missing and MJB_REQUIRE_ALL_TOOLCHAINS=1" >&2
  exit 1
else
  echo "!!!!!!!! aarch64 cross toolchain missing: aarch64 suite SKIPPED !!!!!!!!"
fi

timed "ThreadSanitizer: the multi-threaded tests, standard library and C shim instrumented" \
  bash scripts/tsan.sh

# Without the compiler cache: two builds that must come out the same are compiled for real.
timed "reproducible builds: two install builds of this commit in different folders" \
  env -u RUSTC_WRAPPER bash scripts/repro_check.sh

release_exports() {
  cargo build --release --lib --quiet
  if nm -D --defined-only target/release/libmjbridge.so | grep -q ' mjb_test_'; then
    echo "release libmjbridge.so exports mjb_test_* without the fault-injection feature" >&2
    return 1
  fi
  nm -D --defined-only target/release/libmjbridge.so | grep -c ' T mjb_' | sed 's/^/exported mjb_ functions: /'
}
timed "the default build exports no test-only symbol" release_exports

# The ABI promise (every 0.x release is a drop-in for an older one): the header, the release
# library and the cross-built Windows DLL against every stored release baseline (abi/<version>/).
# tests/abi.rs proves the same script fails on each kind of break.
# The Windows DLL is the one the cross lane's install tree ships (tests/cross.rs built it in the
# default lane: a release build with the default features), not a second cross build.
abi() {
  local dll=target/cross-install/x86_64-pc-windows-gnu/release/mjbridge.dll
  if [ -f "$dll" ]; then
    bash scripts/abi_check.sh --dll "$dll"
  else
    bash scripts/abi_check.sh
  fi
}
timed "ABI check against the release baselines (abi/)" abi

# The README's first command, as it is written there.
demo() {
  bash examples/run_demo.sh
}
timed "demo host" demo

echo
echo "all tests passed"
