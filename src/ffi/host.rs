//! The C ABI of the host surface: model facts and names, frames, typed inputs, plugins and
//! the log callback. Same conventions as every export (see the header preamble).

use super::boundary::{call, null_refusal, on_endpoint};
use super::{mjb_endpoint, mjb_report, mutation, refuse_early, zero};
use crate::endpoint::Endpoint;
use crate::frame::{FrameInfo, Requests};
use crate::inputs::{check as check_input, Input};
pub use crate::native::fields::{mjb_field, mjb_object_kind};
use crate::native::fields::{Field, Kind};
use crate::outcome::{mjb_outcome, Outcome, Reason, Refusal};
use std::ffi::{c_void, CStr};
use std::os::raw::c_char;

pub use crate::frame::mjb_frame_cause;
pub use crate::host::{mjb_log_fn, mjb_log_level};

/// Model dimensions and the configuration counter, as `mjb_dims` reports them.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[allow(non_camel_case_types)]
pub struct mjb_model_dims {
    pub nq: i64,
    pub nv: i64,
    pub na: i64,
    pub nu: i64,
    pub nbody: i64,
    pub njnt: i64,
    pub ngeom: i64,
    pub nsite: i64,
    pub nsensor: i64,
    pub nsensordata: i64,
    pub nmocap: i64,
    pub neq: i64,
    pub nuserdata: i64,
    pub timestep: f64,
    /// The endpoint's model configuration (bumped by `mjb_endpoint_replace_model`).
    pub configuration: u64,
}

/// Where a joint's values sit in `qpos` and in `qvel` (and every nv-sized field).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct mjb_joint_adr {
    pub qpos_adr: u64,
    pub qpos_len: u64,
    pub dof_adr: u64,
    pub dof_len: u64,
}

/// What a frame read returns beside the values.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[allow(non_camel_case_types)]
pub struct mjb_frame_info {
    /// The endpoint's tick when the frame was published.
    pub tick: u64,
    /// `mjData.time` of the frame.
    pub time: f64,
    /// The model configuration the frame belongs to.
    pub configuration: u64,
    /// Publication number: 1 for the endpoint's first frame, +1 per frame, never reset.
    pub frame: u64,
    /// Why it was published (`mjb_frame_cause`).
    pub cause: i32,
    /// The published fields: bit `1 << f` for each `mjb_field` f of the selection.
    pub fields: u64,
    /// Fields not recomputed for this frame's state (bit `1 << f`): after a restore (or open,
    /// replacement, rollback) what only a step computes (qacc, sensordata, actuator_force)
    /// is stale until the next step; poses are recomputed by kinematics on a scratch copy.
    pub stale: u64,
    /// Times this read started over because the writer lapped it (diagnostics).
    pub retries: u64,
}

impl From<FrameInfo> for mjb_frame_info {
    fn from(i: FrameInfo) -> Self {
        mjb_frame_info {
            tick: i.tick,
            time: i.time,
            configuration: i.configuration,
            frame: i.frame,
            cause: i.cause,
            fields: i.fields,
            stale: i.stale,
            retries: i.retries,
        }
    }
}

/// One field of a multi-field frame read: the caller's buffer of `cap` doubles; `written`
/// receives the number copied.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct mjb_frame_request {
    /// An `mjb_field`.
    pub field: i32,
    pub buf: *mut f64,
    pub cap: usize,
    pub written: usize,
}

/// One typed input of `mjb_write_step`: `n` doubles for `field` (an input field), for the
/// whole field (`id` = -1) or one object (`id` ≥ 0: actuator for ctrl, degree of freedom for
/// qfrc_applied, body for xfrc_applied, mocap index for mocap_pos/quat, equality for eq_active).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct mjb_input {
    pub field: i32,
    pub id: i32,
    pub values: *const f64,
    pub n: usize,
}

fn out_of_range(what: String) -> Refusal {
    Refusal::new(
        Outcome::MJB_INVALID_ARGUMENT,
        Reason::MJB_REASON_OUT_OF_RANGE,
        what,
    )
}

/// `(ptr, n)` doubles as a slice; NULL only with `n == 0`.
unsafe fn doubles<'a>(p: *const f64, n: usize, what: &str) -> Result<&'a [f64], Refusal> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(null_refusal(what));
    }
    if n > isize::MAX as usize / std::mem::size_of::<f64>() {
        return Err(out_of_range(format!(
            "{what}: {n} doubles is larger than any array"
        )));
    }
    Ok(std::slice::from_raw_parts(p, n))
}

