//! `param-with-uses` (feature): an optional parameter of a function or method (one with
//! a constant default: `strict=False`, `encoding=None`) with the code that reads it and
//! the tests that pass it. A developer adds an option: the signature grows a parameter,
//! a few tests pin what it does, and the function does what it did when a call leaves
//! it out.
//!
//! A site is a parameter of a function or method that signature kinds may change
//! ([`Def`]) with a constant default, read only in the conditions of `if`/`elif`
//! clauses and conditional expressions of the function's own body (no nested scope),
//! in one of these forms, alone or as an operand of `and`/`or`: `p`, `not p`,
//! `p is None`, `p is not None`, `p == constant`, `p != constant`. Taking the feature
//! out specialises the function to the default: each condition is decided, or loses the
//! operand; a clause decided false goes with its lines; a clause decided true becomes
//! the chain's last (`else`), or, first, the chain itself (its body dedented in place);
//! when every clause left then leaves the block (`raise`, `continue`) and one always
//! runs, the statements after the chain go too (they are dead without the option).
//! The parameter leaves the signature and the docstring's entry for it goes.
//! Its tests are the test functions holding a call that passes it (by keyword or by
//! position): they go too, and what the edits left unused is pruned.
//!
//! No site when a source file's call passes it (another unit relies on the option), a
//! call spreads `*args` over its position or passes `**kwargs`, a docstring's example
//! passes it or its prose quotes it (`` `strict` ``, `*strict*`), a decided operand
//! that goes has an effect (a call), a block would be left empty, a dedented body holds
//! a multi-line string or a line indented less than it, the edits would leave a local
//! or parameter of the function read nowhere (a dead assignment), more than
//! [`MAX_TESTS`] tests pass it, or none does.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use rustpython_ast as ast;

use super::add_function::Sources;
use super::callers::{spliced, Edit};
use super::kind::Kind;
use super::prune;
use super::refs::{self, How};
use super::signature::{self, parameter_span, Call, Def};
use super::site::{Change, Site, Transform, Workspace};
use super::strip;
use super::suite;
use crate::python::text::is_elif;
use crate::python::walk::{owned_exprs, walk_stmts};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

mod decide;
mod docs;

use decide::{chain_edit, chain_mentions, conditional_edit};
use docs::docstring_edit;

/// The catalogue entry.
pub(crate) struct ParamWithUses;

/// The most tests an option may have (more: it is the function's core, not an option).
const MAX_TESTS: usize = 12;

/// Parameters a method keeps whatever it reads.
const RECEIVERS: [&str; 2] = ["self", "cls"];

impl Transform for ParamWithUses {
    fn change(&self) -> Change {
        Change::Feature
    }

    fn description(&self) -> &'static str {
        "adds an optional parameter of a function with the code that reads it and the tests that pass it"
    }

    fn sites(&self, workspace: &Workspace) -> Vec<Site> {
        let sources = Sources::new(workspace.modules);
        let mut out = Vec::new();
        for (home, module) in workspace.modules.iter().enumerate() {
            for def in Def::all(module) {
                for name in options(&def) {
                    out.extend(site_of(workspace.tree, &sources, home, &def, name));
                }
            }
        }
        out
    }

    fn apply(&self, _workspace: &Workspace, tree: &Snapshot, site: &Site) -> Option<Snapshot> {
        apply(tree, site)
    }

    fn message(&self, site: &Site) -> String {
        let (unit, param) = site.symbol.split_once('#').unwrap_or((site.symbol.as_str(), ""));
        let article = if param.starts_with(['a', 'e', 'i', 'o']) { "an" } else { "a" };
        format!("Add {article} `{param}` option to `{unit}`")
    }
}

/// The parameters of `def` with a constant default (the bound `self`/`cls` left out).
fn options<'m>(def: &Def<'m>) -> Vec<&'m str> {
    let args = def.args;
    let all = args.posonlyargs.iter().chain(&args.args).chain(&args.kwonlyargs);
    all.filter(|a| matches!(a.default.as_deref(), Some(ast::Expr::Constant(_))))
        .map(|a| a.def.arg.as_str())
        .filter(|name| !RECEIVERS.contains(name))
        .collect()
}

