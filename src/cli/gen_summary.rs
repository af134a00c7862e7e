//! What `gen-tasks` (and `merge-shards`, which makes the same version) prints about a
//! run: the `--json` report and the summary a person reads.

use serde_json::json;

use crate::bundle::dataset::WriteResult;
use crate::bundle::manifest::{Ladder, MissingReason};
use crate::difficulty::Level;
use crate::forge::Family;
use crate::pipeline::GenReport;
use crate::pytest::confirm::Confirmation;
use crate::substrate::history::HistoryCounts;

pub(crate) fn report_json(report: &GenReport) -> serde_json::Value {
    json!({
        "version_dir": report.version_dir,
        "result": match report.write { WriteResult::Created => "created", WriteResult::Reproduced => "reproduced" },
        "tasks": report.manifest.counts.tasks,
        "by_level": report.manifest.counts.by_level,
        "by_family": report.manifest.counts.by_family,
        "by_conflict_kind": report.manifest.counts.by_conflict_kind,
        "by_scale": report.manifest.counts.by_scale,
        "levels_by_family": report.stats.levels,
        "ladder": report.manifest.ladder,
        "by_substrate": report.manifest.substrates.iter().map(|s| (s.name.clone(), s.tasks)).collect::<std::collections::BTreeMap<_, _>>(),
        "candidates_tried": report.stats.candidates_tried,
        "kept": report.stats.kept,
        "rejected": report.stats.rejected,
        "sites": report.stats.sites,
        "shortfall": report.stats.shortfall.iter().map(|s| json!({"quota": s.cell.to_string(), "wanted": s.wanted, "kept": s.kept})).collect::<Vec<_>>(),
        "repeated_intent_cells": report.stats.repeated.iter().map(|(substrate, c)| json!({"substrate": substrate, "family": c.family.name(), "wanted": c.wanted, "kept": c.kept, "repeated": c.repeated})).collect::<Vec<_>>(),
        "skipped_substrates": report.stats.skipped_substrates.iter().map(|(n, r)| json!({"substrate": n, "reason": r})).collect::<Vec<_>>(),
        "seconds": (report.elapsed.as_secs_f64() * 10.0).round() / 10.0,
        "test_runs": report.stats.runs.test_runs,
        "test_seconds": (report.stats.runs.test_time.as_secs_f64() * 10.0).round() / 10.0,
        "test_cases": report.stats.runs.test_cases,
        "test_runs_on_fork_servers": report.stats.runs.served_runs,
        "fork_servers_started": report.stats.runs.servers_started,
        "confirmations": report.stats.runs.confirmations,
        "flaky_tests": report.stats.flaky_tests,
        "history": report.stats.history,
        "agent_rung": report.stats.agent_rung,
        "stage_seconds": report.stats.timings,
    })
}

