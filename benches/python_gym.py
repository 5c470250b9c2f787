"""Gymnasium environments on mjbridge against Gymnasium's own MuJoCo environment, in one
process, on the same engine build (issue 25): env.step and env.reset throughput.

- Gymnasium: the smallest `gymnasium.envs.mujoco.MujocoEnv` subclass (observation qpos and
  qvel by `np.concatenate`, reward 0, as its own environments do with a reward on top): `step`
  is `do_simulation` (ctrl, `mj_step` with `nstep=frame_skip`, `mj_rnePostConstraint`) and the
  observation; `reset` is `mj_resetData`, `set_state(qpos, qvel)` (and its `mj_forward`).
- mjbridge: `mjbridge.gymnasium.MjBridgeEnv` with its defaults: `step` is one
  `mjb_write_step_read` call and a copy of the observation; `reset` applies the restore point
  captured at construction (exact, no `mj_forward`).
Both take the same actions from the same initial state; after the run their qpos must be equal
bit for bit (the same engine did the same work), else the bench fails. Each round runs both on a
short batch back to back in alternating order; a ratio is the median over rounds of the ratio
within a round (throughput: Gymnasium's time / mjbridge's time), times are medians. Pinned to
one CPU (MJB_BENCH_CPU, default 1); MJB_BENCH_ROUNDS rounds (61).

Run through `cargo bench --bench gym`, or by hand in a venv with numpy, gymnasium, glfw,
imageio and MuJoCo's Python package of the bridge's engine:
    MJBRIDGE_LIB=target/release python benches/python_gym.py MODEL.xml...
"""

import os
import sys
import time

import numpy as np

import gymnasium
import mujoco
from gymnasium.envs.mujoco import MujocoEnv

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../bindings/python"))
import mjbridge  # noqa: E402
from mjbridge.gymnasium import MjBridgeEnv  # noqa: E402

ROUNDS = int(os.environ.get("MJB_BENCH_ROUNDS", "61"))
QUICK = bool(os.environ.get("MJB_BENCH_QUICK"))


class GymMujoco(MujocoEnv):
    metadata = {"render_modes": ["human", "rgb_array", "depth_array", "rgbd_tuple"]}

    def __init__(self, path, frame_skip):
        m = mujoco.MjModel.from_xml_path(path)
        space = gymnasium.spaces.Box(-np.inf, np.inf, shape=(m.nq + m.nv,), dtype=np.float64)
        MujocoEnv.__init__(self, os.path.abspath(path), frame_skip, observation_space=space)

    def _get_obs(self):
        return np.concatenate([self.data.qpos, self.data.qvel])

    def step(self, action):
        self.do_simulation(action, self.frame_skip)
        return self._get_obs(), 0.0, False, False, {}

    def reset_model(self):
        self.set_state(self.init_qpos, self.init_qvel)
        return self._get_obs()


