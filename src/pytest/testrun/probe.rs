//! What the runner answers without judging a tree itself: intents' probe (the tests
//! failing on a tree, from its selected tests) and, for the grader check at generation,
//! whether a tree's failure is already known from the cache.

use super::TestRunner;
use crate::pytest::select::Selection;
use crate::snapshot::{sha256_hex, Snapshot};

impl TestRunner {
    /// Whether this runner's cache holds a failing verdict of `tree` (not a time-out, which
    /// a longer limit might overturn), the run it would make of it now: full or selected.
    /// Nothing runs. How the grader check at generation skips the trees the ladder ran.
    pub(crate) fn known_to_fail(&self, tree: &Snapshot) -> bool {
        let Some(cache) = &self.cache else { return false };
        let key = match self.selection(tree) {
            Selection::Tests(ids) => self.selected_key(tree, &ids),
            Selection::Full(_) => self.suite_key(tree),
        };
        cache.get(&key).is_some_and(|outcome| !outcome.passed && !outcome.timed_out)
    }
}

/// The runner as intents' probe: the tests failing on a tree, from its selected tests
/// (those that ran a function the tree changes) when it has a coverage map, else from
/// the full suite. A selected pass needs no confirmation here (no test that ran the
/// changed code fails: nothing needs it), so the runner's own verdicts are not asked
/// for; its outcome is cached apart from them. A time-out (under the selection's scaled
/// limit) is no answer; a failure naming an order-dependent test falls back to
/// [`TestRunner::run`]'s confirmed verdict.
impl crate::intent::Probe for TestRunner {
    fn failing_tests(&self, tree: &Snapshot) -> Option<Vec<String>> {
        let outcome = match (&self.selector, self.selection(tree)) {
            (Some(selector), Selection::Tests(ids)) => {
                let key = sha256_hex(format!("{}:probe", self.selected_key(tree, &ids)).as_bytes());
                let scaled = selector.index.timeout_for(&ids, self.limits.time_limit);
                let (outcome, _) = self.cached_run(&key, || self.execute_selected(tree, &ids, scaled)).ok()?;
                match selector.order.needs_full_run(&outcome.failed_tests) && !outcome.timed_out {
                    true => self.run(tree).ok()?,
                    false => outcome,
                }
            }
            _ => self.run(tree).ok()?,
        };
        (!outcome.timed_out).then_some(if outcome.passed { Vec::new() } else { outcome.failed_tests })
    }
}
