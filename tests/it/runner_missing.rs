//! Issue 28 item 4: a workspace whose runner is not there. `run`, the cockpit
//! and `validate` each say what testdeck expected and suggest `testdeck init`.

use crate::common;
use common::Session;

/// The demo workspace without its runner script.
fn without_runner() -> tempfile::TempDir {
    let ws = common::fs::demo_copy();
    std::fs::remove_file(ws.path().join("scripts/test-workflow.sh")).expect("rm runner");
    ws
}

#[test]
fn run_without_the_runner_says_what_was_expected_and_suggests_init() {
    let ws = without_runner();
    let out = common::cli::at(ws.path())
        .args(["run", "kb-search-basic"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("runner missing: scripts/test-workflow.sh not found; run `testdeck init`"),
        "{text}"
    );
    assert!(
        text.contains("testdeck.toml") && text.contains("tests/logs/"),
        "{text}"
    );
}

/// The `runner-missing` problem of a `validate --json` document.
fn runner_missing(doc: &serde_json::Value) -> &serde_json::Value {
    doc["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .find(|p| p["rule"] == "runner-missing")
        .unwrap_or_else(|| panic!("no runner-missing in {doc:#}"))
}

#[test]
fn validate_without_the_runner_has_a_runner_missing_problem_at_testdeck_toml() {
    let ws = without_runner();
    let (code, doc) = common::cli::validate_json(ws.path());
    assert_eq!(code, Some(1), "{doc:#}");
    let p = runner_missing(&doc);
    assert_eq!(p["file"], "testdeck.toml");
    assert!(
        p["message"]
            .as_str()
            .is_some_and(|m| m.contains("testdeck init")),
        "{p:#}"
    );
    // the default runner, when testdeck.toml sets none
    std::fs::remove_file(ws.path().join("testdeck.toml")).expect("rm toml");
    let (_, doc) = common::cli::validate_json(ws.path());
    let p = runner_missing(&doc);
    assert_eq!(p["file"], "the default runner");
    assert!(
        p["message"]
            .as_str()
            .is_some_and(|m| m.contains("scripts/test-workflow.mjs not found")),
        "{p:#}"
    );
}

#[test]
fn the_cockpit_launching_without_the_runner_says_what_was_expected() {
    let ws = without_runner();
    let cfg = crate::common::fs::scratch_dir();
    // wide enough for the timeline's row to hold the message whole
    let (rows, cols) = (40, 250);
    let mut cmd = Session::command(ws.path(), cfg.path());
    cmd.env("TESTDECK_IMAGES", "halfblocks");
    let mut s = Session::spawn(cmd, rows, cols);
    let wait =
        |s: &Session, text: &str| s.wait_sized(rows, cols, text, |sc| sc.contents().contains(text));
    wait(&s, "Tests · 21");
    s.send("/");
    wait(&s, "Find cases");
    s.send("'kb-search-basic");
    wait(&s, "❯ 'kb-search-basic");
    s.send("\r");
    s.send("r");
    wait(&s, "launch done: 1 environment-fail");
    wait(
        &s,
        "runner missing: scripts/test-workflow.sh not found; run `testdeck init`",
    );
    s.send("q");
}
