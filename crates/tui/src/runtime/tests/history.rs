//! The history cache: a second open, a broken cache, no cache, a warm open.

use super::super::index::APPLY_AT_MOST;
use super::*;

/// A history of `CASES` cases with three finished runs each (one failed),
/// and one run in progress in the first case; every folder of it written
/// an hour ago (settled: the history cache vouches for it).
fn history_workspace() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().expect("tmp");
    let root = d.path().canonicalize().expect("real");
    for (i, case) in CASES.iter().enumerate() {
        let test = format!("tests/shop/backend/{case}.test.ts");
        write_at(&root, &test, "// a case\n");
        for day in 1..=3 {
            let status = if day == 2 && i % 2 == 0 {
                "failed"
            } else {
                "passed"
            };
            finished_run(&root, case, &format!("2026040{day}-120000-000"), status);
        }
    }
    write_at(
        &root,
        &format!(
            "tests/logs/shop/backend/{}/20260409-120000-000/timeline.jsonl",
            CASES[0]
        ),
        &line("still-going"),
    );
    testdeck_core::testkit::settle_logs(&root);
    (d, root)
}

const CASES: [&str; 4] = ["cart/add", "cart/remove", "orders/create", "orders/cancel"];

fn write_at(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

fn finished_run(root: &Path, case: &str, run: &str, status: &str) {
    let dir = format!("tests/logs/shop/backend/{case}/{run}");
    write_at(root, &format!("{dir}/timeline.jsonl"), &line("a-step"));
    write_at(
        root,
        &format!("{dir}/meta.json"),
        &format!(r#"{{"schemaVersion":4,"runId":"{run}","status":"{status}"}}"#),
    );
}

/// What the app shows of the history: each run in the model (path and
/// status), the runs the Runs tab lists, and the runs the tree's
/// statistics count (passed, failed).
fn history_shown(a: &App) -> (Vec<(String, RunStatus)>, usize, (u64, u64)) {
    let runs = a.domain().ws().map_or_else(Vec::new, |ws| {
        ws.logs
            .runs
            .iter()
            .map(|r| (r.path.clone(), r.status))
            .collect()
    });
    let listed = a
        .runs()
        .visible()
        .iter()
        .filter(|r| matches!(r, crate::app::RunRow::Tests(_)))
        .count();
    let counted = CASES.iter().fold((0, 0), |(p, f), case| {
        let key = format!("shop/backend/{case}");
        a.tests().stats().get(&key).map_or((p, f), |s| {
            (p + s.historical.passed_runs, f + s.historical.failed_runs)
        })
    });
    (runs, listed, counted)
}

/// The history a full load reads now, as [`history_shown`] says it.
fn full_history(root: &Path) -> Vec<(String, RunStatus)> {
    let ws = Workspace::load(root).expect("load");
    ws.logs
        .runs
        .iter()
        .map(|r| (r.path.clone(), r.status))
        .collect()
}

/// Wait until the history cache of `root` in `cache` loads.
fn cache_written(cache: &Path, root: &Path) {
    use testdeck_core::workspace::history_cache::HistoryCache;
    let end = std::time::Instant::now() + Duration::from_secs(30);
    while HistoryCache::load(cache, root).is_none() {
        assert!(std::time::Instant::now() < end, "no history cache written");
        std::thread::sleep(Duration::from_millis(20));
    }
}

use testdeck_core::workspace::logs::RunStatus;

/// Issue 30, the persistent index: a second open shows the whole history
/// from the history cache before a single `meta.json` is read — every open
/// of one by the runtime is held — in the model, the Runs tab and the
/// tree's statistics; what changed between the opens (a run that ended, a
/// run folder removed, a new run) is read while that is shown, and lands
/// once the reads are let go. The warm open is no full load.
#[test]
fn a_second_open_draws_the_history_from_the_cache_before_any_meta_json_is_read() {
    let (_d, root) = history_workspace();
    let cache = tempfile::tempdir().expect("cache");
    let first = {
        let c = Cockpit::open_with(&root, Some(cache.path()));
        cache_written(cache.path(), &root);
        history_shown(&c.app)
    };
    assert_eq!(first.0, full_history(&root));
    assert_eq!(first.1, 13, "{first:?}");
    assert_eq!(first.2, (10, 2));
    assert_eq!(full_loads(&root), 1);
    // between the opens: the run in progress ends, a run folder goes, a new run comes
    let going = format!("tests/logs/shop/backend/{}/20260409-120000-000", CASES[0]);
    write_at(
        &root,
        &format!("{going}/meta.json"),
        r#"{"schemaVersion":4,"status":"failed"}"#,
    );
    let removed = format!("tests/logs/shop/backend/{}/20260402-120000-000", CASES[1]);
    std::fs::remove_dir_all(root.join(&removed)).expect("rm");
    finished_run(&root, CASES[3], "20260410-120000-000", "passed");
    let now = full_history(&root);

    let hold = testdeck_core::workspace::read::hold::meta_json(&root);
    let mut c = Cockpit::start(&root, Some(cache.path()));
    // the cached history: the first open's finished runs, all of them
    let cached: Vec<(String, RunStatus)> = first
        .0
        .iter()
        .filter(|(_, s)| s.is_finished())
        .cloned()
        .collect();
    c.until("the cached history shown", |a| {
        a.domain().indexing() && history_shown(a).0 == cached
    });
    // the check against the folders waits on a meta.json: nothing but the
    // cache drew what is shown
    let end = std::time::Instant::now() + Duration::from_secs(30);
    while hold.waiting() == 0 {
        assert!(std::time::Instant::now() < end, "no meta.json read waits");
        std::thread::sleep(Duration::from_millis(10));
    }
    while let Ok(a) = c.rx.recv_timeout(Duration::from_millis(100)) {
        let fx = c.app.update(a);
        c.apply(fx);
    }
    let shown = history_shown(&c.app);
    assert!(c.app.domain().indexing());
    assert_eq!(shown.0, cached);
    assert_eq!(shown.1, 12, "the Runs tab lists the cached runs");
    assert_eq!(shown.2, (10, 2), "the statistics count the cached runs");
    assert_eq!(
        full_loads(&root),
        1,
        "the warm open read the history in full"
    );
    drop(hold);
    c.until("the check applied", |a| !a.domain().indexing());
    let shown = history_shown(&c.app);
    assert_eq!(shown.0, now);
    assert!(
        shown
            .0
            .iter()
            .any(|(p, s)| *p == going && *s == RunStatus::Failed)
    );
    assert!(!shown.0.iter().any(|(p, _)| *p == removed));
    assert_eq!(shown.1, 13);
    assert_eq!(shown.2, (10, 3));
    assert_eq!(full_loads(&root), 1, "a warm open is no full load");
}

/// Issue 30: a history cache that is corrupt, cut short or another
/// workspace's is ignored: the open reads the history in full and shows it
/// right, and writes the cache again.
#[test]
fn a_corrupt_truncated_or_foreign_history_cache_is_ignored_and_written_again() {
    use testdeck_core::workspace::history_cache::file_of;
    let (_d, root) = history_workspace();
    let (_o, other) = history_workspace();
    // another workspace: one run more
    finished_run(&other, CASES[2], "20260420-120000-000", "passed");
    let cache = tempfile::tempdir().expect("cache");
    drop(Cockpit::open_with(&root, Some(cache.path())));
    cache_written(cache.path(), &root);
    drop(Cockpit::open_with(&other, Some(cache.path())));
    cache_written(cache.path(), &other);
    let file = file_of(cache.path(), &root).expect("file");
    let good = std::fs::read(&file).expect("read");
    let foreign = std::fs::read(file_of(cache.path(), &other).expect("file")).expect("read");
    let mut corrupt = good.clone();
    let at = corrupt.len() - 5;
    corrupt[at] ^= 0xff;
    let want = full_history(&root);
    for (what, bytes) in [
        ("corrupt", corrupt),
        ("truncated", good[..good.len() / 2].to_vec()),
        ("foreign", foreign),
    ] {
        std::fs::write(&file, &bytes).expect("write");
        let loads = full_loads(&root);
        let c = Cockpit::open_with(&root, Some(cache.path()));
        assert_eq!(history_shown(&c.app).0, want, "{what}");
        assert_eq!(full_loads(&root), loads + 1, "{what}: not read in full");
        drop(c);
        cache_written(cache.path(), &root);
    }
}

/// Issue 30: without a cache folder (`--no-cache`) nothing is written, and
/// every open reads the history in full.
#[test]
fn no_history_cache_folder_writes_nothing_and_reads_in_full() {
    let (_d, root) = history_workspace();
    let cache = tempfile::tempdir().expect("cache");
    for n in 1..=2 {
        let c = Cockpit::open_with(&root, None);
        assert_eq!(history_shown(&c.app).0, full_history(&root));
        assert_eq!(full_loads(&root), n);
    }
    let c = Cockpit::open_with(&root, Some(cache.path()));
    drop(c);
    cache_written(cache.path(), &root);
    let c = Cockpit::open_with(&root, None);
    drop(c);
    assert_eq!(full_loads(&root), 4, "--no-cache read the cache");
}

/// Issue 30: a warm open that finds more changed than it hands on change
/// by change (here, more new runs than `APPLY_AT_MOST`, and a run folder
/// gone) shows the history whole as it is now, still without a full load.
#[test]
fn a_warm_open_after_many_changes_shows_the_history_as_it_is_now() {
    let (_d, root) = history_workspace();
    let cache = tempfile::tempdir().expect("cache");
    drop(Cockpit::open_with(&root, Some(cache.path())));
    cache_written(cache.path(), &root);
    for i in 0..=APPLY_AT_MOST {
        finished_run(&root, CASES[2], &format!("20260501-12{i:04}-000"), "failed");
    }
    std::fs::remove_dir_all(root.join(format!(
        "tests/logs/shop/backend/{}/20260401-120000-000",
        CASES[3]
    )))
    .expect("rm");
    let loads = full_loads(&root);
    let c = Cockpit::open_with(&root, Some(cache.path()));
    let shown = history_shown(&c.app);
    assert_eq!(shown.0, full_history(&root));
    assert_eq!(shown.1, 13 + APPLY_AT_MOST);
    assert_eq!(shown.2, (9, 3 + APPLY_AT_MOST as u64));
    assert_eq!(full_loads(&root), loads, "a warm open is no full load");
}
