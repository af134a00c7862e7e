//! One finding ([`Finding`]) and how the tree's are matched against gold's
//! ([`subtract`]: as multisets of file, rule and name, never by line).

use std::collections::BTreeMap;

/// The name findings at module level (outside every function) carry.
pub(crate) const MODULE: &str = "<module>";

/// One static finding in a tree: a linter rule or an AST check, on a named thing.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub(crate) struct Finding {
    /// The file, relative to the tree's root.
    pub(crate) path: String,
    /// The rule: a ruff code (`F811`) or an AST check's name (`unreachable`,
    /// `repeated-block`, `overwritten`, `syntax`).
    pub(crate) rule: String,
    /// What it is about (the redefined or undefined name, the function), how findings
    /// are matched against gold's.
    pub(crate) name: String,
    /// Where it is in the tree (1-based), for the message only.
    pub(crate) line: usize,
    /// A one-line message for the observation, without the path and line (which the
    /// reader prints before it).
    pub(crate) message: String,
}

impl Finding {
    /// The key findings are matched by.
    fn key(&self) -> (&str, &str, &str) {
        (&self.path, &self.rule, &self.name)
    }
}

/// The findings of `tree` beyond gold's, matched as multisets of (path, rule, name): of
/// a key the tree has `n` times and gold `k`, the last `n - k` by line are kept.
pub(crate) fn subtract(mut tree: Vec<Finding>, gold: Vec<Finding>) -> Vec<Finding> {
    let mut allowance: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    for finding in &gold {
        let (path, rule, name) = finding.key();
        *allowance.entry((path.to_string(), rule.to_string(), name.to_string())).or_default() += 1;
    }
    tree.sort_by(|a, b| a.key().cmp(&b.key()).then(a.line.cmp(&b.line)));
    tree.into_iter()
        .filter(|finding| {
            let (path, rule, name) = finding.key();
            match allowance.get_mut(&(path.to_string(), rule.to_string(), name.to_string())) {
                Some(left) if *left > 0 => {
                    *left -= 1;
                    false
                }
                _ => true,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(rule: &str, name: &str, line: usize) -> Finding {
        Finding { path: "a.py".into(), rule: rule.into(), name: name.into(), line, message: String::new() }
    }

    #[test]
    fn findings_are_matched_as_multisets_by_name_never_by_line() {
        let tree = vec![finding("F401", "os", 3), finding("F401", "os", 9), finding("F821", "x", 1)];
        let gold = vec![finding("F401", "os", 1), finding("F821", "y", 1), finding("F841", "z", 2)];
        assert_eq!(subtract(tree, gold), vec![finding("F401", "os", 9), finding("F821", "x", 1)]);
    }
}
