//! An endpoint owns one MuJoCo model/data pair, its tick, its native lock and its safety
//! state. Every native read or write happens under the lock, after admission with a deadline;
//! the facts a document is validated against (engine, dimensions, layout, configuration, seed)
//! are kept beside the lock, so validation never waits for it.
//!
//! A mutation flows one way, and each step has its room:
//! bytes → strict document ([`crate::doc`], [`crate::checkpoint`], [`crate::world`]; no lock)
//! → admission (`admission`: fence, deadline, sequence, work in flight)
//! → native phase (`step`, `restore`; the pre-image first, `image`)
//! → verification (bitwise readback, rollback proven or fence, `image`)
//! → outcome (`answer`). Reads are in `read`; this file holds the pair's lifecycle
//! (open, adopt, model replacement).

mod admission;
mod answer;
mod history;
mod image;
mod lock;
mod read;
mod restore;
mod restore_point;
mod step;

pub use crate::safety::SafetyView;
pub use admission::{Call, Expect};
pub use answer::{Answer, Report};
pub use history::{state_hash, HistoryInfo, Record};
pub use read::Seen;
pub(crate) use restore_point::recycle as recycle_restore_point;
pub use restore_point::RestorePoint;
pub use step::{HostInput, MAX_INPUTS};

use crate::checkpoint::{Buffers, Facts, Profile};
use crate::config::{parse_config, Config};
use crate::doc::{Source, Value};
use crate::frame::{self, Cause};
use crate::native::{self, Dims, Layout, Mujoco, NativeError, Public};
use crate::outcome::{Reason, Refusal};
use crate::safety::Safety;
use lock::NativeLock;
use parking_lot::{Mutex, RwLock};
use std::sync::Arc;

/// `timeout_ms` value that waits for the native lock without a deadline.
pub const WAIT_FOREVER: u32 = u32::MAX;

#[derive(Debug)]
pub struct Shape {
    pub dims: Dims,
    pub configuration: u64,
    /// The integration state layout, wherever the engine has the state API (whatever the
    /// profile): it is the checkpoint format of `mujoco_integration_v1` and, for both
    /// profiles, the image a failed native call is rolled back to.
    pub layout: Option<Layout>,
    /// `sha256:<hex>` of the compiled model as MuJoCo serializes it (`mj_saveModel`): what
    /// tells two models with the same dimensions apart.
    pub fingerprint: String,
}

impl Shape {
    /// What a document of this model configuration is judged against, or printed with.
    pub(super) fn facts(&self, profile: Profile, seed: u64) -> Facts<'_> {
        Facts {
            profile,
            engine: native::engine(),
            dims: self.dims,
            configuration: self.configuration,
            layout: self.layout.as_ref(),
            seed,
            fingerprint: &self.fingerprint,
        }
    }
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
    /// The world document's static text for this model configuration (`world::WorldPlan`).
    world_plan: Option<crate::world::WorldPlan>,
    /// Publishes frames of this pair (see [`frame`]).
    writer: frame::Writer,
    /// The flight recorder (config `"history"`), for this model configuration.
    history: Option<history::History>,
}

pub struct Endpoint {
    pub(crate) safety: Safety,
    /// This endpoint among all of the process's (restore points name it).
    serial: u64,
    /// State buffers of freed restore points, for the next captures.
    pool: Arc<restore_point::Pool>,
    native: NativeLock<Native>,
    /// Number buffers of earlier restores, reused by the next ones (validation runs before
    /// the lock, so concurrent restores each take their own).
    spare: Mutex<Vec<Buffers>>,
    shape: RwLock<Arc<Shape>>,
    name: String,
    seed: u64,
    profile: Profile,
    /// The fidelity declaration as the world document serves it: served and canonical text,
    /// made once.
    declared: (String, String),
    /// The readers' end of the frames: no lock.
    frames: frame::Frames,
    selection: frame::Selection,
    /// The config's `"history"` (a model replacement starts a new recorder with it).
    history: Option<crate::config::HistoryConfig>,
    /// The recorder's window, keyframes and bytes, read without the lock.
    history_summary: history::Summary,
}

pub(super) fn engine_refusal(e: &NativeError, what: &str) -> Refusal {
    Refusal::rejected(Reason::EngineError, format!("{what}: {}", e.message()))
}

/// Refuse unless the loaded MuJoCo is the release the shim was compiled against.
pub(crate) fn check_engine() -> Result<(), Refusal> {
    let e = native::engine();
    if e.library_matches_headers() {
        Ok(())
    } else {
        Err(Refusal::rejected(
            Reason::Engine,
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
            Reason::Profile,
            format!(
                "mujoco_integration_v1 needs mj_stateSize/mj_getState/mj_setState (MuJoCo >= 2.3.6) with equality activation in the state (mjSTATE_EQ_ACTIVE) or in the model; this engine is {}",
                e.version_string
            ),
        )
        .at("/profile")),
        Some(p) => Ok(p),
    }
}

/// A history needs the complete state: refused on the basic profile (nothing to replay from).
fn check_history(config: &Config, profile: Profile) -> Result<(), Refusal> {
    if config.history.is_some() && profile == Profile::Basic {
        return Err(Refusal::rejected(
            Reason::Profile,
            "\"history\" needs the complete integration state (profile mujoco_integration_v1); the basic profile cannot replay exactly",
        )
        .at("/history"));
    }
    Ok(())
}

/// A new recorder for a model configuration (open, adopt, replacement).
fn recorder(
    config: Option<crate::config::HistoryConfig>,
    shape: &Shape,
) -> Option<history::History> {
    let l = shape.layout.as_ref()?;
    config.map(|c| history::History::new(c, l.sig, l.size))
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
    let fingerprint = mj
        .fingerprint()
        .map_err(|e| engine_refusal(&e, "serializing the model for its fingerprint"))?;
    Ok(Shape {
        dims: mj.dims(),
        configuration,
        layout,
        fingerprint,
    })
}

