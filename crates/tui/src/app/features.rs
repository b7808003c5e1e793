//! The features' keys (`w`, `F`, `c`, `R`, `i`, `W`, Enter on a trace) and their
//! background results, each routed to its feature's own state (`watch`, `compare`,
//! `report`, `preview`, `contract`, `why`, `trace`); the state and the rules live there.

use super::super::action::Command;
use super::super::feature_work::{FeatureResult, FeatureWork};
use super::trace::{self, TraceOutcome, TraceView};
use super::{
    App, CaseRef, Effect, Overlay, Pane, PreviewTarget, RunRef, Screen, Tab, compare, report,
    watch, why,
};
use std::path::PathBuf;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::logs::RunStatus;

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
            FeatureResult::Digest { run, digest } => {
                let root = self.opts.root.clone();
                let mut fx = Vec::new();
                if let Some(Screen::Why(w)) = self.layers.screen_mut() {
                    if w.run() == run && w.digest().is_none() {
                        w.set(&digest, &root);
                        let shot = w.screenshot().map(|(f, l)| (f.to_path_buf(), l.to_owned()));
                        let within = w.run_dir(&root);
                        if let Some((file, label)) = shot {
                            fx.extend(self.previews.job_for(file, within, label));
                        }
                    }
                }
                self.why.put(run, digest);
                return fx;
            }
        }
        Vec::new()
    }

    /// The run folder of the selection when it failed: the selected case's latest
    /// run (Tests), the selected run (Runs).
    pub fn failed_run(&self) -> Option<String> {
        let ws = self.ws.as_ref()?;
        let run = match self.tab {
            Tab::Tests => {
                let c = self.selected_case()?;
                (c.run_range.1 > c.run_range.0).then(|| &ws.logs.runs[c.run_range.1 - 1])?
            }
            Tab::Runs => self.runs.selected_run(ws)?,
            Tab::Catalog => return None,
        };
        (run.status == RunStatus::Failed).then(|| run.path.clone())
    }

    /// `W`: the failure view of the selected case's latest run, the run the live
    /// pane shows (from there), or the selected run.
    pub(super) fn why_open(&mut self) -> Vec<Effect> {
        let Some(ws) = &self.ws else {
            self.notice = Some("still indexing".into());
            return Vec::new();
        };
        let shown = match self.live.wanted() {
            Some(RunRef::Folder(p)) if self.live.run().is_some_and(|r| r.path == *p) => {
                Some(p.clone())
            }
            _ => None,
        };
        let run = match self.tab {
            Tab::Tests if self.focus == Pane::Live && shown.is_some() => shown,
            Tab::Tests => match self.selected_case() {
                Some(c) if c.run_range.1 > c.run_range.0 => {
                    let r = &ws.logs.runs[c.run_range.1 - 1];
                    if r.status == RunStatus::Failed {
                        Some(r.path.clone())
                    } else {
                        self.notice = Some(format!(
                            "W: the latest run of {} did not fail ({})",
                            escape(&c.case_id),
                            r.status.as_str()
                        ));
                        return Vec::new();
                    }
                }
                Some(c) => {
                    self.notice = Some(format!("W: {} has never run", escape(&c.case_id)));
                    return Vec::new();
                }
                None => None,
            },
            Tab::Runs => self.runs.selected_run(ws).map(|r| r.path.clone()),
            Tab::Catalog => None,
        };
        let Some(run) = run else {
            self.notice =
                Some("W: select a failed case (Tests) or a run (Runs) to see why it failed".into());
            return Vec::new();
        };
        let root = self.opts.root.clone();
        let mut fx = Vec::new();
        let screen = match self.why.digest(&run) {
            why::Known::Ready(d) => {
                let w = why::WhyScreen::new(&run, Some(d), &root);
                let shot = w.screenshot().map(|(f, l)| (f.to_path_buf(), l.to_owned()));
                if let Some((file, label)) = shot {
                    fx.extend(self.previews.job_for(file, w.run_dir(&root), label));
                }
                w
            }
            why::Known::Reading => why::WhyScreen::new(&run, None, &root),
            why::Known::Unknown => {
                fx.extend(self.why.job(&run));
                why::WhyScreen::new(&run, None, &root)
            }
        };
        self.layers.show_screen(Screen::Why(Box::new(screen)));
        fx
    }

    /// `i` on the failure view: its bound screenshot full screen, over it.
    pub(super) fn why_screenshot(&mut self, shot: Option<(PathBuf, String)>) -> Vec<Effect> {
        match shot {
            Some((file, label)) => {
                self.layers.show_screen_over(Screen::Image { file, label });
            }
            None => self.notice = Some("no screenshot is bound to this failure".into()),
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
        let a = self.asking(&tests, &catalog, None);
        self.watch.ask(keys);
        self.ask_or_launch(a)
    }
}
