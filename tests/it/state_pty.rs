//! Issue 27: the cockpit says what is true now. Each test drives the built
//! binary in a real pseudo-terminal on the demo workspace: filters re-fit the
//! live pane and reset with the selection, the status line keeps its names and
//! counts live external runs, the tree expands and collapses at once and shows
//! where the marked cases are.

use crate::common;
use common::Session;
use std::fmt::Write as _;

const FLOW: &str = "tests/logs/ai/e2e/workbench/scenario/workbench-approval-flow";

/// A finished run of `workbench-approval-flow`, newer than the demo's: one failed
/// step first, then `n` passing steps (more than the pane holds).
fn long_run(root: &std::path::Path, n: usize) {
    let dir = format!("{FLOW}/20261130-120000-000");
    let mut t = String::from(
        "{\"ts\":\"2026-11-30T12:00:00.000Z\",\"type\":\"step\",\"name\":\"the-one-failure\",\"status\":\"failed\",\"message\":\"boom\"}\n",
    );
    for i in 0..n {
        let _ = writeln!(
            t,
            "{{\"ts\":\"2026-11-30T12:00:01.000Z\",\"type\":\"step\",\"name\":\"filler-step-{i}\",\"status\":\"ok\"}}"
        );
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
    let cfg = crate::common::fs::scratch_dir();
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
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start_with(ws.path(), cfg.path(), &[("DEMO_RUNNER_PACE", "0.05")]);
    s.wait_text("Tests · 21");
    s.find("'workbench-approval-flow");
    s.wait_text("approval-flow · 20261128-101500-250");
    s.send("e");
    s.send("tt");
    s.wait_text("[failures] [type: step]");
    // another case: its events, unfiltered
    s.find("'terminal-basic-command");
    s.wait_text("basic-command · 20261127-125208-524");
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
            && !c.contains("basic-command · 20261127-125208-524")
    });
    assert!(!s.screen().screen().contents().contains("No event matches"));
    let (p, _) = s.quit();
    assert!(!p.screen().alternate_screen());
}

