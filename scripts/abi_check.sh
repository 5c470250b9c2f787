#!/usr/bin/env bash
# The ABI check: the current header and libraries against every released baseline in abi/.
#
#   bash scripts/abi_check.sh                 build (release, default features) and check
#   bash scripts/abi_check.sh --bless         at a release: check, then store abi/<version>/
#   bash scripts/abi_check.sh [--header H] [--lib SO | --linux-exports F] [--dll DLL |
#        --windows-exports F | --no-windows] [--baseline DIR]...
#
# A baseline (abi/<version>/, written by --bless at that release, never edited by hand) holds:
#   header.abi           abidw's description of every declaration of include/mjbridge.h: each
#                        function's signature, each struct's layout, each enum's enumerators
#                        (from a C probe built with -g: scripts/abi_probe.py)
#   header.txt           the header's facts as the compiler evaluates them: every constant
#                        (`#define`: type and value), enumerator, function, struct size and
#                        member offset, one `KIND NAME = VALUE` per line
#   libmjbridge.so.txt   the Linux library's dynamic exports (readelf)
#   mjbridge.dll.txt     the Windows DLL's export table (llvm-readobj; cross-built with
#                        --target x86_64-pc-windows-gnu)
#
# The check fails when anything of a baseline is missing or different now: a removed or changed
# export, signature, struct layout (a member added to an existing struct too: hosts allocate
# them), enumerator or constant. Additions pass (new exports, types, enumerators, constants).
# It also fails when the header and a library disagree (a function declared but not exported,
# or exported but not declared) or a library exports a name outside `mjb_`.
#
# Without --lib/--linux-exports it builds `cargo build --release --lib` (the default features,
# no fault injection); without --dll/--windows-exports/--no-windows it cross-builds the DLL
# (`--target x86_64-pc-windows-gnu`: rust-std for that target and Debian's mingw-w64). The
# export lists given with --linux-exports/--windows-exports are in the baseline's format (the
# test on mutated copies uses them). Needs clang (the header's declarations), python3, cc and
# abigail-tools (abidw, abidiff); llvm (llvm-readobj) for the DLL. A missing tool skips the
# check loudly, or fails it when MJB_REQUIRE_ALL_TOOLCHAINS=1.
set -Eeuo pipefail
trap 'rc=$?; echo "abi_check.sh: failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2; exit $rc' ERR

root="$(cd "$(dirname "$0")/.." && pwd)"
header="$root/include/mjbridge.h"
lib=""
linux_exports=""
dll=""
windows_exports=""
windows=yes
bless=no
baselines=()
usage() { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --header) header="$2"; shift 2 ;;
    --lib) lib="$2"; shift 2 ;;
    --linux-exports) linux_exports="$2"; shift 2 ;;
    --dll) dll="$2"; shift 2 ;;
    --windows-exports) windows_exports="$2"; shift 2 ;;
    --no-windows) windows=no; shift ;;
    --baseline) baselines+=("$(cd "$2" && pwd)"); shift 2 ;;
    --bless) bless=yes; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "abi_check.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done
absolute() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
header="$(absolute "$header")"
for v in lib linux_exports dll windows_exports; do
  [ -z "${!v}" ] || printf -v "$v" '%s' "$(absolute "${!v}")"
done
cd "$root"

missing() {
  if [ "${MJB_REQUIRE_ALL_TOOLCHAINS:-}" = 1 ] || [ "$bless" = yes ]; then
    echo "abi_check.sh: $1 is missing (MJB_REQUIRE_ALL_TOOLCHAINS=1 or --bless: nothing is skipped)" >&2
    exit 1
  fi
  echo "!!!!!!!! $1 is missing: $2 SKIPPED !!!!!!!!"
}
for t in clang:clang python3:python3 cc:gcc abidw:abigail-tools abidiff:abigail-tools readelf:binutils; do
  if ! command -v "${t%%:*}" >/dev/null; then
    missing "${t%%:*} (Debian: ${t#*:})" "the ABI check"
    exit 0
  fi
done
if [ "$bless" = yes ] && { [ -n "$lib$linux_exports$dll$windows_exports" ] || [ "$windows" = no ]; }; then
  echo "abi_check.sh: --bless stores what this commit builds: no --lib, --dll, --*-exports or --no-windows" >&2
  exit 2
