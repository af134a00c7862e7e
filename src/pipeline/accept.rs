//! Selection: which judged candidates become tasks. [`Acceptance`] decides verdicts
//! strictly in the global order (per-cell counts or level quotas, near-duplicates and
//! exclusions dropped); an unsharded run and `merge-shards` both feed it.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{bail, Result};

use super::order::Goal;
use crate::bundle::record::TaskFiles;
use crate::bundle::task::ConflictKind;
use crate::difficulty::quota::{QuotaState, Shortfall};
use crate::difficulty::Level;
use crate::forge::{Family, Group};
use crate::substrate::history::{HistoryCounts, Skip};
use crate::validate::Rejection;

/// A judged candidate: kept (a task, not yet selected) or rejected with a reason.
pub(crate) enum Verdict<T> {
    Kept(T),
    Rejected(Rejection),
}

impl<T> Verdict<T> {
    pub(super) fn rejected(reason: Rejection) -> Self {
        Verdict::Rejected(reason)
    }
}

/// What selection needs to know of a kept candidate.
pub(crate) trait Keepable {
    fn id(&self) -> &str;
    /// The near-duplicate fingerprint of its conflict hunks.
    fn fingerprint(&self) -> &str;
    fn level(&self) -> Level;
    fn conflict_kind(&self) -> ConflictKind;
    /// The intents its sides make, each once (none for the repair group).
    fn intents(&self) -> &[String];
}

/// The outcome of selection.
pub(crate) struct Selection<T> {
    /// Kept tasks in global order (before `--max-tasks`).
    pub(crate) accepted: Vec<T>,
    pub(crate) tried: usize,
    pub(crate) rejected: BTreeMap<Rejection, usize>,
    pub(crate) shortfall: Vec<Shortfall>,
    /// Cells left short of `--per-cell` with candidates rejected as `repeated-intent`.
    pub(crate) repeated: Vec<RepeatedCell>,
}

/// A cell that kept fewer tasks than `--per-cell` asked while candidates were rejected
/// for repeating an intent: the variety rule, not the supply of candidates, left it short.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RepeatedCell {
    /// The substrate (an index into the run's substrates).
    pub(crate) substrate: usize,
    pub(crate) family: Family,
    pub(crate) kept: usize,
    pub(crate) wanted: usize,
    /// Its candidates rejected as `repeated-intent`.
    pub(crate) repeated: usize,
}

/// In a run of the default family mix, semantic and mixed tasks are kept while they
/// stay at most one in this many of the kept tasks: they are hard by construction
/// (every mechanical rung leaves the break outside the markers as it is), and a default
/// run of mostly them would say little about merging. A run of chosen families
/// (`--families move-edit`, whose tasks are all mixed) keeps what they make, and so do
/// families whose breaks outside the markers are their point (a contract change the
/// other side's new calls must follow: `FamilyBuilder::caps_breaks_outside_markers`);
/// those are not counted against the cap either.
const SEMANTIC_SHARE: usize = 4;

/// In a run of the default family mix, tasks of the repair group (a base broken by
/// mutations, each side a partial or competing repair: realism a reviewer scores low)
/// are kept while they stay at most one in this many of a substrate's kept tasks (so a
/// run's share holds too, and a run of one substrate keeps what a larger run keeps of
/// it). The global order puts repair cells last, so the cap is decided once the other
/// tasks are known; a repair candidate over it is passed over unjudged. Any other
/// `--families` list (the repair families are the only source of easy tasks) lifts it.
const REPAIR_SHARE: usize = 5;

/// The most kept tasks one intent may be part of (a rename, a branch, a feature): a
/// version whose tasks keep asking for one change varies too little.
const TASKS_PER_INTENT: usize = 3;
/// The most kept tasks two intents may be part of together.
const TASKS_PER_PAIR: usize = 2;

/// How often kept tasks make each intent, and each pair of intents together.
#[derive(Default)]
struct Variety {
    intents: BTreeMap<String, usize>,
    pairs: BTreeMap<(String, String), usize>,
}

impl Variety {
    /// The pairs of `intents` (sorted, distinct).
    fn pairs(intents: &[String]) -> impl Iterator<Item = (String, String)> + '_ {
        intents.iter().enumerate().flat_map(move |(i, a)| intents[i + 1..].iter().map(move |b| (a.clone(), b.clone())))
    }

    /// Whether a task making `intents` would make one of them, or a pair, too often.
    fn repeats(&self, intents: &[String]) -> bool {
        intents.iter().any(|i| self.intents.get(i).copied().unwrap_or(0) >= TASKS_PER_INTENT)
            || Self::pairs(intents).any(|p| self.pairs.get(&p).copied().unwrap_or(0) >= TASKS_PER_PAIR)
    }

    fn keep(&mut self, intents: &[String]) {
        for intent in intents {
            *self.intents.entry(intent.clone()).or_default() += 1;
        }
        for pair in Self::pairs(intents) {
            *self.pairs.entry(pair).or_default() += 1;
        }
    }
}

