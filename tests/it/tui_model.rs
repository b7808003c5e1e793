//! What the cockpit says before and after a launch, on the demo (TestBackend +
//! insta at 140×40, 100×30 and 60×15): the preview line before `r`/`F` on several
//! cases, `F` leaving temp cases out, the reasons of skipped cases, the verdict
//! prompt's expanded and tickable steps with its count, and a verdict reaching the
//! catalog and Runs rows in the frame that closes the prompt. Launches are real
//! (`exec::launch` with real `sh` children), their events fed to the app as the
//! runtime feeds them.

use crate::common;
use common::fs::demo_copy as demo;

use common::app::{Deck, Runs, draw, options};
use crossterm::event::KeyCode;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use testdeck_exec::{ExecEvent, LaunchHandle};
use testdeck_tui::action::{Action, Command};
use testdeck_tui::app::{App, CaseRef, Effect, Overlay, Prompt};

const SIZES: [(u16, u16); 3] = [(140, 40), (100, 30), (60, 15)];

/// The demo at 140×40 with its records; run folders and what the model reads
/// again (the workspace, a launch's runs, the records) as the runtime reads them,
/// launches left to `launch`.
fn loaded(root: &Path) -> Deck {
    Deck::new(options(root, "demo"), Runs::RELOADS)
        .sized(140, 40)
        .loaded()
        .with_records()
}

/// Put the Catalog tab's cursor on case `id` (through the finder).
fn select_catalog(app: &mut Deck, id: &str) {
    app.keys("/");
    app.keys(&format!("'{id}"));
    app.key(KeyCode::Enter);
    assert_eq!(
        app.shared().selected_catalog_case().map(|c| c.id.as_str()),
        Some(id),
        "the finder did not land on {id}"
    );
}

/// Run the launch among `fx` for real and feed its events to the app, as the
/// runtime does, until its summary; the handle stays (verdicts are written there).
fn launch(app: &mut Deck, fx: Vec<Effect>) -> LaunchHandle {
    let Some(Effect::Launch { index, plan, ctx }) =
        fx.into_iter().find(|e| matches!(e, Effect::Launch { .. }))
    else {
        panic!("no launch; notice {:?}", app.notice());
    };
    let events: Arc<Mutex<Vec<ExecEvent>>> = Arc::default();
    let sink_events = events.clone();
    let h = testdeck_exec::launch(
        *ctx,
        *plan,
        Arc::new(move |ev| sink_events.lock().expect("lock").push(ev)),
    );
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let batch: Vec<ExecEvent> = std::mem::take(&mut *events.lock().expect("lock"));
        let done = batch.iter().any(|e| matches!(e, ExecEvent::Summary(_)));
        let more = app.exec_queued(index, batch);
        app.settle(more);
        if done {
            return h;
        }
        assert!(Instant::now() < deadline, "the launch did not end");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn text(app: &App) -> String {
    draw(app).backend().to_string()
}

/// Snapshots of what is on screen at the three sizes (`name_140x40`, …); the
/// run ids of this test's launches (time and random suffix) kept to their shape.
fn snapshots(app: &mut App, name: &str) {
    let run_id = regex::Regex::new(r"\d{8}T\d{6}Z-tui-[0-9a-f]{6}").expect("regex");
    let clock = regex::Regex::new(r"\b\d{2}:\d{2}:\d{2}\.\d{3}\b").expect("regex");
    for (w, h) in SIZES {
        app.update(Action::Resize(w, h));
        let screen = draw(app).backend().to_string();
        let screen = run_id.replace_all(&screen, "YYYYMMDDTHHMMSSZ-tui-xxxxxx");
        // a launch's events carry the clock of the moment they were written
        let screen = clock.replace_all(&screen, "HH:MM:SS.mmm");
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen);
    }
    app.update(Action::Resize(140, 40));
}

