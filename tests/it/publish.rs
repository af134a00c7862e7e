//! `mergeforge publish`: the committed sample becomes a Hub dataset folder that the real
//! `datasets` library loads offline (agent-facing configs with exactly task.json's
//! fields, a separate `solutions` config, no split group in both splits), shards stay
//! under their limit, records give back task.json and solution.json byte for byte,
//! `serve` and `eval` run from the folder, pushes to a real bare repository are
//! idempotent, and bad input is refused with one clear line.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{git, mergeforge, read_json, read_tree, root};
use mergeforge::bundle::task::to_json_bytes;
use mergeforge::publish::configs::TaskConfig;
use mergeforge::publish::group::group_of;
use mergeforge::publish::records::{split_of, task_from_records, SolutionRecord, Split, TaskRecord};
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

/// Every record of the shards under `out/data/<folder>`, with its shard's path (relative to `data/`).
fn records_in<R: serde::de::DeserializeOwned>(out: &Path, folder: &str) -> Vec<(String, R)> {
    let mut records = Vec::new();
    for (path, bytes) in shards(out) {
        if !path.starts_with(&format!("{folder}/")) {
            continue;
        }
        for line in String::from_utf8(bytes).unwrap().lines() {
            records.push((path.clone(), serde_json::from_str::<R>(line).unwrap_or_else(|e| panic!("{path}: {e}"))));
        }
    }
    records
}

fn records_of(out: &Path) -> Vec<(String, TaskRecord)> {
    records_in(out, "tasks")
}

/// The property names of a committed JSON Schema (`schemas/<name>.schema.json`), sorted.
fn schema_keys(name: &str) -> Vec<String> {
    let schema = read_json(&root().join(format!("schemas/{name}.schema.json")));
    let mut keys: Vec<String> = schema["properties"].as_object().unwrap().keys().cloned().collect();
    keys.sort();
    keys
}

