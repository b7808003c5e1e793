//! The figures of each case's history are the model's
//! ([`testdeck_model::insights`], re-exported here); the store reads when each
//! case's files changed (git, the file system, the import graph).

pub use testdeck_model::insights::*;

use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::path::Path;

/// `ChangeTimes::read`, `read_in`, `files` and `read_files`: when each case's
/// files last changed, read from the workspace.
pub trait ChangeTimesRead {
    /// Read the change times of the workspace's tests cases (no temp cases).
    fn read(ws: &super::Workspace) -> ChangeTimes;
    /// [`ChangeTimesRead::read`] with the import index of the history cache
    /// folder `cache`: only the modules whose bytes changed since are parsed.
    fn read_in(ws: &super::Workspace, cache: Option<&Path>) -> ChangeTimes;
    /// Each tests case's own files ([`ChangeTimes::files_of`]).
    fn files(ws: &super::Workspace) -> Vec<(String, Vec<String>)>;
    /// Read the change times of `files` (from [`ChangeTimesRead::files`]) under
    /// `root`: each case's own files and the modules its test file reaches
    /// through its imports (`workspace::graph`), so a change to the code a case
    /// loads makes it stale too; the modules' parses from the import index of
    /// the history cache folder `cache` where their bytes are unchanged.
    fn read_files(
        root: &Path,
        files: Vec<(String, Vec<String>)>,
        cache: Option<&Path>,
    ) -> ChangeTimes;
}

impl ChangeTimesRead for ChangeTimes {
    fn read(ws: &super::Workspace) -> ChangeTimes {
        ChangeTimes::read_files(&ws.root, ChangeTimes::files(ws), None)
    }

    fn read_in(ws: &super::Workspace, cache: Option<&Path>) -> ChangeTimes {
        ChangeTimes::read_files(&ws.root, ChangeTimes::files(ws), cache)
    }

    fn files(ws: &super::Workspace) -> Vec<(String, Vec<String>)> {
        ChangeTimes::files_of(&ws.tests, &ws.plan)
    }

    fn read_files(
        root: &Path,
        files: Vec<(String, Vec<String>)>,
        cache: Option<&Path>,
    ) -> ChangeTimes {
        let entries: Vec<&str> = files
            .iter()
            .filter_map(|(_, own)| own.first().map(String::as_str))
            .filter(|f| super::graph::is_source(f))
            .collect();
        let (_, graph, _) = super::graph::load::build_cached(root, cache, entries);
        let mut folders: Vec<String> = vec!["tests".into(), "doc/test-plan".into()];
        for m in graph.modules.keys() {
            let top = m.split_once('/').map_or(m.as_str(), |(t, _)| t);
            if !folders.iter().any(|f| f == top) {
                folders.push(top.to_owned());
            }
        }
        let commits = git_commit_times(root, &folders);
        let mut memo: HashMap<String, Option<DateTime<Utc>>> = HashMap::new();
        let mut by_case = HashMap::new();
        for (key, own) in files {
            let reached = own.first().map(|f| graph.reach(f)).unwrap_or_default();
            let newest = own
                .into_iter()
                .chain(reached)
                .filter_map(|f| {
                    *memo
                        .entry(f.clone())
                        .or_insert_with(|| changed_at(root, &f, commits.as_ref()))
                })
                .max();
            if let Some(t) = newest {
                by_case.insert(key, t);
            }
        }
        ChangeTimes::from_map(by_case)
    }
}

/// What git says of the checkout: the clean files' last commit times.
struct Commits {
    dirty: std::collections::HashSet<String>,
    times: HashMap<String, i64>,
}

/// `None` where the workspace is no git checkout or git is not there.
fn git_commit_times(root: &Path, folders: &[String]) -> Option<Commits> {
    let prefix = super::git::prefix(root).ok()?;
    let specs: Vec<&str> = folders.iter().map(String::as_str).collect();
    let dirty = super::git::dirty(root, &prefix, &specs)
        .ok()?
        .into_iter()
        .collect();
    let times = super::git::commit_times(root, &prefix, &specs).ok()?;
    Some(Commits { dirty, times })
}

