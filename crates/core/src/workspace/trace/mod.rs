//! Playwright's `trace.zip` read into a model: actions, console, page errors,
//! network, the test's output and the screencast frames.
//!
//! The zip is read in memory through the one bounded reader and never
//! extracted; its JSON Lines entries (`test.trace`, `N-trace.trace`,
//! `N-trace.network`, `N-trace.stacks`) are inflated under [`Limits`]. What
//! cannot be read is a located problem, never a panic, a hang or an OOM. The
//! strings are kept raw (colour codes and all): whoever draws them sanitizes.
#![warn(missing_docs)]

mod archive;
mod parse;
#[cfg(test)]
mod tests;

use crate::problem::Problem;
use crate::workspace::read;
use archive::{Archive, Stop};
use std::path::Path;
use std::sync::Arc;

/// The newest trace format version this reader knows (@playwright/test 1.65
/// writes 10). Other versions are read as far as they go, with a warning.
pub const KNOWN_VERSION: u64 = 10;

/// The bounds a trace is read within.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Entries in the archive (the central directory is refused past it).
    pub entries: usize,
    /// Uncompressed bytes of one JSON Lines entry.
    pub entry: u64,
    /// Uncompressed bytes of every entry read, together.
    pub total: u64,
    /// Uncompressed bytes of one screencast frame.
    pub frame: u64,
    /// Uncompressed / compressed size over which an entry is a bomb …
    pub ratio: u64,
    /// … once it has inflated past this many bytes (small entries may compress
    /// far better than any real content and harm no one).
    pub ratio_floor: u64,
    /// One JSON line; a longer one is skipped (a DOM snapshot may be, and it is
    /// not read anyway).
    pub line: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            entries: 50_000,
            entry: 256 << 20,
            total: 512 << 20,
            frame: read::Kind::Image.cap(),
            // deflate reaches about 1030:1 at most; JSON Lines of a real trace
            // compress 5 to 40 times
            ratio: 200,
            ratio_floor: 1 << 20,
            line: 8 << 20,
        }
    }
}

/// A trace read into its parts. Times are Playwright's monotonic milliseconds
/// (one clock for actions, frames, console and network).
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// The `version` of the first `context-options` line, when there is one.
    pub version: Option<u64>,
    /// `playwrightVersion` of the first `context-options` line.
    pub playwright_version: Option<String>,
    /// The browser of the first library context (`""` when none is named).
    pub browser: Option<String>,
    /// The test's title (the library context's `title`).
    pub title: Option<String>,
    /// The action tree: test steps, then the API calls inside them, by start time.
    pub actions: Vec<Action>,
    /// Console messages of the pages, in trace order.
    pub console: Vec<Console>,
    /// Page errors and the test's own errors, in trace order.
    pub errors: Vec<TraceError>,
    /// Network requests of every context, by start time.
    pub network: Vec<Request>,
    /// The test's stdout and stderr, in order.
    pub output: Vec<Output>,
    /// Screencast frames, by timestamp.
    pub frames: Vec<Frame>,
    /// What could not be read (entries over a bound, lines that are not JSON,
    /// an unknown version): the rest is read.
    pub problems: Vec<Problem>,
    archive: Option<Archive>,
    file: String,
    limits: Limits,
}

/// One action: a test step, hook, fixture or expect of the runner, or an API
/// call of the library, with the actions inside it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Action {
    /// The trace's `callId`.
    pub call_id: String,
    /// `title` (the runner's), else `Class.method` of a library call.
    pub title: String,
    /// `subtitle` (the locator or URL the runner shows after the title).
    pub subtitle: Option<String>,
    /// `class` (`Test` for the runner's steps, `Frame`, `Page` … for API calls).
    pub class: String,
    /// `method` (`test.step`, `expect`, `hook`, `pw:api`, `click` …).
    pub method: String,
    /// Start, monotonic ms.
    pub start_ms: f64,
    /// End, monotonic ms; `None` when the trace never says it ended.
    pub end_ms: Option<f64>,
    /// Its error, when it failed.
    pub error: Option<ErrorInfo>,
    /// Where the test called it: the first frame of its stack.
    pub location: Option<Location>,
    /// Its call log (`log` lines), in order.
    pub log: Vec<String>,
    /// The actions inside it, by start time.
    pub children: Vec<Action>,
}

