//! Naming: what the rename intents share. A new name a developer would plausibly pick
//! ([`synonym`]: the identifier cut into words, the first word with an entry in
//! [`SYNONYMS`] replaced, the case style kept), identifier-bounded occurrences of a word
//! in source text ([`occurrences`], [`occurs`]), the names a rename must never take or
//! shadow ([`is_reserved`]), comment ranges and the backtick mentions of a name in
//! comments and docstrings ([`comments`], [`mentions`]), and the one edit every rename
//! makes: identifier splices at verified offsets ([`renamed`]).
//!
//! Pure functions of text; no AST walks (each intent walks its own scopes).

use std::collections::BTreeSet;
use std::ops::Range;

use rustpython_parser::lexer::lex;
use rustpython_parser::Mode;

mod meaning;

pub(crate) use meaning::{is_vague, keeps_meaning};

/// Word → the synonym a developer would reach for, in lower case. A renamed identifier
/// replaces its first word (from the left) that has an entry here.
pub(crate) const SYNONYMS: &[(&str, &str)] = &[
    ("get", "fetch"),
    ("fetch", "get"),
    ("make", "build"),
    ("build", "make"),
    ("create", "make"),
    ("compute", "calculate"),
    ("calculate", "compute"),
    ("calc", "compute"),
    ("parse", "read"),
    ("read", "load"),
    ("load", "read"),
    ("format", "render"),
    ("render", "format"),
    ("check", "validate"),
    ("validate", "check"),
    ("verify", "check"),
    ("find", "lookup"),
    ("lookup", "find"),
    ("search", "find"),
    ("convert", "transform"),
    ("transform", "convert"),
    ("update", "refresh"),
    ("refresh", "update"),
    ("remove", "delete"),
    ("delete", "remove"),
    ("drop", "remove"),
    ("add", "append"),
    ("append", "add"),
    ("insert", "add"),
    ("num", "count"),
    ("number", "count"),
    ("val", "value"),
    ("item", "entry"),
    ("items", "entries"),
    ("size", "length"),
    ("length", "size"),
    ("res", "result"),
    ("msg", "message"),
    ("config", "settings"),
    ("settings", "config"),
    ("cfg", "config"),
    ("opts", "options"),
    ("index", "position"),
    ("idx", "index"),
    ("pos", "position"),
    ("start", "begin"),
    ("begin", "start"),
    ("end", "stop"),
    ("stop", "end"),
    ("buf", "buffer"),
    ("tmp", "temp"),
    ("temp", "tmp"),
    ("run", "execute"),
    ("execute", "run"),
    ("save", "store"),
    ("store", "save"),
    ("clear", "reset"),
    ("reset", "clear"),
    ("merge", "combine"),
    ("combine", "merge"),
    ("select", "pick"),
    ("pick", "select"),
    ("info", "details"),
    ("status", "state"),
    ("state", "status"),
    ("limit", "cap"),
    ("callback", "handler"),
    ("handler", "callback"),
    ("prev", "previous"),
    ("cur", "current"),
    ("err", "error"),
    ("default", "fallback"),
    ("fallback", "default"),
    ("func", "function"),
    ("fn", "func"),
    ("cb", "callback"),
    ("ret", "result"),
    ("src", "source"),
    ("dst", "target"),
    ("dest", "target"),
    ("attr", "attribute"),
    ("attrs", "attributes"),
    ("elem", "element"),
    ("ctx", "context"),
    ("conf", "config"),
    ("param", "parameter"),
    ("params", "parameters"),
    ("arg", "argument"),
    ("exc", "exception"),
    ("exception", "error"),
    ("desc", "description"),
    ("cnt", "count"),
    ("pkg", "package"),
    ("obj", "instance"),
    ("lst", "items"),
    ("dct", "mapping"),
    ("seq", "sequence"),
    ("tmpl", "template"),
    ("copy", "clone"),
    ("clone", "copy"),
    ("dispatch", "forward"),
    ("configure", "setup"),
    ("setup", "configure"),
    ("call", "invoke"),
    ("invoke", "call"),
];

