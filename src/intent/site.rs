//! The interface every intent kind implements and returns: [`Transform`], the
//! [`Site`]s it finds, the [`Workspace`] it reads and the [`Change`] it is. Kinds depend
//! on this file and on [`super::kind`]; the catalogue in `intent/mod.rs` depends on them.

use std::collections::BTreeSet;
use std::ops::Range;

use super::kind::Kind;
use crate::pytest::select::CoverageMap;
use crate::python::PyModule;
use crate::snapshot::Snapshot;

/// What a [`Site`]'s change is to a developer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// A unit of behaviour with its tests; applying it takes the unit out.
    Feature,
    /// A semantics-preserving edit of source and tests, rewriting what it says.
    Refactor(Rewrites),
    /// A deliberate change of what a unit promises (its signature, what it returns, the
    /// units of a value), with every existing caller and test adapted on the same side:
    /// the unchanged suite fails, the adapted one passes. Code written elsewhere against
    /// the old promise must be adapted the same way.
    Contract(Contract),
}

impl Change {
    /// `feature` or `refactor`.
    pub(crate) fn group(self) -> &'static str {
        match self {
            Change::Feature => "feature",
            Change::Refactor(_) => "refactor",
            Change::Contract(_) => "contract",
        }
    }
}

/// Which promise a contract change alters: families and difficulty features group
/// contract kinds by it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, strum::IntoStaticStr, strum::EnumIter,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Contract {
    /// The parameters a call passes: added, reordered, made keyword-only.
    Signature,
    /// What a call returns: its shape (tuple, object, pair) or how a miss is reported.
    ReturnShape,
    /// The units or scale of a value passed or returned (seconds → milliseconds).
    Units,
}

impl Contract {
    /// The kebab-case name (`return-shape`).
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// What a refactor rewrites: families pick the refactors a feature can collide with by
/// it, never by naming kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rewrites {
    /// A module-level name (function, class, constant) everywhere it is used.
    ModuleName,
    /// A local variable of one function (the site's symbol is `function.name`).
    Local,
    /// A parameter of one function, with its keyword arguments at calls (the site's
    /// symbol is `function.name`).
    Parameter,
    /// A method name: the method, its overrides and every attribute access of the name.
    Method,
    /// Where a unit lives: a move to another module, with every import and use.
    Location,
    /// A run of one function's statements, moved into a new helper the function calls
    /// (the site's symbol is the function; its lines are the run's).
    Block,
}

/// What intents see of a substrate at HEAD.
#[derive(Clone, Copy)]
pub struct Workspace<'a> {
    /// HEAD's tree (every file of the substrate).
    pub tree: &'a Snapshot,
    /// HEAD's parsed source modules (the substrate's mutable sources), sorted by path.
    pub modules: &'a [PyModule],
    /// The coverage map of HEAD, when the run made one: test node id → the functions it
    /// ran (`path:first_line:name`).
    pub coverage: Option<&'a CoverageMap>,
    /// Runs the tests on a tree, when the run can (features that need a test run to
    /// find their tests: `branch`). `None`: those kinds find no site.
    pub probe: Option<&'a dyn Probe>,
}

/// The capability to run a substrate's tests on a tree (the pipeline's test runner):
/// intents ask it, they do not run tests themselves.
pub trait Probe: Sync {
    /// The ids of the tests failing on `tree` (as pytest names them, parametrize
    /// suffixes included), sorted; `None` when the run failed or timed out.
    fn failing_tests(&self, tree: &Snapshot) -> Option<Vec<String>>;
}

/// Where one intent applies, by name: found on HEAD by [`Transform::sites`], applied to
/// any tree that still has the symbol by [`Transform::apply`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Site {
    pub kind: Kind,
    /// The file holding the symbol (repository-relative).
    pub path: String,
    /// Qualified name of the unit: `func`, `Class.method`, `CONSTANT`, for a local
    /// `func.local`, for a branch its function's with a suffix (`func#elif2`).
    pub symbol: String,
    /// The unit's 1-based line span in HEAD's file (decorators included), end exclusive.
    pub lines: Range<usize>,
    /// Module-level names of the project the unit refers to (features: what it uses,
    /// with `.name` for an attribute read on `self` or `cls`; refactors: the names the
    /// change rewrites), for pairing intents into tasks.
    pub(crate) uses: BTreeSet<String>,
    /// Refactors: the new name, or the destination module's path for a move. Features:
    /// the one-line summary of the unit's docstring, when short, for the commit message;
    /// for a branch, what locates it in its function (`clause|occurrence|header`).
    pub target: Option<String>,
    /// Features: the test node ids taken out with the unit (sorted).
    pub tests: Vec<String>,
}

impl Site {
    /// Stable identity of the site (orders candidates, names recipes).
    pub fn key(&self) -> String {
        Site::key_of(self.kind, &self.path, &self.symbol, self.target.as_deref())
    }

    /// The [`Site::key`] of the site these parts name (a recorded intent's too).
    pub(crate) fn key_of(kind: Kind, path: &str, symbol: &str, target: Option<&str>) -> String {
        format!("{}|{path}|{symbol}|{}", kind.name(), target.unwrap_or_default())
    }
}

/// An intent kind: one small type in its own file, listed once in the catalogue.
pub trait Transform: Sync + Send {
    /// Feature or refactor.
    fn change(&self) -> Change;
    /// One sentence on the change, for the dataset card and `--help`.
    fn description(&self) -> &'static str;
    /// Every site of this kind at HEAD, in a deterministic order.
    fn sites(&self, workspace: &Workspace) -> Vec<Site>;
    /// `tree` with the change applied: a feature's unit and its tests taken out, or the
    /// refactor made. `None` when it does not apply to `tree` (the symbol is not there,
    /// an edited file would not parse, the result would leave dead code).
    fn apply(&self, workspace: &Workspace, tree: &Snapshot, site: &Site) -> Option<Snapshot>;
    /// The commit message of the side that makes this change (for a feature, the side
    /// that adds it): what its developer would write, never how two changes combine.
    fn message(&self, site: &Site) -> String;
    /// Whether two sites of this kind may need the same test: taking one out removes
    /// only the lines of a shared test that name it, so each side keeps the test with
    /// its own lines (two entries of one table asserted in one test function).
    fn shares_tests(&self) -> bool {
        false
    }
}
