//! `raise-on-miss` (contract, return shape): a function that returns `None` when it finds
//! nothing raises `LookupError` instead (`KeyError` when its module already raises that),
//! with the missed key as the message when the function has one, and every caller's
//! `None` check becomes an `except` around the call. Code written against the old
//! promise (`if found is None:`) no longer sees a miss: the exception escapes it.
//!
//! A site is a module-level function or a method (see `callers`), not a generator, that
//! returns a value on some path and `None` on another: `return None`, a bare `return`, or
//! the end of its body reached (after a loop that returns what it finds). Each of those
//! becomes `raise LookupError(key)`, `key` being its last positional parameter without a
//! default (none: no message).
//!
//! Every call must be one of these, or the site is refused (as when its calls cannot be
//! told apart from another thing's, see `callers`):
//!
//! - kept in a name whose very next statement tests it, `found = f(k)` then
//!   `if found is None:` (or `is not None`, `not found`, `found`, `== None`): the
//!   assignment goes into `try:`, the miss branch into `except LookupError:` and the hit
//!   branch into `else:` (`pass` for an empty miss branch). When the miss branch can go on
//!   past the `if` without rebinding the name, the function must not read the name
//!   anywhere else (it would be unbound where it was `None`). Not for an `elif` chain;
//! - tested directly, `if f(k) is None:`: the same with the call alone in `try:`;
//! - in a test, `assert f(k) is None` (or `assert not f(k)`) becomes
//!   `with pytest.raises(LookupError):` around the call when the file imports pytest,
//!   `self.assertIsNone(f(k))` becomes `with self.assertRaises(LookupError):`; any other
//!   use in a test reads a hit and stays as it is (the suite decides).
//!
//! A source call whose result is used any other way (returned, passed on, discarded) is
//! refused: what a miss did there cannot be rewritten faithfully.

use std::collections::BTreeMap;

use rustpython_ast as ast;

use super::callers::{self, calls_of, rewritten, Caller, Edit, Function};
use super::kind::Kind;
use super::naming;
use super::site::{Change, Contract, Site, Transform, Workspace};
use crate::python::text::{block_lines, is_elif};
use crate::python::walk::{child_blocks, owned_exprs};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

pub(crate) struct RaiseOnMiss;

impl Transform for RaiseOnMiss {
    fn change(&self) -> Change {
        Change::Contract(Contract::ReturnShape)
    }

    fn description(&self) -> &'static str {
        "makes a function that returns None on a miss raise LookupError, with every caller's None check an except"
    }

    fn sites(&self, workspace: &Workspace) -> Vec<Site> {
        let mut sites = Vec::new();
        for module in workspace.modules {
            for function in callers::functions(module) {
                if misses(&function).is_some() {
                    sites.push(function.site(Kind::RaiseOnMiss, module, Some(error_of(module).to_string())));
                }
            }
        }
        sites.into_iter().filter(|site| self.apply(workspace, workspace.tree, site).is_some()).collect()
    }

    fn apply(&self, _workspace: &Workspace, tree: &Snapshot, site: &Site) -> Option<Snapshot> {
        let module = PyModule::parse(&site.path, snapshot::text_of(tree, &site.path)?).ok()?;
        let function = callers::function(&module, &site.symbol)?;
        let error = error_of(&module);
        let mut edits: BTreeMap<String, Vec<Edit>> = BTreeMap::new();
        edits.insert(site.path.clone(), definition_edits(&module, &function, error)?);
        for caller in calls_of(tree, &function.def.name, function.class.is_some())? {
            let at = caller_edits(&caller, error)?;
            edits.entry(caller.module.path.clone()).or_default().extend(at);
        }
        rewritten(tree, edits)
    }

    fn message(&self, site: &Site) -> String {
        format!("`{}`: raise `{}` when nothing matches", site.symbol, site.target.as_deref().unwrap_or("LookupError"))
    }
}

/// The exception a miss raises: `KeyError` when the module raises it already.
fn error_of(module: &PyModule) -> &'static str {
    if naming::occurs(&module.text, "KeyError") && module.text.contains("raise KeyError") {
        "KeyError"
    } else {
        "LookupError"
    }
}

