//! TUI benchmarks (figures, not pass/fail): first frame, first frame with the tree,
//! the history streamed in by domain, the headless full load, finder keystroke → frame at every case, the same filter through fzf
//! when installed, opening a huge timeline in the live pane, the real binary's first
//! frame in a bare pty (one that answers no query) on the demo, idle CPU of the real
//! binary in a pty, peak RSS.
//!
//!     cargo run --release --example gen-workspace -- ws10k --cases 10000 --runs 50000
//!     TESTDECK_BENCH_WS=ws10k cargo bench --bench tui
//!
//! Without TESTDECK_BENCH_WS a small workspace is generated (figures then say so).

use common::{frame, ms, new_app};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use testdeck_core::workspace::Workspace;
use testdeck_tui::action::Action;
use testdeck_tui::app::App;
use testdeck_tui::theme::Theme;

// the in-process TUI, fzf, the cockpit in a pty: shared with the scale bench
#[allow(dead_code)]
mod common;

// the tests' fixture workspaces, not shipped in the library
#[allow(dead_code)]
#[path = "../tests/it/common/fixtures.rs"]
mod fixtures;

fn main() {
    let (root, _keep) = if let Some(p) = std::env::var_os("TESTDECK_BENCH_WS") {
        (PathBuf::from(p), None)
    } else {
        let d = tempfile::tempdir().expect("tmp");
        fixtures::generate(d.path(), 2, 10, 3);
        println!("(no TESTDECK_BENCH_WS: a small generated workspace)");
        (d.path().to_path_buf(), Some(d))
    };
    let theme = Theme::builtin("dark", false).expect("theme");
    let mut term = Terminal::new(TestBackend::new(160, 48)).expect("term");

    // 1. the first frame: nothing read yet
    let t0 = Instant::now();
    let mut app = new_app(&root);
    frame(&app, &theme, &mut term);
    println!("first frame (indexing…): {:.1} ms", ms(t0.elapsed()));

    // 2. and 3. the staged index as the TUI runs it: on another thread, the tree
    // first, then the history by domain, each piece applied and drawn as it comes
    let t1 = Instant::now();
    let (tx, rx) = std::sync::mpsc::channel();
    let indexer = {
        let root = root.clone();
        std::thread::spawn(move || {
            let send = |a: Action| {
                let _ = tx.send(a);
            };
            testdeck_tui::runtime::index_staged(&root, &send, &|| {});
        })
    };
    let (mut tree_ms, mut domains) = (None, 0);
    while let Ok(a) = rx.recv() {
        let (tree, chunk, end) = (
            // the walk's first rows (`TreePart`) or the whole tree at once
            matches!(a, Action::TreePart(_) | Action::TreeLoaded(_)),
            matches!(a, Action::HistoryChunk(_)),
            matches!(a, Action::Records(_)),
        );
        app.update(a);
        if tree || chunk {
            frame(&app, &theme, &mut term);
        }
        if tree && tree_ms.is_none() {
            tree_ms = Some(ms(t1.elapsed()));
        }
        domains += usize::from(chunk);
        if end {
            frame(&app, &theme, &mut term);
            break;
        }
    }
    let _ = indexer.join();
    let runs = app.domain().ws().map_or(0, |w| w.logs.runs.len());
    println!(
        "first frame with the tree: {:.1} ms ({} cases)",
        tree_ms.unwrap_or(f64::NAN),
        app.tests().cases().len()
    );
    println!(
        "history indexed (streamed by domain, drawn as it came): {:.0} ms ({runs} runs, {domains} domains, {} candidates)",
        ms(t1.elapsed()),
        app.domain().candidates().len()
    );
    println!(
        "peak RSS after indexing: {:.1} MB",
        common::vm_hwm_kb(None).unwrap_or(0) as f64 / 1024.0
    );

    // the headless load, everything at once (what list, stats and runs call)
    let t2 = Instant::now();
    let ws = Workspace::load(&root).expect("load");
    println!(
        "headless Workspace::load: {:.0} ms ({} runs)",
        ms(t2.elapsed()),
        ws.logs.runs.len()
    );
    drop(ws);

    // 4. finder: keystroke → frame, every candidate scored each time
    app.on_key(KeyEvent::new(KeyCode::Char('/'), KeyModifiers::NONE));
    let query = "case 12 basic";
    let mut times = Vec::new();
    for c in query.chars() {
        let t = Instant::now();
        app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
        frame(&app, &theme, &mut term);
        times.push(t.elapsed());
    }
    times.sort();
    println!(
        "finder keystroke → frame over {} candidates: median {:.2} ms, max {:.2} ms",
        app.domain().candidates().len(),
        ms(times[times.len() / 2]),
        ms(times[times.len() - 1])
    );
    fzf(&app, query);

    // 5. a huge timeline opened in the live pane
    huge_timeline();

    // 6. the real binary's first frame in a pty that answers nothing, the graphics
    // query asked (auto) and not (half blocks forced)
    first_frame_bare_pty();

    // 7. idle CPU of the real binary in a pty
    idle_cpu(&root);

    if let Some(kb) = common::vm_hwm_kb(None) {
        println!("peak RSS of this process: {:.1} MB", kb as f64 / 1024.0);
    }
}

