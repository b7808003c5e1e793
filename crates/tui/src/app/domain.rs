//! The workspace as the cockpit holds it ([`Domain`]): the model loaded (its
//! tree first, then its history as it streams in, then the watch's changes),
//! why it could not be, the finder's candidates. Installing or changing it
//! hands each tab its part through the tab's own methods ([`Tabs`], lent by
//! the App beside the Domain); what is the App's to apply comes back: the
//! catalog's host and max risk ([`Installed`]).

use super::super::action::Action;
use super::{Candidate, CatalogTab, Effect, RunRow, RunsTab, TestsTab, finder, insights};
use testdeck_core::Problem;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::catalog::{Catalog, Risk};
use testdeck_core::workspace::changes::{Applied, Reread, Update};
use testdeck_core::workspace::logs::{Chunk, RunMoves, RunStatus};
use testdeck_core::workspace::vars::{self, Vars};

/// The workspace loaded and how far its load is.
#[derive(Debug, Default)]
pub struct Domain {
    ws: Option<Workspace>,
    load_error: Option<String>,
    /// The tree is shown but run history is still being indexed.
    indexing: bool,
    /// The tree shown holds the walk's first results only (`Action::TreePart`):
    /// the whole tree, the catalog and the finder's candidates are to come.
    tree_partial: bool,
    /// Runs of the history read so far and in all, while it streams in.
    history_progress: Option<(usize, usize)>,
    /// What the finder matches.
    candidates: Vec<Candidate>,
    /// The catalog's vars read the process environment (never in tests).
    use_env: bool,
}

/// The tabs a workspace is installed in, lent by the App for one call.
pub struct Tabs<'a> {
    tests: &'a mut TestsTab,
    catalog: &'a mut CatalogTab,
    runs: &'a mut RunsTab,
}

/// What an install or a change leaves for the App to apply (then it keeps
/// the cursors in view): the catalog's host and max risk, when a catalog was
/// installed (the options' host, the launch's default).
pub type Installed = Option<(String, Risk)>;

/// A change of the watch applied ([`Domain::changed`]).
#[derive(Debug)]
pub struct Changed {
    pub applied: Applied,
    /// The run folders deleted.
    pub removed: Vec<String>,
    /// The newest run new to the index that is still being written.
    pub fresh: Option<String>,
    pub installed: Installed,
    /// Read again after the rest: the run records, the change times.
    pub records: Vec<Effect>,
}

impl<'a> Tabs<'a> {
    /// The three tabs, lent together.
    pub fn new(
        tests: &'a mut TestsTab,
        catalog: &'a mut CatalogTab,
        runs: &'a mut RunsTab,
    ) -> Tabs<'a> {
        Tabs {
            tests,
            catalog,
            runs,
        }
    }
}

impl Domain {
    /// Nothing loaded yet; the catalog's vars read the environment when `use_env`.
    pub fn new(use_env: bool) -> Domain {
        Domain {
            use_env,
            ..Domain::default()
        }
    }

    /// The loaded workspace (`None` while loading or when it failed).
    pub fn ws(&self) -> Option<&Workspace> {
        self.ws.as_ref()
    }

    /// Why the workspace could not be loaded.
    pub fn load_error(&self) -> Option<&String> {
        self.load_error.as_ref()
    }

    /// Nothing is shown yet, and nothing failed.
    pub fn loading(&self) -> bool {
        self.ws.is_none() && self.load_error.is_none()
    }

    /// The tree is shown but run history is still being indexed.
    pub fn indexing(&self) -> bool {
        self.indexing
    }

    /// Runs of the history read so far and in all, while it streams in.
    pub fn history_progress(&self) -> Option<(usize, usize)> {
        self.history_progress
    }

    /// What the finder matches.
    pub fn candidates(&self) -> &Vec<Candidate> {
        &self.candidates
    }

    /// The vars of the workspace's catalog, when it has one.
    pub fn vars(&self) -> Option<Vars> {
        let cat = self.ws.as_ref()?.catalog.as_ref()?;
        Some(vars_of(self.use_env, cat))
    }

    /// What the staged index sent (`Action::TreePart`, `TreeLoaded`,
    /// `HistoryStarted`, `HistoryChunk`, `HistoryVerified`, `HistoryRebuilt`).
    pub fn indexed(&mut self, a: Action, tabs: &mut Tabs) -> Installed {
        match a {
            Action::TreePart(ws) => self.tree_part(*ws, tabs),
            Action::TreeLoaded(ws) => self.tree_loaded(*ws, tabs),
            Action::HistoryStarted { total, problems } => {
                self.history_started(total, problems);
                None
            }
            Action::HistoryChunk(chunk) => self.history_chunk(*chunk, tabs),
            Action::HistoryVerified { updates, problems } => {
                self.history_verified(updates, problems, tabs)
            }
            Action::HistoryRebuilt(chunk) => self.history_rebuilt(*chunk, tabs),
            _ => None,
        }
    }

