//! Declarations of `csrc/shim.h`. Only `native::mujoco` calls these.

use std::os::raw::{c_char, c_int};

#[repr(C)]
pub struct MjModel {
    _private: [u8; 0],
}
#[repr(C)]
pub struct MjData {
    _private: [u8; 0],
}

pub const SHIM_OK: c_int = 0;
pub const SHIM_ENGINE_ERROR: c_int = 1;
pub const SHIM_FAILED: c_int = 2;
pub const SHIM_UNSUPPORTED: c_int = 3;
pub const MSG_CAP: usize = 1024;

#[repr(C)]
pub struct ShimEngine {
    pub header_version: c_int,
    pub runtime_version: c_int,
    pub version_string: *const c_char,
    pub has_state_api: c_int,
    pub has_eq_active_state: c_int,
    pub sig_integration: u32,
    pub eq_active_size: c_int,
    pub eq_active_in_model: c_int,
    pub sig_user: u32,
}

#[repr(C)]
pub struct ShimFields {
    pub time: *mut f64,
    pub qpos: *mut f64,
    pub qvel: *mut f64,
    pub act: *mut f64,
    pub ctrl: *mut f64,
}

#[repr(C)]
#[derive(Default, Clone, Copy, PartialEq, Eq, Debug)]
pub struct ShimWarnings {
    pub badqpos: i64,
    pub badqvel: i64,
    pub badqacc: i64,
}

#[repr(C)]
#[derive(Default, Clone, Copy, Debug)]
pub struct ShimHistoryBuffer {
    pub kind: i32,
    pub id: i32,
    pub adr: i64,
    pub nsample: i64,
    pub dim: i64,
}

extern "C" {
    pub fn mjb_shim_history_buffers(
        m: *const MjModel,
        out: *mut ShimHistoryBuffer,
        cap: c_int,
    ) -> c_int;
    pub fn mjb_shim_engine_info(out: *mut ShimEngine);
    pub fn mjb_shim_state_component(i: c_int, name: *mut *const c_char, mask: *mut u32) -> c_int;
    pub fn mjb_shim_install_error_handler();
    pub fn mjb_shim_load_xml_path(
        path: *const c_char,
        out: *mut *mut MjModel,
        msg: *mut c_char,
    ) -> c_int;
    pub fn mjb_shim_load_xml_string(
        xml: *const c_char,
        len: usize,
        out: *mut *mut MjModel,
        msg: *mut c_char,
    ) -> c_int;
    pub fn mjb_shim_make_data(m: *const MjModel, out: *mut *mut MjData, msg: *mut c_char) -> c_int;
    pub fn mjb_shim_reset(m: *const MjModel, d: *mut MjData, msg: *mut c_char) -> c_int;
    pub fn mjb_shim_step_counted(
        m: *const MjModel,
        d: *mut MjData,
        msg: *mut c_char,
        resets: *mut ShimWarnings,
    ) -> c_int;
    pub fn mjb_shim_state_source(
        d: *mut MjData,
        mask: u32,
        ptr: *mut *mut std::ffi::c_void,
    ) -> c_int;
    pub fn mjb_shim_data_buffer(
        d: *const MjData,
        ptr: *mut *const std::ffi::c_void,
        bytes: *mut usize,
    );
    pub fn mjb_shim_state_size(
        m: *const MjModel,
        sig: u32,
        out: *mut c_int,
        msg: *mut c_char,
    ) -> c_int;
    pub fn mjb_shim_get_state(
        m: *const MjModel,
        d: *const MjData,
        state: *mut f64,
        sig: u32,
        msg: *mut c_char,
    ) -> c_int;
    pub fn mjb_shim_set_state(
        m: *const MjModel,
        d: *mut MjData,
        state: *const f64,
        sig: u32,
        msg: *mut c_char,
    ) -> c_int;
    #[cfg(feature = "fault-injection")]
    pub fn mjb_shim_raise(text: *const c_char, msg: *mut c_char) -> c_int;
    pub fn mjb_shim_delete(m: *mut MjModel, d: *mut MjData);
    pub fn mjb_shim_dims_of(m: *const MjModel, out: *mut super::Dims);
    pub fn mjb_shim_fields_of(d: *mut MjData, out: *mut ShimFields);
    pub fn mjb_shim_warnings_of(d: *const MjData, out: *mut ShimWarnings);
    pub fn mjb_shim_clear_reset_warnings(d: *mut MjData);

    pub fn mjb_shim_field(
        m: *const MjModel,
        d: *mut MjData,
        i: c_int,
        name: *mut *const c_char,
        ptr: *mut *mut f64,
        len: *mut i64,
    ) -> c_int;
    pub fn mjb_shim_eq_active(d: *mut MjData) -> *mut u8;
    pub fn mjb_shim_kinematics(
        m: *const MjModel,
        src: *const MjData,
        scratch: *mut MjData,
        msg: *mut c_char,
    ) -> c_int;
    pub fn mjb_shim_name(m: *const MjModel, kind: c_int, id: c_int) -> *const c_char;
    pub fn mjb_shim_body_mocapid(m: *const MjModel, body: c_int) -> c_int;
    pub fn mjb_shim_sensor_slice(m: *const MjModel, i: c_int, adr: *mut i64, dim: *mut i64);
    pub fn mjb_shim_joint_slice(
        m: *const MjModel,
        j: c_int,
        qposadr: *mut i64,
        nq: *mut i64,
        dofadr: *mut i64,
        nv: *mut i64,
    );
    pub fn mjb_shim_plugin_load(
        path: *const c_char,
        plugins: *mut c_int,
        msg: *mut c_char,
    ) -> c_int;
    pub fn mjb_shim_plugin_load_dir(
        dir: *const c_char,
        libraries: *mut c_int,
        plugins: *mut c_int,
        msg: *mut c_char,
    ) -> c_int;
    pub fn mjb_shim_model_size(m: *const MjModel) -> i64;
    pub fn mjb_shim_save_model(
        m: *const MjModel,
        buf: *mut u8,
        cap: i64,
        written: *mut i64,
        msg: *mut c_char,
    ) -> c_int;
    pub fn mjb_shim_set_log_sink(sink: Option<unsafe extern "C" fn(c_int, *const c_char)>);
}
