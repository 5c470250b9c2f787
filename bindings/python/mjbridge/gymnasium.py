"""A Gymnasium environment over any MJCF, with exact resets (``pip install mjbridge[gymnasium]``).

    from mjbridge.gymnasium import MjBridgeEnv

    env = MjBridgeEnv("robot.xml", frame_skip=5)
    obs, info = env.reset(seed=0)
    saved = env.save_state()                  # a RestorePoint: the complete integration state
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    env.load_state(saved)                     # back there, bit for bit (actuator activations,
                                              # warm start, controls, applied forces, time)

Gymnasium's own MuJoCo environments reset and set state through ``qpos``/``qvel`` alone
(``MujocoEnv.set_state``), which loses actuator activations (``act``), the solver's warm start
(``qacc_warmstart``) and the other inputs of the next step, so a restored episode does not go on
as the original did. Here every reset and ``load_state`` is a restore of the bridge (a restore
point, or a checkpoint or world document), validated and read back bit for bit.

- Observation: the concatenation of ``observation_fields`` (default qpos, qvel) of the frame
  the bridge publishes after each call, float64, ``Box(-inf, inf)``. Fields that MuJoCo
  computes in ``mj_forward`` (sensordata, qacc, actuator_force) are zeros in the observation
  that ``reset``/``load_state`` return: the bridge never runs the pipeline on a restore and
  marks them stale until the next step.
- Action: written to ``ctrl``; ``action_space`` is ``Box(low, high, (nu,), float64)`` from the
  actuators' ``ctrlrange`` where the MJCF limits them (``ctrllimited="true"``, or ``"auto"``
  with a ``ctrlrange`` and ``autolimits``; defaults classes, ``childclass`` and ``<include>``
  resolved), ``-inf``/``+inf`` for an unlimited actuator. ``ctrl_range=`` (an ``(nu, 2)``
  array) overrides the MJCF.
- Step: one call of the bridge (``Stepper``): write ctrl, step ``frame_skip`` times, read the
  frame. ``info`` is ``{"tick", "time"}`` of that frame (deterministic: check_env compares it);
  ``env.frame_info`` is the last call's whole ``FrameInfo``. Reward ``reward_fn(obs, action, info)`` (default 0.0), termination
  ``terminate_fn(obs, action, info)`` (default never); truncation only when a stop was latched
  on the endpoint (``info["stopped"]``): a step halted by the stop, or a step refused because
  the stop was latched before it (nothing stepped: the latest frame's observation); episode limits come from Gymnasium's ``TimeLimit``
  (``gymnasium.make("mjbridge/MjBridge-v0", model_path=..., max_episode_steps=N)``).
- Reset: ``super().reset(seed=seed)``, then the restore point captured at construction (exact).
  With ``reset_noise_scale > 0``, every qpos and qvel entry gets ``self.np_random.uniform(-s,
  s)`` (quaternions renormalised) and that state is restored as a checkpoint document.
  ``options={"state": s}`` resets to a saved state instead (what ``load_state`` takes).
- ``render_mode`` must be None: this environment does not render.
- ``exact`` says whether restores continue bit for bit: true on the integration profile (every
  engine with MuJoCo's state API, 2.3.x and newer); MuJoCo 2.2's basic profile restores qpos,
  qvel, act, ctrl and time only (``profile`` names it).
"""

from __future__ import annotations

import json as _json
import math
import os
import xml.etree.ElementTree as ET
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

# Without gymnasium installed (the binding's own type check), its names are Any here.
import gymnasium  # type: ignore[import-not-found, unused-ignore]
import numpy as np
from gymnasium import spaces  # type: ignore[import-not-found, unused-ignore]

from . import (
    Config,
    Document,
    build_info,
    Endpoint,
    Field,
    FrameInfo,
    MjbError,
    ObjectKind,
    Outcome,
    Reason,
    RestorePoint,
)

__all__ = ["MjBridgeEnv", "State", "ctrl_ranges_from_mjcf"]

State = Union[RestorePoint, str, bytes]
RewardFn = Callable[[Any, Any, Dict[str, Any]], float]
TerminateFn = Callable[[Any, Any, Dict[str, Any]], bool]

# The actuator elements of MJCF (each a <general> with some attributes set); <default> classes
# hold one actuator default, which any of them sets.
_ACTUATORS = {
    "general",
    "motor",
    "position",
    "velocity",
    "intvelocity",
    "damper",
    "cylinder",
    "muscle",
    "adhesion",
    "plugin",
    "dcmotor",
}


