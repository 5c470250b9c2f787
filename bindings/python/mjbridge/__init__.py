"""mjbridge: checkpoint and restore a MuJoCo simulation through the mjbridge C library.

    import mjbridge
    with mjbridge.Endpoint.open({"model": {"xml_path": "robot.xml"}, "seed": 1}) as ep:
        ep.step(100)
        checkpoint = ep.checkpoint()
        ep.step(50)
        ep.restore(checkpoint)

Conventions:
- Every refusal raises MjbError, carrying the outcome, the reason, the JSON pointer of the
  offending field and the message (mjb_last_error), plus the call's Report for mutations.
  A step halted by a stop latched meanwhile is not a refusal: it returns its Report with
  ``reason == Reason.STOP_LATCHED``.
- Documents go in as str, bytes (UTF-8) or a dict (serialised with json.dumps); they come out
  as str. Library-owned strings are copied and freed at once.
- Arrays go in as any sequence of floats or a numpy array (used without a copy when it is
  contiguous float64).
- Threads: ctypes releases the GIL during each call, so ``stop()`` from another thread takes
  effect while ``step()`` runs. Any method from any thread.
"""

import ctypes
import json
import threading
from enum import IntEnum

from . import _native
from ._native import Report, SafetyState

try:  # optional
    import numpy as _np
except ImportError:  # pragma: no cover - exercised by the no-numpy test
    _np = None

__all__ = [
    "Endpoint",
    "MjbError",
    "Outcome",
    "Reason",
    "Report",
    "SafetyState",
    "build_info",
    "last_error",
    "library",
    "version",
    "WAIT_FOREVER",
]

# The header's #defines.
VERSION = "0.2.0"
VERSION_MAJOR = 0
VERSION_MINOR = 2
VERSION_PATCH = 0
WAIT_FOREVER = 4294967295
MAX_CHECKPOINT_VALUES = 32768
MAX_DOCUMENT_BYTES = 1048576


class Outcome(IntEnum):
    """mjb_outcome: what happened to the endpoint's native state. Never renumbered."""

    OK = 0
    REJECTED = 1
    ROLLED_BACK = 2
    UNKNOWN = 3
    FENCED = 4
    INVALID_ARGUMENT = 5
    PANIC = 6


class Reason(IntEnum):
    """mjb_reason: the cause inside an outcome. Never renumbered."""

    NONE = 0
    MALFORMED_JSON = 1
    TOO_LARGE = 2
    TOO_MANY_VALUES = 3
    UNKNOWN_FIELD = 4
    MISSING_FIELD = 5
    DUPLICATE_FIELD = 6
    WRONG_TYPE = 7
    NOT_AN_INTEGER = 8
    NOT_FINITE = 9
    OUT_OF_RANGE = 10
    PROFILE = 11
    ENGINE = 12
    DESCRIPTOR = 13
    CONFIGURATION = 14
    SIGNATURE = 15
    SIZE = 16
    EQ_ACTIVE_DOMAIN = 17
    PUBLIC_FIELD_MISMATCH = 18
    SEED = 19
    READ_ONLY_FIELD = 20
    BUSY = 21
    STOP_LATCHED = 22
    UNRESOLVED_NATIVE_WORK = 23
    NOT_STOPPED = 24
    SETTER_FAILED = 25
    SETTER_UNEXPECTED_COMPLETION = 26
    VERIFICATION_MISMATCH = 27
    ROLLBACK_UNPROVEN = 28
    ENGINE_ERROR = 29
    CLOSED = 30
    NULL_ARGUMENT = 31
    INVALID_UTF8 = 32
    FOREIGN_HANDLE = 33
    MODEL_LOAD = 34
    DIMENSION = 35
    ENGINE_RESET = 36
    PANIC = 37
    STATE_DOMAIN = 38
    TICK_OVERFLOW = 39


def _enum(cls, value):
    """Values coming back from C are integers: unknown ones stay integers."""
    try:
        return cls(value)
    except ValueError:
        return value


_lib = None
_lib_lock = threading.Lock()


def library(path=None):
    """The loaded ctypes library (loaded on first use; ``path`` picks the file)."""
    global _lib
    with _lib_lock:
        if _lib is None or path is not None:
            _lib = _native.load(path)
        return _lib


