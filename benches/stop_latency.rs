//! Stop latency: `mjb_stop` while another thread holds the native lock inside a long step
//! (blocked in a MuJoCo control callback for the whole measurement). Reports median, p99,
//! p99.9 and max, and the same figures for one engine step measured in the same run, so the
//! result reads as a ratio. Run: `cargo bench --bench stop_latency`.

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../tests/common/gate.rs"]
mod gate;

use common::*;
use mjbridge::ffi::*;
use mjbridge::outcome::Outcome;
use std::time::Instant;

fn percentiles(mut ns: Vec<u64>) -> (u64, u64, u64, u64) {
    ns.sort_unstable();
    let at = |q: f64| ns[((ns.len() as f64 - 1.0) * q).round() as usize];
    (at(0.5), at(0.99), at(0.999), *ns.last().unwrap())
}

fn show(what: &str, ns: Vec<u64>) -> u64 {
    let n = ns.len();
    let (p50, p99, p999, max) = percentiles(ns);
    println!("{what:<44} n={n:<7} median {p50:>7} ns  p99 {p99:>7} ns  p99.9 {p999:>7} ns  max {max:>8} ns");
    p50
}

fn main() {
    let samples: usize = std::env::var("MJB_BENCH_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200_000);
    let ep = open_model("contact_act.xml", "");
    ep.set_ctrl(&[0.3, -0.3]);

    // Baseline in the same run: one engine step through the bridge.
    ep.step_ok(200);
    let steps: Vec<u64> = (0..2000)
        .map(|_| {
            let t = Instant::now();
            ep.step_ok(1);
            t.elapsed().as_nanos() as u64
        })
        .collect();
    let step_median = show("mjb_step(1) (baseline, lock free)", steps);

    // Hold the native lock: a step blocked in the control callback.
    let g = gate::install(model_of(&ep));
    let stepper = spawn_step(&ep, 1_000_000);
    g.wait_entered(1);

    let mut st = mjb_safety_state::default();
    let stops: Vec<u64> = (0..samples)
        .map(|_| {
            let t = Instant::now();
            let o = unsafe { mjb_stop(ep.0, &mut st) };
            let dt = t.elapsed().as_nanos() as u64;
            assert_eq!(o, Outcome::Ok);
            dt
        })
        .collect();
    assert!(
        st.stopped && !st.confirmed,
        "measured while native work was in flight"
    );
    let stop_median = show("mjb_stop while a step holds the lock", stops);
    let reads: Vec<u64> = (0..samples)
        .map(|_| {
            let t = Instant::now();
            unsafe { mjb_safety_read(ep.0, &mut st) };
            t.elapsed().as_nanos() as u64
        })
        .collect();
    show("mjb_safety_read while a step holds the lock", reads);
    let busy: Vec<u64> = (0..2000)
        .map(|_| {
            let mut s = std::ptr::null_mut();
            let t = Instant::now();
            let o = unsafe { mjb_world_read(ep.0, 0, &mut s) };
            let dt = t.elapsed().as_nanos() as u64;
            assert_eq!(o, Outcome::Rejected);
            dt
        })
        .collect();
    show("mjb_world_read(timeout 0) refused as busy", busy);

    g.open();
    let (o, r) = stepper.join().unwrap();
    assert_eq!(o, Outcome::Ok);
    assert_eq!(
        r.tick_after - r.tick_before,
        1,
        "the held step halted at the latched stop"
    );
    println!(
        "ratio: median mjb_stop / median mjb_step(1) = {:.4}",
        stop_median as f64 / step_median as f64
    );
}
