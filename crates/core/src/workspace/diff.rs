//! Comparing two runs of a case: timelines aligned by event `type`+`name`, the
//! first divergence, changed fields, step durations, meta differences, artifacts.

use super::logs::{
    Artifact, FolderIdent, Meta, RawRun, RunStatus, read_artifacts, read_meta, read_timeline,
};
use super::timeline::TimelineEvent;
use super::{Workspace, rel};
use crate::problem::Problem;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One side of a comparison: a run folder read in full.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSide {
    /// Who the run is: its folders under `tests/logs/`, its `meta.json` elsewhere.
    #[serde(flatten)]
    pub ident: FolderIdent,
    /// The run folder, relative to the workspace root (absolute when outside it).
    pub path: String,
    /// `passed`, `failed` or `in-progress`.
    pub status: RunStatus,
    /// `meta.json` `startedAt`.
    pub(crate) started_at: Option<String>,
    /// How long the run took, from `meta.json`.
    pub duration_ms: Option<u64>,
    /// `meta.json` `runtime.modelName`.
    pub model_name: Option<String>,
    #[serde(skip)]
    /// `meta.json`, when it reads.
    pub meta: Option<Meta>,
    #[serde(skip)]
    /// Every event of `timeline.jsonl`, in line order.
    pub(crate) events: Vec<TimelineEvent>,
    #[serde(skip)]
    /// The entries of `artifacts.json`.
    pub artifacts: Vec<Artifact>,
}

impl RunSide {
    /// `scope/caseId`, the identity two compared runs must share.
    pub fn key(&self) -> String {
        super::tree::key(&self.ident.scope, &self.ident.case_id)
    }
}

/// Read a run folder (anywhere: the logs tree or a copy). Broken files are
/// problems beside what could be read; a folder with neither `meta.json` nor
/// `timeline.jsonl` is an error.
pub fn load_side(root: &Path, dir: &Path) -> Result<(RunSide, Vec<Problem>), String> {
    let meta_file = dir.join(super::run_folder::META);
    let timeline_file = dir.join(super::run_folder::TIMELINE);
    let shown = rel(root, dir);
    // there as any kind of entry: a link out or a FIFO is read, and refused, as a problem
    let present = |p: &Path| std::fs::symlink_metadata(p).is_ok();
    if !present(&meta_file) && !present(&timeline_file) {
        return Err(format!(
            "{shown}: not a run folder (no meta.json or timeline.jsonl)"
        ));
    }
    let mut problems = Vec::new();
    let meta = if present(&meta_file) {
        match read_meta(root, &meta_file) {
            Ok((m, mut p)) => {
                problems.append(&mut p);
                Some(m)
            }
            Err(p) => {
                problems.push(p);
                None
            }
        }
    } else {
        None
    };
    let events = if present(&timeline_file) {
        let (mut ev, mut p) = read_timeline(root, &timeline_file);
        problems.append(&mut p);
        // two runs differing only in a runner's colours are equal
        ev.iter_mut().for_each(strip_event_sgr);
        ev
    } else {
        Vec::new()
    };
    let artifacts = if present(&dir.join(super::run_folder::ARTIFACTS)) {
        let (a, mut p) = read_artifacts(root, dir);
        problems.append(&mut p);
        a
    } else {
        Vec::new()
    };
    let m = meta.as_ref();
    let logs = root.join("tests/logs");
    // the folders say who the run is; meta only fills in what they cannot
    let ident = if dir
        .strip_prefix(&logs)
        .is_ok_and(|r| r.components().count() >= 2)
    {
        FolderIdent::of(&logs, dir)
    } else {
        let name = |p: Option<&Path>| {
            p.and_then(Path::file_name)
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        FolderIdent {
            run_id: name(Some(dir)),
            case_id: m
                .and_then(|m| m.case_id.clone())
                .unwrap_or_else(|| name(dir.parent())),
            scope: m.and_then(|m| m.scope.clone()).unwrap_or_default(),
        }
    };
    let status = RunStatus::of_meta(m);
    let side = RunSide {
        ident,
        path: shown,
        status,
        started_at: m.and_then(|m| m.started_at.clone()),
        duration_ms: m.and_then(|m| m.stats.duration_ms),
        model_name: m.and_then(|m| m.runtime.model_name.clone()),
        meta,
        events,
        artifacts,
    };
    Ok((side, problems))
}

/// Why a RUN argument could not be resolved (a usage error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolveError {
    /// No run folder at this path or with this runId.
    NotFound(String),
    /// A folder with neither `meta.json` nor `timeline.jsonl`.
    NotARun(String),
    /// Several runs of the tests tree share this runId: their folders.
    Ambiguous(String, Vec<String>),
}

