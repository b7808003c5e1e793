//! The Action vocabulary: what a key, a mouse event, a timer or a background result asks the app to do.

use super::queue_handle::QueueHandle;
use crossterm::event::{KeyEvent, MouseEvent};
use testdeck_core::workspace::Workspace;

/// Sends an action to the app's loop (from any thread).
pub type ActionSink = std::sync::Arc<dyn Fn(Action) + Send + Sync>;

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
    /// Open every folder of the tree.
    ExpandAll,
    /// Close every folder of the tree.
    CollapseAll,
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
    /// Show / hide the runner's output lines in the live pane.
    ToggleOutput,
    ClearInput,
    Problems,
    MaxRisk,
    Report,
    /// The report screen: the report's update from the logs, as a diff.
    ReportUpdate,
    /// The report screen: write the draft or the update shown.
    Apply,
    Reload,
    Edit,
    CopyCaseId,
    CopyPath,
    CopyRunId,
    CopyCommand,
    /// Maximise the focused pane (again: back to the panes).
    Zoom,
    /// Widen / narrow the tree beside the other panes.
    WiderTree,
    NarrowerTree,
    /// Tick the checklist step under the cursor (a person's verdict prompt).
    ToggleStep,
    /// Bring temp cases into a rerun of the failed ones (its preview).
    IncludeTemp,
    /// Show section N (1-based) of the trace pane.
    Section(u8),
    /// The failure view of the selected case's latest run / the selected run.
    Why,
    /// Scroll the live pane's rows sideways (`<` left, `>` right).
    ScrollLeft,
    ScrollRight,
    /// The Insights screen: the ranked lists of the history.
    Insights,
    /// Cycle the order of the tree's cases.
    Sort,
    /// Mark the cases that changed against git's `HEAD`.
    MarkChanged,
    /// Add a case in the selected folder (`testdeck new`).
    AddCase,
    /// Launch this session's last launch again.
    RunLast,
    /// Select the run another process started (the status line announced it).
    JumpRun,
    Noop,
}

/// Every command with its keymap name, in the order help lists them.
pub(crate) const COMMANDS: [(Command, &str); 68] = [
    (Command::Quit, "quit"),
    (Command::MoveDown, "move_down"),
    (Command::MoveUp, "move_up"),
    (Command::PageDown, "page_down"),
    (Command::PageUp, "page_up"),
    (Command::GoTop, "go_top"),
    (Command::GoBottom, "go_bottom"),
    (Command::Collapse, "collapse"),
    (Command::Expand, "expand"),
    (Command::ExpandAll, "expand_all"),
    (Command::CollapseAll, "collapse_all"),
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
    (Command::ToggleOutput, "toggle_output"),
    (Command::ClearInput, "clear_input"),
    (Command::Problems, "problems"),
    (Command::MaxRisk, "max_risk"),
    (Command::Report, "report"),
    (Command::ReportUpdate, "report_update"),
    (Command::Apply, "apply"),
    (Command::Reload, "reload"),
    (Command::Edit, "edit"),
    (Command::CopyCaseId, "copy_case_id"),
    (Command::CopyPath, "copy_path"),
    (Command::CopyRunId, "copy_run_id"),
    (Command::CopyCommand, "copy_command"),
    (Command::Zoom, "zoom"),
    (Command::WiderTree, "wider_tree"),
    (Command::NarrowerTree, "narrower_tree"),
    (Command::ToggleStep, "toggle_step"),
    (Command::IncludeTemp, "include_temp"),
    (Command::Section(1), "section_1"),
    (Command::Section(2), "section_2"),
    (Command::Section(3), "section_3"),
    (Command::Section(4), "section_4"),
    (Command::Why, "why"),
    (Command::ScrollLeft, "scroll_left"),
    (Command::ScrollRight, "scroll_right"),
    (Command::Insights, "insights"),
    (Command::Sort, "sort"),
    (Command::MarkChanged, "mark_changed"),
    (Command::AddCase, "add_case"),
    (Command::RunLast, "run_last"),
    (Command::JumpRun, "jump_run"),
    (Command::Noop, "noop"),
];

