//! Planning one move of a module-level `def` or `class` from module A to module B of the
//! same package: what each file of the tree must change, as [`FileChange`]s, or `None`
//! when the move is refused.
//!
//! - The unit (HEAD's text: attached comments, decorators, body) leaves A with the blank
//!   lines around it and is appended to B (before a closing `if __name__ == "__main__":`).
//! - What the unit reads from A comes along: A's imports of those names are copied into
//!   B (trimmed to them; merged into B's import of the same module if it has one), A's
//!   own definitions are imported from A (or read as `a.name` when B already imports A
//!   as a module); A drops the imports only the unit used and imports the unit from B if
//!   it still uses it (or reads `b.name` when it imports B as a module). `b.x` in the
//!   unit (A's import of B as a module) becomes `x`.
//! - Every use follows: `from A import f` (split when it imports more), `A.f` through a
//!   module import (rewritten to B's module, imported alike when the file lacks it),
//!   `"pkg.A.f"` strings (`mock.patch` targets), `__all__` entries, star re-exports, and
//!   the declarations in A's stub (`a.pyi`), which move to B's.
//! - Refused: a name the unit needs that B binds otherwise (or the unit's own name), a
//!   name bound inside `if`/`try` blocks (`TYPE_CHECKING` imports, fallbacks) or through
//!   `global`, a name the unit reads that A does not bind, module introspection
//!   (`__name__`, `__module__`, `globals()`), B using the name at import time, A left
//!   without code, any new import-time import cycle, a source module made to import B
//!   when B is its package's command line or entry point and no other module imports it,
//!   a text naming the unit's old place (an expected `repr`), a patch target for a name
//!   the unit reads from A, a patch target for the unit while A keeps using it, and
//!   doctests that would lose a name.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;

use rustpython_ast as ast;

use super::change::{sorted_position, splice, whole_lines, FileChange};
use super::index::{is_dotted, Alias, AllList, BindingKind, Exports, File, Import, Index, Target};
use super::scope::{self, Reads};
use crate::python::walk::is_docstring;
use crate::python::PyModule;

mod retarget;

/// Module-level names whose value differs from one module to another: a unit reading
/// them would change meaning in B.
const MODULE_INTROSPECTION: &[&str] =
    &["__name__", "__file__", "__package__", "__spec__", "__loader__", "__path__", "__cached__", "__builtins__", "globals"];

/// The name a top-level statement defines, if it is a `def` or `class`.
pub(crate) fn def_name(stmt: &ast::Stmt) -> Option<String> {
    match stmt {
        ast::Stmt::FunctionDef(d) => Some(d.name.to_string()),
        ast::Stmt::AsyncFunctionDef(d) => Some(d.name.to_string()),
        ast::Stmt::ClassDef(c) => Some(c.name.to_string()),
        _ => None,
    }
}

/// Whether an import statement is first-party: relative, or of a module of the tree.
pub(crate) fn is_project(index: &Index, import: &Import) -> bool {
    import.from.as_deref().is_some_and(|f| f.starts_with('.'))
        || import.module.as_deref().is_some_and(|m| index.module(m).is_some())
        || import.aliases.iter().any(|a| {
            let module = a.dotted.as_deref().unwrap_or(&a.name);
            index.loaded_module(a).is_some() || index.module(module).is_some()
        })
}

/// The unit's text and lines in A.
pub(crate) struct Unit {
    /// Whole lines: attached comments, decorators, the statement, indented comments after it.
    pub(crate) cut: Range<usize>,
    /// 1-based lines of the statement, decorators included, end exclusive.
    pub(crate) lines: Range<usize>,
}

/// Where statement `stmt` of `file` sits, if it starts a line and ends one.
pub(crate) fn unit(file: &File, stmt: usize) -> Option<Unit> {
    let py = &file.py;
    let text = &py.text;
    let node = py.suite.get(stmt)?;
    let span = PyModule::span(node);
    def_name(node)?;
    let start = statement_start(py, node);
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    if line_start != start {
        return None;
    }
    let mut end = whole_lines(text, span)?.end;
    while end < text.len() {
        let next = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
        let line = &text[end..next];
        if !(line.starts_with([' ', '\t']) && line.trim_start().starts_with('#')) {
            break;
        }
        end = next;
    }
    let mut first = start;
    while first > 0 {
        let previous = text[..first - 1].rfind('\n').map_or(0, |i| i + 1);
        if !text[previous..first].starts_with('#') {
            break;
        }
        first = previous;
    }
    if first == 0 && first < start {
        // A comment run from the top of the file is the file's header, not the unit's.
        first = start;
    }
    Some(Unit { cut: first..end, lines: py.line_of(start)..py.line_of(end - 1) + 1 })
}

