//! Every rule of the workspace as a located problem.

use super::Workspace;
use crate::problem::Problem;

/// All problems of a loaded workspace, sorted by file and place.
pub fn validate(ws: &Workspace) -> Vec<Problem> {
    let mut out = ws.problems.clone();
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
    out.extend(super::contract::check_runs(ws));
    out.extend(super::report::check(ws));
    crate::problem::sort(&mut out);
    out.dedup();
    out
}
