//! Intents: the changes a developer means, applied to a working tree.
//!
//! An intent is one concrete kind of change, in its own file, named in [`Kind`] and
//! listed in `catalogue!`'s invocation below (which declares its module and makes
//! `Kind::transform`, an exhaustive match). Two groups ([`Change`]):
//!
//! - **feature** kinds find a unit of behaviour present at HEAD (a function, a method,
//!   ...) together with the tests that need it. Applying one *takes the unit out* with
//!   those tests, so the stripped tree passes; the side that re-adds it goes from the
//!   stripped tree back, carrying HEAD's real code and tests.
//! - **refactor** kinds are semantics-preserving edits applied consistently to source
//!   and tests (rename, move, ...): after one, the unchanged suite still passes.
//! - **contract** kinds change what a unit promises ([`Contract`]: its signature, the
//!   shape of what it returns, the units of a value) and adapt every caller and test in
//!   the tree the way its developer would: the adapted suite passes, and code written
//!   against the old promise (another side's feature) must be adapted the same way.
//!
//! A [`Site`] names where an intent applies by symbol and path, not by byte offsets, so
//! the same site can be applied to HEAD and to trees that differ from it elsewhere (a
//! rename applied to HEAD-without-a-feature and to HEAD). Families (`forge`) combine
//! intents into the sides of a task; validation proves each side by its tests.
//!
//! This stage knows nothing of families, merges or test runs; it reads the coverage map
//! of HEAD when the run made one.
//!
//! Files: [`kind`] (the [`Kind`] enum), [`site`] (the interface: [`Transform`], [`Site`],
//! [`Workspace`], [`Change`]), one file per kind, and what kinds share ([`naming`],
//! `refs`, `strip`, `suite`, `prune`, `callers`, `signature`, `scale`, `scale_calls`).
//! Adding a kind: its file and its line in the list of `kind.rs`.

mod callers;
mod kind;
pub(crate) mod naming;
mod site;

pub use kind::Kind;
pub(crate) use move_def::{folder, main_user, movable};
pub(crate) use rename::lines_of;
pub(crate) use rename_param::callee;
pub use site::{Change, Contract, Probe, Rewrites, Site, Transform, Workspace};

use crate::snapshot::Snapshot;

/// Declares each kind's module and makes `Kind::transform` from the list of kinds
/// (`kind::kinds!`).
macro_rules! catalogue {
    ($($variant:ident => $module:ident :: $kind:ident,)*) => {
        $(mod $module;)*

        impl Kind {
            /// The kind's catalogue entry.
            pub(crate) fn transform(self) -> &'static dyn Transform {
                match self {
                    $(Kind::$variant => &$module::$kind,)*
                }
            }
        }
    };
}

pub(crate) mod prune;
pub(crate) mod refs;
mod scale;
mod scale_calls;
mod signature;
pub(crate) mod strip;
pub(crate) mod suite;
mod units;

kind::kinds!(catalogue);

impl Kind {
    /// Every site of this kind at HEAD.
    pub fn sites(self, workspace: &Workspace) -> Vec<Site> {
        self.transform().sites(workspace)
    }

    /// The feature kinds, in catalogue order.
    pub(crate) fn features() -> Vec<Kind> {
        Kind::ALL.into_iter().filter(|k| k.is_feature()).collect()
    }

    /// Whether the kind is a feature (taken out, then added back by a side), not a refactor.
    pub(crate) fn is_feature(self) -> bool {
        self.transform().change() == Change::Feature
    }

    /// What the kind rewrites, when it is a refactor.
    pub(crate) fn rewrites(self) -> Option<Rewrites> {
        match self.transform().change() {
            Change::Refactor(rewrites) => Some(rewrites),
            Change::Feature | Change::Contract(_) => None,
        }
    }

    /// Which promise the kind changes, when it is a contract change.
    pub(crate) fn contract(self) -> Option<Contract> {
        match self.transform().change() {
            Change::Contract(contract) => Some(contract),
            Change::Feature | Change::Refactor(_) => None,
        }
    }

    /// The contract kinds, in catalogue order.
    pub(crate) fn contracts() -> Vec<Kind> {
        Kind::ALL.into_iter().filter(|k| k.contract().is_some()).collect()
    }

    /// The refactor kinds, in catalogue order.
    pub(crate) fn refactors() -> Vec<Kind> {
        Kind::ALL.into_iter().filter(|k| k.rewrites().is_some()).collect()
    }

    /// The refactor kinds that rename something (every refactor but a move and an
    /// extraction), in catalogue order.
    pub(crate) fn renames() -> Vec<Kind> {
        let renames = |r: Rewrites| !matches!(r, Rewrites::Location | Rewrites::Block);
        Kind::ALL.into_iter().filter(|k| k.rewrites().is_some_and(renames)).collect()
    }

    /// Whether two sites of the kind may need the same test (see
    /// [`Transform::shares_tests`]).
    pub(crate) fn shares_tests(self) -> bool {
        self.transform().shares_tests()
    }

    /// Whether the kind renames a name bound in one function (a local or a parameter):
    /// its site's symbol is `function.name`, and a feature uses it when it reads that name.
    pub(crate) fn renames_in_function(self) -> bool {
        matches!(self.rewrites(), Some(Rewrites::Local | Rewrites::Parameter))
    }
}

/// Every kind's sites at HEAD, found once per substrate (a probe's test runs are not
/// repeated by each family that reads them).
#[derive(Default)]
pub(crate) struct SiteTable(std::collections::BTreeMap<Kind, Vec<Site>>);

impl SiteTable {
    /// The sites of every kind of the catalogue.
    pub(crate) fn find(workspace: &Workspace) -> SiteTable {
        SiteTable(Kind::ALL.into_iter().map(|kind| (kind, kind.sites(workspace))).collect())
    }

    /// The sites of `kind` (none when the table was not filled).
    pub(crate) fn get(&self, kind: Kind) -> &[Site] {
        self.0.get(&kind).map_or(&[], Vec::as_slice)
    }

    /// How many sites each kind has (every kind of the catalogue when the table was
    /// filled, none when it was not).
    pub(crate) fn counts(&self) -> impl Iterator<Item = (Kind, usize)> + '_ {
        self.0.iter().map(|(kind, sites)| (*kind, sites.len()))
    }
}

impl Site {
    /// `tree` with this site's change applied (see [`Transform::apply`]).
    pub fn apply(&self, workspace: &Workspace, tree: &Snapshot) -> Option<Snapshot> {
        self.kind.transform().apply(workspace, tree, self)
    }

    /// The commit message of the side making this change.
    pub fn message(&self) -> String {
        self.kind.transform().message(self)
    }
}
