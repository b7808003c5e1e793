//! The failure view and the details' summary, drawn (TestBackend) on a workspace
//! with one failed vitest-like run: the digest read as a feature job (`reading…`
//! until it is back), the diff in the theme's colours and plain without colour,
//! the `node_modules` and `node:` frames folded into one line, `E`'s frame, `W`
//! from the Runs tab, and a passing case that has no why.

use crate::common;
use common::app::{Deck, Runs, options, render, rows};
use crossterm::event::KeyCode;
use ratatui::style::Color;
use testdeck_tui::action::Action;
use testdeck_tui::app::{EditTarget, Effect, Screen};
use testdeck_tui::feature_work::FeatureWork;
use testdeck_tui::theme::Theme;

const CASE: &str = "shop/backend/cart/cart-merge";
const TEST: &str = "tests/shop/backend/cart/cart-merge.test.ts";
const RUN: &str = "tests/logs/shop/backend/cart/cart-merge/20260101-000000-001";

/// A workspace with the failed case (a failed run as vitest's reporter writes
/// it: the frames of vitest itself, of node and of the test) and a passed one.
fn workspace() -> tempfile::TempDir {
    let d = crate::common::fs::scratch_dir();
    let root = d.path();
    let abs = root.join(TEST);
    let abs = abs.to_str().expect("utf-8");
    let w = |rel: &str, text: &str| common::fs::write(root, rel, text);
    w(
        TEST,
        "import { expect, test } from 'vitest';\ntest('merges', () => {\n  const lines = [{ sku: 'tea', qty: 1 }];\n  expect(lines).toEqual([{ sku: 'tea', qty: 2 }]);\n});\n",
    );
    w(
        "tests/shop/backend/cart/cart-total.test.ts",
        "test('ok', () => {});\n",
    );
    let error = serde_json::json!({
        "message": "\u{1b}[31mexpected [ { sku: 'tea', qty: 1 } ] to deeply equal [ { sku: 'tea', qty: 2 } ]\u{1b}[39m",
        "expected": "[\n  {\n    \"qty\": 2,\n    \"sku\": \"tea\"\n  }\n]",
        "actual": "[\n  {\n    \"qty\": 1,\n    \"sku\": \"tea\"\n  }\n]",
        "stack": format!(
            "AssertionError: expected\n    at file://{root}/node_modules/@vitest/expect/dist/index.js:1420:11\n    at {abs}:4:17\n    at processTicksAndRejections (node:internal/process/task_queues:105:5)",
            root = root.display()
        ),
    });
    let failed = serde_json::json!({
        "ts": "2026-01-01T00:00:00.300Z", "type": "assertion", "name": "line-merged",
        "status": "failed", "id": "a1", "message": "line-merged did not hold",
        "data": {"error": error, "location": {"file": abs, "line": 4}},
    });
    let timeline = [
        r#"{"ts":"2026-01-01T00:00:00.100Z","type":"run","name":"run/start","status":"info","message":"run started","data":null}"#.to_owned(),
        r#"{"ts":"2026-01-01T00:00:00.200Z","type":"step","name":"opens the cart","status":"ok","id":"s0","message":"step opens the cart done","data":{"durationMs":3}}"#.to_owned(),
        failed.to_string(),
        r#"{"ts":"2026-01-01T00:00:00.500Z","type":"run","name":"run/finish","status":"failed","message":"run failed","data":null}"#.to_owned(),
    ];
    w(
        &format!("{RUN}/timeline.jsonl"),
        &(timeline.join("\n") + "\n"),
    );
    let meta = |run: &str, case: &str, status: &str| {
        format!(
            r#"{{"schemaVersion":4,"runId":"{run}","caseId":"{case}","scope":"shop/backend/cart","status":"{status}","startedAt":"2026-01-01T00:00:00Z","finishedAt":"2026-01-01T00:00:01Z","stats":{{"durationMs":500,"steps":1,"assertions":1,"errors":0,"artifacts":0}},"runtime":{{"driver":"sh","target":"none","modelName":"none"}}}}"#
        )
    };
    w(
        &format!("{RUN}/meta.json"),
        &meta("20260101-000000-001", "cart-merge", "failed"),
    );
    let ok = "tests/logs/shop/backend/cart/cart-total/20260101-000000-002";
    w(
        &format!("{ok}/timeline.jsonl"),
        r#"{"ts":"2026-01-01T00:00:00.100Z","type":"run","name":"run/finish","status":"passed","message":"ok","data":null}"#,
    );
    w(
        &format!("{ok}/meta.json"),
        &meta("20260101-000000-002", "cart-total", "passed"),
    );
    d
}

/// Each digest job among `fx`, read and handed back as the runtime does.
fn read_digests(app: &mut Deck, fx: Vec<Effect>) -> usize {
    let mut n = 0;
    for e in fx {
        if let Effect::Work(job @ FeatureWork::Digest { .. }) = e {
            n += 1;
            let root = app.root.clone();
            let d = testdeck_tui::runtime::run_now(job, &root).expect("a digest");
            let more = app.update(Action::WorkDone(Box::new(d)));
            app.settle(more);
        }
    }
    n
}

/// The row and column where `text` starts in the frame.
fn at(rows: &[String], text: &str) -> (u16, u16) {
    rows.iter()
        .enumerate()
        .find_map(|(y, r)| {
            let byte = r.find(text)?;
            Some((y as u16, r[..byte].chars().count() as u16))
        })
        .unwrap_or_else(|| panic!("{text:?} not in\n{}", rows.join("\n")))
}

