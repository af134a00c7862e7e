//! Token-level comparison of two versions of a Python file, by libgit2's diff and
//! three-way merge run on one token a line (as the `tokens` rung does): which names one
//! version replaced one for one ([`replaced_names`]), and whether one change is part of
//! another ([`is_part_of`]). Only code tokens count: whitespace, newlines, indentation
//! and comments are left out, so a reflowed line compares equal.

use rustpython_parser::lexer::lex;
use rustpython_parser::{Mode, Tok};

use crate::resolve::tokens::escape;

/// One code token of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    /// Its text (a name, an operator, a whole string literal).
    pub(crate) text: String,
    /// Whether it is an identifier.
    pub(crate) name: bool,
    /// Its byte offset in the file.
    pub(crate) at: usize,
}

/// The file's code tokens, `None` if it does not lex.
pub(crate) fn code_tokens(text: &str) -> Option<Vec<Token>> {
    let mut out = Vec::new();
    for item in lex(text, Mode::Module) {
        let (tok, range) = item.ok()?;
        let skip = matches!(
            tok,
            Tok::Newline | Tok::Indent | Tok::Dedent | Tok::EndOfFile
        );
        if skip {
            continue;
        }
        let (start, end) = (usize::from(range.start()), usize::from(range.end()));
        out.push(Token { text: text[start..end].to_string(), name: matches!(tok, Tok::Name { .. }), at: start });
    }
    Some(out)
}

/// The tokens one a line (escaped so a token never spans lines).
fn as_lines(tokens: &[Token]) -> String {
    tokens.iter().map(|t| escape(&t.text) + "\n").collect()
}

/// A name of `before` that `after` spells differently at the same place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replaced {
    /// Index of the token in `before`'s tokens.
    pub(crate) index: usize,
    /// Its byte offset in `before`.
    pub(crate) at: usize,
    pub(crate) old: String,
    pub(crate) new: String,
}

/// The names `after` replaced one for one: in each changed stretch of tokens of equal
/// length on both sides, every position where a name became another name.
pub(crate) fn replaced_names(before: &[Token], after: &[Token]) -> Vec<Replaced> {
    let mut out = Vec::new();
    for (old_start, old_len, new_start, new_len) in changed_stretches(before, after) {
        if old_len != new_len {
            continue;
        }
        for k in 0..old_len {
            let (a, b) = (&before[old_start + k], &after[new_start + k]);
            if a.name && b.name && a.text != b.text {
                out.push(Replaced { index: old_start + k, at: a.at, old: a.text.clone(), new: b.text.clone() });
            }
        }
    }
    out
}

/// The stretches of tokens that differ between the two: (start in `before`, length,
/// start in `after`, length), 0-based.
fn changed_stretches(before: &[Token], after: &[Token]) -> Vec<(usize, usize, usize, usize)> {
    let (old, new) = (as_lines(before), as_lines(after));
    let mut options = git2::DiffOptions::new();
    options.context_lines(0).patience(true);
    let Ok(patch) = git2::Patch::from_buffers(old.as_bytes(), None, new.as_bytes(), None, Some(&mut options)) else {
        return Vec::new();
    };
    (0..patch.num_hunks())
        .filter_map(|h| patch.hunk(h).ok())
        .map(|(hunk, _)| {
            // A pure insertion or deletion reports the line before it (0 when at the start).
            let start = |at: u32, len: u32| if len == 0 { at as usize } else { at as usize - 1 };
            (
                start(hunk.old_start(), hunk.old_lines()),
                hunk.old_lines() as usize,
                start(hunk.new_start(), hunk.new_lines()),
                hunk.new_lines() as usize,
            )
        })
        .collect()
}

/// Whether every change from `base` to `part` is also a change from `base` to `whole`:
/// the token-level three-way merge of the two gives `whole`, where a stretch both
/// changed counts as `whole`'s when `part`'s tokens there are a subsequence of
/// `whole`'s (a rename next to an insertion of the same side).
pub(crate) fn is_part_of(base: &[Token], part: &[Token], whole: &[Token]) -> bool {
    fn input(text: &str) -> git2::MergeFileInput<'_> {
        let mut input = git2::MergeFileInput::new();
        input.content(text.as_bytes());
        input
    }
    let (base, part, whole) = (as_lines(base), as_lines(part), as_lines(whole));
    // git2's `merge_file` does not initialise libgit2 itself (a `Buf` does).
    drop(git2::Buf::new());
    let mut options = git2::MergeFileOptions::new();
    options.style_diff3(true);
    let Ok(merged) = git2::merge_file(&input(&base), &input(&part), &input(&whole), Some(&mut options)) else {
        return false;
    };
    let Ok(merged) = std::str::from_utf8(merged.content()) else { return false };
    let mut out = String::with_capacity(whole.len());
    for segment in crate::merge::markers::raw_segments(merged) {
        match &segment.hunk {
            None => out.push_str(&segment.raw),
            Some(hunk) if is_subsequence(&hunk.ours, &hunk.theirs) => out.push_str(&hunk.theirs),
            Some(_) => return false,
        }
    }
    out == whole
}

/// Whether the lines of `short` appear in `long` in order.
fn is_subsequence(short: &str, long: &str) -> bool {
    let mut long = long.lines();
    short.lines().all(|line| long.any(|l| l == line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_replaced_one_for_one() {
        let before = code_tokens("def f(x):\n    return g(x)  # x\n").unwrap();
        let after = code_tokens("def f(y):\n    return g(y) + 1\n").unwrap();
        let got: Vec<(String, String)> =
            replaced_names(&before, &after).into_iter().map(|r| (r.old, r.new)).collect();
        assert_eq!(got, [("x".into(), "y".into()), ("x".into(), "y".into())]);
    }

    #[test]
    fn a_change_is_part_of_a_larger_one() {
        let tokens = |t: &str| code_tokens(t).unwrap();
        let base = tokens("a = f(x)\nb = 2\n");
        let part = tokens("a = g(x)\nb = 2\n");
        let whole = tokens("a = g(x)\nb = 3\n");
        assert!(is_part_of(&base, &part, &whole));
        assert!(!is_part_of(&base, &tokens("a = h(x)\nb = 2\n"), &whole));
        assert!(is_part_of(&base, &base, &whole));
        let whole = tokens("a = g(x) + 1\nb = 2\n");
        assert!(is_part_of(&base, &part, &whole), "a rename beside an insertion");
    }
}
