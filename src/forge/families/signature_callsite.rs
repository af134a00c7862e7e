//! signature-callsite (cross-file): function `f(…, p=D)` in file A and a statement S in
//! another file B that calls `f` passing `p`.
//!
//! * base: `f` has no parameter `p` (its body starts with `p = D` instead) and lacks its
//!   first statement P; B lacks S.
//! * ours adds the parameter back (the "new signature") without P.
//! * theirs edits the same body (restores P) and adds a new caller S′ elsewhere, written
//!   against the old signature (S without the `p` argument).
//! * gold is the original: the new signature, P, and the new caller fixed to pass `p`,
//!   in a file that has no conflict markers.

use rustpython_ast as ast;

use crate::forge::splice::{self, Splice};
use crate::forge::proposal::{FamilyBuilder, ForgeInput, Intent, Proposal, Recipe, SideRule};
use crate::mutate::{ops, Mutation, Operator, OperatorKind, OperatorRef};
use crate::python::parses;
use crate::python::text::short;
use crate::python::walk::{is_docstring, owned_exprs};
use crate::python::PyModule;
use crate::snapshot::{with_file, Snapshot};

pub(crate) struct SignatureCallsite;

/// A defaulted parameter of a top-level function.
struct Parameter<'a> {
    function: &'a ast::StmtFunctionDef,
    name: String,
    /// Position among positional parameters, if it can be passed positionally.
    position: Option<usize>,
    /// Bytes to delete to drop the parameter from the signature.
    removal: std::ops::Range<usize>,
    default_text: String,
}

/// A statement in another file whose call passes the parameter.
struct Caller {
    module: usize,
    function: Option<String>,
    statement: std::ops::Range<usize>,
    block_len: usize,
    /// Bytes to delete to drop the argument from the call.
    argument_removal: std::ops::Range<usize>,
}

impl FamilyBuilder for SignatureCallsite {
    fn side_rule(&self) -> SideRule {
        SideRule::BothFail
    }

    /// Left out of the default mix: 14 of its 20 golds in the first sample added an
    /// argument value (`suffix="~"`) that no version of the code holds, so the answer
    /// could not be worked out from the repository.
    fn in_default_mix(&self) -> bool {
        false
    }


    fn description(&self) -> &'static str {
        "ours adds a parameter back to a function and updates callers; theirs edits the body and adds a caller elsewhere with the old signature. Gold also fixes that caller, in a file without conflict markers."
    }

    fn recipes<'a>(&self, input: &ForgeInput<'a>) -> Vec<Recipe<'a>> {
        let gold: &'a Snapshot = &input.substrate.files;
        let modules: &'a [PyModule] = input.modules;
        let mut out = Vec::new();
        for (a_index, module_a) in modules.iter().enumerate() {
            for parameter in defaulted_parameters(module_a) {
                let mut callers = callers_passing(modules, a_index, &parameter);
                // Keep the recipe simple: exactly one caller passes the parameter explicitly.
                if callers.len() != 1 {
                    continue;
                }
                let Some(caller) = callers.pop() else { continue };
                let key = recipe_key(module_a, &parameter, &caller, &modules[caller.module]);
                out.push(Recipe { key, kinds: Vec::new(), build: Box::new(move || build(modules, gold, module_a, &parameter, &caller)) });
            }
        }
        out
    }
}

fn recipe_key(module_a: &PyModule, parameter: &Parameter, caller: &Caller, module_b: &PyModule) -> String {
    format!(
        "signature-callsite|{}|{}|{}|{}|{}",
        module_a.path, parameter.function.name, parameter.name, module_b.path, caller.statement.start
    )
}

