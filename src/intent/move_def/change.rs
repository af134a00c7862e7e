//! The edits of one file, collected while a move is planned and rendered at the end as
//! byte-range splices of the original text: import statements re-rendered with names
//! dropped or added (keeping a one-name-a-line layout and its comments), new import
//! lines after a statement or in the module's header, statement lines cut together with
//! the blank-line run beside them, and plain replacements.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use rustpython_ast as ast;

use super::index::{Alias, File, Import};
use crate::python::walk::is_docstring;
use crate::python::PyModule;

/// The longest import line written on one line (PEP 8).
const MAX_LINE: usize = 79;

/// Everything a move changes in one file.
#[derive(Default)]
pub(crate) struct FileChange {
    /// Import statements re-rendered, by import index.
    pub(crate) imports: BTreeMap<usize, ImportChange>,
    /// New import statements written right after an import statement (by import index),
    /// at its indentation.
    pub(crate) after: BTreeMap<usize, Vec<String>>,
    /// New import statements for the module's header.
    pub(crate) header: Vec<NewImport>,
    /// Replacements of byte ranges (insertions when empty).
    pub(crate) splices: Vec<(Range<usize>, String)>,
    /// Whole lines removed, with a blank-line run beside them.
    pub(crate) cuts: Vec<Range<usize>>,
}

/// Names dropped from and added to one import statement.
#[derive(Default)]
pub(crate) struct ImportChange {
    /// Alias indices dropped.
    pub(crate) dropped: BTreeSet<usize>,
    pub(crate) added: Vec<Alias>,
}

/// An import statement a move writes into a module's header.
pub(crate) struct NewImport {
    /// `from X import …` with `X`; `None` for `import …`.
    pub(crate) from: Option<String>,
    pub(crate) aliases: Vec<Alias>,
    /// A project (first-party) import, written after the others.
    pub(crate) project: bool,
}

impl FileChange {
    pub(crate) fn drop_alias(&mut self, import: usize, alias: usize) {
        self.imports.entry(import).or_default().dropped.insert(alias);
    }

    pub(crate) fn add_alias(&mut self, import: usize, alias: Alias) {
        let change = self.imports.entry(import).or_default();
        if !change.added.iter().any(|a| a.text() == alias.text()) {
            change.added.push(alias);
        }
    }

    pub(crate) fn add_after(&mut self, import: usize, line: String) {
        let lines = self.after.entry(import).or_default();
        if !lines.contains(&line) {
            lines.push(line);
        }
    }

    /// Adds a name to the header: into a new `from` statement of the same module if there
    /// is one already.
    pub(crate) fn add_header(&mut self, from: Option<&str>, alias: Alias, project: bool) {
        if let Some(module) = from {
            if let Some(existing) = self.header.iter_mut().find(|n| n.from.as_deref() == Some(module)) {
                if !existing.aliases.iter().any(|a| a.text() == alias.text()) {
                    existing.aliases.push(alias);
                }
                return;
            }
        } else if self.header.iter().any(|n| n.from.is_none() && n.aliases[0].text() == alias.text()) {
            return;
        }
        self.header.push(NewImport { from: from.map(str::to_string), aliases: vec![alias], project });
    }

    /// Whether an alias of an import is dropped.
    pub(crate) fn dropped(&self, import: usize, alias: usize) -> bool {
        self.imports.get(&import).is_some_and(|c| c.dropped.contains(&alias))
    }

