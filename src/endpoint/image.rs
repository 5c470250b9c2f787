//! Pre-images and rollback: what a mutation captures before it touches the engine, how an
//! image is written and proven by bitwise readback, and how a failed native effect is rolled
//! back (proven → `MJB_ROLLED_BACK`, not provable → `MJB_UNKNOWN` and a fence). The restore
//! native phase ([`Endpoint::install`]) is here too: restore and every other way of setting a
//! whole state share it.

use super::{engine_refusal, Answer, Endpoint, Native, Shape};
use crate::frame::Cause;
use crate::native::{Mujoco, NativeError, Public};
use crate::outcome::{Outcome, Reason, Refusal};

/// A state image to restore or to roll back to: the integration state in a buffer, or the
/// public fields where the engine has no state API.
#[derive(Clone, Copy)]
pub(super) enum Image<'a> {
    State(&'a [f64]),
    Public(&'a Public),
}

/// What a mutation captured before touching the engine: the integration state (in
/// `Native::pre`), the same as the pair's state plan copies it (for a step, kept by the pair:
/// see [`Endpoint::capture_step`]), or the public fields (in `Native::pre_public`) where the
/// engine has no state API. The buffers are reused: capturing allocates nothing.
#[derive(Clone, Copy)]
pub(super) enum Pre {
    State,
    Image,
    Public,
}

impl Endpoint {
    /// Capture the most complete image this engine can read back: the integration state (into
    /// `n.pre`) where the state API exists, else the public fields.
    pub(super) fn capture_pre(&self, n: &mut Native) -> Result<Pre, NativeError> {
        match n.shape.layout.as_ref() {
            Some(l) => {
                n.pre.resize(l.size, 0.0);
                n.mj.get_state(l.sig, &mut n.pre)?;
                Ok(Pre::State)
            }
            None => {
                n.mj.public_into(&mut n.pre_public);
                Ok(Pre::Public)
            }
        }
    }

    /// A step's pre-step image: as [`Endpoint::capture_pre`], but where the pair has a proven
    /// state plan the components are copied as the plan lays them out, in as few stretches
    /// as the data allows, the inputs only when something wrote them since the last step,
    /// and only turned into the state vector when a rollback needs it. A recording endpoint
    /// hashes each pre-step state, so it takes the state vector at once.
    pub(super) fn capture_step(&self, n: &mut Native) -> Result<Pre, NativeError> {
        match n.shape.layout.as_ref() {
            Some(l) if n.history.is_none() && n.mj.capture_image(l.sig) => Ok(Pre::Image),
            _ => self.capture_pre(n),
        }
    }

    fn write_image(mj: &mut Mujoco, shape: &Shape, image: Image) -> Result<(), NativeError> {
        match image {
            Image::State(v) => {
                let sig = shape
                    .layout
                    .as_ref()
                    .expect("state image needs a layout")
                    .sig;
                mj.set_state(sig, v)
            }
            Image::Public(p) => mj.write_public(p),
        }
    }

    /// Read back and compare bit for bit.
    fn reads_back(
        mj: &Mujoco,
        shape: &Shape,
        image: Image,
        readback: &mut Vec<f64>,
    ) -> Result<bool, NativeError> {
        Ok(match image {
            Image::State(want) => {
                let l = shape.layout.as_ref().expect("state image needs a layout");
                if let Some(same) = mj.state_matches(l.sig, want) {
                    return Ok(same);
                }
                readback.resize(l.size, 0.0);
                mj.get_state(l.sig, readback)?;
                readback.len() == want.len()
                    && readback
                        .iter()
                        .zip(want)
                        .all(|(a, b)| a.to_bits() == b.to_bits())
            }
            Image::Public(want) => mj.public().same_bits(want),
        })
    }

    /// Put `pre` back (after a reset when the engine raised mid-call) and prove it.
    pub(super) fn roll_back(
        &self,
        n: &mut Native,
        pre: Pre,
        reset_first: bool,
        cause: Reason,
        what: String,
        tick_before: u64,
    ) -> Answer {
        let tick_now = n.tick;
        let restored = (|| {
            if reset_first {
                n.mj.reset()?;
            }
            let image = match pre {
                Pre::State => Image::State(&n.pre),
                Pre::Image => {
                    let l = n.shape.layout.as_ref().expect("an image needs a layout");
                    n.pre.resize(l.size, 0.0);
                    if !n.mj.unpack_image(l.sig, &mut n.pre) {
                        return Err(NativeError::Failed(
                            "the pre-step image does not fit the pair's state plan".into(),
                        ));
                    }
                    Image::State(&n.pre)
                }
                Pre::Public => Image::Public(&n.pre_public),
            };
            Self::write_image(&mut n.mj, &n.shape, image)?;
            Self::reads_back(&n.mj, &n.shape, image, &mut n.readback)
        })();
        if let Ok(true) = restored {
            n.writer.publish(&mut n.mj, n.tick, Cause::Rollback);
        }
        match restored {
            Ok(true) => Answer::refused(
                Refusal::new(
                    Outcome::RolledBack,
                    cause,
                    format!("{what}; the prior state was restored and verified bit for bit"),
                ),
                tick_before,
                tick_now,
            ),
            Ok(false) => self.unknown(
                Reason::RollbackUnproven,
                format!("{what}; rolling back did not read back the prior state: endpoint fenced"),
                tick_before,
                tick_now,
            ),
            Err(e) => self.unknown(
                Reason::RollbackUnproven,
                format!(
                    "{what}; rolling back failed ({}): endpoint fenced",
                    e.message()
                ),
                tick_before,
                tick_now,
            ),
        }
    }

    /// The restore native phase (SPEC §3), under the native lock after admission and the
    /// model check: capture the pre-image, write `target` (guarded setter), read it back bit
    /// for bit, set the tick and publish a frame; a failed setter or readback is rolled back
    /// and proven, or the endpoint fenced. A recording endpoint keeps `target` as a
    /// discontinuity of its history.
    pub(super) fn install(&self, n: &mut Native, target: Image, tick: u64) -> Answer {
        let before = n.tick;
        if let Err(a) = self.put(n, target) {
            return a;
        }
        if let (Some(h), Image::State(v)) = (n.history.as_mut(), target) {
            h.restored(before, tick, v);
        }
        n.tick = tick;
        self.safety.publish_tick(tick);
        n.writer.publish(&mut n.mj, tick, Cause::Restore);
        Answer::ok(before, tick)
    }

    /// Capture the pre-image, write `target` (guarded setter) and read it back bit for bit;
    /// the tick is left alone. A failure is rolled back and proven, or the endpoint fenced:
    /// that answer is the error.
    pub(super) fn put(&self, n: &mut Native, target: Image) -> Result<Pre, Answer> {
        let before = n.tick;
        let pre = match self.capture_pre(n) {
            Ok(img) => img,
            Err(e) => {
                return Err(Answer::refused(
                    engine_refusal(&e, "reading the pre-restore state"),
                    before,
                    before,
                ))
            }
        };
        Err(match Self::write_image(&mut n.mj, &n.shape, target) {
            Ok(()) => match Self::reads_back(&n.mj, &n.shape, target, &mut n.readback) {
                Ok(true) => return Ok(pre),
                Ok(false) => self.roll_back(
                    n,
                    pre,
                    false,
                    Reason::VerificationMismatch,
                    "the restored state did not read back bit for bit".into(),
                    before,
                ),
                Err(e) => self.roll_back(
                    n,
                    pre,
                    true,
                    Reason::EngineError,
                    format!("reading back the restored state raised: {}", e.message()),
                    before,
                ),
            },
            Err(NativeError::Unexpected(code, msg)) => self.unknown(
                Reason::SetterUnexpectedCompletion,
                format!(
                    "the state setter completed with unexpected status {code} ({msg}): endpoint fenced"
                ),
                before,
                before,
            ),
            Err(e) => {
                let raised = matches!(e, NativeError::Engine(_));
                self.roll_back(
                    n,
                    pre,
                    raised,
                    Reason::SetterFailed,
                    format!("the state setter failed: {}", e.message()),
                    before,
                )
            }
        })
    }
}
