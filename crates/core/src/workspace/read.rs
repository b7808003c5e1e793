//! The one bounded reader (and the one atomic writer) for every file testdeck reads or replaces.
//!
//! Every file a workspace offers may be hostile: a FIFO that never answers, a
//! device such as `/dev/zero` that never ends, a symlink that leads out of the
//! workspace, or simply a file of gigabytes. Each read goes through [`read`] (or
//! [`open`] for the tail engine, which follows growing files itself), which
//! opens without blocking, reads only regular files, never follows a symlink out
//! of the folder the caller names, and reads at most the cap of the file's
//! [`Kind`]. The caps live in one table ([`Kind::cap`]). The folder check is one
//! kernel-side guard ([`open_beneath`]): the walk opens the files of a folder it
//! holds open, so a file costs one open and no `readlink`.

use crate::problem::Problem;
use rustix::fs::{FileType, Mode, OFlags};
use std::fs::{File, Metadata};
use std::io::{Read as _, Write as _};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::{FileTypeExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

/// What a file is, for its size cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `catalog.yaml`, `local.yaml`, `cases/*.yaml`.
    CatalogYaml,
    /// `meta.json`, `artifacts.json` of a run folder.
    RunJson,
    /// `timeline.jsonl` read whole (`diff`; the tail engine follows big ones).
    Timeline,
    /// `runtime-events.jsonl`: the TUI pane shows its first part only.
    RuntimeEvents,
    /// A catalog run record `.pouch/tester/runs/*.yaml`.
    RunRecord,
    /// Test-plan and report markdown.
    Markdown,
    /// The workspace's `testdeck.toml`.
    Config,
    /// The person's own files: theme, keymap, `config.toml`, trusted openers.
    UserConfig,
    /// An image previewed in the terminal.
    Image,
    /// A source file a stack frame points into, for its snippet (the start is enough).
    Source,
    /// A Playwright `trace.zip`, held whole in memory while it is shown (its
    /// entries have bounds of their own: `workspace::trace`).
    Trace,
    /// An artifact copied out of its run folder for the program that opens it
    /// ([`checked_copy`]): videos and traces, never a sparse giant filling the disk.
    Opened,
    /// testdeck's own history cache of a workspace (`workspace::history_cache`), in
    /// the person's cache folder: read and written whole, never past its cap.
    HistoryCache,
}

/// One timeline line (an event) is at most this long, for `validate`, `tail` and
/// the cockpit alike: a line over it is a problem, and the tail engine never
/// holds more of one line. 2 MiB: a real Playwright console event of 1.1 MB fits.
pub const TIMELINE_LINE: usize = 2 << 20;

/// The one message for a timeline line over [`TIMELINE_LINE`] (rule
/// `timeline-line-too-long`), wherever it is found.
pub fn line_too_long(len: u64) -> String {
    format!("line of {len} bytes is over the {TIMELINE_LINE} byte limit for one event")
}

impl Kind {
    /// The one table of size caps, in bytes.
    pub const fn cap(self) -> u64 {
        match self {
            // the parser's own limit (the model refuses more, too)
            Kind::CatalogYaml => testdeck_model::catalog::yaml::MAX_FILE_BYTES,
            Kind::RunJson => testdeck_model::run_file::MAX_JSON_FILE,
            Kind::Timeline | Kind::RunRecord => 64 << 20,
            Kind::RuntimeEvents => 32 << 20,
            Kind::Markdown | Kind::Image => 16 << 20,
            Kind::Config | Kind::UserConfig | Kind::Source => 1 << 20,
            Kind::Trace => 128 << 20,
            Kind::Opened => 1 << 30,
            Kind::HistoryCache => 256 << 20,
        }
    }
}

/// Why a file was not read.
#[derive(Debug)]
pub enum Error {
    /// Not there (or a path through something that is not a folder).
    Missing(std::io::Error),
    /// There, but the OS refused to open or read it.
    Io(std::io::Error),
    /// A FIFO, device, socket or folder: never read (a FIFO would block, a device never end).
    NotRegular(&'static str),
    /// A symbolic link that leads out of the folder it must stay in (or nowhere).
    LinkOut,
    /// Over the cap of its kind.
    TooLarge {
        /// The file's size in bytes.
        size: u64,
        /// The cap of its kind in bytes.
        cap: u64,
    },
}

impl Error {
    /// Whether the file is not there.
    pub fn is_missing(&self) -> bool {
        matches!(self, Error::Missing(_))
    }

