"""K rollouts from one saved world document, spread over Ray workers.

The driver opens the model, steps it to where planning starts and reads the world document
(the JSON text: the complete integration state, the model's fingerprint and a state hash).
Each worker (a Ray actor) opens its own endpoint of the same model from the MJCF text, loads
the document once into a restore point (the bridge checks the hash and the fingerprint on
arrival: a document of another model is refused there, with the reason and the pointer), then
per rollout applies it and steps a fixed action sequence, returning the cost and the final
state hash. What crosses the wire: the MJCF text, the document text and the actions out; floats
and hashes back. Restore points are in-memory handles of one endpoint and never leave a process.

    pip install "ray==2.60.0" numpy bindings/python
    MJBRIDGE_LIB=target/release python examples/python/ray_rollouts.py [model.xml] [--address auto]

``--address`` joins a running cluster (``ray start --head`` on one node, ``ray start
--address=HEAD:6379`` on the others; each node needs numpy, mjbridge with its library and the
same MuJoCo build: the fingerprint and the checkpoint's engine fields refuse another); without
it, a local Ray with two CPUs.
"""

import argparse
import json
import struct
import sys

import numpy as np

import mjbridge
from mjbridge import Config, Endpoint, Field

ROLLOUTS = 8  # K
HORIZON = 40  # H, env steps per rollout
FRAME_SKIP = 2
START_TICKS = 20

# A two-link arm with a filtered actuator (activation state), inline so the example runs
# anywhere; a model file given on the command line replaces it.
ARM = """<mujoco model="ray_arm"><option timestep="0.005"/>
<worldbody><geom type="plane" size="2 2 0.1"/>
<body pos="0 0 0.6"><joint name="shoulder" type="hinge" axis="0 1 0" damping="0.05"/>
<geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="0.5"/>
<body pos="0.3 0 0"><joint name="elbow" type="hinge" axis="0 1 0" damping="0.05"/>
<geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.025" mass="0.3"/></body></body>
</worldbody><actuator>
<motor name="elbow_motor" joint="elbow" gear="2" ctrllimited="true" ctrlrange="-1 1"/>
<general name="shoulder_filter" joint="shoulder" dyntype="filter" dynprm="0.05" gainprm="4"
 biastype="affine" biasprm="0 0 -0.2" ctrllimited="true" ctrlrange="-1 1"/>
</actuator></mujoco>"""


class RolloutWorker:
    """One endpoint of the model; rollouts from one world document. A plain class: Ray makes
    it an actor (``ray.remote(RolloutWorker)``), and the serial check uses it as it is."""

    def __init__(self, mjcf_text):
        self.ep = Endpoint.open(Config(xml=mjcf_text, frame=[Field.QPOS, Field.QVEL],
                                       publish="end_of_call"))
        self.stepper = self.ep.stepper(read=[Field.QPOS, Field.QVEL], nstep=FRAME_SKIP)
        self.start = None

    def load(self, world_document):
        """Validate and keep the document (fingerprint, state hash, checkpoint), restoring
        nothing yet. Returns None, or the refusal as plain values (an exception object of the
        binding does not travel through Ray's pickling as a value to compare)."""
        try:
            start = self.ep.restore_point_from_json(world_document)
        except mjbridge.MjbError as e:
            return {"outcome": e.outcome.name, "reason": e.reason.name, "pointer": e.pointer,
                    "state_hash": self.state_hash()}
        if self.start is not None:
            self.start.close()
        self.start = start
        return None

    def state_hash(self):
        return json.loads(self.ep.world())["state_hash"]

    def rollouts(self, plans):
        """[(cost, final state hash)] of each plan (an (H, nu) array) from the loaded state."""
        out = []
        for plan in plans:
            self.stepper.apply(self.start)
            qpos, qvel = self.stepper.values[Field.QPOS], self.stepper.values[Field.QVEL]
            cost = 0.0
            for action in plan:
                self.stepper.step(action)
                cost += float(qpos[0] - 1.0) ** 2 + 0.01 * float(qvel[0]) ** 2
            out.append((cost, self.state_hash()))
        return out


def start_document(mjcf_text):
    """The world document where planning starts: the model stepped START_TICKS ticks."""
    with Endpoint.open(Config(xml=mjcf_text)) as ep:
        ep.set_ctrl([0.5] * ep.dims().nu)
        ep.step(START_TICKS)
        return ep.world(), ep.dims().nu


def plans_for(nu, seed=25):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1.0, 1.0, size=(HORIZON, nu)) for _ in range(ROLLOUTS)]


def serial(mjcf_text, document, plans):
    worker = RolloutWorker(mjcf_text)
    refusal = worker.load(document)
    if refusal is not None:
        raise SystemExit("refused: %s" % refusal)
    return worker.rollouts(plans)


def distributed(ray, mjcf_text, document, plans, workers=2, timeout=300):
    """The same rollouts over ``workers`` Ray actors: the document goes once to each, the plans
    in round-robin chunks. Returns (results in plan order, per-worker refusals)."""
    remote = ray.remote(num_cpus=1)(RolloutWorker)
    actors = [remote.remote(mjcf_text) for _ in range(workers)]
    refusals = ray.get([a.load.remote(document) for a in actors], timeout=timeout)
    if any(r is not None for r in refusals):
        return None, refusals
    chunks = [list(range(w, len(plans), workers)) for w in range(workers)]
    futures = [a.rollouts.remote([plans[i] for i in c]) for a, c in zip(actors, chunks)]
    results = [None] * len(plans)
    for c, got in zip(chunks, ray.get(futures, timeout=timeout)):
        for i, r in zip(c, got):
            results[i] = r
    return results, refusals


def bits(x):
    return struct.pack("<d", x)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", help="an MJCF file (default: the inline arm)")
    parser.add_argument("--address", help="a running Ray cluster (auto, or HEAD:6379)")
    args = parser.parse_args()
    mjcf_text = open(args.model).read() if args.model else ARM
    import ray

    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        document, nu = start_document(mjcf_text)
        plans = plans_for(nu)
        results, refusals = distributed(ray, mjcf_text, document, plans)
        if results is None:
            raise SystemExit("ray-rollouts: refused by the workers: %s" % refusals)
        local = serial(mjcf_text, document, plans)
        same = all(bits(a[0]) == bits(b[0]) and a[1] == b[1] for a, b in zip(results, local))
        best = min(range(len(results)), key=lambda i: results[i][0])
        print("ray-rollouts: %d rollouts of %d steps from tick %d on %d workers; best rollout %d "
              "cost %.6f" % (len(plans), HORIZON, json.loads(document)["world"]["tick"], 2, best,
                             results[best][0]))
        print("ray-rollouts: the same bit for bit as in one process" if same else
              "ray-rollouts: DIFFERENT from the serial run")
        if not same:
            sys.exit(1)
    finally:
        ray.shutdown()
    print("ray-rollouts: done")


if __name__ == "__main__":
    main()
