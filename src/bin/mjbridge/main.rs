//! `mjbridge`: the command-line tool for MuJoCo packages and checkpoint files, built on the
//! library's Rust API (an [`Endpoint`](mjbridge::endpoint::Endpoint) per package, exactly as a
//! host would open one).
//!
//! - `package regenerate DIR...`: write `reference.json` and `REFERENCE.md` from the live
//!   endpoint, carrying `attribution` and `review` over byte for byte ([`reference`]).
//! - `package gate [--check] DIR...`: compare the reference with the live endpoint, run the
//!   checkpoint conformance checks, write a fresh `gate.json` with a digest ([`gate`]).
//! - `checkpoint validate --package DIR FILE`, `checkpoint inspect FILE` ([`inspect`]).
//! - `replay RECORDING --model MODEL.xml`: re-execute and verify a recording ([`replay`]).
//!
//! Exit codes: 0 ok, 1 a gate or a validation failed, 2 usage, 3 a package (or a file it
//! names) could not be read or loaded.

mod doc;
mod files;
mod gate;
mod inspect;
mod manifest;
mod pretty;
mod progress;
mod reference;
mod replay;

use clap::{Parser, Subcommand};
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

/// A line of results on standard output. A closed pipe (`mjbridge package gate DIR | head -1`)
/// stops the output, not the command: it finishes its work (a gate still writes its
/// `gate.json`) and exits with its own code.
macro_rules! say {
    ($($t:tt)*) => { $crate::out(format_args!($($t)*), true) };
}
pub(crate) use say;

/// Results without a line end (a pretty-printed document that ends with its own).
macro_rules! say_raw {
    ($($t:tt)*) => { $crate::out(format_args!($($t)*), false) };
}
pub(crate) use say_raw;

static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

pub fn out(args: std::fmt::Arguments, newline: bool) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut o = std::io::stdout().lock();
    let written = o
        .write_fmt(args)
        .and_then(|()| if newline { o.write_all(b"\n") } else { Ok(()) });
    if written.is_err() {
        // A closed pipe or a full disk: nothing more can be shown; the work goes on.
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
}

/// A warning or an error on standard error (never a panic, whatever became of stderr).
pub fn tell(line: std::fmt::Arguments) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

const EXIT_CODES: &str = "\
Exit codes:
  0  ok
  1  a gate or a validation failed (the reason is printed)
  2  usage error
  3  a package, or a file it names, could not be read or loaded
     (package.json, reference.json, a model file, a checkpoint file, a plugin folder; or
     MuJoCo refused to compile the model; replay: a recording not read within --timeout)
  4  replay: the recording was refused (malformed, over 64 MiB, another engine or model; the
     reason and JSON pointer are printed)
  5  replay: the replay diverged (the first diverging tick is printed)
A closed standard output (a pipe into `head`) ends the output only: the command finishes and
exits with one of these codes.";

#[derive(Parser)]
#[command(
    name = "mjbridge",
    version,
    about = "MuJoCo packages (reference, gate) and checkpoint files, through the mjbridge library",
    after_help = EXIT_CODES
)]
struct Cli {
    /// Load MuJoCo's engine plugins from this folder before opening any model (repeatable).
    /// Without it, the plugin folder of the install the command belongs to is loaded when
    /// there is one (`lib/mujoco_plugin`, or `bin/mujoco_plugin` on Windows), else the one
    /// the build linked against.
    #[arg(long, global = true, value_name = "DIR")]
    plugin_dir: Vec<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// A package: a directory with package.json, its model files, reference.json, REFERENCE.md
    /// and gate.json.
    #[command(subcommand, after_help = EXIT_CODES)]
    Package(PackageCommand),
    /// Checkpoint documents (what `mjb_checkpoint_read` serves and `mjb_restore` takes).
    #[command(subcommand, after_help = EXIT_CODES)]
    Checkpoint(CheckpointCommand),
    /// Re-execute a recording (`mjb_history_export`) on a fresh endpoint of MODEL and verify
    /// the state hash of every tick: prints the verified tick range, or the first diverging
    /// tick.
    #[command(after_help = EXIT_CODES)]
    Replay {
        /// The model the recording was made of (its fingerprint must match).
        #[arg(long, value_name = "MODEL.xml")]
        model: PathBuf,
        /// Give up (exit 3) when the recording is not opened and read to its end within
        /// SECONDS: a FIFO nobody writes, a pipe or device that stalls.
        #[arg(long, value_name = "SECONDS", default_value_t = replay::DEFAULT_TIMEOUT_SECS, value_parser = clap::value_parser!(u64).range(1..=86_400))]
        timeout: u64,
        /// The recording (`-`: standard input). At most 64 MiB are read: a larger file, or an
        /// endless device, is refused (exit 4).
        recording: PathBuf,
    },
}

