use super::*;

#[test]
fn editors_temporary_files_are_told() {
    for t in [
        "src/.utils.ts.swp",
        "src/.utils.ts.swx",
        "src/sedXYZ12a",
        "src/sedsEaFd8",
        "4913",
        "src/utils.ts~",
        "src/#utils.ts#",
        "src/.#utils.ts",
        "src/utils.ts___jb_tmp___",
    ] {
        assert!(is_editor_temp(t), "{t}");
    }
    for f in [
        "src/utils.ts",
        "src/sed.ts",
        "src/seder.ts",
        "src/a.test.ts",
        ".env",
    ] {
        assert!(!is_editor_temp(f), "{f}");
    }
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// A new run is handed on at once with what was pending; the writes
/// after it wait for their burst's end again.
#[test]
fn a_new_run_does_not_wait_for_the_burst_to_end() {
    let t0 = Instant::now();
    let mut d = Debouncer::new(ms(80), ms(400));
    d.push(PathBuf::from("a"), t0);
    assert!(d.take_due(t0 + ms(10)).is_none());
    d.push_urgent(PathBuf::from("run"), t0 + ms(20));
    assert_eq!(
        d.take_due(t0 + ms(20)),
        Some(vec![PathBuf::from("a"), PathBuf::from("run")])
    );
    d.push(PathBuf::from("run/timeline.jsonl"), t0 + ms(30));
    assert!(d.take_due(t0 + ms(40)).is_none());
    assert!(d.take_due(t0 + ms(110)).is_some());
    let root = Path::new("/ws");
    let run = "/ws/tests/logs/shop/backend/cart/add/20260310-120000-000";
    assert!(new_run(root, Path::new(run)));
    assert!(new_run(root, &Path::new(run).join("timeline.jsonl")));
    assert!(!new_run(root, &Path::new(run).join("meta.json")));
    assert!(!new_run(
        root,
        Path::new("/ws/tests/shop/20260310-120000-000")
    ));
}

#[test]
fn one_burst_one_trigger() {
    let t0 = Instant::now();
    let mut d = Debouncer::new(ms(300), ms(3000));
    assert!(d.take_due(t0).is_none() && d.deadline().is_none());
    for i in 0..5 {
        d.push(PathBuf::from(format!("f{}", i % 2)), t0 + ms(i * 100));
    }
    // quiet 300 ms after the last save (at 400 ms)
    assert_eq!(d.deadline(), Some(t0 + ms(700)));
    // a loop waits until the burst ends, and at most its tick
    assert_eq!(d.wait(t0 + ms(650), ms(100)), ms(50));
    assert_eq!(d.wait(t0 + ms(400), ms(100)), ms(100));
    assert_eq!(d.wait(t0 + ms(800), ms(100)), ms(0));
    assert!(d.take_due(t0 + ms(699)).is_none());
    let paths = d.take_due(t0 + ms(700)).expect("due");
    assert_eq!(paths, [PathBuf::from("f0"), PathBuf::from("f1")]);
    assert!(d.is_idle() && d.take_due(t0 + ms(5000)).is_none());
}

#[test]
fn an_endless_burst_triggers_at_max_wait() {
    let t0 = Instant::now();
    let mut d = Debouncer::new(ms(300), ms(1000));
    for i in 0..20 {
        d.push(PathBuf::from("f"), t0 + ms(i * 100));
    }
    assert_eq!(d.deadline(), Some(t0 + ms(1000)));
    assert!(d.take_due(t0 + ms(1000)).is_some());
    // the next burst starts its own clock
    d.push(PathBuf::from("g"), t0 + ms(2000));
    assert_eq!(d.deadline(), Some(t0 + ms(2300)));
}

/// Leading: a lone save is due as soon as it is seen; what follows within
/// the quiet period waits for its burst's end, handed on once; after a
/// quiet spell the next save is due at once again.
#[test]
fn leading_a_lone_save_is_due_at_once_and_a_burst_after_it_waits() {
    let t0 = Instant::now();
    let mut d = Debouncer::leading(ms(300), ms(3000));
    assert!(d.deadline().is_none());
    d.push(PathBuf::from("src/leaf.ts"), t0);
    assert_eq!(d.deadline(), Some(t0));
    assert_eq!(d.wait(t0, ms(100)), ms(0));
    assert_eq!(d.take_due(t0), Some(vec![PathBuf::from("src/leaf.ts")]));
    // the burst's next saves, 100 ms apart: one hand-over 300 ms after the last
    for i in 1..4 {
        d.push(PathBuf::from(format!("f{i}")), t0 + ms(i * 100));
    }
    assert_eq!(d.deadline(), Some(t0 + ms(600)));
    assert!(d.take_due(t0 + ms(599)).is_none());
    assert_eq!(d.take_due(t0 + ms(600)).expect("due").len(), 3);
    // a save 200 ms after that hand-over still belongs to the burst
    d.push(PathBuf::from("g"), t0 + ms(800));
    assert_eq!(d.deadline(), Some(t0 + ms(1100)));
    assert!(d.take_due(t0 + ms(1100)).is_some());
    // a quiet spell, then a lone save: due at once
    d.push(PathBuf::from("h"), t0 + ms(1500));
    assert_eq!(d.deadline(), Some(t0 + ms(1500)));
    // a trailing debouncer would wait for the quiet period
    let mut t = Debouncer::new(ms(300), ms(3000));
    t.push(PathBuf::from("src/leaf.ts"), t0);
    assert_eq!(t.deadline(), Some(t0 + ms(300)));
}

#[test]
fn the_budget_is_a_small_share_of_the_limit() {
    if std::env::var_os(BUDGET_ENV).is_none() {
        let b = budget();
        assert!((1..=BUDGET_CAP).contains(&b));
        if let Some(l) = user_limit() {
            assert!(b <= l / BUDGET_SHARE);
        }
    }
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

/// Batches until one holds `want` (or a change of a folder above it), within
/// 10 s; the problems met on the way.
fn until(rx: &Receiver<Arc<Batch>>, want: &Change, problems: &mut Vec<Problem>) {
    let end = Instant::now() + Duration::from_secs(10);
    let covers = |c: &Change| match (c, want) {
        (Change::Logs(a), Change::Logs(b)) | (Change::Tests(a), Change::Tests(b)) => {
            Path::new(b).starts_with(a)
        }
        _ => c == want,
    };
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        let Ok(b) = rx.recv_timeout(left) else { break };
        problems.extend(b.problems.iter().cloned());
        if b.changes.iter().any(covers) {
            return;
        }
    }
    panic!("no batch with {want:?}");
}

fn ready(w: &WorkspaceWatcher) {
    let end = Instant::now() + Duration::from_secs(10);
    while !w.ready() {
        assert!(Instant::now() < end, "the watcher is not set up");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn past_the_budget_a_new_run_is_polled_and_said_once() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path().canonicalize().expect("real");
    let case = "tests/logs/shop/backend/cart/add";
    write(&root, "tests/shop/backend/cart/add.test.ts", "");
    write(
        &root,
        &format!("{case}/20260310-120000-000/meta.json"),
        "{}",
    );
    assert_eq!(instances(&root), 0);
    // the root, tests/ and its shop tree, the logs' root and domain: no more
    let (w, rx) = WorkspaceWatcher::start_within(&root, 6);
    assert_eq!(instances(&root), 1);
    ready(&w);
    let run = format!("{case}/20260311-120000-000");
    let mut problems = Vec::new();
    write(&root, &format!("{run}/timeline.jsonl"), "{}\n");
    until(&rx, &Change::Logs(run.clone()), &mut problems);
    // the live run polled past the budget: its end is seen too
    write(&root, &format!("{run}/meta.json"), "{}");
    until(&rx, &Change::Logs(run.clone()), &mut problems);
    let said: Vec<&Problem> = problems
        .iter()
        .filter(|p| p.rule == "watch-budget")
        .collect();
    assert_eq!(said.len(), 1, "{problems:?}");
    assert!(said[0].message.contains("polled"), "{}", said[0].message);
    drop(w);
    assert_eq!(instances(&root), 0);
}

#[test]
fn within_the_budget_nothing_is_polled_or_said() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path().canonicalize().expect("real");
    write(&root, "tests/shop/backend/cart/add.test.ts", "");
    std::fs::create_dir_all(root.join("tests/logs/shop")).expect("mkdir");
    let (w, rx) = WorkspaceWatcher::start_within(&root, 100);
    ready(&w);
    let run = "tests/logs/shop/backend/cart/add/20260311-120000-000";
    let mut problems = Vec::new();
    write(&root, &format!("{run}/timeline.jsonl"), "{}\n");
    until(&rx, &Change::Logs(run.into()), &mut problems);
    let file = "tests/shop/backend/cart/new.test.ts";
    write(&root, file, "");
    until(&rx, &Change::Tests(file.into()), &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
}
