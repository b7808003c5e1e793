//! The live pane in a real pseudo-terminal (issues 14 and 17): the runner's own
//! output beside the timeline, what stays when the runner writes no run, and a
//! flooding timeline that never holds back `q` or SIGTERM.

use crate::common;
use common::Session;

use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const RUN: &str = "tests/logs/kb/backend/search/basic/kb-search-empty/20260401-120000-000";

/// The fixture with `[runner] command = ["sh", "runner.sh"]` and that script.
fn with_runner(script: &str) -> (tempfile::TempDir, tempfile::TempDir) {
    let ws = crate::common::fs::scratch_dir();
    common::fixtures::write_fixture(ws.path(), false);
    common::fs::write(
        ws.path(),
        "testdeck.toml",
        "[runner]\ncommand = [\"sh\", \"runner.sh\"]\n",
    );
    common::fs::write(ws.path(), "runner.sh", script);
    (ws, crate::common::fs::scratch_dir())
}

/// Select `kb-search-empty` through the finder and launch it with `r`.
fn launch_kb_search_empty(s: &mut Session) {
    s.wait_text("Tests · 6");
    s.find("'kb-search-empty");
    s.send("r");
}

/// The screen row holding `text`.
fn row_of(sc: &vt100::Screen, text: &str) -> Option<usize> {
    sc.contents().lines().position(|l| l.contains(text))
}

/// The fast twin of the broken vitest config: a runner that prints to stdout
/// and stderr and exits 3 without writing a run. Its lines, its exit status and
/// why the launch failed stay on screen after the launch is done.
#[test]
fn a_runner_that_exits_3_without_a_run_leaves_its_stderr_and_status_on_screen() {
    let (ws, cfg) = with_runner(
        "echo 'loading the config'\necho 'Error: no such file: vitest.config.mts' >&2\nexit 3\n",
    );
    let mut s = Session::start(ws.path(), cfg.path());
    launch_kb_search_empty(&mut s);
    s.wait_for("the runner's end and the launch's", |sc| {
        let c = sc.contents();
        c.contains("launch done: 1 environment-fail") && c.contains("runner exit 3")
    });
    let p = s.screen();
    let sc = p.screen();
    let c = sc.contents();
    assert!(c.contains("loading the config"), "{c}");
    assert!(c.contains("Error: no such file: vitest.config.mts"), "{c}");
    // both lines, then the exit row (stdout and stderr are two pipes: their
    // relative order is the reader threads', not asserted here)
    let out = row_of(sc, "loading the config").expect("stdout row");
    let err = row_of(sc, "Error: no such file").expect("stderr row");
    let exit = row_of(sc, "runner exit 3").expect("exit row");
    assert!(out < exit && err < exit, "{c}");
    assert!(
        sc.contents()
            .lines()
            .nth(out)
            .is_some_and(|l| l.contains("out"))
    );
    assert!(
        sc.contents()
            .lines()
            .nth(err)
            .is_some_and(|l| l.contains("err"))
    );
    // the notice that said why is not overwritten by the launch's end (cut with
    // `…` to keep the workspace and HOST on the status line; the exit row says it whole)
    assert!(
        c.contains("launch done: 1 environment-fail — runner: the runner exited with"),
        "{c}"
    );
    let (p, _) = s.quit();
    assert!(!p.screen().alternate_screen());
}

/// A runner printing while it writes its run: its lines and the timeline's
/// events interleave in arrival order; `O` hides the runner's lines and shows
/// them again. The runner waits for the test to have seen each step on screen
/// (a file the test creates) before the next, so the order never depends on
/// timing.
#[test]
fn runner_output_interleaves_with_the_timeline_and_o_hides_it() {
    let wait = |f: &str| {
        format!("i=0; while [ ! -f {f} ] && [ $i -lt 3000 ]; do sleep 0.1; i=$((i+1)); done\n")
    };
    let script = format!(
        "d={RUN}\n\
         echo 'runner says hello'\n\
         {}\
         mkdir -p $d\n\
         printf '{{\"type\":\"step\",\"name\":\"first-step\",\"status\":\"ok\"}}\\n' >> $d/timeline.jsonl\n\
         {}\
         echo 'warming up the browser' >&2\n\
         {}\
         printf '{{\"type\":\"step\",\"name\":\"second-step\",\"status\":\"ok\"}}\\n' >> $d/timeline.jsonl\n\
         printf '{{\"schemaVersion\":4,\"runId\":\"20260401-120000-000\",\"caseId\":\"kb-search-empty\",\"scope\":\"kb/backend/search/basic\",\"status\":\"passed\"}}' > $d/meta.json\n",
        wait("go1"),
        wait("go2"),
        wait("go3"),
    );
    let (ws, cfg) = with_runner(&script);
    let mut s = Session::start(ws.path(), cfg.path());
    launch_kb_search_empty(&mut s);
    let go = |f: &str| std::fs::write(ws.path().join(f), "").expect("go");
    s.wait_text("runner says hello");
    go("go1");
    s.wait_text("first-step");
    go("go2");
    s.wait_text("warming up the browser");
    go("go3");
    s.wait_text("second-step");
    s.wait_text("launch done");
    let p = s.screen();
    let sc = p.screen();
    let order: Vec<usize> = [
        "runner says hello",
        "first-step",
        "warming up the browser",
        "second-step",
    ]
    .iter()
    .map(|t| row_of(sc, t).unwrap_or_else(|| panic!("{t} not shown:\n{}", sc.contents())))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{}", sc.contents());
    s.send("O");
    s.wait_for("the runner's lines hidden", |sc| {
        let c = sc.contents();
        !c.contains("runner says hello") && !c.contains("warming up") && c.contains("second-step")
    });
    s.send("O");
    s.wait_text("warming up the browser");
    let (p, _) = s.quit();
    assert!(!p.screen().alternate_screen());
}

