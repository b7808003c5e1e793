//! Render snapshots of every pane and overlay (ratatui TestBackend + insta), on the
//! TUI's fixture workspace, plus the checks on every shipped keymap and theme.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::Path;
use testdeck_tui::action::{Action, Command};
use testdeck_tui::app::{Effect, Options};
use testdeck_tui::keymap::Keymap;
use testdeck_tui::theme::Theme;
use testdeck_tui::view;

use crate::common;
use common::app::{Deck, Runs, dark, options, render, text};
use common::fixtures as testkit;
use common::fs::demo_copy as demo;
use testdeck_core::workspace::Workspace;

/// The App on the fixture at `w`×`h` with `host`, nothing loaded; of the jobs only the
/// compare view's is run (the contract badges are the subject of tui_extras).
fn new_app(root: &Path, w: u16, h: u16, host: &str) -> Deck {
    let opts = Options {
        host: host.into(),
        ..options(root, "fixture")
    };
    Deck::new(opts, Runs::COMPARE).sized(w, h)
}

fn loaded(root: &Path, w: u16, h: u16) -> Deck {
    new_app(root, w, h, "127.0.0.1").loaded().with_records()
}

fn fixture(hostile: bool) -> tempfile::TempDir {
    let d = crate::common::fs::scratch_dir();
    testkit::write_fixture(d.path(), hostile);
    d
}

#[test]
fn loading() {
    let d = fixture(false);
    let app = new_app(d.path(), 100, 24, "127.0.0.1");
    insta::assert_snapshot!(render(&app, &dark()).backend());
}

#[test]
fn empty_workspace() {
    let d = crate::common::fs::scratch_dir();
    std::fs::create_dir_all(d.path().join("tests")).expect("mkdir");
    let mut app = loaded(d.path(), 100, 24);
    insta::assert_snapshot!(render(&app, &dark()).backend());
    app.keys("3");
    insta::assert_snapshot!("empty_runs", render(&app, &dark()).backend());
}

#[test]
fn load_error() {
    let d = crate::common::fs::scratch_dir();
    let mut app = new_app(d.path(), 80, 16, "127.0.0.1");
    app.update(Action::LoadFailed("ws: not a folder".into()));
    insta::assert_snapshot!(render(&app, &dark()).backend());
}

#[test]
fn tests_tab() {
    let d = fixture(false);
    let app = loaded(d.path(), 120, 32);
    insta::assert_snapshot!(render(&app, &dark()).backend());
}

#[test]
fn case_with_artifacts_following() {
    let d = fixture(false);
    let mut app = loaded(d.path(), 120, 32);
    app.jump("ai/e2e/chat/scenario/chat-send-message");
    let t = render(&app, &dark());
    let s = text(&t);
    assert!(
        s.contains("[follow]") && s.contains("artifacts/failure.png"),
        "{s}"
    );
    // the step the screenshot refers to is marked with its id
    assert!(s.contains("◆ s1 send message"), "{s}");
    insta::assert_snapshot!(t.backend());
}

#[test]
fn live_pane_filters_and_data() {
    let d = fixture(false);
    let mut app = loaded(d.path(), 120, 32);
    app.jump("ai/e2e/chat/scenario/chat-send-message");
    app.key(KeyCode::Tab);
    app.key(KeyCode::Tab);
    app.keys("kk");
    let s = text(&render(&app, &dark()));
    assert!(s.contains("[paused]"), "scrolling up pauses follow: {s}");
    app.keys("e");
    let t = render(&app, &dark());
    let s = text(&t);
    assert!(
        s.contains("[failures]") && !s.contains("run started"),
        "{s}"
    );
    insta::assert_snapshot!("failures_only", t.backend());
    app.key(KeyCode::Enter);
    let t = render(&app, &dark());
    assert!(text(&t).contains("\"detail\""), "{}", text(&t));
    insta::assert_snapshot!("event_data", t.backend());
    app.key(KeyCode::Esc);
    app.keys("v");
    insta::assert_snapshot!("runtime_events", render(&app, &dark()).backend());
}

#[test]
fn runs_tab() {
    let d = fixture(false);
    let mut app = loaded(d.path(), 120, 32);
    app.keys("3");
    insta::assert_snapshot!(render(&app, &dark()).backend());
    app.keys("s'terminal");
    app.key(KeyCode::Enter);
    let t = render(&app, &dark());
    let s = text(&t);
    assert!(s.contains("Runs · 4/8"), "{s}");
    insta::assert_snapshot!("runs_filtered", t.backend());
}

#[test]
fn catalog_tab() {
    let d = fixture(false);
    let mut app = loaded(d.path(), 100, 24);
    app.keys("2");
    insta::assert_snapshot!(render(&app, &dark()).backend());
}

