//! `mergeforge gen-tasks` end to end: real substrates, real git, real pytest.

use std::path::Path;

use crate::common::*;

/// Generates a small dataset from one substrate into `out` (sharing `cache`).
fn generate(substrate: &str, out: &Path, cache: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "gen-tasks",
        "--substrate",
        substrate,
        "--out",
        out.to_str().unwrap(),
        "--cache",
        cache.to_str().unwrap(),
        "--per-cell",
        "1",
        "--candidates-per-cell",
        "6",
        "--json",
    ];
    args.extend_from_slice(extra);
    run_mergeforge(&args)
}

fn report(output: &std::process::Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "gen-tasks failed: {}\n{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    serde_json::from_slice(&output.stdout).expect("--json prints JSON")
}

#[test]
fn tasks_verify_with_plain_git_and_are_deterministic() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    let first = work.path().join("a");
    let second = work.path().join("b");
    let families = ["--families", "strip-restore,divergent-edit,compose-edits"];

    let mut args = families.to_vec();
    args.extend(["--jobs", "1"]);
    let one = report(&generate("substrates/calculator", &first, &cache, &args));
    assert_eq!(one["result"], "created");
    assert_eq!(one["tasks"], 3, "one task per family: {one}");
    // divergent-edit is easy; strip-restore medium, and so is compose-edits: its sides
    // edit different tokens, which `tokens` (a token-level diff3) and mergiraf combine.
    assert_eq!(one["ladder"]["complete"], true, "{one}");
    // Repair families read no intent sites.
    assert_eq!(one["sites"], serde_json::json!({}), "{one}");
    for (level, count) in [("easy", 1), ("medium", 2), ("hard", 0)] {
        assert_eq!(one["by_level"][level], count, "{one}");
    }

    // Same seed, other --jobs, shared outcome cache: byte-identical version.
    let mut args = families.to_vec();
    args.extend(["--jobs", "2"]);
    report(&generate("substrates/calculator", &second, &cache, &args));
    let version_a = first.join("mergeforge/1.0.0");
    let version_b = second.join("mergeforge/1.0.0");
    assert_eq!(read_tree(&version_a), read_tree(&version_b), "--jobs changed the output");

    // Running again into the same folder reproduces it and says so.
    let again = report(&generate("substrates/calculator", &first, &cache, &families));
    assert_eq!(again["result"], "reproduced");

    // Every task holds up with plain git and pytest.
    let manifest = read_json(&version_a.join("manifest.json"));
    assert_eq!(manifest["schema"], "mergeforge.manifest/3");
    for entry in manifest["tasks"].as_array().unwrap() {
        let id = entry["id"].as_str().unwrap();
        let task_json = std::fs::read(version_a.join("tasks").join(id).join("task.json")).unwrap();
        assert_eq!(entry["sha256"], mergeforge::snapshot::sha256_hex(&task_json));
        verify_task_with_git(&version_a.join("tasks").join(id));
    }
}

#[test]
fn large_tasks_deal_pairs_across_branches_of_one_commit_per_intent() {
    let work = tempfile::tempdir().unwrap();
    let (out, cache) = (work.path().join("out"), work.path().join("cache"));
    // feature-contract, seed 1: since renames that change a name's meaning are refused,
    // processor's renames deal one large feature-refactor candidate, which fails a side
    // (a rejection the validation exists for); under seed 0 the first contract one is
    // medium. The test is about the shape of a large task.
    let args = ["--scale", "large", "--families", "feature-contract", "--seed", "1"];
    let one = report(&generate("substrates/processor", &out, &cache, &args));
    assert_eq!(one["by_scale"]["large"], 1, "{one}");
    let version = out.join("mergeforge/1.0.0");
    let manifest = read_json(&version.join("manifest.json"));
    let entry = &manifest["tasks"][0];
    assert_eq!(entry["scale"], "large");
    let task_dir = version.join("tasks").join(entry["id"].as_str().unwrap());
    let solution = read_json(&task_dir.join("solution.json"));
    // Six intents a side, one commit each, with as many messages; six edges or more
    // witnessed (the large bar counts witnessed edges only).
    for side in ["ours", "theirs"] {
        let commits = solution["intents"][side]["commits"].as_array().unwrap();
        assert_eq!(commits.len(), 6, "{side}: {commits:?}");
        assert_eq!(solution["intents"][side]["changes"].as_array().unwrap().len(), 6);
    }
    let edges = solution["interactions"].as_array().unwrap();
    assert!(edges.iter().filter(|e| e["witnessed"] == true).count() >= 6, "{edges:?}");
    // Every commit passes its own suite, none shares author and date with another.
    verify_task_with_git(&task_dir);

    // Only the families that deal branches make large tasks: one line says which.
    let refused =
        run_mergeforge(&["gen-tasks", "--scale", "large", "--families", "strip-restore", "--out", "/nonexistent"]);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("family strip-restore makes small tasks only") && stderr.lines().count() == 1, "{stderr}");
}

