//! The workspace: discovery of the root and the model of its three sources (tests
//! tree, raw logs, tester catalog). No terminal, no async: a command, the TUI and a
//! test call the same functions.

pub mod adopt;
pub mod cancelled;
pub mod cases;
pub mod catalog;
pub mod changed;
pub mod changes;
pub mod config;
pub mod contract;
pub mod demo;
pub mod diff;
pub mod editor;
pub mod failure;
pub mod git;
pub mod graph;
pub mod history_cache;
pub mod imports;
pub mod init;
pub mod insights;
pub mod logs;
pub mod new_case;
pub mod openers;
pub mod outside;
pub mod plan;
pub mod read;
pub mod report;
pub mod run_folder;
pub mod run_tests;
pub mod runner;
pub mod trace;
pub mod tree;
pub mod validate;
pub mod vars;
pub mod walk;
pub mod watch;

// the model (testdeck-model, no I/O) at the paths it had when it lived here
pub use testdeck_model::{assume, fuzzy, glob, host, per_test, risk, select, stats, timeline};

use crate::problem::Problem;
use config::ConfigLoad as _;
use logs::Judged as _;
use plan::PlanLoad as _;
use std::path::{Path, PathBuf};

/// Why a workspace could not be opened at all (exit 2). Anything less is a `Problem`.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    #[error("{0}: not a folder")]
    /// The root is not a folder.
    NotAFolder(String),
    #[error("{path}: {source}")]
    /// The root could not be read.
    Io {
        /// What could not be read.
        path: String,
        #[source]
        /// Why.
        source: std::io::Error,
    },
}

/// A loaded workspace. Loading never fails on bad content: what cannot be read is
/// a located problem in `problems`, and the rest loads.
#[derive(Debug)]
pub struct Workspace {
    /// The workspace root.
    pub root: PathBuf,
    /// `testdeck.toml`, or its defaults.
    pub config: config::Config,
    /// The cases under `tests/`.
    pub tests: tree::TestsTree,
    /// The runs under `tests/logs/`.
    pub logs: logs::Logs,
    /// The test plan.
    pub plan: plan::TestPlan,
    /// The tester catalog of `.pouch/tester/`, when there is one.
    pub catalog: Option<catalog::Catalog>,
    /// Problems met while loading (syntax errors, unreadable files, wrong types).
    pub problems: Vec<Problem>,
}

/// Walk up from `start` to the first folder with `tests/`, `.pouch/tester/` or `testdeck.toml`.
/// The workspace root every shell works on: `explicit` (`--root`), or the first
/// folder from the current one up that looks like a workspace. The error is the
/// message to show.
pub fn resolve_root(explicit: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(r) = explicit {
        // a folder that is there but is no workspace is refused as the search
        // from the current folder refuses it (a missing one: its own error, later)
        if r.is_dir() && !is_root(r) {
            return Err(no_workspace(r));
        }
        return Ok(r.to_path_buf());
    }
    let cwd = std::env::current_dir().map_err(|e| format!("current folder: {e}"))?;
    find_root(&cwd).ok_or_else(|| no_workspace(&cwd))
}

/// Why a folder is not a workspace, with or without `--root`: what sets one
/// up, and how many test files (as vitest's and Playwright's defaults take
/// them) stand below `dir`.
pub fn no_workspace(dir: &Path) -> String {
    let (n, all) = outside::discover::count_below(dir);
    let found = match (n, all) {
        (0, _) => String::new(),
        (n, true) => format!(
            "; {n} test file{} below this folder",
            if n == 1 { "" } else { "s" }
        ),
        (n, false) => format!("; at least {n} test files below this folder"),
    };
    format!(
        "no workspace here: no tests/, .pouch/tester/ or testdeck.toml in this folder or above{found} — `testdeck init` sets one up here (or use --root DIR)"
    )
}

/// Walk up from `start` to the first folder with `tests/`, `.pouch/tester/` or `testdeck.toml`.
pub(crate) fn find_root(start: &Path) -> Option<PathBuf> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        if is_root(d) {
            return Some(d.to_path_buf());
        }
        dir = d.parent();
    }
    None
}

