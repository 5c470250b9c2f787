//! Frames and the host loop, measured against MuJoCo used directly, ratios from one run.
//!
//! 1. `mjb_frame_read_many` of qpos+qvel+sensordata+xpos+xquat vs a plain copy of the same
//!    arrays out of an mjData (what a host that broke ownership would do); then the same read
//!    through a prepared reader (`mjb_frame_reader_read`).
//! 2. Frame-read latency while another thread steps flat out: the distribution.
//! 3. What publishing the default frame adds to `mjb_step` (default selection vs none).
//! 4. A host loop (write ctrl + step 1 + read the frame) vs the same loop against MuJoCo.
//!
//! Models: the humanoid from `MJB_MODELS_DIR` or `../shared/models/mujoco` when present, and
//! the project's `tests/models/many_bodies.xml` (~5,000 integration-state values). Timings are
//! medians of interleaved batches (the machine is shared: compare ratios, not absolutes).
//! Run: `cargo bench --bench frames` (MJB_BENCH_QUICK=1 for a short run).

#[path = "../tests/common/mod.rs"]
mod common;

use common::*;
use mjbridge::endpoint::WAIT_FOREVER;
use mjbridge::ffi::*;
use mjbridge::native::fields::Field;
use mjbridge::native::{MjData, MjModel, ModelSource, Mujoco};
use mjbridge::outcome::Outcome;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use Field::*;

extern "C" {
    fn mj_step(m: *const MjModel, d: *mut MjData);
}

const READ: [Field; 5] = [Qpos, Qvel, Sensordata, Xpos, Xquat];
const READ_JSON: &str = "[\"qpos\",\"qvel\",\"sensordata\",\"xpos\",\"xquat\"]";

fn quick() -> bool {
    std::env::var_os("MJB_BENCH_QUICK").is_some()
}

fn models() -> Vec<(String, PathBuf)> {
    let mut v = Vec::new();
    let dir = std::env::var_os("MJB_MODELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/models/mujoco"));
    if dir.join("humanoid.xml").is_file() {
        v.push(("humanoid".into(), dir.join("humanoid.xml")));
    } else {
        println!("(no humanoid at {}; set MJB_MODELS_DIR)", dir.display());
    }
    v.push((
        "many_bodies".into(),
        PathBuf::from(model_path("many_bodies.xml")),
    ));
    v
}

fn open_path(path: &Path, frame: &str) -> Ep {
    open(&format!(
        "{{\"model\":{{\"xml_path\":{}}},\"frame\":{frame}}}",
        js(&path.to_string_lossy())
    ))
}

fn raw_pair(path: &Path) -> Mujoco {
    Mujoco::load(&ModelSource::XmlPath(path.to_string_lossy().into_owned())).unwrap()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Median ns per call of `a` and `b`, run in alternating batches of `batch` calls.
fn interleaved(
    rounds: usize,
    batch: usize,
    mut a: impl FnMut(),
    mut b: impl FnMut(),
) -> (f64, f64) {
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        for _ in 0..batch {
            a();
        }
        ta.push(t.elapsed().as_nanos() as f64 / batch as f64);
        let t = Instant::now();
        for _ in 0..batch {
            b();
        }
        tb.push(t.elapsed().as_nanos() as f64 / batch as f64);
    }
    (median(ta), median(tb))
}

struct Reader {
    bufs: Vec<Vec<f64>>,
    reqs: Vec<mjb_frame_request>,
}

impl Reader {
    fn new(ep: &Ep, fields: &[Field]) -> Reader {
        let mut bufs: Vec<Vec<f64>> = fields.iter().map(|f| vec![0.0; ep.field_len(*f)]).collect();
        let reqs = fields
            .iter()
            .zip(bufs.iter_mut())
            .map(|(f, b)| mjb_frame_request {
                field: *f as i32,
                buf: b.as_mut_ptr(),
                cap: b.len(),
                written: 0,
            })
            .collect();
        Reader { bufs, reqs }
    }

    #[inline]
    fn read(&mut self, ep: *mut mjb_endpoint) -> mjb_frame_info {
        let mut info = mjb_frame_info::default();
        let o =
            unsafe { mjb_frame_read_many(ep, self.reqs.as_mut_ptr(), self.reqs.len(), &mut info) };
        debug_assert_eq!(o, Outcome::Ok);
        black_box(&self.bufs);
        info
    }
}

/// The same arrays copied straight out of an mjData into caller buffers.
fn raw_copy(mj: &Mujoco, bufs: &mut [Vec<f64>]) {
    for (f, b) in READ.iter().zip(bufs.iter_mut()) {
        b.copy_from_slice(black_box(mj.field(*f)));
    }
    black_box(bufs);
}