class MjbError(Exception):
    """A refusal: ``outcome``, ``reason``, ``pointer`` (RFC 6901, or None), ``message``, and
    ``report`` (the mutation's Report, or None)."""

    def __init__(self, outcome, reason, pointer, message, report=None):
        self.outcome = _enum(Outcome, outcome)
        self.reason = _enum(Reason, reason)
        self.pointer = pointer
        self.message = message
        self.report = report
        where = " at %s" % pointer if pointer is not None else ""
        super().__init__("%s: %s%s: %s" % (_name(self.outcome), _name(self.reason), where, message))


def _name(v):
    return v.name if isinstance(v, IntEnum) else str(v)


def last_error():
    """This thread's last refusal as a dict ({} after a success)."""
    lib = library()
    needed = ctypes.c_size_t(0)
    lib.mjb_last_error(None, 0, ctypes.byref(needed))
    buf = ctypes.create_string_buffer(needed.value)
    if needed.value == 0 or lib.mjb_last_error(buf, needed.value, ctypes.byref(needed)) != 0:
        return {}
    return json.loads(buf.raw[: needed.value - 1].decode("utf-8"))


def _refusal(outcome, report=None):
    """An MjbError for the call that just returned ``outcome`` on this thread: the reason from
    the report when there is one, else from mjb_last_error; pointer and message from the latter."""
    detail = last_error()
    if report is not None:
        reason = report.reason
    else:
        reason = _reason_from_name(detail.get("reason") or "")
    return MjbError(outcome, reason, detail.get("pointer"), detail.get("message", ""), report)


def _reason_from_name(name):
    """The value the library names ``name``; a newer library may name a value this module does
    not list yet, which then stays an integer."""
    key = name[len("MJB_REASON_") :] if name.startswith("MJB_REASON_") else ""
    if key in Reason.__members__:
        return Reason[key]
    for i in range(1024):
        if reason_name(i) == name:
            return i
    return Reason.NONE


def _take(s):
    """Copy a library-owned mjb_string into a str and free it."""
    lib = library()
    try:
        return ctypes.string_at(lib.mjb_string_data(s), lib.mjb_string_len(s)).decode("utf-8")
    finally:
        lib.mjb_string_free(s)


def _utf8(doc):
    if isinstance(doc, (bytes, bytearray, memoryview)):
        return bytes(doc)
    if isinstance(doc, str):
        return doc.encode("utf-8")
    if isinstance(doc, dict):
        return json.dumps(doc).encode("utf-8")
    raise TypeError("a document is str, bytes or dict, not %s" % type(doc).__name__)


def _doubles(values):
    """A C double array for ``values`` (a numpy array is used without a copy when it can be),
    and the object that keeps its memory alive."""
    if _np is not None and isinstance(values, _np.ndarray):
        arr = _np.ascontiguousarray(values, dtype=_np.float64)
        return arr.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), arr.size, arr
    seq = [float(v) for v in values]
    arr = (ctypes.c_double * len(seq))(*seq)
    return ctypes.cast(arr, ctypes.POINTER(ctypes.c_double)), len(seq), arr


def version():
    """The library's version (``mjb_version``)."""
    return library().mjb_version().decode("utf-8")


def build_info():
    """The MuJoCo the library was built against and runs with, as a dict."""
    s = ctypes.c_void_p()
    o = library().mjb_build_info(ctypes.byref(s))
    if o != Outcome.OK:
        raise _refusal(o)
    return json.loads(_take(s))


def outcome_name(outcome):
    return library().mjb_outcome_name(int(outcome)).decode("utf-8")


def reason_name(reason):
    return library().mjb_reason_name(int(reason)).decode("utf-8")


