# Prelude of docs/python.md's history fragment: an endpoint on the shipped model with a history,
# 300 ticks stepped. The fragment must land on `h.oldest_tick + 10` and leave `recording`
# holding a recording. On an engine with the basic profile only the open is refused at
# /history (checked) and nothing else runs.
import json

import mjbridge

try:
    ep = mjbridge.Endpoint.open(mjbridge.Config("examples/models/cart_pole.xml", history=(1000, 100)))
except mjbridge.MjbError as e:
    assert e.pointer == "/history", e
    assert mjbridge.build_info()["integration_profile"] is False, e
    raise SystemExit(0)
ep.step(300)
{{block}}
assert json.loads(ep.checkpoint())["tick"] == h.oldest_tick + 10
assert json.loads(recording)["recording"]["format"] == "mjbridge_recording_v1"
ep.close()
