//! The walk of `tests/logs/`: run folders found, each read where found (and checked) or noted.

use super::folder::read_run;
use super::{Logs, RawRun, run_order};
use crate::problem::Problem;
use crate::workspace::rel;
use crate::workspace::run_folder::{self, Names};
use crate::workspace::walk::{self, Folder, Kind as EntryKind};
use rayon::prelude::*;
use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Scan `tests/logs/` for run folders, in parallel, reading each where it is found.
pub fn scan(root: &Path, problems: &mut Vec<Problem>) -> Logs {
    scan_with(root, problems, None)
}

/// [`scan`], and with `contract` the raw-log contract checks of every run
/// folder in the same pass (`validate`): each file is opened once, while its
/// folder is open, and nothing is read again afterwards.
pub fn scan_with(
    root: &Path,
    problems: &mut Vec<Problem>,
    contract: Option<&mut Vec<Problem>>,
) -> Logs {
    let logs = root.join("tests/logs");
    let mode = if contract.is_some() {
        Mode::Check
    } else {
        Mode::Read
    };
    let Found {
        mut runs,
        mut probs,
        checks,
        ..
    } = scan_logs(root, &logs, mode, problems);
    let mut names = HashSet::new();
    for r in &mut runs {
        share_names(&mut names, r);
    }
    runs.sort_by(run_order);
    problems.append(&mut probs);
    if let Some(c) = contract {
        c.extend(checks);
    }
    Logs { runs }
}

/// What one folder of `tests/logs/` (and everything under it) holds.
#[derive(Default)]
struct Found {
    runs: Vec<RawRun>,
    /// Load problems.
    probs: Vec<Problem>,
    /// Contract checks (only when asked).
    checks: Vec<Problem>,
    /// Run folders found and not read ([`Mode::Find`]).
    pending: Vec<Pending>,
}

/// A run folder the walk found, not read yet (the staged [`super::History`]).
#[derive(Debug)]
pub(super) struct Pending {
    pub(super) dir: PathBuf,
    pub(super) names: Names,
}

/// What the walk does at a run folder: read it there, while its folder is open
/// (with or without the contract checks), or only note it for a later read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Read,
    Check,
    Find,
}

impl Found {
    fn merge(mut self, mut other: Found) -> Found {
        self.runs.append(&mut other.runs);
        self.probs.append(&mut other.probs);
        self.checks.append(&mut other.checks);
        self.pending.append(&mut other.pending);
        self
    }

    /// A folder that could not be opened or listed.
    fn unreadable(root: &Path, dir: &Path, e: &std::io::Error) -> Found {
        Found {
            probs: vec![walk::unreadable(root, dir, e)],
            ..Found::default()
        }
    }
}

/// Walk `tests/logs/` (the folder `logs`) from its top: nothing when it is not a
/// folder, or is a link (reported in `problems`).
fn scan_logs(root: &Path, logs: &Path, mode: Mode, problems: &mut Vec<Problem>) -> Found {
    if walk::is_link_reported(root, logs, problems) || !logs.is_dir() {
        return Found::default();
    }
    match Folder::open(logs) {
        Ok(f) => scan_dir(root, logs, logs, &f, 0, mode),
        Err(e) => Found::unreadable(root, logs, &e),
    }
}

/// Find every run folder under `tests/logs/` (the folder `logs`) from the
/// directory entries alone, reading none; the walk's problems go to `problems`.
pub(super) fn find(root: &Path, logs: &Path, problems: &mut Vec<Problem>) -> Vec<Pending> {
    let found = scan_logs(root, logs, Mode::Find, problems);
    problems.extend(found.probs);
    found.pending
}

/// Give `run` the shared copy of its scope and caseId (one allocation each for
/// all their runs), keeping the first seen in `names`.
pub(super) fn share_names(names: &mut HashSet<Arc<str>>, run: &mut RawRun) {
    let shared = |names: &mut HashSet<Arc<str>>, s: &Arc<str>| {
        if let Some(have) = names.get(s) {
            return have.clone();
        }
        names.insert(s.clone());
        s.clone()
    };
    run.scope = shared(names, &run.scope);
    run.case_id = shared(names, &run.case_id);
}

