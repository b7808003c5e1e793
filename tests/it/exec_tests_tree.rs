//! `testdeck run` on tests-tree cases: a real runner script (sh) writes a run
//! folder slowly; its timeline must stream as it is written.

use crate::common;

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn workspace() -> tempfile::TempDir {
    let dir = crate::common::fs::scratch_dir();
    let root = dir.path();
    for f in [
        "tests/ai/backend/tools/case-a.test.ts",
        "tests/ai/backend/tools/live/case-live.test.ts",
    ] {
        let p = root.join(f);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, "// case\n").expect("write");
    }
    let runner = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/exec/slow-runner.sh");
    std::fs::write(
        root.join("testdeck.toml"),
        format!(
            "[runner]\ncommand = [\"sh\", {}]\n",
            toml_str(&runner.display().to_string())
        ),
    )
    .expect("toml");
    dir
}

fn toml_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Run `testdeck run --json` and collect each line with its arrival time.
fn run_json(root: &Path, args: &[&str], env: &[(&str, &str)]) -> (Vec<(Duration, Value)>, i32) {
    let start = Instant::now();
    let mut child = common::cli::at(root)
        .arg("run")
        .arg("--json")
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn testdeck");
    let out = child.stdout.take().expect("stdout");
    let mut lines = Vec::new();
    for line in BufReader::new(out).lines() {
        let line = line.expect("line");
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        lines.push((start.elapsed(), v));
    }
    let code = child.wait().expect("wait").code().expect("code");
    (lines, code)
}

fn of_type<'a>(lines: &'a [(Duration, Value)], t: &str) -> Vec<&'a (Duration, Value)> {
    lines.iter().filter(|(_, v)| v["type"] == t).collect()
}

#[test]
fn timeline_streams_while_the_runner_writes() {
    let ws = workspace();
    let (lines, code) = run_json(ws.path(), &["ai/backend/tools/case-a"], &[]);
    assert_eq!(code, 0, "{lines:#?}");
    let runner = of_type(&lines, "runner-start");
    let cmd: Vec<&str> = runner[0].1["command"]
        .as_array()
        .expect("argv")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        &cmd[2..],
        [
            "--domain", "ai", "--layer", "backend", "--suite", "tools", "--case", "case-a"
        ]
    );
    let timeline = of_type(&lines, "timeline");
    let names: Vec<&str> = timeline
        .iter()
        .filter_map(|(_, v)| v["event"]["name"].as_str())
        .collect();
    assert_eq!(names, ["one", "two", "three"]);
    assert_eq!(timeline[0].1["id"], "ai/backend/tools/case-a");
    // the writer sleeps 0.4 s after each line: the events must arrive spread
    // out, not all at the end
    let end = of_type(&lines, "case-end")[0].0;
    assert!(
        end.saturating_sub(timeline[0].0) >= Duration::from_millis(700),
        "first timeline event at {:?}, case end at {end:?}",
        timeline[0].0
    );
    // the writer wrote the third line 0.8 s after the first
    assert!(timeline[2].0.saturating_sub(timeline[0].0) >= Duration::from_millis(300));
    let case_start = of_type(&lines, "case-start");
    assert_eq!(case_start[0].1["source"], "tests");
    let summary = lines.last().expect("summary");
    assert_eq!(summary.1["type"], "summary");
    assert_eq!(summary.1["results"][0]["id"], "ai/backend/tools/case-a");
    assert_eq!(summary.1["results"][0]["verdict"], "pass");
    assert_eq!(summary.1["results"][0]["durationMs"], 1200);
    // the runner's own output is streamed too
    let out = of_type(&lines, "output");
    assert!(out.iter().any(|(_, v)| v["stream"] == "stderr"
        && v["line"] == "runner: done"
        && v["id"] == "runner"));
}

#[test]
fn a_failed_run_ends_with_its_status_and_exit_1() {
    let ws = workspace();
    let (lines, code) = run_json(
        ws.path(),
        &["ai/backend/tools"],
        &[("RUNNER_STATUS", "failed"), ("RUNNER_SLEEP", "0.05")],
    );
    assert_eq!(code, 1);
    let cmd = &of_type(&lines, "runner-start")[0].1["command"];
    assert_eq!(cmd.as_array().expect("argv").len(), 2 + 6, "{cmd}");
    let end = &of_type(&lines, "case-end")[0].1;
    assert_eq!(end["verdict"], "fail");
    assert_eq!(end["reason"], "meta.json status failed");
}

