//! The live workspace: a changed path classified as one change, read (off the UI
//! thread) into updates, and the updates applied to a loaded workspace without
//! indexing the rest again.

use super::logs::Judged as _;
use super::plan::PlanLoad as _;
use super::{Workspace, catalog, config, logs, plan, run_folder, tree};
use crate::problem::Problem;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// What a changed path is to the workspace.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// Under `tests/logs/`: the run folder (when the path names one) or the
    /// folder it is in, relative to the root.
    Logs(String),
    /// Under `tests/` (not logs, report, harness, fixtures): a test file or a
    /// folder added, removed or renamed, relative to the root.
    Tests(String),
    /// Something under `doc/test-plan/`.
    Plan,
    /// Something of the tester catalog under `.pouch/tester/` (not its runs).
    Catalog,
    /// A catalog run record under `.pouch/tester/runs/`.
    Records,
    /// `testdeck.toml`: everything may read differently; a full load.
    Config,
    /// A file outside the tests tree that `[outside]` takes for a test (added,
    /// changed or removed), relative to the root.
    Outside(String),
}

fn under<'a>(path: &'a str, dir: &str) -> Option<&'a str> {
    if path == dir {
        return Some("");
    }
    path.strip_prefix(dir).and_then(|r| r.strip_prefix('/'))
}

/// The change a changed path (absolute, or relative to `root`) makes, if any.
/// Pure: the path is not looked at on disk.
pub fn classify(root: &Path, path: &Path) -> Option<Change> {
    if path.is_absolute() && !path.starts_with(root) {
        return None;
    }
    let r = super::rel(root, path);
    if r == "testdeck.toml" {
        return Some(Change::Config);
    }
    if let Some(rest) = under(&r, "tests/logs") {
        return Some(Change::Logs(run_folder_of(&r, rest)));
    }
    if let Some(rest) = under(&r, "tests") {
        let top = rest.split('/').next().unwrap_or_default();
        if rest.is_empty() || tree::NOT_CASES.contains(&top) {
            return None;
        }
        return Some(Change::Tests(r));
    }
    if under(&r, "doc/test-plan").is_some() {
        return Some(Change::Plan);
    }
    if under(&r, ".pouch/tester/runs").is_some() {
        return Some(Change::Records);
    }
    if under(&r, ".pouch/tester").is_some() {
        return Some(Change::Catalog);
    }
    None
}

/// The run folder a path under `tests/logs/` belongs to, as far as its name
/// tells: up to a runId folder, or the folder of a run file; else the path.
fn run_folder_of(full: &str, rest: &str) -> String {
    let parts: Vec<&str> = rest.split('/').collect();
    // a run folder needs a domain and a caseId folder above it
    if let Some(i) = parts.iter().skip(2).position(|p| logs::is_run_id(p)) {
        return format!("tests/logs/{}", parts[..i + 3].join("/"));
    }
    let run_file = |n: &str| {
        matches!(
            n,
            run_folder::META
                | run_folder::TIMELINE
                | run_folder::RUNTIME_EVENTS
                | run_folder::ARTIFACTS
        ) || n.starts_with("meta.json.")
            || n.starts_with("artifacts.json.")
    };
    if let Some(i) = parts.iter().position(|p| *p == "artifacts") {
        if i >= 3 {
            return format!("tests/logs/{}", parts[..i].join("/"));
        }
    }
    match parts.split_last() {
        Some((last, before)) if run_file(last) && !before.is_empty() => {
            format!("tests/logs/{}", before.join("/"))
        }
        _ => full.to_owned(),
    }
}

