//! A task's scale: how much the two branches change, by DESIGN.md's bars.
//!
//! | scale | each side | files the sides change | interactions |
//! |---|---|---|---|
//! | small | one or two intents, or one side of one | any | any |
//! | medium | 2–3 intents (more, short of large) | ≥ 2 | any |
//! | large | 4–8 intents | ≥ 4 | ≥ 6 |
//!
//! An interaction is a refactor or contract change on one side reaching the other
//! side's new code. The level stays the ladder's; the scale is what a task asks of an
//! agent in volume.

use serde::{Deserialize, Serialize};

/// How much a task's branches change.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumString,
    clap::ValueEnum,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Scale {
    /// One or two intents a side (every task of a version written before scales).
    #[default]
    Small,
    /// 2–3 intents a side across at least 2 files.
    Medium,
    /// 4–8 intents a side across at least 4 files, with at least 6 interactions.
    Large,
}

impl Scale {
    pub(crate) const ALL: [Scale; 3] = [Scale::Small, Scale::Medium, Scale::Large];

    /// The lowercase name, as serde writes it.
    pub(crate) fn name(self) -> &'static str {
        self.into()
    }

    /// The scale of a task whose sides make `intents` intents each, changing `files`
    /// files between them, with `interactions` interactions.
    pub(crate) fn of(intents: [usize; 2], files: usize, interactions: usize) -> Scale {
        let fewest = intents[0].min(intents[1]);
        if fewest >= 4 && files >= 4 && interactions >= 6 {
            Scale::Large
        } else if fewest >= 2 && files >= 2 {
            Scale::Medium
        } else {
            Scale::Small
        }
    }
}

impl std::fmt::Display for Scale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bars_of_each_scale() {
        assert_eq!(Scale::of([1, 1], 1, 0), Scale::Small);
        // Two intents a side in one file stay small; across two files they are medium.
        assert_eq!(Scale::of([2, 2], 1, 0), Scale::Small);
        assert_eq!(Scale::of([2, 3], 2, 1), Scale::Medium);
        // One side of one intent keeps a task small however large the other.
        assert_eq!(Scale::of([1, 6], 5, 8), Scale::Small);
        // Large needs every bar; short of one it is medium.
        assert_eq!(Scale::of([4, 5], 4, 6), Scale::Large);
        assert_eq!(Scale::of([4, 5], 4, 5), Scale::Medium);
        assert_eq!(Scale::of([4, 5], 3, 6), Scale::Medium);
        assert_eq!(Scale::ALL.map(Scale::name), ["small", "medium", "large"]);
    }
}