/// Where a statement starts, its decorators' `@` included.
fn statement_start(py: &PyModule, stmt: &ast::Stmt) -> usize {
    let decorators: &[ast::Expr] = match stmt {
        ast::Stmt::FunctionDef(d) => &d.decorator_list,
        ast::Stmt::AsyncFunctionDef(d) => &d.decorator_list,
        ast::Stmt::ClassDef(c) => &c.decorator_list,
        _ => &[],
    };
    decorators
        .iter()
        .map(|d| {
            let at = PyModule::span(d).start;
            py.text[..at].rfind('@').unwrap_or(at)
        })
        .fold(PyModule::span(stmt).start, usize::min)
}

/// What the unit reads from A.
#[derive(Default)]
struct Needs {
    /// A's own module-level names (imported into B from A).
    from_a: BTreeSet<String>,
    /// A's import aliases B must get: (import, alias).
    imports: Vec<(usize, usize)>,
    /// Every A import alias the unit reads (A drops those it no longer reads).
    read_imports: Vec<(usize, usize)>,
    /// `b.x` → `x` in the unit (ranges in A's text).
    rewrites: Vec<(Range<usize>, String)>,
}

/// What a move changes: files and stub files (`.pyi`), by index in the [`Index`].
#[derive(Default)]
pub(crate) struct Planned {
    pub(crate) files: BTreeMap<usize, FileChange>,
    pub(crate) stubs: BTreeMap<usize, FileChange>,
}

struct Move<'a> {
    index: &'a Index,
    a: usize,
    b: usize,
    stmt: usize,
    name: String,
    changes: BTreeMap<usize, FileChange>,
    stub_changes: BTreeMap<usize, FileChange>,
    /// Import-time imports the move adds: (file, module file).
    new_edges: Vec<(usize, usize)>,
    /// A's code still reads the unit's name (and imports it back).
    a_keeps_name: bool,
    /// B's name for module A when the moved unit reads A's names through it (`a.name`):
    /// B keeps that import even if its own `a.unit` chains were its only uses.
    b_reads_a_as: Option<String>,
}

/// The changes moving statement `stmt` of file `a` to file `b` makes, or `None` when the
/// move is refused.
pub(crate) fn plan(index: &Index, a: usize, stmt: usize, b: usize) -> Option<Planned> {
    let (fa, fb) = (&index.files[a], &index.files[b]);
    let name = def_name(fa.py.suite.get(stmt)?)?;
    let resolvable = index.module(&fa.module) == Some(a) && index.module(&fb.module) == Some(b);
    if a == b || !resolvable || fa.package != fb.package || (name.starts_with("__") && name.ends_with("__")) {
        return None;
    }
    if fa.bindings.get(&name).map_or(0, Vec::len) != 1 || fa.reads.declared_global.contains(&name) {
        return None;
    }
    let mut planned = Move {
        index,
        a,
        b,
        stmt,
        name,
        changes: BTreeMap::new(),
        stub_changes: BTreeMap::new(),
        new_edges: Vec::new(),
        a_keeps_name: false,
        b_reads_a_as: None,
    };
    let unit = unit(fa, stmt)?;
    let reads = scope::reads(std::iter::once(&fa.py.suite[stmt]));
    if !reads.declared_global.is_empty() {
        return None;
    }
    if reads_module_name(&fa.py.suite[stmt]) || planned.patches_what_it_reads(&reads) {
        return None;
    }
    let needs = planned.needs(&reads)?;
    planned.edit_a(&unit, &needs)?;
    planned.edit_b(&unit, &needs, &reads)?;
    planned.retarget_uses()?;
    planned.move_stub()?;
    if planned.cyclic() || planned.climbs() {
        return None;
    }
    Some(Planned { files: planned.changes, stubs: planned.stub_changes })
}

