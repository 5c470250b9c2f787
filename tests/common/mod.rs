//! Safe wrappers over the C ABI for the Rust integration tests. Tests go through the same
//! exported functions a C host calls.
#![allow(dead_code)]

use mjbridge::endpoint::WAIT_FOREVER;
use mjbridge::ffi::*;
use mjbridge::outcome::{Outcome, Reason};
use std::path::PathBuf;

pub fn model_path(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/models")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// The profile `auto` picks on the engine these tests were built against.
pub fn auto_profile() -> &'static str {
    if cfg!(mjb_integration) {
        "mujoco_integration_v1"
    } else {
        "mujoco_basic_v1"
    }
}

/// Every profile this engine can serve.
pub fn profiles() -> Vec<&'static str> {
    if cfg!(mjb_integration) {
        vec!["mujoco_integration_v1", "mujoco_basic_v1"]
    } else {
        vec!["mujoco_basic_v1"]
    }
}

pub fn model_xml(name: &str) -> String {
    std::fs::read_to_string(model_path(name)).expect("test model")
}

/// A JSON string literal.
pub fn js(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

pub fn last_error() -> serde_json::Value {
    let mut needed = 0usize;
    unsafe { mjb_last_error(std::ptr::null_mut(), 0, &mut needed) };
    let mut buf = vec![0u8; needed];
    let o = unsafe { mjb_last_error(buf.as_mut_ptr().cast(), buf.len(), &mut needed) };
    assert_eq!(o, Outcome::Ok);
    buf.pop();
    serde_json::from_slice(&buf).expect("last error is JSON")
}

pub fn last_reason() -> String {
    last_error()["reason"].as_str().unwrap_or("").to_owned()
}

pub fn take_string(s: *mut mjb_string) -> String {
    assert!(!s.is_null());
    let len = mjb_string_len(s);
    let data = mjb_string_data(s);
    let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) }.to_vec();
    assert_eq!(mjb_string_free(s), Outcome::Ok);
    String::from_utf8(bytes).expect("UTF-8")
}

pub struct Ep(pub *mut mjb_endpoint);

unsafe impl Send for Ep {}
unsafe impl Sync for Ep {}

impl Drop for Ep {
    fn drop(&mut self) {
        if !self.0.is_null() {
            mjb_endpoint_free(self.0);
        }
    }
}

pub fn try_open(config: &str) -> Result<Ep, (Outcome, serde_json::Value)> {
    let mut ep = std::ptr::null_mut();
    let o = unsafe { mjb_endpoint_open(config.as_ptr().cast(), config.len(), &mut ep) };
    if o == Outcome::Ok {
        assert!(!ep.is_null());
        Ok(Ep(ep))
    } else {
        assert!(ep.is_null(), "out-param stays NULL on refusal");
        Err((o.into(), last_error()))
    }
}

pub fn open(config: &str) -> Ep {
    try_open(config).unwrap_or_else(|e| panic!("open refused: {e:?}"))
}

/// Open a test model file with extra config fields (`"seed": 7, ...` or empty).
pub fn open_model(file: &str, extra: &str) -> Ep {
    let sep = if extra.is_empty() { "" } else { "," };
    open(&format!(
        "{{\"model\":{{\"xml_path\":{}}}{sep}{extra}}}",
        js(&model_path(file))
    ))
}

/// Open an XML string with extra config fields.
pub fn open_xml(xml: &str, extra: &str) -> Ep {
    let sep = if extra.is_empty() { "" } else { "," };
    open(&format!(
        "{{\"model\":{{\"xml\":{}}}{sep}{extra}}}",
        js(xml)
    ))
}

impl Ep {
    pub fn step(&self, n: u32) -> (Outcome, mjb_report) {
        let mut r = mjb_report::default();
        let o = unsafe { mjb_endpoint_step(self.0, n, WAIT_FOREVER, &mut r) };
        assert_eq!(r.outcome, o as i32);
        (o.into(), r)
    }

    pub fn step_ok(&self, n: u32) {
        let (o, r) = self.step(n);
        assert_eq!(o, Outcome::Ok, "{:?}", last_error());
        assert_eq!(r.tick_after - r.tick_before, u64::from(n));
    }

