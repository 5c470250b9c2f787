//! Progress of long operations (several packages, long continuation checks) on one status
//! line of stderr, only when stderr is a terminal: piped or redirected, the tool prints its
//! results and warnings and nothing else.

use std::io::{IsTerminal, Write};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

fn on() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::io::stderr().is_terminal())
}

/// `[i/n] DIR: ` while a command walks several packages, `DIR: ` for one.
static PREFIX: Mutex<String> = Mutex::new(String::new());
/// The package being worked on, for warnings.
static ITEM: Mutex<String> = Mutex::new(String::new());

pub fn set_item(i: usize, n: usize, name: &str) {
    let mut p = PREFIX.lock().unwrap_or_else(|e| e.into_inner());
    *p = if n > 1 {
        format!("[{i}/{n}] {name}: ")
    } else {
        format!("{name}: ")
    };
    *ITEM.lock().unwrap_or_else(|e| e.into_inner()) = name.to_owned();
}

/// The package being worked on (empty outside a package command).
pub fn item() -> String {
    ITEM.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Replace the status line with `msg`.
pub fn show(msg: &str) {
    if !on() {
        return;
    }
    let p = PREFIX.lock().unwrap_or_else(|e| e.into_inner());
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "\r\x1b[2K{p}{msg}");
    let _ = err.flush();
}

/// Like [`show`] for per-step updates of a phase named `phase`: the first update of a phase
/// is always shown, later ones at most about ten times a second.
pub fn tick(phase: &str, msg: impl FnOnce() -> String) {
    static LAST: Mutex<Option<(String, Instant)>> = Mutex::new(None);
    if !on() {
        return;
    }
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((p, t)) = &*last {
        if p == phase && t.elapsed() < Duration::from_millis(100) {
            return;
        }
    }
    *last = Some((phase.to_owned(), Instant::now()));
    drop(last);
    show(&msg());
}

/// Erase the status line (before printing anything else).
pub fn clear_line() {
    if !on() {
        return;
    }
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "\r\x1b[2K");
    let _ = err.flush();
}
