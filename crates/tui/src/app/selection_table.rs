//! The table test of issue 27: every tab × every way the selection or the run
//! changes (cursor move, tab switch, launch start, launch end, an external run
//! appearing, a reload), and after each the details' subject, the timeline's
//! case and the artifacts' run are the same. The demo, driven as the runtime
//! drives the App (run folders, reloads, a launch's runs and records read at once).

use super::live::RunRef;
use super::test_support::app;
use super::{App, Effect, RunRow, Tab};
use crate::action::{Action, Command};
use std::path::Path;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::changes::{Change, Reader};

/// The case the details pane shows (a case selected: its id; a folder, a
/// category or a run record: none).
fn subject(a: &App) -> Option<String> {
    match a.tab {
        Tab::Tests => a.shared().selected_case().map(|c| c.case_id.clone()),
        Tab::Catalog => a.shared().selected_catalog_case().map(|c| c.id.clone()),
        Tab::Runs => a
            .shared()
            .selected_run()
            .and_then(|r| r.path.rsplit('/').nth(1).map(str::to_owned)),
    }
}

/// The path of the run the timeline asked for.
fn wanted_path(w: &RunRef) -> &str {
    match w {
        RunRef::Folder(p) | RunRef::Record(p) | RunRef::Case(p, _) | RunRef::Launch(p) => p,
    }
}

/// The three panes agree: the timeline shows the subject's run (its case), and
/// the artifacts list is that run's.
fn check(a: &App, step: &str) {
    let what = format!("{step} ({:?}, subject {:?})", a.tab, subject(a));
    let want = super::selection::wanted_run(&a.shared());
    let shown = a.live.case_shown();
    // a launch that started and has no case yet: the pane is empty, waiting
    let waiting = matches!(a.live.wanted(), Some(RunRef::Launch(id)) if id.is_empty());
    match (&want, subject(a)) {
        _ if waiting => assert!(a.live.run().is_none(), "old rows while waiting: {what}"),
        (Some(_), Some(s)) => {
            assert_eq!(shown.as_deref(), Some(s.as_str()), "timeline case: {what}");
        }
        (None, Some(s)) => assert!(
            shown.is_none() || shown.as_deref() == Some(s.as_str()),
            "a case without a run shows another's ({shown:?}): {what}"
        ),
        _ => {}
    }
    if let (Some(w), Some(run)) = (a.live.wanted(), a.live.run()) {
        if !matches!(w, RunRef::Launch(_)) {
            assert_eq!(run.path, wanted_path(w), "timeline run: {what}");
        }
        // the artifacts pane lists the run the timeline shows
        assert_eq!(
            a.live.artifact_count(),
            run.artifacts.len(),
            "artifacts: {what}"
        );
    }
}

/// Run `fx` as the runtime would, at once.
fn settle(a: &mut App, root: &Path, fx: Vec<Effect>) {
    for e in fx {
        let more = match e {
            Effect::LoadRun(p) => {
                let data = testdeck_core::tail::live_run::load_run(root, &p);
                a.update(Action::RunLoaded(Box::new(data)))
            }
            Effect::Reload => {
                let ws = Workspace::load(root).expect("load");
                let mut more = a.update(Action::Loaded(Box::new(ws)));
                more.extend(a.update(Action::Records(crate::runtime::read_records(root))));
                more
            }
            Effect::ReadRecords => a.update(Action::Records(crate::runtime::read_records(root))),
            Effect::ReadRuns(runs) => {
                let ws = a.domain.ws().expect("ws");
                let changes = runs.into_iter().map(Change::Logs).collect();
                let updates = Reader::new(root, &ws.config).read(&changes);
                a.update(Action::Changed(updates))
            }
            _ => continue,
        };
        settle(a, root, more);
    }
}

fn cmd(a: &mut App, root: &Path, c: Command) {
    let fx = a.update(Action::Cmd(c));
    settle(a, root, fx);
}

fn exec(a: &mut App, root: &Path, ev: testdeck_exec::ExecEvent) {
    let fx = a.exec_queued(0, [ev]);
    settle(a, root, fx);
}

/// Another case of the tab than the one selected (a multi-case launch moving on).
fn other_case(a: &App) -> (String, Option<String>) {
    let ws = a.domain.ws().expect("ws");
    match a.tab {
        Tab::Catalog => {
            let cur = subject(a);
            let c = ws
                .catalog
                .as_ref()
                .and_then(|c| c.cases.iter().find(|c| Some(&c.id) != cur.as_ref()))
                .expect("a catalog case");
            (c.id.clone(), None)
        }
        Tab::Tests | Tab::Runs => {
            let cur = a.shared().selected_case().map(|c| c.key.clone());
            let c = a
                .tests
                .cases()
                .iter()
                .find(|c| !c.orphan() && Some(&c.key) != cur.as_ref())
                .expect("a case");
            let path = format!("tests/logs/{}/29991231-235959-000", c.key);
            (c.key.clone(), Some(path))
        }
    }
}

