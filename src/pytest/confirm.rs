//! What a single test run cannot vouch for, and the runs that confirm it.
//!
//! A selected run ([`super::select`]) is exact only as far as its argument goes: a test
//! that ran no changed function at HEAD may still fail on the changed tree through state
//! another test or module left (a cached call, a global set at import), and a selected
//! test may fail only because the tests before it did not run. One run of a whole suite
//! may also pass or fail by chance (a flaky test). So [`super::testrun::TestRunner`]
//! confirms, and this module names and counts, each kind of [`Confirmation`]:
//!
//! - a selected run that **passes** is confirmed by a full run (on a fork-server child
//!   when one can run the tree exactly), whose outcome is the verdict;
//! - a selected run stopped by its **scaled time limit** is confirmed by a full run with
//!   the substrate's full `timeout_s`: it counts as timed out only if that run does
//!   (both limits are CPU time: [`crate::sandbox::cputime`]);
//! - a selected run that fails on an **order-dependent** test (one that fails when its
//!   file runs alone at HEAD, [`OrderDependence`]) is confirmed by a full run;
//! - a selected run that fails where the failure **decides a rejection** (a base or a side
//!   that must pass, both sides of a family where one must pass, a time-out or memory
//!   error that rejects) is confirmed by a full run when the caller asks for that verdict
//!   ([`super::testrun::TestRunner::run_deciding`]); other selected failures stand;
//! - a **pass of a full run** that a verdict rests on (HEAD's, gold's) is confirmed by a
//!   second run of the same tree; the tests that flip between the two are flaky
//!   ([`flipped_tests`]).
//!
//! Whether a verdict needed a confirmation is kept in its outcome-cache entry, never in a
//! task record: records are the same whether or not a selection ran.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::outcome::Outcome;

/// How many kinds of [`Confirmation`] there are.
const KINDS: usize = 5;

/// Why a run was repeated before its verdict was used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Confirmation {
    /// A selected run passed: the full suite ran.
    SelectedPass,
    /// A selected run hit its scaled time limit: the full suite ran with `timeout_s`.
    ScaledTimeout,
    /// A selected run failed on an order-dependent test: the full suite ran.
    OrderDependent,
    /// A selected run failed where the failure would reject a candidate: the full suite ran.
    SelectedFail,
    /// A full run passed: the same tree ran once more, to catch flaky tests.
    Repeat,
}

impl Confirmation {
    /// Every kind, in the order reports list them.
    pub(crate) const ALL: [Confirmation; KINDS] = [
        Confirmation::SelectedPass,
        Confirmation::ScaledTimeout,
        Confirmation::OrderDependent,
        Confirmation::SelectedFail,
        Confirmation::Repeat,
    ];

    /// The kebab-case name, as serde writes it.
    pub fn name(self) -> &'static str {
        self.into()
    }

    fn index(self) -> usize {
        Confirmation::ALL.iter().position(|k| *k == self).expect("every kind is listed")
    }
}

/// Confirmation runs a runner (or a run's runners together) needed, cache hits excluded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConfirmationStats {
    /// Confirmations by kind, parallel to [`Confirmation::ALL`].
    pub(crate) by_kind: [usize; KINDS],
    /// Of those, the ones whose verdict (passed, timed out) differed from the run they
    /// confirmed: the unconfirmed verdict would have been wrong, or a test is flaky.
    pub overturned: usize,
    /// Wall time of the confirmation runs executed (a confirmation answered by the
    /// outcome cache costs nothing).
    pub(crate) time: Duration,
    /// Test files run alone at HEAD to find order-dependent tests, and their wall time.
    pub files_run_alone: usize,
    pub(crate) alone_time: Duration,
    /// `overturned` and `time` by kind, parallel to [`Confirmation::ALL`].
    pub(crate) overturned_by_kind: [usize; KINDS],
    pub(crate) time_by_kind: [Duration; KINDS],
}

impl ConfirmationStats {
    /// Confirmations of every kind.
    pub(crate) fn total(&self) -> usize {
        self.by_kind.iter().sum()
    }

    /// Confirmations of `kind`.
    pub fn of(&self, kind: Confirmation) -> usize {
        self.by_kind[kind.index()]
    }

    /// Of the confirmations of `kind`, those that overturned the verdict they confirmed.
    pub fn overturned_of(&self, kind: Confirmation) -> usize {
        self.overturned_by_kind[kind.index()]
    }

    /// Wall time of the confirmation runs of `kind` executed.
    pub(crate) fn time_of(&self, kind: Confirmation) -> Duration {
        self.time_by_kind[kind.index()]
    }
}

