//! Part (b) of the judgement: the tree's own test modules. Gold's test files restored
//! over a tree (part (a)) cannot see how the tree resolved a conflicted test file: it
//! may drop one side's tests, or empty them, and still pass. So the tree's own test
//! files run too, with gold's `conftest.py` files and test configuration restored over
//! them ([`own_tree`]: a conftest cannot fake passes), and
//! - the run passes;
//! - every test id that passes on gold passes in it (a dropped test is not kept);
//! - each of gold's test functions keeps at least gold's number of checks in the tree's
//!   version ([`checks`], counted statically: an emptied test is not a kept test).
//!
//! Skipped, with no run, when the tree's own test files equal gold's: the run would be
//! part (a)'s.

use std::collections::BTreeMap;

use anyhow::Result;
use rustpython_ast as ast;
use rustpython_parser::Parse;

use super::steering::{is_own_test_file, steers_the_run};
use super::verdict::{Listed, Runs, Unsolved};
use crate::python::walk::{owned_exprs, walk_stmts};
use crate::snapshot::{self, Snapshot};

/// Part (b) on `tree` against `gold` (`steering`: gold's files that steer the run): why
/// the tree's own tests do not keep gold's, or `None`.
pub(crate) fn judge<R: Runs + ?Sized>(
    tree: &Snapshot,
    gold: &Snapshot,
    steering: &Snapshot,
    runs: &R,
) -> Result<Option<Unsolved>> {
    if own_test_files(tree).eq(own_test_files(gold)) {
        return Ok(None);
    }
    let weakened = not_kept(tree, gold);
    if !weakened.is_empty() {
        return Ok(Some(Unsolved::NotKept(weakened)));
    }
    let run = runs.listed(&own_tree(tree, steering))?;
    Ok(verdict(&run, &runs.gold_passing()?))
}

/// The verdict of the tree's own run: it fails, or gold's passing ids that it does not
/// pass.
fn verdict(run: &Listed, gold_passing: &std::collections::BTreeSet<String>) -> Option<Unsolved> {
    if !run.passed {
        let failed = match run.failed.is_empty() {
            true => vec!["<failed>".to_string()],
            false => run.failed.clone(),
        };
        return Some(Unsolved::OwnTests(failed));
    }
    let missing: Vec<String> = gold_passing.iter().filter(|id| !run.passing.contains(*id)).cloned().collect();
    (!missing.is_empty()).then_some(Unsolved::NotKept(missing))
}

/// The tree's own test files ([`is_own_test_file`]), in path order; caches a run left
/// behind (`__pycache__`, `.pytest_cache`) are not the tree's tests.
fn own_test_files(tree: &Snapshot) -> impl Iterator<Item = (&String, &std::sync::Arc<[u8]>)> {
    let cache = |path: &str| path.split('/').any(|part| part == "__pycache__" || part == ".pytest_cache");
    tree.iter().filter(move |(path, _)| is_own_test_file(path) && !cache(path))
}

/// `tree` as part (b) runs it: its own test files, and gold's copy of every other file
/// that steers the run (`steering`; removed where gold has none).
pub(crate) fn own_tree(tree: &Snapshot, steering: &Snapshot) -> Snapshot {
    let mut out: Snapshot = tree
        .iter()
        .filter(|(path, _)| !steers_the_run(path) || is_own_test_file(path))
        .map(|(p, d)| (p.clone(), d.clone()))
        .collect();
    out.extend(steering.iter().filter(|(path, _)| !is_own_test_file(path)).map(|(p, d)| (p.clone(), d.clone())));
    out
}