fi
if [ "${#baselines[@]}" -eq 0 ]; then
  for d in "$root"/abi/*/; do
    [ -f "$d/header.abi" ] && baselines+=("${d%/}")
  done
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/now"
now="$work/now"

# ---- what the header declares ------------------------------------------------------------
python3 "$root/scripts/abi_probe.py" "$header" "$work"
(
  cd "$work"
  # -DMJB_DEPRECATED(msg)=: naming a deprecated function in the probe is no use of it.
  cc -std=c11 -g -O0 -fPIC -shared -Wall -Wextra -Werror '-DMJB_DEPRECATED(msg)=' -o probe.so probe.c
  cc -std=c11 -O0 -Wall -Wextra -Werror '-DMJB_DEPRECATED(msg)=' -o facts facts.c
)
"$work/facts" | LC_ALL=C sort >"$now/header.txt"
# No paths, locations or build-machine facts: the stored file is the same on every machine with
# the same compiler, and type ids are hashes (an insertion does not renumber the rest).
abidw --no-corpus-path --no-comp-dir-path --no-show-locs --no-elf-needed --type-id-style hash \
  --out-file "$now/header.abi" "$work/probe.so"

# ---- what the libraries export -------------------------------------------------------------
target_dir="${CARGO_TARGET_DIR:-target}"
if [ -n "$linux_exports" ]; then
  cp "$linux_exports" "$now/libmjbridge.so.txt"
else
  if [ -z "$lib" ]; then
    echo "==> cargo build --release --lib (default features)"
    cargo build --release --lib --quiet
    lib="$target_dir/release/libmjbridge.so"
  fi
  # Every defined dynamic symbol, with its kind (FUNC, OBJECT).
  readelf --dyn-syms --wide "$lib" |
    awk '$1 ~ /^[0-9]+:$/ && $7 != "UND" && $8 != "" && $5 != "LOCAL" { print "symbol " $8 " = " $4 }' |
    sed 's/@.*\( = \)/\1/' | LC_ALL=C sort -u >"$now/libmjbridge.so.txt"
fi
if [ -n "$windows_exports" ]; then
  cp "$windows_exports" "$now/mjbridge.dll.txt"
elif [ "$windows" = yes ] && [ -z "$dll" ]; then
  triple=x86_64-pc-windows-gnu
  if ! [ -d "$(rustc --print sysroot)/lib/rustlib/$triple/lib" ]; then
    missing "rust-std for $triple (rustup target add $triple)" "the Windows DLL's exports"
    windows=no
  elif ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
    missing "x86_64-w64-mingw32-gcc (Debian: gcc-mingw-w64-x86-64)" "the Windows DLL's exports"
    windows=no
  else
    echo "==> cargo build --release --lib --target $triple (default features)"
    cargo build --release --lib --quiet --target "$triple"
    dll="$target_dir/$triple/release/mjbridge.dll"
  fi
fi
if [ "$windows" = yes ] && [ -z "$windows_exports" ]; then
  if ! command -v llvm-readobj >/dev/null; then
    missing "llvm-readobj (Debian: llvm)" "the Windows DLL's exports"
    windows=no
  else
    # Imports are by name (MSVC and mingw import libraries alike): the ordinals, which the
    # linker assigns in name order, are not part of the ABI.
    llvm-readobj --coff-exports "$dll" | sed -n 's/^ *Name: \(.\{1,\}\)$/symbol \1 = exported/p' |
      LC_ALL=C sort -u >"$now/mjbridge.dll.txt"
  fi
fi

failures=0
fail() { echo "ABI CHECK FAILED: $*" >&2; failures=$((failures + 1)); }

# ---- the header and the libraries agree ----------------------------------------------------
sed -n 's/^function \([^ ]*\) = declared$/\1/p' "$now/header.txt" >"$work/declared"
exports_of() { sed -n 's/^symbol \([^ ]*\) = .*$/\1/p' "$1"; }
for file in libmjbridge.so.txt mjbridge.dll.txt; do
  [ -f "$now/$file" ] || continue
  artifact="${file%.txt}"
  exports_of "$now/$file" >"$work/exported"
  [ -s "$work/exported" ] || fail "$artifact exports nothing (not a library of the bridge?)"
  while read -r name; do
    fail "$artifact does not export $name, which mjbridge.h declares"
  done < <(LC_ALL=C comm -23 <(LC_ALL=C sort "$work/declared") <(LC_ALL=C sort "$work/exported"))
  while read -r name; do
    case "$name" in
      mjb_*) fail "$artifact exports $name, which mjbridge.h does not declare" ;;
      *) fail "$artifact exports $name, outside the mjb_ namespace" ;;
    esac
  done < <(LC_ALL=C comm -13 <(LC_ALL=C sort "$work/declared") <(LC_ALL=C sort "$work/exported"))
done

# ---- nothing of a release is gone or changed -------------------------------------------------
# `KIND NAME = VALUE` lines: each of the baseline's must be in the current file unchanged.
compare() {
  local artifact="$1" base="$2" current="$3"
  while IFS= read -r line; do
    fail "$artifact: $line"
  done < <(awk '
    function split_line(l, kv) { i = index(l, " = "); kv[1] = substr(l, 1, i - 1); kv[2] = substr(l, i + 3) }
    NR == FNR { split_line($0, kv); base[kv[1]] = kv[2]; next }
    { split_line($0, kv); now[kv[1]] = kv[2] }
    END {
      for (k in base) {
        if (!(k in now)) print "removed " k " (was " base[k] ")"
        else if (now[k] != base[k]) print "changed " k ": was " base[k] ", now " now[k]
      }
    }' "$base" "$current" | LC_ALL=C sort)
  local added
  added="$(awk 'NR == FNR { i = index($0, " = "); base[substr($0, 1, i - 1)] = 1; next }
    { i = index($0, " = "); if (!(substr($0, 1, i - 1) in base)) n++ } END { print n + 0 }' "$base" "$current")"
  [ "$added" = 0 ] || echo "    $artifact: $added addition(s)"
}
for base in "${baselines[@]}"; do
  release="$(basename "$base")"
  for f in header.abi header.txt libmjbridge.so.txt mjbridge.dll.txt; do
    [ -f "$base/$f" ] || { echo "abi_check.sh: the baseline $base has no $f" >&2; exit 1; }
  done
  echo "==> against the $release baseline ($base)"
  compare "mjbridge.h" "$base/header.txt" "$now/header.txt"
  compare "libmjbridge.so" "$base/libmjbridge.so.txt" "$now/libmjbridge.so.txt"
  if [ -f "$now/mjbridge.dll.txt" ]; then
    compare "mjbridge.dll" "$base/mjbridge.dll.txt" "$now/mjbridge.dll.txt"
  fi
  # abidiff exit bits: 1 error, 4 a change, 8 an incompatible change (a removal). With
  # --no-added-syms additions are not changes, and its harmless categories (an enumerator
  # appended) are filtered out by default: any other change of a type or signature is a failure.
  rc=0
  abidiff --no-added-syms --no-show-locs "$base/header.abi" "$now/header.abi" >"$work/abidiff.txt" 2>&1 || rc=$?
  if [ $((rc & 1)) -ne 0 ]; then
    cat "$work/abidiff.txt" >&2
    fail "abidiff could not compare $base/header.abi (exit $rc)"
  elif [ "$rc" -ne 0 ]; then
    sed 's/^/    /' "$work/abidiff.txt" >&2
    if [ $((rc & 8)) -ne 0 ]; then
      fail "mjbridge.h: abidiff: declarations of $release removed (exit $rc; report above)"
    else
      fail "mjbridge.h: abidiff: types or signatures of $release changed (exit $rc; report above)"
    fi
  fi
done
if [ "$failures" -ne 0 ]; then
  echo "abi_check.sh: $failures ABI failure(s): an existing export, signature, layout, enumerator or constant changed" >&2
  echo "  (a new call, struct, enumerator or constant is added instead; see notes on the ABI contract)" >&2
  exit 1
fi
echo "==> ABI: $(wc -l <"$work/declared") functions; nothing of ${#baselines[@]} baseline(s) removed or changed$([ "$windows" = yes ] || echo ' (Windows DLL not checked)')"

if [ "$bless" = yes ]; then
  version="$(sed -n 's/^#define MJB_VERSION "\(.*\)"$/\1/p' "$header")"
  [ -n "$version" ] || { echo "abi_check.sh: no MJB_VERSION in $header" >&2; exit 1; }
  dest="$root/abi/$version"
  if [ -e "$dest" ]; then
    echo "abi_check.sh: $dest exists: a release's baseline is never rewritten (bump the version first)" >&2
    exit 1
  fi
  [ "$windows" = yes ] || { echo "abi_check.sh: --bless needs the Windows DLL's exports" >&2; exit 1; }
  mkdir -p "$dest"
  cp "$now/header.abi" "$now/header.txt" "$now/libmjbridge.so.txt" "$now/mjbridge.dll.txt" "$dest/"
  echo "==> stored the $version baseline in abi/$version/ (commit it)"
fi