/// Python's keywords (soft ones included) and builtins: a rename never picks one, and a
/// local that has one's name shadows it.
const RESERVED: &[&str] = &[
    "False",
    "None",
    "True",
    "and",
    "as",
    "assert",
    "async",
    "await",
    "break",
    "case",
    "class",
    "continue",
    "def",
    "del",
    "elif",
    "else",
    "except",
    "finally",
    "for",
    "from",
    "global",
    "if",
    "import",
    "in",
    "is",
    "lambda",
    "match",
    "nonlocal",
    "not",
    "or",
    "pass",
    "raise",
    "return",
    "try",
    "type",
    "while",
    "with",
    "yield",
    "abs",
    "aiter",
    "all",
    "anext",
    "any",
    "ascii",
    "bin",
    "bool",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "copyright",
    "credits",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "exit",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "license",
    "list",
    "locals",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "quit",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "vars",
    "zip",
    "self",
    "cls",
];

/// Whether a rename must never pick `name`, nor rename a name that shadows it.
pub(crate) fn is_reserved(name: &str) -> bool {
    RESERVED.contains(&name)
}

/// Whether a name may be renamed at all: three characters or more, not a dunder.
pub(crate) fn is_renamable(name: &str) -> bool {
    name.len() >= 3 && !(name.starts_with("__") && name.ends_with("__")) && !is_reserved(name)
}

/// Whether `c` can be part of an identifier.
pub(crate) fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The byte ranges of an identifier's words: `_parse_HTTPHeader2` → `parse`, `HTTP`,
/// `Header2` (underscores separate words, and so do case changes: a lower-case letter
/// followed by a capital, or a run of capitals followed by a capitalised word).
pub(crate) fn words(name: &str) -> Vec<Range<usize>> {
    let chars: Vec<(usize, char)> = name.char_indices().collect();
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, &(at, c)) in chars.iter().enumerate() {
        if c == '_' {
            if let Some(s) = start.take() {
                out.push(s..at);
            }
            continue;
        }
        let Some(s) = start else {
            start = Some(at);
            continue;
        };
        let prev = chars[i - 1].1;
        let next_lower = chars.get(i + 1).is_some_and(|&(_, n)| n.is_lowercase());
        let boundary =
            c.is_uppercase() && (prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower));
        if boundary {
            out.push(s..at);
            start = Some(at);
        }
    }
    if let Some(s) = start {
        out.push(s..name.len());
    }
    out
}

/// `word` spelled in the case of `like`: all capitals, capitalised, or lower case.
fn cased_like(word: &str, like: &str) -> String {
    let letters: Vec<char> = like.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.len() > 1 && letters.iter().all(|c| c.is_uppercase()) {
        word.to_uppercase()
    } else if like.chars().next().is_some_and(char::is_uppercase) {
        let mut chars = word.chars();
        chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
    } else {
        word.to_string()
    }
}

/// The name a developer would plausibly rename `name` to: its first word (from the
/// left) with an entry in [`SYNONYMS`] replaced, the word's case and every underscore
/// kept (`_get_value` → `_fetch_value`, `MAX_SIZE` → `MAX_LENGTH`, `ItemError` →
/// `EntryError`). `None` when no word has a synonym or the result is reserved.
pub(crate) fn synonym(name: &str) -> Option<String> {
    words(name).into_iter().find_map(|range| {
        let word = &name[range.clone()];
        let lower = word.to_lowercase();
        let (_, replacement) = SYNONYMS.iter().find(|(from, to)| *from == lower && keeps_meaning(from, to))?;
        let new = format!("{}{}{}", &name[..range.start], cased_like(replacement, word), &name[range.end..]);
        (!is_reserved(&new)).then_some(new)
    })
}

/// Whether `word` occurs at byte `at` of `text` as a whole identifier.
pub(crate) fn is_word_at(text: &str, at: usize, word: &str) -> bool {
    text.get(at..at + word.len()) == Some(word)
        && !text[..at].chars().next_back().is_some_and(is_ident_char)
        && !text[at + word.len()..].chars().next().is_some_and(is_ident_char)
}

/// Every byte offset where `word` occurs in `text` as a whole identifier (strings and
/// comments included).
pub(crate) fn occurrences(text: &str, word: &str) -> Vec<usize> {
    text.match_indices(word).map(|(at, _)| at).filter(|&at| is_word_at(text, at, word)).collect()
}

/// Whether `word` occurs in `text` as a whole identifier.
pub(crate) fn occurs(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| is_word_at(text, at, word))
}

/// Whether `word` occurs as a whole identifier in `line` before a `#` (code, not its
/// trailing comment; a `#` inside a string cuts the line there too).
pub(crate) fn occurs_in_code(line: &str, word: &str) -> bool {
    occurs(line.split('#').next().unwrap_or_default(), word)
}

