//! The one workspace watcher: notify watches within a budget (a small share of
//! the person's inotify watches, which every program of theirs shares), the
//! folders past it polled by their modification times, changed paths debounced
//! and classified as [`Change`]s for whoever subscribes (the cockpit's model,
//! watch mode).

use super::changes::{Change, classify};
use super::{config, logs, rel, walk};
use crate::problem::Problem;
use crate::workspace::config::ConfigLoad as _;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

/// An environment variable that sets the budget (a number of watches): tests
/// set it low to see the polling at work on a small workspace.
pub const BUDGET_ENV: &str = "TESTDECK_WATCH_BUDGET";
/// testdeck takes at most one eighth of the person's inotify watches: the limit
/// (`fs.inotify.max_user_watches`) is per user, shared with their editor, their
/// file manager, their build tools; at the old default of 8,192 this leaves
/// 7,168 to the rest.
pub const BUDGET_SHARE: usize = 8;
/// And never more than this many, whatever the limit (a kernel that sizes the
/// limit from its memory may allow a million): a watch costs about a kilobyte
/// of kernel memory. A new run folder is seen at once only in a watched case
/// folder (elsewhere by the next poll, up to [`POLL_EVERY`] later), so the cap
/// leaves room for the tests tree, its plan and catalog and every case folder
/// of a 10k-case history (4,096 left most of them polled: a new run took a
/// second to appear).
pub const BUDGET_CAP: usize = 16_384;
/// How often the folders past the budget are polled (one `stat` each).
pub const POLL_EVERY: Duration = Duration::from_secs(1);
/// A burst of writes is handed on this long after its last change: a new run
/// is on screen well within a second.
const QUIET: Duration = Duration::from_millis(80);
/// A run that writes without a pause is still handed on this often.
const MAX_WAIT: Duration = Duration::from_millis(400);
/// How often the loop looks at its stop flag when nothing happens.
const TICK: Duration = Duration::from_millis(100);
/// Where the person's inotify limit is read.
const LIMIT_FILE: &str = "/proc/sys/fs/inotify/max_user_watches";

/// The person's inotify limit (`None` where the system does not say).
fn user_limit() -> Option<usize> {
    std::fs::read_to_string(LIMIT_FILE)
        .ok()
        .and_then(|s| s.trim().parse().ok())
}

/// How many folders the watcher may watch: [`BUDGET_ENV`] when set, else
/// [`BUDGET_SHARE`] of the person's limit, at most [`BUDGET_CAP`].
pub fn budget() -> usize {
    if let Some(n) = std::env::var(BUDGET_ENV)
        .ok()
        .and_then(|v| v.trim().parse().ok())
    {
        return n;
    }
    user_limit().map_or(BUDGET_CAP, |l| (l / BUDGET_SHARE).clamp(1, BUDGET_CAP))
}

/// Collects changed paths and says when a burst is over: `quiet` after the
/// last change, or `max_wait` after the first. Driven by timestamps only, so
/// it is tested without sleeping.
#[derive(Debug, Clone)]
pub struct Debouncer {
    quiet: Duration,
    max_wait: Duration,
    pending: BTreeSet<PathBuf>,
    first: Option<Instant>,
    last: Option<Instant>,
    /// A change that must not wait for the burst's end is pending.
    urgent: bool,
    /// The first change after a quiet spell is due at once ([`Debouncer::leading`]).
    leading: bool,
    /// When the last burst was handed on.
    taken: Option<Instant>,
}

