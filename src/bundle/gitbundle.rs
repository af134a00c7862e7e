//! Writes plain `git bundle`s (v2), byte for byte reproducible: objects are packed
//! whole (no deltas) in object-id order. A task has two: `repo.bundle` with base, ours
//! and theirs (nothing of gold), and `solution.bundle` with gold alone, whose
//! prerequisites are ours and theirs (`git fetch ../solution.bundle gold` in a clone of
//! `repo.bundle`).
//!
//! libgit2 cannot write bundles, and `git bundle create` output depends on the installed
//! git's delta search; writing the documented format directly keeps bundles identical
//! across machines. `git bundle verify` and `git clone` read them (tests check it).

use std::collections::BTreeSet;
use std::io::Write;

use anyhow::{Context, Result};
use flate2::write::ZlibEncoder;
use flate2::Compression;
use git2::{ObjectType, Oid, Repository};
use sha1::{Digest, Sha1};

use crate::forge::commits::TaskCommits;

/// The branches of `repo.bundle`, in order: the task as an agent gets it.
pub(crate) fn repo_refs(commits: &TaskCommits) -> Vec<(&'static str, Oid)> {
    vec![("refs/heads/base", commits.base), ("refs/heads/ours", commits.ours), ("refs/heads/theirs", commits.theirs)]
}

/// `repo.bundle`: branches base, ours and theirs, HEAD at ours.
pub(crate) fn repo_bundle(repo: &Repository, commits: &TaskCommits) -> Result<Vec<u8>> {
    write_bundle(repo, &[], &repo_refs(commits), Some(commits.ours))
}

/// `solution.bundle`: branch gold, with ours and theirs as prerequisites (only the
/// objects they do not reach are packed).
pub(crate) fn solution_bundle(repo: &Repository, commits: &TaskCommits) -> Result<Vec<u8>> {
    write_bundle(repo, &[commits.ours, commits.theirs], &[("refs/heads/gold", commits.gold)], None)
}

/// The bundle bytes for `refs` (HEAD points at `head` when given), packing what the
/// refs reach and the `prerequisites` do not.
pub(crate) fn write_bundle(
    repo: &Repository,
    prerequisites: &[Oid],
    refs: &[(&str, Oid)],
    head: Option<Oid>,
) -> Result<Vec<u8>> {
    let mut out = b"# v2 git bundle\n".to_vec();
    for oid in prerequisites {
        let commit = repo.find_commit(*oid).with_context(|| format!("reading commit {oid}"))?;
        let summary = String::from_utf8_lossy(commit.summary_bytes().unwrap_or_default()).into_owned();
        out.extend_from_slice(format!("-{oid} {summary}\n").as_bytes());
    }
    if let Some(head) = head {
        out.extend_from_slice(format!("{head} HEAD\n").as_bytes());
    }
    for (name, oid) in refs {
        out.extend_from_slice(format!("{oid} {name}\n").as_bytes());
    }
    out.push(b'\n');
    let known = reachable_objects(repo, prerequisites.iter().copied())?;
    let mut objects = reachable_objects(repo, refs.iter().map(|(_, oid)| *oid))?;
    objects.retain(|oid| !known.contains(oid));
    out.extend_from_slice(&write_pack(repo, &objects)?);
    Ok(out)
}

fn reachable_objects(repo: &Repository, tips: impl Iterator<Item = Oid>) -> Result<BTreeSet<Oid>> {
    let mut seen = BTreeSet::new();
    let mut pending: Vec<Oid> = tips.collect();
    while let Some(oid) = pending.pop() {
        if !seen.insert(oid) {
            continue;
        }
        let object = repo.find_object(oid, None)?;
        match object.kind() {
            Some(ObjectType::Commit) => {
                let commit = object.peel_to_commit()?;
                pending.push(commit.tree_id());
                pending.extend(commit.parent_ids());
            }
            Some(ObjectType::Tree) => {
                let tree = object.peel_to_tree()?;
                pending.extend(tree.iter().map(|entry| entry.id()));
            }
            _ => {}
        }
    }
    Ok(seen)
}

fn write_pack(repo: &Repository, objects: &BTreeSet<Oid>) -> Result<Vec<u8>> {
    let odb = repo.odb()?;
    let mut pack = Vec::new();
    pack.extend_from_slice(b"PACK");
    pack.extend_from_slice(&2u32.to_be_bytes());
    pack.extend_from_slice(&(objects.len() as u32).to_be_bytes());
    for oid in objects {
        let object = odb.read(*oid).with_context(|| format!("reading object {oid}"))?;
        let type_code: u8 = match object.kind() {
            ObjectType::Commit => 1,
            ObjectType::Tree => 2,
            ObjectType::Blob => 3,
            ObjectType::Tag => 4,
            other => anyhow::bail!("object {oid} has unexpected type {other:?}"),
        };
        let data = object.data();
        pack.extend_from_slice(&entry_header(type_code, data.len()));
        let mut encoder = ZlibEncoder::new(Vec::new(), Compression::new(6));
        encoder.write_all(data)?;
        pack.extend_from_slice(&encoder.finish()?);
    }
    let checksum = Sha1::digest(&pack);
    pack.extend_from_slice(&checksum);
    Ok(pack)
}

/// Pack entry header: type in bits 4-6 of the first byte, size in 4 + 7n bits.
fn entry_header(type_code: u8, size: usize) -> Vec<u8> {
    let mut header = Vec::new();
    let mut byte = (type_code << 4) | (size & 0x0f) as u8;
    let mut rest = size >> 4;
    while rest > 0 {
        header.push(byte | 0x80);
        byte = (rest & 0x7f) as u8;
        rest >>= 7;
    }
    header.push(byte);
    header
}
