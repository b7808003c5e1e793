//! The cockpit reads at a glance (issue 15's drawing half), as render snapshots at
//! 140×40, 100×30 and 60×15 on the demo: the tree's header and the legend, one
//! scroll model (clamped, reset, `↓ more`), zoom and tree width, a status bar that
//! keeps what is happening, prompts that keep their choices, pretty runtime events.

use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::Path;
use testdeck_exec::{Grantable, Risk};
use testdeck_tui::app::App;

use crate::common;
use common::app::{Deck, Runs, dark, options, render_measured, rows};

const SIZES: [(u16, u16); 3] = [(140, 40), (100, 30), (60, 15)];
const LIVE_PLAN: &str = "ai/backend/tools/terminal/live/terminal-live-plan-execute";
const FAILED_E2E: &str = "kb-search/e2e/search-panel/boundary/search-panel-timeout-message";

fn loaded(root: &Path, w: u16, h: u16) -> Deck {
    Deck::new(options(root, "demo"), Runs::FOLDERS)
        .sized(w, h)
        .loaded()
}

/// Draw a frame and, as the loop does, let the app keep its scrolls inside it.
fn frame(app: &mut App) -> Terminal<TestBackend> {
    let theme = dark();
    let (t, m) = render_measured(app, &theme);
    app.fit_scroll(&m);
    t
}

fn name(what: &str, (w, h): (u16, u16)) -> String {
    format!("{what}_{w}x{h}")
}

#[test]
fn tree_header_and_help_legend_at_three_sizes() {
    let d = common::fs::demo_copy();
    for size in SIZES {
        let mut app = loaded(d.path(), size.0, size.1);
        let t = frame(&mut app);
        let r = rows(&t);
        assert!(
            r[2].contains("passed") || r[2].contains('…'),
            "{size:?}: no header row over the tree: {}",
            r[2]
        );
        insta::assert_snapshot!(name("tree_header", size), t.backend());
        app.keys("?");
        let t = frame(&mut app);
        assert!(
            rows(&t).iter().any(|l| l.contains("legend")),
            "{size:?}: the legend opens help"
        );
        insta::assert_snapshot!(name("help_legend", size), t.backend());
        // G lands on the last line: shown at the bottom, nothing more below
        app.keys("G");
        let t = frame(&mut app);
        let r = rows(&t);
        let last = app
            .keymap()
            .help_rows()
            .last()
            .map(|(_, _, desc)| desc.clone())
            .expect("help rows");
        let at = r.iter().position(|l| l.contains(&last));
        assert!(
            at.is_some(),
            "{size:?}: G does not show {last:?}:\n{}",
            r.join("\n")
        );
        let bottom = r
            .iter()
            .rposition(|l| l.contains('╰'))
            .expect("help's border");
        assert_eq!(
            at.map(|a| a + 1),
            Some(bottom),
            "{size:?}: the last line is not at the bottom:\n{}",
            r.join("\n")
        );
        assert!(!r[bottom].contains("more"), "{}", r[bottom]);
        insta::assert_snapshot!(name("help_bottom", size), t.backend());
    }
}

#[test]
fn details_scroll_stops_at_its_end_and_starts_again_for_a_new_subject() {
    let d = common::fs::demo_copy();
    for size in SIZES {
        let mut app = loaded(d.path(), size.0, size.1);
        app.jump(FAILED_E2E);
        app.key(KeyCode::Tab);
        for _ in 0..40 {
            app.keys("j");
            frame(&mut app);
        }
        let measured = app.details().cursor;
        app.keys("G");
        let t = frame(&mut app);
        assert!(
            measured <= app.details().cursor,
            "{size:?}: j ran past G's end ({measured} > {})",
            app.details().cursor
        );
        let r = rows(&t);
        let details = r
            .iter()
            .position(|l| l.contains("Details"))
            .expect("details pane");
        // the details pane's own columns (the tree's border shares its rows)
        let col = r[details]
            .chars()
            .collect::<Vec<_>>()
            .windows(9)
            .position(|w| w.iter().collect::<String>() == "╭ Details")
            .expect("details title");
        let r: Vec<String> = r.iter().map(|l| l.chars().skip(col).collect()).collect();
        let bottom = r[details..]
            .iter()
            .position(|l| l.starts_with('╰'))
            .map(|b| b + details)
            .expect("details border");
        assert!(
            !r[bottom].contains("more"),
            "{size:?}: scrolled to the end, still more below:\n{}",
            r.join("\n")
        );
        assert!(
            r[bottom - 1].chars().any(char::is_alphanumeric),
            "{size:?}: the last row of the details is blank (scrolled past the end):\n{}",
            r.join("\n")
        );
        insta::assert_snapshot!(name("details_end", size), t.backend());
        // one k moves at once: the scroll was kept at the end, not at 40
        let end = app.details().cursor;
        assert!(
            end > 0 && end < 10_000,
            "{size:?}: the end is measured ({end})"
        );
        app.keys("k");
        assert_eq!(app.details().cursor + 1, end.max(1));
        // a new subject starts from the top
        app.keys("j3");
        assert_eq!(
            app.details().cursor,
            0,
            "{size:?}: a tab switch kept the scroll"
        );
        app.keys("1");
        app.jump(LIVE_PLAN);
        assert_eq!(app.details().cursor, 0, "{size:?}: a jump kept the scroll");
    }
}