impl std::fmt::Display for ResolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResolveError::NotFound(a) => write!(f, "{a}: no run folder or runId matches"),
            ResolveError::NotARun(a) => {
                write!(f, "{a}: not a run folder (no meta.json or timeline.jsonl)")
            }
            ResolveError::Ambiguous(a, c) => write!(
                f,
                "runId {a} is ambiguous; name the folder: {}",
                c.join(", ")
            ),
        }
    }
}

/// A RUN argument: a run folder (relative to the root, to the current folder,
/// or absolute) or a runId among the tests-tree runs.
pub fn resolve_run(ws: &Workspace, arg: &str) -> Result<PathBuf, ResolveError> {
    let p = Path::new(arg);
    let under_root = ws.root.join(p);
    let is_run = |d: &Path| super::run_folder::is_run_folder(d);
    if is_run(&under_root) {
        return Ok(under_root);
    }
    if is_run(p) {
        return Ok(p.to_path_buf());
    }
    let found: Vec<&RawRun> = ws.logs.runs.iter().filter(|r| r.run_id == arg).collect();
    match found.as_slice() {
        [] if under_root.is_dir() || p.is_dir() => Err(ResolveError::NotARun(arg.to_owned())),
        [] => Err(ResolveError::NotFound(arg.to_owned())),
        [one] => Ok(ws.root.join(&one.path)),
        many => Err(ResolveError::Ambiguous(
            arg.to_owned(),
            many.iter().map(|r| r.path.clone()).collect(),
        )),
    }
}

/// The default pair of `diff --case`: the latest passed and the latest failed run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PairError {
    /// No case with this key or caseId has runs.
    NoCase(String),
    /// A bare caseId found under several scopes: their `scope/caseId` keys.
    AmbiguousCase(String, Vec<String>),
    /// The case has no passed (`"passed"`) or no failed (`"failed"`) run.
    Missing(String, &'static str),
}

impl std::fmt::Display for PairError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PairError::NoCase(c) => write!(f, "{c}: no runs of this case"),
            PairError::AmbiguousCase(c, keys) => {
                write!(
                    f,
                    "caseId {c} is in several scopes; name one: {}",
                    keys.join(", ")
                )
            }
            PairError::Missing(c, which) => write!(f, "{c} has no {which} run to compare"),
        }
    }
}

/// Latest passed and latest failed finished run of a case (`caseId` or
/// `scope/caseId`), as folders relative to the root: `(passed, failed)`.
pub fn default_pair(ws: &Workspace, case: &str) -> Result<(String, String), PairError> {
    let case = case.trim_matches('/');
    let mut keys: Vec<String> = ws
        .logs
        .runs
        .iter()
        .filter(|r| r.key() == case)
        .map(RawRun::key)
        .collect();
    if keys.is_empty() {
        keys = ws
            .logs
            .runs
            .iter()
            .filter(|r| *r.case_id == *case)
            .map(RawRun::key)
            .collect();
    }
    keys.dedup();
    let key = match keys.as_slice() {
        [] => return Err(PairError::NoCase(case.to_owned())),
        [k] => k.clone(),
        many => return Err(PairError::AmbiguousCase(case.to_owned(), many.to_vec())),
    };
    let runs: Vec<&RawRun> = ws.logs.runs.iter().filter(|r| r.key() == key).collect();
    // runIds sort in time order, and the logs are sorted by runId
    let latest = |s: RunStatus| {
        runs.iter()
            .rev()
            .find(|r| r.status == s)
            .map(|r| r.path.clone())
    };
    let passed = latest(RunStatus::Passed).ok_or(PairError::Missing(key.clone(), "passed"))?;
    let failed = latest(RunStatus::Failed).ok_or(PairError::Missing(key, "failed"))?;
    Ok((passed, failed))
}

