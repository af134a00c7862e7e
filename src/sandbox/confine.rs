//! Kernel confinement for sandboxed commands, prepared in the parent and applied in the
//! child between fork and exec with raw system calls only:
//!
//! * a **pids cgroup** (cgroups v1 or v2, when writable: root) caps the number of
//!   processes — RLIMIT_NPROC is not enforced for root — and lets the parent kill every
//!   process the command left behind, even ones that left its process group;
//! * a **Landlock** ruleset lets the command read and execute anywhere but write only
//!   inside its sandbox directory (and `/dev`, for `/dev/null`).
//!
//! Both degrade with one warning on stderr where the kernel or the user cannot have them.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use landlock::{
    Access, AccessFs, CompatLevel, Compatible, PathBeneath, PathFd, RestrictionStatus, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, RulesetStatus, ABI,
};

/// A pids cgroup holding one sandboxed command and everything it starts.
pub struct PidsCgroup {
    dir: PathBuf,
    /// `<dir>/cgroup.procs` as a C string, written by the child before exec.
    procs: CString,
}

/// Where mergeforge's pids cgroups live, if this process may create them.
fn cgroup_root() -> Option<&'static Path> {
    static ROOT: OnceLock<Option<PathBuf>> = OnceLock::new();
    ROOT.get_or_init(|| {
        let candidates = [
            PathBuf::from("/sys/fs/cgroup/pids"),
            PathBuf::from("/sys/fs/cgroup"), // cgroups v2: pids.max lives in every child
        ];
        for base in candidates {
            let root = base.join("mergeforge");
            if std::fs::create_dir_all(&root).is_ok() && probe(&root) {
                return Some(root);
            }
        }
        eprintln!("warning: no writable pids cgroup (needs root): sandboxed commands are not limited in process count");
        None
    })
    .as_deref()
}

fn probe(root: &Path) -> bool {
    let dir = root.join(format!("probe-{}", std::process::id()));
    let ok = std::fs::create_dir(&dir).is_ok() && dir.join("pids.max").exists();
    let _ = std::fs::remove_dir(&dir);
    ok
}

impl PidsCgroup {
    /// A fresh cgroup allowing at most `max` processes, or `None` where unavailable.
    pub fn create(max: u64) -> Option<PidsCgroup> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let root = cgroup_root()?;
        let name = format!("run-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let dir = root.join(name);
        std::fs::create_dir(&dir).ok()?;
        if std::fs::write(dir.join("pids.max"), max.to_string()).is_err() {
            let _ = std::fs::remove_dir(&dir);
            return None;
        }
        let procs = CString::new(dir.join("cgroup.procs").as_os_str().as_bytes()).ok()?;
        Some(PidsCgroup { dir, procs })
    }

    /// The procs file the child writes its pid into.
    pub fn procs_path(&self) -> &CString {
        &self.procs
    }

    /// Kills every process still in the cgroup (repeatedly, until it is empty).
    pub fn kill_all(&self) {
        self.kill_all_except(None);
    }

