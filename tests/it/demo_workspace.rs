//! The bundled demo workspace: `testdeck demo` copies it whole, it loads cleanly,
//! and its statistics and report match the numbers counted by hand from its logs.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::logs::RunStatus;
use testdeck_core::workspace::stats::{self, Window};

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo")
}

fn testdeck() -> Command {
    Command::cargo_bin("testdeck").expect("testdeck binary")
}

/// Every regular file under `dir`, relative, with `/`, sorted.
fn files(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).expect("read_dir") {
            let e = e.expect("entry");
            let p = e.path();
            if e.file_type().expect("type").is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).expect("under root");
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn json_of(args: &[&str]) -> Value {
    let out = testdeck().args(args).output().expect("run testdeck");
    serde_json::from_slice(&out.stdout).expect("one JSON document")
}

#[test]
fn copy_to_writes_every_file_byte_for_byte() {
    let tmp = crate::common::fs::scratch_dir();
    let dest = tmp.path().join("demo");
    let out = testdeck()
        .args(["demo", "--copy-to"])
        .arg(&dest)
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        dest.display().to_string()
    );
    let want = files(&demo());
    assert_eq!(files(&dest), want);
    for f in &want {
        assert_eq!(
            std::fs::read(dest.join(f)).expect("copied"),
            std::fs::read(demo().join(f)).expect("asset"),
            "{f}"
        );
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dest.join("scripts/test-workflow.sh"))
            .expect("runner")
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111, "runner is executable: {mode:o}");
    }
    // a second copy into the now non-empty folder is refused (exit 2), nothing overwritten
    testdeck()
        .args(["demo", "--copy-to"])
        .arg(&dest)
        .assert()
        .code(2);
}

#[test]
fn path_only_makes_a_fresh_copy_each_time() {
    let first = testdeck()
        .args(["demo", "--path-only"])
        .output()
        .expect("run");
    let second = testdeck()
        .args(["demo", "--path-only"])
        .output()
        .expect("run");
    let a = PathBuf::from(String::from_utf8_lossy(&first.stdout).trim());
    let b = PathBuf::from(String::from_utf8_lossy(&second.stdout).trim());
    assert_ne!(a, b);
    for d in [&a, &b] {
        assert!(d.join("testdeck.toml").is_file(), "{}", d.display());
        assert!(d.join(".pouch/tester/catalog.yaml").is_file());
    }
    // the copy is a workspace of its own: it loads from anywhere
    let ws = Workspace::load(&a).expect("load copy");
    assert_eq!(ws.tests.cases.len(), 20);
    std::fs::remove_dir_all(&a).expect("clean up");
    std::fs::remove_dir_all(&b).expect("clean up");
}

#[test]
fn demo_loads_with_the_expected_shape() {
    let ws = Workspace::load(&demo()).expect("load demo");
    let cases = &ws.tests.cases;
    assert_eq!(cases.len(), 20, "18 formal + 2 temp case files");
    assert_eq!(cases.iter().filter(|c| c.temp).count(), 2);
    let unregistered: Vec<_> = cases.iter().filter(|c| !c.registered).collect();
    assert_eq!(unregistered.len(), 1);
    assert_eq!(unregistered[0].case_id, "docx-export-huge-table");
    let live: Vec<_> = cases
        .iter()
        .filter(|c| c.live)
        .map(|c| c.case_id.as_str())
        .collect();
    assert_eq!(
        live,
        ["terminal-live-plan-execute", "kb-search-live-rerank"]
    );
    let groups: std::collections::BTreeSet<_> = cases
        .iter()
        .flat_map(|c| c.levels.groups.iter().cloned())
        .collect();
    for g in ["basic", "boundary", "scenario", "live", "terminal"] {
        assert!(groups.contains(g), "group {g}");
    }
    // a case directly under its suite
    let open = cases
        .iter()
        .find(|c| c.case_id == "workbench-open")
        .expect("workbench-open");
    assert!(open.levels.groups.is_empty() && open.levels.suite.as_deref() == Some("workbench"));

    let runs = &ws.logs.runs;
    assert_eq!(runs.len(), 70, "67 counted + 2 temp + 1 in progress");
    assert_eq!(
        runs.iter()
            .filter(|r| r.status == RunStatus::InProgress)
            .count(),
        1
    );
    assert_eq!(runs.iter().filter(|r| r.is_temp()).count(), 2);
    // both registration styles reach the plan entry
    let section = ws.plan.entry("terminal-basic-command").expect("section");
    assert!(section.text.starts_with("### terminal-basic-command"));
    assert!(section.text.contains("- Oracle:"));
    let row = ws.plan.entry("kb-search-basic").expect("row");
    assert!(row.text.starts_with("| caseId |"));
    assert!(row.text.ends_with("| 不验证排序细节 |"));
    // the only problem of the tests tree and logs is the deliberately unregistered case
    let problems: Vec<_> = ws
        .problems
        .iter()
        .filter(|p| !p.file.starts_with(".pouch/"))
        .collect();
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn validate_reports_only_the_deliberate_problems() {
    let v = json_of(&[
        "validate",
        "--json",
        "--root",
        demo().to_str().expect("utf-8"),
    ]);
    let mut problems: Vec<(String, String)> = v["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .map(|p| {
            (
                p["rule"].as_str().expect("rule").to_owned(),
                p["file"].as_str().expect("file").to_owned(),
            )
        })
        .collect();
    problems.sort();
    // the unregistered case and the legacy `execution` field are there on purpose
    assert_eq!(
        problems,
        [
            (
                "case-unregistered".to_owned(),
                "tests/docx/backend/export/boundary/docx-export-huge-table.test.ts".to_owned()
            ),
            (
                "execution-legacy".to_owned(),
                ".pouch/tester/catalog.yaml".to_owned()
            ),
        ]
    );
}

