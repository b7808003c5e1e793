//! The App: all state of the cockpit and `update(Action) -> Vec<Effect>`. No drawing,
//! no terminal, no I/O: slow work is asked for as an `Effect` and comes back as an `Action`.

use super::action::{Action, Command, RunData};
use super::keymap::{Key, Keymap, Resolved, Resolver};
use super::layout::{self, Areas};
use crate::sanitize::escape;
use crate::workspace::Workspace;
use crate::workspace::fuzzy::Query;
use crate::workspace::logs::RunStatus;
use crate::workspace::stats::{self, NodeStats, Window};
use crate::workspace::timeline::{EVENT_TYPES, TimelineEvent};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Position;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

/// Work the runtime does for the app; its result comes back as an `Action`.
#[derive(Debug)]
pub enum Effect {
    /// Read a run folder (relative path) → `Action::RunLoaded`.
    LoadRun(String),
    /// Follow the in-progress run `path` with the follower that loaded it, from
    /// where loading stopped → `Action::TimelineAppend`s until `meta.json` appears.
    Follow {
        path: String,
        follower: Box<crate::tail::Follower>,
    },
    /// Stop following.
    StopFollow,
    /// Index the workspace again (a followed run finished) → `Action::Loaded`.
    Reload,
    /// Start a program (an artifact opener) detached: argv, the file last.
    Spawn(Vec<String>),
    /// Launch a plan through the exec engine as launch number `index`.
    Launch {
        index: usize,
        plan: Box<crate::exec::LaunchPlan>,
        ctx: Box<crate::exec::LaunchContext>,
    },
    /// Cancel every launch in flight.
    Cancel,
    /// Record a person's verdict in launch `index`'s run record.
    Judge {
        index: usize,
        case_id: String,
        verdict: crate::exec::record::Verdict,
        note: Option<String>,
    },
    /// Watch, compare, report or contract work (`tui::extras`) → `Action::Extra`.
    Extra(super::extras::Job),
    Quit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Tests,
    Catalog,
    Runs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Tree,
    Details,
    Live,
    Artifacts,
}

pub const PANES: [Pane; 4] = [Pane::Tree, Pane::Details, Pane::Live, Pane::Artifacts];

/// One case of the tests tree, with what the logs say about it.
#[derive(Debug, Clone)]
pub struct CaseRow {
    /// `scope/caseId`.
    pub key: String,
    pub case_id: String,
    pub scope: String,
    /// Index into `ws.tests.cases`; `None` for an orphan (logs without a test file).
    pub test: Option<usize>,
    pub temp: bool,
    pub live: bool,
    pub registered: bool,
    pub latest: Option<RunStatus>,
    /// Finished runs.
    pub runs: usize,
    /// Index range into `ws.logs.runs` (oldest first).
    pub run_range: (usize, usize),
}

impl CaseRow {
    pub fn orphan(&self) -> bool {
        self.test.is_none()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeKind {
    Folder,
    Case(usize),
}

/// One row of the tests tree (depth-first order).
#[derive(Debug, Clone)]
pub struct TreeNode {
    /// The scope for a folder, `scope/caseId` for a case (the stats path).
    pub key: String,
    /// Sanitized display name.
    pub label: String,
    pub depth: usize,
    pub parent: Option<usize>,
    pub kind: NodeKind,
    /// Cases under a folder.
    pub count: usize,
    /// Cases under a folder whose latest run failed.
    pub failing: usize,
}

/// A candidate of the fuzzy finder.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The tree key it jumps to.
    pub key: String,
    /// What is matched and shown (sanitized).
    pub text: String,
    pub source: &'static str,
}

#[derive(Debug, Clone, Default)]
pub struct Finder {
    pub query: String,
    /// (candidate index, matched char positions), best first.
    pub results: Vec<(usize, Vec<u32>)>,
    pub cursor: usize,
}

#[derive(Debug, Clone)]
pub enum Prompt {
    /// Quit while runs are live.
    QuitLive,
    /// An authorization question before a launch.
    Authorize(Box<super::launch::Asking>),
    /// A person's verdict for a case no process can judge.
    Judge(Box<super::launch::Judging>),
}

#[derive(Debug, Clone)]
pub enum Overlay {
    Help {
        scroll: usize,
    },
    Finder(Finder),
    /// Pretty-printed event data.
    Data {
        title: String,
        lines: Vec<String>,
        scroll: usize,
    },
    Prompt(Prompt),
}

/// What a text input line edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputTarget {
    RunsFilter,
    EventsFilter,
}

/// The live pane: the timeline (or runtime events) of one run.
#[derive(Debug, Default)]
pub struct Live {
    /// The run shown (relative path); `wanted` is what was last asked for.
    pub run: Option<RunData>,
    pub wanted: Option<String>,
    pub follow: bool,
    pub failures_only: bool,
    pub type_filter: Option<&'static str>,
    /// Show runtime-events instead of the timeline.
    pub show_events: bool,
    pub events_filter: String,
    /// Indices of the rows shown (into events or runtime_events), after the filters.
    pub visible: Vec<usize>,
    pub cursor: usize,
    pub offset: usize,
    pub artifact_cursor: usize,
}

/// One row of the Runs tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunRow {
    /// A tests-tree run (index into `ws.logs.runs`).
    Tests(usize),
    /// A catalog run record (index into `App::records`).
    Record(usize),
}

#[derive(Debug, Clone, Default)]
pub struct RunsList {
    /// Runs of both sources, newest first, after the filter.
    pub visible: Vec<RunRow>,
    pub filter: String,
    pub cursor: usize,
    pub offset: usize,
}

/// Options the shell passes in.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Shown in the status bar (the root folder's name).
    pub label: String,
    pub root: PathBuf,
    pub host: String,
    /// Read HOST and switches from the process environment (off in tests, so frames
    /// never depend on the machine).
    pub use_env: bool,
}

/// One row of the Catalog tab: a category header or a case (indices into the catalog).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatRow {
    Category(usize),
    Case(usize),
}

pub struct App {
    pub opts: Options,
    pub keymap: Keymap,
    resolver: Resolver,
    pub ws: Option<Workspace>,
    pub load_error: Option<String>,
    /// Animation frame of the indexing spinner.
    pub spinner: usize,
    /// The tree is shown but run history is still being indexed.
    pub indexing: bool,
    pub size: (u16, u16),
    pub tab: Tab,
    pub focus: Pane,
    pub cases: Vec<CaseRow>,
    pub nodes: Vec<TreeNode>,
    pub expanded: BTreeSet<String>,
    /// Indices into `nodes` shown, in order.
    pub visible: Vec<usize>,
    pub cursor: usize,
    pub offset: usize,
    pub stats: HashMap<String, NodeStats>,
    pub marks: BTreeSet<String>,
    pub candidates: Vec<Candidate>,
    pub overlay: Option<Overlay>,
    pub input: Option<InputTarget>,
    pub live: Live,
    /// The most timeline events the live pane keeps ([`super::action::MAX_TIMELINE_EVENTS`]).
    pub timeline_cap: usize,
    pub runs: RunsList,
    /// Number of runs in flight (launching).
    pub running: usize,
    /// The Catalog tab: categories in execution order, each followed by its cases.
    pub cat_rows: Vec<CatRow>,
    pub cat_cursor: usize,
    pub cat_offset: usize,
    /// Scroll of the details pane (reset when the selection changes).
    pub details_scroll: usize,
    /// The session's max risk (from the catalog's default; `m` cycles it).
    pub max_risk: Option<&'static str>,
    /// Authorizations given in this session (prompts), shown in the status bar.
    pub grants: crate::exec::Grants,
    /// Launches started (the next launch's number).
    pub launches: usize,
    /// The launched case shown in the live pane (its events are appended as they come).
    pub live_launch: Option<String>,
    /// While a batch of launch events is applied ([`App::exec_events`]): whether
    /// the live pane got lines and must be refiltered once at the end.
    live_deferred: Option<bool>,
    /// The run the selection asked for last (the live pane follows its changes).
    last_want: Option<String>,
    /// The catalog's run records: path relative to the root, and the record or its problem.
    pub records: Vec<(String, Result<crate::exec::record::RunRecord, String>)>,
    /// Person-judged cases waiting for their verdict.
    pub judge_queue: std::collections::VecDeque<super::launch::Judging>,
    /// One-line messages for the status bar (config errors, notices).
    pub notice: Option<String>,
    /// Watch, rerun failed, compare, contract badges, report (`tui::extras`).
    pub x: super::extras::Extras,
    pub quit: bool,
    pub dirty: bool,
}

const SPINNER: [&str; 8] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧"];

