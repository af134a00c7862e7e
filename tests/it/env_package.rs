//! The environment package `envs/mergeforge_env/` and the TRL entry point
//! `examples/trl_grpo.py`, each as its user meets it: the package installed with pip
//! into a venv with `openenv` 0.10 and `transformers` from PyPI (no torch), OpenEnv's own
//! `openenv validate` on the package, `serve.sh` starting a server on a dataset folder,
//! and the TRL environment class driven as `GRPOTrainer(environment_factory=...)` drives
//! it, against a real `mergeforge serve` on a published copy of the sample.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use crate::common::*;
use crate::env_server::{Server, SAMPLE};

const PACKAGE: &str = "envs/mergeforge_env";

/// A venv with `openenv` and `transformers` (pinned) and the package installed from a
/// copy of its folder (so the build leaves nothing in the repository); made once per run.
fn package_python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let python = python_with(&["openenv==0.10.0", "transformers==5.24.0"]);
        let copy = tempfile::tempdir().unwrap();
        copy_dir(&root().join(PACKAGE), copy.path());
        let install = Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps"])
            .arg("--force-reinstall")
            .arg(copy.path())
            .output()
            .expect("pip runs");
        assert!(install.status.success(), "pip install {PACKAGE}: {}", String::from_utf8_lossy(&install.stderr));
        python
    })
}

mod second_tier {
    use super::*;

    #[test]
    #[ignore = "second tier: openenv validate on the package, about 30 s"]
    fn openenv_validate_passes_the_package_at_its_static_level() {
        // `python -m`: the venv's console scripts name the folder it was built in.
        let validate = |level: Option<&str>| {
            let mut command = Command::new(package_python());
            command.args(["-m", "openenv.cli", "validate", PACKAGE, "--skip-build", "--json"]).current_dir(root());
            if let Some(level) = level {
                command.args(["--level", level]);
            }
            let output = command.output().expect("openenv runs");
            let report: serde_json::Value = serde_json::from_slice(&output.stdout)
                .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)));
            (output.status.success(), report)
        };
        let statuses = |report: &serde_json::Value| -> Vec<(String, String)> {
            let results = report["results"].as_array().unwrap_or_else(|| panic!("no results: {report:#}"));
            results
                .iter()
                .map(|r| (r["check_id"].as_str().unwrap().into(), r["status"].as_str().unwrap().into()))
                .collect()
        };
        let (ok, report) = validate(Some("static"));
        assert!(ok, "openenv validate --level static: {report:#}");
        assert_eq!(report["verdict"], "pass", "{report:#}");
        assert_eq!(statuses(&report), [("static.manifest".to_string(), "pass".to_string())]);
        assert_eq!(report["manifest"]["network"]["mode"], "no-network");
        // At the default level the build-dependent checks are skipped and none fails.
        let (ok, report) = validate(None);
        assert!(ok, "openenv validate: {report:#}");
        let all = statuses(&report);
        assert!(all.iter().all(|(_, status)| status != "fail"), "{all:?}");
        assert!(all.contains(&("static.manifest".to_string(), "pass".to_string())), "{all:?}");
    }

    #[test]
    #[ignore = "second tier: the TRL environment class against a server, about 25 s"]
    fn the_trl_environment_class_plays_against_a_real_server() {
        let published = tempfile::tempdir().unwrap();
        let out = published.path().join("hf");
        let publish = run_mergeforge(&["publish", "--dataset", SAMPLE, "--out", out.to_str().unwrap()]);
        assert!(publish.status.success(), "{}", String::from_utf8_lossy(&publish.stderr));
        let server = Server::start_on(out.to_str().unwrap(), &["--max-steps", "20"]);
        let example = root().join("examples/trl_grpo.py");
        let stdout = python_stdout(
            package_python(),
            &[
                root().join("tests/data/env/trl_driver.py").to_str().unwrap(),
                &format!("http://{}", server.addr),
                out.to_str().unwrap(),
                example.to_str().unwrap(),
            ],
            "trl_driver.py",
        );
        for line in ["schemas: edit_file(path, old_string, new_string)", "gold: reward 1.15", "all checks passed"] {
            assert!(stdout.contains(line), "no {line:?} in:\n{stdout}");
        }
    }
}

#[test]
fn serve_sh_serves_a_dataset_folder() {
    let bin_dir = mergeforge().get_program().to_owned();
    let bin_dir = Path::new(&bin_dir).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let mut child = Command::new("sh")
        .arg(root().join(PACKAGE).join("serve.sh"))
        .current_dir(root())
        .env("PATH", path)
        .env("MERGEFORGE_DATASET", SAMPLE)
        .env("PORT", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("serve.sh starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let port = line.rsplit(':').next().and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next());
    let port = port.unwrap_or_else(|| panic!("no port in {line:?}")).to_string();
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap())).unwrap();
    write!(stream, "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(line.contains("0.0.0.0:"), "serve.sh listens on every interface: {line}");
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");

    let missing =
        Command::new("sh").arg(root().join(PACKAGE).join("serve.sh")).env_remove("MERGEFORGE_DATASET").output();
    let missing = missing.unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("set MERGEFORGE_DATASET"), "{missing:?}");
}
