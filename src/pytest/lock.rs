//! Requirements pinned as of a date: `uv pip compile --exclude-newer DATE --python-version
//! X.Y` ([`crate::tools::UV`]) resolves them with only the releases uploaded by that day,
//! for that interpreter. A history commit's tests then run with the dependencies its
//! developers had ([`crate::substrate::detect::era`]).
//!
//! The index is not quite the past: a project may have deleted its old uploads (a
//! release re-uploaded years later is all that is left), and an old sdist needs a build
//! backend to read its metadata. So build backends ([`ANY_DATE`]) are taken at any date,
//! and when uv says a package has nothing before the date, that package is too; a
//! requirement the index does not know, or that no release satisfies, is relaxed to its
//! bare name, then left out. Each such step is a note on the [`Lock`].
//!
//! Locks are cached by (uv's version, interpreter, date, requirements) in
//! `<cache>/locks/<key>.json`, written atomically; a failed resolution (no network, say)
//! is not cached.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use super::cache::write_atomically;
use crate::snapshot::sha256_hex;
use crate::tools::UV;

/// Build backends an old sdist may need to report its metadata: taken at any date.
const ANY_DATE: [&str; 7] =
    ["setuptools", "wheel", "setuptools-scm", "flit-core", "hatchling", "hatch-vcs", "poetry-core"];

/// Bump when how a lock is resolved changes, so cached locks are resolved again.
const LOCK_VERSION: &str = "2";

/// The most resolutions one lock tries (each relaxes one thing).
const MAX_TRIES: usize = 12;

/// A resolved set of requirements.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Lock {
    /// `name==version`, as uv writes them, sorted.
    pub(crate) pins: Vec<String>,
    /// What was relaxed to resolve (`atomicwrites: no release before 2018-12-01; taken at any date`).
    pub(crate) notes: Vec<String>,
}

/// `requirements` resolved for Python `python` as of `as_of` (`2019-04-30`), from the
/// cache under `cache` or with uv.
pub(crate) fn resolve(cache: &Path, python: (u32, u32), as_of: &str, requirements: &[String]) -> Result<Lock> {
    let mut sorted = requirements.to_vec();
    sorted.sort();
    let key = sha256_hex(
        format!("{LOCK_VERSION}\n{}\n{}.{}\n{as_of}\n{}", UV.version, python.0, python.1, sorted.join("\n")).as_bytes(),
    );
    let path = cache.join("locks").join(format!("{}.json", &key[..16]));
    if let Some(lock) = std::fs::read(&path).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok()) {
        return Ok(lock);
    }
    let lock = compile(&UV.binary()?, cache, python, as_of, sorted)?;
    std::fs::create_dir_all(path.parent().expect("a folder"))
        .with_context(|| format!("creating {}", path.display()))?;
    write_atomically(&path, &serde_json::to_vec_pretty(&lock)?)?;
    Ok(lock)
}

/// Resolves with `uv`, relaxing what the index cannot give as of the date. An unpinned
/// pytest is first pinned to its newest release of the date for that Python: a resolver
/// free to choose would go back to an older pytest rather than report that a dependency
/// of the newer one has lost its old uploads (pytest 3.6 to 5 need atomicwrites, whose
/// releases before 2022 were deleted), and the era's pytest would be a year older than
/// its date's.
fn compile(uv: &Path, cache: &Path, python: (u32, u32), as_of: &str, mut requirements: Vec<String>) -> Result<Lock> {
    let mut exempt: Vec<String> = ANY_DATE.iter().map(|s| s.to_string()).collect();
    let mut notes = Vec::new();
    let original = requirements.clone();
    if let Some(slot) = requirements.iter_mut().find(|r| r.as_str() == "pytest") {
        let newest = run(uv, cache, python, as_of, &["pytest".to_string()], &["--no-deps".to_string()], &exempt)?;
        let pin = pins_of(&newest).into_iter().find(|l| l.starts_with("pytest=="));
        if let Some(pin) = pin.filter(|_| newest.status.success()) {
            *slot = pin;
        }
    }
    let mut pinned = requirements != original;
    for _ in 0..MAX_TRIES {
        let output = run(uv, cache, python, as_of, &requirements, &[], &exempt)?;
        if output.status.success() {
            return Ok(Lock { pins: pins_of(&output), notes });
        }
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        match relaxation(&stderr, &requirements, &exempt) {
            Some(Relax::AnyDate(name)) => {
                notes.push(format!("{name}: no release uploaded by {as_of} is left on the index; taken at any date"));
                exempt.push(name);
            }
            Some(Relax::Unpin(index)) => {
                let bare = crate::substrate::detect::requirement::name(&requirements[index]);
                notes.push(format!("{}: no release fits; relaxed to `{bare}`", requirements[index]));
                requirements[index] = bare;
            }
            Some(Relax::Drop(index)) => {
                notes.push(format!(
                    "{}: not on the index for Python {}.{}; left out",
                    requirements[index], python.0, python.1
                ));
                requirements.remove(index);
            }
            // pytest's newest release of the date does not resolve: let uv choose one.
            None if pinned => {
                notes.push(format!("pytest's newest release of {as_of} does not resolve; uv chose an older one"));
                requirements = original.clone();
                pinned = false;
            }
            None => {
                let cause = stderr.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("no message");
                bail!("uv pip compile for Python {}.{} as of {as_of} failed: {cause}", python.0, python.1);
            }
        }
    }
    bail!("uv pip compile for Python {}.{} as of {as_of}: still unresolved after {MAX_TRIES} tries", python.0, python.1)
}

