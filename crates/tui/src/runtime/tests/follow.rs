//! Reading and following one run folder: what the live pane shows of it.

use super::*;

#[test]
fn a_finished_run_is_read_to_its_unterminated_last_line() {
    let text =
        lines("s", 1..=2) + "{\"type\":\"step\",\"name\":\"last\"}\n{\"name\":\"no-newline\"}";
    let (ws, dir) = run_with(&text);
    std::fs::write(dir.join(testdeck_core::workspace::run_folder::META), META).expect("meta");
    let data = load_run(ws.path(), REL);
    assert!(!data.in_progress);
    assert!(data.follower.is_none(), "a finished run is not followed");
    assert_eq!(names(&data.events), ["s1", "s2", "last", "no-newline"]);
}

/// Opening a run whose `meta.json` is still being written: in progress and
/// followed (it was taken as finished once the file merely existed).
#[test]
fn a_run_opened_with_a_half_written_meta_json_is_in_progress() {
    let (ws, dir) = run_with(&lines("s", 1..=2));
    std::fs::write(
        dir.join(testdeck_core::workspace::run_folder::META),
        &META[..20],
    )
    .expect("meta");
    let data = load_run(ws.path(), REL);
    assert!(data.in_progress, "a half-written meta.json is not the end");
    assert!(
        data.follower.is_some(),
        "it is followed until meta.json reads"
    );
    assert_eq!(names(&data.events), ["s1", "s2"]);
}

#[test]
fn broken_lines_are_problems_with_their_line_number() {
    let text = line("a") + "\nnot json\n" + &line("b");
    let (ws, _dir) = run_with(&text);
    let data = load_run(ws.path(), REL);
    // the blank line 2 counts; the broken line is shown as its raw text
    assert_eq!(data.events.len(), 3);
    assert_eq!(data.problems.len(), 1, "{:?}", data.problems);
    assert!(
        data.problems[0].starts_with("line 3: "),
        "{:?}",
        data.problems
    );
}

#[test]
fn an_in_progress_run_hides_its_partial_line_until_it_is_completed() {
    let (ws, dir) = run_with(&(lines("s", 1..=3) + "{\"type\":\"step\",\"na"));
    let (mut app, follower) = app_showing(ws.path());
    assert_eq!(shown(&app), ["s1", "s2", "s3"]);
    let follower = follower.expect("an in-progress run is followed");
    let (rx, _stop, t) = follow_on_thread(follower, &dir);
    // a writer finishes the line, appends more, then ends the run
    let wdir = dir.clone();
    let writer = std::thread::spawn(move || {
        append(&wdir, "me\":\"s4\",\"status\":\"ok\"}\n");
        for i in 5..=40 {
            append(&wdir, &line(&format!("s{i}")));
            if i % 8 == 0 {
                std::thread::sleep(Duration::from_millis(30));
            }
        }
        // the last line never gets its newline: it shows when the run ends
        append(&wdir, "{\"type\":\"run\",\"name\":\"end\"}");
        std::thread::sleep(Duration::from_millis(50));
        std::fs::write(wdir.join(testdeck_core::workspace::run_folder::META), META).expect("meta");
    });
    let seen = drain_until_finished(&mut app, &rx);
    writer.join().expect("writer");
    joined(t);
    assert!(seen.iter().all(|s| !s.0), "no reset: {seen:?}");
    let mut want: Vec<String> = (1..=40).map(|i| format!("s{i}")).collect();
    want.push("end".into());
    // exactly once and in order, across load and follow
    assert_eq!(shown(&app), want);
    let last = seen.last().expect("appends");
    assert!(last.1.contains(&"end".to_owned()), "{seen:?}");
    assert!(!app.live().run().expect("run").in_progress);
}

/// meta.json is seen the moment it is created, before its content: the run
/// ends only once it reads as JSON (then the index finds its status), or when
/// it stays broken for `META_SETTLE`.
#[test]
fn the_run_ends_when_meta_json_reads_not_when_it_appears() {
    let (ws, dir) = run_with(&lines("s", 1..=2));
    let (mut app, follower) = app_showing(ws.path());
    let (rx, _stop, t) = follow_on_thread(follower.expect("followed"), &dir);
    // half a meta.json, then a line: the line comes in a batch that does
    // not end the run
    std::fs::write(
        dir.join(testdeck_core::workspace::run_folder::META),
        &META[..20],
    )
    .expect("meta");
    append(&dir, &line("after-half-meta"));
    loop {
        let a = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the line after the half meta.json");
        let (_, (_, events, finished)) = taken(&mut app, a);
        assert!(!finished, "ended on a meta.json still being written");
        if events.iter().any(|e| e == "after-half-meta") {
            break;
        }
    }
    std::fs::write(dir.join(testdeck_core::workspace::run_folder::META), META).expect("meta");
    let seen = drain_until_finished(&mut app, &rx);
    joined(t);
    assert!(seen.last().is_some_and(|s| s.2));
    assert_eq!(shown(&app), ["s1", "s2", "after-half-meta"]);

    // a meta.json left broken still ends the run, after a moment
    let (ws, dir) = run_with(&lines("b", 1..=1));
    let (mut app, follower) = app_showing(ws.path());
    let (rx, _stop, t) = follow_on_thread(follower.expect("followed"), &dir);
    std::fs::write(
        dir.join(testdeck_core::workspace::run_folder::META),
        "{broken",
    )
    .expect("meta");
    drain_until_finished(&mut app, &rx);
    joined(t);
    assert!(!app.live().run().expect("run").in_progress);
}