fn build(
    modules: &[PyModule],
    gold: &Snapshot,
    module_a: &PyModule,
    parameter: &Parameter,
    caller: &Caller,
) -> Option<Proposal> {
    let body = &parameter.function.body;
    let first = body.iter().position(|s| !is_docstring(s))?;
    let p_stmt = &body[first];
    let p_lines = module_a.whole_lines(p_stmt)?;
    let indent = module_a.indent_at(p_lines.start).to_string();
    let binding = format!("{indent}{} = {}\n", parameter.name, parameter.default_text);
    let only_statement = body.len() - first == 1;
    let ours_p = if only_statement { format!("{indent}pass\n") } else { String::new() };

    let remove_param = Splice::new(parameter.removal.clone(), "");
    let base_a = splice::apply(&module_a.text, &[remove_param.clone(), Splice::new(p_lines.clone(), binding.clone())])?;
    let ours_a = splice::apply(&module_a.text, &[Splice::new(p_lines.clone(), ours_p)])?;
    let theirs_a = splice::apply(&module_a.text, &[remove_param, Splice::new(p_lines.start..p_lines.start, binding)])?;

    let module_b = &modules[caller.module];
    let b_indent = module_b.indent_at(caller.statement.start).to_string();
    let b_gap = if caller.block_len == 1 { format!("{b_indent}pass\n") } else { String::new() };
    let base_b = splice::apply(&module_b.text, &[Splice::new(caller.statement.clone(), b_gap)])?;
    let theirs_b = splice::apply(&module_b.text, &[Splice::new(caller.argument_removal.clone(), "")])?;

    for (text, path) in [
        (&base_a, &module_a.path),
        (&ours_a, &module_a.path),
        (&theirs_a, &module_a.path),
        (&base_b, &module_b.path),
        (&theirs_b, &module_b.path),
    ] {
        if !parses(text, path) {
            return None;
        }
    }
    let base = with_file(&with_file(gold, &module_a.path, &base_a), &module_b.path, &base_b);
    let ours = with_file(&with_file(gold, &module_a.path, &ours_a), &module_b.path, &base_b);
    let theirs = with_file(&with_file(gold, &module_a.path, &theirs_a), &module_b.path, &theirs_b);
    let fname = parameter.function.name.to_string();
    let key = recipe_key(module_a, parameter, caller, module_b);
    let record = |operator: &'static dyn Operator,
                  module: &PyModule,
                  function: Option<String>,
                  range: std::ops::Range<usize>,
                  description: String| Mutation {
        operator: OperatorRef::new(operator),
        kind: OperatorKind::Restructure,
        path: module.path.clone(),
        function,
        line: module.line_of(range.start),
        start: range.start,
        end: range.end,
        replacement: String::new(),
        description,
    };
    let statement = module_a.text[p_lines.clone()].lines().next().unwrap_or("").trim().to_string();
    let remove_parameter = record(
        &ops::RemoveParameter,
        module_a,
        Some(fname.clone()),
        parameter.removal.clone(),
        format!("drop parameter `{}`", parameter.name),
    );
    let remove_statement =
        record(&ops::RemoveStatement, module_a, Some(fname.clone()), p_lines, "strip the first statement".into());
    let remove_argument = record(
        &ops::RemoveArgument,
        module_b,
        caller.function.clone(),
        caller.argument_removal.clone(),
        format!("call without `{}`", parameter.name),
    );
    let ours_intent = Intent::one_commit(
        format!("`{fname}`: take `{}` as a parameter (default `{}`)", parameter.name, parameter.default_text),
        vec![remove_parameter.clone()],
    );
    let theirs_intent = Intent::one_commit(
        format!("`{fname}`: add `{}`; call it from {}", short(&statement), module_b.path),
        vec![remove_statement.clone(), remove_argument.clone()],
    );
    Some(Proposal {
        summary: format!(
            "{}: ours adds parameter `{}` to `{}`; theirs edits its body and calls it from {} with the old signature",
            module_a.path, parameter.name, fname, module_b.path
        ),
        key,
        base,
        ours,
        theirs,
        gold: gold.clone(),
        mutations: vec![remove_parameter, remove_statement, remove_argument],
        ours_intent,
        theirs_intent,
        origin: None,
        interactions: Vec::new(),
    })
}