    /// The workspace could not be loaded: why.
    pub fn failed(&mut self, e: String) {
        self.load_error = Some(e);
    }

    /// The walk's first results: the tree's first rows shown at once (no
    /// finder candidates, catalog or figures: they come with the whole tree).
    fn tree_part(&mut self, ws: Workspace, tabs: &mut Tabs) -> Installed {
        let first = self.ws.is_none();
        if !first && !self.tree_partial {
            return None;
        }
        if first {
            tabs.tests.install(&ws, false);
        } else {
            tabs.tests.install_grown(&ws);
        }
        self.ws = Some(ws);
        self.tree_partial = true;
        self.indexing = true;
        None
    }

    /// The whole tree and the catalog (after its first rows, or at once).
    fn tree_loaded(&mut self, ws: Workspace, tabs: &mut Tabs) -> Installed {
        // the full workspace may already be here (a fast disk): keep it
        let got = if self.ws.is_none() {
            self.install(ws, false, tabs)
        } else if self.tree_partial {
            let keep_row = tabs.runs.selected();
            tabs.tests.install_grown(&ws);
            self.candidates = finder::candidates(&ws, tabs.tests.cases());
            let catalog = self.install_catalog(&ws, tabs.catalog);
            tabs.catalog.clamp();
            tabs.runs.refilter(&ws);
            keep(tabs.runs, keep_row);
            self.ws = Some(ws);
            catalog
        } else {
            return None;
        };
        self.tree_partial = false;
        self.indexing = true;
        got
    }

    /// The staged index walked the history: its total, before any run is read.
    fn history_started(&mut self, total: usize, mut problems: Vec<Problem>) {
        if let Some(ws) = &mut self.ws {
            ws.problems.append(&mut problems);
            self.history_progress = Some((0, total));
        }
    }

    /// One domain's runs arrived: the badges, the statistics and the Runs tab
    /// show them, the person's place kept.
    fn history_chunk(&mut self, chunk: Chunk, tabs: &mut Tabs) -> Installed {
        let mut ws = self.ws.take()?;
        let n = chunk.runs.len();
        let moves = ws.add_history(chunk);
        if let Some((done, _)) = &mut self.history_progress {
            *done += n;
        }
        at_top(tabs, |tabs| {
            self.apply_change(ws, &moves, (false, false), tabs)
        })
    }

    /// The history cache's check: what differs from the cached history shown
    /// is applied (no run of it is new to the person: none is followed or
    /// announced), and the walk's problems join the list.
    fn history_verified(
        &mut self,
        updates: Vec<Update>,
        mut problems: Vec<Problem>,
        tabs: &mut Tabs,
    ) -> Installed {
        let mut ws = self.ws.take()?;
        let applied = ws.apply(updates);
        ws.problems.append(&mut problems);
        if !applied.changed {
            self.ws = Some(ws);
            return None;
        }
        let shape = (applied.tree, applied.catalog);
        at_top(tabs, |tabs| {
            self.apply_change(ws, &applied.moves, shape, tabs)
        })
    }

    /// The history cache's check found much changed: the history whole in
    /// place of the cached one (the problems of `tests/logs/` with it).
    fn history_rebuilt(&mut self, chunk: Chunk, tabs: &mut Tabs) -> Installed {
        let mut ws = self.ws.take()?;
        ws.problems
            .retain(|p| !(p.file == "tests/logs" || p.file.starts_with("tests/logs/")));
        ws.logs.runs.clear();
        ws.add_history(chunk);
        at_top(tabs, |tabs| self.install(ws, true, tabs))
    }

    /// The history is all read.
    pub fn history_done(&mut self) {
        self.indexing = false;
        self.history_progress = None;
    }

    /// A full load: the workspace in place of the one shown (a reload keeps
    /// what the person opened and where they are).
    pub fn loaded(&mut self, ws: Workspace, tabs: &mut Tabs) -> Installed {
        self.indexing = false;
        self.tree_partial = false;
        self.history_progress = None;
        let reload = self.ws.is_some();
        self.install(ws, reload, tabs)
    }

