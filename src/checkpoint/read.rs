//! Validating a checkpoint document: one streaming pass that reads every member into the
//! caller's reusable buffers and records each member's problem, then the judgement, step by
//! step (SPEC §3): profile, members and their types → engine, descriptor, signature, size →
//! values (finite, integer-coded values in their native domains) → public fields bit for bit
//! against their segments → seed. Pure Rust: no lock, no native call.
//!
//! A field-level problem is only recorded during the pass, then reported in step order, so a
//! syntax error anywhere still wins (the document is not JSON).

use super::{Buffers, Checkpoint, Facts, Profile, DESCRIPTOR_FIELDS, MAX_VALUES};
use crate::doc::print::write_f64;
use crate::doc::schema::{self, missing, read_f64, read_int, read_numbers, read_string, read_u64};
use crate::doc::schema::{Members, Numbers, Slot};
use crate::doc::{pointer_index, Kind, Reader};
use crate::native::Layout;
use crate::outcome::{Reason, Refusal};

struct Descriptor {
    members: Members,
    dims: [Slot<i128>; 9],
    timestep: Slot<f64>,
    configuration: Slot<u64>,
}

fn read_descriptor(r: &mut Reader) -> Result<Slot<Descriptor>, Refusal> {
    if let Some(bad) = schema::expect(r, Kind::Object, "an object")? {
        return Ok(Slot::Bad(bad));
    }
    let mut dims: [Slot<i128>; 9] = std::array::from_fn(|_| Slot::Absent);
    let (mut timestep, mut configuration) = (Slot::Absent, Slot::Absent);
    let members = schema::object(r, DESCRIPTOR_FIELDS, |r, i| {
        match i {
            0..=8 => dims[i] = read_int(r, 0, i64::MAX.into())?,
            9 => timestep = read_f64(r)?,
            _ => configuration = read_u64(r)?,
        }
        Ok(())
    })?;
    Ok(Slot::Got(Descriptor {
        members,
        dims,
        timestep,
        configuration,
    }))
}

/// Everything the pass recorded, before any step is judged.
struct Raw {
    members: Members,
    profile: Slot<String>,
    engine: Slot<String>,
    engine_version: Slot<i128>,
    descriptor: Slot<Descriptor>,
    signature: Slot<i128>,
    size: Slot<i128>,
    values: Slot<Numbers>,
    tick: Slot<u64>,
    seed: Slot<u64>,
    time: Slot<f64>,
    qpos: Slot<Numbers>,
    qvel: Slot<Numbers>,
    ctrl: Slot<Numbers>,
    act: Slot<Numbers>,
}

fn refuse(reason: Reason, ptr: &str, msg: impl Into<String>) -> Refusal {
    Refusal::rejected(reason, msg).at(ptr)
}

