//! Why it failed, in the cockpit (issue 25), on `examples/realworld` in a real
//! pseudo-terminal: `W` on the failed vitest case — its diff in the theme's colours
//! (plain under `NO_COLOR`), the failing line of the test marked in its snippet —
//! `E` on a frame opening a recording `sh` "editor" at that file and line, the
//! details' summary; and on the failed Playwright case, its message and call log
//! on lines of their own, in the failure view and in the data overlay.

use crate::common;
use common::Session;
use common::find_text as find;
use common::realworld::{failed, failed_e2e};

const VITEST_TEST: &str = "tests/shop/backend/cart/boundary/cart-line-merge.test.ts";

fn row_text(sc: &vt100::Screen, row: u16) -> String {
    sc.contents_between(row, 0, row, sc.size().1)
}

/// The foreground of the theme's style `key` as vt100 reads it.
fn fg(key: &str) -> vt100::Color {
    let theme = testdeck_tui::theme::Theme::builtin("dark", false).expect("theme");
    match testdeck_tui::theme::rgb(theme.get(key).fg.expect("fg")) {
        Some((r, g, b)) => vt100::Color::Rgb(r, g, b),
        None => panic!("{key} has no colour"),
    }
}

/// `W` on the case: the failure view, its stack frame under the cursor.
fn open_why(s: &mut Session, query: &str) {
    s.find(query);
    // the details' summary of the failed latest run, read off the loop
    s.wait_text("W: why");
    s.send("W");
    s.wait_text("Why it failed");
    s.wait_text("Stack:");
}

#[test]
fn w_shows_why_the_vitest_case_failed_and_e_opens_its_frames_at_their_lines() {
    // the shared project's failed vitest run (read here, never written)
    let Some(f) = failed() else {
        return;
    };
    let root = f.root.as_path();
    let cfg = crate::common::fs::scratch_dir();
    let editor = common::editor::Recording::new();
    let mut s = Session::start_with(root, cfg.path(), &editor.env());
    s.wait_text("Tests ·");
    s.find("cart-line-merge");
    // the details: the first failure's name, its message, where, and the key
    s.wait_text("W: why");
    let text = s.screen().screen().contents();
    assert!(text.contains("✗ assertion same-sku-merged"), "{text}");
    assert!(text.contains("to deeply equal"), "{text}");
    assert!(text.contains(&format!("at {VITEST_TEST}:8")), "{text}");
    s.send("W");
    s.wait_text("Why it failed");
    s.wait_text("Stack:");
    let screen = s.screen();
    let sc = screen.screen();
    let text = sc.contents();
    // the assertion's message, then vitest's expected / actual as a line diff, each
    // line on a row of its own, in the theme's colours
    assert!(
        text.contains("expected [ { sku: 'tea', …(2) }, …(1) ] to deeply equal"),
        "{text}"
    );
    let (minus, _) = find(sc, "- Expected").unwrap_or_else(|| panic!("{text}"));
    let (plus, _) = find(sc, "+ Received").unwrap_or_else(|| panic!("{text}"));
    assert_eq!(plus, minus + 1, "{text}");
    let (want, col) = find(sc, "-     \"qty\": 2").unwrap_or_else(|| panic!("{text}"));
    let (got, gcol) = find(sc, "+     \"qty\": 1").unwrap_or_else(|| panic!("{text}"));
    assert_ne!(
        want, got,
        "expected and received on rows of their own:\n{text}"
    );
    let cell = |r: u16, c: u16| sc.cell(r, c).expect("cell").fgcolor();
    assert_eq!(cell(want, col), fg("diff_expected"), "{text}");
    assert_eq!(cell(want, col + 8), fg("diff_expected"), "{text}");
    assert_eq!(cell(got, gcol), fg("diff_received"), "{text}");
    assert_ne!(cell(want, col), cell(got, gcol));
    // the frame of the test (the one vitest's location names) first, its line marked
    let (at, _) = find(sc, &format!("at {VITEST_TEST}:8:9")).unwrap_or_else(|| panic!("{text}"));
    assert!(
        row_text(sc, at).contains("▸ at"),
        "the cursor is on it:\n{text}"
    );
    let (marked, mcol) = find(sc, "▶ 8 │").unwrap_or_else(|| panic!("{text}"));
    assert!(
        row_text(sc, marked).contains("await oracle(annotate, 'a1', 'same-sku-merged'"),
        "{text}"
    );
    assert!(marked > at, "{text}");
    assert_eq!(cell(marked, mcol), fg("source_mark"), "{text}");
    assert!(find(sc, "7 │").is_some(), "the lines around it:\n{text}");
    // E: the editor at the frame's file and line, in the workspace root
    let root_real = root.canonicalize().expect("root");
    s.send("E");
    assert_eq!(
        editor.take(),
        format!("+8\n{VITEST_TEST}\n{}\n", root_real.display())
    );
    s.wait_text(&format!("edited {VITEST_TEST}"));
    // the next frame: the harness's oracle, at its line
    s.send("j");
    s.wait_for("the cursor on the harness frame", |sc| {
        find(sc, "▸ at oracle tests/harness/oracle.ts:19:20").is_some()
    });
    // vitest's own frames (in node_modules, outside the workspace) fold into one line
    let text = s.screen().screen().contents();
    assert!(
        text.contains("frames in node_modules / node internals"),
        "{text}"
    );
    assert!(!text.contains("chunk-artifact.js"), "{text}");
    s.send("E");
    assert_eq!(
        editor.take(),
        format!("+19\ntests/harness/oracle.ts\n{}\n", root_real.display())
    );
    s.wait_text("edited tests/harness/oracle.ts");
    // still the failure view; Esc back to the panes
    s.wait_text("Why it failed");
    s.send("\x1b");
    s.wait_for("the panes", |sc| !sc.contents().contains("Why it failed"));
    s.quit();
}

