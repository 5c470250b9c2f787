//! What the flight recorder costs a host's control loop: one ctrl write and one step per tick
//! (`mjb_write_step` with `ctrl`, the bindings' per-step call), on an endpoint without
//! `"history"` and on one with `{"window_ticks": 1000, "keyframe_every": 100}`, interleaved in
//! rounds on one pinned CPU; the figure is the median over rounds of each round's ratio.
//! Also what one rewind costs across the window, against what a host would do without the
//! recorder (one `mjb_restore_point_apply` of a saved state, then the replayed steps as raw
//! `mj_step` calls from the same state with the same ctrl writes, measured beside each rewind), and what the recorder holds for a window of
//! 10,000 ticks (`mjb_history_info`), against the bound README.md states.
//!
//! Model: the shared humanoid (`../shared/models/mujoco/humanoid.xml`, or `MJB_MODELS_DIR`)
//! when it is there, the project's walker otherwise.
//!
//! Run: `cargo bench --bench history` (`MJB_BENCH_ROUNDS`, default 15; `MJB_BENCH_CPU`).

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "support.rs"]
mod support;
use support::{median, mj_setState, mj_step, pin, Raw};

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

/// The ctrl written at `tick` (a function of the tick, so the raw side of the rewind figure
/// can write the same values).
fn ctrl_at(tick: u64, ctrl: &mut [f64]) {
    for (j, c) in ctrl.iter_mut().enumerate() {
        *c = (((tick + j as u64) % 17) as f64 / 17.0 - 0.5) * 0.4;
    }
}

