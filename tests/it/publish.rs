//! `mergeforge publish`: the committed sample becomes a Hub dataset folder that the real
//! `datasets` library loads offline, shards stay under their limit, records give back
//! task.json byte for byte, pushes to a real bare repository are idempotent, and bad
//! input is refused with one clear line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{git, mergeforge, read_json, read_tree, root};
use mergeforge::bundle::task::to_json_bytes;
use mergeforge::publish::records::{split_of, task_from_record, FlatRecord, Split};
use mergeforge::snapshot::sha256_hex;
use serde_json::Value;

const SAMPLE: &str = "generated/mergeforge-embedded/1.0.0";

fn sample_dir() -> PathBuf {
    root().join(SAMPLE)
}

fn publish(args: &[&str]) -> Output {
    mergeforge().arg("publish").args(args).output().expect("mergeforge runs")
}

/// Publishes the sample to `out` with `extra` flags; panics unless it succeeds. Returns the --json report.
fn publish_ok(out: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["--dataset", SAMPLE, "--out", out.to_str().unwrap(), "--json"];
    args.extend(extra);
    let output = publish(&args);
    assert!(
        output.status.success(),
        "publish failed: {}\n{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    serde_json::from_slice(&output.stdout).expect("--json prints JSON")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn manifest() -> Value {
    read_json(&sample_dir().join("manifest.json"))
}

/// Every data shard under `out/data`, relative path → bytes.
fn shards(out: &Path) -> BTreeMap<String, Vec<u8>> {
    read_tree(&out.join("data"))
}

fn records_of(out: &Path) -> Vec<(String, FlatRecord)> {
    let mut records = Vec::new();
    for (path, bytes) in shards(out) {
        for line in String::from_utf8(bytes).unwrap().lines() {
            records.push((
                path.clone(),
                serde_json::from_str::<FlatRecord>(line).unwrap_or_else(|e| panic!("{path}: {e}")),
            ));
        }
    }
    records
}

#[test]
fn the_folder_loads_with_datasets_offline_with_typed_nested_fields() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("hf");
    let report = publish_ok(&out, &["--repo-id", "mergeforge/mergeforge-embedded"]);
    let manifest = manifest();
    let total = manifest["counts"]["tasks"].as_u64().unwrap();

    let env = mergeforge::pytest::venv::ensure_venv(&mergeforge::pytest::venv::user_cache_dir(), &["datasets".into()])
        .expect("venv with datasets");
    let script = root().join("tests/data/publish/load_dataset.py");
    let output = Command::new(&env.interpreter)
        .arg(&script)
        .arg(&out)
        .env("HF_HUB_OFFLINE", "1")
        .env("HF_DATASETS_OFFLINE", "1")
        .env("HF_HOME", work.path().join("hf-home"))
        .env("HF_DATASETS_CACHE", work.path().join("hf-cache"))
        .env("HF_HUB_DISABLE_TELEMETRY", "1")
        .output()
        .expect("python runs");
    assert!(output.status.success(), "loading with datasets failed:\n{}", stderr(&output));
    let loaded: Value = serde_json::from_slice(&output.stdout).expect("the script prints JSON");

    // Configs: default plus one per level; both splits everywhere (true of the sample).
    assert_eq!(loaded["configs"], serde_json::json!(["default", "easy", "medium", "hard"]));
    let rows = &loaded["rows"];
    let count = |config: &str, split: &str| rows[config][split].as_u64().unwrap_or(0);
    assert_eq!(count("default", "train") + count("default", "test"), total);
    for level in ["easy", "medium", "hard"] {
        let want = manifest["counts"]["by_level"][level].as_u64().unwrap();
        assert_eq!(count(level, "train") + count(level, "test"), want, "{level}: rows vs manifest");
        for split in ["train", "test"] {
            assert!(count(level, split) > 0, "{level}/{split} is empty");
            assert_eq!(
                count(level, split),
                report["rows"][level][split].as_u64().unwrap(),
                "{level}/{split} vs report"
            );
        }
    }
    for split in ["train", "test"] {
        let sum: u64 = ["easy", "medium", "hard"].iter().map(|l| count(l, split)).sum();
        assert_eq!(count("default", split), sum, "default/{split} is the union of the levels");
    }
    // Every task once in default; level configs partition it.
    let mut want_ids: Vec<String> =
        manifest["tasks"].as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap().to_string()).collect();
    want_ids.sort();
    assert_eq!(loaded["ids"]["default"], serde_json::json!(want_ids));

    // Nested fields are typed, and every config and split has the one schema.
    let features = &loaded["features"]["default"]["train"]["struct"];
    let outcome = &features["validation"]["struct"]["conflicted"]["struct"];
    assert_eq!(outcome["passed"], "bool");
    assert_eq!(outcome["failed_tests"]["list"], "string");
    assert_eq!(outcome["timed_out"], "bool");
    assert_eq!(features["baselines"]["struct"]["union"]["struct"]["ours_first"]["struct"], *outcome);
    let file = &features["files"]["list"]["struct"];
    for (name, dtype) in [("path", "string"), ("has_conflict", "bool"), ("conflicted", "string"), ("gold", "string")] {
        assert_eq!(file[name], dtype, "files.{name}");
    }
    assert_eq!(features["test_env"]["list"]["struct"]["value"], "string");
    assert_eq!(features["substrate"]["struct"]["commit"], "string", "a column null in every row still has its type");
    assert_eq!(features["score"], "float64");
    assert_eq!(features["bundle"], "string");
    for config in ["default", "easy", "medium", "hard"] {
        for split in ["train", "test"] {
            assert_eq!(
                loaded["features"][config][split], loaded["features"]["default"]["train"],
                "{config}/{split} schema"
            );
        }
    }

    // A row reads as expected, and its bundle is in the folder with the recorded hash.
    let sample = &loaded["sample"];
    assert_eq!(sample["validation_keys"], serde_json::json!(["failed_tests", "passed", "timed_out"]));
    assert_eq!(sample["markers"], true);
    let bundle = out.join(sample["bundle"].as_str().unwrap());
    assert_eq!(sample["bundle"], format!("bundles/{}.bundle", sample["id"].as_str().unwrap()));
    assert!(bundle.is_file(), "{} missing", bundle.display());

    // The card's front matter.
    let card = &loaded["card"];
    assert_eq!(card["license"], "mit");
    assert_eq!(card["task_categories"], serde_json::json!(["text-generation"]));
    assert_eq!(card["pretty_name"], "mergeforge-embedded 1.0.0");
    assert_eq!(card["size_categories"], serde_json::json!(["n<1K"]));
    assert!(card["tags"].as_array().unwrap().contains(&Value::from("merge-conflicts")));
    let configs = card["configs"].as_array().unwrap();
    assert_eq!(configs[0]["config_name"], "default");
    assert_eq!(configs[0]["default"], true);
    assert_eq!(configs[3]["data_files"][1], serde_json::json!({"split": "test", "path": "data/hard/test-*.jsonl"}));
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    for needle in [
        "load_dataset(\"mergeforge/mergeforge-embedded\", \"hard\")",
        "mergeforge serve --dataset generated/mergeforge-embedded/1.0.0",
        "mergeforge gen-tasks --dataset mergeforge-embedded --version 1.0.0 --seed 0",
        "| `signature-callsite` |",
        "| `calculator` |",
    ] {
        assert!(readme.contains(needle), "README.md lacks {needle:?}");
    }
}

