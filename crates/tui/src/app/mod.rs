//! The App: all state of the cockpit — tabs, panes, features — and
//! `update(Action) -> Vec<Effect>`, which dispatches to them. No drawing, no terminal,
//! no I/O: slow work is asked for as an `Effect` and comes back as an `Action`.

/// The state every pane may read ([`pane::Shared`]), built field by field from
/// the App `$app`, so that a pane beside it can be borrowed to answer.
macro_rules! shared {
    ($app:expr) => {
        $crate::app::pane::Shared {
            root: &$app.opts.root,
            ws: $app.ws.as_ref(),
            indexing: $app.indexing,
            asking: $app.layers.overlay().is_some() || $app.layers.input().is_some(),
            picture_background: $app.previews.background(),
            tab: $app.tab,
            tree_height: $app.areas().panes.tree.height as usize,
            tests: &$app.tests,
            catalog: &$app.catalog,
            runs: &$app.runs,
            live: &$app.live,
            opts: &$app.opts,
            opener_places: &$app.opener_places,
            focus: $app.focus,
            size: $app.size,
            marks: &$app.marks,
            candidates: &$app.candidates,
        }
    };
}

/// Hand component `$app.$field` to `$body` with a [`pane::Ctx`] (`$cx`) over the
/// shared state; then route what it published. The body's value and the effects.
macro_rules! answer {
    ($app:ident . $field:ident, |$c:ident, $cx:ident| $body:expr) => {{
        let (mut fx, mut published) = (Vec::new(), Vec::new());
        let value = {
            let mut $cx = $crate::app::pane::Ctx::new(shared!($app), &mut fx, &mut published);
            let $c = &mut $app.$field;
            $body
        };
        for e in published {
            let more = $app.publish(e);
            fx.extend(more);
        }
        (value, fx)
    }};
}

pub mod add_case;
pub mod catalog_tab;
pub mod changes;
pub mod clipboard;
mod commands;
pub mod compare;
pub mod contract;
pub mod details;
pub mod editor;
mod effect;
mod features;
pub mod finder;
mod hints;
mod input;
pub mod insights;
pub mod launch;
pub mod layout;
pub mod list;
pub mod live;
mod mouse;
mod navigate;
pub mod opener;
pub mod overlay;
pub mod pane;
pub mod preview;
pub mod problems;
pub mod prompt;
#[cfg(test)]
mod random_changes;
pub mod report;
pub mod runs_tab;
pub mod screen;
mod selection;
#[cfg(test)]
mod selection_table;
pub mod snapshot;
mod targets;
#[cfg(test)]
mod test_support;
pub mod tests_tab;
pub mod trace;
pub mod watch;
pub mod why;

use super::action::{Action, Command};
use super::feature_work::FeatureWork;
use super::keymap::{Key, Keymap, Resolved, Resolver};
use crossterm::event::{KeyEvent, MouseButton, MouseEvent, MouseEventKind};
use layout::Areas;
use pane::Published;
use ratatui::layout::Position;
use screen::ScreenOutcome;
use std::collections::BTreeSet;
use std::path::PathBuf;
use testdeck_core::workspace::Workspace;

pub use catalog_tab::{CatRow, CatalogTab};
pub use effect::{EditTarget, Effect};
pub use finder::{Candidate, Finder};
pub use launch::runner_output::is_output;
pub use list::ListState;
pub use live::{Live, RunRef, is_failure};
pub use overlay::{InputTarget, Overlay, Prompt};
pub use preview::PreviewTarget;
pub use runs_tab::{RunRow, RunsTab, record_run_data};
pub use screen::Screen;
pub use testdeck_core::workspace::cases::{CaseRef, CaseRow, NodeKind, TreeNode};
pub use tests_tab::TestsTab;

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

