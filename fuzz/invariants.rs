//! What must hold for any input bytes, shared by the cargo-fuzz targets (`fuzz/fuzz_targets`)
//! and the plain-`cargo test` replay of the corpora and regressions (`tests/fuzz_replay.rs`).
//! Every check panics with the input shown, so a fuzzer reports it as a crash.
//!
//! - A refused restore or world write leaves the world document and the safety state
//!   byte-identical.
//! - An accepted restore round-trips: the checkpoint read back restores again to the same
//!   bytes, and its numbers are the input's, bit for bit.
//! - `mjb_last_error` is valid JSON whose pointer resolves in the input (for a missing field,
//!   the parent resolves and the field is absent) whenever the input is JSON serde_json reads.
//! - Only the outcomes a document can cause occur (no rollback, unknown, fence or panic
//!   without an injected fault).
#![allow(dead_code)]

use mjbridge::endpoint::WAIT_FOREVER;
use mjbridge::ffi::*;
use mjbridge::outcome::Outcome;

fn take(s: *mut mjb_string) -> String {
    assert!(!s.is_null());
    let len = mjb_string_len(s);
    let p = mjb_string_data(s);
    let t = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) }.to_vec();
    assert_eq!(mjb_string_free(s), Outcome::Ok);
    String::from_utf8(t).expect("served documents are UTF-8")
}

fn last_error() -> serde_json::Value {
    let mut needed = 0usize;
    unsafe { mjb_last_error(std::ptr::null_mut(), 0, &mut needed) };
    let mut buf = vec![0u8; needed];
    let o = unsafe { mjb_last_error(buf.as_mut_ptr().cast(), buf.len(), &mut needed) };
    assert_eq!(o, Outcome::Ok);
    buf.pop();
    serde_json::from_slice(&buf).expect("mjb_last_error is JSON")
}

fn shown(input: &[u8]) -> String {
    String::from_utf8_lossy(&input[..input.len().min(300)]).into_owned()
}

/// The refusal's pointer resolves in the input, when serde_json can read the input.
pub fn pointer_resolves(input: &[u8]) {
    let e = last_error();
    assert!(e["reason"].is_string(), "{e}");
    resolves_in(input, &e);
}

/// `e`'s pointer (if any) resolves in the input, when serde_json can read the input.
fn resolves_in(input: &[u8], e: &serde_json::Value) {
    let Some(p) = e["pointer"].as_str() else {
        return;
    };
    let Ok(doc) = serde_json::from_slice::<serde_json::Value>(input) else {
        return; // not JSON serde_json reads (syntax, 1e400, ...): nothing to resolve in
    };
    if e["reason"] == "MJB_REASON_MISSING_FIELD" {
        let (parent, field) = p.rsplit_once('/').expect("a missing field has a parent");
        let field = field.replace("~1", "/").replace("~0", "~");
        let obj = doc.pointer(parent).unwrap_or_else(|| {
            panic!(
                "parent {parent:?} of a missing field does not resolve: {e}\n{}",
                shown(input)
            )
        });
        assert!(
            obj.get(&field).is_none(),
            "{p:?} is said to be missing but is there: {e}\n{}",
            shown(input)
        );
    } else {
        assert!(
            doc.pointer(p).is_some(),
            "pointer {p:?} does not resolve in the input: {e}\n{}",
            shown(input)
        );
    }
}

pub struct Harness {
    pub ep: *mut mjb_endpoint,
    pub name: String,
    baseline: String,
}

impl Drop for Harness {
    fn drop(&mut self) {
        mjb_endpoint_free(self.ep);
    }
}

impl Harness {
    /// An endpoint on `model_path` with `profile`, stepped `steps` times under `ctrl`.
    pub fn new(model_path: &str, profile: &str, ctrl: &[f64], steps: u32) -> Option<Harness> {
        let cfg = format!(
            "{{\"model\":{{\"xml_path\":{}}},\"profile\":\"{profile}\",\"seed\":7}}",
            serde_json::to_string(model_path).unwrap()
        );
        let mut ep = std::ptr::null_mut();
        if unsafe { mjb_endpoint_open(cfg.as_ptr().cast(), cfg.len(), &mut ep) } != Outcome::Ok {
            return None; // a profile this engine cannot serve
        }
        let mut r = mjb_report::default();
        unsafe {
            mjb_set_ctrl(ep, ctrl.as_ptr(), ctrl.len(), WAIT_FOREVER, &mut r);
            mjb_endpoint_step(ep, steps, WAIT_FOREVER, &mut r);
        }
        let mut h = Harness {
            ep,
            name: format!("{model_path} ({profile})"),
            baseline: String::new(),
        };
        h.baseline = h.checkpoint();
        Some(h)
    }

