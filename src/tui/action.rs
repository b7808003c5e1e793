//! The Action vocabulary: what a key, a mouse event, a timer or a background result asks the app to do.

use crate::tail::Follower;
use crate::workspace::Workspace;
use crate::workspace::logs::Artifact;
use crate::workspace::timeline::TimelineEvent;
use crossterm::event::{KeyEvent, MouseEvent};
use std::collections::VecDeque;

/// A command a key can be bound to. `name()` is its keymap spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command {
    Quit,
    MoveDown,
    MoveUp,
    PageDown,
    PageUp,
    GoTop,
    GoBottom,
    Collapse,
    Expand,
    NextPane,
    PrevPane,
    TabTests,
    TabCatalog,
    TabRuns,
    Find,
    Mark,
    Run,
    Cancel,
    Follow,
    FailuresOnly,
    CycleType,
    NextFailure,
    PrevFailure,
    Open,
    OpenArtifact,
    PreviewImage,
    Watch,
    RerunFailed,
    Compare,
    Help,
    Close,
    Confirm,
    Filter,
    ToggleEvents,
    ClearInput,
    Problems,
    MaxRisk,
    Report,
    Noop,
}

/// Every command with its keymap name, in the order help lists them.
pub const COMMANDS: [(Command, &str); 39] = [
    (Command::Quit, "quit"),
    (Command::MoveDown, "move_down"),
    (Command::MoveUp, "move_up"),
    (Command::PageDown, "page_down"),
    (Command::PageUp, "page_up"),
    (Command::GoTop, "go_top"),
    (Command::GoBottom, "go_bottom"),
    (Command::Collapse, "collapse"),
    (Command::Expand, "expand"),
    (Command::NextPane, "next_pane"),
    (Command::PrevPane, "prev_pane"),
    (Command::TabTests, "tab_tests"),
    (Command::TabCatalog, "tab_catalog"),
    (Command::TabRuns, "tab_runs"),
    (Command::Find, "find"),
    (Command::Mark, "mark"),
    (Command::Run, "run"),
    (Command::Cancel, "cancel"),
    (Command::Follow, "follow"),
    (Command::FailuresOnly, "failures_only"),
    (Command::CycleType, "cycle_type"),
    (Command::NextFailure, "next_failure"),
    (Command::PrevFailure, "prev_failure"),
    (Command::Open, "open"),
    (Command::OpenArtifact, "open_artifact"),
    (Command::PreviewImage, "preview_image"),
    (Command::Watch, "watch"),
    (Command::RerunFailed, "rerun_failed"),
    (Command::Compare, "compare"),
    (Command::Help, "help"),
    (Command::Close, "close"),
    (Command::Confirm, "confirm"),
    (Command::Filter, "filter"),
    (Command::ToggleEvents, "toggle_events"),
    (Command::ClearInput, "clear_input"),
    (Command::Problems, "problems"),
    (Command::MaxRisk, "max_risk"),
    (Command::Report, "report"),
    (Command::Noop, "noop"),
];

impl Command {
    /// The command a keymap's `run` names.
    pub fn from_name(name: &str) -> Option<Command> {
        COMMANDS.iter().find(|(_, n)| *n == name).map(|(c, _)| *c)
    }
    pub fn name(self) -> &'static str {
        COMMANDS
            .iter()
            .find(|(c, _)| *c == self)
            .map_or("noop", |(_, n)| n)
    }
}

/// The most timeline events kept for one run: the last ones, since the live pane
/// follows the end (tens of MB at most; the rest are counted in `RunData::skipped`).
pub const MAX_TIMELINE_EVENTS: usize = 50_000;
/// The most problem lines kept for one run; the rest are only counted.
pub const MAX_RUN_PROBLEMS: usize = 1_000;