impl Move<'_> {
    fn a_module(&self) -> &str {
        &self.index.files[self.a].module
    }

    fn b_module(&self) -> &str {
        &self.index.files[self.b].module
    }

    fn change(&mut self, file: usize) -> &mut FileChange {
        self.changes.entry(file).or_default()
    }

    /// Whether a string somewhere names a module-level name of A the unit reads
    /// (`mock.patch("pkg.a.helper")`): patching it would no longer reach the unit.
    fn patches_what_it_reads(&self, reads: &Reads) -> bool {
        let fa = &self.index.files[self.a];
        let a_module = self.a_module();
        let read: Vec<String> = reads
            .globals
            .keys()
            .filter(|n| fa.bindings.contains_key(*n) && **n != self.name)
            .map(|n| format!("{a_module}.{n}"))
            .collect();
        self.index.files.iter().flat_map(|f| &f.strings).any(|(value, _)| {
            read.iter().any(|q| is_dotted(value) && (value == q || value.starts_with(&format!("{q}."))))
        })
    }

    /// Whether B takes the name in a star import after the move.
    fn exported_by_b(&self) -> bool {
        let (fa, fb) = (&self.index.files[self.a], &self.index.files[self.b]);
        match fb.exports {
            Exports::Listed(_) => fa.exports(&self.name),
            Exports::Implicit => !self.name.starts_with('_'),
            Exports::Dynamic => false,
        }
    }

    fn needs(&self, reads: &Reads) -> Option<Needs> {
        let (fa, fb) = (&self.index.files[self.a], &self.index.files[self.b]);
        let (a_module, b_module) = (self.a_module(), self.b_module());
        let mut needs = Needs::default();
        for (name, ranges) in &reads.globals {
            if *name == self.name {
                continue;
            }
            if MODULE_INTROSPECTION.contains(&name.as_str()) {
                return None;
            }
            let Some(bindings) = fa.bindings.get(name) else {
                if scope::is_builtin(name) && !fb.bindings.contains_key(name) {
                    continue;
                }
                return None;
            };
            if fa.reads.declared_global.contains(name) || bindings.iter().any(|b| !b.direct) {
                return None;
            }
            let imports: Vec<(usize, usize)> = bindings
                .iter()
                .filter_map(|b| match b.kind {
                    BindingKind::Import { import, alias } => Some((import, alias)),
                    _ => None,
                })
                .collect();
            if imports.is_empty() && bindings.len() == 1 {
                needs.from_a.insert(name.clone());
                continue;
            }
            if imports.len() != bindings.len() {
                return None;
            }
            for (i, j) in imports {
                let alias = &fa.imports[i].aliases[j];
                needs.read_imports.push((i, j));
                if alias.dotted.as_deref().is_some_and(|d| d == a_module || d == b_module) {
                    return None;
                }
                match &alias.target {
                    Target::Unknown | Target::Star(_) => return None,
                    Target::Module(m) | Target::Name(m, _) if m == a_module => return None,
                    Target::Module(m) if m == b_module => {
                        // `b.x` in the unit becomes B's own `x`.
                        let attributes: Vec<_> = reads.attributes.iter().filter(|(base, _, _)| base == name).collect();
                        if attributes.len() != ranges.len() {
                            return None;
                        }
                        for (_, attr, range) in attributes {
                            let clash = reads.bound.contains(attr) || reads.globals.contains_key(attr);
                            if clash || !fb.bindings.contains_key(attr) {
                                return None;
                            }
                            needs.rewrites.extend(realigned(fa, range, attr));
                            needs.rewrites.push((range.clone(), attr.clone()));
                        }
                    }
                    Target::Name(m, attr) if m == b_module => {
                        if attr != name || !fb.bindings.contains_key(attr) {
                            return None;
                        }
                    }
                    _ => needs.imports.push((i, j)),
                }
            }
        }
        Some(needs)
    }

    /// A loses the unit (and the imports only it read), imports it back from B if its
    /// other code still uses it, and drops it from its `__all__`.
    fn edit_a(&mut self, unit: &Unit, needs: &Needs) -> Option<()> {
        let index = self.index;
        let fa = &index.files[self.a];
        let rest: Vec<&ast::Stmt> =
            fa.py.suite.iter().enumerate().filter(|(i, _)| *i != self.stmt).map(|(_, s)| s).collect();
        let only_header = rest.iter().all(|s| {
            is_docstring(s)
                || matches!(s, ast::Stmt::Import(_) | ast::Stmt::ImportFrom(_))
                || assigns_all(s)
                || is_main_guard(s)
        });
        if only_header {
            return None;
        }
        let rest_reads = scope::reads(rest.iter().copied());
        let rest_doctests = scope::doctest_reads(rest.iter().copied());
        let b_module = self.b_module().to_string();
        let name = self.name.clone();
        let (a, b) = (self.a, self.b);
        self.a_keeps_name = rest_reads.globals.contains_key(&name);
        // A doctest of A's reading the name needs it among A's globals.
        if rest_doctests.contains(&name) && (!self.a_keeps_name || module_alias(fa, &b_module).is_some()) {
            return None;
        }
        // A module import of B that A's code keeps using through the unit's new name.
        let mut b_alias = None;
        if let Some(reads) = rest_reads.globals.get(&name) {
            if let Some(module) = module_alias(fa, &b_module) {
                b_alias = module.split('.').next().map(str::to_string);
                // A names B as a module already: `b.name`, as its other uses of B.
                for range in reads {
                    let qualified = format!("{module}.{name}");
                    let realign = realigned(fa, range, &qualified);
                    self.change(a).splices.extend(realign);
                    self.change(a).splices.push((range.clone(), qualified));
                }
            } else {
                let target = Target::Name(b_module.clone(), name.clone());
                let alias = Alias { name: name.clone(), asname: None, target, dotted: None };
                match direct_from_import(fa, &b_module) {
                    Some(k) => self.change(a).add_alias(k, alias),
                    None => self.change(a).add_header(Some(&module_ref(fa, &index.files[b], &b_module)), alias, true),
                }
                self.new_edges.push((a, b));
            }
        }
        for &(i, j) in &needs.read_imports {
            let alias = &fa.imports[i].aliases[j];
            let bound = alias.binds(fa.imports[i].from.is_some());
            let kept = b_alias.as_ref() == Some(&bound)
                || rest_reads.globals.contains_key(&bound)
                || rest_doctests.contains(&bound);
            if !kept && !listed(fa, &bound) && !self.used_outside_a(&bound) {
                self.change(a).drop_alias(i, j);
            }
        }
        let change = self.change(a);
        change.cuts.push(unit.cut.clone());
        match &fa.exports {
            Exports::Listed(list) => {
                if let Some(k) = list.elts.iter().position(|(value, _)| *value == name) {
                    change.splices.push((element_removal(list, k), String::new()));
                }
            }
            Exports::Dynamic => return None,
            Exports::Implicit => {}
        }
        Some(())
    }

    /// Whether another file reaches A's `name` (imports it from A, reads `A.name`, names
    /// `"pkg.A.name"`, or star-imports A while A exports it).
    fn used_outside_a(&self, name: &str) -> bool {
        let a_module = self.a_module();
        let fa = &self.index.files[self.a];
        let qualified = format!("{a_module}.{name}");
        self.index.files.iter().enumerate().filter(|(f, _)| *f != self.a).any(|(_, file)| {
            file.chains.contains_key(&qualified)
                || file.strings.iter().any(|(value, _)| *value == qualified)
                || file.imports.iter().flat_map(|i| &i.aliases).any(|alias| match &alias.target {
                    Target::Name(m, n) => m == a_module && n == name,
                    Target::Star(m) => m == a_module && fa.exports(name),
                    _ => false,
                })
        })
    }
}