    pub fn set_ctrl(&self, ctrl: &[f64]) -> Outcome {
        let mut r = mjb_report::default();
        unsafe { mjb_set_ctrl(self.0, ctrl.as_ptr(), ctrl.len(), WAIT_FOREVER, &mut r).into() }
    }

    pub fn world(&self) -> String {
        let mut s = std::ptr::null_mut();
        let o = unsafe { mjb_world_read(self.0, WAIT_FOREVER, &mut s) };
        assert_eq!(o, Outcome::Ok, "{:?}", last_error());
        take_string(s)
    }

    /// The deprecated `mjb_snapshot` (the tests that it still serves the world document).
    #[allow(deprecated)]
    pub fn snapshot(&self) -> String {
        let mut s = std::ptr::null_mut();
        let o = unsafe { mjb_snapshot(self.0, WAIT_FOREVER, &mut s) };
        assert_eq!(o, Outcome::Ok, "{:?}", last_error());
        take_string(s)
    }

    pub fn world_json(&self) -> serde_json::Value {
        serde_json::from_str(&self.world()).unwrap()
    }

    pub fn hash(&self) -> String {
        self.world_json()["state_hash"].as_str().unwrap().to_owned()
    }

    pub fn checkpoint(&self) -> String {
        let mut s = std::ptr::null_mut();
        let o = unsafe { mjb_checkpoint_read(self.0, WAIT_FOREVER, &mut s) };
        assert_eq!(o, Outcome::Ok, "{:?}", last_error());
        take_string(s)
    }

    pub fn restore(&self, doc: &str) -> (Outcome, mjb_report) {
        let mut r = mjb_report::default();
        let o =
            unsafe { mjb_restore(self.0, doc.as_ptr().cast(), doc.len(), WAIT_FOREVER, &mut r) };
        assert_eq!(r.outcome, o as i32);
        (o.into(), r)
    }

    pub fn world_write(&self, doc: &str) -> Outcome {
        let mut r = mjb_report::default();
        unsafe {
            mjb_world_write(self.0, doc.as_ptr().cast(), doc.len(), WAIT_FOREVER, &mut r).into()
        }
    }

    pub fn safety(&self) -> mjb_safety_state {
        let mut s = mjb_safety_state::default();
        assert_eq!(unsafe { mjb_safety_read(self.0, &mut s) }, Outcome::Ok);
        s
    }

    pub fn stop(&self) -> mjb_safety_state {
        let mut s = mjb_safety_state::default();
        assert_eq!(unsafe { mjb_stop(self.0, &mut s) }, Outcome::Ok);
        s
    }

    /// Public fields straight from the owned mjData (under the lock).
    pub fn public(&self) -> mjbridge::native::Public {
        with_endpoint(self, |e| {
            e.with_native(WAIT_FOREVER, |mj, _| mj.public()).unwrap()
        })
    }
}

/// Reach the Rust endpoint behind a handle (tests only look, never mutate through this).
pub fn with_endpoint<R>(ep: &Ep, f: impl FnOnce(&mjbridge::endpoint::Endpoint) -> R) -> R {
    mjbridge::ffi::testing::with_endpoint(ep.0, f).expect("live endpoint")
}

pub fn reason_of(r: &mjb_report) -> Reason {
    Reason::from_i32(r.reason).expect("known reason")
}

/// Bitwise equality of two f64 slices.
pub fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// The endpoint's MuJoCo model (to gate its control callback; never mutated through this).
pub fn model_of(ep: &Ep) -> *mut mjbridge::native::MjModel {
    with_endpoint(ep, |e| {
        e.with_native(WAIT_FOREVER, |mj, _| mj.model_ptr()).unwrap()
    })
}

/// Start `mjb_endpoint_step(ep, n, WAIT_FOREVER)` on another thread.
pub fn spawn_step(ep: &Ep, n: u32) -> std::thread::JoinHandle<(Outcome, mjb_report)> {
    let raw = ep.0 as usize;
    std::thread::spawn(move || {
        let mut r = mjb_report::default();
        let o = unsafe { mjb_endpoint_step(raw as *mut mjb_endpoint, n, WAIT_FOREVER, &mut r) };
        (o.into(), r)
    })
}

