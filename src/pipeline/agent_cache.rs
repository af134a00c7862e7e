//! The agent rung's cache: what each try of the agent left, so that a run from a warm
//! cache plays no agent and writes the same bytes.
//!
//! One entry per (the workspace the agent starts from, command, label, policy, try): the
//! key digests the task's `repo.bundle` (from which the episode's workspace is made),
//! the command string exactly as given, `--agent-label`, the sandbox policy (timeout,
//! network, the names of the variables passed through, read-only paths, home) and the
//! try's index. An entry holds
//! the agent's tree as its changes to the conflicted tree it started from; the tree is
//! judged again on every run (the test-outcome cache makes that free), so a change of
//! the judgement applies to cached tries too. Entries live under `<cache>/agent-rung/`,
//! written through a temporary file and a rename; the first writer wins, and every
//! reader (the writer included) uses the entry on disk.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::agent::Policy;
use crate::pytest::cache::{write_new, CACHE_TEMP_PREFIX};
use crate::snapshot::{sha256_hex, Snapshot};

/// Bump when what an entry means changes, so old entries are played again.
const CACHE_VERSION: &str = "2";

/// The folder under a run's `--cache`.
pub(crate) const FOLDER: &str = "agent-rung";

/// Where one try's entry is found: its key's digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TryKey(String);

impl TryKey {
    /// The key of try `index` (0-based) of `command` labelled `label`, run under
    /// `policy`, on the workspace made from the bundle whose sha256 is `bundle_sha256`.
    pub(crate) fn new(bundle_sha256: &str, command: &str, label: Option<&str>, policy: &Policy, index: u32) -> TryKey {
        // Lengths make the fields unambiguous whatever they hold.
        let label = label.unwrap_or("");
        let policy = policy_text(policy);
        let text = format!(
            "agent-rung {CACHE_VERSION}\nbundle {bundle_sha256}\ncommand {} {command}\nlabel {} {label}\npolicy {} {policy}\ntry {index}\n",
            command.len(),
            label.len(),
            policy.len()
        );
        TryKey(sha256_hex(text.as_bytes()))
    }
}

/// What of a policy can change a try's outcome, as text: everything but whether an
/// unconfined host is allowed (the variables by name: their values are never written).
fn policy_text(policy: &Policy) -> String {
    let mut env = policy.env.clone();
    env.sort();
    let read_only: Vec<String> = policy.read_only.iter().map(|p| p.display().to_string()).collect();
    serde_json::json!({
        "timeout_s": policy.timeout.as_secs(),
        "network": format!("{:?}", policy.network),
        "env": env,
        "read_only": read_only,
        "home": policy.home.as_ref().map(|h| h.display().to_string()),
    })
    .to_string()
}

/// One try's entry: the files of the agent's tree that differ from the tree it started
/// from, and the files it removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CachedTry {
    changed: BTreeMap<String, Contents>,
    removed: Vec<String>,
}

/// A file's bytes: as text when they are UTF-8, else as hex.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Contents {
    Text(String),
    Hex(String),
}

impl Contents {
    fn of(bytes: &[u8]) -> Contents {
        match std::str::from_utf8(bytes) {
            Ok(text) => Contents::Text(text.to_string()),
            Err(_) => Contents::Hex(crate::snapshot::hex(bytes)),
        }
    }

    fn bytes(&self) -> Result<Vec<u8>> {
        match self {
            Contents::Text(text) => Ok(text.as_bytes().to_vec()),
            Contents::Hex(hex) => (0..hex.len())
                .step_by(2)
                .map(|i| {
                    let pair = hex.get(i..i + 2).context("odd hex length")?;
                    u8::from_str_radix(pair, 16).context("not hex")
                })
                .collect(),
        }
    }
}

impl CachedTry {
    /// The entry of `tree`, an agent's tree that started as `start`.
    pub(crate) fn of(start: &Snapshot, tree: &Snapshot) -> CachedTry {
        let changed = tree
            .iter()
            .filter(|(path, bytes)| start.get(*path) != Some(*bytes))
            .map(|(path, bytes)| (path.clone(), Contents::of(bytes)))
            .collect();
        let removed = start.keys().filter(|path| !tree.contains_key(*path)).cloned().collect();
        CachedTry { changed, removed }
    }

    /// The agent's tree, from the tree it started as.
    pub(crate) fn tree(&self, start: &Snapshot) -> Result<Snapshot> {
        let mut tree = start.clone();
        for path in &self.removed {
            tree.remove(path);
        }
        for (path, contents) in &self.changed {
            let bytes = contents.bytes().with_context(|| format!("cached agent file {path}"))?;
            tree.insert(path.clone(), Arc::from(bytes));
        }
        Ok(tree)
    }
}

/// The agent rung's entries under a run's cache.
#[derive(Debug, Clone)]
pub(crate) struct AgentCache {
    dir: PathBuf,
}

