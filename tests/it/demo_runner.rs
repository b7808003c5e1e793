//! The demo's sh runner (`scripts/test-workflow.sh`), run for real in a copy of the
//! demo: it writes complete run folders of the seed 000 contract, slowly.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::logs::RunStatus;

fn copy_demo() -> tempfile::TempDir {
    let tmp = crate::common::fs::scratch_dir();
    let n = testdeck_core::workspace::demo::write_demo(tmp.path()).expect("write demo");
    assert!(n > 300, "{n} files");
    tmp
}

fn run_folders(root: &Path, case_dir: &str) -> BTreeSet<String> {
    std::fs::read_dir(root.join("tests/logs").join(case_dir))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn runner(root: &Path, args: &[&str]) -> std::process::Output {
    Command::new("sh")
        .arg("scripts/test-workflow.sh")
        .args(args)
        .current_dir(root)
        .env("DEMO_RUNNER_PACE", "0")
        .output()
        .expect("run sh")
}

/// The one run folder that appeared, after checking it is the only one.
fn one_new(root: &Path, case_dir: &str, before: &BTreeSet<String>) -> std::path::PathBuf {
    let after = run_folders(root, case_dir);
    let new: Vec<_> = after.difference(before).collect();
    assert_eq!(new.len(), 1, "{new:?}");
    root.join("tests/logs").join(case_dir).join(new[0])
}

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).expect("read")).expect("json")
}

fn timeline(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("timeline.jsonl"))
        .expect("timeline")
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect()
}

#[test]
fn one_case_makes_one_complete_passed_run() {
    let tmp = copy_demo();
    let root = tmp.path();
    let case_dir = "kb-search/backend/query/basic/kb-search-basic";
    let before = run_folders(root, case_dir);
    let out = runner(root, &["--case", "kb-search-basic"]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("kb-search-basic passed"), "{stdout}");
    let dir = one_new(root, case_dir, &before);
    let run_id = dir
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    assert!(
        testdeck_core::workspace::logs::is_run_id(&run_id),
        "{run_id}"
    );

    let meta = read_json(&dir.join("meta.json"));
    assert_eq!(meta["schemaVersion"], 4);
    assert_eq!(meta["runId"], run_id.as_str());
    assert_eq!(meta["caseId"], "kb-search-basic");
    assert_eq!(meta["scope"], "kb-search/backend/query/basic");
    assert_eq!(meta["status"], "passed");
    assert_eq!(meta["stats"]["steps"], 2);
    assert_eq!(meta["stats"]["assertions"], 2);
    assert_eq!(meta["runtime"]["driver"], "node-harness");
    // startedAt and the runId name the same millisecond
    let started = meta["startedAt"].as_str().expect("startedAt");
    let compact: String = started.chars().filter(char::is_ascii_digit).collect();
    assert_eq!(compact, run_id.replace('-', ""));
    let keys: Vec<&str> = meta
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, testdeck_core::workspace::logs::META_FIELDS);

    let events = timeline(&dir);
    let kinds: Vec<(&str, &str)> = events
        .iter()
        .map(|e| {
            (
                e["type"].as_str().expect("type"),
                e["name"].as_str().expect("name"),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("run", "run/start"),
            ("step", "kb/load-index"),
            ("step", "kb/query"),
            ("signal", "signal/console"),
            ("assertion", "oracle/hit-count"),
            ("assertion", "oracle/top-hit"),
            ("run", "run/finish"),
        ]
    );
    assert_eq!(events[1]["id"], "s1");
    assert_eq!(events[4]["id"], "a1");
    assert_eq!(events[6]["status"], "ok");
    assert!(dir.join("runtime-events.jsonl").is_file());
    assert_eq!(
        read_json(&dir.join("artifacts.json"))["items"],
        Value::Array(vec![])
    );
    assert!(
        !dir.join("artifacts").exists(),
        "no artifacts/ without files"
    );

    // testdeck reads it as a finished, passed run with no contract drift
    let ws = Workspace::load(root).expect("load");
    let rel = format!("tests/logs/{case_dir}/{run_id}");
    let run = ws
        .logs
        .runs
        .iter()
        .find(|r| r.path == rel)
        .expect("indexed");
    assert_eq!(run.status, RunStatus::Passed);
    let drift: Vec<_> = ws
        .problems
        .iter()
        .filter(|p| p.file.starts_with(&rel))
        .collect();
    assert!(drift.is_empty(), "{drift:?}");
}