/// The function's `return None`/`return` statements, and whether its body can end without
/// returning; `None` when it is no site (a generator, no value returned, no miss).
fn misses<'a>(function: &Function<'a>) -> Option<(Vec<&'a ast::Stmt>, bool)> {
    let own = function.own_statements();
    if own.iter().flat_map(|s| owned_exprs(s)).any(|e| matches!(e, ast::Expr::Yield(_) | ast::Expr::YieldFrom(_))) {
        return None;
    }
    let (mut misses, mut values) = (Vec::new(), 0);
    for stmt in own {
        let ast::Stmt::Return(ret) = stmt else { continue };
        match ret.value.as_deref() {
            None => misses.push(stmt),
            Some(ast::Expr::Constant(c)) if matches!(c.value, ast::Constant::None) => misses.push(stmt),
            Some(_) => values += 1,
        }
    }
    let falls_off = may_complete(&function.def.body);
    (values > 0 && (falls_off || !misses.is_empty())).then_some((misses, falls_off))
}

/// Whether running a block may reach its end (its last statement does not always leave).
fn may_complete(block: &[ast::Stmt]) -> bool {
    match block.last() {
        None => true,
        Some(ast::Stmt::Return(_) | ast::Stmt::Raise(_) | ast::Stmt::Continue(_) | ast::Stmt::Break(_)) => false,
        Some(ast::Stmt::If(s)) => may_complete(&s.body) || may_complete(&s.orelse),
        Some(ast::Stmt::With(s)) => may_complete(&s.body),
        Some(ast::Stmt::Try(s)) => {
            let handlers = s.handlers.iter().any(|h| {
                let ast::ExceptHandler::ExceptHandler(h) = h;
                may_complete(&h.body)
            });
            (may_complete(&s.body) && (s.orelse.is_empty() || may_complete(&s.orelse)) || handlers)
                && (s.finalbody.is_empty() || may_complete(&s.finalbody))
        }
        Some(ast::Stmt::While(s)) => !matches!(s.test.as_ref(), ast::Expr::Constant(c) if matches!(c.value, ast::Constant::Bool(true))),
        Some(_) => true,
    }
}

/// The raise statement of a miss: `raise LookupError(key)`, `key` the last positional
/// parameter without a default.
fn raise_of(function: &Function, error: &str) -> String {
    let args = &function.def.args;
    let key = args
        .posonlyargs
        .iter()
        .chain(&args.args)
        .filter(|a| a.default.is_none())
        .map(|a| a.def.arg.as_str())
        .rfind(|name| !matches!(*name, "self" | "cls"));
    format!("raise {error}({})", key.unwrap_or_default())
}

/// The function's own edits: each miss raises, and so does the end of its body when it
/// can be reached.
fn definition_edits(module: &PyModule, function: &Function, error: &str) -> Option<Vec<Edit>> {
    let (misses, falls_off) = misses(function)?;
    let raise = raise_of(function, error);
    let mut edits: Vec<Edit> = misses.iter().map(|s| Edit::new(PyModule::span(*s), raise.clone())).collect();
    if falls_off {
        let last = module.whole_lines(function.def.body.last()?)?;
        let indent = module.indent_at(PyModule::span(function.def.body.first()?).start);
        let newline = if module.text[..last.end].ends_with('\n') { "" } else { "\n" };
        edits.push(Edit::new(last.end..last.end, format!("{newline}{indent}{raise}\n")));
    }
    Some(edits)
}

/// How an `if` tests a value for a miss.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Test {
    /// `x is None`, `not x`, `x == None`: the body handles the miss.
    Miss,
    /// `x is not None`, `x`, `x != None`: the body handles a hit.
    Hit,
}

/// How `test` tests a subject (an expression `is_subject` matches), and the subject.
fn test_of<'a>(test: &'a ast::Expr, is_subject: &dyn Fn(&ast::Expr) -> bool) -> Option<(Test, &'a ast::Expr)> {
    let is_none = |e: &ast::Expr| matches!(e, ast::Expr::Constant(c) if matches!(c.value, ast::Constant::None));
    match test {
        ast::Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not && is_subject(&u.operand) => Some((Test::Miss, &u.operand)),
        ast::Expr::Compare(c) if c.comparators.len() == 1 && is_subject(&c.left) && is_none(&c.comparators[0]) => {
            match c.ops[0] {
                ast::CmpOp::Is | ast::CmpOp::Eq => Some((Test::Miss, &c.left)),
                ast::CmpOp::IsNot | ast::CmpOp::NotEq => Some((Test::Hit, &c.left)),
                _ => None,
            }
        }
        other if is_subject(other) => Some((Test::Hit, other)),
        _ => None,
    }
}