#[derive(Subcommand)]
enum PackageCommand {
    /// Load each package's model in an endpoint and write reference.json and REFERENCE.md.
    /// attribution and review of an existing reference.json are kept byte for byte.
    #[command(after_help = EXIT_CODES)]
    Regenerate {
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
    },
    /// Refuse a package whose reference.json differs from the live endpoint, run the
    /// checkpoint conformance checks, and write a fresh gate.json (a digest is never reused).
    #[command(after_help = EXIT_CODES)]
    Gate {
        /// Write nothing: fail unless the stored gate.json is exactly what this fresh gate
        /// writes (for CI; a stale digest names the files that changed).
        #[arg(long)]
        check: bool,
        /// Engine steps after the checkpoint in the continuation check (run twice).
        #[arg(long, default_value_t = gate::DEFAULT_STEPS, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        steps: u32,
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
    },
}

#[derive(Subcommand)]
enum CheckpointCommand {
    /// Validate a checkpoint file against a package's model without restoring it.
    #[command(after_help = EXIT_CODES)]
    Validate {
        /// The package whose model (profile, seed) the checkpoint must fit.
        #[arg(long, value_name = "DIR")]
        package: PathBuf,
        file: PathBuf,
    },
    /// Show what a checkpoint (or world) document holds.
    #[command(after_help = EXIT_CODES)]
    Inspect {
        /// Also show the state segments, derived from this package's model.
        #[arg(long, value_name = "DIR")]
        package: Option<PathBuf>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        file: PathBuf,
    },
}

/// Why a command did not succeed, and so its exit code.
#[derive(Debug)]
pub enum Problem {
    /// A gate or a validation ran and failed (exit 1).
    Failed(String),
    /// A validation failed and its result, the refusal, is printed already (exit 1).
    Reported,
    /// The package, or a file it names, could not be read or loaded (exit 3).
    Unreadable(String),
}

impl Problem {
    fn code(&self) -> u8 {
        match self {
            Problem::Failed(_) | Problem::Reported => 1,
            Problem::Unreadable(_) => 3,
        }
    }

    fn message(&self) -> &str {
        match self {
            Problem::Failed(m) | Problem::Unreadable(m) => m,
            Problem::Reported => "",
        }
    }

    /// Say what went wrong on stderr, unless the result said it already.
    fn tell(&self, prefix: &str) {
        if !matches!(self, Problem::Reported) {
            tell(format_args!("error: {prefix}{}", self.message()));
        }
    }
}

pub type Result<T> = std::result::Result<T, Problem>;

/// Print a warning on stderr (always, terminal or not).
pub fn warn(msg: &str) {
    progress::clear_line();
    match progress::item() {
        item if item.is_empty() => tell(format_args!("warning: {msg}")),
        item => tell(format_args!("warning: {item}: {msg}")),
    }
}

