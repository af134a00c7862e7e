//! `substrate.toml`: how to test a substrate and where mutations may happen.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

/// The file name looked up at a substrate's root.
pub(crate) const CONFIG_FILE: &str = "substrate.toml";

/// A parsed `substrate.toml`. Unknown keys are an error, so typos do not pass silently.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SubstrateConfig {
    /// Default: the substrate folder's name.
    pub(crate) name: Option<String>,
    /// Only in a config passed with `--substrate-config`: the repository, relative to the file.
    pub(crate) path: Option<PathBuf>,
    /// argv run from the repository root; `python` means the substrate's interpreter.
    #[serde(default = "default_test_command")]
    pub test_command: Vec<String>,
    /// Extra environment for test runs.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Folders (relative to the root) where mutations may happen; `.` is the root.
    #[serde(default = "default_source_dirs")]
    pub(crate) source_dirs: Vec<String>,
    /// Path prefixes never mutated.
    #[serde(default = "default_exclude")]
    pub(crate) exclude: Vec<String>,
    /// pip requirement strings installed into the substrate's venv; one naming pytest
    /// (`pytest==7.0.1`) replaces the pytest the tool pins.
    #[serde(default)]
    pub(crate) python_deps: Vec<String>,
    /// The interpreter the venv is made from (`python3.8`); default `$MERGEFORGE_PYTHON`,
    /// else `python3`. Older commits of a project may need an older Python.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) python: Option<String>,
    /// Wall-clock limit for one test run, in seconds.
    #[serde(default = "default_timeout")]
    pub timeout_s: u64,
    /// Also make tasks from the last N commits of HEAD's history (merge-replay and
    /// commit-replay; `gen-tasks --history N` overrides it). Needs a git repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) history: Option<usize>,
    /// The project's licence (SPDX expression), recorded in the manifest and the card.
    /// An embedded substrate without one is the generator's own code, under its licence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) license: Option<String>,
    /// Where the project's code comes from (a URL), recorded in the manifest and the
    /// card. An embedded substrate without one is `substrates/<name>` of the generator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) source: Option<String>,
}

fn default_test_command() -> Vec<String> {
    ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider"].iter().map(|s| s.to_string()).collect()
}
fn default_source_dirs() -> Vec<String> {
    vec![".".to_string()]
}
fn default_exclude() -> Vec<String> {
    vec!["tests".to_string(), "test".to_string(), "docs".to_string()]
}
fn default_timeout() -> u64 {
    120
}

impl Default for SubstrateConfig {
    fn default() -> Self {
        SubstrateConfig {
            name: None,
            path: None,
            test_command: default_test_command(),
            env: BTreeMap::new(),
            source_dirs: default_source_dirs(),
            exclude: default_exclude(),
            python_deps: Vec::new(),
            python: None,
            timeout_s: default_timeout(),
            history: None,
            license: None,
            source: None,
        }
    }
}

impl SubstrateConfig {
    /// The venv the substrate's tests run in: made from its `python` with its
    /// `python_deps` (in the user cache; built once).
    pub fn python_env(&self) -> Result<crate::pytest::venv::PythonEnv> {
        use crate::pytest::venv::{ensure_venv_from, user_cache_dir};
        ensure_venv_from(&user_cache_dir(), self.python.as_deref(), &self.python_deps)
    }

    /// Parses TOML text; `origin` names the file in errors.
    pub(crate) fn parse(text: &str, origin: &Path) -> Result<Self> {
        let config: SubstrateConfig =
            toml::from_str(text).with_context(|| format!("{}: invalid substrate config", origin.display()))?;
        config.check(origin)?;
        Ok(config)
    }