class Endpoint:
    """One MuJoCo model/data pair owned by the bridge. A context manager: leaving the ``with``
    block closes it (as does ``close()``); a closed endpoint refuses every call with
    ``Reason.CLOSED``."""

    def __init__(self, config):
        """Load a model per ``config`` (str, bytes or dict; see mjb_endpoint_open)."""
        lib = library()
        cfg = _utf8(config)
        ep = ctypes.c_void_p()
        o = lib.mjb_endpoint_open(cfg, len(cfg), ctypes.byref(ep))
        if o != Outcome.OK:
            raise _refusal(o)
        self._lib = lib
        self._ep = ep
        self._closed = False

    @classmethod
    def open(cls, config):
        return cls(config)

    @classmethod
    def adopt(cls, model, data, config):
        """Take ownership of a host's ``mjModel*``/``mjData*`` (integers or ctypes pointers);
        on a refusal the host still owns them."""
        lib = library()
        cfg = _utf8(config)
        ep = ctypes.c_void_p()
        o = lib.mjb_endpoint_adopt(model, data, cfg, len(cfg), ctypes.byref(ep))
        if o != Outcome.OK:
            raise _refusal(o)
        self = cls.__new__(cls)
        self._lib, self._ep, self._closed = lib, ep, False
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        if getattr(self, "_closed", True) is False:
            self.close()

    @property
    def handle(self):
        """The C handle (an integer), for calls through ``library()``."""
        return self._ep.value

    @property
    def closed(self):
        return self._closed

    def close(self):
        """Close the endpoint. Safe while another thread is inside a call (that call finishes
        first) and safe to repeat."""
        if not self._closed:
            self._closed = True
            self._lib.mjb_endpoint_free(self._ep)

    # Mutations: a Report on success; MjbError (with the report) otherwise.
    def _mutate(self, fn, *args):
        report = Report()
        o = fn(self._ep, *args, ctypes.byref(report))
        if o != Outcome.OK:
            raise _refusal(o, report)
        return report

    def step(self, nstep=1, timeout_ms=WAIT_FOREVER):
        """Step ``nstep`` times. A stop latched meanwhile halts at a step boundary and returns
        the report with ``reason == Reason.STOP_LATCHED``; ``tick_after`` shows the steps done."""
        return self._mutate(self._lib.mjb_step, nstep, timeout_ms)

    def set_ctrl(self, ctrl, timeout_ms=WAIT_FOREVER):
        ptr, n, keep = _doubles(ctrl)
        report = self._mutate(self._lib.mjb_set_ctrl, ptr, n, timeout_ms)
        del keep
        return report

    def world_write(self, doc, timeout_ms=WAIT_FOREVER):
        b = _utf8(doc)
        return self._mutate(self._lib.mjb_world_write, b, len(b), timeout_ms)

    def restore(self, doc, timeout_ms=WAIT_FOREVER):
        """Restore a checkpoint document (or a snapshot's world document) and its tick."""
        b = _utf8(doc)
        return self._mutate(self._lib.mjb_restore, b, len(b), timeout_ms)

    def replace_model(self, config, timeout_ms=WAIT_FOREVER):
        b = _utf8(config)
        return self._mutate(self._lib.mjb_endpoint_replace_model, b, len(b), timeout_ms)

    # Documents.
    def _read(self, fn, timeout_ms):
        s = ctypes.c_void_p()
        o = fn(self._ep, timeout_ms, ctypes.byref(s))
        if o != Outcome.OK:
            raise _refusal(o)
        return _take(s)

    def world(self, timeout_ms=WAIT_FOREVER):
        return self._read(self._lib.mjb_world_read, timeout_ms)

    def snapshot(self, timeout_ms=WAIT_FOREVER):
        return self._read(self._lib.mjb_snapshot, timeout_ms)

    def checkpoint(self, timeout_ms=WAIT_FOREVER):
        return self._read(self._lib.mjb_checkpoint_read, timeout_ms)

    # Safety: none of these waits for the native lock.
    def stop(self):
        """Latch a stop now, from any thread; returns the SafetyState right after latching."""
        s = SafetyState()
        o = self._lib.mjb_stop(self._ep, ctypes.byref(s))
        if o != Outcome.OK:
            raise _refusal(o)
        return s

    def safety(self):
        s = SafetyState()
        o = self._lib.mjb_safety_read(self._ep, ctypes.byref(s))
        if o != Outcome.OK:
            raise _refusal(o)
        return s

    def confirm_paused(self):
        o = self._lib.mjb_confirm_paused(self._ep)
        if o != Outcome.OK:
            raise _refusal(o)

    def safety_reset(self):
        o = self._lib.mjb_safety_reset(self._ep)
        if o != Outcome.OK:
            raise _refusal(o)