fn preview(app: &App) -> &testdeck_tui::app::launch::Preview {
    match app.layers().overlay() {
        Some(Overlay::Prompt(Prompt::Preview(p))) => p,
        o => panic!("no preview: {o:?}"),
    }
}

#[test]
fn r_on_a_category_previews_what_runs_and_what_is_excluded_and_why() {
    let d = demo_without_ci_assume();
    let mut app = loaded(d.path());
    app.keys("2");
    // the cursor is on the CLI category: r launches all of it
    let fx = app.keys("r");
    assert!(fx.is_empty(), "nothing launches before Enter: {fx:?}");
    let line = preview(&app).line.clone();
    assert!(line.starts_with("7 cases"), "{line}");
    assert!(line.contains("3 excluded"), "{line}");
    assert!(line.contains("TC-CLI-009 (lifecycle retired)"), "{line}");
    assert!(
        line.contains("TC-CLI-007 (risk destructive is above max-risk mutating)"),
        "{line}"
    );
    // issue 44: the box and the key-hint line under it say the same keys and
    // words, the keymap's (the box every key, the hint line the shortest)
    let shown = text(&app);
    assert!(shown.contains("Enter/y  go     Esc/n  close"), "{shown}");
    assert!(shown.contains(" y go  n close "), "{shown}");
    assert!(!shown.contains("cancel"), "{shown}");
    snapshots(&mut app, "preview_r_category");
    // Esc: nothing starts, and the status line says so
    let fx = app.key(KeyCode::Esc);
    assert!(fx.is_empty() && app.layers().overlay().is_none());
    assert_eq!(app.notice().as_deref(), Some("not launched"));
    // Enter: the launch starts (no prompt: nothing needs one at max risk mutating
    // but TC-CLI-006, whose group partner is excluded, so it is excluded too)
    app.keys("r");
    let fx = app.key(KeyCode::Enter);
    assert!(
        fx.iter().any(|e| matches!(e, Effect::Launch { .. })),
        "{fx:?} {:?}",
        app.layers().overlay()
    );
    // one case: no preview
    // the launch ends
    app.exec_queued(
        0,
        [testdeck_exec::ExecEvent::Summary(
            testdeck_exec::Summary::default(),
        )],
    );
    select_catalog(&mut app, "TC-CLI-001");
    let fx = app.keys("r");
    assert!(fx.iter().any(|e| matches!(e, Effect::Launch { .. })));
}

#[test]
fn f_leaves_temp_cases_out_unless_t_and_names_the_failed_orphan() {
    let d = demo();
    let mut app = loaded(d.path());
    let fx = app.keys("F");
    assert!(fx.is_empty());
    let p = preview(&app);
    assert!(p.rerun);
    assert!(!p.temp.is_empty(), "the demo has a failed temp case");
    let line = p.line.clone();
    assert!(
        line.contains("temp/kb-tokenizer-probe (temp case: t brings temp cases in)"),
        "{line}"
    );
    assert!(
        line.contains(
            "docx/backend/export/basic/docx-export-legacy-styles (orphan: its test file is gone)"
        ),
        "{line}"
    );
    snapshots(&mut app, "preview_rerun_failed");
    let targets = |fx: &[Effect]| -> Vec<String> {
        fx.iter()
            .find_map(|e| match e {
                Effect::Launch { plan, .. } => Some(
                    plan.tests
                        .iter()
                        .map(testdeck_exec::TestsTarget::label)
                        .collect(),
                ),
                _ => None,
            })
            .unwrap_or_default()
    };
    // Enter: launched without the temp case (answering no to every prompt)
    let mut fx = app.key(KeyCode::Enter);
    while app.layers().overlay().is_some() {
        fx = app.key(KeyCode::Esc);
    }
    let without = targets(&fx);
    assert!(!without.is_empty(), "{:?}", app.notice());
    assert!(
        without.iter().all(|t| !t.starts_with("temp")),
        "{without:?}"
    );
    assert!(
        app.notice()
            .as_deref()
            .unwrap_or("")
            .starts_with("rerun failed")
    );
    // t brings it in, and says so; t again leaves it out
    // the launch ends
    app.exec_queued(
        0,
        [testdeck_exec::ExecEvent::Summary(
            testdeck_exec::Summary::default(),
        )],
    );
    app.keys("Ft");
    let p = preview(&app);
    assert!(p.with_temp && !p.line.contains("temp case"), "{}", p.line);
    assert!(text(&app).contains("leave temp out"), "{}", text(&app));
    app.keys("t");
    assert!(!preview(&app).with_temp);
    app.keys("t");
    let mut fx = app.key(KeyCode::Enter);
    while app.layers().overlay().is_some() {
        fx = app.key(KeyCode::Esc);
    }
    assert!(
        targets(&fx).iter().any(|t| t.starts_with("temp")),
        "{:?}",
        targets(&fx)
    );
}

