//! Effects turned into tasks: indexing, reading and following a run, launches, the
//! features' jobs (a watch thread, one thread per job that ends by itself), openers.
//! Every result comes back to the app as an `Action` through one sink.

use super::action::{Action, ActionSink};
use super::app::Effect;
use super::feature_work::{FeatureResult, FeatureWork, ReportWrite};
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
use testdeck_core::workspace::new_case::NewCase;
use testdeck_exec::process::Cancel;

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

/// The most differences a check of the history cache hands the app as changes:
/// the runs new to it are merged into the history in one pass and each view
/// takes only the cases they touch, but past this many (a history mostly
/// rewritten since the last open) the history goes whole, made on this task.
/// (When each difference was an insert into the history and a rebuild of the
/// views, 100 of them cost 300 ms at 50k runs and the limit was 16: the
/// in-progress runs alone, never cached, went past it.)
const APPLY_AT_MOST: usize = 1024;

/// How many cases the walk's first results hold at least before they are
/// handed on alone (`Action::TreePart`): more than a screen of rows, so the
/// first frame is full. A walk that ends before is handed on whole. (Each
/// install of a part rebuilds the tree's rows: one part, not a stream of them.)
pub const FIRST_ROWS: usize = 64;

/// How often the streamed history is handed to the app at most (after its first domain).
const CHUNK_EVERY: Duration = Duration::from_millis(250);

/// Index the workspace at `root` in stages, each said as an action: the walk's
/// first results (`TreePart`: the first rows of the tree, as soon as the
/// folders under `tests/` walked so far hold [`FIRST_ROWS`] cases), the
/// whole tests tree and the catalog (`TreeLoaded`, before any history work), the history's
/// total from the directory entries (`HistoryStarted`), each domain's runs
/// (`HistoryChunk`; domains read within [`CHUNK_EVERY`] of the last one handed
/// on go together), the end (`HistoryDone`), then the catalog's run records.
/// `gate` is called before each stage of the history (the walk, each domain): a
/// test holds the history there while it looks at the first frames. No history
/// cache is read or written.
pub fn index_staged(root: &Path, send: &dyn Fn(Action), gate: &dyn Fn()) {
    index_staged_cached(root, None, send, gate);
}

/// [`index_staged`] with the history cache in the folder `cache`: when it holds
/// one for this workspace, the whole cached history comes at once after the
/// tree (`HistoryStarted`, one `HistoryChunk`: not a `meta.json` read), then
/// what its check against the folders found (`HistoryVerified`: only new or
/// changed run folders read), then `HistoryDone`. Without one (or with one to
/// ignore) the history is read in full as [`index_staged`] reads it. Either way
/// the cache is written afterwards, on this task, when it changed.
pub fn index_staged_cached(
    root: &Path,
    cache: Option<&Path>,
    send: &dyn Fn(Action),
    gate: &dyn Fn(),
) {
    use testdeck_core::workspace::history_cache::{Builder, HistoryCache};
    // the walk's first results go at once, as soon as they fill the tree's
    // first screen; the rest, the catalog and the candidates come after
    let mut sent = false;
    let mut part = |n: usize, ws: &dyn Fn() -> Workspace| {
        if !sent && n >= FIRST_ROWS {
            send(Action::TreePart(Box::new(ws())));
            sent = true;
        }
    };
    let ws = match Workspace::load_tree_staged(root, &mut part) {
        Ok(ws) => ws,
        Err(e) => {
            send(Action::LoadFailed(e.to_string()));
            return;
        }
    };
    let runs = ws.config.runs.clone();
    send(Action::TreeLoaded(Box::new(ws)));
    gate();
    if let Some(dir) = cache {
        if let Some(cached) = HistoryCache::load(dir, root) {
            let chunk = cached.history();
            send(Action::HistoryStarted {
                total: chunk.runs.len(),
                problems: Vec::new(),
            });
            send(Action::HistoryChunk(Box::new(chunk)));
            gate();
            let judge = testdeck_core::workspace::logs::Judge::load(root, &runs);
            let v = cached.verify(root, &judge);
            // the app applies a change at a time: past a few, the history
            // whole in place of the cached one costs it less
            let mut fresh = if v.updates.len() > APPLY_AT_MOST {
                send(Action::HistoryRebuilt(Box::new(v.history())));
                v.cache
            } else {
                send(Action::HistoryVerified {
                    updates: v.updates,
                    problems: v.problems,
                });
                v.cache
            };
            send(Action::HistoryDone);
            send(Action::Records(read_records(root)));
            let _ = fresh.store(dir, root);
            return;
        }
    }
    count_full_load(root);
    // what the cache is made of is read from here on: a folder changed since is
    // not vouched for
    let since = std::time::SystemTime::now();
    let mut history = testdeck_core::workspace::HistoryLoader::new(root, &runs);
    let mut building = cache.map(|_| Builder::new(since));
    let problems = history.take_problems();
    if let Some(b) = &mut building {
        b.add_problems(problems.iter().cloned());
    }
    send(Action::HistoryStarted {
        total: history.total(),
        problems,
    });
    // every chunk the app takes rebuilds its tree, statistics and finder: the
    // first domain goes at once, the next ones together at most every
    // CHUNK_EVERY (a history of many small domains would rebuild them per domain)
    let mut held: Option<testdeck_core::workspace::logs::Chunk> = None;
    let mut sent: Option<std::time::Instant> = None;
    loop {
        gate();
        let Some(chunk) = history.next() else { break };
        if let Some(b) = &mut building {
            b.add_runs(&chunk.runs);
            b.add_problems(chunk.problems.iter().cloned());
        }
        let chunk = match held.take() {
            Some(mut h) => {
                h.merge(chunk);
                h
            }
            None => chunk,
        };
        if sent.is_some_and(|t| t.elapsed() < CHUNK_EVERY) {
            held = Some(chunk);
        } else {
            send(Action::HistoryChunk(Box::new(chunk)));
            sent = Some(std::time::Instant::now());
        }
    }
    if let Some(h) = held {
        send(Action::HistoryChunk(Box::new(h)));
    }
    send(Action::HistoryDone);
    send(Action::Records(read_records(root)));
    if let (Some(dir), Some(b)) = (cache, building) {
        let _ = b.finish(root).store(dir, root);
    }
}

