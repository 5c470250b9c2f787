//! What the benches share: their own models (no file of `../shared` needed: a humanoid-sized
//! walker and any number of free boxes), pinning to one CPU, the median, and raw MuJoCo (the
//! same library the bridge links), the contender most figures are held against.
#![allow(dead_code)]

use mjbridge::native::{MjData, MjModel};
use std::ffi::{c_char, c_int, c_void, CString};
use std::path::{Path, PathBuf};
use std::process::Command;

extern "C" {
    pub fn mj_loadXML(
        path: *const c_char,
        vfs: *const c_void,
        err: *mut c_char,
        len: c_int,
    ) -> *mut MjModel;
    pub fn mj_makeData(m: *const MjModel) -> *mut MjData;
    pub fn mj_deleteData(d: *mut MjData);
    pub fn mj_deleteModel(m: *mut MjModel);
    pub fn mj_step(m: *const MjModel, d: *mut MjData);
    pub fn mj_stateSize(m: *const MjModel, sig: c_int) -> c_int;
    pub fn mj_getState(m: *const MjModel, d: *const MjData, state: *mut f64, sig: c_int);
    pub fn mj_setState(m: *const MjModel, d: *mut MjData, state: *const f64, sig: c_int);
}

/// A raw MuJoCo model/data pair, loaded from XML, deleted on drop.
pub struct Raw {
    pub m: *mut MjModel,
    pub d: *mut MjData,
}

impl Raw {
    pub fn open(path: &Path) -> Raw {
        // MuJoCo's XML loader is not reentrant (the bridge serializes it too).
        static LOAD: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let c = CString::new(path.to_str().unwrap()).unwrap();
        let mut err = [0 as c_char; 1000];
        let _g = LOAD.lock().unwrap();
        let m = unsafe { mj_loadXML(c.as_ptr(), std::ptr::null(), err.as_mut_ptr(), 1000) };
        assert!(!m.is_null(), "raw load of {}", path.display());
        Raw {
            m,
            d: unsafe { mj_makeData(m) },
        }
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        unsafe {
            mj_deleteData(self.d);
            mj_deleteModel(self.m);
        }
    }
}

pub fn pin(cpu: usize) {
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            println!("(could not pin to CPU {cpu})");
        }
    }
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// A humanoid-sized walker: a free torso with four five-joint limbs, all motored.
pub fn walker() -> String {
    let mut limbs = String::new();
    for (i, (x, y)) in [(0.2, 0.1), (0.2, -0.1), (-0.2, 0.1), (-0.2, -0.1)]
        .iter()
        .enumerate()
    {
        let mut body = String::new();
        let mut close = String::new();
        for j in 0..5 {
            let axis = if j % 2 == 0 { "0 1 0" } else { "1 0 0" };
            body.push_str(&format!(
                "<body name=\"l{i}s{j}\" pos=\"{} {} -0.1\"><joint name=\"j{i}_{j}\" type=\"hinge\" axis=\"{axis}\" range=\"-60 60\" damping=\"0.5\"/><geom type=\"capsule\" fromto=\"0 0 0 0 0 -0.1\" size=\"0.03\"/>",
                if j == 0 { *x } else { 0.0 },
                if j == 0 { *y } else { 0.0 },
            ));
            close.push_str("</body>");
        }
        limbs.push_str(&body);
        limbs.push_str(&close);
    }
    let motors: String = (0..4)
        .flat_map(|i| {
            (0..5)
                .map(move |j| format!("<motor joint=\"j{i}_{j}\" gear=\"20\" ctrlrange=\"-1 1\"/>"))
        })
        .collect();
    format!(
        "<mujoco model=\"walker\"><option timestep=\"0.005\"/><worldbody><geom type=\"plane\" size=\"5 5 0.1\"/>\
         <body name=\"torso\" pos=\"0 0 0.8\"><freejoint/><geom type=\"box\" size=\"0.25 0.15 0.08\"/>{limbs}</body>\
         </worldbody><actuator>{motors}</actuator></mujoco>"
    )
}

/// `n` free boxes dropping on a plane (31 state values each).
pub fn boxes(n: usize) -> String {
    let side = (n as f64).sqrt().ceil() as usize;
    let mut bodies = String::new();
    for i in 0..n {
        let (x, y) = ((i % side) as f64 * 0.3, (i / side) as f64 * 0.3);
        bodies.push_str(&format!(
            "<body pos=\"{x} {y} {}\"><freejoint/><geom type=\"box\" size=\"0.1 0.1 0.1\"/></body>",
            0.3 + (i % 7) as f64 * 0.05
        ));
    }
    format!(
        "<mujoco model=\"boxes{n}\"><option timestep=\"0.004\"/><size memory=\"200M\"/><worldbody><geom type=\"plane\" size=\"50 50 0.1\"/>{bodies}</worldbody></mujoco>"
    )
}

/// Run a command that must succeed.
pub fn run(cmd: &mut Command) {
    let status = cmd.status().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(status.success(), "{cmd:?}: {status}");
}

/// Build the release cdylib beside this bench's own target folder and return that folder
/// (`target/release`), for the benches that drive a binding in another language.
pub fn release_library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let release = exe.parent().unwrap().parent().unwrap().to_path_buf();
    run(
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["build", "--release", "--lib", "--quiet", "--manifest-path"])
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", release.parent().unwrap()),
    );
    release
}
