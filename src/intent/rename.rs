//! `rename` (refactor): a module-level function, class or constant (an `UPPER_CASE`
//! assignment) of a source module gets the name a developer would pick
//! ([`naming::synonym`]), consistently in every Python file of the tree (`.py` and
//! `.pyi`, sources and tests), so the unchanged suite passes.
//!
//! What is renamed, found on the AST of each file that mentions the name:
//! - the definition itself, in the module and in its `.pyi` stub;
//! - `from m import old` (the alias kept: `from m import new as x`) where `m` is the
//!   defining module or re-exports the name (`from .m import old` or `from .m import *`
//!   in a package's `__init__`, found to a fixed point); in every module that so binds
//!   the name (the defining one included), each `Name` load of it;
//! - `m.old` where `m` resolves, through the file's imports, to such a module;
//! - the string `"old"` in such a module's `__all__`, the dotted string `"m.old"`
//!   (`mock.patch`), and `"old"` as the second argument of a call whose first is such a
//!   module (`getattr(m, "old")`, `patch.object(m, "old")`, `monkeypatch.setattr`);
//! - in comments and docstrings, mentions that name code: in backticks, followed by `(`,
//!   or on a doctest line (`>>>`, `...`). Other prose is left as written.
//!
//! Every other whole-word occurrence of the name in a Python file (another definition, a
//! parameter, a keyword argument, an attribute of another object, a local, a string) makes
//! the name ambiguous: no site. So do names shorter than three characters, dunders, a
//! new name that already occurs anywhere, a file mentioning the name that does not parse,
//! and a rename that would widen a file past its widest line (or 79 columns).

use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;

use rustpython_ast as ast;

use super::naming::{self, is_word_at, occurrences, occurs, Mentions};
use super::kind::Kind;
use super::site::{Change, Rewrites, Site, Transform, Workspace};
use crate::python::walk::{is_docstring, owned_exprs, walk_stmts};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

pub(crate) struct Rename;

impl Transform for Rename {
    fn change(&self) -> Change {
        Change::Refactor(Rewrites::ModuleName)
    }

    fn description(&self) -> &'static str {
        "renames a module-level function, class or constant everywhere it is used, tests included"
    }

    fn sites(&self, workspace: &Workspace) -> Vec<Site> {
        let files = Files::of(workspace.tree);
        let taken: BTreeSet<&str> = files.all.iter().flat_map(|f| naming::all_words(f.text)).collect();
        let mut sites = Vec::new();
        for module in workspace.modules {
            for (name, stmt) in definitions(module) {
                let Some(new) = naming::synonym(name).filter(|new| naming::is_renamable(name) && !taken.contains(new.as_str()))
                else {
                    continue;
                };
                if plan(&files, &module.path, name).is_ok_and(|edits| spliced(&files, &edits, name, &new).is_some()) {
                    sites.push(Site {
                        kind: Kind::Rename,
                        path: module.path.clone(),
                        symbol: name.to_string(),
                        lines: lines_of(module, stmt),
                        uses: BTreeSet::from([name.to_string()]),
                        target: Some(new),
                        tests: Vec::new(),
                    });
                }
            }
        }
        sites.sort_by_key(|s| (s.path.clone(), s.lines.start, s.symbol.clone()));
        sites
    }

    fn apply(&self, _workspace: &Workspace, tree: &Snapshot, site: &Site) -> Option<Snapshot> {
        let (old, new) = (site.symbol.as_str(), site.target.as_deref()?);
        let files = Files::of(tree);
        if !naming::is_renamable(old) || naming::is_reserved(new) || files.all.iter().any(|f| occurs(f.text, new)) {
            return None;
        }
        let edits = plan(&files, &site.path, old).ok()?;
        renamed_tree(tree, &files, &edits, old, new)
    }

    fn message(&self, site: &Site) -> String {
        format!("Rename `{}` to `{}`", site.symbol, site.target.as_deref().unwrap_or_default())
    }
}