#[test]
fn list_json_has_tests_cases_and_the_orphan() {
    let v = json_of(&["list", "--json", "--root", demo().to_str().expect("utf-8")]);
    let cases = v["cases"].as_array().expect("cases");
    let tests: Vec<&Value> = cases.iter().filter(|c| c["source"] == "tests").collect();
    let by_id = |id: &str| {
        tests
            .iter()
            .find(|c| c["id"] == id)
            .copied()
            .unwrap_or_else(|| panic!("{id} listed"))
    };
    let flaky = by_id("kb-search-multi-doc-ranking");
    assert_eq!(flaky["runCount"], 11);
    assert_eq!(flaky["latestStatus"], "failed");
    assert_eq!(flaky["scope"], "kb-search/backend/query/scenario");
    assert_eq!(by_id("terminal-live-plan-execute")["live"], true);
    assert_eq!(by_id("kb-tokenizer-probe")["temp"], true);
    assert_eq!(by_id("docx-export-huge-table")["registered"], false);
    assert_eq!(by_id("docx-export-legacy-styles")["orphan"], true);
    // the in-progress run is the newest but the run count holds finished runs only
    assert_eq!(by_id("workbench-approval-flow")["runCount"], 5);
    assert_eq!(tests.iter().filter(|c| c["orphan"] != true).count(), 20);
    let catalog: Vec<&Value> = cases.iter().filter(|c| c["source"] == "catalog").collect();
    assert_eq!(catalog.len(), 24, "CLI 10, API 6, WEB 4, APP 4");
}