fn is_root(d: &Path) -> bool {
    d.join("tests").is_dir()
        || d.join(".pouch/tester").is_dir()
        || d.join("testdeck.toml").is_file()
}

impl Workspace {
    /// Load every source of the workspace at `root`.
    pub fn load(root: &Path) -> Result<Workspace, WorkspaceError> {
        Self::load_with(root, None)
    }

    /// [`Workspace::load`], and with `contract` the raw-log contract checks of
    /// every run in the same pass over the files (`validate`: nothing is read twice).
    pub fn load_with(
        root: &Path,
        contract: Option<&mut Vec<Problem>>,
    ) -> Result<Workspace, WorkspaceError> {
        let root = checked_root(root)?;
        let mut problems = Vec::new();
        let config = config::Config::load(&root, &mut problems);
        // the three sources are independent: read them side by side
        let (sources, (mut logs, log_problems)) = rayon::join(
            || tree_and_catalog(&root, &config),
            || {
                let mut p = Vec::new();
                (logs::scan_with(&root, &mut p, contract), p)
            },
        );
        logs.judge(&root, &logs::Judge::load(&root, &config.runs));
        Ok(Workspace::assemble(
            root,
            config,
            problems,
            sources,
            (logs, log_problems),
        ))
    }

    /// The first stage of a staged load: the tests tree, the plan and the catalog,
    /// with no history (not a single `meta.json` is read). [`Workspace::history`]
    /// then reads the history one domain at a time into it.
    pub fn load_tree(root: &Path) -> Result<Workspace, WorkspaceError> {
        let root = checked_root(root)?;
        let mut problems = Vec::new();
        let config = config::Config::load(&root, &mut problems);
        let sources = tree_and_catalog(&root, &config);
        Ok(Workspace::assemble(
            root,
            config,
            problems,
            sources,
            (logs::Logs::default(), Vec::new()),
        ))
    }

    /// The workspace from its sources, their problems after the config's in the
    /// order of the sources: tree, logs, catalog.
    fn assemble(
        root: PathBuf,
        config: config::Config,
        mut problems: Vec<Problem>,
        (tests, plan, catalog, (mut p1, mut p3)): TreeAndCatalog,
        (logs, mut p2): (logs::Logs, Vec<Problem>),
    ) -> Workspace {
        problems.append(&mut p1);
        problems.append(&mut p2);
        problems.append(&mut p3);
        Workspace {
            root,
            config,
            tests,
            logs,
            plan,
            catalog,
            problems,
        }
    }

