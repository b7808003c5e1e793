//! `E` and `y` in a real pseudo-terminal on the demo: `$EDITOR` is a real `sh` script that
//! writes its arguments and folder to a file, the cockpit suspends around it and draws
//! again after; a copy writes the OSC 52 bytes of the string testdeck built.

use crate::common;
use base64::Engine as _;
use common::Session;
use common::fs::demo_copy as demo;
use testdeck_core::workspace::Workspace;

#[test]
fn e_opens_the_catalog_case_at_its_line_in_the_editor_and_the_cockpit_draws_again() {
    let d = demo();
    let cfg = crate::common::fs::scratch_dir();
    let editor = common::editor::Recording::new();
    let ws = Workspace::load(d.path()).expect("load");
    let case = ws
        .catalog
        .as_ref()
        .and_then(|c| c.cases.iter().find(|c| c.id == "TC-CLI-002"))
        .expect("TC-CLI-002 in the demo catalog");
    assert!(case.pos.line > 1, "a case with a line to go to");
    let mut s = Session::start_with(d.path(), cfg.path(), &editor.env());
    s.wait_text("Tests · 21");
    s.find("'TC-CLI-002");
    s.wait_text("Catalog ·");
    let before = s.bytes.lock().expect("lock").len();
    s.send("E");
    let got = editor.take();
    let root = d.path().canonicalize().expect("root");
    assert_eq!(
        got,
        format!("+{}\n{}\n{}\n", case.pos.line, case.file, root.display()),
        "the editor's arguments (+LINE path) and folder (the workspace root)"
    );
    // the cockpit gave the terminal back, then took it again and drew a whole frame
    s.wait_text(&format!("edited {}", case.file));
    let bytes = s.bytes.lock().expect("lock")[before..].to_vec();
    let text = String::from_utf8_lossy(&bytes);
    let left = text.find("\x1b[?1049l").expect("left the alternate screen");
    let back = text.rfind("\x1b[?1049h").expect("entered it again");
    assert!(left < back, "left, then came back");
    assert!(text[back..].contains("Catalog ·"), "drew the tabs again");
    assert!(s.screen().screen().alternate_screen());
    // keys reach the cockpit again
    s.send("1");
    s.wait_text("Tests · 21");
    s.quit();
}

#[test]
fn a_missing_editor_is_a_notice() {
    let d = demo();
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start_with(
        d.path(),
        cfg.path(),
        &[
            ("VISUAL", ""),
            ("EDITOR", "/nonexistent/testdeck-no-vim -u NONE"),
        ],
    );
    s.wait_text("Tests · 21");
    s.find("'terminal-basic-command");
    s.wait_text("5× 100.0%");
    s.send("E");
    s.wait_text("no editor /nonexistent/testdeck-no-vim");
    s.send("2");
    s.wait_text("Catalog ·");
    s.quit();
}

fn osc52(text: &str) -> String {
    format!(
        "\x1b]52;c;{}\x1b\\",
        base64::engine::general_purpose::STANDARD.encode(text)
    )
}

#[test]
fn y_copies_the_case_id_path_and_runner_command_with_osc_52() {
    let d = demo();
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start(d.path(), cfg.path());
    s.wait_text("Tests · 21");
    s.find("'terminal-basic-command");
    s.wait_text("5× 100.0%");
    s.send("yy");
    s.wait_text("copied caseId: terminal-basic-command");
    s.send("yp");
    let path = "tests/ai/backend/tools/terminal/basic/terminal-basic-command.test.ts";
    // the status bar shows the start of it
    s.wait_text("copied path: tests/ai/backend/tools");
    s.send("yc");
    // the demo's runner (testdeck.toml) with the seed's filters for the case
    let ws = Workspace::load(d.path()).expect("load");
    let command = format!(
        "{} --domain ai --layer backend --suite tools --group terminal --group basic \
         --case terminal-basic-command",
        ws.config.runner.command.join(" ")
    );
    s.wait_text(&format!(
        "copied command line: {}",
        ws.config.runner.command[0]
    ));
    let (_, bytes) = s.quit();
    let text = String::from_utf8_lossy(&bytes);
    for want in ["terminal-basic-command", path, command.as_str()] {
        assert!(
            text.contains(&osc52(want)),
            "no OSC 52 copy of {want:?} in the output"
        );
    }
}
