"""A Python RL loop on mjbridge against the same loop on MuJoCo's own Python bindings, in one
process, on the same engine build (issue 16, item 4).

Per env step both sides do the same work: write the action into ctrl, step `frame_skip` times,
and copy qpos, qvel and sensordata into arrays the caller made once.
- MuJoCo: `d.ctrl[:] = a; mujoco.mj_step(m, d, nstep=k); np.copyto(out, view)` per array, with
  the views of `d` taken once (the fastest way the bindings offer).
- mjbridge: `Stepper.step(a)`: one `mjb_write_step_read` call with every ctypes argument built
  once, the frame copied into the caller's arrays (`out=`), frames published at the end of the
  call (`"publish": "end_of_call"`, the fields read and nothing else).
- "general calls": the binding's general methods, as the issue measured them (`write_step` then
  `frame()`, each building its ctypes arguments per call).
Reset: `mj_setState(INTEGRATION) + mj_forward` (what MuJoCo users call) against
`Endpoint.restore(checkpoint bytes)` (validated, set, read back bit for bit; no forward).

Both sides load the same MJCF and take the same actions from the same initial state; at the
end their qpos must be equal bit for bit (the same engine did the same work), else the run
fails. Each round runs every contender once, back to back in rotating order, on a short batch
(61 rounds, MJB_BENCH_ROUNDS); a ratio is the median over rounds of the ratio within a round (a
burst of load on a shared machine falls on a whole round), times are medians over rounds. The
process is pinned to one CPU (MJB_BENCH_CPU, default 1).

Run through `cargo bench --bench python_rl` (which builds the library, makes a venv with numpy
and the MuJoCo Python package of the engine the bridge links, and runs this file), or by hand:
    MJBRIDGE_LIB=target/release python benches/python_rl.py MODEL.xml...
"""

import os
import sys
import time

import numpy as np

import mujoco

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../bindings/python"))
import mjbridge  # noqa: E402
from mjbridge import Field  # noqa: E402

ROUNDS = int(os.environ.get("MJB_BENCH_ROUNDS", "61"))
QUICK = bool(os.environ.get("MJB_BENCH_QUICK"))
READ = [Field.QPOS, Field.QVEL, Field.SENSORDATA]