/// Open a run whose timeline is `TESTDECK_BENCH_TIMELINE_MB` (default 256) MB, in
/// progress and finished: only the last events are parsed and kept.
fn huge_timeline() {
    use std::io::Write as _;
    let mb: u64 = std::env::var("TESTDECK_BENCH_TIMELINE_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    let d = tempfile::tempdir().expect("tmp");
    let rel = "tests/logs/a/backend/s/case/20260310-120000-000";
    let dir = d.path().join(rel);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let mut f =
        std::io::BufWriter::new(std::fs::File::create(dir.join("timeline.jsonl")).expect("create"));
    let (mut written, mut n) = (0u64, 0u64);
    while written < mb << 20 {
        let l = format!(
            "{{\"ts\":\"2026-03-10T12:00:00.000Z\",\"type\":\"step\",\"name\":\"step {n}\",\"status\":\"ok\",\"message\":\"a message of some length for step {n}\",\"data\":{{\"i\":{n}}}}}\n"
        );
        f.write_all(l.as_bytes()).expect("write");
        written += l.len() as u64;
        n += 1;
    }
    f.flush().expect("flush");
    drop(f);
    for finished in [false, true] {
        if finished {
            std::fs::write(dir.join("meta.json"), "{}").expect("meta");
        }
        let t = Instant::now();
        let data = testdeck_core::tail::live_run::load_run(d.path(), rel);
        println!(
            "open a {mb} MB timeline ({n} lines, {}): {:.0} ms, {} events kept, {} earlier lines not loaded",
            if finished { "finished" } else { "in progress" },
            ms(t.elapsed()),
            data.events.len(),
            data.skipped
        );
    }
}

/// The same query through `fzf --filter` on the same candidates (when fzf is installed).
fn fzf(app: &App, query: &str) {
    match common::fzf(app, query) {
        Some(d) => println!(
            "fzf --filter on the same candidates (whole query, process included): {:.2} ms",
            ms(d)
        ),
        None => println!("fzf: not installed, no comparison"),
    }
}

/// The testdeck binary cargo built for the bench, or why not (said for `what`).
fn testdeck_exe(what: &str) -> Option<PathBuf> {
    let exe = common::exe();
    if !exe.is_file() {
        println!("{what}: the testdeck binary is not built (cargo bench builds it)");
        return None;
    }
    Some(exe.to_path_buf())
}

/// From the start of the binary to its first frame (the tree pane's title on its
/// screen) in a pty that answers no terminal query, on the demo: median of 5, with
/// `TESTDECK_IMAGES` `auto` (the graphics query written) and `halfblocks` (none).
fn first_frame_bare_pty() {
    let Some(exe) = testdeck_exe("first frame in a bare pty") else {
        return;
    };
    let demo = tempfile::tempdir().expect("tmp");
    testdeck_core::workspace::demo::write_demo(demo.path()).expect("demo");
    for images in ["auto", "halfblocks"] {
        let times = common::pty::first_frame_bare(&exe, demo.path(), images, 5, (40, 140));
        if let (Some(med), Some(max)) = (times.get(times.len() / 2), times.last()) {
            println!(
                "first frame in a bare pty (TESTDECK_IMAGES={images}), demo: median {:.1} ms, max {:.1} ms",
                ms(*med),
                ms(*max)
            );
        }
    }
}

fn idle_cpu(root: &Path) {
    let Some(exe) = testdeck_exe("idle CPU") else {
        return;
    };
    let c = common::pty::Cockpit::open(&exe, root, common::pty::Start::new(40, 140).images("auto"));
    let pid = c.pid();
    // let it index, then watch it sit idle
    std::thread::sleep(Duration::from_secs(5));
    let (Some(a), t) = (common::cpu_ticks(pid), Instant::now()) else {
        return;
    };
    std::thread::sleep(Duration::from_secs(5));
    if let Some(b) = common::cpu_ticks(pid) {
        let ticks = b.saturating_sub(a);
        println!(
            "idle CPU over {:.0} s after indexing: {ticks} clock ticks ({:.2}% of one core)",
            t.elapsed().as_secs_f64(),
            ticks as f64 / t.elapsed().as_secs_f64()
        );
    }
    if let Some(kb) = common::vm_hwm_kb(Some(pid)) {
        println!("peak RSS of the running TUI: {kb} kB");
    }
}
