//! No recording may cost `mjbridge::recording::read` more heap than twice its size plus a
//! constant, whatever its shape: the bound docs/contract.md states for recordings
//! (`2 × recording bytes + 1 MiB`), measured with a counting allocator (the peak above what
//! was allocated before the call; the caller's bytes are not counted).
//!
//! The corpus is the shapes that made the reader amplify (issue 40): checkpoints (the
//! descriptor, the start, restore events: 1 MiB each, the checkpoint limit, every one hashed)
//! of very many keys or nested 10, 30 and 60 deep with many keys at every level, and larger
//! ones (refused); plus a flood of tiny restore events, inputs of zeros, every tick hashed,
//! keyframe checks, zeros, escapes and long strings and keys, unknown members, and the numbers
//! no counter holds (2^64-1, 1e400). Each is close to [`SIZE`] bytes;
//! `MJB_RECORDING_MEMORY_BYTES` sets another size (up to the 64 MiB limit).
//! This file holds one test so that nothing else allocates while it measures.

#[path = "common/counting.rs"]
mod counting;
use counting::{peak_of, Counting};
use mjbridge::outcome::Refusal;
use mjbridge::recording::{self, Recording};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The size of each hostile recording (4 MiB: large enough that a per-byte amplification
/// dwarfs the constant, small enough for a debug build).
const SIZE: usize = 4 << 20;
/// The constant of the bound (docs/contract.md).
const SLACK: usize = 1 << 20;
/// The size limit of a checkpoint document (`mjbridge::doc::MAX_DOCUMENT_BYTES`).
const CHECKPOINT: usize = 1 << 20;

fn size() -> usize {
    std::env::var("MJB_RECORDING_MEMORY_BYTES")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(SIZE, |n: usize| {
            n.min(recording::MAX_RECORDING_BYTES - 4096)
        })
}

/// A recording with these members in place of a minimal valid one's (`descriptor`, `start`,
/// `events`, ...: raw JSON text), and a `recording_hash` that is not the recording's (so the
/// whole reader runs, the hash pass included, and refuses at the end).
fn doc(members: &[(&str, &str)]) -> String {
    let defaults = [
        ("format", "\"mjbridge_recording_v1\""),
        ("engine", "\"4.0.0\""),
        ("engine_version", "400"),
        ("model_fingerprint", "\"sha256:0\""),
        ("profile", "\"mujoco_integration_v1\""),
        ("descriptor", "{}"),
        ("seed", "0"),
        ("from_tick", "0"),
        ("end_tick", "0"),
        ("start", "{}"),
        ("events", "[]"),
        (
            "tick_hashes",
            "{\"first\":0,\"xxh3_64\":[\"0000000000000000\"]}",
        ),
        ("keyframe_hashes", "[]"),
    ];
    let mut s = String::from("{\"recording\":{");
    let mut first = true;
    for (k, v) in defaults {
        let v = members.iter().find(|(m, _)| *m == k).map_or(v, |(_, v)| *v);
        if !first {
            s.push(',');
        }
        first = false;
        s.push_str(&format!("\"{k}\":{v}"));
    }
    s.push_str("},\"recording_hash\":\"sha256:0\"}");
    s
}

/// `item(i)` repeated, separated by `sep`, while the text stays under `budget` bytes.
fn repeat(budget: usize, sep: &str, mut item: impl FnMut(usize) -> String) -> String {
    let mut s = String::new();
    let mut i = 0;
    loop {
        let next = item(i);
        if s.len() + sep.len() + next.len() > budget {
            return s;
        }
        if i > 0 {
            s.push_str(sep);
        }
        s.push_str(&next);
        i += 1;
    }
}

/// Keys no two of which are equal, as short as they can be: `a`, `b`, ..., `aa`, ...
fn short_key(mut i: usize) -> String {
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut k = String::new();
    loop {
        k.push(CHARS[i % CHARS.len()] as char);
        i /= CHARS.len();
        if i == 0 {
            return k;
        }
        i -= 1;
    }
}

/// An object of many keys.
fn wide(budget: usize) -> String {
    format!(
        "{{{}}}",
        repeat(budget, ",", |i| format!("\"{}\":0", short_key(i)))
    )
}

/// Objects nested `depth` deep, each with many keys and the next level under `z~`.
fn nested(budget: usize, depth: usize) -> String {
    let level = budget / depth;
    let mut s = String::new();
    for _ in 0..depth {
        s.push('{');
        s.push_str(&repeat(level - 16, ",", |i| {
            format!("\"{}\":0", short_key(i))
        }));
        s.push_str(",\"z~\":");
    }
    s.push_str("{}");
    s.push_str(&"}".repeat(depth));
    s
}

fn hashes(budget: usize) -> (usize, String) {
    let list = repeat(budget, ",", |i| format!("\"{:016x}\"", i));
    let n = list.matches(',').count() + 1;
    (n, format!("{{\"first\":0,\"xxh3_64\":[{list}]}}"))
}

/// `events` of restores of `object`, while the text stays under `budget` bytes.
fn restores(budget: usize, object: &str) -> String {
    format!(
        "[{}]",
        repeat(budget, ",", |_| format!(
            "{{\"tick\":0,\"restore\":{object}}}"
        ))
    )
}

fn corpus(n: usize) -> Vec<(String, String)> {
    let mut docs = Vec::new();
    let mut add = |name: &str, members: &[(&str, &str)]| docs.push((name.to_owned(), doc(members)));
    // Checkpoints a recording carries are at most 1 MiB each (what the endpoint reads), and
    // each is hashed: many of them, of many keys or deeply nested, fill the recording.
    let object = CHECKPOINT - 64;
    add(
        "descriptor + restores of keys",
        &[
            ("descriptor", &wide(object)),
            ("events", &restores(n - object, &wide(object))),
        ],
    );
    for depth in [10, 30, 60] {
        add(
            &format!("restores nested {depth}"),
            &[
                ("start", &nested(object, depth)),
                ("events", &restores(n - object, &nested(object, depth))),
            ],
        );
    }
    // Larger ones are refused at their pointer, before anything is kept or hashed.
    add("oversized descriptor", &[("descriptor", &wide(n))]);
    add("oversized start", &[("start", &nested(n, 60))]);
    add(
        "oversized restore",
        &[(
            "events",
            &format!("[{{\"tick\":0,\"restore\":{}}}]", nested(n, 3)),
        )],
    );
    // A `~` first: no unknown key is one of the schema's.
    let members = repeat(n, ",", |i| format!("\"~{}\":0", short_key(i)));
    let mut unknown = doc(&[]);
    unknown.insert_str("{\"recording\":{".len(), &format!("{members},"));
    docs.push(("unknown members".into(), unknown));
    let mut add = |name: &str, members: &[(&str, &str)]| docs.push((name.to_owned(), doc(members)));
    add(
        "restore events",
        &[(
            "events",
            &format!(
                "[{}]",
                repeat(n, ",", |_| "{\"tick\":0,\"restore\":{}}".into())
            ),
        )],
    );
    let zeros = format!("[{}]", vec!["0"; 32_768].join(","));
    add(
        "input zeros",
        &[(
            "events",
            &format!(
                "[{}]",
                repeat(n, ",", |_| format!(
                    "{{\"tick\":0,\"input\":{{\"field\":\"ctrl\",\"id\":0,\"values\":{zeros}}}}}"
                ))
            ),
        )],
    );
    add(
        "short inputs",
        &[(
            "events",
            &format!(
                "[{}]",
                repeat(n, ",", |_| {
                    "{\"tick\":0,\"input\":{\"field\":\"ctrl\",\"id\":0,\"values\":[0]}}".into()
                })
            ),
        )],
    );
    let (count, th) = hashes(n);
    let end = (count - 1).to_string();
    add("tick hashes", &[("end_tick", &end), ("tick_hashes", &th)]);
    add(
        "keyframe checks",
        &[(
            "keyframe_hashes",
            &format!(
                "[{}]",
                repeat(n, ",", |_| {
                    "{\"tick\":0,\"event\":0,\"xxh3_64\":\"0000000000000000\"}".into()
                })
            ),
        )],
    );
    add(
        "restores of zeros",
        &[(
            "events",
            &restores(
                n,
                &format!("{{\"a\":[{}]}}", repeat(object, ",", |_| "0".into())),
            ),
        )],
    );
    add(
        "long string",
        &[("engine", &format!("\"{}\"", "x".repeat(n)))],
    );
    add(
        "restores of escapes",
        &[(
            "events",
            &restores(
                n,
                &format!("{{\"s\":\"{}\"}}", "\\u0001\\n".repeat(object / 8)),
            ),
        )],
    );
    add(
        "long key",
        &[("descriptor", &format!("{{\"{}\":0}}", "k".repeat(n)))],
    );
    let key = "k".repeat(n / 2 - 64);
    add(
        "long duplicate key",
        &[("descriptor", &format!("{{\"{key}\":0,\"{key}\":1}}"))],
    );
    let mut long_unknown = doc(&[]);
    long_unknown.insert_str(
        "{\"recording\":{".len(),
        &format!("\"{}\":0,", "u\\n".repeat(n / 3)),
    );
    docs.push(("long unknown key".into(), long_unknown));
    let mut add = |name: &str, members: &[(&str, &str)]| docs.push((name.to_owned(), doc(members)));
    add(
        "huge numbers",
        &[(
            "events",
            &restores(
                n,
                &format!(
                    "{{\"a\":[{}]}}",
                    repeat(object, ",", |_| "-1.7976931348623157e308".into())
                ),
            ),
        )],
    );
    add(
        "2^64-1 ticks",
        &[
            ("end_tick", "18446744073709551615"),
            (
                "events",
                &restores(
                    n,
                    &format!("{{\"a\":[{}]}}", repeat(object, ",", |_| "1e300".into())),
                ),
            ),
        ],
    );
    add(
        "1e400",
        &[(
            "events",
            &format!(
                "[{},{{\"tick\":0,\"restore\":{{\"a\":1e400}}}}]",
                &restores(
                    n - 64,
                    &format!(
                        "{{\"a\":[{}]}}",
                        repeat(object, ",", |_| "18446744073709551615".into())
                    )
                )[1..]
                    .strip_suffix(']')
                    .unwrap()
            ),
        )],
    );
    docs
}

/// The reason and the start of the pointer each shape is refused with.
fn expected(name: &str) -> (&'static str, &'static str) {
    match name {
        "oversized descriptor" | "long key" => ("MJB_REASON_TOO_LARGE", "/recording/descriptor"),
        "oversized start" => ("MJB_REASON_TOO_LARGE", "/recording/start"),
        "oversized restore" => ("MJB_REASON_TOO_LARGE", "/recording/events/0/restore"),
        "unknown members" => ("MJB_REASON_UNKNOWN_FIELD", "/recording/~0a"),
        "long unknown key" => ("MJB_REASON_UNKNOWN_FIELD", "/recording/u\nu\n"),
        "long duplicate key" => ("MJB_REASON_DUPLICATE_FIELD", "/recording/descriptor/kkk"),
        "2^64-1 ticks" => ("MJB_REASON_SIZE", "/recording/tick_hashes/xxh3_64"),
        "1e400" => ("MJB_REASON_NOT_FINITE", "/recording/events/"),
        // Past MAX_TICKS hashes of 19 bytes each (a recording over 36 MiB): too many.
        "tick hashes" if (size() + 1) / 19 > recording::MAX_TICKS => (
            "MJB_REASON_TOO_MANY_VALUES",
            "/recording/tick_hashes/xxh3_64/2000001",
        ),
        _ => ("MJB_REASON_STATE_HASH", "/recording_hash"),
    }
}

#[test]
fn no_recording_costs_the_reader_more_than_twice_its_size_whatever_its_shape() {
    let n = size();
    let docs = corpus(n);
    let mut report = String::new();
    let mut over = Vec::new();
    for (name, doc) in &docs {
        let bytes = doc.as_bytes();
        assert!(
            bytes.len() <= recording::MAX_RECORDING_BYTES,
            "{name}: {} bytes",
            bytes.len()
        );
        let mut got: Option<std::thread::Result<Result<Recording, Refusal>>> = None;
        let peak = peak_of(|| {
            got = Some(std::panic::catch_unwind(|| recording::read(bytes)));
        });
        let Ok(got) = got.expect("read ran") else {
            report.push_str(&format!("{name:>20}: the reader panicked\n"));
            over.push(name.clone());
            continue;
        };
        let ratio = peak as f64 / bytes.len() as f64;
        let what = match &got {
            Ok(_) => "accepted".to_owned(),
            Err(r) => {
                let p = r.pointer.as_deref().unwrap_or("");
                let cut: String = p.chars().take(60).collect();
                let more = if cut.len() < p.len() { "…" } else { "" };
                format!("{} at {cut:?}{more}", r.reason.name())
            }
        };
        report.push_str(&format!(
            "{name:>20}: {:>9} B, peak {:>10} B ({ratio:.3}x): {what}\n",
            bytes.len(),
            peak
        ));
        if peak > 2 * bytes.len() + SLACK {
            over.push(name.clone());
        }
        // Refused where the shape says: most at the hash (not the recording's), after every
        // other check and the whole canonical pass.
        let r = got.expect_err(name);
        let (reason, at) = expected(name);
        let p = r.pointer.as_deref().unwrap_or("");
        assert!(
            r.reason.name() == reason && p.starts_with(at),
            "{name}: {} at {:?}",
            r.reason.name(),
            p.get(..80).unwrap_or(p)
        );
    }
    println!("{report}");
    assert!(
        over.is_empty(),
        "over 2 x bytes + {SLACK}: {over:?}\n{report}"
    );
}
