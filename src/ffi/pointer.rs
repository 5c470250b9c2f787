//! The C arguments, checked once: NULL, slices, documents (UTF-8), NUL-terminated strings,
//! out-params (reset on entry) and a mutation's precondition. Exports translate their
//! pointers here; below `src/ffi/` the code sees typed values only.

use super::{mjb_expect, MJB_EXPECT_CONFIGURATION, MJB_EXPECT_FRAME, MJB_EXPECT_TICK};
use crate::endpoint::{Call, Expect};
use crate::outcome::{Outcome, Reason, Refusal};
use std::ffi::CStr;
use std::os::raw::c_char;

#[cold]
pub fn null_refusal(what: &str) -> Refusal {
    Refusal::new(
        Outcome::InvalidArgument,
        Reason::NullArgument,
        format!("{what} is NULL"),
    )
}

pub fn out_of_range(what: String) -> Refusal {
    Refusal::new(Outcome::InvalidArgument, Reason::OutOfRange, what)
}

/// Borrow `(ptr, n)` elements of `T`; NULL only with `n == 0`.
///
/// # Safety
/// `ptr` must be valid for reads of `n` elements for the duration of the call.
pub unsafe fn slice<'a, T>(ptr: *const T, n: usize, what: &str) -> Result<&'a [T], Refusal> {
    if n == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(null_refusal(what));
    }
    if n > isize::MAX as usize / std::mem::size_of::<T>().max(1) {
        return Err(out_of_range(format!(
            "{what}: {n} elements is larger than any array"
        )));
    }
    Ok(std::slice::from_raw_parts(ptr, n))
}

/// Borrow `(ptr, n)` elements of `T` for writing; NULL only with `n == 0`.
///
/// # Safety
/// `ptr` must be valid for reads and writes of `n` elements for the duration of the call.
pub unsafe fn slice_mut<'a, T>(ptr: *mut T, n: usize, what: &str) -> Result<&'a mut [T], Refusal> {
    if n == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(null_refusal(what));
    }
    if n > isize::MAX as usize / std::mem::size_of::<T>().max(1) {
        return Err(out_of_range(format!(
            "{what}: {n} elements is larger than any array"
        )));
    }
    Ok(std::slice::from_raw_parts_mut(ptr, n))
}

/// Borrow `(ptr, len)` as a document: NULL only with `len == 0`; bad UTF-8 is an invalid
/// argument (the document's size is checked where it is read).
///
/// # Safety
/// `ptr` must be valid for `len` bytes for the duration of the call.
pub unsafe fn utf8<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<&'a str, Refusal> {
    if ptr.is_null() && len != 0 {
        return Err(null_refusal(what));
    }
    if len > isize::MAX as usize {
        return Err(out_of_range(format!(
            "{what}: length {len} is larger than any buffer"
        )));
    }
    let b: &[u8] = if len == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(ptr.cast::<u8>(), len)
    };
    std::str::from_utf8(b).map_err(|e| {
        Refusal::new(
            Outcome::InvalidArgument,
            Reason::InvalidUtf8,
            format!("{what} is not UTF-8: {e}"),
        )
    })
}

/// A mutation's precondition: NULL is none; unknown flag bits are refused.
///
/// # Safety
/// `p` is NULL or valid for reads.
pub unsafe fn expect(p: *const mjb_expect) -> Result<Expect, Refusal> {
    let Some(e) = p.as_ref() else {
        return Ok(Default::default());
    };
    if e.flags & !(MJB_EXPECT_TICK | MJB_EXPECT_CONFIGURATION | MJB_EXPECT_FRAME) != 0 {
        return Err(out_of_range(format!(
            "mjb_expect.flags {:#x} has bits that are not MJB_EXPECT_TICK, MJB_EXPECT_CONFIGURATION or MJB_EXPECT_FRAME",
            e.flags
        )));
    }
    Ok(Expect {
        tick: (e.flags & MJB_EXPECT_TICK != 0).then_some(e.tick),
        configuration: (e.flags & MJB_EXPECT_CONFIGURATION != 0).then_some(e.configuration),
        frame: (e.flags & MJB_EXPECT_FRAME != 0).then_some(e.frame),
    })
}

