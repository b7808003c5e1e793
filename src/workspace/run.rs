//! A run folder's files and its one state decision (SPEC §1.2): every reader asks
//! here whether a run has ended, so none of them can disagree.

use std::path::Path;

/// The run's summary, written last by the runner: its end.
pub const META: &str = "meta.json";
/// The run's events, one JSON object a line, written as the run goes.
pub const TIMELINE: &str = "timeline.jsonl";
/// Raw runtime events, any shape.
pub const RUNTIME_EVENTS: &str = "runtime-events.jsonl";
/// The run's artifact list.
pub const ARTIFACTS: &str = "artifacts.json";

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

/// Whether `dir` holds a run: a `meta.json` or a `timeline.jsonl` file.
pub fn is_run_folder(dir: &Path) -> bool {
    dir.join(META).is_file() || dir.join(TIMELINE).is_file()
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

    #[cfg(unix)]
    #[test]
    fn a_meta_json_linked_out_ends_the_run_unread() {
        let d = tempfile::tempdir().expect("tmp");
        std::os::unix::fs::symlink("/dev/zero", d.path().join(META)).expect("link");
        assert_eq!(state(d.path()), RunState::Ended);
    }
}
