//! The one workspace watcher: notify watches within a budget (a small share of
//! the person's inotify watches, which every program of theirs shares), the
//! folders past it polled by their modification times, changed paths debounced
//! and classified as [`Change`]s for whoever subscribes (the cockpit's model,
//! watch mode).

use super::changes::{Change, classify};
use super::{config, logs, rel, run_folder, tree, walk};
use crate::problem::Problem;
use notify::{RecursiveMode, Watcher as _};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant, SystemTime};

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
/// [`instances`]).
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// How many watchers of the workspace at `root` are alive in this process.
pub fn instances(root: &Path) -> usize {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    LIVE.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .filter(|r| **r == root)
        .count()
}

#[derive(Default)]
struct Shared {
    subscribers: Mutex<Vec<Sender<Arc<Batch>>>>,
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
        let thread = {
            let (root, shared, stop) = (root.clone(), shared.clone(), stop.clone());
            std::thread::spawn(move || run(&root, budget, &shared, &stop))
        };
        let w = WorkspaceWatcher {
            root,
            stop,
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
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let mut live = LIVE.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(i) = live.iter().position(|r| *r == self.root) {
            live.remove(i);
        }
    }
}

/// A folder polled: its modification time, its entries, and (for the folders
/// whose files matter one by one: the tests tree, the plan, the catalog, a live
/// run) its files' modification times.
struct Polled {
    mtime: Option<SystemTime>,
    dirs: BTreeSet<OsString>,
    files: Option<HashMap<OsString, Option<SystemTime>>>,
}

fn mtime(p: &Path) -> Option<SystemTime> {
    std::fs::symlink_metadata(p)
        .ok()
        .and_then(|m| m.modified().ok())
}

/// A folder's subfolders and files (links are neither).
fn listing(dir: &Path) -> (BTreeSet<OsString>, Vec<OsString>) {
    let mut dirs = BTreeSet::new();
    let mut files = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        match e.file_type() {
            Ok(t) if t.is_dir() => {
                dirs.insert(e.file_name());
            }
            Ok(t) if t.is_file() => files.push(e.file_name()),
            _ => {}
        }
    }
    (dirs, files)
}

/// The watches and polls of one workspace.
struct Plan {
    root: PathBuf,
    logs: PathBuf,
    budget: usize,
    used: usize,
    /// Folders watched one by one (not recursively).
    watched: HashSet<PathBuf>,
    /// Trees watched recursively (their folder count is in `used`).
    trees: BTreeSet<PathBuf>,
    polled: BTreeMap<PathBuf, Polled>,
    /// Sources folders watched for a subscriber.
    sources: Vec<String>,
    problems: Vec<Problem>,
    said: bool,
    refusal_said: bool,
}

/// Whether `dir` (under the logs) is a run folder: named by a runId, or holding
/// a run's files.
fn is_run(dir: &Path) -> bool {
    dir.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(logs::is_run_id)
        || run_folder::is_run_folder(dir)
}

fn ended(run: &Path) -> bool {
    run.join(run_folder::META).is_file()
}

impl Plan {
    fn new(root: &Path, budget: usize) -> Plan {
        Plan {
            root: root.to_path_buf(),
            logs: root.join("tests/logs"),
            budget,
            used: 0,
            watched: HashSet::new(),
            trees: BTreeSet::new(),
            polled: BTreeMap::new(),
            sources: Vec::new(),
            problems: Vec::new(),
            said: false,
            refusal_said: false,
        }
    }

    fn under_logs(&self, p: &Path) -> bool {
        p.starts_with(&self.logs)
    }

    fn covered(&self, p: &Path) -> bool {
        self.watched.contains(p)
            || self.polled.contains_key(p)
            || self.trees.iter().any(|t| p.starts_with(t))
    }

    /// Watch the folder `dir` alone when the budget allows (else poll it).
    fn one(&mut self, w: Option<&mut notify::RecommendedWatcher>, dir: &Path) {
        if self.covered(dir) {
            return;
        }
        if self.used < self.budget {
            if let Some(w) = w {
                match w.watch(dir, RecursiveMode::NonRecursive) {
                    Ok(()) => {
                        self.used += 1;
                        self.watched.insert(dir.to_path_buf());
                        return;
                    }
                    Err(e) => self.refused(dir, &e),
                }
            }
        }
        self.poll(dir);
    }

