//! Fast resets keep episodes apart: each episode works on its own copy of the task's
//! template, so what one episode writes, deletes or re-modes (in the working tree and
//! in `.git`, directly or through its sandboxed `run` tool) reaches neither the template
//! nor the next episode of the task; no file of a copy is a hard link; and resets of
//! one task racing each other make its template once.

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use crate::common::*;
use mergeforge::env::action::Action;
use mergeforge::env::dataset::TaskChoice;
use mergeforge::env::{EnvConfig, Environment, ResetRequest};
use serde_json::json;

const SAMPLE: &str = "generated/mergeforge-embedded/1.0.0";
const TASK: &str = "calculator-c80129ecf3";

/// Every entry under `dir` (`.git` included): kind, permission bits, and content or
/// link target.
fn tree(dir: &Path) -> BTreeMap<String, (char, u32, Vec<u8>)> {
    let mut out = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let mode = meta.permissions().mode() & 0o7777;
            let relative = path.strip_prefix(dir).unwrap().display().to_string();
            let kind = meta.file_type();
            let value = if kind.is_symlink() {
                ('l', 0, std::fs::read_link(&path).unwrap().into_os_string().into_encoded_bytes())
            } else if kind.is_dir() {
                pending.push(path);
                ('d', mode, Vec::new())
            } else {
                ('f', mode, std::fs::read(&path).unwrap())
            };
            out.insert(relative, value);
        }
    }
    out
}

fn request(task: &str) -> ResetRequest {
    ResetRequest { choice: TaskChoice { task_id: Some(task.to_string()), ..TaskChoice::default() }, episode_id: None }
}

fn environment(work: &Path) -> Environment {
    let config = EnvConfig { work_dir: work.to_path_buf(), max_steps: 50, ..EnvConfig::default() };
    Environment::new(&root().join(SAMPLE), config).expect("the sample loads")
}

#[test]
fn an_episodes_writes_reach_neither_the_template_nor_the_next_episode() {
    let work = tempfile::tempdir().unwrap();
    let env = environment(work.path());
    let (mut first, _) = env.reset(&request(TASK)).expect("reset");
    let template = env.settings.templates.made(TASK).expect("the first reset made the template");
    let pristine = tree(&template.repo());
    assert!(pristine.contains_key(".git/MERGE_HEAD") && pristine.contains_key(".git/index"), "{pristine:?}");
    assert_eq!(tree(first.repo()), pristine, "a copy is the template, modes and .git included");

    // Vandalise the first episode: its working tree and its .git, file by file.
    let repo = first.repo().to_path_buf();
    std::fs::write(repo.join("calculator.py"), "vandalised\n").unwrap();
    std::fs::set_permissions(repo.join("calculator.py"), std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::write(repo.join("new_file.py"), "x = 1\n").unwrap();
    std::os::unix::fs::symlink("/etc/passwd", repo.join("link")).unwrap();
    let tests = pristine.keys().find(|p| p.starts_with("test") && p.ends_with(".py")).expect("a test file");
    std::fs::remove_file(repo.join(tests)).unwrap();
    std::fs::write(repo.join(".git/MERGE_HEAD"), "0000000000000000000000000000000000000000\n").unwrap();
    std::fs::remove_file(repo.join(".git/index")).unwrap();
    std::fs::write(repo.join(".git/config"), "[core]\n\tbare = true\n").unwrap();
    let object = pristine.keys().find(|p| p.starts_with(".git/objects/") && pristine[*p].0 == 'f').unwrap();
    std::fs::set_permissions(repo.join(object), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::write(repo.join(object), "garbage").unwrap();
    std::fs::set_permissions(repo.join(".git/refs/heads"), std::fs::Permissions::from_mode(0o700)).unwrap();
    // And through the agent's own tools: a whole-file write and, where confined, a command.
    first.step(Action::parse(json!({"file": "calculator.py", "resolution": "again\n"}), 1 << 20).unwrap()).unwrap();
    if mergeforge::sandbox::confine::landlock_available() {
        let command = "rm -f .git/HEAD && echo junk > .git/AUTO_MERGE && chmod 600 .git/MERGE_MSG && echo ran";
        let ran = first.step(Action::parse(json!({"tool": "run", "command": command}), 1 << 20).unwrap()).unwrap();
        assert!(ran.observation.last_output.contains("ran"), "{}", ran.observation.last_output);
        assert!(!repo.join(".git/HEAD").exists());
    }
    assert_ne!(tree(&repo), pristine);

    // The template is byte for byte what it was, and the next episode is pristine.
    assert_eq!(tree(&template.repo()), pristine, "the template changed");
    let (second, reply) = env.reset(&request(TASK)).expect("second reset");
    assert_eq!(tree(second.repo()), pristine, "the next episode is not pristine");
    assert_eq!(reply.observation.conflict_count, 1);
    assert!(reply.observation.files["calculator.py"].contains("<<<<<<<"));
    assert_eq!(git(second.repo(), &["diff", "--name-only", "--diff-filter=U"]), "calculator.py\n");
    // No hard link anywhere in a copy: every file has one name.
    for (path, (kind, _, _)) in tree(second.repo()) {
        if kind == 'f' {
            assert_eq!(std::fs::metadata(second.repo().join(&path)).unwrap().nlink(), 1, "{path} is hard-linked");
        }
    }
    drop(first);
    assert_eq!(tree(&template.repo()), pristine, "removing an episode leaves the template");
}

#[test]
fn racing_resets_of_a_task_make_its_template_once() {
    let work = tempfile::tempdir().unwrap();
    let env = environment(work.path());
    let repos: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                scope.spawn(|| {
                    let (episode, reply) = env.reset(&request(TASK)).expect("reset");
                    (tree(episode.repo()), reply.observation.conflict_count, episode)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let template = env.settings.templates.made(TASK).unwrap();
    let pristine = tree(&template.repo());
    for (copy, conflicts, _) in &repos {
        assert_eq!(copy, &pristine);
        assert_eq!(*conflicts, 1);
    }
    // One template, nothing half-built beside it.
    let dir = env.settings.templates.dir().unwrap();
    let entries: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(entries, [TASK]);
}
