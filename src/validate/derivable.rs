//! The derivability check: gold must be something a developer could work out from the
//! two branches, not a value found nowhere.
//!
//! Every token (identifier, keyword, literal, operator) that gold has on a line neither
//! side has must appear in ours' or theirs' version of that file, or on a line one side
//! changes anywhere in the tree (its diff against base: a contract change's adapted
//! callers show how the other side's new calls are to be adapted; a changed file's
//! module path counts as written there). Strings compare by
//! their words (an f-string holding a renamed field is as derivable as the name), or
//! whole when they have none; numbers by their spelling; comments are not tokens. A file that does not lex is not checked (the tests judge it).
//!
//! History families are exempt: a real merge commit is what it is.

use std::collections::BTreeSet;

use rustpython_parser::lexer::lex;
use rustpython_parser::Mode;

use crate::snapshot::{self, Snapshot};

/// The first token of gold found nowhere it could be learnt from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Underivable {
    /// The gold file.
    pub(crate) path: String,
    /// Its 1-based line.
    pub(crate) line: usize,
    /// The token, as compared.
    pub(crate) token: String,
}

impl std::fmt::Display for Underivable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: `{}` is in no side's file or diff", self.path, self.line, self.token)
    }
}

/// The first token of `gold`'s new lines that neither side's version of its file nor
/// either side's diff against `base` holds (Python files only, in path order).
pub(crate) fn underivable(base: &Snapshot, ours: &Snapshot, theirs: &Snapshot, gold: &Snapshot) -> Option<Underivable> {
    let mut learnt: Option<BTreeSet<String>> = None;
    for path in gold.keys().filter(|p| p.ends_with(".py")) {
        let Some(text) = snapshot::text_of(gold, path) else { continue };
        let versions = [ours, theirs].map(|tree| snapshot::text_of(tree, path).unwrap_or_default());
        let novel = snapshot::new_lines(text, &versions);
        if !novel.contains(&true) {
            continue;
        }
        let Some(tokens) = line_tokens(text) else { continue };
        let new: Vec<&(usize, String)> = tokens.iter().filter(|(line, _)| on_new_line(&novel, *line)).collect();
        let here: BTreeSet<String> =
            versions.iter().filter_map(|v| line_tokens(v)).flatten().map(|(_, token)| token).collect();
        let learnt = learnt.get_or_insert_with(|| diff_tokens(base, ours).chain(diff_tokens(base, theirs)).collect());
        if let Some((line, token)) = new.into_iter().find(|(_, t)| !here.contains(t) && !learnt.contains(t)) {
            return Some(Underivable { path: path.clone(), line: *line, token: token.clone() });
        }
    }
    None
}

/// The tokens on the lines `side` changes against `base`: its lines base lacks and base's
/// lines it lacks, in every Python file.
fn diff_tokens<'a>(base: &'a Snapshot, side: &'a Snapshot) -> impl Iterator<Item = String> + 'a {
    let paths: BTreeSet<&String> = base.keys().chain(side.keys()).filter(|p| p.ends_with(".py")).collect();
    paths.into_iter().flat_map(move |path| {
        let [before, after] = [base, side].map(|tree| snapshot::text_of(tree, path).unwrap_or_default());
        let mut out = changed_tokens(after, before);
        out.extend(changed_tokens(before, after));
        // A changed file's module path is learnt too: a move's destination is named by
        // the file it lands in (`from main import clamp`).
        if before != after {
            out.extend(path.trim_end_matches(".py").split('/').map(str::to_string));
        }
        out
    })
}

/// The tokens of `text` on lines `other` does not have (trimmed).
fn changed_tokens(text: &str, other: &str) -> Vec<String> {
    if text == other {
        return Vec::new();
    }
    let novel = snapshot::new_lines(text, &[other]);
    line_tokens(text)
        .unwrap_or_default()
        .into_iter()
        .filter(|(line, _)| on_new_line(&novel, *line))
        .map(|(_, token)| token)
        .collect()
}

