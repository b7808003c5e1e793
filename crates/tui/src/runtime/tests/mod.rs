use super::*;
use crate::app::App;
use crate::keymap::Keymap;
use std::collections::VecDeque;
use std::io::Write as _;
use std::sync::mpsc;
use testdeck_core::tail::Follower;
use testdeck_core::tail::live_run::{load_run, load_run_capped};
use testdeck_core::workspace::timeline;

const REL: &str = "tests/logs/kb/backend/search/basic/kb-search-empty/20260310-120000-000";
const META: &str = r#"{"schemaVersion":4,"runId":"20260310-120000-000","status":"passed"}"#;

fn line(name: &str) -> String {
    format!("{{\"type\":\"step\",\"name\":\"{name}\",\"status\":\"ok\",\"message\":\"\"}}\n")
}

fn lines(prefix: &str, range: std::ops::RangeInclusive<u32>) -> String {
    range.map(|i| line(&format!("{prefix}{i}"))).collect()
}

/// A workspace with one run folder holding `timeline`; the run folder's path.
fn run_with(timeline: &str) -> (tempfile::TempDir, PathBuf) {
    let ws = tempfile::tempdir().expect("tmp");
    let dir = ws.path().join(REL);
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(
        dir.join(testdeck_core::workspace::run_folder::TIMELINE),
        timeline,
    )
    .expect("write");
    (ws, dir)
}

fn append(dir: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join(testdeck_core::workspace::run_folder::TIMELINE))
        .expect("open");
    f.write_all(text.as_bytes()).expect("append");
}

fn names(evs: &VecDeque<timeline::TimelineEvent>) -> Vec<String> {
    evs.iter().map(|e| e.name.clone()).collect()
}

/// An app showing the run: `RunLoaded` from `load_run`, and the follower its
/// `Effect::Follow` hands on.
fn app_showing(root: &Path) -> (App, Option<Box<Follower>>) {
    let mut app = App::new(
        crate::app::Options::default(),
        Keymap::builtin("default").unwrap_or_default(),
    );
    app.live_mut()
        .set_wanted(Some(crate::app::RunRef::Folder(REL.into())));
    let fx = app.update(Action::RunLoaded(Box::new(load_run(root, REL))));
    let follower = fx.into_iter().find_map(|e| match e {
        Effect::Follow { path, follower } if path == REL => follower,
        _ => None,
    });
    (app, follower)
}

/// Run `follow` on its own thread, as the runtime does; its actions come on the channel.
fn follow_on_thread(
    follower: Box<Follower>,
    dir: &Path,
) -> (
    mpsc::Receiver<Action>,
    Arc<AtomicBool>,
    std::thread::JoinHandle<()>,
) {
    let (tx, rx) = mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    // the run store alone, polled (no watcher here)
    let run = RunStore::new(Duration::from_millis(20)).follow_from(dir, Some(*follower));
    let t = std::thread::spawn(move || {
        let send = move |a| {
            let _ = tx.send(a);
        };
        follow_queued(&run, &s, REL, &send);
    });
    (rx, stop, t)
}

/// Apply the follow task's actions to the app until the finished one; each
/// append as `(reset, names, finished)`.
fn drain_until_finished(
    app: &mut App,
    rx: &mpsc::Receiver<Action>,
) -> Vec<(bool, Vec<String>, bool)> {
    let mut seen = Vec::new();
    loop {
        let a = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the follow task went silent before the run finished");
        let (fx, s) = taken(app, a);
        seen.push(s);
        if seen.last().is_some_and(|s| s.2) {
            // no full load: the watch applies the run's end, and the run is
            // read again once the index has it ended (no index here)
            assert!(fx.is_empty(), "{fx:?}");
            return seen;
        }
    }
}

/// Hand the app what the follow task's action left in its queue, as the
/// loop does; the effects, and what it held as `(reset, names, finished)`.
fn taken(app: &mut App, a: Action) -> (Vec<Effect>, (bool, Vec<String>, bool)) {
    let Action::FollowQueued(path, queue) = a else {
        panic!("unexpected action {a:?}");
    };
    // taken here to be looked at, then handed on through a queue again
    let t = queue.take();
    assert_eq!(t.dropped, 0, "these runs stay within the queue's bound");
    let seen = (
        t.update.reset,
        t.update.events.iter().map(|e| e.name.clone()).collect(),
        t.update.finished,
    );
    (app.follow_queued(&path, t.update), seen)
}

fn shown(app: &App) -> Vec<String> {
    names(&app.live().run().expect("a run").events)
}

