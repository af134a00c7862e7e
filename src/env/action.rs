//! What an agent may do in one step: a serde enum tagged by `tool`, parsed from the
//! `data` of a `step` frame (or the `action` of `POST /step`); its JSON Schema (`GET
//! /schema`) comes from the same type.
//!
//! * `{"file": PATH, "resolution": TEXT}`: replace a whole file, the short form of
//!   `{"tool": "write_file", "file", "resolution"}`;
//! * `{"tool": NAME, ...}`: `read_file` (`path`, optional `start_line`, `end_line`),
//!   `edit_file` (`path`, `start_line`, `end_line`, `content`), `run` (`command`: a
//!   shell string or an argv list), `finish`.
//!
//! Unknown extra keys (e.g. `metadata`) are ignored. Line numbers are 1-based and
//! inclusive; `edit_file` with `end_line = start_line - 1` inserts before `start_line`.

use schemars::JsonSchema;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// One parsed action.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(tag = "tool", rename_all = "snake_case")]
pub enum Action {
    /// Replaces a whole file; usually sent in its short form `{"file", "resolution"}`,
    /// without `tool`.
    #[serde(rename = "write_file")]
    Resolve {
        /// Path relative to the repository root.
        file: String,
        /// The whole resolved file.
        resolution: String,
    },
    /// Shows a file, or lines of it.
    ReadFile {
        path: String,
        #[schemars(range(min = 1))]
        start_line: Option<usize>,
        #[schemars(range(min = 1))]
        end_line: Option<usize>,
    },
    /// Replaces lines `start_line..=end_line` by `content`.
    EditFile {
        path: String,
        #[schemars(range(min = 1))]
        start_line: usize,
        /// Inclusive; `start_line - 1` inserts before `start_line`.
        end_line: usize,
        content: String,
    },
    /// Runs a command in the repository.
    Run {
        #[serde(rename = "command", deserialize_with = "argv")]
        #[schemars(with = "CommandLine")]
        argv: Vec<String>,
    },
    /// Ends the episode.
    Finish,
}

/// `run`'s `command` as sent.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum CommandLine {
    /// A shell command line, run with `/bin/sh -c`.
    Shell(String),
    /// An argv list.
    Argv(#[schemars(length(min = 1))] Vec<String>),
}

const RUN_NEEDS: &str = "run needs `command`: a shell command line or a non-empty argv list";

fn argv<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    match CommandLine::deserialize(deserializer).map_err(|_| D::Error::custom(RUN_NEEDS))? {
        CommandLine::Shell(line) if !line.trim().is_empty() => Ok(vec!["/bin/sh".into(), "-c".into(), line]),
        CommandLine::Argv(argv) if !argv.is_empty() => Ok(argv),
        _ => Err(D::Error::custom(RUN_NEEDS)),
    }
}

impl Action {
    /// Parses the `data` of a step frame; the error is one line for the agent.
    /// `max_text_bytes` bounds `resolution` and `content`.
    pub fn parse(mut data: Value, max_text_bytes: usize) -> Result<Action, String> {
        let Value::Object(fields) = &mut data else {
            return Err("an action is a JSON object: {\"file\", \"resolution\"} or {\"tool\": ...}".into());
        };
        if !fields.contains_key("tool") {
            if !fields.contains_key("file") {
                return Err(
                    "an action needs either `file` and `resolution`, or `tool` (GET /schema lists the tools)".into()
                );
            }
            fields.insert("tool".into(), "write_file".into());
        }
        let action: Action = serde_json::from_value(data).map_err(invalid)?;
        action.check(max_text_bytes)?;
        Ok(action)
    }

    /// What serde cannot say: sizes and line order.
    fn check(&self, max_text_bytes: usize) -> Result<(), String> {
        let text = match self {
            Action::Resolve { resolution, .. } => Some(("resolution", resolution)),
            Action::EditFile { content, .. } => Some(("content", content)),
            _ => None,
        };
        if let Some((name, text)) = text.filter(|(_, text)| text.len() > max_text_bytes) {
            return Err(format!(
                "`{name}` is {} bytes; the limit is {max_text_bytes} (server flag --max-resolution-bytes)",
                text.len()
            ));
        }
        let lines: &[(&str, Option<usize>)] = match self {
            Action::ReadFile { start_line, end_line, .. } => &[("start_line", *start_line), ("end_line", *end_line)],
            Action::EditFile { start_line, .. } => &[("start_line", Some(*start_line))],
            _ => &[],
        };
        if let Some((key, _)) = lines.iter().find(|(_, line)| *line == Some(0)) {
            return Err(format!("`{key}` is 1-based: 0 is not a line"));
        }
        if let Action::EditFile { start_line, end_line, .. } = self {
            if end_line + 1 < *start_line {
                return Err(format!("edit_file: end_line {end_line} is before start_line {start_line} - 1"));
            }
        }
        Ok(())
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
}

/// serde's message, with its word for the tag (`variant`) replaced by ours (`tool`).
fn invalid(error: serde_json::Error) -> String {
    let message = error.to_string();
    match message.strip_prefix("unknown variant ") {
        Some(rest) => format!("unknown tool {rest}"),
        None => format!("invalid action: {message}"),
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
        let long = Action::parse(json!({"tool": "write_file", "file": "a.py", "resolution": "x = 1\n"}), 100);
        assert_eq!(long.unwrap(), a);
        let run = Action::parse(json!({"tool": "run", "command": "ls"}), 100).unwrap();
        assert_eq!(run, Action::Run { argv: vec!["/bin/sh".into(), "-c".into(), "ls".into()] });
        let argv = Action::parse(json!({"tool": "run", "command": ["ls", "-l"]}), 100).unwrap();
        assert_eq!(argv, Action::Run { argv: vec!["ls".into(), "-l".into()] });
        assert_eq!(Action::parse(json!({"tool": "finish"}), 100).unwrap(), Action::Finish);
        let read = Action::parse(json!({"tool": "read_file", "path": "a.py"}), 100).unwrap();
        assert_eq!(read, Action::ReadFile { path: "a.py".into(), start_line: None, end_line: None });
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
        assert!(Action::parse(json!({"tool": "edit_file", "path": "a"}), 100).unwrap_err().contains("start_line"));
        assert!(Action::parse(json!({"tool": "run", "command": " "}), 100).unwrap_err().contains("run needs"));
        assert!(Action::parse(json!({"tool": "run", "command": []}), 100).unwrap_err().contains("run needs"));
        assert!(Action::parse(json!({"path": "a"}), 100).unwrap_err().contains("`tool`"));
        assert!(Action::parse(json!([1]), 100).is_err());
    }
}
