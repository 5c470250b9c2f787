#!/usr/bin/env bash
# Build a platform wheel of the Python binding that carries the library:
#
#   bash scripts/python_wheel.sh OUT_DIR [--target-dir DIR] [--from-prefix PREFIX]
#
#   OUT_DIR/mjbridge-X.Y.Z-py3-none-linux_<arch>.whl
#     mjbridge/__init__.py, _native.py, py.typed     the ctypes binding and its type hints
#     mjbridge/_lib/libmjbridge.so.0                  the release library (RUNPATH $ORIGIN)
#     mjbridge/_lib/libmujoco.so.A.B.C                the exact MuJoCo it was linked against
#     mjbridge/_lib/mujoco_plugin/*.so                MuJoCo's engine plugins (RUNPATH $ORIGIN/..)
#     mjbridge-X.Y.Z.dist-info/licenses/              LICENSE, THIRD_PARTY_NOTICES.md and
#                                                     mujoco/ (MuJoCo's LICENSE and
#                                                     LICENSES_THIRD_PARTY.md): the tree's
#                                                     share/licenses/mjbridge/, as metadata 2.4
#                                                     lays out a wheel's license files
#
# `pip install OUT_DIR/mjbridge-*.whl` then works with nothing else installed: the binding loads
# the library from its own folder and the library finds MuJoCo beside itself, as MuJoCo's own
# wheel carries libmujoco. The library is built and laid out by scripts/install.sh
# (`--prefix TMP --bundle-mujoco`, and `--target-dir` when given); `--from-prefix` takes an
# already installed tree made with --bundle-mujoco instead of building.
#
# The wheel is tagged py3-none-linux_<arch>: the binding is pure Python (ctypes), the library
# is for this platform. PYTHON (default python3) runs pip; with setuptools 77 or newer
# importable (the first with metadata 2.4's license files) it builds without fetching it
# (--no-build-isolation).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
out=""
target_dir=""
from_prefix=""
usage() { sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --target-dir) target_dir="$2"; shift 2 ;;
    --target-dir=*) target_dir="${1#*=}"; shift ;;
    --from-prefix) from_prefix="$2"; shift 2 ;;
    --from-prefix=*) from_prefix="${1#*=}"; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "python_wheel.sh: unknown option: $1" >&2; usage >&2; exit 2 ;;
    *) [ -z "$out" ] || { echo "python_wheel.sh: one OUT_DIR, not '$out' and '$1'" >&2; exit 2; }
       out="$1"; shift ;;
  esac
done
[ -n "$out" ] || { usage >&2; exit 2; }
python="${PYTHON:-python3}"
command -v "$python" >/dev/null || { echo "python_wheel.sh: $python not found (set PYTHON)" >&2; exit 1; }
command -v readelf >/dev/null || { echo "python_wheel.sh: readelf (binutils) is needed" >&2; exit 1; }
mkdir -p "$out"
out="$(cd "$out" && pwd)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
step() { printf '==> %s\n' "$*"; }

if [ -n "$from_prefix" ]; then
  prefix="$(cd "$from_prefix" && pwd)"
else
  prefix="$work/prefix"
  args=(--prefix "$prefix" --bundle-mujoco)
  [ -z "$target_dir" ] || args+=(--target-dir "$target_dir")
  DESTDIR= bash "$root/scripts/install.sh" "${args[@]}"
fi
lib="$prefix/lib"
version="$(sed -n 's/^#define MJB_VERSION "\(.*\)"$/\1/p' "$prefix/include/mjbridge.h")"
[ -n "$version" ] || { echo "python_wheel.sh: no MJB_VERSION in $prefix/include/mjbridge.h" >&2; exit 1; }
real="$lib/libmjbridge.so.$version"
[ -f "$real" ] || { echo "python_wheel.sh: $real is missing (an install of mjbridge $version?)" >&2; exit 1; }

# What the loader will need: the SONAME the binding loads, $ORIGIN, and the MuJoCo file it names.
dyn="$(readelf -d "$real")"
soname="$(sed -n 's/.*Library soname: \[\(.*\)\]/\1/p' <<<"$dyn")"
runpath="$(sed -n 's/.*Library r\(un\)\{0,1\}path: \[\(.*\)\]/\2/p' <<<"$dyn")"
mujoco_file="$(sed -n 's/.*Shared library: \[\(libmujoco[^]]*\)\]/\1/p' <<<"$dyn")"
[ "$runpath" = '$ORIGIN' ] || { echo "python_wheel.sh: $real has RUNPATH '$runpath', not \$ORIGIN" >&2; exit 1; }
[ -n "$mujoco_file" ] || { echo "python_wheel.sh: $real names no libmujoco" >&2; exit 1; }
[ -f "$lib/$mujoco_file" ] || {
  echo "python_wheel.sh: $lib/$mujoco_file is missing: the tree must bundle MuJoCo (install.sh --bundle-mujoco)" >&2
  exit 1
}

