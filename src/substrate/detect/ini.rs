//! The INI files Python projects configure pytest and tox with (`setup.cfg`, `tox.ini`,
//! `pytest.ini`), read the way `configparser` reads them: `[section]` headers, `key =
//! value` (or `key: value`), indented continuation lines, `#` and `;` comments.

use std::collections::BTreeMap;

/// Sections by name; each maps a key (lower-cased) to its value, continuation lines
/// joined by newlines.
#[derive(Debug, Default)]
pub(crate) struct Ini {
    sections: BTreeMap<String, BTreeMap<String, String>>,
}

impl Ini {
    pub(crate) fn parse(text: &str) -> Ini {
        let mut ini = Ini::default();
        let mut section: Option<String> = None;
        let mut key: Option<String> = None;
        for raw in text.lines() {
            let trimmed = raw.trim();
            if trimmed.starts_with('#') || trimmed.starts_with(';') {
                continue;
            }
            let indented = raw.starts_with([' ', '\t']);
            if indented && !trimmed.is_empty() {
                if let (Some(section), Some(key)) = (&section, &key) {
                    let value = ini.sections.entry(section.clone()).or_default().entry(key.clone()).or_default();
                    if !value.is_empty() {
                        value.push('\n');
                    }
                    value.push_str(trimmed);
                    continue;
                }
            }
            if trimmed.is_empty() {
                continue;
            }
            if let Some(name) = trimmed.strip_prefix('[').and_then(|rest| rest.strip_suffix(']')) {
                section = Some(name.trim().to_string());
                ini.sections.entry(name.trim().to_string()).or_default();
                key = None;
                continue;
            }
            let Some(section) = &section else { continue };
            let split = trimmed.find(['=', ':']).map(|at| (&trimmed[..at], &trimmed[at + 1..]));
            if let Some((name, value)) = split {
                let name = name.trim().to_ascii_lowercase();
                ini.sections.entry(section.clone()).or_default().insert(name.clone(), value.trim().to_string());
                key = Some(name);
            }
        }
        ini
    }

    /// Whether the file has `[section]`.
    pub(crate) fn has(&self, section: &str) -> bool {
        self.sections.contains_key(section)
    }

    /// A key's value in a section.
    pub(crate) fn get(&self, section: &str, key: &str) -> Option<&str> {
        self.sections.get(section)?.get(key).map(String::as_str)
    }

    /// Every key of a section, in order of name.
    pub(crate) fn section(&self, section: &str) -> Option<&BTreeMap<String, String>> {
        self.sections.get(section)
    }
}

/// A multi-line or comma-separated list value (`deps`, `testpaths`), one item per
/// entry, comments and blanks dropped.
pub(crate) fn list(value: &str) -> Vec<String> {
    joined(value)
        .iter()
        .map(|line| line.split(" #").next().unwrap_or("").trim())
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .flat_map(|line| {
            if line.contains(';') || line.contains('[') {
                vec![line.to_string()]
            } else {
                line.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()
            }
        })
        .collect()
}

/// The value's lines with a backslash continuation (`pytest-cov; \\` then its marker on
/// the next line, as setuptools' own `setup.cfg` writes) joined into one.
fn joined(value: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut open = false;
    for line in value.lines() {
        let (text, continues) = match line.trim_end().strip_suffix('\\') {
            Some(text) => (text.trim_end(), true),
            None => (line, false),
        };
        match (open, lines.last_mut()) {
            (true, Some(last)) => {
                last.push(' ');
                last.push_str(text.trim());
            }
            _ => lines.push(text.to_string()),
        }
        open = continues;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_keys_and_continuations() {
        let ini = Ini::parse(
            "# top\n[tool:pytest]\naddopts = -ra\n  --strict-markers\ntestpaths: tests\n\n[testenv]\ndeps =\n    pytest\n    hypothesis  # why\n",
        );
        assert_eq!(ini.get("tool:pytest", "addopts"), Some("-ra\n--strict-markers"));
        assert_eq!(ini.get("tool:pytest", "testpaths"), Some("tests"));
        assert_eq!(list(ini.get("testenv", "deps").unwrap()), ["pytest", "hypothesis"]);
        assert!(ini.has("testenv") && !ini.has("pytest"));
    }

    #[test]
    fn backslash_continuations_join() {
        let ini = Ini::parse("[options.extras_require]\ntesting =\n\tpytest >= 6\n\tpytest-cov; \\\n\tpython_implementation != \"PyPy\"\n\twheel\n");
        let listed = list(ini.get("options.extras_require", "testing").unwrap());
        assert_eq!(listed, ["pytest >= 6", "pytest-cov; python_implementation != \"PyPy\"", "wheel"]);
    }
}
