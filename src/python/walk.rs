//! The AST walk: the statement blocks inside a compound statement, every statement of a
//! block (nested ones included), the expressions a statement owns (by reference:
//! comprehensions, keywords, `with` items, defaults and match patterns included) and an
//! expression's direct sub-expressions, a parameter list's parameters and the names a
//! match pattern captures. Pure functions of the AST; no source text.

use rustpython_ast::{self as ast, Ranged};

/// The statement blocks directly inside a compound statement (not functions/classes).
pub(crate) fn child_blocks(stmt: &ast::Stmt) -> Vec<&[ast::Stmt]> {
    match stmt {
        ast::Stmt::If(s) => vec![&s.body, &s.orelse],
        ast::Stmt::For(s) => vec![&s.body, &s.orelse],
        ast::Stmt::AsyncFor(s) => vec![&s.body, &s.orelse],
        ast::Stmt::While(s) => vec![&s.body, &s.orelse],
        ast::Stmt::With(s) => vec![&s.body],
        ast::Stmt::AsyncWith(s) => vec![&s.body],
        ast::Stmt::Try(s) => {
            let mut blocks: Vec<&[ast::Stmt]> = vec![&s.body, &s.orelse, &s.finalbody];
            for handler in &s.handlers {
                let ast::ExceptHandler::ExceptHandler(h) = handler;
                blocks.push(&h.body);
            }
            blocks
        }
        ast::Stmt::TryStar(s) => {
            let mut blocks: Vec<&[ast::Stmt]> = vec![&s.body, &s.orelse, &s.finalbody];
            for handler in &s.handlers {
                let ast::ExceptHandler::ExceptHandler(h) = handler;
                blocks.push(&h.body);
            }
            blocks
        }
        ast::Stmt::Match(s) => s.cases.iter().map(|c| c.body.as_slice()).collect(),
        _ => Vec::new(),
    }
}

/// Every statement in a block, nested ones (function and class bodies too) included.
pub(crate) fn walk_stmts<'a>(block: &'a [ast::Stmt], out: &mut Vec<&'a ast::Stmt>) {
    for stmt in block {
        out.push(stmt);
        match stmt {
            ast::Stmt::FunctionDef(d) => walk_stmts(&d.body, out),
            ast::Stmt::AsyncFunctionDef(d) => walk_stmts(&d.body, out),
            ast::Stmt::ClassDef(c) => walk_stmts(&c.body, out),
            other => child_blocks(other).into_iter().for_each(|b| walk_stmts(b, out)),
        }
    }
}

/// Whether a statement is a docstring (a bare string constant).
pub(crate) fn is_docstring(stmt: &ast::Stmt) -> bool {
    matches!(stmt, ast::Stmt::Expr(e) if matches!(e.value.as_ref(),
        ast::Expr::Constant(c) if matches!(c.value, ast::Constant::Str(_))))
}

/// The expressions a statement evaluates itself (not those of its nested statements),
/// top level only. For a `def`/`class` these are the header's: decorators, defaults,
/// annotations, bases and keywords.
pub(crate) fn stmt_exprs(stmt: &ast::Stmt) -> Vec<&ast::Expr> {
    let mut out: Vec<&ast::Expr> = Vec::new();
    match stmt {
        ast::Stmt::FunctionDef(d) => {
            out.extend(d.decorator_list.iter());
            arguments_exprs(&d.args, &mut out);
            out.extend(d.returns.as_deref());
        }
        ast::Stmt::AsyncFunctionDef(d) => {
            out.extend(d.decorator_list.iter());
            arguments_exprs(&d.args, &mut out);
            out.extend(d.returns.as_deref());
        }
        ast::Stmt::ClassDef(c) => {
            out.extend(c.decorator_list.iter());
            out.extend(c.bases.iter());
            out.extend(c.keywords.iter().map(|k| &k.value));
        }
        ast::Stmt::Return(s) => out.extend(s.value.as_deref()),
        ast::Stmt::Delete(s) => out.extend(s.targets.iter()),
        ast::Stmt::Assign(s) => {
            out.extend(s.targets.iter());
            out.push(&s.value);
        }
        ast::Stmt::TypeAlias(s) => {
            out.push(&s.name);
            out.push(&s.value);
        }
        ast::Stmt::AugAssign(s) => {
            out.push(&s.target);
            out.push(&s.value);
        }
        ast::Stmt::AnnAssign(s) => {
            out.push(&s.target);
            out.push(&s.annotation);
            out.extend(s.value.as_deref());
        }
        ast::Stmt::For(s) => {
            out.push(&s.target);
            out.push(&s.iter);
        }
        ast::Stmt::AsyncFor(s) => {
            out.push(&s.target);
            out.push(&s.iter);
        }
        ast::Stmt::While(s) => out.push(&s.test),
        ast::Stmt::If(s) => out.push(&s.test),
        ast::Stmt::With(s) => with_items(&s.items, &mut out),
        ast::Stmt::AsyncWith(s) => with_items(&s.items, &mut out),
        ast::Stmt::Match(s) => {
            out.push(&s.subject);
            for case in &s.cases {
                pattern_exprs(&case.pattern, &mut out);
                out.extend(case.guard.as_deref());
            }
        }
        ast::Stmt::Raise(s) => {
            out.extend(s.exc.as_deref());
            out.extend(s.cause.as_deref());
        }
        ast::Stmt::Try(s) => handler_types(&s.handlers, &mut out),
        ast::Stmt::TryStar(s) => handler_types(&s.handlers, &mut out),
        ast::Stmt::Assert(s) => {
            out.push(&s.test);
            out.extend(s.msg.as_deref());
        }
        ast::Stmt::Expr(s) => out.push(&s.value),
        ast::Stmt::Import(_)
        | ast::Stmt::ImportFrom(_)
        | ast::Stmt::Global(_)
        | ast::Stmt::Nonlocal(_)
        | ast::Stmt::Pass(_)
        | ast::Stmt::Break(_)
        | ast::Stmt::Continue(_) => {}
    }
    out
}