    fn refused(&mut self, dir: &Path, e: &notify::Error) {
        // said once: past a refusal every folder is polled, each would say the same
        if std::mem::replace(&mut self.refusal_said, true) {
            return;
        }
        let what = rel(&self.root, dir);
        self.problems.push(Problem::warning(
            what.clone(),
            "watch-refused",
            format!(
                "{}; polled every {} s instead",
                walk::watch_error(&what, e),
                POLL_EVERY.as_secs()
            ),
        ));
    }

    /// Poll `dir` from now on (its files one by one too, but for the logs'
    /// folders that are no live run).
    fn poll(&mut self, dir: &Path) {
        let (dirs, files) = listing(dir);
        let track = !self.under_logs(dir) || (is_run(dir) && !ended(dir));
        let files = track.then(|| {
            files
                .into_iter()
                .map(|f| (f.clone(), mtime(&dir.join(f))))
                .collect()
        });
        self.polled.insert(
            dir.to_path_buf(),
            Polled {
                mtime: mtime(dir),
                dirs,
                files,
            },
        );
    }

    /// Watch the tree `dir` recursively when all its folders fit in the budget and
    /// it ends within the walk's depth cap; else watch what fits folder by folder,
    /// the shallowest first, and poll the rest (a chain of thousands of folders
    /// costs neither time nor thousands of watches: notify's own recursive walk has
    /// no cap, and looks every deep path up whole).
    fn tree(&mut self, mut w: Option<&mut notify::RecommendedWatcher>, dir: &Path) {
        if !walk::is_real_dir(dir) || self.covered(dir) {
            return;
        }
        let (folders, too_deep) = folders_of(&self.root, dir, &|_| true);
        if !too_deep && self.used + folders.len() <= self.budget {
            if let Some(w) = w.as_deref_mut() {
                match w.watch(dir, RecursiveMode::Recursive) {
                    Ok(()) => {
                        self.used += folders.len();
                        self.trees.insert(dir.to_path_buf());
                        return;
                    }
                    // a part may be watched: notify stops at the first refusal
                    Err(e) => {
                        let _ = w.unwatch(dir);
                        self.refused(dir, &e);
                    }
                }
            }
        }
        for f in folders {
            self.one(w.as_deref_mut(), &f);
        }
    }

    /// Everything at the start: the root, the tests tree, the plan, the catalog,
    /// the logs' root and domains, then the logs' live run folders and the rest
    /// of their folders while the budget lasts; past it they are polled (an
    /// ended run not at all: a change of its case folder is seen).
    fn start(&mut self, mut w: Option<&mut notify::RecommendedWatcher>) {
        let root = self.root.clone();
        self.one(w.as_deref_mut(), &root);
        self.top(w.as_deref_mut());
        let logs = self.logs.clone();
        if !walk::is_real_dir(&logs) {
            return;
        }
        self.one(w.as_deref_mut(), &logs);
        let (domains, _) = listing(&logs);
        for d in &domains {
            self.one(w.as_deref_mut(), &logs.join(d));
        }
        self.logs_below(w, &logs);
        self.say();
    }

    /// The tests tree (but its logs, and the folders that hold no cases), the
    /// plan and the catalog, each as a tree: at the start, and again when a top
    /// folder appears.
    fn top(&mut self, mut w: Option<&mut notify::RecommendedWatcher>) {
        let tests = self.root.join("tests");
        if walk::is_real_dir(&tests) {
            self.one(w.as_deref_mut(), &tests);
            let (children, _) = listing(&tests);
            for c in children {
                if !c.to_str().is_some_and(|c| tree::NOT_CASES.contains(&c)) {
                    self.tree(w.as_deref_mut(), &tests.join(c));
                }
            }
        }
        for d in ["doc", ".pouch"] {
            let p = self.root.join(d);
            if walk::is_real_dir(&p) {
                self.one(w.as_deref_mut(), &p);
            }
        }
        for d in ["doc/test-plan", ".pouch/tester"] {
            let p = self.root.join(d);
            self.tree(w.as_deref_mut(), &p);
        }
        for g in self.sources.clone() {
            self.source(w.as_deref_mut(), &g);
        }
    }