fn read_vs_memcpy(name: &str, path: &Path) {
    let ep = open_path(path, READ_JSON);
    ep.step_ok(50);
    let mut mj = raw_pair(path);
    for _ in 0..50 {
        mj.step().unwrap();
    }
    let mut reader = Reader::new(&ep, &READ);
    let mut bufs: Vec<Vec<f64>> = READ.iter().map(|f| vec![0.0; mj.field(*f).len()]).collect();
    let doubles: usize = bufs.iter().map(Vec::len).sum();
    let raw = ep.0;
    let (rounds, batch) = if quick() { (50, 200) } else { (400, 1000) };
    let (bridge, memcpy) = interleaved(
        rounds,
        batch,
        || {
            black_box(reader.read(raw));
        },
        || raw_copy(&mj, &mut bufs),
    );
    {
        // Where the time goes: the cost of any call on a handle, a read of no fields, and the
        // copy itself without the C boundary.
        let mut d = mjb_model_dims::default();
        let mut none = Reader::new(&ep, &[]);
        let (dims, empty) = interleaved(
            rounds,
            batch,
            || unsafe {
                black_box(mjb_dims(raw, &mut d));
            },
            || {
                black_box(none.read(raw));
            },
        );
        let v = with_endpoint(&ep, |e| e.frames().view().clone());
        let mut reqs: Vec<mjbridge::frame::Request> = Vec::new();
        let mut b2: Vec<Vec<f64>> = READ.iter().map(|f| vec![0.0; ep.field_len(*f)]).collect();
        for (f, b) in READ.iter().zip(b2.iter_mut()) {
            reqs.push(mjbridge::frame::Request {
                field: *f,
                out: b,
                written: 0,
            });
        }
        let (inner, _) = interleaved(
            rounds,
            batch,
            || {
                let _ = black_box(v.read(&mut reqs[..]));
            },
            || {},
        );
        println!(
            "{name:<12} breakdown: any call on a handle (mjb_dims) {dims:.0} ns, read of no field {empty:.0} ns, the copy without the C boundary {inner:.0} ns"
        );
    }
    println!(
        "{name:<12} read {doubles:>5} doubles: mjb_frame_read_many {bridge:>8.1} ns   memcpy from mjData {memcpy:>8.1} ns   ratio {:.2}x (target <= 1.5x)",
        bridge / memcpy
    );
    // The same fields through a prepared reader: the requests checked once, at
    // mjb_frame_reader_new.
    let mut prepared = Reader::new(&ep, &READ);
    let mut fr: *mut mjb_frame_reader = std::ptr::null_mut();
    let o = unsafe {
        mjb_frame_reader_new(
            raw,
            prepared.reqs.as_mut_ptr(),
            prepared.reqs.len(),
            &mut fr,
        )
    };
    assert_eq!(o, Outcome::Ok);
    let (bridge, memcpy) = interleaved(
        rounds,
        batch,
        || {
            let mut info = mjb_frame_info::default();
            let o = unsafe { mjb_frame_reader_read(fr, &mut info) };
            debug_assert_eq!(o, Outcome::Ok);
            black_box(&prepared.bufs);
            black_box(info);
        },
        || raw_copy(&mj, &mut bufs),
    );
    assert_eq!(prepared.bufs, reader.bufs, "the same frame, read both ways");
    println!(
        "{name:<12} read {doubles:>5} doubles: mjb_frame_reader_read {bridge:>8.1} ns   memcpy from mjData {memcpy:>8.1} ns   ratio {:.2}x (target <= 2x)",
        bridge / memcpy
    );
    assert_eq!(unsafe { mjb_frame_reader_free(fr) }, Outcome::Ok);
}

fn latency_while_stepping(name: &str, path: &Path) {
    let ep = Arc::new(open_path(path, READ_JSON));
    ep.step_ok(20);
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (ep, stop) = (ep.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut steps = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                let mut r = mjb_report::default();
                unsafe { mjb_endpoint_step(ep.0, 1, WAIT_FOREVER, &mut r) };
                steps.push(t.elapsed().as_nanos() as u64);
            }
            steps
        })
    };
    let mut reader = Reader::new(&ep, &READ);
    let n = if quick() { 20_000 } else { 300_000 };
    let mut lat = Vec::with_capacity(n);
    let (mut retries, mut max_retries, mut ticks) = (0u64, 0u64, std::collections::BTreeSet::new());
    for _ in 0..n {
        let t = Instant::now();
        let info = reader.read(ep.0);
        lat.push(t.elapsed().as_nanos() as u64);
        retries += info.retries;
        max_retries = max_retries.max(info.retries);
        ticks.insert(info.tick);
    }
    stop.store(true, Ordering::Relaxed);
    let mut steps = writer.join().unwrap();
    lat.sort_unstable();
    steps.sort_unstable();
    let q = |v: &[u64], p: f64| v[((v.len() as f64 - 1.0) * p).round() as usize];
    println!(
        "{name:<12} {n} reads during {} steps ({} distinct ticks seen), {retries} retries (max {max_retries} in one read)",
        steps.len(),
        ticks.len()
    );
    println!(
        "             read ns: p50 {} p90 {} p99 {} p99.9 {} p99.99 {} max {}   (target p99.9 < 10000)",
        q(&lat, 0.5),
        q(&lat, 0.9),
        q(&lat, 0.99),
        q(&lat, 0.999),
        q(&lat, 0.9999),
        lat.last().unwrap()
    );
    println!(
        "             step ns: p50 {} p99 {}   (a read that waited for a step would take at least this)",
        q(&steps, 0.5),
        q(&steps, 0.99)
    );
    // Histogram, log2 buckets.
    let mut buckets = std::collections::BTreeMap::new();
    for v in &lat {
        *buckets
            .entry(64 - v.max(&1).leading_zeros())
            .or_insert(0u64) += 1;
    }
    let line: Vec<String> = buckets
        .iter()
        .map(|(b, c)| format!("<{}ns:{c}", 1u64 << b))
        .collect();
    println!("             histogram {}", line.join(" "));
}

