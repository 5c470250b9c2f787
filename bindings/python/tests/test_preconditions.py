"""Preconditions (expect_tick=, expect_configuration= on every mutation and in the stepper),
documents that say where they were read, the model fingerprint and restore points, against the
real library and MuJoCo. Every refusal is checked for its reason and for nothing changed."""

import json
import os
import pathlib
import threading

import pytest

import mjbridge
from mjbridge import (
    Config,
    Document,
    Endpoint,
    Field,
    FrameCause,
    MjbError,
    Outcome,
    Reason,
    RestorePoint,
)

MODELS = os.environ.get("MJB_TEST_MODELS", os.path.join(os.path.dirname(__file__), "../../../tests/models"))
HOST = pathlib.Path(MODELS) / "host.xml"
READ = [Field.QPOS, Field.QVEL, Field.SENSORDATA]
FRAME = ["qpos", "qvel", "ctrl", "sensordata"]


def host(**extra):
    return Config(HOST, seed=3, frame=FRAME, **extra)


def bits(values):
    return [float(v).hex() for v in values]


def state(ep):
    """Everything a refused call must leave alone."""
    s = ep.safety()
    return ep.world(), ep.dims().configuration, (s.stopped, s.stop_count, s.fenced)


def test_reads_say_the_tick_and_configuration_they_were_read_at():
    with Endpoint.open(host()) as ep:
        ep.write_step([(Field.CTRL, -1, [0.5, -0.5])], nstep=3)
        _, seen = ep.frame([Field.QPOS])
        world, cp, snap = ep.world(), ep.checkpoint(), ep.snapshot()
        for doc in (world, cp, snap):
            assert isinstance(doc, Document) and isinstance(doc, str)
            assert (doc.tick, doc.configuration) == (seen.tick, seen.configuration) == (3, 0)
        assert json.loads(world)["world"]["tick"] == 3 and json.loads(cp)["tick"] == 3
        assert snap == world and cp != world
        assert type(world.text) is str and world.text == world
        assert "tick=3" in repr(world)
        # A Document is a document to give back: restore takes it as it is.
        ep.step(2)
        assert ep.restore(cp).tick_after == 3
        # A replacement keeps the tick and bumps the configuration.
        ep.replace_model(HOST)
        after = ep.world()
        assert (after.tick, after.configuration) == (3, 1)


def mutations(ep, st, rp, cp):
    """Every mutation of the binding, each as a function of its precondition keywords."""
    ctrl = [0.25, -0.5]
    return {
        "step": lambda **e: ep.step(1, **e),
        "set_ctrl": lambda **e: ep.set_ctrl(ctrl, **e),
        "world_write": lambda **e: ep.world_write({"world": {"ctrl": [0.5, 0.5]}}, **e),
        "restore": lambda **e: ep.restore(cp, **e),
        "restore bytes": lambda **e: ep.restore(cp.encode("utf-8"), **e),
        "input": lambda **e: ep.input(Field.CTRL, [0.125], id=1, **e),
        "write_step": lambda **e: ep.write_step([(Field.CTRL, -1, ctrl)], nstep=2, **e),
        "apply": lambda **e: ep.apply(rp, **e),
        "stepper.step": lambda **e: st.step(ctrl, **e),
        "stepper.restore": lambda **e: st.restore(cp, **e),
        "stepper.apply": lambda **e: st.apply(rp, **e),
        "replace_model": lambda **e: ep.replace_model(HOST, **e),
    }


def test_every_mutation_refuses_a_stale_tick_or_configuration_and_changes_nothing():
    with Endpoint.open(host()) as ep:
        st = ep.stepper(read=READ)
        st.step([0.1, 0.2])
        ep.step(2)
        cp = ep.checkpoint()
        rp = ep.capture()
        calls = mutations(ep, st, rp, cp)
        assert list(calls)[-1] == "replace_model"  # last: it makes rp and cp stale
        for name, call in calls.items():
            before = state(ep)
            world, configuration = before[0], before[1]
            kept = {f: bits(st.values[f]) for f in READ}
            for stale in (
                {"expect_tick": world.tick + 1},
                {"expect_configuration": configuration + 1},
                {"expect_tick": world.tick - 1, "expect_configuration": configuration},
                {"expect_tick": world.tick, "expect_configuration": configuration + 1},
                {"expect_frame": world.frame - 1},
                {"expect_tick": world.tick, "expect_frame": world.frame + 1},
            ):
                with pytest.raises(MjbError) as e:
                    call(**stale)
                assert (e.value.outcome, e.value.reason) == (Outcome.REJECTED, Reason.PRECONDITION), name
                assert "another call moved the endpoint on first" in e.value.message, name
                assert e.value.report is not None and e.value.report.tick_after == world.tick, name
                assert state(ep) == before, "%s changed the endpoint" % name
                if name.startswith("stepper"):
                    assert {f: bits(st.values[f]) for f in READ} == kept, name
            r = call(
                expect_tick=world.tick, expect_configuration=configuration, expect_frame=world.frame
            )
            if isinstance(r, mjbridge.Report):
                assert (r.outcome, r.tick_before) == (Outcome.OK, world.tick), name
            else:  # the stepper's FrameInfo: the frame after the call, read
                assert r is st.info and r.frame != 0 and r.tick == ep.world().tick, name
            # One member alone is enough, and no keyword is no precondition.
            call(expect_tick=ep.world().tick)
            call()
        assert ep.dims().configuration == 3
        with pytest.raises(ValueError):
            ep.step(1, expect_tick=-1)
        with pytest.raises(TypeError):
            ep.step(1, mjbridge.WAIT_FOREVER, 5)  # keyword-only


