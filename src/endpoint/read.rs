//! Reads under the native lock: the checkpoint document and the world document (so the
//! public fields and the checkpoint never tear), and a host's own look at the pair.

use super::image::Image;
use super::{engine_refusal, Endpoint, Native};
use crate::checkpoint::Facts;
use crate::checkpoint::{self, Profile};
use crate::doc::write::Writer;
use crate::inputs;
use crate::native::Mujoco;
use crate::outcome::Refusal;
use crate::world;

/// Where the endpoint was when a document was read: the tick and the model configuration a
/// caller can make its next mutation conditional on ([`super::Expect`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    pub tick: u64,
    pub configuration: u64,
    /// The publication number of the endpoint's last frame.
    pub frame: u64,
}

impl Seen {
    fn of(n: &Native) -> Seen {
        Seen {
            tick: n.tick,
            configuration: n.shape.configuration,
            frame: n.writer.published(),
        }
    }
}

/// Print the checkpoint document of a state image: what `mjb_checkpoint_read` serves, and what
/// a restore point gives back (the same bytes for the same facts, image and tick). `last`: the
/// size of the last document of its kind, to size the buffer once.
pub(super) fn print_checkpoint(
    facts: &Facts,
    image: Image,
    tick: u64,
    last: usize,
) -> Result<String, Refusal> {
    let numbers = match image {
        Image::State(v) => v.len(),
        Image::Public(p) => p.qpos.len() + p.qvel.len(),
    };
    let mut w = Writer::reusing(Endpoint::out_buffer(last, numbers));
    match image {
        Image::State(v) => {
            checkpoint::write_integration(&mut w, facts, v, tick, &Default::default())?;
        }
        Image::Public(p) => {
            checkpoint::write_basic(&mut w, facts, p, tick, &Default::default());
        }
    }
    crate::doc::servable(w.into_text(), "checkpoint document")
}

/// Whether the world document serves this array on this engine (`eq_active` needs MuJoCo's
/// mjData to have it).
fn name_served(name: &str) -> bool {
    name != "eq_active" || crate::native::fields::Field::EqActive.available()
}

impl Endpoint {
    /// Read the integration state into `n.state` (the engine has the state API).
    fn read_state(n: &mut Native) -> Result<(), Refusal> {
        let l = n.shape.layout.as_ref().expect("state API present");
        n.state.resize(l.size, 0.0);
        n.mj.get_state(l.sig, &mut n.state)
            .map_err(|e| engine_refusal(&e, "reading the state"))
    }

    /// An output buffer sized from the last document of its kind (`last` bytes), or from an
    /// estimate for the first one.
    pub(super) fn out_buffer(last: usize, numbers: usize) -> String {
        let guess = if last > 0 {
            last + last / 8 + 64
        } else {
            checkpoint::estimated_bytes(numbers)
        };
        String::with_capacity(guess)
    }

    /// The checkpoint document alone.
    pub fn checkpoint_read(&self, timeout_ms: u32) -> Result<String, Refusal> {
        self.checkpoint_read_seen(timeout_ms).map(|(text, _)| text)
    }

    /// The checkpoint document and where the endpoint was when it was read.
    pub fn checkpoint_read_seen(&self, timeout_ms: u32) -> Result<(String, Seen), Refusal> {
        let mut guard = self.admit(timeout_ms)?;
        let n = &mut *guard;
        let seen = Seen::of(n);
        let shape = n.shape.clone();
        let facts = self.facts(&shape);
        let public;
        let image = match self.profile {
            Profile::Integration => {
                Self::read_state(n)?;
                Image::State(&n.state)
            }
            Profile::Basic => {
                public = n.mj.public();
                Image::Public(&public)
            }
        };
        let text = print_checkpoint(&facts, image, n.tick, n.last_document_bytes)?;
        n.last_document_bytes = text.len();
        Ok((text, seen))
    }

    /// The world document (resource read and snapshot serve the same bytes).
    pub fn world_read(&self, timeout_ms: u32) -> Result<String, Refusal> {
        self.world_read_seen(timeout_ms).map(|(text, _)| text)
    }

    /// The world document and where the endpoint was when it was read.
    pub fn world_read_seen(&self, timeout_ms: u32) -> Result<(String, Seen), Refusal> {
        let mut guard = self.admit(timeout_ms)?;
        let n = &mut *guard;
        let seen = Seen::of(n);
        let shape = n.shape.clone();
        let facts = self.facts(&shape);
        let text = match self.profile {
            Profile::Integration => {
                // Every served array is a segment of the state vector: printed from it, with no
                // copy out of mjData.
                Self::read_state(n)?;
                let l = shape
                    .layout
                    .as_ref()
                    .expect("the integration profile has a layout");
                let mut arrays: Vec<(&'static str, &[f64])> = Vec::with_capacity(9);
                for name in world::ARRAYS {
                    if !name_served(name) {
                        continue;
                    }
                    arrays.push((name, &n.state[l.range(name)]));
                }
                let time = n.state[l.range("time")][0];
                world::write_document(
                    world::WorldParts {
                        name: &self.name,
                        facts: &facts,
                        tick: n.tick,
                        time,
                        arrays: &arrays,
                        declared: (&self.declared.0, &self.declared.1),
                        checkpoint: world::Held::State(&n.state),
                    },
                    Self::out_buffer(n.last_world_bytes, 2 * n.state.len()),
                    &mut n.world_plan,
                )?
            }
            Profile::Basic => {
                let public = n.mj.public();
                let served = inputs::served(&n.mj);
                let mut arrays: Vec<(&'static str, &[f64])> = vec![
                    ("qpos", &public.qpos),
                    ("qvel", &public.qvel),
                    ("ctrl", &public.ctrl),
                    ("act", &public.act),
                ];
                arrays.extend(served.iter().map(|(k, v)| (*k, &v[..])));
                let numbers = arrays.iter().map(|(_, v)| v.len()).sum::<usize>() * 2;
                world::write_document(
                    world::WorldParts {
                        name: &self.name,
                        facts: &facts,
                        tick: n.tick,
                        time: public.time,
                        arrays: &arrays,
                        declared: (&self.declared.0, &self.declared.1),
                        checkpoint: world::Held::Public(&public),
                    },
                    Self::out_buffer(n.last_world_bytes, numbers),
                    &mut n.world_plan,
                )?
            }
        };
        n.last_world_bytes = text.len();
        let text = crate::doc::servable(text, "world document")?;
        Ok((text, seen))
    }

    /// Run `f` on the owned pair under the native lock (for hosts' own reads and for tests).
    pub fn with_native<R>(
        &self,
        timeout_ms: u32,
        f: impl FnOnce(&Mujoco, u64) -> R,
    ) -> Result<R, Refusal> {
        let n = self.admit(timeout_ms)?;
        Ok(f(&n.mj, n.tick))
    }

    /// Arm a one-shot fault on the owned pair (fault-injection builds).
    #[cfg(feature = "fault-injection")]
    pub fn arm_fault(&self, fault: crate::native::Fault, timeout_ms: u32) -> Result<(), Refusal> {
        let mut n = self.admit(timeout_ms)?;
        n.mj.arm_fault(fault);
        Ok(())
    }
}
