//! Whether the kernel lets a child enter a namespace set-up ([`super::mounts`],
//! [`super::netns`], [`super::pidns`]): each asks once by running `true` with its
//! `enter` between fork and exec, and warns once on stderr where that is refused.

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

/// Runs `true` with `enter` called in the child before exec; true when it ran and
/// succeeded. Prints `warning` on stderr when not.
///
/// # Safety
/// `enter` must only make async-signal-safe system calls (it runs between fork and exec).
pub(crate) unsafe fn enters(enter: unsafe fn() -> std::io::Result<()>, warning: &str) -> bool {
    let mut probe = Command::new("true");
    probe.stdout(Stdio::null()).stderr(Stdio::null());
    // SAFETY: the caller promises `enter` is async-signal-safe.
    unsafe {
        probe.pre_exec(move || enter());
    }
    let available = probe.status().map(|s| s.success()).unwrap_or(false);
    if !available {
        log::warn!("{}", warning.trim_start_matches("warning: "));
    }
    available
}
