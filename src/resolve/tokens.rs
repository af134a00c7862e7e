//! `tokens`: diff3 at token granularity, hunk by hunk. Each side of a hunk (base, ours,
//! theirs) is split into tokens, written one token per line, and the three are merged with
//! libgit2's three-way file merge; a clean merge, joined back, resolves the hunk, and a
//! hunk whose tokens still conflict keeps its markers.
//!
//! - **Tokens**: the rustpython lexer's, plus every run of whitespace (newlines included)
//!   and every comment as a token of its own, so joining the tokens gives the text back
//!   byte for byte (checked: a hunk that does not round-trip is left conflicted). A hunk
//!   is a fragment: it may be indented, or open a bracket it does not close. The text is
//!   lexed behind as many `(` as it has closing brackets plus one, so the lexer stays
//!   inside brackets throughout, where indentation and unbalanced brackets are not errors
//!   (the tokens are the same; only the newline kinds differ, and they are whitespace).
//! - **Fallback**: when one side still does not lex (a string opened in the hunk and
//!   closed outside it), all three sides use a plain tokenizer instead — runs of
//!   identifier characters, runs of digits, runs of whitespace, any other character alone
//!   — so the sides are always cut the same way.
//! - **Lines**: a token is escaped so it never spans lines (`\` → `\\`, newline → `\n`,
//!   carriage return → `\r`) and ends with a newline; the merged lines are unescaped and
//!   joined.

use std::ops::Range;
use std::sync::Once;

use rustpython_parser::lexer::{lex, LexicalErrorType};
use rustpython_parser::Mode;

use super::resolver::{Hunk, RecordKey, Resolver, Rung};

/// The token-level diff3 resolver.
pub(crate) struct Tokens;

impl Resolver for Tokens {
    fn name(&self) -> &'static str {
        "tokens"
    }
    fn description(&self) -> &'static str {
        "Every conflict hunk merged token by token: diff3 (libgit2) on the three sides' Python tokens, whitespace and comments included, one token a line; a hunk whose tokens still conflict is left conflicted."
    }
    fn rung(&self) -> Rung {
        Rung::Medium
    }
    fn record_key(&self) -> RecordKey {
        RecordKey::Own("tokens")
    }
    fn agent(&self) -> Option<&'static str> {
        Some("tokens")
    }
    fn available(&self) -> bool {
        true
    }
    fn resolve_hunk(&self, hunk: &Hunk) -> Option<String> {
        merge_hunk(hunk)
    }
}

/// The hunk's sides merged token by token, `None` if a token still conflicts.
pub(crate) fn merge_hunk(hunk: &Hunk) -> Option<String> {
    let [base, ours, theirs] = tokenize_sides([&hunk.base, &hunk.ours, &hunk.theirs])?.map(|tokens| to_lines(&tokens));
    from_lines(&merge_lines(&base, &ours, &theirs)?)
}

/// The three texts' tokens: the lexer's when all three lex, else the plain tokenizer's.
/// `None` if some side's tokens do not join back to its text.
fn tokenize_sides(texts: [&str; 3]) -> Option<[Vec<&str>; 3]> {
    let tokens = match texts.map(lexer_tokens) {
        [Some(base), Some(ours), Some(theirs)] => [base, ours, theirs],
        _ => texts.map(plain_tokens),
    };
    texts.iter().zip(&tokens).all(|(text, tokens)| tokens.concat() == *text).then_some(tokens)
}