/// The workspace with its tests tree and plan only (no logs, no catalog): the first
/// frame's tree while the full index is built.
pub fn tree_only(root: &Path) -> Option<Workspace> {
    use testdeck_core::workspace::{config, logs, outside, plan, tree};
    if !root.is_dir() {
        return None;
    }
    let mut problems = Vec::new();
    let config = config::Config::load(root, &mut problems);
    let plan = plan::TestPlan::load(root, &mut problems);
    let patterns = tree::CasePatterns::new(&config.tests.patterns, &mut problems);
    let table = config.outside.as_ref();
    let tests = outside::scan_tests(root, &plan, &patterns, table, &mut problems);
    Some(Workspace {
        root: root.to_path_buf(),
        config,
        tests,
        logs: logs::Logs::default(),
        plan,
        catalog: None,
        problems: Vec::new(),
    })
}

/// The catalog's run records, each relative to the root, or why it cannot be read.
pub fn read_records(
    root: &Path,
) -> Vec<(String, Result<testdeck_exec::record::RunRecord, String>)> {
    testdeck_exec::record::list_records(root)
        .into_iter()
        .map(|(p, r)| {
            (
                testdeck_core::workspace::rel(root, &p),
                r.map_err(|e| e.to_string()),
            )
        })
        .collect()
}

/// Do a job that ends by itself (all but `Watch`) and give its result.
pub fn run_now(job: FeatureWork, root: &Path) -> Option<FeatureResult> {
    run_now_in(job, root, None)
}

