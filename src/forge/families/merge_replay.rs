//! merge-replay: a merge commit of the project's own history, merged again. Base is the
//! parents' merge base, ours the first parent, theirs the second, gold the merge
//! commit's tree: the resolution its maintainer wrote. Only merges whose re-merge
//! conflicts in a Python source file are proposed (the history scan's replayable ones);
//! the sides' verdicts are recorded, not required, and the ladder levels the task like
//! any other, so some are easy.

use crate::forge::proposal::{FamilyBuilder, ForgeInput, Intent, Proposal, Recipe, SideRule};
use crate::substrate::history::{real, HistoryScan, RealKind, RealOrigin, ReplayableMerge};
use crate::substrate::commit_files;

pub(crate) struct MergeReplay;

impl FamilyBuilder for MergeReplay {
    fn side_rule(&self) -> SideRule {
        SideRule::Recorded
    }

    fn description(&self) -> &'static str {
        "a merge commit of the project's history re-merged: base is the merge base, the sides are its two parents \
         (authors and messages kept) and gold is the merge its maintainer committed."
    }

    fn recipes<'a>(&self, input: &ForgeInput<'a>) -> Vec<Recipe<'a>> {
        let Some(history) = input.history else { return Vec::new() };
        history
            .merges
            .iter()
            .map(|merge| Recipe {
                key: format!("merge-replay|{}", merge.merge),
                kinds: Vec::new(),
                build: Box::new(move || match proposal(history, merge) {
                    Ok(proposal) => Some(proposal),
                    Err(err) => {
                        log::warn!("merge {}: {err:#}; skipped", merge.merge);
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

/// The task of one replayable merge, read from the repository.
fn proposal(history: &HistoryScan, merge: &ReplayableMerge) -> anyhow::Result<Proposal> {
    let repo = history.open()?;
    let ours = real::squashed(&repo, merge.base, merge.ours)?;
    let theirs = real::squashed(&repo, merge.base, merge.theirs)?;
    let hex = |oid: git2::Oid| oid.to_string();
    Ok(Proposal {
        key: format!("merge-replay|{}", merge.merge),
        base: commit_files(&repo, merge.base)?,
        ours: commit_files(&repo, merge.ours)?,
        theirs: commit_files(&repo, merge.theirs)?,
        gold: commit_files(&repo, merge.merge)?,
        mutations: Vec::new(),
        summary: format!("merge {} of the project's history re-merged: {}", &hex(merge.merge)[..12], merge.summary),
        ours_intent: Intent::real(ours),
        theirs_intent: Intent::real(theirs),
        origin: Some(RealOrigin {
            kind: RealKind::Merge,
            commit: hex(merge.merge),
            base: hex(merge.base),
            sides: vec![hex(merge.ours), hex(merge.theirs)],
        }),
        interactions: Vec::new(),
    })
}