    /// Reads and parses a config file, with the keys it sets.
    pub(crate) fn read_with_keys(path: &Path) -> Result<(Self, std::collections::BTreeSet<String>)> {
        let config = Self::read(path)?;
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("{}: cannot read substrate config", path.display()))?;
        let table: toml::Table =
            toml::from_str(&text).with_context(|| format!("{}: invalid substrate config", path.display()))?;
        Ok((config, table.keys().cloned().collect()))
    }

    /// Reads and parses a config file.
    pub(crate) fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("{}: cannot read substrate config", path.display()))?;
        Self::parse(&text, path)
    }

    fn check(&self, origin: &Path) -> Result<()> {
        if self.test_command.is_empty() {
            bail!("{}: test_command is empty; give the argv that runs the tests", origin.display());
        }
        if self.timeout_s == 0 {
            bail!("{}: timeout_s must be at least 1", origin.display());
        }
        if self.source_dirs.is_empty() {
            bail!("{}: source_dirs is empty; name the folders mutations may touch", origin.display());
        }
        Ok(())
    }

    /// Whether `path` (repo-relative) is a file mutations may change. A source folder
    /// names what imports under its name wherever the project kept it, as a project's
    /// history moves it: `pkg` also names the module `pkg.py` and `src/pkg`, and `src/pkg`
    /// also names `pkg` (pyupgrade was one `pyupgrade.py` until 2021, pydash moved
    /// `pydash/` under `src/` in 2018).
    pub(crate) fn is_mutable(&self, path: &str) -> bool {
        if !path.ends_with(".py") {
            return false;
        }
        let under = |prefix: &str| {
            let prefix = prefix.trim_end_matches('/');
            prefix == "." || prefix.is_empty() || path == prefix || path.starts_with(&format!("{prefix}/"))
        };
        let excluded = self.exclude.iter().any(|e| under(e))
            || path.split('/').any(|part| part == "conftest.py" || part.starts_with("test_"))
            || path.ends_with("_test.py")
            || path.ends_with("setup.py");
        let module = |dir: &str| path.strip_suffix(".py") == Some(dir);
        let named = |dir: &str| {
            let dir = dir.trim_end_matches('/');
            let moved = match dir.strip_prefix("src/") {
                Some(flat) => Some(flat.to_string()),
                None if !dir.contains('/') && !matches!(dir, "." | "" | "src") => Some(format!("src/{dir}")),
                None => None,
            };
            std::iter::once(dir.to_string()).chain(moved).any(|form| under(&form) || module(&form))
        };
        !excluded && self.source_dirs.iter().any(|s| named(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_mutable_paths() {
        let config =
            SubstrateConfig::parse("source_dirs = [\"src\"]\nenv = { PYTHONPATH = \"src\" }\n", Path::new("x.toml"))
                .unwrap();
        assert!(config.is_mutable("src/pkg/mod.py"));
        assert!(!config.is_mutable("src/pkg/test_mod.py"));
        assert!(!config.is_mutable("tests/test_mod.py"));
        assert!(!config.is_mutable("other/mod.py"));
        assert!(!config.is_mutable("src/pkg/data.txt"));
        let config = SubstrateConfig::parse("source_dirs = [\"pyupgrade\"]\n", Path::new("x.toml")).unwrap();
        assert!(config.is_mutable("pyupgrade/_main.py") && config.is_mutable("pyupgrade.py"));
        assert!(!config.is_mutable("pyupgrade_test.py") && !config.is_mutable("other.py"));
        assert!(config.is_mutable("src/pyupgrade/_main.py"));
        let config = SubstrateConfig::parse("source_dirs = [\"src/pydash\"]\n", Path::new("x.toml")).unwrap();
        assert!(config.is_mutable("src/pydash/arrays.py") && config.is_mutable("pydash/arrays.py"));
        assert!(!config.is_mutable("src/other/x.py") && !config.is_mutable("docs/conf.py"));
        let config = SubstrateConfig::parse("source_dirs = [\"src\"]\n", Path::new("x.toml")).unwrap();
        assert!(config.is_mutable("src/pkg/x.py") && !config.is_mutable("pkg/x.py") && !config.is_mutable("x.py"));
    }

    #[test]
    fn history_depth_is_optional() {
        assert_eq!(SubstrateConfig::parse("", Path::new("x.toml")).unwrap().history, None);
        assert_eq!(SubstrateConfig::parse("history = 300\n", Path::new("x.toml")).unwrap().history, Some(300));
    }

    #[test]
    fn unknown_keys_are_refused() {
        let err = SubstrateConfig::parse("test_comand = [\"x\"]", Path::new("s.toml")).unwrap_err();
        assert!(format!("{err:#}").contains("s.toml"));
    }
}
