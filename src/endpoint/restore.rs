//! Restore: a checkpoint or world document validated in pure Rust (no lock, no native call),
//! then, after admission, the model re-checked and the restore native phase
//! ([`Endpoint::install`]): setter, bitwise readback, rollback proven or the endpoint fenced.

use super::admission::replaced_meanwhile;
use super::image::Image;
use super::{Answer, Call, Endpoint};
use crate::checkpoint::{Buffers, Checkpoint, Profile};
use crate::doc::Source;
use crate::outcome::Refusal;
use crate::world;

impl Endpoint {
    /// Validate a document exactly as [`Endpoint::restore`] does before admission (a
    /// checkpoint, or a world document with its state hash), without restoring it: no lock,
    /// no native call, nothing changes. A refusal carries the reason and the JSON pointer
    /// `restore` would report.
    pub fn validate_checkpoint<'a>(&self, doc: impl Source<'a>) -> Result<Checkpoint, Refusal> {
        let mut bufs = Buffers::default();
        world::validate_restore(doc.text()?, &self.facts(&self.shape()), &mut bufs)
    }

    fn take_buffers(&self) -> Buffers {
        self.spare.lock().pop().unwrap_or_default()
    }

    fn give_back(&self, b: Buffers) {
        let mut spare = self.spare.lock();
        // Enough for a few concurrent restores; more would only hold memory.
        if spare.len() < 4 {
            spare.push(b);
        }
    }

    /// Validate a checkpoint or world document (no lock), then restore it under the lock and
    /// prove it.
    pub fn restore<'a>(&self, doc: impl Source<'a>, call: impl Into<Call>) -> Answer {
        let shape = self.shape();
        let mut bufs = self.take_buffers();
        let validated = doc
            .text()
            .and_then(|text| world::validate_restore(text, &self.facts(&shape), &mut bufs));
        let checkpoint = match validated {
            Ok(c) => c,
            Err(r) => {
                self.give_back(bufs);
                return Answer::refused_at(r, self.safety.view_tick());
            }
        };
        // The basic profile's fields, copied out before the lock is taken.
        let public = match checkpoint.profile {
            Profile::Integration => None,
            Profile::Basic => Some(checkpoint.public()),
        };
        let answer = self.mutate(call.into(), |n, _| {
            // The model may have been replaced between validation and admission.
            if let Some(r) = replaced_meanwhile(n, &shape, "the document") {
                // Where validation would have pointed: inside a world document, its checkpoint.
                let at = world::configuration_pointer(&checkpoint);
                return Answer::refused_at(r.at(at), n.tick);
            }
            let target = match &public {
                None => Image::State(&checkpoint.buffers.values),
                Some(p) => Image::Public(p),
            };
            self.install(n, target, checkpoint.tick())
        });
        self.give_back(checkpoint.into_buffers());
        answer
    }
}
