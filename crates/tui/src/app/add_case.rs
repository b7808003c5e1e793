//! `a` on a folder of the Tests tab: the caseId typed on the input line, then the
//! core's `testdeck new` steps off the loop — the plan entry, the person's editor on it
//! when one is set, the test file — and the new case selected once the watch shows it.

use super::effect::{EditTarget, Effect};
use super::{App, InputTarget, NodeKind, Tab};
use crate::feature_work::FeatureWork;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::new_case::NewCase;

/// The case being added: the folder (a scope), the caseId typed so far, and the key
/// of the case written, selected when the tree first holds it.
#[derive(Debug, Default)]
pub struct AddCase {
    folder: Option<String>,
    typed: String,
    pending: Option<String>,
}

impl AddCase {
    /// The folder the case goes in, while its caseId is typed.
    pub fn folder(&self) -> Option<&str> {
        self.folder.as_deref()
    }

    /// The caseId typed so far.
    pub fn typed(&self) -> &str {
        &self.typed
    }

    pub(super) fn typed_mut(&mut self) -> &mut String {
        &mut self.typed
    }

    pub(super) fn cancel(&mut self) {
        self.folder = None;
        self.typed.clear();
    }
}

impl App {
    /// `a`: start typing a caseId for the folder under the cursor (a case: its folder).
    pub(super) fn add_case(&mut self) {
        if self.tab != Tab::Tests {
            self.notice = Some("a adds a case in a folder of the Tests tab (1)".into());
            return;
        }
        if self.ws.is_none() {
            self.notice = Some("still indexing".into());
            return;
        }
        let folder = match self.selected_node() {
            Some(n) if n.kind == NodeKind::Folder => Some(n.key.clone()),
            Some(n) => match n.kind {
                NodeKind::Case(i) => self.tests.cases().get(i).map(|c| c.scope.clone()),
                NodeKind::Folder => None,
            },
            None => None,
        };
        let Some(folder) = folder.filter(|f| !f.is_empty()) else {
            self.notice = Some(if self.tests.nodes().is_empty() {
                "a: the tree is empty: `testdeck new tests/<domain>/<layer>/<suite>/<name>` writes its first case (`testdeck init` finds the tests you have)".into()
            } else {
                "a: select a folder of the tree to add a case in".into()
            });
            return;
        };
        self.adding.folder = Some(folder);
        self.adding.typed.clear();
        self.layers.edit(InputTarget::NewCase);
    }

    /// Enter on the caseId line: the plan entry's job.
    pub(super) fn add_case_confirm(&mut self) -> Vec<Effect> {
        let id = self.adding.typed.trim().to_owned();
        let folder = self.adding.folder.take();
        self.adding.typed.clear();
        let Some(folder) = folder.filter(|_| !id.is_empty()) else {
            self.notice = Some("a: no caseId typed, nothing added".into());
            return Vec::new();
        };
        self.notice = Some(format!("a: writing the plan entry of {}…", escape(&id)));
        vec![Effect::Work(FeatureWork::NewCasePlan {
            target: format!("tests/{folder}/{id}"),
        })]
    }

    /// The plan entry written: the editor on it (when set), then the test file's job.
    pub(super) fn add_case_planned(
        &mut self,
        case: Result<Box<NewCase>, String>,
        editor: bool,
    ) -> Vec<Effect> {
        match case {
            Err(e) => {
                self.notice = Some(format!("a: {e}"));
                Vec::new()
            }
            Ok(c) => {
                self.notice = Some(format!(
                    "a: plan entry in {}, writing {}…",
                    escape(&c.plan_file),
                    escape(&c.test_file)
                ));
                let mut fx = Vec::new();
                if editor {
                    fx.push(Effect::Edit(EditTarget::at(&c.plan_file, c.plan_line)));
                }
                // after the editor: the loop runs effects in order, the editor waited for
                fx.push(Effect::Work(FeatureWork::NewCaseFile(c)));
                fx
            }
        }
    }

