"""A host written against the binding's type hints, for the type checker (not run by pytest):
`mypy --strict` must accept it against the installed package, which it only reads when the
package ships py.typed (PEP 561). Run as a program it is the wheel's smoke test: usage
`python typed_consumer.py MODEL.xml`."""

import json
import pathlib
import sys
from typing import Dict, List, Optional

import mjbridge
from mjbridge import Config, Endpoint, Field, FrameInfo, MjbError, ModelIndex, Reason, Report


def main(model: pathlib.Path) -> int:
    cfg: Config = Config(model, seed=1, frame=[Field.QPOS, Field.QVEL, Field.CTRL])
    plugins: Optional[str] = mjbridge.bundled_plugin_dir()
    with Endpoint.open(cfg) as ep:
        idx: ModelIndex = ep.index()
        joints: List[str] = idx.joints
        st = ep.stepper(read=[Field.QPOS, Field.QVEL], nstep=2)
        info: FrameInfo = st.step([0.1] * ep.dims().nu)
        checkpoint: bytes = ep.checkpoint().encode("utf-8")
        report: Report = ep.step(3)
        tick: int = st.restore(checkpoint).tick
        try:
            ep.restore(b"{}")
        except MjbError as e:
            refused: bool = e.reason == Reason.MISSING_FIELD
        world: Dict[str, object] = json.loads(ep.world())["world"]
        print(
            "library %s | joints %s | tick %d -> %d -> %d | refused %s | tick %s | plugins %s"
            % (mjbridge.library()._name, joints, info.tick, report.tick_after, tick, refused,
               world["tick"], plugins)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1])))
