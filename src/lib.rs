//! mergeforge manufactures verified merge-conflict tasks from Python repositories whose
//! tests pass.
//!
//! The data flows one way (`docs/architecture.md` walks through it):
//!
//! ```text
//! substrate → mutate → forge → merge → validate → difficulty → bundle
//! ```
//!
//! * [`substrate`] loads a repository and its `substrate.toml`, and proves its tests pass.
//! * [`python`] parses Python sources (rustpython-parser), walks their AST and checks that
//!   an edited module still parses; `mutate`, `forge`, `resolve` and `env` build on it.
//! * [`mutate`] finds AST nodes with rustpython-parser and edits them as text splices.
//! * [`intent`] holds the intents: the changes a developer means (features with their
//!   tests, refactors), each found on HEAD and applied to any tree.
//! * [`forge`] turns mutations into the four commits of a task (base, ours, theirs, gold).
//! * [`merge`] merges ours and theirs in memory with git2 and reads the conflict markers.
//! * [`resolve`] holds the baseline resolvers, the ladder that levels tasks (one
//!   catalogue; `docs/reference/ladder.md` lists its rungs).
//! * [`judge`] is the one judgement of *solves*: gold's tests, the tree's own tests, static
//!   findings against gold ([`judge::findings`]: a pinned ruff and AST checks).
//! * [`validate`] runs the tests on every tree a task needs and checks the family's rules.
//! * [`difficulty`] levels a validated task and scores it.
//! * [`bundle`] writes the versioned, content-addressed dataset.
//! * [`publish`] turns a version into a Hugging Face Hub dataset repository and pushes it.
//! * [`env`](mod@env) serves tasks to agents as an OpenEnv environment and scores baseline agents.
//! * [`agent`] runs any command-line agent on the environment's tasks (`eval --agent-cmd`).
//! * [`sandbox`] runs untrusted commands with limits (the jail); every stage that runs code uses it.
//! * [`pytest`] runs a tree's tests in the sandbox: the venv, the runner and its outcome
//!   cache, test selection from a coverage map of HEAD, fork servers.
//! * [`curriculum`] makes the next dataset version from agents' results.
//! * [`tools`] installs the programs run as processes (ruff, uv), pinned, from PyPI.
//! * [`leftovers`] names temporaries by their process and clears a killed run's.
//! * [`pipeline`] drives the stages for `gen-tasks`; [`cli`] is the command-line surface.
//! * [`bench`](mod@bench) measures what generating costs (selection modes, merges, memory).

pub(crate) mod agent;
pub(crate) mod bench;
pub mod bundle;
pub mod cli;
pub(crate) mod curriculum;
pub(crate) mod difficulty;
pub mod env;
pub mod forge;
pub mod intent;
pub(crate) mod judge;
pub mod leftovers;
pub mod merge;
pub mod mutate;
pub(crate) mod pipeline;
pub mod publish;
pub mod pytest;
pub mod python;
pub mod resolve;
// The jail forks, enters namespaces, joins cgroups and sets rlimits between fork and
// exec: libc calls with no safe std equivalent. No other module may use `unsafe`.
#[allow(unsafe_code)]
pub mod sandbox;
pub mod snapshot;
pub mod substrate;
pub(crate) mod tools;
pub mod validate;

/// Name and version of this generator, recorded in every manifest.
pub(crate) const GENERATOR: &str = "mergeforge";
pub(crate) const GENERATOR_VERSION: &str = env!("CARGO_PKG_VERSION");