/// The site of the option `name` of `def`, if it is one (see the module header).
fn site_of(tree: &Snapshot, sources: &Sources, home: usize, def: &Def, name: &str) -> Option<Site> {
    let module = def.module;
    let plan = plan(tree, def, name)?;
    if plan.tests.is_empty() || plan.tests.len() > MAX_TESTS {
        return None;
    }
    // Taking it out of HEAD must work (a test file left without tests, a file that would
    // not parse: no site).
    prune::feature_taken_out(tree, &module.path, spliced(&module.text, &plan.edits)?, &plan.tests)?;
    let function = def.class.is_none().then_some(def.name());
    let mut uses = def.uses();
    let own = refs::uses_of(def.stmt);
    let locals: BTreeSet<&str> =
        own.iter().filter(|u| matches!(u.how, How::Store | How::Parameter)).map(|u| u.name).collect();
    for region in &plan.regions {
        uses.extend(sources.uses_of(home, def.stmt, function, Some(region)));
        let read = own.iter().filter(|u| u.how == How::Name && region.contains(&u.offset));
        let read_locals = read.map(|u| u.name).filter(|n| *n != name && locals.contains(n) && !RECEIVERS.contains(n));
        uses.extend(read_locals.map(|local| format!("{}.{local}", def.qual)));
    }
    let span = PyModule::span(def.stmt);
    Some(Site {
        kind: Kind::ParamWithUses,
        path: module.path.clone(),
        symbol: format!("{}#{name}", def.qual),
        lines: module.line_of(span.start)..module.line_of(span.end.saturating_sub(1)) + 1,
        uses,
        target: Some(name.to_string()),
        tests: plan.tests,
    })
}

/// What taking an option out does to its function's file, and its tests.
struct Plan {
    /// The edits of the function's file.
    edits: Vec<Edit>,
    /// The code the option decides (whole clause chains, conditional expressions).
    regions: Vec<Range<usize>>,
    /// The test functions passing the option (sorted).
    tests: Vec<String>,
}

/// How taking the option `name` out changes `def`'s file, and which tests pass it;
/// `None` when it is no site.
fn plan(tree: &Snapshot, def: &Def, name: &str) -> Option<Plan> {
    let module = def.module;
    let param = def
        .args
        .posonlyargs
        .iter()
        .chain(&def.args.args)
        .chain(&def.args.kwonlyargs)
        .find(|a| a.def.arg.as_str() == name)?;
    let Some(ast::Expr::Constant(default)) = param.default.as_deref() else { return None };
    let default = &default.value;
    let (tests, examples) = tests_passing(tree, def, name)?;
    let mut edits = vec![signature_edit(module, def, param)?];
    edits.extend(docstring_edit(module, def, name, &examples)?);
    let mut regions = Vec::new();
    let mut decided: Vec<Range<usize>> = Vec::new();
    let mut stmts = Vec::new();
    walk_stmts(def.body, &mut stmts);
    for stmt in &stmts {
        match stmt {
            ast::Stmt::FunctionDef(_) | ast::Stmt::AsyncFunctionDef(_) | ast::Stmt::ClassDef(_)
                if refs::mentions(module.source(*stmt), name) =>
            {
                return None;
            }
            ast::Stmt::If(head) if !is_elif(module, stmt) && chain_mentions(module, head, name) => {
                let (edit, tests_at) = chain_edit(module, def.body, stmt, head, name, default)?;
                regions.push(edit.at.clone());
                decided.extend(tests_at);
                edits.push(edit);
            }
            _ => {}
        }
        for expr in owned_exprs(stmt) {
            match expr {
                ast::Expr::IfExp(e) if refs::mentions(module.source(e.test.as_ref()), name) => {
                    let edit = conditional_edit(module, e, name, default)?;
                    regions.push(edit.at.clone());
                    decided.push(PyModule::span(e.test.as_ref()));
                    edits.push(edit);
                }
                ast::Expr::Lambda(_) | ast::Expr::ListComp(_) | ast::Expr::SetComp(_) | ast::Expr::DictComp(_)
                | ast::Expr::GeneratorExp(_)
                    if refs::mentions(module.source(expr), name) && !decided_within(&decided, expr) =>
                {
                    return None;
                }
                ast::Expr::Name(n) if n.id.as_str() == name => {
                    let at = PyModule::span(expr).start;
                    if n.ctx != ast::ExprContext::Load || !decided.iter().any(|r| r.contains(&at)) {
                        return None;
                    }
                }
                _ => {}
            }
        }
    }
    let after = spliced(&module.text, &edits)?;
    keeps_every_read(module, def, &after, name)?;
    Some(Plan { edits, regions, tests })
}

