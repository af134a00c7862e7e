//! What a family implements and builds: the [`FamilyBuilder`] contract, the
//! [`Recipe`]s it proposes and the [`Proposal`] a recipe builds (four snapshots, each
//! side's [`Intent`]), the [`SideRule`] the tests must follow, and the seeded ranks and
//! coins that order candidates and pick sides.
//!
//! The family files and their catalogue depend on this file; it depends on none of them.

use sha2::{Digest, Sha256};

use super::messages;
use crate::mutate::Mutation;
use crate::python::PyModule;
use crate::snapshot::Snapshot;
use crate::substrate::Substrate;

/// The family's requirement on the `ours` and `theirs` commits' test outcomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SideRule {
    /// Repair group: each side is a partial repair of a broken base; both fail.
    BothFail,
    /// Repair group: one side is right, the other wrong; exactly one passes.
    ExactlyOnePasses,
    /// Integration group: base works and each side is a valid change that passes its
    /// own suite (its own new tests included); the conflict comes from combining them.
    BothPass,
    /// Real history (merge-replay): base, ours and theirs are what the project's history
    /// holds; their verdicts are recorded, not required.
    Recorded,
}

impl SideRule {
    /// What the rule requires of `ours` and `theirs` taken alone, in a few words.
    pub(crate) fn requirement(self) -> &'static str {
        match self {
            SideRule::BothFail => "each must fail",
            SideRule::ExactlyOnePasses => "exactly one must pass",
            SideRule::BothPass => "each must pass its own suite",
            SideRule::Recorded => "recorded, not required",
        }
    }
}

/// The groups of families.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub(crate) enum Group {
    /// Base is broken by mutations; each side is a partial or competing repair.
    Repair,
    /// Base works; each side is a valid change (a feature with its tests, a refactor)
    /// and the conflict comes from combining them.
    Integration,
    /// Made from a project's own history: its real commits and merges (published as the
    /// `real` config; a curriculum refill never regenerates them).
    History,
}

impl Group {
    /// Whether a clean merge of the sides may still be a task (a semantic conflict: the
    /// tests decide): two valid changes can break each other without a marker.
    pub(crate) fn allows_clean_merge(self) -> bool {
        self != Group::Repair
    }
}

/// A proposed task, before merging and validation, as its family's recipe builds it
/// (the family itself is added by [`crate::forge::ordered_candidates`]).
#[derive(Debug, Clone)]
pub struct Proposal {
    /// Stable identity of the recipe (paths, operators, offsets); orders candidates.
    pub key: String,
    pub base: Snapshot,
    pub ours: Snapshot,
    pub theirs: Snapshot,
    pub gold: Snapshot,
    /// The mutations the recipe used.
    pub mutations: Vec<Mutation>,
    /// One line on what the sides do and how they combine (for dataset maintainers: it
    /// states the resolution, so it never reaches an agent).
    pub summary: String,
    /// What `ours` changes, as its developer meant it.
    pub ours_intent: Intent,
    /// What `theirs` changes, as its developer meant it.
    pub theirs_intent: Intent,
    /// The real commits the task was made from (history families only).
    pub origin: Option<crate::substrate::history::RealOrigin>,
}

/// One side's own change: its commit message and the mutations it is about.
#[derive(Debug, Clone)]
pub struct Intent {
    /// The side's commit message (one line): its own change, never the resolution or
    /// the family ([`super::messages`]).
    pub message: String,
    /// The mutations the change concerns: those it undoes, or for divergent-edit's
    /// other side, the one it makes in place of base's (repair group).
    pub mutations: Vec<Mutation>,
    /// The intents the side makes, in order (integration group).
    pub changes: Vec<crate::intent::Site>,
    /// The real author of the side's commit (history families); `None`: mergeforge's
    /// own fixed signature.
    pub author: Option<crate::substrate::history::Author>,
}

impl Intent {
    /// The change that undoes `mutations` (the first one names it).
    pub(crate) fn undoing(mutations: &[&Mutation]) -> Intent {
        let message = mutations.first().map(|m| messages::undo(m)).unwrap_or_default();
        Intent {
            message,
            mutations: mutations.iter().map(|m| (*m).clone()).collect(),
            changes: Vec::new(),
            author: None,
        }
    }

    /// The change that makes `sites` in order. Its message is the first site's, and
    /// with more than one, a body listing the others (`- Rename ...`) after a blank line.
    pub(crate) fn making(sites: Vec<crate::intent::Site>) -> Intent {
        let mut message = sites.first().map(|s| s.message()).unwrap_or_default();
        if sites.len() > 1 {
            message.push('\n');
            for site in &sites[1..] {
                message.push_str(&format!("\n- {}", site.message()));
            }
        }
        Intent { message, mutations: Vec::new(), changes: sites, author: None }
    }

    /// A real side's change: its commits' message and author.
    pub(crate) fn real(change: crate::substrate::history::RealChange) -> Intent {
        Intent { message: change.message, mutations: Vec::new(), changes: Vec::new(), author: Some(change.author) }
    }
}