/// Each edited file's new text, if every edit holds the name and no file grows wider
/// than it was (or 79 columns).
pub(super) fn spliced<'p>(
    files: &Files,
    edits: &'p BTreeMap<String, BTreeSet<usize>>,
    old: &str,
    new: &str,
) -> Option<Vec<(&'p str, String)>> {
    edits
        .iter()
        .map(|(path, at)| {
            let before = files.get(path)?.text;
            let after = naming::renamed(before, at, old, new).filter(|after| naming::keeps_width(before, after))?;
            Some((path.as_str(), after))
        })
        .collect()
}

/// `tree` with `old` renamed to `new` at `edits` (offsets of the name, per file), if
/// every edited file keeps its width (see [`spliced`]) and still parses.
pub(super) fn renamed_tree(
    tree: &Snapshot,
    files: &Files,
    edits: &BTreeMap<String, BTreeSet<usize>>,
    old: &str,
    new: &str,
) -> Option<Snapshot> {
    let mut out = tree.clone();
    for (path, after) in spliced(files, edits, old, new)? {
        if !crate::python::parses(&after, path) {
            return None;
        }
        out = snapshot::with_file(&out, path, &after);
    }
    Some(out)
}

/// The 1-based lines of a statement (a `def` or `class` with its decorators), end exclusive.
pub(crate) fn lines_of(module: &PyModule, stmt: &ast::Stmt) -> Range<usize> {
    let decorators = match stmt {
        ast::Stmt::FunctionDef(d) => d.decorator_list.first(),
        ast::Stmt::AsyncFunctionDef(d) => d.decorator_list.first(),
        ast::Stmt::ClassDef(c) => c.decorator_list.first(),
        _ => None,
    };
    let start = decorators.map_or(PyModule::span(stmt).start, |d| PyModule::span(d).start);
    module.line_of(start)..module.line_of(PyModule::span(stmt).end) + 1
}

/// Whether a name is spelled as a constant: capitals, digits and underscores.
fn is_constant_name(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase()) && !name.chars().any(char::is_lowercase)
}

/// The module's renamable top-level definitions: functions, classes and constants, each
/// with its statement.
fn definitions(module: &PyModule) -> Vec<(&str, &ast::Stmt)> {
    module
        .suite
        .iter()
        .filter_map(|stmt| {
            let name = defined_name(stmt)?;
            (!matches!(stmt, ast::Stmt::Assign(_) | ast::Stmt::AnnAssign(_)) || is_constant_name(name))
                .then_some((name, stmt))
        })
        .collect()
}

/// The name a top-level statement defines: a function, a class, or the one name an
/// assignment binds.
fn defined_name(stmt: &ast::Stmt) -> Option<&str> {
    match stmt {
        ast::Stmt::FunctionDef(d) => Some(&d.name),
        ast::Stmt::AsyncFunctionDef(d) => Some(&d.name),
        ast::Stmt::ClassDef(c) => Some(&c.name),
        ast::Stmt::Assign(a) if a.targets.len() == 1 => match &a.targets[0] {
            ast::Expr::Name(n) => Some(&n.id),
            _ => None,
        },
        ast::Stmt::AnnAssign(a) => match a.target.as_ref() {
            ast::Expr::Name(n) => Some(&n.id),
            _ => None,
        },
        _ => None,
    }
}

/// Where a top-level statement defining `old` spells the name.
fn definition_at(module: &PyModule, stmt: &ast::Stmt, old: &str) -> Option<usize> {
    if defined_name(stmt)? != old {
        return None;
    }
    let span = PyModule::span(stmt);
    occurrences(&module.text[span.clone()], old).first().map(|at| span.start + at)
}

/// One Python file of the tree, parsed when first needed.
pub(super) struct File<'t> {
    pub(super) path: &'t str,
    pub(super) text: &'t str,
    /// Its dotted module name (`pkg.mod`; a package's `__init__` is `pkg`).
    module: String,
    /// The package its relative imports start from, if it is in one.
    package: Option<String>,
    parsed: OnceCell<Option<Parsed>>,
}

