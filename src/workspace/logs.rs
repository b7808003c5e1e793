//! Raw logs (seed 000 §5): run folders under `tests/logs/`, their `meta.json`,
//! `timeline.jsonl`, `runtime-events.jsonl`, `artifacts.json` and `artifacts/`.

use super::timeline::{self, TimelineEvent};
use super::walk::{Folder, Kind as EntryKind};
use crate::problem::Problem;
use rayon::prelude::*;
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// Largest `meta.json` / `artifacts.json` read; bigger is a problem, not a parse.
pub const MAX_JSON_FILE: u64 = super::read::Kind::RunJson.cap();

/// The fixed top-level fields of `meta.json`.
pub const META_FIELDS: [&str; 9] = [
    "schemaVersion",
    "runId",
    "caseId",
    "scope",
    "status",
    "startedAt",
    "finishedAt",
    "stats",
    "runtime",
];
/// The value set of `artifacts.json` `items[].kind`.
pub const ARTIFACT_KINDS: [&str; 6] = [
    "trace",
    "screenshot",
    "video",
    "playwright-report",
    "jsonl",
    "other",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunStatus {
    Passed,
    Failed,
    /// No readable `meta.json` yet: running, or its meta is broken.
    InProgress,
    /// No `meta.json`, and testdeck cancelled it (recorded outside `tests/logs/`).
    Cancelled,
    /// No `meta.json`, and nothing in it was written for `[runs]
    /// abandoned-after-minutes`: its writer is gone.
    Abandoned,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Passed => "passed",
            RunStatus::Failed => "failed",
            RunStatus::InProgress => "in-progress",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Abandoned => "abandoned",
        }
    }
    /// Ended with an outcome (`meta.json`): the runs statistics count.
    pub fn is_finished(self) -> bool {
        matches!(self, RunStatus::Passed | RunStatus::Failed)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetaStats {
    pub duration_ms: Option<u64>,
    pub steps: Option<u64>,
    pub assertions: Option<u64>,
    pub errors: Option<u64>,
    pub artifacts: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetaRuntime {
    pub driver: Option<String>,
    pub target: Option<String>,
    pub model_name: Option<String>,
}

/// `meta.json`, read leniently: every field optional, unknown fields kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    pub schema_version: Option<i64>,
    pub run_id: Option<String>,
    pub case_id: Option<String>,
    pub scope: Option<String>,
    pub status: Option<String>,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    pub stats: MetaStats,
    pub runtime: MetaRuntime,
    /// Top-level fields beyond the fixed ones (a contract drift, still shown).
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// What the views keep of a `meta.json` for every run: its times and counts. The
/// rest (runtime, schema, unknown fields) is read on demand ([`RawRun::details`]):
/// the index grows with runs, so a run costs only what the lists and statistics show.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MetaSummary {
    pub started_at: Option<Box<str>>,
    pub finished_at: Option<Box<str>>,
    stats: [u32; 5],
}

/// A count kept in 32 bits; `u32::MAX` is "none" (and a count that large saturates below it).
const NO_COUNT: u32 = u32::MAX;

fn pack(n: Option<u64>) -> u32 {
    n.map_or(NO_COUNT, |n| {
        u32::try_from(n).unwrap_or(NO_COUNT - 1).min(NO_COUNT - 1)
    })
}

fn unpack(n: u32) -> Option<u64> {
    (n != NO_COUNT).then_some(u64::from(n))
}

impl MetaSummary {
    pub fn of(meta: &Meta) -> MetaSummary {
        let s = &meta.stats;
        MetaSummary {
            started_at: meta.started_at.as_deref().map(Box::from),
            finished_at: meta.finished_at.as_deref().map(Box::from),
            stats: [
                pack(s.duration_ms),
                pack(s.steps),
                pack(s.assertions),
                pack(s.errors),
                pack(s.artifacts),
            ],
        }
    }

    pub fn stats(&self) -> MetaStats {
        let [duration_ms, steps, assertions, errors, artifacts] = self.stats.map(unpack);
        MetaStats {
            duration_ms,
            steps,
            assertions,
            errors,
            artifacts,
        }
    }

    pub fn duration_ms(&self) -> Option<u64> {
        unpack(self.stats[0])
    }
}

/// One run folder.
#[derive(Debug, Clone)]
pub struct RawRun {
    /// The folder's name.
    pub run_id: String,
    /// The parent folder's name (interned: shared by the case's runs).
    pub case_id: Arc<str>,
    /// The folders between `logs/` and the caseId (interned).
    pub scope: Arc<str>,
    /// The run folder, relative to the workspace root.
    pub path: String,
    pub status: RunStatus,
    /// Its `meta.json`'s times and counts, when it reads.
    pub meta: Option<MetaSummary>,
    /// `meta.json` exists but could not be read.
    pub meta_broken: bool,
    pub has_timeline: bool,
    pub has_runtime_events: bool,
    pub has_artifacts_json: bool,
    pub has_artifacts_dir: bool,
}

impl RawRun {
    pub fn key(&self) -> String {
        super::tree::key(&self.scope, &self.case_id)
    }
    /// Temp runs (scope `temp` or `temp/…`) count in no statistic.
    pub fn is_temp(&self) -> bool {
        &*self.scope == "temp" || self.scope.starts_with("temp/")
    }
    pub fn started_at(&self) -> Option<&str> {
        self.meta.as_ref().and_then(|m| m.started_at.as_deref())
    }
    pub fn finished_at(&self) -> Option<&str> {
        self.meta.as_ref().and_then(|m| m.finished_at.as_deref())
    }
    pub fn duration_ms(&self) -> Option<u64> {
        self.meta.as_ref().and_then(MetaSummary::duration_ms)
    }
    /// The whole `meta.json` of this run, read now (the index keeps only its
    /// summary): `None` when it is not there or does not read.
    pub fn details(&self, root: &Path) -> Option<Meta> {
        self.meta.as_ref()?;
        let file = root.join(&self.path).join(super::run::META);
        read_meta(root, &file).ok().map(|(m, _)| m)
    }
    /// When the run started: `startedAt`, or the time in a well-formed runId.
    pub fn start_time(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        self.started_at()
            .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
            .map(|d| d.with_timezone(&chrono::Utc))
            .or_else(|| run_id_time(&self.run_id))
    }
}

/// The time in a `YYYYMMDD-HHmmss-SSS` runId (taken as UTC).
pub fn run_id_time(run_id: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    if !is_run_id(run_id) {
        return None;
    }
    chrono::NaiveDateTime::parse_from_str(&run_id[..15], "%Y%m%d-%H%M%S")
        .ok()
        .map(|n| n.and_utc() + chrono::Duration::milliseconds(run_id[16..].parse().unwrap_or(0)))
}

/// `YYYYMMDD-HHmmss-SSS`.
pub fn is_run_id(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 19
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 15 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
}

#[derive(Debug, Clone, Default)]
pub struct Logs {
    /// Sorted by scope, caseId, then runId (oldest first).
    pub runs: Vec<RawRun>,
}

impl Logs {
    /// Judge every run without `meta.json` (see [`super::run::Judge`]); a run
    /// whose `meta.json` is there but broken stays in progress.
    pub fn judge(&mut self, root: &Path, judge: &super::run::Judge) {
        judge_runs(&mut self.runs, root, judge);
    }

    /// Put the runs in their order (after runs were added).
    pub fn sort(&mut self) {
        // chunks arrive sorted: the sort merges them (runs already in order are cheap)
        self.runs.sort_by(run_order);
    }

    /// Runs of one case (scope + caseId), oldest first.
    pub fn of_case<'a>(
        &'a self,
        scope: &'a str,
        case_id: &'a str,
    ) -> impl Iterator<Item = &'a RawRun> + 'a {
        let start = self
            .runs
            .partition_point(|r| (&*r.scope, &*r.case_id) < (scope, case_id));
        self.runs[start..]
            .iter()
            .take_while(move |r| &*r.scope == scope && &*r.case_id == case_id)
    }
}

