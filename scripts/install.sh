#!/usr/bin/env bash
# Install mjbridge into a prefix like a native C library, for this machine or a cross target:
#
#   bash scripts/install.sh --prefix P [--target TRIPLE] [--libdir lib] [--bundle-mujoco|--no-bundle-mujoco]
#                           [--mujoco-licenses DIR] [--target-dir DIR] [--build-only]
#
# TRIPLE is x86_64-unknown-linux-gnu, aarch64-unknown-linux-gnu or x86_64-pc-windows-gnu
# (default: the host's). Linux trees:
#
#   PREFIX/bin/mjbridge                   the mjbridge command (RUNPATH $ORIGIN/../lib)
#   PREFIX/include/mjbridge.h, mjbridge.hpp
#   PREFIX/lib/libmjbridge.so.X.Y.Z       SONAME libmjbridge.so.X, RUNPATH $ORIGIN only
#   PREFIX/lib/libmjbridge.so.X -> .so.X.Y.Z, libmjbridge.so -> .so.X
#   PREFIX/lib/libmjbridge.a
#   PREFIX/lib/libmujoco.so.A.B.C         (bundled MuJoCo, with --bundle-mujoco)
#   PREFIX/lib/mujoco_plugin/             (its engine plugins, RUNPATH $ORIGIN/..)
#   PREFIX/lib/pkgconfig/mjbridge.pc
#   PREFIX/lib/cmake/mjbridge/mjbridgeConfig.cmake, mjbridgeConfigVersion.cmake
#   PREFIX/share/mjbridge/csharp/MjBridge.cs  (the C# binding, for Unity's Assets/)
#   PREFIX/share/mjbridge/TARGET          the target triple and MuJoCo of this tree
#   PREFIX/share/licenses/mjbridge/LICENSE, THIRD_PARTY_NOTICES.md   the bridge's license and
#                                         the notices of the Rust crates compiled into it
#   PREFIX/share/licenses/mjbridge/mujoco/  MuJoCo's license texts (with --bundle-mujoco)
#
# Windows trees (x86_64-pc-windows-gnu):
#
#   PREFIX/bin/mjbridge.dll, mjbridge.exe
#   PREFIX/bin/mujoco.dll, bin/mujoco_plugin/*.dll  (bundled MuJoCo, with --bundle-mujoco)
#   PREFIX/lib/mjbridge.lib               MSVC-format import library (llvm-dlltool, from the .def)
#   PREFIX/lib/libmjbridge.dll.a          mingw import library
#   PREFIX/lib/mjbridge.def               the exports
#   PREFIX/lib/libmjbridge.a              the static library
#   PREFIX/lib/mujoco.lib, mujoco.def     import library of the bundled mujoco.dll
#   PREFIX/include, lib/pkgconfig, lib/cmake/mjbridge, share/mjbridge, share/licenses as above
#
# Every path inside the .pc and .cmake files is relative to the file itself, so the tree can be
# moved or copied as a whole (into a Unity/Unreal plugin folder, a ROS 2 workspace, a package).
# DESTDIR (environment) stages the install under another root, as `make install` does.
# --target-dir DIR is cargo's target folder (default target/install in the checkout);
# --build-only builds and runs every check that can refuse, then stops before installing
# anything (the top-level CMakeLists.txt: its build step, the install step runs the rest).
#
# MuJoCo: --bundle-mujoco copies the exact MuJoCo library the bridge was linked against (and its
# plugin folder) beside the bridge; --no-bundle-mujoco leaves it where the build found it. The
# default bundles when the build used the pinned wheel (its cache under target/ is a build
# artifact, not an installation) and does not when MuJoCo came from MUJOCO_DIR,
# MUJOCO_INCLUDE_DIR/MUJOCO_LIB_DIR or pkg-config (an installation of its own).
#
# A tree that carries MuJoCo carries its license texts too, or is not made: the pinned wheel's
# LICENSE and LICENSES_THIRD_PARTY.md (build.rs takes them out of its dist-info); with
# MUJOCO_DIR the same two files at the top of that folder; for Debian's libmujoco (a library in
# /usr/lib) the package's /usr/share/doc/libmujocoX.Y.Z/copyright; or the two files in the
# folder --mujoco-licenses DIR names, which overrides the others. Found nowhere: a refusal
# before anything is installed. Without MuJoCo in it the tree carries the bridge's texts only.
#
# Why a script and not cargo-c's `cargo cinstall`: cargo-c makes the SONAME, the symlinks and a
# .pc, but not what the hosts here need most: a CMake package (Unreal, ROS 2 and most C++
# projects consume find_package, not pkg-config), the MuJoCo link line (its folder is only known
# at build time, and a static link needs the exact `-l:libmujoco.so.A.B.C`), bundling MuJoCo
# and its plugins for a self-contained plugin folder, a relocatable tree and an MSVC import
# library. It would also be a second toolchain to build (cargo-c compiles cargo itself) on
# every CI run.
set -Eeuo pipefail
# Never fail without saying why: name the command and line that failed.
trap 'rc=$?; echo "install.sh: failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2; exit $rc' ERR

