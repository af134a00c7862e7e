//! A history commit's era: the interpreter its tests run on and the dependencies they
//! get, as of the commit ([`of_commit`]).
//!
//! The interpreter comes from the commit's own metadata: `requires-python` bounds it, and
//! the versions the project lists (classifiers, tox's `envlist`, the Python versions of
//! its CI: `.travis.yml`, GitHub workflows) name those it tested, among the releases out
//! at the commit's date. Without a list, the date alone: the newest release out for
//! [`SETTLED_DAYS`] by then (a project adopts a new Python months after its release).
//! That is the *wanted* version; the interpreter chosen is it when present, else the
//! nearest present (the newest older one that fits, else the oldest newer one). A commit
//! that lists only Python 2 versions, or whose `requires-python` admits no Python 3, is
//! out of scope ([`Unfit::Python2`]); one that no interpreter present fits is
//! [`Unfit::NoInterpreter`].
//!
//! The dependencies are the commit's declared ones (runtime, test extras and groups,
//! requirement files, tox `deps`, the plugins its pytest settings need; see
//! [`super::metadata`]) and pytest, resolved as of [`Era::as_of`]: the commit's date,
//! or when the interpreter chosen came out later, [`SETTLED_DAYS`] after its release.

use time::OffsetDateTime;

use super::interpreter::{satisfies, Present};
use super::{metadata, pytest_config, requirement};
use crate::snapshot::Snapshot;

/// Days after a Python release when projects have adopted it: the date alone picks no
/// newer release, and dependencies for an interpreter newer than the commit are resolved
/// as of this long after its release.
pub(crate) const SETTLED_DAYS: i64 = 180;

/// Each Python minor version and the date of its first release (`x.y.0`).
pub(crate) const RELEASES: [((u32, u32), &str); 17] = [
    ((2, 6), "2008-10-01"),
    ((2, 7), "2010-07-03"),
    ((3, 0), "2008-12-03"),
    ((3, 1), "2009-06-27"),
    ((3, 2), "2011-02-20"),
    ((3, 3), "2012-09-29"),
    ((3, 4), "2014-03-16"),
    ((3, 5), "2015-09-13"),
    ((3, 6), "2016-12-23"),
    ((3, 7), "2018-06-27"),
    ((3, 8), "2019-10-14"),
    ((3, 9), "2020-10-05"),
    ((3, 10), "2021-10-04"),
    ((3, 11), "2022-10-24"),
    ((3, 12), "2023-10-02"),
    ((3, 13), "2024-10-07"),
    ((3, 14), "2025-10-07"),
];

/// What a commit's tests run with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Era {
    /// The interpreter chosen.
    pub(crate) python: Present,
    /// The version the commit's metadata and date point to; another when it is not present.
    pub(crate) wanted: (u32, u32),
    /// The date the dependencies are resolved as of (`2019-04-30`, UTC).
    pub(crate) as_of: String,
    /// The requirements to resolve: the commit's declared ones and pytest, sorted.
    pub(crate) requirements: Vec<String>,
    /// HEAD's test command as it applies to the commit ([`adapted_command`]); empty until
    /// the history scan sets it.
    pub(crate) test_command: Vec<String>,
}

/// Why a commit gets no era.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unfit {
    /// It supports only Python 2.
    Python2,
    /// No interpreter present fits its `requires-python`; it wants this version.
    NoInterpreter { wanted: (u32, u32) },
}

/// The era of a commit whose metadata files are `files` (its root files, requirement
/// folders and CI configuration; see [`is_metadata_file`]) and whose committer time is
/// `time` (seconds since the epoch), among the interpreters `present`.
pub(crate) fn of_commit(files: &Snapshot, time: i64, present: &[Present]) -> Result<Era, Unfit> {
    let meta = metadata::read(files);
    let requires = meta.requires_python.as_ref().map(|(spec, _)| spec.as_str());
    let mut listed = meta.classifier_versions.clone();
    listed.extend(tox_versions(files));
    listed.extend(ci_versions(files));
    listed.sort();
    listed.dedup();
    let (python, wanted) = choose(requires, &listed, time, present)?;
    let released = release_time((python.version.0, python.version.1)).unwrap_or(i64::MIN);
    let as_of = date_of(time.max(released.saturating_add(SETTLED_DAYS * DAY)));
    let requirements = requirements(&meta, pytest_config::read(files).as_ref());
    Ok(Era { python, wanted, as_of, requirements, test_command: Vec::new() })
}

