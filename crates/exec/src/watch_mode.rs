//! Watch mode: file changes under `tests/`, `doc/test-plan/` and
//! `.pouch/tester/cases/` rerun the watched cases they concern, a change to a
//! module reruns the cases whose import graph reaches it (`workspace::graph`,
//! kept in memory and read again where files change), and a change the graph
//! cannot place (a config, `package.json`, a lockfile, a setup file) reruns them
//! all, saying why; debounced, with a rerun in flight cancelled and restarted,
//! under the same authorization as `run`. Cases the graph does not cover (a test
//! file that is no JavaScript / TypeScript) and catalog cases rerun on any change
//! to the code under test (`[watch] paths`).

use super::catalog_run::{self, CatalogPlan};
use super::policy::{Decision, Grants, Risk};
use super::process::Cancel;
use super::tests_run::TestsTarget;
use super::{ExecEvent, LaunchContext, LaunchHandle, LaunchPlan, Sink};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};
use testdeck_core::workspace::changes::{Change, Reader, classify};
use testdeck_core::workspace::graph;
use testdeck_core::workspace::stats::under;
use testdeck_core::workspace::tree::TestCase;
use testdeck_core::workspace::watch::Subscription;
use testdeck_core::workspace::{Workspace, rel};

/// The quiet period that ends a burst of saves.
pub(crate) const QUIET: Duration = Duration::from_millis(300);
/// A burst that never goes quiet still triggers after this long.
pub(crate) const MAX_WAIT: Duration = Duration::from_secs(3);
/// The folders whose changes rerun cases, relative to the root (as the watch
/// start says them).
pub(crate) const WATCHED_DIRS: [&str; 3] = ["tests", "doc/test-plan", ".pouch/tester/cases"];
/// Folders whose changes are testdeck's or the runner's own writes.
pub(crate) const IGNORED_DIRS: [&str; 2] = ["tests/logs", ".pouch/tester/runs"];

use testdeck_core::workspace::config::WatchGlobs as _;
pub use testdeck_core::workspace::watch::Debouncer;

/// Whether a changed path concerns watch mode: a test file, a plan file or a
/// catalog file as `workspace::changes` classifies it (never the logs or the
/// run records: testdeck's and the runner's own writes), or code under test.
pub(crate) fn concerns(root: &Path, globs: &[String], path: &Path) -> bool {
    !testdeck_core::workspace::watch::is_editor_temp(&rel(root, path))
        && matches!(
            classify(root, path),
            Some(Change::Tests(_) | Change::Plan | Change::Catalog)
        )
        || source_change(root, globs, path)
}

