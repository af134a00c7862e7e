//! add-function (feature): a module-level function, or a method of a module-level class,
//! with the tests that need it.
//!
//! A site is a *leaf* unit of HEAD: nothing in the sources outside it refers to it. For a
//! function: no name use elsewhere in its module, no import of it and no attribute read
//! of it through its module in another source module, except re-exports in an
//! `__init__.py` and `__all__` entries (applying takes those out too). For a method: its
//! attribute name is read nowhere else in the sources (nor named by a string, nor by a
//! bare name in its own module: a class body may alias it) and no other class defines
//! it. Skipped: dunders and `_sunder_` names, overloads, property
//! setters and deleters, names defined twice in their scope, methods of classes with a
//! base from outside the project or a metaclass (a framework may call them by name).
//!
//! The tests that need it: the test functions whose code (decorators included) names
//! it — a function by its name, the local name it is imported as, or an attribute that
//! may read it (not one read through an import of another module: `math.floor`); a
//! method by any attribute of its name (never by a bare name, which would be something
//! else) — and the tests the coverage map says ran it. A site is skipped when test
//! support code (fixtures, helpers, module-level statements, class headers) names it,
//! when the map lists a test that is not a test function of a test file, says the unit
//! ran outside any test or ran none of its tests (deselected), when no test needs it,
//! and when applying it to HEAD fails (a test file would be left without tests, a class
//! or module with nothing but a docstring).
//!
//! Applying a site to a tree takes out the unit's lines (decorators and attached
//! comments included, PEP 8 spacing kept), its tests (a test class left without tests
//! goes whole: its fixtures and helpers served only them), every `from` import of it and
//! its `__all__` entries, then what those edits left unused (`prune`). The side that
//! re-adds it carries HEAD's real code and tests.
//!
//! A feature site's `target` holds the one-line summary of the unit's docstring (at most
//! 60 characters), which the commit message carries.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::sync::Arc;

use rustpython_ast as ast;

use super::refs::{self, How, Use};
use super::kind::Kind;
use super::site::{Change, Site, Transform, Workspace};
use super::units::{
    decorators, def_name, defined_elsewhere, defined_names, exporters, find, imports_of, is_init, is_special, is_variant,
    reads_exporter, star_imports, summary, units, Bindings, Files,
};
use super::prune;
use super::strip;
use super::suite;
use crate::python::{walk, PyModule};
use crate::snapshot::{self, Snapshot};

/// The catalogue entry.
pub(crate) struct AddFunction;

/// Bases a class may have without making its methods a framework's hooks.
const PLAIN_BASES: &[&str] = &[
    "ABC",
    "abc.ABC",
    "Enum",
    "enum.Enum",
    "IntEnum",
    "enum.IntEnum",
    "Generic",
    "typing.Generic",
    "NamedTuple",
    "typing.NamedTuple",
    "Protocol",
    "typing.Protocol",
];

impl Transform for AddFunction {
    fn change(&self) -> Change {
        Change::Feature
    }

    fn description(&self) -> &'static str {
        "adds a function or a method with the tests that need it"
    }

    fn sites(&self, workspace: &Workspace) -> Vec<Site> {
        let tests = TestIndex::new(workspace.tree);
        let sources = Sources::new(workspace.modules);
        let mut out = Vec::new();
        for (index, module) in workspace.modules.iter().enumerate() {
            for (class, stmt) in units(module) {
                if let Some(site) = site(workspace, &sources, &tests, index, class, stmt) {
                    out.push(site);
                }
            }
        }
        out.sort_by(|a, b| (&a.path, a.lines.start).cmp(&(&b.path, b.lines.start)));
        out
    }

    fn apply(&self, _workspace: &Workspace, tree: &Snapshot, site: &Site) -> Option<Snapshot> {
        apply(tree, site)
    }

    fn message(&self, site: &Site) -> String {
        match &site.target {
            Some(summary) => format!("Add `{}`: {summary}", site.symbol),
            None => format!("Add `{}`", site.symbol),
        }
    }
}

/// The unit a site names: `name`, or `class.name`, in the file `path`; for a function,
/// the modules it can be imported from (see [`exporters`]).
struct Unit<'a> {
    path: &'a str,
    class: Option<&'a str>,
    name: &'a str,
    exporters: Vec<Vec<String>>,
}

