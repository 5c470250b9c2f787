"""The Python binding against the real library and MuJoCo.

Run by tests/install.rs against an installed prefix (MJBRIDGE_LIB) with the package installed
by pip into a venv; MJB_TEST_MODELS names the folder of the repository's test models.
"""

import ctypes
import json
import os
import threading

import pytest

import mjbridge
from mjbridge import Endpoint, MjbError, Outcome, Reason

MODELS = os.environ.get("MJB_TEST_MODELS", os.path.join(os.path.dirname(__file__), "../../../tests/models"))


def config(model="pendulum.xml", **extra):
    cfg = {"model": {"xml_path": os.path.join(MODELS, model)}, "seed": 3}
    cfg.update(extra)
    return cfg


def state_hash(ep):
    return json.loads(ep.world())["state_hash"]


def test_the_installed_package_and_library_are_used():
    if os.environ.get("MJB_TEST_EXPECT_INSTALLED") == "1":
        assert "site-packages" in mjbridge.__file__, mjbridge.__file__
    assert mjbridge.version() == mjbridge.VERSION
    info = mjbridge.build_info()
    assert info["bridge"] == mjbridge.VERSION
    assert info["engine_header_version"] == info["engine_runtime_version"]


def test_every_export_has_pointer_sized_results_where_c_returns_pointers():
    lib = mjbridge.library()
    for name, (restype, argtypes) in mjbridge._native.SIGNATURES.items():
        fn = getattr(lib, name)
        assert fn.restype is restype and fn.argtypes == argtypes, name
    # The segfault of a default int restype: a library string's address is 64-bit.
    assert lib.mjb_string_data.restype is ctypes.c_void_p
    assert lib.mjb_string_len.restype is ctypes.c_size_t


def test_open_step_checkpoint_restore_round_trip():
    with Endpoint.open(config()) as ep:
        r = ep.step(40)
        assert (r.outcome, r.reason, r.tick_before, r.tick_after) == (0, 0, 0, 40)
        checkpoint = ep.checkpoint()
        at_checkpoint = ep.world()
        assert ep.snapshot() == at_checkpoint
        ep.step(13)
        assert ep.world() != at_checkpoint
        r = ep.restore(checkpoint)
        assert (r.tick_before, r.tick_after) == (53, 40)
        assert ep.world() == at_checkpoint
        # bytes in work as well as str
        ep.step(2)
        ep.restore(checkpoint.encode("utf-8"))
        assert ep.world() == at_checkpoint


def test_refused_document_carries_outcome_reason_pointer_and_changes_nothing():
    with Endpoint.open(config()) as ep:
        ep.step(10)
        checkpoint = ep.checkpoint()
        ep.step(5)
        before_world, before_safety = ep.world(), ep.safety()
        with pytest.raises(MjbError) as e:
            ep.restore(checkpoint.replace('"seed":3', '"seed":4'))
        assert e.value.outcome is Outcome.REJECTED
        assert e.value.reason is Reason.SEED
        assert e.value.pointer == "/seed"
        assert e.value.report is not None and e.value.report.tick_after == 15
        assert ep.world() == before_world
        after = ep.safety()
        assert (after.stopped, after.stop_count, after.fenced) == (
            before_safety.stopped,
            before_safety.stop_count,
            before_safety.fenced,
        )

        doc = json.loads(checkpoint)
        doc["qpos"] = "not an array"
        with pytest.raises(MjbError) as e:
            ep.restore(doc)
        assert (e.value.outcome, e.value.reason, e.value.pointer) == (
            Outcome.REJECTED,
            Reason.WRONG_TYPE,
            "/qpos",
        )
        assert ep.world() == before_world


def test_open_refusal_names_the_model_load():
    with pytest.raises(MjbError) as e:
        Endpoint(config("broken.xml"))
    assert e.value.outcome is Outcome.REJECTED
    assert e.value.reason is Reason.MODEL_LOAD
    assert e.value.pointer == "/model"
    assert "no_such_joint" in e.value.message


def test_utf8_in_and_out():
    name = "Zo\u00eb \u6a5f\u68b0 \U0001F916"
    with Endpoint(config(name=name)) as ep:
        assert json.loads(ep.world())["world"]["name"] == name
    with pytest.raises(MjbError) as e:
        Endpoint(b'{"model": {"xml": "\xff"}}')
    assert (e.value.outcome, e.value.reason) == (Outcome.INVALID_ARGUMENT, Reason.INVALID_UTF8)


def test_set_ctrl_takes_lists_and_refuses_a_wrong_length_without_writing():
    with Endpoint(config()) as ep:
        ep.set_ctrl([0.25])
        assert json.loads(ep.world())["world"]["ctrl"] == [0.25]
        h = state_hash(ep)
        with pytest.raises(MjbError) as e:
            ep.set_ctrl([1.0, 2.0])
        assert (e.value.outcome, e.value.reason) == (Outcome.REJECTED, Reason.DIMENSION)
        with pytest.raises(MjbError) as e:
            ep.set_ctrl([float("nan")])
        assert e.value.outcome is Outcome.REJECTED
        assert state_hash(ep) == h


def test_set_ctrl_takes_numpy_arrays_when_numpy_is_present():
    np = pytest.importorskip("numpy")
    with Endpoint(config()) as ep:
        ep.set_ctrl(np.array([0.5]))
        ep.set_ctrl(np.arange(4.0)[3:])  # a view, made contiguous by the binding
        assert json.loads(ep.world())["world"]["ctrl"] == [3.0]


