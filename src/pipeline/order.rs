//! The global order of a run's candidates: one list of (cell, index in cell) that
//! judging, selection, sharding and merging all follow, so that the result never
//! depends on `--jobs`, on timing or on how the work was split.

use crate::difficulty::quota::Quotas;
use crate::forge::{Family, Group};

/// What decides which kept candidates become tasks.
#[derive(Clone, Copy)]
pub(crate) enum Goal<'a> {
    /// The first `n` tasks of each cell, cells in order.
    PerCell(usize),
    /// Tasks while a quota wants them, one candidate of each cell in turn.
    Quotas(&'a Quotas),
}

/// The global order of candidates for `goal`, as (cell, index in cell), given each
/// cell's number of candidates and family. For [`Goal::PerCell`] the other cells come cell after cell, then the repair
/// cells one candidate of each in turn, so that a run's repair cap (see
/// `accept::REPAIR_SHARE`) is decided once the other tasks are known and spreads over
/// substrates and families; for [`Goal::Quotas`] one candidate of every cell in turn.
/// Shards split this order; merging replays it.
pub(crate) fn global_order(cell_sizes: &[usize], families: &[Family], goal: Goal) -> Vec<(usize, usize)> {
    let cells: Vec<(usize, usize)> = cell_sizes.iter().copied().enumerate().collect();
    match goal {
        Goal::PerCell(_) => {
            let (repairs, others): (Vec<_>, Vec<_>) =
                cells.into_iter().partition(|(c, _)| families[*c].group() == Group::Repair);
            let mut out: Vec<(usize, usize)> = others.iter().flat_map(|&(c, n)| (0..n).map(move |k| (c, k))).collect();
            out.extend(in_turn(&repairs));
            out
        }
        Goal::Quotas(_) => in_turn(&cells),
    }
}

/// One candidate of each of `cells` (cell, size) in turn.
fn in_turn(cells: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let longest = cells.iter().map(|(_, n)| *n).max().unwrap_or(0);
    (0..longest).flat_map(|k| cells.iter().filter(move |(_, n)| k < *n).map(move |&(c, _)| (c, k))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repair_cells_come_last_one_candidate_of_each_in_turn() {
        let families = [Family::StripRestore, Family::FeatureFeature, Family::ComposeEdits, Family::MoveEdit];
        let order = global_order(&[2, 2, 1, 3], &families, Goal::PerCell(4));
        assert_eq!(order, [(1, 0), (1, 1), (3, 0), (3, 1), (3, 2), (0, 0), (2, 0), (0, 1)]);
    }
}
