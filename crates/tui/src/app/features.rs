//! The features' keys (`w`, `F`, `c`, `R`, `i`, `W`, `I`, Enter on a trace) and their
//! background results, each routed to its feature's own state (`watch`, `compare`,
//! `report`, `preview`, `contract`, `why`, `trace`); the state and the rules live there.

use super::super::action::Command;
use super::super::feature_work::{FeatureResult, FeatureWork, ReportWrite};
use super::trace::{self, TraceOutcome, TraceView};
use super::{
    App, CaseRef, Effect, Overlay, Pane, PreviewTarget, RunRef, Screen, Tab, compare, insights,
    report, watch, why,
};
use std::path::PathBuf;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::logs::RunStatus;

impl App {
    /// A feature's background result.
    #[expect(
        clippy::too_many_lines,
        reason = "one arm per feature result, each a few lines"
    )]
    pub(super) fn done(&mut self, d: FeatureResult) -> Vec<Effect> {
        match d {
            FeatureResult::Watch { generation, event } => {
                match self.watch.event(generation, *event) {
                    None => {}
                    Some(watch::Step::Say(m)) => self.notice = Some(m),
                    Some(watch::Step::Done { said, record }) => {
                        self.notice = Some(said);
                        return self.launch_ended(watch::WATCH_LAUNCH, record);
                    }
                    Some(watch::Step::Exec(e)) => {
                        let i = watch::WATCH_LAUNCH;
                        return answer!(self.launch, |l, cx| l.exec_event(i, e, &mut cx)).1;
                    }
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
                    let unwritten = problems
                        .iter()
                        .filter(|p| p.rule == "report-unwritten")
                        .count();
                    self.layers
                        .show_screen(Screen::Report(Box::new(report::ReportScreen::new(
                            &domain, &file, &text, &problems,
                        ))));
                    // what a write just said stays; else what is left to write
                    if unwritten > 0 && self.notice.is_none() {
                        self.notice = Some(format!(
                            "{unwritten} parts still to write · u: the update from the logs"
                        ));
                    }
                }
                Err(e) => self.notice = Some(escape(&e).into_owned()),
            },
            FeatureResult::ReportDraft { domain, draft } => match draft {
                Ok(d) => {
                    self.notice = Some(format!(
                        "no report for {} yet: its draft from the logs · y writes it",
                        escape(&domain)
                    ));
                    self.layers
                        .show_screen(Screen::Report(Box::new(report::ReportScreen::draft(*d))));
                }
                Err(e) => self.notice = Some(format!("report: {}", escape(&e))),
            },
            FeatureResult::ReportUpdate(u) => match u {
                Ok(u) if !u.changed => {
                    self.notice = Some("the report matches the logs: nothing to update".into());
                }
                Ok(u) => {
                    self.notice = Some(format!(
                        "{} changes from the logs · y writes them · Esc leaves the report as it is",
                        u.changes.len()
                    ));
                    self.layers
                        .show_screen(Screen::Report(Box::new(report::ReportScreen::update(*u))));
                }
                Err(e) => self.notice = Some(format!("report: {}", escape(&e))),
            },
            FeatureResult::ReportWritten { domain, result } => match result {
                Ok(said) => {
                    self.notice = Some(escape(&said).into_owned());
                    // the report as written, with its checks
                    return vec![Effect::Work(FeatureWork::Report { domain })];
                }
                Err(e) => self.notice = Some(format!("report: {}", escape(&e))),
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
            FeatureResult::Validate(found) => {
                self.problems.checked(found);
                self.refresh_problems();
            }
            FeatureResult::ChangeTimes(t) => {
                if let Some(ws) = &self.ws {
                    self.tests.set_change_times(ws, *t);
                }
            }
            FeatureResult::Changed(found) => {
                let (notice, marks) = super::insights::changed_marks(&self.tests, found);
                self.notice = Some(notice);
                if let Some(m) = marks {
                    self.marks = m;
                }
            }
            FeatureResult::NewCasePlanned { case, editor } => {
                return self.add_case_planned(case, editor);
            }
            FeatureResult::NewCaseWritten(case) => self.add_case_written(case),
            FeatureResult::AdoptPlanned { adoption, editor } => {
                return self.adopt_planned(adoption, editor);
            }
            FeatureResult::AdoptDone(adoption) => self.adopt_done(adoption),
        }
        Vec::new()
    }

    /// The problems list, when it is open, shows what is known now (its scroll kept).
    pub(super) fn refresh_problems(&mut self) {
        if let Some(Overlay::Data { title, scroll, .. }) = self.layers.overlay() {
            if title.starts_with(super::overlay::PROBLEMS_TITLE) {
                let o = self
                    .problems
                    .overlay(self.ws.as_ref(), self.live.run(), *scroll);
                self.layers.open(o);
            }
        }
    }

    /// `I`: the Insights screen.
    pub(super) fn insights_open(&mut self) {
        let Some(ws) = &self.ws else {
            self.notice = Some("still indexing".into());
            return;
        };
        let v = insights::InsightsScreen::new(&self.tests, &ws.config.insights);
        self.layers.show_screen(Screen::Insights(Box::new(v)));
    }

    /// A key on the Insights screen: Enter selects the case in the Tests tab.
    pub(super) fn insights_command(&mut self, c: Command) -> Vec<Effect> {
        let page = (self.size.1 / 2).max(1) as isize;
        let Some(Screen::Insights(v)) = self.layers.screen_mut() else {
            return Vec::new();
        };
        match v.command(c, page) {
            insights::Outcome::Stay => return Vec::new(),
            insights::Outcome::Close => self.layers.close_screen(),
            insights::Outcome::Jump(path) => {
                self.layers.close_screen();
                self.tab = Tab::Tests;
                self.focus = Pane::Tree;
                if !self.tests.jump_to(&path) {
                    self.notice = Some(format!("{} is not in the tree", escape(&path)));
                }
            }
        }
        self.clamp();
        self.selection_changed()
    }

    /// The run folder of the selection when it failed: the selected case's latest
    /// run (Tests), the selected run (Runs).
    pub fn failed_run(&self) -> Option<String> {
        self.shared().failed_run().map(str::to_owned)
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

    /// `w`, `F`, `c`, `R`.
    pub(super) fn feature_command(&mut self, c: Command) -> Vec<Effect> {
        if self.ws.is_none() {
            self.notice = Some("still indexing".into());
            return Vec::new();
        }
        match c {
            Command::Watch => self.watch_toggle(),
            Command::RerunFailed => answer!(self.launch, |l, cx| l.rerun_failed(&mut cx)).1,
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

    /// `u` and `y` on the report screen: the update as a diff; write the draft or
    /// the update shown.
    pub(super) fn report_command(&mut self, c: Command) -> Vec<Effect> {
        let Some(Screen::Report(v)) = self.layers.screen() else {
            return Vec::new();
        };
        match (c, &v.kind) {
            (Command::ReportUpdate, report::ReportKind::Draft(_)) => {
                self.notice = Some("no report yet: y writes the draft".into());
                Vec::new()
            }
            (Command::ReportUpdate, _) => {
                self.notice = Some("bringing the report to the logs…".into());
                vec![Effect::Work(FeatureWork::ReportUpdate {
                    domain: v.domain.clone(),
                })]
            }
            (Command::Apply, report::ReportKind::Draft(d)) => {
                let w = ReportWrite::Draft((**d).clone());
                vec![Effect::Work(FeatureWork::ReportWrite(Box::new(w)))]
            }
            (Command::Apply, report::ReportKind::Update(u)) => {
                let w = ReportWrite::Update((**u).clone());
                vec![Effect::Work(FeatureWork::ReportWrite(Box::new(w)))]
            }
            (Command::Apply, report::ReportKind::Report) => {
                self.notice = Some("u first: the update from the logs, as a diff".into());
                Vec::new()
            }
            _ => Vec::new(),
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
        let keys = super::targets::watch_targets(&self.marks, &self.shared());
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
        let a = self.launch.asking(self.ws.as_ref(), &tests, &catalog, None);
        self.watch.ask(keys);
        self.publish(super::pane::Published::AskOrLaunch(Box::new(a)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::demo_app;
    use super::super::{Action, Effect, Screen, Tab};
    use crate::action::Command;
    use testdeck_core::workspace::cases::NodeKind;

    /// The case labels of folder `scope` in the order shown.
    fn cases_of(app: &super::super::App, scope: &str) -> Vec<String> {
        let t = app.tests();
        t.visible()
            .iter()
            .map(|&i| &t.nodes()[i])
            .filter(|n| matches!(n.kind, NodeKind::Case(_)))
            .filter(|n| n.key.rsplit_once('/').is_some_and(|(s, _)| s == scope))
            .map(|n| n.label.clone())
            .collect()
    }

    #[test]
    fn the_sort_key_orders_each_folder_s_cases_and_comes_back_to_names() {
        let d = tempfile::tempdir().expect("tmp");
        let mut app = demo_app(d.path());
        app.tests.expand_all();
        let scope = "docx/backend/export/basic";
        let by_name = cases_of(&app, scope);
        assert_eq!(
            by_name,
            ["docx-export-heading", "docx-export-legacy-styles"]
        );
        // status: the failed (orphan) case first
        app.update(Action::Cmd(Command::Sort));
        assert_eq!(app.tests().sort().name(), "status");
        assert_eq!(
            cases_of(&app, scope),
            ["docx-export-legacy-styles", "docx-export-heading"]
        );
        // duration: the slower first (1.9 s over 1.6 s)
        app.update(Action::Cmd(Command::Sort));
        assert_eq!(
            cases_of(&app, scope),
            ["docx-export-legacy-styles", "docx-export-heading"]
        );
        // flakiness, recency, then names again
        for name in ["flakiness", "recency", "name"] {
            app.update(Action::Cmd(Command::Sort));
            assert_eq!(app.tests().sort().name(), name);
        }
        assert_eq!(cases_of(&app, scope), by_name);
        // folders keep their place: the tree's top level is the same
        let tops: Vec<&str> = app
            .tests()
            .visible()
            .iter()
            .map(|&i| &app.tests().nodes()[i])
            .filter(|n| n.depth == 0)
            .map(|n| n.label.as_str())
            .collect();
        assert_eq!(tops, ["ai", "docx", "kb-search", "temp"]);
    }

    #[test]
    fn insights_enter_selects_the_case_and_run_last_relaunches() {
        let d = tempfile::tempdir().expect("tmp");
        let mut app = demo_app(d.path());
        // no launch yet: the status line says so
        let fx = app.update(Action::Cmd(Command::RunLast));
        assert!(fx.is_empty());
        assert!(
            app.notice()
                .as_deref()
                .is_some_and(|n| n.contains("nothing launched"))
        );
        app.update(Action::Cmd(Command::Insights));
        let Some(Screen::Insights(v)) = app.layers().screen() else {
            panic!("no insights screen");
        };
        let first = v.cursor_row().and_then(|r| v.rows()[r].path.clone());
        assert_eq!(
            first.as_deref(),
            Some("ai/backend/tools/terminal/live/terminal-live-plan-execute")
        );
        app.update(Action::Cmd(Command::MoveDown));
        app.update(Action::Cmd(Command::Open));
        assert!(app.layers().screen().is_none());
        assert_eq!(app.tab(), Tab::Tests);
        assert_eq!(
            app.selected_case().map(|c| c.key.as_str()),
            Some("kb-search/backend/query/live/kb-search-live-rerank")
        );
        // a case launched, then `.`: the same plan again
        app.tests
            .jump_to("kb-search/backend/query/basic/kb-search-basic");
        let fx = app.update(Action::Cmd(Command::Run));
        let first = fx.iter().find_map(|e| match e {
            Effect::Launch { plan, .. } => Some(format!("{:?}", plan.tests)),
            _ => None,
        });
        assert!(first.is_some(), "r launched nothing: {fx:?}");
        app.tests
            .jump_to("kb-search/backend/query/live/kb-search-live-rerank");
        let fx = app.update(Action::Cmd(Command::RunLast));
        let again = fx.iter().find_map(|e| match e {
            Effect::Launch { plan, .. } => Some(format!("{:?}", plan.tests)),
            _ => None,
        });
        assert_eq!(again, first);
    }

    #[test]
    fn mark_changed_outside_a_git_checkout_says_so() {
        let d = tempfile::tempdir().expect("tmp");
        let mut app = demo_app(d.path());
        // git is asked off the UI thread: the key gives the job, its result comes back
        let fx = app.update(Action::Cmd(Command::MarkChanged));
        let Some(Effect::Work(job)) = fx.into_iter().next() else {
            panic!("C gives no job");
        };
        let done = crate::runtime::run_now(job, d.path()).expect("a result");
        app.update(Action::WorkDone(Box::new(done)));
        let n = app.notice().clone().unwrap_or_default();
        assert!(n.contains("not a git checkout"), "{n}");
        assert!(app.marks().is_empty());
    }
}