    /// The rule of the problem: `prefix-unreadable` and `prefix-too-large` (bare
    /// `unreadable` / `file-too-large` without a prefix), and the shared
    /// `not-a-regular-file` and `symlink-not-followed`.
    pub fn rule(&self, prefix: &str) -> String {
        let with = |s: &str| {
            if prefix.is_empty() {
                s.to_owned()
            } else {
                format!("{prefix}-{s}")
            }
        };
        match self {
            Error::Missing(_) | Error::Io(_) => with("unreadable"),
            Error::NotRegular(_) => "not-a-regular-file".to_owned(),
            Error::LinkOut => "symlink-not-followed".to_owned(),
            Error::TooLarge { .. } if prefix.is_empty() => "file-too-large".to_owned(),
            Error::TooLarge { .. } => with("too-large"),
        }
    }

    /// The located problem (an error; callers may lower it to a warning).
    pub fn problem(&self, rel: &str, prefix: &str) -> Problem {
        Problem::error(rel, &self.rule(prefix), self.to_string())
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Missing(e) | Error::Io(e) => write!(f, "cannot read: {e}"),
            Error::NotRegular(what) => write!(f, "is a {what}, not a regular file: not read"),
            Error::LinkOut => {
                f.write_str("a symbolic link that leads out of its folder is not followed")
            }
            Error::TooLarge { size, cap } => {
                write!(f, "{size} bytes is over the {cap} byte limit: not read")
            }
        }
    }
}

fn file_kind(m: &Metadata) -> Option<&'static str> {
    let t = m.file_type();
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("folder")
    } else if t.is_fifo() {
        Some("FIFO")
    } else if t.is_socket() {
        Some("socket")
    } else if t.is_char_device() || t.is_block_device() {
        Some("device")
    } else {
        Some("special file")
    }
}

/// How [`open_beneath`] treats a symbolic link on the way to the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// Followed while it stays inside the folder (a link out, absolute or
    /// dangling is refused).
    Inside,
    /// Never followed: the walk has seen the entry is a regular file, so a link
    /// there now was swapped in since and is refused.
    Never,
}

/// Guarded lookups that had to resolve a path in user space (canonicalize: a
/// `readlink` per component) because the kernel could not (no `openat2`) or the
/// path was not spelled under its folder. The walk and the run files never need
/// one; the tests read this to prove it (compiled for tests only: the
/// `testkit` feature).
#[cfg(any(test, feature = "testkit"))]
static RESOLVED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many guarded opens resolved a path in user space so far (see [`RESOLVED`]).
#[cfg(any(test, feature = "testkit"))]
pub fn resolved_in_user_space() -> u64 {
    RESOLVED.load(std::sync::atomic::Ordering::Relaxed)
}

fn open_error(e: rustix::io::Errno) -> Error {
    use rustix::io::Errno;
    match e {
        Errno::NOENT | Errno::NOTDIR => Error::Missing(e.into()),
        // ELOOP: a link where none may be; EXDEV: the resolution left the folder
        Errno::LOOP | Errno::XDEV => Error::LinkOut,
        _ => Error::Io(e.into()),
    }
}

/// The one guard every workspace file passes: open `rel` under the open folder
/// `dir` so that nothing on the way leads out of it. The kernel checks it in the
/// same call (`openat2` with `RESOLVE_BENEATH`): no `readlink`, no `stat`, and no
/// window for a link swapped in between a check and the open. `flags` are added
/// to `O_CLOEXEC` (`O_RDONLY | O_NONBLOCK` to read, `O_PATH` to locate).
fn beneath(dir: BorrowedFd<'_>, rel: &Path, flags: OFlags, links: Links) -> Result<OwnedFd, Error> {
    use rustix::fs::ResolveFlags;
    use rustix::io::Errno;
    let mut flags = flags | OFlags::CLOEXEC;
    if links == Links::Never {
        flags |= OFlags::NOFOLLOW;
    }
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
    match rustix::fs::openat2(dir, rel, flags, Mode::empty(), resolve) {
        Ok(fd) => Ok(fd),
        // no openat2 (a kernel before 5.6, or a sandbox that filters it)
        Err(Errno::NOSYS | Errno::PERM) => beneath_by_steps(dir, rel, flags),
        // a dangling link leads wherever its target appears later: out
        Err(Errno::NOENT) if is_link_at(dir, rel) => Err(Error::LinkOut),
        Err(e) => Err(open_error(e)),
    }
}