// ---- host surface -------------------------------------------------------------------------

pub use mjbridge::native::fields::Field;

/// The values of the requested fields and the frame's info.
pub type Frame = (Vec<Vec<f64>>, mjb_frame_info);

/// One frame request per field, each into its buffer (the whole buffer as its capacity;
/// `written` set to a value a read must overwrite).
pub fn requests(fields: &[Field], bufs: &mut [Vec<f64>]) -> Vec<mjb_frame_request> {
    fields
        .iter()
        .zip(bufs.iter_mut())
        .map(|(f, b)| mjb_frame_request {
            field: *f as i32,
            buf: b.as_mut_ptr(),
            cap: b.len(),
            written: usize::MAX,
        })
        .collect()
}

/// The C form of typed inputs `(field, id, values)`, borrowing the values.
pub fn c_inputs(inputs: &[(Field, i32, &[f64])]) -> Vec<mjb_input> {
    inputs
        .iter()
        .map(|(f, id, v)| mjb_input {
            field: *f as i32,
            id: *id,
            values: v.as_ptr(),
            n: v.len(),
        })
        .collect()
}

impl Ep {
    /// Replace the model with the suite's `name` (`{"model":{"xml_path":…}}`), waiting for the
    /// lock; it must succeed.
    pub fn replace_model_ok(&self, name: &str) {
        let cfg = format!("{{\"model\":{{\"xml_path\":{}}}}}", js(&model_path(name)));
        let mut r = mjb_report::default();
        let o = unsafe {
            mjb_endpoint_replace_model(self.0, cfg.as_ptr().cast(), cfg.len(), WAIT_FOREVER, &mut r)
        };
        assert_eq!(r.outcome, o as i32);
        assert_eq!(Outcome::from(o), Outcome::Ok, "{:?}", last_error());
    }

    pub fn dims(&self) -> mjb_model_dims {
        let mut d = mjb_model_dims::default();
        assert_eq!(unsafe { mjb_dims(self.0, &mut d) }, Outcome::Ok);
        d
    }

    pub fn field_len(&self, f: Field) -> usize {
        let mut n = 0usize;
        let o = unsafe { mjb_frame_field_len(self.0, f as i32, &mut n) };
        assert_eq!(o, Outcome::Ok, "{:?}", last_error());
        n
    }

    /// Several fields of one frame, in one read.
    pub fn try_frame(&self, fields: &[Field]) -> Result<Frame, (Outcome, serde_json::Value)> {
        let mut bufs: Vec<Vec<f64>> = fields
            .iter()
            .map(|f| vec![0.0; self.field_len(*f)])
            .collect();
        let mut reqs = requests(fields, &mut bufs);
        let mut info = mjb_frame_info::default();
        let o = unsafe { mjb_frame_read_many(self.0, reqs.as_mut_ptr(), reqs.len(), &mut info) };
        if o != Outcome::Ok {
            return Err((o.into(), last_error()));
        }
        for (r, b) in reqs.iter().zip(&bufs) {
            assert_eq!(r.written, b.len());
        }
        Ok((bufs, info))
    }

    pub fn frame(&self, fields: &[Field]) -> Frame {
        self.try_frame(fields)
            .unwrap_or_else(|e| panic!("frame read refused: {e:?}"))
    }

    pub fn frame_info(&self) -> mjb_frame_info {
        self.frame(&[]).1
    }

    /// One typed input write.
    pub fn input(&self, f: Field, id: i32, values: &[f64]) -> (Outcome, mjb_report) {
        let mut r = mjb_report::default();
        let o = unsafe {
            mjb_input_write(
                self.0,
                f as i32,
                id,
                values.as_ptr(),
                values.len(),
                WAIT_FOREVER,
                &mut r,
            )
        };
        assert_eq!(r.outcome, o as i32);
        (o.into(), r)
    }

    pub fn input_ok(&self, f: Field, id: i32, values: &[f64]) {
        let (o, _) = self.input(f, id, values);
        assert_eq!(o, Outcome::Ok, "{:?}", last_error());
    }

