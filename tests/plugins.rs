//! Plugin libraries loaded through the bridge (guarded `mj_loadPluginLibrary` /
//! `mj_loadAllPluginLibraries`), so a host that never links MuJoCo can open models that need
//! them. Its own test binary: plugin registration is process-wide and cannot be undone.

mod common;
use common::*;
use mjbridge::ffi::*;
use mjbridge::outcome::Outcome;
use std::ffi::CString;
use std::path::PathBuf;

fn plugin_dir() -> PathBuf {
    let lib = PathBuf::from(env!("MJB_ENGINE_LIBRARY"));
    lib.parent().unwrap().join("plugin")
}

/// The plugin library and the model that needs it: MuJoCo's `mujoco.pid` actuator
/// (libactuator.so) where the engine's plugin folder has it (3.x, 4.x), else the
/// `mujoco.sensor.touch_grid` sensor (libsensor.so, in every wheel since 2.3).
#[cfg_attr(not(mjb_plugins), allow(dead_code))]
struct Case {
    library: &'static str,
    model: &'static str,
}

fn case() -> Case {
    if plugin_dir().join("libactuator.so").is_file() {
        Case {
            library: "libactuator.so",
            model: "pid_plugin.xml",
        }
    } else {
        Case {
            library: "libsensor.so",
            model: "touch_plugin.xml",
        }
    }
}

fn load(path: &str) -> (Outcome, usize) {
    let c = CString::new(path).unwrap();
    let mut n = 99;
    let o = unsafe { mjb_plugin_load(c.as_ptr(), &mut n) };
    (o.into(), n)
}

fn load_dir(dir: &str) -> (Outcome, usize, usize) {
    let c = CString::new(dir).unwrap();
    let (mut libs, mut n) = (99, 99);
    let o = unsafe { mjb_plugin_load_dir(c.as_ptr(), &mut libs, &mut n) };
    (o.into(), libs, n)
}

fn plugin_config() -> String {
    format!(
        "{{\"model\":{{\"xml_path\":{}}},\"frame\":[\"sensordata\"]}}",
        js(&model_path(case().model))
    )
}

#[cfg(mjb_plugins)]
#[test]
fn a_model_that_needs_a_plugin_opens_once_the_bridge_has_loaded_it() {
    let dir = plugin_dir();
    let case = case();
    assert!(
        dir.join(case.library).is_file(),
        "the build extracts the wheel's plugin folder next to the library ({})",
        dir.display()
    );
    let (o, e) = try_open(&plugin_config())
        .err()
        .expect("the model's plugin is not registered yet");
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(e["reason"], "MJB_REASON_MODEL_LOAD");

    // Refusals: not a file, not a library (MuJoCo's dlopen error, raised inside the guard),
    // not a directory; nothing registered.
    assert_eq!(load("/no/such/plugin.so"), (Outcome::Rejected, 0));
    assert_eq!(last_reason(), "MJB_REASON_PLUGIN_LOAD");
    assert_eq!(load(&model_path("pendulum.xml")), (Outcome::Rejected, 0));
    assert_eq!(last_reason(), "MJB_REASON_PLUGIN_LOAD");
    assert!(
        last_error()["message"]
            .as_str()
            .unwrap()
            .contains("pendulum.xml"),
        "MuJoCo's loader message: {}",
        last_error()
    );
    assert_eq!(load_dir("/no/such/dir"), (Outcome::Rejected, 0, 0));
    assert_eq!(last_reason(), "MJB_REASON_PLUGIN_LOAD");
    let o = unsafe { mjb_plugin_load(std::ptr::null(), std::ptr::null_mut()) };
    assert_eq!(o, Outcome::InvalidArgument);
    assert!(try_open(&plugin_config()).is_err(), "still not registered");

    let (o, libs, n) = load_dir(&dir.to_string_lossy());
    assert_eq!(o, Outcome::Ok, "{:?}", last_error());
    assert!(libs >= 1 && n >= 1, "{libs} libraries, {n} plugins");
    let (o, again) = load(&dir.join(case.library).to_string_lossy());
    assert_eq!(
        (o, again),
        (Outcome::Ok, 0),
        "already registered: nothing new"
    );
    refusals_inside_the_system_loader_leave_it_usable(&dir.join(case.library));

    let ep = open(&plugin_config());
    if case.model == "pid_plugin.xml" {
        assert_eq!(ep.set_ctrl(&[0.1, 0.1]), Outcome::Ok);
        ep.step_ok(600);
        let q = ep.public().qpos;
        assert!(
            q.iter().all(|x| (x - 0.1).abs() < 0.005),
            "the plugin actuators reach the setpoint: {q:?}"
        );
    } else {
        ep.step_ok(600);
        let touch = &ep.frame(&[Field::Sensordata]).0[0];
        // The grid's normal forces add up to the resting box's weight (0.5 kg).
        let weight: f64 = touch.iter().sum::<f64>().abs();
        assert!(
            (weight - 0.5 * 9.81).abs() < 0.05,
            "the plugin sensor feels the box resting on the pad: {touch:?}"
        );
    }
    // The plugin's state is part of the checkpoint: continuation stays exact.
    let cp = ep.checkpoint();
    ep.step_ok(50);
    let ahead = ep.public();
    assert_eq!(ep.restore(&cp).0, Outcome::Ok);
    ep.step_ok(50);
    if cfg!(mjb_integration) {
        assert!(ep.public().same_bits(&ahead));
    }
}

