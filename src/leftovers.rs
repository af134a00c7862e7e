//! What a killed run leaves behind, and clearing it on the next run.
//!
//! Temporary files and directories that stand in for a final one (a staging version
//! folder, an outcome-cache entry being written) are named `<prefix><owner>-XXXX`,
//! where the owner tag `<host>-<pid>` says which process made them. A later run sweeps
//! the ones whose process is gone — on this host only, so runs on other machines that
//! share the folder (cluster shards on a shared volume) are never disturbed, and a live
//! run's temporaries are never touched. Nothing reads these names as results: a killed
//! run's leftovers are clutter, never input.

use std::path::Path;

/// `<host>-<pid>`: the owner part of this process's temporary names.
pub fn owner_tag() -> String {
    format!("{}-{}", host(), std::process::id())
}

/// This machine's host name, made safe for file names.
#[allow(unsafe_code)] // gethostname(2): no std API names the host
fn host() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for `len` bytes; gethostname writes at most that.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    let len = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    let name = if rc == 0 { String::from_utf8_lossy(&buf[..len]).into_owned() } else { String::new() };
    let clean: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    if clean.is_empty() {
        "host".to_string()
    } else {
        clean
    }
}

/// Whether process `pid` is alive on this host.
#[allow(unsafe_code)] // kill(2) with signal 0: whether a pid lives
pub(crate) fn alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Removes the entries of `dir` named `<prefix><this host>-<pid>-...` whose process is
/// gone (files and directories alike); returns how many were removed. Unreadable
/// folders and entries that vanish meanwhile are skipped: sweeping is best effort.
pub(crate) fn sweep(dir: &Path, prefix: &str) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    let ours = format!("{prefix}{}-", host());
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(&ours) else { continue };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else { continue };
        if pid == std::process::id() || alive(pid) {
            continue;
        }
        let path = entry.path();
        let gone = match entry.file_type() {
            Ok(t) if t.is_dir() => std::fs::remove_dir_all(&path).is_ok(),
            Ok(_) => std::fs::remove_file(&path).is_ok(),
            Err(_) => false,
        };
        removed += usize::from(gone);
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweeps_only_dead_owners_on_this_host() {
        let dir = tempfile::tempdir().unwrap();
        let dead = format!(".tmp-{}-{}-abc", host(), u32::MAX - 7);
        let live = format!(".tmp-{}-abc", owner_tag());
        let other_host = format!(".tmp-otherhost-{}-abc", u32::MAX - 7);
        for name in [&dead, &live, &other_host] {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        std::fs::create_dir(dir.path().join(format!("{dead}-dir"))).unwrap();
        assert_eq!(sweep(dir.path(), ".tmp-"), 2);
        assert!(dir.path().join(&live).exists());
        assert!(dir.path().join(&other_host).exists());
        assert!(!dir.path().join(&dead).exists());
    }
}
