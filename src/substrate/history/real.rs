//! What a task keeps of the real history it was made from: each side's author and
//! message ([`RealChange`], the side's commits squashed as one) and the commits it came
//! from ([`RealOrigin`], recorded in `solution.json`).

use anyhow::Result;
use git2::{Oid, Repository, Sort};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A commit's author, as the history records it (dates are not kept).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Author {
    /// The author's name.
    pub(crate) name: String,
    /// The author's email address.
    pub(crate) email: String,
}

/// One side of a real task: the change from a commit to a descendant, as one commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RealChange {
    /// The message: the one commit's own, or for several the newest one's summary and a
    /// body listing every commit's summary, oldest first (as a squash merge writes it).
    pub(crate) message: String,
    /// The newest commit's author.
    pub(crate) author: Author,
    /// The newest commit's author date: seconds since the epoch.
    pub(crate) time: i64,
    /// The author date's zone, minutes east of UTC.
    pub(crate) offset: i32,
}

impl RealChange {
    /// `commit`'s change with `message`: its author and author date.
    pub(crate) fn of(commit: &git2::Commit, message: String) -> RealChange {
        let when = commit.author().when();
        RealChange { message, author: author_of(commit), time: when.seconds(), offset: when.offset_minutes() }
    }
}

/// The real commits a task was made from (full hexadecimal ids).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RealOrigin {
    /// What the task replays.
    pub(crate) kind: RealKind,
    /// The commit the task stands for: the replayed commit, or the merge commit.
    pub(crate) commit: String,
    /// The commit base is read from: the replayed commit's parent, or the merge base.
    pub(crate) base: String,
    /// The commits the sides are read from: the replayed commit alone (ours), or the
    /// merge's first and second parents (ours, theirs).
    pub(crate) sides: Vec<String>,
}

/// What a real task replays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RealKind {
    /// commit-replay: one commit's change against a refactor of its parent.
    Commit,
    /// merge-replay: a merge commit re-merged.
    Merge,
}

/// The author of `commit`.
pub(crate) fn author_of(commit: &git2::Commit) -> Author {
    let author = commit.author();
    Author {
        name: String::from_utf8_lossy(author.name_bytes()).into_owned(),
        email: String::from_utf8_lossy(author.email_bytes()).into_owned(),
    }
}

/// The message of `commit`, trailing whitespace trimmed.
pub(crate) fn message_of(commit: &git2::Commit) -> String {
    String::from_utf8_lossy(commit.message_bytes()).trim_end().to_string()
}

/// The change from `base` to `tip` as one commit: the commits reachable from `tip` and
/// not from `base` (merges left out of the listing), squashed.
pub(crate) fn squashed(repo: &Repository, base: Oid, tip: Oid) -> Result<RealChange> {
    let mut walk = repo.revwalk()?;
    walk.push(tip)?;
    walk.hide(base)?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::REVERSE)?;
    let mut commits = Vec::new();
    for oid in walk {
        let commit = repo.find_commit(oid?)?;
        if commit.parent_count() < 2 {
            commits.push(commit);
        }
    }
    let tip_commit = repo.find_commit(tip)?;
    let newest = commits.last().unwrap_or(&tip_commit);
    if commits.len() <= 1 {
        return Ok(RealChange::of(newest, message_of(newest)));
    }
    let summary = |c: &git2::Commit| String::from_utf8_lossy(c.summary_bytes().unwrap_or_default()).into_owned();
    let mut message = summary(newest);
    message.push('\n');
    for commit in &commits {
        message.push_str(&format!("\n* {}", summary(commit)));
    }
    Ok(RealChange::of(newest, message))
}