/// One field that differs: `a` / `b` are absent (not `null`) where a side has no value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldChange {
    /// `status`, `message`, `id`, `data` or `data.PATH`.
    pub field: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Run A's value.
    pub a: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Run B's value.
    pub b: Option<Value>,
}

/// One event of one side, with its place in that side's timeline.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SideEvent {
    /// 0-based position among the side's events (the line order of timeline.jsonl).
    pub(crate) index: usize,
    /// The event as read.
    pub event: TimelineEvent,
}

/// One row of the aligned timelines.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlignedEvent {
    /// `type:name`, with `#N` for the N-th (N ≥ 2) event of the same type and name.
    pub key: String,
    /// Run A's event, when it has it.
    pub a: Option<SideEvent>,
    /// Run B's event, when it has it.
    pub b: Option<SideEvent>,
    /// `status`, `message`, `id`, and `data` or `data.PATH` for each JSON path that differs.
    pub changes: Vec<FieldChange>,
    /// Run A's time from the previous event to this one.
    pub duration_ms_a: Option<u64>,
    /// Run B's time from the previous event to this one.
    pub duration_ms_b: Option<u64>,
}

impl AlignedEvent {
    /// Whether the two sides' statuses differ (or one side lacks the event).
    pub fn status_differs(&self) -> bool {
        match (&self.a, &self.b) {
            (Some(a), Some(b)) => a.event.status != b.event.status,
            _ => true,
        }
    }
}

/// Why the two timelines first part ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum DivergenceReason {
    /// Both runs have the event, with a different `status`.
    Status,
    /// Only run A has it.
    OnlyInA,
    /// Only run B has it.
    OnlyInB,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
/// Where the two timelines first part ways.
pub struct Divergence {
    /// Position in `events`.
    pub index: usize,
    /// The aligned event's key (`type:name`, `#N`).
    pub key: String,
    /// Why they part there.
    pub(crate) reason: DivergenceReason,
    /// Run A's event there.
    pub a: Option<TimelineEvent>,
    /// Run B's event there.
    pub b: Option<TimelineEvent>,
}

/// What `diff` and the compare screen say when the runs never diverge.
pub const NO_DIVERGENCE: &str = "first divergence: none (same events, same statuses)";

