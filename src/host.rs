//! Process-wide plumbing for hosts that never link MuJoCo themselves: plugin libraries and the
//! log callback.
//!
//! Logging: MuJoCo's warnings raised inside the bridge's guarded calls (the shim hands them to
//! the C boundary's sink, installed with the callback, which queues them with
//! [`engine_message`]) and the bridge's own notable events ([`event`]: fence, rollback, engine
//! reset, refused documents) are queued on the thread that made the call and delivered to the
//! host's callback when that call returns ([`flush`]), outside every lock. So the callback
//! runs on the calling thread, never inside MuJoCo, never under the native lock; it may call
//! the bridge. Without a callback nothing is kept, printed or written (MuJoCo's default handler,
//! which writes `MUJOCO_LOG.TXT` in the working directory, never sees these warnings).

use crate::outcome::{Outcome, Reason, Refusal};
use parking_lot::RwLock;
use std::cell::{Cell, RefCell};
use std::ffi::{c_void, CStr, CString};
use std::os::raw::{c_char, c_int};
use std::sync::atomic::{AtomicI32, Ordering::Relaxed};

abi_enum! {
    /// Severity of a log message, the same values as MuJoCo's `mjtLogLevel` (`mjb_log_level`
    /// in C, where each level's use is documented).
    pub enum Level {
        Debug = "MJB_LOG_DEBUG",
        Info = "MJB_LOG_INFO",
        Warning = "MJB_LOG_WARNING",
        Error = "MJB_LOG_ERROR",
    }
}

impl Level {
    fn from_c(v: c_int) -> Level {
        match v {
            i32::MIN..=0 => Level::Debug,
            1 => Level::Info,
            2 => Level::Warning,
            _ => Level::Error,
        }
    }
}

/// The host's log callback (`mjb_log_fn` in C, the same type): `user_data`, the level and the
/// message.
pub type LogCallback =
    Option<unsafe extern "C" fn(user_data: *mut c_void, level: i32, message: *const c_char)>;

struct Sink {
    f: unsafe extern "C" fn(*mut c_void, i32, *const c_char),
    user: usize,
}

static SINK: RwLock<Option<Sink>> = RwLock::new(None);
/// Lowest level the callback wants; above every level when there is no callback, so queuing
/// costs one relaxed load when nobody listens.
static MIN_LEVEL: AtomicI32 = AtomicI32::new(i32::MAX);

thread_local! {
    static PENDING: RefCell<Vec<(Level, String)>> = const { RefCell::new(Vec::new()) };
    /// Whether `PENDING` may hold messages: a plain flag (no destructor, so no state to
    /// check), which is all that every export's return reads.
    static QUEUED: Cell<bool> = const { Cell::new(false) };
    static DELIVERING: Cell<bool> = const { Cell::new(false) };
}

/// Queue a message for this thread's callback delivery.
pub fn event(level: Level, message: impl Into<String>) {
    if (level as i32) < MIN_LEVEL.load(Relaxed) {
        return;
    }
    let message = message.into();
    // try_borrow: this may run inside a panic hook; never panic again.
    PENDING.with(|p| {
        if let Ok(mut p) = p.try_borrow_mut() {
            p.push((level, message));
            QUEUED.set(true);
        }
    });
}

/// A MuJoCo warning raised inside a guarded call, as the shim hands it over (on the raising
/// thread, inside MuJoCo; the C boundary's sink, `ffi::host::engine_sink`, calls this and
/// catches any panic): queued like [`event`], never unwinds.
///
/// # Safety
/// `text` is NULL or a NUL-terminated message valid for this call.
pub unsafe fn engine_message(level: c_int, text: *const c_char) {
    let level = Level::from_c(level);
    if (level as i32) < MIN_LEVEL.load(Relaxed) || text.is_null() {
        return;
    }
    // SAFETY: the caller's contract.
    let text = unsafe { CStr::from_ptr(text) }.to_string_lossy();
    event(level, format!("MuJoCo: {}", text.trim_end()));
}

/// Whether this thread has messages waiting.
pub fn pending() -> bool {
    QUEUED.get()
}

/// Deliver this thread's queued messages to the callback (called when an export returns).
pub fn flush() {
    QUEUED.set(false);
    let items = PENDING.with(|p| std::mem::take(&mut *p.borrow_mut()));
    if items.is_empty() {
        return;
    }
    // Recursive read: a callback may call the bridge, whose own flush reads again.
    let sink = SINK.read_recursive();
    let Some(s) = sink.as_ref() else { return };
    let min = MIN_LEVEL.load(Relaxed);
    let was = DELIVERING.with(|d| d.replace(true));
    for (level, text) in items {
        if (level as i32) < min {
            continue;
        }
        let c = CString::new(text.replace('\0', "\u{FFFD}")).expect("no NUL left");
        // SAFETY: the host's callback with its own user_data and a string valid for the call.
        unsafe { (s.f)(s.user as *mut c_void, level as i32, c.as_ptr()) };
    }
    DELIVERING.with(|d| d.set(was));
}

