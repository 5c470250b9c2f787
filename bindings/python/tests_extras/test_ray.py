"""examples/python/ray_rollouts.py on a local Ray cluster (two CPUs): every worker's rollouts
are bit-identical to the same rollouts run serially in this process, and a world document of
another model is refused by each worker on arrival with the bridge's reason and pointer, the
worker's state unchanged. Ray starts once for the module (about 10 s); every Ray call has a
timeout and ray.shutdown() always runs."""

import json
import os
import struct
import sys

import pytest
import ray

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.environ.get("MJB_EXAMPLES_PYTHON", os.path.join(HERE, "../../../examples/python"))
sys.path.insert(0, EXAMPLES)
import ray_rollouts  # noqa: E402

# The workers get the example's code by value (it is not an installed module there).
ray.cloudpickle.register_pickle_by_value(ray_rollouts)

TIMEOUT = 120  # seconds, per ray.get


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def bits(x):
    return struct.pack("<d", x)


def test_workers_reproduce_the_serial_rollouts_bit_for_bit(cluster):
    document, nu = ray_rollouts.start_document(ray_rollouts.ARM)
    plans = ray_rollouts.plans_for(nu)
    results, refusals = ray_rollouts.distributed(
        cluster, ray_rollouts.ARM, document, plans, workers=2, timeout=TIMEOUT
    )
    assert refusals == [None, None]
    local = ray_rollouts.serial(ray_rollouts.ARM, document, plans)
    assert len(results) == len(local) == ray_rollouts.ROLLOUTS
    for (cost, digest), (cost_local, digest_local) in zip(results, local):
        assert bits(cost) == bits(cost_local)
        assert digest == digest_local and digest.startswith("sha256:")
    # The rollouts differ from each other (the check compares something).
    assert len({d for _, d in local}) == len(local)
    # The workers really ran in other processes.
    pids = ray.get(
        [ray.remote(lambda: os.getpid()).remote() for _ in range(2)], timeout=TIMEOUT
    )
    assert os.getpid() not in pids


def test_workers_refuse_a_document_of_another_model(cluster):
    other = ray_rollouts.ARM.replace('gear="2"', 'gear="3"')  # same sizes, another model
    foreign, _ = ray_rollouts.start_document(other)
    document, nu = ray_rollouts.start_document(ray_rollouts.ARM)
    assert json.loads(foreign)["world"]["model_fingerprint"] != json.loads(document)["world"][
        "model_fingerprint"
    ]
    results, refusals = ray_rollouts.distributed(
        cluster, ray_rollouts.ARM, foreign, ray_rollouts.plans_for(nu), workers=2, timeout=TIMEOUT
    )
    assert results is None
    # Each worker's endpoint is where it was opened: tick 0 of its own model.
    fresh = ray_rollouts.RolloutWorker(ray_rollouts.ARM).state_hash()
    for r in refusals:
        assert r == {
            "outcome": "REJECTED",
            "reason": "MODEL_FINGERPRINT",
            "pointer": "/world/model_fingerprint",
            "state_hash": fresh,
        }, r
    # A document whose text was altered on the way is refused by its hash.
    tampered = document.replace('"tick":%d' % ray_rollouts.START_TICKS, '"tick":7', 1)
    assert tampered != document
    _, refusals = ray_rollouts.distributed(
        cluster, ray_rollouts.ARM, tampered, ray_rollouts.plans_for(nu), workers=1, timeout=TIMEOUT
    )
    assert refusals[0]["reason"] == "STATE_HASH", refusals