/// One change read from disk, ready to apply (no I/O left).
#[derive(Debug, Clone)]
pub enum Update {
    /// A run folder as it is now (new, grown, ended), and what was wrong reading it.
    Run(Box<logs::RawRun>, Vec<Problem>),
    /// The run folders at or below this path are gone (or are no runs any more).
    RemoveRuns(String),
    /// A case file as it is now: its folders below `tests/`, caseId and path.
    Case {
        /// Its folders below `tests/` (the scope).
        folders: Vec<String>,
        /// Its caseId.
        case_id: String,
        /// The case file, relative to the workspace root.
        path: String,
    },
    /// A test file outside the tree as it is now: its case (SPEC §1.1a).
    OutsideCase(tree::TestCase),
    /// The case files at or below this path are gone.
    RemoveCases(String),
    /// The whole tests tree (a folder appeared: scanned whole).
    Tree(tree::TestsTree),
    /// The test plan as it is now, and its problems.
    Plan(plan::TestPlan, Vec<Problem>),
    /// The tester catalog as it is now (`None`: no `.pouch/tester/`), and its problems.
    Catalog(Option<Box<catalog::Catalog>>, Vec<Problem>),
    /// What the model does not hold changed: the caller reads it again (the
    /// catalog's run records; everything when the settings changed).
    Reread(Reread),
}

/// What applying updates changed, for the views.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    /// Run folders new in the index.
    pub new_runs: Vec<String>,
    /// Run folders that ended (finished, cancelled, abandoned) with this update.
    pub ended_runs: Vec<String>,
    /// Anything in the model changed.
    pub changed: bool,
    /// What the model does not hold, for the caller to read itself.
    pub reread: Reread,
    /// Where the runs moved, and whose runs changed: what a view keeps up to
    /// date without building itself again.
    pub moves: logs::RunMoves,
    /// The cases of the tests tree changed (a case file came or went, the tree
    /// was scanned again, the plan registered other cases).
    pub tree: bool,
    /// The tester catalog changed.
    pub catalog: bool,
}

/// What the caller of [`Workspace::apply`] must read again itself, the most
/// wanted of its updates (a full load reads the run records too).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reread {
    #[default]
    /// Nothing to read again.
    Nothing,
    /// The catalog's run records (not in the model).
    Records,
    /// Everything: only a full load tells (the settings changed).
    All,
}

/// Reads changes for one workspace: its case patterns and run-state settings.
#[derive(Debug, Clone)]
pub struct Reader {
    root: std::path::PathBuf,
    patterns: tree::CasePatterns,
    outside: Option<super::outside::Outside>,
    runs: config::Runs,
    /// The run store whose ended runs are taken as it read them.
    store: Option<crate::tail::store::RunStore>,
}

impl Reader {
    /// A reader for the workspace at `root` with its settings `config`.
    pub fn new(root: &Path, config: &config::Config) -> Reader {
        let mut ignored = Vec::new();
        Reader {
            root: root.to_path_buf(),
            patterns: tree::CasePatterns::new(&config.tests.patterns, &mut ignored),
            outside: config.outside.clone(),
            runs: config.runs.clone(),
            store: None,
        }
    }

    /// Take a run that `store` saw end as it read it (its `meta.json` and
    /// timeline not read again while they stay as they were).
    #[must_use]
    pub fn with_runs(mut self, store: crate::tail::store::RunStore) -> Reader {
        self.store = Some(store);
        self
    }

    /// Read what `changes` are now on disk.
    pub fn read(&self, changes: &BTreeSet<Change>) -> Vec<Update> {
        let root = &self.root;
        let mut out = Vec::new();
        let mut judge = None;
        for c in changes {
            match c {
                Change::Config => return vec![Update::Reread(Reread::All)],
                Change::Logs(rel) => {
                    let judge = judge.get_or_insert_with(|| logs::Judge::load(root, &self.runs));
                    self.read_logs(rel, judge, &mut out);
                }
                Change::Tests(rel) => self.read_tests(rel, &mut out),
                Change::Outside(rel) => {
                    let is_file = std::fs::symlink_metadata(root.join(rel))
                        .is_ok_and(|m| m.file_type().is_file());
                    match super::outside::case_of(rel).filter(|_| is_file) {
                        Some(case) => out.push(Update::OutsideCase(case)),
                        None => out.push(Update::RemoveCases(rel.clone())),
                    }
                }
                Change::Plan => {
                    let mut p = Vec::new();
                    let plan = plan::TestPlan::load(root, &mut p);
                    out.push(Update::Plan(plan, p));
                }
                Change::Catalog => {
                    let mut p = Vec::new();
                    let cat = catalog::load(root, &mut p).map(Box::new);
                    out.push(Update::Catalog(cat, p));
                }
                Change::Records => out.push(Update::Reread(Reread::Records)),
            }
        }
        out
    }

