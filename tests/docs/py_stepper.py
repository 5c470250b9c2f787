# Prelude of docs/python.md's compare-and-step fragment: an endpoint on the shipped model, a
# stepper of qpos/qvel and a policy. After the fragment, the FrameInfo it kept (`seen`, from its
# first step) must be refused as a precondition: the fragment's second step moved the endpoint on.
import mjbridge
from mjbridge import Field


def policy(values):
    return [-2.0 * values[Field.QPOS][0] - 0.5 * values[Field.QVEL][0], 0.0]


ep = mjbridge.Endpoint.open(mjbridge.Config("examples/models/cart_pole.xml", frame=[Field.QPOS, Field.QVEL]))
st = ep.stepper(read=[Field.QPOS, Field.QVEL])
action = [0.0, 0.0]
{{block}}
assert ep.frame([])[1].tick == 2, ep.frame([])[1].tick
try:
    st.step(action, expect_frame=seen.frame)
except mjbridge.MjbError as e:
    assert e.reason == mjbridge.Reason.PRECONDITION, e
else:
    raise SystemExit("a kept FrameInfo passed a precondition after the endpoint moved on")
ep.close()
