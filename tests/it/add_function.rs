//! add-function on real code (the cases in `tests/data/intents/` pin its edits): every
//! site of every embedded substrate applies to HEAD and leaves every Python file of the
//! tree parsing, and for a few sites (a deterministic pick) the substrate's own suite
//! passes on the stripped tree, run with the real runner.
//!
//! Each site is also applied to the tree stripped of the site before it (a base without
//! two features) and must leave every file parsing.
//!
//! `measure_add_function` (ignored: minutes) runs the suite on every site of the embedded
//! substrates, with the coverage map of HEAD, and on a sample of the sites of the real
//! projects unpacked under `$MERGEFORGE_REAL_PROJECTS` (see
//! `substrates/real-projects/README.md`; `$MERGEFORGE_SAMPLE` sets the sample size), and
//! on a sample of stacked pairs, and prints the counts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mergeforge::intent::{Kind, Site, Workspace};
use mergeforge::pytest::cache::OutcomeCache;
use mergeforge::pytest::select::CoverageMap;
use mergeforge::pytest::testrun::TestRunner;
use mergeforge::python::{self, PyModule};
use mergeforge::snapshot::Snapshot;
use mergeforge::substrate::{self, Substrate, SubstrateSpec};

use crate::common::root;

/// How many sites of all embedded substrates run their suite in CI.
const SUITE_RUNS: usize = 4;

/// A substrate with its parsed sources.
pub(crate) struct Loaded {
    pub(crate) substrate: Substrate,
    pub(crate) modules: Vec<PyModule>,
}

impl Loaded {
    pub(crate) fn new(path: &Path, config_file: Option<PathBuf>) -> Self {
        let spec = SubstrateSpec { path: path.to_path_buf(), config_file, test_command: None };
        let substrate = substrate::load(&spec).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
        let modules = substrate
            .mutable_sources()
            .iter()
            .filter_map(|source| PyModule::parse(&source.path, &source.text).ok())
            .collect();
        Loaded { substrate, modules }
    }

    fn workspace<'a>(&'a self, coverage: Option<&'a CoverageMap>) -> Workspace<'a> {
        Workspace { tree: &self.substrate.files, modules: &self.modules, coverage, probe: None }
    }

    pub(crate) fn runner(&self) -> TestRunner {
        self.runner_with_cache(None)
    }

    /// The substrate's runner, reading and writing `cache` when given.
    pub(crate) fn runner_with_cache(&self, cache: Option<OutcomeCache>) -> TestRunner {
        let config = &self.substrate.config;
        let python = config.python_env().expect("venv with pytest");
        TestRunner::new(&config.test_command, &config.env, Duration::from_secs(config.timeout_s), &python, cache)
    }
}

pub(crate) fn embedded() -> Vec<Loaded> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("substrates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("substrate.toml").is_file())
        .collect();
    dirs.sort();
    dirs.iter().map(|dir| Loaded::new(dir, None)).collect()
}

/// Every site of the workspace applied to HEAD; panics when one does not apply or leaves
/// a Python file that does not parse.
fn stripped(loaded: &Loaded, workspace: &Workspace) -> Vec<(Site, Snapshot)> {
    let name = &loaded.substrate.name;
    Kind::AddFunction
        .sites(workspace)
        .into_iter()
        .map(|site| {
            let tree =
                site.apply(workspace, workspace.tree).unwrap_or_else(|| panic!("{name}: {site:?} did not apply"));
            for (path, data) in &tree {
                if path.ends_with(".py") && workspace.tree.get(path) != Some(data) {
                    let text = std::str::from_utf8(data).unwrap();
                    assert!(python::parses(text, path), "{name}: {} leaves {path} unparsable", site.symbol);
                }
            }
            assert!(!site.tests.is_empty() && !site.message().is_empty(), "{name}: {site:?}");
            (site, tree)
        })
        .collect()
}

/// Each site applied to the tree stripped of the one before it (as a base without two
/// features is made): the trees it gives, each of whose Python files parses.
fn stacked(loaded: &Loaded, workspace: &Workspace, sites: &[(Site, Snapshot)]) -> Vec<(String, Snapshot)> {
    let mut out = Vec::new();
    for pair in sites.windows(2) {
        let ((first, tree), (second, _)) = (&pair[0], &pair[1]);
        let Some(both) = second.apply(workspace, tree) else { continue };
        for (path, data) in &both {
            if path.ends_with(".py") && tree.get(path) != Some(data) {
                let text = std::str::from_utf8(data).unwrap();
                let name = &loaded.substrate.name;
                assert!(
                    python::parses(text, path),
                    "{name}: {} after {} leaves {path} unparsable",
                    second.symbol,
                    first.symbol
                );
            }
        }
        out.push((format!("{}+{}", first.symbol, second.symbol), both));
    }
    out
}