impl<'a> Unit<'a> {
    /// The unit of a site, a function's exporters found among `inits`.
    fn of(site: &'a Site, inits: &[&PyModule]) -> Self {
        let (class, name) = match site.symbol.split_once('.') {
            Some((class, name)) => (Some(class), name),
            None => (None, site.symbol.as_str()),
        };
        let exporters = if class.is_none() { exporters(&site.path, name, inits) } else { Vec::new() };
        Unit { path: &site.path, class, name, exporters }
    }

    /// The local names a file gives a function: its own and those it is imported as.
    fn local_names(&self, module: &PyModule) -> BTreeSet<String> {
        let mut out = BTreeSet::from([self.name.to_string()]);
        for stmt in refs::statements(&module.suite) {
            if let ast::Stmt::ImportFrom(import) = stmt {
                for alias in import.names.iter().filter(|a| a.name.as_str() == self.name) {
                    out.extend(alias.asname.as_ref().map(|a| a.to_string()));
                }
            }
        }
        out
    }

    /// Whether code of a file (whose imports bind `bindings`) names the unit: a method
    /// by any attribute of its name, a function by a local name or by an attribute that
    /// may read it (through a module exporting it, or through something no import
    /// binds: `math.floor` does not name a project's `floor`).
    fn named_by(&self, uses: &[Use], locals: &BTreeSet<String>, bindings: &Bindings) -> bool {
        uses.iter().any(|u| match u.how {
            How::Attribute => {
                u.name == self.name
                    && (self.class.is_some() || {
                        let root = u.value.and_then(refs::dotted);
                        let root = root.as_deref().map(|d| d.split('.').next().unwrap_or(d));
                        !root.is_some_and(|r| bindings.contains_key(r)) || reads_exporter(u, bindings, &self.exporters)
                    })
            }
            How::Name | How::Store => self.class.is_none() && locals.contains(u.name),
            How::Parameter | How::Text => false,
        })
    }
}


/// What `sites` knows of the source modules (`branch` reads it too).
pub(super) struct Sources<'a> {
    modules: &'a [PyModule],
    bindings: Vec<Bindings>,
    uses: Vec<Vec<Use<'a>>>,
    /// Spans of `__all__` entries, per module.
    all_entries: Vec<Vec<std::ops::Range<usize>>>,
    /// Name → how many definitions in class bodies of the sources have it.
    class_members: BTreeMap<&'a str, usize>,
    /// Every source module's dotted path.
    project: Vec<Vec<String>>,
}

impl<'a> Sources<'a> {
    pub(super) fn new(modules: &'a [PyModule]) -> Self {
        let mut class_members: BTreeMap<&str, usize> = BTreeMap::new();
        for module in modules {
            for stmt in refs::statements(&module.suite) {
                if let ast::Stmt::ClassDef(class) = stmt {
                    for member in refs::module_scope(&class.body) {
                        for name in defined_names(member) {
                            *class_members.entry(name).or_default() += 1;
                        }
                    }
                }
            }
        }
        Sources {
            modules,
            bindings: modules.iter().map(|m| refs::import_bindings(&m.path, &m.suite)).collect(),
            uses: modules.iter().map(|m| refs::uses(&m.suite)).collect(),
            all_entries: modules
                .iter()
                .map(|m| strip::all_entries(m).into_iter().map(|(_, spans, i)| spans[i].clone()).collect())
                .collect(),
            class_members,
            project: modules.iter().map(|m| refs::module_parts(&m.path)).collect(),
        }
    }

    /// Whether a dotted path stands for a project module or a name in one.
    fn in_project(&self, target: &[String]) -> bool {
        let parent = &target[..target.len().saturating_sub(1)];
        self.project.iter().any(|p| refs::names_module(target, p) || refs::names_module(parent, p))
    }

    /// The sources' `__init__.py` modules.
    fn inits(&self) -> Vec<&PyModule> {
        self.modules.iter().filter(|m| is_init(&m.path)).collect()
    }

    /// Whether the function `name` of module `home` (spanning `span` there), imported
    /// from `exporters`, is a leaf.
    fn function_is_leaf(&self, home: usize, name: &str, span: &std::ops::Range<usize>, exporters: &[Vec<String>]) -> bool {
        for (index, module) in self.modules.iter().enumerate() {
            if index == home {
                let elsewhere = self.uses[index]
                    .iter()
                    .any(|u| u.name == name && matches!(u.how, How::Name | How::Store) && !span.contains(&u.offset));
                if elsewhere {
                    return false;
                }
                continue;
            }
            let imports = imports_of(module, name, exporters);
            let reexport = is_init(&module.path) && exporters.contains(&refs::module_parts(&module.path));
            if !imports.is_empty() && !reexport {
                return false;
            }
            let mut locals: BTreeSet<&str> = imports.iter().map(|(_, _, local)| local.as_str()).collect();
            if star_imports(module, exporters) {
                locals.insert(name);
            }
            let used = self.uses[index].iter().any(|u| match u.how {
                How::Name | How::Store => locals.contains(u.name),
                How::Attribute => u.name == name && reads_exporter(u, &self.bindings[index], exporters),
                How::Parameter | How::Text => false,
            });
            if used {
                return false;
            }
        }
        true
    }