/// Whether `expr` lies inside a condition already decided.
fn decided_within(decided: &[Range<usize>], expr: &ast::Expr) -> bool {
    let span = PyModule::span(expr);
    decided.iter().any(|r| r.start <= span.start && span.end <= r.end)
}

/// The test functions holding a call of `def` that passes `name`, and where the
/// docstring's examples passing it start; `None` when another call passes it or may (see
/// the module header).
fn tests_passing(tree: &Snapshot, def: &Def, name: &str) -> Option<(Vec<String>, Vec<usize>)> {
    let position = def.positional().iter().position(|(a, _)| a.def.arg.as_str() == name);
    let own_doc = def.docstring();
    let mut tests = BTreeSet::new();
    let mut examples = Vec::new();
    let mut parsed: BTreeMap<String, PyModule> = BTreeMap::new();
    for call in signature::calls(tree, def)? {
        if call.keywords.iter().any(Option::is_none) || position.is_some_and(|at| call.spreads_into(at)) {
            return None;
        }
        if !passes(&call, name, position) {
            continue;
        }
        if call.doctest {
            // An example of the option in the function's own docstring goes with it.
            let own = call.path == def.module.path && own_doc.as_ref().is_some_and(|d| d.contains(&call.span.start));
            if !own {
                return None;
            }
            examples.push(call.span.start);
            continue;
        }
        if !snapshot::is_test_file(&call.path) {
            return None;
        }
        if !parsed.contains_key(&call.path) {
            let module = PyModule::parse(&call.path, snapshot::text_of(tree, &call.path)?).ok()?;
            parsed.insert(call.path.clone(), module);
        }
        let module = &parsed[&call.path];
        let test = suite::tests(module).into_iter().find(|t| PyModule::span(t.stmt).contains(&call.span.start))?;
        tests.insert(test.id);
    }
    Some((tests.into_iter().collect(), examples))
}

/// Whether a call passes the parameter `name` (at `position` when it may go by position).
fn passes(call: &Call, name: &str, position: Option<usize>) -> bool {
    call.keywords.iter().any(|k| k.as_deref() == Some(name)) || position.is_some_and(|at| call.args.len() > at)
}

/// The edit taking the parameter out of the signature, as an element of its
/// comma-separated list ([`strip::element_range`]: its whole line when it has one to
/// itself, else with a comma); `None` for the only keyword-only parameter after a bare
/// `*`. `*args` and `**kwargs` count with their stars; a bare `*` or `/` is no element,
/// so a parameter beside one keeps it.
fn signature_edit(module: &PyModule, def: &Def, param: &ast::ArgWithDefault) -> Option<Edit> {
    let args = def.args;
    let keyword_only = args.kwonlyargs.iter().any(|a| std::ptr::eq(a, param));
    if keyword_only && args.kwonlyargs.len() == 1 && args.vararg.is_none() {
        return None;
    }
    let starred = |arg: &ast::Arg, stars: usize| {
        let span = PyModule::span(arg);
        let star = span.start.saturating_sub(stars);
        let start = if module.text[star..span.start].chars().all(|c| c == '*') { star } else { span.start };
        start..span.end
    };
    let mut elements: Vec<(Range<usize>, bool)> = Vec::new();
    elements.extend(args.posonlyargs.iter().chain(&args.args).map(|a| (parameter_span(a), std::ptr::eq(a, param))));
    elements.extend(args.vararg.as_deref().map(|a| (starred(a, 1), false)));
    elements.extend(args.kwonlyargs.iter().map(|a| (parameter_span(a), std::ptr::eq(a, param))));
    elements.extend(args.kwarg.as_deref().map(|a| (starred(a, 2), false)));
    let index = elements.iter().position(|(_, own)| *own)?;
    let spans: Vec<Range<usize>> = elements.into_iter().map(|(span, _)| span).collect();
    Some(Edit::new(strip::element_range(&module.text, &spans, index)?, ""))
}

/// `Some` when the function in `after` (its file's text once edited) still reads every
/// local and parameter it binds that it read before (the option aside).
fn keeps_every_read(module: &PyModule, def: &Def, after: &str, name: &str) -> Option<()> {
    let edited = PyModule::parse(&module.path, after).ok()?;
    let new = Def::find(&edited, &def.qual)?;
    let reads = |stmt| -> BTreeSet<String> {
        refs::uses_of(stmt).into_iter().filter(|u| u.how == How::Name).map(|u| u.name.to_string()).collect()
    };
    let (before, now) = (reads(def.stmt), reads(new.stmt));
    let bound: BTreeSet<String> = refs::uses_of(new.stmt)
        .into_iter()
        .filter(|u| matches!(u.how, How::Store | How::Parameter))
        .map(|u| u.name.to_string())
        .collect();
    let dead = before.iter().any(|n| n != name && !now.contains(n) && bound.contains(n) && !RECEIVERS.contains(&n.as_str()));
    (!dead).then_some(())
}

