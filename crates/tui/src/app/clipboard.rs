//! `y` then a choice: the selection's caseId, path, runId or runner command line as a
//! string testdeck builds from its model (never text read from a log), copied by the loop
//! through OSC 52.

use super::super::action::Command;
use super::pane::Shared;
use super::{Effect, NodeKind, RunRow, Tab};
use testdeck_core::sanitize::escape;
use testdeck_exec::tests_run::{TestsTarget, runner_args};

/// What a copy command copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Copy {
    CaseId,
    Path,
    RunId,
    Command,
}

impl Copy {
    pub fn of(c: Command) -> Option<Copy> {
        match c {
            Command::CopyCaseId => Some(Copy::CaseId),
            Command::CopyPath => Some(Copy::Path),
            Command::CopyRunId => Some(Copy::RunId),
            Command::CopyCommand => Some(Copy::Command),
            _ => None,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Copy::CaseId => "caseId",
            Copy::Path => "path",
            Copy::RunId => "runId",
            Copy::Command => "command line",
        }
    }
}

/// The string `what` copies for the selection in `s`, or why there is none.
pub fn copy_text(s: &Shared, what: Copy) -> Result<String, String> {
    let ws = s.ws.ok_or("the workspace is still loading")?;
    let none = || format!("no {} for this selection", what.name());
    let runner = |t: &TestsTarget| {
        let mut argv = ws.config.runner.command.clone();
        argv.extend(runner_args(t, None));
        shell_words::join(argv)
    };
    let one_case = |scope: &str, id: &str| TestsTarget::Cases {
        scope: scope.to_owned(),
        case_ids: vec![id.to_owned()],
    };
    let text = match s.tab {
        Tab::Tests => {
            let node = s.selected_node().ok_or_else(none)?;
            let NodeKind::Case(ci) = node.kind else {
                // a folder: its scope stands for it
                return match what {
                    Copy::Path => Ok(format!("tests/{}", node.key)),
                    Copy::Command => Ok(runner(&TestsTarget::Scope(node.key.clone()))),
                    Copy::CaseId | Copy::RunId => Err(none()),
                };
            };
            let c = s.tests.cases().get(ci).ok_or_else(none)?;
            match what {
                Copy::CaseId => Some(c.case_id.clone()),
                Copy::Path => c
                    .test
                    .and_then(|i| ws.tests.cases.get(i))
                    .map(|t| t.path.clone()),
                Copy::RunId => (c.run_range.1 > c.run_range.0)
                    .then(|| ws.logs.runs.get(c.run_range.1 - 1))
                    .flatten()
                    .map(|r| r.run_id.clone()),
                Copy::Command => Some(runner(&one_case(&c.scope, &c.case_id))),
            }
        }
        Tab::Catalog => {
            let c = s.selected_catalog_case().ok_or_else(none)?;
            match what {
                Copy::CaseId => Some(c.id.clone()),
                Copy::Path => Some(c.file.clone()),
                Copy::RunId => None,
                // catalog cases run through testdeck itself
                Copy::Command => Some(shell_words::join(["testdeck", "run", c.id.as_str()])),
            }
        }
        Tab::Runs => match s.runs.selected().ok_or_else(none)? {
            RunRow::Tests(i) => {
                let r = ws.logs.runs.get(i).ok_or_else(none)?;
                Some(match what {
                    Copy::CaseId => r.case_id.to_string(),
                    Copy::Path => r.path.clone(),
                    Copy::RunId => r.run_id.clone(),
                    Copy::Command => runner(&one_case(&r.scope, &r.case_id)),
                })
            }
            RunRow::Record(i) => {
                let (path, rec) = s.runs.records().get(i).ok_or_else(none)?;
                match what {
                    Copy::Path => Some(path.clone()),
                    Copy::RunId => rec.as_ref().ok().map(|r| r.run_id.clone()),
                    Copy::CaseId | Copy::Command => None,
                }
            }
        },
    };
    // built from the model, still escaped: a hostile file name cannot reach the
    // terminal of whoever pastes it
    text.filter(|t| !t.is_empty())
        .map(|t| escape(&t).into_owned())
        .ok_or_else(none)
}

/// A copy command: the clipboard effect and its notice, or a notice saying why not.
pub fn copy(s: &Shared, what: Copy) -> (String, Option<Effect>) {
    match copy_text(s, what) {
        Ok(text) => (
            format!("copied {}: {text}", what.name()),
            Some(Effect::Copy(text)),
        ),
        Err(why) => (why, None),
    }
}
