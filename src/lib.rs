//! mjbridge: checkpoint and restore a MuJoCo simulation through a safe C ABI.
//!
//! The contract in ten lines:
//! - An endpoint owns one MuJoCo model/data pair, its tick, a native lock, a stop latch and a
//!   fence ([`endpoint`], [`safety`]).
//! - Every input document is strict JSON validated in pure Rust before any native state is
//!   touched ([`checkpoint`]); refusals carry a stable reason and a JSON pointer.
//! - `mujoco_integration_v1` checkpoints hold the complete `mjSTATE_INTEGRATION` vector; a
//!   restore is verified by bitwise readback and never calls `mj_forward`.
//! - Outcomes are explicit: rejected (nothing changed), rolled back (proven), unknown (fenced).
//! - `mjb_stop` latches from any thread without the native lock ([`safety`]).
//! - The world document and its JCS state hash cover the checkpoint ([`world`]).
//! - MuJoCo is reached only through a small C shim with setjmp-guarded calls ([`native`]).
//! - The C ABI lives in [`ffi`]: one panic boundary, checked handles, library-owned strings.
//! - Hosts see the simulation through [`frame`]s (published under the lock, read without it,
//!   never torn) and drive it through typed [`inputs`]; [`host`] loads plugins and logs.

pub mod checkpoint;
pub mod config;
pub mod doc;
pub mod endpoint;
pub mod ffi;
pub mod frame;
pub mod host;
pub mod inputs;
pub mod log;
pub mod native;
pub mod outcome;
pub mod panics;
pub mod safety;
pub mod world;

/// Which MuJoCo the bridge was built against and runs with, as JSON.
pub fn build_info() -> String {
    use doc::{obj, Value};
    let e = native::engine();
    obj([
        ("bridge", env!("CARGO_PKG_VERSION").into()),
        ("engine_header_version", i64::from(e.header_version).into()),
        (
            "engine_runtime_version",
            i64::from(e.runtime_version).into(),
        ),
        ("engine", e.version_string.as_str().into()),
        ("engine_source", e.build_source.into()),
        ("engine_library", e.build_library.into()),
        ("integration_profile", Value::Bool(e.supports_integration())),
    ])
    .to_json()
}
