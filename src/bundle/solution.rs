//! `solution.json`: what graders and dataset maintainers need of a task and an agent
//! must not see: gold text, the summary, each side's intent, the validation outcomes
//! and the features behind the score (schema `schemas/solution.schema.json`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::difficulty::Features;
use crate::validate::Validation;

pub(crate) const SOLUTION_SCHEMA: &str = "mergeforge.solution/2";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "mergeforge solution (solution.json)")]
pub struct Solution {
    /// Always `mergeforge.solution/2`.
    #[schemars(extend("const" = SOLUTION_SCHEMA))]
    pub(crate) schema: String,
    /// The task's id (as in `task.json`).
    #[schemars(pattern(crate::bundle::patterns::TASK_ID))]
    pub(crate) id: String,
    /// One line on what the sides do and how the gold merge combines them.
    pub summary: String,
    /// Commit ids of base, ours and theirs (in `repo.bundle`) and gold (in `solution.bundle`).
    pub commits: Commits,
    /// Conflicted (as merged) and gold text of every file where they differ.
    pub files: Vec<FileRecord>,
    /// Files the gold merge changes although git merged them without conflict.
    pub(crate) edits_outside_conflicts: Vec<String>,
    /// Each side's own change.
    pub(crate) intents: Intents,
    /// The interaction graph gold resolves: each change of one side reaching a feature
    /// of the other (absent when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) interactions: Vec<InteractionRecord>,
    /// Test outcomes on every tree that decided the task.
    pub validation: Validation,
    /// What the difficulty score is computed from.
    pub features: Features,
    /// The per-task check of the environment's grader, made at generation (absent only
    /// on a task still being checked): every baseline agent's episode score, and the
    /// test ids the grader requires (those passing on gold).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grader: Option<GraderCheck>,
    /// The real commits a task of a history family was made from (absent on generated
    /// tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) origin: Option<crate::substrate::history::RealOrigin>,
}

/// The environment's grader checked on one task (the OpenEnv validation proposal's rule):
/// `gold` reaches the maximum reward; every other baseline agent earns at most a quarter
/// of it unless it solves the task. Made by `mergeforge::env::check`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraderCheck {
    /// Each baseline agent's episode (`mergeforge eval --agent`), in `eval`'s agent order.
    pub(crate) agents: Vec<AgentScore>,
    /// Test ids (pytest node ids) that pass on gold, sorted: a graded tree must pass each
    /// (empty when the test command is not pytest: then its exit status decides).
    pub gold_passing: Vec<String>,
}

/// One baseline agent's episode on the task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AgentScore {
    /// The agent's name (`mergeforge eval --agent`).
    pub(crate) agent: String,
    /// The episode's total reward as a share of the task's maximum, rounded to 3 places
    /// (below 0 where the agent's edits cost more than they earned).
    pub(crate) share: f64,
    /// The graded tests passed with no conflict marker left.
    pub(crate) solved: bool,
}

/// Commit ids (40 hex) of the task's branches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Commits {
    /// The branch point, a root commit.
    #[schemars(pattern(crate::bundle::patterns::COMMIT_ID))]
    pub base: String,
    /// One side.
    #[schemars(pattern(crate::bundle::patterns::COMMIT_ID))]
    pub ours: String,
    /// The other side.
    #[schemars(pattern(crate::bundle::patterns::COMMIT_ID))]
    pub theirs: String,
    /// The verified merge of ours and theirs.
    #[schemars(pattern(crate::bundle::patterns::COMMIT_ID))]
    pub gold: String,
}

/// A file as `git merge` left it and as gold has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileRecord {
    /// Repository-relative path.
    #[schemars(pattern(crate::bundle::patterns::PATH))]
    pub path: String,
    /// The merged text (diff3 markers when it conflicted).
    pub(crate) conflicted: String,
    /// The gold text.
    pub gold: String,
}

/// What each side changes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Intents {
    /// The `ours` side.
    pub(crate) ours: IntentRecord,
    /// The `theirs` side.
    pub(crate) theirs: IntentRecord,
}

impl Intents {
    /// Every intent both sides make, each once, by its site's key (what selection
    /// counts to keep one intent out of too many tasks), sorted.
    pub(crate) fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = [&self.ours, &self.theirs]
            .into_iter()
            .flat_map(|side| &side.changes)
            .map(|c| crate::intent::Site::key_of(c.kind, &c.path, &c.symbol, c.target.as_deref()))
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }
}

/// One side's change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct IntentRecord {
    /// The side's last commit's message.
    pub(crate) message: String,
    /// The side's commits from base to its head, oldest first, one intent each (absent
    /// in versions written before sides had several commits).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) commits: Vec<CommitRecord>,
    /// The mutations the change concerns: those it undoes, or for divergent-edit's
    /// other side, the one it makes in place of base's (repair group).
    pub(crate) mutations: Vec<MutationRecord>,
    /// The intents the side makes, in order (integration group).
    pub(crate) changes: Vec<ChangeRecord>,
    /// The side's real author (history families; absent on generated sides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) author: Option<crate::substrate::history::Author>,
}

