//! `mergeforge bench` end to end on a tiny embedded substrate: every figure is present
//! and sane (no timing thresholds: the machine's speed is not under test).

use crate::common::*;

fn number(value: &serde_json::Value, key: &str) -> f64 {
    value[key].as_f64().unwrap_or_else(|| panic!("{key} is not a number in {value:#}"))
}

#[test]
fn bench_reports_both_modes_merges_and_memory() {
    let output = run_mergeforge(&[
        "bench",
        "--substrate",
        "substrates/calculator",
        "--families",
        "strip-restore",
        "--per-cell",
        "1",
        "--candidates-per-cell",
        "2",
        "--json",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "bench failed: {stderr}");
    assert!(stderr.contains("bench: gen-tasks --selection full"), "no progress on stderr: {stderr}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("--json prints JSON");

    assert_eq!(report["substrates"], serde_json::json!(["calculator"]));
    assert_eq!(report["jobs"], 1);
    let modes = report["modes"].as_array().expect("modes");
    let names: Vec<&str> = modes.iter().map(|m| m["selection"].as_str().unwrap()).collect();
    assert_eq!(names, ["coverage", "full"]);
    for mode in modes {
        assert!(number(mode, "tasks") >= 1.0, "{mode:#}");
        assert!(number(mode, "candidates_tried") >= number(mode, "tasks"), "{mode:#}");
        assert!(number(mode, "test_runs") >= 1.0, "{mode:#}");
        assert!(number(mode, "cpu_seconds") > 0.0, "{mode:#}");
        assert!(number(mode, "tasks_per_cpu_minute") > 0.0, "{mode:#}");
        let share = number(mode, "share_outside_tests");
        assert!((0.0..=1.0).contains(&share), "{mode:#}");
        assert!(number(mode, "test_seconds") <= number(mode, "wall_seconds"), "{mode:#}");
    }
    assert_eq!(modes[0]["tasks"], modes[1]["tasks"]);
    // Selected runs go to fork servers; `--selection full` never uses one.
    assert!(number(&modes[0], "served_runs") >= 1.0, "{:#}", modes[0]);
    assert_eq!(modes[1]["served_runs"], 0, "{:#}", modes[1]);
    assert_eq!(report["identical_verdicts"], true, "{:#}", report["differences"]);
    assert_eq!(report["differences"], serde_json::json!([]));
    assert!(number(&report, "selection_speedup") > 0.0);
    let share = number(&report, "share_outside_tests");
    assert!((0.0..=1.0).contains(&share));

    let merges = &report["merges"];
    assert!(number(merges, "pairs") >= 1.0, "{merges:#}");
    assert_eq!(merges["agreeing"], merges["pairs"], "git and git2 disagree on conflicts: {merges:#}");
    assert!(number(merges, "git2_per_second") > 0.0);
    assert!(number(merges, "git_cli_per_second") > 0.0);
    assert!(number(merges, "ratio") > 0.0);

    assert!(number(&report["peak_memory"], "self_kib") > 0.0);
    assert!(number(&report["peak_memory"], "children_kib") > 0.0);
}

#[test]
fn bench_without_a_substrate_says_what_to_pass() {
    let output = run_mergeforge(&["bench", "--json"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--substrate"), "{stderr}");
}

mod second_tier {
    use super::*;

    /// `bench env` on the sample, small: both reset paths measured through the OpenEnv
    /// client, every session solved, no error, no cross-talk (no timing thresholds).
    #[test]
    #[ignore = "second tier: measures the environment's two reset paths (a minute)"]
    fn bench_env_measures_both_reset_paths() {
        let output = run_mergeforge(&["bench", "env", "--sessions", "4", "--resets", "5", "--tasks", "3", "--json"]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "bench env failed: {stderr}");
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("--json prints JSON");
        assert!(report["client"].as_str().unwrap().starts_with("openenv-core "), "{report:#}");
        let paths = report["paths"].as_array().expect("paths");
        let names: Vec<&str> = paths.iter().map(|p| p["reset_path"].as_str().unwrap()).collect();
        assert_eq!(names, ["template", "clone"]);
        let tasks = number(&report, "tasks");
        assert_eq!(tasks, 3.0);
        for run in paths {
            assert_eq!(number(&run["first"], "count"), tasks, "{run:#}");
            assert_eq!(number(&run["sequential"], "count"), 5.0, "{run:#}");
            assert_eq!(number(&run["concurrent"], "count"), 4.0, "{run:#}");
            for part in ["first", "sequential", "concurrent"] {
                let latency = &run[part];
                assert!(number(latency, "p50_ms") > 0.0 && number(latency, "p50_ms") <= number(latency, "p95_ms"));
            }
            assert_eq!((run["solved"].as_u64(), run["crosstalk"].as_u64()), (Some(4), Some(0)), "{run:#}");
            assert_eq!(run["errors"], serde_json::json!([]), "{run:#}");
            assert!(number(run, "server_peak_rss_kib") > 0.0, "{run:#}");
        }
        assert!(number(&report["ratios"], "sequential_p50") > 0.0, "{report:#}");
    }
}
