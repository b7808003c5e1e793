//! A parallel directory walk that never follows symlinks (so loops and links out of
//! the workspace cannot trap it) and reports unreadable folders as problems.

use crate::problem::Problem;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One entry found by the walk.
#[derive(Debug, Clone)]
pub struct Entry {
    pub path: PathBuf,
    pub is_dir: bool,
    pub is_symlink: bool,
}

/// Walk `dir` recursively in parallel; `descend(dir)` decides whether to enter a
/// folder, `visit` sees every file and folder. Symlinks are reported to `visit`
/// but never followed.
pub fn walk<D, V>(root: &Path, dir: &Path, descend: &D, visit: &V, problems: &Mutex<Vec<Problem>>)
where
    D: Fn(&Path) -> bool + Sync,
    V: Fn(&Entry) + Sync,
{
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            if let Ok(mut p) = problems.lock() {
                p.push(Problem::warning(
                    super::rel(root, dir),
                    "unreadable",
                    format!("cannot read folder: {e}"),
                ));
            }
            return;
        }
    };
    let mut subdirs = Vec::new();
    for ent in rd.flatten() {
        let Ok(ft) = ent.file_type() else { continue };
        let e = Entry {
            path: ent.path(),
            is_dir: ft.is_dir(),
            is_symlink: ft.is_symlink(),
        };
        visit(&e);
        if e.is_dir && descend(&e.path) {
            subdirs.push(e.path);
        }
    }
    subdirs
        .par_iter()
        .for_each(|d| walk(root, d, descend, visit, problems));
}

/// Whether `dir` is itself a symbolic link: then it is reported and not read, so a
/// source folder of the workspace cannot be a door to files outside it.
pub fn is_link_reported(root: &Path, dir: &Path, problems: &mut Vec<Problem>) -> bool {
    let link = std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink());
    if link {
        problems.push(Problem::warning(
            super::rel(root, dir),
            "symlink-not-followed",
            "this folder is a symbolic link; it is not followed",
        ));
    }
    link
}
