//! The host surface's seam to mjData and mjModel: which arrays a frame can carry or an input
//! can write ([`Field`]), where they are in a live pair, kinematics on a scratch data, and
//! the model's names ([`Catalog`]).
//!
//! Every pointer and length comes from the shim, which is compiled against the headers of the
//! MuJoCo it links: struct layouts differ between releases, so nothing here knows an offset.

use super::shim::*;
use super::{msg_buf, shim_fields, status, Dims, MjData, MjModel, Mujoco, NativeError};
use crate::outcome::{Reason, Refusal};
use std::collections::HashMap;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};
use std::ptr::NonNull;

abi_enum! {
    /// An mjData array a frame can carry (and, for inputs, a typed write can set), named as
    /// the config's `"frame"` list and the world document name it (`mjb_field` in C, the same
    /// values; each one's length and meaning are documented there).
    pub enum Field {
        Qpos = "qpos",
        Qvel = "qvel",
        Act = "act",
        Ctrl = "ctrl",
        Qacc = "qacc",
        Sensordata = "sensordata",
        Xpos = "xpos",
        Xquat = "xquat",
        Xmat = "xmat",
        SiteXpos = "site_xpos",
        SiteXmat = "site_xmat",
        GeomXpos = "geom_xpos",
        GeomXmat = "geom_xmat",
        MocapPos = "mocap_pos",
        MocapQuat = "mocap_quat",
        QfrcApplied = "qfrc_applied",
        XfrcApplied = "xfrc_applied",
        EqActive = "eq_active",
        ActuatorForce = "actuator_force",
        Userdata = "userdata",
    }
}

/// Number of [`Field`] values.
pub const FIELD_COUNT: usize = 20;

const _: () = assert!(Field::ALL.len() == FIELD_COUNT);

/// How a field's values come about, which decides what a frame does with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Integration state: always exact in a frame.
    State,
    /// Host inputs (part of the integration state too): always exact; writable.
    Input,
    /// Positions computed by kinematics: recomputed on a scratch data after a restore.
    Pose,
    /// Computed by the forward pipeline of a step: stale after a restore until the next step.
    Forward,
}

impl Field {
    pub fn from_name(name: &str) -> Option<Field> {
        Self::ALL.iter().copied().find(|f| f.name() == name)
    }

    pub fn index(self) -> usize {
        self as usize
    }

    /// This field's bit in a field mask (`mjb_frame_info.fields`, `.stale`).
    pub fn bit(self) -> u64 {
        1u64 << (self as u32)
    }

    pub fn class(self) -> Class {
        use Field::*;
        match self {
            Qpos | Qvel | Act | Userdata => Class::State,
            Ctrl | MocapPos | MocapQuat | QfrcApplied | XfrcApplied | EqActive => Class::Input,
            Xpos | Xquat | Xmat | SiteXpos | SiteXmat | GeomXpos | GeomXmat => Class::Pose,
            Qacc | Sensordata | ActuatorForce => Class::Forward,
        }
    }

    /// For inputs: how many values one object (actuator, dof, body, mocap body, equality) has.
    pub fn input_width(self) -> Option<usize> {
        use Field::*;
        match self {
            Ctrl | QfrcApplied | EqActive => Some(1),
            MocapPos => Some(3),
            MocapQuat => Some(4),
            XfrcApplied => Some(6),
            _ => None,
        }
    }

    /// Number of doubles this field has for a model.
    pub fn len(self, d: &Dims) -> usize {
        use Field::*;
        let n = match self {
            Qpos => d.nq,
            Qvel | Qacc | QfrcApplied => d.nv,
            Act => d.na,
            Ctrl | ActuatorForce => d.nu,
            Sensordata => d.nsensordata,
            Xpos => 3 * d.nbody,
            Xquat => 4 * d.nbody,
            Xmat => 9 * d.nbody,
            SiteXpos => 3 * d.nsite,
            SiteXmat => 9 * d.nsite,
            GeomXpos => 3 * d.ngeom,
            GeomXmat => 9 * d.ngeom,
            MocapPos => 3 * d.nmocap,
            MocapQuat => 4 * d.nmocap,
            XfrcApplied => 6 * d.nbody,
            EqActive => d.neq,
            Userdata => d.nuserdata,
        };
        n.max(0) as usize
    }

