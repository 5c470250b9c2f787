//! Exports of the host surface: model facts and names, frames, typed inputs, the combined
//! write-then-step, plugins and the log callback. Same conventions as every export (see the
//! header preamble); arguments are translated at the boundary, the answers come from the
//! endpoint, its frames and its catalog of names.

use super::boundary::{call, from_c, mutation, on_endpoint, refuse_early};
use super::enums::mjb_outcome;
use super::last_error;
use super::pointer::{
    admission, c_str, null_refusal, out_of_range, out_param, out_zeroed, slice, slice_mut, zeroed,
};
use super::types::mjb_log_fn;
use super::types::{
    mjb_endpoint, mjb_expect, mjb_frame_info, mjb_frame_request, mjb_input, mjb_joint_adr,
    mjb_model_dims, mjb_report,
};
use crate::endpoint::{HostInput, MAX_INPUTS};
use crate::frame::{Requests, View};
use crate::native::fields::{Field, ObjectKind};
use crate::outcome::{Outcome, Reason, Refusal};
use std::ffi::c_void;
use std::os::raw::{c_char, c_int};
use std::sync::Arc;

/// At most this many requests in one `mjb_frame_read_many`.
pub(super) const MAX_REQUESTS: usize = 64;

fn to_kind(v: i32) -> Result<ObjectKind, Refusal> {
    ObjectKind::from_i32(v).ok_or_else(|| out_of_range(format!("{v} is not an mjb_object_kind")))
}

pub(super) fn to_field(v: i32) -> Result<Field, Refusal> {
    Field::from_i32(v).ok_or_else(|| out_of_range(format!("{v} is not an mjb_field")))
}

/// The model facts and frames of a live endpoint (no lock).
pub(super) fn view(ep: *mut mjb_endpoint) -> Result<arc_swap::Guard<Arc<View>>, Refusal> {
    on_endpoint(ep, |e| Ok(e.frames().view()))
}

/// Copy `text` and a NUL into `buf` when `cap` holds it; `needed` (nullable) receives the size.
///
/// # Safety
/// `buf` is NULL or valid for `cap` bytes.
unsafe fn copy_c_string(
    text: &str,
    buf: *mut c_char,
    cap: usize,
    needed: Option<&mut usize>,
) -> Result<(), Refusal> {
    let size = text.len() + 1;
    if let Some(n) = needed {
        *n = size;
    }
    if buf.is_null() || cap < size {
        return Err(Refusal::rejected(
            Reason::TooLarge,
            format!("the text needs {size} bytes; the buffer holds {cap}"),
        ));
    }
    std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), text.len());
    buf.add(text.len()).write(0);
    Ok(())
}

/// The model's dimensions, timestep and configuration counter. `out`: must not be NULL; zeroed
/// on entry, filled on `MJB_OK`. Takes no lock (the facts are kept beside the frames and
/// replaced with the model). Any thread.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_dims(ep: *mut mjb_endpoint, out: *mut mjb_model_dims) -> mjb_outcome {
    call(|| {
        let out = out_zeroed(out, "out")?;
        let v = view(ep)?;
        *out = mjb_model_dims::of(&v.dims, v.configuration);
        Ok(Outcome::Ok)
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
        let id = out_param(id, -1, "id")?;
        let name = c_str(name, "name")?;
        let k = to_kind(kind)?;
        *id = view(ep)?.catalog.lookup(k, &name.to_string_lossy())? as i32;
        Ok(Outcome::Ok)
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
        let needed = zeroed(needed);
        let k = to_kind(kind)?;
        let v = view(ep)?;
        let name = v.catalog.name_of(k, id)?;
        copy_c_string(name, buf, cap, needed)?;
        Ok(Outcome::Ok)
    })
}