    /// A document-producing read that must succeed.
    fn read(
        &self,
        f: unsafe extern "C" fn(*mut mjb_endpoint, u32, *mut *mut mjb_string) -> mjb_outcome,
    ) -> String {
        let mut s = std::ptr::null_mut();
        assert_eq!(unsafe { f(self.ep, WAIT_FOREVER, &mut s) }, Outcome::Ok);
        take(s)
    }

    pub fn checkpoint(&self) -> String {
        self.read(mjb_checkpoint_read)
    }

    pub fn world(&self) -> String {
        self.read(mjb_world_read)
    }

    fn safety(&self) -> mjb_safety_state {
        let mut s = mjb_safety_state::default();
        assert_eq!(unsafe { mjb_safety_read(self.ep, &mut s) }, Outcome::Ok);
        s
    }

    fn restore_raw(&self, doc: &[u8]) -> (Outcome, mjb_report) {
        let mut r = mjb_report::default();
        let o = unsafe {
            mjb_restore(
                self.ep,
                doc.as_ptr().cast(),
                doc.len(),
                WAIT_FOREVER,
                &mut r,
            )
        };
        assert_eq!(r.outcome, o as i32);
        (o.into(), r)
    }

    /// Put the endpoint back where it started, so inputs do not depend on each other.
    fn reset(&self) {
        let (o, _) = self.restore_raw(self.baseline.as_bytes());
        assert_eq!(o, Outcome::Ok, "baseline restores: {}", last_error());
    }

    /// Restore `input` and check every invariant.
    pub fn restore(&self, input: &[u8]) {
        let (world, safety) = (self.world(), self.safety());
        let (o, r) = self.restore_raw(input);
        match o {
            Outcome::Ok => {
                let first = self.checkpoint();
                let (o2, _) = self.restore_raw(first.as_bytes());
                assert_eq!(o2, Outcome::Ok, "a served checkpoint restores");
                assert_eq!(
                    self.checkpoint(),
                    first,
                    "restore round-trips byte for byte"
                );
                // The input's numbers are the state's, bit for bit.
                let a: serde_json::Value =
                    serde_json::from_slice(input).expect("accepted input is JSON");
                // A world document (a snapshot) restores its native_checkpoint.
                let a = match a.get("world") {
                    Some(w) => w["native_checkpoint"].clone(),
                    None => a,
                };
                let b: serde_json::Value = serde_json::from_str(&first).unwrap();
                for field in ["values", "qpos", "qvel", "ctrl", "act", "time"] {
                    let bits = |v: &serde_json::Value| -> Vec<u64> {
                        match v {
                            serde_json::Value::Array(xs) => {
                                xs.iter().map(|x| x.as_f64().unwrap().to_bits()).collect()
                            }
                            serde_json::Value::Null => vec![],
                            x => vec![x.as_f64().unwrap().to_bits()],
                        }
                    };
                    assert_eq!(bits(&a[field]), bits(&b[field]), "{field} restored exactly");
                }
                assert_eq!(self.safety(), safety, "restore keeps the safety state");
                self.reset();
            }
            Outcome::Rejected | Outcome::InvalidArgument => {
                assert_eq!(r.sequence, 0, "refused before admission");
                pointer_resolves(input);
                assert_eq!(
                    self.world(),
                    world,
                    "a refusal changes nothing\n{}",
                    shown(input)
                );
                assert_eq!(self.safety(), safety);
            }
            other => panic!(
                "{}: restore answered {other:?}: {}\n{}",
                self.name,
                last_error(),
                shown(input)
            ),
        }
    }

    /// Apply `input` as a world write and check every invariant.
    pub fn world_write(&self, input: &[u8]) {
        let (world, safety) = (self.world(), self.safety());
        let mut r = mjb_report::default();
        let o = unsafe {
            mjb_world_write(
                self.ep,
                input.as_ptr().cast(),
                input.len(),
                WAIT_FOREVER,
                &mut r,
            )
        };
        match o {
            mjb_outcome::MJB_OK => {
                // Only writable inputs changed: the served read-only fields are as before.
                let before: serde_json::Value = serde_json::from_str(&world).unwrap();
                let after: serde_json::Value = serde_json::from_str(&self.world()).unwrap();
                for f in [
                    "tick", "time", "qpos", "qvel", "act", "seed", "name", "profile",
                ] {
                    assert_eq!(before["world"][f], after["world"][f], "{f} is read-only");
                }
                let asked: serde_json::Value = serde_json::from_slice(input).unwrap();
                if let Some(ctrl) = asked["world"].get("ctrl") {
                    assert_eq!(&after["world"]["ctrl"], ctrl, "ctrl written as given");
                }
                assert_eq!(self.safety(), safety);
                self.reset();
            }
            mjb_outcome::MJB_REJECTED | mjb_outcome::MJB_INVALID_ARGUMENT => {
                pointer_resolves(input);
                assert_eq!(
                    self.world(),
                    world,
                    "a refusal changes nothing\n{}",
                    shown(input)
                );
                assert_eq!(self.safety(), safety);
            }
            other => panic!(
                "world write answered {other:?}: {}\n{}",
                last_error(),
                shown(input)
            ),
        }
    }
}