    /// The field exists on the running engine (`eq_active` is in mjData from MuJoCo 3.0).
    pub fn available(self) -> bool {
        self != Field::EqActive || super::engine().has_eq_active_state
    }
}

/// Where each field of one mjData lives. Valid while the data lives (mjData arrays are
/// allocated once by mj_makeData and never move).
pub(super) struct FieldTable {
    ptr: [*mut f64; FIELD_COUNT],
    len: [usize; FIELD_COUNT],
    eq_active: *mut u8,
    /// `mjData.time` (read at every frame publication: kept here rather than asked again).
    time: *mut f64,
}

impl FieldTable {
    /// # Safety
    /// `m` and `d` are a live model and a data made for it.
    pub(super) unsafe fn of(m: *const MjModel, d: *mut MjData) -> FieldTable {
        let mut t = FieldTable {
            ptr: [std::ptr::null_mut(); FIELD_COUNT],
            len: [0; FIELD_COUNT],
            eq_active: mjb_shim_eq_active(d),
            time: shim_fields(d).time,
        };
        let (mut name, mut ptr, mut len): (*const c_char, *mut f64, i64) =
            (std::ptr::null(), std::ptr::null_mut(), 0);
        let count = mjb_shim_field(m, d, -1, &mut name, &mut ptr, &mut len);
        assert_eq!(
            count as usize, FIELD_COUNT,
            "shim and Rust field tables differ"
        );
        for &f in Field::ALL {
            mjb_shim_field(m, d, f as c_int, &mut name, &mut ptr, &mut len);
            let n = CStr::from_ptr(name).to_str().unwrap_or("");
            assert_eq!(n, f.name(), "shim field {} is out of order", f as i32);
            t.ptr[f.index()] = ptr;
            t.len[f.index()] = len.max(0) as usize;
        }
        t
    }

    /// `mjData.time`.
    pub(super) fn time(&self) -> f64 {
        // SAFETY: a member of the live data this table was made for.
        unsafe { *self.time }
    }

    fn slice(&self, f: Field) -> &[f64] {
        let (p, n) = (self.ptr[f.index()], self.len[f.index()]);
        if p.is_null() || n == 0 {
            return &[];
        }
        // SAFETY: a live mjData array of n doubles; callers reach it through the owner.
        unsafe { std::slice::from_raw_parts(p, n) }
    }

    #[allow(clippy::mut_from_ref)]
    fn slice_mut(&self, f: Field) -> &mut [f64] {
        let (p, n) = (self.ptr[f.index()], self.len[f.index()]);
        if p.is_null() || n == 0 {
            return &mut [];
        }
        // SAFETY: as above; the owner hands it out only through `&mut Mujoco`.
        unsafe { std::slice::from_raw_parts_mut(p, n) }
    }
}

/// A second mjData of the same model, for kinematics that must not touch the owned data.
pub(super) struct Scratch {
    d: NonNull<MjData>,
    table: FieldTable,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // SAFETY: the scratch data is ours alone.
        unsafe { mjb_shim_delete(std::ptr::null_mut(), self.d.as_ptr()) };
    }
}

impl Mujoco {
    /// The field's values in the owned data (`[]` for a field this engine lacks; `eq_active`
    /// has no double array: use [`Mujoco::eq_active`]).
    pub fn field(&self, f: Field) -> &[f64] {
        self.table.slice(f)
    }

    /// Writable access to an input or state field of the owned data.
    pub fn field_mut(&mut self, f: Field) -> &mut [f64] {
        self.inputs_written();
        self.table.slice_mut(f)
    }

    /// `eq_active` of the owned data, None before MuJoCo 3.0.
    pub fn eq_active(&self) -> Option<&[u8]> {
        let (p, n) = (self.table.eq_active, self.dims.neq.max(0) as usize);
        // SAFETY: mjData.eq_active holds neq one-byte values (`eq_active_size` is 1).
        (!p.is_null()).then(|| {
            if n == 0 {
                &[][..]
            } else {
                unsafe { std::slice::from_raw_parts(p, n) }
            }
        })
    }

