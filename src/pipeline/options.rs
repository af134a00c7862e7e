//! What decides what `gen-tasks` produces, plus how it runs: [`GenOptions`], the run
//! record a manifest keeps ([`crate::bundle::version::VersionMeta`]) and the default substrates
//! ([`embedded_substrates`]).

use std::path::PathBuf;

use anyhow::{Context, Result};

use super::order::Goal;
use crate::agent::{AgentCommand, Policy};
use crate::bundle::manifest::AgentRungEntry;
use crate::bundle::version::VersionMeta;
use crate::difficulty::quota::Quotas;
use crate::forge::Family;
use crate::pytest::select::SelectionMode;
use crate::substrate::{self, SubstrateSpec};

/// Everything that decides what `gen-tasks` produces, plus how it runs.
#[derive(Debug, Clone)]
pub(crate) struct GenOptions {
    /// Substrates to use, in order.
    pub(crate) substrates: Vec<SubstrateSpec>,
    pub(crate) out: PathBuf,
    /// Where test outcomes are cached (default `OUT/.mergeforge-cache`).
    pub(crate) cache_dir: PathBuf,
    pub(crate) dataset: String,
    pub(crate) version: String,
    pub(crate) seed: u64,
    pub(crate) max_tasks: Option<usize>,
    pub(crate) families: Vec<Family>,
    /// The scale of the tasks the families that deal branches make (`--scale`).
    pub(crate) scale: crate::difficulty::Scale,
    /// Tasks kept per (substrate, family) (without quotas).
    pub(crate) per_cell: usize,
    /// Candidates tried per (substrate, family) at most.
    pub(crate) candidates_per_cell: usize,
    /// Level quotas; `None` keeps `per_cell` tasks per cell instead.
    pub(crate) quotas: Option<Quotas>,
    pub(crate) jobs: usize,
    pub(crate) progress: bool,
    /// The canonical command line recorded in the manifest.
    pub(crate) command: Vec<String>,
    /// Which tests run on a tree: selected by a coverage map of HEAD, or all of them.
    pub(crate) selection: SelectionMode,
    /// Leave the `mergiraf` rung out of the ladder (`--no-mergiraf`); the command that
    /// runs the pipeline chooses the rung's binary before it starts
    /// ([`crate::resolve::mergiraf::prepare`]).
    pub(crate) no_mergiraf: bool,
    /// Read the last N commits of each git substrate's history for the history families
    /// (`--history N`); `None`: each substrate's `history = N`, if any.
    pub(crate) history: Option<usize>,
    /// Which interpreter history candidates' tests run on (`--history-python`).
    pub(crate) history_python: HistoryPython,
    /// The agent rung (`--agent-rung`): an external agent played on every candidate the
    /// resolvers leave hard.
    pub(crate) agent_rung: Option<AgentRungOptions>,
    /// The CPU seconds a detected suite may take at HEAD (`--max-suite-cpu-seconds`);
    /// a slower one is skipped.
    pub(crate) max_suite_cpu_seconds: u64,
}

/// Which interpreter a history commit's tests run on (`gen-tasks --history-python`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum HistoryPython {
    /// The commit's own: the Python its metadata and date point to, among those
    /// installed, with its dependencies as of its date (a substrate.toml that sets
    /// `python` keeps that one).
    #[default]
    Era,
    /// HEAD's interpreter and venv for every commit.
    Head,
}

/// The agent rung of a run: `gen-tasks --agent-rung CMD [--agent-rung-tries K]
/// [--agent-label LABEL]`.
#[derive(Debug, Clone)]
pub(crate) struct AgentRungOptions {
    /// The command, exactly as given: part of the cache's key, never recorded.
    pub(crate) command: String,
    /// What the command alone does not say (the model, its settings); part of the key.
    pub(crate) label: Option<String>,
    /// Tries per candidate (at least 1): one that solves it in any of them is medium.
    pub(crate) tries: u32,
    /// The sandbox policy every try runs under (`--agent-timeout`, `--agent-network`,
    /// `--agent-env`, `--agent-ro`, `--agent-home`); what can change a try's outcome is
    /// part of the cache's key.
    pub(crate) policy: Policy,
}

impl AgentRungOptions {
    /// The command's name: its program's file name (`argv[0]` without folders), which is
    /// all a manifest records of it.
    pub(crate) fn name(&self) -> String {
        AgentCommand::parse(&self.command).map_or_else(|_| "agent".to_string(), |c| c.program_name())
    }

    /// What the manifest's ladder records of the rung.
    pub(crate) fn entry(&self) -> AgentRungEntry {
        AgentRungEntry { name: self.name(), label: self.label.clone(), tries: self.tries }
    }
}

impl GenOptions {
    /// What the manifest records about the run.
    pub(crate) fn meta(&self) -> VersionMeta {
        VersionMeta {
            dataset: self.dataset.clone(),
            version: self.version.clone(),
            command: self.command.clone(),
            seed: self.seed,
        }
    }

    /// What decides which kept candidates become tasks.
    pub(crate) fn goal(&self) -> Goal<'_> {
        match &self.quotas {
            Some(quotas) => Goal::Quotas(quotas),
            None => Goal::PerCell(self.per_cell),
        }
    }
}

/// The embedded substrates: every folder with a `substrate.toml` under `substrates/`
/// (found by [`substrate::embedded_root`]), sorted by name.
pub(crate) fn embedded_substrates() -> Result<Vec<SubstrateSpec>> {
    let root = substrate::embedded_root()?;
    let mut specs = Vec::new();
    let entries = std::fs::read_dir(&root)
        .with_context(|| format!("{}: no embedded substrates; pass --substrate PATH", root.display()))?;
    for entry in entries {
        let path = entry?.path();
        if path.join(substrate::config::CONFIG_FILE).is_file() {
            specs.push(SubstrateSpec { path, config_file: None, test_command: None });
        }
    }
    specs.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(specs)
}
