//! The follower: reads a growing file line by line, exactly once and in order,
//! across partial writes, truncation, replacement, deletion and late creation.

use super::dir_watch::{DirWatch, Signal, Woke};
use super::lines::{
    CHUNK, FileId, Splitter, count_newlines, file_id, locate_last_lines, make_line, read_at,
    read_full_at,
};
use super::{Start, TailEvent, Watch};
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// At most this many events in one batch, so a burst or a huge file streams
/// through in bounded memory.
const MAX_BATCH_EVENTS: usize = 8192;
/// At most this many bytes read for one batch.
const MAX_BATCH_BYTES: u64 = 8 << 20;
/// How many first bytes of the file are remembered to notice a rewrite in place.
const HEAD_LEN: usize = 256;
/// How many last bytes read are remembered to notice a rewrite in place that kept
/// the first bytes and the size: a rewrite seen half-written is read again.
const TAIL_LEN: usize = 64;

/// Follows one file. Blocking; use it from a thread or tokio's `spawn_blocking`,
/// or let [`spawn`] run it.
///
/// ```no_run
/// use testdeck_core::tail::{Follower, Start, TailEvent};
/// let mut f = Follower::open("tests/logs/a/b/c/case/20260315-101530-112/timeline.jsonl", Start::Beginning);
/// loop {
///     for ev in f.next_batch(None) {
///         if let TailEvent::Line(line) = ev {
///             println!("{} {}", line.lineno, line.event().name);
///         }
///     }
/// }
/// ```
pub struct Follower {
    path: PathBuf,
    /// The folder the file must stay in (a run folder): a link out is refused.
    within: Option<PathBuf>,
    cur: Option<Version>,
    /// `start` applies to the file that exists when following starts; any later
    /// version is read from its first byte.
    first: Option<Start>,
    /// The last `Unreadable` message yielded, so it is said once.
    unreadable: Option<String>,
    signal: Arc<Signal>,
    watch: DirWatch,
    buf: Vec<u8>,
}

/// One version of the file: what the path named when it was opened.
struct Version {
    file: File,
    id: FileId,
    /// Offset of the next byte to read.
    read_to: u64,
    /// Number the next line gets.
    lineno: u64,
    split: Splitter,
    /// The first bytes read, to notice a rewrite in place that did not shrink the file.
    head: Vec<u8>,
    /// The last bytes read (those just before `read_to`), to notice a rewrite in
    /// place that changed neither the first bytes nor the size.
    tail: Vec<u8>,
    /// Where to start, until the first read places the version.
    place: Option<Start>,
    /// The lines of the chunk being parsed, kept to reuse their memory.
    arena: Vec<u8>,
    spans: Vec<Span>,
}

/// A line in the arena: `(lineno, offset, bytes, dropped)`.
type Span = (u64, u64, std::ops::Range<usize>, u64);

/// Below this many lines a chunk is parsed on the calling thread.
const PARALLEL_FROM: usize = 512;

/// Parse the lines of one chunk, in order. A burst is parsed on all cores
/// (rayon keeps the order of the results); a few lines stay on this thread.
fn parse_spans(arena: &[u8], spans: &[Span], out: &mut Vec<TailEvent>) {
    let one = |(lineno, offset, range, dropped): &Span| {
        make_line(*lineno, *offset, &arena[range.clone()], *dropped)
    };
    out.reserve(spans.len());
    if spans.len() < PARALLEL_FROM {
        out.extend(spans.iter().filter_map(one).map(TailEvent::Line));
    } else {
        use rayon::prelude::*;
        // ordered: rayon appends the pieces in the order of the input
        out.par_extend(spans.par_iter().filter_map(one).map(TailEvent::Line));
    }
}

/// Wakes a [`Follower`] blocked in [`Follower::next_batch`] from another thread;
/// that call then returns (possibly with no events).
#[derive(Clone)]
pub struct Interrupt(Arc<Signal>);

impl Interrupt {
    /// Wake the follower: its blocked `next_batch` returns.
    pub fn interrupt(&self) {
        self.0.interrupt();
    }
}

