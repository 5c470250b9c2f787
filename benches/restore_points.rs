//! Restore points against raw MuJoCo, side by side in one run, pinned to one CPU, interleaved
//! in rounds (the figure is the median over rounds of each round's ratio):
//! - capture (`mjb_restore_point_capture`, then `mjb_restore_point_free`, as a host's loop
//!   does: the freed buffer serves the next capture) against `mj_getState` of the integration
//!   state into a buffer the host keeps; and captures all kept at once against `mj_getState`
//!   into a fresh buffer each (what keeping many costs either way);
//! - apply (`mjb_restore_point_apply`) against `mj_setState` + `mj_getState` + a bitwise
//!   compare, the readback the bridge promises;
//! - the planner loop: apply + H × (ctrl write + one step), H = 10, against the same loop on
//!   raw MuJoCo (`mj_setState`, a copy into `d->ctrl`, `mj_step`);
//! - the fixed cost of a call on a handle (`mjb_safety_read`: no lock, nothing to copy).
//!
//! Models: the shared humanoid (`../shared/models/mujoco/humanoid.xml`, or `MJB_MODELS_DIR`)
//! when it is there, the project's walker otherwise, and 1,032 free boxes (31,999 values).
//! Endpoints are opened with `"frame": []`, so the figures are the restore and its proof.
//!
//! Run: `cargo bench --bench restore_points` (`MJB_BENCH_ROUNDS`, default 15; `MJB_BENCH_CPU`).

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "support.rs"]
mod support;
use support::{median, mj_getState, mj_setState, mj_step, pin};

use common::*;
use mjbridge::endpoint::WAIT_FOREVER;
use mjbridge::ffi::*;
use mjbridge::native::fields::Field;
use mjbridge::native::{ModelSource, Mujoco};
use mjbridge::outcome::Outcome;
use std::os::raw::c_int;
use std::path::Path;
use std::time::Instant;

/// Nanoseconds per call of `f`, over `n` calls.
fn per_call(n: usize, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    t.elapsed().as_nanos() as f64 / n as f64
}

struct Figures {
    name: &'static str,
    bridge: Vec<f64>,
    raw: Vec<f64>,
}

impl Figures {
    fn new(name: &'static str) -> Self {
        Figures {
            name,
            bridge: Vec::new(),
            raw: Vec::new(),
        }
    }

    fn show(&self, target: &str) {
        let ratios: Vec<f64> = self
            .bridge
            .iter()
            .zip(&self.raw)
            .map(|(b, r)| b / r)
            .collect();
        println!(
            "  {:<44} bridge {:>10.1} ns  raw {:>10.1} ns  ratio {:.3}  ({target})",
            self.name,
            median(self.bridge.clone()),
            median(self.raw.clone()),
            median(ratios)
        );
    }
}

