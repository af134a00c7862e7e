//! branch on real code (the cases in `tests/data/intents/branch-*` pin its edits): the
//! sites of every embedded substrate, found with the real runner as probe (selecting by
//! the coverage map of HEAD, as a run does), each apply to HEAD and to the tree stripped
//! of the site before it, leaving every Python file parsing; for a few sites (a
//! deterministic pick) the substrate's whole suite passes on the stripped tree.
//!
//! `measure_branch` (ignored: minutes) prints, per embedded substrate and per real
//! project unpacked under `$MERGEFORGE_REAL_PROJECTS` (pyhamcrest 2.1.0, jsonpickle 4.1.4,
//! more-itertools 10.5.0; see `substrates/real-projects/README.md`), how many sites of
//! each form `sites()` finds, how long it takes, and how many of a sample
//! (`$MERGEFORGE_SAMPLE`, 20 by default) leave a tree whose full suite passes.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use mergeforge::intent::{Kind, Probe, Site, Workspace};
use mergeforge::pytest::cache::OutcomeCache;
use mergeforge::pytest::select::CoverageMap;
use mergeforge::pytest::testrun::TestRunner;
use mergeforge::python;
use mergeforge::snapshot::Snapshot;

use crate::add_function::{coverage, embedded, sample, Loaded};
use crate::common::root;

/// How many sites of all embedded substrates run their suite in CI.
const SUITE_RUNS: usize = 5;

/// The runner selecting by the coverage map of HEAD, and that map.
fn selecting_runner(loaded: &Loaded, maps: &Path) -> (TestRunner, CoverageMap) {
    let map = coverage(loaded, maps);
    let runner = loaded.runner().with_selection(loaded.substrate.files.clone(), map.clone());
    (runner, map)
}

fn workspace<'a>(loaded: &'a Loaded, map: &'a CoverageMap, probe: &'a dyn Probe) -> Workspace<'a> {
    Workspace { tree: &loaded.substrate.files, modules: &loaded.modules, coverage: Some(map), probe: Some(probe) }
}

/// Panics when a Python file `tree` changed from `before` does not parse.
fn assert_parses(name: &str, what: &str, before: &Snapshot, tree: &Snapshot) {
    for (path, data) in tree {
        if path.ends_with(".py") && before.get(path) != Some(data) {
            let text = std::str::from_utf8(data).unwrap();
            assert!(python::parses(text, path), "{name}: {what} leaves {path} unparsable");
        }
    }
}

/// Every site applied to HEAD (and to the tree without the site before it).
fn stripped(name: &str, workspace: &Workspace, sites: &[Site]) -> Vec<(Site, Snapshot)> {
    let head = workspace.tree;
    let out: Vec<(Site, Snapshot)> = sites
        .iter()
        .map(|site| {
            let tree = site.apply(workspace, head).unwrap_or_else(|| panic!("{name}: {site:?} did not apply"));
            assert_parses(name, &site.symbol, head, &tree);
            assert!(!site.tests.is_empty() && site.tests.len() <= 12 && !site.message().is_empty(), "{name}: {site:?}");
            (site.clone(), tree)
        })
        .collect();
    for pair in out.windows(2) {
        let ((first, tree), (second, _)) = (&pair[0], &pair[1]);
        if let Some(both) = second.apply(workspace, tree) {
            assert_parses(name, &format!("{} after {}", second.symbol, first.symbol), tree, &both);
        }
    }
    out
}

/// Like [`selecting_runner`], over `cache` (a private copy of the committed sample's
/// outcome cache): the probes the sample's run made are answered from it, so this test
/// checks the sites' edits, not the test runs the sample already made.
fn cached_runner(loaded: &Loaded, cache: &Path) -> (TestRunner, CoverageMap) {
    let runner = loaded.runner_with_cache(Some(OutcomeCache::new(&cache.join("outcomes"))));
    let map = runner.coverage_map(&loaded.substrate.files, &cache.join("coverage")).expect("coverage map of HEAD");
    (runner.with_selection(loaded.substrate.files.clone(), map.clone()), map)
}

/// Second tier (first-tier sibling: the branch cases of intents::every_intent_case_gives_its_expected_tree).
mod second_tier {
    use super::*;

    #[test]
    #[ignore = "second tier: runs the suite on sites of every embedded substrate (a minute)"]
    fn every_site_of_the_embedded_substrates_applies_and_a_few_pass_their_suite() {
        let cache = tempfile::tempdir().unwrap();
        crate::common::copy_dir(&root().join("generated/.mergeforge-cache"), cache.path());
        let mut all: Vec<(usize, Site, Snapshot)> = Vec::new();
        let substrates = embedded();
        let mut runners = Vec::new();
        for (index, loaded) in substrates.iter().enumerate() {
            let (runner, map) = cached_runner(loaded, cache.path());
            let workspace = workspace(loaded, &map, &runner);
            let sites = Kind::Branch.sites(&workspace);
            let name = &loaded.substrate.name;
            all.extend(stripped(name, &workspace, &sites).into_iter().map(|(site, tree)| (index, site, tree)));
            runners.push(runner);
        }
        assert!(all.len() >= substrates.len(), "only {} branch sites on the embedded substrates", all.len());
        for pick in 0..SUITE_RUNS {
            let (index, site, tree) = &all[pick * all.len() / SUITE_RUNS];
            let outcome = runners[*index].run_full(tree).unwrap();
            assert!(
                outcome.passed,
                "{}: the suite fails without {} ({:?}): {:?}",
                substrates[*index].substrate.name, site.symbol, site.tests, outcome.failed_tests
            );
        }
    }
}

#[test]
#[ignore = "minutes: finds every site with test runs; prints the counts"]
fn measure_branch() {
    let maps = tempfile::tempdir().unwrap();
    let mut projects: Vec<Loaded> = embedded();
    if let Some(dir) = std::env::var_os("MERGEFORGE_REAL_PROJECTS") {
        for (name, folder) in [
            ("pyhamcrest", "pyhamcrest-2.1.0"),
            ("jsonpickle", "jsonpickle-4.1.4"),
            ("more-itertools", "more-itertools-10.5.0"),
        ] {
            let config = Some(root().join(format!("substrates/real-projects/{name}.toml"))).filter(|c| c.is_file());
            projects.push(Loaded::new(&Path::new(&dir).join(folder), config));
        }
    }
    let limit: usize = std::env::var("MERGEFORGE_SAMPLE").map_or(20, |n| n.parse().expect("a number"));
    for loaded in &projects {
        let name = &loaded.substrate.name;
        let (runner, map) = selecting_runner(loaded, maps.path());
        let workspace = workspace(loaded, &map, &runner);
        let started = Instant::now();
        let sites = Kind::Branch.sites(&workspace);
        let took = started.elapsed();
        let mut forms: BTreeMap<&str, usize> = BTreeMap::new();
        for site in &sites {
            let form = site.target.as_deref().and_then(|t| t.split('|').next()).unwrap_or_default();
            *forms.entry(form).or_default() += 1;
        }
        let trees = stripped(name, &workspace, &sites);
        let picked = sample(trees, limit);
        let failing: Vec<String> = picked
            .iter()
            .filter(|(_, tree)| !runner.run_full(tree).unwrap().passed)
            .map(|(site, _)| format!("{}:{}", site.path, site.symbol))
            .collect();
        println!(
            "{name}: {} branch sites ({forms:?}) in {:.1}s; {} of {} sampled stripped trees pass the full suite; failing: {failing:?}",
            sites.len(),
            took.as_secs_f64(),
            picked.len() - failing.len(),
            picked.len()
        );
    }
}
