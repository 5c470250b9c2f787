//! The header's constants: limits the code enforces (each proven equal to the value it uses)
//! and the flags of `mjb_expect`.

/// `timeout_ms` value that waits for the native lock without a deadline.
// The cast is what makes cbindgen print `(uint32_t)UINT32_MAX`: a uint32_t in C too.
#[allow(clippy::unnecessary_cast)]
pub const MJB_WAIT_FOREVER: u32 = u32::MAX as u32;
/// At most this many values in a checkpoint's `values`.
pub const MJB_MAX_CHECKPOINT_VALUES: usize = 32768;
/// Input documents over this many bytes are refused before parsing.
pub const MJB_MAX_DOCUMENT_BYTES: usize = 1048576;

/// The largest `window_ticks` of an endpoint's `"history"` (a step's record is one hash: 8
/// bytes a tick).
pub const MJB_MAX_WINDOW_TICKS: u64 = 1000000;
/// The most keyframes a history window may need (`ceil(window_ticks / keyframe_every)`): what
/// bounds the memory of the full states kept.
pub const MJB_MAX_WINDOW_KEYFRAMES: u64 = 4096;
/// Deprecated: the name 0.4.0's header gave #MJB_MAX_WINDOW_TICKS (without the project's
/// prefix); kept, since the ABI only grows.
pub const MAX_WINDOW_TICKS: u64 = MJB_MAX_WINDOW_TICKS;
/// Deprecated: the name 0.4.0's header gave #MJB_MAX_WINDOW_KEYFRAMES; kept, since the ABI only
/// grows.
pub const MAX_WINDOW_KEYFRAMES: u64 = MJB_MAX_WINDOW_KEYFRAMES;

// The header's literals are the values the code uses.
const _: () = {
    assert!(MJB_WAIT_FOREVER == crate::endpoint::WAIT_FOREVER);
    assert!(MJB_MAX_CHECKPOINT_VALUES == crate::checkpoint::MAX_VALUES);
    assert!(MJB_MAX_DOCUMENT_BYTES == crate::doc::MAX_DOCUMENT_BYTES);
    assert!(MJB_MAX_WINDOW_TICKS == crate::config::MAX_WINDOW_TICKS);
    assert!(MJB_MAX_WINDOW_KEYFRAMES == crate::config::MAX_WINDOW_KEYFRAMES);
};

/// `mjb_expect.flags`: check the tick.
pub const MJB_EXPECT_TICK: u32 = 1;
/// `mjb_expect.flags`: check the model configuration.
pub const MJB_EXPECT_CONFIGURATION: u32 = 2;
/// `mjb_expect.flags`: check the last frame's publication number (nothing changed at all).
pub const MJB_EXPECT_FRAME: u32 = 4;
