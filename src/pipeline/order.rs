//! The global order of a run's candidates: one list of (cell, index in cell) that
//! judging, selection, sharding and merging all follow, so that the result never
//! depends on `--jobs`, on timing or on how the work was split.

use crate::difficulty::quota::Quotas;

/// What decides which kept candidates become tasks.
#[derive(Clone, Copy)]
pub(crate) enum Goal<'a> {
    /// The first `n` tasks of each cell, cells in order.
    PerCell(usize),
    /// Tasks while a quota wants them, one candidate of each cell in turn.
    Quotas(&'a Quotas),
}

/// The global order of candidates for `goal`, as (cell, index in cell), given each
/// cell's number of candidates: cell after cell for [`Goal::PerCell`], one candidate of
/// each cell in turn for [`Goal::Quotas`]. Shards split this order; merging replays it.
pub(crate) fn global_order(cell_sizes: &[usize], goal: Goal) -> Vec<(usize, usize)> {
    match goal {
        Goal::PerCell(_) => cell_sizes.iter().enumerate().flat_map(|(c, n)| (0..*n).map(move |k| (c, k))).collect(),
        Goal::Quotas(_) => {
            let longest = cell_sizes.iter().copied().max().unwrap_or(0);
            (0..longest)
                .flat_map(|k| cell_sizes.iter().enumerate().filter(move |(_, n)| k < **n).map(move |(c, _)| (c, k)))
                .collect()
        }
    }
}