def test_compare_and_step_refuses_inputs_chosen_for_a_state_another_caller_left():
    with Endpoint.open(host()) as ep:
        st = ep.stepper(read=READ)
        info = st.step([0.0, 0.0])
        seen = info.tick
        ep.step(1)  # another thread stepped meanwhile
        before = ep.world()
        with pytest.raises(MjbError) as e:
            st.step([1.0, 1.0], expect_tick=seen)
        assert e.value.reason is Reason.PRECONDITION
        assert ep.world() == before
        # Read again, choose again: admitted.
        _, again = ep.frame([Field.QPOS])
        assert st.step([1.0, 1.0], expect_tick=again.tick).tick == again.tick + 1

        # Threads: a controller steps conditionally on what it read while another thread resets
        # the endpoint to a restore point again and again. Every admitted step started from the
        # tick its inputs were chosen for; every refusal changed nothing the controller chose.
        with ep.capture() as start:
            done = threading.Event()

            def resetter():
                while not done.is_set():
                    ep.apply(start)

            t = threading.Thread(target=resetter)
            t.start()
            admitted = refused = 0
            try:
                for _ in range(400):
                    _, frame = ep.frame([Field.QPOS])
                    try:
                        r = ep.write_step(
                            [(Field.CTRL, -1, [0.5, -0.5])],
                            expect_tick=frame.tick,
                            expect_configuration=frame.configuration,
                        )
                    except MjbError as err:
                        assert err.reason is Reason.PRECONDITION
                        assert err.report.tick_after != frame.tick
                        refused += 1
                    else:
                        assert r.tick_before == frame.tick and r.tick_after == frame.tick + 1
                        admitted += 1
            finally:
                done.set()
                t.join()
            assert admitted + refused == 400 and admitted > 0


def test_stepper_precondition_checks_its_requests_before_it_writes():
    np = pytest.importorskip("numpy")
    with Endpoint.open(host()) as ep:
        out = {Field.QPOS: np.zeros(13), Field.XPOS: np.zeros(18)}
        st = ep.stepper(read=[Field.QPOS, Field.XPOS], out=out)
        before = ep.world()
        with pytest.raises(MjbError) as e:
            st.step([1.0, 1.0], expect_tick=before.tick)
        assert (e.value.reason, e.value.pointer) == (Reason.NOT_IN_FRAME, "/requests/1/field")
        assert e.value.report is not None and e.value.report.reason == Reason.NOT_IN_FRAME
        assert ep.world() == before and not out[Field.XPOS].any()
        # A stepper with good requests: mjb_write_step_read_if each step.
        ok = ep.stepper(read=READ, nstep=2)
        for k in range(3):
            tick = ep.world().tick
            info = ok.step([0.1 * k, 0.0], expect_tick=tick)
            assert info.tick == tick + 2 and info.cause == FrameCause.STEP
            values, _ = ep.frame(READ)
            for f in READ:
                assert bits(ok.values[f]) == bits(values[f])


