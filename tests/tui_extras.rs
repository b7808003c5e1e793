//! Watch mode, rerun failed, compare and the report/contract views of the cockpit:
//! render snapshots on the demo (TestBackend + insta) and the app's decisions.

mod common;
use common::fs::demo_copy as demo;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::Path;
use testdeck::tail::run::load_run;
use testdeck::tui::action::{Action, Command};
use testdeck::tui::app::Screen;
use testdeck::tui::app::{App, CaseRef, Effect, Options, Tab};
use testdeck::tui::job::Job;
use testdeck::tui::keymap::Keymap;
use testdeck::tui::runtime::run_now;
use testdeck::tui::theme::Theme;
use testdeck::tui::view;
use testdeck::workspace::Workspace;

const MULTI_DOC: &str = "kb-search/backend/query/scenario/kb-search-multi-doc-ranking";
const BASIC_COMMAND: &str = "ai/backend/tools/terminal/basic/terminal-basic-command";
const LIVE_PLAN: &str = "ai/backend/tools/terminal/live/terminal-live-plan-execute";

/// Run the effects as the runtime does, synchronously: run folders and every job that
/// ends by itself. Returns the effects left (launches, watches, reloads).
fn settle(app: &mut App, root: &Path, fx: Vec<Effect>) -> Vec<Effect> {
    let mut left = Vec::new();
    for e in fx {
        match e {
            Effect::LoadRun(p) => {
                let more = app.update(Action::RunLoaded(Box::new(load_run(root, &p))));
                left.extend(settle(app, root, more));
            }
            Effect::Job(job) if !matches!(job, Job::Watch(..)) => {
                if let Some(d) = run_now(job, root) {
                    let more = app.update(Action::Done(Box::new(d)));
                    left.extend(settle(app, root, more));
                }
            }
            other => left.push(other),
        }
    }
    left
}

fn loaded(root: &Path, w: u16, h: u16) -> App {
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
    app.update(Action::Resize(w, h));
    let ws = Workspace::load(root).expect("load");
    let fx = app.update(Action::Loaded(Box::new(ws)));
    settle(&mut app, root, fx);
    app
}

fn keys(app: &mut App, root: &Path, ks: &str) -> Vec<Effect> {
    let mut left = Vec::new();
    for c in ks.chars() {
        left.extend(key(app, root, KeyCode::Char(c)));
    }
    left
}

fn key(app: &mut App, root: &Path, code: KeyCode) -> Vec<Effect> {
    let fx = app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
    settle(app, root, fx)
}

fn jump(app: &mut App, root: &Path, key: &str) {
    assert!(app.jump_to(key), "no node {key}");
    let fx = app.update(Action::Cmd(Command::Noop));
    settle(app, root, fx);
}

fn render(app: &App) -> Terminal<TestBackend> {
    let theme = Theme::builtin("dark", false).expect("dark");
    // drawn in UTC whatever zone the machine is in (the snapshots show times)
    testdeck::clock::set_zone(testdeck::clock::Zone::Utc);
    let mut t = Terminal::new(TestBackend::new(app.size.0, app.size.1)).expect("terminal");
    t.draw(|f| view::draw(app, &theme, f)).expect("draw");
    t
}

fn text(t: &Terminal<TestBackend>) -> String {
    t.backend().to_string()
}

#[test]
fn compare_default_pair_scrolls_to_the_first_divergence() {
    let d = demo();
    let mut app = loaded(d.path(), 140, 36);
    jump(&mut app, d.path(), MULTI_DOC);
    keys(&mut app, d.path(), "c");
    let Some(Screen::Compare(v)) = &app.screen else {
        panic!("no compare view: {:?}", app.notice);
    };
    let first = v.scroll;
    assert_eq!(app.mode(), "overlay");
    let t = render(&app);
    let s = text(&t);
    assert!(s.contains("first divergence: #"), "{s}");
    assert!(s.contains("▶"), "the divergence row is on screen:\n{s}");
    insta::assert_snapshot!(t.backend());
    // n goes to the next differing row, Esc closes
    keys(&mut app, d.path(), "n");
    if let Some(Screen::Compare(v)) = &app.screen {
        assert!(v.scroll > first, "n moved on");
    }
    key(&mut app, d.path(), KeyCode::Esc);
    assert!(app.screen.is_none());
    assert_eq!(app.mode(), "normal");
}

