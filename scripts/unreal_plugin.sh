#!/usr/bin/env bash
# The Unreal Engine plugin: a folder to copy into a project's Plugins/.
#
#   bash scripts/unreal_plugin.sh OUT_DIR [--linux-tree DIR] [--windows-tree DIR] [--target-dir DIR]
#
#   OUT_DIR/MjBridge/MjBridge.uplugin                 FileVersion 3, the Runtime module MjBridge
#   OUT_DIR/MjBridge/README.md, LICENSE, Licenses/...
#   OUT_DIR/MjBridge/Source/MjBridge/                 the runtime module: StartupModule loads the
#                                                     libraries from the plugin's folder
#   OUT_DIR/MjBridge/Source/ThirdParty/MjBridgeLibrary/MjBridgeLibrary.Build.cs   external module
#   OUT_DIR/MjBridge/Source/ThirdParty/MjBridgeLibrary/include/mjbridge.h, mjbridge.hpp
#   OUT_DIR/MjBridge/Source/ThirdParty/MjBridgeLibrary/lib/Win64/mjbridge.lib      MSVC import library
#   OUT_DIR/MjBridge/Binaries/ThirdParty/MjBridgeLibrary/Win64/mjbridge.dll, mujoco.dll, mujoco_plugin/
#   OUT_DIR/MjBridge/Binaries/ThirdParty/MjBridgeLibrary/Linux/x86_64-unknown-linux-gnu/
#                                                     libmjbridge.so, libmujoco.so.A.B.C, mujoco_plugin/
#
# Made from the Linux x86_64 and Windows x86_64 install trees (scripts/install.sh
# --bundle-mujoco); pass trees you already have, or they are built (DIR of --target-dir,
# default target/install). An existing OUT_DIR/MjBridge is replaced. The Linux bridge's SONAME
# becomes libmjbridge.so (patchelf), the one file Build.cs links and stages. The
# RuntimeDependencies list is written from the files shipped, so it names each of them.
set -Eeuo pipefail
trap 'rc=$?; echo "unreal_plugin.sh: failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2; exit $rc' ERR

root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=engine_common.sh
. "$root/scripts/engine_common.sh"

out=""
linux_tree=""
windows_tree=""
target_dir="$root/target/install"
while [ $# -gt 0 ]; do
  case "$1" in
    --linux-tree) linux_tree="$2"; shift 2 ;;
    --windows-tree) windows_tree="$2"; shift 2 ;;
    --target-dir) target_dir="$2"; shift 2 ;;
    -h|--help) sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown argument: $1" ;;
    *) [ -z "$out" ] || die "one OUT_DIR only"; out="$1"; shift ;;
  esac
