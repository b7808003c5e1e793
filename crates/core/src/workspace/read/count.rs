use super::Error;
use std::collections::BTreeMap;
use std::os::fd::{AsRawFd as _, BorrowedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// The opens of one file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Opens {
    /// Opened (or refused for what it is: found all the same).
    pub found: usize,
    /// Tried while it was not there.
    pub missing: usize,
}

struct Counted {
    id: usize,
    root: PathBuf,
    files: BTreeMap<PathBuf, Opens>,
}

static COUNTED: Mutex<Vec<Counted>> = Mutex::new(Vec::new());
static NEXT: AtomicUsize = AtomicUsize::new(0);
/// How many folders are counted: the opens look no further while it is 0.
static ANY: AtomicUsize = AtomicUsize::new(0);

/// The opens under a folder, counted while this lives.
pub struct Counting {
    id: usize,
    root: PathBuf,
}

/// Count the opens of files under the folder `root` from now on.
pub fn opens_under(root: &Path) -> Counting {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let id = NEXT.fetch_add(1, Ordering::SeqCst);
    COUNTED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(Counted {
            id,
            root: root.clone(),
            files: BTreeMap::new(),
        });
    ANY.fetch_add(1, Ordering::SeqCst);
    Counting { id, root }
}

impl Counting {
    /// Every file opened so far, by its path relative to the folder.
    pub fn files(&self) -> BTreeMap<PathBuf, Opens> {
        let counted = COUNTED.lock().unwrap_or_else(PoisonError::into_inner);
        counted
            .iter()
            .find(|c| c.id == self.id)
            .map(|c| c.files.clone())
            .unwrap_or_default()
    }

    /// The opens of the file `rel` (relative to the folder).
    pub fn of(&self, rel: &Path) -> Opens {
        self.files().get(rel).copied().unwrap_or_default()
    }

    /// The folder counted.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl Drop for Counting {
    fn drop(&mut self) {
        let mut counted = COUNTED.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(i) = counted.iter().position(|c| c.id == self.id) {
            counted.remove(i);
            ANY.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

fn add(file: &Path, err: Option<&Error>) {
    let mut counted = COUNTED.lock().unwrap_or_else(PoisonError::into_inner);
    for c in counted.iter_mut() {
        let Ok(rel) = file.strip_prefix(&c.root) else {
            continue;
        };
        let o = c.files.entry(rel.to_path_buf()).or_default();
        if err.is_some_and(Error::is_missing) {
            o.missing += 1;
        } else {
            o.found += 1;
        }
    }
}

/// Count an open of `path` (`err`: how it failed).
pub(super) fn note(path: &Path, err: Option<&Error>) {
    if ANY.load(Ordering::SeqCst) == 0 {
        return;
    }
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    add(&abs, err);
}

/// Count an open of `rel` under the open folder `dir`.
pub(super) fn note_beneath(dir: BorrowedFd<'_>, rel: &Path, err: Option<&Error>) {
    if ANY.load(Ordering::SeqCst) == 0 {
        return;
    }
    let Ok(at) = std::fs::read_link(format!("/proc/self/fd/{}", dir.as_raw_fd())) else {
        return;
    };
    let file: PathBuf = rel
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .fold(at, |p, c| p.join(c));
    add(&file, err);
}
