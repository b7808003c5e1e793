//! The bad-input fixture: every broken kind gives its exact rule and place, nothing
//! panics, and the rest of the workspace still loads.

use crate::common;
use common::fs::copy_dir;

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

/// The checked-in fixture plus the kinds git cannot hold well: a 2 MB line and a symlink loop.
fn bad_workspace() -> tempfile::TempDir {
    let tmp = crate::common::fs::scratch_dir();
    copy_dir(Path::new("tests/fixtures/bad"), tmp.path());
    let run = tmp
        .path()
        .join("tests/logs/ai/backend/tools/basic/tool-ok/20260301-100000-006/timeline.jsonl");
    let mut text = std::fs::read_to_string(&run).expect("timeline");
    let huge = "x".repeat(2 * 1024 * 1024);
    let line = serde_json::json!({"type": "signal", "name": "huge", "status": "info", "message": huge, "data": null});
    text.push_str(&line.to_string());
    text.push('\n');
    std::fs::write(&run, text).expect("write");
    std::os::unix::fs::symlink("loop", tmp.path().join("tests/ai/backend/loop")).expect("symlink");
    std::os::unix::fs::symlink(".", tmp.path().join("tests/logs/ai/here")).expect("symlink");
    tmp
}

fn validate(root: &Path) -> (i32, Vec<Value>) {
    let (code, doc) = common::cli::validate_json(root);
    (
        code.expect("exit code"),
        doc["problems"].as_array().expect("problems").clone(),
    )
}

fn find<'a>(problems: &'a [Value], rule: &str, file_end: &str) -> &'a Value {
    problems
        .iter()
        .find(|p| p["rule"] == rule && p["file"].as_str().is_some_and(|f| f.ends_with(file_end)))
        .unwrap_or_else(|| panic!("no {rule} on {file_end} in {problems:#?}"))
}

fn place(p: &Value) -> (Option<u64>, Option<u64>) {
    (p["line"].as_u64(), p["column"].as_u64())
}

const RUNS: &str = "tests/logs/ai/backend/tools/basic/tool-broken";

#[test]
fn every_bad_kind_has_its_rule_and_place() {
    let ws = bad_workspace();
    let (code, problems) = validate(ws.path());
    assert_eq!(code, 1, "errors make validate exit 1");
    let truncated = find(
        &problems,
        "meta-syntax",
        &format!("{RUNS}/20260301-100000-001/meta.json"),
    );
    assert_eq!(place(truncated), (Some(4), Some(17)));
    assert_eq!(truncated["severity"], "error");
    let wrong = find(
        &problems,
        "meta-wrong-type",
        "20260301-100000-002/meta.json",
    );
    assert_eq!(place(wrong), (Some(6), Some(3)));
    assert!(
        wrong["message"]
            .as_str()
            .expect("msg")
            .contains("status should be a string")
    );
    assert!(problems.iter().any(|p| {
        p["rule"] == "meta-wrong-type"
            && p["message"]
                .as_str()
                .is_some_and(|m| m.contains("durationMs"))
            && place(p) == (Some(9), Some(13))
    }));
    assert_eq!(
        place(find(
            &problems,
            "timeline-not-json",
            "20260301-100000-002/timeline.jsonl"
        )),
        (Some(2), Some(2))
    );
    assert_eq!(
        place(find(
            &problems,
            "timeline-not-utf8",
            "20260301-100000-002/timeline.jsonl"
        )),
        (Some(3), Some(92))
    );
    assert_eq!(
        place(find(
            &problems,
            "artifact-path-escapes",
            "20260301-100000-003/artifacts.json"
        )),
        (Some(4), Some(43))
    );
    assert_eq!(
        place(find(
            &problems,
            "meta-not-utf8",
            "20260301-100000-004/meta.json"
        )),
        (Some(1), Some(58))
    );
    assert_eq!(
        place(find(
            &problems,
            "artifacts-syntax",
            "20260301-100000-005/artifacts.json"
        )),
        (Some(4), Some(17))
    );
    assert_eq!(
        place(find(
            &problems,
            "timeline-line-too-long",
            "tool-ok/20260301-100000-006/timeline.jsonl"
        )),
        (Some(2), Some(1))
    );
    let unreg = find(&problems, "case-unregistered", "basic/not-planned.test.ts");
    assert_eq!(
        (unreg["severity"].as_str(), place(unreg)),
        (Some("warning"), (None, None))
    );
    find(
        &problems,
        "folder-not-kebab-case",
        "tests/ai/backend/Bad_Folder",
    );
    find(&problems, "symlink-not-followed", "tests/ai/backend/loop");
    find(&problems, "symlink-not-followed", "tests/logs/ai/here");
    // no second opinion on a wrongly typed status
    assert!(!problems.iter().any(|p| p["rule"] == "meta-bad-status"
        && p["file"].as_str().is_some_and(|f| f.contains("100000-002"))));
}

#[test]
fn the_rest_still_loads() {
    let ws = bad_workspace();
    let out = Command::cargo_bin("testdeck")
        .expect("bin")
        .args(["list", "--json", "--root"])
        .arg(ws.path())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    let ids: Vec<&str> = doc["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter_map(|c| c["id"].as_str())
        .collect();
    for id in ["tool-ok", "tool-broken", "not-planned", "tool-ok2"] {
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }
    // broken runs are listed, never fatal
    let out = Command::cargo_bin("testdeck")
        .expect("bin")
        .args(["runs", "--json", "--root"])
        .arg(ws.path())
        .output()
        .expect("run");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    let runs = doc["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 6);
    let broken = runs
        .iter()
        .find(|r| r["runId"] == "20260301-100000-001")
        .expect("run 1");
    assert_eq!(broken["status"], "in-progress");
    assert_eq!(broken["metaBroken"], true);
    for cmd in ["stats", "validate", "list", "runs"] {
        let out = Command::cargo_bin("testdeck")
            .expect("bin")
            .args([cmd, "--root"])
            .arg(ws.path())
            .output()
            .expect("run");
        assert_ne!(out.status.code(), Some(101), "{cmd} panicked");
        assert!(out.status.code().is_some_and(|c| c <= 1), "{cmd}: {out:?}");
    }
}