/// The acceptance state, updated strictly in global order. The one place that decides
/// which verdicts become tasks: an unsharded run feeds it verdicts as workers deliver
/// them, `merge-shards` feeds it the verdicts the shards recorded.
pub(crate) struct Acceptance<'a, T> {
    pub(super) goal: Goal<'a>,
    /// Each cell's family.
    families: Vec<Family>,
    /// Each cell's substrate (an index).
    substrates: Vec<usize>,
    /// Kept tasks and kept repair tasks, by substrate.
    by_substrate: BTreeMap<usize, (usize, usize)>,
    pub(super) per_cell: Vec<usize>,
    pub(super) quota: QuotaState,
    ids: BTreeSet<String>,
    fingerprints: BTreeSet<String>,
    /// Kept tasks whose break lies outside markers (semantic or mixed).
    breaks_outside: usize,
    /// The intents kept tasks make.
    variety: Variety,
    /// Each cell's candidates rejected as `repeated-intent`.
    repeated: Vec<usize>,
    /// Whether [`SEMANTIC_SHARE`] and [`REPAIR_SHARE`] apply (the run uses the default
    /// family mix).
    capped: bool,
    pub(super) selection: Selection<T>,
}

impl<'a, T: Keepable> Acceptance<'a, T> {
    /// Nothing decided yet; cell `c` holds candidates of family `cells[c].1` for
    /// substrate `cells[c].0`.
    pub(crate) fn new(goal: Goal<'a>, cells: &[(usize, Family)], exclude: &Exclusions) -> Self {
        let (substrates, families): (Vec<usize>, Vec<Family>) = cells.iter().copied().unzip();
        let mut mix = families.clone();
        mix.sort();
        mix.dedup();
        let capped = mix == Family::default_mix();
        Acceptance {
            goal,
            per_cell: vec![0; families.len()],
            families,
            substrates,
            by_substrate: BTreeMap::new(),
            quota: QuotaState::default(),
            ids: exclude.ids.clone(),
            fingerprints: exclude.fingerprints.clone(),
            breaks_outside: 0,
            variety: Variety::default(),
            repeated: vec![0; cells.len()],
            capped,
            selection: Selection {
                accepted: Vec::new(),
                tried: 0,
                rejected: BTreeMap::new(),
                shortfall: Vec::new(),
                repeated: Vec::new(),
            },
        }
    }

    /// Whether the cell could still contribute a task.
    pub(super) fn wants_cell(&self, cell: usize) -> bool {
        if self.over_repair_cap(cell) {
            return false;
        }
        match self.goal {
            Goal::PerCell(n) => self.per_cell[cell] < n,
            Goal::Quotas(q) => q.wants_family(&self.quota, self.families[cell]),
        }
    }

    /// Whether keeping one more task of cell `cell` would put its substrate's repair
    /// tasks over [`REPAIR_SHARE`] (in a capped run).
    fn over_repair_cap(&self, cell: usize) -> bool {
        let (kept, repairs) = self.by_substrate.get(&self.substrates[cell]).copied().unwrap_or_default();
        self.capped && self.families[cell].group() == Group::Repair && (repairs + 1) * REPAIR_SHARE > kept + 1
    }

    fn done(&self) -> bool {
        match self.goal {
            Goal::PerCell(_) => false,
            Goal::Quotas(q) => q.met(&self.quota),
        }
    }

    /// Decides `order[cursor..]` in turn while the verdicts are at hand (`take` gives a
    /// candidate's verdict, or `None` if it is not judged yet); candidates of cells that
    /// cannot contribute any more are passed over undecided. Returns true when the goal
    /// is met or the order is exhausted.
    pub(crate) fn advance(
        &mut self,
        order: &[(usize, usize)],
        cursor: &mut usize,
        mut take: impl FnMut(usize, usize) -> Option<Verdict<T>>,
    ) -> bool {
        while *cursor < order.len() && !self.done() {
            let (c, k) = order[*cursor];
            if self.wants_cell(c) {
                let Some(verdict) = take(c, k) else { return false };
                self.decide(c, verdict);
            }
            *cursor += 1;
        }
        true
    }

