//! Writing a dataset version directory atomically.
//!
//! Everything is written into a staging directory next to the target
//! (`<out>/<dataset>/.staging-<version>-<host>-<pid>-XXXX`), manifest last, then
//! renamed into place. A killed run leaves at most its staging directory, which the
//! next write of that version removes.
//! If the version already exists, the staging copy is compared byte for byte: identical
//! means the run reproduced it; different is refused and nothing is overwritten.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// A file of the version: relative path → bytes.
pub(crate) type VersionFiles = BTreeMap<String, Vec<u8>>;

/// What happened to the version directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WriteResult {
    Created,
    /// The version existed with exactly these bytes.
    Reproduced,
}

/// Writes `files` then `manifest` as `<out>/<dataset>/<version>`.
pub(crate) fn write_version(
    out: &Path,
    dataset: &str,
    version: &str,
    files: &VersionFiles,
    manifest: &[u8],
) -> Result<(WriteResult, PathBuf)> {
    write_folder(&out.join(dataset), version, &format!("version {version}"), files, ("manifest.json", manifest))
}

/// Writes `files`, then `last` (the file whose presence marks the folder finished), as
/// `<parent>/<name>` (`what` names it in errors), atomically: staged in `<parent>/.staging-<name>-<owner>-XXXX`
/// and renamed. Staging folders of killed runs on this host are swept first. An
/// existing folder is kept: identical bytes mean [`WriteResult::Reproduced`], anything
/// else is refused.
pub(crate) fn write_folder(
    parent: &Path,
    name: &str,
    what: &str,
    files: &VersionFiles,
    last: (&str, &[u8]),
) -> Result<(WriteResult, PathBuf)> {
    std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    let prefix = format!(".staging-{name}-");
    crate::leftovers::sweep(parent, &prefix);
    let target = parent.join(name);
    let staging = tempfile::Builder::new()
        .prefix(&format!("{prefix}{}-", crate::leftovers::owner_tag()))
        .tempdir_in(parent)
        .with_context(|| format!("creating a staging directory in {}", parent.display()))?;
    for (relative, bytes) in files {
        let path = staging.path().join(relative);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
    }
    std::fs::write(staging.path().join(last.0), last.1)?;

    if target.exists() {
        let existing = read_tree(&target)?;
        let mut fresh = files.clone();
        fresh.insert(last.0.into(), last.1.to_vec());
        if existing == fresh {
            return Ok((WriteResult::Reproduced, target));
        }
        let differing = fresh
            .iter()
            .find(|(k, v)| existing.get(*k) != Some(*v))
            .map(|(k, _)| k.clone())
            .or_else(|| existing.keys().find(|k| !fresh.contains_key(*k)).cloned())
            .unwrap_or_default();
        bail!(
            "{}: {what} already exists with different content (first difference: {differing}); choose a new --version or remove it",
            target.display()
        );
    }
    let staged = staging.keep();
    std::fs::rename(&staged, &target).with_context(|| format!("moving the new version to {}", target.display()))?;
    Ok((WriteResult::Created, target))
}

/// Every file under `root`, relative path → bytes.
pub fn read_tree(root: &Path) -> Result<VersionFiles> {
    let mut files = VersionFiles::new();
    for (relative, path) in walk_files(root)? {
        let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        files.insert(relative, bytes);
    }
    Ok(files)
}

/// Every file under `root`: its `/`-separated path relative to `root`, and its path.
pub(crate) fn walk_files(root: &Path) -> Result<Vec<(String, std::path::PathBuf)>> {
    let mut files = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
            let entry = entry?;
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                pending.push(path);
            } else {
                let relative = path.strip_prefix(root)?.to_string_lossy().replace('\\', "/");
                files.push((relative, path));
            }
        }
    }
    Ok(files)
}
