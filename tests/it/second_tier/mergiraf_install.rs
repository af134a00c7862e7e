//! The real mergiraf install: with no mergiraf on PATH and an empty user cache,
//! `gen-tasks` builds the pinned release with the machine's own `cargo` into the cache,
//! and the binary it leaves runs. The first tier checks the same install logic against a
//! stand-in `cargo` (`mergiraf_rung::gen_tasks_installs_mergiraf_with_cargo_once_when_none_is_found`).
//!
//! cargo builds in a target folder kept in the user cache
//! (`~/.cache/mergeforge/cargo-target/mergiraf`, through `CARGO_TARGET_DIR`, which the
//! install honours as `cargo install` does): the first run compiles mergiraf (about four
//! minutes on 2 cores), later ones reuse the build and still install into an empty cache.

use std::process::Command;

use mergeforge::resolve::mergiraf::install::{install_root, PINNED};

use crate::mergiraf_rung::{error_line, gen_tasks_nowhere_command, path_without_mergiraf, stderr};

#[test]
#[ignore = "second tier: builds mergiraf with cargo install (minutes)"]
fn gen_tasks_installs_the_pinned_mergiraf_with_the_real_cargo() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    let path = path_without_mergiraf(None);
    let target = mergeforge::pytest::venv::user_cache_dir().join("cargo-target").join("mergiraf");
    let output = gen_tasks_nowhere_command(&path, &cache).env("CARGO_TARGET_DIR", &target).output().unwrap();
    let text = stderr(&output);
    assert!(text.contains(&format!("installed mergiraf {PINNED}")), "{text}");
    assert!(error_line(&text).contains("no usable substrate"), "the install succeeded, then the run stopped: {text}");
    let binary = install_root(&cache).join("bin/mergiraf");
    let version = Command::new(&binary).arg("--version").output().unwrap();
    let version = String::from_utf8_lossy(&version.stdout);
    assert!(version.contains(PINNED), "{} --version: {version}", binary.display());
    let log = std::fs::read_to_string(cache.join(format!("tools/mergiraf-{PINNED}.log"))).unwrap();
    assert!(log.contains(&format!("Installed package `mergiraf v{PINNED}`")), "cargo's log: {log}");
}
