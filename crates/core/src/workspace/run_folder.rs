//! A run folder's files and its one state decision (SPEC §1.2): every reader asks
//! here whether a run has ended, so none of them can disagree (what a run without
//! `meta.json` is, in progress, cancelled or abandoned, [`super::logs::Judge`] says).

use super::walk::Kind as EntryKind;
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

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

/// The run files a run folder's listing shows (regular files and the `artifacts/` folder).
#[derive(Debug, Clone, Copy, Default)]
pub struct Names {
    /// `meta.json` is there (the run ended).
    pub meta: bool,
    /// `timeline.jsonl` is there.
    pub timeline: bool,
    /// `runtime-events.jsonl` is there.
    pub runtime: bool,
    /// `artifacts.json` is there.
    pub artifacts_json: bool,
    /// The `artifacts/` folder is there.
    pub artifacts_dir: bool,
}

impl Names {
    /// Note the entry `name` of the listing: a run file when it is a regular file,
    /// the `artifacts/` folder when it is a folder (a link is neither).
    pub(crate) fn note(&mut self, name: &OsStr, kind: EntryKind) {
        let file = kind == EntryKind::File;
        match name.to_str() {
            Some(META) if file => self.meta = true,
            Some(TIMELINE) if file => self.timeline = true,
            Some(RUNTIME_EVENTS) if file => self.runtime = true,
            Some(ARTIFACTS) if file => self.artifacts_json = true,
            Some("artifacts") if kind == EntryKind::Dir => self.artifacts_dir = true,
            _ => {}
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

/// The run folders below some folders, found again as a launch polls for the
/// runs its runner writes: a folder is listed again only when its mtime moved
/// (a run folder made in it, a run's first file) or is too recent to trust (a
/// change within the file system's timestamp tick leaves it as it was); the
/// run folders found are never listed again. A poll of a large history costs a
/// `stat` per folder, not a directory read.
#[derive(Debug, Default)]
pub struct RunScan {
    tops: Vec<PathBuf>,
    /// Each folder listed that is no run: its mtime then, and its subfolders.
    listed: std::collections::HashMap<PathBuf, (SystemTime, Vec<PathBuf>)>,
    runs: BTreeSet<PathBuf>,
}

/// How recent an mtime is too recent to prove a folder unchanged.
const RACY: std::time::Duration = std::time::Duration::from_secs(2);

impl RunScan {
    /// A scan of the run folders below each of `tops` (a top itself is never a run).
    pub fn new(tops: Vec<PathBuf>) -> RunScan {
        RunScan {
            tops,
            ..RunScan::default()
        }
    }

    /// The run folders now (every one found so far, and those made since).
    pub fn poll(&mut self) -> &BTreeSet<PathBuf> {
        let now = SystemTime::now();
        let mut stack: Vec<PathBuf> = self.tops.clone();
        let mut seen = std::collections::HashSet::new();
        while let Some(dir) = stack.pop() {
            if self.runs.contains(&dir) || !seen.insert(dir.clone()) {
                continue;
            }
            let Ok(mtime) = std::fs::symlink_metadata(&dir).and_then(|m| {
                if m.is_dir() {
                    m.modified()
                } else {
                    Err(std::io::Error::other("not a folder"))
                }
            }) else {
                self.listed.remove(&dir);
                continue;
            };
            let fresh = now.duration_since(mtime).map_or(true, |age| age < RACY);
            if let Some((m, subdirs)) = self.listed.get(&dir) {
                if *m == mtime && !fresh {
                    stack.extend(subdirs.iter().cloned());
                    continue;
                }
            }
            let Some((is_run, subdirs)) = list(&dir) else {
                continue;
            };
            if is_run && !self.tops.contains(&dir) {
                self.listed.remove(&dir);
                self.runs.insert(dir);
            } else {
                stack.extend(subdirs.iter().cloned());
                self.listed.insert(dir, (mtime, subdirs));
            }
        }
        &self.runs
    }
}

/// What one read of `dir` tells a search for run folders: whether it holds
/// `meta.json` or `timeline.jsonl` (a run folder), and its subfolders.
fn list(dir: &Path) -> Option<(bool, Vec<PathBuf>)> {
    let rd = std::fs::read_dir(dir).ok()?;
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
    Some((is_run, subdirs))
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
        let Some((is_run, subdirs)) = list(&dir) else {
            continue;
        };
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

    /// A folder is listed again only when its mtime moved (or is too recent to
    /// trust): a run made in a folder whose mtime is put back is not seen until
    /// the folder changes again; run folders found stay found.
    #[test]
    fn a_scan_lists_a_folder_again_only_when_it_changed() {
        let d = tempfile::tempdir().expect("tmp");
        let logs = d.path().join("tests/logs");
        let case = logs.join("shop/cart/add");
        std::fs::create_dir_all(case.join("20260101-000000-000")).expect("mkdir");
        std::fs::write(case.join("20260101-000000-000").join(TIMELINE), "").expect("w");
        let old = SystemTime::now() - std::time::Duration::from_secs(3600);
        let age = |p: &Path| {
            std::fs::File::open(p)
                .and_then(|f| f.set_modified(old))
                .expect("mtime");
        };
        for p in [&logs, &logs.join("shop"), &logs.join("shop/cart"), &case] {
            age(p);
        }
        let mut scan = RunScan::new(vec![logs.clone()]);
        assert_eq!(scan.poll().len(), 1);
        // a run made, its folder's mtime put back: not listed again
        let second = case.join("20260101-000001-000");
        std::fs::create_dir_all(&second).expect("mkdir");
        std::fs::write(second.join(TIMELINE), "").expect("w");
        age(&case);
        assert_eq!(scan.poll().len(), 1, "an unchanged folder is not read");
        // the folder changes: listed again, the run found
        std::fs::File::open(&case)
            .and_then(|f| f.set_modified(SystemTime::now()))
            .expect("mtime");
        assert!(scan.poll().contains(&second));
        // a run in a new case folder (its parent's mtime moved)
        let other = logs.join("shop/cart/remove/20260101-000002-000");
        std::fs::create_dir_all(&other).expect("mkdir");
        std::fs::write(other.join(META), "{}").expect("w");
        assert!(scan.poll().contains(&other));
        assert_eq!(scan.poll().len(), 3);
    }
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
