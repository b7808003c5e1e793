//! The tests tree (seed 000 §2): `tests/<domain>/<layer>/<suite>/<groups...>/<case>.test.ts`.

use super::plan::TestPlan;
use super::walk::{Entry, walk};
use crate::problem::Problem;
use serde::Serialize;
use std::path::Path;
use std::sync::Mutex;

/// File endings that make a case; `caseId` is the file name without it.
pub const CASE_ENDINGS: [&str; 4] = [".test.ts", ".test.tsx", ".test.js", ".test.mjs"];
/// Top-level folders of `tests/` that never hold cases.
pub const NOT_CASES: [&str; 4] = ["harness", "fixtures", "logs", "report"];
/// The stable groups of seed 000.
pub const STABLE_GROUPS: [&str; 4] = ["basic", "boundary", "scenario", "live"];

/// One case file of the tests tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TestCase {
    pub case_id: String,
    /// The file, relative to the workspace root.
    pub path: String,
    /// `<domain>/<layer>/<suite>/<groups...>` (the folders between `tests/` and the file).
    pub scope: String,
    pub domain: String,
    pub layer: Option<String>,
    pub suite: Option<String>,
    pub groups: Vec<String>,
    /// Under `tests/temp/`: shown in its own node, non-gating, in no statistic.
    pub temp: bool,
    /// Under a `live/` folder: calls a real model, needs explicit confirmation.
    pub live: bool,
    /// Its caseId appears in `doc/test-plan/**` (always true for temp cases).
    pub registered: bool,
}

impl TestCase {
    /// `scope/caseId`: the identity of a case across the tree, logs and stats.
    pub fn key(&self) -> String {
        key(&self.scope, &self.case_id)
    }
}

/// `scope/caseId`, or `caseId` for an empty scope.
pub fn key(scope: &str, case_id: &str) -> String {
    if scope.is_empty() {
        case_id.to_owned()
    } else {
        format!("{scope}/{case_id}")
    }
}

#[derive(Debug, Clone, Default)]
pub struct TestsTree {
    /// Sorted by scope, then caseId.
    pub cases: Vec<TestCase>,
}

/// `caseId` of a file name, when it ends in a case ending.
pub fn case_id_of(file_name: &str) -> Option<&str> {
    CASE_ENDINGS
        .iter()
        .find_map(|e| file_name.strip_suffix(e))
        .filter(|s| !s.is_empty())
}

/// Whether a folder name is kebab-case: lowercase ASCII letters and digits in
/// words joined by single `-`.
pub fn is_kebab(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Build a case from its path relative to `tests/` (folders then the file name).
pub fn case_from_parts(
    folders: &[String],
    case_id: &str,
    path: String,
    plan: &TestPlan,
) -> TestCase {
    let temp = folders.first().is_some_and(|f| f == "temp");
    let domain = folders.first().cloned().unwrap_or_default();
    let (layer, suite, groups) = if temp {
        (
            None,
            None,
            folders.get(1..).map(<[String]>::to_vec).unwrap_or_default(),
        )
    } else {
        (
            folders.get(1).cloned(),
            folders.get(2).cloned(),
            folders.get(3..).map(<[String]>::to_vec).unwrap_or_default(),
        )
    };
    let live = folders.iter().skip(1).any(|f| f == "live");
    TestCase {
        case_id: case_id.to_owned(),
        path,
        scope: folders.join("/"),
        domain,
        layer,
        suite,
        groups,
        temp,
        live,
        registered: temp || plan.is_registered(case_id),
    }
}

/// Scan `tests/` for case files. Non-kebab folders are warnings.
pub fn scan(root: &Path, plan: &TestPlan, problems: &mut Vec<Problem>) -> TestsTree {
    let tests = root.join("tests");
    if !tests.is_dir() {
        return TestsTree::default();
    }
    let found = Mutex::new(Vec::new());
    let probs = Mutex::new(Vec::new());
    let descend = |d: &Path| {
        // the excluded folders sit directly under tests/
        !(d.parent() == Some(tests.as_path())
            && d.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| NOT_CASES.contains(&n)))
    };
    let visit = |e: &Entry| {
        let Ok(rel) = e.path.strip_prefix(&tests) else {
            return;
        };
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts
            .first()
            .is_some_and(|f| NOT_CASES.contains(&f.as_str()))
        {
            return;
        }
        if e.is_symlink {
            // never followed: a loop or a link out of the workspace cannot trap the scan
            if let Ok(mut p) = probs.lock() {
                p.push(Problem::warning(
                    super::rel(root, &e.path),
                    "symlink-not-followed",
                    "symbolic link under tests/ is not followed",
                ));
            }
            return;
        }
        if e.is_dir {
            if let Some(name) = parts.last().filter(|n| !is_kebab(n)) {
                if let Ok(mut p) = probs.lock() {
                    p.push(Problem::warning(
                        super::rel(root, &e.path),
                        "folder-not-kebab-case",
                        format!("folder name {name:?} is not kebab-case"),
                    ));
                }
            }
            return;
        }
        let Some((file, folders)) = parts.split_last() else {
            return;
        };
        let Some(case_id) = case_id_of(file) else {
            return;
        };
        let case = case_from_parts(folders, case_id, super::rel(root, &e.path), plan);
        if let Ok(mut f) = found.lock() {
            f.push(case);
        }
    };
    walk(root, &tests, &descend, &visit, &probs);
    let mut cases = found.into_inner().unwrap_or_default();
    cases.sort_by(|a, b| (&a.scope, &a.case_id, &a.path).cmp(&(&b.scope, &b.case_id, &b.path)));
    problems.extend(probs.into_inner().unwrap_or_default());
    TestsTree { cases }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_ids_and_kebab() {
        assert_eq!(case_id_of("a-b.test.ts"), Some("a-b"));
        assert_eq!(case_id_of("a.test.mjs"), Some("a"));
        assert_eq!(case_id_of("a.spec.ts"), None);
        assert_eq!(case_id_of(".test.ts"), None);
        assert!(is_kebab("director-intent"));
        assert!(is_kebab("e2e"));
        assert!(!is_kebab("Director"));
        assert!(!is_kebab("a_b"));
        assert!(!is_kebab("a--b"));
    }

    #[test]
    fn parts_make_scope_and_levels() {
        let plan = TestPlan::default();
        let f = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let c = case_from_parts(
            &f(&["ai", "backend", "tools", "terminal", "live"]),
            "x",
            "p".into(),
            &plan,
        );
        assert_eq!(c.scope, "ai/backend/tools/terminal/live");
        assert_eq!(c.suite.as_deref(), Some("tools"));
        assert_eq!(c.groups, ["terminal", "live"]);
        assert!(c.live && !c.temp && !c.registered);
        let t = case_from_parts(&f(&["temp", "probe"]), "y", "p".into(), &plan);
        assert!(t.temp && t.registered && t.layer.is_none());
        let short = case_from_parts(&f(&["ai", "e2e"]), "z", "p".into(), &plan);
        assert_eq!(short.suite, None);
    }
}
