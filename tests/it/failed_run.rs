//! `run --failed` selects exactly the failed set on a workspace with a known
//! history: tests-tree logs written as a runner would, catalog run records made
//! by real `testdeck run` rounds whose `sh` cases pass or fail by marker files.

use crate::common;
use common::fs::write;

use serde_json::Value;
use std::net::TcpListener;
use std::path::Path;

/// A finished run (meta.json) or an in-progress one (timeline only).
fn log_run(root: &Path, scope: &str, case: &str, run_id: &str, status: Option<&str>) {
    let dir = format!("tests/logs/{scope}/{case}/{run_id}");
    write(
        root,
        &format!("{dir}/timeline.jsonl"),
        "{\"type\":\"run\",\"name\":\"start\",\"status\":\"info\",\"message\":\"m\"}\n",
    );
    if let Some(s) = status {
        write(
            root,
            &format!("{dir}/meta.json"),
            &format!(
                "{{\"schemaVersion\":4,\"runId\":\"{run_id}\",\"caseId\":\"{case}\",\"scope\":\"{scope}\",\"status\":\"{s}\"}}"
            ),
        );
    }
}

fn dead_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("port")
}

fn case(id: &str, cat: &str, risk: &str, marker: &str) -> String {
    let tag = if risk == "readonly" { "smoke" } else { "full" };
    format!(
        "  - id: {id}\n    category: {cat}\n    title: t\n    what: w\n    lifecycle: active\n    tag: {tag}\n    risk: {risk}\n    driver: script\n    how:\n      run: echo {id} >> ran.txt && test ! -e {marker}\n    expected:\n      - kind: script-exit\n        value: 0\n"
    )
}

fn workspace() -> tempfile::TempDir {
    let dir = crate::common::fs::scratch_dir();
    let root = dir.path();
    // the tests runner only records what it was asked to run
    write(
        root,
        "testdeck.toml",
        "[runner]\ncommand = [\"sh\", \"-c\", \"echo \\\"$*\\\" >> asked.txt\", \"runner\"]\n",
    );
    write(
        root,
        "doc/test-plan/plan.md",
        "case-a case-b case-c case-d case-e\n",
    );
    for f in [
        "ai/backend/tools/basic/case-a",
        "ai/backend/tools/basic/case-b",
        "ai/backend/tools/boundary/case-c",
        "ai/backend/tools/boundary/case-d",
        "ai/backend/tools/live/case-e",
        "temp/probe/case-t",
    ] {
        write(root, &format!("tests/{f}.test.ts"), "// case\n");
    }
    let basic = "ai/backend/tools/basic";
    log_run(root, basic, "case-a", "20261101-100000-000", Some("passed"));
    log_run(root, basic, "case-a", "20261102-100000-000", Some("failed"));
    log_run(root, basic, "case-b", "20261101-100000-000", Some("failed"));
    log_run(root, basic, "case-b", "20261102-100000-000", Some("passed"));
    let boundary = "ai/backend/tools/boundary";
    log_run(
        root,
        boundary,
        "case-c",
        "20261101-100000-000",
        Some("failed"),
    );
    log_run(root, boundary, "case-c", "20261102-100000-000", None);
    log_run(
        root,
        "ai/backend/tools/live",
        "case-e",
        "20261101-100000-000",
        Some("failed"),
    );
    log_run(
        root,
        "temp/probe",
        "case-t",
        "20261101-100000-000",
        Some("failed"),
    );
    // logged, failed, but its test file is gone: nothing to rerun
    log_run(
        root,
        basic,
        "case-gone",
        "20261101-100000-000",
        Some("failed"),
    );

    write(
        root,
        ".pouch/tester/catalog.yaml",
        &format!(
            "categories:\n  - id: MAIN\n    title: main\n  - id: DEAD\n    title: a probe nobody answers\n    status_probe:\n      url: http://${{HOST}}:{}/health\n      stop_if:\n        status: [down]\nrisks: [readonly, mutating]\ndefault_max_risk: mutating\nauthorize:\n  mutating: TD_FAILED_ALLOW_MUTATING\nid_pattern: \"TC-[A-Z]+-[0-9]{{3}}\"\n",
            dead_port()
        ),
    );
    let main: String = [
        case("TC-MAIN-001", "MAIN", "readonly", "fail-1"),
        case("TC-MAIN-002", "MAIN", "readonly", "fail-2"),
        case("TC-MAIN-003", "MAIN", "readonly", "fail-3"),
        case("TC-MAIN-004", "MAIN", "mutating", "fail-4"),
        case("TC-MAIN-005", "MAIN", "readonly", "fail-5"),
        case("TC-MAIN-006", "MAIN", "readonly", "fail-6"),
    ]
    .concat();
    write(
        root,
        ".pouch/tester/cases/main.yaml",
        &format!("category: MAIN\ncases:\n{main}"),
    );
    write(
        root,
        ".pouch/tester/cases/dead.yaml",
        &format!(
            "category: DEAD\ncases:\n{}",
            case("TC-DEAD-001", "DEAD", "readonly", "fail-dead")
        ),
    );
    dir
}

