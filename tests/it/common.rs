//! Helpers shared by the integration tests: the built binary, the Python venv, git.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A command for the built `mergeforge` binary, run from the project root.
pub fn mergeforge() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mergeforge"));
    command.current_dir(root());
    command
}

/// Runs `mergeforge` with `args`, returning its output.
pub fn run_mergeforge(args: &[&str]) -> Output {
    mergeforge().args(args).output().expect("mergeforge runs")
}

/// The interpreter of the cached venv with pytest (the one gen-tasks uses), looked up
/// once per test binary: finding it asks the base interpreter for its version, which
/// through a version manager's shim costs a dozen processes, and the sample's check
/// runs the tests some 370 times.
pub fn venv_python() -> PathBuf {
    if let Some(python) = TASK_PYTHON.with(|p| p.borrow().clone()) {
        return python;
    }
    static PYTHON: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PYTHON
        .get_or_init(|| {
            // A version made with another interpreter is checked with that substrate's venv.
            if let Some(python) = std::env::var_os("MERGEFORGE_VERIFY_PYTHON").filter(|p| p != "recorded") {
                return PathBuf::from(python);
            }
            mergeforge::pytest::venv::ensure_venv(&mergeforge::pytest::venv::user_cache_dir(), &[])
                .expect("venv with pytest")
                .interpreter
        })
        .clone()
}

/// Writes `text` to `path` under `dir`, making its folders.
pub fn write_file(dir: &Path, path: &str, text: &str) {
    let file = dir.join(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, text).unwrap();
}

/// Runs git in `dir`, panicking with its stderr if it fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = git_output(dir, args);
    assert!(output.status.success(), "git {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Runs git in `dir` with a fixed identity and no user config.
pub fn git_output(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=test",
            "-c",
            "user.email=test@localhost",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "advice.detachedHead=false",
        ])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git runs")
}

thread_local! {
    /// This thread's [`Preloaded`] pytest server, started on first use.
    static PRELOADED: std::cell::RefCell<Preloaded> = std::cell::RefCell::new(Preloaded::start());
}

/// `tests/it/pytest_preloaded.py` running in the venv: it runs `python -m pytest ARGS`
/// requests in forked children of an interpreter that has imported pytest once (see its
/// docstring for what a child sees). The sample's check runs pytest some 500 times;
/// importing pytest was a third of each run. `MERGEFORGE_TEST_FRESH_PYTEST=1` runs every
/// command in a new process instead.
struct Preloaded {
    child: std::process::Child,
    replies: std::io::BufReader<std::process::ChildStdout>,
}

impl Preloaded {
    fn start() -> Self {
        let script = root().join("tests/it/pytest_preloaded.py");
        let mut child = Command::new(venv_python())
            .arg(&script)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("the preloaded pytest server starts");
        let replies = std::io::BufReader::new(child.stdout.take().unwrap());
        Preloaded { child, replies }
    }

    fn passes(
        &mut self,
        dir: &Path,
        args: &[String],
        env: &serde_json::Map<String, serde_json::Value>,
        timeout: std::time::Duration,
    ) -> bool {
        use std::io::{BufRead, Write};
        let request = serde_json::json!({
            "cwd": dir, "args": args, "env": env, "timeout_s": timeout.as_secs_f64(),
        });
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{request}").and_then(|()| stdin.flush()).expect("request to the pytest server");
        let mut line = String::new();
        self.replies.read_line(&mut line).expect("reply from the pytest server");
        let reply: serde_json::Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
        reply["passed"].as_bool().expect("a verdict")
    }
}

