//! `structured`: an AST-aware merge of the two sides' changes relative to base, for
//! Python files.
//!
//! The conflicted file stands for three whole versions ([`crate::resolve::resolver::versions`]); each is
//! parsed (rustpython-parser) into a tree of statement texts ([`tree`]) and the trees are
//! merged statement by statement ([`merge`]): statement insertions at the same place are
//! combined, edits of different statements of a block (even adjacent ones) are both
//! applied, compound statements both sides changed are merged body by body, and two
//! edits of one import are unioned ([`imports`]). Class members are statements of the
//! class body, so members both sides add are unioned the same way. Two different edits
//! of one simple statement conflict, and then the whole file stays conflicted: the
//! merged text must also parse.

pub(crate) mod imports;
pub(crate) mod merge;
pub(crate) mod tree;

use crate::python::parses;
use crate::resolve::resolver::{FileResolution, RecordKey, Resolver, ResolverFailure, Rung};

/// The structured resolver.
pub(crate) struct Structured;

impl Resolver for Structured {
    fn name(&self) -> &'static str {
        "structured"
    }
    fn description(&self) -> &'static str {
        "A Python-aware merge of both sides' statement changes relative to base (insertions at one place combined, edits of different statements applied, compound statements merged body by body, imports unioned); a file it cannot merge is left conflicted."
    }
    fn rung(&self) -> Rung {
        Rung::Medium
    }
    fn record_key(&self) -> RecordKey {
        RecordKey::Own("structured")
    }
    fn agent(&self) -> Option<&'static str> {
        None
    }
    fn available(&self) -> bool {
        true
    }

    fn resolve_file(&self, path: &str, conflicted: &str) -> Result<FileResolution, ResolverFailure> {
        let Some(versions) = crate::resolve::resolver::versions(conflicted) else {
            return Ok(FileResolution { text: conflicted.to_string(), unresolved: 0 });
        };
        if !path.ends_with(".py") {
            return Ok(FileResolution::unresolved(conflicted));
        }
        Ok(match merge_python(&versions.base, &versions.ours, &versions.theirs, path) {
            Some(text) => FileResolution { text, unresolved: 0 },
            None => FileResolution::unresolved(conflicted),
        })
    }
}

/// The structured merge of three versions of a Python file, `None` on a conflict.
pub(crate) fn merge_python(base: &str, ours: &str, theirs: &str, path: &str) -> Option<String> {
    let parse = tree::Module::parse;
    let merged = merge::merge_module(&parse(base)?, &parse(ours)?, &parse(theirs)?)?;
    parses(&merged, path).then_some(merged)
}
