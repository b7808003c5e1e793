//! The failed set behind `run --failed` and the TUI's `F`: tests cases whose
//! latest finished run failed, catalog cases whose latest verdict failed.

use super::record::{Verdict, list_records};
use chrono::{DateTime, FixedOffset};
use std::collections::BTreeMap;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::logs::RunStatus;
use testdeck_core::workspace::tree::TestCase;

/// When a result was made: the case's start, the record's start, the record's place.
type When = (
    Option<DateTime<FixedOffset>>,
    Option<DateTime<FixedOffset>>,
    usize,
);

/// What `F` / `run --failed` reruns. Its tests are the cases (with a test file to
/// run) whose newest finished run failed, in tree order: in-progress runs are not
/// a result and are passed over. Its catalog ids are the cases whose latest
/// verdict is `fail` or `environment-fail`, in catalog order. The latest verdict
/// is the newest result that judged the case (by its `startedAt`): a result
/// `skipped` or `not-run` (not authorized, an `assume` that was false, waiting
/// for a person) says nothing about the case, so an older failure still stands.
pub(crate) type FailedSet = super::CaseSet<TestCase>;

/// The failed set of the workspace, from `tests/logs/` and the catalog's run records.
pub fn failed_set(ws: &Workspace) -> FailedSet {
    let tests = ws
        .tests
        .cases
        .iter()
        .filter(|c| {
            ws.logs
                .of_case(&c.scope, &c.case_id)
                .filter(|r| r.status.is_finished())
                .last()
                .is_some_and(|r| r.status == RunStatus::Failed)
        })
        .cloned()
        .collect();
    let Some(cat) = ws.catalog.as_ref() else {
        return FailedSet {
            tests,
            catalog: Vec::new(),
        };
    };
    // the newest judged result of each case wins: by the case's `startedAt`,
    // then the record's. Record names only sort to the second (two runs in one
    // second sort by their random suffix), so they are the last tie-break.
    let time = |s: &str| DateTime::parse_from_rfc3339(s).ok();
    let mut latest: BTreeMap<String, (When, Verdict)> = BTreeMap::new();
    // an unreadable record is passed over here (`runs` and `validate` report it)
    for (n, (_, r)) in list_records(&ws.root).into_iter().enumerate() {
        let Ok(r) = r else { continue };
        let record_time = time(&r.started_at);
        for c in r.results {
            if matches!(c.verdict, Verdict::Skipped | Verdict::NotRun) {
                continue;
            }
            let when = (time(&c.started_at), record_time, n);
            match latest.get(&c.id) {
                Some((w, _)) if *w > when => {}
                _ => {
                    latest.insert(c.id, (when, c.verdict));
                }
            }
        }
    }
    let catalog = cat
        .cases
        .iter()
        .filter(|c| latest.get(&c.id).is_some_and(|(_, v)| v.is_failure()))
        .map(|c| c.id.clone())
        .collect();
    FailedSet { tests, catalog }
}