impl Logs {
    /// Put one run in its place (sorted), replacing the run of the same folder.
    pub fn upsert(&mut self, run: RawRun) {
        let k = |r: &RawRun| (r.scope.clone(), r.case_id.clone(), r.run_id.clone());
        let key = k(&run);
        match self.runs.binary_search_by(|r| k(r).cmp(&key)) {
            Ok(i) => self.runs[i] = run,
            Err(i) => self.runs.insert(i, run),
        }
    }

    /// Take out the runs whose folder is `path` or below it; their paths.
    pub fn remove_under(&mut self, path: &str) -> Vec<String> {
        let below = |r: &RawRun| {
            r.path == path
                || r.path
                    .strip_prefix(path)
                    .is_some_and(|rest| rest.starts_with('/'))
        };
        let gone: Vec<String> = self
            .runs
            .iter()
            .filter(|r| below(r))
            .map(|r| r.path.clone())
            .collect();
        self.runs.retain(|r| !below(r));
        gone
    }
}

/// Read the one run folder `dir` (under `tests/logs/`) as the scan would: `None`
/// when it holds no run file (yet, or any more).
pub fn read_folder(root: &Path, dir: &Path, problems: &mut Vec<Problem>) -> Option<RawRun> {
    let logs = root.join("tests/logs");
    // a run folder needs a caseId folder above it (the scan says so as a problem)
    if dir == logs || dir.parent() == Some(logs.as_path()) || !dir.starts_with(&logs) {
        return None;
    }
    let mut names = Names::default();
    for ent in std::fs::read_dir(dir).ok()?.flatten() {
        let Ok(ft) = ent.file_type() else { continue };
        match ent.file_name().to_str() {
            Some(super::run::META) if ft.is_file() => names.meta = true,
            Some(super::run::TIMELINE) if ft.is_file() => names.timeline = true,
            Some(super::run::RUNTIME_EVENTS) if ft.is_file() => names.runtime = true,
            Some(super::run::ARTIFACTS) if ft.is_file() => names.artifacts_json = true,
            Some("artifacts") if ft.is_dir() => names.artifacts_dir = true,
            _ => {}
        }
    }
    if !(names.meta || names.timeline) {
        return None;
    }
    let folder = Folder::open(dir).ok()?;
    Some(read_run(root, &logs, dir, &folder, names, problems, None))
}

