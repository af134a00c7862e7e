//! The parsed Python files of a tree as a move sees them: each file's dotted module name,
//! its import statements resolved against the tree's modules, its module-level bindings,
//! the dotted chains (`pkg.mod.name`, `alias.name`) its expressions reach through
//! imported modules, its dotted string constants (`mock.patch` targets) and its
//! `__all__`.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use rustpython_ast as ast;

use super::scope::{self, Reads};
use crate::python::walk::{child_blocks, is_docstring, owned_exprs, walk_stmts};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

/// Every `.py` file of a tree that parses, sorted by path.
pub(crate) struct Index {
    pub(crate) files: Vec<File>,
    /// The tree's stub files (`.pyi`) that parse, sorted by path.
    pub(crate) stubs: Vec<File>,
    /// Per file, the project modules its import-time imports load: (import, alias, file).
    /// Package `__init__` files are left out (every submodule's import runs them).
    pub(crate) edges: Vec<Vec<(usize, usize, usize)>>,
    by_path: HashMap<String, usize>,
    by_module: HashMap<String, usize>,
}

/// One parsed file and what a move needs of it.
pub(crate) struct File {
    pub(crate) py: PyModule,
    /// Dotted module name (`pkg.sub.mod`; a package's `__init__.py` is `pkg.sub`).
    pub(crate) module: String,
    /// The package relative imports resolve against (`pkg.sub`; empty at top level).
    pub(crate) package: String,
    /// Every import statement, nested ones included, in source order.
    pub(crate) imports: Vec<Import>,
    /// Module-level bindings by name.
    pub(crate) bindings: HashMap<String, Vec<Binding>>,
    /// What the module's code reads (module scope).
    pub(crate) reads: Reads,
    /// Names bound anywhere in the file other than by an import.
    pub(crate) bound_other: HashSet<String>,
    /// Full dotted name → the expressions reaching it through an imported module.
    pub(crate) chains: HashMap<String, Vec<Chain>>,
    /// String constants (docstrings left out), with their ranges.
    pub(crate) strings: Vec<(String, Range<usize>)>,
    /// Calls passing both a module-reaching expression and a string: (chains, strings).
    pub(crate) calls: Vec<(Vec<String>, Vec<String>)>,
    /// A called expression's range → the call's range.
    pub(crate) call_of: HashMap<(usize, usize), Range<usize>>,
    pub(crate) exports: Exports,
}

/// An `import` or `from … import` statement.
pub(crate) struct Import {
    pub(crate) span: Range<usize>,
    /// `from X import …`: `X` as written, leading dots included; `None` for `import …`.
    pub(crate) from: Option<String>,
    /// `from X import …`: `X` resolved to an absolute module name.
    pub(crate) module: Option<String>,
    pub(crate) aliases: Vec<Alias>,
    /// Each alias's range (`name as other`).
    pub(crate) ranges: Vec<Range<usize>>,
    /// Directly in the module's suite.
    pub(crate) direct: bool,
    /// Runs when the module is imported (not inside a function).
    pub(crate) eager: bool,
    /// The only statement of its block.
    pub(crate) sole: bool,
}

/// One imported name.
#[derive(Clone)]
pub(crate) struct Alias {
    pub(crate) name: String,
    pub(crate) asname: Option<String>,
    pub(crate) target: Target,
    /// `import a.b.c` without `as`: `a.b.c` (it binds `a`).
    pub(crate) dotted: Option<String>,
}

/// What an imported name is bound to.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum Target {
    /// A module object (`import a.b as x`, `from pkg import mod`, or `a` of `import a.b`).
    Module(String),
    /// A name of a module (`from mod import name`).
    Name(String, String),
    /// `from mod import *`.
    Star(String),
    /// A relative import reaching above the top package.
    Unknown,
}

/// How a module-level statement binds a name.
pub(crate) struct Binding {
    /// The statement's index in the module's suite.
    pub(crate) stmt: usize,
    /// The statement is simple (not inside an `if`, `try`, `with`, loop or `match`).
    pub(crate) direct: bool,
    pub(crate) kind: BindingKind,
}

pub(crate) enum BindingKind {
    Def,
    Import { import: usize, alias: usize },
    Other,
}

/// An expression (`alias`, `alias.name`, `pkg.mod.name`) reaching a dotted name through
/// an imported module.
pub(crate) struct Chain {
    /// The name the chain starts with.
    pub(crate) n0: String,
    pub(crate) range: Range<usize>,
    /// An attribute's object (`pkg.mod` of `pkg.mod.name`).
    pub(crate) value: Option<Range<usize>>,
}