#[test]
fn a_run_together_member_that_cannot_run_says_why_in_the_live_pane_and_the_status_line() {
    let d = demo();
    let mut app = loaded(d.path());
    app.keys("2");
    select_catalog(&mut app, "TC-CLI-007");
    // at max risk mutating TC-CLI-007 (destructive) cannot run, and its group
    // partner TC-CLI-006 not without it: the preview says so before anything
    // runs, and offers to raise the max risk for this launch
    let fx = app.keys("r");
    assert!(fx.is_empty(), "{fx:?}");
    let line = preview(&app).line.clone();
    assert!(line.starts_with("0 cases will run"), "{line}");
    assert!(
        line.contains("TC-CLI-006 (run_together group 0: TC-CLI-007 is above max-risk mutating)"),
        "{line}"
    );
    assert!(
        line.contains("risk destructive is above max-risk"),
        "{line}"
    );
    assert!(preview(&app).raise.is_some());
    snapshots(&mut app, "skipped_reasons");
    // Enter: nothing would run, so nothing launches (and no record is written)
    let fx = app.key(KeyCode::Enter);
    assert!(
        !fx.iter().any(|e| matches!(e, Effect::Launch { .. })),
        "{fx:?}"
    );
    assert_eq!(
        app.notice().as_deref(),
        Some("not launched: no case would run")
    );
}

/// The demo with its APP category's probe off (the probe's service is not there):
/// its two person-judged cases then reach the verdict prompt.
/// The demo with TC-CLI-008's `assume` reading a variable no environment sets:
/// the preview's counts are then the same on a person's machine and in CI,
/// where `CI=true` (the preview rightly reads the process environment, as the
/// launch does).
fn demo_without_ci_assume() -> tempfile::TempDir {
    let d = demo();
    let cases = d.path().join(".pouch/tester/cases/cli.yaml");
    let text = std::fs::read_to_string(&cases).expect("cases");
    let edited = text.replace(
        "assume: \"!CI && DEMO_DESKTOP != headless\"",
        "assume: \"!TESTDECK_TEST_NEVER_SET\"",
    );
    assert_ne!(text, edited, "the demo's TC-CLI-008 assume moved");
    std::fs::write(&cases, edited).expect("write");
    d
}

fn demo_without_app_probe() -> tempfile::TempDir {
    let d = demo();
    let cat = d.path().join(".pouch/tester/catalog.yaml");
    let text = std::fs::read_to_string(&cat).expect("catalog");
    let edited = text.replace(
        "  - id: APP\n    title: 移动端伴侣应用\n",
        "  - id: APP\n    title: 移动端伴侣应用\n    status_probe: false\n",
    );
    assert_ne!(text, edited, "the demo's APP category moved");
    std::fs::write(&cat, edited).expect("write");
    d
}

