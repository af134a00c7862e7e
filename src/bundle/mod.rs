//! The dataset format (version 1): `manifest.json`, and per task `task.json` and
//! `repo.bundle` (a plain git bundle with branches base, ours, theirs, gold).
//!
//! This stage owns ids, records, bundle bytes and the atomic write of a version. It
//! takes validated, levelled tasks and never runs tests.

pub mod dataset;
pub mod gitbundle;
pub mod manifest;
pub mod task;

pub use manifest::Manifest;
pub use task::Task;

use crate::forge::commits::TaskCommits;
use crate::forge::Family;
use crate::snapshot::sha256_hex;

/// A stable, content-derived task id: `<substrate>-<family tag>-<10 hex>`, the hex from
/// the substrate tree and the four commit ids (which fix every byte of the task).
pub fn task_id(substrate: &str, substrate_tree: &str, family: Family, commits: &TaskCommits) -> String {
    let digest = sha256_hex(
        format!("{substrate_tree}:{}:{}:{}:{}", commits.base, commits.ours, commits.theirs, commits.gold).as_bytes(),
    );
    format!("{}-{}-{}", sanitize(substrate), family.tag(), &digest[..10])
}

fn sanitize(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c.to_ascii_lowercase() } else { '-' }).collect()
}