fn span_of(expr: &ast::Expr) -> (usize, usize) {
    let span = PyModule::span(expr);
    (span.start, span.end)
}

/// The edits adapting one file's calls; `None` when a source call cannot be adapted.
fn caller_edits(caller: &Caller, error: &str) -> Option<Vec<Edit>> {
    let module = &caller.module;
    let test_file = snapshot::is_test_file(&module.path);
    let mut edits = Vec::new();
    let mut handled = std::collections::BTreeSet::new();
    let mut blocks: Vec<&[ast::Stmt]> = vec![&module.suite];
    while let Some(block) = blocks.pop() {
        for (i, stmt) in block.iter().enumerate() {
            blocks.extend(child_blocks(stmt));
            match stmt {
                ast::Stmt::FunctionDef(d) => blocks.push(&d.body),
                ast::Stmt::AsyncFunctionDef(d) => blocks.push(&d.body),
                ast::Stmt::ClassDef(c) => blocks.push(&c.body),
                _ => {}
            }
            if let Some((call, edit)) = kept_and_tested(caller, block, i, error) {
                edits.push(edit);
                handled.insert(call);
            } else if let Some((call, edit)) = tested(caller, stmt, error) {
                edits.push(edit);
                handled.insert(call);
            } else if let Some((call, edit)) = asserted(caller, stmt, error) {
                edits.extend(edit);
                handled.insert(call);
            }
        }
    }
    // A test's other calls read hits.
    caller.calls.iter().all(|c| test_file || handled.contains(c)).then_some(edits)
}

/// The indentation one block level adds in this module (from the statement `inner`
/// nested in `outer`), four spaces when unknown.
fn unit_of(module: &PyModule, outer: &ast::Stmt, inner: Option<&ast::Stmt>) -> String {
    let outer_indent = module.indent_at(PyModule::span(outer).start);
    inner
        .map(|s| module.indent_at(PyModule::span(s).start))
        .and_then(|i| i.strip_prefix(outer_indent))
        .filter(|u| !u.is_empty())
        .unwrap_or("    ")
        .to_string()
}

/// `text` (whole lines) with `unit` added before every line.
fn indented(text: &str, unit: &str) -> String {
    text.split_inclusive('\n').map(|line| if line.trim().is_empty() { line.to_string() } else { format!("{unit}{line}") }).collect()
}

/// The `try` statement replacing the lines `lines` of an `if` testing a miss: `body`
/// (whole lines, already indented) in `try:`, `miss` in `except`, `hit` in `else:`.
fn try_statement(
    module: &PyModule,
    indent: &str,
    unit: &str,
    body: &str,
    miss: &[ast::Stmt],
    hit: &[ast::Stmt],
    error: &str,
) -> Option<String> {
    let lines = |block: &[ast::Stmt]| block_lines(module, block).map(|r| module.text[r].to_string());
    let miss = if miss.is_empty() { format!("{indent}{unit}pass\n") } else { lines(miss)? };
    let mut out = format!("{indent}try:\n{body}{indent}except {error}:\n{miss}");
    if !hit.is_empty() {
        out.push_str(&format!("{indent}else:\n{}", lines(hit)?));
    }
    Some(out)
}

/// The miss and hit branches of an `if`, by how it tests; `None` for an `elif` chain.
fn branches<'a>(module: &PyModule, iff: &'a ast::StmtIf, test: Test) -> Option<(&'a [ast::Stmt], &'a [ast::Stmt])> {
    if iff.orelse.len() == 1 && is_elif(module, &iff.orelse[0]) {
        return None;
    }
    Some(match test {
        Test::Miss => (&iff.body, &iff.orelse),
        Test::Hit => (&iff.orelse, &iff.body),
    })
}