/// A module's `__all__`.
pub(crate) enum Exports {
    /// None: a star import takes every public name.
    Implicit,
    /// One assignment of a literal list or tuple of strings.
    Listed(AllList),
    /// Anything else (computed, extended, assigned twice).
    Dynamic,
}

pub(crate) struct AllList {
    /// The list or tuple literal.
    pub(crate) span: Range<usize>,
    pub(crate) elts: Vec<(String, Range<usize>)>,
}

impl Index {
    /// The `.py` files of `tree` that parse.
    pub(crate) fn of(tree: &Snapshot) -> Index {
        let paths: HashSet<&str> = tree.keys().map(String::as_str).collect();
        let parse = |suffix: &str| {
            let mut parsed = Vec::new();
            for path in tree.keys().filter(|p| p.ends_with(suffix)) {
                let Some(py) = snapshot::text_of(tree, path).and_then(|text| PyModule::parse(path, text).ok())
                else {
                    continue;
                };
                let (module, package) = module_name(&paths, path);
                parsed.push((py, module, package));
            }
            parsed
        };
        let parsed = parse(".py");
        let mut by_module: HashMap<String, usize> = HashMap::new();
        let mut ambiguous = HashSet::new();
        for (i, (_, module, _)) in parsed.iter().enumerate() {
            if by_module.insert(module.clone(), i).is_some() {
                ambiguous.insert(module.clone());
            }
        }
        by_module.retain(|module, _| !ambiguous.contains(module));
        let is_module = |name: &str| by_module.contains_key(name);
        let files: Vec<File> =
            parsed.into_iter().map(|(py, module, package)| File::new(py, module, package, &is_module)).collect();
        let stubs: Vec<File> =
            parse(".pyi").into_iter().map(|(py, module, package)| File::new(py, module, package, &is_module)).collect();
        let by_path = files.iter().enumerate().map(|(i, f)| (f.py.path.clone(), i)).collect();
        let mut index = Index { files, stubs, edges: Vec::new(), by_path, by_module };
        index.edges = (0..index.files.len()).map(|i| index.import_edges(i)).collect();
        index
    }

    fn import_edges(&self, file: usize) -> Vec<(usize, usize, usize)> {
        let mut out = Vec::new();
        for (i, import) in self.files[file].imports.iter().enumerate().filter(|(_, i)| i.eager) {
            for (j, alias) in import.aliases.iter().enumerate() {
                if let Some(target) = self.loaded_module(alias) {
                    out.push((i, j, target));
                }
            }
        }
        out
    }

    /// The project module (not a package) an import alias loads.
    pub(crate) fn loaded_module(&self, alias: &Alias) -> Option<usize> {
        let module = match (&alias.target, &alias.dotted) {
            (_, Some(dotted)) => dotted,
            (Target::Module(m) | Target::Name(m, _) | Target::Star(m), None) => m,
            (Target::Unknown, None) => return None,
        };
        self.module(module).filter(|&f| !self.files[f].py.path.ends_with("__init__.py"))
    }

    pub(crate) fn file(&self, path: &str) -> Option<usize> {
        self.by_path.get(path).copied()
    }

    /// The stub file (`.pyi`) beside a module's file, if it parses.
    pub(crate) fn stub_of(&self, file: usize) -> Option<usize> {
        let path = format!("{}i", self.files[file].py.path);
        self.stubs.iter().position(|s| s.py.path == path)
    }

    /// The file of a dotted module name, if exactly one file has it.
    pub(crate) fn module(&self, dotted: &str) -> Option<usize> {
        self.by_module.get(dotted).copied()
    }
}

/// The dotted module name of `path` and the package its relative imports resolve
/// against: folders holding an `__init__.py` are packages.
fn module_name(paths: &HashSet<&str>, path: &str) -> (String, String) {
    let mut parts: Vec<&str> = path.split('/').collect();
    let stem = parts.pop().unwrap_or_default().trim_end_matches(".pyi").trim_end_matches(".py");
    let mut package: Vec<&str> = Vec::new();
    while let Some(dir) = parts.last() {
        let init = format!("{}/__init__.py", parts.join("/"));
        if !paths.contains(init.as_str()) {
            break;
        }
        package.insert(0, dir);
        parts.pop();
    }
    let package = package.join(".");
    if stem == "__init__" {
        return (package.clone(), package);
    }
    let module = if package.is_empty() { stem.to_string() } else { format!("{package}.{stem}") };
    (module, package)
}