/// Without `openat2`: one folder at a time, no link followed at all (a link
/// inside is refused too: stricter, never looser).
fn beneath_by_steps(dir: BorrowedFd<'_>, rel: &Path, flags: OFlags) -> Result<OwnedFd, Error> {
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            std::path::Component::Normal(n) => parts.push(n),
            std::path::Component::CurDir => {}
            _ => return Err(Error::LinkOut),
        }
    }
    let Some((last, folders)) = parts.split_last() else {
        return Err(Error::NotRegular("folder"));
    };
    let mut held: Option<OwnedFd> = None;
    for f in folders {
        let at = held.as_ref().map_or(dir, AsFd::as_fd);
        let next = rustix::fs::openat(
            at,
            *f,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(open_error)?;
        held = Some(next);
    }
    let at = held.as_ref().map_or(dir, AsFd::as_fd);
    match rustix::fs::openat(at, *last, flags | OFlags::NOFOLLOW, Mode::empty()) {
        Ok(fd) => Ok(fd),
        Err(rustix::io::Errno::NOENT) if is_link_at(at, Path::new(last)) => Err(Error::LinkOut),
        Err(e) => Err(open_error(e)),
    }
}

/// Whether `rel` under `dir` is itself a symbolic link (asked only after a
/// failed open, to tell a dangling link from a missing file).
fn is_link_at(dir: BorrowedFd<'_>, rel: &Path) -> bool {
    rustix::fs::statat(dir, rel, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
        .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Symlink)
}

/// Open a regular file `rel` under the open folder `dir` without blocking (see
/// [`beneath`] for the guard): a FIFO, device, socket or folder is refused.
pub(crate) fn open_beneath(
    dir: BorrowedFd<'_>,
    rel: &Path,
    links: Links,
) -> Result<(File, Metadata), Error> {
    #[cfg(any(test, feature = "testkit"))]
    hold::wait_beneath(dir, rel);
    // O_NONBLOCK: opening a FIFO with no writer returns at once instead of
    // waiting for one; it has no effect on the reads of a regular file.
    let fd = beneath(dir, rel, OFlags::RDONLY | OFlags::NONBLOCK, links);
    #[cfg(any(test, feature = "testkit"))]
    count::note_beneath(dir, rel, fd.as_ref().err());
    let fd = fd?;
    let f = File::from(fd);
    let m = f.metadata().map_err(Error::Io)?;
    if let Some(what) = file_kind(&m) {
        return Err(Error::NotRegular(what));
    }
    Ok((f, m))
}

