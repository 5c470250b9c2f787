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
from ._native import FrameInfo, FrameRequest, Input, JointAdr, ModelDims, Report, SafetyState

try:  # optional
    import numpy as _np
except ImportError:  # pragma: no cover - exercised by the no-numpy test
    _np = None

__all__ = [
    "Endpoint",
    "Field",
    "FrameCause",
    "FrameInfo",
    "FrameRequest",
    "Input",
    "JointAdr",
    "LogLevel",
    "MjbError",
    "ModelDims",
    "ObjectKind",
    "Outcome",
    "Reason",
    "Report",
    "SafetyState",
    "build_info",
    "field_name",
    "last_error",
    "library",
    "plugin_load",
    "plugin_load_dir",
    "set_log_callback",
    "version",
    "WAIT_FOREVER",
]

# The header's #defines.
VERSION = "0.3.0"
VERSION_MAJOR = 0
VERSION_MINOR = 3
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
    STATE_HASH = 40
    UNKNOWN_NAME = 41
    UNSUPPORTED = 42
    PLUGIN_LOAD = 43
    NOT_IN_FRAME = 44


class Field(IntEnum):
    """mjb_field: an mjData array a frame carries or a typed input writes."""

    QPOS = 0
    QVEL = 1
    ACT = 2
    CTRL = 3
    QACC = 4
    SENSORDATA = 5
    XPOS = 6
    XQUAT = 7
    XMAT = 8
    SITE_XPOS = 9
    SITE_XMAT = 10
    GEOM_XPOS = 11
    GEOM_XMAT = 12
    MOCAP_POS = 13
    MOCAP_QUAT = 14
    QFRC_APPLIED = 15
    XFRC_APPLIED = 16
    EQ_ACTIVE = 17
    ACTUATOR_FORCE = 18
    USERDATA = 19


class ObjectKind(IntEnum):
    """mjb_object_kind: object kinds of the name API (MOCAP ids are mocap indices)."""

    BODY = 0
    JOINT = 1
    GEOM = 2
    SITE = 3
    ACTUATOR = 4
    SENSOR = 5
    EQUALITY = 6
    MOCAP = 7


class FrameCause(IntEnum):
    """mjb_frame_cause: why a frame was published."""

    OPEN = 0
    STEP = 1
    RESTORE = 2
    INPUT = 3
    REPLACE = 4
    ROLLBACK = 5


class LogLevel(IntEnum):
    """mjb_log_level: severity of a log message (MuJoCo's mjtLogLevel values)."""

    DEBUG = 0
    INFO = 1
    WARNING = 2
    ERROR = 3


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


def field_name(field):
    """The name of a field (``"qpos"``, ...)."""
    return library().mjb_field_name(int(field)).decode("utf-8")


def plugin_load(path):
    """Load a MuJoCo plugin library; returns how many plugins it registered."""
    n = ctypes.c_size_t(0)
    o = library().mjb_plugin_load(str(path).encode("utf-8"), ctypes.byref(n))
    if o != Outcome.OK:
        raise _refusal(o)
    return n.value


def plugin_load_dir(folder):
    """Load every plugin library of a folder; returns (libraries, plugins)."""
    libs, n = ctypes.c_size_t(0), ctypes.c_size_t(0)
    o = library().mjb_plugin_load_dir(
        str(folder).encode("utf-8"), ctypes.byref(libs), ctypes.byref(n)
    )
    if o != Outcome.OK:
        raise _refusal(o)
    return libs.value, n.value


_log_keep = None  # the CFUNCTYPE object the library may call, kept alive