/// Set (or with `None`, clear) the process's log callback. When this returns, the previous
/// callback is not running on any thread and will not be called again.
pub fn set_callback(f: LogCallback, user: *mut c_void, min_level: i32) -> Result<(), Refusal> {
    if DELIVERING.with(Cell::get) {
        return Err(Refusal::new(
            Outcome::Rejected,
            Reason::UnresolvedNativeWork,
            "mjb_set_log_callback cannot be called from inside the log callback",
        ));
    }
    if Level::from_i32(min_level).is_none() {
        return Err(Refusal::new(
            Outcome::InvalidArgument,
            Reason::OutOfRange,
            format!("min_level {min_level} is not an mjb_log_level (0..=3)"),
        ));
    }
    let mut sink = SINK.write();
    match f {
        Some(f) => {
            *sink = Some(Sink {
                f,
                user: user as usize,
            });
            MIN_LEVEL.store(min_level, Relaxed);
        }
        None => {
            *sink = None;
            MIN_LEVEL.store(i32::MAX, Relaxed);
        }
    }
    Ok(())
}

/// The event a call's refusal (or notable success) is worth, if any.
pub fn event_for(r: &Refusal) {
    let at = r
        .pointer
        .as_deref()
        .map(|p| format!(" at {p:?}"))
        .unwrap_or_default();
    let (level, what) = match r.outcome {
        // Panics are logged where they are caught, with their location (crate::log).
        Outcome::Unknown => (Level::Error, "endpoint fenced"),
        Outcome::RolledBack => (Level::Warning, "rolled back"),
        Outcome::Ok if r.reason == Reason::EngineReset => (Level::Warning, "engine reset"),
        Outcome::Rejected if !matches!(r.reason, Reason::Busy | Reason::StopLatched) => {
            (Level::Info, "refused")
        }
        _ => return,
    };
    event(
        level,
        format!(
            "{what}: {} ({}){at}: {}",
            r.outcome.name(),
            r.reason.name(),
            r.message
        ),
    );
}

// ---- plugins ----------------------------------------------------------------------------------

fn c_path(path: &[u8], what: &str) -> Result<CString, Refusal> {
    CString::new(path).map_err(|_| {
        Refusal::new(
            Outcome::InvalidArgument,
            Reason::OutOfRange,
            format!("{what} contains a NUL byte"),
        )
    })
}

fn plugin_refusal(e: crate::native::NativeError) -> Refusal {
    match e {
        crate::native::NativeError::Unsupported(m) => Refusal::rejected(
            Reason::Unsupported,
            format!(
                "{m}; this engine is {}",
                crate::native::engine().version_string
            ),
        ),
        e => Refusal::rejected(
            Reason::PluginLoad,
            format!("MuJoCo could not load the plugin library: {}", e.message()),
        ),
    }
}

/// The path a host passed, for the file checks before MuJoCo sees it (which gets the bytes
/// unchanged). Windows paths of this ABI are UTF-8 (MuJoCo's own `char*` paths).
fn os_path(bytes: &[u8]) -> std::path::PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::ffi::OsStr::from_bytes(bytes).into()
    }
    #[cfg(not(unix))]
    {
        String::from_utf8_lossy(bytes).into_owned().into()
    }
}

/// Guarded `mj_loadPluginLibrary`: how many plugins it registered (0 when the library was
/// loaded before). A path that is not a file is refused before MuJoCo sees it.
pub fn load_plugin(path: &[u8]) -> Result<usize, Refusal> {
    let c = c_path(path, "path")?;
    let p = os_path(path);
    if !p.is_file() {
        return Err(Refusal::rejected(
            Reason::PluginLoad,
            format!("{} is not a file", p.display()),
        ));
    }
    crate::native::load_plugin_library(&c).map_err(plugin_refusal)
}

/// Guarded `mj_loadAllPluginLibraries`: (libraries that registered plugins, plugins). Plugin
/// registration is process-wide and permanent: when one library fails, what the others
/// registered stays registered.
pub fn load_plugin_dir(dir: &[u8]) -> Result<(usize, usize), Refusal> {
    let c = c_path(dir, "dir")?;
    let p = os_path(dir);
    if !p.is_dir() {
        return Err(Refusal::rejected(
            Reason::PluginLoad,
            format!("{} is not a directory", p.display()),
        ));
    }
    crate::native::load_plugin_dir(&c).map_err(plugin_refusal)
}
