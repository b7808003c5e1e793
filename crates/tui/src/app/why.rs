//! `W`, why it failed: the failure digests of runs (read off the loop through a
//! feature job, kept by run folder), the failure screen's model — its rows, the
//! cursor over the stack frames, its scroll — and the details' summary of a
//! failed run. No drawing and no I/O here: `view::why` draws the rows.

use super::super::action::Command;
use super::super::feature_work::FeatureWork;
use super::effect::{EditTarget, Effect};
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use testdeck_core::sanitize::{escape, escape_keep_sgr, strip_sgr};
use testdeck_core::workspace::failure::{Digest, Failure, tests_count};
use testdeck_core::workspace::per_test;

/// Digests kept: past this the cache starts again (a digest is read in milliseconds).
const CACHE: usize = 32;
/// Lines of a side of a computed diff beyond which it is shown as two blocks.
const DIFF_LINES: usize = 400;
/// Message lines the details' summary shows.
const SUMMARY_LINES: usize = 3;
/// Characters of a value beyond which its string diff marks nothing.
const CHAR_DIFF: usize = 1000;

/// The failure digests read so far, by run folder (relative to the root).
#[derive(Debug, Default)]
pub struct Why {
    /// `None`: being read.
    digests: HashMap<String, Option<Box<Digest>>>,
}

/// What is known of a run's digest.
#[derive(Debug, Clone, Copy)]
pub enum Known<'a> {
    /// Never asked for.
    Unknown,
    /// Being read.
    Reading,
    Ready(&'a Digest),
}

impl Why {
    /// What is known of run `run`'s digest.
    pub fn digest(&self, run: &str) -> Known<'_> {
        match self.digests.get(run) {
            None => Known::Unknown,
            Some(None) => Known::Reading,
            Some(Some(d)) => Known::Ready(d),
        }
    }

    /// The job that reads run `run`'s digest, once per run.
    pub(in crate::app) fn job(&mut self, run: &str) -> Option<Effect> {
        if self.digests.contains_key(run) {
            return None;
        }
        if self.digests.len() >= CACHE {
            self.digests.retain(|_, d| d.is_none());
        }
        self.digests.insert(run.to_owned(), None);
        Some(Effect::Work(FeatureWork::Digest {
            run: run.to_owned(),
        }))
    }

    /// A digest came back.
    pub(in crate::app) fn put(&mut self, run: String, d: Box<Digest>) {
        self.digests.insert(run, Some(d));
    }

    /// The workspace was read again: runs are read again when asked.
    pub(in crate::app) fn forget(&mut self) {
        self.digests.retain(|_, d| d.is_none());
    }
}

/// How a row of the failure view is drawn (the view maps each to a theme style).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    Title,
    Heading,
    /// Text from the run (its SGR colours drawn as styles).
    Text,
    Muted,
    /// What the check wanted: a `-` line of a diff, an `Expected:` line.
    Expected,
    /// What the check got: a `+` line of a diff, a `Received:` line.
    Received,
    /// Stack frame number `.0` of the cursor.
    Frame(usize),
    /// The frames folded into one line.
    Folded,
    /// A line of a source snippet.
    Snippet,
    /// The frame's own line of a snippet.
    Marked,
    Passed,
    Failed,
    Artifact,
}

/// One row of the failure view: its look and its text, already escaped (the only
/// controls left start an SGR sequence).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub look: Look,
    pub text: String,
    /// Byte ranges of `text` that differ from the other side of a diff (the
    /// characters a string diff marks); `text` has no SGR then.
    pub marks: Vec<Range<usize>>,
}

fn row(look: Look, text: impl Into<String>) -> Row {
    Row {
        look,
        text: text.into(),
        marks: Vec::new(),
    }
}

/// A frame the cursor can stand on: a workspace file and line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FrameAt {
    file: String,
    line: u32,
    /// Its row, and the rows of its snippet under it.
    row: usize,
    snippet: usize,
}

