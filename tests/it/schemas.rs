//! The JSON Schemas in `schemas/` against the files mergeforge writes.
//!
//! - the schemas are valid draft 2020-12 and documented (every property described);
//! - every `manifest.json`, `tasks/<id>/task.json` and `tasks/<id>/solution.json` under `generated/` (or the
//!   directory in `MERGEFORGE_SCHEMA_TEST_DIR`) is valid;
//! - the cases in `tests/data/schemas/<case>/` (`document.json` + `case.toml`) are
//!   accepted or rejected as their `case.toml` says. Adding a case is adding a folder.
//!
//! Validation is `jsonschema`, the specification's reference implementation in Python
//! (pinned, in a cached venv), run once per test by `tests/it/schema_check.py`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";
const SCHEMAS: [&str; 3] = ["task", "solution", "manifest"];
const DIR_ENV: &str = "MERGEFORGE_SCHEMA_TEST_DIR";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}

fn schema_json(name: &str) -> Value {
    read_json(&root().join("schemas").join(format!("{name}.schema.json")))
}

/// The pinned validator, installed from PyPI into a cached venv on first use.
const JSONSCHEMA: &str = "jsonschema==4.26.0";

/// One instance error: `(<instance path>, <message>)`, `/` for the document root.
type Error = (String, String);

/// What `schema_check.py` says of the schemas and of `documents` (`(schema name,
/// document)` pairs): each schema's error as a draft 2020-12 schema, if any, and each
/// document's errors, in order.
fn check(documents: &[(&str, Value)]) -> (BTreeMap<String, Option<String>>, Vec<Vec<Error>>) {
    use std::io::Write;
    let python =
        mergeforge::pytest::venv::ensure_venv(&mergeforge::pytest::venv::user_cache_dir(), &[JSONSCHEMA.into()])
            .expect("a venv with jsonschema (from PyPI)")
            .interpreter;
    let schemas: serde_json::Map<String, Value> = SCHEMAS.iter().map(|n| (n.to_string(), schema_json(n))).collect();
    let request = serde_json::json!({ "schemas": schemas, "documents": documents });
    let mut child = std::process::Command::new(python)
        .arg(root().join("tests/it/schema_check.py"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("schema_check.py starts");
    child.stdin.take().unwrap().write_all(request.to_string().as_bytes()).expect("request to schema_check.py");
    let output = child.wait_with_output().expect("schema_check.py runs");
    assert!(output.status.success(), "schema_check.py failed");
    let reply: Value = serde_json::from_slice(&output.stdout).expect("schema_check.py writes JSON");
    let schema_errors = reply["schema_errors"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, error)| (name.clone(), error.as_str().map(str::to_string)))
        .collect();
    let document_errors = reply["document_errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|errors| {
            let pair = |e: &Value| (e[0].as_str().unwrap().to_string(), e[1].as_str().unwrap().to_string());
            errors.as_array().unwrap().iter().map(pair).collect()
        })
        .collect();
    (schema_errors, document_errors)
}

fn format_errors(errors: &[(String, String)]) -> String {
    errors.iter().map(|(path, message)| format!("    at {path}: {message}")).collect::<Vec<_>>().join("\n")
}

// ---------------------------------------------------------------------------------
// The schemas themselves.

#[test]
fn schemas_are_valid_draft_2020_12() {
    for name in SCHEMAS {
        let schema = schema_json(name);
        assert_eq!(schema["$schema"], DRAFT_2020_12, "schemas/{name}.schema.json: $schema");
        assert_eq!(
            schema["$id"],
            format!("https://mergeforge.dev/schemas/{name}.schema.json"),
            "schemas/{name}.schema.json: $id"
        );
    }
    let (schema_errors, _) = check(&[]);
    for name in SCHEMAS {
        if let Some(Some(error)) = schema_errors.get(name) {
            panic!("schemas/{name}.schema.json is not a valid draft 2020-12 schema: {error}");
        }
    }
}

/// Every object schema with `properties` closes itself (`additionalProperties`), lists
/// only known names in `required`, and describes every property.
#[test]
fn schemas_are_documented_and_closed() {
    fn walk(value: &Value, at: &str, problems: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::Object(properties)) = map.get("properties") {
                    if !map.contains_key("additionalProperties") {
                        problems.push(format!("{at}: has properties but no additionalProperties"));
                    }
                    for (name, property) in properties {
                        if property.get("description").and_then(Value::as_str).is_none_or(str::is_empty) {
                            problems.push(format!("{at}/properties/{name}: no description"));
                        }
                    }
                    for name in map.get("required").and_then(Value::as_array).into_iter().flatten() {
                        if !name.as_str().is_some_and(|n| properties.contains_key(n)) {
                            problems.push(format!("{at}: required {name} is not a property"));
                        }
                    }
                }
                for (key, child) in map {
                    walk(child, &format!("{at}/{key}"), problems);
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    walk(child, &format!("{at}/{i}"), problems);
                }
            }
            _ => {}
        }
    }
    let mut problems = Vec::new();
    for name in SCHEMAS {
        walk(&schema_json(name), &format!("{name}.schema.json#"), &mut problems);
    }
    assert!(problems.is_empty(), "schema problems:\n{}", problems.join("\n"));
}

// ---------------------------------------------------------------------------------
// Emitted files.

