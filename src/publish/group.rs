//! A task's split group: the place in the substrate where its conflict starts, so that
//! tasks made from the same code land in the same split and no group spans both.
//!
//! The group is `<substrate>:<path>:<qualname>`:
//!
//! - **path**: among the task's conflicted files in path order, the first whose merged
//!   text holds a `<<<<<<<` marker. A semantic task (no markers) takes the first
//!   conflicted file, in path order, whose merged text differs from gold.
//! - **line**: the first line of the first conflict hunk. The merged text is reduced to
//!   the ours side of every hunk (markers, base and theirs sections dropped), which
//!   parses like the ours branch; the line is the first of the first hunk's ours side.
//!   When ours is empty there (ours deleted what theirs changed), that hunk keeps its
//!   base side instead (or theirs when base is empty too), so the task is placed by
//!   the code the deletion touched. A semantic task takes the first line where the
//!   merged text differs from gold, in the merged text (which has no markers).
//! - **qualname**: the innermost `def` or `class` whose lines hold that line, nested
//!   names joined with `.` (`Class.method`, `outer.inner`), or `<module>` when none
//!   does, when the file is not Python or when the text does not parse.
//!
//! A task made from the project's history (merge-replay, commit-replay) is grouped by
//! the real commit it stands for instead: `<substrate>:commit:<id>`.
//!
//! This module does no I/O.

use rustpython_ast as ast;

use crate::bundle::{Solution, Task};
use crate::python::walk::child_blocks;
use crate::python::PyModule;

/// The qualified name of module level.
pub(crate) const MODULE_LEVEL: &str = "<module>";

/// The split group of a task: `<substrate>:<path>:<qualname>`.
pub fn group_of(task: &Task, solution: &Solution) -> String {
    if let Some(origin) = &solution.origin {
        return format!("{}:commit:{}", task.substrate.name, origin.commit);
    }
    let (path, qualname) = conflict_site(task, solution);
    format!("{}:{path}:{qualname}", task.substrate.name)
}

/// The path and qualified name where a task's first conflict hunk starts.
pub(crate) fn conflict_site(task: &Task, solution: &Solution) -> (String, String) {
    let mut paths: Vec<&str> = task.conflicts.iter().map(|c| c.path.as_str()).collect();
    paths.sort_unstable();
    let file = |path: &str| solution.files.iter().find(|f| f.path == path);
    for path in &paths {
        if let Some(f) = file(path) {
            if let Some((text, line)) = first_hunk_text(&f.conflicted) {
                return (path.to_string(), qualname_at(path, &text, line));
            }
        }
    }
    for path in &paths {
        if let Some(f) = file(path) {
            if let Some(line) = first_difference(&f.conflicted, &f.gold) {
                return (path.to_string(), qualname_at(path, &f.conflicted, line));
            }
        }
    }
    (paths.first().map_or_else(String::new, |p| p.to_string()), MODULE_LEVEL.to_string())
}

fn is_marker(line: &str, marker: &str) -> bool {
    line == marker || line.strip_prefix(marker).is_some_and(|rest| rest.starts_with(' '))
}

/// A piece of a merged text: lines outside the markers, or one conflict hunk.
enum Piece<'a> {
    Text(&'a str),
    Hunk { ours: Vec<&'a str>, base: Vec<&'a str>, theirs: Vec<&'a str> },
}

/// Splits a merged text (lines with their newlines) at its diff3 markers; `None`
/// without a marker.
fn pieces(merged: &str) -> Option<Vec<Piece<'_>>> {
    let mut out = Vec::new();
    // The open hunk's sides (ours, base, theirs) and the one being read.
    let mut hunk: Option<([Vec<&str>; 3], usize)> = None;
    for line in merged.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        match &mut hunk {
            None if is_marker(bare, "<<<<<<<") => hunk = Some((Default::default(), 0)),
            None => out.push(Piece::Text(line)),
            Some(([ours, base, theirs], _)) if is_marker(bare, ">>>>>>>") => {
                let (ours, base, theirs) = (std::mem::take(ours), std::mem::take(base), std::mem::take(theirs));
                out.push(Piece::Hunk { ours, base, theirs });
                hunk = None;
            }
            Some((_, section)) if *section == 0 && is_marker(bare, "|||||||") => *section = 1,
            Some((_, section)) if *section < 2 && bare == "=======" => *section = 2,
            Some((sides, section)) => sides[*section].push(line),
        }
    }
    out.iter().any(|p| matches!(p, Piece::Hunk { .. })).then_some(out)
}

