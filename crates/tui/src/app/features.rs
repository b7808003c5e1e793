//! The features as components: their keys (`w`, `c`, `R`, `i`, `W`, `I`, Enter on a
//! trace, a screen's keys) and their background results, answered through a
//! [`Ctx`]: each changes its own state and asks for the rest (the status line, a
//! screen, a launch's question, a decode). Their state and rules live in their own
//! files (`watch` and `problems` answer there); these answers sit here, apart from
//! the screens' models, which the shared state names.

use super::super::action::Command;
use super::super::feature_work::{FeatureResult, FeatureWork, ReportWrite};
use super::compare::{Compare, CompareScreen, Step};
use super::insights::{InsightsScreen, Outcome};
use super::overlay::{Layers, Overlay};
use super::pane::{Component, Ctx, Published};
use super::preview::PreviewTarget;
use super::report::{ReportKind, ReportScreen};
use super::screen::{Screen, ScreenOutcome};
use super::trace::{TraceOutcome, TraceView};
use super::why::{Known, Why, WhyScreen};
use super::{Effect, Pane, RunRef, Tab, insights, preview, report, trace};
use std::path::Path;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::diff::RunDiff;
use testdeck_core::workspace::failure::Digest;
use testdeck_core::workspace::logs::RunStatus;

/// The workspace, once it is read; before, the status line says so (`c`, `R`
/// wait for it).
fn loaded<'a>(cx: &mut Ctx<'a>) -> Option<&'a Workspace> {
    if cx.shared.ws.is_none() {
        cx.say("still indexing");
    }
    cx.shared.ws
}

/// Compare as a component: `c`, and the comparison when it comes back.
impl Compare {
    /// `c`: pick run A, then B (same case); on a case with no pick, its default pair.
    pub(super) fn selected(&mut self, cx: &mut Ctx) {
        let Some(ws) = loaded(cx) else {
            return;
        };
        let step = match cx.shared.tab {
            Tab::Runs => match cx.shared.selected_run() {
                Some(run) => self.on_run(ws, run),
                None => Step::Say("no run selected".into()),
            },
            Tab::Tests => match cx.shared.selected_case() {
                Some(c) => {
                    let shown = cx.shared.live.run().map(|r| r.path.clone());
                    self.on_case(ws, &c.key, shown)
                }
                None => Step::Say("compare: select a case or a run".into()),
            },
            Tab::Catalog => {
                Step::Say("compare works on tests runs: the Runs tab or a tests case".into())
            }
        };
        match step {
            Step::Say(m) => cx.say(m),
            Step::Open(a, b) => {
                cx.say("comparing…");
                cx.effect([Effect::Work(FeatureWork::Compare { a, b })]);
            }
        }
    }
}

/// The comparison came back: its screen, or why there is none.
fn compared(r: Result<Box<RunDiff>, String>, cx: &mut Ctx) {
    match r {
        Ok(d) => {
            cx.hush();
            cx.show(Screen::Compare(Box::new(CompareScreen::new(&d))));
        }
        Err(e) => cx.say(format!("compare: {}", escape(&e))),
    }
}

/// `R`: the domain's report of the selected node, beside the tree.
pub(super) fn open_report(cx: &mut Ctx) {
    if loaded(cx).is_none() {
        return;
    }
    let scope = match cx.shared.tab {
        Tab::Tests => cx.shared.selected_node().map(|n| n.key.clone()),
        Tab::Runs => cx.shared.selected_run().map(|r| r.scope.to_string()),
        Tab::Catalog => None,
    };
    let Some(domain) = report::domain_of(scope.as_deref()) else {
        cx.say("report: select a domain of the tests tree");
        return;
    };
    cx.effect([Effect::Work(FeatureWork::Report { domain })]);
}

