//! Issue 42, the cockpit half, in a real pseudo-terminal on the demo workspace:
//! `R` on a domain without a report shows its draft from the logs (each part a
//! person writes marked `✎`) and `y` writes it; after a new run, `u` in the
//! report view shows the update as a diff and `y` writes it, the person's own
//! line kept.

use crate::common;
use common::Session;
use std::path::Path;

/// A copy of run folder `from` as a new run `run_id` with `status`.
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
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&meta).expect("meta")).expect("json");
    m["runId"] = run_id.into();
    m["status"] = status.into();
    std::fs::write(&meta, m.to_string()).expect("meta");
}

#[test]
fn draft_then_update_in_the_cockpit() {
    let ws = common::fs::demo_copy();
    let root = ws.path();
    let file = root.join("tests/report/docx/report.md");
    assert!(!file.exists(), "the demo has no docx report");
    let cfg = common::fs::scratch_dir();
    let mut s = Session::start(root, cfg.path());
    s.wait_text("Tests · 21 ─");
    s.find("'docx-export-heading");
    s.wait_text("export/basic/docx-export-heading.test.ts");

    // no report: the draft, shown and not written
    s.send("R");
    s.wait_text("Draft · tests/report/docx/report.md");
    s.wait_text("no report for docx yet");
    s.wait_text("✎");
    s.wait_text("# docx 域测试报告");
    assert!(!file.exists(), "shown, not written");
    s.send("y");
    s.wait_text("Report · tests/report/docx/report.md");
    s.wait_text("no stale numbers");
    let draft = std::fs::read_to_string(&file).expect("the draft written");
    assert!(draft.starts_with("# docx 域测试报告\n"), "{draft}");
    assert!(draft.contains("  - totalRuns: 9\n"), "{draft}");

    // a person's line, then a new run the watcher picks up: the report is stale
    let mine = draft.replace(
        "- 当前结论: 【待填写】",
        "- 当前结论: 导出稳定，legacy styles 仍失败。",
    );
    std::fs::write(&file, &mine).expect("write");
    new_run(
        root,
        "tests/logs/docx/backend/export/basic/docx-export-heading/20261127-161119-717",
        "20261130-120000-000",
        "passed",
    );
    s.send("\x1b");
    s.wait_for("the report closed", |sc| {
        !sc.contents().contains("Report · ")
    });
    // R again until the watcher has read the new run: then its numbers are stale
    let start = std::time::Instant::now();
    loop {
        s.send("R");
        s.wait_text("Report · tests/report/docx/report.md");
        let shown = s.screen().screen().contents();
        if !shown.contains("no stale numbers") {
            assert!(shown.contains(" stale "), "{shown}");
            break;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "the new run never showed:\n{shown}"
        );
        s.send("\x1b");
        s.wait_for("the report closed", |sc| {
            !sc.contents().contains("Report · ")
        });
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    // u: the update as a diff
    s.send("u");
    s.wait_text("Update · tests/report/docx/report.md");
    s.wait_text("8 changes");
    s.wait_text("-- 历史总数据: `9` 次 raw runs");
    s.wait_text("+- 历史总数据: `10` 次 raw runs");
    // n: the next hunk, down to the 通过率 block's
    s.send("nn");
    s.wait_text("+  - totalRuns: 10");
    assert_eq!(
        std::fs::read_to_string(&file).expect("r"),
        mine,
        "shown, not written"
    );
    s.send("y");
    s.wait_text("updated tests/report/docx/report.md");
    s.wait_text("no stale numbers");
    let after = std::fs::read_to_string(&file).expect("updated");
    assert!(after.contains("- 当前结论: 导出稳定，legacy styles 仍失败。\n"));
    assert!(after.contains("  - totalRuns: 10\n"), "{after}");
    assert!(after.contains("| run=`20261130-120000-000` | status=`passed`"));
    s.quit();
}