/// The keys an agent-facing row has: task.json's and the bundle's path.
fn task_row_keys() -> Vec<String> {
    let mut keys = schema_keys("task");
    keys.push("bundle".into());
    keys.sort();
    keys
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

    // Configs: default plus one per level, and the solutions; both splits everywhere (true of the sample).
    assert_eq!(loaded["configs"], serde_json::json!(["default", "easy", "medium", "hard", "solutions"]));
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
    // The solutions: every task once, in its task's split; no group in both splits.
    assert_eq!(loaded["ids"]["solutions"], serde_json::json!(want_ids));
    for split in ["train", "test"] {
        assert_eq!(count("solutions", split), count("default", split), "solutions/{split}");
    }
    let groups = |split: &str| -> BTreeSet<String> {
        loaded["groups"][split].as_array().unwrap().iter().map(|g| g.as_str().unwrap().to_string()).collect()
    };
    let (train_groups, test_groups) = (groups("train"), groups("test"));
    assert!(!train_groups.is_empty() && !test_groups.is_empty());
    let both: Vec<&String> = train_groups.intersection(&test_groups).collect();
    assert!(both.is_empty(), "groups in both splits: {both:?}");

    // Agent-facing rows: exactly task.json's fields and the bundle, nothing of the solution.
    assert_eq!(loaded["sample"]["keys"], serde_json::json!(task_row_keys()));
    let features = &loaded["features"]["default"]["train"]["struct"];
    for leak in schema_keys("solution").iter().filter(|k| !["schema", "id"].contains(&k.as_str())) {
        assert!(features.get(leak).is_none(), "the task config has the solution field {leak}");
    }
    for leak in ["group", "solution_bundle", "baselines"] {
        assert!(features.get(leak).is_none(), "the task config has {leak}");
    }
    // Nested fields are typed, and every config and split has its one schema.
    assert_eq!(features["test_env"]["list"]["struct"]["value"], "string");
    assert_eq!(features["substrate"]["struct"]["commit"], "string", "a column null in every row still has its type");
    assert_eq!(features["difficulty"]["struct"]["score"], "float64");
    assert_eq!(features["bundle"], "string");
    let solution_features = &loaded["features"]["solutions"]["train"]["struct"];
    let outcome = &solution_features["validation"]["struct"]["conflicted"]["struct"];
    assert_eq!(outcome["passed"], "bool");
    assert_eq!(outcome["failed_tests"]["list"], "string");
    assert_eq!(outcome["timed_out"], "bool");
    assert_eq!(solution_features["baselines"]["struct"]["union"]["struct"]["ours_first"]["struct"], *outcome);
    let file = &solution_features["files"]["list"]["struct"];
    for (name, dtype) in [("path", "string"), ("has_conflict", "bool"), ("conflicted", "string"), ("gold", "string")] {
        assert_eq!(file[name], dtype, "files.{name}");
    }
    assert_eq!(solution_features["group"], "string");
    for config in ["default", "easy", "medium", "hard", "solutions"] {
        let first = if config == "solutions" { "solutions" } else { "default" };
        for split in ["train", "test"] {
            assert_eq!(
                loaded["features"][config][split], loaded["features"][first]["train"],
                "{config}/{split} schema"
            );
        }
    }

    // Rows read as expected, and their bundles are in the folder.
    let sample = &loaded["sample"];
    let bundle = out.join(sample["bundle"].as_str().unwrap());
    assert_eq!(sample["bundle"], format!("bundles/{}.bundle", sample["id"].as_str().unwrap()));
    assert!(bundle.is_file(), "{} missing", bundle.display());
    let solution = &loaded["solution"];
    assert_eq!(solution["validation_keys"], serde_json::json!(["failed_tests", "passed", "timed_out"]));
    assert_eq!(solution["markers"], true);
    assert_eq!(solution["solution_bundle"], format!("solutions/{}.bundle", solution["id"].as_str().unwrap()));
    assert!(out.join(solution["solution_bundle"].as_str().unwrap()).is_file());
    assert!(solution["group"]
        .as_str()
        .unwrap()
        .starts_with(&format!("{}:", solution["id"].as_str().unwrap().rsplit_once('-').unwrap().0)));

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
    assert_eq!(
        configs[3]["data_files"][1],
        serde_json::json!({"split": "test", "path": "data/tasks/hard/test-*.jsonl"})
    );
    assert_eq!(configs[4]["config_name"], "solutions");
    assert_eq!(
        configs[4]["data_files"][0],
        serde_json::json!({"split": "train", "path": "data/solutions/train-*.jsonl"})
    );
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    for needle in [
        "load_dataset(\"mergeforge/mergeforge-embedded\", \"hard\")",
        "mergeforge serve --dataset generated/mergeforge-embedded/1.0.0",
        "mergeforge gen-tasks --dataset mergeforge-embedded --version 1.0.0 --seed 0",
        "| `signature-callsite` |",
        "| substrate | licence | source |",
        "| `calculator` |",
        "allow_patterns=[\"README.md\", \"manifest.json\", \"data/tasks/**\", \"bundles/*\"]",
        "load_dataset(\"mergeforge/mergeforge-embedded\", \"solutions\")",
    ] {
        assert!(readme.contains(needle), "README.md lacks {needle:?}");
    }
}

