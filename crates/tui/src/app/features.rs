//! The features' keys (`w`, `F`, `c`, `R`, `i`, Enter on a trace) and their
//! background results, each routed to its feature's own state (`watch`, `compare`,
//! `report`, `preview`, `contract`, `trace`); the state and the rules live there.

use super::super::action::Command;
use super::super::feature_work::{FeatureResult, FeatureWork};
use super::trace::{self, TraceOutcome, TraceView};
use super::{App, CaseRef, Effect, Overlay, PreviewTarget, Screen, Tab, compare, report, watch};
use testdeck_core::sanitize::escape;

impl App {
    /// A feature's background result.
    pub(super) fn done(&mut self, d: FeatureResult) -> Vec<Effect> {
        match d {
            FeatureResult::Watch { generation, event } => {
                match self.watch.event(generation, *event) {
                    None => {}
                    Some(watch::Step::Say(m)) => self.notice = Some(m),
                    Some(watch::Step::Reload(m)) => {
                        self.notice = Some(m);
                        return vec![Effect::Reload];
                    }
                    Some(watch::Step::Exec(e)) => return self.exec_event(watch::WATCH_LAUNCH, e),
                }
            }
            FeatureResult::WatchEnded { generation, error } => {
                if let Some(m) = self.watch.ended(generation, error) {
                    self.notice = Some(m);
                }
            }
            FeatureResult::Compare(Ok(d)) => {
                self.notice = None;
                self.layers
                    .show_screen(Screen::Compare(Box::new(compare::CompareScreen::new(&d))));
            }
            FeatureResult::Compare(Err(e)) => {
                self.notice = Some(format!("compare: {}", escape(&e)));
            }
            FeatureResult::Report { domain, file, text } => match text {
                Ok(text) => {
                    let by_path: std::collections::HashMap<
                        &str,
                        &testdeck_core::workspace::stats::NodeStats,
                    > = self
                        .tests
                        .stats()
                        .iter()
                        .map(|(k, v)| (k.as_str(), v))
                        .collect();
                    let problems = testdeck_core::workspace::report::check_report(
                        &file, &domain, &text, &by_path,
                    );
                    self.layers
                        .show_screen(Screen::Report(Box::new(report::ReportScreen::new(
                            &file, &text, &problems,
                        ))));
                }
                Err(e) => self.notice = Some(escape(&e).into_owned()),
            },
            FeatureResult::Contract(v) => self.contract.add(v),
            FeatureResult::Preview { file, preview } => self.previews.put(file, preview),
            FeatureResult::Trace {
                file,
                trace,
                root_real,
            } => {
                if let Some(Screen::Trace(v)) = self.layers.screen_mut() {
                    v.loaded(&file, trace, root_real);
                    v.fit(self.size);
                }
            }
            FeatureResult::TraceFrame {
                file,
                entry,
                preview,
            } => {
                if let Some(Screen::Trace(v)) = self.layers.screen_mut() {
                    v.frame_done(&file, entry, preview);
                }
            }
        }
        Vec::new()
    }

    /// Enter on the Artifacts pane: a trace opens in the trace pane, read off the
    /// UI thread; `None` when the selected artifact is not a trace.
    pub(super) fn open_trace(&mut self) -> Option<Vec<Effect>> {
        match trace::target(&self.live, &self.opts.root)? {
            Err(why) => {
                self.notice = Some(why);
                Some(Vec::new())
            }
            Ok((file, within, label)) => {
                self.notice = None;
                self.layers
                    .show_screen(Screen::Trace(Box::new(TraceView::new(
                        file.clone(),
                        label.clone(),
                    ))));
                Some(vec![Effect::Work(FeatureWork::Trace {
                    file,
                    within,
                    label,
                })])
            }
        }
    }

    /// A key on the trace pane.
    pub(super) fn trace_command(&mut self, c: Command) -> Vec<Effect> {
        let size = self.size;
        let Some(Screen::Trace(v)) = self.layers.screen_mut() else {
            return Vec::new();
        };
        match v.command(c, size) {
            TraceOutcome::Stay => {}
            TraceOutcome::Detail => {
                if let Some((title, lines)) = v.detail(&self.opts.root) {
                    self.layers.open(Overlay::Data {
                        title,
                        lines,
                        scroll: 0,
                    });
                }
            }
            TraceOutcome::Close => self.layers.close_screen(),
            TraceOutcome::Say(m) => self.notice = Some(m.into()),
            TraceOutcome::Help => self.layers.open(Overlay::Help { scroll: 0 }),
            TraceOutcome::OpenExternal => return self.open_artifact(),
        }
        Vec::new()
    }

