//! Detection: a substrate's configuration read from the project itself, for a
//! repository without `substrate.toml` (`mergeforge onboard PATH` prints it for review).
//!
//! Each key is a decision with a reason ([`Detection::notes`]): the layout and source
//! folders ([`layout`]: the packages the tests import), the test folders and command
//! ([`pytest_config`]: the project's own pytest settings, which pytest keeps reading),
//! the dependencies ([`metadata`]: runtime ones and the test extras, groups, requirement
//! files and tox `deps`; [`requirement`]), the interpreter ([`interpreter`]). A config
//! given beside detection overrides only the keys it sets ([`overlay`]). Tests that fail
//! or flip at HEAD are found by running them, in the pipeline, not here.

pub(crate) mod era;
mod ini;
pub(crate) mod interpreter;
mod layout;
mod metadata;
mod pytest_config;
pub(crate) mod requirement;

use std::collections::BTreeSet;

use anyhow::{bail, Result};

use super::config::SubstrateConfig;
use crate::snapshot::Snapshot;

/// A detected configuration and the reason for each key.
#[derive(Debug)]
pub(crate) struct Detection {
    pub(crate) config: SubstrateConfig,
    /// `(key, reason)`, in the order the keys are printed.
    pub(crate) notes: Vec<(&'static str, String)>,
    /// What detection could not decide or the user should know (services, metadata).
    pub(crate) warnings: Vec<String>,
}

/// Detects the configuration of the project whose files are `files`; `folder` is its
/// folder's name (the default name), `origin` names it in errors.
pub(crate) fn detect(files: &Snapshot, folder: &str, origin: &str) -> Result<Detection> {
    let has_python = files.keys().any(|p| p.ends_with(".py"));
    if !has_python {
        bail!("{origin}: no Python files; a substrate is a Python project with a pytest suite");
    }
    let layout = layout::read(files);
    if layout.test_files == 0 {
        bail!(
            "{origin}: no test files (test_*.py or *_test.py); write a substrate.toml with the `test_command` that runs its tests"
        );
    }
    let meta = metadata::read(files);
    let pytest = pytest_config::read(files);
    let mut notes = Vec::new();
    let mut warnings = Vec::new();
    let mut config = SubstrateConfig::default();

    notes.push((
        "name",
        match &meta.name {
            Some(_) => "the project's metadata name".to_string(),
            None => format!("none: the folder's name, `{folder}` (no project metadata names it)"),
        },
    ));
    config.name = meta.name.as_deref().map(normalise_name);

    let (source_dirs, why) = source_dirs(&layout)?;
    notes.push(("source_dirs", why));
    config.source_dirs = source_dirs;

    let (test_paths, why) = match pytest.as_ref().filter(|p| !p.testpaths.is_empty()) {
        Some(p) => (p.testpaths.clone(), format!("`testpaths` of {}", p.file)),
        None => (layout.test_dirs.clone(), format!("where the test files are ({})", layout.test_files)),
    };
    let settings = match &pytest {
        Some(p) => format!("; pytest reads its other options from {} at every run", p.file),
        None => "; the project has no pytest configuration".to_string(),
    };
    let no_cov = match pytest.as_ref().is_some_and(|p| p.measures_coverage) {
        true => {
            config.test_command.push("--no-cov".into());
            "; `--no-cov`: its settings measure coverage (`--cov`), whose tracer would hide which tests run which functions"
        }
        false => "",
    };
    notes.push(("test_command", format!("{why}{settings}{no_cov}")));
    config.test_command.extend(test_paths.iter().filter(|p| p.as_str() != ".").cloned());

    let mut exclude: Vec<String> = config.exclude.clone();
    let mut shared = Vec::new();
    for dir in test_paths.iter().chain(&layout.test_dirs).filter(|d| d.as_str() != ".") {
        if holds_source(dir, &config.source_dirs) {
            if !shared.contains(dir) {
                shared.push(dir.clone());
            }
        } else if !exclude.contains(dir) {
            exclude.push(dir.clone());
        }
    }
    notes.push((
        "exclude",
        match shared.is_empty() {
            true => "the test folders and documentation".to_string(),
            false => format!(
                "the test folders and documentation; not {}, a test path that is also source (doctests, or test modules beside the code): only its test files stay unchanged",
                shared.join(", ")
            ),
        },
    ));
    config.exclude = exclude;

    if layout.src && !pytest.as_ref().is_some_and(|p| p.pythonpath.iter().any(|d| d == "src")) {
        config.env.insert("PYTHONPATH".into(), "src".into());
        notes.push(("env", "a src/ layout: the tests import the code from src/".to_string()));
    } else if layout.src {
        notes.push(("env", "a src/ layout, which the pytest settings' `pythonpath` puts on the path".to_string()));
    }

    let (spec, spec_origin) = match &meta.requires_python {
        Some((spec, from)) => (Some(spec.as_str()), format!("{origin}/{}", from.split(' ').next().unwrap_or(from))),
        None => (None, origin.to_string()),
    };
    let choice = interpreter::choose(spec, &spec_origin, &meta.classifier_versions)?;
    let reader = metadata_reader(files, &config);
    let (deps, why) = dependencies(&meta, pytest.as_ref(), choice.version, reader.as_deref());
    notes.push(("python_deps", why));
    let services: Vec<&String> =
        deps.iter().filter(|d| requirement::SERVICE_CLIENTS.contains(&requirement::name(d).as_str())).collect();
    if !services.is_empty() {
        let names: Vec<&str> = services.iter().map(|s| s.as_str()).collect();
        warnings.push(format!(
            "the test dependencies include service clients ({}): tests that need a running service fail at HEAD and are deselected, or the suite is skipped",
            names.join(", ")
        ));
    }
    config.python_deps = deps;
    let version = format!("{}.{}.{}", choice.version.0, choice.version.1, choice.version.2);
    let origin_of = meta.requires_python.as_ref().map(|(_, from)| format!(" ({from})")).unwrap_or_default();
    notes.push(("python", format!("Python {version}: {}{origin_of}", choice.why)));
    config.python = choice.command;

    if meta.license.is_some() {
        notes.push(("license", "the project's metadata".to_string()));
    }
    config.license = meta.license.clone();
    if meta.source.is_some() {
        notes.push((
            "source",
            if meta.sdist { "the sdist's PyPI page".into() } else { "the project's URLs".to_string() },
        ));
    }
    config.source = meta.source.clone();
    if let Some(reader) = reader.filter(|_| own_release(&meta).is_none()) {
        warnings.push(format!(
            "{reader} reads installed package metadata (importlib.metadata, pkg_resources or entry points) \
             and no released version is known: tests that fail without it at HEAD are deselected"
        ));
    }
    Ok(Detection { config, notes, warnings })
}

/// Whether test path `dir` is a source folder or holds one (`testpaths = ["requests",
/// "tests"]` for doctests, test modules in `src/`): excluding it would leave nothing to
/// change, and its test files are never mutable anyway.
fn holds_source(dir: &str, source_dirs: &[String]) -> bool {
    let dir = dir.trim_end_matches('/');
    source_dirs.iter().any(|s| s == dir || s.starts_with(&format!("{dir}/")))
}

/// `My_Project.name` → `my-project-name` (task ids are lower case, digits, `-` and `_`).
fn normalise_name(name: &str) -> String {
    let lowered: String = name
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '-' })
        .collect();
    let trimmed = lowered.trim_matches('-');
    if trimmed.is_empty() {
        "substrate".to_string()
    } else {
        trimmed.to_string()
    }
}

