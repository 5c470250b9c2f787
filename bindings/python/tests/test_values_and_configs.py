"""Issue 27's Python traps, against the real library and MuJoCo:
- a read's FrameInfo is a value: a result kept as ``seen`` keeps that call's numbers, so a
  later precondition made from it is refused once the endpoint moved on (and nothing changes);
- where a config goes, a str is a JSON document when it starts with ``{`` (after whitespace)
  and a model path otherwise; bytes are a document; os.PathLike is a path."""

import json
import os
import pathlib

import pytest

import mjbridge
from mjbridge import Config, Endpoint, Field, FrameInfo, MjbError, Outcome, Reason
from mjbridge import _native

MODELS = os.environ.get("MJB_TEST_MODELS", os.path.join(os.path.dirname(__file__), "../../../tests/models"))
HOST = pathlib.Path(MODELS) / "host.xml"
PENDULUM = pathlib.Path(MODELS) / "pendulum.xml"
READ = [Field.QPOS, Field.QVEL]


def host():
    return Config(HOST, seed=3, frame=["qpos", "qvel", "ctrl"])


def state(ep):
    """Everything a refused call must leave alone: the world (tick, state), the checkpoint
    (state hash), the configuration and the safety state."""
    s = ep.safety()
    return ep.world(), ep.checkpoint(), ep.dims().configuration, (s.stopped, s.stop_count)


def refused_precondition(call):
    with pytest.raises(MjbError) as e:
        call()
    assert (e.value.outcome, e.value.reason) == (Outcome.REJECTED, Reason.PRECONDITION)
    return e.value


# ---- FrameInfo is a value --------------------------------------------------------------------


def test_frame_info_matches_the_c_struct_field_for_field():
    c, view = mjbridge._frame_info_buffer()
    values = dict(tick=2**64 - 3, time=-1.5e-300, configuration=7, frame=2**63 + 11, cause=-2,
                  fields=(1 << 19) | 5, stale=1 << 40, retries=3)
    for k, v in values.items():
        setattr(c, k, v)
    info = mjbridge._frame_info(view)
    assert type(info) is FrameInfo and info._asdict() == values
    assert list(info._asdict()) == [f for f, _ in _native.FrameInfo._fields_]
    # A copy: writing the buffer again leaves it alone. Immutable, compared by value.
    c.frame = 1
    assert info.frame == 2**63 + 11
    with pytest.raises(AttributeError):
        info.tick = 0
    with pytest.raises(AttributeError):
        del info.tick
    again = mjbridge._frame_info(view)
    assert again != info and again.frame == 1
    c.frame = 2**63 + 11
    same = mjbridge._frame_info(view)
    assert same == info and hash(same) == hash(info) and same is not info
    assert repr(info).startswith("FrameInfo(tick=18446744073709551613, time=-1.5e-300,")
    # Made from numbers (a test's own), by position or name.
    assert FrameInfo(**values) == info
    assert FrameInfo(*values.values()) == info
    assert FrameInfo(tick=3)._asdict() == dict(dict.fromkeys(values, 0), tick=3)
    with pytest.raises(TypeError):
        FrameInfo(tock=3)


def test_a_kept_step_result_keeps_its_numbers_and_guards_a_later_step():
    with Endpoint.open(host()) as ep:
        st = ep.stepper(read=READ, nstep=2)
        seen = st.step([0.5, -0.5])
        kept = seen._asdict()
        assert seen.tick == 2 and seen.frame != 0
        # The endpoint moves on: the stepper itself, and another caller.
        later = st.step([0.25, 0.25])
        ep.step(1)
        assert seen._asdict() == kept and later.tick == 4 and later.frame > seen.frame
        assert seen is not later and st.info is later
        with pytest.raises(AttributeError):
            seen.frame = later.frame  # immutable
        before = state(ep)
        q_before = list(st.values[Field.QPOS])
        refused_precondition(lambda: st.step([1.0, 1.0], expect_frame=seen.frame))
        refused_precondition(lambda: st.step([1.0, 1.0], expect_tick=seen.tick))
        refused_precondition(lambda: ep.step(1, expect_frame=seen.frame))
        assert state(ep) == before and list(st.values[Field.QPOS]) == q_before
        assert seen._asdict() == kept
        # From where it is now, the same call is admitted.
        _, now = ep.frame([Field.QPOS])
        assert st.step([1.0, 1.0], expect_frame=now.frame).tick == now.tick + 2