/// Gold's test functions (`path::Class::test`) whose version in `tree` is gone or has
/// fewer checks than gold's, over gold's own test modules that differ in the tree (one
/// that does not parse in the tree is left to the run, which fails on it).
pub(crate) fn not_kept(tree: &Snapshot, gold: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    for (path, data) in own_test_files(gold).filter(|(path, _)| path.ends_with(".py")) {
        if tree.get(path) == Some(data) {
            continue;
        }
        let Some(gold_checks) = snapshot::text_of(gold, path).and_then(|text| checks(text, path)) else {
            continue;
        };
        // A version that does not parse fails the run, which names it.
        let tree_checks = match snapshot::text_of(tree, path) {
            Some(text) => match checks(text, path) {
                Some(checks) => checks,
                None => continue,
            },
            None => BTreeMap::new(),
        };
        for (name, count) in gold_checks {
            if tree_checks.get(&name).is_none_or(|kept| *kept < count) {
                out.push(format!("{path}::{name}"));
            }
        }
    }
    out
}

/// Every test function of a module (`test*` functions at module level and in classes,
/// by qualified name `Class::test`) and its number of checks; `None` when the module
/// does not parse. A check is an `assert` statement, a `self.assert*(…)` or
/// `self.fail(…)` call, or a `pytest.raises`/`pytest.warns` call or block (also bare
/// `raises`/`warns`), wherever it is in the function's body.
pub(crate) fn checks(text: &str, path: &str) -> Option<BTreeMap<String, usize>> {
    let suite = ast::Suite::parse(text, path).ok()?;
    let mut out = BTreeMap::new();
    test_functions(&suite, "", &mut out);
    Some(out)
}

/// Test functions of `block` (a module's or a class's body), `prefix` naming the class.
fn test_functions(block: &[ast::Stmt], prefix: &str, out: &mut BTreeMap<String, usize>) {
    for stmt in block {
        let (name, body) = match stmt {
            ast::Stmt::FunctionDef(d) => (d.name.as_str(), &d.body),
            ast::Stmt::AsyncFunctionDef(d) => (d.name.as_str(), &d.body),
            ast::Stmt::ClassDef(c) => {
                test_functions(&c.body, &format!("{prefix}{}::", c.name), out);
                continue;
            }
            _ => continue,
        };
        if name.starts_with("test") {
            out.insert(format!("{prefix}{name}"), count_checks(body));
        }
    }
}

/// The checks in a function body, nested blocks and functions included.
fn count_checks(body: &[ast::Stmt]) -> usize {
    let mut stmts = Vec::new();
    walk_stmts(body, &mut stmts);
    stmts
        .iter()
        .map(|stmt| {
            let asserts = usize::from(matches!(stmt, ast::Stmt::Assert(_)));
            asserts + owned_exprs(stmt).into_iter().filter(|e| is_check_call(e)).count()
        })
        .sum()
}