/// [`run_now`] with the history cache folder `cache`: the import graph's index
/// kept there (`stale`'s change times and `--changed` parse only the modules
/// that changed since).
pub fn run_now_in(job: FeatureWork, root: &Path, cache: Option<&Path>) -> Option<FeatureResult> {
    match job {
        FeatureWork::Watch(..) => None,
        FeatureWork::Compare { a, b } => Some(FeatureResult::Compare(
            testdeck_core::workspace::diff::diff_runs(root, &root.join(&a), &root.join(&b))
                .map(Box::new),
        )),
        FeatureWork::Report { domain } => {
            let file = format!("tests/report/{domain}/report.md");
            if std::fs::symlink_metadata(root.join(&file)).is_err() {
                // no report yet: the draft the logs give, on the workspace on disk
                return Some(FeatureResult::ReportDraft {
                    draft: testdeck_core::workspace::Workspace::load(root)
                        .map_err(|e| e.to_string())
                        .and_then(|ws| testdeck_core::workspace::report::draft(&ws, &domain))
                        .map(Box::new),
                    domain,
                });
            }
            Some(FeatureResult::Report {
                text: read_report(root, &file),
                domain,
                file,
            })
        }
        FeatureWork::ReportUpdate { domain } => Some(FeatureResult::ReportUpdate(
            testdeck_core::workspace::Workspace::load(root)
                .map_err(|e| e.to_string())
                .and_then(|ws| testdeck_core::workspace::report::update(&ws, &domain))
                .map(Box::new),
        )),
        FeatureWork::ReportWrite(w) => Some(match *w {
            ReportWrite::Draft(d) => FeatureResult::ReportWritten {
                result: d.write(root).map(|()| {
                    format!(
                        "wrote {}: the parts marked {} are yours to write",
                        d.file,
                        testdeck_core::workspace::report::PLACEHOLDER
                    )
                }),
                domain: d.domain,
            },
            ReportWrite::Update(u) => FeatureResult::ReportWritten {
                result: u.write(root).map(|()| {
                    format!(
                        "updated {}: {} changes from the logs",
                        u.file,
                        u.changes.len()
                    )
                }),
                domain: u.domain,
            },
        }),
        FeatureWork::Contract(runs) => Some(FeatureResult::Contract(
            runs.iter()
                .map(|r| {
                    (
                        r.path.clone(),
                        testdeck_core::workspace::contract::check_run(root, r).len(),
                    )
                })
                .collect(),
        )),
        FeatureWork::Preview {
            file,
            within,
            label,
            background,
        } => Some(FeatureResult::Preview {
            preview: super::image::load_over(&file, &within, &label, background),
            file,
        }),
        FeatureWork::Trace {
            file,
            within,
            label,
        } => Some(FeatureResult::Trace {
            // opened beneath its run folder, bounded (a bomb or a broken zip is a
            // located problem)
            trace: testdeck_core::workspace::trace::Trace::read(&file, Some(&within), &label)
                .map(Arc::new)
                .map_err(|p| p.to_string()),
            root_real: root.canonicalize().ok(),
            file,
        }),
        FeatureWork::TraceFrame {
            file,
            trace,
            frame,
            background,
        } => Some(FeatureResult::TraceFrame {
            preview: trace
                .frame_bytes(&frame)
                .map_err(|p| p.to_string())
                .and_then(|b| {
                    super::image::decode_jpeg(&b, background)
                        .map_err(|e| format!("{}: {e}", frame.entry))
                }),
            entry: frame.entry,
            file,
        }),
        FeatureWork::Digest { run } => Some(FeatureResult::Digest {
            digest: Box::new(testdeck_core::workspace::failure::Digest::read(
                root,
                &root.join(&run),
            )),
            run,
        }),
        // the same load and rules as `testdeck validate`: one home for the list
        FeatureWork::Validate => {
            let mut contract = Vec::new();
            Some(FeatureResult::Validate(
                testdeck_core::workspace::Workspace::load_with(root, Some(&mut contract))
                    .map(|ws| testdeck_core::workspace::validate::validate_with(&ws, contract))
                    .map_err(|e| e.to_string()),
            ))
        }
        FeatureWork::ChangeTimes { files } => Some(FeatureResult::ChangeTimes(Box::new(
            testdeck_core::workspace::insights::ChangeTimes::read_files(root, files, cache),
        ))),
        // git is asked off the UI thread, on the workspace as it is on disk
        FeatureWork::Changed => Some(FeatureResult::Changed(
            testdeck_core::workspace::Workspace::load(root)
                .map_err(|e| e.to_string())
                .and_then(|ws| {
                    testdeck_core::workspace::changed::changed_in(&ws, None, cache)
                        .map_err(|e| e.to_string())
                }),
        )),
        // `a`: the same core steps as `testdeck new`, on the workspace as it is on disk
        FeatureWork::NewCasePlan { target } => {
            let case = testdeck_core::workspace::Workspace::load_tree(root)
                .map_err(|e| e.to_string())
                .and_then(|ws| {
                    let mut c = NewCase::prepare(&ws, &target).map_err(|e| e.to_string())?;
                    c.write_plan(root).map_err(|e| e.to_string())?;
                    Ok(Box::new(c))
                });
            let set = |n: &str| std::env::var(n).is_ok_and(|v| !v.trim().is_empty());
            Some(FeatureResult::NewCasePlanned {
                case,
                editor: set("VISUAL") || set("EDITOR"),
            })
        }
        FeatureWork::NewCaseFile(c) => Some(FeatureResult::NewCaseWritten(
            c.write_test(root).map(|()| c).map_err(|e| e.to_string()),
        )),
        // `a` on a temp case: the same core steps as `testdeck adopt`
        FeatureWork::AdoptPlan { file, to } => {
            let adoption = testdeck_core::workspace::Workspace::load_tree(root)
                .map_err(|e| e.to_string())
                .and_then(|ws| {
                    let mut a = testdeck_core::workspace::adopt::Adoption::adopt(&ws, &file, &to)
                        .map_err(|e| e.to_string())?;
                    a.case.write_plan(root).map_err(|e| e.to_string())?;
                    Ok(Box::new(a))
                });
            let set = |n: &str| std::env::var(n).is_ok_and(|v| !v.trim().is_empty());
            Some(FeatureResult::AdoptPlanned {
                adoption,
                editor: set("VISUAL") || set("EDITOR"),
            })
        }
        FeatureWork::AdoptMove(a) => Some(FeatureResult::AdoptDone(
            a.case
                .write_test(root)
                .and_then(|()| a.move_runs(root))
                .map(|()| a)
                .map_err(|e| e.to_string()),
        )),
    }
}

fn read_report(root: &Path, file: &str) -> Result<String, String> {
    use testdeck_core::workspace::read;
    let p = root.join(file);
    // the report stays in its domain's folder under tests/report (no link out)
    let within = p.parent().and_then(Path::parent).unwrap_or(root);
    match read::read_lossy(&p, Some(within), read::Kind::Markdown) {
        Ok(text) => Ok(text),
        Err(e) if e.is_missing() => Err(format!("{file}: no report for this domain")),
        Err(e) => Err(format!("{file}: {e}")),
    }
}

