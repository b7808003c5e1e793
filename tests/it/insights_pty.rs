//! Issue 29, the cockpit half: what the history says, in a real pseudo-terminal
//! on the demo workspace — the tree sorted by one key (its title names the
//! sort), the Insights screen jumping to a case, the duration chart of a case's
//! runs with its axes labelled, and the stale badge that a touched test file
//! brings and a new run of the case takes away.

use crate::common;
use common::Session;

/// The row a text is on in the tree's columns (it must be there).
fn row_of(s: &Session, text: &str) -> u16 {
    let p = s.screen();
    let sc = p.screen();
    (0..sc.size().0)
        .find(|&r| sc.contents_between(r, 0, r, TREE_COLS).contains(text))
        .unwrap_or_else(|| panic!("{text} not in the tree:\n{}", sc.contents()))
}

/// The tree's columns once widened by `+++`.
const TREE_COLS: u16 = 62;

/// `S` cycles the sort and reorders a folder's cases (the title says which);
/// `I` lists the slowest cases, `j` then Enter selects the second in the tree
/// and the Details name it, with the chart of its runs under them.
#[test]
fn sort_key_insights_jump_and_duration_chart() {
    let ws = common::fs::demo_copy();
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start(ws.path(), cfg.path());
    s.wait_text("Tests · 21 ─");
    // docx/backend/export/basic holds two cases: heading (passed, faster) and
    // legacy-styles (failed, slower)
    s.find("'docx-export-heading");
    s.wait_text("export/basic/docx-export-heading.test.ts");
    // a wider tree: the names whole
    s.send("+++");
    // a row too narrow for its badges in full shows their signs (`!` new✗)
    s.wait_text("⚠∅~!");
    let (heading, legacy) = ("docx-export-heading ", "docx-export-le");
    assert!(row_of(&s, heading) < row_of(&s, legacy), "by name");
    s.send("S");
    s.wait_text("sort: status");
    assert!(row_of(&s, legacy) < row_of(&s, heading), "failed first");
    s.send("S");
    s.wait_text("sort: duration");
    assert!(row_of(&s, legacy) < row_of(&s, heading), "slowest first");
    s.send("SSS");
    s.wait_text("tree sorted by name");
    s.wait_for("no sort named", |sc| !sc.contents().contains("sort: "));
    assert!(row_of(&s, heading) < row_of(&s, legacy), "by name again");

    // the Insights screen: the six lists, the slowest first
    s.send("I");
    s.wait_text("Insights: what the history says");
    for list in ["Slowest", "Regressions", "Flakiest"] {
        s.wait_text(list);
    }
    s.wait_text("ai/backend/tools/terminal/live/terminal-live-plan-execute");
    // an empty list says what it would show
    s.wait_text("(no latest run is slower than the runs before it)");
    // the last lists further down (G: the last case), then back to the first
    s.send("G");
    s.wait_text("New failures");
    s.wait_text("(no case failing two runs or more in a row)");
    s.wait_text("(no case's files changed after its latest run)");
    s.send("g");
    s.wait_text("Slowest");
    s.send("j");
    s.send("\r");
    s.wait_for("the jump to kb-search-live-rerank", |sc| {
        let c = sc.contents();
        !c.contains("Insights: what") && c.contains("scope      kb-search/backend/query/live")
    });
    // its two runs drawn under the details when they have the rows (zoomed):
    // the chart's title, its axes' labels (durations, dates, the run count)
    s.send("\t");
    s.send("z");
    s.wait_text("duration per run");
    s.wait_text("2 runs");
    s.wait_for("the axes' labels", |sc| {
        let c = sc.contents();
        c.contains("0ms") && c.contains("30.6s") && c.contains("11-")
    });
    s.quit();
}

/// The demo's files are dated before its runs: nothing is stale. A test file
/// touched while the cockpit is open makes its case stale; a new run of the
/// case (`r`, the demo runner) clears it.
#[test]
fn stale_badge_comes_with_a_touched_file_and_goes_with_a_run() {
    let ws = common::fs::demo_copy();
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start_with(ws.path(), cfg.path(), &[("DEMO_RUNNER_PACE", "0")]);
    s.wait_text("Tests · 21");
    s.find("'kb-search-basic");
    s.wait_text("query/basic/kb-search-basic.test.ts");
    // nothing is stale
    assert!(!s.screen().screen().contents().contains("stale"));
    let file = ws
        .path()
        .join("tests/kb-search/backend/query/basic/kb-search-basic.test.ts");
    std::fs::File::options()
        .write(true)
        .open(&file)
        .expect("open")
        .set_modified(std::time::SystemTime::now())
        .expect("touch");
    s.wait_for("the stale badge on kb-search-basic", |sc| {
        (0..sc.size().0).any(|r| {
            let row = sc.contents_between(r, 0, r, 45);
            row.contains("kb-search-basic") && row.contains("stale")
        })
    });
    s.send("r");
    s.wait_for("the stale badge gone after the run", |sc| {
        let c = sc.contents();
        c.contains("kb-search-basic ") && !c.contains("stale") && c.contains("5×")
    });
    s.quit();
}
