//! Watch mode: file changes under `tests/`, `doc/test-plan/` and
//! `.pouch/tester/cases/` rerun the watched cases they concern, and changes to the
//! code under test (`[watch] paths`) rerun them all, debounced, with a rerun in
//! flight cancelled and restarted, under the same authorization as `run`.

use super::catalog_run::{self, CatalogPlan};
use super::policy::{Decision, Grants, Risk};
use super::process::Cancel;
use super::tests_run::TestsTarget;
use super::{ExecEvent, LaunchContext, LaunchHandle, LaunchPlan, Sink};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::{Duration, Instant};
use testdeck_core::workspace::stats::under;
use testdeck_core::workspace::tree::TestCase;
use testdeck_core::workspace::{Workspace, rel};

/// The quiet period that ends a burst of saves.
pub(crate) const QUIET: Duration = Duration::from_millis(300);
/// A burst that never goes quiet still triggers after this long.
pub(crate) const MAX_WAIT: Duration = Duration::from_secs(3);
/// The folders watched (recursively), relative to the root.
pub(crate) const WATCHED_DIRS: [&str; 3] = ["tests", "doc/test-plan", ".pouch/tester/cases"];
/// Folders whose changes are testdeck's or the runner's own writes.
pub(crate) const IGNORED_DIRS: [&str; 2] = ["tests/logs", ".pouch/tester/runs"];

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
}