/// What `rel` under `dir` is, through the same guard, without opening it for
/// reading (an artifact that must exist and stay in its run folder). `Ok(None)`:
/// not there, and nothing on the way leads out.
pub(crate) fn locate_beneath(dir: BorrowedFd<'_>, rel: &Path) -> Result<Option<Metadata>, Error> {
    match beneath(dir, rel, OFlags::PATH, Links::Inside) {
        Ok(fd) => File::from(fd).metadata().map(Some).map_err(Error::Io),
        Err(Error::Missing(_)) => {
            // not there (yet): the deepest part that is there must not be a
            // dangling link (it leads wherever its target appears later)
            let mut at = rel.to_path_buf();
            while at.pop() && !at.as_os_str().is_empty() {
                match beneath(dir, &at, OFlags::PATH, Links::Inside) {
                    Ok(_) => return Ok(None),
                    Err(Error::Missing(_)) => {}
                    Err(e) => return Err(e),
                }
            }
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Open a folder for [`open_beneath`] (following a link to it: `within` is the
/// caller's folder, trusted as the old canonicalizing check trusted it).
fn folder_path(path: &Path) -> Result<OwnedFd, Error> {
    rustix::fs::openat(
        rustix::fs::CWD,
        path,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| match open_error(e) {
        Error::LinkOut => Error::Missing(e.into()),
        other => other,
    })
}

/// `path` as a folder and a path under it: spelled under `within` (every caller
/// but odd ones), or else both resolved (counted, for the tests).
fn split_under(path: &Path, within: &Path) -> Result<(PathBuf, PathBuf), Error> {
    if let Ok(rel) = path.strip_prefix(within) {
        let rel = if rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            rel
        };
        return Ok((within.to_path_buf(), rel.to_path_buf()));
    }
    #[cfg(any(test, feature = "testkit"))]
    RESOLVED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let base = within.canonicalize().map_err(Error::Missing)?;
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(Error::LinkOut);
    };
    let parent = parent.canonicalize().map_err(Error::Missing)?;
    let rel = parent.strip_prefix(&base).map_err(|_| Error::LinkOut)?;
    Ok((base.clone(), rel.join(name)))
}

/// Open a regular file for reading without ever blocking: with `within`, only
/// when it (after every symlink) stays inside that folder; without, the path is
/// the person's own choice (a command-line argument) and may be a link.
pub fn open(path: &Path, within: Option<&Path>) -> Result<(File, Metadata), Error> {
    #[cfg(any(test, feature = "testkit"))]
    hold::wait(path);
    if let Some(w) = within {
        let (base, rel) = split_under(path, w)?;
        let dir = folder_path(&base)?;
        return open_beneath(dir.as_fd(), &rel, Links::Inside);
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    // O_NONBLOCK: see open_beneath
    opts.custom_flags(OFlags::NONBLOCK.bits() as i32);
    let f = opts.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory => Error::Missing(e),
        _ => Error::Io(e),
    });
    #[cfg(any(test, feature = "testkit"))]
    count::note(path, f.as_ref().err());
    let f = f?;
    let m = f.metadata().map_err(Error::Io)?;
    if let Some(what) = file_kind(&m) {
        return Err(Error::NotRegular(what));
    }
    Ok((f, m))
}

/// Read a whole open regular file of at most `kind`'s cap.
fn read_capped(f: File, m: &Metadata, kind: Kind) -> Result<Vec<u8>, Error> {
    let cap = kind.cap();
    if m.len() > cap {
        return Err(Error::TooLarge { size: m.len(), cap });
    }
    let mut bytes = Vec::with_capacity(m.len() as usize);
    // the file may grow while it is read: never past the cap
    f.take(cap + 1).read_to_end(&mut bytes).map_err(Error::Io)?;
    if bytes.len() as u64 > cap {
        return Err(Error::TooLarge {
            size: bytes.len() as u64,
            cap,
        });
    }
    Ok(bytes)
}

/// [`read`] of `rel` under the open folder `dir` (see [`open_beneath`]).
pub(crate) fn read_beneath(
    dir: BorrowedFd<'_>,
    rel: &Path,
    links: Links,
    kind: Kind,
) -> Result<Vec<u8>, Error> {
    let (f, m) = open_beneath(dir, rel, links)?;
    read_capped(f, &m, kind)
}

/// Read a whole regular file of at most `kind`'s cap (see [`open`] for `within`).
pub fn read(path: &Path, within: Option<&Path>, kind: Kind) -> Result<Vec<u8>, Error> {
    let (f, m) = open(path, within)?;
    read_capped(f, &m, kind)
}

/// [`read`], then UTF-8; invalid bytes are replaced (for text shown, not parsed).
pub fn read_lossy(path: &Path, within: Option<&Path>, kind: Kind) -> Result<String, Error> {
    read(path, within, kind).map(lossy)
}

/// UTF-8 with invalid bytes replaced, without a copy when the text is valid.
pub(crate) fn lossy(b: Vec<u8>) -> String {
    match String::from_utf8(b) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// The first `kind.cap()` bytes of a file, and whether there was more (a pane
/// that shows the start of a big file).
pub(crate) fn read_head(
    path: &Path,
    within: Option<&Path>,
    kind: Kind,
) -> Result<(Vec<u8>, bool), Error> {
    let (f, _) = open(path, within)?;
    let cap = kind.cap();
    let mut bytes = Vec::new();
    f.take(cap + 1).read_to_end(&mut bytes).map_err(Error::Io)?;
    let more = bytes.len() as u64 > cap;
    bytes.truncate(cap as usize);
    Ok((bytes, more))
}

/// The folder `rel` under the workspace `root`, made where missing, one folder
/// at a time from the root and never through a symbolic link: the one check of
/// every folder testdeck writes into (run records, their CSVs and case logs).
/// A link on the way (out of the workspace or not) is an error naming the
/// folder, and nothing is created beyond it.
pub fn owned_dir(root: &Path, rel: &Path) -> std::io::Result<PathBuf> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut at = rustix::fs::open(root, flags.difference(OFlags::NOFOLLOW), Mode::empty())?;
    let mut seen = PathBuf::new();
    for c in rel.components() {
        let std::path::Component::Normal(name) = c else {
            return Err(std::io::Error::other(format!(
                "{}: not a folder under the workspace",
                rel.display()
            )));
        };
        seen.push(name);
        match rustix::fs::mkdirat(&at, name, Mode::from_raw_mode(0o755)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(e) => return Err(e.into()),
        }
        at = match rustix::fs::openat(&at, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {
                return Err(std::io::Error::other(format!(
                    "{}: a symbolic link or not a folder; testdeck writes only into \
                     folders of the workspace it owns: nothing written",
                    seen.display()
                )));
            }
            Err(e) => return Err(e.into()),
        };
    }
    Ok(root.join(rel))
}

/// The folder of testdeck's run records, relative to the workspace root.
pub const RUNS_DIR: &str = ".pouch/tester/runs";

/// The first folder of `rel` under `root` that is a symbolic link (relative to
/// the root), if any: what [`owned_dir`] refuses, for `validate` and the list of
/// records to say before anything is read or written through it.
pub fn link_on_the_way(root: &Path, rel: &Path) -> Option<String> {
    let mut p = root.to_path_buf();
    let mut seen = PathBuf::new();
    for c in rel.components() {
        p.push(c);
        seen.push(c);
        if std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink()) {
            return Some(seen.to_string_lossy().into_owned());
        }
    }
    None
}