impl App {
    pub fn new(opts: Options, keymap: Keymap) -> App {
        App {
            opts,
            keymap,
            resolver: Resolver::default(),
            ws: None,
            load_error: None,
            spinner: 0,
            indexing: false,
            size: (80, 24),
            tab: Tab::Tests,
            focus: Pane::Tree,
            cases: Vec::new(),
            nodes: Vec::new(),
            expanded: BTreeSet::new(),
            visible: Vec::new(),
            cursor: 0,
            offset: 0,
            stats: HashMap::new(),
            marks: BTreeSet::new(),
            candidates: Vec::new(),
            overlay: None,
            input: None,
            live: Live {
                follow: true,
                ..Live::default()
            },
            timeline_cap: super::action::MAX_TIMELINE_EVENTS,
            runs: RunsList::default(),
            running: 0,
            cat_rows: Vec::new(),
            cat_cursor: 0,
            cat_offset: 0,
            details_scroll: 0,
            max_risk: None,
            grants: crate::exec::Grants::default(),
            launches: 0,
            live_launch: None,
            live_deferred: None,
            last_want: None,
            judge_queue: std::collections::VecDeque::new(),
            records: Vec::new(),
            notice: None,
            x: super::extras::Extras::default(),
            quit: false,
            dirty: true,
        }
    }

