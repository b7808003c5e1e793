//! The staged history of `tests/logs/`: every run folder found first, then read by domain.

use super::folder::read_run;
use super::scan::{self, Pending, share_names};
use super::{RawRun, run_order};
use crate::problem::Problem;
use crate::workspace::walk::{self, Folder};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One domain's runs (the first folder under `tests/logs/`), read.
#[derive(Debug, Default)]
pub struct Chunk {
    /// The domain: the first folder under `tests/logs/`.
    pub domain: String,
    /// Sorted by scope, caseId, then runId.
    pub runs: Vec<RawRun>,
    /// What was wrong reading them.
    pub problems: Vec<Problem>,
}

impl Chunk {
    /// Take `later`'s runs and problems into this chunk (several domains handed on
    /// at once); the runs stay sorted.
    pub fn merge(&mut self, mut later: Chunk) {
        self.runs.append(&mut later.runs);
        self.runs.sort_by(run_order);
        self.problems.append(&mut later.problems);
        self.domain = later.domain;
    }
}

/// The history of `tests/logs/` in two stages: [`History::walk`] finds every run
/// folder from the directory entries alone (no file is opened, so the total is
/// known at once), then each `next()` reads one domain's `meta.json` files. A
/// shell shows the tree first and the history as it arrives, domain by domain.
#[derive(Debug)]
pub struct History {
    root: PathBuf,
    logs: PathBuf,
    /// Domains in name order, the next one last (popped).
    domains: Vec<(String, Vec<Pending>)>,
    total: usize,
    problems: Vec<Problem>,
    /// Scopes and caseIds seen so far: one allocation each, shared by their runs.
    names: HashSet<Arc<str>>,
}

impl History {
    /// Walk `tests/logs/` (directory entries only, in parallel).
    pub(crate) fn walk(root: &Path) -> History {
        let logs = root.join("tests/logs");
        let mut problems = Vec::new();
        let found = scan::find(root, &logs, &mut problems);
        let total = found.len();
        let mut by_domain: BTreeMap<String, Vec<Pending>> = BTreeMap::new();
        for f in found {
            let domain = f
                .dir
                .strip_prefix(&logs)
                .ok()
                .and_then(|r| r.components().next())
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .unwrap_or_default();
            by_domain.entry(domain).or_default().push(f);
        }
        History {
            root: root.to_path_buf(),
            logs,
            domains: by_domain.into_iter().rev().collect(),
            total,
            problems,
            names: HashSet::new(),
        }
    }

    /// Run folders found in all.
    pub(crate) fn total(&self) -> usize {
        self.total
    }

    /// The walk's problems (unreadable folders, links, misplaced runs).
    pub(crate) fn take_problems(&mut self) -> Vec<Problem> {
        std::mem::take(&mut self.problems)
    }
}

impl Iterator for History {
    type Item = Chunk;

    /// Read the next domain's run folders (in parallel).
    fn next(&mut self) -> Option<Chunk> {
        let (domain, found) = self.domains.pop()?;
        let (root, logs) = (&self.root, &self.logs);
        // a folder gone or unreadable since the walk is a problem, not a run
        let read: Vec<(Option<RawRun>, Vec<Problem>)> = found
            .par_iter()
            .map(|f| match Folder::open(&f.dir) {
                Ok(folder) => {
                    let mut p = Vec::new();
                    let run = read_run(root, logs, &f.dir, &folder, f.names, &mut p, None, None);
                    (Some(run), p)
                }
                Err(e) => (None, vec![walk::unreadable(root, &f.dir, &e)]),
            })
            .collect();
        let mut chunk = Chunk {
            domain,
            runs: Vec::with_capacity(read.len()),
            problems: Vec::new(),
        };
        for (run, mut p) in read {
            chunk.problems.append(&mut p);
            let Some(mut run) = run else { continue };
            share_names(&mut self.names, &mut run);
            chunk.runs.push(run);
        }
        chunk.runs.sort_by(run_order);
        Some(chunk)
    }
}