unsafe fn doubles_mut<'a>(p: *mut f64, n: usize, what: &str) -> Result<&'a mut [f64], Refusal> {
    if n == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(null_refusal(what));
    }
    if n > isize::MAX as usize / std::mem::size_of::<f64>() {
        return Err(out_of_range(format!(
            "{what}: {n} doubles is larger than any array"
        )));
    }
    Ok(std::slice::from_raw_parts_mut(p, n))
}

fn to_kind(v: i32) -> Result<Kind, Refusal> {
    Kind::from_i32(v).ok_or_else(|| out_of_range(format!("{v} is not an mjb_object_kind")))
}

fn to_field(v: i32) -> Result<Field, Refusal> {
    Field::from_i32(v).ok_or_else(|| out_of_range(format!("{v} is not an mjb_field")))
}

/// The model's dimensions, timestep and configuration counter. `out`: must not be NULL; zeroed
/// on entry, filled on `MJB_OK`. Takes no lock (the facts are kept beside the frames and
/// replaced with the model). Any thread.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_dims(ep: *mut mjb_endpoint, out: *mut mjb_model_dims) -> mjb_outcome {
    call(|| {
        if out.is_null() {
            return Err(null_refusal("out"));
        }
        zero(out);
        let v = on_endpoint(ep, |e| Ok(e.frames().view()))?;
        let d = &v.dims;
        out.write(mjb_model_dims {
            nq: d.nq,
            nv: d.nv,
            na: d.na,
            nu: d.nu,
            nbody: d.nbody,
            njnt: d.njnt,
            ngeom: d.ngeom,
            nsite: d.nsite,
            nsensor: d.nsensor,
            nsensordata: d.nsensordata,
            nmocap: d.nmocap,
            neq: d.neq,
            nuserdata: d.nuserdata,
            timestep: d.timestep,
            configuration: v.configuration,
        });
        Ok(Outcome::MJB_OK)
    })
}

/// `mj_name2id` for an `mjb_object_kind` kind. `name`: NUL-terminated, borrowed; must not be NULL.
/// `id`: must not be NULL; set to -1 on entry and to the object's id on `MJB_OK` (for
/// `MJB_OBJ_MOCAP` the mocap index, the index into mocap_pos/mocap_quat). An unknown name is
/// `MJB_REJECTED` (`MJB_REASON_UNKNOWN_NAME`); an unknown kind `MJB_INVALID_ARGUMENT`. Takes no
/// lock (names are read once per model). Any thread.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_name_to_id(
    ep: *mut mjb_endpoint,
    kind: i32,
    name: *const c_char,
    id: *mut i32,
) -> mjb_outcome {
    call(|| {
        if id.is_null() {
            return Err(null_refusal("id"));
        }
        id.write(-1);
        if name.is_null() {
            return Err(null_refusal("name"));
        }
        let k = to_kind(kind)?;
        let text = CStr::from_ptr(name).to_string_lossy();
        let v = on_endpoint(ep, |e| Ok(e.frames().view()))?;
        match v.catalog.id(k, &text) {
            Some(i) => {
                id.write(i as i32);
                Ok(Outcome::MJB_OK)
            }
            None => Err(Refusal::rejected(
                Reason::MJB_REASON_UNKNOWN_NAME,
                format!("no {} is named {text:?}", k.name()),
            )),
        }
    })
}

