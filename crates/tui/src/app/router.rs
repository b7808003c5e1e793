//! The App: the router of the cockpit. It holds the components — tabs, panes,
//! features — and `update(Action) -> Vec<Effect>`, which routes each action,
//! command and request to the component that owns what it changes; it
//! decides nothing itself. No drawing, no terminal, no I/O: slow work is asked
//! for as an `Effect` and comes back as an `Action`.

use super::super::action::{Action, Command};
use super::super::feature_work::FeatureResult;
use super::super::keymap::{Key, Keymap, Resolved, Resolver};
use super::layout::{self, Areas};
use super::pane::{self, Published};
use super::selection::{self, record_data};
use super::{
    App, CaseRef, CatalogTab, EditTarget, Effect, Finder, InputTarget, ListState, Live, Measured,
    Options, Overlay, Pane, Prompt, RunsTab, Tab, TestsTab, add_case, changes, clipboard, compare,
    contract, details, domain, editor, features, input, insights, launch, mouse, navigate, opener,
    overlay, preview, problems, run_meta, snapshot, targets, watch, why,
};
use crossterm::event::{KeyEvent, MouseEventKind};
use std::collections::BTreeSet;

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
            domain: domain::Domain::new(opts.use_env),
            opts,
            keymap,
            resolver: Resolver::default(),
            spinner: 0,
            run_meta: run_meta::RunMeta::default(),
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
            layers: overlay::Layers::default(),
            launch: launch::Launch::default(),
            notice: None,
            watch: watch::Watch::default(),
            compare: compare::Compare::default(),
            previews: preview::Previews::default(),
            contract: contract::Contract::default(),
            problems: problems::Problems::default(),
            key_hints,
            why: why::Why::default(),
            graphics: crate::graphics::Graphics::default(),
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
        let look = layout::Look {
            banner: layout::banner(&self.opts.host),
            hints: self.key_hints,
            sizing: self.sizing,
            focus: self.focus,
            live: &self.live,
            root: &self.opts.root,
        };
        layout::areas(self.size.0, self.size.1, &look)
    }

    /// Put the cursor on the tree node `key` (a folder scope or `scope/caseId`).
    pub fn jump_to(&mut self, key: &str) -> bool {
        deck!(self).jump_to(key)
    }

    /// Put the cursor on case `c`, in its own tab.
    pub fn jump_to_case(&mut self, c: &CaseRef) -> bool {
        deck!(self).jump_to_case(c)
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
        let mut fx = self.update_inner(action);
        // a case `a` added: selected once the watch brings it into the tree
        fx.extend(self.publish(Published::Acted));
        if reloaded {
            fx.extend(self.publish(Published::Reloaded));
        }
        // the subscribers: the details' subject, the contract checks, the
        // previews, the failure digests
        fx.extend(self.publish(Published::Changed));
        fx.extend(self.show_pictures());
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
            let subscribers: [&mut dyn pane::Component; 9] = [
                &mut self.adding,
                &mut self.details,
                &mut self.contract,
                &mut self.previews,
                &mut self.layers,
                &mut self.why,
                &mut self.launch,
                &mut self.run_meta,
                &mut self.graphics,
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
            Published::Acted | Published::Changed | Published::Reloaded | Published::Shown(_)
        ) {
            return Err(e);
        }
        self.dirty = true;
        match e {
            Published::Select(key) => _ = deck!(self).jump_to(&key),
            Published::Say(m) => self.notice = Some(m),
            Published::Hush => self.notice = None,
            Published::Open(o) => self.layers.open(*o),
            Published::Show(s) => self.layers.show_screen(*s),
            Published::ShowOver(s) => self.layers.show_screen_over(*s),
            Published::CloseScreen => self.layers.close_screen(),
            Published::Edit(t) => self.layers.edit(t),
            Published::StopEditing => self.layers.stop_editing(),
            Published::Tab(t) => deck!(self).set_tab(t),
            Published::Focus(p) => self.focus = p,
            Published::SelectCase(c) => _ = deck!(self).jump_to_case(&c),
            Published::Reselect => return Ok(self.selection_changed()),
            Published::Refit => deck!(self).fit(),
            Published::Marks(m) => self.marks = m,
            Published::Quit => {
                // the cockpit ends once: a second request finds it ending
                return Ok((!std::mem::replace(&mut self.quit, true))
                    .then_some(Effect::Quit)
                    .into_iter()
                    .collect());
            }
            Published::AskOrLaunch(a) => {
                return Ok(answer!(self.launch, |l, c| l.ask(*a, &mut c)).1);
            }
            Published::RunLaunched { index, path } => self.changes.launched(index, path),
            Published::LaunchEnded {
                index: i,
                wrote_record: w,
            } => {
                return Ok(answer!(self.changes, |c, cx| c.launch_ended(i, w, &mut cx)).1);
            }
            Published::RereadWhenEnded(p) => {
                return Ok(answer!(self.changes, |c, cx| c.reread_when_ended(&p, &mut cx)).1);
            }
            Published::SelectLaunched(id) => {
                let cat = self.domain.ws().and_then(|w| w.catalog.as_ref());
                self.tests.follow_launch(self.tab, &id);
                self.catalog.follow_launch(self.tab, cat, &id);
                self.live.wanted_now(selection::wanted_run(&self.shared()));
            }
            Published::Problem { said, stderr: e } => return Ok(self.learn(|p| p.failed(said, e))),
            Published::Acted | Published::Changed | Published::Reloaded | Published::Shown(_) => {}
            Published::CursorOnRun { case, run, runs } => {
                if let Some(k) = case {
                    self.tests.jump_to(&k);
                }
                if runs {
                    self.tab = Tab::Runs;
                    self.runs.select_run(run);
                }
            }
            Published::LaunchEvent { index: i, event } => {
                return Ok(answer!(self.launch, |l, cx| l.exec_event(i, *event, &mut cx)).1);
            }
            Published::Decode(f, w, l) => return Ok(self.previews.job_for(f, w, l)),
            Published::OpenArtifact => return Ok(answer!(self, |cx| opener::open(&mut cx)).1),
            Published::Authorized(a) => {
                // a `w`'s questions: the watch takes what they authorized
                let (grants, risk) = (self.launch.grants().clone(), self.launch.max_risk());
                let said = (self.domain.ws()).and_then(|ws| self.watch.ready(ws, &grants, risk));
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
        }
        Ok(Vec::new())
    }

    /// The problems list learns with `learn`; when it is open, it shows what is known now.
    fn learn(&mut self, learn: impl FnOnce(&mut problems::Problems)) -> Vec<Effect> {
        learn(&mut self.problems);
        answer!(self.problems, |p, cx| p.refresh(&self.layers, &mut cx)).1
    }

    /// A feature's background result, to the component it is for.
    fn done(&mut self, d: FeatureResult) -> Vec<Effect> {
        use FeatureResult as R;
        use features::{digested, screen_done};
        match d {
            R::Watch { .. } | R::WatchEnded { .. } => {
                return answer!(self.watch, |w, cx| w.done(d, &mut cx)).1;
            }
            R::Digest { run, digest: d } => {
                let fx = answer!(self.layers, |l, cx| digested(l, &run, &d, &mut cx));
                self.why.put(run, d);
                return fx.1;
            }
            R::Validate(found) => return self.learn(|p| p.checked(found)),
            R::Changed(found) => return answer!(self, |cx| features::changed(found, &mut cx)).1,
            R::NewCasePlanned { case, editor } => {
                return answer!(self, |cx| add_case::AddCase::planned(case, editor, &mut cx)).1;
            }
            R::AdoptPlanned { adoption, editor } => {
                let adopt =
                    |cx: &mut pane::Ctx| add_case::AddCase::adopt_planned(adoption, editor, cx);
                return answer!(self, |cx| adopt(&mut cx)).1;
            }
            R::Contract(v) => self.contract.add(v),
            R::Preview { file, preview } => self.previews.put(file, preview),
            R::ChangeTimes(t) => {
                if let Some(ws) = self.domain.ws() {
                    self.tests.set_change_times(ws, *t);
                }
            }
            R::NewCaseWritten(case) => {
                return answer!(self.adding, |a, cx| a.written(case, &mut cx)).1;
            }
            R::AdoptDone(a) => return answer!(self.adding, |c, cx| c.adopt_done(a, &mut cx)).1,
            R::Opened { job, opening } => {
                return answer!(self, |cx| opener::opened(*job, opening, &mut cx)).1;
            }
            R::RunMeta { run, meta } => self.run_meta.read(&run, meta),
            // the screens': the comparison, the report, the trace
            _ => return answer!(self.layers, |l, cx| screen_done(l, d, &mut cx)).1,
        }
        Vec::new()
    }

    /// A command goes to the overlay, the screen or the input line that has the
    /// keys, else to the deck, else to the command table.
    fn command(&mut self, c: Command) -> Vec<Effect> {
        // before the overlay takes the key: `E` on the problems list opens the problem
        if c == Command::Edit {
            return match self.edit_target() {
                Ok(t) => vec![Effect::Edit(t)],
                Err(why) => self.publish(Published::Say(why)),
            };
        }
        if let Some(what) = clipboard::Copy::of(c).filter(|_| self.layers.overlay().is_none()) {
            let (notice, fx) = clipboard::copy(&self.shared(), what);
            self.notice = Some(notice);
            return fx.into_iter().collect();
        }
        match self.layers.take() {
            Some(Overlay::Finder(f)) => {
                return answer!(self.layers, |l, cx| l.finder_command(f, c, &mut cx)).1;
            }
            Some(o @ (Overlay::Help { .. } | Overlay::Data { .. })) => {
                let len = overlay::help_len(&self.keymap);
                self.layers.put(o.scrolled(c, len, self.size));
                return Vec::new();
            }
            Some(Overlay::Prompt(Prompt::TrustOpener(t))) => {
                return answer!(self, |cx| opener::trust_command(*t, c, &mut cx)).1;
            }
            Some(Overlay::Prompt(p)) => {
                return answer!(self.launch, |l, cx| l.prompt_command(p, c, &mut cx)).1;
            }
            None => {}
        }
        if self.layers.screen().is_some() {
            return answer!(self.layers, |l, cx| features::screen_key(l, c, &mut cx)).1;
        }
        if let Some(target) = self.layers.input() {
            return self.input_command(target, c);
        }
        self.notice = None;
        match deck!(self).command(c) {
            navigate::Answer::NotMine => return self.table(c),
            navigate::Answer::Say(m) => self.notice = Some(m),
            navigate::Answer::Done => {}
        }
        self.selection_changed()
    }

    /// `fx`, then what the selection now wants.
    fn reselected(&mut self, mut fx: Vec<Effect>) -> Vec<Effect> {
        fx.extend(self.selection_changed());
        fx
    }

    /// A command while a filter or a new case's name is being typed.
    fn input_command(&mut self, target: InputTarget, c: Command) -> Vec<Effect> {
        let adding = target == InputTarget::NewCase;
        if matches!(c, Command::Confirm | Command::Close) {
            self.layers.stop_editing();
        }
        match c {
            Command::Confirm if adding => {
                return answer!(self.adding, |a, cx| a.confirm(&mut cx)).1;
            }
            Command::Close if adding => self.adding.cancel(),
            Command::Close | Command::ClearInput => self.edit_input(target, input::Edit::Clear),
            _ => {}
        }
        self.selection_changed()
    }

    /// The command table: a command no overlay, screen, input line or the deck
    /// took, to its owner.
    fn table(&mut self, c: Command) -> Vec<Effect> {
        match c {
            Command::Quit if self.launch.running() > 0 || self.watch.reruns() > 0 => {
                self.layers.open(Overlay::Prompt(Prompt::QuitLive));
                return Vec::new();
            }
            Command::Quit => return self.publish(Published::Quit),
            Command::Open => match deck!(self).open() {
                navigate::Opened::Data(title, lines) => {
                    let scroll = 0;
                    self.layers.open(Overlay::Data {
                        title,
                        lines,
                        scroll,
                    });
                }
                // a trace opens in the trace pane (`o` still hands it to its opener)
                navigate::Opened::Artifact => {
                    return answer!(self, |cx| features::open_trace(&mut cx)).1;
                }
                navigate::Opened::Moved => {}
            },
            Command::Find => {
                let mut f = Finder::default();
                f.refind(self.domain.candidates());
                self.layers.open(Overlay::Finder(f));
            }
            Command::Filter if self.tab == Tab::Runs && self.focus == Pane::Tree => {
                self.layers.edit(InputTarget::RunsFilter);
            }
            Command::Filter => {
                self.live.filter_events();
                self.layers.edit(InputTarget::EventsFilter);
                self.focus = Pane::Live;
            }
            Command::Mark => {
                if let Some(keys) = targets::to_mark(&self.shared()) {
                    targets::toggle(&mut self.marks, keys);
                    deck!(self).move_by(1);
                }
            }
            Command::OpenArtifact => return answer!(self, |cx| opener::open(&mut cx)).1,
            Command::PreviewImage => return answer!(self, |cx| features::open_preview(&mut cx)).1,
            Command::Help => self.layers.open(Overlay::Help { scroll: 0 }),
            Command::Problems => return answer!(self.problems, |p, cx| p.open(&mut cx)).1,
            Command::Close => {
                self.marks.clear();
                self.live.clear_filters();
                deck!(self).fit();
            }
            Command::Run => return answer!(self.launch, |l, cx| l.start_launch(&mut cx)).1,
            Command::Cancel => return answer!(self.launch, |l, cx| l.handle(c, &mut cx)).1,
            Command::MaxRisk => {
                let fx = answer!(self.launch, |l, cx| l.handle(c, &mut cx)).1;
                return self.reselected(fx);
            }
            Command::Watch => {
                return answer!(self.watch, |w, cx| w.toggle(&self.launch, &mut cx)).1;
            }
            Command::RerunFailed if self.domain.ws().is_none() => {
                return self.publish(Published::Say("still indexing".into()));
            }
            Command::RerunFailed => return answer!(self.launch, |l, cx| l.rerun_failed(&mut cx)).1,
            Command::Compare => return answer!(self.compare, |p, cx| p.selected(&mut cx)).1,
            Command::Report => return answer!(self, |cx| features::open_report(&mut cx)).1,
            Command::Why => return answer!(self.why, |w, cx| w.open(&mut cx)).1,
            Command::Insights => {
                let fx = answer!(self, |cx| features::open_insights(&mut cx)).1;
                return self.reselected(fx);
            }
            Command::MarkChanged => {
                let (notice, fx) = insights::ask_changed(self.domain.ws().is_some());
                self.notice = Some(notice);
                return fx.into_iter().collect();
            }
            Command::AddCase => {
                let fx = answer!(self.adding, |a, cx| a.start(&mut cx)).1;
                return self.reselected(fx);
            }
            Command::RunLast => return answer!(self.launch, |l, cx| l.run_last(&mut cx)).1,
            Command::JumpRun => {
                return answer!(self.changes, |c, cx| c.jump_to_announced(&mut cx)).1;
            }
            Command::Reload => {
                self.why.forget();
                self.notice = Some("reading the workspace again…".into());
                return vec![Effect::Reload];
            }
            // handled before: the copies, `E`, the inputs', the screens' own, the deck's
            _ => {}
        }
        self.selection_changed()
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
            Action::Mouse(m) => {
                // a frame only when what is shown moved (compared before and after)
                let key = mouse::ViewKey::of(self);
                let layered = self.layers.overlay().is_some() || self.layers.screen().is_some();
                let fx = match deck!(self).mouse(m, layered) {
                    navigate::Mouse::Key(c) => self.command(c),
                    navigate::Mouse::Moved => self.selection_changed(),
                    navigate::Mouse::Nothing => Vec::new(),
                };
                self.dirty = was_dirty || !fx.is_empty() || key != mouse::ViewKey::of(self);
                fx
            }
            Action::Resize(w, h) => {
                self.size = (w, h);
                deck!(self).fit();
                self.layers.fit((w, h));
                Vec::new()
            }
            Action::Tick => {
                // a tick only animates the spinner; it must not cancel a pending frame
                self.dirty = was_dirty || self.domain.loading() || self.domain.indexing();
                self.spinner = self.spinner.wrapping_add(1);
                Vec::new()
            }
            Action::HistoryDone => {
                self.domain.history_done();
                let mut fx = self.selection_changed();
                fx.extend(self.domain.ws().map(insights::change_times_job));
                fx.extend(self.changes.runs_after_index());
                fx
            }
            Action::Loaded(ws) => {
                let catalog = self.domain.loaded(*ws, &mut tabs!(self));
                self.installed(catalog);
                let mut fx = self.selection_changed();
                fx.extend(answer!(self.changes, |c, cx| c.reread_ended(None, &mut cx)).1);
                fx.extend(self.live.stop_following_ended(self.domain.ws()));
                fx.extend(self.domain.ws().map(insights::change_times_job));
                fx
            }
            Action::Changed(updates) => {
                self.dirty = was_dirty;
                match self.domain.changed(updates, &mut tabs!(self)) {
                    Ok(ch) => self.workspace_changed(ch),
                    Err(fx) => fx,
                }
            }
            Action::WatchProblems(found) => self.learn(|p| p.watching(found)),
            Action::LoadFailed(e) => {
                self.domain.failed(e);
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
                    self.publish(Published::RereadWhenEnded(path))
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
                self.publish(Published::Problem { said, stderr })
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
            // the rest is what the staged index sends
            a => {
                let catalog = self.domain.indexed(a, &mut tabs!(self));
                self.installed(catalog)
            }
        }
    }

    /// The pictures the screen shown holds, to the terminal's encoding of them.
    fn show_pictures(&mut self) -> Vec<Effect> {
        let shown = self.layers.pictures(self.previews.cache(), self.size);
        self.publish(Published::Shown(shown))
    }

    /// A key no binding took: the text it types, to the overlay's or to the
    /// input line's owner.
    fn text_key(&mut self, k: KeyEvent) {
        let Some(e) = input::Edit::of(k) else { return };
        if let (false, Some(t)) = (
            self.layers.typed(e, self.domain.candidates()),
            self.layers.input(),
        ) {
            self.edit_input(t, e);
        }
    }

    /// Edit `e` on the input line `t`, by the pane whose text it is.
    pub(super) fn edit_input(&mut self, t: InputTarget, e: input::Edit) {
        match t {
            InputTarget::RunsFilter => self.runs.edit_filter(e, self.domain.ws()),
            InputTarget::EventsFilter => {
                self.live.edit_filter(e);
                deck!(self).fit();
            }
            InputTarget::NewCase => self.adding.typed_key(e),
        }
    }

    // The workspace's way in: the Domain installs it in the tabs, the changes and
    // the live pane decide what is followed; what each leaves for another, here.

    /// What an install left for the App: the catalog's host and max risk; the
    /// cursors kept in view.
    fn installed(&mut self, catalog: domain::Installed) -> Vec<Effect> {
        if let Some((host, risk)) = catalog {
            self.opts.host = host;
            self.launch.default_risk(risk);
        }
        deck!(self).fit();
        Vec::new()
    }

    /// A change of the watch applied to the model and the tabs: a followed run
    /// whose folder went ends first (its note on the status line), then the
    /// selection's run is shown again (a launch shown keeps the pane until
    /// the person moves on), a new run is announced or shown, the run shown
    /// that ended is read again; then the run records.
    fn workspace_changed(&mut self, mut ch: domain::Changed) -> Vec<Effect> {
        self.dirty = true;
        self.installed(ch.installed.take());
        let running = self.launch.running() > 0;
        let launching = running || self.live.launch().is_some();
        let note = self.live.end_deleted(&ch.removed, self.domain.ws());
        let mut fx: Vec<_> = note.iter().map(|_| Effect::StopFollow).collect();
        self.notice = note.or(self.notice.take());
        if !launching {
            fx.extend(self.selection_changed());
        }
        let how = (
            running,
            ch.fresh.as_deref().is_some_and(|p| self.launch.covers(p)),
        );
        fx.extend(answer!(self.changes, |c, cx| c.new_run(&ch, how, &mut cx)).1);
        let ended = Some(ch.applied.ended_runs.as_slice());
        fx.extend(answer!(self.changes, |c, cx| c.reread_ended(ended, &mut cx)).1);
        fx.extend(self.live.stop_following_ended(self.domain.ws()));
        fx.extend(ch.records);
        fx
    }

    /// The live pane follows the run the selection wants now.
    pub(super) fn selection_changed(&mut self) -> Vec<Effect> {
        let want = selection::wanted_run(&self.shared());
        self.live.show_wanted(want, |w| record_data(&self.runs, w))
    }

    /// The records changed (read again, or a verdict given): the Runs rows, and the
    /// live pane when it shows one of them, show what they hold now.
    pub(super) fn records_changed(&mut self) {
        self.runs.refilter_in(self.domain.ws());
        self.live.records_read(|w| record_data(&self.runs, w));
    }

    // Read access for the shell, the views and the tests: the state itself is private.

    /// The keymap keys are resolved in.
    pub fn keymap(&self) -> &Keymap {
        &self.keymap
    }

    /// The workspace loaded, how far its load is, the finder's candidates.
    pub fn domain(&self) -> &domain::Domain {
        &self.domain
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

    /// The contract badges' checks.
    pub fn contract(&self) -> &contract::Contract {
        &self.contract
    }

    /// The terminal's picture protocol and the screenshot encoded for it.
    pub fn graphics(&self) -> &crate::graphics::Graphics {
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
    pub fn set_graphics(&mut self, g: crate::graphics::Graphics) {
        self.graphics = g;
        self.show_pictures();
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