fn defaulted_parameters(module: &PyModule) -> Vec<Parameter<'_>> {
    let mut out = Vec::new();
    for stmt in &module.suite {
        let ast::Stmt::FunctionDef(def) = stmt else { continue };
        let args = &def.args;
        // Every parameter's range in signature order, to find neighbours.
        let mut spans: Vec<std::ops::Range<usize>> = Vec::new();
        for a in args.posonlyargs.iter().chain(&args.args) {
            spans.push(parameter_span(a));
        }
        if let Some(v) = &args.vararg {
            spans.push(PyModule::span(v.as_ref()));
        }
        for a in &args.kwonlyargs {
            spans.push(parameter_span(a));
        }
        if let Some(k) = &args.kwarg {
            spans.push(PyModule::span(k.as_ref()));
        }
        let positional = args.posonlyargs.len();
        let lists = [(&args.args, true), (&args.kwonlyargs, false)];
        for (list, is_positional) in lists {
            for (i, arg) in list.iter().enumerate() {
                let Some(default) = &arg.default else { continue };
                let span = parameter_span(arg);
                let Some(at) = spans.iter().position(|s| *s == span) else { continue };
                let removal = if let Some(next) = list.get(i + 1) {
                    span.start..parameter_span(next).start
                } else if at > 0 {
                    spans[at - 1].end..span.end
                } else {
                    span.clone()
                };
                out.push(Parameter {
                    function: def,
                    name: arg.def.arg.to_string(),
                    position: is_positional.then_some(positional + i),
                    removal,
                    default_text: module.source(default.as_ref()).to_string(),
                });
            }
        }
    }
    out
}

/// A parameter from its name to the end of its default (the node's own range may stop
/// at the name).
fn parameter_span(arg: &ast::ArgWithDefault) -> std::ops::Range<usize> {
    let name = PyModule::span(&arg.def);
    let end = arg.default.as_ref().map_or(name.end, |d| PyModule::span(d.as_ref()).end);
    name.start..end
}

fn callers_passing(modules: &[PyModule], defining: usize, parameter: &Parameter) -> Vec<Caller> {
    let fname = parameter.function.name.as_str();
    let mut out = Vec::new();
    for (index, module) in modules.iter().enumerate() {
        for site in module.statements() {
            let simple = matches!(
                site.stmt,
                ast::Stmt::Assign(_)
                    | ast::Stmt::AugAssign(_)
                    | ast::Stmt::AnnAssign(_)
                    | ast::Stmt::Expr(_)
                    | ast::Stmt::Return(_)
            );
            for expr in owned_exprs(site.stmt) {
                let ast::Expr::Call(call) = &expr else { continue };
                let called = match call.func.as_ref() {
                    ast::Expr::Name(n) => n.id.as_str() == fname,
                    ast::Expr::Attribute(a) => a.attr.as_str() == fname,
                    _ => false,
                };
                if !called {
                    continue;
                }
                let Some(argument_removal) = argument_removal(call, parameter) else { continue };
                // Callers in the defining file still count (they make the recipe ambiguous).
                let usable = index != defining && simple && site.function.is_some();
                let statement = module.whole_lines(site.stmt);
                match (usable, statement) {
                    (true, Some(statement)) => out.push(Caller {
                        module: index,
                        function: site.function.clone(),
                        statement,
                        block_len: site.block.len(),
                        argument_removal,
                    }),
                    _ => out.push(Caller {
                        module: usize::MAX,
                        function: None,
                        statement: 0..0,
                        block_len: 0,
                        argument_removal,
                    }),
                }
            }
        }
    }
    if out.iter().any(|c| c.module == usize::MAX) {
        return Vec::new();
    }
    out
}

/// The bytes to delete to drop the parameter's argument from a call, if the call passes it.
fn argument_removal(call: &ast::ExprCall, parameter: &Parameter) -> Option<std::ops::Range<usize>> {
    let mut items: Vec<std::ops::Range<usize>> = call.args.iter().map(PyModule::span).collect();
    items.extend(call.keywords.iter().map(PyModule::span));
    items.sort_by_key(|r| r.start);
    let target = if let Some(k) =
        call.keywords.iter().find(|k| k.arg.as_ref().map(|a| a.as_str()) == Some(parameter.name.as_str()))
    {
        PyModule::span(k)
    } else {
        let position = parameter.position?;
        if call.args.iter().any(|a| matches!(a, ast::Expr::Starred(_))) || call.args.len() != position + 1 {
            return None;
        }
        PyModule::span(&call.args[position])
    };
    let at = items.iter().position(|r| *r == target)?;
    Some(if let Some(next) = items.get(at + 1) {
        target.start..next.start
    } else if at > 0 {
        items[at - 1].end..target.end
    } else {
        target
    })
}
