//! Every rule of the workspace as a located problem.

use super::Workspace;
use crate::problem::Problem;
use std::path::Path;

/// All problems of a loaded workspace, sorted by file and place (the run
/// folders are read again for their contract checks: see [`validate_with`]).
pub fn validate(ws: &Workspace) -> Vec<Problem> {
    validate_with(ws, super::contract::check_runs(ws))
}

/// All problems of a workspace loaded with [`Workspace::load_with`], whose pass
/// over the files gave the run folders' contract checks (`contract`).
pub fn validate_with(ws: &Workspace, contract: Vec<Problem>) -> Vec<Problem> {
    let mut out = ws.problems.clone();
    if let Some(link) = super::read::link_on_the_way(&ws.root, Path::new(super::read::RUNS_DIR)) {
        out.push(Problem::warning(
            link,
            "symlink-not-followed",
            "the run records' folder is reached through a symbolic link: testdeck neither reads nor writes records through it",
        ));
    }
    for c in &ws.tests.cases {
        if !c.registered {
            out.push(Problem::warning(
                &c.path,
                "case-unregistered",
                format!(
                    "caseId {:?} is not registered in doc/test-plan/** (formal cases must be planned first; use tests/temp/ for ad-hoc ones)",
                    c.case_id
                ),
            ));
        }
    }
    // a case defined twice in the plan with different text: which one holds?
    let mut seen = std::collections::HashSet::new();
    for c in &ws.tests.cases {
        if c.temp || !seen.insert(c.case_id.as_str()) {
            continue;
        }
        let entries = ws.plan.entries(&c.case_id);
        if let Some(first) = entries.first() {
            for e in entries.iter().skip(1).filter(|e| e.text != first.text) {
                out.push(
                    Problem::warning(
                        &e.file,
                        "plan-entry-conflict",
                        format!(
                            "caseId {:?} is also defined at {}:{} with different text",
                            c.case_id, first.file, first.line
                        ),
                    )
                    .at_line(e.line),
                );
            }
        }
    }
    out.extend(hidden_from_git(ws));
    out.extend(contract);
    out.extend(super::report::check(ws));
    out.extend(super::runner::problem(
        &ws.root,
        &ws.config.runner.command,
        !ws.tests.cases.is_empty(),
    ));
    if let Some(cat) = &ws.catalog {
        out.extend(super::catalog::validate(cat, &super::vars::process_env));
    }
    crate::problem::sort(&mut out);
    out.dedup();
    out
}

/// The most folders asked about at once (a tree of more checks its first).
const GIT_ASKED: usize = 1000;

/// Warnings where git's ignore rules hide the tests tree, `tests/temp/` or a
/// folder of cases: `--changed` and the change times read git, and git does
/// not see what it ignores (a `.gitignore` naming `temp` or `tests`).
fn hidden_from_git(ws: &Workspace) -> Vec<Problem> {
    if !ws.root.join("tests").is_dir() {
        return Vec::new();
    }
    let mut asked: Vec<String> = vec!["tests/".into(), "tests/temp/".into()];
    for c in &ws.tests.cases {
        if let Some((dir, _)) = c.path.rsplit_once('/') {
            let dir = format!("{dir}/");
            if !asked.contains(&dir) {
                asked.push(dir);
            }
        }
        if asked.len() >= GIT_ASKED {
            break;
        }
    }
    let paths: Vec<&str> = asked.iter().map(String::as_str).collect();
    let hidden = super::git::ignored(&ws.root, &paths);
    let mut out = Vec::new();
    for h in &hidden {
        // a folder below one already said is not said again
        if hidden
            .iter()
            .any(|o| o.path != h.path && h.path.starts_with(&o.path))
        {
            continue;
        }
        out.push(
            Problem::warning(
                &h.source,
                "git-ignores-tests",
                format!(
                    "git ignores {} (pattern {:?}): --changed and the change times cannot see the cases there; narrow the pattern or add !{} after it",
                    h.path, h.pattern, h.path
                ),
            )
            .at_line(h.line),
        );
    }
    out
}