impl Action {
    /// How long it took, when it ended.
    pub fn duration_ms(&self) -> Option<f64> {
        self.end_ms.map(|e| (e - self.start_ms).max(0.0))
    }

    /// Whether it or an action inside it failed.
    pub fn failed(&self) -> bool {
        self.error.is_some() || self.children.iter().any(Action::failed)
    }
}

/// An error's message and stack, raw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorInfo {
    /// `message` (colour codes kept).
    pub message: String,
    /// `stack`, when written.
    pub stack: Option<String>,
}

/// A source position (1-based line and column, as the trace writes them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
    /// The file as the trace names it (often absolute, on the machine that ran).
    pub file: String,
    /// Line.
    pub line: u32,
    /// Column.
    pub column: u32,
}

/// One console message.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Console {
    /// `messageType`: `log`, `error`, `warning`, `info`, `debug` …
    pub kind: String,
    /// The text.
    pub text: String,
    /// `url:line:column` of the page's script, when known.
    pub location: Option<String>,
    /// When, monotonic ms.
    pub time_ms: Option<f64>,
}

/// Where an error of [`Trace::errors`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorSource {
    /// An uncaught error in a page (`event` `pageError`).
    Page,
    /// The test's own error (`error` in `test.trace`).
    Test,
}

/// A page error or a test error.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceError {
    /// Who threw it.
    pub source: ErrorSource,
    /// Its message and stack.
    pub error: ErrorInfo,
    /// When, monotonic ms.
    pub time_ms: Option<f64>,
}

/// One network request (a `resource-snapshot`, a HAR entry).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Request {
    /// `request.method`.
    pub method: String,
    /// `request.url`.
    pub url: String,
    /// `response.status`; `None` when no response came.
    pub status: Option<u16>,
    /// `time`: the whole exchange, ms.
    pub duration_ms: Option<f64>,
    /// The response body's size in bytes, when known.
    pub size: Option<u64>,
    /// `_failureText`, when it failed.
    pub failure: Option<String>,
    /// Start, monotonic ms (`_monotonicTime`).
    pub start_ms: Option<f64>,
}

/// Which stream a line of [`Trace::output`] went to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// stdout.
    Stdout,
    /// stderr.
    Stderr,
}

/// A chunk of the test's stdout or stderr.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// The stream.
    pub stream: Stream,
    /// The text; a binary chunk (`base64`) is said as such, not decoded.
    pub text: String,
    /// When, monotonic ms.
    pub time_ms: Option<f64>,
}

/// One screencast frame (a JPEG in the archive).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frame {
    /// The page it shows.
    pub page_id: String,
    /// Its entry: `file`, else `resources/<sha1>`.
    pub entry: String,
    /// When, monotonic ms.
    pub timestamp_ms: f64,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

impl Trace {
    /// Read the trace at `path` through the bounded reader: a regular file of at
    /// most [`read::Kind::Trace`]'s cap, inside `within` when given (a run
    /// folder; `None` for a path the person named). `rel` is the name its
    /// problems carry. `Err`: nothing of it could be read.
    pub fn read(path: &Path, within: Option<&Path>, rel: &str) -> Result<Trace, Problem> {
        let bytes =
            read::read(path, within, read::Kind::Trace).map_err(|e| e.problem(rel, "trace"))?;
        Trace::from_bytes(bytes.into(), rel, Limits::default())
    }