impl Command {
    /// The command a keymap's `run` names.
    pub(crate) fn from_name(name: &str) -> Option<Command> {
        COMMANDS.iter().find(|(_, n)| *n == name).map(|(c, _)| *c)
    }
    pub(crate) fn name(self) -> &'static str {
        COMMANDS
            .iter()
            .find(|(c, _)| *c == self)
            .map_or("noop", |(_, n)| n)
    }
}

pub use testdeck_core::tail::live_run::{
    MAX_RUN_PROBLEMS, MAX_TIMELINE_EVENTS, RunData, skipped_note,
};

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
    /// The walk of the tests tree found its first cases (the tree's first rows;
    /// the config and plan, no catalog, no history): show them now. More may
    /// come, then `TreeLoaded`.
    TreePart(Box<Workspace>),
    /// The tests tree, plan and catalog are read (history still indexing): show
    /// the tree now.
    TreeLoaded(Box<Workspace>),
    /// The staged index walked the history: `total` run folders are to be read
    /// (and the walk's problems).
    HistoryStarted {
        total: usize,
        problems: Vec<testdeck_core::problem::Problem>,
    },
    /// One domain's runs of the history, read.
    HistoryChunk(Box<testdeck_core::workspace::logs::Chunk>),
    /// The history cache's check against the folders: what differs from the
    /// cached history the app was handed (run folders gone, new or changed), and
    /// the problems of the walk of `tests/logs/`. Applied while the history is
    /// still indexing (before `HistoryDone`).
    HistoryVerified {
        updates: Vec<testdeck_core::workspace::changes::Update>,
        problems: Vec<testdeck_core::problem::Problem>,
    },
    /// The history cache's check found more changed than is worth applying
    /// change by change: the history whole as it is now (runs and the problems
    /// of `tests/logs/`), in place of the cached one.
    HistoryRebuilt(Box<testdeck_core::workspace::logs::Chunk>),
    /// The staged index read the whole history.
    HistoryDone,
    /// The workspace finished loading on its blocking task.
    Loaded(Box<Workspace>),
    /// The catalog's run records (`.pouch/tester/runs/*.yaml`), oldest first: the
    /// path relative to the root, and the record or why it cannot be read.
    Records(Vec<(String, Result<testdeck_exec::record::RunRecord, String>)>),
    LoadFailed(String),
    /// A run folder was read.
    RunLoaded(Box<RunData>),
    /// What the follow of run `.0` read waits in its queue (one such action is
    /// pending at a time, however fast the timeline grows): the one way a
    /// run's events reach the live pane, whoever started the run.
    FollowQueued(String, QueueHandle<super::follow_queue::FollowQueue>),
    /// A message for the status bar (e.g. an opener failed).
    Notice(String),
    /// A program testdeck started (an opener) failed: what the status line says
    /// and its stderr lines (escaped), which the problems list keeps.
    ToolFailed {
        said: String,
        stderr: Vec<String>,
    },
    /// Text to show in an overlay (a run comparison).
    ShowText {
        title: String,
        text: String,
    },
    /// Events of launch `.0` wait in its queue (one such action is pending at a
    /// time, however much the launch sends): its lifecycle and the runner's
    /// output, never its runs' timelines (those come by `FollowQueued`).
    ExecQueued(usize, QueueHandle<super::launch_queue::LaunchQueue>),
    /// SIGTERM / SIGHUP / SIGINT: end now.
    Terminate,
    /// A result of a feature's background work (`tui::job`).
    WorkDone(Box<super::feature_work::FeatureResult>),
    /// The workspace watch read what changed on disk (see `workspace::changes`).
    Changed(Vec<testdeck_core::workspace::changes::Update>),
    /// The workspace watch says what it cannot watch (past its budget it polls):
    /// once, for the problems list, not the status line.
    WatchProblems(Vec<testdeck_core::problem::Problem>),
}
