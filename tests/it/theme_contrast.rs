//! Contrast as a tested property: every shipped theme, drawn on the demo's screens
//! (selected rows of every list, badges, marks, the bars, prompts), keeps WCAG AA
//! 4.5:1 between each character and the background it is drawn on.

use crossterm::event::KeyCode;
use ratatui::style::Style;
use std::fmt::Write as _;
use std::path::Path;
use testdeck_tui::app::App;
use testdeck_tui::theme::{Theme, contrast};

use crate::common;
use common::app::{Deck, Runs, options, render};

const AA: f64 = 4.5;

/// The demo as the contrast test reads it: 140×40, loaded with its records, the run
/// folders read.
fn loaded(root: &Path) -> Deck {
    Deck::new(options(root, "demo"), Runs::FOLDERS)
        .sized(140, 40)
        .loaded()
        .with_records()
}

/// Box drawing, block elements and braille are graphics (borders, sparklines,
/// the spinner), not text: WCAG asks 3:1 of them, and they carry no letters.
fn is_graphic(sym: &str) -> bool {
    sym.chars().all(|c| {
        c.is_whitespace()
            || ('\u{2500}'..='\u{259f}').contains(&c)
            || ('\u{2800}'..='\u{28ff}').contains(&c)
    })
}

/// Every text cell below AA on screen `name`, one line per (colours, sample).
fn low_contrast(theme: &Theme, name: &str, app: &App, out: &mut Vec<String>) {
    let t = render(app, theme);
    let buf = t.backend().buffer().clone();
    let mut seen = std::collections::BTreeMap::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            let c = &buf[(x, y)];
            if is_graphic(c.symbol()) {
                continue;
            }
            let st = Style::default().fg(c.fg).bg(c.bg).add_modifier(c.modifier);
            let (fg, bg) = theme.seen(st);
            let r = contrast(fg, bg);
            if r < AA {
                let e = seen
                    .entry((fg, bg))
                    .or_insert_with(|| (r, y, String::new()));
                if e.1 == y && e.2.chars().count() < 24 {
                    e.2.push_str(c.symbol());
                }
            }
        }
    }
    for ((fg, bg), (r, y, sample)) in seen {
        let mut s = String::new();
        let _ = write!(
            s,
            "{} / {name}: {r:.2}:1 text #{:02x}{:02x}{:02x} on #{:02x}{:02x}{:02x} (row {y}: {sample:?})",
            theme.name, fg.0, fg.1, fg.2, bg.0, bg.1, bg.2
        );
        out.push(s);
    }
}

/// The screens a person meets, each with a selected row: the tree on a folder and
/// on a failed case, the timeline (its type column), the catalog, the runs, the
/// finder, help, and a prompt.
fn screens(root: &Path, theme: &Theme, out: &mut Vec<String>) {
    let mut app = loaded(root);
    low_contrast(theme, "tests tab, a folder selected", &app, out);
    let failed = app
        .tests()
        .cases()
        .iter()
        .find(|c| c.latest == Some(testdeck_core::workspace::logs::RunStatus::Failed))
        .map(|c| c.key.clone())
        .expect("a failed case in the demo");
    assert!(app.jump_to(&failed));
    // the details' summary of the failed run, its digest read as the runtime does
    app.cmd(testdeck_tui::action::Command::Noop);
    app.with_digest();
    low_contrast(theme, "tests tab, a failed case selected", &app, out);
    // the failure view: the message, the diff, the frames and their source
    app.keys("W");
    let shown = common::app::text(&render(&app, theme));
    assert!(shown.contains("Diff:"), "the failure view, read:\n{shown}");
    low_contrast(theme, "the failure view", &app, out);
    app.keys("j");
    low_contrast(theme, "the failure view, the next frame", &app, out);
    app.key(KeyCode::Esc);
    // a temp, an orphan and a live case carry their badges when selected
    for pick in ["TEMP", "orphan", "LIVE"] {
        let key = app
            .tests()
            .cases()
            .iter()
            .find(|c| match pick {
                "TEMP" => c.temp,
                "orphan" => c.orphan(),
                _ => c.live,
            })
            .map(|c| c.key.clone());
        if let Some(k) = key {
            assert!(app.jump_to(&k));
            low_contrast(
                theme,
                &format!("tests tab, a {pick} case selected"),
                &app,
                out,
            );
        }
    }
    assert!(app.jump_to(&failed));
    app.cmd(testdeck_tui::action::Command::Noop);
    app.key(KeyCode::Tab);
    app.key(KeyCode::Tab);
    for _ in 0..4 {
        app.key(KeyCode::Char('k'));
        low_contrast(theme, "timeline row selected", &app, out);
    }
    app.keys("2");
    low_contrast(theme, "catalog tab", &app, out);
    app.keys("jjj");
    low_contrast(theme, "catalog tab, a case selected", &app, out);
    app.keys("3");
    low_contrast(theme, "runs tab", &app, out);
    app.keys("j");
    low_contrast(theme, "runs tab, a run selected", &app, out);
    app.keys("1/term");
    low_contrast(theme, "finder", &app, out);
    app.key(KeyCode::Esc);
    app.keys("?");
    low_contrast(theme, "help", &app, out);
    app.key(KeyCode::Esc);
    app.keys(" jm");
    low_contrast(theme, "a mark and the max risk", &app, out);
    app.launch_mut().set_running(1);
    app.keys("q");
    low_contrast(theme, "the quit prompt", &app, out);
}

#[test]
fn every_theme_meets_wcag_aa_on_every_screen() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("themes");
    let d = common::fs::demo_copy();
    let mut failures = Vec::new();
    let mut n = 0;
    for e in std::fs::read_dir(&dir).expect("themes/") {
        let p = e.expect("entry").path();
        let text = std::fs::read_to_string(&p).expect("read");
        let table: toml::Table = toml::from_str(&text).expect("toml");
        let name = p
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let theme = Theme::from_table(&name, &table, false).expect("theme");
        screens(d.path(), &theme, &mut failures);
        n += 1;
    }
    assert!(n >= 3, "the three shipped themes at least");
    assert!(failures.is_empty(), "below 4.5:1:\n{}", failures.join("\n"));
}

/// The measure itself fails the old dark selection (accent text on the accent
/// background, 1.00:1), so the test above can fail.
#[test]
fn the_old_selection_style_is_caught() {
    let d = common::fs::demo_copy();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("themes");
    let text = std::fs::read_to_string(dir.join("dark.toml")).expect("dark");
    let old = text.replace(
        "selection        = { fg = \"text\", bg = \"select\", bold = true }",
        "selection        = { fg = \"base\", bg = \"accent\" }",
    );
    assert_ne!(old, text, "the dark theme's selection line moved");
    let table: toml::Table = toml::from_str(&old).expect("toml");
    let theme = Theme::from_table("dark", &table, false).expect("theme");
    let app = loaded(d.path());
    let mut out = Vec::new();
    low_contrast(&theme, "tests tab", &app, &mut out);
    assert!(out.iter().any(|l| l.contains("1.00:1")), "{out:?}");
}