# The license texts the tree carries: the bridge's, the crates' notices and MuJoCo's (a wheel
# that carries libmujoco carries its license, or is not made).
licenses="$prefix/share/licenses/mjbridge"
for f in LICENSE THIRD_PARTY_NOTICES.md; do
  [ -s "$licenses/$f" ] || { echo "python_wheel.sh: $licenses/$f is missing (a tree of scripts/install.sh?)" >&2; exit 1; }
done
mujoco_licenses=()
for f in "$licenses"/mujoco/*; do
  [ -s "$f" ] && mujoco_licenses+=("$f")
done
[ "${#mujoco_licenses[@]}" -gt 0 ] || {
  echo "python_wheel.sh: no MuJoCo license texts in $licenses/mujoco: the wheel would carry $mujoco_file without them" >&2
  exit 1
}

step "staging the package with $soname, $mujoco_file and MuJoCo's plugins"
src="$work/src"
mkdir -p "$src"
cp -R "$root/bindings/python/." "$src/"
rm -rf "$src/tests" "$src/build" "$src"/*.egg-info "$src/mjbridge/_lib"
find "$src" -name __pycache__ -prune -exec rm -rf {} +
bundle="$src/mjbridge/_lib"
mkdir -p "$bundle"
# Real files under the names the loader looks for (a wheel keeps no symlinks).
install -m 755 "$real" "$bundle/$soname"
install -m 755 "$lib/$mujoco_file" "$bundle/$mujoco_file"
if [ -d "$lib/mujoco_plugin" ]; then
  mkdir -p "$bundle/mujoco_plugin"
  for p in "$lib/mujoco_plugin"/*.so; do
    [ -e "$p" ] && install -m 755 "$p" "$bundle/mujoco_plugin/"
  done
fi

install -m 644 "$licenses/LICENSE" "$licenses/THIRD_PARTY_NOTICES.md" "$src/"
mkdir -p "$src/mujoco"
install -m 644 "${mujoco_licenses[@]}" "$src/mujoco/"
names=(LICENSE THIRD_PARTY_NOTICES.md)
for f in "${mujoco_licenses[@]}"; do
  names+=("mujoco/$(basename "$f")")
done
license_files="$(printf '"%s", ' "${names[@]}")"
license_files="${license_files%, }"
sed -i "s|^license-files = \[\"LICENSE\"\]\$|license-files = [$license_files]|" "$src/pyproject.toml"
grep -qF "license-files = [$license_files]" "$src/pyproject.toml" || {
  echo "python_wheel.sh: bindings/python/pyproject.toml has no line 'license-files = [\"LICENSE\"]' to extend" >&2
  exit 1
}

arch="$(uname -m)"
printf '[bdist_wheel]\nplat_name = linux_%s\n' "$arch" >"$src/setup.cfg"
pip_args=(-m pip wheel --quiet --disable-pip-version-check --no-deps -w "$work/wheel")
if "$python" -c 'import setuptools, sys; sys.exit(int(setuptools.__version__.split(".")[0]) < 77)' 2>/dev/null; then
  pip_args+=(--no-build-isolation)
fi
step "building the wheel ($("$python" --version 2>&1))"
"$python" "${pip_args[@]}" "$src"
whl=("$work/wheel"/mjbridge-"$version"-*.whl)
[ -f "${whl[0]}" ] || { echo "python_wheel.sh: pip made no wheel" >&2; exit 1; }
case "${whl[0]}" in
  *-py3-none-linux_"$arch".whl) ;;
  *) echo "python_wheel.sh: unexpected wheel tag: $(basename "${whl[0]}")" >&2; exit 1 ;;
esac
# Each license file where metadata 2.4 puts it, and named by the metadata.
"$python" - "${whl[0]}" "$version" "${names[@]}" <<'PY' || exit 1
import sys, zipfile
wheel, version, names = sys.argv[1], sys.argv[2], sys.argv[3:]
z = zipfile.ZipFile(wheel)
info = f"mjbridge-{version}.dist-info"
meta = z.read(f"{info}/METADATA").decode()
for n in names:
    member = f"{info}/licenses/{n}"
    if member not in z.namelist() or not z.read(member) or f"License-File: {n}\n" not in meta:
        sys.exit(f"python_wheel.sh: {n} is not in the wheel's {info}/licenses/ and METADATA")
PY
cp "${whl[0]}" "$out/"
step "wheel: $out/$(basename "${whl[0]}")"
