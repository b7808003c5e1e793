//! The command router: a command goes to the overlay, the screen or the input
//! that has the keys, else to the panes' command table.

use super::{
    App, Command, Effect, Finder, InputTarget, Overlay, Pane, Prompt, Tab, clipboard, features,
};

impl App {
    pub(super) fn command(&mut self, c: Command) -> Vec<Effect> {
        // before the overlay takes the key: `E` on the problems list opens the problem
        if c == Command::Edit {
            return match self.edit_target() {
                Ok(t) => vec![Effect::Edit(t)],
                Err(why) => {
                    self.notice = Some(why);
                    Vec::new()
                }
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
                self.layers.put(o.scrolled(c, self.help_len(), self.size));
                return Vec::new();
            }
            Some(Overlay::Prompt(Prompt::TrustOpener(t))) => {
                return self.answer_with(|cx| super::opener::trust_command(*t, c, cx));
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
        self.pane_command(c)
    }

    /// A command while a filter or a new case's name is being typed.
    fn input_command(&mut self, target: InputTarget, c: Command) -> Vec<Effect> {
        match c {
            Command::Confirm if target == InputTarget::NewCase => {
                self.layers.stop_editing();
                return answer!(self.adding, |a, cx| a.confirm(&mut cx)).1;
            }
            Command::Close if target == InputTarget::NewCase => {
                self.layers.stop_editing();
                self.adding.cancel();
            }
            Command::Close => {
                self.layers.stop_editing();
                self.edit_input(target, super::input::Edit::Clear);
            }
            Command::Confirm => self.layers.stop_editing(),
            Command::ClearInput => {
                self.edit_input(target, super::input::Edit::Clear);
            }
            _ => {}
        }
        self.selection_changed()
    }

    /// A command for the panes, once no overlay, screen or input took it: the
    /// command table.
    #[expect(
        clippy::too_many_lines,
        reason = "the command table: one arm per command, each a line or two"
    )]
    fn pane_command(&mut self, c: Command) -> Vec<Effect> {
        self.notice = None;
        let page = (self.size.1 / 2).max(1) as isize;
        match c {
            Command::Quit => {
                if self.launch.running() > 0 || self.watch.reruns() > 0 {
                    self.layers.open(Overlay::Prompt(Prompt::QuitLive));
                    return Vec::new();
                }
                self.quit = true;
                return vec![Effect::Quit];
            }
            Command::MoveDown
            | Command::MoveUp
            | Command::PageDown
            | Command::PageUp
            | Command::GoTop
            | Command::GoBottom => {
                let mut fx = self.focused_key(c, page);
                fx.extend(self.selection_changed());
                return fx;
            }
            Command::Collapse => self.collapse(),
            Command::Expand => self.expand(),
            Command::ExpandAll | Command::CollapseAll => self.fold_all(c == Command::ExpandAll),
            Command::Open => return self.open(),
            Command::NextPane | Command::PrevPane => self.cycle_pane(c == Command::NextPane),
            Command::TabTests => self.set_tab(Tab::Tests),
            Command::TabCatalog => self.set_tab(Tab::Catalog),
            Command::TabRuns => self.set_tab(Tab::Runs),
            Command::Find => {
                let mut f = Finder::default();
                f.refind(self.domain.candidates());
                self.layers.open(Overlay::Finder(f));
            }
            Command::Filter => {
                if self.tab == Tab::Runs && self.focus == Pane::Tree {
                    self.layers.edit(InputTarget::RunsFilter);
                } else {
                    self.live.filter_events();
                    self.layers.edit(InputTarget::EventsFilter);
                    self.focus = Pane::Live;
                }
            }
            Command::Mark => {
                if let Some(keys) = super::targets::to_mark(&self.shared()) {
                    super::targets::toggle(&mut self.marks, keys);
                    self.move_by(1);
                }
            }
            Command::Follow
            | Command::FailuresOnly
            | Command::CycleType
            | Command::ToggleEvents
            | Command::ToggleOutput => {
                self.live.handle(c, page, self.focus == Pane::Live);
                // a filter changes the row count: the window re-fitted to it
                self.clamp();
            }
            Command::ScrollLeft | Command::ScrollRight => {
                if !self.live.handle(c, page, self.has_keys(Pane::Live)) {
                    self.notice = Some("< and > scroll the timeline sideways: Tab to it".into());
                }
            }
            Command::NextFailure | Command::PrevFailure => {
                self.jump_failure(c == Command::NextFailure);
            }
            Command::OpenArtifact => return self.answer_with(super::opener::open),
            Command::PreviewImage => return answer!(self, |cx| features::open_preview(&mut cx)).1,
            Command::Help => self.layers.open(Overlay::Help { scroll: 0 }),
            Command::Problems => return answer!(self.problems, |p, cx| p.open(&mut cx)).1,
            Command::Close => {
                self.marks.clear();
                self.live.clear_filters();
                self.clamp();
            }
            Command::Run => return answer!(self.launch, |l, cx| l.start_launch(&mut cx)).1,
            Command::Cancel => return answer!(self.launch, |l, cx| l.handle(c, &mut cx)).1,
            Command::MaxRisk => _ = answer!(self.launch, |l, cx| l.handle(c, &mut cx)),
            Command::Watch => return answer!(self.watch, |w, cx| w.toggle(&self.launch, &mut cx)).1,
            Command::RerunFailed if self.domain.ws().is_none() => {
                self.notice = Some("still indexing".into());
                return Vec::new();
            }
            Command::RerunFailed => return answer!(self.launch, |l, cx| l.rerun_failed(&mut cx)).1,
            Command::Compare => return answer!(self.compare, |p, cx| p.selected(&mut cx)).1,
            Command::Report => return answer!(self, |cx| features::open_report(&mut cx)).1,
            Command::Why => return answer!(self.why, |w, cx| w.open(&mut cx)).1,
            Command::Insights => {
                let mut fx = answer!(self, |cx| features::open_insights(&mut cx)).1;
                fx.extend(self.selection_changed());
                return fx;
            }
            Command::Sort => {
                let s = self.tests.cycle_sort();
                self.tab = Tab::Tests;
                self.notice = Some(format!("tree sorted by {}", s.name()));
            }
            Command::MarkChanged => {
                let (notice, fx) = super::insights::ask_changed(self.domain.ws().is_some());
                self.notice = Some(notice);
                return fx.into_iter().collect();
            }
            Command::AddCase => {
                let ((), fx) = answer!(self.adding, |a, cx| a.start(&mut cx));
                return fx.into_iter().chain(self.selection_changed()).collect();
            }
            Command::RunLast => return answer!(self.launch, |l, cx| l.run_last(&mut cx)).1,
            Command::JumpRun => return answer!(self.changes, |c, cx| c.jump_to_announced(&mut cx)).1,
            Command::Reload => {
                self.why.forget();
                self.notice = Some("reading the workspace again…".into());
                return vec![Effect::Reload];
            }
            Command::Zoom => {
                self.sizing.zoom = !self.sizing.zoom;
                self.clamp();
            }
            Command::WiderTree | Command::NarrowerTree => {
                let step = if c == Command::WiderTree { 5 } else { -5 };
                self.sizing.widen(step, self.size);
                self.clamp();
            }
            // handled before the overlays (`command`'s first lines)
            Command::Edit
            | Command::CopyCaseId
            | Command::CopyPath
            | Command::CopyRunId
            | Command::CopyCommand
            | Command::Confirm
            | Command::ClearInput
            | Command::ToggleStep
            | Command::IncludeTemp
            | Command::Section(_)
            // the report screen's own (handled with the screens)
            | Command::ReportUpdate
            | Command::Apply
            | Command::Noop => {}
        }
        self.selection_changed()
    }

    /// Tab / Shift-Tab: the focus to the next (or previous) pane shown.
    fn cycle_pane(&mut self, next: bool) {
        let panes = self.panes();
        let i = panes.iter().position(|p| *p == self.focus).unwrap_or(0);
        let n = panes.len();
        let j = if next { (i + 1) % n } else { (i + n - 1) % n };
        self.focus = panes[j];
    }

    /// `n` / `N`: the timeline's next (or previous) failure, focused.
    fn jump_failure(&mut self, next: bool) {
        match self.live.jump_failure(next) {
            Some(true) => {
                self.focus = Pane::Live;
                self.clamp();
            }
            Some(false) => self.notice = Some("no more failures".into()),
            None => {}
        }
    }
}
