#!/usr/bin/env bash
# Build the library, compile the C demo host against include/mjbridge.h and run it:
# open -> step -> checkpoint -> step -> restore -> step, showing the continuation is
# bit-identical. Usage: bash examples/run_demo.sh [model.xml] [k] [m]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --lib --quiet
out=target/release/examples-c
mkdir -p "$out"
"${CC:-cc}" -std=c99 -Wall -Wextra -Werror -O2 -I include examples/checkpoint_demo.c \
  -L target/release -lmjbridge -Wl,-rpath,"$PWD/target/release" -o "$out/checkpoint_demo"
"$out/checkpoint_demo" "${1:-tests/models/contact_act.xml}" "${2:-500}" "${3:-1000}"
