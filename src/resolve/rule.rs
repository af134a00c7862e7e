//! `rule`: the classic rule-based resolver, hunk by hunk. The first rule that applies
//! decides:
//!
//! 1. one side equal to base (ignoring trailing whitespace) → take the other side;
//! 2. both sides equal modulo whitespace → take ours;
//! 3. one side's lines contain the other's as a subsequence (a superset) → take the
//!    superset.
//!
//! Any other hunk is left conflicted.

use super::resolver::{trimmed_lines, Hunk, RecordKey, Resolver, Rung};

/// The rule-based resolver.
pub(crate) struct Rule;

impl Resolver for Rule {
    fn name(&self) -> &'static str {
        "rule"
    }
    fn description(&self) -> &'static str {
        "The rule-based resolver, hunk by hunk: one side equal to base → the other; sides equal modulo whitespace → ours; one side's lines a superset of the other's → the superset; any other hunk left conflicted."
    }
    fn rung(&self) -> Rung {
        Rung::Medium
    }
    fn record_key(&self) -> RecordKey {
        RecordKey::Own("rule")
    }
    fn agent(&self) -> Option<&'static str> {
        None
    }
    fn available(&self) -> bool {
        true
    }

    fn resolve_hunk(&self, hunk: &Hunk) -> Option<String> {
        let (ours, base, theirs) = (trimmed_lines(&hunk.ours), trimmed_lines(&hunk.base), trimmed_lines(&hunk.theirs));
        if ours == base {
            return Some(hunk.theirs.clone());
        }
        if theirs == base {
            return Some(hunk.ours.clone());
        }
        if squeeze(&hunk.ours) == squeeze(&hunk.theirs) {
            return Some(hunk.ours.clone());
        }
        if is_subsequence(&theirs, &ours) {
            return Some(hunk.ours.clone());
        }
        if is_subsequence(&ours, &theirs) {
            return Some(hunk.theirs.clone());
        }
        None
    }
}

/// The text with every run of whitespace (newlines included) made one space, trimmed.
fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether every line of `small` appears in `big`, in order.
fn is_subsequence(small: &[&str], big: &[&str]) -> bool {
    let mut rest = big.iter();
    small.iter().all(|line| rest.any(|candidate| candidate == line))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hunk(ours: &str, base: &str, theirs: &str) -> Hunk {
        Hunk { ours: ours.into(), base: base.into(), theirs: theirs.into() }
    }

    #[test]
    fn rules_in_order() {
        assert_eq!(Rule.resolve_hunk(&hunk("a\n", "a\n", "b\n")), Some("b\n".into()));
        assert_eq!(Rule.resolve_hunk(&hunk("b\n", "a\n", "a  \n")), Some("b\n".into()));
        assert_eq!(Rule.resolve_hunk(&hunk("f(a,  b)\n", "x\n", "f(a, b)\n")), Some("f(a,  b)\n".into()));
        assert_eq!(Rule.resolve_hunk(&hunk("a\nb\nc\n", "", "a\nc\n")), Some("a\nb\nc\n".into()));
        assert_eq!(Rule.resolve_hunk(&hunk("b\n", "", "a\nb\n")), Some("a\nb\n".into()));
        assert_eq!(Rule.resolve_hunk(&hunk("x = 1\n", "x = 0\n", "x = 2\n")), None);
    }
}
