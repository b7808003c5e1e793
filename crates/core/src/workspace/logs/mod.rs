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
pub use folder::{FolderIdent, read_folder, read_folder_known};
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
    /// What a finished run's timeline says of its tests and its code (`None`:
    /// nothing, as in an older log, or the run is not finished).
    pub tests: Option<Box<crate::workspace::run_tests::RunTests>>,
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
    /// The run ran no test (`data.tests.total` 0, or the framework said so):
    /// why. Such a run is no pass and no duration sample.
    pub fn no_tests(&self) -> Option<&str> {
        self.tests.as_ref().and_then(|t| t.no_tests.as_deref())
    }
    /// The tests of its case file by how they ended, when its timeline says.
    pub fn test_counts(&self) -> Option<&crate::workspace::run_tests::TestCounts> {
        self.tests.as_ref().and_then(|t| t.counts.as_ref())
    }
    /// The code it ran (`run/start`'s `data.code`), when it was recorded.
    pub fn code(&self) -> Option<&crate::workspace::run_tests::Code> {
        self.tests.as_ref().and_then(|t| t.code.as_ref())
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
        self.runs.sort_by(run_order);
    }

    /// The status indexed for the folder of `run` (found by its scope, caseId
    /// and runId), if it is indexed.
    pub fn status_of(&self, run: &RawRun) -> Option<RunStatus> {
        let key = (&*run.scope, &*run.case_id, &*run.run_id);
        self.runs
            .binary_search_by(|r| (&*r.scope, &*r.case_id, &*r.run_id).cmp(&key))
            .ok()
            .map(|i| self.runs[i].status)
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
    /// Put one run in its place (sorted), replacing the run of the same folder;
    /// where it went is written to `moves`.
    pub(crate) fn upsert(&mut self, run: RawRun, moves: &mut RunMoves) {
        let key = (&*run.scope, &*run.case_id, &*run.run_id);
        match self
            .runs
            .binary_search_by(|r| (&*r.scope, &*r.case_id, &*r.run_id).cmp(&key))
        {
            Ok(i) => {
                self.runs[i] = run;
                moves.edits.push(Edit::Replace(i));
            }
            Err(i) => {
                self.runs.insert(i, run);
                moves.edits.push(Edit::Insert(i));
            }
        }
    }

    /// Take out the runs whose folder is `path` or below it; how many. Where
    /// they were, and their cases, are written to `moves`.
    pub(crate) fn remove_under(&mut self, path: &str, moves: &mut RunMoves) -> usize {
        let below = |r: &RawRun| {
            r.path == path
                || r.path
                    .strip_prefix(path)
                    .is_some_and(|rest| rest.starts_with('/'))
        };
        let mut j = 0;
        let mut gone = 0;
        self.runs.retain(|r| {
            let keep = !below(r);
            if !keep {
                // its index once the runs before it that went are gone
                moves.edits.push(Edit::Remove(j - gone));
                moves
                    .cases
                    .insert((r.scope.to_string(), r.case_id.to_string()));
                gone += 1;
            }
            j += 1;
            keep
        });
        gone
    }

    /// Merge runs sorted in the logs' order (a domain of the history) into the
    /// runs; where they went is written to `moves`.
    pub(crate) fn merge_sorted(&mut self, mut more: Vec<RawRun>, moves: &mut RunMoves) {
        if more.is_empty() {
            return;
        }
        more.sort_by(run_order);
        let old = std::mem::take(&mut self.runs);
        self.runs = crate::sorted::merge(old, more, run_order, |i| {
            moves.edits.push(Edit::Insert(i));
        });
    }
}

/// One change of place in [`Logs::runs`], at the index it had when made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Edit {
    /// A run came in at this index (the ones from it on moved one down).
    Insert(usize),
    /// The run at this index went (the ones after it moved one up).
    Remove(usize),
    /// The run at this index was read again (no run moved).
    Replace(usize),
}

/// Where the runs moved with one update of the logs, in the order it was made:
/// what a view holding indices into [`Logs::runs`] needs to follow them without
/// rebuilding itself, and which cases' runs changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunMoves {
    edits: Vec<Edit>,
    /// The cases (scope, caseId) of the runs taken out.
    cases: std::collections::BTreeSet<(String, String)>,
}

impl RunMoves {
    /// No run came, went or was read again.
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// Runs came or went: the indices after them moved.
    pub fn moved(&self) -> bool {
        self.edits.iter().any(|e| !matches!(e, Edit::Replace(_)))
    }