/// Nanoseconds per tick of `TICKS` ticks of ctrl write + step.
fn loop_ns(ep: &Ep, nu: usize) -> f64 {
    let mut ctrl = vec![0.0; nu];
    let tick = ep.frame_info().tick;
    let t = Instant::now();
    for i in 0..TICKS {
        ctrl_at(tick + i, &mut ctrl);
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
    loop_ns(&plain, nu);
    loop_ns(&recording, nu);
    let (mut ratios, mut base, mut with) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..rounds as u64 {
        let (a, b) = if k % 2 == 0 {
            let a = loop_ns(&plain, nu);
            (a, loop_ns(&recording, nu))
        } else {
            let b = loop_ns(&recording, nu);
            (loop_ns(&plain, nu), b)
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
    let (rewind, raw) = rewinds(&plain, &recording, &path, &info);
    let memory = memory(&cfg, nu);
    let hold = export_hold(&cfg, nu, cpu);
    println!("{name}, nu = {nu}, {rounds} rounds of {TICKS} ticks (ctrl write + step), CPU {cpu}");
    println!(
        "  no history: {:.2} us/tick; history (1000 ticks, keyframe every 100): {:.2} us/tick; median ratio {:.4} ({:+.2} %)",
        median(base) / 1000.0,
        median(with) / 1000.0,
        median(ratios.clone()),
        (median(ratios) - 1.0) * 100.0
    );
    println!(
        "  recorder: {} keyframes, {} bytes; a rewind across the window: median {:.0} us, {:.3}x a restore-point apply + the replayed steps raw ({:.0} us)",
        info.keyframes,
        info.bytes,
        median(rewind.clone()),
        median(
            rewind
                .iter()
                .zip(&raw)
                .map(|(a, b)| a / b)
                .collect::<Vec<_>>()
        ),
        median(raw)
    );
    println!("{memory}");
    println!("{hold}");
}

/// How long an export of a long window keeps other calls waiting (it holds the native lock only
/// to copy what it prints): a window of 50,000 ticks of ctrl writes exported
/// (`mjb_history_export_window`) while another thread, on a CPU of its own, steps with a 5 ms
/// deadline; the longest of those step calls and their `MJB_BUSY` answers during the export.
fn export_hold(cfg: &dyn Fn(&str) -> String, nu: usize, cpu: usize) -> String {
    use std::sync::atomic::{AtomicBool, Ordering};
    const WINDOW: u64 = 50_000;
    let ep = open(&cfg(&format!(
        ",\"history\":{{\"window_ticks\":{WINDOW},\"keyframe_every\":1000}}"
    )));
    for _ in 0..WINDOW.div_ceil(TICKS) {
        loop_ns(&ep, nu);
    }
    let raw = ep.0 as usize;
    let done = AtomicBool::new(false);
    let (export_ms, bytes, (longest_us, busy, steps)) = std::thread::scope(|s| {
        let stepper = s.spawn(|| {
            let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
            pin((cpu + 1) % cpus);
            let ep = raw as *mut mjb_endpoint;
            let mut ctrl = vec![0.0; nu];
            let (mut longest, mut busy, mut steps) = (0f64, 0u64, 0u64);
            while !done.load(Ordering::Relaxed) {
                ctrl_at(steps, &mut ctrl);
                let input = mjb_input {
                    field: Field::Ctrl as i32,
                    id: -1,
                    values: ctrl.as_ptr(),
                    n: ctrl.len(),
                };
                let mut r = mjb_report::default();
                let t = Instant::now();
                let o = unsafe { mjb_write_step(ep, &input, 1, 1, 5, &mut r) };
                longest = longest.max(t.elapsed().as_secs_f64() * 1e6);
                match (Outcome::from(o), reason_of(&r)) {
                    (Outcome::Ok, _) => steps += 1,
                    (Outcome::Rejected, mjbridge::outcome::Reason::Busy) => busy += 1,
                    (o, why) => panic!("a step answered {o:?} {why:?}"),
                }
            }
            (longest, busy, steps)
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        let t = Instant::now();
        let mut out = std::ptr::null_mut();
        let o =
            unsafe { mjb_history_export_window(raw as *mut mjb_endpoint, WAIT_FOREVER, &mut out) };
        let ms = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!(o, Outcome::Ok, "{:?}", last_error());
        let bytes = take_string(out).len();
        done.store(true, Ordering::Relaxed);
        (ms, bytes, stepper.join().expect("the stepper"))
    });
    format!(
        "  export of a {WINDOW}-tick window ({bytes} bytes) took {export_ms:.0} ms; a thread stepping meanwhile with a 5 ms deadline: {steps} steps, the longest call {longest_us:.0} us, {busy} answered BUSY"
    )
}

/// Rewinds to ticks spread across the window (below the tip, so the keyframe before each is
/// on the 100-tick grid), each beside its raw alternative: microseconds of each.
fn rewinds(
    plain: &Ep,
    recording: &Ep,
    path: &std::path::Path,
    info: &mjb_history_state,
) -> (Vec<f64>, Vec<f64>) {
    let mut rp: *mut mjb_restore_point = std::ptr::null_mut();
    let o = unsafe { mjb_restore_point_capture(plain.0, WAIT_FOREVER, &mut rp) };
    assert_eq!(o, Outcome::Ok);
    let raw = Raw::open(path);
    let span = info.newest_tick - info.oldest_tick;
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    let engine = mjbridge::native::engine();
    let sig = engine.sig_integration;
    let ctrl_bit = engine
        .components
        .iter()
        .find(|(n, _)| *n == "ctrl")
        .expect("mjSTATE_CTRL")
        .1 as std::ffi::c_int;
    let mut ctrl = vec![0.0; recording.dims().nu as usize];
    let mut state = Vec::new();
    for k in 0..40u64 {
        let t = info.oldest_tick + (k * 7919) % span;
        // The raw pair starts where the replay does (the keyframe's state: a step's cost
        // depends on the contacts), set outside the timing.
        let kt = t - t % 100;
        let mut r = mjb_report::default();
        let o = unsafe { mjb_rewind(recording.0, kt, WAIT_FOREVER, &mut r) };
        assert_eq!(o, Outcome::Ok);
        with_endpoint(recording, |e| {
            e.with_native(WAIT_FOREVER, |mj, _| {
                state.resize(mj.state_size(sig).expect("a state size"), 0.0);
                mj.get_state(sig, &mut state).expect("the state");
            })
            .expect("the native lock")
        });
        unsafe { mj_setState(raw.m, raw.d, state.as_ptr(), sig as std::ffi::c_int) };
        let start = Instant::now();
        let o = unsafe { mjb_rewind(recording.0, t, WAIT_FOREVER, &mut r) };
        assert_eq!(o, Outcome::Ok);
        ours.push(start.elapsed().as_secs_f64() * 1e6);
        let start = Instant::now();
        let o = unsafe { mjb_restore_point_apply(plain.0, rp, WAIT_FOREVER, &mut r) };
        assert_eq!(o, Outcome::Ok);
        for s in kt..t {
            ctrl_at(s, &mut ctrl);
            unsafe { mj_setState(raw.m, raw.d, ctrl.as_ptr(), ctrl_bit) };
            unsafe { mj_step(raw.m, raw.d) };
        }
        theirs.push(start.elapsed().as_secs_f64() * 1e6);
    }
    assert_eq!(unsafe { mjb_restore_point_free(rp) }, Outcome::Ok);
    (ours, theirs)
}

/// A window of 10,000 ticks, a keyframe every 100 and a ctrl write every tick, filled (12,000
/// ticks): what `mjb_history_info` reports against README.md's bound,
/// `(ceil(N/K) + 2 + d) × S + 64 × (ceil(N/K) + 34) + 2 × (N + K + 2) × (8 + 32·r + 8·w)`
/// bytes (S the state's bytes; here no discontinuity, d = 0, and r = 1 write of w = nu values
/// per tick; the rings grow by doubling).
fn memory(cfg: &dyn Fn(&str) -> String, nu: usize) -> String {
    let (n, k) = (10_000u64, 100u64);
    let ep = open(&cfg(&format!(
        ",\"history\":{{\"window_ticks\":{n},\"keyframe_every\":{k}}}"
    )));
    for _ in 0..6 {
        loop_ns(&ep, nu);
    }
    let mut info = mjb_history_state::default();
    assert_eq!(unsafe { mjb_history_info(ep.0, &mut info) }, Outcome::Ok);
    let state = with_endpoint(&ep, |e| e.shape().layout.as_ref().expect("a layout").size) * 8;
    let kf = n.div_ceil(k) as usize;
    let bound = (kf + 2) * state + 64 * (kf + 34) + 2 * (n + k + 2) as usize * (8 + 32 + 8 * nu);
    format!(
        "  window 10000 ticks, keyframe every 100, ctrl every tick: {} keyframes, {} bytes ({:.2} MB); bound {} bytes ({:.2} MB): {:.2} of it; state {} bytes",
        info.keyframes,
        info.bytes,
        info.bytes as f64 / 1e6,
        bound,
        bound as f64 / 1e6,
        info.bytes as f64 / bound as f64,
        state
    )
}
