//! The dataset format (version 2): per version `manifest.json`, and per task
//! `task.json` (what an agent-facing consumer may see), `repo.bundle` (branches base,
//! ours, theirs), `solution.json` (gold text and grader data) and `solution.bundle`
//! (branch gold, the merge of ours and theirs).
//!
//! This stage owns ids, records, bundle bytes and writing and reading a version. It
//! takes validated, levelled tasks and never runs tests.

pub mod dataset;
pub(crate) mod gitbundle;
pub(crate) mod manifest;
pub(crate) mod patterns;
pub(crate) mod record;
pub(crate) mod schemas;
pub mod solution;
pub mod task;
pub(crate) mod version;

pub(crate) use manifest::Manifest;
pub use record::TaskFiles;
pub(crate) use solution::Solution;
pub use task::Task;
pub(crate) use version::StoredVersion;

use crate::forge::commits::TaskCommits;
use crate::snapshot::sha256_hex;

/// A stable, content-derived task id: `<substrate>-<10 hex>`, the hex from the
/// substrate tree and the four commit ids (which fix every byte of the task). It names
/// no family: an id must not tell an agent what kind of task it is.
pub(crate) fn task_id(substrate: &str, substrate_tree: &str, commits: &TaskCommits) -> String {
    let digest = sha256_hex(
        format!("{substrate_tree}:{}:{}:{}:{}", commits.base, commits.ours, commits.theirs, commits.gold).as_bytes(),
    );
    format!("{}-{}", sanitize(substrate), &digest[..10])
}

fn sanitize(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c.to_ascii_lowercase() } else { '-' }).collect()
}
