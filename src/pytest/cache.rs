//! The outcome cache: one small JSON file per run key, shared by processes, written
//! atomically. An entry holds the [`Outcome`], its measured duration and, for a selected
//! run, the [`Confirmation`] its verdict needed. [`write_atomically`] also writes the
//! coverage maps.

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
    pub fn sweep_leftovers(&self) -> usize {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return 0 };
        entries.flatten().map(|e| crate::leftovers::sweep(&e.path(), CACHE_TEMP_PREFIX)).sum()
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.json"))
    }

    pub fn get(&self, key: &str) -> Option<Outcome> {
        let text = std::fs::read_to_string(self.path(key)).ok()?;
        let cached: CachedOutcome = serde_json::from_str(&text).ok()?;
        Some(Outcome { duration_ms: cached.duration_ms, ..cached.outcome })
    }

    pub fn put(&self, key: &str, outcome: &Outcome) -> Result<()> {
        self.put_confirmed(key, outcome, &[])
    }

    /// Stores the verdict of a run that needed the `confirmed` runs (in order).
    pub fn put_confirmed(&self, key: &str, outcome: &Outcome, confirmed: &[Confirmation]) -> Result<()> {
        let cached =
            CachedOutcome { outcome: outcome.clone(), duration_ms: outcome.duration_ms, confirmed: confirmed.to_vec() };
        let mut text = serde_json::to_string(&cached)?;
        text.push('\n');
        write_atomically(&self.path(key), text.as_bytes()).context("writing the outcome cache")
    }

    /// The confirmations the verdict under `key` needed (empty for a single run).
    pub fn confirmations(&self, key: &str) -> Option<Vec<Confirmation>> {
        let text = std::fs::read_to_string(self.path(key)).ok()?;
        serde_json::from_str::<CachedOutcome>(&text).ok().map(|c| c.confirmed)
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
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    confirmed: Vec<Confirmation>,
}

/// Writes `bytes` to `path` through an owner-tagged temporary file in the same folder
/// (created if missing) and a rename, so a killed writer leaves at most a temporary
/// file that [`crate::leftovers::sweep`] can tell apart and remove.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let parent = path.parent().context("cache path has no parent")?;
    std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    let mut temp = tempfile::Builder::new()
        .prefix(&format!("{CACHE_TEMP_PREFIX}{}-", crate::leftovers::owner_tag()))
        .tempfile_in(parent)?;
    std::io::Write::write_all(&mut temp, bytes)?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