/// The splices keeping a call's continuation lines aligned with its opening parenthesis
/// when its function (`func`, a range of `file`) is rewritten to `new` (by width): each
/// continuation line moves by the change of width, if every one of them is aligned at or
/// past the parenthesis (none when the call hangs its arguments, holds a multi-line
/// string, or indents with tabs).
fn realigned(file: &File, func: &Range<usize>, new: &str) -> Vec<(Range<usize>, String)> {
    let text = &file.py.text;
    let Some(call) = file.call_of.get(&(func.start, func.end)) else { return Vec::new() };
    let delta = new.chars().count() as isize - text[func.clone()].chars().count() as isize;
    let Some(open) = text[func.end..call.end].find('(').map(|i| func.end + i) else { return Vec::new() };
    let body = &text[open..call.end];
    let multi_line_string = body.contains("\"\"\"") || body.contains("'''");
    if delta == 0 || !body.contains('\n') || text[func.end..open].contains('\n') || multi_line_string {
        return Vec::new();
    }
    let line_start = text[..open].rfind('\n').map_or(0, |i| i + 1);
    let column = text[line_start..open].chars().count() + 1;
    let mut out = Vec::new();
    let mut at = line_start + text[line_start..].find('\n').map_or(text.len(), |i| i + 1);
    while at < call.end {
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        let line = &text[at..end];
        let indent = line.len() - line.trim_start_matches(' ').len();
        if !line.trim().is_empty() {
            if indent < column || line.starts_with('\t') || (delta < 0 && indent < delta.unsigned_abs()) {
                return Vec::new();
            }
            out.push(match delta {
                d if d > 0 => (at..at, " ".repeat(d as usize)),
                d => (at..at + d.unsigned_abs(), String::new()),
            });
        }
        at = end + 1;
    }
    out
}

/// Whether `text` names `qualified` as a whole dotted name (not as part of a longer one).
fn mentions(text: &str, qualified: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(qualified).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + qualified.len()..].chars().next();
        !before.is_some_and(|c| ident(c) || c == '.') && !after.is_some_and(ident)
    })
}

