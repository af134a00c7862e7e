//! Quotas: how many tasks of each level (optionally per family) a run should keep.
//!
//! Written `easy=100,medium=100,hard=100` or per family `compose-edits:hard=10`, and
//! combinable. A task is wanted when at least one quota covers its (family, level) and
//! every quota that covers it still has room; the run is done when every quota is full.
//! So `hard=30` alone keeps only hard tasks, and `hard=30,compose-edits:hard=10` keeps
//! 30 hard tasks of which at most 10 are compose-edits.

use std::collections::BTreeMap;
use std::fmt;

use anyhow::{bail, Context, Result};

use super::Level;
use crate::forge::Family;

/// What one quota counts: a level, or a level within one family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Cell {
    pub(crate) family: Option<Family>,
    pub(crate) level: Level,
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.family {
            Some(family) => write!(f, "{family}:{}", self.level),
            None => f.write_str(self.level.name()),
        }
    }
}

impl Cell {
    fn covers(&self, family: Family, level: Level) -> bool {
        self.level == level && self.family.is_none_or(|f| f == family)
    }
}

/// Target counts per cell.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Quotas {
    pub(crate) targets: BTreeMap<Cell, usize>,
}

/// How far a run got: kept tasks per cell.
#[derive(Debug, Clone, Default)]
pub(crate) struct QuotaState {
    kept: BTreeMap<Cell, usize>,
}

/// A quota that was not met.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shortfall {
    pub(crate) cell: Cell,
    pub(crate) wanted: usize,
    pub(crate) kept: usize,
}

impl fmt::Display for Quotas {
    /// The canonical spelling: cells in order, comma-separated.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.targets.iter().map(|(cell, n)| format!("{cell}={n}")).collect();
        f.write_str(&parts.join(","))
    }
}

impl Quotas {
    /// Parses `[FAMILY:]LEVEL=N[,...]`.
    pub(crate) fn parse(spec: &str) -> Result<Quotas> {
        let mut targets = BTreeMap::new();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (cell, count) = item
                .split_once('=')
                .with_context(|| format!("quota `{item}`: write LEVEL=N or FAMILY:LEVEL=N, e.g. hard=10"))?;
            let count: usize =
                count.trim().parse().with_context(|| format!("quota `{item}`: `{count}` is not a count"))?;
            let (family, level) = match cell.split_once(':') {
                Some((family, level)) => (Some(parse_family(item, family.trim())?), level.trim()),
                None => (None, cell.trim()),
            };
            let Some(level) = Level::parse(level) else {
                bail!("quota `{item}`: unknown level `{level}`; use easy, medium or hard");
            };
            if targets.insert(Cell { family, level }, count).is_some() {
                bail!("quota `{item}`: {} is given twice", Cell { family, level });
            }
        }
        if targets.is_empty() {
            bail!("--quota is empty; write e.g. easy=100,medium=100,hard=100");
        }
        Ok(Quotas { targets })
    }

    /// Whether a task of `family` at `level` is still wanted.
    pub(crate) fn wants(&self, state: &QuotaState, family: Family, level: Level) -> bool {
        let mut covered = false;
        for (cell, target) in &self.targets {
            if cell.covers(family, level) {
                covered = true;
                if state.kept.get(cell).copied().unwrap_or(0) >= *target {
                    return false;
                }
            }
        }
        covered
    }

    /// Whether any task of `family` could still be wanted.
    pub(crate) fn wants_family(&self, state: &QuotaState, family: Family) -> bool {
        Level::ALL.into_iter().any(|level| self.wants(state, family, level))
    }

    /// Counts a kept task.
    pub(crate) fn keep(&self, state: &mut QuotaState, family: Family, level: Level) {
        for cell in self.targets.keys() {
            if cell.covers(family, level) {
                *state.kept.entry(*cell).or_default() += 1;
            }
        }
    }

    /// Whether every quota is full.
    pub(crate) fn met(&self, state: &QuotaState) -> bool {
        self.targets.iter().all(|(cell, n)| state.kept.get(cell).copied().unwrap_or(0) >= *n)
    }

    /// Tasks still wanted, summed over the quotas (overlapping quotas count twice).
    pub(crate) fn outstanding(&self, state: &QuotaState) -> usize {
        self.targets.iter().map(|(cell, n)| n.saturating_sub(state.kept.get(cell).copied().unwrap_or(0))).sum()
    }

    /// The quotas not met, in cell order.
    pub(crate) fn shortfall(&self, state: &QuotaState) -> Vec<Shortfall> {
        self.targets
            .iter()
            .filter_map(|(cell, wanted)| {
                let kept = state.kept.get(cell).copied().unwrap_or(0);
                (kept < *wanted).then_some(Shortfall { cell: *cell, wanted: *wanted, kept })
            })
            .collect()
    }
}

fn parse_family(item: &str, name: &str) -> Result<Family> {
    Family::parse(name).with_context(|| {
        let known: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
        format!("quota `{item}`: unknown family `{name}`; known: {}", known.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_canonically() {
        let q = Quotas::parse(" hard=3, compose-edits:hard=1,easy=2 ").unwrap();
        assert_eq!(q.to_string(), "easy=2,hard=3,compose-edits:hard=1");
        for bad in ["", "hard", "hard=x", "extreme=1", "nope:hard=1", "hard=1,hard=2"] {
            assert!(Quotas::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_covering_quota_must_have_room() {
        let q = Quotas::parse("hard=2,compose-edits:hard=1").unwrap();
        let mut state = QuotaState::default();
        assert!(!q.wants(&state, Family::DivergentEdit, Level::Easy));
        assert!(q.wants(&state, Family::ComposeEdits, Level::Hard));
        q.keep(&mut state, Family::ComposeEdits, Level::Hard);
        assert!(!q.wants(&state, Family::ComposeEdits, Level::Hard));
        assert!(!q.wants_family(&state, Family::ComposeEdits));
        assert!(q.wants(&state, Family::StripRestore, Level::Hard));
        assert!(!q.met(&state));
        assert_eq!(
            q.shortfall(&state),
            vec![Shortfall { cell: Cell { family: None, level: Level::Hard }, wanted: 2, kept: 1 }]
        );
        q.keep(&mut state, Family::StripRestore, Level::Hard);
        assert!(q.met(&state));
    }
}
