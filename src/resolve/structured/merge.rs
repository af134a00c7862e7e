//! The three-way merge of statement trees.
//!
//! Each side's block is aligned to base (a longest common subsequence where equal
//! statements weigh more than corresponding ones, see [`Node::corresponds`]), which
//! turns the side into changes: statements inserted at a gap, one statement modified,
//! or a run of statements replaced. Changes of the two sides combine when they touch
//! different base statements; insertions at the same gap are both kept (ours first,
//! statements both sides inserted once); a statement both sides modified is merged
//! recursively (compound statements body by body, imports name by name). Anything else
//! is a conflict and the merge fails.

use std::collections::BTreeMap;

use super::imports::Import;
use super::tree::{Block, Module, Node};
use crate::resolve::resolver::merge_text;

/// Merges three versions of a module; `None` on a conflict.
pub(crate) fn merge_module(base: &Module, ours: &Module, theirs: &Module) -> Option<String> {
    let block = merge_block(&base.block, &ours.block, &theirs.block)?;
    let tail = merge_text(&base.tail, &ours.tail, &theirs.tail)?;
    Some(super::tree::render_block(&block) + &tail)
}

fn merge_node(base: &Node, ours: &Node, theirs: &Node) -> Option<Node> {
    let (b, o, t) = (base.text(), ours.text(), theirs.text());
    if o == t || t == b {
        return Some(ours.clone());
    }
    if o == b {
        return Some(theirs.clone());
    }
    match (base, ours, theirs) {
        (
            Node::Compound { kind, glue: bg, bodies: bb, key: bk },
            Node::Compound { kind: ok, glue: og, bodies: ob, key: okey },
            Node::Compound { kind: tk, glue: tg, bodies: tb, key: tkey },
        ) if kind == ok && kind == tk && bb.len() == ob.len() && bb.len() == tb.len() => {
            let glue = (0..bg.len()).map(|i| merge_text(&bg[i], &og[i], &tg[i])).collect::<Option<Vec<_>>>()?;
            let bodies = (0..bb.len()).map(|i| merge_block(&bb[i], &ob[i], &tb[i])).collect::<Option<Vec<_>>>()?;
            let key = if okey != bk { okey.clone() } else { tkey.clone() };
            Some(Node::Compound { kind, key, glue, bodies })
        }
        (
            Node::Leaf { import: Some(bi), .. },
            Node::Leaf { import: Some(oi), .. },
            Node::Leaf { import: Some(ti), .. },
        ) => {
            let merged = Import::merge(bi, oi, ti)?;
            Some(Node::Leaf { text: merged.render(), import: Some(merged) })
        }
        _ => None,
    }
}

/// What one side did to a base statement.
#[derive(Debug, Clone)]
enum Cover {
    Keep,
    Modify(Node),
    /// Part of the run `start..end` replaced by `nodes`.
    Replaced {
        start: usize,
        end: usize,
        nodes: Vec<Node>,
    },
}

/// One side's changes to a base block.
struct Changes {
    cover: Vec<Cover>,
    inserts: BTreeMap<usize, Vec<Node>>,
}

fn changes(base: &[Node], side: &[Node]) -> Changes {
    let mut cover = vec![Cover::Keep; base.len()];
    let mut inserts = BTreeMap::new();
    let mut region = |b: std::ops::Range<usize>, s: &[Node], cover: &mut Vec<Cover>| {
        if b.is_empty() {
            if !s.is_empty() {
                inserts.insert(b.start, s.to_vec());
            }
        } else if b.len() == 1 && s.len() == 1 {
            cover[b.start] = Cover::Modify(s[0].clone());
        } else {
            for i in b.clone() {
                cover[i] = Cover::Replaced { start: b.start, end: b.end, nodes: s.to_vec() };
            }
        }
    };
    let (mut pb, mut ps) = (0, 0);
    for (i, j) in align(base, side) {
        region(pb..i, &side[ps..j], &mut cover);
        if base[i].text() != side[j].text() {
            cover[i] = Cover::Modify(side[j].clone());
        }
        pb = i + 1;
        ps = j + 1;
    }
    region(pb..base.len(), &side[ps..], &mut cover);
    Changes { cover, inserts }
}

