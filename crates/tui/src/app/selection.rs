//! The workspace installed in the app, and what the live pane shows for the
//! selection (a run folder, a run record, or nothing).

use super::{App, Effect, RunRef, RunRow, Tab, finder, record_run_data};
use testdeck_core::workspace::Workspace;

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
        ws.add_history(chunk);
        if let Some((done, _)) = &mut self.history_progress {
            *done += n;
        }
        // the Runs tab's top row is the newest run: while the history streams in, a
        // cursor left there stays on the newest (not on the run that was newest so far)
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
        if let Some(cat) = &ws.catalog {
            self.catalog.install(cat);
            let vars = self.vars_of(cat);
            vars.host().clone_into(&mut self.opts.host);
            self.launch.default_risk(cat.max_risk());
        }
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
        if let Some(RunRef::Record(path)) = &self.live.wanted() {
            if let Some(data) = self
                .runs
                .records()
                .iter()
                .find(|(p, _)| p == path)
                .map(|(p, r)| record_run_data(p, r))
            {
                self.live.set_run(Some(data));
                self.live.refilter();
            }
        }
    }

    /// The run the live pane should show for the current selection.
    fn wanted_run(&self) -> Option<RunRef> {
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
                let ws = self.ws.as_ref()?;
                (c.run_range.1 > c.run_range.0)
                    .then(|| RunRef::Folder(ws.logs.runs[c.run_range.1 - 1].path.clone()))
            }
            Tab::Catalog => None,
        }
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
        if let Some(RunRef::Record(path)) = &want {
            // a run record is already in memory: its results are the timeline
            let data = self
                .runs
                .records()
                .iter()
                .find(|(p, _)| p == path)
                .map(|(p, r)| record_run_data(p, r));
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
