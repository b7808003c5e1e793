//! Counted by test (SPEC §1.2 *Tests inside a case file*, §2.1): a real `sh`
//! runner writes two case files' runs with the per-test events of
//! `docs/per-test-events.md`; `run` (text, `--json`, `--junit`) and `stats
//! --json` count the tests beside the cases, and `run` prints each case whole
//! before the next case's runner line.

use crate::common;
use serde_json::{Value, json};
use std::path::Path;

/// The runner: case `a` (3 tests, one passed on its retry), then case `b` (2
/// tests, one failed), saying which case it starts on its stdout, then waiting
/// as a framework starts; after `a`'s `meta.json` it names `b` at once.
const RUNNER: &str = r#"
set -e
logs=tests/logs/web/unit/dates
ev() { printf '%s\n' "$2" >> "$1/timeline.jsonl"; }
meta() {
  printf '{"schemaVersion":4,"runId":"%s","caseId":"%s","scope":"web/unit/dates","status":"%s","startedAt":"2026-03-01T10:00:00Z","finishedAt":"2026-03-01T10:00:01Z","stats":{"durationMs":40,"steps":3,"assertions":0,"errors":0,"artifacts":0}}' "$2" "$3" "$4" > "$1/meta.json"
}
echo "runner: starting a"
sleep 0.3
d=$logs/a/20260301-100000-001; mkdir -p "$d"
ev "$d" '{"type":"run","name":"run/start","status":"info","message":"started","data":{"code":{"commit":"c0ffee","dirty":null}}}'
ev "$d" '{"type":"step","name":"dates › a › pads","status":"ok","id":"t1","message":"passed","data":{"kind":"test","titlePath":["dates","a","pads"],"location":{"file":"tests/web/unit/dates/a.test.ts","line":3,"column":3},"durationMs":2,"retry":0}}'
ev "$d" '{"type":"step","name":"dates › a › rounds","status":"failed","id":"t2","message":"failed: flaky","data":{"kind":"test","titlePath":["dates","a","rounds"],"location":{"file":"tests/web/unit/dates/a.test.ts","line":7,"column":3},"durationMs":3,"retry":0}}'
ev "$d" '{"type":"step","name":"dates › a › rounds","status":"ok","id":"t3","message":"passed","data":{"kind":"test","titlePath":["dates","a","rounds"],"location":{"file":"tests/web/unit/dates/a.test.ts","line":7,"column":3},"durationMs":3,"retry":1}}'
ev "$d" '{"type":"step","name":"dates › a › later","status":"ok","id":"t4","message":"passed","data":{"kind":"test","titlePath":["dates","a","later"],"location":{"file":"tests/web/unit/dates/a.test.ts","line":11,"column":3},"durationMs":1,"retry":0}}'
ev "$d" '{"type":"run","name":"run/finish","status":"ok","message":"passed","data":{"tests":{"total":3,"passed":3,"failed":0,"skipped":0}}}'
meta "$d" 20260301-100000-001 a passed
echo "runner: starting b"
sleep 0.4
d=$logs/b/20260301-100000-002; mkdir -p "$d"
ev "$d" '{"type":"run","name":"run/start","status":"info","message":"started","data":{"code":{"commit":"c0ffee","dirty":null}}}'
ev "$d" '{"type":"step","name":"dates › b › parses","status":"ok","id":"t1","message":"passed","data":{"kind":"test","titlePath":["dates","b","parses"],"location":{"file":"tests/web/unit/dates/b.test.ts","line":4,"column":3},"durationMs":2,"retry":0}}'
ev "$d" '{"type":"step","name":"dates › b › keeps the zone","status":"failed","id":"t2","message":"failed: expected 0 to be 5","data":{"kind":"test","titlePath":["dates","b","keeps the zone"],"location":{"file":"tests/web/unit/dates/b.test.ts","line":9,"column":3},"durationMs":2,"retry":0}}'
ev "$d" '{"type":"assertion","name":"dates › b › keeps the zone","status":"failed","id":"t2.e1","message":"expected 0 to be 5 // Object.is equality","data":{"kind":"test-error","test":"t2","error":{"message":"expected 0 to be 5 // Object.is equality","expected":"5","actual":"0"},"location":{"file":"tests/web/unit/dates/b.test.ts","line":10,"column":5}}}'
ev "$d" '{"type":"run","name":"run/finish","status":"failed","message":"failed","data":{"tests":{"total":2,"passed":1,"failed":1,"skipped":0}}}'
meta "$d" 20260301-100000-002 b failed
echo "runner: done"
"#;

