"""open -> step -> checkpoint -> restore -> stop from another thread, with the Python binding.

    pip install bindings/python
    MJBRIDGE_LIB=/usr/local/lib python3 examples/python/example.py [model.xml]
"""

import json
import pathlib
import sys
import threading

import mjbridge
from mjbridge import Endpoint, MjbError, Reason

# A pendulum with one motor, inline so the example runs anywhere.
PENDULUM = (
    "<mujoco><option timestep='0.01'/><worldbody><body pos='0 0 1'>"
    "<joint name='hinge' type='hinge' axis='0 1 0' damping='0.1'/>"
    "<geom type='capsule' fromto='0 0 0 0 0 -0.5' size='0.03' mass='1'/></body></worldbody>"
    "<actuator><motor name='motor' joint='hinge'/></actuator></mujoco>"
)


def main():
    # The builder takes a pathlib.Path (or str) and escapes every string for JSON.
    if len(sys.argv) > 1:
        config = mjbridge.Config(pathlib.Path(sys.argv[1]), name="example-python", seed=1)
    else:
        config = mjbridge.Config(xml=PENDULUM, name="example-python", seed=1)
    with Endpoint.open(config) as ep:
        print("mjbridge", mjbridge.version())

        # Step, take a checkpoint, step on, restore: the world is back, byte for byte.
        ep.step(100)
        checkpoint = ep.checkpoint()
        at_checkpoint = ep.world()
        ep.step(50)
        report = ep.restore(checkpoint)
        assert ep.world() == at_checkpoint
        print("restored: tick %d -> %d" % (report.tick_before, report.tick_after))

        # A refused document changes nothing and says why and where.
        try:
            ep.restore(checkpoint.replace('"seed":1', '"seed":2'))
        except MjbError as e:
            print("refused:", e.outcome.name, e.reason.name, e.pointer)
        else:
            raise SystemExit("a document with another seed was accepted")
        assert ep.world() == at_checkpoint

        # An RL env's step in one call: ctrl in, one step, qpos out into an array made once;
        # a joint's values by name.
        index = ep.index()
        stepper = ep.stepper(read=[mjbridge.Field.QPOS], nstep=1)
        stepper.step([0.5] * ep.dims().nu)
        joint = index.joints[0]
        qpos = stepper.values[mjbridge.Field.QPOS][index.qpos(joint)]
        print("tick %d: %s = %s" % (stepper.info.tick, joint, [float(v) for v in qpos]))
        ep.restore(checkpoint)

        # Stop from another thread while this one steps (a UI, a watchdog, a ROS 2 service).
        # ctypes releases the GIL during each call; stop() never waits for the native lock.
        stepping = threading.Event()

        def stopper():
            stepping.wait()
            state = ep.stop()
            print("stop latched from another thread (confirmed: %s)" % state.confirmed)

        t = threading.Thread(target=stopper)
        t.start()
        try:
            while True:
                try:
                    report = ep.step(10)
                except MjbError as e:  # admitted after the latch: refused, nothing stepped
                    if e.reason != Reason.STOP_LATCHED:
                        raise
                    report = e.report
                    break
                stepping.set()
                if report.reason == Reason.STOP_LATCHED:  # halted at a step boundary
                    break
        finally:
            stepping.set()
            t.join()
        print("stopped at tick", report.tick_after)
        ep.confirm_paused()
        ep.safety_reset()
        ep.step(1)
        print("world tick:", json.loads(ep.world())["world"]["tick"])
    print("example-python: done")


if __name__ == "__main__":
    main()
