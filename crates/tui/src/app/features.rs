//! The features' keys (`w`, `F`, `c`, `R`, `i`, `W`, `I`, `p`, Enter on a trace) and
//! their background results are routed by the App to each feature's own component
//! (`watch`, `compare`, `report`, `preview`, `problems`, `why`, `trace`, `insights`,
//! and the screens of `screen`); the state and the rules live there. Here: what they
//! share.

use super::pane::Ctx;
use testdeck_core::workspace::Workspace;

/// The workspace, once it is read; before, the status line says so (`w`, `F`,
/// `c`, `R` wait for it).
pub(super) fn loaded<'a>(cx: &mut Ctx<'a>) -> Option<&'a Workspace> {
    if cx.shared.ws.is_none() {
        cx.say("still indexing");
    }
    cx.shared.ws
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
