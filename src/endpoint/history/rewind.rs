//! [`Endpoint::rewind`]: the recorder lent to the call, the tip kept, the replay from the last
//! keyframe at or before the tick (halted by a stop latched meanwhile), its verification
//! against the recorded hash, and the rollback when it does not land.

use super::{state_hash, History, Summary};
use crate::endpoint::image::Image;
use crate::endpoint::{Answer, Call, Endpoint, Native};
use crate::frame::Cause;
use crate::inputs::Input;
use crate::native::Mujoco;
use crate::outcome::{Outcome, Reason, Refusal};
use crate::safety::InFlight;

/// The recorder lent out of the pair to a rewind (which needs both): put back when the rewind
/// ends, also when it panics (the panic fences the endpoint, and the history stays there for
/// `mjb_history_info` and `mjb_history_export`, with the tip the rewind left kept), its
/// summary published then.
struct Lent<'a> {
    n: &'a mut Native,
    h: Option<History>,
    summary: &'a Summary,
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        if let Some(mut h) = self.h.take() {
            // Nothing here may panic: during an unwind that would abort the host.
            h.abandon_tip();
            self.summary.publish(h.info(self.n.tick));
            self.n.history = Some(h);
        }
    }
}

impl Endpoint {
    /// Restore the exact state the endpoint had at `tick` (see the history's doc): admitted,
    /// fenced and stop-ruled like a restore (admitted while stopped, the stop history kept),
    /// the replay verified against the recorded hash and rolled back when it differs, or when
    /// a stop latched after admission halts it (`MJB_ROLLED_BACK`, `MJB_REASON_STOP_LATCHED`).
    pub fn rewind(&self, tick: u64, call: impl Into<Call>) -> Answer {
        if self.history.is_none() {
            let r = Refusal::rejected(
                Reason::OutOfRange,
                "the endpoint keeps no history (config \"history\"); nothing was done",
            );
            return Answer::refused_at(r, self.safety.view_tick());
        }
        self.mutate(call.into(), |n, work| {
            // A stop latched from here on halts the replay, though it was admitted while
            // stopped: each `mjb_stop` counts.
            let stops = work.stops();
            let halt = Halt { work, stops };
            let mut lent = Lent {
                h: n.history.take(),
                n,
                summary: &self.history_summary,
            };
            let Lent { n, h, .. } = &mut lent;
            self.rewind_locked(n, h.as_mut().expect("configured history"), tick, halt)
        })
    }

    fn rewind_locked(&self, n: &mut Native, h: &mut History, tick: u64, halt: Halt) -> Answer {
        let before = n.tick;
        let (oldest, newest) = h.window(before);
        if tick < oldest || tick > newest {
            let r = Refusal::rejected(
                Reason::OutOfRange,
                format!(
                    "tick {tick} is outside the history window {oldest}..={newest}; nothing was done"
                ),
            );
            return Answer::refused_at(r, before);
        }
        // Leaving the tip: keep it, so that a rewind can come back to it. What the tip
        // changed is taken back when the rewind does not land (its history is then unchanged).
        if !h.scrubbed && !h.push_tip(before, &n.mj) {
            let r = Refusal::rejected(
                Reason::EngineError,
                "reading the current state (the tip a rewind keeps) raised; nothing was done",
            );
            return Answer::refused_at(r, before);
        }
        let a = self.replay_to(n, h, tick, (oldest, newest), halt);
        if a.report.outcome == Outcome::Ok {
            h.keep_tip();
        } else {
            h.take_back_tip();
        }
        a
    }