def test_every_read_returns_its_own_frame_info():
    with Endpoint.open(host()) as ep:
        reader = ep.frame_reader(READ)
        st = ep.stepper(read=READ)
        first = reader.read()
        _, by_frame = ep.frame(READ)
        assert first == by_frame and first is not by_frame
        st.step([0.1, 0.2])
        second = reader.read()
        assert second.tick == first.tick + 1 and first.tick == 0 and reader.info is second
        # restore and apply return the frame after the reset, as values too.
        rp = ep.capture()
        cp = ep.checkpoint()
        st.step([0.3, 0.4])
        after_apply = st.apply(rp)
        st.step()
        after_restore = st.restore(cp)
        assert after_apply.tick == after_restore.tick == second.tick
        assert after_restore.frame > after_apply.frame
        # A kept reset result is stale once the endpoint moved on: refused, nothing changed.
        st.step()
        before = state(ep)
        refused_precondition(lambda: ep.apply(rp, expect_frame=after_apply.frame))
        refused_precondition(lambda: st.restore(cp, expect_frame=after_restore.frame))
        refused_precondition(lambda: ep.set_ctrl([0, 0], expect_frame=second.frame))
        assert state(ep) == before
        rp.close()


# ---- configs: a str is a document when it starts with "{", else a path -----------------------


def test_a_str_that_is_a_path_opens_the_model_and_a_str_document_is_json():
    as_path = str(PENDULUM)
    document = json.dumps({"model": {"xml_path": as_path}, "seed": 5})
    for config in (
        as_path,  # a str path
        PENDULUM,  # os.PathLike
        document,  # a str document
        " \n\t" + document,  # whitespace first: still a document
        document.encode("utf-8"),  # bytes: a document
        bytearray(document.encode("utf-8")),
        {"model": {"xml_path": PENDULUM}},
        Config(as_path),
    ):
        with Endpoint.open(config) as ep:
            assert ep.dims().nq == 1, config
    with Endpoint(document) as ep:
        assert json.loads(ep.world())["world"]["seed"] == 5


def test_a_str_path_that_does_not_exist_is_refused_with_the_librarys_reason():
    missing = os.path.join(MODELS, "no such model.xml")
    with pytest.raises(MjbError) as e:
        Endpoint.open(missing)
    assert (e.value.outcome, e.value.reason, e.value.pointer) == (
        Outcome.REJECTED,
        Reason.MODEL_LOAD,
        "/model",
    )
    assert missing in e.value.message  # read as a path, not as JSON (no MALFORMED_JSON)
    # Something that is neither: a str not starting with "{" is a path, whatever it holds.
    with pytest.raises(MjbError) as e:
        Endpoint.open('["not", "a", "config"]')
    assert e.value.reason is Reason.MODEL_LOAD
    # A str document that is broken JSON is refused as JSON.
    with pytest.raises(MjbError) as e:
        Endpoint.open('  {"model": ')
    assert e.value.reason is Reason.MALFORMED_JSON
    # Bytes are never a path.
    with pytest.raises(MjbError) as e:
        Endpoint.open(str(PENDULUM).encode("utf-8"))
    assert e.value.reason is Reason.MALFORMED_JSON


def test_replace_model_reads_a_str_as_open_does():
    with Endpoint.open(host()) as ep:
        ep.step(3)
        r = ep.replace_model(str(PENDULUM))
        assert r.outcome == Outcome.OK and ep.dims().nq == 1 and ep.dims().configuration == 1
        r = ep.replace_model(json.dumps({"model": {"xml_path": str(HOST)}}))
        assert ep.dims().nq == 13 and ep.dims().configuration == 2
        r = ep.replace_model("\n" + json.dumps({"model": {"xml_path": str(PENDULUM)}}))
        assert ep.dims().nq == 1 and ep.dims().configuration == 3
        before = state(ep)
        with pytest.raises(MjbError) as e:
            ep.replace_model(os.path.join(MODELS, "missing.xml"))
        assert e.value.reason is Reason.MODEL_LOAD and e.value.pointer == "/model"
        assert state(ep) == before
        # With a precondition, the path form goes through the conditional export.
        seen = ep.world()
        r = ep.replace_model(str(HOST), expect_configuration=seen.configuration)
        assert ep.dims().nq == 13 and ep.dims().configuration == 4
        before = state(ep)
        refused_precondition(
            lambda: ep.replace_model(str(PENDULUM), expect_configuration=seen.configuration)
        )
        assert state(ep) == before


def test_adopt_reads_a_str_as_open_does():
    # What adopt is given (its model pointers aside): the same bytes open would be given.
    doc = '{"seed": 1}'
    assert mjbridge._config_bytes(doc) == doc.encode("utf-8")
    assert json.loads(mjbridge._config_bytes("robot.xml")) == {"model": {"xml_path": "robot.xml"}}
    assert json.loads(mjbridge._config_bytes(pathlib.Path("a") / "b.xml")) == {
        "model": {"xml_path": os.path.join("a", "b.xml")}
    }
    assert mjbridge._config_bytes(b"robot.xml") == b"robot.xml"
    assert mjbridge._config_bytes(bytearray(b" {}")) == b" {}"