/// Whether the 1-based `line` is marked new (a token of a multi-line string starts on
/// its first line).
fn on_new_line(novel: &[bool], line: usize) -> bool {
    novel.get(line - 1).copied().unwrap_or(false)
}

/// Each token of `text` with the 1-based line it starts on, as compared: a string's
/// words (its whole contents when it has none), any other token's spelling; layout tokens (newlines, indents) and comments
/// left out. `None` when the text does not lex.
fn line_tokens(text: &str) -> Option<Vec<(usize, String)>> {
    let starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(at, _)| at + 1)).collect();
    let mut out = Vec::new();
    for item in lex(text, Mode::Module) {
        let (_, range) = item.ok()?;
        let (start, end) = (usize::from(range.start()), usize::from(range.end()));
        let spelling = text[start..end].trim();
        if spelling.is_empty() || spelling.starts_with('#') {
            continue;
        }
        let line = starts.partition_point(|&s| s <= start);
        match string_contents(spelling) {
            // A string by its words (an f-string's renamed field counts as the name),
            // or whole when it has none (`"~"`).
            Some(contents) => {
                let words: Vec<&str> =
                    contents.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
                match words.is_empty() {
                    true => out.push((line, contents.to_string())),
                    false => out.extend(words.into_iter().map(|word| (line, word.to_string()))),
                }
            }
            None => out.push((line, spelling.to_string())),
        }
    }
    Some(out)
}

/// A string literal's contents (prefix and quotes stripped); `None` for other tokens
/// (a name never starts with a quote once its letters are stripped: only a string's
/// prefix is letters before a quote).
fn string_contents(spelling: &str) -> Option<&str> {
    let body = spelling.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let quote = ["\"\"\"", "'''", "\"", "'"].into_iter().find(|q| body.starts_with(q) && body.len() >= 2 * q.len())?;
    Some(&body[quote.len()..body.len() - quote.len()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use std::sync::Arc;

    /// The files under `dir`, by path relative to it.
    fn tree(dir: &Path) -> Snapshot {
        std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.unwrap().path())
            .map(|path| {
                let name = path.file_name().unwrap().to_string_lossy().to_string();
                (name, Arc::from(std::fs::read(&path).unwrap()))
            })
            .collect()
    }

    /// Each folder of `tests/data/derivable/` holds `base/`, `ours/`, `theirs/` and
    /// `gold/` (flat trees) and `expected.txt`: `derivable`, or the finding as displayed.
    #[test]
    fn data_driven_cases() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/derivable");
        let mut cases: Vec<_> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).collect();
        cases.sort();
        assert!(cases.len() >= 5, "{} cases", cases.len());
        for case in cases {
            let [base, ours, theirs, gold] = ["base", "ours", "theirs", "gold"].map(|side| tree(&case.join(side)));
            let found = underivable(&base, &ours, &theirs, &gold).map_or("derivable".to_string(), |u| u.to_string());
            let expected = std::fs::read_to_string(case.join("expected.txt")).unwrap();
            assert_eq!(found, expected.trim_end(), "{}", case.display());
        }
    }

    #[test]
    fn tokens_keep_lines_and_compare_strings_by_contents() {
        let tokens = line_tokens("x = f(1, 'a')  # note\nif x:\n    y = rb\"z\"\n").unwrap();
        let words: Vec<(usize, &str)> = tokens.iter().map(|(l, t)| (*l, t.as_str())).collect();
        assert_eq!(
            words,
            vec![
                (1, "x"),
                (1, "="),
                (1, "f"),
                (1, "("),
                (1, "1"),
                (1, ","),
                (1, "a"),
                (1, ")"),
                (2, "if"),
                (2, "x"),
                (2, ":"),
                (3, "y"),
                (3, "="),
                (3, "z"),
            ]
        );
        assert_eq!(string_contents("'''doc'''"), Some("doc"));
        assert_eq!(string_contents("name"), None);
        assert!(line_tokens("x = 'unterminated\n").is_none());
    }
}