/// A copy of the regular file `path`, opened beneath `within` in the same call
/// that checks it (see [`open`]), in a new private folder (0700) of the temp
/// folder: what a program that opens the file later by its path (an opener) is
/// handed. The original path would be resolved again by that program, after
/// the check, so a link swapped in meanwhile would lead it anywhere; the copy
/// holds the bytes that passed. The copy keeps the file's name (openers choose
/// by its extension). At most [`Kind::Opened`]'s cap is copied.
pub fn checked_copy(path: &Path, within: &Path) -> Result<PathBuf, Error> {
    let (f, m) = open(path, Some(within))?;
    let cap = Kind::Opened.cap();
    if m.len() > cap {
        return Err(Error::TooLarge { size: m.len(), cap });
    }
    let name = path.file_name().ok_or(Error::NotRegular("folder"))?;
    let dir = private_dir().map_err(Error::Io)?;
    let dest = dir.join(name);
    let copied = (|| {
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&dest)?;
        // the file may grow while it is copied: never past the cap
        let n = std::io::copy(&mut f.take(cap + 1), &mut out)?;
        if n > cap {
            return Err(std::io::Error::other(format!(
                "over the {cap} byte limit: not copied"
            )));
        }
        Ok(())
    })();
    if let Err(e) = copied {
        let _ = std::fs::remove_dir_all(&dir);
        return Err(Error::Io(e));
    }
    Ok(dest)
}

/// A new folder only this user can enter, created exclusively (a folder planted
/// under the same name makes the next name be tried, never used).
fn private_dir() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt as _;
    let base = std::env::temp_dir();
    let mut tries = 0;
    loop {
        let dir = base.join(format!(
            "testdeck-open-{}-{:016x}",
            std::process::id(),
            fastrand::u64(..)
        ));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tries < 100 => tries += 1,
            Err(e) => return Err(e),
        }
    }
}

/// The most bytes one guarded write ([`write_beneath`]) writes: the biggest file
/// testdeck writes is its history cache ([`Kind::HistoryCache`]).
pub const WRITE_CAP: u64 = Kind::HistoryCache.cap();

/// How [`write_beneath_with`] writes a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteMode {
    /// The file's permission bits (0644 for most, 0755 for a script, 0600 for the
    /// person's own state).
    pub mode: u32,
    /// Replace a regular file that is there (atomically); else a file there
    /// (`AlreadyExists`) leaves everything as it was.
    pub replace: bool,
}

