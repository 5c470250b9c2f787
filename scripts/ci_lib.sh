# Sourced by .ci/run and scripts/test.sh: where the caches that outlive a clone live, the
# compiler cache, and the step timer whose figures .ci/run prints at the end.
#
# The caches are the machine's, not the checkout's, so a fresh clone on a machine that already
# ran the suite fetches and builds only what changed:
#
#   $MJB_CACHE_DIR (default ${XDG_CACHE_HOME:-$HOME/.cache}/mjbridge)
#     mujoco/     the pinned MuJoCo wheels and their extracted files (MJB_MUJOCO_CACHE)
#     venvs/      the Python venvs of the tests, one per pinned requirement set (MJB_VENV_DIR)
#     tools/      the pinned binary tools (sccache, cargo-deny), each in a folder named by its
#                 version and hash
#     sccache/    sccache's cache of compiled crates (SCCACHE_DIR)
#
# Every variable is honoured when the caller set it already.

MJB_CACHE_DIR="${MJB_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mjbridge}"
export MJB_CACHE_DIR
export MJB_MUJOCO_CACHE="${MJB_MUJOCO_CACHE:-$MJB_CACHE_DIR/mujoco}"
export MJB_VENV_DIR="${MJB_VENV_DIR:-$MJB_CACHE_DIR/venvs}"
mkdir -p "$MJB_MUJOCO_CACHE" "$MJB_VENV_DIR"

# The step timer: `timed NAME COMMAND...` runs the command, prints its seconds and appends
# "NAME<TAB>SECONDS" to MJB_TIMES_FILE (when set), which .ci/run prints as a table at the end.
# The command runs in a subshell with `set -e` (a shell function stops at its first failing
# command, as a script does); its status is returned after its line is written.
timed() {
  local name="$1" start end status
  shift
  printf '\n==> %s\n' "$name"
  start=$(date +%s.%N)
  set +e
  (
    set -e
    "$@"
  )
  status=$?
  set -e
  end=$(date +%s.%N)
  local secs
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')
  if [ "$status" = 0 ]; then
    echo "<== $name: ${secs} s"
  else
    echo "<== $name: FAILED (exit $status) after ${secs} s"
  fi
  if [ -n "${MJB_TIMES_FILE:-}" ]; then
    printf '%s\t%s\t%s\n' "$name" "$secs" "$status" >>"$MJB_TIMES_FILE"
  fi
  return "$status"
}

# The compiler cache: sccache (scripts/ci_tools.sh installs the pinned binary) as cargo's
# RUSTC_WRAPPER, its cache under MJB_CACHE_DIR. It caches the dependencies' crates, which
# every engine lane, cross lane, install test and the ThreadSanitizer lane would otherwise
# compile again in their own target folders; the workspace crate itself is compiled
# incrementally and never comes from it. MJB_SCCACHE=0 turns it off; a machine without the
# binary builds without it (it is a speed-up, nothing depends on it).
use_sccache() {
  [ "${MJB_SCCACHE:-1}" = 1 ] || return 0
  [ -z "${RUSTC_WRAPPER:-}" ] || return 0
  local bin
  bin="$(bash "$(dirname "${BASH_SOURCE[0]}")/ci_tools.sh" --path sccache 2>/dev/null || true)"
  [ -n "$bin" ] && [ -x "$bin" ] || return 0
  export SCCACHE_DIR="${SCCACHE_DIR:-$MJB_CACHE_DIR/sccache}"
  export SCCACHE_CACHE_SIZE="${SCCACHE_CACHE_SIZE:-20G}"
  export RUSTC_WRAPPER="$bin"
  "$bin" --start-server >/dev/null 2>&1 || true
  echo "compiler cache: sccache ($bin), cache $SCCACHE_DIR"
}