    /// Whether the method `name` of module `home` (spanning `span` there) is a leaf.
    fn method_is_leaf(&self, home: usize, name: &str, span: &std::ops::Range<usize>) -> bool {
        if self.class_members.get(name) != Some(&1) {
            return false;
        }
        // In its own module a bare name may be the method too, used in its class body
        // (`min = property(_calc_min)`, `__setitem__ = _raise_frozen`).
        self.uses.iter().enumerate().all(|(index, uses)| {
            !uses.iter().any(|u| {
                let how = match u.how {
                    How::Attribute | How::Text => true,
                    How::Name | How::Store => index == home,
                    How::Parameter => false,
                };
                u.name == name
                    && how
                    && !(index == home && span.contains(&u.offset))
                    && !self.all_entries[index].iter().any(|e| e.contains(&u.offset))
            })
        })
    }

    /// Whether a class has a base from outside the project or a metaclass.
    fn framework_class(&self, home: usize, class: &ast::StmtClassDef) -> bool {
        if !class.keywords.is_empty() {
            return true;
        }
        class.bases.iter().any(|base| {
            let base = match base {
                ast::Expr::Subscript(s) => s.value.as_ref(),
                other => other,
            };
            let Some(dotted) = refs::dotted(base) else { return true };
            if PLAIN_BASES.contains(&dotted.as_str()) {
                return false;
            }
            let first = dotted.split('.').next().unwrap_or_default();
            match self.bindings[home].get(first) {
                None => false,
                Some(targets) => !targets.iter().any(|t| self.in_project(t)),
            }
        })
    }

    /// The project's module-level names a unit (its code `within` a byte range) refers
    /// to, and `.name` for each attribute it reads on `self` or `cls` (a method or an
    /// attribute of its own class, which a `rename-method` may rename).
    pub(super) fn uses_of(
        &self,
        home: usize,
        stmt: &ast::Stmt,
        function: Option<&str>,
        within: Option<&std::ops::Range<usize>>,
    ) -> BTreeSet<String> {
        let module = &self.modules[home];
        let bindings = &self.bindings[home];
        let mut names: BTreeMap<String, String> = BTreeMap::new();
        for s in refs::module_scope(&module.suite) {
            for name in defined_names(s) {
                names.insert(name.to_string(), name.to_string());
            }
        }
        for (local, targets) in bindings {
            // A name from a project module, not a project module itself.
            let is_module = |t: &Vec<String>| self.project.iter().any(|p| refs::names_module(t, p));
            let from_project =
                targets.iter().filter(|t| t.len() > 1 && self.in_project(t) && !is_module(t)).find_map(|t| t.last());
            if let Some(original) = from_project {
                names.insert(local.clone(), original.clone());
            }
        }
        let uses = refs::uses_of(stmt);
        let locals: BTreeSet<&str> =
            uses.iter().filter(|u| matches!(u.how, How::Store | How::Parameter)).map(|u| u.name).collect();
        let mut out = BTreeSet::new();
        for u in uses.iter().filter(|u| within.is_none_or(|w| w.contains(&u.offset))) {
            match u.how {
                How::Name if !locals.contains(u.name) && Some(u.name) != function => {
                    out.extend(names.get(u.name).cloned());
                }
                How::Attribute if u.on_own_instance() => {
                    out.insert(format!(".{}", u.name));
                }
                How::Attribute => {
                    let through_project = u
                        .value
                        .is_some_and(|v| refs::resolve(v, bindings).iter().any(|t| self.in_project(t)));
                    if through_project {
                        out.insert(u.name.to_string());
                    }
                }
                _ => {}
            }
        }
        out
    }
}

/// What `sites` knows of the test files.
struct TestIndex {
    files: Vec<PyModule>,
    /// Every test id (no parametrize suffix).
    ids: BTreeSet<String>,
    /// Names of methods the test files' classes define.
    methods: BTreeSet<String>,
}

