//! Near-duplicate detection: two tasks whose conflict hunks are equal after normalising
//! whitespace and identifiers are the same exercise, and a dataset keeps only one.
//!
//! The fingerprint of a task is the sha256 of its hunks (ours, base and theirs text of
//! every hunk of every conflicted file, in path order) as tokens: whitespace and
//! comments dropped, each identifier replaced by `$n`, numbered by first appearance
//! across the whole task (so `a < b` and `x < y` match, `a < a` and `a < b` do not).
//! Keywords, literals and operators stay as written. A file without markers (a
//! semantic task's) counts by its whole text, the same way.

use crate::resolve::segments;
use crate::snapshot::sha256_hex;

/// Python keywords (and the constants written like identifiers), kept verbatim.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

/// The fingerprint of a task from the conflicted text of its conflicted files (in any
/// order: they are sorted by path first).
pub(crate) fn fingerprint<'a>(conflicted_files: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut files: Vec<(&str, &str)> = conflicted_files.into_iter().collect();
    files.sort();
    let mut names: Vec<String> = Vec::new();
    let mut out = String::new();
    for (_, text) in files {
        out.push_str("\u{1}file");
        let hunks: Vec<_> = segments(text).into_iter().filter_map(|s| s.hunk).collect();
        let sides: Vec<&str> = match hunks.is_empty() {
            // A file without markers (a semantic task's): the file is the exercise, or
            // every semantic task with as many files would share one fingerprint.
            true => vec![text],
            false => hunks.iter().flat_map(|hunk| [hunk.ours.as_str(), &hunk.base, &hunk.theirs]).collect(),
        };
        for side in sides {
            out.push_str("\u{1}side");
            for token in tokens(side) {
                out.push(' ');
                out.push_str(&normalise(token, &mut names));
            }
        }
    }
    sha256_hex(out.as_bytes())
}

fn normalise(token: &str, names: &mut Vec<String>) -> String {
    let is_name = token.starts_with(|c: char| c == '_' || c.is_alphabetic()) && !KEYWORDS.contains(&token);
    if !is_name {
        return token.to_string();
    }
    let index = names.iter().position(|n| n == token).unwrap_or_else(|| {
        names.push(token.to_string());
        names.len() - 1
    });
    format!("${index}")
}

/// Python-ish tokens: names, numbers, string literals, and single punctuation characters;
/// whitespace and comments are dropped.
pub(crate) fn tokens(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'#' {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'"' || c == b'\'' {
            i = string_end(bytes, i);
        } else if c == b'_' || c.is_ascii_alphanumeric() || c >= 0x80 {
            while i < bytes.len()
                && (bytes[i] == b'_'
                    || bytes[i].is_ascii_alphanumeric()
                    || bytes[i] >= 0x80
                    || bytes[i] == b'.' && c.is_ascii_digit())
            {
                i += 1;
            }
        } else {
            i += 1;
            while i < bytes.len() && !text.is_char_boundary(i) {
                i += 1;
            }
        }
        out.push(&text[start..i]);
    }
    out
}

/// The end of a string literal starting at `start` (single or triple quoted; unterminated
/// runs to the end of the line).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let quote = bytes[start];
    let triple = bytes.len() >= start + 3 && bytes[start + 1] == quote && bytes[start + 2] == quote;
    let mut i = start + if triple { 3 } else { 1 };
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b if b == quote && !triple => return i + 1,
            b if b == quote && bytes.len() >= i + 3 && bytes[i + 1] == quote && bytes[i + 2] == quote => return i + 3,
            b'\n' if !triple => return i,
            _ => i += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conflict(ours: &str, base: &str, theirs: &str) -> String {
        format!("x = 1\n<<<<<<< ours\n{ours}||||||| base\n{base}=======\n{theirs}>>>>>>> theirs\n")
    }

    #[test]
    fn whitespace_and_names_do_not_matter() {
        let a = conflict("    if a < b:\n", "    if a <= b:\n", "    if a > b:\n");
        let b = conflict("if  x<y :  # why\n", "if x <= y:\n", "if x > y:\n");
        assert_eq!(fingerprint([("f.py", a.as_str())]), fingerprint([("g.py", b.as_str())]));
    }

    #[test]
    fn semantic_tasks_count_by_their_files() {
        // Two clean merges (no markers) of one file, breaking different calls: not alike.
        let one = "def f(a, b):\n    return a - b\n\n\ndef g():\n    return f(1, 2)\n";
        let two = "def f(a, b):\n    return a - b\n\n\ndef h():\n    return f(2, 1) * 3\n";
        assert_ne!(fingerprint([("m.py", one)]), fingerprint([("m.py", two)]));
        // The same file under other names is the same exercise.
        let renamed = one.replace("f(", "k(");
        assert_eq!(fingerprint([("m.py", one)]), fingerprint([("n.py", renamed.as_str())]));
    }

    #[test]
    fn structure_literals_and_keywords_do() {
        let base = conflict("if a < b:\n", "if a <= b:\n", "if a > b:\n");
        let same_name = conflict("if a < a:\n", "if a <= a:\n", "if a > a:\n");
        let literal = conflict("if a < 'b':\n", "if a <= 'b':\n", "if a > 'b':\n");
        let keyword = conflict("while a < b:\n", "while a <= b:\n", "while a > b:\n");
        let fp = |t: &String| fingerprint([("f.py", t.as_str())]);
        for other in [&same_name, &literal, &keyword] {
            assert_ne!(fp(&base), fp(other));
        }
    }

    #[test]
    fn tokens_split_python() {
        assert_eq!(
            tokens("x1 = f(a.b, 'c d', 1.5)  # c\n"),
            ["x1", "=", "f", "(", "a", ".", "b", ",", "'c d'", ",", "1.5", ")"]
        );
    }
}
