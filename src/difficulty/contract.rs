//! What a contract task asks of a merge: the contract kinds its sides make, and the
//! calls of a changed unit that gold writes anew (the call sites the merge must adapt).

use std::collections::BTreeSet;

use crate::forge::Candidate;
use crate::intent::{naming, Kind, Site};
use crate::snapshot;

/// The contract kinds either side makes, sorted.
pub(crate) fn kinds(candidate: &Candidate) -> Vec<Kind> {
    let mut kinds: Vec<Kind> = sites(candidate).map(|site| site.kind).collect();
    kinds.sort();
    kinds.dedup();
    kinds
}

fn sites(candidate: &Candidate) -> impl Iterator<Item = &Site> {
    let changes = candidate.ours_intent.changes.iter().chain(&candidate.theirs_intent.changes);
    changes.filter(|site| site.kind.contract().is_some())
}

/// Calls of a unit whose contract a side changes (its name followed by `(`) that span a
/// line of gold neither side's version of the file has: a call whose arguments gold
/// rewrote counts even when its first line is old.
pub(crate) fn call_sites_to_adapt(candidate: &Candidate) -> usize {
    let names: BTreeSet<&str> = sites(candidate).map(|site| called_name(&site.symbol)).collect();
    if names.is_empty() {
        return 0;
    }
    let gold = &candidate.gold;
    let files = gold.keys().filter(|path| path.ends_with(".py")).filter_map(|path| {
        let text = snapshot::text_of(gold, path)?;
        let sides = [&candidate.ours, &candidate.theirs].map(|tree| snapshot::text_of(tree, path).unwrap_or_default());
        let novel = snapshot::new_lines(text, &sides);
        novel.contains(&true).then(|| names.iter().map(|name| novel_calls(text, name, &novel)).sum::<usize>())
    });
    files.sum()
}

/// The name a call of `symbol` is spelt with: its last part, or its class's name for a
/// constructor (`Expression.__init__` is called as `Expression(...)`).
fn called_name(symbol: &str) -> &str {
    let mut parts = symbol.rsplit('.');
    let last = parts.next().unwrap_or_default();
    match (last, parts.next()) {
        ("__init__", Some(class)) => class,
        _ => last,
    }
}

/// The calls of `name` in `text` spanning a line marked in `novel` (0-based).
fn novel_calls(text: &str, name: &str, novel: &[bool]) -> usize {
    let line_of = |at: usize| text[..at].matches('\n').count();
    naming::occurrences(text, name)
        .into_iter()
        .filter_map(|at| {
            let after = at + name.len();
            let open = after + text[after..].len() - text[after..].trim_start_matches([' ', '\t']).len();
            text[open..].starts_with('(').then(|| (line_of(at), line_of(closing(text, open))))
        })
        .filter(|&(first, last)| (first..=last).any(|line| novel.get(line).copied().unwrap_or(false)))
        .count()
}

/// The byte offset of the bracket closing the one at `open` (the text's end if none).
fn closing(text: &str, open: usize) -> usize {
    let mut depth = 0usize;
    for (at, c) in text[open..].char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return open + at;
                }
            }
            _ => {}
        }
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constructor_is_called_by_its_class_name() {
        assert_eq!(called_name("parser.Expression.__init__"), "Expression");
        assert_eq!(called_name("utils.pad"), "pad");
        assert_eq!(called_name("pad"), "pad");
    }

    #[test]
    fn a_call_counts_when_any_of_its_lines_is_new() {
        let text = "x = f(a, b)\ny = f(\n    b,\n    a,\n)\nz = g(f)\n";
        // Only the argument lines of the second call are new.
        let novel = [false, false, true, true, false, false];
        assert_eq!(novel_calls(text, "f", &novel), 1);
        let first_new = [true, false, false, false, false, false];
        assert_eq!(novel_calls(text, "f", &first_new), 1);
        // `f` passed as a value is not a call.
        let last_new = [false, false, false, false, false, true];
        assert_eq!(novel_calls(text, "f", &last_new), 0);
    }
}
