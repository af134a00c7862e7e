//! Fast resets: each task's mid-merge repository is made once per environment (a
//! **template** on disk), and every episode of the task gets its own copy of it.
//!
//! The first reset of a task materialises it as [`Workspace::materialise`] always did
//! (git fetch from the bundle, checkout, merge, setup traces removed; then the inert
//! sample hooks go too) in a temporary directory, derives what a reset observes from it ([`Initial`]), and only then renames
//! it into place: a template on disk is always complete. Resets of the same task wait
//! for that first one (one lock per task); resets of other tasks do not.
//!
//! A copy is file by file: directories made afresh with the template's modes, symlinks
//! re-created with the same target, regular files reflinked (the `FICLONE` ioctl, via
//! the `reflink-copy` crate) where the file system shares blocks copy-on-write (btrfs,
//! XFS), else copied with [`std::fs::copy`] (mode included). Never a hard link: a hard
//! link shares the inode, so an episode's process could write through it into the
//! template and every later episode. A copy is therefore as private as a fresh
//! clone: the episode's writes, deletions and mode changes stay in its directory.
//!
//! Templates live in one private directory under the work directory, removed with the
//! environment; episode commands cannot read it (their Landlock ruleset grants their own
//! episode directory only).

use std::collections::HashMap;
use std::io::ErrorKind;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::{bail, Context, Result};

use super::dataset::TaskEntry;
use super::initial::Initial;
use super::workspace::Workspace;

/// How a reset makes the episode's repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ResetPath {
    /// A copy of the task's template (made on the task's first reset).
    #[default]
    Template,
    /// The previous path, kept for comparison (`bench env`): git fetch from the bundle,
    /// checkout and merge on every reset.
    Clone,
}

/// A task's prepared repository and what a reset observes of it.
#[derive(Debug)]
pub struct Template {
    /// `<templates>/<task>`, holding `repo`.
    dir: PathBuf,
    pub(crate) initial: Initial,
}

impl ResetPath {
    pub(crate) fn name(self) -> &'static str {
        match self {
            ResetPath::Template => "template",
            ResetPath::Clone => "clone",
        }
    }
}

impl Template {
    /// The template's repository (read it, never write it).
    pub fn repo(&self) -> PathBuf {
        self.dir.join("repo")
    }
}

/// A task's template once made; its lock is held while it is being made.
type Slot = Arc<Mutex<Option<Arc<Template>>>>;

/// The templates of one environment, made on demand.
#[derive(Debug)]
pub struct Templates {
    /// Where the private templates directory is created (on first use).
    parent: PathBuf,
    root: OnceLock<Result<tempfile::TempDir, String>>,
    /// One slot per task id.
    slots: Mutex<HashMap<String, Slot>>,
    /// Cleared after the first reflink the file system refuses: plain copies from then on.
    reflinks: AtomicBool,
}

impl Templates {
    pub(crate) fn new(parent: &Path) -> Templates {
        Templates {
            parent: parent.to_path_buf(),
            root: OnceLock::new(),
            slots: Mutex::new(HashMap::new()),
            reflinks: AtomicBool::new(true),
        }
    }

    /// The task's template, made now if this is its first reset. `initial` derives what
    /// a reset observes from the freshly materialised repository.
    pub(crate) fn get(
        &self,
        entry: &TaskEntry,
        initial: impl FnOnce(&Workspace) -> Result<Initial>,
    ) -> Result<Arc<Template>> {
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            slots.entry(entry.task.id.clone()).or_default().clone()
        };
        let mut guard = slot.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(template) = guard.as_ref() {
            return Ok(template.clone());
        }
        let template = Arc::new(self.build(entry, initial)?);
        *guard = Some(template.clone());
        Ok(template)
    }

    /// The task's template if a reset has made it.
    pub fn made(&self, task_id: &str) -> Option<Arc<Template>> {
        let slot = self.slots.lock().unwrap_or_else(|p| p.into_inner()).get(task_id).cloned()?;
        let template = slot.lock().unwrap_or_else(|p| p.into_inner()).clone();
        template
    }

    /// The directory holding every template, once the first is made.
    pub fn dir(&self) -> Option<&Path> {
        self.root.get().and_then(|root| root.as_ref().ok()).map(tempfile::TempDir::path)
    }

    fn root(&self) -> Result<&Path> {
        let root = self.root.get_or_init(|| {
            std::fs::create_dir_all(&self.parent).map_err(|e| format!("{}: {e}", self.parent.display()))?;
            tempfile::Builder::new()
                .prefix("mergeforge-templates-")
                .tempdir_in(&self.parent)
                .map_err(|e| format!("creating the templates directory in {}: {e}", self.parent.display()))
        });
        match root {
            Ok(dir) => Ok(dir.path()),
            Err(message) => bail!("{message}"),
        }
    }

    /// Materialises the task in a temporary directory beside the templates, derives the
    /// reset's observations, then renames it into place.
    fn build(&self, entry: &TaskEntry, initial: impl FnOnce(&Workspace) -> Result<Initial>) -> Result<Template> {
        let root = self.root()?;
        let workspace = Workspace::materialise(&entry.bundle, root, entry.task.conflict_kind)?;
        remove_sample_hooks(&workspace.repo().join(".git/hooks"))?;
        let initial = initial(&workspace)?;
        let dir = root.join(dir_name(&entry.task.id));
        let building = workspace.into_dir();
        std::fs::rename(building.path(), &dir)
            .with_context(|| format!("moving the template of {} into place", entry.task.id))?;
        // Renamed: nothing is left at the temporary path to remove.
        let _ = building.keep();
        Ok(Template { dir, initial })
    }

    /// A private copy of `template`'s repository in a fresh episode directory under
    /// `parent`.
    pub(crate) fn copy(&self, template: &Template, parent: &Path) -> Result<Workspace> {
        Workspace::from_copy(parent, |repo| copy_tree(&template.repo(), repo, &self.reflinks))
    }
}

