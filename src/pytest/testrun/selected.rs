//! Selected runs and their confirmations ([`super::super::confirm`]): a selected run's
//! verdict, confirmed where a selected run cannot vouch for it (a pass, a scaled time-out,
//! a failure of an order-dependent test), and the verdict of a tree whose failure would
//! reject a candidate ([`TestRunner::run_deciding`]), where a selected failure that stood
//! is confirmed too.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{Context, Result};

use super::{write_selection, Outcome, PluginMode, Serving, TestRunner, FAST_TRACEBACKS, MISMATCH_FILE};
use crate::pytest::confirm::{self, Confirmation};
use crate::pytest::forkserver::{ChildMode, RunHooks};
use crate::pytest::select::{self, Selection};
use crate::sandbox::{Limits, RunOutput};
use crate::snapshot::{content_id, sha256_hex, Snapshot};

impl TestRunner {
    /// The verdict of `tree` where a failure rejects a candidate (a base or a side that
    /// must pass, both sides of a family where one must pass, a time-out or memory error
    /// that rejects): [`TestRunner::run`]'s, except that a selected failure that stood
    /// unconfirmed is confirmed by a full run (`selected-fail`), whose outcome is the
    /// verdict. A selected run starts from a tree HEAD's coverage map was not built on,
    /// so its failure may be the selection's own (state an unselected test leaves, a
    /// subprocess or a timing test under another load); the full suite's is the verdict
    /// `--selection full` gives. The confirmed verdict is cached apart from the selected
    /// one (first writer wins, as for every entry), with `"confirmed": ["selected-fail"]`.
    pub fn run_deciding(&self, tree: &Snapshot) -> Result<Outcome> {
        let Selection::Tests(ids) = self.selection(tree) else { return self.run(tree) };
        let (outcome, confirmed) = self.run_selected(tree, &ids)?;
        if outcome.passed || !confirmed.is_empty() {
            return Ok(outcome);
        }
        let key = self.deciding_key(tree, &ids);
        if let Some(decided) = self.cache.as_ref().and_then(|c| c.get(&key)) {
            return Ok(decided);
        }
        let (full, ran) = self.run_suite(tree, Serving::SwapOrFresh)?;
        if confirm::overturns(&outcome, &full) {
            log::info!(
                "a selected failure ({}) passes in the full suite: the full suite's verdict is used",
                outcome.failed_tests.join(", ")
            );
        }
        let decided = self.confirmed_by(Confirmation::SelectedFail, &outcome, full, ran);
        match &self.cache {
            Some(cache) => cache.put_confirmed(&key, decided, &[Confirmation::SelectedFail]),
            None => Ok(decided),
        }
    }

    /// The verdict of `ids` on `tree`, confirmed as it needs, with the confirmations it
    /// needed (or the cached verdict, whose entry lists them).
    pub(super) fn run_selected(&self, tree: &Snapshot, ids: &[String]) -> Result<(Outcome, Vec<Confirmation>)> {
        let key = self.selected_key(tree, ids);
        if let Some(verdict) = self.cache.as_ref().and_then(|c| c.get_verdict(&key)) {
            return Ok(verdict);
        }
        let (outcome, confirmed) = self.judge_selected(tree, ids)?;
        match &self.cache {
            Some(cache) => cache.put_verdict(&key, outcome, &confirmed),
            None => Ok((outcome, confirmed)),
        }
    }

    pub(super) fn selected_key(&self, tree: &Snapshot, ids: &[String]) -> String {
        let identity =
            format!("{}:{}:select:{}:{}", self.command_key, content_id(tree), select::plugin_version(), ids.join("\n"));
        sha256_hex(identity.as_bytes())
    }

    /// The key of a selected failure's confirmed verdict ([`TestRunner::run_deciding`]).
    fn deciding_key(&self, tree: &Snapshot, ids: &[String]) -> String {
        sha256_hex(format!("{}:deciding", self.selected_key(tree, ids)).as_bytes())
    }