impl ReportScreen {
    /// `u` and `y` on the report screen: the update as a diff; write the draft or
    /// the update shown.
    pub(super) fn key(&self, c: Command, cx: &mut Ctx) {
        match (c, &self.kind) {
            (Command::ReportUpdate, ReportKind::Draft(_)) => {
                cx.say("no report yet: y writes the draft");
            }
            (Command::ReportUpdate, _) => {
                cx.say("bringing the report to the logs…");
                cx.effect([Effect::Work(FeatureWork::ReportUpdate {
                    domain: self.domain.clone(),
                })]);
            }
            (Command::Apply, ReportKind::Draft(d)) => {
                let w = ReportWrite::Draft((**d).clone());
                cx.effect([Effect::Work(FeatureWork::ReportWrite(Box::new(w)))]);
            }
            (Command::Apply, ReportKind::Update(u)) => {
                let w = ReportWrite::Update((**u).clone());
                cx.effect([Effect::Work(FeatureWork::ReportWrite(Box::new(w)))]);
            }
            (Command::Apply, ReportKind::Report) => {
                cx.say("u first: the update from the logs, as a diff");
            }
            _ => {}
        }
    }
}

/// A report's background result (`FeatureResult::Report`, `ReportDraft`,
/// `ReportUpdate`, `ReportWritten`; the others' are not the report's): its screen,
/// and what the status line says.
fn report_done(d: FeatureResult, cx: &mut Ctx) {
    match d {
        FeatureResult::Report { domain, file, text } => match text {
            Ok(text) => {
                let by_path: std::collections::HashMap<
                    &str,
                    &testdeck_core::workspace::stats::NodeStats,
                > = cx
                    .shared
                    .tests
                    .stats()
                    .iter()
                    .map(|(k, v)| (k.as_str(), v))
                    .collect();
                let problems =
                    testdeck_core::workspace::report::check_report(&file, &domain, &text, &by_path);
                let unwritten = problems
                    .iter()
                    .filter(|p| p.rule == "report-unwritten")
                    .count();
                let said = cx.shared.notice.is_some();
                cx.show(Screen::Report(Box::new(ReportScreen::new(
                    &domain, &file, &text, &problems,
                ))));
                // what a write just said stays; else what is left to write
                if unwritten > 0 && !said {
                    cx.say(format!(
                        "{unwritten} parts still to write · u: the update from the logs"
                    ));
                }
            }
            Err(e) => cx.say(escape(&e)),
        },
        FeatureResult::ReportDraft { domain, draft } => match draft {
            Ok(d) => {
                cx.say(format!(
                    "no report for {} yet: its draft from the logs · y writes it",
                    escape(&domain)
                ));
                cx.show(Screen::Report(Box::new(ReportScreen::draft(*d))));
            }
            Err(e) => cx.say(format!("report: {}", escape(&e))),
        },
        FeatureResult::ReportUpdate(u) => match u {
            Ok(u) if !u.changed => cx.say("the report matches the logs: nothing to update"),
            Ok(u) => {
                cx.say(format!(
                    "{} changes from the logs · y writes them · Esc leaves the report as it is",
                    u.changes.len()
                ));
                cx.show(Screen::Report(Box::new(ReportScreen::update(*u))));
            }
            Err(e) => cx.say(format!("report: {}", escape(&e))),
        },
        FeatureResult::ReportWritten { domain, result } => match result {
            Ok(said) => {
                cx.say(escape(&said));
                // the report as written, with its checks
                cx.effect([Effect::Work(FeatureWork::Report { domain })]);
            }
            Err(e) => cx.say(format!("report: {}", escape(&e))),
        },
        _ => {}
    }
}

/// `I`: the Insights screen.
pub(super) fn open_insights(cx: &mut Ctx) {
    let Some(ws) = cx.shared.ws else {
        cx.say("still indexing");
        return;
    };
    let v = InsightsScreen::new(cx.shared.tests, &ws.config.insights);
    cx.show(Screen::Insights(Box::new(v)));
}