/// The text cut at the rustpython lexer's token boundaries, whitespace runs and comments
/// as tokens of their own; `None` if it does not lex.
pub(crate) fn lexer_tokens(text: &str) -> Option<Vec<&str>> {
    let closers = text.chars().filter(|c| matches!(c, ')' | ']' | '}')).count();
    let prefix = closers + 1;
    let source = format!("{}{text}", "(".repeat(prefix));
    let mut spans = Vec::new();
    for item in lex(&source, Mode::Module) {
        match item {
            Ok((_, range)) => {
                let (start, end) = (usize::from(range.start()), usize::from(range.end()));
                if start >= prefix && end > start {
                    spans.push(start - prefix..end - prefix);
                }
            }
            // The brackets of the prefix are never closed: the end of the text is reached
            // inside them.
            Err(e) if matches!(e.error, LexicalErrorType::Eof) && usize::from(e.location) == source.len() => break,
            Err(_) => return None,
        }
    }
    let mut pieces = Vec::new();
    let mut at = 0;
    for span in spans {
        if span.start < at {
            return None;
        }
        pieces.extend(skipped(text, at..span.start)?);
        at = span.end;
        pieces.push(span);
    }
    pieces.extend(skipped(text, at..text.len())?);
    Some(joined_whitespace(text, pieces))
}

/// What the lexer skipped between two tokens, cut into whitespace runs, comments and
/// line-continuation backslashes; `None` if anything else is there (the lexer stopped
/// short, e.g. at an unterminated string).
fn skipped(text: &str, range: Range<usize>) -> Option<Vec<Range<usize>>> {
    let gap = &text[range.clone()];
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(c) = gap[at..].chars().next() {
        let len = match c {
            '#' => gap[at..].find(['\n', '\r']).unwrap_or(gap.len() - at),
            '\\' => 1,
            c if is_space(c) => run_len(&gap[at..], is_space),
            _ => return None,
        };
        out.push(range.start + at..range.start + at + len);
        at += len;
    }
    Some(out)
}

/// The text cut into runs of identifier characters, runs of digits, runs of whitespace
/// and single other characters.
pub(crate) fn plain_tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(c) = text[at..].chars().next() {
        let rest = &text[at..];
        let len = if is_space(c) {
            run_len(rest, is_space)
        } else if c.is_alphabetic() || c == '_' {
            run_len(rest, |c| c.is_alphanumeric() || c == '_')
        } else if c.is_ascii_digit() {
            run_len(rest, |c| c.is_ascii_digit())
        } else {
            c.len_utf8()
        };
        out.push(&text[at..at + len]);
        at += len;
    }
    out
}

/// Python's whitespace (newlines included).
fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c')
}

/// The byte length of the longest prefix of `text` whose characters satisfy `keep`.
fn run_len(text: &str, keep: impl Fn(char) -> bool) -> usize {
    text.find(|c| !keep(c)).unwrap_or(text.len())
}

/// The pieces as slices of `text`, adjacent whitespace pieces made one.
fn joined_whitespace(text: &str, pieces: Vec<Range<usize>>) -> Vec<&str> {
    let blank = |r: &Range<usize>| text[r.clone()].chars().all(is_space);
    let mut out: Vec<Range<usize>> = Vec::with_capacity(pieces.len());
    for piece in pieces {
        match out.last_mut() {
            Some(last) if last.end == piece.start && blank(last) && blank(&piece) => last.end = piece.end,
            _ => out.push(piece),
        }
    }
    out.into_iter().map(|r| &text[r]).collect()
}

/// One token a line, escaped.
fn to_lines(tokens: &[&str]) -> String {
    tokens.iter().map(|token| escape(token) + "\n").collect()
}

/// The tokens of merged lines, unescaped and joined; `None` on a malformed escape.
fn from_lines(lines: &str) -> Option<String> {
    lines.lines().map(unescape).collect()
}

/// The token with `\`, newline and carriage return escaped.
pub(crate) fn escape(token: &str) -> String {
    let mut out = String::with_capacity(token.len());
    for c in token.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

/// The inverse of [`escape`]; `None` on an escape it never writes.
pub(crate) fn unescape(line: &str) -> Option<String> {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        out.push(match c {
            '\\' => match chars.next()? {
                '\\' => '\\',
                'n' => '\n',
                'r' => '\r',
                _ => return None,
            },
            c => c,
        });
    }
    Some(out)
}

