//! The runs testdeck cancelled, kept in testdeck's own state folder (never in
//! `tests/logs/`, which belongs to the runner): one JSON line per run folder in
//! `$XDG_STATE_HOME/testdeck/cancelled/<hash of the workspace root>.jsonl`.

use super::read::{self, Kind};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The folder of the cancelled-run files, below testdeck's state folder.
pub const DIR: &str = "cancelled";

/// The file that holds the cancelled runs of the workspace at `root`, when
/// there is a state folder (`XDG_STATE_HOME` or `HOME`).
pub fn file(root: &Path) -> Option<PathBuf> {
    let state = super::openers::UserDirs::from_env().state_dir?;
    Some(file_in(&state, root))
}

/// The cancelled-run file of the workspace at `root` in the state folder `state`
/// (`…/testdeck`).
pub fn file_in(state: &Path, root: &Path) -> PathBuf {
    state.join(DIR).join(format!("{}.jsonl", root_hash(root)))
}

/// FNV-1a 64 of the workspace root's resolved path: one file per workspace,
/// the same from every process that opens it by any path.
fn root_hash(root: &Path) -> String {
    let full = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in full.as_os_str().as_encoded_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The run folders (relative to the root, with `/`) recorded as cancelled.
/// A missing, unreadable or oversized file is no record at all: a run is then
/// judged by its folder alone.
pub fn load(root: &Path) -> BTreeSet<String> {
    file(root).map_or_else(BTreeSet::new, |f| read_file(&f))
}

/// The run folders recorded in the cancelled-run file `f`.
pub(crate) fn read_file(f: &Path) -> BTreeSet<String> {
    let Ok(bytes) = read::read(f, f.parent(), Kind::UserConfig) else {
        return BTreeSet::new();
    };
    bytes
        .split(|&b| b == b'\n')
        .filter_map(|line| serde_json::from_slice::<serde_json::Value>(line).ok())
        .filter_map(|v| v.get("path")?.as_str().map(str::to_owned))
        .collect()
}

/// Record the run folders `runs` (relative to `root`) as cancelled by testdeck
/// in the file `f` (the workspace's [`file`]). Entries whose folder is gone or
/// has its `meta.json` by now are dropped on the way, so the file holds only
/// runs that still need the record.
pub fn record(f: &Path, root: &Path, runs: &[String]) -> std::io::Result<()> {
    if runs.is_empty() {
        return Ok(());
    }
    if let Some(dir) = f.parent() {
        // the person's own state folder: 0700, never another user's
        read::own_folder(dir)?;
    }
    // the file is rewritten whole: two testdeck processes cancelling at once
    // take turns on a lock beside it, so neither rewrites without the other's
    // entries (released when `lock` is dropped)
    let mut lock_name = f.as_os_str().to_owned();
    lock_name.push(".lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(PathBuf::from(lock_name))?;
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive)?;
    let mut all = read_file(f);
    all.retain(|rel| {
        let dir = root.join(rel);
        dir.is_dir() && !dir.join(super::run_folder::META).exists()
    });
    all.extend(runs.iter().cloned());
    let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let mut text = String::new();
    for rel in &all {
        let line = serde_json::json!({ "path": rel, "cancelledAt": at });
        text.push_str(&line.to_string());
        text.push('\n');
    }
    read::write_atomic(f, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_workspace_by_another_path_has_the_same_file() {
        let d = tempfile::tempdir().expect("tmp");
        std::fs::create_dir(d.path().join("ws")).expect("mkdir");
        let dotted = d.path().join("ws/../ws");
        assert_eq!(root_hash(&d.path().join("ws")), root_hash(&dotted));
        assert_ne!(root_hash(&d.path().join("ws")), root_hash(d.path()));
    }

    #[test]
    fn a_record_keeps_only_runs_still_without_meta() {
        let d = tempfile::tempdir().expect("tmp");
        let root = d.path().join("ws");
        for r in ["a", "b"] {
            std::fs::create_dir_all(root.join("tests/logs/x/y").join(r)).expect("mkdir");
        }
        let f = d.path().join("state/cancelled/h.jsonl");
        record(&f, &root, &["tests/logs/x/y/a".into()]).expect("first");
        std::fs::write(root.join("tests/logs/x/y/a/meta.json"), "{}").expect("meta");
        record(&f, &root, &["tests/logs/x/y/b".into()]).expect("second");
        let got: Vec<String> = read_file(&f).into_iter().collect();
        assert_eq!(got, ["tests/logs/x/y/b"], "a has its meta.json now");
    }

    #[test]
    fn two_writers_at_once_lose_no_entry() {
        let d = tempfile::tempdir().expect("tmp");
        let root = d.path().join("ws");
        let runs: Vec<String> = (0..60).map(|i| format!("tests/logs/x/y/r{i}")).collect();
        for r in &runs {
            std::fs::create_dir_all(root.join(r)).expect("mkdir");
        }
        let f = d.path().join("state/cancelled/h.jsonl");
        std::thread::scope(|s| {
            for half in runs.chunks(30) {
                let (f, root) = (&f, &root);
                s.spawn(move || {
                    for r in half {
                        record(f, root, std::slice::from_ref(r)).expect("record");
                    }
                });
            }
        });
        assert_eq!(read_file(&f).len(), runs.len(), "an entry was lost");
    }

    #[test]
    fn a_broken_line_is_skipped_not_fatal() {
        let d = tempfile::tempdir().expect("tmp");
        let f = d.path().join("x.jsonl");
        std::fs::write(
            &f,
            "{\"path\": \"tests/logs/a/b/c/r\"}\nnot json\n{\"path\": 3}\n",
        )
        .expect("w");
        let got = read_file(&f);
        assert_eq!(got.into_iter().collect::<Vec<_>>(), ["tests/logs/a/b/c/r"]);
    }
}
