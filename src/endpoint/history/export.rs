//! The recording of a stretch of the window (`mjb_history_export`) or of all of it
//! (`mjb_history_export_window`): the start keyframe, the events and keyframe checks after it,
//! every tick's hash ([`crate::recording`] writes it).

use super::{state_hash, History, Keyframe};
use crate::endpoint::{engine_refusal, Endpoint};
use crate::outcome::{Reason, Refusal};
use crate::recording::{Check, Out, Parts};

impl History {
    /// The state hash of every tick from keyframe `kf`'s to `to` (`current`: the hash of the
    /// state now, at tick `now`, when the endpoint is at its tip).
    fn export_hashes(
        &self,
        kf: usize,
        to: u64,
        now: u64,
        current: Option<u64>,
        (oldest, newest): (u64, u64),
    ) -> Result<Vec<u64>, Refusal> {
        let start = &self.keyframes[kf];
        let mut hashes = Vec::with_capacity((to - start.tick + 1) as usize);
        let mut k = kf;
        for t in start.tick..=to {
            while self.keyframes.get(k + 1).is_some_and(|n| n.tick <= t) {
                k += 1;
            }
            let got = match self.expected(t, k) {
                Some(x) => Some(x),
                None if t == now => current,
                None => None,
            };
            match got {
                Some(x) => hashes.push(x),
                None => {
                    return Err(Refusal::rejected(
                        Reason::OutOfRange,
                        format!("tick {t} has no recorded state in the window {oldest}..={newest}"),
                    ))
                }
            }
        }
        Ok(hashes)
    }

    /// The events after keyframe `kf` up to tick `to` (their values into `values`, the states
    /// of their discontinuities into `states`: copies, so that the printing needs no lock),
    /// and the keyframe checks.
    fn export_events(
        &self,
        kf: usize,
        to: u64,
        values: &mut Vec<f64>,
        states: &mut Vec<Box<[f64]>>,
    ) -> (Vec<Out>, Vec<Check>) {
        let start = &self.keyframes[kf];
        // Events in record order; each later keyframe where it was taken (a discontinuity as
        // a restore event, then its hash; others their hash before the next record).
        let mut events = Vec::new();
        let mut keyframes = vec![(start.tick, 0, start.hash)];
        let mut later = self
            .keyframes
            .iter()
            .skip(kf + 1)
            .filter(|k| k.tick <= to)
            .peekable();
        let mut val = (start.value - self.first_value) as usize;
        let first = (start.record - self.first_record) as usize;
        let mut take = |events: &mut Vec<Out>, k: &Keyframe| -> Check {
            if k.restore {
                events.push(Out::Restore {
                    tick: k.tick,
                    state: states.len(),
                });
                states.push(k.state.clone());
            }
            (k.tick, events.len() as u64, k.hash)
        };
        for (i, r) in self.records.iter().enumerate().skip(first) {
            if r.tick > to {
                break;
            }
            let abs = self.first_record + i as u64;
            while let Some(k) = later.next_if(|k| k.record <= abs) {
                keyframes.push(take(&mut events, k));
            }
            let at = values.len();
            values.extend(self.values.range(val..val + r.len as usize).copied());
            val += r.len as usize;
            events.push(Out::Input {
                tick: r.tick,
                field: r.field,
                id: r.id,
                values: at..values.len(),
            });
        }
        for k in later {
            keyframes.push(take(&mut events, k));
        }
        (events, keyframes)
    }
}

impl Endpoint {
    /// The recording document of ticks `from..=to` of the window (`to` = `u64::MAX`: the
    /// newest tick): a read (works on a fenced or stopped endpoint) that holds the native lock
    /// only to copy what it prints.
    /// It starts at the last keyframe at or before `from` (its checkpoint and tick), carries
    /// every input write and discontinuity after it up to `to`, and the state hash of every
    /// tick from the keyframe's to `to` (see [`crate::recording`]).
    pub fn history_export(&self, from: u64, to: u64, timeout_ms: u32) -> Result<String, Refusal> {
        self.export_locked(timeout_ms, |(_, newest)| {
            (from, if to == u64::MAX { newest } else { to })
        })
    }

    /// The recording document of the whole window, from its oldest tick to its newest as they
    /// are once the native lock is held (as [`history_export`](Self::history_export) of
    /// them: no step of another thread can slide the window between reading it and the
    /// export).
    pub fn history_export_window(&self, timeout_ms: u32) -> Result<String, Refusal> {
        self.export_locked(timeout_ms, |window| window)
    }

    /// The export of the ticks `range` picks from the window `(oldest, newest)`: copied under
    /// the native lock, printed and hashed after it (refused before printing when the reader
    /// could not read it: [`crate::recording::write`]).
    fn export_locked(
        &self,
        timeout_ms: u32,
        range: impl FnOnce((u64, u64)) -> (u64, u64),
    ) -> Result<String, Refusal> {
        if self.history.is_none() {
            return Err(Refusal::rejected(
                Reason::OutOfRange,
                "the endpoint keeps no history (config \"history\"); nothing was exported",
            ));
        }
        let (shape, parts) = self.export_parts(timeout_ms, range)?;
        // The lock is released: printing and hashing (most of an export's time) hold nothing.
        crate::recording::write(&crate::recording::Export {
            facts: self.facts(&shape),
            parts,
        })
    }

    /// Under the native lock, a copy of what the export of the ticks `range` picks holds (the
    /// lock is held for the copy only).
    fn export_parts(
        &self,
        timeout_ms: u32,
        range: impl FnOnce((u64, u64)) -> (u64, u64),
    ) -> Result<(std::sync::Arc<crate::endpoint::Shape>, Parts), Refusal> {
        let mut guard = self.admit(timeout_ms)?;
        let n = &mut *guard;
        let h = n.history.as_ref().expect("configured history");
        let (oldest, newest) = h.window(n.tick);
        let (from, to) = range((oldest, newest));
        if from > to {
            return Err(Refusal::rejected(
                Reason::OutOfRange,
                format!("from_tick {from} is after to_tick {to}; nothing was exported"),
            ));
        }
        if h.keyframes.is_empty() || from < oldest || to > newest {
            return Err(Refusal::rejected(
                Reason::OutOfRange,
                format!(
                    "ticks {from}..={to} are not within the history window {oldest}..={newest}; nothing was exported"
                ),
            ));
        }
        let kf = h
            .keyframes
            .iter()
            .rposition(|k| k.tick <= from)
            .expect("the window starts at a keyframe");
        // The current state's hash: the newest tick's when the endpoint is at its tip.
        let current = match (h.scrubbed, n.shape.layout.as_ref()) {
            (false, Some(l)) => {
                n.readback.resize(l.size, 0.0);
                n.mj.get_state(l.sig, &mut n.readback)
                    .map_err(|e| engine_refusal(&e, "reading the state"))?;
                Some(state_hash(&n.readback))
            }
            _ => None,
        };
        let start = &h.keyframes[kf];
        let hashes = h.export_hashes(kf, to, n.tick, current, (oldest, newest))?;
        let (mut values, mut states) = (Vec::new(), Vec::new());
        let (events, keyframes) = h.export_events(kf, to, &mut values, &mut states);
        let parts = Parts {
            from_tick: from,
            end_tick: to,
            start_tick: start.tick,
            start: start.state.clone(),
            events,
            values,
            states,
            hashes,
            keyframes,
        };
        Ok((n.shape.clone(), parts))
    }
}
