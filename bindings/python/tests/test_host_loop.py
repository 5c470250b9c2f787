"""The inner loop at engine speed (Stepper, FrameReader, frame(out=)), names (ModelIndex) and
config building (Config, pathlib), against the real library and MuJoCo."""

import ctypes
import math
import json
import os
import pathlib
import shutil

import pytest

import mjbridge
from mjbridge import Config, Endpoint, Field, FrameCause, MjbError, Outcome, Reason

MODELS = os.environ.get("MJB_TEST_MODELS", os.path.join(os.path.dirname(__file__), "../../../tests/models"))
READ = [Field.QPOS, Field.QVEL, Field.SENSORDATA]
FRAME = ["qpos", "qvel", "ctrl", "sensordata"]


def host(**extra):
    return Config(pathlib.Path(MODELS) / "host.xml", seed=3, frame=FRAME, **extra)


def bits(values):
    return [float(v).hex() for v in values]


def test_stepper_steps_like_write_step_and_reads_the_frame_in_one_call():
    with Endpoint.open(host()) as a, Endpoint.open(host()) as b:
        st = a.stepper(read=READ, nstep=3)
        assert st.nstep == 3 and list(st.ctrl) == [0.0, 0.0]
        for k in range(4):
            action = [0.5 - k, 0.25 * k]
            info = st.step(action)
            report = b.write_step([(Field.CTRL, -1, action)], nstep=3)
            values, binfo = b.frame(READ)
            assert info is st.info and info.tick == 3 * k + 3 == binfo.tick
            assert (st.report.tick_before, st.report.tick_after) == (
                report.tick_before,
                report.tick_after,
            )
            for f in READ:
                assert bits(st.values[f]) == bits(values[f])
        assert list(st.ctrl) == [-2.5, 0.75]
        # step() without an action writes the ctrl array as it is.
        st.ctrl[:] = [1.0, -1.0]
        st.step()
        assert json.loads(a.world())["world"]["ctrl"] == [1.0, -1.0]


def test_stepper_refusal_raises_with_the_report_and_changes_nothing():
    with Endpoint.open(host()) as ep:
        st = ep.stepper(read=READ)
        st.step([0.1, 0.2])
        before = ep.world()
        kept = {f: bits(st.values[f]) for f in READ}
        with pytest.raises(MjbError) as e:
            st.step([float("nan"), 0.0])
        assert (e.value.outcome, e.value.reason) == (Outcome.REJECTED, Reason.NOT_FINITE)
        assert e.value.pointer == "/inputs/0/values/0"
        assert e.value.report is not None and e.value.report is not st.report
        assert e.value.report.tick_after == 1
        assert ep.world() == before
        assert {f: bits(st.values[f]) for f in READ} == kept
        ep.stop()
        with pytest.raises(MjbError) as e:
            st.step([0.1, 0.2])
        assert e.value.reason is Reason.STOP_LATCHED
        assert ep.world() == before


def test_a_field_outside_the_frame_refuses_the_step_before_anything_is_written():
    with Endpoint.open(host()) as ep:
        with pytest.raises(MjbError) as e:
            ep.stepper(read=[Field.XPOS])  # the stepper cannot size a field it is not sent
        assert e.value.reason is Reason.NOT_IN_FRAME
        np = pytest.importorskip("numpy")
        out = {Field.QPOS: np.zeros(13), Field.XPOS: np.zeros(18)}
        st = ep.stepper(read=[Field.QPOS, Field.XPOS], out=out)
        before = ep.world()
        with pytest.raises(MjbError) as e:
            st.step([1.0, 1.0])
        assert (e.value.reason, e.value.pointer) == (Reason.NOT_IN_FRAME, "/requests/1/field")
        assert ep.world() == before
        assert not out[Field.QPOS].any()
        # A caller array shorter than the field: refused, nothing written.
        short = {Field.QPOS: np.zeros(12)}
        st = ep.stepper(read=[Field.QPOS], out=short)
        with pytest.raises(MjbError) as e:
            st.step([1.0, 1.0])
        assert (e.value.reason, e.value.pointer) == (Reason.DIMENSION, "/requests/0/cap")
        assert ep.world() == before


