//! Issue 27, items 3–6: every pane derives from the selection through one
//! place, and previews and prompts say what will happen. Each test drives the
//! built binary in a real pseudo-terminal on the demo workspace: the Catalog
//! tab's timeline shows the selected case's latest run (and never a launched
//! one's on another row), a launch blocked by the max risk alone offers to raise
//! it and then asks, the preview names its cases and what it leaves out (a live
//! case, a group above the max risk), and the timeline names its case and run,
//! empties when a launch starts, follows a multi-case launch with the details,
//! ends a followed run whose folder is deleted and announces a new one (`J`).

use crate::common;
use common::Session;

/// The smoke run record of the demo's catalog.
const RECORD: &str = "20261126T091502Z-smoke-4be21c";

/// Kills the process it holds when the test ends, passed or not.
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A `sh` writing a run folder `dir` of the demo line by line (no meta.json).
fn external_run(root: &std::path::Path, dir: &str, tag: &str) -> Reaped {
    let script = format!(
        "mkdir -p {dir}\n\
         i=0; while [ $i -lt 600 ]; do\n\
         printf '{{\"type\":\"step\",\"name\":\"{tag}-%s\",\"status\":\"ok\"}}\\n' $i >> {dir}/timeline.jsonl 2>/dev/null\n\
         i=$((i+1)); sleep 0.1; done\n"
    );
    Reaped(
        std::process::Command::new("sh")
            .arg("-c")
            .arg(&script)
            .current_dir(root)
            .spawn()
            .expect("sh"),
    )
}

/// The title row of the timeline pane (the line holding ` Timeline `).
fn timeline_title(s: &Session) -> String {
    s.screen()
        .screen()
        .contents()
        .lines()
        .find(|l| l.contains(" Timeline "))
        .unwrap_or("")
        .to_owned()
}

/// Item 3: on TC-CLI-004 (a verdict on record) the Catalog tab's timeline
/// shows that case's row of its latest record, titled with both; after
/// TC-CLI-001 is launched, TC-CLI-005's row shows TC-CLI-005's run, not the
/// launch's events.
#[test]
fn the_catalog_timeline_shows_the_selected_case_s_latest_run() {
    let ws = common::fs::demo_copy();
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start(ws.path(), cfg.path());
    s.wait_text("Tests · 21");
    s.send("2");
    s.find("'TC-CLI-004");
    s.wait_text(&format!("TC-CLI-004 · {RECORD}"));
    s.wait_text("TC-CLI-004 fail");
    let c = s.screen().screen().contents();
    assert!(!c.contains("No runs of this case yet"), "{c}");
    // one case launched, then another row: its own run, none of the launch's
    s.find("'TC-CLI-001");
    s.send("r");
    s.wait_text("launch done: 1 pass");
    s.wait_for("TC-CLI-001's new record in the timeline", |sc| {
        let t = sc.contents();
        t.contains("TC-CLI-001 · ") && !t.contains(&format!("TC-CLI-001 · {RECORD}"))
    });
    s.find("'TC-CLI-005");
    s.wait_text(&format!("TC-CLI-005 · {RECORD}"));
    let title = timeline_title(&s);
    assert!(!title.contains("TC-CLI-001"), "{title}");
    let c = s.screen().screen().contents();
    assert!(!c.contains("start TC-CLI-001"), "{c}");
    s.quit();
}

/// Item 4: TC-CLI-006 belongs to a `run_together` group (marked in the list,
/// the mark in `?`); `r` on it shows why nothing would run (its partner is above
/// the max risk) and offers `m`; Enter then launches nothing and writes no run
/// record; `m` raises the max risk for this launch and Enter asks, as the
/// prompts do (the strictest first), instead of skipping.
#[test]
fn a_group_above_the_max_risk_offers_to_raise_it_and_then_asks() {
    let ws = common::fs::demo_copy();
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start(ws.path(), cfg.path());
    s.wait_text("Tests · 21");
    s.send("2");
    s.find("'TC-CLI-006");
    s.wait_for("the group mark on TC-CLI-006's row", |sc| {
        sc.contents()
            .lines()
            .any(|l| l.contains("TC-CLI-006") && l.contains("⇄1"))
    });
    s.send("?");
    s.wait_text("run_together group 1");
    s.send("\x1b");
    s.send("r");
    s.wait_text("0 cases will run");
    s.wait_text("raise the max risk to destructive for this launch");
    s.wait_text("TC-CLI-007 is above max-risk mutating");
    // Enter: nothing runs, nothing is written
    s.send("\r");
    s.wait_text("not launched: no case would run");
    s.send("3");
    s.wait_text("Runs · 71/71");
    let records = std::fs::read_dir(ws.path().join(".pouch/tester/runs"))
        .expect("runs")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "yaml"))
        })
        .count();
    assert_eq!(records, 1, "a record of nothing was written");
    // m: the max risk raised for this launch, and the launch asks
    s.send("2");
    s.send("r");
    s.wait_text("raise the max risk");
    s.send("m");
    s.wait_text("2 cases will run · 2 need an answer first");
    s.send("\r");
    s.wait_text("Authorize destructive cases?");
    s.send("\x1b");
    s.quit();
}

