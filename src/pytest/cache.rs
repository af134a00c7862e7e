//! The outcome cache: one small JSON file per run key, shared by processes, written
//! atomically, first writer wins. An entry holds the [`Outcome`], its measured duration and, for a selected
//! run, the [`Confirmation`] its verdict needed. [`write_atomically`] also writes the
//! coverage maps.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::confirm::Confirmation;
use super::outcome::Outcome;

/// Prefix of an entry being written (outcomes and coverage maps).
pub const CACHE_TEMP_PREFIX: &str = ".tmp-";

/// Outcomes on disk, one small JSON file per key: `<dir>/<key[0..2]>/<key>.json`.
/// Files are written to a temporary name and renamed, so a killed run leaves no
/// half-written entry, at most a temporary file that [`OutcomeCache::sweep_leftovers`]
/// removes later (see [`crate::leftovers`]). Several processes may share one cache.
#[derive(Debug, Clone)]
pub struct OutcomeCache {
    dir: PathBuf,
}

impl OutcomeCache {
    pub fn new(dir: &Path) -> Self {
        OutcomeCache { dir: dir.to_path_buf() }
    }

    /// Removes the temporary files of writers that were killed; returns how many.
    pub(crate) fn sweep_leftovers(&self) -> usize {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return 0 };
        entries.flatten().map(|e| crate::leftovers::sweep(&e.path(), CACHE_TEMP_PREFIX)).sum()
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.json"))
    }

    pub(crate) fn get(&self, key: &str) -> Option<Outcome> {
        self.entry(key).map(CachedOutcome::into_outcome)
    }

    fn entry(&self, key: &str) -> Option<CachedOutcome> {
        serde_json::from_str(&std::fs::read_to_string(self.path(key)).ok()?).ok()
    }

    /// The outcome under `key` of a run that listed the ids that passed, and those ids.
    pub(crate) fn get_listed(&self, key: &str) -> Option<(Outcome, BTreeSet<String>)> {
        let mut cached = self.entry(key)?;
        let passing = std::mem::take(&mut cached.passing).into_iter().collect();
        Some((cached.into_outcome(), passing))
    }

    /// Stores a run that listed the ids that passed, as [`OutcomeCache::put`] stores
    /// another; returns the run the cache holds for `key` afterwards.
    pub(crate) fn put_listed(
        &self,
        key: &str,
        outcome: Outcome,
        passing: BTreeSet<String>,
    ) -> Result<(Outcome, BTreeSet<String>)> {
        let cached = CachedOutcome::new(outcome, &[]);
        let cached = CachedOutcome { passing: passing.into_iter().collect(), ..cached };
        let stored = self.store(key, cached)?;
        let passing = stored.passing.iter().cloned().collect();
        Ok((stored.into_outcome(), passing))
    }

    /// Stores `outcome` under `key` unless an entry is there already; returns the stored
    /// outcome (see [`OutcomeCache::put_confirmed`]).
    pub(crate) fn put(&self, key: &str, outcome: Outcome) -> Result<Outcome> {
        self.put_confirmed(key, outcome, &[])
    }

    /// Stores the verdict of a run that needed the `confirmed` runs (in order), and
    /// returns the verdict the cache holds for `key` afterwards. The first writer wins:
    /// when another process (a shard on the same volume) or worker stored the same key
    /// while this one ran, its outcome is kept and returned, and this one is dropped. A
    /// test near its time limit may time out in one run and not in another; whoever
    /// reads the cache later (the unsharded reference, a resumed run) must see the
    /// verdict the first judge used.
    pub(crate) fn put_confirmed(&self, key: &str, outcome: Outcome, confirmed: &[Confirmation]) -> Result<Outcome> {
        Ok(self.put_verdict(key, outcome, confirmed)?.0)
    }

    /// Stores a verdict as [`OutcomeCache::put_confirmed`] does, and returns the verdict
    /// the cache holds for `key` afterwards with the confirmations it needed.
    pub(crate) fn put_verdict(
        &self,
        key: &str,
        outcome: Outcome,
        confirmed: &[Confirmation],
    ) -> Result<(Outcome, Vec<Confirmation>)> {
        let mut stored = self.store(key, CachedOutcome::new(outcome, confirmed))?;
        let confirmed = std::mem::take(&mut stored.confirmed);
        Ok((stored.into_outcome(), confirmed))
    }

    /// The verdict under `key` with the confirmations it needed (empty for a single run).
    pub(crate) fn get_verdict(&self, key: &str) -> Option<(Outcome, Vec<Confirmation>)> {
        let mut cached = self.entry(key)?;
        let confirmed = std::mem::take(&mut cached.confirmed);
        Some((cached.into_outcome(), confirmed))
    }

    /// Stores `cached` under `key` unless an entry is there already (first writer wins);
    /// returns the entry the cache holds afterwards.
    fn store(&self, key: &str, cached: CachedOutcome) -> Result<CachedOutcome> {
        let mut text = serde_json::to_string(&cached)?;
        text.push('\n');
        let path = self.path(key);
        if write_new(&path, text.as_bytes()).context("writing the outcome cache")? {
            return Ok(cached);
        }
        Ok(self.entry(key).unwrap_or(cached))
    }

    /// The confirmations the verdict under `key` needed (empty for a single run).
    pub(crate) fn confirmations(&self, key: &str) -> Option<Vec<Confirmation>> {
        self.entry(key).map(|c| c.confirmed)
    }
}

