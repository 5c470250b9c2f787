//! Property tests over real checkpoints of several models, in every profile this engine
//! serves: one mutation of a good document gives exactly the expected refusal (reason and
//! JSON pointer) and changes nothing; a mutation that leaves a valid state (one ulp on a value
//! no other field repeats) is restored bit for bit; the unmutated document restores exactly.

mod common;
use common::*;
use mjbridge::outcome::Outcome;
use proptest::prelude::*;
use serde_json::{json, Value};

/// One endpoint, its good checkpoint, and what validation knows of its layout.
struct Case {
    ep: Ep,
    good: String,
    doc: Value,
    integration: bool,
    /// (segment name, offset, len) of the integration layout.
    segments: Vec<(String, usize, usize)>,
    /// (index, nsample) of history cursors.
    cursors: Vec<(usize, u32)>,
}

fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    let mut models = vec![
        ("contact_act.xml", vec![0.4, -0.2], 25u32),
        ("pendulum.xml", vec![], 40),
    ];
    let e = mjbridge::native::engine();
    if e.component_mask("plastic").is_some() {
        models.push(("history_plastic.xml", vec![1.0, 3.0], 9));
    } else if e.component_mask("history").is_some() {
        models.push(("history.xml", vec![1.0, 3.0], 9));
    }
    for (file, ctrl, steps) in models {
        for profile in profiles() {
            let ep = open_model(file, &format!("\"profile\":\"{profile}\",\"seed\":5"));
            if !ctrl.is_empty() {
                assert_eq!(ep.set_ctrl(&ctrl), Outcome::Ok);
            }
            ep.step_ok(steps);
            let good = ep.checkpoint();
            let (segments, cursors) = with_endpoint(&ep, |e| match &e.shape().layout {
                Some(l) if profile == "mujoco_integration_v1" => (
                    l.segments
                        .iter()
                        .map(|s| (s.name.clone(), s.offset, s.len))
                        .collect(),
                    l.cursors.iter().map(|c| (c.index, c.nsample)).collect(),
                ),
                _ => (vec![], vec![]),
            });
            v.push(Case {
                doc: serde_json::from_str(&good).unwrap(),
                good,
                ep,
                integration: profile == "mujoco_integration_v1",
                segments,
                cursors,
            });
        }
    }
    v
}

/// What a mutation must produce.
enum Expect {
    Refused(&'static str, String),
    InvalidArgument(&'static str),
    /// Accepted, and the state afterwards is exactly this document's.
    Restored(Value),
}

#[derive(Clone, Debug)]
enum Mutation {
    Drop(usize),
    Add(String),
    Duplicate(usize),
    Retype(usize, u8),
    Ulp(usize, bool),
    IntegerCoded(usize, u8),
    HugeExponent(usize, bool),
    DeepNesting(usize),
    LongString(usize),
    InvalidUtf8(usize),
    TrailingGarbage(u8),
    Bom,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Drop),
        "[a-z_]{1,12}".prop_map(Mutation::Add),
        any::<usize>().prop_map(Mutation::Duplicate),
        (any::<usize>(), 0u8..6).prop_map(|(i, k)| Mutation::Retype(i, k)),
        (any::<usize>(), any::<bool>()).prop_map(|(i, up)| Mutation::Ulp(i, up)),
        (any::<usize>(), 0u8..6).prop_map(|(i, k)| Mutation::IntegerCoded(i, k)),
        (any::<usize>(), any::<bool>()).prop_map(|(i, n)| Mutation::HugeExponent(i, n)),
        any::<usize>().prop_map(Mutation::DeepNesting),
        any::<usize>().prop_map(Mutation::LongString),
        any::<usize>().prop_map(Mutation::InvalidUtf8),
        any::<u8>().prop_map(Mutation::TrailingGarbage),
        Just(Mutation::Bom),
    ]
}

const INTEGER_FIELDS: &[&str] = &["engine_version", "signature", "size", "tick", "seed"];
const ARRAY_FIELDS: &[&str] = &["values", "qpos", "qvel", "ctrl", "act"];