impl Divergence {
    /// Why the runs diverge here, for a person (`status passed → failed`,
    /// `only in A`); statuses escaped.
    pub fn why(&self) -> String {
        match self.reason {
            DivergenceReason::Status => format!(
                "status {} → {}",
                crate::sanitize::escape(self.a.as_ref().map_or("", |e| e.status.as_str())),
                crate::sanitize::escape(self.b.as_ref().map_or("", |e| e.status.as_str()))
            ),
            DivergenceReason::OnlyInA => "only in A".into(),
            DivergenceReason::OnlyInB => "only in B".into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
/// The `artifacts.json` entries of both runs.
pub struct ArtifactLists {
    /// Run A's.
    pub a: Vec<Artifact>,
    /// Run B's.
    pub b: Vec<Artifact>,
}

/// The comparison of two runs.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunDiff {
    /// The first run.
    pub a: RunSide,
    /// The second run.
    pub b: RunSide,
    /// The first divergence, `None` when the runs never diverge.
    pub first_divergence: Option<Divergence>,
    /// The two timelines aligned event by event.
    pub events: Vec<AlignedEvent>,
    /// The `meta.json` fields that differ.
    pub meta: Vec<FieldChange>,
    /// Both runs' artifacts.
    pub artifacts: ArtifactLists,
    /// What was wrong reading either run (broken lines are still compared).
    pub problems: Vec<Problem>,
}

impl RunDiff {
    /// The runs differ in their timelines or meta.
    pub fn differs(&self) -> bool {
        self.first_divergence.is_some()
            || !self.meta.is_empty()
            || self.events.iter().any(|e| !e.changes.is_empty())
    }
}

/// `type:name` keys with occurrence numbers, so repeated events stay distinct.
pub(crate) fn event_keys(events: &[TimelineEvent]) -> Vec<String> {
    let mut seen: HashMap<(&str, &str), usize> = HashMap::new();
    events
        .iter()
        .map(|e| {
            let n = seen.entry((e.kind.as_str(), e.name.as_str())).or_insert(0);
            *n += 1;
            if *n == 1 {
                format!("{}:{}", e.kind, e.name)
            } else {
                format!("{}:{}#{}", e.kind, e.name, n)
            }
        })
        .collect()
}

/// The longest common subsequence of two key lists whose keys are unique on
/// each side: pairs `(i, j)` of equal keys. Unique keys make it a longest
/// increasing subsequence over the B positions, O(n log n) for any size.
pub(crate) fn align(a: &[String], b: &[String]) -> Vec<(usize, usize)> {
    let pos_b: HashMap<&str, usize> = b.iter().enumerate().map(|(j, k)| (k.as_str(), j)).collect();
    let pairs: Vec<(usize, usize)> = a
        .iter()
        .enumerate()
        .filter_map(|(i, k)| pos_b.get(k.as_str()).map(|&j| (i, j)))
        .collect();
    // patience: tails[len] = index into pairs of the smallest tail of an
    // increasing run of length len+1
    let mut tails: Vec<usize> = Vec::new();
    let mut prev: Vec<Option<usize>> = vec![None; pairs.len()];
    for (p, &(_, j)) in pairs.iter().enumerate() {
        let at = tails.partition_point(|&t| pairs[t].1 < j);
        if at > 0 {
            prev[p] = Some(tails[at - 1]);
        }
        if at == tails.len() {
            tails.push(p);
        } else {
            tails[at] = p;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut cur = tails.last().copied();
    while let Some(p) = cur {
        out.push(pairs[p]);
        cur = prev[p];
    }
    out.reverse();
    out
}

/// How long each event took: its `data.durationMs` when present, else the time
/// to the next event's `ts` (none for the last event or an unreadable `ts`).
pub(crate) fn durations(events: &[TimelineEvent]) -> Vec<Option<u64>> {
    let ts: Vec<Option<chrono::DateTime<chrono::FixedOffset>>> = events
        .iter()
        .map(|e| {
            e.ts.as_deref()
                .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        })
        .collect();
    events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            if let Some(d) = e.data.get("durationMs").and_then(Value::as_f64) {
                if d >= 0.0 {
                    return Some(d.round() as u64);
                }
            }
            let (Some(now), Some(Some(next))) = (ts[i], ts.get(i + 1)) else {
                return None;
            };
            u64::try_from((*next - now).num_milliseconds()).ok()
        })
        .collect()
}

/// Every JSON path where `a` and `b` differ, `prefix` first (`data`,
/// `data.user.name`, `data.items[2]`). A value present on one side only has
/// the other side absent.
pub(crate) fn json_changes(
    prefix: &str,
    a: Option<&Value>,
    b: Option<&Value>,
    out: &mut Vec<FieldChange>,
) {
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            for (k, va) in x {
                json_changes(&join_key(prefix, k), Some(va), y.get(k), out);
            }
            for (k, vb) in y {
                if !x.contains_key(k) {
                    json_changes(&join_key(prefix, k), None, Some(vb), out);
                }
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) => {
            for i in 0..x.len().max(y.len()) {
                json_changes(&format!("{prefix}[{i}]"), x.get(i), y.get(i), out);
            }
        }
        (x, y) if x == y => {}
        (x, y) => out.push(FieldChange {
            field: prefix.to_owned(),
            a: x.cloned(),
            b: y.cloned(),
        }),
    }
}

fn join_key(prefix: &str, k: &str) -> String {
    let plain = !k.is_empty()
        && k.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '$');
    if plain {
        format!("{prefix}.{k}")
    } else {
        // a key with dots or brackets stays one step of the path
        format!("{prefix}[{}]", serde_json::to_string(k).unwrap_or_default())
    }
}