/// `mj_id2name` for an `mjb_object_kind` kind, copied into `buf` (NUL-terminated) when `cap` is at
/// least the size `needed` (nullable) receives, including the NUL; else `MJB_REJECTED`
/// (`MJB_REASON_TOO_LARGE`) and nothing copied. An unnamed object gives the empty string. An id
/// out of range is `MJB_REJECTED` (`MJB_REASON_OUT_OF_RANGE`). Takes no lock. Any thread.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_id_to_name(
    ep: *mut mjb_endpoint,
    kind: i32,
    id: i32,
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
) -> mjb_outcome {
    call(|| {
        zero(needed);
        let k = to_kind(kind)?;
        let v = on_endpoint(ep, |e| Ok(e.frames().view()))?;
        let name = usize::try_from(id)
            .ok()
            .and_then(|i| v.catalog.name(k, i))
            .ok_or_else(|| {
                Refusal::rejected(
                    Reason::MJB_REASON_OUT_OF_RANGE,
                    format!(
                        "{} id {id} is out of range (the model has {})",
                        k.name(),
                        v.catalog.count(k)
                    ),
                )
            })?
            .unwrap_or("");
        let size = name.len() + 1;
        if !needed.is_null() {
            needed.write(size);
        }
        if buf.is_null() || cap < size {
            return Err(Refusal::rejected(
                Reason::MJB_REASON_TOO_LARGE,
                format!("the name needs {size} bytes; the buffer holds {cap}"),
            ));
        }
        std::ptr::copy_nonoverlapping(name.as_ptr(), buf.cast::<u8>(), name.len());
        buf.add(name.len()).write(0);
        Ok(Outcome::MJB_OK)
    })
}

/// Where sensor `sensor`'s values sit in `sensordata`: `adr` and `dim` (both must not be NULL;
/// zeroed on entry, filled on `MJB_OK`). An id out of range is `MJB_REJECTED`
/// (`MJB_REASON_OUT_OF_RANGE`). Takes no lock. Any thread.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_sensor_slice(
    ep: *mut mjb_endpoint,
    sensor: i32,
    adr: *mut usize,
    dim: *mut usize,
) -> mjb_outcome {
    call(|| {
        if adr.is_null() || dim.is_null() {
            return Err(null_refusal("adr/dim"));
        }
        zero(adr);
        zero(dim);
        let v = on_endpoint(ep, |e| Ok(e.frames().view()))?;
        let s = &v.catalog.sensor_slices;
        let (a, d) = usize::try_from(sensor)
            .ok()
            .and_then(|i| s.get(i).copied())
            .ok_or_else(|| {
                Refusal::rejected(
                    Reason::MJB_REASON_OUT_OF_RANGE,
                    format!(
                        "sensor {sensor} is out of range (the model has {})",
                        s.len()
                    ),
                )
            })?;
        adr.write(a);
        dim.write(d);
        Ok(Outcome::MJB_OK)
    })
}

/// Where joint `joint`'s values sit in `qpos` and in the nv-sized fields. `out`: must not be
/// NULL; zeroed on entry, filled on `MJB_OK`. An id out of range is `MJB_REJECTED`
/// (`MJB_REASON_OUT_OF_RANGE`). Takes no lock. Any thread.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_joint_slice(
    ep: *mut mjb_endpoint,
    joint: i32,
    out: *mut mjb_joint_adr,
) -> mjb_outcome {
    call(|| {
        if out.is_null() {
            return Err(null_refusal("out"));
        }
        zero(out);
        let v = on_endpoint(ep, |e| Ok(e.frames().view()))?;
        let s = &v.catalog.joint_slices;
        let [qa, nq, da, nv] = usize::try_from(joint)
            .ok()
            .and_then(|i| s.get(i).copied())
            .ok_or_else(|| {
                Refusal::rejected(
                    Reason::MJB_REASON_OUT_OF_RANGE,
                    format!("joint {joint} is out of range (the model has {})", s.len()),
                )
            })?;
        out.write(mjb_joint_adr {
            qpos_adr: qa as u64,
            qpos_len: nq as u64,
            dof_adr: da as u64,
            dof_len: nv as u64,
        });
        Ok(Outcome::MJB_OK)
    })
}

/// The name of an `mjb_field` (`"qpos"`, ..., as in the config's `"frame"` list and the world
/// document), or NULL for an unknown value. Static string: do not free.
#[no_mangle]
pub extern "C" fn mjb_field_name(field: i32) -> *const c_char {
    static NAMES: std::sync::OnceLock<Vec<std::ffi::CString>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        Field::ALL
            .iter()
            .map(|f| std::ffi::CString::new(f.name()).expect("no NUL"))
            .collect()
    });
    Field::from_i32(field).map_or(std::ptr::null(), |f| names[f.index()].as_ptr())
}