root="$(cd "$(dirname "$0")/.." && pwd)"
prefix=/usr/local
libdir=lib
bundle=auto
target_dir="$root/target/install"
target=""
mujoco_licenses=""
build_only=no

usage() { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --prefix=*) prefix="${1#*=}"; shift ;;
    --target) target="$2"; shift 2 ;;
    --target=*) target="${1#*=}"; shift ;;
    --libdir) libdir="$2"; shift 2 ;;
    --libdir=*) libdir="${1#*=}"; shift ;;
    --bundle-mujoco) bundle=yes; shift ;;
    --no-bundle-mujoco) bundle=no; shift ;;
    --target-dir) target_dir="$2"; shift 2 ;;
    --target-dir=*) target_dir="${1#*=}"; shift ;;
    --mujoco-licenses) mujoco_licenses="$2"; shift 2 ;;
    --mujoco-licenses=*) mujoco_licenses="${1#*=}"; shift ;;
    --build-only) build_only=yes; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done
case "$prefix" in /*) ;; *) prefix="$PWD/$prefix" ;; esac
case "$libdir" in /*|*..*) echo "install.sh: --libdir is a folder below the prefix (like lib or lib64)" >&2; exit 2 ;; esac
libdir="${libdir%/}"
case "${DESTDIR:-/}" in /*) ;; *) DESTDIR="$PWD/$DESTDIR" ;; esac
# cargo reads .cargo/config.toml (the cross linkers) from the folder it runs in.
cd "$root"

host="$(rustc -vV | sed -n 's/^host: //p')"
target="${target:-$host}"
case "$target" in
  x86_64-unknown-linux-gnu|aarch64-unknown-linux-gnu) os=linux ;;
  x86_64-pc-windows-gnu) os=windows ;;
  *) echo "install.sh: target $target is not supported (x86_64-unknown-linux-gnu, aarch64-unknown-linux-gnu, x86_64-pc-windows-gnu)" >&2; exit 2 ;;
esac

step() { printf '==> %s\n' "$*"; }
need() { command -v "$1" >/dev/null || { echo "install.sh: $1 is required for $target ($2)" >&2; exit 1; }; }
# Everything that can refuse is checked before anything is built or installed: a refusal never
# leaves a half-made tree.
for f in LICENSE THIRD_PARTY_NOTICES.md; do
  [ -s "$root/$f" ] || { echo "install.sh: $root/$f is missing or empty" >&2; exit 1; }
done
if [ -n "$mujoco_licenses" ]; then
  [ -d "$mujoco_licenses" ] || { echo "install.sh: --mujoco-licenses $mujoco_licenses is not a folder" >&2; exit 1; }
  mujoco_licenses="$(cd "$mujoco_licenses" && pwd)"
fi
if [ "$os" = windows ]; then
  need llvm-dlltool "the MSVC import libraries; Debian: llvm"
  need gendef "the .def files from the DLLs' export tables; Debian: mingw-w64-tools"
fi

# Build: release, with the install link flags (build.rs: SONAME, RUNPATH $ORIGIN). Its own target
# folder, so the build tree's library (with its rpath for tests) is never overwritten. The wheel
# cache is shared with the build tree's unless MJB_MUJOCO_CACHE says otherwise.
export MJB_MUJOCO_CACHE="${MJB_MUJOCO_CACHE:-$root/target/mujoco-cache}"
# Reproducible: the installed files are the same bytes whatever folder the checkout, the target
# folder or cargo's home is in (scripts/repro_check.sh checks it). The crate's own sources reach
# rustc as paths relative to the checkout, but its dependencies' panic locations would name
# their sources under CARGO_HOME: that is remapped to a fixed prefix, and so are the checkout
# and the target folder (absolute there only in debug information or in a file a build
# script generates). Cargo's `trim-paths` profile setting would do this, but is not stable
# yet; these flags do not enter cargo's metadata hashes, so symbol names do not change. They
# go through CARGO_ENCODED_RUSTFLAGS (a folder with spaces stays one argument); RUSTFLAGS of
# the caller are kept.
mkdir -p "$target_dir"
target_dir="$(cd "$target_dir" && pwd)"
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
remap=("--remap-path-prefix=$cargo_home=/cargo" "--remap-path-prefix=$root=/mjbridge"
  "--remap-path-prefix=$target_dir=/mjbridge-target")
encoded="${CARGO_ENCODED_RUSTFLAGS:-}"
if [ -z "${CARGO_ENCODED_RUSTFLAGS+set}" ]; then
  for flag in ${RUSTFLAGS:-}; do encoded+="${encoded:+$'\x1f'}$flag"; done
  unset RUSTFLAGS
fi
# The system libraries a static link needs come from rustc's --print native-static-libs (see
# the build below), in the same flags.
for flag in "${remap[@]}" --print native-static-libs; do encoded+="${encoded:+$'\x1f'}$flag"; done
# A PE file's header carries its link time unless the linker is told not to: GNU ld writes 0.
if [ "$os" = windows ]; then encoded+="${encoded:+$'\x1f'}-Clink-arg=-Wl,--no-insert-timestamp"; fi
export CARGO_ENCODED_RUSTFLAGS="$encoded"
messages="$target_dir/install-build-$target.json"
log="$target_dir/install-build-$target.log"
step "building libmjbridge and the mjbridge command for $target (release, install link flags) in $target_dir"
# One cargo build of the library and the command, so a second install finds both up to date: the
# system libraries a static link needs come from rustc's --print native-static-libs, passed in
# the rustc flags above (the same for every run, appended to the caller's) rather than as `cargo
# rustc` arguments, which differ from the command's build of the same library and made every
# install relink it twice. Cargo replays the note from its cache when nothing is rebuilt.
if ! MJB_INSTALL=1 MJB_INSTALL_LIBDIR="$libdir" CARGO_TARGET_DIR="$target_dir" \
    cargo build --release --lib --bin mjbridge \
    --quiet --target "$target" --manifest-path "$root/Cargo.toml" --message-format=json-render-diagnostics \
    >"$messages" 2>"$log"; then
  cat "$log" >&2
  echo "install.sh: cargo build --lib --bin mjbridge --target $target failed (log above, $log)" >&2
  exit 1
fi
built="$target_dir/$target/release"

# Facts of the build, from cargo's own messages: the MuJoCo library linked (build.rs) and the
# system libraries a static link of the Rust runtime needs (rustc's native-static-libs). The
# messages are selected by this package's id as `cargo metadata` spells it, whatever form it
# takes (`path+file:///…/mjbridge#0.2.0` in a folder named like the package,
# `path+file:///…/other#mjbridge@0.2.0` elsewhere).
package_id="$(cargo metadata --format-version 1 --no-deps --manifest-path "$root/Cargo.toml" |
  grep -o '"workspace_members":\["[^"]*"' | sed 's/.*\["//; s/"$//')"
[ -n "$package_id" ] || { echo "install.sh: cargo metadata named no workspace member" >&2; exit 1; }
engine_env() {
  grep -F '"reason":"build-script-executed"' "$messages" | grep -F "\"package_id\":\"$package_id\"" |
    grep -o "\"$1\",\"[^\"]*\"" | head -n1 | sed "s/^\"$1\",\"//; s/\"\$//" || true
}
mujoco_lib="$(engine_env MJB_ENGINE_LIBRARY)"
mujoco_source="$(engine_env MJB_ENGINE_SOURCE)"
native_libs="$(sed -n 's/^note: native-static-libs: //p' "$log" | head -n1)"
[ -f "$mujoco_lib" ] || { echo "install.sh: no MuJoCo library in the build's messages for package $package_id ($messages)" >&2; exit 1; }
[ -n "$native_libs" ] || { echo "install.sh: rustc printed no native-static-libs ($log)" >&2; exit 1; }
mujoco_file="$(basename "$mujoco_lib")"
mujoco_dir="$(dirname "$mujoco_lib")"
system_libs=()
for flag in $native_libs; do
  case "$flag" in
    -l:libmujoco*|-l:mujoco.dll|-l:mujoco.lib|-lmujoco) ;;  # MuJoCo is named separately, with its folder
    -l*) case " ${system_libs[*]-} " in *" ${flag#-l} "*) ;; *) system_libs+=("${flag#-l}") ;; esac ;;
  esac
done

version="$(sed -n 's/^#define MJB_VERSION "\(.*\)"$/\1/p' "$root/include/mjbridge.h")"
major="${version%%.*}"
[ -n "$version" ] || { echo "install.sh: no MJB_VERSION in include/mjbridge.h" >&2; exit 1; }

if [ "$bundle" = auto ]; then
  case "$mujoco_source" in "pinned wheel"*) bundle=yes ;; *) bundle=no ;; esac
fi
# MuJoCo's license texts, for a tree that carries MuJoCo (see the top of this file).
mujoco_license_files=()
if [ "$bundle" = yes ]; then
  candidates=()
  if [ -n "$mujoco_licenses" ]; then
    candidates=("$mujoco_licenses")
  else
    wheel_licenses="$(engine_env MJB_ENGINE_LICENSES)"
    [ -z "$wheel_licenses" ] || candidates+=("$wheel_licenses")
    # MUJOCO_DIR's folder (the engine source the library reports names no folder).
    mujoco_release_dir="$(engine_env MJB_ENGINE_DIR)"
    [ -z "$mujoco_release_dir" ] || candidates+=("$mujoco_release_dir")
    case "$mujoco_dir:$mujoco_file" in
      /usr/lib/*:libmujoco.so.*) candidates+=("/usr/share/doc/libmujoco${mujoco_file#libmujoco.so.}") ;;
    esac
  fi
  for d in "${candidates[@]}"; do
    if [ -s "$d/LICENSE" ] && [ -s "$d/LICENSES_THIRD_PARTY.md" ]; then
      mujoco_license_files=("$d/LICENSE" "$d/LICENSES_THIRD_PARTY.md")
      break
    elif [ -z "$mujoco_licenses" ] && [ "$d" = "/usr/share/doc/libmujoco${mujoco_file#libmujoco.so.}" ] && [ -s "$d/copyright" ]; then
      # Debian's copyright file: the whole package's licensing, its third parties included.
      mujoco_license_files=("$d/copyright")
      break
    fi
  done
  if [ "${#mujoco_license_files[@]}" -eq 0 ]; then
    echo "install.sh: MuJoCo ($mujoco_file, from ${mujoco_source%% (sha256*}) would be bundled without its license texts:" \
      "no LICENSE and LICENSES_THIRD_PARTY.md in ${candidates[*]:-(no folder known for this source)}." \
      "Pass --mujoco-licenses DIR (a folder holding both, from the MuJoCo release you built against) or --no-bundle-mujoco" >&2
    exit 1
  fi
fi
plugin_src=""
for d in "$mujoco_dir/plugin" "$mujoco_dir/mujoco_plugin" "$mujoco_dir/../bin/mujoco_plugin"; do
  if [ -d "$d" ]; then plugin_src="$(cd "$d" && pwd)"; break; fi
done

# What the loader will see, checked on the build before anything is installed.
if [ "$os" = linux ] && command -v readelf >/dev/null; then
  dyn="$(readelf -d "$built/libmjbridge.so")"
  grep -q "Library soname: \[libmjbridge.so.$major\]" <<<"$dyn" || { echo "install.sh: SONAME is not libmjbridge.so.$major" >&2; exit 1; }
  runpath="$(sed -n 's/.*Library r\(un\)\{0,1\}path: \[\(.*\)\]/\2/p' <<<"$dyn")"
  [ "$runpath" = '$ORIGIN' ] || { echo "install.sh: RUNPATH is '$runpath', not \$ORIGIN" >&2; exit 1; }
  case "$(readelf -h "$built/libmjbridge.so" | sed -n 's/.*Machine: *//p')" in
    *X86-64*) [ "$target" = x86_64-unknown-linux-gnu ] ;;
    *AArch64*) [ "$target" = aarch64-unknown-linux-gnu ] ;;
    *) false ;;
  esac || { echo "install.sh: libmjbridge.so is not built for $target" >&2; exit 1; }