#[test]
fn records_give_back_every_task_json_byte_for_byte() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("hf");
    publish_ok(&out, &[]);
    let manifest = manifest();
    let want: BTreeMap<String, String> = manifest["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["id"].as_str().unwrap().to_string(), t["sha256"].as_str().unwrap().to_string()))
        .collect();
    let mut seen = BTreeMap::new();
    for (path, record) in records_of(&out) {
        let (task, solution) = task_from_record(&record);
        let bytes = to_json_bytes(&task).unwrap();
        assert_eq!(sha256_hex(&bytes), want[&record.id], "{}: task.json from the record differs", record.id);
        let solution_bytes = to_json_bytes(&solution).unwrap();
        assert_eq!(sha256_hex(&solution_bytes), record.sha256.solution_json, "{}: solution.json differs", record.id);
        // The shard sits in the record's level and split.
        let split = split_of(&record.id, 0.2);
        let split_name = if split == Split::Test { "test" } else { "train" };
        let level = serde_json::to_value(record.level).unwrap();
        assert!(path.starts_with(&format!("{}/{split_name}-", level.as_str().unwrap())), "{}: in {path}", record.id);
        // The bundle is copied unchanged.
        let bundle = std::fs::read(out.join(&record.bundle)).unwrap();
        assert_eq!(sha256_hex(&bundle), record.sha256.repo_bundle);
        let solution_bundle = std::fs::read(out.join(&record.solution_bundle)).unwrap();
        assert_eq!(sha256_hex(&solution_bundle), record.sha256.solution_bundle);
        seen.insert(record.id.clone(), path);
    }
    assert_eq!(seen.len(), want.len());
    // The manifest travels unchanged; .gitattributes routes bundles through LFS.
    assert_eq!(
        std::fs::read(out.join("manifest.json")).unwrap(),
        std::fs::read(sample_dir().join("manifest.json")).unwrap()
    );
    let attributes = std::fs::read_to_string(out.join(".gitattributes")).unwrap();
    assert_eq!(attributes, "*.bundle filter=lfs diff=lfs merge=lfs -text\n");
}

