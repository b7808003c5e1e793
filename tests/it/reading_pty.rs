//! Issue 27, items 8, 9, 11 and 12: what the cockpit says can be read and
//! trusted. Each test drives the built binary in a real pseudo-terminal on the
//! demo workspace: the problems list is `validate`'s and keeps an opener's
//! stderr, empty panes say what they would show, the timeline scrolls sideways
//! and shows the event ids artifacts name, the report's stale markers sit beside
//! their numbers, and a key-hint line follows the focus.

use crate::common;
use common::Session;

const ROWS: u16 = 40;
const COLS: u16 = 200;

/// The demo (or `root`) at 40 × 200 with the person's config `config` (a
/// `config.toml` text), the tree loaded.
fn open(root: &std::path::Path, config: &str) -> (Session, tempfile::TempDir) {
    let cfg = crate::common::fs::scratch_dir();
    common::fs::write(cfg.path(), "testdeck/config.toml", config);
    let mut cmd = Session::command(root, cfg.path());
    cmd.env("TESTDECK_IMAGES", "halfblocks");
    (Session::spawn(cmd, ROWS, COLS), cfg)
}

/// `/`, `query`, Enter: the finder at this test's size.
fn find(s: &mut Session, query: &str) {
    s.send("/");
    s.wait_sized(ROWS, COLS, "the finder", |sc| {
        sc.contents().contains("Find cases")
    });
    s.send(query);
    let typed = format!("❯ {query}");
    s.wait_sized(ROWS, COLS, "the query", |sc| sc.contents().contains(&typed));
    s.send("\r");
}

/// The screen's rows.
fn rows(s: &Session) -> Vec<String> {
    let p = s.screen_sized(ROWS, COLS);
    p.screen().contents().lines().map(str::to_owned).collect()
}

