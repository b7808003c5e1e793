//! Building a cache: from the runs of a history read, or from what a check
//! kept and read, stamped at the end.

use super::logs::RawRun;
use super::walk::Folder;
use super::{CaseEntry, Files, HistoryCache, LOGS, RunEntry, Stamp, one_folder};
use crate::problem::Problem;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsStr;
use std::path::Path;
use std::time::SystemTime;

/// A cache being built: from the runs of a history read (stamped at the end),
/// or from what a check kept and read.
#[derive(Debug)]
pub struct Builder {
    since: SystemTime,
    cases: BTreeMap<String, CaseBuild>,
    problems: Vec<Problem>,
}

#[derive(Debug, Default)]
struct CaseBuild {
    /// Known already (a check listed or kept it); else stat'ed at the end.
    stamp: Option<Stamp>,
    known: bool,
    runs: Vec<RunEntry>,
    /// A run of it is not cached (in progress, or just changed).
    incomplete: bool,
    problems: Vec<Problem>,
}

impl Builder {
    /// A cache of a history whose reading began at `since`.
    pub fn new(since: SystemTime) -> Builder {
        Builder {
            since,
            cases: BTreeMap::new(),
            problems: Vec::new(),
        }
    }

    /// Runs read (their folders stat'ed at [`Builder::finish`]).
    pub fn add_runs(&mut self, runs: &[RawRun]) {
        for r in runs {
            self.add_run(r, None);
        }
    }

    /// Problems met reading the history: each is kept with the run or case
    /// folder it is in (others are the walk's to find again).
    pub fn add_problems(&mut self, problems: impl IntoIterator<Item = Problem>) {
        self.problems.extend(problems.into_iter().filter(|p| {
            p.file
                .strip_prefix(LOGS)
                .is_some_and(|r| r.starts_with('/'))
        }));
    }

    pub(super) fn add_run(&mut self, r: &RawRun, stamp: Option<Stamp>) {
        let Some(dir) = r
            .path
            .strip_prefix(LOGS)
            .and_then(|p| p.strip_prefix('/'))
            .and_then(|p| p.rsplit_once('/'))
            .map(|(dir, _)| dir)
        else {
            return;
        };
        if !self.cases.contains_key(dir) {
            self.cases.insert(dir.to_owned(), CaseBuild::default());
        }
        let Some(c) = self.cases.get_mut(dir) else {
            return;
        };
        match &r.meta {
            Some(meta) if r.status.is_finished() && !r.meta_broken => c.runs.push(RunEntry {
                name: r.run_id.clone(),
                stamp,
                status: r.status,
                meta: meta.clone(),
                files: Files::of(r),
                tests: r.tests.clone(),
                problems: Vec::new(),
            }),
            _ => c.incomplete = true,
        }
    }

    pub(super) fn keep_run(&mut self, dir: &str, run: RunEntry) {
        self.cases.entry(dir.to_owned()).or_default().runs.push(run);
    }

    pub(super) fn keep_case(&mut self, c: CaseEntry) {
        self.cases.insert(
            c.dir,
            CaseBuild {
                stamp: c.stamp,
                known: true,
                runs: c.runs,
                incomplete: false,
                problems: c.problems,
            },
        );
    }

    pub(super) fn case_stamp(&mut self, dir: &str, stamp: Stamp) {
        if let Some(c) = self.cases.get_mut(dir) {
            c.stamp = Some(stamp);
            c.known = true;
        }
    }

    /// The cache: every folder not stamped yet stat'ed (side by side), what is
    /// not settled left out, the problems put with their folders.
    pub fn finish(self, root: &Path) -> HistoryCache {
        let Builder {
            since,
            cases,
            problems,
        } = self;
        let logs = root.join(LOGS);
        let mut cases: Vec<(String, CaseBuild)> = cases.into_iter().collect();
        cases.par_iter_mut().for_each(|(dir, c)| {
            let unstamped = c.runs.iter().any(|r| r.stamp.is_none());
            if c.known && !unstamped {
                return;
            }
            let Ok(f) = Folder::open(&logs.join(&*dir)) else {
                c.incomplete = true;
                c.runs.clear();
                return;
            };
            if !c.known {
                c.stamp = Stamp::of_folder(&f);
            }
            for r in c.runs.iter_mut().filter(|r| r.stamp.is_none()) {
                r.stamp = Stamp::at(f.fd(), OsStr::new(&r.name));
            }
        });
        let mut out: Vec<CaseEntry> = Vec::with_capacity(cases.len());
        for (dir, mut c) in cases {
            let n = c.runs.len();
            c.runs
                .retain(|r| r.stamp.is_some_and(|s| s.settled(since)) && one_folder(&r.name));
            c.incomplete |= c.runs.len() != n;
            if c.runs.is_empty() {
                continue;
            }
            c.runs.sort_by(|a, b| a.name.cmp(&b.name));
            c.runs.dedup_by(|a, b| a.name == b.name);
            let stamp = c.stamp.filter(|s| !c.incomplete && s.settled(since));
            out.push(CaseEntry {
                dir,
                stamp,
                runs: c.runs,
                problems: c.problems,
            });
        }
        out.retain(CaseEntry::well_formed);
        attach(&mut out, problems);
        HistoryCache {
            cases: out,
            written: None,
        }
    }
}

/// Put each problem with the run folder or case folder it is in; the others
/// (above every case folder) are the walk's to find again.
pub(super) fn attach(cases: &mut [CaseEntry], problems: Vec<Problem>) {
    if problems.is_empty() {
        return;
    }
    let by_dir: HashMap<String, usize> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| (c.dir.clone(), i))
        .collect();
    for p in problems {
        let Some(path) = p.file.strip_prefix(LOGS).and_then(|r| r.strip_prefix('/')) else {
            continue;
        };
        // the deepest case folder the file is in
        let mut at: Option<(usize, &str)> = None;
        for (i, _) in path.match_indices('/') {
            if let Some(ci) = by_dir.get(&path[..i]) {
                at = Some((*ci, &path[i + 1..]));
            }
        }
        if let Some(ci) = by_dir.get(path) {
            at = Some((*ci, ""));
        }
        let Some((ci, rest)) = at else { continue };
        let run = rest.split('/').next().unwrap_or_default();
        let c = &mut cases[ci];
        match c.runs.binary_search_by(|r| r.name.as_str().cmp(run)) {
            Ok(ri) if !run.is_empty() => c.runs[ri].problems.push(p),
            _ => c.problems.push(p),
        }
    }
}
