//! Data-driven tests of the mutation operators.
//!
//! Every folder under `tests/data/mutate/` is one case and must hold:
//!
//! * `input.py`: the source the operator runs on;
//! * `case.toml`: `operator = "<name>"`, `index = <n>` (which of the operator's
//!   mutations of `input.py` to apply, in the order it returns them) and `count = <n>`
//!   (how many mutations it must return for `input.py`);
//! * `expected.py`: `input.py` after applying that one mutation with
//!   `mergeforge::mutate::apply`, byte for byte.
//!
//! Beyond the expected text, every mutation of every case must apply and parse, sit in
//! source order, carry the operator's name and kind, and come out the same on a second
//! run. Adding a case needs no code.

use std::fs;
use std::path::{Path, PathBuf};

use mergeforge::mutate::{self, Mutation, PyModule};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseSpec {
    operator: String,
    index: usize,
    count: usize,
}

fn cases_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mutate")
}

/// Every case folder, sorted by name.
fn case_dirs() -> Vec<PathBuf> {
    let root = cases_root();
    let entries = fs::read_dir(&root).unwrap_or_else(|e| panic!("cannot read {}: {e}", root.display()));
    let mut dirs: Vec<PathBuf> =
        entries.map(|entry| entry.expect("directory entry").path()).filter(|path| path.is_dir()).collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no cases under {}", root.display());
    dirs
}

fn read(dir: &Path, file: &str) -> Result<String, String> {
    let path = dir.join(file);
    fs::read_to_string(&path).map_err(|e| format!("missing or unreadable `{file}`: {e}"))
}

fn describe(mutations: &[Mutation]) -> String {
    mutations
        .iter()
        .enumerate()
        .map(|(i, m)| {
            format!("    [{i}] line {} {}..{}: {} => {:?}", m.line, m.start, m.end, m.description, m.replacement)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs one case; returns the operator it exercised.
fn run_case(dir: &Path) -> Result<String, String> {
    let input = read(dir, "input.py")?;
    let expected = read(dir, "expected.py")?;
    let spec: CaseSpec = toml::from_str(&read(dir, "case.toml")?).map_err(|e| format!("bad case.toml: {e}"))?;

    let operator = mutate::operator(&spec.operator).ok_or_else(|| format!("unknown operator `{}`", spec.operator))?;
    let module = PyModule::parse("input.py", &input).map_err(|e| format!("input.py does not parse: {e}"))?;
    let mutations = operator.mutations(&module);
    let listing = describe(&mutations);

    if mutations != operator.mutations(&module) {
        return Err("mutations differ between two runs".into());
    }
    if mutations.len() != spec.count {
        return Err(format!("expected {} mutations, got {}:\n{listing}", spec.count, mutations.len()));
    }
    for (i, m) in mutations.iter().enumerate() {
        if m.operator != operator.name() || m.kind != operator.kind() {
            return Err(format!("mutation [{i}] is labelled {} / {:?}", m.operator, m.kind));
        }
        if m.line != module.line_of(m.start) {
            return Err(format!("mutation [{i}] says line {}, starts on line {}", m.line, module.line_of(m.start)));
        }
        if mutate::apply(&input, "input.py", &[m]).is_none() {
            return Err(format!("mutation [{i}] does not apply or does not parse:\n{listing}"));
        }
    }
    if mutations.windows(2).any(|w| (w[0].start, w[0].end) > (w[1].start, w[1].end)) {
        return Err(format!("mutations are not in source order:\n{listing}"));
    }

    let chosen = mutations.get(spec.index).ok_or_else(|| format!("index {} out of range:\n{listing}", spec.index))?;
    let actual = mutate::apply(&input, "input.py", &[chosen]).ok_or("the chosen mutation does not apply")?;
    if actual != expected {
        return Err(format!(
            "mutation [{}] ({}) gives a different text.\n--- expected.py\n{expected}\n--- actual\n{actual}\n---\nall mutations:\n{listing}",
            spec.index, chosen.description
        ));
    }
    Ok(spec.operator)
}

#[test]
fn mutation_cases() {
    let mut failures = Vec::new();
    let dirs = case_dirs();
    for dir in &dirs {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if let Err(message) = run_case(dir) {
            failures.push(format!("case `{name}`: {message}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n\n{}", failures.len(), dirs.len(), failures.join("\n\n"));
}

#[test]
fn every_operator_has_a_case() {
    let mut covered = Vec::new();
    for dir in case_dirs() {
        if let Ok(text) = fs::read_to_string(dir.join("case.toml")) {
            if let Ok(spec) = toml::from_str::<CaseSpec>(&text) {
                covered.push(spec.operator);
            }
        }
    }
    let missing: Vec<&str> =
        mutate::catalogue().iter().map(|op| op.name()).filter(|name| !covered.iter().any(|c| c == name)).collect();
    assert!(missing.is_empty(), "operators without a case: {missing:?}");
}

#[test]
fn operator_names_are_unique() {
    let names: Vec<&str> = mutate::catalogue().iter().map(|op| op.name()).collect();
    for (i, name) in names.iter().enumerate() {
        assert!(!names[..i].contains(name), "operator `{name}` is listed twice");
    }
}