#[test]
fn compare_picks_a_then_b_in_the_runs_tab() {
    let d = demo();
    let mut app = loaded(d.path(), 120, 30);
    keys(&mut app, d.path(), "3");
    let s = app.runs.filter.clone();
    assert!(s.is_empty());
    // filter the runs of one case, pick the newest and the next one
    keys(&mut app, d.path(), "s");
    keys(&mut app, d.path(), "kb-search-multi-doc-ranking");
    key(&mut app, d.path(), KeyCode::Enter);
    let a = app.selected_run().map(|r| r.path.clone()).expect("a run");
    keys(&mut app, d.path(), "c");
    assert_eq!(app.compare.pick.as_deref(), Some(a.as_str()));
    assert!(text(&render(&app)).contains("A "), "the pick shows");
    keys(&mut app, d.path(), "jc");
    let Some(Screen::Compare(v)) = &app.screen else {
        panic!("no compare view: {:?}", app.notice);
    };
    assert!(v.head[0].iter().any(|(t, _)| a.contains(t.as_str())));
    assert!(app.compare.pick.is_none());
}

#[test]
fn compare_without_a_failed_run_says_why() {
    let d = demo();
    let mut app = loaded(d.path(), 120, 30);
    // a case that only ever passed (or never ran) has no default pair
    let key = app
        .tests
        .cases
        .iter()
        .find(|c| {
            let ws = app.ws.as_ref().expect("ws");
            testdeck::workspace::diff::default_pair(ws, &c.key).is_err()
        })
        .map(|c| c.key.clone())
        .expect("a case without a pair");
    jump(&mut app, d.path(), &key);
    keys(&mut app, d.path(), "c");
    assert!(app.screen.is_none());
    assert!(
        app.notice
            .as_deref()
            .is_some_and(|n| n.starts_with("compare:")),
        "{:?}",
        app.notice
    );
}

#[test]
fn report_with_a_stale_number() {
    let d = demo();
    let file = d.path().join("tests/report/ai/report.md");
    let text_md = std::fs::read_to_string(&file).expect("report");
    let changed = text_md.replacen("  - totalRuns: 15\n", "  - totalRuns: 16\n", 1);
    assert_ne!(changed, text_md, "the demo report has the number");
    std::fs::write(&file, changed).expect("write");
    let mut app = loaded(d.path(), 130, 30);
    jump(&mut app, d.path(), "ai");
    keys(&mut app, d.path(), "R");
    let Some(Screen::Report(v)) = &app.screen else {
        panic!("no report view: {:?}", app.notice);
    };
    assert_eq!(v.stale, 1, "{:?}", v.notes);
    let t = render(&app);
    let s = text(&t);
    assert!(
        s.contains("totalRuns: 16") && s.contains("⚠ logs: 15"),
        "{s}"
    );
    assert!(s.contains("Tests · "), "the tree stays beside the report");
    insta::assert_snapshot!(t.backend());
    keys(&mut app, d.path(), "q");
    assert!(
        app.screen.is_none() && !app.quit,
        "q closes the report only"
    );
}

#[test]
fn clean_report_and_no_report() {
    let d = demo();
    let mut app = loaded(d.path(), 130, 30);
    jump(&mut app, d.path(), "ai");
    keys(&mut app, d.path(), "R");
    let Some(Screen::Report(v)) = &app.screen else {
        panic!("no report view: {:?}", app.notice);
    };
    assert_eq!(v.stale, 0, "the demo's report is current: {:?}", v.notes);
    key(&mut app, d.path(), KeyCode::Esc);
    std::fs::remove_file(d.path().join("tests/report/ai/report.md")).expect("rm");
    keys(&mut app, d.path(), "R");
    assert!(app.screen.is_none());
    assert!(
        app.notice
            .as_deref()
            .is_some_and(|n| n.contains("no report")),
        "{:?}",
        app.notice
    );
}

