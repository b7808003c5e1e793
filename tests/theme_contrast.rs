//! Contrast as a tested property: every shipped theme, drawn on the demo's screens
//! (selected rows of every list, badges, marks, the bars, prompts), keeps WCAG AA
//! 4.5:1 between each character and the background it is drawn on.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Style;
use std::fmt::Write as _;
use std::path::Path;
use testdeck::tui::action::Action;
use testdeck::tui::app::{App, Effect, Options};
use testdeck::tui::keymap::Keymap;
use testdeck::tui::theme::{Theme, contrast};
use testdeck::tui::view;
use testdeck::workspace::Workspace;

mod common;

const AA: f64 = 4.5;

fn loaded(root: &Path) -> App {
    let km = Keymap::builtin("default").expect("default keymap");
    let mut app = App::new(
        Options {
            label: "demo".into(),
            root: root.to_path_buf(),
            host: "127.0.0.1".into(),
            use_env: false,
        },
        km,
    );
    app.update(Action::Resize(140, 40));
    let fx = app.update(Action::Loaded(Box::new(
        Workspace::load(root).expect("load"),
    )));
    settle(&mut app, root, fx);
    let fx = app.update(Action::Records(testdeck::tui::runtime::read_records(root)));
    settle(&mut app, root, fx);
    app
}

fn settle(app: &mut App, root: &Path, fx: Vec<Effect>) {
    for e in fx {
        if let Effect::LoadRun(p) = e {
            let data = testdeck::tail::run::load_run(root, &p);
            let more = app.update(Action::RunLoaded(Box::new(data)));
            settle(app, root, more);
        }
    }
}

fn press(app: &mut App, root: &Path, code: KeyCode) {
    let fx = app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
    settle(app, root, fx);
}

fn keys(app: &mut App, root: &Path, ks: &str) {
    for c in ks.chars() {
        press(app, root, KeyCode::Char(c));
    }
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
    // drawn in UTC whatever zone the machine is in (the snapshots show times)
    testdeck::clock::set_zone(testdeck::clock::Zone::Utc);
    let mut t = Terminal::new(TestBackend::new(app.size.0, app.size.1)).expect("terminal");
    t.draw(|f| view::draw(app, theme, f)).expect("draw");
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
        .tests
        .cases
        .iter()
        .find(|c| c.latest == Some(testdeck::workspace::logs::RunStatus::Failed))
        .map(|c| c.key.clone())
        .expect("a failed case in the demo");
    assert!(app.jump_to(&failed));
    let fx = app.update(Action::Cmd(testdeck::tui::action::Command::Noop));
    settle(&mut app, root, fx);
    low_contrast(theme, "tests tab, a failed case selected", &app, out);
    // a temp, an orphan and a live case carry their badges when selected
    for pick in ["TEMP", "orphan", "LIVE"] {
        let key = app
            .tests
            .cases
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
    let fx = app.update(Action::Cmd(testdeck::tui::action::Command::Noop));
    settle(&mut app, root, fx);
    press(&mut app, root, KeyCode::Tab);
    press(&mut app, root, KeyCode::Tab);
    for _ in 0..4 {
        press(&mut app, root, KeyCode::Char('k'));
        low_contrast(theme, "timeline row selected", &app, out);
    }
    keys(&mut app, root, "2");
    low_contrast(theme, "catalog tab", &app, out);
    keys(&mut app, root, "jjj");
    low_contrast(theme, "catalog tab, a case selected", &app, out);
    keys(&mut app, root, "3");
    low_contrast(theme, "runs tab", &app, out);
    keys(&mut app, root, "j");
    low_contrast(theme, "runs tab, a run selected", &app, out);
    keys(&mut app, root, "1/term");
    low_contrast(theme, "finder", &app, out);
    press(&mut app, root, KeyCode::Esc);
    keys(&mut app, root, "?");
    low_contrast(theme, "help", &app, out);
    press(&mut app, root, KeyCode::Esc);
    keys(&mut app, root, " jm");
    low_contrast(theme, "a mark and the max risk", &app, out);
    app.running = 1;
    keys(&mut app, root, "q");
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
