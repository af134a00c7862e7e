//! `keyword-only` (contract: signature): the defaulted parameters of a module-level
//! function or a method become keyword-only (`def render(node, indent=2, width=80)`
//! becomes `def render(node, *, indent=2, width=80)`), and every call in the tree
//! (sources and tests) that passes them by position passes them by keyword
//! (`render(tree, 4)` becomes `render(tree, indent=4)`). A call written against the old
//! signature fails loudly (`TypeError`).
//!
//! The site's symbol is the function (`render`, `Class.method`), its target the
//! parameters made keyword-only (`indent,width`). No site when the function has `*args`, keyword-only or
//! positional-only defaulted parameters already; when its calls cannot all be found or
//! told apart (`signature::calls`); when a call passes `*args` or more arguments than the
//! function has positions; or when no call passes a defaulted parameter by position.

use super::callers::{self, Edit};
use super::signature::{calls, parameter_span, text_at, Call, Def, Splices};
use super::kind::Kind;
use super::site::{Change, Contract, Site, Transform, Workspace};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

pub(crate) struct KeywordOnly;

impl Transform for KeywordOnly {
    fn change(&self) -> Change {
        Change::Contract(Contract::Signature)
    }

    fn description(&self) -> &'static str {
        "makes the defaulted parameters of a function keyword-only, with every call passing them by keyword"
    }

    fn sites(&self, workspace: &Workspace) -> Vec<Site> {
        let mut sites = Vec::new();
        for module in workspace.modules {
            for def in Def::all(module) {
                let Some(first) = first_defaulted(&def) else { continue };
                let Some(calls) = calls(workspace.tree, &def) else { continue };
                if !calls.iter().any(|c| c.args.len() > first) || plan(workspace.tree, &def, &calls, first).is_none() {
                    continue;
                }
                sites.push(Site {
                    kind: Kind::KeywordOnly,
                    path: module.path.clone(),
                    symbol: def.qual.clone(),
                    lines: super::lines_of(module, def.stmt),
                    uses: def.uses(),
                    target: Some(names(&def, first)),
                    tests: Vec::new(),
                });
            }
        }
        sites
    }

    fn apply(&self, _workspace: &Workspace, tree: &Snapshot, site: &Site) -> Option<Snapshot> {
        let module = PyModule::parse(&site.path, snapshot::text_of(tree, &site.path)?).ok()?;
        let def = Def::find(&module, &site.symbol)?;
        let first = first_defaulted(&def)?;
        if Some(names(&def, first).as_str()) != site.target.as_deref() {
            return None;
        }
        let calls = calls(tree, &def)?;
        callers::rewritten(tree, plan(tree, &def, &calls, first)?)
    }

    fn message(&self, site: &Site) -> String {
        let names: Vec<String> = site.target.as_deref().unwrap_or_default().split(',').map(|n| format!("`{n}`")).collect();
        let listed = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => names.join(""),
        };
        format!("`{}`: make {listed} keyword-only", site.symbol)
    }
}

/// The position of the first defaulted parameter, when it and every later positional
/// parameter may become keyword-only (no `*args`, no keyword-only parameter yet, none of
/// them positional-only).
fn first_defaulted(def: &Def) -> Option<usize> {
    let args = def.args;
    if args.vararg.is_some() || !args.kwonlyargs.is_empty() {
        return None;
    }
    let positional = def.positional();
    let first = positional.iter().position(|(p, _)| p.default.is_some())?;
    positional[first..].iter().all(|(_, keyword)| *keyword).then_some(first)
}

/// The names of parameters `first..`, comma-separated (the site's target).
fn names(def: &Def, first: usize) -> String {
    def.positional()[first..].iter().map(|(p, _)| p.def.arg.as_str()).collect::<Vec<_>>().join(",")
}

/// The splices making parameters `first..` keyword-only: the `*` in the signature and
/// every call's positional arguments from `first` on named; `None` when a call forbids.
fn plan(tree: &Snapshot, def: &Def, calls: &[Call], first: usize) -> Option<Splices> {
    let positional = def.positional();
    let mut splices = Splices::new();
    let at = parameter_span(positional[first].0).start;
    splices.entry(def.module.path.clone()).or_default().push(Edit::new(at..at, "*, "));
    for call in calls {
        if call.args.iter().any(|a| a.starred) || call.args.len() > positional.len() {
            return None;
        }
        for (arg, (param, _)) in call.args.iter().zip(&positional).skip(first) {
            let value = text_at(tree, &call.path, &arg.span)?;
            splices.entry(call.path.clone()).or_default().push(Edit::new(arg.span.clone(), format!("{}={value}", param.def.arg)));
        }
    }
    Some(splices)
}
