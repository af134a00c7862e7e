//! What an agent may do in one step, parsed from the JSON of a `step` frame.
//!
//! Two forms, told apart by their keys (unknown extra keys such as `metadata` are
//! ignored):
//!
//! * `{"file": PATH, "resolution": TEXT}`: replace a whole file;
//! * `{"tool": NAME, ...}`: `read_file` (`path`, optional `start_line`, `end_line`),
//!   `edit_file` (`path`, `start_line`, `end_line`, `content`), `run` (`command`: a
//!   shell string or an argv list), `finish`.
//!
//! Line numbers are 1-based and inclusive; `edit_file` with `end_line = start_line - 1`
//! inserts before `start_line`.

use serde::Deserialize;
use serde_json::Value;

/// One parsed action.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Resolve { file: String, resolution: String },
    ReadFile { path: String, start_line: Option<usize>, end_line: Option<usize> },
    EditFile { path: String, start_line: usize, end_line: usize, content: String },
    Run { argv: Vec<String> },
    Finish,
}

/// Every field any action may carry; unknown keys are ignored by serde.
#[derive(Debug, Deserialize)]
struct RawAction {
    tool: Option<String>,
    file: Option<String>,
    resolution: Option<String>,
    path: Option<String>,
    start_line: Option<u64>,
    end_line: Option<u64>,
    content: Option<String>,
    command: Option<CommandSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum CommandSpec {
    Shell(String),
    Argv(Vec<String>),
}

/// The tool names, for messages.
pub const TOOLS: &[&str] = &["read_file", "edit_file", "run", "finish"];

impl Action {
    /// Parses the `data` of a step frame; the error is one line for the agent.
    /// `max_text_bytes` bounds `resolution` and `content`.
    pub fn parse(data: Value, max_text_bytes: usize) -> Result<Action, String> {
        if !data.is_object() {
            return Err("an action is a JSON object: {\"file\", \"resolution\"} or {\"tool\": ...}".into());
        }
        for name in ["resolution", "content"] {
            if let Some(text) = data.get(name).and_then(Value::as_str) {
                if text.len() > max_text_bytes {
                    return Err(format!(
                        "`{name}` is {} bytes; the limit is {max_text_bytes} (server flag --max-resolution-bytes)",
                        text.len()
                    ));
                }
            }
        }
        let raw: RawAction = serde_json::from_value(data).map_err(|e| format!("invalid action: {e}"))?;
        match raw.tool.as_deref() {
            None => match (raw.file, raw.resolution) {
                (Some(file), Some(resolution)) => Ok(Action::Resolve { file, resolution }),
                (Some(_), None) => Err("a file action needs `resolution` (the whole resolved file text)".into()),
                _ => Err(format!(
                    "an action needs either `file` and `resolution`, or `tool` (one of {})",
                    TOOLS.join(", ")
                )),
            },
            Some("read_file") => Ok(Action::ReadFile {
                path: required(raw.path, "read_file", "path")?,
                start_line: line(raw.start_line, "start_line")?,
                end_line: line(raw.end_line, "end_line")?,
            }),
            Some("edit_file") => {
                let path = required(raw.path, "edit_file", "path")?;
                let start = line(raw.start_line, "start_line")?.ok_or("edit_file needs `start_line`")?;
                let end = raw.end_line.ok_or("edit_file needs `end_line`")? as usize;
                if end + 1 < start {
                    return Err(format!("edit_file: end_line {end} is before start_line {start} - 1"));
                }
                Ok(Action::EditFile {
                    path,
                    start_line: start,
                    end_line: end,
                    content: required(raw.content, "edit_file", "content")?,
                })
            }
            Some("run") => {
                let argv = match raw.command {
                    Some(CommandSpec::Shell(line)) if !line.trim().is_empty() => {
                        vec!["/bin/sh".to_string(), "-c".to_string(), line]
                    }
                    Some(CommandSpec::Argv(argv)) if !argv.is_empty() => argv,
                    _ => return Err("run needs `command`: a shell command line or a non-empty argv list".into()),
                };
                Ok(Action::Run { argv })
            }
            Some("finish") => Ok(Action::Finish),
            Some(other) => Err(format!("unknown tool `{other}`: expected one of {}", TOOLS.join(", "))),
        }
    }

    /// The action's kind, for logs and reports.
    pub fn kind(&self) -> &'static str {
        match self {
            Action::Resolve { .. } => "resolve",
            Action::ReadFile { .. } => "read_file",
            Action::EditFile { .. } => "edit_file",
            Action::Run { .. } => "run",
            Action::Finish => "finish",
        }
    }

    /// The action as the JSON an agent would send.
    pub fn to_json(&self) -> Value {
        match self {
            Action::Resolve { file, resolution } => serde_json::json!({"file": file, "resolution": resolution}),
            Action::ReadFile { path, start_line, end_line } => {
                serde_json::json!({"tool": "read_file", "path": path, "start_line": start_line, "end_line": end_line})
            }
            Action::EditFile { path, start_line, end_line, content } => serde_json::json!({
                "tool": "edit_file", "path": path, "start_line": start_line, "end_line": end_line, "content": content
            }),
            Action::Run { argv } => serde_json::json!({"tool": "run", "command": argv}),
            Action::Finish => serde_json::json!({"tool": "finish"}),
        }
    }
}

fn required(value: Option<String>, tool: &str, key: &str) -> Result<String, String> {
    value.ok_or_else(|| format!("{tool} needs `{key}`"))
}

fn line(value: Option<u64>, key: &str) -> Result<Option<usize>, String> {
    match value {
        Some(0) => Err(format!("`{key}` is 1-based: 0 is not a line")),
        Some(n) => Ok(Some(n as usize)),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn forms_and_ignored_keys() {
        let a = Action::parse(json!({"file": "a.py", "resolution": "x = 1\n", "metadata": {"k": 1}}), 100).unwrap();
        assert_eq!(a, Action::Resolve { file: "a.py".into(), resolution: "x = 1\n".into() });
        let run = Action::parse(json!({"tool": "run", "command": "ls"}), 100).unwrap();
        assert_eq!(run, Action::Run { argv: vec!["/bin/sh".into(), "-c".into(), "ls".into()] });
        assert_eq!(Action::parse(json!({"tool": "finish"}), 100).unwrap(), Action::Finish);
    }

    #[test]
    fn clear_errors() {
        assert!(Action::parse(json!({"tool": "rm"}), 100).unwrap_err().contains("unknown tool `rm`"));
        assert!(Action::parse(json!({"file": "a.py", "resolution": "x".repeat(101)}), 100)
            .unwrap_err()
            .contains("limit is 100"));
        assert!(Action::parse(json!({"tool": "read_file", "path": "a", "start_line": 0}), 100)
            .unwrap_err()
            .contains("1-based"));
        assert!(Action::parse(json!([1]), 100).is_err());
    }
}