    /// The folders below `top` (under the logs): live runs first, then the
    /// folders above the runs, the shallowest first; ended runs last, and only
    /// while the budget lasts.
    fn logs_below(&mut self, mut w: Option<&mut notify::RecommendedWatcher>, top: &Path) {
        let mut live = Vec::new();
        let mut done = Vec::new();
        let mut above = Vec::new();
        let (folders, _) = folders_of(&self.root, top, &|p| !is_run(p));
        for f in folders.into_iter().filter(|f| f != top) {
            if is_run(&f) {
                if ended(&f) {
                    done.push(f);
                } else {
                    live.push(f);
                }
            } else {
                above.push(f);
            }
        }
        above.sort_by_key(|p| p.components().count());
        for f in live.iter().chain(&above) {
            self.one(w.as_deref_mut(), f);
        }
        for f in &done {
            if self.used >= self.budget {
                break;
            }
            self.one(w.as_deref_mut(), f);
        }
    }

    /// The base folder of a `[watch] paths` glob, as a tree (the root's own
    /// folders for a glob from the root, but the tests tree, `.git` and
    /// `node_modules`).
    fn source(&mut self, mut w: Option<&mut notify::RecommendedWatcher>, glob: &str) {
        let base: Vec<&str> = glob
            .trim_matches('/')
            .split('/')
            .take_while(|s| !s.contains(['*', '?', '[', '{']))
            .collect();
        if base.is_empty() {
            let (dirs, _) = listing(&self.root);
            for d in dirs {
                if !matches!(d.to_str(), Some("tests" | ".git" | "node_modules")) {
                    self.tree(w.as_deref_mut(), &self.root.join(d));
                }
            }
        } else {
            let p = self.root.join(base.join("/"));
            self.tree(w, &p);
        }
    }

    /// The problem of the polled folders, said once.
    fn say(&mut self) {
        if self.said || self.polled.is_empty() {
            return;
        }
        self.said = true;
        let limit = user_limit().map_or_else(|| "?".to_owned(), |l| l.to_string());
        let where_ = self
            .polled
            .keys()
            .next()
            .map(|p| {
                let r = rel(&self.root, p);
                if r.starts_with("tests/logs") {
                    "tests/logs".to_owned()
                } else {
                    r
                }
            })
            .unwrap_or_default();
        self.problems.push(Problem::warning(
            where_,
            "watch-budget",
            format!(
                "{} folders are polled every {} s, not watched: testdeck watches at most {} \
                 folders (1/{BUDGET_SHARE} of this user's inotify watches, \
                 fs.inotify.max_user_watches = {limit}, which all their programs share); \
                 the live runs, the tests tree, the plan and the catalog are watched first",
                self.polled.len(),
                POLL_EVERY.as_secs(),
                self.budget,
            ),
        ));
    }

    /// A notify event's path: a new folder is watched (or polled), a removed
    /// one gives its watch back.
    fn event(&mut self, mut w: Option<&mut notify::RecommendedWatcher>, p: &Path) {
        if !walk::is_real_dir(p) {
            if self.watched.remove(p) {
                self.used = self.used.saturating_sub(1);
            }
            return;
        }
        if self.covered(p) {
            return;
        }
        let parent = p.parent().unwrap_or(p);
        if parent == self.root
            || parent == self.root.join("doc")
            || parent == self.root.join(".pouch")
        {
            self.top(w.as_deref_mut());
        } else if parent == self.root.join("tests") {
            if self.under_logs(p) {
                self.start(w);
                return;
            }
            self.top(w);
        } else if self.under_logs(p) {
            // a new folder (mkdir -p may have made more below it already)
            self.one(w.as_deref_mut(), p);
            if !is_run(p) {
                self.logs_below(w, p);
            }
        }
    }