#[test]
fn without_colour_the_failure_view_diff_is_plain_and_still_marked() {
    // the shared project's failed vitest run (read here, never written)
    let Some(f) = failed() else {
        return;
    };
    let root = f.root.as_path();
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start_with(root, cfg.path(), &[("NO_COLOR", "1")]);
    s.wait_text("Tests ·");
    open_why(&mut s, "cart-line-merge");
    let screen = s.screen();
    let sc = screen.screen();
    let text = sc.contents();
    for t in [
        "-     \"qty\": 2",
        "+     \"qty\": 1",
        "▶ 8 │",
        "✗ assertion",
    ] {
        let (r, c) = find(sc, t).unwrap_or_else(|| panic!("{t} in\n{text}"));
        for i in 0..u16::try_from(t.chars().count()).expect("short") {
            let cell = sc.cell(r, c + i).expect("cell");
            assert_eq!(cell.fgcolor(), vt100::Color::Default, "{t} in\n{text}");
            assert_eq!(cell.bgcolor(), vt100::Color::Default, "{t} in\n{text}");
        }
    }
    assert!(text.contains("▸ at"), "the cursor without colour:\n{text}");
    s.send("\x1b");
    s.quit();
}

#[test]
fn the_playwright_failure_reads_on_lines_of_its_own_in_the_view_and_the_data_overlay() {
    let Some((f, _)) = failed_e2e() else {
        return;
    };
    let root = f.root.as_path();
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start(root, cfg.path());
    s.wait_text("Tests ·");
    open_why(&mut s, "storefront-checkout");
    let screen = s.screen();
    let sc = screen.screen();
    let text = sc.contents();
    // Playwright's message: the custom expect message, the matcher, the locator and
    // the call log, each on a row of its own, its colours drawn
    let row = |t: &str| find(sc, t).unwrap_or_else(|| panic!("{t} in\n{text}")).0;
    let head = row("Error: a1 order-confirmed");
    let matcher = row("expect(locator).toHaveText(expected) failed");
    let locator = row("Locator: getByRole('status')");
    let (expected, ecol) =
        find(sc, "Expected: \"Order confirmed\"").unwrap_or_else(|| panic!("{text}"));
    assert!(
        head < matcher && matcher < locator && locator < expected,
        "{text}"
    );
    assert_eq!(
        sc.cell(expected, ecol).expect("cell").fgcolor(),
        fg("diff_expected"),
        "the Expected: line as the diff's expected side:\n{text}"
    );
    let (_, mcol) = find(sc, "expect(locator)").expect("matcher");
    assert_eq!(
        sc.cell(matcher, mcol + 7).expect("cell").fgcolor(),
        fg("failed"),
        "Playwright's red `locator`, the theme's:\n{text}"
    );
    assert!(
        row("Call log:") < row("- waiting for getByRole('status')"),
        "{text}"
    );
    assert!(text.contains("▶ 11 │"), "{text}");
    assert!(!text.contains("\\n"), "{text}");
    // the screenshot bound to the failure, beside the text in half blocks
    s.wait_for("the screenshot beside", |sc| {
        let c = sc.contents();
        c.contains("artifacts/tests/t1/failure.png · ") && c.contains('▀')
    });
    // the next frame brings the screenshot bound to the failure into view; i shows
    // it full screen, Esc goes back to the failure view
    s.send("j");
    s.wait_text("▣ screenshot");
    s.send("i");
    s.wait_text("Screenshot");
    s.wait_for("the screenshot full screen", |sc| {
        !sc.contents().contains("Why it failed")
    });
    s.send("\x1b");
    s.wait_text("Why it failed");
    s.send("\x1b");
    s.wait_for("the panes", |sc| !sc.contents().contains("Why it failed"));
    // the data overlay of the failed step: its message first, then the data with
    // the error's message and stack as blocks of lines, not `\n` in a JSON string
    s.wait_text("◆ a1 order-confirmed · did not hold");
    s.send("N");
    s.send("\r");
    s.wait_text("\"error\": {");
    let screen = s.screen();
    let sc = screen.screen();
    let text = sc.contents();
    assert!(
        text.contains("assertion checks out a cart — failed"),
        "the event's message:\n{text}"
    );
    let key = find(sc, "\"message\":")
        .unwrap_or_else(|| panic!("{text}"))
        .0;
    let call_log = find(sc, "Call log:").unwrap_or_else(|| panic!("{text}")).0;
    let first = find(sc, "- a1 order-confirmed getByRole('status') with timeout")
        .unwrap_or_else(|| panic!("{text}"))
        .0;
    let second = find(sc, "- waiting for getByRole('status')")
        .unwrap_or_else(|| panic!("{text}"))
        .0;
    assert!(
        key < call_log && call_log < first && first < second,
        "{text}"
    );
    let line = row_text(sc, key);
    let after = line.split_once("\"message\":").map_or("", |(_, a)| a);
    assert!(
        after
            .split('│')
            .next()
            .unwrap_or_default()
            .trim()
            .is_empty(),
        "the key on a line of its own:\n{text}"
    );
    assert!(!text.contains("\\n"), "{text}");
    s.send("\x1b");
    s.quit();
}
