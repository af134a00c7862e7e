//! Kernel confinement for sandboxed commands, prepared in the parent and applied in the
//! child between fork and exec with raw system calls only:
//!
//! * a **pids cgroup** (cgroups v1 or v2, when writable: root) caps the number of
//!   processes — RLIMIT_NPROC is not enforced for root — and lets the parent kill every
//!   process the command left behind, even ones that left its process group; a cgroup
//!   v2 (the same one on a host with v2 only, one in the v2 hierarchy beside a v1 pids
//!   cgroup) counts the CPU time of all its processes, which decides its time-out
//!   ([`super::cputime`]);
//! * a **Landlock** ruleset lets the command write only inside its sandbox directory
//!   (and `/dev`, for `/dev/null`), and read and execute anywhere or, for an
//!   environment episode's commands ([`Reads::Only`]), only in its sandbox, the system's
//!   folders, the interpreter's and a few devices: not the dataset, other episodes or
//!   the user's home. Those also may not signal processes outside the ruleset (scope,
//!   ABI 6), and get their own `/proc` where [`super::pidns`] gives them a pid namespace.
//!   Every command may do anything in its own `/dev/shm`, where [`super::mounts`] gives
//!   it one.
//!
//! Both degrade with one warning on stderr where the kernel or the user cannot have them.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use std::os::fd::{AsRawFd, OwnedFd};

use landlock::{
    Access, AccessFs, CompatLevel, Compatible, PathBeneath, PathFd, RestrictionStatus, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope, ABI,
};

/// The cgroups holding one sandboxed command and everything it starts, one folder per
/// hierarchy: the pids cgroup (cgroups v1 or v2), and where that is a v1 one, a cgroup
/// of the host's v2 hierarchy for the command's CPU time (`cpu.stat`, which every v2
/// cgroup has, and `cpu.pressure`: [`super::cputime`]). On a host with cgroups v2 only,
/// one folder is both.
pub(crate) struct CommandCgroups {
    /// Each folder and its `cgroup.procs` as a C string, written by the child before exec.
    folders: Vec<(PathBuf, CString)>,
    /// The one of them that is a cgroup v2 (with a `cpu.stat`), if any.
    cpu: Option<PathBuf>,
}

/// Where mergeforge's pids cgroups live, if this process may create them.
fn cgroup_root() -> Option<&'static Path> {
    static ROOT: OnceLock<Option<PathBuf>> = OnceLock::new();
    ROOT.get_or_init(|| {
        let candidates = [
            PathBuf::from("/sys/fs/cgroup/pids"),
            PathBuf::from("/sys/fs/cgroup"), // cgroups v2: pids.max lives in every child
        ];
        let root = writable_root(&candidates, |dir| dir.join("pids.max").exists());
        if root.is_none() {
            log::warn!("no writable pids cgroup (needs root): sandboxed commands are not limited in process count");
        }
        root
    })
    .as_deref()
}

/// Where mergeforge's cgroups for CPU time live when the pids cgroups are v1 ones: the
/// v2 hierarchy of a hybrid host (or of a host with v2 only, whose pids cgroups already
/// have a `cpu.stat`), if this process may create cgroups there.
fn cpu_cgroup_root() -> Option<&'static Path> {
    static ROOT: OnceLock<Option<PathBuf>> = OnceLock::new();
    ROOT.get_or_init(|| {
        let candidates = [PathBuf::from("/sys/fs/cgroup/unified"), PathBuf::from("/sys/fs/cgroup")];
        writable_root(&candidates, |dir| super::cputime::cgroup_usage(dir).is_some())
    })
    .as_deref()
}

/// The `mergeforge` folder of the first of `candidates` (cgroup hierarchies that exist)
/// where this process can create a cgroup that `usable` accepts.
fn writable_root(candidates: &[PathBuf], usable: impl Fn(&Path) -> bool) -> Option<PathBuf> {
    let hierarchies = candidates.iter().filter(|base| base.join("cgroup.procs").exists());
    hierarchies.map(|base| base.join("mergeforge")).find(|root| {
        let dir = root.join(format!("probe-{}", std::process::id()));
        let ok = std::fs::create_dir_all(root).is_ok() && std::fs::create_dir(&dir).is_ok() && usable(&dir);
        let _ = std::fs::remove_dir(&dir);
        ok
    })
}