def test_without_numpy_plain_sequences_work(monkeypatch):
    monkeypatch.setattr(mjbridge, "_np", None)
    with Endpoint(config()) as ep:
        ep.set_ctrl((0.75,))
        assert json.loads(ep.world())["world"]["ctrl"] == [0.75]


def test_stop_from_a_second_thread_halts_stepping():
    with Endpoint(config("contact_act.xml")) as ep:
        stepped = threading.Event()
        stopped = []

        def stopper():
            stepped.wait()
            stopped.append(ep.stop())

        t = threading.Thread(target=stopper)
        t.start()
        last = None
        try:
            while True:
                try:
                    last = ep.step(20)
                except MjbError as e:  # admitted after the latch: refused, no step taken
                    assert (e.outcome, e.reason) == (Outcome.REJECTED, Reason.STOP_LATCHED)
                    last = e.report
                    break
                stepped.set()
                if last.reason == Reason.STOP_LATCHED:  # halted at a step boundary
                    break
        finally:
            stepped.set()
            t.join()
        assert stopped and stopped[0].stopped
        s = ep.safety()
        assert s.stopped and s.confirmed and s.stop_count == 1
        tick = last.tick_after
        with pytest.raises(MjbError) as e:
            ep.step(1)
        assert e.value.reason is Reason.STOP_LATCHED and e.value.report.tick_after == tick
        ep.confirm_paused()
        ep.safety_reset()
        assert ep.step(1).tick_after == tick + 1


def test_acknowledgements_refused_when_not_stopped():
    with Endpoint(config()) as ep:
        with pytest.raises(MjbError) as e:
            ep.confirm_paused()
        assert (e.value.outcome, e.value.reason) == (Outcome.REJECTED, Reason.NOT_STOPPED)


def test_closed_endpoint_refuses_every_call():
    ep = Endpoint(config())
    with ep:
        ep.step(1)
    assert ep.closed
    ep.close()  # repeat is fine
    with pytest.raises(MjbError) as e:
        ep.world()
    assert (e.value.outcome, e.value.reason) == (Outcome.INVALID_ARGUMENT, Reason.CLOSED)
    with pytest.raises(MjbError) as e:
        ep.step(1)
    assert e.value.reason is Reason.CLOSED


def test_names_come_from_the_library():
    assert mjbridge.outcome_name(Outcome.ROLLED_BACK) == "MJB_ROLLED_BACK"
    for r in Reason:
        assert mjbridge.reason_name(r) == "MJB_REASON_" + r.name
    for o in Outcome:
        assert mjbridge.outcome_name(o) == "MJB_" + o.name


def test_reason_names_resolve_through_the_library():
    assert mjbridge._reason_from_name("MJB_REASON_SEED") is Reason.SEED
    assert mjbridge._reason_from_name("MJB_REASON_NO_SUCH_THING") is Reason.NONE


def test_host_surface_names_frames_inputs_and_write_step():
    with Endpoint.open(config("host.xml", frame=["qpos", "ctrl", "xpos", "mocap_pos"])) as ep:
        d = ep.dims()
        assert (d.nq, d.nu, d.nbody, d.nmocap, d.configuration) == (13, 2, 6, 1, 0)
        assert ep.name_to_id(mjbridge.ObjectKind.BODY, "ball") == 4
        assert ep.name_to_id(mjbridge.ObjectKind.BODY, "nobody") is None
        assert ep.id_to_name(mjbridge.ObjectKind.SENSOR, 2) == "tip_pos"
        assert ep.sensor_slice(3) == (5, 3)
        assert ep.joint_slice(2).qpos_len == 7
        assert mjbridge.field_name(mjbridge.Field.XFRC_APPLIED) == "xfrc_applied"
        ep.input(mjbridge.Field.MOCAP_POS, [0.1, 0.2, 0.9], id=0)
        report = ep.write_step([(mjbridge.Field.CTRL, -1, [0.5, -0.5])], nstep=3)
        assert (report.tick_before, report.tick_after) == (0, 3)
        values, info = ep.frame([mjbridge.Field.QPOS, mjbridge.Field.CTRL, mjbridge.Field.MOCAP_POS])
        assert info.tick == 3 and info.cause == mjbridge.FrameCause.STEP
        assert list(values[mjbridge.Field.CTRL]) == [0.5, -0.5]
        assert list(values[mjbridge.Field.MOCAP_POS]) == [0.1, 0.2, 0.9]
        with pytest.raises(MjbError) as e:
            ep.frame([mjbridge.Field.QVEL])
        assert e.value.reason == Reason.NOT_IN_FRAME
        with pytest.raises(MjbError) as e:
            ep.input(mjbridge.Field.XFRC_APPLIED, [1.0, 2.0], id=4)
        assert e.value.reason == Reason.DIMENSION and e.value.pointer == "/values"


def test_log_callback_sees_a_refused_document_and_a_snapshot_restores():
    seen = []
    mjbridge.set_log_callback(lambda level, msg: seen.append((level, msg)), mjbridge.LogLevel.INFO)
    try:
        with Endpoint.open(config("host.xml")) as ep:
            ep.step(5)
            snap = ep.snapshot()
            ep.step(5)
            ep.restore(snap)
            assert json.loads(ep.world())["world"]["tick"] == 5
            with pytest.raises(MjbError):
                ep.restore({"profile": 1})
    finally:
        mjbridge.set_log_callback(None)
    assert any(level == mjbridge.LogLevel.INFO and "refused" in msg for level, msg in seen), seen


def test_plugin_loading_refuses_a_missing_library():
    with pytest.raises(MjbError) as e:
        mjbridge.plugin_load("/no/such/plugin.so")
    assert e.value.reason in (Reason.PLUGIN_LOAD, Reason.UNSUPPORTED)
