# Sourced by scripts/unity_package.sh and scripts/unreal_plugin.sh: the two install trees an
# engine package is made from, the license files they carry, and what a binary is built for.
#
# An engine package holds the Linux x86_64 and the Windows x86_64 build, each taken from a
# self-contained tree of scripts/install.sh (--bundle-mujoco: the bridge and the exact MuJoCo it
# was built against). A caller that already has the trees (scripts/release.sh, the tests) passes
# them with --linux-tree/--windows-tree and nothing is built again; otherwise they are installed
# here into the caller's stage folder.

LINUX=x86_64-unknown-linux-gnu
WINDOWS=x86_64-pc-windows-gnu

die() { echo "$(basename "$0"): $*" >&2; exit 1; }

# The tree of `triple` (argument 2) in `dir` (argument 1, may be empty): checked when given,
# installed into stage/trees/TRIPLE (argument 3: the stage) when not. Prints the tree's path.
engine_tree() {
  local dir="$1" triple="$2" stage="$3" target_dir="$4"
  if [ -z "$dir" ]; then
    dir="$stage/trees/$triple"
    DESTDIR= bash "$root/scripts/install.sh" --target "$triple" --bundle-mujoco --prefix "$dir" \
      --target-dir "$target_dir" >&2
  fi
  [ -f "$dir/share/mjbridge/TARGET" ] || die "$dir is not an install tree of scripts/install.sh (no share/mjbridge/TARGET)"
  grep -qx "target=$triple" "$dir/share/mjbridge/TARGET" || die "$dir is not a $triple tree: $(head -n1 "$dir/share/mjbridge/TARGET")"
  grep -qx "mujoco_bundled=yes" "$dir/share/mjbridge/TARGET" || die "$dir does not bundle MuJoCo (install it with --bundle-mujoco)"
  grep -qx "version=$version" "$dir/share/mjbridge/TARGET" || die "$dir holds another version than $version"
  (cd "$dir" && pwd)
}

# The MuJoCo library file of a Linux tree (libmujoco.so.A.B.C).
tree_mujoco_file() {
  sed -n 's/^mujoco=\([^ ]*\).*/\1/p' "$1/share/mjbridge/TARGET"
}

# What a binary is built for, from its own header: "elf x86_64", "elf aarch64", "pe x86_64",
# "pe i386", "elf other", "pe other" or "unknown".
binary_kind() {
  local f="$1" magic
  magic="$(od -An -tx1 -N4 "$f" | tr -d ' \n')"
  if [ "$magic" = 7f454c46 ]; then
    # e_machine: 2 bytes little-endian at offset 18 (class and data checked: 64-bit, LSB).
    [ "$(od -An -tu1 -j4 -N2 "$f" | tr -s ' ' | sed 's/^ //; s/ $//')" = "2 1" ] || { echo "elf other"; return; }
    case "$(od -An -tx1 -j18 -N2 "$f" | tr -d ' \n')" in
      3e00) echo "elf x86_64" ;;
      b700) echo "elf aarch64" ;;
      *) echo "elf other" ;;
    esac
  elif [ "${magic:0:4}" = 4d5a ]; then
    local lfanew
    lfanew=$(od -An -tu4 -j60 -N4 "$f" | tr -d ' ')
    [ "$(od -An -tx1 -j"$lfanew" -N4 "$f" | tr -d ' \n')" = 50450000 ] || { echo unknown; return; }
    case "$(od -An -tx1 -j$((lfanew + 4)) -N2 "$f" | tr -d ' \n')" in
      6486) echo "pe x86_64" ;;
      4c01) echo "pe i386" ;;
      *) echo "pe other" ;;
    esac
  else
    echo unknown
  fi
}

# The license and notice files of a tree (the bridge's, the Rust crates', MuJoCo's), copied into
# `dest` below the folder they share in the tree, so their names and sub-folders stay as the
# tree has them. Falls back to the repository's LICENSE when the tree carries none. Prints the
# bridge's own license file (the shallowest LICENSE* not in a folder named for MuJoCo), if any.
copy_licenses() {
  local tree="$1" dest="$2" files common f rel own=""
  files="$(find "$tree" -type f \( -iname 'LICENSE*' -o -iname 'COPYING*' -o -iname 'NOTICE*' \
    -o -iname '*THIRD*PARTY*' \) -not -path '*/include/*' | LC_ALL=C sort)"
  if [ -z "$files" ]; then
    if [ -f "$root/LICENSE" ]; then
      install -d "$dest"
      install -m 644 "$root/LICENSE" "$dest/LICENSE"
      echo "$dest/LICENSE"
    fi
    return 0
  fi
  common="$(dirname "$(head -n1 <<<"$files")")"
  while IFS= read -r f; do
    while [ "${f#"$common"/}" = "$f" ]; do common="$(dirname "$common")"; done
  done <<<"$files"
  while IFS= read -r f; do
    rel="${f#"$common"/}"
    install -d "$dest/$(dirname "$rel")"
    install -m 644 "$f" "$dest/$rel"
    case "$(basename "$rel")" in
      LICENSE*|License*|license*)
        case "$rel" in *[Mm][Uu][Jj][Oo][Cc][Oo]*) continue ;; esac
        if [ -z "$own" ] || [ "${#rel}" -lt "${#own}" ]; then own="$rel"; fi ;;
    esac
  done <<<"$files"
  [ -z "$own" ] || own="$dest/$own"
  [ -z "$own" ] || echo "$own"
}

# copy_licenses for both trees of a package: the Linux tree's files, after checking the Windows
# tree carries the same ones (the two MuJoCo wheels ship the same texts; if they ever differ, a
# package must not carry only one side's). Prints the bridge's own license file, if any.
copy_package_licenses() {
  local linux_tree="$1" windows_tree="$2" dest="$3" scratch="$4" own
  own="$(copy_licenses "$linux_tree" "$dest")"
  copy_licenses "$windows_tree" "$scratch" >/dev/null
  if [ -d "$dest" ] || [ -d "$scratch" ]; then
    diff -r "$dest" "$scratch" >/dev/null 2>&1 ||
      die "the Linux and Windows trees carry different license files ($linux_tree, $windows_tree)"
  fi
  echo "$own"
}

# Normalised modes, so the archive does not depend on the umask: folders and binaries 755,
# everything else 644.
normalise_modes() {
  find "$1" -type d -exec chmod 755 {} +
  find "$1" -type f -exec chmod 644 {} +
  find "$1" -type f -not -name '*.meta' \( -name '*.so' -o -name '*.so.[0-9]*' -o -name '*.dll' -o -name '*.exe' \) -exec chmod 755 {} +
}

# The time every archive member carries: SOURCE_DATE_EPOCH when set (reproducible builds'
# convention), else the one npm pack uses (1985-10-26T08:15:00Z), so two runs give one archive.
archive_mtime() { echo "${SOURCE_DATE_EPOCH:-499162500}"; }