impl Default for Debouncer {
    fn default() -> Self {
        Self::new(QUIET, MAX_WAIT)
    }
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
        }
    }
    /// A change at `now`.
    pub fn push(&mut self, path: PathBuf, now: Instant) {
        self.pending.insert(path);
        self.first.get_or_insert(now);
        self.last = Some(now);
    }
    /// When the current burst ends (none without pending changes).
    pub(crate) fn deadline(&self) -> Option<Instant> {
        match (self.first, self.last) {
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
            self.first = None;
            self.last = None;
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

/// Whether a changed path is one of ours (logs, run records) or outside the
/// watched folders. `path` is absolute or relative to `root`.
pub(crate) fn ignored(root: &Path, path: &Path) -> bool {
    let r = rel(root, path);
    IGNORED_DIRS.iter().any(|d| under(&r, d)) || !WATCHED_DIRS.iter().any(|d| under(&r, d))
}

/// Whether a changed path is code under test: matched by one of `globs` (the
/// `[watch] paths` in force) and never one of our own writes.
pub(crate) fn source_change(root: &Path, globs: &[String], path: &Path) -> bool {
    let r = rel(root, path);
    !IGNORED_DIRS.iter().any(|d| under(&r, d))
        && globs
            .iter()
            .any(|g| testdeck_core::workspace::config::glob_matches(g, &r))
}

/// The folder a glob's matches are under: its leading names without a wildcard
/// (empty: the root itself).
fn glob_base(glob: &str) -> String {
    glob.trim_matches('/')
        .split('/')
        .take_while(|s| !s.contains(['*', '?', '[', '{']))
        .collect::<Vec<_>>()
        .join("/")
}

/// The cases watched: the targets resolved in the current workspace (a new
/// test file under a watched scope is watched from the next change on); tests
/// cases as `scope/caseId`.
pub type Watched = super::CaseSet<String>;

impl Watched {
    /// Every id, tests keys first.
    pub(crate) fn ids(&self) -> Vec<String> {
        self.tests.iter().chain(&self.catalog).cloned().collect()
    }
    fn extend(&mut self, o: &Watched) {
        for t in &o.tests {
            if !self.tests.contains(t) {
                self.tests.push(t.clone());
            }
        }
        for c in &o.catalog {
            if !self.catalog.contains(c) {
                self.catalog.push(c.clone());
            }
        }
    }
}

/// Targets as `run` takes them: catalog case or category ids, tests caseIds,
/// `scope/caseId`s and scopes. None: everything. `Err` lists what matches nothing.
pub fn resolve(ws: &Workspace, targets: &[String]) -> Result<Watched, Vec<String>> {
    let mut w = Watched::default();
    let mut unmatched = Vec::new();
    let all = targets.is_empty();
    let mut tests: Vec<&TestCase> = Vec::new();
    let mut catalog: BTreeSet<&str> = BTreeSet::new();
    if all {
        tests.extend(&ws.tests.cases);
        if let Some(c) = &ws.catalog {
            catalog.extend(c.cases.iter().map(|c| c.id.as_str()));
        }
    }
    for t in targets {
        let t = t.trim_matches('/');
        let mut hit = false;
        if let Some(cat) = &ws.catalog {
            for c in &cat.cases {
                if c.id == t || c.category == t {
                    catalog.insert(c.id.as_str());
                    hit = true;
                }
            }
        }
        let by_key: Vec<&TestCase> = ws.tests.cases.iter().filter(|c| c.key() == t).collect();
        let found: Vec<&TestCase> = if by_key.is_empty() {
            ws.tests
                .cases
                .iter()
                .filter(|c| c.case_id == t || (!t.is_empty() && under(&c.scope, t)))
                .collect()
        } else {
            by_key
        };
        hit |= !found.is_empty();
        tests.extend(found);
        if !hit {
            unmatched.push(t.to_owned());
        }
    }
    if !unmatched.is_empty() {
        return Err(unmatched);
    }
    for c in &ws.tests.cases {
        if tests.iter().any(|t| std::ptr::eq(*t, c)) {
            w.tests.push(c.key());
        }
    }
    if let Some(cat) = &ws.catalog {
        w.catalog = cat
            .cases
            .iter()
            .filter(|c| catalog.contains(c.id.as_str()))
            .map(|c| c.id.clone())
            .collect();
    }
    Ok(w)
}

/// Whether a plan file (relative path) names `case_id` as a whole word, the
/// way registration is decided.
fn plan_file_names(ws: &Workspace, file: &str, case_id: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    ws.plan
        .files
        .iter()
        .filter(|(f, _)| f == file)
        .any(|(_, lines)| {
            lines.iter().any(|l| {
                l.split(|c: char| !ident(c))
                    .any(|tok| tok.trim_matches('.') == case_id)
            })
        })
}

/// The watched cases a burst of changed paths concerns: a test file itself, a
/// `doc/test-plan/**` file that registers the case (before or after the
/// change), a catalog case file that defines it (before or after).
pub fn affected(old: &Workspace, new: &Workspace, watched: &Watched, paths: &[PathBuf]) -> Watched {
    let rels: Vec<String> = paths
        .iter()
        .filter(|p| !ignored(&new.root, p))
        .map(|p| rel(&new.root, p))
        .collect();
    let mut out = Watched::default();
    for key in &watched.tests {
        let Some(c) = new.tests.cases.iter().find(|c| &c.key() == key) else {
            continue;
        };
        let hit = rels.iter().any(|r| {
            *r == c.path
                || (under(r, "doc/test-plan")
                    && (plan_file_names(new, r, &c.case_id) || plan_file_names(old, r, &c.case_id)))
        });
        if hit {
            out.tests.push(key.clone());
        }
    }
    let file_of = |ws: &Workspace, id: &str| {
        ws.catalog
            .as_ref()
            .and_then(|c| c.case(id))
            .map(|c| c.file.clone())
    };
    for id in &watched.catalog {
        let Some(now) = file_of(new, id) else {
            continue;
        };
        let before = file_of(old, id);
        if rels
            .iter()
            .any(|r| *r == now || before.as_deref() == Some(r))
        {
            out.catalog.push(id.clone());
        }
    }
    out
}

/// One case left out of a rerun, and why (the reason `run` would give).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The case id.
    pub id: String,
    /// Why it was left out.
    pub reason: String,
}

/// What the watch itself reports, beside the launches' own events.
#[derive(Debug, Clone, Serialize)]
#[serde(
    tag = "type",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum WatchNote {
    /// The watch is armed: changes from now on are seen.
    WatchStart {
        /// The folders watched.
        folders: Vec<String>,
        /// The tests-tree cases watched.
        tests: Vec<String>,
        /// The catalog cases watched.
        catalog: Vec<String>,
    },
    /// A burst of changes reruns these cases (`skipped`: left out, not authorized).
    WatchTrigger {
        /// The paths that changed.
        paths: Vec<String>,
        /// The cases rerun.
        cases: Vec<String>,
        /// The cases left out.
        skipped: Vec<Skipped>,
    },
    /// The rerun in flight is cancelled to restart with the new changes.
    WatchCancel {
        /// The cases of the cancelled rerun.
        cases: Vec<String>,
    },
    /// The watch could not follow a change (the watch goes on).
    WatchError {
        /// What went wrong.
        message: String,
    },
}

/// A watch event: a note of the watch, or an event of a rerun (the same as `run`).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum WatchEvent {
    /// A note of the watch.
    Note(WatchNote),
    /// An event of a rerun.
    Exec(ExecEvent),
}

