//! The workspace installed in the app, and what the live pane shows for the
//! selection (a run folder, a run record, or nothing).

use super::{App, Effect, RunRef, RunRow, Tab, finder, record_run_data};
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::logs::RunDetails as _;
use testdeck_core::workspace::logs::RunMoves;

impl App {
    /// Install a loaded workspace: cases, tree, stats, finder candidates, runs list.
    pub fn set_workspace(&mut self, ws: Workspace) {
        // a reload keeps what the person opened and where they are
        let reload = self.ws.is_some();
        self.install_workspace(ws, reload);
    }

    /// Read the whole `meta.json` of the run the details show, once per run
    /// selected (or when the run's summary changed: a reload).
    pub(super) fn sync_run_meta(&mut self) {
        let want = self.selected_run().filter(|r| r.meta.is_some());
        let same = match (&self.run_meta, want) {
            (Some((p, _)), Some(r)) => *p == r.path,
            (None, None) => true,
            _ => false,
        };
        if !same {
            self.run_meta = want.map(|r| {
                let root = &self.opts.root;
                (r.path.clone(), r.details(root))
            });
        }
    }

    /// The whole `meta.json` of `r` when it is the run the details show.
    pub fn run_meta(
        &self,
        r: &testdeck_core::workspace::logs::RawRun,
    ) -> Option<&testdeck_core::workspace::logs::Meta> {
        self.run_meta
            .as_ref()
            .filter(|(p, _)| *p == r.path)
            .and_then(|(_, m)| m.as_ref())
    }

    /// The staged index walked the history: its total, before any run is read.
    pub(super) fn history_started(
        &mut self,
        total: usize,
        mut problems: Vec<testdeck_core::Problem>,
    ) {
        if let Some(ws) = &mut self.ws {
            ws.problems.append(&mut problems);
            self.history_progress = Some((0, total));
        }
    }

    /// One domain's runs arrived: the badges, the statistics and the Runs tab
    /// show them, the person's place kept.
    pub(super) fn history_chunk(&mut self, chunk: testdeck_core::workspace::logs::Chunk) {
        let Some(mut ws) = self.ws.take() else {
            return;
        };
        let n = chunk.runs.len();
        let moves = ws.add_history(chunk);
        if let Some((done, _)) = &mut self.history_progress {
            *done += n;
        }
        // the Runs tab's top row is the newest run: while the history streams in, a
        // cursor left there stays on the newest (not on the run that was newest so far)
        let at_top = self.runs.list().cursor == 0;
        self.apply_change(ws, &moves, false, false);
        if at_top {
            self.runs.set_cursor(0);
        }
    }

    /// A change applied to `ws` (`moves`: where its runs moved; `tree`: the
    /// cases of the tests tree changed; `catalog`: the catalog did): each view
    /// takes only what changed. Runs alone update their cases' rows and figures
    /// and the Runs tab's touched rows; a changed tree builds the rows and the
    /// tree again but computes only the figures of the cases that came, went or
    /// changed; nothing else is looked at again.
    pub(super) fn apply_change(
        &mut self,
        ws: Workspace,
        moves: &RunMoves,
        tree: bool,
        catalog: bool,
    ) {
        let cases = moves.cases(&ws.logs.runs);
        if tree || !self.tests.takes_runs(&ws, &cases) {
            self.tests.reshape(&ws, &cases);
            self.candidates = finder::candidates(&ws, self.tests.cases());
        } else {
            self.tests.runs_changed(&ws, moves, &cases);
        }
        if catalog {
            self.install_catalog(&ws);
            if !tree {
                self.candidates = finder::candidates(&ws, self.tests.cases());
            }
        }
        self.runs.runs_moved(&ws, moves);
        self.ws = Some(ws);
        self.catalog.clamp();
        self.clamp();
    }

    /// The walk's first results: the tree's first rows shown at once (no
    /// finder candidates, catalog or figures: they come with the whole tree).
    pub(super) fn tree_part(&mut self, ws: Workspace) {
        let first = self.ws.is_none();
        if first || self.tree_partial {
            if first {
                self.tests.install(&ws, false);
            } else {
                self.tests.install_grown(&ws);
            }
            self.ws = Some(ws);
            self.tree_partial = true;
            self.clamp();
        }
    }

