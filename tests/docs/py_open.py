# Prelude of docs/python.md's opening fragment: both endpoints must be open on the shipped
# model, the second with its seed.
import mjbridge

{{block}}
assert (nq, nu) == (13, 2), (nq, nu)
assert seeded["world"]["seed"] == 3, seeded["world"]["seed"]
