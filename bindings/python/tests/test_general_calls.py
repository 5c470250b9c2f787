"""The general calls' prebuilt arguments (write_step, frame) and the one precondition parser
(expect= and the expect_* keywords), against the real library and MuJoCo."""

import json
import os
import pathlib
import threading

import pytest

import mjbridge
from mjbridge import Endpoint, Field, MjbError, Reason, precondition

np = pytest.importorskip("numpy")

MODELS = os.environ.get("MJB_TEST_MODELS", os.path.join(os.path.dirname(__file__), "../../../tests/models"))
HOST = pathlib.Path(MODELS) / "host.xml"
PENDULUM = pathlib.Path(MODELS) / "pendulum.xml"
READ = [Field.QPOS, Field.QVEL, Field.SENSORDATA]


def test_frame_results_are_fresh_arrays_of_their_field_lengths():
    with Endpoint.open(HOST) as ep:
        d = ep.dims()
        a, ia = ep.frame(READ)
        assert [len(a[f]) for f in READ] == [d.nq, d.nv, d.nsensordata]
        ep.write_step([(Field.CTRL, -1, [0.5, -0.5])], nstep=5)
        b, ib = ep.frame(READ)
        # The first result is not overwritten by the second call (its own copy).
        assert (ia.tick, ib.tick) == (0, 5)
        assert not np.array_equal(a[Field.QPOS], b[Field.QPOS])
        again, _ = ep.frame(READ)
        assert all(np.array_equal(again[f], b[f]) for f in READ)
        # The same values as a read into the caller's arrays.
        out = {f: np.empty(len(b[f])) for f in READ}
        ep.frame(READ, out=out)
        assert all(np.array_equal(out[f], b[f]) for f in READ)


def test_frame_follows_a_model_replacement_to_longer_and_shorter_fields():
    with Endpoint.open(PENDULUM) as ep:
        small = ep.dims()
        v, _ = ep.frame([Field.QPOS, Field.QVEL])
        assert (len(v[Field.QPOS]), len(v[Field.QVEL])) == (small.nq, small.nv)
        ep.replace_model(HOST)  # longer fields: the prebuilt buffer is refused, then regrown
        big = ep.dims()
        assert big.nq > small.nq
        v, info = ep.frame([Field.QPOS, Field.QVEL])
        assert (len(v[Field.QPOS]), len(v[Field.QVEL])) == (big.nq, big.nv)
        assert info.configuration == 1
        ep.replace_model(PENDULUM)  # shorter again: the values are the written length
        v, info = ep.frame([Field.QPOS, Field.QVEL])
        assert (len(v[Field.QPOS]), len(v[Field.QVEL])) == (small.nq, small.nv)
        assert info.configuration == 2


def test_write_step_takes_lists_arrays_and_changing_lengths():
    with Endpoint.open(HOST) as ep:
        ep.write_step([(Field.CTRL, -1, [0.25, -0.25])])
        ep.write_step([(Field.CTRL, -1, np.array([0.5, 0.75]))], nstep=2)
        ep.write_step([(Field.CTRL, 0, [0.125])], nstep=1)  # one actuator: another length
        w = ep.world()
        assert json.loads(w)["world"]["ctrl"] == [0.125, 0.75]
        assert w.tick == 4
        # A wrong length is refused by the library, nothing changed.
        before = ep.world()
        with pytest.raises(MjbError) as e:
            ep.write_step([(Field.CTRL, -1, [1.0, 2.0, 3.0])])
        assert e.value.reason == Reason.DIMENSION
        assert ep.world() == before


def test_write_step_from_several_threads_uses_its_own_arguments():
    with Endpoint.open(HOST) as ep:
        errors = []

        def run(k):
            try:
                for _ in range(200):
                    ep.write_step([(Field.CTRL, -1, [0.01 * k, -0.01 * k])])
                    v, _ = ep.frame(READ)
                    assert len(v[Field.QPOS]) == ep.dims().nq
            except Exception as x:  # pragma: no cover - reported below
                errors.append(x)

        threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert ep.world().tick == 800


def test_expect_takes_a_precondition_object_and_the_keywords_together():
    with Endpoint.open(HOST) as ep:
        ep.step(2)
        _, seen = ep.frame([Field.QPOS])
        assert precondition(seen=seen).flags == (
            mjbridge.EXPECT_TICK | mjbridge.EXPECT_CONFIGURATION | mjbridge.EXPECT_FRAME
        )
        e = precondition(tick=seen.tick)
        assert ep.step(1, expect=e).tick_after == 3
        before = ep.world()
        for call in (
            lambda: ep.step(1, expect=e),
            lambda: ep.write_step([(Field.CTRL, -1, [0.0, 0.0])], expect=precondition(seen=seen)),
            # The keyword adds to the object: configuration ok, the tick is stale.
            lambda: ep.step(1, expect=precondition(configuration=0), expect_tick=2),
        ):
            with pytest.raises(MjbError) as x:
                call()
            assert x.value.reason == Reason.PRECONDITION
            assert ep.world() == before
        assert ep.step(1, expect=precondition(configuration=0), expect_tick=3).tick_after == 4
        # A misspelt keyword is an error, not a call without a precondition.
        with pytest.raises(TypeError):
            ep.step(1, expect_tik=4)
        with pytest.raises(ValueError):
            ep.step(1, expect_tick=-1)
        assert ep.world().tick == 4


def test_without_numpy_every_input_reaches_the_library():
    """The general calls' list path (numpy not importable): several inputs in one write_step,
    each kept alive during the call, and frame() as lists."""
    import subprocess
    import sys

    script = "\n".join(
        [
            "import json, sys",
            "sys.modules['numpy'] = None",
            "import mjbridge",
            "from mjbridge import Field",
            "ep = mjbridge.Endpoint(sys.argv[1])",
            "for _ in range(50):",
            "    ep.write_step([(Field.CTRL, 0, [0.125]), (Field.CTRL, 1, [-0.25])])",
            "v, info = ep.frame([Field.QPOS, Field.QVEL])",
            "print(json.dumps([json.loads(ep.world())['world']['ctrl'], info.tick,",
            "                  type(v[Field.QPOS]).__name__, len(v[Field.QVEL])]))",
        ]
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(mjbridge.__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run(
        [sys.executable, "-c", script, str(HOST)], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    with Endpoint.open(HOST) as ep:
        nv = ep.dims().nv
    assert json.loads(out.stdout) == [[0.125, -0.25], 50, "list", nv]