/// Compile a model (open, replacement); MuJoCo's message on refusal.
fn load_model(source: &native::ModelSource) -> Result<Mujoco, Refusal> {
    Mujoco::load(source).map_err(|e| {
        Refusal::rejected(
            Reason::ModelLoad,
            format!("MuJoCo could not load the model: {}", e.message()),
        )
        .at("/model")
    })
}

impl Endpoint {
    /// Load a model per `config` and own it.
    pub fn open<'a>(config: impl Source<'a>) -> Result<Endpoint, Refusal> {
        Self::open_at_configuration(config, 0)
    }

    /// [`open`](Self::open), with the model configuration counter starting at `configuration`
    /// instead of 0: the endpoint `mjbridge replay` re-executes a recording on, when the
    /// recording was taken after model replacements (its checkpoints name the configuration
    /// they were made at, and a restore refuses another). Not in the C ABI.
    pub fn open_at_configuration<'a>(
        config: impl Source<'a>,
        configuration: u64,
    ) -> Result<Endpoint, Refusal> {
        let mut config = parse_config(config.text()?, true)?;
        check_engine()?;
        let profile = resolve_profile(config.profile)?;
        check_history(&config, profile)?;
        let source = config.model.take().expect("open requires model");
        let mut mj = load_model(&source)?;
        let shape = shape_of(&mj, configuration)?;
        let writer = first_frame(&mut mj, &config, configuration)?;
        Ok(Self::with_shape(mj, config, profile, shape, writer))
    }

    /// Own a host's pair. On refusal nothing was taken: the host still owns `m` and `d`.
    ///
    /// # Safety
    /// As for [`Mujoco::adopt`].
    pub unsafe fn adopt<'a>(
        m: std::ptr::NonNull<native::MjModel>,
        d: std::ptr::NonNull<native::MjData>,
        config: impl Source<'a>,
    ) -> Result<Endpoint, Refusal> {
        let config = parse_config(config.text()?, false)?;
        check_engine()?;
        let profile = resolve_profile(config.profile)?;
        check_history(&config, profile)?;
        let mut mj = Mujoco::adopt(m, d);
        let ready = shape_of(&mj, 0).and_then(|s| Ok((s, first_frame(&mut mj, &config, 0)?)));
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
        let history = recorder(config.history, &shape);
        let history_summary = history::Summary::default();
        if let Some(h) = &history {
            history_summary.publish(h.info(0));
        }
        Endpoint {
            safety: Safety::new(0),
            pool: Default::default(),
            serial: {
                static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
                NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            },
            frames: writer.frames(),
            native: NativeLock::new(Native {
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
                world_plan: None,
                writer,
                history,
            }),
            spare: Mutex::new(vec![Buffers::sized(&shape.dims, shape.layout.as_ref())]),
            shape: RwLock::new(shape),
            name: config.name,
            seed: config.seed,
            profile,
            declared: {
                let v = config.fidelity.unwrap_or(Value::Null);
                (v.to_json(), crate::doc::jcs::of_value(&v))
            },
            selection: config.frame,
            history: config.history,
            history_summary,
        }
    }

    /// The readers' end of the frames and model facts (no lock).
    #[doc(hidden)]
    pub fn frames(&self) -> &frame::Frames {
        &self.frames
    }

    pub fn profile(&self) -> Profile {
        self.profile
    }

    pub fn shape(&self) -> Arc<Shape> {
        self.shape.read().clone()
    }

    pub(super) fn facts<'a>(&self, shape: &'a Shape) -> Facts<'a> {
        shape.facts(self.profile, self.seed)
    }

    /// Replace the owned model/data; bumps the configuration counter, keeps tick and safety.
    pub fn replace_model<'a>(&self, config: impl Source<'a>, call: impl Into<Call>) -> Answer {
        let t = self.safety.view_tick();
        // Loading touches no endpoint state: do it before taking the lock.
        // So is its shape (the layout, the fingerprint: a copy of the model serialized and
        // hashed); only the configuration counter is the endpoint's.
        let loaded = config
            .text()
            .and_then(crate::config::parse_replacement)
            .and_then(|source| load_model(&source))
            .and_then(|mj| shape_of(&mj, 0).map(|shape| (mj, shape)));
        let (mj, shape) = match loaded {
            Ok(l) => l,
            Err(r) => return Answer::refused(r, t, t),
        };
        self.mutate(call.into(), move |n, _| {
            let (mut mj, mut shape) = (mj, shape);
            let configuration = n.shape.configuration + 1;
            shape.configuration = configuration;
            let shape = Arc::new(shape);
            let writer = match frame::Writer::new(
                &mut mj,
                &self.selection,
                (configuration, n.writer.published(), n.tick),
                Cause::Replace,
                Some(&n.writer),
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
            *self.spare.lock() = vec![Buffers::sized(&shape.dims, shape.layout.as_ref())];
            n.history = recorder(self.history, &shape);
            n.shape = shape.clone();
            *self.shape.write() = shape;
            drop(old);
            Answer::ok(n.tick, n.tick)
        })
    }
}

/// Frame slots and scratch data for a new pair, and its first frame (open, adopt).
fn first_frame(
    mj: &mut Mujoco,
    config: &Config,
    configuration: u64,
) -> Result<frame::Writer, Refusal> {
    frame::Writer::new(mj, &config.frame, (configuration, 0, 0), Cause::Open, None)
        .map_err(|e| engine_refusal(&e, "preparing frames"))
}