    /// The file's new text, or `None` when an edit cannot be written (an import sharing its
    /// line, a block left empty, a comment inside an import that must be rewrapped,
    /// overlapping edits).
    pub(crate) fn render(&self, file: &File, is_project: &dyn Fn(&Import) -> bool) -> Option<String> {
        let text = &file.py.text;
        let mut splices = self.splices.clone();
        let mut cuts = self.cuts.clone();
        let touched: BTreeSet<usize> = self.imports.keys().chain(self.after.keys()).copied().collect();
        for index in touched {
            let import = &file.imports[index];
            let change = self.imports.get(&index);
            let after = self.after.get(&index).map(Vec::as_slice).unwrap_or_default();
            // The aliases left, each with its index in the statement (`None`: added).
            let mut kept: Vec<(Option<usize>, Alias)> = import
                .aliases
                .iter()
                .enumerate()
                .filter(|(j, _)| !change.is_some_and(|c| c.dropped.contains(j)))
                .map(|(j, a)| (Some(j), a.clone()))
                .collect();
            for alias in change.map(|c| c.added.as_slice()).unwrap_or_default() {
                let names: Vec<&str> = kept.iter().map(|(_, a)| a.name.as_str()).collect();
                let position = sorted_position(&names, &alias.name).unwrap_or(kept.len());
                kept.insert(position, (None, alias.clone()));
            }
            let indent = file.py.indent_at(import.span.start).to_string();
            let mut lines = Vec::new();
            if !kept.is_empty() {
                let aliases: Vec<Alias> = kept.iter().map(|(_, a)| a.clone()).collect();
                let rendered =
                    edited_in_place(file, import, &kept).or_else(|| render_import(file, import, &aliases, &indent))?;
                lines.push(rendered);
            }
            lines.extend(after.iter().cloned());
            if lines.is_empty() {
                if import.sole && !import.direct {
                    return None;
                }
                cuts.push(whole_lines(text, import.span.clone())?);
            } else {
                splices.push((import.span.clone(), lines.join(&format!("\n{indent}"))));
            }
        }
        if !self.header.is_empty() {
            splices.extend(header_insertions(file, &self.header, is_project));
        }
        // Touching cuts go as one, so that one blank-line run goes with them.
        cuts.sort_by_key(|c| (c.start, c.end));
        let mut merged: Vec<Range<usize>> = Vec::new();
        for cut in cuts {
            match merged.last_mut() {
                Some(last) if last.end == cut.start => last.end = cut.end,
                _ => merged.push(cut),
            }
        }
        for cut in merged {
            splices.push((cut_with_blank_run(text, cut), String::new()));
        }
        splice(text, splices)
    }
}

/// The whole lines holding `span`, if nothing else shares them (a trailing comment may).
pub(crate) fn whole_lines(text: &str, span: Range<usize>) -> Option<Range<usize>> {
    let start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let end = text[span.end..].find('\n').map_or(text.len(), |i| span.end + i + 1);
    let rest = text[span.end..end].trim();
    (text[start..span.start].trim().is_empty() && (rest.is_empty() || rest.starts_with('#'))).then_some(start..end)
}