pub struct App {
    opts: Options,
    keymap: Keymap,
    /// Where the person's own openers and remembered trust are (none in tests
    /// that do not set them: built-in openers, nothing remembered).
    opener_places: testdeck_core::workspace::openers::UserDirs,
    resolver: Resolver,
    ws: Option<Workspace>,
    load_error: Option<String>,
    /// Animation frame of the indexing spinner.
    spinner: usize,
    /// The tree is shown but run history is still being indexed.
    indexing: bool,
    /// The tree shown holds the walk's first results only (`Action::TreePart`):
    /// the whole tree, the catalog and the finder's candidates are to come.
    tree_partial: bool,
    /// Runs of the history read so far and in all, while it streams in.
    history_progress: Option<(usize, usize)>,
    /// The whole `meta.json` of the run the details show (path, meta), read when
    /// it is selected: the index keeps only a summary per run.
    run_meta: Option<(String, Option<testdeck_core::workspace::logs::Meta>)>,
    size: (u16, u16),
    tab: Tab,
    focus: Pane,
    tests: TestsTab,
    catalog: CatalogTab,
    runs: RunsTab,
    live: Live,
    /// The details pane: its scroll, bounded by the last frame, from the top
    /// for each new subject.
    details: details::DetailsPane,
    /// Marked cases of both sources.
    marks: BTreeSet<CaseRef>,
    /// Zoom and the tree's width, as the person set them.
    sizing: layout::Sizing,
    /// What the finder matches.
    candidates: Vec<Candidate>,
    /// The overlay stack: a full screen, an overlay over it, the filter line.
    layers: overlay::Layers,
    /// The launch component: authorizations, max risk, runs in flight, verdicts.
    launch: launch::Launch,
    /// The run the selection asked for last (the live pane follows its changes).
    last_want: Option<RunRef>,
    /// One-line messages for the status bar (config errors, notices).
    notice: Option<String>,
    watch: watch::Watch,
    compare: compare::Compare,
    previews: preview::Previews,
    contract: contract::Contract,
    /// The key-hint line is shown (`[ui] key_hints` in the person's config).
    key_hints: bool,
    /// The problems list (`p`): validate's problems, the openers' and runners' failures.
    problems: problems::Problems,
    /// The failure digests read for `W` and the details' summary.
    why: why::Why,
    /// The terminal's picture protocol and the screenshot encoded for it.
    graphics: super::graphics::Graphics,
    quit: bool,
    dirty: bool,
    /// What the workspace watch made of runs (external ones, the one to read again).
    changes: changes::Changes,
    /// `a`: the case being added in a folder.
    adding: add_case::AddCase,
    /// What the panes derived from the domain at the last change, for the frames.
    derived: snapshot::Derived,
}

/// What a drawn frame measured: how far wrapped text can scroll.
#[derive(Debug, Clone, Copy, Default)]
pub struct Measured {
    /// The details pane's last scroll row (its wrapped rows less the rows shown).
    pub details_max: usize,
}

const SPINNER: [&str; 8] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧"];

