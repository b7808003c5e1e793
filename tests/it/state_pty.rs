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

/// Item 2 and "filters are visible state": `e` and `t` on one case name both
/// filters in the title; selecting another case shows its events unfiltered;
/// `e` there, then `r`: the launched run's events show, no filter left on.
#[test]
fn filters_show_in_the_title_and_reset_with_the_case_and_the_launch() {
    let ws = common::fs::demo_copy();
    let cfg = tempfile::tempdir().expect("cfg");
    let mut s = Session::start_with(ws.path(), cfg.path(), &[("DEMO_RUNNER_PACE", "0.05")]);
    s.wait_text("Tests · 21");
    s.find("'workbench-approval-flow");
    s.wait_text("Timeline 20261128-101500-250");
    s.send("e");
    s.send("tt");
    s.wait_text("[failures] [type: step]");
    // another case: its events, unfiltered
    s.find("'terminal-basic-command");
    s.wait_text("Timeline 20261127-125208-524");
    s.wait_text("terminal/open-session");
    let c = s.screen().screen().contents();
    assert!(!c.contains("No event matches"), "{c}");
    assert!(!c.contains("[failures]") && !c.contains("[type: "), "{c}");
    // a filter on this case, then a launch of it: the launched run shows whole
    s.send("e");
    s.wait_text("No event matches the filters");
    s.send("r");
    s.wait_text("launch done: 1 pass");
    s.wait_for("the launched run's events", |sc| {
        let c = sc.contents();
        c.contains("terminal/run-command")
            && !c.contains("[failures]")
            && !c.contains("Timeline 20261127-125208-524")
    });
    assert!(
        !s.screen()
            .screen()
            .contents()
            .contains("No event matches")
    );
    let (p, _) = s.quit();
    assert!(!p.screen().alternate_screen());
}