#[test]
fn zoom_and_tree_width_at_three_sizes() {
    let d = common::fs::demo_copy();
    for size in SIZES {
        let mut app = loaded(d.path(), size.0, size.1);
        let before = app.areas().panes.tree.width;
        app.keys("z");
        assert_eq!(
            app.areas().panes.tree.width,
            size.0,
            "{size:?}: the tree fills the width"
        );
        assert!(app.areas().panes.details.is_none());
        let t = frame(&mut app);
        insta::assert_snapshot!(name("zoom_tree", size), t.backend());
        // Tab moves the zoom to the details
        app.key(KeyCode::Tab);
        let full = app.areas().panes.details.expect("zoomed details");
        assert_eq!(full.width, size.0);
        let t = frame(&mut app);
        insta::assert_snapshot!(name("zoom_details", size), t.backend());
        app.keys("z");
        app.key(KeyCode::BackTab);
        assert_eq!(app.areas().panes.tree.width, before);
        app.keys("++");
        let wider = app.areas().panes.tree.width;
        assert!(wider > before, "{size:?}: + widens ({before} → {wider})");
        let t = frame(&mut app);
        insta::assert_snapshot!(name("wider_tree", size), t.backend());
        app.keys("----");
        assert!(app.areas().panes.tree.width < before, "{size:?}: - narrows");
    }
}

#[test]
fn catalog_titles_keep_their_room() {
    let d = common::fs::demo_copy();
    let mut app = loaded(d.path(), 140, 40);
    app.keys("2++++");
    let t = frame(&mut app);
    let r = rows(&t);
    let row = r
        .iter()
        .find(|l| l.contains("TC-CLI-001"))
        .expect("a catalog row");
    assert!(
        !row.contains('…'),
        "a wide tree still cuts the title: {row}"
    );
    insta::assert_snapshot!("catalog_wide_tree", t.backend());
}

/// Running, watching and the last notice stay on the bar however many
/// authorizations were given; the authorizations shorten to a count.
#[test]
fn the_status_bar_keeps_what_is_happening() {
    let d = common::fs::demo_copy();
    for size in SIZES {
        let mut app = loaded(d.path(), size.0, size.1);
        for g in [
            Grantable::Risk(Risk::Mutating),
            Grantable::Risk(Risk::Destructive),
            Grantable::Gate("reset-index".into()),
            Grantable::Gate("payments".into()),
            Grantable::Live,
        ] {
            app.launch_mut().grant(g);
        }
        app.launch_mut().set_running(1);
        let t = frame(&mut app);
        let r = rows(&t);
        let bar = &r[r.len() - 1];
        assert!(bar.contains("▶ 1 running"), "{size:?}: {bar}");
        if size.0 >= 100 {
            assert!(bar.contains("auth"), "{size:?}: {bar}");
        }
        insta::assert_snapshot!(name("status_priorities", size), t.backend());
        app.keys("m");
        let t = frame(&mut app);
        let r = rows(&t);
        let bar = &r[r.len() - 1];
        assert!(bar.contains("▶ 1 running"), "{size:?}: {bar}");
        // the workspace and HOST stay; a notice longer than the room is cut
        assert!(bar.contains(" demo  HOST 127.0.0.1 "), "{size:?}: {bar}");
        if size.0 >= 100 {
            assert!(
                bar.contains("max risk raised to dest"),
                "{size:?}: m says what it set: {bar}"
            );
        } else {
            assert!(
                bar.contains("max risk rai") && bar.contains('…'),
                "{size:?}: m says what it set, cut: {bar}"
            );
        }
    }
}

