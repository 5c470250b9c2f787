"""mjbridge.gymnasium.MjBridgeEnv: Gymnasium's env checker, exact continuation after load_state,
seeded resets, refusals, and Gymnasium's own MujocoEnv.set_state(qpos, qvel) side by side on a
model with actuator activations and contacts.

Run by tests/gym.rs in a venv with gymnasium, numpy, pytest, ray and MuJoCo's Python package
(pinned there); MJBRIDGE_LIB names the library, MJB_TEST_MODELS the repository's test models,
MJB_EXAMPLE_MODELS examples/models.
"""

import json
import os
import re
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mjbridge
from mjbridge import Field, Reason
from mjbridge.gymnasium import MjBridgeEnv, ctrl_ranges_from_mjcf

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.environ.get("MJB_TEST_MODELS", os.path.join(HERE, "../../../tests/models"))
EXAMPLES = os.environ.get("MJB_EXAMPLE_MODELS", os.path.join(HERE, "../../../examples/models"))
ACT = os.path.join(MODELS, "gym_act.xml")
CART_POLE = os.path.join(EXAMPLES, "cart_pole.xml")

# check_env's warnings that an env over qpos/qvel gives for a reason: positions and velocities
# have no bounds (Gymnasium's own MuJoCo environments declare the same Box(-inf, inf)).
UNBOUNDED_OBSERVATION = [
    r"A Box observation space minimum value is -infinity",
    r"A Box observation space maximum value is infinity",
]


