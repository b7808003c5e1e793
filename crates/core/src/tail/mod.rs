//! Following a JSON Lines file while another process writes it: offsets, partial
//! lines, truncation, replacement. No terminal.
//!
//! Three pieces, each usable without the others:
//!
//! - [`Follower`]: a blocking follower of one `timeline.jsonl`. It yields whole
//!   lines only, in order, exactly once, and says when the file is created,
//!   truncated, replaced (atomic rename) or deleted. It sleeps on filesystem
//!   events (notify, raw watcher on the parent folder, no debouncer) and falls
//!   back to a timed re-check where inotify is unavailable or exhausted.
//!   [`spawn`] runs one on a thread and hands batches to a callback.
//! - [`LineIndex`]: offsets of line starts of a file of any size, kept sparse
//!   so a 1 GB timeline costs about a megabyte; reads any window of lines.
//! - [`pretty_line`]: the one-line, escaped rendering of an event that
//!   `testdeck tail` and `testdeck run` print.

mod compact;
mod dir_watch;
mod follow;
mod index;
mod lines;
pub mod live_run;
mod pretty;
pub mod store;

pub use follow::{Follower, Interrupt, TailHandle, spawn};
pub use index::{LineIndex, Refresh};
pub use lines::MAX_LINE;
pub use pretty::{color_wanted, pretty_line};

use crate::workspace::timeline::{LineIssue, TimelineEvent};
use std::sync::OnceLock;
use std::time::Duration;

/// One line of a timeline.
///
/// A line that is already the compact JSON of a clean event (what writers
/// almost always emit) is kept as its text and parsed only when its event is
/// asked for: a burst passes through `testdeck tail --json` as it was written.
/// A clean event in another valid JSON form (spaces, `\u` escapes, as Python's
/// `json.dumps` writes) is rewritten to that compact form in one scan first.
#[derive(Debug, Clone)]
pub struct Line {
    /// 1-based line number in the current version of the file (it restarts at 1
    /// after a truncation or a replacement). Blank lines count but are never yielded.
    pub lineno: u64,
    /// Byte offset of the line's first byte.
    pub offset: u64,
    /// What is wrong with the line, if anything (never fatal).
    pub issues: Vec<LineIssue>,
    body: Body,
}

#[derive(Debug, Clone)]
enum Body {
    /// Parsed when read (a line with something to say, or in another form).
    Parsed(Box<TimelineEvent>),
    /// The compact JSON of the line's event, which has no issue: the line
    /// itself, or the line with its whitespace and escapes rewritten.
    Compact {
        text: Box<str>,
        fields: compact::Fields,
        event: OnceLock<Box<TimelineEvent>>,
    },
}

impl Line {
    /// One line's bytes (without the newline) as the engine reads them; `None`
    /// for a blank line, which is never an event.
    pub fn from_raw(lineno: u64, offset: u64, raw: &[u8]) -> Option<Self> {
        lines::make_line(lineno, offset, raw, 0)
    }

    /// A line whose event is already parsed.
    pub(crate) fn parsed(
        lineno: u64,
        offset: u64,
        event: TimelineEvent,
        issues: Vec<LineIssue>,
    ) -> Self {
        Self {
            lineno,
            offset,
            issues,
            body: Body::Parsed(Box::new(event)),
        }
    }

    /// The event to show; a broken line still gives one (see `timeline::parse_line`).
    pub fn event(&self) -> &TimelineEvent {
        match &self.body {
            Body::Parsed(ev) => ev,
            Body::Compact { text, event, .. } => event.get_or_init(|| Box::new(parse(text))),
        }
    }

    /// The event, taken.
    pub fn into_event(self) -> TimelineEvent {
        match self.body {
            Body::Parsed(ev) => *ev,
            Body::Compact { text, event, .. } => {
                event.into_inner().map_or_else(|| parse(&text), |e| *e)
            }
        }
    }