/// Whether a changed path is code under test: matched by one of `globs` (the
/// `[watch] paths` in force) and never one of our own writes.
pub(crate) fn source_change(root: &Path, globs: &[String], path: &Path) -> bool {
    let r = rel(root, path);
    !IGNORED_DIRS.iter().any(|d| under(&r, d))
        && !testdeck_core::workspace::watch::is_editor_temp(&r)
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
    // a case's own file (in the tree or outside it), a plan or catalog file
    let rels: Vec<String> = paths
        .iter()
        .map(|p| rel(&new.root, p))
        .filter(|r| !testdeck_core::workspace::watch::is_editor_temp(r))
        .filter(|r| !IGNORED_DIRS.iter().any(|d| under(r, d)))
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
        /// The cases rerun (none: the changes reach no case, `notes` says so).
        cases: Vec<String>,
        /// The cases left out.
        skipped: Vec<Skipped>,
        /// What each changed module reaches (`src/unused.ts changed: reaches no
        /// case`), or why every case (`vitest.config.ts changed: every case`).
        notes: Vec<String>,
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
    /// The quiet period that ends a burst of saves, every change of it waited
    /// for; `None`: the first change after a quiet spell of [`QUIET`] reruns at
    /// once, and the changes that follow within it wait for their burst's end.
    pub quiet: Option<Duration>,
    /// The history cache folder whose import index the watch's graph starts
    /// from and writes back (`None`: every module parsed).
    pub cache: Option<PathBuf>,
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

/// The import graph a watch keeps: the aliases read from the project's configs,
/// and the modules the cases reach, read again where files change.
struct Modules {
    aliases: graph::Aliases,
    graph: graph::Graph,
    /// Each module's parse, from the history cache's import index: a module
    /// read again is parsed only when its bytes changed.
    index: graph::index::ModuleIndex,
    /// The history cache folder the index is kept in.
    cache: Option<PathBuf>,
}

impl Modules {
    fn new(ws: &Workspace, cache: Option<PathBuf>) -> Modules {
        let (aliases, _) = graph::load::aliases(&ws.root);
        let cases = graph::load::case_files(ws);
        let mut index = graph::index::ModuleIndex::open(cache.as_deref(), &ws.root);
        let (graph, _) = graph::load::build_with(
            &ws.root,
            &aliases,
            &mut index,
            cases.iter().map(|(_, f)| f.as_str()),
        );
        let mut m = Modules {
            aliases,
            graph,
            index,
            cache,
        };
        m.save(&ws.root);
        m
    }

    /// Write the index back (a cache: a write that fails costs parses only).
    fn save(&mut self, root: &Path) {
        let _ = self.index.save(self.cache.as_deref(), root);
    }

    /// The globs the watch follows: `[watch] paths`, the top folders of the
    /// modules the graph holds (outside the tests tree), and the root's files whose
    /// change the graph cannot place.
    fn globs(&self, ws: &Workspace) -> Vec<String> {
        let mut globs = ws.config.watch.globs(&ws.root);
        let covered = |globs: &[String], f: &str| {
            under(f, "tests")
                || globs
                    .iter()
                    .any(|g| testdeck_core::workspace::config::glob_matches(g, f))
        };
        for m in self.graph.modules.keys() {
            if covered(&globs, m) {
                continue;
            }
            let glob = match m.split_once('/') {
                Some((top, _)) if top != "node_modules" => format!("{top}/**"),
                // a module at the root: itself
                None => m.clone(),
                Some(_) => continue,
            };
            if !globs.contains(&glob) {
                globs.push(glob);
            }
        }
        if let Ok(rd) = std::fs::read_dir(&ws.root) {
            let mut names: Vec<String> = rd
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .filter_map(|e| e.file_name().to_str().map(str::to_owned))
                .filter(|n| graph::is_unplaced(n))
                .collect();
            names.extend(graph::root_configs());
            names.sort();
            names.dedup();
            for n in names {
                if !globs.contains(&n) {
                    globs.push(n);
                }
            }
        }
        globs
    }

    /// The cases the changed files (`rels`) reach, before or after the graph
    /// takes the changes in; a change to a config reads the aliases again.
    fn select(&mut self, ws: &Workspace, rels: &[String]) -> graph::Selection {
        let cases = graph::load::case_files(ws);
        let code = ws.config.watch.globs(&ws.root);
        let before = graph::select(&self.graph, &self.aliases, &cases, rels, &code);
        if rels.iter().any(|r| graph::is_unplaced(r)) {
            // what was parsed since the start, kept for the graph read anew
            self.save(&ws.root);
            *self = Modules::new(ws, self.cache.take());
            return before;
        }
        let _ = graph::load::update_with(
            &ws.root,
            &self.aliases,
            &mut self.index,
            &mut self.graph,
            cases.iter().map(|(_, f)| f.as_str()),
            rels,
        );
        let after = graph::select(&self.graph, &self.aliases, &cases, rels, &code);
        if after.every.is_some() || before.every.is_some() {
            return if after.every.is_some() { after } else { before };
        }
        let mut out = after;
        for k in before.cases {
            if !out.cases.contains(&k) {
                out.cases.push(k);
            }
        }
        out
    }
}

/// The ids a plan launches.
fn plan_ids(plan: &LaunchPlan) -> Watched {
    Watched {
        tests: plan.tests.iter().map(TestsTarget::label).collect(),
        catalog: plan.catalog.ids.clone(),
    }
}

/// Watch until `stop` is cancelled (then the rerun in flight is cancelled too,
/// and its processes are gone when this returns), on the classified changes of
/// the process's one workspace watcher (`changes`, a subscription to it): the
/// workspace is loaded once, and each burst of changes is read into it, never
/// loaded again. `Err` before anything is watched: targets that match nothing.
#[expect(
    clippy::too_many_lines,
    reason = "the watch loop: one select over files, keys and runs whose arms share the loop's state"
)]
pub fn watch(
    root: &Path,
    opts: &WatchOptions,
    sink: &WatchSink,
    stop: &Cancel,
    changes: &Subscription,
) -> Result<(), String> {
    let root = root
        .canonicalize()
        .map_err(|e| format!("{}: {e}", root.display()))?;
    let mut ws = Workspace::load(&root).map_err(|e| e.to_string())?;
    let watched = resolve(&ws, &opts.targets)
        .map_err(|u| format!("no case or scope matches: {}", u.join(", ")))?;
    let real_dir = testdeck_core::workspace::walk::is_real_dir;
    // the import graph of every case, read once, then again where files change
    let mut graph = Modules::new(&ws, opts.cache.clone());
    // the code under test: the one watcher watches each glob's base folder too,
    // the folders the graph reaches and the root's configs
    let globs = graph.globs(&ws);
    let configs = graph::root_configs();
    // the project's own tests outside the tree (SPEC §1.1a): their files are watched too
    let outside_globs: Vec<String> = ws.config.outside.as_ref().map_or_else(Vec::new, |o| {
        o.vitest.iter().chain(&o.playwright).cloned().collect()
    });
    let outside_tests =
        ws.config.outside.as_ref().map(|o| {
            testdeck_core::workspace::outside::discover::Patterns::new(o, &mut Vec::new())
        });
    let outside_test = |p: &Path| {
        let r = rel(&root, p);
        !testdeck_core::workspace::watch::is_editor_temp(&r)
            && outside_tests
                .as_ref()
                .is_some_and(|t| t.tool_of(&r).is_some())
    };
    changes.watch_sources(&[globs.clone(), outside_globs.clone()].concat());
    let mut folders: Vec<String> = WATCHED_DIRS
        .iter()
        .filter(|d| real_dir(&root.join(d)))
        .map(|d| (*d).to_owned())
        .collect();
    for g in globs
        .iter()
        .filter(|g| !configs.contains(g) && !graph::is_unplaced(g))
        .chain(&outside_globs)
    {
        let base = glob_base(g);
        let base = if base.is_empty() {
            ".".to_owned()
        } else {
            base
        };
        let covered = WATCHED_DIRS.iter().any(|d| under(&base, d));
        if !covered && !folders.contains(&base) {
            folders.push(base);
        }
    }
    // armed only once the watcher sees changes: a save right after the start counts
    while !changes.ready() && !stop.is_cancelled() {
        std::thread::sleep(Duration::from_millis(10));
    }
    sink(WatchEvent::Note(WatchNote::WatchStart {
        folders,
        tests: watched.tests,
        catalog: watched.catalog,
    }));
    let exec_sink: Sink = {
        let s = sink.clone();
        Arc::new(move |e| s(WatchEvent::Exec(e)))
    };
    let mut reader = Reader::new(&root, &ws.config);
    // asked a quiet period: every change waits for it; else a lone save reruns at once
    let mut debouncer = match opts.quiet {
        Some(q) => Debouncer::new(q, MAX_WAIT),
        None => Debouncer::leading(QUIET, MAX_WAIT),
    };
    let mut pending: BTreeSet<Change> = BTreeSet::new();
    let mut current: Option<(LaunchHandle, Watched)> = None;
    while !stop.is_cancelled() {
        let wait = debouncer.wait(Instant::now(), Duration::from_millis(100));
        match changes.recv_timeout(wait) {
            Ok(batch) => {
                for p in &batch.paths {
                    if concerns(&root, &globs, p) || outside_test(p) {
                        debouncer.push(p.clone(), Instant::now());
                    }
                }
                // the logs and run records are testdeck's and the runner's own writes
                pending.extend(
                    batch
                        .changes
                        .iter()
                        .filter(|c| {
                            matches!(
                                c,
                                Change::Tests(_) | Change::Plan | Change::Catalog | Change::Config
                            )
                        })
                        .cloned(),
                );
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        let Some(paths) = debouncer.take_due(Instant::now()) else {
            continue;
        };
        let read = std::mem::take(&mut pending);
        // what the cases were before the changes (the plan and catalog files
        // that named them), then the workspace as the changes leave it
        let before = Workspace {
            root: root.clone(),
            config: ws.config.clone(),
            tests: testdeck_core::workspace::tree::TestsTree::default(),
            logs: testdeck_core::workspace::logs::Logs::default(),
            plan: ws.plan.clone(),
            catalog: ws.catalog.clone(),
            problems: Vec::new(),
        };
        if read.contains(&Change::Config) {
            match Workspace::load(&root) {
                Ok(w) => ws = w,
                Err(e) => {
                    sink(WatchEvent::Note(WatchNote::WatchError {
                        message: e.to_string(),
                    }));
                    continue;
                }
            }
            reader = Reader::new(&root, &ws.config);
        } else {
            ws.apply(reader.read(&read));
        }
        let now_watched = resolve(&ws, &opts.targets).unwrap_or_default();
        let rels: Vec<String> = paths.iter().map(|p| rel(&root, p)).collect();
        let selection = graph.select(&ws, &rels);
        let mut cases = if selection.every.is_some() {
            now_watched
        } else {
            let mut cases = affected(&before, &ws, &now_watched, &paths);
            let by_graph = Watched {
                tests: now_watched
                    .tests
                    .iter()
                    .filter(|k| selection.cases.contains(k))
                    .cloned()
                    .collect(),
                catalog: Vec::new(),
            };
            cases.extend(&by_graph);
            // what the graph does not cover: any change to the code under test
            if paths.iter().any(|p| source_change(&root, &globs, p)) {
                let uncovered = Watched {
                    tests: now_watched
                        .tests
                        .iter()
                        .filter(|k| {
                            ws.tests
                                .cases
                                .iter()
                                .any(|c| &c.key() == *k && !graph::is_source(&c.path))
                        })
                        .cloned()
                        .collect(),
                    catalog: now_watched.catalog.clone(),
                };
                cases.extend(&uncovered);
            }
            // in the watched order
            Watched {
                tests: now_watched
                    .tests
                    .iter()
                    .filter(|k| cases.tests.contains(k))
                    .cloned()
                    .collect(),
                catalog: now_watched
                    .catalog
                    .iter()
                    .filter(|k| cases.catalog.contains(k))
                    .cloned()
                    .collect(),
            }
        };
        if cases.is_empty() {
            if !selection.notes.is_empty() && selection.cases.is_empty() {
                // a change that reaches no case selects none, and says so
                sink(WatchEvent::Note(WatchNote::WatchTrigger {
                    paths: rels,
                    cases: Vec::new(),
                    skipped: Vec::new(),
                    notes: selection.notes,
                }));
            }
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
            paths: rels,
            cases: cases.ids(),
            skipped,
            notes: selection.notes,
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
    // the modules parsed again while it watched, for the next start
    graph.save(&root);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn editors_temporary_files_concern_no_watch() {
        let root = Path::new("/w");
        let globs = vec!["src/**".to_owned()];
        assert!(concerns(root, &globs, Path::new("/w/src/utils.ts")));
        for t in [
            "/w/src/.utils.ts.swp",
            "/w/src/sedXYZ12a",
            "/w/src/4913",
            "/w/src/utils.ts~",
            "/w/tests/a/backend/s/.x.test.ts.swp",
        ] {
            assert!(!concerns(root, &globs, Path::new(t)), "{t}");
            assert!(!source_change(root, &globs, Path::new(t)), "{t}");
        }
    }

    #[test]
    fn own_writes_never_concern_the_watch() {
        let root = Path::new("/w");
        let no = |p: &str| !concerns(root, &[], Path::new(p));
        assert!(no("/w/tests/logs/a/b/c/r/meta.json"));
        assert!(no("/w/.pouch/tester/runs/x.yaml"));
        assert!(no("/w/src/main.rs"));
        assert!(no("/w/tests-other/a.test.ts"));
        assert!(concerns(root, &[], Path::new("/w/tests/ai/b/s/a.test.ts")));
        assert!(concerns(root, &[], Path::new("/w/doc/test-plan/ai.md")));
        assert!(concerns(
            root,
            &[],
            Path::new("/w/.pouch/tester/cases/api.yaml")
        ));
        assert!(concerns(
            root,
            &["src/**".into()],
            Path::new("/w/src/main.rs")
        ));
    }
}
