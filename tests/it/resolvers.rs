//! The baseline resolvers, case by case: `tests/data/resolve/<resolver>/<case>/` holds
//! `base.py`, `ours.py`, `theirs.py`, `case.toml` (why the case exists) and, unless the
//! case says `unresolved = true`, `expected.py`. The runner merges the three versions
//! with git (diff3 markers, as gen-tasks does), hands the conflicted file to the
//! resolver named by the folder, and compares. Adding a case is adding a folder.
//!
//! A tree-level resolver's case (the `refactor` rung's) holds whole trees instead:
//! `base/`, `ours/`, `theirs/` and `expected/` folders, or `refused = "…"` in
//! `case.toml` (a part of the reason the resolver gives when it refuses); the runner
//! merges the trees file by file with git and hands the whole merge to
//! [`Resolver::resolve_tree`]. No case has a `solution.json`: the resolver sees the
//! trees alone.
//!
//! `mergiraf` cases run when a mergiraf binary is available: `$MERGEFORGE_MERGIRAF`, on
//! PATH, or the pinned release gen-tasks installed into the user cache (see
//! `mergeforge::resolve::mergiraf`); otherwise they are reported as skipped.

use std::path::{Path, PathBuf};

use mergeforge::resolve::{self, Resolver};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// What the case is about.
    reason: String,
    /// The resolver must leave at least one hunk conflicted.
    #[serde(default)]
    unresolved: bool,
    /// Tree cases: the resolver must refuse, with a reason containing this.
    #[serde(default)]
    refused: Option<String>,
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The conflicted file git makes of the three versions (labels ours/base/theirs).
fn conflicted(base: &str, ours: &str, theirs: &str) -> Option<String> {
    fn input(text: &str) -> git2::MergeFileInput<'_> {
        let mut input = git2::MergeFileInput::new();
        input.content(text.as_bytes()).path("case.py");
        input
    }
    // git2::merge_file does not initialise libgit2 itself; building a config does.
    git2::Config::new().expect("libgit2 initialises");
    let mut options = git2::MergeFileOptions::new();
    options.style_diff3(true).our_label("ours").their_label("theirs").ancestor_label("base");
    let merged =
        git2::merge_file(&input(base), &input(ours), &input(theirs), Some(&mut options)).expect("git merge_file");
    (!merged.is_automergeable()).then(|| String::from_utf8(merged.content().to_vec()).expect("utf-8 merge"))
}

fn folders(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

/// Whether a case folder holds trees (a tree-level resolver's case).
fn is_tree_case(dir: &Path) -> bool {
    dir.join("base").is_dir()
}

/// Every file under `dir`, by path relative to it.
fn tree(dir: &Path) -> mergeforge::snapshot::Snapshot {
    fn walk(root: &Path, dir: &Path, out: &mut mergeforge::snapshot::Snapshot) {
        for entry in folders(dir) {
            walk(root, &entry, out);
        }
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                let rel = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&path).unwrap().into());
            }
        }
    }
    let mut out = mergeforge::snapshot::Snapshot::new();
    walk(dir, dir, &mut out);
    out
}

/// Runs one tree case; `Err` describes a failure.
fn run_tree_case(resolver: &dyn Resolver, dir: &Path, case: &Case) -> Result<(), String> {
    let (base, ours, theirs) = (tree(&dir.join("base")), tree(&dir.join("ours")), tree(&dir.join("theirs")));
    let mut merged = mergeforge::snapshot::Snapshot::new();
    let mut paths = Vec::new();
    for path in base.keys().chain(ours.keys()).chain(theirs.keys()).collect::<std::collections::BTreeSet<_>>() {
        let text =
            |t: &mergeforge::snapshot::Snapshot| mergeforge::snapshot::text_of(t, path).unwrap_or("").to_string();
        let (b, o, t) = (text(&base), text(&ours), text(&theirs));
        let file = match conflicted(&b, &o, &t) {
            Some(marked) => {
                paths.push(path.clone());
                marked
            }
            None if o == t || b == t => o,
            None => t,
        };
        if ours.contains_key(path) || theirs.contains_key(path) {
            merged.insert(path.clone(), file.into_bytes().into());
        }
    }
    if paths.is_empty() {
        return Err("base, ours and theirs merge without conflict; a case needs one".into());
    }
    let merge =
        resolve::TreeMerge { base: &base, ours: &ours, theirs: &theirs, conflicted: &merged, conflicted_paths: &paths };
    let resolution = resolve::resolve_tree(resolver, &merge).expect("the resolver runs");
    match (&case.refused, dir.join("expected").is_dir()) {
        (Some(_), true) => Err("a refused case has no expected/".into()),
        (None, false) => Err("expected/ is missing (or say refused = \"…\")".into()),
        (Some(reason), false) => {
            let said = resolution.notes.join("\n");
            match resolution.unresolved > 0 && resolution.tree == merged && said.contains(reason.as_str()) {
                true => Ok(()),
                false => Err(format!(
                    "expected a refusal saying {reason:?}, got {} hunks left and notes:\n{said}",
                    resolution.unresolved
                )),
            }
        }
        (None, true) => {
            let want = tree(&dir.join("expected"));
            match (resolution.unresolved, resolution.tree == want) {
                (0, true) => Ok(()),
                _ => Err(format!(
                    "{} hunks left, notes {:?}; resolution differs:\n{}",
                    resolution.unresolved,
                    resolution.notes,
                    resolution
                        .tree
                        .iter()
                        .filter(|(p, c)| want.get(*p) != Some(c))
                        .map(|(p, c)| format!("--- {p}\n{}", String::from_utf8_lossy(c)))
                        .collect::<String>()
                )),
            }
        }
    }
}

