//! What taking an option out does to its function's docstring: its parameter entry, its
//! examples and the version notes quoting it go.

use super::super::callers::Edit;
use super::super::signature::{block_end, entry_name, indent, Def};
use crate::python::PyModule;

/// The edits taking out of the docstring what is about the option: its entries in the
/// parameter list, the examples starting at `examples` (with their continuation and
/// output lines), and the lines of a version note quoting it (`.. versionchanged::` with
/// "Added `strict` option.": the note too when nothing else is left in it). `None` when
/// other prose quotes the name (`` `strict` ``, `*strict*`: the text would describe a
/// parameter that is not there) or a section would be left with a header alone.
pub(super) fn docstring_edit(module: &PyModule, def: &Def, name: &str, examples: &[usize]) -> Option<Vec<Edit>> {
    let Some(doc) = def.docstring() else { return examples.is_empty().then(Vec::new) };
    let text = &module.text;
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut start = doc.start;
    for line in text[doc.clone()].split_inclusive('\n') {
        lines.push((start, line));
        start += line.len();
    }
    let mut gone = vec![false; lines.len()];
    let mut i = 1;
    while i < lines.len() {
        if entry_name(lines[i].1) == Some(name) {
            let end = block_end(&lines, i, name);
            if end >= lines.len() {
                return None;
            }
            gone[i..end].iter_mut().for_each(|g| *g = true);
            i = end;
        } else {
            i += 1;
        }
    }
    for &at in examples {
        let first = lines.iter().rposition(|(offset, _)| *offset <= at)?;
        let end = example_end(&lines, first);
        gone[first..end].iter_mut().for_each(|g| *g = true);
    }
    let quotes = [format!("`{name}`"), format!("*{name}*")];
    let quoting = |line: &str| quotes.iter().any(|q| line.contains(q.as_str()));
    for i in 1..lines.len() {
        if gone[i] || !quoting(lines[i].1) {
            continue;
        }
        let note = version_note(&lines, i)?;
        gone[i] = true;
        let body = note + 1..block_end_by_indent(&lines, note);
        if body.clone().all(|j| gone[j]) {
            gone[note] = true;
            // The blank line that set the note apart goes with it.
            if note > 0 && lines[note - 1].1.trim().is_empty() {
                gone[note - 1] = true;
            }
        }
    }
    if leaves_a_bare_header(&lines, &gone) {
        return None;
    }
    let mut edits = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if gone[i] {
            let run = (i..lines.len()).take_while(|&j| gone[j]).count();
            let end = lines.get(i + run).map_or(doc.end, |l| l.0);
            edits.push(Edit::new(lines[i].0..end, ""));
            i += run;
        } else {
            i += 1;
        }
    }
    Some(edits)
}

/// The index of the first line after the doctest example opening at `lines[first]`:
/// its `...` lines and its output, up to a blank line, the next `>>>` or the docstring's
/// last line.
fn example_end(lines: &[(usize, &str)], first: usize) -> usize {
    let mut end = first + 1;
    while end + 1 < lines.len() {
        let line = lines[end].1.trim();
        if line.is_empty() || line.starts_with(">>>") {
            break;
        }
        end += 1;
    }
    end
}

/// The index of the `.. versionadded::`/`.. versionchanged::` line whose note holds
/// `lines[at]` (a line indented under it); `None` when the line is no such note's.
fn version_note(lines: &[(usize, &str)], at: usize) -> Option<usize> {
    let own = indent(lines[at].1);
    let opener = (0..at).rev().find(|&j| !lines[j].1.trim().is_empty() && indent(lines[j].1) < own)?;
    let trimmed = lines[opener].1.trim_start();
    (trimmed.starts_with(".. versionadded::") || trimmed.starts_with(".. versionchanged::")).then_some(opener)
}

/// The index of the first line after the block opened at `lines[at]`: its lines
/// indented deeper.
fn block_end_by_indent(lines: &[(usize, &str)], at: usize) -> usize {
    let own = indent(lines[at].1);
    let mut end = at + 1;
    while end < lines.len() && !lines[end].1.trim().is_empty() && indent(lines[end].1) > own {
        end += 1;
    }
    end
}

/// Whether taking out the lines `gone` leaves a section header (`Args:`, `Example:`)
/// with nothing under it.
fn leaves_a_bare_header(lines: &[(usize, &str)], gone: &[bool]) -> bool {
    (0..lines.len()).any(|i| {
        let header = lines[i].1.trim();
        if gone[i] || !(header.len() > 1 && header.ends_with(':') && !header.contains(' ')) {
            return false;
        }
        let own = indent(lines[i].1);
        let body: Vec<usize> = (i + 1..lines.len())
            .take_while(|&j| lines[j].1.trim().is_empty() || indent(lines[j].1) > own)
            .filter(|&j| !lines[j].1.trim().is_empty())
            .collect();
        !body.is_empty() && body.iter().all(|&j| gone[j])
    })
}
