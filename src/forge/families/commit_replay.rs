//! commit-replay: a real commit of the project's history against a refactor of its
//! parent. A commit C with parent P that changes source files together with their tests
//! is a gold patch: ours is C's own change, with its real message and author. Theirs is
//! a semantics-preserving refactor of the intents catalogue (rename a function, class,
//! constant, method, local or parameter; move a definition to another module) applied to P
//! where it meets C: it rewrites a name on lines C changes, or a name C's new lines use.
//! Base is P; gold is the same refactor applied to C, so the resolution carries the
//! refactor into code only C has. A commit makes up to [`MAX_TASKS_PER_COMMIT`] tasks,
//! each against a refactor of another name. The tests decide the rest: P, C, the
//! refactored P and gold must pass, and neither side taken for every hunk may solve the
//! task.

use std::collections::BTreeSet;

use crate::forge::proposal::{seeded_rank, FamilyBuilder, ForgeInput, Group, Intent, Proposal, Recipe, SideRule};
use rustpython_ast as ast;

use crate::intent::{callee, folder, lines_of, main_user, movable, naming, Kind, Rewrites, Site, Workspace};
use crate::python::PyModule;
use crate::snapshot::{self, is_test_file, Snapshot};
use crate::substrate::history::{hunks, GoldPatch, HistoryScan, Hunk, RealKind, RealOrigin};
use crate::substrate::{commit_files, SubstrateConfig};

pub(crate) struct CommitReplay;

impl FamilyBuilder for CommitReplay {
    fn side_rule(&self) -> SideRule {
        SideRule::BothPass
    }

    fn group(&self) -> Group {
        Group::History
    }

    fn description(&self) -> &'static str {
        "a real commit that changes code with its tests (its message and author kept) against a refactor of its parent \
         that renames (a function, class, constant, method, local or parameter) or moves what the commit edits or uses; gold is the refactor applied to the commit."
    }

    fn recipes<'a>(&self, input: &ForgeInput<'a>) -> Vec<Recipe<'a>> {
        use rayon::prelude::*;
        let Some(history) = input.history else { return Vec::new() };
        let (config, seed) = (&input.substrate.config, input.seed);
        // Each commit's refactors are found once (parsing and refactoring its trees),
        // commits in parallel; the recipes then hand out what was built.
        let built: Vec<Vec<Proposal>> = history
            .commits
            .par_iter()
            .map(|patch| match proposals(history, patch, config, seed) {
                Ok(proposals) => proposals,
                Err(err) => {
                    log::warn!("commit {}: {err:#}; skipped", patch.commit);
                    Vec::new()
                }
            })
            .collect();
        built
            .into_iter()
            .flatten()
            .map(|proposal| Recipe { key: proposal.key.clone(), kinds: Vec::new(), build: Box::new(move || Some(proposal.clone())) })
            .collect()
    }

    fn in_default_mix(&self) -> bool {
        false
    }
}

/// Most tasks made of one commit, each against a refactor of another name.
pub(crate) const MAX_TASKS_PER_COMMIT: usize = 3;