/// Whether `expr` is a call that checks: `self.assert*`, `self.fail`, `pytest.raises`,
/// `pytest.warns`, `raises`, `warns`.
fn is_check_call(expr: &ast::Expr) -> bool {
    let ast::Expr::Call(call) = expr else { return false };
    match call.func.as_ref() {
        ast::Expr::Attribute(attr) => {
            let ast::Expr::Name(owner) = attr.value.as_ref() else { return false };
            let method = attr.attr.as_str();
            match owner.id.as_str() {
                "self" => method.starts_with("assert") || method == "fail",
                "pytest" => method == "raises" || method == "warns",
                _ => false,
            }
        }
        ast::Expr::Name(name) => name.id.as_str() == "raises" || name.id.as_str() == "warns",
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use super::*;

    fn tree(paths: &[(&str, &str)]) -> Snapshot {
        paths.iter().map(|(p, t)| (p.to_string(), Arc::from(t.as_bytes()))).collect()
    }

    #[test]
    fn checks_count_asserts_assertion_calls_and_raises_blocks() {
        let text = "import pytest\nfrom pytest import raises\n\
            def test_a():\n    assert 1\n    for x in []:\n        assert x, 'msg'\n\
            def test_b():\n    with pytest.raises(ValueError):\n        int('x')\n    pytest.warns(UserWarning, f)\n    raises(E, g)\n\
            def helper():\n    assert 0\n\
            class TestC:\n    def test_c(self):\n        pass\n\
            class CaseD(unittest.TestCase):\n    def test_d(self):\n        self.assertEqual(1, 1)\n        \
            with self.assertRaises(KeyError):\n            {}['k']\n        self.fail('no')\n        other.assertTrue(1)\n";
        let counted = checks(text, "tests/test_x.py").unwrap();
        let expected: BTreeMap<String, usize> =
            [("test_a", 2), ("test_b", 3), ("TestC::test_c", 0), ("CaseD::test_d", 3)]
                .into_iter()
                .map(|(n, c)| (n.to_string(), c))
                .collect();
        assert_eq!(counted, expected);
        assert_eq!(checks("def test_(:\n", "t.py"), None);
    }

    #[test]
    fn the_own_tree_keeps_the_trees_test_modules_and_golds_conftest_and_configuration() {
        let agent = tree(&[
            ("calc.py", "agent"),
            ("tests/test_calc.py", "mine"),
            ("tests/helpers.py", "my helper"),
            ("tests/conftest.py", "fake passes"),
            ("pytest.ini", "[pytest]\naddopts = -k nothing"),
        ]);
        let gold = tree(&[
            ("calc.py", "gold"),
            ("tests/test_calc.py", "gold test"),
            ("tests/helpers.py", "gold helper"),
            ("conftest.py", "gold conftest"),
        ]);
        let own = own_tree(&agent, &super::super::steering::steering_files(&gold));
        let expected = tree(&[
            ("calc.py", "agent"),
            ("conftest.py", "gold conftest"),
            ("tests/helpers.py", "my helper"),
            ("tests/test_calc.py", "mine"),
        ]);
        assert_eq!(own, expected);
    }

    #[test]
    fn a_test_gone_or_with_fewer_checks_is_not_kept() {
        let gold =
            tree(&[("tests/test_a.py", "def test_x():\n    assert 1\n    assert 2\n\ndef test_y():\n    assert 1\n")]);
        let reordered = tree(&[(
            "tests/test_a.py",
            "def test_y():\n    assert 1\n\ndef test_x():\n    assert 1\n    assert 2\n    assert 3\n",
        )]);
        assert!(not_kept(&reordered, &gold).is_empty());
        let weakened = tree(&[("tests/test_a.py", "def test_x():\n    assert 1\n\ndef test_y():\n    assert 1\n")]);
        assert_eq!(not_kept(&weakened, &gold), ["tests/test_a.py::test_x"]);
        let dropped = tree(&[("tests/test_a.py", "def test_y():\n    assert 1\n")]);
        assert_eq!(not_kept(&dropped, &gold), ["tests/test_a.py::test_x"]);
        assert_eq!(not_kept(&tree(&[]), &gold), ["tests/test_a.py::test_x", "tests/test_a.py::test_y"]);
        let marked = tree(&[("tests/test_a.py", "<<<<<<< ours\ndef test_x():\n")]);
        assert!(not_kept(&marked, &gold).is_empty(), "left to the run");
    }

    #[test]
    fn caches_left_by_a_run_are_not_the_trees_tests() {
        let gold = tree(&[("tests/test_a.py", "def test_x():\n    assert 1\n")]);
        let mut ran = gold.clone();
        ran.insert("tests/__pycache__/test_a.cpython-312-pytest-8.pyc".into(), Arc::from(&b"\0"[..]));
        assert!(own_test_files(&ran).eq(own_test_files(&gold)));
    }

    #[test]
    fn a_failing_run_or_a_gold_test_not_passing_is_unsolved() {
        let gold: BTreeSet<String> = ["t::a".to_string(), "t::b".to_string()].into();
        let run = |passed: bool, passing: &[&str]| Listed {
            passed,
            failed: Vec::new(),
            passing: passing.iter().map(|s| s.to_string()).collect(),
        };
        assert_eq!(verdict(&run(true, &["t::a", "t::b", "t::c"]), &gold), None);
        assert_eq!(verdict(&run(true, &["t::a"]), &gold), Some(Unsolved::NotKept(vec!["t::b".into()])));
        assert_eq!(verdict(&run(false, &["t::a", "t::b"]), &gold), Some(Unsolved::OwnTests(vec!["<failed>".into()])));
    }
}