    pub fn spinner(&self) -> &'static str {
        SPINNER[self.spinner % SPINNER.len()]
    }

    pub fn loading(&self) -> bool {
        self.ws.is_none() && self.load_error.is_none()
    }

    /// The keymap mode the next key is resolved in.
    pub fn mode(&self) -> &'static str {
        match &self.overlay {
            Some(Overlay::Finder(_)) => "finder",
            Some(Overlay::Prompt(Prompt::Authorize(a))) if a.typed() => "input",
            Some(Overlay::Prompt(Prompt::Judge(j))) if j.editing_note => "input",
            Some(Overlay::Prompt(Prompt::Judge(_))) => "judge",
            Some(Overlay::Prompt(_)) => "prompt",
            Some(Overlay::Help { .. } | Overlay::Data { .. }) => "overlay",
            None if self.x.screen.is_some() => "overlay",
            None if self.input.is_some() => "input",
            None => "normal",
        }
    }

    /// The keys of an unfinished sequence.
    pub fn pending_keys(&self) -> String {
        self.resolver.pending()
    }

    pub fn areas(&self) -> Areas {
        layout::areas(self.size.0, self.size.1, self)
    }

    /// The tree node under the cursor.
    pub fn selected_node(&self) -> Option<&TreeNode> {
        self.visible
            .get(self.cursor)
            .and_then(|&i| self.nodes.get(i))
    }

    pub fn selected_case(&self) -> Option<&CaseRow> {
        match self.selected_node()?.kind {
            NodeKind::Case(c) => self.cases.get(c),
            NodeKind::Folder => None,
        }
    }

    /// The run selected in the Runs tab.
    pub fn selected_run(&self) -> Option<&crate::workspace::logs::RawRun> {
        let ws = self.ws.as_ref()?;
        match self.runs.visible.get(self.runs.cursor)? {
            RunRow::Tests(i) => ws.logs.runs.get(*i),
            RunRow::Record(_) => None,
        }
    }

    /// The catalog run record selected in the Runs tab: its path and the record.
    pub fn selected_record(
        &self,
    ) -> Option<(&str, &Result<crate::exec::record::RunRecord, String>)> {
        match self.runs.visible.get(self.runs.cursor)? {
            RunRow::Record(i) => self.records.get(*i).map(|(p, r)| (p.as_str(), r)),
            RunRow::Tests(_) => None,
        }
    }

    /// The catalog case under the Catalog tab's cursor.
    pub fn selected_catalog_case(&self) -> Option<&crate::workspace::catalog::Case> {
        let cat = self.ws.as_ref()?.catalog.as_ref()?;
        match self.cat_rows.get(self.cat_cursor)? {
            CatRow::Case(i) => cat.cases.get(*i),
            CatRow::Category(_) => None,
        }
    }

    /// Turn a key press into actions through the keymap of the current mode.
    pub fn on_key(&mut self, e: KeyEvent) -> Vec<Effect> {
        let mode = self.mode();
        match self.resolver.feed(&self.keymap, mode, Key::from_event(&e)) {
            Resolved::Cmd(c) => self.update(Action::Cmd(c)),
            Resolved::Pending => {
                self.dirty = true;
                Vec::new()
            }
            Resolved::Unbound => self.update(Action::Key(e)),
        }
    }

    pub fn update(&mut self, action: Action) -> Vec<Effect> {
        let reloaded = matches!(action, Action::Loaded(_));
        let mut fx = self.update_inner(action);
        fx.extend(self.contract_job(reloaded));
        fx.extend(self.preview_job());
        // a verdict waits for any open overlay to close
        if self.overlay.is_none() && self.input.is_none() {
            if let Some(j) = self.judge_queue.pop_front() {
                self.overlay = Some(Overlay::Prompt(Prompt::Judge(Box::new(j))));
                self.dirty = true;
            }
        }
        fx
    }

    fn update_inner(&mut self, action: Action) -> Vec<Effect> {
        let was_dirty = self.dirty;
        self.dirty = true;
        match action {
            Action::Cmd(c) => self.command(c),
            Action::Key(k) => {
                self.text_key(k);
                Vec::new()
            }
            Action::Mouse(m) => self.mouse(m),
            Action::Resize(w, h) => {
                self.size = (w, h);
                self.clamp();
                Vec::new()
            }
            Action::Tick => {
                // a tick only animates the spinner; it must not cancel a pending frame
                self.dirty = was_dirty || self.loading() || self.indexing;
                self.spinner = self.spinner.wrapping_add(1);
                Vec::new()
            }
            Action::TreeLoaded(ws) => {
                // the full workspace may already be here (a fast disk): keep it
                if self.ws.is_none() {
                    self.set_workspace(*ws);
                    self.indexing = true;
                }
                Vec::new()
            }
            Action::Loaded(ws) => {
                self.indexing = false;
                self.set_workspace(*ws);
                self.selection_changed()
            }
            Action::LoadFailed(e) => {
                self.load_error = Some(e);
                Vec::new()
            }
            Action::RunLoaded(data) => self.run_loaded(*data),
            Action::TimelineAppend {
                path,
                reset,
                events,
                problems,
                finished,
            } => self.timeline_append(&path, reset, events, problems, finished),
            Action::Notice(n) => {
                self.notice = Some(n);
                Vec::new()
            }
            Action::Exec(index, ev) => self.exec_event(index, *ev),
            Action::Extra(d) => self.extra_done(*d),
            Action::ShowText { title, text } => {
                let lines = crate::sanitize::escape_keep_newlines(&text)
                    .lines()
                    .map(str::to_owned)
                    .collect();
                self.overlay = Some(Overlay::Data {
                    title: escape(&title).into_owned(),
                    lines,
                    scroll: 0,
                });
                Vec::new()
            }
            Action::Records(r) => {
                self.records = r;
                self.refilter_runs();
                Vec::new()
            }
            Action::Terminate => {
                self.quit = true;
                vec![Effect::Quit]
            }
        }
    }

    // ---- the workspace model ------------------------------------------------

    /// Install a loaded workspace: cases, tree, stats, finder candidates, runs list.
    pub fn set_workspace(&mut self, ws: Workspace) {
        // a reload keeps what the person opened and where they are
        let reload = self.ws.is_some();
        let keep_key = self.selected_node().map(|n| n.key.clone());
        let keep_expanded = std::mem::take(&mut self.expanded);
        let keep_cat = self.cat_cursor;
        let keep_row = self.runs.visible.get(self.runs.cursor).copied();
        self.candidates.clear();
        self.cases = case_rows(&ws);
        self.nodes = build_tree(&self.cases);
        self.stats = stats::compute(&ws.tests, &ws.logs, &Window::default())
            .into_iter()
            .map(|n| (n.path.clone(), n))
            .collect();
        for n in &mut self.nodes {
            if n.kind == NodeKind::Folder {
                n.failing = 0;
            }
        }
        // failing counts per folder, from each case's latest status
        let failing: Vec<(usize, bool)> = self
            .nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| match n.kind {
                NodeKind::Case(c) => Some((i, self.cases[c].latest == Some(RunStatus::Failed))),
                NodeKind::Folder => None,
            })
            .collect();
        for (i, f) in failing {
            if f {
                let mut p = self.nodes[i].parent;
                while let Some(j) = p {
                    self.nodes[j].failing += 1;
                    p = self.nodes[j].parent;
                }
            }
        }
        // open the first two levels so the first frame shows structure
        self.expanded = self
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Folder && n.depth < 2)
            .map(|n| n.key.clone())
            .collect();
        self.candidates = self
            .cases
            .iter()
            .map(|c| {
                let path = c.test.map_or_else(
                    || format!("tests/logs/{}", c.key),
                    |t| ws.tests.cases[t].path.clone(),
                );
                Candidate {
                    key: c.key.clone(),
                    text: escape(&format!("{}  {}", c.case_id, path)).into_owned(),
                    source: "tests",
                }
            })
            .collect();
        if let Some(cat) = &ws.catalog {
            self.cat_rows.clear();
            for (ci, c) in cat.categories.iter().enumerate() {
                self.cat_rows.push(CatRow::Category(ci));
                for (i, case) in cat.cases.iter().enumerate() {
                    if case.category == c.id {
                        self.cat_rows.push(CatRow::Case(i));
                    }
                }
            }
            // cases whose category is not declared still show, at the end
            for (i, case) in cat.cases.iter().enumerate() {
                if cat.category(&case.category).is_none() {
                    self.cat_rows.push(CatRow::Case(i));
                }
            }
            for case in &cat.cases {
                self.candidates.push(Candidate {
                    key: format!("catalog:{}", case.id),
                    text: escape(&format!("{}  {}  [{}]", case.id, case.title, case.category))
                        .into_owned(),
                    source: "catalog",
                });
            }
            let env_fn = |n: &str| crate::workspace::vars::process_env(n);
            let none_fn = |_: &str| None;
            let env: crate::workspace::vars::Env =
                if self.opts.use_env { &env_fn } else { &none_fn };
            let vars = crate::workspace::vars::Vars::resolve(cat, env);
            vars.host().clone_into(&mut self.opts.host);
            if self.max_risk.is_none() {
                self.max_risk = Some(cat.max_risk().as_str());
            }
        }
        self.ws = Some(ws);
        if reload {
            self.expanded = keep_expanded;
            self.cursor = 0;
            self.rebuild_visible();
            if let Some(k) = keep_key {
                if let Some(p) = self.visible.iter().position(|&i| self.nodes[i].key == k) {
                    self.cursor = p;
                }
            }
            self.cat_cursor = keep_cat.min(self.cat_rows.len().saturating_sub(1));
            self.refilter_runs();
            if let Some(p) = keep_row.and_then(|k| self.runs.visible.iter().position(|r| *r == k)) {
                self.runs.cursor = p;
            }
            self.clamp();
            return;
        }
        self.rebuild_visible();
        self.refilter_runs();
        self.cursor = 0;
    }

    pub fn rebuild_visible(&mut self) {
        let keep = self.selected_node().map(|n| n.key.clone());
        self.visible.clear();
        let mut skip_below: Option<usize> = None;
        for (i, n) in self.nodes.iter().enumerate() {
            if let Some(d) = skip_below {
                if n.depth > d {
                    continue;
                }
                skip_below = None;
            }
            self.visible.push(i);
            if n.kind == NodeKind::Folder && !self.expanded.contains(&n.key) {
                skip_below = Some(n.depth);
            }
        }
        if let Some(k) = keep {
            if let Some(p) = self.visible.iter().position(|&i| self.nodes[i].key == k) {
                self.cursor = p;
            }
        }
        self.clamp();
    }

    fn refilter_runs(&mut self) {
        let Some(ws) = &self.ws else { return };
        let mut q = Query::new(&self.runs.filter);
        // (start time for the order, row)
        let mut v: Vec<(String, RunRow)> = Vec::new();
        for (i, r) in ws.logs.runs.iter().enumerate() {
            if q.score(&format!("{} {} {}", r.run_id, r.key(), r.status.as_str()))
                .is_some()
            {
                let t = r.start_time().map(|t| t.to_rfc3339()).unwrap_or_default();
                v.push((t, RunRow::Tests(i)));
            }
        }
        for (i, (path, rec)) in self.records.iter().enumerate() {
            let (text, t) = match rec {
                Ok(r) => {
                    let ids: Vec<&str> = r.results.iter().map(|c| c.id.as_str()).collect();
                    let t = chrono::DateTime::parse_from_rfc3339(&r.started_at)
                        .map(|d| d.with_timezone(&chrono::Utc).to_rfc3339())
                        .unwrap_or_default();
                    (
                        format!("{} {} catalog {}", r.run_id, r.label, ids.join(" ")),
                        t,
                    )
                }
                Err(_) => (path.clone(), String::new()),
            };
            if q.score(&text).is_some() {
                v.push((t, RunRow::Record(i)));
            }
        }
        // newest first; ties by row so the order is stable
        v.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| row_key(b.1).cmp(&row_key(a.1))));
        self.runs.visible = v.into_iter().map(|(_, r)| r).collect();
        self.runs.cursor = self
            .runs
            .cursor
            .min(self.runs.visible.len().saturating_sub(1));
    }

    fn refilter_live(&mut self) {
        let Some(run) = &self.live.run else {
            self.live.visible.clear();
            return;
        };
        if self.live.show_events {
            let f = self.live.events_filter.to_lowercase();
            self.live.visible = (0..run.runtime_events.len())
                .filter(|&i| f.is_empty() || run.runtime_events[i].to_lowercase().contains(&f))
                .collect();
        } else {
            let (fo, tf) = (self.live.failures_only, self.live.type_filter);
            self.live.visible = (0..run.events.len())
                .filter(|&i| {
                    let e = &run.events[i];
                    (!fo || is_failure(e)) && tf.is_none_or(|t| e.kind == t)
                })
                .collect();
        }
        self.live.cursor = self
            .live
            .cursor
            .min(self.live.visible.len().saturating_sub(1));
    }

    fn run_loaded(&mut self, mut data: RunData) -> Vec<Effect> {
        if self.live.wanted.as_deref() != Some(data.path.as_str()) {
            return Vec::new(); // a stale answer: the selection moved on
        }
        // only an in-progress run comes with its follower
        let follow = data.follower.take().map(|follower| Effect::Follow {
            path: data.path.clone(),
            follower,
        });
        self.live.run = Some(data);
        self.live.artifact_cursor = 0;
        self.live.cursor = 0;
        self.live.offset = 0;
        self.refilter_live();
        if self.live.follow {
            self.live_bottom();
        }
        follow.into_iter().collect()
    }

    /// New lines of the followed run's timeline (see `Action::TimelineAppend`).
    fn timeline_append(
        &mut self,
        path: &str,
        reset: bool,
        events: Vec<TimelineEvent>,
        problems: Vec<String>,
        finished: bool,
    ) -> Vec<Effect> {
        let at_end = self.live.follow;
        let cap = self.timeline_cap;
        let Some(run) = self.live.run.as_mut().filter(|r| r.path == path) else {
            return Vec::new();
        };
        let before = (run.events.len(), run.skipped);
        run.append(reset, events, problems, cap);
        // events dropped at the front (the cap): the rows the person looks at move up
        let dropped = if reset {
            before.0
        } else {
            usize::try_from(run.skipped - before.1).unwrap_or(usize::MAX)
        };
        if finished {
            run.in_progress = false;
        }
        let gone = self
            .live
            .visible
            .iter()
            .take_while(|&&i| i < dropped)
            .count();
        self.refilter_live();
        if at_end {
            self.live_bottom();
        } else if !self.live.show_events {
            self.live.cursor = self.live.cursor.saturating_sub(gone);
            self.live.offset = self.live.offset.saturating_sub(gone);
        }
        // a finished run changes statuses and statistics: index again
        if finished {
            vec![Effect::Reload]
        } else {
            Vec::new()
        }
    }

    /// The run the live pane should show for the current selection.
    fn wanted_run(&self) -> Option<String> {
        match self.tab {
            Tab::Runs => match self.runs.visible.get(self.runs.cursor)? {
                RunRow::Tests(_) => self.selected_run().map(|r| r.path.clone()),
                RunRow::Record(i) => self.records.get(*i).map(|(p, _)| format!("record:{p}")),
            },
            Tab::Tests => {
                let c = self.selected_case()?;
                let ws = self.ws.as_ref()?;
                (c.run_range.1 > c.run_range.0)
                    .then(|| ws.logs.runs[c.run_range.1 - 1].path.clone())
            }
            Tab::Catalog => None,
        }
    }

    fn selection_changed(&mut self) -> Vec<Effect> {
        let want = self.wanted_run();
        // the live pane changes only when the selection's run changes (a launch
        // shown there stays until the person moves on)
        if want == self.last_want {
            return Vec::new();
        }
        self.last_want.clone_from(&want);
        self.live_launch = None;
        if want == self.live.wanted {
            return Vec::new();
        }
        self.live.wanted.clone_from(&want);
        let mut fx = vec![Effect::StopFollow];
        if let Some(path) = want.as_deref().and_then(|w| w.strip_prefix("record:")) {
            // a run record is already in memory: its results are the timeline
            let data = self
                .records
                .iter()
                .find(|(p, _)| p == path)
                .map(|(p, r)| record_run_data(p, r));
            self.live.run = data;
            self.live.cursor = 0;
            self.refilter_live();
            return fx;
        }
        if let Some(p) = want {
            if self.live.run.as_ref().is_some_and(|r| r.path != p) {
                self.live.run = None;
                self.live.visible.clear();
            }
            fx.push(Effect::LoadRun(p));
        } else {
            self.live.run = None;
            self.live.visible.clear();
        }
        fx
    }

    // ---- commands -------------------------------------------------------------

    fn command(&mut self, c: Command) -> Vec<Effect> {
        match self.overlay.take() {
            Some(Overlay::Finder(f)) => return self.finder_command(f, c),
            Some(Overlay::Help { scroll }) => {
                self.overlay =
                    scroll_overlay(c, scroll, self.help_len()).map(|s| Overlay::Help { scroll: s });
                return Vec::new();
            }
            Some(Overlay::Data {
                title,
                lines,
                scroll,
            }) => {
                let n = lines.len();
                self.overlay = scroll_overlay(c, scroll, n).map(|s| Overlay::Data {
                    title,
                    lines,
                    scroll: s,
                });
                return Vec::new();
            }
            Some(Overlay::Prompt(p)) => return self.prompt_command(p, c),
            None => {}
        }
        if self.x.screen.is_some() {
            return self.screen_command(c);
        }
        if let Some(target) = self.input {
            match c {
                Command::Close => {
                    self.input = None;
                    self.filter_mut(target).clear();
                    self.refilter_target(target);
                }
                Command::Confirm => self.input = None,
                Command::ClearInput => {
                    self.filter_mut(target).clear();
                    self.refilter_target(target);
                }
                _ => {}
            }
            return self.selection_changed();
        }
        self.notice = None;
        let page = (self.size.1 / 2).max(1) as isize;
        match c {
            Command::Quit => {
                if self.running > 0 || self.x.reruns > 0 {
                    self.overlay = Some(Overlay::Prompt(Prompt::QuitLive));
                    return Vec::new();
                }
                self.quit = true;
                return vec![Effect::Quit];
            }
            Command::MoveDown => self.move_by(1),
            Command::MoveUp => self.move_by(-1),
            Command::PageDown => self.move_by(page),
            Command::PageUp => self.move_by(-page),
            Command::GoTop => self.move_by(isize::MIN / 2),
            Command::GoBottom => self.move_by(isize::MAX / 2),
            Command::Collapse => self.collapse(),
            Command::Expand => self.expand(),
            Command::Open => return self.open(),
            Command::NextPane | Command::PrevPane => {
                let panes = self.panes();
                let i = panes.iter().position(|p| *p == self.focus).unwrap_or(0);
                let n = panes.len();
                let j = if c == Command::NextPane {
                    (i + 1) % n
                } else {
                    (i + n - 1) % n
                };
                self.focus = panes[j];
            }
            Command::TabTests => self.set_tab(Tab::Tests),
            Command::TabCatalog => self.set_tab(Tab::Catalog),
            Command::TabRuns => self.set_tab(Tab::Runs),
            Command::Find => {
                let mut f = Finder::default();
                self.refind(&mut f);
                self.overlay = Some(Overlay::Finder(f));
            }
            Command::Filter => {
                if self.tab == Tab::Runs && self.focus == Pane::Tree {
                    self.input = Some(InputTarget::RunsFilter);
                } else {
                    self.live.show_events = true;
                    self.input = Some(InputTarget::EventsFilter);
                    self.focus = Pane::Live;
                    self.refilter_live();
                }
            }
            Command::Mark => self.mark_selected(),
            Command::Follow => {
                self.live.follow = !self.live.follow;
                if self.live.follow {
                    self.live_bottom();
                }
            }
            Command::FailuresOnly => {
                self.live.failures_only = !self.live.failures_only;
                self.refilter_live();
            }
            Command::CycleType => {
                self.live.type_filter = match self.live.type_filter {
                    None => Some(EVENT_TYPES[0]),
                    Some(t) => EVENT_TYPES
                        .iter()
                        .position(|x| *x == t)
                        .and_then(|i| EVENT_TYPES.get(i + 1))
                        .copied(),
                };
                self.refilter_live();
            }
            Command::ToggleEvents => {
                self.live.show_events = !self.live.show_events;
                self.live.cursor = 0;
                self.refilter_live();
            }
            Command::NextFailure | Command::PrevFailure => {
                self.jump_failure(c == Command::NextFailure);
            }
            Command::OpenArtifact => return self.open_artifact(),
            Command::PreviewImage => return self.preview_open(),
            Command::Help => self.overlay = Some(Overlay::Help { scroll: 0 }),
            Command::Problems => self.show_problems(),
            Command::Close => {
                self.marks.clear();
                self.live.failures_only = false;
                self.live.type_filter = None;
                self.refilter_live();
            }
            Command::Run => return self.start_launch(),
            Command::Cancel => {
                if self.running == 0 {
                    self.notice = Some("nothing is running".into());
                    return Vec::new();
                }
                self.notice = Some("cancelling: SIGTERM, then SIGKILL after 3 s".into());
                return vec![Effect::Cancel];
            }
            Command::MaxRisk => {
                self.max_risk = Some(match self.max_risk {
                    Some("readonly") => "mutating",
                    Some("mutating") => "destructive",
                    _ => "readonly",
                });
            }
            Command::Watch | Command::RerunFailed | Command::Compare | Command::Report => {
                return self.extra_command(c);
            }
            Command::Confirm | Command::ClearInput | Command::Noop => {}
        }
        self.selection_changed()
    }

    fn filter_mut(&mut self, t: InputTarget) -> &mut String {
        match t {
            InputTarget::RunsFilter => &mut self.runs.filter,
            InputTarget::EventsFilter => &mut self.live.events_filter,
        }
    }

    fn refilter_target(&mut self, t: InputTarget) {
        match t {
            InputTarget::RunsFilter => self.refilter_runs(),
            InputTarget::EventsFilter => self.refilter_live(),
        }
    }

    fn prompt_command(&mut self, p: Prompt, c: Command) -> Vec<Effect> {
        match (p, c) {
            (Prompt::QuitLive, Command::Confirm) => {
                self.quit = true;
                vec![Effect::Quit]
            }
            (Prompt::Authorize(mut a), Command::Confirm | Command::Close) => {
                let yes = c == Command::Confirm
                    && (!a.typed() || a.typed.trim() == super::launch::DESTRUCTIVE_WORD);
                if a.typed() && c == Command::Confirm && !yes {
                    self.notice = Some(format!(
                        "not authorized: type {} to authorize",
                        super::launch::DESTRUCTIVE_WORD
                    ));
                }
                super::launch::answer(&mut a, &mut self.grants, yes);
                self.ask_or_launch(*a)
            }
            (Prompt::Authorize(mut a), Command::ClearInput) => {
                a.typed.clear();
                self.overlay = Some(Overlay::Prompt(Prompt::Authorize(a)));
                Vec::new()
            }
            (Prompt::Judge(mut j), c) => {
                if j.editing_note {
                    // Enter or Esc ends the note; the verdict is still to give
                    if matches!(c, Command::Confirm | Command::Close) {
                        j.editing_note = false;
                    } else if c == Command::ClearInput {
                        j.note.clear();
                    }
                    self.overlay = Some(Overlay::Prompt(Prompt::Judge(j)));
                    return Vec::new();
                }
                let n = super::launch::VERDICTS.len();
                match c {
                    Command::MoveDown => j.choice = (j.choice + 1) % n,
                    Command::MoveUp => j.choice = (j.choice + n - 1) % n,
                    Command::Filter => j.editing_note = true,
                    Command::Confirm => {
                        let verdict = super::launch::VERDICTS[j.choice.min(n - 1)];
                        self.notice = Some(format!(
                            "{}: {} (judged by a person)",
                            j.case_id,
                            verdict.as_str()
                        ));
                        let note = (!j.note.trim().is_empty()).then(|| j.note.trim().to_owned());
                        return vec![Effect::Judge {
                            index: j.launch,
                            case_id: j.case_id,
                            verdict,
                            note,
                        }];
                    }
                    Command::Close => {
                        self.notice = Some(format!("{}: left not-run", j.case_id));
                        return Vec::new();
                    }
                    _ => {}
                }
                self.overlay = Some(Overlay::Prompt(Prompt::Judge(j)));
                Vec::new()
            }
            (_, Command::Close) => Vec::new(),
            (p, _) => {
                self.overlay = Some(Overlay::Prompt(p));
                Vec::new()
            }
        }
    }

    /// The panes of the current tab, in Tab order.
    pub fn panes(&self) -> Vec<Pane> {
        let a = self.areas();
        PANES
            .iter()
            .copied()
            .filter(|p| match p {
                Pane::Tree => true,
                Pane::Details => a.details.is_some() || a.narrow,
                Pane::Live => a.live.is_some() || a.narrow,
                Pane::Artifacts => a.artifacts.is_some() || a.narrow,
            })
            .collect()
    }

    fn set_tab(&mut self, t: Tab) {
        self.tab = t;
        self.focus = Pane::Tree;
    }

    fn move_by(&mut self, d: isize) {
        let step = |cur: usize, len: usize| -> usize {
            if len == 0 {
                return 0;
            }
            (cur as isize).saturating_add(d).clamp(0, len as isize - 1) as usize
        };
        if self.focus == Pane::Tree {
            self.details_scroll = 0;
        }
        match (self.tab, self.focus) {
            (_, Pane::Details) => {
                self.details_scroll = step(self.details_scroll, 10_000);
                return;
            }
            (_, Pane::Live) => {
                let len = self.live.visible.len();
                self.live.cursor = step(self.live.cursor, len);
                // scrolling up pauses follow; reaching the bottom resumes it
                self.live.follow = len == 0 || self.live.cursor + 1 == len;
            }
            (_, Pane::Artifacts) => {
                let len = self.live.run.as_ref().map_or(0, |r| r.artifacts.len());
                self.live.artifact_cursor = step(self.live.artifact_cursor, len);
            }
            (Tab::Runs, _) => self.runs.cursor = step(self.runs.cursor, self.runs.visible.len()),
            (Tab::Tests, _) => self.cursor = step(self.cursor, self.visible.len()),
            (Tab::Catalog, _) => self.cat_cursor = step(self.cat_cursor, self.cat_rows.len()),
        }
        self.clamp();
    }

    fn live_bottom(&mut self) {
        self.live.cursor = self.live.visible.len().saturating_sub(1);
    }

    /// Keep cursors in range and scroll offsets so the cursor is visible.
    fn clamp(&mut self) {
        let a = self.areas();
        let tree_h = a.tree.height.saturating_sub(2) as usize;
        self.cursor = self.cursor.min(self.visible.len().saturating_sub(1));
        self.offset = scroll_to(self.offset, self.cursor, tree_h);
        self.runs.offset = scroll_to(self.runs.offset, self.runs.cursor, tree_h);
        self.cat_offset = scroll_to(self.cat_offset, self.cat_cursor, tree_h);
        let live_h = a.live.map_or(10, |r| r.height.saturating_sub(2) as usize);
        self.live.offset = scroll_to(self.live.offset, self.live.cursor, live_h);
    }

    fn collapse(&mut self) {
        if self.tab != Tab::Tests || self.focus != Pane::Tree {
            return;
        }
        let Some(n) = self.selected_node().cloned() else {
            return;
        };
        if n.kind == NodeKind::Folder && self.expanded.remove(&n.key) {
            self.rebuild_visible();
        } else if let Some(p) = n.parent {
            if let Some(pos) = self.visible.iter().position(|&i| i == p) {
                self.cursor = pos;
                self.clamp();
            }
        }
    }

    fn expand(&mut self) {
        if self.tab != Tab::Tests || self.focus != Pane::Tree {
            return;
        }
        let Some(n) = self.selected_node().cloned() else {
            return;
        };
        if n.kind == NodeKind::Folder {
            if self.expanded.insert(n.key) {
                self.rebuild_visible();
            } else {
                self.move_by(1);
            }
        } else {
            self.focus = Pane::Live;
        }
    }

    fn open(&mut self) -> Vec<Effect> {
        match (self.tab, self.focus) {
            (_, Pane::Live) => self.show_data(),
            (_, Pane::Artifacts) => return self.open_artifact(),
            (Tab::Tests, _) => {
                if let Some(n) = self.selected_node().cloned() {
                    if n.kind == NodeKind::Folder {
                        if !self.expanded.remove(&n.key) {
                            self.expanded.insert(n.key);
                        }
                        self.rebuild_visible();
                    } else {
                        self.focus = Pane::Live;
                    }
                }
            }
            (Tab::Runs, _) => self.focus = Pane::Live,
            (Tab::Catalog, _) => {}
        }
        self.selection_changed()
    }

    fn show_data(&mut self) {
        let Some(run) = &self.live.run else { return };
        let Some(&i) = self.live.visible.get(self.live.cursor) else {
            return;
        };
        let (title, text) = if self.live.show_events {
            (
                format!("runtime event {}", i + 1),
                run.runtime_events[i].clone(),
            )
        } else {
            let e = &run.events[i];
            let mut all = serde_json::Map::new();
            all.insert("data".into(), e.data.clone());
            for (k, v) in &e.extra {
                all.insert(k.clone(), v.clone());
            }
            let text = if e.extra.is_empty() {
                serde_json::to_string_pretty(&e.data).unwrap_or_default()
            } else {
                serde_json::to_string_pretty(&all).unwrap_or_default()
            };
            (
                escape(&format!("{} {} — {}", e.kind, e.name, e.status)).into_owned(),
                text,
            )
        };
        let lines = crate::sanitize::escape_keep_newlines(&text)
            .lines()
            .map(str::to_owned)
            .collect();
        self.overlay = Some(Overlay::Data {
            title,
            lines,
            scroll: 0,
        });
    }

    /// The problems met while loading (and reading the shown run), located.
    fn show_problems(&mut self) {
        let mut lines: Vec<String> = self
            .ws
            .as_ref()
            .map(|w| {
                w.problems
                    .iter()
                    .map(|p| escape(&p.to_string()).into_owned())
                    .collect()
            })
            .unwrap_or_default();
        if let Some(run) = &self.live.run {
            lines.extend(run.problem_lines().iter().map(|p| escape(p).into_owned()));
        }
        if lines.is_empty() {
            lines.push("No problems: every file read cleanly.".into());
        }
        self.overlay = Some(Overlay::Data {
            title: format!("Problems · {}", lines.len()),
            lines,
            scroll: 0,
        });
    }

    fn open_artifact(&mut self) -> Vec<Effect> {
        let Some(run) = &self.live.run else {
            self.notice = Some("no run selected".into());
            return Vec::new();
        };
        let Some(a) = run.artifacts.get(self.live.artifact_cursor) else {
            self.notice = Some("this run has no artifacts".into());
            return Vec::new();
        };
        let dir = self.opts.root.join(&run.path);
        let Some(file) = a.file(&dir) else {
            self.notice = Some(format!(
                "refused: {} leaves the run folder",
                escape(&a.path)
            ));
            return Vec::new();
        };
        if !a.exists {
            self.notice = Some(format!("missing: {}", escape(&a.path)));
            return Vec::new();
        }
        let open = self
            .ws
            .as_ref()
            .map(|w| w.config.open.clone())
            .unwrap_or_default();
        let mut argv = match a.kind.as_str() {
            "trace" => open.trace,
            "playwright-report" => open.html,
            _ if std::path::Path::new(&a.path)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("html")) =>
            {
                open.html
            }
            _ => open.default,
        };
        if argv.is_empty() {
            self.notice = Some("no opener configured ([open] in testdeck.toml)".into());
            return Vec::new();
        }
        argv.push(file.to_string_lossy().into_owned());
        self.notice = Some(format!("opening {}", escape(&a.path)));
        vec![Effect::Spawn(argv)]
    }

    fn jump_failure(&mut self, forward: bool) {
        let Some(run) = &self.live.run else { return };
        let vis = &self.live.visible;
        let cur = self.live.cursor;
        let hit = if forward {
            (cur + 1..vis.len()).find(|&p| is_failure(&run.events[vis[p]]))
        } else {
            (0..cur).rev().find(|&p| is_failure(&run.events[vis[p]]))
        };
        if self.live.show_events {
            return;
        }
        match hit {
            Some(p) => {
                self.live.cursor = p;
                self.live.follow = p + 1 == vis.len();
                self.focus = Pane::Live;
                self.clamp();
            }
            None => self.notice = Some("no more failures".into()),
        }
    }

    fn mark_selected(&mut self) {
        if self.tab == Tab::Catalog {
            if let Some(id) = self
                .selected_catalog_case()
                .map(|c| format!("catalog:{}", c.id))
            {
                if !self.marks.remove(&id) {
                    self.marks.insert(id);
                }
            }
            self.move_by(1);
            return;
        }
        if self.tab != Tab::Tests {
            return;
        }
        let Some(&ni) = self.visible.get(self.cursor) else {
            return;
        };
        let keys = self.case_keys_under(ni);
        let all = keys.iter().all(|k| self.marks.contains(k));
        for k in keys {
            if all {
                self.marks.remove(&k);
            } else {
                self.marks.insert(k);
            }
        }
        self.move_by(1);
    }

    fn case_keys_under(&self, ni: usize) -> Vec<String> {
        let n = &self.nodes[ni];
        if let NodeKind::Case(c) = n.kind {
            return vec![self.cases[c].key.clone()];
        }
        self.nodes[ni + 1..]
            .iter()
            .take_while(|m| m.depth > n.depth)
            .filter_map(|m| match m.kind {
                NodeKind::Case(c) => Some(self.cases[c].key.clone()),
                NodeKind::Folder => None,
            })
            .collect()
    }

    /// Put the cursor on the node `key`, opening its folders.
    pub fn jump_to(&mut self, key: &str) -> bool {
        if let Some(id) = key.strip_prefix("catalog:") {
            let Some(cat) = self.ws.as_ref().and_then(|w| w.catalog.as_ref()) else {
                return false;
            };
            let Some(pos) = self
                .cat_rows
                .iter()
                .position(|r| matches!(r, CatRow::Case(i) if cat.cases[*i].id == id))
            else {
                return false;
            };
            self.tab = Tab::Catalog;
            self.focus = Pane::Tree;
            self.cat_cursor = pos;
            self.clamp();
            return true;
        }
        let Some(i) = self.nodes.iter().position(|n| n.key == key) else {
            return false;
        };
        let mut p = self.nodes[i].parent;
        while let Some(j) = p {
            self.expanded.insert(self.nodes[j].key.clone());
            p = self.nodes[j].parent;
        }
        self.tab = Tab::Tests;
        self.focus = Pane::Tree;
        self.rebuild_visible();
        if let Some(pos) = self.visible.iter().position(|&v| v == i) {
            self.cursor = pos;
        }
        self.clamp();
        true
    }

    // ---- finder -----------------------------------------------------------------

    fn refind(&self, f: &mut Finder) {
        let mut q = Query::new(&f.query);
        let mut buf = Vec::new();
        let mut scored: Vec<(u32, usize, Vec<u32>)> = Vec::new();
        for (i, c) in self.candidates.iter().enumerate() {
            if let Some(s) = q.indices(&c.text, &mut buf) {
                scored.push((s, i, buf.clone()));
            }
        }
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        f.results = scored.into_iter().map(|(_, i, ix)| (i, ix)).collect();
        f.cursor = f.cursor.min(f.results.len().saturating_sub(1));
    }

    fn finder_command(&mut self, mut f: Finder, c: Command) -> Vec<Effect> {
        match c {
            Command::Close => return Vec::new(),
            Command::Confirm => {
                if let Some(key) = f
                    .results
                    .get(f.cursor)
                    .and_then(|(i, _)| self.candidates.get(*i))
                    .map(|c| c.key.clone())
                {
                    self.jump_to(&key);
                }
                return self.selection_changed();
            }
            Command::MoveDown => f.cursor = (f.cursor + 1).min(f.results.len().saturating_sub(1)),
            Command::MoveUp => f.cursor = f.cursor.saturating_sub(1),
            Command::Mark => {
                if let Some(key) = f
                    .results
                    .get(f.cursor)
                    .and_then(|(i, _)| self.candidates.get(*i))
                    .map(|c| c.key.clone())
                {
                    if !self.marks.remove(&key) {
                        self.marks.insert(key);
                    }
                }
                f.cursor = (f.cursor + 1).min(f.results.len().saturating_sub(1));
            }
            Command::ClearInput => {
                f.query.clear();
                self.refind(&mut f);
            }
            _ => {}
        }
        self.overlay = Some(Overlay::Finder(f));
        Vec::new()
    }

    fn text_key(&mut self, k: KeyEvent) {
        let ch = match k.code {
            KeyCode::Char(c)
                if !k
                    .modifiers
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
            {
                Some(c)
            }
            KeyCode::Backspace => None,
            _ => return,
        };
        let edit = |s: &mut String| match ch {
            Some(c) => s.push(c),
            None => {
                s.pop();
            }
        };
        match self.overlay.take() {
            Some(Overlay::Finder(mut f)) => {
                edit(&mut f.query);
                f.cursor = 0;
                self.refind(&mut f);
                self.overlay = Some(Overlay::Finder(f));
                return;
            }
            Some(Overlay::Prompt(Prompt::Authorize(mut a))) if a.typed() => {
                edit(&mut a.typed);
                self.overlay = Some(Overlay::Prompt(Prompt::Authorize(a)));
                return;
            }
            Some(Overlay::Prompt(Prompt::Judge(mut j))) if j.editing_note => {
                edit(&mut j.note);
                self.overlay = Some(Overlay::Prompt(Prompt::Judge(j)));
                return;
            }
            other => self.overlay = other,
        }
        if let Some(t) = self.input {
            edit(self.filter_mut(t));
            self.refilter_target(t);
        }
    }

    // ---- mouse --------------------------------------------------------------------

    fn mouse(&mut self, m: MouseEvent) -> Vec<Effect> {
        if self.overlay.is_some() || self.x.screen.is_some() {
            let c = match m.kind {
                MouseEventKind::ScrollDown => Command::MoveDown,
                MouseEventKind::ScrollUp => Command::MoveUp,
                _ => return Vec::new(),
            };
            return self.command(c);
        }
        let a = self.areas();
        let pos = Position::new(m.column, m.row);
        let pane = [
            (Some(a.tree), Pane::Tree),
            (a.details, Pane::Details),
            (a.live, Pane::Live),
            (a.artifacts, Pane::Artifacts),
        ]
        .into_iter()
        .find_map(|(r, p)| r.filter(|r| r.contains(pos)).map(|r| (r, p)));
        let Some((rect, pane)) = pane else {
            if m.kind == MouseEventKind::Down(MouseButton::Left) && m.row == a.tabs.y {
                // the tab bar: " 1 Tests  2 Catalog  3 Runs "
                let t = match m.column {
                    0..=9 => Tab::Tests,
                    10..=21 => Tab::Catalog,
                    _ => Tab::Runs,
                };
                self.set_tab(t);
                return self.selection_changed();
            }
            return Vec::new();
        };
        match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                self.focus = pane;
                self.move_by(if m.kind == MouseEventKind::ScrollDown {
                    3
                } else {
                    -3
                });
            }
            MouseEventKind::Down(MouseButton::Left) => {
                self.focus = pane;
                let row = m.row.saturating_sub(rect.y + 1) as usize;
                if m.row > rect.y && m.row + 1 < rect.y + rect.height {
                    match (self.tab, pane) {
                        (Tab::Tests, Pane::Tree) => {
                            let i = self.offset + row;
                            if i < self.visible.len() {
                                self.cursor = i;
                            }
                        }
                        (Tab::Runs, Pane::Tree) => {
                            let i = self.runs.offset + row;
                            if i < self.runs.visible.len() {
                                self.runs.cursor = i;
                            }
                        }
                        (_, Pane::Live) => {
                            // the live pane has a header row
                            let i = self.live.offset + row.saturating_sub(1);
                            if i < self.live.visible.len() {
                                self.live.cursor = i;
                                self.live.follow = i + 1 == self.live.visible.len();
                            }
                        }
                        (Tab::Catalog, Pane::Tree) => {
                            let i = self.cat_offset + row;
                            if i < self.cat_rows.len() {
                                self.cat_cursor = i;
                            }
                        }
                        (_, Pane::Artifacts) => {
                            let n = self.live.run.as_ref().map_or(0, |r| r.artifacts.len());
                            if row < n {
                                self.live.artifact_cursor = row;
                            }
                        }
                        _ => {}
                    }
                }
                self.clamp();
            }
            _ => return Vec::new(),
        }
        self.selection_changed()
    }

    // ---- launching ------------------------------------------------------------------

    /// What `r` launches: the marked cases, or else the selection.
    fn launch_targets(&self) -> (Vec<(String, Option<String>)>, Vec<String>) {
        let mut tests = Vec::new();
        let mut catalog = Vec::new();
        let by_key: HashMap<&str, &CaseRow> =
            self.cases.iter().map(|c| (c.key.as_str(), c)).collect();
        let add_case = |c: &CaseRow, tests: &mut Vec<(String, Option<String>)>| {
            if !c.orphan() {
                tests.push((c.scope.clone(), Some(c.case_id.clone())));
            }
        };
        if !self.marks.is_empty() {
            for m in &self.marks {
                if let Some(id) = m.strip_prefix("catalog:") {
                    catalog.push(id.to_owned());
                } else if let Some(c) = by_key.get(m.as_str()) {
                    add_case(c, &mut tests);
                }
            }
            return (tests, catalog);
        }
        match self.tab {
            Tab::Tests => match self
                .selected_node()
                .map(|n| (n.kind.clone(), n.key.clone()))
            {
                Some((NodeKind::Case(c), _)) => add_case(&self.cases[c], &mut tests),
                Some((NodeKind::Folder, key)) => tests.push((key, None)),
                None => {}
            },
            Tab::Catalog => {
                let cat = self.ws.as_ref().and_then(|w| w.catalog.as_ref());
                match (cat, self.cat_rows.get(self.cat_cursor)) {
                    (Some(cat), Some(CatRow::Case(i))) => catalog.push(cat.cases[*i].id.clone()),
                    (Some(cat), Some(CatRow::Category(i))) => {
                        catalog.push(cat.categories[*i].id.clone());
                    }
                    _ => {}
                }
            }
            Tab::Runs => {
                if let Some(c) = self
                    .selected_run()
                    .and_then(|r| by_key.get(r.key().as_str()))
                {
                    add_case(c, &mut tests);
                }
            }
        }
        (tests, catalog)
    }

    fn start_launch(&mut self) -> Vec<Effect> {
        let Some(ws) = &self.ws else {
            self.notice = Some("still indexing".into());
            return Vec::new();
        };
        let (tests, catalog) = self.launch_targets();
        if tests.is_empty() && catalog.is_empty() {
            self.notice = Some("nothing to run here (an orphan has no test file)".into());
            return Vec::new();
        }
        let risk = self
            .max_risk
            .and_then(crate::exec::Risk::parse)
            .unwrap_or_default();
        let plan = super::launch::plan_for(ws, &tests, &catalog, risk, &self.grants);
        let asking = super::launch::Asking {
            plan,
            prompt: crate::exec::Prompt::Live {
                case: String::new(),
            },
            typed: String::new(),
            declined: Vec::new(),
            skipped: Vec::new(),
        };
        self.ask_or_launch(asking)
    }

    /// Ask the next question of a launch, or launch it when none is left.
    pub(crate) fn ask_or_launch(&mut self, mut a: super::launch::Asking) -> Vec<Effect> {
        let Some(ws) = &self.ws else {
            return Vec::new();
        };
        let ctx = crate::exec::LaunchContext::of(ws);
        let (next, skipped) = super::launch::next_prompt(&ctx, &a.plan, &a.declined);
        a.skipped = skipped;
        if let Some(p) = next {
            a.prompt = p;
            a.typed.clear();
            self.overlay = Some(Overlay::Prompt(Prompt::Authorize(Box::new(a))));
            return Vec::new();
        }
        // the prompts were a watch's: it starts watching what was authorized
        if let Some(fx) = self.watch_ready(&a) {
            return fx;
        }
        let index = self.launches;
        self.launches += 1;
        self.running += 1;
        self.marks.clear();
        self.notice = Some(if a.skipped.is_empty() {
            "launched".to_owned()
        } else {
            format!(
                "launched; skipped: {}",
                a.skipped
                    .iter()
                    .map(|(id, r)| format!("{id} ({r})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        });
        vec![Effect::Launch {
            index,
            plan: Box::new(a.plan),
            ctx: Box::new(ctx),
        }]
    }

    /// Show launched case `id` in the live pane.
    fn show_launch(&mut self, id: &str, path: Option<&str>) -> Vec<Effect> {
        let key = path.map_or_else(|| format!("launch:{id}"), str::to_owned);
        self.live.wanted = Some(key.clone());
        self.live.run = Some(RunData {
            path: key,
            in_progress: true,
            ..RunData::default()
        });
        self.live.follow = true;
        self.live.show_events = false;
        self.live_launch = Some(id.to_owned());
        vec![Effect::StopFollow]
    }

    fn live_push(&mut self, id: &str, ev: TimelineEvent) {
        if self.live_launch.as_deref() != Some(id) {
            return;
        }
        let follow = self.live.follow;
        if let Some(run) = self.live.run.as_mut() {
            run.append(false, [ev], Vec::new(), self.timeline_cap);
            if let Some(d) = self.live_deferred.as_mut() {
                // a batch: refiltered once at its end, not once a line
                *d = true;
                return;
            }
            self.refilter_live();
            if follow {
                self.live_bottom();
                self.clamp();
            }
        }
    }

    /// Several events of a launch at once, in order (a flood of output comes in
    /// batches): the live pane is refiltered once, so applying a batch costs the
    /// same whatever the pane already holds.
    pub(crate) fn exec_events(
        &mut self,
        index: usize,
        evs: Vec<crate::exec::ExecEvent>,
    ) -> Vec<Effect> {
        self.live_deferred = Some(false);
        let mut fx = Vec::new();
        for ev in evs {
            fx.extend(self.update(Action::Exec(index, Box::new(ev))));
        }
        if self.live_deferred.take() == Some(true) {
            self.refilter_live();
            if self.live.follow {
                self.live_bottom();
                self.clamp();
            }
        }
        fx
    }

    pub(crate) fn exec_event(&mut self, index: usize, ev: crate::exec::ExecEvent) -> Vec<Effect> {
        use crate::exec::ExecEvent as E;
        let note = |kind: &str, name: &str, status: &str, message: String| TimelineEvent {
            kind: kind.into(),
            name: name.into(),
            status: status.into(),
            message,
            ..TimelineEvent::default()
        };
        match ev {
            E::RunStart { run_id, .. } => {
                self.notice = Some(format!("run record {}", escape(&run_id)));
                Vec::new()
            }
            E::RunnerStart { command } => {
                self.notice = Some(format!("runner: {}", escape(&command.join(" "))));
                Vec::new()
            }
            E::Probe { category, probe } => {
                if let Some(p) = probe {
                    let msg = serde_json::to_string(&p).unwrap_or_default();
                    self.notice = Some(format!("probe {}: {}", escape(&category), escape(&msg)));
                }
                Vec::new()
            }
            E::CaseStart {
                id,
                command,
                path,
                risk,
                ..
            } => {
                let fx = self.show_launch(&id, path.as_deref());
                let msg = command.unwrap_or_default();
                let risk = risk.map_or(String::new(), |r| format!(" [{}]", r.as_str()));
                self.live_push(&id, note("run", &format!("start {id}{risk}"), "info", msg));
                fx
            }
            E::Output { id, stream, line } => {
                let s = match stream {
                    crate::exec::process::Stream::Stdout => "stdout",
                    crate::exec::process::Stream::Stderr => "stderr",
                };
                self.live_push(&id, note("output", s, "info", line));
                Vec::new()
            }
            E::Timeline { id, event, .. } => {
                self.live_push(&id, *event);
                Vec::new()
            }
            E::CaseEnd(r) => {
                let status = match r.verdict {
                    crate::exec::record::Verdict::Pass => "ok",
                    crate::exec::record::Verdict::Fail
                    | crate::exec::record::Verdict::EnvironmentFail => "failed",
                    _ => "skipped",
                };
                let reason = r.reason.clone().unwrap_or_default();
                self.live_push(
                    &r.id,
                    note(
                        "run",
                        &format!("end {}", r.verdict.as_str()),
                        status,
                        reason.clone(),
                    ),
                );
                if self.live_launch.as_deref() == Some(r.id.as_str()) {
                    if let Some(run) = self.live.run.as_mut() {
                        run.in_progress = false;
                    }
                }
                self.notice = Some(format!(
                    "{}: {} {}",
                    escape(&r.id),
                    r.verdict.as_str(),
                    escape(&reason)
                ));
                if r.verdict == crate::exec::record::Verdict::NotRun
                    && reason.starts_with(crate::exec::catalog_run::NEEDS_A_PERSON)
                {
                    let case = self
                        .ws
                        .as_ref()
                        .and_then(|w| w.catalog.as_ref())
                        .and_then(|c| c.case(&r.id));
                    self.judge_queue.push_back(super::launch::Judging {
                        case_id: r.id.clone(),
                        title: case.map(|c| c.title.clone()).unwrap_or_default(),
                        steps: case.map(|c| c.how.steps.clone()).unwrap_or_default(),
                        launch: index,
                        choice: 0,
                        note: String::new(),
                        editing_note: false,
                    });
                }
                Vec::new()
            }
            E::RunnerExit { reason, .. } => {
                if let Some(r) = reason {
                    self.notice = Some(format!("runner: {}", escape(&r)));
                }
                Vec::new()
            }
            E::Summary(s) => {
                self.running = self.running.saturating_sub(1);
                let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
                for r in &s.results {
                    *counts.entry(r.verdict.as_str()).or_default() += 1;
                }
                let text: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
                self.notice = Some(format!("launch done: {}", text.join(", ")));
                vec![Effect::Reload]
            }
        }
    }

    /// Lines of the help overlay (one per binding of every mode).
    pub fn help_len(&self) -> usize {
        super::keymap::MODES
            .iter()
            .map(|m| self.keymap.bindings(m).len() + 2)
            .sum()
    }
}

fn scroll_overlay(c: Command, scroll: usize, len: usize) -> Option<usize> {
    let max = len.saturating_sub(1);
    match c {
        Command::Close | Command::Quit | Command::Help => None,
        Command::MoveDown => Some((scroll + 1).min(max)),
        Command::MoveUp => Some(scroll.saturating_sub(1)),
        Command::PageDown => Some((scroll + 10).min(max)),
        Command::PageUp => Some(scroll.saturating_sub(10)),
        Command::GoTop => Some(0),
        Command::GoBottom => Some(max),
        _ => Some(scroll),
    }
}

fn scroll_to(offset: usize, cursor: usize, height: usize) -> usize {
    let h = height.max(1);
    if cursor < offset {
        cursor
    } else if cursor >= offset + h {
        cursor + 1 - h
    } else {
        offset
    }
}

fn row_key(r: RunRow) -> (u8, usize) {
    match r {
        RunRow::Tests(i) => (0, i),
        RunRow::Record(i) => (1, i),
    }
}

/// A run record shown in the live pane: one row per case result.
pub fn record_run_data(
    path: &str,
    rec: &Result<crate::exec::record::RunRecord, String>,
) -> RunData {
    use crate::exec::record::Verdict;
    let mut data = RunData {
        path: format!("record:{path}"),
        ..RunData::default()
    };
    match rec {
        Ok(r) => {
            for p in &r.probes {
                data.events.push_back(TimelineEvent {
                    kind: "signal".into(),
                    name: format!("probe {}", p.category),
                    status: "info".into(),
                    message: p.probe.as_ref().map_or_else(
                        || "no probe".into(),
                        |x| serde_json::to_string(x).unwrap_or_default(),
                    ),
                    ..TimelineEvent::default()
                });
            }
            for c in &r.results {
                let status = match c.verdict {
                    Verdict::Pass => "ok",
                    Verdict::Fail | Verdict::EnvironmentFail => "failed",
                    Verdict::Skipped | Verdict::NotRun => "skipped",
                };
                let mut data_v = serde_json::to_value(c).unwrap_or_default();
                if let Some(o) = data_v.as_object_mut() {
                    o.remove("id");
                }
                data.events.push_back(TimelineEvent {
                    ts: Some(c.started_at.clone()),
                    kind: "case".into(),
                    name: format!("{} {}", c.id, c.verdict.as_str()),
                    status: status.into(),
                    message: c.reason.clone().unwrap_or_default(),
                    data: data_v,
                    ..TimelineEvent::default()
                });
            }
        }
        Err(e) => data.problems.push(e.clone()),
    }
    data
}

/// A failed event or an error.
pub fn is_failure(e: &TimelineEvent) -> bool {
    e.status == "failed" || e.kind == "error"
}

/// The cases of the tests tree plus orphans (logged cases whose file is gone).
pub fn case_rows(ws: &Workspace) -> Vec<CaseRow> {
    let runs = &ws.logs.runs;
    let range_of = |scope: &str, case_id: &str| -> (usize, usize) {
        let s = runs.partition_point(|r| (r.scope.as_str(), r.case_id.as_str()) < (scope, case_id));
        let e = s + runs[s..]
            .iter()
            .take_while(|r| r.scope == scope && r.case_id == case_id)
            .count();
        (s, e)
    };
    let summary = |range: (usize, usize)| {
        let rs = &runs[range.0..range.1];
        let latest = rs
            .iter()
            .rev()
            .find(|r| r.status.is_finished())
            .map(|r| r.status);
        let latest = match rs.last() {
            Some(r) if r.status == RunStatus::InProgress => Some(RunStatus::InProgress),
            _ => latest,
        };
        (latest, rs.iter().filter(|r| r.status.is_finished()).count())
    };
    let mut rows = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, c) in ws.tests.cases.iter().enumerate() {
        let key = c.key();
        if !seen.insert(key.clone()) {
            continue;
        }
        let range = range_of(&c.scope, &c.case_id);
        let (latest, n) = summary(range);
        rows.push(CaseRow {
            key,
            case_id: c.case_id.clone(),
            scope: c.scope.clone(),
            test: Some(i),
            temp: c.temp,
            live: c.live,
            registered: c.registered,
            latest,
            runs: n,
            run_range: range,
        });
    }
    let mut i = 0;
    while i < runs.len() {
        let r = &runs[i];
        let range = range_of(&r.scope, &r.case_id);
        i = range.1.max(i + 1);
        let key = r.key();
        if !seen.insert(key.clone()) {
            continue;
        }
        let (latest, n) = summary(range);
        rows.push(CaseRow {
            key,
            case_id: r.case_id.clone(),
            scope: r.scope.clone(),
            test: None,
            temp: r.is_temp(),
            live: r.scope.split('/').skip(1).any(|s| s == "live"),
            registered: r.is_temp() || ws.plan.is_registered(&r.case_id),
            latest,
            runs: n,
            run_range: range,
        });
    }
    rows
}

/// The tree in depth-first order: folders before the cases beside them.
pub fn build_tree(cases: &[CaseRow]) -> Vec<TreeNode> {
    let sort_key = |c: &CaseRow| -> Vec<String> {
        let mut v: Vec<String> = c
            .scope
            .split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        // a case sorts after the sub-folders of its folder
        v.push(format!("\u{10ffff}{}", c.case_id));
        v
    };
    let mut order: Vec<(Vec<String>, usize)> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| (sort_key(c), i))
        .collect();
    order.sort();
    let mut nodes: Vec<TreeNode> = Vec::new();
    let mut stack: Vec<(String, usize)> = Vec::new(); // (segment, node index)
    for (segs, ci) in order {
        let folders = &segs[..segs.len() - 1];
        let common = stack
            .iter()
            .zip(folders)
            .take_while(|((s, _), f)| s == *f)
            .count();
        stack.truncate(common);
        for (d, seg) in folders.iter().enumerate().skip(common) {
            let key = folders[..=d].join("/");
            nodes.push(TreeNode {
                key,
                label: escape(seg).into_owned(),
                depth: d,
                parent: stack.last().map(|(_, i)| *i),
                kind: NodeKind::Folder,
                count: 0,
                failing: 0,
            });
            stack.push((seg.clone(), nodes.len() - 1));
        }
        for (_, i) in &stack {
            nodes[*i].count += 1;
        }
        let c = &cases[ci];
        nodes.push(TreeNode {
            key: c.key.clone(),
            label: escape(&c.case_id).into_owned(),
            depth: folders.len(),
            parent: stack.last().map(|(_, i)| *i),
            kind: NodeKind::Case(ci),
            count: 1,
            failing: 0,
        });
    }
    nodes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app() -> App {
        App::new(
            Options::default(),
            Keymap::builtin("default").unwrap_or_default(),
        )
    }

    #[test]
    fn a_tick_never_cancels_a_pending_frame() {
        let mut a = app();
        a.update(Action::LoadFailed("x".into()));
        assert!(a.dirty);
        a.update(Action::Tick);
        assert!(a.dirty, "the frame of the load result was dropped");
        a.dirty = false;
        a.update(Action::Tick);
        assert!(!a.dirty, "an idle tick must not redraw");
    }

    fn step(name: &str) -> TimelineEvent {
        TimelineEvent {
            kind: "step".into(),
            name: name.into(),
            status: "ok".into(),
            ..TimelineEvent::default()
        }
    }

    fn append(a: &mut App, reset: bool, names: &[&str]) -> Vec<Effect> {
        a.update(Action::TimelineAppend {
            path: "run".into(),
            reset,
            events: names.iter().map(|n| step(n)).collect(),
            problems: Vec::new(),
            finished: false,
        })
    }

    #[test]
    fn timeline_appends_keep_the_cap_reset_and_the_person_s_place() {
        let mut a = app();
        a.timeline_cap = 4;
        a.live.wanted = Some("run".into());
        a.update(Action::RunLoaded(Box::new(RunData {
            path: "run".into(),
            in_progress: true,
            ..RunData::default()
        })));
        append(&mut a, false, &["a", "b", "c"]);
        // paused on "b"
        a.live.follow = false;
        a.live.cursor = 1;
        append(&mut a, false, &["d", "e"]);
        let run = a.live.run.as_ref().expect("run");
        let shown: Vec<&str> = run.events.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(shown, ["b", "c", "d", "e"]);
        assert_eq!(run.skipped, 1);
        assert_eq!(run.events[a.live.visible[a.live.cursor]].name, "b");
        // another run's lines are not ours
        a.update(Action::TimelineAppend {
            path: "other".into(),
            reset: true,
            events: vec![step("x")],
            problems: vec!["line 1: x".into()],
            finished: true,
        });
        assert_eq!(a.live.run.as_ref().expect("run").events.len(), 4);
        // the file was replaced: only the new lines are shown, the count starts again
        append(&mut a, true, &["n1"]);
        let run = a.live.run.as_ref().expect("run");
        assert_eq!(run.events.len(), 1);
        assert_eq!(run.skipped, 0);
        assert_eq!(a.live.cursor, 0);
    }

    #[test]
    fn tree_is_depth_first_with_counts() {
        let row = |scope: &str, id: &str| CaseRow {
            key: format!("{scope}/{id}"),
            case_id: id.into(),
            scope: scope.into(),
            test: Some(0),
            temp: false,
            live: false,
            registered: true,
            latest: None,
            runs: 0,
            run_range: (0, 0),
        };
        let cases = vec![row("a/b", "x"), row("a", "y"), row("a/b/c", "z")];
        let t = build_tree(&cases);
        let labels: Vec<(usize, &str, usize)> = t
            .iter()
            .map(|n| (n.depth, n.label.as_str(), n.count))
            .collect();
        assert_eq!(
            labels,
            [
                (0, "a", 3),
                (1, "b", 2),
                (2, "c", 1),
                (3, "z", 1),
                (2, "x", 1),
                (1, "y", 1)
            ]
        );
    }

    #[test]
    fn key_sequences_go_through_the_keymap() {
        let mut a = app();
        a.on_key(KeyEvent::new(KeyCode::Char('?'), KeyModifiers::NONE));
        assert!(matches!(a.overlay, Some(Overlay::Help { .. })));
        a.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
        assert!(a.overlay.is_none());
        a.on_key(KeyEvent::new(KeyCode::Char('g'), KeyModifiers::NONE));
        assert_eq!(a.pending_keys(), "g");
        a.on_key(KeyEvent::new(KeyCode::Char('3'), KeyModifiers::NONE));
        assert_eq!(
            a.tab,
            Tab::Runs,
            "a broken sequence still runs its last key"
        );
    }
}