#[test]
fn shards_stay_under_the_limit_and_hold_every_row() {
    let work = tempfile::tempdir().unwrap();
    // The default limit: no data file over 8 MiB.
    let default_out = work.path().join("default");
    publish_ok(&default_out, &[]);
    for (path, bytes) in read_tree(&default_out) {
        if path.starts_with("data/") {
            assert!(bytes.len() <= 8 * 1024 * 1024, "{path} is {} bytes", bytes.len());
        }
    }
    // A small limit forces several shards per split.
    let limit = 120_000usize;
    let out = work.path().join("small");
    let report = publish_ok(&out, &["--max-shard-bytes", &limit.to_string()]);
    let shards = shards(&out);
    assert!(shards.len() >= 12, "only {} shards", shards.len());
    assert_eq!(report["shards"].as_array().unwrap().len(), shards.len());
    for (path, bytes) in &shards {
        assert!(bytes.len() <= limit, "{path} is {} bytes, over {limit}", bytes.len());
        assert!(bytes.ends_with(b"\n"));
    }
    assert!(shards.contains_key("hard/train-00002.jsonl"), "shards: {:?}", shards.keys().collect::<Vec<_>>());
    // Same rows as with one shard per split, in the same order.
    let mut small: Vec<String> = records_of(&out).into_iter().map(|(_, r)| r.id).collect();
    let mut whole: Vec<String> = records_of(&default_out).into_iter().map(|(_, r)| r.id).collect();
    assert_eq!(small.len(), 140);
    small.sort();
    whole.sort();
    assert_eq!(small, whole);
    small.dedup();
    assert_eq!(small.len(), 140, "a task appears twice");

    // A limit no record fits in, or one over 8 MiB, is refused.
    let refused = publish(&[
        "--dataset",
        SAMPLE,
        "--out",
        work.path().join("tiny").to_str().unwrap(),
        "--max-shard-bytes",
        "1000",
    ]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("over the shard limit of 1000 bytes; raise --max-shard-bytes"),
        "{}",
        stderr(&refused)
    );
    assert!(!work.path().join("tiny").exists(), "a refused publish left a folder");
    let refused = publish(&[
        "--dataset",
        SAMPLE,
        "--out",
        work.path().join("big").to_str().unwrap(),
        "--max-shard-bytes",
        "9000000",
    ]);
    assert!(
        stderr(&refused).contains("--max-shard-bytes 9000000: must be between 1 and 8388608"),
        "{}",
        stderr(&refused)
    );
}

