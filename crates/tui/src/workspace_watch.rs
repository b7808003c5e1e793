//! The cockpit's end of the one workspace watcher (`workspace::watch`): its
//! batches read on a thread of their own into `workspace::changes` updates sent
//! to the app, its problems (what it polls past its budget) sent once; watch
//! mode subscribes to the same watcher.

use super::action::{Action, ActionSink};
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::Receiver;
use testdeck_core::tail::store::RunStore;
use testdeck_core::workspace::changes::{Change, Reader};
use testdeck_core::workspace::config::Config;
use testdeck_core::workspace::config::ConfigLoad as _;
use testdeck_core::workspace::watch::{Batch, Subscription, WorkspaceWatcher};

/// The watcher and the thread reading its batches; dropping it stops both.
pub struct WorkspaceWatch {
    watcher: Option<WorkspaceWatcher>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl WorkspaceWatch {
    /// Another subscriber to the same watcher (watch mode): every batch from now on.
    pub fn subscribe(&self) -> Option<Subscription> {
        self.watcher.as_ref().map(WorkspaceWatcher::subscribe)
    }

    /// Whether the watches are set up: a change from now on is seen.
    pub fn ready(&self) -> bool {
        self.watcher.as_ref().is_some_and(WorkspaceWatcher::ready)
    }
}

impl Drop for WorkspaceWatch {
    fn drop(&mut self) {
        // the watcher first: its end closes the batches' channel, which ends the thread
        drop(self.watcher.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Start watching the workspace at `root`; every path that changes wakes the
/// runs `runs` follows in its folder at once (no debounce).
pub fn start(root: &Path, send: ActionSink, runs: RunStore) -> WorkspaceWatch {
    let (watcher, batches) = WorkspaceWatcher::start(root);
    let store = runs.clone();
    watcher.tap(Box::new(move |p| store.touched(p)));
    let root = watcher.root().to_path_buf();
    let thread = std::thread::spawn(move || read(&root, &batches, &send, &runs));
    WorkspaceWatch {
        watcher: Some(watcher),
        thread: Some(thread),
    }
}

/// A reader of changes for the workspace at `root`, with its settings as they are now.
pub(crate) fn reader_of(root: &Path) -> Reader {
    let mut problems = Vec::new();
    Reader::new(root, &Config::load(root, &mut problems))
}

fn read(root: &Path, batches: &Receiver<Arc<Batch>>, send: &ActionSink, runs: &RunStore) {
    // a run the store saw end is taken as it read it
    let mut reader = reader_of(root).with_runs(runs.clone());
    for batch in batches {
        if !batch.problems.is_empty() {
            send(Action::WatchProblems(batch.problems.clone()));
        }
        if batch.changes.is_empty() {
            continue;
        }
        if batch.changes.contains(&Change::Config) {
            reader = reader_of(root).with_runs(runs.clone());
        }
        let updates = reader.read(&batch.changes);
        if !updates.is_empty() {
            send(Action::Changed(updates));
        }
    }
}