/// One intent a side makes (`crate::intent`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ChangeRecord {
    /// The intent kind.
    pub(crate) kind: crate::intent::Kind,
    /// The file holding the symbol (repository-relative).
    #[schemars(pattern(crate::bundle::patterns::PATH))]
    pub(crate) path: String,
    /// The unit it concerns (`func`, `Class.method`, `func.local`).
    pub(crate) symbol: String,
    /// A refactor's new name or destination module.
    pub(crate) target: Option<String>,
    /// A feature's tests (pytest node ids), added with it.
    pub(crate) tests: Vec<String>,
}

impl From<&crate::intent::Site> for ChangeRecord {
    fn from(site: &crate::intent::Site) -> Self {
        ChangeRecord {
            kind: site.kind,
            path: site.path.clone(),
            symbol: site.symbol.clone(),
            target: site.target.clone(),
            tests: site.tests.clone(),
        }
    }
}

/// A mutation (an AST edit) of the substrate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MutationRecord {
    /// The operator's name.
    #[schemars(length(min = 1))]
    pub(crate) operator: String,
    /// Repository-relative path.
    #[schemars(pattern(crate::bundle::patterns::PATH))]
    pub(crate) path: String,
    /// 1-based line where the edit starts.
    #[schemars(range(min = 1))]
    pub(crate) line: usize,
    /// Qualified name of the enclosing function, if any.
    pub(crate) function: Option<String>,
    /// What the mutation does to the original, e.g. "`<` → `<=`".
    pub(crate) description: String,
}

impl From<&crate::mutate::Mutation> for MutationRecord {
    fn from(m: &crate::mutate::Mutation) -> Self {
        MutationRecord {
            operator: m.operator.to_string(),
            path: m.path.clone(),
            line: m.line,
            function: m.function.clone(),
            description: m.description.clone(),
        }
    }
}

/// An edge of the interaction graph: a change of one side reaching new code of a
/// feature of the other side.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct InteractionRecord {
    /// The side making the change: `ours` or `theirs`.
    #[schemars(extend("enum" = ["ours", "theirs"]))]
    pub(crate) side: String,
    /// The change's intent kind (a refactor or a contract change).
    pub(crate) kind: crate::intent::Kind,
    /// The unit the change concerns.
    pub(crate) change: String,
    /// The other side's feature whose code the change reaches.
    pub(crate) feature: String,
    /// Whether gold with this one adaptation reverted fails the judgement (absent: not
    /// checked, as on small tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) witnessed: Option<bool>,
}

impl InteractionRecord {
    pub(crate) fn of(interaction: &crate::forge::proposal::Interaction, witnessed: Option<bool>) -> Self {
        InteractionRecord {
            side: if interaction.ours { "ours" } else { "theirs" }.to_string(),
            kind: interaction.change.kind,
            change: interaction.change.symbol.clone(),
            feature: interaction.feature.symbol.clone(),
            witnessed,
        }
    }
}

/// One commit of a side, as `repo.bundle` holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CommitRecord {
    /// The commit id.
    #[schemars(pattern(crate::bundle::patterns::COMMIT_ID))]
    pub(crate) id: String,
    /// Its message.
    pub(crate) message: String,
    /// Its author (and committer), `Name <email>`.
    pub(crate) author: String,
    /// Its author date: seconds since the epoch.
    pub(crate) time: i64,
    /// The date's zone, minutes east of UTC.
    pub(crate) offset: i32,
}

impl IntentRecord {
    /// `intent`'s record, with the side's commits as written.
    pub(crate) fn of(intent: &crate::forge::Intent, commits: Vec<CommitRecord>) -> Self {
        IntentRecord {
            message: intent.message.clone(),
            commits,
            mutations: intent.mutations.iter().map(Into::into).collect(),
            changes: intent.changes.iter().map(Into::into).collect(),
            author: intent
                .author
                .as_ref()
                .map(|a| crate::substrate::history::Author { name: a.name.clone(), email: a.email.clone() }),
        }
    }
}

impl CommitRecord {
    fn of(commit: &git2::Commit) -> Self {
        let author = commit.author();
        CommitRecord {
            id: commit.id().to_string(),
            message: String::from_utf8_lossy(commit.message_bytes()).into_owned(),
            author: format!("{} <{}>", author.name().unwrap_or_default(), author.email().unwrap_or_default()),
            time: author.when().seconds(),
            offset: author.when().offset_minutes(),
        }
    }

    /// The commits from `head` back to (not including) `base` along first parents,
    /// oldest first.
    pub(crate) fn chain(repo: &git2::Repository, base: git2::Oid, head: git2::Oid) -> anyhow::Result<Vec<Self>> {
        let mut out = Vec::new();
        let mut at = repo.find_commit(head)?;
        while at.id() != base {
            out.push(CommitRecord::of(&at));
            at = at.parent(0)?;
        }
        out.reverse();
        Ok(out)
    }
}