    /// [`Workspace::load_tree`], the walk's first results handed on before it
    /// ends: after each folder directly under `tests/` (walked in the order
    /// their cases sort), `part(n, ws)` is told how many cases were found so
    /// far, and `ws()` gives a workspace of them (the config and plan, no
    /// catalog, no history, no problems): the first rows of the whole tree.
    /// The catalog is read beside the rest of the walk once the first part
    /// was offered (never before it), and comes with the whole workspace.
    pub fn load_tree_staged(
        root: &Path,
        part: &mut dyn FnMut(usize, &dyn Fn() -> Workspace),
    ) -> Result<Workspace, WorkspaceError> {
        let root = checked_root(root)?;
        let mut problems = Vec::new();
        let config = config::Config::load(&root, &mut problems);
        let mut p1 = Vec::new();
        let plan = plan::TestPlan::load(&root, &mut p1);
        let patterns = tree::CasePatterns::new(&config.tests.patterns, &mut p1);
        let table = config.outside.as_ref();
        let read_catalog = || {
            let mut p = Vec::new();
            (catalog::load(&root, &mut p), p)
        };
        let (tests, (catalog, p3)) = std::thread::scope(|s| {
            let mut beside = None;
            let tests = outside::scan_tests_staged(
                &root,
                &plan,
                &patterns,
                table,
                &mut p1,
                &mut |n, tree| {
                    part(n, &|| Workspace {
                        root: root.clone(),
                        config: config.clone(),
                        tests: tree(),
                        logs: logs::Logs::default(),
                        plan: plan.clone(),
                        catalog: None,
                        problems: Vec::new(),
                    });
                    if beside.is_none() {
                        beside = Some(s.spawn(read_catalog));
                    }
                },
            );
            let catalog = match beside {
                Some(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
                None => read_catalog(),
            };
            (tests, catalog)
        });
        Ok(Workspace::assemble(
            root,
            config,
            problems,
            (tests, plan, catalog, (p1, p3)),
            (logs::Logs::default(), Vec::new()),
        ))
    }

    /// The second stage: the history of this workspace, walked (its total known)
    /// and read one domain at a time, each run without `meta.json` judged.
    pub fn history(&self) -> HistoryLoader {
        HistoryLoader::new(&self.root, &self.config.runs)
    }

    /// Add one domain's runs (from [`Workspace::history`]) to the history.
    pub fn add_history(&mut self, chunk: logs::Chunk) -> logs::RunMoves {
        let mut moves = logs::RunMoves::default();
        self.logs.merge_sorted(chunk.runs, &mut moves);
        let mut problems = chunk.problems;
        self.problems.append(&mut problems);
        moves
    }

    /// A path relative to the root, with `/`.
    pub fn rel(&self, p: &Path) -> String {
        rel(&self.root, p)
    }
}

/// The history of a workspace as [`Workspace::history`] reads it: an iterator of
/// one domain's runs at a time.
#[derive(Debug)]
pub struct HistoryLoader {
    history: logs::History,
    judge: logs::Judge,
    root: PathBuf,
}

impl HistoryLoader {
    /// Walk the history of the workspace at `root` (directory entries only: no
    /// run file is opened until `next()`), judged by its `[runs]` settings.
    pub fn new(root: &Path, runs: &config::Runs) -> HistoryLoader {
        HistoryLoader {
            history: logs::History::walk(root),
            judge: logs::Judge::load(root, runs),
            root: root.to_path_buf(),
        }
    }

    /// Run folders found in all (from the directory entries, before any is read).
    pub fn total(&self) -> usize {
        self.history.total()
    }

    /// The walk's problems (unreadable folders, links, misplaced runs).
    pub fn take_problems(&mut self) -> Vec<Problem> {
        self.history.take_problems()
    }
}

impl Iterator for HistoryLoader {
    type Item = logs::Chunk;

    fn next(&mut self) -> Option<logs::Chunk> {
        let mut chunk = self.history.next()?;
        logs::judge_runs(&mut chunk.runs, &self.root, &self.judge);
        Some(chunk)
    }
}

fn checked_root(root: &Path) -> Result<PathBuf, WorkspaceError> {
    let meta = std::fs::metadata(root).map_err(|e| WorkspaceError::Io {
        path: root.display().to_string(),
        source: e,
    })?;
    if !meta.is_dir() {
        return Err(WorkspaceError::NotAFolder(root.display().to_string()));
    }
    Ok(root.to_path_buf())
}

/// The tests tree, its plan, the catalog, and the problems of the tree's side and
/// the catalog's.
type TreeAndCatalog = (
    tree::TestsTree,
    plan::TestPlan,
    Option<catalog::Catalog>,
    (Vec<Problem>, Vec<Problem>),
);

/// The tests tree with its plan, and the catalog beside it (independent: side by side).
fn tree_and_catalog(root: &Path, config: &config::Config) -> TreeAndCatalog {
    let ((tests, plan, p1), (catalog, p3)) = rayon::join(
        || {
            let mut p = Vec::new();
            let plan = plan::TestPlan::load(root, &mut p);
            let patterns = tree::CasePatterns::new(&config.tests.patterns, &mut p);
            let table = config.outside.as_ref();
            let tests = outside::scan_tests(root, &plan, &patterns, table, &mut p);
            (tests, plan, p)
        },
        || {
            let mut p = Vec::new();
            (catalog::load(root, &mut p), p)
        },
    );
    (tests, plan, catalog, (p1, p3))
}

/// `p` relative to `root`, with `/` separators (or `p` itself when outside).
pub fn rel(root: &Path, p: &Path) -> String {
    let r = p.strip_prefix(root).unwrap_or(p);
    let s = r.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        s.into_owned()
    } else {
        s.replace(std::path::MAIN_SEPARATOR, "/")
    }
}