impl App {
    pub fn new(opts: Options, keymap: Keymap) -> App {
        // the person's config only when the environment is read (never in tests)
        let key_hints = !opts.use_env
            || testdeck_core::userconfig::current()
                .key_hints
                .unwrap_or(true);
        App {
            opener_places: if opts.use_env {
                testdeck_core::workspace::openers::UserDirs::from_env()
            } else {
                testdeck_core::workspace::openers::UserDirs::default()
            },
            opts,
            keymap,
            resolver: Resolver::default(),
            ws: None,
            load_error: None,
            spinner: 0,
            indexing: false,
            tree_partial: false,
            history_progress: None,
            run_meta: None,
            size: (80, 24),
            tab: Tab::Tests,
            focus: Pane::Tree,
            tests: TestsTab::default(),
            catalog: CatalogTab::default(),
            runs: RunsTab::default(),
            live: Live::new(),
            details: details::DetailsPane::default(),
            marks: BTreeSet::new(),
            sizing: layout::Sizing::default(),
            candidates: Vec::new(),
            layers: overlay::Layers::default(),
            launch: launch::Launch::default(),
            last_want: None,
            notice: None,
            watch: watch::Watch::default(),
            compare: compare::Compare::default(),
            previews: preview::Previews::default(),
            contract: contract::Contract::default(),
            problems: problems::Problems::default(),
            key_hints,
            why: why::Why::default(),
            graphics: super::graphics::Graphics::default(),
            quit: false,
            dirty: true,
            changes: changes::Changes::default(),
            adding: add_case::AddCase::default(),
            derived: snapshot::Derived::default(),
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
        self.layers.mode()
    }

    /// The overlay stack: a full screen, an overlay over it, the filter line.
    pub fn layers(&self) -> &overlay::Layers {
        &self.layers
    }

    /// Keep scrolls of wrapped text inside what the last frame measured.
    pub fn fit_scroll(&mut self, m: &Measured) {
        self.details.fit(m.details_max);
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
        self.tests.selected_node()
    }

    pub fn selected_case(&self) -> Option<&CaseRow> {
        self.tests.selected_case()
    }

    /// The run selected in the Runs tab.
    pub fn selected_run(&self) -> Option<&testdeck_core::workspace::logs::RawRun> {
        self.runs.selected_run(self.ws.as_ref()?)
    }

    /// The catalog run record selected in the Runs tab: its path and the record.
    pub fn selected_record(
        &self,
    ) -> Option<(&str, &Result<testdeck_exec::record::RunRecord, String>)> {
        self.runs.selected_record()
    }

    /// The catalog case under the Catalog tab's cursor.
    pub fn selected_catalog_case(&self) -> Option<&testdeck_core::workspace::catalog::Case> {
        self.catalog
            .selected_case(self.ws.as_ref()?.catalog.as_ref()?)
    }

    /// The launch component: authorizations, max risk, runs in flight, verdicts.
    pub fn launch(&self) -> &launch::Launch {
        &self.launch
    }

    /// The launch component to seed (integration tests only).
    #[cfg(feature = "test-support")]
    pub fn launch_mut(&mut self) -> &mut launch::Launch {
        &mut self.launch
    }

    /// Events of launch `index` as the runtime hands them on: through a launch
    /// queue and `Action::ExecQueued` (its requeues applied); the other effects.
    #[cfg(any(test, feature = "test-support"))]
    pub fn exec_queued(
        &mut self,
        index: usize,
        evs: impl IntoIterator<Item = testdeck_exec::ExecEvent>,
    ) -> Vec<Effect> {
        let queue = crate::queue_handle::QueueHandle::<crate::launch_queue::LaunchQueue>::default();
        let mut wake = false;
        for ev in evs {
            wake |= queue.push(ev);
        }
        self.settle_queued(wake.then(|| Action::ExecQueued(index, queue)))
    }

    /// What the follow of run `path` read, as the runtime hands it on: through
    /// a follow queue and `Action::FollowQueued`; the effects.
    #[cfg(any(test, feature = "test-support"))]
    pub fn follow_queued(
        &mut self,
        path: &str,
        u: testdeck_core::tail::live_run::RunUpdate,
    ) -> Vec<Effect> {
        let queue = crate::queue_handle::QueueHandle::<crate::follow_queue::FollowQueue>::default();
        let wake = queue.push(u, testdeck_core::tail::live_run::MAX_TIMELINE_EVENTS);
        self.settle_queued(wake.then(|| Action::FollowQueued(path.to_owned(), queue)))
    }

    /// Apply `first` and every action it requeues, as the loop does; the other effects.
    #[cfg(any(test, feature = "test-support"))]
    fn settle_queued(&mut self, first: Option<Action>) -> Vec<Effect> {
        let mut fx = Vec::new();
        let mut next = first;
        while let Some(a) = next.take() {
            for e in self.update(a) {
                match e {
                    Effect::Requeue(a) => next = Some(*a),
                    other => fx.push(other),
                }
            }
        }
        fx
    }

    /// The selected artifact as something to preview.
    pub fn preview_target(&self) -> PreviewTarget {
        preview::target(&self.live, &self.opts.root)
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
        // motion without a button (any-motion reporting) changes nothing: no frame,
        // and no feature job is looked for
        if matches!(&action, Action::Mouse(m) if m.kind == MouseEventKind::Moved) {
            return Vec::new();
        }
        let reloaded = matches!(action, Action::Loaded(_) | Action::HistoryDone);
        // a mouse event draws a frame only when what is shown moved (compared before
        // and after, as yazi's `render!` does)
        let before =
            matches!(action, Action::Mouse(_)).then(|| (self.dirty, mouse::ViewKey::of(self)));
        let mut fx = self.update_inner(action);
        // a case `a` added: selected once the watch brings it into the tree
        fx.extend(self.publish(Published::Acted));
        if let Some((was_dirty, key)) = before {
            self.dirty = was_dirty || !fx.is_empty() || key != mouse::ViewKey::of(self);
        }
        if reloaded {
            fx.extend(self.publish(Published::Reloaded));
        }
        self.sync_run_meta();
        // the subscribers: the details' subject, the contract checks, the
        // previews, the failure digests
        fx.extend(self.publish(Published::Changed));
        self.sync_graphics();
        // asked to quit while runs were live, and they all ended meanwhile: the
        // only reason to ask is gone, so the person's `q` goes through
        if !self.quit
            && matches!(
                self.layers.overlay(),
                Some(Overlay::Prompt(Prompt::QuitLive))
            )
            && self.launch.running() == 0
            && self.watch.reruns() == 0
        {
            self.layers.take();
            self.quit = true;
            fx.push(Effect::Quit);
        }
        // what the views show is derived once per change, never while drawing
        if self.dirty {
            self.derived = snapshot::Derived::of(self);
        }
        fx
    }

    /// What the next frame shows, handed to the views ([`snapshot::Snapshot`]).
    pub fn snapshot(&self) -> snapshot::Snapshot<'_> {
        snapshot::Snapshot::of(self)
    }

