//! Admission under contention: one thread steps an endpoint flat out (`mjb_step(ep, 1)` in a
//! loop), every other core is kept busy by a spinning thread (as a robot computer or a game
//! engine keeps it), and the main thread reads checkpoints: with `timeout_ms = 1` (every call
//! must be admitted or refused within about its deadline) and with `MJB_WAIT_FOREVER` (how long
//! admission takes). The same runs on an idle machine (no spinning threads) for comparison.
//! Reports p50, p99, max of the wall time per call and the share refused busy.
//!
//! Run: `cargo bench --bench admission` (`MJB_BENCH_SAMPLES`, default 2000 per scenario).

#[path = "../tests/common/mod.rs"]
mod common;

use common::*;
use mjbridge::endpoint::WAIT_FOREVER;
use mjbridge::ffi::*;
use std::time::{Duration, Instant};

fn pct(sorted: &[u64], q: f64) -> u64 {
    sorted[((sorted.len() as f64 - 1.0) * q).round() as usize]
}

fn us(ns: u64) -> String {
    format!("{:.1} µs", ns as f64 / 1000.0)
}

/// Read `samples` checkpoints with `timeout_ms`, spaced by a short pause; returns the wall
/// times (ns) and how many were refused busy.
fn reads(ep: &Ep, timeout_ms: u32, samples: usize) -> (Vec<u64>, usize) {
    let mut times = Vec::with_capacity(samples);
    let mut busy = 0;
    for _ in 0..samples {
        let mut s = std::ptr::null_mut();
        let t = Instant::now();
        let o = unsafe { mjb_checkpoint_read(ep.0, timeout_ms, &mut s) };
        times.push(t.elapsed().as_nanos() as u64);
        match o {
            mjb_outcome::MJB_OK => {
                mjb_string_free(s);
            }
            mjb_outcome::MJB_REJECTED => busy += 1,
            other => panic!("unexpected {other:?}"),
        }
        // A reader that polls, not one that queues behind itself.
        std::thread::sleep(Duration::from_micros(200));
    }
    times.sort_unstable();
    (times, busy)
}

fn scenario(ep: &Ep, loaded: bool, samples: usize) {
    let load = Contention::start(ep, loaded);
    std::thread::sleep(Duration::from_millis(50));
    let t0 = Instant::now();
    let (deadline, busy) = reads(ep, 1, samples);
    let (forever, _) = reads(ep, WAIT_FOREVER, samples);
    let elapsed = t0.elapsed();
    let steps = load.stop();
    let label = if loaded {
        "loaded (a spinner on every other core)"
    } else {
        "idle"
    };
    println!(
        "{label}: {steps} steps by the stepper meanwhile ({:.0} steps/s)",
        steps as f64 / elapsed.as_secs_f64()
    );
    println!(
        "  timeout_ms = 1:    p50 {:>10}  p99 {:>10}  max {:>10}  refused busy {:.1}%",
        us(pct(&deadline, 0.5)),
        us(pct(&deadline, 0.99)),
        us(*deadline.last().unwrap()),
        100.0 * busy as f64 / samples as f64
    );
    println!(
        "  MJB_WAIT_FOREVER:  p50 {:>10}  p99 {:>10}  max {:>10}",
        us(pct(&forever, 0.5)),
        us(pct(&forever, 0.99)),
        us(*forever.last().unwrap())
    );
}

fn main() {
    let samples: usize = std::env::var("MJB_BENCH_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    println!(
        "mjbridge {} on {}; {samples} checkpoint reads per figure",
        env!("CARGO_PKG_VERSION"),
        mjbridge::native::engine().version_string
    );
    let ep = open_model("contact_act.xml", "");
    scenario(&ep, false, samples);
    scenario(&ep, true, samples);
}
