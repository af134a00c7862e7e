//! How a sandboxed command's time-out is decided: by the **CPU time** of all its
//! processes, so that a verdict does not depend on how busy the machine is.
//!
//! A command's time limit (`timeout_s`, [`super::Limits::time_limit`]) is a CPU budget:
//! once its processes together have used that much CPU time, it is killed and reported
//! timed out, and so is one that ends having used it. On an idle machine a CPU-bound
//! command gets a whole core, so it times out as it did under a wall-clock limit; under
//! load it gets less of a core per second and is given the seconds it needs, so two runs
//! of one tree agree however many other processes compete.
//!
//! Wall time is only a backstop, for a command that sleeps or blocks (its CPU time
//! stops growing): it is killed once [`WALL_BACKSTOP_FACTOR`] times the limit has passed
//! on the wall clock *not counting the time its processes were ready to run but waited
//! for a CPU*. That waiting is what load adds, so the backstop does not depend on load
//! either: a CPU-bound command is never stopped by it before its CPU verdict, however
//! small its share of a core. RLIMIT_CPU, twice the limit per process
//! ([`super::Limits::for_tests`]), stays as the kernel's last resort above both.
//!
//! Where the [`Usage`] is read ([`CpuMeter`]):
//! - the command's cgroup v2 ([`super::confine::CommandCgroups`]), where one exists: the
//!   `usage_usec` of its `cpu.stat`, which every process that ever ran in it adds to,
//!   and the `some` total of its `cpu.pressure` (time some of its processes waited for a
//!   CPU; none where the kernel keeps no pressure stall information);
//! - otherwise `/proc` for the live processes of the command's process group: `stat`
//!   (their `utime` and `stime`, and the `cutime` and `cstime` of the children they
//!   reaped) and `schedstat` (their time waiting on a run queue) while it runs; once its
//!   first process has ended, that process's resource usage ([`wait_for`]: `wait4`, its
//!   reaped descendants included) plus whatever of the group is still alive.

use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

/// The wall-clock backstop, as a multiple of the time limit. Its clock leaves out the
/// time a command waited for a CPU, so the multiple is not there to absorb load: it is
/// how long a command that sleeps or blocks (a test waiting on a lock, a socket, a
/// child) may hold a worker, and a command that computes for part of its life and
/// waits for the rest a margin. Three times keeps a sleeping hang at the embedded
/// substrates' 60 s limit to three minutes.
pub(crate) const WALL_BACKSTOP_FACTOR: u32 = 3;

/// How often a running command's usage is read.
const READ_EVERY: Duration = Duration::from_millis(50);

/// How often a running command is checked for its end.
const POLL: Duration = Duration::from_millis(5);

/// What a command's processes used so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    /// CPU time.
    pub(crate) cpu: Duration,
    /// Time they were ready to run but waited for a CPU (what load adds to wall time).
    pub(crate) waiting: Duration,
}

impl Usage {
    fn since(self, start: Usage) -> Usage {
        Usage { cpu: self.cpu.saturating_sub(start.cpu), waiting: self.waiting.saturating_sub(start.waiting) }
    }
}

/// The time after which a command with time limit `limit` is killed whatever its CPU
/// time: wall time not spent waiting for a CPU.
pub fn wall_backstop(limit: Duration) -> Duration {
    limit * WALL_BACKSTOP_FACTOR
}

/// Whether a command with time limit `limit` that used `usage` over `wall` is past it:
/// its CPU budget spent, or the backstop reached by its wall time less its waiting.
pub(crate) fn past_limit(limit: Duration, usage: Usage, wall: Duration) -> bool {
    usage.cpu >= limit || wall.saturating_sub(usage.waiting) >= wall_backstop(limit)
}

/// Reads one command's [`Usage`], all its processes together.
#[derive(Debug, Clone)]
pub(crate) enum CpuMeter {
    /// A cgroup v2 folder, counted from `since` (its usage when the command started).
    Cgroup { dir: PathBuf, since: Usage },
    /// The processes of this process group, in `/proc`.
    Group(i32),
}