/// Scan `tests/logs/` for run folders, in parallel, reading each where it is found.
pub fn scan(root: &Path, problems: &mut Vec<Problem>) -> Logs {
    scan_with(root, problems, None)
}

/// [`scan`], and with `contract` the raw-log contract checks of every run
/// folder in the same pass (`validate`): each file is opened once, while its
/// folder is open, and nothing is read again afterwards.
pub fn scan_with(
    root: &Path,
    problems: &mut Vec<Problem>,
    contract: Option<&mut Vec<Problem>>,
) -> Logs {
    let logs = root.join("tests/logs");
    if super::walk::is_link_reported(root, &logs, problems) || !logs.is_dir() {
        return Logs::default();
    }
    let found = match Folder::open(&logs) {
        Ok(f) => {
            let mode = if contract.is_some() {
                Mode::Check
            } else {
                Mode::Read
            };
            scan_dir(root, &logs, &logs, &f, mode)
        }
        Err(e) => Found {
            probs: vec![unreadable_folder(root, &logs, &e)],
            ..Found::default()
        },
    };
    let Found {
        mut runs,
        mut probs,
        checks,
        ..
    } = found;
    // one allocation per scope and caseId, shared by their runs
    let mut names = std::collections::HashSet::new();
    for r in &mut runs {
        r.scope = intern(&mut names, &r.scope);
        r.case_id = intern(&mut names, &r.case_id);
    }
    runs.sort_by(run_order);
    problems.append(&mut probs);
    if let Some(c) = contract {
        c.extend(checks);
    }
    Logs { runs }
}

/// What one folder of `tests/logs/` (and everything under it) holds.
#[derive(Default)]
struct Found {
    runs: Vec<RawRun>,
    /// Load problems.
    probs: Vec<Problem>,
    /// Contract checks (only when asked).
    checks: Vec<Problem>,
    /// Run folders found and not read ([`Mode::Find`]).
    pending: Vec<Pending>,
}

/// A run folder the walk found, not read yet (the staged [`History`]).
#[derive(Debug)]
struct Pending {
    dir: PathBuf,
    names: Names,
}

/// What the walk does at a run folder: read it there, while its folder is open
/// (with or without the contract checks), or only note it for a later read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Read,
    Check,
    Find,
}

impl Found {
    fn merge(mut self, mut other: Found) -> Found {
        self.runs.append(&mut other.runs);
        self.probs.append(&mut other.probs);
        self.checks.append(&mut other.checks);
        self.pending.append(&mut other.pending);
        self
    }
}

fn unreadable_folder(root: &Path, dir: &Path, e: &std::io::Error) -> Problem {
    Problem::warning(
        super::rel(root, dir),
        "unreadable",
        format!("cannot read folder: {e}"),
    )
}

/// [`Logs::judge`] on some runs (one domain's, as they arrive).
pub fn judge_runs(runs: &mut [RawRun], root: &Path, judge: &super::run::Judge) {
    for r in runs {
        if r.status == RunStatus::InProgress && r.meta.is_none() && !r.meta_broken {
            r.status = judge.unfinished(&r.path, &root.join(&r.path));
        }
    }
}

/// One domain's runs (the first folder under `tests/logs/`), read.
#[derive(Debug, Default)]
pub struct Chunk {
    pub domain: String,
    /// Sorted by scope, caseId, then runId.
    pub runs: Vec<RawRun>,
    pub problems: Vec<Problem>,
}

impl Chunk {
    /// Take `later`'s runs and problems into this chunk (several domains handed on
    /// at once); the runs stay sorted.
    pub fn merge(&mut self, mut later: Chunk) {
        self.runs.append(&mut later.runs);
        self.runs.sort_by(run_order);
        self.problems.append(&mut later.problems);
        self.domain = later.domain;
    }
}

/// The history of `tests/logs/` in two stages: [`History::walk`] finds every run
/// folder from the directory entries alone (no file is opened, so the total is
/// known at once), then each `next()` reads one domain's `meta.json` files. A
/// shell shows the tree first and the history as it arrives, domain by domain.
#[derive(Debug)]
pub struct History {
    root: PathBuf,
    logs: PathBuf,
    /// Domains in name order, the next one last (popped).
    domains: Vec<(String, Vec<Pending>)>,
    total: usize,
    problems: Vec<Problem>,
    /// Scopes and caseIds seen so far: one allocation each, shared by their runs.
    names: std::collections::HashSet<Arc<str>>,
}

