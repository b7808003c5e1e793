use std::os::fd::{AsRawFd as _, BorrowedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::thread::ThreadId;

/// What a hold stops.
#[derive(Clone, Copy, PartialEq, Eq)]
enum What {
    /// The opens of `meta.json` files under the root.
    MetaJson,
    /// The opens of the root folder and of every folder under it (a walk's).
    Folders,
}

struct Held {
    root: PathBuf,
    what: What,
    holder: ThreadId,
    waiting: usize,
}

static HELD: Mutex<Vec<Held>> = Mutex::new(Vec::new());
static RELEASED: Condvar = Condvar::new();
/// How many roots are held: the opens look no further while it is 0.
static ANY: AtomicUsize = AtomicUsize::new(0);

/// The opens under `root` (a real path) wait while this lives.
pub struct Hold {
    root: PathBuf,
    what: What,
}

fn hold(root: &Path, what: What) -> Hold {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
    held.push(Held {
        root: root.clone(),
        what,
        holder: std::thread::current().id(),
        waiting: 0,
    });
    ANY.fetch_add(1, Ordering::SeqCst);
    Hold { root, what }
}

/// Hold the opens of `meta.json` under the folder `root` by other threads.
pub fn meta_json(root: &Path) -> Hold {
    hold(root, What::MetaJson)
}

/// Hold the walks of other threads at the folder `dir`: opening it or any
/// folder under it (to list its entries) waits.
pub fn folders(dir: &Path) -> Hold {
    hold(dir, What::Folders)
}

impl Hold {
    /// How many opens wait now.
    pub fn waiting(&self) -> usize {
        let held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
        held.iter()
            .filter(|h| h.root == self.root && h.what == self.what)
            .map(|h| h.waiting)
            .sum()
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(i) = held
            .iter()
            .position(|h| h.root == self.root && h.what == self.what)
        {
            held.remove(i);
            ANY.fetch_sub(1, Ordering::SeqCst);
        }
        RELEASED.notify_all();
    }
}

/// Wait while the open of `path` is held.
pub(super) fn wait(path: &Path) {
    if ANY.load(Ordering::SeqCst) == 0 || path.file_name() != Some("meta.json".as_ref()) {
        return;
    }
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    wait_under(&abs, What::MetaJson);
}

/// Wait while the open of `rel` under the open folder `dir` is held.
pub(super) fn wait_beneath(dir: BorrowedFd<'_>, rel: &Path) {
    if ANY.load(Ordering::SeqCst) == 0 || rel.file_name() != Some("meta.json".as_ref()) {
        return;
    }
    let Ok(at) = std::fs::read_link(format!("/proc/self/fd/{}", dir.as_raw_fd())) else {
        return;
    };
    wait_under(&at.join(rel), What::MetaJson);
}

/// Wait while the walk's open of the folder `path` is held.
pub(crate) fn wait_folder(path: &Path) {
    if ANY.load(Ordering::SeqCst) == 0 {
        return;
    }
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    wait_under(&abs, What::Folders);
}

/// Wait while the walk's open of the folder `name` in the open folder `dir` is held.
pub(crate) fn wait_folder_beneath(dir: BorrowedFd<'_>, name: &std::ffi::OsStr) {
    if ANY.load(Ordering::SeqCst) == 0 {
        return;
    }
    let Ok(at) = std::fs::read_link(format!("/proc/self/fd/{}", dir.as_raw_fd())) else {
        return;
    };
    wait_under(&at.join(name), What::Folders);
}

fn wait_under(file: &Path, what: What) {
    let me = std::thread::current().id();
    let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
    let mine = |held: &mut Vec<Held>| {
        held.iter_mut()
            .position(|h| h.what == what && h.holder != me && file.starts_with(&h.root))
    };
    let Some(i) = mine(&mut held) else { return };
    held[i].waiting += 1;
    let root = held[i].root.clone();
    while held.iter().any(|h| h.root == root && h.what == what) {
        held = RELEASED.wait(held).unwrap_or_else(PoisonError::into_inner);
    }
}
