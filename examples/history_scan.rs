//! Measures the merge-replay history walk on a real repository:
//! `cargo run --release --example history_scan -- REPO N` prints how many of the last N
//! merge commits of REPO's HEAD are replayable, the skip counts by reason, each
//! replayable merge with its conflicted files, and the wall time (git only).
//! `-- REPO N "python -m pytest -q tests" dep1,dep2` also runs each replayable merge's
//! test check in the sandbox (a venv with those packages) and prints its verdicts.

use std::time::{Duration, Instant};

use mergeforge::pytest::testrun::TestRunner;
use mergeforge::pytest::venv::{ensure_venv, user_cache_dir};
use mergeforge::substrate::history::{scan_merges, verify};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(repo), Some(limit)) = (args.next(), args.next()) else {
        anyhow::bail!("usage: history_scan REPO N");
    };
    let repo = git2::Repository::open(&repo)?;
    let started = Instant::now();
    let scan = scan_merges(&repo, limit.parse()?)?;
    println!(
        "merges considered {}, replayable {}, {:.1}s",
        scan.considered,
        scan.merges.len(),
        started.elapsed().as_secs_f64()
    );
    for (reason, count) in scan.skip_counts() {
        println!("  skipped {:<22} {count}", <&str>::from(reason));
    }
    for replay in &scan.merges {
        let python: Vec<String> = replay
            .files
            .iter()
            .filter(|f| f.path.ends_with(".py"))
            .map(|f| format!("{} ({} hunks)", f.path, f.hunks))
            .collect();
        println!("{} {}: {}", &replay.merge.to_string()[..10], replay.summary, python.join(", "));
    }
    let Some(command) = args.next() else { return Ok(()) };
    let command: Vec<String> = command.split_whitespace().map(String::from).collect();
    let deps: Vec<String> = args.next().map(|d| d.split(',').map(String::from).collect()).unwrap_or_default();
    let python = ensure_venv(&user_cache_dir(), &deps)?;
    let runner = TestRunner::new(&command, &Default::default(), Duration::from_secs(300), &python, None);
    let passes = |tree: &mergeforge::snapshot::Snapshot| Ok(runner.run_full(tree)?.passed);
    for replay in &scan.merges {
        let started = Instant::now();
        let verdict = verify(&repo, replay, &passes)?;
        println!("{} {verdict:?} ({:.0}s)", &replay.merge.to_string()[..10], started.elapsed().as_secs_f64());
    }
    Ok(())
}