/// A new cgroup named for this process in `root`.
fn new_cgroup(root: &Path) -> Option<(PathBuf, CString)> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = format!("run-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    let dir = root.join(name);
    std::fs::create_dir(&dir).ok()?;
    let procs = CString::new(dir.join("cgroup.procs").as_os_str().as_bytes()).ok()?;
    Some((dir, procs))
}

impl CommandCgroups {
    /// Fresh cgroups allowing at most `max` processes and counting CPU time, as far as
    /// this host gives them; `None` where it gives neither.
    pub(crate) fn create(max: u64) -> Option<CommandCgroups> {
        let mut cgroups = CommandCgroups { folders: Vec::new(), cpu: None };
        if let Some((dir, procs)) = cgroup_root().and_then(new_cgroup) {
            match std::fs::write(dir.join("pids.max"), max.to_string()) {
                Ok(()) => cgroups.folders.push((dir, procs)),
                Err(_) => {
                    let _ = std::fs::remove_dir(&dir);
                }
            }
        }
        let v2 = cgroups.folders.iter().map(|(dir, _)| dir).find(|dir| super::cputime::cgroup_usage(dir).is_some());
        cgroups.cpu = match v2 {
            Some(dir) => Some(dir.clone()),
            None => cpu_cgroup_root().and_then(new_cgroup).map(|(dir, procs)| {
                cgroups.folders.push((dir.clone(), procs));
                dir
            }),
        };
        (!cgroups.folders.is_empty()).then_some(cgroups)
    }

    /// The procs files the child writes its pid into, one per hierarchy.
    pub(crate) fn procs_paths(&self) -> Vec<CString> {
        self.folders.iter().map(|(_, procs)| procs.clone()).collect()
    }

    /// The cgroup v2 counting the command's CPU time, if this host gives one.
    pub(crate) fn cpu_cgroup(&self) -> Option<&Path> {
        self.cpu.as_deref()
    }

    /// Kills every process still in the cgroups (repeatedly, until they are empty).
    pub(crate) fn kill_all(&self) {
        self.kill_all_except(None);
    }

    /// Kills every process in the cgroups but `keep` (repeatedly, until none is left):
    /// what a fork server's child left behind, the server itself spared.
    pub(crate) fn kill_all_except(&self, keep: Option<i32>) {
        for (dir, _) in &self.folders {
            kill_all_in(dir, keep);
        }
    }
}

