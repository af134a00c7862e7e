//! Baseline resolvers: mechanical ways to resolve a conflicted file, used to level tasks.
//!
//! Each resolver is one small type behind [`Resolver`], in its own file, listed once in
//! `catalogue!`'s invocation below, which declares its module and makes [`ALL`], in
//! ladder order. Its name, description, rung, record key, eval agent and
//! availability are items of the entry; the ladder, the record, the demo page, the eval
//! agents, `gen-tasks --help` and `docs/reference/ladder.md` read them.
//!
//! A resolver turns a conflicted file's text (diff3 markers, as the merge stage writes
//! them) into a resolved text. A hunk it cannot resolve keeps its markers, so its result
//! is always a tree the tests can judge. Resolvers never see tests or families.

pub(crate) mod resolver;

pub use theirs::TakeTheirs;
pub use union::{UnionOursFirst, UnionTheirsFirst};

pub use resolver::{
    render_conflict, resolve_file_guarded, resolve_hunks, resolve_text, resolve_tree, segments, versions,
    FileResolution, Hunk, RawSegment, RecordKey, Resolver, ResolverFailure, Rung, TreeMerge, TreeResolution, Versions,
};

/// `module => [entries]`, one line a resolver's file, in ladder order: declares the
/// module and lists its entries (a value implementing [`Resolver`]) in [`ALL`].
macro_rules! catalogue {
    ($($module:ident => [$($entry:ident),+],)*) => {
        $(pub mod $module;)*

        /// Every baseline resolver, in ladder order.
        pub static ALL: &[&dyn Resolver] = &[$($(&$module::$entry),+),*];
    };
}

catalogue! {
    ours => [TakeOurs],
    theirs => [TakeTheirs],
    union => [UnionOursFirst, UnionTheirsFirst],
    tokens => [Tokens],
    rule => [Rule],
    structured => [Structured],
    mergiraf => [FROM_PATH],
    refactor => [Refactor],
}

/// The record keys of [`ALL`] in ladder order, each with its resolvers (one for an own
/// key, the members of a shared one).
pub(crate) fn record_keys() -> Vec<(&'static str, Vec<&'static dyn Resolver>)> {
    let mut keys: Vec<(&'static str, Vec<&'static dyn Resolver>)> = Vec::new();
    for resolver in ALL.iter().copied() {
        let key = resolver.record_key().key();
        match keys.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(resolver),
            None => keys.push((key, vec![resolver])),
        }
    }
    keys
}

/// Looks a resolver up by name.
pub fn by_name(name: &str) -> Option<&'static dyn Resolver> {
    ALL.iter().copied().find(|r| r.name() == name)
}

#[cfg(test)]
mod tests {
    use super::ours::TakeOurs;
    use super::*;
    use crate::merge::markers::{self, Segment};

    const TEXT: &str = "a\n<<<<<<< ours\nx\n||||||| base\ny\n=======\nz\n>>>>>>> theirs\nb\n";

    #[test]
    fn ladder_resolutions() {
        let text = |r: &dyn Resolver| r.resolve_file("f.py", TEXT).unwrap().text;
        assert_eq!(text(&TakeOurs), "a\nx\nb\n");
        assert_eq!(text(&TakeTheirs), "a\nz\nb\n");
        assert_eq!(text(&UnionOursFirst), "a\nx\nz\nb\n");
        assert_eq!(text(&UnionTheirsFirst), "a\nz\nx\nb\n");
    }

    #[test]
    fn segments_agree_with_the_marker_parser_and_keep_raw_text() {
        let texts = [
            TEXT,
            "<<<<<<< ours\nx\n=======\nz\n>>>>>>> theirs\n",
            "<<<<<<< ours\nunterminated\n",
            "a\n<<<<<<< a\n<<<<<<< b\nx\n||||||| c\n=======\ny\n>>>>>>> d\n",
        ];
        for text in texts {
            let raw = segments(text);
            assert_eq!(raw.iter().map(|s| s.raw.as_str()).collect::<String>(), text);
            let parsed = markers::parse(text);
            assert_eq!(raw.len(), parsed.len(), "{text:?}");
            for (r, p) in raw.iter().zip(&parsed) {
                match (p, &r.hunk) {
                    (Segment::Clean(c), None) => assert_eq!(c, &r.raw),
                    (Segment::Conflict { ours, base, theirs }, Some(h)) => {
                        assert_eq!((ours, base, theirs), (&h.ours, &h.base, &h.theirs))
                    }
                    _ => panic!("segments differ for {text:?}"),
                }
            }
        }
    }

    #[test]
    fn unresolved_hunks_keep_their_markers() {
        let resolution = resolve_hunks(TEXT, |_| None);
        assert_eq!(resolution, FileResolution { text: TEXT.to_string(), unresolved: 1 });
        let hunk = segments(TEXT)[1].hunk.clone().unwrap();
        assert_eq!(render_conflict(&hunk), segments(TEXT)[1].raw);
    }

    #[test]
    fn versions_stand_for_each_side() {
        let v = versions(TEXT).unwrap();
        assert_eq!((v.base.as_str(), v.ours.as_str(), v.theirs.as_str()), ("a\ny\nb\n", "a\nx\nb\n", "a\nz\nb\n"));
        assert!(versions("a\n").is_none());
    }
}
