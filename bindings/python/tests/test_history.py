"""History, rewind and export (config "history"): the binding against the real library.

Run by tests/install.rs like test_endpoint.py (MJBRIDGE_LIB, MJB_TEST_MODELS).
"""

import json
import math
import os
import threading

import pytest

import mjbridge
from mjbridge import Endpoint, MjbError, Outcome, Reason

MODELS = os.environ.get("MJB_TEST_MODELS", os.path.join(os.path.dirname(__file__), "../../../tests/models"))
HISTORY = {"window_ticks": 100, "keyframe_every": 10}


def config(**extra):
    cfg = {"model": {"xml_path": os.path.join(MODELS, "host.xml")}, "seed": 3}
    cfg.update(extra)
    return cfg


def open_with_history():
    """An endpoint with a history, or None on an engine serving only the basic profile, where
    the open must be refused with Reason.PROFILE (checked, not skipped)."""
    try:
        return Endpoint.open(config(history=HISTORY))
    except MjbError as e:
        assert e.reason is Reason.PROFILE, e
        assert mjbridge.build_info()["integration_profile"] is False, e
        return None


def record(ep):
    """60 ticks with a control written every tick; the checkpoint read at each tick after its
    input and before its step: what a rewind to that tick gives back."""
    seen = {}
    for t in range(60):
        ep.set_ctrl([math.sin(0.3 * t), 0.01 * t])
        seen[t] = ep.checkpoint()
        ep.step(1)
    seen[60] = ep.checkpoint()
    return seen


def test_rewind_gives_back_the_checkpoint_read_at_a_tick():
    ep = open_with_history()
    if ep is None:
        return
    with ep:
        seen = record(ep)
        h = ep.history_info()
        assert (h.oldest_tick, h.newest_tick) == (0, 60)
        assert h.keyframes > 0 and h.bytes > 0
        for t in (37, 5, 59, 0, 12, 60, 13):
            r = ep.rewind(t)
            assert (r.outcome, r.tick_after) == (Outcome.OK, t)
            assert ep.checkpoint() == seen[t], t
        assert ep.history_info().newest_tick == 60  # scrubbing keeps the timeline
        # A branch: an input written after a rewind truncates the ticks after it.
        ep.rewind(30)
        ep.set_ctrl([1.0, -1.0])
        ep.step(1)
        assert ep.history_info().newest_tick == 31
        ep.rewind(30)
        assert ep.checkpoint() != seen[30]  # the branch's input is part of tick 30 now


def test_rewind_outside_the_window_is_refused_and_changes_nothing():
    ep = open_with_history()
    if ep is None:
        return
    with ep:
        record(ep)
        before, info = ep.checkpoint(), ep.history_info()
        with pytest.raises(MjbError) as e:
            ep.rewind(61)
        assert (e.value.outcome, e.value.reason) == (Outcome.REJECTED, Reason.OUT_OF_RANGE)
        assert "outside the history window 0..=60" in e.value.message
        assert ep.checkpoint() == before
        with pytest.raises(MjbError) as e:
            ep.rewind(20, expect_tick=999)
        assert e.value.reason is Reason.PRECONDITION
        assert ep.checkpoint() == before
        after = ep.history_info()
        assert (after.oldest_tick, after.newest_tick, after.keyframes) == (
            info.oldest_tick,
            info.newest_tick,
            info.keyframes,
        )
    with Endpoint.open(config()) as none:
        before = none.checkpoint()
        with pytest.raises(MjbError) as e:
            none.rewind(0)
        assert e.value.reason is Reason.OUT_OF_RANGE
        with pytest.raises(MjbError) as e:
            none.history_info()
        assert e.value.reason is Reason.OUT_OF_RANGE
        assert none.checkpoint() == before


def test_history_export_returns_a_recording_document():
    ep = open_with_history()
    if ep is None:
        return
    with ep:
        record(ep)
        before = ep.checkpoint()
        doc = ep.history_export()
        assert isinstance(doc, str)
        recording = json.loads(doc)["recording"]
        assert recording["format"] == "mjbridge_recording_v1"
        assert recording["end_tick"] == 60
        assert json.loads(ep.history_export(10, 20))["recording"]["end_tick"] == 20
        with pytest.raises(MjbError) as e:
            ep.history_export(0, 500)
        assert e.value.reason is Reason.OUT_OF_RANGE
        assert ep.checkpoint() == before


def test_history_export_without_a_range_is_the_window_while_another_thread_steps():
    ep = open_with_history()
    if ep is None:
        return
    with ep:
        record(ep)
        ep.step(90)  # the window slid past tick 0
        with pytest.raises(MjbError) as e:
            ep.history_export(0)
        assert e.value.reason is Reason.OUT_OF_RANGE
        done = threading.Event()

        def stepper():
            while not done.is_set():
                ep.step(1)

        t = threading.Thread(target=stepper)
        t.start()
        try:
            for _ in range(300):
                recording = json.loads(ep.history_export())["recording"]
                span = recording["end_tick"] - recording["from_tick"]
                assert HISTORY["window_ticks"] <= span < sum(HISTORY.values()), span
        finally:
            done.set()
            t.join()
