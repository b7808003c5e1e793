//! The Runs tab: tests runs and catalog run records, newest first, the filter over
//! them and the cursor.

use super::super::action::RunData;
use super::list::{ListPane, ListState};
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::fuzzy::Query;
use testdeck_core::workspace::logs::{RawRun, RunMoves};
use testdeck_core::workspace::timeline::TimelineEvent;
use testdeck_exec::record::{RunRecord, Verdict};

/// One row of the Runs tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunRow {
    /// A tests-tree run (index into `ws.logs.runs`).
    Tests(usize),
    /// A catalog run record (index into `RunsTab::records`).
    Record(usize),
}

/// A catalog run record: its path relative to the root, and the record or its problem.
pub type Record = (String, Result<RunRecord, String>);

#[derive(Debug, Clone, Default)]
pub struct RunsTab {
    /// Runs of both sources, newest first, after the filter.
    visible: Vec<RunRow>,
    /// When each visible row's run started (what orders them).
    times: Vec<Started>,
    filter: String,
    list: ListState,
    /// The catalog's run records (oldest first, as they are read).
    records: Vec<Record>,
    /// Each catalog case's latest verdict over the records (see [`RunsTab::reindex`]).
    latest: std::collections::HashMap<String, Verdict>,
    /// The run id of each launch of this session (by launch number), once it said.
    launched: std::collections::HashMap<usize, String>,
}

impl RunsTab {
    /// Runs of both sources, newest first, after the filter.
    pub fn visible(&self) -> &[RunRow] {
        &self.visible
    }

    /// The filter typed (`/`).
    pub fn filter(&self) -> &str {
        &self.filter
    }

    /// The cursor and scroll over the runs shown.
    pub fn list(&self) -> &ListState {
        &self.list
    }

    /// The catalog's run records (oldest first, as they are read).
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// Each catalog case's latest verdict over the records.
    pub fn latest(&self) -> &std::collections::HashMap<String, Verdict> {
        &self.latest
    }

    /// The run id of each launch of this session, by launch number.
    pub fn launched(&self) -> &std::collections::HashMap<usize, String> {
        &self.launched
    }

    /// Put the cursor on row `p` of those shown.
    pub fn set_cursor(&mut self, p: usize) {
        self.list.cursor = p;
    }

    /// The filter line, for the input line to edit (the App refilters after).
    pub fn filter_mut(&mut self) -> &mut String {
        &mut self.filter
    }

    /// Launch `index` said its run id.
    pub fn set_launched(&mut self, index: usize, run_id: String) {
        self.launched.insert(index, run_id);
    }

    /// New records (read again after a run's end or a record write).
    pub fn set_records(&mut self, records: Vec<Record>) {
        self.records = records;
        self.reindex();
    }

    /// The records as they are (oldest first), the readable ones.
    pub fn readable(&self) -> impl DoubleEndedIterator<Item = &RunRecord> {
        self.records.iter().filter_map(|(_, r)| r.as_ref().ok())
    }

    /// The last `n` verdicts of catalog case `id` over the records, newest first.
    pub fn last_verdicts(&self, id: &str, n: usize) -> Vec<testdeck_exec::record::PastVerdict> {
        testdeck_exec::record::last_verdicts(self.readable(), id, n)
    }

    /// Every catalog case's latest verdict, again (after the records changed).
    pub fn reindex(&mut self) {
        let mut latest = std::collections::HashMap::new();
        for rec in self.readable() {
            for r in &rec.results {
                latest.insert(r.id.clone(), r.verdict);
            }
        }
        self.latest = latest;
    }

    /// A person's verdict for `case_id` in the record of launch `launch`, applied
    /// to the record in memory (the runtime writes it to disk and reads the records
    /// again): every row and pane that shows it changes in this frame. The record's
    /// path when it was found.
    pub fn judged(
        &mut self,
        launch: usize,
        case_id: &str,
        verdict: Verdict,
        note: Option<String>,
    ) -> Option<String> {
        let run_id = self.launched.get(&launch)?;
        let (path, rec) = self
            .records
            .iter_mut()
            .find(|(_, r)| r.as_ref().is_ok_and(|r| &r.run_id == run_id))?;
        let rec = rec.as_mut().ok()?;
        if !testdeck_exec::record::judge_in(rec, case_id, verdict, note) {
            return None;
        }
        let path = path.clone();
        self.reindex();
        Some(path)
    }