    fn read_logs(&self, rel: &str, judge: &logs::Judge, out: &mut Vec<Update>) {
        let root = &self.root;
        let abs = root.join(rel);
        let read = |dir: &Path, out: &mut Vec<Update>| {
            let mut problems = Vec::new();
            let known = self.store.as_ref().and_then(|s| s.ended(dir));
            match logs::read_folder_known(root, dir, &mut problems, known.as_deref()) {
                Some(mut r) => {
                    r.judge(root, judge);
                    out.push(Update::Run(Box::new(r), problems));
                }
                None => out.push(Update::RemoveRuns(super::rel(root, dir))),
            }
        };
        if run_folder::is_run_folder(&abs) {
            read(&abs, out);
            return;
        }
        // a folder that is no run (any more): whatever was indexed at or below it
        // goes, and the run folders now below it come in
        out.push(Update::RemoveRuns(rel.to_owned()));
        if abs.is_dir() {
            for dir in run_folder::run_folders(&abs, &BTreeSet::new()) {
                read(&dir, out);
            }
        }
    }

    fn read_tests(&self, rel: &str, out: &mut Vec<Update>) {
        let root = &self.root;
        let abs = root.join(rel);
        let Ok(meta) = std::fs::symlink_metadata(&abs) else {
            out.push(Update::RemoveCases(rel.to_owned()));
            return;
        };
        if meta.is_dir() {
            // a folder moved in or out: the tree is scanned whole (rare)
            let mut ignored = Vec::new();
            let t = super::outside::scan_tests(
                root,
                &plan::TestPlan::default(),
                &self.patterns,
                self.outside.as_ref(),
                &mut ignored,
            );
            out.push(Update::Tree(t));
            return;
        }
        let file = abs.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let Some(case_id) = self.patterns.case_id_of(file).filter(|_| meta.is_file()) else {
            return;
        };
        let Some(folders) = rel
            .strip_prefix("tests/")
            .and_then(|r| r.rsplit_once('/'))
            .map(|(dirs, _)| dirs.split('/').map(str::to_owned).collect())
        else {
            return;
        };
        out.push(Update::Case {
            folders,
            case_id: case_id.to_owned(),
            path: rel.to_owned(),
        });
    }
}

/// Put `case` among `cases` (sorted by scope, caseId, path) in place of the
/// case of the same file.
fn insert_case(cases: &mut Vec<tree::TestCase>, case: tree::TestCase) {
    cases.retain(|c| c.path != case.path);
    let k = |c: &tree::TestCase| (c.scope.clone(), c.case_id.clone(), c.path.clone());
    let key = k(&case);
    let at = cases.partition_point(|c| k(c) < key);
    cases.insert(at, case);
}

fn problems_outside(problems: &mut Vec<Problem>, dir: &str, mut new: Vec<Problem>) {
    problems.retain(|p| under(&p.file, dir).is_none());
    problems.append(&mut new);
}