/// How many doubles a frame carries for `field` (`len`: must not be NULL; zeroed on entry).
/// A field outside the endpoint's frame selection is `MJB_REJECTED`
/// (`MJB_REASON_NOT_IN_FRAME`). Takes no lock. Any thread.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_frame_field_len(
    ep: *mut mjb_endpoint,
    field: i32,
    len: *mut usize,
) -> mjb_outcome {
    call(|| {
        if len.is_null() {
            return Err(null_refusal("len"));
        }
        zero(len);
        let f = to_field(field)?;
        let v = on_endpoint(ep, |e| Ok(e.frames().view()))?;
        let n = v.field_len(f).ok_or_else(|| {
            Refusal::rejected(
                Reason::MJB_REASON_NOT_IN_FRAME,
                format!("{} is not in the endpoint's frame selection", f.name()),
            )
        })?;
        len.write(n);
        Ok(Outcome::MJB_OK)
    })
}

struct One<'a> {
    field: Field,
    out: &'a mut [f64],
    written: usize,
}

impl Requests for One<'_> {
    fn count(&self) -> usize {
        1
    }
    fn field(&self, _: usize) -> Field {
        self.field
    }
    fn out(&mut self, _: usize) -> &mut [f64] {
        self.out
    }
    fn set_written(&mut self, _: usize, n: usize) {
        self.written = n;
    }
}

struct Many<'a> {
    reqs: &'a mut [mjb_frame_request],
    fields: &'a [Field],
}

impl Requests for Many<'_> {
    fn count(&self) -> usize {
        self.reqs.len()
    }
    fn field(&self, k: usize) -> Field {
        self.fields[k]
    }
    fn out(&mut self, k: usize) -> &mut [f64] {
        let r = &self.reqs[k];
        if r.cap == 0 || r.buf.is_null() {
            return &mut [];
        }
        // SAFETY: checked at the boundary: buf holds cap doubles for the call.
        unsafe { std::slice::from_raw_parts_mut(r.buf, r.cap) }
    }
    fn set_written(&mut self, k: usize, n: usize) {
        self.reqs[k].written = n;
    }
}

fn read_frame(e: &Endpoint, r: &mut (impl Requests + ?Sized)) -> Result<FrameInfo, Refusal> {
    e.frames().view().read(r)
}

/// Copy one field of the latest complete frame into `buf` (`cap` doubles, caller-owned; NULL
/// only with `cap` 0). `written` (nullable) receives the number of doubles copied, `info`
/// (nullable) the frame's tick, time, cause, published and stale fields. Both are zeroed on
/// entry and filled on `MJB_OK`.
/// Never takes the native lock and never waits for a step in progress: it copies the last
/// frame published (a seqlock over three slots; a read that the writer laps starts over on the
/// newer frame). Works on fenced endpoints (the last frame stays readable). Refusals:
/// `MJB_REASON_NOT_IN_FRAME` (the field is not in the config's `"frame"` selection),
/// `MJB_REASON_DIMENSION` (`cap` is smaller than the field). Any thread, concurrently.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_frame_read(
    ep: *mut mjb_endpoint,
    field: i32,
    buf: *mut f64,
    cap: usize,
    written: *mut usize,
    info: *mut mjb_frame_info,
) -> mjb_outcome {
    call(|| {
        zero(written);
        zero(info);
        let f = to_field(field)?;
        let out = doubles_mut(buf, cap, "buf")?;
        let mut one = One {
            field: f,
            out,
            written: 0,
        };
        let i = on_endpoint(ep, |e| read_frame(e, &mut one))?;
        if !written.is_null() {
            written.write(one.written);
        }
        if !info.is_null() {
            info.write(i.into());
        }
        Ok(Outcome::MJB_OK)
    })
}