/// The watch thread, and threads for jobs.
#[derive(Default)]
pub(crate) struct Jobs {
    watch: Option<(Cancel, std::thread::JoinHandle<()>)>,
    /// Watches being stopped (joined before the app ends, so no rerun outlives it).
    stopping: Vec<std::thread::JoinHandle<()>>,
}

impl Jobs {
    pub fn run(
        &mut self,
        job: FeatureWork,
        root: &Path,
        cache: Option<&Path>,
        send: ActionSink,
        changes: Option<testdeck_core::workspace::watch::Subscription>,
    ) {
        match job {
            FeatureWork::Watch(generation, opts) => {
                if let Some((c, h)) = self.watch.take() {
                    c.cancel();
                    self.stopping.push(h);
                }
                let Some(mut opts) = opts else { return };
                // the import graph's index of the history cache, when the cockpit keeps one
                if opts.cache.is_none() {
                    opts.cache = cache.map(Path::to_path_buf);
                }
                let Some(changes) = changes else {
                    send(Action::WorkDone(Box::new(FeatureResult::WatchEnded {
                        generation,
                        error: Some("the workspace is not watched".into()),
                    })));
                    return;
                };
                let cancel = Cancel::default();
                let stop = cancel.clone();
                let root = root.to_path_buf();
                let h = std::thread::spawn(move || {
                    let s = send.clone();
                    let sink: testdeck_exec::watch_mode::WatchSink = Arc::new(move |ev| {
                        // a rerun's run reaches the pane through its follow, as a launch's
                        if matches!(
                            ev,
                            testdeck_exec::watch_mode::WatchEvent::Exec(
                                testdeck_exec::ExecEvent::Timeline { .. }
                            )
                        ) {
                            return;
                        }
                        s(Action::WorkDone(Box::new(FeatureResult::Watch {
                            generation,
                            event: Box::new(ev),
                        })));
                    });
                    let r = testdeck_exec::watch_mode::watch(&root, &opts, &sink, &stop, &changes);
                    send(Action::WorkDone(Box::new(FeatureResult::WatchEnded {
                        generation,
                        error: r.err(),
                    })));
                });
                self.watch = Some((cancel, h));
            }
            other => {
                let root = root.to_path_buf();
                let cache = cache.map(Path::to_path_buf);
                std::thread::spawn(move || {
                    if let Some(d) = run_now_in(other, &root, cache.as_deref()) {
                        send(Action::WorkDone(Box::new(d)));
                    }
                });
            }
        }
    }

    /// Stop the watch and wait for its rerun's processes to be gone.
    pub(crate) fn stop(&mut self) {
        if let Some((c, h)) = self.watch.take() {
            c.cancel();
            self.stopping.push(h);
        }
        for h in self.stopping.drain(..) {
            let _ = h.join();
        }
    }
}

impl Drop for Jobs {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn a_finished_run_is_read_to_its_unterminated_last_line() {
        let text =
            lines("s", 1..=2) + "{\"type\":\"step\",\"name\":\"last\"}\n{\"name\":\"no-newline\"}";
        let (ws, dir) = run_with(&text);
        std::fs::write(dir.join(testdeck_core::workspace::run_folder::META), META).expect("meta");
        let data = load_run(ws.path(), REL);
        assert!(!data.in_progress);
        assert!(data.follower.is_none(), "a finished run is not followed");
        assert_eq!(names(&data.events), ["s1", "s2", "last", "no-newline"]);
    }

    /// Opening a run whose `meta.json` is still being written: in progress and
    /// followed (it was taken as finished once the file merely existed).
    #[test]
    fn a_run_opened_with_a_half_written_meta_json_is_in_progress() {
        let (ws, dir) = run_with(&lines("s", 1..=2));
        std::fs::write(
            dir.join(testdeck_core::workspace::run_folder::META),
            &META[..20],
        )
        .expect("meta");
        let data = load_run(ws.path(), REL);
        assert!(data.in_progress, "a half-written meta.json is not the end");
        assert!(
            data.follower.is_some(),
            "it is followed until meta.json reads"
        );
        assert_eq!(names(&data.events), ["s1", "s2"]);
    }

    #[test]
    fn broken_lines_are_problems_with_their_line_number() {
        let text = line("a") + "\nnot json\n" + &line("b");
        let (ws, _dir) = run_with(&text);
        let data = load_run(ws.path(), REL);
        // the blank line 2 counts; the broken line is shown as its raw text
        assert_eq!(data.events.len(), 3);
        assert_eq!(data.problems.len(), 1, "{:?}", data.problems);
        assert!(
            data.problems[0].starts_with("line 3: "),
            "{:?}",
            data.problems
        );
    }

