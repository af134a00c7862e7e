//! Judging one candidate: its commits written, merged (a clean or unsupported merge is
//! rejected), validated on the substrate's runner (or its era's, for a history commit
//! that has one; [`super::rig`]), levelled (by the agent rung too, when
//! the run has one and no resolver solves it), and given its id and near-duplicate
//! fingerprint; a kept one is bundled into its [`TaskFiles`].

use std::path::Path;

use anyhow::Result;

use super::accept::{Keepable, Verdict};
use super::agent_rung::AgentRung;
use super::draft::Draft;
use super::grader_check;
use super::stage::Prepared;
use crate::bundle::record::{self, TaskFiles, TaskInput};
use crate::bundle::task::ConflictKind;
use crate::bundle::task_id;
use crate::difficulty::{self, contract, near_duplicate, Features, Level, Scale};
use crate::forge::commits::write_task_commits;
use crate::forge::{Candidate, Group};
use crate::merge::{self, MergeResult};
use crate::mutate::OperatorRef;
use crate::resolve;
use crate::snapshot::{self, Snapshot};
use crate::validate::{self, Rejection, Validation};

/// Judges `candidate` of substrate `index` (prepared as `prepared`), writing its
/// commits to the scratch repository at `repo_path`.
pub(super) fn judge(
    prepared: &Prepared,
    index: usize,
    candidate: &Candidate,
    repo_path: &Path,
    agent_rung: Option<&AgentRung>,
) -> Result<Verdict<Box<Draft>>> {
    let repo = git2::Repository::open_bare(repo_path)?;
    let commits = write_task_commits(&repo, candidate)?;
    let (conflicted, conflicts) = match merge::merge(&repo, commits.ours, commits.theirs)? {
        // A clean merge of two valid changes may still break: a semantic conflict, whose
        // files are those both sides touched (the tests decide whether it is one).
        MergeResult::Clean { tree } if candidate.family.group().allows_clean_merge() => {
            (tree, merge::touched_by_both(&candidate.base, &candidate.ours, &candidate.theirs))
        }
        MergeResult::Clean { .. } => return Ok(Verdict::rejected(Rejection::CleanMerge)),
        MergeResult::Unsupported(_) => return Ok(Verdict::rejected(Rejection::UnsupportedConflict)),
        MergeResult::Conflicted { tree, files } => (tree, files),
    };
    let paths: Vec<String> = conflicts.iter().map(|c| c.path.clone()).collect();
    let marked: Vec<String> = conflicts.iter().filter(|c| c.hunks > 0).map(|c| c.path.clone()).collect();
    if validate::leak::leaked_line(candidate, &paths).is_some() {
        return Ok(Verdict::rejected(Rejection::MessageLeak));
    }
    if candidate.family.group() != Group::History {
        let (base, ours, theirs, gold) = (&candidate.base, &candidate.ours, &candidate.theirs, &candidate.gold);
        if let Some(found) = validate::derivable::underivable(base, ours, theirs, gold) {
            log::debug!("{}: not derivable: {found}", candidate.key);
            return Ok(Verdict::rejected(Rejection::NotDerivable));
        }
    }
    // A history commit with an era runs on its own interpreter and dependencies.
    let era_rig = match prepared.era_of(candidate).map(|era| prepared.era_rig(era)) {
        Some(Ok(rig)) => Some(rig),
        Some(Err(err)) => {
            log::debug!("{}: {err:#}", candidate.key);
            return Ok(Verdict::rejected(Rejection::UnresolvedEnvironment));
        }
        None => None,
    };
    let (runner, checker, test_command) = match &era_rig {
        Some(rig) => (&rig.runner, &rig.checker, &rig.test_command),
        None => (&prepared.runner, &prepared.checker, &prepared.substrate.config.test_command),
    };
    let mut validation = match validate::validate(candidate, &conflicted, &marked, runner)? {
        Ok(validation) => validation,
        Err(reason) => return Ok(Verdict::rejected(reason)),
    };
    let witnessed = validate::witness::witnessed(candidate, runner)?;
    let outside = record::edits_outside_conflicts(&conflicted, &candidate.gold, &paths);
    let conflict_kind = record::conflict_kind(&conflicted, &candidate.gold, &marked);
    let mut operators: Vec<OperatorRef> = candidate.mutations.iter().map(|m| m.operator).collect();
    operators.sort();
    operators.dedup();
    // A side of the repair group or a real commit makes one change.
    let intents = [&candidate.ours_intent, &candidate.theirs_intent].map(|i| i.changes.len().max(1));
    let files_changed = changed_files(&candidate.base, &candidate.ours, &candidate.theirs);
    let features = Features {
        hunks: conflicts.iter().map(|c| c.hunks).sum(),
        conflicted_lines: conflicts.iter().map(|c| c.conflicted_lines).sum(),
        conflicted_files: conflicts.len(),
        files_outside_conflicts: outside.len(),
        novel_gold_lines: novel_gold_lines(&conflicted, &candidate.gold, &paths, &outside),
        failing_tests_ours: validation.ours.failed_tests.len(),
        failing_tests_theirs: validation.theirs.failed_tests.len(),
        operators,
        family: candidate.family,
        contract_kinds: contract::kinds(candidate),
        call_sites_to_adapt: contract::call_sites_to_adapt(candidate),
        intents: intents.iter().sum(),
        commits: candidate.ours_intent.commit_count() + candidate.theirs_intent.commit_count(),
        files_changed,
    };
    let scale = Scale::of(intents, files_changed, witnessed.iter().filter(|w| **w == Some(true)).count());
    let substrate = &prepared.substrate;
    let id = task_id(&substrate.name, &substrate.tree_id, &commits);
    let fingerprint = near_duplicate::fingerprint(
        paths.iter().filter_map(|p| crate::snapshot::text_of(&conflicted, p).map(|t| (p.as_str(), t))),
    );
    let make = |validation: &Validation| {
        let difficulty = difficulty::assess(validation, &features);
        let input = TaskInput {
            id: &id,
            substrate,
            candidate,
            commits: &commits,
            conflicted: &conflicted,
            conflicts: &conflicts,
            validation,
            difficulty: &difficulty,
            features: &features,
            conflict_kind,
            scale,
            witnessed: &witnessed,
            python: checker.python(),
            test_command,
        };
        TaskFiles::make(&repo, &input)
    };
    let mut files = make(&validation)?;
    // The agent rung plays what every resolver left hard, on the task's own workspace;
    // the task is made again with its outcome (a solved one is medium).
    if let Some(rung) = agent_rung.filter(|_| validation.baselines.left_hard()) {
        let outcome = rung.play(&files, &conflicted, &candidate.gold, runner, checker)?;
        validation.baselines.agent = Some(outcome);
        files = make(&validation)?;
    }
    let level = files.task.difficulty.level;
    let files = match grader_check::check(checker, files)? {
        Ok(files) => files,
        Err(reason) => return Ok(Verdict::rejected(reason)),
    };
    Ok(Verdict::Kept(Box::new(Draft {
        id,
        fingerprint,
        substrate: index,
        family: candidate.family,
        level,
        conflict_kind,
        intents: files.solution.intents.keys(),
        files,
    })))
}