pub(super) struct Parsed {
    pub(super) module: PyModule,
    pub(super) comments: Vec<Range<usize>>,
}

impl File<'_> {
    pub(super) fn parsed(&self) -> Option<&Parsed> {
        self.parsed
            .get_or_init(|| {
                let module = PyModule::parse(self.path, self.text).ok()?;
                let comments = naming::comments(self.text)?;
                Some(Parsed { module, comments })
            })
            .as_ref()
    }

    /// The absolute module an `import from` names, relative ones resolved.
    fn resolve(&self, import: &ast::StmtImportFrom) -> Option<String> {
        let level = import.level.as_ref().map_or(0, |l| l.to_usize());
        if level == 0 {
            return import.module.as_ref().map(|m| m.to_string());
        }
        let mut base: Vec<&str> = self.package.as_deref()?.split('.').collect();
        for _ in 1..level {
            base.pop()?;
        }
        base.extend(import.module.as_deref());
        (!base.is_empty()).then(|| base.join("."))
    }
}

/// Every Python file of a tree.
pub(super) struct Files<'t> {
    pub(super) all: Vec<File<'t>>,
}

impl<'t> Files<'t> {
    pub(super) fn of(tree: &'t Snapshot) -> Self {
        let all = tree
            .keys()
            .filter(|path| path.ends_with(".py") || path.ends_with(".pyi"))
            .filter_map(|path| {
                let text = snapshot::text_of(tree, path)?;
                let (module, package) = module_name(tree, path);
                Some(File { path, text, module, package, parsed: OnceCell::new() })
            })
            .collect();
        Files { all }
    }

    pub(super) fn get(&self, path: &str) -> Option<&File<'t>> {
        self.all.iter().find(|f| f.path == path)
    }
}

/// A file's dotted module name and package: its folders up to the first without an
/// `__init__.py`/`__init__.pyi` are packages.
fn module_name(tree: &Snapshot, path: &str) -> (String, Option<String>) {
    let stem = path.strip_suffix(".pyi").or_else(|| path.strip_suffix(".py")).unwrap_or(path);
    let mut dirs: Vec<&str> = stem.split('/').collect();
    let file = dirs.pop().unwrap_or_default();
    let mut package: Vec<&str> = Vec::new();
    while let Some(&dir) = dirs.last() {
        let folder = dirs.join("/");
        if !tree.contains_key(&format!("{folder}/__init__.py")) && !tree.contains_key(&format!("{folder}/__init__.pyi")) {
            break;
        }
        package.insert(0, dir);
        dirs.pop();
    }
    let package = (!package.is_empty()).then(|| package.join("."));
    let module = match (&package, file) {
        (Some(p), "__init__") => p.clone(),
        (Some(p), f) => format!("{p}.{f}"),
        (None, f) => f.to_string(),
    };
    (module, package)
}

/// Every `import from` of a module, nested ones included.
fn import_froms(module: &PyModule) -> Vec<&ast::StmtImportFrom> {
    let mut stmts = Vec::new();
    walk_stmts(&module.suite, &mut stmts);
    stmts
        .into_iter()
        .filter_map(|s| match s {
            ast::Stmt::ImportFrom(i) => Some(i),
            _ => None,
        })
        .collect()
}

/// The names of a module's `__all__` when it is a literal list or tuple of strings
/// (`+=` extensions included); `None` when it has none or builds it otherwise.
fn all_names(module: &PyModule) -> Option<Vec<String>> {
    let mut names = Vec::new();
    let mut found = false;
    for (_, value) in all_assignments(module) {
        found = true;
        let elements = match value {
            ast::Expr::List(l) => &l.elts,
            ast::Expr::Tuple(t) => &t.elts,
            _ => return None,
        };
        for element in elements {
            names.push(string_value(element)?.to_string());
        }
    }
    found.then_some(names)
}

