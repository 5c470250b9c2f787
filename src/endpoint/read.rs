//! Reads under the native lock: the checkpoint document and the world document (so the
//! public fields and the checkpoint never tear), and a host's own look at the pair.

use super::{engine_refusal, Endpoint, Native};
use crate::checkpoint::{self, Profile};
use crate::doc::write::Writer;
use crate::inputs;
use crate::native::Mujoco;
use crate::outcome::Refusal;
use crate::world;

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
    fn out_buffer(last: usize, numbers: usize) -> String {
        let guess = if last > 0 {
            last + last / 8 + 64
        } else {
            checkpoint::estimated_bytes(numbers)
        };
        String::with_capacity(guess)
    }

    /// The checkpoint document alone.
    pub fn checkpoint_read(&self, timeout_ms: u32) -> Result<String, Refusal> {
        let mut guard = self.admit(timeout_ms)?;
        let n = &mut *guard;
        let shape = n.shape.clone();
        let facts = self.facts(&shape);
        let text = match self.profile {
            Profile::Integration => {
                Self::read_state(n)?;
                let mut w = Writer::reusing(Self::out_buffer(n.last_document_bytes, n.state.len()));
                checkpoint::write_integration(
                    &mut w,
                    &facts,
                    &n.state,
                    n.tick,
                    &Default::default(),
                )?;
                w.into_text()
            }
            Profile::Basic => {
                let p = n.mj.public();
                let mut w = Writer::reusing(Self::out_buffer(
                    n.last_document_bytes,
                    p.qpos.len() + p.qvel.len(),
                ));
                checkpoint::write_basic(&mut w, &facts, &p, n.tick, &Default::default());
                w.into_text()
            }
        };
        n.last_document_bytes = text.len();
        Ok(text)
    }

    /// The world document (resource read and snapshot serve the same bytes).
    pub fn world_read(&self, timeout_ms: u32) -> Result<String, Refusal> {
        let mut guard = self.admit(timeout_ms)?;
        let n = &mut *guard;
        let shape = n.shape.clone();
        let facts = self.facts(&shape);
        let public = n.mj.public();
        let integration = self.profile == Profile::Integration;
        if integration {
            Self::read_state(n)?;
        }
        let served = inputs::served(&n.mj);
        let numbers = n.state.len()
            + 2 * (public.qpos.len() + public.qvel.len())
            + served.iter().map(|(_, v)| v.len()).sum::<usize>();
        let out = Self::out_buffer(n.last_world_bytes, numbers);
        let text = world::write_document(
            world::WorldParts {
                name: &self.name,
                facts: &facts,
                tick: n.tick,
                public: &public,
                declared: self.fidelity.as_ref(),
                state: integration.then_some(&n.state[..]),
                inputs: &served,
            },
            out,
        )?;
        n.last_world_bytes = text.len();
        Ok(text)
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