impl AgentCache {
    /// The entries under `cache_dir` (a run's `--cache`).
    pub(crate) fn new(cache_dir: &Path) -> AgentCache {
        AgentCache { dir: cache_dir.join(FOLDER) }
    }

    /// Removes the temporary files of writers that were killed; returns how many.
    pub(crate) fn sweep_leftovers(&self) -> usize {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return 0 };
        entries.flatten().map(|e| crate::leftovers::sweep(&e.path(), CACHE_TEMP_PREFIX)).sum()
    }

    fn path(&self, key: &TryKey) -> PathBuf {
        self.dir.join(&key.0[..2]).join(format!("{}.json", key.0))
    }

    /// The entry of `key`, if a run stored one (an unreadable entry is played again).
    pub(crate) fn get(&self, key: &TryKey) -> Option<CachedTry> {
        let text = std::fs::read_to_string(self.path(key)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Stores `entry` under `key` unless a run stored one first, and returns the entry
    /// on disk (the first writer's), so that concurrent runs agree.
    pub(crate) fn put(&self, key: &TryKey, entry: &CachedTry) -> Result<CachedTry> {
        let path = self.path(key);
        let mut text = serde_json::to_string(entry)?;
        text.push('\n');
        write_new(&path, text.as_bytes()).with_context(|| format!("writing {}", path.display()))?;
        self.get(key).with_context(|| format!("{}: unreadable right after it was written", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &[u8])]) -> Snapshot {
        files.iter().map(|(p, b)| (p.to_string(), Arc::from(*b))).collect()
    }

    #[test]
    fn an_entry_gives_back_the_agents_tree() {
        let start = tree(&[("a.py", b"<<<<<<< ours\n"), ("b.py", b"x = 1\n"), ("c.py", b"gone\n")]);
        let agent = tree(&[("a.py", b"resolved\n"), ("b.py", b"x = 1\n"), ("d.bin", &[0xff, 0x00, 0x7f])]);
        let entry = CachedTry::of(&start, &agent);
        assert_eq!(entry.removed, vec!["c.py".to_string()]);
        assert_eq!(entry.changed.keys().collect::<Vec<_>>(), ["a.py", "d.bin"], "unchanged files are not stored");
        let json = serde_json::to_string(&entry).unwrap();
        assert!(json.contains(r#""d.bin":{"hex":"ff007f"}"#), "{json}");
        let back: CachedTry = serde_json::from_str(&json).unwrap();
        assert_eq!(back.tree(&start).unwrap(), agent);
    }

    #[test]
    fn every_field_of_the_key_counts_and_the_first_writer_wins() {
        let policy = Policy::with_timeout(std::time::Duration::from_secs(60));
        let key = TryKey::new("ab12", "agent --fast", Some("model-a"), &policy, 0);
        assert_eq!(key, TryKey::new("ab12", "agent --fast", Some("model-a"), &policy, 0));
        let host = Policy { network: crate::agent::AgentNetwork::Host, ..policy.clone() };
        let key_passed = Policy { env: vec!["API_KEY".to_string()], ..policy.clone() };
        let longer = Policy::with_timeout(std::time::Duration::from_secs(61));
        let unconfined = Policy { allow_unconfined: true, ..policy.clone() };
        assert_eq!(
            key,
            TryKey::new("ab12", "agent --fast", Some("model-a"), &unconfined, 0),
            "confinement is not an outcome"
        );
        for other in [
            TryKey::new("ab13", "agent --fast", Some("model-a"), &policy, 0),
            TryKey::new("ab12", "agent  --fast", Some("model-a"), &policy, 0),
            TryKey::new("ab12", "agent --fast", Some("model-b"), &policy, 0),
            TryKey::new("ab12", "agent --fast", None, &policy, 0),
            TryKey::new("ab12", "agent --fast", Some("model-a"), &policy, 1),
            TryKey::new("ab12", "agent --fast", Some("model-a"), &host, 0),
            TryKey::new("ab12", "agent --fast", Some("model-a"), &key_passed, 0),
            TryKey::new("ab12", "agent --fast", Some("model-a"), &longer, 0),
        ] {
            assert_ne!(key, other);
        }

        let dir = tempfile::tempdir().unwrap();
        let cache = AgentCache::new(dir.path());
        assert_eq!(cache.get(&key), None);
        let start = tree(&[("a.py", b"x\n")]);
        let first = CachedTry::of(&start, &tree(&[("a.py", b"first\n")]));
        let second = CachedTry::of(&start, &tree(&[("a.py", b"second\n")]));
        assert_eq!(cache.put(&key, &first).unwrap(), first);
        assert_eq!(cache.put(&key, &second).unwrap(), first, "a later writer gets the first entry");
        assert_eq!(cache.get(&key), Some(first));
        let files: Vec<_> = walk(&dir.path().join(FOLDER));
        assert_eq!(files.len(), 1, "no temporary file left: {files:?}");
    }

    fn walk(dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push(path);
            }
        }
        out
    }
}
