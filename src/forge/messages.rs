//! Commit messages of a task's sides, as each side's developer would write them: what
//! that side's own change does, never the resolution, never the family.
//!
//! A mutation's description reads `original → mutated` ("`<` → `<=`"), `remove `x``,
//! or a symmetric edit ("swap the operands of `-`"). A side that undoes a mutation
//! states the change it makes to base: "`f`: use `<` instead of `<=`", "`f`: add `x`".

use crate::mutate::Mutation;

/// The message of a change that undoes `mutation` (its diff from base reverts it).
pub(crate) fn undo(mutation: &Mutation) -> String {
    let change = match arrow(&mutation.description) {
        Some((original, mutated)) => format!("use {original} instead of {mutated}"),
        None => match mutation.description.strip_prefix("remove ") {
            Some(removed) => format!("add {removed}"),
            None => mutation.description.clone(),
        },
    };
    subject(mutation, &change)
}

/// The message of a change that replaces `base_has`'s edit by `instead`'s (two
/// mutations of the same node): "`f`: use `C` instead of `B`".
pub(crate) fn replace(base_has: &Mutation, instead: &Mutation) -> String {
    match (arrow(&base_has.description), arrow(&instead.description)) {
        (Some((_, current)), Some((_, new))) => subject(instead, &format!("use {new} instead of {current}")),
        _ => subject(instead, &format!("change line {}", instead.line)),
    }
}

/// `<where>: <change>`, where is the enclosing function (else the file).
pub(crate) fn subject(mutation: &Mutation, change: &str) -> String {
    match &mutation.function {
        Some(function) => format!("`{function}`: {change}"),
        None => format!("{}: {change}", mutation.path),
    }
}

/// The two sides of an `original → mutated` description.
fn arrow(description: &str) -> Option<(&str, &str)> {
    let (original, mutated) = description.split_once(" → ")?;
    Some((original.trim(), mutated.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::OperatorKind;

    fn mutation(description: &str) -> Mutation {
        Mutation {
            operator: crate::mutate::OperatorRef::parse("flip-compare").unwrap(),
            kind: OperatorKind::Alter,
            path: "pkg/a.py".into(),
            function: Some("clamp".into()),
            line: 3,
            start: 0,
            end: 1,
            replacement: String::new(),
            description: description.into(),
        }
    }

    #[test]
    fn messages_state_the_sides_own_change() {
        assert_eq!(undo(&mutation("`<` → `<=`")), "`clamp`: use `<` instead of `<=`");
        assert_eq!(undo(&mutation("remove `x = 1`")), "`clamp`: add `x = 1`");
        assert_eq!(undo(&mutation("swap the operands of `-`")), "`clamp`: swap the operands of `-`");
        assert_eq!(replace(&mutation("`<` → `<=`"), &mutation("`<` → `>`")), "`clamp`: use `>` instead of `<=`");
    }
}