/// The packages and modules the tests import; all of them when the tests import none
/// by name.
fn source_dirs(layout: &layout::Layout) -> Result<(Vec<String>, String)> {
    if layout.candidates.is_empty() {
        bail!("no package or module found (a folder with __init__.py, a .py file, at the root or under src/); set `source_dirs` in a substrate.toml");
    }
    let imported: Vec<&(String, String)> =
        layout.candidates.iter().filter(|(name, _)| layout.imported.contains(name)).collect();
    let where_ = if layout.src { "a src/ layout" } else { "a flat layout" };
    if imported.is_empty() {
        let all: Vec<String> = layout.candidates.iter().map(|(_, path)| path.clone()).collect();
        return Ok((all, format!("{where_}; the tests import none of its packages by name, so all of them")));
    }
    // Packages by name, `src/pkg` rather than `src`: a history that kept `pkg/` at the
    // root before moving it under src/ then still finds its sources.
    let paths: Vec<String> = imported.iter().map(|(_, path)| path.clone()).collect();
    let left: Vec<&str> =
        layout.candidates.iter().filter(|c| !imported.contains(c)).map(|(_, path)| path.as_str()).collect();
    let why = if left.is_empty() {
        format!("{where_}; the packages and modules the tests import")
    } else {
        format!("{where_}; the packages and modules the tests import (not: {})", left.join(", "))
    };
    Ok((paths, why))
}

