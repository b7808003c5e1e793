//! End-to-end: the built binary in a real pseudo-terminal (portable-pty), its screen read
//! back through a terminal emulator (vt100).

use crate::common;
use common::Session;

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

#[test]
fn open_find_jump_quit_restores_terminal() {
    let ws = crate::common::fs::scratch_dir();
    common::fixtures::write_fixture(ws.path(), false);
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start(ws.path(), cfg.path());
    s.wait_text("Tests · 6");
    s.wait_text("▾ ai");
    s.find("chat");
    // the tree opened to the case and the live pane shows its latest run
    s.wait_text("✗ chat-send-message");
    s.wait_text("expected a reply within");
    s.wait_text("artifacts/failure.png");
    let (p, _) = s.quit();
    let sc = p.screen();
    assert!(!sc.alternate_screen(), "still on the alternate screen");
    assert!(!sc.hide_cursor(), "cursor still hidden");
}

#[test]
fn hostile_log_bytes_never_reach_the_pty() {
    let ws = crate::common::fs::scratch_dir();
    common::fixtures::write_fixture(ws.path(), true);
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start(ws.path(), cfg.path());
    s.wait_text("Tests · 7");
    s.find("evil");
    s.wait_text("boom");
    let (p, bytes) = s.quit();
    assert!(!p.screen().alternate_screen());
    let osc52 = b"\x1b]52";
    assert!(
        !bytes.windows(osc52.len()).any(|w| w == osc52),
        "an OSC 52 sequence reached the terminal"
    );
    assert!(
        !bytes.windows(2).any(|w| w == b"\x1b]"),
        "an OSC sequence reached the terminal"
    );
    // the escaped form was shown instead
    let shown = String::from_utf8_lossy(&bytes);
    assert!(shown.contains("\\e]52"), "escaped text not shown");
}

#[test]
fn not_a_terminal_exits_2() {
    let ws = crate::common::fs::scratch_dir();
    common::fixtures::write_fixture(ws.path(), false);
    let out = common::cli::at(ws.path())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs a terminal"));
}

/// One timeline line of the fixture's in-progress run.
fn step_line(name: &str, status: &str) -> String {
    format!(
        "{{\"ts\":\"2026-03-10T12:00:00.000Z\",\"type\":\"step\",\"name\":\"{name}\",\"status\":\"{status}\",\"message\":\"\",\"data\":{{}}}}\n"
    )
}

/// The fixture with a run of `kb-search-empty` in progress (a timeline holding
/// `first`, no meta.json), opened in the TUI through the finder: the session,
/// the run folder, and the temporary folders that must outlive them.
fn open_run_in_progress(first: &str) -> (Session, PathBuf, [tempfile::TempDir; 2]) {
    common::open_in_progress(
        "tests/logs/kb/backend/search/basic/kb-search-empty/20260310-120000-000",
        &step_line(first, "ok"),
        first,
    )
}

#[test]
fn live_timeline_grows_and_the_finished_status_reaches_the_tree() {
    let (mut s, run, _dirs) = open_run_in_progress("first step");
    let line = step_line;
    // a runner appends while the person watches, a partial line first
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(run.join("timeline.jsonl"))
        .expect("open");
    let second = line("second step", "ok");
    let (head, tail) = second.split_at(20);
    f.write_all(head.as_bytes()).expect("append");
    f.flush().expect("flush");
    std::thread::sleep(Duration::from_millis(300));
    f.write_all(tail.as_bytes()).expect("append");
    f.write_all(line("third step", "failed").as_bytes())
        .expect("append");
    f.flush().expect("flush");
    s.wait_text("second step");
    s.wait_text("third step");
    // the run ends: meta.json appears, the status reaches the tree
    std::fs::write(
        run.join("meta.json"),
        r#"{"schemaVersion":4,"runId":"20260310-120000-000","caseId":"kb-search-empty","scope":"kb/backend/search/basic","status":"failed","startedAt":"2026-03-10T12:00:00.000Z","finishedAt":"2026-03-10T12:00:03.000Z","stats":{"durationMs":3000,"steps":3,"assertions":0,"errors":1,"artifacts":0},"runtime":{"driver":"node","target":"local","modelName":"none"}}"#,
    )
    .expect("meta");
    s.wait_text("✗ kb-search-empty");
    s.send("3");
    s.wait_text("20260310-120000-000 kb-search-empty");
    let (p, _) = s.quit();
    assert!(!p.screen().alternate_screen());
}

