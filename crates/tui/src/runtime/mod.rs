//! Effects turned into tasks: indexing, reading and following a run, launches, the
//! features' jobs (a watch thread, one thread per job that ends by itself), openers.
//! Every result comes back to the app as an `Action` through one sink.

use super::action::{Action, ActionSink};
use super::app::Effect;
use super::feature_work::{FeatureResult, FeatureWork};
use super::queue_handle::QueueHandle;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use testdeck_core::tail;
use testdeck_core::tail::live_run::RunUpdate;
use testdeck_core::tail::store::{RunFollow, RunStore};
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::changes::Change;

mod index;
mod jobs;
#[cfg(test)]
mod tests;

pub use index::{FIRST_ROWS, index_staged, index_staged_cached, read_records, tree_only};
pub(crate) use jobs::Jobs;
pub use jobs::{run_now, run_now_in};

/// The full loads of the workspace the runtimes of this process started, by
/// root (a test hook, as the watcher's `instances`): the first index when it
/// reads every run (no history cache to start from) and each `Effect::Reload`;
/// whatever else changes reaches the model one change at a time.
static FULL_LOADS: Mutex<BTreeMap<PathBuf, usize>> = Mutex::new(BTreeMap::new());

fn count_full_load(root: &Path) {
    *FULL_LOADS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(root.to_path_buf())
        .or_default() += 1;
}

/// How many full loads of the workspace at `root` (as the runtime was given it)
/// the runtimes of this process started.
pub fn full_loads(root: &Path) -> usize {
    FULL_LOADS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(root)
        .copied()
        .unwrap_or_default()
}

/// The tasks of one app: what it asked for runs here until it quits.
pub(crate) struct Runtime {
    root: PathBuf,
    send: ActionSink,
    /// The follow task of the in-progress run shown, if any.
    following: Option<Following>,
    /// The one store of the runs followed (the live pane's, the launches'),
    /// woken by the workspace watcher.
    runs: RunStore,
    /// Launches in flight or done (kept for verdicts); dropping one cancels it and
    /// waits for its processes, so none outlives the app.
    launches: Vec<Option<testdeck_exec::LaunchHandle>>,
    /// The watch thread and the features' jobs; dropping it stops the watch.
    jobs: Jobs,
    /// The workspace watch (live runs, test files, catalog edits).
    workspace_watch: Option<super::workspace_watch::WorkspaceWatch>,
    /// The folder of the history cache (`None`: `--no-cache`, neither read nor written).
    history_cache: Option<PathBuf>,
}

impl Runtime {
    pub fn new(root: PathBuf, send: ActionSink) -> Runtime {
        Runtime {
            root,
            send,
            following: None,
            runs: RunStore::new(RUN_LOOK),
            launches: Vec::new(),
            jobs: Jobs::default(),
            workspace_watch: None,
            history_cache: None,
        }
    }

    /// Start from the history cache in the folder `dir` and keep it (`None`: no cache).
    #[must_use]
    pub(crate) fn with_history_cache(mut self, dir: Option<PathBuf>) -> Runtime {
        self.history_cache = dir;
        self
    }

    /// Watch the workspace on a thread of its own: what changes comes back as
    /// `Action::Changed`.
    pub(crate) fn start_watching(&mut self) {
        self.workspace_watch = Some(super::workspace_watch::start(
            &self.root,
            self.send.clone(),
            self.runs.clone(),
        ));
    }

