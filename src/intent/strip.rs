//! Taking code out of a Python file as text splices that leave code a reviewer accepts:
//! a statement's whole lines (a definition with its decorators and the comments attached
//! to it) with the blank lines around it joined so PEP 8 spacing holds, one name out of
//! an import statement (the whole statement when it empties; parenthesised multi-line
//! lists too) or out of `__all__`. Each function takes text and returns text; callers
//! re-parse between edits. Deciding *what* to take out is the callers' business.

use std::ops::Range;

use rustpython_ast as ast;

use crate::python::PyModule;

/// The whole lines a statement occupies, for a definition (`def`/`class`) with its
/// decorators, the comment lines directly above it at its indentation and the comment
/// lines right after it indented deeper. `None` when other code shares its lines.
pub(crate) fn statement_lines(module: &PyModule, stmt: &ast::Stmt) -> Option<Range<usize>> {
    let lines = module.whole_lines(stmt)?;
    let decorators = match stmt {
        ast::Stmt::FunctionDef(d) => &d.decorator_list,
        ast::Stmt::AsyncFunctionDef(d) => &d.decorator_list,
        ast::Stmt::ClassDef(d) => &d.decorator_list,
        _ => return Some(lines),
    };
    let text = &module.text;
    let mut start = lines.start;
    if let Some(first) = decorators.first() {
        let at = PyModule::span(first).start;
        start = line_start(text, at);
        if text[start..at].trim() != "@" {
            return None;
        }
    }
    let indent = module.indent_at(lines.start);
    while start > 0 {
        let above = line_start(text, start - 1);
        let line = &text[above..start];
        if !(line.trim_start().starts_with('#') && indentation(line) == indent) {
            break;
        }
        start = above;
    }
    let mut end = lines.end;
    while end < text.len() {
        let next = line_end(text, end);
        let line = &text[end..next];
        if !(line.trim_start().starts_with('#') && indentation(line).len() > indent.len()) {
            break;
        }
        end = next;
    }
    Some(start..end)
}

/// `text` without the whole lines `lines`, the blank lines before and after them joined
/// into one run: as long as the longer of the two (two blank lines between top-level
/// definitions stay two), or the one before when the removed code opened its block
/// (no blank line appears under a `class` line), or none at the end of the file.
pub(crate) fn without_lines(text: &str, lines: Range<usize>, first_in_block: bool) -> String {
    let (before_start, before) = blank_run_before(text, lines.start);
    let (after_end, after) = blank_run_after(text, lines.end);
    let rest = &text[after_end..];
    if rest.trim().is_empty() {
        return text[..before_start].to_string();
    }
    let gap = if first_in_block { before } else { before.max(after) };
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    format!("{}{}{rest}", &text[..before_start], newline.repeat(gap))
}

/// `text` without the statement `block[index]` of `module` (see [`without_lines`]).
pub(crate) fn without_statement(module: &PyModule, block: &[ast::Stmt], index: usize) -> Option<String> {
    let lines = statement_lines(module, &block[index])?;
    Some(without_lines(&module.text, lines, index == 0))
}

/// `text` without the element `index` of a comma-separated list whose elements span
/// `elements` (the names of an import, the strings of `__all__`): its whole line when
/// it stands alone on it, else the element with the comma that joins it to a neighbour
/// on the same line. `None` when it is the only element.
pub(crate) fn without_element(text: &str, elements: &[Range<usize>], index: usize) -> Option<String> {
    let range = element_range(text, elements, index)?;
    Some(format!("{}{}", &text[..range.start], &text[range.end..]))
}

/// The range [`without_element`] takes out of `text`.
pub(crate) fn element_range(text: &str, elements: &[Range<usize>], index: usize) -> Option<Range<usize>> {
    if elements.len() < 2 {
        return None;
    }
    let element = elements[index].clone();
    let (start, end) = (line_start(text, element.start), line_end(text, element.end));
    let alone = text[start..element.start].trim().is_empty() && {
        let after = text[element.end..end].trim_start();
        let after = after.strip_prefix(',').unwrap_or(after).trim();
        after.is_empty() || after.starts_with('#')
    };
    let range = if alone {
        start..end
    } else if index + 1 < elements.len() && !text[element.end..elements[index + 1].start].contains('\n') {
        element.start..elements[index + 1].start
    } else if index > 0 {
        elements[index - 1].end..element.end
    } else {
        // First on its line, the next one on a later line: the element and its comma.
        let comma = text[element.end..].find(',').map_or(element.end, |i| element.end + i + 1);
        let rest = &text[comma..];
        element.start..comma + (rest.len() - rest.trim_start_matches([' ', '\t']).len())
    };
    Some(range)
}

/// `text` without the name `alias_index` of the import statement `block[index]`, or
/// without the whole statement when it is its only name.
pub(crate) fn without_import_name(
    module: &PyModule,
    block: &[ast::Stmt],
    index: usize,
    alias_index: usize,
) -> Option<String> {
    let aliases = match &block[index] {
        ast::Stmt::Import(i) => &i.names,
        ast::Stmt::ImportFrom(i) => &i.names,
        _ => return None,
    };
    if aliases.len() == 1 {
        return without_statement(module, block, index);
    }
    let spans: Vec<Range<usize>> = aliases.iter().map(PyModule::span).collect();
    without_element(&module.text, &spans, alias_index)
}