/// The failure view of one run (`W`): full screen until closed.
#[derive(Debug, Clone)]
pub struct WhyScreen {
    run: String,
    digest: Option<Box<Digest>>,
    rows: Vec<Row>,
    frames: Vec<FrameAt>,
    /// The first row of each failure.
    failures: Vec<usize>,
    cursor: usize,
    scroll: usize,
    /// The first screenshot bound to a failure: its file and its run-relative path.
    screenshot: Option<(PathBuf, String)>,
}

impl WhyScreen {
    /// The view of run folder `run` (relative to the root), its digest when known.
    pub(in crate::app) fn new(run: &str, digest: Option<&Digest>, root: &Path) -> WhyScreen {
        let mut s = WhyScreen {
            run: run.to_owned(),
            digest: None,
            rows: Vec::new(),
            frames: Vec::new(),
            failures: Vec::new(),
            cursor: 0,
            scroll: 0,
            screenshot: None,
        };
        if let Some(d) = digest {
            s.set(d, root);
        }
        s
    }

    /// The digest arrived: build the rows.
    pub(in crate::app) fn set(&mut self, d: &Digest, root: &Path) {
        let mut b = Builder::default();
        b.digest(d);
        mark_string_diffs(&mut b.rows);
        self.rows = b.rows;
        self.frames = b.frames;
        self.failures = b.failures;
        self.cursor = 0;
        self.scroll = 0;
        self.screenshot = d
            .artifacts
            .iter()
            .filter(|a| a.bound_to.is_some() && a.exists && is_picture(&a.kind, &a.path))
            .find_map(|a| Some((root.join(a.file.as_ref()?), a.path.clone())));
        self.digest = Some(Box::new(d.clone()));
    }

    /// The run folder shown.
    pub fn run(&self) -> &str {
        &self.run
    }

    /// The digest (`None`: still being read).
    pub fn digest(&self) -> Option<&Digest> {
        self.digest.as_deref()
    }

    /// The rows to draw.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// The frame under the cursor.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// The first row shown.
    pub fn scroll(&self) -> usize {
        self.scroll
    }

    /// The screenshot bound to the failure, to preview beside (its file, its run path).
    pub fn screenshot(&self) -> Option<(&Path, &str)> {
        self.screenshot
            .as_ref()
            .map(|(f, l)| (f.as_path(), l.as_str()))
    }

    /// The run folder the screenshot is read beneath.
    pub(in crate::app) fn run_dir(&self, root: &Path) -> PathBuf {
        root.join(&self.run)
    }

    /// `E`: the frame under the cursor, when it is a file of the workspace.
    pub fn edit_target(&self) -> Result<EditTarget, String> {
        if self.digest.is_none() {
            return Err("still reading the failure".into());
        }
        let f = self
            .frames
            .get(self.cursor)
            .ok_or("no stack frame in the workspace to open")?;
        let p = Path::new(&f.file);
        let inside = p.is_relative()
            && p.components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
        if !inside {
            return Err(format!("{} is outside the workspace", escape(&f.file)));
        }
        Ok(EditTarget::at(&f.file, Some(f.line)))
    }

    /// A key on the view (but the keys that close it); `page` is half the
    /// terminal's height. `Some`: a word for the status bar.
    pub fn command(&mut self, c: Command, page: isize) -> Option<&'static str> {
        let page = usize::try_from(page).unwrap_or(1).max(1);
        // the rows under the screen's title and borders
        let body = (page * 2).saturating_sub(4).max(1);
        let last = self.rows.len().saturating_sub(1);
        match c {
            Command::MoveDown | Command::MoveUp if self.frames.is_empty() => {
                self.scroll = if c == Command::MoveDown {
                    (self.scroll + 1).min(last)
                } else {
                    self.scroll.saturating_sub(1)
                };
            }
            Command::MoveDown => {
                self.cursor = (self.cursor + 1).min(self.frames.len() - 1);
                self.show_frame(body);
            }
            Command::MoveUp => {
                self.cursor = self.cursor.saturating_sub(1);
                self.show_frame(body);
            }
            Command::PageDown => self.scroll = (self.scroll + page).min(last),
            Command::PageUp => self.scroll = self.scroll.saturating_sub(page),
            Command::GoTop => {
                self.scroll = 0;
                self.cursor = 0;
            }
            Command::GoBottom => {
                self.scroll = last.saturating_sub(body.saturating_sub(1));
                self.cursor = self.frames.len().saturating_sub(1);
            }
            Command::NextFailure => match self.failures.iter().find(|r| **r > self.scroll) {
                Some(r) => self.scroll = *r,
                None => return Some("no more failures"),
            },
            _ => {}
        }
        None
    }

    /// Scroll so the frame under the cursor and its snippet are in the `body` rows.
    fn show_frame(&mut self, body: usize) {
        let Some(f) = self.frames.get(self.cursor) else {
            return;
        };
        // the frame, its snippet, and the row after (the folded frames, often)
        let end = f.row + f.snippet + 2;
        if f.row < self.scroll {
            self.scroll = f.row.saturating_sub(1);
        } else if end > self.scroll + body {
            // a few rows more for the long lines that wrap
            self.scroll = (end + 3).saturating_sub(body).min(f.row.saturating_sub(1));
        }
    }
}

