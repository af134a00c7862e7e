//! How a record lays out one cell per resolver of the ladder ([`crate::resolve::ALL`]):
//! an object keyed by the resolvers' record keys in ladder order. A resolver with its
//! own key maps to its cell; the members of a shared key are an object `{"passed": any
//! member passed, <member>: cell, …}` (`union`: `ours_first`, `theirs_first`). Read
//! back, a key the record lacks (a resolver added after the record was written) is a
//! missing cell, and a key no resolver records is an error.
//!
//! After the resolvers' keys comes the **agent rung**, [`AGENT_KEY`]: an external agent
//! (`gen-tasks --agent-rung`) played on a task every resolver left hard, an
//! [`AgentOutcome`]. A task's record has the key only when the agent played it; a flat
//! record (every column always present) has it as null otherwise. A record without the
//! key reads as "not played".
//!
//! [`super::Baselines`] (the task's record) and the published flat record's baselines
//! both use this layout, with their own cell type ([`LadderCell`]); their JSON Schemas
//! come from it too.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{DeserializeOwned, Error as _};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};

use crate::resolve::{self, RecordKey, Resolver};

/// The agent rung's key, after every resolver's.
pub(crate) const AGENT_KEY: &str = "agent";

/// What the agent rung (`gen-tasks --agent-rung`) made of a task every resolver left
/// hard: a task it solves in any of its tries is medium.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AgentOutcome {
    /// Whether one of the agent's tries solved the task.
    pub(crate) passed: bool,
    /// Tries played: up to the first that solved the task, else every try the run allows.
    #[schemars(range(min = 1))]
    pub(crate) tries: u32,
}

/// Whether a record without an agent outcome writes the agent key (as null).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AgentColumn {
    /// Written only when the agent played the task (`solution.json`).
    WhenPlayed,
    /// Always written, null when the agent did not play the task (flat records).
    Always,
}

/// What a record holds for one resolver of the ladder.
pub(crate) trait LadderCell: Serialize + DeserializeOwned + JsonSchema {
    /// Whether the resolver's result passed the tests.
    fn passed(&self) -> bool;
    /// The cell of a resolver the record has no key for.
    fn missing() -> Self;
    /// The schema description of a resolver's cell.
    fn describe(resolver: &dyn Resolver) -> String;
}

/// A resolver of the ladder and its cell.
type Cell<'a, C> = (&'static dyn Resolver, &'a C);

/// The record keys in ladder order, each with its resolvers' cells (`cells` is parallel
/// to [`resolve::ALL`]).
fn by_key<C>(cells: &[C]) -> Vec<(&'static str, Vec<Cell<'_, C>>)> {
    let all: Vec<Cell<'_, C>> = resolve::ALL.iter().copied().zip(cells).collect();
    resolve::record_keys()
        .into_iter()
        .map(|(key, _)| (key, all.iter().filter(|(r, _)| r.record_key().key() == key).copied().collect()))
        .collect()
}

/// The object a shared key is written as.
struct Shared<'a, C>(&'a [Cell<'a, C>]);

impl<C: LadderCell> Serialize for Shared<'_, C> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len() + 1))?;
        map.serialize_entry("passed", &self.0.iter().any(|(_, cell)| cell.passed()))?;
        for (resolver, cell) in self.0 {
            if let RecordKey::Shared { member, .. } = resolver.record_key() {
                map.serialize_entry(member, cell)?;
            }
        }
        map.end()
    }
}

/// Writes `cells` (parallel to [`resolve::ALL`]) and the agent rung's outcome in the
/// ladder layout.
pub(crate) fn serialize<C: LadderCell, S: serde::Serializer>(
    cells: &[C],
    agent: Option<&AgentOutcome>,
    column: AgentColumn,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let keys = by_key(cells);
    let mut map = serializer.serialize_map(None)?;
    for (key, members) in &keys {
        match members.as_slice() {
            [(resolver, cell)] if matches!(resolver.record_key(), RecordKey::Own(_)) => {
                map.serialize_entry(key, cell)?
            }
            _ => map.serialize_entry(key, &Shared(members))?,
        }
    }
    if agent.is_some() || column == AgentColumn::Always {
        map.serialize_entry(AGENT_KEY, &agent)?;
    }
    map.end()
}