    /// Inputs then `nstep` steps in one call.
    pub fn write_step(&self, inputs: &[(Field, i32, &[f64])], nstep: u32) -> (Outcome, mjb_report) {
        let raw = c_inputs(inputs);
        let mut r = mjb_report::default();
        let o =
            unsafe { mjb_write_step(self.0, raw.as_ptr(), raw.len(), nstep, WAIT_FOREVER, &mut r) };
        assert_eq!(r.outcome, o as i32);
        (o.into(), r)
    }

    /// The owned data's complete integration state (engines with the state API).
    pub fn state_vector(&self) -> Option<Vec<f64>> {
        with_endpoint(self, |e| {
            let shape = e.shape();
            let layout = shape.layout.as_ref()?;
            e.with_native(WAIT_FOREVER, |mj, _| {
                let mut v = vec![0.0; layout.size];
                mj.get_state(layout.sig, &mut v).unwrap();
                v
            })
            .ok()
        })
    }

    /// A field of the owned data, read under the lock.
    /// README.md's and docs/contract.md's memory bound of a recorder of `n` ticks and a
    /// keyframe every `k` (what `mjb_history_info`'s `bytes` may reach), at its worst for the
    /// model: 32 discontinuities, and every tick keeping each input target's write on both
    /// sides of its keyframe (`r` = 2 × the targets, `w` = 4 × the input values).
    pub fn history_memory_bound(&self, n: u64, k: u64) -> u64 {
        let d = self.dims();
        let s = 8 * self.state_vector().expect("the state API").len() as u64;
        let objects = d.nu + d.nv + d.nbody + 2 * d.nmocap + d.neq;
        let values = d.nu + d.nv + 6 * d.nbody + 7 * d.nmocap + d.neq;
        let (r, w) = (2 * (6 + objects) as u64, 4 * values as u64);
        let kf = n.div_ceil(k);
        (kf + 2 + 32) * s + 64 * (kf + 34) + 2 * (n + k + 2) * (8 + 32 * r + 8 * w)
    }

    pub fn owned_field(&self, f: Field) -> Vec<f64> {
        with_endpoint(self, |e| {
            e.with_native(WAIT_FOREVER, |mj, _| mj.field(f).to_vec())
                .unwrap()
        })
    }
}

/// Open a test model file with a frame selection (`["qpos", ...]` JSON) and extra fields.
pub fn open_frames(file: &str, frame: &str, extra: &str) -> Ep {
    let sep = if extra.is_empty() { "" } else { "," };
    open(&format!(
        "{{\"model\":{{\"xml_path\":{}}},\"frame\":{frame}{sep}{extra}}}",
        js(&model_path(file))
    ))
}

/// Background load for contention tests and benches: a thread stepping an endpoint flat out
/// (`mjb_step(ep, 1)` in a loop) and, when `spin`, a busy thread on every other core. Stopped
/// (and joined) by [`Contention::stop`], which returns the steps taken.
pub struct Contention {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    stepper: std::thread::JoinHandle<u64>,
    spinners: Vec<std::thread::JoinHandle<()>>,
}

impl Contention {
    pub fn start(ep: &Ep, spin: bool) -> Contention {
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let spinners = if spin {
            (0..cores.saturating_sub(1).max(1))
                .map(|_| {
                    let s = stop.clone();
                    std::thread::spawn(move || {
                        let mut x = 1u64;
                        while !s.load(Ordering::Relaxed) {
                            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
                        }
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
        let raw = ep.0 as usize;
        let s = stop.clone();
        let stepper = std::thread::spawn(move || {
            let mut steps = 0u64;
            while !s.load(Ordering::Relaxed) {
                let o = unsafe {
                    mjb_endpoint_step(
                        raw as *mut mjb_endpoint,
                        1,
                        WAIT_FOREVER,
                        std::ptr::null_mut(),
                    )
                };
                assert_eq!(o, Outcome::Ok);
                steps += 1;
            }
            steps
        });
        Contention {
            stop,
            stepper,
            spinners,
        }
    }

    pub fn stop(self) -> u64 {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let steps = self.stepper.join().unwrap();
        for s in self.spinners {
            s.join().unwrap();
        }
        steps
    }
}