#[test]
#[allow(clippy::many_single_char_names)] // t: the frame's rows; c, pc, mc: columns
fn the_failure_view_reads_off_the_loop_folds_foreign_frames_and_colours_its_diff() {
    let d = workspace();
    let root = d.path();
    // run folders read, feature jobs left to the test: the digest is a job
    let mut app = Deck::new(options(root, "why"), Runs::FOLDERS)
        .sized(120, 40)
        .loaded();
    assert!(app.jump_to(CASE));
    let left = app.cmd(testdeck_tui::action::Command::Noop);
    let t = rows(&render(&app, &common::app::dark()));
    at(&t, "reading why…");
    // the summary's digest, read as the runtime reads it, once
    assert_eq!(read_digests(&mut app, left), 1);
    let t = rows(&render(&app, &common::app::dark()));
    at(&t, "✗ assertion line-merged");
    at(&t, "expected [ { sku: 'tea', qty: 1 } ] to deeply equal");
    at(&t, &format!("at {TEST}:4"));
    at(&t, "W: why");
    // E on the tree: the failed case's test file at the line it failed
    assert_eq!(
        app.edit_target(),
        Ok(EditTarget {
            file: TEST.into(),
            line: Some(4)
        })
    );
    // W: the failure view, from the digest already read (no job again)
    let fx = app.keys("W");
    assert!(
        !fx.iter()
            .any(|e| matches!(e, Effect::Work(FeatureWork::Digest { .. }))),
        "{fx:?}"
    );
    let theme = common::app::dark();
    let frame = render(&app, &theme);
    let t = rows(&frame);
    at(&t, "Why it failed");
    // the frames of vitest and node fold into one line; the test's frame is shown
    at(&t, "… 2 frames in node_modules / node internals");
    assert!(
        !t.iter().any(|r| r.contains("task_queues")),
        "{}",
        t.join("\n")
    );
    at(&t, &format!("▸ at {TEST}:4:17"));
    let (marked, mc) = at(&t, "▶ 4 │");
    assert!(
        t[marked as usize].contains("expect(lines).toEqual"),
        "{}",
        t.join("\n")
    );
    // expected / actual as a line diff in the theme's colours
    let (minus, c) = at(&t, "-     \"qty\": 2,");
    let (plus, pc) = at(&t, "+     \"qty\": 1,");
    assert_eq!(plus, minus + 1, "{}", t.join("\n"));
    let buf = frame.backend().buffer();
    assert_eq!(
        buf[(c, minus)].fg,
        theme.get("diff_expected").fg.expect("fg")
    );
    assert_eq!(
        buf[(pc, plus)].fg,
        theme.get("diff_received").fg.expect("fg")
    );
    assert_eq!(
        buf[(mc, marked)].fg,
        theme.get("source_mark").fg.expect("fg")
    );
    // without colour: the same rows, no colour on them
    let plain = Theme::builtin("dark", true).expect("plain");
    let frame = render(&app, &plain);
    let buf = frame.backend().buffer();
    for (x, y) in [(c, minus), (pc, plus), (mc, marked)] {
        assert_eq!(buf[(x, y)].fg, Color::Reset);
        assert_eq!(buf[(x, y)].bg, Color::Reset);
    }
    // E: the frame under the cursor, at its line; the only frame in the workspace
    assert_eq!(
        app.edit_target(),
        Ok(EditTarget {
            file: TEST.into(),
            line: Some(4)
        })
    );
    app.keys("j");
    assert_eq!(app.edit_target().map(|t| t.line), Ok(Some(4)));
    // Esc: back to the panes; the Runs tab's run opens the same view
    app.key(KeyCode::Esc);
    assert!(app.layers().screen().is_none());
    app.keys("3");
    let i = app
        .runs()
        .visible()
        .iter()
        .position(|r| matches!(r, testdeck_tui::app::RunRow::Tests(i) if app.domain().ws().is_some_and(|w| w.logs.runs[*i].path == RUN)))
        .expect("the failed run in the Runs tab");
    for _ in 0..i {
        app.keys("j");
    }
    app.keys("W");
    match app.layers().screen() {
        Some(Screen::Why(w)) => {
            assert_eq!(w.run(), RUN);
            assert!(w.digest().is_some(), "read once, shown again");
        }
        _ => panic!("no failure view from the Runs tab"),
    }
}

#[test]
fn a_passing_case_has_no_why_and_a_digest_is_read_while_the_view_waits() {
    let d = workspace();
    let root = d.path();
    let mut app = Deck::new(options(root, "why"), Runs::FOLDERS)
        .sized(120, 40)
        .loaded();
    app.jump("shop/backend/cart/cart-total");
    let fx = app.keys("W");
    assert!(app.layers().screen().is_none());
    assert!(
        app.notice()
            .as_deref()
            .is_some_and(|n| n.contains("did not fail")),
        "{:?}",
        app.notice()
    );
    assert!(
        !fx.iter()
            .any(|e| matches!(e, Effect::Work(FeatureWork::Digest { .. }))),
        "a passing run is not read: {fx:?}"
    );
    let t = rows(&render(&app, &common::app::dark()));
    assert!(!t.iter().any(|r| r.contains("W: why")), "{}", t.join("\n"));
    // E on a passing case: its test file, at its top
    assert_eq!(
        app.edit_target(),
        Ok(EditTarget {
            file: "tests/shop/backend/cart/cart-total.test.ts".into(),
            line: None
        })
    );
    // the failed case: W before the digest is back says so, then shows it
    assert!(app.jump_to(CASE));
    let mut left = app.cmd(testdeck_tui::action::Command::Noop);
    left.extend(app.keys("W"));
    let t = rows(&render(&app, &common::app::dark()));
    at(&t, "reading…");
    assert_eq!(
        read_digests(&mut app, left),
        1,
        "one job for the summary and W"
    );
    let t = rows(&render(&app, &common::app::dark()));
    at(&t, "Stack:");
}