impl InsightsScreen {
    /// A key on the Insights screen: Enter selects the case in the Tests tab.
    pub(super) fn key(&mut self, c: Command, cx: &mut Ctx) {
        let page = (cx.shared.size.1 / 2).max(1) as isize;
        match self.command(c, page) {
            Outcome::Stay => return,
            Outcome::Close => cx.close_screen(),
            Outcome::Jump(path) => {
                cx.close_screen();
                cx.tab(Tab::Tests);
                if cx.shared.tests.nodes().iter().any(|n| n.key == path) {
                    cx.select(path);
                } else {
                    cx.say(format!("{} is not in the tree", escape(&path)));
                }
            }
        }
        cx.refit();
        cx.reselect();
    }
}

/// What git said for `C`: the changed cases marked, and the status line says how many.
pub(super) fn changed(
    found: Result<testdeck_core::workspace::changed::Changed, String>,
    cx: &mut Ctx,
) {
    let (notice, marks) = insights::changed_marks(cx.shared.tests, found);
    cx.say(notice);
    if let Some(m) = marks {
        cx.publish(Published::Marks(m));
    }
}

/// Enter on the Artifacts pane: a trace opens in the trace pane, read off the UI
/// thread; any other artifact goes to its opener.
pub(super) fn open_trace(cx: &mut Ctx) {
    match trace::target(cx.shared.live, cx.shared.root) {
        None => cx.publish(Published::OpenArtifact),
        Some(Err(why)) => cx.say(why),
        Some(Ok((file, within, label))) => {
            cx.hush();
            cx.show(Screen::Trace(Box::new(TraceView::new(
                file.clone(),
                label.clone(),
            ))));
            cx.effect([Effect::Work(FeatureWork::Trace {
                file,
                within,
                label,
            })]);
        }
    }
}

impl TraceView {
    /// A key on the trace pane.
    pub(super) fn key(&mut self, c: Command, cx: &mut Ctx) {
        match self.command(c, cx.shared.size) {
            TraceOutcome::Stay => {}
            TraceOutcome::Detail => {
                if let Some((title, lines)) = self.detail(cx.shared.root) {
                    cx.open(Overlay::Data {
                        title,
                        lines,
                        scroll: 0,
                    });
                }
            }
            TraceOutcome::Close => cx.close_screen(),
            TraceOutcome::Say(m) => cx.say(m),
            TraceOutcome::Help => cx.open(Overlay::Help { scroll: 0 }),
            TraceOutcome::OpenExternal => cx.publish(Published::OpenArtifact),
        }
    }

    /// The trace's reading (`FeatureResult::Trace`) or a frame's decode
    /// (`FeatureResult::TraceFrame`) came back; the others' are not the trace's.
    pub(super) fn done(&mut self, d: FeatureResult, size: (u16, u16)) {
        match d {
            FeatureResult::Trace {
                file,
                trace,
                root_real,
            } => {
                self.loaded(&file, trace, root_real);
                self.fit(size);
            }
            FeatureResult::TraceFrame {
                file,
                entry,
                preview,
            } => self.frame_done(&file, entry, preview),
            _ => {}
        }
    }
}

