//! Stepping and inputs: `mj_step` with the stop latch checked between engine steps and an
//! engine error rolled back, controls and typed inputs checked before admission and written
//! under it, and the combined write-then-step of a host's control loop.

use super::admission::replaced_meanwhile;
use super::{engine_refusal, Answer, Call, Endpoint, Native, Shape};
use crate::doc::Source;
use crate::frame::{Cause, FrameInfo, Requests};
use crate::inputs::{self, Input};
use crate::native::{self, fields::Field};
use crate::outcome::{Outcome, Reason, Refusal};
use crate::world;
use std::sync::Arc;

/// At most this many inputs in one [`Endpoint::write_step`] (and `mjb_write_step`).
pub const MAX_INPUTS: usize = 64;

/// One input as a host gives it: an `mjb_field`, an object id (`-1` for the whole field) and
/// its values, not yet checked.
#[derive(Clone, Copy, Debug)]
pub struct HostInput<'a> {
    pub field: i32,
    pub id: i64,
    pub values: &'a [f64],
}

/// Where a call of several steps is when one of them fails.
#[derive(Clone, Copy, Debug)]
struct Progress {
    /// The tick at admission.
    before: u64,
    /// The failing step, from 1.
    step: u32,
    /// The steps the call asked for.
    of: u32,
    /// The engine's auto-resets counted before it.
    resets: u64,
}

impl Endpoint {
    /// `mj_step` up to `nstep` times, halting at a latched stop between steps.
    pub fn step(&self, nstep: u32, call: impl Into<Call>) -> Answer {
        self.write_checked_step(&[], None, nstep, call.into())
    }

    /// A host's inputs, then `mj_step` up to `nstep` times, under one admission (see
    /// `write_checked_step`). Every input is checked before any is
    /// written; a refusal points at `/inputs/<k>/...`.
    pub fn write_step(&self, inputs: &[HostInput], nstep: u32, call: impl Into<Call>) -> Answer {
        let call = call.into();
        if inputs.is_empty() {
            return self.step(nstep, call);
        }
        let shape = self.shape();
        let unused = Input {
            field: Field::Ctrl,
            id: None,
            values: &[],
        };
        let mut checked = [unused; MAX_INPUTS];
        if inputs.len() > MAX_INPUTS {
            let r = Refusal::new(
                Outcome::InvalidArgument,
                Reason::OutOfRange,
                format!("{} inputs; at most {MAX_INPUTS}", inputs.len()),
            );
            return Answer::refused_at(r, self.safety.view_tick());
        }
        for (k, i) in inputs.iter().enumerate() {
            match inputs::check(i.field, i.id, i.values, &shape.dims, "", false) {
                Ok(c) => checked[k] = c,
                // The pointer is only built for a refusal: this is the hot loop.
                Err(r) => {
                    let r = crate::doc::below(&format!("/inputs/{k}"), r);
                    return Answer::refused_at(r, self.safety.view_tick());
                }
            }
        }
        self.write_checked_step(&checked[..inputs.len()], Some(&shape), nstep, call)
    }

    /// A host loop's tick in one call: the frame requests are checked against the endpoint's
    /// frames first (a request they cannot serve refuses the call with nothing written), then
    /// [`write_step`](Self::write_step), then, when that is `MJB_OK`, the latest frame is read
    /// into the requests without the lock (the second member: `None` when nothing was read).
    pub fn write_step_read<R: Requests + ?Sized>(
        &self,
        inputs: &[HostInput],
        nstep: u32,
        call: impl Into<Call>,
        requests: &mut R,
    ) -> (Answer, Option<Result<FrameInfo, Refusal>>) {
        if let Err(r) = self.frames.view().check(requests) {
            return (Answer::refused_at(r, self.safety.view_tick()), None);
        }
        let a = self.write_step(inputs, nstep, call);
        if a.report.outcome != Outcome::Ok {
            return (a, None);
        }
        let read = self.frames.view().read(requests);
        (a, Some(read))
    }

