//! `Effect`: the work `App::update` asks the runtime for; its result comes back
//! as an `Action`.

use crate::action::Action;
use crate::feature_work::FeatureWork;

/// Work the runtime does for the app; its result comes back as an `Action`.
#[derive(Debug)]
pub enum Effect {
    /// Read a run folder (relative path) → `Action::RunLoaded`.
    LoadRun(String),
    /// Follow the in-progress run `path` → `Action::FollowQueued`s until its
    /// `meta.json` reads: with the follower that loaded it, from where loading
    /// stopped, or (`None`: a launch's case whose folder was just found) from
    /// its timeline's first line. The one way a run's events reach the pane.
    Follow {
        path: String,
        follower: Option<Box<testdeck_core::tail::Follower>>,
    },
    /// Stop following.
    StopFollow,
    /// Index the whole workspace again (the person's `reload`, or changes the
    /// model cannot apply one by one) → `Action::Loaded`.
    Reload,
    /// Read these run folders (relative paths) as they are now → `Action::Changed`,
    /// applied as the workspace watch's changes are: a launch's end and a followed
    /// run's end read the runs they know of, not the whole workspace.
    ReadRuns(Vec<String>),
    /// Read the catalog's run records again (another process wrote one) →
    /// `Action::Records`.
    ReadRecords,
    /// Start a program (an artifact opener) detached: argv, the file last.
    Spawn(Vec<String>),
    /// Remove the private copy `.0` made for an opener that will not run (its
    /// folder, which holds only it).
    Discard(std::path::PathBuf),
    /// Remember that the person trusts `argv` as the `slot` opener of the
    /// workspace's `testdeck.toml` (in the trust file of `places`) →
    /// `Action::Notice`, which says whether it was remembered (the opener of
    /// `shown` runs either way).
    Trust {
        places: testdeck_core::workspace::openers::UserDirs,
        slot: testdeck_core::workspace::openers::OpenerKind,
        argv: Vec<String>,
        shown: String,
    },
    /// Launch a plan through the exec engine as launch number `index`.
    Launch {
        index: usize,
        plan: Box<testdeck_exec::LaunchPlan>,
        ctx: Box<testdeck_exec::LaunchContext>,
    },
    /// Cancel every launch in flight.
    Cancel,
    /// Record a person's verdict in launch `index`'s run record.
    Judge {
        index: usize,
        case_id: String,
        verdict: testdeck_exec::record::Verdict,
        note: Option<String>,
    },
    /// A feature's background work (`tui::feature_work`) → `Action::WorkDone`.
    Work(FeatureWork),
    /// Put `.0` back on the loop's channel, behind what waits there (the rest of
    /// a launch's queue, after the keys that came meanwhile).
    Requeue(Box<Action>),
    /// Suspend the terminal and open a file in the person's editor (`E`).
    Edit(EditTarget),
    /// Put a string testdeck built on the terminal's clipboard (OSC 52).
    Copy(String),
    Quit,
}

/// A file relative to the workspace root, and its line when known (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditTarget {
    pub file: String,
    pub line: Option<u32>,
}

impl EditTarget {
    /// `file` at `line`; a line 0 is no line.
    pub(in crate::app) fn at(file: &str, line: Option<u32>) -> EditTarget {
        EditTarget {
            file: file.to_owned(),
            line: line.filter(|l| *l > 0),
        }
    }
}