/// The absolute module of `from <dots><module> import …` in `package`.
fn resolve(package: &str, level: usize, module: Option<&str>) -> Option<String> {
    if level == 0 {
        return module.map(str::to_string);
    }
    let mut parts: Vec<&str> = package.split('.').filter(|p| !p.is_empty()).collect();
    if level - 1 > parts.len() {
        return None;
    }
    parts.truncate(parts.len() - (level - 1));
    parts.extend(module.into_iter().flat_map(|m| m.split('.')));
    (!parts.is_empty()).then(|| parts.join("."))
}

impl File {
    fn new(py: PyModule, module: String, package: String, is_module: &dyn Fn(&str) -> bool) -> File {
        let mut imports = Vec::new();
        collect_imports(&py.suite, true, true, &package, is_module, &mut imports);
        let bindings = module_bindings(&py, &imports);
        let reads = scope::reads(&py.suite);
        let bound_other = scope::non_import_bindings(&py.suite);
        let mut file = File {
            py,
            module,
            package,
            imports,
            bindings,
            reads,
            bound_other,
            chains: HashMap::new(),
            strings: Vec::new(),
            calls: Vec::new(),
            call_of: HashMap::new(),
            exports: Exports::Implicit,
        };
        file.scan_expressions();
        file.exports = file.read_exports();
        file
    }

    /// The import aliases binding `name` anywhere in the file: (import, alias).
    pub(crate) fn import_bindings(&self, name: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (i, import) in self.imports.iter().enumerate() {
            for (j, alias) in import.aliases.iter().enumerate() {
                if alias.binds(import.from.is_some()) == name {
                    out.push((i, j));
                }
            }
        }
        out
    }

