//! The run states of a folder without `meta.json` (issue 14): a run testdeck
//! cancelled — through the core's cancel, or by SIGTERM to a headless `run` — is
//! `cancelled` and never `in-progress`, also for a fresh process; a folder where
//! nothing was written for the configured time is `abandoned`; no statistic
//! counts either.

use crate::common;
use common::cli::command;
use common::fs::write;

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};
use testdeck_exec::{self as exec, ExecEvent, LaunchContext, LaunchPlan, TestsTarget};

/// A workspace whose runner (a real `sh`) starts a run folder, writes one event
/// and then works for a minute: long enough to be cancelled half-way.
fn workspace() -> tempfile::TempDir {
    let d = crate::common::fs::scratch_dir();
    let root = d.path();
    write(
        root,
        "tests/shop/backend/cart/cart-slow.test.ts",
        "// case\n",
    );
    write(
        root,
        "tests/shop/backend/cart/cart-fast.test.ts",
        "// case\n",
    );
    write(
        root,
        "runner.sh",
        r#"case_id=cart-slow
while [ $# -gt 0 ]; do [ "$1" = --case ] && case_id=$2; shift; done
dir="tests/logs/shop/backend/cart/$case_id/$(date -u +%Y%m%d-%H%M%S)-001"
mkdir -p "$dir"
printf '{"ts":"2026-01-01T00:00:00Z","type":"run","name":"run/start","status":"info","message":"started"}\n' >> "$dir/timeline.jsonl"
echo "runner: started $dir"
sleep 60
"#,
    );
    write(
        root,
        "testdeck.toml",
        "[runner]\ncommand = [\"sh\", \"runner.sh\"]\n",
    );
    d
}

/// A headless command's JSON, with testdeck's state folder in `state`.
fn json(root: &Path, state: &Path, args: &[&str]) -> Value {
    let out = command()
        .args(args)
        .arg("--json")
        .arg("--root")
        .arg(root)
        .env("XDG_STATE_HOME", state)
        .output()
        .expect("testdeck");
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}: {text}"))
}

fn runs_of(root: &Path, state: &Path, case_id: &str) -> Vec<Value> {
    json(root, state, &["runs", "--case", case_id])["runs"]
        .as_array()
        .expect("runs")
        .clone()
}

fn latest_status(root: &Path, state: &Path, case_id: &str) -> Value {
    let list = json(root, state, &["list"]);
    list["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .find(|c| c["id"] == case_id)
        .unwrap_or_else(|| panic!("{case_id} not listed: {list:#}"))["latestStatus"]
        .clone()
}

fn node<'a>(stats: &'a Value, path: &str) -> &'a Value {
    stats["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .find(|n| n["path"] == path)
        .unwrap_or_else(|| panic!("no stats node {path:?}: {stats:#}"))
}

/// A finished run of `case_id`, so the statistics have something to count.
fn finished_run(root: &Path, case_id: &str, run_id: &str, status: &str) {
    let dir = format!("tests/logs/shop/backend/cart/{case_id}/{run_id}");
    write(root, &format!("{dir}/timeline.jsonl"), "");
    write(root, &format!("{dir}/runtime-events.jsonl"), "");
    write(
        root,
        &format!("{dir}/artifacts.json"),
        r#"{"schemaVersion":4,"items":[]}"#,
    );
    write(
        root,
        &format!("{dir}/meta.json"),
        &format!(
            r#"{{"schemaVersion":4,"runId":"{run_id}","caseId":"{case_id}","scope":"shop/backend/cart","status":"{status}","startedAt":"2026-01-01T00:00:00Z","finishedAt":"2026-01-01T00:00:01Z","stats":{{"durationMs":1000,"steps":0,"assertions":0,"errors":0,"artifacts":0}},"runtime":{{"driver":"sh","target":"none","modelName":null}}}}"#
        ),
    );
}

