//! The OpenEnv wire format: incoming WebSocket frames, the frames sent back, the JSON
//! Schemas of action, observation and state (`GET /schema`), the OpenAPI document
//! (`GET /openapi.json`) and the metadata (`GET /metadata`).
//!
//! Incoming: `{"type":"reset","data":{...}}`, `{"type":"step","data":{action}}`,
//! `{"type":"state"}`, `{"type":"close"}`, `{"type":"ping"}`; unknown keys are ignored.
//! Outgoing: `{"type":"observation","data":{"observation","reward","done"}}`,
//! `{"type":"state","data":{...}}`, `{"type":"pong"}`,
//! `{"type":"error","data":{"message","code"}}`.

use serde_json::{json, Value};

use super::observation::{EpisodeState, StepReply};
use super::{EnvError, ErrorCode};

/// A parsed incoming frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Reset(Value),
    Step(Value),
    State,
    Close,
    Ping,
}

/// Parses one text frame.
pub fn parse_frame(text: &str) -> Result<Incoming, EnvError> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| EnvError { code: ErrorCode::InvalidJson, message: format!("invalid JSON: {e}") })?;
    let Some(object) = value.as_object() else {
        return Err(EnvError::validation("a frame is a JSON object with a `type`"));
    };
    let kind = object.get("type").and_then(Value::as_str).unwrap_or("");
    let data = object.get("data").cloned().unwrap_or(Value::Null);
    match kind {
        "reset" => Ok(Incoming::Reset(data)),
        "step" if data.is_object() => Ok(Incoming::Step(data)),
        "step" => Err(EnvError::validation("a step frame needs `data`: the action object")),
        "state" => Ok(Incoming::State),
        "close" => Ok(Incoming::Close),
        "ping" => Ok(Incoming::Ping),
        other => Err(EnvError {
            code: ErrorCode::UnknownType,
            message: format!("unknown message type `{other}`: expected reset, step, state, close or ping"),
        }),
    }
}

pub fn observation_frame(reply: &StepReply) -> Value {
    json!({"type": "observation", "data": reply})
}

pub fn state_frame(state: &EpisodeState) -> Value {
    json!({"type": "state", "data": state})
}

pub fn error_frame(error: &EnvError) -> Value {
    json!({"type": "error", "data": {"message": error.message, "code": error.code}})
}

pub fn pong_frame() -> Value {
    json!({"type": "pong"})
}

/// `GET /schema`: JSON Schemas (draft 2020-12) of action, observation and state.
pub fn schemas() -> Value {
    json!({"action": action_schema(), "observation": observation_schema(), "state": state_schema()})
}

fn action_schema() -> Value {
    let line = json!({"type": "integer", "minimum": 1});
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "MergeforgeAction",
        "description": "One step: a whole-file resolution, or a tool call. Unknown keys (e.g. metadata) are ignored.",
        "oneOf": [
            {"title": "Resolve", "type": "object", "required": ["file", "resolution"],
             "properties": {"file": {"type": "string", "description": "path relative to the repository root"},
                            "resolution": {"type": "string", "description": "the whole resolved file"}}},
            {"title": "ReadFile", "type": "object", "required": ["tool", "path"],
             "properties": {"tool": {"const": "read_file"}, "path": {"type": "string"},
                            "start_line": line, "end_line": line}},
            {"title": "EditFile", "type": "object", "required": ["tool", "path", "start_line", "end_line", "content"],
             "properties": {"tool": {"const": "edit_file"}, "path": {"type": "string"}, "start_line": line,
                            "end_line": {"type": "integer", "minimum": 0,
                                         "description": "inclusive; start_line - 1 inserts before start_line"},
                            "content": {"type": "string"}}},
            {"title": "Run", "type": "object", "required": ["tool", "command"],
             "properties": {"tool": {"const": "run"},
                            "command": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}]}}},
            {"title": "Finish", "type": "object", "required": ["tool"], "properties": {"tool": {"const": "finish"}}}
        ]
    })
}

fn observation_schema() -> Value {
    let number = json!({"type": "number"});
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "MergeforgeObservation",
        "type": "object",
        "required": ["files", "conflict_count", "syntax_valid", "tests_passing", "done", "task",
                     "last_output", "reward_components", "max_reward", "total_reward", "step_count", "max_steps"],
        "properties": {
            "files": {"type": "object", "additionalProperties": {"type": "string"},
                      "description": "path -> current content of every file git reported as conflicted"},
            "conflict_count": {"type": "integer", "minimum": 0},
            "syntax_valid": {"type": "boolean"},
            "tests_passing": {"type": "boolean"},
            "tests": {"oneOf": [{"type": "null"}, {"type": "object", "properties": {
                "passed": {"type": "integer"}, "failed": {"type": "integer"}, "total": {"type": "integer"}}}]},
            "done": {"type": "boolean"},
            "task": {"type": "object", "required": ["id", "level", "family"], "properties": {
                "id": {"type": "string"}, "level": {"enum": ["easy", "medium", "hard"]}, "family": {"type": "string"}}},
            "last_output": {"type": "string"},
            "reward_components": {"type": "object", "required": ["markers", "syntax", "tests", "duplication"],
                "properties": {"markers": number, "syntax": number, "tests": number, "duplication": number}},
            "max_reward": number,
            "total_reward": number,
            "step_count": {"type": "integer", "minimum": 0},
            "max_steps": {"type": "integer", "minimum": 1}
        }
    })
}