    #[test]
    fn an_in_progress_run_hides_its_partial_line_until_it_is_completed() {
        let (ws, dir) = run_with(&(lines("s", 1..=3) + "{\"type\":\"step\",\"na"));
        let (mut app, follower) = app_showing(ws.path());
        assert_eq!(shown(&app), ["s1", "s2", "s3"]);
        let follower = follower.expect("an in-progress run is followed");
        let (rx, _stop, t) = follow_on_thread(follower, &dir);
        // a writer finishes the line, appends more, then ends the run
        let wdir = dir.clone();
        let writer = std::thread::spawn(move || {
            append(&wdir, "me\":\"s4\",\"status\":\"ok\"}\n");
            for i in 5..=40 {
                append(&wdir, &line(&format!("s{i}")));
                if i % 8 == 0 {
                    std::thread::sleep(Duration::from_millis(30));
                }
            }
            // the last line never gets its newline: it shows when the run ends
            append(&wdir, "{\"type\":\"run\",\"name\":\"end\"}");
            std::thread::sleep(Duration::from_millis(50));
            std::fs::write(wdir.join(testdeck_core::workspace::run_folder::META), META)
                .expect("meta");
        });
        let seen = drain_until_finished(&mut app, &rx);
        writer.join().expect("writer");
        joined(t);
        assert!(seen.iter().all(|s| !s.0), "no reset: {seen:?}");
        let mut want: Vec<String> = (1..=40).map(|i| format!("s{i}")).collect();
        want.push("end".into());
        // exactly once and in order, across load and follow
        assert_eq!(shown(&app), want);
        let last = seen.last().expect("appends");
        assert!(last.1.contains(&"end".to_owned()), "{seen:?}");
        assert!(!app.live().run().expect("run").in_progress);
    }

    /// meta.json is seen the moment it is created, before its content: the run
    /// ends only once it reads as JSON (then the index finds its status), or when
    /// it stays broken for `META_SETTLE`.
    #[test]
    fn the_run_ends_when_meta_json_reads_not_when_it_appears() {
        let (ws, dir) = run_with(&lines("s", 1..=2));
        let (mut app, follower) = app_showing(ws.path());
        let (rx, _stop, t) = follow_on_thread(follower.expect("followed"), &dir);
        // half a meta.json, then a line: the line comes in a batch that does
        // not end the run
        std::fs::write(
            dir.join(testdeck_core::workspace::run_folder::META),
            &META[..20],
        )
        .expect("meta");
        append(&dir, &line("after-half-meta"));
        loop {
            let a = rx
                .recv_timeout(Duration::from_secs(30))
                .expect("the line after the half meta.json");
            let (_, (_, events, finished)) = taken(&mut app, a);
            assert!(!finished, "ended on a meta.json still being written");
            if events.iter().any(|e| e == "after-half-meta") {
                break;
            }
        }
        std::fs::write(dir.join(testdeck_core::workspace::run_folder::META), META).expect("meta");
        let seen = drain_until_finished(&mut app, &rx);
        joined(t);
        assert!(seen.last().is_some_and(|s| s.2));
        assert_eq!(shown(&app), ["s1", "s2", "after-half-meta"]);

        // a meta.json left broken still ends the run, after a moment
        let (ws, dir) = run_with(&lines("b", 1..=1));
        let (mut app, follower) = app_showing(ws.path());
        let (rx, _stop, t) = follow_on_thread(follower.expect("followed"), &dir);
        std::fs::write(
            dir.join(testdeck_core::workspace::run_folder::META),
            "{broken",
        )
        .expect("meta");
        drain_until_finished(&mut app, &rx);
        joined(t);
        assert!(!app.live().run().expect("run").in_progress);
    }

