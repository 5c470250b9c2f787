//! The C ABI, and nothing else: every function here is a thin export that runs its body in
//! the `boundary` (the only `catch_unwind`), translates its C arguments (`pointer`) and
//! handles (`handle`), and calls safe Rust below. The conventions every export follows are
//! in the header preamble (`cbindgen.toml`) and docs/contract.md ("The C ABI's conventions").
//!
//! - `boundary`: the call wrappers: panics caught, refusals recorded, log events delivered;
//! - `handle`: the one handle scheme (endpoints, restore points, strings, frame readers) and
//!   its refusals;
//! - `pointer`: NULL, slices, documents, out-params, preconditions;
//! - `last_error`: the thread's last error;
//! - `enums`: the ABI's enums as C sees them, paired with the crate's own types;
//! - `types`: the `repr(C)` structs and the log callback's type;
//! - `constants`: the header's constants;
//! - `endpoint`, `library`, `host`, `frame_reader`, `restore_point`, `history`: the exports
//!   (the endpoint's contract; strings, errors, names and version; the host surface; prepared
//!   frame readers; restore points; history and rewind);
//! - `string`: library-owned result strings.
//!
//! The exports are `unsafe extern "C"` because they take raw pointers from C; each one's doc
//! states what it requires of them (the header carries the same text), so clippy's
//! `# Safety` section would only repeat it.
#![allow(clippy::missing_safety_doc)]

mod boundary;
mod constants;
mod endpoint;
mod enums;
mod handle;
mod history;
mod host;
mod last_error;
mod library;
mod pointer;
mod restore_point;
mod string;
mod types;
// Last: cbindgen emits declarations in the order it meets them, and the header only grows at
// its end.
mod frame_reader;

pub use constants::*;
pub use endpoint::*;
pub use enums::*;
pub use frame_reader::{mjb_frame_reader_free, mjb_frame_reader_new, mjb_frame_reader_read};
pub use history::*;
pub use host::*;
pub use library::*;
pub use restore_point::*;
pub use string::mjb_string;
pub use types::*;

/// Hooks for the crate's own Rust tests: reach the endpoint behind a live handle.
#[doc(hidden)]
pub mod testing {
    use super::types::mjb_endpoint;
    use crate::endpoint::Endpoint;

    pub fn with_endpoint<R>(ep: *mut mjb_endpoint, f: impl FnOnce(&Endpoint) -> R) -> Option<R> {
        super::handle::resolve(ep).ok().map(|e| f(&e))
    }
}