/// The top-level statements assigning or extending `__all__`, with their values.
fn all_assignments(module: &PyModule) -> Vec<(&ast::Stmt, &ast::Expr)> {
    let is_all = |e: &ast::Expr| matches!(e, ast::Expr::Name(n) if n.id.as_str() == "__all__");
    module
        .suite
        .iter()
        .filter_map(|stmt| match stmt {
            ast::Stmt::Assign(a) if a.targets.iter().any(is_all) => Some((stmt, a.value.as_ref())),
            ast::Stmt::AugAssign(a) if is_all(&a.target) => Some((stmt, a.value.as_ref())),
            ast::Stmt::AnnAssign(a) if is_all(&a.target) => a.value.as_deref().map(|v| (stmt, v)),
            _ => None,
        })
        .collect()
}

pub(super) fn string_value(expr: &ast::Expr) -> Option<&str> {
    match expr {
        ast::Expr::Constant(c) => match &c.value {
            ast::Constant::Str(s) => Some(s),
            _ => None,
        },
        _ => None,
    }
}

/// Where the text of string `value` starts in `expr`'s source, when the literal is one
/// plain quoted string (no prefix, escape or implicit concatenation).
pub(super) fn plain_string_start(module: &PyModule, expr: &ast::Expr, value: &str) -> Option<usize> {
    let source = module.source(expr);
    let quote = source.chars().next().filter(|q| *q == '"' || *q == '\'')?;
    (source.len() == value.len() + 2 && source.ends_with(quote) && &source[1..source.len() - 1] == value)
        .then(|| PyModule::span(expr).start + 1)
}

/// Whether `from m import *` binds `old`, `m` being one of `exporters`' modules.
fn star_exports(files: &Files, module: &str, old: &str) -> bool {
    let mut exported = false;
    for file in files.all.iter().filter(|f| f.module == module) {
        let names = file.parsed().and_then(|p| all_names(&p.module));
        exported |= match names {
            Some(names) => names.iter().any(|n| n == old),
            None => !old.starts_with('_'),
        };
    }
    exported
}

/// The modules through which `old` (defined in `home`) can be reached, and the files
/// that bind the bare name: the defining module and every module importing it without
/// an alias (or with `*`) from one of them, to a fixed point.
fn exporters<'f>(files: &'f Files, home: &str, old: &str) -> Result<(BTreeSet<String>, BTreeSet<&'f str>), String> {
    let mut modules = BTreeSet::from([home.to_string()]);
    let mut binders: BTreeSet<&str> = files.all.iter().filter(|f| f.module == home).map(|f| f.path).collect();
    loop {
        let mut changed = false;
        for file in &files.all {
            if binders.contains(file.path) || !(occurs(file.text, old) || file.text.contains("import *")) {
                continue;
            }
            let Some(parsed) = file.parsed() else {
                if occurs(file.text, old) {
                    return Err(format!("{}: does not parse", file.path));
                }
                continue;
            };
            let binds = import_froms(&parsed.module).into_iter().any(|import| {
                file.resolve(import).is_some_and(|m| {
                    modules.contains(&m)
                        && import.names.iter().any(|alias| {
                            (alias.name.as_str() == old && alias.asname.is_none())
                                || (alias.name.as_str() == "*" && star_exports(files, &m, old))
                        })
                })
            });
            if binds {
                binders.insert(file.path);
                modules.insert(file.module.clone());
                changed = true;
            }
        }
        if !changed {
            return Ok((modules, binders));
        }
    }
}