/// A cache entry: the outcome with its measured duration and, for a selected run, the
/// confirmations its verdict needed (the outcome is then the last confirmation's).
#[derive(Serialize, Deserialize)]
struct CachedOutcome {
    #[serde(flatten)]
    outcome: Outcome,
    #[serde(default)]
    duration_ms: u64,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    out_of_memory: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    confirmed: Vec<Confirmation>,
    /// The ids that passed, for a run that listed them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    passing: Vec<String>,
}

impl CachedOutcome {
    fn new(outcome: Outcome, confirmed: &[Confirmation]) -> Self {
        CachedOutcome {
            duration_ms: outcome.duration_ms,
            out_of_memory: outcome.out_of_memory,
            outcome,
            confirmed: confirmed.to_vec(),
            passing: Vec::new(),
        }
    }

    /// The outcome with what the cache keeps beside it.
    fn into_outcome(self) -> Outcome {
        Outcome { duration_ms: self.duration_ms, out_of_memory: self.out_of_memory, ..self.outcome }
    }
}

/// Writes `bytes` to `path` through an owner-tagged temporary file in the same folder
/// (created if missing) and a rename, so a killed writer leaves at most a temporary
/// file that [`crate::leftovers::sweep`] can tell apart and remove.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    temp_beside(path, bytes)?.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Writes `bytes` to `path` as [`write_atomically`] does, unless `path` exists (checked
/// atomically with the rename); returns whether this call wrote it.
pub(crate) fn write_new(path: &Path, bytes: &[u8]) -> Result<bool> {
    match temp_beside(path, bytes)?.persist_noclobber(path) {
        Ok(_) => Ok(true),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e.error.into()),
    }
}

/// A temporary file holding `bytes` in `path`'s folder (created if missing).
fn temp_beside(path: &Path, bytes: &[u8]) -> Result<tempfile::NamedTempFile> {
    let parent = path.parent().context("cache path has no parent")?;
    std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    let mut temp = tempfile::Builder::new()
        .prefix(&format!("{CACHE_TEMP_PREFIX}{}-", crate::leftovers::owner_tag()))
        .tempfile_in(parent)?;
    std::io::Write::write_all(&mut temp, bytes)?;
    Ok(temp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(passed: bool, timed_out: bool, duration_ms: u64) -> Outcome {
        Outcome {
            passed,
            failed_tests: Vec::new(),
            duration_ms,
            timed_out,
            out_of_memory: false,
            last_line: String::new(),
        }
    }

    #[test]
    fn the_first_writer_of_a_key_wins_and_later_writers_get_its_outcome() {
        let dir = tempfile::tempdir().unwrap();
        let cache = OutcomeCache::new(dir.path());
        let key = "ab".repeat(32);
        let first = cache.put(&key, outcome(false, true, 4000)).unwrap();
        assert!(first.timed_out);
        let second = cache.put_confirmed(&key, outcome(true, false, 900), &[Confirmation::Repeat]).unwrap();
        assert!(second.timed_out && !second.passed, "the stored verdict stands");
        assert_eq!(second.duration_ms, 4000);
        assert_eq!(cache.confirmations(&key), Some(Vec::new()));
        let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("ab")).unwrap().flatten().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
    }
}
