//! The staged index (issue 17): the tests tree reaches the first frame before any
//! history is read, then the history streams in by domain with its count shown.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;
use testdeck_core::workspace::Workspace;
use testdeck_tui::action::Action;
use testdeck_tui::app::App;

use crate::common;
use common::app::{Deck, Runs, draw, options, text};
use common::fixtures as testkit;

/// Generous: a loaded 2-core machine may be slow, never this slow.
const WAIT: Duration = Duration::from_secs(120);

/// The App at 110×30, nothing loaded: the test hands it the index's stages itself.
fn new_app(root: &Path) -> Deck {
    Deck::new(options(root, "staged"), Runs::NOTHING).sized(110, 30)
}

fn screen(app: &App) -> String {
    text(&draw(app))
}

fn next(rx: &mpsc::Receiver<Action>) -> Action {
    rx.recv_timeout(WAIT).expect("the index said nothing")
}

/// Cases of `domain` whose latest run is known (the tree's status badge).
fn with_badge(app: &App, domain: &str) -> usize {
    app.tests()
        .cases()
        .iter()
        .filter(|c| c.scope.starts_with(&format!("{domain}/")) && c.latest.is_some())
        .count()
}

#[test]
fn first_frame_carries_the_tree_before_the_history() {
    let d = crate::common::fs::scratch_dir();
    // 2 domains x 5 suites x 4 groups x 1 case, 2 runs each
    testkit::generate(d.path(), 2, 1, 2);
    let root = d.path().to_path_buf();
    let (atx, arx) = mpsc::channel::<Action>();
    let (gtx, grx) = mpsc::channel::<()>();
    let indexer = std::thread::spawn(move || {
        let send = |a: Action| {
            let _ = atx.send(a);
        };
        // each stage of the history waits for the test's word (or its hang-up)
        testdeck_tui::runtime::index_staged(&root, &send, &|| {
            let _ = grx.recv();
        });
    });

    let mut app = new_app(d.path());
    // the walk's first rows, then the whole tree
    let ws = loop {
        match next(&arx) {
            Action::TreeLoaded(ws) => break ws,
            Action::TreePart(p) => {
                assert!(p.logs.runs.is_empty());
                app.update(Action::TreePart(p));
            }
            _ => panic!("the tree comes first"),
        }
    };
    assert!(ws.logs.runs.is_empty(), "no run is read before the tree");
    app.update(Action::TreeLoaded(ws));
    let s = screen(&app);
    assert!(s.contains("domain-0") && s.contains("domain-1"), "{s}");
    assert!(s.contains("40 cases"), "{s}");
    assert!(s.contains("indexing history"), "{s}");
    assert_eq!(
        with_badge(&app, "domain-0") + with_badge(&app, "domain-1"),
        0
    );
    // the history is held at its gate: nothing else arrives
    assert!(matches!(
        arx.recv_timeout(Duration::from_millis(300)),
        Err(mpsc::RecvTimeoutError::Timeout)
    ));

    // the walk: the total, from the directory entries
    gtx.send(()).expect("gate");
    let Action::HistoryStarted { total, problems } = next(&arx) else {
        panic!("the walk's total comes next");
    };
    assert_eq!(total, 80);
    app.update(Action::HistoryStarted { total, problems });
    let s = screen(&app);
    assert!(s.contains("indexing 0 / 80 runs"), "{s}");

    // the first domain
    gtx.send(()).expect("gate");
    let Action::HistoryChunk(chunk) = next(&arx) else {
        panic!("a domain's runs");
    };
    assert_eq!(chunk.domain, "domain-0");
    assert_eq!(chunk.runs.len(), 40);
    app.update(Action::HistoryChunk(chunk));
    let s = screen(&app);
    assert!(s.contains("indexing 40 / 80 runs"), "{s}");
    assert_eq!(with_badge(&app, "domain-0"), 20);
    assert_eq!(with_badge(&app, "domain-1"), 0);
    assert!(app.domain().indexing());

    // the rest, let go
    drop(gtx);
    loop {
        let a = next(&arx);
        let done = matches!(a, Action::Records(_));
        app.update(a);
        if done {
            break;
        }
    }
    indexer.join().expect("indexer");
    let s = screen(&app);
    assert!(!app.domain().indexing());
    assert!(s.contains("40 cases · 80 runs"), "{s}");
    assert!(!s.contains("indexing"), "{s}");
    assert_eq!(
        with_badge(&app, "domain-0") + with_badge(&app, "domain-1"),
        40
    );
}