    pub fn eq_active_mut(&mut self) -> Option<&mut [u8]> {
        self.inputs_written();
        let (p, n) = (self.table.eq_active, self.dims.neq.max(0) as usize);
        // SAFETY: as above, through `&mut self`.
        (!p.is_null()).then(|| {
            if n == 0 {
                &mut [][..]
            } else {
                unsafe { std::slice::from_raw_parts_mut(p, n) }
            }
        })
    }

    /// Allocate the scratch data once (at open or model replacement, never on the step path).
    pub fn prepare_scratch(&mut self) -> Result<(), NativeError> {
        if self.scratch.is_some() {
            return Ok(());
        }
        let mut msg = msg_buf();
        let mut d: *mut MjData = std::ptr::null_mut();
        // SAFETY: valid model.
        let code = unsafe { mjb_shim_make_data(self.m.as_ptr(), &mut d, msg.as_mut_ptr()) };
        status(code, &msg)?;
        let d = NonNull::new(d).expect("make_data succeeded");
        // SAFETY: a live data made for this model.
        let table = unsafe { FieldTable::of(self.m.as_ptr(), d.as_ptr()) };
        self.scratch = Some(Scratch { d, table });
        Ok(())
    }

    /// Kinematics of the owned data's current state, computed on the scratch data: the owned
    /// data is only read (time, qpos, mocap pose), no callback runs.
    pub fn kinematics_on_scratch(&mut self) -> Result<(), NativeError> {
        self.prepare_scratch()?;
        let s = self.scratch.as_ref().expect("prepared");
        let mut msg = msg_buf();
        // SAFETY: live model, owned data and scratch data of the same model.
        let code = unsafe {
            mjb_shim_kinematics(
                self.m.as_ptr(),
                self.d.as_ptr(),
                s.d.as_ptr(),
                msg.as_mut_ptr(),
            )
        };
        status(code, &msg)
    }

    /// The scratch data's values of a field (after [`Mujoco::kinematics_on_scratch`]).
    pub fn scratch_field(&self, f: Field) -> &[f64] {
        self.scratch.as_ref().map_or(&[], |s| s.table.slice(f))
    }

    /// The names and slices of this model's objects.
    pub fn catalog(&self) -> Catalog {
        let m = self.m.as_ptr();
        let d = &self.dims;
        let names = |kind: ObjectKind, n: i64| -> Vec<Option<String>> {
            (0..n.max(0) as c_int)
                .map(|i| {
                    // SAFETY: valid model, id in range; the name is a string of the model.
                    let p = unsafe { mjb_shim_name(m, kind as c_int, i) };
                    (!p.is_null())
                        .then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
                })
                .collect()
        };
        let body = names(ObjectKind::Body, d.nbody);
        let mut mocap_body = vec![0usize; d.nmocap.max(0) as usize];
        for b in 0..d.nbody.max(0) as c_int {
            // SAFETY: valid model, body in range.
            let id = unsafe { mjb_shim_body_mocapid(m, b) };
            if id >= 0 && (id as usize) < mocap_body.len() {
                mocap_body[id as usize] = b as usize;
            }
        }
        let sensor_slices = (0..d.nsensor.max(0) as c_int)
            .map(|i| {
                let (mut adr, mut dim) = (0i64, 0i64);
                // SAFETY: valid model, sensor in range.
                unsafe { mjb_shim_sensor_slice(m, i, &mut adr, &mut dim) };
                (adr.max(0) as usize, dim.max(0) as usize)
            })
            .collect();
        let joint_slices = (0..d.njnt.max(0) as c_int)
            .map(|j| {
                let (mut qa, mut nq, mut da, mut nv) = (0i64, 0i64, 0i64, 0i64);
                // SAFETY: valid model, joint in range.
                unsafe { mjb_shim_joint_slice(m, j, &mut qa, &mut nq, &mut da, &mut nv) };
                [qa, nq, da, nv].map(|x| x.max(0) as usize)
            })
            .collect();
        let mut lists = vec![
            body.clone(),
            names(ObjectKind::Joint, d.njnt),
            names(ObjectKind::Geom, d.ngeom),
            names(ObjectKind::Site, d.nsite),
            names(ObjectKind::Actuator, d.nu),
            names(ObjectKind::Sensor, d.nsensor),
            names(ObjectKind::Equality, d.neq),
        ];
        lists.push(mocap_body.iter().map(|&b| body[b].clone()).collect());
        Catalog::new(lists, sensor_slices, joint_slices)
    }
}