impl std::fmt::Debug for Follower {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Follower")
            .field("path", &self.path)
            .field("open", &self.cur.is_some())
            .finish_non_exhaustive()
    }
}

impl Follower {
    /// Follow `path`, watching it with filesystem events ([`Watch::Auto`]).
    /// Never fails: a missing file is waited for, an unreadable one reported
    /// as [`TailEvent::Unreadable`] and retried.
    pub fn open(path: impl Into<PathBuf>, start: Start) -> Self {
        Self::with_watch(path, start, Watch::Auto)
    }

    /// Follow `path` with the given way of noticing changes.
    pub fn with_watch(path: impl Into<PathBuf>, start: Start, watch: Watch) -> Self {
        Self::within(path, start, watch, None)
    }

    /// [`Self::with_watch`] for a file that must stay inside the folder
    /// `within` (a run's timeline in its run folder): a symlink that leads out
    /// is refused as [`TailEvent::Unreadable`], like a FIFO or a device.
    pub fn within(
        path: impl Into<PathBuf>,
        start: Start,
        watch: Watch,
        within: Option<PathBuf>,
    ) -> Self {
        let path: PathBuf = path.into();
        // event paths are absolute; comparing needs ours absolute too
        let path = std::path::absolute(&path).unwrap_or(path);
        let signal = Arc::new(Signal::default());
        // watch before the first look, so a file created in between is seen
        let watch = DirWatch::new(path.clone(), watch, Arc::clone(&signal));
        let mut me = Self {
            path,
            within,
            cur: None,
            first: Some(start),
            unreadable: None,
            signal,
            watch,
            buf: vec![0; CHUNK],
        };
        me.try_open(&mut Vec::new());
        // an unreadable file is said on the first batch instead
        me.unreadable = None;
        if me.cur.is_none() {
            // the file is not there: whatever comes later is new, read it all
            me.first = None;
        }
        me
    }

    /// The absolute path followed.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether a file is open (false while waiting for it to appear).
    pub fn is_open(&self) -> bool {
        self.cur.is_some()
    }

    /// The line being written, not yet ended by a newline: `(lineno, offset, bytes)`.
    pub fn partial(&self) -> Option<(u64, u64, &[u8])> {
        let v = self.cur.as_ref()?;
        v.split.partial().map(|(off, b)| (v.lineno, off, b))
    }

    /// A handle that makes a blocked [`Self::next_batch`] return early.
    pub fn interrupt_handle(&self) -> Interrupt {
        Interrupt(Arc::clone(&self.signal))
    }

    /// The next events, in order. Returns as soon as there is at least one; waits
    /// for the file to change when there is none, up to `timeout` (`None`: until
    /// there are events or [`Interrupt::interrupt`] is called). An empty result
    /// means the timeout passed or the call was interrupted. At most a few
    /// thousand events come at once; the rest come on the next call, without waiting.
    pub fn next_batch(&mut self, timeout: Option<Duration>) -> Vec<TailEvent> {
        let until = timeout.map(|t| Instant::now() + t);
        loop {
            self.signal.clear();
            self.watch.ensure();
            let out = self.read_available();
            if !out.is_empty() {
                return out;
            }
            let wait_until = match (self.watch.poll_interval(), until) {
                (Some(p), Some(u)) => Some(u.min(Instant::now() + p)),
                (Some(p), None) => Some(Instant::now() + p),
                (None, u) => u,
            };
            match self.signal.wait(wait_until) {
                Woke::Interrupted => return self.read_available(),
                Woke::Changed => {}
                Woke::TimedOut => {
                    if until.is_some_and(|u| Instant::now() >= u) {
                        return self.read_available();
                    }
                }
            }
        }
    }

    /// Read what is there now, without waiting: at most one batch. An empty
    /// result means the reader has caught up with the file.
    pub fn read_available(&mut self) -> Vec<TailEvent> {
        let mut out = Vec::new();
        let mut budget = MAX_BATCH_BYTES;
        // a few transitions may chain (replaced, then the new file read); the bound
        // only guards against a path that flips identity on every look
        let mut transitions = 0;
        while transitions < 4 {
            if self.cur.is_none() && !self.try_open(&mut out) {
                break;
            }
            match self.step(&mut out, &mut budget) {
                // a budget spent on blank lines only: empty must mean caught up
                Step::Full if out.is_empty() => budget = MAX_BATCH_BYTES,
                Step::Caught | Step::Full => break,
                Step::Again => transitions += 1,
            }
        }
        out
    }

