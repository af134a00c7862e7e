//! The `datasets` features of the published records, derived from the records' JSON
//! Schemas (so the card cannot drift from the types): the card's `dataset_info` and its
//! tables of fields come from here.

use std::fmt::Write;

use schemars::JsonSchema;

/// A feature of the flat record, as the card's `dataset_info` declares it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Feature {
    Value(&'static str),
    List(Box<Feature>),
    Struct(Vec<(String, Feature)>),
}

use Feature::{List, Struct, Value};

/// The JSON Schema of a record type: its features and the card's table of its fields
/// (names, types, the fields' doc comments) come from it.
pub(crate) fn record_schema<T: JsonSchema>() -> serde_json::Value {
    schemars::schema_for!(T).to_value()
}

/// The features of a record type, field for field, derived from its JSON Schema.
pub(crate) fn record_features<T: JsonSchema>() -> Vec<(String, Feature)> {
    let schema = record_schema::<T>();
    match feature_of(&schema, &schema) {
        Struct(fields) => fields,
        _ => Vec::new(),
    }
}

/// The card's table of a record type's fields: name, type, meaning.
pub(crate) fn fields_table<T: JsonSchema>(out: &mut String) {
    out.push_str("| field | type | meaning |\n|---|---|---|\n");
    let schema = record_schema::<T>();
    for (name, feature) in record_features::<T>() {
        let meaning = schema["properties"][&name]["description"].as_str().unwrap_or_default().replace('\n', " ");
        let _ = writeln!(out, "| `{name}` | {} | {meaning} |", type_name(&feature));
    }
}

/// The feature of `node` (a subschema of `root`): objects are structs (properties in
/// order), arrays lists, nullable types their non-null type, enums strings.
fn feature_of(root: &serde_json::Value, node: &serde_json::Value) -> Feature {
    if let Some(reference) = node.get("$ref").and_then(|r| r.as_str()) {
        let target = reference.strip_prefix("#").and_then(|pointer| root.pointer(pointer));
        return target.map_or(Value("string"), |t| feature_of(root, t));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = node.get(key).and_then(|o| o.as_array()) {
            let non_null: Vec<&serde_json::Value> = options.iter().filter(|o| o["type"] != "null").collect();
            let all_strings = non_null.iter().all(|o| o.get("const").is_some() || o["type"] == "string");
            return match non_null.first() {
                Some(first) if !all_strings => feature_of(root, first),
                _ => Value("string"),
            };
        }
    }
    let kind = match &node["type"] {
        serde_json::Value::Array(types) => types.iter().find(|t| *t != "null").cloned().unwrap_or_default(),
        other => other.clone(),
    };
    match kind.as_str().unwrap_or("string") {
        "object" => Struct(
            node["properties"]
                .as_object()
                .map(|properties| properties.iter().map(|(name, p)| (name.clone(), feature_of(root, p))).collect())
                .unwrap_or_default(),
        ),
        "array" => List(Box::new(feature_of(root, &node["items"]))),
        "integer" => Value("int64"),
        "number" => Value("float64"),
        "boolean" => Value("bool"),
        _ => Value("string"),
    }
}

/// A feature as the card's table of fields names its type.
fn type_name(feature: &Feature) -> String {
    match feature {
        Value(dtype) => dtype.to_string(),
        Struct(_) => "struct".to_string(),
        List(inner) => match inner.as_ref() {
            Struct(fields) => {
                format!("list of {{{}}}", fields.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>().join(", "))
            }
            other => format!("list of {}", type_name(other)),
        },
    }
}

/// Renders fields as the YAML list `datasets` reads (`Features._from_yaml_list`).
pub(crate) fn render_fields(out: &mut String, fields: &[(String, Feature)], indent: usize) {
    let pad = " ".repeat(indent);
    for (name, feature) in fields {
        let _ = writeln!(out, "{pad}- name: {name}");
        render_feature(out, feature, indent + 2);
    }
}

fn render_feature(out: &mut String, feature: &Feature, indent: usize) {
    let pad = " ".repeat(indent);
    match feature {
        Value(dtype) => {
            let _ = writeln!(out, "{pad}dtype: {dtype}");
        }
        Struct(fields) => {
            let _ = writeln!(out, "{pad}struct:");
            render_fields(out, fields, indent);
        }
        List(inner) => match inner.as_ref() {
            Value(dtype) => {
                let _ = writeln!(out, "{pad}list: {dtype}");
            }
            Struct(fields) => {
                let _ = writeln!(out, "{pad}list:");
                render_fields(out, fields, indent);
            }
            List(_) => {
                let _ = writeln!(out, "{pad}list:");
                render_feature(out, inner, indent + 2);
            }
        },
    }
}