/// What a loaded run folder holds for the live, events and artifacts panes.
#[derive(Debug, Default)]
pub struct RunData {
    /// The run folder, relative to the workspace root.
    pub path: String,
    /// The timeline's events, at most the last few (see [`RunData::append`]): the
    /// live pane follows the end, and a 1 GB timeline must not fill the memory.
    pub events: VecDeque<TimelineEvent>,
    /// How many earlier lines of the timeline were not loaded, or dropped, to keep that bound.
    pub skipped: u64,
    pub artifacts: Vec<Artifact>,
    /// `runtime-events.jsonl`, one pretty-printed JSON document per line of the file.
    pub runtime_events: Vec<String>,
    /// Located problems met while reading, as text (at most [`MAX_RUN_PROBLEMS`]).
    pub problems: Vec<String>,
    /// Problems met beyond [`MAX_RUN_PROBLEMS`], only counted.
    pub problems_skipped: u64,
    /// No `meta.json` yet: the run is in progress and is followed.
    pub in_progress: bool,
    /// The tail follower that read the timeline, stopped where reading stopped:
    /// following an in-progress run goes on with this very follower, so no line is
    /// read twice or missed between loading and following.
    pub follower: Option<Box<Follower>>,
}

impl RunData {
    /// Apply what the tail engine read: `reset` (the file was truncated or
    /// replaced) drops what was shown first; then `events` are appended, keeping
    /// the last `cap` and counting the dropped ones in `skipped`.
    pub fn append(
        &mut self,
        reset: bool,
        events: impl IntoIterator<Item = TimelineEvent>,
        problems: impl IntoIterator<Item = String>,
        cap: usize,
    ) {
        if reset {
            self.events.clear();
            self.skipped = 0;
        }
        for ev in events {
            self.events.push_back(ev);
            if self.events.len() > cap {
                self.events.pop_front();
                self.skipped += 1;
            }
        }
        for p in problems {
            self.push_problem(p);
        }
    }

    /// Keep a problem line, or only count it past [`MAX_RUN_PROBLEMS`].
    pub fn push_problem(&mut self, p: String) {
        if self.problems.len() < MAX_RUN_PROBLEMS {
            self.problems.push(p);
        } else {
            self.problems_skipped += 1;
        }
    }

    /// The problem lines to show, with a line for each bound that was reached.
    /// Not escaped: the caller escapes them for the screen.
    pub fn problem_lines(&self) -> Vec<String> {
        let mut lines = Vec::with_capacity(self.problems.len() + 2);
        if self.skipped > 0 {
            lines.push(skipped_note(self.skipped, self.events.len()));
        }
        lines.extend(self.problems.iter().cloned());
        if self.problems_skipped > 0 {
            lines.push(format!(
                "… and {} more problems not kept",
                self.problems_skipped
            ));
        }
        lines
    }
}

/// The notice for a timeline whose first events were not loaded.
pub fn skipped_note(skipped: u64, kept: usize) -> String {
    format!(
        "timeline.jsonl: {skipped} earlier lines not loaded (only the last {kept} events are kept)"
    )
}

/// Everything that reaches `App::update`.
#[derive(Debug)]
pub enum Action {
    /// A bound command.
    Cmd(Command),
    /// A key no binding of the mode claimed (text input for the finder and filters).
    Key(KeyEvent),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// A timer tick while something animates (indexing spinner).
    Tick,
    /// The tests tree and plan are read (history still indexing): show the tree now.
    TreeLoaded(Box<Workspace>),
    /// The workspace finished loading on its blocking task.
    Loaded(Box<Workspace>),
    /// The catalog's run records (`.pouch/tester/runs/*.yaml`), oldest first: the
    /// path relative to the root, and the record or why it cannot be read.
    Records(Vec<(String, Result<crate::exec::record::RunRecord, String>)>),
    LoadFailed(String),
    /// A run folder was read.
    RunLoaded(Box<RunData>),
    /// What the tail engine read next in the followed run's (`path`) timeline:
    /// `reset` when the file was truncated or replaced (the events shown so far
    /// are gone; `events` come from the new file's first line), `finished` when
    /// `meta.json` appeared and this was the last of it.
    TimelineAppend {
        path: String,
        reset: bool,
        events: Vec<TimelineEvent>,
        problems: Vec<String>,
        finished: bool,
    },
    /// A message for the status bar (e.g. an opener failed).
    Notice(String),
    /// Text to show in an overlay (a run comparison).
    ShowText {
        title: String,
        text: String,
    },
    /// An event of launch number `.0` (from the exec engine's threads).
    Exec(usize, Box<crate::exec::ExecEvent>),
    /// SIGTERM / SIGHUP / SIGINT: end now.
    Terminate,
    /// A result of watch, compare, report, contract or preview work (`tui::extras`).
    Extra(Box<super::extras::Done>),
}