/// Runs one case; `Err` describes a failure.
fn run_case(resolver: &dyn Resolver, dir: &Path) -> Result<(), String> {
    let case: Case = toml::from_str(&read(&dir.join("case.toml"))).map_err(|e| format!("case.toml: {e}"))?;
    if case.reason.trim().is_empty() {
        return Err("case.toml: empty reason".into());
    }
    if is_tree_case(dir) {
        return run_tree_case(resolver, dir, &case);
    }
    let (base, ours, theirs) = (read(&dir.join("base.py")), read(&dir.join("ours.py")), read(&dir.join("theirs.py")));
    let text =
        conflicted(&base, &ours, &theirs).ok_or("base, ours and theirs merge without conflict; a case needs one")?;
    let resolution = resolver.resolve_file("case.py", &text).expect("the resolver runs");
    let expected = dir.join("expected.py");
    match (case.unresolved, expected.exists()) {
        (true, true) => Err("an unresolved case has no expected.py".into()),
        (false, false) => Err("expected.py is missing (or say unresolved = true)".into()),
        (true, false) if resolution.unresolved == 0 => {
            Err(format!("expected a conflict to remain, got a resolution:\n{}", resolution.text))
        }
        (true, false) => {
            let kept = resolve::segments(&resolution.text).iter().filter(|s| s.hunk.is_some()).count();
            (kept == resolution.unresolved)
                .then_some(())
                .ok_or(format!("reported {} unresolved hunks but the text has {kept}", resolution.unresolved))
        }
        (false, true) => {
            let want = read(&expected);
            if resolution.unresolved > 0 {
                Err(format!("left {} hunks unresolved:\n{}", resolution.unresolved, resolution.text))
            } else if resolution.text != want {
                Err(format!("resolution differs\n--- got\n{}--- expected\n{want}", resolution.text))
            } else {
                Ok(())
            }
        }
    }
}

#[test]
fn every_resolver_case() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/resolve");
    let mut failures = Vec::new();
    let mut ran = 0;
    for resolver_dir in folders(&root) {
        let name = resolver_dir.file_name().unwrap().to_string_lossy().into_owned();
        let Some(resolver) = resolve::by_name(&name) else {
            failures.push(format!("{name}: no resolver of that name in mergeforge::resolve::ALL"));
            continue;
        };
        if name == "mergiraf" && !resolve::mergiraf::FROM_PATH.available() {
            eprintln!(
                "skipped: mergiraf cases ({:?}: no mergiraf binary in ${}, on PATH or in the cache; `mergeforge gen-tasks` installs one)",
                resolve::mergiraf::FROM_PATH.choice(),
                resolve::mergiraf::ENV_VAR
            );
            continue;
        }
        for case in folders(&resolver_dir) {
            ran += 1;
            if let Err(problem) = run_case(resolver, &case) {
                failures.push(format!("{name}/{}: {problem}", case.file_name().unwrap().to_string_lossy()));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {ran} resolver cases fail:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_listed_resolver_has_cases() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/resolve");
    for resolver in resolve::ALL {
        let dir = root.join(resolver.name());
        assert!(!folders(&dir).is_empty(), "{}: no cases under {}", resolver.name(), dir.display());
    }
}

#[test]
fn rule_tokens_and_structured_leave_the_file_as_it_was_when_they_fail() {
    let text = conflicted("x = 1\n", "x = 2\n", "x = 3\n").unwrap();
    for name in ["rule", "tokens", "structured"] {
        let resolution = resolve::by_name(name).unwrap().resolve_file("case.py", &text).expect("the resolver runs");
        assert_eq!((resolution.text.as_str(), resolution.unresolved), (text.as_str(), 1), "{name}");
    }
}

/// `mergeforge resolve` gives every case's answer through the command line, in place:
/// exit 0 and the expected text, or exit 1 with the markers left; 2 for a missing file.
#[test]
fn the_resolve_command_agrees_with_every_case() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/resolve");
    let work = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for resolver_dir in folders(&root) {
        let name = resolver_dir.file_name().unwrap().to_string_lossy().into_owned();
        if name == "mergiraf" && !resolve::mergiraf::FROM_PATH.available() {
            continue;
        }
        for case in folders(&resolver_dir).into_iter().filter(|c| !is_tree_case(c)) {
            let read_case = |file: &str| read(&case.join(file));
            let Some(text) = conflicted(&read_case("base.py"), &read_case("ours.py"), &read_case("theirs.py")) else {
                continue;
            };
            let file = work.path().join(format!("{name}-{}.py", case.file_name().unwrap().to_string_lossy()));
            std::fs::write(&file, &text).unwrap();
            let output = crate::common::run_mergeforge(&["resolve", "--resolver", &name, file.to_str().unwrap()]);
            let got = read(&file);
            let expected = case.join("expected.py");
            let ok = match output.status.code() {
                Some(0) => expected.exists() && got == read(&expected),
                Some(1) => !expected.exists() && resolve::segments(&got).iter().any(|s| s.hunk.is_some()),
                _ => false,
            };
            if !ok {
                failures.push(format!(
                    "{name}/{}: exit {:?}, {}",
                    case.file_name().unwrap().to_string_lossy(),
                    output.status.code(),
                    String::from_utf8_lossy(&output.stderr).trim()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "mergeforge resolve disagrees:\n{}", failures.join("\n"));
    let missing = work.path().join("missing.py");
    let output = crate::common::run_mergeforge(&["resolve", "--resolver", "ours", missing.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.code() == Some(2) && stderr.contains("missing.py: cannot read"), "{stderr}");
}
