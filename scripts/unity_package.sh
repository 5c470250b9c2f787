#!/usr/bin/env bash
# The Unity package (UPM): one tarball Unity's "Add package from tarball" installs.
#
#   bash scripts/unity_package.sh OUT_DIR [--linux-tree DIR] [--windows-tree DIR] [--target-dir DIR]
#
#   OUT_DIR/com.mjbridge.mjbridge-<version>.tgz    (npm pack's layout: everything under package/)
#
# Made from the Linux x86_64 and Windows x86_64 install trees (scripts/install.sh
# --bundle-mujoco); pass trees you already have, or they are built (DIR of --target-dir,
# default target/install). The package:
#
#   package/package.json, README.md, LICENSE.md, Licenses/...
#   package/Runtime/MjBridge.asmdef, MjBridge.cs
#   package/Runtime/Plugins/Linux/x86_64/libmjbridge.so, libmujoco.so, mujoco_plugin/*.so
#   package/Runtime/Plugins/Windows/x86_64/mjbridge.dll, mujoco.dll, mujoco_plugin/*.dll
#   a .meta beside every file and folder
#
# Unity keeps a native file for a player only when its name ends in the platform's plugin
# extension, so MuJoCo's libmujoco.so.A.B.C becomes libmujoco.so: the bridge's DT_NEEDED (and
# the engine plugins') is rewritten with patchelf to that name; the bridge finds it beside itself
# (RUNPATH $ORIGIN). Each binary's PluginImporter settings are chosen from the binary's own
# header (ELF or PE, x86-64) and enable exactly its platform: Any disabled. GUIDs are MD5s of
# the package name and the file's path, so a file keeps its GUID from version to version and two
# runs make the same tarball (sorted members, owner 0, fixed times, gzip -n).
set -Eeuo pipefail
trap 'rc=$?; echo "unity_package.sh: failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2; exit $rc' ERR

root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=engine_common.sh
. "$root/scripts/engine_common.sh"

name=com.mjbridge.mjbridge
out=""
linux_tree=""
windows_tree=""
target_dir="$root/target/install"
while [ $# -gt 0 ]; do
  case "$1" in
    --linux-tree) linux_tree="$2"; shift 2 ;;
    --windows-tree) windows_tree="$2"; shift 2 ;;
    --target-dir) target_dir="$2"; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown argument: $1" ;;
    *) [ -z "$out" ] || die "one OUT_DIR only"; out="$1"; shift ;;
  esac