/// Kills every process in the cgroup `dir` but `keep`, until none is left.
fn kill_all_in(dir: &Path, keep: Option<i32>) {
    for _ in 0..50 {
        let Ok(text) = std::fs::read_to_string(dir.join("cgroup.procs")) else { return };
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

impl Drop for CommandCgroups {
    fn drop(&mut self) {
        self.kill_all();
        for (dir, _) in &self.folders {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Removes the cgroups of runs whose mergeforge process is gone (a killed run), after
/// killing whatever is still in them (a fork server, a test it started); returns how
/// many were removed. Cgroups are named `run-<pid>-<n>` and live on this host only.
pub(crate) fn sweep_dead_cgroups() -> usize {
    let roots = [cgroup_root(), cpu_cgroup_root()];
    let mut roots: Vec<&Path> = roots.into_iter().flatten().collect();
    roots.dedup();
    roots.into_iter().map(sweep_dead_cgroups_in).sum()
}

fn sweep_dead_cgroups_in(root: &Path) -> usize {
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
        drop(CommandCgroups { folders: vec![(entry.path(), CString::default())], cpu: None });
        removed += usize::from(!entry.path().exists());
    }
    removed
}

/// Joins the cgroup whose procs file is `procs`: called in the child after fork, so it
/// only uses async-signal-safe calls and a stack buffer.
///
/// # Safety
/// Must only be called in a freshly forked child before exec.
pub(crate) unsafe fn join_cgroup(procs: &CString) -> std::io::Result<()> {
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

/// What a sandboxed command may read besides its own sandbox folder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Reads {
    /// Anything on the host (the generation pipeline's test runs: a substrate's own tests).
    #[default]
    Anywhere,
    /// Only the system's folders ([`SYSTEM_FOLDERS`]), a few devices ([`DEVICES`]),
    /// these folders (the interpreter's installation and venv) and, in a pid namespace
    /// of its own, its own `/proc`: an environment episode's commands, which must not
    /// read the dataset, other episodes or the user's home.
    Only(Vec<PathBuf>),
}

/// What a confined command may do beneath a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
enum Grant {
    /// Read files and list and execute.
    Read,
    /// Read, and write files that exist (`/dev/null`); create nothing.
    ReadAndWriteFiles,
    /// Read and write one device file.
    Device,
    /// Everything.
    All,
}

impl Grant {
    fn access(self, abi: ABI) -> landlock::BitFlags<AccessFs> {
        match self {
            Grant::Read => AccessFs::from_read(abi),
            Grant::ReadAndWriteFiles => AccessFs::from_read(abi) | AccessFs::WriteFile,
            Grant::Device => AccessFs::ReadFile | AccessFs::WriteFile,
            Grant::All => AccessFs::from_all(abi),
        }
    }
}

/// Where a rule applies: a path, or the run's own sandbox folder.
#[derive(Debug, Clone)]
enum Beneath {
    Path(PathBuf),
    Sandbox,
}

/// The Landlock ABI the ruleset is written for (best effort on older kernels).
const LANDLOCK_ABI: ABI = ABI::V3;

/// The ABI of the scopes a read-confined command gets (best effort): it may not signal
/// nor reach by abstract unix socket any process outside its own ruleset.
const SCOPE_ABI: ABI = ABI::V6;

/// System folders a read-confined command may read (those that exist): programs,
/// shared libraries, and `/etc` (the C library's configuration, locales, certificates).
pub(crate) const SYSTEM_FOLDERS: [&str; 7] = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc"];

/// The device files a read-confined command may read and write.
pub(crate) const DEVICES: [&str; 5] = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"];

/// The Landlock rules, in the order they are added. Reading anywhere: read beneath `/`,
/// write existing files under `/dev`, do anything inside the sandbox. Reading only
/// [`Reads::Only`]: read the [`SYSTEM_FOLDERS`] and the given folders, read and write
/// the [`DEVICES`], do anything inside the sandbox. [`confinement`] builds the ruleset
/// from this list and [`confinement_profile`] describes it, so the outcome cache's key
/// follows any change to it.
fn rules(reads: &Reads) -> Vec<(Beneath, Grant)> {
    match reads {
        Reads::Anywhere => vec![
            (Beneath::Path("/".into()), Grant::Read),
            (Beneath::Path("/dev".into()), Grant::ReadAndWriteFiles),
            (Beneath::Sandbox, Grant::All),
        ],
        Reads::Only(folders) => {
            let system = SYSTEM_FOLDERS.iter().map(PathBuf::from).filter(|p| p.exists());
            let read = system.chain(folders.iter().cloned()).map(|p| (Beneath::Path(p), Grant::Read));
            let devices = DEVICES.iter().map(|d| (Beneath::Path(d.into()), Grant::Device));
            read.chain(devices).chain(std::iter::once((Beneath::Sandbox, Grant::All))).collect()
        }
    }
}

/// The folder of `reads` that `path` lies beneath (both with symlinks resolved), if
/// any: a confined command can read `path` anyway (a dataset installed under `/usr`).
pub(crate) fn readable_beneath(reads: &Reads, path: &Path) -> Option<PathBuf> {
    let Reads::Only(folders) = reads else { return Some(PathBuf::from("/")) };
    let path = std::fs::canonicalize(path).ok()?;
    let system = SYSTEM_FOLDERS.iter().map(PathBuf::from);
    system
        .chain(folders.iter().cloned())
        .find(|folder| std::fs::canonicalize(folder).is_ok_and(|folder| path.starts_with(folder)))
}

/// A ruleset ready for the child to apply, and the rules the child adds to it once it
/// mounted what they name ([`MountedRules`]).
pub(crate) struct Confinement {
    pub(crate) ruleset: RulesetCreated,
    pub(crate) mounted: Option<MountedRules>,
}

/// Rules on folders the child mounts after the fork (new inodes, which no rule made
/// before it can name): its own `/proc` (read) and its own `/dev/shm` (everything),
/// added through a second descriptor of the same ruleset ([`MountedRules::add`]).
pub(crate) struct MountedRules {
    ruleset_fd: OwnedFd,
    proc: bool,
    /// The access bits for `/dev/shm`, when the command has its own.
    shm: Option<u64>,
}

/// A Landlock ruleset of [`rules`] with `writable` as the sandbox folder, or `None`
/// where the kernel has no Landlock (a warning says so once). `own_proc`: the command
/// gets a `/proc` of its own; `own_shm`: a `/dev/shm` of its own; the child adds them
/// with [`MountedRules::add`].
pub(crate) fn confinement(writable: &Path, reads: &Reads, own_proc: bool, own_shm: bool) -> Option<Confinement> {
    let abi = LANDLOCK_ABI;
    let build = || -> Result<Confinement, Box<dyn std::error::Error>> {
        let mut ruleset =
            Ruleset::default().set_compatibility(CompatLevel::BestEffort).handle_access(AccessFs::from_all(abi))?;
        if matches!(reads, Reads::Only(_)) {
            ruleset = ruleset.scope(Scope::from_all(SCOPE_ABI))?;
        }
        let mut ruleset = ruleset.create()?;
        for (beneath, grant) in rules(reads) {
            let path = match &beneath {
                Beneath::Path(path) => path.as_path(),
                Beneath::Sandbox => writable,
            };
            ruleset = ruleset.add_rule(PathBeneath::new(PathFd::new(path)?, grant.access(abi)))?;
        }
        let mounted = match own_proc || own_shm {
            true => Some(MountedRules {
                ruleset_fd: Option::<OwnedFd>::from(ruleset.try_clone()?).ok_or("no ruleset descriptor")?,
                proc: own_proc,
                shm: own_shm.then(|| Grant::All.access(kernel_abi().min_with(abi)).bits()),
            }),
            false => None,
        };
        Ok(Confinement { ruleset, mounted })
    };
    if !landlock_available() {
        return None;
    }
    build().ok()
}

/// The newest Landlock ABI both this kernel and [`LANDLOCK_ABI`] know, for the rules the
/// child adds by raw system call: the ruleset was created best effort, so it handles
/// only what the kernel knows, and a rule granting more is refused.
fn kernel_abi() -> KernelAbi {
    const LANDLOCK_CREATE_RULESET_VERSION: u32 = 1;
    // SAFETY: asks the kernel for its Landlock ABI version; no memory is passed.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    KernelAbi(version)
}

struct KernelAbi(i64);

impl KernelAbi {
    fn min_with(self, abi: ABI) -> ABI {
        match self.0 {
            ..=1 => ABI::V1,
            2 => ABI::V2,
            _ => abi,
        }
    }
}

impl MountedRules {
    /// Adds the rules to the ruleset: called in the child after it mounted its own
    /// `/proc` and `/dev/shm`, so it only makes system calls.
    ///
    /// # Safety
    /// Must only be called in a freshly forked child before exec.
    pub(crate) unsafe fn add(&self) -> std::io::Result<()> {
        if self.proc {
            allow_beneath(&self.ruleset_fd, c"/proc", (AccessFs::ReadFile | AccessFs::ReadDir).bits())?;
        }
        if let Some(access) = self.shm {
            allow_beneath(&self.ruleset_fd, c"/dev/shm", access)?;
        }
        Ok(())
    }
}

/// Adds "`access` beneath `path`" to the ruleset behind `ruleset_fd` with system calls only.
unsafe fn allow_beneath(ruleset_fd: &OwnedFd, path: &std::ffi::CStr, access: u64) -> std::io::Result<()> {
    #[repr(C, packed)]
    struct PathBeneathAttr {
        allowed_access: u64,
        parent_fd: i32,
    }
    const LANDLOCK_RULE_PATH_BENEATH: libc::c_int = 1;
    let fd = libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let attr = PathBeneathAttr { allowed_access: access, parent_fd: fd };
    let added = libc::syscall(
        libc::SYS_landlock_add_rule,
        ruleset_fd.as_raw_fd(),
        LANDLOCK_RULE_PATH_BENEATH,
        &attr as *const PathBeneathAttr,
        0,
    );
    libc::close(fd);
    if added != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The confinement this host applies to a command reading `reads`, one line per rule
/// (`/dev: read-and-write-files`), or `None` where Landlock is not enforced: part of
/// the sandbox's [`super::Profile`].
pub(crate) fn confinement_profile(reads: &Reads) -> Option<Vec<String>> {
    landlock_available().then(|| {
        let mut lines: Vec<String> = rules(reads)
            .iter()
            .map(|(beneath, grant)| {
                let path = match beneath {
                    Beneath::Path(path) => path.display().to_string(),
                    Beneath::Sandbox => "<sandbox>".to_string(),
                };
                format!("{path}: {}", <&str>::from(*grant))
            })
            .collect();
        if super::mounts::available() {
            lines.push(format!(
                "/dev/shm (its own tmpfs, size={}): {}",
                super::mounts::SHM_SIZE,
                <&str>::from(Grant::All)
            ));
        }
        if matches!(reads, Reads::Only(_)) {
            lines.push(format!("scope: {SCOPE_ABI:?}"));
            if super::pidns::available() {
                lines.push("/proc (its own, in a pid namespace): read".to_string());
            }
        }
        lines.push(format!("abi: {LANDLOCK_ABI:?}"));
        lines
    })
}

/// Whether this host gives sandboxed commands a pids cgroup (see [`CommandCgroups`]).
pub(crate) fn pids_cgroup_available() -> bool {
    cgroup_root().is_some()
}

/// Whether this kernel enforces Landlock; probed once by confining a throwaway thread.
/// `MERGEFORGE_LANDLOCK=off` makes it answer no (commands then run without Landlock):
/// how the tests see a host without it.
pub fn landlock_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        if std::env::var("MERGEFORGE_LANDLOCK").is_ok_and(|v| v == "off") {
            log::warn!(
                "Landlock turned off (MERGEFORGE_LANDLOCK=off): sandboxed commands can write outside their sandbox"
            );
            return false;
        }
        let probe = std::thread::spawn(|| -> Option<RestrictionStatus> {
            Ruleset::default().handle_access(AccessFs::from_all(ABI::V1)).ok()?.create().ok()?.restrict_self().ok()
        });
        let enforced = matches!(probe.join(), Ok(Some(status)) if status.ruleset != RulesetStatus::NotEnforced);
        if !enforced {
            log::warn!("Landlock is not available: sandboxed commands can write outside their sandbox");
        }
        enforced
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_beneath_a_readable_folder_is_named() {
        let private = tempfile::tempdir().unwrap();
        let venv = tempfile::tempdir().unwrap();
        let reads = Reads::Only(vec![venv.path().to_path_buf()]);
        assert_eq!(readable_beneath(&reads, Path::new("/etc/passwd")), Some(PathBuf::from("/etc")));
        assert_eq!(readable_beneath(&reads, venv.path()), Some(venv.path().to_path_buf()));
        assert_eq!(readable_beneath(&reads, private.path()), None);
        assert_eq!(readable_beneath(&Reads::Anywhere, private.path()), Some(PathBuf::from("/")));
    }
}