/// Browsing a run in progress while another thread writes its timeline: lines it
/// appends appear on their own (no key pressed), and when it replaces the file by
/// an atomic rename the live pane shows the new file's lines only.
#[test]
fn live_timeline_follows_appends_and_a_replacement_by_rename() {
    let (s, run, _dirs) = open_run_in_progress("old-line-1");
    let line = |name: &str| step_line(name, "ok");
    // the writer: a thread of its own, told by this one when to go on
    let (go, steps) = std::sync::mpsc::channel::<()>();
    let wdir = run.clone();
    let writer = std::thread::spawn(move || {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(wdir.join("timeline.jsonl"))
            .expect("open");
        for i in 2..=4 {
            f.write_all(line(&format!("old-line-{i}")).as_bytes())
                .expect("append");
            std::thread::sleep(Duration::from_millis(100));
        }
        steps.recv().expect("go");
        let tmp = wdir.join("timeline.jsonl.tmp");
        let text = line("new-line-1") + &line("new-line-2");
        std::fs::write(&tmp, text).expect("tmp");
        std::fs::rename(&tmp, wdir.join("timeline.jsonl")).expect("rename");
        steps.recv().expect("go");
        // the new file grows like the old one
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(wdir.join("timeline.jsonl"))
            .expect("open");
        f.write_all(line("new-line-3").as_bytes()).expect("append");
    });
    s.wait_text("old-line-4");
    go.send(()).expect("writer");
    s.wait_text("new-line-2");
    s.wait_for("the old file's lines gone", |sc| {
        !sc.contents().contains("old-line-")
    });
    go.send(()).expect("writer");
    s.wait_text("new-line-3");
    writer.join().expect("writer");
    let (p, _) = s.quit();
    assert!(!p.screen().alternate_screen());
}

/// The whole launching path on the demo: mark two catalog cases, `r`, Enter leaves the
/// mutating one unauthorized, typing authorizes the destructive one (and its gate), its
/// output streams in; then a tests case whose runner writes its timeline step by step;
/// its status reaches the tree and its run the Runs tab.
#[test]
fn mark_run_prompts_live_timeline_runs_tab() {
    let ws = crate::common::fs::scratch_dir();
    testdeck_core::workspace::demo::write_demo(ws.path()).expect("demo");
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start(ws.path(), cfg.path());
    s.wait_text("Tests · 21");
    s.wait_text("71 runs");
    s.send("2");
    s.wait_text("Catalog · 24 cases");
    for id in ["'TC-CLI-006", "'TC-CLI-007"] {
        s.send("/");
        s.send(id);
        s.wait_text(&format!("❯ {id}"));
        s.send("\t");
        s.send("\x1b");
    }
    s.wait_text("● 2 marked");
    s.send("m");
    s.wait_text("max risk destructive");
    s.send("r");
    // two cases: a one-line preview first (issue 15), Enter goes on
    s.wait_text("2 cases");
    s.send("\r");
    // the strictest prompt of the run_together pair comes first
    s.wait_text("Authorize destructive cases?");
    s.send("y");
    s.send("\r");
    // a key press never authorizes destructive: asked again on the next launch;
    // and a no to one prompt of a group means none of it runs, so the milder
    // prompt of its other member is not asked at all
    s.wait_for("the refusal", |sc| {
        !sc.contents().contains("Authorize destructive")
    });
    let after = s.screen().screen().contents();
    assert!(!after.contains("auth risk:destructive"));
    assert!(!after.contains("Authorize mutating"));
    s.send("/");
    s.send("'TC-CLI-007");
    s.wait_text("❯ 'TC-CLI-007");
    s.send("\t");
    s.send("\x1b");
    s.send("r");
    // run_together brings TC-CLI-006 along: the pair runs only when every
    // prompt of it is answered yes, strictest first (after the preview)
    s.wait_text("2 cases");
    s.send("\r");
    s.wait_text("Authorize destructive cases?");
    s.send("destructive");
    s.send("\r");
    s.wait_text("Open gate reset-index?");
    s.send("y");
    s.wait_text("Authorize mutating cases?");
    s.send("y");
    s.wait_text("cleared tmp/exports");
    // the launch's result and the three grants share the bar: the workspace and
    // HOST stay (issue 27), the max risk and the grants shorten to make room
    s.wait_for("the launch result beside the grants", |sc| {
        let c = sc.contents();
        c.contains("launch done") && c.contains("HOST 127.0.0.1") && c.contains("auth 3")
    });
    // a tests case: the runner writes its timeline while we watch
    s.send("1");
    s.find("'docx-export-heading");
    s.send("r");
    s.wait_text("run/start");
    s.wait_text("run/finish");
    s.wait_text("end pass");
    // the launch is over: the bar says it is not running any more
    s.wait_for("the launch to end", |sc| !sc.contents().contains("running"));
    s.send("3");
    // 70 tests runs and 1 record of the demo, the new tests run, the new record
    // (the refused launch ran nothing: it wrote no record, issue 27)
    s.wait_text("Runs · 73/73");
    let (p, _) = s.quit();
    assert!(!p.screen().alternate_screen());
    assert!(!p.screen().hide_cursor());
}