/// Each way of changing the selection or the run, applied in `tab`.
fn walk(a: &mut App, root: &Path, tab: Tab, n: &mut usize) {
    let to_tab = match tab {
        Tab::Tests => Command::TabTests,
        Tab::Catalog => Command::TabCatalog,
        Tab::Runs => Command::TabRuns,
    };
    cmd(a, root, to_tab);
    check(a, "tab switch");
    // cursor moves, onto a case (and past categories and folders)
    for _ in 0..4 {
        cmd(a, root, Command::MoveDown);
        check(a, "cursor move");
    }
    if tab == Tab::Tests {
        cmd(a, root, Command::ExpandAll);
        for _ in 0..6 {
            cmd(a, root, Command::MoveDown);
            check(a, "cursor move");
        }
    }
    // launch start: `r`, then a case of the launch starts (another than the one
    // selected: a launch of several cases moving on)
    cmd(a, root, Command::Run);
    cmd(a, root, Command::Close);
    check(a, "launch start");
    let (id, path) = other_case(a);
    exec(a, root, super::test_support::case_start(&id, path));
    check(a, "launch start (a case of it)");
    cmd(a, root, Command::MoveUp);
    check(a, "cursor move during a launch");
    cmd(a, root, Command::MoveDown);
    check(a, "cursor move during a launch");
    // launch end
    exec(
        a,
        root,
        testdeck_exec::ExecEvent::CaseEnd(testdeck_exec::ResultLine {
            id: id.clone(),
            verdict: testdeck_exec::record::Verdict::Pass,
            reason: None,
            duration_ms: 1,
            exit_code: Some(0),
            run_id: None,
            tests: None,
        }),
    );
    exec(
        a,
        root,
        testdeck_exec::ExecEvent::Summary(testdeck_exec::Summary::default()),
    );
    check(a, "launch end");
    // an external run appears (a run folder another process writes)
    *n += 1;
    let key = super::test_support::first_case(a);
    let rel = format!("tests/logs/{key}/2999010{n}-120000-000");
    let dir = root.join(&rel);
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(
        dir.join(testdeck_core::workspace::run_folder::TIMELINE),
        "{\"type\":\"step\",\"name\":\"external\"}\n",
    )
    .expect("timeline");
    let ws = a.domain.ws().expect("ws");
    let reader = Reader::new(root, &ws.config);
    let changes: std::collections::BTreeSet<Change> = [Change::Logs(rel)].into();
    let updates = reader.read(&changes);
    let fx = a.update(Action::Changed(updates));
    settle(a, root, fx);
    check(a, "external run");
    cmd(a, root, Command::JumpRun);
    check(a, "J on the external run");
    // reload
    cmd(a, root, Command::Reload);
    check(a, "reload");
}

/// An App at 140×40 on the demo written to `root`, loaded with its records.
fn demo_loaded(root: &Path) -> App {
    testdeck_core::workspace::demo::write_demo(root).expect("demo");
    let mut a = app();
    a.opts.root = root.to_path_buf();
    a.update(Action::Resize(140, 40));
    let ws = Workspace::load(root).expect("load");
    let fx = a.update(Action::Loaded(Box::new(ws)));
    settle(&mut a, root, fx);
    let fx = a.update(Action::Records(crate::runtime::read_records(root)));
    settle(&mut a, root, fx);
    a
}

#[test]
fn every_pane_shows_the_subject_s_run_whatever_changes_it() {
    let d = tempfile::tempdir().expect("tmp");
    let root = d.path();
    let mut a = demo_loaded(root);
    let mut n = 0;
    for tab in [
        Tab::Tests,
        Tab::Catalog,
        Tab::Runs,
        Tab::Catalog,
        Tab::Tests,
    ] {
        walk(&mut a, root, tab, &mut n);
    }
    // the Catalog tab on a case with a verdict shows that case's latest record
    cmd(&mut a, root, Command::TabCatalog);
    let cat = a
        .domain
        .ws()
        .and_then(|w| w.catalog.clone())
        .expect("catalog");
    assert!(a.catalog.jump_to(&cat, "TC-CLI-004"));
    let fx = a.selection_changed();
    settle(&mut a, root, fx);
    check(&a, "TC-CLI-004");
    assert!(
        matches!(a.live.wanted(), Some(RunRef::Case(_, id)) if id == "TC-CLI-004"),
        "{:?}",
        a.live.wanted()
    );
    assert!(a.live.title_id().starts_with("TC-CLI-004 · "));
    // the Runs tab's rows: each run is the timeline's
    cmd(&mut a, root, Command::TabRuns);
    for _ in 0..8 {
        cmd(&mut a, root, Command::MoveDown);
        check(&a, "Runs cursor");
        if let Some(RunRow::Tests(_)) = a.runs.selected() {
            assert!(a.live.run().is_some(), "a run row shows its run");
        }
    }
}

/// `q` while a launch runs asks first; when the launch ends meanwhile, the
/// question has no reason left and the `q` goes through (the prompt would say
/// "0 runs are live" and wait for an answer about nothing).
#[test]
fn a_quit_asked_during_a_launch_goes_through_when_the_launch_ends() {
    let d = tempfile::tempdir().expect("tmp");
    let root = d.path();
    let mut a = demo_loaded(root);
    cmd(&mut a, root, Command::ExpandAll);
    while a.shared().selected_case().is_none() {
        cmd(&mut a, root, Command::MoveDown);
    }
    let fx = a.update(Action::Cmd(Command::Run));
    assert!(
        fx.iter().any(|e| matches!(e, Effect::Launch { .. })),
        "no launch: {fx:?}"
    );
    assert_eq!(a.launch.running(), 1);
    let fx = a.update(Action::Cmd(Command::Quit));
    assert!(!fx.iter().any(|e| matches!(e, Effect::Quit)));
    assert!(matches!(
        a.layers.overlay(),
        Some(super::Overlay::Prompt(super::Prompt::QuitLive))
    ));
    // something else happening meanwhile keeps the question
    a.update(Action::Tick);
    assert!(a.layers.overlay().is_some());
    let fx = a.exec_queued(
        0,
        [testdeck_exec::ExecEvent::Summary(
            testdeck_exec::Summary::default(),
        )],
    );
    assert!(fx.iter().any(|e| matches!(e, Effect::Quit)), "{fx:?}");
    assert!(a.layers.overlay().is_none());
}
