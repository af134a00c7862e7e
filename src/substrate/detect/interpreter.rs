//! The interpreter a project's tests run on: the default one (`$MERGEFORGE_PYTHON`, else
//! `python3`) when `requires-python` and the classifiers allow it, else the newest
//! `python3.X` on PATH that they allow.

use std::process::Command;
use std::sync::OnceLock;

use anyhow::{bail, Result};

use crate::pytest::venv::base_interpreter;

/// An interpreter present on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Present {
    /// How it is run (`python3`, `python3.9`).
    pub(crate) command: String,
    /// `(3, 11, 7)`.
    pub(crate) version: (u32, u32, u32),
}

/// The choice and why.
#[derive(Debug)]
pub(crate) struct Choice {
    /// `None`: the default interpreter.
    pub(crate) command: Option<String>,
    pub(crate) version: (u32, u32, u32),
    pub(crate) why: String,
}

/// `Python 3.11.7` → `(3, 11, 7)`.
pub(crate) fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let digits = text.trim().trim_start_matches("Python").trim();
    let mut parts = digits.split('.').map(|p| p.chars().take_while(char::is_ascii_digit).collect::<String>());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    Some((major, minor, patch))
}

fn probe(command: &str) -> Option<Present> {
    let output = Command::new(command).arg("--version").output().ok()?;
    if !output.status.success() {
        return None;
    }
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    Some(Present { command: command.to_string(), version: parse_version(&text)? })
}

/// The default interpreter, probed once.
fn default_present() -> Option<Present> {
    static DEFAULT: OnceLock<Option<Present>> = OnceLock::new();
    DEFAULT.get_or_init(|| probe(&base_interpreter())).clone()
}

/// Every `python3.X` on PATH (X from 6 to 14) that runs, then every pyenv installation
/// of another minor version (`$PYENV_ROOT/versions/*/bin/python3`, by its absolute path:
/// pyenv's shims answer only for the versions pyenv has selected), probed once.
fn others_present() -> &'static [Present] {
    static OTHERS: OnceLock<Vec<Present>> = OnceLock::new();
    OTHERS.get_or_init(|| {
        let mut found: Vec<Present> = (6..=14).filter_map(|minor| probe(&format!("python3.{minor}"))).collect();
        for present in pyenv_installed() {
            if !found.iter().any(|p| (p.version.0, p.version.1) == (present.version.0, present.version.1)) {
                found.push(present);
            }
        }
        found.sort_by_key(|p| p.version);
        found
    })
}

/// The Python 3 interpreters pyenv installed (`$PYENV_ROOT`, else `~/.pyenv`), newest
/// patch release of each minor version first.
fn pyenv_installed() -> Vec<Present> {
    let root = std::env::var_os("PYENV_ROOT")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| std::path::PathBuf::from(home).join(".pyenv")));
    let Some(versions) = root.map(|r| r.join("versions")) else { return Vec::new() };
    let mut found: Vec<Present> = std::fs::read_dir(versions)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| probe(&entry.path().join("bin").join("python3").to_string_lossy()))
        .filter(|p| p.version.0 == 3)
        .collect();
    found.sort_by_key(|p| std::cmp::Reverse(p.version));
    found
}

/// Every interpreter present: the default one first, then the others by version.
pub(crate) fn present() -> Vec<Present> {
    let default = default_present();
    let others = others_present()
        .iter()
        .filter(|p| default.as_ref().is_none_or(|d| (d.version.0, d.version.1) != (p.version.0, p.version.1)));
    default.clone().into_iter().chain(others.cloned()).collect()
}

/// The interpreter present of minor version `major.minor`, if any.
pub(crate) fn present_of(major: u32, minor: u32) -> Option<Present> {
    present().into_iter().find(|p| (p.version.0, p.version.1) == (major, minor))
}

