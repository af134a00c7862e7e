//! Repository lists (`gen-tasks --repos FILE`): one repository a line, read into the
//! sources [`fetch`] turns into folders a substrate is read from.
//!
//! A line is a source, then optional `key=value` options, split by the shell's quoting
//! rules; `#` starts a comment, blank lines are skipped:
//!
//! ```text
//! ../checkouts/inflection                 # a checkout, an unpacked sdist or a bare git directory
//! dist/six-1.16.0.tar.gz                  # an sdist archive (.tar.gz, .tgz, .zip), unpacked
//! file:///srv/git/idna.git@v3.7           # a git URL at a revision (URL@REV, or rev=REV)
//! https://example.org/calc.git rev=feature/x config=calc.toml
//! pypi:humanize==4.9.0                    # a release's sdist, downloaded with pip
//! ```
//!
//! Paths (sources and `config=`) are relative to the list's folder. `config=FILE` is a
//! `substrate.toml` for that repository (it sets only the keys it names; detection the
//! rest). Every problem with a line is one error naming the file, the line and what to
//! write; a repository that is listed well but fails to fetch or onboard is skipped by
//! the run with its reason instead.

pub(crate) mod fetch;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// What a line may hold, for errors.
const USAGE: &str = "write one repository a line: PATH, URL[@REV] or pypi:NAME==VERSION, \
                     then optional rev=REV and config=FILE";

/// Where one listed repository comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// A folder read as it is: a checkout (at HEAD), an unpacked sdist, a bare git directory.
    Folder(PathBuf),
    /// An sdist archive, unpacked into the cache.
    Archive(PathBuf),
    /// A git URL, cloned into the cache and checked out at `rev` (default: the remote's HEAD).
    Git { url: String, rev: Option<String> },
    /// A release's sdist, downloaded with pip from the configured index and unpacked.
    Pypi { name: String, version: String },
}

/// One line of a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// 1-based line number in the list.
    pub(crate) line: usize,
    /// The line as written, without its comment.
    pub(crate) text: String,
    pub(crate) source: Source,
    /// `config=FILE`: the substrate.toml to use for this repository.
    pub(crate) config: Option<PathBuf>,
}

/// A parsed list, its entries in the file's order.
#[derive(Debug, Clone)]
pub(crate) struct RepoList {
    pub(crate) file: PathBuf,
    pub(crate) entries: Vec<Entry>,
}

impl RepoList {
    /// Reads and checks `file`: every line parses, every local path exists, no
    /// repository is listed twice.
    pub(crate) fn read(file: &Path) -> Result<RepoList> {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("{}: cannot read the repository list", file.display()))?;
        let base = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let mut entries: Vec<Entry> = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let at = format!("{}:{}", file.display(), index + 1);
            let Some(entry) = parse_line(line, index + 1, base).with_context(|| at.clone())? else { continue };
            if let Some(earlier) = entries.iter().find(|e| e.source == entry.source) {
                bail!("{at}: the same repository as line {}; list each repository once", earlier.line);
            }
            entries.push(entry);
        }
        if entries.is_empty() {
            bail!("{}: no repository listed; {USAGE}", file.display());
        }
        Ok(RepoList { file: file.to_path_buf(), entries })
    }
}

/// One line: `None` for a blank or comment line.
fn parse_line(line: &str, number: usize, base: &Path) -> Result<Option<Entry>> {
    let Some(words) = shlex::split(line) else {
        bail!("an unclosed quote or a trailing backslash; quote a path with spaces as \"my repo\"");
    };
    // shlex drops a comment that starts a word; a `#` inside a word stays (URLs).
    let Some((first, options)) = words.split_first() else { return Ok(None) };
    let mut rev = None;
    let mut config = None;
    for option in options {
        match option.split_once('=') {
            Some(("rev", value)) if !value.is_empty() => rev = Some(value.to_string()),
            Some(("config", value)) if !value.is_empty() => {
                let file = base.join(value);
                if !file.is_file() {
                    bail!("config={value}: no such file (paths are relative to the list's folder)");
                }
                config = Some(file);
            }
            Some((key @ ("rev" | "config"), _)) => bail!("{key}= needs a value, e.g. {key}={}", example(key)),
            _ => bail!("`{option}`: not an option; {USAGE}"),
        }
    }
    let source = parse_source(first, rev, base)?;
    let text = without_comment(line).trim().to_string();
    Ok(Some(Entry { line: number, text, source, config }))
}

/// `line` up to a `#` that starts a word.
fn without_comment(line: &str) -> &str {
    let mut previous = ' ';
    for (at, c) in line.char_indices() {
        if c == '#' && previous.is_whitespace() {
            return &line[..at];
        }
        previous = c;
    }
    line
}

fn example(key: &str) -> &'static str {
    match key {
        "rev" => "v1.2.0",
        _ => "project.toml",
    }
}