    /// Kills every process in the cgroup but `keep` (repeatedly, until none is left):
    /// what a fork server's child left behind, the server itself spared.
    pub fn kill_all_except(&self, keep: Option<i32>) {
        for _ in 0..50 {
            let Ok(text) = std::fs::read_to_string(self.dir.join("cgroup.procs")) else { return };
            let pids: Vec<i32> =
                text.lines().filter_map(|l| l.trim().parse().ok()).filter(|pid| Some(*pid) != keep).collect();
            if pids.is_empty() {
                return;
            }
            for pid in pids {
                // SAFETY: signalling a pid that belongs to this sandbox's cgroup.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

impl Drop for PidsCgroup {
    fn drop(&mut self) {
        self.kill_all();
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// Removes the pids cgroups of runs whose mergeforge process is gone (a killed run),
/// after killing whatever is still in them (a fork server, a test it started); returns
/// how many were removed. Cgroups are named `run-<pid>-<n>` and live on this host only.
pub fn sweep_dead_cgroups() -> usize {
    let Some(root) = cgroup_root() else { return 0 };
    let Ok(entries) = std::fs::read_dir(root) else { return 0 };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) =
            name.strip_prefix("run-").and_then(|rest| rest.split('-').next()).and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == std::process::id() || crate::leftovers::alive(pid) {
            continue;
        }
        // Dropping it kills what is left in it and removes it.
        drop(PidsCgroup { dir: entry.path(), procs: CString::default() });
        removed += usize::from(!entry.path().exists());
    }
    removed
}

/// Joins the cgroup whose procs file is `procs`: called in the child after fork, so it
/// only uses async-signal-safe calls and a stack buffer.
///
/// # Safety
/// Must only be called in a freshly forked child before exec.
pub unsafe fn join_cgroup(procs: &CString) -> std::io::Result<()> {
    let mut buffer = [0u8; 24];
    let mut pid = libc::getpid() as u64;
    let mut at = buffer.len();
    loop {
        at -= 1;
        buffer[at] = b'0' + (pid % 10) as u8;
        pid /= 10;
        if pid == 0 {
            break;
        }
    }
    let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let written = libc::write(fd, buffer[at..].as_ptr().cast(), buffer.len() - at);
    libc::close(fd);
    if written < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// What a confined command may do beneath a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
enum Grant {
    /// Read files and list and execute.
    Read,
    /// Read, and write files that exist (`/dev/null`); create nothing.
    ReadAndWriteFiles,
    /// Everything.
    All,
}

impl Grant {
    fn access(self, abi: ABI) -> landlock::BitFlags<AccessFs> {
        match self {
            Grant::Read => AccessFs::from_read(abi),
            Grant::ReadAndWriteFiles => AccessFs::from_read(abi) | AccessFs::WriteFile,
            Grant::All => AccessFs::from_all(abi),
        }
    }
}

/// Where a rule applies: a fixed path, or the run's own sandbox folder.
#[derive(Debug, Clone, Copy)]
enum Beneath {
    Path(&'static str),
    Sandbox,
}

/// The Landlock ABI the ruleset is written for (best effort on older kernels).
const LANDLOCK_ABI: ABI = ABI::V3;

/// The Landlock rules, in the order they are added: read anywhere, write existing files
/// under `/dev`, do anything inside the sandbox. [`write_confinement`] builds the ruleset
/// from this table and [`confinement_profile`] describes it, so the outcome cache's key
/// follows any change to it.
const RULES: [(Beneath, Grant); 3] = [
    (Beneath::Path("/"), Grant::Read),
    (Beneath::Path("/dev"), Grant::ReadAndWriteFiles),
    (Beneath::Sandbox, Grant::All),
];

/// A Landlock ruleset of [`RULES`] with `writable` as the sandbox folder, or `None`
/// where the kernel has no Landlock (a warning says so once).
pub fn write_confinement(writable: &Path) -> Option<RulesetCreated> {
    let abi = LANDLOCK_ABI;
    let build = || -> Result<RulesetCreated, Box<dyn std::error::Error>> {
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(AccessFs::from_all(abi))?
            .create()?;
        for (beneath, grant) in RULES {
            let path = match beneath {
                Beneath::Path(path) => Path::new(path),
                Beneath::Sandbox => writable,
            };
            ruleset = ruleset.add_rule(PathBeneath::new(PathFd::new(path)?, grant.access(abi)))?;
        }
        Ok(ruleset)
    };
    if !landlock_available() {
        return None;
    }
    build().ok()
}

/// The confinement this host applies, one line per rule (`/dev: read-and-write-files`),
/// or `None` where Landlock is not enforced: part of the sandbox's
/// [`super::Profile`].
pub fn confinement_profile() -> Option<Vec<String>> {
    landlock_available().then(|| {
        RULES
            .iter()
            .map(|(beneath, grant)| {
                let path = match beneath {
                    Beneath::Path(path) => path,
                    Beneath::Sandbox => "<sandbox>",
                };
                format!("{path}: {}", <&str>::from(*grant))
            })
            .chain(std::iter::once(format!("abi: {LANDLOCK_ABI:?}")))
            .collect()
    })
}

/// Whether this host gives sandboxed commands a pids cgroup (see [`PidsCgroup`]).
pub fn pids_cgroup_available() -> bool {
    cgroup_root().is_some()
}

/// Whether this kernel enforces Landlock; probed once by confining a throwaway thread.
pub fn landlock_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        let probe = std::thread::spawn(|| -> Option<RestrictionStatus> {
            Ruleset::default().handle_access(AccessFs::from_all(ABI::V1)).ok()?.create().ok()?.restrict_self().ok()
        });
        let enforced = matches!(probe.join(), Ok(Some(status)) if status.ruleset != RulesetStatus::NotEnforced);
        if !enforced {
            eprintln!("warning: Landlock is not available: sandboxed commands can write outside their sandbox");
        }
        enforced
    })
}
