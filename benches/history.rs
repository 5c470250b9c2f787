//! What the flight recorder costs a host's control loop: one ctrl write and one step per tick
//! (`mjb_write_step` with `ctrl`, the bindings' per-step call), on an endpoint without
//! `"history"` and on one with `{"window_ticks": 1000, "keyframe_every": 100}`, interleaved in
//! rounds on one pinned CPU; the figure is the median over rounds of each round's ratio.
//! Also what one rewind costs across the window.
//!
//! Model: the shared humanoid (`../shared/models/mujoco/humanoid.xml`, or `MJB_MODELS_DIR`)
//! when it is there, the project's walker otherwise.
//!
//! Run: `cargo bench --bench history` (`MJB_BENCH_ROUNDS`, default 15; `MJB_BENCH_CPU`).

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "support.rs"]
mod support;
use support::{median, pin};

use common::*;
use mjbridge::endpoint::WAIT_FOREVER;
use mjbridge::ffi::*;
use mjbridge::native::fields::Field;
use mjbridge::outcome::Outcome;
use std::path::PathBuf;
use std::time::Instant;

const TICKS: u64 = 2000;

fn model() -> (String, PathBuf) {
    let shared = std::env::var_os("MJB_MODELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/models/mujoco")
        });
    let h = shared.join("humanoid.xml");
    if h.is_file() {
        return ("humanoid (shared)".into(), h);
    }
    let p = std::env::temp_dir().join("mjb_history_bench_walker.xml");
    std::fs::write(&p, support::walker()).unwrap();
    ("walker (own)".into(), p)
}

/// Nanoseconds per tick of `TICKS` ticks of ctrl write + step.
fn loop_ns(ep: &Ep, nu: usize, k: u64) -> f64 {
    let mut ctrl = vec![0.0; nu];
    let t = Instant::now();
    for i in 0..TICKS {
        for (j, c) in ctrl.iter_mut().enumerate() {
            *c = (((i + k + j as u64) % 17) as f64 / 17.0 - 0.5) * 0.4;
        }
        let input = mjb_input {
            field: Field::Ctrl as i32,
            id: -1,
            values: ctrl.as_ptr(),
            n: ctrl.len(),
        };
        let mut r = mjb_report::default();
        let o = unsafe { mjb_write_step(ep.0, &input, 1, 1, WAIT_FOREVER, &mut r) };
        assert_eq!(o, Outcome::Ok);
    }
    t.elapsed().as_nanos() as f64 / TICKS as f64
}

fn main() {
    let rounds: usize = std::env::var("MJB_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15);
    let cpu: usize = std::env::var("MJB_BENCH_CPU")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    pin(cpu);
    let (name, path) = model();
    let cfg = |extra: &str| {
        format!(
            "{{\"model\":{{\"xml_path\":{}}},\"frame\":[]{extra}}}",
            js(path.to_str().unwrap())
        )
    };
    let plain = open(&cfg(""));
    let recording = open(&cfg(
        ",\"history\":{\"window_ticks\":1000,\"keyframe_every\":100}",
    ));
    let nu = plain.dims().nu as usize;
    // Warm up: the recorder's rings reach their steady size.
    loop_ns(&plain, nu, 0);
    loop_ns(&recording, nu, 0);
    let (mut ratios, mut base, mut with) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..rounds as u64 {
        let (a, b) = if k % 2 == 0 {
            let a = loop_ns(&plain, nu, k);
            (a, loop_ns(&recording, nu, k))
        } else {
            let b = loop_ns(&recording, nu, k);
            (loop_ns(&plain, nu, k), b)
        };
        base.push(a);
        with.push(b);
        ratios.push(b / a);
    }
    let mut info = mjb_history_state::default();
    assert_eq!(
        unsafe { mjb_history_info(recording.0, &mut info) },
        Outcome::Ok
    );
    let span = info.newest_tick - info.oldest_tick;
    let mut rewinds = Vec::new();
    for k in 0..20u64 {
        let t = info.oldest_tick + (k * 7919) % span;
        let start = Instant::now();
        let mut r = mjb_report::default();
        let o = unsafe { mjb_rewind(recording.0, t, WAIT_FOREVER, &mut r) };
        assert_eq!(o, Outcome::Ok);
        rewinds.push(start.elapsed().as_secs_f64() * 1e6);
    }
    println!("{name}, nu = {nu}, {rounds} rounds of {TICKS} ticks (ctrl write + step), CPU {cpu}");
    println!(
        "  no history: {:.2} us/tick; history (1000 ticks, keyframe every 100): {:.2} us/tick; median ratio {:.4} ({:+.2} %)",
        median(base) / 1000.0,
        median(with) / 1000.0,
        median(ratios.clone()),
        (median(ratios) - 1.0) * 100.0
    );
    println!(
        "  recorder: {} keyframes, {} bytes; a rewind across the window: median {:.0} us",
        info.keyframes,
        info.bytes,
        median(rewinds)
    );
}