impl CpuMeter {
    /// The meter of a command in the cgroup v2 `cgroup` (its usage then was `since`)
    /// or, without one, of the process group `group`.
    pub(crate) fn new(cgroup: Option<&Path>, since: Usage, group: i32) -> CpuMeter {
        match cgroup {
            Some(dir) => CpuMeter::Cgroup { dir: dir.to_path_buf(), since },
            None => CpuMeter::Group(group),
        }
    }

    /// What the command has used so far.
    pub(crate) fn used(&self) -> Usage {
        match self {
            CpuMeter::Cgroup { dir, since } => cgroup_usage(dir).unwrap_or(*since).since(*since),
            CpuMeter::Group(group) => group_usage(*group),
        }
    }

    /// CPU time the command used in all, once its first process ended having used
    /// `reaped` (its own and its reaped descendants').
    pub(crate) fn total_cpu(&self, reaped: Duration) -> Duration {
        match self {
            CpuMeter::Cgroup { .. } => self.used().cpu.max(reaped),
            CpuMeter::Group(group) => reaped + group_usage(*group).cpu,
        }
    }
}

/// What the processes of a cgroup v2 used so far: the `usage_usec` of its `cpu.stat`
/// (`None` without it) and the `some` total of its `cpu.pressure` (zero without it).
pub(crate) fn cgroup_usage(dir: &Path) -> Option<Usage> {
    let stat = std::fs::read_to_string(dir.join("cpu.stat")).ok()?;
    let cpu = stat.lines().find_map(|line| line.strip_prefix("usage_usec "))?.trim().parse().ok()?;
    let pressure = std::fs::read_to_string(dir.join("cpu.pressure")).unwrap_or_default();
    let waiting = pressure
        .lines()
        .find_map(|line| line.strip_prefix("some "))
        .and_then(|line| line.split_whitespace().find_map(|field| field.strip_prefix("total=")))
        .and_then(|total| total.parse().ok())
        .unwrap_or(0);
    Some(Usage { cpu: Duration::from_micros(cpu), waiting: Duration::from_micros(waiting) })
}

/// What the live processes of process group `group` (and the children they reaped)
/// used so far, from `/proc`.
pub(crate) fn group_usage(group: i32) -> Usage {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Usage::default() };
    let pids = entries.flatten().filter(|entry| entry.file_name().to_str().is_some_and(|n| n.parse::<u32>().is_ok()));
    let mut ticks = 0;
    let mut waiting_ns = 0;
    for process in pids.map(|entry| entry.path()) {
        let Some((pgrp, cpu_ticks)) = std::fs::read_to_string(process.join("stat")).ok().and_then(|s| parse_stat(&s))
        else {
            continue;
        };
        if pgrp == group {
            ticks += cpu_ticks;
            waiting_ns +=
                std::fs::read_to_string(process.join("schedstat")).ok().and_then(|s| parse_schedstat(&s)).unwrap_or(0);
        }
    }
    Usage {
        cpu: Duration::from_secs_f64(ticks as f64 / clock_ticks_per_second()),
        waiting: Duration::from_nanos(waiting_ns),
    }
}

/// A `/proc/<pid>/stat` line's process group and its CPU time in clock ticks (utime,
/// stime, cutime, cstime). The command name, in parentheses, may hold anything: the
/// fields are counted from its last `)`.
fn parse_stat(stat: &str) -> Option<(i32, u64)> {
    let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    // Field 3 of proc(5) (state) is fields[0]: pgrp is field 5, utime..cstime 14..17.
    let pgrp = fields.get(2)?.parse().ok()?;
    let ticks = fields.get(11..15)?.iter().map(|f| f.parse::<i64>().unwrap_or(0).max(0) as u64).sum();
    Some((pgrp, ticks))
}