/// The tasks of one gold patch: the first [`MAX_TASKS_PER_COMMIT`] refactors of distinct
/// names (in seeded order, those reaching the commit's new source lines first) that
/// apply to both P and C and change each.
fn proposals(
    history: &HistoryScan,
    patch: &GoldPatch,
    config: &SubstrateConfig,
    seed: u64,
) -> anyhow::Result<Vec<Proposal>> {
    let repo = history.open()?;
    let (parent, commit) = (commit_files(&repo, patch.parent)?, commit_files(&repo, patch.commit)?);
    // Only source hunks count: a collision in tests alone resolves itself, since every
    // tree a task judges gets gold's tests.
    let changes: Vec<Hunk> = hunks(&repo, patch)?.into_iter().filter(|h| !is_test_file(&h.path)).collect();
    let (reached, others) = reached_modules(parsed_sources(&parent, config), &changes);
    let workspace = Workspace { tree: &parent, modules: &reached, coverage: None, probe: None };
    let paths: Vec<&str> = reached.iter().chain(&others).map(|m| m.path.as_str()).collect();
    let mut sites: Vec<(bool, String, Site)> = candidate_sites(&workspace, &paths, &changes)
        .into_iter()
        .filter_map(|site| {
            let reach = reach(&site, &changes)?;
            Some((reach == Reach::Uses, seeded_rank(seed, &format!("{}|{}", patch.commit, site.key())), site))
        })
        .collect();
    sites.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let mut out: Vec<Proposal> = Vec::new();
    let mut names = BTreeSet::new();
    for (_, _, site) in sites {
        if out.len() == MAX_TASKS_PER_COMMIT {
            break;
        }
        if names.contains(&site.symbol) {
            continue;
        }
        let (Some(theirs), Some(gold)) = (site.apply(&workspace, &parent), site.apply(&workspace, &commit)) else {
            continue;
        };
        // Nothing to resolve when git's merge already is gold: its clean merge passes.
        if theirs == parent || gold == commit || snapshot::clean_merge(&parent, &commit, &theirs).is_some_and(|m| m == gold) {
            continue;
        }
        names.insert(site.symbol.clone());
        out.push(proposal(patch, &parent, &commit, theirs, gold, site));
    }
    Ok(out)
}

/// The task of `patch` against the refactor `site` (theirs: P refactored; gold: C refactored).
fn proposal(
    patch: &GoldPatch,
    parent: &Snapshot,
    commit: &Snapshot,
    theirs: Snapshot,
    gold: Snapshot,
    site: Site,
) -> Proposal {
    let short = &patch.commit.to_string()[..12];
    Proposal {
        key: format!("commit-replay|{}|{}", patch.commit, site.key()),
        summary: format!(
            "commit {short} of the project's history against `{}` ({}); gold applies the refactor to the commit",
            site.message(),
            site.kind
        ),
        base: parent.clone(),
        ours: commit.clone(),
        theirs,
        gold,
        mutations: Vec::new(),
        ours_intent: Intent::real(patch.change.clone()),
        theirs_intent: Intent::making(vec![site], Vec::new()),
        origin: Some(RealOrigin {
            kind: RealKind::Commit,
            commit: patch.commit.to_string(),
            base: patch.parent.to_string(),
            sides: vec![patch.commit.to_string()],
        }),
        interactions: Vec::new(),
    }
}

/// The modules a commit reaches (those it changes and those defining a module-level name
/// its source hunks mention), and the others: refactor sites are looked for in the first
/// only (finding every site of a whole tree, per commit, would cost more than judging).
fn reached_modules(modules: Vec<PyModule>, changes: &[Hunk]) -> (Vec<PyModule>, Vec<PyModule>) {
    let words = hunk_words(changes);
    let touched = |m: &PyModule| changes.iter().any(|h| h.path == m.path);
    let defines = |m: &PyModule| top_level(m).iter().any(|(name, _)| words.contains(name.as_str()));
    modules.into_iter().partition(|m| touched(m) || defines(m))
}

/// Every identifier-like word of the hunks' lines.
fn hunk_words(changes: &[Hunk]) -> BTreeSet<&str> {
    changes
        .iter()
        .flat_map(|h| h.added.iter().chain(&h.removed))
        .flat_map(|line| naming::all_words(line))
        .collect()
}

/// The refactor sites of the reached modules (`workspace.modules`) that may meet the
/// commit. Renames come from their kinds' own search; a move is a module-level `def` or
/// `class` of those modules named in the hunks, to the sibling module (among `paths`,
/// every source module) that uses it most, as a developer moves code next to its main
/// user; a unit no sibling uses does not move. The move's own plan decides, when
/// applied, whether it can be made.
fn candidate_sites(workspace: &Workspace, paths: &[&str], changes: &[Hunk]) -> Vec<Site> {
    let words = hunk_words(changes);
    let mut sites: Vec<Site> = Kind::renames().into_iter().flat_map(|k| k.sites(workspace)).collect();
    for module in workspace.modules.iter().filter(|m| movable(&m.path)) {
        let siblings: Vec<(&str, &str)> = paths
            .iter()
            .copied()
            .filter(|p| *p != module.path && movable(p) && folder(p) == folder(&module.path))
            .filter_map(|p| Some((p, snapshot::text_of(workspace.tree, p)?)))
            .collect();
        for (name, lines) in top_level(module).into_iter().filter(|(name, _)| words.contains(name.as_str())) {
            let Some(target) = main_user(&siblings, &name) else { continue };
            sites.push(Site {
                kind: Kind::Move,
                path: module.path.clone(),
                symbol: name.clone(),
                lines,
                uses: BTreeSet::from([name]),
                target: Some(target.to_string()),
                tests: Vec::new(),
            });
        }
    }
    sites
}