    /// Say the writer is done: read to the end of the file and yield the last
    /// line even without its newline ([`TailEvent::Incomplete`]). Reads without
    /// a batch limit, so catch up with [`Self::next_batch`] first on huge files.
    /// Following may go on afterwards; bytes after the taken partial line start
    /// a new line.
    pub fn finish(&mut self) -> Vec<TailEvent> {
        let mut out = Vec::new();
        loop {
            let more = self.read_available();
            if more.is_empty() {
                break;
            }
            out.extend(more);
        }
        if let Some(v) = self.cur.as_mut() {
            v.flush_partial(&mut out);
        }
        out
    }

    /// Open the path if it names a readable file. Returns whether a version is open.
    fn try_open(&mut self, out: &mut Vec<TailEvent>) -> bool {
        // the one bounded reader's open: never blocks on a FIFO, refuses devices,
        // folders and (with `within`) links out
        use crate::workspace::read;
        let opened = match read::open(&self.path, self.within.as_deref()) {
            Ok((f, m)) => Ok((f, file_id(&m))),
            Err(read::Error::Missing(e)) => Err(e),
            Err(e) => Err(io::Error::other(e.to_string())),
        };
        match opened {
            Ok((file, id)) => {
                self.unreadable = None;
                let place = self.first.take();
                if place.is_none() {
                    out.push(TailEvent::Created);
                }
                self.cur = Some(Version {
                    file,
                    id,
                    read_to: 0,
                    lineno: 1,
                    split: Splitter::new(0),
                    head: Vec::new(),
                    tail: Vec::new(),
                    place,
                    arena: Vec::new(),
                    spans: Vec::new(),
                });
                true
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => false,
            Err(e) => {
                let msg = e.to_string();
                if self.unreadable.as_deref() != Some(msg.as_str()) {
                    self.unreadable = Some(msg.clone());
                    out.push(TailEvent::Unreadable(msg));
                }
                false
            }
        }
    }

    /// Check the open version against the path, then read.
    fn step(&mut self, out: &mut Vec<TailEvent>, budget: &mut u64) -> Step {
        let Some(v) = self.cur.as_mut() else {
            return Step::Caught;
        };
        if let Some(start) = v.place.take() {
            if let Err(e) = v.place_at(start, &mut self.buf) {
                out.push(TailEvent::Unreadable(e.to_string()));
            }
        }
        let now = std::fs::metadata(&self.path);
        let gone = match &now {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Some(TailEvent::Deleted),
            Ok(m) if file_id(m) != v.id => Some(TailEvent::Replaced),
            _ => None,
        };
        if let Some(why) = gone {
            // what the writer put in the old file before it went is still ours to give
            match v.read(out, budget, &mut self.buf) {
                Ok(true) | Err(_) => {}
                Ok(false) => return Step::Full,
            }
            v.flush_partial(out);
            out.push(why.clone());
            self.cur = None;
            if why == TailEvent::Deleted {
                return Step::Caught;
            }
            // Replaced: open the new file now, without a second `Created`
            if self.try_open(out) {
                if let Some(TailEvent::Created) = out.last() {
                    out.pop();
                }
            }
            return Step::Again;
        }
        if let Ok(m) = &now {
            if m.len() < v.read_to
                || !v.head_matches(&mut self.buf)
                || !v.tail_matches(&mut self.buf)
            {
                v.flush_partial(out);
                out.push(TailEvent::Truncated);
                v.restart();
            }
        }
        match v.read(out, budget, &mut self.buf) {
            Ok(true) => Step::Caught,
            Ok(false) => Step::Full,
            Err(e) => {
                let msg = e.to_string();
                if self.unreadable.as_deref() != Some(msg.as_str()) {
                    self.unreadable = Some(msg.clone());
                    out.push(TailEvent::Unreadable(msg));
                }
                Step::Caught
            }
        }
    }
}

/// Keep the last [`TAIL_LEN`] bytes of what `tail` held followed by `chunk`.
fn remember_tail(tail: &mut Vec<u8>, chunk: &[u8]) {
    if chunk.len() >= TAIL_LEN {
        tail.clear();
        tail.extend_from_slice(&chunk[chunk.len() - TAIL_LEN..]);
    } else {
        tail.extend_from_slice(chunk);
        let extra = tail.len().saturating_sub(TAIL_LEN);
        tail.drain(..extra);
    }
}

enum Step {
    /// Read up to the end of the file.
    Caught,
    /// The batch is full; more is there.
    Full,
    /// The file changed identity; look again.
    Again,
}

impl Version {
    fn restart(&mut self) {
        self.read_to = 0;
        self.lineno = 1;
        self.split.reset(0);
        self.head.clear();
        self.tail.clear();
    }

