"""mjbridge: checkpoint and restore a MuJoCo simulation through the mjbridge C library.

    import mjbridge
    cfg = mjbridge.Config(pathlib.Path("robot.xml"), seed=1)
    with mjbridge.Endpoint.open(cfg) as ep:
        ep.step(100)
        checkpoint = ep.checkpoint()
        ep.step(50)
        ep.restore(checkpoint)

An RL loop at engine speed: one call per env step, into arrays made once.

    stepper = ep.stepper(read=[Field.QPOS, Field.QVEL, Field.SENSORDATA], nstep=5)
    stepper.step(action)              # ctrl written, 5 steps, frame copied: one FFI call
    qpos = stepper.values[Field.QPOS]  # the same numpy array every step, refreshed in place

A planner's rollouts from one restore point (no JSON), and a controller's compare-and-step:

    start = ep.capture()              # a RestorePoint: immutable, apply it from any thread
    for plan in candidates:
        ep.apply(start)
        ...
    seen = stepper.step(action)       # a FrameInfo value: it keeps this step's numbers
    info = stepper.step(action, expect_frame=seen.frame)  # refused (Reason.PRECONDITION) if
                                                          # another call moved the endpoint on

Conventions:
- Every refusal raises MjbError, carrying the outcome, the reason, the JSON pointer of the
  offending field and the message (mjb_last_error), plus the call's Report for mutations.
  A step halted by a stop latched meanwhile is not a refusal: it returns its Report with
  ``reason == Reason.STOP_LATCHED``.
- Documents go in as str, bytes (UTF-8), a dict (serialised with json.dumps; paths may be
  ``os.PathLike``) or a Config; they come out as a Document: a str with the ``tick`` and
  ``configuration`` it was read at. Library-owned strings are copied and freed at once.
- Where a config goes (``Endpoint.open``, ``adopt``, ``replace_model``), a str is a JSON
  document when its first character other than whitespace is ``{`` and the path of an MJCF
  file otherwise (``Endpoint.open("robot.xml")``); an ``os.PathLike`` is a path, bytes are a
  document.
- Reads return values: a FrameInfo (``Stepper.step``, ``FrameReader.read``, ``frame``,
  ``Stepper.restore``/``apply``) is an immutable copy of that call's numbers, so one kept
  for a later precondition still says where the endpoint was.
- Every mutation takes keyword-only ``expect_tick=``, ``expect_configuration=`` and
  ``expect_frame=`` (a frame's ``info.frame``, a Document's ``frame``: the last frame number,
  which every change of the native state advances, so it also catches a restore to the same
  tick), or ``expect=``, an Expect made once (``precondition(...)``); one helper,
  ``_precondition``, reads them for every mutation. When the endpoint is no longer there, the
  call raises MjbError with ``Reason.PRECONDITION`` and nothing is done.
- Arrays go in as any sequence of floats or a numpy array (``write_step`` copies them into
  buffers it keeps; the other calls use a contiguous float64 array without a copy).
- Threads: ctypes releases the GIL during each call, so ``stop()`` from another thread takes
  effect while ``step()`` runs. Any method from any thread; a Stepper or FrameReader owns
  its buffers, so use one per thread.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import queue
import threading
import weakref
from enum import IntEnum
import typing
from typing import (

    Any,
    Callable,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Type,
    TypeVar,
    Union,
)

from . import _native
from ._native import (
    Expect,
    FrameRequest,
    HistoryState,
    Input,
    JointAdr,
    ModelDims,
    ReadInfo,
    Report,
    SafetyState,
)

_np: Any
try:  # optional: arrays come back as numpy arrays when it is importable
    import numpy

    _np = numpy
except ImportError:  # pragma: no cover - exercised by the no-numpy test
    _np = None

if typing.TYPE_CHECKING:
    DoubleArray = ctypes.Array[ctypes.c_double]

__all__ = [
    "Config",
    "Document",
    "Endpoint",
    "Expect",
    "Field",
    "FrameCause",
    "FrameInfo",
    "FrameReader",
    "FrameRequest",
    "HistoryState",
    "Input",
    "JointAdr",
    "LogLevel",
    "MjbError",
    "ModelDims",
    "ModelIndex",
    "ObjectKind",
    "Outcome",
    "ReadInfo",
    "Reason",
    "Report",
    "RestorePoint",
    "SafetyState",
    "Stepper",
    "build_info",
    "bundled_plugin_dir",
    "field_name",
    "last_error",
    "library",
    "outcome_name",
    "plugin_load",
    "precondition",
    "plugin_load_dir",
    "reason_name",
    "set_log_callback",
    "version",
    "EXPECT_CONFIGURATION",
    "EXPECT_FRAME",
    "EXPECT_TICK",
    "WAIT_FOREVER",
]

# The header's #defines and enums, generated from it (_native_gen.py).
from ._native_gen import (
    EXPECT_CONFIGURATION as EXPECT_CONFIGURATION,
    EXPECT_FRAME as EXPECT_FRAME,
    EXPECT_TICK as EXPECT_TICK,
    MAX_CHECKPOINT_VALUES as MAX_CHECKPOINT_VALUES,
    MAX_DOCUMENT_BYTES as MAX_DOCUMENT_BYTES,
    MAX_WINDOW_KEYFRAMES as MAX_WINDOW_KEYFRAMES,
    MAX_WINDOW_TICKS as MAX_WINDOW_TICKS,
    VERSION as VERSION,
    VERSION_MAJOR as VERSION_MAJOR,
    VERSION_MINOR as VERSION_MINOR,
    VERSION_PATCH as VERSION_PATCH,
    WAIT_FOREVER as WAIT_FOREVER,
    Field as Field,
    FrameCause as FrameCause,
    LogLevel as LogLevel,
    ObjectKind as ObjectKind,
    Outcome as Outcome,
    Reason as Reason,
)

_E = TypeVar("_E", bound=IntEnum)


def _enum(cls: Type[_E], value: int) -> Union[_E, int]:
    """Values coming back from C are integers: unknown ones stay integers."""
    try:
        return cls(value)
    except ValueError:
        return value


_FRAME_INFO_FIELDS = tuple(f[0] for f in _native.FrameInfo._fields_)


class FrameInfo(_native.FrameInfo):
    """What a frame read returns beside the values (mjb_frame_info), as a value: the one a
    call returns is a copy of that call's numbers, never written again, so a result kept as
    ``seen`` still says where the endpoint was after other calls (``expect_frame=seen.frame``
    is then refused with Reason.PRECONDITION, as it should be). Immutable: assigning a field
    raises AttributeError. Compares and hashes by its fields; ``_asdict()`` gives them.

    ``tick`` and ``time`` of the frame; ``configuration``: the model configuration;
    ``frame``: its number (every change of the native state publishes a new one);
    ``cause``: a FrameCause value (``FrameCause(info.cause)``); ``fields`` and ``stale``: bit
    masks of the fields it carries and of those not recomputed since the last step;
    ``retries``: how many times the read began again because a writer published meanwhile.

    (A ctypes structure with the C layout, copied out of the buffer the call wrote in one
    step: cheaper than building a tuple of eight Python numbers on every env step, and the
    fields are read only when asked for.)"""

    __slots__ = ()
    tick: int
    time: float
    configuration: int
    frame: int
    cause: int
    fields: int
    stale: int
    retries: int

    def __init__(self, *values: Any, **fields: Any) -> None:
        """A FrameInfo of given numbers, by position or name (unset ones 0), e.g. for a test;
        the reads make theirs from the C struct."""
        super().__init__()
        if len(values) > len(_FRAME_INFO_FIELDS):
            raise TypeError("a FrameInfo has %d fields" % len(_FRAME_INFO_FIELDS))
        for name, value in list(zip(_FRAME_INFO_FIELDS, values)) + list(fields.items()):
            if name not in _FRAME_INFO_FIELDS:
                raise TypeError("a FrameInfo has no field %r" % name)
            # The C field's own setter: the value is being made, not changed.
            getattr(_native.FrameInfo, name).__set__(self, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a FrameInfo is a value: its %s cannot be assigned" % name)

    def __delattr__(self, name: str) -> None:
        raise AttributeError("a FrameInfo is a value: its %s cannot be deleted" % name)

    def _asdict(self) -> Dict[str, Any]:
        return {name: getattr(self, name) for name in _FRAME_INFO_FIELDS}

    def _values(self) -> Tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _FRAME_INFO_FIELDS)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FrameInfo):
            return NotImplemented
        return self._values() == other._values()

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return "FrameInfo(%s)" % ", ".join("%s=%r" % kv for kv in self._asdict().items())


# A FrameInfo value from the buffer a call wrote: one copy of the C struct's bytes.
_frame_info_copy = FrameInfo.from_buffer_copy


def _frame_info_buffer() -> Tuple[_native.FrameInfo, memoryview]:
    """A C mjb_frame_info for a call to write, and the byte view FrameInfo values are copied
    from."""
    c = _native.FrameInfo()
    return c, memoryview(c).cast("B")


def _frame_info(view: memoryview) -> FrameInfo:
    """The FrameInfo value of the C struct behind ``view``."""
    return _frame_info_copy(view)


_lib: Optional[ctypes.CDLL] = None
_lib_lock = threading.Lock()


def library(path: Optional[str] = None) -> ctypes.CDLL:
    """The loaded ctypes library (loaded on first use; ``path`` picks the file)."""
    global _lib
    with _lib_lock:
        if _lib is None or path is not None:
            _lib = _native.load(path)
        return _lib


def bundled_plugin_dir() -> Optional[str]:
    """The folder of MuJoCo's engine plugins a wheel of this package carries (for
    ``plugin_load_dir``), or None when the package was installed without the library."""
    return _native.bundled_plugin_dir()


class MjbError(Exception):
    """A refusal: ``outcome``, ``reason``, ``pointer`` (RFC 6901, or None), ``message``, and
    ``report`` (the mutation's Report, or None)."""

    def __init__(
        self,
        outcome: int,
        reason: int,
        pointer: Optional[str],
        message: str,
        report: Optional[Report] = None,
    ) -> None:
        self.outcome: Union[Outcome, int] = _enum(Outcome, outcome)
        self.reason: Union[Reason, int] = _enum(Reason, reason)
        self.pointer = pointer
        self.message = message
        self.report = report
        where = " at %s" % pointer if pointer is not None else ""
        super().__init__("%s: %s%s: %s" % (_name(self.outcome), _name(self.reason), where, message))


def _name(v: Union[IntEnum, int]) -> str:
    return v.name if isinstance(v, IntEnum) else str(v)


def last_error() -> Dict[str, Any]:
    """This thread's last refusal as a dict ({} after a success)."""
    lib = library()
    needed = ctypes.c_size_t(0)
    lib.mjb_last_error(None, 0, ctypes.byref(needed))
    buf = ctypes.create_string_buffer(needed.value)
    if needed.value == 0 or lib.mjb_last_error(buf, needed.value, ctypes.byref(needed)) != 0:
        return {}
    detail: Dict[str, Any] = json.loads(buf.raw[: needed.value - 1].decode("utf-8"))
    return detail


# Handles the garbage collector finalizes are freed on a thread of their own. A finalizer runs
# on whichever thread the collector interrupts, which can be between a refused call and the
# binding's read of that thread's mjb_last_error; a free there would replace the refusal's
# detail (every mjb_ call, a free too, sets the calling thread's last error), and the refusal
# would reach the caller as Reason.NONE without its pointer. queue.SimpleQueue.put is safe in
# __del__; the frees run in order on the reaper, which the library allows (a handle may be
# freed from any thread). close() and ``with`` still free at once, on the caller's thread.
_FINALIZED: "queue.SimpleQueue[Tuple[Any, Any]]" = queue.SimpleQueue()
_REAPER_STARTED = threading.Lock()
_reaper: Optional[threading.Thread] = None


def _reap() -> None:
    while True:
        free, handle = _FINALIZED.get()
        free(handle)


def _start_reaper() -> None:
    """Start the reaper once (from a constructor, never from __del__)."""
    global _reaper
    if _reaper is None:
        with _REAPER_STARTED:
            if _reaper is None:
                _reaper = threading.Thread(target=_reap, name="mjbridge-finalizer", daemon=True)
                _reaper.start()


def _refusal(outcome: int, report: Optional[Report] = None) -> MjbError:
    """An MjbError for the call that just returned ``outcome`` on this thread: the reason from
    the report when there is one, else from mjb_last_error; pointer and message from the latter."""
    detail = last_error()
    reason: int
    if report is not None:
        reason = report.reason
    else:
        reason = _reason_from_name(detail.get("reason") or "")
    return MjbError(outcome, reason, detail.get("pointer"), detail.get("message", ""), report)


def _reason_from_name(name: str) -> Union[Reason, int]:
    """The value the library names ``name``; a newer library may name a value this module does
    not list yet, which then stays an integer."""
    key = name[len("MJB_REASON_") :] if name.startswith("MJB_REASON_") else ""
    if key in Reason.__members__:
        return Reason[key]
    for i in range(1024):
        if reason_name(i) == name:
            return i
    return Reason.NONE


def _take(s: ctypes.c_void_p) -> str:
    """Copy a library-owned mjb_string into a str and free it."""
    lib = library()
    try:
        return ctypes.string_at(lib.mjb_string_data(s), lib.mjb_string_len(s)).decode("utf-8")
    finally:
        lib.mjb_string_free(s)


class Document(str):
    """A document the bridge served (``world()``, ``snapshot()``, ``checkpoint()``,
    ``RestorePoint.to_json()``): the JSON text itself (a ``str``: compare it, parse it, pass it
    to ``restore``), and where the endpoint was when it was read: ``tick``,
    ``configuration`` (the model configuration) and ``frame`` (the endpoint's last frame
    number; 0 for a restore point's document), for a mutation conditional on them
    (``expect_frame=doc.frame``) without parsing. ``text`` is the plain ``str``."""

    tick: int
    configuration: int
    frame: int

    def __new__(
        cls, text: str, tick: int = 0, configuration: int = 0, frame: int = 0
    ) -> "Document":
        doc = super().__new__(cls, text)
        doc.tick = tick
        doc.configuration = configuration
        doc.frame = frame
        return doc

    @property
    def text(self) -> str:
        return str.__str__(self)

    def __repr__(self) -> str:
        text = self.text if len(self) <= 64 else self.text[:60] + "..."
        return "Document(tick=%d, configuration=%d, %r)" % (self.tick, self.configuration, text)


def _take_document(s: ctypes.c_void_p, info: ReadInfo) -> Document:
    """A library-owned mjb_string as a Document with ``info``, freed at once."""
    lib = library()
    try:
        raw = ctypes.string_at(lib.mjb_string_data(s), lib.mjb_string_len(s))
    finally:
        lib.mjb_string_free(s)
    doc = str.__new__(Document, raw, "utf-8")
    doc.tick = info.tick
    doc.configuration = info.configuration
    doc.frame = info.frame
    return doc


_SEEN = ("expect_tick", "expect_configuration", "expect_frame")


def precondition(
    tick: Optional[int] = None,
    configuration: Optional[int] = None,
    frame: Optional[int] = None,
    seen: Optional[Union["FrameInfo", ReadInfo, "Document"]] = None,
) -> Expect:
    """An Expect (mjb_expect) for a mutation's ``expect=``: the tick, model configuration and
    last frame number the caller saw, or all three of ``seen`` (a FrameInfo, a ReadInfo or a
    Document; a restore point's frame number 0 is not checked). Build it once, pass it to
    many calls: ``ep.write_step(inputs, expect=precondition(seen=info))``."""
    e = Expect()
    if seen is not None:
        _set_expect(e, seen.tick, seen.configuration, seen.frame or None)
    _set_expect(e, tick, configuration, frame)
    return e


def _precondition(expect: Optional[Expect], seen: Mapping[str, Optional[int]]) -> Optional[Expect]:
    """The one parser of every mutation's precondition: ``expect=`` (an Expect) and/or the
    keywords ``expect_tick``/``expect_configuration``/``expect_frame`` (``seen``); None when
    there is none (the plain export runs, else its ``_if`` twin)."""
    if not seen:
        return expect
    for k in seen:
        if k not in _SEEN:
            raise TypeError("unexpected keyword argument %r" % k)
    tick = seen.get("expect_tick")
    configuration = seen.get("expect_configuration")
    frame = seen.get("expect_frame")
    if tick is None and configuration is None and frame is None:
        return expect
    e = Expect()
    if expect is not None:
        ctypes.pointer(e)[0] = expect
    _set_expect(e, tick, configuration, frame)
    return e


def _set_expect(
    e: Expect, tick: Optional[int], configuration: Optional[int], frame: Optional[int]
) -> None:
    """Add the given members (and their flags) to ``e``."""
    flags = e.flags
    if tick is not None:
        if tick < 0:
            raise ValueError("expect_tick is a tick, not %d" % tick)
        flags |= EXPECT_TICK
        e.tick = tick
    if configuration is not None:
        if configuration < 0:
            raise ValueError("expect_configuration is a configuration, not %d" % configuration)
        flags |= EXPECT_CONFIGURATION
        e.configuration = configuration
    if frame is not None:
        if frame < 0:
            raise ValueError("expect_frame is a frame number, not %d" % frame)
        flags |= EXPECT_FRAME
        e.frame = frame
    e.flags = flags


def _json_default(value: Any) -> Any:
    """json.dumps hook: paths are strings (``pathlib.Path``, any ``os.PathLike``)."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError("%s is not JSON serialisable" % type(value).__name__)


def _dumps(doc: Any) -> bytes:
    # ensure_ascii=False keeps names in UTF-8 as given; allow_nan=False refuses what the bridge
    # would refuse anyway, with Python's own message.
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, default=_json_default).encode(
        "utf-8"
    )


# What a document may be given as (a Document is a str, so it is one).
DocumentLike = Union[str, bytes, bytearray, memoryview, Mapping[str, Any]]


def _utf8(doc: Union[DocumentLike, "Config"]) -> bytes:
    if isinstance(doc, bytes):
        return doc
    if isinstance(doc, (bytearray, memoryview)):
        return bytes(doc)
    if isinstance(doc, str):
        return doc.encode("utf-8")
    if isinstance(doc, Config):
        return doc.to_json().encode("utf-8")
    if isinstance(doc, Mapping):
        return _dumps(doc)
    raise TypeError("a document is str, bytes, dict or Config, not %s" % type(doc).__name__)


Doubles = Union[Sequence[float], Any]  # a sequence of floats or a numpy array


def _doubles(values: Doubles) -> Tuple[Any, int, Any]:
    """A C double array for ``values`` (a numpy array is used without a copy when it can be),
    its length, and the object that keeps its memory alive."""
    if _np is not None and isinstance(values, _np.ndarray):
        arr = _np.ascontiguousarray(values, dtype=_np.float64)
        return arr.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), int(arr.size), arr
    seq = [float(v) for v in values]
    carr = (ctypes.c_double * len(seq))(*seq)
    return ctypes.cast(carr, ctypes.POINTER(ctypes.c_double)), len(seq), carr


def version() -> str:
    """The library's version (``mjb_version``)."""
    v: bytes = library().mjb_version()
    return v.decode("utf-8")


def build_info() -> Dict[str, Any]:
    """The MuJoCo the library was built against and runs with, as a dict."""
    s = ctypes.c_void_p()
    o = library().mjb_build_info(ctypes.byref(s))
    if o != Outcome.OK:
        raise _refusal(o)
    info: Dict[str, Any] = json.loads(_take(s))
    return info


def field_name(field: int) -> str:
    """The name of a field (``"qpos"``, ...)."""
    n: bytes = library().mjb_field_name(int(field))
    return n.decode("utf-8")


def _path_bytes(path: Union[str, "os.PathLike[str]"]) -> bytes:
    return os.fsencode(path)


def plugin_load(path: Union[str, "os.PathLike[str]"]) -> int:
    """Load a MuJoCo plugin library; returns how many plugins it registered."""
    n = ctypes.c_size_t(0)
    o = library().mjb_plugin_load(_path_bytes(path), ctypes.byref(n))
    if o != Outcome.OK:
        raise _refusal(o)
    return n.value


def plugin_load_dir(folder: Union[str, "os.PathLike[str]"]) -> Tuple[int, int]:
    """Load every plugin library of a folder; returns (libraries, plugins)."""
    libs, n = ctypes.c_size_t(0), ctypes.c_size_t(0)
    o = library().mjb_plugin_load_dir(_path_bytes(folder), ctypes.byref(libs), ctypes.byref(n))
    if o != Outcome.OK:
        raise _refusal(o)
    return libs.value, n.value


_log_keep: Any = None  # the CFUNCTYPE object the library may call, kept alive


def set_log_callback(
    fn: Optional[Callable[[Union[LogLevel, int], str], None]],
    min_level: int = LogLevel.WARNING,
) -> None:
    """Route MuJoCo's warnings inside the bridge's calls and the bridge's events to
    ``fn(level, message)`` (None removes it); called on the thread whose call produced them,
    when that call returns, outside every lock."""
    global _log_keep
    if fn is None:
        cb = _native.LOG_FN()  # NULL: no callback
    else:
        user = fn

        def trampoline(_user: Any, level: int, message: bytes) -> None:
            user(_enum(LogLevel, level), message.decode("utf-8", "replace"))

        cb = _native.LOG_FN(trampoline)
    o = library().mjb_set_log_callback(cb, None, int(min_level))
    if o != Outcome.OK:
        raise _refusal(o)
    # The library no longer calls the previous callback: it may go.
    _log_keep = cb if fn is not None else None


def outcome_name(outcome: int) -> str:
    n: bytes = library().mjb_outcome_name(int(outcome))
    return n.decode("utf-8")


def reason_name(reason: int) -> str:
    n: bytes = library().mjb_reason_name(int(reason))
    return n.decode("utf-8")


# ---- configs --------------------------------------------------------------------------------

PathLike = Union[str, "os.PathLike[str]"]


class Config:
    """An endpoint config, built from typed values and serialised with the json module, so
    every string is escaped correctly (a Windows path ``C:\\Users\\...``, quotes, non-ASCII
    names). ``xml_path`` may be a ``pathlib.Path`` (any ``os.PathLike``) or a str.

        Config(pathlib.Path("robot.xml"), seed=1, frame=[Field.QPOS, Field.QVEL])
        Config(xml="<mujoco>...</mujoco>", name="arm", publish="end_of_call")

    Exactly one of ``xml_path`` and ``xml``. ``frame``: the fields frames carry (Field values
    or names); ``publish``: ``"every_step"`` or ``"end_of_call"``; ``fidelity``: a declaration
    object (see docs/command.md, "Packages"); ``history``: ``(window_ticks, keyframe_every)``
    (``rewind``, ``history_export``). Unset members are left out (the bridge's
    defaults apply).
    """

    def __init__(
        self,
        xml_path: Optional[PathLike] = None,
        *,
        xml: Optional[str] = None,
        name: Optional[str] = None,
        seed: Optional[int] = None,
        profile: Optional[str] = None,
        frame: Optional[Iterable[Union[int, str]]] = None,
        publish: Optional[str] = None,
        fidelity: Optional[Mapping[str, Any]] = None,
        history: Optional[Tuple[int, int]] = None,
    ) -> None:
        if (xml_path is None) == (xml is None):
            raise ValueError("a Config names exactly one model source: xml_path or xml")
        self.xml_path = None if xml_path is None else os.fspath(xml_path)
        self.xml = xml
        self.name = name
        self.seed = seed
        self.profile = profile
        self.frame: Optional[List[str]] = None
        if frame is not None:
            self.frame = [f if isinstance(f, str) else field_name_of(f) for f in frame]
        self.publish = publish
        self.fidelity = None if fidelity is None else dict(fidelity)
        self.history: Optional[Dict[str, int]] = None
        if history is not None:
            self.history = {"window_ticks": history[0], "keyframe_every": history[1]}

    def model(self) -> Dict[str, Any]:
        """``{"model": {...}}`` alone: what ``Endpoint.replace_model`` takes."""
        source = {"xml_path": self.xml_path} if self.xml_path is not None else {"xml": self.xml}
        return {"model": source}

    def to_dict(self) -> Dict[str, Any]:
        d = self.model()
        for key in ("name", "seed", "profile", "fidelity", "history"):
            value = getattr(self, key)
            if value is not None:
                d[key] = value
        if self.publish is not None:
            d["frame"] = {"publish": self.publish}
            if self.frame is not None:
                d["frame"]["fields"] = self.frame
        elif self.frame is not None:
            d["frame"] = self.frame
        return d

    def to_json(self) -> str:
        return _dumps(self.to_dict()).decode("utf-8")

    def __repr__(self) -> str:
        return "Config(%s)" % self.to_json()


def field_name_of(field: int) -> str:
    """A Field's config name without loading the library (``Field.QPOS`` -> ``"qpos"``)."""
    return Field(field).name.lower()


ConfigLike = Union[Config, DocumentLike, "os.PathLike[str]"]

_json_whitespace = " \t\n\r"


def _is_path(config: ConfigLike) -> bool:
    """Whether a config names a model file rather than being a document: an os.PathLike, or
    a str whose first character other than JSON whitespace is not ``{`` (a config document
    is a JSON object). bytes, dicts and Configs are never paths."""
    if isinstance(config, os.PathLike):
        return True
    return isinstance(config, str) and not config.lstrip(_json_whitespace).startswith("{")


def _config_bytes(config: ConfigLike) -> bytes:
    """A config as UTF-8 JSON; a path (see _is_path) stands for
    ``{"model": {"xml_path": path}}``."""
    if _is_path(config):
        return Config(typing.cast(PathLike, config)).to_json().encode("utf-8")
    return _utf8(typing.cast(Union[DocumentLike, Config], config))


def _replacement_bytes(config: ConfigLike) -> bytes:
    if _is_path(config):
        return _dumps(Config(typing.cast(PathLike, config)).model())
    if isinstance(config, Config):
        return _dumps(config.model())
    return _utf8(typing.cast(DocumentLike, config))


# ---- names ----------------------------------------------------------------------------------


class ModelIndex:
    """Where each named joint, actuator and sensor sits in qpos, qvel, ctrl and sensordata,
    read once from the endpoint (``Endpoint.index()``), so a joint-state publisher or a rig
    needs no table of its own:

        idx = ep.index()
        stepper.values[Field.QPOS][idx.qpos("hinge")]     # a slice of the frame's qpos
        ctrl[idx.ctrl("push")] = 0.5

    Each lookup returns a ``slice``; an unknown name raises KeyError. Unnamed objects are not
    listed. ``configuration`` is the model configuration it describes: after
    ``replace_model`` make a new index.
    """

    def __init__(self, ep: "Endpoint") -> None:
        d = ep.dims()
        self.configuration = d.configuration
        self.dims = d
        self._qpos: Dict[str, slice] = {}
        self._qvel: Dict[str, slice] = {}
        self._ctrl: Dict[str, slice] = {}
        self._sensor: Dict[str, slice] = {}
        self.joints: List[str] = []
        self.actuators: List[str] = []
        self.sensors: List[str] = []
        for j in range(d.njnt):
            name = ep.id_to_name(ObjectKind.JOINT, j)
            if name:
                a = ep.joint_slice(j)
                self.joints.append(name)
                self._qpos[name] = slice(a.qpos_adr, a.qpos_adr + a.qpos_len)
                self._qvel[name] = slice(a.dof_adr, a.dof_adr + a.dof_len)
        for u in range(d.nu):
            name = ep.id_to_name(ObjectKind.ACTUATOR, u)
            if name:
                self.actuators.append(name)
                self._ctrl[name] = slice(u, u + 1)
        for s in range(d.nsensor):
            name = ep.id_to_name(ObjectKind.SENSOR, s)
            if name:
                adr, dim = ep.sensor_slice(s)
                self.sensors.append(name)
                self._sensor[name] = slice(adr, adr + dim)

    @staticmethod
    def _find(table: Dict[str, slice], kind: str, name: str) -> slice:
        try:
            return table[name]
        except KeyError:
            raise KeyError("no %s is named %r" % (kind, name)) from None

    def qpos(self, joint: str) -> slice:
        """The joint's values in qpos (7 for a free joint, 4 for a ball joint, else 1)."""
        return self._find(self._qpos, "joint", joint)

    def qvel(self, joint: str) -> slice:
        """The joint's degrees of freedom in qvel (and every nv-sized field)."""
        return self._find(self._qvel, "joint", joint)

    def ctrl(self, actuator: str) -> slice:
        return self._find(self._ctrl, "actuator", actuator)

    def sensordata(self, sensor: str) -> slice:
        return self._find(self._sensor, "sensor", sensor)


# ---- frames and the inner loop --------------------------------------------------------------


class FrameReader:
    """Reads fields of the latest frame into buffers made once (``Endpoint.frame_reader``):
    no allocation, no length call and no copy per read. ``values[field]`` is the caller's
    array from ``out`` (a C-contiguous writable float64 numpy array, or a ctypes double
    array, at least the field's length), else a numpy array the reader made (without numpy: a
    ctypes array), refreshed in place by every ``read()``. ``read()`` returns a FrameInfo
    value of its own (``info`` is the one the last read returned). ``lengths[field]`` is the
    number of values a read writes (the field's length in the current model). One reader per
    thread.

    After ``replace_model`` the next read prepares the reader again: an array the reader made
    is made again at the new length (``values[field]`` is a new array), and the entries of a
    caller's array past the new length are set to NaN, so no value of the old model is left
    to be read as the new one's."""

    def __init__(
        self, ep: "Endpoint", fields: Sequence[int], out: Optional[Mapping[int, Any]] = None
    ) -> None:
        self._ep = ep
        self.fields: List[Field] = [Field(f) for f in fields]
        if len(self.fields) > 64:
            raise ValueError("at most 64 fields in one read")
        self.values: Dict[Field, Any] = {}
        self.lengths: Dict[Field, int] = {}
        self._keep: List[Any] = []
        # The fields whose array the reader made (made again at a new length after a
        # replacement); the others are the caller's.
        self._owned: List[bool] = []
        n = len(self.fields)
        self._requests = (FrameRequest * max(n, 1))()
        for i, (r, f) in enumerate(zip(self._requests, self.fields)):
            if out is not None and f in out:
                # The caller's array: checked once here, written in place by every read.
                ptr, cap, keep = _writable(out[f])
                self.values[f] = out[f]
                self._keep.append(keep)
                self._owned.append(False)
                r.field, r.buf, r.cap = int(f), ptr, cap
            else:
                self._keep.append(None)
                self._owned.append(True)
                self._make_buffer(i, ep.frame_field_len(f))
        # The C call writes _cinfo; each read returns a FrameInfo value copied from it.
        self._cinfo, self._info_view = _frame_info_buffer()
        self.info = _frame_info(self._info_view)
        self._n = ctypes.c_size_t(n)
        self._info_ref = ctypes.byref(self._cinfo)
        # The native reader (mjb_frame_reader_new: the requests checked once), made by the
        # first read() and again after a model replacement.
        self._prepared: Optional[ctypes.c_void_p] = None
        # A function object of its own without argtypes, called with arguments converted once
        # (see _arg): the call converts and allocates nothing for them.
        self._read_prepared = _raw(ep._lib, "mjb_frame_reader_read")

    def read(self) -> FrameInfo:
        """Copy the fields of the latest complete frame (one tick); no lock, never torn.
        Returns its FrameInfo (a value: later reads do not change it). The first read prepares
        a native reader over the buffers (``mjb_frame_reader_new``); later reads only copy
        (``mjb_frame_reader_read``). After ``replace_model`` it is prepared again, so a read
        answers as ``mjb_frame_read_many`` would: the new model's values, or a refusal when a
        buffer is now too short."""
        if self._prepared is None:
            self._prepare()
        o = self._read_prepared(self._prepared_arg, self._info_ref)
        if o:
            if o == Outcome.REJECTED and last_error().get("reason") == "MJB_REASON_CONFIGURATION":
                # Made for the model before a replacement: prepare again for the new one.
                self._release()
                self._resize()
                return self.read()
            raise _refusal(o)
        info = self.info = _frame_info_copy(self._info_view)
        return info

    def _make_buffer(self, i: int, n: int) -> None:
        """A reader-made array of ``n`` values for field ``i``, in its request."""
        f, r = self.fields[i], self._requests[i]
        buf = (ctypes.c_double * n)()
        self._keep[i] = buf
        self.values[f] = _np.frombuffer(buf, dtype=_np.float64) if _np is not None else buf
        r.field, r.buf, r.cap = int(f), ctypes.cast(buf, ctypes.POINTER(ctypes.c_double)), n

    def _resize(self) -> None:
        """After a replacement: the reader's own arrays made again at the new lengths (a field
        no longer in the frame keeps its array: the prepare refuses it)."""
        for i, f in enumerate(self.fields):
            if not self._owned[i]:
                continue
            n = ctypes.c_size_t()
            if self._ep._lib.mjb_frame_field_len(self._ep._ep, int(f), ctypes.byref(n)) != 0:
                continue
            if n.value != self._requests[i].cap:
                self._make_buffer(i, n.value)

    def _prepare(self) -> None:
        lib = self._ep._lib
        handle = ctypes.c_void_p()
        o = lib.mjb_frame_reader_new(
            self._ep._ep, self._requests, len(self.fields), ctypes.byref(handle)
        )
        if o:
            raise _refusal(o)
        self._prepared = handle
        self._prepared_arg = _arg(handle)
        for i, (r, f) in enumerate(zip(self._requests, self.fields)):
            self.lengths[f] = w = int(r.written)
            if not self._owned[i] and w < r.cap:
                # The caller's array is longer than the field: what lies past it is no value
                # of this model (it may be the last model's).
                _fill_nan(r.buf, w, int(r.cap))
        # Freed by _release, or with this object on the finalizer thread (see _FINALIZED); the
        # buffers it borrows live as long.
        _start_reaper()
        self._finalizer = weakref.finalize(
            self, _FINALIZED.put, (lib.mjb_frame_reader_free, handle.value)
        )

    def _release(self) -> None:
        if self._prepared is not None:
            if self._finalizer.detach() is not None:
                self._ep._lib.mjb_frame_reader_free(self._prepared)
            self._prepared = None


class Stepper(FrameReader):
    """One env step per FFI call (``Endpoint.stepper``): write ctrl (and any other whole input
    field) from buffers made once, step ``nstep`` times, and copy the frame's fields into
    ``values``, all in ``mjb_write_step_read``. Every argument of that call is built once.

        st = ep.stepper(read=[Field.QPOS, Field.QVEL, Field.SENSORDATA], nstep=5)
        st.step(action)                 # or: st.ctrl[:] = action; st.step()
        obs = st.values[Field.QPOS]

    ``inputs[field]`` (``ctrl`` for Field.CTRL) are the arrays the next step writes.
    ``step()`` returns the FrameInfo of its frame, a value that keeps that step's numbers
    (``info`` is the one the last call returned); ``report`` describes the last call (one
    object, rewritten by every call: copy it to keep it). A refusal
    raises MjbError with a copy of the report; a step halted by a stop returns normally with
    ``report.reason == Reason.STOP_LATCHED``. One stepper per thread. Its buffers are sized for
    the model it was made for: after ``replace_model`` make a new one (a size that no longer
    fits is refused by the library, never read or written out of bounds).

    The controller's compare-and-step, on the same fast path:

        seen = st.step(action)
        ...                                             # other calls may step meanwhile
        st.step(action, expect_frame=seen.frame)        # MjbError (Reason.PRECONDITION),
                                                        # nothing written, if moved on
    With a precondition the step is one ``mjb_write_step_read_if`` call (its arguments built
    once too): the precondition and the requests are checked before anything is written.
    """

    def __init__(
        self,
        ep: "Endpoint",
        read: Sequence[int] = (),
        inputs: Sequence[int] = (Field.CTRL,),
        nstep: int = 1,
        timeout_ms: int = WAIT_FOREVER,
        out: Optional[Mapping[int, Any]] = None,
    ) -> None:
        super().__init__(ep, read, out)
        d = ep.dims()
        widths = {
            Field.CTRL: d.nu,
            Field.QFRC_APPLIED: d.nv,
            Field.XFRC_APPLIED: 6 * d.nbody,
            Field.MOCAP_POS: 3 * d.nmocap,
            Field.MOCAP_QUAT: 4 * d.nmocap,
            Field.EQ_ACTIVE: d.neq,
        }
        self.input_fields: List[Field] = [Field(f) for f in inputs]
        if len(self.input_fields) > 64:
            raise ValueError("at most 64 inputs in one step")
        self.input_buffers: Dict[Field, DoubleArray] = {}
        self.inputs: Dict[Field, Any] = {}
        m = len(self.input_fields)
        self._inputs = (Input * max(m, 1))()
        for slot, f in zip(self._inputs, self.input_fields):
            if f not in widths:
                raise ValueError("%s is not an input field" % f.name)
            buf = (ctypes.c_double * widths[f])()
            self.input_buffers[f] = buf
            self.inputs[f] = _np.frombuffer(buf, dtype=_np.float64) if _np is not None else buf
            slot.field, slot.id = int(f), -1
            slot.values = ctypes.cast(buf, ctypes.POINTER(ctypes.c_double))
            slot.n = len(buf)
        if Field.CTRL in self.inputs:
            # Start from the endpoint's current controls, so a step() without an action
            # writes what is there.
            ep._read_ctrl_into(self.input_buffers[Field.CTRL], document=True)
        self.ctrl: Any = self.inputs.get(Field.CTRL)
        # All of ctrl: ``a[...] = v`` is numpy's fastest whole-array assignment (it parses no
        # slice); a ctypes array (no numpy) takes a slice.
        self._all: Any = Ellipsis if _np is not None else slice(None)
        self.report = Report()
        # One export, mjb_write_step_read_if: with a NULL precondition (``_args``) it is
        # mjb_write_step_read exactly; with ``_expect`` (``_args_if``) the compare-and-step.
        self._step_if = _raw(ep._lib, "mjb_write_step_read_if")
        self._nstep = ctypes.c_uint32(nstep)
        self._expect = Expect()
        self._args = (
            _arg(ep._ep),
            None,
            _arg(self._inputs),
            _arg(ctypes.c_size_t(m)),
            _arg(self._nstep),
            _arg(ctypes.c_uint32(timeout_ms)),
            _arg(self._requests),
            _arg(self._n),
            self._info_ref,
            ctypes.byref(self.report),
        )
        self._args_if = (self._args[0], ctypes.byref(self._expect)) + self._args[2:]

    @property
    def nstep(self) -> int:
        n: int = self._nstep.value
        return n

    def step(
        self,
        ctrl: Optional[Doubles] = None,
        *,
        expect: Optional[Expect] = None,
        **seen: Optional[int],
    ) -> FrameInfo:
        """Write ``ctrl`` (when given; else the ``ctrl`` array as it is) and the other input
        arrays, step, read the frame. Returns the frame's FrameInfo, a value of this call
        (also kept as ``info``). With ``expect_tick``/``expect_configuration``/
        ``expect_frame``, only if the endpoint is still there (else MjbError,
        ``Reason.PRECONDITION``: nothing written, no step, the buffers as they were)."""
        if ctrl is not None:
            self.ctrl[self._all] = ctrl
        e = _precondition(expect, seen) if seen or expect is not None else None
        if e is None:
            o = self._step_if(*self._args)
        else:
            ctypes.pointer(self._expect)[0] = e
            o = self._step_if(*self._args_if)
        if o:
            raise _refusal(o, self._report_copy())
        info = self.info = _frame_info_copy(self._info_view)
        return info

    def _report_copy(self) -> Report:
        r = Report()
        ctypes.pointer(r)[0] = self.report
        return r

    def restore(
        self,
        doc: DocumentLike,
        timeout_ms: int = WAIT_FOREVER,
        *,
        expect: Optional[Expect] = None,
        **seen: Optional[int],
    ) -> FrameInfo:
        """Restore a checkpoint (an RL reset), then read the frame into ``values``; when the
        frame carries ctrl, the restored controls are copied into ``ctrl`` too (else ``ctrl``
        keeps what it held, and the next ``step`` writes it). Poses in the frame are
        recomputed by kinematics; sensordata, qacc and actuator_force are stale
        (``info.stale``) until the next step: the bridge never runs ``mj_forward`` on a
        restore."""
        self._ep.restore(doc, timeout_ms, expect=_precondition(expect, seen))
        return self._after_reset()

    def apply(
        self,
        rp: "RestorePoint",
        timeout_ms: int = WAIT_FOREVER,
        *,
        expect: Optional[Expect] = None,
        **seen: Optional[int],
    ) -> FrameInfo:
        """``restore`` from a restore point (no JSON): an RL reset to a saved state at engine
        speed, the frame (and ctrl) read after it, as for ``restore``."""
        self._ep.apply(rp, timeout_ms, expect=_precondition(expect, seen))
        return self._after_reset()

    def _after_reset(self) -> FrameInfo:
        if Field.CTRL in self.inputs:
            self._ep._read_ctrl_into(self.input_buffers[Field.CTRL], document=False)
        return self.read()


class Endpoint:
    """One MuJoCo model/data pair owned by the bridge. A context manager: leaving the ``with``
    block closes it (as does ``close()``); a closed endpoint refuses every call with
    ``Reason.CLOSED``."""

    _lib: ctypes.CDLL
    _ep: ctypes.c_void_p
    _closed: bool

    def __init__(self, config: ConfigLike) -> None:
        """Load a model per ``config``: a Config, a dict, a JSON document (bytes, or a str
        whose first character other than whitespace is ``{``; see mjb_endpoint_open), or the
        path of an MJCF file (any other str, or an ``os.PathLike`` such as ``pathlib.Path``):
        ``Endpoint.open("robot.xml")`` is ``{"model": {"xml_path": "robot.xml"}}``. (A file
        whose name starts with ``{`` goes as a ``pathlib.Path`` or ``Config``.)"""
        lib = library()
        cfg = _config_bytes(config)
        ep = ctypes.c_void_p()
        o = lib.mjb_endpoint_open(cfg, len(cfg), ctypes.byref(ep))
        if o != Outcome.OK:
            raise _refusal(o)
        self._setup(lib, ep)

    def _setup(self, lib: ctypes.CDLL, ep: ctypes.c_void_p) -> None:
        """The per-endpoint call state, built once: the handle converted for ctypes, the
        exports the general calls use, and pools of prebuilt arguments (see _WriteStepArgs,
        _FrameArgs)."""
        _start_reaper()
        self._lib = lib
        self._ep = ep
        self._closed = False
        self._ep_arg = _arg(ep)
        # Without argtypes (as the Stepper calls): every argument is converted once, here or
        # in the pooled argument objects; only nstep and timeout_ms are made per call.
        self._write_step_if = _raw(lib, "mjb_write_step_if")
        self._read_many = _raw(lib, "mjb_frame_read_many")
        self._write_args: Dict[int, List[_WriteStepArgs]] = {}
        self._frame_args: Dict[Tuple[int, ...], List[_FrameArgs]] = {}

    @classmethod
    def open(cls, config: ConfigLike) -> "Endpoint":
        return cls(config)

    @classmethod
    def adopt(cls, model: Any, data: Any, config: ConfigLike) -> "Endpoint":
        """Take ownership of a host's ``mjModel*``/``mjData*`` (integers or ctypes pointers);
        on a refusal the host still owns them. ``config`` is read as ``open`` reads it (a
        path there names a model, which adopt refuses: the host brings it)."""
        lib = library()
        cfg = _config_bytes(config)
        ep = ctypes.c_void_p()
        o = lib.mjb_endpoint_adopt(model, data, cfg, len(cfg), ctypes.byref(ep))
        if o != Outcome.OK:
            raise _refusal(o)
        self = cls.__new__(cls)
        self._setup(lib, ep)
        return self

    def __enter__(self) -> "Endpoint":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_closed", True) is False:
            self._closed = True
            _FINALIZED.put((self._lib.mjb_endpoint_free, self._ep))

    @property
    def handle(self) -> Optional[int]:
        """The C handle (an integer), for calls through ``library()``."""
        return self._ep.value

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Close the endpoint. Safe while another thread is inside a call (that call finishes
        first) and safe to repeat."""
        if not self._closed:
            self._closed = True
            self._lib.mjb_endpoint_free(self._ep)

    # Mutations: a Report on success; MjbError (with the report) otherwise. Each takes
    # expect= and/or the keywords expect_tick=, expect_configuration=, expect_frame= (the
    # mjb_*_if exports): when the endpoint is no longer there, MjbError with
    # Reason.PRECONDITION and nothing is done.
    def _mutate_if(self, name: str, expect: Optional[Expect], *args: Any) -> Report:
        """Every mutation's one code path: the ``_if`` export of ``name`` (``_TWINS``), with
        ``expect`` after the handle or NULL, which checks nothing and is the plain export's
        call exactly. A Report on OK; MjbError carrying it otherwise."""
        report = Report()
        e = None if expect is None else ctypes.byref(expect)
        o = getattr(self._lib, _TWINS[name])(self._ep, e, *args, ctypes.byref(report))
        if o != Outcome.OK:
            raise _refusal(o, report)
        return report

    def step(
        self,
        nstep: int = 1,
        timeout_ms: int = WAIT_FOREVER,
        *,
        expect: Optional[Expect] = None,
        **seen: Optional[int],
    ) -> Report:
        """Step ``nstep`` times. A stop latched meanwhile halts at a step boundary and returns
        the report with ``reason == Reason.STOP_LATCHED``; ``tick_after`` shows the steps done."""
        return self._mutate_if("step", _precondition(expect, seen), nstep, timeout_ms)

    def set_ctrl(
        self,
        ctrl: Doubles,
        timeout_ms: int = WAIT_FOREVER,
        *,
        expect: Optional[Expect] = None,
        **seen: Optional[int],
    ) -> Report:
        e = _precondition(expect, seen)
        ptr, n, keep = _doubles(ctrl)
        report = self._mutate_if("set_ctrl", e, ptr, n, timeout_ms)
        del keep
        return report

    def world_write(
        self,
        doc: DocumentLike,
        timeout_ms: int = WAIT_FOREVER,
        *,
        expect: Optional[Expect] = None,
        **seen: Optional[int],
    ) -> Report:
        e = _precondition(expect, seen)
        b = _utf8(doc)
        return self._mutate_if("world_write", e, b, len(b), timeout_ms)

    def restore(
        self,
        doc: DocumentLike,
        timeout_ms: int = WAIT_FOREVER,
        *,
        expect: Optional[Expect] = None,
        **seen: Optional[int],
    ) -> Report:
        """Restore a checkpoint document (or a snapshot's world document) and its tick. Bytes
        go to the library as they are (keep a checkpoint as bytes to reset often; to restore
        the same state many times, ``restore_point_from_json`` once and ``apply``)."""
        e = _precondition(expect, seen)
        b = doc if isinstance(doc, bytes) else _utf8(doc)
        return self._mutate_if("restore", e, b, len(b), timeout_ms)

    def replace_model(
        self,
        config: ConfigLike,
        timeout_ms: int = WAIT_FOREVER,
        *,
        expect: Optional[Expect] = None,
        **seen: Optional[int],
    ) -> Report:
        """Replace the model: ``{"model": {...}}`` (a dict, bytes or a str starting with
        ``{``), a Config (its model alone) or the path of an MJCF file (any other str, or an
        ``os.PathLike``), as ``open`` reads it. The tick stays; the configuration counter goes
        up by one."""
        e = _precondition(expect, seen)
        b = _replacement_bytes(config)
        return self._mutate_if("replace_model", e, b, len(b), timeout_ms)

    # Restore points: a captured state restored without JSON.
    def capture(self, timeout_ms: int = WAIT_FOREVER) -> "RestorePoint":
        """A RestorePoint of the state the endpoint's profile restores, taken under the native
        lock (no JSON)."""
        rp = ctypes.c_void_p()
        o = self._lib.mjb_restore_point_capture(self._ep, timeout_ms, ctypes.byref(rp))
        if o != Outcome.OK:
            raise _refusal(o)
        return RestorePoint._made(self._lib, rp)

    def restore_point_from_json(self, doc: DocumentLike) -> "RestorePoint":
        """A RestorePoint of this endpoint from a checkpoint or world document, validated
        exactly as ``restore`` validates it (the same MjbError), restoring nothing: load a
        saved state once, ``apply`` it many times."""
        b = doc if isinstance(doc, bytes) else _utf8(doc)
        rp = ctypes.c_void_p()
        o = self._lib.mjb_restore_point_from_json(self._ep, b, len(b), ctypes.byref(rp))
        if o != Outcome.OK:
            raise _refusal(o)
        return RestorePoint._made(self._lib, rp)

    def apply(
        self,
        rp: "RestorePoint",
        timeout_ms: int = WAIT_FOREVER,
        *,
        expect: Optional[Expect] = None,
        **seen: Optional[int],
    ) -> Report:
        """Restore a restore point of this endpoint: the admission, fence, stop rules and native
        phase of ``restore`` (setter, bitwise readback, rollback or fence), without a document.
        Another endpoint's restore point is refused (``Reason.OTHER_ENDPOINT``), and so is one
        from before a model replacement (``Reason.CONFIGURATION``)."""
        return self._mutate_if("apply", _precondition(expect, seen), rp._rp, timeout_ms)

    # Documents, each with the tick and configuration it was read at.
    def _read(self, fn: Any, timeout_ms: int) -> Document:
        s = ctypes.c_void_p()
        info = ReadInfo()
        o = fn(self._ep, timeout_ms, ctypes.byref(s), ctypes.byref(info))
        if o != Outcome.OK:
            raise _refusal(o)
        return _take_document(s, info)

    def world(self, timeout_ms: int = WAIT_FOREVER) -> Document:
        return self._read(self._lib.mjb_world_read_info, timeout_ms)

    def snapshot(self, timeout_ms: int = WAIT_FOREVER) -> Document:
        return self._read(self._lib.mjb_world_read_info, timeout_ms)

    def checkpoint(self, timeout_ms: int = WAIT_FOREVER) -> Document:
        return self._read(self._lib.mjb_checkpoint_read_info, timeout_ms)

    # Safety: none of these waits for the native lock.
    def stop(self) -> SafetyState:
        """Latch a stop now, from any thread; returns the SafetyState right after latching."""
        s = SafetyState()
        o = self._lib.mjb_stop(self._ep, ctypes.byref(s))
        if o != Outcome.OK:
            raise _refusal(o)
        return s

    def safety(self) -> SafetyState:
        s = SafetyState()
        o = self._lib.mjb_safety_read(self._ep, ctypes.byref(s))
        if o != Outcome.OK:
            raise _refusal(o)
        return s

    def rewind(
        self,
        tick: int,
        timeout_ms: int = WAIT_FOREVER,
        *,
        expect: Optional[Expect] = None,
        **seen: Optional[int],
    ) -> Report:
        """Restore the exact state the endpoint had at ``tick`` of its history (config
        ``"history"``): the restore's admission, fence and stop rules; a tick outside the
        window is refused (``Reason.OUT_OF_RANGE``), a replay that does not reproduce the
        recording rolled back (``Reason.REPLAY_DIVERGED``), and so is one a stop latched
        meanwhile halted (``Reason.STOP_LATCHED``)."""
        return self._mutate_if("rewind", _precondition(expect, seen), tick, timeout_ms)

    def history_info(self) -> HistoryState:
        """The history's window (``oldest_tick``, ``newest_tick``), keyframes and bytes; no
        lock. MjbError (``Reason.OUT_OF_RANGE``) on an endpoint without ``"history"``."""
        s = HistoryState()
        o = self._lib.mjb_history_info(self._ep, ctypes.byref(s))
        if o != Outcome.OK:
            raise _refusal(o)
        return s

    def history_export(
        self,
        from_tick: Optional[int] = None,
        to_tick: Optional[int] = None,
        timeout_ms: int = WAIT_FOREVER,
    ) -> str:
        """Ticks ``from_tick..=to_tick`` of the history window as a recording document
        (``mjbridge_recording_v1``, strict JSON) that ``mjbridge replay`` re-executes and
        verifies; ``to_tick=None``: the newest tick. Both None: the whole window, its oldest
        and newest tick decided under the lock the export holds (``mjb_history_export_window``:
        a thread stepping meanwhile cannot slide the window from under it); ``from_tick=None``
        with a ``to_tick``: the oldest tick ``history_info()`` reads (without the lock). A read
        under the native lock: it changes nothing and works on a stopped or fenced endpoint.
        MjbError (``Reason.OUT_OF_RANGE``) outside the window or without ``"history"``."""
        s = ctypes.c_void_p()
        if from_tick is None and to_tick is None:
            o = self._lib.mjb_history_export_window(self._ep, timeout_ms, ctypes.byref(s))
        else:
            start = self.history_info().oldest_tick if from_tick is None else from_tick
            to = (1 << 64) - 1 if to_tick is None else to_tick
            o = self._lib.mjb_history_export(self._ep, start, to, timeout_ms, ctypes.byref(s))
        if o != Outcome.OK:
            raise _refusal(o)
        return _take(s)

    def confirm_paused(self) -> None:
        """Positive acknowledgement of the pause; MjbError unless stopped, with no native work
        in flight, and not fenced."""
        o = self._lib.mjb_confirm_paused(self._ep)
        if o != Outcome.OK:
            raise _refusal(o)

    def safety_reset(self) -> None:
        """Clear the stop latch, under the same conditions as ``confirm_paused``."""
        o = self._lib.mjb_safety_reset(self._ep)
        if o != Outcome.OK:
            raise _refusal(o)

    # Model facts and names: no lock.
    def dims(self) -> ModelDims:
        d = ModelDims()
        o = self._lib.mjb_dims(self._ep, ctypes.byref(d))
        if o != Outcome.OK:
            raise _refusal(o)
        return d

    def name_to_id(self, kind: int, name: str) -> Optional[int]:
        """mj_name2id for an ObjectKind; None when no object of that kind has the name."""
        i = ctypes.c_int32(-1)
        o = self._lib.mjb_name_to_id(self._ep, int(kind), name.encode("utf-8"), ctypes.byref(i))
        if o == Outcome.REJECTED and last_error().get("reason") == "MJB_REASON_UNKNOWN_NAME":
            return None
        if o != Outcome.OK:
            raise _refusal(o)
        return i.value

    def model_fingerprint(self) -> str:
        """The model's identity, ``"sha256:<hex>"`` (the world document's
        ``model_fingerprint``): two models with the same dimensions and another parameter
        differ. No lock."""
        needed = ctypes.c_size_t(0)
        buf = ctypes.create_string_buffer(128)
        o = self._lib.mjb_model_fingerprint(self._ep, buf, len(buf), ctypes.byref(needed))
        if o != Outcome.OK and needed.value > len(buf):
            buf = ctypes.create_string_buffer(needed.value)
            o = self._lib.mjb_model_fingerprint(self._ep, buf, len(buf), ctypes.byref(needed))
        if o != Outcome.OK:
            raise _refusal(o)
        return buf.value.decode("utf-8")

    def id_to_name(self, kind: int, id: int) -> str:
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

    def sensor_slice(self, sensor: int) -> Tuple[int, int]:
        """(address, dimension) of a sensor in sensordata."""
        adr, dim = ctypes.c_size_t(0), ctypes.c_size_t(0)
        o = self._lib.mjb_sensor_slice(self._ep, sensor, ctypes.byref(adr), ctypes.byref(dim))
        if o != Outcome.OK:
            raise _refusal(o)
        return adr.value, dim.value

    def joint_slice(self, joint: int) -> JointAdr:
        a = JointAdr()
        o = self._lib.mjb_joint_slice(self._ep, joint, ctypes.byref(a))
        if o != Outcome.OK:
            raise _refusal(o)
        return a

    def index(self) -> ModelIndex:
        """Name-based slices of qpos, qvel, ctrl and sensordata (see ModelIndex)."""
        return ModelIndex(self)

    # Frames: no lock, never torn.
    def frame_field_len(self, field: int) -> int:
        n = ctypes.c_size_t(0)
        o = self._lib.mjb_frame_field_len(self._ep, int(field), ctypes.byref(n))
        if o != Outcome.OK:
            raise _refusal(o)
        return n.value

    def frame(
        self, fields: Sequence[int], out: Optional[Mapping[int, Any]] = None
    ) -> Tuple[Dict[Field, Any], FrameInfo]:
        """Several fields of the latest frame, all of one tick: ({Field: values}, FrameInfo).
        Values are numpy arrays when numpy is installed (else lists). With ``out`` (a mapping
        from each field to a writable float64 numpy array or ctypes double array of at least
        the field's length) the values are copied straight into those arrays, which are
        returned; nothing is allocated for them. To read the same fields often, use
        ``frame_reader``."""
        if out is not None or _np is None:
            return self._frame_into(fields, out)
        key = tuple(fields)
        pool = self._frame_args.setdefault(key, [])
        try:
            call = pool.pop()  # atomic: a call in another thread takes another one
        except IndexError:
            call = _FrameArgs(self, [Field(f) for f in fields])
        try:
            o = self._read_many(self._ep_arg, call.reqs_arg, call.n, call.info_ref)
            if o == 1 and last_error().get("reason") == "MJB_REASON_DIMENSION":
                call.size(self)  # the model was replaced: a field grew
                o = self._read_many(self._ep_arg, call.reqs_arg, call.n, call.info_ref)
            if o:
                raise _refusal(o)
            info = _frame_info(call.info_view)
            if info.configuration != call.configuration:
                call.slices = [
                    slice(at, at + r.written) for at, r in zip(call.offsets, call.req_list)
                ]
                call.configuration = info.configuration
            data = _np.array(call.view)  # one allocation for every field of this frame
            values = {f: data[sl] for f, sl in zip(call.fields, call.slices)}
        finally:
            pool.append(call)
        return values, info

    def _frame_into(
        self, fields: Sequence[int], out: Optional[Mapping[int, Any]]
    ) -> Tuple[Dict[Field, Any], FrameInfo]:
        flds = [Field(f) for f in fields]
        reqs = (FrameRequest * max(len(flds), 1))()
        keep: List[Any] = []
        for r, f in zip(reqs, flds):
            if out is not None:
                ptr, cap, k = _writable(out[f])
            else:
                k = (ctypes.c_double * self.frame_field_len(f))()
                ptr, cap = ctypes.cast(k, ctypes.POINTER(ctypes.c_double)), len(k)
            keep.append(k)
            r.field, r.buf, r.cap = int(f), ptr, cap
        cinfo, view = _frame_info_buffer()
        o = self._lib.mjb_frame_read_many(self._ep, reqs, len(flds), ctypes.byref(cinfo))
        if o != Outcome.OK:
            raise _refusal(o)
        values: Dict[Field, Any] = {}
        for f, r, k in zip(flds, reqs, keep):
            if out is not None:
                values[f] = out[f]
            else:
                values[f] = list(k)
        return values, _frame_info(view)

    def frame_reader(
        self, fields: Sequence[int], out: Optional[Mapping[int, Any]] = None
    ) -> FrameReader:
        """A FrameReader: the same fields read again and again into buffers made once (the
        caller's arrays from ``out``, where given)."""
        return FrameReader(self, fields, out)

    def stepper(
        self,
        read: Sequence[int] = (Field.QPOS, Field.QVEL),
        inputs: Sequence[int] = (Field.CTRL,),
        nstep: int = 1,
        timeout_ms: int = WAIT_FOREVER,
        out: Optional[Mapping[int, Any]] = None,
    ) -> Stepper:
        """A Stepper: write ``inputs``, step ``nstep`` times and read ``read`` in one call
        (into the caller's arrays from ``out``, where given)."""
        return Stepper(self, read, inputs, nstep, timeout_ms, out)

    def _read_ctrl_into(self, buf: "DoubleArray", document: bool) -> None:
        """Fill ``buf`` with the endpoint's controls: from the frame when it carries them, else
        (``document``) from the world document."""
        written = ctypes.c_size_t(0)
        info = _native.FrameInfo()
        o = self._lib.mjb_frame_read(
            self._ep,
            int(Field.CTRL),
            ctypes.cast(buf, ctypes.POINTER(ctypes.c_double)),
            len(buf),
            ctypes.byref(written),
            ctypes.byref(info),
        )
        if o == Outcome.OK or not document:
            return
        ctrl = json.loads(self.world())["world"]["ctrl"]
        for i, v in enumerate(ctrl[: len(buf)]):
            buf[i] = v

    # Typed inputs.
    def input(
        self,
        field: int,
        values: Doubles,
        id: int = -1,
        timeout_ms: int = WAIT_FOREVER,
        *,
        expect: Optional[Expect] = None,
        **seen: Optional[int],
    ) -> Report:
        """Write an input field whole (``id`` -1) or one object's slice."""
        e = _precondition(expect, seen)
        ptr, n, keep = _doubles(values)
        report = self._mutate_if("input", e, int(field), id, ptr, n, timeout_ms)
        del keep
        return report

    def write_step(
        self,
        inputs: Sequence[Tuple[int, int, Doubles]],
        nstep: int = 1,
        timeout_ms: int = WAIT_FOREVER,
        *,
        expect: Optional[Expect] = None,
        **seen: Optional[int],
    ) -> Report:
        """Write inputs (``[(field, id, values), ...]``), then step ``nstep`` times, under one
        admission. For a loop, ``stepper`` builds all of this once. With ``expect_tick`` (the
        tick of the frame the inputs were chosen from), the controller's compare-and-step."""
        e = _precondition(expect, seen) if seen or expect is not None else None
        m = len(inputs)
        pool = self._write_args.setdefault(m, [])
        try:
            call = pool.pop()  # atomic: a call in another thread takes another one
        except IndexError:
            call = _WriteStepArgs(m)
        try:
            keep = call.fill(inputs)
            report = Report()
            o = self._write_step_if(
                self._ep_arg,
                None if e is None else ctypes.byref(e),
                call.inputs,
                call.n,
                _U32.get(nstep) or ctypes.c_uint32(nstep),
                _U32.get(timeout_ms) or ctypes.c_uint32(timeout_ms),
                ctypes.byref(report),
            )
            del keep
        finally:
            pool.append(call)
        if o:
            raise _refusal(o, report)
        return report


# uint32 arguments converted once for the values a loop passes (nstep 1..16, no deadline).
_U32: Dict[int, ctypes.c_uint32] = {
    v: ctypes.c_uint32(v) for v in list(range(1, 17)) + [WAIT_FOREVER]
}

# Each mutation's ``_if`` export (mjb_step_if is mjb_endpoint_step's twin): called with a NULL
# precondition it is the plain export, so every mutation has this one code path.
_TWINS: Dict[str, str] = {
    "step": "mjb_step_if",
    "set_ctrl": "mjb_set_ctrl_if",
    "world_write": "mjb_world_write_if",
    "restore": "mjb_restore_if",
    "replace_model": "mjb_endpoint_replace_model_if",
    "apply": "mjb_restore_point_apply_if",
    "input": "mjb_input_write_if",
    "rewind": "mjb_rewind_if",
}


class _WriteStepArgs:
    """A ``write_step`` call's ctypes arguments for ``m`` inputs, made once per endpoint and
    reused (an endpoint keeps a pool: concurrent calls each take their own): the mjb_input
    array, its count, and per input a ctypes double buffer its values are copied into (one
    numpy copy, no address lookups) when they fit, grown when they do not."""

    def __init__(self, m: int) -> None:
        self.arr = (Input * max(m, 1))()
        self.inputs = _arg(self.arr)
        self.n = _arg(ctypes.c_size_t(m))
        self.slots = list(self.arr)[:m]
        self.bufs: List[Any] = [None] * m
        self.views: List[Any] = [None] * m
        self.keys: List[Any] = [None] * m

    def fill(self, inputs: Sequence[Tuple[int, int, Doubles]]) -> Any:
        """Write ``inputs`` into the array; returns what must stay alive during the call."""
        keep: List[Any] = []
        for k, (field, id, values) in enumerate(inputs):
            slot = self.slots[k]
            n = len(values)
            key = (field, id, n)
            if self.keys[k] != key:  # set the members only when they change
                slot.field, slot.id, slot.n = field, id, n
                self.keys[k] = key
            view = self.views[k]
            if _np is None:
                ptr, _, held = _doubles(values)
                slot.values = ptr
                keep.append(held)
            elif view is not None and len(view) == n:
                view[...] = values
            else:
                buf = self.bufs[k] = (ctypes.c_double * n)()
                view = self.views[k] = _np.frombuffer(buf, dtype=_np.float64)
                view[...] = values
                slot.values = ctypes.cast(buf, ctypes.POINTER(ctypes.c_double))
        return keep


class _FrameArgs:
    """A ``frame`` call's ctypes arguments for one tuple of fields, made once per endpoint and
    reused (pooled like _WriteStepArgs): the request array over one ctypes buffer holding every
    field at its length, and the mjb_frame_info the call writes. Lengths are read once; a
    model replacement that lengthens a field makes the read refuse (DIMENSION), and the
    lengths are read again."""

    def __init__(self, ep: "Endpoint", fields: Sequence[Field]) -> None:
        self.fields = list(fields)
        self.reqs = (FrameRequest * max(len(self.fields), 1))()
        self.req_list = list(self.reqs)[: len(self.fields)]
        self.reqs_arg = _arg(self.reqs)
        self.n = _arg(ctypes.c_size_t(len(self.fields)))
        self.info, self.info_view = _frame_info_buffer()
        self.info_ref = ctypes.byref(self.info)
        self.size(ep)

    def size(self, ep: "Endpoint") -> None:
        lens = [ep.frame_field_len(f) for f in self.fields]
        self.buf = (ctypes.c_double * max(sum(lens), 1))()
        self.view = _np.frombuffer(self.buf, dtype=_np.float64) if _np is not None else None
        self.offsets = []
        at = 0
        for r, f, n in zip(self.reqs, self.fields, lens):
            r.field = int(f)
            r.buf = ctypes.cast(ctypes.byref(self.buf, 8 * at), ctypes.POINTER(ctypes.c_double))
            r.cap = n
            self.offsets.append(at)
            at += n
        # Each field's slice of ``buf``: from the written lengths of a read, taken again when
        # a read's configuration is not the one they were taken at (a replaced model).
        self.slices: List[slice] = []
        self.configuration = -1


class RestorePoint:
    """A state captured by ``Endpoint.capture()`` (or read once by
    ``Endpoint.restore_point_from_json``), restored by ``Endpoint.apply(rp)`` without JSON and
    with every check of a restore: a planner's rollouts, a reset, an editor's rewind.

    Immutable: it may be applied to its endpoint, and read, from any thread at once (another
    endpoint refuses it with ``Reason.OTHER_ENDPOINT``; its own, after a model replacement,
    with ``Reason.CONFIGURATION``). ``tick`` and ``configuration`` say what it restores. A
    context manager; ``close()`` frees it (safe to repeat, and while another thread applies it:
    that call finishes with it); a closed one is refused by every call."""

    _lib: ctypes.CDLL
    _rp: ctypes.c_void_p
    _closed: bool
    tick: int
    configuration: int

    def __init__(self) -> None:
        raise TypeError("restore points come from Endpoint.capture or restore_point_from_json")

    @classmethod
    def _made(cls, lib: ctypes.CDLL, rp: ctypes.c_void_p) -> "RestorePoint":
        self = cls.__new__(cls)
        _start_reaper()
        self._lib, self._rp, self._closed = lib, rp, False
        info = ReadInfo()
        o = lib.mjb_restore_point_info(rp, ctypes.byref(info))
        if o != Outcome.OK:
            err = _refusal(o)
            self.close()
            raise err
        self.tick, self.configuration = info.tick, info.configuration
        return self

    @property
    def handle(self) -> Optional[int]:
        """The C handle (an integer), for calls through ``library()``."""
        return self._rp.value

    @property
    def closed(self) -> bool:
        return self._closed

    def to_json(self) -> Document:
        """Its checkpoint document: byte for byte what ``checkpoint()`` returned at the
        capture, with the restore point's tick and configuration. No lock."""
        s = ctypes.c_void_p()
        o = self._lib.mjb_restore_point_to_json(self._rp, ctypes.byref(s))
        if o != Outcome.OK:
            raise _refusal(o)
        info = ReadInfo(tick=self.tick, configuration=self.configuration)
        return _take_document(s, info)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._lib.mjb_restore_point_free(self._rp)

    def __enter__(self) -> "RestorePoint":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_closed", True) is False:
            self._closed = True
            _FINALIZED.put((self._lib.mjb_restore_point_free, self._rp))

    def __repr__(self) -> str:
        state = "closed" if self._closed else "tick=%d, configuration=%d" % (
            self.tick,
            self.configuration,
        )
        return "RestorePoint(%s)" % state


def _arg(value: Any) -> Any:
    """A ctypes argument converted once, for a call made again and again with it: what the
    foreign call would otherwise make from ``value`` on every call (a small object per
    argument). An array goes as the address of its first element (as C passes it), a pointer
    (c_void_p) as its value, a c_size_t or c_uint32 as its value; the result keeps an array
    alive. (ctypes passes such converted arguments on as they are.)"""
    if isinstance(value, ctypes.Array):
        return ctypes.byref(value)
    if isinstance(value, (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint32)):
        return type(value).from_param(value.value)
    raise TypeError("no converted form for %s" % type(value).__name__)


def _raw(lib: ctypes.CDLL, name: str) -> Any:
    """The export ``name`` as a fresh function object with no argtypes (its arguments go as
    converted once by the caller, with ``_arg``) and an int32 result."""
    fn = lib[name]
    fn.restype = ctypes.c_int32
    return fn


def _fill_nan(ptr: Any, start: int, end: int) -> None:
    """Set ``ptr[start:end]`` (a POINTER(c_double)) to NaN."""
    for i in range(start, end):
        ptr[i] = math.nan


def _writable(buf: Any) -> Tuple[Any, int, Any]:
    """(pointer, capacity, keep-alive) for a caller's output buffer: a C-contiguous, writable
    float64 numpy array or a ctypes double array; anything else is refused (a copy would
    silently drop the values)."""
    if _np is not None and isinstance(buf, _np.ndarray):
        if buf.dtype != _np.float64 or not buf.flags.c_contiguous or not buf.flags.writeable:
            raise TypeError("out arrays must be C-contiguous, writable float64 arrays")
        return buf.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), int(buf.size), buf
    if isinstance(buf, ctypes.Array) and buf._type_ is ctypes.c_double:
        return ctypes.cast(buf, ctypes.POINTER(ctypes.c_double)), len(buf), buf
    raise TypeError("out arrays are float64 numpy arrays or ctypes double arrays")