/// HEAD's test command `command` for a commit: a path argument HEAD has and the commit
/// has not (`in_head`, `in_commit`) is left out (pytest refuses a missing path), and so
/// is `--no-cov` when the commit's `requirements` have no pytest-cov to take it.
pub(crate) fn adapted_command(
    command: &[String],
    requirements: &[String],
    in_head: impl Fn(&str) -> bool,
    in_commit: impl Fn(&str) -> bool,
) -> Vec<String> {
    let has_cov = requirements.iter().any(|r| requirement::name(r) == "pytest-cov");
    command
        .iter()
        .filter(|arg| match arg.as_str() {
            "--no-cov" => has_cov,
            path if !path.starts_with('-') => !in_head(path) || in_commit(path),
            _ => true,
        })
        .cloned()
        .collect()
}

/// Whether `path` of a commit's tree is read for its era: a file at the root (no Python
/// module but `setup.py`), a requirement file in a `requirements*` folder, a GitHub workflow.
pub(crate) fn is_metadata_file(path: &str) -> bool {
    match path.rsplit_once('/') {
        None => !path.ends_with(".py") || path == "setup.py",
        Some((dir, name)) => {
            (dir.starts_with("requirements") && name.ends_with(".txt"))
                || (dir == ".github/workflows" && (name.ends_with(".yml") || name.ends_with(".yaml")))
        }
    }
}

const DAY: i64 = 86_400;

/// The interpreter for `requires` (a `requires-python`), the `listed` versions and the
/// date `time`, among `present`; and the version wanted.
fn choose(
    requires: Option<&str>,
    listed: &[(u32, u32)],
    time: i64,
    present: &[Present],
) -> Result<(Present, (u32, u32)), Unfit> {
    let listed3: Vec<(u32, u32)> = listed.iter().copied().filter(|v| v.0 == 3).collect();
    let admits = |v: (u32, u32)| requires.is_none_or(|spec| satisfies(spec, (v.0, v.1, 99)));
    let fits = |v: (u32, u32)| v.0 == 3 && admits(v);
    let out_by = |v: (u32, u32), days: i64| release_time(v).is_none_or(|r| r + days * DAY <= time);
    // Listed versions were tested when listed; others count once settled.
    let of_the_time = |v: (u32, u32)| (listed3.contains(&v) && out_by(v, 0)) || out_by(v, SETTLED_DAYS);
    let mut python3: Vec<(u32, u32)> = RELEASES.iter().map(|(v, _)| *v).filter(|v| fits(*v)).collect();
    // An interpreter newer than the table counts as released.
    python3.extend(present.iter().map(|p| (p.version.0, p.version.1)).filter(|v| fits(*v)));
    python3.sort();
    python3.dedup();
    if (listed3.is_empty() && listed.iter().any(|v| v.0 == 2)) || (python3.is_empty() && admits((2, 7))) {
        return Err(Unfit::Python2);
    }
    if python3.is_empty() {
        return Err(Unfit::NoInterpreter { wanted: lower_bound(requires.unwrap_or_default()) });
    }
    let wanted = python3
        .iter()
        .rev()
        .find(|v| listed3.contains(v) && out_by(**v, 0))
        .or_else(|| python3.iter().rev().find(|v| out_by(**v, SETTLED_DAYS)))
        .or(python3.first())
        .copied()
        .unwrap_or((3, 0));
    let mut fitting: Vec<&Present> = present.iter().filter(|p| fits((p.version.0, p.version.1))).collect();
    fitting.sort_by_key(|p| p.version);
    let minor = |p: &Present| (p.version.0, p.version.1);
    let chosen = fitting
        .iter()
        .find(|p| minor(p) == wanted)
        .or_else(|| fitting.iter().rev().find(|p| minor(p) < wanted && of_the_time(minor(p))))
        .or_else(|| fitting.iter().find(|p| minor(p) > wanted))
        .or_else(|| fitting.last());
    match chosen {
        Some(p) => Ok(((*p).clone(), wanted)),
        None => Err(Unfit::NoInterpreter { wanted }),
    }
}

