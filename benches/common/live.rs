//! A live workspace, in process: the app on a 160×48 test backend with the
//! whole workspace loaded; a run folder appearing under `tests/logs/` (written
//! by this process as a runner would) until its first event is in a drawn
//! frame, with the cockpit's real workspace watch running (watch, debounce,
//! the incremental read, the app's apply, the run's load and the frame); and a
//! run ending until its case's tree row, statistics and details are drawn.

use super::ws::{bench_run_id, remove_bench_runs};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::changes::{Change, Reader};
use testdeck_core::workspace::config::Config;
use testdeck_core::workspace::config::ConfigLoad as _;
use testdeck_tui::action::Action;
use testdeck_tui::app::{App, Effect};
use testdeck_tui::theme::Theme;

/// Whether a drawn frame shows `text` on one of its rows.
pub fn shows(term: &Terminal<TestBackend>, text: &str) -> bool {
    let buf = term.backend().buffer();
    let area = buf.area;
    (0..area.height).any(|y| {
        let line: String = (0..area.width)
            .map(|x| buf[(x, y)].symbol().to_owned())
            .collect();
        line.contains(text)
    })
}

/// The app with the whole workspace loaded, and what it draws into.
pub struct Loaded {
    pub root: PathBuf,
    pub app: App,
    pub theme: Theme,
    pub term: Terminal<TestBackend>,
    pub cases: usize,
    pub runs: usize,
    /// Case folders under `tests/logs/` spread over the workspace (the
    /// folders of existing runs), for the runs the benches write.
    pub case_dirs: Vec<PathBuf>,
}

impl Loaded {
    /// Load the workspace at `root` (`Workspace::load`) into a new app; `dirs`
    /// case folders set aside, and the runs an earlier bench left in them removed.
    pub fn new(root: &Path, dirs: usize) -> Loaded {
        let root = root.canonicalize().expect("root");
        let theme = Theme::builtin("dark", false).expect("theme");
        let term = Terminal::new(TestBackend::new(160, 48)).expect("term");
        let mut app = super::new_app(&root);
        let ws = Workspace::load(&root).expect("load");
        let (cases, runs) = (ws.tests.cases.len(), ws.logs.runs.len());
        // a new run beside an existing one, in a different case each time
        let mut case_dirs: Vec<PathBuf> = Vec::new();
        let mut k = 0;
        while case_dirs.len() < dirs && runs > 0 && k < dirs * 10 {
            let r = &ws.logs.runs[(k * 997) % runs];
            k += 1;
            let d = root.join(&r.path).parent().expect("case").to_path_buf();
            if !r.is_temp() && !case_dirs.contains(&d) {
                case_dirs.push(d);
            }
        }
        let left = remove_bench_runs(case_dirs.iter().map(PathBuf::as_path));
        if left > 0 {
            println!("removed {left} run folders an earlier bench left");
        }
        app.update(Action::Loaded(Box::new(ws)));
        Loaded {
            root,
            app,
            theme,
            term,
            cases,
            runs,
            case_dirs,
        }
    }

    pub fn draw(&mut self) {
        super::frame(&self.app, &self.theme, &mut self.term);
    }

    pub fn shows(&self, text: &str) -> bool {
        shows(&self.term, text)
    }

    /// Apply `a` and what it asks to read as the runtime would (a run's
    /// load, read here in line), then draw.
    pub fn apply(&mut self, a: Action) {
        let mut queue = vec![a];
        while let Some(a) = queue.pop() {
            for fx in self.app.update(a) {
                if let Effect::LoadRun(p) = fx {
                    queue.push(Action::RunLoaded(Box::new(
                        testdeck_core::tail::live_run::load_run(&self.root, &p),
                    )));
                }
            }
        }
        self.draw();
    }
}

/// Run folder appears → its first event on screen, `n` times.
pub struct FirstEvents {
    /// From the watch's start until a probe file was reported.
    pub watch_setup: Duration,
    /// Each run's time, sorted.
    pub times: Vec<Duration>,
}

/// `n` run folders written one after another, each in its own case folder of
/// `l` (run `i` uses `l.case_dirs[i]`), while the cockpit's workspace watch
/// runs; each timed from its folder's creation to the frame that shows its
/// first event. The runs are ended (`meta.json`) and removed again.
pub fn first_events(l: &mut Loaded, n: usize) -> FirstEvents {
    let root = l.root.clone();
    let (tx, rx) = mpsc::channel();
    let send: testdeck_tui::action::ActionSink = Arc::new(move |a| {
        let _ = tx.send(a);
    });
    let t_watch = Instant::now();
    // the runs' store, as the cockpit's runtime hands it (this harness loads a
    // run and follows none)
    let runs = testdeck_core::tail::store::RunStore::new(Duration::from_millis(250));
    let watch = testdeck_tui::workspace_watch::start(&root, send, runs);
    // the watches are set up on its thread: a probe file is written until the
    // watch reports it (then the whole tree is covered)
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
    let watch_setup = t_watch.elapsed();
    std::thread::sleep(Duration::from_millis(500));
    while rx.try_recv().is_ok() {}
    let mut times = Vec::new();
    let mut written = Vec::new();
    let case_dirs: Vec<PathBuf> = l.case_dirs.iter().take(n).cloned().collect();
    for (i, case_dir) in case_dirs.into_iter().enumerate() {
        let dir = case_dir.join(bench_run_id(i));
        let marker = format!("live-bench-event-{i}");
        let t0 = Instant::now();
        std::fs::create_dir_all(&dir).expect("mkdir");
        written.push(dir.clone());
        std::fs::write(
            dir.join("timeline.jsonl"),
            format!("{{\"type\":\"step\",\"name\":\"{marker}\",\"status\":\"ok\",\"message\":\"{marker}\"}}\n"),
        )
        .expect("timeline");
        loop {
            let a = rx
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("the watch said nothing about {}", dir.display()));
            l.apply(a);
            if l.shows(&marker) {
                break;
            }
        }
        times.push(t0.elapsed());
        // end the run so the next one is followed as the new one
        std::fs::write(dir.join("meta.json"), "{\"status\":\"passed\"}").expect("meta");
        ended(&mut l.app, &root, &dir);
        std::thread::sleep(Duration::from_millis(800));
        while let Ok(a) = rx.try_recv() {
            l.app.update(a);
        }
    }
    drop(watch);
    for d in written {
        let _ = std::fs::remove_dir_all(d);
    }
    times.sort();
    FirstEvents { watch_setup, times }
}

