//! Foundation: the engine guard, endpoint lifecycle, stepping, strict config, handles.

mod common;
use common::*;
use mjbridge::ffi::*;
use mjbridge::outcome::Outcome;

#[test]
fn smoke_open_step_world() {
    let ep = open_model("contact_act.xml", "\"name\":\"smoke\",\"seed\":7");
    ep.step_ok(10);
    let w = ep.world();
    println!("{w}");
    let c = ep.checkpoint();
    println!("{c}");
    let _ = mjb_version();
}
