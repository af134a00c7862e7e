//! What a run of a function's top-level statements reads and binds, and which runs can
//! become a helper: statements a call can stand in for (no `return`, `yield`, `await`,
//! nested scope or declaration among them), binding exactly one name the rest of the
//! function reads, and reading the function's other names only as values passed in.
//!
//! Names are followed by `Name` nodes: a comprehension's targets belong to it, not to
//! the function; a name is the function's when its parameters or its code bind it.

use std::collections::{BTreeMap, BTreeSet};

use rustpython_ast as ast;

use super::super::rename_local::{identifier_bindings, reads_own_frame, Function};
use crate::python::walk::{child_blocks, expr_children, owned_exprs, parameters, stmt_exprs, walk_stmts};
use crate::python::PyModule;

/// The fewest and most lines a run spans.
const LINES: std::ops::RangeInclusive<usize> = 3..=25;
/// The most values a helper takes besides `self`.
const MAX_INPUTS: usize = 4;

/// One top-level statement of a function, as far as extracting it goes.
struct Facts {
    /// The names its code reads (comprehension targets aside), with the offset of the
    /// first read.
    reads: BTreeMap<String, usize>,
    /// The names it binds (assignment, `for`, `with ... as`, `:=`, `except ... as`).
    binds: BTreeSet<String>,
    /// Every name it mentions in any way, nested scopes included.
    mentions: BTreeSet<String>,
    /// Whether a call can stand in for it: nothing in it returns, yields, awaits,
    /// defines, imports, deletes or declares.
    movable: bool,
}

/// A run of statements that can become a helper: `body[start..end]` of its function,
/// the values it takes (the function's parameters in their order, then its locals in
/// the order the run first reads them; `self` aside) and the one
/// name it binds that the function reads afterwards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Run {
    pub(super) start: usize,
    pub(super) end: usize,
    /// The module lines it spans, 1-based, end exclusive.
    pub(super) lines: std::ops::Range<usize>,
    pub(super) inputs: Vec<String>,
    pub(super) output: String,
    /// Whether the run reads `self` (a method's run that does not becomes a static
    /// method).
    pub(super) reads_self: bool,
}

/// A function whose runs may be extracted, with what each statement does.
pub(super) struct Body<'a> {
    function: &'a Function<'a>,
    module: &'a PyModule,
    facts: Vec<Facts>,
    params: Vec<String>,
    /// Index of the first statement after the docstring.
    first: usize,
}