#[test]
fn failed_reruns_the_cases_whose_latest_run_failed() {
    let ws = workspace();
    let (_, code) = run_json(
        ws.path(),
        &["case-a"],
        &[("RUNNER_STATUS", "failed"), ("RUNNER_SLEEP", "0.05")],
    );
    assert_eq!(code, 1);
    // the run ids have one-second resolution: let the next one differ
    std::thread::sleep(Duration::from_millis(1100));
    let (lines, code) = run_json(ws.path(), &["--failed"], &[("RUNNER_SLEEP", "0.05")]);
    assert_eq!(code, 0);
    let cmd = &of_type(&lines, "runner-start")[0].1["command"];
    assert!(cmd.to_string().ends_with(r#""--case","case-a"]"#), "{cmd}");
    // now nothing failed last: nothing to run
    let out = common::cli::at(ws.path())
        .args(["run", "--failed"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing failed"));
}

#[test]
fn a_runner_that_writes_no_run_is_reported() {
    let ws = workspace();
    let (lines, code) = run_json(ws.path(), &["case-a"], &[("RUNNER_NO_RUN", "1")]);
    assert_eq!(code, 1);
    let exit = &of_type(&lines, "runner-exit")[0].1;
    assert_eq!(exit["exitCode"], 3);
    let reason = exit["reason"].as_str().expect("reason");
    assert!(
        reason.starts_with("the runner exited with status 3 without writing a run;")
            && reason.contains("testdeck init"),
        "{reason}"
    );
    let summary = &lines.last().expect("summary").1;
    assert_eq!(summary["results"][0]["id"], "runner");
    assert_eq!(summary["results"][0]["verdict"], "environment-fail");
}

#[test]
fn live_cases_need_allow_live() {
    let ws = workspace();
    let (lines, code) = run_json(ws.path(), &["case-live"], &[("RUNNER_SLEEP", "0.05")]);
    // the only case skipped: nothing ran, which `--no-tests=fail` (the default) exits 4 for
    assert_eq!(code, 4);
    let summary = &lines.last().expect("summary").1;
    assert_eq!(summary["results"][0]["verdict"], "skipped");
    assert!(
        summary["results"][0]["reason"]
            .as_str()
            .expect("reason")
            .contains("--allow-live")
    );
    assert!(!ws.path().join("runner-called").exists());
    let (lines, code) = run_json(
        ws.path(),
        &["case-live", "--allow-live"],
        &[("RUNNER_SLEEP", "0.05")],
    );
    assert_eq!(code, 0, "{lines:#?}");
    assert!(ws.path().join("runner-called").exists());
    let summary = &lines.last().expect("summary").1;
    assert_eq!(
        summary["results"][0]["id"],
        "ai/backend/tools/live/case-live"
    );
    assert_eq!(summary["results"][0]["verdict"], "pass");
}

#[test]
fn unknown_targets_are_usage_errors() {
    let ws = workspace();
    let out = common::cli::at(ws.path())
        .args(["run", "no-such-thing"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-thing"));
}

#[test]
fn a_run_started_by_another_process_during_a_launch_is_not_counted_in_it() {
    let ws = workspace();
    let root = ws.path();
    let runner = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/exec/slow-runner.sh");
    let mut child = common::cli::at(root)
        .args(["run", "--json", "ai/backend/tools/case-a"])
        .env("RUNNER_SLEEP", "0.6")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn testdeck");
    let out = child.stdout.take().expect("stdout");
    let mut lines = Vec::new();
    let mut other = None;
    for line in BufReader::new(out).lines() {
        let v: Value = serde_json::from_str(&line.expect("line")).expect("json");
        if v["type"] == "runner-start" {
            // another terminal runs a neighbour case of the same suite meanwhile:
            // a real sh writing its run folder line by line, meta.json last
            other = Some(
                Command::new("sh")
                    .arg(&runner)
                    .args(["--domain", "ai", "--layer", "backend", "--suite", "tools"])
                    .args(["--case", "case-b"])
                    .current_dir(root)
                    .env("RUNNER_SLEEP", "0.1")
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("spawn the other run"),
            );
        }
        lines.push((Duration::ZERO, v));
    }
    assert_eq!(child.wait().expect("wait").code(), Some(0), "{lines:#?}");
    let status = other.expect("runner started").wait().expect("wait other");
    assert!(status.success());
    // the other run is there, and it was written while the launch watched
    let b = root.join("tests/logs/ai/backend/tools/case-b");
    assert_eq!(std::fs::read_dir(&b).expect("case-b runs").count(), 1);
    let starts: Vec<&Value> = of_type(&lines, "case-start")
        .iter()
        .map(|(_, v)| v)
        .collect();
    assert_eq!(starts.len(), 1, "{starts:#?}");
    assert_eq!(starts[0]["id"], "ai/backend/tools/case-a");
    assert!(
        of_type(&lines, "timeline")
            .iter()
            .all(|(_, v)| v["id"] == "ai/backend/tools/case-a"),
        "{lines:#?}"
    );
    let summary = &lines.last().expect("summary").1;
    let results = summary["results"].as_array().expect("results");
    assert_eq!(results.len(), 1, "{summary}");
    assert_eq!(results[0]["id"], "ai/backend/tools/case-a");
}