/// A call's admission: its deadline and precondition.
///
/// # Safety
/// `p` is NULL or valid for reads.
pub unsafe fn admission(timeout_ms: u32, p: *const mjb_expect) -> Result<Call, Refusal> {
    Ok(Call {
        timeout_ms,
        expect: expect(p)?,
    })
}

/// A required NUL-terminated string (borrowed for the call).
///
/// # Safety
/// `ptr` is NULL or a valid NUL-terminated string.
pub unsafe fn c_str<'a>(ptr: *const c_char, what: &str) -> Result<&'a CStr, Refusal> {
    if ptr.is_null() {
        return Err(null_refusal(what));
    }
    Ok(CStr::from_ptr(ptr))
}

/// A required out-param: NULL is refused; otherwise it is reset to `empty` on entry.
///
/// # Safety
/// `p` is NULL or valid for writes.
pub unsafe fn out_param<'a, T>(p: *mut T, empty: T, what: &str) -> Result<&'a mut T, Refusal> {
    if p.is_null() {
        return Err(null_refusal(what));
    }
    p.write(empty);
    Ok(&mut *p)
}

/// A required out-param of a `repr(C)` type whose empty value is all zero bytes: NULL is
/// refused; otherwise it is zeroed on entry in place (no empty value built and copied: on
/// the hot reads this is the difference between a store and a stalled copy).
///
/// # Safety
/// `p` is NULL or valid for writes.
pub unsafe fn out_zeroed<'a, T: Zeroed>(p: *mut T, what: &str) -> Result<&'a mut T, Refusal> {
    if p.is_null() {
        return Err(null_refusal(what));
    }
    p.write_bytes(0, 1);
    Ok(&mut *p)
}

/// Out-param types whose empty value ([`Default`]) is all zero bytes, so they are reset on
/// entry with one in-place fill: building the empty value and copying it in costs a
/// store-forwarding stall on the hot calls (`mjb_safety_read` spent most of its time there).
///
/// # Safety
/// All-zero bytes are a valid value of the type, equal to its `Default`.
pub unsafe trait Zeroed: Default {}

// SAFETY: integers; repr(C) structs of integers, floats and bools (zero: 0, 0.0, false).
unsafe impl Zeroed for usize {}
unsafe impl Zeroed for super::mjb_report {}
unsafe impl Zeroed for super::mjb_read_info {}
unsafe impl Zeroed for super::mjb_frame_info {}
unsafe impl Zeroed for super::mjb_safety_state {}
unsafe impl Zeroed for super::mjb_model_dims {}
unsafe impl Zeroed for super::mjb_joint_adr {}

/// A nullable out-param, zeroed on entry (in place).
///
/// # Safety
/// `p` is NULL or valid for writes.
pub unsafe fn zeroed<'a, T: Zeroed>(p: *mut T) -> Option<&'a mut T> {
    if p.is_null() {
        return None;
    }
    p.write_bytes(0, 1);
    Some(&mut *p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zero_is_empty<T: Zeroed + PartialEq + std::fmt::Debug>() {
        let mut v = std::mem::MaybeUninit::<T>::uninit();
        // SAFETY: `v` is valid for writes; `Zeroed` says zero bytes are a valid `T`.
        let z = unsafe { zeroed(v.as_mut_ptr()).map(|r| std::ptr::read(r)) };
        assert_eq!(z, Some(T::default()), "{}", std::any::type_name::<T>());
    }

    #[test]
    fn zeroed_out_params_are_their_empty_values() {
        zero_is_empty::<usize>();
        zero_is_empty::<crate::ffi::mjb_report>();
        zero_is_empty::<crate::ffi::mjb_read_info>();
        zero_is_empty::<crate::ffi::mjb_frame_info>();
        zero_is_empty::<crate::ffi::mjb_safety_state>();
        zero_is_empty::<crate::ffi::mjb_model_dims>();
        zero_is_empty::<crate::ffi::mjb_joint_adr>();
        assert!(unsafe { zeroed::<usize>(std::ptr::null_mut()) }.is_none());
    }
}