/// Items 8 and 9: `p` lists what `testdeck validate` finds (the demo: 0 errors,
/// 2 warnings), never "No problems"; an opener that fails with a
/// Playwright-style box leaves its cause on the status line (not the box's
/// border) and its whole stderr in the problems list.
#[test]
fn the_problems_list_is_validates_and_keeps_an_openers_stderr() {
    let ws = common::fs::demo_copy();
    // the cause inside a box, a line before it, the box's border last
    let script = "printf 'Error: browserType.launch: failed\\n╔══════╗\\n║ No chromium-based browser found on the system ║\\n╚══════╝\\n' >&2; exit 1";
    let config = format!("[open]\ntrace = [\"sh\", \"-c\", {script:?}]\n");
    let (mut s, _cfg) = open(ws.path(), &config);
    s.wait_sized(ROWS, COLS, "the tree", |sc| {
        sc.contents().contains("Tests · 21")
    });
    s.send("p");
    s.wait_sized(ROWS, COLS, "validate's count", |sc| {
        sc.contents().contains("Problems · 0 errors · 2 warnings")
    });
    let shown = rows(&s).join("\n");
    assert!(shown.contains("case-unregistered"), "{shown}");
    assert!(shown.contains("execution-legacy"), "{shown}");
    assert!(!shown.contains("No problems"), "{shown}");
    s.send("\x1b");
    // the opener fails on workbench-open's trace
    find(&mut s, "'workbench-open");
    s.wait_sized(ROWS, COLS, "the run read", |sc| {
        sc.contents().contains("20261125-080945-907")
    });
    let status = |s: &Session| rows(s).last().cloned().unwrap_or_default();
    let mut said = false;
    for _ in 0..20 {
        s.send("o");
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_secs(2) && !said {
            said = status(&s).contains("sh:");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        if said {
            break;
        }
    }
    let line = status(&s);
    assert!(
        line.contains("No chromium-based browser found on the system"),
        "the cause, not the border: {line}"
    );
    assert!(!line.contains("╚"), "{line}");
    s.send("p");
    s.wait_sized(ROWS, COLS, "the opener's failure in the list", |sc| {
        sc.contents().contains("1 failed opener or runner")
    });
    let shown = rows(&s).join("\n");
    for l in [
        "Error: browserType.launch: failed",
        "║ No chromium-based browser found on the system ║",
        "╚══════╝",
    ] {
        assert!(shown.contains(l), "the whole stderr ({l}):\n{shown}");
    }
    s.send("\x1b");
    s.quit();
}

/// Item 8 (empty states) and item 12 (hidden): a workspace with an empty tests
/// tree, no catalog and no runs: every pane says what it would show and how to
/// get it, never `Nothing selected`; `[ui] key_hints = false` hides the hint line.
#[test]
fn an_empty_workspace_says_what_each_pane_shows_and_hints_can_be_hidden() {
    let ws = crate::common::fs::scratch_dir();
    std::fs::create_dir_all(ws.path().join("tests")).expect("tests/");
    let (mut s, _cfg) = open(ws.path(), "[ui]\nkey_hints = false\n");
    s.wait_sized(ROWS, COLS, "the empty tree", |sc| {
        sc.contents().contains("No test cases here")
    });
    let shown = rows(&s).join("\n");
    for l in [
        "Details of the selected case or folder",
        "A case is tests/<domain>/<layer>/<suite>/",
        "A run's events as they happen",
        "A run's screenshots, traces and reports",
    ] {
        assert!(shown.contains(l), "{l}:\n{shown}");
    }
    assert!(!shown.contains("Nothing selected"), "{shown}");
    // hidden: the row above the status bar is the panes' bottom border
    let r = rows(&s);
    assert!(
        !r[r.len() - 2].contains("Tab next pane"),
        "{}",
        r[r.len() - 2]
    );
    s.send("2");
    s.wait_sized(ROWS, COLS, "the catalog tab", |sc| {
        sc.contents().contains("No tester catalog here")
    });
    let shown = rows(&s).join("\n");
    assert!(
        shown.contains("Details of the selected catalog case"),
        "{shown}"
    );
    assert!(!shown.contains("Nothing selected"), "{shown}");
    s.send("3");
    s.wait_sized(ROWS, COLS, "the runs tab", |sc| {
        sc.contents().contains("No runs yet")
    });
    let shown = rows(&s).join("\n");
    assert!(shown.contains("Details of the selected run"), "{shown}");
    assert!(shown.contains("r in the Tests tab"), "{shown}");
    assert!(!shown.contains("Nothing selected"), "{shown}");
    s.quit();
}

/// Items 11 and 12: the timeline shows the id of the event an artifact names
/// (`◆ s2`) and scrolls sideways with `>` / `<` (the title says by how much);
/// the hint line under the panes names the focused pane's keys; a catalog
/// case's multi-line `how.run` is shown as lines; the report puts each stale
/// marker beside its number.
#[test]
fn the_timeline_shows_ids_and_scrolls_sideways_and_hints_follow_the_focus() {
    let ws = common::fs::demo_copy();
    // two stale numbers on one line of the ai report
    let file = ws.path().join("tests/report/ai/report.md");
    let md = std::fs::read_to_string(&file).expect("report");
    let changed = md.replacen(
        "`33` 次 raw runs，其中 `27` 次 passed",
        "`34` 次 raw runs，其中 `28` 次 passed",
        1,
    );
    assert_ne!(changed, md, "the demo report has the line");
    std::fs::write(&file, changed).expect("write");
    let (mut s, _cfg) = open(ws.path(), "");
    s.wait_sized(ROWS, COLS, "the tree", |sc| {
        sc.contents().contains("Tests · 21")
    });
    let hint_row = |s: &Session| {
        let r = rows(s);
        r[r.len() - 2].clone()
    };
    // the tree has the keys: its hints
    s.wait_sized(ROWS, COLS, "the tree's hints", |sc| {
        let c = sc.contents();
        let r: Vec<&str> = c.lines().collect();
        r.len() >= 2 && r[r.len() - 2].contains("r run") && r[r.len() - 2].contains("/ find")
    });
    find(&mut s, "'terminal-live-plan-execute");
    s.wait_sized(ROWS, COLS, "the artifact's step id in its row", |sc| {
        sc.contents().contains("◆ s2 ")
    });
    // Tab to the details, Tab to the timeline
    s.send("\t");
    s.send("\t");
    s.wait_sized(ROWS, COLS, "the timeline's hints", |sc| {
        let c = sc.contents();
        let r: Vec<&str> = c.lines().collect();
        r.len() >= 2 && r[r.len() - 2].contains("> scroll right")
    });
    assert!(!hint_row(&s).contains("r run"), "{}", hint_row(&s));
    s.send(">");
    s.wait_sized(ROWS, COLS, "scrolled 10 columns", |sc| {
        sc.contents().contains("[→10 <]")
    });
    // the header row scrolled too: `time` is cut off, `…` says so
    assert!(rows(&s).iter().any(|r| r.contains("│…")), "{:?}", rows(&s));
    s.send("<");
    s.wait_sized(ROWS, COLS, "back to the start", |sc| {
        !sc.contents().contains("[→")
    });
    // a catalog case's script of several lines: its lines, no literal \n
    s.send("2");
    find(&mut s, "TC-CLI-003");
    s.wait_sized(ROWS, COLS, "how.run as lines", |sc| {
        sc.contents().contains("for i in 1 2 3 4 5; do")
    });
    // the details zoomed: the whole script, line by line
    s.send("\t");
    s.send("z");
    s.wait_sized(ROWS, COLS, "the script's last line", |sc| {
        sc.contents().contains("echo done")
    });
    let shown = rows(&s).join("\n");
    assert!(!shown.contains("\\n"), "{shown}");
    s.send("z");
    // the report: each marker beside its number
    s.send("1");
    find(&mut s, "'workbench-approval-flow");
    s.send("R");
    s.wait_sized(ROWS, COLS, "the report", |sc| {
        sc.contents().contains("2 stale")
    });
    let shown = rows(&s).join("\n");
    assert!(shown.contains("`34` ⚠ logs: 33"), "{shown}");
    assert!(shown.contains("`28` ⚠ logs: 27"), "{shown}");
    s.send("\x1b");
    s.quit();
}