def median(v):
    v = sorted(v)
    return v[len(v) // 2]


class Runner:
    def __init__(self, env, actions):
        self.env, self.actions, self.i = env, actions, 0

    def steps(self, n):
        step, actions, na = self.env.step, self.actions, len(self.actions)
        i = self.i
        for _ in range(n):
            step(actions[i % na])
            i += 1
        self.i = i

    def resets(self, n):
        reset = self.env.reset
        for _ in range(n):
            reset()


def timed(fn, n):
    t = time.perf_counter_ns()
    fn(n)
    return (time.perf_counter_ns() - t) / n / 1000.0  # microseconds per call


def compare(path, k):
    gym_env = GymMujoco(path, k)
    br_env = MjBridgeEnv(path, frame_skip=k)
    low = np.where(np.isfinite(br_env.action_space.low), br_env.action_space.low, -1.0)
    high = np.where(np.isfinite(br_env.action_space.high), br_env.action_space.high, 1.0)
    actions = np.random.default_rng(25).uniform(low, high, size=(4096, len(low)))
    gym_env.reset(seed=0)
    br_env.reset(seed=0)
    gym, br = Runner(gym_env, actions), Runner(br_env, actions)
    per_round = max(40, int((1_500 if not QUICK else 500) / k))
    times = {"gymnasium": [], "mjbridge": []}
    pair = [("gymnasium", gym.steps), ("mjbridge", br.steps)]
    for _, fn in pair:  # warm up
        fn(per_round)
    for r in range(ROUNDS):
        for name, fn in pair if r % 2 == 0 else pair[::-1]:
            times[name].append(timed(fn, per_round))
    assert gym.i == br.i
    q_gym = gym_env.data.qpos.copy()
    q_br = br_env.save_world()
    q_br = np.array(__import__("json").loads(q_br)["world"]["qpos"], dtype=np.float64)
    if not np.array_equal(q_gym.view(np.uint64), q_br.view(np.uint64)):
        raise SystemExit("%s: qpos differs between Gymnasium's env and MjBridgeEnv after %d steps"
                         % (path, gym.i))
    result = {name: median(t) for name, t in times.items()}
    result["ratio"] = median([a / b for a, b in zip(times["gymnasium"], times["mjbridge"])])
    result["steps"] = gym.i
    if k == 1:
        resets = {"gymnasium": [], "mjbridge": []}
        n = 300 if not QUICK else 100
        pair = [("gymnasium", gym.resets), ("mjbridge", br.resets)]
        for r in range(ROUNDS):
            for name, fn in pair if r % 2 == 0 else pair[::-1]:
                resets[name].append(timed(fn, n))
        result["reset_gymnasium"] = median(resets["gymnasium"])
        result["reset_mjbridge"] = median(resets["mjbridge"])
        result["reset_ratio"] = median(
            [a / b for a, b in zip(resets["gymnasium"], resets["mjbridge"])])
    m = gym_env.model
    result["dims"] = "nq %d, nv %d, na %d, nu %d" % (m.nq, m.nv, m.na, m.nu)
    gym_env.close()
    br_env.close()
    return result


def main():
    cpu = int(os.environ.get("MJB_BENCH_CPU", "1"))
    try:
        os.sched_setaffinity(0, {cpu})
    except (AttributeError, OSError) as e:
        print("(not pinned: %s)" % e)
    info = mjbridge.build_info()
    print("mjbridge %s (engine %s) | gymnasium %s | MuJoCo Python %s | numpy %s | Python %s" % (
        mjbridge.version(), info["engine"], gymnasium.__version__, mujoco.__version__,
        np.__version__, sys.version.split()[0]))
    if mujoco.mj_version() != info["engine_runtime_version"]:
        raise SystemExit("engine mismatch: the bridge runs MuJoCo %s, the Python package %s"
                         % (info["engine_runtime_version"], mujoco.mj_version()))
    print("rounds %d, pinned to CPU %d; times are medians per call" % (ROUNDS, cpu))
    rows = []
    for path in sys.argv[1:]:
        name = os.path.splitext(os.path.basename(path))[0]
        for k in (1, 5):
            r = compare(path, k)
            rows.append((name, k, r))
            print("%-10s skip %d  gymnasium %7.2f us  MjBridgeEnv %7.2f us  ratio %.3f  "
                  "(%d steps, qpos equal)" % (name, k, r["gymnasium"], r["mjbridge"], r["ratio"],
                                              r["steps"]), flush=True)
    print()
    print("| model | frame skip | Gymnasium MujocoEnv µs/step | MjBridgeEnv µs/step | "
          "MjBridgeEnv / MujocoEnv step throughput (≥ 0.9) |")
    print("| --- | --- | --- | --- | --- |")
    for name, k, r in rows:
        print("| %s (%s) | %d | %.2f | %.2f | **%.2f** |" % (
            name, r["dims"], k, r["gymnasium"], r["mjbridge"], r["ratio"]))
    print()
    print("| model | MujocoEnv.reset µs (qpos/qvel + mj_forward) | MjBridgeEnv.reset µs "
          "(restore point, exact) | reset throughput ratio |")
    print("| --- | --- | --- | --- |")
    for name, k, r in rows:
        if k == 1:
            print("| %s | %.2f | %.2f | **%.2f** |" % (
                name, r["reset_gymnasium"], r["reset_mjbridge"], r["reset_ratio"]))
    worst = min(r["ratio"] for _, _, r in rows)
    if worst < 0.9:
        print("\nBELOW TARGET: MjBridgeEnv step throughput %.2f of MujocoEnv's (target 0.9)" % worst)


if __name__ == "__main__":
    main()
