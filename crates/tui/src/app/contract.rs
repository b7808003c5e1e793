//! Contract badges: the contract warnings of the runs on screen, asked for once per
//! run folder (again after a reload) and counted by folder.

use super::super::feature_work::FeatureWork;
use super::Effect;
use super::Tab;
use super::pane::{Component, Ctx, Published};
use super::runs_tab::{RunRow, RunsTab};
use super::tests_tab::TestsTab;
use std::collections::{HashMap, HashSet};
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::cases::NodeKind;
use testdeck_core::workspace::logs::RawRun;

/// Runs of the selected case's history shown (and so checked) in the details pane.
pub const HISTORY: usize = 20;

#[derive(Debug, Default)]
pub struct Contract {
    /// Contract warnings per run folder, for the runs checked so far.
    counts: HashMap<String, usize>,
    asked: HashSet<String>,
}

impl Contract {
    /// Contract warnings per run folder, for the runs checked so far.
    pub fn counts(&self) -> &HashMap<String, usize> {
        &self.counts
    }

    /// Counts that came back from the check.
    pub fn add(&mut self, counts: Vec<(String, usize)>) {
        self.counts.extend(counts);
    }

    /// Forget every count (the runs may have changed).
    pub fn reset(&mut self) {
        self.counts.clear();
        self.asked.clear();
    }

    /// Ask for the contract checks of the finished runs on screen not checked yet: the
    /// Runs tab's rows, the tree's cases' latest runs, the selected case's history
    /// (`height`: the rows of the list pane).
    pub fn job(
        &mut self,
        ws: &Workspace,
        tab: Tab,
        tests: &TestsTab,
        runs: &RunsTab,
        height: usize,
    ) -> Option<Effect> {
        let mut want: Vec<usize> = Vec::new();
        match tab {
            Tab::Runs => want.extend(runs.list().visible(runs.visible(), height).filter_map(
                |(_, r)| match r {
                    RunRow::Tests(i) => Some(*i),
                    RunRow::Record(_) => None,
                },
            )),
            Tab::Tests => {
                for (_, &ni) in tests.list().visible(tests.visible(), height) {
                    if let NodeKind::Case(ci) = tests.nodes()[ni].kind {
                        let (s, e) = tests.cases()[ci].run_range;
                        if e > s {
                            want.push(e - 1);
                        }
                    }
                }
                if let Some(c) = tests.selected_case() {
                    let (s, e) = c.run_range;
                    want.extend(e.saturating_sub(HISTORY).max(s)..e);
                }
            }
            Tab::Catalog => {}
        }
        // a case's latest run is in its history too: asked for once
        want.sort_unstable();
        want.dedup();
        let runs: Vec<RawRun> = want
            .into_iter()
            .filter_map(|i| ws.logs.runs.get(i))
            .filter(|r| r.status.is_finished() && !self.asked.contains(&r.path))
            .cloned()
            .collect();
        if runs.is_empty() {
            return None;
        }
        for r in &runs {
            self.asked.insert(r.path.clone());
        }
        Some(Effect::Work(FeatureWork::Contract(runs)))
    }
}

/// A subscriber: a reload forgets every check; a change asks for the checks of
/// the finished runs on screen once the history is indexed.
impl Component for Contract {
    fn subscribes(&self, e: &Published) -> bool {
        matches!(e, Published::Changed | Published::Reloaded)
    }

    fn on_event(&mut self, e: &Published, cx: &mut Ctx) {
        let s = cx.shared;
        match e {
            Published::Reloaded => self.reset(),
            Published::Changed => {
                if let Some(ws) = s.ws.filter(|w| !s.indexing && !w.logs.runs.is_empty()) {
                    let job = self.job(ws, s.tab, s.tests, s.runs, s.tree_height);
                    cx.effect(job);
                }
            }
            _ => {}
        }
    }
}