impl Drop for Preloaded {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// Runs a task's test command (argv with `python` → the venv) in `dir` with a timeout
/// (a wrong side may loop forever); true if it passes in time. A pytest command gets
/// `-x`: it stops at the first failure, which cannot change whether the suite passes
/// (it passes exactly when no test fails) and makes the many expected failures cheap.
pub fn tests_pass(
    dir: &Path,
    test_command: &[String],
    env: &serde_json::Map<String, serde_json::Value>,
    timeout: std::time::Duration,
) -> bool {
    use std::os::unix::process::CommandExt;
    let python = venv_python();
    let mut argv: Vec<String> =
        test_command.iter().map(|a| if a == "python" { python.display().to_string() } else { a.clone() }).collect();
    if argv.iter().any(|a| a == "pytest") {
        argv.insert(argv.iter().position(|a| a == "pytest").unwrap() + 1, "-x".to_string());
    }
    let fresh =
        std::env::var_os("MERGEFORGE_TEST_FRESH_PYTEST").is_some() || TASK_PYTHON.with(|p| p.borrow().is_some());
    if !fresh && test_command.starts_with(&["python".into(), "-m".into(), "pytest".into()]) {
        return PRELOADED.with(|server| server.borrow_mut().passes(dir, &argv[3..], env, timeout));
    }
    let mut command = Command::new(&argv[0]);
    command
        .args(&argv[1..])
        .current_dir(dir)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0);
    for (k, v) in env {
        command.env(k, v.as_str().unwrap_or_default());
    }
    let mut child = command.spawn().expect("tests start");
    let deadline = std::time::Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status.success();
        }
        if std::time::Instant::now() >= deadline {
            // SAFETY: signals the process group created for this child.
            unsafe {
                libc::kill(-(child.id() as i32), libc::SIGKILL);
            }
            let _ = child.wait();
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Every file under `dir` (relative path → bytes), dot-directories skipped.
pub fn read_tree(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    mergeforge::bundle::dataset::read_tree(dir).expect("readable tree")
}

/// The files under `dir` as a snapshot.
pub fn snapshot_of(dir: &Path) -> mergeforge::snapshot::Snapshot {
    read_tree(dir).into_iter().map(|(path, data)| (path, std::sync::Arc::from(data.as_slice()))).collect()
}

/// `head` with a data-driven case's one edit applied. `<case>/edit.json` is either
/// `{"file", "replace", "with"}` (the passage must occur exactly once in the file) or
/// `{"file", "create"}` (a file that must not exist yet).
pub fn edited(head: &mergeforge::snapshot::Snapshot, case: &Path) -> mergeforge::snapshot::Snapshot {
    let edit = read_json(&case.join("edit.json"));
    let file = edit["file"].as_str().expect("edit.json names a file");
    let text = match (edit["replace"].as_str(), edit["with"].as_str(), edit["create"].as_str()) {
        (Some(old), Some(new), None) => {
            let text = std::str::from_utf8(&head[file]).unwrap();
            assert_eq!(
                text.matches(old).count(),
                1,
                "{}: the passage to replace must occur once in {file}",
                case.display()
            );
            text.replacen(old, new, 1)
        }
        (None, None, Some(created)) => {
            assert!(!head.contains_key(file), "{}: {file} already exists", case.display());
            created.to_string()
        }
        _ => panic!("{}: edit.json needs replace and with, or create", case.display()),
    };
    let mut tree = head.clone();
    tree.insert(file.to_string(), std::sync::Arc::from(text.as_bytes()));
    tree
}

/// Copies a folder recursively.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() == "__pycache__" {
                continue;
            }
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Reads a JSON file.
pub fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Checks every task of `ids` in `version` with [`verify_task_with_git`], two at a time
/// (one thread per half), and returns those that failed, each failure's message printed
/// by the panic hook as it happened.
pub fn verify_tasks_with_git(version: &Path, ids: &[String]) -> Vec<String> {
    let verifies = |id: &str| {
        let task = version.join("tasks").join(id);
        std::panic::catch_unwind(|| verify_task_with_git(&task)).is_ok()
    };
    std::thread::scope(|scope| {
        let workers: Vec<_> = ids
            .chunks(ids.len().div_ceil(2).max(1))
            .map(|chunk| scope.spawn(move || chunk.iter().filter(|id| !verifies(id)).cloned().collect::<Vec<_>>()))
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    })
}

thread_local! {
    /// The venv of the task this thread checks, with `MERGEFORGE_VERIFY_PYTHON=recorded`.
    static TASK_PYTHON: std::cell::RefCell<Option<PathBuf>> = const { std::cell::RefCell::new(None) };
    /// Set by [`verify_task_on_its_python`].
    static ON_RECORDED_PYTHON: std::cell::RefCell<bool> = const { std::cell::RefCell::new(false) };
}

/// [`verify_task_with_git`] on the task's recorded interpreter and lock.
pub fn verify_task_on_its_python(task_dir: &Path) {
    ON_RECORDED_PYTHON.with(|on| *on.borrow_mut() = true);
    verify_task_with_git(task_dir);
    ON_RECORDED_PYTHON.with(|on| *on.borrow_mut() = false);
    TASK_PYTHON.with(|p| *p.borrow_mut() = None);
}