#[test]
fn a_failing_e2e_case_keeps_trace_screenshot_and_report() {
    let tmp = copy_demo();
    let root = tmp.path();
    let case_dir = "kb-search/e2e/search-panel/boundary/search-panel-timeout-message";
    let before = run_folders(root, case_dir);
    let out = runner(root, &["--case", "search-panel-timeout-message"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let dir = one_new(root, case_dir, &before);
    let meta = read_json(&dir.join("meta.json"));
    assert_eq!(meta["status"], "failed");
    assert_eq!(meta["runtime"]["driver"], "playwright");
    assert_eq!(meta["stats"]["artifacts"], 3);
    let events = timeline(&dir);
    let failed = events
        .iter()
        .find(|e| e["type"] == "assertion" && e["status"] == "failed")
        .expect("a failed assertion");
    let items = read_json(&dir.join("artifacts.json"));
    let shot = items["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|i| i["kind"] == "screenshot")
        .expect("failure screenshot");
    assert_eq!(shot["refs"]["assertionId"], failed["id"]);
    for f in [
        "artifacts/trace.zip",
        "artifacts/failure.png",
        "artifacts/playwright/report/index.html",
    ] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    assert_eq!(events.last().expect("events")["status"], "failed");
    let ws = Workspace::load(root).expect("load");
    let rel = dir
        .strip_prefix(root)
        .expect("under root")
        .to_string_lossy()
        .replace('\\', "/");
    let drift: Vec<_> = ws
        .problems
        .iter()
        .filter(|p| p.file.starts_with(&rel))
        .collect();
    assert!(drift.is_empty(), "{drift:?}");
}

#[test]
fn suite_runs_skip_live_and_temp_unless_asked() {
    let tmp = copy_demo();
    let root = tmp.path();
    let live = "kb-search/backend/query/live/kb-search-live-rerank";
    let basic = "kb-search/backend/query/basic/kb-search-basic";
    let live_before = run_folders(root, live);
    let basic_before = run_folders(root, basic);
    let out = runner(
        root,
        &["--domain", "kb-search", "--layer", "backend", "--runs", "2"],
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        run_folders(root, live),
        live_before,
        "live is never in a default run"
    );
    assert_eq!(
        run_folders(root, basic).len(),
        basic_before.len() + 2,
        "--runs 2"
    );

    let out = runner(root, &["--domain", "kb-search", "--group", "live"]);
    assert!(out.status.success(), "{out:?}");
    let dir = one_new(root, live, &live_before);
    assert_eq!(
        read_json(&dir.join("meta.json"))["runtime"]["modelName"],
        "bge-reranker-v2-m3"
    );

    let temp = "temp/kb-tokenizer-probe";
    let temp_before = run_folders(root, temp);
    let out = runner(root, &["--domain", "temp"]);
    assert!(out.status.success(), "{out:?}");
    one_new(root, temp, &temp_before);

    let out = runner(root, &["--case", "no-such-case"]);
    assert_eq!(out.status.code(), Some(1));
    let out = runner(root, &["--bogus"]);
    assert_eq!(out.status.code(), Some(2));
}

fn started(out: &std::process::Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.ends_with("started"))
        .filter_map(|l| l.split_whitespace().nth(1).map(str::to_owned))
        .collect()
}

#[test]
fn filters_as_testdeck_passes_them() {
    let tmp = copy_demo();
    let root = tmp.path();
    // a scope's groups arrive as a path: --group terminal --group live
    let out = runner(
        root,
        &[
            "--domain", "ai", "--layer", "backend", "--suite", "tools", "--group", "terminal",
            "--group", "live",
        ],
    );
    assert_eq!(
        started(&out),
        ["ai/backend/tools/terminal/live/terminal-live-plan-execute"]
    );
    // without live in the path, live stays out
    let out = runner(
        root,
        &[
            "--domain", "ai", "--layer", "backend", "--suite", "tools", "--group", "terminal",
        ],
    );
    assert_eq!(started(&out).len(), 3);
    assert!(started(&out).iter().all(|s| !s.contains("/live/")));
    // repeated --case values are alternatives
    let out = runner(
        root,
        &["--case", "kb-search-basic", "--case", "docx-export-heading"],
    );
    assert_eq!(
        started(&out),
        [
            "docx/backend/export/basic/docx-export-heading",
            "kb-search/backend/query/basic/kb-search-basic"
        ]
    );
    // temp cases: every folder below temp/ is a group
    let out = runner(root, &["--domain", "temp", "--group", "ai"]);
    assert_eq!(started(&out), ["temp/ai/terminal-env-dump"]);
}

#[test]
fn an_e2e_request_runs_the_domain_backend_first() {
    let tmp = copy_demo();
    let root = tmp.path();
    let out = runner(root, &["--domain", "docx", "--layer", "e2e"]);
    // docx has no e2e cases: nothing to run at all
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let out = runner(
        root,
        &["--domain", "ai", "--layer", "e2e", "--suite", "workbench"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let started: Vec<&str> = stdout.lines().filter(|l| l.ends_with("started")).collect();
    assert_eq!(started.len(), 5 + 3, "{stdout}");
    assert!(started[0].contains("/backend/"), "{stdout}");
    assert!(started[7].contains("/e2e/"), "{stdout}");
}

#[test]
fn the_timeline_grows_before_meta_json_appears() {
    let tmp = copy_demo();
    let root = tmp.path();
    let case_dir = "ai/backend/tools/terminal/scenario/terminal-build-and-test";
    let before = run_folders(root, case_dir);
    let mut child = Command::new("sh")
        .args([
            "scripts/test-workflow.sh",
            "--case",
            "terminal-build-and-test",
        ])
        .current_dir(root)
        .env("DEMO_RUNNER_PACE", "0.2")
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("spawn sh");
    // watch the run folder while the runner writes it
    let mut seen_partial = 0;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        let after = run_folders(root, case_dir);
        if let Some(new) = after.difference(&before).next() {
            let dir = root.join("tests/logs").join(case_dir).join(new);
            let lines = std::fs::read_to_string(dir.join("timeline.jsonl"))
                .map_or(0, |t| t.lines().count());
            if lines > 0 && !dir.join("meta.json").exists() {
                seen_partial = seen_partial.max(lines);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(status.success());
    assert!(
        seen_partial >= 2,
        "saw at most {seen_partial} lines before meta.json"
    );
    let dir = one_new(root, case_dir, &before);
    assert_eq!(timeline(&dir).len(), 9);
    assert_eq!(read_json(&dir.join("meta.json"))["status"], "passed");
}