fn publish_overhead(name: &str, path: &Path) {
    let with = open_path(path, "null"); // the default selection
    let none = open_path(path, "[]");
    let mj = raw_pair(path);
    let (rounds, batch) = if quick() { (30, 20) } else { (200, 50) };
    // The three simulations advance in lockstep (same model, same steps, same states), in
    // alternating batches.
    let (mut tw, mut tn, mut tr) = (Vec::new(), Vec::new(), Vec::new());
    fn batch_of(times: &mut Vec<f64>, batch: usize, mut f: impl FnMut()) {
        let t = Instant::now();
        for _ in 0..batch {
            f();
        }
        times.push(t.elapsed().as_nanos() as f64 / batch as f64);
    }
    for round in 0..rounds {
        // Rotate the order so that none of the three always runs first (cold caches).
        for k in 0..3 {
            match (round + k) % 3 {
                0 => batch_of(&mut tw, batch, || with.step_ok(1)),
                1 => batch_of(&mut tn, batch, || none.step_ok(1)),
                _ => batch_of(&mut tr, batch, || unsafe {
                    mj_step(mj.model_ptr(), mj.data_ptr())
                }),
            }
        }
    }
    let (t_with, t_none, t_raw) = (median(tw), median(tn), median(tr));
    println!(
        "{name:<12} mjb_step default frame {t_with:>9.0} ns   no fields {t_none:>9.0} ns   overhead {:+.2}% (target <= 3%)   raw mj_step {t_raw:>9.0} ns ({:+.2}%)",
        (t_with / t_none - 1.0) * 100.0,
        (t_with / t_raw - 1.0) * 100.0
    );
}

fn host_loop(name: &str, path: &Path) {
    let ep = open_path(path, READ_JSON);
    let mut mj = raw_pair(path);
    let nu = ep.dims().nu as usize;
    let mut reader = Reader::new(&ep, &READ);
    let mut bufs: Vec<Vec<f64>> = READ.iter().map(|f| vec![0.0; mj.field(*f).len()]).collect();
    let (mut t, mut t_raw) = (0u64, 0u64);
    let mut ctrl = vec![0.0; nu];
    let mut ctrl_raw = vec![0.0; nu];
    let raw = ep.0;
    let (rounds, batch) = if quick() { (30, 20) } else { (200, 50) };
    let (bridge, direct) = interleaved(
        rounds,
        batch,
        || {
            t += 1;
            for (i, c) in ctrl.iter_mut().enumerate() {
                *c = ((t + i as u64) as f64 * 0.01).sin() * 0.1;
            }
            let input = mjb_input {
                field: Ctrl as i32,
                id: -1,
                values: ctrl.as_ptr(),
                n: nu,
            };
            let mut r = mjb_report::default();
            unsafe { mjb_write_step(raw, &input, 1, 1, WAIT_FOREVER, &mut r) };
            black_box(reader.read(raw));
        },
        || {
            t_raw += 1;
            for (i, c) in ctrl_raw.iter_mut().enumerate() {
                *c = ((t_raw + i as u64) as f64 * 0.01).sin() * 0.1;
            }
            mj.field_mut(Ctrl).copy_from_slice(&ctrl_raw);
            unsafe { mj_step(mj.model_ptr(), mj.data_ptr()) };
            raw_copy(&mj, &mut bufs);
        },
    );
    println!(
        "{name:<12} host loop (ctrl + step 1 + read): bridge {bridge:>9.0} ns   MuJoCo directly {direct:>9.0} ns   ratio {:.3}x (target <= 1.10x)",
        bridge / direct
    );
}

fn main() {
    println!("engine {}", mjbridge::native::engine().version_string);
    let models = models();
    println!("\n1. frame read vs memcpy (qpos+qvel+sensordata+xpos+xquat)");
    for (name, path) in &models {
        read_vs_memcpy(name, path);
    }
    println!("\n2. frame read latency while another thread steps flat out");
    for (name, path) in &models {
        latency_while_stepping(name, path);
    }
    println!("\n3. publishing overhead on mjb_step (default selection vs \"frame\": [])");
    for (name, path) in &models {
        publish_overhead(name, path);
    }
    println!("\n4. host loop vs MuJoCo directly");
    for (name, path) in &models {
        host_loop(name, path);
    }
}
