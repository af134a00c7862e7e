//! The duplicated-logic check, case by case: every folder under
//! `tests/data/env/duplication/` holds `ours.py`, `theirs.py`, `gold.py`,
//! `resolution.py` and `expected` (`duplicated` or `clean`). Adding a case is adding a
//! folder.

use mergeforge::env::duplication::Twins;

#[test]
fn every_case_gets_the_expected_verdict() {
    let dir = crate::common::root().join("tests/data/env/duplication");
    let mut cases: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    cases.sort();
    assert!(cases.len() >= 5, "the cases are present");
    let mut failures = Vec::new();
    for case in &cases {
        let read = |name: &str| {
            std::fs::read_to_string(case.join(name)).unwrap_or_else(|e| panic!("{}: {e}", case.join(name).display()))
        };
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let twins = Twins::new("module.py", &read("ours.py"), &read("theirs.py"), &read("gold.py"))
            .unwrap_or_else(|| panic!("{name}: a reference file does not parse"));
        let verdict = twins.duplicated(&read("resolution.py"));
        let expected = read("expected").trim().to_string();
        let got = if verdict.is_some() { "duplicated" } else { "clean" };
        if got != expected {
            failures.push(format!("{name}: expected {expected}, got {got} ({verdict:?})"));
        }
        // Gold is never a duplication of itself.
        assert_eq!(twins.duplicated(&read("gold.py")), None, "{name}: gold flagged");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