fn event_changes(a: &TimelineEvent, b: &TimelineEvent) -> Vec<FieldChange> {
    let mut out = Vec::new();
    let mut text = |field: &str, x: &str, y: &str| {
        if x != y {
            out.push(FieldChange {
                field: field.to_owned(),
                a: Some(Value::String(x.to_owned())),
                b: Some(Value::String(y.to_owned())),
            });
        }
    };
    text("status", &a.status, &b.status);
    text("message", &a.message, &b.message);
    if a.id != b.id {
        out.push(FieldChange {
            field: "id".into(),
            a: a.id.clone().map(Value::String),
            b: b.id.clone().map(Value::String),
        });
    }
    // a null data is "no data", as a missing one
    let da = (!a.data.is_null()).then_some(&a.data);
    let db = (!b.data.is_null()).then_some(&b.data);
    json_changes("data", da, db, &mut out);
    out
}

/// The meta fields compared, in the order shown.
fn meta_changes(a: &RunSide, b: &RunSide) -> Vec<FieldChange> {
    let fields = |s: &RunSide| -> Vec<(&'static str, Option<Value>)> {
        let m = s.meta.clone().unwrap_or_default();
        let num = |n: Option<u64>| n.map(Value::from);
        let st = |x: Option<String>| x.map(Value::String);
        vec![
            ("status", Some(Value::String(s.status.as_str().to_owned()))),
            ("stats.durationMs", num(m.stats.duration_ms)),
            ("stats.steps", num(m.stats.steps)),
            ("stats.assertions", num(m.stats.assertions)),
            ("stats.errors", num(m.stats.errors)),
            ("stats.artifacts", num(m.stats.artifacts)),
            ("runtime.modelName", st(m.runtime.model_name)),
            ("runtime.driver", st(m.runtime.driver)),
            ("runtime.target", st(m.runtime.target)),
            ("schemaVersion", m.schema_version.map(Value::from)),
        ]
    };
    fields(a)
        .into_iter()
        .zip(fields(b))
        .filter(|((_, x), (_, y))| x != y)
        .map(|((f, x), (_, y))| FieldChange {
            field: f.to_owned(),
            a: x,
            b: y,
        })
        .collect()
}

/// Compare two read runs.
pub(crate) fn compare(a: RunSide, b: RunSide, problems: Vec<Problem>) -> RunDiff {
    let ka = event_keys(&a.events);
    let kb = event_keys(&b.events);
    let da = durations(&a.events);
    let db = durations(&b.events);
    let pairs = align(&ka, &kb);
    let mut events = Vec::with_capacity(ka.len().max(kb.len()));
    let side = |evs: &[TimelineEvent], i: usize| SideEvent {
        index: i,
        event: evs[i].clone(),
    };
    let (mut i, mut j) = (0, 0);
    let anchors = pairs
        .iter()
        .copied()
        .chain(std::iter::once((ka.len(), kb.len())));
    for (pi, pj) in anchors {
        // what lies between two anchors is removed (A only), then inserted (B only)
        while i < pi {
            events.push(AlignedEvent {
                key: ka[i].clone(),
                a: Some(side(&a.events, i)),
                b: None,
                changes: Vec::new(),
                duration_ms_a: da[i],
                duration_ms_b: None,
            });
            i += 1;
        }
        while j < pj {
            events.push(AlignedEvent {
                key: kb[j].clone(),
                a: None,
                b: Some(side(&b.events, j)),
                changes: Vec::new(),
                duration_ms_a: None,
                duration_ms_b: db[j],
            });
            j += 1;
        }
        if pi < ka.len() && pj < kb.len() {
            events.push(AlignedEvent {
                key: ka[pi].clone(),
                a: Some(side(&a.events, pi)),
                b: Some(side(&b.events, pj)),
                changes: event_changes(&a.events[pi], &b.events[pj]),
                duration_ms_a: da[pi],
                duration_ms_b: db[pj],
            });
            i = pi + 1;
            j = pj + 1;
        }
    }
    let first_divergence = events
        .iter()
        .enumerate()
        .find(|(_, e)| e.status_differs())
        .map(|(index, e)| Divergence {
            index,
            key: e.key.clone(),
            reason: match (&e.a, &e.b) {
                (Some(_), None) => DivergenceReason::OnlyInA,
                (None, Some(_)) => DivergenceReason::OnlyInB,
                _ => DivergenceReason::Status,
            },
            a: e.a.as_ref().map(|s| s.event.clone()),
            b: e.b.as_ref().map(|s| s.event.clone()),
        });
    let meta = meta_changes(&a, &b);
    let artifacts = ArtifactLists {
        a: a.artifacts.clone(),
        b: b.artifacts.clone(),
    };
    RunDiff {
        a,
        b,
        first_divergence,
        events,
        meta,
        artifacts,
        problems,
    }
}