fn is_picture(kind: &str, path: &str) -> bool {
    let p = path.to_ascii_lowercase();
    kind == "screenshot" || [".png", ".jpg", ".jpeg"].iter().any(|e| p.ends_with(e))
}

/// The rows of a digest, with where its frames and failures are.
#[derive(Default)]
struct Builder {
    rows: Vec<Row>,
    frames: Vec<FrameAt>,
    failures: Vec<usize>,
}

impl Builder {
    fn push(&mut self, look: Look, text: impl Into<String>) {
        self.rows.push(row(look, text));
    }

    fn digest(&mut self, d: &Digest) {
        self.push(
            Look::Title,
            format!(
                "{}/{} · run {} · {}",
                escape(&d.scope),
                escape(&d.case_id),
                escape(&d.run_id),
                escape(&d.status)
            ),
        );
        self.push(Look::Muted, escape(&d.path).into_owned());
        // the file's tests that passed: one folded line, not one block each
        if !d.passed.is_empty() || !d.skipped.is_empty() {
            self.push(Look::Muted, "");
        }
        if !d.passed.is_empty() {
            self.push(
                Look::Passed,
                format!("✓ {}", tests_count(d.passed.len(), "passed")),
            );
        }
        if !d.skipped.is_empty() {
            self.push(
                Look::Muted,
                format!("- {}", tests_count(d.skipped.len(), "skipped")),
            );
        }
        if d.failures.is_empty() {
            self.push(Look::Muted, "");
            self.push(
                Look::Muted,
                "no failed assertion, step or error in the timeline",
            );
        }
        for f in &d.failures {
            self.failure(f, d);
        }
        if !d.before.is_empty() {
            self.push(Look::Muted, "");
            self.push(Look::Heading, "Before:");
            for b in &d.before {
                let (mark, look) = match b.status.as_str() {
                    "passed" | "ok" | "pass" => ("✓", Look::Passed),
                    "failed" => ("✗", Look::Failed),
                    _ => ("·", Look::Muted),
                };
                let message = first_line(per_test::without_name(&b.kind, &b.name, &b.message));
                self.push(
                    look,
                    format!(
                        "  {mark} {} {}  {}",
                        escape(&b.kind),
                        escape(&b.name),
                        escape(&message)
                    ),
                );
            }
        }
        self.push(Look::Muted, "");
        self.push(
            Look::Muted,
            format!("runtime events: {} (v in the live pane)", d.runtime_events),
        );
        for p in &d.problems {
            self.push(Look::Muted, format!("problem: {}", escape(p)));
        }
    }

