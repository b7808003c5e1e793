//! Raw-log contract drift, report.md checks and plan entries on fixture workspaces
//! built in a temporary folder: a clean one with no problem, then one drift at a time.

use crate::common;
use common::fs::write;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use testdeck_core::workspace::{Workspace, validate::validate};

const PLAN: &str = "# Plan\n\n## tool-call\n\n- What: a tool call returns.\n- Oracle: status ok.\n\n## page-open\n\n- What: the page opens.\n";
const E2E: &str = "tests/logs/web/e2e/pages/page-open/20260301-100000-000";
const BACK: &str = "tests/logs/web/backend/tools/tool-call/20260301-090000-000";

fn meta(run_id: &str, case_id: &str, scope: &str, status: &str) -> Value {
    json!({
        "schemaVersion": 4, "runId": run_id, "caseId": case_id, "scope": scope, "status": status,
        "startedAt": "2026-03-01T10:00:00.000Z", "finishedAt": "2026-03-01T10:00:01.000Z",
        "stats": {"durationMs": 1000, "steps": 1, "assertions": 1, "errors": 0, "artifacts": 1},
        "runtime": {"driver": "playwright", "target": "web", "modelName": null}
    })
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).expect("json")
}

/// A clean workspace: a passed backend run and a failed e2e run with trace,
/// bound failure screenshot and HTML report.
fn clean() -> tempfile::TempDir {
    let tmp = crate::common::fs::scratch_dir();
    let r = tmp.path();
    write(r, "doc/test-plan/web.md", PLAN);
    // the default runner is there (else `runner-missing`)
    write(r, "scripts/test-workflow.mjs", "// the runner\n");
    write(
        r,
        "tests/web/backend/tools/tool-call.test.ts",
        "test('x', () => {});\n",
    );
    write(
        r,
        "tests/web/e2e/pages/page-open.test.ts",
        "test('y', () => {});\n",
    );
    write(
        r,
        &format!("{BACK}/meta.json"),
        &pretty(&meta(
            "20260301-090000-000",
            "tool-call",
            "web/backend/tools",
            "passed",
        )),
    );
    write(
        r,
        &format!("{BACK}/timeline.jsonl"),
        "{\"ts\":\"t\",\"type\":\"run\",\"name\":\"start\",\"status\":\"info\",\"message\":\"m\",\"data\":null}\n",
    );
    write(r, &format!("{BACK}/runtime-events.jsonl"), "");
    write(
        r,
        &format!("{BACK}/artifacts.json"),
        &pretty(&json!({"schemaVersion": 4, "items": []})),
    );
    write(
        r,
        &format!("{E2E}/meta.json"),
        &pretty(&meta(
            "20260301-100000-000",
            "page-open",
            "web/e2e/pages",
            "failed",
        )),
    );
    write(
        r,
        &format!("{E2E}/timeline.jsonl"),
        "{\"ts\":\"t\",\"type\":\"run\",\"name\":\"start\",\"status\":\"info\",\"message\":\"m\",\"data\":null}\n{\"ts\":\"t\",\"type\":\"assertion\",\"name\":\"title\",\"status\":\"failed\",\"id\":\"a1\",\"message\":\"m\",\"data\":null}\n",
    );
    write(r, &format!("{E2E}/runtime-events.jsonl"), "{\"any\":1}\n");
    write(r, &format!("{E2E}/artifacts/trace.zip"), "PK");
    write(r, &format!("{E2E}/artifacts/failure.png"), "png");
    write(
        r,
        &format!("{E2E}/artifacts/playwright/report/index.html"),
        "<html></html>",
    );
    write(r, &format!("{E2E}/artifacts.json"), &artifacts_json(true));
    tmp
}

fn artifacts_json(with_screenshot: bool) -> String {
    let mut items =
        vec![json!({"id": "trace", "kind": "trace", "path": "artifacts/trace.zip", "refs": {}})];
    if with_screenshot {
        items.push(json!({"id": "shot", "kind": "screenshot", "path": "artifacts/failure.png", "refs": {"assertionId": "a1"}}));
    }
    items.push(json!({"id": "report", "kind": "playwright-report", "path": "artifacts/playwright/report/index.html", "refs": {}}));
    pretty(&json!({"schemaVersion": 4, "items": items}))
}

fn problems(root: &Path) -> Vec<(String, String, Option<u32>)> {
    let ws = Workspace::load(root).expect("load");
    validate(&ws)
        .into_iter()
        .map(|p| (p.rule, p.file, p.line))
        .collect()
}