#[test]
fn watch_marks_badges_and_unwatches() {
    let d = demo();
    let mut app = loaded(d.path(), 130, 30);
    jump(&mut app, d.path(), BASIC_COMMAND);
    let fx = keys(&mut app, d.path(), "w");
    // a readonly, not live case: no prompt, the watch starts on it alone
    assert!(app.overlay.is_none());
    let Some(Effect::Job(Job::Watch(_, Some(opts)))) = fx.first() else {
        panic!("no watch started: {fx:?}");
    };
    assert_eq!(opts.targets, [BASIC_COMMAND]);
    assert!(
        app.watch
            .watched
            .contains(&CaseRef::tests_key(BASIC_COMMAND))
    );
    let t = render(&app);
    let s = text(&t);
    assert!(s.contains("watch ") && s.contains("watching 1"), "{s}");
    insta::assert_snapshot!(t.backend());
    // w again: unwatched, the watch stops
    let fx = keys(&mut app, d.path(), "w");
    assert!(
        matches!(fx.first(), Some(Effect::Job(Job::Watch(_, None)))),
        "{fx:?}"
    );
    assert!(app.watch.watched.is_empty());
}

#[test]
fn watching_a_live_case_asks_and_a_no_leaves_it_unwatched() {
    let d = demo();
    let mut app = loaded(d.path(), 130, 30);
    jump(&mut app, d.path(), LIVE_PLAN);
    let fx = keys(&mut app, d.path(), "w");
    assert!(
        fx.is_empty(),
        "nothing is watched before the prompt: {fx:?}"
    );
    assert!(text(&render(&app)).contains("Run a live case?"));
    // Enter is the safe answer
    let fx = key(&mut app, d.path(), KeyCode::Enter);
    assert!(app.watch.watched.is_empty(), "{:?}", app.watch.watched);
    assert!(
        !fx.iter()
            .any(|e| matches!(e, Effect::Job(Job::Watch(_, Some(_))))),
        "{fx:?}"
    );
    assert!(
        app.notice
            .as_deref()
            .is_some_and(|n| n.contains("not authorized")),
        "{:?}",
        app.notice
    );
    // yes: watched, with the live grant passed to the watch
    keys(&mut app, d.path(), "w");
    let fx = keys(&mut app, d.path(), "y");
    let Some(Effect::Job(Job::Watch(_, Some(opts)))) = fx.first() else {
        panic!("no watch started: {fx:?}");
    };
    assert!(app.watch.watched.contains(&CaseRef::tests_key(LIVE_PLAN)));
    assert!(opts.grants.get(&testdeck::exec::Grantable::Live).is_some());
}

#[test]
fn rerun_failed_launches_exactly_the_failed_set() {
    let d = demo();
    let mut app = loaded(d.path(), 130, 30);
    let ws = app.ws.as_ref().expect("ws");
    let set = testdeck::exec::failed::failed_set(ws);
    assert!(!set.is_empty(), "the demo has failures");
    // temp cases are left out unless asked (issue 15): `t` in the preview
    let mut want: Vec<String> = set
        .tests
        .iter()
        .filter(|c| !c.temp)
        .map(testdeck::workspace::tree::TestCase::key)
        .collect();
    want.sort();
    // answer every prompt no: what is launched is the failed set minus what was refused
    let mut fx = keys(&mut app, d.path(), "F");
    let mut guard = 0;
    while app.overlay.is_some() && guard < 20 {
        fx = key(&mut app, d.path(), KeyCode::Enter);
        guard += 1;
    }
    let Some(Effect::Launch { plan, .. }) = fx.iter().find(|e| matches!(e, Effect::Launch { .. }))
    else {
        panic!("no launch: {fx:?} {:?}", app.notice);
    };
    let mut got: Vec<String> = plan
        .tests
        .iter()
        .flat_map(|t| match t {
            testdeck::exec::TestsTarget::Cases { scope, case_ids } => case_ids
                .iter()
                .map(|c| format!("{scope}/{c}"))
                .collect::<Vec<_>>(),
            testdeck::exec::TestsTarget::Scope(s) => vec![s.clone()],
        })
        .collect();
    got.sort();
    assert_eq!(got, want);
    assert_eq!(plan.catalog.ids, set.catalog);
    assert!(!plan.headless, "launched as `r` launches, prompts and all");
}

