//! What the `run` tool and the graded test command may read: only their own episode
//! (plus the system's folders and the interpreter), checked through the official
//! OpenEnv client on two live episodes; and a host without Landlock refusing `run`
//! unless `--allow-unconfined-run` (Landlock turned off with `MERGEFORGE_LANDLOCK=off`).

use crate::env_server::{assert_error, connect, exchange, run_openenv_client, step, Server};
use serde_json::json;

const TASK: &str = "calculator-c80129ecf3";

#[test]
fn run_reads_neither_the_dataset_nor_another_episode() {
    let server = Server::start(&["--max-steps", "30"]);
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let stdout = run_openenv_client("confine_client.py", &server, &[TASK, &home]);
    for line in ["denied: cat ", "solution.json", "allowed: ", "gold in A: solved"] {
        assert!(stdout.contains(line), "{line:?} missing from:\n{stdout}");
    }
}

#[tokio::test]
async fn without_landlock_run_is_refused_unless_allowed() {
    let reset = json!({"type": "reset", "data": {"task_id": TASK}}).to_string();
    let refusing = Server::start_with_env(&[], &[("MERGEFORGE_LANDLOCK", "off")]);
    let mut ws = connect(&refusing).await;
    assert_eq!(exchange(&mut ws, reset.clone()).await["type"], "observation");
    let refused = step(&mut ws, json!({"tool": "run", "command": "echo hi"})).await;
    assert_error(&refused, "VALIDATION_ERROR", "--allow-unconfined-run");
    // The episode goes on: the other tools still work.
    let read = step(&mut ws, json!({"tool": "read_file", "path": "calculator.py"})).await;
    assert_eq!(read["type"], "observation", "{read}");

    let allowing = Server::start_with_env(&["--allow-unconfined-run"], &[("MERGEFORGE_LANDLOCK", "off")]);
    let mut ws = connect(&allowing).await;
    assert_eq!(exchange(&mut ws, reset).await["type"], "observation");
    let ran = step(&mut ws, json!({"tool": "run", "command": "echo hi"})).await;
    assert_eq!(ran["data"]["observation"]["last_output"], "exit 0\nhi\n", "{ran}");
}
