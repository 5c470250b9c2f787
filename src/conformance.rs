//! Conformance checks shared by the `mjbridge` command's package gate and the test suite: the
//! corrupted variants of a served checkpoint, each with the refusal it must get, and the check
//! that it is refused with nothing changed.

use crate::checkpoint::Profile;
use crate::doc::value::{self, Num, Value};
use crate::endpoint::{Answer, Endpoint, WAIT_FOREVER};
use crate::outcome::{Outcome, Reason};

fn get_mut<'a>(v: &'a mut Value, key: &str) -> &'a mut Value {
    match v {
        Value::Obj(fields) => fields
            .iter_mut()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
            .expect("served checkpoint member"),
        _ => panic!("not an object"),
    }
}

fn int_of(v: &Value) -> i64 {
    match v {
        Value::Num(Num::Int(Some(i), _)) => *i as i64,
        _ => panic!("served integer"),
    }
}

/// One corrupted document and what its refusal must say.
#[derive(Clone, Debug)]
pub struct Corruption {
    pub name: &'static str,
    pub doc: String,
    pub reason: Reason,
    /// None where the pointer is not part of the promise (malformed JSON, where it only says
    /// how far the parser got).
    pub pointer: Option<String>,
}

/// The corrupted variants of `checkpoint` (a checkpoint `ep` served), each with the reason
/// and pointer its refusal must carry: truncated, an unknown member, the other profile,
/// another engine, descriptor, configuration and seed, a non-finite value, and per profile a
/// public field that is not its segment, an equality activation of 0.5, or a wrong length.
pub fn corruptions(ep: &Endpoint, checkpoint: &str) -> Vec<Corruption> {
    let cp = value::parse(checkpoint.as_bytes()).expect("served checkpoint parses");
    let mut cases = common_corruptions(ep, checkpoint, &cp);
    cases.extend(not_finite(ep, checkpoint));
    if ep.profile() == Profile::Integration {
        cases.extend(integration_corruptions(ep, &cp));
    } else {
        cases.push(basic_corruption(&cp));
    }
    cases
}

/// `cp` with one edit, as JSON.
fn edit(cp: &Value, f: impl FnOnce(&mut Value)) -> String {
    let mut v = cp.clone();
    f(&mut v);
    v.to_json()
}

/// The corruptions of either profile: truncated, an unknown member, the other profile,
/// another engine, descriptor, configuration and seed.
fn common_corruptions(ep: &Endpoint, cp_text: &str, cp: &Value) -> Vec<Corruption> {
    vec![
        Corruption {
            name: "truncated",
            doc: cp_text[..cp_text.len() / 2].to_owned(),
            reason: Reason::MalformedJson,
            pointer: None,
        },
        Corruption {
            name: "unknown_field",
            doc: edit(cp, |v| {
                if let Value::Obj(f) = v {
                    f.push(("unexpected".into(), 1u64.into()));
                }
            }),
            reason: Reason::UnknownField,
            pointer: Some("/unexpected".into()),
        },
        Corruption {
            name: "other_profile",
            doc: edit(cp, |v| {
                let other = match ep.profile() {
                    Profile::Integration => Profile::Basic,
                    Profile::Basic => Profile::Integration,
                };
                *get_mut(v, "profile") = other.name().into();
            }),
            reason: Reason::Profile,
            pointer: Some("/profile".into()),
        },
        Corruption {
            name: "other_engine",
            doc: edit(cp, |v| *get_mut(v, "engine") = "0.0.0-other".into()),
            reason: Reason::Engine,
            pointer: Some("/engine".into()),
        },
        Corruption {
            name: "descriptor_nq",
            doc: edit(cp, |v| {
                let d = get_mut(v, "descriptor");
                let nq = get_mut(d, "nq");
                *nq = (int_of(nq) + 1).into();
            }),
            reason: Reason::Descriptor,
            pointer: Some("/descriptor/nq".into()),
        },
        Corruption {
            name: "other_configuration",
            doc: edit(cp, |v| {
                let d = get_mut(v, "descriptor");
                let c = get_mut(d, "configuration");
                *c = (int_of(c) + 1).into();
            }),
            reason: Reason::Configuration,
            pointer: Some("/descriptor/configuration".into()),
        },
        Corruption {
            name: "other_seed",
            doc: edit(cp, |v| {
                let s = get_mut(v, "seed");
                *s = (int_of(s) as u64).wrapping_add(1).into();
            }),
            reason: Reason::Seed,
            pointer: Some("/seed".into()),
        },
    ]
}

