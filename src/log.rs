//! Where the bridge's own notable events go: the host's log callback ([`crate::host`]), on
//! the thread whose call produced them, when that call returns. Until a host installs a
//! callback, nothing is printed: a library must not write to its host's stderr or working
//! directory.

/// A panic was caught inside a bridge call (the endpoint it hit is fenced).
pub fn panic_caught(text: &str) {
    crate::host::event(
        crate::host::Level::Error,
        format!("a panic was caught inside the bridge (the endpoint is fenced): {text}"),
    );
}
