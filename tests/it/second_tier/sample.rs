//! Every task of the committed sample holds up with plain git and pytest (the first
//! tier checks one task per family and substrate:
//! `sample::one_task_per_family_and_substrate_verifies_with_plain_git_and_pytest`).

use crate::common::*;
use crate::sample::sample_version;

#[test]
#[ignore = "second tier: re-checks every committed task with plain git and pytest (minutes)"]
fn every_committed_task_verifies_with_plain_git_and_pytest() {
    let version = sample_version();
    let manifest = read_json(&version.join("manifest.json"));
    let ids: Vec<String> =
        manifest["tasks"].as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap().to_string()).collect();
    assert!(ids.len() >= 60, "the sample has {} tasks", ids.len());
    venv_python();
    let failed = verify_tasks_with_git(&version, &ids);
    assert!(failed.is_empty(), "tasks that do not verify with plain git and pytest: {failed:?}");
}
