//! What a run folder without a readable `meta.json` is (SPEC §1.2): cancelled by
//! testdeck, abandoned, or in progress; every reader of the logs asks here.

use super::RunStatus;
use crate::workspace::run_folder::newest_write;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// What a run folder without a readable `meta.json` is, for the readers of the
/// logs: cancelled when testdeck recorded that it cancelled it, abandoned when
/// nothing in it was written for the configured time, in progress otherwise.
#[derive(Debug, Clone, Default)]
pub struct Judge {
    /// Run folders testdeck cancelled, relative to the root (see [`crate::workspace::cancelled`]).
    cancelled: BTreeSet<String>,
    /// `None`: a silent run is never judged abandoned.
    abandoned_after: Option<Duration>,
    now: Option<SystemTime>,
}

impl Judge {
    /// The judge of the workspace at `root`: its cancelled-run record and its
    /// `[runs] abandoned-after-minutes`.
    pub fn load(root: &Path, runs: &crate::workspace::config::Runs) -> Judge {
        Judge::new(
            crate::workspace::cancelled::load(root),
            runs.abandoned_after(),
        )
    }

    /// A judge of the runs in `cancelled` (run folders relative to the root) that
    /// calls a run abandoned when nothing in it was written for `abandoned_after`.
    pub fn new(cancelled: BTreeSet<String>, abandoned_after: Option<Duration>) -> Judge {
        Judge {
            cancelled,
            abandoned_after,
            now: Some(SystemTime::now()),
        }
    }

    /// The status of the run folder `dir` (`rel` to the root) that has no
    /// readable `meta.json`.
    pub fn unfinished(&self, rel: &str, dir: &Path) -> RunStatus {
        if self.cancelled.contains(rel) {
            return RunStatus::Cancelled;
        }
        let (Some(after), Some(now)) = (self.abandoned_after, self.now) else {
            return RunStatus::InProgress;
        };
        match newest_write(dir) {
            Some(t) if now.duration_since(t).is_ok_and(|quiet| quiet >= after) => {
                RunStatus::Abandoned
            }
            _ => RunStatus::InProgress,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::run_folder::TIMELINE;

    fn set_mtime(p: &Path, ago: Duration) {
        let f = std::fs::File::options().write(true).open(p).ok();
        let t = SystemTime::now() - ago;
        match f {
            Some(f) => f.set_modified(t).expect("mtime"),
            None => std::fs::File::open(p)
                .expect("dir")
                .set_modified(t)
                .expect("mtime"),
        }
    }

    #[test]
    fn a_silent_run_is_abandoned_a_recorded_one_cancelled_a_fresh_one_running() {
        let d = tempfile::tempdir().expect("tmp");
        let run = d.path().join("r");
        std::fs::create_dir(&run).expect("mkdir");
        std::fs::write(run.join(TIMELINE), "{}\n").expect("timeline");
        let ten = Some(Duration::from_secs(600));
        let judge = Judge::new(BTreeSet::new(), ten);
        assert_eq!(judge.unfinished("r", &run), RunStatus::InProgress);
        set_mtime(&run.join(TIMELINE), Duration::from_secs(3600));
        set_mtime(&run, Duration::from_secs(3600));
        assert_eq!(judge.unfinished("r", &run), RunStatus::Abandoned);
        // `0` minutes: never judged abandoned
        assert_eq!(
            Judge::new(BTreeSet::new(), None).unfinished("r", &run),
            RunStatus::InProgress
        );
        // one fresh file anywhere in it keeps it alive
        std::fs::create_dir(run.join("artifacts")).expect("mkdir");
        std::fs::write(run.join("artifacts/trace.zip"), "z").expect("w");
        set_mtime(&run.join("artifacts"), Duration::from_secs(3600));
        set_mtime(&run, Duration::from_secs(3600));
        assert_eq!(judge.unfinished("r", &run), RunStatus::InProgress);
        let cancelled = Judge::new(BTreeSet::from(["r".to_owned()]), ten);
        assert_eq!(cancelled.unfinished("r", &run), RunStatus::Cancelled);
    }
}