/// Read and compare two run folders.
pub fn diff_runs(root: &Path, dir_a: &Path, dir_b: &Path) -> Result<RunDiff, String> {
    let (a, mut pa) = load_side(root, dir_a)?;
    let (b, mut pb) = load_side(root, dir_b)?;
    pa.append(&mut pb);
    Ok(compare(a, b, pa))
}

// ---- text pieces every shell shows a comparison with ------------------------

/// `1234` ms as `1.2s` / `850ms` / `2m03s`.
pub fn fmt_ms(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else {
        format!("{}m{:02}s", ms / 60_000, (ms / 1000) % 60)
    }
}

/// ✓ ok/passed, ✗ failed, - skipped, · info or anything else.
pub fn mark(status: &str) -> &'static str {
    match status {
        "ok" | "passed" => "✓",
        "failed" => "✗",
        "skipped" => "-",
        "in-progress" => "…",
        _ => "·",
    }
}

/// An event without the SGR sequences in its text and its data's strings.
fn strip_event_sgr(e: &mut TimelineEvent) {
    fn strip(s: &mut String) {
        if let std::borrow::Cow::Owned(o) = crate::sanitize::strip_sgr(s) {
            *s = o;
        }
    }
    fn strip_value(v: &mut Value) {
        match v {
            Value::String(s) => strip(s),
            Value::Array(a) => a.iter_mut().for_each(strip_value),
            Value::Object(m) => m.values_mut().for_each(strip_value),
            _ => {}
        }
    }
    strip(&mut e.name);
    strip(&mut e.message);
    strip_value(&mut e.data);
    e.extra.values_mut().for_each(strip_value);
}

/// A JSON value on one line, escaped; absent is `—`.
pub fn value_text(v: Option<&Value>) -> String {
    match v {
        None => "—".into(),
        Some(Value::String(s)) => crate::sanitize::escape(&format!("{s:?}")).into_owned(),
        Some(v) => crate::sanitize::escape(&v.to_string()).into_owned(),
    }
}

