//! A project's metadata, from whichever files declare it: `PKG-INFO` (an sdist's),
//! `pyproject.toml` (`[project]`, `[dependency-groups]`), `setup.cfg`, the literal lists
//! of `setup.py`, `requirements*test*.txt` and tox's `deps`. Read, never executed.

use super::ini::{self, Ini};
use super::requirement;
use crate::snapshot::Snapshot;

/// The extras and dependency groups that hold a project's test dependencies, in order of
/// preference; `dev` only when none of the others exists.
const TEST_EXTRAS: &[&str] = &["test", "tests", "testing"];
const DEV_EXTRAS: &[&str] = &["dev", "develop", "development"];

/// Requirements, each with the place it was found.
#[derive(Debug, Default)]
pub(crate) struct Deps {
    pub(crate) requirements: Vec<(String, String)>,
}

impl Deps {
    fn add(&mut self, from: String, requirements: impl IntoIterator<Item = String>) {
        for requirement in requirements {
            let requirement = requirement.trim().to_string();
            let name = requirement::name(&requirement);
            if !name.is_empty() && !self.requirements.iter().any(|(r, _)| requirement::name(r) == name) {
                self.requirements.push((requirement, from.clone()));
            }
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }
}

/// What the metadata files say.
#[derive(Debug, Default)]
pub(crate) struct Metadata {
    pub(crate) name: Option<String>,
    pub(crate) version: Option<String>,
    /// `requires-python` and the file it came from.
    pub(crate) requires_python: Option<(String, String)>,
    /// `Programming Language :: Python :: 3.X` classifiers, as `(3, X)`.
    pub(crate) classifier_versions: Vec<(u32, u32)>,
    pub(crate) runtime: Deps,
    pub(crate) test: Deps,
    pub(crate) license: Option<String>,
    pub(crate) source: Option<String>,
    /// An sdist (it has `PKG-INFO` at its root).
    pub(crate) sdist: bool,
}

/// Reads every metadata file of `files` that exists.
pub(crate) fn read(files: &Snapshot) -> Metadata {
    let text = |path: &str| files.get(path).map(|data| String::from_utf8_lossy(data).into_owned());
    let mut meta = Metadata::default();
    if let Some(pkg_info) = text("PKG-INFO") {
        meta.sdist = true;
        read_pkg_info(&pkg_info, &mut meta);
    }
    if let Some(pyproject) = text("pyproject.toml") {
        if let Ok(table) = pyproject.parse::<toml::Table>() {
            read_pyproject(&table, &mut meta, files);
        }
    }
    if let Some(setup_cfg) = text("setup.cfg") {
        read_setup_cfg(&Ini::parse(&setup_cfg), &mut meta);
    }
    if let Some(setup_py) = text("setup.py") {
        read_setup_py(&setup_py, &mut meta);
    }
    read_requirement_files(files, &mut meta);
    if let Some(tox) = text("tox.ini") {
        let tox = Ini::parse(&tox);
        if let Some(deps) = tox.get("testenv", "deps") {
            // `cov: coverage` applies to one factor's environments: the requirement is after the colon.
            let unfactored = |r: String| match r.split_once(": ") {
                Some((factor, rest)) if !factor.contains([' ', '=', '<', '>']) => rest.trim().to_string(),
                _ => r,
            };
            let listed = ini::list(deps).into_iter().map(unfactored).filter(|r| !requirement::skipped(r));
            meta.test.add("tox.ini [testenv] deps".into(), listed);
        }
    }
    meta.test.requirements.retain(|(r, _)| !requirement::skipped(r));
    meta.classifier_versions.sort();
    meta.classifier_versions.dedup();
    meta
}

fn read_pkg_info(text: &str, meta: &mut Metadata) {
    let headers = text.split("\n\n").next().unwrap_or("");
    let mut extras: Vec<(String, String)> = Vec::new();
    let mut license = None;
    for line in headers.lines() {
        let Some((key, value)) = line.split_once(':') else { continue };
        let value = value.trim().to_string();
        match key {
            "Name" => meta.name = Some(value),
            "Version" => meta.version = Some(value),
            "Requires-Python" => meta.requires_python = Some((value, "PKG-INFO Requires-Python".into())),
            "Classifier" => classifier(&value, meta),
            "Requires-Dist" => match requirement::split_extra(&value) {
                (requirement, None) => meta.runtime.add("PKG-INFO Requires-Dist".into(), [requirement]),
                (requirement, Some(extra)) => extras.push((extra, requirement)),
            },
            "License-Expression" => meta.license = Some(value),
            "License" => license = spdx_of(&value),
            "Project-URL" if meta.source.is_none() => {
                if let Some((label, url)) = value.split_once(',') {
                    let label = label.trim().to_ascii_lowercase();
                    if ["source", "source code", "repository", "code", "github"].contains(&label.as_str()) {
                        meta.source = Some(url.trim().to_string());
                    }
                }
            }
            _ => {}
        }
    }
    meta.license = meta.license.take().or(license);
    let chosen = test_names(&extras.iter().map(|(extra, _)| extra.as_str()).collect::<Vec<_>>());
    let own = meta.name.as_deref().map(requirement::name).unwrap_or_default();
    for name in chosen {
        let mut listed = Vec::new();
        extra_requirements(&extras, name, &own, &mut listed, 0);
        meta.test.add(format!("PKG-INFO extra `{name}`"), listed);
    }
    if let (Some(name), Some(version)) = (&meta.name, &meta.version) {
        meta.source = Some(format!("https://pypi.org/project/{name}/{version}/"));
    }
}

/// The requirements of `extra`, a reference to the project's own extras
/// (`attrs[tests-no-zope]` in attrs' `tests`) replaced by theirs.
fn extra_requirements(extras: &[(String, String)], extra: &str, own: &str, out: &mut Vec<String>, depth: usize) {
    for (_, requirement) in extras.iter().filter(|(e, _)| e == extra) {
        if requirement::name(requirement) != own || own.is_empty() {
            out.push(requirement.clone());
            continue;
        }
        let inner = requirement.split_once('[').and_then(|(_, rest)| rest.split_once(']')).map(|(inner, _)| inner);
        for other in inner.into_iter().flat_map(|i| i.split(',')).map(str::trim) {
            if depth < 4 && other != extra {
                extra_requirements(extras, &other.to_ascii_lowercase(), own, out, depth + 1);
            }
        }
    }
}

/// The test extras among `names`: `test`, `tests`, `testing`, else the `dev` ones.
fn test_names(names: &[&str]) -> Vec<&'static str> {
    let present = |wanted: &[&'static str]| -> Vec<&'static str> {
        wanted.iter().copied().filter(|w| names.iter().any(|n| n.eq_ignore_ascii_case(w))).collect()
    };
    let tests = present(TEST_EXTRAS);
    if tests.is_empty() {
        present(DEV_EXTRAS)
    } else {
        tests
    }
}

/// A `License:` field's value when it is (or plainly names) an SPDX identifier.
fn spdx_of(value: &str) -> Option<String> {
    let known = ["MIT", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "ISC", "MPL-2.0", "PSF-2.0", "Unlicense", "0BSD"];
    let value = value.trim();
    let renamed = match value {
        "MIT License" => "MIT",
        "Apache 2.0" | "Apache License 2.0" | "Apache Software License 2.0" => "Apache-2.0",
        "BSD 3-Clause" | "BSD-3" | "3-Clause BSD License" => "BSD-3-Clause",
        other => other,
    };
    known.iter().find(|k| k.eq_ignore_ascii_case(renamed)).map(|k| k.to_string())
}

fn classifier(value: &str, meta: &mut Metadata) {
    if let Some(version) = value.strip_prefix("Programming Language :: Python :: ") {
        let mut parts = version.split('.');
        if let (Some(Ok(major)), Some(Ok(minor))) = (parts.next().map(str::parse), parts.next().map(str::parse)) {
            meta.classifier_versions.push((major, minor));
        }
    }
    if meta.license.is_none() {
        let spdx = match value {
            "License :: OSI Approved :: MIT License" => Some("MIT"),
            "License :: OSI Approved :: Apache Software License" => Some("Apache-2.0"),
            "License :: OSI Approved :: ISC License (ISCL)" => Some("ISC"),
            "License :: OSI Approved :: Mozilla Public License 2.0 (MPL 2.0)" => Some("MPL-2.0"),
            _ => None,
        };
        meta.license = spdx.map(str::to_string);
    }
}

fn strings(value: Option<&toml::Value>) -> Vec<String> {
    value.and_then(toml::Value::as_array).into_iter().flatten().filter_map(|v| v.as_str().map(str::to_string)).collect()
}

fn read_pyproject(table: &toml::Table, meta: &mut Metadata, files: &Snapshot) {
    if let Some(project) = table.get("project").and_then(toml::Value::as_table) {
        if let Some(name) = project.get("name").and_then(toml::Value::as_str) {
            meta.name.get_or_insert_with(|| name.to_string());
        }
        if let Some(spec) = project.get("requires-python").and_then(toml::Value::as_str) {
            meta.requires_python.get_or_insert_with(|| (spec.to_string(), "pyproject.toml requires-python".into()));
        }
        let license = match project.get("license") {
            Some(toml::Value::String(expression)) => Some(expression.clone()),
            Some(toml::Value::Table(table)) => table.get("text").and_then(toml::Value::as_str).and_then(spdx_of),
            _ => None,
        };
        if meta.license.is_none() {
            meta.license = license;
        }
        for value in strings(project.get("classifiers")) {
            classifier(&value, meta);
        }
        meta.runtime.add("pyproject.toml [project] dependencies".into(), strings(project.get("dependencies")));
        let dynamic = strings(project.get("dynamic"));
        if dynamic.iter().any(|d| d == "dependencies") {
            let file = table
                .get("tool")
                .and_then(|t| t.get("setuptools"))
                .and_then(|t| t.get("dynamic"))
                .and_then(|t| t.get("dependencies"))
                .and_then(|t| t.get("file"));
            let paths = match file {
                Some(toml::Value::String(path)) => vec![path.clone()],
                other => strings(other),
            };
            for path in paths {
                let listed = requirement_lines(files, &path, 0);
                meta.runtime.add(format!("{path} (dynamic dependencies)"), listed);
            }
        }
        if let Some(extras) = project.get("optional-dependencies").and_then(toml::Value::as_table) {
            for name in test_names(&extras.keys().map(String::as_str).collect::<Vec<_>>()) {
                let key = extras.keys().find(|k| k.eq_ignore_ascii_case(name)).cloned().unwrap_or_default();
                meta.test.add(format!("pyproject.toml optional-dependencies `{key}`"), strings(extras.get(&key)));
            }
        }
    }
    if let Some(groups) = table.get("dependency-groups").and_then(toml::Value::as_table) {
        for name in test_names(&groups.keys().map(String::as_str).collect::<Vec<_>>()) {
            let mut listed = Vec::new();
            group(groups, name, &mut listed, 0);
            meta.test.add(format!("pyproject.toml dependency group `{name}`"), listed);
        }
    }
}

/// A PEP 735 dependency group's requirements, `include-group` entries followed.
fn group(groups: &toml::Table, name: &str, out: &mut Vec<String>, depth: usize) {
    let Some(items) = groups.get(name).and_then(toml::Value::as_array) else { return };
    for item in items {
        match item {
            toml::Value::String(requirement) => out.push(requirement.clone()),
            toml::Value::Table(include) if depth < 8 => {
                if let Some(other) = include.get("include-group").and_then(toml::Value::as_str) {
                    group(groups, other, out, depth + 1);
                }
            }
            _ => {}
        }
    }
}

fn read_setup_cfg(cfg: &Ini, meta: &mut Metadata) {
    if let Some(name) = cfg.get("metadata", "name") {
        meta.name.get_or_insert_with(|| name.to_string());
    }
    if let Some(spec) = cfg.get("options", "python_requires") {
        meta.requires_python.get_or_insert_with(|| (spec.to_string(), "setup.cfg python_requires".into()));
    }
    if let Some(classifiers) = cfg.get("metadata", "classifiers") {
        for line in classifiers.lines() {
            classifier(line.trim(), meta);
        }
    }
    if let Some(install) = cfg.get("options", "install_requires") {
        meta.runtime.add("setup.cfg install_requires".into(), ini::list(install));
    }
    if let Some(extras) = cfg.section("options.extras_require") {
        for name in test_names(&extras.keys().map(String::as_str).collect::<Vec<_>>()) {
            if let Some(listed) = extras.get(name) {
                meta.test.add(format!("setup.cfg extras_require `{name}`"), ini::list(listed));
            }
        }
    }
    if let Some(tests) = cfg.get("options", "tests_require") {
        meta.test.add("setup.cfg tests_require".into(), ini::list(tests));
    }
}

/// `setup.py`'s literal `install_requires=[...]`, `tests_require=[...]`, the test
/// entries of `extras_require={...}` and `classifiers=[...]`: string literals only,
/// nothing evaluated.
fn read_setup_py(text: &str, meta: &mut Metadata) {
    if let Some(listed) = literal_list(text, "install_requires") {
        meta.runtime.add("setup.py install_requires".into(), listed);
    }
    if let Some(listed) = literal_list(text, "tests_require") {
        meta.test.add("setup.py tests_require".into(), listed);
    }
    if let Some(at) = text.find("extras_require") {
        let rest = &text[at..];
        for name in TEST_EXTRAS.iter().chain(DEV_EXTRAS) {
            for quote in ['"', '\''] {
                let key = format!("{quote}{name}{quote}");
                if let Some(listed) = rest.find(&key).and_then(|k| bracketed_strings(&rest[k + key.len()..])) {
                    meta.test.add(format!("setup.py extras_require `{name}`"), listed);
                }
            }
        }
    }
    for value in literal_list(text, "classifiers").unwrap_or_default() {
        classifier(&value, meta);
    }
    if meta.requires_python.is_none() {
        if let Some(spec) = literal_list(text, "python_requires").and_then(|l| l.into_iter().next()) {
            meta.requires_python = Some((spec, "setup.py python_requires".into()));
        }
    }
}

/// The string literals of `key=[...]` (or `key="..."`, as a one-item list).
fn literal_list(text: &str, key: &str) -> Option<Vec<String>> {
    let at = text.find(&format!("{key}="))?;
    let rest = text[at + key.len() + 1..].trim_start();
    if rest.starts_with(['"', '\'']) {
        let quote = rest.chars().next()?;
        let end = rest[1..].find(quote)?;
        return Some(vec![rest[1..1 + end].to_string()]);
    }
    bracketed_strings(rest)
}

/// The string literals between the first `[` of `text` and its `]`, when the `[` comes
/// right after the key (only `:`, `=` and blanks before it).
fn bracketed_strings(text: &str) -> Option<Vec<String>> {
    let open = text.find('[')?;
    if !text[..open].chars().all(|c| c.is_whitespace() || c == ':' || c == '=') {
        return None;
    }
    let close = text[open..].find(']')? + open;
    let inner = &text[open + 1..close];
    let mut out = Vec::new();
    let mut rest = inner;
    while let Some(start) = rest.find(['"', '\'']) {
        let quote = &rest[start..start + 1];
        let Some(end) = rest[start + 1..].find(quote) else { break };
        out.push(rest[start + 1..start + 1 + end].to_string());
        rest = &rest[start + 2 + end..];
    }
    Some(out)
}

/// Requirement files that hold test dependencies, in order of preference.
const TEST_REQUIREMENT_FILES: &[&str] = &[
    "requirements-test.txt",
    "requirements_test.txt",
    "requirements-tests.txt",
    "requirements_tests.txt",
    "test-requirements.txt",
    "test_requirements.txt",
    "tests/requirements.txt",
    "requirements/test.txt",
    "requirements/tests.txt",
    "requirements/testing.txt",
];
const DEV_REQUIREMENT_FILES: &[&str] =
    &["requirements-dev.txt", "requirements_dev.txt", "dev-requirements.txt", "requirements/dev.txt"];

fn read_requirement_files(files: &Snapshot, meta: &mut Metadata) {
    let found: Vec<&str> = TEST_REQUIREMENT_FILES.iter().copied().filter(|p| files.contains_key(*p)).collect();
    let found = if found.is_empty() {
        DEV_REQUIREMENT_FILES.iter().copied().filter(|p| files.contains_key(*p)).collect()
    } else {
        found
    };
    for path in found {
        meta.test.add(path.to_string(), requirement_lines(files, path, 0));
    }
    if meta.runtime.is_empty() && files.contains_key("requirements.txt") {
        meta.runtime.add("requirements.txt".into(), requirement_lines(files, "requirements.txt", 0));
    }
}

/// The requirements of a requirements file, `-r other.txt` followed (relative to it).
fn requirement_lines(files: &Snapshot, path: &str, depth: usize) -> Vec<String> {
    let Some(data) = files.get(path) else { return Vec::new() };
    let dir = path.rsplit_once('/').map_or("", |(dir, _)| dir);
    let mut out = Vec::new();
    for line in String::from_utf8_lossy(data).lines() {
        let line = line.split(" #").next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let include = line.strip_prefix("-r ").or_else(|| line.strip_prefix("--requirement "));
        if let Some(other) = include {
            if depth < 4 {
                let other = if dir.is_empty() { other.trim().to_string() } else { format!("{dir}/{}", other.trim()) };
                out.extend(requirement_lines(files, &other, depth + 1));
            }
            continue;
        }
        if !line.starts_with('-') {
            out.push(line.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_py_literals() {
        let text = "setup(\n    name='x',\n    install_requires=['six>=1', \"attrs\"],\n    extras_require={\n        'docs': ['sphinx'],\n        'tests': ['hypothesis', 'pytest'],\n    },\n)\n";
        let mut meta = Metadata::default();
        read_setup_py(text, &mut meta);
        let names = |deps: &Deps| deps.requirements.iter().map(|(r, _)| r.clone()).collect::<Vec<_>>();
        assert_eq!(names(&meta.runtime), ["six>=1", "attrs"]);
        assert_eq!(names(&meta.test), ["hypothesis", "pytest"]);
    }
}
