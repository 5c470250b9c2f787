#!/usr/bin/env bash
# Reproducible builds: the current commit, copied into two folders of different names and
# depths, is installed from each the way users install it (scripts/install.sh: release, install
# link flags, each with its own target folder; the second sees cargo's home under another name;
# the MuJoCo wheel cache is shared), and the two installed trees must be the same bytes, file
# for file (the library, the static library, the `mjbridge` command, the bundled MuJoCo and its
# plugins, the package files). No installed file may name a folder of this machine: the two
# checkouts, their target folders, the scratch folder, $HOME, $CARGO_HOME (both names), the
# MuJoCo wheel cache (MJB_MUJOCO_CACHE), or the checkout this script runs from.
#
#   bash scripts/repro_check.sh               the check of HEAD (two release builds)
#   bash scripts/repro_check.sh --commit REV  the same for another commit (an older release)
#   bash scripts/repro_check.sh --self-test   only the detector, on planted trees (no build)
#
# The detector is proven first on every run: a tree with a planted folder and a tree with one
# changed byte must each be reported, naming the file. Fails with the differing file or the
# leaked folder and the file that carries it.
#
# The target folders are kept under target/repro/ (so a warm machine rebuilds only the crate,
# from the fresh checkouts; the dependencies compile the same wherever the checkout is).
# Uncommitted changes are not part of the check: it builds HEAD.
set -Eeuo pipefail
trap 'rc=$?; echo "repro_check.sh: failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2; exit $rc' ERR

root="$(cd "$(dirname "$0")/.." && pwd)"

# compare_trees A B: every file and symlink of A is in B with the same bytes (or link target)
# and B has nothing more. Prints one line per difference; returns 1 if there is any.
compare_trees() {
  local a="$1" b="$2" bad=0 f
  local la lb
  la="$(cd "$a" && find . -mindepth 1 \( -type f -o -type l \) | LC_ALL=C sort)"
  lb="$(cd "$b" && find . -mindepth 1 \( -type f -o -type l \) | LC_ALL=C sort)"
  while IFS= read -r f; do
    [ -n "$f" ] || continue
    echo "only in the first tree: ${f#./}"
    bad=1
  done < <(LC_ALL=C comm -23 <(echo "$la") <(echo "$lb"))
  while IFS= read -r f; do
    [ -n "$f" ] || continue
    echo "only in the second tree: ${f#./}"
    bad=1
  done < <(LC_ALL=C comm -13 <(echo "$la") <(echo "$lb"))
  while IFS= read -r f; do
    [ -n "$f" ] || continue
    if [ -L "$a/$f" ] || [ -L "$b/$f" ]; then
      if [ "$(readlink "$a/$f")" != "$(readlink "$b/$f" 2>/dev/null)" ]; then
        echo "differs: ${f#./} (symlink targets $(readlink "$a/$f") and $(readlink "$b/$f" 2>/dev/null))"
        bad=1
      fi
    elif ! cmp -s "$a/$f" "$b/$f"; then
      echo "differs: ${f#./} ($(cmp "$a/$f" "$b/$f" 2>&1 | head -n1 | sed 's/^.*differ: //'))"
      bad=1
    fi
  done < <(LC_ALL=C comm -12 <(echo "$la") <(echo "$lb"))
  return "$bad"
}

# scan_tree TREE FOLDER...: no regular file of TREE contains any FOLDER (as bytes, binaries
# included). Prints one line per leak; returns 1 if there is any. A FOLDER written `~:PATH` is
# not looked for in MuJoCo's own files (see the $HOME scan below).
scan_tree() {
  local tree="$1" bad=0 folder f
  shift
  for folder in "$@"; do
    [ -n "$folder" ] || continue
    local exclude=()
    case "$folder" in
      "~:"*) folder="${folder#"~:"}"; exclude=(--exclude='libmujoco.so*' --exclude='mujoco.dll' --exclude-dir=mujoco_plugin) ;;
    esac
    while IFS= read -r f; do
      [ -n "$f" ] || continue
      echo "leak: ${f#"$tree"/} contains $folder"
      bad=1
    done < <(grep -r -a -l -F "${exclude[@]}" -e "$folder" "$tree" 2>/dev/null | LC_ALL=C sort || true)
  done
  return "$bad"
}

