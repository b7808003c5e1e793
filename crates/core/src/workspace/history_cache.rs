//! The history cache: testdeck's own file in the person's cache folder
//! (`$XDG_CACHE_HOME/testdeck/history/`, else `~/.cache/testdeck/history/`), one
//! per workspace, so that a second open shows the whole run history at once.
//!
//! It holds each finished run's summary (what [`logs::RawRun`] holds: status,
//! `meta.json` summary, which run files are there, the problems its reading met)
//! beside what proves it unchanged: the case folder's identity (device, inode)
//! and modification time, and each run folder's. On open the shell shows the
//! cached history first, then [`HistoryCache::verify`] checks it against the
//! folders with one `stat` per case folder (not a read per run): a case folder
//! whose identity and time match keeps its runs; another one is listed, its run
//! folders stat'ed, and only the new or changed ones read. What differs comes
//! back as [`Update`]s, applied as any change the watch sees.
//!
//! A run folder's time changes when an entry is added, removed or renamed in it
//! (a runner writes `meta.json` last, or renames it into place), a case folder's
//! when a run folder comes or goes: a run rewritten in place without either is
//! not seen until its case folder changes. Runs in progress are never cached
//! (they are read at each open), nor is anything written in the last
//! [`SETTLE`] before the cache's reads began (a change within the file
//! system's time granularity could otherwise keep the same time).
//!
//! Beside it, a file of the same frame keeps the import graph's index
//! (`graph::index`: each module's parse, proved by the SHA-256 of its bytes),
//! which [`load_section`] and [`store_section`] read and write: a store of one
//! never reads or rewrites the other.
//!
//! The file is a header (magic, format version, the workspace's real root, the
//! payload's length and CRC-32) and a `postcard` payload. A file that is
//! corrupt, truncated, of another workspace or format version, being written
//! by another process, or over [`MAX_BYTES`] is ignored (the history is read in
//! full and the file written again); it is only ever shown, never trusted for
//! more: every run file is still opened through the bounded reader when shown.

use super::changes::Update;
use super::logs::Judged as _;
use super::logs::{self, Chunk, Judge, Listing, MetaSummary, RawRun, RunStatus};
use super::run_tests::RunTests;
use super::walk::{self, Folder};
use super::{Workspace, read};
use crate::problem::Problem;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::os::fd::BorrowedFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The first bytes of every history cache file.
const MAGIC: [u8; 8] = *b"TDHISTRY";
/// The payload's format: a file of another version is ignored.
pub const FORMAT_VERSION: u32 = 4;
/// The largest cache file read or written (a larger history is read in full at
/// each open, as without a cache).
pub const MAX_BYTES: u64 = read::Kind::HistoryCache.cap();
/// A folder changed less than this before the cache's reads began is not vouched
/// for (it is listed or read again at the next open): file systems keep times
/// at a coarser grain than the clock, some as coarse as 2 s.
pub const SETTLE: Duration = Duration::from_secs(2);
/// The raw logs, relative to the root.
const LOGS: &str = "tests/logs";

/// The person's folder of history caches: `$XDG_CACHE_HOME/testdeck/history`
/// (an absolute `XDG_CACHE_HOME` only), else `$HOME/.cache/testdeck/history`.
pub fn default_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })?;
    Some(base.join("testdeck").join("history"))
}

/// [`default_dir`] when it and its `testdeck` folder are the person's own
/// ([`read::own_folder`]: made 0700, or fixed to 0700 when theirs). `Ok(None)`:
/// no home to put it in; `Err`: the warning to show, and the cockpit runs as
/// with `--no-cache` (a folder of another user, or one others can write to
/// that cannot be fixed, is never used).
pub fn checked_default_dir() -> Result<Option<PathBuf>, String> {
    let Some(dir) = default_dir() else {
        return Ok(None);
    };
    for d in [dir.parent(), Some(dir.as_path())].into_iter().flatten() {
        read::own_folder(d).map_err(|e| {
            format!(
                "the history cache is not used ({}): {}",
                crate::sanitize::escape(&e.to_string()),
                "the cockpit reads the history in full"
            )
        })?;
    }
    Ok(Some(dir))
}

