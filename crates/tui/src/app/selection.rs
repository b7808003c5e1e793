//! The selection → the run the live pane shows: a run folder, a run record, or
//! nothing (`Live::show_wanted` follows it).

use super::super::action::RunData;
use super::pane::Shared;
use super::{RunRef, RunRow, RunsTab, Tab, record_run_data};

/// The one path from the selection to the run every pane shows: the subject
/// the details show (a tests case or folder, a catalog case or category, a
/// run) → its run (the latest of a case; the launch of it while one runs) →
/// the rows of the timeline and the artifacts beside it.
pub fn wanted_run(s: &Shared) -> Option<RunRef> {
    match s.tab {
        Tab::Runs => match s.runs.selected()? {
            RunRow::Tests(_) => s.selected_run().map(|r| RunRef::Folder(r.path.clone())),
            RunRow::Record(i) => s
                .runs
                .records()
                .get(i)
                .map(|(p, _)| RunRef::Record(p.clone())),
        },
        // the case is being launched: its launch is its run
        Tab::Tests => s.case_run(s.selected_case()?),
        Tab::Catalog => {
            let id = s.selected_catalog_case()?.id.as_str();
            if s.live.launch() == Some(id) {
                return s.live.wanted().cloned();
            }
            // the record of the case's latest verdict (the one the details show)
            let latest = s.runs.last_verdicts(id, 1).pop()?;
            s.runs
                .records()
                .iter()
                .rev()
                .find(|(_, r)| r.as_ref().is_ok_and(|r| r.run_id == latest.run_id))
                .map(|(p, _)| RunRef::Case(p.clone(), id.to_owned()))
        }
    }
}

/// The rows of a run record the live pane shows: the whole record, or the
/// rows of one catalog case in it.
pub fn record_data(runs: &RunsTab, want: &RunRef) -> Option<RunData> {
    let (path, case) = match want {
        RunRef::Record(p) => (p, None),
        RunRef::Case(p, id) => (p, Some(id.as_str())),
        RunRef::Folder(_) | RunRef::Launch(_) => return None,
    };
    runs.records()
        .iter()
        .find(|(p, _)| p == path)
        .map(|(p, r)| record_run_data(p, r, case))
}

impl Tab {
    /// Whether a launch takes the live pane: in the Tests and Catalog tabs the
    /// cursor follows its cases; in the Runs tab the pane keeps the run selected
    /// (the launch's run is a row there once the index reads it).
    pub fn shows_launch(self) -> bool {
        self != Tab::Runs
    }
}