/// How many files `ours` or `theirs` changes from `base`.
fn changed_files(base: &Snapshot, ours: &Snapshot, theirs: &Snapshot) -> usize {
    let changed = |p: &&String| base.get(*p) != ours.get(*p) || base.get(*p) != theirs.get(*p);
    snapshot::paths_of(base, ours, theirs).into_iter().filter(changed).count()
}

/// Gold's lines that no version has, over the conflicted files (against base, ours and
/// theirs) and the files gold edits outside them (against the clean merge).
fn novel_gold_lines(conflicted: &Snapshot, gold: &Snapshot, paths: &[String], outside: &[String]) -> usize {
    let text = |tree: &'_ Snapshot, path: &str| snapshot::text_of(tree, path).unwrap_or_default().to_string();
    let in_conflicts = paths.iter().map(|path| {
        let merged = text(conflicted, path);
        let versions = resolve::versions(&merged);
        let sides = versions.as_ref().map_or(vec![merged.as_str()], |v| vec![&v.base, &v.ours, &v.theirs]);
        difficulty::novel_lines(&text(gold, path), &sides)
    });
    let beside = outside.iter().map(|path| difficulty::novel_lines(&text(gold, path), &[&text(conflicted, path)]));
    in_conflicts.chain(beside).sum()
}

impl Keepable for Box<Draft> {
    fn id(&self) -> &str {
        &self.id
    }
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
    fn level(&self) -> Level {
        self.level
    }
    fn conflict_kind(&self) -> ConflictKind {
        self.conflict_kind
    }
    fn intents(&self) -> &[String] {
        &self.intents
    }
}