/// The model's fingerprint, `"sha256:<hex>"` of MuJoCo's own serialization of the compiled
/// model (`mj_saveModel`), as the world document's `model_fingerprint` carries it: two models
/// with the same dimensions but another parameter differ. Copied into `buf` (NUL-terminated)
/// when `cap` is at least the size `needed` (nullable) receives, including the NUL (72 bytes);
/// else `MJB_REJECTED` (`MJB_REASON_TOO_LARGE`) and nothing copied. Takes no lock (computed at
/// open and at model replacement). Any thread.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_model_fingerprint(
    ep: *mut mjb_endpoint,
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
) -> mjb_outcome {
    call(|| {
        let needed = zeroed(needed);
        let shape = on_endpoint(ep, |e| Ok(e.shape()))?;
        copy_c_string(&shape.fingerprint, buf, cap, needed)?;
        Ok(Outcome::Ok)
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
        let adr = out_param(adr, 0, "adr")?;
        let dim = out_param(dim, 0, "dim")?;
        (*adr, *dim) = view(ep)?.catalog.sensor(sensor)?;
        Ok(Outcome::Ok)
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
        let out = out_zeroed(out, "out")?;
        let [qa, nq, da, nv] = view(ep)?.catalog.joint(joint)?;
        *out = mjb_joint_adr {
            qpos_adr: qa as u64,
            qpos_len: nq as u64,
            dof_adr: da as u64,
            dof_len: nv as u64,
        };
        Ok(Outcome::Ok)
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
        let len = out_param(len, 0, "len")?;
        let f = to_field(field)?;
        *len = view(ep)?.frame_len(f)?;
        Ok(Outcome::Ok)
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
    fn cap(&self, _: usize) -> usize {
        self.out.len()
    }
    fn set_written(&mut self, _: usize, n: usize) {
        self.written = n;
    }
}

pub(super) struct Many<'a> {
    pub(super) reqs: &'a mut [mjb_frame_request],
    pub(super) fields: &'a [Field],
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
        // SAFETY: checked at the boundary (`slice_mut` on every request): buf holds cap
        // doubles for the call.
        unsafe { std::slice::from_raw_parts_mut(r.buf, r.cap) }
    }
    fn cap(&self, k: usize) -> usize {
        let r = &self.reqs[k];
        if r.buf.is_null() {
            0
        } else {
            r.cap
        }
    }
    fn set_written(&mut self, k: usize, n: usize) {
        self.reqs[k].written = n;
    }
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
        let written = zeroed(written);
        let info = zeroed(info);
        let f = to_field(field)?;
        let out = slice_mut(buf, cap, "buf")?;
        let mut one = One {
            field: f,
            out,
            written: 0,
        };
        let i = view(ep)?.read(&mut one)?;
        if let Some(w) = written {
            *w = one.written;
        }
        if let Some(p) = info {
            *p = i.into();
        }
        Ok(Outcome::Ok)
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
        let info = zeroed(info);
        let mut fields = [Field::Qpos; MAX_REQUESTS];
        let reqs = frame_requests(requests, n, &mut fields)?;
        let mut many = Many {
            reqs,
            fields: &fields[..n],
        };
        let i = view(ep)?.read(&mut many)?;
        if let Some(p) = info {
            *p = i.into();
        }
        Ok(Outcome::Ok)
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
    mjb_input_write_if(
        ep,
        std::ptr::null(),
        field,
        id,
        values,
        n,
        timeout_ms,
        report,
    )
}

/// The hot loop in one admission: write `ninputs` typed inputs (each as for `mjb_input_write`;
/// all checked before any is written, pointers `/inputs/<k>/...`), then `mj_step` up to `nstep`
/// times exactly as `mjb_step` does (stop latch between steps, rollback on an engine error,
/// frames published). An engine error in the first step rolls the inputs back with it
/// (`MJB_ROLLED_BACK`: the state before the call, proven); in a later step the inputs and the
/// steps before it stand. A pre-step state that cannot be read refuses the call with nothing
/// written (`MJB_REJECTED`, `MJB_REASON_ENGINE_ERROR`). `inputs` may be NULL only with
/// `ninputs` 0 (then this is `mjb_step`).
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
    mjb_write_step_if(
        ep,
        std::ptr::null(),
        inputs,
        ninputs,
        nstep,
        timeout_ms,
        report,
    )
}