fi
if [ "$os" = windows ]; then
  # The build linked mujoco.dll itself (the wheel's layout) or the import library of a MuJoCo
  # release (lib/mujoco.lib, the DLL in bin/): find the DLL and an MSVC import library apart.
  mujoco_dll=""
  mujoco_implib=""
  case "$mujoco_file" in [Mm][Uu][Jj][Oo][Cc][Oo].[Dd][Ll][Ll]) mujoco_dll="$mujoco_lib" ;; esac
  for d in "$mujoco_dir" "$mujoco_dir/../bin"; do
    [ -n "$mujoco_dll" ] || [ ! -f "$d/mujoco.dll" ] || mujoco_dll="$(cd "$d" && pwd)/mujoco.dll"
  done
  for d in "$mujoco_dir" "$mujoco_dir/../lib"; do
    [ -n "$mujoco_implib" ] || [ ! -f "$d/mujoco.lib" ] || mujoco_implib="$(cd "$d" && pwd)/mujoco.lib"
  done
  if [ -z "$mujoco_dll" ]; then
    echo "install.sh: no mujoco.dll beside $mujoco_lib or in ../bin: a Windows tree needs the DLL the build linked" >&2
    exit 1
  fi
fi
if [ "$build_only" = yes ]; then
  step "built mjbridge $version for $target in $built (MuJoCo $mujoco_file, bundled: $bundle); nothing installed (--build-only)"
  exit 0