def test_caller_arrays_are_written_in_place_and_wrong_arrays_are_refused():
    np = pytest.importorskip("numpy")
    with Endpoint.open(host()) as ep:
        out = {f: np.full(ep.frame_field_len(f), -1.0) for f in READ}
        st = ep.stepper(read=READ, nstep=2, out=out)
        st.step([0.3, 0.0])
        for f in READ:
            assert st.values[f] is out[f]
        values, _ = ep.frame(READ)
        for f in READ:
            assert bits(out[f]) == bits(values[f])
        with pytest.raises(TypeError):
            ep.stepper(read=[Field.QPOS], out={Field.QPOS: np.zeros(13, dtype=np.float32)})
        with pytest.raises(TypeError):
            ep.stepper(read=[Field.QPOS], out={Field.QPOS: np.zeros(26)[::2]})
        # frame(out=) and a FrameReader with its own buffers read the same values.
        mine = {f: np.zeros(ep.frame_field_len(f)) for f in READ}
        got, info = ep.frame(READ, out=mine)
        assert all(got[f] is mine[f] for f in READ) and info.tick == 2
        reader = ep.frame_reader(READ)
        assert reader.read().tick == 2
        for f in READ:
            assert bits(reader.values[f]) == bits(mine[f])
        # ctypes arrays work as caller buffers too.
        c = (ctypes.c_double * 13)()
        ep.frame([Field.QPOS], out={Field.QPOS: c})
        assert bits(c) == bits(mine[Field.QPOS])


def test_a_frame_reader_prepares_once_follows_a_replacement_and_refuses_a_short_buffer():
    pendulum = pathlib.Path(MODELS) / "pendulum.xml"
    with Endpoint.open(host()) as ep:
        ep.step(2)
        reader = ep.frame_reader([Field.QPOS])
        assert reader.read().tick == 2 and len(reader.values[Field.QPOS]) == 13
        ep.step(1)
        assert reader.read().tick == 3
        assert bits(reader.values[Field.QPOS]) == bits(ep.frame([Field.QPOS])[0][Field.QPOS])
        # After a replacement the reader is prepared again for the new model.
        ep.replace_model(pendulum)
        info = reader.read()
        assert (info.configuration, info.tick) == (1, 3)
        # A caller buffer shorter than its field is refused when the reader is prepared.
        short = (ctypes.c_double * 2)()
        ep.replace_model(pathlib.Path(MODELS) / "host.xml")
        small = ep.frame_reader([Field.QPOS], out={Field.QPOS: short})
        with pytest.raises(MjbError) as e:
            small.read()
        assert e.value.reason == Reason.DIMENSION and list(short) == [0.0, 0.0]


def test_a_frame_reader_after_a_replacement_by_a_smaller_model_holds_no_old_value():
    pendulum = pathlib.Path(MODELS) / "pendulum.xml"
    with Endpoint.open(host()) as ep:
        ep.step(2)
        mine = ep.frame_reader([Field.QPOS])
        caller = ctypes.c_double * 13
        theirs_buf = caller()
        theirs = ep.frame_reader([Field.QPOS], out={Field.QPOS: theirs_buf})
        mine.read()
        theirs.read()
        assert len(mine.values[Field.QPOS]) == 13 and mine.lengths[Field.QPOS] == 13
        ep.replace_model(pendulum)
        assert mine.read().configuration == 1 and theirs.read().configuration == 1
        now = ep.frame([Field.QPOS])[0][Field.QPOS]
        assert len(now) == 1
        # The reader's own array is the new field, exactly.
        assert len(mine.values[Field.QPOS]) == 1 and mine.lengths[Field.QPOS] == 1
        assert bits(mine.values[Field.QPOS]) == bits(now)
        # The caller's array: the new value, then NaN where the old model's values were.
        assert theirs.lengths[Field.QPOS] == 1
        assert bits(list(theirs_buf)[:1]) == bits(now)
        assert all(math.isnan(v) for v in list(theirs_buf)[1:]), list(theirs_buf)
        # Back to the larger model: every value is the new model's again.
        ep.replace_model(host())
        mine.read()
        theirs.read()
        again = ep.frame([Field.QPOS])[0][Field.QPOS]
        assert len(mine.values[Field.QPOS]) == 13
        assert bits(mine.values[Field.QPOS]) == bits(again) == bits(list(theirs_buf))


def test_stepper_restore_is_a_reset_with_the_frame_read():
    with Endpoint.open(host()) as ep:
        st = ep.stepper(read=READ)
        st.step([0.5, 0.5])
        checkpoint = ep.checkpoint().encode("utf-8")
        at = {f: bits(st.values[f]) for f in (Field.QPOS, Field.QVEL)}
        for _ in range(10):
            st.step([-1.0, 1.0])
        info = st.restore(checkpoint)
        assert info.tick == 1 and info.cause == FrameCause.RESTORE
        assert info.stale & (1 << Field.SENSORDATA)  # no mj_forward on a restore
        assert {f: bits(st.values[f]) for f in (Field.QPOS, Field.QVEL)} == at
        assert list(st.ctrl) == [0.5, 0.5]  # the restored controls (the frame carries ctrl)
        st.step()
        assert json.loads(ep.world())["world"]["tick"] == 2
        # A refused document: raised, nothing changed, the arrays untouched.
        before = ep.world()
        with pytest.raises(MjbError) as e:
            st.restore(checkpoint.replace(b'"seed":3', b'"seed":4'))
        assert e.value.reason is Reason.SEED
        assert ep.world() == before


