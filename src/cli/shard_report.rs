//! What `gen-tasks --shard K/N` prints: a summary of the shard, or its JSON.

use serde_json::json;

use crate::bundle::dataset::WriteResult;
use crate::pipeline::shard::ShardReport;

pub(super) fn shard_json(report: &ShardReport) -> serde_json::Value {
    json!({
        "shard_dir": report.dir,
        "result": match report.write { WriteResult::Created => "created", WriteResult::Reproduced => "reproduced" },
        "shard": report.shard.index,
        "of": report.shard.count,
        "fingerprint": report.fingerprint,
        "positions": report.positions,
        "judged": report.judged,
        "kept": report.kept,
        "rejected": report.rejected,
        "skipped_substrates": report.skipped_substrates.iter().map(|(n, r)| json!({"substrate": n, "reason": r})).collect::<Vec<_>>(),
        "seconds": (report.elapsed.as_secs_f64() * 10.0).round() / 10.0,
    })
}

pub(super) fn print_shard_summary(report: &ShardReport) {
    let verb = match report.write {
        WriteResult::Created => "wrote",
        WriteResult::Reproduced => "reproduced (identical bytes already there)",
    };
    println!("{verb} shard {} to {}", report.shard, report.dir.display());
    println!(
        "judged {} of {} candidates, kept {}, rejected {} (run {})",
        report.judged,
        report.positions,
        report.kept,
        report.rejected.values().sum::<usize>(),
        &report.fingerprint[..12]
    );
    for (reason, n) in &report.rejected {
        println!("  rejected {reason:<22} {n}");
    }
    for (name, reason) in &report.skipped_substrates {
        println!("skipped substrate {name}: {reason}");
    }
    println!(
        "time {:.1}s; merge every shard with `mergeforge merge-shards OUT SHARD_DIR...`",
        report.elapsed.as_secs_f64()
    );
}
