//! Writing snapshots as git trees and a task's four commits.
//!
//! Commits carry a fixed time, and a fixed author and committer unless a side is a real
//! commit of the project's history (its author is kept), so that the same trees always
//! give the same commit ids: task bundles are reproducible byte for byte.

use anyhow::Result;
use git2::{Oid, Repository, Signature, Time};

use crate::forge::Candidate;
use crate::snapshot::Snapshot;
use crate::substrate::history::Author;

/// The four commits of a task. `base` is a root commit; `gold` is a merge of ours and theirs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskCommits {
    pub base: Oid,
    pub ours: Oid,
    pub theirs: Oid,
    pub gold: Oid,
}

/// 2024-01-01T00:00:00Z: every commit's time.
const FIXED_TIME: i64 = 1_704_067_200;

fn signature() -> Result<Signature<'static>> {
    Ok(Signature::new("mergeforge", "mergeforge@localhost", &Time::new(FIXED_TIME, 0))?)
}

/// A side's author: its real one (the time normalised), else mergeforge's.
fn author(real: Option<&Author>) -> Result<Signature<'static>> {
    match real {
        Some(a) => Ok(Signature::new(&a.name, &a.email, &Time::new(FIXED_TIME, 0))?),
        None => signature(),
    }
}

/// Writes `snapshot` as a tree (all files mode 100644) and returns its id.
pub(crate) fn write_tree(repo: &Repository, snapshot: &Snapshot) -> Result<Oid> {
    let entries: Vec<(&str, &[u8])> = snapshot.iter().map(|(p, d)| (p.as_str(), d.as_ref())).collect();
    write_dir(repo, &entries)
}

fn write_dir(repo: &Repository, entries: &[(&str, &[u8])]) -> Result<Oid> {
    let mut builder = repo.treebuilder(None)?;
    let mut i = 0;
    while i < entries.len() {
        let (path, data) = entries[i];
        match path.split_once('/') {
            None => {
                let blob = repo.blob(data)?;
                builder.insert(path, blob, 0o100644)?;
                i += 1;
            }
            Some((dir, _)) => {
                let prefix = format!("{dir}/");
                let mut children = Vec::new();
                while i < entries.len() && entries[i].0.starts_with(&prefix) {
                    children.push((&entries[i].0[prefix.len()..], entries[i].1));
                    i += 1;
                }
                let subtree = write_dir(repo, &children)?;
                builder.insert(dir, subtree, 0o040000)?;
            }
        }
    }
    Ok(builder.write()?)
}

/// base's message: neutral, it is the project as the task starts.
pub(crate) const BASE_MESSAGE: &str = "Initial import\n";
/// gold's message: the merge it is (gold lives in `solution.bundle` only).
pub(crate) const GOLD_MESSAGE: &str = "Merge branch 'theirs' into ours\n";

/// Writes base, ours and theirs (children of base, each with its own intent's message)
/// and gold (merge of ours and theirs).
pub fn write_task_commits(repo: &Repository, candidate: &Candidate) -> Result<TaskCommits> {
    let c = candidate;
    let authors = [author(c.ours_intent.author.as_ref())?, author(c.theirs_intent.author.as_ref())?];
    write_authored(
        repo,
        [&c.base, &c.ours, &c.theirs, &c.gold],
        [&c.ours_intent.message, &c.theirs_intent.message],
        authors,
    )
}

/// Writes the commits of `[base, ours, theirs, gold]` trees with ours' and theirs'
/// one-line messages.
pub fn write_commits(repo: &Repository, trees: [&Snapshot; 4], messages: [&str; 2]) -> Result<TaskCommits> {
    write_authored(repo, trees, messages, [signature()?, signature()?])
}

/// [`write_commits`] with ours' and theirs' authors.
fn write_authored(
    repo: &Repository,
    trees: [&Snapshot; 4],
    messages: [&str; 2],
    authors: [Signature<'static>; 2],
) -> Result<TaskCommits> {
    let [base, ours, theirs, gold] = trees;
    let sig = signature()?;
    let commit = |snapshot: &Snapshot, author: &Signature, message: &str, parents: &[Oid]| -> Result<Oid> {
        let tree = repo.find_tree(write_tree(repo, snapshot)?)?;
        let parents: Vec<git2::Commit> = parents.iter().map(|p| repo.find_commit(*p)).collect::<Result<_, _>>()?;
        let parent_refs: Vec<&git2::Commit> = parents.iter().collect();
        Ok(repo.commit(None, author, &sig, message, &tree, &parent_refs)?)
    };
    let [ours_author, theirs_author] = &authors;
    let base_id = commit(base, &sig, BASE_MESSAGE, &[])?;
    let ours_id = commit(ours, ours_author, &format!("{}\n", messages[0]), &[base_id])?;
    let theirs_id = commit(theirs, theirs_author, &format!("{}\n", messages[1]), &[base_id])?;
    let gold_id = commit(gold, &sig, GOLD_MESSAGE, &[ours_id, theirs_id])?;
    Ok(TaskCommits { base: base_id, ours: ours_id, theirs: theirs_id, gold: gold_id })
}