/// Where a watch sends its events.
pub type WatchSink = Arc<dyn Fn(WatchEvent) + Send + Sync>;

/// How to watch.
#[derive(Debug, Clone, Default)]
pub struct WatchOptions {
    /// As `run` takes them; none: every case.
    pub targets: Vec<String>,
    /// The session's authorizations (flags, or the TUI's prompts answered before).
    pub grants: Grants,
    /// The highest risk to run; the catalog's `default_max_risk` when `None`.
    pub max_risk: Option<Risk>,
    /// The run records' label.
    pub label: String,
    /// `--runs N` for the tests runner.
    pub runs: Option<u32>,
    /// Quiet period; `None`: [`QUIET`].
    pub quiet: Option<Duration>,
}

/// Split the cases into what may rerun (a plan) and what is skipped, by the
/// policy `run` applies headless: nothing above readonly, no gate, no live case
/// without its authorization.
pub fn plan_for(
    ws: &Workspace,
    opts: &WatchOptions,
    cases: &Watched,
) -> (LaunchPlan, Vec<Skipped>) {
    let mut skipped = Vec::new();
    let mut tests = Vec::new();
    let host = super::resolved_host(ws.catalog.as_ref());
    for key in &cases.tests {
        let Some(c) = ws.tests.cases.iter().find(|c| &c.key() == key) else {
            continue;
        };
        let t = TestsTarget::Cases {
            scope: c.scope.clone(),
            case_ids: vec![c.case_id.clone()],
        };
        match super::tests_decision(&t, &opts.grants, true, &host) {
            Decision::Allowed(_) => tests.push(t),
            Decision::Skip(reason) => skipped.push(Skipped {
                id: key.clone(),
                reason,
            }),
            Decision::NeedsPrompt(p) => skipped.push(Skipped {
                id: key.clone(),
                reason: p.headless_reason(),
            }),
        }
    }
    let mut ids = Vec::new();
    if let (Some(cat), false) = (&ws.catalog, cases.catalog.is_empty()) {
        let cp = CatalogPlan {
            ids: cases.catalog.clone(),
            max_risk: opts.max_risk,
            label: opts.label.clone(),
        };
        for (id, d) in catalog_run::decisions(cat, &cp, &opts.grants, true) {
            match d {
                Decision::Allowed(_) => ids.push(id),
                Decision::Skip(reason) => skipped.push(Skipped { id, reason }),
                Decision::NeedsPrompt(p) => skipped.push(Skipped {
                    id,
                    reason: p.headless_reason(),
                }),
            }
        }
    }
    let plan = LaunchPlan {
        tests,
        runs: opts.runs,
        headless: true,
        grants: opts.grants.clone(),
        catalog: CatalogPlan {
            ids,
            max_risk: opts.max_risk,
            label: opts.label.clone(),
        },
    };
    (plan, skipped)
}

/// What the TUI asks before it starts watching: every watched case's decision
/// as a person at the keyboard would meet it (`NeedsPrompt` where a prompt is
/// due). The answers go into `opts.grants`; the watch itself never prompts.
pub fn decisions_for(
    ws: &Workspace,
    opts: &WatchOptions,
) -> Result<Vec<(String, Decision)>, Vec<String>> {
    let watched = resolve(ws, &opts.targets)?;
    let tests = watched
        .tests
        .iter()
        .filter_map(|k| ws.tests.cases.iter().find(|c| &c.key() == k))
        .map(|c| TestsTarget::Cases {
            scope: c.scope.clone(),
            case_ids: vec![c.case_id.clone()],
        })
        .collect();
    let plan = LaunchPlan {
        tests,
        runs: opts.runs,
        headless: false,
        grants: opts.grants.clone(),
        catalog: CatalogPlan {
            ids: watched.catalog,
            max_risk: opts.max_risk,
            label: opts.label.clone(),
        },
    };
    Ok(super::decisions(&LaunchContext::of(ws), &plan))
}

