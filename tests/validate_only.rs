//! `Endpoint::validate_checkpoint`: the validation `mjb_restore` runs before admission, alone.
//! It must refuse exactly what restore refuses (same reason, same pointer), accept what restore
//! accepts, and change nothing. Runs on every engine with the profile `auto` picks.

mod common;
use common::*;
use mjbridge::endpoint::WAIT_FOREVER;
use mjbridge::outcome::Outcome;
use serde_json::Value;

fn edited(doc: &str, f: impl FnOnce(&mut Value)) -> String {
    let mut v: Value = serde_json::from_str(doc).unwrap();
    f(&mut v);
    v.to_string()
}

#[test]
fn validation_alone_refuses_what_restore_refuses_and_changes_nothing() {
    let ep = open_model("contact_act.xml", "\"seed\":3");
    ep.set_ctrl(&[0.4, -0.2]);
    ep.step_ok(40);
    let cp = ep.checkpoint();
    let snapshot = ep.world();
    ep.step_ok(5);

    let mut docs = vec![
        cp[..cp.len() / 3].to_owned(),
        edited(&cp, |v| v["engine"] = "0.0.0".into()),
        edited(&cp, |v| v["descriptor"]["nbody"] = 99.into()),
        edited(&cp, |v| v["seed"] = 4.into()),
        edited(&cp, |v| v["tick"] = (-1).into()),
        edited(&cp, |v| v["extra"] = Value::Null),
        edited(&cp, |v| {
            v.as_object_mut().unwrap().remove("qvel");
        }),
        cp.replacen("\"time\":", "\"time\":1e400,\"x\":", 1),
        // A world document (restore takes snapshots too) whose hash no longer matches.
        snapshot.replacen("\"tick\":40", "\"tick\":41", 1),
    ];
    if auto_profile() == "mujoco_integration_v1" {
        let eq = with_endpoint(&ep, |e| {
            e.shape().layout.as_ref().unwrap().range("eq_active")
        });
        docs.push(edited(&cp, |v| v["values"][eq.start] = 0.5.into()));
        docs.push(edited(&cp, |v| v["qpos"][0] = 123.0.into()));
    } else {
        docs.push(edited(&cp, |v| v["act"] = serde_json::json!([])));
    }
    for doc in &docs {
        let before = (ep.world(), ep.safety());
        let validated = with_endpoint(&ep, |e| e.validate_checkpoint(doc.as_bytes()));
        assert_eq!(
            (ep.world(), ep.safety()),
            before,
            "validation changes nothing"
        );
        let refusal = validated.expect_err(doc);
        assert_eq!(refusal.outcome, Outcome::Rejected);
        let (o, _) = ep.restore(doc);
        assert_eq!(o, Outcome::Rejected);
        let e = last_error();
        assert_eq!(e["reason"], refusal.reason.name(), "{doc}");
        assert_eq!(e["pointer"].as_str(), refusal.pointer.as_deref(), "{doc}");
        assert_eq!((ep.world(), ep.safety()), before);
    }

    // What validates is what restores, at the checkpoint's tick: the checkpoint and the
    // snapshot taken with it.
    let before = ep.world();
    let ok = with_endpoint(&ep, |e| e.validate_checkpoint(cp.as_bytes())).expect("valid");
    assert_eq!(ok.tick(), 40);
    let ok = with_endpoint(&ep, |e| e.validate_checkpoint(snapshot.as_bytes())).expect("valid");
    assert_eq!(ok.tick(), 40);
    assert_eq!(ep.world(), before, "validation restores nothing");
    let (o, r) = ep.restore(&cp);
    assert_eq!(o, Outcome::Ok);
    assert_eq!(r.tick_after, 40);
    with_endpoint(&ep, |e| {
        assert_eq!(e.checkpoint_read(WAIT_FOREVER).unwrap(), cp);
    });
}