/// Read one checkpoint object (at the reader's position) into `bufs`, recording every
/// member's problem.
fn read_raw(
    r: &mut Reader,
    f: &Facts,
    bufs: &mut Buffers,
    unknown: impl FnMut(&str),
) -> Result<Raw, Refusal> {
    let (cap_values, cap_qpos, cap_qvel, cap_ctrl) = match f.layout {
        Some(l) if f.profile == Profile::Integration => (
            l.size,
            l.range("qpos").len(),
            l.range("qvel").len(),
            l.range("ctrl").len(),
        ),
        _ => (
            0,
            f.dims.nq.max(0) as usize,
            f.dims.nv.max(0) as usize,
            f.dims.nu.max(0) as usize,
        ),
    };
    let cap_act = f.dims.na.max(0) as usize;
    let mut profile = Slot::Absent;
    let mut engine = Slot::Absent;
    let mut engine_version = Slot::Absent;
    let mut descriptor = Slot::Absent;
    let mut signature = Slot::Absent;
    let mut size = Slot::Absent;
    let mut values = Slot::Absent;
    let mut tick = Slot::Absent;
    let mut seed = Slot::Absent;
    let mut time = Slot::Absent;
    let (mut qpos, mut qvel, mut ctrl, mut act) =
        (Slot::Absent, Slot::Absent, Slot::Absent, Slot::Absent);
    let names = f.profile.fields();
    let member = |r: &mut Reader, i: usize| {
        match names[i] {
            "profile" => profile = read_string(r)?,
            "engine" => engine = read_string(r)?,
            "engine_version" => engine_version = read_int(r, i32::MIN.into(), i32::MAX.into())?,
            "descriptor" => descriptor = read_descriptor(r)?,
            "signature" => signature = read_int(r, 0, u32::MAX.into())?,
            "size" => size = read_int(r, 0, i64::MAX.into())?,
            "values" => values = read_numbers(r, &mut bufs.values, cap_values)?,
            "tick" => tick = read_u64(r)?,
            "seed" => seed = read_u64(r)?,
            "time" => time = read_f64(r)?,
            "qpos" => qpos = read_numbers(r, &mut bufs.qpos, cap_qpos)?,
            "qvel" => qvel = read_numbers(r, &mut bufs.qvel, cap_qvel)?,
            "ctrl" => ctrl = read_numbers(r, &mut bufs.ctrl, cap_ctrl)?,
            _ => act = read_numbers(r, &mut bufs.act, cap_act)?,
        }
        Ok(())
    };
    let members = schema::object_seeing(r, names, member, unknown)?;
    Ok(Raw {
        members,
        profile,
        engine,
        engine_version,
        descriptor,
        signature,
        size,
        values,
        tick,
        seed,
        time,
        qpos,
        qvel,
        ctrl,
        act,
    })
}

/// Validate a whole document as a checkpoint, without the lock and without a native call, in
/// one pass of the reader `r` (positioned at the top-level object). Numbers are read into
/// `bufs` (reused: pass the buffers of an earlier checkpoint); on refusal they are returned
/// through `bufs` as well.
///
/// `unknown` sees each top-level key the profile does not have (a restore looks there for a
/// world document's members). The outer error is a parse error (the document is not JSON),
/// which no reading of the document as something else could get past; the inner result is
/// the judgement.
pub(crate) fn validate_document(
    mut r: Reader,
    f: &Facts,
    bufs: &mut Buffers,
    unknown: impl FnMut(&str),
) -> Result<Result<Checkpoint, Refusal>, Refusal> {
    let raw = read_raw(&mut r, f, bufs, unknown)?;
    r.finish()?;
    Ok(judge(raw, f, bufs, ""))
}

/// A checkpoint embedded in another document (a world document's `native_checkpoint`), read
/// at the reader's position during that document's pass; judged later, by [`Embedded::judge`],
/// when the enclosing document's own checks passed. Pointers are below the reader's path.
pub(crate) struct Embedded {
    base: String,
    raw: Result<Raw, Refusal>,
}

impl Embedded {
    pub(crate) fn read(r: &mut Reader, f: &Facts, bufs: &mut Buffers) -> Result<Embedded, Refusal> {
        let base = r.pointer();
        let raw = match schema::expect(r, Kind::Object, "an object")? {
            Some(bad) => Err(bad),
            None => Ok(read_raw(r, f, bufs, |_| {})?),
        };
        Ok(Embedded { base, raw })
    }

    pub(crate) fn judge(self, f: &Facts, bufs: &mut Buffers) -> Result<Checkpoint, Refusal> {
        judge(self.raw?, f, bufs, &self.base)
    }
}