/// The real project with a broken `vitest.config.mts`: the runner's own error
/// reaches the live pane and stays there with its exit status.
#[test]
fn a_broken_vitest_config_shows_the_runner_s_error_in_the_cockpit() {
    if !common::realworld::node_ready() {
        return;
    }
    let ws = common::realworld::project();
    std::fs::write(
        ws.path().join("vitest.config.mts"),
        "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: [ } });\n",
    )
    .expect("break the config");
    let cfg = crate::common::fs::scratch_dir();
    // a tall terminal: the runner's whole error fits in the live pane
    let (rows, cols) = (110, 160);
    let mut cmd = portable_pty::CommandBuilder::new(env!("CARGO_BIN_EXE_testdeck"));
    cmd.arg("--root");
    cmd.arg(ws.path());
    cmd.env("XDG_CONFIG_HOME", cfg.path());
    // the history cache beside the config, never the person's own
    cmd.env(
        "XDG_CACHE_HOME",
        std::path::Path::new(&cfg.path()).join("cache"),
    );
    cmd.env("TESTDECK_IMAGES", "halfblocks");
    cmd.env_remove("NO_COLOR");
    let mut s = Session::spawn(cmd, rows, cols);
    let shows = |t: &'static str| move |sc: &vt100::Screen| sc.contents().contains(t);
    s.wait_sized(rows, cols, "the tree", shows("Tests ·"));
    s.send("/");
    s.send("'cart-total");
    s.wait_sized(rows, cols, "the finder", shows("❯ 'cart-total"));
    s.send("\r");
    s.send("r");
    s.wait_sized(rows, cols, "the launch's end", shows("launch done"));
    let p = s.screen_sized(rows, cols);
    let c = p.screen().contents();
    // vitest's own words, on the runner's stderr, tagged err
    let line = c
        .lines()
        .find(|l| l.contains("failed to load config from"))
        .unwrap_or_else(|| panic!("the runner's error is not in the cockpit:\n{c}"));
    assert!(line.contains("err"), "{line}");
    assert!(c.contains("PARSE_ERROR"), "{c}");
    s.send("q");
    let start = Instant::now();
    while s.child.try_wait().expect("wait").is_none() {
        assert!(start.elapsed() < Duration::from_secs(20), "did not quit");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The fixture with `kb-search-empty`'s run in progress, opened in the live
/// pane; a writer thread then floods its timeline until told to stop (or 2M
/// lines). The session, the stop flag, the writer, and the folders.
fn following_a_flood() -> (
    Session,
    Arc<AtomicBool>,
    Arc<AtomicUsize>,
    std::thread::JoinHandle<usize>,
    [tempfile::TempDir; 2],
) {
    let (s, run, dirs) = common::open_in_progress(
        RUN,
        "{\"type\":\"step\",\"name\":\"flood-begins\",\"status\":\"ok\"}\n",
        "flood-begins",
    );
    let timeline = run.join("timeline.jsonl");
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    let written = Arc::new(AtomicUsize::new(0));
    let count = written.clone();
    let writer = std::thread::spawn(move || {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&timeline)
            .expect("open");
        let mut n = 0;
        while !stop2.load(Ordering::SeqCst) && n < 2_000_000 {
            let mut chunk = String::with_capacity(1 << 20);
            for _ in 0..10_000 {
                n += 1;
                chunk.push_str("{\"type\":\"step\",\"name\":\"flood-");
                chunk.push_str(&n.to_string());
                chunk.push_str("\",\"status\":\"ok\",\"message\":\"a line among many\"}\n");
            }
            if f.write_all(chunk.as_bytes()).is_err() {
                break;
            }
            count.store(n, Ordering::SeqCst);
        }
        n
    });
    (s, stop, written, writer, dirs)
}

/// Wait, very generously, for `text` on screen.
fn wait_long(s: &Session, text: &str) {
    let start = Instant::now();
    while !s.screen().screen().contents().contains(text) {
        assert!(
            start.elapsed() < Duration::from_secs(600),
            "never shown: {text}:\n{}",
            s.screen().screen().contents()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Wait (generously) for the process to end; panics with the screen if not.
fn ended_within(s: &mut Session, limit: Duration, what: &str) {
    let start = Instant::now();
    while s.child.try_wait().expect("wait").is_none() {
        assert!(
            start.elapsed() < limit,
            "{what}: still running after {limit:?}:\n{}",
            s.screen().screen().contents()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The peak resident memory of process `pid` in MB (Linux), if known.
fn peak_rss_mb(pid: u32) -> Option<u64> {
    common::procs::peak_kib(pid).map(|kb| kb / 1024)
}

/// Wait (generously) until the writer has put `n` lines in the timeline.
fn written_at_least(written: &AtomicUsize, n: usize) {
    let start = Instant::now();
    while written.load(Ordering::SeqCst) < n {
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "the writer is stuck"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// 1M lines stream while the cockpit follows them: its memory stays bounded
/// (a generous bound: the window is 50,000 events), and `q` mid-flood ends it.
#[test]
fn the_cockpit_s_memory_stays_bounded_and_q_ends_it_during_a_flood() {
    let (mut s, stop, written, writer, _dirs) = following_a_flood();
    wait_long(&s, "earlier not loaded");
    let pid = s.child.process_id().expect("pid");
    written_at_least(&written, 1_000_000);
    // the reader is at the flood's end, or busy with it: look a moment longer
    std::thread::sleep(Duration::from_secs(2));
    let peak = peak_rss_mb(pid);
    eprintln!("peak RSS {peak:?} MB");
    s.send("q");
    ended_within(&mut s, Duration::from_secs(30), "q during the flood");
    stop.store(true, Ordering::SeqCst);
    writer.join().expect("writer");
    if let Some(mb) = peak {
        assert!(mb < 500, "peak RSS {mb} MB while 1M lines streamed");
    }
    std::thread::sleep(Duration::from_millis(200));
    assert!(!s.screen().screen().alternate_screen());
}

#[test]
fn sigterm_during_a_timeline_flood_ends_the_cockpit() {
    let (mut s, stop, written, writer, _dirs) = following_a_flood();
    wait_long(&s, "earlier not loaded");
    written_at_least(&written, 1_000_000);
    let pid = s.child.process_id().expect("pid");
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    ended_within(&mut s, Duration::from_secs(30), "SIGTERM during the flood");
    stop.store(true, Ordering::SeqCst);
    writer.join().expect("writer");
    std::thread::sleep(Duration::from_millis(200));
    assert!(!s.screen().screen().alternate_screen());
}

/// A launched runner writes a 1M-line timeline at once and stays on: the
/// cockpit follows it through the launch with bounded memory, and `q` (then
/// `y`: a run is live) ends it.
#[test]
fn a_launch_whose_run_floods_its_timeline_stays_bounded_and_quits() {
    let script = format!(
        "d={RUN}\nmkdir -p $d\n\
         yes '{{\"type\":\"step\",\"name\":\"flood\",\"status\":\"ok\",\"message\":\"a line among many\"}}' | head -n 1000000 > $d/timeline.jsonl\n\
         printf '{{\"type\":\"step\",\"name\":\"after-the-flood\",\"status\":\"ok\"}}\\n' >> $d/timeline.jsonl\n\
         echo 'flood written'\n\
         sleep 120\n"
    );
    let (ws, cfg) = with_runner(&script);
    let mut s = Session::start(ws.path(), cfg.path());
    launch_kb_search_empty(&mut s);
    let pid = s.child.process_id().expect("pid");
    // a debug build on a loaded machine takes its time over 1M lines: no speed
    // is asserted here (the bench measures it)
    wait_long(&s, "after-the-flood");
    let peak = peak_rss_mb(pid);
    eprintln!("peak RSS {peak:?} MB");
    s.send("q");
    s.wait_text("1 run is live");
    s.send("y");
    ended_within(&mut s, Duration::from_secs(30), "q during the launch");
    if let Some(mb) = peak {
        assert!(mb < 500, "peak RSS {mb} MB while 1M lines streamed");
    }
}