fi
dest="${DESTDIR:-}$prefix"
lib="$dest/$libdir"
step "installing mjbridge $version for $target into ${DESTDIR:+$DESTDIR}$prefix (MuJoCo $mujoco_file, bundled: $bundle)"
install -d "$dest/bin" "$dest/include" "$lib/pkgconfig" "$lib/cmake/mjbridge" "$dest/share/mjbridge/csharp"
install -m 644 "$root/include/mjbridge.h" "$root/bindings/cpp/mjbridge.hpp" "$dest/include/"
install -m 644 "$built/libmjbridge.a" "$lib/libmjbridge.a"
install -m 644 "$root/bindings/csharp/MjBridge.cs" "$dest/share/mjbridge/csharp/"
licenses="$dest/share/licenses/mjbridge"
install -d "$licenses"
install -m 644 "$root/LICENSE" "$root/THIRD_PARTY_NOTICES.md" "$licenses/"
if [ "${#mujoco_license_files[@]}" -gt 0 ]; then
  install -d "$licenses/mujoco"
  install -m 644 "${mujoco_license_files[@]}" "$licenses/mujoco/"
fi

# Path expressions for the package files: relative to the file (bundled) or absolute (MuJoCo
# installed elsewhere, a dependency like any other).
up() { # "../" once per component of $1
  local p="$1" out=""
  while [ -n "$p" ] && [ "$p" != . ]; do out="../$out"; p="$(dirname "$p")"; done
  echo "${out%/}"
}
pc_up="$(up "$libdir/pkgconfig")"
cmake_up="$(up "$libdir/cmake/mjbridge")"
plugin_pc=""
plugin_cmake=""
mujoco_implib_cmake=""