fn bench_model(label: &str, xml_path: &str, rounds: usize, planner: bool) {
    let ep = open(&format!(
        "{{\"model\":{{\"xml_path\":{}}},\"frame\":[]}}",
        js(xml_path)
    ));
    let nu = ep.dims().nu as usize;
    if nu > 0 {
        ep.set_ctrl(&vec![0.1; nu]);
    }
    ep.step_ok(30);
    let raw = Mujoco::load(&ModelSource::XmlPath(xml_path.into())).expect("raw model");
    let (m, d) = (raw.model_ptr(), raw.data_ptr());
    let sig = mjbridge::native::engine().sig_integration as c_int;
    let size = with_endpoint(&ep, |e| e.shape().layout.as_ref().unwrap().size);
    // The raw pair at the same state as the endpoint.
    let state = ep.state_vector().expect("state API");
    unsafe { mj_setState(m, d, state.as_ptr(), sig) };
    println!("{label}: {size} state values");

    let mut rp = std::ptr::null_mut();
    assert_eq!(
        unsafe { mjb_restore_point_capture(ep.0, WAIT_FOREVER, &mut rp) },
        Outcome::Ok
    );
    let target = state.clone();
    let batch = if size > 10_000 { 200 } else { 5_000 };
    let mut kept = Vec::with_capacity(batch);
    let mut buf = vec![0.0; size];
    let mut readback = vec![0.0; size];
    let mut capture = Figures::new("capture+free / mj_getState into a kept buffer");
    let mut capture_fresh = Figures::new("capture, all kept / mj_getState, fresh buffers");
    let mut capture_many = Vec::new();
    let mut apply = Figures::new("apply / mj_setState + mj_getState + compare");
    let mut call = Figures::new("fixed cost of a call (mjb_safety_read)");
    let mut loop_ = Figures::new("planner loop, H = 10 (bridge / raw time)");
    let ctrl = vec![0.2; nu];
    let input = mjb_input {
        field: Field::Ctrl as i32,
        id: -1,
        values: ctrl.as_ptr(),
        n: nu,
    };
    let mut raw_mj = raw;
    for _ in 0..rounds {
        // A host's loop: capture, (use,) free; the freed buffer serves the next capture.
        capture.bridge.push(per_call(batch, || unsafe {
            let mut p = std::ptr::null_mut();
            mjb_restore_point_capture(ep.0, WAIT_FOREVER, &mut p);
            mjb_restore_point_free(p);
        }));
        // Many kept at once (a tree search): each capture a buffer of its own.
        capture_many.push(per_call(batch, || {
            let mut p = std::ptr::null_mut();
            unsafe { mjb_restore_point_capture(ep.0, WAIT_FOREVER, &mut p) };
            kept.push(p);
        }));
        for p in kept.drain(..) {
            unsafe { mjb_restore_point_free(p) };
        }
        capture.raw.push(per_call(batch, || unsafe {
            mj_getState(m, d, buf.as_mut_ptr(), sig)
        }));
        capture_fresh.bridge.push(*capture_many.last().unwrap());
        let mut fresh: Vec<Vec<f64>> = Vec::with_capacity(batch);
        capture_fresh.raw.push(per_call(batch, || {
            let mut v = vec![0.0; size];
            unsafe { mj_getState(m, d, v.as_mut_ptr(), sig) };
            fresh.push(v);
        }));
        drop(fresh);
        apply.bridge.push(per_call(batch, || unsafe {
            mjb_restore_point_apply(ep.0, rp, WAIT_FOREVER, std::ptr::null_mut());
        }));
        apply.raw.push(per_call(batch, || unsafe {
            mj_setState(m, d, target.as_ptr(), sig);
            mj_getState(m, d, readback.as_mut_ptr(), sig);
            assert!(readback
                .iter()
                .zip(&target)
                .all(|(a, b)| a.to_bits() == b.to_bits()));
        }));
        let mut st = mjb_safety_state::default();
        call.bridge.push(per_call(batch * 4, || unsafe {
            mjb_safety_read(ep.0, &mut st);
        }));
        // What a call costs that does nothing but read two atomics: the raw side of the
        // fixed cost is zero, so this row's "raw" is 1 ns (its ratio reads as nanoseconds).
        call.raw.push(1.0);
        if planner {
            let rollouts = 50;
            loop_.bridge.push(per_call(rollouts, || unsafe {
                mjb_restore_point_apply(ep.0, rp, WAIT_FOREVER, std::ptr::null_mut());
                for _ in 0..10 {
                    mjb_write_step(ep.0, &input, 1, 1, WAIT_FOREVER, std::ptr::null_mut());
                }
            }));
            loop_.raw.push(per_call(rollouts, || unsafe {
                mj_setState(m, d, target.as_ptr(), sig);
                for _ in 0..10 {
                    raw_mj.field_mut(Field::Ctrl).copy_from_slice(&ctrl);
                    mj_step(m, d);
                }
            }));
        }
    }
    capture.show("target <= 1.5 on the humanoid, <= 1.2 at 31,999 values");
    capture_fresh.show("information");
    apply.show("target <= 2");
    call.show("target <= 30 ns");
    if planner {
        loop_.show("target: raw / bridge >= 0.97, i.e. this <= 1.03");
    }
    unsafe { mjb_restore_point_free(rp) };
}

