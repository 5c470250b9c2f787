"""The C ABI as ctypes sees it: structs, one signature per export, and finding the library.

Every export of include/mjbridge.h has an entry in SIGNATURES with its restype and argtypes (a
test derives the exports from the header and compares kinds and sizes, so a missing entry or an
``int`` where the C function returns a pointer fails). Handles and library strings are
pointer-sized (``c_void_p``), never the default ``int``.

Adding an export: add its entry to SIGNATURES (the coverage test says which kinds it expects),
then wrap it in ``mjbridge/__init__.py``.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
from typing import Any, Dict, List, Optional, Tuple

from ctypes import (
    CFUNCTYPE,
    POINTER,
    c_bool,
    c_char_p,
    c_double,
    c_int32,
    c_int64,
    c_size_t,
    c_uint32,
    c_uint64,
    c_void_p,
)


class Report(ctypes.Structure):
    """mjb_report: the result of a mutation, written on every outcome."""

    _fields_ = [
        ("outcome", c_int32),
        ("reason", c_int32),
        ("tick_before", c_uint64),
        ("tick_after", c_uint64),
        ("engine_resets", c_uint64),
        ("sequence", c_uint64),
    ]

    def __repr__(self) -> str:
        return "Report(%s)" % ", ".join("%s=%r" % (f[0], getattr(self, f[0])) for f in self._fields_)


class SafetyState(ctypes.Structure):
    """mjb_safety_state: the lock-free safety state (C bools are one byte: c_bool)."""

    _fields_ = [
        ("stopped", c_bool),
        ("confirmed", c_bool),
        ("stop_count", c_uint64),
        ("first_stop_tick", c_uint64),
        ("last_stop_tick", c_uint64),
        ("in_flight", c_uint64),
        ("fenced", c_bool),
        ("fence_reason", c_int32),
    ]

    def __repr__(self) -> str:
        return "SafetyState(%s)" % ", ".join(
            "%s=%r" % (f[0], getattr(self, f[0])) for f in self._fields_
        )


_DIMS: List[Tuple[str, Any]] = [
    (name, c_int64)
    for name in (
        "nq",
        "nv",
        "na",
        "nu",
        "nbody",
        "njnt",
        "ngeom",
        "nsite",
        "nsensor",
        "nsensordata",
        "nmocap",
        "neq",
        "nuserdata",
    )
]


class ModelDims(ctypes.Structure):
    """mjb_model_dims: model dimensions, timestep and configuration (mjb_dims)."""

    _fields_ = _DIMS + [("timestep", c_double), ("configuration", c_uint64)]


class JointAdr(ctypes.Structure):
    """mjb_joint_adr: where a joint's values sit in qpos and in the nv-sized fields."""

    _fields_ = [
        ("qpos_adr", c_uint64),
        ("qpos_len", c_uint64),
        ("dof_adr", c_uint64),
        ("dof_len", c_uint64),
    ]


class FrameInfo(ctypes.Structure):
    """mjb_frame_info: what a frame read returns beside the values."""

    _fields_ = [
        ("tick", c_uint64),
        ("time", c_double),
        ("configuration", c_uint64),
        ("frame", c_uint64),
        ("cause", c_int32),
        ("fields", c_uint64),
        ("stale", c_uint64),
        ("retries", c_uint64),
    ]


class FrameRequest(ctypes.Structure):
    """mjb_frame_request: one field of a multi-field frame read."""

    _fields_ = [
        ("field", c_int32),
        ("buf", POINTER(c_double)),
        ("cap", c_size_t),
        ("written", c_size_t),
    ]


class Input(ctypes.Structure):
    """mjb_input: one typed input of mjb_write_step (id -1: the whole field)."""

    _fields_ = [
        ("field", c_int32),
        ("id", c_int32),
        ("values", POINTER(c_double)),
        ("n", c_size_t),
    ]


class Expect(ctypes.Structure):
    """mjb_expect: the precondition of a mutation (the ``_if`` exports): each member is checked
    when its flag (EXPECT_TICK, EXPECT_CONFIGURATION, EXPECT_FRAME) is set."""

    _fields_ = [
        ("flags", c_uint32),
        ("tick", c_uint64),
        ("configuration", c_uint64),
        ("frame", c_uint64),
    ]


class ReadInfo(ctypes.Structure):
    """mjb_read_info: where the endpoint was when a document was read (the ``_info`` reads), or
    what a restore point restores (``frame`` 0)."""

    _fields_ = [
        ("tick", c_uint64),
        ("configuration", c_uint64),
        ("frame", c_uint64),
    ]