    /// The module objects `name` is bound to by imports.
    fn modules_of(&self, name: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .import_bindings(name)
            .into_iter()
            .filter_map(|(i, j)| match &self.imports[i].aliases[j].target {
                Target::Module(m) => Some(m.clone()),
                _ => None,
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }

    fn scan_expressions(&mut self) {
        let mut statements = Vec::new();
        walk_stmts(&self.py.suite, &mut statements);
        let mut chains: HashMap<String, Vec<Chain>> = HashMap::new();
        let mut strings = Vec::new();
        let mut calls = Vec::new();
        let mut call_of = HashMap::new();
        let mut modules: HashMap<String, Vec<String>> = HashMap::new();
        for stmt in statements {
            for expr in owned_exprs(stmt) {
                if let ast::Expr::Call(call) = expr {
                    let func = PyModule::span(call.func.as_ref());
                    call_of.insert((func.start, func.end), PyModule::span(expr));
                }
                if let Some((n0, rest)) = dotted(expr) {
                    let roots = modules.entry(n0.clone()).or_insert_with(|| self.modules_of(&n0));
                    for root in roots.iter() {
                        let full = std::iter::once(root.as_str()).chain(rest.iter().copied()).collect::<Vec<_>>();
                        let value = match expr {
                            ast::Expr::Attribute(a) => Some(PyModule::span(a.value.as_ref())),
                            _ => None,
                        };
                        chains.entry(full.join(".")).or_default().push(Chain {
                            n0: n0.clone(),
                            range: PyModule::span(expr),
                            value,
                        });
                    }
                }
                if let Some(value) = string_value(expr).filter(|v| v.len() < 1000 && !is_docstring(stmt)) {
                    strings.push((value.to_string(), PyModule::span(expr)));
                }
                if let ast::Expr::Call(call) = expr {
                    let args: Vec<&ast::Expr> = call.args.iter().chain(call.keywords.iter().map(|k| &k.value)).collect();
                    let reached: Vec<String> = args
                        .iter()
                        .filter_map(|a| dotted(a))
                        .flat_map(|(n0, rest)| {
                            let roots = modules.entry(n0.clone()).or_insert_with(|| self.modules_of(&n0)).clone();
                            roots.into_iter().map(move |root| {
                                std::iter::once(root.as_str()).chain(rest.iter().copied()).collect::<Vec<_>>().join(".")
                            })
                        })
                        .collect();
                    let texts: Vec<String> = args.iter().filter_map(|a| string_value(a)).map(str::to_string).collect();
                    if !reached.is_empty() && !texts.is_empty() {
                        calls.push((reached, texts));
                    }
                }
            }
        }
        self.chains = chains;
        self.strings = strings;
        self.calls = calls;
        self.call_of = call_of;
    }

    fn read_exports(&self) -> Exports {
        let Some(bindings) = self.bindings.get("__all__") else { return Exports::Implicit };
        let extended = self.reads.attributes.iter().any(|(name, _, _)| name == "__all__");
        if bindings.len() != 1 || !bindings[0].direct || extended {
            return Exports::Dynamic;
        }
        let ast::Stmt::Assign(assign) = &self.py.suite[bindings[0].stmt] else { return Exports::Dynamic };
        let elts = match assign.value.as_ref() {
            ast::Expr::List(l) if assign.targets.len() == 1 => &l.elts,
            ast::Expr::Tuple(t) if assign.targets.len() == 1 => &t.elts,
            _ => return Exports::Dynamic,
        };
        let mut listed = Vec::new();
        for elt in elts {
            match string_value(elt) {
                Some(value) if matches!(elt, ast::Expr::Constant(_)) => listed.push((value.to_string(), PyModule::span(elt))),
                _ => return Exports::Dynamic,
            }
        }
        Exports::Listed(AllList { span: PyModule::span(assign.value.as_ref()), elts: listed })
    }

    /// Whether a star import of this module takes `name`.
    pub(crate) fn exports(&self, name: &str) -> bool {
        match &self.exports {
            Exports::Implicit => !name.starts_with('_'),
            Exports::Listed(list) => list.elts.iter().any(|(n, _)| n == name),
            Exports::Dynamic => true,
        }
    }
}

impl Alias {
    /// The name the alias binds (`from` imports bind the name itself, plain imports the
    /// first component).
    pub(crate) fn binds(&self, from: bool) -> String {
        match (&self.asname, from) {
            (Some(asname), _) => asname.clone(),
            (None, true) => self.name.clone(),
            (None, false) => self.name.split('.').next().unwrap_or_default().to_string(),
        }
    }

    /// The alias as Python writes it (`name` or `name as other`).
    pub(crate) fn text(&self) -> String {
        match &self.asname {
            Some(asname) => format!("{} as {asname}", self.name),
            None => self.name.clone(),
        }
    }
}

fn collect_imports(
    block: &[ast::Stmt],
    direct: bool,
    eager: bool,
    package: &str,
    is_module: &dyn Fn(&str) -> bool,
    out: &mut Vec<Import>,
) {
    for stmt in block {
        let sole = block.len() == 1;
        match stmt {
            ast::Stmt::Import(i) => {
                let aliases = i
                    .names
                    .iter()
                    .map(|a| {
                        let plain = a.asname.is_none();
                        let module = if plain { a.name.split('.').next().unwrap_or_default() } else { a.name.as_str() };
                        Alias {
                            name: a.name.to_string(),
                            asname: a.asname.as_ref().map(|n| n.to_string()),
                            target: Target::Module(module.to_string()),
                            dotted: plain.then(|| a.name.to_string()),
                        }
                    })
                    .collect();
                let ranges = i.names.iter().map(PyModule::span).collect();
                out.push(Import {
                    span: PyModule::span(stmt),
                    from: None,
                    module: None,
                    aliases,
                    ranges,
                    direct,
                    eager,
                    sole,
                });
            }
            ast::Stmt::ImportFrom(i) => {
                let level = i.level.as_ref().map_or(0, |l| l.to_u32() as usize);
                let module = i.module.as_ref().map(|m| m.to_string());
                let resolved = resolve(package, level, module.as_deref());
                let aliases = i
                    .names
                    .iter()
                    .map(|a| {
                        let name = a.name.to_string();
                        let target = match &resolved {
                            None => Target::Unknown,
                            Some(m) if name == "*" => Target::Star(m.clone()),
                            Some(m) if is_module(&format!("{m}.{name}")) => Target::Module(format!("{m}.{name}")),
                            Some(m) => Target::Name(m.clone(), name.clone()),
                        };
                        Alias { name, asname: a.asname.as_ref().map(|n| n.to_string()), target, dotted: None }
                    })
                    .collect();
                let from = format!("{}{}", ".".repeat(level), module.unwrap_or_default());
                out.push(Import {
                    span: PyModule::span(stmt),
                    from: Some(from),
                    module: resolved,
                    aliases,
                    ranges: i.names.iter().map(PyModule::span).collect(),
                    direct,
                    eager,
                    sole,
                });
            }
            ast::Stmt::FunctionDef(d) => collect_imports(&d.body, false, false, package, is_module, out),
            ast::Stmt::AsyncFunctionDef(d) => collect_imports(&d.body, false, false, package, is_module, out),
            ast::Stmt::ClassDef(c) => collect_imports(&c.body, false, eager, package, is_module, out),
            other => {
                for body in child_blocks(other) {
                    collect_imports(body, false, eager, package, is_module, out);
                }
            }
        }
    }
}

fn module_bindings(py: &PyModule, imports: &[Import]) -> HashMap<String, Vec<Binding>> {
    let mut out: HashMap<String, Vec<Binding>> = HashMap::new();
    for (index, stmt) in py.suite.iter().enumerate() {
        let mut add = |name: String, direct: bool, kind: BindingKind| {
            out.entry(name).or_default().push(Binding { stmt: index, direct, kind });
        };
        match stmt {
            ast::Stmt::Import(_) | ast::Stmt::ImportFrom(_) => {
                let span = PyModule::span(stmt);
                let Some(i) = imports.iter().position(|imp| imp.span == span) else { continue };
                for (j, alias) in imports[i].aliases.iter().enumerate() {
                    if alias.name != "*" {
                        add(alias.binds(imports[i].from.is_some()), true, BindingKind::Import { import: i, alias: j });
                    }
                }
            }
            ast::Stmt::FunctionDef(d) => add(d.name.to_string(), true, BindingKind::Def),
            ast::Stmt::AsyncFunctionDef(d) => add(d.name.to_string(), true, BindingKind::Def),
            ast::Stmt::ClassDef(c) => add(c.name.to_string(), true, BindingKind::Def),
            other => {
                let direct = child_blocks(other).is_empty();
                let mut names: Vec<String> = scope::bound_in(std::slice::from_ref(other)).into_iter().collect();
                names.sort();
                for name in names {
                    add(name, direct, BindingKind::Other);
                }
            }
        }
    }
    out
}

/// A `Name` read or a chain of attributes on one (`a.b.c`): the first name and the rest.
fn dotted(expr: &ast::Expr) -> Option<(String, Vec<&str>)> {
    match expr {
        ast::Expr::Name(n) if n.ctx == ast::ExprContext::Load => Some((n.id.to_string(), Vec::new())),
        ast::Expr::Attribute(a) => {
            let (n0, mut rest) = dotted(&a.value)?;
            rest.push(a.attr.as_str());
            Some((n0, rest))
        }
        _ => None,
    }
}

fn string_value(expr: &ast::Expr) -> Option<&str> {
    match expr {
        ast::Expr::Constant(c) => match &c.value {
            ast::Constant::Str(s) => Some(s.as_str()),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a string could name a dotted path (`"pkg.mod.name"`, a `mock.patch` target).
pub(crate) fn is_dotted(value: &str) -> bool {
    value.contains('.')
        && value.split('.').all(|part| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn tree(files: &[(&str, &str)]) -> Snapshot {
        files.iter().map(|(p, t)| (p.to_string(), Arc::from(t.as_bytes()))).collect()
    }

    #[test]
    fn modules_are_named_by_their_packages() {
        let index = Index::of(&tree(&[
            ("src/pkg/__init__.py", ""),
            ("src/pkg/a.py", "from .b import f\nfrom . import b as bee\nfrom .. import x\n"),
            ("src/pkg/b.py", "def f():\n    pass\n"),
            ("top.py", "import pkg.a\nimport pkg.b as m\n\npkg.a.f()\nm.f()\n"),
        ]));
        let a = &index.files[index.module("pkg.a").unwrap()];
        assert_eq!(a.package, "pkg");
        assert_eq!(a.imports[0].aliases[0].target, Target::Name("pkg.b".into(), "f".into()));
        assert_eq!(a.imports[1].aliases[0].target, Target::Module("pkg.b".into()));
        assert_eq!(a.imports[2].aliases[0].target, Target::Unknown);
        assert_eq!(index.files[index.module("pkg").unwrap()].py.path, "src/pkg/__init__.py");
        let top = &index.files[index.file("top.py").unwrap()];
        assert_eq!(top.chains["pkg.a.f"].len(), 1);
        assert_eq!(top.chains["pkg.b.f"][0].n0, "m");
        assert_eq!(top.chains["pkg.a"].len(), 1);
    }

    #[test]
    fn exports_are_read_from_a_literal_all() {
        let index = Index::of(&tree(&[
            ("a.py", "__all__ = ['f', \"g\"]\n"),
            ("b.py", "__all__ = ['f']\n__all__ += ['g']\n"),
            ("c.py", "def _h():\n    pass\n"),
        ]));
        let exports = |p: &str| &index.files[index.file(p).unwrap()];
        assert!(exports("a.py").exports("g") && !exports("a.py").exports("h"));
        assert!(matches!(exports("b.py").exports, Exports::Dynamic));
        assert!(!exports("c.py").exports("_h") && exports("c.py").exports("h"));
    }
}