/// The source a line's first word names; `rev` is its `rev=` option.
fn parse_source(word: &str, rev: Option<String>, base: &Path) -> Result<Source> {
    if let Some(spec) = word.strip_prefix("pypi:") {
        if rev.is_some() {
            bail!("rev= is for git URLs; a PyPI release is pinned by its version");
        }
        return parse_pypi(spec);
    }
    if is_git_url(word) {
        let (url, at_rev) = split_rev(word);
        if at_rev.is_some() && rev.is_some() {
            bail!("`{word}` has a revision and rev= gives another; give one");
        }
        if at_rev.as_deref() == Some("") {
            bail!("`{word}` ends in @ with no revision; write URL@REV, e.g. {url}@v1.2.0");
        }
        return Ok(Source::Git { url, rev: at_rev.or(rev) });
    }
    if rev.is_some() {
        bail!(
            "rev= is for git URLs; a folder is read at its HEAD (check out the revision, or list it as a file:// URL)"
        );
    }
    let path = base.join(word);
    if path.is_dir() {
        return Ok(Source::Folder(normalised(&path)));
    }
    let archive = [".tar.gz", ".tgz", ".zip"].iter().any(|ext| word.ends_with(ext));
    if path.is_file() && archive {
        return Ok(Source::Archive(normalised(&path)));
    }
    if path.is_file() {
        bail!("`{word}` is a file but not an sdist (.tar.gz, .tgz, .zip); list the repository's folder");
    }
    bail!(
        "`{word}`: no such folder or file (relative to the list's folder); \
         {USAGE} (a URL needs a scheme such as file:// or https://)"
    )
}

/// `NAME==VERSION`.
fn parse_pypi(spec: &str) -> Result<Source> {
    let usage = "write pypi:NAME==VERSION, e.g. pypi:humanize==4.9.0";
    let Some((name, version)) = spec.split_once("==") else {
        bail!("pypi:{spec}: no version; {usage} (a list pins every release it names)");
    };
    let (name, version) = (name.trim(), version.trim());
    let name_ok = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
    let version_ok = !version.is_empty() && version.chars().all(|c| c.is_ascii_alphanumeric() || "._+!-".contains(c));
    if !name_ok || !version_ok {
        bail!("pypi:{spec}: not a name and one exact version; {usage}");
    }
    Ok(Source::Pypi { name: name.to_string(), version: version.to_string() })
}

/// A URL with a scheme (`file://`, `https://`, `ssh://`, `git://`) or scp-like
/// (`git@host:owner/repo.git`).
fn is_git_url(word: &str) -> bool {
    if word.contains("://") {
        return true;
    }
    let Some((before, _)) = word.split_once(':') else { return false };
    before.contains('@') && !before.contains('/')
}

/// `URL@REV` → (URL, REV), when the last `@` is followed by neither `/` nor `:` (so it is
/// not the user of `ssh://git@host/…` or `git@host:…`). A revision with a `/` is
/// given as `rev=REV`.
fn split_rev(word: &str) -> (String, Option<String>) {
    match word.rsplit_once('@') {
        Some((url, rev)) if !rev.contains(['/', ':']) && (url.contains("://") || is_git_url(url)) => {
            (url.to_string(), Some(rev.to_string()))
        }
        _ => (word.to_string(), None),
    }
}

/// `path` made absolute and without `.`/`..`, so two spellings of one folder compare equal.
fn normalised(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(word: &str, rev: Option<&str>) -> Result<Source> {
        parse_source(word, rev.map(str::to_string), Path::new("/nonexistent-base"))
    }

    #[test]
    fn git_urls_and_their_revisions_are_told_apart() {
        let git = |url: &str, rev: Option<&str>| Source::Git { url: url.into(), rev: rev.map(Into::into) };
        assert_eq!(source("file:///srv/calc.git@v1", None).unwrap(), git("file:///srv/calc.git", Some("v1")));
        assert_eq!(
            source("file:///srv/calc.git", Some("feature/x")).unwrap(),
            git("file:///srv/calc.git", Some("feature/x"))
        );
        assert_eq!(source("ssh://git@host/calc.git", None).unwrap(), git("ssh://git@host/calc.git", None));
        assert_eq!(source("git@host:o/calc.git", None).unwrap(), git("git@host:o/calc.git", None));
        assert_eq!(source("git@host:o/calc.git@abc123", None).unwrap(), git("git@host:o/calc.git", Some("abc123")));
        assert_eq!(source("https://u@host/calc.git", None).unwrap(), git("https://u@host/calc.git", None));
        assert!(source("file:///srv/calc.git@v1", Some("v2")).unwrap_err().to_string().contains("give one"));
        assert!(source("file:///srv/calc.git@", None).unwrap_err().to_string().contains("no revision"));
    }

    #[test]
    fn pypi_entries_pin_one_version() {
        let pypi = source("pypi:humanize==4.9.0", None).unwrap();
        assert_eq!(pypi, Source::Pypi { name: "humanize".into(), version: "4.9.0".into() });
        assert!(source("pypi:humanize", None).unwrap_err().to_string().contains("no version"));
        assert!(source("pypi:humanize>=4", None).unwrap_err().to_string().contains("no version"));
        assert!(source("pypi:hum anize==1", None).unwrap_err().to_string().contains("one exact version"));
        assert!(source("pypi:six==1.16.0", Some("v1")).unwrap_err().to_string().contains("pinned by its version"));
    }

    #[test]
    fn comments_blank_lines_and_options_are_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("my repo")).unwrap();
        std::fs::write(dir.path().join("c.toml"), "").unwrap();
        let list = dir.path().join("repos.txt");
        let text = "# repositories\n\n\"my repo\" config=c.toml  # the local one\npypi:six==1.16.0\n";
        std::fs::write(&list, text).unwrap();
        let read = RepoList::read(&list).unwrap();
        assert_eq!(read.entries.len(), 2);
        assert_eq!(read.entries[0].line, 3);
        assert_eq!(read.entries[0].text, "\"my repo\" config=c.toml");
        assert_eq!(read.entries[0].config.as_deref(), Some(dir.path().join("c.toml").as_path()));
        assert!(matches!(&read.entries[0].source, Source::Folder(p) if p.ends_with("my repo")));
        assert_eq!(read.entries[1].line, 4);
    }
}
