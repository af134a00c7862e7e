//! Writing the published folder atomically.
//!
//! The folder is built in a staging directory next to the target
//! (`<parent>/.publish-<name>-XXXX`) and renamed into place. An existing target is
//! replaced only when it is an empty directory; a non-empty one is left alone: identical
//! content means there is nothing to do, different content is refused.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};

use crate::snapshot::{hex, sha256_hex};

/// One file of the folder: bytes made here, or a file copied as is.
#[derive(Debug, Clone)]
pub(crate) enum Content {
    Bytes(Vec<u8>),
    /// A file to copy, with its sha256 and length (already checked by the caller).
    Copy {
        from: PathBuf,
        sha256: String,
        len: u64,
    },
}

impl Content {
    pub(crate) fn len(&self) -> u64 {
        match self {
            Content::Bytes(bytes) => bytes.len() as u64,
            Content::Copy { len, .. } => *len,
        }
    }

    fn sha256(&self) -> String {
        match self {
            Content::Bytes(bytes) => sha256_hex(bytes),
            Content::Copy { sha256, .. } => sha256.clone(),
        }
    }
}

/// Relative `/`-separated path → content.
pub(crate) type Plan = BTreeMap<String, Content>;

/// What happened to the target folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub(crate) enum FolderWrite {
    Created,
    /// The folder already held exactly this content.
    Unchanged,
}

impl FolderWrite {
    pub(crate) fn name(self) -> &'static str {
        self.into()
    }
}

/// Writes `plan` as the folder `target`.
pub(crate) fn write_folder(target: &Path, plan: &Plan) -> Result<FolderWrite> {
    let name = target
        .file_name()
        .with_context(|| format!("{}: --out needs a folder name", target.display()))?
        .to_string_lossy()
        .into_owned();
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut replace_empty = false;
    if target.exists() {
        if !target.is_dir() {
            bail!("{}: exists and is not a folder; choose another --out", target.display());
        }
        if is_empty_dir(target)? {
            replace_empty = true;
        } else {
            let existing = hash_tree(target)?;
            let wanted: BTreeMap<String, String> = plan.iter().map(|(k, v)| (k.clone(), v.sha256())).collect();
            if existing == wanted {
                return Ok(FolderWrite::Unchanged);
            }
            bail!(
                "{}: exists with different content (first difference: {}); choose another --out or remove it",
                target.display(),
                first_difference(&existing, &wanted)
            );
        }
    }
    std::fs::create_dir_all(&parent).with_context(|| format!("creating {}", parent.display()))?;
    let staging = tempfile::Builder::new()
        .prefix(&format!(".publish-{name}-"))
        .tempdir_in(&parent)
        .with_context(|| format!("creating a staging folder in {}", parent.display()))?;
    for (relative, content) in plan {
        write_one(&staging.path().join(relative), content)?;
    }
    set_folder_mode(staging.path())?;
    let staged = staging.keep();
    if replace_empty {
        std::fs::remove_dir(target).with_context(|| format!("replacing the empty folder {}", target.display()))?;
    }
    if let Err(err) = std::fs::rename(&staged, target) {
        let _ = std::fs::remove_dir_all(&staged);
        return Err(err).with_context(|| format!("moving the published folder to {}", target.display()));
    }
    Ok(FolderWrite::Created)
}

fn write_one(path: &Path, content: &Content) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    match content {
        Content::Bytes(bytes) => std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display())),
        Content::Copy { from, .. } => std::fs::copy(from, path)
            .map(|_| ())
            .with_context(|| format!("copying {} to {}", from.display(), path.display())),
    }
}

/// A staging directory is private (0700); the published folder is an ordinary one.
fn set_folder_mode(dir: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))
            .with_context(|| format!("setting permissions of {}", dir.display()))?;
    }
    Ok(())
}

fn is_empty_dir(dir: &Path) -> Result<bool> {
    Ok(std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?.next().is_none())
}

fn first_difference(existing: &BTreeMap<String, String>, wanted: &BTreeMap<String, String>) -> String {
    wanted
        .iter()
        .find(|(k, v)| existing.get(*k) != Some(*v))
        .map(|(k, _)| k.clone())
        .or_else(|| existing.keys().find(|k| !wanted.contains_key(*k)).map(|k| format!("{k} (not published)")))
        .unwrap_or_default()
}

/// Every file under `root` (relative path → hex sha256), streamed.
pub(crate) fn hash_tree(root: &Path) -> Result<BTreeMap<String, String>> {
    crate::bundle::dataset::walk_files(root)?
        .into_iter()
        .map(|(relative, path)| Ok((relative, hash_file(&path)?)))
        .collect()
}

/// Hex sha256 of a file, streamed.
pub(crate) fn hash_file(path: &Path) -> Result<String> {
    let mut file = std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buffer).with_context(|| format!("reading {}", path.display()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(hex(&hasher.finalize()))
}