    /// Where each of the `before` runs held before the update is now (`None`:
    /// it went).
    pub fn map(&self, before: usize) -> Vec<Option<usize>> {
        // where each place holds its run from: a leading merge (runs that came
        // in, in the order of their places) in one pass, then edit by edit
        let lead = self
            .edits
            .iter()
            .zip(self.edits.iter().skip(1).map(Some).chain([None]))
            .take_while(|(e, next)| match (e, next) {
                (Edit::Insert(a), Some(Edit::Insert(b))) => a < b,
                (Edit::Insert(_), _) => true,
                _ => false,
            })
            .count();
        let mut origin: Vec<Option<usize>> = Vec::with_capacity(before + lead);
        let mut inserts = self.edits[..lead].iter().peekable();
        let mut next_old = 0;
        while next_old < before || inserts.peek().is_some() {
            match inserts.peek() {
                Some(Edit::Insert(i)) if *i == origin.len() => {
                    inserts.next();
                    origin.push(None);
                }
                _ if next_old < before => {
                    origin.push(Some(next_old));
                    next_old += 1;
                }
                // an insert past the end (not made by the logs)
                _ => {
                    inserts.next();
                    origin.push(None);
                }
            }
        }
        for e in &self.edits[lead..] {
            match *e {
                Edit::Insert(i) => origin.insert(i.min(origin.len()), None),
                Edit::Remove(i) if i < origin.len() => {
                    origin.remove(i);
                }
                Edit::Remove(_) | Edit::Replace(_) => {}
            }
        }
        let mut out = vec![None; before];
        for (now, from) in origin.into_iter().enumerate() {
            if let Some(f) = from {
                out[f] = Some(now);
            }
        }
        out
    }

    /// Only runs that came in, in the order of their places (a merge).
    fn merged(&self) -> bool {
        self.edits.iter().all(|e| matches!(e, Edit::Insert(_)))
            && self.edits.windows(2).all(|w| match (w[0], w[1]) {
                (Edit::Insert(a), Edit::Insert(b)) => a < b,
                _ => false,
            })
    }

    /// How many runs there were before, `now` runs after.
    pub fn len_before(&self, now: usize) -> usize {
        let (mut ins, mut rem) = (0, 0);
        for e in &self.edits {
            match e {
                Edit::Insert(_) => ins += 1,
                Edit::Remove(_) => rem += 1,
                Edit::Replace(_) => {}
            }
        }
        (now + rem).saturating_sub(ins)
    }

    /// The runs that came in or were read again, by their index now (sorted).
    pub fn touched(&self) -> Vec<usize> {
        if self.merged() {
            return self
                .edits
                .iter()
                .filter_map(|e| match e {
                    Edit::Insert(i) => Some(*i),
                    _ => None,
                })
                .collect();
        }
        let mut out: Vec<usize> = Vec::new();
        for e in &self.edits {
            match *e {
                Edit::Insert(i) => {
                    for t in &mut out {
                        if *t >= i {
                            *t += 1;
                        }
                    }
                    out.push(i);
                }
                Edit::Remove(i) => {
                    out.retain(|&t| t != i);
                    for t in &mut out {
                        if *t > i {
                            *t -= 1;
                        }
                    }
                }
                Edit::Replace(i) => out.push(i),
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The cases (scope, caseId) whose runs changed: those of the runs that
    /// came in or were read again (`runs`: the logs now) and of the runs taken out.
    pub fn cases(&self, runs: &[RawRun]) -> std::collections::BTreeSet<(String, String)> {
        let mut out = self.cases.clone();
        for i in self.touched() {
            if let Some(r) = runs.get(i) {
                out.insert((r.scope.to_string(), r.case_id.to_string()));
            }
        }
        out
    }

    /// Take `later`'s edits after these.
    pub fn extend(&mut self, later: RunMoves) {
        self.edits.extend(later.edits);
        self.cases.extend(later.cases);
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

    /// `map` and `touched` follow every run through random insertions,
    /// removals and re-reads, as the runs' own ids say where each went.
    #[test]
    fn run_moves_follow_every_run() {
        for seed in 0..200 {
            let mut rng = fastrand::Rng::with_seed(seed);
            let before: Vec<u32> = (0..rng.usize(0..12) as u32).collect();
            let mut now = before.clone();
            let mut next = 1000;
            let mut moves = RunMoves::default();
            let mut touched_ids = std::collections::BTreeSet::new();
            // a merge (ascending insertions only) in some sequences
            let merge = seed % 4 == 0;
            let mut last_insert = 0;
            for _ in 0..rng.usize(0..8) {
                match rng.u8(0..3) {
                    0 => {
                        let lo = if merge { last_insert } else { 0 };
                        if lo > now.len() {
                            continue;
                        }
                        let i = rng.usize(lo..=now.len());
                        now.insert(i, next);
                        touched_ids.insert(next);
                        next += 1;
                        moves.edits.push(Edit::Insert(i));
                        last_insert = i + 1;
                    }
                    1 if !now.is_empty() && !merge => {
                        let i = rng.usize(0..now.len());
                        touched_ids.remove(&now.remove(i));
                        moves.edits.push(Edit::Remove(i));
                    }
                    2 if !now.is_empty() && !merge => {
                        let i = rng.usize(0..now.len());
                        touched_ids.insert(now[i]);
                        moves.edits.push(Edit::Replace(i));
                    }
                    _ => {}
                }
            }
            assert_eq!(moves.len_before(now.len()), before.len(), "seed {seed}");
            let map = moves.map(before.len());
            for (old, id) in before.iter().enumerate() {
                let want = now.iter().position(|x| x == id);
                assert_eq!(map[old], want, "seed {seed}: run {id}");
            }
            let got: Vec<u32> = moves.touched().iter().map(|&i| now[i]).collect();
            let want: Vec<u32> = now
                .iter()
                .copied()
                .filter(|x| touched_ids.contains(x))
                .collect();
            assert_eq!(got, want, "seed {seed}");
        }
    }

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