/// Item 5: `r` on `kb-search/backend` counts the three cases the runner runs,
/// names each, and says the live one is left out and why; a category's preview
/// scrolls its cases with j / k.
#[test]
fn the_preview_names_its_cases_and_what_it_leaves_out() {
    let ws = common::fs::demo_copy();
    let cfg = crate::common::fs::scratch_dir();
    let mut cmd = Session::command(ws.path(), cfg.path());
    cmd.env("TESTDECK_IMAGES", "halfblocks");
    let mut s = Session::spawn(cmd, 22, 120);
    s.wait_sized(22, 120, "the tree", |sc| {
        sc.contents().contains("Tests · 21")
    });
    s.find("'kb-search-basic");
    // case → basic → (closed) → query → (closed) → backend
    s.send("hhhhh");
    s.wait_for("backend selected", |sc| {
        sc.contents().contains("kb-search/backend") || sc.contents().contains("▸ query")
    });
    s.send("r");
    s.wait_sized(22, 120, "the preview", |sc| {
        sc.contents().contains("3 cases will run")
    });
    let c = s.screen_sized(22, 120).screen().contents();
    assert!(c.contains("1 excluded"), "{c}");
    assert!(c.contains("kb-search-live-rerank"), "{c}");
    assert!(c.contains("live: left out"), "{c}");
    assert!(
        c.contains("▸ runs  kb-search/backend/query/basic/kb-search-basic"),
        "{c}"
    );
    s.send("\x1b");
    // the CLI category: ten rows, a window of them, j scrolls
    s.send("2");
    s.send("gg");
    s.send("r");
    s.wait_sized(22, 120, "the category's preview", |sc| {
        sc.contents().contains("of 10 · j/k scroll")
    });
    let first = s.screen_sized(22, 120).screen().contents();
    assert!(first.contains("rows 1–"), "{first}");
    s.send("j");
    s.wait_sized(22, 120, "scrolled", |sc| sc.contents().contains("rows 2–"));
    s.send("\x1b");
    s.quit();
}

/// Item 6: the timeline's title names the case and the run; `r` empties the
/// pane at once; a multi-case launch keeps the details and the timeline on the
/// same case; a followed external run whose folder is deleted ends with a note,
/// and a run started while another is followed is announced, `J` shows it.
#[test]
fn the_timeline_names_its_case_and_run_and_follows_what_happens() {
    let ws = common::fs::demo_copy();
    let root = ws.path();
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start_with(root, cfg.path(), &[("DEMO_RUNNER_PACE", "0.3")]);
    s.wait_text("Tests · 21");
    s.find("'terminal-basic-command");
    s.wait_text("basic-command · 20261127-125208-524");
    s.send("r");
    s.wait_for("the old run gone at once", |sc| {
        let c = sc.contents();
        !c.contains("· 20261127-125208-524")
            && (c.contains("Launching — waiting") || c.contains("terminal-basic-command · "))
    });
    s.wait_text("launch done: 1 pass");
    // a multi-case launch in the Catalog tab: the cursor follows its cases
    s.send("2");
    s.find("'TC-CLI-001");
    s.send(" ");
    s.find("'TC-CLI-002");
    s.send(" ");
    s.wait_text("● 2 marked");
    s.send("r");
    s.wait_text("2 cases will run");
    s.send("\r");
    s.wait_text("launch done: 2 pass");
    s.wait_for("details and timeline on TC-CLI-002", |sc| {
        let c = sc.contents();
        c.lines()
            .any(|l| l.contains(" Timeline ") && l.contains("TC-CLI-002 · "))
            && c.lines().any(|l| l.contains("││TC-CLI-002 "))
    });
    // an external run followed, then its folder deleted
    s.send("1");
    let a = "tests/logs/ai/backend/tools/terminal/basic/terminal-basic-command/20291201-090000-000";
    let writer = external_run(root, a, "ext-a");
    s.wait_for("the external run followed", |sc| {
        let c = sc.contents();
        c.contains("ext-a-") && c.contains("● live")
    });
    // another run starts while it is followed: announced, J shows it
    let b = "tests/logs/kb-search/backend/query/basic/kb-search-basic/20291201-090500-000";
    let writer_b = external_run(root, b, "ext-b");
    s.wait_text("J shows the new run kb-search-basic");
    s.send("J");
    s.wait_for("J shows the new run", |sc| {
        let c = sc.contents();
        c.contains("basic · 20291201-090500-000") && c.contains("ext-b-")
    });
    drop(writer_b);
    std::fs::remove_dir_all(root.join(b)).expect("rm");
    s.wait_text("ended, folder deleted: run kb-search-basic");
    s.wait_for("the deleted run no longer live", |sc| {
        let c = sc.contents();
        !c.lines()
            .any(|l| l.contains(" Timeline ") && l.contains("● live"))
    });
    drop(writer);
    s.quit();
}
