//! The project's pytest configuration, from the file pytest itself would read (its
//! order: `pytest.ini`, `.pytest.ini`, `pyproject.toml`'s `[tool.pytest.ini_options]`,
//! `tox.ini`'s `[pytest]`, `setup.cfg`'s `[tool:pytest]`): the test paths, and the
//! plugins its options need. pytest reads the file again at every run, so its options
//! are kept as they are.

use super::ini::{self, Ini};
use crate::snapshot::Snapshot;

/// What detection uses of a pytest configuration.
#[derive(Debug, Default)]
pub(crate) struct PytestConfig {
    /// The file and section (`setup.cfg [tool:pytest]`).
    pub(crate) file: String,
    pub(crate) testpaths: Vec<String>,
    /// `pythonpath` (pytest 7+), the folders pytest puts on `sys.path` itself.
    pub(crate) pythonpath: Vec<String>,
    /// Plugins the settings need, with the setting that needs each.
    pub(crate) plugins: Vec<(String, String)>,
    /// The pytest major version that removed a warning class the settings' `filterwarnings`
    /// name (`ignore::pytest.PytestRemovedIn8Warning` → 8): pytest refuses to start with a
    /// filter for a class it lacks, so the project's tests run on an older pytest.
    pub(crate) removed_in: Option<u32>,
    /// `addopts` turn on pytest-cov's coverage measurement (`--cov=…`): its tracer would
    /// replace the one mergeforge maps tests to functions with, and it slows every run.
    pub(crate) measures_coverage: bool,
}

/// The last pytest of each major version before the one that removed its
/// `PytestRemovedIn<N>Warning` classes: (N, requirement).
const LAST_BEFORE: &[(u32, &str)] = &[(7, "pytest==6.2.5"), (8, "pytest==7.4.4")];

impl PytestConfig {
    /// The pytest to pin when the settings name a warning class the default pytest lacks.
    pub(crate) fn older_pytest(&self) -> Option<&'static str> {
        let removed = self.removed_in?;
        LAST_BEFORE.iter().find(|(n, _)| *n == removed).map(|(_, pin)| *pin)
    }
}

/// The lowest `N` of `PytestRemovedIn<N>Warning` named in `filters`.
fn removed_in(filters: &str) -> Option<u32> {
    filters
        .split("PytestRemovedIn")
        .skip(1)
        .filter_map(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            rest[digits.len()..].starts_with("Warning").then(|| digits.parse().ok()).flatten()
        })
        .min()
}

/// The configuration pytest would read, if any.
pub(crate) fn read(files: &Snapshot) -> Option<PytestConfig> {
    let text = |path: &str| files.get(path).map(|data| String::from_utf8_lossy(data).into_owned());
    for name in ["pytest.ini", ".pytest.ini"] {
        if let Some(text) = text(name) {
            let ini = Ini::parse(&text);
            return Some(from_ini(&ini, "pytest", &format!("{name} [pytest]")));
        }
    }
    if let Some(options) = text("pyproject.toml")
        .and_then(|t| t.parse::<toml::Table>().ok())
        .and_then(|t| t.get("tool")?.get("pytest")?.get("ini_options")?.as_table().cloned())
    {
        return Some(from_toml(&options));
    }
    for (name, section) in [("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")] {
        if let Some(ini) = text(name).map(|t| Ini::parse(&t)).filter(|ini| ini.has(section)) {
            return Some(from_ini(&ini, section, &format!("{name} [{section}]")));
        }
    }
    None
}

fn from_ini(ini: &Ini, section: &str, file: &str) -> PytestConfig {
    let get = |key: &str| ini.get(section, key).unwrap_or("");
    let words = |key: &str| get(key).split_whitespace().map(str::to_string).collect::<Vec<_>>();
    let mut config = PytestConfig {
        file: file.to_string(),
        testpaths: words("testpaths"),
        pythonpath: words("pythonpath"),
        plugins: vec![],
        removed_in: removed_in(get("filterwarnings")),
        measures_coverage: false,
    };
    let keys: Vec<&str> = ini.section(section).map(|s| s.keys().map(String::as_str).collect()).unwrap_or_default();
    plugins(&mut config, get("addopts"), &keys, &ini::list(get("required_plugins")));
    config
}

fn from_toml(options: &toml::Table) -> PytestConfig {
    let list = |key: &str| -> Vec<String> {
        match options.get(key) {
            Some(toml::Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
            Some(toml::Value::Array(items)) => items.iter().filter_map(|v| v.as_str().map(str::to_string)).collect(),
            _ => Vec::new(),
        }
    };
    let mut config = PytestConfig {
        file: "pyproject.toml [tool.pytest.ini_options]".into(),
        testpaths: list("testpaths"),
        pythonpath: list("pythonpath"),
        plugins: vec![],
        removed_in: removed_in(&list("filterwarnings").join(" ")),
        measures_coverage: false,
    };
    let keys: Vec<&str> = options.keys().map(String::as_str).collect();
    plugins(&mut config, &list("addopts").join(" "), &keys, &list("required_plugins"));
    config
}

/// Options and settings that only a plugin understands, and the plugin.
const PLUGIN_OPTIONS: &[(&str, &str)] = &[
    ("--cov", "pytest-cov"),
    ("--timeout", "pytest-timeout"),
    ("-n", "pytest-xdist"),
    ("--numprocesses", "pytest-xdist"),
    ("--benchmark", "pytest-benchmark"),
    ("--mypy", "pytest-mypy"),
];
const PLUGIN_SETTINGS: &[(&str, &str)] = &[
    ("asyncio_mode", "pytest-asyncio"),
    ("asyncio_default_fixture_loop_scope", "pytest-asyncio"),
    ("timeout", "pytest-timeout"),
    ("django_settings_module", "pytest-django"),
    ("mock_use_standalone_module", "pytest-mock"),
    ("env", "pytest-env"),
];

fn plugins(config: &mut PytestConfig, addopts: &str, keys: &[&str], required: &[String]) {
    for word in addopts.split_whitespace() {
        let option = word.split('=').next().unwrap_or(word);
        config.measures_coverage |= option.starts_with("--cov") && !option.starts_with("--cov-");
        for (known, plugin) in PLUGIN_OPTIONS {
            if option == *known || (known.len() > 2 && option.starts_with(known)) {
                push(config, plugin, format!("`{word}` in addopts"));
            }
        }
    }
    for key in keys {
        if let Some((_, plugin)) = PLUGIN_SETTINGS.iter().find(|(setting, _)| setting == key) {
            push(config, plugin, format!("the `{key}` setting"));
        }
    }
    for requirement in required {
        push(config, requirement, "required_plugins".to_string());
    }
}

fn push(config: &mut PytestConfig, plugin: &str, why: String) {
    if !config.plugins.iter().any(|(p, _)| p == plugin) {
        config.plugins.push((plugin.to_string(), why));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warning_classes_pytest_removed() {
        assert_eq!(removed_in("ignore::pytest.PytestRemovedIn8Warning:pytest_pylint.*"), Some(8));
        assert_eq!(
            removed_in("error\nignore::pytest.PytestRemovedIn9Warning ignore::PytestRemovedIn7Warning"),
            Some(7)
        );
        assert_eq!(removed_in("error ignore::DeprecationWarning"), None);
        assert_eq!(removed_in("ignore::PytestRemovedInFutureWarning"), None);
        let config = PytestConfig { removed_in: Some(8), ..PytestConfig::default() };
        assert_eq!(config.older_pytest(), Some("pytest==7.4.4"));
        assert_eq!(PytestConfig { removed_in: Some(9), ..config }.older_pytest(), None);
    }
}
