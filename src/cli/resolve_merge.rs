//! `mergeforge resolve --merge`: a resolver's tree-level entry point on the merge in
//! progress in the current directory's repository.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};

use crate::resolve::{self, Resolver, TreeMerge};
use crate::snapshot::Snapshot;

/// Resolves the merge in progress in the current directory: writes the files the
/// resolution changes and removes those it drops.
pub(super) fn run(resolver: &dyn Resolver) -> Result<ExitCode> {
    let repo = git2::Repository::discover(".").context("the current directory is not in a git repository")?;
    let workdir = repo.workdir().context("the repository has no work tree")?.to_path_buf();
    let ours = repo.head().and_then(|h| h.peel_to_commit()).context("HEAD: no commit")?;
    let theirs = repo
        .find_reference("MERGE_HEAD")
        .and_then(|r| r.peel_to_commit())
        .context("no merge in progress (MERGE_HEAD is missing); run `git merge` first")?;
    let base =
        repo.find_commit(repo.merge_base(ours.id(), theirs.id()).context("ours and theirs share no merge base")?)?;
    let [base, ours, theirs] = [&base, &ours, &theirs].map(|c| tree_of(&repo, c));
    let (base, ours, theirs) = (base?, ours?, theirs?);
    let mut conflicted = Snapshot::new();
    for path in ours.keys().chain(theirs.keys()).collect::<BTreeSet<_>>() {
        if let Ok(bytes) = std::fs::read(workdir.join(path)) {
            conflicted.insert(path.clone(), Arc::from(bytes.as_slice()));
        }
    }
    let conflicted_paths: Vec<String> = conflicted
        .iter()
        .filter(|(_, c)| std::str::from_utf8(c).is_ok_and(crate::merge::markers::has_markers))
        .map(|(p, _)| p.clone())
        .collect();
    let merge = TreeMerge {
        base: &base,
        ours: &ours,
        theirs: &theirs,
        conflicted: &conflicted,
        conflicted_paths: &conflicted_paths,
    };
    let resolution = match resolve::resolve_tree(resolver, &merge) {
        Ok(resolution) => resolution,
        Err(failure) => {
            eprintln!("error: {failure}");
            return Ok(ExitCode::from(2));
        }
    };
    for note in &resolution.notes {
        eprintln!("note: {}: {note}", resolver.name());
    }
    let mut written = 0;
    for (path, content) in &resolution.tree {
        if conflicted.get(path) != Some(content) {
            write(&workdir, path, content)?;
            written += 1;
        }
    }
    for path in conflicted.keys().filter(|p| !resolution.tree.contains_key(*p)) {
        std::fs::remove_file(workdir.join(path)).with_context(|| format!("{path}: cannot remove"))?;
        written += 1;
    }
    println!("{}: {written} files written, {} hunks left", resolver.name(), resolution.unresolved);
    Ok(if resolution.unresolved == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Every file of a commit's tree.
fn tree_of(repo: &git2::Repository, commit: &git2::Commit) -> Result<Snapshot> {
    let mut out = Snapshot::new();
    let mut failure = None;
    commit.tree()?.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
        if entry.kind() == Some(git2::ObjectType::Blob) {
            match repo.find_blob(entry.id()) {
                Ok(blob) => {
                    out.insert(format!("{dir}{}", entry.name().unwrap_or_default()), Arc::from(blob.content()));
                }
                Err(e) => failure = Some(e),
            }
        }
        git2::TreeWalkResult::Ok
    })?;
    match failure {
        Some(e) => Err(e).context("reading a commit's files"),
        None => Ok(out),
    }
}

/// Writes one file of the work tree (a temporary file, then a rename).
fn write(workdir: &Path, path: &str, content: &[u8]) -> Result<()> {
    let file = workdir.join(path);
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    }
    let partial = file.with_file_name(format!(
        ".{}.mergeforge-partial",
        file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
    ));
    std::fs::write(&partial, content).with_context(|| format!("{}: cannot write", partial.display()))?;
    std::fs::rename(&partial, &file).with_context(|| format!("{}: cannot write", file.display()))
}