/// With `MERGEFORGE_VERIFY_PYTHON=recorded`, the venv of `task`'s recorded interpreter
/// and lock (`python {version, lock}`; a history commit's era), else `None`.
fn recorded_python(task: &serde_json::Value) -> Option<PathBuf> {
    let wanted = std::env::var_os("MERGEFORGE_VERIFY_PYTHON").is_some_and(|p| p == "recorded");
    if !wanted && !ON_RECORDED_PYTHON.with(|on| *on.borrow()) {
        return None;
    }
    let python: mergeforge::bundle::task::TaskPython = serde_json::from_value(task["python"].clone()).ok()?;
    let env = mergeforge::env::pythons::venv_for(&python).unwrap_or_else(|e| panic!("{}: {e:#}", task["id"]));
    Some(env.interpreter)
}

/// Checks one task with plain git and pytest: the merge conflicts in exactly the listed
/// paths, the conflicted tree fails, gold passes, ours and theirs behave as recorded.
/// With `MERGEFORGE_VERIFY_PYTHON=recorded` the tests run on the task's recorded
/// interpreter and lock, each in a fresh process.
pub fn verify_task_with_git(task_dir: &Path) {
    let task = read_json(&task_dir.join("task.json"));
    TASK_PYTHON.with(|p| *p.borrow_mut() = recorded_python(&task));
    let solution = read_json(&task_dir.join("solution.json"));
    let id = task["id"].as_str().unwrap().to_string();
    let work = tempfile::tempdir().unwrap();
    let clone = work.path().join("w");
    git(work.path(), &["clone", "-q", task_dir.join("repo.bundle").to_str().unwrap(), "w"]);
    git(&clone, &["checkout", "-q", "theirs"]);
    git(&clone, &["checkout", "-q", "ours"]);
    let semantic = task["conflict_kind"] == "semantic";
    let mut want: Vec<&str> =
        task["conflicts"].as_array().unwrap().iter().map(|c| c["path"].as_str().unwrap()).collect();
    want.sort();
    if semantic {
        // A semantic task merges without markers; the merge is left uncommitted.
        let merge = git_output(&clone, &["merge", "--no-commit", "--no-ff", "theirs"]);
        assert!(merge.status.success(), "{id}: the semantic task's merge conflicted");
        let changed = git(&clone, &["diff", "--name-only", "ours", "theirs"]);
        for path in &want {
            assert!(changed.lines().any(|p| p == *path), "{id}: {path} is not changed between the sides");
        }
    } else {
        let merge = git_output(&clone, &["merge", "--no-edit", "theirs"]);
        assert!(!merge.status.success(), "{id}: git merge did not conflict");
        let unmerged = git(&clone, &["diff", "--name-only", "--diff-filter=U"]);
        let mut got: Vec<&str> = unmerged.lines().collect();
        got.sort();
        assert_eq!(got, want, "{id}: conflicted paths");
    }
    let command: Vec<String> =
        task["test_command"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
    let env = task["test_env"].as_object().unwrap().clone();
    let timeout = std::time::Duration::from_secs(task["timeout_s"].as_u64().unwrap());
    assert!(!tests_pass(&clone, &command, &env, timeout), "{id}: tests pass on the conflicted tree");
    git(&clone, &["merge", "--abort"]);
    let committed_passes = |rev: &str| {
        git(&clone, &["checkout", "-q", "-f", rev]);
        committed_tree_passes(&clone, &command, &env, timeout)
    };
    if let Some(base) = solution["validation"].get("base") {
        assert_eq!(committed_passes("base"), base["passed"].as_bool().unwrap(), "{id}: base");
    }
    for side in ["ours", "theirs"] {
        let recorded = solution["validation"][side]["passed"].as_bool().unwrap();
        assert_eq!(committed_passes(side), recorded, "{id}: {side} outcome differs from solution.json");
        // Every earlier commit of an integration branch is a valid change too.
        if recorded && solution["validation"]["base"]["passed"] == true {
            let earlier = git(&clone, &["rev-list", "--reverse", &format!("base..{side}~1")]);
            for rev in earlier.lines() {
                assert!(committed_passes(rev), "{id}: {side}'s commit {rev} fails its own suite");
            }
        }
    }
    // No two commits of the task share author and date.
    let stamps = git(&clone, &["log", "--all", "--format=%an <%ae> %ad"]);
    let mut unique: Vec<&str> = stamps.lines().collect();
    let count = unique.len();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), count, "{id}: two commits share author and date:\n{stamps}");
    // repo.bundle holds no gold; solution.bundle adds it to the clone.
    let refs = git(&clone, &["for-each-ref", "--format=%(refname)"]);
    assert!(!refs.contains("gold"), "{id}: the clone of repo.bundle has a gold ref:\n{refs}");
    let solution_bundle = task_dir.join("solution.bundle");
    git(&clone, &["fetch", "-q", solution_bundle.to_str().unwrap(), "gold"]);
    let gold_passes = committed_passes("FETCH_HEAD");
    let parents = git(&clone, &["rev-list", "--parents", "-n", "1", "HEAD"]);
    let ours = git(&clone, &["rev-parse", "ours"]);
    let theirs = git(&clone, &["rev-parse", "theirs"]);
    assert!(
        parents.contains(ours.trim()) && parents.contains(theirs.trim()),
        "{id}: gold is not a merge of ours and theirs"
    );
    assert!(gold_passes, "{id}: gold fails its tests");
}

