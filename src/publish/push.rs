//! `--push`: commits the published folder to a git remote and tags it `v<version>`.
//!
//! The git CLI does the work, in a private temporary repository whose work tree is the
//! published folder, so the user's git configuration (credential helpers, ssh) applies
//! and nothing is written into the folder. Credentials are never taken from flags: a
//! URL with a password in it is refused, and URLs are shown without user info.
//!
//! Rules, checked against the remote's branch and tag before anything is pushed:
//! * tag `v<version>` exists with the same tree: already published, nothing is pushed;
//! * tag exists with another tree: refused (a published version never changes);
//! * the branch head already has this tree: only the tag is pushed;
//! * otherwise one commit on top of the branch head (fixed author and time, so the same
//!   parent and content give the same commit id), pushed with the tag.
//!
//! When git-lfs is installed, the temporary repository uses it (`git lfs install
//! --local`), so bundles go to the remote's LFS store as `.gitattributes` asks. Without
//! it they are plain blobs, which any git remote accepts but the Hub refuses, so a Hub
//! URL without git-lfs is an error.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use anyhow::{bail, Context, Result};

use crate::bundle::Manifest;

/// Where to push.
#[derive(Debug, Clone)]
pub(crate) struct PushOptions {
    /// Any git URL or path: the Hub's `https://huggingface.co/datasets/OWNER/NAME`,
    /// an ssh URL, a local bare repository.
    pub(crate) url: String,
    pub(crate) branch: String,
}

/// What the push did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub(crate) enum PushResult {
    /// A new commit was pushed, with the tag.
    Pushed,
    /// The branch head already had this content; only the tag was pushed.
    #[strum(serialize = "tagged-existing-commit")]
    TaggedHead,
    /// The version tag already points at this content; nothing was pushed.
    AlreadyPublished,
}

impl PushResult {
    pub(crate) fn name(self) -> &'static str {
        self.into()
    }
}

#[derive(Debug, Clone)]
pub(crate) struct PushReport {
    /// The URL without user info.
    pub(crate) remote: String,
    pub(crate) branch: String,
    pub(crate) tag: String,
    pub(crate) commit: String,
    pub(crate) tree: String,
    pub(crate) result: PushResult,
    /// Whether bundles went through git-lfs.
    pub(crate) lfs: bool,
    pub(crate) warnings: Vec<String>,
}

/// Author and committer of every publish commit: 2024-01-01T00:00:00Z, as the task commits.
const IDENTITY_NAME: &str = "mergeforge";
const IDENTITY_EMAIL: &str = "mergeforge@localhost";
const FIXED_DATE: &str = "1704067200 +0000";

/// Commits `folder` to `options.url` as described in the module docs.
pub(crate) fn push(folder: &Path, manifest: &Manifest, options: &PushOptions) -> Result<PushReport> {
    check_options(options)?;
    let remote = redact_url(&options.url);
    let url = transport_url(&options.url)?;
    let url = url.as_str();
    let tag = format!("v{}", manifest.version);
    let scratch = tempfile::Builder::new()
        .prefix("mergeforge-publish-")
        .tempdir()
        .context("creating a temporary git directory")?;
    let folder = folder.canonicalize().with_context(|| format!("reading {}", folder.display()))?;
    let git = Git { git_dir: scratch.path().join("repo.git"), work_tree: folder };
    git.init()?;
    let mut warnings = Vec::new();
    let lfs = lfs_available();
    if lfs {
        git.run(&["lfs", "install", "--local"], "git lfs install --local")?;
        // The Hub and local remotes have no LFS locking API; checking it only warns.
        git.run(&["config", "lfs.locksverify", "false"], "git config")?;
    } else if is_hub_url(&options.url) {
        bail!("git-lfs is not installed: the Hub stores *.bundle files through LFS; install git-lfs (https://git-lfs.com) and retry");
    } else {
        warnings.push("git-lfs is not installed: bundles are committed as plain git blobs".to_string());
    }

    let refs = git.remote_refs(url, &remote, &options.branch, &tag)?;
    git.fetch(url, &remote, &refs, &options.branch, &tag)?;
    git.run(&["add", "--all", "--force", "."], "git add")?;
    let tree = git.run(&["write-tree"], "git write-tree")?;

    let report = |commit: String, result: PushResult, warnings: Vec<String>| PushReport {
        remote: remote.clone(),
        branch: options.branch.clone(),
        tag: tag.clone(),
        commit,
        tree: tree.clone(),
        result,
        lfs,
        warnings,
    };
    if refs.tag.is_some() {
        let tagged = git.run(&["rev-parse", "refs/mergeforge/tag^{commit}"], "git rev-parse")?;
        let tagged_tree = git.run(&["rev-parse", "refs/mergeforge/tag^{tree}"], "git rev-parse")?;
        if tagged_tree == tree {
            return Ok(report(tagged, PushResult::AlreadyPublished, warnings));
        }
        bail!(
            "{remote}: tag {tag} already holds different content (commit {}); a published version never changes: publish a new version instead",
            short(&tagged)
        );
    }
    if refs.head.is_some() {
        let head = git.run(&["rev-parse", "refs/mergeforge/head^{commit}"], "git rev-parse")?;
        let head_tree = git.run(&["rev-parse", "refs/mergeforge/head^{tree}"], "git rev-parse")?;
        if head_tree == tree {
            git.push(url, &remote, &[format!("{head}:refs/tags/{tag}")])?;
            return Ok(report(head, PushResult::TaggedHead, warnings));
        }
    }
    let commit = git.commit(&tree, refs.head.is_some(), &commit_message(manifest))?;
    git.push(url, &remote, &[format!("{commit}:refs/heads/{}", options.branch), format!("{commit}:refs/tags/{tag}")])?;
    Ok(report(commit, PushResult::Pushed, warnings))
}

