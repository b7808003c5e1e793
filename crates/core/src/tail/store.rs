//! One store for the runs being followed: each run folder asked for is read by
//! one tail follower and one look at its `meta.json`, once per change, whoever
//! asked (the cockpit's live pane, a launch waiting for its run's end, both at
//! once). Clients say what they want ([`RunStore::follow`]) and take what was
//! read ([`RunFollow`]: each change in order, and the run's [`RunSnapshot`]).
//!
//! The store has no watcher of its own: whoever watches the workspace hands it
//! the paths that changed ([`RunStore::touched`]), and it looks at every run it
//! follows every `poll` besides (a folder past the watcher's budget, or no
//! watcher at all: a headless launch). A look costs a `stat` of `meta.json`
//! and a read of the timeline already open: `meta.json` is opened only once it
//! is there, and the timeline only once it is there.

use super::{Follower, Start, TailEvent, Watch};
use crate::workspace::read;
use crate::workspace::run_folder;
use crate::workspace::timeline::TimelineEvent;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Condvar, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

/// The most timeline lines kept for one run: the last ones, since the live pane
/// follows the end (tens of MB at most; the rest are counted in `skipped`).
pub const MAX_TIMELINE_EVENTS: usize = 50_000;

/// How many ended runs the store keeps after nobody follows them any more: a
/// reader of a run that just ended (the index, the pane's reload, the
/// contract check, the failure digest) takes its snapshot instead of its files.
const KEEP_ENDED: usize = 64;

/// How long a `meta.json` that does not read as JSON is given to be completed;
/// after that the run counts as ended anyway (indexing reports the broken file).
const META_SETTLE: Duration = Duration::from_secs(2);

/// One line of a run's timeline, as read.
#[derive(Debug, Clone)]
pub struct RunLine {
    /// The 1-based line of the file (it restarts after a truncation or a replacement).
    pub lineno: u64,
    /// The event.
    pub event: TimelineEvent,
    /// What is wrong with the line, if anything.
    pub issues: Vec<String>,
}

/// What one look at a run folder read: `reset` when its timeline was truncated
/// or replaced (the lines so far are gone; `lines` start the new file),
/// `finished` when `meta.json` reads and this was the last of the timeline.
#[derive(Debug, Clone, Default)]
pub struct RunChange {
    /// The timeline was truncated, replaced or created anew.
    pub reset: bool,
    /// The lines read, in file order.
    pub lines: Vec<RunLine>,
    /// The timeline could not be read (said once each time it changes).
    pub unreadable: Vec<String>,
    /// The run has ended and nothing more will come.
    pub finished: bool,
}

impl RunChange {
    fn is_empty(&self) -> bool {
        !self.reset && !self.finished && self.lines.is_empty() && self.unreadable.is_empty()
    }
}

/// A run folder as the store has read it so far.
#[derive(Debug, Clone, Default)]
pub struct RunSnapshot {
    /// The run folder.
    pub dir: PathBuf,
    /// The timeline's lines (of its current version), at most the last
    /// [`MAX_TIMELINE_EVENTS`].
    pub lines: Vec<RunLine>,
    /// How many earlier lines were dropped to keep that bound.
    pub skipped: u64,
    /// `meta.json` as read once it reads as JSON (`None`: not there yet, or refused).
    pub meta: Option<Vec<u8>>,
    /// Why `meta.json` was refused unread (a link out, a FIFO, a giant): the run
    /// has ended all the same.
    pub meta_refused: Option<String>,
    /// The run has ended (see [`run_folder::RunState`]).
    pub ended: bool,
    /// What its timeline and `meta.json` were when it ended (size, change
    /// time, inode): the snapshot stands for the files while they stay so.
    stamps: [Option<Stamp>; 2],
}

/// What a file is on disk, as a `stat` says: its size, modification time and inode.
type Stamp = (u64, i64, i64, u64);

fn stamp(file: &Path) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt as _;
    let m = std::fs::symlink_metadata(file).ok()?;
    Some((m.len(), m.mtime(), m.mtime_nsec(), m.ino()))
}

fn stamps(dir: &Path) -> [Option<Stamp>; 2] {
    [
        stamp(&dir.join(run_folder::TIMELINE)),
        stamp(&dir.join(run_folder::META)),
    ]
}

