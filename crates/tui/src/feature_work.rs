//! Background work of the cockpit's features (watch, compare, report, contract badges,
//! screenshot previews, traces, failure digests): what the app asks for (`FeatureWork`) and what comes back (`FeatureResult`).
//! Plain data over core types, so the app, the actions and the runtime share it
//! without importing one another.

use std::path::PathBuf;
use std::sync::Arc;
use testdeck_core::workspace::adopt::Adoption;
use testdeck_core::workspace::diff::RunDiff;
use testdeck_core::workspace::logs::RawRun;
use testdeck_core::workspace::new_case::NewCase;
use testdeck_core::workspace::report::{Draft, Update};
use testdeck_core::workspace::trace::{Frame, Trace};
use testdeck_exec::watch_mode::{WatchEvent, WatchOptions};

/// Work for the features, done off the UI thread (`tui::runtime`).
#[derive(Debug, Clone)]
pub enum FeatureWork {
    /// (Re)start watching with these options (generation `.0`); `None`: stop watching.
    Watch(u64, Option<Box<WatchOptions>>),
    /// Compare two run folders (relative to the root).
    Compare { a: String, b: String },
    /// Read `tests/report/<domain>/report.md`.
    Report { domain: String },
    /// The domain's report brought back to the logs (`report --update`), as a diff.
    ReportUpdate { domain: String },
    /// Write a report's draft (where none is) or its update (`y`).
    ReportWrite(Box<ReportWrite>),
    /// The contract checks of these runs.
    Contract(Vec<RawRun>),
    /// Decode a screenshot (`file`: inside its run folder `within`, opened beneath
    /// it; `label`: its run-relative path).
    Preview {
        file: PathBuf,
        within: PathBuf,
        label: String,
        background: [u8; 3],
    },
    /// Read a Playwright trace (`file`: inside its run folder `within`; `label`: its
    /// run-relative path, which its problems carry).
    Trace {
        file: PathBuf,
        within: PathBuf,
        label: String,
    },
    /// Decode a screencast frame of the trace `file` (read: its bytes in memory).
    TraceFrame {
        file: PathBuf,
        trace: Arc<Trace>,
        frame: Frame,
        background: [u8; 3],
    },
    /// The failure digest of a run folder (relative to the root): `W` and the
    /// details' summary of a failed run.
    Digest { run: String },
    /// What `testdeck validate` finds in the workspace on disk (`p`).
    Validate,
    /// When each case's own files changed (`ChangeTimes::files`): the stale badges.
    ChangeTimes { files: Vec<(String, Vec<String>)> },
    /// The cases that differ from git's `HEAD` (`C`), as `--changed` finds them.
    Changed,
    /// `a`: check `testdeck new <target>` and write its plan entry (step one).
    NewCasePlan { target: String },
    /// `a`, step two (after the editor, when one is set): the test file.
    NewCaseFile(Box<NewCase>),
    /// `a` on a temp case: check `testdeck adopt <file> --to <to>` and write its
    /// plan entry (step one).
    AdoptPlan { file: String, to: String },
    /// `a` on a temp case, step two: the file moved (imports rewritten), its runs.
    AdoptMove(Box<Adoption>),
    /// The whole `meta.json` of the run the details show (the index keeps its summary).
    RunMeta(Box<RawRun>),
    /// `o`: an artifact handed to its opener → `FeatureResult::Opened`.
    Open(Box<OpenArtifact>),
}

/// `o` on an artifact: which opener runs for it is decided (the workspace's
/// `testdeck.toml`, the person's own config and remembered trust are read),
/// and the opener is handed a private copy of it, checked beneath its run
/// folder as it is copied.
#[derive(Debug, Clone)]
pub struct OpenArtifact {
    pub slot: testdeck_core::workspace::openers::OpenerKind,
    /// The artifact (absolute) and as shown (run-relative).
    pub file: PathBuf,
    pub shown: String,
    /// Its run folder, which the copy is read beneath.
    pub within: PathBuf,
    /// Where the person's own openers and remembered trust are.
    pub places: testdeck_core::workspace::openers::UserDirs,
}

