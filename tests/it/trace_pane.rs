//! The trace pane (issue 25): Enter on a `trace.zip` in the Artifacts pane reads it
//! off the UI thread and shows its action tree, the failed action with its error
//! and place, console, network and the screencast frames, in a real pseudo-terminal
//! on the trace the fixture's Playwright run writes; a broken trace is its located
//! problem in the pane, never a panic.

use crate::common;
use common::Session;
use common::app::{Deck, Runs, options, text};
use common::find_text as find;
use common::realworld::failed_e2e;
use std::path::Path;
use std::time::{Duration, Instant};
use testdeck_tui::app::{Pane, Screen};

/// The cells of `sc` in columns `from..` that hold a half block.
fn half_blocks(sc: &vt100::Screen, from: u16) -> usize {
    let (rows, cols) = sc.size();
    (0..rows)
        .flat_map(|r| (from..cols).map(move |c| (r, c)))
        .filter(|&(r, c)| {
            sc.cell(r, c)
                .is_some_and(|x| matches!(x.contents(), "▀" | "▄"))
        })
        .count()
}

/// Open the cockpit on `root`, go to the failed e2e case's run, its Artifacts
/// pane, and Enter on `trace.zip`; the trace pane is on screen with its actions.
fn open_trace(s: &mut Session) {
    s.wait_text("Tests ·");
    s.find("storefront-checkout");
    s.wait_text("artifacts/tests/t1/trace.zip");
    // the Artifacts pane, whose cursor stands on the failed test's own trace
    s.send("\t");
    s.send("\t");
    s.send("\t");
    s.send("\r");
    s.wait_text("Trace · artifacts/tests/t1/trace.zip");
    s.wait_text("s2 check out");
}

#[test]
fn enter_on_a_real_trace_shows_actions_the_failure_console_network_and_frames() {
    // the shared project's failed Playwright run (read here, never written)
    let Some((f, _)) = failed_e2e() else {
        return;
    };
    let root = f.root.as_path();
    let cfg = crate::common::fs::scratch_dir();
    let editor = common::editor::Recording::new();
    let mut s = Session::start_with(root, cfg.path(), &editor.env());
    open_trace(&mut s);
    // the action tree, the failed action (selected when the pane opens) with its
    // error on several lines and its place; then its frames as half blocks
    s.wait_for("a screencast frame in half blocks", |sc| {
        half_blocks(sc, common::COLS / 2) > 40
    });
    let screen = s.screen();
    let sc = screen.screen();
    let all = sc.contents();
    for want in [
        "version 10",
        "1 Actions",
        "✓ s1 fill the cart",
        "Navigate",
        "✗ s2 check out",
        "✗ a1 order-confirmed",
        "toHaveText",
        "Expected: \"Order confirmed\"",
        "tests/shop/e2e/storefront/scenario/storefront-checkout.spec.ts:11",
        "start · frame at",
        "end · frame at",
    ] {
        assert!(all.contains(want), "{want:?} missing:\n{all}");
    }
    assert!(!all.contains('\u{1b}'), "no escape reaches a cell:\n{all}");
    // the failed action's row is drawn in the theme's failed colour
    let theme = testdeck_tui::theme::Theme::builtin("dark", false).expect("theme");
    let failed = match testdeck_tui::theme::rgb(theme.get("failed").fg.expect("fg")) {
        Some((red, green, blue)) => vt100::Color::Rgb(red, green, blue),
        None => panic!("failed has no colour"),
    };
    let (row, col) = find(sc, "✗ a1 order-confirmed").expect("the failed row");
    assert_eq!(sc.cell(row, col).expect("cell").fgcolor(), failed);
    // Enter: the failed action whole in the data overlay, its call log at the end
    s.send("\r");
    s.wait_text("a1 order-confirmed getByRole('status') · Esc closes");
    s.send("G");
    s.wait_for("the call log", |sc| {
        let t = sc.contents();
        t.contains("call log") || t.contains("waiting for getByRole('status')")
    });
    s.send("\x1b");
    s.wait_for("the overlay closed", |sc| {
        !sc.contents().contains("· Esc closes")
    });
    // E: the recording editor gets the spec file at the failing line, in the root
    s.send("E");
    let args = editor.take();
    let lines: Vec<&str> = args.lines().collect();
    assert_eq!(lines.first().copied(), Some("+11"), "{args}");
    assert_eq!(
        lines.get(1).copied(),
        Some("tests/shop/e2e/storefront/scenario/storefront-checkout.spec.ts"),
        "{args}"
    );
    assert_eq!(
        lines.get(2).copied(),
        root.to_str(),
        "run in the root: {args}"
    );
    // console and page errors
    s.send("2");
    s.wait_text("checkout clicked with 450 cents");
    // network: method, status, duration, URL
    s.send("3");
    s.wait_for("the POST 404 row", |sc| {
        sc.contents()
            .lines()
            .any(|l| l.contains("POST") && l.contains(" 404 ") && l.contains("/api/checkout"))
    });
    s.wait_text("GET");
    // Esc closes the pane, the cockpit is back
    s.send("\x1b");
    s.wait_for("the panes again", |sc| !sc.contents().contains("Trace · "));
    s.quit();
}