    /// Pane `p` has the keys (and no overlay is over it).
    pub fn has_keys(&self, p: Pane) -> bool {
        self.focus == p && self.layers.overlay().is_none()
    }

    /// What `E` opens for the current selection, or why nothing.
    pub fn edit_target(&self) -> Result<EditTarget, String> {
        let around = editor::Around {
            layers: &self.layers,
            problems: &self.problems,
            why: &self.why,
            focus: self.focus,
        };
        editor::edit_target(&self.shared(), &around)
    }

    /// The state every pane may read, read-only.
    pub fn shared(&self) -> pane::Shared<'_> {
        shared!(self)
    }

    /// Hand `e` to the panes that subscribe to it, in a fixed order, with the
    /// shared state read-only; the effects they ask for.
    pub(super) fn publish(&mut self, e: Published) -> Vec<Effect> {
        let mut fx = Vec::new();
        let mut queue = std::collections::VecDeque::from([e]);
        while let Some(e) = queue.pop_front() {
            // the router's queue: a request goes to its owner
            let e = match self.route(e) {
                Ok(more) => {
                    fx.extend(more);
                    continue;
                }
                Err(e) => e,
            };
            let mut published = Vec::new();
            // field by field (not `shared()`): the subscribers are borrowed beside it
            let mut cx = pane::Ctx::new(shared!(self), &mut fx, &mut published);
            let subscribers: [&mut dyn pane::Component; 7] = [
                &mut self.adding,
                &mut self.details,
                &mut self.contract,
                &mut self.previews,
                &mut self.layers,
                &mut self.why,
                &mut self.launch,
            ];
            for p in subscribers {
                if p.subscribes(&e) {
                    p.on_event(&e, &mut cx);
                }
            }
            queue.extend(published);
        }
        fx
    }

    /// A component's request, routed to its owner (the effects it leads to);
    /// an event for the subscribers back.
    fn route(&mut self, e: Published) -> Result<Vec<Effect>, Published> {
        if matches!(
            e,
            Published::Acted | Published::Changed | Published::Reloaded
        ) {
            return Err(e);
        }
        self.dirty = true;
        match e {
            Published::Select(key) => {
                self.jump_to(&key);
            }
            Published::Say(m) => self.notice = Some(m),
            Published::Hush => self.notice = None,
            Published::Open(o) => self.layers.open(*o),
            Published::Show(s) => self.layers.show_screen(*s),
            Published::ShowOver(s) => self.layers.show_screen_over(*s),
            Published::CloseScreen => self.layers.close_screen(),
            Published::Edit(t) => self.layers.edit(t),
            Published::StopEditing => self.layers.stop_editing(),
            Published::Tab(t) => self.set_tab(t),
            Published::Focus(p) => self.focus = p,
            Published::SelectCase(c) => {
                self.jump_to_case(&c);
            }
            Published::Reselect => return Ok(self.selection_changed()),
            Published::Refit => self.clamp(),
            Published::Marks(m) => self.marks = m,
            Published::Quit => {
                self.quit = true;
                return Ok(vec![Effect::Quit]);
            }
            Published::AskOrLaunch(a) => {
                return Ok(answer!(self.launch, |l, c| l.ask(*a, &mut c)).1);
            }
            Published::RunLaunched { index, path } => self.changes.launched(index, path),
            Published::LaunchEnded {
                index,
                wrote_record,
            } => return Ok(self.launch_ended(index, wrote_record)),
            Published::RereadWhenEnded(p) => return Ok(self.reread_when_ended(&p)),
            Published::SelectLaunched(id) => self.select_launched(&id),
            Published::Problem { said, stderr } => {
                self.problems.failed(said, stderr);
                self.refresh_problems();
            }
            Published::Authorized(a) => {
                // a `w`'s questions: the watch takes what they authorized
                let (grants, risk) = (self.launch.grants().clone(), self.launch.max_risk());
                let said = (self.ws.as_ref()).and_then(|ws| self.watch.ready(ws, &grants, risk));
                let watching = said.map(|m| (m, self.watch.job(&grants, risk)));
                return Ok(answer!(self.launch, |l, cx| l.launch(*a, watching, &mut cx)).1);
            }
            Published::Live(s) => return Ok(self.live.launch_step(*s, self.tab != Tab::Runs)),
            Published::RecordLaunched { index, run_id } => self.runs.set_launched(index, run_id),
            Published::Judged(j, v) => {
                if (self.runs.judged(j.launch, &j.case_id, v, j.recorded_note())).is_some() {
                    self.records_changed();
                }
            }
            Published::Acted | Published::Changed | Published::Reloaded => {}
        }
        Ok(Vec::new())
    }

    #[expect(
        clippy::too_many_lines,
        reason = "one arm per action kind, each routing to its owner"
    )]
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
                if let Some(Screen::Trace(v)) = self.layers.screen_mut() {
                    v.fit((w, h));
                }
                Vec::new()
            }
            Action::Tick => {
                // a tick only animates the spinner; it must not cancel a pending frame
                self.dirty = was_dirty || self.loading() || self.indexing;
                self.spinner = self.spinner.wrapping_add(1);
                Vec::new()
            }
            Action::TreePart(ws) => {
                if self.ws.is_none() || self.tree_partial {
                    self.tree_part(*ws);
                    self.indexing = true;
                }
                Vec::new()
            }
            Action::TreeLoaded(ws) => {
                if self.ws.is_none() || self.tree_partial {
                    self.tree_loaded(*ws);
                    self.indexing = true;
                }
                Vec::new()
            }
            Action::HistoryStarted { total, problems } => {
                self.history_started(total, problems);
                Vec::new()
            }
            Action::HistoryChunk(chunk) => {
                self.history_chunk(*chunk);
                Vec::new()
            }
            Action::HistoryVerified { updates, problems } => {
                self.history_verified(updates, problems);
                Vec::new()
            }
            Action::HistoryRebuilt(chunk) => {
                self.history_rebuilt(*chunk);
                Vec::new()
            }
            Action::HistoryDone => {
                self.indexing = false;
                self.history_progress = None;
                let mut fx = self.selection_changed();
                fx.extend(self.ws.as_ref().map(insights::change_times_job));
                fx.extend(self.runs_after_index());
                fx
            }
            Action::Loaded(ws) => {
                self.indexing = false;
                self.tree_partial = false;
                self.history_progress = None;
                self.set_workspace(*ws);
                let mut fx = self.selection_changed();
                fx.extend(self.changes_after_load());
                fx.extend(self.ws.as_ref().map(insights::change_times_job));
                fx
            }
            Action::Changed(updates) => {
                self.dirty = was_dirty;
                self.workspace_changed(updates)
            }
            Action::WatchProblems(found) => {
                self.problems.watching(found);
                self.refresh_problems();
                Vec::new()
            }
            Action::LoadFailed(e) => {
                self.load_error = Some(e);
                Vec::new()
            }
            Action::RunLoaded(data) => self.live.loaded(*data),
            Action::FollowQueued(path, queue) => {
                let t = queue.take();
                let finished = t.update.finished;
                self.live.append_queued(&path, t);
                // its artifacts and details are read again once the index has it
                // ended (the watch applies its end: the statuses, the statistics)
                if finished {
                    self.reread_when_ended(&path)
                } else {
                    Vec::new()
                }
            }
            Action::Notice(n) => {
                self.notice = Some(n);
                Vec::new()
            }
            Action::ToolFailed { said, stderr } => {
                self.notice = Some(said.clone());
                self.problems.failed(said, stderr);
                self.refresh_problems();
                Vec::new()
            }
            Action::ExecQueued(index, queue) => {
                let (evs, more) = queue.take();
                let mut fx = answer!(self.launch, |l, cx| l.exec_events(index, evs, &mut cx)).1;
                if more {
                    fx.push(Effect::Requeue(Box::new(Action::ExecQueued(index, queue))));
                }
                fx
            }
            Action::WorkDone(d) => self.done(*d),
            Action::ShowText { title, text } => {
                self.layers.open(overlay::text(&title, &text));
                Vec::new()
            }
            Action::Records(r) => {
                self.runs.set_records(r);
                self.records_changed();
                Vec::new()
            }
            Action::Terminate => {
                self.quit = true;
                vec![Effect::Quit]
            }
        }
    }

    /// Mouse input: a click focuses the pane under it and selects the row (the
    /// pane's own click), the wheel scrolls the pane under it, a click on the tab
    /// bar switches tabs; over an overlay or a screen the wheel is a cursor key.
    fn mouse(&mut self, m: MouseEvent) -> Vec<Effect> {
        if self.layers.overlay().is_some() || self.layers.screen().is_some() {
            let c = match m.kind {
                MouseEventKind::ScrollDown => Command::MoveDown,
                MouseEventKind::ScrollUp => Command::MoveUp,
                _ => return Vec::new(),
            };
            return self.command(c);
        }
        let a = self.areas();
        let pos = Position::new(m.column, m.row);
        let pane = PANES
            .into_iter()
            .find_map(|p| a.panes.get(p).filter(|r| r.contains(pos)).map(|r| (r, p)));
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
                    match pane {
                        // the tests tree has a header row (the list pane knows)
                        Pane::Tree => self.tab_list().click(row),
                        Pane::Live => {
                            // the live pane has a header row
                            self.live.click(row.saturating_sub(1));
                        }
                        Pane::Artifacts => {
                            // the artifacts list does not scroll
                            self.live.click_artifact(row);
                        }
                        Pane::Details => {}
                    }
                }
                self.clamp();
            }
            _ => return Vec::new(),
        }
        self.selection_changed()
    }

    /// Lines of the help overlay: the legend, then each mode's title and rows,
    /// a blank line between modes (as `view::help::lines` draws them).
    pub fn help_len(&self) -> usize {
        let rows = self.keymap.help_rows();
        let mut modes: Vec<&str> = rows.iter().map(|r| r.0).collect();
        modes.dedup();
        overlay::LEGEND.len() + 2 + rows.len() + (modes.len() * 2).saturating_sub(1)
    }
}