/// Judge what the pass recorded, step by step.
fn judge(raw: Raw, f: &Facts, bufs: &mut Buffers, base: &str) -> Result<Checkpoint, Refusal> {
    let at = |p: &str| format!("{base}{p}");
    let t = typed(raw, f, base)?;
    check_model(&t, f, &at)?;
    match &t.integration {
        Some(i) => check_integration(i, &t, f, bufs, &at)?,
        None => check_basic(t.act, (t.qpos_n, t.qvel_n, t.ctrl_n), f, &at)?,
    }
    // 5. seed metadata.
    if t.seed != f.seed {
        return Err(refuse(
            Reason::Seed,
            &at("/seed"),
            format!("seed {} is not the configured seed {}", t.seed, f.seed),
        ));
    }
    Ok(Checkpoint {
        profile: f.profile,
        tick: t.tick,
        time: t.time,
        buffers: std::mem::take(bufs),
        model_checked: false,
    })
}

/// What step 1 proved present and of its type (the basic profile's `act` is judged with the
/// other lengths, after the model's checks).
struct Typed {
    engine: String,
    engine_version: i128,
    dims: [i128; 9],
    timestep: f64,
    configuration: u64,
    tick: u64,
    seed: u64,
    time: f64,
    qpos_n: usize,
    qvel_n: usize,
    ctrl_n: usize,
    /// The integration profile's signature, size and values.
    integration: Option<(i128, i128, Numbers)>,
    act: Slot<Numbers>,
}

/// Step 1: the profile, the members and their types.
fn typed(mut raw: Raw, f: &Facts, base: &str) -> Result<Typed, Refusal> {
    let names = f.profile.fields();
    let first_missing = (0..names.len())
        .find(|&i| !raw.members.has(i))
        .map(|i| names[i]);
    let profile = match raw.profile {
        Slot::Absent => {
            return Err(refuse(
                Reason::MissingField,
                &format!("{base}/profile"),
                "missing field \"profile\"",
            ))
        }
        Slot::Bad(b) => return Err(b),
        Slot::Got(p) => p,
    };
    if profile != f.profile.name() {
        return Err(refuse(
            Reason::Profile,
            &format!("{base}/profile"),
            format!(
                "profile {profile:?} is not this endpoint's {:?}",
                f.profile.name()
            ),
        ));
    }
    raw.members.refuse_unknown()?;
    if let Some(k) = first_missing {
        return Err(missing(base, k));
    }
    let engine = raw.engine.get()?;
    let engine_version = raw.engine_version.get()?;
    let mut desc = raw.descriptor.get()?;
    desc.members.refuse_unknown()?;
    desc.members
        .require(&format!("{base}/descriptor"), DESCRIPTOR_FIELDS, |_| true)?;
    let mut dims = [0i128; 9];
    for (d, slot) in dims.iter_mut().zip(desc.dims) {
        *d = slot.get()?;
    }
    let timestep = desc.timestep.get()?;
    let configuration = desc.configuration.get()?;
    let tick = raw.tick.get()?;
    let seed = raw.seed.get()?;
    let time = raw.time.get()?;
    let qpos_n = raw.qpos.get()?.strict()?;
    let qvel_n = raw.qvel.get()?.strict()?;
    let ctrl_n = raw.ctrl.get()?.strict()?;
    let integration = match f.profile {
        Profile::Integration => {
            let signature = raw.signature.get()?;
            let size = raw.size.get()?;
            let values = raw.values.get()?;
            if values.count > MAX_VALUES {
                return Err(refuse(
                    Reason::TooManyValues,
                    &format!("{base}/values"),
                    format!("{} values; at most {MAX_VALUES}", values.count),
                ));
            }
            Some((signature, size, values))
        }
        Profile::Basic => None,
    };
    Ok(Typed {
        engine,
        engine_version,
        dims,
        timestep,
        configuration,
        tick,
        seed,
        time,
        qpos_n,
        qvel_n,
        ctrl_n,
        integration,
        act: raw.act,
    })
}