# The detector on planted trees: identical trees pass; a changed byte, a missing file, a
# changed symlink and a planted folder (in a binary) are each reported by file name.
self_test() {
  local t
  t="$(mktemp -d "${TMPDIR:-/tmp}/mjb-repro-selftest.XXXXXX")"
  mkdir -p "$t/a/lib" "$t/b/lib"
  printf 'ELF\0\1\2 no folder here\0' >"$t/a/lib/libx.so.1"
  cp "$t/a/lib/libx.so.1" "$t/b/lib/libx.so.1"
  ln -s libx.so.1 "$t/a/lib/libx.so"
  ln -s libx.so.1 "$t/b/lib/libx.so"
  echo 'prefix=${pcfiledir}/../..' >"$t/a/lib/x.pc"
  cp "$t/a/lib/x.pc" "$t/b/lib/x.pc"
  local out
  out="$(compare_trees "$t/a" "$t/b")" || { echo "self-test: identical trees reported: $out" >&2; return 1; }
  out="$(scan_tree "$t/a" "/planted/build/folder")" || { echo "self-test: clean tree reported: $out" >&2; return 1; }

  printf 'ELF\0\1\3 no folder here\0' >"$t/b/lib/libx.so.1"
  ln -sfn libx.so.2 "$t/b/lib/libx.so"
  rm "$t/b/lib/x.pc"
  out="$(compare_trees "$t/a" "$t/b")" && { echo "self-test: differing trees passed" >&2; return 1; }
  for want in "differs: lib/libx.so.1" "differs: lib/libx.so (symlink" "only in the first tree: lib/x.pc"; do
    grep -qF "$want" <<<"$out" || { echo "self-test: '$want' not reported in: $out" >&2; return 1; }
  done

  printf 'ELF\0 panicked at /planted/build/folder/src/lib.rs\0' >"$t/a/lib/libx.so.1"
  out="$(scan_tree "$t/a" "/planted/build/folder")" && { echo "self-test: planted folder not found" >&2; return 1; }
  grep -qF "leak: lib/libx.so.1 contains /planted/build/folder" <<<"$out" ||
    { echo "self-test: the leak is not named: $out" >&2; return 1; }
  # A home folder is looked for everywhere but in MuJoCo's own files.
  mkdir -p "$t/a/lib/mujoco_plugin"
  printf 'built in /planted/home/x\0' >"$t/a/lib/libmujoco.so.9.9.9"
  printf 'built in /planted/home/x\0' >"$t/a/lib/mujoco_plugin/libp.so"
  out="$(scan_tree "$t/a" "~:/planted/home/")" || { echo "self-test: MuJoCo's files scanned for the home folder: $out" >&2; return 1; }
  printf 'panicked at /planted/home/x\0' >"$t/a/lib/libx.so.1"
  out="$(scan_tree "$t/a" "~:/planted/home/")" && { echo "self-test: home folder not found" >&2; return 1; }
  grep -qxF "leak: lib/libx.so.1 contains /planted/home/" <<<"$out" ||
    { echo "self-test: the home leak is not named alone: $out" >&2; return 1; }
  rm -rf "$t"
  echo "repro_check.sh: self-test passed (differences and planted folders are reported by file)"
}

rev=HEAD
case "${1:-}" in
  "") ;;
  --self-test) self_test; exit 0 ;;
  --commit) [ $# -eq 2 ] || { echo "repro_check.sh: --commit takes one revision" >&2; exit 2; }; rev="$2" ;;
  *) echo "repro_check.sh: unknown argument: $1 (usage: repro_check.sh [--self-test | --commit REV])" >&2; exit 2 ;;