def checked(env, allowed):
    """check_env with every warning an error, except those matching ``allowed`` (each of which
    must then occur: a listed reason that no longer applies fails too)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    messages = [str(w.message) for w in seen]
    unexpected = [m for m in messages if not any(re.search(a, m) for a in allowed)]
    assert not unexpected, unexpected
    for a in allowed:
        assert any(re.search(a, m) for m in messages), (a, messages)


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).tobytes()


def test_the_package_declares_the_gymnasium_extra():
    from importlib.metadata import requires

    assert 'gymnasium>=1.0; extra == "gymnasium"' in requires("mjbridge")
    assert mjbridge.gymnasium.MjBridgeEnv is MjBridgeEnv
    assert gymnasium.spec("mjbridge/MjBridge-v0").entry_point == "mjbridge.gymnasium:MjBridgeEnv"


def test_check_env_passes_on_a_model_with_activations():
    env = gymnasium.make("mjbridge/MjBridge-v0", model_path=ACT, frame_skip=2)
    try:
        assert env.observation_space.dtype == np.float64
        assert env.observation_space.shape == (9 + 8,)
        checked(env, UNBOUNDED_OBSERVATION)
    finally:
        env.close()


def test_check_env_passes_with_an_unlimited_actuator_and_sensordata():
    env = gymnasium.make(
        "mjbridge/MjBridge-v0",
        model_path=CART_POLE,
        observation_fields=["qpos", "qvel", Field.SENSORDATA],
    )
    try:
        assert env.observation_space.shape == (13 + 11 + 8,)
        # cart_pole's `twist` has no ctrlrange (an unlimited actuator: +-inf, the stated rule),
        # and `push` is limited to [-5, 5]: the action space says so rather than normalising.
        checked(
            env,
            UNBOUNDED_OBSERVATION
            + [
                r"A Box action space minimum value is -infinity",
                r"A Box action space maximum value is infinity",
                r"we recommend using a symmetric and normalized space",
            ],
        )
    finally:
        env.close()


def test_action_space_comes_from_the_control_ranges():
    assert ctrl_ranges_from_mjcf(CART_POLE) == [("push", -5.0, 5.0), ("twist", -np.inf, np.inf)]
    # gym_act.xml sets the range through a default class.
    assert ctrl_ranges_from_mjcf(ACT) == [
        ("elbow_motor", -1.0, 1.0),
        ("shoulder_filter", -1.0, 1.0),
        ("elbow_integrator", -1.0, 1.0),
    ]
    with MjBridgeEnv(CART_POLE) as env:
        assert env.action_space.dtype == np.float64
        assert list(env.action_space.low) == [-5.0, -np.inf]
        assert list(env.action_space.high) == [5.0, np.inf]
    with MjBridgeEnv(CART_POLE, ctrl_range=[[-1, 1], [-2, 2]]) as env:
        assert list(env.action_space.high) == [1.0, 2.0]
    with pytest.raises(ValueError, match=r"shape \(2, 2\)"):
        MjBridgeEnv(CART_POLE, ctrl_range=[[-1, 1]])
    with pytest.raises(ValueError, match="render_mode"):
        MjBridgeEnv(CART_POLE, render_mode="human")


def compiled_ranges(path):
    """MuJoCo's own compiler's answer (its Python package): the truth the reader must match."""
    import mujoco

    m = mujoco.MjModel.from_xml_path(os.fspath(path))
    out = []
    for u in range(m.nu):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_ACTUATOR, u)
        lo, hi = m.actuator_ctrlrange[u] if m.actuator_ctrllimited[u] else (-np.inf, np.inf)
        out.append((name, float(lo), float(hi)))
    return out


def test_mjcf_reader_agrees_with_mujocos_compiler(tmp_path):
    (tmp_path / "acts.xml").write_text(
        "<mujoco><actuator>"
        "<motor name='a' joint='j' class='wide'/>"
        "<motor name='b' joint='j' ctrlrange='-3 3' ctrllimited='false'/>"
        "<position name='c' joint='j' ctrlrange='0 2'/>"
        "<motor joint='j' class='inner'/>"
        "<muscle name='d' joint='j' lengthrange='0.5 1.5'/>"
        "</actuator></mujoco>"
    )
    (tmp_path / "model.xml").write_text(
        "<mujoco><compiler autolimits='true'/><default><general ctrlrange='-1 1'/>"
        "<default class='wide'><motor ctrlrange='-9 9'/>"
        "<default class='inner'><position ctrlrange='-4 4'/></default></default></default>"
        "<worldbody><body><joint name='j' range='-1 1' limited='true'/><geom size='0.1'/>"
        "</body></worldbody><include file='acts.xml'/></mujoco>"
    )
    (tmp_path / "plain.xml").write_text(
        "<mujoco><compiler autolimits='false'/><worldbody><body><joint name='j'/>"
        "<geom size='0.1'/></body></worldbody><actuator><motor name='m' joint='j'/>"
        "<motor name='n' joint='j' ctrllimited='true' ctrlrange='-2 2'/></actuator></mujoco>"
    )
    for path in (CART_POLE, ACT, tmp_path / "model.xml", tmp_path / "plain.xml"):
        assert ctrl_ranges_from_mjcf(path) == compiled_ranges(path), path
    assert ctrl_ranges_from_mjcf(tmp_path / "model.xml") == [
        ("a", -9.0, 9.0),  # the class's range, limited by autolimits
        ("b", -np.inf, np.inf),  # ctrllimited="false" wins over the range
        ("c", 0.0, 2.0),
        (None, -4.0, 4.0),  # a nested class's range
        ("d", -1.0, 1.0),  # the main class's range (muscle has no range of its own)
    ]
    with MjBridgeEnv(tmp_path / "model.xml") as env:
        assert list(env.action_space.low) == [-9.0, -np.inf, 0.0, -4.0, -1.0]


def run(env, actions):
    """Observations (as bytes) and rewards of a run of actions."""
    out = []
    for a in actions:
        obs, reward, terminated, truncated, info = env.step(a)
        assert not terminated and not truncated
        out.append(bits(obs))
    return out


def test_load_state_continues_bit_for_bit():
    rng = np.random.default_rng(25)
    with MjBridgeEnv(ACT, frame_skip=2) as env, MjBridgeEnv(ACT, frame_skip=2) as other:
        if not env.exact:
            return basic_profile_restores_the_public_fields(env)
        env.reset(seed=1)
        env.action_space.seed(1)
        for _ in range(40):
            env.step(env.action_space.sample())
        rp = env.save_state()
        doc = env.save_state(json=True)
        world = env.save_world()
        assert isinstance(rp, mjbridge.RestorePoint) and json.loads(doc)["tick"] == 80
        actions = rng.uniform(-1, 1, size=(250, 3))
        original = run(env, actions)
        # The activations are in play: they moved, and they are part of what is restored.
        act = env.endpoint.world()
        assert any(v != 0 for v in json.loads(act)["world"]["act"])

        obs = env.load_state(rp)
        assert env.frame_info.tick == 80
        assert run(env, actions) == original
        env.load_state(doc)
        assert run(env, actions) == original
        # Another endpoint of the same model: the checkpoint and the world document (whose
        # fingerprint and state hash it checks) continue the same way.
        assert bits(other.load_state(doc)) == bits(obs)
        assert run(other, actions) == original
        other.load_state(world.encode("utf-8"))
        assert run(other, actions) == original
        # And through reset(options=...).
        env.reset(options={"state": rp})
        assert run(env, actions) == original
        rp.close()


def basic_profile_restores_the_public_fields(env):
    """MuJoCo 2.2 (no state API): the basic profile, which says it does not continue exactly;
    what it does promise is checked instead: qpos, qvel, act, ctrl and time come back."""
    assert mjbridge.build_info()["engine"].startswith("2.2.")
    assert env.profile == "mujoco_basic_v1"
    env.reset(seed=0)
    for a in np.random.default_rng(3).uniform(-1, 1, size=(40, 3)):
        env.step(a)
    saved, world = env.save_state(), json.loads(env.save_world())["world"]
    for a in np.random.default_rng(4).uniform(-1, 1, size=(40, 3)):
        env.step(a)
    env.load_state(saved)
    back = json.loads(env.save_world())["world"]
    for key in ("qpos", "qvel", "act", "ctrl", "time", "tick"):
        assert back[key] == world[key], key
    saved.close()


def test_the_profile_says_whether_restores_are_exact():
    with MjBridgeEnv(ACT) as env:
        has_state_api = mjbridge.build_info()["integration_profile"]
        assert env.exact == has_state_api
        assert env.profile == ("mujoco_integration_v1" if has_state_api else "mujoco_basic_v1")


def test_reset_is_exact_and_reset_noise_follows_the_seed():
    with MjBridgeEnv(ACT) as env:
        first, info = env.reset(seed=3)
        assert info == {"tick": 0, "time": 0.0}
        for _ in range(30):
            env.step(env.action_space.sample())
        again, _ = env.reset()
        assert bits(again) == bits(first)
    with MjBridgeEnv(ACT, reset_noise_scale=0.05) as env:
        a, _ = env.reset(seed=7)
        b, _ = env.reset(seed=7)
        c, _ = env.reset(seed=8)
        d, _ = env.reset()  # the generator goes on: another draw
        assert bits(a) == bits(b) and bits(a) != bits(c) and bits(d) != bits(c)
        # Uniform in [-0.05, 0.05] around the initial state, but for the free joint's
        # quaternion (qpos 5..9), which is renormalised.
        plain = np.r_[0:5, 9:17]
        assert np.max(np.abs(a[plain] - first[plain])) <= 0.05 and bits(a) != bits(first)
        assert abs(np.linalg.norm(a[5:9]) - 1.0) < 1e-12
        # From the same noisy reset, the same actions give the same episode.
        actions = np.random.default_rng(1).uniform(-1, 1, size=(50, 3))
        env.reset(seed=7)
        one = run(env, actions)
        env.reset(seed=7)
        assert run(env, actions) == one


def test_refusals_change_nothing():
    with MjBridgeEnv(ACT) as env, MjBridgeEnv(CART_POLE) as cart:
        env.reset(seed=0)
        for _ in range(5):
            env.step(np.zeros(3))
        before = env.endpoint.world()
        foreign_world = cart.save_world()
        with pytest.raises(mjbridge.MjbError) as e:
            env.load_state(foreign_world)
        assert e.value.reason == Reason.MODEL_FINGERPRINT, e.value
        assert e.value.pointer == "/world/model_fingerprint"
        assert env.endpoint.world() == before
        # A checkpoint of another model: its descriptor does not fit.
        with pytest.raises(mjbridge.MjbError) as e:
            env.load_state(cart.save_state(json=True))
        assert (e.value.reason, e.value.pointer) == (Reason.DESCRIPTOR, "/descriptor/nq"), e.value
        assert env.endpoint.world() == before
        # A restore point is an in-memory handle of its own endpoint.
        foreign_rp = cart.save_state()
        with pytest.raises(mjbridge.MjbError) as e:
            env.load_state(foreign_rp)
        assert e.value.reason == Reason.OTHER_ENDPOINT
        assert env.endpoint.world() == before
        with pytest.raises(ValueError, match="shape"):
            env.step(np.zeros(2))
        with pytest.raises(TypeError):
            env.load_state(42)
        assert env.endpoint.world() == before
        foreign_rp.close()


def test_a_stop_latched_between_steps_truncates_the_episode():
    with MjBridgeEnv(ACT) as env:
        env.reset(seed=0)
        for _ in range(3):
            obs, _, _, truncated, info = env.step(np.full(3, 0.2))
        assert not truncated and "stopped" not in info
        before = env.endpoint.world()
        env.endpoint.stop()
        obs2, reward, terminated, truncated, info2 = env.step(np.full(3, 0.7))
        assert truncated and info2["stopped"] and not terminated
        # Nothing was written or stepped: the observation and the tick are those of the last step.
        assert info2["tick"] == info["tick"]
        assert bits(obs2) == bits(obs)
        assert env.endpoint.world() == before
        # After the acknowledgement, a reset starts the next episode.
        env.endpoint.confirm_paused()
        env.endpoint.safety_reset()
        env.reset(seed=0)
        _, _, _, truncated, info3 = env.step(np.full(3, 0.2))
        assert not truncated and "stopped" not in info3


def test_close_frees_the_endpoint():
    env = MjBridgeEnv(ACT)
    ep = env.endpoint
    env.close()
    env.close()  # safe to repeat
    assert ep.closed
    with pytest.raises(mjbridge.MjbError) as e:
        ep.world()
    assert e.value.reason == Reason.CLOSED


# ---- Gymnasium's MujocoEnv side by side ----------------------------------------------------


def mujoco_env_class():
    import mujoco  # noqa: F401 (MujocoEnv needs it)
    from gymnasium.envs.mujoco import MujocoEnv

    class ActEnv(MujocoEnv):
        """The smallest MujocoEnv: observation qpos and qvel, like MjBridgeEnv's default."""

        metadata = {"render_modes": ["human", "rgb_array", "depth_array", "rgbd_tuple"]}

        def __init__(self, path, frame_skip):
            space = gymnasium.spaces.Box(-np.inf, np.inf, shape=(17,), dtype=np.float64)
            MujocoEnv.__init__(self, path, frame_skip, observation_space=space)

        def _get_obs(self):
            return np.concatenate([self.data.qpos, self.data.qvel])

        def step(self, action):
            self.do_simulation(action, self.frame_skip)
            return self._get_obs(), 0.0, False, False, {}

        def reset_model(self):
            self.set_state(self.init_qpos, self.init_qvel)
            return self._get_obs()

    return ActEnv


