//! Exports of the library itself: library-owned strings, the thread's last error, the names
//! of outcomes and reasons, the version and build information, and (fault-injection builds
//! only) the test hook.

use super::boundary::{call, guard};
use super::enums::{mjb_outcome, mjb_reason};
use super::handle;
use super::last_error;
use super::pointer::out_param;
use super::string::{self, mjb_string};
#[cfg(feature = "fault-injection")]
use super::types::mjb_endpoint;
use crate::outcome::Outcome;
#[cfg(any(test, feature = "fault-injection"))]
use crate::outcome::Reason;
#[cfg(feature = "fault-injection")]
use crate::outcome::Refusal;
use std::os::raw::c_char;

/// The bytes of a library-owned string (NUL-terminated UTF-8), valid until it is freed.
/// NULL, freed or foreign strings give NULL.
#[no_mangle]
pub extern "C" fn mjb_string_data(s: *const mjb_string) -> *const c_char {
    guard(std::ptr::null(), || {
        string::bytes(s).map_or(std::ptr::null(), |(p, _)| p.cast::<c_char>())
    })
}

/// The length in bytes of a library-owned string, without its NUL. NULL, freed or foreign
/// strings give 0.
#[no_mangle]
pub extern "C" fn mjb_string_len(s: *const mjb_string) -> usize {
    guard(0, || string::bytes(s).map_or(0, |(_, n)| n - 1))
}

/// Free a library-owned string. NULL is a no-op (`MJB_OK`); a string freed before, or not made
/// by this library, returns `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "C" fn mjb_string_free(s: *mut mjb_string) -> mjb_outcome {
    call(|| {
        handle::free(s)?;
        Ok(Outcome::Ok)
    })
}

/// Describe this thread's most recent call (every function returning an `mjb_outcome` but this
/// one), as a JSON object `{"outcome","reason","pointer","message"}` (pointer is an RFC 6901
/// JSON pointer or null): its refusal, or the reason an `MJB_OK` came with (a step halted at a
/// stop, an engine reset), or `{}` after a plain success.
///
/// `needed` (nullable) receives the size including the NUL. When `buf` is not NULL and `cap`
/// is at least that, the text is copied and `MJB_OK` returned; otherwise nothing is copied and
/// `MJB_REJECTED` (`MJB_REASON_TOO_LARGE`) is returned. With no error recorded the text is
/// `{}`. Does not change the recorded error. Takes no lock.
#[no_mangle]
pub unsafe extern "C" fn mjb_last_error(
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
) -> mjb_outcome {
    guard(mjb_outcome::MJB_PANIC, || {
        let text = last_error::text();
        let size = text.len() + 1;
        if !needed.is_null() {
            needed.write(size);
        }
        if buf.is_null() || cap < size {
            return mjb_outcome::MJB_REJECTED;
        }
        std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), text.len());
        buf.add(text.len()).write(0);
        mjb_outcome::MJB_OK
    })
}

/// The name of an outcome value (`"MJB_OK"`, ...), or `"MJB_OUTCOME_UNKNOWN_VALUE"`. Static
/// string: do not free.
#[no_mangle]
pub extern "C" fn mjb_outcome_name(outcome: i32) -> *const c_char {
    static_name(
        mjb_outcome::from_i32(outcome).map(|o| o.name()),
        "MJB_OUTCOME_UNKNOWN_VALUE",
    )
}

/// The name of a reason value (`"MJB_REASON_BUSY"`, ...), or `"MJB_REASON_UNKNOWN_VALUE"`.
/// Static string: do not free.
#[no_mangle]
pub extern "C" fn mjb_reason_name(reason: i32) -> *const c_char {
    static_name(
        mjb_reason::from_i32(reason).map(|r| r.name()),
        "MJB_REASON_UNKNOWN_VALUE",
    )
}

