//! `E`: which file (and line) the selection opens in the person's editor — a case's
//! test file or test-plan entry, a catalog case, a run record, the problem at the top of
//! the problems overlay, the stack frame under the failure view's cursor. The editor itself runs from the loop (`tui::editor`).

use super::effect::EditTarget;
use super::overlay::Layers;
use super::overlay::Overlay;
use super::overlay::PROBLEMS_TITLE;
use super::pane::Shared;
use super::problems::Problems;
use super::why::Why;
use super::{Pane, RunRow, Screen, Tab};
use testdeck_core::sanitize::escape;

/// What the editor is asked about besides the shared state: the overlay stack
/// (the problems list, the trace and failure screens), the problems, the
/// failure digests read, and the pane with the keys.
pub struct Around<'a> {
    pub layers: &'a Layers,
    pub problems: &'a Problems,
    pub why: &'a Why,
    pub focus: Pane,
}

/// What `E` opens for the selection in `s`, or why nothing.
pub fn edit_target(s: &Shared, a: &Around) -> Result<EditTarget, String> {
    let ws = s.ws.ok_or("the workspace is still loading")?;
    if let Some(Overlay::Data { title, scroll, .. }) = a.layers.overlay() {
        if !title.starts_with(PROBLEMS_TITLE) {
            return Err("E opens a problem from the problems list (p)".into());
        }
        // the problems overlay lists the located problems first, one a line
        let p = a
            .problems
            .at(Some(ws), *scroll)
            .ok_or("this problem has no file to open")?;
        if p.file.is_empty() {
            return Err("this problem has no file to open".into());
        }
        return Ok(EditTarget::at(&p.file, p.line));
    }
    if a.layers.overlay().is_some() {
        return Err("close this first (Esc), then E opens the selection".into());
    }
    // the trace pane: the selected action's source, inside the workspace only
    if let Some(Screen::Trace(v)) = a.layers.screen() {
        return v.edit_target(s.root);
    }
    // the failure view: the stack frame under its cursor, at its line
    if let Some(Screen::Why(w)) = a.layers.screen() {
        return w.edit_target();
    }
    match s.tab {
        Tab::Tests => {
            let c = s
                .selected_case()
                .ok_or("select a case to open its test file")?;
            let test = c.test.and_then(|i| ws.tests.cases.get(i));
            let plan = || ws.plan.entry(&c.case_id);
            // the details pane shows the plan entry: from there E opens it
            let entry = if a.focus == Pane::Details {
                plan()
                    .map(|e| EditTarget::at(&e.file, Some(e.line)))
                    .or_else(|| test.map(|t| EditTarget::at(&t.path, None)))
            } else {
                // a failed case: its test file at the line it failed, once read
                test.map(|t| EditTarget::at(&t.path, failed_line(s, a.why, &t.path)))
                    .or_else(|| plan().map(|e| EditTarget::at(&e.file, Some(e.line))))
            };
            entry.ok_or_else(|| {
                format!(
                    "{}: no test file and no test-plan entry",
                    escape(&c.case_id)
                )
            })
        }
        Tab::Catalog => s
            .selected_catalog_case()
            .map(|c| EditTarget::at(&c.file, Some(c.pos.line)))
            .ok_or_else(|| "select a catalog case to open it".into()),
        Tab::Runs => match s.runs.selected() {
            Some(RunRow::Record(i)) => s
                .runs
                .records()
                .get(i)
                .map(|(p, _)| EditTarget::at(p, None))
                .ok_or_else(|| "no run record selected".into()),
            Some(RunRow::Tests(i)) => ws
                .logs
                .runs
                .get(i)
                .and_then(|r| {
                    ws.tests
                        .cases
                        .iter()
                        .find(|t| *t.scope == *r.scope && *t.case_id == *r.case_id)
                })
                .map(|t| EditTarget::at(&t.path, None))
                .ok_or_else(|| "this run's case has no test file".into()),
            None => Err("no run selected".into()),
        },
    }
}

/// The line of workspace file `file` where the selection's failed run failed
/// (its location, else its first frame in the file), when its digest is read.
fn failed_line(s: &Shared, why: &Why, file: &str) -> Option<u32> {
    let run = s.failed_run()?;
    let super::why::Known::Ready(d) = why.digest(run) else {
        return None;
    };
    d.failures.iter().find_map(|f| {
        f.location
            .iter()
            .map(|l| (l.file.as_str(), l.line))
            .chain(f.frames.iter().map(|fr| (fr.file.as_str(), fr.line)))
            .find(|(f, _)| *f == file)
            .map(|(_, line)| line)
    })
}

#[cfg(test)]
mod tests {
    use super::super::clipboard::{Copy, copy_text};
    use super::super::effect::EditTarget;
    use super::super::test_support::demo_app;
    use super::super::{Action, CaseRef, Overlay, Pane, Tab};

    #[test]
    fn the_selection_names_the_file_and_line_to_edit_and_the_strings_to_copy() {
        let d = tempfile::tempdir().expect("tmp");
        let mut app = demo_app(d.path());
        let ws = app.domain.ws().expect("ws");
        let case = ws
            .catalog
            .as_ref()
            .and_then(|c| c.cases.iter().find(|c| c.id == "TC-CLI-002"))
            .expect("case")
            .clone();
        let entry = ws.plan.entry("terminal-basic-command").expect("plan entry");
        assert!(app.jump_to_case(&CaseRef::Catalog("TC-CLI-002".into())));
        assert_eq!(app.tab, Tab::Catalog);
        assert_eq!(
            app.edit_target(),
            Ok(EditTarget {
                file: case.file.clone(),
                line: Some(case.pos.line)
            })
        );
        assert_eq!(
            copy_text(&app.shared(), Copy::Command).as_deref(),
            Ok("testdeck run TC-CLI-002")
        );
        assert!(
            copy_text(&app.shared(), Copy::RunId).is_err(),
            "a catalog case has no runId"
        );
        let key = "ai/backend/tools/terminal/basic/terminal-basic-command";
        assert!(app.jump_to(key));
        let test_file = "tests/ai/backend/tools/terminal/basic/terminal-basic-command.test.ts";
        assert_eq!(
            app.edit_target(),
            Ok(EditTarget {
                file: test_file.into(),
                line: None
            }),
            "from the tree: the test file"
        );
        app.focus = Pane::Details;
        assert_eq!(
            app.edit_target(),
            Ok(EditTarget {
                file: entry.file,
                line: Some(entry.line)
            }),
            "from the details pane: the plan entry"
        );
        // the problems list: its top line's problem, at its line
        app.update(Action::Cmd(crate::action::Command::Problems));
        let first = app.domain.ws().expect("ws").problems.first().cloned();
        match first {
            Some(p) if !p.file.is_empty() => assert_eq!(
                app.edit_target(),
                Ok(EditTarget {
                    file: p.file,
                    line: p.line.filter(|l| *l > 0)
                })
            ),
            _ => assert!(app.edit_target().is_err()),
        }
        app.layers.open(Overlay::Help { scroll: 0 });
        assert!(app.edit_target().is_err(), "help is not a list of files");
    }
}