/// libgit2's three-way merge of three texts; `None` if it conflicts.
fn merge_lines(base: &str, ours: &str, theirs: &str) -> Option<String> {
    static INIT: Once = Once::new();
    // git2::merge_file does not initialise libgit2 itself; building a config does.
    INIT.call_once(|| drop(git2::Config::new()));
    fn input(text: &str) -> git2::MergeFileInput<'_> {
        let mut input = git2::MergeFileInput::new();
        input.content(text.as_bytes());
        input
    }
    let merged = git2::merge_file(&input(base), &input(ours), &input(theirs), None).ok()?;
    if !merged.is_automergeable() {
        return None;
    }
    String::from_utf8(merged.content().to_vec()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hunk(ours: &str, base: &str, theirs: &str) -> Hunk {
        Hunk { ours: ours.into(), base: base.into(), theirs: theirs.into() }
    }

    #[test]
    fn lexer_tokens_keep_whitespace_and_comments_apart() {
        let text = "    x = f(a,  b)  # note\n\n    return '''a\nb'''\n";
        assert_eq!(
            lexer_tokens(text).unwrap(),
            [
                "    ",
                "x",
                " ",
                "=",
                " ",
                "f",
                "(",
                "a",
                ",",
                "  ",
                "b",
                ")",
                "  ",
                "# note",
                "\n\n    ",
                "return",
                " ",
                "'''a\nb'''",
                "\n"
            ]
        );
    }

    #[test]
    fn fragments_lex() {
        // indented and dedented, closing a bracket opened outside, continuation line
        for text in ["        x = 1\n    return x\n", "    b,\n)\nc = [\n", "x = 1 + \\\n    2\n"] {
            assert_eq!(lexer_tokens(text).map(|t| t.concat()).as_deref(), Some(text), "{text:?}");
        }
        // a string closed outside the fragment
        assert_eq!(lexer_tokens("    '''doc\n    x = 1\n"), None);
        assert_eq!(lexer_tokens("x = 'abc\n"), None);
    }

    #[test]
    fn plain_tokens_cut_words_digits_spaces_and_single_characters() {
        assert_eq!(
            plain_tokens("a_1 = 42.5  'x y'\n"),
            ["a_1", " ", "=", " ", "42", ".", "5", "  ", "'", "x", " ", "y", "'", "\n"]
        );
    }

    #[test]
    fn every_substrate_file_round_trips() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("substrates");
        let mut files = 0;
        let mut stack = vec![root];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "py") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    let lexed = lexer_tokens(&text).unwrap_or_else(|| panic!("{} does not lex", path.display()));
                    assert_eq!(lexed.concat(), text, "{}", path.display());
                    assert_eq!(plain_tokens(&text).concat(), text, "{}", path.display());
                    assert_eq!(from_lines(&to_lines(&lexed)).as_deref(), Some(text.as_str()), "{}", path.display());
                    files += 1;
                }
            }
        }
        assert!(files > 10, "only {files} .py files under substrates/");
    }

    #[test]
    fn escape_round_trips() {
        for token in ["", "x", "\\", "\\n", "\n", "'''a\\\nb'''", "\r\n", "\\\\\\r"] {
            let escaped = escape(token);
            assert!(!escaped.contains(['\n', '\r']), "{escaped:?}");
            assert_eq!(unescape(&escaped).as_deref(), Some(token));
        }
        assert_eq!(unescape("\\t"), None);
        assert_eq!(unescape("\\"), None);
    }

    #[test]
    fn hunks_merge_by_token() {
        assert_eq!(Tokens.resolve_hunk(&hunk("y = f(a)\n", "x = f(a)\n", "x = f(b)\n")), Some("y = f(b)\n".into()));
        assert_eq!(Tokens.resolve_hunk(&hunk("x = 1\n", "x = 0\n", "x = 2\n")), None);
        assert_eq!(Tokens.resolve_hunk(&hunk("a\n", "", "b\n")), None);
        assert_eq!(Tokens.resolve_hunk(&hunk("", "a\n", "")), Some(String::new()));
        // a side that does not lex: every side falls back to the plain tokenizer
        assert_eq!(
            Tokens.resolve_hunk(&hunk("'''x y\nq = 1\n", "'''x z\nq = 1\n", "'''x z\nq = 2\n")),
            Some("'''x y\nq = 2\n".into())
        );
    }
}
