//! Issue 27, items 11 and 12, as render snapshots at 140×40, 100×30 and 60×15 on
//! the demo: the timeline showing the ids of the events artifacts name, scrolled
//! sideways, the key-hint line of the focused pane, and the report's stale
//! markers beside their numbers.

use crossterm::event::KeyCode;
use std::path::Path;

use crate::common;
use common::app::{Deck, Runs, dark, options, render, rows};

const SIZES: [(u16, u16); 3] = [(140, 40), (100, 30), (60, 15)];
const LIVE_PLAN: &str = "ai/backend/tools/terminal/live/terminal-live-plan-execute";

fn loaded(root: &Path, w: u16, h: u16) -> Deck {
    Deck::new(options(root, "demo"), Runs::JOBS)
        .sized(w, h)
        .loaded()
}

fn name(what: &str, (w, h): (u16, u16)) -> String {
    format!("{what}_{w}x{h}")
}

#[test]
fn timeline_ids_sideways_scroll_and_hints_at_three_sizes() {
    let d = common::fs::demo_copy();
    for size in SIZES {
        let mut app = loaded(d.path(), size.0, size.1);
        app.jump(LIVE_PLAN);
        // the tree's hints on the row above the status bar
        let t = render(&app, &dark());
        let r = rows(&t);
        assert!(
            r[r.len() - 2].contains("r run"),
            "{size:?}: {}",
            r[r.len() - 2]
        );
        // Tab to the timeline (the details first)
        app.key(KeyCode::Tab);
        app.key(KeyCode::Tab);
        let t = render(&app, &dark());
        let r = rows(&t);
        assert!(
            r[r.len() - 2].contains("Enter open"),
            "{size:?}: the timeline's hints: {}",
            r[r.len() - 2]
        );
        if size.0 >= 100 {
            assert!(
                r.iter().any(|l| l.contains("◆ s2 ")),
                "{size:?}: the id the artifact names:\n{}",
                r.join("\n")
            );
        }
        insta::assert_snapshot!(name("timeline_ids_hints", size), t.backend());
        app.keys(">");
        let t = render(&app, &dark());
        let r = rows(&t);
        assert!(
            r.iter().any(|l| l.contains("[→10 <]")),
            "{size:?}: the offset in the title:\n{}",
            r.join("\n")
        );
        insta::assert_snapshot!(name("timeline_scrolled", size), t.backend());
    }
}

#[test]
fn report_markers_beside_their_numbers_at_three_sizes() {
    let d = common::fs::demo_copy();
    let file = d.path().join("tests/report/ai/report.md");
    let md = std::fs::read_to_string(&file).expect("report");
    let changed = md.replacen(
        "`33` 次 raw runs，其中 `27` 次 passed",
        "`34` 次 raw runs，其中 `28` 次 passed",
        1,
    );
    assert_ne!(changed, md, "the demo report has the line");
    std::fs::write(&file, changed).expect("write");
    for size in SIZES {
        let mut app = loaded(d.path(), size.0, size.1);
        app.jump("ai");
        app.keys("R");
        let t = render(&app, &dark());
        let s = rows(&t).join("\n");
        assert!(s.contains("2 stale"), "{size:?}:\n{s}");
        if size.0 >= 100 {
            assert!(s.contains("`34` ⚠ logs: 33"), "{size:?}:\n{s}");
        }
        insta::assert_snapshot!(name("report_markers", size), t.backend());
    }
}
