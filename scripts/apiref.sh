#!/usr/bin/env bash
# Build the C API reference of include/mjbridge.h with Doxygen (docs/api/Doxyfile): HTML in
# OUT/html (open OUT/html/index.html), and the XML that tests/apiref.rs checks in OUT/xml.
# OUT defaults to target/apiref. Any Doxygen warning (an undocumented export, struct field or
# define, a broken reference, a formatting error in a comment) fails the build: every warning
# is printed, then the script exits non-zero.
#
#   bash scripts/apiref.sh [OUT]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(realpath -m "${1:-$root/target/apiref}")"
command -v doxygen >/dev/null || { echo "doxygen is required (apt install doxygen)" >&2; exit 1; }

version=$(sed -n 's/^#define MJB_VERSION "\(.*\)"$/\1/p' "$root/include/mjbridge.h")
[ -n "$version" ] || { echo "no MJB_VERSION in include/mjbridge.h" >&2; exit 1; }
# A stale page of a removed function must not survive in OUT.
rm -rf "$out/html" "$out/xml"
mkdir -p "$out"
cd "$root"
# The Doxyfile's paths are relative to the repository root; the output folder and the version
# are the run's.
{
  cat docs/api/Doxyfile
  echo "OUTPUT_DIRECTORY = \"$out\""
  echo "PROJECT_NUMBER = $version"
} | doxygen -
echo "API reference of mjbridge $version: $out/html/index.html"