/// [`tests_pass`] on the clean checkout in `dir`, run once per (git tree, command, env)
/// in this process: tasks of one dataset share many trees (HEAD is the gold of most
/// feature tasks), and a tree's verdict does not change between runs.
fn committed_tree_passes(
    dir: &Path,
    test_command: &[String],
    env: &serde_json::Map<String, serde_json::Value>,
    timeout: std::time::Duration,
) -> bool {
    static VERDICTS: std::sync::Mutex<std::collections::BTreeMap<String, bool>> =
        std::sync::Mutex::new(std::collections::BTreeMap::new());
    let tree = git(dir, &["rev-parse", "HEAD^{tree}"]);
    let key = format!("{}\n{test_command:?}\n{env:?}\n{}", tree.trim(), venv_python().display());
    if let Some(passed) = VERDICTS.lock().unwrap().get(&key) {
        return *passed;
    }
    let passed = tests_pass(dir, test_command, env, timeout);
    VERDICTS.lock().unwrap().insert(key, passed);
    passed
}

/// The test timeout of [`quick_config`]: the calculator's suite runs in well under a
/// second, so 10 s leaves room for a machine running the whole test suite (at 4 s, CI
/// once saw a run time out in one process and not in another), while a looping mutation
/// costs 10 s, not a minute.
pub const QUICK_TIMEOUT_S: u64 = 10;

/// A config for the calculator substrate with a short test timeout, so that a mutation
/// that makes the tests loop costs seconds, not a minute.
pub fn quick_config(work: &Path) -> PathBuf {
    let config = work.join("calculator.toml");
    let text = std::fs::read_to_string(root().join("substrates/calculator/substrate.toml"))
        .unwrap()
        .replace("timeout_s = 60", &format!("timeout_s = {QUICK_TIMEOUT_S}"));
    assert!(
        text.contains(&format!("timeout_s = {QUICK_TIMEOUT_S}")),
        "substrates/calculator/substrate.toml has no `timeout_s = 60`"
    );
    let path = root().join("substrates/calculator");
    std::fs::write(&config, format!("path = {:?}\n{text}", path.to_str().unwrap())).unwrap();
    config
}

/// Runs `python ARGS` in the repository root, writing no bytecode, and returns its
/// stdout; fails with both streams, naming `what`, when it exits non-zero.
pub fn python_stdout<S: AsRef<std::ffi::OsStr>>(python: &Path, args: &[S], what: &str) -> String {
    let output = Command::new(python)
        .args(args)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(root())
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{what} failed\nstdout:\n{stdout}\nstderr:\n{stderr}");
    stdout
}

/// The interpreter of a cached venv holding `deps` (from PyPI).
pub fn python_with(deps: &[&str]) -> std::path::PathBuf {
    let deps: Vec<String> = deps.iter().map(|d| d.to_string()).collect();
    mergeforge::pytest::venv::ensure_venv(&mergeforge::pytest::venv::user_cache_dir(), &deps)
        .unwrap_or_else(|e| panic!("a venv with {deps:?} (from PyPI): {e:#}"))
        .interpreter
}

/// Busy threads, `per_core` per core, until dropped: a machine under load, for the
/// tests of time limits (which count CPU time, not wall time).
pub struct CpuLoad {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl CpuLoad {
    pub fn start(per_core: usize) -> CpuLoad {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let threads = (0..cores * per_core)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        CpuLoad { stop, threads }
    }
}

impl Drop for CpuLoad {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// `bound` stretched by how busy the machine is: the sandbox's time limits count CPU
/// time, so a command that spends its whole budget ends late in wall time when more
/// processes want the cores than there are cores (the 1-minute load average over the
/// core count, at least 1). Wall-clock bounds in tests catch hangs, not slowness.
pub fn load_scaled(bound: std::time::Duration) -> std::time::Duration {
    let load: f64 = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().and_then(|l| l.parse().ok()))
        .unwrap_or(0.0);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    bound.mul_f64((load / cores).max(1.0))
}
