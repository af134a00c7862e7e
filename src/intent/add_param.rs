//! `add-param` (contract: signature): a parameter with a literal default becomes
//! required (`def join(items, sep=",")` becomes `def join(items, sep)`), and every call
//! in the tree that left it out — in sources, tests and docstrings' examples — passes
//! the old default by keyword (`join(names)` becomes `join(names, sep=",")`); calls
//! that pass it already stay as written. What each call does is unchanged; a call
//! written against the old signature fails loudly (`TypeError`), and the value it must
//! now pass is the one every adapted caller shows.
//!
//! This is the variant a developer writes to make callers choose (`explicit is better
//! than implicit`): the new argument of each call is a value visible at the call site
//! (the literal the signature held), so code written elsewhere against the old
//! signature is adapted from what the change shows, never from a value found nowhere.
//! By keyword, because a bare literal (`True`, `","`) says nothing at the call, and a
//! keyword fits whatever the call already passes.
//!
//! The parameter: the first defaulted positional one (others cannot lose their default
//! without moving), when calls may also pass it by keyword, or any defaulted
//! keyword-only one; its default a literal number, string or boolean on one line (not
//! `None`: a required argument that callers set to "nothing" is not a change anyone
//! makes). The site's symbol is the function (`join`, `Class.method`), its target the
//! parameter.
//!
//! No site when the calls cannot all be found or told apart (`signature::calls`); when a
//! call leaving the parameter out passes `**mapping` (which may hold it) or `*args` that
//! may reach its position; when no call leaves it out (callers would not change); or
//! when an adapted file would not parse.

use super::callers::{self, Edit};
use super::kind::Kind;
use super::signature::{calls, parameter_span, text_at, Call, Def, Splices};
use super::site::{Change, Contract, Site, Transform, Workspace};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};
use rustpython_ast as ast;

pub(crate) struct AddParam;

impl Transform for AddParam {
    fn change(&self) -> Change {
        Change::Contract(Contract::Signature)
    }

    fn description(&self) -> &'static str {
        "makes a parameter with a literal default required, with every call that left it out passing the old default by keyword"
    }

    fn sites(&self, workspace: &Workspace) -> Vec<Site> {
        let mut sites = Vec::new();
        for module in workspace.modules {
            for def in Def::all(module) {
                let params = params(&def);
                if params.is_empty() {
                    continue;
                }
                let Some(calls) = calls(workspace.tree, &def) else { continue };
                for param in params {
                    let planned = plan(workspace.tree, &def, &calls, &param);
                    let adapts = planned.is_some_and(|(splices, adapted)| {
                        adapted > 0 && callers::rewritten(workspace.tree, splices).is_some()
                    });
                    if adapts {
                        sites.push(Site {
                            kind: Kind::AddParam,
                            path: module.path.clone(),
                            symbol: def.qual.clone(),
                            lines: super::lines_of(module, def.stmt),
                            uses: def.uses(),
                            target: Some(param.arg.def.arg.to_string()),
                            tests: Vec::new(),
                        });
                    }
                }
            }
        }
        sites
    }

    fn apply(&self, _workspace: &Workspace, tree: &Snapshot, site: &Site) -> Option<Snapshot> {
        let module = PyModule::parse(&site.path, snapshot::text_of(tree, &site.path)?).ok()?;
        let def = Def::find(&module, &site.symbol)?;
        let param = params(&def).into_iter().find(|p| Some(p.arg.def.arg.as_str()) == site.target.as_deref())?;
        let calls = calls(tree, &def)?;
        let (splices, adapted) = plan(tree, &def, &calls, &param)?;
        (adapted > 0).then_some(())?;
        callers::rewritten(tree, splices)
    }

    fn message(&self, site: &Site) -> String {
        format!("`{}`: require `{}`, passed explicitly by every caller", site.symbol, site.target.as_deref().unwrap_or_default())
    }
}

/// A parameter that may become required.
struct Param<'m> {
    arg: &'m ast::ArgWithDefault,
    /// Its position among those a call fills by position (`None`: keyword-only).
    position: Option<usize>,
}