#[test]
fn finder_with_results_and_jump() {
    let d = fixture(false);
    let mut app = loaded(d.path(), 120, 32);
    app.keys("/term");
    app.key(KeyCode::Tab);
    let t = render(&app, &dark());
    insta::assert_snapshot!(t.backend());
    // matched characters are highlighted
    let hl = dark().get("match").fg.expect("fg");
    let buf = t.backend().buffer();
    assert!(
        buf.content()
            .iter()
            .any(|c| c.fg == hl && c.symbol() == "t")
    );
    assert_eq!(app.marks().len(), 1);
    app.key(KeyCode::Enter);
    assert!(app.layers().overlay().is_none());
    let sel = app.shared().selected_case().map(|c| c.case_id.clone());
    assert!(sel.is_some_and(|s| s.starts_with("terminal-")));
}

#[test]
fn help_overlay() {
    let d = fixture(false);
    let mut app = loaded(d.path(), 100, 30);
    app.keys("?");
    insta::assert_snapshot!(render(&app, &dark()).backend());
}

#[test]
fn quit_prompt_when_runs_are_live() {
    let d = fixture(false);
    let mut app = loaded(d.path(), 100, 24);
    app.launch_mut().set_running(2);
    app.keys("q");
    assert!(!app.quit());
    insta::assert_snapshot!(render(&app, &dark()).backend());
    // Enter is the safe answer: no
    app.key(KeyCode::Enter);
    assert!(!app.quit() && app.layers().overlay().is_none());
    app.keys("qy");
    assert!(app.quit());
}

#[test]
fn tiny_terminal() {
    let d = fixture(false);
    let mut app = loaded(d.path(), 60, 15);
    insta::assert_snapshot!(render(&app, &dark()).backend());
    app.jump("ai/e2e/chat/scenario/chat-send-message");
    app.key(KeyCode::Tab);
    app.key(KeyCode::Tab);
    insta::assert_snapshot!("tiny_live", render(&app, &dark()).backend());
    // every size down to 1x1 draws without panicking
    for (w, h) in [(1, 1), (10, 3), (30, 8), (59, 14)] {
        app.update(Action::Resize(w, h));
        let _ = render(&app, &dark());
    }
}

#[test]
fn light_theme() {
    let d = fixture(false);
    let app = loaded(d.path(), 100, 24);
    let light = Theme::builtin("light", false).expect("light");
    let t = render(&app, &light);
    insta::assert_snapshot!(t.backend());
    // the selected row (under the tree's header row) uses the light selection colours
    let sel = light.get("selection").bg.expect("bg");
    assert_eq!(t.backend().buffer()[(3, 3)].bg, sel);
}

#[test]
fn non_loopback_host_banner() {
    let d = fixture(false);
    let app = new_app(d.path(), 100, 20, "10.1.2.3");
    let s = text(&render(&app, &dark()));
    assert!(s.contains("HOST is 10.1.2.3 — not loopback"), "{s}");
}

/// The remote-HOST question comes before any case and always shows its choices,
/// however its lines wrap (the box counts wrapped rows).
#[test]
fn the_remote_host_prompt_shows_its_choices_at_every_size() {
    for (w, h) in [(140, 40), (100, 30), (60, 20)] {
        let d = demo();
        // HOST as the person's local.yaml sets it
        let local = d.path().join(".pouch/tester/local.yaml");
        let yaml = std::fs::read_to_string(&local).expect("local.yaml");
        std::fs::write(&local, yaml.replace("HOST: 127.0.0.1", "HOST: some.host"))
            .expect("write local.yaml");
        let mut app = new_app(d.path(), w, h, "some.host");
        let ws = Workspace::load(d.path()).expect("load");
        let fx = app.update(Action::Loaded(Box::new(ws)));
        app.settle(fx);
        app.keys("2jjj");
        let fx = app.on_key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::NONE));
        assert!(
            !fx.iter().any(|e| matches!(e, Effect::Launch { .. })),
            "nothing runs before the remote host is allowed"
        );
        let s = text(&render(&app, &dark()));
        assert!(s.contains("HOST is not loopback"), "{w}x{h}: {s}");
        assert!(s.contains("Go on against it?"), "{w}x{h}: {s}");
        assert!(
            s.contains(" y  yes"),
            "{w}x{h}: the choices are cut off:\n{s}"
        );
    }
}

#[test]
fn hostile_bytes_are_escaped() {
    let d = fixture(true);
    let mut app = loaded(d.path(), 140, 36);
    let k = app
        .tests()
        .cases()
        .iter()
        .find(|c| c.case_id.starts_with("evil"))
        .map(|c| c.key.clone())
        .expect("evil case");
    app.jump(&k);
    let s = text(&render(&app, &dark()));
    assert!(s.contains("\\e]52"), "{s}");
    assert!(
        !s.chars()
            .any(|c| c == '\u{1b}' || c == '\u{7}' || c == '\u{9b}')
    );
}