/// `mjb_input_write` with a precondition (`expect` as for `mjb_step_if`; nothing is written
/// when it does not hold).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn mjb_input_write_if(
    ep: *mut mjb_endpoint,
    expect: *const mjb_expect,
    field: i32,
    id: i32,
    values: *const f64,
    n: usize,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    match (slice(values, n, "values"), admission(timeout_ms, expect)) {
        (Ok(v), Ok(c)) => mutation(ep, report, |e| e.input_write(field, id.into(), v, c)),
        (Err(r), _) | (_, Err(r)) => refuse_early(report, r),
    }
}

/// `mjb_write_step` with a precondition (`expect` as for `mjb_step_if`): the controller's
/// compare-and-step. Read a frame, choose the inputs for it, and pass its publication number
/// with `MJB_EXPECT_FRAME`: if another call changed anything meanwhile (a step, a restore even
/// to the same tick, an input write, a replacement), the call is refused
/// (`MJB_REASON_PRECONDITION`) with nothing written and no step taken. `MJB_EXPECT_TICK`
/// alone catches steps but not a restore to the same tick.
#[no_mangle]
pub unsafe extern "C" fn mjb_write_step_if(
    ep: *mut mjb_endpoint,
    expect: *const mjb_expect,
    inputs: *const mjb_input,
    ninputs: usize,
    nstep: u32,
    timeout_ms: u32,
    report: *mut mjb_report,
) -> mjb_outcome {
    let mut host = [UNUSED_INPUT; MAX_INPUTS];
    let translated = host_inputs(inputs, ninputs, &mut host)
        .and_then(|n| Ok((n, admission(timeout_ms, expect)?)));
    match translated {
        Ok((n, c)) => mutation(ep, report, |e| e.write_step(&host[..n], nstep, c)),
        Err(r) => refuse_early(report, r),
    }
}

const UNUSED_INPUT: HostInput<'static> = HostInput {
    field: 0,
    id: 0,
    values: &[],
};

/// Borrow `n` C inputs (at most `MAX_INPUTS`) and their values into `host`; returns `n`.
///
/// # Safety
/// `inputs` is NULL or valid for `n` inputs, each `values` for its `n` doubles.
unsafe fn host_inputs<'a>(
    inputs: *const mjb_input,
    n: usize,
    host: &mut [HostInput<'a>; MAX_INPUTS],
) -> Result<usize, Refusal> {
    if n > MAX_INPUTS && !inputs.is_null() {
        return Err(out_of_range(format!("{n} inputs; at most {MAX_INPUTS}")));
    }
    for (k, r) in slice(inputs, n, "inputs")?.iter().enumerate() {
        host[k] = HostInput {
            field: r.field,
            id: r.id.into(),
            values: slice(r.values, r.n, "inputs[].values")?,
        };
    }
    Ok(n)
}

