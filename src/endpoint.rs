//! An endpoint owns one MuJoCo model/data pair, its tick, its native lock and its safety
//! state. Every native read or write happens under the lock, after admission with a deadline;
//! the facts a document is validated against (engine, dimensions, layout, configuration, seed)
//! are kept beside the lock, so validation never waits for it.
//!
//! Flow of a mutation: bytes → strict document (no lock) → admission (fence, deadline) →
//! native phase → verification → outcome.

use crate::checkpoint::json::{self, Value};
use crate::checkpoint::write::Writer;
use crate::checkpoint::{self, Buffers, Facts, Profile};
use crate::frame::{self, Cause};
use crate::inputs::{self, Input};
use crate::native::{self, Dims, Layout, Mujoco, NativeError, Public};
use crate::outcome::{Outcome, Reason, Refusal};
use crate::safety::{InFlight, Safety};
use crate::world;
use parking_lot::{Mutex, MutexGuard, RwLock};
use std::sync::Arc;
use std::time::Duration;

/// `timeout_ms` value that waits for the native lock without a deadline.
pub const WAIT_FOREVER: u32 = u32::MAX;

/// What a mutation did: the outcome, its reason, and the tick before and after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Report {
    pub outcome: Outcome,
    pub reason: Reason,
    pub tick_before: u64,
    pub tick_after: u64,
    /// Engine auto-resets (NaN/Inf in qpos/qvel/qacc) seen during the call.
    pub engine_resets: u64,
    /// The endpoint's admission counter for this call (1, 2, ... in lock order), 0 when the
    /// call was not admitted.
    pub sequence: u64,
}

/// A report plus, when the call did not simply succeed, the detail for `mjb_last_error`.
#[derive(Clone, Debug)]
pub struct Answer {
    pub report: Report,
    pub detail: Option<Refusal>,
}

impl Answer {
    fn ok(tick_before: u64, tick_after: u64) -> Self {
        Answer {
            report: Report {
                outcome: Outcome::MJB_OK,
                reason: Reason::MJB_REASON_NONE,
                tick_before,
                tick_after,
                engine_resets: 0,
                sequence: 0,
            },
            detail: None,
        }
    }

    /// A refusal before admission, at the endpoint's last published tick.
    pub fn refused_at(r: Refusal, tick: u64) -> Self {
        Self::refused(r, tick, tick)
    }

    fn refused(r: Refusal, tick_before: u64, tick_after: u64) -> Self {
        Answer {
            report: Report {
                outcome: r.outcome,
                reason: r.reason,
                tick_before,
                tick_after,
                engine_resets: 0,
                sequence: 0,
            },
            detail: Some(r),
        }
    }
}

pub use crate::config::{parse_config, Config};

/// The model facts validation needs, replaced as a whole when the model is.
#[derive(Debug)]
pub struct Shape {
    pub dims: Dims,
    pub configuration: u64,
    /// The integration state layout, wherever the engine has the state API (whatever the
    /// profile): it is the checkpoint format of `mujoco_integration_v1` and, for both
    /// profiles, the image a failed native call is rolled back to.
    pub layout: Option<Layout>,
}

struct Native {
    mj: Mujoco,
    tick: u64,
    shape: Arc<Shape>,
    /// Mutations admitted so far (orders concurrent callers' effects).
    admitted: u64,
    /// The pre-mutation image of the integration state (reused: no allocation per step).
    pre: Vec<f64>,
    /// The pre-mutation public fields, on engines without the state API (reused).
    pre_public: Public,
    /// Read-back buffer for verifying a state write (reused).
    readback: Vec<f64>,
    /// The state vector a document read serves (reused).
    state: Vec<f64>,
    /// Bytes of the last checkpoint and world document served, to size the next one's
    /// buffer once (a document grows only with its numbers' digits).
    last_document_bytes: usize,
    last_world_bytes: usize,
    /// Publishes frames of this pair (see [`frame`]).
    writer: frame::Writer,
}