/// The string elements of a module-level `__all__` list or tuple (assigned or
/// augmented), with their spans.
pub(crate) fn all_entries(module: &PyModule) -> Vec<(String, Vec<Range<usize>>, usize)> {
    let mut out = Vec::new();
    for stmt in &module.suite {
        let (target, value) = match stmt {
            ast::Stmt::Assign(a) if a.targets.len() == 1 => (&a.targets[0], a.value.as_ref()),
            ast::Stmt::AugAssign(a) => (a.target.as_ref(), a.value.as_ref()),
            ast::Stmt::AnnAssign(a) => match &a.value {
                Some(value) => (a.target.as_ref(), value.as_ref()),
                None => continue,
            },
            _ => continue,
        };
        if !matches!(target, ast::Expr::Name(n) if n.id.as_str() == "__all__") {
            continue;
        }
        let elements = match value {
            ast::Expr::List(l) => &l.elts,
            ast::Expr::Tuple(t) => &t.elts,
            _ => continue,
        };
        let spans: Vec<Range<usize>> = elements.iter().map(PyModule::span).collect();
        for (i, element) in elements.iter().enumerate() {
            if let ast::Expr::Constant(c) = element {
                if let ast::Constant::Str(s) = &c.value {
                    out.push((s.clone(), spans.clone(), i));
                }
            }
        }
    }
    out
}

/// `text` without the entry `name` of `__all__`, if it has one.
pub(crate) fn without_all_entry(module: &PyModule, name: &str) -> Option<String> {
    let (_, spans, index) = all_entries(module).into_iter().find(|(entry, _, _)| entry == name)?;
    if spans.len() == 1 {
        // `__all__ = ["name"]` → `__all__ = []`.
        let span = spans[0].clone();
        return Some(format!("{}{}", &module.text[..span.start], &module.text[span.end..]));
    }
    without_element(&module.text, &spans, index)
}

/// The start of the line holding `offset`.
pub(crate) fn line_start(text: &str, offset: usize) -> usize {
    text[..offset].rfind('\n').map_or(0, |i| i + 1)
}

/// Just past the newline ending the line holding `offset` (or the end of the text).
fn line_end(text: &str, offset: usize) -> usize {
    text[offset..].find('\n').map_or(text.len(), |i| offset + i + 1)
}

fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// The start of the blank lines right above `offset` (a line start) and their count.
fn blank_run_before(text: &str, offset: usize) -> (usize, usize) {
    let (mut start, mut count) = (offset, 0);
    while start > 0 {
        let above = line_start(text, start - 1);
        if !text[above..start].trim().is_empty() {
            break;
        }
        start = above;
        count += 1;
    }
    (start, count)
}

/// The end of the blank lines starting at `offset` (a line start) and their count.
fn blank_run_after(text: &str, offset: usize) -> (usize, usize) {
    let (mut end, mut count) = (offset, 0);
    while end < text.len() {
        let next = line_end(text, end);
        if !text[end..next].trim().is_empty() {
            break;
        }
        end = next;
        count += 1;
    }
    (end, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn without_def(text: &str, name: &str) -> String {
        let module = PyModule::parse("m.py", text).unwrap();
        let index = module
            .suite
            .iter()
            .position(|s| matches!(s, ast::Stmt::FunctionDef(d) if d.name.as_str() == name))
            .unwrap();
        without_statement(&module, &module.suite, index).unwrap()
    }

    #[test]
    fn top_level_definitions_keep_two_blank_lines() {
        let text = "import x\n\n\n# about a\n@deco\ndef a():\n    pass\n    # trailing\n\n\ndef b():\n    pass\n";
        assert_eq!(without_def(text, "a"), "import x\n\n\ndef b():\n    pass\n");
        assert_eq!(without_def(text, "b"), "import x\n\n\n# about a\n@deco\ndef a():\n    pass\n    # trailing\n");
        assert_eq!(without_def("def a():\n    pass\n\n\nX = 1\n", "a"), "X = 1\n");
    }

    #[test]
    fn a_first_method_leaves_no_blank_line_under_its_class() {
        let text = "class C:\n    def a(self):\n        pass\n\n    def b(self):\n        pass\n";
        let module = PyModule::parse("m.py", text).unwrap();
        let ast::Stmt::ClassDef(class) = &module.suite[0] else { panic!() };
        assert_eq!(without_statement(&module, &class.body, 0).unwrap(), "class C:\n    def b(self):\n        pass\n");
        assert_eq!(without_statement(&module, &class.body, 1).unwrap(), "class C:\n    def a(self):\n        pass\n");
    }

    #[test]
    fn import_names_come_out_with_their_commas() {
        let cases = [
            ("from a import x, y\n", 1, "from a import x\n"),
            ("from a import x, y\n", 0, "from a import y\n"),
            ("from a import x, y, z\n", 1, "from a import x, z\n"),
            ("from a import (\n    x,\n    y,\n)\n", 1, "from a import (\n    x,\n)\n"),
            ("from a import (\n    x,\n    y\n)\n", 1, "from a import (\n    x,\n)\n"),
            ("from a import (x, y,\n    z)\n", 1, "from a import (x,\n    z)\n"),
            ("from a import (x,\n    y, z)\n", 1, "from a import (x,\n    z)\n"),
        ];
        for (text, index, expected) in cases {
            let module = PyModule::parse("m.py", text).unwrap();
            let got = without_import_name(&module, &module.suite, 0, index).unwrap();
            assert_eq!(got, expected, "{text:?} without name {index}");
        }
    }
}
