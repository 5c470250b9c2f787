//! No input document may cost more heap than a small multiple of its size, whatever its shape.
//!
//! A counting global allocator measures the peak heap of each call above what was allocated
//! before it. The documented bound (docs/contract.md, "Documents"): every call that reads a document
//! peaks at no more than `2 × document bytes + 64 KiB`. The corpus is the shapes that made a
//! tree-building parser allocate 35× (a megabyte of `0,`, of `[]`, of `{}`, 90k keys) plus
//! long strings, escapes, deep nesting and real checkpoints, through every call that reads a
//! document. This file holds one test so that nothing else allocates while it measures.

mod common;
use common::*;
use mjbridge::endpoint::WAIT_FOREVER;
use mjbridge::ffi::*;
use mjbridge::outcome::Outcome;

#[path = "common/counting.rs"]
mod counting;
use counting::{peak_of, Counting};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One call that reads the document.
type Call<'a> = Box<dyn Fn() -> Outcome + 'a>;

const SLACK: usize = 64 << 10;
const LIMIT: usize = 1 << 20;

/// `{"<key>":` + `item` repeated (comma-separated) to just under 1 MiB + `]}`-style closing.
fn repeated(open: &str, item: &str, sep: &str, close: &str) -> Vec<u8> {
    let mut s = String::from(open);
    let mut first = true;
    while s.len() + item.len() + sep.len() + close.len() < LIMIT - 16 {
        if !first {
            s.push_str(sep);
        }
        first = false;
        s.push_str(item);
    }
    s.push_str(close);
    s.into_bytes()
}

fn corpus(checkpoint: &str, world: &str) -> Vec<(String, Vec<u8>)> {
    let mut docs = vec![
        ("zeros".into(), repeated("{\"a\":[", "0", ",", "]}")),
        ("empty arrays".into(), repeated("{\"a\":[", "[]", ",", "]}")),
        (
            "empty objects".into(),
            repeated("{\"a\":[", "{}", ",", "]}"),
        ),
        (
            "small objects".into(),
            repeated("{\"a\":[", "{\"x\":0,\"y\":[1]}", ",", "]}"),
        ),
        ("long string".into(), repeated("{\"a\":\"", "x", "", "\"}")),
        (
            "escapes".into(),
            repeated("{\"a\":\"", "\\u00e9", "", "\"}"),
        ),
        ("deep nesting".into(), repeated("{\"a\":", "[", "", "1")),
        (
            "values zeros".into(),
            repeated(
                "{\"profile\":\"mujoco_integration_v1\",\"values\":[",
                "0",
                ",",
                "]}",
            ),
        ),
        ("qpos zeros".into(), repeated("{\"qpos\":[", "0", ",", "]}")),
        (
            "world ctrl zeros".into(),
            repeated("{\"world\":{\"ctrl\":[", "0", ",", "]}}"),
        ),
        (
            "model strings".into(),
            repeated("{\"model\":{\"xml\":\"", "<", "", "\"}}"),
        ),
    ];
    // 90k distinct keys, at the top and nested, and keys with escapes.
    let mut keys = String::from("{");
    let mut i = 0;
    while keys.len() < LIMIT - 32 {
        keys.push_str(&format!("\"k{i}\":0,"));
        i += 1;
    }
    keys.push_str("\"end\":0}");
    docs.push(("90k keys".into(), keys.clone().into_bytes()));
    docs.push((
        "nested keys".into(),
        format!("{{\"world\":{}}}", &keys[..keys.len()]).into_bytes(),
    ));
    let mut esc = String::from("{");
    let mut i = 0;
    while esc.len() < LIMIT - 64 {
        esc.push_str(&format!("\"\\u006b{i}\":0,"));
        i += 1;
    }
    esc.push_str("\"end\":0}");
    docs.push(("escaped keys".into(), esc.into_bytes()));
    // A real checkpoint, and the same padded with whitespace, and with an unknown field
    // holding a megabyte of zeros after it.
    docs.push(("checkpoint".into(), checkpoint.as_bytes().to_vec()));
    let mut padded = checkpoint.to_owned();
    padded.pop();
    padded.push_str(",\"junk\":[");
    while padded.len() < LIMIT - 16 {
        padded.push_str("0,");
    }
    padded.push_str("0]}");
    docs.push(("checkpoint + junk".into(), padded.into_bytes()));
    // World documents (a restore takes them): a real one; one whose world holds a megabyte
    // of zeros (hashed, then refused); and shapes a world document never has, refused before
    // hashing (90k keys, objects inside an array).
    docs.push(("world document".into(), world.as_bytes().to_vec()));
    docs.push((
        "world qpos zeros".into(),
        repeated(
            "{\"state_hash\":\"x\",\"world\":{\"qpos\":[",
            "0",
            ",",
            "]}}",
        ),
    ));
    docs.push((
        "world 90k keys".into(),
        format!("{{\"state_hash\":\"x\",\"world\":{}}}", &keys[64..]).into_bytes(),
    ));
    docs.push((
        "world qpos objects".into(),
        repeated(
            "{\"state_hash\":\"x\",\"world\":{\"qpos\":[",
            "{\"x\":0}",
            ",",
            "]}}",
        ),
    ));
    docs
}