/// The change of an event's duration from A to B (`+120ms`, `-40ms`), or empty.
pub fn delta(e: &AlignedEvent) -> String {
    match (e.duration_ms_a, e.duration_ms_b) {
        (Some(a), Some(b)) if a != b => {
            let d = i128::from(b) - i128::from(a);
            if d > 0 {
                format!("+{d}ms")
            } else {
                format!("{d}ms")
            }
        }
        _ => String::new(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::testkit::strings;
    use serde_json::json;

    fn ev(kind: &str, name: &str, status: &str) -> TimelineEvent {
        TimelineEvent {
            kind: kind.into(),
            name: name.into(),
            status: status.into(),
            ..TimelineEvent::default()
        }
    }

    #[test]
    fn repeated_names_get_occurrence_numbers() {
        let k = event_keys(&[
            ev("step", "x", "ok"),
            ev("assertion", "x", "ok"),
            ev("step", "x", "ok"),
        ]);
        assert_eq!(k, ["step:x", "assertion:x", "step:x#2"]);
    }

    #[test]
    fn align_is_a_longest_common_subsequence() {
        let a = strings(&["r", "s1", "s2", "s3", "e"]);
        let b = strings(&["r", "s2", "x", "s3", "s1", "e"]);
        let p = align(&a, &b);
        // r, s2, s3, e (4) beats r, s1, e (3)
        assert_eq!(p, [(0, 0), (2, 1), (3, 3), (4, 5)]);
        assert!(align(&a, &[]).is_empty());
    }

    #[test]
    fn json_paths_of_changes() {
        let mut out = Vec::new();
        json_changes(
            "data",
            Some(&json!({"n": 1, "same": true, "list": [1, 2], "a.b": 1, "gone": 0})),
            Some(&json!({"n": 2, "same": true, "list": [1, 3, 4], "a.b": 2, "new": {"x": 1}})),
            &mut out,
        );
        let fields: Vec<&str> = out.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "data.n",
                "data.list[1]",
                "data.list[2]",
                "data[\"a.b\"]",
                "data.gone",
                "data.new"
            ]
        );
        assert_eq!(out[2].a, None);
        assert_eq!(out[2].b, Some(json!(4)));
        assert_eq!(out[4].b, None);
    }

    #[test]
    fn durations_from_next_ts_or_data() {
        let mut a = ev("step", "a", "ok");
        a.ts = Some("2026-01-01T00:00:00.000Z".into());
        let mut b = ev("step", "b", "ok");
        b.ts = Some("2026-01-01T00:00:01.250Z".into());
        b.data = json!({"durationMs": 40});
        let mut c = ev("step", "c", "ok");
        c.ts = Some("2026-01-01T00:00:02.000Z".into());
        assert_eq!(durations(&[a, b, c]), [Some(1250), Some(40), None]);
    }

    fn side(events: Vec<TimelineEvent>) -> RunSide {
        RunSide {
            ident: FolderIdent {
                run_id: "r".into(),
                case_id: "c".into(),
                scope: "s".into(),
            },
            path: "p".into(),
            status: RunStatus::Passed,
            started_at: None,
            duration_ms: None,
            model_name: None,
            meta: None,
            events,
            artifacts: Vec::new(),
        }
    }

    #[test]
    fn runs_differing_only_in_colour_are_equal() {
        let plain = ev("assertion", "a", "failed");
        let mut coloured = plain.clone();
        let mut p = plain.clone();
        p.message = "expect(got).toBe(want)".into();
        p.data = serde_json::json!({"error": {"message": "got ✗"}});
        coloured.message =
            "\x1b[2mexpect(\x1b[22m\x1b[31mgot\x1b[39m\x1b[2m).\x1b[22mtoBe(want)".into();
        coloured.data = serde_json::json!({"error": {"message": "\x1b[31mgot\x1b[39m ✗"}});
        strip_event_sgr(&mut coloured);
        assert!(event_changes(&p, &coloured).is_empty(), "{coloured:?}");
        // anything else than SGR is a difference still
        let mut other = p.clone();
        other.message = "expect(got)\x1b[2J.toBe(want)".into();
        strip_event_sgr(&mut other);
        assert_eq!(event_changes(&p, &other).len(), 1);
    }

    #[test]
    fn first_divergence_is_inserted_event_or_status() {
        let a = side(vec![
            ev("run", "start", "info"),
            ev("step", "open", "ok"),
            ev("assertion", "shown", "ok"),
        ]);
        let b = side(vec![
            ev("run", "start", "info"),
            ev("step", "retry", "ok"),
            ev("step", "open", "ok"),
            ev("assertion", "shown", "failed"),
        ]);
        let d = compare(a.clone(), b, Vec::new());
        let fd = d.first_divergence.clone().unwrap();
        assert_eq!((fd.index, fd.key.as_str()), (1, "step:retry"));
        assert_eq!(fd.reason, DivergenceReason::OnlyInB);
        assert_eq!(d.events[3].changes[0].field, "status");
        let same = compare(a.clone(), a, Vec::new());
        assert!(same.first_divergence.is_none() && !same.differs());
    }
}