#[test]
fn verdict_prompts_expand_vars_tick_steps_count_and_reach_every_row_at_once() {
    let d = demo_without_app_probe();
    let mut app = loaded(d.path());
    app.keys("2");
    for id in ["TC-APP-001", "TC-APP-002"] {
        assert!(app.jump_to_case(&CaseRef::Catalog(id.into())));
        app.cmd(Command::Mark);
    }
    // back on the tab's first row, where `2` put the cursor
    app.cmd(Command::GoTop);
    app.keys("r");
    assert!(
        preview(&app).line.starts_with("2 cases"),
        "{}",
        preview(&app).line
    );
    let fx = app.key(KeyCode::Enter);
    let handle = launch(&mut app, fx);
    // the first of two verdicts: its steps as the person must follow them
    let Some(Overlay::Prompt(Prompt::Judge(j))) = app.layers().overlay() else {
        panic!(
            "no verdict prompt: {:?} {:?}",
            app.layers().overlay(),
            app.notice()
        );
    };
    assert_eq!(j.case_id, "TC-APP-001");
    assert!(
        j.steps
            .iter()
            .any(|s| s.contains("http://127.0.0.1:5173/pair")),
        "{:?}",
        j.steps
    );
    assert!(j.steps.iter().all(|s| !s.contains("${")), "{:?}", j.steps);
    let s = text(&app);
    assert!(s.contains("Your verdict · 1 of 2"), "{s}");
    assert!(s.contains("http://127.0.0.1:5173/pair"), "{s}");
    // up from the first verdict is the last step: tick it, then the second
    app.keys("k ");
    app.keys("kx");
    snapshots(&mut app, "verdict_ticked");
    let Some(Overlay::Prompt(Prompt::Judge(j))) = app.layers().overlay() else {
        panic!("the prompt closed");
    };
    assert_eq!(j.ticked, [false, true, true]);
    // a tick again unticks
    app.keys("x");
    app.keys("x");
    // back down to the verdicts: pass is still the choice
    app.keys("jj");
    let fx = app.key(KeyCode::Enter);
    let Some(Effect::Judge {
        case_id,
        verdict,
        note,
        ..
    }) = fx.iter().find(|e| matches!(e, Effect::Judge { .. }))
    else {
        panic!("no verdict: {fx:?}");
    };
    assert_eq!(case_id, "TC-APP-001");
    assert_eq!(*verdict, testdeck_exec::record::Verdict::Pass);
    assert_eq!(note.as_deref(), Some("steps checked 2/3 (not: 1)"));
    // the frame after the Enter, before the record is read again: the catalog
    // row and the record's row in Runs show the verdict
    let s = text(&app);
    assert!(s.contains("✓ TC-APP-001"), "{s}");
    assert!(
        s.contains("Your verdict · 2 of 2"),
        "the second prompt: {s}"
    );
    assert!(
        handle
            .judge(case_id, *verdict, note.clone())
            .expect("write"),
        "the record has the case"
    );
    // the second: Esc leaves it not-run; the Runs row shows one pass
    app.key(KeyCode::Esc);
    assert!(app.layers().overlay().is_none());
    app.keys("3");
    let s = text(&app);
    let newest = s.lines().nth(2).unwrap_or_default();
    assert!(
        newest.contains("✓ ") && newest.contains("1✓") && newest.contains("1·"),
        "{s}"
    );
    // catalog details: the case's last verdicts, this one by a person
    app.keys("2");
    select_catalog(&mut app, "TC-APP-001");
    let v = testdeck_exec::record::last_verdicts(app.runs().readable(), "TC-APP-001", 5);
    assert_eq!(
        v.first().map(|p| (p.verdict, p.by_person)),
        Some((*verdict, true))
    );
    let s = text(&app);
    assert!(
        s.contains("verdict    ✓ pass"),
        "the latest verdict near the top: {s}"
    );
    assert!(s.contains("by a person"), "{s}");
    snapshots(&mut app, "catalog_last_verdicts");
}