    fn failure(&mut self, f: &Failure, d: &Digest) {
        self.push(Look::Muted, "");
        self.failures.push(self.rows.len());
        let id =
            f.id.as_deref()
                .map_or_else(String::new, |i| format!(" [{}]", escape(i)));
        // a framework test by its title path; an old log's event by its type and name
        let head = if f.test.is_some() {
            format!("✗ {}{id}", escape(&f.title()))
        } else {
            format!("✗ {} {}{id}", escape(&f.kind), escape(&f.name))
        };
        self.push(Look::Failed, head);
        if let Some(loc) = &f.location {
            self.push(
                Look::Muted,
                format!("  at {}:{}", escape(&loc.file), loc.line),
            );
        }
        let saw = self.message(&f.styled);
        let plain = strip_sgr(&f.styled);
        let block_shown = plain
            .lines()
            .any(|l| l.trim_start().starts_with("- Expected"));
        match (&f.diff, f.expected.as_deref(), f.received.as_deref()) {
            (Some(diff), ..) if !block_shown => {
                self.push(Look::Heading, "  Diff:");
                self.diff_lines(diff);
            }
            (None, Some(e), Some(r)) if !saw.0 && !saw.1 => {
                self.push(Look::Heading, "  Diff:");
                self.push(Look::Expected, "  - Expected");
                self.push(Look::Received, "  + Received");
                self.push(Look::Muted, "");
                for (look, text) in line_diff(e, r) {
                    self.push(look, format!("  {text}"));
                }
            }
            (_, e, r) => {
                if let Some(e) = e.filter(|_| !saw.0) {
                    self.labelled(Look::Expected, "Expected: ", e);
                }
                if let Some(r) = r.filter(|_| !saw.1) {
                    self.labelled(Look::Received, "Received: ", r);
                }
            }
        }
        self.stack(f);
        for id in &f.artifacts {
            if let Some(a) = d.artifacts.iter().find(|a| a.id == *id) {
                let shown = a.file.as_deref().unwrap_or(&a.path);
                let hint = if !a.exists {
                    " · missing"
                } else if is_picture(&a.kind, &a.path) {
                    " · i full screen · o opens it from the Artifacts pane"
                } else {
                    " · o opens it from the Artifacts pane"
                };
                self.push(
                    Look::Artifact,
                    format!("  ▣ {} {}{hint}", escape(&a.kind), escape(shown)),
                );
            }
        }
    }

    /// The whole message, line by line with its colours; `Expected:` / `Received:`
    /// lines and a `- Expected` / `+ Received` block as a diff. Says whether it
    /// had an expected line and a received line.
    fn message(&mut self, styled: &str) -> (bool, bool) {
        let mut saw = (false, false);
        let mut in_block = false;
        let lines: Vec<&str> = styled.trim_end().lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let plain = strip_sgr(l);
            let t = plain.trim_start();
            if t.starts_with("- Expected")
                && lines
                    .get(i + 1)
                    .is_some_and(|n| strip_sgr(n).trim_start().starts_with("+ Received"))
            {
                in_block = true;
            }
            let look = if in_block && t.starts_with('-') || is_labelled(t, "Expected") {
                saw.0 |= !in_block;
                Look::Expected
            } else if in_block && t.starts_with('+') || is_labelled(t, "Received") {
                saw.1 |= !in_block;
                Look::Received
            } else {
                Look::Text
            };
            self.push(look, format!("  {}", escape_keep_sgr(l)));
        }
        saw
    }

    /// A multi-line value under its label.
    fn labelled(&mut self, look: Look, label: &str, value: &str) {
        for (i, l) in value.lines().enumerate() {
            let head = if i == 0 { label } else { "          " };
            self.push(look, format!("  {head}{}", escape(l)));
        }
    }

    /// A runner's diff: `-` lines expected, `+` lines received.
    fn diff_lines(&mut self, diff: &str) {
        for l in diff.lines() {
            let t = l.trim_start();
            let look = if t.starts_with('-') {
                Look::Expected
            } else if t.starts_with('+') {
                Look::Received
            } else {
                Look::Muted
            };
            self.push(look, format!("  {}", escape(l)));
        }
    }

    /// The frames in the workspace with their snippets, the rest folded into one line.
    fn stack(&mut self, f: &Failure) {
        if f.frames.is_empty() {
            return;
        }
        self.push(Look::Heading, "  Stack:");
        let mut folded = 0;
        for fr in &f.frames {
            if !fr.in_workspace {
                folded += 1;
                continue;
            }
            let at = self.rows.len();
            let k = self.frames.len();
            self.push(Look::Frame(k), format!("  at {}", escape(&fr.place())));
            let lines = fr.snippet.as_deref().unwrap_or_default();
            let width = lines.last().map_or(1, |l| l.line.to_string().len());
            for l in lines {
                let (mark, look) = if l.marked {
                    ("▶", Look::Marked)
                } else {
                    (" ", Look::Snippet)
                };
                // the snippet's text is escaped by the digest already
                self.push(look, format!("    {mark} {:>width$} │ {}", l.line, l.text));
            }
            self.frames.push(FrameAt {
                file: fr.file.clone(),
                line: fr.line,
                row: at,
                snippet: lines.len(),
            });
        }
        if folded > 0 {
            let frames = if folded == 1 { "frame" } else { "frames" };
            self.push(
                Look::Folded,
                format!("  … {folded} {frames} in node_modules / node internals"),
            );
        }
    }
}