fn with_items<'a>(items: &'a [ast::WithItem], out: &mut Vec<&'a ast::Expr>) {
    for item in items {
        out.push(&item.context_expr);
        out.extend(item.optional_vars.as_deref());
    }
}

fn handler_types<'a>(handlers: &'a [ast::ExceptHandler], out: &mut Vec<&'a ast::Expr>) {
    for handler in handlers {
        let ast::ExceptHandler::ExceptHandler(h) = handler;
        out.extend(h.type_.as_deref());
    }
}

/// Default values and annotations of a parameter list.
pub(crate) fn arguments_exprs<'a>(args: &'a ast::Arguments, out: &mut Vec<&'a ast::Expr>) {
    for arg in args.posonlyargs.iter().chain(&args.args) {
        out.extend(arg.def.annotation.as_deref());
        out.extend(arg.default.as_deref());
    }
    if let Some(vararg) = &args.vararg {
        out.extend(vararg.annotation.as_deref());
    }
    for arg in &args.kwonlyargs {
        out.extend(arg.def.annotation.as_deref());
        out.extend(arg.default.as_deref());
    }
    if let Some(kwarg) = &args.kwarg {
        out.extend(kwarg.annotation.as_deref());
    }
}

/// Every parameter of a parameter list, in source order.
pub(crate) fn parameters(args: &ast::Arguments) -> Vec<&ast::Arg> {
    let mut out: Vec<&ast::Arg> = args.posonlyargs.iter().chain(&args.args).map(|a| &a.def).collect();
    out.extend(args.vararg.as_deref());
    out.extend(args.kwonlyargs.iter().map(|a| &a.def));
    out.extend(args.kwarg.as_deref());
    out
}

fn pattern_exprs<'a>(pattern: &'a ast::Pattern, out: &mut Vec<&'a ast::Expr>) {
    match pattern {
        ast::Pattern::MatchValue(p) => out.push(&p.value),
        ast::Pattern::MatchSingleton(_) | ast::Pattern::MatchStar(_) => {}
        ast::Pattern::MatchSequence(p) => p.patterns.iter().for_each(|p| pattern_exprs(p, out)),
        ast::Pattern::MatchMapping(p) => {
            out.extend(p.keys.iter());
            p.patterns.iter().for_each(|p| pattern_exprs(p, out));
        }
        ast::Pattern::MatchClass(p) => {
            out.push(&p.cls);
            p.patterns.iter().chain(&p.kwd_patterns).for_each(|p| pattern_exprs(p, out));
        }
        ast::Pattern::MatchAs(p) => {
            if let Some(inner) = &p.pattern {
                pattern_exprs(inner, out);
            }
        }
        ast::Pattern::MatchOr(p) => p.patterns.iter().for_each(|p| pattern_exprs(p, out)),
    }
}