/// The version a `requires-python` starts at (`>=3.99` → 3.99), else 3.0.
fn lower_bound(spec: &str) -> (u32, u32) {
    spec.split(',')
        .filter_map(|clause| clause.trim().strip_prefix(">=").or_else(|| clause.trim().strip_prefix("~=")))
        .filter_map(|v| super::interpreter::parse_version(v.trim()))
        .map(|(a, b, _)| (a, b))
        .max()
        .unwrap_or((3, 0))
}

/// The Python versions of tox's `envlist` (`py27, py3{6,7}` → 2.7, 3.6, 3.7).
fn tox_versions(files: &Snapshot) -> Vec<(u32, u32)> {
    let Some(text) = files.get("tox.ini").map(|d| String::from_utf8_lossy(d).into_owned()) else { return Vec::new() };
    let ini = super::ini::Ini::parse(&text);
    let Some(envlist) = ini.get("tox", "envlist") else { return Vec::new() };
    let mut versions = Vec::new();
    let mut rest = envlist;
    while let Some(at) = rest.find("py") {
        rest = &rest[at + 2..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let after = &rest[digits.len()..];
        let expanded: Vec<String> = match after.strip_prefix('{') {
            Some(inner) if digits.len() == 1 => {
                let inner = inner.split('}').next().unwrap_or("");
                inner.split(',').map(|tail| format!("{digits}{}", tail.trim())).collect()
            }
            _ => vec![digits],
        };
        versions.extend(expanded.iter().filter_map(|d| split_digits(d)));
    }
    versions
}

/// `36` → 3.6, `310` → 3.10.
fn split_digits(digits: &str) -> Option<(u32, u32)> {
    if digits.len() < 2 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let (major, minor) = digits.split_at(1);
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The Python versions a commit's CI runs: the `python:` entries of `.travis.yml` and
/// the `python-version` entries of its GitHub workflows (`"3.8"`, `[3.7, 3.8]`, a list
/// below the key).
fn ci_versions(files: &Snapshot) -> Vec<(u32, u32)> {
    let mut versions = Vec::new();
    for (path, data) in files.iter() {
        let key = match path.as_str() {
            ".travis.yml" => "python",
            p if p.starts_with(".github/workflows/") => "python-version",
            _ => continue,
        };
        let text = String::from_utf8_lossy(data);
        let mut list_indent: Option<usize> = None;
        for line in text.lines() {
            let indent = line.len() - line.trim_start().len();
            let trimmed = line.trim_start().trim_start_matches("- ").trim_start();
            if let Some(at) = list_indent {
                if line.trim_start().starts_with('-') && indent >= at {
                    versions.extend(version_tokens(trimmed));
                    continue;
                }
                list_indent = None;
            }
            if let Some(value) = trimmed.strip_prefix(key).and_then(|r| r.trim_start().strip_prefix(':')) {
                versions.extend(version_tokens(value));
                if value.trim().is_empty() {
                    list_indent = Some(indent);
                }
            }
        }
    }
    versions
}

/// The `X.Y` versions in a YAML value (`["3.8", 3.9]`, `'2.7'`, `pypy3.9` left out).
fn version_tokens(value: &str) -> Vec<(u32, u32)> {
    value
        .split(|c: char| c == ',' || c == '[' || c == ']' || c.is_whitespace())
        .map(|t| t.trim_matches(|c| c == '"' || c == '\''))
        .filter_map(|token| {
            let (major, minor) = token.split_once('.')?;
            let ok = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
            if !(ok(major) && ok(minor) && (major == "2" || major == "3")) {
                return None;
            }
            Some((major.parse().ok()?, minor.parse().ok()?))
        })
        .collect()
}

/// The requirements of an era: what the commit declares (its own name, and what no test
/// run needs, such as documentation builders and linters, left out: an old
/// `requirements.txt` often lists them), and pytest (detection leaves out the pytest a
/// project declares: the era's is the one of its date).
fn requirements(meta: &metadata::Metadata, pytest: Option<&pytest_config::PytestConfig>) -> Vec<String> {
    let plugins = pytest.map(|p| p.plugins.iter().map(|(r, _)| r.clone()).collect::<Vec<_>>()).unwrap_or_default();
    let own = meta.name.as_deref().map(requirement::name);
    let mut out: Vec<String> = vec!["pytest".to_string()];
    for requirement in meta.runtime.requirements.iter().chain(&meta.test.requirements).map(|(r, _)| r).chain(&plugins) {
        let name = requirement::name(requirement);
        let wanted = !requirement::skipped(requirement) && own.as_deref() != Some(name.as_str());
        if wanted && !out.iter().any(|r| requirement::name(r) == name) {
            out.push(requirement.clone());
        }
    }
    out.sort();
    out
}

/// The release date of `version` as seconds since the epoch.
fn release_time(version: (u32, u32)) -> Option<i64> {
    let (_, date) = RELEASES.iter().find(|(v, _)| *v == version)?;
    time_of(date)
}

/// `2019-04-30` as seconds since the epoch (its midnight, UTC).
fn time_of(date: &str) -> Option<i64> {
    let mut parts = date.split('-').map(|p| p.parse::<i32>().ok());
    let (year, month, day) = (parts.next()??, parts.next()??, parts.next()??);
    let month = time::Month::try_from(u8::try_from(month).ok()?).ok()?;
    let date = time::Date::from_calendar_date(year, month, u8::try_from(day).ok()?).ok()?;
    Some(date.midnight().assume_utc().unix_timestamp())
}

/// `2019-04-30`: the UTC date of `time` (seconds since the epoch).
pub(crate) fn date_of(time: i64) -> String {
    let when = OffsetDateTime::from_unix_timestamp(time).unwrap_or(OffsetDateTime::UNIX_EPOCH);
    format!("{:04}-{:02}-{:02}", when.year(), u8::from(when.month()), when.day())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn present(versions: &[(u32, u32)]) -> Vec<Present> {
        versions.iter().map(|&(a, b)| Present { command: format!("python{a}.{b}"), version: (a, b, 1) }).collect()
    }

    fn at(date: &str) -> i64 {
        time_of(date).unwrap()
    }

    fn chosen(requires: Option<&str>, listed: &[(u32, u32)], date: &str, here: &[(u32, u32)]) -> Result<String, Unfit> {
        choose(requires, listed, at(date), &present(here))
            .map(|(p, wanted)| format!("{}.{} (wanted {}.{})", p.version.0, p.version.1, wanted.0, wanted.1))
    }

    const HERE: [(u32, u32); 8] = [(3, 6), (3, 7), (3, 8), (3, 9), (3, 10), (3, 11), (3, 12), (3, 13)];

    #[test]
    fn the_listed_versions_of_the_time_come_first() {
        // Listed 3.7 and 3.8 in mid-2019: 3.8 is not out yet.
        assert_eq!(chosen(None, &[(2, 7), (3, 7), (3, 8)], "2019-07-01", &HERE).unwrap(), "3.7 (wanted 3.7)");
        // Once out, a listed version counts at once.
        assert_eq!(chosen(None, &[(3, 7), (3, 8)], "2019-11-01", &HERE).unwrap(), "3.8 (wanted 3.8)");
        // requires-python bounds the list.
        assert_eq!(chosen(Some("<3.8"), &[(3, 7), (3, 8)], "2020-05-01", &HERE).unwrap(), "3.7 (wanted 3.7)");
    }

    #[test]
    fn without_a_list_the_date_picks_a_settled_release() {
        // 3.11 came out 2022-10-24: not yet settled in January 2023.
        assert_eq!(chosen(None, &[], "2023-01-15", &HERE).unwrap(), "3.10 (wanted 3.10)");
        assert_eq!(chosen(Some(">=3.6"), &[], "2023-06-01", &HERE).unwrap(), "3.11 (wanted 3.11)");
    }

    #[test]
    fn a_missing_version_falls_to_the_nearest_present() {
        // 2015 wants 3.5 (listed, out); the nearest present is the oldest newer one.
        assert_eq!(chosen(None, &[(2, 7), (3, 4), (3, 5)], "2015-11-01", &HERE).unwrap(), "3.6 (wanted 3.5)");
        // Newer than anything here: the newest present of the time.
        assert_eq!(chosen(None, &[(3, 13), (3, 14)], "2026-06-01", &HERE).unwrap(), "3.13 (wanted 3.14)");
        // Only 3.11 here: every commit runs on it.
        assert_eq!(chosen(None, &[(3, 5)], "2016-01-01", &[(3, 11)]).unwrap(), "3.11 (wanted 3.5)");
        assert_eq!(
            chosen(Some(">=3.14"), &[], "2026-06-01", &HERE).unwrap_err(),
            Unfit::NoInterpreter { wanted: (3, 14) }
        );
        assert_eq!(
            chosen(Some(">=3.99"), &[], "2026-06-01", &HERE).unwrap_err(),
            Unfit::NoInterpreter { wanted: (3, 99) }
        );
        // An interpreter newer than the table is a release of its own.
        assert_eq!(chosen(Some(">=3.15"), &[], "2027-06-01", &[(3, 15)]).unwrap(), "3.15 (wanted 3.15)");
    }

    #[test]
    fn python_2_only_commits_are_unfit() {
        assert_eq!(chosen(None, &[(2, 6), (2, 7)], "2013-01-01", &HERE).unwrap_err(), Unfit::Python2);
        assert_eq!(chosen(Some("<3"), &[], "2013-01-01", &HERE).unwrap_err(), Unfit::Python2);
        assert!(chosen(Some(">=2.7, !=3.0.*"), &[(2, 7), (3, 6)], "2018-01-01", &HERE).is_ok());
    }

    #[test]
    fn versions_listed_by_tox_and_ci() {
        let mut files = Snapshot::new();
        files.insert("tox.ini".into(), b"[tox]\nenvlist = py27, py3{5,6}, pypy, py310-django\n"[..].into());
        files.insert(
            ".travis.yml".into(),
            b"language: python\npython:\n  - \"2.7\"\n  - 3.6\n  - pypy3.5\nscript: make\n"[..].into(),
        );
        files.insert(
            ".github/workflows/ci.yml".into(),
            b"jobs:\n  test:\n    strategy:\n      matrix:\n        python-version: [\"3.8\", \"3.10\"]\n"[..].into(),
        );
        assert_eq!(tox_versions(&files), vec![(2, 7), (3, 5), (3, 6), (3, 10)]);
        let mut ci = ci_versions(&files);
        ci.sort();
        assert_eq!(ci, vec![(2, 7), (3, 6), (3, 8), (3, 10)]);
    }

    #[test]
    fn an_era_resolves_as_of_the_commit_or_once_its_interpreter_settled() {
        let mut files = Snapshot::new();
        files.insert(
            "setup.py".into(),
            b"setup(name='calc', install_requires=['six', 'Sphinx'], tests_require=['pytest>=3', 'mock'],\n  classifiers=['Programming Language :: Python :: 3.7'])\n"[..]
                .into(),
        );
        let era = of_commit(&files, at("2019-03-04") + 3600, &present(&HERE)).unwrap();
        assert_eq!(era.python.version, (3, 7, 1));
        assert_eq!(era.as_of, "2019-03-04");
        assert_eq!(era.requirements, vec!["mock", "pytest", "six"]);
        // Mid-2014 without a list wants 3.3 (3.4 is not settled); 3.6 runs it, with
        // dependencies of mid-2017.
        let era = of_commit(&Snapshot::new(), at("2014-06-01"), &present(&HERE)).unwrap();
        assert_eq!((era.wanted, era.python.version), ((3, 3), (3, 6, 1)));
        assert_eq!(era.as_of, "2017-06-21");
        assert_eq!(era.requirements, vec!["pytest"]);
    }

    #[test]
    fn a_head_path_the_commit_lacks_and_no_cov_without_pytest_cov_are_left_out() {
        let command: Vec<String> =
            ["python", "-m", "pytest", "tests", "docs", "--no-cov", "-p", "xdist", "--deselect=tests/t.py::a"]
                .map(String::from)
                .to_vec();
        let in_head = |p: &str| ["tests", "docs"].contains(&p);
        let in_commit = |p: &str| p == "docs";
        let adapted = adapted_command(&command, &["pytest".into()], in_head, in_commit);
        assert_eq!(adapted, ["python", "-m", "pytest", "docs", "-p", "xdist", "--deselect=tests/t.py::a"]);
        let adapted = adapted_command(&command, &["pytest-cov>=2".into()], in_head, |_| true);
        assert_eq!(adapted, command);
    }

    #[test]
    fn metadata_files() {
        for path in ["setup.py", "setup.cfg", "tox.ini", "requirements/test.txt", ".github/workflows/ci.yml"] {
            assert!(is_metadata_file(path), "{path}");
        }
        for path in ["calc/__init__.py", "conftest.py", "docs/conf.txt", ".github/dependabot.yml"] {
            assert!(!is_metadata_file(path), "{path}");
        }
    }
}