/// The ids a plan launches.
fn plan_ids(plan: &LaunchPlan) -> Watched {
    Watched {
        tests: plan.tests.iter().map(TestsTarget::label).collect(),
        catalog: plan.catalog.ids.clone(),
    }
}

/// Watch until `stop` is cancelled (then the rerun in flight is cancelled too,
/// and its processes are gone when this returns). `Err` before anything is
/// watched: targets that match nothing, or a folder that cannot be watched.
pub fn watch(
    root: &Path,
    opts: &WatchOptions,
    sink: &WatchSink,
    stop: &Cancel,
) -> Result<(), String> {
    use notify::{EventKind, RecursiveMode, Watcher};
    let root = root
        .canonicalize()
        .map_err(|e| format!("{}: {e}", root.display()))?;
    let mut ws = Workspace::load(&root).map_err(|e| e.to_string())?;
    let watched = resolve(&ws, &opts.targets)
        .map_err(|u| format!("no case or scope matches: {}", u.join(", ")))?;
    let (tx, rx) = channel::<notify::Result<notify::Event>>();
    let mut watcher = testdeck_core::workspace::walk::watcher(move |ev| {
        let _ = tx.send(ev);
    })
    .map_err(|e| format!("cannot watch files: {e}"))?;
    let real_dir = testdeck_core::workspace::walk::is_real_dir;
    let watch_error = testdeck_core::workspace::walk::watch_error;
    let mut folders = Vec::new();
    let tests = root.join("tests");
    // tests/logs may hold a great many folders: it is never watched
    let watch_tree = testdeck_core::workspace::walk::watch_tree;
    let watch_tests_child = |w: &mut notify::RecommendedWatcher, p: &Path| -> Result<(), String> {
        if real_dir(p) && !ignored(&root, p) {
            watch_tree(w, &root, p, &rel(&root, p))?;
        }
        Ok(())
    };
    if real_dir(&tests) {
        watcher
            .watch(&tests, RecursiveMode::NonRecursive)
            .map_err(|e| watch_error("tests/", &e))?;
        for e in std::fs::read_dir(&tests).into_iter().flatten().flatten() {
            watch_tests_child(&mut watcher, &e.path())?;
        }
        folders.push("tests".to_owned());
    }
    for d in &WATCHED_DIRS[1..] {
        let p = root.join(d);
        if real_dir(&p) {
            watch_tree(&mut watcher, &root, &p, d)?;
            folders.push((*d).to_owned());
        }
    }
    // the code under test: each glob's base folder, recursively (a glob from the
    // root: the root's own folders but tests/ (watched above), .git and node_modules)
    let globs = ws.config.watch.globs(&root);
    let mut bases: BTreeSet<String> = BTreeSet::new();
    for g in &globs {
        let base = glob_base(g);
        if base.is_empty() {
            if bases.insert(".".into()) {
                watcher
                    .watch(&root, RecursiveMode::NonRecursive)
                    .map_err(|e| watch_error("the root", &e))?;
                for e in std::fs::read_dir(&root).into_iter().flatten().flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let p = e.path();
                    if real_dir(&p) && !matches!(name.as_str(), "tests" | ".git" | "node_modules") {
                        watch_tree(&mut watcher, &root, &p, &name)?;
                    }
                }
            }
            continue;
        }
        let p = root.join(&base);
        let covered = under(&base, "tests") || WATCHED_DIRS.iter().any(|d| under(&base, d));
        if !covered && real_dir(&p) && bases.insert(base.clone()) {
            watch_tree(&mut watcher, &root, &p, &base)?;
        }
    }
    folders.extend(bases);
    sink(WatchEvent::Note(WatchNote::WatchStart {
        folders,
        tests: watched.tests,
        catalog: watched.catalog,
    }));
    let exec_sink: Sink = {
        let s = sink.clone();
        Arc::new(move |e| s(WatchEvent::Exec(e)))
    };
    let mut debouncer = Debouncer::new(opts.quiet.unwrap_or(QUIET), MAX_WAIT);
    let mut current: Option<(LaunchHandle, Watched)> = None;
    while !stop.is_cancelled() {
        let wait = debouncer.wait(Instant::now(), Duration::from_millis(100));
        match rx.recv_timeout(wait) {
            Ok(Ok(ev)) => {
                let relevant = matches!(
                    ev.kind,
                    EventKind::Create(_)
                        | EventKind::Remove(_)
                        | EventKind::Modify(
                            notify::event::ModifyKind::Data(_)
                                | notify::event::ModifyKind::Name(_)
                                | notify::event::ModifyKind::Any
                        )
                        | EventKind::Any
                );
                if relevant {
                    for p in ev.paths {
                        // a new folder directly under tests/ (a new domain) is watched too
                        if p.parent() == Some(tests.as_path()) && p.is_dir() {
                            if let Err(e) = watch_tests_child(&mut watcher, &p) {
                                sink(WatchEvent::Note(WatchNote::WatchError {
                                    message: format!("cannot watch {}: {e}", rel(&root, &p)),
                                }));
                            }
                        }
                        if !ignored(&root, &p) || source_change(&root, &globs, &p) {
                            debouncer.push(p, Instant::now());
                        }
                    }
                }
            }
            Ok(Err(e)) => sink(WatchEvent::Note(WatchNote::WatchError {
                message: e.to_string(),
            })),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        let Some(paths) = debouncer.take_due(Instant::now()) else {
            continue;
        };
        let new_ws = match Workspace::load(&root) {
            Ok(w) => w,
            Err(e) => {
                sink(WatchEvent::Note(WatchNote::WatchError {
                    message: e.to_string(),
                }));
                continue;
            }
        };
        let now_watched = resolve(&new_ws, &opts.targets).unwrap_or_default();
        // the code under test may be used by any case: all of them rerun
        let mut cases = if paths.iter().any(|p| source_change(&root, &globs, p)) {
            now_watched
        } else {
            affected(&ws, &new_ws, &now_watched, &paths)
        };
        ws = new_ws;
        if cases.is_empty() {
            continue;
        }
        if let Some((handle, running)) = current.take() {
            if !handle.is_finished() {
                sink(WatchEvent::Note(WatchNote::WatchCancel {
                    cases: running.ids(),
                }));
                // restarted: what was cancelled runs again with the new changes
                let mut all = running;
                all.extend(&cases);
                cases = all;
            }
            handle.cancel();
            // dropping joins the launch: its process groups are gone after this
            drop(handle);
        }
        let (plan, skipped) = plan_for(&ws, opts, &cases);
        sink(WatchEvent::Note(WatchNote::WatchTrigger {
            paths: paths.iter().map(|p| rel(&root, p)).collect(),
            cases: cases.ids(),
            skipped,
        }));
        if plan.tests.is_empty() && plan.catalog.ids.is_empty() {
            continue;
        }
        let ids = plan_ids(&plan);
        let handle = super::launch(LaunchContext::of(&ws), plan, exec_sink.clone());
        current = Some((handle, ids));
    }
    if let Some((handle, _)) = current.take() {
        handle.cancel();
        drop(handle);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
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

    #[test]
    fn source_changes_follow_the_globs_never_our_logs() {
        let root = Path::new("/w");
        let globs = vec!["src/**".to_owned(), "**/*.fixture.json".to_owned()];
        assert!(source_change(root, &globs, Path::new("/w/src/x.js")));
        assert!(source_change(
            root,
            &globs,
            Path::new("/w/a/b.fixture.json")
        ));
        assert!(!source_change(root, &globs, Path::new("/w/lib/x.js")));
        assert!(!source_change(
            root,
            &globs,
            Path::new("/w/tests/logs/a/r/b.fixture.json")
        ));
        assert_eq!(glob_base("src/**"), "src");
        assert_eq!(glob_base("packages/app/src/*.ts"), "packages/app/src");
        assert_eq!(glob_base("**/*.ts"), "");
    }

    #[test]
    fn own_writes_are_ignored() {
        let root = Path::new("/w");
        assert!(ignored(root, Path::new("/w/tests/logs/a/b/c/r/meta.json")));
        assert!(ignored(root, Path::new("/w/.pouch/tester/runs/x.yaml")));
        assert!(ignored(root, Path::new("/w/src/main.rs")));
        assert!(ignored(root, Path::new("/w/tests-other/a.test.ts")));
        assert!(!ignored(root, Path::new("/w/tests/ai/b/s/a.test.ts")));
        assert!(!ignored(root, Path::new("/w/doc/test-plan/ai.md")));
        assert!(!ignored(root, Path::new("/w/.pouch/tester/cases/api.yaml")));
        assert!(!ignored(root, Path::new("tests/ai/b/s/a.test.ts")));
    }
}