/// The requirements the venv gets: the runtime dependencies, the test dependencies and
/// the plugins the pytest settings need, with an older pytest for an old interpreter.
fn dependencies(
    meta: &metadata::Metadata,
    pytest: Option<&pytest_config::PytestConfig>,
    version: (u32, u32, u32),
    metadata_reader: Option<&str>,
) -> (Vec<String>, String) {
    let mut deps: Vec<String> = Vec::new();
    let mut from: Vec<String> = Vec::new();
    let mut seen = BTreeSet::new();
    let plugins = pytest
        .map(|p| p.plugins.iter().map(|(r, why)| (r.clone(), format!("{} ({why})", p.file))).collect::<Vec<_>>())
        .unwrap_or_default();
    for (requirement, origin) in meta.runtime.requirements.iter().chain(&meta.test.requirements).chain(&plugins) {
        let name = requirement::name(requirement);
        let own = meta.name.as_deref().map(requirement::name);
        if name != "pytest" && own.as_deref() != Some(name.as_str()) && seen.insert(name) {
            deps.push(requirement.clone());
            if !from.contains(origin) {
                from.push(origin.clone());
            }
        }
    }
    deps.sort();
    if let Some(old) = interpreter::pytest_for(version) {
        deps.insert(0, old.to_string());
        from.push(format!("{old}: the newest pytest for Python {}.{}", version.0, version.1));
    } else if let Some((old, settings)) = pytest.and_then(|p| Some((p.older_pytest()?, p))) {
        deps.insert(0, old.to_string());
        let removed = settings.removed_in.unwrap_or_default();
        from.push(format!(
            "{old}: {} filters `PytestRemovedIn{removed}Warning`, which pytest {removed} removed",
            settings.file
        ));
    }
    if let Some((reader, release)) = metadata_reader.zip(own_release(meta)) {
        from.push(format!(
            "{release}: {reader} reads the installed package's metadata, which its release provides \
             (the tree's own code is imported first)"
        ));
        deps.push(release);
    }
    let why =
        if from.is_empty() { "no dependencies declared".to_string() } else { format!("from {}", from.join("; ")) };
    (deps, why)
}

/// The first test, conftest or source file that reads installed package metadata, which
/// a source tree does not have (humanize's `__init__.py` asks `importlib.metadata` for
/// its own version).
fn metadata_reader(files: &Snapshot, config: &SubstrateConfig) -> Option<String> {
    const READERS: [&str; 4] = ["importlib.metadata", "importlib_metadata", "pkg_resources", "entry_points("];
    files
        .iter()
        .filter(|(path, _)| layout::is_test_file(path) || path.ends_with("conftest.py") || config.is_mutable(path))
        .find(|(_, data)| {
            let text = String::from_utf8_lossy(data);
            READERS.iter().any(|n| text.contains(n))
        })
        .map(|(path, _)| path.to_string())
}