impl Why {
    /// `W`: the failure view of the selected case's latest run, the run the live
    /// pane shows (from there), or the selected run.
    pub(super) fn open(&mut self, cx: &mut Ctx) {
        let Some(ws) = cx.shared.ws else {
            cx.say("still indexing");
            return;
        };
        let live = cx.shared.live;
        let shown = match live.wanted() {
            Some(RunRef::Folder(p)) if live.run().is_some_and(|r| r.path == *p) => Some(p.clone()),
            _ => None,
        };
        let run = match cx.shared.tab {
            Tab::Tests if cx.shared.focus == Pane::Live && shown.is_some() => shown,
            Tab::Tests => match cx.shared.selected_case() {
                Some(c) if c.run_range.1 > c.run_range.0 => {
                    let r = &ws.logs.runs[c.run_range.1 - 1];
                    if r.status != RunStatus::Failed {
                        cx.say(format!(
                            "W: the latest run of {} did not fail ({})",
                            escape(&c.case_id),
                            r.status.as_str()
                        ));
                        return;
                    }
                    Some(r.path.clone())
                }
                Some(c) => {
                    cx.say(format!("W: {} has never run", escape(&c.case_id)));
                    return;
                }
                None => None,
            },
            Tab::Runs => cx.shared.selected_run().map(|r| r.path.clone()),
            Tab::Catalog => None,
        };
        let Some(run) = run else {
            cx.say("W: select a failed case (Tests) or a run (Runs) to see why it failed");
            return;
        };
        let root = cx.shared.root;
        let screen = match self.digest(&run) {
            Known::Ready(d) => {
                let w = WhyScreen::new(&run, Some(d), root);
                w.decode_screenshot(root, cx);
                w
            }
            Known::Reading => WhyScreen::new(&run, None, root),
            Known::Unknown => {
                let job = self.job(&run);
                cx.effect(job);
                WhyScreen::new(&run, None, root)
            }
        };
        cx.show(Screen::Why(Box::new(screen)));
    }
}

impl WhyScreen {
    /// The screenshot bound to the failure shown, decoded to be drawn (once per file).
    fn decode_screenshot(&self, root: &Path, cx: &mut Ctx) {
        if let Some((file, label)) = self.screenshot() {
            let within = self.run_dir(root);
            cx.publish(Published::Decode(
                file.to_path_buf(),
                within,
                label.to_owned(),
            ));
        }
    }

    /// Run `run`'s digest came back: the view of that run, still without one, shows it.
    pub(super) fn digest_done(&mut self, run: &str, d: &Digest, cx: &mut Ctx) {
        if self.run() == run && self.digest().is_none() {
            self.set(d, cx.shared.root);
            self.decode_screenshot(cx.shared.root, cx);
        }
    }

    /// `i` on the failure view: its bound screenshot full screen, over it.
    pub(super) fn show_screenshot(&self, cx: &mut Ctx) {
        match self.screenshot() {
            Some((file, label)) => cx.show_over(Screen::Image {
                file: file.to_path_buf(),
                label: label.to_owned(),
            }),
            None => cx.say("no screenshot is bound to this failure"),
        }
    }
}

/// The screens as components: a key goes to the screen shown; a feature's result
/// to the screen it opens or fills.
impl Screen {
    /// Key `c` on the screen shown: the trace's, the Insights', the failure view's
    /// `i`, the report's `u` and `y`, the rest scroll or close it.
    pub(super) fn key(&mut self, c: Command, cx: &mut Ctx) {
        match self {
            Screen::Trace(v) => v.key(c, cx),
            Screen::Insights(v) => v.key(c, cx),
            Screen::Why(w) if c == Command::PreviewImage => w.show_screenshot(cx),
            Screen::Report(v) if matches!(c, Command::ReportUpdate | Command::Apply) => {
                v.key(c, cx);
            }
            s => match s.command(c, (cx.shared.size.1 / 2).max(1) as isize) {
                ScreenOutcome::Close => cx.close_screen(),
                ScreenOutcome::Say(m) => cx.say(m),
                ScreenOutcome::Stay => {}
            },
        }
    }
}

/// Key `c` on the screen shown (of `layers`).
pub(super) fn screen_key(layers: &mut Layers, c: Command, cx: &mut Ctx) {
    if let Some(s) = layers.screen_mut() {
        s.key(c, cx);
    }
}

/// A screen's background result (`layers`: the screen over the panes): the
/// comparison or the report shows, the trace shown fills in. (The others' are
/// not the screens'.)
pub(super) fn screen_done(layers: &mut Layers, d: FeatureResult, cx: &mut Ctx) {
    match d {
        FeatureResult::Compare(r) => compared(r, cx),
        FeatureResult::Report { .. }
        | FeatureResult::ReportDraft { .. }
        | FeatureResult::ReportUpdate(_)
        | FeatureResult::ReportWritten { .. } => report_done(d, cx),
        FeatureResult::Trace { .. } | FeatureResult::TraceFrame { .. } => {
            if let Some(Screen::Trace(v)) = layers.screen_mut() {
                v.done(d, cx.shared.size);
            }
        }
        _ => {}
    }
}

