#!/usr/bin/env bash
# The full test suite: formatting, lints, header drift, Rust integration tests, C/C++ host
# programs (real compilers, a sanitizer build), fault injection through the real MuJoCo, and
# a check that the default library exports no test-only symbol.
#
# Toolchains a test needs but the machine lacks are reported loudly and skipped, unless
# MJB_REQUIRE_ALL_TOOLCHAINS=1 (CI), which turns every such skip into a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy -D warnings"
cargo clippy --all-targets --features fault-injection --quiet -- -D warnings

# The notices of the Rust crates in the artifacts (THIRD_PARTY_NOTICES.md) against a fresh
# cargo-about generation, and cargo-deny's license, bans and sources policy (deny.toml); offline.
step "licenses: THIRD_PARTY_NOTICES.md is current, cargo deny check licenses bans sources"
bash scripts/licenses.sh

cache="$PWD/target/mujoco-cache"
debian_inc=/usr/include
debian_lib=/usr/lib/x86_64-linux-gnu

step "cargo test: MuJoCo 4.0.0 (default, pinned wheel), fault injection on"
MJB_EXPECT_ENGINE=4.0.0 MJB_FOREIGN_MUJOCO_LIB=none cargo test --features fault-injection

# The engine matrix: the same suite against the newest 3.x (3.17.0), 3.3.7 (official wheels),
# 2.3.7 (the last 2.x: the state API, equality activation still in the model) and Debian's
# 2.2.2 (no state API: the basic profile). Every integration-profile engine runs both profiles
# (the tests open each profile the engine serves). Separate target folders (each links its own
# MuJoCo); the wheel cache is shared. The foreign library of the engine-mismatch test must have
# every symbol the build links: 4.0.0's for the 3.x builds, none for 2.3.7.
lane() { # VERSION FOREIGN_LIB
  local start
  start=$(date +%s)
  MJB_MUJOCO_VERSION="$1" CARGO_TARGET_DIR="target/engine-$1" MJB_MUJOCO_CACHE="$cache" \
    MJB_EXPECT_ENGINE="$1" MJB_FOREIGN_MUJOCO_LIB="$2" cargo test --features fault-injection
  echo "MuJoCo $1 suite: $(( $(date +%s) - start )) s"
}
step "cargo test: MuJoCo 3.17.0 (pinned wheel)"
lane 3.17.0 "$cache/4.0.0/mujoco/libmujoco.so.4.0.0"

step "cargo test: MuJoCo 3.3.7 (pinned wheel)"
lane 3.3.7 "$cache/4.0.0/mujoco/libmujoco.so.4.0.0"

step "cargo test: MuJoCo 2.3.7 (pinned wheel, x86_64 only)"
lane 2.3.7 none

step "cargo test: MuJoCo 2.2.2 (Debian libmujoco-dev)"
if [ -f "$debian_inc/mujoco/mujoco.h" ] && [ -f "$debian_lib/libmujoco.so.2.2.2" ]; then
  MUJOCO_INCLUDE_DIR="$debian_inc" MUJOCO_LIB_DIR="$debian_lib" CARGO_TARGET_DIR=target/engine-2.2.2 \
    MJB_EXPECT_ENGINE=2.2.2 MJB_FOREIGN_MUJOCO_LIB=none cargo test --features fault-injection
elif [ "${MJB_REQUIRE_ALL_TOOLCHAINS:-}" = 1 ]; then
  echo "MuJoCo 2.2.2 (apt install libmujoco-dev) is missing and MJB_REQUIRE_ALL_TOOLCHAINS=1" >&2
  exit 1
else
  echo "!!!!!!!! MuJoCo 2.2.2 not installed (apt install libmujoco-dev): 2.2.2 suite SKIPPED !!!!!!!!"
fi

# The Rust suite on Linux aarch64, under qemu user emulation (.cargo/config.toml's runner): every
# integration test that drives the library through its exports (59 + 16 tests, about 2.5 min
# here with the build). Not here: the tests that build host programs with the machine's own
# compilers or start the built `mjbridge` command (c_hosts, install, bindings, packages), the
# header drift check (source text only) and tests/cross.rs itself; tests/cross.rs runs the same
# hosts built with the aarch64 cross compilers against the installed aarch64 tree.
step "cargo test: Linux aarch64 under qemu (MuJoCo 4.0.0 aarch64 wheel, fault injection on)"
if command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64-static >/dev/null &&
  [ -d "$(rustc --print sysroot)/lib/rustlib/aarch64-unknown-linux-gnu" ]; then
  aarch64_start=$(date +%s)
  MJB_MUJOCO_CACHE="$cache" MJB_EXPECT_ENGINE=4.0.0 MJB_FOREIGN_MUJOCO_LIB=none \
    cargo test --target aarch64-unknown-linux-gnu --features fault-injection \
    --test faults --test foundation --test frames --test fuzz_replay --test host_surface \
    --test inputs --test memory --test step_path --test validate_only --test properties \
    --test concurrency --test plugins --test conformance --test checkpoint --test numbers \
    --test history
  echo "aarch64 suite under qemu: $(( $(date +%s) - aarch64_start )) s"
elif [ "${MJB_REQUIRE_ALL_TOOLCHAINS:-}" = 1 ]; then
  echo "aarch64 cross toolchain (gcc-aarch64-linux-gnu, qemu-user-static, rustup target add aarch64-unknown-linux-gnu) is missing and MJB_REQUIRE_ALL_TOOLCHAINS=1" >&2
  exit 1
else
  echo "!!!!!!!! aarch64 cross toolchain missing: aarch64 suite SKIPPED !!!!!!!!"
fi

step "ThreadSanitizer: the multi-threaded tests, standard library and C shim instrumented"
bash scripts/tsan.sh

step "reproducible builds: two install builds of this commit in different folders"
repro_start=$(date +%s)
MJB_MUJOCO_CACHE="$cache" bash scripts/repro_check.sh
echo "reproducibility check: $(( $(date +%s) - repro_start )) s"

step "the default build exports no test-only symbol"
cargo build --release --lib --quiet
if nm -D --defined-only target/release/libmjbridge.so | grep -q ' mjb_test_'; then
  echo "release libmjbridge.so exports mjb_test_* without the fault-injection feature" >&2
  exit 1
fi
nm -D --defined-only target/release/libmjbridge.so | grep -c ' T mjb_' | sed 's/^/exported mjb_ functions: /'

# The ABI promise (every 0.x release is a drop-in for an older one): the header, the release
# library and the cross-built Windows DLL against every stored release baseline (abi/<version>/).
# tests/abi.rs proves the same script fails on each kind of break.
step "ABI check against the release baselines (abi/)"
abi_start=$(date +%s)
bash scripts/abi_check.sh
echo "ABI check: $(( $(date +%s) - abi_start )) s"

step "demo host"
bash examples/run_demo.sh

echo
echo "all tests passed"