    /// Move to where `start` says, in the file as it is now.
    fn place_at(&mut self, start: Start, buf: &mut [u8]) -> io::Result<()> {
        if start == Start::Beginning {
            return Ok(());
        }
        let size = self.file.metadata()?.len();
        // a line still being written is delivered whole later: start before it
        let end = last_newline_end(&self.file, size, buf)?;
        let (at, lineno) = match start {
            Start::LastN(n) => locate_last_lines(&self.file, end, n)?,
            Start::End | Start::Beginning => (end, count_newlines(&self.file, 0, end, buf)? + 1),
        };
        self.read_to = at;
        self.lineno = lineno;
        self.split.reset(at);
        let head_len = HEAD_LEN.min(at as usize);
        let mut head = vec![0; head_len];
        let got = read_full_at(&self.file, &mut head, 0)?;
        head.truncate(got);
        self.head = head;
        let tail_len = TAIL_LEN.min(at as usize);
        let mut tail = vec![0; tail_len];
        let got = read_full_at(&self.file, &mut tail, at - tail_len as u64)?;
        tail.truncate(got);
        self.tail = tail;
        Ok(())
    }

    /// Whether the last bytes read are still there as they were read.
    fn tail_matches(&self, buf: &mut [u8]) -> bool {
        let n = self.tail.len();
        if n == 0 {
            return true;
        }
        match read_full_at(&self.file, &mut buf[..n], self.read_to - n as u64) {
            Ok(got) => got == n && buf[..n] == self.tail[..],
            Err(_) => true,
        }
    }

    /// Whether the first bytes are still the ones read before.
    fn head_matches(&self, buf: &mut [u8]) -> bool {
        if self.head.is_empty() {
            return true;
        }
        let n = self.head.len();
        match read_full_at(&self.file, &mut buf[..n], 0) {
            Ok(got) => got == n && buf[..n] == self.head[..],
            Err(_) => true,
        }
    }

    /// Read and split until the end of the file (true) or the budget is spent (false).
    fn read(
        &mut self,
        out: &mut Vec<TailEvent>,
        budget: &mut u64,
        buf: &mut [u8],
    ) -> io::Result<bool> {
        loop {
            if *budget == 0 || out.len() >= MAX_BATCH_EVENTS {
                return Ok(false);
            }
            let want = buf.len().min(*budget as usize);
            let n = read_at(&self.file, &mut buf[..want], self.read_to)?;
            if n == 0 {
                return Ok(true);
            }
            let chunk = &buf[..n];
            if self.head.len() < HEAD_LEN && self.read_to < HEAD_LEN as u64 {
                let from = self.head.len() as u64;
                if from >= self.read_to {
                    let skip = (from - self.read_to) as usize;
                    let take = (HEAD_LEN - self.head.len()).min(n.saturating_sub(skip));
                    self.head.extend_from_slice(&chunk[skip..skip + take]);
                }
            }
            let lineno = &mut self.lineno;
            let (arena, spans) = (&mut self.arena, &mut self.spans);
            self.split.feed(chunk, |offset, raw, dropped| {
                let from = arena.len();
                arena.extend_from_slice(raw);
                spans.push((*lineno, offset, from..arena.len(), dropped));
                *lineno += 1;
            });
            parse_spans(&self.arena, &self.spans, out);
            self.arena.clear();
            self.spans.clear();
            if self.arena.capacity() > 4 * CHUNK {
                // a giant line went through: do not keep its memory
                self.arena = Vec::new();
            }
            self.read_to += n as u64;
            remember_tail(&mut self.tail, chunk);
            *budget = budget.saturating_sub(n as u64);
        }
    }