/// Every identifier-like word of `text` (strings and comments included).
pub(crate) fn all_words(text: &str) -> BTreeSet<&str> {
    text.split(|c: char| !is_ident_char(c)).filter(|w| !w.is_empty()).collect()
}

/// The byte ranges of `text`'s comments (found in the gaps the lexer leaves between its
/// tokens, which hold only whitespace, line continuations and comments); `None` if it
/// does not lex.
pub(crate) fn comments(text: &str) -> Option<Vec<Range<usize>>> {
    let mut out = Vec::new();
    let mut at = 0;
    for token in lex(text, Mode::Module) {
        let (_, range) = token.ok()?;
        let start = usize::from(range.start());
        gap_comments(text, at..start.max(at), &mut out);
        at = at.max(usize::from(range.end()));
    }
    gap_comments(text, at..text.len(), &mut out);
    Some(out)
}

fn gap_comments(text: &str, gap: Range<usize>, out: &mut Vec<Range<usize>>) {
    let mut at = gap.start;
    while let Some(hash) = text[at..gap.end].find('#') {
        let start = at + hash;
        let end = text[start..gap.end].find('\n').map_or(gap.end, |i| start + i);
        out.push(start..end);
        at = end;
    }
}

/// Which mentions of a name in prose name code.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mentions {
    /// In backticks (`` `word` ``, ``` ``word()`` ```, `` `mod.word` ``) or followed by `(`.
    Marked,
    /// Those, and every occurrence on a doctest line (`>>> `, `... `): the name is
    /// module-level, as a doctest's names are.
    MarkedAndDoctests,
}

/// Short forms that name code wherever they stand: no one writes them as prose, so
/// `# if obj is nonrecursive` speaks of the local `obj`.
const ABBREVIATIONS: &[&str] = &[
    "arg", "args", "attr", "attrs", "buf", "calc", "cb", "cfg", "cnt", "ctx", "dct", "desc", "dst", "elem", "err",
    "exc", "fn", "func", "idx", "kwargs", "lst", "msg", "num", "obj", "opts", "param", "params", "pkg", "prev", "res",
    "ret", "seq", "src", "tmp", "tmpl", "val",
];

/// Whether a bare occurrence of `word` in prose names code: it has an underscore or a
/// digit inside (`class_name`, `utf8`), changes case inside (`maxSize`), or is one of
/// [`ABBREVIATIONS`].
pub(crate) fn is_code_word(word: &str) -> bool {
    let inner = word.trim_matches('_');
    inner.contains('_')
        || inner.chars().any(|c| c.is_ascii_digit())
        || inner.chars().zip(inner.chars().skip(1)).any(|(a, b)| a.is_lowercase() && b.is_uppercase())
        || ABBREVIATIONS.contains(&word)
}

/// The occurrences of `word` in `range` of `text` (a comment or a docstring) that name
/// code, as `which` says, and every occurrence of a code word ([`is_code_word`]). Prose
/// that happens to use the word is left alone.
pub(crate) fn mentions(text: &str, range: Range<usize>, word: &str, which: Mentions) -> Vec<usize> {
    let part = &text[range.clone()];
    if is_code_word(word) {
        return occurrences(part, word).into_iter().map(|at| range.start + at).collect();
    }
    let spans = backtick_spans(part);
    let doctest = |at: usize| {
        let line = part[..at].rsplit('\n').next().unwrap_or_default().trim_start();
        which == Mentions::MarkedAndDoctests && (line.starts_with(">>>") || line.starts_with("..."))
    };
    occurrences(part, word)
        .into_iter()
        .filter(|&at| part[at + word.len()..].starts_with('(') || spans.iter().any(|s| s.contains(&at)) || doctest(at))
        .map(|at| range.start + at)
        .collect()
}

/// The ranges inside matched runs of backticks (a run closes at the next run of the same
/// length, on the same line).
fn backtick_spans(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
        let open_end = i + run;
        let mut j = open_end;
        let mut closed = None;
        while j < bytes.len() && bytes[j] != b'\n' {
            if bytes[j] == b'`' {
                let len = bytes[j..].iter().take_while(|&&b| b == b'`').count();
                if len == run {
                    closed = Some(j);
                    break;
                }
                j += len;
            } else {
                j += 1;
            }
        }
        match closed {
            Some(close) => {
                out.push(open_end..close);
                i = close + run;
            }
            None => i = open_end,
        }
    }
    out
}