done
[ -n "$out" ] || { sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
command -v patchelf >/dev/null || die "patchelf is required (Debian: patchelf)"
command -v readelf >/dev/null || die "readelf is required (Debian: binutils)"

version="$(sed -n 's/^#define MJB_VERSION "\(.*\)"$/\1/p' "$root/include/mjbridge.h")"
[ -n "$version" ] || die "no MJB_VERSION in include/mjbridge.h"
IFS=. read -r v_major v_minor v_patch <<<"${version%%[-+]*}"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
linux_tree="$(engine_tree "$linux_tree" "$LINUX" "$stage" "$target_dir")"
windows_tree="$(engine_tree "$windows_tree" "$WINDOWS" "$stage" "$target_dir")"
mujoco_file="$(tree_mujoco_file "$linux_tree")"
mujoco_version="${mujoco_file#libmujoco.so.}"
[ -f "$linux_tree/lib/$mujoco_file" ] || die "no $mujoco_file in $linux_tree/lib"

plugin="$stage/MjBridge"
third="$plugin/Source/ThirdParty/MjBridgeLibrary"
bins="$plugin/Binaries/ThirdParty/MjBridgeLibrary"
win64="$bins/Win64"
linux="$bins/Linux/x86_64-unknown-linux-gnu"
install -d "$plugin/Source/MjBridge/Public" "$plugin/Source/MjBridge/Private" "$third/include" \
  "$third/lib/Win64" "$win64" "$linux"
template="$root/packaging/unreal/MjBridge"

# Headers and the MSVC import library (made by install.sh from the DLL's own export table).
install -m 644 "$windows_tree/include/mjbridge.h" "$windows_tree/include/mjbridge.hpp" "$third/include/"
install -m 644 "$windows_tree/lib/mjbridge.lib" "$third/lib/Win64/mjbridge.lib"

# Win64 binaries as the tree has them.
install -m 755 "$windows_tree/bin/mjbridge.dll" "$windows_tree/bin/mujoco.dll" "$win64/"
if [ -d "$windows_tree/bin/mujoco_plugin" ]; then
  install -d "$win64/mujoco_plugin"
  for p in "$windows_tree/bin/mujoco_plugin"/*.dll; do
    if [ -e "$p" ]; then install -m 755 "$p" "$win64/mujoco_plugin/"; fi
  done
fi

# Linux binaries: the bridge under its SONAME, MuJoCo under its own, the plugins one folder down
# (RUNPATH $ORIGIN/.., set by install.sh).
install -m 755 "$linux_tree/lib/libmjbridge.so.$version" "$linux/libmjbridge.so"
patchelf --set-soname libmjbridge.so "$linux/libmjbridge.so"
install -m 755 "$linux_tree/lib/$mujoco_file" "$linux/$mujoco_file"
if [ -d "$linux_tree/lib/mujoco_plugin" ]; then
  install -d "$linux/mujoco_plugin"
  for p in "$linux_tree/lib/mujoco_plugin"/*.so; do
    if [ -e "$p" ]; then install -m 755 "$p" "$linux/mujoco_plugin/"; fi
  done
fi
dyn="$(readelf -d "$linux/libmjbridge.so")"
grep -q 'Library soname: \[libmjbridge.so\]' <<<"$dyn" || die "libmjbridge.so kept another SONAME"
grep -q "Shared library: \[$mujoco_file\]" <<<"$dyn" || die "libmjbridge.so does not need $mujoco_file"
grep -q 'Library runpath: \[\$ORIGIN\]' <<<"$dyn" || die "libmjbridge.so lost its RUNPATH \$ORIGIN"
for f in "$win64"/*.dll "$win64"/mujoco_plugin/*.dll; do
  [ -e "$f" ] || continue
  [ "$(binary_kind "$f")" = "pe x86_64" ] || die "$f is $(binary_kind "$f"), not PE x86-64"
done
for f in "$linux"/*.so* "$linux"/mujoco_plugin/*.so; do
  [ -e "$f" ] || continue
  [ "$(binary_kind "$f")" = "elf x86_64" ] || die "$f is $(binary_kind "$f"), not ELF x86-64"
done

# The module sources, the descriptor and the external module's rules.
fill() { # template -> file
  sed -e "s|@VERSION@|$version|g" -e "s|@MUJOCO_VERSION@|$mujoco_version|g" \
    -e "s|@VERSION_NUMBER@|$((v_major * 10000 + v_minor * 100 + v_patch))|g" \
    -e "s|@IS_BETA@|$([ "$v_major" = 0 ] && echo true || echo false)|g" \
    -e "s|@LINUX_MUJOCO@|$mujoco_file|g" "$1" >"$2"
}
fill "$template/MjBridge.uplugin.in" "$plugin/MjBridge.uplugin"
fill "$template/README.md.in" "$plugin/README.md"
install -m 644 "$template/Source/MjBridge/MjBridge.Build.cs" "$plugin/Source/MjBridge/"
install -m 644 "$template/Source/MjBridge/Public/MjBridgeModule.h" "$plugin/Source/MjBridge/Public/"
fill "$template/Source/MjBridge/Private/MjBridgeModule.cpp" "$plugin/Source/MjBridge/Private/MjBridgeModule.cpp"

# One RuntimeDependencies line per shipped library: staged into a packaged game at the same place
# below the plugin, where StartupModule looks.
dependencies() { # folder below the plugin
  (cd "$plugin" && find "$1" -type f | LC_ALL=C sort) | while IFS= read -r f; do
    printf '\t\t\tRuntimeDependencies.Add("$(PluginDir)/%s");\n' "$f"
  done
}
win_deps="$stage/win.deps"
linux_deps="$stage/linux.deps"
dependencies Binaries/ThirdParty/MjBridgeLibrary/Win64 >"$win_deps"
dependencies Binaries/ThirdParty/MjBridgeLibrary/Linux/x86_64-unknown-linux-gnu >"$linux_deps"
fill "$template/Source/ThirdParty/MjBridgeLibrary/MjBridgeLibrary.Build.cs.in" "$stage/Build.cs"
sed -e "/@WIN64_DEPENDENCIES@/{r $win_deps" -e 'd}' -e "/@LINUX_DEPENDENCIES@/{r $linux_deps" -e 'd}' \
  "$stage/Build.cs" >"$third/MjBridgeLibrary.Build.cs"
for f in "$plugin/MjBridge.uplugin" "$plugin/README.md" "$plugin/Source/MjBridge/Private/MjBridgeModule.cpp" \
  "$third/MjBridgeLibrary.Build.cs"; do
  if grep -q '@[A-Z_0-9]*@' "$f"; then die "unfilled placeholder in $f"; fi
done

# Licenses: the tree's own (the bridge's, the crates', MuJoCo's), the bridge's also as LICENSE.
own="$(copy_package_licenses "$linux_tree" "$windows_tree" "$plugin/Licenses" "$stage/windows-licenses")"
[ -z "$own" ] || install -m 644 "$own" "$plugin/LICENSE"

normalise_modes "$plugin"
mkdir -p "$out"
rm -rf "$out/MjBridge" "$out/MjBridge.part"
mv "$plugin" "$out/MjBridge.part"
mv "$out/MjBridge.part" "$out/MjBridge"
echo "==> $out/MjBridge ($(find "$out/MjBridge" -type f | wc -l) files, MuJoCo $mujoco_version)"