#[test]
fn no_document_costs_more_than_twice_its_size_whatever_its_shape() {
    let ep = open_model("contact_act.xml", "");
    ep.step_ok(10);
    let checkpoint = ep.checkpoint();
    // Warm up: the endpoint's reusable buffers exist after the first calls.
    ep.restore(&checkpoint);
    let world = ep.world();
    ep.restore(&world);
    let docs = corpus(&checkpoint, &world);
    let mut worst = (0.0f64, String::new());
    let mut report = String::new();
    for (name, doc) in &docs {
        assert!(doc.len() <= LIMIT, "{name} is {} bytes", doc.len());
        let calls: [(&str, Call); 4] = [
            (
                "restore",
                Box::new(|| unsafe {
                    let mut r = mjb_report::default();
                    mjb_restore(ep.0, doc.as_ptr().cast(), doc.len(), WAIT_FOREVER, &mut r).into()
                }),
            ),
            (
                "world_write",
                Box::new(|| unsafe {
                    let mut r = mjb_report::default();
                    mjb_world_write(ep.0, doc.as_ptr().cast(), doc.len(), WAIT_FOREVER, &mut r)
                        .into()
                }),
            ),
            (
                "open",
                Box::new(|| unsafe {
                    let mut out = std::ptr::null_mut();
                    let o = mjb_endpoint_open(doc.as_ptr().cast(), doc.len(), &mut out);
                    assert!(out.is_null(), "none of these configs loads a model");
                    o.into()
                }),
            ),
            (
                "replace_model",
                Box::new(|| unsafe {
                    let mut r = mjb_report::default();
                    mjb_endpoint_replace_model(
                        ep.0,
                        doc.as_ptr().cast(),
                        doc.len(),
                        WAIT_FOREVER,
                        &mut r,
                    )
                    .into()
                }),
            ),
        ];
        for (call, f) in calls {
            let hash = ep.hash();
            let mut outcome = Outcome::Ok;
            let peak = peak_of(|| outcome = f());
            let accepted = (name == "checkpoint" || name == "world document") && call == "restore";
            if accepted {
                assert_eq!(
                    outcome,
                    Outcome::Ok,
                    "{name} via {call}: {:?}",
                    last_error()
                );
            } else {
                assert_ne!(outcome, Outcome::Ok, "{name} via {call} must be refused");
                assert_eq!(ep.hash(), hash, "{name} via {call} changed nothing");
            }
            let ratio = peak as f64 / doc.len() as f64;
            report.push_str(&format!(
                "{name:>18} {call:>13}: {:>8} B document, peak {:>8} B ({ratio:.3}x)\n",
                doc.len(),
                peak
            ));
            if ratio > worst.0 {
                worst = (ratio, format!("{name} via {call}"));
            }
            assert!(
                peak <= 2 * doc.len() + SLACK,
                "{name} via {call}: peak {peak} B for a {} B document\n{report}",
                doc.len()
            );
        }
    }
    println!("{report}worst: {:.3}x ({})", worst.0, worst.1);
}