fn main() {
    let rounds: usize = std::env::var("MJB_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(15);
    let cpu: usize = std::env::var("MJB_BENCH_CPU")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    pin(cpu);
    println!(
        "mjbridge {} on MuJoCo {}; {rounds} rounds, pinned to CPU {cpu}",
        env!("CARGO_PKG_VERSION"),
        mjbridge::native::engine().version_string
    );
    let shared = std::env::var_os("MJB_MODELS_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/models/mujoco"));
    let dir = tempfile::tempdir().unwrap();
    let humanoid = shared.join("humanoid.xml");
    if humanoid.is_file() {
        bench_model(
            "humanoid (shared)",
            humanoid.to_str().unwrap(),
            rounds,
            true,
        );
    } else {
        let walker = dir.path().join("walker.xml");
        std::fs::write(&walker, support::walker()).unwrap();
        bench_model(
            "walker (own; ../shared not found)",
            walker.to_str().unwrap(),
            rounds,
            true,
        );
    }
    let boxes = dir.path().join("boxes1032.xml");
    std::fs::write(&boxes, support::boxes(1032)).unwrap();
    bench_model(
        "1032 boxes (own)",
        boxes.to_str().unwrap(),
        rounds.min(7),
        false,
    );
    let host = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models/host.xml");
    threads_apply(host.to_str().unwrap(), rounds);
}

/// Nanoseconds per apply on each of `threads` threads (thread k pinned to CPU k), each
/// applying its own endpoint's restore point, started together.
fn apply_on_threads(xml_path: &str, threads: usize, n: usize) -> Vec<f64> {
    let start = std::sync::Arc::new(std::sync::Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|k| {
            let (path, start) = (xml_path.to_owned(), start.clone());
            std::thread::spawn(move || {
                pin(k);
                let ep = open(&format!(
                    "{{\"model\":{{\"xml_path\":{}}},\"frame\":[]}}",
                    js(&path)
                ));
                let mut rp = std::ptr::null_mut();
                assert_eq!(
                    unsafe { mjb_restore_point_capture(ep.0, WAIT_FOREVER, &mut rp) },
                    Outcome::Ok
                );
                let mut r = mjb_report::default();
                start.wait();
                let ns = per_call(n, || unsafe {
                    mjb_restore_point_apply(ep.0, rp, WAIT_FOREVER, &mut r);
                });
                assert_eq!(r.outcome, Outcome::Ok as i32);
                unsafe { mjb_restore_point_free(rp) };
                ns
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

/// Planners on every CPU, each with its own endpoint: does an apply cost more when the other
/// CPUs apply too (a process-wide lock or a shared written cache line would show here)?
fn threads_apply(xml_path: &str, rounds: usize) {
    // The machine's CPUs (this thread is pinned, so its own affinity says 1).
    let cpus = (unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }).max(1) as usize;
    let mut ratios = Vec::new();
    let (mut alone, mut together) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let one = apply_on_threads(xml_path, 1, 100_000)[0];
        let all = apply_on_threads(xml_path, cpus, 100_000);
        let mean = all.iter().sum::<f64>() / all.len() as f64;
        ratios.push(mean / one);
        alone.push(one);
        together.push(mean);
    }
    println!("host.xml (own): apply on {cpus} threads at once, each its own endpoint");
    println!(
        "  {:<44} {cpus} threads {:>8.1} ns  1 thread {:>8.1} ns  ratio {:.3}  (information)",
        "apply per thread, all CPUs / one",
        median(together),
        median(alone),
        median(ratios)
    );
}
