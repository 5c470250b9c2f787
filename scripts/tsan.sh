#!/usr/bin/env bash
# ThreadSanitizer lane: the tests that run several threads against one endpoint (concurrency,
# frames, faults, inputs, host surface, step path), with the standard library, the crate and
# the C shim all instrumented (nightly `-Zsanitizer=thread -Zbuild-std`; the shim through the
# cc crate's target CFLAGS). MuJoCo itself is the wheel's uninstrumented build: TSan sees the
# bridge's own synchronization, which is what these tests are about.
#
#   bash scripts/tsan.sh            (needs the nightly toolchain with rust-src)
#
# Any report fails the run (TSAN_OPTIONS halt_on_error=1).
set -euo pipefail
cd "$(dirname "$0")/.."

triple=x86_64-unknown-linux-gnu
if ! rustup run nightly rustc --version >/dev/null 2>&1 \
  || ! rustup component list --toolchain nightly --installed 2>/dev/null | grep -q '^rust-src'; then
  msg="ThreadSanitizer lane needs the nightly toolchain with rust-src (rustup component add rust-src --toolchain nightly)"
  if [ "${MJB_REQUIRE_ALL_TOOLCHAINS:-}" = 1 ]; then
    echo "$msg and MJB_REQUIRE_ALL_TOOLCHAINS=1" >&2
    exit 1
  fi
  echo "!!!!!!!! $msg: SKIPPED !!!!!!!!"
  exit 0
fi

export RUSTFLAGS="-Zsanitizer=thread"
export CFLAGS_x86_64_unknown_linux_gnu="-fsanitize=thread -g -O1"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
export CARGO_TARGET_DIR=target/tsan
# The sanitizer build runs each test binary once; the C compilers the other suites need are
# not involved here.
cargo +nightly test -Zbuild-std --target "$triple" --features fault-injection \
  --test concurrency --test frames --test faults --test inputs --test host_surface \
  --test step_path --test restore_points --test preconditions --test history
