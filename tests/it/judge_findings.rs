//! The judgement's static findings against gold, case by case, through
//! `mergeforge findings --json`: `tests/data/judge/findings/<rule>/<case>/` holds
//! `gold/` and `tree/` (two trees; only their differing Python files are read),
//! `case.toml` (`reason = "…"`: why the case exists) and `expected.json` (the findings,
//! `[]` for none). `MERGEFORGE_BLESS=1` rewrites `expected.json` for review. Every rule
//! has a case where a wrong resolution is found and one where a correct resolution
//! shaped unlike gold is not. Adding a case is adding a folder.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::common::{mergeforge, root};

/// The rules: ruff's and the AST checks'.
const RULES: [&str; 10] =
    ["F811", "F601", "F602", "F821", "F401", "F841", "unreachable", "repeated-block", "overwritten", "syntax"];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    reason: String,
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

/// The findings `mergeforge findings` prints for a case, and its exit status.
fn found(case: &Path) -> (Value, i32) {
    let output = mergeforge()
        .args(["findings", "--json", "--gold"])
        .arg(case.join("gold"))
        .arg("--tree")
        .arg(case.join("tree"))
        .output()
        .expect("mergeforge runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let code = output.status.code().unwrap_or(-1);
    assert!(code == 0 || code == 1, "{}: exit {code}: {}", case.display(), String::from_utf8_lossy(&output.stderr));
    (serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{}: {e}: {stdout}", case.display())), code)
}

#[test]
fn every_case_finds_what_it_expects() {
    let base = root().join("tests/data/judge/findings");
    let bless = std::env::var_os("MERGEFORGE_BLESS").is_some();
    let rules: Vec<String> = folders(&base).iter().map(|p| p.file_name().unwrap().to_string_lossy().into()).collect();
    assert_eq!(
        rules,
        {
            let mut r = RULES.map(String::from).to_vec();
            r.sort();
            r
        },
        "a folder per rule"
    );
    let mut failures = Vec::new();
    for rule_dir in folders(&base) {
        let rule = rule_dir.file_name().unwrap().to_string_lossy().into_owned();
        let (mut flagged, mut clean) = (0, 0);
        for case in folders(&rule_dir) {
            let name = format!("{rule}/{}", case.file_name().unwrap().to_string_lossy());
            let toml_text = std::fs::read_to_string(case.join("case.toml")).unwrap_or_else(|e| panic!("{name}: {e}"));
            let meta: Case = toml::from_str(&toml_text).unwrap_or_else(|e| panic!("{name}: case.toml: {e}"));
            assert!(!meta.reason.trim().is_empty(), "{name}: empty reason");
            let (got, code) = found(&case);
            let list = got.as_array().unwrap_or_else(|| panic!("{name}: not an array: {got}"));
            assert_eq!(code == 1, !list.is_empty(), "{name}: exit {code} with {got}");
            if list.iter().any(|f| f["rule"] == rule.as_str()) {
                flagged += 1;
            } else if list.is_empty() {
                clean += 1;
            }
            let expected_path = case.join("expected.json");
            if bless {
                std::fs::write(&expected_path, format!("{}\n", serde_json::to_string_pretty(&got).unwrap())).unwrap();
                continue;
            }
            let expected: Value = serde_json::from_str(
                &std::fs::read_to_string(&expected_path).unwrap_or_else(|e| panic!("{name}: expected.json: {e}")),
            )
            .unwrap_or_else(|e| panic!("{name}: expected.json: {e}"));
            if got != expected {
                failures.push(format!("{name}: expected {expected}\n  got {got}"));
            }
        }
        assert!(flagged >= 1 && clean >= 1, "{rule}: {flagged} flagged and {clean} clean cases; each needs one");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
