//! Fuzz target: any bytes as an endpoint configuration (`mjb_endpoint_open`); the
//! invariants are in `fuzz/invariants.rs`.
#![no_main]

#[path = "../invariants.rs"]
mod invariants;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    invariants::endpoint_config(data);
});