/// `tree` without the site's option and its tests (see the module header).
fn apply(tree: &Snapshot, site: &Site) -> Option<Snapshot> {
    let (qual, name) = site.symbol.split_once('#')?;
    let module = PyModule::parse(&site.path, snapshot::text_of(tree, &site.path)?).ok()?;
    let def = Def::find(&module, qual)?;
    let plan = plan(tree, &def, name)?;
    let ids: BTreeSet<String> = site.tests.iter().cloned().collect();
    // Every test passing it must be one the site takes out.
    if plan.tests.iter().any(|t| !ids.contains(t)) {
        return None;
    }
    prune::feature_taken_out(tree, &site.path, spliced(&module.text, &plan.edits)?, &site.tests)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> Snapshot {
        files.iter().map(|(path, text)| (path.to_string(), std::sync::Arc::from(text.as_bytes()))).collect()
    }

    /// The source file once the option `name` of `qual` is taken out, or `None`.
    fn stripped(source: &str, test: &str, qual: &str, name: &str) -> Option<String> {
        let tree = tree(&[("lib.py", source), ("tests/test_lib.py", test)]);
        let module = PyModule::parse("lib.py", source).unwrap();
        let def = Def::find(&module, qual).unwrap();
        let plan = plan(&tree, &def, name)?;
        spliced(source, &plan.edits)
    }

    const TEST: &str = "from lib import tidy\n\n\ndef test_plain():\n    assert tidy('a')\n\n\ndef test_strict():\n    assert tidy('a', strict=True)\n";

    #[test]
    fn the_message_names_the_option_with_its_article() {
        let site = |symbol: &str| Site {
            kind: Kind::ParamWithUses,
            path: "m.py".into(),
            symbol: symbol.into(),
            lines: 1..2,
            uses: Default::default(),
            target: None,
            tests: Vec::new(),
        };
        assert_eq!(ParamWithUses.message(&site("word_counts#ignore_case")), "Add an `ignore_case` option to `word_counts`");
        assert_eq!(ParamWithUses.message(&site("parse#strict")), "Add a `strict` option to `parse`");
    }

    #[test]
    fn a_guard_on_the_option_goes_with_the_parameter() {
        let source = "def tidy(text, strict=False):\n    if strict and not text:\n        raise ValueError(text)\n    return text\n";
        assert_eq!(stripped(source, TEST, "tidy", "strict").unwrap(), "def tidy(text):\n    return text\n");
    }

    #[test]
    fn a_decided_chain_keeps_the_branch_that_runs_dedented() {
        let source = "def tidy(text, strict=False):\n    if not strict:\n        text = text.strip()\n    else:\n        text = text\n    return text\n";
        assert_eq!(stripped(source, TEST, "tidy", "strict").unwrap(), "def tidy(text):\n    text = text.strip()\n    return text\n");
        let elif = "def tidy(text, strict=False):\n    if text == 'x':\n        return 1\n    elif strict:\n        return 2\n    else:\n        return 3\n";
        assert_eq!(
            stripped(elif, TEST, "tidy", "strict").unwrap(),
            "def tidy(text):\n    if text == 'x':\n        return 1\n    else:\n        return 3\n"
        );
    }

    #[test]
    fn an_operand_the_default_does_not_decide_stays() {
        let source = "def tidy(text, strict=True):\n    if strict and text:\n        return 1\n    return 2\n";
        assert_eq!(stripped(source, TEST, "tidy", "strict").unwrap(), "def tidy(text):\n    if text:\n        return 1\n    return 2\n");
        let ifexp = "def tidy(text, strict=False):\n    return 1 if strict else 2\n";
        assert_eq!(stripped(ifexp, TEST, "tidy", "strict").unwrap(), "def tidy(text):\n    return 2\n");
    }

    #[test]
    fn an_option_read_another_way_or_passed_by_a_source_is_no_site() {
        let stored = "def tidy(text, strict=False):\n    mode = strict\n    return mode\n";
        assert!(stripped(stored, TEST, "tidy", "strict").is_none());
        let source = "def tidy(text, strict=False):\n    if strict:\n        return 1\n    return 2\n\n\ndef load(text):\n    return tidy(text, True)\n";
        assert!(stripped(source, TEST, "tidy", "strict").is_none());
        let dead = "def tidy(text, strict=False):\n    limit = 3\n    if strict:\n        return limit\n    return 2\n";
        assert!(stripped(dead, TEST, "tidy", "strict").is_none(), "a dead assignment would be left");
    }

    #[test]
    fn the_docstring_entry_goes_and_the_tests_passing_it_are_found() {
        let source = "def tidy(text, strict=False):\n    \"\"\"Parse.\n\n    Args:\n        text: The text.\n        strict: Refuse empty text.\n            Really.\n\n    Returns:\n        The text.\n    \"\"\"\n    if strict and not text:\n        raise ValueError(text)\n    return text\n";
        let got = stripped(source, TEST, "tidy", "strict").unwrap();
        assert!(!got.contains("strict") && got.contains("text: The text.\n\n    Returns:"), "{got}");
        let tree = tree(&[("lib.py", source), ("tests/test_lib.py", TEST)]);
        let module = PyModule::parse("lib.py", source).unwrap();
        let plan = plan(&tree, &Def::find(&module, "tidy").unwrap(), "strict").unwrap();
        assert_eq!(plan.tests, ["tests/test_lib.py::test_strict"]);
    }

    #[test]
    fn its_examples_and_its_version_note_go_with_it() {
        let source = "def capitalize(text, strict=True):\n    \"\"\"\n    Capitalize `text`.\n\n    Args:\n        text (str): The text.\n        strict (bool, optional): Lower the rest. Defaults to ``True``.\n\n    Example:\n\n        >>> capitalize('a B')\n        'A b'\n        >>> capitalize('a B', False)\n        'A B'\n\n    .. versionadded:: 1.1.0\n\n    .. versionchanged:: 3.0.0\n        Added `strict` option.\n    \"\"\"\n    return text.capitalize() if strict else text[:1].upper() + text[1:]\n";
        let test = "from lib import capitalize\n\n\ndef test_capitalize():\n    assert capitalize('a B') == 'A b'\n\n\ndef test_not_strict():\n    assert capitalize('a B', strict=False) == 'A B'\n";
        let got = stripped(source, test, "capitalize", "strict").unwrap();
        let expected = "def capitalize(text):\n    \"\"\"\n    Capitalize `text`.\n\n    Args:\n        text (str): The text.\n\n    Example:\n\n        >>> capitalize('a B')\n        'A b'\n\n    .. versionadded:: 1.1.0\n    \"\"\"\n    return text.capitalize()\n";
        assert_eq!(got, expected);
    }

    #[test]
    fn code_after_a_branch_that_always_leaves_goes() {
        let source = "def tidy(text, strict=True):\n    out = []\n    for item in text.split(';'):\n        if '=' not in item:\n            if strict:\n                raise ValueError(item)\n            continue\n        out.append(item)\n    return out\n";
        let expected = "def tidy(text):\n    out = []\n    for item in text.split(';'):\n        if '=' not in item:\n            raise ValueError(item)\n        out.append(item)\n    return out\n";
        assert_eq!(stripped(source, TEST, "tidy", "strict").unwrap(), expected);
    }

    #[test]
    fn the_parameter_leaves_its_list_with_one_comma() {
        let cases = [
            ("def f(a, strict=False):\n    pass\n", "def f(a):\n    pass\n"),
            ("def f(a, strict=False, b=1):\n    pass\n", "def f(a, b=1):\n    pass\n"),
            ("def f(a, strict=False, *args):\n    pass\n", "def f(a, *args):\n    pass\n"),
            ("def f(a, *, x=1, strict=False):\n    pass\n", "def f(a, *, x=1):\n    pass\n"),
            ("def f(\n    a,\n    strict=False,\n):\n    pass\n", "def f(\n    a,\n):\n    pass\n"),
            ("def f(a, strict=False, **kw):\n    pass\n", "def f(a, **kw):\n    pass\n"),
        ];
        for (before, after) in cases {
            let module = PyModule::parse("m.py", before).unwrap();
            let def = Def::find(&module, "f").unwrap();
            let param = def.args.args.iter().chain(&def.args.kwonlyargs).find(|a| a.def.arg.as_str() == "strict").unwrap();
            let edit = signature_edit(&module, &def, param).unwrap();
            assert_eq!(spliced(before, &[edit]).unwrap(), after, "{before}");
        }
    }
}
