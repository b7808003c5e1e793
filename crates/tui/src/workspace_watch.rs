//! The cockpit's workspace watch: `tests/` (its logs included), `doc/test-plan/`,
//! `.pouch/tester/` and `testdeck.toml`, debounced, read on its own thread into
//! `workspace::changes` updates sent to the app.

use super::action::{Action, ActionSink};
use notify::{RecursiveMode, Watcher};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::{Duration, Instant};
use testdeck_core::workspace::changes::{Change, Reader, classify};
use testdeck_exec::watch_mode::Debouncer;

/// A burst of writes is read this long after its last change: a new run is on
/// screen well within a second.
const QUIET: Duration = Duration::from_millis(80);
/// A run that writes without a pause is still read this often.
const MAX_WAIT: Duration = Duration::from_millis(400);
/// The folders watched recursively, relative to the root.
const WATCHED: [&str; 3] = ["tests", "doc/test-plan", ".pouch/tester"];

/// The watch thread; dropping it stops the thread and waits for it.
pub struct WorkspaceWatch {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for WorkspaceWatch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Start watching the workspace at `root`.
pub fn start(root: &Path, send: ActionSink) -> WorkspaceWatch {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let root = root.to_path_buf();
    let thread = std::thread::spawn(move || run(&root, &send, &flag));
    WorkspaceWatch {
        stop,
        thread: Some(thread),
    }
}

fn watch_dirs(
    w: &mut notify::RecommendedWatcher,
    root: &Path,
    watched: &mut BTreeSet<PathBuf>,
    send: &ActionSink,
) {
    for d in WATCHED {
        let p = root.join(d);
        // never through a link: a link out of the workspace is not watched
        let real_dir = std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir());
        if !real_dir || watched.contains(&p) {
            continue;
        }
        match testdeck_core::workspace::walk::watch_tree(w, root, &p, d) {
            Ok(()) => {
                watched.insert(p);
            }
            // e.g. the system's limit of watched folders: said once, Ctrl-R still reads
            Err(e) => send(Action::Notice(format!(
                "{e}: Ctrl-R reads the workspace again"
            ))),
        }
    }
}

fn run(root: &Path, send: &ActionSink, stop: &AtomicBool) {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut problems = Vec::new();
    let mut reader = Reader::new(
        &root,
        &testdeck_core::workspace::config::Config::load(&root, &mut problems),
    );
    let (tx, rx) = channel::<notify::Result<notify::Event>>();
    let watcher = testdeck_core::workspace::walk::watcher(move |ev| {
        let _ = tx.send(ev);
    });
    let mut watcher = match watcher {
        Ok(w) => w,
        Err(e) => {
            send(Action::Notice(format!(
                "cannot watch the workspace ({e}): Ctrl-R reads it again"
            )));
            return;
        }
    };
    let mut watched = BTreeSet::new();
    // the root itself: testdeck.toml, and the watched folders when they appear
    let _ = watcher.watch(&root, RecursiveMode::NonRecursive);
    watch_dirs(&mut watcher, &root, &mut watched, send);
    let mut debouncer = Debouncer::new(QUIET, MAX_WAIT);
    while !stop.load(Ordering::SeqCst) {
        let wait = debouncer.wait(Instant::now(), Duration::from_millis(100));
        match rx.recv_timeout(wait) {
            Ok(Ok(ev)) => {
                // an access (a read, an open) changes nothing
                if !matches!(ev.kind, notify::EventKind::Access(_)) {
                    for p in ev.paths {
                        if p.parent() == Some(root.as_path()) {
                            watch_dirs(&mut watcher, &root, &mut watched, send);
                        }
                        debouncer.push(p, Instant::now());
                    }
                }
            }
            Ok(Err(_)) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        let Some(paths) = debouncer.take_due(Instant::now()) else {
            continue;
        };
        let changes: BTreeSet<Change> = paths.iter().filter_map(|p| classify(&root, p)).collect();
        if changes.is_empty() {
            continue;
        }
        if changes.contains(&Change::Config) {
            let mut p = Vec::new();
            reader = Reader::new(
                &root,
                &testdeck_core::workspace::config::Config::load(&root, &mut p),
            );
        }
        let updates = reader.read(&changes);
        if !updates.is_empty() {
            send(Action::Changed(updates));
        }
    }
}
