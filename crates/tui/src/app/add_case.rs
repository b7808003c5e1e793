//! `a` on a folder of the Tests tab: the caseId typed on the input line, then the
//! core's `testdeck new` steps off the loop — the plan entry, the person's editor on it
//! when one is set, the test file — and the new case selected once the watch shows it.
//! `a` on a temp case (a test outside the tree): the formal folder typed, then
//! `testdeck adopt`'s steps the same way — the plan entry, the editor, the file moved
//! with its imports rewritten and its runs.

use super::effect::{EditTarget, Effect};
use super::input::Edit;
use super::pane::{Component, Ctx, Published};
use super::{InputTarget, NodeKind, Tab};
use crate::feature_work::FeatureWork;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::adopt::Adoption;
use testdeck_core::workspace::new_case::NewCase;

/// The case being added: the folder (a scope), the caseId typed so far, and the key
/// of the case written, selected when the tree first holds it.
#[derive(Debug, Default)]
pub struct AddCase {
    folder: Option<String>,
    /// `a` on a temp case: its file, adopted into the folder typed.
    adopting: Option<String>,
    typed: String,
    pending: Option<String>,
}

impl AddCase {
    /// The folder the case goes in, while its caseId is typed.
    pub fn folder(&self) -> Option<&str> {
        self.folder.as_deref()
    }

    /// The file being adopted, while its formal folder is typed.
    pub fn adopting(&self) -> Option<&str> {
        self.adopting.as_deref()
    }

    /// The caseId (or, adopting, the folder under `tests/`) typed so far.
    pub fn typed(&self) -> &str {
        &self.typed
    }

    pub(super) fn cancel(&mut self) {
        self.folder = None;
        self.adopting = None;
        self.typed.clear();
    }
}

impl AddCase {
    /// `a`: start typing a caseId for the folder under the cursor (a case: its
    /// folder); on a temp case, the folder it is adopted into.
    pub(super) fn start(&mut self, cx: &mut Ctx) {
        let s = cx.shared;
        if s.tab != Tab::Tests {
            cx.say("a adds a case in a folder of the Tests tab (1)");
            return;
        }
        let Some(ws) = s.ws else {
            cx.say("still indexing");
            return;
        };
        let node = s.selected_node();
        let case = node.and_then(|n| match n.kind {
            NodeKind::Case(i) => s.tests.cases().get(i),
            NodeKind::Folder => None,
        });
        // a temp case: adopt it into the folder typed
        let temp_file = case
            .filter(|c| c.temp)
            .and_then(|c| c.test)
            .and_then(|t| ws.tests.cases.get(t))
            .map(|c| c.path.clone());
        if let Some(file) = temp_file {
            self.adopting = Some(file);
            self.folder = None;
            self.typed.clear();
            cx.publish(Published::Edit(InputTarget::NewCase));
            return;
        }
        let folder = match node {
            Some(n) if n.kind == NodeKind::Folder => Some(n.key.clone()),
            _ => case.map(|c| c.scope.clone()),
        };
        let Some(folder) = folder.filter(|f| !f.is_empty()) else {
            cx.say(if s.tests.nodes().is_empty() {
                "a: the tree is empty: `testdeck new tests/<domain>/<layer>/<suite>/<name>` writes its first case (`testdeck init` finds the tests you have)"
            } else {
                "a: select a folder of the tree to add a case in"
            });
            return;
        };
        self.folder = Some(folder);
        self.typed.clear();
        cx.publish(Published::Edit(InputTarget::NewCase));
    }

    /// A key typed on the caseId line (or the folder's, adopting).
    pub(super) fn typed_key(&mut self, e: Edit) {
        e.apply(&mut self.typed);
    }

    /// Enter on the caseId line: the plan entry's job.
    pub(super) fn confirm(&mut self, cx: &mut Ctx) {
        if let Some(file) = self.adopting.take() {
            let to = self.typed.trim().trim_start_matches("tests/").to_owned();
            self.typed.clear();
            if to.is_empty() {
                cx.say("a: no folder typed, nothing adopted");
                return;
            }
            cx.say(format!("a: writing the plan entry of {}…", escape(&file)));
            cx.effect([Effect::Work(FeatureWork::AdoptPlan {
                file,
                to: format!("tests/{to}"),
            })]);
            return;
        }
        let id = self.typed.trim().to_owned();
        let folder = self.folder.take();
        self.typed.clear();
        let Some(folder) = folder.filter(|_| !id.is_empty()) else {
            cx.say("a: no caseId typed, nothing added");
            return;
        };
        cx.say(format!("a: writing the plan entry of {}…", escape(&id)));
        cx.effect([Effect::Work(FeatureWork::NewCasePlan {
            target: format!("tests/{folder}/{id}"),
        })]);
    }

    /// The plan entry written: the editor on it (when set), then the test file's job.
    pub(super) fn planned(case: Result<Box<NewCase>, String>, editor: bool, cx: &mut Ctx) {
        match case {
            Err(e) => cx.say(format!("a: {e}")),
            Ok(c) => {
                cx.say(format!(
                    "a: plan entry in {}, writing {}…",
                    escape(&c.plan_file),
                    escape(&c.test_file)
                ));
                if editor {
                    cx.effect([Effect::Edit(EditTarget::at(&c.plan_file, c.plan_line))]);
                }
                // after the editor: the loop runs effects in order, the editor waited for
                cx.effect([Effect::Work(FeatureWork::NewCaseFile(c))]);
            }
        }
    }