impl Debouncer {
    /// A debouncer that waits for `quiet` without changes, at most `max_wait`.
    pub fn new(quiet: Duration, max_wait: Duration) -> Self {
        Self {
            quiet,
            max_wait,
            pending: BTreeSet::new(),
            first: None,
            last: None,
            urgent: false,
            leading: false,
            taken: None,
        }
    }
    /// A debouncer whose first change after a quiet spell (no burst handed on
    /// within `quiet`) is due at once — a single save starts its work without
    /// waiting — while the changes that follow within `quiet` wait for their
    /// burst's end (`quiet` after the last, `max_wait` after the first) and are
    /// handed on together.
    pub fn leading(quiet: Duration, max_wait: Duration) -> Self {
        Self {
            leading: true,
            ..Self::new(quiet, max_wait)
        }
    }
    /// A change at `now`.
    pub fn push(&mut self, path: PathBuf, now: Instant) {
        self.pending.insert(path);
        self.first.get_or_insert(now);
        self.last = Some(now);
    }
    /// A change at `now` handed on at once, with whatever is pending (a new
    /// run: on screen without waiting for its runner to pause).
    pub fn push_urgent(&mut self, path: PathBuf, now: Instant) {
        self.push(path, now);
        self.urgent = true;
    }
    /// When the current burst ends (none without pending changes).
    pub fn deadline(&self) -> Option<Instant> {
        match (self.first, self.last) {
            (Some(f), _) if self.urgent => Some(f),
            (Some(f), _) if self.leading && self.taken.is_none_or(|t| f >= t + self.quiet) => {
                Some(f)
            }
            (Some(f), Some(l)) => Some((l + self.quiet).min(f + self.max_wait)),
            _ => None,
        }
    }
    /// How long a watch loop may wait for the next event at `now`: until the
    /// burst ends, and never longer than `tick` (its stop flag is looked at then).
    pub fn wait(&self, now: Instant, tick: Duration) -> Duration {
        self.deadline()
            .map_or(tick, |d| d.saturating_duration_since(now))
            .min(tick)
    }
    /// The paths of a burst that is over at `now`, sorted; `None` while it goes on.
    pub fn take_due(&mut self, now: Instant) -> Option<Vec<PathBuf>> {
        if self.deadline().is_some_and(|d| now >= d) {
            self.taken = Some(now);
            self.first = None;
            self.last = None;
            self.urgent = false;
            Some(std::mem::take(&mut self.pending).into_iter().collect())
        } else {
            None
        }
    }
    /// Whether no change is waiting.
    pub fn is_idle(&self) -> bool {
        self.pending.is_empty()
    }
}

/// What the watcher hands its subscribers after a burst of changes.
#[derive(Debug, Clone, Default)]
pub struct Batch {
    /// The changed paths, absolute, sorted: those of the workspace's model, and
    /// those of the code under test for a subscriber that asked for it.
    pub paths: Vec<PathBuf>,
    /// What they change in the model.
    pub changes: BTreeSet<Change>,
    /// Said once, in the first batch: what the watcher does not watch (past its
    /// budget, or a watch the system refused) and polls instead.
    pub problems: Vec<Problem>,
}

/// The roots of the watchers alive in this process, one entry each (a test hook:
/// [`instances`]; tests and the test kit only).
#[cfg(any(test, feature = "testkit"))]
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// How many watchers of the workspace at `root` are alive in this process.
#[cfg(any(test, feature = "testkit"))]
pub fn instances(root: &Path) -> usize {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    LIVE.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .filter(|r| **r == root)
        .count()
}

/// Told every changed path at once, before any debounce (see [`WorkspaceWatcher::tap`]).
pub type Tap = Box<dyn Fn(&Path) + Send + Sync>;

#[derive(Default)]
struct Shared {
    subscribers: Mutex<Vec<Sender<Arc<Batch>>>>,
    /// Told every changed path as it comes.
    taps: Mutex<Vec<Tap>>,
    /// The `[watch] paths` globs a subscriber asked to be told about, not yet
    /// watched by the thread.
    sources: Mutex<Option<Vec<String>>>,
    /// The set-up is done: changes from now on are seen.
    ready: AtomicBool,
}

/// The watcher of one workspace, on a thread of its own; dropping it stops the
/// thread and waits for it.
pub struct WorkspaceWatcher {
    root: PathBuf,
    stop: Arc<AtomicBool>,
    /// Wakes the thread from its wait for events, so that a drop does not
    /// wait for its next look at `stop` (up to [`TICK`]: a quit waited for it).
    wake: Sender<notify::Result<notify::Event>>,
    shared: Arc<Shared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for WorkspaceWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkspaceWatcher")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl WorkspaceWatcher {
    /// Watch the workspace at `root`: its tests tree and logs, its plan, its
    /// catalog and `testdeck.toml`. The receiver is the first subscription (it
    /// gets the problems of the set-up).
    pub fn start(root: &Path) -> (WorkspaceWatcher, Receiver<Arc<Batch>>) {
        Self::start_within(root, budget())
    }

    /// [`WorkspaceWatcher::start`] with a budget of `budget` watches (a test
    /// sees the polling on a small workspace).
    pub fn start_within(root: &Path, budget: usize) -> (WorkspaceWatcher, Receiver<Arc<Batch>>) {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        #[cfg(any(test, feature = "testkit"))]
        LIVE.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(root.clone());
        let shared = Arc::new(Shared::default());
        let (tx, rx) = channel();
        shared
            .subscribers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(tx);
        let stop = Arc::new(AtomicBool::new(false));
        let (wake, events) = channel::<notify::Result<notify::Event>>();
        let thread = {
            let (root, shared, stop) = (root.clone(), shared.clone(), stop.clone());
            let sender = wake.clone();
            std::thread::spawn(move || run(&root, budget, &shared, &stop, (sender, events)))
        };
        let w = WorkspaceWatcher {
            root,
            stop,
            wake,
            shared,
            thread: Some(thread),
        };
        (w, rx)
    }

