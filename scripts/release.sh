#!/usr/bin/env bash
# One release archive per target, with its SHA-256:
#
#   bash scripts/release.sh [--target TRIPLE] [--out DIR] [--target-dir DIR] [--wheel] [--engines]
#
#   DIR/mjbridge-<version>-<target>.tar.gz   (Linux targets)  or  .zip  (Windows)
#   DIR/mjbridge-<version>-<target>.<ext>.sha256             (`sha256sum -c` checks it)
#
# The archive holds one folder, mjbridge-<version>-<target>/, a self-contained install tree
# (scripts/install.sh --bundle-mujoco: the bridge, its headers and packages, the mjbridge
# command, the exact MuJoCo it was built against, and the license texts of all of them in
# share/licenses/mjbridge/). DIR defaults to target/release-archives.
#
# With --wheel, also the target's Python wheel, with its SHA-256, made from the same tree
# (scripts/python_wheel.sh --from-prefix: manylinux_2_NN_<arch> on Linux, win_amd64 on Windows):
#
#   DIR/mjbridge-<version>-py3-none-<platform>.whl, .whl.sha256
#
# With --engines, also the engine packages, each with its SHA-256, made from the
# x86_64-unknown-linux-gnu and x86_64-pc-windows-gnu trees (the archive's own when --target is
# one of them, the other installed beside it):
#
#   DIR/com.mjbridge.mjbridge-<version>.tgz        the Unity package (scripts/unity_package.sh)
#   DIR/mjbridge-<version>-unreal-plugin.zip       the Unreal plugin, MjBridge/ (scripts/unreal_plugin.sh)
set -Eeuo pipefail
trap 'rc=$?; echo "release.sh: failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2; exit $rc' ERR

root="$(cd "$(dirname "$0")/.." && pwd)"
target="$(rustc -vV | sed -n 's/^host: //p')"
out="$root/target/release-archives"
target_dir="$root/target/install"
engines=0
wheel=0
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --target-dir) target_dir="$2"; shift 2 ;;
    --engines) engines=1; shift ;;
    --wheel) wheel=1; shift ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "release.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
version="$(sed -n 's/^#define MJB_VERSION "\(.*\)"$/\1/p' "$root/include/mjbridge.h")"
name="mjbridge-$version-$target"
stage="$(mktemp -d)"
cleanup() { rm -rf "$stage"; }
trap cleanup EXIT

# The tree goes to the stage, whatever DESTDIR the caller's environment holds.
DESTDIR= bash "$root/scripts/install.sh" --target "$target" --bundle-mujoco --prefix "$stage/$name" \
  --target-dir "$target_dir"
mkdir -p "$out"
# Written as a .part file and renamed into place whole: a failed run leaves no half-written
# archive, and never an old archive's checksum beside a new archive.
case "$target" in
  *windows*) archive="$name.zip" ;;
  *) archive="$name.tar.gz" ;;
esac
part="$out/$archive.part"
trap 'rm -rf "$stage"; rm -f "$part" "$out/$archive.sha256.part"' EXIT
rm -f "$out/$archive" "$out/$archive.sha256" "$part"
case "$archive" in
  *.zip) (cd "$stage" && zip -qr -X "$part" "$name") ;;
  *) tar -C "$stage" --owner=0 --group=0 --sort=name -czf "$part" "$name" ;;
esac
mv "$part" "$out/$archive"
(cd "$out" && sha256sum "$archive" >"$archive.sha256.part" && mv "$archive.sha256.part" "$archive.sha256")
echo "==> $out/$archive"
echo "==> $out/$archive.sha256: $(cut -d' ' -f1 "$out/$archive.sha256")"

if [ "$wheel" = 1 ]; then
  # The wheel of this very tree, written as a .part and renamed into place with its checksum.
  bash "$root/scripts/python_wheel.sh" "$stage/wheel" --from-prefix "$stage/$name"
  made=("$stage/wheel"/mjbridge-"$version"-py3-none-*.whl)
  [ "${#made[@]}" = 1 ] && [ -f "${made[0]}" ] || { echo "release.sh: python_wheel.sh made no single wheel: ${made[*]}" >&2; exit 1; }
  whl="$(basename "${made[0]}")"
  trap 'rm -rf "$stage"; rm -f "$out/$whl.part" "$out/$whl.sha256.part"' EXIT
  rm -f "$out/$whl" "$out/$whl.sha256"
  cp "${made[0]}" "$out/$whl.part"
  mv "$out/$whl.part" "$out/$whl"
  (cd "$out" && sha256sum "$whl" >"$whl.sha256.part" && mv "$whl.sha256.part" "$whl.sha256")
  echo "==> $out/$whl"
  echo "==> $out/$whl.sha256: $(cut -d' ' -f1 "$out/$whl.sha256")"
fi

[ "$engines" = 1 ] || exit 0
# The engine packages, from this archive's tree and the other engine target's, each written as a
# .part and renamed into place with its checksum, like the archive.
engine_tree() { # triple -> a tree of it in the stage (the archive's own when it is this target)
  if [ "$1" = "$target" ]; then echo "$stage/$name"; return; fi
  local t="$stage/engine-trees/$1"
  DESTDIR= bash "$root/scripts/install.sh" --target "$1" --bundle-mujoco --prefix "$t" \
    --target-dir "$target_dir" >&2
  echo "$t"
}
linux_tree="$(engine_tree x86_64-unknown-linux-gnu)"
windows_tree="$(engine_tree x86_64-pc-windows-gnu)"
unity="com.mjbridge.mjbridge-$version.tgz"
unreal="mjbridge-$version-unreal-plugin.zip"
trap 'rm -rf "$stage"; rm -f "$out/$unity.part" "$out/$unreal.part" "$out/$unity.sha256.part" "$out/$unreal.sha256.part"' EXIT
rm -f "$out/$unity" "$out/$unity.sha256" "$out/$unreal" "$out/$unreal.sha256"
bash "$root/scripts/unity_package.sh" "$stage/unity" --linux-tree "$linux_tree" --windows-tree "$windows_tree"
mv "$stage/unity/$unity" "$out/$unity.part"
bash "$root/scripts/unreal_plugin.sh" "$stage/unreal" --linux-tree "$linux_tree" --windows-tree "$windows_tree"
# Fixed times and sorted members: the same plugin makes the same zip.
find "$stage/unreal/MjBridge" -exec touch -h -d "@${SOURCE_DATE_EPOCH:-499162500}" {} +
(cd "$stage/unreal" && find MjBridge | LC_ALL=C sort | TZ=UTC zip -qX "$out/$unreal.part" -@)
for a in "$unity" "$unreal"; do
  mv "$out/$a.part" "$out/$a"
  (cd "$out" && sha256sum "$a" >"$a.sha256.part" && mv "$a.sha256.part" "$a.sha256")
  echo "==> $out/$a"
  echo "==> $out/$a.sha256: $(cut -d' ' -f1 "$out/$a.sha256")"
done
