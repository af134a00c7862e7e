//! A network namespace of its own for a sandboxed command: entered in the child between
//! fork and exec, with system calls only. The namespace has one interface, the loopback
//! `lo`, which is brought up (an `SIOCSIFFLAGS` ioctl setting `IFF_UP`), so a suite's
//! servers and clients on 127.0.0.1 reach each other; there is no other interface and
//! no route, so nothing reaches the host's listeners or the outside.

use std::sync::OnceLock;

/// Whether runs get their own network namespace (needs root: CAP_SYS_ADMIN). Probed
/// once by starting `true` in one; where that is refused tests run with the host
/// network and a warning says so once on stderr.
pub(crate) fn available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    // SAFETY: `enter` only makes async-signal-safe system calls.
    *AVAILABLE.get_or_init(|| unsafe {
        super::probe::enters(
            enter,
            "warning: cannot create a network namespace (needs root): sandboxed commands keep network access",
        )
    })
}

/// Moves this process into a new network namespace and brings its loopback up.
///
/// # Safety
/// Must only be called in a freshly forked child before exec.
pub(crate) unsafe fn enter() -> std::io::Result<()> {
    if libc::unshare(libc::CLONE_NEWNET) != 0 {
        return Err(std::io::Error::last_os_error());
    }
    loopback_up()
}

/// Sets `IFF_UP` on `lo` (read its flags, add the bit, write them back).
unsafe fn loopback_up() -> std::io::Result<()> {
    let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let mut request: libc::ifreq = std::mem::zeroed();
    for (slot, byte) in request.ifr_name.iter_mut().zip(b"lo\0") {
        *slot = *byte as libc::c_char;
    }
    let mut result = libc::ioctl(fd, libc::SIOCGIFFLAGS as _, &mut request);
    if result == 0 {
        request.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
        result = libc::ioctl(fd, libc::SIOCSIFFLAGS as _, &request);
    }
    let error = std::io::Error::last_os_error();
    libc::close(fd);
    match result {
        0 => Ok(()),
        _ => Err(error),
    }
}