/// The cache file of the workspace at `root` in the folder `dir`: named by a
/// hash of its real root (the root itself is in the file). `None`: the root
/// does not resolve.
pub fn file_of(dir: &Path, root: &Path) -> Option<PathBuf> {
    let real = root.canonicalize().ok()?;
    Some(dir.join(file_name(&real)))
}

/// The file beside it that keeps the import graph's index ([`load_section`]).
pub fn section_file_of(dir: &Path, root: &Path) -> Option<PathBuf> {
    let real = root.canonicalize().ok()?;
    Some(dir.join(section_name(&file_name(&real))))
}

fn file_name(real_root: &Path) -> String {
    use std::os::unix::ffi::OsStrExt as _;
    // FNV-1a: a stable name across builds (std's hasher may change)
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in real_root.as_os_str().as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}.history")
}

/// What proves a folder unchanged: its identity and its modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Stamp {
    dev: u64,
    ino: u64,
    sec: i64,
    nsec: u32,
}

impl Stamp {
    #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
    fn of(st: &rustix::fs::Stat) -> Option<Stamp> {
        let dir =
            rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Directory;
        dir.then_some(Stamp {
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
            sec: st.st_mtime as i64,
            nsec: st.st_mtime_nsec as u32,
        })
    }

    /// The folder `name` in the open folder `dir`, not following a link (one stat).
    fn at(dir: BorrowedFd<'_>, name: &OsStr) -> Option<Stamp> {
        let st = rustix::fs::statat(dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).ok()?;
        Stamp::of(&st)
    }

    /// The open folder `f`.
    fn of_folder(f: &Folder) -> Option<Stamp> {
        Stamp::of(&rustix::fs::fstat(f.fd()).ok()?)
    }

    /// Changed at least [`SETTLE`] before `since`: safe to vouch for.
    fn settled(self, since: SystemTime) -> bool {
        let Ok(sec) = u64::try_from(self.sec) else {
            return true;
        };
        let t = UNIX_EPOCH + Duration::new(sec, self.nsec.min(999_999_999));
        t + SETTLE <= since
    }
}

/// One case folder of the cache: its runs and the problems found in it that
/// belong to none of them.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct CaseEntry {
    /// The case folder, relative to `tests/logs/`: `<scope…>/<caseId>`.
    dir: String,
    /// `None`: not vouched for (a run in it was not cached): listed at each open.
    stamp: Option<Stamp>,
    /// By name.
    runs: Vec<RunEntry>,
    problems: Vec<Problem>,
}

/// One finished run of the cache.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct RunEntry {
    /// The run folder's name.
    name: String,
    /// Always there in a file (`None` only while a cache is built: stat'ed then).
    stamp: Option<Stamp>,
    status: RunStatus,
    meta: MetaSummary,
    /// Which run files are there ([`Files`]).
    files: u8,
    /// What its timeline says of its tests and its code.
    tests: Option<Box<RunTests>>,
    /// What reading it found (under the run folder).
    problems: Vec<Problem>,
}

/// The bits of [`RunEntry::files`].
struct Files;

impl Files {
    const TIMELINE: u8 = 1;
    const RUNTIME_EVENTS: u8 = 2;
    const ARTIFACTS_JSON: u8 = 4;
    const ARTIFACTS_DIR: u8 = 8;

    fn of(r: &RawRun) -> u8 {
        let bit = |on: bool, b: u8| if on { b } else { 0 };
        bit(r.has_timeline, Files::TIMELINE)
            | bit(r.has_runtime_events, Files::RUNTIME_EVENTS)
            | bit(r.has_artifacts_json, Files::ARTIFACTS_JSON)
            | bit(r.has_artifacts_dir, Files::ARTIFACTS_DIR)
    }
}

