//! `manifest.json`: what a dataset version holds and how it was made
//! (schema `schemas/manifest.schema.json`, generated from these types). Written last: a
//! version directory without a manifest is unfinished.
//!
//! Every reader goes through [`read`], which refuses a version of an older format with
//! one line naming the fix.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::task::ConflictKind;
use crate::difficulty::Level;
use crate::forge::Family;

pub(crate) const MANIFEST_SCHEMA: &str = "mergeforge.manifest/3";

/// A dataset version's table of contents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "mergeforge dataset version (manifest.json)")]
pub(crate) struct Manifest {
    /// Always `mergeforge.manifest/3`.
    #[schemars(extend("const" = MANIFEST_SCHEMA))]
    pub(crate) schema: String,
    /// The dataset's name.
    #[schemars(pattern(crate::bundle::patterns::DATASET))]
    pub(crate) dataset: String,
    /// The version (semver).
    #[schemars(pattern(crate::bundle::patterns::SEMVER))]
    pub(crate) version: String,
    /// The program that wrote the version.
    pub(crate) generator: Generator,
    /// The canonical command line that reproduces this version.
    #[schemars(length(min = 1))]
    pub(crate) command: Vec<String>,
    /// The seed that ordered the candidates.
    pub(crate) seed: u64,
    /// The substrates the tasks come from, in order.
    pub(crate) substrates: Vec<SubstrateEntry>,
    /// The baseline ladder that levelled the tasks: whether every rung ran, and the
    /// versions of the programs it ran.
    pub(crate) ladder: Ladder,
    /// Tasks by level and family.
    pub(crate) counts: Counts,
    /// Every task of the training split.
    pub(crate) tasks: Vec<TaskEntry>,
    /// Tasks a curriculum refresh retired (files under `retired/tasks/<id>/`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(min = 1))]
    pub(crate) retired: Vec<TaskEntry>,
    /// The version a curriculum refresh made this one from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) parent: Option<ParentVersion>,
    /// For a curriculum version: the gen-tasks command line whose substrates, families
    /// and limits refill under-supplied cells (with `seed` instead of its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 2))]
    pub(crate) gen_command: Option<Vec<String>>,
}

/// The version a curriculum refresh started from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ParentVersion {
    /// The parent's version.
    #[schemars(pattern(crate::bundle::patterns::SEMVER))]
    pub(crate) version: String,
    /// sha256 of the parent's `manifest.json` bytes.
    #[schemars(pattern(crate::bundle::patterns::SHA256))]
    pub(crate) manifest_sha256: String,
}

/// A program and its version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Generator {
    /// Its name.
    #[schemars(length(min = 1))]
    pub(crate) name: String,
    /// Its version.
    #[schemars(pattern(crate::bundle::patterns::SEMVER))]
    pub(crate) version: String,
}

/// A substrate the run used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SubstrateEntry {
    /// The substrate's name.
    #[schemars(length(min = 1))]
    pub(crate) name: String,
    /// HEAD commit when the substrate is a git repository, else null.
    #[schemars(pattern(crate::bundle::patterns::COMMIT_ID))]
    pub(crate) commit: Option<String>,
    /// sha256 over the substrate's files (paths and bytes).
    #[schemars(pattern(crate::bundle::patterns::SHA256))]
    pub(crate) tree: String,
    /// Tasks of this version made from it.
    pub(crate) tasks: usize,
    /// The substrate's licence (an SPDX expression such as `MIT`), from its config;
    /// absent when the config names none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub(crate) license: Option<String>,
    /// Where the substrate's code comes from (a URL or a path in the generator's
    /// repository), from its config; absent when the config names none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub(crate) source: Option<String>,
    /// The test ids detection deselected at HEAD (failing or flaky there; a file that
    /// fails to collect is ignored whole); absent when none was.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) deselected: Vec<String>,
}

/// The baseline ladder a run levelled its tasks with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Ladder {
    /// Whether every rung of the resolver catalogue ran (`missing` is empty). When false,
    /// a task may be levelled higher than the full ladder would level it: a missing
    /// rung could have solved it.
    pub(crate) complete: bool,
    /// The rungs that did not run, in ladder order (empty when `complete`).
    pub(crate) missing: Vec<MissingRung>,
    /// The versions of the programs the ladder ran.
    pub(crate) tools: LadderTools,
    /// The agent rung, when the run had one (`gen-tasks --agent-rung`): an external agent
    /// played every task the resolvers left hard, and a task it solved is medium. Absent
    /// when the version was levelled by the resolvers alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) agent: Option<AgentRungEntry>,
}