/// A `/proc/<pid>/schedstat` line's time waiting on a run queue, in nanoseconds (its
/// second field).
fn parse_schedstat(schedstat: &str) -> Option<u64> {
    schedstat.split_whitespace().nth(1)?.parse().ok()
}

fn clock_ticks_per_second() -> f64 {
    // SAFETY: sysconf reads a constant of the system.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if ticks > 0 {
        ticks as f64
    } else {
        100.0
    }
}

/// Kills the process group `pid` leads (the command and everything it started there).
pub(crate) fn kill_group(pid: i32) {
    // SAFETY: kill(2) with a negative pid signals the process group we created.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
}

/// How a command's first process ended.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ended {
    pub(crate) status: ExitStatus,
    /// CPU time it and the descendants it reaped used.
    pub(crate) reaped_cpu: Duration,
    /// It was killed for going past its time limit ([`past_limit`]).
    pub(crate) killed: bool,
}

/// When a command is stopped: its time limit ([`past_limit`]) and, for a command
/// that may wait as long as it likes within it (an agent), a plain wall-clock limit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadline {
    pub(crate) limit: Duration,
    pub(crate) wall: Option<Duration>,
}

impl From<Duration> for Deadline {
    fn from(limit: Duration) -> Self {
        Deadline { limit, wall: None }
    }
}

/// Waits for our child `pid` (leader of its own process group) to end, reaping it, and
/// kills the group when the command goes past its deadline ([`past_limit`]: `meter`'s
/// usage, wall time since `started`; or the deadline's wall-clock limit).
pub(crate) fn wait_for(pid: i32, meter: &CpuMeter, deadline: impl Into<Deadline>, started: Instant) -> Result<Ended> {
    let Deadline { limit, wall } = deadline.into();
    let mut next_reading = Instant::now();
    loop {
        if let Some((status, reaped_cpu)) = reap(pid, libc::WNOHANG)? {
            return Ok(Ended { status, reaped_cpu, killed: false });
        }
        let now = Instant::now();
        if now >= next_reading {
            next_reading = now + READ_EVERY;
            let elapsed = started.elapsed();
            if past_limit(limit, meter.used(), elapsed) || wall.is_some_and(|wall| elapsed >= wall) {
                kill_group(pid);
                let (status, reaped_cpu) = reap(pid, 0)?.context("the killed command was not reaped")?;
                return Ok(Ended { status, reaped_cpu, killed: true });
            }
        }
        std::thread::sleep(POLL);
    }
}

/// `wait4(pid, options)`: the status and CPU time of `pid` once it ended (`None` while
/// it runs, with `WNOHANG`).
fn reap(pid: i32, options: libc::c_int) -> Result<Option<(ExitStatus, Duration)>> {
    use std::os::unix::process::ExitStatusExt;
    let mut status: libc::c_int = 0;
    // SAFETY: zeroed rusage is a valid value of a plain C struct that wait4 fills in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: wait4 on our own child, writing into the two locals above.
        let reaped = unsafe { libc::wait4(pid, &mut status, options, &mut usage) };
        if reaped == pid {
            let cpu = timeval(usage.ru_utime) + timeval(usage.ru_stime);
            return Ok(Some((ExitStatus::from_raw(status), cpu)));
        }
        if reaped == 0 {
            return Ok(None);
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(error).with_context(|| format!("waiting for process {pid}"));
        }
    }
}

