//! A plain loop of `mjb_endpoint_step(ep, 1, ...)` over the C ABI, for profilers: run it
//! under `valgrind --tool=callgrind` at two step counts and take the difference, and what the
//! bridge adds to each step is counted exactly, whatever the machine's load (see
//! docs/performance.md, "Rerun").
//!
//! `cargo run --release --example step_loop -- MODEL.xml [STEPS] [FRAME]`: STEPS defaults to
//! 100000; FRAME is the endpoint config's `"frame"` member as JSON (`[]` publishes no
//! fields; absent, the default selection). Prints nanoseconds per step.

use mjbridge::endpoint::WAIT_FOREVER;
use mjbridge::ffi::*;
use mjbridge::outcome::Outcome;

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: step_loop MODEL.xml [STEPS] [FRAME]";
    let model = args.next().expect(usage);
    let steps: u64 = args.next().map_or(100_000, |s| s.parse().expect(usage));
    let frame = args
        .next()
        .map(|f| format!(",\"frame\":{f}"))
        .unwrap_or_default();
    let path = serde_json::to_string(&model).expect("a model path");
    let cfg = format!("{{\"model\":{{\"xml_path\":{path}}}{frame}}}");
    let mut ep = std::ptr::null_mut();
    // SAFETY: `cfg` is valid for its length; `ep` receives the handle.
    let o = unsafe { mjb_endpoint_open(cfg.as_ptr().cast(), cfg.len(), &mut ep) };
    assert_eq!(o, Outcome::Ok, "mjb_endpoint_open: {cfg}");
    let mut r = mjb_report::default();
    let t = std::time::Instant::now();
    for _ in 0..steps {
        // SAFETY: a live endpoint and a report to write.
        let o = unsafe { mjb_endpoint_step(ep, 1, WAIT_FOREVER, &mut r) };
        assert_eq!(o, Outcome::Ok, "mjb_endpoint_step");
    }
    let ns = t.elapsed().as_nanos() as f64 / steps.max(1) as f64;
    println!("{ns:.1} ns/step over {steps} steps");
    mjb_endpoint_free(ep);
}
