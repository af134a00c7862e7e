//! The task browser and demo page of `mergeforge serve`, in a real browser: the real
//! binary serves the committed sample dataset on loopback, and headless Chromium
//! (driven over WebDriver by chromedriver, with the `fantoccini` client) filters the
//! list to the hard tasks, opens one with the keyboard, runs the `gold` agent and reads
//! the reward table, which must show the task's maximum reward. Screenshots of the list
//! and of the finished episode at 1280 px, and of the page at phone width (390 px), go
//! (and of the open task) go to `target/test-artifacts/web-demo/`.
//!
//! The browser test is second tier (`web_demo::second_tier::`); a first-tier test checks
//! the page and the JSON it reads, over HTTP, against the dataset's own records.
//!
//! Needs Debian's `chromium` and `chromium-driver` (`.ci/run` installs them).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

const SAMPLE: &str = "generated/mergeforge-embedded/1.0.0";
/// WebDriver's code for the Enter key.
const ENTER: &str = "\u{e007}";
const DESKTOP: (u32, u32) = (1280, 900);
const PHONE: (u32, u32) = (390, 844);

/// A child process stopped with SIGTERM (then SIGKILL) when dropped.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        // SAFETY: signalling our own child process.
        unsafe {
            libc::kill(self.0.id() as i32, libc::SIGTERM);
        }
        for _ in 0..100 {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `mergeforge serve` on a free loopback port; returns the process and `http://ADDR`.
fn start_server() -> (Process, String, BufReader<std::process::ChildStdout>) {
    let mut child = mergeforge()
        .args(["serve", "--dataset", SAMPLE, "--addr", "127.0.0.1:0", "--reveal-task-info"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("mergeforge serve starts");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
    let server = Process(child);
    let mut line = String::new();
    stdout.read_line(&mut line).expect("first stdout line");
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no bound address in {line:?}"))
        .to_string();
    (server, format!("http://{addr}"), stdout)
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| p.is_file())
}

/// Chromium and chromedriver, or a failure that says how to install them.
fn browser() -> (PathBuf, PathBuf) {
    match (on_path("chromium"), on_path("chromedriver")) {
        (Some(chromium), Some(driver)) => (chromium, driver),
        _ => panic!(
            "chromium and chromedriver are not on PATH: install them with `apt-get install -y chromium chromium-driver` (.ci/run does)"
        ),
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free loopback port").port()
}

/// chromedriver on a free loopback port, once it accepts connections.
fn start_driver(driver: &Path) -> (Process, u16) {
    let port = free_port();
    let child = Command::new(driver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: cannot start: {e}", driver.display()));
    let process = Process(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not listen on port {port} within 20 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    (process, port)
}

async fn connect(port: u16, chromium: &Path, profile: &Path) -> Client {
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--force-device-scale-factor=1",
    ]
    .iter()
    .map(|a| a.to_string())
    .chain([format!("--user-data-dir={}", profile.display()), format!("--window-size={},{}", DESKTOP.0, DESKTOP.1)])
    .collect::<Vec<_>>();
    let mut capabilities = serde_json::Map::new();
    capabilities.insert("goog:chromeOptions".into(), json!({"binary": chromium, "args": args}));
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("a chromium session through chromedriver")
}

async fn text_of(client: &Client, css: &str) -> String {
    client.find(Locator::Css(css)).await.unwrap_or_else(|e| panic!("{css}: {e}")).text().await.expect("element text")
}

/// Waits until `check` holds for the text of `css`.
async fn wait_text(client: &Client, css: &str, timeout: Duration, check: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + timeout;
    loop {
        if let Ok(element) = client.find(Locator::Css(css)).await {
            if let Ok(text) = element.text().await {
                if check(&text) {
                    return text;
                }
            }
        }
        assert!(Instant::now() < deadline, "{css}: not as expected within {timeout:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn screenshot(client: &Client, dir: &Path, name: &str) -> PathBuf {
    let png = client.screenshot().await.expect("screenshot");
    let path = dir.join(name);
    std::fs::write(&path, &png).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    path
}

async fn script(client: &Client, code: &str) -> Value {
    client.execute(code, vec![]).await.unwrap_or_else(|e| panic!("script {code:?}: {e}"))
}

/// Where the screenshots go: `<target>/test-artifacts/web-demo`.
fn artefacts() -> PathBuf {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("target dir").to_path_buf();
    let dir = target.join("test-artifacts").join("web-demo");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

/// The page in a real browser: second tier (`api_filters_counts_and_explains_tasks`, the
/// first tier's sibling, fetches what the page reads over HTTP).
mod second_tier {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore = "second tier: drives headless Chromium (Debian's chromium and chromium-driver)"]
    async fn gold_agent_reaches_the_maximum_reward_on_a_hard_task_in_chromium() {
        let started = Instant::now();
        let (chromium, driver) = browser();
        let manifest = read_json(&root().join(SAMPLE).join("manifest.json"));
        let total = manifest["tasks"].as_array().expect("manifest tasks").len();
        let hard = manifest["counts"]["by_level"]["hard"].as_u64().expect("hard count") as usize;
        let dir = artefacts();
        let (_server, base, _stdout) = start_server();
        let (_driver, port) = start_driver(&driver);
        let profile = tempfile::tempdir().expect("profile dir");
        let client = connect(port, &chromium, profile.path()).await;
        client.set_window_size(DESKTOP.0, DESKTOP.1).await.expect("desktop size");

        // The list, filtered to the hard tasks.
        client.goto(&format!("{base}/")).await.expect("open the page");
        wait_text(&client, "#list-count", Duration::from_secs(20), |t| t == format!("{total} of {total} tasks")).await;
        client
            .find(Locator::Css("#f-level"))
            .await
            .expect("level filter")
            .select_by_value("hard")
            .await
            .expect("pick hard");
        wait_text(&client, "#list-count", Duration::from_secs(10), |t| t == format!("{hard} of {total} tasks")).await;
        let links = client.find_all(Locator::Css(".task-link")).await.expect("task links");
        assert_eq!(links.len(), hard, "one link per hard task");
        let levels =
            script(&client, "return [...document.querySelectorAll('.task-link .badge')].map(b => b.textContent)").await;
        assert!(levels.as_array().is_some_and(|l| l.iter().all(|v| v == "hard")), "only hard tasks listed: {levels}");
        let option = text_of(&client, "#f-level option[value=hard]").await;
        assert_eq!(option, format!("hard ({hard})"), "the filter shows its count");
        let cleared = script(&client, "return document.querySelectorAll('.task-link[aria-current]').length").await;
        assert_eq!(cleared, json!(0), "no task is open yet");
        let list_png = screenshot(&client, &dir, "list-desktop.png").await;

        // Open, with the keyboard, the first hard task that has conflict markers (a semantic
        // task merges cleanly: its diff removes no marker).
        let mut opened = None;
        for link in &links {
            let id = link.attr("data-id").await.expect("data-id").expect("a task id");
            let task = read_json(&root().join(SAMPLE).join("tasks").join(&id).join("task.json"));
            let hunks: u64 =
                task["conflicts"].as_array().expect("conflicts").iter().filter_map(|c| c["hunks"].as_u64()).sum();
            if hunks > 0 {
                opened = Some((link, id, hunks));
                break;
            }
        }
        let (link, task_id, hunks) = opened.expect("a hard task with conflict markers in the sample");
        link.send_keys(ENTER).await.expect("Enter on the task link");
        wait_text(&client, "#task-title", Duration::from_secs(10), |t| t == task_id).await;
        let focused = script(&client, "return document.activeElement.id").await;
        assert_eq!(focused, json!("task-title"), "opening a task moves the focus to it");
        let blocks = script(&client, "return document.querySelectorAll('#task-detail .mk-ours').length").await;
        assert_eq!(blocks, json!(hunks), "every conflict block of the task is highlighted");
        let task_png = screenshot(&client, &dir, "task-desktop.png").await;

        // Run the gold agent (keyboard again) and read the reward table.
        client
            .find(Locator::Css("#agent"))
            .await
            .expect("agent choice")
            .select_by_value("gold")
            .await
            .expect("pick gold");
        client
            .find(Locator::Css("#run"))
            .await
            .expect("run button")
            .send_keys(ENTER)
            .await
            .expect("Enter on Run agent");
        let earned = wait_text(&client, "#reward-total", Duration::from_secs(60), |t| !t.is_empty()).await;
        let maximum = text_of(&client, "#reward-max").await;
        let earned: f64 = earned.parse().unwrap_or_else(|_| panic!("reward total {earned:?} is a number"));
        let maximum: f64 = maximum.parse().unwrap_or_else(|_| panic!("reward maximum {maximum:?} is a number"));
        let expected = mergeforge::env::reward::RewardWeights::default().max_reward(hunks as usize);
        assert_eq!(maximum, expected, "the page states the task's maximum (the default weights' max_reward)");
        assert_eq!(earned, maximum, "gold earns the maximum reward");
        let rows = script(
            &client,
            "return [...document.querySelectorAll('#reward-table tbody td.num')].map(c => Number(c.textContent))",
        )
        .await;
        let sum: f64 = rows.as_array().expect("reward rows").iter().filter_map(Value::as_f64).sum();
        assert!((sum - earned).abs() < 1e-9, "the components add up to the total: {rows}");
        let steps = script(&client, "return document.querySelectorAll('#run-result tbody tr').length").await;
        assert!(steps.as_u64().is_some_and(|n| n >= 1), "the step log lists the steps");
        let diff = text_of(&client, "#run-result pre.diff").await;
        assert!(diff.contains("-<<<<<<<"), "the diff against the conflicted file removes the markers:\n{diff}");
        script(&client, "document.getElementById('run-heading').scrollIntoView({block: 'start'})").await;
        let episode_png = screenshot(&client, &dir, "episode-desktop.png").await;

        // Phone width: nothing wider than the screen; the finished episode and the list.
        client.set_window_size(PHONE.0, PHONE.1).await.expect("phone size");
        let overflow = script(&client, "return document.documentElement.scrollWidth - window.innerWidth").await;
        assert!(
            overflow.as_i64().is_some_and(|px| px <= 0),
            "no horizontal scrolling at {} px: {overflow} px too wide",
            PHONE.0
        );
        script(&client, "document.getElementById('run-heading').scrollIntoView({block: 'start'})").await;
        let phone_png = screenshot(&client, &dir, "episode-phone.png").await;
        script(&client, "window.scrollTo(0, 0)").await;
        let phone_list_png = screenshot(&client, &dir, "list-phone.png").await;

        client.close().await.expect("close the browser");
        for png in [&list_png, &task_png, &episode_png, &phone_png, &phone_list_png] {
            println!("screenshot: {}", png.display());
        }
        println!("web demo: {task_id} gold reward {earned} of {maximum} in {:.1} s", started.elapsed().as_secs_f64());
    }
}

/// One HTTP/1.1 request: status, lower-cased head, body.
fn http(addr: &str, method: &str, path: &str, body: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(60))).expect("read timeout");
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).expect("read");
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, payload) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, head.to_ascii_lowercase(), payload.to_string())
}

fn get_json(addr: &str, path: &str) -> (u16, Value) {
    let (status, _, body) = http(addr, "GET", path, "");
    (status, serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {path}: not JSON ({e}): {body}")))
}

/// `value → count` of one facet of a `/api/tasks` answer.
fn facet(list: &Value, name: &str) -> std::collections::BTreeMap<String, u64> {
    list["facets"][name]
        .as_array()
        .unwrap_or_else(|| panic!("facet {name}"))
        .iter()
        .filter_map(|v| Some((v["value"].as_str()?.to_string(), v["count"].as_u64()?)))
        .collect()
}

#[test]
fn api_filters_counts_and_explains_tasks() {
    let manifest = read_json(&root().join(SAMPLE).join("manifest.json"));
    let entries = manifest["tasks"].as_array().expect("manifest tasks").clone();
    let (_server, base, _stdout) = start_server();
    let addr = base.trim_start_matches("http://");

    // The page and its assets, same-origin only.
    let (status, head, page) = http(addr, "GET", "/", "");
    assert_eq!(status, 200);
    assert!(head.contains("content-security-policy: default-src 'none'; script-src 'self'"), "{head}");
    assert!(page.contains("/assets/app.js") && !page.contains("http"), "the page loads nothing from elsewhere");
    let (status, head, _) = http(addr, "GET", "/assets/app.js", "");
    assert!(status == 200 && head.contains("content-type: text/javascript"), "{head}");

    // Unfiltered counts are the manifest's.
    let (status, all) = get_json(addr, "/api/tasks");
    assert_eq!(status, 200);
    assert_eq!(all["matching"].as_u64(), Some(entries.len() as u64));
    for (name, key) in [("level", "by_level"), ("family", "by_family")] {
        for (value, count) in facet(&all, name) {
            assert_eq!(manifest["counts"][key][&value].as_u64().unwrap_or(0), count, "{name} {value}");
        }
    }

    // Filters combine; each facet counts with the other filters applied.
    let (_, hard_compose) = get_json(addr, "/api/tasks?level=hard&family=compose-edits");
    let count = |level: Option<&str>, family: &str| {
        entries.iter().filter(|e| e["family"] == family && level.is_none_or(|l| e["level"] == l)).count() as u64
    };
    let tasks = hard_compose["tasks"].as_array().expect("tasks");
    assert_eq!(tasks.len() as u64, count(Some("hard"), "compose-edits"));
    assert!(tasks.iter().all(|t| t["level"] == "hard" && t["family"] == "compose-edits"));
    for (level, n) in facet(&hard_compose, "level") {
        assert_eq!(n, count(Some(&level), "compose-edits"), "compose-edits tasks of level {level}");
    }
    let (status, refused) = get_json(addr, "/api/tasks?level=impossible");
    assert_eq!((status, refused["code"].as_str()), (422, Some("VALIDATION_ERROR")), "{refused}");

    // A cross-file task with markers: the gold merge also edits a file git merged cleanly
    // (move-edit: the method goes to the class's new module).
    let solution_of = |id: &str| read_json(&root().join(SAMPLE).join("tasks").join(id).join("solution.json"));
    let entry = entries
        .iter()
        .filter(|e| e["conflict_kind"] != "semantic")
        .find(|e| {
            solution_of(e["id"].as_str().unwrap())["edits_outside_conflicts"].as_array().is_some_and(|a| !a.is_empty())
        })
        .expect("a task in the sample with markers whose gold edits a file without them");
    let id = entry["id"].as_str().expect("id");
    let task = read_json(&root().join(SAMPLE).join("tasks").join(id).join("task.json"));
    let solution = solution_of(id);
    let (status, view) = get_json(addr, &format!("/api/tasks/{id}"));
    assert_eq!(status, 200);
    assert!(view["task"].get("files").is_none(), "file texts are sent once, in `files`");
    let files = view["files"].as_array().expect("files");
    assert_eq!(files.len(), solution["files"].as_array().map_or(0, Vec::len));
    for file in files {
        let diff = file["diff"].as_str().expect("diff");
        let path = file["path"].as_str().expect("path");
        assert!(diff.starts_with(&format!("diff --git a/{path} b/{path}\n")), "{diff}");
        assert_eq!(file["has_conflict"].as_bool(), Some(diff.contains("\n-<<<<<<<")), "{path}");
    }
    assert!(files.iter().any(|f| f["has_conflict"] == false), "the callsite file is shown");
    let trees: Vec<&str> =
        view["validation"].as_array().expect("validation").iter().filter_map(|r| r["tree"].as_str()).collect();
    let with_base = solution["validation"].get("base").is_some();
    let expected: &[&str] = if with_base {
        &["base", "conflicted", "ours", "theirs", "gold"]
    } else {
        &["conflicted", "ours", "theirs", "gold"]
    };
    assert_eq!(trees, expected);
    assert_eq!(view["validation"][expected.len() - 1]["passed"], true, "gold passes");
    assert_eq!(
        view["ladder"].as_array().map(Vec::len),
        Some(9),
        "ours, theirs, union ×2, rule, tokens, structured, mergiraf, refactor"
    );
    let hunks: u64 = task["conflicts"].as_array().expect("conflicts").iter().filter_map(|c| c["hunks"].as_u64()).sum();
    let maximum = mergeforge::env::reward::RewardWeights::default().max_reward(hunks as usize);
    assert_eq!(view["max_reward"].as_f64(), Some(maximum), "the default weights' max_reward");

    let (status, missing) = get_json(addr, "/api/tasks/no-such-task");
    assert_eq!(status, 404, "{missing}");
    let (status, _, body) = http(addr, "POST", "/api/demo/run", &json!({"task": id, "agent": "oracle"}).to_string());
    assert_eq!(status, 422, "{body}");
    let unknown = format!("unknown agent `oracle`: expected one of {}", mergeforge::env::agents::names().join(", "));
    assert!(body.contains(&unknown), "{body}");
}