if [ "$os" = windows ]; then
  install -m 755 "$built/mjbridge.dll" "$built/mjbridge.exe" "$dest/bin/"
  install -m 644 "$built/libmjbridge.dll.a" "$lib/libmjbridge.dll.a"
  # The .def lists what the DLL exports (its own export table, read by mingw's gendef); the
  # MSVC-format import library is made from it by llvm-dlltool.
  (cd "$dest/bin" && gendef - mjbridge.dll 2>/dev/null) >"$lib/mjbridge.def"
  grep -q '^mjb_endpoint_open' "$lib/mjbridge.def" || { echo "install.sh: gendef listed no mjb_ export of mjbridge.dll" >&2; exit 1; }
  llvm-dlltool -m i386:x86-64 -D mjbridge.dll -d "$lib/mjbridge.def" -l "$lib/mjbridge.lib"
  if [ "$bundle" = yes ]; then
    install -m 755 "$mujoco_dll" "$dest/bin/mujoco.dll"
    (cd "$dest/bin" && gendef - mujoco.dll 2>/dev/null) >"$lib/mujoco.def"
    llvm-dlltool -m i386:x86-64 -D mujoco.dll -d "$lib/mujoco.def" -l "$lib/mujoco.lib"
    if [ -n "$plugin_src" ]; then
      install -d "$dest/bin/mujoco_plugin"
      for p in "$plugin_src"/*.dll; do
        [ -e "$p" ] && install -m 755 "$p" "$dest/bin/mujoco_plugin/"
      done
      plugin_pc='${prefix}/bin/mujoco_plugin'
      plugin_cmake='${_mjbridge_prefix}/bin/mujoco_plugin'
    fi
    mujoco_pc='${libdir}'
    mujoco_cmake='${_mjbridge_prefix}/bin/mujoco.dll'
    mujoco_implib_cmake='${_mjbridge_libdir}/mujoco.lib'
  else
    plugin_pc="$plugin_src"
    plugin_cmake="$plugin_src"
    mujoco_pc="$mujoco_dir"
    mujoco_cmake="$mujoco_dll"
    if [ -z "$mujoco_implib" ]; then
      # No import library came with it (the wheel has none): made here, from the DLL.
      (cd "$(dirname "$mujoco_dll")" && gendef - mujoco.dll 2>/dev/null) >"$lib/mujoco.def"
      llvm-dlltool -m i386:x86-64 -D mujoco.dll -d "$lib/mujoco.def" -l "$lib/mujoco.lib"
      mujoco_implib_cmake='${_mjbridge_libdir}/mujoco.lib'
    else
      mujoco_implib_cmake="$mujoco_implib"
    fi
  fi
  pc_mujoco_link='-L${mujoco_libdir} -lmujoco'
else
  install -m 755 "$built/mjbridge" "$dest/bin/mjbridge"
  install -m 755 "$built/libmjbridge.so" "$lib/libmjbridge.so.$version"
  ln -sfn "libmjbridge.so.$version" "$lib/libmjbridge.so.$major"
  ln -sfn "libmjbridge.so.$major" "$lib/libmjbridge.so"
  if [ "$bundle" = yes ]; then
    install -m 755 "$mujoco_lib" "$lib/$mujoco_file"
    if [ -n "$plugin_src" ]; then
      install -d "$lib/mujoco_plugin"
      for p in "$plugin_src"/*.so; do
        [ -e "$p" ] || continue
        install -m 755 "$p" "$lib/mujoco_plugin/"
        # The wheel's plugins carry the RUNPATH of the machine they were built on; bundled, they
        # find libmujoco one folder up.
        if command -v patchelf >/dev/null; then
          patchelf --set-rpath '$ORIGIN/..' "$lib/mujoco_plugin/$(basename "$p")"
        else
          echo "install.sh: patchelf not found: $(basename "$p") keeps its foreign RUNPATH (harmless once libmujoco is loaded)" >&2
        fi
      done
      plugin_pc='${libdir}/mujoco_plugin'
      plugin_cmake='${_mjbridge_libdir}/mujoco_plugin'
    fi
    mujoco_pc='${libdir}'
    mujoco_cmake="\${_mjbridge_libdir}/$mujoco_file"
  else
    case "$mujoco_dir" in
      "$root"/*) echo "install.sh: warning: MuJoCo stays in the build tree ($mujoco_dir); pass --bundle-mujoco for an install that outlives it" >&2 ;;
    esac
    plugin_pc="$plugin_src"
    plugin_cmake="$plugin_src"
    mujoco_pc="$mujoco_dir"
    mujoco_cmake="$mujoco_lib"
  fi
  pc_mujoco_link='-L${mujoco_libdir} -l:${mujoco_library}'
fi

fill() { # template -> file, replacing @NAME@ placeholders
  sed -e "s|@VERSION@|$version|g" -e "s|@VERSION_MAJOR@|$major|g" -e "s|@SOVERSION@|$major|g" \
    -e "s|@LIBDIR@|$libdir|g" -e "s|@PC_UP@|$pc_up|g" -e "s|@CMAKE_UP@|$cmake_up|g" \
    -e "s|@TARGET@|$target|g" -e "s|@MUJOCO_LINK@|$pc_mujoco_link|g" \
    -e "s|@MUJOCO_FILE@|$mujoco_file|g" -e "s|@MUJOCO_BUNDLED@|$([ "$bundle" = yes ] && echo TRUE || echo FALSE)|g" \
    -e "s|@MUJOCO_LIBDIR@|$mujoco_pc|g" -e "s|@MUJOCO_LIBRARY@|$mujoco_cmake|g" \
    -e "s|@MUJOCO_IMPLIB@|$mujoco_implib_cmake|g" \
    -e "s|@MUJOCO_PLUGIN_DIR@|$4|g" -e "s|@SYSTEM_LIBS@|$3|g" "$1" >"$2"
  if grep -q '@[A-Z_]*@' "$2"; then
    echo "install.sh: unfilled placeholder in $2" >&2
    exit 1
  fi
}
pc_libs="$(printf -- '-l%s ' "${system_libs[@]}")"
cmake_libs="$(IFS=';'; echo "${system_libs[*]}")"
fill "$root/packaging/mjbridge.pc.in" "$lib/pkgconfig/mjbridge.pc" "${pc_libs% }" "$plugin_pc"
config_in="$root/packaging/mjbridgeConfig.cmake.in"
[ "$os" = windows ] && config_in="$root/packaging/mjbridgeConfig-windows.cmake.in"
fill "$config_in" "$lib/cmake/mjbridge/mjbridgeConfig.cmake" "$cmake_libs" "$plugin_cmake"
fill "$root/packaging/mjbridgeConfigVersion.cmake.in" "$lib/cmake/mjbridge/mjbridgeConfigVersion.cmake" "" ""
{
  echo "target=$target"
  echo "version=$version"
  echo "mujoco=$mujoco_file ($(sed 's/ (sha256.*//' <<<"$mujoco_source"))"
  echo "mujoco_bundled=$bundle"
} >"$dest/share/mjbridge/TARGET"

step "installed: $(cd "$dest" && find . -mindepth 1 \( -type f -o -type l \) | sort | tr '\n' ' ')"