    /// Read a trace held in memory (the bytes of `trace.zip`) within `limits`.
    pub fn from_bytes(bytes: Arc<[u8]>, rel: &str, limits: Limits) -> Result<Trace, Problem> {
        let (archive, refused) = Archive::open(bytes, &limits)
            .map_err(|m| Problem::error(rel, "trace-unreadable", m))?;
        let mut t = Trace {
            file: rel.to_owned(),
            limits,
            ..Trace::default()
        };
        for name in refused {
            t.problems.push(Problem::warning(
                rel,
                "trace-entry-name",
                format!(
                    "entry {:?} is absolute or climbs out with `..`: ignored",
                    archive::shown(&name)
                ),
            ));
        }
        parse::read_entries(&mut t, archive);
        Ok(t)
    }

    /// The failed action the trace ends on: the first failed top-level action,
    /// then its first failed action inside, down to the deepest.
    pub fn failed(&self) -> Option<&Action> {
        let mut at = self.actions.iter().find(|a| a.failed())?;
        while let Some(c) = at.children.iter().find(|a| a.failed()) {
            at = c;
        }
        Some(at)
    }

    /// Whether the version found is one this reader knows.
    pub fn version_known(&self) -> bool {
        self.version.is_some_and(|v| v <= KNOWN_VERSION)
    }

    /// The frame nearest `time_ms` (before or after), if the trace has any.
    pub fn frame_near(&self, time_ms: f64) -> Option<&Frame> {
        let i = self.frames.partition_point(|f| f.timestamp_ms < time_ms);
        let before = i.checked_sub(1).and_then(|j| self.frames.get(j));
        let after = self.frames.get(i);
        match (before, after) {
            (Some(b), Some(a)) => Some(if time_ms - b.timestamp_ms <= a.timestamp_ms - time_ms {
                b
            } else {
                a
            }),
            (b, a) => b.or(a),
        }
    }

    /// The frames nearest an action's start and its end (its before and after
    /// pictures; the end is the start for an action that never ended).
    pub fn action_frames(&self, a: &Action) -> (Option<&Frame>, Option<&Frame>) {
        (
            self.frame_near(a.start_ms),
            self.frame_near(a.end_ms.unwrap_or(a.start_ms)),
        )
    }

    /// The bytes of a frame (a JPEG, undecoded: whoever draws it decodes it), at
    /// most [`Limits::frame`] of them.
    pub fn frame_bytes(&self, frame: &Frame) -> Result<Vec<u8>, Problem> {
        let problem = |m: String| {
            Problem::error(
                &self.file,
                "trace-frame",
                format!("{}: {m}", archive::shown(&frame.entry)),
            )
        };
        let Some(archive) = &self.archive else {
            return Err(problem("no archive".to_owned()));
        };
        if !archive.has(&frame.entry) {
            return Err(problem("not in the archive".to_owned()));
        }
        // a clone shares the bytes and the central directory: reading takes &self
        let mut archive = archive.clone();
        archive
            .bytes(&frame.entry, self.limits.frame, &self.limits)
            .map_err(|s| problem(s.to_string()))
    }

    /// The bytes of the frame nearest `time_ms`, if any (see [`Trace::frame_bytes`]).
    pub fn frame_bytes_near(&self, time_ms: f64) -> Option<Result<Vec<u8>, Problem>> {
        self.frame_near(time_ms).map(|f| self.frame_bytes(f))
    }

    /// The name the trace's problems carry.
    pub fn file(&self) -> &str {
        &self.file
    }

    fn entry_problem(&mut self, entry: &str, stop: &Stop) {
        let rule = match stop {
            Stop::Broken(_) => "trace-entry-unreadable",
            Stop::TooLarge(_) => "trace-too-large",
            Stop::Ratio { .. } => "trace-zip-bomb",
        };
        self.problems.push(Problem::error(
            &self.file,
            rule,
            format!("{}: {stop}", archive::shown(entry)),
        ));
    }
}
