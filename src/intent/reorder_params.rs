//! `reorder-params` (contract: signature): two adjacent positional parameters of a
//! module-level function or a method swap places (`pad(text, width, chars)` becomes
//! `pad(text, chars, width)`), with their defaults and their entries in the docstring's
//! parameter list; every call in the tree (sources and tests) that passes both by
//! position has them swapped, one that passes only the first by position passes it by
//! keyword (`width=...`), keyword calls stay as written. A call written against the old
//! order still runs, with its arguments in each other's place: the breakage is silent.
//!
//! The pair: neither bound (`self`, `cls`), neither `*args`/`**kwargs` nor
//! positional-only, both without a default or both with one, and not two names that
//! come in their order by convention (`value1, value2`, `x, y`, `start, end`,
//! `name, value`, `obj, attr`: no developer writes `end` before `start`;
//! [`conventional_order`]). The site's symbol is the
//! function (`pad`, `Class.method`), its target the pair in its old order
//! (`width,chars`).
//!
//! No site when the calls cannot all be found or told apart (`signature::calls`); when a call
//! passes `*args` into the pair's positions; when a call's two arguments both have
//! effects (swapping them would change their order of evaluation); when a call of the
//! function is nested in another's swapped argument; or when no call passes both by
//! position (callers would not change).

use std::ops::Range;

use super::callers::{self, Edit};
use super::signature::{block_end, calls, entry_name, indent, parameter_span, text_at, Call, Def, Splices};
use super::kind::Kind;
use super::site::{Change, Contract, Site, Transform, Workspace};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

pub(crate) struct ReorderParams;

impl Transform for ReorderParams {
    fn change(&self) -> Change {
        Change::Contract(Contract::Signature)
    }

    fn description(&self) -> &'static str {
        "swaps two adjacent positional parameters of a function, with every positional call and the docstring"
    }

    fn sites(&self, workspace: &Workspace) -> Vec<Site> {
        let mut sites = Vec::new();
        for module in workspace.modules {
            for def in Def::all(module) {
                let pairs = pairs(&def);
                if pairs.is_empty() {
                    continue;
                }
                let Some(calls) = calls(workspace.tree, &def) else { continue };
                for at in pairs {
                    let moved = calls.iter().any(|c| c.fills(at + 1));
                    if moved && plan(workspace.tree, &def, &calls, at).is_some() {
                        let positional = def.positional();
                        let (a, b) = (positional[at].0.def.arg.as_str(), positional[at + 1].0.def.arg.as_str());
                        sites.push(Site {
                            kind: Kind::ReorderParams,
                            path: module.path.clone(),
                            symbol: def.qual.clone(),
                            lines: super::lines_of(module, def.stmt),
                            uses: def.uses(),
                            target: Some(format!("{a},{b}")),
                            tests: Vec::new(),
                        });
                    }
                }
            }
        }
        sites
    }

    fn apply(&self, _workspace: &Workspace, tree: &Snapshot, site: &Site) -> Option<Snapshot> {
        let module = PyModule::parse(&site.path, snapshot::text_of(tree, &site.path)?).ok()?;
        let def = Def::find(&module, &site.symbol)?;
        let (a, b) = site.target.as_deref()?.split_once(',')?;
        let positional = def.positional();
        let at = positional.iter().position(|(p, _)| p.def.arg.as_str() == a)?;
        let pair_ok = pairs(&def).contains(&at) && positional[at + 1].0.def.arg.as_str() == b;
        if !pair_ok {
            return None;
        }
        let calls = calls(tree, &def)?;
        callers::rewritten(tree, plan(tree, &def, &calls, at)?)
    }

    fn message(&self, site: &Site) -> String {
        let (a, b) = site.target.as_deref().and_then(|t| t.split_once(',')).unwrap_or_default();
        format!("`{}`: take `{b}` before `{a}`", site.symbol)
    }
}