impl Workspace {
    /// Apply updates read by a [`Reader`]: no I/O.
    pub fn apply(&mut self, updates: Vec<Update>) -> Applied {
        let mut a = Applied::default();
        let updates = self.merge_new_runs(updates, &mut a);
        for u in updates {
            // a removal of what was never indexed changes nothing
            let mut changed = true;
            match u {
                Update::Run(r, p) => {
                    let before = self.logs.status_of(&r);
                    let ended = r.status != logs::RunStatus::InProgress;
                    match before {
                        None => {
                            a.new_runs.push(r.path.clone());
                            if ended {
                                a.ended_runs.push(r.path.clone());
                            }
                        }
                        Some(logs::RunStatus::InProgress) if ended => {
                            a.ended_runs.push(r.path.clone());
                        }
                        Some(_) => {}
                    }
                    problems_outside(&mut self.problems, &r.path, p);
                    self.logs.upsert(*r, &mut a.moves);
                }
                Update::RemoveRuns(p) => {
                    let n = self.problems.len();
                    self.problems.retain(|x| under(&x.file, &p).is_none());
                    changed =
                        self.logs.remove_under(&p, &mut a.moves) > 0 || n != self.problems.len();
                }
                Update::Case {
                    folders,
                    case_id,
                    path,
                } => {
                    let case = tree::case_from_parts(&folders, &case_id, path, &self.plan);
                    insert_case(&mut self.tests.cases, case);
                    a.tree = true;
                }
                Update::OutsideCase(case) => {
                    // a test file saved: the case is as it was
                    changed = !self.tests.cases.contains(&case);
                    if changed {
                        insert_case(&mut self.tests.cases, case);
                        a.tree = true;
                    }
                }
                Update::RemoveCases(p) => {
                    let n = self.tests.cases.len();
                    self.tests
                        .cases
                        .retain(|c| c.path != p && under(&c.path, &p).is_none());
                    changed = n != self.tests.cases.len();
                    a.tree |= changed;
                }
                Update::Tree(mut t) => {
                    for c in &mut t.cases {
                        c.registered = c.temp || self.plan.is_registered(&c.case_id);
                    }
                    self.tests = t;
                    a.tree = true;
                }
                Update::Plan(plan, p) => {
                    self.plan = plan;
                    a.tree = true;
                    for c in &mut self.tests.cases {
                        c.registered = c.temp || self.plan.is_registered(&c.case_id);
                    }
                    problems_outside(&mut self.problems, "doc/test-plan", p);
                }
                Update::Catalog(cat, p) => {
                    self.catalog = cat.map(|c| *c);
                    a.catalog = true;
                    let runs: Vec<Problem> = self
                        .problems
                        .iter()
                        .filter(|x| under(&x.file, ".pouch/tester/runs").is_some())
                        .cloned()
                        .collect();
                    problems_outside(&mut self.problems, ".pouch/tester", p);
                    self.problems.extend(runs);
                }
                Update::Reread(r) => {
                    a.reread = a.reread.max(r);
                    // the run records are nothing of the model; a full load may change anything
                    changed = r == Reread::All;
                }
            }
            a.changed |= changed;
        }
        a
    }

    /// The runs of `updates` new to the history, merged into it in one pass
    /// when there are several and nothing is removed meanwhile (a check of the
    /// history cache, a burst of runs starting): each insert on its own moves
    /// the runs after it. The updates left to apply one by one.
    fn merge_new_runs(&mut self, updates: Vec<Update>, a: &mut Applied) -> Vec<Update> {
        let removes = updates
            .iter()
            .any(|u| matches!(u, Update::RemoveRuns(_) | Update::Tree(_)));
        let new = |u: &Update, logs: &logs::Logs| matches!(u, Update::Run(r, _) if logs.status_of(r).is_none());
        if removes || updates.iter().filter(|u| new(u, &self.logs)).count() < 2 {
            return updates;
        }
        let mut fresh: BTreeMap<String, (logs::RawRun, Vec<Problem>)> = BTreeMap::new();
        let mut rest = Vec::new();
        for u in updates {
            match u {
                Update::Run(r, p) if self.logs.status_of(&r).is_none() => {
                    // the same folder read twice: the later reading
                    fresh.insert(r.path.clone(), (*r, p));
                }
                other => rest.push(other),
            }
        }
        let mut runs = Vec::with_capacity(fresh.len());
        for (path, (r, p)) in fresh {
            if r.status != logs::RunStatus::InProgress {
                a.ended_runs.push(path.clone());
            }
            a.new_runs.push(path.clone());
            problems_outside(&mut self.problems, &path, p);
            runs.push(r);
        }
        self.logs.merge_sorted(runs, &mut a.moves);
        a.changed = true;
        rest
    }