abi_enum! {
    /// The kinds of object the name API knows (`mjb_object_kind` in C, the same values).
    pub enum ObjectKind {
        Body = "body",
        Joint = "joint",
        Geom = "geom",
        Site = "site",
        Actuator = "actuator",
        Sensor = "sensor",
        Equality = "equality",
        Mocap = "mocap body",
    }
}

/// Names of a model's objects, read once per model (open and replacement), so lookups need
/// neither the native lock nor a native call.
#[derive(Debug, Default)]
pub struct Catalog {
    /// Per kind (index = kind value): the name of each id, None when unnamed.
    names: Vec<Vec<Option<String>>>,
    index: Vec<HashMap<String, usize>>,
    /// Per sensor: (address in sensordata, dimension).
    pub sensor_slices: Vec<(usize, usize)>,
    /// Per joint: [qpos address, qpos width, dof address, dof width].
    pub joint_slices: Vec<[usize; 4]>,
}

impl Catalog {
    fn new(
        names: Vec<Vec<Option<String>>>,
        sensor_slices: Vec<(usize, usize)>,
        joint_slices: Vec<[usize; 4]>,
    ) -> Catalog {
        let index = names
            .iter()
            .map(|list| {
                let mut h = HashMap::new();
                for (i, n) in list.iter().enumerate() {
                    if let Some(n) = n {
                        // mj_name2id answers the first object of that name.
                        h.entry(n.clone()).or_insert(i);
                    }
                }
                h
            })
            .collect();
        Catalog {
            names,
            index,
            sensor_slices,
            joint_slices,
        }
    }

    /// `mj_name2id` for a kind: the id, or None when no object of that kind has the name.
    pub fn id(&self, kind: ObjectKind, name: &str) -> Option<usize> {
        self.index.get(kind as usize)?.get(name).copied()
    }

    /// Number of objects of a kind.
    pub fn count(&self, kind: ObjectKind) -> usize {
        self.names.get(kind as usize).map_or(0, Vec::len)
    }

    /// `mj_id2name`: Some(None) for an unnamed object, None for an id out of range.
    pub fn name(&self, kind: ObjectKind, id: usize) -> Option<Option<&str>> {
        self.names.get(kind as usize)?.get(id).map(|n| n.as_deref())
    }

    // The host surface's questions, with their refusals.

    /// The id of the object of `kind` named `name` (the first, as `mj_name2id`).
    pub fn lookup(&self, kind: ObjectKind, name: &str) -> Result<usize, Refusal> {
        self.id(kind, name).ok_or_else(|| {
            Refusal::rejected(
                Reason::UnknownName,
                format!("no {} is named {name:?}", kind.name()),
            )
        })
    }

    /// The name of object `id` of `kind` (empty when unnamed).
    pub fn name_of(&self, kind: ObjectKind, id: i32) -> Result<&str, Refusal> {
        usize::try_from(id)
            .ok()
            .and_then(|i| self.name(kind, i))
            .map(|n| n.unwrap_or(""))
            .ok_or_else(|| {
                out_of_range(format!(
                    "{} id {id} is out of range (the model has {})",
                    kind.name(),
                    self.count(kind)
                ))
            })
    }

    /// Where sensor `id`'s values sit in `sensordata`: (address, dimension).
    pub fn sensor(&self, id: i32) -> Result<(usize, usize), Refusal> {
        let s = &self.sensor_slices;
        usize::try_from(id)
            .ok()
            .and_then(|i| s.get(i).copied())
            .ok_or_else(|| {
                out_of_range(format!(
                    "sensor {id} is out of range (the model has {})",
                    s.len()
                ))
            })
    }

    /// Where joint `id`'s values sit: [qpos address, qpos width, dof address, dof width].
    pub fn joint(&self, id: i32) -> Result<[usize; 4], Refusal> {
        let s = &self.joint_slices;
        usize::try_from(id)
            .ok()
            .and_then(|i| s.get(i).copied())
            .ok_or_else(|| {
                out_of_range(format!(
                    "joint {id} is out of range (the model has {})",
                    s.len()
                ))
            })
    }
}

fn out_of_range(message: String) -> Refusal {
    Refusal::rejected(Reason::OutOfRange, message)
}
