//! The message leak check: no commit message of a side may hand over the resolution.
//!
//! A message leaks when it contains a line of the gold resolution (a line gold has in a
//! conflicted file) that the side's own commit does not add — the message would then
//! tell an agent something about the merge that reading that side's change would not.

use crate::forge::{Candidate, Intent};
use crate::snapshot::{self, Snapshot};

/// Shortest trimmed gold line the check looks for: shorter ones (`else:`, `pass`, `)`)
/// occur in prose by chance and say nothing about a resolution.
const MIN_LINE: usize = 8;

/// The first side one of whose commit messages leaks a line of gold in `conflicted_paths`, as the
/// leaked line.
pub(crate) fn leaked_line(candidate: &Candidate, conflicted_paths: &[String]) -> Option<String> {
    let sides = [(&candidate.ours, &candidate.ours_intent), (&candidate.theirs, &candidate.theirs_intent)];
    sides.iter().find_map(|(tree, intent)| leak(intent, tree, &candidate.gold, conflicted_paths))
}

fn leak(intent: &Intent, side: &Snapshot, gold: &Snapshot, paths: &[String]) -> Option<String> {
    paths.iter().find_map(|path| {
        let own: Vec<&str> = snapshot::text_of(side, path).unwrap_or_default().lines().map(str::trim).collect();
        snapshot::text_of(gold, path)
            .unwrap_or_default()
            .lines()
            .map(str::trim)
            .filter(|line| line.len() >= MIN_LINE && line.chars().any(char::is_alphanumeric))
            .find(|line| intent.messages().any(|m| m.contains(line)) && !own.contains(line))
            .map(str::to_string)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn tree(text: &str) -> Snapshot {
        [("a.py".to_string(), Arc::from(text.as_bytes()))].into_iter().collect()
    }

    fn intent(message: &str) -> Intent {
        Intent::one_commit(message.into(), Vec::new())
    }

    #[test]
    fn a_message_naming_a_gold_line_its_side_lacks_leaks() {
        let gold = tree("def f(x):\n    return scale(x, 2)\n");
        let paths = ["a.py".to_string()];
        let side = tree("def f(x):\n    return x\n");
        let leaked = leak(&intent("Make `f` return scale(x, 2)"), &side, &gold, &paths);
        assert_eq!(leaked.as_deref(), Some("return scale(x, 2)"));
        // The side's own commit adds the line: it may say so.
        let adds = tree("def f(x):\n    return scale(x, 2)\n");
        assert_eq!(leak(&intent("Make `f` return scale(x, 2)"), &adds, &gold, &paths), None);
        // Short lines and prose do not count.
        assert_eq!(leak(&intent("Add `f`"), &side, &gold, &paths), None);
    }
}