fn static_name(name: Option<&'static str>, fallback: &'static str) -> *const c_char {
    use std::collections::BTreeMap;
    use std::ffi::CString;
    use std::sync::OnceLock;
    // Names are Rust &str without NUL; keep one C copy of each for the process lifetime.
    static NAMES: OnceLock<BTreeMap<&'static str, CString>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        mjb_outcome::ALL
            .iter()
            .map(|o| o.name())
            .chain(mjb_reason::ALL.iter().map(|r| r.name()))
            .chain(["MJB_OUTCOME_UNKNOWN_VALUE", "MJB_REASON_UNKNOWN_VALUE"])
            .map(|n| (n, CString::new(n).expect("no NUL")))
            .collect()
    });
    names[name.unwrap_or(fallback)].as_ptr()
}

/// The bridge's version (for example `"0.2.0"`, from Cargo.toml). Static string: do not free.
#[no_mangle]
pub extern "C" fn mjb_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// Which MuJoCo the bridge was built against and which it runs with, and how it was built, as
/// a JSON object with the members `bridge`, `engine_header_version`, `engine_runtime_version`,
/// `engine`, `engine_source`, `engine_library`, `integration_profile`, `engine_origin`,
/// `engine_wheel`, `engine_wheel_sha256`, `target`, `build_profile`, `install_build` and
/// `fault_injection`. `engine_source` says where MuJoCo came from (the pinned wheel with its
/// SHA-256, `MUJOCO_DIR`, the `MUJOCO_INCLUDE_DIR` and `MUJOCO_LIB_DIR` pair, or
/// `pkg-config mujoco`), `engine_origin` is that kind alone and `engine_library` the file name
/// of the library linked; no value names a folder of the build machine. `out_string`: must not
/// be NULL; the caller frees the result with `mjb_string_free`.
#[no_mangle]
pub unsafe extern "C" fn mjb_build_info(out_string: *mut *mut mjb_string) -> mjb_outcome {
    call(|| {
        let out = out_param(out_string, std::ptr::null_mut(), "out_string")?;
        *out = string::new_string(crate::build_info())?;
        Ok(Outcome::Ok)
    })
}

/// Test builds only (cargo feature `fault-injection`): arm a one-shot native fault on the
/// endpoint's real MuJoCo pair. `fault`: 1 setter raises after writing, 2 setter completes
/// unexpectedly, 3 readback mismatch, 4 rollback unproven, 5 step raises, 6 panic in the next
/// step, 7 the next step silently moves `qpos[0]`, 8 the next state read raises, 9 the first
/// state read after the next step raises, 10 the third step from now raises. Takes the native
/// lock (waits).
#[cfg(feature = "fault-injection")]
#[no_mangle]
pub extern "C" fn mjb_test_inject_fault(ep: *mut mjb_endpoint, fault: i32) -> mjb_outcome {
    call(|| {
        let f = crate::native::Fault::from_i32(fault).ok_or_else(|| {
            Refusal::new(
                Outcome::InvalidArgument,
                Reason::OutOfRange,
                format!("no fault {fault}"),
            )
        })?;
        super::boundary::on_endpoint(ep, |e| e.arm_fault(f, crate::endpoint::WAIT_FOREVER))?;
        Ok(Outcome::Ok)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason() -> Option<Reason> {
        last_error::get().map(|e| e.reason)
    }

    #[test]
    fn a_string_freed_twice_is_closed_and_a_foreign_one_is_foreign_never_ub() {
        let s = string::new_string("{\"a\":1}".into()).unwrap();
        assert_eq!(mjb_string_len(s), 7);
        assert_eq!(mjb_string_free(s), Outcome::Ok);
        assert_eq!(reason(), None);
        assert_eq!(mjb_string_free(s), Outcome::InvalidArgument);
        assert_eq!(reason(), Some(Reason::Closed));
        assert!(mjb_string_data(s).is_null(), "a freed string has no bytes");
        assert_eq!(mjb_string_len(s), 0);
        let mut local = 0u64;
        let foreign = (&mut local as *mut u64).cast::<mjb_string>();
        assert_eq!(mjb_string_free(foreign), Outcome::InvalidArgument);
        assert_eq!(reason(), Some(Reason::ForeignHandle));
        assert!(mjb_string_data(foreign).is_null());
        assert_eq!(local, 0, "nothing was written through it");
        assert_eq!(mjb_string_free(std::ptr::null_mut()), Outcome::Ok);
    }
}
