//! A mount namespace of its own for a sandboxed command, with a private, size-limited
//! `/dev/shm`: entered in the child between fork and exec, with system calls only.
//!
//! POSIX semaphores and shared memory (`sem_open`, `shm_open`: Python's
//! `multiprocessing` locks, queues and pools) create files in `/dev/shm`. The host's
//! is shared by every process and Landlock lets a command write only existing files
//! beneath `/dev`, so the child unshares the mount namespace, makes every mount private
//! (nothing mounted below reaches the host) and mounts a fresh tmpfs of [`SHM_SIZE`] on
//! `/dev/shm` (`nosuid,nodev,noexec`, as container runtimes do). It is gone when the
//! last process of the command ends. [`super::confine`] lets the command write in it (a
//! rule the child adds once the tmpfs is mounted), and [`super::pidns`] mounts its
//! `/proc` in the same namespace.

use std::sync::OnceLock;

/// The size of a command's `/dev/shm` (the tmpfs `size=` option).
pub(crate) const SHM_SIZE: &str = "64m";

/// The tmpfs options: [`SHM_SIZE`] and the mode of a shared temporary folder.
const SHM_OPTIONS: &std::ffi::CStr = c"size=64m,mode=1777";

/// Whether sandboxed commands can get a mount namespace and a `/dev/shm` of their own
/// (needs root: CAP_SYS_ADMIN). Probed once by running `true` in one; where refused a
/// warning says so once on stderr.
pub(crate) fn available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    // SAFETY: `enter` only makes async-signal-safe system calls.
    *AVAILABLE.get_or_init(|| unsafe {
        super::probe::enters(enter, "warning: cannot create a mount namespace (needs root): sandboxed commands get no /dev/shm of their own (multiprocessing locks fail)")
    })
}

/// Moves this process into a new mount namespace, every mount private, with a fresh
/// tmpfs on `/dev/shm`.
///
/// # Safety
/// Must only be called in a freshly forked child before exec.
pub(crate) unsafe fn enter() -> std::io::Result<()> {
    let failed = || Err(std::io::Error::last_os_error());
    if libc::unshare(libc::CLONE_NEWNS) != 0 {
        return failed();
    }
    let no = std::ptr::null::<libc::c_char>();
    if libc::mount(no, c"/".as_ptr(), no, libc::MS_REC | libc::MS_PRIVATE, std::ptr::null()) != 0 {
        return failed();
    }
    let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    let options = SHM_OPTIONS.as_ptr().cast();
    if libc::mount(c"tmpfs".as_ptr(), c"/dev/shm".as_ptr(), c"tmpfs".as_ptr(), flags, options) != 0 {
        return failed();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_size_in_the_options_is_the_documented_one() {
        let options = super::SHM_OPTIONS.to_str().unwrap();
        assert!(options.split(',').any(|o| o == format!("size={}", super::SHM_SIZE)), "{options}");
    }
}