impl WriteMode {
    /// A file readable by all, replaced when there.
    pub const FILE: WriteMode = WriteMode {
        mode: 0o644,
        replace: true,
    };
    /// A new file only: one there already is an `AlreadyExists` error.
    pub const NEW: WriteMode = WriteMode {
        mode: 0o644,
        replace: false,
    };
}

/// A refusal of a guarded write: its message is located at the part of the
/// path (relative to the root) that stopped it, and nothing was written.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Refused(String);

/// Whether `e` is a refusal of the guarded writer ([`Refused`]) rather than an
/// error of the disk.
pub fn is_refusal(e: &std::io::Error) -> bool {
    e.get_ref()
        .is_some_and(<dyn std::error::Error + Send + Sync>::is::<Refused>)
}

fn refusal(at: &Path, why: &str) -> std::io::Error {
    std::io::Error::other(Refused(format!(
        "{}: {why}; testdeck writes only through folders of the workspace that are \
         not links: nothing written",
        at.display()
    )))
}

/// The parts of `rel`, each a plain name: no root, `..` or empty path.
fn plain_parts(rel: &Path) -> std::io::Result<Vec<&std::ffi::OsStr>> {
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            std::path::Component::Normal(n) => parts.push(n),
            std::path::Component::CurDir => {}
            _ => return Err(refusal(rel, "not a path under the workspace")),
        }
    }
    if parts.is_empty() {
        return Err(refusal(rel, "not a file under the workspace"));
    }
    Ok(parts)
}

/// What the entry `name` of the open folder `dir` is, without following it.
fn entry_type(dir: BorrowedFd<'_>, name: &std::ffi::OsStr) -> Option<FileType> {
    rustix::fs::statat(dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
        .ok()
        .map(|st| FileType::from_raw_mode(st.st_mode))
}

/// The open root folder (a link to it is the person's choice, followed).
fn open_root(root: &Path) -> std::io::Result<OwnedFd> {
    Ok(rustix::fs::open(
        root,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?)
}

/// Walk the folders `parts` under the open `root`, one `openat` with
/// `O_NOFOLLOW` each, so the check of each is the call that opens it; with
/// `create`, a missing one is made (0755). `Ok(None)`: a folder is missing (and
/// not made); nothing on the way is a link.
fn walk_folders(
    root: OwnedFd,
    parts: &[&std::ffi::OsStr],
    create: bool,
) -> std::io::Result<Option<OwnedFd>> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut at = root;
    let mut seen = PathBuf::new();
    for name in parts {
        seen.push(name);
        let opened = match rustix::fs::openat(&at, *name, flags, Mode::empty()) {
            Err(rustix::io::Errno::NOENT) if create => {
                match rustix::fs::mkdirat(&at, *name, Mode::from_raw_mode(0o755)) {
                    Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                    Err(e) => return Err(e.into()),
                }
                rustix::fs::openat(&at, *name, flags, Mode::empty())
            }
            other => other,
        };
        at = match opened {
            Ok(fd) => fd,
            Err(rustix::io::Errno::NOENT) => return Ok(None),
            Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {
                let what = if entry_type(at.as_fd(), name) == Some(FileType::Symlink) {
                    "a symbolic link"
                } else {
                    "not a folder"
                };
                return Err(refusal(&seen, what));
            }
            Err(e) => return Err(e.into()),
        };
    }
    Ok(Some(at))
}

/// Whether the last part `name` (at `rel`) may be written in `dir`: missing, or
/// a regular file (never a link, FIFO, device or folder).
fn check_last(dir: BorrowedFd<'_>, name: &std::ffi::OsStr, rel: &Path) -> std::io::Result<()> {
    match entry_type(dir, name) {
        None | Some(FileType::RegularFile) => Ok(()),
        Some(FileType::Symlink) => Err(refusal(rel, "a symbolic link")),
        Some(FileType::Directory) => Err(refusal(rel, "a folder")),
        Some(_) => Err(refusal(rel, "not a regular file")),
    }
}

/// Whether `rel` under `root` could be written by [`write_beneath`]: every
/// folder on the way that is there is a folder and no link, and the file is
/// missing or a regular file. Nothing is created. A command that writes several
/// files checks them all ([`check_writes`]) before it writes the first.
pub fn check_write(root: &Path, rel: &Path) -> std::io::Result<()> {
    let parts = plain_parts(rel)?;
    let Some((last, folders)) = parts.split_last() else {
        return Err(refusal(rel, "not a file under the workspace"));
    };
    match walk_folders(open_root(root)?, folders, false)? {
        Some(dir) => check_last(dir.as_fd(), last, rel),
        None => Ok(()),
    }
}

/// [`check_write`] of each of `rels`: the first refusal, before anything is written.
pub fn check_writes<'a>(
    root: &Path,
    rels: impl IntoIterator<Item = &'a Path>,
) -> std::io::Result<()> {
    rels.into_iter().try_for_each(|rel| check_write(root, rel))
}

