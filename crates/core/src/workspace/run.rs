//! A run folder's files and its one state decision (SPEC §1.2): every reader asks
//! here whether a run has ended, and what a run without `meta.json` is (in
//! progress, cancelled by testdeck, abandoned), so none of them can disagree.

use super::logs::RunStatus;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The run's summary, written last by the runner: its end.
pub const META: &str = "meta.json";
/// The run's events, one JSON object a line, written as the run goes.
pub const TIMELINE: &str = "timeline.jsonl";
/// Raw runtime events, any shape.
pub(crate) const RUNTIME_EVENTS: &str = "runtime-events.jsonl";
/// The run's artifact list.
pub(crate) const ARTIFACTS: &str = "artifacts.json";

/// Where a run is, as its folder tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunState {
    /// No `meta.json`: the runner is still writing (or left it so).
    InProgress,
    /// `meta.json` is there but does not read as JSON: being written (its creation
    /// is seen before its content), or left broken. Not ended yet; a follower
    /// gives the writer a moment before it takes the run as ended.
    MetaUnfinished,
    /// The run has ended: `meta.json` reads as JSON, or is refused unread (a link
    /// out, a FIFO, a giant), which the readers report and never wait for.
    Ended,
}

impl RunState {
    /// Whether the run has ended.
    pub fn ended(self) -> bool {
        self == RunState::Ended
    }
}

/// The one decision: the state of the run in folder `dir`.
pub fn state(dir: &Path) -> RunState {
    use super::read;
    match read::read(&dir.join(META), Some(dir), read::Kind::RunJson) {
        Err(e) if e.is_missing() => RunState::InProgress,
        // there, but not readable right now: treated as being written
        Err(read::Error::Io(_)) => RunState::MetaUnfinished,
        Err(_) => RunState::Ended,
        Ok(bytes) if serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_ok() => {
            RunState::Ended
        }
        Ok(_) => RunState::MetaUnfinished,
    }
}

/// What a run folder without a readable `meta.json` is, for the readers of the
/// logs: cancelled when testdeck recorded that it cancelled it, abandoned when
/// nothing in it was written for the configured time, in progress otherwise.
#[derive(Debug, Clone, Default)]
pub(crate) struct Judge {
    /// Run folders testdeck cancelled, relative to the root (see [`super::cancelled`]).
    cancelled: BTreeSet<String>,
    /// `None`: a silent run is never judged abandoned.
    abandoned_after: Option<Duration>,
    now: Option<SystemTime>,
}

impl Judge {
    /// The judge of the workspace at `root`: its cancelled-run record and its
    /// `[runs] abandoned-after-minutes`.
    pub fn load(root: &Path, runs: &super::config::Runs) -> Judge {
        Judge::new(super::cancelled::load(root), runs.abandoned_after())
    }

    pub fn new(cancelled: BTreeSet<String>, abandoned_after: Option<Duration>) -> Judge {
        Judge {
            cancelled,
            abandoned_after,
            now: Some(SystemTime::now()),
        }
    }

    /// The status of the run folder `dir` (`rel` to the root) that has no
    /// readable `meta.json`.
    pub(crate) fn unfinished(&self, rel: &str, dir: &Path) -> RunStatus {
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

/// When anything in the run folder was last written: the newest mtime of the
/// folder and the files in it and in its `artifacts/` (a runner writing
/// anywhere in it is alive). Links are not followed.
pub(crate) fn newest_write(dir: &Path) -> Option<SystemTime> {
    let mut newest = std::fs::symlink_metadata(dir).ok()?.modified().ok();
    let mut stack = vec![(dir.to_path_buf(), 0u8)];
    while let Some((d, depth)) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let Ok(m) = e.metadata() else { continue };
            if let Ok(t) = m.modified() {
                newest = newest.max(Some(t));
            }
            // artifacts/playwright/report/data/…: a few levels, never a deep walk
            if m.is_dir() && depth < 4 {
                stack.push((e.path(), depth + 1));
            }
        }
    }
    newest
}

/// Whether `dir` holds a run: a `meta.json` or a `timeline.jsonl` file.
pub(crate) fn is_run_folder(dir: &Path) -> bool {
    dir.join(META).is_file() || dir.join(TIMELINE).is_file()
}

/// Every run folder under `top` (a folder holding `meta.json` or
/// `timeline.jsonl`); run folders are not descended into, and folders of
/// `known` (run folders seen before) are not read again.
pub fn run_folders(top: &Path, known: &BTreeSet<PathBuf>) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut stack = vec![top.to_path_buf()];
    while let Some(dir) = stack.pop() {
        if known.contains(&dir) {
            out.insert(dir);
            continue;
        }
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut subdirs = Vec::new();
        let mut is_run = false;
        for e in rd.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            let name = e.file_name();
            if ft.is_file() && (name == META || name == TIMELINE) {
                is_run = true;
            } else if ft.is_dir() {
                subdirs.push(e.path());
            }
        }
        if is_run && dir != top {
            out.insert(dir);
        } else {
            stack.extend(subdirs);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_ends_only_when_its_meta_reads_as_json() {
        let d = tempfile::tempdir().expect("tmp");
        assert_eq!(state(d.path()), RunState::InProgress);
        assert!(!is_run_folder(d.path()));
        std::fs::write(d.path().join(TIMELINE), "{}\n").expect("timeline");
        assert!(is_run_folder(d.path()));
        // half written: its creation is seen before its content
        std::fs::write(d.path().join(META), r#"{"status": "pass"#).expect("meta");
        assert_eq!(state(d.path()), RunState::MetaUnfinished);
        assert!(!state(d.path()).ended());
        std::fs::write(d.path().join(META), r#"{"status": "passed"}"#).expect("meta");
        assert_eq!(state(d.path()), RunState::Ended);
    }

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

    #[cfg(unix)]
    #[test]
    fn a_meta_json_linked_out_ends_the_run_unread() {
        let d = tempfile::tempdir().expect("tmp");
        std::os::unix::fs::symlink("/dev/zero", d.path().join(META)).expect("link");
        assert_eq!(state(d.path()), RunState::Ended);
    }
}
