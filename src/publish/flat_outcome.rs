//! Outcomes as table cells: [`FlatOutcome`] (every key always present) and
//! [`FlatBaselines`], the ladder's outcomes as columns made from the resolver catalogue.
//!
//! `FlatBaselines` has one column per record key of [`resolve::record_keys`], in ladder
//! order: an own key is a flat outcome, or null when its resolver did not run (mergiraf
//! without a binary); a shared key is `{passed, <member>: flat outcome | null, …}`
//! (`union`: `ours_first`, `theirs_first`). Its JSON Schema, and so the dataset card's
//! features, comes from the catalogue as well: a new resolver is a new column with no
//! edit here.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};

use crate::pytest::testrun::Outcome;
use crate::resolve::{self, RecordKey, Resolver};
use crate::validate::{Baselines, MaybeOutcome};

/// An outcome with every key always present.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FlatOutcome {
    pub passed: bool,
    pub failed_tests: Vec<String>,
    pub timed_out: bool,
}

impl From<&Outcome> for FlatOutcome {
    fn from(outcome: &Outcome) -> Self {
        FlatOutcome { passed: outcome.passed, failed_tests: outcome.failed_tests.clone(), timed_out: outcome.timed_out }
    }
}

impl From<&FlatOutcome> for Outcome {
    /// The recorded outcome (durations are not part of any record).
    fn from(flat: &FlatOutcome) -> Self {
        Outcome {
            passed: flat.passed,
            failed_tests: flat.failed_tests.clone(),
            duration_ms: 0,
            timed_out: flat.timed_out,
            last_line: String::new(),
        }
    }
}

/// The baselines as columns (see the module header). Parallel to [`resolve::ALL`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatBaselines(Vec<Option<FlatOutcome>>);

impl From<&Baselines> for FlatBaselines {
    fn from(baselines: &Baselines) -> Self {
        FlatBaselines(baselines.iter().map(|(_, outcome)| outcome.outcome().map(FlatOutcome::from)).collect())
    }
}

impl From<&FlatBaselines> for Baselines {
    fn from(flat: &FlatBaselines) -> Self {
        let mut cells = flat.0.iter();
        Baselines::from_fn(|_| match cells.next() {
            Some(Some(outcome)) => MaybeOutcome::Ran(outcome.into()),
            _ => MaybeOutcome::unavailable(),
        })
    }
}

/// A resolver of the ladder with its cell.
type Cell<'a> = (&'static dyn Resolver, &'a Option<FlatOutcome>);

/// The columns in ladder order, each with its resolvers' cells.
fn columns(flat: &FlatBaselines) -> Vec<(&'static str, Vec<Cell<'_>>)> {
    let cells: Vec<_> = resolve::ALL.iter().copied().zip(&flat.0).collect();
    resolve::record_keys()
        .into_iter()
        .map(|(key, _)| (key, cells.iter().filter(|(r, _)| r.record_key().key() == key).copied().collect()))
        .collect()
}

/// The cells of a shared key's column.
struct Shared<'a>(Vec<Cell<'a>>);

impl Serialize for Shared<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len() + 1))?;
        map.serialize_entry("passed", &self.0.iter().any(|(_, cell)| cell.as_ref().is_some_and(|o| o.passed)))?;
        for (resolver, cell) in &self.0 {
            if let RecordKey::Shared { member, .. } = resolver.record_key() {
                map.serialize_entry(member, cell)?;
            }
        }
        map.end()
    }
}

impl Serialize for FlatBaselines {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let columns = columns(self);
        let mut map = serializer.serialize_map(Some(columns.len()))?;
        for (key, cells) in columns {
            match cells.as_slice() {
                [(resolver, cell)] if matches!(resolver.record_key(), RecordKey::Own(_)) => {
                    map.serialize_entry(key, cell)?
                }
                _ => map.serialize_entry(key, &Shared(cells))?,
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for FlatBaselines {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut columns = serde_json::Map::deserialize(deserializer)?;
        let mut cells = Vec::with_capacity(resolve::ALL.len());
        for resolver in resolve::ALL {
            let value = match resolver.record_key() {
                RecordKey::Own(key) => columns.remove(key),
                RecordKey::Shared { key, member } => {
                    columns.get_mut(key).and_then(|shared| shared.as_object_mut()).and_then(|s| s.remove(member))
                }
            };
            let cell = match value {
                Some(value) => serde_json::from_value(value).map_err(D::Error::custom)?,
                None => None,
            };
            cells.push(cell);
        }
        let known: Vec<&str> = resolve::record_keys().iter().map(|(key, _)| *key).collect();
        if let Some(unknown) = columns.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(D::Error::custom(format!("unknown baseline column `{unknown}`; known: {}", known.join(", "))));
        }
        Ok(FlatBaselines(cells))
    }
}

impl JsonSchema for FlatBaselines {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "FlatBaselines".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut properties = serde_json::Map::new();
        for (key, members) in resolve::record_keys() {
            let column = match members.as_slice() {
                [resolver] if matches!(resolver.record_key(), RecordKey::Own(_)) => {
                    cell_schema(generator, resolver.description())
                }
                _ => shared_schema(generator, &members),
            };
            properties.insert(key.to_string(), column.into());
        }
        let required: Vec<&str> = resolve::record_keys().iter().map(|(key, _)| *key).collect();
        schemars::json_schema!({
            "type": "object",
            "description": "The baseline resolvers' outcomes, one column per record key in ladder order.",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        })
    }
}

/// A resolver's cell: its flat outcome, null when it did not run.
fn cell_schema(generator: &mut SchemaGenerator, description: &str) -> Schema {
    let mut schema = generator.subschema_for::<Option<FlatOutcome>>();
    schema.insert("description".into(), format!("{description} Null when it did not run.").into());
    schema
}

/// A shared key's column: `passed` and each member's cell.
fn shared_schema(generator: &mut SchemaGenerator, members: &[&'static dyn Resolver]) -> Schema {
    let mut properties = serde_json::Map::new();
    properties
        .insert("passed".into(), serde_json::json!({"type": "boolean", "description": "Whether any member passes."}));
    let mut required = vec!["passed"];
    for resolver in members {
        if let RecordKey::Shared { member, .. } = resolver.record_key() {
            properties.insert(member.into(), cell_schema(generator, resolver.description()).into());
            required.push(member);
        }
    }
    let names: Vec<&str> = members.iter().map(|r| r.name()).collect();
    schemars::json_schema!({
        "type": "object",
        "description": format!("Resolvers recorded together ({}); passes when any of them passes.", names.join(", ")),
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}