    /// Write one host input (`id` -1: the whole field) as a world mutation.
    pub fn input_write(
        &self,
        field: i32,
        id: i64,
        values: &[f64],
        call: impl Into<Call>,
    ) -> Answer {
        let shape = self.shape();
        match inputs::check(field, id, values, &shape.dims, "", false) {
            Ok(i) => self.write_inputs(&[i], &shape, call.into()),
            Err(r) => Answer::refused_at(r, self.safety.view_tick()),
        }
    }

    /// Write checked inputs, then `mj_step` up to `nstep` times, under one admission. `shape`
    /// is the model the inputs were checked against (None without inputs): a model replaced
    /// meanwhile is refused with nothing written. A stop latched before admission refuses the
    /// whole call; one latched after the inputs were written halts before the first step
    /// (`MJB_OK`, stop latched, inputs written). The inputs are written after the first
    /// step's pre-image is captured (a pre-step state that cannot be read refuses the call
    /// with nothing written), so an engine error in that step rolls them back with it (the
    /// state before the call, proven); they are recorded once they took effect: when the
    /// first step did, or when a stop halts the call before it.
    fn write_checked_step(
        &self,
        inputs: &[Input],
        shape: Option<&Arc<Shape>>,
        nstep: u32,
        call: Call,
    ) -> Answer {
        if self.safety.is_stopped() && self.safety.fenced().is_none() {
            let t = self.safety.view_tick();
            return stopped(t);
        }
        self.mutate(call, |n, work| {
            let before = n.tick;
            if before.checked_add(u64::from(nstep)).is_none() {
                return overflow(before, nstep);
            }
            let mut written = 0u64;
            if !inputs.is_empty() {
                if let Some(r) = shape.and_then(|s| replaced_meanwhile(n, s, "the inputs")) {
                    return Answer::refused(r, before, before);
                }
                if work.stop_latched() {
                    return stopped(before);
                }
                if nstep == 0 {
                    written = write_before_steps(n, inputs, nstep);
                }
            }
            // Inputs written and not recorded yet: a recording endpoint records them once they
            // took effect (a step they precede may still fail).
            let mut unrecorded = false;
            let mut resets = 0u64;
            let mut answer = None;
            for i in 0..nstep {
                let pre = match self.capture_step(n) {
                    Ok(img) => img,
                    Err(e) => {
                        answer = Some(unreadable(&e, before, n.tick));
                        break;
                    }
                };
                // The first step's pre-image holds the state before the inputs: its rollback
                // takes them back, and a history starts from it (`Native::record_applied`).
                if i == 0 && !inputs.is_empty() {
                    written = write_before_steps(n, inputs, nstep);
                    unrecorded = n.history.is_some();
                }
                if work.stop_latched() {
                    answer = Some(halted(i == 0 && inputs.is_empty(), before, n.tick));
                    break;
                }
                // The step zeroes MuJoCo's reset-warning counters first (a reset zeroes them
                // and then counts itself again, so a counter left at 1 would hide the next).
                let now = match n.mj.step() {
                    Ok(now) => now,
                    Err(e) => {
                        let at = Progress {
                            before,
                            step: i + 1,
                            of: nstep,
                            resets,
                        };
                        return self.step_failed(n, pre, &e, at);
                    }
                };
                // Recorded once it took effect: a step rolled back leaves the history as it was.
                if std::mem::take(&mut unrecorded) {
                    n.record_applied(inputs);
                }
                if let Some(h) = n.history.as_mut() {
                    h.stepped(&n.mj, n.tick, &n.pre);
                }
                n.tick += 1;
                self.safety.publish_tick(n.tick);
                if n.writer.publishes_every_step() {
                    n.writer.publish(&mut n.mj, n.tick, Cause::Step);
                }
                resets += now.badqpos.max(0) as u64
                    + now.badqvel.max(0) as u64
                    + now.badqacc.max(0) as u64;
            }
            // No step took effect after the inputs (a stop latched before it): they stay
            // written, so they are recorded.
            if unrecorded {
                n.record_applied(inputs);
            }
            if !n.writer.publishes_every_step() && n.tick != before {
                n.writer.publish(&mut n.mj, n.tick, Cause::Step);
            }
            // Inputs written but no step taken after them (a stop latched): their frame was
            // left to a step that never came.
            if written != 0 && nstep != 0 && n.tick == before && n.writer.publishes_every_step() {
                n.writer.publish_after_input(&mut n.mj, n.tick, written);
            }
            let mut a = answer.unwrap_or_else(|| Answer::ok(before, n.tick));
            note_resets(&mut a, resets);
            a
        })
    }