/// A run ends → its case's tree row, statistics and details drawn, `n` times.
pub struct RunEnds {
    /// From the app taking the ended run's update to the frame that shows it
    /// (the details' "last run" line saying `failed`), sorted.
    pub times: Vec<Duration>,
    /// Runs whose end the frame did not show after the update.
    pub missed: usize,
    /// The peer: the same app taking the whole workspace again
    /// (`Action::Loaded`, read beforehand) and drawing it; sorted.
    pub rebuild: Vec<Duration>,
}

/// `n` runs, each in its own case folder of `l` (from the end of
/// `l.case_dirs`): written in progress and applied (the case selected, as the
/// cockpit selects a new run), then ended as a runner ends one (`meta.json`
/// written aside and renamed, status `failed`), the end read as the workspace
/// watch reads it (`changes::Reader`, not timed), then timed from
/// `App::update(Action::Changed)` to the frame that shows it. The runs are
/// removed again.
pub fn run_ends(l: &mut Loaded, n: usize) -> RunEnds {
    let root = l.root.clone();
    let mut problems = Vec::new();
    let reader = Reader::new(&root, &Config::load(&root, &mut problems));
    let read = |dir: &Path| {
        let rel = testdeck_core::workspace::rel(&root, dir);
        reader.read(&BTreeSet::from([Change::Logs(rel)]))
    };
    let dirs: Vec<PathBuf> = l.case_dirs.iter().rev().take(n).cloned().collect();
    let (mut times, mut missed) = (Vec::new(), 0);
    let mut written = Vec::new();
    for (i, case_dir) in dirs.into_iter().enumerate() {
        let run_id = bench_run_id(100 + i);
        let dir = case_dir.join(&run_id);
        std::fs::create_dir_all(&dir).expect("mkdir");
        written.push(dir.clone());
        std::fs::write(
            dir.join("timeline.jsonl"),
            "{\"type\":\"run\",\"name\":\"run/start\",\"status\":\"info\",\"message\":\"case started\"}\n",
        )
        .expect("timeline");
        let updates = read(&dir);
        l.apply(Action::Changed(updates));
        if !l.shows(&run_id) {
            // the case was not selected: its end would not be in the details
            missed += 1;
            continue;
        }
        let case_id = case_dir
            .file_name()
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default();
        let scope = testdeck_core::workspace::rel(
            &root.join("tests/logs"),
            case_dir.parent().expect("scope"),
        );
        std::fs::write(
            dir.join("runtime-events.jsonl"),
            "{\"type\":\"session.started\"}\n{\"type\":\"session.closed\"}\n",
        )
        .expect("events");
        std::fs::write(
            dir.join("artifacts.json"),
            "{\"schemaVersion\":4,\"items\":[]}\n",
        )
        .expect("artifacts");
        let meta = format!(
            "{{\"schemaVersion\":4,\"runId\":\"{run_id}\",\"caseId\":\"{case_id}\",\"scope\":\"{scope}\",\"status\":\"failed\",\"startedAt\":\"2099-01-01T00:00:00.000Z\",\"finishedAt\":\"2099-01-01T00:00:01.500Z\",\"stats\":{{\"durationMs\":1500,\"steps\":0,\"assertions\":1,\"errors\":1,\"artifacts\":0}},\"runtime\":{{\"driver\":\"node-harness\",\"target\":\"main-process\",\"modelName\":null}}}}\n"
        );
        std::fs::write(dir.join(".meta.json.part"), meta).expect("meta");
        std::fs::rename(dir.join(".meta.json.part"), dir.join("meta.json")).expect("rename");
        let updates = read(&dir);
        let t0 = Instant::now();
        let _ = l.app.update(Action::Changed(updates));
        l.draw();
        let took = t0.elapsed();
        if l.shows(&format!("{run_id} failed")) {
            times.push(took);
        } else {
            missed += 1;
        }
        // the pane's run ended, the next new run is followed
        ended(&mut l.app, &root, &dir);
    }
    let mut rebuild = Vec::new();
    for _ in 0..3 {
        let ws = Workspace::load(&root).expect("load");
        let t0 = Instant::now();
        let _ = l.app.update(Action::Loaded(Box::new(ws)));
        l.draw();
        rebuild.push(t0.elapsed());
    }
    for d in written {
        let _ = std::fs::remove_dir_all(d);
    }
    times.sort();
    rebuild.sort();
    RunEnds {
        times,
        missed,
        rebuild,
    }
}

/// What the cockpit's follow task (not run here) says when the run at `dir`
/// reads its `meta.json`: its run ended.
fn ended(app: &mut testdeck_tui::app::App, root: &std::path::Path, dir: &std::path::Path) {
    let rel = testdeck_core::workspace::rel(root, dir);
    app.follow_queued(
        &rel,
        testdeck_core::tail::live_run::RunUpdate {
            finished: true,
            ..Default::default()
        },
    );
}