    fn decide(&mut self, cell: usize, verdict: Verdict<T>) {
        self.selection.tried += 1;
        let kept = match verdict {
            Verdict::Rejected(reason) => {
                *self.selection.rejected.entry(reason).or_default() += 1;
                return;
            }
            Verdict::Kept(kept) => kept,
        };
        if self.ids.contains(kept.id()) || self.fingerprints.contains(kept.fingerprint()) {
            *self.selection.rejected.entry(Rejection::NearDuplicate).or_default() += 1;
            return;
        }
        let (family, level) = (self.families[cell], kept.level());
        let wanted = match self.goal {
            Goal::PerCell(n) => self.per_cell[cell] < n,
            Goal::Quotas(q) => q.wants(&self.quota, family, level),
        };
        if !wanted {
            return;
        }
        if self.variety.repeats(kept.intents()) {
            *self.selection.rejected.entry(Rejection::RepeatedIntent).or_default() += 1;
            self.repeated[cell] += 1;
            return;
        }
        let outside = kept.conflict_kind() != ConflictKind::Textual && family.caps_breaks_outside_markers();
        if self.capped && outside && (self.breaks_outside + 1) * SEMANTIC_SHARE > self.selection.accepted.len() + 1 {
            *self.selection.rejected.entry(Rejection::SemanticCap).or_default() += 1;
            return;
        }
        self.breaks_outside += usize::from(outside);
        self.variety.keep(kept.intents());
        let counts = self.by_substrate.entry(self.substrates[cell]).or_default();
        counts.0 += 1;
        counts.1 += usize::from(family.group() == Group::Repair);
        if let Goal::Quotas(q) = self.goal {
            q.keep(&mut self.quota, family, level);
        }
        self.per_cell[cell] += 1;
        self.ids.insert(kept.id().to_string());
        self.fingerprints.insert(kept.fingerprint().to_string());
        self.selection.accepted.push(kept);
    }

    /// The selection, with the quotas' shortfall or the cells the variety rule left short.
    pub(crate) fn finish(mut self) -> Selection<T> {
        match self.goal {
            Goal::Quotas(q) => self.selection.shortfall = q.shortfall(&self.quota),
            Goal::PerCell(wanted) => {
                self.selection.repeated = (0..self.families.len())
                    .filter(|&c| self.per_cell[c] < wanted && self.repeated[c] > 0)
                    .map(|c| RepeatedCell {
                        substrate: self.substrates[c],
                        family: self.families[c],
                        kept: self.per_cell[c],
                        wanted,
                        repeated: self.repeated[c],
                    })
                    .collect();
            }
        }
        self.selection
    }
}

/// Refuses a run that kept no task, naming what the candidates were rejected for.
pub(crate) fn ensure_tasks(
    tasks: usize,
    tried: usize,
    rejected: &BTreeMap<Rejection, usize>,
    history: &HistoryCounts,
) -> Result<()> {
    if tasks > 0 {
        return Ok(());
    }
    let reasons: Vec<String> = rejected.iter().map(|(r, n)| format!("{} {n}", r.name())).collect();
    let rejected = if reasons.is_empty() { "none".to_string() } else { reasons.join(", ") };
    if history.considered == 0 {
        bail!(
            "no candidate became a task ({tried} tried; rejected: {rejected}); try more --candidates-per-cell, other --families or a substrate with stricter tests"
        );
    }
    let mut skipped: Vec<(&Skip, &usize)> = history.skipped.iter().filter(|(_, n)| **n > 0).collect();
    skipped.sort_by_key(|(skip, n)| (std::cmp::Reverse(**n), **skip));
    let skipped: Vec<String> = skipped.iter().map(|(skip, n)| format!("{skip} {n}")).collect();
    bail!(
        "no candidate became a task ({} read: {}, {}; skipped: {}; {tried} candidates tried; rejected: {rejected}); try a deeper --history, or a substrate.toml whose python, python_deps and test_command fit the older commits",
        counted(history.considered, "commit", "commits"),
        counted(history.commits, "gold patch", "gold patches"),
        counted(history.merges, "replayable merge", "replayable merges"),
        if skipped.is_empty() { "none".to_string() } else { skipped.join(", ") },
    );
}

/// `1 gold patch`, `2 gold patches`.
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Tasks new ones must not repeat: by id, or by near-duplicate fingerprint.
#[derive(Debug, Clone, Default)]
pub(crate) struct Exclusions {
    pub(crate) ids: BTreeSet<String>,
    pub(crate) fingerprints: BTreeSet<String>,
}