/// Whether `version` satisfies a `requires-python` specifier list (`>=3.8, !=3.9.*, <4`).
pub(crate) fn satisfies(spec: &str, version: (u32, u32, u32)) -> bool {
    spec.split(',').map(str::trim).filter(|c| !c.is_empty()).all(|clause| {
        let op_len = clause.find(|c: char| c.is_ascii_digit()).unwrap_or(clause.len());
        let (op, wanted) = clause.split_at(op_len);
        let op = op.trim();
        let wildcard = wanted.ends_with(".*");
        let wanted = wanted.trim_end_matches(".*");
        // `<3` names a major version alone.
        let parsed = parse_version(wanted).or_else(|| parse_version(&format!("{wanted}.0")));
        let Some(wanted) = parsed else { return true };
        let given = |n: usize| wanted_parts(clause).min(n);
        let cut = |v: (u32, u32, u32)| match given(3) {
            1 => (v.0, 0, 0),
            2 => (v.0, v.1, 0),
            _ => v,
        };
        match op {
            ">=" => version >= wanted,
            ">" => version > wanted,
            "<=" => version <= wanted,
            "<" => version < wanted,
            "==" if wildcard => cut(version) == wanted,
            "==" | "===" => cut(version) == wanted,
            "!=" if wildcard => cut(version) != wanted,
            "!=" => version != wanted,
            "~=" => {
                version >= wanted
                    && (version.0, if given(3) == 3 { version.1 } else { 0 })
                        == (wanted.0, if given(3) == 3 { wanted.1 } else { 0 })
            }
            _ => true,
        }
    })
}

fn wanted_parts(clause: &str) -> usize {
    clause.trim_end_matches(".*").split('.').count()
}

/// Chooses the interpreter for `requires_python` and the classifiers' `(3, X)` list.
/// `origin` names the file `requires_python` comes from, for the error.
pub(crate) fn choose(requires_python: Option<&str>, origin: &str, classified: &[(u32, u32)]) -> Result<Choice> {
    let Some(default) = default_present() else {
        bail!("python interpreter `{}` not usable: install python3 or set MERGEFORGE_PYTHON", base_interpreter())
    };
    let allowed = |p: &Present| requires_python.is_none_or(|spec| satisfies(spec, p.version));
    let listed = |p: &Present| classified.contains(&(p.version.0, p.version.1));
    let spec_text =
        requires_python.map(|s| format!("requires-python `{s}`")).unwrap_or_else(|| "no requires-python".into());
    if allowed(&default)
        && (classified.is_empty() || listed(&default) || !others_present().iter().any(|p| allowed(p) && listed(p)))
    {
        let why = match (classified.is_empty(), listed(&default)) {
            (true, _) | (false, true) => format!("the default interpreter fits ({spec_text})"),
            (false, false) => format!(
                "the default interpreter fits {spec_text}; no interpreter of the classifiers' versions is present"
            ),
        };
        return Ok(Choice { command: None, version: default.version, why });
    }
    let mut fitting: Vec<&Present> = others_present().iter().filter(|p| allowed(p)).collect();
    fitting.sort_by_key(|p| (listed(p), p.version));
    let Some(best) = fitting.last() else {
        bail!("{origin}: {spec_text}: no interpreter present fits it (default {}.{}); install one (python3.X on PATH) or set `python` in a substrate.toml", default.version.0, default.version.1)
    };
    let why = if listed(best) {
        format!("the newest interpreter present that fits {spec_text} and the classifiers")
    } else {
        format!("the newest interpreter present that fits {spec_text}")
    };
    Ok(Choice { command: Some(best.command.clone()), version: best.version, why })
}

/// The pytest an interpreter older than pytest's pinned release supports, if any.
pub(crate) fn pytest_for(version: (u32, u32, u32)) -> Option<&'static str> {
    match (version.0, version.1) {
        (3, 6) => Some("pytest==7.0.1"),
        (3, 7) => Some("pytest==7.4.4"),
        (3, 8) => Some("pytest==8.3.5"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specifiers() {
        let v = (3, 11, 7);
        assert!(satisfies(">=3.8", v) && satisfies(">=3.8, <4", v) && satisfies("!=3.10.*", v));
        assert!(!satisfies(">=3.12", v) && !satisfies("<3.11", v) && !satisfies("==3.10.*", v));
        assert!(!satisfies("<3", v) && satisfies(">=3", v) && satisfies("<3", (2, 7, 18)));
        assert!(satisfies("~=3.9", v) && !satisfies("~=3.9.0", v) && satisfies(">=2.7, !=3.0.*, !=3.1.*", v));
        assert_eq!(parse_version("Python 3.13.0rc1"), Some((3, 13, 0)));
    }
}