/// The positions `at` such that parameters `at` and `at + 1` may swap.
fn pairs(def: &Def) -> Vec<usize> {
    let positional = def.positional();
    (0..positional.len().saturating_sub(1))
        .filter(|&at| {
            let ((a, a_keyword), (b, b_keyword)) = (positional[at], positional[at + 1]);
            let plain = |name: &str| !matches!(name, "self" | "cls" | "mcs");
            a_keyword
                && b_keyword
                && a.default.is_some() == b.default.is_some()
                && plain(a.def.arg.as_str())
                && plain(b.def.arg.as_str())
                && !conventional_order(a.def.arg.as_str(), b.def.arg.as_str())
        })
        .collect()
}

/// Pairs of words that come in this order by convention (coordinates, bounds, a
/// mapping's entry, an object and what is read off it, an operation's operands).
const ORDERED_PAIRS: &[(&str, &str)] = &[
    ("x", "y"),
    ("y", "z"),
    ("a", "b"),
    ("i", "j"),
    ("m", "n"),
    ("k", "v"),
    ("key", "value"),
    ("name", "value"),
    ("start", "stop"),
    ("start", "end"),
    ("begin", "end"),
    ("first", "last"),
    ("first", "second"),
    ("head", "tail"),
    ("min", "max"),
    ("low", "high"),
    ("lo", "hi"),
    ("lower", "upper"),
    ("left", "right"),
    ("top", "bottom"),
    ("width", "height"),
    ("row", "col"),
    ("row", "column"),
    ("src", "dst"),
    ("source", "target"),
    ("source", "destination"),
    ("old", "new"),
    ("before", "after"),
    ("prefix", "suffix"),
    ("numerator", "denominator"),
    ("dividend", "divisor"),
    ("obj", "attr"),
    ("obj", "name"),
    ("obj", "key"),
];

/// Whether parameters `a, b` are in an order convention fixes, so that swapping them
/// reads as no developer's choice: the same stem numbered in order (`value1, value2`),
/// or names that differ in one `_`-separated word where those words form a pair of
/// [`ORDERED_PAIRS`] (`start, end`; `min_width, max_width`; `range_start, range_end`).
fn conventional_order(a: &str, b: &str) -> bool {
    let (a, b) = (a.to_ascii_lowercase(), b.to_ascii_lowercase());
    let numbered = |name: &str| {
        let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
        (stem.len() < name.len()).then(|| (stem.to_string(), name[stem.len()..].parse::<u64>().unwrap_or(0)))
    };
    if let (Some((stem_a, n)), Some((stem_b, m))) = (numbered(&a), numbered(&b)) {
        if stem_a == stem_b && n < m {
            return true;
        }
    }
    let (words_a, words_b): (Vec<&str>, Vec<&str>) = (a.split('_').collect(), b.split('_').collect());
    if words_a.len() != words_b.len() {
        return false;
    }
    let differing: Vec<(&str, &str)> =
        words_a.iter().zip(&words_b).filter(|(x, y)| x != y).map(|(x, y)| (*x, *y)).collect();
    matches!(differing.as_slice(), [pair] if ORDERED_PAIRS.contains(pair))
}

/// The splices swapping parameters `at` and `at + 1` of `def`: the signature, the
/// docstring and every call; `None` when a call forbids it.
fn plan(tree: &Snapshot, def: &Def, calls: &[Call], at: usize) -> Option<Splices> {
    let positional = def.positional();
    let (a, b) = (positional[at].0, positional[at + 1].0);
    let text = &def.module.text;
    let mut splices = Splices::new();
    let home = splices.entry(def.module.path.clone()).or_default();
    home.extend(swap(text, parameter_span(a), parameter_span(b)));
    if let Some(doc) = def.docstring() {
        home.extend(docstring_swap(text, doc, a.def.arg.as_str(), b.def.arg.as_str()));
    }
    for call in calls {
        if call.spreads_into(at + 1) {
            return None;
        }
        let edits = splices.entry(call.path.clone()).or_default();
        let file = snapshot::text_of(tree, &call.path)?;
        match call.args.len() {
            n if n > at + 1 => {
                let (first, second) = (&call.args[at], &call.args[at + 1]);
                if first.effects && second.effects {
                    return None;
                }
                edits.extend(swap(file, first.span.clone(), second.span.clone()));
            }
            n if n == at + 1 => {
                let value = text_at(tree, &call.path, &call.args[at].span)?;
                edits.push(Edit::new(call.args[at].span.clone(), format!("{}={value}", a.def.arg)));
            }
            _ => {}
        }
    }
    Some(splices)
}

