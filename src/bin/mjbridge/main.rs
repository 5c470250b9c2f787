//! `mjbridge`: the command-line tool for MuJoCo packages and checkpoint files, built on the
//! library's Rust API (an [`Endpoint`](mjbridge::endpoint::Endpoint) per package, exactly as a
//! host would open one).
//!
//! - `package regenerate DIR...`: write `reference.json` and `REFERENCE.md` from the live
//!   endpoint, carrying `attribution` and `review` over byte for byte ([`reference`]).
//! - `package gate [--check] DIR...`: compare the reference with the live endpoint, run the
//!   checkpoint conformance checks, write a fresh `gate.json` with a digest ([`gate`]).
//! - `checkpoint validate --package DIR FILE`, `checkpoint inspect FILE` ([`inspect`]).
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

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

const EXIT_CODES: &str = "\
Exit codes:
  0  ok
  1  a gate or a validation failed (the reason is printed)
  2  usage error
  3  a package, or a file it names, could not be read or loaded
     (package.json, reference.json, a model file, a checkpoint file; or MuJoCo refused to
     compile the model)";

#[derive(Parser)]
#[command(
    name = "mjbridge",
    version,
    about = "MuJoCo packages (reference, gate) and checkpoint files, through the mjbridge library",
    after_help = EXIT_CODES
)]
struct Cli {
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
    /// The package, or a file it names, could not be read or loaded (exit 3).
    Unreadable(String),
}

impl Problem {
    fn code(&self) -> u8 {
        match self {
            Problem::Failed(_) => 1,
            Problem::Unreadable(_) => 3,
        }
    }

    fn message(&self) -> &str {
        match self {
            Problem::Failed(m) | Problem::Unreadable(m) => m,
        }
    }
}

pub type Result<T> = std::result::Result<T, Problem>;

/// Print a warning on stderr (always, terminal or not).
pub fn warn(msg: &str) {
    progress::clear_line();
    match progress::item() {
        item if item.is_empty() => eprintln!("warning: {msg}"),
        item => eprintln!("warning: {item}: {msg}"),
    }
}

/// Run `f` for each directory; the exit code is the worst outcome.
fn each_dir(dirs: &[PathBuf], mut f: impl FnMut(&std::path::Path, usize) -> Result<()>) -> u8 {
    let mut worst = 0u8;
    for (i, dir) in dirs.iter().enumerate() {
        progress::set_item(i + 1, dirs.len(), &dir.display().to_string());
        if let Err(p) = f(dir, i) {
            progress::clear_line();
            eprintln!("error: {}: {}", dir.display(), p.message());
            worst = worst.max(p.code());
        }
    }
    progress::clear_line();
    worst
}

fn main() -> ExitCode {
    let cli = Cli::parse();
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
                    eprintln!("error: {}", p.message());
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
                eprintln!("error: {}", p.message());
                p.code()
            }
        },
    };
    ExitCode::from(code)
}
