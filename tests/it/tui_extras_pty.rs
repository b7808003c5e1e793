//! End-to-end watch mode: the built binary in a real pseudo-terminal (portable-pty),
//! read back through vt100; a real edit of a watched test file reruns the case.

use crate::common;
use common::Session;

#[test]
fn watch_a_case_edit_its_file_see_it_rerun() {
    let ws = crate::common::fs::scratch_dir();
    testdeck_core::workspace::demo::write_demo(ws.path()).expect("demo");
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start_with(ws.path(), cfg.path(), &[("DEMO_RUNNER_PACE", "0.05")]);
    s.wait_text("Tests · 21");
    s.wait_text("71 runs");
    s.find("'terminal-basic-command");
    s.wait_text("5× 100.0%");
    // the live pane shows the demo's last run until the rerun replaces it
    let old_run = "basic-command · 20261127-125208-524";
    s.wait_text(old_run);
    s.send("w");
    // a readonly case that is not live: no prompt; armed once its folders are watched
    s.wait_text("watching 1 case: a change");
    assert!(!s.screen().screen().contents().contains("Run a live case?"));
    let file = ws
        .path()
        .join("tests/ai/backend/tools/terminal/basic/terminal-basic-command.test.ts");
    let mut text = std::fs::read_to_string(&file).expect("test file");
    text.push_str("// edited while watched\n");
    std::fs::write(&file, text).expect("edit");
    // the rerun streams into the live pane, then its run reaches the tree
    s.wait_text("end pass");
    s.wait_text("watch rerun done: 1 pass");
    s.wait_text("6× 100.0%");
    s.wait_text("history    ✓✓✓✓✓✓");
    assert!(!s.screen().screen().contents().contains(old_run));
    s.send("3");
    // the demo's 70 tests runs, its catalog run record and the rerun
    s.wait_text("Runs · 72/72");
    let (p, _) = s.quit();
    assert!(!p.screen().alternate_screen());
}