#[test]
fn every_keymap_and_theme_file_parses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut n = 0;
    for e in std::fs::read_dir(root.join("keymaps")).expect("keymaps/") {
        let p = e.expect("entry").path();
        let text = std::fs::read_to_string(&p).expect("read");
        let km = Keymap::parse(&p.display().to_string(), &text).expect("keymap parses");
        assert!(
            km.collisions().is_empty(),
            "{}: {:?}",
            p.display(),
            km.collisions()
        );
        // help lists every binding
        let rows = view::help::rows(&km);
        for (mode, list) in &km.modes {
            for b in list {
                assert!(
                    rows.iter()
                        .any(|(m, k, _)| m == mode && k.split(", ").any(|x| x == b.keys())),
                    "help lacks {mode} {}",
                    b.keys()
                );
            }
        }
        n += 1;
    }
    for e in std::fs::read_dir(root.join("themes")).expect("themes/") {
        let p = e.expect("entry").path();
        let text = std::fs::read_to_string(&p).expect("read");
        let table: toml::Table = toml::from_str(&text).expect("toml");
        let th = Theme::from_table("t", &table, false).expect("theme");
        assert!(
            th.missing().is_empty(),
            "{} lacks {:?}",
            p.display(),
            th.missing()
        );
        n += 1;
    }
    assert!(n >= 4);
}

#[test]
fn demo_catalog_tab_and_case_details() {
    let d = demo();
    let mut app = loaded(d.path(), 130, 34);
    app.keys("2");
    let t = render(&app, &dark());
    let s = text(&t);
    assert!(s.contains("max risk mutating"), "{s}");
    insta::assert_snapshot!(t.backend());
    // a case with steps, expectations and a gate
    let id = app
        .domain()
        .ws()
        .and_then(|w| w.catalog.as_ref())
        .and_then(|c| {
            c.cases
                .iter()
                .find(|x| x.gate.is_some())
                .map(|x| x.id.clone())
        })
        .expect("a gated case");
    app.keys("/");
    app.keys(&format!("'{id}"));
    app.key(KeyCode::Enter);
    let t = render(&app, &dark());
    let s = text(&t);
    assert!(s.contains("gate") && s.contains(&id), "{s}");
    insta::assert_snapshot!("demo_catalog_case", t.backend());
}

#[test]
fn demo_tests_tab() {
    let d = demo();
    let app = loaded(d.path(), 130, 34);
    insta::assert_snapshot!(render(&app, &dark()).backend());
}

#[test]
fn tree_while_history_indexes() {
    let d = fixture(false);
    let mut app = new_app(d.path(), 100, 20, "127.0.0.1");
    let partial = testdeck_tui::runtime::tree_only(d.path()).expect("tree");
    app.update(Action::TreeLoaded(Box::new(partial)));
    let t = render(&app, &dark());
    assert!(text(&t).contains("indexing history"), "{}", text(&t));
    insta::assert_snapshot!(t.backend());
    // the full index keeps the open folders and the selection
    app.keys("jj");
    let before = app.shared().selected_node().map(|n| n.key.clone());
    let fx = app.update(Action::Loaded(Box::new(
        Workspace::load(d.path()).expect("load"),
    )));
    app.settle(fx);
    assert!(!app.domain().indexing());
    assert_eq!(app.shared().selected_node().map(|n| n.key.clone()), before);
    app.update(Action::Tick);
    app.drawn();
    app.update(Action::Tick);
    assert!(!app.dirty(), "idle ticks must not redraw");
}

/// The screen shown in the README: the demo with a failed e2e case open (its timeline,
/// artifacts and history). The snapshot keeps the README's capture current.
#[test]
fn demo_readme_capture() {
    let d = demo();
    let mut app = loaded(d.path(), 120, 34);
    let k = app
        .tests()
        .cases()
        .iter()
        .find(|c| {
            c.latest == Some(testdeck_core::workspace::logs::RunStatus::Failed)
                && c.scope.contains("/e2e/")
        })
        .map(|c| c.key.clone())
        .expect("a failed e2e case in the demo");
    app.jump(&k);
    // the details' summary of its failure, read as the runtime reads it
    app.with_digest();
    insta::assert_snapshot!(render(&app, &dark()).backend());
}

#[test]
fn problems_overlay() {
    let d = demo();
    let mut app = loaded(d.path(), 120, 24);
    app.keys("p");
    let t = render(&app, &dark());
    assert!(text(&t).contains("Problems · "), "{}", text(&t));
    insta::assert_snapshot!(t.backend());
}