def test_model_fingerprint_names_the_compiled_model_and_a_world_of_another_is_refused():
    xml = HOST.read_text()
    damped = xml.replace('damping="0.5"', 'damping="0.6"')
    assert damped != xml
    with Endpoint.open(host()) as a, Endpoint.open(Config(xml=xml, seed=3)) as b, Endpoint.open(
        Config(xml=damped, seed=3)
    ) as c:
        fa = a.model_fingerprint()
        assert fa.startswith("sha256:") and len(fa) == 71
        assert int(fa[7:], 16) >= 0
        assert b.model_fingerprint() == fa  # the same model, from a file or from text
        assert c.model_fingerprint() != fa and c.dims().nq == a.dims().nq
        world = a.world()
        assert json.loads(world)["world"]["model_fingerprint"] == fa
        c.step(3)
        before = state(c)
        with pytest.raises(MjbError) as e:
            c.restore(world)
        assert (e.value.outcome, e.value.reason, e.value.pointer) == (
            Outcome.REJECTED,
            Reason.MODEL_FINGERPRINT,
            "/world/model_fingerprint",
        )
        assert state(c) == before
        with pytest.raises(MjbError) as e:
            c.restore_point_from_json(world)
        assert e.value.reason is Reason.MODEL_FINGERPRINT
        assert state(c) == before
        b.restore(world)
        assert b.world() == world


def test_restore_points_restore_bit_for_bit_and_refuse_what_is_not_theirs():
    with Endpoint.open(host()) as ep, Endpoint.open(host()) as other:
        ep.write_step([(Field.CTRL, -1, [0.3, -0.2])], nstep=5)
        cp = ep.checkpoint()
        with ep.capture() as rp:
            assert isinstance(rp, RestorePoint) and not rp.closed and rp.handle
            assert (rp.tick, rp.configuration) == (5, 0)
            doc = rp.to_json()
            assert doc == cp and (doc.tick, doc.configuration) == (5, 0)  # byte for byte
            ep.step(7)
            after = ep.world()
            for _ in range(3):
                r = ep.apply(rp)
                assert (r.outcome, r.tick_before, r.tick_after) == (Outcome.OK, 12, 5)
                assert ep.checkpoint() == cp
                ep.step(7)
                assert ep.world() == after  # the same continuation
            # From JSON (str, bytes or a dict), validated like restore.
            for saved in (cp, cp.encode("utf-8"), json.loads(cp)):
                with ep.restore_point_from_json(saved) as loaded:
                    assert loaded.to_json() == cp and loaded.tick == 5
                    ep.apply(loaded)
                    assert ep.checkpoint() == cp
            before = state(ep)
            with pytest.raises(MjbError) as e:
                ep.restore_point_from_json(cp.replace('"seed":3', '"seed":4'))
            assert (e.value.outcome, e.value.reason, e.value.pointer) == (
                Outcome.REJECTED,
                Reason.SEED,
                "/seed",
            )
            with pytest.raises(MjbError) as e:
                ep.restore_point_from_json(b'{"profile":')
            assert e.value.reason is Reason.MALFORMED_JSON
            assert state(ep) == before

            # Another endpoint of the same model refuses it, changing nothing.
            other.step(4)
            theirs = state(other)
            with pytest.raises(MjbError) as e:
                other.apply(rp)
            assert (e.value.outcome, e.value.reason) == (Outcome.REJECTED, Reason.OTHER_ENDPOINT)
            assert e.value.report.tick_after == 4
            assert state(other) == theirs

            # Immutable: applied from several threads at once.
            errors = []

            def applier():
                try:
                    for _ in range(50):
                        ep.apply(rp)
                except MjbError as err:  # pragma: no cover - reported below
                    errors.append(err)

            threads = [threading.Thread(target=applier) for _ in range(3)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert errors == [] and ep.checkpoint() == cp

            # The stepper resets from it and reads the frame (and the controls) after it.
            st = ep.stepper(read=READ)
            st.step([1.0, 1.0])
            info = st.apply(rp)
            assert info.tick == 5 and info.cause == FrameCause.RESTORE
            assert list(st.ctrl) == [0.3, -0.2]

            # A model replacement makes it stale.
            ep.replace_model(HOST)
            before = state(ep)
            with pytest.raises(MjbError) as e:
                ep.apply(rp)
            assert e.value.reason is Reason.CONFIGURATION
            assert state(ep) == before
        # Closed (by the with block): refused by every call; closing again is fine.
        assert rp.closed and "closed" in repr(rp)
        rp.close()
        with pytest.raises(MjbError) as e:
            ep.apply(rp)
        assert e.value.outcome is Outcome.INVALID_ARGUMENT
        assert state(ep) == before
        with pytest.raises(MjbError) as e:
            rp.to_json()
        assert e.value.outcome is Outcome.INVALID_ARGUMENT
        with pytest.raises(TypeError):
            RestorePoint()
    # A closed endpoint captures nothing.
    with pytest.raises(MjbError) as e:
        ep.capture()
    assert (e.value.outcome, e.value.reason) == (Outcome.INVALID_ARGUMENT, Reason.CLOSED)