/// `found = f(k)` followed by `if found is None:` (statement `i` of `block` and the next):
/// the call and the edit making them a `try`.
fn kept_and_tested(caller: &Caller, block: &[ast::Stmt], i: usize, error: &str) -> Option<((usize, usize), Edit)> {
    let module = &caller.module;
    let ast::Stmt::Assign(assign) = &block[i] else { return None };
    let [ast::Expr::Name(name)] = assign.targets.as_slice() else { return None };
    if !caller.is_call(&assign.value) {
        return None;
    }
    let next @ ast::Stmt::If(iff) = block.get(i + 1)? else { return None };
    let is_name = |e: &ast::Expr| matches!(e, ast::Expr::Name(n) if n.id == name.id);
    let (test, _) = test_of(&iff.test, &is_name)?;
    let (miss, hit) = branches(module, iff, test)?;
    let (first, last) = (module.whole_lines(&block[i])?, module.whole_lines(next)?);
    if !module.text[first.end..last.start].trim().is_empty() {
        return None;
    }
    // Where a miss went on with the name `None`, it is unbound now: no read of it may follow.
    let rebinds = miss.iter().any(|s| matches!(s, ast::Stmt::Assign(a) if a.targets.iter().any(&is_name)));
    if may_complete(miss) && !rebinds {
        let scope = callers::scope_at(module, first.start);
        let outside = naming::occurrences(&module.text[scope.clone()], &name.id)
            .into_iter()
            .map(|at| scope.start + at)
            .filter(|at| !(first.start..last.end).contains(at));
        if outside.count() > 0 {
            return None;
        }
    }
    let indent = module.indent_at(first.start);
    let unit = unit_of(module, next, iff.body.first());
    let statement = &module.text[first.clone()];
    if statement.contains("\"\"\"") || statement.contains("'''") {
        return None;
    }
    let text = try_statement(module, indent, &unit, &indented(statement, &unit), miss, hit, error)?;
    Some((span_of(&assign.value), Edit::new(first.start..last.end, text)))
}

/// `if f(k) is None:`: the call and the edit making the `if` a `try` around the call.
fn tested(caller: &Caller, stmt: &ast::Stmt, error: &str) -> Option<((usize, usize), Edit)> {
    let module = &caller.module;
    let ast::Stmt::If(iff) = stmt else { return None };
    if is_elif(module, stmt) {
        return None;
    }
    let (test, call) = test_of(&iff.test, &|e: &ast::Expr| caller.is_call(e))?;
    let (miss, hit) = branches(module, iff, test)?;
    let lines = module.whole_lines(stmt)?;
    let indent = module.indent_at(lines.start);
    let unit = unit_of(module, stmt, iff.body.first());
    let body = format!("{indent}{unit}{}\n", module.source(call));
    let text = try_statement(module, indent, &unit, &body, miss, hit, error)?;
    Some((span_of(call), Edit::new(lines, text)))
}

/// In a test: `assert f(k) is None` or `self.assertIsNone(f(k))` made an assertion that
/// the call raises; `assert f(k) is not None` and the like stay (a miss raises now).
fn asserted(caller: &Caller, stmt: &ast::Stmt, error: &str) -> Option<((usize, usize), Vec<Edit>)> {
    let module = &caller.module;
    if !snapshot::is_test_file(&module.path) {
        return None;
    }
    let subject = |e: &ast::Expr| caller.is_call(e);
    let (context, call) = match stmt {
        ast::Stmt::Assert(a) if a.msg.is_none() => match test_of(&a.test, &subject)? {
            (Test::Miss, call) if imports_pytest(module) => (format!("pytest.raises({error})"), call),
            (Test::Miss, _) => return None,
            (Test::Hit, call) => return Some((span_of(call), Vec::new())),
        },
        ast::Stmt::Expr(e) => {
            let ast::Expr::Call(assertion) = e.value.as_ref() else { return None };
            let ast::Expr::Attribute(method) = assertion.func.as_ref() else { return None };
            let [argument] = assertion.args.as_slice() else { return None };
            if !subject(argument) {
                return None;
            }
            match method.attr.as_str() {
                "assertIsNone" | "assertFalse" => {
                    (format!("{}.assertRaises({error})", module.source(method.value.as_ref())), argument)
                }
                "assertIsNotNone" | "assertTrue" => return Some((span_of(argument), Vec::new())),
                _ => return None,
            }
        }
        _ => return None,
    };
    let lines = module.whole_lines(stmt)?;
    let indent = module.indent_at(lines.start);
    let unit = unit_of(module, stmt, None);
    let text = format!("{indent}with {context}:\n{indent}{unit}{}\n", module.source(call));
    Some((span_of(call), vec![Edit::new(lines, text)]))
}

/// Whether a module imports pytest at its top level.
fn imports_pytest(module: &PyModule) -> bool {
    module.suite.iter().any(|s| match s {
        ast::Stmt::Import(i) => i.names.iter().any(|a| a.name.as_str() == "pytest" && a.asname.is_none()),
        _ => false,
    })
}