/// `Expected:`, `Expected string:`, `Received value:` — a label, not prose.
fn is_labelled(line: &str, word: &str) -> bool {
    line.strip_prefix(word)
        .and_then(|rest| rest.split_once(':'))
        .is_some_and(|(label, _)| {
            label.is_empty() || label.starts_with(' ') && label.split_whitespace().count() <= 2
        })
}

fn first_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default()
        .to_owned()
}

/// A line diff of what was wanted and what came: `- ` lines only expected,
/// `+ ` lines only received, `  ` lines both (longest common subsequence).
pub fn line_diff(expected: &str, received: &str) -> Vec<(Look, String)> {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = received.lines().collect();
    let minus = |l: &str| (Look::Expected, format!("- {}", escape(l)));
    let plus = |l: &str| (Look::Received, format!("+ {}", escape(l)));
    if a.len() > DIFF_LINES || b.len() > DIFF_LINES {
        return a
            .iter()
            .map(|l| minus(l))
            .chain(b.iter().map(|l| plus(l)))
            .collect();
    }
    // lcs[i][j]: the common lines of a[i..] and b[j..]
    let mut lcs = vec![vec![0u16; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push((Look::Muted, format!("  {}", escape(a[i]))));
            i += 1;
            j += 1;
        } else if i == a.len() || j < b.len() && lcs[i][j + 1] > lcs[i + 1][j] {
            out.push(plus(b[j]));
            j += 1;
        } else {
            out.push(minus(a[i]));
            i += 1;
        }
    }
    out
}

/// Mark the characters that differ in each lone pair of an expected row over a
/// received row (`- "a"` / `+ "b"`, `Expected string:` / `Received string:`),
/// as vitest colours a string diff: only when the two share most of their text.
fn mark_string_diffs(rows: &mut [Row]) {
    let lone = |rows: &[Row], i: usize| {
        rows[i].look == Look::Expected
            && rows.get(i + 1).is_some_and(|r| r.look == Look::Received)
            && (i == 0 || rows[i - 1].look != Look::Expected)
            && rows.get(i + 2).is_none_or(|r| r.look != Look::Received)
    };
    for i in 0..rows.len() {
        if !lone(rows, i) {
            continue;
        }
        let e = strip_sgr(&rows[i].text).into_owned();
        let r = strip_sgr(&rows[i + 1].text).into_owned();
        let (Some(ve), Some(vr)) = (value_start(&e), value_start(&r)) else {
            continue;
        };
        let Some((me, mr)) = char_diff(&e[ve..], &r[vr..]) else {
            continue;
        };
        let shift = |v: Vec<Range<usize>>, by: usize| -> Vec<Range<usize>> {
            v.into_iter().map(|m| m.start + by..m.end + by).collect()
        };
        rows[i].marks = shift(me, ve);
        rows[i].text = e;
        rows[i + 1].marks = shift(mr, vr);
        rows[i + 1].text = r;
    }
}