impl Exclusions {
    /// Excludes `task` and its near-duplicates.
    pub(crate) fn add(&mut self, task: &TaskFiles) {
        self.ids.insert(task.task.id.clone());
        self.fingerprints.insert(task.fingerprint());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::order::global_order;

    /// A kept candidate: its id is its fingerprint, then the intents it makes.
    struct Kept(String, Vec<String>);

    impl Keepable for Kept {
        fn intents(&self) -> &[String] {
            &self.1
        }
        fn id(&self) -> &str {
            &self.0
        }
        fn fingerprint(&self) -> &str {
            &self.0
        }
        fn level(&self) -> Level {
            Level::Medium
        }
        fn conflict_kind(&self) -> ConflictKind {
            ConflictKind::Textual
        }
    }

    /// What a run keeps from `cells` (substrate, family) of ten candidates each, every
    /// candidate kept by the judge; each kept one named `cell-index`.
    fn kept(cells: &[(usize, Family)]) -> Vec<Kept> {
        let families: Vec<Family> = cells.iter().map(|(_, f)| *f).collect();
        let order = global_order(&vec![10; cells.len()], &families, Goal::PerCell(10));
        let mut state = Acceptance::new(Goal::PerCell(10), cells, &Exclusions::default());
        let mut cursor = 0;
        assert!(state.advance(&order, &mut cursor, |c, k| Some(Verdict::Kept(Kept(format!("{c}-{k}"), Vec::new())))));
        state.finish().accepted
    }

    /// The families of the tasks a run of one substrate keeps from `families`' cells.
    fn kept_families(families: Vec<Family>) -> Vec<Family> {
        let cells: Vec<(usize, Family)> = families.iter().map(|f| (0, *f)).collect();
        kept(&cells).iter().map(|kept| families[kept.0.split('-').next().unwrap().parse::<usize>().unwrap()]).collect()
    }

    #[test]
    fn the_default_mix_keeps_repairs_to_a_fifth_spread_over_their_cells() {
        let kept = kept_families(Family::default_mix());
        let repairs: Vec<Family> = kept.iter().copied().filter(|f| f.group() == Group::Repair).collect();
        assert_eq!(kept.len() - repairs.len(), 40, "four integration cells of ten");
        assert_eq!(repairs.len(), 10, "{kept:?}");
        for family in [Family::StripRestore, Family::DivergentEdit, Family::ComposeEdits] {
            assert!(repairs.iter().filter(|f| **f == family).count() >= 3, "{repairs:?}");
        }
    }

    #[test]
    fn the_cap_holds_per_substrate() {
        // Substrate 0 has only repair cells; substrate 1 four integration cells too.
        let mut cells: Vec<(usize, Family)> = Family::default_mix().into_iter().map(|f| (1, f)).collect();
        cells.insert(0, (0, Family::StripRestore));
        let kept = kept(&cells);
        assert!(kept.iter().all(|k| !k.0.starts_with("0-")), "substrate 0 has no integration task");
        assert_eq!(kept.len(), 50);
    }

    #[test]
    fn another_mix_keeps_every_repair() {
        let kept = kept_families(vec![Family::StripRestore, Family::FeatureFeature]);
        assert_eq!(kept.len(), 20);
    }

    #[test]
    fn a_cell_the_variety_rule_leaves_short_is_reported() {
        // One feature-feature cell of six candidates, every one pairing `a` with another
        // intent: three are kept, the rest repeat `a`.
        let cells = [(0, Family::FeatureFeature)];
        let order = global_order(&[6], &[Family::FeatureFeature], Goal::PerCell(5));
        let mut state = Acceptance::new(Goal::PerCell(5), &cells, &Exclusions::default());
        let mut cursor = 0;
        let making = |k: usize| Kept(format!("t{k}"), vec!["a".to_string(), format!("b{k}")]);
        assert!(state.advance(&order, &mut cursor, |_, k| Some(Verdict::Kept(making(k)))));
        let selection = state.finish();
        assert_eq!(selection.accepted.len(), 3);
        assert_eq!(selection.rejected.get(&Rejection::RepeatedIntent), Some(&3));
        assert_eq!(
            selection.repeated,
            vec![RepeatedCell { substrate: 0, family: Family::FeatureFeature, kept: 3, wanted: 5, repeated: 3 }]
        );
    }

    #[test]
    fn an_intent_joins_at_most_three_tasks_and_a_pair_two() {
        let mut variety = Variety::default();
        let task = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<String>>();
        for intents in [task(&["a", "b"]), task(&["a", "b"])] {
            assert!(!variety.repeats(&intents));
            variety.keep(&intents);
        }
        assert!(variety.repeats(&task(&["a", "b"])), "a pair in a third task");
        assert!(!variety.repeats(&task(&["a", "c"])));
        variety.keep(&task(&["a", "c"]));
        assert!(variety.repeats(&task(&["a", "d"])), "an intent in a fourth task");
        assert!(!variety.repeats(&task(&["b", "d"])));
        assert!(!variety.repeats(&[]), "a repair task makes no intent");
    }
}