    /// The row under the cursor.
    pub fn selected(&self) -> Option<RunRow> {
        self.visible.get(self.list.cursor).copied()
    }

    /// The tests run under the cursor.
    pub fn selected_run<'a>(&self, ws: &'a Workspace) -> Option<&'a RawRun> {
        match self.selected()? {
            RunRow::Tests(i) => ws.logs.runs.get(i),
            RunRow::Record(_) => None,
        }
    }

    /// The catalog run record under the cursor: its path and the record.
    pub fn selected_record(&self) -> Option<(&str, &Result<RunRecord, String>)> {
        match self.selected()? {
            RunRow::Record(i) => self.records.get(i).map(|(p, r)| (p.as_str(), r)),
            RunRow::Tests(_) => None,
        }
    }

    /// Every run the tab lists: the tests runs and the catalog run records —
    /// the one count of runs the cockpit shows (the tab's title, the status line).
    pub fn total(&self, ws: Option<&Workspace>) -> usize {
        ws.map_or(0, |w| w.logs.runs.len()) + self.records.len()
    }

    /// Put the cursor on the row of tests run `i` when it is shown.
    pub fn select_run(&mut self, i: usize) {
        if let Some(pos) = self.visible.iter().position(|r| *r == RunRow::Tests(i)) {
            self.list.cursor = pos;
        }
    }

    /// Edit `e` typed on the filter line: the rows it keeps (with `ws` read).
    pub(super) fn edit_filter(&mut self, e: super::input::Edit, ws: Option<&Workspace>) {
        e.apply(&mut self.filter);
        self.refilter_in(ws);
    }

    /// [`RunsTab::refilter`] when a workspace is loaded.
    pub fn refilter_in(&mut self, ws: Option<&Workspace>) {
        if let Some(ws) = ws {
            self.refilter(ws);
        }
    }

    /// The rows of both sources the filter keeps, newest first.
    pub fn refilter(&mut self, ws: &Workspace) {
        let mut q = Query::new(&self.filter);
        let mut v: Vec<(Started, RunRow)> = Vec::new();
        for (i, r) in ws.logs.runs.iter().enumerate() {
            if let Some(t) = tests_row(&mut q, r) {
                v.push((t, RunRow::Tests(i)));
            }
        }
        for (i, (path, rec)) in self.records.iter().enumerate() {
            let (text, t) = match rec {
                Ok(r) => {
                    let ids: Vec<&str> = r.results.iter().map(|c| c.id.as_str()).collect();
                    let t = chrono::DateTime::parse_from_rfc3339(&r.started_at)
                        .ok()
                        .map(|d| started(d.with_timezone(&chrono::Utc)));
                    (
                        format!("{} {} catalog {}", r.run_id, r.label, ids.join(" ")),
                        t,
                    )
                }
                Err(_) => (path.clone(), None),
            };
            if q.score(&text).is_some() {
                v.push((t, RunRow::Record(i)));
            }
        }
        v.sort_by(newest_first);
        (self.times, self.visible) = v.into_iter().unzip();
        self.list.clamp_to(self.visible.len());
    }

    /// Runs came, went or were read again as `moves` says (applied to `ws`
    /// already): the rows follow their runs, the runs touched are filtered and
    /// put in their place — the other rows are not looked at again. The cursor
    /// stays on its run.
    pub fn runs_moved(&mut self, ws: &Workspace, moves: &RunMoves) {
        let runs = &ws.logs.runs;
        let at = self.selected();
        let map = moves
            .moved()
            .then(|| moves.map(moves.len_before(runs.len())));
        let follow = |r: RunRow| match (r, &map) {
            (RunRow::Tests(i), Some(m)) => m.get(i).copied().flatten().map(RunRow::Tests),
            _ => Some(r),
        };
        let touched = moves.touched();
        let is_touched =
            |r: RunRow| matches!(r, RunRow::Tests(i) if touched.binary_search(&i).is_ok());
        let mut kept: Vec<(Started, RunRow)> = Vec::with_capacity(self.visible.len());
        for (t, r) in std::mem::take(&mut self.times)
            .into_iter()
            .zip(std::mem::take(&mut self.visible))
        {
            if let Some(r) = follow(r).filter(|&r| !is_touched(r)) {
                kept.push((t, r));
            }
        }
        let mut q = Query::new(&self.filter);
        let mut new: Vec<(Started, RunRow)> = touched
            .iter()
            .filter_map(|&i| Some((tests_row(&mut q, runs.get(i)?)?, RunRow::Tests(i))))
            .collect();
        new.sort_by(newest_first);
        // both newest first: merged
        let out = testdeck_core::sorted::merge(kept, new, newest_first, |_| {});
        (self.times, self.visible) = out.into_iter().unzip();
        if let Some(p) = at
            .and_then(follow)
            .and_then(|r| self.visible.iter().position(|&v| v == r))
        {
            self.list.cursor = p;
        }
        self.list.clamp_to(self.visible.len());
    }
}