/// Apply the follow task's actions to the app until it shows `want`.
fn wait_shown(app: &mut App, rx: &mpsc::Receiver<Action>, want: &[&str]) -> Vec<bool> {
    let mut resets = Vec::new();
    while shown(app) != want {
        let a = rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("never shown {want:?}; shown {:?}", shown(app)));
        resets.push(taken(app, a).1.0);
    }
    resets
}

/// Wait for the thread to end, failing (not hanging) when it does not.
fn joined(t: std::thread::JoinHandle<()>) {
    let start = std::time::Instant::now();
    while !t.is_finished() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the follow task did not stop"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    t.join().expect("follow task");
}

#[test]
fn a_replacement_by_rename_shows_the_new_file_only() {
    let (ws, dir) = run_with(&lines("old", 1..=3));
    let (mut app, follower) = app_showing(ws.path());
    let (rx, _stop, t) = follow_on_thread(follower.expect("followed"), &dir);
    // this thread writes while the follow task reads on its own
    append(&dir, &lines("old", 4..=5));
    let resets = wait_shown(&mut app, &rx, &["old1", "old2", "old3", "old4", "old5"]);
    assert!(resets.iter().all(|r| !r), "{resets:?}");
    // the atomic-write pattern: a new file renamed over the timeline
    let tmp = dir.join("timeline.jsonl.tmp");
    std::fs::write(&tmp, lines("new", 1..=3)).expect("tmp");
    std::fs::rename(
        &tmp,
        dir.join(testdeck_core::workspace::run_folder::TIMELINE),
    )
    .expect("rename");
    let resets = wait_shown(&mut app, &rx, &["new1", "new2", "new3"]);
    assert_eq!(resets.first(), Some(&true), "{resets:?}");
    append(&dir, &line("new4"));
    wait_shown(&mut app, &rx, &["new1", "new2", "new3", "new4"]);
    // rewritten in place at the same size: only the first line tells
    std::fs::write(
        dir.join(testdeck_core::workspace::run_folder::TIMELINE),
        lines("neW", 1..=4),
    )
    .expect("rewrite");
    let resets = wait_shown(&mut app, &rx, &["neW1", "neW2", "neW3", "neW4"]);
    assert_eq!(resets.first(), Some(&true), "{resets:?}");
    append(&dir, &line("neW5"));
    std::fs::write(dir.join(testdeck_core::workspace::run_folder::META), META).expect("meta");
    let seen = drain_until_finished(&mut app, &rx);
    joined(t);
    assert!(seen.iter().all(|s| !s.0), "{seen:?}");
    assert_eq!(shown(&app), ["neW1", "neW2", "neW3", "neW4", "neW5"]);
}

#[test]
fn stop_ends_the_follow_task_and_it_sends_nothing_more() {
    let (ws, dir) = run_with(&lines("s", 1..=2));
    let (_app, follower) = app_showing(ws.path());
    let follower = follower.expect("followed");
    let (rx, stop, t) = follow_on_thread(follower, &dir);
    drop(Following { stop });
    joined(t);
    append(&dir, &line("late"));
    assert!(rx.try_recv().is_err(), "an action after the stop");
}

#[test]
fn a_huge_timeline_keeps_its_last_events_and_says_how_many_were_not_loaded() {
    let (ws, dir) = run_with(&lines("e", 1..=250));
    std::fs::write(dir.join(testdeck_core::workspace::run_folder::META), META).expect("meta");
    let data = load_run_capped(ws.path(), REL, 100);
    assert_eq!(data.events.len(), 100);
    assert_eq!(data.events.front().map(|e| e.name.as_str()), Some("e151"));
    assert_eq!(data.events.back().map(|e| e.name.as_str()), Some("e250"));
    assert_eq!(data.skipped, 150);
    let notes = data.problem_lines();
    assert!(
        notes[0].contains("150 earlier lines not loaded"),
        "{notes:?}"
    );
    // the live pane keeps the same bound while it follows
    let (ws, dir) = run_with(&lines("e", 1..=5));
    let (mut app, follower) = app_showing(ws.path());
    app.live_mut().set_cap(8);
    let (rx, _stop, t) = follow_on_thread(follower.expect("followed"), &dir);
    append(&dir, &lines("e", 6..=20));
    std::fs::write(dir.join(testdeck_core::workspace::run_folder::META), META).expect("meta");
    drain_until_finished(&mut app, &rx);
    joined(t);
    let want: Vec<String> = (13..=20).map(|i| format!("e{i}")).collect();
    assert_eq!(shown(&app), want);
    assert_eq!(app.live().run().expect("run").skipped, 12);
}
