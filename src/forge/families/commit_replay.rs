//! commit-replay: a real commit of the project's history against a refactor of its
//! parent. A commit C with parent P that changes source files together with their tests
//! is a gold patch: ours is C's own change, with its real message and author. Theirs is
//! a semantics-preserving refactor of the intents catalogue (rename a function, class or
//! constant, rename a local, move a definition to another module) applied to P where it
//! meets C: it rewrites a name on lines C changes, or a name C's new lines use. Base is
//! P; gold is the same refactor applied to C, so the resolution carries the refactor
//! into code only C has. The tests decide the rest: P, C, the refactored P and gold must
//! pass, and neither side taken for every hunk may solve the task.

use std::collections::BTreeSet;

use crate::forge::proposal::{seeded_rank, FamilyBuilder, ForgeInput, Intent, Proposal, Recipe, SideRule};
use crate::intent::{Kind, Site, Workspace};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};
use crate::substrate::history::{hunks, GoldPatch, HistoryScan, Hunk, RealKind, RealOrigin};
use crate::substrate::{commit_files, SubstrateConfig};

pub struct CommitReplay;

/// The refactors a replayed commit is set against.
const REFACTORS: [Kind; 3] = [Kind::Rename, Kind::RenameLocal, Kind::Move];

impl FamilyBuilder for CommitReplay {
    fn side_rule(&self) -> SideRule {
        SideRule::BothPass
    }

    fn group(&self) -> crate::forge::proposal::Group {
        crate::forge::proposal::Group::History
    }

    fn description(&self) -> &'static str {
        "a real commit that changes code with its tests (its message and author kept) against a refactor of its parent \
         that renames or moves what the commit edits or uses; gold is the refactor applied to the commit."
    }

    fn recipes<'a>(&self, input: &ForgeInput<'a>) -> Vec<Recipe<'a>> {
        let Some(history) = input.history else { return Vec::new() };
        let (config, seed) = (&input.substrate.config, input.seed);
        history
            .commits
            .iter()
            .map(|patch| Recipe {
                key: format!("commit-replay|{}", patch.commit),
                build: Box::new(move || match proposal(history, patch, config, seed) {
                    Ok(proposal) => proposal,
                    Err(err) => {
                        eprintln!("warning: commit {}: {err:#}; skipped", patch.commit);
                        None
                    }
                }),
            })
            .collect()
    }

    fn in_default_mix(&self) -> bool {
        false
    }
}

/// The task of one gold patch: the first refactor (in seeded order, those reaching C's
/// new lines first) that applies to both P and C and collides with C; `None` when none does.
fn proposal(
    history: &HistoryScan,
    patch: &GoldPatch,
    config: &SubstrateConfig,
    seed: u64,
) -> anyhow::Result<Option<Proposal>> {
    let repo = history.open()?;
    let (parent, commit) = (commit_files(&repo, patch.parent)?, commit_files(&repo, patch.commit)?);
    let changes = hunks(&repo, patch)?;
    let modules = parsed_sources(&parent, config);
    let workspace = Workspace { tree: &parent, modules: &modules, coverage: None, probe: None };
    let mut sites: Vec<(bool, String, Site)> = REFACTORS
        .iter()
        .flat_map(|kind| kind.sites(&workspace))
        .filter_map(|site| {
            let reach = reach(&site, &changes)?;
            Some((reach == Reach::Uses, seeded_rank(seed, &format!("{}|{}", patch.commit, site.key())), site))
        })
        .collect();
    // Refactors of names C's new lines use first (the hard form), then seeded order.
    sites.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    for (_, _, site) in sites {
        let (Some(theirs), Some(gold)) = (site.apply(&workspace, &parent), site.apply(&workspace, &commit)) else {
            continue;
        };
        if theirs == parent || gold == commit {
            continue;
        }
        let short = &patch.commit.to_string()[..12];
        return Ok(Some(Proposal {
            key: format!("commit-replay|{}", patch.commit),
            summary: format!(
                "commit {short} of the project's history against `{}` ({}); gold applies the refactor to the commit",
                site.message(),
                site.kind
            ),
            base: parent,
            ours: commit,
            theirs,
            gold,
            mutations: Vec::new(),
            ours_intent: Intent::real(patch.change.clone()),
            theirs_intent: Intent::making(vec![site]),
            origin: Some(RealOrigin {
                kind: RealKind::Commit,
                commit: patch.commit.to_string(),
                base: patch.parent.to_string(),
                sides: vec![patch.commit.to_string()],
            }),
        }));
    }
    Ok(None)
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

/// How `site` meets the commit's `changes`, if it does. A renamed local only counts in
/// hunks of its own function's lines.
fn reach(site: &Site, changes: &[Hunk]) -> Option<Reach> {
    let name = site.symbol.rsplit('.').next().unwrap_or(&site.symbol);
    let local = site.kind == Kind::RenameLocal;
    let relevant: Vec<&Hunk> = changes
        .iter()
        .filter(|h| !local || (h.path == site.path && h.old.start < site.lines.end && site.lines.start <= h.old.end))
        .collect();
    let any = |lines: &dyn Fn(&Hunk) -> &[String]| relevant.iter().any(|h| lines(h).iter().any(|l| mentions(l, name)));
    if any(&|h| &h.added) {
        return Some(Reach::Uses);
    }
    if any(&|h| &h.removed) {
        return Some(Reach::Edits);
    }
    // Editing the body of a definition that moves is an edit of the lines that move.
    let inside = |h: &&Hunk| h.path == site.path && h.old.start < site.lines.end && site.lines.start < h.old.end.max(h.old.start + 1);
    (site.kind == Kind::Move && relevant.iter().any(inside)).then_some(Reach::Edits)
}

/// Whether `line` holds `name` as a whole word (code, not a comment).
fn mentions(line: &str, name: &str) -> bool {
    let code = line.split('#').next().unwrap_or_default();
    let words: BTreeSet<&str> = code.split(|c: char| !(c.is_alphanumeric() || c == '_')).collect();
    words.contains(name)
}