impl RunSnapshot {
    /// The timeline's events, in order.
    pub fn events(&self) -> impl Iterator<Item = &TimelineEvent> {
        self.lines.iter().map(|l| &l.event)
    }

    /// Everything so far as one change (a client that comes late starts from
    /// it): a `reset` of what the client read itself when it brought a
    /// follower, else the lines it has not seen (a launch's pane keeps the rows
    /// it wrote before the run's first line).
    fn as_change(&self, reset: bool) -> RunChange {
        RunChange {
            reset,
            lines: self.lines.clone(),
            unreadable: Vec::new(),
            finished: self.ended,
        }
    }

    fn take(&mut self, c: &RunChange) {
        if c.reset {
            self.lines.clear();
            self.skipped = 0;
        }
        self.lines.extend(c.lines.iter().cloned());
        let cap = MAX_TIMELINE_EVENTS;
        if self.lines.len() > cap {
            let over = self.lines.len() - cap;
            self.lines.drain(..over);
            self.skipped += over as u64;
        }
        self.ended |= c.finished;
    }
}

/// One followed run folder.
struct Entry {
    /// Made once the timeline is there (never an open of a missing file).
    follower: Option<Follower>,
    snapshot: Arc<RunSnapshot>,
    clients: Vec<Client>,
    /// A change under the folder was said since the last look.
    dirty: bool,
    /// When `meta.json` was first seen not (yet) readable as JSON.
    unreadable_since: Option<Instant>,
    /// The run's end, once seen: `meta.json` is read no more.
    end: Option<End>,
    /// Its follower is out reading (on the store's thread or a client's).
    reading: bool,
}

/// How a run's end was seen (once).
#[derive(Debug, Clone)]
enum End {
    /// `meta.json` read as JSON: its bytes.
    Meta(Vec<u8>),
    /// `meta.json` refused unread (a link out, a FIFO, a giant): why.
    Refused(String),
    /// `meta.json` never read as JSON in the time it was given.
    Unread,
}

/// One client of a run: a change waits in `outbox` while its channel is full,
/// and nothing more is read for the run meanwhile (a flood is read as fast as
/// the slowest client takes it, one batch at a time, never piled up).
struct Client {
    id: u64,
    tx: SyncSender<Arc<RunChange>>,
    outbox: Option<Arc<RunChange>>,
}

impl Client {
    /// Hand `c` on, or keep it; `false` when the client is gone.
    fn offer(&mut self, c: Arc<RunChange>) -> bool {
        match self.tx.try_send(c) {
            Ok(()) => true,
            Err(TrySendError::Full(c)) => {
                self.outbox = Some(c);
                true
            }
            Err(TrySendError::Disconnected(_)) => false,
        }
    }
}

#[derive(Default)]
struct Runs {
    followed: BTreeMap<PathBuf, Entry>,
    /// The runs that ended lately, the newest last (at most [`KEEP_ENDED`]).
    ended: std::collections::VecDeque<Arc<RunSnapshot>>,
    next: u64,
    /// Something is dirty: the looker looks now.
    woken: bool,
    stop: bool,
    /// The thread that looks is running.
    looking: bool,
}

struct Inner {
    runs: Mutex<Runs>,
    wake: Condvar,
    poll: Duration,
}

/// The store: cheap to clone (every clone is the same store). Its thread runs
/// while a run is followed.
#[derive(Clone)]
pub struct RunStore(Arc<Inner>);

impl std::fmt::Debug for RunStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunStore")
            .field("poll", &self.0.poll)
            .finish_non_exhaustive()
    }
}

impl RunStore {
    /// A store that looks at every run it follows each `poll`, and at once at a
    /// run whose folder a watcher said changed ([`RunStore::touched`]).
    pub fn new(poll: Duration) -> RunStore {
        RunStore(Arc::new(Inner {
            runs: Mutex::new(Runs::default()),
            wake: Condvar::new(),
            poll,
        }))
    }

    /// Follow the run folder `dir` (absolute): every change from now on, the
    /// first being what was read before (when anything was).
    pub fn follow(&self, dir: &Path) -> RunFollow {
        self.follow_from(dir, None)
    }