    /// The confirmations the cached verdict of `tree` needed, in order (`None` when the
    /// tree runs in full or its verdict is not cached); `selected-fail` last when a
    /// failure was confirmed because it decided a rejection.
    pub fn confirmations(&self, tree: &Snapshot) -> Option<Vec<Confirmation>> {
        let Selection::Tests(ids) = self.selection(tree) else { return None };
        let cache = self.cache.as_ref()?;
        let mut confirmed = cache.confirmations(&self.selected_key(tree, &ids))?;
        if let Some(deciding) = cache.confirmations(&self.deciding_key(tree, &ids)) {
            confirmed.extend(deciding);
        }
        Some(confirmed)
    }

    /// Runs `ids` on `tree` with the scaled limit; if that result needs confirming (a
    /// time-out under a scaled limit, a pass, a failure that names an order-dependent
    /// test), the full suite runs with the configured limit and its outcome is the
    /// verdict, with both runs' durations.
    fn judge_selected(&self, tree: &Snapshot, ids: &[String]) -> Result<(Outcome, Vec<Confirmation>)> {
        let selector = self.selector.as_ref().context("a selected run without a coverage map")?;
        let scaled = selector.index.timeout_for(ids, self.limits.time_limit);
        let outcome = self.executed(self.execute_selected(tree, ids, scaled)?);
        let needed = if outcome.timed_out {
            (scaled < self.limits.time_limit).then_some(Confirmation::ScaledTimeout)
        } else if outcome.passed {
            Some(Confirmation::SelectedPass)
        } else if selector.order.needs_full_run(&outcome.failed_tests) {
            Some(Confirmation::OrderDependent)
        } else {
            None
        };
        let Some(kind) = needed else { return Ok((outcome, Vec::new())) };
        let (full, ran) = self.run_suite(tree, Serving::SwapOrFresh)?;
        Ok((self.confirmed_by(kind, &outcome, full, ran), vec![kind]))
    }

    /// `confirming`, the outcome of a confirmation of `kind` of `first` (executed when
    /// `ran`, else from the cache), counted, with both runs' durations.
    fn confirmed_by(&self, kind: Confirmation, first: &Outcome, confirming: Outcome, ran: bool) -> Outcome {
        self.counted(kind, first, &confirming, ran);
        Outcome { duration_ms: first.duration_ms + confirming.duration_ms, ..confirming }
    }

    pub(super) fn counted(&self, kind: Confirmation, first: &Outcome, confirming: &Outcome, ran: bool) {
        let time = ran.then(|| Duration::from_millis(confirming.duration_ms));
        self.counters.confirmations.count(kind, time, confirm::overturns(first, confirming));
    }

    /// Runs `ids` on `tree` with `timeout`: on a fork server if one can run the tree
    /// exactly, else in a fresh process collecting only them, else (if that missed some)
    /// in a fresh process collecting everything.
    pub(super) fn execute_selected(&self, tree: &Snapshot, ids: &[String], timeout: Duration) -> Result<RunOutput> {
        let selector = self.selector.as_ref().context("a selected run without a coverage map")?;
        if let Some(servers) = &selector.servers {
            let prepare = |dir: &Path| -> Result<BTreeMap<String, String>> {
                let mut env = BTreeMap::new();
                write_selection(dir, ids, true, &mut env)?;
                Ok(env)
            };
            let accept = |dir: &Path| !dir.join(MISMATCH_FILE).exists();
            if let Some(output) = servers.run(
                tree,
                &RunHooks { mode: ChildMode::Swap, prepare: &prepare, accept: &accept, args: &[FAST_TRACEBACKS] },
                timeout,
            ) {
                self.counters.served.fetch_add(1, Ordering::Relaxed);
                return Ok(output);
            }
        }
        let limits = Limits { time_limit: timeout, ..self.limits.clone() };
        let narrowed = self.run_with_plugin(tree, PluginMode::Select { ids, narrow: true }, &limits)?;
        if !narrowed.mismatch {
            return Ok(narrowed.output);
        }
        Ok(self.run_with_plugin(tree, PluginMode::Select { ids, narrow: false }, &limits)?.output)
    }
}
