//! Scaling: N threads each stepping its own endpoint (`mjb_step(ep, 1, …)` in a loop, default
//! frames) against N threads each stepping its own raw MuJoCo pair (`mj_step`), for N = 1 and
//! N = the machine's CPUs. Throughput is all threads' steps per second over a fixed window; the
//! two contenders alternate in rounds so that drift in the machine's speed hits both alike, and
//! each N reports the median of the per-round ratios (bridge / raw; target ≥ 0.97).
//!
//! A process-wide lock or a cache line that every step writes would show here as a ratio
//! falling from N = 1 to N = nproc: the per-step path of the bridge resolves its handle through
//! a lock-free snapshot (arc-swap), takes its endpoint's own lock, and in the C shim writes only
//! thread-locals (MuJoCo 4.0's per-thread log handler) — see docs/performance.md, "Scaling
//! across threads".
//!
//! Three models by default: `host.xml`, tiny (a step of 4–5 µs), where the bridge's fixed
//! cost per call shows most; `small_arm.xml`, the small model (a three-joint arm and
//! two boxes, a step of about 10 µs: 112,000 instructions of `mj_step` on MuJoCo 4.0); and
//! `many_bodies.xml` (a few hundred µs per step).
//!
//! `cargo bench --bench scaling [-- --secs S --rounds R --model NAME]` (`--model` measures
//! that one model alone)

use mjbridge::endpoint::WAIT_FOREVER;
use mjbridge::ffi::*;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

#[path = "support.rs"]
mod support;
use support::{median, mj_step, Raw};

#[derive(Clone, Copy, PartialEq)]
enum Contender {
    Bridge,
    Raw,
}

fn model(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/models")
        .join(name)
}

/// One thread's loop: set up its own pair, wait for the others, step until the window closes.
fn worker(which: Contender, path: &Path, window: Duration, start: &Barrier) -> u64 {
    match which {
        Contender::Bridge => {
            let cfg = format!(
                "{{\"model\":{{\"xml_path\":{:?}}},\"seed\":1}}",
                path.to_str().unwrap()
            );
            let mut ep = std::ptr::null_mut();
            let o = unsafe { mjb_endpoint_open(cfg.as_ptr().cast(), cfg.len(), &mut ep) };
            assert_eq!(o as i32, 0, "open {}", path.display());
            let mut r = unsafe { std::mem::zeroed::<mjb_report>() };
            start.wait();
            let end = Instant::now() + window;
            let mut n = 0u64;
            while Instant::now() < end {
                for _ in 0..16 {
                    let o = unsafe { mjb_endpoint_step(ep, 1, WAIT_FOREVER, &mut r) };
                    debug_assert_eq!(o as i32, 0);
                }
                n += 16;
            }
            mjb_endpoint_free(ep);
            n
        }
        Contender::Raw => {
            let raw = Raw::open(path);
            start.wait();
            let end = Instant::now() + window;
            let mut n = 0u64;
            while Instant::now() < end {
                for _ in 0..16 {
                    unsafe { mj_step(raw.m, raw.d) };
                }
                n += 16;
            }
            n
        }
    }
}

/// Steps per second of `threads` threads of one contender.
fn throughput(which: Contender, threads: usize, path: &Path, window: Duration) -> f64 {
    let start = Arc::new(Barrier::new(threads + 1));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let start = start.clone();
            let path = path.to_path_buf();
            std::thread::spawn(move || worker(which, &path, window, &start))
        })
        .collect();
    start.wait();
    let t0 = Instant::now();
    let steps: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    steps as f64 / t0.elapsed().as_secs_f64().max(window.as_secs_f64())
}

fn main() {
    let mut secs = 0.5f64;
    let mut rounds = 9usize;
    let mut names = vec![
        "host.xml".to_owned(),
        "small_arm.xml".to_owned(),
        "many_bodies.xml".to_owned(),
    ];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--secs" => secs = args.next().unwrap().parse().unwrap(),
            "--rounds" => rounds = args.next().unwrap().parse().unwrap(),
            "--model" => names = vec![args.next().unwrap()],
            _ => {} // cargo bench passes --bench
        }
    }
    let nproc = std::thread::available_parallelism().map_or(1, |n| n.get());
    let window = Duration::from_secs_f64(secs);
    let mut failed = false;
    for name in &names {
        failed |= measure(name, rounds, secs, nproc, window);
    }
    if failed {
        std::process::exit(1);
    }
}

/// One model at N = 1 and N = nproc; true when a ratio misses the target.
fn measure(name: &str, rounds: usize, secs: f64, nproc: usize, window: Duration) -> bool {
    let path = model(name);
    println!(
        "scaling: {name}, {rounds} rounds of {secs} s per contender and N, {nproc} CPUs, \
         `mjb_step(ep, 1)` vs `mj_step`, one model/data pair per thread"
    );
    let mut ns = vec![1];
    if nproc > 1 {
        ns.push(nproc);
    }
    let mut failed = false;
    for n in ns {
        let (mut ratios, mut bridge, mut raw) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..rounds {
            // Alternate which contender goes first.
            let order = if round % 2 == 0 {
                [Contender::Bridge, Contender::Raw]
            } else {
                [Contender::Raw, Contender::Bridge]
            };
            let (mut b, mut r) = (0.0, 0.0);
            for c in order {
                let t = throughput(c, n, &path, window);
                if c == Contender::Bridge {
                    b = t;
                } else {
                    r = t;
                }
            }
            ratios.push(b / r);
            bridge.push(b);
            raw.push(r);
        }
        let ratio = median(ratios.clone());
        println!(
            "N = {n}: bridge {:.0} steps/s, raw {:.0} steps/s, ratio {ratio:.3} (rounds: {})",
            median(bridge),
            median(raw),
            ratios
                .iter()
                .map(|r| format!("{r:.3}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        if ratio < 0.97 {
            println!("N = {n}: ratio {ratio:.3} is below the 0.97 target");
            failed = true;
        }
    }
    failed
}