impl TestIndex {
    fn new(tree: &Snapshot) -> Self {
        let files: Vec<PyModule> = tree
            .keys()
            .filter(|p| p.ends_with(".py") && snapshot::is_test_file(p))
            .filter_map(|p| PyModule::parse(p, snapshot::text_of(tree, p)?).ok())
            .collect();
        let ids = files.iter().flat_map(|m| suite::tests(m).into_iter().map(|t| t.id)).collect();
        let mut methods = BTreeSet::new();
        for module in &files {
            for stmt in refs::statements(&module.suite) {
                if let ast::Stmt::ClassDef(class) = stmt {
                    methods.extend(class.body.iter().filter_map(def_name).map(str::to_string));
                }
            }
        }
        TestIndex { files, ids, methods }
    }

    /// The tests naming the unit, or `None` when support code names it.
    fn naming(&self, unit: &Unit) -> Option<BTreeSet<String>> {
        let mut out = BTreeSet::new();
        for module in self.files.iter().filter(|m| refs::mentions(&m.text, unit.name)) {
            let locals = unit.local_names(module);
            let bindings = refs::import_bindings(&module.path, &module.suite);
            if suite::support(module).iter().any(|piece| unit.named_by(&piece.uses(), &locals, &bindings)) {
                return None;
            }
            for test in suite::tests(module) {
                if unit.named_by(&refs::uses_of(test.stmt), &locals, &bindings) {
                    out.insert(test.id);
                }
            }
        }
        Some(out)
    }
}

/// The site of one unit, if it is one.
fn site(
    workspace: &Workspace,
    sources: &Sources,
    tests: &TestIndex,
    home: usize,
    class: Option<&ast::StmtClassDef>,
    stmt: &ast::Stmt,
) -> Option<Site> {
    let module = &sources.modules[home];
    let name = def_name(stmt)?;
    if is_special(name) || is_variant(stmt) {
        return None;
    }
    let first = decorators(stmt).first().map_or(PyModule::span(stmt).start, |d| PyModule::span(d).start);
    let span = strip::line_start(&module.text, first)..PyModule::span(stmt).end;
    let exporters = if class.is_none() { exporters(&module.path, name, &sources.inits()) } else { Vec::new() };
    let leaf = match class {
        None => sources.function_is_leaf(home, name, &span, &exporters) && !defined_elsewhere(module, stmt, name),
        Some(class) => {
            !sources.framework_class(home, class)
                && !tests.methods.contains(name)
                && sources.method_is_leaf(home, name, &span)
        }
    };
    if !leaf {
        return None;
    }
    let symbol = match class {
        Some(class) => format!("{}.{name}", class.name),
        None => name.to_string(),
    };
    let unit = Unit { path: &module.path, class: class.map(|c| c.name.as_str()), name, exporters };
    let mut needing = tests.naming(&unit)?;
    let first_line = module.line_of(first);
    if let Some(map) = workspace.coverage {
        let key = crate::pytest::select::CoverageMap::function_key(&module.path, first_line, name);
        if map.outside_tests.contains(&key) {
            return None;
        }
        for (id, ran) in &map.tests {
            if ran.contains(&key) {
                let id = suite::without_params(id);
                if !tests.ids.contains(id) {
                    return None;
                }
                needing.insert(id.to_string());
            }
        }
        // Tests the run deselects or skips at collection need nothing.
        let ran: BTreeSet<&str> = map.tests.keys().map(|id| suite::without_params(id)).collect();
        if !needing.iter().any(|id| ran.contains(id.as_str())) {
            return None;
        }
    }
    if needing.is_empty() {
        return None;
    }
    let site = Site {
        kind: Kind::AddFunction,
        path: module.path.clone(),
        symbol,
        lines: first_line..module.line_of(PyModule::span(stmt).end) + 1,
        uses: sources.uses_of(home, stmt, class.is_none().then_some(name), None),
        target: summary(stmt),
        tests: needing.into_iter().collect(),
    };
    apply(workspace.tree, &site)?;
    Some(site)
}