/// Where renaming `old`, defined at the top of `path`, edits each file (offsets of the
/// name); `Err` says why the name is ambiguous.
fn plan(files: &Files, path: &str, old: &str) -> Result<BTreeMap<String, BTreeSet<usize>>, String> {
    let home = files.get(path).ok_or("no such file")?;
    let parsed = home.parsed().ok_or("does not parse")?;
    let definitions = parsed.module.suite.iter().filter(|s| definition_at(&parsed.module, s, old).is_some()).count();
    if definitions != 1 {
        return Err(format!("{definitions} top-level definitions"));
    }
    let (modules, binders) = exporters(files, &home.module, old)?;
    let mut plan = BTreeMap::new();
    for file in files.all.iter().filter(|f| occurs(f.text, old)) {
        let parsed = file.parsed().ok_or_else(|| format!("{}: does not parse", file.path))?;
        let home_module = file.module == home.module && (file.path == path || file.path.ends_with(".pyi"));
        let edits = edits_in(file, parsed, old, &modules, binders.contains(file.path), home_module)?;
        plan.insert(file.path.to_string(), edits);
    }
    Ok(plan)
}

/// The offsets of `old` to rename in one file; `Err` if the file mentions it otherwise.
fn edits_in(
    file: &File,
    parsed: &Parsed,
    old: &str,
    modules: &BTreeSet<String>,
    binds: bool,
    home: bool,
) -> Result<BTreeSet<usize>, String> {
    let module = &parsed.module;
    let mut edits = BTreeSet::new();
    if home {
        edits.extend(module.suite.iter().filter_map(|s| definition_at(module, s, old)));
    }
    if modules.contains(&file.module) {
        for (_, value) in all_assignments(module) {
            edits.extend(all_entries(module, value, old));
        }
    }
    let bindings = import_bindings(file, module);
    checked_edits(file, parsed, old, edits, |stmt, edits| {
        if let ast::Stmt::ImportFrom(import) = stmt {
            if file.resolve(import).is_some_and(|m| modules.contains(&m)) {
                edits.extend(import.names.iter().filter(|a| a.name.as_str() == old).map(|a| PyModule::span(a).start));
            }
        }
        for expr in owned_exprs(stmt) {
            edits.extend(expr_edit(module, expr, old, modules, &bindings, binds));
        }
    })
}

/// The offsets of `old` to rename in one file, for a rename across files: `edits`, those
/// `in_stmt` adds for each statement of the file (nested ones included), and the mentions
/// of `old` in its comments and docstrings (in backticks, followed by `(`, or on a doctest
/// line). `Err` if an edit does not hold the word `old`, or the file's code spells `old`
/// anywhere else (the name is then ambiguous).
pub(super) fn checked_edits(
    file: &File,
    parsed: &Parsed,
    old: &str,
    mut edits: BTreeSet<usize>,
    mut in_stmt: impl FnMut(&ast::Stmt, &mut BTreeSet<usize>),
) -> Result<BTreeSet<usize>, String> {
    let module = &parsed.module;
    let mut prose: Vec<Range<usize>> = parsed.comments.clone();
    let mut stmts = Vec::new();
    walk_stmts(&module.suite, &mut stmts);
    for stmt in stmts {
        if is_docstring(stmt) {
            prose.push(PyModule::span(stmt));
        }
        in_stmt(stmt, &mut edits);
    }
    for range in &prose {
        edits.extend(naming::mentions(file.text, range.clone(), old, Mentions::MarkedAndDoctests));
    }
    if let Some(at) = edits.iter().find(|&&at| !is_word_at(file.text, at, old)) {
        return Err(format!("{}:{}: the AST's offset does not hold `{old}`", file.path, module.line_of(*at)));
    }
    match occurrences(file.text, old).into_iter().find(|at| !edits.contains(at) && !prose.iter().any(|r| r.contains(at))) {
        Some(at) => Err(format!("{}:{}: `{old}` used otherwise", file.path, module.line_of(at))),
        None => Ok(edits),
    }
}

/// The offsets of `"old"` among the strings of an `__all__` value.
fn all_entries(module: &PyModule, value: &ast::Expr, old: &str) -> Vec<usize> {
    let elements = match value {
        ast::Expr::List(l) => &l.elts,
        ast::Expr::Tuple(t) => &t.elts,
        _ => return Vec::new(),
    };
    elements
        .iter()
        .filter(|e| string_value(e) == Some(old))
        .filter_map(|e| plain_string_start(module, e, old))
        .collect()
}