    /// The whole tree and the catalog (after its first rows, or at once).
    pub(super) fn tree_loaded(&mut self, ws: Workspace) {
        // the full workspace may already be here (a fast disk): keep it
        if self.ws.is_none() {
            self.install_workspace(ws, false);
        } else if self.tree_partial {
            let keep_row = self.runs.selected();
            self.tests.install_grown(&ws);
            self.candidates = finder::candidates(&ws, self.tests.cases());
            self.install_catalog(&ws);
            self.ws = Some(ws);
            self.catalog.clamp();
            self.refilter_runs();
            if let Some(p) = keep_row.and_then(|k| self.runs.visible().iter().position(|r| *r == k))
            {
                self.runs.set_cursor(p);
            }
            self.clamp();
        } else {
            return;
        }
        self.tree_partial = false;
    }

    /// The history cache's check: what differs from the cached history shown
    /// is applied (no run of it is new to the person: none is followed or
    /// announced), and the walk's problems join the list.
    pub(super) fn history_verified(
        &mut self,
        updates: Vec<testdeck_core::workspace::changes::Update>,
        mut problems: Vec<testdeck_core::Problem>,
    ) {
        let Some(mut ws) = self.ws.take() else {
            return;
        };
        let applied = ws.apply(updates);
        ws.problems.append(&mut problems);
        if !applied.changed {
            self.ws = Some(ws);
            return;
        }
        let at_top = self.runs.list().cursor == 0;
        self.apply_change(ws, &applied.moves, applied.tree, applied.catalog);
        if at_top {
            self.runs.set_cursor(0);
        }
    }

    /// The history cache's check found much changed: the history whole in
    /// place of the cached one (the problems of `tests/logs/` with it).
    pub(super) fn history_rebuilt(&mut self, chunk: testdeck_core::workspace::logs::Chunk) {
        let Some(mut ws) = self.ws.take() else {
            return;
        };
        ws.problems
            .retain(|p| !(p.file == "tests/logs" || p.file.starts_with("tests/logs/")));
        ws.logs.runs.clear();
        ws.add_history(chunk);
        let at_top = self.runs.list().cursor == 0;
        self.install_workspace(ws, true);
        if at_top {
            self.runs.set_cursor(0);
        }
    }

    /// [`App::set_workspace`], told whether it replaces one shown (a change the
    /// watch applied to the workspace taken out of `self.ws` is one).
    pub(super) fn install_workspace(&mut self, ws: Workspace, reload: bool) {
        let keep_row = self.runs.selected();
        self.tests.install(&ws, reload);
        self.candidates = finder::candidates(&ws, self.tests.cases());
        self.install_catalog(&ws);
        self.ws = Some(ws);
        self.catalog.clamp();
        self.refilter_runs();
        if reload {
            if let Some(p) = keep_row.and_then(|k| self.runs.visible().iter().position(|r| *r == k))
            {
                self.runs.set_cursor(p);
            }
        }
        self.clamp();
    }

    /// The Catalog tab, the host and the default max risk from `ws`'s catalog.
    fn install_catalog(&mut self, ws: &Workspace) {
        if let Some(cat) = &ws.catalog {
            self.catalog.install(cat);
            let vars = self.vars_of(cat);
            vars.host().clone_into(&mut self.opts.host);
            self.launch.default_risk(cat.max_risk());
        }
    }

    /// The catalog's vars as cases see them (the process environment only when the
    /// app reads it: never in tests).
    fn vars_of(
        &self,
        cat: &testdeck_core::workspace::catalog::Catalog,
    ) -> testdeck_core::workspace::vars::Vars {
        let env_fn = |n: &str| testdeck_core::workspace::vars::process_env(n);
        let none_fn = |_: &str| None;
        let env: testdeck_core::workspace::vars::Env =
            if self.opts.use_env { &env_fn } else { &none_fn };
        testdeck_core::workspace::vars::Vars::resolve(cat, env)
    }

    /// The vars of the workspace's catalog, when it has one.
    pub fn vars(&self) -> Option<testdeck_core::workspace::vars::Vars> {
        let cat = self.ws.as_ref()?.catalog.as_ref()?;
        Some(self.vars_of(cat))
    }

    pub(super) fn refilter_runs(&mut self) {
        if let Some(ws) = &self.ws {
            self.runs.refilter(ws);
        }
    }