    /// Apply the follow task's actions to the app until it shows `want`.
    fn wait_shown(app: &mut App, rx: &mpsc::Receiver<Action>, want: &[&str]) -> Vec<bool> {
        let mut resets = Vec::new();
        while shown(app) != want {
            let a = rx
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("never shown {want:?}; shown {:?}", shown(app)));
            resets.push(taken(app, a).1.0);
        }
        resets
    }

    /// Wait for the thread to end, failing (not hanging) when it does not.
    fn joined(t: std::thread::JoinHandle<()>) {
        let start = std::time::Instant::now();
        while !t.is_finished() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the follow task did not stop"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        t.join().expect("follow task");
    }

    #[test]
    fn a_replacement_by_rename_shows_the_new_file_only() {
        let (ws, dir) = run_with(&lines("old", 1..=3));
        let (mut app, follower) = app_showing(ws.path());
        let (rx, _stop, t) = follow_on_thread(follower.expect("followed"), &dir);
        // this thread writes while the follow task reads on its own
        append(&dir, &lines("old", 4..=5));
        let resets = wait_shown(&mut app, &rx, &["old1", "old2", "old3", "old4", "old5"]);
        assert!(resets.iter().all(|r| !r), "{resets:?}");
        // the atomic-write pattern: a new file renamed over the timeline
        let tmp = dir.join("timeline.jsonl.tmp");
        std::fs::write(&tmp, lines("new", 1..=3)).expect("tmp");
        std::fs::rename(
            &tmp,
            dir.join(testdeck_core::workspace::run_folder::TIMELINE),
        )
        .expect("rename");
        let resets = wait_shown(&mut app, &rx, &["new1", "new2", "new3"]);
        assert_eq!(resets.first(), Some(&true), "{resets:?}");
        append(&dir, &line("new4"));
        wait_shown(&mut app, &rx, &["new1", "new2", "new3", "new4"]);
        // rewritten in place at the same size: only the first line tells
        std::fs::write(
            dir.join(testdeck_core::workspace::run_folder::TIMELINE),
            lines("neW", 1..=4),
        )
        .expect("rewrite");
        let resets = wait_shown(&mut app, &rx, &["neW1", "neW2", "neW3", "neW4"]);
        assert_eq!(resets.first(), Some(&true), "{resets:?}");
        append(&dir, &line("neW5"));
        std::fs::write(dir.join(testdeck_core::workspace::run_folder::META), META).expect("meta");
        let seen = drain_until_finished(&mut app, &rx);
        joined(t);
        assert!(seen.iter().all(|s| !s.0), "{seen:?}");
        assert_eq!(shown(&app), ["neW1", "neW2", "neW3", "neW4", "neW5"]);
    }

    #[test]
    fn stop_ends_the_follow_task_and_it_sends_nothing_more() {
        let (ws, dir) = run_with(&lines("s", 1..=2));
        let (_app, follower) = app_showing(ws.path());
        let follower = follower.expect("followed");
        let (rx, stop, t) = follow_on_thread(follower, &dir);
        drop(Following { stop });
        joined(t);
        append(&dir, &line("late"));
        assert!(rx.try_recv().is_err(), "an action after the stop");
    }

    #[test]
    fn a_huge_timeline_keeps_its_last_events_and_says_how_many_were_not_loaded() {
        let (ws, dir) = run_with(&lines("e", 1..=250));
        std::fs::write(dir.join(testdeck_core::workspace::run_folder::META), META).expect("meta");
        let data = load_run_capped(ws.path(), REL, 100);
        assert_eq!(data.events.len(), 100);
        assert_eq!(data.events.front().map(|e| e.name.as_str()), Some("e151"));
        assert_eq!(data.events.back().map(|e| e.name.as_str()), Some("e250"));
        assert_eq!(data.skipped, 150);
        let notes = data.problem_lines();
        assert!(
            notes[0].contains("150 earlier lines not loaded"),
            "{notes:?}"
        );
        // the live pane keeps the same bound while it follows
        let (ws, dir) = run_with(&lines("e", 1..=5));
        let (mut app, follower) = app_showing(ws.path());
        app.live_mut().set_cap(8);
        let (rx, _stop, t) = follow_on_thread(follower.expect("followed"), &dir);
        append(&dir, &lines("e", 6..=20));
        std::fs::write(dir.join(testdeck_core::workspace::run_folder::META), META).expect("meta");
        drain_until_finished(&mut app, &rx);
        joined(t);
        let want: Vec<String> = (13..=20).map(|i| format!("e{i}")).collect();
        assert_eq!(shown(&app), want);
        assert_eq!(app.live().run().expect("run").skipped, 12);
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
            c.until("the first index", |a| a.ws().is_some() && !a.indexing());
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

    const CASE: &str = "shop/backend/cart/add";
    const CASE_RUN: &str = "tests/logs/shop/backend/cart/add/20260401-120000-000";

    /// A workspace with the case `CASE` and a runner script, `runner.sh`, that
    /// does `script` in the root.
    fn workspace_with_runner(script: &str) -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::tempdir().expect("tmp");
        let root = d.path().canonicalize().expect("real");
        let write = |rel: &str, text: &str| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, text).expect("write");
        };
        write("tests/shop/backend/cart/add.test.ts", "// the case\n");
        write("doc/test-plan/shop.md", "| add | adds to the cart |\n");
        write(
            "testdeck.toml",
            "[runner]\ncommand = [\"sh\", \"runner.sh\"]\n",
        );
        write("runner.sh", script);
        (d, root)
    }

    /// Issue 30: a launch's end is no full load of the workspace. The runtime
    /// as it runs (its index, the one watcher, a real launch of a runner that
    /// writes a failed run with an artifact): once the launch is done the tree
    /// shows the case failed, the statistics and the Runs tab count the run,
    /// the live pane shows its artifact — and the workspace was loaded whole
    /// once, at the start.
    #[test]
    fn a_launch_s_end_reaches_the_tree_stats_runs_and_artifacts_without_a_full_load() {
        let (_d, root) = workspace_with_runner(&format!(
            "d={CASE_RUN}\n\
             mkdir -p $d/artifacts\n\
             printf '{{\"type\":\"step\",\"name\":\"first-step\",\"status\":\"ok\"}}\\n' >> $d/timeline.jsonl\n\
             printf 'not really a png' > $d/artifacts/shot.png\n\
             printf '{{\"schemaVersion\":4,\"items\":[{{\"id\":\"shot\",\"kind\":\"screenshot\",\"path\":\"artifacts/shot.png\",\"refs\":{{}}}}]}}' > $d/artifacts.json\n\
             printf '{{\"schemaVersion\":4,\"runId\":\"20260401-120000-000\",\"caseId\":\"add\",\"scope\":\"shop/backend/cart\",\"status\":\"failed\"}}' > $d/meta.json\n"
        ));
        let mut c = Cockpit::open(&root);
        assert_eq!(full_loads(&root), 1, "the first index");
        assert!(c.app.jump_to(CASE), "no case {CASE}");
        assert_eq!(c.app.selected_case().map(|r| r.latest), Some(None));
        let fx = c.app.update(Action::Cmd(crate::action::Command::Run));
        assert!(
            fx.iter().any(|e| matches!(e, Effect::Launch { .. })),
            "no launch: {fx:?} {:?}",
            c.app.notice()
        );
        c.apply(fx);
        c.until("the launch done", |a| {
            a.launch().running() == 0
                && a.notice()
                    .as_deref()
                    .is_some_and(|n| n.starts_with("launch done"))
        });
        let failed = Some(testdeck_core::workspace::logs::RunStatus::Failed);
        c.until(
            "the case failed, its run counted and its artifact shown",
            |a| {
                let case = a.tests().cases().iter().find(|r| r.key == CASE);
                let counted = a
                    .tests()
                    .stats()
                    .get(CASE)
                    .is_some_and(|s| s.historical.failed_runs == 1);
                let listed = a.ws().as_ref().is_some_and(|ws| {
                    a.runs().visible().iter().any(|r| {
                    matches!(r, crate::app::RunRow::Tests(i) if ws.logs.runs[*i].path == CASE_RUN)
                })
                });
                let shown = a.live().run().is_some_and(|r| {
                    r.path == CASE_RUN && !r.in_progress && r.artifacts.len() == 1
                });
                case.is_some_and(|r| r.latest == failed && r.runs == 1)
                    && counted
                    && listed
                    && shown
            },
        );
        // the tree's row says it too
        assert_eq!(c.app.selected_case().map(|r| r.latest), Some(failed));
        assert_eq!(full_loads(&root), 1, "a full load after the launch");
    }

    /// Issue 30, one pipe per run: a launch's run reaches the live pane through
    /// the follow of its folder only, as a run another process started does.
    /// A real launch of a runner that writes its timeline over time: the pane
    /// shows every event, in order, among the launch's own rows (the case's
    /// start and end, the runner's line); the app took them from a follow
    /// queue, and none entered the launch's queue.
    #[test]
    fn a_launch_s_run_reaches_the_live_pane_through_the_follow_path_only() {
        let (_d, root) = workspace_with_runner(&format!(
            "d={CASE_RUN}\n\
             echo runner-says-hi\n\
             mkdir -p $d\n\
             for i in 1 2 3 4 5; do\n\
               printf '{{\"type\":\"step\",\"name\":\"step-%s\",\"status\":\"ok\"}}\\n' $i >> $d/timeline.jsonl\n\
               sleep 0.1\n\
             done\n\
             printf '{{\"schemaVersion\":4,\"runId\":\"20260401-120000-000\",\"caseId\":\"add\",\"scope\":\"shop/backend/cart\",\"status\":\"passed\"}}' > $d/meta.json\n"
        ));
        let mut c = Cockpit::open(&root);
        assert!(c.app.jump_to(CASE), "no case {CASE}");
        let fx = c.app.update(Action::Cmd(crate::action::Command::Run));
        assert!(
            fx.iter().any(|e| matches!(e, Effect::Launch { .. })),
            "no launch: {fx:?} {:?}",
            c.app.notice()
        );
        c.apply(fx);
        let want: Vec<String> = (1..=5).map(|i| format!("step-{i}")).collect();
        let steps = |a: &App| -> Vec<String> {
            a.live()
                .run()
                .filter(|r| r.path == CASE_RUN)
                .map(|r| {
                    r.events
                        .iter()
                        .filter(|e| e.kind == "step")
                        .map(|e| e.name.clone())
                        .collect()
                })
                .unwrap_or_default()
        };
        c.until("every step of the launch's run shown", |a| steps(a) == want);
        let (followed, launched) = c.timeline_ways();
        assert!(followed >= 5, "{followed} events came through a follow");
        assert_eq!(launched, 0, "timeline events entered a launch queue");
        c.until("the launch done", |a| {
            a.launch().running() == 0
                && a.notice()
                    .as_deref()
                    .is_some_and(|n| n.starts_with("launch done"))
        });
        // the launch's own rows around its run's events, each once, in order
        let rows: Vec<String> = c
            .app
            .live()
            .run()
            .expect("the launch's run shown")
            .events
            .iter()
            .map(|e| format!("{} {} {}", e.kind, e.name, e.message))
            .collect();
        let at = |p: &str| {
            let hits: Vec<usize> = (0..rows.len())
                .filter(|&i| rows[i].starts_with(p))
                .collect();
            assert_eq!(hits.len(), 1, "{p:?} in {rows:#?}");
            hits[0]
        };
        at("out  runner-says-hi");
        let start = at(&format!("run start {CASE}"));
        let first = at("step step-1");
        let last = at("step step-5");
        let end = at("run end pass");
        assert!(start < first && first < last && last < end, "{rows:#?}");
        assert_eq!(steps(&c.app), want);
        let (_, launched) = c.timeline_ways();
        assert_eq!(launched, 0, "timeline events entered a launch queue");
    }

    /// Issue 30: a run another process writes, followed live, ends without a
    /// full load: the watch applies its end (the tree, the statistics) and the
    /// live pane reads it again once the index has it ended (its artifact).
    #[test]
    fn a_followed_run_s_end_reaches_the_tree_and_its_artifacts_without_a_full_load() {
        let (_d, root) = workspace_with_runner("exit 0\n");
        let mut c = Cockpit::open(&root);
        // each file appears whole (written aside, then renamed), as a runner
        // finishing a run writes them: what is checked here is that the end
        // reaches the panes, not how a half-written meta.json is read
        let write = |rel: &str, text: &str| {
            let p = root.join(CASE_RUN).join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            let aside = p.with_extension("part");
            std::fs::write(&aside, text).expect("write");
            std::fs::rename(&aside, &p).expect("rename");
        };
        write("timeline.jsonl", &line("external-step"));
        // nothing else live: the selection goes to the new run, followed
        c.until("the new run followed", |a| {
            a.live()
                .run()
                .is_some_and(|r| r.path == CASE_RUN && r.in_progress && r.events.len() == 1)
        });
        write("artifacts/shot.png", "not really a png");
        write(
            "artifacts.json",
            r#"{"schemaVersion":4,"items":[{"id":"shot","kind":"screenshot","path":"artifacts/shot.png","refs":{}}]}"#,
        );
        write(
            "meta.json",
            r#"{"schemaVersion":4,"runId":"20260401-120000-000","status":"passed"}"#,
        );
        let passed = Some(testdeck_core::workspace::logs::RunStatus::Passed);
        c.until("the case passed and the run's artifact shown", |a| {
            let case = a.tests().cases().iter().find(|r| r.key == CASE);
            let counted = a
                .tests()
                .stats()
                .get(CASE)
                .is_some_and(|s| s.historical.passed_runs == 1);
            let shown = a
                .live()
                .run()
                .is_some_and(|r| r.path == CASE_RUN && !r.in_progress && r.artifacts.len() == 1);
            case.is_some_and(|r| r.latest == passed) && counted && shown
        });
        assert_eq!(full_loads(&root), 1, "a full load after the run ended");
    }

    #[test]
    fn watch_mode_subscribes_to_the_one_workspace_watcher() {
        use testdeck_core::workspace::watch::instances;
        use testdeck_exec::watch_mode::{WatchEvent, WatchNote, WatchOptions};
        let ws = tempfile::tempdir().expect("tmp");
        let root = ws.path().canonicalize().expect("real");
        let file = root.join("tests/ai/backend/s/case-a.test.ts");
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        std::fs::write(&file, "// case\n").expect("write");
        let (tx, rx) = mpsc::channel();
        let tx = std::sync::Mutex::new(tx);
        let send: ActionSink = Arc::new(move |a| {
            let _ = tx.lock().map(|t| t.send(a));
        });
        let mut rt = Runtime::new(root.clone(), send);
        rt.start_watching();
        // `w` on: watch mode's job
        let opts = WatchOptions {
            targets: vec!["ai/backend/s/case-a".into()],
            ..WatchOptions::default()
        };
        rt.apply(Effect::Work(FeatureWork::Watch(1, Some(Box::new(opts)))));
        let note = |want: &dyn Fn(&WatchNote) -> bool| loop {
            let a = rx
                .recv_timeout(Duration::from_secs(20))
                .expect("a watch event");
            let Action::WorkDone(d) = a else { continue };
            match *d {
                FeatureResult::Watch { event, .. } => {
                    if matches!(*event, WatchEvent::Note(ref n) if want(n)) {
                        return;
                    }
                }
                FeatureResult::WatchEnded { error, .. } => panic!("watch ended: {error:?}"),
                _ => {}
            }
        };
        note(&|n| matches!(n, WatchNote::WatchStart { .. }));
        assert_eq!(
            instances(&root),
            1,
            "one watcher for the model and watch mode"
        );
        // a save reaches watch mode through the one watcher
        std::fs::write(&file, "// saved\n").expect("save");
        note(&|n| matches!(n, WatchNote::WatchTrigger { .. }));
        assert_eq!(instances(&root), 1);
        rt.stop();
        drop(rt);
        assert_eq!(instances(&root), 0);
    }

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
        let runs = a.ws().as_ref().map_or_else(Vec::new, |ws| {
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
            a.indexing() && history_shown(a).0 == cached
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
        assert!(c.app.indexing());
        assert_eq!(shown.0, cached);
        assert_eq!(shown.1, 12, "the Runs tab lists the cached runs");
        assert_eq!(shown.2, (10, 2), "the statistics count the cached runs");
        assert_eq!(
            full_loads(&root),
            1,
            "the warm open read the history in full"
        );
        drop(hold);
        c.until("the check applied", |a| !a.indexing());
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

    mod one_store;
}