/// Removes the inert `*.sample` files `git init` puts in `.git/hooks` (git never runs
/// them): a third of a small task's files, each one more inode to create and remove per
/// episode, which is most of what a copy costs on ext4.
fn remove_sample_hooks(hooks: &Path) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(hooks) else { return Ok(()) };
    for entry in entries {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "sample") {
            std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
        }
    }
    Ok(())
}

/// A directory name for a task id: the id itself when it is a plain name, else its hash.
fn dir_name(id: &str) -> String {
    let plain = !id.is_empty()
        && !id.starts_with('.')
        && id.len() <= 200
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    if plain {
        id.to_string()
    } else {
        crate::snapshot::sha256_hex(id.as_bytes())
    }
}

/// Copies the tree at `from` into the new directory `to` (created here): directories
/// with their modes, symlinks as symlinks, regular files reflinked or copied. Anything
/// else (a socket, a fifo) is refused.
pub(crate) fn copy_tree(from: &Path, to: &Path, reflinks: &AtomicBool) -> Result<()> {
    std::fs::create_dir(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&source, &target, reflinks)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&source)?, &target)
                .with_context(|| format!("creating the symlink {}", target.display()))?;
        } else if kind.is_file() {
            copy_file(&source, &target, reflinks)?;
        } else {
            bail!("{}: neither a file, a directory nor a symlink", source.display());
        }
    }
    let mode = std::fs::metadata(from)?.permissions().mode();
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(mode))
        .with_context(|| format!("setting the mode of {}", to.display()))
}

/// A reflink of `from` at `to` while the file system takes them, else a copy; both keep
/// the mode.
fn copy_file(from: &Path, to: &Path, reflinks: &AtomicBool) -> Result<()> {
    if reflinks.load(Ordering::Relaxed) {
        match reflink_copy::reflink(from, to) {
            Ok(()) => return Ok(()),
            Err(e)
                if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::PermissionDenied | ErrorKind::AlreadyExists) =>
            {
                return Err(e).with_context(|| format!("reflinking {} to {}", from.display(), to.display()))
            }
            // EOPNOTSUPP (ext4, tmpfs), EXDEV, EINVAL: this file system does not share blocks.
            Err(_) => reflinks.store(false, Ordering::Relaxed),
        }
    }
    std::fs::copy(from, to).with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_copy_keeps_modes_symlinks_and_bytes_and_is_its_own() {
        let work = tempfile::tempdir().unwrap();
        let from = work.path().join("from");
        std::fs::create_dir_all(from.join("sub/deep")).unwrap();
        std::fs::write(from.join("run.sh"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(from.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(from.join("sub/deep/object"), [0u8, 1, 2, 255]).unwrap();
        std::fs::set_permissions(from.join("sub/deep/object"), std::fs::Permissions::from_mode(0o444)).unwrap();
        std::fs::set_permissions(from.join("sub"), std::fs::Permissions::from_mode(0o750)).unwrap();
        symlink("sub/deep/object", from.join("link")).unwrap();
        symlink("../missing", from.join("dangling")).unwrap();

        let to = work.path().join("to");
        copy_tree(&from, &to, &AtomicBool::new(true)).unwrap();
        let mode = |p: &Path| std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode(&to.join("run.sh")), 0o755);
        assert_eq!(mode(&to.join("sub/deep/object")), 0o444);
        assert_eq!(mode(&to.join("sub")), 0o750);
        assert_eq!(std::fs::read(to.join("sub/deep/object")).unwrap(), [0u8, 1, 2, 255]);
        assert_eq!(std::fs::read_link(to.join("link")).unwrap(), Path::new("sub/deep/object"));
        assert_eq!(std::fs::read_link(to.join("dangling")).unwrap(), Path::new("../missing"));

        // Its own inodes: writing the copy leaves the original alone.
        use std::os::unix::fs::MetadataExt;
        let inode = |p: &Path| std::fs::metadata(p).unwrap().ino();
        assert_ne!(inode(&from.join("run.sh")), inode(&to.join("run.sh")));
        std::fs::write(to.join("run.sh"), "changed").unwrap();
        assert_eq!(std::fs::read_to_string(from.join("run.sh")).unwrap(), "#!/bin/sh\n");
    }

    #[test]
    fn odd_task_ids_get_hashed_directory_names() {
        assert_eq!(dir_name("calculator-c80129ecf3"), "calculator-c80129ecf3");
        for odd in ["../x", ".hidden", "a/b", ""] {
            assert_eq!(dir_name(odd).len(), 64, "{odd}");
        }
    }
}