    /// Yield the unfinished last line, if any, as `Incomplete`.
    fn flush_partial(&mut self, out: &mut Vec<TailEvent>) {
        if let Some((offset, raw, dropped)) = self.split.take_partial() {
            if let Some(line) = make_line(self.lineno, offset, &raw, dropped) {
                out.push(TailEvent::Incomplete(line));
            }
            self.lineno += 1;
        }
    }
}

/// The offset just after the last newline in the first `size` bytes (0 if none).
fn last_newline_end(file: &File, size: u64, buf: &mut [u8]) -> io::Result<u64> {
    let mut hi = size;
    while hi > 0 {
        let lo = hi.saturating_sub(buf.len() as u64);
        let len = (hi - lo) as usize;
        let got = read_full_at(file, &mut buf[..len], lo)?;
        if let Some(i) = buf[..got].iter().rposition(|&b| b == b'\n') {
            return Ok(lo + i as u64 + 1);
        }
        hi = lo;
    }
    Ok(0)
}

/// A follower running on its own thread; see [`spawn`]. Dropping it stops the
/// thread (without waiting for the writer) and joins it.
pub struct TailHandle {
    signal: Arc<Signal>,
    stop: Arc<AtomicU8>,
    thread: Option<JoinHandle<()>>,
}

const RUN: u8 = 0;
const STOP_NOW: u8 = 1;
const STOP_AFTER_FINISH: u8 = 2;

impl TailHandle {
    /// Stop following now and wait for the thread.
    pub fn stop(mut self) {
        self.end(STOP_NOW);
    }

    /// The writer is done: deliver what is left in the file, the unfinished last
    /// line included ([`TailEvent::Incomplete`]), then stop and wait for the thread.
    pub fn finish(mut self) {
        self.end(STOP_AFTER_FINISH);
    }

    /// Whether the thread has ended (the sink asked to stop).
    pub(crate) fn is_finished(&self) -> bool {
        self.thread.as_ref().is_none_or(JoinHandle::is_finished)
    }