/// The cancelled run is `cancelled` everywhere and in no statistic; the case's
/// one finished run still counts.
fn assert_cancelled(root: &Path, state: &Path) {
    let runs = runs_of(root, state, "cart-slow");
    let open: Vec<&Value> = runs.iter().filter(|r| r["status"] != "passed").collect();
    assert_eq!(open.len(), 1, "{runs:#?}");
    assert_eq!(open[0]["status"], "cancelled", "{runs:#?}");
    assert!(
        runs.iter().all(|r| r["status"] != "in-progress"),
        "{runs:#?}"
    );
    assert_eq!(latest_status(root, state, "cart-slow"), "cancelled");
    let stats = json(root, state, &["stats"]);
    let case = node(&stats, "shop/backend/cart/cart-slow");
    assert_eq!(case["historical"]["totalRuns"], 1, "{case:#}");
    assert_eq!(case["historical"]["passedRuns"], 1, "{case:#}");
    assert_eq!(case["latest"]["latestPassedCases"], 1, "{case:#}");
}

#[test]
fn a_run_cancelled_through_the_core_is_cancelled_for_a_fresh_process() {
    let ws = workspace();
    let root = ws.path();
    let state = crate::common::fs::scratch_dir();
    finished_run(root, "cart-slow", "20260101-000000-000", "passed");
    let ctx = LaunchContext {
        root: root.to_path_buf(),
        runner: vec!["sh".into(), "runner.sh".into()],
        runner_env: Vec::new(),
        catalog: None,
        cancelled: Some(testdeck_core::workspace::cancelled::file_in(
            &state.path().join("testdeck"),
            root,
        )),
        runs: None,
    };
    let plan = LaunchPlan {
        tests: vec![TestsTarget::Cases {
            scope: "shop/backend/cart".into(),
            case_ids: vec!["cart-slow".into()],
        }],
        headless: true,
        ..LaunchPlan::default()
    };
    let started = Arc::new(Mutex::new(None::<String>));
    let seen = started.clone();
    let sink: exec::Sink = Arc::new(move |ev| {
        if let ExecEvent::CaseStart { path: Some(p), .. } = ev {
            if let Ok(mut s) = seen.lock() {
                *s = Some(p);
            }
        }
    });
    let mut handle = exec::launch(ctx, plan, sink);
    let deadline = Instant::now() + Duration::from_secs(60);
    while started.lock().expect("lock").is_none() {
        assert!(Instant::now() < deadline, "the runner's run never appeared");
        std::thread::sleep(Duration::from_millis(50));
    }
    // the run is being followed now: the same process sees it in progress
    assert!(
        runs_of(root, state.path(), "cart-slow")
            .iter()
            .any(|r| r["status"] == "in-progress")
    );
    handle.cancel();
    let summary = handle.wait();
    assert!(
        summary
            .results
            .iter()
            .any(|r| r.reason.as_deref() == Some("cancelled")),
        "{summary:?}"
    );
    // fresh processes, reading the folder and testdeck's own record
    assert_cancelled(root, state.path());
    // and nothing of it was written into the workspace
    let logs = root.join("tests/logs");
    let mut stack = vec![logs];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("ls").flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            assert!(!name.contains("cancel"), "{}", e.path().display());
            if e.path().is_dir() {
                stack.push(e.path());
            }
        }
    }
}

