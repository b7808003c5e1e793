//! The test plan's model is the model's ([`testdeck_model::plan`], re-exported
//! here); the store reads `doc/test-plan/` into it.

pub use testdeck_model::plan::*;

use crate::problem::Problem;
use std::path::Path;
use std::sync::Mutex;

/// `TestPlan::load`: the plan read from the workspace.
pub trait PlanLoad {
    /// Read the test plan under `root` (`doc/test-plan/`); what cannot be read is a problem.
    fn load(root: &Path, problems: &mut Vec<Problem>) -> TestPlan;
}

impl PlanLoad for TestPlan {
    fn load(root: &Path, problems: &mut Vec<Problem>) -> TestPlan {
        let dir = root.join("doc/test-plan");
        if crate::workspace::walk::is_link_reported(root, &dir, problems) || !dir.is_dir() {
            return TestPlan::default();
        }
        let found = Mutex::new(Vec::new());
        let probs = Mutex::new(Vec::new());
        let visit = |e: &crate::workspace::walk::Entry<'_>| {
            if e.is_dir || e.is_symlink {
                return;
            }
            let rel = crate::workspace::rel(root, e.path);
            // the walk never follows links; the read (relative to the folder the
            // walk holds open) refuses FIFOs, devices and a link swapped in
            let read = crate::workspace::read::read_beneath(
                e.folder,
                Path::new(e.name),
                crate::workspace::read::Links::Never,
                crate::workspace::read::Kind::Markdown,
            );
            match read.map(crate::workspace::read::lossy) {
                Ok(text) => {
                    if let Ok(mut f) = found.lock() {
                        f.push((rel, text));
                    }
                }
                Err(err) => {
                    if let Ok(mut p) = probs.lock() {
                        let mut problem = err.problem(&rel, "");
                        problem.severity = crate::Severity::Warning;
                        p.push(problem);
                    }
                }
            }
        };
        crate::workspace::walk::walk(root, &dir, &|_: &Path| true, &visit, &probs);
        let mut files: Vec<(String, String)> = found.into_inner().unwrap_or_default();
        files.sort();
        problems.extend(probs.into_inner().unwrap_or_default());
        TestPlan::from_files(files)
    }
}
