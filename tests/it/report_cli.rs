//! `testdeck report --draft` / `--update` (issue 42) on copies of the demo
//! workspace: the binary, real files, `validate` and `stats --json` to check them.

use crate::common;
use common::cli::at;
use common::fs::{demo_copy, write};
use serde_json::Value;
use std::path::Path;

fn run(root: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = at(root).args(args).output().expect("run");
    (
        out.status.code(),
        String::from_utf8(out.stdout).expect("utf8"),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(root: &Path, args: &[&str]) -> Value {
    let (_, out, err) = run(root, args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"))
}

/// `validate --json`'s problems of one file: (rule, line).
fn report_problems(root: &Path, file: &str) -> Vec<(String, u64)> {
    let (_, doc) = common::cli::validate_json(root);
    doc["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .filter(|p| p["file"] == file)
        .map(|p| {
            (
                p["rule"].as_str().unwrap_or("").to_owned(),
                p["line"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

/// A copy of a demo run folder as a new run with `status`.
fn new_run(root: &Path, from: &str, run_id: &str, status: &str) {
    let src = root.join(from);
    let dst = src.parent().expect("case").join(run_id);
    std::fs::create_dir_all(&dst).expect("mkdir");
    for e in std::fs::read_dir(&src).expect("run") {
        let e = e.expect("entry");
        if e.file_type().expect("type").is_file() {
            std::fs::copy(e.path(), dst.join(e.file_name())).expect("copy");
        }
    }
    let meta = dst.join("meta.json");
    let mut m: Value =
        serde_json::from_str(&std::fs::read_to_string(&meta).expect("meta")).expect("json");
    m["runId"] = run_id.into();
    m["status"] = status.into();
    std::fs::write(&meta, m.to_string()).expect("meta");
}

#[test]
fn each_demo_domain_drafts_a_report_validate_only_asks_a_person_to_finish() {
    let d = demo_copy();
    let root = d.path();
    std::fs::remove_file(root.join("tests/report/ai/report.md")).expect("rm");
    let stats = json(root, &["stats", "--json"]);
    let node = |path: &str| -> Value {
        stats["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .find(|n| n["path"] == path)
            .cloned()
            .unwrap_or_else(|| panic!("{path}"))
    };
    for domain in ["ai", "docx", "kb-search"] {
        let file = format!("tests/report/{domain}/report.md");
        // printed, nothing written
        let (code, printed, err) = run(root, &["report", "--draft", domain]);
        assert_eq!(code, Some(0), "{err}");
        assert!(!root.join(&file).exists());
        let doc = json(root, &["report", "--draft", domain, "--json"]);
        assert_eq!(doc["text"], printed.as_str());
        assert_eq!(doc["exists"], false);
        assert_eq!(doc["written"], false);
        assert!(!doc["unwritten"].as_array().expect("lines").is_empty());
        // written once, never over it
        let (code, _, err) = run(root, &["report", "--draft", domain, "--write"]);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(
            std::fs::read_to_string(root.join(&file)).expect("report"),
            printed
        );
        let (code, _, err) = run(root, &["report", "--draft", domain, "--write"]);
        assert_eq!(code, Some(2));
        assert!(err.contains("there already"), "{err}");
        let found = report_problems(root, &file);
        assert!(!found.is_empty());
        assert!(
            found.iter().all(|(r, _)| r == "report-unwritten"),
            "{domain}: {found:?}"
        );
        // its numbers are `stats --json`'s
        let n = node(domain);
        let h = &n["historical"];
        assert!(printed.contains(&format!(
            "`{}` 次 raw runs，其中 `{}` 次 passed、`{}` 次 failed",
            h["totalRuns"], h["passedRuns"], h["failedRuns"]
        )));
        let mut block_nodes = 0;
        let mut node_path: Vec<String> = vec![domain.to_owned()];
        for l in printed.lines() {
            let level = l.bytes().take_while(|&b| b == b'#').count();
            if level >= 2 {
                let text = l[level..].trim();
                if ["证据", "通过率", "失败分析", "当前评估", "下一步建议"].contains(&text)
                {
                    continue;
                }
                node_path.truncate(level - 1);
                node_path.push(text.to_owned());
                continue;
            }
            if let Some(v) = l.trim().strip_prefix("- totalRuns: ") {
                let n = node(&node_path.join("/"));
                assert_eq!(v, n["historical"]["totalRuns"].to_string(), "{node_path:?}");
                block_nodes += 1;
            }
            if let Some(v) = l.trim().strip_prefix("- latestCaseCount: ") {
                let n = node(&node_path.join("/"));
                assert_eq!(v, n["latest"]["latestCaseCount"].to_string());
            }
        }
        assert!(block_nodes > 0, "{domain}");
    }
    // no such domain, a path for a domain
    for bad in ["nope", "../ai", "temp"] {
        let (code, _, err) = run(root, &["report", "--draft", bad]);
        assert_eq!(code, Some(2), "{bad}: {err}");
    }
}

#[test]
fn an_update_after_new_runs_fixes_the_demo_report_and_keeps_every_human_line() {
    let d = demo_copy();
    let root = d.path();
    let file = "tests/report/ai/report.md";
    let before = std::fs::read_to_string(root.join(file)).expect("report");
    new_run(
        root,
        "tests/logs/ai/backend/director-plan/boundary/director-plan-approval-denied/20261120-144812-616",
        "20261130-080000-000",
        "failed",
    );
    new_run(
        root,
        "tests/logs/ai/backend/tools/terminal/basic/terminal-basic-command/20261127-125208-524",
        "20261130-090000-000",
        "passed",
    );
    let stale = report_problems(root, file);
    assert!(stale.iter().any(|(r, _)| r == "report-stale"), "{stale:?}");
    // without --write: a diff, exit 1, nothing written
    let (code, diff, err) = run(root, &["report", "--update", "ai"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        diff.starts_with("--- a/tests/report/ai/report.md\n+++ b/tests/report/ai/report.md\n@@")
    );
    assert!(
        diff.contains("\n-  - totalRuns: 7\n+  - totalRuns: 8\n"),
        "{diff}"
    );
    assert_eq!(std::fs::read_to_string(root.join(file)).expect("r"), before);
    let doc = json(root, &["report", "--update", "ai", "--json"]);
    assert_eq!(doc["changed"], true);
    assert_eq!(doc["diff"], diff.as_str());
    let changes = doc["changes"].as_array().expect("changes");
    assert!(changes.iter().any(|c| c["kind"] == "number"
        && c["node"] == "ai"
        && c["field"] == "totalRuns"
        && c["report"] == "33"
        && c["logs"] == "35"));
    assert!(
        changes
            .iter()
            .any(|c| c["kind"] == "evidence" && c["node"] == "ai/backend/director-plan")
    );
    // written: no stale number left, every line a person wrote byte-identical
    let (code, out, err) = run(root, &["report", "--update", "ai", "--write"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with("updated tests/report/ai/report.md"),
        "{out}"
    );
    assert_eq!(report_problems(root, file), vec![]);
    let after = std::fs::read_to_string(root.join(file)).expect("r");
    let human = |text: &str| -> Vec<String> {
        let mut section = String::new();
        text.lines()
            .filter(|l| {
                if l.starts_with('#') {
                    l.trim_start_matches('#').trim().clone_into(&mut section);
                    return true;
                }
                let t = l.trim();
                let backed = match section.as_str() {
                    "总体结论" => t.contains("次 raw runs") || t.contains("个 case"),
                    "通过率" => t.starts_with("- ") && t.contains(": ") && !t.ends_with(':'),
                    "证据" => t.contains("| run=`") && t.contains("| status=`"),
                    _ => false,
                };
                !backed
            })
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(human(&before), human(&after));
    assert!(after.contains(
        "- `director-plan-approval-denied` | run=`20261130-080000-000` | status=`failed` | event=`a2` | name=`oracle/no-tool-call`"
    ));
    // idempotent: a second update changes nothing
    let (code, out, _) = run(root, &["report", "--update", "ai"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("matches the logs"), "{out}");
    let (code, _, _) = run(root, &["report", "--update", "ai", "--write"]);
    assert_eq!(code, Some(0));
    assert_eq!(std::fs::read_to_string(root.join(file)).expect("r"), after);
}

#[test]
fn a_report_that_is_a_link_out_is_neither_read_nor_written() {
    let d = demo_copy();
    let root = d.path();
    let outside = common::fs::scratch_dir();
    let secret = outside.path().join("report.md");
    write(
        outside.path(),
        "report.md",
        "# secret 域测试报告\n\n- totalRuns: 1\n",
    );
    let file = root.join("tests/report/ai/report.md");
    std::fs::remove_file(&file).expect("rm");
    std::os::unix::fs::symlink(&secret, &file).expect("link");
    for args in [
        &["report", "--update", "ai"][..],
        &["report", "--update", "ai", "--write"],
        &["report", "--draft", "ai", "--write"],
    ] {
        let (code, out, err) = run(root, args);
        assert_eq!(code, Some(2), "{args:?}: {out}{err}");
        assert!(!out.contains("secret"), "{out}");
    }
    assert_eq!(
        std::fs::read_to_string(&secret).expect("secret"),
        "# secret 域测试报告\n\n- totalRuns: 1\n"
    );
    // a domain folder that is a link out: no draft is written through it
    let dir = root.join("tests/report/docx");
    std::os::unix::fs::symlink(outside.path(), &dir).expect("link dir");
    let (code, _, err) = run(root, &["report", "--draft", "docx", "--write"]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        std::fs::read_dir(outside.path()).expect("dir").count(),
        1,
        "nothing new outside"
    );
}

#[test]
fn hostile_report_text_is_kept_byte_for_byte_and_printed_escaped() {
    let d = demo_copy();
    let root = d.path();
    let file = "tests/report/ai/report.md";
    let before = std::fs::read_to_string(root.join(file)).expect("report");
    let huge = "y".repeat(200_000);
    let hostile = before.replace("totalRuns: 15", "totalRuns: 1").replace(
        "### 下一阶段建议\n",
        &format!("### 下一阶段建议\n\n- \u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[2J \u{202e}evil {huge}\n"),
    );
    write(root, file, &hostile);
    let (code, diff, _) = run(root, &["report", "--update", "ai"]);
    assert_eq!(code, Some(1));
    assert!(
        !diff.contains('\u{1b}') && !diff.contains('\u{202e}'),
        "raw escapes printed"
    );
    let (code, _, err) = run(root, &["report", "--update", "ai", "--write"]);
    assert_eq!(code, Some(0), "{err}");
    let after = std::fs::read_to_string(root.join(file)).expect("report");
    assert!(after.contains(&format!(
        "- \u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[2J \u{202e}evil {huge}\n"
    )));
    assert!(after.contains("totalRuns: 15"));
    // text that is not UTF-8 is not rewritten
    let mut bytes = hostile.into_bytes();
    bytes.extend_from_slice(b"\n- \xff\xfe\n");
    std::fs::write(root.join(file), &bytes).expect("write");
    let (code, _, err) = run(root, &["report", "--update", "ai", "--write"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("not UTF-8"), "{err}");
    assert_eq!(std::fs::read(root.join(file)).expect("r"), bytes);
}