def median(v):
    v = sorted(v)
    return v[len(v) // 2]


def timed(fn, n):
    t = time.perf_counter_ns()
    fn(n)
    return (time.perf_counter_ns() - t) / n / 1000.0  # microseconds per env step


class MujocoEnv:
    def __init__(self, path, k, actions):
        self.m = mujoco.MjModel.from_xml_path(path)
        self.d = mujoco.MjData(self.m)
        self.k, self.actions, self.i = k, actions, 0
        d = self.d
        self.views = (d.qpos, d.qvel, d.sensordata)
        self.ctrl = d.ctrl
        self.out = tuple(np.zeros(v.shape) for v in self.views)
        self.sig = mujoco.mjtState.mjSTATE_INTEGRATION
        self.state0 = np.zeros(mujoco.mj_stateSize(self.m, self.sig))
        mujoco.mj_getState(self.m, self.d, self.state0, self.sig)

    def run(self, n):
        m, d, k, ctrl, actions = self.m, self.d, self.k, self.ctrl, self.actions
        (q, v, s), (oq, ov, os_) = self.views, self.out
        step, copyto = mujoco.mj_step, np.copyto
        i, na = self.i, len(actions)
        for _ in range(n):
            ctrl[:] = actions[i % na]
            i += 1
            step(m, d, k)
            copyto(oq, q)
            copyto(ov, v)
            copyto(os_, s)
        self.i = i

    def reset(self, n):
        m, d, state, sig = self.m, self.d, self.state0, self.sig
        set_state, forward = mujoco.mj_setState, mujoco.mj_forward
        for _ in range(n):
            set_state(m, d, state, sig)
            forward(m, d)


class BridgeEnv:
    def __init__(self, path, k, actions):
        cfg = mjbridge.Config(path, frame=READ, publish="end_of_call")
        self.ep = mjbridge.Endpoint.open(cfg)
        self.out = {f: np.zeros(self.ep.frame_field_len(f)) for f in READ}
        self.stepper = self.ep.stepper(read=READ, nstep=k, out=self.out)
        self.k, self.actions, self.i = k, actions, 0
        self.checkpoint = b""

    def run(self, n):
        step, actions = self.stepper.step, self.actions
        i, na = self.i, len(actions)
        for _ in range(n):
            step(actions[i % na])
            i += 1
        self.i = i

    def before(self, n):
        """The general methods, as the issue measured them: write_step, then frame()."""
        ep, k, actions = self.ep, self.k, self.actions
        i, na = self.i, len(actions)
        for _ in range(n):
            ep.write_step([(Field.CTRL, -1, actions[i % na])], nstep=k)
            ep.frame(READ)
            i += 1
        self.i = i

    def reset(self, n):
        restore, doc = self.ep.restore, self.checkpoint
        for _ in range(n):
            restore(doc)


def compare(path, k):
    m = mujoco.MjModel.from_xml_path(path)
    rng = np.random.default_rng(16)
    actions = rng.uniform(-1.0, 1.0, size=(4096, m.nu))
    mj, br, old = MujocoEnv(path, k, actions), BridgeEnv(path, k, actions), BridgeEnv(path, k, actions)
    # Short batches, many rounds: each round times every contender once, back to back, so a
    # burst of load on the shared machine falls on the whole round; the ratio is taken per round.
    per_round = max(40, int((1_500 if not QUICK else 500) / k))
    contenders = [("mujoco", mj.run), ("mjbridge", br.run), ("before", old.before)]
    times = {name: [] for name, _ in contenders}
    for name, fn in contenders:  # warm up
        fn(per_round)
    for r in range(ROUNDS):
        order = contenders[r % 3 :] + contenders[: r % 3]
        for name, fn in order:
            times[name].append(timed(fn, per_round))
    # Same engine, same actions, same number of env steps: the same state, bit for bit.
    assert mj.i == br.i, (mj.i, br.i)
    q_mj, q_br = mj.d.qpos.copy(), br.out[Field.QPOS]
    if not np.array_equal(q_mj.view(np.uint64), q_br.view(np.uint64)):
        raise SystemExit("%s: qpos differs between MuJoCo and mjbridge after %d env steps" % (path, mj.i))
    result = {name: median(t) for name, t in times.items()}
    result["ratio"] = median([a / b for a, b in zip(times["mujoco"], times["mjbridge"])])
    result["ratio_before"] = median([a / b for a, b in zip(times["mujoco"], times["before"])])
    result["env_steps"] = mj.i
    if k == 1:
        # Reset to the state reached now (not all zeros, so the document has real numbers).
        mujoco.mj_getState(mj.m, mj.d, mj.state0, mj.sig)
        br.checkpoint = br.ep.checkpoint().encode("utf-8")
        resets = {"mujoco": [], "mjbridge": []}
        n = 300 if not QUICK else 100
        for r in range(ROUNDS):
            pair = [("mujoco", mj.reset), ("mjbridge", br.reset)]
            for name, fn in pair if r % 2 == 0 else pair[::-1]:
                resets[name].append(timed(fn, n))
        result["reset_mujoco"] = median(resets["mujoco"])
        result["reset_mjbridge"] = median(resets["mjbridge"])
        result["reset_ratio"] = median([b / a for a, b in zip(resets["mujoco"], resets["mjbridge"])])
        result["checkpoint_bytes"] = len(br.checkpoint)
    result["dims"] = "nq %d, nv %d, nu %d, nsensordata %d" % (m.nq, m.nv, m.nu, m.nsensordata)
    return result


def main():
    cpu = int(os.environ.get("MJB_BENCH_CPU", "1"))
    try:
        os.sched_setaffinity(0, {cpu})
    except (AttributeError, OSError) as e:
        print("(not pinned: %s)" % e)
    info = mjbridge.build_info()
    engine = info["engine_runtime_version"]
    print(
        "mjbridge %s (engine %s) | MuJoCo Python %s (mj_versionString %s) | numpy %s | Python %s"
        % (
            mjbridge.version(),
            info["engine"],
            mujoco.__version__,
            mujoco.mj_versionString(),
            np.__version__,
            sys.version.split()[0],
        )
    )
    if mujoco.mj_version() != engine:
        raise SystemExit(
            "engine mismatch: the bridge runs MuJoCo %s, the Python package %s"
            % (engine, mujoco.mj_version())
        )
    print("rounds %d, pinned to CPU %d; times are medians per env step" % (ROUNDS, cpu))
    rows = []
    for path in sys.argv[1:]:
        name = os.path.splitext(os.path.basename(path))[0]
        for k in (1, 5):
            r = compare(path, k)
            rows.append((name, k, r))
            print(
                "%-10s skip %d  mujoco %7.2f us  mjbridge %7.2f us  ratio %.3f  (general calls %7.2f us, ratio %.3f)  %d env steps, qpos equal"
                % (name, k, r["mujoco"], r["mjbridge"], r["ratio"], r["before"], r["ratio_before"], r["env_steps"]),
                flush=True,
            )
            if k == 1:
                print(
                    "%-10s reset   mj_setState+mj_forward %6.2f us  restore %6.2f us (%d bytes)  ratio %.2f"
                    % (name, r["reset_mujoco"], r["reset_mjbridge"], r["checkpoint_bytes"], r["reset_ratio"]),
                    flush=True,
                )
    print()
    print("| model | frame skip | MuJoCo Python µs/step | mjbridge µs/step | mjbridge / MuJoCo throughput (≥ 0.9) | general calls µs/step (throughput ratio) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, k, r in rows:
        print("| %s (%s) | %d | %.2f | %.2f | **%.2f** | %.2f (%.2f) |" % (
            name, r["dims"], k, r["mujoco"], r["mjbridge"], r["ratio"], r["before"], r["ratio_before"]))
    print()
    print("| model | checkpoint bytes | mj_setState + mj_forward µs | mjbridge restore µs | restore / (setState + forward) (≤ 3) |")
    print("| --- | --- | --- | --- | --- |")
    for name, k, r in rows:
        if k == 1:
            print("| %s | %d | %.2f | %.2f | **%.2f** |" % (
                name, r["checkpoint_bytes"], r["reset_mujoco"], r["reset_mjbridge"], r["reset_ratio"]))


if __name__ == "__main__":
    main()