/// The module-level `def`s and `class`es of `module`, with their 1-based line spans
/// (decorators included, end exclusive).
fn top_level(module: &PyModule) -> Vec<(String, std::ops::Range<usize>)> {
    module
        .suite
        .iter()
        .filter_map(|stmt| {
            let name = match stmt {
                ast::Stmt::FunctionDef(d) => d.name.to_string(),
                ast::Stmt::AsyncFunctionDef(d) => d.name.to_string(),
                ast::Stmt::ClassDef(c) => c.name.to_string(),
                _ => return None,
            };
            Some((name, lines_of(module, stmt)))
        })
        .collect()
}

/// The parent's source modules that parse, sorted by path (as intents read them).
fn parsed_sources(tree: &Snapshot, config: &SubstrateConfig) -> Vec<PyModule> {
    tree.keys()
        .filter(|path| config.is_mutable(path))
        .filter_map(|path| PyModule::parse(path, snapshot::text_of(tree, path)?).ok())
        .collect()
}

/// How a refactor meets the commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// The commit's new lines use the name the refactor rewrites.
    Uses,
    /// The commit removes or rewrites a line that holds the name.
    Edits,
}

/// How `site` meets the commit's source `changes`, if it does. A renamed local only
/// counts in hunks inside its own function; a renamed parameter there too, or in hunks
/// whose new lines pass it by keyword to its function.
fn reach(site: &Site, changes: &[Hunk]) -> Option<Reach> {
    let name = site.symbol.rsplit('.').next().unwrap_or(&site.symbol);
    let relevant: Vec<&Hunk> = changes
        .iter()
        .filter(|h| match site.kind.rewrites() {
            Some(Rewrites::Local) => within(h, site),
            Some(Rewrites::Parameter) => within(h, site) || passes_keyword(h, site, name),
            _ => true,
        })
        .collect();
    let any = |lines: &dyn Fn(&Hunk) -> &[String]| relevant.iter().any(|h| lines(h).iter().any(|l| naming::occurs_in_code(l, name)));
    if any(&|h| &h.added) {
        return Some(Reach::Uses);
    }
    if any(&|h| &h.removed) {
        return Some(Reach::Edits);
    }
    // Editing the body of a definition that moves is an edit of the lines that move.
    let inside = |h: &&Hunk| h.path == site.path && h.old.start < site.lines.end && site.lines.start < h.old.end.max(h.old.start + 1);
    (site.kind.rewrites() == Some(Rewrites::Location) && relevant.iter().any(inside)).then_some(Reach::Edits)
}

/// Whether hunk `h` lies inside `site`'s lines: it replaces lines of the unit, or
/// inserts between two of them (an insertion at the unit's edge belongs to no unit).
fn within(h: &Hunk, site: &Site) -> bool {
    let lines = &site.lines;
    h.path == site.path
        && match h.old.is_empty() {
            true => lines.start < h.old.start && h.old.start < lines.end,
            false => lines.start <= h.old.start && h.old.end <= lines.end,
        }
}

/// Whether hunk `h`'s new lines call the function of parameter site `site` (by its own
/// name; a class's for `__init__`) and pass a keyword `name=`.
fn passes_keyword(h: &Hunk, site: &Site, name: &str) -> bool {
    let function = site.symbol.rsplit_once('.').map_or("", |(function, _)| function);
    let keyword = format!("{name}=");
    callee(function).is_some_and(|callee| {
        h.added.iter().any(|l| naming::occurs_in_code(l, callee)) && h.added.iter().any(|l| l.contains(&keyword) && naming::occurs_in_code(l, name))
    })
}