/// `text` with every splice applied; `None` if two overlap.
pub(crate) fn splice(text: &str, mut splices: Vec<(Range<usize>, String)>) -> Option<String> {
    splices.sort_by_key(|(range, _)| (range.start, range.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (range, replacement) in splices {
        if range.start < at {
            return None;
        }
        out.push_str(&text[at..range.start]);
        out.push_str(&replacement);
        at = range.end;
    }
    out.push_str(&text[at..]);
    Some(out)
}

/// Whether a line (without its newline) is blank.
fn blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// `lines` (whole lines) widened by the blank-line run before them when lines follow
/// them that start with a blank one (or nothing follows), so that the run after them
/// keeps separating what was around them; at the start of the file or of a block, by the
/// run after.
pub(crate) fn cut_with_blank_run(text: &str, lines: Range<usize>) -> Range<usize> {
    let mut start = lines.start;
    while start > 0 {
        let previous = text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
        if !blank(&text[previous..start]) {
            break;
        }
        start = previous;
    }
    let next_line = |at: usize| {
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
        (at < text.len()).then_some(end)
    };
    let follows_blank = match next_line(lines.end) {
        None => true,
        Some(end) => blank(&text[lines.end..end]),
    };
    if start < lines.start && follows_blank {
        return start..lines.end;
    }
    let previous = text[..lines.start].trim_end_matches(['\n', '\r']);
    let opens_block = start == lines.start && previous.lines().last().is_some_and(|l| l.trim_end().ends_with(':'));
    if lines.start == 0 || opens_block {
        let mut end = lines.end;
        while let Some(next) = next_line(end).filter(|next| blank(&text[end..*next])) {
            end = next;
        }
        return lines.start..end;
    }
    lines
}

/// isort's default order of imported names: constants, classes, then the rest, each
/// case-insensitively.
fn by_type(name: &str) -> (u8, String, String) {
    let kind = if name.len() > 1 && name.chars().all(|c| !c.is_lowercase()) {
        0
    } else if name.starts_with(|c: char| c.is_uppercase()) {
        1
    } else {
        2
    };
    (kind, name.to_lowercase(), name.to_string())
}

/// An order of names, as a sort key.
type SortKey = fn(&str) -> (u8, String, String);

/// Inserts `alias` where the list's order puts it (isort's, plain or case-insensitive,
/// whichever the list follows), else at the end.
pub(crate) fn insert_sorted(list: &mut Vec<Alias>, alias: Alias) {
    let position = sorted_position(&list.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(), &alias.name);
    list.insert(position.unwrap_or(list.len()), alias);
}

/// Where `name` goes in `names` if they are sorted by one of the usual orders.
pub(crate) fn sorted_position(names: &[&str], name: &str) -> Option<usize> {
    let keys: [SortKey; 3] = [
        by_type,
        |n: &str| (0, n.to_string(), String::new()),
        |n: &str| (0, n.to_lowercase(), n.to_string()),
    ];
    keys.iter().find_map(|key| {
        let sorted = names.windows(2).all(|w| key(w[0]) <= key(w[1]));
        sorted.then(|| names.partition_point(|n| key(n) < key(name)))
    })
}

/// An import statement edited in place: dropped names cut with the separator after them
/// (the one before, for the last), added ones written before the name they sort before
/// (else after the last) with the statement's separator; `None` when no name of the
/// original is left or a line would grow past the statement's widest (at least 79).
fn edited_in_place(file: &File, import: &Import, kept: &[(Option<usize>, Alias)]) -> Option<String> {
    let text = &file.py.text;
    let range = |j: usize| import.ranges[j].clone();
    let count = import.aliases.len();
    let remaining: Vec<usize> = kept.iter().filter_map(|(j, _)| *j).collect();
    let &last_kept = remaining.last()?;
    let mut splices = Vec::new();
    // Runs of dropped names before the last kept one: each goes with the separator after
    // it, or with the one before it when only the one after breaks the line.
    let mut j = 0;
    while j < last_kept {
        if remaining.contains(&j) {
            j += 1;
            continue;
        }
        let first = j;
        while !remaining.contains(&(j + 1)) {
            j += 1;
        }
        let breaks = |from: usize, to: usize| text[range(from).end..range(to).start].contains('\n');
        if first > 0 && breaks(j, j + 1) && !breaks(first - 1, first) {
            splices.push((range(first - 1).end..range(j).end, String::new()));
        } else {
            splices.push((range(first).start..range(j + 1).start, String::new()));
        }
        j += 1;
    }
    if last_kept + 1 < count {
        splices.push((range(last_kept).end..range(count - 1).end, String::new()));
    }
    let line_indent = |at: usize| file.py.indent_at(at).to_string();
    let one_a_line = (1..count).all(|j| text[range(j - 1).end..range(j).start].contains('\n'));
    let separator = match count {
        1 if text[import.span.clone()].contains('\n') => format!(",\n{}", line_indent(range(0).start)),
        1 => ", ".to_string(),
        _ if one_a_line => format!(",\n{}", line_indent(range(1).start)),
        _ => ", ".to_string(),
    };
    for (position, (original, alias)) in kept.iter().enumerate() {
        if original.is_some() {
            continue;
        }
        let next = kept[position + 1..].iter().find_map(|(j, _)| *j);
        splices.push(match next {
            Some(j) => (range(j).start..range(j).start, format!("{}{separator}", alias.text())),
            None => (range(last_kept).end..range(last_kept).end, format!("{separator}{}", alias.text())),
        });
    }
    let base = import.span.start;
    let local = splices.into_iter().map(|(r, t)| (r.start - base..r.end - base, t)).collect();
    let original = &text[import.span.clone()];
    let edited = splice(original, local)?;
    let widest = |t: &str| t.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    let first_line = text[..base].rfind('\n').map_or(0, |i| i + 1);
    let lead = text[first_line..base].chars().count();
    (widest(&edited) + lead <= (widest(original) + lead).max(MAX_LINE)).then_some(edited)
}

/// An import statement with `aliases`, in the layout of the original: one name a line
/// (comments kept) when it was so, else one line, or one name a line when too long.
fn render_import(file: &File, import: &Import, aliases: &[Alias], indent: &str) -> Option<String> {
    let original = &file.py.text[import.span.clone()];
    let Some(module) = &import.from else {
        if original.contains('#') || original.contains('\n') {
            return None;
        }
        return Some(format!("import {}", aliases.iter().map(Alias::text).collect::<Vec<_>>().join(", ")));
    };
    if let Some(layout) = one_a_line(original, &import.aliases) {
        let mut out = format!("from {module} import (\n");
        for (i, alias) in aliases.iter().enumerate() {
            let comma = if i + 1 < aliases.len() || layout.trailing_comma { "," } else { "" };
            let comment = layout.comments.iter().find(|(name, _)| *name == alias.text()).map(|(_, c)| c.as_str());
            out.push_str(&format!("{}{}{comma}{}\n", layout.indent, alias.text(), comment.unwrap_or_default()));
        }
        out.push_str(&layout.closing);
        return Some(out);
    }
    if original.contains('#') {
        return None;
    }
    let line = format!("from {module} import {}", aliases.iter().map(Alias::text).collect::<Vec<_>>().join(", "));
    let original_width = if original.contains('\n') { 0 } else { indent.len() + original.len() };
    if indent.len() + line.len() <= MAX_LINE.max(original_width) {
        return Some(line);
    }
    let mut out = format!("from {module} import (\n");
    for alias in aliases {
        out.push_str(&format!("{indent}    {},\n", alias.text()));
    }
    out.push_str(&format!("{indent})"));
    Some(out)
}

/// A parenthesised import written one name a line.
struct OneALine {
    indent: String,
    trailing_comma: bool,
    /// Alias text → the comment after it on its line (with the spaces before it).
    comments: Vec<(String, String)>,
    /// The closing line (`)` and what precedes it on its line).
    closing: String,
}

fn one_a_line(original: &str, aliases: &[Alias]) -> Option<OneALine> {
    let lines: Vec<&str> = original.split('\n').collect();
    let first = lines.first()?;
    if lines.len() < 3 || !first.trim_end().ends_with('(') {
        return None;
    }
    let closing = lines.last()?;
    if closing.trim() != ")" {
        return None;
    }
    let middle = &lines[1..lines.len() - 1];
    if middle.len() != aliases.len() {
        return None;
    }
    let mut comments = Vec::new();
    let mut trailing_comma = false;
    for (line, alias) in middle.iter().zip(aliases) {
        let (code, comment) = match line.find('#') {
            Some(i) => (&line[..i], &line[i..]),
            None => (*line, ""),
        };
        let code_trimmed = code.trim_end();
        trailing_comma = code_trimmed.ends_with(',');
        let words: Vec<&str> = code_trimmed.trim_end_matches(',').split_whitespace().collect();
        if words.join(" ") != alias.text() {
            return None;
        }
        if !comment.is_empty() {
            comments.push((alias.text(), format!("{}{comment}", &code[code_trimmed.len()..])));
        }
    }
    let first_alias = middle[0];
    let indent = first_alias[..first_alias.len() - first_alias.trim_start().len()].to_string();
    Some(OneALine { indent, trailing_comma, comments, closing: closing.to_string() })
}

/// The sort key of an import statement: its module, lower-cased.
fn import_key(import: &Import) -> String {
    match &import.from {
        Some(module) => module.to_lowercase(),
        None => import.aliases.first().map(|a| a.name.to_lowercase()).unwrap_or_default(),
    }
}

fn new_import_key(import: &NewImport) -> String {
    match &import.from {
        Some(module) => module.to_lowercase(),
        None => import.aliases.first().map(|a| a.name.to_lowercase()).unwrap_or_default(),
    }
}

/// A new import statement's text.
fn new_import_text(import: &NewImport) -> String {
    match &import.from {
        None => format!("import {}", import.aliases[0].text()),
        Some(module) => {
            let mut aliases = Vec::new();
            for alias in &import.aliases {
                insert_sorted(&mut aliases, alias.clone());
            }
            let names: Vec<String> = aliases.iter().map(Alias::text).collect();
            let line = format!("from {module} import {}", names.join(", "));
            if line.len() <= MAX_LINE {
                return line;
            }
            let body: String = names.iter().map(|n| format!("    {n},\n")).collect();
            format!("from {module} import (\n{body})")
        }
    }
}

/// Where the header's new imports go: among the header's imports of their group
/// (standard and third-party, or the project's) and kind (`import`, `from`), in module
/// order when those are in order, else after them; a group's first import of a kind
/// after the other kind's plain imports (before its `from` ones); a project import in a
/// header without any opens a group after it, others go before the project group. With
/// no import at all: after the docstring, else after a header comment, else before the
/// first statement.
fn header_insertions(
    file: &File,
    new: &[NewImport],
    is_project: &dyn Fn(&Import) -> bool,
) -> Vec<(Range<usize>, String)> {
    let py = &file.py;
    let text = &py.text;
    let first_def = py
        .suite
        .iter()
        .position(|s| {
            matches!(s, ast::Stmt::FunctionDef(_) | ast::Stmt::AsyncFunctionDef(_) | ast::Stmt::ClassDef(_))
        })
        .unwrap_or(py.suite.len());
    let header: Vec<&Import> = file
        .imports
        .iter()
        .filter(|i| i.direct && py.suite[..first_def].iter().any(|s| PyModule::span(s) == i.span))
        .collect();
    let line_end = |i: &Import| text[i.span.end..].find('\n').map_or(text.len(), |n| i.span.end + n + 1);
    let line_start = |at: usize| text[..at].rfind('\n').map_or(0, |n| n + 1);
    let block = |imports: &[&NewImport]| -> String {
        imports.iter().map(|i| format!("{}\n", new_import_text(i))).collect()
    };
    let others: Vec<&NewImport> = new.iter().filter(|n| !n.project).collect();
    let projects: Vec<&NewImport> = new.iter().filter(|n| n.project).collect();
    if let Some(last) = header.last() {
        let first_project = header.iter().find(|i| is_project(i));
        // Offset → (lines, blank line before them, blank line after them).
        let mut blocks: BTreeMap<usize, (String, bool, bool)> = BTreeMap::new();
        for import in others.iter().chain(&projects) {
            let group: Vec<&&Import> = header.iter().filter(|i| is_project(i) == import.project).collect();
            let kind: Vec<&&Import> =
                group.iter().copied().filter(|i| i.from.is_none() == import.from.is_none()).collect();
            let key = new_import_key(import);
            let (at, before, after) = if let Some(last_of_kind) = kind.last() {
                let keys: Vec<String> = kind.iter().map(|i| import_key(i)).collect();
                let sorted = keys.windows(2).all(|w| w[0] <= w[1]);
                match kind.iter().zip(&keys).find(|(_, k)| **k > key).filter(|_| sorted) {
                    Some((next, _)) => (line_start(next.span.start), false, false),
                    None => (line_end(last_of_kind), false, false),
                }
            } else if let (Some(first), Some(last_of_group)) = (group.first(), group.last()) {
                // Plain imports before the group's `from` imports, `from` ones after its plain ones.
                match import.from {
                    None => (line_start(first.span.start), false, false),
                    Some(_) => (line_end(last_of_group), false, false),
                }
            } else if import.project {
                (line_end(last), true, false)
            } else {
                match first_project {
                    Some(project) => (line_start(project.span.start), false, true),
                    None => (line_end(last), false, false),
                }
            };
            let entry = blocks.entry(at).or_default();
            entry.0.push_str(&format!("{}\n", new_import_text(import)));
            entry.1 |= before;
            entry.2 |= after;
        }
        return blocks
            .into_iter()
            .map(|(at, (lines, before, after))| {
                let before = if before { "\n" } else { "" };
                let after = if after { "\n" } else { "" };
                (at..at, format!("{before}{lines}{after}"))
            })
            .collect();
    }
    let mut out = Vec::new();
    let mut lines = block(&others);
    if !others.is_empty() && !projects.is_empty() {
        lines.push('\n');
    }
    lines.push_str(&block(&projects));
    let docstring = py.suite.first().filter(|s| is_docstring(s));
    match docstring {
        Some(doc) => {
            let at = text[PyModule::span(doc).end..].find('\n').map_or(text.len(), |n| PyModule::span(doc).end + n + 1);
            let next_blank = text[at..].lines().next().is_none_or(blank);
            let tail = if next_blank { "" } else { "\n" };
            out.push((at..at, format!("\n{lines}{tail}")));
        }
        None => {
            let first = py.suite.first();
            let at = first.map_or(0, |s| line_start(PyModule::span(s).start));
            // After a header comment, before the blank lines that end it (a cut of the
            // first statement may take those).
            let mut above = at;
            while above > 0 {
                let previous = line_start(above - 1);
                if !blank(&text[previous..above]) {
                    break;
                }
                above = previous;
            }
            if above > 0 && above < at {
                out.push((above..above, format!("\n{lines}")));
                return out;
            }
            let gap = match first {
                Some(ast::Stmt::FunctionDef(_) | ast::Stmt::AsyncFunctionDef(_) | ast::Stmt::ClassDef(_)) => "\n\n",
                Some(_) => "\n",
                None => "",
            };
            out.push((at..at, format!("{lines}{gap}")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intent::move_def::index::Target;

    fn alias(name: &str) -> Alias {
        Alias { name: name.into(), asname: None, target: Target::Unknown, dotted: None }
    }

    #[test]
    fn a_cut_takes_the_blank_run_before_it_when_one_follows() {
        let text = "a = 1\n\n\ndef f():\n    pass\n\n\ndef g():\n    pass\n";
        let f = text.find("def f").unwrap()..text.find("\n\n\ndef g").unwrap() + 1;
        let cut = cut_with_blank_run(text, f);
        assert_eq!(format!("{}{}", &text[..cut.start], &text[cut.end..]), "a = 1\n\n\ndef g():\n    pass\n");
        let last = text.find("def g").unwrap()..text.len();
        let cut = cut_with_blank_run(text, last);
        assert_eq!(&text[..cut.start], "a = 1\n\n\ndef f():\n    pass\n");
        let paragraph = "import a\n\nimport b\nimport c\n";
        let b = paragraph.find("import b").unwrap()..paragraph.find("import c").unwrap();
        assert_eq!(cut_with_blank_run(paragraph, b.clone()), b);
    }

    #[test]
    fn names_go_where_the_order_puts_them() {
        assert_eq!(sorted_position(&["Item", "ItemError", "check_digit", "normalize_sku"], "SKU_MAX"), Some(0));
        assert_eq!(sorted_position(&["Item", "ItemError", "check_digit", "normalize_sku"], "divide"), Some(3));
        assert_eq!(sorted_position(&["b", "a"], "c"), None);
        let mut list = vec![alias("chain"), alias("islice")];
        insert_sorted(&mut list, alias("cycle"));
        assert_eq!(list.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(), ["chain", "cycle", "islice"]);
    }

    #[test]
    fn a_one_name_a_line_import_keeps_its_layout_and_comments() {
        let original = "from m import (\n    a,  # first\n    b,\n)";
        let layout = one_a_line(original, &[alias("a"), alias("b")]).unwrap();
        assert!(layout.trailing_comma);
        assert_eq!(layout.comments, [("a".to_string(), "  # first".to_string())]);
        assert!(one_a_line("from m import (a,\n    b)", &[alias("a"), alias("b")]).is_none());
    }
}
