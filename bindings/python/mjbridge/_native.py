"""The C ABI as ctypes sees it: the generated declarations and finding the library.

The structs, enums, constants and SIGNATURES (restype and argtypes per export) are generated
from include/mjbridge.h into ``_native_gen.py`` (``MJB_BLESS=1 cargo test --test bindings_gen``;
the suite fails when the committed file is stale). Handles and library strings are
pointer-sized (``c_void_p``), never the default ``int``.

Adding an export: regenerate, then wrap it in ``mjbridge/__init__.py``.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
from typing import Any, List, Optional, Tuple

# Re-exported: the rest of the binding takes them from here.
from ._native_gen import (
    ENDPOINT as ENDPOINT,
    LOG_FN as LOG_FN,
    OUTCOME as OUTCOME,
    RESTORE_POINT as RESTORE_POINT,
    SIGNATURES as SIGNATURES,
    STRING as STRING,
    Expect as Expect,
    FrameInfo as FrameInfo,
    FrameRequest as FrameRequest,
    HistoryState as HistoryState,
    Input as Input,
    JointAdr as JointAdr,
    ModelDims as ModelDims,
    ReadInfo as ReadInfo,
    Report as Report,
    SafetyState as SafetyState,
)

SONAME = "libmjbridge.so.0"
# Windows: the DLL of an installed tree (bin/mjbridge.dll); its mujoco.dll sits beside it, where
# Windows looks for the dependencies of a DLL loaded by full path.
DLL = "mjbridge.dll"

# Where a wheel built by scripts/python_wheel.sh puts the library, the MuJoCo it links and
# MuJoCo's engine plugins: inside the package, found relative to this file (the bridge finds
# libmujoco beside itself through its RUNPATH $ORIGIN).
BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lib")


def library_names(platform: Optional[str] = None) -> Tuple[str, ...]:
    """The library's file names on ``platform`` (default ``sys.platform``), preferred first."""
    if (platform or sys.platform) == "win32":
        return (DLL,)
    return (SONAME, "libmjbridge.so")


def _in_dir(folder: str, platform: Optional[str] = None) -> Optional[str]:
    for name in library_names(platform):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            return path
    return None


def bundled_plugin_dir() -> Optional[str]:
    """The bundled MuJoCo plugin folder, when the package carries one."""
    folder = os.path.join(BUNDLED, "mujoco_plugin")
    return folder if os.path.isdir(folder) else None


def _tree_dir(prefix: str, platform: Optional[str] = None) -> str:
    """Where an install tree keeps the library: bin/ on Windows, lib/ elsewhere."""
    return os.path.join(prefix, "bin" if (platform or sys.platform) == "win32" else "lib")


def candidates(platform: Optional[str] = None) -> List[Tuple[str, Optional[str]]]:
    """Where the library is looked for, in order: (how, path or loader name). ``platform``
    (default ``sys.platform``) picks the file names and the tree layout."""
    out: List[Tuple[str, Optional[str]]] = []
    env = os.environ.get("MJBRIDGE_LIB")
    if env:
        out.append(("MJBRIDGE_LIB", _in_dir(env, platform) if os.path.isdir(env) else env))
    prefix = os.environ.get("MJBRIDGE_PREFIX")
    if prefix:
        out.append(("MJBRIDGE_PREFIX", _in_dir(_tree_dir(prefix, platform), platform)))
    bundled = _in_dir(BUNDLED, platform)
    if bundled:
        out.append(("bundled", bundled))
    found = _in_dir(_tree_dir(sys.prefix, platform), platform)
    if found:
        out.append(("sys.prefix", found))
    if shutil.which("pkg-config"):
        try:
            libdir = subprocess.run(
                ["pkg-config", "--variable=libdir", "mjbridge"],
                capture_output=True,
                text=True,
                check=False,
            ).stdout.strip()
        except OSError:
            libdir = ""
        if (platform or sys.platform) == "win32" and libdir:
            libdir = os.path.join(os.path.dirname(libdir), "bin")
        if libdir and _in_dir(libdir, platform):
            out.append(("pkg-config", _in_dir(libdir, platform)))
    out.append(("system loader", library_names(platform)[0]))
    return out


# Windows: the folders of the DLLs loaded by path, added to the DLL search path (handles kept, so
# they stay added).
_dll_directories: List[Any] = []


def _add_dll_directory(where: str, platform: Optional[str] = None) -> None:
    """On Windows, a DLL loaded by path has its folder added to the DLL search path first, so its
    mujoco.dll (and MuJoCo's plugin DLLs, which import it) come from the same folder whatever
    flags ctypes loads with (Python 3.8+ no longer searches PATH for dependencies)."""
    folder = os.path.dirname(where)
    if (platform or sys.platform) != "win32" or not folder:
        return
    add = getattr(os, "add_dll_directory", None)
    if add is not None:
        _dll_directories.append(add(os.path.abspath(folder)))


def load(path: Optional[str] = None) -> ctypes.CDLL:
    """Load the library (``path``, else the first candidate that loads) and declare every
    signature. Raises OSError naming every place tried."""
    tried = []
    for how, where in [("argument", path)] if path else candidates():
        if where is None:
            tried.append("%s: no %s there" % (how, " or ".join(library_names())))
            continue
        try:
            _add_dll_directory(where)
            lib = ctypes.CDLL(where)
        except OSError as e:
            tried.append("%s: %s" % (how, e))
            if path or how in ("MJBRIDGE_LIB", "MJBRIDGE_PREFIX"):
                break  # an explicit choice that fails is an error, not a reason to look on
            continue
        declare(lib)
        return lib
    raise OSError("mjbridge: libmjbridge not found; tried:\n  " + "\n  ".join(tried))


def declare(lib: ctypes.CDLL) -> None:
    for name, (restype, argtypes) in SIGNATURES.items():
        fn = getattr(lib, name)  # AttributeError names an export the library lacks
        fn.restype = restype
        fn.argtypes = argtypes