/// Issue 43, the first frame waits for nothing: the walk of the tests tree
/// is held (a blocking-reader hook on the folders it opens) at its second
/// domain, and the tree's first rows — the first domain's cases — are already
/// drawn, before the walk ends and before the catalog or the finder's
/// candidates; once the walk is let go the whole tree comes and shows as a
/// first install of it shows it.
#[test]
fn the_first_frame_shows_the_tree_s_first_rows_while_the_walk_is_held() {
    let d = crate::common::fs::scratch_dir();
    // 2 domains x 5 suites x 4 groups x 4 cases, 1 run each (a domain is
    // more than a screen of rows); a catalog folder
    testkit::generate(d.path(), 2, 4, 1);
    std::fs::create_dir_all(d.path().join(".pouch/tester")).expect("catalog");
    let hold = testdeck_core::workspace::read::hold::folders(&d.path().join("tests/domain-1"));
    let root = d.path().to_path_buf();
    let (atx, arx) = mpsc::channel::<Action>();
    let indexer = std::thread::spawn(move || {
        let send = |a: Action| {
            let _ = atx.send(a);
        };
        testdeck_tui::runtime::index_staged(&root, &send, &|| {});
    });

    let mut app = new_app(d.path());
    let Action::TreePart(part) = next(&arx) else {
        panic!("the walk's first results come first");
    };
    // the walk waits at the second domain: it has not ended
    let end = std::time::Instant::now() + WAIT;
    while hold.waiting() == 0 {
        assert!(
            std::time::Instant::now() < end,
            "the walk never reached domain-1"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        part.catalog.is_none(),
        "the catalog comes after the first rows"
    );
    assert!(part.logs.runs.is_empty());
    assert_eq!(part.tests.cases.len(), 80);
    assert!(
        part.tests
            .cases
            .iter()
            .all(|c| c.scope.starts_with("domain-0/")),
        "{:?}",
        part.tests.cases
    );
    app.update(Action::TreePart(part));
    let s = screen(&app);
    assert!(s.contains("Tests · 80"), "{s}");
    assert!(s.contains("domain-0"), "{s}");
    assert!(s.contains("backend"), "the first levels are open: {s}");
    assert!(!s.contains("domain-1"), "{s}");
    assert!(s.contains("indexing"), "{s}");
    assert!(
        app.domain().candidates().is_empty(),
        "the candidates come after"
    );
    // nothing else arrives while the walk is held
    assert!(matches!(
        arx.recv_timeout(Duration::from_millis(300)),
        Err(mpsc::RecvTimeoutError::Timeout)
    ));

    drop(hold);
    let whole = loop {
        match next(&arx) {
            Action::TreeLoaded(ws) => break ws,
            a @ Action::TreePart(_) => {
                app.update(a);
            }
            _ => panic!("the whole tree comes before the history"),
        }
    };
    assert!(
        whole.catalog.is_some(),
        "the catalog comes with the whole tree"
    );
    // the tree read in one go, installed at once
    let mut fresh = new_app(d.path());
    let at_once = Workspace::load_tree(d.path()).expect("tree");
    assert_eq!(at_once.tests.cases, whole.tests.cases);
    fresh.update(Action::TreeLoaded(Box::new(at_once)));
    app.update(Action::TreeLoaded(whole));
    let s = screen(&app);
    assert!(s.contains("Tests · 160"), "{s}");
    assert!(s.contains("domain-1"), "{s}");
    assert_eq!(
        app.domain().candidates().len(),
        fresh.domain().candidates().len()
    );
    assert!(!app.domain().candidates().is_empty());
    assert_eq!(
        s,
        screen(&fresh),
        "the grown tree is the tree installed at once"
    );
    // the rest as before
    loop {
        let a = next(&arx);
        let done = matches!(a, Action::Records(_));
        app.update(a);
        if done {
            break;
        }
    }
    indexer.join().expect("indexer");
    assert!(!app.domain().indexing());
    assert!(screen(&app).contains("160 cases · 160 runs"));
}

#[test]
fn the_streaming_count_is_grouped() {
    let d = crate::common::fs::scratch_dir();
    testkit::generate(d.path(), 1, 1, 1);
    let mut app = new_app(d.path());
    app.update(Action::TreeLoaded(Box::new(
        Workspace::load_tree(d.path()).expect("tree"),
    )));
    app.update(Action::HistoryStarted {
        total: 50_000,
        problems: Vec::new(),
    });
    let mut h = Workspace::load_tree(d.path()).expect("tree").history();
    let chunk = h.next().expect("a domain");
    app.update(Action::HistoryChunk(Box::new(chunk)));
    let s = screen(&app);
    assert!(s.contains("indexing 20 / 50,000 runs"), "{s}");
}

/// The staged history, collected, is the history a headless command loads at once.
#[test]
fn staged_history_is_the_full_load() {
    let d = crate::common::fs::scratch_dir();
    testkit::generate(d.path(), 3, 1, 2);
    testkit::write_fixture(d.path(), true);
    // domains sort "a" < "a-b", their scopes "a-b/…" < "a/…": the merge sorts again
    for scope in ["a/x/s", "a-b/x/s"] {
        let id = testkit::run_id(2, 1);
        testkit::write_run(d.path(), scope, "c", &id, Some("passed"), 5, &[], &[]);
    }
    let full = Workspace::load(d.path()).expect("load");
    let mut staged = Workspace::load_tree(d.path()).expect("tree");
    let mut h = staged.history();
    assert_eq!(h.total(), full.logs.runs.len());
    let mut walk = h.take_problems();
    staged.problems.append(&mut walk);
    for chunk in h {
        staged.add_history(chunk);
    }
    let ids = |ws: &Workspace| {
        ws.logs
            .runs
            .iter()
            .map(|r| (r.path.clone(), r.status))
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&staged), ids(&full));
    let mut a: Vec<String> = staged.problems.iter().map(|p| format!("{p:?}")).collect();
    let mut b: Vec<String> = full.problems.iter().map(|p| format!("{p:?}")).collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);
}