/// The merged text as the ours branch has it, but for the first hunk, which keeps its
/// first non-empty side in the order ours, base, theirs (so that a hunk where ours
/// deleted code is placed by the code it deleted); and the 1-based line where that
/// side starts. `None` without a marker.
pub(crate) fn first_hunk_text(merged: &str) -> Option<(String, usize)> {
    let mut text = String::new();
    let mut lines = 0usize;
    let mut first = None;
    for piece in pieces(merged)? {
        let kept: Vec<&str> = match piece {
            Piece::Text(line) => vec![line],
            Piece::Hunk { ours, base, theirs } if first.is_none() => {
                first = Some(lines + 1);
                [ours, base, theirs].into_iter().find(|side| !side.is_empty()).unwrap_or_default()
            }
            Piece::Hunk { ours, .. } => ours,
        };
        for line in kept {
            text.push_str(line);
            lines += 1;
        }
    }
    first.map(|line| (text, line))
}

/// The 1-based first line where `a` and `b` differ (a line present in one only counts).
pub(crate) fn first_difference(a: &str, b: &str) -> Option<usize> {
    if a == b {
        return None;
    }
    let (mut left, mut right) = (a.lines(), b.lines());
    let mut line = 1;
    loop {
        match (left.next(), right.next()) {
            (Some(x), Some(y)) if x == y => line += 1,
            (None, None) => return Some(line.max(1) - usize::from(line > 1)),
            _ => return Some(line),
        }
    }
}

/// The qualified name of the innermost `def` or `class` holding `line` in `text`.
pub(crate) fn qualname_at(path: &str, text: &str, line: usize) -> String {
    if !path.ends_with(".py") {
        return MODULE_LEVEL.to_string();
    }
    let Ok(module) = PyModule::parse(path, text) else {
        return MODULE_LEVEL.to_string();
    };
    let mut scope = Vec::new();
    innermost(&module, &module.suite, line, &mut scope);
    if scope.is_empty() {
        MODULE_LEVEL.to_string()
    } else {
        scope.join(".")
    }
}

fn innermost(module: &PyModule, block: &[ast::Stmt], line: usize, scope: &mut Vec<String>) {
    for stmt in block {
        let span = PyModule::span(stmt);
        let (first, last) = (module.line_of(span.start), module.line_of(span.end.saturating_sub(1).max(span.start)));
        if !(first..=last).contains(&line) {
            continue;
        }
        let (name, body) = match stmt {
            ast::Stmt::FunctionDef(d) => (Some(d.name.as_str()), vec![d.body.as_slice()]),
            ast::Stmt::AsyncFunctionDef(d) => (Some(d.name.as_str()), vec![d.body.as_slice()]),
            ast::Stmt::ClassDef(d) => (Some(d.name.as_str()), vec![d.body.as_slice()]),
            other => (None, child_blocks(other)),
        };
        if let Some(name) = name {
            scope.push(name.to_string());
        }
        for inner in body {
            innermost(module, inner, line, scope);
        }
        return;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MERGED: &str = "import os\n\nclass Shop:\n    def price(self, x):\n        def round_it(v):\n<<<<<<< ours\n            return int(v)\n||||||| base\n            return v\n=======\n            return float(v)\n>>>>>>> theirs\n        return round_it(x)\n";

    #[test]
    fn the_first_hunk_is_named_by_its_enclosing_scopes() {
        let (text, line) = first_hunk_text(MERGED).unwrap();
        assert_eq!(line, 6);
        assert_eq!(text.lines().nth(5), Some("            return int(v)"));
        assert_eq!(qualname_at("shop.py", &text, line), "Shop.price.round_it");
        assert_eq!(qualname_at("shop.py", &text, 1), MODULE_LEVEL);
        assert_eq!(qualname_at("shop.txt", &text, line), MODULE_LEVEL);
        assert_eq!(qualname_at("shop.py", "def (:\n", 1), MODULE_LEVEL);
    }

    #[test]
    fn an_empty_ours_side_is_placed_by_the_code_it_deleted() {
        let merged = "x = 1\n\n<<<<<<< ours\n||||||| base\ndef f():\n    return 2\n=======\ndef f():\n    return 3\n>>>>>>> theirs\n\n<<<<<<< ours\ny = 1\n=======\ny = 2\n>>>>>>> theirs\n";
        let (text, line) = first_hunk_text(merged).unwrap();
        assert_eq!(text, "x = 1\n\ndef f():\n    return 2\n\ny = 1\n");
        assert_eq!(line, 3);
        assert_eq!(qualname_at("m.py", &text, line), "f");
        assert_eq!(first_hunk_text("no markers\n"), None);
    }

    #[test]
    fn first_difference_counts_lines_from_one() {
        assert_eq!(first_difference("a\nb\n", "a\nb\n"), None);
        assert_eq!(first_difference("a\nb\n", "a\nc\n"), Some(2));
        assert_eq!(first_difference("a\n", "a\nc\n"), Some(2));
        assert_eq!(first_difference("x", "y"), Some(1));
    }
}
