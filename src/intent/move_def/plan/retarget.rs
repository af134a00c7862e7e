//! The second half of a move's plan: B's edit (the unit appended, its imports, its
//! `__all__` entry), every other file's uses retargeted to the new module (imports,
//! dotted chains, `mock.patch` strings), the stub moved along, and the import-cycle
//! check.

use super::*;

/// Module names of a package's command line or entry point.
const ENTRY_MODULES: &[&str] = &["cli", "main", "console", "commands", "command", "entry", "entrypoint", "manage"];

impl Move<'_> {
    /// B gets the unit at its end, the imports it needs, and its `__all__` entry.
    pub(super) fn edit_b(&mut self, unit: &Unit, needs: &Needs, reads: &Reads) -> Option<()> {
        let index = self.index;
        let (fa, fb) = (&index.files[self.a], &index.files[self.b]);
        let (a, b) = (self.a, self.b);
        let a_module = self.a_module().to_string();
        let name = self.name.clone();
        let own_import = |bindings: &[super::super::index::Binding], target: &Target| {
            bindings.iter().all(|binding| match binding.kind {
                BindingKind::Import { import, alias } => fb.imports[import].aliases[alias].target == *target,
                _ => false,
            })
        };
        if let Some(bindings) = fb.bindings.get(&name) {
            let from_a = Target::Name(a_module.clone(), name.clone());
            let plain = bindings.iter().all(|binding| match binding.kind {
                BindingKind::Import { import, alias } => fb.imports[import].aliases[alias].asname.is_none(),
                _ => false,
            });
            if !own_import(bindings, &from_a) || !plain {
                return None;
            }
        }
        if fb.reads.eager.contains(&name) {
            return None;
        }
        // Module-level names B has after the move (for the unit's doctests).
        let mut available: BTreeSet<String> = fb.bindings.keys().cloned().collect();
        available.insert(name.clone());
        for &(i, j) in &needs.imports {
            let import = &fa.imports[i];
            let alias = import.aliases[j].clone();
            available.insert(alias.binds(import.from.is_some()));
            if let Some(bindings) = fb.bindings.get(&alias.binds(import.from.is_some())) {
                if own_import(bindings, &alias.target) {
                    continue;
                }
                return None;
            }
            let project = is_project(index, import);
            if let Some(module) = index.loaded_module(&alias) {
                self.new_edges.push((b, module));
            }
            match (&import.from, import.module.as_deref().and_then(|m| direct_from_import(fb, m))) {
                (Some(_), Some(k)) => self.change(b).add_alias(k, alias),
                (from, _) => self.change(b).add_header(from.as_deref(), alias, project),
            }
        }
        let a_alias = module_alias(fb, &a_module);
        let mut rewrites = needs.rewrites.clone();
        for needed in &needs.from_a {
            let target = Target::Name(a_module.clone(), needed.clone());
            if let Some(bindings) = fb.bindings.get(needed) {
                if own_import(bindings, &target) {
                    continue;
                }
                return None;
            }
            if let Some(module) = &a_alias {
                // B names A as a module already: `a.name` in the unit, as in B's own code.
                self.b_reads_a_as = Some(module.clone());
                for range in reads.globals.get(needed).into_iter().flatten() {
                    let qualified = format!("{module}.{needed}");
                    rewrites.extend(realigned(fa, range, &qualified));
                    rewrites.push((range.clone(), qualified));
                }
                continue;
            }
            available.insert(needed.clone());
            let alias = Alias { name: needed.clone(), asname: None, target, dotted: None };
            match direct_from_import(fb, &a_module) {
                Some(k) => self.change(b).add_alias(k, alias),
                None => self.change(b).add_header(Some(&module_ref(fb, fa, &a_module)), alias, true),
            }
            self.new_edges.push((b, a));
        }
        let doctests = scope::doctest_reads(std::iter::once(&fa.py.suite[self.stmt]));
        if doctests.iter().any(|n| !available.contains(n) && !scope::is_builtin(n)) {
            return None;
        }
        let mut text = splice(
            &fa.py.text[unit.cut.clone()],
            rewrites.iter().map(|(r, t)| (r.start - unit.cut.start..r.end - unit.cut.start, t.clone())).collect(),
        )?;
        if !text.ends_with('\n') {
            text.push('\n');
        }
        let append = appended(fb, &text, "\n\n");
        let exported = self.exported_by_b() && fa.exports(&name);
        let change = self.change(b);
        change.splices.push(append);
        match &fb.exports {
            Exports::Listed(list) if exported => change.splices.push(element_insertion(&fb.py.text, list, &name)),
            Exports::Dynamic if exported => return None,
            _ => {}
        }
        Some(())
    }

    /// Every other file's uses of `A.name` now reach B.
    pub(super) fn retarget_uses(&mut self) -> Option<()> {
        let index = self.index;
        let (a_module, b_module) = (self.a_module().to_string(), self.b_module().to_string());
        let name = self.name.clone();
        let qualified = format!("{a_module}.{name}");
        let fa = &index.files[self.a];
        for (f, file) in index.files.iter().enumerate() {
            for (i, import) in file.imports.iter().enumerate() {
                for (j, alias) in import.aliases.iter().enumerate() {
                    match &alias.target {
                        Target::Name(m, n) if *m == a_module && *n == name => {
                            if f == self.a || (f == self.b && alias.asname.as_ref().is_some_and(|s| *s != name)) {
                                return None;
                            }
                            self.change(f).drop_alias(i, j);
                            if f != self.b {
                                self.reimport(f, i, alias)?;
                            }
                        }
                        Target::Star(m) if *m == a_module && fa.exports(&name) => {
                            let star_b = Target::Star(b_module.clone());
                            let stars_b = file.imports.iter().flat_map(|i| &i.aliases).any(|a| a.target == star_b);
                            if !stars_b || !self.exported_by_b() {
                                return None;
                            }
                        }
                        _ => {}
                    }
                }
            }
            self.retarget_chains(f, &qualified)?;
            for (value, range) in &file.strings {
                let target = is_dotted(value) && (*value == qualified || value.starts_with(&format!("{qualified}.")));
                if target {
                    if self.a_keeps_name {
                        // Patching A's name stubs it for A's code, B's for the rest: no
                        // one target does what the old one did.
                        return None;
                    }
                    let source = &file.py.text[range.clone()];
                    let found: Vec<usize> = source.match_indices(&qualified).map(|(k, _)| k).collect();
                    let [at] = found[..] else { return None };
                    let at = range.start + at;
                    self.change(f).splices.push((at..at + qualified.len(), format!("{b_module}.{name}")));
                } else if mentions(value, &qualified) {
                    // A text naming the unit's old place (an expected `repr`, a message).
                    return None;
                }
            }
            let reflective = file.calls.iter().any(|(reached, texts)| {
                reached.contains(&a_module) && texts.contains(&name)
            });
            if reflective {
                return None;
            }
        }
        Some(())
    }

    /// `from A import name` in file `f` (import `i`) becomes an import from B: merged into
    /// the file's `from B import …` beside it, else a new line after it.
    pub(super) fn reimport(&mut self, f: usize, i: usize, alias: &Alias) -> Option<()> {
        let file = &self.index.files[f];
        let import = &file.imports[i];
        let b_module = self.b_module().to_string();
        let moved = Alias { target: Target::Name(b_module.clone(), self.name.clone()), ..alias.clone() };
        match import.direct.then(|| direct_from_import(file, &b_module)).flatten() {
            Some(k) => self.change(f).add_alias(k, moved),
            None => {
                let a_last = self.a_module().rsplit('.').next()?;
                let b_last = b_module.rsplit('.').next()?;
                let from = import.from.as_deref()?;
                let prefix = from.strip_suffix(a_last).filter(|p| p.is_empty() || p.ends_with('.'))?;
                self.change(f).add_after(i, format!("from {prefix}{b_last} import {}", moved.text()));
            }
        }
        if import.eager {
            self.new_edges.push((f, self.b));
        }
        Some(())
    }

    /// `A.name` reached through a module import in file `f` becomes `B.name` (`name` in
    /// B itself); A's module import goes when nothing else uses it.
    pub(super) fn retarget_chains(&mut self, f: usize, qualified: &str) -> Option<()> {
        let index = self.index;
        let file = &index.files[f];
        let Some(chains) = file.chains.get(qualified) else { return Some(()) };
        let mut rewritten: HashMap<&str, usize> = HashMap::new();
        let mut reference: Option<String> = None;
        for chain in chains {
            let value = chain.value.as_ref()?;
            let unique = file.import_bindings(&chain.n0).iter().all(|&(i, j)| {
                matches!(&file.imports[i].aliases[j].target, Target::Module(_))
            });
            if f == self.a || file.bound_other.contains(&chain.n0) || !unique {
                return None;
            }
            if f == self.b {
                if file.bound_other.contains(&self.name) {
                    return None;
                }
                let name = self.name.clone();
                let realign = realigned(file, &chain.range, &name);
                self.change(f).splices.extend(realign);
                self.change(f).splices.push((chain.range.clone(), name));
            } else {
                if reference.is_none() {
                    reference = Some(self.b_reference(f, &chain.n0)?);
                }
                let text = reference.clone()?;
                let width = text.chars().count() + file.py.text[value.end..chain.range.end].chars().count();
                let realign = realigned(file, &chain.range, &" ".repeat(width));
                self.change(f).splices.extend(realign);
                self.change(f).splices.push((value.clone(), text));
            }
            *rewritten.entry(chain.n0.as_str()).or_default() += 1;
        }
        let a_module = self.a_module().to_string();
        for (n0, count) in rewritten {
            let total = file.chains.get(&a_module).map_or(0, |c| c.iter().filter(|c| c.n0 == n0).count());
            let still_read = f == self.b && self.b_reads_a_as.as_deref() == Some(n0);
            if total != count || still_read || file.py.path.ends_with("__init__.py") || listed(file, n0) {
                continue;
            }
            for (i, j) in file.import_bindings(n0) {
                let alias = &file.imports[i].aliases[j];
                let binds_a = match &alias.dotted {
                    Some(dotted) => *dotted == a_module,
                    None => alias.target == Target::Module(a_module.clone()),
                };
                if binds_a {
                    self.change(f).drop_alias(i, j);
                }
            }
        }
        Some(())
    }

    /// How file `f` names module B: its own import of B, else a new import written like
    /// its import of A (`from pkg import A` → `from pkg import B`, `import pkg.A` →
    /// `import pkg.B`, `import pkg.A as x` → `from pkg import B`).
    pub(super) fn b_reference(&mut self, f: usize, n0: &str) -> Option<String> {
        let file = &self.index.files[f];
        let (a_module, b_module) = (self.a_module().to_string(), self.b_module().to_string());
        for import in file.imports.iter().filter(|i| i.direct) {
            for alias in &import.aliases {
                if alias.dotted.as_deref() == Some(&b_module) {
                    return Some(b_module);
                }
                if alias.dotted.is_none() && alias.target == Target::Module(b_module.clone()) {
                    let bound = alias.binds(import.from.is_some());
                    return (!file.bound_other.contains(&bound)).then_some(bound);
                }
            }
        }
        let (i, j) = file.import_bindings(n0).into_iter().find(|&(i, j)| {
            let alias = &file.imports[i].aliases[j];
            match &alias.dotted {
                Some(dotted) => *dotted == a_module,
                None => alias.target == Target::Module(a_module.clone()),
            }
        })?;
        let import = &file.imports[i];
        if !import.direct {
            return None;
        }
        let b_last = b_module.rsplit('.').next()?.to_string();
        let free = |bound: &str| {
            !file.bound_other.contains(bound)
                && file.import_bindings(bound).iter().all(|&(k, l)| {
                    file.imports[k].aliases[l].target == Target::Module(bound.to_string())
                        || file.imports[k].aliases[l].target == Target::Module(b_module.clone())
                })
        };
        let reference = match (&import.aliases[j].dotted, &import.from) {
            (Some(_), _) => {
                let first = b_module.split('.').next()?;
                if first != n0 && !free(first) {
                    return None;
                }
                self.change(f).add_after(i, format!("import {b_module}"));
                b_module.clone()
            }
            (None, Some(_)) => {
                if !free(&b_last) {
                    return None;
                }
                let alias = Alias { name: b_last.clone(), asname: None, target: Target::Module(b_module.clone()), dotted: None };
                self.change(f).add_alias(i, alias);
                b_last
            }
            (None, None) => {
                if !free(&b_last) {
                    return None;
                }
                let line = match b_module.rsplit_once('.') {
                    Some((package, _)) => format!("from {package} import {b_last}"),
                    None => format!("import {b_last}"),
                };
                self.change(f).add_after(i, line);
                b_last
            }
        };
        if import.eager {
            self.new_edges.push((f, self.b));
        }
        Some(reference)
    }

    /// The unit's declarations in A's stub (`a.pyi`: the `def`, its overloads, or the
    /// class) move to the end of B's stub with the imports they need; refused when B has
    /// no stub, needs a name its stub binds otherwise, or another stub imports the name
    /// from A.
    pub(super) fn move_stub(&mut self) -> Option<()> {
        let index = self.index;
        let Some(sa) = index.stub_of(self.a) else { return Some(()) };
        let stub_a = &index.stubs[sa];
        let name = self.name.clone();
        let units: Vec<usize> = (0..stub_a.py.suite.len())
            .filter(|&i| def_name(&stub_a.py.suite[i]).as_deref() == Some(name.as_str()))
            .collect();
        if units.is_empty() {
            return Some(());
        }
        let sb = index.stub_of(self.b)?;
        let stub_b = &index.stubs[sb];
        let a_module = self.a_module();
        let imported_elsewhere = index.stubs.iter().flat_map(|s| &s.imports).flat_map(|i| &i.aliases).any(|alias| {
            matches!(&alias.target, Target::Name(m, n) if m == a_module && *n == name)
        });
        if imported_elsewhere || stub_b.bindings.contains_key(&name) || stub_a.bindings[&name].len() != units.len() {
            return None;
        }
        let reads = scope::reads(units.iter().map(|&i| &stub_a.py.suite[i]));
        let rest = (0..stub_a.py.suite.len()).filter(|i| !units.contains(i)).map(|i| &stub_a.py.suite[i]);
        let rest_reads = scope::reads(rest);
        let mut change_a = FileChange::default();
        let mut change_b = FileChange::default();
        for read in reads.globals.keys().filter(|n| **n != name) {
            let Some(bindings) = stub_a.bindings.get(read) else {
                if scope::is_builtin(read) && !stub_b.bindings.contains_key(read) {
                    continue;
                }
                return None;
            };
            if bindings.iter().any(|b| !b.direct) {
                return None;
            }
            match stub_b.bindings.get(read) {
                Some(theirs) => {
                    if binding_texts(stub_a, bindings) != binding_texts(stub_b, theirs) {
                        return None;
                    }
                }
                None => {
                    for binding in bindings {
                        let BindingKind::Import { import, alias } = binding.kind else { return None };
                        let from = &stub_a.imports[import];
                        let copied = from.aliases[alias].clone();
                        match (&from.from, from.module.as_deref().and_then(|m| direct_from_import(stub_b, m))) {
                            (Some(_), Some(k)) => change_b.add_alias(k, copied),
                            (module, _) => change_b.add_header(module.as_deref(), copied, is_project(index, from)),
                        }
                    }
                }
            }
            if !rest_reads.globals.contains_key(read) {
                for binding in bindings {
                    if let BindingKind::Import { import, alias } = binding.kind {
                        change_a.drop_alias(import, alias);
                    }
                }
            }
        }
        let mut text = String::new();
        for &i in &units {
            let unit = unit(stub_a, i)?;
            text.push_str(&stub_a.py.text[unit.cut.clone()]);
            if !text.ends_with('\n') {
                text.push('\n');
            }
            change_a.cuts.push(unit.cut);
        }
        change_b.splices.push(appended(stub_b, &text, &stub_gap(stub_b)));
        self.stub_changes.insert(sa, change_a);
        self.stub_changes.insert(sb, change_b);
        Some(())
    }

    /// Whether the move makes a source module import B when B is the top of its package:
    /// a command line or entry point (a `main` function, an `if __name__ == "__main__":`
    /// block, or a module named like one: `cli`, `main`, `commands`, ...) that no other
    /// source module imports. Code below it would come to depend on it.
    pub(super) fn climbs(&self) -> bool {
        let index = self.index;
        let fb = &index.files[self.b];
        let source = |f: usize| !crate::snapshot::is_test_file(&index.files[f].py.path);
        let imports_b = |f: usize| index.edges[f].iter().any(|(_, _, t)| *t == self.b);
        let stem = fb.module.rsplit('.').next().unwrap_or_default();
        let entry = ENTRY_MODULES.contains(&stem)
            || fb.py.suite.iter().any(|s| is_main_guard(s) || def_name(s).as_deref() == Some("main"));
        let imported = (0..index.files.len()).any(|f| f != self.b && source(f) && imports_b(f));
        entry && !imported && self.new_edges.iter().any(|&(from, to)| to == self.b && from != self.b && source(from))
    }

    /// Whether an import-time import the move adds closes a cycle.
    pub(super) fn cyclic(&self) -> bool {
        let index = self.index;
        let targets = |f: usize| -> Vec<usize> {
            let kept = index.edges[f]
                .iter()
                .filter(|(i, j, _)| !self.changes.get(&f).is_some_and(|c| c.dropped(*i, *j)))
                .map(|(_, _, t)| *t);
            kept.chain(self.new_edges.iter().filter(|(from, _)| *from == f).map(|(_, to)| *to)).collect()
        };
        self.new_edges.iter().any(|&(from, to)| {
            let mut seen = BTreeSet::from([to]);
            let mut pending = vec![to];
            while let Some(f) = pending.pop() {
                if f == from {
                    return true;
                }
                for t in targets(f) {
                    if seen.insert(t) {
                        pending.push(t);
                    }
                }
            }
            false
        })
    }
}