/// A name that is one folder: not empty, no `/`, not `.` or `..`.
fn one_folder(name: &str) -> bool {
    !name.is_empty() && !name.contains('/') && name != "." && name != ".."
}

impl CaseEntry {
    /// What a file of another writer could hold that no scan would: refused.
    fn well_formed(&self) -> bool {
        let parts: Vec<&str> = self.dir.split('/').collect();
        // a run needs a domain folder and a caseId folder above it
        parts.len() >= 2
            && parts.iter().all(|p| one_folder(p))
            && !self.runs.is_empty()
            && self
                .runs
                .iter()
                .all(|r| one_folder(&r.name) && r.stamp.is_some() && r.status.is_finished())
    }
}

impl RunEntry {
    /// The run as the model holds it.
    fn raw(&self, dir: &str, scope: &Arc<str>, case_id: &Arc<str>) -> RawRun {
        RawRun {
            run_id: self.name.clone(),
            case_id: case_id.clone(),
            scope: scope.clone(),
            path: format!("{LOGS}/{dir}/{}", self.name),
            status: self.status,
            meta: Some(self.meta.clone()),
            meta_broken: false,
            has_timeline: self.files & Files::TIMELINE != 0,
            has_runtime_events: self.files & Files::RUNTIME_EVENTS != 0,
            has_artifacts_json: self.files & Files::ARTIFACTS_JSON != 0,
            has_artifacts_dir: self.files & Files::ARTIFACTS_DIR != 0,
            tests: self.tests.clone(),
        }
    }
}

/// The name of the file beside the history's that keeps the import graph's
/// section for the workspace whose history file is `history_name`.
fn section_name(history_name: &str) -> String {
    format!("{}.graph", history_name.trim_end_matches(".history"))
}

/// The import graph's section kept for the workspace at `root` in the cache
/// folder `dir` (a file of its own beside the history's, framed the same way):
/// `None` without a file to read, or an empty section.
pub fn load_section(dir: &Path, root: &Path) -> Option<Vec<u8>> {
    let real = root.canonicalize().ok()?;
    read_payload(dir, &real, &section_name(&file_name(&real)))
        .map(|(mut bytes, at, _)| bytes.split_off(at))
        .filter(|s| !s.is_empty())
}

/// Write the import graph's section for the workspace at `root` into the cache
/// folder `dir`; the history's file is not touched. `Ok(false)`: nothing
/// written (the same bytes, or over [`MAX_BYTES`]).
pub fn store_section(dir: &Path, root: &Path, section: &[u8]) -> std::io::Result<bool> {
    let real = root.canonicalize()?;
    let name = section_name(&file_name(&real));
    let written = read_payload(dir, &real, &name).map(|(_, _, w)| w);
    let (mut bytes, at) = frame_head(&real);
    bytes.extend_from_slice(section);
    Ok(write_framed(dir, &name, bytes, at, written)?.is_some())
}

/// The history cache of one workspace, loaded or built.
#[derive(Debug, Default)]
pub struct HistoryCache {
    /// By folder.
    cases: Vec<CaseEntry>,
    /// The CRC-32 and length of the payload as read or last written: a store
    /// that would write the same bytes writes nothing.
    written: Option<(u32, usize)>,
}

/// What [`HistoryCache::verify`] found.
#[derive(Debug)]
pub struct Verified {
    /// What differs from the cached history: run folders gone, new or changed.
    pub updates: Vec<Update>,
    /// The problems of the walk of `tests/logs/` (the cached history's runs
    /// carry their own): what a full read's walk would say.
    pub problems: Vec<Problem>,
    /// The cache as the folders are now, to store.
    pub cache: HistoryCache,
    /// Run folders read (new or changed).
    pub read: usize,
}