    /// The test file written: what was written, and the case selected once it shows.
    pub(super) fn written(&mut self, case: Result<Box<NewCase>, String>, cx: &mut Ctx) {
        match case {
            Err(e) => cx.say(format!("a: {e}")),
            Ok(c) => {
                let entry = if c.plan_existed {
                    "its plan entry was there"
                } else {
                    "plan entry"
                };
                let at = c.plan_line.map(|l| format!(":{l}")).unwrap_or_default();
                cx.say(format!(
                    "a: wrote {}{at} ({entry}) and {}",
                    escape(&c.plan_file),
                    escape(&c.test_file)
                ));
                // selected once in the tree (now, or when the watch brings it)
                self.pending = Some(testdeck_core::workspace::tree::key(&c.scope, &c.case_id));
            }
        }
    }

    /// Adopting, the plan entry written: the editor on it (when set), then the move.
    pub(super) fn adopt_planned(
        adoption: Result<Box<Adoption>, String>,
        editor: bool,
        cx: &mut Ctx,
    ) {
        match adoption {
            Err(e) => cx.say(format!("a: {e}")),
            Ok(a) => {
                cx.say(format!(
                    "a: plan entry in {}, moving {}…",
                    escape(&a.case.plan_file),
                    escape(&a.from)
                ));
                if editor {
                    cx.effect([Effect::Edit(EditTarget::at(
                        &a.case.plan_file,
                        a.case.plan_line,
                    ))]);
                }
                cx.effect([Effect::Work(FeatureWork::AdoptMove(a))]);
            }
        }
    }

    /// Adopting, the file and its runs moved: what moved, and the case selected.
    pub(super) fn adopt_done(&mut self, adoption: Result<Box<Adoption>, String>, cx: &mut Ctx) {
        match adoption {
            Err(e) => cx.say(format!("a: {e}")),
            Ok(a) => {
                cx.say(format!(
                    "a: moved {} to {} ({} import{} rewritten, {} run{} moved)",
                    escape(&a.from),
                    escape(&a.case.test_file),
                    a.imports.len(),
                    if a.imports.len() == 1 { "" } else { "s" },
                    a.runs.len(),
                    if a.runs.len() == 1 { "" } else { "s" },
                ));
                // selected once in the tree (now, or when the watch brings it)
                self.pending = Some(testdeck_core::workspace::tree::key(
                    &a.case.scope,
                    &a.case.case_id,
                ));
            }
        }
    }
}

/// A subscriber: once an action brought the case just added into the tree (the
/// watch brings it), it asks for it to be selected.
impl Component for AddCase {
    fn subscribes(&self, e: &Published) -> bool {
        matches!(e, Published::Acted) && self.pending.is_some()
    }

    fn on_event(&mut self, _: &Published, cx: &mut Ctx) {
        let Some(key) = self
            .pending
            .take_if(|k| cx.shared.tests.cases().iter().any(|c| c.key == *k))
        else {
            return;
        };
        cx.publish(Published::Select(key));
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

    #[test]
    fn a_on_a_temp_case_adopts_it_into_the_folder_typed_plan_entry_first() {
        let d = tempfile::tempdir().expect("tmp");
        let mut app = demo_app(d.path());
        let key = "temp/kb-tokenizer-probe";
        assert!(app.jump_to(key), "the demo has {key}");
        app.update(Action::Cmd(Command::AddCase));
        assert_eq!(
            app.adding().adopting(),
            Some("tests/temp/kb-tokenizer-probe.test.ts")
        );
        for ch in "kb-search/backend/tokenizer/".chars() {
            app.update(Action::Key(KeyEvent::new(
                KeyCode::Char(ch),
                KeyModifiers::NONE,
            )));
        }
        let fx = app.update(Action::Cmd(Command::Confirm));
        let Some(Effect::Work(job @ FeatureWork::AdoptPlan { .. })) = fx.into_iter().next() else {
            panic!("Enter gives no adopt job");
        };
        assert_eq!(app.adding().adopting(), None, "the line is closed");
        let done = crate::runtime::run_now(job, d.path()).expect("a result");
        let fx = app.update(Action::WorkDone(Box::new(done)));
        let old = d.path().join("tests/temp/kb-tokenizer-probe.test.ts");
        let new = d
            .path()
            .join("tests/kb-search/backend/tokenizer/kb-tokenizer-probe.test.ts");
        assert!(
            old.exists() && !new.exists(),
            "the file waits for the plan entry"
        );
        let plan = std::fs::read_dir(d.path().join("doc/test-plan"))
            .expect("plan dir")
            .filter_map(Result::ok)
            .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
            .collect::<String>();
        assert!(plan.contains("### kb-tokenizer-probe\n- What:"), "{plan}");
        let job = fx
            .into_iter()
            .find_map(|f| match f {
                Effect::Work(j @ FeatureWork::AdoptMove(_)) => Some(j),
                _ => None,
            })
            .expect("the move's job");
        let done = crate::runtime::run_now(job, d.path()).expect("a result");
        app.update(Action::WorkDone(Box::new(done)));
        assert!(!old.exists() && new.exists());
        let text = std::fs::read_to_string(&new).expect("moved");
        assert!(text.contains("from \"../../../harness/case\""), "{text}");
        let n = app.notice().clone().unwrap_or_default();
        assert!(
            n.contains("moved tests/temp/kb-tokenizer-probe.test.ts"),
            "{n}"
        );
        assert!(
            !d.path().join("tests/logs/temp/kb-tokenizer-probe").exists(),
            "its runs moved"
        );
    }
}