/// Copy several fields of one frame in one read: every request's values belong to the same
/// tick. `requests`: `n` requests, caller-owned (NULL only with `n` 0; `n` 0 reads the info
/// alone; at most 64 requests); each request's `written` is zeroed on entry and set on
/// `MJB_OK`. A request whose
/// field is not selected or whose `cap` is too small refuses the whole read (JSON pointer
/// `/requests/<k>/field` or `/cap`), nothing copied. `info`: nullable. Locking and threads as
/// for `mjb_frame_read`.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_frame_read_many(
    ep: *mut mjb_endpoint,
    requests: *mut mjb_frame_request,
    n: usize,
    info: *mut mjb_frame_info,
) -> mjb_outcome {
    call(|| {
        zero(info);
        let reqs: &mut [mjb_frame_request] = if n == 0 {
            &mut []
        } else if requests.is_null() {
            return Err(null_refusal("requests"));
        } else if n > 64 {
            return Err(out_of_range(format!("{n} requests; at most 64")));
        } else {
            std::slice::from_raw_parts_mut(requests, n)
        };
        let mut fields = [Field::MJB_FIELD_QPOS; 64];
        for (k, r) in reqs.iter_mut().enumerate() {
            r.written = 0;
            fields[k] = to_field(r.field)?;
            doubles_mut(r.buf, r.cap, "requests[].buf")?;
        }
        let mut many = Many {
            reqs,
            fields: &fields[..n],
        };
        let i = on_endpoint(ep, |e| read_frame(e, &mut many))?;
        if !info.is_null() {
            info.write(i.into());
        }
        Ok(Outcome::MJB_OK)
    })
}

/// Write one typed input as a world mutation: `n` doubles (borrowed for the call; NULL only
/// with `n` 0) for `field` (`MJB_FIELD_CTRL`, `QFRC_APPLIED`, `XFRC_APPLIED`, `MOCAP_POS`,
/// `MOCAP_QUAT`, `EQ_ACTIVE`), for the whole field (`id` = -1; `n` = its length) or one object
/// (`id` ≥ 0; `n` = the object's width: 1, 1, 6, 3, 4, 1). Refused before anything is written
/// (`MJB_REJECTED`, pointer in `mjb_last_error`): another field (`READ_ONLY_FIELD`), an id out
/// of range (`OUT_OF_RANGE`), a wrong `n` (`DIMENSION`), a value that is not finite
/// (`NOT_FINITE`), an equality activation that is not exactly 0 or 1 (`EQ_ACTIVE_DOMAIN`),
/// `eq_active` before MuJoCo 3.0 (`UNSUPPORTED`). Publishes a frame. `report`: nullable.
/// Takes the native lock (admission bounded by `timeout_ms`).
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_input_write(
    ep: *mut mjb_endpoint,
    field: i32,
    id: i32,
    values: *const f64,
    n: usize,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    let values = match doubles(values, n, "values") {
        Ok(v) => v,
        Err(r) => return refuse_early(report, r),
    };
    mutation(ep, report, |e| {
        let shape = e.shape();
        match check_input(field, i64::from(id), values, &shape.dims, "", false) {
            Ok(i) => e.write_inputs(&[i], &shape, timeout_ms),
            Err(r) => {
                let t = e.safety.view_tick();
                crate::endpoint::Answer::refused_at(r, t)
            }
        }
    })
}

/// The hot loop in one admission: write `ninputs` typed inputs (each as for `mjb_input_write`;
/// all checked before any is written, pointers `/inputs/<k>/...`), then `mj_step` up to `nstep`
/// times exactly as `mjb_step` does (stop latch between steps, rollback on an engine error,
/// frames published). `inputs` may be NULL only with `ninputs` 0 (then this is `mjb_step`).
/// A stop latched before the call refuses it with nothing written; a stop latched after the
/// inputs were written halts before the first step (`MJB_OK`, `MJB_REASON_STOP_LATCHED`).
/// `report`: nullable. Takes the native lock once.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_write_step(
    ep: *mut mjb_endpoint,
    inputs: *const mjb_input,
    ninputs: usize,
    nstep: u32,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    let raw: &[mjb_input] = if ninputs == 0 {
        &[]
    } else if inputs.is_null() {
        return refuse_early(report, null_refusal("inputs"));
    } else if ninputs > 64 {
        return refuse_early(
            report,
            out_of_range(format!("{ninputs} inputs; at most 64")),
        );
    } else {
        std::slice::from_raw_parts(inputs, ninputs)
    };
    let mut slices: [&[f64]; 64] = [&[]; 64];
    for (k, r) in raw.iter().enumerate() {
        match doubles(r.values, r.n, "inputs[].values") {
            Ok(v) => slices[k] = v,
            Err(r) => return refuse_early(report, r),
        }
    }
    mutation(ep, report, |e| {
        if raw.is_empty() {
            return e.step(nstep, timeout_ms);
        }
        let shape = e.shape();
        let unused = Input {
            field: Field::MJB_FIELD_CTRL,
            id: None,
            values: &[],
        };
        let mut checked = [unused; 64];
        for (k, r) in raw.iter().enumerate() {
            // The pointer is only built for a refusal: this is the hot loop.
            let ptr = |k| format!("/inputs/{k}");
            match check_input(r.field, i64::from(r.id), slices[k], &shape.dims, "", false) {
                Ok(i) => checked[k] = i,
                Err(mut r) => {
                    r.pointer = Some(format!("{}{}", ptr(k), r.pointer.unwrap_or_default()));
                    return crate::endpoint::Answer::refused_at(r, e.safety.view_tick());
                }
            }
        }
        e.write_step(&checked[..raw.len()], Some(&shape), nstep, timeout_ms)
    })
}