    /// The test file written: what was written, and the case selected once it shows.
    pub(super) fn add_case_written(&mut self, case: Result<Box<NewCase>, String>) {
        match case {
            Err(e) => self.notice = Some(format!("a: {e}")),
            Ok(c) => {
                let entry = if c.plan_existed {
                    "its plan entry was there"
                } else {
                    "plan entry"
                };
                let at = c.plan_line.map(|l| format!(":{l}")).unwrap_or_default();
                self.notice = Some(format!(
                    "a: wrote {}{at} ({entry}) and {}",
                    escape(&c.plan_file),
                    escape(&c.test_file)
                ));
                self.adding.pending =
                    Some(testdeck_core::workspace::tree::key(&c.scope, &c.case_id));
                self.select_added();
            }
        }
    }

    /// Select the case just added once the tree holds it (the watch brings it).
    pub(super) fn select_added(&mut self) {
        let Some(key) = self.adding.pending.clone() else {
            return;
        };
        if self.tests.cases().iter().any(|c| c.key == key) && self.jump_to(&key) {
            self.adding.pending = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::demo_app;
    use super::super::{Action, Effect};
    use crate::action::Command;
    use crate::feature_work::FeatureWork;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    #[test]
    fn a_on_a_folder_takes_a_case_id_and_writes_the_plan_entry_then_the_test_file() {
        let d = tempfile::tempdir().expect("tmp");
        let mut app = demo_app(d.path());
        let folder = "ai/backend/tools/terminal/basic";
        assert!(app.jump_to(folder), "the demo has {folder}");
        app.update(Action::Cmd(Command::AddCase));
        assert_eq!(app.adding().folder(), Some(folder));
        for ch in "terminal-new-probe".chars() {
            app.update(Action::Key(KeyEvent::new(
                KeyCode::Char(ch),
                KeyModifiers::NONE,
            )));
        }
        assert_eq!(app.adding().typed(), "terminal-new-probe");
        let fx = app.update(Action::Cmd(Command::Confirm));
        let Some(Effect::Work(job @ FeatureWork::NewCasePlan { .. })) = fx.into_iter().next()
        else {
            panic!("Enter gives no plan job");
        };
        assert_eq!(app.adding().folder(), None, "the line is closed");
        let plan_file = d.path().join("doc/test-plan");
        let done = crate::runtime::run_now(job, d.path()).expect("a result");
        let fx = app.update(Action::WorkDone(Box::new(done)));
        let test_file = d
            .path()
            .join("tests")
            .join(folder)
            .join("terminal-new-probe.test.ts");
        assert!(
            !test_file.exists(),
            "the test file waits for the plan entry"
        );
        let plan = std::fs::read_dir(&plan_file)
            .expect("plan dir")
            .filter_map(Result::ok)
            .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
            .collect::<String>();
        assert!(plan.contains("### terminal-new-probe\n- What:"), "{plan}");
        let job = fx
            .into_iter()
            .find_map(|f| match f {
                Effect::Work(j @ FeatureWork::NewCaseFile(_)) => Some(j),
                _ => None,
            })
            .expect("the test file's job");
        let done = crate::runtime::run_now(job, d.path()).expect("a result");
        app.update(Action::WorkDone(Box::new(done)));
        assert!(test_file.exists());
        let n = app.notice().clone().unwrap_or_default();
        assert!(n.contains("terminal-new-probe.test.ts"), "{n}");
        // a caseId that exists: refused, said, nothing written
        app.update(Action::Cmd(Command::AddCase));
        for ch in "terminal-new-probe".chars() {
            app.update(Action::Key(KeyEvent::new(
                KeyCode::Char(ch),
                KeyModifiers::NONE,
            )));
        }
        let fx = app.update(Action::Cmd(Command::Confirm));
        let Some(Effect::Work(job)) = fx.into_iter().next() else {
            panic!("no job");
        };
        let done = crate::runtime::run_now(job, d.path()).expect("a result");
        app.update(Action::WorkDone(Box::new(done)));
        let n = app.notice().clone().unwrap_or_default();
        assert!(n.contains("exists already"), "{n}");
    }
}