    /// [`RunStore::follow`], the timeline read on from `follower` (a capped
    /// load stopped there: what it read is not read again) when nobody follows
    /// the run yet.
    pub fn follow_from(&self, dir: &Path, follower: Option<Follower>) -> RunFollow {
        let (tx, rx) = sync_channel(1);
        let read_some = follower.is_some();
        let mut runs = self.lock();
        let id = runs.next;
        runs.next += 1;
        let e = runs
            .followed
            .entry(dir.to_path_buf())
            .or_insert_with(|| Entry {
                follower,
                snapshot: Arc::new(RunSnapshot {
                    dir: dir.to_path_buf(),
                    ..RunSnapshot::default()
                }),
                clients: Vec::new(),
                dirty: true,
                unreadable_since: None,
                end: None,
                reading: false,
            });
        let mut client = Client {
            id,
            tx,
            outbox: None,
        };
        if !e.snapshot.lines.is_empty() || e.snapshot.ended {
            client.offer(Arc::new(e.snapshot.as_change(read_some)));
        }
        e.clients.push(client);
        e.dirty = true;
        runs.woken = true;
        if !runs.looking {
            runs.looking = true;
            runs.stop = false;
            let weak = Arc::downgrade(&self.0);
            std::thread::spawn(move || look_while_followed(&weak));
        }
        drop(runs);
        self.0.wake.notify_all();
        RunFollow {
            rx,
            store: self.clone(),
            dir: dir.to_path_buf(),
            id,
        }
    }

    /// A path under the workspace changed (a watcher's raw event): the run
    /// followed in its folder is looked at now.
    pub fn touched(&self, path: &Path) {
        let mut runs = self.lock();
        if runs.followed.is_empty() {
            return;
        }
        let mut hit = false;
        for d in [Some(path), path.parent()].into_iter().flatten() {
            if let Some(e) = runs.followed.get_mut(d) {
                e.dirty = true;
                hit = true;
            }
        }
        if hit {
            runs.woken = true;
            drop(runs);
            self.0.wake.notify_all();
        }
    }

    /// The run `dir` as the store read it when it ended, when it did lately and
    /// its timeline and `meta.json` are still as they were then (a `stat` of
    /// each): what a reader takes instead of reading them again.
    pub fn ended(&self, dir: &Path) -> Option<Arc<RunSnapshot>> {
        let snap = {
            let runs = self.lock();
            runs.followed
                .get(dir)
                .map(|e| e.snapshot.clone())
                .filter(|s| s.ended)
                .or_else(|| runs.ended.iter().rev().find(|s| s.dir == dir).cloned())
        }?;
        (snap.ended && snap.stamps == stamps(dir)).then_some(snap)
    }

