//! mjbridge: checkpoint and restore a MuJoCo simulation through a safe C ABI.
//!
//! The contract in ten lines:
//! - An endpoint owns one MuJoCo model/data pair, its tick, a native lock, a stop latch and a
//!   fence ([`endpoint`]).
//! - Every input document is strict JSON validated in pure Rust before any native state is
//!   touched ([`doc`], [`checkpoint`], [`world`]); refusals carry a reason and a JSON pointer.
//! - `mujoco_integration_v1` checkpoints hold the complete `mjSTATE_INTEGRATION` vector; a
//!   restore is verified by bitwise readback and never calls `mj_forward`.
//! - Outcomes are explicit: rejected (nothing changed), rolled back (proven), unknown (fenced).
//! - `mjb_stop` latches from any thread without the native lock.
//! - The world document and its JCS state hash cover the checkpoint ([`world`]).
//! - MuJoCo is reached only through a small C shim with setjmp-guarded calls ([`native`]).
//! - The C ABI lives in [`ffi`]: one panic boundary, checked handles, library-owned strings.
//! - Hosts see the simulation through [`frame`]s (published under the lock, read without it,
//!   never torn) and drive it through typed inputs.
//!
//! The room map (every module, what it owns, which way the modules depend on each other, and
//! the walk of one restore through them) is `ARCHITECTURE.md` at the repository's root; the
//! contract in full is `docs/contract.md`.

/// `ALL`, `from_i32` and `name` for a `#[repr(i32)]` enum of the ABI. The enum itself is
/// written out in full (cbindgen reads it for the header; it does not expand macros); its
/// values run from 0 without gaps, which a test checks.
macro_rules! abi_enum {
    ($ty:ident { $($v:ident => $name:expr),* $(,)? }) => {
        impl $ty {
            /// Every value, in value order.
            pub const ALL: &'static [$ty] = &[$($ty::$v),*];

            pub fn from_i32(v: i32) -> Option<$ty> {
                usize::try_from(v)
                    .ok()
                    .and_then(|i| Self::ALL.get(i).copied())
                    .filter(|x| *x as i32 == v)
            }

            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$v => $name),*
                }
            }
        }
    };
    ($ty:ident { $($v:ident),* $(,)? }) => {
        abi_enum!($ty { $($v => stringify!($v)),* });
    };
}

pub mod checkpoint;
pub(crate) mod config;
pub mod conformance;
pub mod doc;
pub mod endpoint;
pub mod ffi;
pub mod frame;
pub(crate) mod host;
pub(crate) mod inputs;
pub(crate) mod log;
pub mod native;
pub mod outcome;
pub(crate) mod panics;
pub(crate) mod safety;
pub mod world;

pub use host::{load_plugin, load_plugin_dir};

/// Which MuJoCo the bridge was built against and runs with, and how it was built, as JSON.
/// Nothing in it names a folder of the build machine (a test and `scripts/repro_check.sh`
/// check): the engine's source is a kind, the pinned wheel's name and SHA-256 where it came
/// from one, and the library is its file name.
pub fn build_info() -> String {
    use doc::{obj, Value};
    let e = native::engine();
    let nonempty = |s: &'static str| {
        if s.is_empty() {
            Value::Null
        } else {
            s.into()
        }
    };
    obj([
        ("bridge", env!("CARGO_PKG_VERSION").into()),
        ("engine_header_version", i64::from(e.header_version).into()),
        (
            "engine_runtime_version",
            i64::from(e.runtime_version).into(),
        ),
        ("engine", e.version_string.as_str().into()),
        ("engine_source", env!("MJB_ENGINE_SOURCE").into()),
        ("engine_library", env!("MJB_ENGINE_LIBRARY_FILE").into()),
        ("integration_profile", Value::Bool(e.supports_integration())),
        ("engine_origin", env!("MJB_ENGINE_ORIGIN").into()),
        ("engine_wheel", nonempty(env!("MJB_ENGINE_WHEEL"))),
        (
            "engine_wheel_sha256",
            nonempty(env!("MJB_ENGINE_WHEEL_SHA256")),
        ),
        ("target", env!("MJB_BUILD_TARGET").into()),
        ("build_profile", env!("MJB_BUILD_PROFILE").into()),
        ("install_build", Value::Bool(cfg!(mjb_install_build))),
        (
            "fault_injection",
            Value::Bool(cfg!(feature = "fault-injection")),
        ),
    ])
    .to_json()
}

#[cfg(test)]
mod tests {
    /// Every ABI enum's values run from 0 without gaps (what `abi_enum!`'s `from_i32` relies
    /// on), and every name is distinct.
    #[test]
    fn abi_enums_are_dense_and_named_once() {
        fn check<T: Copy>(all: &[T], value: impl Fn(T) -> i32, name: impl Fn(T) -> &'static str) {
            let mut names = std::collections::BTreeSet::new();
            for (i, &v) in all.iter().enumerate() {
                assert_eq!(value(v), i as i32);
                assert!(names.insert(name(v)), "{} twice", name(v));
            }
        }
        use crate::outcome::{Outcome, Reason};
        use crate::{frame::Cause, host::Level, native::fields::Field, native::fields::Kind};
        check(Outcome::ALL, |v| v as i32, Outcome::name);
        check(Reason::ALL, |v| v as i32, Reason::name);
        check(Field::ALL, |v| v as i32, Field::name);
        check(Kind::ALL, |v| v as i32, Kind::name);
        check(Cause::ALL, |v| v as i32, Cause::name);
        check(Level::ALL, |v| v as i32, Level::name);
        assert_eq!(Field::from_i32(Field::ALL.len() as i32), None);
        assert_eq!(Reason::from_i32(-1), None);
    }
}