impl History {
    /// Walk `tests/logs/` (directory entries only, in parallel).
    pub fn walk(root: &Path) -> History {
        let logs = root.join("tests/logs");
        let mut problems = Vec::new();
        let mut found = Vec::new();
        if !super::walk::is_link_reported(root, &logs, &mut problems) && logs.is_dir() {
            let f = match Folder::open(&logs) {
                Ok(f) => scan_dir(root, &logs, &logs, &f, Mode::Find),
                Err(e) => Found {
                    probs: vec![unreadable_folder(root, &logs, &e)],
                    ..Found::default()
                },
            };
            found = f.pending;
            problems.extend(f.probs);
        }
        let total = found.len();
        let mut by_domain: std::collections::BTreeMap<String, Vec<Pending>> =
            std::collections::BTreeMap::new();
        for f in found {
            let domain = f
                .dir
                .strip_prefix(&logs)
                .ok()
                .and_then(|r| r.components().next())
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .unwrap_or_default();
            by_domain.entry(domain).or_default().push(f);
        }
        History {
            root: root.to_path_buf(),
            logs,
            domains: by_domain.into_iter().rev().collect(),
            total,
            problems,
            names: std::collections::HashSet::new(),
        }
    }

    /// Run folders found in all.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The walk's problems (unreadable folders, links, misplaced runs).
    pub fn take_problems(&mut self) -> Vec<Problem> {
        std::mem::take(&mut self.problems)
    }
}

impl Iterator for History {
    type Item = Chunk;

    /// Read the next domain's run folders (in parallel).
    fn next(&mut self) -> Option<Chunk> {
        let (domain, found) = self.domains.pop()?;
        let (root, logs) = (&self.root, &self.logs);
        // a folder gone or unreadable since the walk is a problem, not a run
        let read: Vec<(Option<RawRun>, Vec<Problem>)> = found
            .par_iter()
            .map(|f| match Folder::open(&f.dir) {
                Ok(folder) => {
                    let mut p = Vec::new();
                    let run = read_run(root, logs, &f.dir, &folder, f.names, &mut p, None);
                    (Some(run), p)
                }
                Err(e) => (None, vec![unreadable_folder(root, &f.dir, &e)]),
            })
            .collect();
        let mut chunk = Chunk {
            domain,
            runs: Vec::with_capacity(read.len()),
            problems: Vec::new(),
        };
        for (run, mut p) in read {
            chunk.problems.append(&mut p);
            let Some(mut run) = run else { continue };
            run.scope = intern(&mut self.names, &run.scope);
            run.case_id = intern(&mut self.names, &run.case_id);
            chunk.runs.push(run);
        }
        chunk.runs.sort_by(run_order);
        Some(chunk)
    }
}

/// The shared copy of `s`.
fn intern(names: &mut std::collections::HashSet<Arc<str>>, s: &Arc<str>) -> Arc<str> {
    if let Some(have) = names.get(s) {
        return have.clone();
    }
    names.insert(s.clone());
    s.clone()
}

/// The order of [`Logs::runs`]: scope, caseId, then runId.
fn run_order(a: &RawRun, b: &RawRun) -> std::cmp::Ordering {
    (&a.scope, &a.case_id, &a.run_id).cmp(&(&b.scope, &b.case_id, &b.run_id))
}