/// The rename an expression itself needs (its sub-expressions are visited apart).
fn expr_edit(
    module: &PyModule,
    expr: &ast::Expr,
    old: &str,
    modules: &BTreeSet<String>,
    bindings: &HashMap<String, Option<String>>,
    binds: bool,
) -> Option<usize> {
    let reaches = |e: &ast::Expr| dotted(e, bindings).is_some_and(|d| modules.contains(&d));
    match expr {
        ast::Expr::Name(n) if binds && n.id.as_str() == old && n.ctx == ast::ExprContext::Load => {
            Some(PyModule::span(n).start)
        }
        ast::Expr::Attribute(a) if a.attr.as_str() == old && reaches(&a.value) => {
            Some(PyModule::span(a).end - old.len())
        }
        ast::Expr::Call(call) if call.args.len() >= 2 && reaches(&call.args[0]) => {
            (string_value(&call.args[1]) == Some(old)).then(|| plain_string_start(module, &call.args[1], old))?
        }
        ast::Expr::Constant(_) => {
            let value = string_value(expr)?;
            let (prefix, last) = value.rsplit_once('.')?;
            (last == old && modules.contains(prefix))
                .then(|| plain_string_start(module, expr, value).map(|s| s + prefix.len() + 1))?
        }
        _ => None,
    }
}

/// What each name bound by the file's imports refers to (a dotted module path, or the
/// dotted path of an imported name); `None` for a name imported two different ways.
fn import_bindings(file: &File, module: &PyModule) -> HashMap<String, Option<String>> {
    let mut out: HashMap<String, Option<String>> = HashMap::new();
    let mut bind = |name: &str, target: String| {
        out.entry(name.to_string()).and_modify(|t| if t.as_deref() != Some(&target) { *t = None }).or_insert(Some(target));
    };
    let mut stmts = Vec::new();
    walk_stmts(&module.suite, &mut stmts);
    for stmt in stmts {
        match stmt {
            ast::Stmt::Import(import) => {
                for alias in &import.names {
                    match &alias.asname {
                        Some(as_name) => bind(as_name, alias.name.to_string()),
                        None => {
                            let root = alias.name.split('.').next().unwrap_or_default();
                            bind(root, root.to_string());
                        }
                    }
                }
            }
            ast::Stmt::ImportFrom(import) => {
                let Some(from) = file.resolve(import) else { continue };
                for alias in import.names.iter().filter(|a| a.name.as_str() != "*") {
                    bind(alias.asname.as_deref().unwrap_or(&alias.name), format!("{from}.{}", alias.name));
                }
            }
            _ => {}
        }
    }
    out
}

/// The dotted path a `name.attr...` chain refers to through the file's imports.
fn dotted(expr: &ast::Expr, bindings: &HashMap<String, Option<String>>) -> Option<String> {
    match expr {
        ast::Expr::Name(n) => bindings.get(n.id.as_str()).cloned().flatten(),
        ast::Expr::Attribute(a) => Some(format!("{}.{}", dotted(&a.value, bindings)?, a.attr)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> Snapshot {
        files.iter().map(|(p, t)| (p.to_string(), std::sync::Arc::from(t.as_bytes()))).collect()
    }

    #[test]
    fn modules_are_named_by_their_packages() {
        let t = tree(&[("src/pkg/__init__.py", ""), ("src/pkg/mod.py", ""), ("tests/test_x.py", ""), ("top.py", "")]);
        assert_eq!(module_name(&t, "src/pkg/mod.py"), ("pkg.mod".into(), Some("pkg".into())));
        assert_eq!(module_name(&t, "src/pkg/__init__.py"), ("pkg".into(), Some("pkg".into())));
        assert_eq!(module_name(&t, "tests/test_x.py"), ("test_x".into(), None));
        assert_eq!(module_name(&t, "top.py"), ("top".into(), None));
    }
}