/// When the file `rel` changed: its commit time when git knows it and it is
/// clean, else its modification time.
fn changed_at(root: &Path, rel: &str, commits: Option<&Commits>) -> Option<DateTime<Utc>> {
    if let Some(c) = commits {
        if !c.dirty.contains(rel) {
            if let Some(t) = c.times.get(rel) {
                return DateTime::from_timestamp(*t, 0);
            }
        }
    }
    let meta = std::fs::symlink_metadata(root.join(rel)).ok()?;
    meta.modified().ok().map(DateTime::<Utc>::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }

    fn set_mtime(root: &Path, rel: &str, t: DateTime<Utc>) {
        let f = std::fs::File::options()
            .write(true)
            .open(root.join(rel))
            .expect("open");
        f.set_modified(t.into()).expect("set mtime");
    }

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s)
            .expect("time")
            .with_timezone(&Utc)
    }

    const CASE: &str = "tests/d/l/s/case-x.test.ts";
    const PLAN: &str = "doc/test-plan/d.md";

    fn workspace(root: &Path) -> crate::workspace::Workspace {
        crate::workspace::Workspace::load(root).expect("workspace")
    }

    #[test]
    fn stale_by_modification_time() {
        let d = tempfile::tempdir().expect("dir");
        let root = d.path();
        write(root, CASE, "test('x', () => {});\n");
        write(root, PLAN, "# plan\n\n## case-x\n\nWhat: x\n");
        set_mtime(root, CASE, t("2026-01-01T10:00:00Z"));
        set_mtime(root, PLAN, t("2026-01-01T09:00:00Z"));
        let ch = ChangeTimes::read(&workspace(root));
        assert_eq!(ch.of("d/l/s/case-x"), Some(t("2026-01-01T10:00:00Z")));
        assert!(ch.stale("d/l/s/case-x", Some(t("2026-01-01T09:30:00Z"))));
        assert!(!ch.stale("d/l/s/case-x", Some(t("2026-01-01T10:30:00Z"))));
        // the plan entry's file counts as the case's
        set_mtime(root, PLAN, t("2026-01-01T11:00:00Z"));
        let ch = ChangeTimes::read(&workspace(root));
        assert!(ch.stale("d/l/s/case-x", Some(t("2026-01-01T10:30:00Z"))));
    }

    #[test]
    fn stale_when_a_module_the_case_reaches_changed() {
        let d = tempfile::tempdir().expect("dir");
        let root = d.path();
        write(root, CASE, "import { f } from '../../../../src/mid';\n");
        write(root, "src/mid.ts", "export { f } from './leaf';\n");
        write(root, "src/leaf.ts", "export const f = 1;\n");
        write(root, "src/unused.ts", "export const u = 1;\n");
        for f in [CASE, "src/mid.ts", "src/leaf.ts"] {
            set_mtime(root, f, t("2026-01-01T08:00:00Z"));
        }
        set_mtime(root, "src/unused.ts", t("2026-01-01T12:00:00Z"));
        let ch = ChangeTimes::read(&workspace(root));
        // a module no import names is not the case's
        assert!(!ch.stale("d/l/s/case-x", Some(t("2026-01-01T09:00:00Z"))));
        // the leaf, two imports away, is
        set_mtime(root, "src/leaf.ts", t("2026-01-01T10:00:00Z"));
        let ch = ChangeTimes::read(&workspace(root));
        assert_eq!(ch.of("d/l/s/case-x"), Some(t("2026-01-01T10:00:00Z")));
        assert!(ch.stale("d/l/s/case-x", Some(t("2026-01-01T09:00:00Z"))));
    }

    #[test]
    fn stale_by_commit_time_where_git_has_the_file_clean() {
        let git_ok = std::process::Command::new("git")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !git_ok {
            eprintln!("no git: skipped");
            return;
        }
        let d = tempfile::tempdir().expect("dir");
        let root = d.path();
        write(root, CASE, "test('x', () => {});\n");
        write(root, PLAN, "# plan\n\n## case-x\n");
        let git = |args: &[&str]| {
            let ok = std::process::Command::new("git")
                .current_dir(root)
                .args(args)
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_AUTHOR_NAME", "t")
                .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
                .env("GIT_COMMITTER_NAME", "t")
                .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
                .env("GIT_AUTHOR_DATE", "2026-01-01T08:00:00Z")
                .env("GIT_COMMITTER_DATE", "2026-01-01T08:00:00Z")
                .output()
                .expect("git")
                .status
                .success();
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q"]);
        git(&["add", "."]);
        git(&["commit", "-q", "-m", "cases"]);
        // the files were just written (mtime: now), but committed at 08:00 and clean
        let ch = ChangeTimes::read(&workspace(root));
        assert_eq!(ch.of("d/l/s/case-x"), Some(t("2026-01-01T08:00:00Z")));
        assert!(!ch.stale("d/l/s/case-x", Some(t("2026-01-01T09:00:00Z"))));
        assert!(ch.stale("d/l/s/case-x", Some(t("2026-01-01T07:00:00Z"))));
        // edited and not committed: its modification time again
        write(root, CASE, "test('x', () => { /* edited */ });\n");
        set_mtime(root, CASE, t("2026-01-01T12:00:00Z"));
        let ch = ChangeTimes::read(&workspace(root));
        assert_eq!(ch.of("d/l/s/case-x"), Some(t("2026-01-01T12:00:00Z")));
        assert!(ch.stale("d/l/s/case-x", Some(t("2026-01-01T09:00:00Z"))));
    }
}