/// One folder, held open: its entries' types come from the listing, its run
/// files are read relative to it, its subfolders opened relative to it.
fn scan_dir(root: &Path, logs: &Path, dir: &Path, folder: &Folder, mode: Mode) -> Found {
    let entries = match folder.entries() {
        Ok(e) => e,

        Err(e) => {
            return Found {
                probs: vec![unreadable_folder(root, dir, &e)],
                ..Found::default()
            };
        }
    };
    let mut subdirs = Vec::new();
    let mut names = Names::default();
    let mut links = Vec::new();
    for (name, kind) in entries {
        if kind == EntryKind::Link {
            links.push(Problem::warning(
                super::rel(root, &dir.join(&name)),
                "symlink-not-followed",
                "symbolic link under tests/logs is not followed",
            ));
            continue;
        }
        let run_file = matches!(
            name.to_str(),
            Some(
                super::run::META
                    | super::run::TIMELINE
                    | super::run::RUNTIME_EVENTS
                    | super::run::ARTIFACTS
            )
        );
        if run_file && kind == EntryKind::Special {
            // a FIFO or device under a run file's name is never read (it would
            // block or never end): said, not silently passed over
            links.push(Problem::warning(
                super::rel(root, &dir.join(&name)),
                "not-a-regular-file",
                "a run file that is not a regular file (FIFO, device, socket) is not read",
            ));
            continue;
        }
        let file = kind == EntryKind::File;
        match name.to_str() {
            Some(super::run::META) if file => names.meta = true,
            Some(super::run::TIMELINE) if file => names.timeline = true,
            Some(super::run::RUNTIME_EVENTS) if file => names.runtime = true,
            Some(super::run::ARTIFACTS) if file => names.artifacts_json = true,
            Some("artifacts") if kind == EntryKind::Dir => {
                names.artifacts_dir = true;
                subdirs.push(name);
            }
            // symlinks are never followed: no loops, no escape from the workspace
            _ if kind == EntryKind::Dir => subdirs.push(name),
            _ => {}
        }
    }
    if names.meta || names.timeline {
        if dir == logs || dir.parent() == Some(logs) {
            // a run folder needs at least a caseId folder above it
            return Found {
                probs: vec![Problem::warning(
                    super::rel(root, dir),
                    "log-misplaced",
                    "run files directly under tests/logs or a domain folder: no caseId folder above them",
                )],
                ..Found::default()
            };
        }
        let mut probs = links;
        if mode == Mode::Find {
            return Found {
                pending: vec![Pending {
                    dir: dir.to_path_buf(),
                    names,
                }],
                probs,
                ..Found::default()
            };
        }
        let mut checks = Vec::new();
        let contract = (mode == Mode::Check).then_some(&mut checks);
        let run = read_run(root, logs, dir, folder, names, &mut probs, contract);
        return Found {
            runs: vec![run],
            probs,
            checks,
            pending: Vec::new(),
        };
    }
    let mut found = subdirs
        .par_iter()
        .map(|name| {
            let sub = dir.join(name);
            match folder.sub(name) {
                Ok(f) => scan_dir(root, logs, &sub, &f, mode),
                Err(e) => Found {
                    probs: vec![unreadable_folder(root, &sub, &e)],
                    ..Found::default()
                },
            }
        })
        .reduce(Found::default, Found::merge);
    found.probs.append(&mut links);
    found
}

/// The run files a run folder's listing shows (regular files and the `artifacts/` folder).
#[derive(Debug, Clone, Copy, Default)]
pub struct Names {
    pub meta: bool,
    pub timeline: bool,
    pub runtime: bool,
    pub artifacts_json: bool,
    pub artifacts_dir: bool,
}

/// Who a run is, as its folder `LOGS/<scope…>/<caseId>/<runId>` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderIdent {
    /// The folders between the logs root and the case's, joined with `/`.
    pub scope: String,
    pub case_id: String,
    pub run_id: String,
}

impl FolderIdent {
    /// The identity of the run folder `dir` under the logs root `logs`.
    pub fn of(logs: &Path, dir: &Path) -> FolderIdent {
        let name = |p: &Path| {
            p.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let case_dir = dir.parent().unwrap_or(dir);
        FolderIdent {
            scope: case_dir
                .parent()
                .and_then(|s| s.strip_prefix(logs).ok())
                .map(|s| super::rel(Path::new(""), s))
                .unwrap_or_default(),
            case_id: name(case_dir),
            run_id: name(dir),
        }
    }
}

fn read_run(
    root: &Path,
    logs: &Path,
    dir: &Path,
    folder: &Folder,
    names: Names,
    problems: &mut Vec<Problem>,
    contract: Option<&mut Vec<Problem>>,
) -> RawRun {
    let FolderIdent {
        scope,
        case_id,
        run_id,
    } = FolderIdent::of(logs, dir);
    let path = super::rel(root, dir);
    let mut meta = None;
    let mut meta_broken = false;
    let mut meta_text = String::new();
    if names.meta {
        let rel = format!("{path}/{}", super::run::META);
        // the listing saw a regular file: a link there now is refused
        let parsed = read_json_beneath(
            &rel,
            folder,
            super::run::META,
            "meta",
            super::read::Links::Never,
        )
        .and_then(|(value, text)| {
            let m = meta_from_value(&rel, value, &text);
            meta_text = text;
            m
        });
        match parsed {
            Ok((m, mut p)) => {
                meta = Some(m);
                problems.append(&mut p);
            }
            Err(p) => {
                meta_broken = true;
                problems.push(p);
            }
        }
    }
    let status = match meta.as_ref().and_then(|m| m.status.as_deref()) {
        Some("passed") => RunStatus::Passed,
        Some(_) => RunStatus::Failed,
        // a meta without a status says the run ended but not how: count it failed
        None if meta.is_some() => RunStatus::Failed,
        None => RunStatus::InProgress,
    };
    crate::progress::advance(1);
    if let Some(out) = contract {
        let view = super::contract::RunView {
            path: &path,
            run_id: &run_id,
            case_id: &case_id,
            scope: &scope,
            status,
            meta: meta.as_ref(),
            meta_text: &meta_text,
            names,
        };
        out.extend(super::contract::check_in(&view, folder));
    }
    RawRun {
        run_id,
        case_id: Arc::from(case_id),
        scope: Arc::from(scope),
        path,
        status,
        meta: meta.as_ref().map(MetaSummary::of),
        meta_broken,
        has_timeline: names.timeline,
        has_runtime_events: names.runtime,
        has_artifacts_json: names.artifacts_json,
        has_artifacts_dir: names.artifacts_dir,
    }
}

/// Read the JSON file `name` of the open run folder `folder` (`rel` names it in
/// problems), through the bounded reader's one guard.
pub fn read_json_beneath(
    rel: &str,
    folder: &Folder,
    name: &str,
    rule_prefix: &str,
    links: super::read::Links,
) -> Result<(Value, String), Problem> {
    let bytes = super::read::read_beneath(
        folder.fd(),
        Path::new(name),
        links,
        super::read::Kind::RunJson,
    )
    .map_err(|e| e.problem(rel, rule_prefix))?;
    parse_json_bytes(rel, rule_prefix, bytes)
}

/// Read a JSON file with a size limit; a syntax error is located.
pub fn read_json_file(
    root: &Path,
    file: &Path,
    rule_prefix: &str,
) -> Result<(Value, String), Problem> {
    let rel = super::rel(root, file);
    // a run file stays in its run folder: a link out (to /dev/zero, an outside
    // record) or a FIFO is refused before a byte is read
    let within = file.parent().unwrap_or(root);
    let bytes = super::read::read(file, Some(within), super::read::Kind::RunJson)
        .map_err(|e| e.problem(&rel, rule_prefix))?;
    parse_json_bytes(&rel, rule_prefix, bytes)
}

/// The bytes of a JSON file as a value and its text; a syntax error is located.
fn parse_json_bytes(
    rel: &str,
    rule_prefix: &str,
    bytes: Vec<u8>,
) -> Result<(Value, String), Problem> {
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let (l, c) = super::config::line_col(&text, at);
            return Err(
                Problem::error(rel, &format!("{rule_prefix}-not-utf8"), "invalid UTF-8").at(l, c),
            );
        }
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(v) => Ok((v, text)),
        Err(e) => Err(json_syntax(rel, rule_prefix, &e)),
    }
}