/// With a picture protocol (kitty, forced) the frames go out as the protocol's
/// bytes, not cells.
#[test]
fn a_real_traces_frames_are_drawn_with_the_terminals_picture_protocol() {
    let Some((f, _)) = failed_e2e() else {
        return;
    };
    let root = f.root.as_path();
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start_with(root, cfg.path(), &[("TESTDECK_IMAGES", "kitty")]);
    let before = s.bytes.lock().expect("lock").len();
    assert!(
        !s.bytes
            .lock()
            .expect("lock")
            .windows(3)
            .any(|w| w == b"\x1b_G"),
        "no picture before the trace (a forced protocol sends no query)"
    );
    open_trace(&mut s);
    let start = Instant::now();
    loop {
        let raw = s.bytes.lock().expect("lock").clone();
        // the pictures' transmissions (one per frame shown), then their cells
        // (kitty's Unicode placeholders, U+10EEEE), beside the action list
        let kitty = raw[before..].windows(3).filter(|w| *w == b"\x1b_G").count();
        let screen = s.screen();
        let placeholders = (0..common::ROWS)
            .flat_map(|r| (common::COLS / 2..common::COLS).map(move |c| (r, c)))
            .filter(|&(r, c)| {
                screen
                    .screen()
                    .cell(r, c)
                    .is_some_and(|x| x.contents().starts_with('\u{10EEEE}'))
            })
            .count();
        if kitty >= 2 && placeholders > 40 {
            assert_eq!(half_blocks(screen.screen(), 0), 0, "no half blocks");
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(40),
            "no kitty picture after the trace opened ({kitty} APCs, {placeholders} cells):\n{}",
            s.screen().screen().contents()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    s.send("\x1b");
    s.quit();
}

/// The demo's e2e case whose runs keep a `trace.zip`, its trace replaced by `bytes`,
/// opened with Enter in the Artifacts pane: the frame's text.
fn demo_trace_pane(bytes: &[u8]) -> String {
    let d = common::fs::demo_copy();
    let case = d.path().join("tests/logs/ai/e2e/workbench/workbench-open");
    for run in std::fs::read_dir(&case).expect("runs").flatten() {
        let zip = run.path().join("artifacts/trace.zip");
        if zip.is_file() {
            std::fs::write(&zip, bytes).expect("write");
        }
    }
    let mut deck = Deck::new(options(d.path(), "demo"), Runs::JOBS)
        .sized(120, 32)
        .loaded();
    deck.jump("ai/e2e/workbench/workbench-open");
    deck.focus_on(Pane::Artifacts);
    deck.key(crossterm::event::KeyCode::Enter);
    assert!(
        matches!(deck.layers().screen(), Some(Screen::Trace(_))),
        "Enter on a trace opens the trace pane"
    );
    text(&common::app::draw(&deck))
}

#[test]
fn a_broken_trace_is_a_located_problem_in_the_pane_not_a_panic() {
    // not a zip at all
    let t = demo_trace_pane(b"<html>a report, not a trace</html>");
    assert!(
        t.contains("artifacts/trace.zip error trace-unreadable not a zip archive"),
        "{t}"
    );
    // a real zip cut short
    let real = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("assets/demo/tests/logs/ai/e2e/workbench/workbench-open/20261125-080945-907/artifacts/trace.zip"),
    )
    .expect("the demo's trace");
    let t = demo_trace_pane(&real[..real.len() / 2]);
    assert!(
        t.contains("artifacts/trace.zip error trace-unreadable"),
        "{t}"
    );
    // the real one reads: its action, and the version it is (an old one, 7)
    let t = demo_trace_pane(&real);
    assert!(t.contains("✓ workbench/open"), "{t}");
    assert!(t.contains("version 7"), "{t}");
    assert!(t.contains("no screencast frame"), "{t}");
}

/// Enter only asks for the read (an effect the runtime runs on a thread): the
/// pane says it is reading until the result comes back as an action.
#[test]
fn enter_asks_for_the_read_and_the_pane_says_reading_until_it_comes() {
    use testdeck_tui::action::Action;
    use testdeck_tui::app::Effect;
    use testdeck_tui::feature_work::FeatureWork;
    let d = common::fs::demo_copy();
    let mut deck = Deck::new(options(d.path(), "demo"), Runs::FOLDERS)
        .sized(120, 32)
        .loaded();
    deck.jump("ai/e2e/workbench/workbench-open");
    deck.focus_on(Pane::Artifacts);
    let left = deck.key(crossterm::event::KeyCode::Enter);
    let job = left
        .into_iter()
        .find_map(|e| match e {
            Effect::Work(w @ FeatureWork::Trace { .. }) => Some(w),
            _ => None,
        })
        .expect("the read is an effect, not done in update");
    let t = text(&common::app::draw(&deck));
    assert!(t.contains("Trace · artifacts/trace.zip"), "{t}");
    assert!(t.contains("reading trace…"), "{t}");
    let done = testdeck_tui::runtime::run_now(job, d.path()).expect("a result");
    deck.app.update(Action::WorkDone(Box::new(done)));
    let t = text(&common::app::draw(&deck));
    assert!(!t.contains("reading trace…"), "{t}");
    assert!(t.contains("✓ workbench/open"), "{t}");
    // `o` in the pane still hands the trace to its external opener (its copy
    // and the opener's decision are a job of the runtime)
    let open = deck
        .key(crossterm::event::KeyCode::Char('o'))
        .into_iter()
        .find_map(|e| match e {
            Effect::Work(w @ FeatureWork::Open(_)) => Some(w),
            _ => None,
        })
        .expect("o asks for the opener's job");
    let done = testdeck_tui::runtime::run_now(open, d.path()).expect("a result");
    let spawned = deck
        .app
        .update(Action::WorkDone(Box::new(done)))
        .into_iter()
        .find_map(|e| match e {
            Effect::Spawn(argv) => Some(argv),
            _ => None,
        })
        .expect("o spawns the trace's opener");
    assert!(spawned.iter().any(|a| a == "show-trace"), "{spawned:?}");
    let copy = std::path::PathBuf::from(spawned.last().expect("the file"));
    assert!(copy.ends_with("trace.zip"), "{spawned:?}");
    if let Some(dir) = copy.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
    assert!(matches!(deck.layers().screen(), Some(Screen::Trace(_))));
    // Esc closes it; the Artifacts pane has the keys again
    deck.key(crossterm::event::KeyCode::Esc);
    assert!(deck.layers().screen().is_none());
    assert_eq!(deck.focus(), Pane::Artifacts);
}

/// A trace of a version this reader does not know: what is readable is shown,
/// and the pane says which version it found.
#[test]
fn a_trace_of_an_unknown_version_says_so_and_shows_what_it_reads() {
    use std::io::Write as _;
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    z.start_file("test.trace", zip::write::SimpleFileOptions::default())
        .expect("entry");
    z.write_all(
        concat!(
            "{\"version\":11,\"type\":\"context-options\",\"origin\":\"testRunner\",\"monotonicTime\":0}\n",
            "{\"type\":\"before\",\"callId\":\"s@1\",\"startTime\":5,\"class\":\"Test\",\"method\":\"test.step\",\"title\":\"a future step\",\"params\":{}}\n",
            "{\"type\":\"after\",\"callId\":\"s@1\",\"endTime\":1505}\n",
        )
        .as_bytes(),
    )
    .expect("write");
    let bytes = z.finish().expect("zip").into_inner();
    let t = demo_trace_pane(&bytes);
    assert!(
        t.contains("unknown trace version 11: showing what is readable"),
        "{t}"
    );
    assert!(t.contains("✓ a future step"), "{t}");
    assert!(t.contains("1.5 s"), "{t}");
}
