"""Exact resets in a Gymnasium environment: save a state mid-episode, play on, come back and
replay the same actions; the observations are identical bit for bit (what Go-Explore, MCTS or a
curriculum of start states need).

    pip install "bindings/python[gymnasium]"
    MJBRIDGE_LIB=target/release python examples/python/gym_exact_reset.py tests/models/gym_act.xml
"""

import sys

import gymnasium
import numpy as np

import mjbridge.gymnasium  # noqa: F401 (registers mjbridge/MjBridge-v0)


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: gym_exact_reset.py MODEL.xml (e.g. tests/models/gym_act.xml)")
    path = sys.argv[1]
    env = gymnasium.make(
        "mjbridge/MjBridge-v0", model_path=path, frame_skip=2, max_episode_steps=1000
    )
    try:
        env.reset(seed=0)
        env.action_space.seed(0)
        for _ in range(50):
            env.step(env.action_space.sample())
        saved = env.unwrapped.save_state()  # a restore point: the complete integration state
        actions = [env.action_space.sample() for _ in range(200)]
        first = [env.step(a)[0].tobytes() for a in actions]
        env.unwrapped.load_state(saved)  # or env.reset(options={"state": saved})
        again = [env.step(a)[0].tobytes() for a in actions]
        same = first == again
        print(
            "gym-exact-reset: %d steps replayed from the saved state: %s"
            % (len(actions), "identical" if same else "DIFFERENT")
        )
        print("gym-exact-reset: observation %d floats, action space %s" % (
            np.frombuffer(first[-1]).size, env.action_space))
        saved.close()
        if not same:
            sys.exit(1)
    finally:
        env.close()
    print("gym-exact-reset: done")


if __name__ == "__main__":
    main()