def test_without_numpy_the_loop_uses_ctypes_arrays(monkeypatch):
    monkeypatch.setattr(mjbridge, "_np", None)
    with Endpoint.open(host()) as ep:
        st = ep.stepper(read=[Field.QPOS])
        st.step([0.2, 0.0])
        assert isinstance(st.values[Field.QPOS], ctypes.Array)
        assert len(st.values[Field.QPOS]) == 13


def test_index_names_the_slices_of_qpos_qvel_ctrl_and_sensordata():
    with Endpoint.open(host()) as ep:
        idx = ep.index()
        assert idx.joints == ["slide", "hinge", "ball_free"]  # the ball joint is unnamed
        assert idx.actuators == ["push", "twist"]
        assert idx.sensors == ["slide_pos", "hinge_vel", "tip_pos", "ball_acc"]
        assert idx.qpos("ball_free") == slice(2, 9) and idx.qvel("ball_free") == slice(2, 8)
        assert idx.qpos("hinge") == slice(1, 2)
        assert idx.ctrl("twist") == slice(1, 2)
        assert idx.sensordata("tip_pos") == slice(2, 5)
        with pytest.raises(KeyError, match="no joint is named 'nope'"):
            idx.qpos("nope")
        with pytest.raises(KeyError):
            idx.ctrl("slide")  # a joint, not an actuator
        # The slices select what the world document and the frame serve.
        st = ep.stepper(read=READ, nstep=5)
        st.step([2.0, -0.5])
        world = json.loads(ep.world())["world"]
        assert list(st.values[Field.QPOS][idx.qpos("ball_free")]) == world["qpos"][2:9]
        assert list(st.ctrl[idx.ctrl("twist")]) == [-0.5]
        # A jointpos sensor reads qpos at the start of the engine's step: one step later, the
        # sensor's slice holds what the joint's slice held.
        one = ep.stepper(read=READ, nstep=1)
        one.step()
        slide = list(one.values[Field.QPOS][idx.qpos("slide")])
        one.step()
        assert list(one.values[Field.SENSORDATA][idx.sensordata("slide_pos")]) == slide
        assert idx.configuration == 0


def test_config_escapes_windows_paths_quotes_and_non_ascii(tmp_path):
    name = 'Zo\u00eb "quoted" \u6a5f\u68b0 \\ \U0001F916'
    windows = "C:\\Users\\Zo\u00eb\\robot \"v2\".xml"
    cfg = Config(windows, name=name, seed=7, profile="auto", frame=[Field.QPOS, "ctrl"])
    assert json.loads(cfg.to_json()) == {
        "model": {"xml_path": windows},
        "name": name,
        "seed": 7,
        "profile": "auto",
        "frame": ["qpos", "ctrl"],
    }
    # The bridge parses it (no MALFORMED_JSON) and looks for exactly that file.
    with pytest.raises(MjbError) as e:
        Endpoint.open(cfg)
    assert (e.value.reason, e.value.pointer) == (Reason.MODEL_LOAD, "/model")
    assert windows in e.value.message  # the exact path reached MuJoCo
    # Quotes and non-ASCII in a real folder load the model (MuJoCo reads a backslash as a
    # separator, so a real folder name cannot carry one here).
    folder = tmp_path / 'Zo\u00eb "q" \u6a5f\u68b0'
    folder.mkdir()
    shutil.copy(os.path.join(MODELS, "pendulum.xml"), folder / "pendulum.xml")
    with Endpoint.open(Config(folder / "pendulum.xml", name=name)) as ep:
        assert json.loads(ep.world())["world"]["name"] == name


def test_paths_are_accepted_wherever_a_config_is(tmp_path):
    path = pathlib.Path(MODELS) / "pendulum.xml"
    with Endpoint.open(path) as ep:  # a bare path: {"model": {"xml_path": path}}
        assert ep.dims().nq == 1
        with Endpoint.open({"model": {"xml_path": path}, "seed": 2}) as ep2:
            assert json.loads(ep2.world())["world"]["seed"] == 2
        r = ep.replace_model(pathlib.Path(MODELS) / "host.xml")
        assert ep.dims().nq == 13 and r.outcome == Outcome.OK
        ep.replace_model(Config(path, seed=99))  # its model alone
        assert ep.dims().nq == 1 and ep.dims().configuration == 2
    with pytest.raises(ValueError):
        Config()
    with pytest.raises(ValueError):
        Config(path, xml="<mujoco/>")
    xml = Config(xml="<mujoco><worldbody><geom size='1'/></worldbody></mujoco>", publish="end_of_call")
    assert json.loads(xml.to_json())["frame"] == {"publish": "end_of_call"}
    with Endpoint.open(xml) as ep:
        assert ep.dims().ngeom == 1