    /// The records changed (read again, or a verdict given): the Runs rows, and the
    /// live pane when it shows one of them, show what they hold now.
    pub(super) fn records_changed(&mut self) {
        self.refilter_runs();
        if let Some(want @ (RunRef::Record(_) | RunRef::Case(..))) = self.live.wanted().cloned() {
            if let Some(data) = self.record_data(&want) {
                self.live.set_run(Some(data));
                self.live.refilter();
            }
        }
    }

    /// The rows of a run record the live pane shows: the whole record, or the
    /// rows of one catalog case in it.
    fn record_data(&self, want: &RunRef) -> Option<super::super::action::RunData> {
        let (path, case) = match want {
            RunRef::Record(p) => (p, None),
            RunRef::Case(p, id) => (p, Some(id.as_str())),
            RunRef::Folder(_) | RunRef::Launch(_) => return None,
        };
        self.runs
            .records()
            .iter()
            .find(|(p, _)| p == path)
            .map(|(p, r)| record_run_data(p, r, case))
    }

    /// The one path from the selection to the run every pane shows: the subject
    /// the details show (a tests case or folder, a catalog case or category, a
    /// run) → its run (the latest of a case; the launch of it while one runs) →
    /// the rows of the timeline and the artifacts beside it.
    pub(super) fn wanted_run(&self) -> Option<RunRef> {
        match self.tab {
            Tab::Runs => match self.runs.selected()? {
                RunRow::Tests(_) => self.selected_run().map(|r| RunRef::Folder(r.path.clone())),
                RunRow::Record(i) => self
                    .runs
                    .records()
                    .get(i)
                    .map(|(p, _)| RunRef::Record(p.clone())),
            },
            Tab::Tests => {
                let c = self.selected_case()?;
                if self.live.launch() == Some(c.key.as_str()) {
                    // the case is being launched: its launch is its run
                    return self.live.wanted().cloned();
                }
                let ws = self.ws.as_ref()?;
                (c.run_range.1 > c.run_range.0)
                    .then(|| RunRef::Folder(ws.logs.runs[c.run_range.1 - 1].path.clone()))
            }
            Tab::Catalog => {
                let id = self.selected_catalog_case()?.id.as_str();
                if self.live.launch() == Some(id) {
                    return self.live.wanted().cloned();
                }
                // the record of the case's latest verdict (the one the details show)
                let latest = super::snapshot::last_verdicts(&self.runs, id, 1).pop()?;
                self.runs
                    .records()
                    .iter()
                    .rev()
                    .find(|(_, r)| r.as_ref().is_ok_and(|r| r.run_id == latest.run_id))
                    .map(|(p, _)| RunRef::Case(p.clone(), id.to_owned()))
            }
        }
    }

    /// A launch's case `id` started and the live pane shows it: a cursor on a
    /// case moves to it (the details and the timeline show the same case while
    /// a launch goes from case to case); on a folder or a category it stays.
    pub(super) fn select_launched(&mut self, id: &str) {
        match self.tab {
            Tab::Tests if self.selected_case().is_some() => {
                self.tests.jump_to(id);
            }
            Tab::Catalog if self.selected_catalog_case().is_some() => {
                if let Some(cat) = self.ws.as_ref().and_then(|w| w.catalog.as_ref()) {
                    self.catalog.jump_to(cat, id);
                }
            }
            _ => {}
        }
        self.last_want = self.wanted_run();
    }

    pub(super) fn selection_changed(&mut self) -> Vec<Effect> {
        let want = self.wanted_run();
        // the live pane changes only when the selection's run changes (a launch
        // shown there stays until the person moves on)
        if want == self.last_want {
            return Vec::new();
        }
        self.last_want.clone_from(&want);
        // the run a launch shows is the one the selection now wants (an index
        // read while it runs has it): the launch goes on feeding the pane
        if want.as_ref() == self.live.wanted() {
            return Vec::new();
        }
        self.live.set_wanted(want.clone());
        let mut fx = vec![Effect::StopFollow];
        if let Some(w @ (RunRef::Record(_) | RunRef::Case(..))) = &want {
            // a run record is already in memory: its results are the timeline
            let data = self.record_data(w);
            self.live.set_run(data);
            self.live.top();
            self.live.refilter();
            return fx;
        }
        if let Some(RunRef::Folder(p)) = want {
            if self.live.run().is_some_and(|r| r.path != p) {
                self.live.clear();
            }
            fx.push(Effect::LoadRun(p));
        } else {
            self.live.clear();
        }
        fx
    }
}