#[test]
fn a_different_version_is_never_overwritten() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    let out = work.path().join("out");
    let families = ["--families", "divergent-edit"];
    report(&generate("substrates/calculator", &out, &cache, &families));
    let version = out.join("mergeforge/1.0.0");
    let before = read_tree(&version);

    let mut args = families.to_vec();
    args.extend(["--seed", "7"]);
    let output = generate("substrates/calculator", &out, &cache, &args);
    assert!(!output.status.success(), "a different dataset under an existing version was accepted");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("already exists with different content"), "{stderr}");
    assert_eq!(read_tree(&version), before, "the existing version was touched");
    let leftovers: Vec<_> =
        std::fs::read_dir(out.join("mergeforge")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers, vec![std::ffi::OsString::from("1.0.0")], "staging folders left behind");
}

#[test]
fn a_git_repository_is_read_at_head_with_a_test_command() {
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("repo");
    copy_dir(&root().join("substrates/calculator"), &repo);
    std::fs::remove_file(repo.join("substrate.toml")).unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "initial"]);
    // Uncommitted changes are not part of the substrate.
    std::fs::write(repo.join("calculator.py"), "this is not python(").unwrap();
    let head = git(&repo, &["rev-parse", "HEAD"]).trim().to_string();

    let out = work.path().join("out");
    let output = generate(
        repo.to_str().unwrap(),
        &out,
        &work.path().join("cache"),
        &["--families", "divergent-edit", "--test-cmd", "python -m pytest -q -p no:cacheprovider tests/"],
    );
    let summary = report(&output);
    assert_eq!(summary["tasks"], 1, "{summary}");
    let manifest = read_json(&out.join("mergeforge/1.0.0/manifest.json"));
    assert_eq!(manifest["substrates"][0]["commit"], head.as_str());
    assert_eq!(manifest["substrates"][0]["name"], "repo");
    // A repository outside substrates/ whose config names no licence: none is recorded.
    assert!(manifest["substrates"][0].get("license").is_none(), "{}", manifest["substrates"][0]);
}

#[test]
fn signature_callsite_gold_fixes_a_file_without_markers() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let output =
        generate("substrates/utilsmain", &out, &work.path().join("cache"), &["--families", "signature-callsite"]);
    let summary = report(&output);
    assert_eq!(summary["tasks"], 1, "{summary}");
    let manifest = read_json(&out.join("mergeforge/1.0.0/manifest.json"));
    let id = manifest["tasks"][0]["id"].as_str().unwrap();
    let task_dir = out.join("mergeforge/1.0.0/tasks").join(id);
    let task = read_json(&task_dir.join("task.json"));
    let solution = read_json(&task_dir.join("solution.json"));
    let outside = solution["edits_outside_conflicts"].as_array().unwrap();
    assert_eq!(outside.len(), 1, "{task}");
    let conflicted: Vec<&str> =
        task["conflicts"].as_array().unwrap().iter().map(|c| c["path"].as_str().unwrap()).collect();
    assert!(!conflicted.contains(&outside[0].as_str().unwrap()));
    assert_eq!(task["difficulty"]["level"], "hard");
    verify_task_with_git(&task_dir);
}

mod second_tier {
    use super::*;

