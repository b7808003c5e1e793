//! `F`, rerun failed: every case whose latest run or verdict failed, through the
//! launch preview and the prompts of `r`; temp cases and orphans named, not dropped.

use super::super::pane::Ctx;
use super::super::{RunRow, Tab};
use super::{Launch, Outlook, Preview};
use std::collections::HashSet;
use testdeck_core::workspace::logs::RawRun;

impl Launch {
    /// `F`: every case whose latest run failed (tests) or whose latest verdict failed
    /// (catalog), through the prompts of `r`. On the Runs tab with a filter, only the
    /// failed cases the filter shows.
    pub(in crate::app) fn rerun_failed(&mut self, cx: &mut Ctx) {
        let s = cx.shared;
        let Some(ws) = s.ws else {
            return;
        };
        let set = testdeck_exec::failed::failed_set(ws);
        let shown: Option<HashSet<String>> = (s.tab == Tab::Runs && !s.runs.filter().is_empty())
            .then(|| {
                s.runs
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
        let left_out: Vec<(String, String)> = s
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
            cx.say(if left_out.is_empty() {
                "no failed case to rerun".to_owned()
            } else {
                format!(
                    "no failed case to rerun; left out: {}",
                    Outlook::left_out(left_out)
                )
            });
            return;
        }
        // a launch at once says `rerun failed (N): launched…` (the preview's own)
        self.preview_or_launch(
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
            cx,
        );
    }
}
