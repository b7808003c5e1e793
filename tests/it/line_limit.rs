//! One line-length limit for a timeline event: `validate` and `tail` (the real
//! binary) agree on a real 1.1 MB console event (fine) and on a line over the
//! limit (the same problem, the same message).

use crate::common;

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

const RUN: &str = "tests/logs/ai/backend/tools/basic/tool-ok/20260301-100000-006";

/// A workspace with one run whose timeline holds `line` between two small events.
fn workspace(line: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = crate::common::fs::scratch_dir();
    let dir = tmp.path().join(RUN);
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(
        dir.join("meta.json"),
        r#"{"schemaVersion": 4, "runId": "20260301-100000-006", "caseId": "tool-ok", "scope": "ai/backend/tools/basic", "status": "passed", "startedAt": "2026-03-01T10:00:00.003Z", "finishedAt": "2026-03-01T10:00:01.003Z", "stats": {"durationMs": 1000, "steps": 1, "assertions": 0, "errors": 0, "artifacts": 0}, "runtime": {"driver": "node", "target": "backend", "modelName": null}}"#,
    )
    .expect("meta");
    let ev = |name: &str| {
        format!(
            "{{\"ts\":\"2026-03-01T10:00:00.006Z\",\"type\":\"run\",\"name\":\"{name}\",\"status\":\"info\",\"message\":\"m\",\"data\":null}}\n"
        )
    };
    let text = format!("{}{line}\n{}", ev("start"), ev("end"));
    let file = dir.join("timeline.jsonl");
    std::fs::write(&file, text).expect("timeline");
    (tmp, file)
}

/// A console event of about `bytes` bytes (a page's log, as Playwright records it).
fn console_event(bytes: usize) -> String {
    let text = "console output of a real page ".repeat(bytes / 30);
    serde_json::json!({
        "ts": "2026-03-01T10:00:00.500Z", "type": "signal", "name": "console",
        "status": "info", "message": "page log", "data": {"text": text}
    })
    .to_string()
}

/// `validate --json`'s problems on the timeline.
fn validate(root: &Path) -> Vec<Value> {
    let (_, doc) = common::cli::validate_json(root);
    doc["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .filter(|p| {
            p["file"]
                .as_str()
                .is_some_and(|f| f.ends_with("timeline.jsonl"))
        })
        .cloned()
        .collect()
}

/// `tail`'s stdout (the events) and stderr (its problems).
fn tail(file: &Path) -> (String, String) {
    let out = Command::cargo_bin("testdeck")
        .expect("bin")
        .args(["tail", "--from-start"])
        .arg(file)
        .env("NO_COLOR", "1")
        .output()
        .expect("run");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_1_1_mb_console_event_is_fine_for_validate_and_tail() {
    let line = console_event(1_100_000);
    assert!(
        line.len() > 1_100_000 && line.len() > 1 << 20,
        "over the old 1 MiB"
    );
    let (tmp, file) = workspace(&line);
    let problems = validate(tmp.path());
    assert!(problems.is_empty(), "{problems:#?}");
    let (stdout, stderr) = tail(&file);
    assert!(!stderr.contains("timeline-line-too-long"), "{stderr}");
    assert!(stdout.contains("page log"), "the event is shown");
    assert!(stdout.contains("end"), "and the one after it");
}

#[test]
fn a_line_over_the_limit_is_the_same_problem_for_validate_and_tail() {
    let line = console_event(testdeck_core::workspace::read::TIMELINE_LINE + 100_000);
    let (tmp, file) = workspace(&line);
    let problems = validate(tmp.path());
    let too_long: Vec<&Value> = problems
        .iter()
        .filter(|p| p["rule"] == "timeline-line-too-long")
        .collect();
    assert_eq!(too_long.len(), 1, "{problems:#?}");
    let message = too_long[0]["message"].as_str().expect("message");
    assert_eq!(
        message,
        testdeck_core::workspace::read::line_too_long(line.len() as u64)
    );
    assert_eq!(too_long[0]["line"], 2);
    let (_, stderr) = tail(&file);
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("timeline-line-too-long"))
        .collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(said[0].contains(message), "the same message: {stderr}");
}
