//! The `mjbridge` command on MuJoCo packages: the built binary is run as a maintainer or CI
//! would run it, on the example packages in packages/ and on temporary copies changed in the
//! ways a package goes wrong.
//!
//! The committed reference.json/REFERENCE.md/gate.json name the engine they were generated
//! on (MuJoCo 4.0.0, the default build). On that engine the committed files must be exactly
//! what regenerate and gate write now. On any other engine of the matrix the committed
//! reference must be refused (it names another engine), and a temporary copy regenerated on
//! this engine must keep attribution and review byte for byte and pass the gate.

#[path = "common/toolchain.rs"]
mod toolchain;

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

const PACKAGES: &[&str] = &["filtered_servo", "tethered_arm"];

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

fn run(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_mjbridge"))
        .args(args)
        .output()
        .expect("run mjbridge");
    Run {
        code: out.status.code().expect("exited"),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn run_in(dir: &Path, args: &[&str]) -> Run {
    let d = dir.to_str().unwrap();
    let mut a: Vec<&str> = args.to_vec();
    a.push(d);
    run(&a)
}

fn expect(r: &Run, code: i32) {
    assert_eq!(r.code, code, "{r:?}");
}

fn engine() -> &'static str {
    &mjbridge::native::engine().version_string
}

fn integration() -> bool {
    mjbridge::native::engine().supports_integration()
}

fn committed(name: &str) -> PathBuf {
    toolchain::root().join("packages").join(name)
}

fn read(p: impl AsRef<Path>) -> String {
    std::fs::read_to_string(p.as_ref()).unwrap_or_else(|e| panic!("{}: {e}", p.as_ref().display()))
}

fn write(p: impl AsRef<Path>, s: &str) {
    std::fs::write(p, s).unwrap();
}

fn json(p: impl AsRef<Path>) -> Value {
    serde_json::from_str(&read(p)).unwrap()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Every file of a directory with its bytes, to prove a command wrote nothing.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            out.extend(snapshot(&e.path()));
        } else {
            out.push((e.path(), std::fs::read(e.path()).unwrap()));
        }
    }
    out.sort();
    out
}

