//! The OpenEnv wire format: incoming WebSocket frames, the frames sent back, the error
//! codes and their one mapping (from parse failures, to HTTP statuses), the JSON Schemas
//! of action, observation and state (`GET /schema`, generated from the types), the
//! OpenAPI document (`GET /openapi.json`) and the metadata (`GET /metadata`).
//!
//! Incoming: `{"type":"reset","data":{...}}`, `{"type":"step","data":{action}}`,
//! `{"type":"state"}`, `{"type":"close"}`, `{"type":"ping"}`; unknown keys are ignored.
//! Outgoing: `{"type":"observation","data":{"observation","reward","done"}}`,
//! `{"type":"state","data":{...}}`, `{"type":"pong"}`,
//! `{"type":"error","data":{"message","code"}}`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::action::Action;
use super::dataset::TaskChoice;
use super::observation::{EpisodeState, Observation, StepReply};

/// Error codes of the OpenEnv WebSocket protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    InvalidJson,
    UnknownType,
    ValidationError,
    ExecutionError,
    CapacityReached,
}

/// A request the environment refused or could not carry out; the episode goes on.
/// Sent as the `data` of an error frame.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct EnvError {
    pub message: String,
    pub code: ErrorCode,
}

impl EnvError {
    pub(crate) fn validation(message: impl Into<String>) -> Self {
        EnvError { code: ErrorCode::ValidationError, message: message.into() }
    }

    pub(crate) fn execution(message: impl Into<String>) -> Self {
        EnvError { code: ErrorCode::ExecutionError, message: message.into() }
    }

    pub(crate) fn invalid_json(message: impl Into<String>) -> Self {
        EnvError { code: ErrorCode::InvalidJson, message: message.into() }
    }

    /// The one mapping from a failed parse to a code: text that is not JSON is
    /// `INVALID_JSON`; JSON of another shape is `VALIDATION_ERROR`, after `expected`.
    pub(crate) fn from_json(error: serde_json::Error, expected: &str) -> Self {
        if error.is_data() {
            EnvError::validation(format!("{expected}: {error}"))
        } else {
            EnvError::invalid_json(format!("invalid JSON: {error}"))
        }
    }
}