/// Cells parallel to [`resolve::ALL`], and the agent rung's outcome if it played.
pub(crate) type Record<C> = (Vec<C>, Option<AgentOutcome>);

/// Reads cells (parallel to [`resolve::ALL`]) and the agent rung's outcome written in
/// the ladder layout.
pub(crate) fn deserialize<'de, C: LadderCell, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Record<C>, D::Error> {
    let mut record = serde_json::Map::deserialize(deserializer)?;
    let agent = match record.remove(AGENT_KEY) {
        Some(value) => serde_json::from_value(value).map_err(D::Error::custom)?,
        None => None,
    };
    let known: Vec<&str> = resolve::record_keys().iter().map(|(key, _)| *key).collect();
    if let Some(unknown) = record.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(D::Error::custom(format!("unknown baseline `{unknown}`; known: {}", known.join(", "))));
    }
    let mut cells = Vec::with_capacity(resolve::ALL.len());
    for resolver in resolve::ALL {
        let value = match resolver.record_key() {
            RecordKey::Own(key) => record.remove(key),
            RecordKey::Shared { key, member } => {
                record.get_mut(key).and_then(|shared| shared.as_object_mut()).and_then(|s| s.remove(member))
            }
        };
        cells.push(match value {
            Some(value) => serde_json::from_value(value).map_err(D::Error::custom)?,
            None => C::missing(),
        });
    }
    Ok((cells, agent))
}

/// The schema of the ladder layout with `C` cells: one property per record key in
/// ladder order, described by its resolver, then the agent rung's; closed. No key is
/// required: a record written before a resolver joined the ladder lacks its key, which
/// reads as unavailable.
pub(crate) fn schema<C: LadderCell>(generator: &mut SchemaGenerator, description: &str, column: AgentColumn) -> Schema {
    let mut properties = serde_json::Map::new();
    for (key, members) in resolve::record_keys() {
        let property = match members.as_slice() {
            [resolver] if matches!(resolver.record_key(), RecordKey::Own(_)) => cell_schema::<C>(generator, *resolver),
            _ => shared_schema::<C>(generator, &members),
        };
        properties.insert(key.to_string(), property.into());
    }
    let (mut agent, absent) = match column {
        AgentColumn::WhenPlayed => (generator.subschema_for::<AgentOutcome>(), "Absent"),
        AgentColumn::Always => (generator.subschema_for::<Option<AgentOutcome>>(), "Null"),
    };
    agent.insert("description".into(), format!("{AGENT_DESCRIPTION} {absent} when it did not play the task.").into());
    properties.insert(AGENT_KEY.to_string(), agent.into());
    schemars::json_schema!({
        "type": "object",
        "description": description,
        "properties": properties,
        "additionalProperties": false,
    })
}

/// What the agent rung's cell says, in the schemas.
const AGENT_DESCRIPTION: &str = "The agent rung: an external agent (`gen-tasks --agent-rung`) played on a task every \
     resolver left hard; a task it solves is medium.";

/// A resolver's cell, described by [`LadderCell::describe`].
fn cell_schema<C: LadderCell>(generator: &mut SchemaGenerator, resolver: &dyn Resolver) -> Schema {
    let mut schema = generator.subschema_for::<C>();
    schema.insert("description".into(), C::describe(resolver).into());
    schema
}

/// The schema of a key several resolvers share: `passed` and each member's cell.
fn shared_schema<C: LadderCell>(generator: &mut SchemaGenerator, members: &[&'static dyn Resolver]) -> Schema {
    let mut properties = serde_json::Map::new();
    properties
        .insert("passed".into(), serde_json::json!({"type": "boolean", "description": "Whether any member passes."}));
    let mut required = vec!["passed"];
    for resolver in members {
        if let RecordKey::Shared { member, .. } = resolver.record_key() {
            properties.insert(member.into(), cell_schema::<C>(generator, *resolver).into());
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