# mjb_log_fn: (user_data, level, message); message valid during the call only.
LOG_FN = CFUNCTYPE(None, c_void_p, c_int32, c_char_p)

# Opaque pointers: an mjb_endpoint* (a number, not an address), an mjb_restore_point* (likewise),
# an mjb_string*, MuJoCo's mjModel*/mjData* (for adopt).
ENDPOINT = c_void_p
RESTORE_POINT = c_void_p
STRING = c_void_p
OUTCOME = c_int32

SIGNATURES: Dict[str, Tuple[Any, List[Any]]] = {
    "mjb_endpoint_open": (OUTCOME, [c_char_p, c_size_t, POINTER(ENDPOINT)]),
    "mjb_endpoint_adopt": (OUTCOME, [c_void_p, c_void_p, c_char_p, c_size_t, POINTER(ENDPOINT)]),
    "mjb_endpoint_free": (OUTCOME, [ENDPOINT]),
    "mjb_step": (OUTCOME, [ENDPOINT, c_uint32, c_uint32, POINTER(Report)]),
    "mjb_endpoint_step": (OUTCOME, [ENDPOINT, c_uint32, c_uint32, POINTER(Report)]),
    "mjb_set_ctrl": (OUTCOME, [ENDPOINT, POINTER(c_double), c_size_t, c_uint32, POINTER(Report)]),
    "mjb_world_write": (OUTCOME, [ENDPOINT, c_char_p, c_size_t, c_uint32, POINTER(Report)]),
    "mjb_world_read": (OUTCOME, [ENDPOINT, c_uint32, POINTER(STRING)]),
    "mjb_snapshot": (OUTCOME, [ENDPOINT, c_uint32, POINTER(STRING)]),
    "mjb_checkpoint_read": (OUTCOME, [ENDPOINT, c_uint32, POINTER(STRING)]),
    "mjb_endpoint_replace_model": (
        OUTCOME,
        [ENDPOINT, c_char_p, c_size_t, c_uint32, POINTER(Report)],
    ),
    "mjb_restore": (OUTCOME, [ENDPOINT, c_char_p, c_size_t, c_uint32, POINTER(Report)]),
    "mjb_stop": (OUTCOME, [ENDPOINT, POINTER(SafetyState)]),
    "mjb_confirm_paused": (OUTCOME, [ENDPOINT]),
    "mjb_safety_reset": (OUTCOME, [ENDPOINT]),
    "mjb_safety_read": (OUTCOME, [ENDPOINT, POINTER(SafetyState)]),
    "mjb_string_data": (c_void_p, [STRING]),
    "mjb_string_len": (c_size_t, [STRING]),
    "mjb_string_free": (OUTCOME, [STRING]),
    "mjb_last_error": (OUTCOME, [c_char_p, c_size_t, POINTER(c_size_t)]),
    "mjb_outcome_name": (c_char_p, [c_int32]),
    "mjb_reason_name": (c_char_p, [c_int32]),
    "mjb_version": (c_char_p, []),
    "mjb_build_info": (OUTCOME, [POINTER(STRING)]),
    "mjb_dims": (OUTCOME, [ENDPOINT, POINTER(ModelDims)]),
    "mjb_name_to_id": (OUTCOME, [ENDPOINT, c_int32, c_char_p, POINTER(c_int32)]),
    "mjb_id_to_name": (
        OUTCOME,
        [ENDPOINT, c_int32, c_int32, c_char_p, c_size_t, POINTER(c_size_t)],
    ),
    "mjb_sensor_slice": (OUTCOME, [ENDPOINT, c_int32, POINTER(c_size_t), POINTER(c_size_t)]),
    "mjb_joint_slice": (OUTCOME, [ENDPOINT, c_int32, POINTER(JointAdr)]),
    "mjb_field_name": (c_char_p, [c_int32]),
    "mjb_frame_field_len": (OUTCOME, [ENDPOINT, c_int32, POINTER(c_size_t)]),
    "mjb_frame_read": (
        OUTCOME,
        [ENDPOINT, c_int32, POINTER(c_double), c_size_t, POINTER(c_size_t), POINTER(FrameInfo)],
    ),
    "mjb_frame_read_many": (
        OUTCOME,
        [ENDPOINT, POINTER(FrameRequest), c_size_t, POINTER(FrameInfo)],
    ),
    "mjb_input_write": (
        OUTCOME,
        [ENDPOINT, c_int32, c_int32, POINTER(c_double), c_size_t, c_uint32, POINTER(Report)],
    ),
    "mjb_write_step": (
        OUTCOME,
        [ENDPOINT, POINTER(Input), c_size_t, c_uint32, c_uint32, POINTER(Report)],
    ),
    "mjb_write_step_read_if": (
        OUTCOME,
        [
            ENDPOINT,
            POINTER(Expect),
            POINTER(Input),
            c_size_t,
            c_uint32,
            c_uint32,
            POINTER(FrameRequest),
            c_size_t,
            POINTER(FrameInfo),
            POINTER(Report),
        ],
    ),
    "mjb_write_step_read": (
        OUTCOME,
        [
            ENDPOINT,
            POINTER(Input),
            c_size_t,
            c_uint32,
            c_uint32,
            POINTER(FrameRequest),
            c_size_t,
            POINTER(FrameInfo),
            POINTER(Report),
        ],
    ),
    "mjb_plugin_load": (OUTCOME, [c_char_p, POINTER(c_size_t)]),
    "mjb_plugin_load_dir": (OUTCOME, [c_char_p, POINTER(c_size_t), POINTER(c_size_t)]),
    "mjb_set_log_callback": (OUTCOME, [LOG_FN, c_void_p, c_int32]),
    "mjb_model_fingerprint": (OUTCOME, [ENDPOINT, c_char_p, c_size_t, POINTER(c_size_t)]),
    # Preconditions: each mutation's _if form takes an Expect after the handle.
    "mjb_step_if": (OUTCOME, [ENDPOINT, POINTER(Expect), c_uint32, c_uint32, POINTER(Report)]),
    "mjb_set_ctrl_if": (
        OUTCOME,
        [ENDPOINT, POINTER(Expect), POINTER(c_double), c_size_t, c_uint32, POINTER(Report)],
    ),
    "mjb_world_write_if": (
        OUTCOME,
        [ENDPOINT, POINTER(Expect), c_char_p, c_size_t, c_uint32, POINTER(Report)],
    ),
    "mjb_endpoint_replace_model_if": (
        OUTCOME,
        [ENDPOINT, POINTER(Expect), c_char_p, c_size_t, c_uint32, POINTER(Report)],
    ),
    "mjb_restore_if": (
        OUTCOME,
        [ENDPOINT, POINTER(Expect), c_char_p, c_size_t, c_uint32, POINTER(Report)],
    ),
    "mjb_input_write_if": (
        OUTCOME,
        [
            ENDPOINT,
            POINTER(Expect),
            c_int32,
            c_int32,
            POINTER(c_double),
            c_size_t,
            c_uint32,
            POINTER(Report),
        ],
    ),
    "mjb_write_step_if": (
        OUTCOME,
        [ENDPOINT, POINTER(Expect), POINTER(Input), c_size_t, c_uint32, c_uint32, POINTER(Report)],
    ),
    # Reads that say where they were.
    "mjb_checkpoint_read_info": (
        OUTCOME,
        [ENDPOINT, c_uint32, POINTER(STRING), POINTER(ReadInfo)],
    ),
    "mjb_world_read_info": (OUTCOME, [ENDPOINT, c_uint32, POINTER(STRING), POINTER(ReadInfo)]),
    "mjb_snapshot_info": (OUTCOME, [ENDPOINT, c_uint32, POINTER(STRING), POINTER(ReadInfo)]),
    # Restore points.
    "mjb_restore_point_capture": (OUTCOME, [ENDPOINT, c_uint32, POINTER(RESTORE_POINT)]),
    "mjb_restore_point_apply": (OUTCOME, [ENDPOINT, RESTORE_POINT, c_uint32, POINTER(Report)]),
    "mjb_restore_point_apply_if": (
        OUTCOME,
        [ENDPOINT, POINTER(Expect), RESTORE_POINT, c_uint32, POINTER(Report)],
    ),
    "mjb_restore_point_to_json": (OUTCOME, [RESTORE_POINT, POINTER(STRING)]),
    "mjb_restore_point_from_json": (
        OUTCOME,
        [ENDPOINT, c_char_p, c_size_t, POINTER(RESTORE_POINT)],
    ),
    "mjb_restore_point_info": (OUTCOME, [RESTORE_POINT, POINTER(ReadInfo)]),
    "mjb_restore_point_free": (OUTCOME, [RESTORE_POINT]),
}

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
