//! A listed repository made a folder: a folder is used in place; a git URL is cloned
//! (and checked out at its revision), an sdist archive unpacked, a PyPI release's sdist
//! downloaded with pip and unpacked. Each is made once, into
//! `<cache>/repos/<key>/<folder>/`, built in a temporary sibling named by its process
//! and renamed into place, so a killed fetch leaves no folder that looks finished (the
//! next run sweeps the temporary) and a rerun reads the same files. A branch named as a
//! revision is read once, when first fetched: remove its folder to fetch it again.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use super::Source;
use crate::leftovers;
use crate::snapshot::sha256_hex;

/// The cache's folder of fetched repositories.
pub(crate) const REPOS_DIR: &str = "repos";
/// Prefix of a fetch's temporary folders (then `<host>-<pid>-`).
const TEMP_PREFIX: &str = ".tmp-";

/// Unpacks an sdist (tar of any compression, or zip) into a folder, refusing members
/// that would land outside it (and, without tarfile's data filter, links and devices).
const UNPACK_PY: &str = r#"
import os, sys, tarfile, zipfile
archive, dest = sys.argv[1], os.path.realpath(sys.argv[2])
def inside(name):
    target = os.path.realpath(os.path.join(dest, name))
    if target != dest and not target.startswith(dest + os.sep):
        sys.exit(f"{name}: a path outside the archive's folder")
if zipfile.is_zipfile(archive):
    with zipfile.ZipFile(archive) as z:
        for name in z.namelist():
            inside(name)
        z.extractall(dest)
else:
    with tarfile.open(archive) as t:
        if hasattr(tarfile, "data_filter"):
            t.extractall(dest, filter="data")
        else:
            for m in t.getmembers():
                inside(m.name)
                if m.issym() or m.islnk() or m.isdev():
                    sys.exit(f"{m.name}: a link or device in an sdist")
            t.extractall(dest)
"#;

/// The folder `source` is read from, fetched into `cache_dir/repos/` if it is not a
/// folder already.
pub(crate) fn folder(source: &Source, cache_dir: &Path) -> Result<PathBuf> {
    let root = cache_dir.join(REPOS_DIR);
    match source {
        Source::Folder(path) => Ok(path.clone()),
        Source::Git { url, rev } => {
            let name = repo_name(url);
            let key = format!(
                "git-{name}-{}",
                &sha256_hex(format!("{url}@{}", rev.as_deref().unwrap_or("")).as_bytes())[..12]
            );
            cached(&root, &key, |into| clone(url, rev.as_deref(), &into.join(&name)))
        }
        Source::Archive(path) => {
            let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            let key = format!("sdist-{}", &sha256_hex(&bytes)[..12]);
            cached(&root, &key, |into| unpack(path, into))
        }
        Source::Pypi { name, version } => {
            let key = format!("pypi-{}-{version}", name.to_ascii_lowercase());
            cached(&root, &key, |into| download(name, version, &root, into))
        }
    }
}

/// Removes what killed fetches left in `cache_dir/repos/`; returns how many.
pub(crate) fn sweep(cache_dir: &Path) -> usize {
    leftovers::sweep(&cache_dir.join(REPOS_DIR), TEMP_PREFIX)
}

/// `root/key`'s one folder, made by `make` (given an empty folder to fill) if absent.
fn cached(root: &Path, key: &str, make: impl FnOnce(&Path) -> Result<()>) -> Result<PathBuf> {
    let done = root.join(key);
    if !done.is_dir() {
        let temp = temp_dir(root)?;
        make(temp.path())?;
        let temp = temp.keep();
        if let Err(err) = std::fs::rename(&temp, &done) {
            let _ = std::fs::remove_dir_all(&temp);
            // Another run sharing the cache finished it first: theirs is as good.
            if !done.is_dir() {
                return Err(err).with_context(|| format!("moving the fetched repository to {}", done.display()));
            }
        }
    }
    only_folder(&done)
}

fn temp_dir(root: &Path) -> Result<tempfile::TempDir> {
    std::fs::create_dir_all(root).with_context(|| format!("creating {}", root.display()))?;
    tempfile::Builder::new()
        .prefix(&format!("{TEMP_PREFIX}{}-", leftovers::owner_tag()))
        .tempdir_in(root)
        .with_context(|| format!("creating a temporary folder in {}", root.display()))
}