fn testdeck(root: &Path, args: &[&str]) -> (i32, Vec<Value>) {
    let out = common::cli::at(root)
        .args(args)
        .env_remove("TD_FAILED_ALLOW_MUTATING")
        .env_remove("HOST")
        .output()
        .expect("testdeck");
    let lines = common::cli::json_lines(&out.stdout);
    (out.status.code().expect("code"), lines)
}

fn verdicts(lines: &[Value]) -> Vec<(String, String)> {
    lines
        .last()
        .and_then(|s| s["results"].as_array())
        .expect("summary")
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap_or("").to_owned(),
                r["verdict"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

#[test]
fn run_failed_selects_exactly_the_failed_set() {
    let ws = workspace();
    let root = ws.path();
    // round 1: 001 002 004 005 fail, 003 006 pass, DEAD-001 environment-fail
    for m in ["fail-1", "fail-2", "fail-4", "fail-5"] {
        write(root, m, "");
    }
    let (_, l1) = testdeck(
        root,
        &["run", "--json", "MAIN", "DEAD", "--authorize", "mutating"],
    );
    assert_eq!(
        verdicts(&l1),
        [
            ("TC-MAIN-001", "fail"),
            ("TC-MAIN-002", "fail"),
            ("TC-MAIN-003", "pass"),
            ("TC-MAIN-004", "fail"),
            ("TC-MAIN-005", "fail"),
            ("TC-MAIN-006", "pass"),
            ("TC-DEAD-001", "environment-fail"),
        ]
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
    );
    // round 2, in the same second as round 1 more often than not: 002 now
    // passes, 003 fails, 004 is skipped (not authorized) so its failure stands
    std::fs::remove_file(root.join("fail-2")).expect("rm");
    write(root, "fail-3", "");
    let (_, l2) = testdeck(
        root,
        &["run", "--json", "TC-MAIN-002", "TC-MAIN-003", "TC-MAIN-004"],
    );
    assert_eq!(
        verdicts(&l2),
        [
            ("TC-MAIN-002", "pass"),
            ("TC-MAIN-003", "fail"),
            ("TC-MAIN-004", "skipped"),
        ]
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
    );

    // the core function the TUI's F calls
    let loaded = testdeck_core::Workspace::load(root).expect("load");
    let set = testdeck_exec::failed::failed_set(&loaded);
    let keys: Vec<String> = set
        .tests
        .iter()
        .map(testdeck_core::workspace::tree::TestCase::key)
        .collect();
    assert_eq!(
        keys,
        [
            "ai/backend/tools/basic/case-a",
            "ai/backend/tools/boundary/case-c",
            "ai/backend/tools/live/case-e",
            "temp/probe/case-t"
        ]
    );
    assert_eq!(
        set.catalog,
        [
            "TC-MAIN-001",
            "TC-MAIN-003",
            "TC-MAIN-004",
            "TC-MAIN-005",
            "TC-DEAD-001"
        ]
    );

    // round 3: run --failed runs exactly that set
    std::fs::remove_file(root.join("ran.txt")).expect("rm");
    let (code, l3) = testdeck(
        root,
        &[
            "run",
            "--failed",
            "--json",
            "--authorize",
            "mutating",
            "--allow-live",
        ],
    );
    assert_eq!(code, 1, "failures remain");
    assert_eq!(
        common::fs::lines(&root.join("ran.txt")),
        ["TC-MAIN-001", "TC-MAIN-003", "TC-MAIN-004", "TC-MAIN-005"],
        "DEAD-001 is stopped by its probe, the others ran"
    );
    // one runner call for the cases of four scopes, each by its file
    assert_eq!(
        common::fs::lines(&root.join("asked.txt")),
        [[
            "--case tests/ai/backend/tools/basic/case-a.test.ts",
            "--case tests/ai/backend/tools/boundary/case-c.test.ts",
            "--case tests/ai/backend/tools/live/case-e.test.ts",
            "--case tests/temp/probe/case-t.test.ts",
        ]
        .join(" ")]
    );
    let catalog: Vec<(String, String)> = verdicts(&l3)
        .into_iter()
        .filter(|(id, _)| id.starts_with("TC-"))
        .collect();
    assert_eq!(
        catalog,
        [
            ("TC-MAIN-001", "fail"),
            ("TC-MAIN-003", "fail"),
            ("TC-MAIN-004", "fail"),
            ("TC-MAIN-005", "fail"),
            ("TC-DEAD-001", "environment-fail"),
        ]
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
    );
}

#[test]
fn nothing_failed_nothing_runs() {
    let dir = crate::common::fs::scratch_dir();
    let root = dir.path();
    write(root, "tests/ai/backend/s/case-a.test.ts", "// case\n");
    log_run(
        root,
        "ai/backend/s",
        "case-a",
        "20261101-100000-000",
        Some("failed"),
    );
    log_run(
        root,
        "ai/backend/s",
        "case-a",
        "20261102-100000-000",
        Some("passed"),
    );
    let ws = testdeck_core::Workspace::load(root).expect("load");
    assert!(testdeck_exec::failed::failed_set(&ws).is_empty());
    let out = common::cli::at(root)
        .args(["run", "--failed"])
        .output()
        .expect("testdeck");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing failed"));
    assert!(!root.join("asked.txt").exists());
}
