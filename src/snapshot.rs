//! A snapshot is the full content of a working tree: repository-relative path → bytes.
//!
//! Every stage passes trees around as snapshots; only `forge` and `bundle` turn them into
//! git objects, and only `sandbox` writes them to disk (into a private directory).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

/// Path (always `/`-separated, relative) → file content. Cheap to clone: contents are shared.
pub type Snapshot = BTreeMap<String, Arc<[u8]>>;

/// Writes every file of `snapshot` under `dir`, creating folders as needed.
pub fn materialise(snapshot: &Snapshot, dir: &Path) -> Result<()> {
    for (path, data) in snapshot {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&target, data).with_context(|| format!("writing {}", target.display()))?;
    }
    Ok(())
}

/// A content hash of the whole snapshot (paths and bytes), hex sha256.
/// Used as the identity of a tree for caching test outcomes.
pub fn content_id(snapshot: &Snapshot) -> String {
    let mut hasher = Sha256::new();
    for (path, data) in snapshot {
        hasher.update((path.len() as u64).to_le_bytes());
        hasher.update(path.as_bytes());
        hasher.update((data.len() as u64).to_le_bytes());
        hasher.update(data);
    }
    hex(&hasher.finalize())
}

/// Lower-case hex of some bytes.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// Hex sha256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The file as UTF-8 text, if it is.
pub fn text_of<'a>(snapshot: &'a Snapshot, path: &str) -> Option<&'a str> {
    snapshot.get(path).and_then(|d| std::str::from_utf8(d).ok())
}

/// Returns a copy of `snapshot` with `path` replaced by `text`.
pub fn with_file(snapshot: &Snapshot, path: &str, text: &str) -> Snapshot {
    let mut out = snapshot.clone();
    out.insert(path.to_string(), Arc::from(text.as_bytes()));
    out
}
