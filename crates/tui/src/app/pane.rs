//! What a pane is to the App: a [`Component`] owns its state and answers the events
//! it subscribes to through a [`Ctx`] — the shared state, read-only, and its
//! two outputs: the effects it asks the runtime for, and the events it
//! publishes to the others. (The three tabs are one list
//! pane: `list::ListPane`.)

use super::super::action::Command;
use super::{
    CaseRef, CaseRow, CatalogTab, Effect, InputTarget, Live, Options, Overlay, Pane, RunsTab,
    Screen, Tab, TestsTab, TreeNode,
};
use std::collections::BTreeSet;
use std::path::Path;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::logs::RunStatus;

/// What the App publishes to the panes that subscribe to it.
#[derive(Debug, Clone)]
pub enum Published {
    /// An action was applied (before anything else looks at what it changed).
    Acted,
    /// An action changed something (what the hooks after every action were).
    Changed,
    /// The whole workspace was read again (a load, the end of the history).
    Reloaded,
    /// A component wants the tests tree's cursor on case `key` (the App moves it).
    Select(String),
    // What a component asks of the App, which routes it to the owner (the
    // router's queue, applied in order once the component has answered):
    /// The status line says this.
    Say(String),
    /// The status line says nothing.
    Hush,
    /// An overlay over the panes (in place of the one there).
    Open(Box<Overlay>),
    /// A full screen over the panes (in place of the one there).
    Show(Box<Screen>),
    /// A full screen over the one shown, which is back when it closes.
    ShowOver(Box<Screen>),
    /// The full screen shown closes.
    CloseScreen,
    /// The input line edits `InputTarget`.
    Edit(InputTarget),
    /// The input line is done.
    StopEditing,
    /// Tab `Tab` shown, its tree focused.
    Tab(Tab),
    /// The keys go to pane `Pane`.
    Focus(Pane),
    /// The cursor on case `CaseRef`, in its own tab.
    SelectCase(CaseRef),
    /// The selection may want another run: the live pane follows it.
    Reselect,
    /// The panes' cursors kept in view (a list's rows changed).
    Refit,
    /// The marks are these.
    Marks(BTreeSet<CaseRef>),
    /// The cockpit ends.
    Quit,
    // Between the components (routed by the App to the owner):
    /// Ask the next question of a launch, or launch it (the launch's own).
    AskOrLaunch(Box<super::prompt::Asking>),
    /// Run folder `path` is one of launch `index`'s (the workspace changes').
    RunLaunched { index: usize, path: String },
    /// Launch `index` ended; it wrote a run record (the workspace changes').
    LaunchEnded { index: usize, wrote_record: bool },
    /// The live pane's run `0` is read again once the index has it ended.
    RereadWhenEnded(String),
    /// A launch's case `0` started and the live pane shows it: a cursor on a
    /// case moves to it (the selection's).
    SelectLaunched(String),
    /// A tool failed: the problems list keeps what it said on stderr.
    Problem { said: String, stderr: Vec<String> },
    /// The cursor on run `run` of the workspace (the changes' `J`): the Tests
    /// tab's on its case `case` (the tab and the focus as they are); when
    /// `runs`, the Runs tab shown with its cursor on the run's row.
    CursorOnRun {
        case: Option<String>,
        run: usize,
        runs: bool,
    },
    /// The pictures the screen shown holds, after each change (the terminal's
    /// encoding of them follows: `Graphics`).
    Shown(Vec<crate::graphics::Picture>),
    /// Event `event` of launch `index` (a watch rerun's: `watch::WATCH_LAUNCH`),
    /// applied as a launch's (the launch's).
    LaunchEvent {
        index: usize,
        event: Box<testdeck_exec::ExecEvent>,
    },
    /// Screenshot `0` (beneath run folder `1`, `2` its path in the run) decoded to
    /// be drawn, once per file (the previews').
    Decode(std::path::PathBuf, std::path::PathBuf, String),
    /// The selected artifact goes to its opener (the opener's).
    OpenArtifact,
    /// A launch's questions are all answered: a `w`'s start the watch (the
    /// watch's), any other launches (the launch's).
    Authorized(Box<super::prompt::Asking>),
    /// What the live pane shows of a launch (the live pane's).
    Live(Box<super::live::launch::Shown>),
    /// Launch `index` writes run record `run_id` (the Runs tab's).
    RecordLaunched { index: usize, run_id: String },
    /// A person gave verdict `1` to the case of `0`: its run record's row
    /// changes now (the Runs tab's).
    Judged(Box<super::prompt::Judging>, testdeck_exec::record::Verdict),
}

/// The state every pane may read: the workspace and the panes the others
/// look at. Nothing in it can be changed through it.
#[derive(Clone, Copy)]
pub struct Shared<'a> {
    pub root: &'a Path,
    pub ws: Option<&'a Workspace>,
    /// The history is still being indexed.
    pub indexing: bool,
    /// An overlay or the input line has the keys: a question waits its turn.
    pub asking: bool,
    /// The theme's background, which pictures are blended on.
    pub picture_background: [u8; 3],
    pub tab: Tab,
    /// Rows of the tabs' pane.
    pub tree_height: usize,
    pub tests: &'a TestsTab,
    pub catalog: &'a CatalogTab,
    pub runs: &'a RunsTab,
    pub live: &'a Live,
    /// The options the shell passed in.
    pub opts: &'a Options,
    /// Where the person's own openers and remembered trust are.
    pub opener_places: &'a testdeck_core::workspace::openers::UserDirs,
    /// The pane with the keys.
    pub focus: Pane,
    /// The terminal's size (columns, rows).
    pub size: (u16, u16),
    /// Marked cases of both sources.
    pub marks: &'a BTreeSet<CaseRef>,
    /// What the finder matches.
    pub candidates: &'a [super::Candidate],
    /// Runs under way: the launches' and watch mode's reruns.
    pub runs_live: usize,
    /// What the status line says.
    pub notice: Option<&'a str>,
}