    /// An engine error in the step `at` describes: rolled back to the pre-step image `pre`
    /// (the first step's was captured before the call's inputs: the state before the call),
    /// proven or the endpoint fenced, the resets counted so far kept in the report.
    #[cold]
    #[inline(never)]
    fn step_failed(
        &self,
        n: &mut Native,
        pre: super::image::Pre,
        e: &native::NativeError,
        at: Progress,
    ) -> Answer {
        let what = format!(
            "mj_step raised an engine error at step {} of {}: {}",
            at.step,
            at.of,
            e.message()
        );
        let mut a = self.roll_back(n, pre, true, Reason::EngineError, what, at.before);
        a.report.engine_resets = at.resets;
        a
    }

    /// Write `ctrl` (length `nu`, finite values).
    pub fn set_ctrl(&self, ctrl: &[f64], call: impl Into<Call>) -> Answer {
        let t = self.safety.view_tick();
        if let Err(r) = self.check_ctrl(ctrl, "/ctrl") {
            return Answer::refused(r, t, t);
        }
        self.mutate(call.into(), |n, _| self.write_ctrl(n, ctrl, "/ctrl"))
    }

    /// Write checked controls under the lock; the model may have been replaced since the
    /// check, so the length is confirmed against the pair actually held.
    fn write_ctrl(&self, n: &mut Native, ctrl: &[f64], ptr: &str) -> Answer {
        if ctrl.len() as i64 != n.shape.dims.nu {
            let r = Refusal::rejected(
                Reason::Dimension,
                format!(
                    "ctrl has {} values; the model (replaced meanwhile) has nu = {}",
                    ctrl.len(),
                    n.shape.dims.nu
                ),
            )
            .at(ptr);
            return Answer::refused(r, n.tick, n.tick);
        }
        n.record_inputs(&[Input {
            field: Field::Ctrl,
            id: None,
            values: ctrl,
        }]);
        n.mj.write_ctrl(ctrl);
        n.writer
            .publish_after_input(&mut n.mj, n.tick, native::fields::Field::Ctrl.bit());
        Answer::ok(n.tick, n.tick)
    }

    /// Write checked inputs as one world mutation (see [`Endpoint::write_step`]).
    fn write_inputs(&self, inputs: &[Input], shape: &Arc<Shape>, call: Call) -> Answer {
        self.mutate(call, |n, _| {
            if let Some(r) = replaced_meanwhile(n, shape, "the inputs") {
                return Answer::refused(r, n.tick, n.tick);
            }
            n.record_inputs(inputs);
            let written = inputs::apply(&mut n.mj, inputs);
            n.writer.publish_after_input(&mut n.mj, n.tick, written);
            Answer::ok(n.tick, n.tick)
        })
    }

    fn check_ctrl(&self, ctrl: &[f64], ptr: &str) -> Result<(), Refusal> {
        let nu = self.shape().dims.nu;
        if ctrl.len() as i64 != nu {
            return Err(Refusal::rejected(
                Reason::Dimension,
                format!("ctrl has {} values; the model has nu = {nu}", ctrl.len()),
            )
            .at(ptr));
        }
        if let Some(i) = ctrl.iter().position(|x| !x.is_finite()) {
            return Err(
                Refusal::rejected(Reason::NotFinite, format!("ctrl[{i}] is not finite"))
                    .at(crate::doc::pointer_index(ptr, i)),
            );
        }
        Ok(())
    }