def _read_mjcf(path: str) -> ET.Element:
    """The MJCF's root with every <include file=...> replaced by the included file's children."""
    root = ET.parse(path).getroot()
    _expand_includes(root, os.path.dirname(os.path.abspath(path)), 0)
    return root


def _expand_includes(node: ET.Element, folder: str, depth: int) -> None:
    if depth > 32:
        raise ValueError("MJCF includes nest deeper than 32 levels")
    for i, child in enumerate(list(node)):
        if child.tag == "include":
            included = ET.parse(os.path.join(folder, child.attrib["file"])).getroot()
            _expand_includes(included, folder, depth + 1)
            node.remove(child)
            for k, c in enumerate(list(included)):
                node.insert(i + k, c)
        else:
            _expand_includes(child, folder, depth)


def ctrl_ranges_from_mjcf(
    path: Union[str, "os.PathLike[str]"], autolimits: bool = True
) -> List[Tuple[Optional[str], float, float]]:
    """``[(name, low, high)]`` per actuator of the MJCF, in MuJoCo's order: the ``ctrlrange``
    where the actuator is control-limited, ``(-inf, inf)`` where it is not. ``autolimits``: the
    compiler's default where the MJCF does not set it (true from MuJoCo 2.3.0 on)."""
    root = _read_mjcf(os.fspath(path))
    for c in root.iter("compiler"):
        if "autolimits" in c.attrib:
            autolimits = c.attrib["autolimits"].strip() == "true"
    # Default classes: name -> the actuator attributes they set (inherited from the parent).
    classes: Dict[str, Dict[str, str]] = {}

    def walk(node: ET.Element, inherited: Dict[str, str]) -> None:
        own = dict(inherited)
        for child in node:
            if child.tag in _ACTUATORS:
                own.update(child.attrib)
        classes[node.attrib.get("class", "main")] = own
        for child in node:
            if child.tag == "default":
                walk(child, own)

    for top in root.findall("default"):
        walk(top, {})
    classes.setdefault("main", {})
    out: List[Tuple[Optional[str], float, float]] = []
    for section in root.findall("actuator"):
        for a in section:
            if a.tag not in _ACTUATORS:
                continue
            cls = a.attrib.get("class", "main")
            if cls not in classes:
                raise ValueError("actuator class %r is not defined" % cls)
            attrs = {k: v for k, v in classes[cls].items() if k != "class"}
            attrs.update(a.attrib)
            limited = attrs.get("ctrllimited", "auto").strip()
            has_range = "ctrlrange" in attrs
            if limited == "true" or (limited == "auto" and autolimits and has_range):
                lo, hi = (float(v) for v in attrs["ctrlrange"].split())
            else:
                lo, hi = -math.inf, math.inf
            out.append((a.attrib.get("name"), lo, hi))
    return out


def _field(f: Union[int, str]) -> Field:
    return Field[f.upper()] if isinstance(f, str) else Field(f)