/// One step of a host loop in one call: write `ninputs` typed inputs and step up to `nstep`
/// times exactly as `mjb_write_step` does (same checks, refusals, stop latch, rollback, report),
/// then copy fields of the latest frame into the caller's buffers exactly as
/// `mjb_frame_read_many` does.
///
/// `inputs`: as for `mjb_write_step` (borrowed; NULL only with `ninputs` 0). `requests`: `n`
/// caller-owned requests (NULL only with `nrequests` 0; at most 64), each `written` zeroed on
/// entry. Every request is checked before anything is written: a field outside the endpoint's
/// frame selection (`MJB_REASON_NOT_IN_FRAME`, pointer `/requests/<k>/field`) or a `cap` smaller
/// than the field (`MJB_REASON_DIMENSION`, `/requests/<k>/cap`) refuses the call with no effect.
/// `info` (nullable) is zeroed on entry. `report` (nullable) is written on every outcome, as for
/// `mjb_write_step`.
/// The frame is read only when the step part returns `MJB_OK` (also a step halted by a stop,
/// `MJB_REASON_STOP_LATCHED`); after any other outcome the buffers are untouched, `written` and
/// `info` stay zero. The frame read is the latest complete one, without the lock: this call's
/// last frame unless another thread mutated the endpoint in between (`info->tick` and
/// `info->frame` tell). If another thread replaced the model in between and a buffer no longer
/// fits, the call still returns the step's `MJB_OK` with `info->frame` 0 (nothing read) and
/// `mjb_last_error` names the reason.
/// Takes the native lock once (admission bounded by `timeout_ms`), for the write and the steps;
/// the frame read takes no lock. Any thread.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn mjb_write_step_read(
    ep: *mut mjb_endpoint,
    inputs: *const mjb_input,
    ninputs: usize,
    nstep: u32,
    timeout_ms: u32,
    requests: *mut mjb_frame_request,
    nrequests: usize,
    info: *mut mjb_frame_info,
    report: *mut mjb_report,
) -> mjb_outcome {
    mjb_write_step_read_if(
        ep,
        std::ptr::null(),
        inputs,
        ninputs,
        nstep,
        timeout_ms,
        requests,
        nrequests,
        info,
        report,
    )
}

/// `mjb_write_step_read` with a precondition (`expect` as for `mjb_step_if`): the controller's
/// compare-and-step in one call. When it does not hold, nothing is written, no step is taken
/// and no frame is read (`MJB_REJECTED`, `MJB_REASON_PRECONDITION`).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn mjb_write_step_read_if(
    ep: *mut mjb_endpoint,
    expect: *const mjb_expect,
    inputs: *const mjb_input,
    ninputs: usize,
    nstep: u32,
    timeout_ms: u32,
    requests: *mut mjb_frame_request,
    nrequests: usize,
    info: *mut mjb_frame_info,
    report: *mut mjb_report,
) -> mjb_outcome {
    let info = zeroed(info);
    let mut fields = [Field::Qpos; MAX_REQUESTS];
    let mut host = [UNUSED_INPUT; MAX_INPUTS];
    let translated = frame_requests(requests, nrequests, &mut fields).and_then(|reqs| {
        let n = host_inputs(inputs, ninputs, &mut host)?;
        Ok((reqs, n, admission(timeout_ms, expect)?))
    });
    let (reqs, n, call) = match translated {
        Ok(t) => t,
        Err(r) => return refuse_early(report, r),
    };
    let mut many = Many {
        reqs,
        fields: &fields[..nrequests],
    };
    let mut read = None;
    let outcome = mutation(ep, report, |e| {
        let (a, r) = e.write_step_read(&host[..n], nstep, call, &mut many);
        read = r;
        a
    });
    match read {
        Some(Ok(i)) => {
            if let Some(p) = info {
                *p = i.into();
            }
        }
        // The steps were taken; the frame could not be read (the model was replaced in
        // between): the call answers the step's MJB_OK and says why nothing was read.
        Some(Err(r)) => {
            let step = last_error::get().map(|k| format!(" (step: {})", k.message));
            last_error::set(Refusal::new(
                Outcome::Ok,
                r.reason,
                format!(
                    "stepped, but the frame was not read: {}{}",
                    r.message,
                    step.unwrap_or_default()
                ),
            ));
        }
        None => {}
    }
    outcome
}

