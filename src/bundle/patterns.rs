//! The patterns the record schemas give their string fields (ids, commits, digests,
//! paths, dataset names, versions). The record types name them in `#[schemars(pattern)]`;
//! they live apart from the schema writer ([`super::schemas`]) that reads those types.

/// A task id: `<substrate>-<10 hex>`.
pub(crate) const TASK_ID: &str = "^[a-z0-9_-]+-[0-9a-f]{10}$";
/// A git commit id (sha1, lowercase hex).
pub(crate) const COMMIT_ID: &str = "^[0-9a-f]{40}$";
/// A sha256 digest (lowercase hex).
pub(crate) const SHA256: &str = "^[0-9a-f]{64}$";
/// A repository-relative path.
pub(crate) const PATH: &str = "^[^/]";
/// A dataset name: a plain folder name.
pub(crate) const DATASET: &str = r"^[^./\\][^/\\]*$";
/// Semantic versioning 2.0.0.
pub(crate) const SEMVER: &str = r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-((0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*))?(\+([0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*))?$";