/// `NAME==VERSION` of the project's own release, when the metadata names both: installed
/// beside the tree so that its metadata and entry points exist (an sdist's `PKG-INFO`
/// names the release it was cut from; [`dependencies`] never lists the project itself).
fn own_release(meta: &metadata::Metadata) -> Option<String> {
    Some(format!("{}=={}", meta.name.as_ref()?, meta.version.as_ref()?))
}

impl Detection {
    /// The configuration as `substrate.toml` text, each key after a comment saying why.
    pub(crate) fn to_toml(&self, origin: &str) -> String {
        let mut out =
            format!("# substrate.toml detected by mergeforge for {origin}; review it, keep what you change.\n");
        for warning in &self.warnings {
            out.push_str(&format!("# note: {warning}\n"));
        }
        out.push_str(
            "# Tests that fail or flip at HEAD are deselected when gen-tasks runs them (listed in the manifest).\n",
        );
        let value = |v: toml::Value| v.to_string();
        let c = &self.config;
        let entries: Vec<(&str, Option<String>)> = vec![
            ("name", c.name.clone().map(|n| value(n.into()))),
            ("test_command", Some(value(toml::Value::try_from(&c.test_command).expect("strings")))),
            ("env", Some(inline_table(&c.env))),
            ("source_dirs", Some(value(toml::Value::try_from(&c.source_dirs).expect("strings")))),
            ("exclude", Some(value(toml::Value::try_from(&c.exclude).expect("strings")))),
            ("python_deps", Some(value(toml::Value::try_from(&c.python_deps).expect("strings")))),
            ("python", c.python.clone().map(|p| value(p.into()))),
            ("timeout_s", Some(c.timeout_s.to_string())),
            ("license", c.license.clone().map(|l| value(l.into()))),
            ("source", c.source.clone().map(|s| value(s.into()))),
        ];
        for (key, text) in entries {
            for (_, note) in self.notes.iter().filter(|(k, _)| *k == key) {
                out.push_str(&format!("# {key}: {note}\n"));
            }
            match (key, text) {
                (_, Some(text)) => out.push_str(&format!("{key} = {text}\n")),
                ("python", None) => {}
                _ => {}
            }
        }
        out
    }
}

fn inline_table(env: &std::collections::BTreeMap<String, String>) -> String {
    let items: Vec<String> = env.iter().map(|(k, v)| format!("{k} = {}", toml::Value::String(v.clone()))).collect();
    if items.is_empty() {
        "{}".to_string()
    } else {
        format!("{{ {} }}", items.join(", "))
    }
}

/// `given` over `detected`: each key `given`'s file sets (`keys`) comes from it, every
/// other from detection.
pub(crate) fn overlay(detected: SubstrateConfig, given: SubstrateConfig, keys: &BTreeSet<String>) -> SubstrateConfig {
    let set = |key: &str| keys.contains(key);
    SubstrateConfig {
        name: if set("name") { given.name } else { detected.name },
        path: given.path,
        test_command: if set("test_command") { given.test_command } else { detected.test_command },
        env: if set("env") { given.env } else { detected.env },
        source_dirs: if set("source_dirs") { given.source_dirs } else { detected.source_dirs },
        exclude: if set("exclude") { given.exclude } else { detected.exclude },
        python_deps: if set("python_deps") { given.python_deps } else { detected.python_deps },
        python: if set("python") { given.python } else { detected.python },
        timeout_s: if set("timeout_s") { given.timeout_s } else { detected.timeout_s },
        history: if set("history") { given.history } else { detected.history },
        license: if set("license") { given.license } else { detected.license },
        source: if set("source") { given.source } else { detected.source },
    }
}
