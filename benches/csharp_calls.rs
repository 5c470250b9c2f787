//! Drives `benches/csharp/Bench.cs` on Mono: the C# binding's accepted and refused calls, time
//! and managed bytes allocated per call (issue 16: a refused `Step` cost 21.7 µs and
//! allocated). Builds the release library, compiles the binding and the bench with `mcs`, runs
//! on `tests/models/host.xml` and the shared humanoid when present.
//! Run: `cargo bench --bench csharp_calls`.

use std::path::PathBuf;
use std::process::Command;

#[path = "support.rs"]
mod support;
use support::{release_library, run};

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let release = release_library();
    let (mcs, mono) = (
        std::env::var("MCS").unwrap_or_else(|_| "mcs".into()),
        std::env::var("MONO").unwrap_or_else(|_| "mono".into()),
    );
    let bench = release.join("csharp_calls.exe");
    run(Command::new(&mcs)
        .arg(format!("-out:{}", bench.display()))
        .args(["-optimize+", "-warn:4", "-warnaserror+"])
        .arg(root.join("bindings/csharp/MjBridge.cs"))
        .arg(root.join("benches/csharp/Bench.cs")));
    let models_dir = std::env::var_os("MJB_MODELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/models/mujoco"));
    let mut models = vec![root.join("tests/models/host.xml")];
    if models_dir.join("humanoid.xml").is_file() {
        models.push(models_dir.join("humanoid.xml"));
    }
    let rounds = if std::env::var_os("MJB_BENCH_QUICK").is_some() {
        "3"
    } else {
        "9"
    };
    for m in models {
        run(Command::new(&mono)
            .arg(&bench)
            .arg(&m)
            .arg(rounds)
            .env("LD_LIBRARY_PATH", &release));
    }
}