#[test]
fn clean_fixture_has_no_problem() {
    let ws = clean();
    assert_eq!(problems(ws.path()), vec![]);
}

/// Apply one drift and expect exactly one problem: (rule, file, line).
fn drift(apply: impl FnOnce(&Path), rule: &str, file: &str, line: Option<u32>) {
    let ws = clean();
    apply(ws.path());
    let got = problems(ws.path());
    assert_eq!(
        got,
        vec![(rule.to_owned(), file.to_owned(), line)],
        "drift {rule}"
    );
}

fn edit_meta(root: &Path, run: &str, f: impl FnOnce(&mut serde_json::Map<String, Value>)) {
    let p = root.join(run).join("meta.json");
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(&p).expect("read")).expect("json");
    f(v.as_object_mut().expect("object"));
    std::fs::write(p, pretty(&v)).expect("write");
}

fn rm(root: &Path, rel: &str) {
    let p: PathBuf = root.join(rel);
    if p.is_dir() {
        std::fs::remove_dir_all(p).expect("rm dir");
    } else {
        std::fs::remove_file(p).expect("rm");
    }
}

#[test]
fn each_drift_is_one_located_warning() {
    let bm = format!("{BACK}/meta.json");
    drift(
        |r| {
            edit_meta(r, BACK, |m| {
                m.insert("fixture".into(), json!("x"));
            });
        },
        "meta-extra-field",
        &bm,
        Some(21),
    );
    drift(
        |r| {
            edit_meta(r, BACK, |m| {
                m.insert("schemaVersion".into(), json!(3));
            });
        },
        "meta-schema-version",
        &bm,
        Some(2),
    );
    drift(
        |r| {
            edit_meta(r, BACK, |m| {
                m.insert("status".into(), json!("blocked"));
            });
        },
        "meta-bad-status",
        &bm,
        Some(6),
    );
    drift(
        |r| {
            edit_meta(r, BACK, |m| {
                m.insert("runId".into(), json!("20260301-090000-001"));
            });
        },
        "run-id-mismatch",
        &bm,
        Some(3),
    );
    drift(
        |r| rm(r, &format!("{BACK}/runtime-events.jsonl")),
        "run-missing-runtime-events",
        BACK,
        None,
    );
    drift(
        |r| rm(r, &format!("{BACK}/artifacts.json")),
        "run-missing-artifacts-json",
        BACK,
        None,
    );
    drift(
        |r| std::fs::create_dir_all(r.join(BACK).join("artifacts")).expect("mkdir"),
        "artifacts-dir-empty",
        &format!("{BACK}/artifacts"),
        None,
    );
    drift(
        |r| {
            write(
                r,
                &format!("{BACK}/timeline.jsonl"),
                "{\"type\":\"run\",\"name\":\"s\",\"status\":\"info\",\"message\":\"m\"}\n{\"type\":\"step\",\"name\":\"s\",\"status\":\"blocked\",\"message\":\"m\"}\n",
            );
        },
        "timeline-bad-status",
        &format!("{BACK}/timeline.jsonl"),
        Some(2),
    );
    drift(
        |r| {
            write(
                r,
                &format!("{BACK}/timeline.jsonl"),
                "{\"type\":\"tool\",\"name\":\"s\",\"status\":\"info\",\"message\":\"m\"}\n",
            );
        },
        "timeline-bad-type",
        &format!("{BACK}/timeline.jsonl"),
        Some(1),
    );
    let ea = format!("{E2E}/artifacts.json");
    drift(
        |r| rm(r, &format!("{E2E}/artifacts/failure.png")),
        "artifact-missing",
        &ea,
        Some(13),
    );
    drift(
        |r| write(r, &ea, &artifacts_json(false)),
        "e2e-failed-no-screenshot",
        &ea,
        Some(3),
    );
    drift(
        |r| {
            let text = artifacts_json(true).replace("\"trace\",", "\"other\",");
            write(r, &ea, &text);
        },
        "e2e-no-trace",
        &ea,
        Some(3),
    );
    // a run folder whose name is not a runId
    drift(
        |r| {
            let from = r.join(BACK);
            let to = from.with_file_name("run-1");
            std::fs::rename(&from, &to).expect("rename");
            edit_meta(r, "tests/logs/web/backend/tools/tool-call/run-1", |m| {
                m.insert("runId".into(), json!("run-1"));
            });
        },
        "run-id-format",
        "tests/logs/web/backend/tools/tool-call/run-1",
        None,
    );
}

