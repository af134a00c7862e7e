//! The pinned ruff ([`crate::tools::RUFF`]) and its findings: [`RULES`] on the tree's and
//! gold's versions of the changed files, one run for both, the tree's excess kept.
//!
//! Where the binary comes from: `$MERGEFORGE_RUFF` (a ruff executable; the Docker image
//! sets it), else the pinned release in mergeforge's user cache ([`crate::tools`]).
//!
//! Ruff runs `--isolated` (no configuration file of the tree counts), `--ignore-noqa`
//! (no comment silences a finding) and `--no-cache`, on copies of the files in a
//! private folder. It reads the files and never runs them.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use super::finding::{subtract, Finding};

/// The rules checked: redefinition, repeated dictionary keys (literal, variable),
/// undefined name, unused import, unused local.
pub(crate) const RULES: [&str; 6] = ["F811", "F601", "F602", "F821", "F401", "F841"];

/// A file's two versions.
pub(crate) struct Versions<'a> {
    pub(crate) path: &'a str,
    pub(crate) tree: &'a [u8],
    /// `None` when gold has no such file.
    pub(crate) gold: Option<&'a [u8]>,
}

/// The findings of [`RULES`] the tree's versions of `files` have and gold's have not.
pub(crate) fn findings(files: &[Versions<'_>]) -> Result<Vec<Finding>> {
    let files: Vec<_> = files.iter().filter(|file| is_relative(file.path)).collect();
    if files.is_empty() {
        return Ok(Vec::new());
    }
    let binary = crate::tools::RUFF.binary()?;
    let work = tempfile::Builder::new().prefix("mergeforge-ruff-").tempdir().context("creating a folder for ruff")?;
    let root = work.path().canonicalize().context("resolving ruff's folder")?;
    let mut arguments = Vec::new();
    for file in &files {
        for (side, bytes) in [("tree", Some(file.tree)), ("gold", file.gold)] {
            let Some(bytes) = bytes else { continue };
            let target = root.join(side).join(file.path);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
            }
            std::fs::write(&target, bytes).with_context(|| format!("writing {}", target.display()))?;
            arguments.push(target);
        }
    }
    let mut by_side: BTreeMap<&str, Vec<Finding>> = BTreeMap::new();
    for (side, finding) in run(&binary, &root, &arguments)? {
        by_side.entry(side).or_default().push(finding);
    }
    Ok(subtract(by_side.remove("tree").unwrap_or_default(), by_side.remove("gold").unwrap_or_default()))
}

/// Whether a snapshot path stays inside the folder it is written under.
fn is_relative(path: &str) -> bool {
    Path::new(path).components().all(|c| matches!(c, Component::Normal(_)))
}

/// One ruff run over `files` (under `root`'s `tree/` and `gold/`): each finding with the
/// side it is on.
fn run(binary: &Path, root: &Path, files: &[PathBuf]) -> Result<Vec<(&'static str, Finding)>> {
    let output = Command::new(binary)
        .args(["check", "--isolated", "--ignore-noqa", "--no-cache", "--exit-zero", "--output-format", "json"])
        .arg("--select")
        .arg(RULES.join(","))
        .args(files)
        .current_dir(root)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("running {}", binary.display()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        bail!("{} check failed ({}): {}", binary.display(), output.status, stderr.lines().next().unwrap_or(""));
    }
    let diagnostics: Vec<Diagnostic> = serde_json::from_slice(&output.stdout)
        .with_context(|| format!("reading the JSON of {} check", binary.display()))?;
    Ok(diagnostics.into_iter().filter_map(|d| d.finding(root)).collect())
}

/// One diagnostic of `ruff check --output-format json` (the fields read).
#[derive(serde::Deserialize)]
struct Diagnostic {
    /// The rule's code; `null` for a syntax error.
    code: Option<String>,
    filename: PathBuf,
    location: Location,
    message: String,
}

#[derive(serde::Deserialize)]
struct Location {
    row: usize,
}

impl Diagnostic {
    /// The finding, with its side (`tree` or `gold`), if it is one of [`RULES`] on a
    /// file under `root`.
    fn finding(self, root: &Path) -> Option<(&'static str, Finding)> {
        let code = self.code.filter(|code| RULES.contains(&code.as_str()))?;
        let relative = self.filename.strip_prefix(root).ok()?;
        let side = match relative.components().next()? {
            Component::Normal(side) if side == "tree" => "tree",
            Component::Normal(side) if side == "gold" => "gold",
            _ => return None,
        };
        let path = relative.strip_prefix(side).ok()?.to_string_lossy().replace('\\', "/");
        let line = self.location.row;
        let finding =
            Finding { name: quoted_name(&self.message).to_string(), message: self.message, path, rule: code, line };
        Some((side, finding))
    }
}

/// The name a ruff message is about: its first back-quoted part (`` `os` imported but
/// unused ``, `` Redefinition of unused `f` from line 3 ``), else the whole message.
fn quoted_name(message: &str) -> &str {
    message.split('`').nth(1).filter(|_| message.matches('`').count() >= 2).unwrap_or(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_first_quoted_part_of_the_message() {
        assert_eq!(quoted_name("`os` imported but unused"), "os");
        assert_eq!(quoted_name("Redefinition of unused `f` from line 5: `f` redefined here"), "f");
        assert_eq!(quoted_name("Dictionary key literal `\"k\"` repeated"), "\"k\"");
        assert_eq!(quoted_name("no quotes"), "no quotes");
    }

    #[test]
    fn paths_outside_the_folder_are_not_written() {
        assert!(is_relative("pkg/mod.py"));
        assert!(!is_relative("../escape.py") && !is_relative("/etc/x.py") && !is_relative("a/../../b.py"));
    }
}