/// The demo at `rows` × `cols` with the user's trace opener a command that fails
/// with a long stderr line: the session on `workbench-open`, its trace opened
/// with `o`, the opener's notice on the status line.
fn long_notice_at(rows: u16, cols: u16) -> (Session, String, [tempfile::TempDir; 2]) {
    let ws = common::fs::demo_copy();
    let cfg = crate::common::fs::scratch_dir();
    common::fs::write(
        cfg.path(),
        "testdeck/config.toml",
        "[open]\ntrace = [\"sh\", \"-c\", \"echo 'the opener found no browser to show this artifact with, on this machine or any other one' >&2; exit 7\"]\n",
    );
    let label = ws
        .path()
        .file_name()
        .and_then(|n| n.to_str())
        .expect("utf-8 name")
        .to_owned();
    let mut cmd = Session::command(ws.path(), cfg.path());
    cmd.env("TESTDECK_IMAGES", "halfblocks");
    let mut s = Session::spawn(cmd, rows, cols);
    s.wait_sized(rows, cols, "the tree", |sc| {
        sc.contents().contains("Tests · 21")
    });
    s.find("'workbench-open");
    // its run read (at 60 columns the artifacts pane is not drawn; `o` opens
    // the artifact under its cursor all the same)
    // (at 60 × 15 the details under the key-hint line no longer reach the last
    // run's row: the case selected is enough, `o` is pressed until it opens)
    s.wait_sized(rows, cols, "the case selected", |sc| {
        sc.contents().contains("✓ workbench-open")
    });
    // `o` once the run's artifacts are read (again, if it came before them)
    for _ in 0..20 {
        s.send("o");
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_secs(2) {
            if status_line(&s, rows, cols).contains("sh:") {
                return (s, label, [ws, cfg]);
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    panic!("no opener notice: {}", status_line(&s, rows, cols));
}

/// The status line of a `rows` × `cols` screen.
fn status_line(s: &Session, rows: u16, cols: u16) -> String {
    let p = s.screen_sized(rows, cols);
    p.screen()
        .contents()
        .lines()
        .last()
        .unwrap_or("")
        .to_owned()
}

/// Item 7: a notice longer than the room keeps the workspace's name and the
/// HOST label on the status line; the notice is cut with `…`.
#[test]
fn a_long_notice_keeps_the_workspace_and_host_at_100_and_60_columns() {
    for (rows, cols) in [(30, 100), (15, 60)] {
        let (s, label, _keep) = long_notice_at(rows, cols);
        let line = status_line(&s, rows, cols);
        assert!(line.contains(&label), "{cols} columns: {line}");
        assert!(line.contains("HOST 127.0.0.1"), "{cols} columns: {line}");
        assert!(
            line.contains('…'),
            "{cols} columns: the notice is cut: {line}"
        );
        assert!(line.contains("? help"), "{cols} columns: {line}");
        s.quit();
    }
}

/// Kills the process it holds when the test ends, passed or not.
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Item 7: one count of runs (the status line's equals the Runs tab's total,
/// the catalog's run record included), and a run another process is writing —
/// a `sh` appending to a run folder's timeline, no `meta.json` — counts as
/// running, not `idle`.
#[test]
fn the_status_line_counts_every_run_and_a_live_external_one_as_running() {
    let ws = common::fs::demo_copy();
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start(ws.path(), cfg.path());
    s.wait_text("Tests · 21");
    s.send("3");
    // the demo's 70 tests runs and its catalog run record
    s.wait_text("Runs · 71/71");
    s.wait_for("the status line's count", |sc| {
        sc.contents()
            .lines()
            .last()
            .is_some_and(|l| l.contains("71 runs"))
    });
    let status = |s: &Session| {
        s.screen()
            .screen()
            .contents()
            .lines()
            .last()
            .unwrap_or("")
            .to_owned()
    };
    assert!(status(&s).contains("idle"), "{}", status(&s));
    // another process writes a run, line by line, without its meta.json
    let dir =
        "tests/logs/ai/backend/tools/terminal/basic/terminal-basic-command/20261201-090000-000";
    let script = format!(
        "mkdir -p {dir}\n\
         i=0; while [ $i -lt 600 ]; do\n\
         printf '{{\"type\":\"step\",\"name\":\"external-step-%s\",\"status\":\"ok\"}}\\n' $i >> {dir}/timeline.jsonl\n\
         i=$((i+1)); sleep 0.1; done\n"
    );
    let writer = Reaped(
        std::process::Command::new("sh")
            .arg("-c")
            .arg(&script)
            .current_dir(ws.path())
            .spawn()
            .expect("sh"),
    );
    s.wait_for("the external run counted", |sc| {
        let last = sc.contents().lines().last().unwrap_or("").to_owned();
        last.contains("▶ 1 running (external)") && !last.contains("idle")
    });
    // and one count of runs still: the tab's and the status line's
    s.wait_text("Runs · 72/72");
    // the cursor stays on its run, the demo's run in progress followed live:
    // the new run is said (it takes the counts' place), not swapped in; `J`
    // shows it
    s.wait_for("the new run said", |sc| {
        sc.contents()
            .lines()
            .last()
            .is_some_and(|l| l.contains("J shows the new run"))
    });
    s.send("J");
    s.wait_for("72 runs on the status line", |sc| {
        sc.contents()
            .lines()
            .last()
            .is_some_and(|l| l.contains("72 runs"))
    });
    drop(writer);
    let (p, _) = s.quit();
    assert!(!p.screen().alternate_screen());
}

/// The tree pane's columns of the screen (the left 46 of 120), row by row.
fn tree_pane(sc: &vt100::Screen) -> String {
    sc.contents()
        .lines()
        .map(|l| l.chars().take(46).collect::<String>() + "\n")
        .collect()
}

/// Item 10: `H` closes every folder of the tree and `L` opens every one; cases
/// marked from the finder inside closed folders are counted on their folder's
/// row (`●2`).
#[test]
fn h_and_l_fold_the_whole_tree_and_a_closed_folder_counts_its_marked_cases() {
    let ws = common::fs::demo_copy();
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start(ws.path(), cfg.path());
    s.wait_text("Tests · 21");
    // the first frame opens two levels: director-plan's cases are hidden
    s.wait_text("▸ director-plan 2");
    assert!(
        !s.screen()
            .screen()
            .contents()
            .contains("director-plan-outline")
    );
    s.send("L");
    s.wait_for("every folder open", |sc| {
        let c = tree_pane(sc);
        c.contains("director-plan-outline") && c.contains("▾ director-plan 2") && !c.contains('▸')
    });
    s.send("H");
    s.wait_for("every folder closed", |sc| {
        let c = tree_pane(sc);
        c.contains("▸ ai 9") && c.contains("▸ kb-search 6") && !c.contains('▾')
    });
    // two cases marked from the finder, both under the closed `ai` folder
    s.send("/");
    s.wait_text("Find cases");
    s.send("'director-plan-outline");
    s.wait_text("❯ 'director-plan-outline");
    s.send("\t");
    s.send("\x15"); // C-u: the query cleared
    s.send("'director-plan-approval-denied");
    s.wait_text("❯ 'director-plan-approval-denied");
    s.send("\t");
    s.send("\x1b");
    s.wait_text("● 2 marked");
    s.wait_for("the closed folder's mark count", |sc| {
        sc.contents()
            .lines()
            .any(|l| l.contains("▸ ai 9") && l.contains("●2"))
    });
    // opened: the count moves down to the closed folder that holds them
    s.send("L");
    s.wait_for("the marked rows", |sc| {
        let c = sc.contents();
        c.lines()
            .any(|l| l.contains("●") && l.contains("director-plan-outline"))
            && !c.contains("●2")
    });
    let (p, _) = s.quit();
    assert!(!p.screen().alternate_screen());
}

/// Item 10: the finder's rows carry the case's status as the tree and the
/// catalog list mark it (✗ the failed tests case, the catalog verdict).
#[test]
fn finder_rows_carry_the_status_mark() {
    let ws = common::fs::demo_copy();
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start(ws.path(), cfg.path());
    s.wait_text("Tests · 21");
    s.send("/");
    s.wait_text("Find cases");
    s.send("kb-search-multi-doc-ranking");
    s.wait_text("✗ kb-search-multi-doc-ranking  tests/");
    s.send("\x15");
    s.send("director-plan-outline");
    s.wait_text("✓ director-plan-outline  tests/");
    s.send("\x1b");
    let (p, _) = s.quit();
    assert!(!p.screen().alternate_screen());
}

/// Item 10: `testdeck list` marks the flaky cases `~flaky`, the same cases the
/// statistics (`stats --json`) count as flaky, and no other.
#[test]
fn list_marks_the_flaky_cases_as_stats_counts_them() {
    let ws = common::fs::demo_copy();
    let out = common::cli::at(ws.path())
        .arg("list")
        .output()
        .expect("list");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let out = common::cli::at(ws.path())
        .args(["stats", "--json"])
        .output()
        .expect("stats");
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let nodes = stats
        .as_array()
        .or_else(|| stats["nodes"].as_array())
        .expect("nodes");
    let flaky: Vec<&str> = nodes
        .iter()
        .filter(|n| n["kind"] == "case" && n["flakyCases"].as_u64() > Some(0))
        .filter_map(|n| n["path"].as_str())
        .filter_map(|p| p.rsplit('/').next())
        .collect();
    assert!(flaky.contains(&"workbench-approval-flow"), "{flaky:?}");
    for line in text.lines().filter(|l| l.starts_with("tests ")) {
        let id = line.split_whitespace().nth(1).unwrap_or("");
        assert_eq!(line.contains("~flaky"), flaky.contains(&id), "{id}: {line}");
    }
}

/// Item 11: a timeline row longer than the pane ends with `…` where it is cut.
#[test]
fn a_timeline_row_cut_by_the_pane_ends_with_an_ellipsis() {
    let ws = common::fs::demo_copy();
    let dir = format!("{FLOW}/20261130-120000-000");
    let long = "a long message ".repeat(12) + "TAIL-END";
    common::fs::write(
        ws.path(),
        &format!("{dir}/timeline.jsonl"),
        &format!(
            "{{\"ts\":\"2026-11-30T12:00:00.000Z\",\"type\":\"step\",\"name\":\"long-row\",\"status\":\"ok\",\"message\":\"{long}\"}}\n"
        ),
    );
    common::fs::write(
        ws.path(),
        &format!("{dir}/meta.json"),
        "{\"schemaVersion\":4,\"runId\":\"20261130-120000-000\",\"caseId\":\"workbench-approval-flow\",\
         \"scope\":\"ai/e2e/workbench/scenario\",\"status\":\"passed\"}",
    );
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start(ws.path(), cfg.path());
    s.wait_text("Tests · 21");
    s.find("'workbench-approval-flow");
    s.wait_text("long-row · a long message");
    let c = s.screen().screen().contents();
    let row = c.lines().find(|l| l.contains("long-row")).expect("the row");
    assert!(!row.contains("TAIL-END"), "{row}");
    assert!(
        row.trim_end().ends_with("…│"),
        "cut without an ellipsis: {row}"
    );
    let (p, _) = s.quit();
    assert!(!p.screen().alternate_screen());
}

/// Item 11: a runner's blank lines (empty, spaces) are no `out` rows.
#[test]
fn a_runners_blank_lines_are_dropped() {
    let ws = common::fs::demo_copy();
    common::fs::write(
        ws.path(),
        "testdeck.toml",
        "[runner]\ncommand = [\"sh\", \"blank-lines.sh\"]\n",
    );
    common::fs::write(
        ws.path(),
        "blank-lines.sh",
        "echo 'first said'\necho ''\necho '   '\necho 'second said'\necho ''\nexit 3\n",
    );
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start(ws.path(), cfg.path());
    s.wait_text("Tests · 21");
    s.find("'terminal-basic-command");
    s.send("r");
    s.wait_text("runner exit 3");
    let c = s.screen().screen().contents();
    assert!(c.contains("first said") && c.contains("second said"), "{c}");
    // an `out` row says something: none ends right after its type column
    let blank = c.lines().filter(|l| {
        l.split_once(" out ")
            .is_some_and(|(_, rest)| rest.trim_end_matches(['│', ' ']).is_empty())
    });
    assert_eq!(blank.count(), 0, "{c}");
    let (p, _) = s.quit();
    assert!(!p.screen().alternate_screen());
}