    /// A resolver of the ladder that crashes leaves the task's level unknown: such a
    /// candidate is dropped as `ladder-incomplete`, never kept as hard. The crashing tool is
    /// a stand-in `mergiraf` that gives up (exit status 1, "conflicts left") on some files and
    /// dies of a signal on the others.
    #[test]
    #[ignore = "second tier: generates with a crashing mergiraf stand-in (a minute)"]
    fn a_crashing_rung_drops_the_candidate_as_ladder_incomplete() {
        use std::os::unix::fs::PermissionsExt;
        let work = tempfile::tempdir().unwrap();
        let tool = work.path().join("mergiraf");
        std::fs::write(
            &tool,
            "#!/bin/sh\n# argv: merge BASE OURS THEIRS ...; crash when the checksum of OURS is odd\n\
             case \"$(cksum < \"$3\" | cut -d' ' -f1)\" in *[13579]) kill -SEGV $$ ;; esac\nexit 1\n",
        )
        .unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        // The quick config: a candidate whose tests hang costs seconds, not a minute.
        let config = quick_config(work.path());
        let output = mergeforge()
            .env("MERGEFORGE_MERGIRAF", &tool)
            .args([
                "gen-tasks",
                "--substrate-config",
                config.to_str().unwrap(),
                "--families",
                "strip-restore,compose-edits",
            ])
            .args(["--per-cell", "2", "--candidates-per-cell", "10", "--json", "--out"])
            .arg(work.path().join("out"))
            .arg("--cache")
            .arg(work.path().join("cache"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        let report = report(&output);
        let dropped = report["rejected"]["ladder-incomplete"].as_u64().unwrap_or(0);
        assert!(dropped > 0, "no candidate dropped: {report}\n{stderr}");
        assert!(stderr.contains("resolver `mergiraf` failed on") && stderr.contains("ladder-incomplete"), "{stderr}");
        assert!(report["tasks"].as_u64().unwrap() > 0, "every candidate dropped: {report}");
        let version = work.path().join("out/mergeforge/1.0.0");
        for entry in std::fs::read_dir(version.join("tasks")).unwrap() {
            let solution = read_json(&entry.unwrap().path().join("solution.json"));
            let mergiraf = &solution["validation"]["baselines"]["mergiraf"];
            assert!(mergiraf["passed"] == false, "a kept task has no mergiraf verdict: {mergiraf}");
        }
    }

    /// The integration families on a working base: base and both sides pass their own
    /// suites, taking one side never solves the task (medium or hard, never easy), each side
    /// records the intents it makes and says only what it does, and plain git and pytest
    /// re-check every task (semantic ones from the uncommitted clean merge).
    #[test]
    #[ignore = "second tier: generates every integration family on the calculator (a minute or two)"]
    fn integration_tasks_combine_two_valid_changes_on_a_working_base() {
        let work = tempfile::tempdir().unwrap();
        let out = work.path().join("out");
        let families = ["--families", "feature-feature,feature-refactor"];
        let summary = report(&generate("substrates/calculator", &out, &work.path().join("cache"), &families));
        for family in ["feature-feature", "feature-refactor"] {
            assert_eq!(summary["by_family"][family], 1, "{summary}");
        }
        let version = out.join("mergeforge/1.0.0");
        let manifest = read_json(&version.join("manifest.json"));
        for entry in manifest["tasks"].as_array().unwrap() {
            let task_dir = version.join("tasks").join(entry["id"].as_str().unwrap());
            let task = read_json(&task_dir.join("task.json"));
            let solution = read_json(&task_dir.join("solution.json"));
            let id = &task["id"];
            let validation = &solution["validation"];
            for tree in ["base", "ours", "theirs", "gold"] {
                assert_eq!(validation[tree]["passed"], true, "{id}: {tree} fails its own suite");
            }
            assert_ne!(task["difficulty"]["level"], "easy", "{id}");
            for side in ["ours", "theirs"] {
                let intent = &solution["intents"][side];
                assert!(!intent["changes"].as_array().unwrap().is_empty(), "{id}: {side} records no intent");
                let message = intent["message"].as_str().unwrap().to_lowercase();
                for word in ["restore", "original", "feature-", "resolution", "conflict"] {
                    assert!(!message.contains(word), "{id}: {side}'s message says {word:?}: {message}");
                }
            }
            verify_task_with_git(&task_dir);
        }
    }
}
