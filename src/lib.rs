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

/// The ABI's enums, written once. Two forms, one per side of the boundary:
///
/// - `abi_enum! { pub enum Field { Qpos = "qpos", ... } }` defines a domain enum: the crate's
///   own type, with idiomatic variant names, its values in declaration order from 0 (the ABI's
///   values), `ALL`, the checked conversion from a C integer (`from_i32`, `TryFrom<i32>`) and
///   each value's `name`.
/// - `abi_enum!(mjb_field <=> Field { MJB_FIELD_QPOS <=> Qpos, ... })`, in `src/ffi/enums.rs`
///   after the C enum, pairs the two: `ALL`, `from_i32` and `name` (the C spelling) of the C
///   enum, `From` both ways, and compile-time proof that every pair has one value (so a
///   conversion costs nothing) and that the C values run from 0 without gaps.
///
/// The C enum itself is written out in `src/ffi/enums.rs`: cbindgen reads it for the header
/// and does not expand macros.
///
/// The rule for every ABI enum, stated here once: values run from 0 without gaps; a value is
/// never renumbered, removed or reused; a new value is appended after the last. A value that
/// is retired keeps its place: its variant stays, its comment saying it is retired and reserved
/// (what the header's "a retired value stays reserved here as a comment" means), so no gap
/// ever opens. The compiler checks the density (`abi_enum!`'s second form),
/// `scripts/abi_check.sh` the rest against the released headers.
macro_rules! abi_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $ty:ident {
            $($(#[$vmeta:meta])* $v:ident = $name:literal),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $ty {
            $($(#[$vmeta])* $v),*
        }

        impl $ty {
            /// Every value, in value order.
            pub const ALL: &'static [$ty] = &[$($ty::$v),*];

            /// The value `v` names in C, or None.
            pub const fn from_i32(v: i32) -> Option<$ty> {
                if v >= 0 && (v as usize) < Self::ALL.len() {
                    Some(Self::ALL[v as usize])
                } else {
                    None
                }
            }

            pub const fn name(self) -> &'static str {
                match self {
                    $($ty::$v => $name),*
                }
            }
        }

        impl TryFrom<i32> for $ty {
            /// The integer, which names no value.
            type Error = i32;

            fn try_from(v: i32) -> Result<$ty, i32> {
                $ty::from_i32(v).ok_or(v)
            }
        }
    };
    ($c:ident <=> $ty:ident { $($cv:ident <=> $v:ident),* $(,)? }) => {
        impl $c {
            /// Every value, in value order.
            pub const ALL: &'static [$c] = &[$($c::$cv),*];

            /// The value `v` names, or None.
            pub const fn from_i32(v: i32) -> Option<$c> {
                if v >= 0 && (v as usize) < Self::ALL.len() {
                    Some(Self::ALL[v as usize])
                } else {
                    None
                }
            }

            /// The C spelling (`MJB_...`).
            pub const fn name(self) -> &'static str {
                match self {
                    $($c::$cv => stringify!($cv)),*
                }
            }
        }

        impl From<$ty> for $c {
            fn from(v: $ty) -> $c {
                match v {
                    $($ty::$v => $c::$cv),*
                }
            }
        }

        impl From<$c> for $ty {
            fn from(v: $c) -> $ty {
                match v {
                    $($c::$cv => $ty::$v),*
                }
            }
        }

        // A C value compares with its domain value (hosts' tests check exports' results).
        impl PartialEq<$ty> for $c {
            fn eq(&self, other: &$ty) -> bool {
                *self as i32 == *other as i32
            }
        }

        impl PartialEq<$c> for $ty {
            fn eq(&self, other: &$c) -> bool {
                *self as i32 == *other as i32
            }
        }

        const _: () = {
            // Each pair is one value, so both conversions compile to nothing.
            $(assert!($ty::$v as i32 == $c::$cv as i32);)*
            // The C values run from 0 without gaps (the domain's do by construction).
            let mut i = 0;
            while i < $c::ALL.len() {
                assert!($c::ALL[i] as i32 == i as i32);
                i += 1;
            }
            assert!($c::ALL.len() == $ty::ALL.len());
        };
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
pub mod recording;
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
    /// Every ABI enum's names are distinct on both sides, `from_i32` answers exactly the
    /// values (nothing below 0 or past the last), and a value crosses the boundary and back
    /// unchanged. (That the values are dense and each pair one value, the compiler checks:
    /// `abi_enum!`.)
    #[test]
    fn abi_enums_round_trip_and_are_named_once() {
        fn check<D, C>(
            domain: &[D],
            c: &[C],
            d_name: impl Fn(D) -> &'static str,
            c_name: impl Fn(C) -> &'static str,
            from_i32: impl Fn(i32) -> Option<D>,
        ) where
            D: Copy + PartialEq + std::fmt::Debug + Into<C> + TryFrom<i32, Error = i32>,
            C: Copy + PartialEq + std::fmt::Debug + Into<D>,
        {
            let (mut names, mut c_names) = (std::collections::BTreeSet::new(), Vec::new());
            for (i, &v) in domain.iter().enumerate() {
                assert!(names.insert(d_name(v)), "{} twice", d_name(v));
                let c_name = c_name(v.into());
                assert!(!c_names.contains(&c_name), "{c_name} twice");
                c_names.push(c_name);
                assert_eq!(c[i], v.into());
                assert_eq!(c[i].into(), v);
                assert_eq!(from_i32(i as i32), Some(v));
                assert_eq!(D::try_from(i as i32), Ok(v));
            }
            let past = domain.len() as i32;
            for bad in [-1, past, i32::MIN, i32::MAX] {
                assert_eq!(from_i32(bad), None);
                assert_eq!(D::try_from(bad), Err(bad));
            }
        }
        use crate::ffi::*;
        use crate::native::fields::{Field, ObjectKind};
        use crate::outcome::{Outcome, Reason};
        use crate::{frame::Cause, host::Level};
        #[rustfmt::skip]
        let () = {
            check(Outcome::ALL, mjb_outcome::ALL, Outcome::name, mjb_outcome::name, Outcome::from_i32);
            check(Reason::ALL, mjb_reason::ALL, Reason::name, mjb_reason::name, Reason::from_i32);
            check(Field::ALL, mjb_field::ALL, Field::name, mjb_field::name, Field::from_i32);
            check(ObjectKind::ALL, mjb_object_kind::ALL, ObjectKind::name, mjb_object_kind::name, ObjectKind::from_i32);
            check(Cause::ALL, mjb_frame_cause::ALL, Cause::name, mjb_frame_cause::name, Cause::from_i32);
            check(Level::ALL, mjb_log_level::ALL, Level::name, mjb_log_level::name, Level::from_i32);
        };
    }
}