fn committed_engine(name: &str) -> String {
    json(committed(name).join("reference.json"))["engine"]["version"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The exact text of a top-level member's value.
fn raw_member(text: &str, key: &str) -> String {
    let map: std::collections::HashMap<String, &serde_json::value::RawValue> =
        serde_json::from_str(text).unwrap();
    map[key].get().to_owned()
}

/// A temporary copy of an example package that is current for the engine under test: the
/// committed one where it names this engine, else regenerated and gated here.
fn current_copy(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(name);
    copy_dir(&committed(name), &dir);
    if committed_engine(name) != engine() {
        expect(&run_in(&dir, &["package", "regenerate"]), 0);
        expect(&run_in(&dir, &["package", "gate"]), 0);
    }
    (tmp, dir)
}

fn sha256(bytes: &[u8]) -> String {
    let mut s = String::from("sha256:");
    for b in Sha256::digest(bytes) {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// RFC 8785 for a document of objects and strings only (what `covered` holds), written here
/// independently of the library's printer.
fn jcs_strings(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            let parts: Vec<String> = keys
                .into_iter()
                .map(|k| {
                    format!(
                        "{}:{}",
                        serde_json::to_string(k).unwrap(),
                        jcs_strings(&m[k])
                    )
                })
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        Value::String(s) => serde_json::to_string(s).unwrap(),
        other => panic!("covered holds only objects and strings, not {other}"),
    }
}

// ---- the committed packages -----------------------------------------------------------------

/// `MJB_BLESS=1` regenerates and gates the committed packages first, on the engine their
/// references name (after a change to the contract: a new world field, a version bump).
/// Moving them to another engine is a deliberate `mjbridge package regenerate` on that build.
fn bless(name: &str) {
    if std::env::var_os("MJB_BLESS").is_none() {
        return;
    }
    if committed_engine(name) != engine() {
        eprintln!(
            "MJB_BLESS: packages/{name} names MuJoCo {}, this build runs {}: not blessed here",
            committed_engine(name),
            engine()
        );
        return;
    }
    let dir = committed(name);
    expect(&run_in(&dir, &["package", "regenerate"]), 0);
    expect(&run_in(&dir, &["package", "gate"]), 0);
}

#[test]
fn committed_packages_are_current_for_the_engine_they_name() {
    for name in PACKAGES {
        bless(name);
        let dir = committed(name);
        let before = snapshot(&dir);
        let check = run_in(&dir, &["package", "gate", "--check"]);
        assert_eq!(snapshot(&dir), before, "gate --check writes nothing");
        if committed_engine(name) == engine() {
            expect(&check, 0);
            assert!(check.stdout.contains("gate.json is current"), "{check:?}");
            // Regenerating and gating a copy gives the committed bytes back.
            let tmp = tempfile::tempdir().unwrap();
            let copy = tmp.path().join(name);
            copy_dir(&dir, &copy);
            expect(&run_in(&copy, &["package", "regenerate"]), 0);
            expect(&run_in(&copy, &["package", "gate"]), 0);
            for f in ["reference.json", "REFERENCE.md", "gate.json"] {
                assert_eq!(
                    read(copy.join(f)),
                    read(dir.join(f)),
                    "{name}/{f} is not what this mjbridge writes: run `mjbridge package regenerate` and `mjbridge package gate` on packages/*"
                );
            }
        } else {
            // The committed reference names another engine: the gate refuses it field by field.
            expect(&check, 1);
            assert!(
                check.stdout.contains("/engine/version: reference.json has"),
                "{check:?}"
            );
            let (_tmp, copy) = current_copy(name);
            let text = read(copy.join("reference.json"));
            let old = read(dir.join("reference.json"));
            for k in ["attribution", "review"] {
                assert_eq!(raw_member(&text, k), raw_member(&old, k), "{name}: {k}");
            }
            assert_eq!(
                json(copy.join("reference.json"))["engine"]["version"],
                engine()
            );
            expect(&run_in(&copy, &["package", "gate", "--check"]), 0);
        }
    }
}

#[test]
fn the_gate_runs_the_conformance_checks_and_records_a_recomputable_digest() {
    for name in PACKAGES {
        let (_tmp, dir) = current_copy(name);
        expect(&run_in(&dir, &["package", "gate"]), 0);
        let gate = json(dir.join("gate.json"));
        let reference = json(dir.join("reference.json"));
        assert_eq!(gate["result"], "pass");
        assert_eq!(gate["engine"], engine());
        let checks = gate["checks"].as_array().unwrap();
        let result = |n: &str| {
            checks
                .iter()
                .find(|c| c["name"] == n)
                .unwrap_or_else(|| panic!("check {n}"))["result"]
                .as_str()
                .unwrap()
                .to_owned()
        };
        for n in [
            "reference_matches_live_endpoint",
            "reference_md_current",
            "restore_round_trip",
            "corrupted_documents_refused",
            "stop_latch",
        ] {
            assert_eq!(result(n), "pass", "{name}: {n}");
        }
        if integration() {
            assert_eq!(gate["profile"], "mujoco_integration_v1");
            assert_eq!(result("exact_continuation"), "pass");
        } else {
            assert_eq!(gate["profile"], "mujoco_basic_v1");
            assert_eq!(result("exact_continuation"), "not_promised");
            assert!(reference["integration_state"].is_null());
        }
        let cases = checks
            .iter()
            .find(|c| c["name"] == "corrupted_documents_refused")
            .unwrap()["cases"]
            .as_array()
            .unwrap();
        assert!(cases.len() >= 8);
        for c in cases {
            assert_eq!(c["outcome"], "MJB_REJECTED", "{c}");
            assert_eq!(c["state_unchanged"], true, "{c}");
        }
        let has = |case: &str| cases.iter().any(|c| c["case"] == case);
        assert!(has("other_engine") && has("descriptor_nq") && has("not_finite"));
        // Equality activation is a state segment where mjData holds it (MuJoCo >= 3.0).
        if *name == "tethered_arm" && integration() && cfg!(mjb_eq_active) {
            let eq = cases
                .iter()
                .find(|c| c["case"] == "equality_activation_not_0_or_1")
                .expect("the package has equality constraints");
            assert_eq!(eq["reason"], "MJB_REASON_EQ_ACTIVE_DOMAIN");
            let seg = reference["integration_state"]["segments"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["name"] == "eq_active")
                .unwrap();
            assert_eq!(eq["pointer"], format!("/values/{}", seg["offset"]));
        }

        // The digest is sha256(JCS(covered)); covered lists every file the model loads, with
        // hashes that match the files, and the canonical reference.
        let covered = &gate["covered"];
        let files = covered["files"].as_object().unwrap();
        let mut want: Vec<String> = reference["model"]["files"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        want.push("package.json".into());
        want.sort();
        let mut got: Vec<String> = files.keys().cloned().collect();
        got.sort();
        assert_eq!(got, want);
        for (f, h) in files {
            assert_eq!(h, &sha256(&std::fs::read(dir.join(f)).unwrap()), "{f}");
        }
        assert_eq!(gate["digest"], sha256(jcs_strings(covered).as_bytes()));
        if *name == "tethered_arm" {
            // The include and the mesh are followed.
            assert!(files.contains_key("parts/arm.xml") && files.contains_key("assets/cube.obj"));
        }
    }
}

// ---- what makes a gate fail -------------------------------------------------------------------

#[test]
fn editing_a_model_without_regenerating_fails_the_gate_and_names_the_file() {
    for (file, from, to) in [
        ("parts/arm.xml", "size=\"0.015\"", "size=\"0.016\""),
        ("assets/cube.obj", "v 0.05 0.05 0.05", "v 0.05 0.05 0.06"),
        (
            "model.xml",
            "mjbridge example package",
            "mjbridge example package (edited)",
        ),
    ] {
        let (_tmp, dir) = current_copy("tethered_arm");
        let path = dir.join(file);
        let text = read(&path);
        assert!(text.contains(from));
        write(&path, &text.replacen(from, to, 1));
        let r = run_in(&dir, &["package", "gate"]);
        expect(&r, 1);
        assert!(
            r.stdout.contains(&format!(
                "model file {file} changed since reference.json was generated"
            )),
            "{r:?}"
        );
        assert!(r.stderr.contains(file), "{r:?}");
        let gate = json(dir.join("gate.json"));
        assert_eq!(gate["result"], "fail");
        // Regenerating makes the package current again (the change is now in the contract).
        expect(&run_in(&dir, &["package", "regenerate"]), 0);
        expect(&run_in(&dir, &["package", "gate"]), 0);
    }
}

#[test]
fn a_stale_digest_is_refused_and_never_reused() {
    let (_tmp, dir) = current_copy("tethered_arm");
    expect(&run_in(&dir, &["package", "gate"]), 0);
    let first = read(dir.join("gate.json"));
    let first_digest = json(dir.join("gate.json"))["digest"].clone();

    // A model change, regenerated but not gated: the stored digest is stale.
    let arm = dir.join("parts/arm.xml");
    write(
        &arm,
        &read(&arm).replace("damping=\"0.02\"", "damping=\"0.03\""),
    );
    expect(&run_in(&dir, &["package", "regenerate"]), 0);
    let r = run_in(&dir, &["package", "gate", "--check"]);
    expect(&r, 1);
    assert!(r.stderr.contains("gate.json is stale"), "{r:?}");
    assert!(r.stderr.contains("parts/arm.xml changed"), "{r:?}");
    assert!(r.stderr.contains("reference.json changed"), "{r:?}");
    assert_eq!(read(dir.join("gate.json")), first, "--check writes nothing");

    // The gate recomputes: a new digest, and it says the old one was stale.
    let r = run_in(&dir, &["package", "gate"]);
    expect(&r, 0);
    assert!(
        r.stdout
            .contains("the previous gate.json was stale and is replaced"),
        "{r:?}"
    );
    let second = json(dir.join("gate.json"));
    assert_ne!(second["digest"], first_digest);
    expect(&run_in(&dir, &["package", "gate", "--check"]), 0);

    // Putting the earlier digest back is refused: it is not the digest of the package.
    let forged = read(dir.join("gate.json")).replace(
        second["digest"].as_str().unwrap(),
        first_digest.as_str().unwrap(),
    );
    write(dir.join("gate.json"), &forged);
    let r = run_in(&dir, &["package", "gate", "--check"]);
    expect(&r, 1);
    assert!(r.stderr.contains("gate.json is stale"), "{r:?}");

    // The human fields are part of the reference: changing them makes the digest stale too.
    expect(&run_in(&dir, &["package", "gate"]), 0);
    let reference = dir.join("reference.json");
    write(
        &reference,
        &read(&reference).replace("\"license\": \"Apache-2.0\"", "\"license\": \"MIT\""),
    );
    let r = run_in(&dir, &["package", "gate", "--check"]);
    expect(&r, 1);
    assert!(r.stderr.contains("reference.json changed"), "{r:?}");

    // REFERENCE.md must be what regenerate writes for the reference.
    expect(&run_in(&dir, &["package", "regenerate"]), 0);
    let md = dir.join("REFERENCE.md");
    write(&md, &format!("{}\nhand edit\n", read(&md)));
    let r = run_in(&dir, &["package", "gate"]);
    expect(&r, 1);
    assert!(
        r.stdout.contains("fail          reference_md_current"),
        "{r:?}"
    );
}

// ---- regenerate ---------------------------------------------------------------------------------

#[test]
fn regeneration_keeps_attribution_and_review_byte_identical() {
    let (_tmp, dir) = current_copy("filtered_servo");
    let path = dir.join("reference.json");
    let attribution = "{ \"b\" :1.50,\"a\": \"caf\\u00e9 \\\"quoted\\\"\",\n\t\"nested\": [1e2, {\"x\":null}] ,\"z\":-0.0 }";
    let review = "\"reviewed by hand;\\nsecond line\"";
    let mut doc: serde_json::Map<String, Value> = serde_json::from_str(&read(&path)).unwrap();
    doc.remove("attribution");
    doc.remove("review");
    // A stale generated member too: regenerate rewrites those.
    doc["driver"]["version"] = "0.0.1".into();
    let body = serde_json::to_string_pretty(&doc).unwrap();
    let text = format!(
        "{},\n  \"attribution\":   {attribution},\n\"review\":{review}\n}}\n",
        body.trim_end().trim_end_matches('}').trim_end()
    );
    write(&path, &text);

    let r = run_in(&dir, &["package", "regenerate"]);
    expect(&r, 0);
    assert!(
        r.stdout
            .contains("/driver/version: reference.json has \"0.0.1\""),
        "{r:?}"
    );
    assert!(r
        .stdout
        .contains("carried over byte for byte: attribution, review"));
    let out = read(&path);
    assert!(
        out.contains(&format!("\"attribution\": {attribution},\n")),
        "{out}"
    );
    assert!(out.contains(&format!("\"review\": {review}\n")), "{out}");
    assert_eq!(raw_member(&out, "attribution"), attribution);
    assert_eq!(raw_member(&out, "review"), review);
    assert_eq!(json(&path)["driver"]["version"], env!("CARGO_PKG_VERSION"));
    let md = read(dir.join("REFERENCE.md"));
    assert!(md.contains(attribution) && md.contains(review));
    // Idempotent, and the result gates.
    expect(&run_in(&dir, &["package", "regenerate"]), 0);
    assert_eq!(read(&path), out);
    expect(&run_in(&dir, &["package", "gate"]), 0);
}

#[test]
fn a_package_without_human_fields_gets_empty_placeholders_and_a_warning() {
    let (_tmp, dir) = current_copy("filtered_servo");
    std::fs::remove_file(dir.join("reference.json")).unwrap();
    let r = run_in(&dir, &["package", "regenerate"]);
    expect(&r, 0);
    for k in ["attribution", "review"] {
        assert!(
            r.stderr.contains(&format!(
                "reference.json has no \"{k}\": writing an empty placeholder"
            )),
            "{r:?}"
        );
        assert_eq!(raw_member(&read(dir.join("reference.json")), k), "{}");
    }
    assert!(read(dir.join("REFERENCE.md")).contains("Not provided yet"));
    // The gate passes (the contract is right) and warns that people still owe the text.
    let r = run_in(&dir, &["package", "gate"]);
    expect(&r, 0);
    assert!(
        r.stderr.contains("attribution is an empty placeholder"),
        "{r:?}"
    );
    assert_eq!(
        json(dir.join("gate.json"))["warnings"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

// ---- unreadable packages: exit 3, nothing written --------------------------------------------

fn refused_unreadable(dir: &Path, needles: &[&str]) {
    let before = snapshot(dir);
    for cmd in [&["package", "gate"][..], &["package", "regenerate"][..]] {
        let r = run_in(dir, cmd);
        expect(&r, 3);
        for n in needles {
            assert!(r.stderr.contains(n), "{cmd:?} should say {n:?}: {r:?}");
        }
        assert_eq!(snapshot(dir), before, "{cmd:?} wrote nothing");
    }
}

#[test]
fn a_malformed_or_partial_reference_is_refused_with_exit_3() {
    let (_tmp, dir) = current_copy("tethered_arm");
    let path = dir.join("reference.json");
    let good = read(&path);

    write(&path, &good[..good.len() / 2]);
    refused_unreadable(
        &dir,
        &["reference.json", "MJB_REASON_MALFORMED_JSON", "malformed"],
    );

    // Duplicate members are malformed for a strict reader.
    write(
        &path,
        &good.replacen("\"seed\":", "\"seed\": 1,\n  \"seed\":", 1),
    );
    refused_unreadable(
        &dir,
        &["reference.json at /seed", "MJB_REASON_DUPLICATE_FIELD"],
    );

    // A member regenerate would have to drop.
    write(
        &path,
        &good.replacen("{\n", "{\n  \"notes\": \"kept by hand\",\n", 1),
    );
    refused_unreadable(
        &dir,
        &["reference.json at /notes", "move other text into those"],
    );

    // Partial: the gate refuses it, regenerate completes it keeping the human fields.
    let mut doc: serde_json::Map<String, Value> = serde_json::from_str(&good).unwrap();
    doc.remove("descriptor");
    write(&path, &serde_json::to_string_pretty(&doc).unwrap());
    let r = run_in(&dir, &["package", "gate"]);
    expect(&r, 3);
    assert!(r.stderr.contains("reference.json at /descriptor"), "{r:?}");
    assert!(r.stderr.contains("partial"), "{r:?}");
    expect(&run_in(&dir, &["package", "regenerate"]), 0);
    assert!(json(&path)["descriptor"]["nq"].is_u64());

    // No reference at all: the gate says to regenerate.
    std::fs::remove_file(&path).unwrap();
    let r = run_in(&dir, &["package", "gate"]);
    expect(&r, 3);
    assert!(r.stderr.contains("there is no reference.json"), "{r:?}");
}

#[test]
fn a_missing_model_file_is_refused_with_exit_3() {
    for (file, needles) in [
        (
            "parts/arm.xml",
            &["<include> in model.xml", "file parts/arm.xml is missing"][..],
        ),
        (
            "assets/cube.obj",
            &[
                "<mesh file=\"cube.obj\"> in model.xml",
                "assets/cube.obj is missing",
            ][..],
        ),
        ("model.xml", &["file model.xml is missing"][..]),
    ] {
        let (_tmp, dir) = current_copy("tethered_arm");
        std::fs::remove_file(dir.join(file)).unwrap();
        refused_unreadable(&dir, needles);
    }
}

#[test]
fn a_model_that_fails_to_compile_is_refused_with_exit_3() {
    let (_tmp, dir) = current_copy("tethered_arm");
    let arm = dir.join("parts/arm.xml");
    let good = read(&arm);
    write(
        &arm,
        &good.replace("joint=\"elbow\" gear", "joint=\"no_such_joint\" gear"),
    );
    refused_unreadable(
        &dir,
        &[
            "the model model.xml could not be loaded",
            "MJB_REASON_MODEL_LOAD",
        ],
    );
    write(&arm, &good.replace("</worldbody>", ""));
    refused_unreadable(&dir, &["model file parts/arm.xml is not well-formed XML"]);
}

#[test]
fn files_outside_the_package_or_unknown_file_references_are_refused() {
    let (tmp, dir) = current_copy("tethered_arm");
    let model = dir.join("model.xml");
    let good = read(&model);
    write(tmp.path().join("outside.xml"), "<mujoco/>");
    write(&model, &good.replace("parts/arm.xml", "../outside.xml"));
    refused_unreadable(&dir, &["\"../outside.xml\" leaves the package directory"]);
    std::os::unix::fs::symlink(tmp.path().join("outside.xml"), dir.join("parts/link.xml")).unwrap();
    write(&model, &good.replace("parts/arm.xml", "parts/link.xml"));
    refused_unreadable(&dir, &["resolves outside the package directory"]);
    write(
        &model,
        &good.replace(
            "<asset>",
            "<asset>\n    <model name=\"m\" file=\"parts/arm.xml\"/>",
        ),
    );
    refused_unreadable(
        &dir,
        &["<model file=...>", "does not know how MuJoCo resolves"],
    );
}

// ---- package.json and fidelity declarations -------------------------------------------------

#[test]
fn package_json_is_strict() {
    let (_tmp, dir) = current_copy("filtered_servo");
    let path = dir.join("package.json");
    let good = read(&path);
    for (text, needles) in [
        (
            good.replace("\"seed\": 7", "\"seed\": 7,\n  \"colour\": \"red\""),
            &["package.json at /colour", "MJB_REASON_UNKNOWN_FIELD"][..],
        ),
        (
            good.replace("\"seed\": 7", "\"seed\": 7.5"),
            &["package.json at /seed", "MJB_REASON_NOT_AN_INTEGER"][..],
        ),
        (
            good.replace("\"auto\"", "\"exact\""),
            &["package.json at /profile", "unknown profile"][..],
        ),
        (
            good.replace("\"model.xml\"", "\"/etc/model.xml\""),
            &["is not a relative path inside the package"][..],
        ),
    ] {
        write(&path, &text);
        refused_unreadable(&dir, needles);
    }
    std::fs::remove_file(&path).unwrap();
    refused_unreadable(&dir, &["package.json cannot be read"]);
}

fn declare(dir: &Path, fidelity: &str) {
    let path = dir.join("package.json");
    let text = read(&path).replace(
        "\"seed\": 7",
        &format!("\"seed\": 7,\n  \"fidelity\": {fidelity}"),
    );
    write(&path, &text);
}

#[test]
fn a_fidelity_declaration_needs_a_justification_and_stays_declared() {
    let (_tmp, dir) = current_copy("filtered_servo");
    let original = read(dir.join("package.json"));

    declare(
        &dir,
        r#"{"claim": "bit-identical reruns", "scope": "this model"}"#,
    );
    refused_unreadable(
        &dir,
        &["package.json at /fidelity: a fidelity declaration is accepted only with a justification"],
    );

    write(dir.join("package.json"), &original);
    declare(
        &dir,
        r#"{"claim": "c", "scope": "s", "justification": {"compared": "x", "engine": "e", "evidence": "evidence/run.txt"}}"#,
    );
    refused_unreadable(
        &dir,
        &[
            "package.json at /fidelity/justification/platform",
            "missing field",
        ],
    );

    write(dir.join("package.json"), &original);
    declare(
        &dir,
        r#"{"claim": "c", "scope": "s", "justification": {"compared": " ", "engine": "e", "platform": "p", "evidence": "evidence/run.txt"}}"#,
    );
    refused_unreadable(
        &dir,
        &["package.json at /fidelity/justification/compared: must not be empty"],
    );

    let justified = format!(
        r#"{{"claim": "two processes stepping this model from its initial state reach bit-identical world documents",
            "scope": "same engine build and machine; the gate's control schedule",
            "justification": {{"compared": "world documents after 1000 steps in two processes",
                               "engine": "MuJoCo {}", "platform": "x86_64 Linux",
                               "evidence": "evidence/run.txt"}}}}"#,
        engine()
    );
    write(dir.join("package.json"), &original);
    declare(&dir, &justified);
    refused_unreadable(&dir, &["file evidence/run.txt is missing"]);

    std::fs::create_dir(dir.join("evidence")).unwrap();
    write(
        dir.join("evidence/run.txt"),
        "run 1: sha256:...\nrun 2: sha256:...\n",
    );
    let r = run_in(&dir, &["package", "regenerate"]);
    expect(&r, 0);
    let reference = json(dir.join("reference.json"));
    let det = &reference["determinism"];
    assert_eq!(
        det["derived"], "none",
        "a declaration never becomes derived"
    );
    assert_eq!(
        det["declared"]["justification"]["evidence"],
        "evidence/run.txt"
    );
    assert_eq!(det["declared"]["justification"]["platform"], "x86_64 Linux");
    assert!(read(dir.join("REFERENCE.md")).contains("declared by the package"));
    let r = run_in(&dir, &["package", "gate"]);
    expect(&r, 0);
    assert!(!r.stderr.contains("does not cover this engine"), "{r:?}");
    let gate = json(dir.join("gate.json"));
    assert!(gate["covered"]["files"]["evidence/run.txt"].is_string());

    // The evidence is covered by the digest.
    write(dir.join("evidence/run.txt"), "run 1: other\n");
    let r = run_in(&dir, &["package", "gate", "--check"]);
    expect(&r, 1);
    assert!(r.stderr.contains("evidence/run.txt changed"), "{r:?}");

    // Evidence from another engine is reported, not silently accepted as covering this one.
    let path = dir.join("package.json");
    write(
        &path,
        &read(&path).replace(&format!("MuJoCo {}", engine()), "MuJoCo 1.50"),
    );
    expect(&run_in(&dir, &["package", "regenerate"]), 0);
    let r = run_in(&dir, &["package", "gate"]);
    expect(&r, 0);
    assert!(
        r.stderr.contains("its evidence does not cover this engine"),
        "{r:?}"
    );
}

// ---- checkpoint validate and inspect ----------------------------------------------------------

/// A checkpoint of the package's model taken by the library, as a host would.
fn host_checkpoint(dir: &Path, seed: u64, steps: u32) -> (String, String) {
    use mjbridge::endpoint::{Endpoint, WAIT_FOREVER};
    let config = serde_json::json!({
        "model": {"xml_path": dir.join("model.xml")},
        "seed": seed,
    });
    let ep = Endpoint::open(config.to_string().as_bytes()).expect("open");
    let nu = ep.shape().dims.nu as usize;
    assert_eq!(ep.set_ctrl(&vec![0.3; nu], WAIT_FOREVER).detail, None);
    let a = ep.step(steps, WAIT_FOREVER);
    assert_eq!(a.report.tick_after, u64::from(steps));
    (
        ep.checkpoint_read(WAIT_FOREVER).unwrap(),
        ep.world_read(WAIT_FOREVER).unwrap(),
    )
}

#[test]
fn checkpoint_validate_reports_reason_and_pointer_without_restoring() {
    let (tmp, dir) = current_copy("tethered_arm");
    let (cp, world) = host_checkpoint(&dir, 0, 30);
    let file = tmp.path().join("cp.json");
    let f = file.to_str().unwrap();
    let d = dir.to_str().unwrap();
    // A bare checkpoint fits the package, and the command says what it could not check.
    write(&file, &cp);
    let r = run(&["checkpoint", "validate", "--package", d, f]);
    expect(&r, 0);
    assert!(r.stdout.contains("fits package tethered_arm"), "{r:?}");
    assert!(
        r.stdout.contains("does not name the model's content"),
        "{r:?}"
    );
    assert!(r.stdout.contains("admitted at tick 30"), "{r:?}");
    // A world document names the model: valid for the package.
    write(&file, &world);
    let r = run(&["checkpoint", "validate", "--package", d, f]);
    expect(&r, 0);
    assert!(r.stdout.contains("valid for package tethered_arm"), "{r:?}");
    assert!(r.stdout.contains("admitted at tick 30"), "{r:?}");
    // The same model with another damping: a world document of it is refused, a bare
    // checkpoint (same dimensions) cannot be told apart.
    let other = tmp.path().join("other");
    copy_dir(&dir, &other);
    let arm = other.join("parts").join("arm.xml");
    let xml = read(&arm);
    let damped = xml.replacen("damping=\"", "damping=\"1", 1);
    assert_ne!(damped, xml, "the arm has a damping to change");
    write(&arm, &damped);
    let (other_cp, other_world) = host_checkpoint(&other, 0, 30);
    write(&file, &other_world);
    let r = run(&["checkpoint", "validate", "--package", d, f]);
    expect(&r, 1);
    assert!(
        r.stdout.contains("reason:  MJB_REASON_MODEL_FINGERPRINT"),
        "{r:?}"
    );
    assert!(
        r.stdout.contains("pointer: /world/model_fingerprint\n"),
        "{r:?}"
    );
    assert!(
        r.stderr.is_empty(),
        "a refusal is printed once, on stdout: {r:?}"
    );
    write(&file, &other_cp);
    let r = run(&["checkpoint", "validate", "--package", d, f]);
    expect(&r, 0);
    assert!(
        r.stdout.contains("does not name the model's content"),
        "{r:?}"
    );

    let mut cases: Vec<(String, &str, String)> = vec![
        (
            cp.replacen(
                &format!("\"engine\":\"{}\"", engine()),
                "\"engine\":\"9.9.9\"",
                1,
            ),
            "MJB_REASON_ENGINE",
            "/engine".into(),
        ),
        (
            cp.replacen("\"tick\":30", "\"tick\":30.5", 1),
            "MJB_REASON_NOT_AN_INTEGER",
            "/tick".into(),
        ),
        (
            cp[..cp.len() - 1].to_owned(),
            "MJB_REASON_MALFORMED_JSON",
            String::new(),
        ),
    ];
    if integration() && cfg!(mjb_eq_active) {
        let reference = json(dir.join("reference.json"));
        let off = reference["integration_state"]["segments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "eq_active")
            .unwrap()["offset"]
            .as_u64()
            .unwrap() as usize;
        let mut v: Value = serde_json::from_str(&cp).unwrap();
        v["values"][off] = 0.5.into();
        cases.push((
            v.to_string(),
            "MJB_REASON_EQ_ACTIVE_DOMAIN",
            format!("/values/{off}"),
        ));
    }
    // Another seed than the package's.
    let (other_seed, _) = host_checkpoint(&dir, 5, 3);
    cases.push((other_seed, "MJB_REASON_SEED", "/seed".into()));
    for (doc, reason, pointer) in cases {
        write(&file, &doc);
        let r = run(&["checkpoint", "validate", "--package", d, f]);
        expect(&r, 1);
        assert!(r.stdout.contains(&format!("reason:  {reason}")), "{r:?}");
        if !pointer.is_empty() {
            assert!(r.stdout.contains(&format!("pointer: {pointer}\n")), "{r:?}");
        }
        assert!(
            r.stderr.is_empty(),
            "a refusal is printed once, on stdout: {r:?}"
        );
        assert_eq!(read(&file), doc, "validate never touches the file");
    }
    // A refusal without a pointer (the whole document is too large) shows no pointer line.
    write(&file, &" ".repeat((1 << 20) + 1));
    let r = run(&["checkpoint", "validate", "--package", d, f]);
    expect(&r, 1);
    assert!(r.stdout.contains("reason:  MJB_REASON_TOO_LARGE"), "{r:?}");
    assert!(!r.stdout.contains("pointer:"), "no pointer, no line: {r:?}");
    let r = run(&[
        "checkpoint",
        "validate",
        "--package",
        d,
        "/nonexistent/cp.json",
    ]);
    expect(&r, 3);
    let r = run(&["checkpoint", "validate", "--package", "/nonexistent", f]);
    expect(&r, 3);
}

#[test]
fn checkpoint_inspect_shows_what_a_document_holds() {
    let (tmp, dir) = current_copy("tethered_arm");
    let (cp, world) = host_checkpoint(&dir, 0, 12);
    let file = tmp.path().join("cp.json");
    let f = file.to_str().unwrap();
    write(&file, &cp);
    let r = run(&["checkpoint", "inspect", f]);
    expect(&r, 0);
    assert!(r.stdout.contains("checkpoint document"), "{r:?}");
    assert!(r.stdout.contains(&format!("engine: {}", engine())), "{r:?}");
    assert!(r.stdout.contains("tick: 12"), "{r:?}");
    assert!(r.stdout.contains("qpos: 9 numbers"), "{r:?}");
    let r = run(&[
        "checkpoint",
        "inspect",
        "--json",
        "--package",
        dir.to_str().unwrap(),
        f,
    ]);
    expect(&r, 0);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["tick"], 12);
    assert_eq!(v["qvel"], 8);
    if integration() {
        let reference = json(dir.join("reference.json"));
        assert_eq!(v["segments"], reference["integration_state"]["segments"]);
        let plain = run(&["checkpoint", "inspect", f]);
        assert!(
            plain.stdout.contains("derivable only from the model"),
            "{plain:?}"
        );
    } else {
        assert!(v["segments"].is_null());
        assert_eq!(v["act"], 0);
    }

    // A world document: its state hash is recomputed.
    write(&file, &world);
    let r = run(&["checkpoint", "inspect", "--json", f]);
    expect(&r, 0);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["document"], "world document");
    assert_eq!(v["state_hash"]["matches"], true);
    write(&file, &world.replacen("\"tick\":12", "\"tick\":13", 1));
    let r = run(&["checkpoint", "inspect", f]);
    expect(&r, 1);
    assert!(r.stderr.contains("state_hash does not match"), "{r:?}");

    write(&file, "{\"profile\": ");
    let r = run(&["checkpoint", "inspect", f]);
    expect(&r, 1);
    assert!(r.stderr.contains("MJB_REASON_MALFORMED_JSON"), "{r:?}");
    let r = run(&["checkpoint", "inspect", "/nonexistent/cp.json"]);
    expect(&r, 3);
}

// ---- the command line -------------------------------------------------------------------------

#[test]
fn usage_errors_exit_2_and_help_documents_the_exit_codes() {
    for args in [
        &[][..],
        &["package"][..],
        &["package", "gate"][..],
        &["package", "gate", "--steps", "0", "x"][..],
        &["package", "polish", "x"][..],
        &["checkpoint", "validate", "cp.json"][..],
    ] {
        let r = run(args);
        expect(&r, 2);
    }
    let r = run(&["--help"]);
    expect(&r, 0);
    assert!(r
        .stdout
        .contains("3  a package, or a file it names, could not be read"));
    let r = run(&["package", "gate", "--help"]);
    expect(&r, 0);
    assert!(r.stdout.contains("--check") && r.stdout.contains("Exit codes"));
    let r = run(&["--version"]);
    expect(&r, 0);
    assert!(r.stdout.contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn gating_several_packages_exits_with_the_worst_outcome() {
    let (_a, good) = current_copy("filtered_servo");
    let (_b, broken) = current_copy("tethered_arm");
    std::fs::remove_file(broken.join("parts/arm.xml")).unwrap();
    let r = run(&[
        "package",
        "gate",
        good.to_str().unwrap(),
        broken.to_str().unwrap(),
    ]);
    expect(&r, 3);
    assert!(r.stdout.contains("gate passed"), "{r:?}");
    assert!(r.stderr.contains("parts/arm.xml is missing"), "{r:?}");
}

#[test]
fn progress_shows_on_a_terminal_and_stays_quiet_otherwise() {
    let (_a, one) = current_copy("filtered_servo");
    let (_b, two) = current_copy("tethered_arm");
    let (one, two) = (one.to_str().unwrap(), two.to_str().unwrap());
    let piped = run(&["package", "gate", one, two]);
    expect(&piped, 0);
    assert!(
        !piped.stderr.contains('\r'),
        "no status line when stderr is not a terminal: {piped:?}"
    );
    assert!(piped.stderr.is_empty(), "{piped:?}");

    let Some(script) = toolchain::tool("MJB_SCRIPT", "script") else {
        return;
    };
    // `script` runs the command on a pseudo-terminal and copies what it shows.
    let cmd = format!(
        "{} package gate {one} {two}",
        env!("CARGO_BIN_EXE_mjbridge")
    );
    let out = Command::new(script)
        .args(["-qefc", &cmd, "/dev/null"])
        .output()
        .expect("run script");
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{shown}");
    assert!(
        shown.contains("[1/2]") && shown.contains("[2/2]"),
        "{shown}"
    );
    assert!(shown.contains("continuation, first run: step"), "{shown}");
}

#[test]
fn a_closed_pipe_ends_the_output_not_the_command() {
    // `mjbridge package gate DIR | head -1`: the reader goes away after one line. The command
    // still finishes its gate (and writes gate.json) and exits with a documented code, quietly.
    let (_tmp, dir) = current_copy("tethered_arm");
    std::fs::remove_file(dir.join("gate.json")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mjbridge"))
        .args(["package", "gate", dir.to_str().unwrap()])
        .env("RUST_BACKTRACE", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run mjbridge");
    // The reader is gone before the command writes its first line (as `head` is once it has
    // what it wanted): every write meets a closed pipe.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "exit code; stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(dir.join("gate.json").is_file(), "the gate ran to its end");
}

#[cfg(mjb_plugins)]
#[test]
fn a_model_that_needs_an_engine_plugin_packages_with_the_bundled_plugin_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("plugin_model");
    std::fs::create_dir(&dir).unwrap();
    // MuJoCo's `mujoco.pid` actuator where the engine ships it (3.x, 4.x), else its touch-grid
    // sensor (2.3.x ships only the elasticity and sensor plugins).
    let engine_plugins = std::path::Path::new(env!("MJB_ENGINE_LIBRARY"))
        .parent()
        .unwrap()
        .join("plugin");
    let model = if engine_plugins.join("libactuator.so").is_file() {
        "pid_plugin.xml"
    } else {
        "touch_plugin.xml"
    };
    std::fs::copy(
        toolchain::root().join("tests/models").join(model),
        dir.join("model.xml"),
    )
    .unwrap();
    write(
        dir.join("package.json"),
        r#"{"name": "plugin_model", "model": "model.xml"}"#,
    );
    // By default the command loads the plugin folder of the MuJoCo it was built with.
    let r = run_in(&dir, &["package", "regenerate"]);
    expect(&r, 0);
    let r = run_in(&dir, &["package", "gate"]);
    expect(&r, 0);
    assert!(read(dir.join("gate.json")).contains("\"pass\""), "{r:?}");
    // An explicit folder that cannot be loaded is exit 3, before any package is read.
    let r = run_in(
        &dir,
        &[
            "--plugin-dir",
            "/nonexistent/plugins",
            "package",
            "gate",
            "--check",
        ],
    );
    expect(&r, 3);
    assert!(r.stderr.contains("/nonexistent/plugins"), "{r:?}");
}