done
[ -n "$out" ] || { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
command -v patchelf >/dev/null || die "patchelf is required (Debian: patchelf)"
command -v readelf >/dev/null || die "readelf is required (Debian: binutils)"

version="$(sed -n 's/^#define MJB_VERSION "\(.*\)"$/\1/p' "$root/include/mjbridge.h")"
[ -n "$version" ] || die "no MJB_VERSION in include/mjbridge.h"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
linux_tree="$(engine_tree "$linux_tree" "$LINUX" "$stage" "$target_dir")"
windows_tree="$(engine_tree "$windows_tree" "$WINDOWS" "$stage" "$target_dir")"
mujoco_file="$(tree_mujoco_file "$linux_tree")"
mujoco_version="${mujoco_file#libmujoco.so.}"
[ -f "$linux_tree/lib/$mujoco_file" ] || die "no $mujoco_file in $linux_tree/lib"

pkg="$stage/package"
linux="$pkg/Runtime/Plugins/Linux/x86_64"
windows="$pkg/Runtime/Plugins/Windows/x86_64"
install -d "$linux" "$windows"

fill() { # template -> file
  sed -e "s|@NAME@|$name|g" -e "s|@VERSION@|$version|g" -e "s|@MUJOCO_VERSION@|$mujoco_version|g" "$1" >"$2"
  if grep -q '@[A-Z_]*@' "$2"; then die "unfilled placeholder in $2"; fi
}
fill "$root/packaging/unity/package.json.in" "$pkg/package.json"
fill "$root/packaging/unity/README.md" "$pkg/README.md"
install -m 644 "$root/packaging/unity/MjBridge.asmdef" "$pkg/Runtime/MjBridge.asmdef"
install -m 644 "$linux_tree/share/mjbridge/csharp/MjBridge.cs" "$pkg/Runtime/MjBridge.cs"
cmp -s "$linux_tree/share/mjbridge/csharp/MjBridge.cs" "$windows_tree/share/mjbridge/csharp/MjBridge.cs" ||
  die "the two trees carry different MjBridge.cs files"
# The C# binding marks no code unsafe; the assembly definition allows none.
if grep -qw unsafe "$pkg/Runtime/MjBridge.cs"; then die "MjBridge.cs uses unsafe code: set allowUnsafeCode in packaging/unity/MjBridge.asmdef"; fi

# Licenses: the tree's own (the bridge's, the crates', MuJoCo's), the bridge's also as LICENSE.md.
own="$(copy_package_licenses "$linux_tree" "$windows_tree" "$pkg/Licenses" "$stage/windows-licenses")"
[ -z "$own" ] || install -m 644 "$own" "$pkg/LICENSE.md"

# Linux: the bridge needs libmujoco.so (its plugin-extension name), found through $ORIGIN.
install -m 755 "$linux_tree/lib/libmjbridge.so.$version" "$linux/libmjbridge.so"
install -m 755 "$linux_tree/lib/$mujoco_file" "$linux/libmujoco.so"
patchelf --replace-needed "$mujoco_file" libmujoco.so "$linux/libmjbridge.so"
if [ -d "$linux_tree/lib/mujoco_plugin" ]; then
  install -d "$linux/mujoco_plugin"
  for p in "$linux_tree/lib/mujoco_plugin"/*.so; do
    [ -e "$p" ] || continue
    q="$linux/mujoco_plugin/$(basename "$p")"
    install -m 755 "$p" "$q"
    # The engine plugins find libmujoco.so one folder up, or beside them when a player build
    # puts every native file in one folder.
    patchelf --replace-needed "$mujoco_file" libmujoco.so "$q"
    patchelf --set-rpath '$ORIGIN/..:$ORIGIN' "$q"
  done
fi
for f in "$linux/libmjbridge.so" "$linux"/mujoco_plugin/*.so; do
  [ -e "$f" ] || continue
  dyn="$(readelf -d "$f")"
  ! grep -q "Shared library: \[$mujoco_file\]" <<<"$dyn" || die "$(basename "$f") still needs $mujoco_file"
done
grep -q 'Shared library: \[libmujoco.so\]' <<<"$(readelf -d "$linux/libmjbridge.so")" || die "libmjbridge.so does not need libmujoco.so"
grep -q 'Library runpath: \[\$ORIGIN\]' <<<"$(readelf -d "$linux/libmjbridge.so")" || die "libmjbridge.so lost its RUNPATH \$ORIGIN"

# Windows: the DLLs as the tree has them (mjbridge.dll imports mujoco.dll by that name).
install -m 755 "$windows_tree/bin/mjbridge.dll" "$windows_tree/bin/mujoco.dll" "$windows/"
if [ -d "$windows_tree/bin/mujoco_plugin" ]; then
  install -d "$windows/mujoco_plugin"
  for p in "$windows_tree/bin/mujoco_plugin"/*.dll; do
    if [ -e "$p" ]; then install -m 755 "$p" "$windows/mujoco_plugin/"; fi
  done
fi

# ---- .meta files ----------------------------------------------------------------------------

guid() { printf '%s' "$name/$1" | md5sum | cut -c1-32; }

importer_tail() {
  printf '  userData: \n  assetBundleName: \n  assetBundleVariant: \n'
}

simple_meta() { # importer, guid
  printf 'fileFormatVersion: 2\nguid: %s\n%s:\n  externalObjects: {}\n' "$2" "$1"
  importer_tail
}

folder_meta() {
  printf 'fileFormatVersion: 2\nguid: %s\nfolderAsset: yes\nDefaultImporter:\n  externalObjects: {}\n' "$1"
  importer_tail
}

script_meta() {
  printf 'fileFormatVersion: 2\nguid: %s\nMonoImporter:\n  externalObjects: {}\n  serializedVersion: 2\n' "$1"
  printf '  defaultReferences: []\n  executionOrder: 0\n  icon: {instanceID: 0}\n'
  importer_tail
}

# A native plugin enabled for one OS, x86_64, in the Editor and the Standalone player; Any and
# every other platform disabled.
plugin_meta() { # guid, os (Linux|Windows)
  local editor_os="$2" standalone linux_cpu=None win64_cpu=None
  case "$2" in
    Linux) standalone=Linux64; linux_cpu=x86_64 ;;
    Windows) standalone=Win64; win64_cpu=x86_64 ;;
  esac
  local ex_linux=1 ex_win64=1
  [ "$2" = Linux ] && ex_linux=0
  [ "$2" = Windows ] && ex_win64=0
  cat <<EOF
fileFormatVersion: 2
guid: $1
PluginImporter:
  externalObjects: {}
  serializedVersion: 2
  iconMap: {}
  executionOrder: {}
  defineConstraints: []
  isPreloaded: 0
  isOverridable: 0
  isExplicitlyReferenced: 0
  validateReferences: 1
  platformData:
  - first:
      : Any
    second:
      enabled: 0
      settings:
        Exclude Editor: 0
        Exclude Linux64: $ex_linux
        Exclude OSXUniversal: 1
        Exclude Win: 1
        Exclude Win64: $ex_win64
  - first:
      Any: 
    second:
      enabled: 0
      settings: {}
  - first:
      Editor: Editor
    second:
      enabled: 1
      settings:
        CPU: x86_64
        DefaultValueInitialized: true
        OS: $editor_os
  - first:
      Standalone: Linux64
    second:
      enabled: $([ "$standalone" = Linux64 ] && echo 1 || echo 0)
      settings:
        CPU: $linux_cpu
  - first:
      Standalone: OSXUniversal
    second:
      enabled: 0
      settings:
        CPU: None
  - first:
      Standalone: Win
    second:
      enabled: 0
      settings:
        CPU: None
  - first:
      Standalone: Win64
    second:
      enabled: $([ "$standalone" = Win64 ] && echo 1 || echo 0)
      settings:
        CPU: $win64_cpu
EOF
  importer_tail
}

# Every folder and file below package/ (not package/ itself) gets its .meta; the importer is the
# one Unity picks for the file's kind, a binary's platform is read from its header.
while IFS= read -r rel; do
  path="$pkg/$rel"
  g="$(guid "$rel")"
  if [ -d "$path" ]; then
    folder_meta "$g" >"$path.meta"
    continue
  fi
  case "$rel" in
    *.so|*.dll)
      case "$(binary_kind "$path")" in
        "elf x86_64") plugin_meta "$g" Linux ;;
        "pe x86_64") plugin_meta "$g" Windows ;;
        *) die "$rel is built for $(binary_kind "$path"), not a platform this package serves" ;;
      esac ;;
    *.cs) script_meta "$g" ;;
    *.asmdef) simple_meta AssemblyDefinitionImporter "$g" ;;
    package.json) simple_meta PackageManifestImporter "$g" ;;
    *.md|*.txt|*.json|*.xml) simple_meta TextScriptImporter "$g" ;;
    *) simple_meta DefaultImporter "$g" ;;
  esac >"$path.meta"
done < <(cd "$pkg" && find . -mindepth 1 -not -name '*.meta' | sed 's|^\./||' | LC_ALL=C sort)

# Unique GUIDs (an MD5 collision of two paths is not expected; a duplicate path is a bug).
dups="$(cd "$pkg" && find . -name '*.meta' -exec sed -n 's/^guid: //p' {} + | sort | uniq -d)"
[ -z "$dups" ] || die "duplicate GUIDs: $dups"

# ---- the tarball ----------------------------------------------------------------------------

normalise_modes "$pkg"
archive="$name-$version.tgz"
mkdir -p "$out"
part="$out/$archive.part"
trap 'rm -rf "$stage"; rm -f "$part"' EXIT
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$(archive_mtime)" \
  --format=ustar -cf - package | gzip -9n >"$part"
mv "$part" "$out/$archive"
echo "==> $out/$archive ($(cd "$pkg" && find . -type f -not -name '*.meta' | wc -l) files, MuJoCo $mujoco_version)"
