//! Fuzz target: any bytes as a restore document (`mjb_restore`) on every endpoint of
//! `invariants::harnesses`; the invariants are in `fuzz/invariants.rs`.
#![no_main]

#[path = "../invariants.rs"]
mod invariants;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for h in invariants::shared_harnesses() {
        h.restore(data);
    }
});