/// Whether a unit reads `__module__` (a class's module, which the move changes: its
/// `repr`, pickles).
fn reads_module_name(unit: &ast::Stmt) -> bool {
    let mut statements = Vec::new();
    crate::python::walk::walk_stmts(std::slice::from_ref(unit), &mut statements);
    statements.iter().flat_map(|s| crate::python::walk::owned_exprs(s)).any(|e| match e {
        ast::Expr::Attribute(a) => a.attr.as_str() == "__module__",
        ast::Expr::Name(n) => n.id.as_str() == "__module__",
        _ => false,
    })
}

/// Whether a statement assigns `__all__`.
fn assigns_all(stmt: &ast::Stmt) -> bool {
    let target_is_all = |t: &ast::Expr| matches!(t, ast::Expr::Name(n) if n.id.as_str() == "__all__");
    match stmt {
        ast::Stmt::Assign(a) => a.targets.iter().any(target_is_all),
        ast::Stmt::AugAssign(a) => target_is_all(&a.target),
        ast::Stmt::AnnAssign(a) => target_is_all(&a.target),
        _ => false,
    }
}

/// Whether a file's `__all__` lists `name`.
fn listed(file: &File, name: &str) -> bool {
    matches!(&file.exports, Exports::Listed(list) if list.elts.iter().any(|(v, _)| v == name))
}

/// How `file` names `module` as a module object through its own module-level import
/// (`from pkg import mod`, `import mod as m`, `import pkg.mod`), if it does.
fn module_alias(file: &File, module: &str) -> Option<String> {
    file.imports.iter().filter(|i| i.direct && i.eager).flat_map(|i| i.aliases.iter().map(move |a| (i, a))).find_map(
        |(import, alias)| {
            let (reference, bound) = match &alias.dotted {
                Some(dotted) if dotted == module => (dotted.clone(), dotted.split('.').next()?.to_string()),
                None if alias.target == Target::Module(module.to_string()) => {
                    let bound = alias.binds(import.from.is_some());
                    (bound.clone(), bound)
                }
                _ => return None,
            };
            (!file.bound_other.contains(&bound)).then_some(reference)
        },
    )
}

/// A module-level `from <module> import …` (not `*`) of `file`, by import index.
fn direct_from_import(file: &File, module: &str) -> Option<usize> {
    file.imports.iter().position(|i| {
        i.direct && i.module.as_deref() == Some(module) && !i.aliases.iter().any(|a| a.name == "*")
    })
}

/// How `file` writes a `from … import` of `target` (a module of its package): as it
/// imports its package's modules (relative or absolute), else as `other` does, else
/// relative.
fn module_ref(file: &File, other: &File, target: &str) -> String {
    if file.package.is_empty() {
        return target.to_string();
    }
    let rest = target.strip_prefix(&format!("{}.", file.package));
    let absolute = absolute_style(file).or_else(|| absolute_style(other)).unwrap_or(false);
    match rest {
        Some(rest) if !absolute => format!(".{rest}"),
        _ => target.to_string(),
    }
}

/// Whether a file imports its own package's modules absolutely (`None`: it does not
/// import them).
fn absolute_style(file: &File) -> Option<bool> {
    let top = file.package.split('.').next().unwrap_or_default();
    file.imports.iter().filter_map(|i| i.from.as_deref()).find_map(|from| {
        if from.starts_with('.') {
            Some(false)
        } else {
            (from == top || from.starts_with(&format!("{top}."))).then_some(true)
        }
    })
}

fn is_main_guard(stmt: &ast::Stmt) -> bool {
    let ast::Stmt::If(s) = stmt else { return false };
    let ast::Expr::Compare(c) = s.test.as_ref() else { return false };
    let is_name = matches!(c.left.as_ref(), ast::Expr::Name(n) if n.id.as_str() == "__name__");
    let is_main = matches!(c.comparators.first(), Some(ast::Expr::Constant(k))
        if matches!(&k.value, ast::Constant::Str(v) if v == "__main__"));
    is_name && is_main && c.ops.len() == 1 && c.ops[0] == ast::CmpOp::Eq
}

/// The text to remove for element `k` of an `__all__` list (with its separator).
fn element_removal(list: &AllList, k: usize) -> Range<usize> {
    let elts = &list.elts;
    if k + 1 < elts.len() {
        elts[k].1.start..elts[k + 1].1.start
    } else if k > 0 {
        elts[k - 1].1.end..elts[k].1.end
    } else {
        elts[k].1.clone()
    }
}