impl ErrorCode {
    /// The status of an HTTP reply carrying this code.
    pub(crate) fn http_status(self) -> StatusCode {
        match self {
            ErrorCode::InvalidJson | ErrorCode::UnknownType => StatusCode::BAD_REQUEST,
            ErrorCode::ValidationError => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::ExecutionError => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::CapacityReached => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

/// The body of an HTTP error reply.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct HttpError {
    pub(crate) detail: String,
    pub(crate) code: ErrorCode,
}

impl IntoResponse for EnvError {
    fn into_response(self) -> Response {
        (self.code.http_status(), Json(HttpError { detail: self.message, code: self.code })).into_response()
    }
}

/// A parsed incoming frame.
#[derive(Debug, Clone)]
pub(crate) enum Incoming {
    Reset(ResetRequest),
    Step(Action),
    State,
    Close,
    Ping,
}

/// A frame as it arrives: its type and its data; other keys (`metadata`) are ignored.
#[derive(Deserialize)]
struct Frame {
    #[serde(rename = "type")]
    kind: FrameType,
    #[serde(default)]
    data: Value,
}

/// The frame types a client may send; any other name is kept for the error message.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum FrameType {
    Reset,
    Step,
    State,
    Close,
    Ping,
    #[serde(untagged)]
    Unknown(String),
}

/// Parses one text frame; `max_text_bytes` bounds the texts of a step's action.
pub(crate) fn parse_frame(text: &str, max_text_bytes: usize) -> Result<Incoming, EnvError> {
    let frame: Frame =
        serde_json::from_str(text).map_err(|e| EnvError::from_json(e, "a frame is a JSON object with a `type`"))?;
    match frame.kind {
        FrameType::Reset => ResetRequest::parse(frame.data).map(Incoming::Reset),
        FrameType::Step if frame.data.is_null() => {
            Err(EnvError::validation("a step frame needs `data`: the action object"))
        }
        FrameType::Step => Action::parse(frame.data, max_text_bytes).map(Incoming::Step).map_err(EnvError::validation),
        FrameType::State => Ok(Incoming::State),
        FrameType::Close => Ok(Incoming::Close),
        FrameType::Ping => Ok(Incoming::Ping),
        FrameType::Unknown(other) => Err(EnvError {
            code: ErrorCode::UnknownType,
            message: format!("unknown message type `{other}`: expected reset, step, state, close or ping"),
        }),
    }
}

/// A frame sent back.
#[derive(Debug, Serialize)]
#[serde(tag = "type", content = "data", rename_all = "lowercase")]
pub(crate) enum Outgoing {
    Observation(StepReply),
    State(EpisodeState),
    Error(EnvError),
    Pong,
}

impl Outgoing {
    /// The frame's JSON text.
    pub(crate) fn to_text(&self) -> String {
        serde_json::to_string(self).expect("frames serialize")
    }
}

/// `GET /schema`: JSON Schemas (draft 2020-12) of action, observation and state.
pub(crate) fn schemas() -> Value {
    json!({"action": action_schema(), "observation": output_schema::<Observation>(), "state": output_schema::<EpisodeState>()})
}

/// A self-contained schema (subschemas inlined, so that it embeds in the OpenAPI
/// document as it is) of a type the server reads.
pub(crate) fn input_schema<T: JsonSchema>() -> Value {
    SchemaSettings::draft2020_12()
        .for_deserialize()
        .with(|s| s.inline_subschemas = true)
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// The same, of a type the server writes.
pub(crate) fn output_schema<T: JsonSchema>() -> Value {
    SchemaSettings::draft2020_12()
        .for_serialize()
        .with(|s| s.inline_subschemas = true)
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// [`Action`]'s schema plus the short form of `write_file`: its alternative without `tool`.
fn action_schema() -> Value {
    let mut schema = input_schema::<Action>();
    let alternatives = schema.get_mut("oneOf").and_then(Value::as_array_mut).expect("Action is a tagged enum");
    let write = alternatives.iter().find(|a| a["properties"]["tool"]["const"] == "write_file");
    let mut short = write.cloned().expect("Action has write_file");
    if let Some(properties) = short["properties"].as_object_mut() {
        properties.remove("tool");
    }
    if let Some(required) = short["required"].as_array_mut() {
        required.retain(|key| key != "tool");
    }
    short["description"] = json!("write_file's short form: `tool` left out");
    alternatives.insert(0, short);
    schema
}

/// `GET /metadata`, in OpenEnv's `EnvironmentMetadata` shape.
pub(crate) fn metadata(dataset: &str, version: &str, tasks: usize) -> Value {
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
pub(crate) fn openapi() -> Value {
    let schemas = schemas();
    let body = |schema: Value| json!({"content": {"application/json": {"schema": schema}}});
    let error = output_schema::<HttpError>();
    let errors = json!({
        "400": {"description": "malformed JSON", "content": {"application/json": {"schema": error}}},
        "409": {"description": "no episode yet (reset first) or the episode is over", "content": {"application/json": {"schema": error}}},
        "413": {"description": "request body over the size limit"},
        "422": {"description": "invalid action or reset data", "content": {"application/json": {"schema": error}}},
        "500": {"description": "the environment failed to carry out the action", "content": {"application/json": {"schema": error}}}
    });
    let reply = output_schema::<StepReply>();
    json!({
        "openapi": "3.1.0",
        "info": {"title": "mergeforge environment", "version": crate::GENERATOR_VERSION,
                 "description": "OpenEnv-compatible. HTTP /reset, /step and /state share one default session; use WS /ws for isolated episodes."},
        "paths": {
            "/health": {"get": {"summary": "Health check", "responses": {"200": body(json!({"type": "object", "properties": {"status": {"const": "healthy"}}}))}}},
            "/metadata": {"get": {"summary": "Environment metadata", "responses": {"200": body(json!({"type": "object"}))}}},
            "/schema": {"get": {"summary": "JSON Schemas of action, observation and state", "responses": {"200": body(json!({"type": "object"}))}}},
            "/reset": {"post": {"summary": "Start an episode in the default session",
                "requestBody": {"required": false, "content": {"application/json": {"schema": input_schema::<ResetRequest>()}}},
                "responses": merge(json!({"200": body(reply.clone())}), &errors)}},
            "/step": {"post": {"summary": "Apply an action in the default session",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["action"],
                    "properties": {"action": {"$ref": "#/components/schemas/Action"}}}}}},
                "responses": merge(json!({"200": body(reply)}), &errors)}},
            "/state": {"get": {"summary": "State of the default session", "responses": {"200": body(json!({"$ref": "#/components/schemas/State"}))}}},
            "/ws": {"get": {"summary": "WebSocket: one isolated episode per connection (reset/step/state/close frames)",
                "responses": {"101": {"description": "switching protocols"}}}},
            "/mcp": {"post": {"summary": "MCP (JSON-RPC 2.0, Streamable HTTP with JSON replies): initialize (Mcp-Session-Id header), tools/list, tools/call; one episode per session",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object"}}}},
                "responses": {"200": body(json!({"type": "object", "required": ["jsonrpc"], "properties": {"jsonrpc": {"const": "2.0"}}})),
                              "202": {"description": "a notification or response accepted"},
                              "404": {"description": "unknown MCP session: initialize again"}}},
                     "delete": {"summary": "End the MCP session named by Mcp-Session-Id", "responses": {"204": {"description": "ended"}}}}
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
        assert!(matches!(parse_frame(r#"{"type":"state","metadata":{}}"#, 100).unwrap(), Incoming::State));
        assert!(matches!(parse_frame(r#"{"type":"reset"}"#, 100).unwrap(), Incoming::Reset(_)));
        assert!(matches!(parse_frame(r#"{"type":"step","data":{"tool":"finish"}}"#, 100).unwrap(), Incoming::Step(_)));
        assert_eq!(parse_frame("{nope", 100).unwrap_err().code, ErrorCode::InvalidJson);
        assert_eq!(parse_frame(r#"{"type":"dance"}"#, 100).unwrap_err().code, ErrorCode::UnknownType);
        assert_eq!(parse_frame(r#"{"type":"step"}"#, 100).unwrap_err().code, ErrorCode::ValidationError);
        assert_eq!(parse_frame(r#"{"data":{}}"#, 100).unwrap_err().code, ErrorCode::ValidationError);
        let bad_seed = parse_frame(r#"{"type":"reset","data":{"seed":-1}}"#, 100).unwrap_err();
        assert_eq!(bad_seed.code, ErrorCode::ValidationError, "{bad_seed}");
        let frame: Value = serde_json::from_str(&Outgoing::Error(EnvError::validation("x")).to_text()).unwrap();
        assert_eq!(frame, json!({"type": "error", "data": {"message": "x", "code": "VALIDATION_ERROR"}}));
        assert_eq!(Outgoing::Pong.to_text(), r#"{"type":"pong"}"#);
    }

    #[test]
    fn schemas_come_from_the_types() {
        let schemas = schemas();
        let tools: Vec<&Value> =
            schemas["action"]["oneOf"].as_array().unwrap().iter().map(|a| &a["properties"]["tool"]["const"]).collect();
        assert_eq!(
            tools,
            [
                &Value::Null,
                &json!("write_file"),
                &json!("read_file"),
                &json!("edit_file"),
                &json!("run"),
                &json!("run_tests"),
                &json!("finish")
            ]
        );
        assert_eq!(schemas["action"]["oneOf"][0]["required"], json!(["file", "resolution"]));
        let required = schemas["observation"]["required"].as_array().unwrap();
        assert!(required.contains(&json!("reward_components")) && required.contains(&json!("tests")));
        assert!(schemas["state"]["properties"]["episode_id"].is_object());
        assert!(openapi().to_string().find("$defs").is_none(), "every subschema is inlined");
    }
}

/// The parameters of a reset (the `data` of a reset frame, the body of `POST /reset`);
/// unknown keys are ignored.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ResetRequest {
    #[serde(flatten)]
    pub choice: TaskChoice,
    /// An id for the episode (logs, state); at most 255 bytes. A fresh one by default.
    #[serde(default)]
    #[schemars(length(max = 255))]
    pub episode_id: Option<String>,
}

impl ResetRequest {
    /// Reads the `data` of a reset frame (or the body of `POST /reset`); `null` is the
    /// default reset.
    pub(crate) fn parse(data: Value) -> Result<ResetRequest, EnvError> {
        let request: Option<ResetRequest> =
            serde_json::from_value(data).map_err(|e| EnvError::from_json(e, "invalid reset data"))?;
        let request = request.unwrap_or_default();
        if request.episode_id.as_ref().is_some_and(|id| id.len() > 255) {
            return Err(EnvError::validation("reset: `episode_id` is longer than 255 bytes"));
        }
        Ok(request)
    }
}