    /// One poll of the folders past the budget: the changed paths.
    fn poll_all(&mut self, mut w: Option<&mut notify::RecommendedWatcher>) -> Vec<PathBuf> {
        let mut changed = Vec::new();
        let mut gone = Vec::new();
        let mut new_dirs = Vec::new();
        for (dir, p) in &mut self.polled {
            let now = mtime(dir);
            if now.is_none() {
                gone.push(dir.clone());
                changed.push(dir.clone());
                continue;
            }
            if now != p.mtime {
                p.mtime = now;
                let (dirs, files) = listing(dir);
                for d in dirs.symmetric_difference(&p.dirs) {
                    changed.push(dir.join(d));
                    if !p.dirs.contains(d) {
                        new_dirs.push(dir.join(d));
                    }
                }
                p.dirs = dirs;
                if let Some(known) = &mut p.files {
                    let names: HashSet<&OsString> = files.iter().collect();
                    known.retain(|n, _| {
                        let keep = names.contains(n);
                        if !keep {
                            changed.push(dir.join(n));
                        }
                        keep
                    });
                    for f in files {
                        known.entry(f.clone()).or_insert_with(|| {
                            changed.push(dir.join(&f));
                            None
                        });
                    }
                } else if is_run(dir) {
                    // a folder of the logs known as a run only now
                    changed.push(dir.clone());
                }
            }
            if let Some(known) = &mut p.files {
                for (name, t) in known.iter_mut() {
                    let m = mtime(&dir.join(name));
                    if m != *t {
                        *t = m;
                        changed.push(dir.join(name));
                    }
                }
            }
        }
        for g in gone {
            self.polled.retain(|p, _| !p.starts_with(&g));
        }
        // a polled live run that ended is not polled any more
        let logs = self.logs.clone();
        self.polled
            .retain(|p, _| !(p.starts_with(&logs) && is_run(p) && ended(p)));
        for d in new_dirs {
            self.event(w.as_deref_mut(), &d);
        }
        changed.sort();
        changed.dedup();
        changed
    }
}

/// `dir` and its folders, found by the capped walk (links not followed);
/// `descend` says which to enter. True beside them when the walk stopped at
/// [`walk::MAX_DEPTH`]: the tree goes deeper than it read.
fn folders_of(
    root: &Path,
    dir: &Path,
    descend: &(dyn Fn(&Path) -> bool + Sync),
) -> (Vec<PathBuf>, bool) {
    let folders = Mutex::new(vec![dir.to_path_buf()]);
    let problems = Mutex::new(Vec::new());
    let visit = |e: &walk::Entry<'_>| {
        if e.is_dir {
            folders
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(e.path.to_path_buf());
        }
    };
    walk::walk(root, dir, &|p: &Path| descend(p), &visit, &problems);
    let too_deep = problems
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .any(|p: &crate::problem::Problem| p.rule == "folder-too-deep");
    (
        folders.into_inner().unwrap_or_else(PoisonError::into_inner),
        too_deep,
    )
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