/// Checks the URL and branch without touching the network.
pub(crate) fn check_options(options: &PushOptions) -> Result<()> {
    check_url(&options.url)?;
    check_branch(&options.branch)
}

/// The commit message: names the dataset and version, with counts.
pub(crate) fn commit_message(manifest: &Manifest) -> String {
    let levels: Vec<String> = manifest.counts.by_level.iter().map(|(l, n)| format!("{} {n}", l.name())).collect();
    format!(
        "Publish {} {}\n\n{} tasks ({}), generated by {} {}.\n",
        manifest.dataset,
        manifest.version,
        manifest.counts.tasks,
        levels.join(", "),
        manifest.generator.name,
        manifest.generator.version
    )
}

/// Refuses URLs that carry a password or could be read as an option.
pub(crate) fn check_url(url: &str) -> Result<()> {
    if url.is_empty() || url.starts_with('-') {
        bail!("--push {url:?}: not a git URL");
    }
    if let Some(userinfo) = url_userinfo(url) {
        if userinfo.contains(':') {
            bail!(
                "--push: the URL carries a password or token; remove it and let git's credential helper supply it (git config credential.helper)"
            );
        }
    }
    Ok(())
}

fn check_branch(branch: &str) -> Result<()> {
    let ok = !branch.is_empty()
        && !branch.starts_with(['-', '/', '.'])
        && !branch.ends_with(['/', '.'])
        && !branch.contains("..")
        && branch.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
    if !ok {
        bail!("--branch {branch:?}: not a usable branch name");
    }
    Ok(())
}

/// The URL git is given: a local path becomes a `file://` URL (git-lfs cannot push to
/// a plain path); URLs and scp-like `host:path` pass through.
fn transport_url(url: &str) -> Result<String> {
    if url.contains("://") {
        return Ok(url.to_string());
    }
    let scp_like = match (url.find(':'), url.find('/')) {
        (Some(colon), Some(slash)) => colon < slash,
        (Some(_), None) => true,
        _ => false,
    };
    if scp_like {
        return Ok(url.to_string());
    }
    let path = Path::new(url)
        .canonicalize()
        .with_context(|| format!("--push {url}: no such repository; create it first (git init --bare {url})"))?;
    Ok(format!("file://{}", path.display()))
}

/// The `user[:password]` part of `scheme://user[:password]@host/...`.
fn url_userinfo(url: &str) -> Option<&str> {
    let rest = &url[url.find("://")? + 3..];
    let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
    authority.rfind('@').map(|at| &authority[..at])
}

/// The URL with any user info removed, for messages and reports.
pub(crate) fn redact_url(url: &str) -> String {
    match (url.find("://"), url_userinfo(url)) {
        (Some(scheme_end), Some(userinfo)) => {
            let start = scheme_end + 3;
            format!("{}{}", &url[..start], &url[start + userinfo.len() + 1..])
        }
        _ => url.to_string(),
    }
}

fn is_hub_url(url: &str) -> bool {
    url.contains("huggingface.co") || url.contains("hf.co")
}

fn lfs_available() -> bool {
    Command::new("git").args(["lfs", "version"]).output().map(|o| o.status.success()).unwrap_or(false)
}

fn short(id: &str) -> &str {
    &id[..id.len().min(12)]
}

/// What the remote has.
struct RemoteRefs {
    head: Option<String>,
    tag: Option<String>,
}

/// Runs git with a private git directory and the published folder as work tree.
struct Git {
    git_dir: PathBuf,
    work_tree: PathBuf,
}

impl Git {
    fn command(&self) -> Command {
        let mut command = Command::new("git");
        command
            .arg(format!("--git-dir={}", self.git_dir.display()))
            .arg(format!("--work-tree={}", self.work_tree.display()))
            .args(["-c", "core.autocrlf=false", "-c", "core.safecrlf=false", "-c", "commit.gpgSign=false"])
            .current_dir(&self.work_tree)
            .env("GIT_TERMINAL_PROMPT", "0")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_OBJECT_DIRECTORY")
            .env_remove("GIT_ALTERNATE_OBJECT_DIRECTORIES");
        command
    }

    fn output(&self, args: &[&str]) -> Result<Output> {
        self.command().args(args).output().context("running git: is it installed and on PATH?")
    }

