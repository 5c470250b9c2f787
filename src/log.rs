//! Where the bridge's own notable events go. Until a host installs a log callback, nothing is
//! printed: a library must not write to its host's stderr or working directory.

/// A panic was caught inside a bridge call (the endpoint it hit is fenced).
pub fn panic_caught(_text: &str) {}