def set_log_callback(fn, min_level=LogLevel.WARNING):
    """Route MuJoCo's warnings inside the bridge's calls and the bridge's events to
    ``fn(level, message)`` (None removes it); called on the thread whose call produced them,
    when that call returns, outside every lock."""
    global _log_keep
    if fn is None:
        cb = ctypes.cast(None, _native.LOG_FN)
    else:

        def trampoline(_user, level, message):
            fn(_enum(LogLevel, level), message.decode("utf-8", "replace"))

        cb = _native.LOG_FN(trampoline)
    o = library().mjb_set_log_callback(cb, None, int(min_level))
    if o != Outcome.OK:
        raise _refusal(o)
    # The library no longer calls the previous callback: it may go.
    _log_keep = cb if fn is not None else None


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

    # Model facts and names: no lock.
    def dims(self):
        d = ModelDims()
        o = self._lib.mjb_dims(self._ep, ctypes.byref(d))
        if o != Outcome.OK:
            raise _refusal(o)
        return d

    def name_to_id(self, kind, name):
        """mj_name2id for an ObjectKind; None when no object of that kind has the name."""
        i = ctypes.c_int32(-1)
        o = self._lib.mjb_name_to_id(self._ep, int(kind), name.encode("utf-8"), ctypes.byref(i))
        if o == Outcome.REJECTED and last_error().get("reason") == "MJB_REASON_UNKNOWN_NAME":
            return None
        if o != Outcome.OK:
            raise _refusal(o)
        return i.value

    def id_to_name(self, kind, id):
        """mj_id2name for an ObjectKind ("" for an unnamed object)."""
        needed = ctypes.c_size_t(0)
        self._lib.mjb_id_to_name(self._ep, int(kind), id, None, 0, ctypes.byref(needed))
        buf = ctypes.create_string_buffer(max(needed.value, 1))
        o = self._lib.mjb_id_to_name(
            self._ep, int(kind), id, buf, len(buf), ctypes.byref(needed)
        )
        if o != Outcome.OK:
            raise _refusal(o)
        return buf.value.decode("utf-8")

    def sensor_slice(self, sensor):
        """(address, dimension) of a sensor in sensordata."""
        adr, dim = ctypes.c_size_t(0), ctypes.c_size_t(0)
        o = self._lib.mjb_sensor_slice(self._ep, sensor, ctypes.byref(adr), ctypes.byref(dim))
        if o != Outcome.OK:
            raise _refusal(o)
        return adr.value, dim.value

    def joint_slice(self, joint):
        a = JointAdr()
        o = self._lib.mjb_joint_slice(self._ep, joint, ctypes.byref(a))
        if o != Outcome.OK:
            raise _refusal(o)
        return a

    # Frames: no lock, never torn.
    def frame_field_len(self, field):
        n = ctypes.c_size_t(0)
        o = self._lib.mjb_frame_field_len(self._ep, int(field), ctypes.byref(n))
        if o != Outcome.OK:
            raise _refusal(o)
        return n.value

    def frame(self, fields):
        """Several fields of the latest frame, all of one tick: ({Field: list of floats}, FrameInfo).
        (numpy arrays when numpy is installed)."""
        fields = [Field(f) for f in fields]
        bufs = [(ctypes.c_double * self.frame_field_len(f))() for f in fields]
        reqs = (FrameRequest * max(len(fields), 1))()
        for r, f, b in zip(reqs, fields, bufs):
            r.field = int(f)
            r.buf = ctypes.cast(b, ctypes.POINTER(ctypes.c_double))
            r.cap = len(b)
        info = FrameInfo()
        o = self._lib.mjb_frame_read_many(self._ep, reqs, len(fields), ctypes.byref(info))
        if o != Outcome.OK:
            raise _refusal(o)
        out = {}
        for f, b in zip(fields, bufs):
            out[f] = _np.frombuffer(b, dtype=_np.float64).copy() if _np is not None else list(b)
        return out, info

    # Typed inputs.
    def input(self, field, values, id=-1, timeout_ms=WAIT_FOREVER):
        """Write an input field whole (``id`` -1) or one object's slice."""
        ptr, n, keep = _doubles(values)
        report = self._mutate(self._lib.mjb_input_write, int(field), id, ptr, n, timeout_ms)
        del keep
        return report

    def write_step(self, inputs, nstep=1, timeout_ms=WAIT_FOREVER):
        """Write inputs (``[(field, id, values), ...]``), then step ``nstep`` times, under one
        admission."""
        arr = (Input * max(len(inputs), 1))()
        keep = []
        for slot, (field, id, values) in zip(arr, inputs):
            ptr, n, k = _doubles(values)
            keep.append(k)
            slot.field, slot.id, slot.values, slot.n = int(field), id, ptr, n
        report = self._mutate(self._lib.mjb_write_step, arr, len(inputs), nstep, timeout_ms)
        del keep
        return report

    def confirm_paused(self):
        o = self._lib.mjb_confirm_paused(self._ep)
        if o != Outcome.OK:
            raise _refusal(o)

    def safety_reset(self):
        o = self._lib.mjb_safety_reset(self._ep)
        if o != Outcome.OK:
            raise _refusal(o)