fn timeval(value: libc::timeval) -> Duration {
    Duration::from_secs(value.tv_sec.max(0) as u64) + Duration::from_micros(value.tv_usec.max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(cpu: u64, waiting: u64) -> Usage {
        Usage { cpu: Duration::from_secs(cpu), waiting: Duration::from_secs(waiting) }
    }

    #[test]
    fn the_limit_is_cpu_time_with_wall_time_as_a_backstop() {
        let limit = Duration::from_secs(10);
        let secs = Duration::from_secs;
        assert!(!past_limit(limit, usage(9, 0), secs(29)), "slow, not over");
        assert!(!past_limit(limit, usage(9, 90), secs(100)), "a tenth of a core: waiting is not counted");
        assert!(past_limit(limit, usage(10, 0), secs(10)), "the budget spent");
        assert!(past_limit(limit, usage(10, 0), secs(5)), "two cores: spent early");
        assert!(past_limit(limit, usage(0, 0), secs(30)), "asleep: the backstop");
        assert!(past_limit(limit, usage(1, 20), secs(51)), "asleep under load: the backstop");
    }

    #[test]
    fn proc_lines_give_group_ticks_and_waiting_whatever_the_name() {
        let line = "4242 (py (x) y) R 1 4240 4240 0 -1 4194304 10 0 0 0 150 30 7 3 20 0 1 0 100 0 0";
        assert_eq!(parse_stat(line), Some((4240, 190)));
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_schedstat("1749938286 114132069 204\n"), Some(114132069));
    }

    #[test]
    fn a_cgroup_gives_its_cpu_time_and_waiting() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(cgroup_usage(dir.path()), None, "no cpu.stat: no usage");
        std::fs::write(dir.path().join("cpu.stat"), "usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n")
            .unwrap();
        let cpu_only = Usage { cpu: Duration::from_millis(2500), waiting: Duration::ZERO };
        assert_eq!(cgroup_usage(dir.path()), Some(cpu_only), "no pressure information: no waiting");
        let pressure =
            "some avg10=1.00 avg60=0.50 avg300=0.10 total=700000\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
        std::fs::write(dir.path().join("cpu.pressure"), pressure).unwrap();
        let since = Usage { cpu: Duration::from_secs(1), waiting: Duration::from_millis(200) };
        let meter = CpuMeter::new(Some(dir.path()), since, 0);
        assert_eq!(meter.used(), Usage { cpu: Duration::from_millis(1500), waiting: Duration::from_millis(500) });
        assert_eq!(meter.total_cpu(Duration::from_secs(1)), Duration::from_millis(1500));
    }

    /// `sh -c script` in a process group of its own (reaped by [`reap`], not by `Child`).
    fn spawn_in_own_group(script: &str) -> (std::process::Child, i32) {
        use std::os::unix::process::CommandExt;
        let child = std::process::Command::new("sh").args(["-c", script]).process_group(0).spawn().unwrap();
        let pid = child.id() as i32;
        (child, pid)
    }

    /// Without a cgroup: a busy child's process group is measured in `/proc` while it
    /// runs, and its reaped usage covers at least that.
    #[test]
    fn a_busy_process_group_is_measured_while_it_runs() {
        let (_child, pid) = spawn_in_own_group("while :; do :; done");
        let started = Instant::now();
        let mut seen = Duration::ZERO;
        while seen < Duration::from_millis(300) && started.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(20));
            seen = group_usage(pid).cpu;
        }
        super::kill_group(pid);
        let (_, reaped) = reap(pid, 0).unwrap().unwrap();
        assert!(seen >= Duration::from_millis(300), "measured {seen:?} in {:?}", started.elapsed());
        assert!(reaped >= seen, "reaped {reaped:?} < measured {seen:?}");
        assert_eq!(group_usage(pid), Usage::default(), "the group is gone");
    }

    /// A command that sleeps uses no CPU time: the wall backstop ends it.
    #[test]
    fn a_sleeping_command_ends_at_the_wall_backstop() {
        let (_child, pid) = spawn_in_own_group("sleep 30");
        let meter = CpuMeter::new(None, Usage::default(), pid);
        let limit = Duration::from_millis(200);
        let started = Instant::now();
        let ended = wait_for(pid, &meter, limit, started).unwrap();
        assert!(ended.killed, "{ended:?}");
        assert!(started.elapsed() >= wall_backstop(limit), "killed after {:?}", started.elapsed());
        assert!(started.elapsed() < Duration::from_secs(10), "killed after {:?}", started.elapsed());
    }
}