/// The parameters of `def` that may become required: the first defaulted positional one
/// (when it may be passed by keyword) and the defaulted keyword-only ones, each with a
/// literal default.
fn params<'m>(def: &Def<'m>) -> Vec<Param<'m>> {
    let positional = def.positional();
    let first = positional
        .iter()
        .position(|(p, _)| p.default.is_some())
        .filter(|&at| positional[at].1)
        .map(|at| Param { arg: positional[at].0, position: Some(at) });
    let keyword_only = def.args.kwonlyargs.iter().map(|arg| Param { arg, position: None });
    first.into_iter().chain(keyword_only).filter(|p| p.arg.default.as_deref().is_some_and(literal)).collect()
}

/// Whether a default is a one-line literal number, string or boolean (`-1` included).
fn literal(expr: &ast::Expr) -> bool {
    let constant = |e: &ast::Expr| match e {
        ast::Expr::Constant(c) => match &c.value {
            ast::Constant::Str(s) => !s.contains('\n'),
            ast::Constant::Bool(_) | ast::Constant::Int(_) | ast::Constant::Float(_) | ast::Constant::Bytes(_) => true,
            _ => false,
        },
        _ => false,
    };
    match expr {
        ast::Expr::UnaryOp(u) => {
            matches!(u.op, ast::UnaryOp::USub | ast::UnaryOp::UAdd)
                && matches!(u.operand.as_ref(), ast::Expr::Constant(c) if matches!(c.value, ast::Constant::Int(_) | ast::Constant::Float(_)))
        }
        other => constant(other),
    }
}

/// The splices making `param` required: its default dropped from the signature and the
/// old default passed by keyword at every call that left it out (how many: the second
/// value); `None` when a call forbids it.
fn plan(tree: &Snapshot, def: &Def, calls: &[Call], param: &Param) -> Option<(Splices, usize)> {
    let name = param.arg.def.arg.as_str();
    let default = param.arg.default.as_deref()?;
    let value = def.module.source(default);
    if value.contains('\n') {
        return None;
    }
    let mut splices = Splices::new();
    let signature = PyModule::span(&param.arg.def).end..parameter_span(param.arg).end;
    splices.entry(def.module.path.clone()).or_default().push(Edit::new(signature, ""));
    let mut adapted = 0;
    for call in calls {
        let by_keyword = call.keywords.iter().any(|k| k.as_deref() == Some(name));
        let by_position = param.position.is_some_and(|at| call.args.len() > at && !call.spreads_into(at));
        if by_keyword || by_position {
            continue;
        }
        let spread = param.position.is_some_and(|at| call.spreads_into(at));
        if spread || call.keywords.iter().any(Option::is_none) || (call.doctest && value.contains('\\')) {
            return None;
        }
        let edit = passed(tree, call, &format!("{name}={value}"))?;
        splices.entry(call.path.clone()).or_default().push(edit);
        adapted += 1;
    }
    Some((splices, adapted))
}

/// The edit adding the keyword argument `keyword` (`sep=","`) to `call`, after its last
/// argument: on a line of its own when the call puts each argument on one (not in a
/// docstring's example, whose lines carry prompts).
fn passed(tree: &Snapshot, call: &Call, keyword: &str) -> Option<Edit> {
    let text = snapshot::text_of(tree, &call.path)?;
    let close = call.span.end.checked_sub(1)?;
    let Some(end) = call.last_end else {
        let open = call.span.start + text_at(tree, &call.path, &call.span)?.rfind('(')? + 1;
        return Some(Edit::new(open..open, keyword));
    };
    let rest = text.get(end..close)?;
    let own_lines = rest.contains('\n') && !call.doctest;
    if !own_lines {
        return Some(Edit::new(end..end, format!(", {keyword}")));
    }
    let line_start = text[..end].rfind('\n').map_or(0, |at| at + 1);
    let indent: String = text[line_start..].chars().take_while(|c| *c == ' ' || *c == '\t').collect();
    Some(match rest.trim_start_matches([' ', '\t']).strip_prefix(',') {
        Some(_) => {
            let comma = end + rest.find(',')? + 1;
            Edit::new(comma..comma, format!("\n{indent}{keyword},"))
        }
        None => Edit::new(end..end, format!(",\n{indent}{keyword}")),
    })
}