#[test]
fn sigterm_to_a_headless_run_leaves_a_cancelled_run_not_a_running_one() {
    let ws = workspace();
    let root = ws.path();
    let state = crate::common::fs::scratch_dir();
    finished_run(root, "cart-slow", "20260101-000000-000", "passed");
    let mut child = command()
        .args(["run", "--json", "shop/backend/cart/cart-slow", "--root"])
        .arg(root)
        .env("XDG_STATE_HOME", state.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("testdeck run");
    let out = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(out).lines();
    // the run folder is followed once its case-start arrives
    loop {
        let line = lines
            .next()
            .expect("testdeck ended before the case started")
            .expect("line");
        if line.contains("\"case-start\"") {
            break;
        }
    }
    let term = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(term.success());
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().expect("wait");
    assert_eq!(
        status.code(),
        Some(1),
        "cancelled is not success: {rest:#?}"
    );
    assert!(
        rest.iter().any(|l| l.contains("\"cancelled\"")),
        "the summary says cancelled: {rest:#?}"
    );
    assert_cancelled(root, state.path());
}

fn age(path: &Path, by: Duration) {
    let t = SystemTime::now() - by;
    std::fs::File::open(path)
        .expect("open")
        .set_modified(t)
        .expect("mtime");
}

#[test]
fn a_folder_silent_for_longer_than_the_setting_is_abandoned_and_counts_nowhere() {
    let ws = workspace();
    let root = ws.path();
    let state = crate::common::fs::scratch_dir();
    finished_run(root, "cart-fast", "20260101-000000-000", "failed");
    let dir = root.join("tests/logs/shop/backend/cart/cart-fast/20260102-000000-000");
    write(&dir, "timeline.jsonl", "{\"type\":\"run\"}\n");
    // fresh: in progress
    let status = |root: &Path| runs_of(root, state.path(), "cart-fast")[0]["status"].clone();
    assert_eq!(status(root), "in-progress");
    // an hour without a write: abandoned (default 10 minutes)
    age(&dir.join("timeline.jsonl"), Duration::from_secs(3600));
    age(&dir, Duration::from_secs(3600));
    assert_eq!(status(root), "abandoned");
    assert_eq!(latest_status(root, state.path(), "cart-fast"), "abandoned");
    let stats = json(root, state.path(), &["stats"]);
    let case = node(&stats, "shop/backend/cart/cart-fast");
    assert_eq!(case["historical"]["totalRuns"], 1, "{case:#}");
    assert_eq!(case["historical"]["failedRuns"], 1, "{case:#}");
    assert_eq!(node(&stats, "")["historical"]["totalRuns"], 1);
    // the setting decides: two hours is not reached yet, 0 never judges so
    let toml = "[runner]\ncommand = [\"sh\", \"runner.sh\"]\n[runs]\n";
    write(
        root,
        "testdeck.toml",
        &format!("{toml}abandoned-after-minutes = 120\n"),
    );
    assert_eq!(status(root), "in-progress");
    write(
        root,
        "testdeck.toml",
        &format!("{toml}abandoned-after-minutes = 0\n"),
    );
    assert_eq!(status(root), "in-progress");
    write(
        root,
        "testdeck.toml",
        &format!("{toml}abandoned-after-minutes = 30\n"),
    );
    assert_eq!(status(root), "abandoned");
}

#[test]
fn x_in_the_cockpit_leaves_a_cancelled_badge_also_after_a_restart() {
    let ws = workspace();
    let root = ws.path();
    let state = crate::common::fs::scratch_dir();
    let cfg = crate::common::fs::scratch_dir();
    let st = state.path().to_str().expect("utf-8");
    let env = [("XDG_STATE_HOME", st)];
    let mut s = common::Session::start_with(root, cfg.path(), &env);
    s.wait_text("Tests · 2");
    s.find("'cart-slow");
    s.send("r");
    s.wait_text("run/start");
    s.send("x");
    // the launch ends and reads its run again (testdeck's record of the cancel is
    // outside the workspace, no watch sees it): the badge says what happened,
    // and the live pane shows the run ended, not live
    s.wait_text("cancelled ");
    s.wait_for("the live pane's run ended", |sc| {
        let t = sc.contents();
        t.contains("ended · cancelled") && !t.contains("● live")
    });
    let (p, _) = s.quit();
    assert!(
        !p.screen().contents().contains("running "),
        "{}",
        p.screen().contents()
    );
    // a fresh cockpit reads testdeck's record: never `running` again
    let mut s = common::Session::start_with(root, cfg.path(), &env);
    s.wait_text("Tests · 2");
    s.find("'cart-slow");
    s.wait_for("the cancelled badge of a fresh cockpit", |sc| {
        let t = sc.contents();
        // never followed as if it were still being written
        t.contains("cancelled ") && t.contains("ended · cancelled") && !t.contains("● live")
    });
    let (p, _) = s.quit();
    assert!(
        !p.screen().contents().contains("running "),
        "{}",
        p.screen().contents()
    );
    assert_cancelled_once(root, state.path());
}

/// The one run of the cockpit's launch is `cancelled` in `runs --json`.
fn assert_cancelled_once(root: &Path, state: &Path) {
    let runs = runs_of(root, state, "cart-slow");
    assert_eq!(runs.len(), 1, "{runs:#?}");
    assert_eq!(runs[0]["status"], "cancelled", "{runs:#?}");
}
