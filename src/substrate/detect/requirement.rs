//! pip requirement strings as projects declare them: the distribution a requirement
//! names, the `extra == "test"` marker of a `Requires-Dist` line, and which declared
//! development tools a test run never needs.

/// The distribution a requirement names, normalised (`typing-extensions` of
/// `typing_extensions>=4; python_version<"3.8"`).
pub(crate) fn name(requirement: &str) -> String {
    let end =
        requirement.find(|c: char| !(c.is_ascii_alphanumeric() || "-_.".contains(c))).unwrap_or(requirement.len());
    requirement[..end].to_ascii_lowercase().replace(['_', '.'], "-")
}

/// A `Requires-Dist` (or PEP 508) line split into the requirement without its `extra`
/// clause and the extra it belongs to (`None`: a runtime dependency).
pub(crate) fn split_extra(line: &str) -> (String, Option<String>) {
    let Some((requirement, marker)) = line.split_once(';') else { return (line.trim().to_string(), None) };
    let clauses: Vec<&str> = marker.split(" and ").map(str::trim).collect();
    let mut extra = None;
    let mut kept = Vec::new();
    for clause in clauses {
        let compact: String = clause.chars().filter(|c| !c.is_whitespace()).collect();
        let trimmed = compact.trim_start_matches('(').trim_end_matches(')');
        if let Some(value) = trimmed.strip_prefix("extra==") {
            extra = Some(value.trim_matches(['"', '\'']).to_ascii_lowercase());
        } else if !clause.is_empty() {
            kept.push(clause);
        }
    }
    let requirement = requirement.trim();
    if kept.is_empty() {
        (requirement.to_string(), extra)
    } else {
        (format!("{requirement}; {}", kept.join(" and ")), extra)
    }
}

/// Tools a `dev` or `test` list may name that a test run does not need (formatters,
/// linters, type checkers, documentation, release tools, fuzzers), plugins that turn
/// linters into tests or change pytest's report or order, and pytest itself, which the
/// venv pins.
const NOT_FOR_TESTS: &[&str] = &[
    "pytest",
    "tox",
    "nox",
    "black",
    "ruff",
    "flake8",
    "isort",
    "mypy",
    "pylint",
    "pyright",
    "pre-commit",
    "twine",
    "build",
    "wheel",
    "setuptools",
    "check-manifest",
    "bump2version",
    "bumpversion",
    "towncrier",
    "ipython",
    "ipdb",
    "pdbpp",
    "codecov",
    "coveralls",
    "docutils",
    "readme-renderer",
    "doc8",
    "pyroma",
    "pydocstyle",
    "pycodestyle",
    "pyflakes",
    "bandit",
    "invoke",
    "zest-releaser",
    "restructuredtext-lint",
    "pytest-mypy",
    "pytest-flake8",
    "pytest-black",
    "pytest-pylint",
    "pytest-ruff",
    "pytest-isort",
    "pytest-checkdocs",
    "pytest-enabler",
    "pytest-sugar",
    "pytest-mypy-plugins",
    "pytest-randomly",
    "pytest-instafail",
    "pytest-clarity",
    "atheris",
];

/// Whether a declared test or development requirement is one a test run skips
/// ([`NOT_FOR_TESTS`], documentation builders, type stubs), or not a requirement at all
/// (a path, an option, a tox substitution).
pub(crate) fn skipped(requirement: &str) -> bool {
    let name = name(requirement);
    name.is_empty()
        || requirement.starts_with(['-', '.', '/', '{'])
        || requirement.contains("://")
        || NOT_FOR_TESTS.contains(&name.as_str())
        || name.starts_with("sphinx")
        || name.starts_with("types-")
        || name.starts_with("flake8-")
        || name.starts_with("mkdocs")
}

/// Client libraries of services (databases, brokers, containers) a suite may need
/// running; a test dependency naming one is reported.
pub(crate) const SERVICE_CLIENTS: &[&str] = &[
    "psycopg",
    "psycopg2",
    "psycopg2-binary",
    "asyncpg",
    "pymysql",
    "mysqlclient",
    "mysql-connector-python",
    "aiomysql",
    "redis",
    "pymongo",
    "motor",
    "cassandra-driver",
    "elasticsearch",
    "kafka-python",
    "confluent-kafka",
    "pika",
    "docker",
    "testcontainers",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_extras_and_skips() {
        assert_eq!(name("Typing_Extensions>=4; python_version<'3.8'"), "typing-extensions");
        assert_eq!(
            split_extra("hypothesis>=6 ; extra == \"test\""),
            ("hypothesis>=6".to_string(), Some("test".into()))
        );
        assert_eq!(
            split_extra("mock; python_version < \"3.3\" and extra == 'tests'"),
            ("mock; python_version < \"3.3\"".to_string(), Some("tests".into()))
        );
        assert_eq!(split_extra("attrs>=20"), ("attrs>=20".to_string(), None));
        assert!(skipped("pytest>=7") && skipped("Sphinx") && skipped("-r requirements.txt") && skipped("{[base]deps}"));
        assert!(!skipped("hypothesis") && !skipped("pytest-asyncio"));
    }
}