    /// Install the keyframe at or before `tick`, replay to it and verify the state reached.
    fn replay_to(
        &self,
        n: &mut Native,
        h: &mut History,
        tick: u64,
        window: (u64, u64),
        halt: Halt,
    ) -> Answer {
        let (before, (oldest, newest)) = (n.tick, window);
        let kf = h
            .keyframes
            .iter()
            .rposition(|k| k.tick <= tick)
            .expect("the window starts at a keyframe");
        let Some(expected) = h.expected(tick, kf) else {
            let r = Refusal::rejected(
                Reason::OutOfRange,
                format!("tick {tick} has no recorded state in the window {oldest}..={newest}"),
            );
            return Answer::refused_at(r, before);
        };
        let pre = match self.put(n, Image::State(&h.keyframes[kf].state)) {
            Ok(pre) => pre,
            Err(a) => return a,
        };
        if let Err(e) = replay(&mut n.mj, h, kf, tick, halt) {
            return self.roll_back(n, pre, e.reset, e.reason, e.what, before);
        }
        let got = n
            .shape
            .layout
            .as_ref()
            .map(|l| {
                n.readback.resize(l.size, 0.0);
                n.mj.get_state(l.sig, &mut n.readback)
                    .map(|()| state_hash(&n.readback))
            })
            .expect("history needs the state layout");
        match got {
            Ok(got) if got == expected => {}
            Ok(got) => {
                let what = format!(
                    "replaying to tick {tick} from the keyframe at {} reached state hash {got:016x}, not the recorded {expected:016x}",
                    h.keyframes[kf].tick
                );
                return self.roll_back(n, pre, false, Reason::ReplayDiverged, what, before);
            }
            Err(e) => {
                let what = format!("reading the replayed state raised: {}", e.message());
                return self.roll_back(n, pre, true, Reason::EngineError, what, before);
            }
        }
        h.scrubbed = true;
        n.tick = tick;
        self.safety.publish_tick(tick);
        n.writer.publish(&mut n.mj, tick, Cause::Restore);
        Answer::ok(before, tick)
    }
}

/// Whether a stop was latched since the rewind began: `work`'s stop count moved from `stops`.
#[derive(Clone, Copy)]
struct Halt<'a> {
    work: &'a InFlight<'a>,
    stops: u64,
}

impl Halt<'_> {
    fn latched(&self) -> bool {
        self.work.stops() != self.stops
    }
}

/// Why a replay ended before its tick: the reason and message of the rollback, and whether
/// the data needs a reset first (an engine error).
struct Unfinished {
    reason: Reason,
    what: String,
    reset: bool,
}

/// From keyframe `kf` (installed), re-apply the records after it up to `tick`, stepping
/// between them, and step to `tick`; a stop latched meanwhile (`halt`) ends it before the
/// next step, an engine error at the step that raised.
fn replay(
    mj: &mut Mujoco,
    h: &mut History,
    kf: usize,
    tick: u64,
    halt: Halt,
) -> Result<(), Unfinished> {
    let k = &h.keyframes[kf];
    let mut at = k.tick;
    let mut rec = (k.record - h.first_record) as usize;
    let mut val = (k.value - h.first_value) as usize;
    let step = |mj: &mut Mujoco, at: u64| {
        if halt.latched() {
            return Err(stopped(at, tick));
        }
        mj.step().map(|_| ()).map_err(|e| Unfinished {
            reason: Reason::EngineError,
            what: format!("mj_step raised while replaying tick {at}: {}", e.message()),
            reset: true,
        })
    };
    while let Some(r) = h.records.get(rec).copied().filter(|r| r.tick <= tick) {
        while at < r.tick {
            step(mj, at)?;
            at += 1;
        }
        h.scratch.clear();
        h.scratch
            .extend(h.values.range(val..val + r.len as usize).copied());
        let input = Input {
            field: r.field,
            id: r.id,
            values: &h.scratch,
        };
        crate::inputs::apply(mj, &[input]);
        rec += 1;
        val += r.len as usize;
    }
    while at < tick {
        step(mj, at)?;
        at += 1;
    }
    Ok(())
}

/// A replay halted at tick `at` of its way to `tick` by a stop latched meanwhile.
#[cold]
fn stopped(at: u64, tick: u64) -> Unfinished {
    Unfinished {
        reason: Reason::StopLatched,
        what: format!(
            "a stop latched during the rewind halted its replay at tick {at} on the way to {tick}"
        ),
        reset: false,
    }
}
