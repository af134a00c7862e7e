//! A pid namespace of its own for a sandboxed command, with a `/proc` that shows only
//! its own processes: entered in the child between fork and exec, with system calls only.
//!
//! A process cannot move itself into a new pid namespace: `unshare(CLONE_NEWPID)` puts
//! its *next child* there. So the child that `Command` forked (and waits on), already
//! in a mount namespace of its own ([`super::mounts::enter`]: every mount private, so
//! nothing mounted below reaches the host), unshares the pid namespace and forks a small init, pid 1 of the new namespace, which mounts a
//! fresh `/proc` and forks the command (pid 2) that goes on to exec. Init reaps orphans
//! and exits with the command's status when it ends (the kernel then kills whatever is
//! left in the namespace); the outer child exits with init's status. A command killed
//! by signal N is therefore reported as exit 128 + N, as a shell does. Both waiting
//! processes close every descriptor first, so the spawning parent sees the exec
//! (through its close-on-exec error pipe) and the end of the output as with a plain
//! child; they stay in the command's process group and cgroup, so a timeout kills them
//! with it.

use std::sync::OnceLock;

/// Whether sandboxed commands can get a pid namespace and a `/proc` of their own
/// (needs root: CAP_SYS_ADMIN, and a mount namespace: [`super::mounts::available`]).
/// Probed once by running `true` in one; where refused a warning says so once on stderr.
pub(crate) fn available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        if !super::mounts::available() {
            log::warn!("cannot create a pid namespace (no mount namespace): confined commands see every process and get no /proc");
            return false;
        }
        /// What a confined command's child does: a mount namespace, then this one.
        unsafe fn both() -> std::io::Result<()> {
            super::mounts::enter()?;
            enter()
        }
        // SAFETY: both only make async-signal-safe system calls.
        unsafe {
            super::probe::enters(both, "warning: cannot create a pid namespace (needs root): confined commands see every process and get no /proc")
        }
    })
}

/// Moves what runs next into a new pid namespace with its own `/proc` (see the
/// module's documentation). Returns `Ok` only in the command's process (pid 2 of the
/// namespace); the two processes above it never return.
///
/// # Safety
/// Must only be called in a freshly forked child before exec, after
/// [`super::mounts::enter`].
pub(crate) unsafe fn enter() -> std::io::Result<()> {
    let failed = || Err(std::io::Error::last_os_error());
    if libc::unshare(libc::CLONE_NEWPID) != 0 {
        return failed();
    }
    let init = libc::fork();
    if init < 0 {
        return failed();
    }
    if init > 0 {
        close_every_descriptor();
        libc::_exit(wait_for(init));
    }
    // Init: pid 1 of the new namespace.
    let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    if libc::mount(c"proc".as_ptr(), c"/proc".as_ptr(), c"proc".as_ptr(), flags, std::ptr::null()) != 0 {
        return failed();
    }
    let command = libc::fork();
    if command < 0 {
        return failed();
    }
    if command == 0 {
        return Ok(());
    }
    close_every_descriptor();
    // Reaps every orphan until the command itself ends.
    loop {
        let mut status = 0;
        let pid = libc::waitpid(-1, &mut status, 0);
        if pid == command {
            libc::_exit(exit_code(status));
        }
        if pid < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            libc::_exit(127);
        }
    }
}

/// Waits for `pid` and returns its exit code (128 + N when killed by signal N).
unsafe fn wait_for(pid: libc::pid_t) -> libc::c_int {
    loop {
        let mut status = 0;
        let waited = libc::waitpid(pid, &mut status, 0);
        if waited == pid {
            return exit_code(status);
        }
        if waited < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return 127;
        }
    }
}

fn exit_code(status: libc::c_int) -> libc::c_int {
    if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        127
    }
}

/// Closes every descriptor of this process: the waiting processes must hold neither the
/// output pipes nor the spawning parent's error pipe.
unsafe fn close_every_descriptor() {
    if libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) != 0 {
        for fd in 0..4096 {
            libc::close(fd);
        }
    }
}