/// When a run started: what orders the Runs tab (`None`: not known, last).
type Started = Option<(i64, u32)>;

fn started(t: chrono::DateTime<chrono::Utc>) -> (i64, u32) {
    (t.timestamp(), t.timestamp_subsec_nanos())
}

/// A tests run's place in the tab when the filter `q` keeps it.
fn tests_row(q: &mut Query, r: &RawRun) -> Option<Started> {
    q.score(&format!("{} {} {}", r.run_id, r.key(), r.status.as_str()))?;
    Some(r.start_time().map(started))
}

/// Newest first; ties by row, so the order is stable.
fn newest_first(a: &(Started, RunRow), b: &(Started, RunRow)) -> std::cmp::Ordering {
    b.0.cmp(&a.0).then_with(|| row_key(b.1).cmp(&row_key(a.1)))
}

fn row_key(r: RunRow) -> (u8, usize) {
    match r {
        RunRow::Tests(i) => (0, i),
        RunRow::Record(i) => (1, i),
    }
}

/// A run record shown in the live pane: one row per case result (only the rows
/// of `case` when one is given: a catalog case's run).
pub fn record_run_data(
    path: &str,
    rec: &Result<testdeck_exec::record::RunRecord, String>,
    case: Option<&str>,
) -> RunData {
    use testdeck_exec::record::Verdict;
    let mut data = RunData {
        path: path.to_owned(),
        ..RunData::default()
    };
    match rec {
        Ok(r) => {
            for p in &r.probes {
                data.events.push_back(TimelineEvent {
                    kind: "signal".into(),
                    name: format!("probe {}", p.category),
                    status: "info".into(),
                    message: p.probe.as_ref().map_or_else(
                        || "no probe".into(),
                        |x| serde_json::to_string(x).unwrap_or_default(),
                    ),
                    ..TimelineEvent::default()
                });
            }
            for c in r
                .results
                .iter()
                .filter(|c| case.is_none_or(|id| c.id == id))
            {
                let status = match c.verdict {
                    Verdict::Pass => "ok",
                    Verdict::Fail | Verdict::EnvironmentFail => "failed",
                    Verdict::Skipped | Verdict::NotRun => "skipped",
                };
                let mut data_v = serde_json::to_value(c).unwrap_or_default();
                if let Some(o) = data_v.as_object_mut() {
                    o.remove("id");
                }
                data.events.push_back(TimelineEvent {
                    ts: Some(c.started_at.clone()),
                    kind: "case".into(),
                    name: format!("{} {}", c.id, c.verdict.as_str()),
                    status: status.into(),
                    message: c.reason.clone().unwrap_or_default(),
                    data: data_v,
                    ..TimelineEvent::default()
                });
            }
        }
        Err(e) => data.problems.push(e.clone()),
    }
    data
}

impl ListPane for RunsTab {
    fn list_mut(&mut self) -> &mut ListState {
        &mut self.list
    }

    fn rows(&self) -> usize {
        self.visible.len()
    }
}