/// What families see of a substrate.
pub(crate) struct ForgeInput<'a> {
    pub(crate) substrate: &'a Substrate,
    /// Parsed mutable sources, sorted by path.
    pub(crate) modules: &'a [PyModule],
    /// Every mutation of every module, per module (same order as `modules`).
    pub(crate) mutations: &'a [Vec<Mutation>],
    /// The coverage map of HEAD, when the run made one (intents read which tests need
    /// a unit from it).
    pub(crate) coverage: Option<&'a crate::pytest::select::CoverageMap>,
    /// The substrate's test runner, when the run has one (intents that find their tests
    /// by a run: `branch`).
    pub(crate) probe: Option<&'a dyn crate::intent::Probe>,
    /// Every intent kind's sites at HEAD, found once ([`ForgeInput::site_table`]; empty
    /// when no family reads them).
    pub(crate) site_table: &'a crate::intent::SiteTable,
    /// The substrate's history, when the run reads it (`history = N`): what the history
    /// families make tasks of.
    pub(crate) history: Option<&'a crate::substrate::history::HistoryScan>,
    pub(crate) seed: u64,
}

impl<'a> ForgeInput<'a> {
    /// What intents see of the substrate at HEAD.
    pub(crate) fn workspace(&self) -> crate::intent::Workspace<'a> {
        workspace(self.substrate, self.modules, self.coverage, self.probe)
    }

    /// The sites of `kind` at HEAD.
    pub(crate) fn sites(&self, kind: crate::intent::Kind) -> &'a [crate::intent::Site] {
        self.site_table.get(kind)
    }

    /// Every intent kind's sites on a substrate (the table a [`ForgeInput`] reads).
    pub(crate) fn site_table(
        substrate: &Substrate,
        modules: &[PyModule],
        coverage: Option<&crate::pytest::select::CoverageMap>,
        probe: Option<&dyn crate::intent::Probe>,
    ) -> crate::intent::SiteTable {
        crate::intent::SiteTable::find(&workspace(substrate, modules, coverage, probe))
    }
}

/// What intents see of a substrate at HEAD.
fn workspace<'a>(
    substrate: &'a Substrate,
    modules: &'a [PyModule],
    coverage: Option<&'a crate::pytest::select::CoverageMap>,
    probe: Option<&'a dyn crate::intent::Probe>,
) -> crate::intent::Workspace<'a> {
    crate::intent::Workspace { tree: &substrate.files, modules, coverage, probe }
}

/// A candidate not built yet: its key orders it, `build` makes it (or `None` when an
/// edited file would not parse). Building is the expensive part, so only the candidates
/// that are actually tried get built.
pub(crate) struct Recipe<'a> {
    pub(crate) key: String,
    pub(crate) build: Box<dyn Fn() -> Option<Proposal> + Send + Sync + 'a>,
}

/// A family: one small type in its own file, listed once in the catalogue of
/// `forge::families`, which makes the `Family` enum from that list. Every item is required:
/// a family without one does not compile.
pub(crate) trait FamilyBuilder: Sync + Send {
    /// What the tests must say about the two sides taken alone.
    fn side_rule(&self) -> SideRule;
    /// One sentence on how the family makes a task, for the dataset card.
    fn description(&self) -> &'static str;
    /// Every candidate this family can make, as recipes, in any order (the caller orders them).
    fn recipes<'a>(&self, input: &ForgeInput<'a>) -> Vec<Recipe<'a>>;
    /// Whether `gen-tasks` uses the family when `--families` is not given.
    fn in_default_mix(&self) -> bool {
        true
    }
    /// Whether a default-mix run caps the family's semantic and mixed tasks (at a
    /// quarter of the kept tasks): true where a break outside the markers is a mechanical
    /// leftover (a name the merge did not carry), false where it is the task's point.
    fn caps_breaks_outside_markers(&self) -> bool {
        true
    }
    /// The family's group: by default the one its side rule implies.
    fn group(&self) -> Group {
        match self.side_rule() {
            SideRule::BothPass => Group::Integration,
            SideRule::BothFail | SideRule::ExactlyOnePasses => Group::Repair,
            SideRule::Recorded => Group::History,
        }
    }
}

/// The rank of a key under a seed: hex sha256(seed ‖ key).
pub(crate) fn seeded_rank(seed: u64, key: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(seed.to_le_bytes());
    hasher.update(key.as_bytes());
    crate::snapshot::hex(&hasher.finalize())
}

/// A deterministic coin for a key under a seed (e.g. which side gets which change).
///
/// It hashes the key under its own domain: the candidates tried first are those with the
/// smallest [`seeded_rank`], so a coin read off that same hash would land the same way
/// for nearly all of them (it once put the correct change on `ours` in every kept task).
pub(crate) fn seeded_coin(seed: u64, key: &str) -> bool {
    let mut hasher = Sha256::new();
    hasher.update(seed.to_le_bytes());
    hasher.update(b"side-coin|");
    hasher.update(key.as_bytes());
    hasher.finalize()[0] & 1 == 0
}