/// The one folder inside `dir` (a fetched repository's).
fn only_folder(dir: &Path) -> Result<PathBuf> {
    let entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    match entries.as_slice() {
        [one] if one.is_dir() => Ok(one.clone()),
        _ => bail!(
            "{}: holds {} entries, not one folder (an sdist should unpack to one); remove it to fetch again",
            dir.display(),
            entries.len()
        ),
    }
}

/// The folder name of a cloned URL: its last path segment without `.git`.
fn repo_name(url: &str) -> String {
    let last = url.trim_end_matches('/').rsplit(['/', ':']).next().unwrap_or("");
    let last = last.strip_suffix(".git").unwrap_or(last);
    let clean: String = last.chars().filter(|c| c.is_ascii_alphanumeric() || "._-".contains(*c)).collect();
    if clean.is_empty() || clean.starts_with('.') {
        "repo".to_string()
    } else {
        clean
    }
}

/// `git clone URL into`, then HEAD detached at `rev` (a commit, tag or branch).
fn clone(url: &str, rev: Option<&str>, into: &Path) -> Result<()> {
    let target = into.to_string_lossy();
    git(None, &["clone", "--quiet", "--", url, &target]).with_context(|| format!("git clone {url}"))?;
    let Some(rev) = rev else { return Ok(()) };
    let commit = [format!("{rev}^{{commit}}"), format!("origin/{rev}^{{commit}}")]
        .iter()
        .find_map(|spec| git(Some(into), &["rev-parse", "--verify", "--quiet", spec]).ok())
        .with_context(|| format!("{url}: no revision {rev} (a commit, tag or branch of the repository)"))?;
    git(Some(into), &["-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", commit.trim()])
        .with_context(|| format!("checking out {rev} of {url}"))?;
    Ok(())
}

/// Runs git (never prompting for credentials); its stdout, or its last stderr line as
/// the error.
fn git(dir: Option<&Path>, args: &[&str]) -> Result<String> {
    let mut command = Command::new("git");
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let output = command
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .context("running git (is it installed and on PATH?)")?;
    if !output.status.success() {
        bail!("{}", last_line(&output.stderr, "git failed"));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// `pip download` of `name==version`'s sdist (not a wheel, no dependencies) from the
/// index pip is configured with (`PIP_INDEX_URL`, `PIP_FIND_LINKS`, pip.conf), unpacked
/// into `into`.
fn download(name: &str, version: &str, root: &Path, into: &Path) -> Result<()> {
    let downloads = temp_dir(root)?;
    let python = crate::pytest::venv::base_interpreter();
    let output = Command::new(&python)
        .args(["-m", "pip", "download", "--no-deps", "--no-binary", name, "--disable-pip-version-check", "--quiet"])
        .arg("--dest")
        .arg(downloads.path())
        .arg(format!("{name}=={version}"))
        .output()
        .with_context(|| format!("running {python} -m pip"))?;
    if !output.status.success() {
        bail!("pip download {name}=={version}: {}", last_line(&output.stderr, "pip failed"));
    }
    let files: Vec<PathBuf> =
        std::fs::read_dir(downloads.path())?.map(|e| e.map(|e| e.path())).collect::<std::io::Result<_>>()?;
    let [sdist] = files.as_slice() else {
        bail!("pip download {name}=={version}: {} files downloaded, expected one sdist", files.len());
    };
    unpack(sdist, into)
}

/// Unpacks the sdist `archive` into `into` (with the base interpreter's tarfile/zipfile).
fn unpack(archive: &Path, into: &Path) -> Result<()> {
    let python = crate::pytest::venv::base_interpreter();
    let output = Command::new(&python)
        .args(["-c", UNPACK_PY])
        .arg(archive)
        .arg(into)
        .output()
        .with_context(|| format!("running {python} to unpack {}", archive.display()))?;
    if !output.status.success() {
        bail!("unpacking {}: {}", archive.display(), last_line(&output.stderr, "unpacking failed"));
    }
    Ok(())
}

/// The last non-blank line of a command's stderr, or `otherwise`.
fn last_line(stderr: &[u8], otherwise: &str) -> String {
    let text = String::from_utf8_lossy(stderr);
    text.lines().rev().map(str::trim).find(|l| !l.is_empty()).unwrap_or(otherwise).to_string()
}

#[cfg(test)]
mod tests {
    use super::repo_name;

    #[test]
    fn a_cloned_url_is_named_by_its_last_segment() {
        assert_eq!(repo_name("file:///srv/git/calc.git"), "calc");
        assert_eq!(repo_name("https://host/owner/calc/"), "calc");
        assert_eq!(repo_name("git@host:calc.git"), "calc");
        assert_eq!(repo_name("file:///"), "repo");
    }
}
