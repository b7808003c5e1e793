//! Live-workspace benchmark (a figure, not pass/fail): the time from a run
//! folder appearing under `tests/logs/` (written by this process as a runner
//! would) to its first event in a drawn frame, with the cockpit's workspace
//! watch running on a 10k-case workspace: watch, debounce, the incremental
//! read, the app's apply, the run's load and the frame.
//!
//!     cargo run --release --example gen-workspace -- ws10k --cases 10000 --runs 50000
//!     TESTDECK_BENCH_WS=ws10k cargo bench --bench live
//!
//! Without TESTDECK_BENCH_WS a 10k-case workspace (one run each) is generated.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::PathBuf;
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};
use testdeck_core::workspace::Workspace;
use testdeck_tui::action::Action;
use testdeck_tui::app::{App, Effect, Options};
use testdeck_tui::keymap::Keymap;
use testdeck_tui::theme::Theme;

// the tests' fixture workspaces, not shipped in the library
#[allow(dead_code)]
#[path = "../tests/it/common/fixtures.rs"]
mod fixtures;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn shows(term: &Terminal<TestBackend>, text: &str) -> bool {
    let buf = term.backend().buffer();
    let area = buf.area;
    (0..area.height).any(|y| {
        let line: String = (0..area.width)
            .map(|x| buf[(x, y)].symbol().to_owned())
            .collect();
        line.contains(text)
    })
}

fn main() {
    let (root, _keep) = if let Some(p) = std::env::var_os("TESTDECK_BENCH_WS") {
        (PathBuf::from(p), None)
    } else {
        let d = tempfile::tempdir().expect("tmp");
        // 25 domains × 5 suites × 4 groups × 20 = 10 000 cases, one run each
        let domains = std::env::var("TESTDECK_BENCH_DOMAINS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(25);
        fixtures::generate(d.path(), domains, 20, 1);
        (d.path().to_path_buf(), Some(d))
    };
    let root = root.canonicalize().expect("root");
    let theme = Theme::builtin("dark", false).expect("theme");
    let mut term = Terminal::new(TestBackend::new(160, 48)).expect("term");
    let mut app = App::new(
        Options {
            label: "bench".into(),
            root: root.clone(),
            host: "127.0.0.1".into(),
            use_env: false,
        },
        Keymap::builtin("default").expect("keymap"),
    );
    app.update(Action::Resize(160, 48));
    let ws = Workspace::load(&root).expect("load");
    println!(
        "workspace: {} cases, {} runs",
        ws.tests.cases.len(),
        ws.logs.runs.len()
    );
    // a new run beside an existing one, in a different case each time
    let case_dirs: Vec<PathBuf> = (0..7)
        .map(|i| {
            let r = &ws.logs.runs[(i * 997) % ws.logs.runs.len()];
            root.join(&r.path).parent().expect("case").to_path_buf()
        })
        .collect();
    app.update(Action::Loaded(Box::new(ws)));
    let (tx, rx) = mpsc::channel();
    let send: testdeck_tui::action::ActionSink = Arc::new(move |a| {
        let _ = tx.send(a);
    });
    let t_watch = Instant::now();
    let watch = testdeck_tui::workspace_watch::start(&root, send);
    // the recursive watch is set up on its thread: a probe file is written
    // until the watch reports it (then the whole tree is covered)
    let probe = root.join("tests/logs/bench-probe.txt");
    'ready: loop {
        assert!(
            t_watch.elapsed() < Duration::from_secs(300),
            "the watch never started"
        );
        std::fs::write(&probe, format!("{:?}", t_watch.elapsed())).expect("probe");
        while let Ok(a) = rx.recv_timeout(Duration::from_millis(500)) {
            match a {
                Action::Notice(n) => panic!("{n}"),
                Action::Changed(_) => break 'ready,
                _ => {}
            }
        }
    }
    let _ = std::fs::remove_file(&probe);
    println!("watch set up in {:.0} ms", ms(t_watch.elapsed()));
    std::thread::sleep(Duration::from_millis(500));
    while rx.try_recv().is_ok() {}
    let mut figures = Vec::new();
    for i in 0..7u32 {
        let run_id = format!("20990101-0000{i:02}-000");
        let dir: PathBuf = case_dirs[i as usize].join(&run_id);
        let marker = format!("live-bench-event-{i}");
        let t0 = Instant::now();
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(
            dir.join("timeline.jsonl"),
            format!("{{\"type\":\"step\",\"name\":\"{marker}\",\"status\":\"ok\",\"message\":\"{marker}\"}}\n"),
        )
        .expect("timeline");
        let mut shown = false;
        while !shown {
            let a = rx
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("the watch said nothing about {}", dir.display()));
            let mut queue = vec![a];
            while let Some(a) = queue.pop() {
                for fx in app.update(a) {
                    if let Effect::LoadRun(p) = fx {
                        queue.push(Action::RunLoaded(Box::new(
                            testdeck_core::tail::live_run::load_run(&root, &p),
                        )));
                    }
                }
            }
            term.draw(|f| app.draw(&theme, f)).expect("draw");
            shown = shows(&term, &marker);
        }
        figures.push(t0.elapsed());
        // end the run so the next one is followed as the new one
        std::fs::write(dir.join("meta.json"), "{\"status\":\"passed\"}").expect("meta");
        // what the cockpit's follow task (not run here) says when meta.json reads
        let rel = testdeck_core::workspace::rel(&root, &dir);
        app.follow_queued(
            &rel,
            testdeck_core::tail::live_run::RunUpdate {
                finished: true,
                ..Default::default()
            },
        );
        std::thread::sleep(Duration::from_millis(800));
        while let Ok(a) = rx.try_recv() {
            app.update(a);
        }
    }
    drop(watch);
    for (i, d) in case_dirs.iter().enumerate() {
        let _ = std::fs::remove_dir_all(d.join(format!("20990101-0000{i:02}-000")));
    }
    figures.sort();
    let all: Vec<String> = figures.iter().map(|d| format!("{:.0}", ms(*d))).collect();
    println!(
        "run folder appears → its first event on screen: median {:.0} ms, max {:.0} ms (each: {} ms)",
        ms(figures[figures.len() / 2]),
        ms(figures[figures.len() - 1]),
        all.join(", ")
    );
}