impl std::ops::Add for ConfirmationStats {
    type Output = ConfirmationStats;
    fn add(self, other: ConfirmationStats) -> ConfirmationStats {
        ConfirmationStats {
            by_kind: std::array::from_fn(|i| self.by_kind[i] + other.by_kind[i]),
            overturned: self.overturned + other.overturned,
            time: self.time + other.time,
            files_run_alone: self.files_run_alone + other.files_run_alone,
            alone_time: self.alone_time + other.alone_time,
            overturned_by_kind: std::array::from_fn(|i| self.overturned_by_kind[i] + other.overturned_by_kind[i]),
            time_by_kind: std::array::from_fn(|i| self.time_by_kind[i] + other.time_by_kind[i]),
        }
    }
}

/// Written as `{"runs": N, "selected-pass": N, ..., "overturned": N, "seconds": S,
/// "files_run_alone": N, "alone_seconds": S, "by_kind": {"selected-pass": {"runs": N,
/// "overturned": N, "seconds": S}, ...}}` (seconds to a tenth).
impl Serialize for ConfirmationStats {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tenths = |d: Duration| (d.as_secs_f64() * 10.0).round() / 10.0;
        let mut map = serde_json::Map::new();
        map.insert("runs".into(), self.total().into());
        for kind in Confirmation::ALL {
            map.insert(kind.name().into(), self.of(kind).into());
        }
        map.insert("overturned".into(), self.overturned.into());
        map.insert("seconds".into(), tenths(self.time).into());
        map.insert("files_run_alone".into(), self.files_run_alone.into());
        map.insert("alone_seconds".into(), tenths(self.alone_time).into());
        let by_kind: serde_json::Map<String, serde_json::Value> = Confirmation::ALL
            .iter()
            .map(|kind| {
                let stats = serde_json::json!({
                    "runs": self.of(*kind),
                    "overturned": self.overturned_of(*kind),
                    "seconds": tenths(self.time_of(*kind)),
                });
                (kind.name().to_string(), stats)
            })
            .collect();
        map.insert("by_kind".into(), by_kind.into());
        map.serialize(serializer)
    }
}

/// The live counters behind [`ConfirmationStats`].
#[derive(Debug, Default)]
pub(crate) struct ConfirmationCounters {
    by_kind: [AtomicUsize; KINDS],
    overturned: [AtomicUsize; KINDS],
    nanos: [AtomicU64; KINDS],
    alone: AtomicUsize,
    alone_nanos: AtomicU64,
}

impl ConfirmationCounters {
    /// Counts a confirmation of `kind` that took `ran` (`None`: answered by the cache)
    /// and whether it `overturned` the verdict it confirmed.
    pub(crate) fn count(&self, kind: Confirmation, ran: Option<Duration>, overturned: bool) {
        let i = kind.index();
        self.by_kind[i].fetch_add(1, Ordering::Relaxed);
        self.overturned[i].fetch_add(usize::from(overturned), Ordering::Relaxed);
        self.nanos[i].fetch_add(ran.unwrap_or_default().as_nanos() as u64, Ordering::Relaxed);
    }

    /// Counts a test file run alone at HEAD that took `ran`.
    pub(crate) fn count_alone(&self, ran: Option<Duration>) {
        self.alone.fetch_add(1, Ordering::Relaxed);
        self.alone_nanos.fetch_add(ran.unwrap_or_default().as_nanos() as u64, Ordering::Relaxed);
    }

    pub(crate) fn stats(&self) -> ConfirmationStats {
        let overturned_by_kind: [usize; KINDS] = std::array::from_fn(|i| self.overturned[i].load(Ordering::Relaxed));
        let time_by_kind: [Duration; KINDS] =
            std::array::from_fn(|i| Duration::from_nanos(self.nanos[i].load(Ordering::Relaxed)));
        ConfirmationStats {
            by_kind: std::array::from_fn(|i| self.by_kind[i].load(Ordering::Relaxed)),
            overturned: overturned_by_kind.iter().sum(),
            time: time_by_kind.iter().sum(),
            files_run_alone: self.alone.load(Ordering::Relaxed),
            alone_time: Duration::from_nanos(self.alone_nanos.load(Ordering::Relaxed)),
            overturned_by_kind,
            time_by_kind,
        }
    }
}

/// Whether a confirming outcome differs from the one it confirms (pass or time-out).
pub(crate) fn overturns(first: &Outcome, confirming: &Outcome) -> bool {
    first.passed != confirming.passed || first.timed_out != confirming.timed_out
}

/// The tests whose verdict differs between two runs of one tree: failing in one and
/// not the other (the placeholders `<timeout>` and `<exit N>` included, so a run that
/// flips as a whole names itself).
pub(crate) fn flipped_tests(first: &Outcome, second: &Outcome) -> Vec<String> {
    let a: BTreeSet<&String> = first.failed_tests.iter().collect();
    let b: BTreeSet<&String> = second.failed_tests.iter().collect();
    a.symmetric_difference(&b).map(|id| id.to_string()).collect()
}

/// The tests of a substrate that fail when their file runs alone at HEAD (where the full
/// suite passes): they depend on what ran before them. A selected failure that names one
/// may be the selection's doing, so it is confirmed by a full run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OrderDependence {
    /// These node ids (sorted).
    Known(BTreeSet<String>),
    /// The files could not all be run alone: every selected failure is confirmed.
    Unknown,
}

