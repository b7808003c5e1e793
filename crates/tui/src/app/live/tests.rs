#[test]
fn data_prints_multi_line_strings_as_indented_blocks() {
    let v = serde_json::json!({
        "error": {
            "message": "Error: a1\n\n\u{1b}[2mexpect(\u{1b}[22mlocator\nCall log:\n  - waiting\n",
            "line": 3
        },
        "tags": ["a\u{7}b"],
        "empty": {}
    });
    assert_eq!(
        super::pretty_lines(&v),
        [
            "{",
            "  \"error\": {",
            "    \"message\":",
            "        Error: a1",
            "",
            "        \u{1b}[2mexpect(\u{1b}[22mlocator",
            "        Call log:",
            "          - waiting",
            "    \"line\": 3",
            "  },",
            "  \"tags\": [",
            "    \"a\\u0007b\"",
            "  ],",
            "  \"empty\": {}",
            "}",
        ]
    );
}
use super::super::test_support::app;
use super::*;
use crate::action::Action;

/// 1M lines stream into a followed run through the runtime's follow path (a
/// real follow task on its own thread, a real file): what waits for the app
/// and what the pane keeps stay bounded by the window, and the pane ends with
/// the file's last lines and the count of the others.
#[test]
fn the_live_pane_stays_bounded_while_1m_lines_stream() {
    use std::fmt::Write as _;
    use std::io::Write as _;
    use std::sync::atomic::AtomicBool;
    use testdeck_core::tail::live_run::{MAX_TIMELINE_EVENTS, load_run};
    const REL: &str = "tests/logs/kb/backend/search/basic/kb-search-empty/20260310-120000-000";
    const LINES: usize = 1_000_000;
    let ws = tempfile::tempdir().expect("tmp");
    let dir = ws.path().join(REL);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let timeline = dir.join(testdeck_core::workspace::run_folder::TIMELINE);
    std::fs::write(&timeline, "{\"type\":\"step\",\"name\":\"s0\"}\n").expect("write");
    let mut a = app();
    a.live.wanted = Some(RunRef::Folder(REL.into()));
    let fx = a.update(Action::RunLoaded(Box::new(load_run(ws.path(), REL))));
    let follower = fx
        .into_iter()
        .find_map(|e| match e {
            Effect::Follow { follower, .. } => follower,
            _ => None,
        })
        .expect("an in-progress run is followed");
    let (tx, rx) = std::sync::mpsc::channel();
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let fstop = stop.clone();
    // the run store alone, polled (no watcher here)
    let run = testdeck_core::tail::store::RunStore::new(std::time::Duration::from_millis(20))
        .follow_from(&dir, Some(*follower));
    let task = std::thread::spawn(move || {
        let send = move |act: Action| {
            let _ = tx.send(act);
        };
        crate::runtime::follow_queued(&run, &fstop, REL, &send);
    });
    // the writer: 1M lines in chunks, then meta.json (the end of the run)
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&timeline)
        .expect("open");
    let mut chunk = String::new();
    for i in 1..=LINES {
        let _ = writeln!(chunk, "{{\"type\":\"step\",\"name\":\"s{i}\"}}");
        if i % 10_000 == 0 {
            f.write_all(chunk.as_bytes()).expect("append");
            chunk.clear();
        }
    }
    drop(f);
    std::fs::write(
        dir.join(testdeck_core::workspace::run_folder::META),
        r#"{"schemaVersion":4,"runId":"20260310-120000-000","status":"passed"}"#,
    )
    .expect("meta");
    // the follow task reads all of it without waiting for the app
    let start = std::time::Instant::now();
    while !task.is_finished() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(300),
            "the follow task never finished"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    task.join().expect("follow task");
    // what waits for the app: at most the window, however much was read
    let mut waiting = 0;
    let pending: Vec<Action> = rx.try_iter().collect();
    for act in &pending {
        if let Action::FollowQueued(_, q) = act {
            waiting += q.0.lock().map_or(0, |q| q.pending());
        }
    }
    assert!(
        waiting <= MAX_TIMELINE_EVENTS,
        "{waiting} events wait for the app ({} messages)",
        pending.len()
    );
    for act in pending {
        a.update(act);
        let run = a.live.run.as_ref().expect("run");
        assert!(run.events.len() <= a.live.cap);
        assert!(a.live.visible_len() <= a.live.cap);
    }
    let run = a.live.run.as_ref().expect("run");
    assert!(!run.in_progress);
    assert_eq!(run.events.len(), MAX_TIMELINE_EVENTS);
    let want = format!("s{LINES}");
    assert_eq!(
        run.events.back().map(|e| e.name.as_str()),
        Some(want.as_str())
    );
    assert_eq!(run.skipped as usize, LINES + 1 - MAX_TIMELINE_EVENTS);
    assert_eq!(a.live.visible_len(), MAX_TIMELINE_EVENTS);
    let bytes: usize = run
        .events
        .iter()
        .map(|e| e.name.len() + e.kind.len() + std::mem::size_of::<TimelineEvent>())
        .sum();
    assert!(bytes < 64 << 20, "{bytes} bytes kept");
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
}
