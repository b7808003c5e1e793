//! A launch and a followed run reaching the tree, the statistics and the live pane.

use super::*;
use crate::feature_work::FeatureResult;

pub(super) const CASE: &str = "shop/backend/cart/add";
pub(super) const CASE_RUN: &str = "tests/logs/shop/backend/cart/add/20260401-120000-000";

/// A workspace with the case `CASE` and a runner script, `runner.sh`, that
/// does `script` in the root.
pub(super) fn workspace_with_runner(script: &str) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().expect("tmp");
    let root = d.path().canonicalize().expect("real");
    let write = |rel: &str, text: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    };
    write("tests/shop/backend/cart/add.test.ts", "// the case\n");
    write("doc/test-plan/shop.md", "| add | adds to the cart |\n");
    write(
        "testdeck.toml",
        "[runner]\ncommand = [\"sh\", \"runner.sh\"]\n",
    );
    write("runner.sh", script);
    (d, root)
}

/// Issue 30: a launch's end is no full load of the workspace. The runtime
/// as it runs (its index, the one watcher, a real launch of a runner that
/// writes a failed run with an artifact): once the launch is done the tree
/// shows the case failed, the statistics and the Runs tab count the run,
/// the live pane shows its artifact — and the workspace was loaded whole
/// once, at the start.
#[test]
fn a_launch_s_end_reaches_the_tree_stats_runs_and_artifacts_without_a_full_load() {
    let (_d, root) = workspace_with_runner(&format!(
        "d={CASE_RUN}\n\
         mkdir -p $d/artifacts\n\
         printf '{{\"type\":\"step\",\"name\":\"first-step\",\"status\":\"ok\"}}\\n' >> $d/timeline.jsonl\n\
         printf 'not really a png' > $d/artifacts/shot.png\n\
         printf '{{\"schemaVersion\":4,\"items\":[{{\"id\":\"shot\",\"kind\":\"screenshot\",\"path\":\"artifacts/shot.png\",\"refs\":{{}}}}]}}' > $d/artifacts.json\n\
         printf '{{\"schemaVersion\":4,\"runId\":\"20260401-120000-000\",\"caseId\":\"add\",\"scope\":\"shop/backend/cart\",\"status\":\"failed\"}}' > $d/meta.json\n"
    ));
    let mut c = Cockpit::open(&root);
    assert_eq!(full_loads(&root), 1, "the first index");
    assert!(c.app.jump_to(CASE), "no case {CASE}");
    assert_eq!(c.app.shared().selected_case().map(|r| r.latest), Some(None));
    c.launch_selected();
    c.until("the launch done", |a| {
        a.launch().running() == 0
            && a.notice()
                .as_deref()
                .is_some_and(|n| n.starts_with("launch done"))
    });
    let failed = Some(testdeck_core::workspace::logs::RunStatus::Failed);
    c.until(
        "the case failed, its run counted and its artifact shown",
        |a| {
            let case = a.tests().cases().iter().find(|r| r.key == CASE);
            let counted = a
                .tests()
                .stats()
                .get(CASE)
                .is_some_and(|s| s.historical.failed_runs == 1);
            let listed = a.domain().ws().is_some_and(|ws| {
                a.runs().visible().iter().any(|r| {
                matches!(r, crate::app::RunRow::Tests(i) if ws.logs.runs[*i].path == CASE_RUN)
            })
            });
            let shown = a
                .live()
                .run()
                .is_some_and(|r| r.path == CASE_RUN && !r.in_progress && r.artifacts.len() == 1);
            case.is_some_and(|r| r.latest == failed && r.runs == 1) && counted && listed && shown
        },
    );
    // the tree's row says it too
    assert_eq!(
        c.app.shared().selected_case().map(|r| r.latest),
        Some(failed)
    );
    assert_eq!(full_loads(&root), 1, "a full load after the launch");
}

/// Issue 30, one pipe per run: a launch's run reaches the live pane through
/// the follow of its folder only, as a run another process started does.
/// A real launch of a runner that writes its timeline over time: the pane
/// shows every event, in order, among the launch's own rows (the case's
/// start and end, the runner's line); the app took them from a follow
/// queue, and none entered the launch's queue.
#[test]
fn a_launch_s_run_reaches_the_live_pane_through_the_follow_path_only() {
    let (_d, root) = workspace_with_runner(&format!(
        "d={CASE_RUN}\n\
         echo runner-says-hi\n\
         mkdir -p $d\n\
         for i in 1 2 3 4 5; do\n\
           printf '{{\"type\":\"step\",\"name\":\"step-%s\",\"status\":\"ok\"}}\\n' $i >> $d/timeline.jsonl\n\
           sleep 0.1\n\
         done\n\
         printf '{{\"schemaVersion\":4,\"runId\":\"20260401-120000-000\",\"caseId\":\"add\",\"scope\":\"shop/backend/cart\",\"status\":\"passed\"}}' > $d/meta.json\n"
    ));
    let mut c = Cockpit::open(&root);
    assert!(c.app.jump_to(CASE), "no case {CASE}");
    c.launch_selected();
    let want: Vec<String> = (1..=5).map(|i| format!("step-{i}")).collect();
    let steps = |a: &App| -> Vec<String> {
        a.live()
            .run()
            .filter(|r| r.path == CASE_RUN)
            .map(|r| {
                r.events
                    .iter()
                    .filter(|e| e.kind == "step")
                    .map(|e| e.name.clone())
                    .collect()
            })
            .unwrap_or_default()
    };
    c.until("every step of the launch's run shown", |a| steps(a) == want);
    let (followed, launched) = c.timeline_ways();
    assert!(followed >= 5, "{followed} events came through a follow");
    assert_eq!(launched, 0, "timeline events entered a launch queue");
    c.until("the launch done", |a| {
        a.launch().running() == 0
            && a.notice()
                .as_deref()
                .is_some_and(|n| n.starts_with("launch done"))
    });
    // the launch's own rows around its run's events, each once, in order
    let rows: Vec<String> = c
        .app
        .live()
        .run()
        .expect("the launch's run shown")
        .events
        .iter()
        .map(|e| format!("{} {} {}", e.kind, e.name, e.message))
        .collect();
    let at = |p: &str| {
        let hits: Vec<usize> = (0..rows.len())
            .filter(|&i| rows[i].starts_with(p))
            .collect();
        assert_eq!(hits.len(), 1, "{p:?} in {rows:#?}");
        hits[0]
    };
    at("out  runner-says-hi");
    let start = at(&format!("run start {CASE}"));
    let first = at("step step-1");
    let last = at("step step-5");
    let end = at("run end pass");
    assert!(start < first && first < last && last < end, "{rows:#?}");
    assert_eq!(steps(&c.app), want);
    let (_, launched) = c.timeline_ways();
    assert_eq!(launched, 0, "timeline events entered a launch queue");
}