/// The located `<prefix>-syntax` problem of a JSON text that does not parse.
fn json_syntax(rel: &str, rule_prefix: &str, e: &serde_json::Error) -> Problem {
    Problem::error(
        rel,
        &format!("{rule_prefix}-syntax"),
        format!("invalid JSON: {}", timeline::json_error_text(e)),
    )
    .at(e.line() as u32, e.column().max(1) as u32)
}

/// Line and column of the first `"key"` in a JSON text (to locate a value's problem).
pub fn locate_key(text: &str, key: &str) -> (u32, u32) {
    let needle = format!("\"{key}\"");
    text.find(&needle)
        .map_or((0, 0), |at| super::config::line_col(text, at))
}

/// Read `meta.json`. A syntax error is `Err`; wrong types are problems beside a
/// meta that keeps what could be read.
pub fn read_meta(root: &Path, file: &Path) -> Result<(Meta, Vec<Problem>), Problem> {
    let (value, text) = read_json_file(root, file, "meta")?;
    meta_from_value(&super::rel(root, file), value, &text)
}

/// [`read_meta`] on a text already in memory (`rel` names the file in problems);
/// the fuzz target and the tests call it without a file.
pub fn parse_meta(rel: &str, text: &str) -> Result<(Meta, Vec<Problem>), Problem> {
    let value = serde_json::from_str::<Value>(text).map_err(|e| json_syntax(rel, "meta", &e))?;
    meta_from_value(rel, value, text)
}