/// The one guarded writer: `bytes` to `rel` under `root` as a regular file of
/// 0644, replacing one there. See [`write_beneath_with`].
pub fn write_beneath(root: &Path, rel: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_beneath_with(root, rel, bytes, WriteMode::FILE)
}

/// Write `bytes` to `rel` under `root`: each folder on the way opened with
/// `O_NOFOLLOW` (made where missing), so no part under the root can be a link
/// and the check is the call that opens it; a temp file created exclusively in
/// the last folder, written, synced and renamed over the file, so a reader
/// never sees half a file and a crash leaves the previous version. A link,
/// FIFO, device or folder where the file goes is refused; so are more than
/// [`WRITE_CAP`] bytes. A refusal names the part that stopped it and writes
/// nothing (a folder made before a refusal further on is left, empty).
pub fn write_beneath_with(
    root: &Path,
    rel: &Path,
    bytes: &[u8],
    how: WriteMode,
) -> std::io::Result<()> {
    if bytes.len() as u64 > WRITE_CAP {
        return Err(refusal(
            rel,
            &format!("{} bytes is over the {WRITE_CAP} byte limit", bytes.len()),
        ));
    }
    let parts = plain_parts(rel)?;
    let Some((last, folders)) = parts.split_last() else {
        return Err(refusal(rel, "not a file under the workspace"));
    };
    // the last part is checked before any folder is made: a refusal makes nothing
    check_write(root, rel)?;
    let dir = walk_folders(open_root(root)?, folders, true)?
        .ok_or_else(|| refusal(rel, "a folder on the way vanished"))?;
    check_last(dir.as_fd(), last, rel)?;
    let tmp = format!(".{}.{:08x}.tmp", last.to_string_lossy(), fastrand::u32(..));
    let fd = rustix::fs::openat(
        &dir,
        tmp.as_str(),
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(how.mode),
    )?;
    let result = (|| {
        rustix::fs::fchmod(&fd, Mode::from_raw_mode(how.mode))?;
        let mut f = File::from(fd);
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        if how.replace {
            // a link swapped in since the check is replaced, never followed
            check_last(dir.as_fd(), last, rel)?;
            rustix::fs::renameat(&dir, tmp.as_str(), &dir, *last)?;
        } else {
            rename_new(dir.as_fd(), tmp.as_str().as_ref(), dir.as_fd(), last)
                .map_err(|e| exists_or(e, rel))?;
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = rustix::fs::unlinkat(&dir, tmp.as_str(), rustix::fs::AtFlags::empty());
    }
    result
}

fn exists_or(e: std::io::Error, rel: &Path) -> std::io::Error {
    if e.kind() == std::io::ErrorKind::AlreadyExists {
        std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!("{}: there already: nothing written", rel.display()),
        )
    } else {
        e
    }
}

/// Rename `from` in `fd` to `to` in `td`, never over anything there: the
/// kernel's no-replace rename, or where it has none, a hard link (which fails
/// when the name is taken) and the old name removed.
fn rename_new(
    fd: BorrowedFd<'_>,
    from: &std::ffi::OsStr,
    td: BorrowedFd<'_>,
    to: &std::ffi::OsStr,
) -> std::io::Result<()> {
    use rustix::io::Errno;
    match rustix::fs::renameat_with(fd, from, td, to, rustix::fs::RenameFlags::NOREPLACE) {
        Ok(()) => Ok(()),
        Err(Errno::NOSYS | Errno::INVAL | Errno::PERM) => {
            rustix::fs::linkat(fd, from, td, to, rustix::fs::AtFlags::empty())?;
            Ok(rustix::fs::unlinkat(
                fd,
                from,
                rustix::fs::AtFlags::empty(),
            )?)
        }
        Err(e) => Err(e.into()),
    }
}

/// Move `from` to `to` (both relative to `root`), never over anything at `to`:
/// the folders on both ways opened with `O_NOFOLLOW` (those of `to` made where
/// missing), `from` itself a regular file or a folder (a moved run folder),
/// never a link. A promoted case and a moved run folder go this way.
pub fn rename_beneath(root: &Path, from: &Path, to: &Path) -> std::io::Result<()> {
    let fparts = plain_parts(from)?;
    let tparts = plain_parts(to)?;
    let (Some((flast, ffolders)), Some((tlast, tfolders))) =
        (fparts.split_last(), tparts.split_last())
    else {
        return Err(refusal(to, "not a path under the workspace"));
    };
    let fdir = walk_folders(open_root(root)?, ffolders, false)?.ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("{}: not there", from.display()),
        )
    })?;
    match entry_type(fdir.as_fd(), flast) {
        Some(FileType::RegularFile | FileType::Directory) => {}
        Some(FileType::Symlink) => return Err(refusal(from, "a symbolic link")),
        Some(_) => return Err(refusal(from, "not a regular file")),
        None => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{}: not there", from.display()),
            ));
        }
    }
    // the destination is checked whole before a folder of it is made
    match walk_folders(open_root(root)?, tfolders, false)? {
        Some(d) if entry_type(d.as_fd(), tlast).is_some() => {
            return Err(exists_or(std::io::ErrorKind::AlreadyExists.into(), to));
        }
        _ => {}
    }
    let tdir = walk_folders(open_root(root)?, tfolders, true)?
        .ok_or_else(|| refusal(to, "a folder on the way vanished"))?;
    rename_new(fdir.as_fd(), flast, tdir.as_fd(), tlast).map_err(|e| exists_or(e, to))
}