pub(crate) fn print_summary(report: &GenReport) {
    let counts = &report.manifest.counts;
    let verb = match report.write {
        WriteResult::Created => "wrote",
        WriteResult::Reproduced => "reproduced (identical bytes already there)",
    };
    println!("{verb} {} tasks to {}", counts.tasks, report.version_dir.display());
    println!("{}", ladder_line(&report.manifest.ladder));
    let kinds: Vec<String> = counts.by_conflict_kind.iter().map(|(k, n)| format!("{} {n}", k.name())).collect();
    let scales: Vec<String> = counts.by_scale.iter().map(|(s, n)| format!("{s} {n}")).collect();
    println!("conflict kinds: {}; scales: {}", kinds.join(", "), scales.join(", "));
    if !report.stats.sites.is_empty() {
        let sites: Vec<String> = report.stats.sites.iter().map(|(kind, n)| format!("{kind} {n}")).collect();
        println!("intent sites at HEAD: {}", sites.join(", "));
    }
    println!();
    let levels = Level::ALL;
    print!("{:<20}", "family");
    for level in levels {
        print!("{:>8}", level.name());
    }
    println!("{:>8}", "total");
    let mut no_hard = Vec::new();
    for family in Family::ALL {
        let mut row = [0usize; 3];
        for task in report.manifest.tasks.iter().filter(|t| t.family == family) {
            row[levels.iter().position(|l| *l == task.level).unwrap_or(0)] += 1;
        }
        print!("{:<20}", family.name());
        for n in row {
            print!("{n:>8}");
        }
        print!("{:>8}", row.iter().sum::<usize>());
        if let Some(solved) = report.stats.levels.family(family).filter(|f| !f.medium_solved_by.is_empty()) {
            let solved: Vec<String> = solved.medium_solved_by.iter().map(|(key, n)| format!("{key} {n}")).collect();
            print!("   medium solved by {}", solved.join(", "));
        }
        println!();
        let [_, _, hard] = row;
        if hard == 0 && row.iter().sum::<usize>() > 0 {
            no_hard.push(family.name());
        }
    }
    print!("{:<20}", "all");
    for level in levels {
        print!("{:>8}", counts.by_level.get(&level).copied().unwrap_or(0));
    }
    println!("{:>8}", counts.tasks);
    if !no_hard.is_empty() {
        println!("no hard task from: {}", no_hard.join(", "));
    }
    println!();
    for s in &report.manifest.substrates {
        println!("substrate {:<16} {:>4} tasks", s.name, s.tasks);
    }
    println!();
    println!(
        "candidates tried {}, kept {}, rejected {}",
        report.stats.candidates_tried,
        report.stats.kept,
        report.stats.rejected.values().sum::<usize>()
    );
    for (reason, n) in &report.stats.rejected {
        println!("  rejected {reason:<22} {n}");
    }
    for s in &report.stats.shortfall {
        println!("quota {} not met: kept {} of {} (candidates exhausted)", s.cell, s.kept, s.wanted);
    }
    for (substrate, c) in &report.stats.repeated {
        println!(
            "cell {substrate}/{} kept {} of {}: {} candidates repeated an intent of kept tasks",
            c.family.name(),
            c.kept,
            c.wanted,
            c.repeated
        );
    }
    for (name, reason) in &report.stats.skipped_substrates {
        println!("skipped substrate {name}: {reason}");
    }
    print_history(&report.stats.history);
    let t = &report.stats.timings;
    println!(
        "stages: prepare {:.1}s, history {:.1}s, forge {:.1}s, judge {:.1}s",
        t.prepare.as_secs_f64(),
        t.history.as_secs_f64(),
        t.forge.as_secs_f64(),
        t.judge.as_secs_f64()
    );
    println!(
        "time {:.1}s ({} test runs, {} on {} fork servers, {} test cases, {:.1}s in tests)",
        report.elapsed.as_secs_f64(),
        report.stats.runs.test_runs,
        report.stats.runs.served_runs,
        report.stats.runs.servers_started,
        report.stats.runs.test_cases,
        report.stats.runs.test_time.as_secs_f64()
    );
    let confirmations = &report.stats.runs.confirmations;
    if confirmations.total() + confirmations.files_run_alone > 0 {
        let kinds: Vec<String> = Confirmation::ALL
            .iter()
            .filter(|k| confirmations.of(**k) > 0)
            .map(|k| format!("{} {}", confirmations.of(*k), k.name()))
            .collect();
        println!(
            "confirmations {} ({}), {} overturned, {:.1}s; {} test files run alone, {:.1}s",
            confirmations.total(),
            kinds.join(", "),
            confirmations.overturned,
            confirmations.time.as_secs_f64(),
            confirmations.files_run_alone,
            confirmations.alone_time.as_secs_f64()
        );
    }
    for (substrate, ids) in &report.stats.flaky_tests {
        println!("flaky tests of {substrate} (candidates resting on them dropped): {}", ids.join(", "));
    }
}

/// What the history scans found: commits looked at, candidates, skips by reason.
fn print_history(history: &HistoryCounts) {
    if history.considered == 0 {
        return;
    }
    println!(
        "history: {} commits read, {} replayable merges, {} commits with code and tests, {} skipped",
        history.considered,
        history.merges,
        history.commits,
        history.skipped.values().sum::<usize>()
    );
    for (reason, n) in history.skipped.iter().filter(|(_, n)| **n > 0) {
        println!("  skipped {reason:<22} {n}");
    }
    let listed = |counts: &std::collections::BTreeMap<String, usize>| {
        let mut versions: Vec<(&String, &usize)> = counts.iter().collect();
        versions.sort_by_key(|(v, _)| crate::substrate::detect::interpreter::parse_version(v));
        versions.iter().map(|(v, n)| format!("Python {v} {n}")).collect::<Vec<_>>().join(", ")
    };
    if !history.interpreters.is_empty() {
        println!("  interpreters (by each commit's era): {}", listed(&history.interpreters));
    }
    if !history.not_installed.is_empty() {
        println!(
            "  wanted but not installed: {} (those commits ran on the nearest installed, or were skipped as no-interpreter)",
            listed(&history.not_installed)
        );
    }
}

/// One line on the ladder that levelled a version: complete, with its tools' versions,
/// or plainly incomplete, naming the rungs left out.
pub(crate) fn ladder_line(ladder: &Ladder) -> String {
    let t = &ladder.tools;
    let mergiraf = t.mergiraf.as_deref().unwrap_or("no mergiraf");
    let tools = format!("{mergiraf}, libgit2 {}, {}, pytest {}", t.libgit2, t.python, t.pytest);
    if ladder.complete {
        return format!("ladder: complete ({tools})");
    }
    let missing: Vec<String> = ladder
        .missing
        .iter()
        .map(|m| match m.reason {
            MissingReason::Skipped => format!("{} skipped (--no-mergiraf)", m.resolver),
            MissingReason::NotFound => format!("{} not found", m.resolver),
        })
        .collect();
    format!(
        "ladder: INCOMPLETE, {}: a task a missing rung would solve may be levelled too high ({tools})",
        missing.join(", ")
    )
}