impl<'a> Body<'a> {
    /// `function`'s body, when runs of it may become helpers: a module-level function, or
    /// a method of a module-level class taking `self` (not a static or class method),
    /// neither async nor reading its own frame.
    pub(super) fn of(module: &'a PyModule, function: &'a Function<'a>) -> Option<Body<'a>> {
        let depth = function.qual.matches('.').count();
        let nested = !function.enclosing.is_empty() || depth > usize::from(function.method);
        let own = &module.text[function.span.clone()];
        if nested || own.starts_with("async") || reads_own_frame(own) {
            return None;
        }
        let params: Vec<String> = parameters(function.args).iter().map(|a| a.arg.to_string()).collect();
        if function.method && params.first().map(String::as_str) != Some("self") {
            return None;
        }
        let first = usize::from(function.body.first().is_some_and(crate::python::walk::is_docstring));
        let facts = function.body.iter().map(facts_of).collect();
        Some(Body { function, module, facts, params, first })
    }

    /// Every run that can become a helper, the longest for each name it binds (the
    /// earliest of equal length), in order of start.
    pub(super) fn runs(&self) -> Vec<Run> {
        let mut best: BTreeMap<String, Run> = BTreeMap::new();
        for start in self.first..self.facts.len() {
            for end in start + 1..self.facts.len() {
                if !self.facts[end - 1].movable {
                    break;
                }
                let Some(run) = self.run(start, end) else { continue };
                let longer = |old: &Run| run.end - run.start > old.end - old.start;
                if best.get(&run.output).is_none_or(longer) {
                    best.insert(run.output.clone(), run);
                }
            }
        }
        let mut runs: Vec<Run> = best.into_values().collect();
        runs.sort_by_key(|r| (r.start, r.end));
        runs
    }

    /// `body[start..end]` as a run, if it can become a helper: two statements or more,
    /// or one compound statement (an `if` chain, a loop, a `with`, a `try`); at least one
    /// statement follows it, which reads what it binds; it starts with a statement that
    /// binds the output or a name the run reads later, and ends with one that mentions
    /// the output (no unrelated statement at either edge: a check of the arguments before
    /// the computation stays in the function).
    pub(super) fn run(&self, start: usize, end: usize) -> Option<Run> {
        let body = self.function.body;
        let compound = |s: &ast::Stmt| !child_blocks(s).is_empty();
        if start < self.first || end >= body.len() || end <= start || (end == start + 1 && !compound(&body[start])) {
            return None;
        }
        let facts = &self.facts[start..end];
        let lines = self.module.line_of(PyModule::span(&body[start]).start)
            ..self.module.line_of(PyModule::span(&body[end - 1]).end) + 1;
        if !facts.iter().all(|f| f.movable) || !LINES.contains(&lines.len()) {
            return None;
        }
        let after: BTreeSet<&String> = self.facts[end..].iter().flat_map(|f| &f.mentions).collect();
        let binds: BTreeSet<&String> = facts.iter().flat_map(|f| &f.binds).collect();
        let outputs: Vec<&String> = binds.iter().copied().filter(|n| after.contains(n)).collect();
        let [output] = outputs[..] else { return None };
        let read_later = |name: &String| facts[1..].iter().any(|f| f.reads.contains_key(name));
        let starts_well = facts[0].binds.iter().any(|n| n == output || read_later(n));
        if !starts_well || !facts[facts.len() - 1].mentions.contains(output) {
            return None;
        }
        let bound_before = self.facts[self.first.min(start)..start].iter().flat_map(|f| &f.binds);
        let before: BTreeSet<&str> = self.params.iter().chain(bound_before).map(String::as_str).collect();
        let mut reads: BTreeMap<&str, usize> = BTreeMap::new();
        for (name, at) in facts.iter().flat_map(|f| &f.reads) {
            let first = reads.entry(name).or_insert(*at);
            *first = (*first).min(*at);
        }
        let reads_self = reads.contains_key("self");
        if self.params.contains(output) {
            return None;
        }
        if !reads_self && ["super", "__class__"].iter().any(|n| reads.contains_key(n)) {
            return None;
        }
        // A value the run reads from before it, or may leave as it found it: the
        // function's parameters first, in their order, then locals as the run reads them.
        let position = |name: &str| self.params.iter().position(|p| p == name).unwrap_or(usize::MAX);
        let mut inputs: Vec<(usize, usize, &str)> = reads
            .iter()
            .filter(|(name, _)| before.contains(*name))
            .map(|(name, at)| (position(name), *at, *name))
            .collect();
        if before.contains(output.as_str()) && !reads.contains_key(output.as_str()) {
            inputs.push((position(output), usize::MAX, output));
        }
        inputs.sort();
        let inputs: Vec<String> = inputs.into_iter().map(|(_, _, n)| n.to_string()).filter(|n| n != "self").collect();
        if inputs.len() > MAX_INPUTS || (!reads_self && inputs.is_empty()) {
            return None;
        }
        Some(Run { start, end, lines, inputs, output: output.clone(), reads_self })
    }
}

/// What one top-level statement of a function does with names.
fn facts_of(stmt: &ast::Stmt) -> Facts {
    let mut facts =
        Facts { reads: BTreeMap::new(), binds: BTreeSet::new(), mentions: BTreeSet::new(), movable: true };
    let mut all = Vec::new();
    walk_stmts(std::slice::from_ref(stmt), &mut all);
    for inner in &all {
        facts.mentions.extend(identifier_bindings(inner).into_iter().map(str::to_string));
        for expr in owned_exprs(inner) {
            if let ast::Expr::Name(n) = expr {
                facts.mentions.insert(n.id.to_string());
            }
        }
    }
    statement(stmt, &mut facts);
    facts
}

/// Follows `stmt` and its nested blocks into `facts`.
fn statement(stmt: &ast::Stmt, facts: &mut Facts) {
    let fixed = matches!(
        stmt,
        ast::Stmt::Return(_)
            | ast::Stmt::Delete(_)
            | ast::Stmt::Global(_)
            | ast::Stmt::Nonlocal(_)
            | ast::Stmt::Import(_)
            | ast::Stmt::ImportFrom(_)
            | ast::Stmt::FunctionDef(_)
            | ast::Stmt::AsyncFunctionDef(_)
            | ast::Stmt::ClassDef(_)
            | ast::Stmt::AsyncFor(_)
            | ast::Stmt::AsyncWith(_)
            | ast::Stmt::Match(_)
            | ast::Stmt::TypeAlias(_)
    );
    facts.binds.extend(identifier_bindings(stmt).into_iter().map(str::to_string));
    if fixed {
        facts.movable = false;
        return;
    }
    for expr in stmt_exprs(stmt) {
        expression(expr, &mut Vec::new(), facts);
    }
    for block in child_blocks(stmt) {
        for inner in block {
            statement(inner, facts);
        }
    }
}

/// Follows `expr` into `facts`; `bound` holds the targets of the comprehensions it is in.
fn expression(expr: &ast::Expr, bound: &mut Vec<String>, facts: &mut Facts) {
    let generators = match expr {
        ast::Expr::Name(n) => {
            let name = n.id.to_string();
            if bound.contains(&name) {
                return;
            }
            match n.ctx {
                ast::ExprContext::Load => {
                    facts.reads.entry(name).or_insert(PyModule::span(n).start);
                }
                _ => {
                    facts.binds.insert(name);
                }
            }
            return;
        }
        ast::Expr::Lambda(_) | ast::Expr::Yield(_) | ast::Expr::YieldFrom(_) | ast::Expr::Await(_) => {
            facts.movable = false;
            return;
        }
        ast::Expr::ListComp(c) => &c.generators[..],
        ast::Expr::SetComp(c) => &c.generators[..],
        ast::Expr::DictComp(c) => &c.generators[..],
        ast::Expr::GeneratorExp(c) => &c.generators[..],
        _ => &[][..],
    };
    let depth = bound.len();
    for generator in generators {
        let mut targets = vec![&generator.target];
        while let Some(target) = targets.pop() {
            match target {
                ast::Expr::Name(n) => bound.push(n.id.to_string()),
                other => targets.extend(expr_children(other)),
            }
        }
    }
    for child in expr_children(expr) {
        expression(child, bound, facts);
    }
    bound.truncate(depth);
}

#[cfg(test)]
mod tests {
    use super::super::super::rename_local::functions;
    use super::*;