/// The cockpit as `event::run` drives it, without a terminal: the runtime
/// (its index, the one workspace watcher, launches) on a tokio runtime, its
/// actions applied to the App and the App's effects handed back to it.
struct Cockpit {
    app: App,
    rt: Runtime,
    rx: mpsc::Receiver<Action>,
    tokio: tokio::runtime::Runtime,
    /// Every follow queue and launch queue the app was handed (the way each
    /// run's events came).
    follows: Vec<QueueHandle<crate::follow_queue::FollowQueue>>,
    launches: Vec<QueueHandle<crate::launch_queue::LaunchQueue>>,
}

impl Cockpit {
    /// The cockpit opened on `root`, its first index done.
    fn open(root: &Path) -> Cockpit {
        Cockpit::open_with(root, None)
    }

    /// The cockpit opened on `root` with the history cache in the folder
    /// `cache`, its first index done and its watch set up.
    fn open_with(root: &Path, cache: Option<&Path>) -> Cockpit {
        let mut c = Cockpit::start(root, cache);
        c.until("the first index", |a| {
            a.domain().ws().is_some() && !a.domain().indexing()
        });
        let end = std::time::Instant::now() + Duration::from_secs(20);
        while !c
            .rt
            .workspace_watch
            .as_ref()
            .is_some_and(crate::workspace_watch::WorkspaceWatch::ready)
        {
            assert!(std::time::Instant::now() < end, "the watch is not set up");
            std::thread::sleep(Duration::from_millis(10));
        }
        c
    }

    /// The cockpit opening on `root` (its index and watch started, nothing
    /// applied yet).
    fn start(root: &Path, cache: Option<&Path>) -> Cockpit {
        let tokio = tokio::runtime::Runtime::new().expect("tokio");
        let (tx, rx) = mpsc::channel();
        let tx = std::sync::Mutex::new(tx);
        let send: ActionSink = Arc::new(move |a| {
            let _ = tx.lock().map(|t| t.send(a));
        });
        let opts = crate::app::Options {
            root: root.to_path_buf(),
            ..crate::app::Options::default()
        };
        let mut c = Cockpit {
            app: App::new(opts, Keymap::builtin("default").unwrap_or_default()),
            rt: Runtime::new(root.to_path_buf(), send)
                .with_history_cache(cache.map(Path::to_path_buf)),
            rx,
            tokio,
            follows: Vec::new(),
            launches: Vec::new(),
        };
        c.app.update(Action::Resize(140, 40));
        {
            let _in = c.tokio.enter();
            c.rt.start_indexing();
            c.rt.start_watching();
        }
        c
    }

    /// Hand `fx` to the runtime, as the loop does.
    /// `r` on the selected case: a launch, its effects applied.
    fn launch_selected(&mut self) {
        let fx = self.app.update(Action::Cmd(crate::action::Command::Run));
        assert!(
            fx.iter().any(|e| matches!(e, Effect::Launch { .. })),
            "no launch: {fx:?} {:?}",
            self.app.notice()
        );
        self.apply(fx);
    }

    fn apply(&mut self, fx: Vec<Effect>) {
        let _in = self.tokio.enter();
        for e in fx {
            assert!(self.rt.apply(e), "the app asked to quit");
        }
    }

    /// Apply what the runtime sends until `done` holds (within 60 s).
    fn until(&mut self, what: &str, done: impl Fn(&App) -> bool) {
        let end = std::time::Instant::now() + Duration::from_secs(60);
        while !done(&self.app) {
            assert!(
                std::time::Instant::now() < end,
                "never {what}; notice {:?}",
                self.app.notice()
            );
            if let Ok(a) = self.rx.recv_timeout(Duration::from_millis(100)) {
                self.remember(&a);
                let fx = self.app.update(a);
                self.apply(fx);
            }
        }
    }
}

impl Cockpit {
    /// Keep the queue `a` hands over (once each).
    fn remember(&mut self, a: &Action) {
        fn keep<Q>(all: &mut Vec<QueueHandle<Q>>, q: &QueueHandle<Q>) {
            if !all.iter().any(|k| Arc::ptr_eq(&k.0, &q.0)) {
                all.push(q.clone());
            }
        }
        match a {
            Action::FollowQueued(_, q) => keep(&mut self.follows, q),
            Action::ExecQueued(_, q) => keep(&mut self.launches, q),
            _ => {}
        }
    }

    /// Timeline events the app took from follow queues, and that entered
    /// launch queues.
    fn timeline_ways(&self) -> (u64, u64) {
        let followed = self.follows.iter().map(|q| q.with(0, |q| q.taken())).sum();
        let launched = self
            .launches
            .iter()
            .map(|q| q.with(0, |q| q.timelines()))
            .sum();
        (followed, launched)
    }
}

impl Drop for Cockpit {
    fn drop(&mut self) {
        // the launches and the watch end before the tokio runtime does
        self.rt.stop();
    }
}

mod follow;
mod history;
mod launch;
mod one_store;
mod opener;