/// Where the value of a diff row starts: after `- ` / `+ `, or after an
/// `Expected…:` / `Received…:` label (`None`: a diff's own header).
fn value_start(text: &str) -> Option<usize> {
    let t = text.trim_start();
    let lead = text.len() - t.len();
    if t.starts_with("- Expected") || t.starts_with("+ Received") {
        return None;
    }
    if let Some(rest) = t.strip_prefix("- ").or_else(|| t.strip_prefix("+ ")) {
        return Some(text.len() - rest.len());
    }
    for word in ["Expected", "Received"] {
        if is_labelled(t, word) {
            let colon = t.find(':')?;
            let after = &t[colon + 1..];
            return Some(lead + colon + 1 + (after.len() - after.trim_start().len()));
        }
    }
    None
}

/// Byte ranges of a text that a diff marks.
pub type Marks = Vec<Range<usize>>;

/// The characters of `a` not in `b` and of `b` not in `a` (a longest common
/// subsequence of characters), as byte ranges; `None` when the two share too
/// little for marks to help, are equal, or are too long.
pub fn char_diff(a: &str, b: &str) -> Option<(Marks, Marks)> {
    let ca: Vec<(usize, char)> = a.char_indices().collect();
    let cb: Vec<(usize, char)> = b.char_indices().collect();
    if a == b || ca.len() > CHAR_DIFF || cb.len() > CHAR_DIFF {
        return None;
    }
    // lcs[i][j]: the common characters of a[i..] and b[j..]
    let mut lcs = vec![vec![0u16; cb.len() + 1]; ca.len() + 1];
    for i in (0..ca.len()).rev() {
        for j in (0..cb.len()).rev() {
            lcs[i][j] = if ca[i].1 == cb[j].1 {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let common = usize::from(lcs[0][0]);
    if common * 2 < ca.len().min(cb.len()) {
        return None;
    }
    let (mut ma, mut mb) = (Vec::new(), Vec::new());
    let add = |v: &mut Vec<Range<usize>>, at: usize, c: char| match v.last_mut() {
        Some(last) if last.end == at => last.end = at + c.len_utf8(),
        _ => v.push(at..at + c.len_utf8()),
    };
    let (mut i, mut j) = (0, 0);
    while i < ca.len() || j < cb.len() {
        if i < ca.len() && j < cb.len() && ca[i].1 == cb[j].1 {
            i += 1;
            j += 1;
        } else if i == ca.len() || j < cb.len() && lcs[i][j + 1] >= lcs[i + 1][j] {
            add(&mut mb, cb[j].0, cb[j].1);
            j += 1;
        } else {
            add(&mut ma, ca[i].0, ca[i].1);
            i += 1;
        }
    }
    Some((ma, mb))
}

/// The details' summary of a failed run: the first failure's name, the first lines
/// of its message, where it failed, and the key to the whole view.
pub fn summary(known: Known<'_>) -> Vec<Row> {
    let d = match known {
        Known::Ready(d) => d,
        Known::Unknown | Known::Reading => {
            return vec![
                row(Look::Failed, "✗ failed · reading why…"),
                row(Look::Muted, ""),
            ];
        }
    };
    let first = |kind: &str| d.failures.iter().find(|f| f.kind == kind);
    let Some(f) = first("assertion")
        .or_else(|| first("error"))
        .or_else(|| first("step"))
    else {
        return Vec::new();
    };
    let head = if f.test.is_some() {
        format!("✗ {}", escape(&f.title()))
    } else {
        format!("✗ {} {}", escape(&f.kind), escape(&f.name))
    };
    let mut v = vec![row(Look::Failed, head)];
    v.extend(
        f.styled
            .lines()
            .filter(|l| !strip_sgr(l).trim().is_empty())
            .take(SUMMARY_LINES)
            .map(|l| row(Look::Text, format!("  {}", escape_keep_sgr(l.trim_end())))),
    );
    let at = f
        .location
        .as_ref()
        .map(|l| (l.file.as_str(), l.line))
        .or_else(|| f.frames.first().map(|fr| (fr.file.as_str(), fr.line)));
    if let Some((file, line)) = at {
        v.push(row(Look::Muted, format!("  at {}:{line}", escape(file))));
    }
    v.push(row(
        Look::Muted,
        "  W: why (the whole message, diff, stack, source)",
    ));
    v.push(row(Look::Muted, ""));
    v
}

#[cfg(test)]
mod tests;