    /// Whether the watches are set up: a change from now on is seen.
    pub fn ready(&self) -> bool {
        self.shared.ready.load(Ordering::SeqCst)
    }

    /// The workspace's root, as watched.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Tell `tap` every path that changes from now on, as the watcher sees it
    /// (no debounce, no classification): the run store wakes the runs it
    /// follows with it, so the one watcher serves them too.
    pub fn tap(&self, tap: Tap) {
        self.shared
            .taps
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(tap);
    }

    /// Another subscriber: every batch from now on, until the subscription is
    /// dropped.
    pub fn subscribe(&self) -> Subscription {
        let (tx, rx) = channel();
        self.shared
            .subscribers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(tx);
        Subscription {
            rx,
            shared: Arc::downgrade(&self.shared),
        }
    }
}

/// One subscriber's batches (watch mode's, beside the cockpit's model).
#[derive(Debug)]
pub struct Subscription {
    rx: Receiver<Arc<Batch>>,
    /// Weak: a subscription never keeps the watcher's channels open.
    shared: Weak<Shared>,
}

impl Subscription {
    /// The next batch within `wait`; `Disconnected` once the watcher is gone.
    pub fn recv_timeout(&self, wait: Duration) -> Result<Arc<Batch>, RecvTimeoutError> {
        self.rx.recv_timeout(wait)
    }

    /// Tell this subscriber about the code under test too: the `[watch] paths`
    /// `globs`, whose folders are watched from now on (within the same budget)
    /// and whose changed paths come in [`Batch::paths`].
    pub fn watch_sources(&self, globs: &[String]) {
        if let (Some(shared), false) = (self.shared.upgrade(), globs.is_empty()) {
            *shared
                .sources
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(globs.to_vec());
        }
    }

    /// Whether the watches are set up, the code under test's included: a change
    /// from now on is seen (`true` once the watcher is gone: nothing to wait for).
    pub fn ready(&self) -> bool {
        self.shared.upgrade().is_none_or(|s| {
            s.ready.load(Ordering::SeqCst)
                && s.sources
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .is_none()
        })
    }
}

/// Whether a file name is an editor's or a tool's temporary file, which no
/// watch reacts to: vim's swap files (`.x.swp`, `.x.swo`, …) and its write
/// probe `4913`, backups (`x~`), emacs' `#x#` and `.#x`, `sed -i`'s `sedXXXXXX`,
/// JetBrains' `x___jb_tmp___` / `___jb_old___`, kate's `.kate-swp`, `.tmp` /
/// `.swp` endings.
pub fn is_editor_temp(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let vim_swap = name.starts_with('.')
        && name
            .rsplit_once('.')
            .is_some_and(|(_, ext)| ext.len() == 3 && ext.starts_with("sw"));
    let sed = name.len() == 9
        && name.starts_with("sed")
        && name[3..].bytes().all(|b| b.is_ascii_alphanumeric());
    name.is_empty()
        || vim_swap
        || sed
        || name == "4913"
        || name.ends_with('~')
        || (name.starts_with('#') && name.ends_with('#'))
        || name.starts_with(".#")
        || name.ends_with("___jb_tmp___")
        || name.ends_with("___jb_old___")
        || name.ends_with(".kate-swp")
        || name.to_ascii_lowercase().ends_with(".tmp")
        || name.to_ascii_lowercase().ends_with(".swp")
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Shared")
    }
}

impl Drop for WorkspaceWatcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // an error event wakes the thread, which then sees `stop`
        let _ = self.wake.send(Err(notify::Error::generic("stop")));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        #[cfg(any(test, feature = "testkit"))]
        {
            let mut live = LIVE.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(i) = live.iter().position(|r| *r == self.root) {
                live.remove(i);
            }
        }
    }
}

/// Whether `path`, just created, starts a run: a runId folder under
/// `tests/logs/`, or a run's timeline. Handed on at once, it reaches the screen
/// without waiting for the runner's writes to pause (they seldom do).
fn new_run(root: &Path, path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    (name == "timeline.jsonl" || logs::is_run_id(name))
        && matches!(classify(root, path), Some(Change::Logs(_)))
}

fn deliver(shared: &Shared, batch: Batch) {
    let batch = Arc::new(batch);
    // a subscriber gone (its receiver dropped) is forgotten
    shared
        .subscribers
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .retain(|s| s.send(batch.clone()).is_ok());
}

