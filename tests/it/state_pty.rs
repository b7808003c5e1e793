//! Issue 27: the cockpit says what is true now. Each test drives the built
//! binary in a real pseudo-terminal on the demo workspace: filters re-fit the
//! live pane and reset with the selection, the status line keeps its names and
//! counts live external runs, the tree expands and collapses at once and shows
//! where the marked cases are.

use crate::common;
use common::Session;

const FLOW: &str = "tests/logs/ai/e2e/workbench/scenario/workbench-approval-flow";

/// A finished run of `workbench-approval-flow`, newer than the demo's: one failed
/// step first, then `n` passing steps (more than the pane holds).
fn long_run(root: &std::path::Path, n: usize) {
    let dir = format!("{FLOW}/20261130-120000-000");
    let mut t = String::from(
        "{\"ts\":\"2026-11-30T12:00:00.000Z\",\"type\":\"step\",\"name\":\"the-one-failure\",\"status\":\"failed\",\"message\":\"boom\"}\n",
    );
    for i in 0..n {
        t.push_str(&format!(
            "{{\"ts\":\"2026-11-30T12:00:01.000Z\",\"type\":\"step\",\"name\":\"filler-step-{i}\",\"status\":\"ok\"}}\n"
        ));
    }
    common::fs::write(root, &format!("{dir}/timeline.jsonl"), &t);
    common::fs::write(
        root,
        &format!("{dir}/meta.json"),
        "{\"schemaVersion\":4,\"runId\":\"20261130-120000-000\",\"caseId\":\"workbench-approval-flow\",\
         \"scope\":\"ai/e2e/workbench/scenario\",\"status\":\"failed\",\
         \"startedAt\":\"2026-11-30T12:00:00.000Z\",\"finishedAt\":\"2026-11-30T12:00:02.000Z\"}",
    );
}

/// Item 1: a run followed to its last row, then `e`: the one failed row shows,
/// not the header alone (the scroll offset is re-fitted to the rows left).
#[test]
fn failures_only_on_a_run_scrolled_down_shows_the_failed_rows() {
    let ws = common::fs::demo_copy();
    long_run(ws.path(), 200);
    let cfg = tempfile::tempdir().expect("cfg");
    let mut s = Session::start(ws.path(), cfg.path());
    s.wait_text("Tests · 21");
    s.find("'workbench-approval-flow");
    s.wait_text("filler-step-199");
    // the timeline focused and scrolled to its end (a person reading it)
    s.send("l");
    s.send("k");
    s.wait_text("[paused]");
    s.send("G");
    s.wait_text("[follow]");
    s.send("e");
    s.wait_text("[failures]");
    // its row in the timeline (the Details pane names the failure too)
    s.wait_text("failed  the-one-failure · boom");
    // and back: every row again, the cursor's row in view
    s.send("e");
    s.wait_for("the filler rows again", |sc| {
        let c = sc.contents();
        !c.contains("[failures]") && c.contains("filler-step-199")
    });
    let (p, _) = s.quit();
    assert!(!p.screen().alternate_screen());
}
