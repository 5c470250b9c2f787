//! Fuzz target: any bytes as a recording (`mjbridge::recording::read`, the reader of
//! `mjbridge replay`); the invariants are in `fuzz/invariants.rs`.
#![no_main]

#[path = "../invariants.rs"]
mod invariants;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    invariants::recording(data);
});
