#!/usr/bin/env bash
# The license checks of the Rust crates compiled into the library and the mjbridge command,
# offline:
#
#   bash scripts/licenses.sh            check: THIRD_PARTY_NOTICES.md equals a fresh generation,
#                                       and `cargo deny check licenses bans sources` passes
#   bash scripts/licenses.sh --bless    regenerate THIRD_PARTY_NOTICES.md
#   bash scripts/licenses.sh --install  install the pinned cargo-about and cargo-deny (.ci/run)
#   bash scripts/licenses.sh --install-about   the pinned cargo-about alone (.ci/run builds it
#                                       while the Debian packages install)
#
# cargo-about is compiled from the Rust registry once per machine (release without LTO, only its
# `cli` feature). cargo-deny comes as the pinned binary of scripts/ci_tools.sh where that fits (Linux
# x86_64), else it is compiled the same way.
#
# THIRD_PARTY_NOTICES.md is made by cargo-about from Cargo.lock with about.toml (the accepted
# licenses, the release targets, no build or dev dependencies) and packaging/notices.md.hbs.
# cargo-deny holds the policy (deny.toml): the same licenses, no crate from anywhere but
# crates.io, no wildcard version. Both run with --offline, from cargo's registry cache, which
# `cargo fetch --locked` first completes: a build downloads only the crates of the host's
# target, and both tools read the whole graph (a fresh machine's cache lacks the Windows-only
# crates). The versions are pinned here, because another cargo-about may render the same graph
# differently.
#
# A missing tool (or another version) is a loud skip, or a failure with
# MJB_REQUIRE_ALL_TOOLCHAINS=1 (CI).
set -euo pipefail
cd "$(dirname "$0")/.."

ABOUT_VERSION=0.9.3
DENY_VERSION=0.20.2
notices=THIRD_PARTY_NOTICES.md

# cargo-deny: the pinned binary of scripts/ci_tools.sh when it is installed, else cargo's.
deny_bin="$(bash scripts/ci_tools.sh --path cargo-deny 2>/dev/null || true)"
cargo_tool() { # NAME ARGS...: `cargo NAME ARGS...`, or the pinned binary for deny
  if [ "$1" = deny ] && [ -n "$deny_bin" ]; then
    "$deny_bin" "$@"
  else
    cargo "$@"
  fi
}

version_of() { # `cargo about --version` -> 0.9.3; empty when absent
  cargo_tool "$1" --version 2>/dev/null | sed -n 's/^cargo-[a-z]* \([0-9][0-9.]*\).*/\1/p' || true
}

install_about() {
  if [ "$(version_of about)" = "$ABOUT_VERSION" ]; then
    echo "cargo-about $ABOUT_VERSION present"
  else
    # The binary is behind the crate's `cli` feature since 0.9.0. Its manifest asks for fat LTO
    # in release, which is most of a fresh machine's build of it; the tool runs for seconds a
    # CI run, so it is built without (the env variable overrides the installed crate's profile).
    CARGO_PROFILE_RELEASE_LTO=false \
      cargo install --locked cargo-about --version "$ABOUT_VERSION" --features cli
  fi
}

install_tools() {
  install_about
  [ -n "$deny_bin" ] || bash scripts/ci_tools.sh --install >/dev/null || true
  deny_bin="$(bash scripts/ci_tools.sh --path cargo-deny 2>/dev/null || true)"
  if [ "$(version_of deny)" = "$DENY_VERSION" ]; then
    echo "cargo-deny $DENY_VERSION present${deny_bin:+ ($deny_bin)}"
  else
    cargo install --locked cargo-deny --version "$DENY_VERSION"
  fi
}

generate() { # OUT
  cargo about generate --offline --locked --fail --config about.toml \
    --output-file "$1" packaging/notices.md.hbs
}

missing() {
  if [ "${MJB_REQUIRE_ALL_TOOLCHAINS:-}" = 1 ]; then
    echo "licenses.sh: $1 is missing and MJB_REQUIRE_ALL_TOOLCHAINS=1 (bash scripts/licenses.sh --install)" >&2
    exit 1
  fi
  echo "!!!!!!!! $1 missing (bash scripts/licenses.sh --install): $2 SKIPPED !!!!!!!!"
}

case "${1:-}" in
  --install) install_tools; exit 0 ;;
  --install-about) install_about; exit 0 ;;
  --bless|"") ;;
  -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "licenses.sh: unknown argument: $1" >&2; exit 2 ;;
esac

about="$(version_of about)"
deny="$(version_of deny)"
# Every crate of Cargo.lock, for every target, in cargo's cache (a no-op when it is there).
cargo fetch --locked --quiet
if [ "${1:-}" = --bless ]; then
  [ "$about" = "$ABOUT_VERSION" ] || {
    echo "licenses.sh: --bless needs cargo-about $ABOUT_VERSION${about:+ (found $about)}: bash scripts/licenses.sh --install" >&2
    exit 1
  }
  generate "$notices"
  echo "wrote $notices"
  exit 0
fi

if [ "$about" = "$ABOUT_VERSION" ]; then
  fresh="$(mktemp)"
  trap 'rm -f "$fresh"' EXIT
  generate "$fresh"
  if ! diff -u "$notices" "$fresh" >&2; then
    echo "licenses.sh: $notices is out of date (diff above): bash scripts/licenses.sh --bless" >&2
    exit 1
  fi
  echo "$notices is up to date"
else
  missing "cargo-about $ABOUT_VERSION${about:+ (found $about)}" "the drift check of $notices"
fi
if [ "$deny" = "$DENY_VERSION" ]; then
  cargo_tool deny --offline --locked check licenses bans sources
else
  missing "cargo-deny $DENY_VERSION${deny:+ (found $deny)}" "cargo deny check licenses bans sources"
fi
