//! The cockpit in a real pseudo-terminal on the demo: a person's verdict reaches every
//! row and pane that shows it in the frame that closes the prompt.

use crate::common;
use common::Session;

/// The line of the screen that holds `needle`.
fn line_with(s: &vt100::Screen, needle: &str) -> String {
    s.contents()
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_verdict_updates_the_catalog_row_the_live_pane_and_the_runs_tab_at_once() {
    let ws = crate::common::fs::scratch_dir();
    testdeck_core::workspace::demo::write_demo(ws.path()).expect("demo");
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start(ws.path(), cfg.path());
    s.wait_text("71 runs");
    s.send("2");
    s.wait_text("Catalog · 24 cases");
    // TC-CLI-010 is assisted: its command runs, a person gives the verdict
    s.find("'TC-CLI-010");
    s.send("r");
    s.wait_text("Your verdict");
    // the run record is written: its row in Runs is not a green pass (nothing passed)
    s.wait_text("launch done: 1 not-run");
    s.wait_text("· TC-CLI-010");
    s.send("\r");
    // the frame that closes the prompt: the live pane's end row (drawn below the
    // catalog row, so that row is already in the same frame) no longer says it needs
    // a person, and the catalog row shows the verdict
    s.wait_for("the prompt to close", |sc| {
        !sc.contents().contains("Your verdict") && sc.contents().contains("end pass")
    });
    let sc = s.screen();
    let screen = sc.screen();
    let live_end = line_with(screen, "end pass");
    assert!(
        live_end.contains("judged by a person"),
        "{}",
        screen.contents()
    );
    assert!(
        !screen.contents().contains("needs a person"),
        "{}",
        screen.contents()
    );
    assert!(
        screen.contents().contains("✓ TC-CLI-010"),
        "the catalog row: {}",
        screen.contents()
    );
    // the Runs tab's newest row is the record, now a pass with one ✓
    s.send("3");
    s.wait_text("Runs · 72/72");
    let sc = s.screen();
    let first = sc
        .screen()
        .contents()
        .lines()
        .nth(2)
        .unwrap_or_default()
        .to_owned();
    assert!(
        first.contains("✓ ") && first.contains("catalog") && first.contains("1✓"),
        "{}",
        sc.screen().contents()
    );
    let (p, _) = s.quit();
    assert!(!p.screen().alternate_screen());
}