impl HistoryCache {
    /// The cache of the workspace at `root` in the folder `dir`, through the
    /// bounded reader; `None` when there is none, or it is not one to show
    /// (corrupt, truncated, another workspace's, another format, over the cap).
    pub fn load(dir: &Path, root: &Path) -> Option<HistoryCache> {
        let real = root.canonicalize().ok()?;
        let (bytes, at, written) = read_payload(dir, &real, &file_name(&real))?;
        let cases: Vec<CaseEntry> = postcard::from_bytes(&bytes[at..]).ok()?;
        if !cases.iter().all(CaseEntry::well_formed) {
            return None;
        }
        Some(HistoryCache {
            cases,
            written: Some(written),
        })
    }

    /// Runs cached.
    pub fn runs(&self) -> usize {
        self.cases.iter().map(|c| c.runs.len()).sum()
    }

    /// The cached history as one chunk (the runs sorted as [`logs::Logs`] keeps
    /// them, with the problems their reading found).
    pub fn history(&self) -> Chunk {
        let mut scopes: HashMap<&str, Arc<str>> = HashMap::new();
        let mut runs = Vec::with_capacity(self.runs());
        let mut problems = Vec::new();
        for c in &self.cases {
            let (scope, case) = c.dir.rsplit_once('/').unwrap_or(("", &c.dir));
            let scope = scopes
                .entry(scope)
                .or_insert_with(|| Arc::from(scope))
                .clone();
            let case_id: Arc<str> = Arc::from(case);
            for r in &c.runs {
                runs.push(r.raw(&c.dir, &scope, &case_id));
                problems.extend(r.problems.iter().cloned());
            }
        }
        let mut logs = logs::Logs { runs };
        logs.sort();
        Chunk {
            domain: String::new(),
            runs: logs.runs,
            problems,
        }
    }

    /// The cache of `ws`'s history as it is loaded (its runs, the problems of
    /// its logs), proved against the folders now; `since`: when its reading
    /// began (what changed after is not vouched for).
    pub fn of_workspace(ws: &Workspace, since: SystemTime) -> HistoryCache {
        let mut b = Builder::new(since);
        b.add_runs(&ws.logs.runs);
        b.add_problems(ws.problems.iter().cloned());
        b.finish(&ws.root)
    }

