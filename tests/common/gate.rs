//! A MuJoCo control callback that blocks chosen models until released, so tests can hold a
//! thread inside `mj_step` (and so inside the native lock) deterministically.
//!
//! `mjcb_control` is process-global: the callback only blocks for models registered here, so
//! other tests in the same binary are unaffected.
#![allow(dead_code)]

use mjbridge::native::{MjData, MjModel};
use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, OnceLock};

type ControlCb = Option<unsafe extern "C" fn(*const MjModel, *mut MjData)>;

extern "C" {
    static mut mjcb_control: ControlCb;
}

#[derive(Default)]
struct GateState {
    /// Calls that have entered the callback and are waiting.
    entered: u64,
    open: bool,
}

/// One gate per model pointer.
#[derive(Default)]
pub struct Gate {
    state: Mutex<GateState>,
    cv: Condvar,
}

fn gates() -> &'static Mutex<HashMap<usize, Arc<Gate>>> {
    static G: OnceLock<Mutex<HashMap<usize, Arc<Gate>>>> = OnceLock::new();
    G.get_or_init(Default::default)
}

unsafe extern "C" fn control(m: *const MjModel, _d: *mut MjData) {
    let gate = gates().lock().unwrap().get(&(m as usize)).cloned();
    if let Some(g) = gate {
        let mut s = g.state.lock().unwrap();
        s.entered += 1;
        g.cv.notify_all();
        while !s.open {
            s = g.cv.wait(s).unwrap();
        }
    }
}

/// Install the callback (idempotent) and register a closed gate for `model`.
pub fn install(model: *mut MjModel) -> Arc<Gate> {
    unsafe {
        let slot = std::ptr::addr_of_mut!(mjcb_control);
        if (*slot).is_none() {
            *slot = Some(control);
        }
    }
    let g = Arc::new(Gate::default());
    gates().lock().unwrap().insert(model as usize, g.clone());
    g
}

impl Gate {
    /// Block until at least `n` callback calls have entered the gate.
    pub fn wait_entered(&self, n: u64) {
        let mut s = self.state.lock().unwrap();
        while s.entered < n {
            s = self.cv.wait(s).unwrap();
        }
    }

    /// Calls that have entered the gate so far.
    pub fn entered(&self) -> u64 {
        self.state.lock().unwrap().entered
    }

    pub fn open(&self) {
        self.state.lock().unwrap().open = true;
        self.cv.notify_all();
    }

    pub fn close(&self) {
        self.state.lock().unwrap().open = false;
    }
}