    /// Read `change` from disk and apply it (for a caller without a UI thread to spare).
    pub fn apply_change(&mut self, change: Change) -> Applied {
        let reader = Reader::new(&self.root, &self.config);
        let updates = reader.read(&BTreeSet::from([change]));
        self.apply(updates)
    }
}

#[cfg(test)]
mod random_changes;

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn c(root: &Path, p: &str) -> Option<Change> {
        classify(root, &root.join(p))
    }

    #[test]
    fn paths_classify_to_one_change() {
        let root = PathBuf::from("/ws");
        let run = "tests/logs/shop/backend/cart/add/20260310-120000-000";
        for p in [
            format!("{run}/timeline.jsonl"),
            format!("{run}/meta.json"),
            format!("{run}/meta.json.tmp"),
            format!("{run}/artifacts/shot.png"),
            format!("{run}/artifacts/report/data/x.zip"),
            run.to_owned(),
        ] {
            assert_eq!(c(&root, &p), Some(Change::Logs(run.into())), "{p}");
        }
        // a run folder not named by a runId: known by its files
        assert_eq!(
            c(
                &root,
                "tests/logs/shop/backend/cart/add/my-run/timeline.jsonl"
            ),
            Some(Change::Logs(
                "tests/logs/shop/backend/cart/add/my-run".into()
            ))
        );
        assert_eq!(
            c(&root, "tests/logs/shop/backend/cart/add"),
            Some(Change::Logs("tests/logs/shop/backend/cart/add".into()))
        );
        assert_eq!(
            c(&root, "tests/shop/backend/cart/add.test.ts"),
            Some(Change::Tests("tests/shop/backend/cart/add.test.ts".into()))
        );
        assert_eq!(c(&root, "tests/harness/setup.ts"), None);
        assert_eq!(c(&root, "tests/report/shop/report.md"), None);
        assert_eq!(c(&root, "doc/test-plan/shop.md"), Some(Change::Plan));
        assert_eq!(
            c(&root, ".pouch/tester/cases/a.yaml"),
            Some(Change::Catalog)
        );
        assert_eq!(c(&root, ".pouch/tester/runs/r.json"), Some(Change::Records));
        assert_eq!(c(&root, "testdeck.toml"), Some(Change::Config));
        assert_eq!(c(&root, "src/cart.ts"), None);
        assert_eq!(classify(&root, Path::new("/elsewhere/tests/x")), None);
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }

    const RUN: &str = "tests/logs/shop/backend/cart/add/20260310-120000-000";

    #[test]
    fn a_run_folder_is_applied_alone_from_its_start_to_its_end_and_removal() {
        let ws_dir = tempfile::tempdir().expect("tmp");
        let root = ws_dir.path();
        write(root, "tests/shop/backend/cart/add.test.ts", "");
        write(root, "doc/test-plan/shop.md", "- add\n");
        let mut ws = Workspace::load(root).expect("load");
        assert!(ws.logs.runs.is_empty());
        // a run folder appears, its timeline growing
        write(
            root,
            &format!("{RUN}/timeline.jsonl"),
            "{\"type\":\"step\"}\n",
        );
        let change = classify(root, &root.join(RUN).join("timeline.jsonl")).expect("change");
        let a = ws.apply_change(change.clone());
        assert_eq!(a.new_runs, [RUN]);
        assert!(a.ended_runs.is_empty());
        assert_eq!(ws.logs.runs[0].status, logs::RunStatus::InProgress);
        // meta.json last: the run ends
        write(
            root,
            &format!("{RUN}/meta.json"),
            r#"{"schemaVersion":4,"status":"failed"}"#,
        );
        let a = ws.apply_change(change.clone());
        assert!(a.new_runs.is_empty());
        assert_eq!(a.ended_runs, [RUN]);
        assert_eq!(ws.logs.runs.len(), 1);
        assert_eq!(ws.logs.runs[0].status, logs::RunStatus::Failed);
        // the same as a full load
        let full = Workspace::load(root).expect("load");
        assert_eq!(full.logs.runs[0].status, ws.logs.runs[0].status);
        assert_eq!(full.logs.runs[0].path, ws.logs.runs[0].path);
        // a second run of the case sorts after the first
        let second = "tests/logs/shop/backend/cart/add/20260311-120000-000";
        write(root, &format!("{second}/timeline.jsonl"), "");
        ws.apply_change(Change::Logs(second.into()));
        let paths: Vec<&str> = ws.logs.runs.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(paths, [RUN, second]);
        // the case folder removed: both runs go
        std::fs::remove_dir_all(root.join("tests/logs/shop/backend/cart/add")).expect("rm");
        let a = ws.apply_change(Change::Logs("tests/logs/shop/backend/cart/add".into()));
        assert!(a.changed);
        assert!(ws.logs.runs.is_empty());
    }

    #[test]
    fn a_cancelled_run_read_alone_is_cancelled_not_in_progress() {
        let ws_dir = tempfile::tempdir().expect("tmp");
        let root = ws_dir.path();
        write(
            root,
            "testdeck.toml",
            "[runs]\nabandoned-after-minutes = 0\n",
        );
        let mut ws = Workspace::load(root).expect("load");
        write(root, &format!("{RUN}/timeline.jsonl"), "");
        // no writer, silent for a long time, with the setting off: in progress
        let a = ws.apply_change(Change::Logs(RUN.into()));
        assert!(a.ended_runs.is_empty());
        assert_eq!(ws.logs.runs[0].status, logs::RunStatus::InProgress);
    }

    #[test]
    fn test_files_plan_and_catalog_are_applied_alone() {
        let ws_dir = tempfile::tempdir().expect("tmp");
        let root = ws_dir.path();
        write(root, "tests/shop/backend/cart/add.test.ts", "");
        let mut ws = Workspace::load(root).expect("load");
        assert_eq!(ws.tests.cases.len(), 1);
        let new = "tests/shop/backend/cart/remove.spec.ts";
        write(root, new, "");
        let change = classify(root, &root.join(new)).expect("change");
        ws.apply_change(change.clone());
        let ids: Vec<&str> = ws.tests.cases.iter().map(|c| c.case_id.as_str()).collect();
        assert_eq!(ids, ["add", "remove"]);
        assert!(!ws.tests.cases[1].registered);
        // registered by a plan edit
        write(root, "doc/test-plan/shop.md", "| remove | x |\n");
        ws.apply_change(Change::Plan);
        assert_eq!(
            ws.tests.cases[1].registered,
            Workspace::load(root).expect("load").tests.cases[1].registered
        );
        // a file that is no case changes nothing in the tree
        write(root, "tests/shop/backend/cart/util.ts", "");
        ws.apply_change(Change::Tests("tests/shop/backend/cart/util.ts".into()));
        assert_eq!(ws.tests.cases.len(), 2);
        // renamed: the old path goes, the new one comes
        let renamed = "tests/shop/backend/cart/drop.spec.ts";
        std::fs::rename(root.join(new), root.join(renamed)).expect("rename");
        ws.apply_change(change);
        ws.apply_change(Change::Tests(renamed.into()));
        let ids: Vec<&str> = ws.tests.cases.iter().map(|c| c.case_id.as_str()).collect();
        assert_eq!(ids, ["add", "drop"]);
        // a folder moved in: the tree is read again
        write(root, "elsewhere/more/a.test.ts", "");
        std::fs::rename(root.join("elsewhere"), root.join("tests/shop/e2e")).expect("mv");
        ws.apply_change(Change::Tests("tests/shop/e2e".into()));
        assert_eq!(ws.tests.cases.len(), 3);
        // the catalog appears
        assert!(ws.catalog.is_none());
        write(
            root,
            ".pouch/tester/catalog.yaml",
            "schemaVersion: 1\ncategories: []\n",
        );
        ws.apply_change(Change::Catalog);
        assert_eq!(
            ws.catalog.is_some(),
            Workspace::load(root).expect("load").catalog.is_some()
        );
        write(root, "testdeck.toml", "");
        assert_eq!(ws.apply_change(Change::Config).reread, Reread::All);
    }
}