/// Open an endpoint from `input` as its configuration; a refusal explains itself.
pub fn endpoint_config(input: &[u8]) {
    let mut ep = std::ptr::null_mut();
    let o = unsafe { mjb_endpoint_open(input.as_ptr().cast(), input.len(), &mut ep) };
    match o {
        mjb_outcome::MJB_OK => {
            assert!(!ep.is_null());
            assert_eq!(mjb_endpoint_free(ep), Outcome::Ok);
        }
        mjb_outcome::MJB_REJECTED | mjb_outcome::MJB_INVALID_ARGUMENT => {
            assert!(ep.is_null(), "no handle on refusal");
            pointer_resolves(input);
        }
        other => panic!(
            "open answered {other:?}: {}\n{}",
            last_error(),
            shown(input)
        ),
    }
}

/// The endpoints the restore and world-write targets drive: every profile of this engine on
/// the model with contacts, activation, equalities and mocap, and (MuJoCo >= 3.5) the model
/// with history buffers.
pub fn harnesses(models: &std::path::Path) -> Vec<Harness> {
    let contact = models.join("contact_act.xml");
    // The history model with plastic state where the engine has it (4.0), else without.
    let history = if mjbridge::native::engine()
        .component_mask("plastic")
        .is_some()
    {
        models.join("history_plastic.xml")
    } else {
        models.join("history.xml")
    };
    let mut v = Vec::new();
    for profile in ["mujoco_integration_v1", "mujoco_basic_v1"] {
        v.extend(Harness::new(
            contact.to_str().unwrap(),
            profile,
            &[0.3, -0.3],
            20,
        ));
    }
    if mjbridge::native::engine()
        .component_mask("history")
        .is_some()
    {
        v.extend(Harness::new(
            history.to_str().unwrap(),
            "mujoco_integration_v1",
            &[1.0, 3.0],
            7,
        ));
    }
    v
}

/// The harness endpoints, made once per process: the restore and world-write fuzz targets
/// share them (libFuzzer runs a target on one thread).
pub fn shared_harnesses() -> &'static [Harness] {
    struct Endpoints(Vec<Harness>);
    // SAFETY: the fuzz targets call in from one thread at a time; the endpoints themselves
    // are thread-safe behind their handles.
    unsafe impl Send for Endpoints {}
    unsafe impl Sync for Endpoints {}
    static E: std::sync::OnceLock<Endpoints> = std::sync::OnceLock::new();
    &E.get_or_init(|| {
        let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models");
        Endpoints(harnesses(&models))
    })
    .0
}

/// Read `input` as a recording (`mjbridge::recording::read`, what `mjbridge replay` reads):
/// the same answer twice; a refusal's pointer resolves in the input; an accepted recording is
/// consistent (one hash per tick from its start to its end, events and keyframe checks in
/// order within that range).
pub fn recording(input: &[u8]) {
    let first = mjbridge::recording::read(input);
    assert_eq!(first, mjbridge::recording::read(input), "{}", shown(input));
    match first {
        Err(r) => {
            let e = serde_json::json!({
                "reason": r.reason.name(),
                "pointer": r.pointer,
                "message": r.message,
            });
            resolves_in(input, &e);
        }
        Ok(rec) => {
            assert!(rec.first_tick <= rec.from_tick && rec.from_tick <= rec.end_tick);
            assert_eq!(
                rec.tick_hashes.len() as u64,
                rec.end_tick - rec.first_tick + 1,
                "{}",
                shown(input)
            );
            let ticks: Vec<u64> = rec.events.iter().map(|e| e.tick()).collect();
            assert!(ticks.windows(2).all(|w| w[0] <= w[1]), "{}", shown(input));
            assert!(ticks
                .iter()
                .all(|t| (rec.first_tick..=rec.end_tick).contains(t)));
            let checks = &rec.keyframe_hashes;
            assert!(checks
                .windows(2)
                .all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1));
            assert!(checks
                .iter()
                .all(|c| c.1 <= rec.events.len() as u64 && c.0 <= rec.end_tick));
        }
    }
}