#[test]
fn serve_and_eval_run_from_a_published_folder_and_refuse_one_without_solutions() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("hf");
    publish_ok(&out, &[]);
    let dataset = out.to_str().unwrap();
    // A textual task and the sample's first semantic one, graded from the records alone.
    let manifest = read_json(&root().join(SAMPLE).join("manifest.json"));
    let semantic = manifest["tasks"].as_array().unwrap().iter().find(|t| t["conflict_kind"] == "semantic").unwrap();
    for task in ["calculator-c80129ecf3", semantic["id"].as_str().unwrap()] {
        let output = mergeforge()
            .args(["eval", "--dataset", dataset, "--agent", "gold", "--task", task, "--json"])
            .output()
            .unwrap();
        assert!(output.status.success(), "eval from the folder: {}", stderr(&output));
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        let episode = &report["episodes"][0];
        assert_eq!(episode["task_id"], task);
        assert_eq!(episode["reached_max"], true, "{episode}");
        assert_eq!(episode["tests_passing"], true, "{episode}");
    }
    {
        let server = crate::env_server::Server::start_on(dataset, &[]);
        let body = serde_json::json!({"task_id": "calculator-c80129ecf3"}).to_string();
        let (status, reset) = crate::env_server::http(&server.addr, "POST", "/reset", Some(&body));
        assert_eq!(status, 200, "{reset}");
        assert_eq!(reset["observation"]["task"]["id"], "calculator-c80129ecf3");
        assert_eq!(reset["done"], false);
    }

    // What a trainer downloads without the solutions: serving refuses it with one line.
    let agent_only = work.path().join("agent-only");
    crate::common::copy_dir(&out, &agent_only);
    std::fs::remove_dir_all(agent_only.join("data/solutions")).unwrap();
    std::fs::remove_dir_all(agent_only.join("solutions")).unwrap();
    let output = mergeforge()
        .args(["eval", "--dataset", agent_only.to_str().unwrap(), "--agent", "gold", "--task", "calculator-c80129ecf3"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let err = stderr(&output);
    assert!(err.contains("downloaded without its `solutions` config"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "not one line: {err}");
    // A changed record is caught.
    let tampered = work.path().join("tampered");
    crate::common::copy_dir(&out, &tampered);
    let shard = tampered.join("data/tasks/easy/train-00000.jsonl");
    let text = std::fs::read_to_string(&shard).unwrap().replacen("\"timeout_s\":", "\"timeout_s\":1", 1);
    std::fs::write(&shard, text).unwrap();
    let output = mergeforge()
        .args(["eval", "--dataset", tampered.to_str().unwrap(), "--agent", "gold", "--task", "calculator-c80129ecf3"])
        .output()
        .unwrap();
    assert!(stderr(&output).contains("does not match its sha256 in manifest.json"), "{}", stderr(&output));
}

#[test]
fn the_card_lists_every_substrate_with_its_licence_and_source() {
    let work = tempfile::tempdir().unwrap();
    // A copy of the sample whose manifest records licences for all substrates but one.
    let version = work.path().join("1.0.0");
    crate::common::copy_dir(&sample_dir(), &version);
    let mut manifest = manifest();
    let substrates = manifest["substrates"].as_array_mut().unwrap();
    let names: Vec<String> = substrates.iter().map(|s| s["name"].as_str().unwrap().to_string()).collect();
    for entry in substrates.iter_mut().skip(1) {
        let name = entry["name"].as_str().unwrap().to_string();
        entry["license"] = Value::from("MIT");
        entry["source"] = Value::from(format!("mergeforge: substrates/{name}"));
    }
    if let Some(first) = substrates.first_mut() {
        let object = first.as_object_mut().unwrap();
        object.remove("license");
        object.remove("source");
    }
    std::fs::write(version.join("manifest.json"), serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
    let out = work.path().join("hf");
    let output = publish(&["--dataset", version.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    for (i, name) in names.iter().enumerate() {
        let row = readme
            .lines()
            .find(|l| l.starts_with(&format!("| `{name}` | ")) && l.matches('|').count() == 7)
            .unwrap_or_else(|| panic!("no substrate row for {name}:\n{readme}"));
        let want = if i == 0 {
            "| unknown | unknown |".to_string()
        } else {
            format!("| MIT | mergeforge: substrates/{name} |")
        };
        assert!(row.contains(&want), "{row}");
    }
    assert!(readme.contains("\"unknown\": the version's manifest does not record it"));
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
    let solutions: BTreeMap<String, (String, SolutionRecord)> = records_in::<SolutionRecord>(&out, "solutions")
        .into_iter()
        .map(|(path, r)| (r.id.clone(), (path, r)))
        .collect();
    assert_eq!(solutions.len(), want.len(), "one solution record per task");
    let mut seen = BTreeMap::new();
    for (path, record) in records_of(&out) {
        let (solution_path, solution_record) = &solutions[&record.id];
        let (task, solution) = task_from_records(&record, solution_record);
        let bytes = to_json_bytes(&task).unwrap();
        assert_eq!(sha256_hex(&bytes), want[&record.id], "{}: task.json from the record differs", record.id);
        let solution_bytes = to_json_bytes(&solution).unwrap();
        assert_eq!(sha256_hex(&solution_bytes), task.sha256.solution_json, "{}: solution.json differs", record.id);
        // The group is where the first hunk is; the shards sit in the record's config (its level, or `real`)
        // and the group's split.
        assert_eq!(solution_record.group, group_of(&task, &solution), "{}", record.id);
        let split = split_of(&solution_record.group, 0.2);
        let split_name = if split == Split::Test { "test" } else { "train" };
        let config = TaskConfig::of(record.family, record.difficulty.level);
        let want_path = format!("tasks/{}/{split_name}-", config.name());
        assert!(path.starts_with(&want_path), "{}: in {path}", record.id);
        assert!(solution_path.starts_with(&format!("solutions/{split_name}-")), "{}: in {solution_path}", record.id);
        // The bundles are copied unchanged, the gold one in a folder of its own.
        let bundle = std::fs::read(out.join(&record.bundle)).unwrap();
        assert_eq!(sha256_hex(&bundle), record.sha256.repo_bundle);
        assert!(solution_record.solution_bundle.starts_with("solutions/"));
        let solution_bundle = std::fs::read(out.join(&solution_record.solution_bundle)).unwrap();
        assert_eq!(sha256_hex(&solution_bundle), record.sha256.solution_bundle);
        seen.insert(record.id.clone(), path);
    }
    // Every agent-facing line, as raw JSON: task.json's keys and the bundle, nothing else.
    for (path, bytes) in shards(&out).into_iter().filter(|(p, _)| p.starts_with("tasks/")) {
        for line in String::from_utf8(bytes).unwrap().lines() {
            let row: Value = serde_json::from_str(line).unwrap();
            let mut keys: Vec<String> = row.as_object().unwrap().keys().cloned().collect();
            keys.sort();
            assert_eq!(keys, task_row_keys(), "{path}");
        }
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
    assert!(shards.contains_key("solutions/train-00002.jsonl"), "shards: {:?}", shards.keys().collect::<Vec<_>>());
    assert!(shards.contains_key("tasks/hard/train-00000.jsonl"), "shards: {:?}", shards.keys().collect::<Vec<_>>());
    // Same rows as with one shard per split, in the same order.
    let mut small: Vec<String> = records_of(&out).into_iter().map(|(_, r)| r.id).collect();
    let mut whole: Vec<String> = records_of(&default_out).into_iter().map(|(_, r)| r.id).collect();
    assert_eq!(small.len(), committed_tasks());
    small.sort();
    whole.sort();
    assert_eq!(small, whole);
    small.dedup();
    assert_eq!(small.len(), committed_tasks(), "a task appears twice");

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
    assert_eq!(
        files.lines().filter(|f| f.starts_with("bundles/") && f.ends_with(".bundle")).count(),
        committed_tasks()
    );
    assert_eq!(
        files.lines().filter(|f| f.starts_with("solutions/") && f.ends_with(".bundle")).count(),
        committed_tasks()
    );

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
        "data/tasks/<level>/<split>-NNNNN.jsonl",
        "data/solutions/<split>-NNNNN.jsonl",
        "solutions/<task_id>.bundle",
        "--test-ratio",
        "--max-shard-bytes",
        "--push <GIT_URL>",
        "credential",
        "v<version>",
    ] {
        assert!(help.contains(needle), "--help lacks {needle:?}:\n{help}");
    }
}

/// How many tasks the committed sample holds (its task folders).
fn committed_tasks() -> usize {
    let dir = root().join("generated/mergeforge-embedded/1.0.0/tasks");
    std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).count()
}