/// Issue 30: the binary writes the workspace's history cache under
/// `$XDG_CACHE_HOME/testdeck/history/` once its first index is done, starts
/// from it at the next open, and with `--no-cache` neither reads nor writes it.
#[test]
fn the_binary_keeps_a_history_cache_unless_told_no_cache() {
    use common::Session;
    let ws = common::fs::demo_copy();
    // the copy's folders as a person's: written long ago (the cache vouches
    // for nothing changed in the seconds before it reads)
    testdeck_core::testkit::settle_logs(ws.path());
    let cfg = common::fs::scratch_dir();
    let cache_home = common::fs::scratch_dir();
    let history = cache_home.path().join("testdeck/history");
    let files = || -> Vec<std::path::PathBuf> {
        std::fs::read_dir(&history)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default()
    };
    let open = |no_cache: bool| {
        let mut cmd = Session::command(ws.path(), cfg.path());
        cmd.env("TESTDECK_IMAGES", "halfblocks");
        cmd.env("XDG_CACHE_HOME", cache_home.path());
        if no_cache {
            cmd.arg("--no-cache");
        }
        let s = Session::spawn(cmd, common::ROWS, common::COLS);
        // the history drawn: the tree's counts, the status line done indexing
        s.wait_for("the history drawn", |sc| {
            let c = sc.contents();
            c.contains("Tests · 21") && !c.contains("indexing")
        });
        s
    };
    // --no-cache: the whole history drawn, and nothing written
    let s = open(true);
    std::thread::sleep(Duration::from_millis(500));
    s.quit();
    assert!(files().is_empty(), "--no-cache wrote {:?}", files());
    // without it: the cache is written once the history is read
    let s = open(false);
    let end = std::time::Instant::now() + WAIT;
    while files().is_empty() {
        assert!(std::time::Instant::now() < end, "no history cache written");
        std::thread::sleep(Duration::from_millis(50));
    }
    s.quit();
    let written = files();
    // the history's file, and beside it at most the import graph's index
    let ext = |p: &std::path::PathBuf| p.extension().and_then(|e| e.to_str()).map(str::to_owned);
    assert_eq!(
        written
            .iter()
            .filter(|p| ext(p).as_deref() == Some("history"))
            .count(),
        1,
        "{written:?}"
    );
    assert!(
        written
            .iter()
            .all(|p| matches!(ext(p).as_deref(), Some("history" | "graph"))),
        "{written:?}"
    );
    assert!(
        testdeck_core::workspace::history_cache::HistoryCache::load(&history, ws.path())
            .is_some_and(|c| c.runs() > 0),
        "the file is no cache of this workspace"
    );
    // --no-cache again: the cache is left as it was, not read
    let before = std::fs::read(&written[0]).expect("read");
    let s = open(true);
    s.quit();
    assert_eq!(std::fs::read(&written[0]).expect("read"), before);
}