    /// Index the workspace on a blocking task in stages ([`index_staged`]), with a
    /// spinner tick while it lasts. Needs a tokio runtime.
    pub(crate) fn start_indexing(&self) {
        let done = Arc::new(AtomicBool::new(false));
        {
            let send = self.send.clone();
            let root = self.root.clone();
            let cache = self.history_cache.clone();
            let done = done.clone();
            // one task: the tree first, then the history (they no longer race for the cores)
            tokio::task::spawn_blocking(move || {
                let sink = |a: Action| send(a);
                if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    index_staged_cached(&root, cache.as_deref(), &sink, &|| {});
                }))
                .is_err()
                {
                    send(Action::LoadFailed(
                        "internal error while indexing (a bug: please report it)".into(),
                    ));
                }
                done.store(true, Ordering::Relaxed);
            });
        }
        let tsend = self.send.clone();
        tokio::spawn(async move {
            let mut iv = tokio::time::interval(Duration::from_millis(100));
            // ticks animate the spinner until the history is indexed
            while !done.load(Ordering::Relaxed) {
                iv.tick().await;
                tsend(Action::Tick);
            }
        });
    }

    /// Start the work of an effect; `false` when the app is to end now.
    pub(crate) fn apply(&mut self, fx: Effect) -> bool {
        match fx {
            Effect::Quit => {
                for h in self.launches.iter().flatten() {
                    h.cancel();
                }
                self.jobs.stop();
                self.workspace_watch = None;
                return false;
            }
            Effect::LoadRun(rel) => {
                let send = self.send.clone();
                let root = self.root.clone();
                // a run that just ended: as the store read it
                let known = self.runs.ended(&root.join(&rel));
                tokio::task::spawn_blocking(move || {
                    let data = tail::live_run::load_run_known(
                        &root,
                        &rel,
                        tail::live_run::MAX_TIMELINE_EVENTS,
                        known.as_deref(),
                    );
                    send(Action::RunLoaded(Box::new(data)));
                });
            }
            Effect::Reload => {
                let send = self.send.clone();
                let root = self.root.clone();
                count_full_load(&root);
                tokio::task::spawn_blocking(move || {
                    if let Ok(Ok(ws)) = std::panic::catch_unwind(|| Workspace::load(&root)) {
                        send(Action::Loaded(Box::new(ws)));
                    }
                    send(Action::Records(read_records(&root)));
                });
            }
            Effect::ReadRuns(runs) => {
                let send = self.send.clone();
                let root = self.root.clone();
                let store = self.runs.clone();
                tokio::task::spawn_blocking(move || {
                    let changes = runs.into_iter().map(Change::Logs).collect();
                    let updates = super::workspace_watch::reader_of(&root)
                        .with_runs(store)
                        .read(&changes);
                    if !updates.is_empty() {
                        send(Action::Changed(updates));
                    }
                });
            }
            Effect::ReadRecords => {
                let send = self.send.clone();
                let root = self.root.clone();
                tokio::task::spawn_blocking(move || {
                    send(Action::Records(read_records(&root)));
                });
            }
            Effect::StopFollow => self.following = None,
            Effect::Follow { path, follower } => {
                // the previous task (another run) ends here
                drop(self.following.take());
                let dir = self.root.join(&path);
                // from the store that reads the run for everyone (a launch's
                // run, its folder just found, from its first line; a loaded
                // run from where its load stopped)
                let run = self.runs.follow_from(&dir, follower.map(|f| *f));
                let stop = Arc::new(AtomicBool::new(false));
                self.following = Some(Following { stop: stop.clone() });
                let send = self.send.clone();
                // a thread of its own, not the runtime's blocking pool: a quit
                // sets `stop` and does not wait for the batch being read
                std::thread::spawn(move || {
                    follow_queued(&run, &stop, &path, &*send);
                });
            }
            Effect::Launch {
                index,
                plan,
                mut ctx,
            } => {
                // the launch's runs are read by the same store as the pane's
                ctx.runs = Some(self.runs.clone());
                let send = self.send.clone();
                let queue = QueueHandle::<super::launch_queue::LaunchQueue>::default();
                let sink: testdeck_exec::Sink = Arc::new(move |ev| {
                    // a run's events reach the pane through its follow
                    // (`Effect::Follow`), whoever started the run: the launch's
                    // own reading of its timeline (for `testdeck run`) stays out
                    if matches!(ev, testdeck_exec::ExecEvent::Timeline { .. }) {
                        return;
                    }
                    if queue.push(ev) {
                        send(Action::ExecQueued(index, queue.clone()));
                    }
                });
                let h = testdeck_exec::launch(*ctx, *plan, sink);
                if self.launches.len() <= index {
                    self.launches.resize_with(index + 1, || None);
                }
                self.launches[index] = Some(h);
            }
            Effect::Work(job) => {
                // a run that just ended is checked and digested as the store read it
                let Some(job) = self.work_from_store(job) else {
                    return true;
                };
                // watch mode subscribes to the one workspace watcher
                let changes = matches!(job, FeatureWork::Watch(..))
                    .then(|| self.workspace_watch.as_ref()?.subscribe())
                    .flatten();
                let cache = self.history_cache.as_deref();
                self.jobs
                    .run(job, &self.root, cache, self.send.clone(), changes);
            }
            Effect::Requeue(action) => (self.send)(*action),
            // the loop does these itself: they need the terminal
            Effect::Edit(_) | Effect::Copy(_) => {}
            Effect::Cancel => {
                for h in self.launches.iter().flatten() {
                    h.cancel();
                }
            }
            Effect::Judge {
                index,
                case_id,
                verdict,
                note,
            } => {
                let msg = match self.launches.get(index).and_then(Option::as_ref) {
                    Some(h) => match h.judge(&case_id, verdict, note) {
                        Ok(true) => {
                            format!("{case_id}: {} recorded in the run record", verdict.as_str())
                        }
                        Ok(false) => format!("{case_id}: not in the run record"),
                        Err(e) => format!("{case_id}: cannot save the run record: {e}"),
                    },
                    None => format!("{case_id}: its launch is gone"),
                };
                (self.send)(Action::Notice(msg));
                // the record on disk is the truth: read it again (the app already
                // shows the verdict it sent)
                let send = self.send.clone();
                let root = self.root.clone();
                tokio::task::spawn_blocking(move || send(Action::Records(read_records(&root))));
            }
            Effect::Discard(copy) => jobs::discard(&copy),
            Effect::Trust {
                places,
                slot,
                argv,
                shown,
            } => {
                // before the opener's `Spawn`, which follows it: remembered first
                let written =
                    testdeck_core::workspace::openers::trust(&self.root, &places, slot, &argv);
                (self.send)(Action::Notice(crate::app::opener::trusted(&shown, written)));
            }
            Effect::Spawn(argv) => {
                let send = self.send.clone();
                let root = self.root.clone();
                // the opener runs in the workspace root; its failure says why (the core's words)
                std::thread::spawn(move || {
                    if let Err(f) = testdeck_core::workspace::openers::run(&root, &argv) {
                        send(Action::ToolFailed {
                            said: f.message,
                            stderr: f.stderr,
                        });
                    }
                });
            }
        }
        true
    }

    /// Do `job` from the run store's snapshots when it is about runs the store
    /// saw end (the failure digest, the contract checks): `None` when done so.
    fn work_from_store(&self, job: FeatureWork) -> Option<FeatureWork> {
        let send = self.send.clone();
        let root = self.root.clone();
        match job {
            FeatureWork::Digest { run } => {
                let Some(snap) = self.runs.ended(&root.join(&run)) else {
                    return Some(FeatureWork::Digest { run });
                };
                std::thread::spawn(move || {
                    let digest =
                        testdeck_core::workspace::failure::Digest::of_snapshot(&root, &snap);
                    send(Action::WorkDone(Box::new(FeatureResult::Digest {
                        digest: Box::new(digest),
                        run,
                    })));
                });
                None
            }
            FeatureWork::Contract(runs) => {
                let known: Vec<_> = runs
                    .iter()
                    .map(|r| self.runs.ended(&root.join(&r.path)))
                    .collect();
                if known.iter().all(Option::is_none) {
                    return Some(FeatureWork::Contract(runs));
                }
                std::thread::spawn(move || {
                    let counts = runs
                        .iter()
                        .zip(&known)
                        .map(|(r, k)| {
                            let n = testdeck_core::workspace::contract::check_run_known(
                                &root,
                                r,
                                k.as_deref(),
                            );
                            (r.path.clone(), n.len())
                        })
                        .collect();
                    send(Action::WorkDone(Box::new(FeatureResult::Contract(counts))));
                });
                None
            }
            other => Some(other),
        }
    }

    /// Stop following and watching (the launches end when the runtime is dropped).
    pub(crate) fn stop(&mut self) {
        self.following = None;
        self.jobs.stop();
        self.workspace_watch = None;
    }
}

