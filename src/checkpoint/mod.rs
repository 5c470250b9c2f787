//! Checkpoint documents: what they hold, how they are printed, and the strict validation that
//! runs in pure Rust, before any lock or native call, against the facts the endpoint keeps
//! (engine, dimensions, layout, configuration, seed).
//!
//! Both profiles share one skeleton: parse → profile → fields and types → engine and
//! descriptor → values → public fields → seed. Each step refuses with its own reason and the
//! JSON pointer of the first offending element.

pub mod json;

use crate::native::{Dims, EngineInfo, Layout, Public};
use crate::outcome::{Reason, Refusal};
use json::{obj, pointer_index, Fields, Value};

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
}

/// What a checkpoint is validated against: everything the endpoint knows without the lock.
pub struct Facts<'a> {
    pub profile: Profile,
    pub engine: &'a EngineInfo,
    pub dims: Dims,
    pub configuration: u64,
    /// The integration layout (present for the integration profile).
    pub layout: Option<&'a Layout>,
    pub seed: u64,
}

/// A checkpoint that passed validation, ready for the native phase.
#[derive(Clone, Debug, PartialEq)]
pub enum Checkpoint {
    Integration { values: Vec<f64>, tick: u64 },
    Basic { public: Public, tick: u64 },
}

impl Checkpoint {
    pub fn tick(&self) -> u64 {
        match self {
            Checkpoint::Integration { tick, .. } | Checkpoint::Basic { tick, .. } => *tick,
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
const DESCRIPTOR_FIELDS: &[&str] = &[
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

fn descriptor(f: &Facts) -> Value {
    let mut fields: Vec<(String, Value)> = f
        .dims
        .named()
        .into_iter()
        .map(|(k, v)| (k.to_owned(), Value::from(v)))
        .collect();
    fields.push(("timestep".into(), f.dims.timestep.into()));
    fields.push(("configuration".into(), f.configuration.into()));
    Value::Obj(fields)
}

/// The integration checkpoint document for a state vector read under the native lock.
pub fn integration_document(f: &Facts, values: &[f64], tick: u64) -> Result<Value, Refusal> {
    let layout = f.layout.expect("integration profile has a layout");
    if values.len() > MAX_VALUES {
        return Err(Refusal::rejected(
            Reason::MJB_REASON_TOO_MANY_VALUES,
            format!(
                "this model's integration state has {} values; a checkpoint holds at most {MAX_VALUES}",
                values.len()
            ),
        ));
    }
    let seg = |name: &str| Value::from(&values[layout.range(name)]);
    Ok(obj([
        ("profile", Profile::Integration.name().into()),
        ("engine", f.engine.version_string.as_str().into()),
        ("engine_version", i64::from(f.engine.runtime_version).into()),
        ("descriptor", descriptor(f)),
        ("signature", u64::from(layout.sig).into()),
        ("size", (layout.size as u64).into()),
        ("values", Value::from(values)),
        ("tick", tick.into()),
        ("seed", f.seed.into()),
        ("time", values[layout.range("time")][0].into()),
        ("qpos", seg("qpos")),
        ("qvel", seg("qvel")),
        ("ctrl", seg("ctrl")),
    ]))
}

/// The basic checkpoint document for public fields read under the native lock.
pub fn basic_document(f: &Facts, p: &Public, tick: u64) -> Value {
    obj([
        ("profile", Profile::Basic.name().into()),
        ("engine", f.engine.version_string.as_str().into()),
        ("engine_version", i64::from(f.engine.runtime_version).into()),
        ("descriptor", descriptor(f)),
        ("tick", tick.into()),
        ("seed", f.seed.into()),
        ("time", p.time.into()),
        ("qpos", Value::from(&p.qpos[..])),
        ("qvel", Value::from(&p.qvel[..])),
        ("ctrl", Value::from(&p.ctrl[..])),
        ("act", Value::from(&p.act[..])),
    ])
}

fn refuse(reason: Reason, ptr: &str, msg: impl Into<String>) -> Refusal {
    Refusal::rejected(reason, msg).at(ptr)
}

/// Validate a checkpoint document completely, without the lock and without a native call.
pub fn validate(bytes: &[u8], f: &Facts) -> Result<Checkpoint, Refusal> {
    // 1. size, strict parse, profile, fields and their types.
    let doc = json::parse_document(bytes)?;
    let top = doc.as_obj("")?;
    match top.iter().find(|(k, _)| k == "profile") {
        None => {
            return Err(refuse(
                Reason::MJB_REASON_MISSING_FIELD,
                "/profile",
                "missing field \"profile\"",
            ))
        }
        Some((_, v)) => {
            let p = v.as_str("/profile")?;
            if p != f.profile.name() {
                return Err(refuse(
                    Reason::MJB_REASON_PROFILE,
                    "/profile",
                    format!(
                        "profile {p:?} is not this endpoint's {:?}",
                        f.profile.name()
                    ),
                ));
            }
        }
    }
    let names = match f.profile {
        Profile::Integration => INTEGRATION_FIELDS,
        Profile::Basic => BASIC_FIELDS,
    };
    let fields = Fields::new(&doc, "", names, names)?;
    let (v, p) = fields.req("engine");
    let engine = v.as_str(&p)?;
    let (v, p) = fields.req("engine_version");
    let engine_version = v.as_int(&p, i32::MIN.into(), i32::MAX.into())?;
    let (dv, dp) = fields.req("descriptor");
    let desc = Fields::new(dv, &dp, DESCRIPTOR_FIELDS, DESCRIPTOR_FIELDS)?;
    let mut dims = Vec::new();
    for (name, _) in f.dims.named() {
        let (v, p) = desc.req(name);
        dims.push((name, v.as_int(&p, 0, i64::MAX.into())?, p));
    }
    let (v, timestep_ptr) = desc.req("timestep");
    let timestep = v.as_f64(&timestep_ptr)?;
    let (v, config_ptr) = desc.req("configuration");
    let configuration = v.as_u64(&config_ptr)?;
    let (v, p) = fields.req("tick");
    let tick = v.as_u64(&p)?;
    let (v, seed_ptr) = fields.req("seed");
    let seed = v.as_u64(&seed_ptr)?;
    let (v, time_ptr) = fields.req("time");
    let time = v.as_f64(&time_ptr)?;
    let public_arrays = |name: &str| -> Result<(Vec<f64>, String), Refusal> {
        let (v, p) = fields.req(name);
        Ok((v.as_f64_vec(&p)?, p))
    };
    let qpos = public_arrays("qpos")?;
    let qvel = public_arrays("qvel")?;
    let ctrl = public_arrays("ctrl")?;
    let integration = match f.profile {
        Profile::Integration => {
            let (v, p) = fields.req("signature");
            let signature = v.as_int(&p, 0, u32::MAX.into())?;
            let (v, p) = fields.req("size");
            let size = v.as_int(&p, 0, i64::MAX.into())?;
            let (v, values_ptr) = fields.req("values");
            let values = v.as_arr(&values_ptr)?;
            if values.len() > MAX_VALUES {
                return Err(refuse(
                    Reason::MJB_REASON_TOO_MANY_VALUES,
                    &values_ptr,
                    format!("{} values; at most {MAX_VALUES}", values.len()),
                ));
            }
            Some((signature, size, values, values_ptr))
        }
        Profile::Basic => None,
    };

    // 2. engine, descriptor, signature, size.
    if engine != f.engine.version_string {
        return Err(refuse(
            Reason::MJB_REASON_ENGINE,
            "/engine",
            format!(
                "taken under engine {engine:?}; this is {:?}",
                f.engine.version_string
            ),
        ));
    }
    if engine_version != i128::from(f.engine.runtime_version) {
        return Err(refuse(
            Reason::MJB_REASON_ENGINE,
            "/engine_version",
            format!(
                "taken under engine_version {engine_version}; this is {}",
                f.engine.runtime_version
            ),
        ));
    }
    for ((name, want), (_, got, p)) in f.dims.named().into_iter().zip(&dims) {
        if *got != i128::from(want) {
            return Err(refuse(
                Reason::MJB_REASON_DESCRIPTOR,
                p,
                format!("descriptor {name} is {got}; the live model has {want}"),
            ));
        }
    }
    if timestep.to_bits() != f.dims.timestep.to_bits() {
        return Err(refuse(
            Reason::MJB_REASON_DESCRIPTOR,
            &timestep_ptr,
            format!(
                "descriptor timestep is {timestep:e}; the live model has {:e}",
                f.dims.timestep
            ),
        ));
    }
    if configuration != f.configuration {
        return Err(refuse(
            Reason::MJB_REASON_CONFIGURATION,
            &config_ptr,
            format!(
                "taken under model configuration {configuration}; the endpoint is at {} (the model was replaced)",
                f.configuration
            ),
        ));
    }

    let checkpoint = match integration {
        Some((signature, size, values, values_ptr)) => {
            let layout = f.layout.expect("integration profile has a layout");
            if signature != i128::from(layout.sig) {
                return Err(refuse(
                    Reason::MJB_REASON_SIGNATURE,
                    "/signature",
                    format!(
                        "signature {signature} is not this engine's mjSTATE_INTEGRATION {}",
                        layout.sig
                    ),
                ));
            }
            if size != layout.size as i128 {
                return Err(refuse(
                    Reason::MJB_REASON_SIZE,
                    "/size",
                    format!("size {size} is not the native state size {}", layout.size),
                ));
            }
            if values.len() != layout.size {
                return Err(refuse(
                    Reason::MJB_REASON_SIZE,
                    &values_ptr,
                    format!(
                        "values holds {} numbers; size is {}",
                        values.len(),
                        layout.size
                    ),
                ));
            }
            // 3. every value a finite number; every integer-coded value in its native domain:
            // equality activations exactly 0 or 1, history cursors integers in 0..nsample.
            let eq = layout.range("eq_active");
            let mut cursors = layout.cursors.iter().peekable();
            let mut out = Vec::with_capacity(values.len());
            for (i, v) in values.iter().enumerate() {
                let x = v.number();
                // Exactly +0 or 1: not -0, not a boolean, nothing a byte conversion would bend.
                let in_domain = x.is_some_and(|x| x.to_bits() == 0f64.to_bits() || x == 1.0);
                if eq.contains(&i) && !in_domain {
                    return Err(refuse(
                        Reason::MJB_REASON_EQ_ACTIVE_DOMAIN,
                        &pointer_index(&values_ptr, i),
                        format!("equality activation {} must be exactly 0 or 1", v.to_json()),
                    ));
                }
                if let Some(c) = cursors.next_if(|c| c.index == i) {
                    if !x.is_some_and(|x| c.admits(x)) {
                        return Err(refuse(
                            Reason::MJB_REASON_STATE_DOMAIN,
                            &pointer_index(&values_ptr, i),
                            format!(
                                "history cursor of {} is {}; it must be an integer in 0..={} (the engine indexes its ring buffer with it)",
                                c.owner,
                                v.to_json(),
                                c.nsample - 1
                            ),
                        ));
                    }
                }
                match x {
                    Some(x) => out.push(x),
                    None => return Err(v.as_f64(&pointer_index(&values_ptr, i)).unwrap_err()),
                }
            }
            // 4. the public fields are their segments of values, bit for bit.
            let segment_matches = |name: &str, got: &[f64], ptr: &str| -> Result<(), Refusal> {
                let want = &out[layout.range(name)];
                if got.len() != want.len() {
                    return Err(refuse(
                        Reason::MJB_REASON_PUBLIC_FIELD_MISMATCH,
                        ptr,
                        format!(
                            "{name} has {} numbers; its segment of values has {}",
                            got.len(),
                            want.len()
                        ),
                    ));
                }
                if let Some(i) = (0..got.len()).find(|&i| got[i].to_bits() != want[i].to_bits()) {
                    // `time` is a number, the others arrays.
                    let at = if name == "time" {
                        ptr.to_owned()
                    } else {
                        pointer_index(ptr, i)
                    };
                    return Err(refuse(
                        Reason::MJB_REASON_PUBLIC_FIELD_MISMATCH,
                        &at,
                        format!("{name}[{i}] is not bit-identical to its segment of values"),
                    ));
                }
                Ok(())
            };
            segment_matches("time", &[time], &time_ptr)?;
            segment_matches("qpos", &qpos.0, &qpos.1)?;
            segment_matches("qvel", &qvel.0, &qvel.1)?;
            segment_matches("ctrl", &ctrl.0, &ctrl.1)?;
            Checkpoint::Integration { values: out, tick }
        }
        None => {
            let act = public_arrays("act")?;
            // 3./4. lengths against the live dimensions (finiteness was checked at parse).
            for (name, (vals, p), want) in [
                ("qpos", &qpos, f.dims.nq),
                ("qvel", &qvel, f.dims.nv),
                ("ctrl", &ctrl, f.dims.nu),
                ("act", &act, f.dims.na),
            ] {
                if vals.len() as i64 != want {
                    return Err(refuse(
                        Reason::MJB_REASON_DIMENSION,
                        p,
                        format!("{name} has {} numbers; the model has {want}", vals.len()),
                    ));
                }
            }
            Checkpoint::Basic {
                public: Public {
                    time,
                    qpos: qpos.0,
                    qvel: qvel.0,
                    act: act.0,
                    ctrl: ctrl.0,
                },
                tick,
            }
        }
    };

    // 5. seed metadata.
    if seed != f.seed {
        return Err(refuse(
            Reason::MJB_REASON_SEED,
            &seed_ptr,
            format!("seed {seed} is not the configured seed {}", f.seed),
        ));
    }
    Ok(checkpoint)
}