fn run(root: &Path, budget: usize, shared: &Shared, stop: &AtomicBool) {
    let (tx, rx) = channel::<notify::Result<notify::Event>>();
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
    // the test files outside the tree (`[outside]`): their folders watched, a
    // file of theirs added, changed or removed is a change of the tree
    let outside = {
        let mut problems = Vec::new();
        config::Config::load(root, &mut problems).outside.map(|t| {
            for g in t.vitest.iter().chain(&t.playwright) {
                plan.source(watcher.as_mut(), g);
            }
            super::outside::discover::Patterns::new(&t, &mut problems)
        })
    };
    let change_of = |p: &Path| {
        classify(root, p).or_else(|| {
            let r = rel(root, p);
            outside
                .as_ref()
                .filter(|o| super::outside::discover::is_test_file(&r, o))
                .map(|_| Change::Outside(r))
        })
    };
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
            // no watcher at all: everything is polled
            Err(RecvTimeoutError::Disconnected) => std::thread::sleep(wait),
        }
        if Instant::now() >= next_poll {
            for p in plan.poll_all(watcher.as_mut()) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editors_temporary_files_are_told() {
        for t in [
            "src/.utils.ts.swp",
            "src/.utils.ts.swx",
            "src/sedXYZ12a",
            "src/sedsEaFd8",
            "4913",
            "src/utils.ts~",
            "src/#utils.ts#",
            "src/.#utils.ts",
            "src/utils.ts___jb_tmp___",
        ] {
            assert!(is_editor_temp(t), "{t}");
        }
        for f in [
            "src/utils.ts",
            "src/sed.ts",
            "src/seder.ts",
            "src/a.test.ts",
            ".env",
        ] {
            assert!(!is_editor_temp(f), "{f}");
        }
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// A new run is handed on at once with what was pending; the writes
    /// after it wait for their burst's end again.
    #[test]
    fn a_new_run_does_not_wait_for_the_burst_to_end() {
        let t0 = Instant::now();
        let mut d = Debouncer::new(ms(80), ms(400));
        d.push(PathBuf::from("a"), t0);
        assert!(d.take_due(t0 + ms(10)).is_none());
        d.push_urgent(PathBuf::from("run"), t0 + ms(20));
        assert_eq!(
            d.take_due(t0 + ms(20)),
            Some(vec![PathBuf::from("a"), PathBuf::from("run")])
        );
        d.push(PathBuf::from("run/timeline.jsonl"), t0 + ms(30));
        assert!(d.take_due(t0 + ms(40)).is_none());
        assert!(d.take_due(t0 + ms(110)).is_some());
        let root = Path::new("/ws");
        let run = "/ws/tests/logs/shop/backend/cart/add/20260310-120000-000";
        assert!(new_run(root, Path::new(run)));
        assert!(new_run(root, &Path::new(run).join("timeline.jsonl")));
        assert!(!new_run(root, &Path::new(run).join("meta.json")));
        assert!(!new_run(
            root,
            Path::new("/ws/tests/shop/20260310-120000-000")
        ));
    }

    #[test]
    fn one_burst_one_trigger() {
        let t0 = Instant::now();
        let mut d = Debouncer::new(ms(300), ms(3000));
        assert!(d.take_due(t0).is_none() && d.deadline().is_none());
        for i in 0..5 {
            d.push(PathBuf::from(format!("f{}", i % 2)), t0 + ms(i * 100));
        }
        // quiet 300 ms after the last save (at 400 ms)
        assert_eq!(d.deadline(), Some(t0 + ms(700)));
        // a loop waits until the burst ends, and at most its tick
        assert_eq!(d.wait(t0 + ms(650), ms(100)), ms(50));
        assert_eq!(d.wait(t0 + ms(400), ms(100)), ms(100));
        assert_eq!(d.wait(t0 + ms(800), ms(100)), ms(0));
        assert!(d.take_due(t0 + ms(699)).is_none());
        let paths = d.take_due(t0 + ms(700)).expect("due");
        assert_eq!(paths, [PathBuf::from("f0"), PathBuf::from("f1")]);
        assert!(d.is_idle() && d.take_due(t0 + ms(5000)).is_none());
    }

    #[test]
    fn an_endless_burst_triggers_at_max_wait() {
        let t0 = Instant::now();
        let mut d = Debouncer::new(ms(300), ms(1000));
        for i in 0..20 {
            d.push(PathBuf::from("f"), t0 + ms(i * 100));
        }
        assert_eq!(d.deadline(), Some(t0 + ms(1000)));
        assert!(d.take_due(t0 + ms(1000)).is_some());
        // the next burst starts its own clock
        d.push(PathBuf::from("g"), t0 + ms(2000));
        assert_eq!(d.deadline(), Some(t0 + ms(2300)));
    }

    /// Leading: a lone save is due as soon as it is seen; what follows within
    /// the quiet period waits for its burst's end, handed on once; after a
    /// quiet spell the next save is due at once again.
    #[test]
    fn leading_a_lone_save_is_due_at_once_and_a_burst_after_it_waits() {
        let t0 = Instant::now();
        let mut d = Debouncer::leading(ms(300), ms(3000));
        assert!(d.deadline().is_none());
        d.push(PathBuf::from("src/leaf.ts"), t0);
        assert_eq!(d.deadline(), Some(t0));
        assert_eq!(d.wait(t0, ms(100)), ms(0));
        assert_eq!(d.take_due(t0), Some(vec![PathBuf::from("src/leaf.ts")]));
        // the burst's next saves, 100 ms apart: one hand-over 300 ms after the last
        for i in 1..4 {
            d.push(PathBuf::from(format!("f{i}")), t0 + ms(i * 100));
        }
        assert_eq!(d.deadline(), Some(t0 + ms(600)));
        assert!(d.take_due(t0 + ms(599)).is_none());
        assert_eq!(d.take_due(t0 + ms(600)).expect("due").len(), 3);
        // a save 200 ms after that hand-over still belongs to the burst
        d.push(PathBuf::from("g"), t0 + ms(800));
        assert_eq!(d.deadline(), Some(t0 + ms(1100)));
        assert!(d.take_due(t0 + ms(1100)).is_some());
        // a quiet spell, then a lone save: due at once
        d.push(PathBuf::from("h"), t0 + ms(1500));
        assert_eq!(d.deadline(), Some(t0 + ms(1500)));
        // a trailing debouncer would wait for the quiet period
        let mut t = Debouncer::new(ms(300), ms(3000));
        t.push(PathBuf::from("src/leaf.ts"), t0);
        assert_eq!(t.deadline(), Some(t0 + ms(300)));
    }

    #[test]
    fn the_budget_is_a_small_share_of_the_limit() {
        if std::env::var_os(BUDGET_ENV).is_none() {
            let b = budget();
            assert!((1..=BUDGET_CAP).contains(&b));
            if let Some(l) = user_limit() {
                assert!(b <= l / BUDGET_SHARE);
            }
        }
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }

    /// Batches until one holds `want` (or a change of a folder above it), within
    /// 10 s; the problems met on the way.
    fn until(rx: &Receiver<Arc<Batch>>, want: &Change, problems: &mut Vec<Problem>) {
        let end = Instant::now() + Duration::from_secs(10);
        let covers = |c: &Change| match (c, want) {
            (Change::Logs(a), Change::Logs(b)) | (Change::Tests(a), Change::Tests(b)) => {
                Path::new(b).starts_with(a)
            }
            _ => c == want,
        };
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            let Ok(b) = rx.recv_timeout(left) else { break };
            problems.extend(b.problems.iter().cloned());
            if b.changes.iter().any(covers) {
                return;
            }
        }
        panic!("no batch with {want:?}");
    }

    fn ready(w: &WorkspaceWatcher) {
        let end = Instant::now() + Duration::from_secs(10);
        while !w.ready() {
            assert!(Instant::now() < end, "the watcher is not set up");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn past_the_budget_a_new_run_is_polled_and_said_once() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path().canonicalize().expect("real");
        let case = "tests/logs/shop/backend/cart/add";
        write(&root, "tests/shop/backend/cart/add.test.ts", "");
        write(
            &root,
            &format!("{case}/20260310-120000-000/meta.json"),
            "{}",
        );
        assert_eq!(instances(&root), 0);
        // the root, tests/ and its shop tree, the logs' root and domain: no more
        let (w, rx) = WorkspaceWatcher::start_within(&root, 6);
        assert_eq!(instances(&root), 1);
        ready(&w);
        let run = format!("{case}/20260311-120000-000");
        let mut problems = Vec::new();
        write(&root, &format!("{run}/timeline.jsonl"), "{}\n");
        until(&rx, &Change::Logs(run.clone()), &mut problems);
        // the live run polled past the budget: its end is seen too
        write(&root, &format!("{run}/meta.json"), "{}");
        until(&rx, &Change::Logs(run.clone()), &mut problems);
        let said: Vec<&Problem> = problems
            .iter()
            .filter(|p| p.rule == "watch-budget")
            .collect();
        assert_eq!(said.len(), 1, "{problems:?}");
        assert!(said[0].message.contains("polled"), "{}", said[0].message);
        drop(w);
        assert_eq!(instances(&root), 0);
    }

    #[test]
    fn within_the_budget_nothing_is_polled_or_said() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path().canonicalize().expect("real");
        write(&root, "tests/shop/backend/cart/add.test.ts", "");
        std::fs::create_dir_all(root.join("tests/logs/shop")).expect("mkdir");
        let (w, rx) = WorkspaceWatcher::start_within(&root, 100);
        ready(&w);
        let run = "tests/logs/shop/backend/cart/add/20260311-120000-000";
        let mut problems = Vec::new();
        write(&root, &format!("{run}/timeline.jsonl"), "{}\n");
        until(&rx, &Change::Logs(run.into()), &mut problems);
        let file = "tests/shop/backend/cart/new.test.ts";
        write(&root, file, "");
        until(&rx, &Change::Tests(file.into()), &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
    }
}