/// `text` with `old` replaced by `new` at every offset of `at`; `None` unless each offset
/// holds `old` as a whole identifier.
pub(crate) fn renamed(text: &str, at: &BTreeSet<usize>, old: &str, new: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + at.len() * new.len());
    let mut done = 0;
    for &start in at {
        if start < done || !is_word_at(text, start, old) {
            return None;
        }
        out.push_str(&text[done..start]);
        out.push_str(new);
        done = start + old.len();
    }
    out.push_str(&text[done..]);
    Some(out)
}

/// Whether a rename kept the file's lines within its own width: no line of `after` is
/// longer than the longest of `before` or 79 characters, whichever is more.
pub(crate) fn keeps_width(before: &str, after: &str) -> bool {
    let widest = |text: &str| text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    widest(after) <= widest(before).max(79)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(name: &str) -> Vec<&str> {
        words(name).into_iter().map(|r| &name[r]).collect()
    }

    #[test]
    fn identifiers_split_at_underscores_and_case_changes() {
        assert_eq!(split("_parse_value"), ["parse", "value"]);
        assert_eq!(split("HTTPServerError"), ["HTTP", "Server", "Error"]);
        assert_eq!(split("getValue2"), ["get", "Value2"]);
        assert_eq!(split("MAX_SIZE"), ["MAX", "SIZE"]);
        assert_eq!(split("__init__"), ["init"]);
    }

    #[test]
    fn the_first_word_with_a_synonym_is_replaced_in_its_case() {
        assert_eq!(synonym("_get_value").as_deref(), Some("_fetch_value"));
        assert_eq!(synonym("MAX_SIZE").as_deref(), Some("MAX_LENGTH"));
        assert_eq!(synonym("ItemError").as_deref(), Some("EntryError"));
        assert_eq!(synonym("normalize_sku"), None);
        assert_eq!(synonym("total_value"), None, "an amount is one kind of value");
        assert_eq!(synonym("total_size").as_deref(), Some("total_length"));
        assert_eq!(synonym("parseHeader").as_deref(), Some("readHeader"));
    }

    #[test]
    fn synonyms_are_many_and_unique() {
        let keys: BTreeSet<&str> = SYNONYMS.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys.len(), SYNONYMS.len());
        assert!(keys.len() >= 40);
        assert!(SYNONYMS.iter().all(|(k, v)| k != v));
        assert_eq!(synonym("render"), None, "a builtin is never the new name");
    }

    #[test]
    fn occurrences_are_whole_identifiers() {
        let text = "get_x = get(x) + target.get + 'get'  # get";
        assert_eq!(occurrences(text, "get"), [8, 24, 31, 39]);
        assert!(!occurs("forget", "get"));
    }

    #[test]
    fn mentions_are_in_backticks_or_calls() {
        let text = "# Uses `fetch` and ``mod.fetch()``; fetch(1) too, but fetch is prose.\n  >>> y = fetch";
        let found = mentions(text, 0..text.len(), "fetch", Mentions::MarkedAndDoctests);
        assert_eq!(found.len(), 4);
        assert_eq!(mentions(text, 0..text.len(), "fetch", Mentions::Marked).len(), 3);
        assert!(found.iter().all(|&at| is_word_at(text, at, "fetch")));
    }

    #[test]
    fn code_words_are_mentions_wherever_they_stand() {
        let text = "# if obj is nonrecursive, class_name and maxSize stay; so does value";
        for word in ["obj", "class_name", "maxSize"] {
            assert_eq!(mentions(text, 0..text.len(), word, Mentions::Marked).len(), 1, "{word}");
        }
        assert!(mentions(text, 0..text.len(), "value", Mentions::Marked).is_empty());
        assert!(!is_code_word("_private") && !is_code_word("Parser") && is_code_word("_max_size"));
    }

    #[test]
    fn comments_are_found_outside_strings() {
        let text = "x = '# no'  # one\n# two\ny = 1\n";
        let found: Vec<&str> = comments(text).unwrap().into_iter().map(|r| &text[r]).collect();
        assert_eq!(found, ["# one", "# two"]);
    }

    #[test]
    fn splices_check_what_they_replace() {
        let text = "a = get(1)\nb = get\n";
        let at: BTreeSet<usize> = occurrences(text, "get").into_iter().collect();
        assert_eq!(renamed(text, &at, "get", "fetch").as_deref(), Some("a = fetch(1)\nb = fetch\n"));
        assert_eq!(renamed(text, &BTreeSet::from([1]), "get", "fetch"), None);
    }
}