/// The agent that levelled a version as its ladder's top rung. Only the command's name
/// is recorded, never the command itself (it may carry a key or a path of the user's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AgentRungEntry {
    /// The file name of the command's program (its `argv[0]` without folders), e.g.
    /// `mini-swe-agent`.
    #[schemars(length(min = 1))]
    pub(crate) name: String,
    /// `--agent-label` as given: what the command alone does not say, such as the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub(crate) label: Option<String>,
    /// Tries per task (`--agent-rung-tries`): a task solved in any of them is medium.
    #[schemars(range(min = 1))]
    pub(crate) tries: u32,
}

/// A rung of the ladder that did not run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MissingRung {
    /// The resolver's name.
    #[schemars(length(min = 1))]
    pub(crate) resolver: String,
    /// Why it did not run.
    pub(crate) reason: MissingReason,
}

/// Why a rung of the ladder did not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
#[serde(rename_all = "kebab-case")]
pub(crate) enum MissingReason {
    /// Left out on purpose (`--no-mergiraf` or `MERGEFORGE_MERGIRAF=off`).
    Skipped,
    /// Its program was not found.
    NotFound,
}

/// The versions of the programs the ladder ran, as each reports itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LadderTools {
    /// The first line of `mergiraf --version` (e.g. `mergiraf 0.20.0`); null when the
    /// `mergiraf` rung did not run.
    #[schemars(length(min = 1))]
    pub(crate) mergiraf: Option<String>,
    /// The libgit2 that made the conflicts (linked into mergeforge through git2), e.g.
    /// `1.9.7`.
    #[schemars(length(min = 1))]
    pub(crate) libgit2: String,
    /// The interpreter that ran the tests, as `python --version` prints it (e.g.
    /// `Python 3.12.3`).
    #[schemars(length(min = 1))]
    pub(crate) python: String,
    /// The pytest version the venvs pin (e.g. `8.4.2`).
    #[schemars(length(min = 1))]
    pub(crate) pytest: String,
}

/// Task counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Counts {
    /// Tasks in the training split.
    pub(crate) tasks: usize,
    /// Of those, by level (every level listed).
    #[schemars(extend("required" = ["easy", "medium", "hard"]))]
    pub(crate) by_level: BTreeMap<Level, usize>,
    /// Of those, by family.
    pub(crate) by_family: BTreeMap<Family, usize>,
    /// Of those, by conflict kind (semantic and mixed tasks are reported apart).
    pub(crate) by_conflict_kind: BTreeMap<ConflictKind, usize>,
    /// Of those, by scale (every scale listed).
    #[schemars(extend("required" = ["small", "medium", "large"]))]
    pub(crate) by_scale: BTreeMap<crate::difficulty::Scale, usize>,
    /// Tasks in the retired split (absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    #[schemars(range(min = 1))]
    pub(crate) retired: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A task of the version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TaskEntry {
    /// The task's id (its folder name).
    #[schemars(pattern(crate::bundle::patterns::TASK_ID))]
    pub(crate) id: String,
    /// Its level.
    pub(crate) level: Level,
    /// Its family.
    pub(crate) family: Family,
    /// What kind of conflict its merge leaves.
    pub(crate) conflict_kind: ConflictKind,
    /// How much its branches change.
    pub(crate) scale: crate::difficulty::Scale,
    /// The substrate it was made from.
    #[schemars(length(min = 1))]
    pub(crate) substrate: String,
    /// sha256 of the task's `task.json` bytes.
    #[schemars(pattern(crate::bundle::patterns::SHA256))]
    pub(crate) sha256: String,
}

/// Reads `<dir>/manifest.json` (and its bytes), refusing older formats with one line.
pub(crate) fn read(dir: &Path) -> Result<(Manifest, Vec<u8>)> {
    let path = dir.join("manifest.json");
    let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
    #[derive(Deserialize)]
    struct Schema {
        schema: Option<String>,
    }
    let schema = serde_json::from_slice::<Schema>(&bytes).ok().and_then(|s| s.schema);
    match schema.as_deref() {
        Some(MANIFEST_SCHEMA) => {}
        Some(old) if old.starts_with("mergeforge.manifest/") => bail!(
            "{}: dataset format v{} is no longer read; regenerate it with mergeforge gen-tasks",
            dir.display(),
            old.trim_start_matches("mergeforge.manifest/")
        ),
        _ => bail!("{}: not a mergeforge manifest (no schema {MANIFEST_SCHEMA:?})", path.display()),
    }
    let manifest =
        serde_json::from_slice(&bytes).with_context(|| format!("{}: not a mergeforge manifest", path.display()))?;
    Ok((manifest, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_of_an_older_format_is_refused_with_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let old = r#"{"schema": "mergeforge.manifest/2", "tools": [{"name": "mergiraf", "available": false}]}"#;
        std::fs::write(dir.path().join("manifest.json"), old).unwrap();
        let err = format!("{:#}", read(dir.path()).unwrap_err());
        assert!(
            !err.contains('\n') && err.contains("format v2 is no longer read") && err.contains("regenerate it"),
            "{err}"
        );
    }
}
