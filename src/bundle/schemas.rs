//! The JSON Schemas of the format's files, generated from the record types
//! (`schemars`): `schemas/{task,solution,manifest}.schema.json` are this module's
//! output (`mergeforge schemas --out schemas`), and a test keeps them equal.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::Value;

use super::{manifest::Manifest, solution::Solution, task::Task};

/// Every schema: its file stem and its JSON.
pub fn all() -> Vec<(&'static str, Value)> {
    vec![
        ("task", finish("task", schemars::schema_for!(Task))),
        ("solution", finish("solution", schemars::schema_for!(Solution))),
        ("manifest", finish("manifest", schemars::schema_for!(Manifest))),
    ]
}

fn finish(name: &str, schema: schemars::Schema) -> Value {
    let mut value = schema.to_value();
    describe_map_entries(&mut value);
    if let Some(object) = value.as_object_mut() {
        object.insert("$id".into(), Value::String(format!("https://mergeforge.dev/schemas/{name}.schema.json")));
    }
    value
}

/// Gives every property without a description one: those are the entries of a map keyed
/// by an enum (`counts.by_level.easy`), whose keys have no doc comment of their own.
fn describe_map_entries(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(properties)) = map.get_mut("properties") {
                for (key, property) in properties.iter_mut() {
                    if let Value::Object(property) = property {
                        property
                            .entry("description")
                            .or_insert_with(|| Value::String(format!("The entry for `{key}`.")));
                    }
                }
            }
            map.values_mut().for_each(describe_map_entries);
        }
        Value::Array(items) => items.iter_mut().for_each(describe_map_entries),
        _ => {}
    }
}

/// The bytes of `<name>.schema.json`: pretty JSON with a trailing newline.
pub fn bytes(schema: &Value) -> Result<Vec<u8>> {
    super::task::to_json_bytes(schema)
}

/// Writes every schema into `dir`; returns the paths written.
pub fn write_all(dir: &Path) -> Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut written = Vec::new();
    for (name, schema) in all() {
        let path = dir.join(format!("{name}.schema.json"));
        write_replacing(&path, &bytes(&schema)?).with_context(|| format!("writing {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// Writes `bytes` through a temporary file in the same folder and a rename, so a schema
/// file is either the old one or the new one, never half written.
fn write_replacing(path: &Path, bytes: &[u8]) -> Result<()> {
    let folder = path.parent().context("schema path has no folder")?;
    let mut temp = tempfile::Builder::new().prefix(".schema-").tempfile_in(folder)?;
    std::io::Write::write_all(&mut temp, bytes)?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