#[test]
fn every_site_of_the_embedded_substrates_applies_and_a_few_pass_their_suite() {
    let substrates = embedded();
    let mut all: Vec<(usize, Site, Snapshot)> = Vec::new();
    for (index, loaded) in substrates.iter().enumerate() {
        let workspace = loaded.workspace(None);
        let sites = stripped(loaded, &workspace);
        assert!(!sites.is_empty(), "{}: no add-function site", loaded.substrate.name);
        stacked(loaded, &workspace, &sites);
        all.extend(sites.into_iter().map(|(site, tree)| (index, site, tree)));
    }
    let mut runners: BTreeMap<usize, TestRunner> = BTreeMap::new();
    for pick in 0..SUITE_RUNS {
        let (index, site, tree) = &all[pick * all.len() / SUITE_RUNS];
        let loaded = &substrates[*index];
        let runner = runners.entry(*index).or_insert_with(|| loaded.runner());
        let outcome = runner.run_full(tree).unwrap();
        assert!(
            outcome.passed,
            "{}: the suite fails without {} ({:?}): {:?}",
            loaded.substrate.name, site.symbol, site.tests, outcome.failed_tests
        );
    }
}

/// Runs the suite on each named tree of `loaded`; returns the names of those that fail.
fn failing(loaded: &Loaded, trees: &[(String, Snapshot)]) -> Vec<String> {
    let runner = loaded.runner();
    trees.iter().filter(|(_, tree)| !runner.run_full(tree).unwrap().passed).map(|(name, _)| name.clone()).collect()
}

/// The coverage map of a substrate's HEAD.
pub(crate) fn coverage(loaded: &Loaded, dir: &Path) -> CoverageMap {
    loaded.runner().coverage_map(&loaded.substrate.files, dir).expect("coverage map of HEAD")
}

/// At most `limit` elements, evenly spread.
pub(crate) fn sample<T: Clone>(items: Vec<T>, limit: usize) -> Vec<T> {
    let picks = limit.min(items.len());
    (0..picks).map(|i| items[i * items.len() / picks].clone()).collect()
}

#[test]
#[ignore = "minutes: runs the suite on every site; prints the counts"]
fn measure_add_function() {
    let maps = tempfile::tempdir().unwrap();
    let mut projects: Vec<(Loaded, usize)> = embedded().into_iter().map(|l| (l, usize::MAX)).collect();
    if let Some(dir) = std::env::var_os("MERGEFORGE_REAL_PROJECTS") {
        for (name, folder) in
            [("more-itertools", "more-itertools-10.5.0"), ("isodate", "isodate-0.7.2"), ("boltons", "boltons-24.1.0")]
        {
            let config = Some(root().join(format!("substrates/real-projects/{name}.toml"))).filter(|c| c.is_file());
            projects.push((Loaded::new(&Path::new(&dir).join(folder), config), 20));
        }
    }
    let limit: Option<usize> = std::env::var("MERGEFORGE_SAMPLE").ok().map(|n| n.parse().expect("a number"));
    for (loaded, real_limit) in &projects {
        let limit = limit.unwrap_or(*real_limit);
        let name = &loaded.substrate.name;
        let bare = Kind::AddFunction.sites(&loaded.workspace(None)).len();
        let map = coverage(loaded, maps.path());
        let workspace = loaded.workspace(Some(&map));
        let sites = stripped(loaded, &workspace);
        let pairs = sample(stacked(loaded, &workspace, &sites), limit.min(10));
        let total = sites.len();
        let sites: Vec<(String, Snapshot)> = sample(sites, limit)
            .into_iter()
            .map(|(site, tree)| (format!("{}:{}", site.path, site.symbol), tree))
            .collect();
        let failed = failing(loaded, &sites);
        let failed_pairs = failing(loaded, &pairs);
        println!(
            "{name}: {bare} sites without coverage, {total} with; {} of {} run pass, failing: {failed:?}; \
             stacked pairs: {} of {} pass, failing: {failed_pairs:?}",
            sites.len() - failed.len(),
            sites.len(),
            pairs.len() - failed_pairs.len(),
            pairs.len()
        );
    }
}
