//! Waking a follower when its file may have changed: a raw notify watcher on the
//! deepest existing folder above the file, or a timed re-check where none can be made.

use super::lines::{FileId, file_id};
use super::{FALLBACK_POLL, Watch};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A wake-up flag shared by the watcher thread, the follower and anyone who
/// wants to interrupt a blocked [`super::Follower::next_batch`].
#[derive(Debug, Default)]
pub(crate) struct Signal {
    flags: Mutex<Flags>,
    cv: Condvar,
}

#[derive(Debug, Default)]
struct Flags {
    dirty: bool,
    interrupted: bool,
}

/// Why a wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Woke {
    Changed,
    Interrupted,
    TimedOut,
}

impl Signal {
    /// Change the flags under the lock and, when `notify`, wake every waiter.
    fn set(&self, notify: bool, change: impl FnOnce(&mut Flags)) {
        change(&mut self.flags.lock().unwrap_or_else(PoisonError::into_inner));
        if notify {
            self.cv.notify_all();
        }
    }

    pub(crate) fn wake(&self) {
        self.set(true, |f| f.dirty = true);
    }

    pub(crate) fn interrupt(&self) {
        self.set(true, |f| f.interrupted = true);
    }

    /// Forget pending changes: called just before the file is checked, so a
    /// change that lands during the check wakes the next wait.
    pub(crate) fn clear(&self) {
        self.set(false, |f| f.dirty = false);
    }

    /// Sleep until a change, an interrupt or `until`. An interrupt is consumed.
    pub(crate) fn wait(&self, until: Option<Instant>) -> Woke {
        let mut f = self.flags.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if f.interrupted {
                f.interrupted = false;
                return Woke::Interrupted;
            }
            if f.dirty {
                return Woke::Changed;
            }
            match until {
                None => f = self.cv.wait(f).unwrap_or_else(PoisonError::into_inner),
                Some(t) => {
                    let now = Instant::now();
                    if now >= t {
                        return Woke::TimedOut;
                    }
                    f = self
                        .cv
                        .wait_timeout(f, t - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
            }
        }
    }
}

/// How the follower is kept informed.
pub(crate) struct DirWatch {
    target: PathBuf,
    mode: Mode,
    watcher: Option<RecommendedWatcher>,
    /// The folder watched now, and which folder it was (a folder deleted and
    /// made again needs a new watch).
    watched: Option<(PathBuf, Option<FileId>)>,
    signal: Arc<Signal>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Events,
    Poll(Duration),
    Off,
}

impl DirWatch {
    /// `target` must be absolute, so event paths compare with it.
    pub(crate) fn new(target: PathBuf, watch: Watch, signal: Arc<Signal>) -> Self {
        let mut me = Self {
            target,
            mode: Mode::Off,
            watcher: None,
            watched: None,
            signal,
        };
        match watch {
            Watch::Off => {}
            Watch::Poll(every) => me.mode = Mode::Poll(every),
            Watch::Auto => {
                let target = me.target.clone();
                let signal = Arc::clone(&me.signal);
                // No debouncer: every raw event that may concern the file wakes the
                // follower at once; the follower reads until it has caught up, so a
                // storm of events costs one read each, never a lost or late line.
                let handler = move |res: notify::Result<notify::Event>| {
                    let relevant = match &res {
                        Err(_) => true,
                        Ok(ev) => {
                            ev.need_rescan() || ev.paths.iter().any(|p| target.starts_with(p))
                        }
                    };
                    if relevant {
                        signal.wake();
                    }
                };
                match crate::workspace::walk::watcher(handler) {
                    Ok(w) => {
                        me.watcher = Some(w);
                        me.mode = Mode::Events;
                    }
                    // inotify instances exhausted or unsupported: check on a timer
                    Err(_) => me.mode = Mode::Poll(FALLBACK_POLL),
                }
                me.ensure();
            }
        }
        me
    }

    /// How long a wait may last before the file must be checked anyway.
    pub(crate) fn poll_interval(&self) -> Option<Duration> {
        match self.mode {
            Mode::Poll(d) => Some(d),
            Mode::Events | Mode::Off => None,
        }
    }

    /// Keep the watch on the deepest existing folder above the file: its parent
    /// normally, an ancestor while the parent does not exist yet. Cheap (one
    /// `stat`) when nothing changed.
    pub(crate) fn ensure(&mut self) {
        if self.mode != Mode::Events {
            return;
        }
        let Some(want) = deepest_existing_parent(&self.target) else {
            return;
        };
        let id = std::fs::metadata(&want).ok().map(|m| file_id(&m));
        if self
            .watched
            .as_ref()
            .is_some_and(|(p, i)| *p == want && *i == id)
        {
            return;
        }
        let Some(w) = self.watcher.as_mut() else {
            return;
        };
        if let Some((old, _)) = self.watched.take() {
            let _ = w.unwatch(&old);
        }
        match w.watch(&want, RecursiveMode::NonRecursive) {
            Ok(()) => self.watched = Some((want, id)),
            // the folder vanished between looking and watching: the wake below retries
            Err(e) if matches!(e.kind, notify::ErrorKind::PathNotFound) => {}
            Err(_) => {
                // inotify watches exhausted (ENOSPC) or refused: fall back to the
                // timed re-check rather than miss changes
                self.watcher = None;
                self.mode = Mode::Poll(FALLBACK_POLL);
            }
        }
        // something may have changed between looking and watching: check once more
        self.signal.wake();
    }
}

fn deepest_existing_parent(target: &Path) -> Option<PathBuf> {
    let mut dir = target.parent()?;
    loop {
        if dir.is_dir() {
            return Some(dir.to_path_buf());
        }
        dir = dir.parent()?;
    }
}