/// Issue 30: a run another process writes, followed live, ends without a
/// full load: the watch applies its end (the tree, the statistics) and the
/// live pane reads it again once the index has it ended (its artifact).
#[test]
fn a_followed_run_s_end_reaches_the_tree_and_its_artifacts_without_a_full_load() {
    let (_d, root) = workspace_with_runner("exit 0\n");
    let mut c = Cockpit::open(&root);
    // each file appears whole (written aside, then renamed), as a runner
    // finishing a run writes them: what is checked here is that the end
    // reaches the panes, not how a half-written meta.json is read
    let write = |rel: &str, text: &str| {
        let p = root.join(CASE_RUN).join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        let aside = p.with_extension("part");
        std::fs::write(&aside, text).expect("write");
        std::fs::rename(&aside, &p).expect("rename");
    };
    write("timeline.jsonl", &line("external-step"));
    // nothing else live: the selection goes to the new run, followed
    c.until("the new run followed", |a| {
        a.live()
            .run()
            .is_some_and(|r| r.path == CASE_RUN && r.in_progress && r.events.len() == 1)
    });
    write("artifacts/shot.png", "not really a png");
    write(
        "artifacts.json",
        r#"{"schemaVersion":4,"items":[{"id":"shot","kind":"screenshot","path":"artifacts/shot.png","refs":{}}]}"#,
    );
    write(
        "meta.json",
        r#"{"schemaVersion":4,"runId":"20260401-120000-000","status":"passed"}"#,
    );
    let passed = Some(testdeck_core::workspace::logs::RunStatus::Passed);
    c.until("the case passed and the run's artifact shown", |a| {
        let case = a.tests().cases().iter().find(|r| r.key == CASE);
        let counted = a
            .tests()
            .stats()
            .get(CASE)
            .is_some_and(|s| s.historical.passed_runs == 1);
        let shown = a
            .live()
            .run()
            .is_some_and(|r| r.path == CASE_RUN && !r.in_progress && r.artifacts.len() == 1);
        case.is_some_and(|r| r.latest == passed) && counted && shown
    });
    assert_eq!(full_loads(&root), 1, "a full load after the run ended");
}

#[test]
fn watch_mode_subscribes_to_the_one_workspace_watcher() {
    use testdeck_core::workspace::watch::instances;
    use testdeck_exec::watch_mode::{WatchEvent, WatchNote, WatchOptions};
    let ws = tempfile::tempdir().expect("tmp");
    let root = ws.path().canonicalize().expect("real");
    let file = root.join("tests/ai/backend/s/case-a.test.ts");
    std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
    std::fs::write(&file, "// case\n").expect("write");
    let (tx, rx) = mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    let send: ActionSink = Arc::new(move |a| {
        let _ = tx.lock().map(|t| t.send(a));
    });
    let mut rt = Runtime::new(root.clone(), send);
    rt.start_watching();
    // `w` on: watch mode's job
    let opts = WatchOptions {
        targets: vec!["ai/backend/s/case-a".into()],
        ..WatchOptions::default()
    };
    rt.apply(Effect::Work(FeatureWork::Watch(1, Some(Box::new(opts)))));
    let note = |want: &dyn Fn(&WatchNote) -> bool| loop {
        let a = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("a watch event");
        let Action::WorkDone(d) = a else { continue };
        match *d {
            FeatureResult::Watch { event, .. } => {
                if matches!(*event, WatchEvent::Note(ref n) if want(n)) {
                    return;
                }
            }
            FeatureResult::WatchEnded { error, .. } => panic!("watch ended: {error:?}"),
            _ => {}
        }
    };
    note(&|n| matches!(n, WatchNote::WatchStart { .. }));
    assert_eq!(
        instances(&root),
        1,
        "one watcher for the model and watch mode"
    );
    // a save reaches watch mode through the one watcher
    std::fs::write(&file, "// saved\n").expect("save");
    note(&|n| matches!(n, WatchNote::WatchTrigger { .. }));
    assert_eq!(instances(&root), 1);
    rt.stop();
    drop(rt);
    assert_eq!(instances(&root), 0);
}