/// `manifest.json`, `tasks/<id>/task.json` and `tasks/<id>/solution.json` files under
/// `dir`, skipping dot-directories (such as `.mergeforge-cache`), sorted.
fn emitted_files(dir: &Path) -> (Vec<PathBuf>, Vec<PathBuf>, Vec<PathBuf>) {
    let mut manifests = Vec::new();
    let mut tasks = Vec::new();
    let mut solutions = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
        for entry in entries {
            let entry = entry.unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let kind = entry.file_type().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            if kind.is_dir() {
                if !name.starts_with('.') {
                    stack.push(path);
                }
            } else if name == "manifest.json" {
                manifests.push(path);
            } else if path.parent().and_then(Path::parent).and_then(Path::file_name).is_some_and(|n| n == "tasks") {
                if name == "task.json" {
                    tasks.push(path);
                } else if name == "solution.json" {
                    solutions.push(path);
                }
            }
        }
    }
    manifests.sort();
    tasks.sort();
    solutions.sort();
    (manifests, tasks, solutions)
}

#[test]
fn generated_files_match_schemas() {
    let dir = std::env::var_os(DIR_ENV).map(PathBuf::from).unwrap_or_else(|| root().join("generated"));
    assert!(dir.is_dir(), "{} does not exist (set {DIR_ENV} to validate another directory)", dir.display());
    let (manifests, tasks, solutions) = emitted_files(&dir);
    assert!(
        !manifests.is_empty(),
        "no manifest.json under {}: expected at least one dataset version (<dataset>/<version>/manifest.json)",
        dir.display()
    );
    assert_eq!(tasks.len(), solutions.len(), "every task.json has its solution.json");
    let files: Vec<(&PathBuf, &str)> = [(&manifests, "manifest"), (&tasks, "task"), (&solutions, "solution")]
        .into_iter()
        .flat_map(|(files, name)| files.iter().map(move |file| (file, name)))
        .collect();
    let documents: Vec<(&str, Value)> = files.iter().map(|(file, name)| (*name, read_json(file))).collect();
    let (_, errors) = check(&documents);
    let failures: Vec<String> = files
        .iter()
        .zip(&errors)
        .filter(|(_, errors)| !errors.is_empty())
        .map(|((file, name), errors)| format!("{} (schema {name}):\n{}", file.display(), format_errors(errors)))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} files under {} do not match their schema:\n{}",
        failures.len(),
        manifests.len() + tasks.len() + solutions.len(),
        dir.display(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------------
// Data-driven cases.

/// `tests/data/schemas/<case>/case.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// `task`, `solution` or `manifest`.
    schema: String,
    /// Whether `document.json` must be accepted.
    valid: bool,
    /// What the case is about (required, so every case says why it exists).
    reason: String,
    /// Required for an invalid case: the instance path (e.g. `/difficulty/level`, `/` for
    /// the root) where an error must be, and every error at or under, so the document
    /// fails for the intended reason and no other.
    error_at: Option<String>,
}

#[test]
fn schema_cases() {
    let cases_dir = root().join("tests/data/schemas");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&cases_dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", cases_dir.display()))
        .map(|entry| entry.expect("reading case folder").path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    let cases: Vec<(String, Case)> = dirs
        .iter()
        .map(|dir| {
            let case_file = dir.join("case.toml");
            let text =
                std::fs::read_to_string(&case_file).unwrap_or_else(|e| panic!("reading {}: {e}", case_file.display()));
            let case: Case = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", case_file.display()));
            assert!(!case.reason.trim().is_empty(), "{}: empty reason", case_file.display());
            assert!(
                SCHEMAS.contains(&case.schema.as_str()),
                "{}: schema = {:?}; expected one of {SCHEMAS:?}",
                case_file.display(),
                case.schema
            );
            (dir.file_name().unwrap().to_string_lossy().into_owned(), case)
        })
        .collect();
    let documents: Vec<(&str, Value)> = cases
        .iter()
        .zip(&dirs)
        .map(|((_, case), dir)| (case.schema.as_str(), read_json(&dir.join("document.json"))))
        .collect();
    let (_, all_errors) = check(&documents);
    let mut failures = Vec::new();
    let mut seen = Vec::new();
    for ((case_name, case), errors) in cases.iter().zip(&all_errors) {
        seen.push((case.schema.clone(), case.valid));
        match (case.valid, errors.is_empty()) {
            (true, false) => failures.push(format!(
                "{case_name} ({}): expected valid, got errors:\n{}",
                case.reason,
                format_errors(errors)
            )),
            (false, true) => {
                failures.push(format!("{case_name} ({}): expected invalid, but it validates", case.reason))
            }
            (false, false) => match &case.error_at {
                None => failures.push(format!("{case_name}: an invalid case needs error_at")),
                Some(at) => {
                    let under = |path: &str| at == "/" || path == at || path.starts_with(&format!("{at}/"));
                    if !errors.iter().all(|(path, _)| under(path)) || !errors.iter().any(|(path, _)| path == at) {
                        failures.push(format!(
                            "{case_name} ({}): expected errors at {at} (and nowhere else), got:\n{}",
                            case.reason,
                            format_errors(errors)
                        ));
                    }
                }
            },
            (true, true) => {
                if case.error_at.is_some() {
                    failures.push(format!("{case_name}: error_at makes no sense for a valid case"));
                }
            }
        }
    }
    for name in SCHEMAS {
        for valid in [true, false] {
            assert!(
                seen.contains(&(name.to_string(), valid)),
                "tests/data/schemas has no case with schema = {name:?}, valid = {valid}"
            );
        }
    }
    assert!(failures.is_empty(), "{} of {} schema cases fail:\n{}", failures.len(), dirs.len(), failures.join("\n"));
}