    /// How many runs are followed now.
    pub fn followed(&self) -> usize {
        self.lock().followed.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Runs> {
        self.0.runs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn leave(&self, dir: &Path, id: u64) {
        let mut runs = self.lock();
        if let Some(e) = runs.followed.get_mut(dir) {
            e.clients.retain(|c| c.id != id);
            if e.clients.is_empty() {
                runs.followed.remove(dir);
            }
        }
        if runs.followed.is_empty() {
            runs.stop = true;
            drop(runs);
            self.0.wake.notify_all();
        }
    }
}

/// One client's follow of a run; dropping it ends the follow (the run is read
/// no more once nobody follows it).
#[derive(Debug)]
pub struct RunFollow {
    rx: Receiver<Arc<RunChange>>,
    store: RunStore,
    dir: PathBuf,
    id: u64,
}

impl RunFollow {
    /// The next change within `wait`.
    pub fn next(&self, wait: Duration) -> Result<RunChange, RecvTimeoutError> {
        let c = self.rx.recv_timeout(wait)?;
        self.taken();
        Ok(Arc::try_unwrap(c).unwrap_or_else(|c| (*c).clone()))
    }

    /// The changes read since the last call, without waiting.
    pub fn changes(&self) -> Vec<RunChange> {
        let mut out = Vec::new();
        while let Ok(c) = self.rx.try_recv() {
            self.taken();
            out.push(Arc::try_unwrap(c).unwrap_or_else(|c| (*c).clone()));
        }
        out
    }

    /// Look at the run now, on this thread, and hand what is new to the
    /// clients (this one's comes by [`RunFollow::changes`]): after it, what was
    /// written before the call has been read (one batch at most; call again
    /// while changes come). A client that must say a run's lines in order
    /// with what else it saw (a launch, its runner's output) looks so.
    pub fn look_now(&self) {
        let inner = &self.store.0;
        {
            // a look under way may have begun before what is to be read was written
            let mut runs = inner.runs.lock().unwrap_or_else(PoisonError::into_inner);
            while runs.followed.get(&self.dir).is_some_and(|e| e.reading) {
                runs = inner
                    .wake
                    .wait(runs)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        }
        look(inner, &self.dir);
    }

    /// A change was taken: what waits for room goes on now.
    fn taken(&self) {
        let mut runs = self.store.lock();
        if let Some(e) = runs.followed.get_mut(&self.dir) {
            e.dirty = true;
            runs.woken = true;
            drop(runs);
            self.store.0.wake.notify_all();
        }
    }

    /// The run as read so far.
    pub fn snapshot(&self) -> Arc<RunSnapshot> {
        self.store
            .lock()
            .followed
            .get(&self.dir)
            .map(|e| e.snapshot.clone())
            .unwrap_or_default()
    }

    /// The run folder followed.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for RunFollow {
    fn drop(&mut self) {
        self.store.leave(&self.dir, self.id);
    }
}

/// The store's thread: look at the dirty runs when woken, at all of them each
/// `poll`, until nobody follows a run (or the store is gone).
fn look_while_followed(store: &Weak<Inner>) {
    let mut last_poll = Instant::now();
    loop {
        let Some(inner) = store.upgrade() else { return };
        let due: Vec<PathBuf> = {
            let mut runs = inner.runs.lock().unwrap_or_else(PoisonError::into_inner);
            let left = inner.poll.saturating_sub(last_poll.elapsed());
            if !runs.woken && !runs.stop && !left.is_zero() {
                runs = inner
                    .wake
                    .wait_timeout(runs, left)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
            if runs.stop || runs.followed.is_empty() {
                runs.looking = false;
                return;
            }
            let all = last_poll.elapsed() >= inner.poll;
            if all {
                last_poll = Instant::now();
            }
            runs.woken = false;
            runs.followed
                .iter_mut()
                .filter(|(_, e)| all || e.dirty)
                .map(|(d, e)| {
                    e.dirty = false;
                    d.clone()
                })
                .collect()
        };
        for dir in due {
            look(&inner, &dir);
        }
    }
}

/// Look at the run `dir` once: hand on what waits for room, then read the
/// next batch and hand it to its clients. Its follower is taken out of the
/// entry while it reads (no lock held on the disk), then put back with what
/// was read.
fn look(inner: &Inner, dir: &Path) {
    let taken = {
        let mut runs = inner.runs.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(e) = runs.followed.get_mut(dir) else {
            return;
        };
        if e.reading {
            // another look has its follower: looked at again when it is back
            e.dirty = true;
            return;
        }
        e.clients.retain_mut(|c| match c.outbox.take() {
            Some(waiting) => c.offer(waiting),
            None => true,
        });
        // a client has not taken the last change yet: it is read on when it has
        if e.snapshot.ended || e.clients.iter().any(|c| c.outbox.is_some()) {
            return;
        }
        e.reading = true;
        (e.follower.take(), e.unreadable_since, e.end.clone())
    };
    let (mut follower, mut since, mut end) = taken;
    let first_end = end.is_none();
    let (change, more) = read_step(dir, &mut follower, &mut since, &mut end);
    // what the files are as the run ends, looked at after its last read
    let at_end = change.finished.then(|| stamps(dir));
    let mut runs = inner.runs.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(e) = runs.followed.get_mut(dir) else {
        return;
    };
    e.follower = follower;
    e.unreadable_since = since;
    e.reading = false;
    // a client waiting to look itself goes on
    inner.wake.notify_all();
    let meta = if first_end { end.clone() } else { None };
    e.end = end;
    if !change.is_empty() || meta.is_some() {
        let snap = Arc::make_mut(&mut e.snapshot);
        snap.take(&change);
        match meta {
            Some(End::Meta(bytes)) => snap.meta = Some(bytes),
            Some(End::Refused(why)) => snap.meta_refused = Some(why),
            Some(End::Unread) | None => {}
        }
        if let Some(st) = at_end {
            snap.stamps = st;
        }
    }
    if !change.is_empty() {
        let change = Arc::new(change);
        e.clients.retain_mut(|c| c.offer(change.clone()));
    }
    // more may wait in the timeline: read on at once
    e.dirty |= more;
    let ended = e.snapshot.ended.then(|| e.snapshot.clone());
    runs.woken |= more;
    if let Some(snap) = ended {
        runs.ended.retain(|s| s.dir != dir);
        runs.ended.push_back(snap);
        if runs.ended.len() > KEEP_ENDED {
            runs.ended.pop_front();
        }
    }
}

/// Whether the run has ended, `meta.json` opened only once it is there (a `stat`
/// says so): the run folder's one decision ([`run_folder::state`]) on what is
/// read. With the end, `meta.json`'s bytes (or why it was refused unread).
fn meta_state(dir: &Path) -> (run_folder::RunState, Option<Result<Vec<u8>, String>>) {
    use run_folder::RunState;
    let file = dir.join(run_folder::META);
    match std::fs::symlink_metadata(&file) {
        Err(_) => return (RunState::InProgress, None),
        // created, its content not written yet: nothing to read
        Ok(m) if m.is_file() && m.len() == 0 => return (RunState::MetaUnfinished, None),
        Ok(_) => {}
    }
    match read::read(&file, Some(dir), read::Kind::RunJson) {
        Err(e) if e.is_missing() => (RunState::InProgress, None),
        Err(read::Error::Io(_)) => (RunState::MetaUnfinished, None),
        Err(e) => (RunState::Ended, Some(Err(e.to_string()))),
        Ok(bytes) if serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_ok() => {
            (RunState::Ended, Some(Ok(bytes)))
        }
        Ok(_) => (RunState::MetaUnfinished, None),
    }
}

/// Read the next batch of the run `dir`: its timeline's lines (one batch of
/// the tail engine's, bounded) and, once its `meta.json` reads (`end`, read
/// once), its end when the timeline has nothing more. `true` beside the
/// change when more may wait.
fn read_step(
    dir: &Path,
    follower: &mut Option<Follower>,
    since: &mut Option<Instant>,
    end: &mut Option<End>,
) -> (RunChange, bool) {
    // looked at before reading: whatever the writer put in the timeline before
    // it wrote meta.json is read below
    if end.is_none() {
        let (state, meta) = meta_state(dir);
        match state {
            run_folder::RunState::InProgress => {}
            run_folder::RunState::Ended => {
                *end = Some(match meta {
                    Some(Ok(bytes)) => End::Meta(bytes),
                    Some(Err(why)) => End::Refused(why),
                    None => End::Unread,
                });
            }
            run_folder::RunState::MetaUnfinished => {
                if since.get_or_insert_with(Instant::now).elapsed() >= META_SETTLE {
                    *end = Some(End::Unread);
                }
            }
        }
    }
    let ended = end.is_some();
    let timeline = dir.join(run_folder::TIMELINE);
    if follower.is_none() && std::fs::symlink_metadata(&timeline).is_ok() {
        // the timeline stays in its run folder (a link out is refused)
        *follower = Some(Follower::within(
            timeline,
            Start::Beginning,
            Watch::Off,
            Some(dir.to_path_buf()),
        ));
    }
    let mut evs = follower
        .as_mut()
        .map(Follower::read_available)
        .unwrap_or_default();
    let more = !evs.is_empty();
    let finished = ended && !more;
    if finished {
        // the writer is done: the last line counts even without its newline
        if let Some(f) = follower.as_mut() {
            evs = f.finish();
        }
        *since = None;
    }
    let mut c = RunChange {
        finished,
        ..RunChange::default()
    };
    for ev in evs {
        match ev {
            TailEvent::Line(l) | TailEvent::Incomplete(l) => {
                let lineno = l.lineno;
                let issues = l.issues.iter().map(|i| i.message.clone()).collect();
                c.lines.push(RunLine {
                    lineno,
                    event: l.into_event(),
                    issues,
                });
            }
            TailEvent::Truncated | TailEvent::Replaced | TailEvent::Created => {
                c.reset = true;
                c.lines.clear();
            }
            TailEvent::Deleted => {}
            TailEvent::Unreadable(m) => c.unreadable.push(m),
        }
    }
    (c, more)
}

#[cfg(test)]
mod tests;
