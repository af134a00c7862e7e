//! The JSON Schemas of the format's files, generated from the record types
//! (`schemars`): `schemas/{task,solution,manifest}.schema.json` are this module's
//! output (written by `mergeforge regenerate`), and a test keeps them equal.

use anyhow::Result;
use serde_json::Value;

use super::{manifest::Manifest, solution::Solution, task::Task};

/// Every schema: its file stem and its JSON.
pub(crate) fn all() -> Vec<(&'static str, Value)> {
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
pub(crate) fn bytes(schema: &Value) -> Result<Vec<u8>> {
    super::task::to_json_bytes(schema)
}
