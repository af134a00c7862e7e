//! `mergeforge resolve`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::resolve::{self, Resolver};

/// Resolve the conflict markers in files, in place, with one of the ladder's resolvers.
///
/// Each FILE's diff3 conflict blocks (as `git merge` leaves them with
/// merge.conflictStyle=diff3; without a base section a resolver that needs it leaves
/// the block) are resolved hunk by hunk or as a whole file, as the resolver does on the
/// ladder; a hunk it has no answer for keeps its markers. Prints one line per file.
///
/// With --merge instead of files, the whole merge in progress in the current
/// repository (HEAD ours, MERGE_HEAD theirs, their merge base base) is resolved by the
/// resolver's tree-level entry point, as the ladder runs it: files it changes are
/// written in the work tree (edits outside the conflicted files included), and a
/// resolver that gives up prints why, one `note:` line each.
///
/// Exit status: 0 every conflict resolved, 1 some left, 2 an error (a file unreadable,
/// the resolver failed or is not installed). A scripted agent calls the project's own
/// resolvers this way: `mergeforge resolve --resolver tokens $(git diff --name-only
/// --diff-filter=U)`, or `mergeforge resolve --resolver refactor --merge`.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct ResolveArgs {
    /// The resolver (its possible values come from the resolver catalogue).
    #[arg(long, value_name = "NAME")]
    pub(crate) resolver: String,

    /// Conflicted files, resolved in place.
    #[arg(value_name = "FILE", required_unless_present = "merge", conflicts_with = "merge")]
    pub(crate) files: Vec<PathBuf>,

    /// Resolve the merge in progress in the current directory's repository as a whole.
    #[arg(long)]
    pub(crate) merge: bool,
}

/// `--resolver`'s possible values: the catalogue's resolvers with their descriptions.
pub(super) fn resolver_values() -> super::values::NamedValue {
    super::values::NamedValue::new("resolver", || resolve::ALL.iter().map(|r| (r.name(), r.description())).collect())
}

pub(crate) fn run(args: ResolveArgs) -> Result<ExitCode> {
    let resolver = resolve::by_name(&args.resolver).with_context(|| format!("unknown resolver `{}`", args.resolver))?;
    if !resolver.available() {
        eprintln!("error: resolver `{}` is not available on this machine (is it installed?)", resolver.name());
        return Ok(ExitCode::from(2));
    }
    if args.merge {
        return super::resolve_merge::run(resolver);
    }
    let mut left = 0;
    for file in &args.files {
        match resolve_in_place(resolver, file) {
            Ok((resolved, unresolved)) => {
                println!("{}: {resolved} resolved, {unresolved} left", file.display());
                left += unresolved;
            }
            Err(e) => {
                eprintln!("error: {e:#}");
                return Ok(ExitCode::from(2));
            }
        }
    }
    Ok(if left == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Resolves `file` in place: (hunks resolved, hunks left).
fn resolve_in_place(resolver: &dyn Resolver, file: &Path) -> Result<(usize, usize)> {
    let text = std::fs::read_to_string(file).with_context(|| format!("{}: cannot read", file.display()))?;
    let hunks = resolve::segments(&text).iter().filter(|s| s.hunk.is_some()).count();
    if hunks == 0 {
        return Ok((0, 0));
    }
    let path = file.to_string_lossy();
    let resolution = match resolve::resolve_file_guarded(resolver, &path, &text) {
        Ok(resolution) => resolution,
        Err(failure) => bail!("{failure}"),
    };
    if resolution.text != text {
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let partial = file.with_file_name(format!(".{name}.mergeforge-partial"));
        std::fs::write(&partial, &resolution.text).with_context(|| format!("{}: cannot write", partial.display()))?;
        let permissions = std::fs::metadata(file)?.permissions();
        std::fs::set_permissions(&partial, permissions)?;
        std::fs::rename(&partial, file).with_context(|| format!("{}: cannot write", file.display()))?;
    }
    Ok((hunks.saturating_sub(resolution.unresolved), resolution.unresolved))
}
