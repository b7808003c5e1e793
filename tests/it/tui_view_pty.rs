//! The cockpit's layout in a real pseudo-terminal: a window that grows shows the
//! tree from its first rows, and the live prompt of the demo's long-path live case
//! keeps its choices on a 100×30 terminal.

use std::path::Path;

use crate::common;
use common::Session;

/// `testdeck --root ROOT` in a pty of `rows` × `cols`, no HOST or NO_COLOR from
/// the machine.
fn start(root: &Path, config: &Path, rows: u16, cols: u16) -> Session {
    Session::spawn(Session::command(root, config), rows, cols)
}

/// 40×10 with the cursor on the last row shows the last rows; grown to 140×40 the
/// whole tree fits, so its first rows are back on screen without a key press.
#[test]
fn a_window_that_grows_shows_the_tree_from_its_first_rows() {
    let d = common::fs::demo_copy();
    let cfg = crate::common::fs::scratch_dir();
    let mut s = start(d.path(), cfg.path(), 10, 40);
    s.wait_sized(10, 40, "the tree at 40×10", |sc| {
        sc.contents().contains("ai 9")
    });
    s.send("G");
    s.wait_sized(10, 40, "the last rows", |sc| {
        let c = sc.contents();
        !c.contains("ai 9") && c.contains("kb-tokeni") && c.contains("above")
    });
    s.resize(40, 140);
    s.wait_sized(40, 140, "the first rows after the resize", |sc| {
        let c = sc.contents();
        c.contains("▾ ai 9") && c.contains("▾ docx 4") && c.contains("kb-tokenizer-probe")
    });
    let sc = s.screen_sized(40, 140);
    let rows: Vec<String> = sc.screen().rows(0, 140).collect();
    assert!(
        rows.iter().take(4).any(|r| r.contains("▾ ai 9")),
        "the first folder is not at the top:\n{}",
        rows.join("\n")
    );
    let _ = s.quit();
}

/// "Run a live case?" for `terminal-live-plan-execute` wraps its long path line;
/// the box counts the wrapped rows, so `y`/`N` stay on screen at 100×30.
#[test]
fn the_live_prompt_of_the_long_path_case_shows_its_choices_at_100x30() {
    let d = common::fs::demo_copy();
    let cfg = crate::common::fs::scratch_dir();
    let mut s = start(d.path(), cfg.path(), 30, 100);
    s.wait_sized(30, 100, "the tree", |sc| sc.contents().contains("ai 9"));
    s.send("/");
    s.send("'terminal-live-plan-execute");
    s.wait_sized(30, 100, "the finder's result", |sc| {
        sc.contents().contains("Find cases 1/")
    });
    s.send("\r");
    s.wait_sized(30, 100, "the jump", |sc| {
        sc.contents().contains("terminal-live-plan-execute")
    });
    s.send("r");
    s.wait_sized(30, 100, "the live prompt", |sc| {
        sc.contents().contains("Run a live case?")
    });
    s.wait_sized(30, 100, "its choices", |sc| {
        let c = sc.contents();
        c.contains(" y  yes") && c.contains(" N  no")
    });
    // the box's bottom border is drawn under the choices, not over them
    let sc = s.screen_sized(30, 100);
    let rows: Vec<String> = sc.screen().rows(0, 100).collect();
    let choices = rows
        .iter()
        .position(|r| r.contains(" y  yes"))
        .expect("choices row");
    assert!(
        rows[choices + 1..].iter().any(|r| r.contains('╰')),
        "no border under the choices:\n{}",
        rows.join("\n")
    );
    s.send("\u{1b}");
    let _ = s.quit();
}