/// Make `dir` (testdeck's own cache or state folder) the person's own: made
/// 0700 where missing (its missing parents too); one there must be a folder,
/// no link, owned by this user, and is made 0700 when others could enter or
/// write to it. `Err`: it is not used, and says why (another user's folder, a
/// link, or one whose mode cannot be fixed).
pub fn own_folder(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    let not_used = |why: &str| {
        std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!("{}: {why}: not used", dir.display()),
        )
    };
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let fd = match rustix::fs::open(
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    ) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {
            return Err(not_used("a symbolic link or not a folder"));
        }
        Err(e) => return Err(e.into()),
    };
    let st = rustix::fs::fstat(&fd)?;
    if st.st_uid != rustix::process::geteuid().as_raw() {
        return Err(not_used("a folder of another user"));
    }
    if st.st_mode & 0o077 != 0 {
        rustix::fs::fchmod(&fd, Mode::from_raw_mode(0o700))
            .map_err(|_| not_used("others can write to it and it cannot be made 0700"))?;
    }
    Ok(())
}

/// Write `bytes` to `path`, its folder trusted as the caller's (testdeck's own
/// cache and state folders, a path the person named): [`write_beneath`] with
/// the folder as the root, so the file itself is never a link, FIFO or device.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| refusal(path, "not a file"))?;
    write_beneath(dir, Path::new(name), bytes)
}

/// Counting the opens of the bounded reader (tests only, never in the
/// product): a test counts how often each file under a folder was opened, and
/// how often an open found nothing there (polling for a file that does not
/// exist yet). Only opens under the folders counted are looked at, so tests
/// running beside it are never counted.
#[cfg(any(test, feature = "testkit"))]
pub mod count;

/// A test hook: the opens of `meta.json` files under a workspace (or the
/// listings of the folders under a folder: [`hold::folders`]) held until the
/// test releases them, so a test can look at what a shell shows before any run
/// summary is read (or while a walk is part-way). Only the threads other than
/// the holder's wait (the holder is the test's own thread, which drives the
/// app), and only under the roots held: tests running beside it are never
/// touched.
#[cfg(any(test, feature = "testkit"))]
pub mod hold;

#[cfg(test)]
mod tests;