/// `tree` without the site's unit and its tests (see the module header).
fn apply(tree: &Snapshot, site: &Site) -> Option<Snapshot> {
    let files = Files::new(tree);
    let inits: Vec<Rc<PyModule>> =
        tree.keys().filter(|p| is_init(p) && !snapshot::is_test_file(p)).filter_map(|p| files.get(p)).collect();
    let unit = Unit::of(site, &inits.iter().map(Rc::as_ref).collect::<Vec<_>>());
    let home = files.get(unit.path)?;
    find(&home, unit.class, unit.name)?;
    let mentioning = files.mentioning(unit.name);
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    texts.insert(unit.path.to_string(), suite::without_member(&home, unit.class, unit.name)?);

    let mut ids: BTreeSet<String> = site.tests.iter().cloned().collect();
    for path in mentioning.iter().filter(|p| snapshot::is_test_file(p)) {
        let Some(module) = files.get(path) else { continue };
        let locals = unit.local_names(&module);
        let bindings = refs::import_bindings(path, &module.suite);
        let named = suite::tests(&module).into_iter().filter(|t| unit.named_by(&refs::uses_of(t.stmt), &locals, &bindings));
        ids.extend(named.map(|t| t.id));
    }
    let test_paths: BTreeSet<&str> = ids.iter().filter_map(|id| id.split_once("::").map(|(p, _)| p)).collect();
    for path in test_paths {
        // A listed test another change already took out with its file is gone.
        let Some(text) = texts.get(path).map(String::as_str).or_else(|| files.text(path)) else { continue };
        let edited = suite::without_tests(path, text, &ids)?;
        if edited != text {
            texts.insert(path.to_string(), edited);
        }
    }

    let mut dropped_locals: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let exporters = &unit.exporters;
    if unit.class.is_none() {
        // A file that does not parse (test data) imports nothing.
        for path in mentioning.iter().filter(|p| files.get(p).is_some()) {
            let original = texts.get(path).cloned().or_else(|| files.text(path).map(str::to_string))?;
            let mut text = original.clone();
            loop {
                let module = PyModule::parse(path, &text).ok()?;
                let Some((stmt, alias, local)) = imports_of(&module, unit.name, exporters).into_iter().next() else {
                    break;
                };
                dropped_locals.entry(path.clone()).or_default().insert(local);
                let sites = module.statements();
                text = strip::without_import_name(&module, sites[stmt].block, sites[stmt].index, alias)?;
            }
            if path == unit.path || exporters.contains(&refs::module_parts(path)) {
                while let Some(edited) = strip::without_all_entry(&PyModule::parse(path, &text).ok()?, unit.name) {
                    text = edited;
                }
            }
            if text != original {
                texts.insert(path.clone(), text);
            }
        }
    }

    let mut out = tree.clone();
    for (path, text) in &texts {
        let before = files.text(path)?;
        let text = prune::prune(path, before, text.clone(), snapshot::is_test_file(path), &|name| files.used_from(path, name))?;
        let module = PyModule::parse(path, &text).ok()?;
        if path == unit.path && module.suite.iter().all(walk::is_docstring) {
            return None;
        }
        if still_named(&module, &unit, dropped_locals.get(path)) {
            return None;
        }
        out.insert(path.clone(), Arc::from(text.as_bytes()));
    }
    for path in mentioning.iter().filter(|p| !texts.contains_key(*p)) {
        let Some(module) = files.get(path) else { continue };
        if still_named(&module, &unit, None) {
            return None;
        }
    }
    Some(out)
}

/// Whether a module of the result still refers to the unit: a function by its name in
/// its own module, by a local name whose import was dropped, or as an attribute of a
/// module exporting it; a method as any attribute (or, in a source, any string; in its
/// own module, any bare name).
fn still_named(module: &PyModule, unit: &Unit, dropped: Option<&BTreeSet<String>>) -> bool {
    let uses = refs::uses(&module.suite);
    match unit.class {
        Some(_) => {
            let source = !snapshot::is_test_file(&module.path);
            let home = module.path == unit.path;
            uses.iter().any(|u| {
                u.name == unit.name
                    && match u.how {
                        How::Attribute => true,
                        How::Text => source,
                        How::Name | How::Store => home,
                        How::Parameter => false,
                    }
            })
        }
        None => {
            let home = module.path == unit.path;
            let bindings = refs::import_bindings(&module.path, &module.suite);
            uses.iter().any(|u| match u.how {
                How::Name | How::Store => {
                    (home && u.name == unit.name) || dropped.is_some_and(|d| d.contains(u.name))
                }
                How::Attribute => u.name == unit.name && reads_exporter(u, &bindings, &unit.exporters),
                How::Parameter | How::Text => false,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_names_the_unit() {
        assert_eq!(
            AddFunction.message(&Site {
                kind: Kind::AddFunction,
                path: "m.py".into(),
                symbol: "Circle.area".into(),
                lines: 1..3,
                uses: BTreeSet::new(),
                target: None,
                tests: vec![],
            }),
            "Add `Circle.area`"
        );
    }
}
