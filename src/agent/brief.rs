//! What an agent is told: the task written to a file outside the repository (in the
//! episode's folder, beside `home` and `tmp`) and the same in environment variables:
//!
//! * `MERGEFORGE_REPO`: the repository, mid-merge (also the agent's working directory);
//! * `MERGEFORGE_TASK_FILE`: the task file ([`Brief::file`]): the prompt, then the
//!   conflicted paths and the test command;
//! * `MERGEFORGE_PROMPT`: the prompt, in the words of the environment's first
//!   observation (which files conflict, how the merge stopped, that the tests decide);
//! * `MERGEFORGE_TEST_CMD`: the task's test command as one shell line, `python` being
//!   the tests' interpreter (on `PATH` too);
//! * `MERGEFORGE_TASK_ID`: the task's id (`<substrate>-<hash>`; neither level nor family).
//!
//! Nothing here names gold, the task's level or its family.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The task file's name in the episode's folder.
pub(crate) const TASK_FILE: &str = "TASK.md";

/// What the agent is told about one episode.
#[derive(Debug, Clone)]
pub(crate) struct Brief {
    pub(crate) repo: PathBuf,
    /// The task file (outside the repository).
    pub(crate) file: PathBuf,
    pub(crate) prompt: String,
    /// The test command as one shell line.
    pub(crate) test_command: String,
    pub(crate) task_id: String,
}

impl Brief {
    /// The brief of an episode whose repository is `repo` in the episode folder
    /// `root`: `note` is the first observation's line on the merge, `conflicted` the
    /// files it names, `test_argv` the graded test command.
    pub(crate) fn new(root: &Path, repo: &Path, task_id: &str, note: &str, test_argv: &[String]) -> Brief {
        let test_command =
            shlex::try_join(test_argv.iter().map(String::as_str)).unwrap_or_else(|_| test_argv.join(" "));
        let prompt = prompt(repo, note, &test_command);
        Brief {
            repo: repo.to_path_buf(),
            file: root.join(TASK_FILE),
            prompt,
            test_command,
            task_id: task_id.to_string(),
        }
    }

    /// Writes the task file (temp file, then rename).
    pub(crate) fn write(&self, conflicted: &[String]) -> Result<()> {
        let mut text = self.prompt.clone();
        text.push_str("\n## Conflicted files\n\n");
        for path in conflicted {
            text.push_str(&format!("- {path}\n"));
        }
        text.push_str(&format!("\n## Test command\n\n    {}\n", self.test_command));
        let partial = self.file.with_extension("md.partial");
        std::fs::write(&partial, text).with_context(|| format!("writing {}", partial.display()))?;
        std::fs::rename(&partial, &self.file).with_context(|| format!("writing {}", self.file.display()))
    }

    /// The variables the agent gets (besides the tests' own and those passed through).
    pub(crate) fn env(&self) -> BTreeMap<String, String> {
        BTreeMap::from([
            ("MERGEFORGE_REPO".to_string(), self.repo.display().to_string()),
            ("MERGEFORGE_TASK_FILE".to_string(), self.file.display().to_string()),
            ("MERGEFORGE_PROMPT".to_string(), self.prompt.clone()),
            ("MERGEFORGE_TEST_CMD".to_string(), self.test_command.clone()),
            ("MERGEFORGE_TASK_ID".to_string(), self.task_id.clone()),
        ])
    }
}

/// The prompt: the first observation's note on the merge, where to work, how to test,
/// when it is done.
fn prompt(repo: &Path, note: &str, test_command: &str) -> String {
    let repo = repo.display();
    format!(
        "# Resolve a merge in a Python repository\n\n\
         The git repository at {repo} is in the middle of a merge (branch `ours` checked out, \
         `git merge theirs` run): {note}.\n\n\
         Finish the merge: keep what each branch set out to do (both branches' changes and both \
         branches' tests), as a careful developer merging the two branches would.\n\n\
         Run the tests from {repo} with:\n\n    {test_command}\n\n\
         Work only inside {repo}. When you are done, leave no conflict markers in any file \
         (you need not commit) and exit: the tree is then graded.\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_brief_names_repo_note_and_test_command_and_is_written_outside_the_repository() {
        let root = tempfile::tempdir().unwrap();
        let repo = root.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        let argv = vec!["/venv/bin/python".to_string(), "-m".to_string(), "pytest".to_string(), "a b".to_string()];
        let note = "merge of theirs into ours stopped with conflicts in calc.py; resolve them, the tests decide";
        let brief = Brief::new(root.path(), &repo, "calculator-0123456789", note, &argv);
        brief.write(&["calc.py".to_string()]).unwrap();
        assert_eq!(brief.test_command, "/venv/bin/python -m pytest 'a b'");
        assert!(!brief.file.starts_with(&repo), "{}", brief.file.display());
        let text = std::fs::read_to_string(&brief.file).unwrap();
        assert!(text.contains(note) && text.contains("- calc.py") && text.contains("'a b'"), "{text}");
        let env = brief.env();
        assert_eq!(env["MERGEFORGE_TASK_FILE"], brief.file.display().to_string());
        assert!(env["MERGEFORGE_PROMPT"].contains(&repo.display().to_string()));
        assert_eq!(env["MERGEFORGE_TASK_ID"], "calculator-0123456789");
    }
}