    /// Apply what the workspace watch read: the model and the tabs changed,
    /// or (`Err`) what to do instead — nothing while the first index is on its
    /// way (it reads the disk as it is now), a full load when the model cannot
    /// apply it, the run records or the change times to read when nothing else
    /// changed.
    pub fn changed(
        &mut self,
        updates: Vec<Update>,
        tabs: &mut Tabs,
    ) -> Result<Changed, Vec<Effect>> {
        if self.indexing {
            return Err(Vec::new());
        }
        let Some(mut ws) = self.ws.take() else {
            return Err(Vec::new());
        };
        let touched = insights::touches_cases(&updates);
        // run folders deleted: a run followed among them ends (with a note)
        let removed: Vec<String> = updates
            .iter()
            .filter_map(|u| match u {
                Update::RemoveRuns(p) => Some(p.clone()),
                _ => None,
            })
            .collect();
        let applied = ws.apply(updates);
        if applied.reread == Reread::All {
            self.ws = Some(ws);
            return Err(vec![Effect::Reload]);
        }
        // a run record another process wrote (a headless `testdeck run`): the
        // Runs tab reads the records again; a case's files changed: when, again
        let mut records: Vec<Effect> = (applied.reread == Reread::Records)
            .then_some(Effect::ReadRecords)
            .into_iter()
            .collect();
        if touched {
            records.push(insights::change_times_job(&ws));
        }
        if !applied.changed {
            self.ws = Some(ws);
            return Err(records);
        }
        let shape = (applied.tree, applied.catalog);
        let installed = self.apply_change(ws, &applied.moves, shape, tabs);
        // a new run still being written: followed live when nothing else is
        let fresh = applied
            .new_runs
            .iter()
            .rev()
            .find(|p| !applied.ended_runs.contains(p))
            .cloned();
        Ok(Changed {
            applied,
            removed,
            fresh,
            installed,
            records,
        })
    }

    /// `cancelled` / `abandoned` when the index says the run at `path` ended so
    /// (without a `meta.json`).
    pub fn ended_without_meta(&self, path: &str) -> Option<&'static str> {
        let r = self
            .ws
            .as_ref()?
            .logs
            .runs
            .iter()
            .find(|r| r.path == path)?;
        matches!(r.status, RunStatus::Cancelled | RunStatus::Abandoned).then(|| r.status.as_str())
    }

    /// Install a loaded workspace: cases, tree, stats, finder candidates, runs
    /// list (`reload`: it replaces one shown, the Runs tab's row kept).
    fn install(&mut self, ws: Workspace, reload: bool, tabs: &mut Tabs) -> Installed {
        let keep_row = tabs.runs.selected();
        tabs.tests.install(&ws, reload);
        self.candidates = finder::candidates(&ws, tabs.tests.cases());
        let catalog = self.install_catalog(&ws, tabs.catalog);
        tabs.catalog.clamp();
        tabs.runs.refilter(&ws);
        if reload {
            keep(tabs.runs, keep_row);
        }
        self.ws = Some(ws);
        catalog
    }

    /// A change applied to `ws` (`moves`: where its runs moved; `shape`: the
    /// cases of the tests tree changed, the catalog did): each view takes only
    /// what changed. Runs alone update their cases' rows and figures and the
    /// Runs tab's touched rows; a changed tree builds the rows and the tree
    /// again but computes only the figures of the cases that came, went or
    /// changed; nothing else is looked at again.
    fn apply_change(
        &mut self,
        ws: Workspace,
        moves: &RunMoves,
        (tree, catalog): (bool, bool),
        tabs: &mut Tabs,
    ) -> Installed {
        let cases = moves.cases(&ws.logs.runs);
        if tree || !tabs.tests.takes_runs(&ws, &cases) {
            tabs.tests.reshape(&ws, &cases);
            self.candidates = finder::candidates(&ws, tabs.tests.cases());
        } else {
            tabs.tests.runs_changed(&ws, moves, &cases);
        }
        let mut got = None;
        if catalog {
            got = self.install_catalog(&ws, tabs.catalog);
            if !tree {
                self.candidates = finder::candidates(&ws, tabs.tests.cases());
            }
        }
        tabs.runs.runs_moved(&ws, moves);
        self.ws = Some(ws);
        tabs.catalog.clamp();
        got
    }

    /// The Catalog tab from `ws`'s catalog; its host and default max risk.
    fn install_catalog(&self, ws: &Workspace, tab: &mut CatalogTab) -> Option<(String, Risk)> {
        let cat = ws.catalog.as_ref()?;
        tab.install(cat);
        let host = vars_of(self.use_env, cat).host().to_owned();
        Some((host, cat.max_risk()))
    }
}

/// `change` applied to the tabs: the Runs tab's top row is the newest run, so
/// a cursor left there stays on the newest (not on the run that was newest
/// so far) while the history streams in or is checked.
fn at_top(tabs: &mut Tabs, change: impl FnOnce(&mut Tabs) -> Installed) -> Installed {
    let top = tabs.runs.list().cursor == 0;
    let got = change(tabs);
    if top {
        tabs.runs.set_cursor(0);
    }
    got
}

/// The Runs tab's cursor back on row `row` when the filter still shows it.
fn keep(runs: &mut RunsTab, row: Option<RunRow>) {
    if let Some(p) = row.and_then(|k| runs.visible().iter().position(|r| *r == k)) {
        runs.set_cursor(p);
    }
}

/// The catalog's vars as cases see them (the process environment only when the
/// app reads it: never in tests).
pub fn vars_of(use_env: bool, cat: &Catalog) -> Vars {
    let env_fn = |n: &str| vars::process_env(n);
    let none_fn = |_: &str| None;
    let env: vars::Env = if use_env { &env_fn } else { &none_fn };
    Vars::resolve(cat, env)
}
