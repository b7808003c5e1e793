//! The Runs tab: tests runs and catalog run records, newest first, the filter over
//! them and the cursor.

use super::super::action::Command;
use super::super::action::RunData;
use super::list::{ListState, rows_for};
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::fuzzy::Query;
use testdeck_core::workspace::logs::RawRun;
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

    /// The keys that only concern this tab: the cursor moves (`page` rows a page).
    /// Whether `c` was one.
    pub fn handle(&mut self, c: Command, page: isize) -> bool {
        rows_for(c, page).map(|d| self.step(d)).is_some()
    }

    /// Move the cursor by `d` rows (a key, the wheel).
    pub fn step(&mut self, d: isize) {
        self.list.step(d, self.visible.len());
    }

    /// Put the cursor on row `row` of those shown (a click).
    pub fn click(&mut self, row: usize) {
        self.list.click(row, self.visible.len());
    }

    /// Keep the cursor in range and in view of `height` rows.
    pub fn fit(&mut self, height: usize) {
        self.list.fit(self.visible.len(), height);
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

    /// The rows of both sources the filter keeps, newest first.
    pub fn refilter(&mut self, ws: &Workspace) {
        let mut q = Query::new(&self.filter);
        // (start time for the order, row)
        let mut v: Vec<(String, RunRow)> = Vec::new();
        for (i, r) in ws.logs.runs.iter().enumerate() {
            if q.score(&format!("{} {} {}", r.run_id, r.key(), r.status.as_str()))
                .is_some()
            {
                let t = r.start_time().map(|t| t.to_rfc3339()).unwrap_or_default();
                v.push((t, RunRow::Tests(i)));
            }
        }
        for (i, (path, rec)) in self.records.iter().enumerate() {
            let (text, t) = match rec {
                Ok(r) => {
                    let ids: Vec<&str> = r.results.iter().map(|c| c.id.as_str()).collect();
                    let t = chrono::DateTime::parse_from_rfc3339(&r.started_at)
                        .map(|d| d.with_timezone(&chrono::Utc).to_rfc3339())
                        .unwrap_or_default();
                    (
                        format!("{} {} catalog {}", r.run_id, r.label, ids.join(" ")),
                        t,
                    )
                }
                Err(_) => (path.clone(), String::new()),
            };
            if q.score(&text).is_some() {
                v.push((t, RunRow::Record(i)));
            }
        }
        // newest first; ties by row so the order is stable
        v.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| row_key(b.1).cmp(&row_key(a.1))));
        self.visible = v.into_iter().map(|(_, r)| r).collect();
        self.list.clamp_to(self.visible.len());
    }
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