#[test]
fn the_same_input_gives_the_same_bytes_and_existing_folders_are_respected() {
    let work = tempfile::tempdir().unwrap();
    let a = work.path().join("a");
    let b = work.path().join("b");
    publish_ok(&a, &[]);
    // An empty folder is filled.
    std::fs::create_dir(&b).unwrap();
    publish_ok(&b, &[]);
    assert_eq!(read_tree(&a), read_tree(&b), "two publishes of one version differ");
    // Publishing again onto identical content is a no-op.
    assert_eq!(publish_ok(&a, &[])["result"], "unchanged");
    // Different content is refused and the folder is left as it was.
    let before = read_tree(&a);
    let refused = publish(&["--dataset", SAMPLE, "--out", a.to_str().unwrap(), "--license", "apache-2.0"]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("exists with different content (first difference: README.md)"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(read_tree(&a), before);
    // No staging folder is left behind.
    let leftovers: Vec<_> =
        std::fs::read_dir(work.path()).unwrap().filter_map(|e| e.ok()).map(|e| e.file_name()).collect();
    assert_eq!(leftovers.len(), 2, "{leftovers:?}");
}

#[test]
fn push_to_a_bare_repository_twice_makes_one_commit_and_a_changed_version_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let remote = work.path().join("remote.git");
    git(work.path(), &["init", "-q", "--bare", remote.to_str().unwrap()]);
    let url = remote.to_str().unwrap();
    let out = work.path().join("hf");

    let first = publish_ok(&out, &["--push", url]);
    assert_eq!(first["push"]["result"], "pushed");
    assert_eq!(first["push"]["tag"], "v1.0.0");
    let second = publish_ok(&out, &["--push", url]);
    assert_eq!(second["push"]["result"], "already-published");
    assert_eq!(first["push"]["commit"], second["push"]["commit"]);
    assert_eq!(git(&remote, &["rev-list", "--count", "main"]).trim(), "1");
    let head = git(&remote, &["rev-parse", "main"]);
    assert_eq!(head.trim(), first["push"]["commit"].as_str().unwrap());
    assert_eq!(git(&remote, &["rev-parse", "v1.0.0^{commit}"]), head);
    let message = git(&remote, &["log", "-1", "--format=%s%n%an <%ae> %at", "main"]);
    assert_eq!(message, "Publish mergeforge-embedded 1.0.0\nmergeforge <mergeforge@localhost> 1704067200\n");
    // The commit holds the folder: the card and data files byte for byte, every bundle.
    assert_eq!(git(&remote, &["show", "main:README.md"]), std::fs::read_to_string(out.join("README.md")).unwrap());
    let files = git(&remote, &["ls-tree", "-r", "--name-only", "main"]);
    assert_eq!(files.lines().count(), read_tree(&out).len());
    let bundles: Vec<&str> = files.lines().filter(|f| f.starts_with("bundles/")).collect();
    assert_eq!(bundles.iter().filter(|f| !f.ends_with(".solution.bundle")).count(), 140);
    assert_eq!(bundles.iter().filter(|f| f.ends_with(".solution.bundle")).count(), 140);

    // Different content under the same version: refused, nothing pushed.
    let other = work.path().join("hf-other");
    let refused =
        publish(&["--dataset", SAMPLE, "--out", other.to_str().unwrap(), "--license", "apache-2.0", "--push", url]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("tag v1.0.0 already holds different content"),
        "unexpected error: {}",
        stderr(&refused)
    );
    assert_eq!(git(&remote, &["rev-list", "--count", "main"]).trim(), "1");

    // A new version goes on top, with its own tag.
    let next = work.path().join("1.0.1");
    crate::common::copy_dir(&sample_dir(), &next);
    let manifest_path = next.join("manifest.json");
    let text = std::fs::read_to_string(&manifest_path).unwrap().replacen(
        "\"version\": \"1.0.0\"",
        "\"version\": \"1.0.1\"",
        1,
    );
    std::fs::write(&manifest_path, text).unwrap();
    let output = mergeforge()
        .args(["publish", "--dataset", next.to_str().unwrap(), "--out", work.path().join("hf-next").to_str().unwrap()])
        .args(["--push", url, "--json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(git(&remote, &["rev-list", "--count", "main"]).trim(), "2");
    assert_eq!(git(&remote, &["rev-parse", "main^"]), head);
    assert_eq!(git(&remote, &["rev-parse", "v1.0.1^{commit}"]), git(&remote, &["rev-parse", "main"]));
}

#[test]
fn credentials_in_the_url_are_refused_before_anything_is_written() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("hf");
    let output = publish(&[
        "--dataset",
        SAMPLE,
        "--out",
        out.to_str().unwrap(),
        "--push",
        "https://someone:hf_secret_token@huggingface.co/datasets/a/b",
    ]);
    assert!(!output.status.success());
    let err = stderr(&output);
    assert!(err.contains("the URL carries a password or token"), "{err}");
    assert!(!err.contains("hf_secret_token"), "the token was printed: {err}");
    assert!(!out.exists());
    // A remote that does not exist: one clear line, no credentials prompt.
    let output = publish(&[
        "--dataset",
        SAMPLE,
        "--out",
        out.to_str().unwrap(),
        "--push",
        work.path().join("nowhere.git").to_str().unwrap(),
    ]);
    assert!(stderr(&output).contains("no such repository; create it first"), "{}", stderr(&output));
}

#[test]
fn bad_input_is_refused_with_one_clear_line() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("hf");
    let out_arg = out.to_str().unwrap();
    let check = |args: &[&str], want: &str| {
        let output = publish(args);
        assert!(!output.status.success(), "{args:?} succeeded");
        let err = stderr(&output);
        assert!(err.contains(want), "{args:?}: expected {want:?}, got {err}");
        assert_eq!(err.trim().lines().count(), 1, "not one line: {err}");
        assert!(!err.contains("panicked"), "{err}");
    };
    // Missing dataset folder.
    let missing = work.path().join("nope/1.0.0");
    check(&["--dataset", missing.to_str().unwrap(), "--out", out_arg], "no such dataset version folder");
    // The dataset folder instead of its version.
    check(&["--dataset", "generated/mergeforge-embedded", "--out", out_arg], "pass the version folder, e.g. --dataset");
    // An unfinished version: no manifest.
    let unfinished = work.path().join("unfinished");
    crate::common::copy_dir(&sample_dir(), &unfinished);
    std::fs::remove_file(unfinished.join("manifest.json")).unwrap();
    check(&["--dataset", unfinished.to_str().unwrap(), "--out", out_arg], "the version is unfinished");
    // A task.json changed after the manifest was written.
    let tampered = work.path().join("tampered");
    crate::common::copy_dir(&sample_dir(), &tampered);
    let task = std::fs::read_dir(tampered.join("tasks")).unwrap().next().unwrap().unwrap().path().join("task.json");
    let text = std::fs::read_to_string(&task).unwrap().replacen("\"timeout_s\": ", "\"timeout_s\": 1", 1);
    std::fs::write(&task, text).unwrap();
    check(&["--dataset", tampered.to_str().unwrap(), "--out", out_arg], "does not match its sha256 in manifest.json");
    // A missing bundle.
    let no_bundle = work.path().join("no-bundle");
    crate::common::copy_dir(&sample_dir(), &no_bundle);
    let bundle =
        std::fs::read_dir(no_bundle.join("tasks")).unwrap().next().unwrap().unwrap().path().join("repo.bundle");
    std::fs::remove_file(bundle).unwrap();
    check(
        &["--dataset", no_bundle.to_str().unwrap(), "--out", out_arg],
        "missing or unreadable; the version is incomplete",
    );
    // Bad options.
    check(&["--dataset", SAMPLE, "--out", out_arg, "--test-ratio", "1.5"], "--test-ratio 1.5: must be between 0 and 1");
    check(&["--dataset", SAMPLE, "--out", out_arg, "--repo-id", "no-slash"], "--repo-id \"no-slash\": use OWNER/NAME");
    check(&["--dataset", SAMPLE, "--out", out_arg, "--license", "MIT License"], "use a Hub license id");
    // An --out inside the version would change it.
    check(&["--dataset", SAMPLE, "--out", &format!("{SAMPLE}/hub")], "--out is inside the dataset version");
    assert!(!out.exists(), "a refused publish wrote {}", out.display());
}

#[test]
fn help_documents_the_layout_and_the_push_rules() {
    let output = mergeforge().args(["publish", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&output.stdout);
    for needle in [
        "data/<level>/<split>-NNNNN.jsonl",
        "--test-ratio",
        "--max-shard-bytes",
        "--push <GIT_URL>",
        "credential",
        "v<version>",
    ] {
        assert!(help.contains(needle), "--help lacks {needle:?}:\n{help}");
    }
}