impl App {
    /// Encode the full-screen screenshot (or a trace's frames) for the terminal's
    /// protocol when shown (once per file and size), and forget them when closed.
    fn sync_graphics(&mut self) {
        use super::image::State;
        use screen::Screen;
        match self.layers.screen() {
            Some(Screen::Image { file, .. }) => {
                let area = super::graphics::screen_body(self.size.0, self.size.1);
                match self.previews.cache().get(file) {
                    Some(State::Ready(p)) => {
                        self.graphics.sync(&[(file.as_path(), &p.image, area)]);
                    }
                    _ => self.graphics.sync(&[]),
                }
            }
            Some(Screen::Trace(v)) => {
                let pics = v.pictures(self.size);
                let want: Vec<_> = pics
                    .iter()
                    .map(|(k, p, r)| (k.as_path(), &p.image, *r))
                    .collect();
                self.graphics.sync(&want);
            }
            _ => self.graphics.sync(&[]),
        }
    }
}

/// Read access for the shell, the views and the tests: the state itself is private.
impl App {
    /// The options the shell passed in.
    pub fn opts(&self) -> &Options {
        &self.opts
    }

    /// The keymap keys are resolved in.
    pub fn keymap(&self) -> &Keymap {
        &self.keymap
    }

    /// Where the person's own openers and remembered trust are.
    pub fn opener_places(&self) -> &testdeck_core::workspace::openers::UserDirs {
        &self.opener_places
    }

