//! What an agent may do in one step: a serde enum tagged by `tool`, parsed from the
//! `data` of a `step` frame, the `action` of `POST /step`, or an MCP `tools/call` (its
//! `name` as `tool`, its `arguments` as the rest). The one type behind every transport:
//! `GET /schema` and MCP's `tools/list` ([`super::tools`]) derive their JSON Schemas and
//! descriptions from it.
//!
//! * `{"file": PATH, "resolution": TEXT}`: replace a whole file, the short form of
//!   `{"tool": "write_file", "file", "resolution"}`;
//! * `{"tool": NAME, ...}`: `read_file` (`path`, optional `start_line`, `end_line`),
//!   `edit_file` (`path`, `old_string`, `new_string`), `run` (`command`: a shell string
//!   or an argv list), `run_tests`, `finish`.
//!
//! Unknown extra keys (e.g. `metadata`) are ignored. Line numbers are 1-based and
//! inclusive.

use schemars::JsonSchema;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// One parsed action.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(tag = "tool", rename_all = "snake_case")]
pub enum Action {
    /// Replaces a whole file of the repository (or creates it) with `resolution`. Over
    /// WebSocket and HTTP its short form `{"file", "resolution"}` (no `tool`) is accepted.
    #[serde(rename = "write_file")]
    Resolve {
        /// Path relative to the repository root.
        file: String,
        /// The whole new content of the file.
        resolution: String,
    },
    /// Shows a file of the repository with line numbers, or lines of it.
    ReadFile {
        /// Path relative to the repository root.
        path: String,
        /// First line to show (1-based); the file's first by default.
        #[schemars(range(min = 1))]
        start_line: Option<usize>,
        /// Last line to show (inclusive); the file's last by default.
        #[schemars(range(min = 1))]
        end_line: Option<usize>,
    },
    /// Replaces the one occurrence of `old_string` in a file by `new_string`; refused if
    /// `old_string` does not occur, or occurs more than once (include more context).
    EditFile {
        /// Path relative to the repository root.
        path: String,
        /// The exact text to replace, whitespace included; it must occur exactly once.
        #[schemars(length(min = 1))]
        old_string: String,
        /// The text that takes its place (may be empty).
        new_string: String,
    },
    /// Runs a command in the repository (sandboxed; your own tree, test edits
    /// included) and shows its exit status and output.
    Run {
        /// A shell command line (run with `/bin/sh -c`) or an argv list.
        #[serde(rename = "command", deserialize_with = "argv")]
        #[schemars(with = "CommandLine")]
        argv: Vec<String>,
    },
    /// Runs the graded test command on the current tree (the task's own test files
    /// restored, as the grader does) and shows the passed and failed test ids. It only
    /// reports: the task is solved when the tests pass with no conflict marker left.
    RunTests,
    /// Ends the episode; the tests decide whether the task is solved.
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
    /// `max_text_bytes` bounds `resolution`, `old_string` and `new_string`.
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
            Action::EditFile { new_string, .. } => Some(("new_string", new_string)),
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
            _ => &[],
        };
        if let Some((key, _)) = lines.iter().find(|(_, line)| *line == Some(0)) {
            return Err(format!("`{key}` is 1-based: 0 is not a line"));
        }
        if let Action::EditFile { old_string, .. } = self {
            if old_string.is_empty() {
                return Err("edit_file: `old_string` is empty; write_file writes a whole file".into());
            }
            if old_string.len() > max_text_bytes {
                return Err(format!("`old_string` is over the limit of {max_text_bytes} bytes"));
            }
        }
        Ok(())
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
        assert_eq!(Action::parse(json!({"tool": "run_tests"}), 100).unwrap(), Action::RunTests);
        let edit = Action::parse(json!({"tool": "edit_file", "path": "a", "old_string": "x", "new_string": ""}), 100);
        assert_eq!(
            edit.unwrap(),
            Action::EditFile { path: "a".into(), old_string: "x".into(), new_string: String::new() }
        );
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
        assert!(Action::parse(json!({"tool": "edit_file", "path": "a"}), 100).unwrap_err().contains("old_string"));
        let empty = json!({"tool": "edit_file", "path": "a", "old_string": "", "new_string": "x"});
        assert!(Action::parse(empty, 100).unwrap_err().contains("is empty"));
        assert!(Action::parse(json!({"tool": "run", "command": " "}), 100).unwrap_err().contains("run needs"));
        assert!(Action::parse(json!({"tool": "run", "command": []}), 100).unwrap_err().contains("run needs"));
        assert!(Action::parse(json!({"path": "a"}), 100).unwrap_err().contains("`tool`"));
        assert!(Action::parse(json!([1]), 100).is_err());
    }
}