    /// Apply a partial world document: only writable fields (the inputs: `ctrl`,
    /// `qfrc_applied`, `xfrc_applied`, `mocap_pos`, `mocap_quat`, `eq_active`).
    pub fn world_write<'a>(&self, doc: impl Source<'a>, call: impl Into<Call>) -> Answer {
        let t = self.safety.view_tick();
        let shape = self.shape();
        let owned = match doc
            .text()
            .and_then(|text| world::parse_write(text, &shape.dims))
        {
            Ok(c) => c,
            Err(r) => return Answer::refused(r, t, t),
        };
        self.write_inputs(&owned.inputs(), &shape, call.into())
    }
}

/// Write a step call's inputs (checked, admitted): recorded now when no step follows, else
/// once their first step took effect (`Native::record_applied`). Returns the mask of the
/// fields written.
fn write_before_steps(n: &mut Native, inputs: &[Input], nstep: u32) -> u64 {
    if nstep == 0 {
        n.record_inputs(inputs);
    }
    let written = inputs::apply(&mut n.mj, inputs);
    // Step frames show the inputs; publish them alone when no step follows.
    if nstep == 0 || !n.writer.publishes_every_step() {
        n.writer.publish_after_input(&mut n.mj, n.tick, written);
    }
    written
}

// The step's rare answers, out of line (`#[cold]`): the common path of a step call is then
// one stretch of code, which matters because `mj_step` evicts it from the instruction cache
// at every call (docs/performance.md, "The step, fourth session of 2026-12-02").

/// Refused: a stop latched before the call (or before its first step, nothing written).
#[cold]
fn stopped(tick: u64) -> Answer {
    Answer::refused(stop_refusal(), tick, tick)
}

/// A stop latched during the call: refused when nothing was done yet (`nothing_done`), else
/// `MJB_OK` with the stop's reason.
#[cold]
fn halted(nothing_done: bool, before: u64, now: u64) -> Answer {
    if nothing_done {
        return stopped(before);
    }
    let mut a = Answer::ok(before, now);
    a.report.reason = Reason::StopLatched;
    a
}

/// The pre-step state could not be read: no step taken from `now` on.
#[cold]
fn unreadable(e: &native::NativeError, before: u64, now: u64) -> Answer {
    Answer::refused(engine_refusal(e, "reading the pre-step state"), before, now)
}

/// Refused: `nstep` more steps would pass the tick's maximum.
#[cold]
fn overflow(before: u64, nstep: u32) -> Answer {
    Answer::refused(overflow_refusal(before, nstep), before, before)
}

/// A step call whose `nstep` would pass the tick's maximum.
fn overflow_refusal(before: u64, nstep: u32) -> Refusal {
    Refusal::rejected(
        Reason::TickOverflow,
        format!(
            "the tick is {before}; {nstep} more steps would pass its maximum {} (no step was taken)",
            u64::MAX
        ),
    )
}

/// Count the engine's auto-resets in the answer; a plain success says it reset.
fn note_resets(a: &mut Answer, resets: u64) {
    a.report.engine_resets = resets;
    if resets > 0 && a.report.outcome == Outcome::Ok && a.report.reason == Reason::None {
        say_reset(a, resets);
    }
}

/// A plain success says that the engine reset (out of line: see `stopped`).
#[cold]
fn say_reset(a: &mut Answer, resets: u64) {
    a.report.reason = Reason::EngineReset;
    a.detail = Some(Refusal::new(
        Outcome::Ok,
        Reason::EngineReset,
        format!(
            "MuJoCo reset the simulation {resets} time(s) after a NaN/Inf in qpos, qvel or qacc"
        ),
    ));
}

fn stop_refusal() -> Refusal {
    Refusal::rejected(
        Reason::StopLatched,
        "a stop is latched; no step was taken (mjb_safety_reset clears it)",
    )
}