fn meta_from_value(rel: &str, value: Value, text: &str) -> Result<(Meta, Vec<Problem>), Problem> {
    let Value::Object(mut map) = value else {
        return Err(
            Problem::error(rel, "meta-wrong-type", "meta.json must be a JSON object").at(1, 1),
        );
    };
    let mut problems = Vec::new();
    let mut wrong = |key: &str, want: &str, got: &Value| {
        let (l, c) = locate_key(text, key);
        problems.push(
            Problem::error(
                rel,
                "meta-wrong-type",
                format!("{key} should be {want}, found {}", timeline::kind_of(got)),
            )
            .at(l, c),
        );
    };
    let mut meta = Meta::default();
    let take_str =
        |map: &mut Map<String, Value>, key: &str, wrong: &mut dyn FnMut(&str, &str, &Value)| {
            match map.remove(key) {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s),
                Some(v) => {
                    wrong(key, "a string", &v);
                    None
                }
            }
        };
    meta.run_id = take_str(&mut map, "runId", &mut wrong);
    meta.case_id = take_str(&mut map, "caseId", &mut wrong);
    meta.scope = take_str(&mut map, "scope", &mut wrong);
    meta.status = take_str(&mut map, "status", &mut wrong);
    meta.started_at = take_str(&mut map, "startedAt", &mut wrong);
    meta.finished_at = take_str(&mut map, "finishedAt", &mut wrong);
    match map.remove("schemaVersion") {
        None | Some(Value::Null) => {}
        Some(Value::Number(n)) if n.as_i64().is_some() => meta.schema_version = n.as_i64(),
        Some(v) => wrong("schemaVersion", "an integer", &v),
    }
    match map.remove("stats") {
        None | Some(Value::Null) => {}
        Some(Value::Object(mut s)) => {
            let mut num = |k: &str| match s.remove(k) {
                None | Some(Value::Null) => None,
                Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64(),
                // a float duration is still a duration
                Some(Value::Number(n)) if n.as_f64().is_some_and(|f| f >= 0.0) => {
                    n.as_f64().map(|f| f as u64)
                }
                Some(v) => {
                    wrong(k, "a non-negative number", &v);
                    None
                }
            };
            meta.stats = MetaStats {
                duration_ms: num("durationMs"),
                steps: num("steps"),
                assertions: num("assertions"),
                errors: num("errors"),
                artifacts: num("artifacts"),
            };
        }
        Some(v) => wrong("stats", "an object", &v),
    }
    match map.remove("runtime") {
        None | Some(Value::Null) => {}
        Some(Value::Object(mut r)) => {
            meta.runtime = MetaRuntime {
                driver: take_str(&mut r, "driver", &mut wrong),
                target: take_str(&mut r, "target", &mut wrong),
                model_name: take_str(&mut r, "modelName", &mut wrong),
            };
        }
        Some(v) => wrong("runtime", "an object", &v),
    }
    // the fields taken out leave the map's capacity behind: with 50k runs an empty
    // map per run is tens of MB, so keep only a real remainder
    if !map.is_empty() {
        meta.extra = map.into_iter().collect();
    }
    Ok((meta, problems))
}

/// One `artifacts.json` item.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Artifact {
    pub id: String,
    pub kind: String,
    /// As written, relative to the run folder.
    pub path: String,
    pub step_id: Option<String>,
    pub assertion_id: Option<String>,
    /// The path stays inside the run folder (otherwise it is never opened).
    pub inside: bool,
    /// The file exists.
    pub exists: bool,
}

impl Artifact {
    /// The absolute file, only when it stays inside the run folder.
    pub fn file(&self, run_dir: &Path) -> Option<PathBuf> {
        self.inside.then(|| run_dir.join(&self.path))
    }
}

/// Whether a relative path is spelled inside its folder: no `..` that climbs
/// out, not absolute.
fn spelled_inside(rel: &str) -> bool {
    let mut depth: i32 = 0;
    for c in Path::new(rel).components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    true
}

/// Whether `rel` under the open folder `dir` stays inside it and whether it is
/// there, through the bounded reader's one guard (a link out, absolute or
/// dangling is out; not there yet is judged by the deepest part that is).
fn inside_and_exists(
    dir: std::os::fd::BorrowedFd<'_>,
    rel: &str,
    listed: Option<&[(std::ffi::OsString, EntryKind)]>,
) -> (bool, bool) {
    if !spelled_inside(rel) {
        return (false, false);
    }
    // `artifacts/<name>` of a run whose `artifacts/` folder was listed: the
    // listing says it (a link is still judged by the guard below)
    if let Some(listed) = listed {
        let parts: Vec<_> = Path::new(rel)
            .components()
            .filter(|c| *c != Component::CurDir)
            .collect();
        if let [Component::Normal(a), Component::Normal(name)] = parts.as_slice() {
            if *a == "artifacts" {
                match listed.iter().find(|(n, _)| n == name) {
                    None => return (true, false),
                    Some((_, k)) if *k != EntryKind::Link => return (true, true),
                    Some(_) => {}
                }
            }
        }
    }
    match super::read::locate_beneath(dir, Path::new(rel)) {
        Ok(found) => (true, found.is_some()),
        Err(_) => (false, false),
    }
}

/// Whether a relative path stays inside its folder (no `..` that climbs out, not
/// absolute, and no symlink on the way that leads out).
pub fn stays_inside(base: &Path, rel: &str) -> bool {
    spelled_inside(rel) && Folder::open(base).is_ok_and(|f| inside_and_exists(f.fd(), rel, None).0)
}

/// Read `artifacts.json` of a run folder.
pub fn read_artifacts(root: &Path, run_dir: &Path) -> (Vec<Artifact>, Vec<Problem>) {
    let rel = super::rel(root, &run_dir.join(super::run::ARTIFACTS));
    let read = Folder::open(run_dir)
        .map_err(|e| super::read::Error::Missing(e).problem(&rel, "artifacts"))
        .and_then(|f| {
            read_json_beneath(
                &rel,
                &f,
                super::run::ARTIFACTS,
                "artifacts",
                super::read::Links::Inside,
            )
            .map(|(v, t)| (f, v, t))
        });
    match read {
        Ok((folder, value, text)) => artifacts_from(&rel, &folder, None, &value, &text),
        Err(p) => (Vec::new(), vec![p]),
    }
}