#[test]
fn rerun_failed_in_a_filtered_runs_tab() {
    let d = demo();
    let mut app = loaded(d.path(), 130, 30);
    keys(&mut app, d.path(), "3s");
    keys(&mut app, d.path(), "kb-search-multi-doc-ranking");
    key(&mut app, d.path(), KeyCode::Enter);
    assert_eq!(app.tab, Tab::Runs);
    let failed = {
        let ws = app.ws.as_ref().expect("ws");
        testdeck::exec::failed::failed_set(ws)
            .tests
            .iter()
            .any(|c| c.key() == MULTI_DOC)
    };
    let fx = keys(&mut app, d.path(), "F");
    let launch = fx.iter().find_map(|e| match e {
        Effect::Launch { plan, .. } => Some(plan.clone()),
        _ => None,
    });
    if failed {
        let plan = launch.expect("a launch");
        assert_eq!(plan.tests.len(), 1, "{:?}", plan.tests);
        assert!(plan.catalog.ids.is_empty());
    } else {
        assert!(launch.is_none());
        assert_eq!(app.notice.as_deref(), Some("no failed case to rerun"));
    }
}

#[test]
fn contract_badges_for_the_runs_on_screen() {
    let d = demo();
    let mut app = loaded(d.path(), 130, 30);
    keys(&mut app, d.path(), "3");
    // the rows on screen were checked; no more than a screenful
    let checked = app.contract.counts.len();
    assert!(checked > 0 && checked <= 30, "{checked}");
    // break one run's contract: its runtime-events.jsonl goes
    let run = {
        let ws = app.ws.as_ref().expect("ws");
        app.runs
            .visible
            .iter()
            .take(10)
            .filter_map(|r| match r {
                testdeck::tui::app::RunRow::Tests(i) => ws.logs.runs.get(*i).cloned(),
                testdeck::tui::app::RunRow::Record(_) => None,
            })
            .find(|r| r.status.is_finished() && r.has_runtime_events)
            .expect("a finished run on screen")
    };
    let before = app.contract.counts.get(&run.path).copied().unwrap_or(0);
    let _ = std::fs::remove_file(d.path().join(&run.path).join("runtime-events.jsonl"));
    let fx = app.update(Action::Loaded(Box::new(
        Workspace::load(d.path()).expect("load"),
    )));
    settle(&mut app, d.path(), fx);
    let n = app.contract.counts.get(&run.path).copied().unwrap_or(0);
    assert!(
        n > before,
        "the broken run has one more warning ({before} → {n})"
    );
    // the badge shows where it fits beside the whole row (a wide tree pane)
    app.update(Action::Resize(220, 30));
    let s = text(&render(&app));
    assert!(s.contains(&format!("⚠{n}")), "{s}");
}

#[test]
fn plan_entry_in_the_details_pane() {
    let d = demo();
    let mut app = loaded(d.path(), 130, 44);
    jump(&mut app, d.path(), BASIC_COMMAND);
    let t = render(&app);
    assert!(
        text(&t).contains("plan       doc/test-plan/"),
        "{}",
        text(&t)
    );
    insta::assert_snapshot!(t.backend());
}

#[test]
fn help_lists_watch_rerun_compare_report() {
    let d = demo();
    let mut app = loaded(d.path(), 130, 60);
    keys(&mut app, d.path(), "?");
    let mut seen = String::new();
    for _ in 0..12 {
        seen.push_str(&text(&render(&app)));
        key(&mut app, d.path(), KeyCode::PageDown);
    }
    for want in [
        "Watch: rerun on file change",
        "Rerun failed",
        "Compare two runs",
        "Domain report beside the tree",
    ] {
        assert!(seen.contains(want), "help lacks {want:?}");
    }
}

#[test]
fn compare_and_report_draw_in_a_tiny_terminal() {
    let d = demo();
    let mut app = loaded(d.path(), 120, 30);
    jump(&mut app, d.path(), MULTI_DOC);
    keys(&mut app, d.path(), "c");
    assert!(matches!(app.screen, Some(Screen::Compare(_))));
    for (w, h) in [(20, 5), (1, 1), (60, 8)] {
        app.update(Action::Resize(w, h));
        render(&app);
    }
    keys(&mut app, d.path(), "Gjjkn");
    key(&mut app, d.path(), KeyCode::Esc);
    app.update(Action::Resize(120, 30));
    jump(&mut app, d.path(), "ai/backend");
    keys(&mut app, d.path(), "R");
    assert!(matches!(app.screen, Some(Screen::Report(_))));
    for (w, h) in [(20, 5), (1, 1), (60, 8)] {
        app.update(Action::Resize(w, h));
        render(&app);
    }
}
