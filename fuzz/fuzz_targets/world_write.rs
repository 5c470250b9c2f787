//! Fuzz target: any bytes as a world write (`mjb_world_write`) on every
//! endpoint of `invariants::harnesses`; the invariants are in `fuzz/invariants.rs`.
#![no_main]

#[path = "../invariants.rs"]
mod invariants;

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

/// The endpoints, made once (libFuzzer runs the target on one thread).
struct Endpoints(Vec<invariants::Harness>);
// SAFETY: libFuzzer calls the target from one thread at a time.
unsafe impl Send for Endpoints {}
unsafe impl Sync for Endpoints {}

fn endpoints() -> &'static [invariants::Harness] {
    static E: OnceLock<Endpoints> = OnceLock::new();
    &E.get_or_init(|| {
        let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models");
        Endpoints(invariants::harnesses(&models))
    })
    .0
}

fuzz_target!(|data: &[u8]| {
    for h in endpoints() {
        h.world_write(data);
    }
});