    /// The decodes the trace pane's selected action needs.
    pub(super) fn trace_frame_jobs(&mut self) -> Vec<Effect> {
        let background = self.previews.background();
        match self.layers.screen_mut() {
            Some(Screen::Trace(v)) => v.frame_jobs(background),
            _ => Vec::new(),
        }
    }

    /// `w`, `F`, `c`, `R`.
    pub(super) fn feature_command(&mut self, c: Command) -> Vec<Effect> {
        if self.ws.is_none() {
            self.notice = Some("still indexing".into());
            return Vec::new();
        }
        match c {
            Command::Watch => self.watch_toggle(),
            Command::RerunFailed => self.rerun_failed(),
            Command::Compare => self.compare_selected(),
            Command::Report => self.open_report(),
            _ => Vec::new(),
        }
    }

    /// `c`: pick run A, then B (same case); on a case with no pick, its default pair.
    fn compare_selected(&mut self) -> Vec<Effect> {
        let Some(ws) = &self.ws else {
            return Vec::new();
        };
        let step = match self.tab {
            Tab::Runs => match self.runs.selected_run(ws) {
                Some(run) => self.compare.on_run(ws, run),
                None => compare::Step::Say("no run selected".into()),
            },
            Tab::Tests => match self.tests.selected_case() {
                Some(c) => {
                    let shown = self.live.run().map(|r| r.path.clone());
                    self.compare.on_case(ws, &c.key, shown)
                }
                None => compare::Step::Say("compare: select a case or a run".into()),
            },
            Tab::Catalog => compare::Step::Say(
                "compare works on tests runs: the Runs tab or a tests case".into(),
            ),
        };
        match step {
            compare::Step::Say(m) => {
                self.notice = Some(m);
                Vec::new()
            }
            compare::Step::Open(a, b) => {
                self.notice = Some("comparing…".into());
                vec![Effect::Work(FeatureWork::Compare { a, b })]
            }
        }
    }

    /// `R`: the domain's report of the selected node, beside the tree.
    fn open_report(&mut self) -> Vec<Effect> {
        let scope = match self.tab {
            Tab::Tests => self.selected_node().map(|n| n.key.clone()),
            Tab::Runs => self.selected_run().map(|r| r.scope.to_string()),
            Tab::Catalog => None,
        };
        let Some(domain) = report::domain_of(scope.as_deref()) else {
            self.notice = Some("report: select a domain of the tests tree".into());
            return Vec::new();
        };
        vec![Effect::Work(FeatureWork::Report { domain })]
    }

    /// `i`: the selected screenshot full screen.
    pub(super) fn preview_open(&mut self) -> Vec<Effect> {
        match self.preview_target() {
            PreviewTarget::None => {
                self.notice = Some("the selected artifact is not an image".into());
            }
            PreviewTarget::Refused(why) => self.notice = Some(why),
            PreviewTarget::File(file, label) => {
                self.layers.show_screen(Screen::Image { file, label });
            }
        }
        Vec::new()
    }

    /// `w`: watch what is selected (asking what `r` would ask first), or stop watching
    /// it when all of it is watched already.
    fn watch_toggle(&mut self) -> Vec<Effect> {
        let keys = self.watch_targets();
        if keys.is_empty() {
            self.notice = Some("nothing to watch here (an orphan has no test file)".into());
            return Vec::new();
        }
        if let Some(msg) = self.watch.unwatch(&keys) {
            self.notice = Some(msg);
            return vec![self.watch.job(self.launch.grants(), self.launch.max_risk())];
        }
        let tests: Vec<(String, Option<String>)> = keys
            .iter()
            .filter_map(|k| match k {
                CaseRef::Tests { scope, case_id } => Some((scope.clone(), Some(case_id.clone()))),
                CaseRef::Catalog(_) => None,
            })
            .collect();
        let catalog: Vec<String> = keys
            .iter()
            .filter_map(|k| k.catalog_id().map(str::to_owned))
            .collect();
        let a = self.asking(&tests, &catalog);
        self.watch.ask(keys);
        self.ask_or_launch(a)
    }
}
