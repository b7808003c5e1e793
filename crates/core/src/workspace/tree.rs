//! The tests tree's model is the model's ([`testdeck_model::tree`], re-exported
//! here); the store walks `tests/` into it.

pub use testdeck_model::tree::*;

use super::plan::TestPlan;
use super::walk::Entry;
use crate::problem::Problem;
use std::ffi::OsString;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Mutex;

/// Scan `tests/` for the files `patterns` makes cases. Non-kebab folders are
/// warnings; the project's own output folders (`output`, relative to the
/// root: Playwright's `outputDir`, its report) are neither walked nor linted.
pub fn scan(
    root: &Path,
    plan: &TestPlan,
    patterns: &CasePatterns,
    output: &[String],
    problems: &mut Vec<Problem>,
) -> TestsTree {
    scan_staged(root, plan, patterns, output, problems, &mut |_, _| {})
}

/// [`scan`], the walk's first results handed on before it ends: the folders
/// directly under `tests/` are walked one after another in the order their
/// cases sort (each one's own folders in parallel), and after each one
/// `part(n, tree)` is told how many cases were found so far; `tree()` gives
/// them (a copy), sorted as the whole tree is: the cases of the folders walked
/// so far are the first rows of the tree (nothing found later sorts before
/// them). What is finally returned is the whole tree, as [`scan`]
/// returns it.
#[expect(
    clippy::too_many_lines,
    reason = "one staged scan: list, stat, classify and join in one pass over the folder"
)]
pub fn scan_staged(
    root: &Path,
    plan: &TestPlan,
    patterns: &CasePatterns,
    output: &[String],
    problems: &mut Vec<Problem>,
    part: &mut dyn FnMut(usize, &dyn Fn() -> TestsTree),
) -> TestsTree {
    let tests = root.join("tests");
    if !tests.is_dir() {
        return TestsTree::default();
    }
    let found = Mutex::new(Vec::new());
    let probs = Mutex::new(Vec::new());
    let descend = |d: &Path| {
        // the excluded folders sit directly under tests/
        let not_case = d.parent() == Some(tests.as_path())
            && d.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| NOT_CASES.contains(&n));
        !not_case && !is_output(&super::rel(root, d), output)
    };
    let visit = |e: &Entry<'_>| {
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
                    super::rel(root, e.path),
                    "symlink-not-followed",
                    "symbolic link under tests/ is not followed",
                ));
            }
            return;
        }
        if e.is_dir {
            if is_output(&super::rel(root, e.path), output) {
                return;
            }
            if let Some(name) = parts.last().filter(|n| !is_kebab(n)) {
                if let Ok(mut p) = probs.lock() {
                    p.push(Problem::warning(
                        super::rel(root, e.path),
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
        let Some(case_id) = patterns.case_id_of(file) else {
            return;
        };
        let case = case_from_parts(folders, case_id, super::rel(root, e.path), plan);
        if let Ok(mut f) = found.lock() {
            f.push(case);
        }
    };
    let sort = |cases: &mut Vec<TestCase>| {
        cases.sort_by(|a, b| (&a.scope, &a.case_id, &a.path).cmp(&(&b.scope, &b.case_id, &b.path)));
    };
    match super::walk::Folder::open(&tests) {
        Err(e) => {
            if let Ok(mut p) = probs.lock() {
                p.push(super::walk::unreadable(root, &tests, &e));
            }
        }
        Ok(top) => {
            // `tests/` itself: its files and folders seen, as the walk sees them
            let subdirs = match top.entries() {
                Err(e) => {
                    if let Ok(mut p) = probs.lock() {
                        p.push(super::walk::unreadable(root, &tests, &e));
                    }
                    Vec::new()
                }
                Ok(entries) => {
                    let mut subdirs = Vec::new();
                    for (name, kind) in entries {
                        let path = tests.join(&name);
                        let e = Entry {
                            path: &path,
                            name: &name,
                            is_dir: kind == super::walk::Kind::Dir,
                            is_symlink: kind == super::walk::Kind::Link,
                            folder: top.fd(),
                        };
                        visit(&e);
                        if e.is_dir && descend(&path) {
                            subdirs.push((path, name));
                        }
                    }
                    subdirs
                }
            };
            // in the order their cases sort: a scope is the folder's name then
            // `/` (so `a-b/…` before `a/…`)
            let mut order: Vec<(Vec<u8>, PathBuf, OsString)> = subdirs
                .into_iter()
                .map(|(path, name)| {
                    let mut key = name.to_string_lossy().into_owned().into_bytes();
                    key.push(b'/');
                    (key, path, name)
                })
                .collect();
            order.sort();
            for (_, path, name) in order {
                match top.sub(&name) {
                    Ok(f) => super::walk::walk_open(root, &path, &f, 1, &descend, &visit, &probs),
                    Err(e) => {
                        if let Ok(mut p) = probs.lock() {
                            p.push(super::walk::unreadable(root, &path, &e));
                        }
                    }
                }
                let n = found.lock().map_or(0, |f| f.len());
                part(n, &|| {
                    let mut cases = found.lock().map(|f| f.clone()).unwrap_or_default();
                    sort(&mut cases);
                    TestsTree { cases }
                });
            }
        }
    }
    let mut cases = found.into_inner().unwrap_or_default();
    sort(&mut cases);
    problems.extend(probs.into_inner().unwrap_or_default());
    TestsTree { cases }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_project_s_output_folders_are_neither_cases_nor_linted() {
        let d = tempfile::tempdir().expect("dir");
        for f in [
            "tests/test-results/Search_Chromium/x.spec.ts",
            "tests/shop/backend/cart/basic/add.test.ts",
        ] {
            let p = d.path().join(f);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, "").expect("write");
        }
        let plan = TestPlan::default();
        let mut probs = Vec::new();
        let out = vec!["tests/test-results".to_owned()];
        let t = scan(d.path(), &plan, &CasePatterns::default(), &out, &mut probs);
        let ids: Vec<&str> = t.cases.iter().map(|c| c.case_id.as_str()).collect();
        assert_eq!(ids, ["add"]);
        assert!(probs.is_empty(), "{probs:?}");
        // without it, the folder is linted and its file a case
        let t = scan(d.path(), &plan, &CasePatterns::default(), &[], &mut probs);
        assert_eq!(t.cases.len(), 2);
        assert!(probs.iter().any(|p| p.rule == "folder-not-kebab-case"));
    }
}