fn workspace() -> tempfile::TempDir {
    let dir = common::fs::scratch_dir();
    let root = dir.path();
    for f in ["a", "b"] {
        common::fs::write(
            root,
            &format!("tests/web/unit/dates/{f}.test.ts"),
            "// a case file\n",
        );
    }
    common::fs::write(root, "runner.sh", RUNNER);
    common::fs::write(
        root,
        "testdeck.toml",
        "[runner]\ncommand = [\"sh\", \"runner.sh\"]\n",
    );
    dir
}

fn testdeck(root: &Path, args: &[&str]) -> (String, Option<i32>) {
    let out = common::cli::at(root).args(args).output().expect("run");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code(),
    )
}

#[test]
fn run_counts_the_tests_beside_the_cases() {
    let ws = workspace();
    let (text, code) = testdeck(ws.path(), &["run", "web/unit/dates"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("summary: 2 cases: 1 ✓ 1 ✗ · 5 tests: 4 ✓ 1 ✗"),
        "{text}"
    );
}

#[test]
fn run_json_and_stats_json_carry_the_test_counts() {
    let ws = workspace();
    let (out, _) = testdeck(ws.path(), &["run", "--json", "web/unit/dates"]);
    let lines = common::cli::json_lines(out.as_bytes());
    let summary = lines.last().expect("summary");
    assert_eq!(summary["type"], "summary");
    assert_eq!(
        summary["tests"],
        json!({"total": 5, "passed": 4, "failed": 1, "skipped": 0})
    );
    let by_id = |id: &str| -> Value {
        summary["results"]
            .as_array()
            .expect("results")
            .iter()
            .find(|r| r["id"] == id)
            .map_or_else(
                || panic!("no result {id}: {summary}"),
                |r| r["tests"].clone(),
            )
    };
    // the retried test counts once, by its last attempt
    assert_eq!(by_id("web/unit/dates/a")["passed"], 3);
    assert_eq!(by_id("web/unit/dates/b")["failed"], 1);
    let (stats, code) = testdeck(ws.path(), &["stats", "--json"]);
    assert_eq!(code, Some(0), "{stats}");
    let doc: Value = serde_json::from_str(&stats).expect("json");
    let node = |path: &str| -> Value {
        doc["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .find(|n| n["path"] == path)
            .cloned()
            .unwrap_or_else(|| panic!("no node {path:?}: {doc}"))
    };
    assert_eq!(
        node("")["tests"],
        json!({"total": 5, "passed": 4, "failed": 1, "skipped": 0})
    );
    assert_eq!(node("web/unit/dates/b")["tests"]["failed"], 1);
    assert_eq!(node("web/unit")["tests"]["total"], 5);
}

#[test]
fn junit_writes_one_testcase_per_test_in_the_case_suite() {
    let ws = workspace();
    let file = ws.path().join("junit.xml");
    let file_arg = file.display().to_string();
    let (_, code) = testdeck(
        ws.path(),
        &["run", "web/unit/dates", "--junit", file_arg.as_str()],
    );
    assert_eq!(code, Some(1));
    let xml = std::fs::read_to_string(&file).expect("junit.xml");
    assert!(
        xml.contains(
            r#"<testsuites name="testdeck" tests="5" skipped="0" failures="1" errors="0">"#
        ),
        "{xml}"
    );
    assert!(
        xml.contains(
            r#"<testsuite name="web/unit/dates/b" tests="2" skipped="0" errors="0" failures="1">"#
        ),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<testcase name="dates › b › keeps the zone" classname="web/unit/dates/b""#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<failure message="expected 0 to be 5 // Object.is equality" type="fail">"#),
        "{xml}"
    );
}

/// Issue 44: the next case's runner line came before the previous case's
/// `run/finish`. Each case is printed whole, its end first.
#[test]
fn run_prints_each_case_whole_before_the_next_case_begins() {
    let ws = workspace();
    let (text, _) = testdeck(ws.path(), &["run", "web/unit/dates"]);
    let at = |needle: &str| {
        text.lines()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle:?}:\n{text}"))
    };
    let finish_a = text
        .lines()
        .position(|l| l.contains("web/unit/dates/a") && l.contains("run/finish"))
        .unwrap_or_else(|| panic!("no run/finish of a:\n{text}"));
    let end_a = at("✓ web/unit/dates/a");
    let starting_b = at("runner: starting b");
    assert!(
        finish_a < starting_b && end_a < starting_b,
        "a's run/finish (line {finish_a}) and end (line {end_a}) must come before b's runner line (line {starting_b}):\n{text}"
    );
    assert!(at("runner: starting a") < finish_a, "{text}");
}

/// Issue 40: a run that ran no test (`No tests found.`) says why in `explain`
/// and in the statistics, and is no duration sample (no regression of it).
#[test]
fn a_run_of_no_test_says_why_and_is_no_sample() {
    let ws = common::fs::scratch_dir();
    let root = ws.path();
    common::fs::write(root, "tests/web/unit/dates/a.test.ts", "// a case file\n");
    for (i, (ms, total)) in [(100, 3), (100, 3), (100, 3), (900, 0)].iter().enumerate() {
        let id = format!("20260301-10000{i}-000");
        let dir = format!("tests/logs/web/unit/dates/a/{id}");
        let finish = if *total == 0 {
            r#"{"type":"run","name":"run/finish","status":"failed","message":"no test","data":{"tests":{"total":0,"passed":0,"failed":0,"skipped":0},"noTests":"No tests found."}}"#.to_owned()
        } else {
            format!(
                r#"{{"type":"run","name":"run/finish","status":"ok","message":"passed","data":{{"tests":{{"total":{total},"passed":{total},"failed":0,"skipped":0}}}}}}"#
            )
        };
        common::fs::write(
            root,
            &format!("{dir}/timeline.jsonl"),
            &format!("{finish}\n"),
        );
        let status = if *total == 0 { "failed" } else { "passed" };
        common::fs::write(
            root,
            &format!("{dir}/meta.json"),
            &format!(
                r#"{{"schemaVersion":4,"runId":"{id}","caseId":"a","scope":"web/unit/dates","status":"{status}","startedAt":"2026-03-01T10:00:0{i}Z","finishedAt":"2026-03-01T10:00:0{i}Z","stats":{{"durationMs":{ms},"steps":1,"assertions":0,"errors":0,"artifacts":0}}}}"#
            ),
        );
    }
    let (out, _) = testdeck(root, &["explain", "web/unit/dates/a", "--json"]);
    let doc: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(doc["noTests"], "No tests found.", "{doc}");
    let (text, _) = testdeck(root, &["explain", "web/unit/dates/a"]);
    assert!(text.starts_with("ran no test: No tests found.\n"), "{text}");
    let (out, _) = testdeck(root, &["insights", "--json"]);
    let doc: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(doc["regressions"], json!([]), "{doc}");
    // a fail of no test is no new failure either: it is no outcome
    assert_eq!(doc["newFailures"], json!([]), "{doc}");
    let (out, _) = testdeck(root, &["stats", "--json"]);
    let doc: Value = serde_json::from_str(&out).expect("json");
    let case = doc["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .find(|n| n["path"] == "web/unit/dates/a")
        .cloned()
        .expect("case node");
    assert_eq!(case["noTests"], "No tests found.", "{case}");
    assert_eq!(case["durationMs"]["last"], Value::Null, "{case}");
    assert_eq!(case["tests"]["total"], 0, "{case}");
}
