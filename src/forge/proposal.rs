//! What a family implements and builds: the [`FamilyBuilder`] contract, the
//! [`Recipe`]s it proposes and the [`Proposal`] a recipe builds (four snapshots, each
//! side's [`Intent`]), the [`SideRule`] the tests must follow, and the seeded ranks and
//! coins that order candidates and pick sides.
//!
//! The family files and their catalogue depend on this file; it depends on none of them.

use sha2::{Digest, Sha256};

use super::messages;
use crate::intent::Kind;
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
    /// Where a change of one side reaches the other side's new code (integration group;
    /// empty elsewhere): the interaction graph gold resolves.
    pub interactions: Vec<Interaction>,
}

/// A change (a refactor or a contract change) of one side reaching new code of the other
/// side's feature: gold adapts that code to the change.
#[derive(Debug, Clone)]
pub struct Interaction {
    /// Whether the change is ours' (else theirs').
    pub ours: bool,
    pub change: crate::intent::Site,
    pub feature: crate::intent::Site,
    /// Gold with this one adaptation reverted (the feature written against the name or
    /// contract before the change), to witness the edge: it must fail the judgement.
    /// `None` when it is not made (the revert does not merge cleanly, or the task is
    /// small and its edges are not witnessed).
    pub reverted: Option<Snapshot>,
}

/// One side's own change: its commits' messages and the mutations or intents it is about.
///
/// A side is a branch of one or more commits, one intent per commit: the side's tree
/// (the proposal's `ours` or `theirs`) is its last commit's; `earlier` holds the commits
/// before it, oldest first.
#[derive(Debug, Clone)]
pub struct Intent {
    /// The side's last commit's message: its own change, never the resolution or the
    /// family ([`super::messages`]).
    pub message: String,
    /// The mutations the change concerns: those it undoes, or for divergent-edit's
    /// other side, the one it makes in place of base's (repair group).
    pub mutations: Vec<Mutation>,
    /// The intents the side makes, in order (integration group).
    pub changes: Vec<crate::intent::Site>,
    /// The side's commits before its last, oldest first (empty: the side is one commit).
    pub earlier: Vec<Step>,
    /// The real author and date of the side's commit (history families); `None`: drawn
    /// from the task's key ([`super::authorship`]).
    pub(crate) author: Option<super::authorship::Stamp>,
}

/// One of a side's commits before its last: its tree and its message.
#[derive(Debug, Clone)]
pub struct Step {
    pub tree: Snapshot,
    pub message: String,
}

impl Intent {
    /// The change that undoes `mutations` (the first one names it).
    pub(crate) fn undoing(mutations: &[&Mutation]) -> Intent {
        let message = mutations.first().map(|m| messages::undo(m)).unwrap_or_default();
        Intent::one_commit(message, mutations.iter().map(|m| (*m).clone()).collect())
    }

    /// A change of one commit with `message` about `mutations` (repair group).
    pub fn one_commit(message: String, mutations: Vec<Mutation>) -> Intent {
        Intent { message, mutations, changes: Vec::new(), earlier: Vec::new(), author: None }
    }

    /// The change that makes `sites` in order, one commit each: `trees` are the trees
    /// of the commits before the last (one fewer than the sites), each commit's message
    /// its site's.
    pub(crate) fn making(sites: Vec<crate::intent::Site>, trees: Vec<Snapshot>) -> Intent {
        debug_assert_eq!(trees.len() + 1, sites.len().max(1));
        let earlier =
            trees.into_iter().zip(&sites).map(|(tree, site)| Step { tree, message: site.message() }).collect();
        let message = sites.last().map(|s| s.message()).unwrap_or_default();
        Intent { message, mutations: Vec::new(), changes: sites, earlier, author: None }
    }

    /// A real side's change: its commits' message, author and date.
    pub(crate) fn real(change: crate::substrate::history::RealChange) -> Intent {
        let author = super::authorship::Stamp {
            name: change.author.name,
            email: change.author.email,
            time: change.time,
            offset: change.offset,
        };
        Intent {
            message: change.message,
            mutations: Vec::new(),
            changes: Vec::new(),
            earlier: Vec::new(),
            author: Some(author),
        }
    }

    /// Every commit's message, oldest first.
    pub(crate) fn messages(&self) -> impl Iterator<Item = &str> {
        self.earlier.iter().map(|s| s.message.as_str()).chain(std::iter::once(self.message.as_str()))
    }

    /// How many commits the side has.
    pub(crate) fn commit_count(&self) -> usize {
        self.earlier.len() + 1
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
    /// The scale of task the run asks for: families that deal several pairs into one
    /// task make only tasks of that scale; small is what they make pair by pair.
    pub(crate) scale: crate::difficulty::Scale,
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
    /// The kinds of the intents it combines, one per intent (none for the repair and
    /// history families): the candidates of a cell are dealt by them
    /// (`forge::ordered_candidates`), so that rare kinds are tried early.
    pub(crate) kinds: Vec<Kind>,
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
    /// Whether the family deals several (feature, change) pairs into one task when a run
    /// asks for medium or large tasks (`gen-tasks --scale`); others make small ones only.
    fn deals_branches(&self) -> bool {
        false
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