    /// The loaded workspace (`None` while loading or when it failed).
    pub fn ws(&self) -> &Option<Workspace> {
        &self.ws
    }

    /// Why the workspace could not be loaded.
    pub fn load_error(&self) -> &Option<String> {
        &self.load_error
    }

    /// The tree is shown but run history is still being indexed.
    pub fn indexing(&self) -> bool {
        self.indexing
    }

    /// Runs of the history read so far and in all, while it streams in.
    pub fn history_progress(&self) -> Option<(usize, usize)> {
        self.history_progress
    }

    /// The terminal size (columns, rows).
    pub fn size(&self) -> (u16, u16) {
        self.size
    }

    /// The tab shown.
    pub fn tab(&self) -> Tab {
        self.tab
    }

    /// The pane the keys go to.
    pub fn focus(&self) -> Pane {
        self.focus
    }

    /// The Tests tab.
    pub fn tests(&self) -> &TestsTab {
        &self.tests
    }

    /// `a`: the case being added (its folder and the caseId typed).
    pub fn adding(&self) -> &add_case::AddCase {
        &self.adding
    }

    /// The Catalog tab.
    pub fn catalog(&self) -> &CatalogTab {
        &self.catalog
    }

    /// The Runs tab.
    pub fn runs(&self) -> &RunsTab {
        &self.runs
    }