    fn runs(source: &str) -> Vec<Run> {
        let module = PyModule::parse("m.py", source).unwrap();
        let functions = functions(&module);
        let body = Body::of(&module, &functions[0]).expect("a body");
        body.runs()
    }

    #[test]
    fn a_run_takes_what_it_reads_from_before_and_gives_the_one_name_read_after() {
        let source = "\
def report(rows, width):
    \"\"\"Doc.\"\"\"
    title = 'Report'
    lines = []
    for row in rows:
        lines.append(str(row).ljust(width))
    body = '\\n'.join(line for line in lines)
    return title + body
";
        let found = runs(source);
        // `title` is read after the run, so the longest run binding `body` starts after it.
        let body = found.iter().find(|r| r.output == "body").expect("a run for body");
        assert_eq!((body.start, body.end), (2, 5));
        assert_eq!(body.inputs, vec!["rows".to_string(), "width".to_string()]);
        // `line` and `row` belong to a comprehension and a loop of the run.
        assert!(found.iter().all(|r| r.output != "line"));
    }

    #[test]
    fn a_name_bound_before_and_maybe_rebound_is_passed_in() {
        let source = "\
def pick(items, default):
    chosen = default
    for item in items:
        if item:
            chosen = item
    total = len(items)
    return chosen, total
";
        let found = runs(source);
        assert!(found.iter().all(|r| r.output != "chosen" || r.inputs.contains(&"default".to_string())));
        // A run binding both `chosen` and `total` gives two names: none.
        assert!(found.iter().all(|r| !(r.start <= 1 && r.end >= 3)));
    }

    #[test]
    fn checks_before_the_computation_stay_and_one_if_chain_is_a_run() {
        let source = "\
def round_to(value, mode):
    check(value)
    if mode < 0:
        raise ValueError(mode)
    if mode == 'up':
        rounding = 1
    elif mode == 'down':
        rounding = -1
    return value * rounding
";
        assert_eq!(
            runs(source),
            vec![Run {
                start: 2,
                end: 3,
                lines: 5..9,
                inputs: vec!["mode".to_string()],
                output: "rounding".to_string(),
                reads_self: false
            }]
        );
    }

    #[test]
    fn returns_yields_and_nested_scopes_stay_in_place() {
        let source = "\
def walk(tree):
    seen = set()
    for node in tree:
        if node in seen:
            return None
        seen.add(node)
    key = lambda n: n
    out = sorted(seen, key=key)
    return out
";
        assert!(runs(source).is_empty());
    }

    #[test]
    fn a_function_run_needs_a_value_a_method_run_self_or_a_value() {
        let source = "\
class Cart:
    def total(self, prices):
        items = sorted(self.items.items())
        cost = sum(
            prices[k] * n for k, n in items
        )
        return round(cost, 2)
";
        let module = PyModule::parse("m.py", source).unwrap();
        let functions = functions(&module);
        let body = Body::of(&module, &functions[0]).unwrap();
        assert_eq!(
            body.runs(),
            vec![Run {
                start: 0,
                end: 2,
                lines: 3..7,
                inputs: vec!["prices".to_string()],
                output: "cost".to_string(),
                reads_self: true
            }]
        );
    }
}