/// Step 2: the engine and the descriptor against the live model.
fn check_model(t: &Typed, f: &Facts, at: &dyn Fn(&str) -> String) -> Result<(), Refusal> {
    if t.engine != f.engine.version_string {
        return Err(refuse(
            Reason::Engine,
            &at("/engine"),
            format!(
                "taken under engine {:?}; this is {:?}",
                t.engine, f.engine.version_string
            ),
        ));
    }
    if t.engine_version != i128::from(f.engine.runtime_version) {
        return Err(refuse(
            Reason::Engine,
            &at("/engine_version"),
            format!(
                "taken under engine_version {}; this is {}",
                t.engine_version, f.engine.runtime_version
            ),
        ));
    }
    for ((name, want), got) in f.dims.named().into_iter().zip(&t.dims) {
        if *got != i128::from(want) {
            return Err(refuse(
                Reason::Descriptor,
                &at(&format!("/descriptor/{name}")),
                format!("descriptor {name} is {got}; the live model has {want}"),
            ));
        }
    }
    if t.timestep.to_bits() != f.dims.timestep.to_bits() {
        return Err(refuse(
            Reason::Descriptor,
            &at("/descriptor/timestep"),
            format!(
                "descriptor timestep is {:e}; the live model has {:e}",
                t.timestep, f.dims.timestep
            ),
        ));
    }
    if t.configuration != f.configuration {
        return Err(refuse(
            Reason::Configuration,
            &at("/descriptor/configuration"),
            format!(
                "taken under model configuration {}; the endpoint is at {} (the model was replaced)",
                t.configuration, f.configuration
            ),
        ));
    }
    Ok(())
}

/// The integration profile's steps 2–4: signature and size, then every value in its domain,
/// then the public fields bit for bit against their segments of `values`.
fn check_integration(
    (signature, size, values): &(i128, i128, Numbers),
    t: &Typed,
    f: &Facts,
    bufs: &Buffers,
    at: &dyn Fn(&str) -> String,
) -> Result<(), Refusal> {
    let layout = f.layout.expect("integration profile has a layout");
    if *signature != i128::from(layout.sig) {
        return Err(refuse(
            Reason::Signature,
            &at("/signature"),
            format!(
                "signature {signature} is not this engine's mjSTATE_INTEGRATION {}",
                layout.sig
            ),
        ));
    }
    if *size != layout.size as i128 {
        return Err(refuse(
            Reason::Size,
            &at("/size"),
            format!("size {size} is not the native state size {}", layout.size),
        ));
    }
    if values.count != layout.size {
        return Err(refuse(
            Reason::Size,
            &at("/values"),
            format!(
                "values holds {} numbers; size is {}",
                values.count, layout.size
            ),
        ));
    }
    // 3. every value a finite number; every integer-coded value in its native domain.
    let first_other = values
        .first_other
        .as_ref()
        .map(|o| (o.index, o.text.clone()));
    // Pointers are made only for a refusal (a restore that passes builds none).
    check_values(layout, &bufs.values, first_other, &|| at("/values"))?;
    // 4. the public fields are their segments of values, bit for bit.
    let segment = |name: &str, got: &[f64], count: usize| {
        segment_matches(layout, &bufs.values, name, got, count, &|| {
            at(&format!("/{name}"))
        })
    };
    segment("time", &[t.time], 1)?;
    segment("qpos", &bufs.qpos, t.qpos_n)?;
    segment("qvel", &bufs.qvel, t.qvel_n)?;
    segment("ctrl", &bufs.ctrl, t.ctrl_n)
}

/// Step 4: a public field (`got`, `count` numbers) is its segment of `values`, bit for bit.
fn segment_matches(
    layout: &Layout,
    values: &[f64],
    name: &str,
    got: &[f64],
    count: usize,
    ptr: &dyn Fn() -> String,
) -> Result<(), Refusal> {
    let want = &values[layout.range(name)];
    if count != want.len() {
        return Err(refuse(
            Reason::PublicFieldMismatch,
            &ptr(),
            format!(
                "{name} has {count} numbers; its segment of values has {}",
                want.len()
            ),
        ));
    }
    if let Some(i) = (0..count).find(|&i| got[i].to_bits() != want[i].to_bits()) {
        // `time` is a number, the others arrays.
        let p = if name == "time" {
            ptr()
        } else {
            pointer_index(&ptr(), i)
        };
        return Err(refuse(
            Reason::PublicFieldMismatch,
            &p,
            format!("{name}[{i}] is not bit-identical to its segment of values"),
        ));
    }
    Ok(())
}