#[test]
fn missing_report_html_is_reported_with_the_missing_artifact() {
    let ws = clean();
    rm(ws.path(), &format!("{E2E}/artifacts/playwright"));
    let rules: Vec<String> = problems(ws.path()).into_iter().map(|p| p.0).collect();
    assert_eq!(rules, ["e2e-failed-no-report", "artifact-missing"]);
}

#[test]
fn plan_conflict_and_entries() {
    let ws = clean();
    write(
        ws.path(),
        "doc/test-plan/more.md",
        "## tool-call\n\n- What: something else.\n",
    );
    let got = problems(ws.path());
    assert_eq!(
        got,
        vec![(
            "plan-entry-conflict".to_owned(),
            "doc/test-plan/web.md".to_owned(),
            Some(3)
        )]
    );
    let w = Workspace::load(ws.path()).expect("load");
    let e = w.plan.entry("page-open").expect("entry");
    assert_eq!(e.text, "## page-open\n\n- What: the page opens.");
}

const REPORT: &str = "# Web 域测试报告

## 总览

### 分析范围

- raw logs 范围: `tests/logs/web/**`

### 总体结论

- 历史总数据: `2` 次 raw runs，其中 `1` 次 passed、`1` 次 failed，historicalSuccessRate=`50.0%`
- 最新总数据: `1 / 2` 个 case 的最新一轮 run 为 passed，latestSuccessRate=`50.0%`

### 下一阶段建议

- 补失败路径

## backend

### tools

##### 证据

- `tool-call` | run=`20260301-090000-000` | status=`passed`

##### 通过率

- 历史总数据:
  - totalRuns: 1
  - passedRuns: 1
  - failedRuns: 0
  - historicalSuccessRate: 100.0%
- 最新总数据:
  - latestCaseCount: 1
  - latestPassedCases: 1
  - latestFailedCases: 0
  - latestSuccessRate: 100.0%

##### 失败分析

- 当前没有 failed run，因此无法给出失败模式结论。

##### 当前评估

- 稳定。

##### 下一步建议

- 增加边界 case。
";

#[test]
fn report_by_hand_passes_and_one_changed_number_is_stale() {
    let ws = clean();
    write(ws.path(), "tests/report/web/report.md", REPORT);
    assert_eq!(problems(ws.path()), vec![]);
    write(
        ws.path(),
        "tests/report/web/report.md",
        &REPORT.replace("  - passedRuns: 1", "  - passedRuns: 4"),
    );
    let w = Workspace::load(ws.path()).expect("load");
    let ps = validate(&w);
    assert_eq!(ps.len(), 1, "{ps:#?}");
    assert_eq!(ps[0].rule, "report-stale");
    assert_eq!(ps[0].file, "tests/report/web/report.md");
    assert_eq!(ps[0].line, Some(30));
    assert!(
        ps[0].message.contains("\"web/backend/tools\""),
        "{}",
        ps[0].message
    );
    assert!(
        ps[0]
            .message
            .contains("passedRuns is 4 in the report but 1 in the logs"),
        "{}",
        ps[0].message
    );
    // the overview numbers are checked too
    write(
        ws.path(),
        "tests/report/web/report.md",
        &REPORT.replace(
            "historicalSuccessRate=`50.0%`",
            "historicalSuccessRate=`75.0%`",
        ),
    );
    let got = problems(ws.path());
    assert_eq!(
        got,
        vec![(
            "report-stale".to_owned(),
            "tests/report/web/report.md".to_owned(),
            Some(11)
        )]
    );
    // headings out of order
    write(
        ws.path(),
        "tests/report/web/report.md",
        &REPORT.replace("### 总体结论", "### 结论"),
    );
    let rules: Vec<String> = problems(ws.path()).into_iter().map(|p| p.0).collect();
    assert_eq!(rules, ["report-structure"]);
}

#[test]
fn stats_markdown_pasted_into_a_fresh_report_passes() {
    let ws = clean();
    let out = assert_cmd::Command::cargo_bin("testdeck")
        .expect("bin")
        .args(["stats", "--markdown", "--root"])
        .arg(ws.path())
        .output()
        .expect("run");
    assert!(out.status.success());
    let md = String::from_utf8(out.stdout).expect("utf8");
    assert!(md.starts_with("# web 域测试报告\n"), "{md}");
    write(ws.path(), "tests/report/web/report.md", &md);
    // the draft: only a person's parts are left, each a report-unwritten warning
    let found = problems(ws.path());
    assert!(!found.is_empty());
    assert!(found.iter().all(|p| p.0 == "report-unwritten"), "{found:?}");
}