/// Histories written as run folders (`meta.json` and a timeline with the
/// per-test events of SPEC §1.2), read by the scan as a workspace's are.
#[cfg(test)]
mod same_code {
    use crate::workspace::logs;
    use crate::workspace::stats::{self, NodeKind, NodeStats, Window};
    use crate::workspace::tree::TestsTree;
    use std::path::Path;

    const CASE: &str = "web/unit/dates/format";

    /// One run: `P`/`F` its outcome, `code` its `data.code` commit (`None`: no
    /// record), `tests` its `data.tests.total` (0: ran none), `ms` its duration.
    struct Run<'a> {
        outcome: char,
        code: Option<&'a str>,
        tests: u64,
        ms: u64,
    }

    fn write_history(root: &Path, runs: &[Run<'_>]) {
        for (i, r) in runs.iter().enumerate() {
            let id = format!("202603{:02}-100000-000", i + 1);
            let dir = root.join("tests/logs").join(CASE).join(&id);
            std::fs::create_dir_all(&dir).expect("mkdir");
            let status = if r.outcome == 'P' { "passed" } else { "failed" };
            let code = r.code.map_or_else(
                || "null".to_owned(),
                |c| format!(r#"{{"commit":"{c}","dirty":null}}"#),
            );
            let (passed, failed) = if r.tests == 0 {
                (0, 0)
            } else if r.outcome == 'P' {
                (r.tests, 0)
            } else {
                (r.tests - 1, 1)
            };
            let no_tests = if r.tests == 0 {
                r#","noTests":"No tests found.""#
            } else {
                ""
            };
            let timeline = format!(
                "{}\n{}\n",
                format_args!(
                    r#"{{"type":"run","name":"run/start","status":"info","message":"started","data":{{"code":{code}}}}}"#
                ),
                format_args!(
                    r#"{{"type":"run","name":"run/finish","status":"{}","message":"ended","data":{{"tests":{{"total":{},"passed":{passed},"failed":{failed},"skipped":0}}{no_tests}}}}}"#,
                    if r.outcome == 'P' { "ok" } else { "failed" },
                    r.tests
                ),
            );
            std::fs::write(dir.join("timeline.jsonl"), timeline).expect("timeline");
            let meta = format!(
                r#"{{"schemaVersion":4,"runId":"{id}","caseId":"format","scope":"web/unit/dates","status":"{status}","startedAt":"2026-03-{:02}T10:00:00Z","finishedAt":"2026-03-{:02}T10:00:01Z","stats":{{"durationMs":{},"steps":1,"assertions":0,"errors":0,"artifacts":0}}}}"#,
                i + 1,
                i + 1,
                r.ms
            );
            std::fs::write(dir.join("meta.json"), meta).expect("meta");
        }
    }

    fn case_node(runs: &[Run<'_>]) -> (NodeStats, NodeStats) {
        let tmp = tempfile::tempdir().expect("tempdir");
        write_history(tmp.path(), runs);
        let mut problems = Vec::new();
        let logs = logs::scan(tmp.path(), &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        let nodes = stats::compute(&TestsTree::default(), &logs, &Window::default());
        let find = |k: NodeKind| nodes.iter().find(|n| n.kind == k).cloned().expect("a node");
        (find(NodeKind::Case), find(NodeKind::Root))
    }

    fn run(outcome: char, code: Option<&str>) -> Run<'_> {
        Run {
            outcome,
            code,
            tests: 6,
            ms: 100,
        }
    }

    #[test]
    fn a_break_and_its_fix_on_changed_code_is_a_regression_and_a_fix() {
        // pass on a, fail on b (the code changed), pass on a again (changed back)
        let (case, _) = case_node(&[
            run('P', Some("a")),
            run('F', Some("b")),
            run('P', Some("a")),
        ]);
        let f = case.figures.expect("figures");
        assert_eq!((f.flips, f.flaky), (0, false), "{f:?}");
        assert_eq!(case.flaky_cases, 0);
    }

    #[test]
    fn the_same_pattern_on_unchanged_code_is_flaky() {
        let (case, _) = case_node(&[
            run('P', Some("a")),
            run('F', Some("a")),
            run('P', Some("a")),
        ]);
        let f = case.figures.expect("figures");
        assert_eq!((f.flips, f.flaky_score, f.flaky), (2, Some(1.0), true));
        // a flip on the same code counts even when the code moved in between
        let (moved, _) = case_node(&[
            run('P', Some("a")),
            run('P', Some("b")),
            run('F', Some("b")),
        ]);
        assert_eq!(moved.figures.expect("figures").flips, 1);
    }

    #[test]
    fn runs_without_the_record_keep_the_old_rule() {
        let (case, _) = case_node(&[run('P', None), run('F', None), run('P', None)]);
        assert_eq!(case.figures.expect("figures").flips, 2);
    }

    #[test]
    fn a_run_that_ran_no_test_is_no_sample_no_pass_and_says_why() {
        let zero = Run {
            outcome: 'P',
            code: Some("a"),
            tests: 0,
            ms: 900,
        };
        let (case, root) = case_node(&[run('P', Some("a")), run('P', Some("a")), zero]);
        let f = case.figures.expect("figures");
        // no duration sample: no regression of 9×, the median over the two
        assert_eq!(f.regression, None);
        assert_eq!(
            (f.duration_ms.last, f.duration_ms.median),
            (None, Some(100))
        );
        assert_eq!(f.no_tests.as_deref(), Some("No tests found."));
        // no outcome for insights: no flip, no failing streak, no new failure
        assert_eq!((f.flips, f.failing_streak, f.new_failure), (0, 0, false));
        // no pass in the rates, though its meta.json says passed
        assert_eq!(
            (case.historical.passed_runs, case.historical.failed_runs),
            (2, 1)
        );
        assert_eq!(case.latest.latest_passed_cases, 0);
        // the tests its newest run held: none
        assert_eq!(case.tests.map(|t| t.total), Some(0));
        assert_eq!(root.tests.map(|t| t.total), Some(0));
    }

    #[test]
    fn new_failure_means_the_one_before_passed() {
        let (only, _) = case_node(&[run('F', Some("a"))]);
        let f = only.figures.expect("figures");
        assert_eq!((f.failing_streak, f.new_failure), (1, false));
        let (after_pass, _) = case_node(&[run('P', Some("a")), run('F', Some("b"))]);
        assert!(after_pass.figures.expect("figures").new_failure);
        // the tests of the newest run, at the case and the root
        assert_eq!(
            after_pass.tests.map(|t| (t.passed, t.failed, t.skipped)),
            Some((5, 1, 0))
        );
    }
}