impl<'a> Shared<'a> {
    /// The tree node under the Tests tab's cursor.
    pub fn selected_node(&self) -> Option<&'a TreeNode> {
        self.tests.selected_node()
    }

    /// The tests case under the Tests tab's cursor.
    pub fn selected_case(&self) -> Option<&'a CaseRow> {
        self.tests.selected_case()
    }

    /// The run folder of the selection when it failed: the selected case's latest
    /// run (Tests), the selected run (Runs).
    pub fn failed_run(&self) -> Option<&'a str> {
        let ws = self.ws?;
        let run = match self.tab {
            Tab::Tests => {
                let c = self.selected_case()?;
                (c.run_range.1 > c.run_range.0).then(|| &ws.logs.runs[c.run_range.1 - 1])?
            }
            Tab::Runs => self.runs.selected_run(ws)?,
            Tab::Catalog => return None,
        };
        (run.status == RunStatus::Failed).then_some(run.path.as_str())
    }

    /// The run tests case `c` shows when it is selected: the launch of it
    /// while one runs, else its latest run.
    pub fn case_run(&self, c: &CaseRow) -> Option<super::RunRef> {
        if self.live.launch() == Some(c.key.as_str()) {
            return self.live.wanted().cloned();
        }
        let ws = self.ws?;
        (c.run_range.1 > c.run_range.0)
            .then(|| super::RunRef::Folder(ws.logs.runs[c.run_range.1 - 1].path.clone()))
    }

    /// The run selected in the Runs tab.
    pub fn selected_run(&self) -> Option<&'a testdeck_core::workspace::logs::RawRun> {
        self.runs.selected_run(self.ws?)
    }

    /// The catalog case under the Catalog tab's cursor.
    pub fn selected_catalog_case(&self) -> Option<&'a testdeck_core::workspace::catalog::Case> {
        self.catalog.selected_case(self.ws?.catalog.as_ref()?)
    }
}

/// What a pane is handed when it answers: the shared state and its outputs.
pub struct Ctx<'a> {
    pub shared: Shared<'a>,
    effects: &'a mut Vec<Effect>,
    published: &'a mut Vec<Published>,
}

impl<'a> Ctx<'a> {
    pub fn new(
        shared: Shared<'a>,
        effects: &'a mut Vec<Effect>,
        published: &'a mut Vec<Published>,
    ) -> Ctx<'a> {
        Ctx {
            shared,
            effects,
            published,
        }
    }

    /// Tell the other components (and the App) `e`, once this event is answered.
    pub fn publish(&mut self, e: Published) {
        self.published.push(e);
    }

    /// What was published last while answering (a request to add to: a flood
    /// of lines is one request, not one a line).
    pub fn last_published(&mut self) -> Option<&mut Published> {
        self.published.last_mut()
    }

    /// Ask the runtime for `e`.
    pub fn effect(&mut self, e: impl IntoIterator<Item = Effect>) {
        self.effects.extend(e);
    }

    /// The status line says `m`.
    pub fn say(&mut self, m: impl Into<String>) {
        self.publish(Published::Say(m.into()));
    }

    /// The status line says nothing.
    pub fn hush(&mut self) {
        self.publish(Published::Hush);
    }

    /// Overlay `o` over the panes.
    pub fn open(&mut self, o: Overlay) {
        self.publish(Published::Open(Box::new(o)));
    }

    /// Full screen `s` over the panes.
    pub fn show(&mut self, s: Screen) {
        self.publish(Published::Show(Box::new(s)));
    }

    /// Full screen `s` over the one shown (back when it closes).
    pub fn show_over(&mut self, s: Screen) {
        self.publish(Published::ShowOver(Box::new(s)));
    }

    /// The full screen shown closes.
    pub fn close_screen(&mut self) {
        self.publish(Published::CloseScreen);
    }

    /// Tab `t` shown, its tree focused.
    pub fn tab(&mut self, t: Tab) {
        self.publish(Published::Tab(t));
    }

    /// The keys to pane `p`.
    pub fn focus(&mut self, p: Pane) {
        self.publish(Published::Focus(p));
    }

    /// The tests tree's cursor on `key` (a folder scope or `scope/caseId`).
    pub fn select(&mut self, key: impl Into<String>) {
        self.publish(Published::Select(key.into()));
    }

    /// The selection may want another run: the live pane follows it.
    pub fn reselect(&mut self) {
        self.publish(Published::Reselect);
    }

    /// The panes' cursors kept in view.
    pub fn refit(&mut self) {
        self.publish(Published::Refit);
    }
}

/// A pane or feature (a component) that owns its state and answers the events it subscribes
/// to; it changes nothing but itself, and asks for the rest through `cx`.
pub trait Component {
    /// The events this pane answers.
    fn subscribes(&self, e: &Published) -> bool;

    /// Event `e`, which it subscribed to.
    fn on_event(&mut self, e: &Published, cx: &mut Ctx);

    /// A command while the pane has the keys (`page`: its rows a page);
    /// whether it took it.
    fn command(&mut self, _c: Command, _page: isize, _cx: &mut Ctx) -> bool {
        false
    }
}