    /// The live pane.
    pub fn live(&self) -> &Live {
        &self.live
    }

    /// The details pane's scroll.
    pub fn details(&self) -> &ListState {
        self.details.scroll()
    }

    /// Marked cases of both sources.
    pub fn marks(&self) -> &BTreeSet<CaseRef> {
        &self.marks
    }

    /// Zoom and the tree's width.
    pub fn sizing(&self) -> &layout::Sizing {
        &self.sizing
    }

    /// What the finder matches.
    pub fn candidates(&self) -> &Vec<Candidate> {
        &self.candidates
    }

    /// The status bar's one-line message.
    pub fn notice(&self) -> &Option<String> {
        &self.notice
    }

    /// Watch mode.
    pub fn watch(&self) -> &watch::Watch {
        &self.watch
    }

    /// The compare feature.
    pub fn compare(&self) -> &compare::Compare {
        &self.compare
    }

    /// Screenshot previews.
    pub fn previews(&self) -> &preview::Previews {
        &self.previews
    }

    /// The failure digests read so far (`W`, the details' summary).
    pub fn why(&self) -> &why::Why {
        &self.why
    }

    /// The contract badges' checks.
    pub fn contract(&self) -> &contract::Contract {
        &self.contract
    }

    /// The terminal's picture protocol and the screenshot encoded for it.
    pub fn graphics(&self) -> &super::graphics::Graphics {
        &self.graphics
    }

    /// The person asked to quit.
    pub fn quit(&self) -> bool {
        self.quit
    }

    /// Something changed since the last frame: draw one.
    pub fn dirty(&self) -> bool {
        self.dirty
    }

    /// What the workspace watch made of runs.
    pub fn changes(&self) -> &changes::Changes {
        &self.changes
    }

    /// A frame was drawn: nothing waits to be shown.
    pub fn drawn(&mut self) {
        self.dirty = false;
    }

    /// Say `n` on the status bar.
    pub fn say(&mut self, n: String) {
        self.notice = Some(n);
    }

    /// The terminal's picture protocol: forced when the terminal was taken, or found
    /// from its answers after the first frame (the pictures shown are encoded again).
    pub fn set_graphics(&mut self, g: super::graphics::Graphics) {
        self.graphics = g;
        self.sync_graphics();
        self.dirty = true;
    }

    /// The theme's background, which screenshot previews are blended on.
    pub fn set_picture_background(&mut self, rgb: [u8; 3]) {
        self.previews.set_background(rgb);
    }

    /// The live pane, for the runtime's unit tests that set its cap and run.
    #[cfg(test)]
    pub(crate) fn live_mut(&mut self) -> &mut Live {
        &mut self.live
    }
}

#[cfg(test)]
mod tests;