/// Run `run`'s failure digest came back: the failure view shown, of that run and
/// still without one, shows it.
pub(super) fn digested(
    layers: &mut Layers,
    run: &str,
    d: &testdeck_core::workspace::failure::Digest,
    cx: &mut Ctx,
) {
    if let Some(Screen::Why(w)) = layers.screen_mut() {
        w.digest_done(run, d, cx);
    }
}

/// `i`: the selected screenshot full screen.
pub(super) fn open_preview(cx: &mut Ctx) {
    match preview::target(cx.shared.live, cx.shared.root) {
        PreviewTarget::None => cx.say("the selected artifact is not an image"),
        PreviewTarget::Refused(why) => cx.say(why),
        PreviewTarget::File(file, label) => cx.show(Screen::Image { file, label }),
    }
}

/// A subscriber: after a change, the failed run selected has its digest read
/// once (the details' summary of it).
impl Component for Why {
    fn subscribes(&self, e: &Published) -> bool {
        matches!(e, Published::Changed)
    }

    fn on_event(&mut self, _: &Published, cx: &mut Ctx) {
        if let Some(run) = cx.shared.failed_run() {
            let job = self.job(run);
            cx.effect(job);
        }
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
            app.shared().selected_case().map(|c| c.key.as_str()),
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
    fn the_features_wait_for_the_workspace_and_say_so() {
        for c in [
            Command::Watch,
            Command::RerunFailed,
            Command::Compare,
            Command::Report,
            Command::Why,
            Command::Insights,
        ] {
            let mut app = super::super::test_support::app();
            let fx = app.update(Action::Cmd(c));
            assert!(
                !fx.iter()
                    .any(|e| matches!(e, Effect::Work(_) | Effect::Launch { .. })),
                "{c:?} asked for work before the workspace was read: {fx:?}"
            );
            assert_eq!(app.notice().as_deref(), Some("still indexing"), "{c:?}");
            assert!(app.layers().screen().is_none(), "{c:?} showed a screen");
            assert!(app.layers().overlay().is_none(), "{c:?} opened an overlay");
        }
    }

    #[test]
    fn w_asks_what_r_would_ask_first_then_watches_what_was_authorized() {
        use super::super::{Overlay, Prompt};
        let d = tempfile::tempdir().expect("tmp");
        let mut app = demo_app(d.path());
        // a live case: the launch's question first, nothing watched yet
        app.tests
            .jump_to("kb-search/backend/query/live/kb-search-live-rerank");
        let watching = |fx: &[Effect]| {
            fx.iter()
                .any(|e| matches!(e, Effect::Work(crate::feature_work::FeatureWork::Watch(..))))
        };
        let fx = app.update(Action::Cmd(Command::Watch));
        assert!(!watching(&fx), "{fx:?}");
        assert!(
            matches!(
                app.layers().overlay(),
                Some(Overlay::Prompt(Prompt::Authorize(_)))
            ),
            "{:?}",
            app.layers().overlay()
        );
        assert!(app.watch().watched().is_empty());
        // a case no question stands before: watched at once, the watch started
        let mut app = demo_app(d.path());
        app.tests
            .jump_to("kb-search/backend/query/basic/kb-search-basic");
        let fx = app.update(Action::Cmd(Command::Watch));
        assert!(watching(&fx), "{fx:?}");
        assert_eq!(app.watch().watched().len(), 1);
        let said = app.notice().clone().unwrap_or_default();
        assert!(said.starts_with("watching 1 (+1)"), "{said}");
        // `w` again: unwatched, the watch stopped
        app.update(Action::Cmd(Command::Watch));
        assert!(app.watch().watched().is_empty());
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