/// The test files outside the tree (`[outside]` of the workspace's settings):
/// their folders watched; their patterns, to tell their changes.
fn watch_outside(
    root: &Path,
    plan: &mut Plan,
    mut w: Option<&mut notify::RecommendedWatcher>,
) -> Option<super::outside::discover::Patterns> {
    let mut problems = Vec::new();
    let table = config::Config::load(root, &mut problems).outside?;
    for g in table.vitest.iter().chain(&table.playwright) {
        plan.source(w.as_deref_mut(), g);
    }
    Some(super::outside::discover::Patterns::new(
        &table,
        &mut problems,
    ))
}

/// The change a changed path makes: the model's ([`classify`]), else a test
/// file outside the tree added, changed or removed.
fn change_of(
    root: &Path,
    outside: Option<&super::outside::discover::Patterns>,
    p: &Path,
) -> Option<Change> {
    classify(root, p).or_else(|| {
        let r = rel(root, p);
        outside
            .filter(|o| super::outside::discover::is_test_file(&r, o))
            .map(|_| Change::Outside(r))
    })
}

/// Tell the taps that `path` changed (see [`WorkspaceWatcher::tap`]).
fn tell_taps(shared: &Shared, path: &Path) {
    let taps = shared.taps.lock().unwrap_or_else(PoisonError::into_inner);
    for t in taps.iter() {
        t(path);
    }
}

/// The watch's loop: the watcher's events come on `events` (sent by the
/// watcher's `tx`, and an error event when the watcher is dropped).
fn run(
    root: &Path,
    budget: usize,
    shared: &Shared,
    stop: &AtomicBool,
    (tx, rx): (
        Sender<notify::Result<notify::Event>>,
        Receiver<notify::Result<notify::Event>>,
    ),
) {
    let mut plan = Plan::new(root, budget);
    let mut watcher = match walk::watcher(move |ev| {
        let _ = tx.send(ev);
    }) {
        Ok(w) => Some(w),
        Err(e) => {
            plan.refused(root, &e);
            None
        }
    };
    plan.start(watcher.as_mut());
    let outside = watch_outside(root, &mut plan, watcher.as_mut());
    let change_of = |p: &Path| change_of(root, outside.as_ref(), p);
    shared.ready.store(true, Ordering::SeqCst);
    let mut debouncer = Debouncer::new(QUIET, MAX_WAIT);
    let mut next_poll = Instant::now() + POLL_EVERY;
    let mut globs: Vec<String> = Vec::new();
    while !stop.load(Ordering::SeqCst) {
        {
            // held while the folders are watched: a subscriber asking `ready` waits
            let mut asked = shared
                .sources
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if let Some(g) = asked.take() {
                for glob in &g {
                    plan.source(watcher.as_mut(), glob);
                }
                plan.sources.clone_from(&g);
                globs = g;
            }
        }
        let now = Instant::now();
        let wait = debouncer
            .wait(now, TICK)
            .min(next_poll.saturating_duration_since(now));
        match rx.recv_timeout(wait) {
            Ok(Ok(ev)) => {
                // an access (a read, an open) changes nothing
                if !matches!(ev.kind, notify::EventKind::Access(_)) {
                    let created = matches!(ev.kind, notify::EventKind::Create(_));
                    for p in ev.paths {
                        tell_taps(shared, &p);
                        plan.event(watcher.as_mut(), &p);
                        if created && new_run(root, &p) {
                            debouncer.push_urgent(p, Instant::now());
                        } else {
                            debouncer.push(p, Instant::now());
                        }
                    }
                }
            }
            Ok(Err(_)) | Err(RecvTimeoutError::Timeout) => {}
            // not while the watcher's own sender lives (no watcher at all: the
            // wait above is the poll's)
            Err(RecvTimeoutError::Disconnected) => std::thread::sleep(wait),
        }
        if Instant::now() >= next_poll {
            for p in plan.poll_all(watcher.as_mut()) {
                tell_taps(shared, &p);
                debouncer.push(p, Instant::now());
            }
            plan.say();
            next_poll = Instant::now() + POLL_EVERY;
        }
        if !plan.problems.is_empty() {
            let problems = std::mem::take(&mut plan.problems);
            deliver(
                shared,
                Batch {
                    problems,
                    ..Batch::default()
                },
            );
        }
        let Some(paths) = debouncer.take_due(Instant::now()) else {
            continue;
        };
        let changes: BTreeSet<Change> = paths.iter().filter_map(|p| change_of(p)).collect();
        let paths: Vec<PathBuf> = paths
            .into_iter()
            .filter(|p| {
                change_of(p).is_some()
                    || globs.iter().any(|g| config::glob_matches(g, &rel(root, p)))
            })
            .collect();
        if !paths.is_empty() {
            deliver(
                shared,
                Batch {
                    paths,
                    changes,
                    problems: Vec::new(),
                },
            );
        }
    }
}

mod plan;

use plan::Plan;

#[cfg(test)]
mod tests;
