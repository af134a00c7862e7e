//! Whether a rename keeps what a name says: never to a vaguer word, never between two
//! words often swapped that name different ideas. The synonym table of `naming` is held
//! to this rule by a test.

/// Words that say little about what they name (`data`, `value`, `item`): a rename never
/// goes to one from a word that says more.
const VAGUE: &[&str] = &[
    "data", "value", "val", "info", "item", "obj", "object", "content", "payload", "result", "res", "ret", "thing",
    "stuff", "tmp", "temp", "lst", "elem",
];

/// Words often swapped that name different ideas: an amount is one kind of value, a
/// label is not a name, an offset is not a position. A rename from one to the other
/// (either way, plurals too) changes what the name says.
const MEANING_SHIFTS: &[(&str, &str)] = &[
    ("value", "amount"),
    ("name", "label"),
    ("sort", "order"),
    ("position", "offset"),
    ("line", "row"),
    ("word", "token"),
    ("handle", "process"),
    ("count", "tally"),
    ("message", "text"),
    ("text", "content"),
    ("data", "payload"),
    ("result", "outcome"),
];

/// Whether `word` (lower case, a plural too) is one of the [`VAGUE`] words.
pub(crate) fn is_vague(word: &str) -> bool {
    let stem = word.strip_suffix('s').filter(|s| s.len() > 2).unwrap_or(word);
    VAGUE.contains(&word) || VAGUE.contains(&stem)
}

/// Whether renaming the word `old` to `new` (lower case) keeps what a name says: `new`
/// is not vaguer ([`VAGUE`] when `old` is not) and the two are no [`MEANING_SHIFTS`] pair.
pub(crate) fn keeps_meaning(old: &str, new: &str) -> bool {
    let stem = |w: &str| w.strip_suffix('s').filter(|s| s.len() > 2).unwrap_or(w).to_string();
    let (old, new) = (stem(old), stem(new));
    let vaguer = VAGUE.contains(&new.as_str()) && !VAGUE.contains(&old.as_str());
    let shift = MEANING_SHIFTS.iter().any(|(a, b)| (*a == old && *b == new) || (*a == new && *b == old));
    !vaguer && !shift
}

#[cfg(test)]
mod tests {
    use super::super::SYNONYMS;
    use super::*;

    #[test]
    fn every_synonym_keeps_what_the_name_says() {
        for (old, new) in SYNONYMS {
            assert!(keeps_meaning(old, new), "{old} -> {new}");
        }
        for (old, new) in
            [("amount", "value"), ("value", "amount"), ("labels", "names"), ("entry", "item"), ("text", "content")]
        {
            assert!(!keeps_meaning(old, new), "{old} -> {new} should be refused");
        }
        assert!(keeps_meaning("val", "value") && keeps_meaning("idx", "index") && keeps_meaning("lst", "items"));
    }
}