/// The basic profile's steps 3–4: the arrays' lengths against the live dimensions (finiteness
/// was checked at parse).
fn check_basic(
    act: Slot<Numbers>,
    (qpos_n, qvel_n, ctrl_n): (usize, usize, usize),
    f: &Facts,
    at: &dyn Fn(&str) -> String,
) -> Result<(), Refusal> {
    let act_n = act.get()?.strict()?;
    for (name, n, want) in [
        ("qpos", qpos_n, f.dims.nq),
        ("qvel", qvel_n, f.dims.nv),
        ("ctrl", ctrl_n, f.dims.nu),
        ("act", act_n, f.dims.na),
    ] {
        if n as i64 != want {
            return Err(refuse(
                Reason::Dimension,
                &at(&format!("/{name}")),
                format!("{name} has {n} numbers; the model has {want}"),
            ));
        }
    }
    Ok(())
}

/// Step 3: the first value (by index) that is not a number, or that the engine would convert
/// to an integer outside its native domain: equality activations exactly `0` or `1` (not
/// `-0`, not a boolean), history cursors integers in `0..nsample`.
fn check_values(
    layout: &Layout,
    values: &[f64],
    first_other: Option<(usize, String)>,
    ptr: &dyn Fn() -> String,
) -> Result<(), Refusal> {
    let eq = layout.range("eq_active");
    let eq_ok = |x: f64| x.to_bits() == 0f64.to_bits() || x == 1.0;
    let eq_refusal = |i: usize, shown: &str| {
        refuse(
            Reason::EqActiveDomain,
            &pointer_index(&ptr(), i),
            format!("equality activation {shown} must be exactly 0 or 1"),
        )
    };
    let cursor_refusal = |c: &crate::native::Cursor, shown: &str| {
        refuse(
            Reason::StateDomain,
            &pointer_index(&ptr(), c.index),
            format!(
                "history cursor of {} is {shown}; it must be an integer in 0..={} (the engine indexes its ring buffer with it)",
                c.owner,
                c.nsample - 1
            ),
        )
    };
    let shown = |x: f64| {
        let mut s = String::new();
        write_f64(x, &mut s, false);
        s
    };
    // Numbers before the first non-number are all in `values`.
    let limit = first_other.as_ref().map_or(values.len(), |(i, _)| *i);
    let first_eq = eq
        .clone()
        .take_while(|&i| i < limit)
        .find(|&i| !eq_ok(values[i]));
    let first_cursor = layout
        .cursors
        .iter()
        .take_while(|c| c.index < limit)
        .find(|c| !c.admits(values[c.index]));
    let first_bad = [first_eq, first_cursor.map(|c| c.index)]
        .into_iter()
        .flatten()
        .min();
    match (first_bad, first_other) {
        (Some(i), _) if first_eq == Some(i) => Err(eq_refusal(i, &shown(values[i]))),
        (Some(_), _) => {
            let c = first_cursor.expect("a cursor");
            Err(cursor_refusal(c, &shown(values[c.index])))
        }
        (None, Some((i, text))) => {
            if eq.contains(&i) {
                Err(eq_refusal(i, &text))
            } else if let Some(c) = layout.cursors.iter().find(|c| c.index == i) {
                Err(cursor_refusal(c, &text))
            } else {
                Err(refuse(
                    Reason::WrongType,
                    &pointer_index(&ptr(), i),
                    "expected a number",
                ))
            }
        }
        (None, None) => Ok(()),
    }
}