    /// Runs git; the trimmed stdout, or an error with git's last message.
    fn run(&self, args: &[&str], what: &str) -> Result<String> {
        let output = self.output(args)?;
        if !output.status.success() {
            bail!("{what} failed: {}", last_message(&output));
        }
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
    }

    fn init(&self) -> Result<()> {
        let output = Command::new("git")
            .args(["init", "--quiet", "--bare"])
            .arg(&self.git_dir)
            .env_remove("GIT_DIR")
            .output()
            .context("running git: is it installed and on PATH?")?;
        if !output.status.success() {
            bail!("git init failed: {}", last_message(&output));
        }
        // A bare directory with an explicit work tree: git add and write-tree work.
        self.run(&["config", "core.bare", "false"], "git config")?;
        Ok(())
    }

    fn remote_refs(&self, url: &str, remote: &str, branch: &str, tag: &str) -> Result<RemoteRefs> {
        let head_ref = format!("refs/heads/{branch}");
        let tag_ref = format!("refs/tags/{tag}");
        let output = self.output(&["ls-remote", url, &head_ref, &tag_ref])?;
        if !output.status.success() {
            bail!(
                "{remote}: cannot read the remote ({}); check the URL, that the repository exists, and git's credentials",
                last_message(&output)
            );
        }
        let mut refs = RemoteRefs { head: None, tag: None };
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            let Some((id, name)) = line.split_once('\t') else { continue };
            if name == head_ref {
                refs.head = Some(id.to_string());
            } else if name == tag_ref {
                refs.tag = Some(id.to_string());
            }
        }
        Ok(refs)
    }

    /// Fetches the branch head and the tag that exist (their last commit only).
    fn fetch(&self, url: &str, remote: &str, refs: &RemoteRefs, branch: &str, tag: &str) -> Result<()> {
        let mut refspecs = Vec::new();
        if refs.head.is_some() {
            refspecs.push(format!("+refs/heads/{branch}:refs/mergeforge/head"));
        }
        if refs.tag.is_some() {
            refspecs.push(format!("+refs/tags/{tag}:refs/mergeforge/tag"));
        }
        if refspecs.is_empty() {
            return Ok(());
        }
        let mut args = vec!["fetch", "--quiet", "--no-tags", "--depth=1", url];
        args.extend(refspecs.iter().map(String::as_str));
        let output =
            self.command().env("GIT_LFS_SKIP_SMUDGE", "1").args(&args).output().context("running git fetch")?;
        if !output.status.success() {
            bail!("{remote}: fetching {branch} and {tag} failed: {}", last_message(&output));
        }
        Ok(())
    }

    fn commit(&self, tree: &str, has_parent: bool, message: &str) -> Result<String> {
        let mut args = vec!["commit-tree", tree, "--no-gpg-sign", "-m", message];
        if has_parent {
            args.extend(["-p", "refs/mergeforge/head"]);
        }
        let output = self
            .command()
            .args(&args)
            .env("GIT_AUTHOR_NAME", IDENTITY_NAME)
            .env("GIT_AUTHOR_EMAIL", IDENTITY_EMAIL)
            .env("GIT_AUTHOR_DATE", FIXED_DATE)
            .env("GIT_COMMITTER_NAME", IDENTITY_NAME)
            .env("GIT_COMMITTER_EMAIL", IDENTITY_EMAIL)
            .env("GIT_COMMITTER_DATE", FIXED_DATE)
            .output()
            .context("running git commit-tree")?;
        if !output.status.success() {
            bail!("git commit-tree failed: {}", last_message(&output));
        }
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
    }

    fn push(&self, url: &str, remote: &str, refspecs: &[String]) -> Result<()> {
        let mut args = vec!["push", "--quiet", url];
        args.extend(refspecs.iter().map(String::as_str));
        let output = self.output(&args)?;
        if !output.status.success() {
            bail!(
                "{remote}: push failed ({}); check write access and git's credentials (credentials come from git's configuration, never from flags)",
                last_message(&output)
            );
        }
        Ok(())
    }
}

/// The last non-empty line git printed on stderr (or stdout).
fn last_message(output: &Output) -> String {
    let last = |bytes: &[u8]| {
        String::from_utf8_lossy(bytes).lines().map(str::trim).rfind(|l| !l.is_empty()).map(str::to_string)
    };
    last(&output.stderr).or_else(|| last(&output.stdout)).unwrap_or_else(|| format!("exit status {}", output.status))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_with_passwords_are_refused_and_user_info_hidden() {
        assert!(check_url("https://user:hf_secret@huggingface.co/datasets/a/b").is_err());
        assert!(check_url("--upload-pack=evil").is_err());
        assert!(check_url("https://huggingface.co/datasets/a/b").is_ok());
        assert!(check_url("git@hf.co:datasets/a/b").is_ok());
        assert_eq!(redact_url("https://someone@huggingface.co/datasets/a/b"), "https://huggingface.co/datasets/a/b");
        assert_eq!(redact_url("/tmp/x.git"), "/tmp/x.git");
    }
}