class MjBridgeEnv(gymnasium.Env):  # type: ignore[misc, unused-ignore]
    """A ``gymnasium.Env`` over an MJCF file, stepped and restored by the bridge (see the
    module's text). ``close()`` frees the endpoint and the restore points it made."""

    metadata: Dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        model_path: Union[str, "os.PathLike[str]"],
        frame_skip: int = 1,
        *,
        observation_fields: Sequence[Union[int, str]] = (Field.QPOS, Field.QVEL),
        reward_fn: Optional[RewardFn] = None,
        terminate_fn: Optional[TerminateFn] = None,
        reset_noise_scale: float = 0.0,
        ctrl_range: Optional[Any] = None,
        profile: Optional[str] = None,
        render_mode: Optional[str] = None,
    ) -> None:
        if render_mode is not None:
            raise ValueError("MjBridgeEnv does not render: render_mode must be None")
        if frame_skip < 1:
            raise ValueError("frame_skip must be at least 1")
        if reset_noise_scale < 0:
            raise ValueError("reset_noise_scale must not be negative")
        self.render_mode = None
        self.model_path = os.fspath(model_path)
        self.frame_skip = int(frame_skip)
        self.observation_fields: List[Field] = [_field(f) for f in observation_fields]
        if not self.observation_fields:
            raise ValueError("observation_fields names no field")
        self.reward_fn = reward_fn
        self.terminate_fn = terminate_fn
        self.reset_noise_scale = float(reset_noise_scale)
        cfg = Config(
            self.model_path,
            frame=self.observation_fields,
            publish="end_of_call",
            profile=profile,
        )
        self.endpoint = Endpoint.open(cfg)
        try:
            self._setup(ctrl_range)
        except BaseException:
            self.endpoint.close()
            raise

    def _setup(self, ctrl_range: Optional[Any]) -> None:
        ep = self.endpoint
        self.dims = ep.dims()
        nu = int(self.dims.nu)
        # One observation buffer; the stepper writes each field straight into its slice.
        sizes = [ep.frame_field_len(f) for f in self.observation_fields]
        self._obs = np.zeros(sum(sizes), dtype=np.float64)
        self._slices: Dict[Field, slice] = {}
        out: Dict[int, Any] = {}
        at = 0
        for f, n in zip(self.observation_fields, sizes):
            self._slices[f] = slice(at, at + n)
            out[f] = self._obs[at : at + n]
            at += n
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=self._obs.shape, dtype=np.float64
        )
        world = _json.loads(ep.world())["world"]
        self.profile: str = world["profile"]
        # Whether a restore continues exactly: the integration profile (MuJoCo's state API);
        # the basic profile (MuJoCo 2.2) restores the public fields only.
        self.exact: bool = world["checkpoint_scope"] == "complete_integration_state"
        if ctrl_range is None:
            engine = tuple(int(x) for x in str(build_info()["engine"]).split(".")[:2])
            ranges = ctrl_ranges_from_mjcf(self.model_path, autolimits=engine >= (2, 3))
            if len(ranges) != nu:
                raise ValueError(
                    "the MJCF lists %d actuators, the compiled model has %d (actuators from "
                    "<attach>, <replicate> or plugins are not read here): pass ctrl_range="
                    % (len(ranges), nu)
                )
            for u, (name, _, _) in enumerate(ranges):
                bridge_name = ep.id_to_name(ObjectKind.ACTUATOR, u)
                if (name or "") != bridge_name:
                    raise ValueError(
                        "actuator %d is %r in the MJCF, %r in the model: pass ctrl_range="
                        % (u, name, bridge_name)
                    )
            bounds = np.array([[lo, hi] for _, lo, hi in ranges], dtype=np.float64).reshape(nu, 2)
        else:
            bounds = np.asarray(ctrl_range, dtype=np.float64)
            if bounds.shape != (nu, 2):
                raise ValueError("ctrl_range must have shape (%d, 2), not %s" % (nu, bounds.shape))
        self.action_space = spaces.Box(
            bounds[:, 0].copy(), bounds[:, 1].copy(), shape=(nu,), dtype=np.float64
        )
        self.stepper = ep.stepper(read=self.observation_fields, nstep=self.frame_skip, out=out)
        self._step = self.stepper.step
        self.frame_info: FrameInfo = self.stepper.info
        self._ctrl = self.stepper.ctrl
        self._nu_shape = (nu,)
        # The state a reset returns to: captured now, before any step.
        self._initial = ep.capture()
        self._initial_checkpoint: Optional[Dict[str, Any]] = None
        # Quaternion segments of qpos (free and ball joints), renormalised after reset noise.
        self._quats: List[slice] = []
        for j in range(int(self.dims.njnt)):
            a = ep.joint_slice(j)
            if a.qpos_len == 7:
                self._quats.append(slice(a.qpos_adr + 3, a.qpos_adr + 7))
            elif a.qpos_len == 4:
                self._quats.append(slice(a.qpos_adr, a.qpos_adr + 4))
        self._stale_masks = [(1 << int(f), self._slices[f]) for f in self.observation_fields]

    # ---- the Gymnasium API ----------------------------------------------------------------

    def step(self, action: Any) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        if np.shape(action) != self._nu_shape:
            raise ValueError(
                "action has shape %s, the model has %d actuators"
                % (np.shape(action), self._nu_shape[0])
            )
        refused = False
        try:
            fi = self.frame_info = self._step(action)
        except MjbError as e:
            if e.outcome != Outcome.REJECTED or e.reason != Reason.STOP_LATCHED:
                raise
            # A stop latched before this step: nothing was written or stepped. The episode
            # is truncated where it stands (the latest frame's observation).
            fi = self.frame_info = self.stepper.read()
            refused = True
        obs = self._obs.copy()
        info: Dict[str, Any] = {"tick": fi.tick, "time": fi.time}
        stopped = refused or self.stepper.report.reason == Reason.STOP_LATCHED
        if stopped:
            info["stopped"] = True
        reward = 0.0 if self.reward_fn is None else float(self.reward_fn(obs, action, info))
        terminated = False if self.terminate_fn is None else bool(self.terminate_fn(obs, action, info))
        return obs, reward, terminated, stopped, info

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[Any, Dict[str, Any]]:
        super().reset(seed=seed)
        state = None if options is None else options.get("state")
        if state is not None:
            fi = self._restore(state)
        elif self.reset_noise_scale > 0:
            fi = self.stepper.restore(self._noisy_initial_state())
        else:
            fi = self.stepper.apply(self._initial)
        self.frame_info = fi
        return self._observation_after_restore(fi), {"tick": fi.tick, "time": fi.time}

    def render(self) -> None:
        """Not supported: this environment has no renderer (``render_mode`` is None)."""
        return None

    def close(self) -> None:
        if not self.endpoint.closed:
            self._initial.close()
            self.endpoint.close()

    # ---- saved states -------------------------------------------------------------------------

    def save_state(self, json: bool = False) -> Union[RestorePoint, Document]:
        """The complete state the bridge restores: a RestorePoint (in memory, this endpoint
        only, no JSON), or with ``json=True`` its checkpoint document (a str to keep, or to
        ``load_state`` in another environment of the same model)."""
        if json:
            return self.endpoint.checkpoint()
        return self.endpoint.capture()

    def save_world(self) -> Document:
        """The world document: the checkpoint with the model's fingerprint and a state hash, both
        checked by the endpoint that restores it (the form that crosses processes)."""
        return self.endpoint.world()

    def load_state(self, state: State) -> Any:
        """Restore a RestorePoint of this environment, a checkpoint document or a world
        document (``str`` or ``bytes``); returns the observation there. Exact: the episode goes on
        bit for bit as it did from where the state was saved. A state of another model or
        engine is refused (``MjbError``) and nothing changes. (A ``TimeLimit`` wrapper's step
        count is its own: it does not move back.)"""
        fi = self.frame_info = self._restore(state)
        return self._observation_after_restore(fi)

    # ---- helpers ------------------------------------------------------------------------------

    def _restore(self, state: State) -> FrameInfo:
        if isinstance(state, RestorePoint):
            return self.stepper.apply(state)
        if isinstance(state, (str, bytes)):
            return self.stepper.restore(state)
        raise TypeError("a state is a RestorePoint or a checkpoint or world document (str, bytes)")

    def _observation_after_restore(self, fi: FrameInfo) -> Any:
        obs = self._obs.copy()
        for bit, sl in self._stale_masks:
            if fi.stale & bit:
                obs[sl] = 0.0
        return obs

    def _noisy_initial_state(self) -> bytes:
        if self._initial_checkpoint is None:
            self._initial_checkpoint = _json.loads(self._initial.to_json())
        doc = _json.loads(_json.dumps(self._initial_checkpoint))
        nq, nv, s = int(self.dims.nq), int(self.dims.nv), self.reset_noise_scale
        qpos = np.array(doc["qpos"], dtype=np.float64)
        qvel = np.array(doc["qvel"], dtype=np.float64)
        qpos += self.np_random.uniform(-s, s, size=nq)
        qvel += self.np_random.uniform(-s, s, size=nv)
        for q in self._quats:
            norm = float(np.linalg.norm(qpos[q]))
            if norm > 0:
                qpos[q] /= norm
        doc["qpos"], doc["qvel"] = qpos.tolist(), qvel.tolist()
        values = doc.get("values")
        if values is not None:
            # The integration state (mj_getState): time, then qpos, then qvel; the public fields
            # must equal those segments bit for bit.
            if values[1 : 1 + nq] != self._initial_checkpoint["qpos"] or values[
                1 + nq : 1 + nq + nv
            ] != self._initial_checkpoint["qvel"]:
                raise RuntimeError("the checkpoint's state values do not start with time, qpos, qvel")
            values[1 : 1 + nq] = doc["qpos"]
            values[1 + nq : 1 + nq + nv] = doc["qvel"]
        return _json.dumps(doc).encode("utf-8")


def _register() -> None:
    if "mjbridge/MjBridge-v0" not in gymnasium.registry:
        gymnasium.register(id="mjbridge/MjBridge-v0", entry_point="mjbridge.gymnasium:MjBridgeEnv")


_register()
