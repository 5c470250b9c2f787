#!/usr/bin/env bash
# Run one cargo-fuzz target for a while: bash fuzz/run.sh TARGET SECONDS
# (targets: restore, world_write, endpoint_config, recording). New corpus entries go to fuzz/corpus/
# (not committed); a crash leaves an artifact in fuzz/artifacts/TARGET/ — copy it into
# fuzz/regressions/TARGET/ so `cargo test` (tests/fuzz_replay.rs) replays it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?target}
seconds=${2:-60}
export MJB_MUJOCO_CACHE="${MJB_MUJOCO_CACHE:-$PWD/target/mujoco-cache}"
version="${MJB_MUJOCO_VERSION:-4.0.0}"
# build.rs gives the bridge's own artifacts an rpath to the wheel's library; the fuzz
# binaries are another package's, so they find it here.
export LD_LIBRARY_PATH="$MJB_MUJOCO_CACHE/$version/mujoco${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "fuzz/corpus/$target"
# A committed corpus (fuzz/corpora/TARGET.tar.xz: what earlier runs found, minimized with
# `cargo fuzz cmin`) is where a new run starts, when the working corpus is empty.
if [ -f "fuzz/corpora/$target.tar.xz" ] && [ -z "$(ls -A "fuzz/corpus/$target")" ]; then
  tar -xJf "fuzz/corpora/$target.tar.xz" -C fuzz/corpus
fi
cargo +nightly fuzz run -O "$target" "fuzz/corpus/$target" "fuzz/seeds/$target" -- \
  -dict=fuzz/json.dict -max_len=65536 -max_total_time="$seconds" -print_final_stats=1