def test_mujoco_env_set_state_diverges_where_load_state_does_not():
    """The same experiment on both: 40 steps, save, 250 steps of random actions, back to the
    saved state, the same 250 actions. MujocoEnv's set_state(qpos, qvel) loses act (the filter's
    and the integrator's state) and the warm start, so the replay leaves the original; the
    bridge's load_state replays it bit for bit."""
    actions = np.random.default_rng(11).uniform(-1, 1, size=(290, 3))
    gym_env = mujoco_env_class()(ACT, 2)
    try:
        gym_env.reset(seed=0)
        run(gym_env, actions[:40])
        qpos, qvel = gym_env.data.qpos.copy(), gym_env.data.qvel.copy()
        act_saved = gym_env.data.act.copy()
        original = run(gym_env, actions[40:])
        gym_env.set_state(qpos, qvel)
        # What set_state kept: qpos and qvel; act is what the last step left.
        assert not np.array_equal(gym_env.data.act, act_saved)
        replay = run(gym_env, actions[40:])
        diverged = [i for i, (a, b) in enumerate(zip(original, replay)) if a != b]
        assert diverged and diverged[0] == 0, "set_state(qpos, qvel) replayed the episode"
        gap = np.max(np.abs(np.frombuffer(original[-1]) - np.frombuffer(replay[-1])))
        assert gap > 1e-3, gap  # not a rounding difference: another trajectory
    finally:
        gym_env.close()

    with MjBridgeEnv(ACT, frame_skip=2) as env:
        if not env.exact:
            return basic_profile_restores_the_public_fields(env)
        env.reset(seed=0)
        run(env, actions[:40])
        saved = env.save_state()
        original = run(env, actions[40:])
        env.load_state(saved)
        assert run(env, actions[40:]) == original
        saved.close()
