//! The directory walks: a folder held open while its entries are read (their types
//! from the entries themselves) and its files opened relative to it, never
//! following a symlink (so loops and links out of the workspace cannot trap a walk).

use crate::problem::Problem;
use rayon::prelude::*;
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use std::ffi::{OsStr, OsString};
use std::os::fd::{AsFd as _, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
#[cfg(any(test, feature = "testkit"))]
use std::sync::atomic::{AtomicU64, Ordering};

/// Entries whose type the file system did not give (`DT_UNKNOWN`: some network
/// and old file systems), so one `stat` was needed. On ext4, xfs, btrfs and tmpfs
/// it stays 0: the tests read it to prove the walk stats nothing (compiled for
/// tests only: the `testkit` feature).
#[cfg(any(test, feature = "testkit"))]
static TYPE_LOOKUPS: AtomicU64 = AtomicU64::new(0);

/// How many entries so far needed a `stat` for their type (see [`TYPE_LOOKUPS`]).
#[cfg(any(test, feature = "testkit"))]
pub fn type_lookups() -> u64 {
    TYPE_LOOKUPS.load(Ordering::Relaxed)
}

/// What an entry is, as its folder says (a link is never resolved).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A folder.
    Dir,
    /// A symbolic link (never followed).
    Link,
    /// A FIFO, device or socket.
    Special,
}

/// A folder held open: its entries are listed and its files and subfolders opened
/// relative to it (one open for the folder, one for each file read, no lookup of
/// the path from the root again).
pub struct Folder {
    fd: OwnedFd,
}

impl std::fmt::Debug for Folder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Folder")
    }
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

impl Folder {
    /// Open the folder `path` where a walk starts (a link to it is followed, as
    /// `read_dir` follows it: callers that refuse one ask [`is_link_reported`]).
    pub(crate) fn open(path: &Path) -> std::io::Result<Folder> {
        #[cfg(any(test, feature = "testkit"))]
        super::read::hold::wait_folder(path);
        let flags = DIR_FLAGS.difference(OFlags::NOFOLLOW);
        let fd = rustix::fs::openat(rustix::fs::CWD, path, flags, Mode::empty())?;
        Ok(Folder { fd })
    }

    /// Open the subfolder `name` (an entry this folder listed as a folder); a link
    /// swapped in since is refused.
    pub(crate) fn sub(&self, name: &OsStr) -> std::io::Result<Folder> {
        #[cfg(any(test, feature = "testkit"))]
        super::read::hold::wait_folder_beneath(self.fd(), name);
        let fd = rustix::fs::openat(self.fd(), name, DIR_FLAGS, Mode::empty())?;
        Ok(Folder { fd })
    }

    /// The open folder, for the bounded reader's [`super::read::open_beneath`].
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// Every entry but `.` and `..`, with its type (once per folder: the listing
    /// is not rewound). The entries say it (`d_type`); only when one does not is
    /// the entry stat'ed (without following it).
    pub fn entries(&self) -> std::io::Result<Vec<(OsString, Kind)>> {
        let mut out = Vec::new();
        // the listing reads a duplicate of the folder's descriptor (a dup, not
        // an open): the folder keeps its own for the opens relative to it
        let mut dir = rustix::fs::Dir::new(self.fd.try_clone()?)?;
        while let Some(ent) = dir.read() {
            let ent = ent?;
            let name = ent.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            let mut ft = ent.file_type();
            if ft == FileType::Unknown {
                #[cfg(any(test, feature = "testkit"))]
                TYPE_LOOKUPS.fetch_add(1, Ordering::Relaxed);
                ft = rustix::fs::statat(self.fd(), ent.file_name(), AtFlags::SYMLINK_NOFOLLOW)
                    .map_or(FileType::Unknown, |st| FileType::from_raw_mode(st.st_mode));
            }
            let kind = match ft {
                FileType::RegularFile => Kind::File,
                FileType::Directory => Kind::Dir,
                FileType::Symlink => Kind::Link,
                // gone between the listing and the stat: nothing to report
                FileType::Unknown => continue,
                _ => Kind::Special,
            };
            out.push((OsStr::from_bytes(name).to_owned(), kind));
        }
        Ok(out)
    }
}

/// One entry found by the walk.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry<'a> {
    pub path: &'a Path,
    pub(crate) name: &'a OsStr,
    pub(crate) is_dir: bool,
    pub(crate) is_symlink: bool,
    /// The folder holding the entry, open: read a file with
    /// `read::read_beneath(e.folder, Path::new(e.name), …)`.
    pub folder: BorrowedFd<'a>,
}

/// How many folders deep a walk goes below the folder it starts at. Real trees
/// are a few levels deep; the cap keeps a crafted chain of thousands of nested
/// folders from costing the stack (every walk descends one frame a level) or
/// hours, and the folder where it stops is a located problem.
pub const MAX_DEPTH: usize = 64;

