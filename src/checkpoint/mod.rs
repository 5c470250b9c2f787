//! Checkpoint documents: what they hold, how they are printed, and the strict validation that
//! runs in pure Rust, before any lock or native call, against the facts the endpoint keeps
//! (engine, dimensions, layout, configuration, seed).
//!
//! Both profiles share one skeleton: parse → profile → fields and types → engine and
//! descriptor → values → public fields → seed. Each step refuses with its own reason and the
//! JSON pointer of the first offending element.
//!
//! Reading is one streaming pass ([`crate::doc::Reader`]): numbers go straight into the caller's
//! reusable buffers (`Buffers`), nothing else of the document is kept, and a field-level
//! problem is only recorded during the pass, then reported in the order of the steps above
//! (a syntax error anywhere still wins, as it must: the document is not JSON).

mod read;
mod write;

pub(crate) use read::{validate_document, Embedded};
pub(crate) use write::{
    estimated_bytes, write_basic, write_descriptor, write_integration, write_values, Printed,
    COPIED,
};

use crate::native::{Dims, EngineInfo, Layout, Public};

/// At most this many native values in a checkpoint.
pub const MAX_VALUES: usize = 32_768;

/// The checkpoint format an endpoint serves, and its promise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// The complete `mjSTATE_INTEGRATION` vector: exact continuation on the same engine build.
    Integration,
    /// time/qpos/qvel/ctrl/act only: no claim of complete state or exact continuation.
    Basic,
}

impl Profile {
    pub fn name(self) -> &'static str {
        match self {
            Profile::Integration => "mujoco_integration_v1",
            Profile::Basic => "mujoco_basic_v1",
        }
    }

    pub fn from_name(s: &str) -> Option<Profile> {
        [Profile::Integration, Profile::Basic]
            .into_iter()
            .find(|p| p.name() == s)
    }

    /// The checkpoint's fields, in the order they are served.
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            Profile::Integration => INTEGRATION_FIELDS,
            Profile::Basic => BASIC_FIELDS,
        }
    }
}

/// What a checkpoint is validated against: everything the endpoint knows without the lock.
pub(crate) struct Facts<'a> {
    pub profile: Profile,
    pub engine: &'a EngineInfo,
    pub dims: Dims,
    pub configuration: u64,
    /// The integration layout (present for the integration profile).
    pub layout: Option<&'a Layout>,
    pub seed: u64,
    /// The model's fingerprint (a world document names it; a checkpoint cannot).
    pub fingerprint: &'a str,
}

/// Reusable number buffers for reading a checkpoint: after the first restore on an endpoint,
/// reading allocates nothing for numbers.
#[derive(Default, Debug)]
pub(crate) struct Buffers {
    pub values: Vec<f64>,
    pub qpos: Vec<f64>,
    pub qvel: Vec<f64>,
    pub ctrl: Vec<f64>,
    pub act: Vec<f64>,
}

impl Buffers {
    /// Buffers already large enough for the checkpoints of a model of these dimensions and
    /// state layout.
    pub(crate) fn sized(d: &Dims, layout: Option<&Layout>) -> Buffers {
        let n = |x: i64| Vec::with_capacity(x.max(0) as usize);
        Buffers {
            values: Vec::with_capacity(layout.map_or(0, |l| l.size)),
            qpos: n(d.nq),
            qvel: n(d.nv),
            ctrl: n(d.nu),
            act: n(d.na),
        }
    }
}

/// A checkpoint that passed validation, ready for the native phase. It owns the buffers it
/// was read into; `Checkpoint::into_buffers` gives them back for reuse.
#[derive(Debug)]
pub struct Checkpoint {
    pub(crate) profile: Profile,
    pub(crate) tick: u64,
    /// Integration: the state vector in `values`. Basic: the public fields in `qpos`, `qvel`,
    /// `ctrl`, `act` (and `time`).
    pub(crate) time: f64,
    pub(crate) buffers: Buffers,
    /// Read from a world document whose `model_fingerprint` was checked against the model.
    pub(crate) model_checked: bool,
}

impl Checkpoint {
    pub fn tick(&self) -> u64 {
        self.tick
    }

    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// Whether the document named its model (a world document's `model_fingerprint`, checked
    /// against the endpoint's). A bare checkpoint cannot: its fields are the contract's.
    pub fn model_checked(&self) -> bool {
        self.model_checked
    }

    pub(crate) fn into_buffers(self) -> Buffers {
        self.buffers
    }

    /// The basic profile's public fields (copies).
    pub(crate) fn public(&self) -> Public {
        Public {
            time: self.time,
            qpos: self.buffers.qpos.clone(),
            qvel: self.buffers.qvel.clone(),
            act: self.buffers.act.clone(),
            ctrl: self.buffers.ctrl.clone(),
        }
    }
}

const INTEGRATION_FIELDS: &[&str] = &[
    "profile",
    "engine",
    "engine_version",
    "descriptor",
    "signature",
    "size",
    "values",
    "tick",
    "seed",
    "time",
    "qpos",
    "qvel",
    "ctrl",
];
const BASIC_FIELDS: &[&str] = &[
    "profile",
    "engine",
    "engine_version",
    "descriptor",
    "tick",
    "seed",
    "time",
    "qpos",
    "qvel",
    "ctrl",
    "act",
];
pub(crate) const DESCRIPTOR_FIELDS: &[&str] = &[
    "nq",
    "nv",
    "na",
    "nu",
    "nbody",
    "neq",
    "nmocap",
    "nuserdata",
    "npluginstate",
    "timestep",
    "configuration",
];