/// The `name==version` lines `uv pip compile` wrote, sorted.
fn pins_of(output: &std::process::Output) -> Vec<String> {
    let mut pins: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    pins.sort();
    pins
}

/// One `uv pip compile` of `requirements` (on its stdin) with `options` added.
fn run(
    uv: &Path,
    cache: &Path,
    python: (u32, u32),
    as_of: &str,
    requirements: &[String],
    options: &[String],
    exempt: &[String],
) -> Result<std::process::Output> {
    use std::io::Write;
    let mut command = Command::new(uv);
    command
        .args(["pip", "compile", "-", "--quiet", "--no-header", "--no-annotate", "--no-config"])
        .args(options)
        .arg("--cache-dir")
        .arg(cache.join("uv"))
        .args(["--python-version", &format!("{}.{}", python.0, python.1), "--exclude-newer", as_of]);
    for name in exempt {
        command.args(["--exclude-newer-package", &format!("{name}=2100-01-01")]);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("running {}", uv.display()))?;
    // A uv that fails at once closes its stdin: its own error, not the broken pipe, says why.
    let _ = child.stdin.take().expect("piped").write_all(requirements.join("\n").as_bytes());
    child.wait_with_output().with_context(|| format!("running {}", uv.display()))
}

/// One step that may let a failed resolution through.
#[derive(Debug, PartialEq, Eq)]
enum Relax {
    /// Take this package at any date.
    AnyDate(String),
    /// Relax this requirement (an index into the list) to its bare name.
    Unpin(usize),
    /// Leave this requirement out.
    Drop(usize),
}

/// What uv's error `stderr` asks to relax: a package with nothing before the date
/// (uv's hint names it), else a requirement of ours that the error names: unpinned when
/// it has a specifier, else left out. pytest is never left out.
fn relaxation(stderr: &str, requirements: &[String], exempt: &[String]) -> Option<Relax> {
    let name_of = crate::substrate::detect::requirement::name;
    for line in stderr.lines() {
        if let Some((_, rest)) = line.split_once("hint: `") {
            let name = rest.split('`').next().unwrap_or("");
            if rest.contains("was filtered by `exclude-newer`") && !exempt.iter().any(|e| *e == name_of(name)) {
                return Some(Relax::AnyDate(name_of(name)));
            }
        }
    }
    let named = |index: usize| {
        let name = name_of(&requirements[index]);
        let words: Vec<String> = stderr
            .split(|c: char| !(c.is_ascii_alphanumeric() || "-_.".contains(c)))
            .map(|w| w.to_ascii_lowercase().replace('_', "-"))
            .collect();
        words.contains(&name)
    };
    let index = (0..requirements.len()).find(|i| named(*i) && name_of(&requirements[*i]) != "pytest")?;
    Some(match requirements[index].trim() == name_of(&requirements[index]) {
        true => Relax::Drop(index),
        false => Relax::Unpin(index),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_package_without_old_uploads_is_taken_at_any_date() {
        let stderr = "  x No solution found when resolving dependencies:\n  hint: `atomicwrites` was filtered by `exclude-newer` to only include packages uploaded before 2018-12-02T00:00:00Z.";
        let requirements = strings(&["pytest"]);
        assert_eq!(relaxation(stderr, &requirements, &[]), Some(Relax::AnyDate("atomicwrites".into())));
        // Already exempt and still failing: nothing more to take at any date.
        assert_eq!(relaxation(stderr, &requirements, &strings(&["atomicwrites"])), None);
    }

    #[test]
    fn a_requirement_uv_names_is_unpinned_then_left_out() {
        let requirements = strings(&["pytest", "Django==1.4.22", "nosuchthing"]);
        let stderr = "  x No solution found when resolving dependencies:\n  `-> Because there is no version of django==1.4.22 and you require django==1.4.22, we can conclude that your requirements are unsatisfiable.";
        assert_eq!(relaxation(stderr, &requirements, &[]), Some(Relax::Unpin(1)));
        let stderr = "  x No solution found when resolving dependencies:\n  `-> Because nosuchthing was not found in the package registry and you require nosuchthing, we can conclude that your requirements are unsatisfiable.";
        assert_eq!(relaxation(stderr, &requirements, &[]), Some(Relax::Drop(2)));
        // pytest stays.
        let stderr = "Because there is no version of pytest and you require pytest, ...";
        assert_eq!(relaxation(stderr, &requirements, &[]), None);
    }
}
