//! Writing snapshots as git trees and a task's commits.
//!
//! A task is base (a root commit), each side's branch of one or more commits, and gold
//! (a merge of the two branch heads). Authors and dates come from [`authorship`], drawn
//! from the candidate's key, or a real side's own: the same trees always give the same
//! commit ids, so task bundles are reproducible byte for byte.

use anyhow::Result;
use git2::{Oid, Repository, Signature, Time};

use super::authorship::{self, Stamp, Timeline};
use crate::forge::{Candidate, Intent};
use crate::snapshot::Snapshot;

/// The commits of a task: base, the heads of ours' and theirs' branches, and gold.
/// `base` is a root commit; `gold` is a merge of ours and theirs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskCommits {
    pub base: Oid,
    pub ours: Oid,
    pub theirs: Oid,
    pub gold: Oid,
}

fn signature(stamp: &Stamp) -> Result<Signature<'static>> {
    Ok(Signature::new(&stamp.name, &stamp.email, &Time::new(stamp.time, stamp.offset))?)
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

/// Writes base, each side's commits (children of base, one per step and the side's
/// last, each with its own message) and gold (merge of the two heads).
pub fn write_task_commits(repo: &Repository, candidate: &Candidate) -> Result<TaskCommits> {
    let c = candidate;
    let sides = [&c.ours_intent, &c.theirs_intent];
    let timeline =
        authorship::timeline(&c.key, sides.map(Intent::commit_count), sides.map(|intent| intent.author.as_ref()));
    let writer = Writer { repo };
    let base = writer.commit(&c.base, &timeline.base, BASE_MESSAGE, &[])?;
    let ours = writer.side(base, &c.ours, &c.ours_intent, &timeline.ours)?;
    let theirs = writer.side(base, &c.theirs, &c.theirs_intent, &timeline.theirs)?;
    let gold = writer.commit(&c.gold, &timeline.gold, GOLD_MESSAGE, &[ours, theirs])?;
    Ok(TaskCommits { base, ours, theirs, gold })
}

/// Writes the commits of `[base, ours, theirs, gold]` trees, each side one commit with
/// its one-line message (tests and benches that need commits of given trees).
pub fn write_commits(repo: &Repository, trees: [&Snapshot; 4], messages: [&str; 2]) -> Result<TaskCommits> {
    let [base, ours, theirs, gold] = trees;
    let Timeline { base: base_stamp, ours: ours_stamps, theirs: theirs_stamps, gold: gold_stamp } =
        authorship::timeline(&messages.join("|"), [1, 1], [None, None]);
    let writer = Writer { repo };
    let base_id = writer.commit(base, &base_stamp, BASE_MESSAGE, &[])?;
    let ours_id = writer.commit(ours, &ours_stamps[0], &format!("{}\n", messages[0]), &[base_id])?;
    let theirs_id = writer.commit(theirs, &theirs_stamps[0], &format!("{}\n", messages[1]), &[base_id])?;
    let gold_id = writer.commit(gold, &gold_stamp, GOLD_MESSAGE, &[ours_id, theirs_id])?;
    Ok(TaskCommits { base: base_id, ours: ours_id, theirs: theirs_id, gold: gold_id })
}

/// Writes commits into one repository.
struct Writer<'r> {
    repo: &'r Repository,
}

impl Writer<'_> {
    /// `snapshot` as a commit by `stamp` (author and committer) with `parents`.
    fn commit(&self, snapshot: &Snapshot, stamp: &Stamp, message: &str, parents: &[Oid]) -> Result<Oid> {
        let tree = self.repo.find_tree(write_tree(self.repo, snapshot)?)?;
        let parents: Vec<git2::Commit> = parents.iter().map(|p| self.repo.find_commit(*p)).collect::<Result<_, _>>()?;
        let parent_refs: Vec<&git2::Commit> = parents.iter().collect();
        let sig = signature(stamp)?;
        Ok(self.repo.commit(None, &sig, &sig, message, &tree, &parent_refs)?)
    }

    /// A side's branch from `base`: its earlier steps, then `last` with the side's own
    /// message; returns the head.
    fn side(&self, base: Oid, last: &Snapshot, intent: &Intent, stamps: &[Stamp]) -> Result<Oid> {
        let trees = intent.earlier.iter().map(|step| &step.tree).chain(std::iter::once(last));
        let mut head = base;
        for ((tree, message), stamp) in trees.zip(intent.messages()).zip(stamps) {
            head = self.commit(tree, stamp, &format!("{message}\n"), &[head])?;
        }
        Ok(head)
    }
}
