//! `gen-tasks --quota` and near-duplicate removal, end to end with real git and pytest.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::common::*;
use serde_json::Value;

fn gen(out: &Path, cache: &Path, args: &[&str]) -> Value {
    let mut all = vec!["gen-tasks", "--out", out.to_str().unwrap(), "--cache", cache.to_str().unwrap(), "--json"];
    all.extend_from_slice(args);
    let output = run_mergeforge(&all);
    assert!(
        output.status.success(),
        "gen-tasks failed: {}\n{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    serde_json::from_slice(&output.stdout).expect("--json prints JSON")
}

#[test]
fn quotas_are_met_in_turn_and_shortfalls_reported() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    let config = quick_config(work.path());
    let config = config.to_str().unwrap();
    let families = "strip-restore,divergent-edit,compose-edits";
    // The calculator yields no hard task from these families on the full ladder (every
    // one is solved by a side or a combiner), so the level quotas are easy and medium.
    let quota = ["--substrate-config", config, "--families", families, "--quota", "easy=1,medium=2"];

    let mut one = quota.to_vec();
    one.extend(["--jobs", "1"]);
    let report = gen(&work.path().join("a"), &cache, &one);
    for (level, count) in [("easy", 1), ("medium", 2), ("hard", 0)] {
        assert_eq!(report["by_level"][level], count, "{report}");
    }
    assert_eq!(report["shortfall"], serde_json::json!([]), "{report}");
    let manifest = read_json(&work.path().join("a/mergeforge/1.0.0/manifest.json"));
    let command: Vec<&str> = manifest["command"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert!(command.windows(2).any(|w| w == ["--quota", "easy=1,medium=2"]), "{command:?}");
    assert!(!command.contains(&"--per-cell") && !command.contains(&"--candidates-per-cell"), "{command:?}");

    // Quotas give the same bytes whatever --jobs is.
    let mut two = quota.to_vec();
    two.extend(["--jobs", "2"]);
    gen(&work.path().join("b"), &cache, &two);
    assert_eq!(read_tree(&work.path().join("a/mergeforge/1.0.0")), read_tree(&work.path().join("b/mergeforge/1.0.0")));

    // A family quota that the candidates cannot meet is reported, not an error.
    let report = gen(
        &work.path().join("c"),
        &cache,
        &[
            "--substrate-config",
            config,
            "--families",
            "compose-edits",
            "--candidates-per-cell",
            "3",
            "--quota",
            "compose-edits:medium=5",
        ],
    );
    let kept = report["tasks"].as_u64().unwrap();
    assert!(kept < 5, "{report}");
    assert_eq!(report["shortfall"], serde_json::json!([{"quota": "compose-edits:medium", "wanted": 5, "kept": kept}]));
    assert_eq!(report["by_level"]["easy"], 0);
    assert_eq!(report["by_level"]["hard"], 0);
}

#[test]
fn bad_quotas_are_refused() {
    for (quota, message) in
        [("hard", "write LEVEL=N"), ("extreme=1", "unknown level `extreme`"), ("nope:hard=1", "unknown family `nope`")]
    {
        let output = run_mergeforge(&["gen-tasks", "--quota", quota, "--out", "/nonexistent/never-written"]);
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "--quota {quota}: {stderr}");
    }
}

/// A substrate with two functions that differ only in names: their mutations make
/// conflicts that are the same after normalising identifiers.
fn twin_substrate(dir: &Path) -> PathBuf {
    let root = dir.join("twins");
    std::fs::create_dir_all(root.join("tests")).unwrap();
    std::fs::write(
        root.join("substrate.toml"),
        "name = \"twins\"\ntest_command = [\"python\", \"-m\", \"pytest\", \"-q\", \"-p\", \"no:cacheprovider\", \"tests/\"]\nsource_dirs = [\".\"]\nexclude = [\"tests\"]\ntimeout_s = 20\n",
    )
    .unwrap();
    std::fs::write(
        root.join("twins.py"),
        "def rect_area(width, height):\n    if width < 0:\n        return 0\n    return width * height + 1\n\n\n\
         def box_area(a, b):\n    if a < 0:\n        return 0\n    return a * b + 1\n",
    )
    .unwrap();
    std::fs::write(
        root.join("tests/test_twins.py"),
        "from twins import box_area, rect_area\n\n\n\
         def test_rect():\n    assert rect_area(2, 3) == 7\n    assert rect_area(0, 5) == 1\n    assert rect_area(-1, 5) == 0\n\n\n\
         def test_box():\n    assert box_area(2, 3) == 7\n    assert box_area(0, 5) == 1\n    assert box_area(-1, 5) == 0\n",
    )
    .unwrap();
    root
}

mod second_tier {
    use super::*;

    #[test]
    #[ignore = "second tier: generates 40 candidates of a twin substrate (a minute)"]
    fn near_duplicates_are_kept_once() {
        let work = tempfile::tempdir().unwrap();
        let substrate = twin_substrate(work.path());
        let out = work.path().join("out");
        let report = gen(
            &out,
            &work.path().join("cache"),
            &[
                "--substrate",
                substrate.to_str().unwrap(),
                "--families",
                "divergent-edit",
                "--per-cell",
                "40",
                "--candidates-per-cell",
                "40",
            ],
        );
        let dropped = report["rejected"]["near-duplicate"].as_u64().unwrap_or(0);
        assert!(dropped > 0, "no near-duplicate dropped: {report}");
        let version = out.join("mergeforge/1.0.0");
        let manifest = read_json(&version.join("manifest.json"));
        let mut fingerprints = BTreeSet::new();
        for entry in manifest["tasks"].as_array().unwrap() {
            let dir = version.join("tasks").join(entry["id"].as_str().unwrap());
            let task = mergeforge::bundle::TaskFiles::load(&dir, entry["sha256"].as_str().unwrap()).unwrap();
            assert!(fingerprints.insert(task.fingerprint()), "{} is a near-duplicate of a kept task", task.task.id);
        }
    }
}
