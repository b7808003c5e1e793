//! The walk of `tests/logs/`: run folders found, each read where found (and checked) or noted.

use super::folder::{Names, read_run};
use super::{Logs, RawRun, run_order};
use crate::problem::Problem;
use crate::workspace::walk::{self, Folder, Kind as EntryKind};
use crate::workspace::{rel, run};
use rayon::prelude::*;
use std::collections::HashSet;
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
    if walk::is_link_reported(root, &logs, problems) || !logs.is_dir() {
        return Logs::default();
    }
    let found = match Folder::open(&logs) {
        Ok(f) => {
            let mode = if contract.is_some() {
                Mode::Check
            } else {
                Mode::Read
            };
            scan_dir(root, &logs, &logs, &f, mode)
        }
        Err(e) => Found {
            probs: vec![unreadable_folder(root, &logs, &e)],
            ..Found::default()
        },
    };
    let Found {
        mut runs,
        mut probs,
        checks,
        ..
    } = found;
    // one allocation per scope and caseId, shared by their runs
    let mut names = HashSet::new();
    for r in &mut runs {
        r.scope = intern(&mut names, &r.scope);
        r.case_id = intern(&mut names, &r.case_id);
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
pub(super) struct Found {
    pub(super) runs: Vec<RawRun>,
    /// Load problems.
    pub(super) probs: Vec<Problem>,
    /// Contract checks (only when asked).
    pub(super) checks: Vec<Problem>,
    /// Run folders found and not read ([`Mode::Find`]).
    pub(super) pending: Vec<Pending>,
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
pub(super) enum Mode {
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
}

pub(super) fn unreadable_folder(root: &Path, dir: &Path, e: &std::io::Error) -> Problem {
    Problem::warning(
        rel(root, dir),
        "unreadable",
        format!("cannot read folder: {e}"),
    )
}

/// The shared copy of `s`.
pub(super) fn intern(names: &mut HashSet<Arc<str>>, s: &Arc<str>) -> Arc<str> {
    if let Some(have) = names.get(s) {
        return have.clone();
    }
    names.insert(s.clone());
    s.clone()
}

/// One folder, held open: its entries' types come from the listing, its run
/// files are read relative to it, its subfolders opened relative to it.
pub(super) fn scan_dir(root: &Path, logs: &Path, dir: &Path, folder: &Folder, mode: Mode) -> Found {
    let entries = match folder.entries() {
        Ok(e) => e,
        Err(e) => {
            return Found {
                probs: vec![unreadable_folder(root, dir, &e)],
                ..Found::default()
            };
        }
    };
    let mut subdirs = Vec::new();
    let mut names = Names::default();
    let mut links = Vec::new();
    for (name, kind) in entries {
        if kind == EntryKind::Link {
            links.push(Problem::warning(
                rel(root, &dir.join(&name)),
                "symlink-not-followed",
                "symbolic link under tests/logs is not followed",
            ));
            continue;
        }
        let run_file = matches!(
            name.to_str(),
            Some(run::META | run::TIMELINE | run::RUNTIME_EVENTS | run::ARTIFACTS)
        );
        if run_file && kind == EntryKind::Special {
            // a FIFO or device under a run file's name is never read (it would
            // block or never end): said, not silently passed over
            links.push(Problem::warning(
                rel(root, &dir.join(&name)),
                "not-a-regular-file",
                "a run file that is not a regular file (FIFO, device, socket) is not read",
            ));
            continue;
        }
        let file = kind == EntryKind::File;
        match name.to_str() {
            Some(run::META) if file => names.meta = true,
            Some(run::TIMELINE) if file => names.timeline = true,
            Some(run::RUNTIME_EVENTS) if file => names.runtime = true,
            Some(run::ARTIFACTS) if file => names.artifacts_json = true,
            Some("artifacts") if kind == EntryKind::Dir => {
                names.artifacts_dir = true;
                subdirs.push(name);
            }
            // symlinks are never followed: no loops, no escape from the workspace
            _ if kind == EntryKind::Dir => subdirs.push(name),
            _ => {}
        }
    }
    if names.meta || names.timeline {
        if dir == logs || dir.parent() == Some(logs) {
            // a run folder needs at least a caseId folder above it
            return Found {
                probs: vec![Problem::warning(
                    rel(root, dir),
                    "log-misplaced",
                    "run files directly under tests/logs or a domain folder: no caseId folder above them",
                )],
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
        let run = read_run(root, logs, dir, folder, names, &mut probs, contract);
        return Found {
            runs: vec![run],
            probs,
            checks,
            pending: Vec::new(),
        };
    }
    let mut found = subdirs
        .par_iter()
        .map(|name| {
            let sub = dir.join(name);
            match folder.sub(name) {
                Ok(f) => scan_dir(root, logs, &sub, &f, mode),
                Err(e) => Found {
                    probs: vec![unreadable_folder(root, &sub, &e)],
                    ..Found::default()
                },
            }
        })
        .reduce(Found::default, Found::merge);
    found.probs.append(&mut links);
    found
}