fn state_schema() -> Value {
    let optional = |kind: &str| json!({"type": [kind, "null"]});
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "MergeforgeState",
        "type": "object",
        "required": ["episode_id", "step_count"],
        "properties": {
            "episode_id": optional("string"),
            "step_count": {"type": "integer", "minimum": 0},
            "task_id": optional("string"),
            "level": optional("string"),
            "family": optional("string"),
            "done": {"type": "boolean"},
            "total_reward": {"type": "number"},
            "max_reward": optional("number"),
            "max_steps": {"type": "integer"},
            "conflict_count": optional("integer")
        }
    })
}

/// `GET /metadata`, in OpenEnv's `EnvironmentMetadata` shape.
pub fn metadata(dataset: &str, version: &str, tasks: usize) -> Value {
    json!({
        "name": "mergeforge",
        "description": format!(
            "Verified merge-conflict tasks ({dataset} {version}, {tasks} tasks): each episode is a git repository \
             in the middle of a conflicted merge; resolve it so the tests pass. Reset data: task_id, difficulty, seed, episode_id."
        ),
        "readme_content": null,
        "version": crate::GENERATOR_VERSION,
        "author": null,
        "documentation_url": null
    })
}

/// `GET /openapi.json`: the HTTP surface, with the schemas above as components.
pub fn openapi() -> Value {
    let schemas = schemas();
    let body = |schema: Value| json!({"content": {"application/json": {"schema": schema}}});
    let reply = json!({"type": "object", "required": ["observation", "done"], "properties": {
        "observation": {"$ref": "#/components/schemas/Observation"},
        "reward": {"type": ["number", "null"]}, "done": {"type": "boolean"}}});
    let error = json!({"type": "object", "properties": {"detail": {"type": "string"}, "code": {"type": "string"}}});
    let errors = json!({
        "400": {"description": "malformed JSON", "content": {"application/json": {"schema": error}}},
        "409": {"description": "no episode yet (reset first) or the episode is over", "content": {"application/json": {"schema": error}}},
        "413": {"description": "request body over the size limit"},
        "422": {"description": "invalid action or reset data", "content": {"application/json": {"schema": error}}},
        "500": {"description": "the environment failed to carry out the action", "content": {"application/json": {"schema": error}}}
    });
    json!({
        "openapi": "3.1.0",
        "info": {"title": "mergeforge environment", "version": crate::GENERATOR_VERSION,
                 "description": "OpenEnv-compatible. HTTP /reset, /step and /state share one default session; use WS /ws for isolated episodes."},
        "paths": {
            "/health": {"get": {"summary": "Health check", "responses": {"200": body(json!({"type": "object", "properties": {"status": {"const": "healthy"}}}))}}},
            "/metadata": {"get": {"summary": "Environment metadata", "responses": {"200": body(json!({"type": "object"}))}}},
            "/schema": {"get": {"summary": "JSON Schemas of action, observation and state", "responses": {"200": body(json!({"type": "object"}))}}},
            "/reset": {"post": {"summary": "Start an episode in the default session",
                "requestBody": {"required": false, "content": {"application/json": {"schema": {"type": "object", "properties": {
                    "task_id": {"type": "string"}, "difficulty": {"enum": ["easy", "medium", "hard"]},
                    "seed": {"type": "integer", "minimum": 0}, "episode_id": {"type": "string", "maxLength": 255}}}}}},
                "responses": merge(json!({"200": body(reply.clone())}), &errors)}},
            "/step": {"post": {"summary": "Apply an action in the default session",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["action"],
                    "properties": {"action": {"$ref": "#/components/schemas/Action"}}}}}},
                "responses": merge(json!({"200": body(reply)}), &errors)}},
            "/state": {"get": {"summary": "State of the default session", "responses": {"200": body(json!({"$ref": "#/components/schemas/State"}))}}},
            "/ws": {"get": {"summary": "WebSocket: one isolated episode per connection (reset/step/state/close frames)",
                "responses": {"101": {"description": "switching protocols"}}}}
        },
        "components": {"schemas": {"Action": schemas["action"], "Observation": schemas["observation"], "State": schemas["state"]}}
    })
}

fn merge(mut base: Value, extra: &Value) -> Value {
    if let (Some(target), Some(source)) = (base.as_object_mut(), extra.as_object()) {
        for (k, v) in source {
            target.insert(k.clone(), v.clone());
        }
    }
    base
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames() {
        assert_eq!(parse_frame(r#"{"type":"state","metadata":{}}"#).unwrap(), Incoming::State);
        assert_eq!(parse_frame("{nope").unwrap_err().code, ErrorCode::InvalidJson);
        assert_eq!(parse_frame(r#"{"type":"dance"}"#).unwrap_err().code, ErrorCode::UnknownType);
        assert_eq!(parse_frame(r#"{"type":"step"}"#).unwrap_err().code, ErrorCode::ValidationError);
        let error = error_frame(&EnvError::validation("x"));
        assert_eq!(error["data"]["code"], "VALIDATION_ERROR");
    }
}