#[test]
fn runs_json_lists_the_in_progress_run() {
    let v = json_of(&[
        "runs",
        "--json",
        "--case",
        "workbench-approval-flow",
        "--root",
        demo().to_str().expect("utf-8"),
    ]);
    let runs = v["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 6);
    let open: Vec<&Value> = runs
        .iter()
        .filter(|r| r["status"] == "in-progress")
        .collect();
    assert_eq!(open.len(), 1);
    assert_eq!(open[0]["runId"], "20261128-101500-250");
    assert!(open[0]["finishedAt"].is_null());
}

/// (path, totalRuns, passedRuns, failedRuns, rate, latestCaseCount, latestPassed, latestFailed, rate)
type Expected = (&'static str, u64, u64, u64, f64, u64, u64, u64, f64);

/// Counted by hand from the demo's logs: temp and in-progress runs excluded, the
/// orphan counted, latest = each case's newest finished run.
const EXPECTED: [Expected; 11] = [
    ("", 67, 54, 13, 80.6, 19, 15, 4, 78.9),
    ("ai", 33, 27, 6, 81.8, 9, 8, 1, 88.9),
    ("kb-search", 25, 20, 5, 80.0, 6, 4, 2, 66.7),
    ("docx", 9, 7, 2, 77.8, 4, 3, 1, 75.0),
    ("ai/backend/tools/terminal", 15, 13, 2, 86.7, 4, 4, 0, 100.0),
    ("ai/backend/director-plan", 7, 5, 2, 71.4, 2, 2, 0, 100.0),
    ("ai/e2e/workbench", 11, 9, 2, 81.8, 3, 2, 1, 66.7),
    (
        "ai/backend/tools/terminal/basic/terminal-basic-command",
        5,
        5,
        0,
        100.0,
        1,
        1,
        0,
        100.0,
    ),
    (
        "kb-search/backend/query/scenario/kb-search-multi-doc-ranking",
        11,
        7,
        4,
        63.6,
        1,
        0,
        1,
        0.0,
    ),
    (
        "ai/e2e/workbench/scenario/workbench-approval-flow",
        5,
        3,
        2,
        60.0,
        1,
        0,
        1,
        0.0,
    ),
    (
        "docx/backend/export/basic/docx-export-legacy-styles",
        2,
        1,
        1,
        50.0,
        1,
        0,
        1,
        0.0,
    ),
];

#[test]
fn stats_json_matches_hand_counts() {
    let v = json_of(&["stats", "--json", "--root", demo().to_str().expect("utf-8")]);
    let nodes = v["nodes"].as_array().expect("nodes");
    for (path, total, passed, failed, hrate, lcount, lpassed, lfailed, lrate) in EXPECTED {
        let n = nodes
            .iter()
            .find(|n| n["path"] == path)
            .unwrap_or_else(|| panic!("node {path:?}"));
        let h = &n["historical"];
        let l = &n["latest"];
        assert_eq!(h["totalRuns"], total, "{path}");
        assert_eq!(h["passedRuns"], passed, "{path}");
        assert_eq!(h["failedRuns"], failed, "{path}");
        assert_eq!(h["historicalSuccessRate"].as_f64(), Some(hrate), "{path}");
        assert_eq!(l["latestCaseCount"], lcount, "{path}");
        assert_eq!(l["latestPassedCases"], lpassed, "{path}");
        assert_eq!(l["latestFailedCases"], lfailed, "{path}");
        assert_eq!(l["latestSuccessRate"].as_f64(), Some(lrate), "{path}");
    }
    // temp cases are in no node
    assert!(
        nodes
            .iter()
            .all(|n| !n["path"].as_str().unwrap_or_default().starts_with("temp"))
    );
}

#[test]
fn report_numbers_match_the_logs() {
    let ws = Workspace::load(&demo()).expect("load demo");
    let nodes = stats::compute(&ws.tests, &ws.logs, &Window::default());
    let report =
        std::fs::read_to_string(demo().join("tests/report/ai/report.md")).expect("report.md");
    // the fixed headings, in order
    let headings = [
        "# AI 域测试报告",
        "## 总览",
        "### 分析范围",
        "### 总体结论",
        "### 下一阶段建议",
        "## backend",
        "## e2e",
    ];
    let mut at = 0;
    for h in headings {
        let found = report[at..]
            .find(&format!("{h}\n"))
            .unwrap_or_else(|| panic!("{h} after byte {at}"));
        at += found + h.len();
    }
    // every analysed node's 通过率 block is the one `stats --markdown` prints
    for path in [
        "ai/backend/tools/terminal",
        "ai/backend/director-plan",
        "ai/e2e/workbench",
    ] {
        let n = nodes.iter().find(|n| n.path == path).expect("node");
        let block = format!("##### 通过率\n\n{}", stats::markdown_block(n));
        assert!(report.contains(&block), "{path}: {block}");
    }
    let ai = nodes.iter().find(|n| n.path == "ai").expect("ai");
    assert!(report.contains(&format!(
        "- 历史总数据: `{}` 次 raw runs，其中 `{}` 次 passed、`{}` 次 failed，historicalSuccessRate=`{}`",
        ai.historical.total_runs,
        ai.historical.passed_runs,
        ai.historical.failed_runs,
        stats::fmt_rate(ai.historical.historical_success_rate)
    )));
    assert!(report.contains(&format!(
        "- 最新总数据: `{} / {}` 个 case 的最新一轮 run 为 passed，latestSuccessRate=`{}`",
        ai.latest.latest_passed_cases,
        ai.latest.latest_case_count,
        stats::fmt_rate(ai.latest.latest_success_rate)
    )));
}

#[test]
fn failed_e2e_runs_keep_trace_screenshot_and_report() {
    let ws = Workspace::load(&demo()).expect("load demo");
    let failed_e2e: Vec<_> = ws
        .logs
        .runs
        .iter()
        .filter(|r| r.scope.contains("/e2e/") && r.status == RunStatus::Failed)
        .collect();
    assert_eq!(failed_e2e.len(), 3);
    for r in failed_e2e {
        let dir = demo().join(&r.path);
        let items: Value = serde_json::from_slice(
            &std::fs::read(dir.join("artifacts.json")).expect("artifacts.json"),
        )
        .expect("json");
        let items = items["items"].as_array().expect("items");
        let kinds: Vec<&str> = items.iter().filter_map(|i| i["kind"].as_str()).collect();
        assert!(kinds.contains(&"trace") && kinds.contains(&"playwright-report"));
        let shot = items
            .iter()
            .find(|i| i["kind"] == "screenshot")
            .expect("failure screenshot");
        assert!(shot["refs"]["assertionId"].is_string());
        let png = std::fs::read(dir.join(shot["path"].as_str().expect("path"))).expect("png");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let zip = std::fs::read(dir.join("artifacts/trace.zip")).expect("trace");
        assert_eq!(&zip[..4], b"PK\x03\x04");
        assert!(dir.join("artifacts/playwright/report/index.html").is_file());
    }
    // one failed flow kept its video: a WebM (EBML magic)
    let video = demo().join(
        "tests/logs/ai/e2e/workbench/scenario/workbench-approval-flow/20261126-104125-203/artifacts/video.webm",
    );
    let bytes = std::fs::read(video).expect("video");
    assert_eq!(&bytes[..4], b"\x1a\x45\xdf\xa3");
    assert!(bytes.windows(4).any(|w| w == b"webm"));
}

#[test]
fn a_timeline_message_carries_a_hostile_escape_sequence() {
    let ws = Workspace::load(&demo()).expect("load demo");
    let hostile = ws.logs.runs.iter().any(|r| {
        std::fs::read_to_string(demo().join(&r.path).join("timeline.jsonl"))
            .is_ok_and(|t| t.contains("\\u001b]52;c;") && t.contains("\\u001b[2J"))
    });
    assert!(hostile, "an OSC 52 write and a screen clear, JSON-escaped");
}