/// What a name's module-level bindings are, comparable across files: each import's
/// target, or each binding statement's text.
fn binding_texts(file: &File, bindings: &[super::super::index::Binding]) -> BTreeSet<String> {
    bindings
        .iter()
        .map(|b| match b.kind {
            BindingKind::Import { import, alias } => format!("{:?}", file.imports[import].aliases[alias].target),
            _ => file.py.source(&file.py.suite[b.stmt]).to_string(),
        })
        .collect()
}

/// The blank lines a stub puts between its last two top-level statements (stubs often
/// put none between functions).
fn stub_gap(stub: &File) -> String {
    let suite = &stub.py.suite;
    let [.., previous, last] = &suite[..] else { return String::new() };
    let between = &stub.py.text[PyModule::span(previous).end..statement_start(&stub.py, last)];
    let lines = between.matches('\n').count().saturating_sub(1).min(2);
    "\n".repeat(lines)
}

/// The insertion of the unit's text at the end of B: after its last statement (and the
/// indented comments after it), before a closing `if __name__ == "__main__":`, `gap`
/// (blank lines) before it.
fn appended(fb: &File, unit: &str, gap: &str) -> (Range<usize>, String) {
    let text = &fb.py.text;
    let suite = &fb.py.suite;
    let anchor = match suite.len() {
        0 => None,
        n if n > 1 && is_main_guard(&suite[n - 1]) => Some(&suite[n - 2]),
        n => Some(&suite[n - 1]),
    };
    let Some(anchor) = anchor else {
        let at = text.len();
        let gap = if text.trim().is_empty() { "" } else { "\n\n" };
        let newline = if text.is_empty() || text.ends_with('\n') { "" } else { "\n" };
        return (at..at, format!("{newline}{gap}{unit}"));
    };
    let end = PyModule::span(anchor).end;
    let mut at = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    while at < text.len() {
        let next = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
        let line = &text[at..next];
        if !(line.starts_with([' ', '\t']) && line.trim_start().starts_with('#')) {
            break;
        }
        at = next;
    }
    let newline = if text[..at].ends_with('\n') { "" } else { "\n" };
    (at..at, format!("{newline}{gap}{unit}"))
}