/// The two edits that swap the texts of `first` and `second`.
fn swap(text: &str, first: Range<usize>, second: Range<usize>) -> [Edit; 2] {
    [Edit::new(first.clone(), &text[second.clone()]), Edit::new(second, &text[first])]
}

/// The splice swapping the entries of parameters `a` and `b` in a docstring's parameter
/// list, when `a`'s entry (with its continuation lines, and the `:type a:` beside a
/// `:param a:`) is directly followed by `b`'s; `None` otherwise.
fn docstring_swap(text: &str, doc: Range<usize>, a: &str, b: &str) -> Option<Edit> {
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut start = doc.start;
    for line in text[doc.clone()].split_inclusive('\n') {
        lines.push((start, line));
        start += line.len();
    }
    let first = lines.iter().skip(1).position(|(_, l)| entry_name(l) == Some(a))? + 1;
    let middle = block_end(&lines, first, a);
    if middle >= lines.len() || entry_name(lines[middle].1) != Some(b) || indent(lines[middle].1) != indent(lines[first].1) {
        return None;
    }
    let end = block_end(&lines, middle, b);
    let quoted = |range: Range<usize>| lines[range].iter().any(|(_, l)| l.contains("\"\"\"") || l.contains("'''"));
    if end >= lines.len() || quoted(first..end) {
        return None;
    }
    let (from, to, split) = (lines[first].0, lines[end].0, lines[middle].0);
    Some(Edit::new(from..to, format!("{}{}", &text[split..to], &text[from..split])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_a_conventional_order_are_never_swapped() {
        for (a, b) in [
            ("value1", "value2"),
            ("arg_1", "arg_2"),
            ("x", "y"),
            ("start", "end"),
            ("min_width", "max_width"),
            ("range_start", "range_end"),
            ("name", "value"),
            ("obj", "attr"),
            ("Key", "Value"),
        ] {
            assert!(conventional_order(a, b), "{a}, {b}");
        }
        for (a, b) in [
            ("value2", "value1"),
            ("end", "start"),
            ("text", "width"),
            ("obj", "objs"),
            ("min_width", "max_height"),
            ("array", "values"),
            ("value", "factor"),
        ] {
            assert!(!conventional_order(a, b), "{a}, {b}");
        }
    }

    #[test]
    fn docstring_entries_are_recognised_in_every_style() {
        assert_eq!(entry_name("        width (int): The width."), Some("width"));
        assert_eq!(entry_name("    width : int"), Some("width"));
        assert_eq!(entry_name("    :param int width: The width."), Some("width"));
        assert_eq!(entry_name("    :type width: int"), Some("width"));
        assert_eq!(entry_name("    The width is padded."), None);
    }

    #[test]
    fn adjacent_entries_swap_with_their_continuation_lines() {
        let text = "def f(a, b):\n    \"\"\"Do.\n\n    Args:\n        a: First,\n            long.\n        b: Second.\n\n    Returns:\n        x\n    \"\"\"\n";
        let doc = text.find("\"\"\"").unwrap()..text.rfind("\"\"\"").unwrap() + 3;
        let edit = docstring_swap(text, doc, "a", "b").unwrap();
        let after = format!("{}{}{}", &text[..edit.at.start], edit.text, &text[edit.at.end..]);
        assert!(after.contains("        b: Second.\n        a: First,\n            long.\n\n"), "{after}");
    }
}