impl OrderDependence {
    /// The order-dependent tests of files run alone: `alone` maps each test file to its
    /// node ids and the outcome of running just them. A failing id that is one of the
    /// file's tests is order-dependent; any other failure of the run (a collection
    /// error, a time-out, a crash) makes every test of the file order-dependent.
    pub(crate) fn from_alone_runs(alone: &BTreeMap<String, (Vec<String>, Outcome)>) -> OrderDependence {
        let mut tests = BTreeSet::new();
        for (ids, outcome) in alone.values() {
            if outcome.passed {
                continue;
            }
            let known: BTreeSet<&String> = ids.iter().collect();
            if outcome.failed_tests.iter().all(|id| known.contains(id)) {
                tests.extend(outcome.failed_tests.iter().cloned());
            } else {
                tests.extend(ids.iter().cloned());
            }
        }
        OrderDependence::Known(tests)
    }

    /// Whether a selected run that failed with `failed` needs a full run: it names an
    /// order-dependent test, or a file (a collection error) holding one.
    pub(crate) fn needs_full_run(&self, failed: &[String]) -> bool {
        let OrderDependence::Known(tests) = self else { return true };
        failed.iter().any(|id| {
            tests.contains(id) || (!id.contains("::") && tests.iter().any(|t| t.starts_with(&format!("{id}::"))))
        })
    }

    /// The order-dependent tests, when known.
    pub(crate) fn tests(&self) -> Option<&BTreeSet<String>> {
        match self {
            OrderDependence::Known(tests) => Some(tests),
            OrderDependence::Unknown => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(failed: &[&str]) -> Outcome {
        Outcome {
            passed: failed.is_empty(),
            failed_tests: failed.iter().map(|s| s.to_string()).collect(),
            duration_ms: 0,
            timed_out: false,
            out_of_memory: false,
            last_line: String::new(),
        }
    }

    fn ids(file: &str, names: &[&str]) -> Vec<String> {
        names.iter().map(|n| format!("{file}::{n}")).collect()
    }

    #[test]
    fn failures_alone_name_order_dependent_tests() {
        let alone: BTreeMap<String, (Vec<String>, Outcome)> = [
            ("t/test_a.py".to_string(), (ids("t/test_a.py", &["x", "y"]), outcome(&[]))),
            ("t/test_b.py".to_string(), (ids("t/test_b.py", &["x", "y"]), outcome(&["t/test_b.py::y"]))),
            ("t/test_c.py".to_string(), (ids("t/test_c.py", &["x"]), outcome(&["<timeout>"]))),
        ]
        .into();
        let order = OrderDependence::from_alone_runs(&alone);
        let known: Vec<&str> = order.tests().unwrap().iter().map(String::as_str).collect();
        assert_eq!(known, ["t/test_b.py::y", "t/test_c.py::x"]);
        assert!(order.needs_full_run(&["t/test_a.py::x".into(), "t/test_b.py::y".into()]));
        assert!(order.needs_full_run(&["t/test_c.py".into()]), "a collection error of a file holding one");
        assert!(!order.needs_full_run(&["t/test_a.py::x".into(), "t/test_b.py::x".into()]));
        assert!(!order.needs_full_run(&["<exit 1>".into()]));
        assert!(OrderDependence::Unknown.needs_full_run(&["t/test_a.py::x".into()]));
    }

    #[test]
    fn flips_are_the_tests_failing_in_one_run_only() {
        assert_eq!(flipped_tests(&outcome(&[]), &outcome(&["a::t"])), ["a::t"]);
        assert_eq!(flipped_tests(&outcome(&["a::t", "a::u"]), &outcome(&["a::u", "a::v"])), ["a::t", "a::v"]);
        assert!(flipped_tests(&outcome(&["a::t"]), &outcome(&["a::t"])).is_empty());
    }

    #[test]
    fn stats_add_up_and_serialise_by_kind() {
        let counters = ConfirmationCounters::default();
        counters.count(Confirmation::SelectedPass, Some(Duration::from_millis(1500)), true);
        counters.count(Confirmation::Repeat, None, false);
        counters.count_alone(Some(Duration::from_millis(200)));
        let stats = counters.stats() + counters.stats();
        assert_eq!((stats.total(), stats.of(Confirmation::SelectedPass), stats.overturned), (4, 2, 2));
        let json = serde_json::to_value(stats).unwrap();
        assert_eq!(json["selected-pass"], 2);
        assert_eq!(json["seconds"], 3.0);
        assert_eq!(json["files_run_alone"], 2);
        assert_eq!(json["by_kind"]["selected-pass"], serde_json::json!({"runs": 2, "overturned": 2, "seconds": 3.0}));
        assert_eq!(json["by_kind"]["repeat"]["overturned"], 0);
    }
}