/// Borrow `n` frame requests (at most `MAX_REQUESTS`), each `written` zeroed, their fields
/// into `fields`; every buffer checked.
///
/// # Safety
/// `requests` is NULL or valid for `n` requests, each `buf` for its `cap` doubles.
pub(super) unsafe fn frame_requests<'a>(
    requests: *mut mjb_frame_request,
    n: usize,
    fields: &mut [Field; MAX_REQUESTS],
) -> Result<&'a mut [mjb_frame_request], Refusal> {
    if n > MAX_REQUESTS && !requests.is_null() {
        return Err(out_of_range(format!(
            "{n} requests; at most {MAX_REQUESTS}"
        )));
    }
    let reqs = slice_mut(requests, n, "requests")?;
    // Every `written` first: a refusal at request k leaves none of them stale.
    for r in reqs.iter_mut() {
        r.written = 0;
    }
    for (k, r) in reqs.iter_mut().enumerate() {
        fields[k] = to_field(r.field).map_err(|e| e.at(format!("/requests/{k}/field")))?;
        slice_mut(r.buf, r.cap, "requests[].buf")?;
    }
    Ok(reqs)
}

/// Load a MuJoCo plugin library (guarded `mj_loadPluginLibrary`), so a host that never links
/// MuJoCo can open models that need it. `path`: NUL-terminated, borrowed; must not be NULL.
/// `plugins` (nullable) receives how many plugins it registered (0 when it was loaded before).
/// Refusals: `MJB_REASON_PLUGIN_LOAD` (not a file, or MuJoCo's message: a library the loader
/// refuses, a plugin already registered from another file under the same name),
/// `MJB_REASON_UNSUPPORTED` (MuJoCo before 2.3.1 has no plugin API). Plugins are process-wide
/// and stay registered. Thread-safe; takes no endpoint lock; plugin loads through the bridge
/// run one at a time (MuJoCo's errors inside the system loader are recorded, never jumped
/// out of, so a refusal leaves the loader usable).
#[no_mangle]
pub unsafe extern "C" fn mjb_plugin_load(path: *const c_char, plugins: *mut usize) -> mjb_outcome {
    call(|| {
        let plugins = zeroed(plugins);
        let n = crate::host::load_plugin(c_str(path, "path")?.to_bytes())?;
        if let Some(p) = plugins {
            *p = n;
        }
        Ok(Outcome::Ok)
    })
}

/// Load every plugin library (`*.so`) of a directory (guarded `mj_loadAllPluginLibraries`).
/// `dir`: NUL-terminated, borrowed; must not be NULL. `libraries` and `plugins` (nullable)
/// receive how many libraries registered plugins and how many plugins they registered. A
/// library that fails to load refuses the call (`MJB_REASON_PLUGIN_LOAD`, MuJoCo's first
/// message); what the directory's other libraries registered stays registered.
/// `MJB_REASON_UNSUPPORTED` before MuJoCo 2.3.1. Thread-safe; takes no endpoint lock; one at
/// a time with `mjb_plugin_load`.
#[no_mangle]
pub unsafe extern "C" fn mjb_plugin_load_dir(
    dir: *const c_char,
    libraries: *mut usize,
    plugins: *mut usize,
) -> mjb_outcome {
    call(|| {
        let libraries = zeroed(libraries);
        let plugins = zeroed(plugins);
        let (l, n) = crate::host::load_plugin_dir(c_str(dir, "dir")?.to_bytes())?;
        if let Some(p) = libraries {
            *p = l;
        }
        if let Some(p) = plugins {
            *p = n;
        }
        Ok(Outcome::Ok)
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
        install_engine_sink();
        crate::host::set_callback(callback, user_data, min_level)?;
        Ok(Outcome::Ok)
    })
}

/// MuJoCo's warnings raised inside a guarded call, from the shim (on the raising thread, inside
/// MuJoCo): queued for the callback; a panic is caught here, never unwinds into C.
unsafe extern "C" fn engine_sink(level: c_int, text: *const c_char) {
    // SAFETY: the shim passes NULL or a NUL-terminated message valid for this call.
    from_c(|| unsafe { crate::host::engine_message(level, text) });
}

/// Route MuJoCo's in-call warnings to the queue, once per process, when a callback is first
/// set. (Without a callback they are dropped: the shim drops a warning inside a guard when no
/// sink is installed, and the queue drops every message below the callback's level.)
fn install_engine_sink() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| crate::native::set_log_sink(engine_sink));
}