#[cfg(not(mjb_plugins))]
#[test]
fn an_engine_without_the_plugin_api_refuses_plugin_loading_clearly() {
    let dir = plugin_dir();
    assert_eq!(load(&model_path("pendulum.xml")), (Outcome::Rejected, 0));
    assert_eq!(last_reason(), "MJB_REASON_UNSUPPORTED");
    assert!(last_error()["message"]
        .as_str()
        .unwrap()
        .contains("plugin API"));
    std::fs::create_dir_all(&dir).ok();
    let any_dir = env!("CARGO_MANIFEST_DIR");
    assert_eq!(load_dir(any_dir), (Outcome::Rejected, 0, 0));
    assert_eq!(last_reason(), "MJB_REASON_UNSUPPORTED");
    let (o, e) = try_open(&plugin_config())
        .err()
        .expect("no plugins on this engine");
    assert_eq!(o, Outcome::Rejected);
    assert_eq!(e["reason"], "MJB_REASON_MODEL_LOAD");
}

/// MuJoCo raises some plugin errors inside the system loader: a library's constructor registers
/// its plugins from within `dlopen`, and a copy of a loaded library registers the same names
/// again; MuJoCo 3.x loads a directory's libraries holding its plugin table's lock, and a file
/// that is not a library raises there. Jumping out of either would leave that lock held, and
/// the next library load on any thread would hang: each refusal is followed by a load on
/// another thread, which must finish.
#[cfg(mjb_plugins)]
fn refusals_inside_the_system_loader_leave_it_usable(library: &std::path::Path) {
    fn another_thread_loads(path: std::path::PathBuf) {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(load(&path.to_string_lossy()));
        });
        let answer = rx.recv_timeout(std::time::Duration::from_secs(30));
        assert_eq!(
            answer.map(|(o, _)| o),
            Ok(Outcome::Ok),
            "a library load on another thread after the refusal"
        );
    }
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("libplugin_copy.so");
    std::fs::copy(library, &copy).unwrap();
    assert_eq!(load(&copy.to_string_lossy()).0, Outcome::Rejected);
    assert_eq!(last_reason(), "MJB_REASON_PLUGIN_LOAD");
    assert!(
        last_error()["message"]
            .as_str()
            .unwrap()
            .contains("already registered"),
        "MuJoCo's message: {}",
        last_error()
    );
    another_thread_loads(library.to_path_buf());

    let broken = tmp.path().join("broken");
    std::fs::create_dir(&broken).unwrap();
    std::fs::write(broken.join("libempty.so"), b"").unwrap();
    let (o, libs, n) = load_dir(&broken.to_string_lossy());
    assert_eq!((o, libs, n), (Outcome::Rejected, 0, 0));
    assert_eq!(last_reason(), "MJB_REASON_PLUGIN_LOAD");
    assert!(
        last_error()["message"]
            .as_str()
            .unwrap()
            .contains("libempty.so"),
        "MuJoCo's message: {}",
        last_error()
    );
    another_thread_loads(library.to_path_buf());
}