#[test]
fn the_live_prompt_keeps_its_choices_at_three_sizes() {
    let d = common::fs::demo_copy();
    for size in SIZES {
        let mut app = loaded(d.path(), size.0, size.1);
        app.jump(LIVE_PLAN);
        app.keys("r");
        let t = frame(&mut app);
        let s = t.backend().to_string();
        assert!(s.contains("Run a live case?"), "{size:?}:\n{s}");
        assert!(
            s.contains(" y  yes"),
            "{size:?}: the choices are cut off:\n{s}"
        );
        insta::assert_snapshot!(name("live_prompt", size), t.backend());
    }
}

#[test]
fn runtime_events_open_pretty_printed() {
    let d = common::fs::demo_copy();
    let mut app = loaded(d.path(), 140, 40);
    app.jump("ai/backend/director-plan/boundary/director-plan-approval-denied");
    app.keys("v");
    app.key(KeyCode::Tab);
    app.key(KeyCode::Tab);
    app.keys("gg");
    app.key(KeyCode::Enter);
    let Some(testdeck_tui::app::Overlay::Data { lines, .. }) = app.layers().overlay() else {
        panic!("no data overlay: {:?}", app.layers().overlay().is_some());
    };
    assert!(lines.len() > 2, "one raw line: {lines:?}");
    assert_eq!(lines.first().map(String::as_str), Some("{"));
    assert!(lines.iter().any(|l| l.starts_with("  \"")), "{lines:?}");
    insta::assert_snapshot!("runtime_event_pretty", frame(&mut app).backend());
}

#[test]
fn an_empty_type_filter_says_so() {
    let d = common::fs::demo_copy();
    let mut app = loaded(d.path(), 140, 40);
    app.jump(FAILED_E2E);
    // cycle the type filter until it shows nothing (a type this run lacks)
    let mut hint = None;
    for _ in 0..12 {
        app.keys("t");
        let s = frame(&mut app).backend().to_string();
        if app.live().visible_len() == 0 {
            hint = Some(s);
            break;
        }
    }
    let s = hint.expect("a type with no event in this run");
    assert!(s.contains("t shows the next type"), "{s}");
}

/// Views draw from the snapshot the panes hand them: the change that selects a
/// case derives its chart and verdicts (domain queries, counted), and a frame
/// drawn from it — drawn and measured, twice — runs none.
#[test]
fn a_frame_runs_no_domain_query() {
    type Step<'a> = (&'a dyn Fn(&mut Deck), &'a dyn Fn(&App, &str) -> bool);
    use testdeck_tui::app::snapshot::domain_queries;
    let d = common::fs::demo_copy();
    let mut app = Deck::new(options(d.path(), "demo"), Runs::FOLDERS)
        .sized(140, 40)
        .loaded()
        .with_records();
    let theme = dark();
    // a failed case of the Tests tab (its chart), then a catalog case (its verdicts)
    let steps: [Step; 2] = [
        (&|a| a.jump(FAILED_E2E), &|a, _| {
            a.snapshot().details.chart.is_some()
        }),
        (
            &|a| {
                a.keys("2");
                while a.shared().selected_catalog_case().is_none() {
                    a.keys("j");
                }
            },
            &|_, s| s.contains("verdict    ✓ pass"),
        ),
    ];
    for (select, shown) in steps {
        let before = domain_queries();
        select(&mut app);
        let derived = domain_queries();
        assert!(derived > before, "the change derived what is shown");
        let (t, m) = render_measured(&app, &theme);
        let again = render_measured(&app, &theme).1;
        assert_eq!(domain_queries(), derived, "a frame ran a domain query");
        assert_eq!(m.details_max, again.details_max);
        let s = common::app::text(&t);
        assert!(shown(&app, &s), "{s}");
    }
}