/// The warning for a folder past [`MAX_DEPTH`]: it is not read.
pub fn too_deep(root: &Path, dir: &Path) -> Problem {
    Problem::warning(
        super::rel(root, dir),
        "folder-too-deep",
        format!("folder nested more than {MAX_DEPTH} levels deep: not read"),
    )
}

/// The warning for a folder that cannot be opened or listed.
pub(crate) fn unreadable(root: &Path, dir: &Path, e: &std::io::Error) -> Problem {
    Problem::warning(
        super::rel(root, dir),
        "unreadable",
        format!("cannot read folder: {e}"),
    )
}

/// Walk `dir` recursively in parallel, at most [`MAX_DEPTH`] folders deep (a
/// folder below is a located problem); `descend(dir)` decides whether to enter a
/// folder, `visit` sees every file and folder. Symlinks are reported to `visit`
/// but never followed.
pub(crate) fn walk<D, V>(
    root: &Path,
    dir: &Path,
    descend: &D,
    visit: &V,
    problems: &Mutex<Vec<Problem>>,
) where
    D: Fn(&Path) -> bool + Sync,
    V: Fn(&Entry<'_>) + Sync,
{
    match Folder::open(dir) {
        Ok(f) => walk_open(root, dir, &f, 0, descend, visit, problems),
        Err(e) => {
            if let Ok(mut p) = problems.lock() {
                p.push(unreadable(root, dir, &e));
            }
        }
    }
}

/// [`walk`] from the folder `folder` (at `dir`, `depth` folders below where the
/// walk started), already open.
pub(crate) fn walk_open<D, V>(
    root: &Path,
    dir: &Path,
    folder: &Folder,
    depth: usize,
    descend: &D,
    visit: &V,
    problems: &Mutex<Vec<Problem>>,
) where
    D: Fn(&Path) -> bool + Sync,
    V: Fn(&Entry<'_>) + Sync,
{
    let entries = match folder.entries() {
        Ok(e) => e,
        Err(e) => {
            if let Ok(mut p) = problems.lock() {
                p.push(unreadable(root, dir, &e));
            }
            return;
        }
    };
    let mut subdirs: Vec<(PathBuf, OsString)> = Vec::new();
    for (name, kind) in entries {
        let path = dir.join(&name);
        let e = Entry {
            path: &path,
            name: &name,
            is_dir: kind == Kind::Dir,
            is_symlink: kind == Kind::Link,
            folder: folder.fd(),
        };
        visit(&e);
        if e.is_dir && descend(&path) {
            subdirs.push((path, name));
        }
    }
    if depth >= MAX_DEPTH && !subdirs.is_empty() {
        if let Ok(mut p) = problems.lock() {
            p.extend(subdirs.iter().map(|(path, _)| too_deep(root, path)));
        }
        return;
    }
    subdirs
        .par_iter()
        .for_each(|(path, name)| match folder.sub(name) {
            Ok(f) => walk_open(root, path, &f, depth + 1, descend, visit, problems),
            Err(e) => {
                if let Ok(mut p) = problems.lock() {
                    p.push(unreadable(root, path, &e));
                }
            }
        });
}

/// Whether `dir` is itself a symbolic link: then it is reported and not read, so a
/// source folder of the workspace cannot be a door to files outside it.
pub(crate) fn is_link_reported(root: &Path, dir: &Path, problems: &mut Vec<Problem>) -> bool {
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

/// Whether `p` is a folder itself, not a link to one (a watch or walk starts
/// only at a real folder of the workspace).
pub fn is_real_dir(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir())
}

/// The one file watcher every part of testdeck makes: its recursive watches
/// never follow a symbolic link (notify follows them by default, so a link to
/// `/usr` would spend thousands of the person's inotify watches out of the
/// workspace).
pub fn watcher<F: notify::EventHandler>(handler: F) -> notify::Result<notify::RecommendedWatcher> {
    let config = notify::Config::default().with_follow_symlinks(false);
    <notify::RecommendedWatcher as notify::Watcher>::new(handler, config)
}

/// What to say when watching `what` failed: the inotify limit (a per-user
/// budget shared with the person's other programs) is named, with the setting
/// that raises it.
pub fn watch_error(what: &str, e: &notify::Error) -> String {
    if matches!(e.kind, notify::ErrorKind::MaxFilesWatch) {
        let limit = std::fs::read_to_string("/proc/sys/fs/inotify/max_user_watches")
            .map_or_else(|_| "?".to_owned(), |s| s.trim().to_owned());
        format!(
            "cannot watch {what}: the limit of inotify watches for this user is reached \
             (fs.inotify.max_user_watches = {limit}); raise it or watch fewer folders"
        )
    } else {
        format!("cannot watch {what}: {e}")
    }
}