/// What `o` led to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opening {
    /// The opener to start: its argv, the private copy (absolute) last.
    Run(Vec<String>),
    /// The workspace's own opener `argv`, named by `file`, is not trusted
    /// yet: the person is asked; `target` is the private copy it would open.
    Ask {
        argv: Vec<String>,
        file: PathBuf,
        target: String,
    },
    /// An opener set to `[]` (the copy removed again).
    Nothing,
    /// Why it was not opened (the artifact refused as it was copied).
    Refused(String),
}

/// What `y` writes in the report view: what the person saw.
#[derive(Debug, Clone)]
pub enum ReportWrite {
    Draft(Draft),
    Update(Update),
}

/// What a `FeatureWork` gives back.
#[derive(Debug)]
pub enum FeatureResult {
    /// An event of the watch of generation `generation`.
    Watch {
        generation: u64,
        event: Box<WatchEvent>,
    },
    /// The watch of generation `generation` ended (with the reason when it failed).
    WatchEnded {
        generation: u64,
        error: Option<String>,
    },
    Compare(Result<Box<RunDiff>, String>),
    Report {
        domain: String,
        file: String,
        text: Result<String, String>,
    },
    /// The domain has no report: its draft from the logs (or why none).
    ReportDraft {
        domain: String,
        draft: Result<Box<Draft>, String>,
    },
    /// The update of a domain's report.
    ReportUpdate(Result<Box<Update>, String>),
    /// A draft or an update written (what to say), or why not.
    ReportWritten {
        domain: String,
        result: Result<String, String>,
    },
    /// (run folder, number of contract warnings).
    Contract(Vec<(String, usize)>),
    Preview {
        file: PathBuf,
        preview: Result<super::image::Preview, String>,
    },
    /// The trace `file` read (or its located problem), and the workspace root as
    /// the kernel spells it (the trace's source paths are resolved ones).
    Trace {
        file: PathBuf,
        trace: Result<Arc<Trace>, String>,
        root_real: Option<PathBuf>,
    },
    /// A screencast frame of the trace `file` decoded.
    TraceFrame {
        file: PathBuf,
        entry: String,
        preview: Result<super::image::Preview, String>,
    },
    /// The failure digest of run folder `run`.
    Digest {
        run: String,
        digest: Box<testdeck_core::workspace::failure::Digest>,
    },
    /// What `validate` found, or why the workspace could not be read.
    Validate(Result<Vec<testdeck_core::problem::Problem>, String>),
    /// When each case's files changed.
    ChangeTimes(Box<testdeck_core::workspace::insights::ChangeTimes>),
    /// What differs from `HEAD`, or why git could not say.
    Changed(Result<testdeck_core::workspace::changed::Changed, String>),
    /// The plan entry written (or why not), and whether a person's editor is set
    /// (`$VISUAL` / `$EDITOR`) to open it in before the test file is written.
    NewCasePlanned {
        case: Result<Box<NewCase>, String>,
        editor: bool,
    },
    /// The test file written, or why not.
    NewCaseWritten(Result<Box<NewCase>, String>),
    /// Adopting: the plan entry written (or why not), and whether an editor is set.
    AdoptPlanned {
        adoption: Result<Box<Adoption>, String>,
        editor: bool,
    },
    /// Adopting: the file and its runs moved, or why not.
    AdoptDone(Result<Box<Adoption>, String>),
    /// The whole `meta.json` of run folder `run` (`None`: it does not read).
    RunMeta {
        run: String,
        meta: Option<Box<testdeck_core::workspace::logs::Meta>>,
    },
    /// What `o` on the artifact `job` led to.
    Opened {
        job: Box<OpenArtifact>,
        opening: Opening,
    },
}
