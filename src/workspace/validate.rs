//! Every rule of the workspace as a located problem.

use super::Workspace;
use crate::problem::Problem;

/// All problems of a loaded workspace, sorted by file and place.
pub fn validate(ws: &Workspace) -> Vec<Problem> {
    let mut out = ws.problems.clone();
    for c in &ws.tests.cases {
        if !c.registered {
            out.push(Problem::error(
                &c.path,
                "case-unregistered",
                format!(
                    "caseId {:?} is not registered in doc/test-plan/**",
                    c.case_id
                ),
            ));
        }
    }
    if let Some(cat) = &ws.catalog {
        out.extend(super::catalog::validate(cat, &super::vars::process_env));
    }
    crate::problem::sort(&mut out);
    out
}