/// The names a match pattern captures.
pub(crate) fn pattern_names<'a>(pattern: &'a ast::Pattern, out: &mut Vec<&'a str>) {
    match pattern {
        ast::Pattern::MatchValue(_) | ast::Pattern::MatchSingleton(_) => {}
        ast::Pattern::MatchSequence(p) => p.patterns.iter().for_each(|p| pattern_names(p, out)),
        ast::Pattern::MatchMapping(p) => {
            p.patterns.iter().for_each(|p| pattern_names(p, out));
            out.extend(p.rest.as_deref());
        }
        ast::Pattern::MatchClass(p) => p.patterns.iter().chain(&p.kwd_patterns).for_each(|p| pattern_names(p, out)),
        ast::Pattern::MatchStar(p) => out.extend(p.name.as_deref()),
        ast::Pattern::MatchAs(p) => {
            if let Some(inner) = &p.pattern {
                pattern_names(inner, out);
            }
            out.extend(p.name.as_deref());
        }
        ast::Pattern::MatchOr(p) => p.patterns.iter().for_each(|p| pattern_names(p, out)),
    }
}

/// The direct sub-expressions of an expression.
pub(crate) fn expr_children(expr: &ast::Expr) -> Vec<&ast::Expr> {
    let mut out: Vec<&ast::Expr> = Vec::new();
    match expr {
        ast::Expr::BoolOp(e) => out.extend(e.values.iter()),
        ast::Expr::NamedExpr(e) => {
            out.push(&e.target);
            out.push(&e.value);
        }
        ast::Expr::BinOp(e) => {
            out.push(&e.left);
            out.push(&e.right);
        }
        ast::Expr::UnaryOp(e) => out.push(&e.operand),
        ast::Expr::Lambda(e) => {
            arguments_exprs(&e.args, &mut out);
            out.push(&e.body);
        }
        ast::Expr::IfExp(e) => {
            out.push(&e.test);
            out.push(&e.body);
            out.push(&e.orelse);
        }
        ast::Expr::Dict(e) => {
            for (key, value) in e.keys.iter().zip(&e.values) {
                out.extend(key.as_ref());
                out.push(value);
            }
        }
        ast::Expr::Set(e) => out.extend(e.elts.iter()),
        ast::Expr::ListComp(e) => {
            out.push(&e.elt);
            generators(&e.generators, &mut out);
        }
        ast::Expr::SetComp(e) => {
            out.push(&e.elt);
            generators(&e.generators, &mut out);
        }
        ast::Expr::DictComp(e) => {
            out.push(&e.key);
            out.push(&e.value);
            generators(&e.generators, &mut out);
        }
        ast::Expr::GeneratorExp(e) => {
            out.push(&e.elt);
            generators(&e.generators, &mut out);
        }
        ast::Expr::Await(e) => out.push(&e.value),
        ast::Expr::Yield(e) => out.extend(e.value.as_deref()),
        ast::Expr::YieldFrom(e) => out.push(&e.value),
        ast::Expr::Compare(e) => {
            out.push(&e.left);
            out.extend(e.comparators.iter());
        }
        ast::Expr::Call(e) => {
            out.push(&e.func);
            out.extend(e.args.iter());
            out.extend(e.keywords.iter().map(|k| &k.value));
        }
        ast::Expr::FormattedValue(e) => {
            out.push(&e.value);
            out.extend(e.format_spec.as_deref());
        }
        ast::Expr::JoinedStr(e) => out.extend(e.values.iter()),
        ast::Expr::Constant(_) | ast::Expr::Name(_) => {}
        ast::Expr::Attribute(e) => out.push(&e.value),
        ast::Expr::Subscript(e) => {
            out.push(&e.value);
            out.push(&e.slice);
        }
        ast::Expr::Starred(e) => out.push(&e.value),
        ast::Expr::List(e) => out.extend(e.elts.iter()),
        ast::Expr::Tuple(e) => out.extend(e.elts.iter()),
        ast::Expr::Slice(e) => {
            out.extend(e.lower.as_deref());
            out.extend(e.upper.as_deref());
            out.extend(e.step.as_deref());
        }
    }
    out
}

fn generators<'a>(generators: &'a [ast::Comprehension], out: &mut Vec<&'a ast::Expr>) {
    for generator in generators {
        out.push(&generator.target);
        out.push(&generator.iter);
        out.extend(generator.ifs.iter());
    }
}

/// The expressions a statement owns directly (its nested statements' expressions
/// excluded), every sub-expression included (keyword arguments, comprehensions, `with`
/// items, defaults and match patterns too), sorted by start (outer before inner).
pub(crate) fn owned_exprs(stmt: &ast::Stmt) -> Vec<&ast::Expr> {
    let mut out = Vec::new();
    let mut stack: Vec<&ast::Expr> = stmt_exprs(stmt);
    while let Some(expr) = stack.pop() {
        out.push(expr);
        stack.extend(expr_children(expr));
    }
    out.sort_by_key(|e| (e.range().start(), std::cmp::Reverse(e.range().end())));
    out
}