/// The insertion of `name` into an `__all__` list: where its order puts it (else last),
/// with the list's quotes and separator.
fn element_insertion(text: &str, list: &AllList, name: &str) -> (Range<usize>, String) {
    let elts = &list.elts;
    let Some((_, first)) = elts.first() else {
        let at = list.span.start + 1;
        return (at..at, format!("'{name}'"));
    };
    let quote = text[first.clone()].chars().next().filter(|c| *c == '"' || *c == '\'').unwrap_or('\'');
    let literal = format!("{quote}{name}{quote}");
    let separator = match elts.get(1) {
        Some((_, second)) => text[first.end..second.start].to_string(),
        None => {
            let before = &text[list.span.start + 1..first.start];
            match before.rfind('\n') {
                Some(i) => format!(",\n{}", &before[i + 1..]),
                None => ", ".to_string(),
            }
        }
    };
    let names: Vec<&str> = elts.iter().map(|(v, _)| v.as_str()).collect();
    let (at, insertion) = match sorted_position(&names, name) {
        Some(k) if k < elts.len() => (elts[k].1.start, format!("{literal}{separator}")),
        _ => (elts[elts.len() - 1].1.end, format!("{separator}{literal}")),
    };
    // A line the entry would push past its width (at least 79) breaks before the entry,
    // aligned with the line's first entry.
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let width = text[line_start..line_end].chars().count();
    if !insertion.contains('\n') && width + insertion.chars().count() > width.max(79) {
        let first_on_line = elts.iter().find(|(_, r)| r.start >= line_start).map_or(first.start, |(_, r)| r.start);
        let column = " ".repeat(text[line_start..first_on_line].chars().count());
        let insertion = match insertion.strip_suffix(separator.as_str()) {
            Some(entry) if separator.trim() == "," => format!("{entry},\n{column}"),
            _ => format!(",\n{column}{literal}"),
        };
        return (at..at, insertion);
    }
    (at..at, insertion)
}