esac
self_test

command -v git >/dev/null || { echo "repro_check.sh: git is required (the commit is copied with git archive)" >&2; exit 1; }
commit="$(git -C "$root" rev-parse --verify "$rev^{commit}")"
if [ "$rev" = HEAD ] && [ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ]; then
  echo "repro_check.sh: note: uncommitted changes are not checked; this checks HEAD $commit"
fi
export MJB_MUJOCO_CACHE="${MJB_MUJOCO_CACHE:-$root/target/mujoco-cache}"
mkdir -p "$MJB_MUJOCO_CACHE"
MJB_MUJOCO_CACHE="$(cd "$MJB_MUJOCO_CACHE" && pwd)"
cargo_home="${CARGO_HOME:-$HOME/.cargo}"

scratch="$(mktemp -d "${TMPDIR:-/tmp}/mjb-repro.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
# Two checkouts: different names, different depths.
one="$scratch/one/mjbridge"
two="$scratch/elsewhere/at/another/depth/bridge-checkout"
targets="$root/target/repro"
mkdir -p "$targets"
other_home="$targets/cargo-home-link"
ln -sfn "$(cd "$cargo_home" && pwd -P)" "$other_home"
prefix=/opt/mjbridge
start=$(date +%s)
for side in one two; do
  dir="${!side}"
  mkdir -p "$dir" "$scratch/stage-$side"
  git -C "$root" archive --format=tar "$commit" | tar -x -C "$dir"
  echo "==> building $commit in $dir (target folder $targets/$side)"
  log="$scratch/install-$side.log"
  # Only what scripts/install.sh reads is passed on; CARGO_TARGET_DIR of the caller would
  # make both builds share one folder.
  # The second build also sees cargo's home under another name (a link to the same one, so
  # nothing is downloaded): the dependencies' sources are then at other paths too.
  home_of_side="$cargo_home"
  [ "$side" = one ] || home_of_side="$other_home"
  if ! env -u CARGO_TARGET_DIR CARGO_HOME="$home_of_side" DESTDIR="$scratch/stage-$side" \
      bash "$dir/scripts/install.sh" --prefix "$prefix" --target-dir "$targets/$side" >"$log" 2>&1; then
    cat "$log" >&2
    echo "repro_check.sh: the install build in $dir failed (log above)" >&2
    exit 1
  fi
done
echo "two install builds: $(( $(date +%s) - start )) s"

tree_one="$scratch/stage-one$prefix"
tree_two="$scratch/stage-two$prefix"
failed=0
if ! out="$(compare_trees "$tree_one" "$tree_two")"; then
  echo "$out" >&2
  echo "repro_check.sh: the two builds of $commit differ (above): the build depends on the folder it runs in" >&2
  failed=1
fi
# $HOME is not looked for in MuJoCo's library and plugins: they are the pinned wheel's files
# (SHA-256 checked; patchelf rewrites only the plugins' RUNPATH), built on another machine, and
# name that machine's folders (4.0.0's libmujoco names /root/llvm-project/...: its builder's
# home was /root too). Every other folder is looked for in them as well.
home_slash="${HOME:+~:${HOME%/}/}"
for tree in "$tree_one" "$tree_two"; do
  if ! out="$(scan_tree "$tree" "$one" "$two" "$targets" "$scratch" "$root" "$cargo_home" \
      "$other_home" "$(cd "$cargo_home" && pwd -P)" "$MJB_MUJOCO_CACHE" "$home_slash")"; then
    echo "$out" >&2
    echo "repro_check.sh: installed files name folders of the build machine (above)" >&2
    failed=1
  fi
done
[ "$failed" = 0 ] || exit 1
files="$(cd "$tree_one" && find . \( -type f -o -type l \) | wc -l)"
echo "repro_check.sh: $files installed files identical in both builds of $commit, and none names a folder of this machine"
