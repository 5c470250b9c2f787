//! Fault injection (the `fault-injection` feature, for tests only): one-shot faults armed on a
//! real MuJoCo pair, so that every native failure path runs through the real engine. Nothing
//! here is compiled into a release library.

use super::shim::{mjb_shim_raise, SHIM_FAILED};
use super::{msg_buf, status, Mujoco, NativeError};
use std::cell::Cell;
use std::ffi::CString;

/// Faults the `fault-injection` feature can arm on a real MuJoCo pair. Each is one-shot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum Fault {
    /// The next state write applies, then MuJoCo raises an error.
    SetterError = 1,
    /// The next state write applies, then reports a status that is neither OK nor error.
    SetterUnexpected = 2,
    /// The next state write stores a value one ulp off the request (readback differs).
    ReadbackMismatch = 3,
    /// The next two state writes are off by one ulp: the restore and its rollback.
    RollbackUnproven = 4,
    /// The next engine step runs, then MuJoCo raises an error.
    StepError = 5,
    /// The next mutation panics inside the boundary.
    Panic = 6,
    /// The next engine step runs, then its `qpos[0]` moves by 1e-6 and nothing is raised: a
    /// silent divergence (what a rewind's verification must catch; one ulp of a position
    /// near 0 would vanish in the next step's sum).
    StepPerturbed = 7,
    /// The next state read (`get_state`) raises, nothing read.
    StateReadError = 8,
    /// The next engine step runs; the first state read after it raises (a keyframe a
    /// recording endpoint takes after that step, or the next step's pre-step image).
    StateReadErrorAfterStep = 9,
    /// The next two engine steps run; the third runs, then MuJoCo raises an error (a step
    /// call that fails after some of its steps took effect).
    ThirdStepError = 10,
}

impl Fault {
    pub fn from_i32(v: i32) -> Option<Fault> {
        use Fault::*;
        [
            SetterError,
            SetterUnexpected,
            ReadbackMismatch,
            RollbackUnproven,
            StepError,
            Panic,
            StepPerturbed,
            StateReadError,
            StateReadErrorAfterStep,
            ThirdStepError,
        ]
        .into_iter()
        .find(|f| *f as i32 == v)
    }
}

#[derive(Default, Debug)]
pub(super) struct Faults {
    setter_error: bool,
    setter_unexpected: bool,
    corrupt_writes: u32,
    /// The engine steps until the one that raises (0: none armed).
    step_error: u32,
    panic: bool,
    perturb_step: bool,
    /// A state read takes `&self`: the one-shot flag is a cell.
    state_read_error: Cell<bool>,
    state_read_error_after_step: bool,
}

impl Faults {
    /// A state write that should not store what was asked: the state with its first value
    /// one ulp off.
    pub(super) fn corrupt_state(&mut self, state: &[f64]) -> Option<Vec<f64>> {
        if self.corrupt_writes == 0 || state.is_empty() {
            return None;
        }
        self.corrupt_writes -= 1;
        let mut v = state.to_vec();
        v[0] = next_up(v[0]);
        Some(v)
    }

    /// The time a public-field write stores.
    pub(super) fn corrupt_time(&mut self, time: f64) -> f64 {
        if self.corrupt_writes == 0 {
            return time;
        }
        self.corrupt_writes -= 1;
        next_up(time)
    }

    pub(super) fn after_write(&mut self) -> Result<(), NativeError> {
        if std::mem::take(&mut self.setter_error) {
            return raise("injected fault: setter raised after writing");
        }
        if std::mem::take(&mut self.setter_unexpected) {
            return Err(NativeError::Unexpected(
                SHIM_FAILED,
                "injected fault: setter reported an unexpected completion".into(),
            ));
        }
        Ok(())
    }

    pub(super) fn before_step(&mut self) {
        if std::mem::take(&mut self.panic) {
            panic!("injected fault: panic inside a native mutation");
        }
    }

    /// Before a state read: an armed read error raises instead.
    pub(super) fn before_state_read(&self) -> Result<(), NativeError> {
        if self.state_read_error.take() {
            return raise("injected fault: state read raised");
        }
        Ok(())
    }

    pub(super) fn after_step(&mut self) -> Result<(), NativeError> {
        if std::mem::take(&mut self.state_read_error_after_step) {
            self.state_read_error.set(true);
        }
        if self.step_error > 0 {
            self.step_error -= 1;
            if self.step_error == 0 {
                return raise("injected fault: step raised after running");
            }
        }
        Ok(())
    }
}

impl Mujoco {
    /// Arm a one-shot fault.
    pub fn arm_fault(&mut self, f: Fault) {
        match f {
            Fault::SetterError => self.faults.setter_error = true,
            Fault::SetterUnexpected => self.faults.setter_unexpected = true,
            Fault::ReadbackMismatch => self.faults.corrupt_writes = 1,
            Fault::RollbackUnproven => self.faults.corrupt_writes = 2,
            Fault::StepError => self.faults.step_error = 1,
            Fault::ThirdStepError => self.faults.step_error = 3,
            Fault::Panic => self.faults.panic = true,
            Fault::StepPerturbed => self.faults.perturb_step = true,
            Fault::StateReadError => self.faults.state_read_error.set(true),
            Fault::StateReadErrorAfterStep => self.faults.state_read_error_after_step = true,
        }
    }

    /// After a step: an armed perturbation moves `qpos[0]` by 1e-6.
    pub(super) fn perturb_after_step(&mut self) -> Result<(), NativeError> {
        if !std::mem::take(&mut self.faults.perturb_step) {
            return Ok(());
        }
        let mut p = self.public();
        if let Some(q) = p.qpos.first_mut() {
            *q += 1e-6;
        }
        self.write_public(&p)
    }
}

/// Raise a real `mju_error` inside a guard and return it as an error.
fn raise(text: &str) -> Result<(), NativeError> {
    let c = CString::new(text).expect("no NUL in fault text");
    let mut msg = msg_buf();
    // SAFETY: valid C string and message buffer.
    let code = unsafe { mjb_shim_raise(c.as_ptr(), msg.as_mut_ptr()) };
    status(code, &msg)
}

fn next_up(x: f64) -> f64 {
    f64::from_bits(x.to_bits() + 1)
}