/// How often the run store looks at the runs it follows besides the watcher's
/// wake-ups (a run folder past the watcher's budget is seen this late): a
/// `stat` of `meta.json` and a read of the open timeline each.
const RUN_LOOK: Duration = Duration::from_millis(250);

/// How often a follow task looks at its stop flag while nothing changes.
const STOP_LOOK: Duration = Duration::from_millis(50);

/// Hand the changes of the run `run` (at `path`) to the app through a follow
/// queue, until its end or `stop`: one `Action::FollowQueued` pending at a time
/// and at most the pane's window waiting, however fast the timeline grows (the
/// store never waits for the app, and the app takes a frame's worth at once).
pub(crate) fn follow_queued(
    run: &RunFollow,
    stop: &AtomicBool,
    path: &str,
    send: &(dyn Fn(Action) + Send + Sync),
) {
    let queue = QueueHandle::<super::follow_queue::FollowQueue>::default();
    while !stop.load(Ordering::SeqCst) {
        let Ok(c) = run.next(STOP_LOOK) else {
            continue;
        };
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let u = RunUpdate::from(c);
        let finished = u.finished;
        if queue.push(u, testdeck_core::tail::live_run::MAX_TIMELINE_EVENTS) {
            send(Action::FollowQueued(path.to_owned(), queue.clone()));
        }
        if finished {
            return;
        }
    }
}

/// A follow task in flight; dropping it stops the task (on every way out of
/// the loop, an error included) within [`STOP_LOOK`].
pub(crate) struct Following {
    pub(crate) stop: Arc<AtomicBool>,
}

impl Drop for Following {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}