    /// Write the cache of the workspace at `root` into the folder `dir` (made
    /// private to the person where missing, made private again when theirs,
    /// refused when another user's), as a 0600 file, aside and renamed; nothing when
    /// the file holds these bytes already. `Ok(false)`: nothing written (the
    /// same bytes, or over [`MAX_BYTES`]: then no file is left).
    pub fn store(&mut self, dir: &Path, root: &Path) -> std::io::Result<bool> {
        let real = root.canonicalize()?;
        // the payload is serialized in place after the header (no second copy
        // of it: at the end of a cold open it is the peak's last few MB)
        let (bytes, at) = frame_head(&real);
        let bytes = postcard::to_extend(&self.cases, bytes).map_err(std::io::Error::other)?;
        match write_framed(dir, &file_name(&real), bytes, at, self.written)? {
            Some(w) => {
                self.written = Some(w);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Check the cache against the folders of `tests/logs/` under `root`: one
    /// stat per cached case folder; a folder that changed (or is not vouched
    /// for) is listed and its run folders stat'ed; only the run folders new or
    /// changed are read (judged by `judge`). The cache comes back as the
    /// folders are now, with what differs as updates.
    pub fn verify(self, root: &Path, judge: &Judge) -> Verified {
        let since = SystemTime::now();
        let logs = root.join(LOGS);
        let mut cases = self.cases;
        let ctx = Known::of(&cases);
        let mut found = Visit::default();
        let mut level = Vec::new();
        let mut top_problems = Vec::new();
        if walk::is_link_reported(root, &logs, &mut top_problems) || !logs.is_dir() {
            found.removed.push(String::new());
        } else {
            match Folder::open(&logs) {
                Ok(f) => level.push((f, String::new(), 0)),
                Err(e) => {
                    found.removed.push(String::new());
                    found.problems.push(walk::unreadable(root, &logs, &e));
                }
            }
        }
        found.problems.append(&mut top_problems);
        // level by level (no recursion on the input's depth), each level's
        // folders side by side
        while !level.is_empty() {
            let visits: Vec<Visit> = level
                .into_par_iter()
                .map(|(f, d, depth)| visit(root, &logs, &ctx, &cases, &f, &d, depth))
                .collect();
            level = Vec::new();
            for mut v in visits {
                level.append(&mut v.next);
                found.merge(v);
            }
        }
        let Visit {
            kept_cases,
            kept_runs,
            read,
            listed,
            mut problems,
            mut removed,
            ..
        } = found;
        // the highest folder gone of each branch says it for everything below
        removed.sort();
        removed.dedup();
        let mut tops: Vec<String> = Vec::new();
        for r in removed {
            if tops.last().is_none_or(|t| !(t.is_empty() || under(&r, t))) {
                tops.push(r);
            }
        }
        let mut updates: Vec<Update> = tops
            .into_iter()
            .map(|r| {
                Update::RemoveRuns(if r.is_empty() {
                    LOGS.to_owned()
                } else {
                    format!("{LOGS}/{r}")
                })
            })
            .collect();
        let mut b = Builder::new(since);
        let n_read = read.len();
        for (mut run, p, stamp) in read {
            run.judge(root, judge);
            b.add_run(&run, stamp);
            b.add_problems(p.iter().cloned());
            updates.push(Update::Run(Box::new(run), p));
        }
        for (ci, ri) in kept_runs {
            let run = std::mem::replace(&mut cases[ci].runs[ri], placeholder());
            b.keep_run(&cases[ci].dir, run);
        }
        for (d, st) in listed {
            b.case_stamp(&d, st);
        }
        // the walk's own problems: what it found now, and what was found before
        // in the case folders it had no need to list
        b.add_problems(problems.iter().cloned());
        for ci in kept_cases {
            let c = std::mem::replace(&mut cases[ci], CaseEntry::empty());
            problems.extend(c.problems.iter().cloned());
            b.keep_case(c);
        }
        let mut cache = b.finish(root);
        cache.written = self.written;
        Verified {
            updates,
            problems,
            cache,
            read: n_read,
        }
    }
}

impl Verified {
    /// The whole history as checked, in place of the cached one: the cache's
    /// runs as the folders are now, the runs read that it does not keep (in
    /// progress, just changed), and every problem of their reading and of the
    /// walk. For a check that found too much changed to apply change by change.
    pub fn history(&self) -> Chunk {
        let mut chunk = self.cache.history();
        let mut more = Vec::new();
        {
            let cached: HashSet<&str> = chunk.runs.iter().map(|r| r.path.as_str()).collect();
            for u in &self.updates {
                if let Update::Run(r, p) = u {
                    if !cached.contains(r.path.as_str()) {
                        more.push(((**r).clone(), p));
                    }
                }
            }
        }
        for (r, p) in more {
            chunk.runs.push(r);
            chunk.problems.extend(p.iter().cloned());
        }
        let mut logs = logs::Logs { runs: chunk.runs };
        logs.sort();
        chunk.runs = logs.runs;
        chunk.problems.extend(self.problems.iter().cloned());
        chunk
    }
}

impl CaseEntry {
    fn empty() -> CaseEntry {
        CaseEntry {
            dir: String::new(),
            stamp: None,
            runs: Vec::new(),
            problems: Vec::new(),
        }
    }
}

fn placeholder() -> RunEntry {
    RunEntry {
        name: String::new(),
        stamp: None,
        status: RunStatus::Failed,
        meta: MetaSummary::default(),
        files: 0,
        tests: None,
        problems: Vec::new(),
    }
}

/// `path` is below `dir` (both relative to `tests/logs/`).
fn under(path: &str, dir: &str) -> bool {
    path.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

/// What a folder under `tests/logs/` was in the cache.
#[derive(Debug, Clone, Copy)]
enum Was {
    /// A case folder (its index).
    Case(usize),
    /// A run folder (its case's index and its own).
    Run(usize, usize),
    /// A folder above case folders.
    Above,
}

/// The cache's folders, for the walk.
struct Known {
    /// Case folders and the folders above them (run folders are looked up in
    /// their case's runs).
    was: HashMap<String, Was>,
    /// The cached subfolders (names) of each folder above case folders.
    children: HashMap<String, HashSet<String>>,
    /// Case folders with cached case folders below them: never taken on their
    /// own stamp (a change below does not touch it).
    nested: HashSet<String>,
}

impl Known {
    fn of(cases: &[CaseEntry]) -> Known {
        let mut k = Known {
            was: HashMap::new(),
            children: HashMap::new(),
            nested: HashSet::new(),
        };
        for c in cases {
            let mut at = String::new();
            for part in c.dir.split('/') {
                k.children
                    .entry(at.clone())
                    .or_default()
                    .insert(part.to_owned());
                if !at.is_empty() {
                    k.was.entry(at.clone()).or_insert(Was::Above);
                }
                at = join(&at, part);
            }
        }
        for (ci, c) in cases.iter().enumerate() {
            if k.children.contains_key(&c.dir) {
                k.nested.insert(c.dir.clone());
            }
            k.was.insert(c.dir.clone(), Was::Case(ci));
        }
        k
    }

    /// What the folder `dir` was in the cache.
    fn was(&self, cases: &[CaseEntry], dir: &str) -> Option<Was> {
        if let Some(w) = self.was.get(dir) {
            return Some(*w);
        }
        let (parent, name) = dir.rsplit_once('/')?;
        let Some(Was::Case(ci)) = self.was.get(parent) else {
            return None;
        };
        cases[*ci]
            .runs
            .binary_search_by(|r| r.name.as_str().cmp(name))
            .ok()
            .map(|ri| Was::Run(*ci, ri))
    }

    /// Something was cached at or below `dir`.
    fn holds(&self, cases: &[CaseEntry], dir: &str) -> bool {
        dir.is_empty() || self.was(cases, dir).is_some()
    }
}

/// What the walk found in one folder (or in all, merged).
#[derive(Default)]
struct Visit {
    /// Folders to list next: open, relative to `tests/logs/`, their depth.
    next: Vec<(Folder, String, usize)>,
    /// Cached case folders unchanged.
    kept_cases: Vec<usize>,
    /// Cached runs unchanged in a case folder that changed.
    kept_runs: Vec<(usize, usize)>,
    /// Run folders read, what their reading found, their stamp before it.
    read: Vec<(RawRun, Vec<Problem>, Option<Stamp>)>,
    /// Folders listed, with their stamp before the listing.
    listed: Vec<(String, Stamp)>,
    problems: Vec<Problem>,
    /// Folders (relative to `tests/logs/`, `""` for it) whose cached runs are gone.
    removed: Vec<String>,
}

impl Visit {
    fn merge(&mut self, mut o: Visit) {
        self.kept_cases.append(&mut o.kept_cases);
        self.kept_runs.append(&mut o.kept_runs);
        self.read.append(&mut o.read);
        self.listed.append(&mut o.listed);
        self.problems.append(&mut o.problems);
        self.removed.append(&mut o.removed);
    }
}

/// List the folder `folder` (`dir` under `logs`) and decide for each subfolder: kept
/// on its stamp, or listed next; a run folder is read here.
#[expect(
    clippy::too_many_lines,
    reason = "one arm per history entry kind, all folding into the same cache"
)]
fn visit(
    root: &Path,
    logs: &Path,
    known: &Known,
    cases: &[CaseEntry],
    folder: &Folder,
    dir: &str,
    depth: usize,
) -> Visit {
    let mut out = Visit::default();
    let abs = if dir.is_empty() {
        logs.to_path_buf()
    } else {
        logs.join(dir)
    };
    // the stamp before the listing: a change after it shows at the next open
    let stamp = Stamp::of_folder(folder);
    let entries = match folder.entries() {
        Ok(e) => e,
        Err(err) => {
            out.problems.push(walk::unreadable(root, &abs, &err));
            if known.holds(cases, dir) {
                out.removed.push(dir.to_owned());
            }
            return out;
        }
    };
    let listing = Listing::of(root, &abs, entries);
    let was = known.was(cases, dir);
    if listing.is_run() {
        if !dir.contains('/') {
            // under tests/logs or a domain folder: nothing here or below is a run
            out.problems.push(logs::misplaced(root, &abs));
            if known.holds(cases, dir) {
                out.removed.push(dir.to_owned());
            }
            return out;
        }
        if matches!(was, Some(Was::Case(_) | Was::Above)) {
            out.removed.push(dir.to_owned());
        }
        let Listing {
            names,
            mut passed_over,
            ..
        } = listing;
        let mut p = Vec::new();
        let run = logs::read_run(root, logs, &abs, folder, names, &mut p, None, None);
        // what its listing passed over is the run's too (replaced with it)
        p.append(&mut passed_over);
        out.read.push((run, p, stamp));
        return out;
    }
    if matches!(was, Some(Was::Run(..))) {
        // a cached run folder that holds no run any more
        out.removed.push(dir.to_owned());
    }
    let Listing {
        subdirs,
        mut passed_over,
        ..
    } = listing;
    out.problems.append(&mut passed_over);
    if let Some(st) = stamp {
        out.listed.push((dir.to_owned(), st));
    }
    // what the cache had here and the listing has not: gone
    let here: HashSet<&OsStr> = subdirs.iter().map(std::ffi::OsString::as_os_str).collect();
    let mut gone = |name: &str| {
        if !here.contains(OsStr::new(name)) {
            out.removed.push(join(dir, name));
        }
    };
    for k in known.children.get(dir).into_iter().flatten() {
        gone(k);
    }
    if let Some(Was::Case(ci)) = was {
        for r in &cases[ci].runs {
            gone(&r.name);
        }
    }
    if depth >= walk::MAX_DEPTH && !subdirs.is_empty() {
        out.problems
            .extend(subdirs.iter().map(|n| walk::too_deep(root, &abs.join(n))));
        return out;
    }
    for name in &subdirs {
        let child = join(dir, &name.to_string_lossy());
        let child_was = known.was(cases, &child);
        let vouched = match child_was {
            Some(Was::Case(ci)) if !known.nested.contains(&child) => cases[ci].stamp,
            Some(Was::Run(ci, ri)) => cases[ci].runs[ri].stamp,
            _ => None,
        };
        if let Some(want) = vouched {
            if Stamp::at(folder.fd(), name) == Some(want) {
                match child_was {
                    Some(Was::Case(ci)) => out.kept_cases.push(ci),
                    Some(Was::Run(ci, ri)) => out.kept_runs.push((ci, ri)),
                    _ => {}
                }
                continue;
            }
        }
        match folder.sub(name) {
            Ok(sub) => out.next.push((sub, child, depth + 1)),
            Err(err) => {
                out.problems
                    .push(walk::unreadable(root, &abs.join(name), &err));
                if known.holds(cases, &child) {
                    out.removed.push(child);
                }
            }
        }
    }
    out
}

mod build;
mod file;

pub use build::Builder;
#[cfg(test)]
use file::{crc32, frame, frame_seal, unframe};
use file::{frame_head, read_payload, write_framed};

#[cfg(test)]
mod tests;
