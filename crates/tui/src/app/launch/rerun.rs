//! `F`, rerun failed: every case whose latest run or verdict failed, through the
//! launch preview and the prompts of `r`; temp cases and orphans named, not dropped.

use super::super::{App, Effect, RunRow, Tab};
use super::{Outlook, Preview};
use std::collections::HashSet;
use testdeck_core::workspace::logs::RawRun;

impl App {
    /// `F`: every case whose latest run failed (tests) or whose latest verdict failed
    /// (catalog), through the prompts of `r`. On the Runs tab with a filter, only the
    /// failed cases the filter shows.
    pub(crate) fn rerun_failed(&mut self) -> Vec<Effect> {
        let Some(ws) = self.domain.ws() else {
            return Vec::new();
        };
        let set = testdeck_exec::failed::failed_set(ws);
        let shown: Option<HashSet<String>> =
            (self.tab == Tab::Runs && !self.runs.filter().is_empty()).then(|| {
                self.runs
                    .visible()
                    .iter()
                    .filter_map(|r| match r {
                        RunRow::Tests(i) => ws.logs.runs.get(*i).map(RawRun::key),
                        RunRow::Record(_) => None,
                    })
                    .collect()
            });
        let in_view = |key: &str| shown.as_ref().is_none_or(|s| s.contains(key));
        // temp cases are scratch: left out unless the person brings them in (t)
        let (temp, tests): (Vec<_>, Vec<_>) = set
            .tests
            .iter()
            .filter(|c| in_view(&c.key()))
            .partition(|c| c.temp);
        let as_target = |c: &&testdeck_core::workspace::tree::TestCase| {
            (c.scope.clone(), Some(c.case_id.clone()))
        };
        let tests: Vec<(String, Option<String>)> = tests.iter().map(as_target).collect();
        let temp: Vec<(String, Option<String>)> = temp.iter().map(as_target).collect();
        // a failed orphan has no test file to run: named, not silently dropped
        let left_out: Vec<(String, String)> = self
            .tests
            .cases()
            .iter()
            .filter(|c| {
                c.orphan()
                    && c.latest == Some(testdeck_core::workspace::logs::RunStatus::Failed)
                    && in_view(&c.key)
            })
            .map(|c| (c.key.clone(), "orphan: its test file is gone".to_owned()))
            .collect();
        let catalog = if shown.is_some() {
            Vec::new()
        } else {
            set.catalog
        };
        if tests.is_empty() && catalog.is_empty() && temp.is_empty() {
            self.notice = Some(if left_out.is_empty() {
                "no failed case to rerun".into()
            } else {
                format!(
                    "no failed case to rerun; left out: {}",
                    Outlook::left_out(left_out)
                )
            });
            return Vec::new();
        }
        let n = tests.len() + catalog.len();
        let fx = self.preview_or_launch(
            Preview {
                tests,
                catalog,
                with_temp: false,
                temp,
                left_out,
                rerun: true,
                ..Preview::default()
            },
            false,
        );
        if fx.iter().any(|e| matches!(e, Effect::Launch { .. })) {
            let prev = self.notice.take().unwrap_or_default();
            self.notice = Some(format!("rerun failed ({n}): {prev}"));
        }
        fx
    }
}