    fn end(&mut self, how: u8) {
        let _ = self
            .stop
            .compare_exchange(RUN, how, Ordering::SeqCst, Ordering::SeqCst);
        self.signal.interrupt();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for TailHandle {
    fn drop(&mut self) {
        self.end(STOP_NOW);
    }
}

impl std::fmt::Debug for TailHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TailHandle")
            .field("finished", &self.is_finished())
            .finish_non_exhaustive()
    }
}

/// Follow `path` on a new thread, handing each batch of events, in order, to
/// `sink`. `sink` returns `false` to stop (for example when its channel closed).
///
/// ```no_run
/// use testdeck_core::tail::{spawn, Start, Watch};
/// let (tx, rx) = std::sync::mpsc::channel();
/// let handle = spawn("run/timeline.jsonl", Start::Beginning, Watch::Auto, move |batch| {
///     tx.send(batch).is_ok()
/// })?;
/// // … later, when the runner has exited:
/// handle.finish();
/// for batch in rx.try_iter() { /* … */ }
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn spawn<F>(
    path: impl Into<PathBuf>,
    start: Start,
    watch: Watch,
    mut sink: F,
) -> io::Result<TailHandle>
where
    F: FnMut(Vec<TailEvent>) -> bool + Send + 'static,
{
    let mut follower = Follower::with_watch(path, start, watch);
    let signal = Arc::clone(&follower.signal);
    let stop = Arc::new(AtomicU8::new(RUN));
    let stop_seen = Arc::clone(&stop);
    let thread = std::thread::Builder::new()
        .name("testdeck-tail".into())
        .spawn(move || {
            loop {
                let batch = follower.next_batch(None);
                match stop_seen.load(Ordering::SeqCst) {
                    STOP_NOW => return,
                    STOP_AFTER_FINISH => {
                        let mut batch = batch;
                        batch.extend(follower.finish());
                        if !batch.is_empty() {
                            sink(batch);
                        }
                        return;
                    }
                    _ => {}
                }
                if !batch.is_empty() && !sink(batch) {
                    return;
                }
            }
        })?;
    Ok(TailHandle {
        signal,
        stop,
        thread: Some(thread),
    })
}

#[cfg(test)]
/// Convenience for tests and one-shot readers: every event of the file as it is now,
/// the unfinished last line included.
pub(crate) fn read_all(path: &Path) -> Vec<TailEvent> {
    Follower::with_watch(path, Start::Beginning, Watch::Off).finish()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::io::Write;

    fn names(evs: &[TailEvent]) -> Vec<String> {
        evs.iter()
            .map(|e| match e {
                TailEvent::Line(l) => format!("{}:{}", l.lineno, l.event().name),
                TailEvent::Incomplete(l) => format!("incomplete {}:{}", l.lineno, l.event().name),
                other => format!("{other:?}"),
            })
            .collect()
    }

    fn ev(name: &str) -> String {
        format!("{{\"type\":\"step\",\"name\":\"{name}\",\"status\":\"ok\",\"message\":\"m\"}}\n")
    }

    #[test]
    fn starts_where_asked() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(crate::workspace::run_folder::TIMELINE);
        let mut text = String::new();
        for i in 1..=5 {
            text.push_str(&ev(&format!("e{i}")));
        }
        text.push_str("\n{\"name\":\"half");
        std::fs::write(&p, &text).unwrap();
        let last = Follower::with_watch(&p, Start::LastN(2), Watch::Off).finish();
        assert_eq!(names(&last), ["4:e4", "5:e5", "incomplete 7:"]);
        let mut end = Follower::with_watch(&p, Start::End, Watch::Off);
        assert!(end.read_available().is_empty());
        let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(b"\"}\n").unwrap();
        assert_eq!(names(&end.read_available()), ["7:half"]);
        assert_eq!(names(&read_all(&p))[..2], ["1:e1", "2:e2"]);
    }

    #[test]
    fn empty_only_when_caught_up() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(crate::workspace::run_folder::TIMELINE);
        // more blank bytes than one batch reads, then an event
        let blank = " ".repeat(1000) + "\n";
        let mut text = blank.repeat((MAX_BATCH_BYTES as usize) / blank.len() + 10);
        text.push_str(&ev("after"));
        std::fs::write(&p, &text).unwrap();
        let mut f = Follower::with_watch(&p, Start::Beginning, Watch::Off);
        let got = names(&f.read_available());
        assert_eq!(got.len(), 1);
        assert!(got[0].ends_with(":after"), "{got:?}");
    }

    #[test]
    fn truncation_and_rewrite_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(crate::workspace::run_folder::TIMELINE);
        std::fs::write(&p, ev("a") + &ev("b")).unwrap();
        let mut f = Follower::with_watch(&p, Start::Beginning, Watch::Off);
        assert_eq!(names(&f.read_available()), ["1:a", "2:b"]);
        std::fs::write(&p, ev("c")).unwrap();
        assert_eq!(names(&f.read_available()), ["Truncated", "1:c"]);
        // same size, other first line
        std::fs::write(&p, ev("d")).unwrap();
        assert_eq!(names(&f.read_available()), ["Truncated", "1:d"]);
        // same size, same first bytes, another last line: a rewrite seen half
        // written (its start new, its end old) is read again when the end lands
        let long_head = ev(&"h".repeat(HEAD_LEN));
        std::fs::write(&p, long_head.clone() + &ev("e")).unwrap();
        assert_eq!(names(&f.read_available()).len(), 3);
        std::fs::write(&p, long_head + &ev("f")).unwrap();
        let got = names(&f.read_available());
        assert_eq!(
            got.first().map(String::as_str),
            Some("Truncated"),
            "{got:?}"
        );
        assert!(got.last().is_some_and(|l| l == "2:f"), "{got:?}");
    }
}
