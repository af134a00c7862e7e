//! A project's layout, read from its file list: `src/` or flat, its packages and
//! top-level modules, where its tests are, and which of its packages the tests import
//! (those are its source: what mutations may change).

use std::collections::BTreeSet;

use crate::snapshot::Snapshot;

/// Folders and files at the root that are never the project's code.
const NOT_SOURCE: &[&str] = &[
    "tests",
    "test",
    "testing",
    "docs",
    "doc",
    "examples",
    "example",
    "benchmarks",
    "benchmark",
    "bench",
    "scripts",
    "tools",
    "ci",
    "build",
    "dist",
    "setup.py",
    "conftest.py",
    "noxfile.py",
    "tasks.py",
    "fabfile.py",
    "runtests.py",
    "versioneer.py",
    "bootstrap.py",
    "ez_setup.py",
];

/// What the file list says.
#[derive(Debug, Default)]
pub(crate) struct Layout {
    /// Code lives under `src/`.
    pub(crate) src: bool,
    /// The importable top-level names and their path (`pkg` → `src/pkg`, `mod` →
    /// `mod.py`), sorted by name.
    pub(crate) candidates: Vec<(String, String)>,
    /// The folders (or `.`) that hold the tests, sorted.
    pub(crate) test_dirs: Vec<String>,
    /// Test files (`test_*.py`, `*_test.py`) found.
    pub(crate) test_files: usize,
    /// Top-level names the test files (and conftest files) import.
    pub(crate) imported: BTreeSet<String>,
}

/// Whether `path`'s file name is a pytest test file by pytest's default patterns.
pub(crate) fn is_test_file(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.ends_with(".py") && (file.starts_with("test_") || file.ends_with("_test.py"))
}

/// Reads the layout of `files`.
pub(crate) fn read(files: &Snapshot) -> Layout {
    let mut layout = Layout { src: has_code_under(files, "src/"), ..Layout::default() };
    let prefix = if layout.src { "src/" } else { "" };
    let mut candidates = BTreeSet::new();
    for path in files.keys() {
        let Some(rest) = path.strip_prefix(prefix) else { continue };
        let mut parts = rest.split('/');
        let (Some(first), second) = (parts.next(), parts.next()) else { continue };
        if NOT_SOURCE.contains(&first) || first.starts_with('.') || !is_identifier(first.trim_end_matches(".py")) {
            continue;
        }
        match second {
            Some("__init__.py") if parts.next().is_none() => {
                candidates.insert((first.to_string(), format!("{prefix}{first}")));
            }
            None if first.ends_with(".py") && !is_test_file(first) && first != "__init__.py" => {
                candidates.insert((first.trim_end_matches(".py").to_string(), format!("{prefix}{first}")));
            }
            _ => {}
        }
    }
    layout.candidates = candidates.into_iter().collect();
    let packages: Vec<&str> = layout.candidates.iter().map(|(_, path)| path.as_str()).collect();
    let mut dirs = BTreeSet::new();
    for (path, data) in files {
        let file = path.rsplit('/').next().unwrap_or(path);
        let test = is_test_file(path);
        if !(test || file == "conftest.py") || ignored_for_tests(path) {
            continue;
        }
        if test {
            layout.test_files += 1;
            dirs.insert(test_dir(path, &packages));
        }
        imports(&String::from_utf8_lossy(data), &mut layout.imported);
    }
    // A folder inside another test folder is covered by it.
    let all: Vec<String> = dirs.into_iter().collect();
    layout.test_dirs = all
        .iter()
        .filter(|d| !all.iter().any(|o| o != *d && (o == "." || d.starts_with(&format!("{o}/")))))
        .cloned()
        .collect();
    layout
}

fn has_code_under(files: &Snapshot, prefix: &str) -> bool {
    files.keys().any(|p| {
        p.strip_prefix(prefix).is_some_and(|rest| {
            let parts: Vec<&str> = rest.split('/').collect();
            matches!(parts.as_slice(), [_, "__init__.py"]) || (parts.len() == 1 && rest.ends_with(".py"))
        })
    })
}

fn is_identifier(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Test files under documentation, examples or benchmarks are not the suite.
fn ignored_for_tests(path: &str) -> bool {
    let first = path.split('/').next().unwrap_or(path);
    ["docs", "doc", "examples", "example", "benchmarks", "benchmark", "bench", "build", "dist"].contains(&first)
        || path.split('/').any(|part| part.starts_with('.') || part == "site-packages" || part == "node_modules")
}

/// The folder a test file belongs to: its first folder (`tests`), or, inside a
/// package, the package's test folder (`pyflakes/test`); a file at the root is `.`.
fn test_dir(path: &str, packages: &[&str]) -> String {
    let parts: Vec<&str> = path.split('/').collect();
    if parts.len() == 1 {
        return ".".to_string();
    }
    let inside = packages.iter().find(|p| path.starts_with(&format!("{p}/")));
    match inside {
        Some(package) => {
            let depth = package.split('/').count();
            let rest = &parts[depth..parts.len() - 1];
            match rest.iter().position(|p| p.starts_with("test")) {
                Some(at) => parts[..depth + at + 1].join("/"),
                None => parts[..parts.len() - 1].join("/"),
            }
        }
        None if parts[0] == "src" && parts.len() > 2 => parts[..parts.len() - 1].join("/"),
        None => parts[0].to_string(),
    }
}

/// The top-level names `text`'s import statements name (`import a.b, c` → a, c; `from
/// a.b import c` → a); relative imports name nothing.
fn imports(text: &str, out: &mut BTreeSet<String>) {
    for line in text.lines() {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix("from ") {
            let module = rest.split_whitespace().next().unwrap_or("");
            if !module.starts_with('.') {
                if let Some(top) = module.split('.').next().filter(|t| is_identifier(t)) {
                    out.insert(top.to_string());
                }
            }
        } else if let Some(rest) = line.strip_prefix("import ") {
            for item in rest.split(',') {
                let module = item.split_whitespace().next().unwrap_or("");
                if let Some(top) = module.split('.').next().filter(|t| is_identifier(t)) {
                    out.insert(top.to_string());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_dirs_inside_and_outside_packages() {
        let packages = ["pyflakes", "src/pkg"];
        assert_eq!(test_dir("tests/unit/test_a.py", &packages), "tests");
        assert_eq!(test_dir("pyflakes/test/test_api.py", &packages), "pyflakes/test");
        assert_eq!(test_dir("src/pkg/tests/test_x.py", &packages), "src/pkg/tests");
        assert_eq!(test_dir("test_root.py", &packages), ".");
        let mut names = BTreeSet::new();
        imports("import os, a.b as c\nfrom x.y import z\nfrom . import q\n    import pkg\n", &mut names);
        assert_eq!(names.into_iter().collect::<Vec<_>>(), ["a", "os", "pkg", "x"]);
    }
}
