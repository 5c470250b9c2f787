"""A host written against the binding's type hints, for the type checker (not run by pytest):
`mypy --strict` must accept it against the installed package, which it only reads when the
package ships py.typed (PEP 561). Run as a program it is the wheel's smoke test: usage
`python typed_consumer.py MODEL.xml`."""

import json
import pathlib
import sys
from typing import Dict, List, Optional

import mjbridge
from mjbridge import (
    Config,
    Document,
    Endpoint,
    Field,
    FrameInfo,
    MjbError,
    ModelIndex,
    Reason,
    Report,
    RestorePoint,
)


def main(model: pathlib.Path) -> int:
    cfg: Config = Config(model, seed=1, frame=[Field.QPOS, Field.QVEL, Field.CTRL])
    plugins: Optional[str] = mjbridge.bundled_plugin_dir()
    with Endpoint.open(cfg) as ep:
        idx: ModelIndex = ep.index()
        joints: List[str] = idx.joints
        st = ep.stepper(read=[Field.QPOS, Field.QVEL], nstep=2)
        info: FrameInfo = st.step([0.1] * ep.dims().nu)
        first: int = info.tick  # a value: later steps return FrameInfo values of their own
        checkpoint: bytes = ep.checkpoint().encode("utf-8")
        report: Report = ep.step(3)
        tick: int = st.restore(checkpoint).tick
        try:
            ep.restore(b"{}")
        except MjbError as e:
            refused: bool = e.reason == Reason.MISSING_FIELD
        world: Dict[str, object] = json.loads(ep.world())["world"]
        # Restore points, documents with their tick, a compare-and-step, the fingerprint.
        doc: Document = ep.checkpoint()
        rp: RestorePoint
        with ep.capture() as rp:
            st.step(expect_tick=doc.tick, expect_configuration=doc.configuration)
            back: Report = ep.apply(rp, expect_tick=doc.tick + 2)
            saved: Document = rp.to_json()
        fingerprint: str = ep.model_fingerprint()
        print(
            "library %s | joints %s | tick %d -> %d -> %d | refused %s | tick %s | plugins %s"
            " | restore point %d -> %d, %s | %s"
            % (mjbridge.library()._name, joints, first, report.tick_after, tick, refused,
               world["tick"], plugins, rp.tick, back.tick_after, saved == doc, fingerprint[:7])
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1])))
