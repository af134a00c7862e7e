//! `CHANGELOG.md` of a refreshed version: this refresh's changes (by cell, then every
//! retired, frontier-hard, re-levelled and added task), followed by the parent's
//! changelog. Deterministic: everything is listed in a fixed order.

use std::fmt::Write;

use super::plan::{Plan, RefreshOptions, TaskChange};
use super::relevel::{
    EASY_RATE, FRONTIER_MIN_ATTEMPTS, HARD_RATE, RELEVEL_MIN_ATTEMPTS, RETIRE_MIN_ATTEMPTS, RETIRE_RATE,
};

/// The changelog text.
pub(crate) fn render(plan: &Plan, options: &RefreshOptions) -> String {
    let parent = &plan.parent.manifest;
    let c = &plan.changes;
    let mut out = String::new();
    let _ = writeln!(out, "# {} {}\n", parent.dataset, plan.version);
    let _ = writeln!(
        out,
        "Curriculum refresh of {} from `{}` (sha256 {}): {} attempts at {} tasks{}.",
        parent.version,
        file_name(&options.results),
        &plan.results_sha256[..16],
        c.attempts,
        c.tasks_attempted,
        if c.agents.is_empty() {
            String::new()
        } else {
            format!(" by {}", c.agents.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", "))
        }
    );
    let _ = writeln!(
        out,
        "Retired when solved ≥ {:.0}% over ≥ {RETIRE_MIN_ATTEMPTS} attempts; frontier-hard when never solved over ≥ {FRONTIER_MIN_ATTEMPTS}; \
         otherwise re-levelled from {RELEVEL_MIN_ATTEMPTS} attempts: easy ≥ {:.0}%, medium ≥ {:.0}%, hard below. \
         New tasks were generated with seed {}.\n",
        RETIRE_RATE * 100.0,
        EASY_RATE * 100.0,
        HARD_RATE * 100.0,
        plan.seed
    );
    let _ = writeln!(out, "## By cell\n");
    let _ = writeln!(out, "| family | level | before | retired | re-levelled out | re-levelled in | added | after |");
    let _ = writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|");
    for ((family, level), n) in &c.cells {
        let _ = writeln!(
            out,
            "| {family} | {level} | {} | {} | {} | {} | {} | {} |",
            n.before, n.retired, n.relevelled_out, n.relevelled_in, n.added, n.after
        );
    }
    out.push('\n');
    section(&mut out, "Retired", &c.retired, |t| {
        format!("{} ({}, {}), solved {}/{}", code(&t.id), t.family, t.from, t.successes, t.attempts)
    });
    section(&mut out, "Frontier-hard", &c.frontier_hard, |t| {
        format!("{} ({}, was {}), never solved in {} attempts", code(&t.id), t.family, t.from, t.attempts)
    });
    section(&mut out, "Re-levelled", &c.relevelled, |t| {
        format!("{} ({}): {} → {}, solved {}/{}", code(&t.id), t.family, t.from, t.to, t.successes, t.attempts)
    });
    section(&mut out, "Added", &c.added, |t| format!("{} ({}, {})", code(&t.id), t.family, t.to));
    if !c.shortfall.is_empty() {
        let _ = writeln!(out, "## Not refilled\n");
        for s in &c.shortfall {
            let _ = writeln!(out, "- {}: added {} of {} (candidates exhausted)", s.cell, s.kept, s.wanted);
        }
        out.push('\n');
    }
    if let Some(previous) = &plan.parent.changelog {
        out.push_str(previous);
    }
    out
}

fn section(out: &mut String, title: &str, tasks: &[TaskChange], line: impl Fn(&TaskChange) -> String) {
    let _ = writeln!(out, "## {title} ({})\n", tasks.len());
    if tasks.is_empty() {
        let _ = writeln!(out, "None.");
    }
    let mut sorted: Vec<&TaskChange> = tasks.iter().collect();
    sorted.sort_by(|a, b| a.id.cmp(&b.id));
    for task in sorted {
        let _ = writeln!(out, "- {}", line(task));
    }
    out.push('\n');
}

fn code(id: &str) -> String {
    format!("`{id}`")
}

fn file_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}
