"""The planner pattern with restore points, with the Python binding: K rollouts of H steps from
one restore point, each applying it, writing controls and stepping; the best by a cost; then the
best rollout replayed from the same restore point, reproducing its cost bit for bit.

    pip install bindings/python
    MJBRIDGE_LIB=/usr/local/lib python3 examples/python/planner.py [model.xml]
"""

import pathlib
import random
import struct
import sys

import mjbridge
from mjbridge import Endpoint, Field

# A pendulum with one motor, inline so the example runs anywhere.
PENDULUM = (
    "<mujoco><option timestep='0.01'/><worldbody><body pos='0 0 1'>"
    "<joint name='hinge' type='hinge' axis='0 1 0' damping='0.1'/>"
    "<geom type='capsule' fromto='0 0 0 0 0 -0.5' size='0.03' mass='1'/></body></worldbody>"
    "<actuator><motor name='motor' joint='hinge'/></actuator></mujoco>"
)
ROLLOUTS = 16  # K
HORIZON = 50  # H
TARGET = 1.0  # the first joint's angle to reach (rad)


def rollout(ep, start, stepper, plan):
    """Back to the start, then H steps of the plan's controls: the cost of the states it passes
    through. The stepper writes ctrl, steps and reads qpos/qvel in one call."""
    ep.apply(start)
    nu = len(stepper.ctrl)
    cost = 0.0
    for t in range(HORIZON):
        stepper.step(plan[t * nu : (t + 1) * nu])
        err = float(stepper.values[Field.QPOS][0]) - TARGET
        v = float(stepper.values[Field.QVEL][0])
        cost += err * err + 0.01 * v * v + 0.001 * float(stepper.ctrl[0]) ** 2
    return cost


def bits(x):
    return struct.pack("<d", x)


def main():
    source = dict(xml_path=pathlib.Path(sys.argv[1])) if len(sys.argv) > 1 else dict(xml=PENDULUM)
    config = mjbridge.Config(name="planner-python", seed=1, frame=[Field.QPOS, Field.QVEL], **source)
    with Endpoint.open(config) as ep:
        nu = ep.dims().nu
        if nu == 0:
            raise SystemExit("planner-python: the model has no actuator to plan for")
        ep.step(20)
        stepper = ep.stepper(read=[Field.QPOS, Field.QVEL])
        # Where planning starts, captured once (no JSON).
        with ep.capture() as start:
            # K random control sequences (a sampling planner's candidates), each rolled out.
            rng = random.Random(7)
            plans = [[rng.uniform(-2.0, 2.0) for _ in range(HORIZON * nu)] for _ in range(ROLLOUTS)]
            costs = [rollout(ep, start, stepper, plan) for plan in plans]
            best = min(range(ROLLOUTS), key=costs.__getitem__)
            print(
                "planner-python: %d rollouts of %d steps from tick %d; best rollout %d, cost %r"
                % (ROLLOUTS, HORIZON, start.tick, best, costs[best])
            )

            # The restore point restores exactly: the best rollout's controls again give its
            # cost, bit for bit.
            again = rollout(ep, start, stepper, plans[best])
            same = bits(again) == bits(costs[best])
            print(
                "planner-python: replayed rollout %d: cost %r, %s"
                % (best, again, "the same bit for bit" if same else "DIFFERENT")
            )
            if not same:
                raise SystemExit(1)

            # Act: back to the start and take the best plan's first step, on the condition that
            # nobody moved the endpoint since (MjbError, Reason.PRECONDITION otherwise).
            stepper.apply(start)
            info = stepper.step(plans[best][:nu], expect_tick=start.tick)
            print("planner-python: acted from tick %d to %d" % (start.tick, info.tick))
    print("planner-python: done")


if __name__ == "__main__":
    main()
