//! Substrates: Python repositories whose tests pass, the raw material of every task.
//!
//! This stage owns reading a substrate (a folder with `substrate.toml`, a git repository
//! at HEAD, or a config file pointing at either), listing the files mutations may touch,
//! and the check that the tests pass before anything is generated from it. It must not
//! know about mutations, families or tasks.

pub(crate) mod config;
pub(crate) mod detect;
pub mod history;
pub(crate) mod repos;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context, Result};

pub use config::SubstrateConfig;
use config::CONFIG_FILE;

use crate::snapshot::{content_id, Snapshot};

/// A loaded substrate: its configuration and its full tree at HEAD.
#[derive(Debug, Clone)]
pub struct Substrate {
    pub name: String,
    /// Where it was read from (for messages).
    pub(crate) origin: PathBuf,
    /// The HEAD commit when read from a git repository.
    pub(crate) commit: Option<String>,
    pub config: SubstrateConfig,
    /// Every tracked file at HEAD ("gold tree").
    pub files: Snapshot,
    /// Content id of `files` (sha256 over paths and bytes).
    pub(crate) tree_id: String,
    /// Whether the test command was detected (no config or `--test-cmd` set it): tests
    /// failing or flipping at HEAD are then deselected instead of refusing the substrate.
    pub(crate) detected_command: bool,
    /// The keys a config file (or `--test-cmd`) set; the others were detected.
    pub(crate) given: BTreeSet<String>,
    /// The test ids deselected at HEAD (failing or flaky there), for the manifest.
    pub(crate) deselected: Vec<String>,
}

/// How the user named a substrate.
#[derive(Debug, Clone)]
pub struct SubstrateSpec {
    /// A folder or a git repository.
    pub path: PathBuf,
    /// A config file to use instead of `<path>/substrate.toml`.
    pub config_file: Option<PathBuf>,
    /// A test command to use when there is no config (argv).
    pub test_command: Option<Vec<String>>,
}

/// The environment variable naming the folder of embedded substrates explicitly.
pub(crate) const EMBEDDED_ENV: &str = "MERGEFORGE_SUBSTRATES";

/// The folder of the embedded substrates: `$MERGEFORGE_SUBSTRATES`, else `substrates/`
/// in the working directory, else `substrates/` next to the executable or in one of
/// its parent folders (a checkout's `target/release/mergeforge` finds the checkout's).
/// The binary carries no build path.
pub(crate) fn embedded_root() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os(EMBEDDED_ENV) {
        let dir = PathBuf::from(dir);
        if !dir.is_dir() {
            bail!("{}: {EMBEDDED_ENV} names no folder", dir.display());
        }
        return Ok(dir);
    }
    let local = PathBuf::from("substrates");
    if local.is_dir() {
        return Ok(local);
    }
    let exe = std::env::current_exe().ok();
    let beside_exe = exe.iter().flat_map(|exe| exe.ancestors().skip(1)).map(|dir| dir.join("substrates"));
    for candidate in beside_exe {
        if candidate.is_dir() {
            return Ok(candidate);
        }
    }
    bail!(
        "no embedded substrates: no substrates/ folder in the working directory or next to the executable; \
         run from a mergeforge checkout, set {EMBEDDED_ENV}=DIR, or pass --substrate PATH"
    )
}

/// A Python source file mutations may change.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: String,
    pub text: String,
}

/// Folders and files never read into a substrate tree from a plain folder.
const IGNORED_NAMES: &[&str] = &[
    ".git",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
    ".venv",
    "venv",
    "node_modules",
    ".eggs",
    "build",
    "dist",
];

impl SubstrateSpec {
    /// A spec for `--substrate-config FILE` alone: the repository is the file's `path` key.
    pub(crate) fn from_config_file(file: &Path) -> Result<Self> {
        let config = SubstrateConfig::read(file)?;
        let relative = config.path.clone().with_context(|| {
            format!("{}: no `path` key; say where the repository is, relative to this file", file.display())
        })?;
        let base = file.parent().unwrap_or(Path::new("."));
        Ok(SubstrateSpec { path: base.join(relative), config_file: Some(file.to_path_buf()), test_command: None })
    }
}