/// Matched index pairs (base, side) of a heaviest common subsequence: equal statements
/// weigh 2, corresponding ones 1.
fn align(base: &[Node], side: &[Node]) -> Vec<(usize, usize)> {
    let (m, n) = (base.len(), side.len());
    let base_text: Vec<String> = base.iter().map(Node::text).collect();
    let side_text: Vec<String> = side.iter().map(Node::text).collect();
    let weight = |i: usize, j: usize| -> u32 {
        if base_text[i] == side_text[j] {
            2
        } else if base[i].corresponds(&side[j]) {
            1
        } else {
            0
        }
    };
    let mut table = vec![vec![0u32; n + 1]; m + 1];
    for i in (0..m).rev() {
        for j in (0..n).rev() {
            let w = weight(i, j);
            let diagonal = if w > 0 { table[i + 1][j + 1] + w } else { 0 };
            table[i][j] = diagonal.max(table[i + 1][j]).max(table[i][j + 1]);
        }
    }
    let mut pairs = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < m && j < n {
        let w = weight(i, j);
        if w > 0 && table[i][j] == table[i + 1][j + 1] + w {
            pairs.push((i, j));
            i += 1;
            j += 1;
        } else if table[i + 1][j] >= table[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    pairs
}

fn same_replacement(a: &Cover, b: &Cover) -> bool {
    match (a, b) {
        (Cover::Replaced { start: s1, end: e1, nodes: n1 }, Cover::Replaced { start: s2, end: e2, nodes: n2 }) => {
            s1 == s2 && e1 == e2 && super::tree::render_block(n1) == super::tree::render_block(n2)
        }
        _ => false,
    }
}

/// Three-way merge of a block; `None` on a conflict.
pub(crate) fn merge_block(base: &[Node], ours: &[Node], theirs: &[Node]) -> Option<Block> {
    let (o, t) = (changes(base, ours), changes(base, theirs));
    // An insertion strictly inside a run the other side replaced conflicts.
    for (mine, other) in [(&o, &t), (&t, &o)] {
        for &gap in mine.inserts.keys() {
            if let Some(Cover::Replaced { start, end, .. }) = other.cover.get(gap) {
                if *start < gap && gap < *end {
                    return None;
                }
            }
        }
    }
    let mut out = Vec::with_capacity(base.len() + 4);
    let mut gap = 0;
    loop {
        out.extend(merge_inserts(o.inserts.get(&gap), t.inserts.get(&gap)));
        if gap == base.len() {
            break;
        }
        match (&o.cover[gap], &t.cover[gap]) {
            (Cover::Keep, Cover::Keep) => out.push(base[gap].clone()),
            (Cover::Modify(node), Cover::Keep) | (Cover::Keep, Cover::Modify(node)) => out.push(node.clone()),
            (Cover::Modify(a), Cover::Modify(b)) => out.push(merge_node(&base[gap], a, b)?),
            (replaced @ Cover::Replaced { start, end, nodes }, other) => {
                let compatible = match other {
                    Cover::Keep => (*start..*end).all(|i| matches!(t.cover[i], Cover::Keep)),
                    _ => same_replacement(replaced, other),
                };
                if !compatible || *start != gap {
                    return None;
                }
                out.extend(nodes.iter().cloned());
                gap = *end;
                continue;
            }
            (Cover::Keep, Cover::Replaced { start, end, nodes }) => {
                if !(*start..*end).all(|i| matches!(o.cover[i], Cover::Keep)) || *start != gap {
                    return None;
                }
                out.extend(nodes.iter().cloned());
                gap = *end;
                continue;
            }
            (Cover::Modify(_), Cover::Replaced { .. }) => return None,
        }
        gap += 1;
    }
    Some(out)
}

/// Both sides' insertions at one gap: ours, then theirs' statements ours lacks.
fn merge_inserts(ours: Option<&Vec<Node>>, theirs: Option<&Vec<Node>>) -> Vec<Node> {
    let ours = ours.cloned().unwrap_or_default();
    let Some(theirs) = theirs else { return ours };
    let seen: Vec<String> = ours.iter().map(Node::text).collect();
    let mut out = ours;
    out.extend(theirs.iter().filter(|n| !seen.contains(&n.text())).cloned());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merge(base: &str, ours: &str, theirs: &str) -> Option<String> {
        let parse = |t: &str| Module::parse(t).expect("parses");
        merge_module(&parse(base), &parse(ours), &parse(theirs))
    }

    #[test]
    fn insertions_at_one_gap_are_both_kept() {
        let base = "def f():\n    a = 1\n    return a\n";
        let ours = "def f():\n    a = 1\n    a += 2\n    return a\n";
        let theirs = "def f():\n    a = 1\n    a *= 3\n    return a\n";
        assert_eq!(merge(base, ours, theirs).unwrap(), "def f():\n    a = 1\n    a += 2\n    a *= 3\n    return a\n");
    }

    #[test]
    fn adjacent_modifications_combine() {
        let base = "x = 1\ny = 2\n";
        assert_eq!(merge(base, "x = 10\ny = 2\n", "x = 1\ny = 20\n").unwrap(), "x = 10\ny = 20\n");
    }

    #[test]
    fn header_and_body_changes_combine() {
        let base = "def f(x):\n    if not x:\n        return 1\n    return 2\n";
        let ours = "def f(x):\n    if x:\n        return 1\n    return 2\n";
        let theirs = "def f(x):\n    if not x:\n        return 3\n    return 2\n";
        assert_eq!(merge(base, ours, theirs).unwrap(), "def f(x):\n    if x:\n        return 3\n    return 2\n");
    }

    #[test]
    fn one_statement_changed_twice_conflicts() {
        assert_eq!(merge("x = a + b\n", "x = a - b\n", "x = a * b\n"), None);
        assert_eq!(merge("x = 1\ny = 2\n", "y = 2\n", "x = 3\ny = 2\n"), None);
    }

    #[test]
    fn imports_are_unioned() {
        let base = "from m import a\nimport os\n";
        let ours = "from m import a, b\nimport os\n";
        let theirs = "from m import a, c\nimport os, sys\n";
        assert_eq!(merge(base, ours, theirs).unwrap(), "from m import a, b, c\nimport os, sys\n");
    }
}