fn fields(c: &Case) -> Vec<String> {
    c.doc.as_object().unwrap().keys().cloned().collect()
}

/// The public field (and index in it) that repeats `values[i]`, if any.
fn public_copy(c: &Case, i: usize) -> Option<(String, Option<usize>)> {
    for (name, off, len) in &c.segments {
        if ["time", "qpos", "qvel", "ctrl"].contains(&name.as_str())
            && (*off..off + len).contains(&i)
        {
            return Some((name.clone(), (name != "time").then_some(i - off)));
        }
    }
    None
}

fn in_segment(c: &Case, name: &str, i: usize) -> bool {
    c.segments
        .iter()
        .any(|(n, off, len)| n == name && (*off..off + len).contains(&i))
}

/// The document text with `field`'s value replaced by raw `token`.
fn with_token(doc: &Value, field: &str, token: &str) -> Vec<u8> {
    let mut d = doc.clone();
    d[field] = json!("@@TOKEN@@");
    d.to_string().replace("\"@@TOKEN@@\"", token).into_bytes()
}

fn with_value_token(doc: &Value, i: usize, token: &str) -> Vec<u8> {
    let mut d = doc.clone();
    d["values"][i] = json!("@@TOKEN@@");
    d.to_string().replace("\"@@TOKEN@@\"", token).into_bytes()
}