/// Loads a substrate's config and files. Does not run its tests.
pub fn load(spec: &SubstrateSpec) -> Result<Substrate> {
    let path = &spec.path;
    if !path.exists() {
        bail!("{}: no such substrate folder; pass an existing repository with --substrate", path.display());
    }
    if !path.is_dir() {
        bail!("{}: not a folder; a substrate is a repository folder", path.display());
    }
    let (files, commit) = read_files(path)?;
    if files.is_empty() {
        bail!("{}: substrate has no files", path.display());
    }
    let (config, detected_command, given) = read_config(spec, &files)?;
    let name = config.name.clone().unwrap_or_else(|| folder_name(path));
    let has_tests = files.keys().any(|p| {
        let file = p.rsplit('/').next().unwrap_or(p);
        file.ends_with(".py") && (file.starts_with("test_") || file.ends_with("_test.py"))
    });
    if !has_tests {
        bail!("{}: no test files (test_*.py or *_test.py); a substrate needs a pytest suite", path.display());
    }
    let tree_id = content_id(&files);
    Ok(Substrate {
        name,
        origin: path.clone(),
        commit,
        config,
        files,
        tree_id,
        detected_command,
        given,
        deselected: Vec::new(),
    })
}

/// The `substrate.toml` detected for the repository or folder at `path`, with a comment
/// per decision (`mergeforge onboard`).
pub fn onboard(path: &Path) -> Result<String> {
    if !path.is_dir() {
        bail!("{}: no such folder; pass a repository or an unpacked project", path.display());
    }
    let (files, _) = read_files(path)?;
    let folder = folder_name(path);
    let detection = detect::detect(&files, &folder, &path.display().to_string())?;
    Ok(detection.to_toml(&folder))
}

/// The files of a git repository at HEAD (with the commit), or of a plain folder.
pub(crate) fn read_files(path: &Path) -> Result<(Snapshot, Option<String>)> {
    match git2::Repository::open(path) {
        Ok(repo) => {
            let (files, commit) = read_git_head(&repo, path)?;
            Ok((files, Some(commit)))
        }
        Err(_) => Ok((read_folder(path)?, None)),
    }
}

/// The substrate's configuration: detected from its files, with what a config file
/// (given, or `substrate.toml` at its root) and `--test-cmd` set over it; and whether
/// the test command is the detected one, and the keys given. With a config, a detection
/// that fails leaves the config's defaults.
fn read_config(spec: &SubstrateSpec, files: &Snapshot) -> Result<(SubstrateConfig, bool, BTreeSet<String>)> {
    let in_repo = spec.path.join(CONFIG_FILE);
    let file = spec.config_file.clone().or_else(|| in_repo.exists().then_some(in_repo));
    let (mut given, mut keys) = match &file {
        Some(file) => SubstrateConfig::read_with_keys(file)?,
        None => (SubstrateConfig::default(), BTreeSet::new()),
    };
    if let Some(command) = spec.test_command.as_ref().filter(|_| spec.config_file.is_none()) {
        given.test_command = command.clone();
        keys.insert("test_command".to_string());
    }
    let origin = spec.path.display().to_string();
    let detected = match detect::detect(files, &folder_name(&spec.path), &origin) {
        Ok(detection) => detection.config,
        Err(err) if !keys.is_empty() => {
            log::debug!("{origin}: detection failed ({err:#}); the config's defaults stand");
            return Ok((given, false, keys));
        }
        Err(err) => return Err(err),
    };
    let detected_command = !keys.contains("test_command");
    Ok((detect::overlay(detected, given, &keys), detected_command, keys))
}

/// A folder's name, the default substrate name; a bare repository's (`calc.git`) without
/// its `.git`.
fn folder_name(path: &Path) -> String {
    let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let name = canonical.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match name.strip_suffix(".git").unwrap_or(&name) {
        "" => "substrate".into(),
        stem => stem.to_string(),
    }
}