/// A folder's listing as the walks of `tests/logs/` read it: its subfolders (never
/// a link), the run files it shows, and what is passed over and said (links, a
/// FIFO or device under a run file's name).
pub(crate) struct Listing {
    pub(crate) subdirs: Vec<OsString>,
    pub(crate) names: Names,
    pub(crate) passed_over: Vec<Problem>,
}

impl Listing {
    /// The listing `entries` of the folder `dir`.
    pub(crate) fn of(root: &Path, dir: &Path, entries: Vec<(OsString, EntryKind)>) -> Listing {
        let mut out = Listing {
            subdirs: Vec::new(),
            names: Names::default(),
            passed_over: Vec::new(),
        };
        for (name, kind) in entries {
            let run_file = matches!(
                name.to_str(),
                Some(
                    run_folder::META
                        | run_folder::TIMELINE
                        | run_folder::RUNTIME_EVENTS
                        | run_folder::ARTIFACTS
                )
            );
            let passed_over = match kind {
                EntryKind::Link => Some((
                    "symlink-not-followed",
                    "symbolic link under tests/logs is not followed",
                )),
                // a FIFO or device under a run file's name is never read (it would
                // block or never end): said, not silently passed over
                EntryKind::Special if run_file => Some((
                    "not-a-regular-file",
                    "a run file that is not a regular file (FIFO, device, socket) is not read",
                )),
                _ => None,
            };
            if let Some((rule, message)) = passed_over {
                out.passed_over
                    .push(Problem::warning(rel(root, &dir.join(&name)), rule, message));
                continue;
            }
            out.names.note(&name, kind);
            // symlinks are never followed: no loops, no escape from the workspace
            if kind == EntryKind::Dir {
                out.subdirs.push(name);
            }
        }
        out
    }

    /// The folder holds a run (`meta.json` or `timeline.jsonl`).
    pub(crate) fn is_run(&self) -> bool {
        self.names.meta || self.names.timeline
    }
}

/// Run files directly under `tests/logs` or a domain folder (`dir`): a run folder
/// needs at least a caseId folder above it.
pub(crate) fn misplaced(root: &Path, dir: &Path) -> Problem {
    Problem::warning(
        rel(root, dir),
        "log-misplaced",
        "run files directly under tests/logs or a domain folder: no caseId folder above them",
    )
}

/// One folder, held open: its entries' types come from the listing, its run
/// files are read relative to it, its subfolders opened relative to it.
fn scan_dir(
    root: &Path,
    logs: &Path,
    dir: &Path,
    folder: &Folder,
    depth: usize,
    mode: Mode,
) -> Found {
    let entries = match folder.entries() {
        Ok(e) => e,
        Err(e) => return Found::unreadable(root, dir, &e),
    };
    let Listing {
        subdirs,
        names,
        passed_over: mut links,
    } = Listing::of(root, dir, entries);
    if names.meta || names.timeline {
        if dir == logs || dir.parent() == Some(logs) {
            return Found {
                probs: vec![misplaced(root, dir)],
                ..Found::default()
            };
        }
        let mut probs = links;
        if mode == Mode::Find {
            return Found {
                pending: vec![Pending {
                    dir: dir.to_path_buf(),
                    names,
                }],
                probs,
                ..Found::default()
            };
        }
        let mut checks = Vec::new();
        let contract = (mode == Mode::Check).then_some(&mut checks);
        let run = read_run(root, logs, dir, folder, names, &mut probs, contract, None);
        return Found {
            runs: vec![run],
            probs,
            checks,
            pending: Vec::new(),
        };
    }
    if depth >= walk::MAX_DEPTH && !subdirs.is_empty() {
        links.extend(subdirs.iter().map(|n| walk::too_deep(root, &dir.join(n))));
        return Found {
            probs: links,
            ..Found::default()
        };
    }
    let mut found = subdirs
        .par_iter()
        .map(|name| {
            let sub = dir.join(name);
            match folder.sub(name) {
                Ok(f) => scan_dir(root, logs, &sub, &f, depth + 1, mode),
                Err(e) => Found::unreadable(root, &sub, &e),
            }
        })
        .reduce(Found::default, Found::merge);
    found.probs.append(&mut links);
    found
}
