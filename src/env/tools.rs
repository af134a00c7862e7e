//! The one catalogue of the environment's tools, for every transport: `reset` (from
//! [`ResetRequest`]) and the episode's tools (one per [`Action`] variant: `write_file`,
//! `read_file`, `edit_file`, `run`, `run_tests`, `finish`). Each tool's name, description
//! and input JSON Schema are read from the serde/schemars derivation of those types —
//! the tag, the doc comment and the fields of each variant — so a WebSocket step, an
//! HTTP step and an MCP `tools/call` accept exactly the same arguments, parsed by the
//! same code ([`Action::parse`], [`ResetRequest::parse`]).
//!
//! Also here: how a reply reads as an MCP tool result (a short text for the model, the
//! whole [`StepReply`] as structured content).

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::action::Action;
use super::observation::StepReply;
use super::protocol::{input_schema, output_schema, EnvError, ResetRequest};

/// The name of the tool that starts an episode.
pub(crate) const RESET: &str = "reset";

const RESET_DESCRIPTION: &str = "Starts an episode: a git repository in the middle of a conflicted merge (of \
    theirs into ours). Names the task by `task_id`, or draws one by `difficulty` and `seed`; with no arguments, \
    the next task. Replaces the session's current episode. Resolve the conflicts so that the tests pass.";

/// One tool as MCP's `tools/list` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Tool {
    pub(crate) name: String,
    pub(crate) description: String,
    /// A JSON Schema of `type: object`: the tool's arguments.
    pub(crate) input_schema: Value,
    /// The JSON Schema of the structured result ([`StepReply`]).
    pub(crate) output_schema: Value,
}

/// Every tool: `reset` first, then the episode's tools in [`Action`]'s order.
pub(crate) fn catalogue() -> Vec<Tool> {
    let reply = tool_schema(output_schema::<StepReply>());
    let mut reset = tool_schema(input_schema::<ResetRequest>());
    reset.as_object_mut().map(|o| o.remove("description"));
    let mut tools = vec![Tool {
        name: RESET.into(),
        description: RESET_DESCRIPTION.into(),
        input_schema: reset,
        output_schema: reply.clone(),
    }];
    tools.extend(episode_tool_schemas().into_iter().map(|(name, description, input_schema)| Tool {
        name,
        description,
        input_schema,
        output_schema: reply.clone(),
    }));
    tools
}

/// The episode's tools as `(name, description, input schema)`: one per alternative of
/// [`Action`]'s schema, its `tool` tag taken out (it is the tool's name).
fn episode_tool_schemas() -> Vec<(String, String, Value)> {
    let schema = input_schema::<Action>();
    let alternatives = schema["oneOf"].as_array().cloned().expect("Action is a tagged enum");
    alternatives
        .into_iter()
        .map(|mut alternative| {
            let name =
                alternative["properties"]["tool"]["const"].as_str().expect("every variant has a tag").to_string();
            let description = alternative["description"].as_str().unwrap_or_default().to_string();
            if let Some(properties) = alternative["properties"].as_object_mut() {
                properties.remove("tool");
            }
            if let Some(required) = alternative["required"].as_array_mut() {
                required.retain(|key| key != "tool");
            }
            let object = alternative.as_object_mut().expect("an object schema");
            object.remove("description");
            (name, description, tool_schema(alternative))
        })
        .collect()
}

/// A schema as an MCP tool's: an object schema without the root's `$schema` and `title`.
fn tool_schema(mut schema: Value) -> Value {
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
        object.entry("type").or_insert_with(|| json!("object"));
        object.entry("properties").or_insert_with(|| json!({}));
    }
    schema
}

/// A parsed `tools/call`.
#[derive(Debug, Clone)]
pub(crate) enum Call {
    Reset(ResetRequest),
    Step(Action),
}

/// Reads a call of tool `name` with `arguments` (an object, or absent): unknown tools
/// and arguments the type refuses are `VALIDATION_ERROR`s, as they are over WebSocket.
pub(crate) fn parse_call(name: &str, arguments: Option<Value>, max_text_bytes: usize) -> Result<Call, EnvError> {
    let mut fields = match arguments {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(fields)) => fields,
        Some(_) => return Err(EnvError::validation("`arguments` is a JSON object")),
    };
    if name == RESET {
        return ResetRequest::parse(Value::Object(fields)).map(Call::Reset);
    }
    if !episode_tool_schemas().iter().any(|(known, _, _)| known == name) {
        return Err(EnvError::validation(format!("unknown tool `{name}`: tools/list names the tools")));
    }
    fields.insert("tool".into(), name.into());
    Action::parse(Value::Object(fields), max_text_bytes).map(Call::Step).map_err(EnvError::validation)
}

/// A reply as an MCP tool result: the text an agent reads (the tool's output and a
/// status line) and the whole reply as structured content.
pub(crate) fn tool_result(reply: &StepReply) -> Value {
    let obs = &reply.observation;
    let tests = match obs.tests {
        Some(t) if obs.tests_passing => format!("tests pass ({} passed)", t.passed),
        Some(t) => format!("tests fail ({} passed, {} failed)", t.passed, t.failed),
        None if obs.tests_passing => "tests pass".to_string(),
        None => "tests not run on this tree".to_string(),
    };
    let reward = reply.reward.map(|r| format!("reward {r:.2}; ")).unwrap_or_default();
    let status = format!(
        "[{reward}total {:.2} of {:.2}; {} conflict block(s) left; {tests}; step {} of {}{}]",
        obs.total_reward,
        obs.max_reward,
        obs.conflict_count,
        obs.step_count,
        obs.max_steps,
        if reply.done { "; episode over" } else { "" }
    );
    let text = if obs.last_output.is_empty() { status } else { format!("{}\n\n{status}", obs.last_output) };
    json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": reply,
        "isError": false
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_comes_from_the_types() {
        let tools = catalogue();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["reset", "write_file", "read_file", "edit_file", "run", "run_tests", "finish"]);
        for tool in &tools {
            assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
            assert!(!tool.description.is_empty(), "{} has a description", tool.name);
            assert!(tool.input_schema["properties"].get("tool").is_none(), "{}", tool.name);
            assert!(tool.output_schema["properties"]["observation"].is_object());
        }
        let edit = &tools[3];
        assert_eq!(edit.input_schema["required"], json!(["path", "old_string", "new_string"]));
        assert!(edit.description.contains("old_string"));
        assert!(tools[0].input_schema["properties"]["task_id"].is_object());
        assert!(tools[4].input_schema["properties"]["command"]["anyOf"].is_array(), "run: a string or an argv list");
    }

    #[test]
    fn calls_parse_as_actions() {
        let call = parse_call("write_file", Some(json!({"file": "a.py", "resolution": "x\n"})), 100).unwrap();
        assert!(matches!(call, Call::Step(Action::Resolve { .. })));
        assert!(matches!(parse_call("run_tests", None, 100).unwrap(), Call::Step(Action::RunTests)));
        let reset = parse_call("reset", Some(json!({"task_id": "t", "seed": 3})), 100).unwrap();
        assert!(matches!(reset, Call::Reset(r) if r.choice.task_id.as_deref() == Some("t")));
        assert!(parse_call("rm", None, 100).unwrap_err().message.contains("unknown tool `rm`"));
        assert!(parse_call("read_file", Some(json!({"path": 3})), 100).is_err());
        assert!(parse_call("read_file", Some(json!([1])), 100).unwrap_err().message.contains("object"));
        assert!(parse_call("reset", Some(json!({"seed": -1})), 100).is_err());
    }
}