fn read_git_head(repo: &git2::Repository, path: &Path) -> Result<(Snapshot, String)> {
    let head = match repo.head() {
        Ok(head) => head,
        Err(_) => bail!("{}: empty repository (no commit at HEAD); commit the code first", path.display()),
    };
    let commit = head.peel_to_commit().with_context(|| format!("{}: HEAD is not a commit", path.display()))?;
    let files = tree_files(repo, &commit.tree()?).with_context(|| format!("{}: reading HEAD tree", path.display()))?;
    Ok((files, commit.id().to_string()))
}

/// Every file of commit `oid`'s tree.
pub fn commit_files(repo: &git2::Repository, oid: git2::Oid) -> Result<Snapshot> {
    let tree = repo.find_commit(oid)?.tree()?;
    tree_files(repo, &tree)
}

/// Every file (blob) of `tree`, by its path.
pub(crate) fn tree_files(repo: &git2::Repository, tree: &git2::Tree) -> Result<Snapshot> {
    let mut files = Snapshot::new();
    let mut failure = None;
    tree.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
        if entry.kind() != Some(git2::ObjectType::Blob) {
            return git2::TreeWalkResult::Ok;
        }
        let name = entry.name().unwrap_or_default();
        match entry.to_object(repo).and_then(|o| o.peel_to_blob()) {
            Ok(blob) => {
                files.insert(format!("{dir}{name}"), Arc::from(blob.content()));
            }
            Err(err) => {
                failure = Some(err);
                return git2::TreeWalkResult::Abort;
            }
        }
        git2::TreeWalkResult::Ok
    })?;
    if let Some(err) = failure {
        return Err(err.into());
    }
    Ok(files)
}

/// Every file under `root` by its relative path, without the folders and files a
/// checkout leaves that are not the project ([`IGNORED_NAMES`], `*.pyc`, `*.egg-info`).
pub(crate) fn read_folder(root: &Path) -> Result<Snapshot> {
    let mut files = Snapshot::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?;
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let file_type = entry.file_type()?;
            if IGNORED_NAMES.contains(&name.as_str()) || name.ends_with(".pyc") || name.ends_with(".egg-info") {
                continue;
            }
            let full = entry.path();
            if file_type.is_dir() {
                pending.push(full);
            } else if file_type.is_file() {
                let relative = full
                    .strip_prefix(root)
                    .context("walked outside the substrate")?
                    .to_string_lossy()
                    .replace('\\', "/");
                let data = std::fs::read(&full).with_context(|| format!("reading {}", full.display()))?;
                files.insert(relative, Arc::from(data));
            }
        }
    }
    Ok(files)
}

impl Substrate {
    /// The substrate's licence and source, as the manifest records them: its config's
    /// `license` and `source`; an embedded substrate (a folder of [`embedded_root`])
    /// without them is the generator's own code, under the crate's licence, from
    /// `substrates/<folder>` of its repository.
    pub(crate) fn provenance(&self) -> (Option<String>, Option<String>) {
        let (mut license, mut source) = (self.config.license.clone(), self.config.source.clone());
        if license.is_none() || source.is_none() {
            let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
            let origin = canonical(&self.origin);
            let embedded =
                embedded_root().ok().map(|root| canonical(&root)).filter(|root| origin.parent() == Some(root));
            if let (Some(_), Some(folder)) = (embedded, origin.file_name()) {
                license = license.or_else(|| Some(env!("CARGO_PKG_LICENSE").to_string()));
                let folder = folder.to_string_lossy();
                source = source.or_else(|| Some(format!("{}: substrates/{folder}", env!("CARGO_PKG_NAME"))));
            }
        }
        (license, source)
    }

    /// The Python files mutations may change, as text. Files that are not UTF-8 are
    /// skipped with a warning naming them.
    pub fn mutable_sources(&self) -> Vec<SourceFile> {
        let mut sources = Vec::new();
        for (path, data) in &self.files {
            if !self.config.is_mutable(path) {
                continue;
            }
            match std::str::from_utf8(data) {
                Ok(text) => sources.push(SourceFile { path: path.clone(), text: text.to_string() }),
                Err(_) => log::warn!("{}: {path} is not UTF-8; skipped", self.name),
            }
        }
        sources
    }
}
