//! Raw logs (seed 000 §5): run folders under `tests/logs/`, their `meta.json`,
//! `timeline.jsonl`, `runtime-events.jsonl`, `artifacts.json` and `artifacts/`.

mod artifacts;
mod files;
mod folder;
mod history;
mod judge;
mod meta;
mod scan;

pub(crate) use artifacts::spelled_inside;
pub use artifacts::{ARTIFACT_KINDS, Artifact, artifacts_from, read_artifacts, stays_inside};
pub use files::{
    MAX_JSON_FILE, locate_key, locate_key_value, read_json_beneath, read_json_file, read_timeline,
};
pub(crate) use folder::read_run;
pub use folder::{FolderIdent, read_folder};
pub use history::{Chunk, History};
pub use judge::Judge;
pub use meta::{META_FIELDS, Meta, MetaRuntime, MetaStats, MetaSummary, parse_meta, read_meta};
pub(crate) use scan::{Listing, misplaced};
pub use scan::{scan, scan_with};

use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
/// The state of a run: its `meta.json` `status`, or why there is none.
pub enum RunStatus {
    /// `meta.json` says `passed`.
    Passed,
    /// `meta.json` says `failed` (or no status).
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
    /// The name shown and written in JSON (`passed`, `in-progress`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Passed => "passed",
            RunStatus::Failed => "failed",
            RunStatus::InProgress => "in-progress",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Abandoned => "abandoned",
        }
    }
    /// The status a run's `meta.json` says (`None`: none reads yet).
    pub(crate) fn of_meta(meta: Option<&Meta>) -> RunStatus {
        match meta.map(|m| m.status.as_deref()) {
            Some(Some("passed")) => RunStatus::Passed,
            // a meta without a status says the run ended but not how: count it failed
            Some(_) => RunStatus::Failed,
            None => RunStatus::InProgress,
        }
    }
    /// Ended with an outcome (`meta.json`): the runs statistics count.
    pub fn is_finished(self) -> bool {
        matches!(self, RunStatus::Passed | RunStatus::Failed)
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
    /// What its `meta.json` says, or why there is none.
    pub status: RunStatus,
    /// Its `meta.json`'s times and counts, when it reads.
    pub meta: Option<MetaSummary>,
    /// `meta.json` exists but could not be read.
    pub meta_broken: bool,
    /// `timeline.jsonl` is there.
    pub has_timeline: bool,
    /// `runtime-events.jsonl` is there.
    pub has_runtime_events: bool,
    /// `artifacts.json` is there.
    pub has_artifacts_json: bool,
    pub(crate) has_artifacts_dir: bool,
}

impl RawRun {
    /// `scope/caseId`: the case the run belongs to.
    pub fn key(&self) -> String {
        super::tree::key(&self.scope, &self.case_id)
    }
    /// Temp runs (scope `temp` or `temp/…`) count in no statistic.
    pub fn is_temp(&self) -> bool {
        &*self.scope == "temp" || self.scope.starts_with("temp/")
    }
    /// `meta.json` `startedAt`, when it reads.
    pub fn started_at(&self) -> Option<&str> {
        self.meta.as_ref().and_then(|m| m.started_at.as_deref())
    }
    /// `meta.json` `finishedAt`, when it reads.
    pub fn finished_at(&self) -> Option<&str> {
        self.meta.as_ref().and_then(|m| m.finished_at.as_deref())
    }
    /// `meta.json` `stats.durationMs`, when it reads.
    pub fn duration_ms(&self) -> Option<u64> {
        self.meta.as_ref().and_then(MetaSummary::duration_ms)
    }
    /// The whole `meta.json` of this run, read now (the index keeps only its
    /// summary): `None` when it is not there or does not read.
    pub fn details(&self, root: &Path) -> Option<Meta> {
        self.meta.as_ref()?;
        let file = root.join(&self.path).join(super::run_folder::META);
        read_meta(root, &file).ok().map(|(m, _)| m)
    }
    /// Judge the run when it has no `meta.json` (see [`Judge`]); one
    /// whose `meta.json` is there but broken stays in progress.
    pub fn judge(&mut self, root: &Path, judge: &Judge) {
        if self.status == RunStatus::InProgress && self.meta.is_none() && !self.meta_broken {
            self.status = judge.unfinished(&self.path, &root.join(&self.path));
        }
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
/// The raw logs: every run folder `tests/logs/<scope>/<caseId>/<runId>/`.
pub struct Logs {
    /// Sorted by scope, caseId, then runId (oldest first).
    pub runs: Vec<RawRun>,
}

impl Logs {
    /// Judge every run without `meta.json` (see [`Judge`]); a run
    /// whose `meta.json` is there but broken stays in progress.
    pub fn judge(&mut self, root: &Path, judge: &Judge) {
        judge_runs(&mut self.runs, root, judge);
    }

    /// Put the runs in their order (after runs were added).
    pub(crate) fn sort(&mut self) {
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
    pub(crate) fn upsert(&mut self, run: RawRun) {
        let k = |r: &RawRun| (r.scope.clone(), r.case_id.clone(), r.run_id.clone());
        let key = k(&run);
        match self.runs.binary_search_by(|r| k(r).cmp(&key)) {
            Ok(i) => self.runs[i] = run,
            Err(i) => self.runs.insert(i, run),
        }
    }

    /// Take out the runs whose folder is `path` or below it; their paths.
    pub(crate) fn remove_under(&mut self, path: &str) -> Vec<String> {
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

/// [`Logs::judge`] on some runs (one domain's, as they arrive).
pub fn judge_runs(runs: &mut [RawRun], root: &Path, judge: &Judge) {
    for r in runs {
        r.judge(root, judge);
    }
}

/// The order of [`Logs::runs`]: scope, caseId, then runId.
fn run_order(a: &RawRun, b: &RawRun) -> std::cmp::Ordering {
    (&a.scope, &a.case_id, &a.run_id).cmp(&(&b.scope, &b.case_id, &b.run_id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids() {
        for (id, valid) in [
            ("20260315-101530-112", true),
            ("20260315-101530", false),
            ("2026031x-101530-112", false),
        ] {
            assert_eq!(is_run_id(id), valid, "{id}");
        }
        let t = run_id_time("20260315-101530-112").expect("time");
        assert_eq!(t.to_rfc3339(), "2026-03-15T10:15:30.112+00:00");
    }

    #[test]
    fn status_of_meta() {
        let meta = |status: Option<&str>| Meta {
            status: status.map(str::to_owned),
            ..Meta::default()
        };
        assert_eq!(RunStatus::of_meta(None), RunStatus::InProgress);
        assert_eq!(
            RunStatus::of_meta(Some(&meta(Some("passed")))),
            RunStatus::Passed
        );
        assert_eq!(
            RunStatus::of_meta(Some(&meta(Some("failed")))),
            RunStatus::Failed
        );
        assert_eq!(
            RunStatus::of_meta(Some(&meta(Some("weird")))),
            RunStatus::Failed
        );
        // ended, but not said how
        assert_eq!(RunStatus::of_meta(Some(&meta(None))), RunStatus::Failed);
    }
}