/// Load a MuJoCo plugin library (guarded `mj_loadPluginLibrary`), so a host that never links
/// MuJoCo can open models that need it. `path`: NUL-terminated, borrowed; must not be NULL.
/// `plugins` (nullable) receives how many plugins it registered (0 when it was loaded before).
/// Refusals: `MJB_REASON_PLUGIN_LOAD` (not a file, or MuJoCo's loader message),
/// `MJB_REASON_UNSUPPORTED` (MuJoCo before 2.3.1 has no plugin API). Plugins are process-wide
/// and stay registered. Thread-safe; takes no endpoint lock.
#[no_mangle]
pub unsafe extern "C" fn mjb_plugin_load(path: *const c_char, plugins: *mut usize) -> mjb_outcome {
    call(|| {
        zero(plugins);
        if path.is_null() {
            return Err(null_refusal("path"));
        }
        let n = crate::host::load_plugin(CStr::from_ptr(path).to_bytes())?;
        if !plugins.is_null() {
            plugins.write(n);
        }
        Ok(Outcome::MJB_OK)
    })
}

/// Load every plugin library (`*.so`) of a directory (guarded `mj_loadAllPluginLibraries`).
/// `dir`: NUL-terminated, borrowed; must not be NULL. `libraries` and `plugins` (nullable)
/// receive how many libraries registered plugins and how many plugins they registered. A
/// library that fails to load refuses the call (`MJB_REASON_PLUGIN_LOAD`, MuJoCo's message);
/// libraries loaded before it stay registered. `MJB_REASON_UNSUPPORTED` before MuJoCo 2.3.1.
/// Thread-safe; takes no endpoint lock.
#[no_mangle]
pub unsafe extern "C" fn mjb_plugin_load_dir(
    dir: *const c_char,
    libraries: *mut usize,
    plugins: *mut usize,
) -> mjb_outcome {
    call(|| {
        zero(libraries);
        zero(plugins);
        if dir.is_null() {
            return Err(null_refusal("dir"));
        }
        let (l, n) = crate::host::load_plugin_dir(CStr::from_ptr(dir).to_bytes())?;
        if !libraries.is_null() {
            libraries.write(l);
        }
        if !plugins.is_null() {
            plugins.write(n);
        }
        Ok(Outcome::MJB_OK)
    })
}

/// Send MuJoCo's warnings raised inside the bridge's calls and the bridge's notable events
/// (fence, rollback, engine reset, refused documents) to `callback(user_data, level, message)`
/// for levels at or above `min_level` (an `mjb_log_level`). NULL `callback` removes it; then
/// such messages are dropped: nothing is printed and nothing is written to the working
/// directory (MuJoCo's own `MUJOCO_LOG.TXT` is never written for warnings inside the bridge's
/// calls). Process-wide.
/// Threads: messages are delivered on the thread whose call produced them, when that call
/// returns, outside every lock; the callback may call the bridge (except this function) and
/// must be thread-safe when several threads use the bridge. `message` is valid during the
/// callback only. When this function returns the previous callback is not running and will not
/// be called again, so its `user_data` may be freed. Calling it from inside the callback is
/// refused. Warnings MuJoCo raises outside the bridge's calls keep going to the host's own
/// handler (`mju_user_warning` or the log handler).
#[no_mangle]
pub unsafe extern "C" fn mjb_set_log_callback(
    callback: mjb_log_fn,
    user_data: *mut c_void,
    min_level: i32,
) -> mjb_outcome {
    call(|| {
        crate::host::set_callback(callback, user_data, min_level)?;
        Ok(Outcome::MJB_OK)
    })
}