/// The items of a parsed `artifacts.json` (`rel` names it in problems) of the
/// open run folder `folder`, each judged inside or not and there or not
/// (`listed`: the entries of its `artifacts/` folder, when already read).
pub fn artifacts_from(
    rel: &str,
    folder: &Folder,
    listed: Option<&[(std::ffi::OsString, EntryKind)]>,
    value: &Value,
    text: &str,
) -> (Vec<Artifact>, Vec<Problem>) {
    let mut problems = Vec::new();
    let items = match value {
        Value::Object(m) => match m.get("items") {
            Some(Value::Array(a)) => a.as_slice(),
            Some(v) => {
                let (l, c) = locate_key(text, "items");
                problems.push(
                    Problem::error(
                        rel,
                        "artifacts-wrong-type",
                        format!("items should be an array, found {}", timeline::kind_of(v)),
                    )
                    .at(l, c),
                );
                &[]
            }
            None => {
                problems
                    .push(Problem::error(rel, "artifacts-wrong-type", "items is missing").at(1, 1));
                &[]
            }
        },
        v => {
            problems.push(
                Problem::error(
                    rel,
                    "artifacts-wrong-type",
                    format!(
                        "artifacts.json must be an object, found {}",
                        timeline::kind_of(v)
                    ),
                )
                .at(1, 1),
            );
            &[]
        }
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Value::Object(m) = item else {
            problems.push(Problem::error(
                rel,
                "artifacts-wrong-type",
                format!("items[{i}] should be an object"),
            ));
            continue;
        };
        let field = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_owned);
        let Some(path) = field("path") else {
            let (l, c) = locate_key(text, "items");
            problems.push(
                Problem::error(
                    rel,
                    "artifacts-wrong-type",
                    format!("items[{i}].path should be a string"),
                )
                .at(l, c),
            );
            continue;
        };
        let refs = m.get("refs").and_then(Value::as_object);
        let reference = |k: &str| {
            refs.and_then(|r| r.get(k))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let (inside, exists) = inside_and_exists(folder.fd(), &path, listed);
        if !inside {
            let (l, c) = locate_key_value(text, &path);
            problems.push(
                Problem::error(
                    rel,
                    "artifact-path-escapes",
                    format!("path {path:?} leaves the run folder; it is never opened"),
                )
                .at(l, c),
            );
        }
        out.push(Artifact {
            id: field("id").unwrap_or_else(|| format!("#{i}")),
            kind: field("kind").unwrap_or_else(|| "other".into()),
            exists,
            path,
            step_id: reference("stepId"),
            assertion_id: reference("assertionId"),
            inside,
        });
    }
    (out, problems)
}

/// Line and column of the first string value equal to `value` in a JSON text.
pub fn locate_key_value(text: &str, value: &str) -> (u32, u32) {
    let needle = serde_json::to_string(value).unwrap_or_default();
    text.find(&needle)
        .map_or((0, 0), |at| super::config::line_col(text, at))
}

/// A whole timeline read at once (for small files; the tail engine follows big or growing ones).
pub fn read_timeline(root: &Path, file: &Path) -> (Vec<TimelineEvent>, Vec<Problem>) {
    let rel = super::rel(root, file);
    let within = file.parent().unwrap_or(root);
    let bytes = match super::read::read(file, Some(within), super::read::Kind::Timeline) {
        Ok(b) => b,
        Err(e) => return (Vec::new(), vec![e.problem(&rel, "timeline")]),
    };
    let mut events = Vec::new();
    let mut problems = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let (ev, issues) = timeline::parse_line(line);
        for is in issues {
            let sev = if is.rule == "timeline-bad-type" || is.rule == "timeline-bad-status" {
                crate::Severity::Warning
            } else {
                crate::Severity::Error
            };
            let mut p = Problem::error(&rel, is.rule, is.message).at_line(i as u32 + 1);
            p.column = is.column;
            p.severity = sev;
            problems.push(p);
        }
        events.push(ev);
    }
    (events, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids() {
        assert!(is_run_id("20260315-101530-112"));
        assert!(!is_run_id("20260315-101530"));
        assert!(!is_run_id("2026031x-101530-112"));
        let t = run_id_time("20260315-101530-112").expect("time");
        assert_eq!(t.to_rfc3339(), "2026-03-15T10:15:30.112+00:00");
    }

    #[test]
    fn inside_checks() {
        let d = std::env::temp_dir();
        assert!(stays_inside(&d, "artifacts/a.png"));
        assert!(stays_inside(&d, "artifacts/../a.png"));
        assert!(!stays_inside(&d, "../a.png"));
        assert!(!stays_inside(&d, "artifacts/../../a.png"));
        assert!(!stays_inside(&d, "/etc/passwd"));
    }
}