/// A state image to restore or to roll back to: the integration state in a buffer, or the
/// public fields where the engine has no state API.
enum Image<'a> {
    State(&'a [f64]),
    Public(&'a Public),
}

/// What a mutation captured before touching the engine: the integration state (in
/// `Native::pre`), or the public fields (in `Native::pre_public`) where the engine has no
/// state API. Both buffers are reused: capturing allocates nothing.
#[derive(Clone, Copy)]
enum Pre {
    State,
    Public,
}

pub struct Endpoint {
    pub safety: Safety,
    native: Mutex<Native>,
    /// Number buffers of earlier restores, reused by the next ones (validation runs before
    /// the lock, so concurrent restores each take their own).
    spare: Mutex<Vec<Buffers>>,
    shape: RwLock<Arc<Shape>>,
    name: String,
    seed: u64,
    profile: Profile,
    fidelity: Option<Value>,
    /// The readers' end of the frames: no lock.
    frames: frame::Frames,
    selection: frame::Selection,
}

fn engine_refusal(e: &NativeError, what: &str) -> Refusal {
    Refusal::rejected(
        Reason::MJB_REASON_ENGINE_ERROR,
        format!("{what}: {}", e.message()),
    )
}

/// Refuse unless the loaded MuJoCo is the release the shim was compiled against.
pub fn check_engine() -> Result<(), Refusal> {
    let e = native::engine();
    if e.library_matches_headers() {
        Ok(())
    } else {
        Err(Refusal::rejected(
            Reason::MJB_REASON_ENGINE,
            format!(
                "engine mismatch: compiled against mjVERSION_HEADER {} but the loaded library is {} ({})",
                e.header_version, e.runtime_version, e.version_string
            ),
        ))
    }
}

fn resolve_profile(wanted: Option<Profile>) -> Result<Profile, Refusal> {
    let e = native::engine();
    match wanted {
        None if e.supports_integration() => Ok(Profile::Integration),
        None => Ok(Profile::Basic),
        Some(Profile::Integration) if !e.supports_integration() => Err(Refusal::rejected(
            Reason::MJB_REASON_PROFILE,
            format!(
                "mujoco_integration_v1 needs mj_stateSize/mj_getState/mj_setState and mjSTATE_EQ_ACTIVE (MuJoCo >= 3.0.0); this engine is {}",
                e.version_string
            ),
        )
        .at("/profile")),
        Some(p) => Ok(p),
    }
}

fn shape_of(mj: &Mujoco, configuration: u64) -> Result<Shape, Refusal> {
    let engine = native::engine();
    let layout = if engine.supports_integration() {
        Some(
            mj.layout(engine.sig_integration)
                .map_err(|e| engine_refusal(&e, "deriving the state layout"))?,
        )
    } else {
        None
    };
    Ok(Shape {
        dims: mj.dims(),
        configuration,
        layout,
    })
}

impl Endpoint {
    /// Load a model per `config` and own it.
    pub fn open(config_json: &[u8]) -> Result<Endpoint, Refusal> {
        let mut config = parse_config(config_json, true)?;
        check_engine()?;
        let profile = resolve_profile(config.profile)?;
        let source = config.model.take().expect("open requires model");
        let mj = Mujoco::load(&source).map_err(|e| {
            Refusal::rejected(
                Reason::MJB_REASON_MODEL_LOAD,
                format!("MuJoCo could not load the model: {}", e.message()),
            )
            .at("/model")
        })?;
        let mut mj = mj;
        let shape = shape_of(&mj, 0)?;
        let writer = first_frame(&mut mj, &config)?;
        Ok(Self::with_shape(mj, config, profile, shape, writer))
    }

    /// Own a host's pair. On refusal nothing was taken: the host still owns `m` and `d`.
    ///
    /// # Safety
    /// As for [`Mujoco::adopt`].
    pub unsafe fn adopt(
        m: std::ptr::NonNull<native::MjModel>,
        d: std::ptr::NonNull<native::MjData>,
        config_json: &[u8],
    ) -> Result<Endpoint, Refusal> {
        let config = parse_config(config_json, false)?;
        check_engine()?;
        let profile = resolve_profile(config.profile)?;
        let mut mj = Mujoco::adopt(m, d);
        let ready = shape_of(&mj, 0).and_then(|s| Ok((s, first_frame(&mut mj, &config)?)));
        match ready {
            Ok((shape, writer)) => Ok(Self::with_shape(mj, config, profile, shape, writer)),
            Err(e) => {
                // Give the pair back untouched: the host keeps ownership on refusal.
                mj.give_back();
                Err(e)
            }
        }
    }

    fn with_shape(
        mj: Mujoco,
        config: Config,
        profile: Profile,
        shape: Shape,
        writer: frame::Writer,
    ) -> Endpoint {
        let shape = Arc::new(shape);
        let size = shape.layout.as_ref().map_or(0, |l| l.size);
        Endpoint {
            safety: Safety::new(0),
            frames: writer.frames(),
            native: Mutex::new(Native {
                mj,
                tick: 0,
                shape: shape.clone(),
                admitted: 0,
                pre: Vec::with_capacity(size),
                pre_public: Public::default(),
                readback: Vec::with_capacity(size),
                state: Vec::with_capacity(size),
                last_document_bytes: 0,
                last_world_bytes: 0,
                writer,
            }),
            spare: Mutex::new(vec![Buffers::for_shape(&shape)]),
            shape: RwLock::new(shape),
            name: config.name,
            seed: config.seed,
            profile,
            fidelity: config.fidelity,
            selection: config.frame,
        }
    }

    /// The readers' end of the frames and model facts (no lock).
    pub fn frames(&self) -> &frame::Frames {
        &self.frames
    }

    pub fn profile(&self) -> Profile {
        self.profile
    }

    pub fn shape(&self) -> Arc<Shape> {
        self.shape.read().clone()
    }

    /// Validate a document exactly as [`Endpoint::restore`] does before admission (a
    /// checkpoint, or a world document with its state hash), without restoring it: no lock,
    /// no native call, nothing changes. A refusal carries the reason and the JSON pointer
    /// `restore` would report.
    pub fn validate_checkpoint(&self, bytes: &[u8]) -> Result<checkpoint::Checkpoint, Refusal> {
        let mut bufs = Buffers::default();
        world::validate_restore(bytes, &self.facts(&self.shape()), &mut bufs)
    }

    fn facts<'a>(&self, shape: &'a Shape) -> Facts<'a> {
        Facts {
            profile: self.profile,
            engine: native::engine(),
            dims: shape.dims,
            configuration: shape.configuration,
            layout: shape.layout.as_ref(),
            seed: self.seed,
        }
    }

    fn admit(&self, timeout_ms: u32) -> Result<MutexGuard<'_, Native>, Refusal> {
        let guard = match timeout_ms {
            WAIT_FOREVER => Some(self.native.lock()),
            0 => self.native.try_lock(),
            ms => self
                .native
                .try_lock_for(Duration::from_millis(u64::from(ms))),
        };
        guard.ok_or_else(|| {
            Refusal::rejected(
                Reason::MJB_REASON_BUSY,
                format!("the native lock was not free within {timeout_ms} ms; nothing was done"),
            )
        })
    }

    fn fenced_refusal(&self) -> Option<Refusal> {
        self.safety.fenced().map(|r| {
            Refusal::new(
                Outcome::MJB_FENCED,
                r,
                format!(
                    "the endpoint is fenced ({}); only reads, stop and free work",
                    r.name()
                ),
            )
        })
    }

    /// The common frame of every mutation: fence, admission, fence again, work in flight.
    fn mutate(&self, timeout_ms: u32, f: impl FnOnce(&mut Native, &InFlight) -> Answer) -> Answer {
        let tick = || self.safety.view_tick();
        if let Some(r) = self.fenced_refusal() {
            return Answer::refused(r, tick(), tick());
        }
        let mut native = match self.admit(timeout_ms) {
            Ok(g) => g,
            Err(r) => return Answer::refused(r, tick(), tick()),
        };
        if let Some(r) = self.fenced_refusal() {
            return Answer::refused(r, native.tick, native.tick);
        }
        native.admitted += 1;
        let sequence = native.admitted;
        let before = native.tick;
        let work = self.safety.begin_work();
        // A panic inside the native phase fences the endpoint here, where the admission tick
        // and sequence are known, so its report says where it happened.
        let _inside = crate::panics::enter();
        let mut answer = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            f(&mut native, &work)
        })) {
            Ok(a) => a,
            Err(p) => {
                self.safety.fence(Reason::MJB_REASON_PANIC);
                Answer::refused(crate::panics::refusal(p), before, native.tick)
            }
        };
        answer.report.sequence = sequence;
        answer
    }

    /// Fence the endpoint and answer `MJB_UNKNOWN`.
    fn unknown(&self, reason: Reason, message: String, before: u64, after: u64) -> Answer {
        self.safety.fence(reason);
        Answer::refused(
            Refusal::new(Outcome::MJB_UNKNOWN, reason, message),
            before,
            after,
        )
    }

    // ---- images and rollback ----------------------------------------------------------------

    /// Capture the most complete image this engine can read back: the integration state (into
    /// `n.pre`) where the state API exists, else the public fields.
    fn capture(&self, n: &mut Native) -> Result<Pre, NativeError> {
        match n.shape.layout.as_ref() {
            Some(l) => {
                n.pre.resize(l.size, 0.0);
                n.mj.get_state(l.sig, &mut n.pre)?;
                Ok(Pre::State)
            }
            None => {
                n.mj.public_into(&mut n.pre_public);
                Ok(Pre::Public)
            }
        }
    }

    fn apply(mj: &mut Mujoco, shape: &Shape, image: Image) -> Result<(), NativeError> {
        match image {
            Image::State(v) => {
                let sig = shape
                    .layout
                    .as_ref()
                    .expect("state image needs a layout")
                    .sig;
                mj.set_state(sig, v)
            }
            Image::Public(p) => mj.write_public(p),
        }
    }

    /// Read back and compare bit for bit.
    fn holds(
        mj: &Mujoco,
        shape: &Shape,
        image: Image,
        readback: &mut Vec<f64>,
    ) -> Result<bool, NativeError> {
        Ok(match image {
            Image::State(want) => {
                let l = shape.layout.as_ref().expect("state image needs a layout");
                readback.resize(l.size, 0.0);
                mj.get_state(l.sig, readback)?;
                readback.len() == want.len()
                    && readback
                        .iter()
                        .zip(want)
                        .all(|(a, b)| a.to_bits() == b.to_bits())
            }
            Image::Public(want) => mj.public().same_bits(want),
        })
    }

    /// Put `pre` back (after a reset when the engine raised mid-call) and prove it.
    fn roll_back(
        &self,
        n: &mut Native,
        pre: &Pre,
        reset_first: bool,
        cause: Reason,
        what: String,
        tick_before: u64,
    ) -> Answer {
        let tick_now = n.tick;
        let restored = (|| {
            if reset_first {
                n.mj.reset()?;
            }
            let image = match pre {
                Pre::State => Image::State(&n.pre),
                Pre::Public => Image::Public(&n.pre_public),
            };
            Self::apply(&mut n.mj, &n.shape, image)?;
            let image = match pre {
                Pre::State => Image::State(&n.pre),
                Pre::Public => Image::Public(&n.pre_public),
            };
            Self::holds(&n.mj, &n.shape, image, &mut n.readback)
        })();
        if let Ok(true) = restored {
            n.writer
                .publish(&mut n.mj, n.tick, Cause::MJB_FRAME_ROLLBACK);
        }
        match restored {
            Ok(true) => Answer::refused(
                Refusal::new(
                    Outcome::MJB_ROLLED_BACK,
                    cause,
                    format!("{what}; the prior state was restored and verified bit for bit"),
                ),
                tick_before,
                tick_now,
            ),
            Ok(false) => self.unknown(
                Reason::MJB_REASON_ROLLBACK_UNPROVEN,
                format!("{what}; rolling back did not read back the prior state: endpoint fenced"),
                tick_before,
                tick_now,
            ),
            Err(e) => self.unknown(
                Reason::MJB_REASON_ROLLBACK_UNPROVEN,
                format!(
                    "{what}; rolling back failed ({}): endpoint fenced",
                    e.message()
                ),
                tick_before,
                tick_now,
            ),
        }
    }

    // ---- mutations ----------------------------------------------------------------------------

    /// `mj_step` up to `nstep` times, halting at a latched stop between steps.
    pub fn step(&self, nstep: u32, timeout_ms: u32) -> Answer {
        self.write_step(&[], None, nstep, timeout_ms)
    }

    /// Write checked inputs, then `mj_step` up to `nstep` times, under one admission. `shape`
    /// is the model the inputs were checked against (None without inputs): a model replaced
    /// meanwhile is refused with nothing written. A stop latched before admission refuses the
    /// whole call; one latched after the inputs were written halts before the first step
    /// (`MJB_OK`, stop latched, inputs written).
    pub fn write_step(
        &self,
        inputs: &[Input],
        shape: Option<&Arc<Shape>>,
        nstep: u32,
        timeout_ms: u32,
    ) -> Answer {
        if self.safety.is_stopped() && self.safety.fenced().is_none() {
            let t = self.safety.view_tick();
            return Answer::refused(stop_refusal(), t, t);
        }
        self.mutate(timeout_ms, |n, work| {
            let before = n.tick;
            if before.checked_add(u64::from(nstep)).is_none() {
                return Answer::refused(
                    Refusal::rejected(
                        Reason::MJB_REASON_TICK_OVERFLOW,
                        format!(
                            "the tick is {before}; {nstep} more steps would pass its maximum {} (no step was taken)",
                            u64::MAX
                        ),
                    ),
                    before,
                    before,
                );
            }
            let mut written = 0u64;
            if !inputs.is_empty() {
                if let Some(r) = replaced_refusal(n, shape) {
                    return Answer::refused(r, before, before);
                }
                if work.stop_latched() {
                    return Answer::refused(stop_refusal(), before, before);
                }
                written = inputs::apply(&mut n.mj, inputs);
                // Step frames show the inputs; publish them alone when no step follows.
                if nstep == 0 || !n.writer.publishes_every_step() {
                    n.writer.publish_after_input(&mut n.mj, n.tick, written);
                }
            }
            let mut resets = 0u64;
            let mut answer = None;
            for i in 0..nstep {
                if work.stop_latched() {
                    if i == 0 && written != 0 && n.writer.publishes_every_step() {
                        n.writer.publish_after_input(&mut n.mj, n.tick, written);
                    }
                    answer = Some(if i == 0 && inputs.is_empty() {
                        Answer::refused(stop_refusal(), before, before)
                    } else {
                        let mut a = Answer::ok(before, n.tick);
                        a.report.reason = Reason::MJB_REASON_STOP_LATCHED;
                        a
                    });
                    break;
                }
                let pre = match self.capture(n) {
                    Ok(img) => img,
                    Err(e) => {
                        answer = Some(Answer::refused(engine_refusal(&e, "reading the pre-step state"), before, n.tick));
                        break;
                    }
                };
                // MuJoCo's reset zeroes its warning counters and then counts itself again,
                // so a counter left at 1 by an earlier reset would hide the next one.
                n.mj.clear_reset_warnings();
                if let Err(e) = n.mj.step() {
                    let what = format!("mj_step raised an engine error at step {} of {nstep}: {}", i + 1, e.message());
                    let mut a = self.roll_back(n, &pre, true, Reason::MJB_REASON_ENGINE_ERROR, what, before);
                    a.report.engine_resets = resets;
                    return a;
                }
                n.tick += 1;
                self.safety.publish_tick(n.tick);
                if n.writer.publishes_every_step() {
                    n.writer.publish(&mut n.mj, n.tick, Cause::MJB_FRAME_STEP);
                }
                let now = n.mj.warnings();
                resets += now.badqpos.max(0) as u64 + now.badqvel.max(0) as u64 + now.badqacc.max(0) as u64;
            }
            if !n.writer.publishes_every_step() && n.tick != before {
                n.writer.publish(&mut n.mj, n.tick, Cause::MJB_FRAME_STEP);
            }
            let mut a = answer.unwrap_or_else(|| Answer::ok(before, n.tick));
            a.report.engine_resets = resets;
            if resets > 0 && a.report.outcome == Outcome::MJB_OK && a.report.reason == Reason::MJB_REASON_NONE {
                a.report.reason = Reason::MJB_REASON_ENGINE_RESET;
                a.detail = Some(Refusal::new(
                    Outcome::MJB_OK,
                    Reason::MJB_REASON_ENGINE_RESET,
                    format!("MuJoCo reset the simulation {resets} time(s) after a NaN/Inf in qpos, qvel or qacc"),
                ));
            }
            a
        })
    }

    /// Write `ctrl` (length `nu`, finite values).
    pub fn set_ctrl(&self, ctrl: &[f64], timeout_ms: u32) -> Answer {
        let t = self.safety.view_tick();
        if let Err(r) = self.check_ctrl(ctrl, "/ctrl") {
            return Answer::refused(r, t, t);
        }
        self.mutate(timeout_ms, |n, _| self.write_ctrl(n, ctrl, "/ctrl"))
    }

    /// Write checked controls under the lock; the model may have been replaced since the
    /// check, so the length is confirmed against the pair actually held.
    fn write_ctrl(&self, n: &mut Native, ctrl: &[f64], ptr: &str) -> Answer {
        if ctrl.len() as i64 != n.shape.dims.nu {
            let r = Refusal::rejected(
                Reason::MJB_REASON_DIMENSION,
                format!(
                    "ctrl has {} values; the model (replaced meanwhile) has nu = {}",
                    ctrl.len(),
                    n.shape.dims.nu
                ),
            )
            .at(ptr);
            return Answer::refused(r, n.tick, n.tick);
        }
        n.mj.write_ctrl(ctrl);
        n.writer.publish_after_input(
            &mut n.mj,
            n.tick,
            native::fields::Field::MJB_FIELD_CTRL.bit(),
        );
        Answer::ok(n.tick, n.tick)
    }

    /// Write checked inputs as one world mutation (see [`Endpoint::write_step`]).
    pub fn write_inputs(&self, inputs: &[Input], shape: &Arc<Shape>, timeout_ms: u32) -> Answer {
        self.mutate(timeout_ms, |n, _| {
            if let Some(r) = replaced_refusal(n, Some(shape)) {
                return Answer::refused(r, n.tick, n.tick);
            }
            let written = inputs::apply(&mut n.mj, inputs);
            n.writer.publish_after_input(&mut n.mj, n.tick, written);
            Answer::ok(n.tick, n.tick)
        })
    }

    fn check_ctrl(&self, ctrl: &[f64], ptr: &str) -> Result<(), Refusal> {
        let nu = self.shape().dims.nu;
        if ctrl.len() as i64 != nu {
            return Err(Refusal::rejected(
                Reason::MJB_REASON_DIMENSION,
                format!("ctrl has {} values; the model has nu = {nu}", ctrl.len()),
            )
            .at(ptr));
        }
        if let Some(i) = ctrl.iter().position(|x| !x.is_finite()) {
            return Err(Refusal::rejected(
                Reason::MJB_REASON_NOT_FINITE,
                format!("ctrl[{i}] is not finite"),
            )
            .at(json::pointer_index(ptr, i)));
        }
        Ok(())
    }

    /// Apply a partial world document: only writable fields (the inputs: `ctrl`,
    /// `qfrc_applied`, `xfrc_applied`, `mocap_pos`, `mocap_quat`, `eq_active`).
    pub fn world_write(&self, bytes: &[u8], timeout_ms: u32) -> Answer {
        let t = self.safety.view_tick();
        let shape = self.shape();
        let owned = match inputs::parse_world_write(bytes, &shape.dims) {
            Ok(c) => c,
            Err(r) => return Answer::refused(r, t, t),
        };
        self.write_inputs(&owned.inputs(), &shape, timeout_ms)
    }

    fn take_buffers(&self) -> Buffers {
        self.spare.lock().pop().unwrap_or_default()
    }

    fn give_back(&self, b: Buffers) {
        let mut spare = self.spare.lock();
        // Enough for a few concurrent restores; more would only hold memory.
        if spare.len() < 4 {
            spare.push(b);
        }
    }

    /// Validate a checkpoint or world document (no lock), then restore it under the lock and
    /// prove it.
    pub fn restore(&self, bytes: &[u8], timeout_ms: u32) -> Answer {
        let shape = self.shape();
        let mut bufs = self.take_buffers();
        let checkpoint = match world::validate_restore(bytes, &self.facts(&shape), &mut bufs) {
            Ok(c) => c,
            Err(r) => {
                self.give_back(bufs);
                let t = self.safety.view_tick();
                return Answer::refused(r, t, t);
            }
        };
        let answer = self.mutate(timeout_ms, |n, _| {
            let before = n.tick;
            // The model may have been replaced between validation and admission.
            if !Arc::ptr_eq(&n.shape, &shape) {
                return Answer::refused(
                    Refusal::rejected(
                        Reason::MJB_REASON_CONFIGURATION,
                        format!(
                            "the model was replaced (configuration {} -> {}) while the document waited",
                            shape.configuration, n.shape.configuration
                        ),
                    )
                    .at("/descriptor/configuration"),
                    before,
                    before,
                );
            }
            let pre = match self.capture(n) {
                Ok(img) => img,
                Err(e) => return Answer::refused(engine_refusal(&e, "reading the pre-restore state"), before, before),
            };
            let tick = checkpoint.tick();
            let public;
            let target = match checkpoint.profile {
                Profile::Integration => Image::State(&checkpoint.buffers.values),
                Profile::Basic => {
                    public = checkpoint.public();
                    Image::Public(&public)
                }
            };
            let target2 = match &target {
                Image::State(v) => Image::State(v),
                Image::Public(p) => Image::Public(p),
            };
            match Self::apply(&mut n.mj, &n.shape, target) {
                Ok(()) => match Self::holds(&n.mj, &n.shape, target2, &mut n.readback) {
                    Ok(true) => {
                        n.tick = tick;
                        self.safety.publish_tick(tick);
                        n.writer.publish(&mut n.mj, tick, Cause::MJB_FRAME_RESTORE);
                        Answer::ok(before, tick)
                    }
                    Ok(false) => self.roll_back(
                        n,
                        &pre,
                        false,
                        Reason::MJB_REASON_VERIFICATION_MISMATCH,
                        "the restored state did not read back bit for bit".into(),
                        before,
                    ),
                    Err(e) => self.roll_back(
                        n,
                        &pre,
                        true,
                        Reason::MJB_REASON_ENGINE_ERROR,
                        format!("reading back the restored state raised: {}", e.message()),
                        before,
                    ),
                },
                Err(NativeError::Unexpected(code, msg)) => self.unknown(
                    Reason::MJB_REASON_SETTER_UNEXPECTED_COMPLETION,
                    format!("the state setter completed with unexpected status {code} ({msg}): endpoint fenced"),
                    before,
                    before,
                ),
                Err(e) => {
                    let raised = matches!(e, NativeError::Engine(_));
                    self.roll_back(
                        n,
                        &pre,
                        raised,
                        Reason::MJB_REASON_SETTER_FAILED,
                        format!("the state setter failed: {}", e.message()),
                        before,
                    )
                }
            }
        });
        self.give_back(checkpoint.into_buffers());
        answer
    }

    /// Replace the owned model/data; bumps the configuration counter, keeps tick and safety.
    pub fn replace_model(&self, config_json: &[u8], timeout_ms: u32) -> Answer {
        let t = self.safety.view_tick();
        let source = match crate::config::parse_replacement(config_json) {
            Ok(s) => s,
            Err(r) => return Answer::refused(r, t, t),
        };
        // Loading touches no endpoint state: do it before taking the lock.
        let mj = match Mujoco::load(&source) {
            Ok(mj) => mj,
            Err(e) => {
                return Answer::refused(
                    Refusal::rejected(
                        Reason::MJB_REASON_MODEL_LOAD,
                        format!("MuJoCo could not load the model: {}", e.message()),
                    )
                    .at("/model"),
                    t,
                    t,
                )
            }
        };
        self.mutate(timeout_ms, move |n, _| {
            let mut mj = mj;
            let configuration = n.shape.configuration + 1;
            let shape = match shape_of(&mj, configuration) {
                Ok(s) => Arc::new(s),
                Err(r) => return Answer::refused(r, n.tick, n.tick),
            };
            let writer = match frame::Writer::new(
                &mut mj,
                &self.selection,
                configuration,
                n.writer.published(),
                n.tick,
                Cause::MJB_FRAME_REPLACE,
            ) {
                Ok(w) => w,
                Err(e) => {
                    let r = engine_refusal(&e, "preparing frames for the new model");
                    return Answer::refused(r, n.tick, n.tick);
                }
            };
            let old = std::mem::replace(&mut n.mj, mj);
            self.frames.install(&writer);
            n.writer = writer;
            let size = shape.layout.as_ref().map_or(0, |l| l.size);
            for v in [&mut n.pre, &mut n.readback, &mut n.state] {
                v.clear();
                v.reserve(size);
            }
            n.last_document_bytes = 0;
            n.last_world_bytes = 0;
            *self.spare.lock() = vec![Buffers::for_shape(&shape)];
            n.shape = shape.clone();
            *self.shape.write() = shape;
            drop(old);
            Answer::ok(n.tick, n.tick)
        })
    }

    // ---- reads --------------------------------------------------------------------------------

    /// Read the integration state into `n.state` (the engine has the state API).
    fn read_state(n: &mut Native) -> Result<(), Refusal> {
        let l = n.shape.layout.as_ref().expect("state API present");
        n.state.resize(l.size, 0.0);
        n.mj.get_state(l.sig, &mut n.state)
            .map_err(|e| engine_refusal(&e, "reading the state"))
    }

    /// An output buffer sized from the last document of its kind (`last` bytes), or from an
    /// estimate for the first one.
    fn out_buffer(last: usize, numbers: usize) -> String {
        let guess = if last > 0 {
            last + last / 8 + 64
        } else {
            checkpoint::estimated_bytes(numbers)
        };
        String::with_capacity(guess)
    }

    /// The checkpoint document alone.
    pub fn checkpoint_read(&self, timeout_ms: u32) -> Result<String, Refusal> {
        let mut guard = self.admit(timeout_ms)?;
        let n = &mut *guard;
        let shape = n.shape.clone();
        let facts = self.facts(&shape);
        let text = match self.profile {
            Profile::Integration => {
                Self::read_state(n)?;
                let mut w = Writer::reusing(Self::out_buffer(n.last_document_bytes, n.state.len()));
                checkpoint::write_integration(
                    &mut w,
                    &facts,
                    &n.state,
                    n.tick,
                    &Default::default(),
                )?;
                w.into_text()
            }
            Profile::Basic => {
                let p = n.mj.public();
                let mut w = Writer::reusing(Self::out_buffer(
                    n.last_document_bytes,
                    p.qpos.len() + p.qvel.len(),
                ));
                checkpoint::write_basic(&mut w, &facts, &p, n.tick, &Default::default());
                w.into_text()
            }
        };
        n.last_document_bytes = text.len();
        Ok(text)
    }

    /// The world document (resource read and snapshot serve the same bytes).
    pub fn world_read(&self, timeout_ms: u32) -> Result<String, Refusal> {
        let mut guard = self.admit(timeout_ms)?;
        let n = &mut *guard;
        let shape = n.shape.clone();
        let facts = self.facts(&shape);
        let public = n.mj.public();
        let integration = self.profile == Profile::Integration;
        if integration {
            Self::read_state(n)?;
        }
        let served = inputs::served(&n.mj);
        let numbers = n.state.len()
            + 2 * (public.qpos.len() + public.qvel.len())
            + served.iter().map(|(_, v)| v.len()).sum::<usize>();
        let out = Self::out_buffer(n.last_world_bytes, numbers);
        let text = world::write_document(
            world::WorldParts {
                name: &self.name,
                facts: &facts,
                tick: n.tick,
                public: &public,
                declared: self.fidelity.as_ref(),
                state: integration.then_some(&n.state[..]),
                inputs: &served,
            },
            out,
        )?;
        n.last_world_bytes = text.len();
        Ok(text)
    }

    /// Run `f` on the owned pair under the native lock (for hosts' own reads and for tests).
    pub fn with_native<R>(
        &self,
        timeout_ms: u32,
        f: impl FnOnce(&Mujoco, u64) -> R,
    ) -> Result<R, Refusal> {
        let n = self.admit(timeout_ms)?;
        Ok(f(&n.mj, n.tick))
    }

    /// Arm a one-shot fault on the owned pair (fault-injection builds).
    pub fn arm_fault(&self, fault: native::Fault, timeout_ms: u32) -> Result<(), Refusal> {
        let mut n = self.admit(timeout_ms)?;
        n.mj.arm_fault(fault);
        Ok(())
    }

    // ---- safety -------------------------------------------------------------------------------

    pub fn confirm_paused(&self) -> Result<(), Refusal> {
        self.check_acknowledgeable()
    }

    pub fn safety_reset(&self) -> Result<(), Refusal> {
        self.check_acknowledgeable()?;
        self.safety.clear_latch();
        Ok(())
    }

    fn check_acknowledgeable(&self) -> Result<(), Refusal> {
        if let Some(r) = self.fenced_refusal() {
            return Err(r);
        }
        self.safety.check_acknowledgeable().map_err(|reason| {
            Refusal::rejected(
                reason,
                match reason {
                    Reason::MJB_REASON_NOT_STOPPED => "the endpoint is not stopped",
                    _ => "native work is still in flight; the pause is not confirmed",
                },
            )
        })
    }
}

/// Frame slots and scratch data for a new pair, and its first frame (open, adopt).
fn first_frame(mj: &mut Mujoco, config: &Config) -> Result<frame::Writer, Refusal> {
    crate::host::install();
    frame::Writer::new(mj, &config.frame, 0, 0, 0, Cause::MJB_FRAME_OPEN)
        .map_err(|e| engine_refusal(&e, "preparing frames"))
}

/// Inputs checked against `shape` are refused when the model was replaced since.
fn replaced_refusal(n: &Native, shape: Option<&Arc<Shape>>) -> Option<Refusal> {
    let shape = shape?;
    (!Arc::ptr_eq(&n.shape, shape)).then(|| {
        Refusal::rejected(
            Reason::MJB_REASON_CONFIGURATION,
            format!(
                "the model was replaced (configuration {} -> {}) while the inputs waited; nothing was written",
                shape.configuration, n.shape.configuration
            ),
        )
    })
}

fn stop_refusal() -> Refusal {
    Refusal::rejected(
        Reason::MJB_REASON_STOP_LATCHED,
        "a stop is latched; no step was taken (mjb_safety_reset clears it)",
    )
}