#[test]
fn authorization_prompts() {
    let d = demo();
    let mut app = loaded(d.path(), 110, 30);
    app.keys("2m");
    app.keys("/'TC-CLI-007");
    app.key(KeyCode::Enter);
    let fx = app.on_key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::NONE));
    assert!(
        fx.is_empty(),
        "nothing launches before the prompts are answered"
    );
    // the pair is two cases: their one-line preview first (issue 15), Enter goes on
    assert!(text(&render(&app, &dark())).contains("2 cases"));
    app.key(KeyCode::Enter);
    // the strictest prompt of the run_together pair (006 mutating, 007
    // destructive) comes first, the mildest last
    app.keys("destruct");
    insta::assert_snapshot!("prompt_destructive_typing", render(&app, &dark()).backend());
    app.keys("ive");
    app.key(KeyCode::Enter);
    insta::assert_snapshot!("prompt_gate", render(&app, &dark()).backend());
    let fx = app.on_key(KeyEvent::new(KeyCode::Char('y'), KeyModifiers::NONE));
    assert!(fx.is_empty(), "one prompt is left");
    insta::assert_snapshot!("prompt_mutating", render(&app, &dark()).backend());
    // Enter is no: the pair does not run, and the launch goes on without it
    let fx = app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    assert!(
        fx.iter().any(|e| matches!(e, Effect::Launch { .. })),
        "all answered: launch"
    );
    assert!(
        app.launch().grants().granted.len() == 2,
        "{:?}",
        app.launch().grants()
    );
}

#[test]
fn verdict_prompt_for_a_person_judged_case() {
    let d = demo();
    let mut app = loaded(d.path(), 110, 30);
    let case = app
        .domain()
        .ws()
        .and_then(|w| w.catalog.as_ref())
        .and_then(|c| c.cases.iter().find(|x| !x.how.steps.is_empty()).cloned())
        .expect("a case with steps");
    app.launch_mut()
        .queue_verdict(testdeck_tui::app::launch::Judging::new(
            case.id.clone(),
            case.title.clone(),
            case.how.steps.clone(),
            0,
        ));
    app.update(Action::Cmd(Command::Noop));
    app.keys("jinote");
    app.key(KeyCode::Enter);
    insta::assert_snapshot!(render(&app, &dark()).backend());
    let fx = app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    assert!(matches!(
        fx.first(),
        Some(Effect::Judge { verdict: testdeck_exec::record::Verdict::Fail, note: Some(n), .. }) if n == "note"
    ));
}

#[test]
fn rerun_failed_launches_the_failed_cases() {
    let d = fixture(false);
    let mut app = loaded(d.path(), 100, 24);
    let fx = app.on_key(KeyEvent::new(KeyCode::Char('F'), KeyModifiers::SHIFT));
    let plan = fx
        .iter()
        .find_map(|e| match e {
            Effect::Launch { plan, .. } => Some(plan.clone()),
            _ => None,
        })
        .expect("a launch");
    let labels: Vec<String> = plan
        .tests
        .iter()
        .map(testdeck_exec::TestsTarget::label)
        .collect();
    assert_eq!(labels, ["ai/e2e/chat/scenario/chat-send-message"]);
    assert_eq!(app.launch().running(), 1);
    // a live case asks first
    // the launch ends
    app.exec_queued(
        0,
        [testdeck_exec::ExecEvent::Summary(
            testdeck_exec::Summary::default(),
        )],
    );
    app.jump("ai/backend/tools/terminal/live/terminal-live-model");
    let fx = app.on_key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::NONE));
    assert!(fx.is_empty());
    let t = render(&app, &dark());
    assert!(text(&t).contains("Run a live case?"), "{}", text(&t));
    insta::assert_snapshot!("prompt_live", t.backend());
}

#[test]
fn demo_runs_tab_with_a_catalog_run_record() {
    let d = demo();
    let mut app = loaded(d.path(), 130, 34);
    assert!(
        !app.runs().records().is_empty(),
        "the demo ships a run record"
    );
    app.keys("3s");
    app.keys("catalog");
    app.key(KeyCode::Enter);
    let t = render(&app, &dark());
    let s = text(&t);
    assert!(
        s.contains("catalog run record") && s.contains("TC-CLI"),
        "{s}"
    );
    insta::assert_snapshot!(t.backend());
}

#[test]
/// `c` on a case with no run picked opens its default pair: the latest passed run
/// against the latest failed one (the compare view of `tui::extras`).
fn compare_a_case_opens_its_default_pair() {
    let d = fixture(false);
    let mut app = loaded(d.path(), 120, 32);
    app.jump("ai/backend/tools/terminal/basic/terminal-basic-command");
    app.keys("c");
    let t = render(&app, &dark());
    assert!(
        matches!(
            app.layers().screen(),
            Some(testdeck_tui::app::Screen::Compare(_))
        ),
        "{}",
        text(&t)
    );
    insta::assert_snapshot!(t.backend());
}