/// A number beyond any double, written in place of the first native value (none when the
/// array is empty).
fn not_finite(ep: &Endpoint, cp_text: &str) -> Option<Corruption> {
    let integration = ep.profile() == Profile::Integration;
    let array = if integration { "values" } else { "qpos" };
    let key = format!("\"{array}\":[");
    if let Some(at) = cp_text.find(&key) {
        let start = at + key.len();
        let end = start + cp_text[start..].find([',', ']']).expect("array closes");
        if end > start {
            return Some(Corruption {
                name: "not_finite",
                doc: format!("{}1e400{}", &cp_text[..start], &cp_text[end..]),
                reason: Reason::NotFinite,
                pointer: Some(format!("/{array}/0")),
            });
        }
    }
    None
}

/// The integration profile's own: a public field that is not its segment, an equality
/// activation of 0.5.
fn integration_corruptions(ep: &Endpoint, cp: &Value) -> Vec<Corruption> {
    let mut cases = Vec::new();
    let nq = ep.shape().dims.nq;
    if nq > 0 {
        cases.push(Corruption {
            name: "qpos_not_its_segment",
            doc: edit(cp, |v| {
                let q = get_mut(v, "qpos");
                if let Value::Arr(items) = q {
                    let Value::Num(n) = items[0] else {
                        panic!("served number")
                    };
                    let x = n.value();
                    items[0] = f64::from_bits(x.to_bits() ^ 1).into();
                }
            }),
            reason: Reason::PublicFieldMismatch,
            pointer: Some("/qpos/0".into()),
        });
    }
    let eq = ep
        .shape()
        .layout
        .as_ref()
        .map(|l| l.range("eq_active"))
        .unwrap_or(0..0);
    if !eq.is_empty() {
        let i = eq.start;
        cases.push(Corruption {
            name: "equality_activation_not_0_or_1",
            doc: edit(cp, |v| {
                if let Value::Arr(items) = get_mut(v, "values") {
                    items[i] = 0.5f64.into();
                }
            }),
            reason: Reason::EqActiveDomain,
            pointer: Some(format!("/values/{i}")),
        });
    }
    cases
}

/// The basic profile's own: `qpos` one value too long.
fn basic_corruption(cp: &Value) -> Corruption {
    Corruption {
        name: "qpos_too_long",
        doc: edit(cp, |v| {
            if let Value::Arr(items) = get_mut(v, "qpos") {
                items.push(0.0f64.into());
            }
        }),
        reason: Reason::Dimension,
        pointer: Some("/qpos".into()),
    }
}

/// What restoring one corruption did.
#[derive(Debug)]
pub struct Refused {
    pub answer: Answer,
    /// The refusal's pointer.
    pub pointer: Option<String>,
    /// The world document and the safety state are what they were before.
    pub unchanged: bool,
    /// Refused (`MJB_REJECTED`) with the expected reason and pointer, nothing changed.
    pub ok: bool,
}

impl Corruption {
    /// Restore this document on `ep` (which served the checkpoint) and check the refusal.
    pub fn refuse(&self, ep: &Endpoint) -> Refused {
        let observe = || (ep.world_read(WAIT_FOREVER), ep.safety_view());
        let before = observe();
        let answer = ep.restore(self.doc.as_bytes(), WAIT_FOREVER);
        let after = observe();
        let pointer = answer.detail.as_ref().and_then(|d| d.pointer.clone());
        let unchanged = before.0.is_ok() && before == after;
        let ok = answer.report.outcome == Outcome::Rejected
            && answer.report.reason == self.reason
            && (self.pointer.is_none() || pointer == self.pointer)
            && unchanged;
        Refused {
            answer,
            pointer,
            unchanged,
            ok,
        }
    }
}