/// Run `f` for each directory; the exit code is the worst outcome.
fn each_dir(dirs: &[PathBuf], mut f: impl FnMut(&std::path::Path, usize) -> Result<()>) -> u8 {
    let mut worst = 0u8;
    for (i, dir) in dirs.iter().enumerate() {
        progress::set_item(i + 1, dirs.len(), &dir.display().to_string());
        if let Err(p) = f(dir, i) {
            progress::clear_line();
            p.tell(&format!("{}: ", dir.display()));
            worst = worst.max(p.code());
        }
    }
    progress::clear_line();
    worst
}

/// Load engine plugins before any model: the folders asked for (a failure is exit 3), else
/// the install's or the build's plugin folder when there is one (a failure is a warning: a
/// package without plugins must not fail for it).
fn load_plugins(asked: &[PathBuf]) -> Result<()> {
    for dir in asked {
        mjbridge::load_plugin_dir(dir.as_os_str().as_encoded_bytes()).map_err(|r| {
            Problem::Unreadable(format!(
                "the plugin folder {} could not be loaded: {}",
                dir.display(),
                r.message
            ))
        })?;
    }
    if asked.is_empty() {
        if let Some(dir) = default_plugin_dir() {
            match mjbridge::load_plugin_dir(dir.as_os_str().as_encoded_bytes()) {
                // An engine without a plugin API cannot use a folder nobody asked for.
                Ok(_)
                | Err(mjbridge::outcome::Refusal {
                    reason: mjbridge::outcome::Reason::Unsupported,
                    ..
                }) => {}
                Err(r) => warn(&format!(
                    "the plugin folder {} could not be loaded: {}",
                    dir.display(),
                    r.message
                )),
            }
        }
    }
    Ok(())
}

/// The engine plugin folder that goes with this command: its install's (`PREFIX/bin/mjbridge`
/// beside `PREFIX/lib/mujoco_plugin`, or `bin/mujoco_plugin` on Windows), else, in the build
/// tree only, the folder the build took the engine from (an install build carries no folder
/// of the build machine). Only a folder with something in it: a system library folder
/// (Debian's `/usr/lib/<triple>`) may have an empty or unrelated `plugin` folder beside it.
fn default_plugin_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let bin = exe.parent()?;
    let installed = [
        bin.join("mujoco_plugin"),
        bin.parent()?.join("lib").join("mujoco_plugin"),
    ];
    #[cfg(not(mjb_install_build))]
    let built = std::path::Path::new(env!("MJB_ENGINE_LIBRARY"))
        .parent()
        .map(|d| d.join("plugin"));
    #[cfg(mjb_install_build)]
    let built: Option<PathBuf> = None;
    installed.into_iter().chain(built).find(|d| {
        d.read_dir()
            .is_ok_and(|mut entries| entries.next().is_some())
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(p) = load_plugins(&cli.plugin_dir) {
        p.tell("");
        return ExitCode::from(p.code());
    }
    let code = match cli.command {
        Command::Package(PackageCommand::Regenerate { dirs }) => {
            each_dir(&dirs, |dir, _| reference::regenerate(dir))
        }
        Command::Package(PackageCommand::Gate { check, steps, dirs }) => {
            let opts = gate::Options { check, steps };
            each_dir(&dirs, |dir, _| gate::gate(dir, &opts))
        }
        Command::Checkpoint(CheckpointCommand::Validate { package, file }) => {
            match inspect::validate(&package, &file) {
                Ok(()) => 0,
                Err(p) => {
                    p.tell("");
                    p.code()
                }
            }
        }
        Command::Checkpoint(CheckpointCommand::Inspect {
            package,
            json,
            file,
        }) => match inspect::inspect(&file, package.as_deref(), json) {
            Ok(()) => 0,
            Err(p) => {
                p.tell("");
                p.code()
            }
        },
        Command::Replay {
            model,
            timeout,
            recording,
        } => replay::run(&recording, &model, std::time::Duration::from_secs(timeout)),
    };
    ExitCode::from(code)
}