/// `w` watches the selected case: a change to its test file reruns it, the new run
/// streams into the live pane; `q` ends the watch and the app.
#[test]
fn watch_reruns_a_case_when_its_file_changes() {
    let ws = crate::common::fs::scratch_dir();
    testdeck_core::workspace::demo::write_demo(ws.path()).expect("demo");
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start(ws.path(), cfg.path());
    s.wait_text("71 runs");
    s.find("'docx-export-heading");
    s.send("w");
    s.wait_text("watching 1 case:");
    s.wait_text("◉ watch");
    let file = ws
        .path()
        .join("tests/docx/backend/export/basic/docx-export-heading.test.ts");
    let mut text = std::fs::read_to_string(&file).expect("read");
    text.push_str("\n// edited\n");
    std::fs::write(&file, text).expect("write");
    s.wait_text("run/start");
    s.wait_text("end pass");
    // the timeline's last event can come before the rerun's end: quitting
    // in between asks first (a rerun is live), so wait for the end
    s.wait_text("watch rerun done");
    let (p, _) = s.quit();
    assert!(!p.screen().alternate_screen());
}

/// `o` with an opener named by the workspace's own `testdeck.toml`: it asks,
/// showing the command; `n` runs nothing, `y` runs it and remembers the trust
/// (the next `o` runs at once); a changed file asks again.
#[test]
fn a_workspace_opener_runs_only_once_trusted() {
    let ws = crate::common::fs::scratch_dir();
    common::fixtures::write_fixture(ws.path(), false);
    let cfg = crate::common::fs::scratch_dir();
    let state = crate::common::fs::scratch_dir();
    let marker = state.path().join("opened.marker");
    let toml = format!(
        "[open]\ndefault = [\"sh\", \"-c\", \"touch '{}'\", \"sh\"]\n",
        marker.display()
    );
    std::fs::write(ws.path().join("testdeck.toml"), &toml).expect("toml");
    let state_dir = state.path().to_str().expect("utf-8").to_owned();
    let mut s = Session::start_with(ws.path(), cfg.path(), &[("XDG_STATE_HOME", &state_dir)]);
    s.wait_text("Tests · 6");
    s.find("chat");
    s.wait_text("artifacts/failure.png");
    s.send("o");
    s.wait_text("Run the workspace's opener?");
    s.wait_text("touch");
    s.send("n");
    s.wait_text("not opened");
    // the answer was no: give a wrongly started opener time to show itself
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        !marker.exists(),
        "the opener ran although the answer was no"
    );
    s.send("o");
    s.wait_text("Run the workspace's opener?");
    s.send("y");
    let wait_marker = || {
        let start = std::time::Instant::now();
        while !marker.exists() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the trusted opener did not run"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    wait_marker();
    assert!(
        state.path().join("testdeck/trusted-openers.toml").is_file(),
        "the trust is not remembered"
    );
    // trusted: the next `o` runs without a question
    std::fs::remove_file(&marker).expect("rm");
    s.send("o");
    wait_marker();
    assert!(
        !s.screen()
            .screen()
            .contents()
            .contains("Run the workspace's opener?"),
        "asked again although trusted"
    );
    // the file changes: it asks again
    std::fs::remove_file(&marker).expect("rm");
    std::fs::write(
        ws.path().join("testdeck.toml"),
        format!("# changed\n{toml}"),
    )
    .expect("toml");
    s.send("o");
    s.wait_text("Run the workspace's opener?");
    s.send("n");
    s.wait_text("not opened");
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        !marker.exists(),
        "the changed file's opener ran without trust"
    );
    let (p, _) = s.quit();
    assert!(!p.screen().alternate_screen());
}
