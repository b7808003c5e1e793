//! `testdeck diff` on the fixture workspace tests/fixtures/diff: the exact first
//! divergence, the changed fields, meta differences, artifacts, run resolution.

use assert_cmd::Command;
use serde_json::{Value, json};
use std::path::PathBuf;

const CASE: &str = "tests/logs/ai/backend/tools/terminal/basic/terminal-basic-command";

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diff")
}

fn testdeck(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("testdeck")
        .expect("binary")
        .arg("--root")
        .arg(fixture())
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json_of(args: &[&str]) -> (i32, Value) {
    let (code, out, err) = testdeck(args);
    let v = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    (code, v)
}

#[test]
fn default_pair_reports_first_divergence_and_changed_fields() {
    let (code, v) = json_of(&["diff", "--case", "terminal-basic-command", "--json"]);
    assert_eq!(code, 1, "differences exit 1");
    assert_eq!(v["a"]["runId"], "20261103-100000-000", "latest passed");
    assert_eq!(v["b"]["runId"], "20261102-100000-000", "latest failed");
    assert_eq!(v["a"]["status"], "passed");
    assert_eq!(v["b"]["status"], "failed");
    assert_eq!(
        v["firstDivergence"]["index"], 2,
        "the inserted step is the third row"
    );
    assert_eq!(v["firstDivergence"]["key"], "step:retry-connect");
    assert_eq!(v["firstDivergence"]["reason"], "only-in-b");
    assert_eq!(v["firstDivergence"]["a"], Value::Null);
    assert_eq!(v["firstDivergence"]["b"]["name"], "retry-connect");

    let events = v["events"].as_array().expect("events");
    let keys: Vec<&str> = events.iter().filter_map(|e| e["key"].as_str()).collect();
    assert_eq!(
        keys,
        [
            "run:start",
            "step:open-terminal",
            "step:retry-connect",
            "step:run-command",
            "assertion:exit-code",
            "signal:ipc",
            "run:end"
        ]
    );
    let assertion = &events[4];
    assert_eq!(assertion["a"]["index"], 3);
    assert_eq!(assertion["b"]["index"], 4);
    assert_eq!(
        assertion["changes"],
        json!([
            {"field": "status", "a": "ok", "b": "failed"},
            // the SGR colour B's message ends with is removed before comparing (issue 14)
            {"field": "message", "a": "exit code 0", "b": "exit code 2"},
            {"field": "data.exitCode", "a": 0, "b": 2},
            {"field": "data.stdout.lines", "a": 3, "b": 0},
            {"field": "data.stderr", "b": "boom"}
        ])
    );
    // durations: data.durationMs wins over the gap to the next ts
    assert_eq!(events[3]["durationMsA"], 150);
    assert_eq!(events[3]["durationMsB"], 900);
    assert_eq!(events[1]["durationMsA"], 200);
    assert_eq!(events[1]["durationMsB"], 100);
    assert_eq!(events[6]["durationMsA"], Value::Null);
    assert_eq!(events[0]["changes"], json!([]));

    let meta_fields: Vec<&str> = v["meta"]
        .as_array()
        .expect("meta")
        .iter()
        .filter_map(|m| m["field"].as_str())
        .collect();
    assert_eq!(
        meta_fields,
        [
            "status",
            "stats.durationMs",
            "stats.steps",
            "stats.errors",
            "stats.artifacts",
            "runtime.modelName"
        ]
    );
    assert_eq!(
        v["meta"][5],
        json!({"field": "runtime.modelName", "a": "model-a", "b": "model-b"})
    );
    let kinds = |side: &str| -> Vec<String> {
        v["artifacts"][side]
            .as_array()
            .expect("list")
            .iter()
            .map(|a| {
                format!(
                    "{}:{}",
                    a["kind"].as_str().unwrap_or(""),
                    a["path"].as_str().unwrap_or("")
                )
            })
            .collect()
    };
    assert_eq!(kinds("a"), ["trace:artifacts/trace.zip"]);
    assert_eq!(
        kinds("b"),
        [
            "trace:artifacts/trace.zip",
            "screenshot:artifacts/exit-code.png"
        ]
    );
    assert_eq!(v["artifacts"]["b"][1]["assertionId"], "a1");
}

#[test]
fn text_is_aligned_marked_and_escaped() {
    let (code, out, _) = testdeck(&["diff", "--case", "terminal-basic-command"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("first divergence: #3 step:retry-connect  (only in B)"),
        "{out}"
    );
    assert!(out.contains("▶ step:retry-connect"), "{out}");
    assert!(out.contains("data.stderr: — → \"boom\""), "{out}");
    assert!(
        out.contains("runtime.modelName: \"model-a\" → \"model-b\""),
        "{out}"
    );
    assert!(
        out.contains("B: screenshot  shot  artifacts/exit-code.png"),
        "{out}"
    );
    assert!(
        !out.contains('\u{1b}'),
        "no raw escape reaches the terminal"
    );
    // the A and B columns start at the same place on every timeline row
    let rows: Vec<&str> = out
        .lines()
        .skip_while(|l| *l != "timeline")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter(|l| !l.starts_with("      "))
        .collect();
    let col = |l: &str| {
        l.chars()
            .position(|c| c == '✓' || c == '·' || c == '✗' || c == '—')
    };
    let first = col(rows[1]);
    assert!(rows[1..].iter().all(|r| col(r) == first), "{rows:#?}");
}

#[test]
fn runs_by_folder_and_by_runid_identical_runs_exit_0() {
    let a = format!("{CASE}/20261101-100000-000");
    let (code, v) = json_of(&["diff", &a, "20261103-100000-000", "--json"]);
    // both passed with the same events: only the ts differ, which is not a change
    assert_eq!(v["firstDivergence"], Value::Null, "{v}");
    assert_eq!(v["meta"], json!([]));
    assert_eq!(code, 0);
    let abs = fixture().join(&a);
    let (code, out, _) = testdeck(&["diff", abs.to_str().expect("utf8"), &a]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("first divergence: none"), "{out}");
}

#[test]
fn usage_errors() {
    // the same runId in two cases: a usage error naming both folders
    let (code, _, err) = testdeck(&["diff", "20261102-100000-000", "20261101-100000-000"]);
    assert_eq!(code, 2);
    assert!(err.contains("ambiguous"), "{err}");
    assert!(
        err.contains("terminal-basic-command/20261102-100000-000"),
        "{err}"
    );
    assert!(
        err.contains("terminal-boundary/20261102-100000-000"),
        "{err}"
    );

    let other =
        "tests/logs/ai/backend/tools/terminal/boundary/terminal-boundary/20261102-100000-000";
    let a = format!("{CASE}/20261101-100000-000");
    let (code, _, err) = testdeck(&["diff", &a, other]);
    assert_eq!(code, 2);
    assert!(err.contains("different cases"), "{err}");
    let (code, v) = json_of(&["diff", &a, other, "--force", "--json"]);
    assert_eq!(code, 1);
    assert_eq!(v["firstDivergence"]["key"], "step:run-command");
    assert_eq!(v["firstDivergence"]["reason"], "only-in-a");

    let (code, _, err) = testdeck(&["diff", "nope", &a]);
    assert_eq!(code, 2);
    assert!(
        err.contains("nope: no run folder or runId matches"),
        "{err}"
    );
    let (code, _, err) = testdeck(&["diff", CASE, &a]);
    assert_eq!(code, 2);
    assert!(err.contains("not a run folder"), "{err}");
    let (code, _, err) = testdeck(&["diff", "--case", "terminal-boundary"]);
    assert_eq!(code, 2);
    assert!(err.contains("no failed run"), "{err}");
    let (code, _, _) = testdeck(&["diff", &a]);
    assert_eq!(code, 2);
}

#[test]
fn broken_runs_are_problems_not_panics() {
    let dir = crate::common::fs::scratch_dir();
    let case = dir.path().join("tests/logs/d/backend/s/c");
    for (run, meta, timeline) in [
        (
            "20260101-000000-000",
            "{\"status\": 3,",
            "not json\n{\"type\":\"step\"}\n",
        ),
        ("20260102-000000-000", "[]", "\u{1}\u{ff}\n"),
    ] {
        let r = case.join(run);
        std::fs::create_dir_all(&r).expect("mkdir");
        std::fs::write(r.join("meta.json"), meta).expect("meta");
        std::fs::write(r.join("timeline.jsonl"), timeline).expect("timeline");
        std::fs::write(r.join("artifacts.json"), "{\"items\": 7}").expect("artifacts");
    }
    let out = Command::cargo_bin("testdeck")
        .expect("binary")
        .arg("--root")
        .arg(dir.path())
        .args([
            "diff",
            "20260101-000000-000",
            "20260102-000000-000",
            "--json",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(
        v["problems"].as_array().is_some_and(|p| p.len() >= 3),
        "{v}"
    );
}