    /// Write the event as one compact JSON object (no newline): the line as it
    /// was written when it already had that form.
    pub fn write_json(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        match &self.body {
            // the line as written (serde_json's form), with DEL, C1 and bidi
            // controls escaped like every other `--json` output
            Body::Compact { text, .. } => {
                out.write_all(crate::sanitize::json_text(text).as_bytes())
            }
            Body::Parsed(ev) => out.write_all(
                crate::sanitize::to_json(ev, false)
                    .map_err(std::io::Error::from)?
                    .as_bytes(),
            ),
        }
    }

    /// The one-line, escaped rendering of [`pretty_line`].
    pub fn pretty(&self, color: bool) -> String {
        let mut out = String::with_capacity(160);
        self.write_pretty(color, &mut out);
        out
    }

    /// [`Self::pretty`], appended to `out` (no newline).
    pub fn write_pretty(&self, color: bool, out: &mut String) {
        match &self.body {
            Body::Compact { text, fields, .. } => pretty::pretty_fields(text, fields, color, out),
            Body::Parsed(ev) => pretty::pretty_into(ev, color, out),
        }
    }

    pub(crate) fn compact(
        lineno: u64,
        offset: u64,
        text: impl Into<Box<str>>,
        fields: compact::Fields,
    ) -> Self {
        Self {
            lineno,
            offset,
            issues: Vec::new(),
            body: Body::Compact {
                text: text.into(),
                fields,
                event: OnceLock::new(),
            },
        }
    }

    /// Whether the line took the fast path of a burst (kept as its compact
    /// text, parsed only on demand).
    pub fn is_compact(&self) -> bool {
        matches!(self.body, Body::Compact { .. })
    }
}

fn parse(text: &str) -> TimelineEvent {
    crate::workspace::timeline::parse_line(text.as_bytes()).0
}

impl PartialEq for Line {
    fn eq(&self, other: &Self) -> bool {
        self.lineno == other.lineno
            && self.offset == other.offset
            && self.issues == other.issues
            && self.event() == other.event()
    }
}

/// What a [`Follower`] reports.
#[derive(Debug, Clone, PartialEq)]
pub enum TailEvent {
    /// A complete (newline-terminated) line.
    Line(Line),
    /// The last bytes of a version of the file that never got their newline:
    /// yielded when that version ends (truncated, replaced, deleted) or when the
    /// caller says the writer is done ([`Follower::finish`]). Often a whole JSON
    /// object whose writer forgot the final newline, so it is parsed like a line.
    Incomplete(Line),
    /// The file appeared (it did not exist when following started, or after a deletion).
    /// Lines that follow come from its first byte.
    Created,
    /// The file shrank or its first line changed (rewritten in place); lines
    /// that follow come from its first byte.
    Truncated,
    /// Another file was renamed over the path (the atomic-write pattern); what
    /// was left in the old file has been yielded, lines that follow come from
    /// the first byte of the new one.
    Replaced,
    /// The file was deleted; following goes on and waits for it to come back.
    Deleted,
    /// The path exists but cannot be read (permissions, a folder…); retried on
    /// the next change. Yielded once per distinct message.
    Unreadable(String),
}

/// Where following starts in the file as it is when the follower opens it.
/// A file created later (or after a truncation or replacement) is always read
/// from its first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// Every line.
    Beginning,
    /// The last `n` non-blank complete lines, like `tail -n`.
    LastN(u64),
    /// Only lines appended from now on (a line being written is delivered whole).
    End,
}

/// How a [`Follower`] learns that the file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Watch {
    /// Filesystem events on the parent folder (inotify on Linux); a timed
    /// re-check every 100 ms when no watcher can be made.
    Auto,
    /// A timed re-check (size, identity and first-line content) at this interval.
    Poll(Duration),
    /// No watching: [`Follower::next_batch`] only reads what is already there,
    /// then sleeps until its timeout. For one-shot reads.
    Off,
}

/// Interval of the timed re-check used when no filesystem watcher is available.
pub(crate) const FALLBACK_POLL: Duration = Duration::from_millis(100);