fn apply(c: &Case, m: &Mutation) -> (Vec<u8>, Expect) {
    let names = fields(c);
    let pick = |i: usize| names[i % names.len()].clone();
    let values_len = c.doc["values"].as_array().map_or(0, Vec::len);
    use Expect::*;
    match m {
        Mutation::Drop(i) => {
            let f = pick(*i);
            let mut d = c.doc.clone();
            d.as_object_mut().unwrap().remove(&f);
            (
                d.to_string().into_bytes(),
                Refused("MJB_REASON_MISSING_FIELD", format!("/{f}")),
            )
        }
        Mutation::Add(name) => {
            if names.contains(name) {
                return (c.good.clone().into_bytes(), Restored(c.doc.clone()));
            }
            let mut d = c.doc.clone();
            d[name.as_str()] = json!(1);
            (
                d.to_string().into_bytes(),
                Refused("MJB_REASON_UNKNOWN_FIELD", format!("/{name}")),
            )
        }
        Mutation::Duplicate(i) => {
            let f = pick(*i);
            let text = c.doc.to_string();
            let value = c.doc[&f].to_string();
            let dup = format!("{},\"{f}\":{value}}}", &text[..text.len() - 1]);
            (
                dup.into_bytes(),
                Refused("MJB_REASON_DUPLICATE_FIELD", format!("/{f}")),
            )
        }
        Mutation::Retype(i, k) => {
            let f = pick(*i);
            let (token, reason) = match (f.as_str(), k) {
                ("descriptor", _) => (
                    ["[]", "1", "\"d\""][*k as usize % 3],
                    "MJB_REASON_WRONG_TYPE",
                ),
                ("profile" | "engine", _) => (
                    ["1", "null", "{}", "[]", "true", "2.5"][*k as usize],
                    "MJB_REASON_WRONG_TYPE",
                ),
                (_, 0) => ("\"text\"", "MJB_REASON_WRONG_TYPE"),
                (_, 1) => ("null", "MJB_REASON_WRONG_TYPE"),
                (_, 2) => ("{}", "MJB_REASON_WRONG_TYPE"),
                (x, 3) if INTEGER_FIELDS.contains(&x) => ("true", "MJB_REASON_NOT_AN_INTEGER"),
                (x, 4) if INTEGER_FIELDS.contains(&x) => ("2.5", "MJB_REASON_NOT_AN_INTEGER"),
                (x, _) if INTEGER_FIELDS.contains(&x) => ("1e2", "MJB_REASON_NOT_AN_INTEGER"),
                (x, _) if ARRAY_FIELDS.contains(&x) => ("7", "MJB_REASON_WRONG_TYPE"),
                ("time", _) => ("[]", "MJB_REASON_WRONG_TYPE"),
                _ => ("false", "MJB_REASON_WRONG_TYPE"), // profile, engine
            };
            (
                with_token(&c.doc, &f, token),
                Refused(reason, format!("/{f}")),
            )
        }
        Mutation::Ulp(i, up) if c.integration => {
            let i = i % values_len;
            let x = c.doc["values"][i].as_f64().unwrap();
            let y = if *up { x.next_up() } else { x.next_down() };
            let mut d = c.doc.clone();
            d["values"][i] = json!(y);
            let ptr = format!("/values/{i}");
            if in_segment(c, "eq_active", i) {
                (
                    d.to_string().into_bytes(),
                    Refused("MJB_REASON_EQ_ACTIVE_DOMAIN", ptr),
                )
            } else if c.cursors.iter().any(|(ci, _)| *ci == i) {
                (
                    d.to_string().into_bytes(),
                    Refused("MJB_REASON_STATE_DOMAIN", ptr),
                )
            } else if let Some((name, j)) = public_copy(c, i) {
                let p = match j {
                    Some(j) => format!("/{name}/{j}"),
                    None => format!("/{name}"),
                };
                (
                    d.to_string().into_bytes(),
                    Refused("MJB_REASON_PUBLIC_FIELD_MISMATCH", p),
                )
            } else {
                (d.to_string().into_bytes(), Restored(d))
            }
        }
        Mutation::Ulp(i, up) => {
            // Basic profile: one ulp on a public number is a valid (different) state.
            let f = ["qpos", "qvel"][i % 2];
            let n = c.doc[f].as_array().unwrap().len();
            if n == 0 {
                return (c.good.clone().into_bytes(), Restored(c.doc.clone()));
            }
            let j = (i / 2) % n;
            let x = c.doc[f][j].as_f64().unwrap();
            let mut d = c.doc.clone();
            d[f][j] = json!(if *up { x.next_up() } else { x.next_down() });
            (d.to_string().into_bytes(), Restored(d))
        }
        Mutation::IntegerCoded(i, k) => {
            let eq: Vec<usize> = c
                .segments
                .iter()
                .filter(|s| s.0 == "eq_active")
                .flat_map(|s| s.1..s.1 + s.2)
                .collect();
            let targets: Vec<(usize, &'static str, u32)> = eq
                .iter()
                .map(|&e| (e, "MJB_REASON_EQ_ACTIVE_DOMAIN", 2))
                .chain(
                    c.cursors
                        .iter()
                        .map(|&(ci, n)| (ci, "MJB_REASON_STATE_DOMAIN", n)),
                )
                .collect();
            if targets.is_empty() {
                return (c.good.clone().into_bytes(), Restored(c.doc.clone()));
            }
            let (at, reason, n) = targets[i % targets.len()];
            let token = match k {
                0 => "0.5".to_owned(),
                1 => n.to_string(),
                2 => "-1".to_owned(),
                3 => "-0".to_owned(),
                4 => "1e12".to_owned(),
                _ => "true".to_owned(),
            };
            (
                with_value_token(&c.doc, at, &token),
                Refused(reason, format!("/values/{at}")),
            )
        }
        Mutation::HugeExponent(i, negative) => {
            let f = ["time", "qpos", "values"][i % 3];
            let token = if *negative { "-1e999" } else { "1e400" };
            let (bytes, ptr) = match f {
                "time" => (with_token(&c.doc, "time", token), "/time".to_owned()),
                "values" if values_len > 0 => {
                    let j = i % values_len;
                    (with_value_token(&c.doc, j, token), format!("/values/{j}"))
                }
                _ => (
                    with_token(&c.doc, "qpos", &format!("[{token}]")),
                    "/qpos/0".to_owned(),
                ),
            };
            (bytes, Refused("MJB_REASON_NOT_FINITE", ptr))
        }
        Mutation::DeepNesting(i) => {
            let f = pick(*i);
            let token = format!("{}{}", "[".repeat(80), "]".repeat(80));
            (
                with_token(&c.doc, &f, &token),
                Refused("MJB_REASON_MALFORMED_JSON", String::new()),
            )
        }
        Mutation::LongString(i) => {
            let long = json!("x".repeat(100_000 + i % 1000)).to_string();
            if i % 2 == 0 {
                (
                    with_token(&c.doc, "engine", &long),
                    Refused("MJB_REASON_ENGINE", "/engine".into()),
                )
            } else {
                let mut d = c.doc.clone();
                d["zz_note"] = json!("x".repeat(100_000));
                (
                    d.to_string().into_bytes(),
                    Refused("MJB_REASON_UNKNOWN_FIELD", "/zz_note".into()),
                )
            }
        }
        Mutation::InvalidUtf8(i) => {
            let mut b = c.good.clone().into_bytes();
            let at = i % b.len();
            b.insert(at, 0xFF);
            (b, InvalidArgument("MJB_REASON_INVALID_UTF8"))
        }
        Mutation::TrailingGarbage(g) => {
            let mut b = c.good.clone().into_bytes();
            let g = if g.is_ascii_whitespace() { b'x' } else { *g };
            b.push(g);
            let reason = if std::str::from_utf8(&b).is_err() {
                return (b, InvalidArgument("MJB_REASON_INVALID_UTF8"));
            } else {
                "MJB_REASON_MALFORMED_JSON"
            };
            (b, Refused(reason, String::new()))
        }
        Mutation::Bom => {
            let mut b = vec![0xEF, 0xBB, 0xBF];
            b.extend(c.good.as_bytes());
            (b, Refused("MJB_REASON_MALFORMED_JSON", String::new()))
        }
    }
}

fn check(c: &Case, m: &Mutation) {
    let (doc, expect) = apply(c, m);
    let before = (c.ep.hash(), c.ep.world(), c.ep.safety());
    let mut r = mjbridge::ffi::mjb_report::default();
    let o =
        unsafe { mjbridge::ffi::mjb_restore(c.ep.0, doc.as_ptr().cast(), doc.len(), 0, &mut r) };
    match expect {
        Expect::Refused(reason, ptr) => {
            let e = last_error();
            assert_eq!(o, Outcome::Rejected, "{m:?}: {e}");
            assert_eq!(e["reason"], reason, "{m:?}: {e}");
            if !ptr.is_empty() {
                assert_eq!(e["pointer"], ptr.as_str(), "{m:?}: {e}");
            }
            assert_eq!(
                (c.ep.hash(), c.ep.world(), c.ep.safety()),
                before,
                "{m:?} changed nothing"
            );
        }
        Expect::InvalidArgument(reason) => {
            assert_eq!(o, Outcome::InvalidArgument, "{m:?}");
            assert_eq!(last_reason(), reason);
            assert_eq!(
                (c.ep.hash(), c.ep.world(), c.ep.safety()),
                before,
                "{m:?} changed nothing"
            );
        }
        Expect::Restored(want) => {
            assert_eq!(o, Outcome::Ok, "{m:?}: {}", last_error());
            let now: Value = serde_json::from_str(&c.ep.checkpoint()).unwrap();
            assert_eq!(now, want, "{m:?}: the state is the document's, bit for bit");
            // Back to the good state for the next case.
            assert_eq!(c.ep.restore(&c.good).0, Outcome::Ok);
        }
    }
}

#[test]
fn every_single_mutation_of_a_real_checkpoint_is_refused_with_its_reason_or_restored_exactly() {
    let cases = cases();
    for c in &cases {
        // Unmutated: restores, bit-identical.
        assert_eq!(c.ep.restore(&c.good).0, Outcome::Ok);
        assert_eq!(c.ep.checkpoint(), c.good);
    }
    let config = ProptestConfig {
        cases: 384,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    proptest!(config, |(which in 0..cases.len(), m in mutation())| {
        check(&cases[which], &m);
    });
}
