//! The watches and polls of one workspace: which folders inotify watches
//! (one by one or as trees) within the budget, and which are polled past it.

use super::super::{logs, rel, run_folder, tree, walk};
use super::{BUDGET_SHARE, POLL_EVERY, user_limit};
use crate::problem::Problem;
use notify::{RecursiveMode, Watcher as _};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

/// A folder polled: its modification time, its entries, and (for the folders
/// whose files matter one by one: the tests tree, the plan, the catalog, a live
/// run) its files' modification times.
pub(super) struct Polled {
    mtime: Option<SystemTime>,
    dirs: BTreeSet<OsString>,
    files: Option<HashMap<OsString, Option<SystemTime>>>,
}

pub(super) fn mtime(p: &Path) -> Option<SystemTime> {
    std::fs::symlink_metadata(p)
        .ok()
        .and_then(|m| m.modified().ok())
}

/// A folder's subfolders and files (links are neither).
pub(super) fn listing(dir: &Path) -> (BTreeSet<OsString>, Vec<OsString>) {
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
pub(super) struct Plan {
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
    pub(super) sources: Vec<String>,
    pub(super) problems: Vec<Problem>,
    said: bool,
    refusal_said: bool,
}

/// Whether `dir` (under the logs) is a run folder: named by a runId, or holding
/// a run's files.
pub(super) fn is_run(dir: &Path) -> bool {
    dir.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(logs::is_run_id)
        || run_folder::is_run_folder(dir)
}

pub(super) fn ended(run: &Path) -> bool {
    run.join(run_folder::META).is_file()
}

impl Plan {
    pub(super) fn new(root: &Path, budget: usize) -> Plan {
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

    pub(super) fn under_logs(&self, p: &Path) -> bool {
        p.starts_with(&self.logs)
    }

    pub(super) fn covered(&self, p: &Path) -> bool {
        self.watched.contains(p)
            || self.polled.contains_key(p)
            || self.trees.iter().any(|t| p.starts_with(t))
    }

    /// Watch the folder `dir` alone when the budget allows (else poll it).
    pub(super) fn one(&mut self, w: Option<&mut notify::RecommendedWatcher>, dir: &Path) {
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

    pub(super) fn refused(&mut self, dir: &Path, e: &notify::Error) {
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
    pub(super) fn poll(&mut self, dir: &Path) {
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
    pub(super) fn tree(&mut self, mut w: Option<&mut notify::RecommendedWatcher>, dir: &Path) {
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
    pub(super) fn start(&mut self, mut w: Option<&mut notify::RecommendedWatcher>) {
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
    pub(super) fn top(&mut self, mut w: Option<&mut notify::RecommendedWatcher>) {
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
    pub(super) fn logs_below(
        &mut self,
        mut w: Option<&mut notify::RecommendedWatcher>,
        top: &Path,
    ) {
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
    pub(super) fn source(&mut self, mut w: Option<&mut notify::RecommendedWatcher>, glob: &str) {
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
    pub(super) fn say(&mut self) {
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
    pub(super) fn event(&mut self, mut w: Option<&mut notify::RecommendedWatcher>, p: &Path) {
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
    pub(super) fn poll_all(
        &mut self,
        mut w: Option<&mut notify::RecommendedWatcher>,
    ) -> Vec<PathBuf> {
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
pub(super) fn folders_of(
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
