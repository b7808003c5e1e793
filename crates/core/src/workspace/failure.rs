//! The failure digest of one run (issue 25, "why it failed"): its failed events
//! with their whole message, expected / received, stack frames and source
//! snippets, the steps just before, the artifacts bound to them — colour-free.
//!
//! It reads the run as seed 000 §8 tells a reader to: the timeline first, then
//! the runtime events and the key artifacts. Every file goes through the one
//! bounded reader; a source snippet is read only inside the workspace.

use super::logs::{Artifact, RunStatus, read_artifacts, read_meta, read_timeline};
use super::per_test::{self, Role};
use super::read::{self, Kind};
use super::timeline::TimelineEvent;
use super::{rel, run_folder};
use crate::sanitize::{escape, strip_sgr};
use serde::Serialize;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

mod message;
use message::{diff_block, expected_received_lines};
pub use message::{expected_received, parse_stack, short_event};

/// Lines shown on each side of a frame's line.
const SNIPPET_CONTEXT: u32 = 2;
/// Frames kept of one stack (a runaway recursion is not read whole).
const MAX_FRAMES: usize = 40;
/// In-workspace frames of one failure that get a snippet.
const MAX_SNIPPETS: usize = 8;
/// Passing steps and assertions shown before the first failure.
const BEFORE: usize = 5;
/// The longest one-line reason (`run`'s case end, JUnit's `failure message`).
const REASON_CHARS: usize = 300;

/// The digest of one run folder.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Digest {
    /// The run folder's name.
    pub run_id: String,
    /// The case's folder name.
    pub case_id: String,
    /// The folders between `tests/logs/` and the caseId.
    pub scope: String,
    /// `passed`, `failed` or `in-progress` (no readable `meta.json`).
    pub status: String,
    /// The run folder, relative to the workspace root.
    pub path: String,
    /// Every failed assertion, step and error event, in timeline order: per
    /// test (docs/per-test-events.md) each error of a failed test, a message
    /// said twice (a step and the assertion that failed it) once.
    pub failures: Vec<Failure>,
    /// The title paths of the file's tests that passed (their last attempt).
    pub passed: Vec<String>,
    /// The title paths of the file's tests that were skipped.
    pub skipped: Vec<String>,
    /// The steps and assertions just before the first failure (what happened before).
    pub before: Vec<Before>,
    /// The run's artifacts: those bound to a failed event first.
    pub artifacts: Vec<BoundArtifact>,
    /// Lines of `runtime-events.jsonl` (0 when it is not there).
    pub runtime_events: usize,
    /// What could not be read, as `file: message` (the digest shows the rest).
    pub problems: Vec<String>,
}

/// One failed event.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Failure {
    /// The event's `type`: `assertion`, `step` or `error`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The event's `name`.
    pub name: String,
    /// The event's `id`, which `artifacts.json` `refs` name.
    pub id: Option<String>,
    /// The step id of the framework test it failed (`data.test`), per test.
    pub test: Option<String>,
    /// That test's title path, outermost `describe` first (empty for an old log).
    pub title_path: Vec<String>,
    /// The whole message: `data.error.message`, else the event's `message`.
    pub message: String,
    /// The same message with the runner's SGR colours (for a view that draws them
    /// as styles; never in `--json`).
    #[serde(skip)]
    pub styled: String,
    /// What the check wanted, when the event says it.
    pub expected: Option<String>,
    /// What the check got, when the event says it.
    pub received: Option<String>,
    /// The runner's own diff (`data.error.diff`, or a `- Expected / + Received` block).
    pub diff: Option<String>,
    /// `data.location`: where the runner says it failed (per test: where the
    /// error was raised in the workspace, else the test's own line).
    pub location: Option<Location>,
    /// The stack, frames inside the workspace first.
    pub frames: Vec<Frame>,
    /// The ids of the artifacts `refs` bind to this event.
    pub artifacts: Vec<String>,
}

/// A file and line (relative to the workspace root when inside it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Location {
    /// The file.
    pub file: String,
    /// Its line, from 1.
    pub line: u32,
}

/// One stack frame.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Frame {
    /// The function, when the frame names one.
    pub function: Option<String>,
    /// The file: relative to the workspace root when inside it, else as written.
    pub file: String,
    /// The line, from 1.
    pub line: u32,
    /// The column, when the frame has one.
    pub column: Option<u32>,
    /// Inside the workspace and not under `node_modules` (not a `node:` internal).
    pub in_workspace: bool,
    /// The lines around `line`, when the file reads inside the workspace.
    pub snippet: Option<Vec<SnippetLine>>,
}

impl Frame {
    /// Where the frame is, as a stack prints it: `function file:line:column` (the
    /// function and the column when the frame has them).
    pub fn place(&self) -> String {
        let func = self
            .function
            .as_deref()
            .map_or_else(String::new, |n| format!("{n} "));
        let col = self.column.map_or_else(String::new, |c| format!(":{c}"));
        format!("{func}{}:{}{col}", self.file, self.line)
    }
}

/// One line of a source snippet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SnippetLine {
    /// Its number, from 1.
    pub line: u32,
    /// Its text (tabs and controls escaped).
    pub text: String,
    /// The frame's own line.
    pub marked: bool,
}

/// An event before the first failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Before {
    /// The event's `type`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The event's `name`.
    pub name: String,
    /// The event's `status`.
    pub status: String,
    /// The event's `message` (as written; a reader drops the name it repeats).
    pub message: String,
}

/// An artifact of the run, and the failed event it is bound to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BoundArtifact {
    /// Its `id`.
    pub id: String,
    /// Its `kind` (`trace`, `screenshot`…).
    pub kind: String,
    /// As written, relative to the run folder.
    pub path: String,
    /// The file relative to the workspace root (only when it stays inside the run folder).
    pub file: Option<String>,
    /// The file is there.
    pub exists: bool,
    /// The id of the failed event its `refs` name, if any.
    pub bound_to: Option<String>,
}

impl Digest {
    /// The digest of the run folder `run_dir` of the workspace at `root`.
    pub fn read(root: &Path, run_dir: &Path) -> Digest {
        let meta = read_meta(root, &run_dir.join(run_folder::META))
            .ok()
            .map(|(m, _)| m);
        let (events, problems) = read_timeline(root, &run_dir.join(run_folder::TIMELINE));
        let problems = problems.iter().map(ToString::to_string).collect();
        Digest::of(root, run_dir, meta.as_ref(), &events, problems)
    }

    /// The digest of a run as the run store read it (its timeline and
    /// `meta.json` not read again; its artifacts and runtime events are).
    pub fn of_snapshot(root: &Path, snap: &crate::tail::store::RunSnapshot) -> Digest {
        let path = rel(root, &snap.dir);
        let meta = snap.meta.as_deref().and_then(|b| {
            let text = String::from_utf8_lossy(b);
            super::logs::parse_meta(&format!("{path}/{}", run_folder::META), &text)
                .ok()
                .map(|(m, _)| m)
        });
        let events: Vec<TimelineEvent> = snap.events().cloned().collect();
        let path = path.as_str();
        let problems = snap
            .lines
            .iter()
            .flat_map(|l| {
                l.issues
                    .iter()
                    .map(move |m| format!("{path}/timeline.jsonl:{}: {m}", l.lineno))
            })
            .collect();
        Digest::of(root, &snap.dir, meta.as_ref(), &events, problems)
    }

    fn of(
        root: &Path,
        run_dir: &Path,
        meta: Option<&super::logs::Meta>,
        events: &[TimelineEvent],
        problems: Vec<String>,
    ) -> Digest {
        let path = rel(root, run_dir);
        let mut parts: Vec<&str> = path
            .strip_prefix("tests/logs/")
            .unwrap_or(&path)
            .split('/')
            .collect();
        let run_id = parts.pop().unwrap_or_default().to_owned();
        let case_id = parts.pop().unwrap_or_default().to_owned();
        let mut d = Digest {
            run_id,
            case_id,
            scope: parts.join("/"),
            path,
            ..Digest::default()
        };
        RunStatus::of_meta(meta).as_str().clone_into(&mut d.status);
        d.problems.extend(problems);
        let (artifacts, problems) = if run_dir.join(run_folder::ARTIFACTS).is_file() {
            read_artifacts(root, run_dir)
        } else {
            (Vec::new(), Vec::new())
        };
        d.problems.extend(problems.iter().map(ToString::to_string));
        let mut sources = Sources::new(root);
        let first_failure = events.iter().position(is_failure);
        d.failures = failures(events, &artifacts, &mut sources);
        (d.passed, d.skipped) = tests_not_failed(events);
        let upto = first_failure.unwrap_or(events.len());
        // a file's tests are the folded line of those that passed, not "before"
        let before: Vec<Before> = events[..upto]
            .iter()
            .filter(|e| {
                matches!(e.kind.as_str(), "step" | "assertion") && per_test::role(e) == Role::Other
            })
            .map(|e| Before {
                kind: e.kind.clone(),
                name: plain(&e.name),
                status: e.status.clone(),
                message: plain(&e.message),
            })
            .collect();
        d.before = before[before.len().saturating_sub(BEFORE)..].to_vec();
        d.artifacts = bound_artifacts(&d.path, &artifacts, &d.failures);
        d.runtime_events = runtime_lines(run_dir);
        d
    }

    /// Why the run failed, on one line: the first failed assertion's message,
    /// else the first error's, else the first step's (`None`: no failed event).
    /// Per test: the first failed test's title path, its message's first line
    /// and its `file:line` (and how many more tests failed).
    pub fn reason(&self) -> Option<String> {
        if let Some(f) = self.failures.iter().find(|f| f.test.is_some()) {
            return Some(self.test_reason(f));
        }
        let first = |kind: &str| self.failures.iter().find(|f| f.kind == kind);
        let f = first("assertion")
            .or_else(|| first("error"))
            .or_else(|| first("step"))?;
        let mut lines = f.message.lines().map(str::trim).filter(|l| !l.is_empty());
        let first = lines.next().unwrap_or(f.name.as_str());
        let first = first.strip_prefix("Error: ").unwrap_or(first);
        // a custom expect message (Playwright's `expect(x, 'a1 order-confirmed')`)
        // only names the check: the matcher's line after it says what failed
        let line = match lines.next() {
            Some(next) if !f.name.is_empty() && first.ends_with(f.name.as_str()) => {
                format!("{first}: {}", next.strip_prefix("Error: ").unwrap_or(next))
            }
            _ => first.to_owned(),
        };
        let mut out: String = escape(&line).chars().take(REASON_CHARS).collect();
        if out.chars().count() == REASON_CHARS {
            out.push('…');
        }
        Some(out)
    }

    /// The one line of a failed test: `title › path: first line (file:line)`,
    /// then `(+N more failed tests)`.
    fn test_reason(&self, f: &Failure) -> String {
        let mut out = f.title();
        let _ = write!(out, ": {}", first_line(&f.message));
        if let Some(l) = &f.location {
            let _ = write!(out, " ({}:{})", l.file, l.line);
        }
        let mut tests: Vec<&str> = self
            .failures
            .iter()
            .filter_map(|g| g.test.as_deref())
            .collect();
        tests.dedup();
        if tests.len() > 1 {
            let more = tests.len() - 1;
            let _ = write!(
                out,
                " (+{more} more failed test{})",
                if more == 1 { "" } else { "s" }
            );
        }
        let mut s: String = escape(&out).chars().take(REASON_CHARS).collect();
        if s.chars().count() == REASON_CHARS {
            s.push('…');
        }
        s
    }

    /// The digest as plain text for a person (every piece escaped; no colour).
    pub fn text(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "{}/{}  run {}  {}",
            self.scope, self.case_id, self.run_id, self.status
        );
        let _ = writeln!(o, "  {}", self.path);
        if !self.passed.is_empty() || !self.skipped.is_empty() {
            o.push('\n');
        }
        if !self.passed.is_empty() {
            let _ = writeln!(o, "✓ {}", tests_count(self.passed.len(), "passed"));
        }
        if !self.skipped.is_empty() {
            let _ = writeln!(o, "- {}", tests_count(self.skipped.len(), "skipped"));
        }
        if self.failures.is_empty() {
            let _ = writeln!(o, "\nno failed assertion, step or error in the timeline");
        }
        for f in &self.failures {
            failure_text(&mut o, f);
        }
        if !self.before.is_empty() {
            let _ = writeln!(o, "\nbefore the first failure:");
            for b in &self.before {
                let message = per_test::without_name(&b.kind, &b.name, &b.message);
                let _ = writeln!(o, "  {} {} {}  {message}", b.status, b.kind, b.name);
            }
        }
        if !self.artifacts.is_empty() {
            let _ = writeln!(o, "\nartifacts:");
            for a in &self.artifacts {
                let bound = a
                    .bound_to
                    .as_deref()
                    .map_or_else(String::new, |id| format!("  (bound to {id})"));
                let missing = if a.exists { "" } else { "  (missing)" };
                let shown = a.file.as_deref().unwrap_or(&a.path);
                let _ = writeln!(o, "  {} {} {shown}{bound}{missing}", a.kind, a.id);
            }
        }
        let _ = writeln!(o, "\nruntime events: {}", self.runtime_events);
        for p in &self.problems {
            let _ = writeln!(o, "problem: {p}");
        }
        crate::sanitize::escape_keep_newlines(o.trim_end())
    }
}

impl Failure {
    /// The failed test's title path (` › ` between titles), else the event's name.
    pub fn title(&self) -> String {
        if self.title_path.is_empty() {
            self.name.clone()
        } else {
            self.title_path.join(" › ")
        }
    }

    /// The message says what was expected and received (`Expected…:` /
    /// `Received…:` lines, a `- Expected` / `+ Received` block): not again.
    pub fn message_shows_values(&self) -> bool {
        let (e, r) = expected_received_lines(&self.message);
        e && r || diff_block(&self.message).is_some()
    }
}

/// `N tests passed` (`1 test passed`).
pub fn tests_count(n: usize, what: &str) -> String {
    format!("{n} test{} {what}", if n == 1 { "" } else { "s" })
}

/// The first line of a message with text, without its `Error: `.
fn first_line(message: &str) -> &str {
    let l = message
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    l.strip_prefix("Error: ").unwrap_or(l)
}

fn failure_text(o: &mut String, f: &Failure) {
    let id =
        f.id.as_deref()
            .map_or_else(String::new, |i| format!(" [{i}]"));
    if f.test.is_some() {
        let _ = writeln!(o, "\n✗ {}{id}", f.title());
    } else {
        let _ = writeln!(o, "\n✗ {} {}{id}", f.kind, f.name);
    }
    // the place, unless its frame (with its snippet) says it below
    let framed = |l: &Location| {
        f.frames
            .iter()
            .any(|fr| fr.in_workspace && fr.file == l.file && fr.line == l.line)
    };
    if let Some(loc) = f.location.as_ref().filter(|l| !framed(l)) {
        let _ = writeln!(o, "  at {}:{}", loc.file, loc.line);
    }
    for l in f.message.lines() {
        indented(o, l);
    }
    let (expected, received) = (f.expected.as_deref(), f.received.as_deref());
    // said once: the runner's diff holds both sides, and so may the message
    let shown = f.diff.is_some() || f.message_shows_values();
    if !shown && (expected.is_some() || received.is_some()) {
        let _ = writeln!(o, "  expected: {}", indent(expected.unwrap_or("(none)")));
        let _ = writeln!(o, "  received: {}", indent(received.unwrap_or("(none)")));
    }
    if let Some(diff) = f.diff.as_ref().filter(|_| diff_block(&f.message).is_none()) {
        let _ = writeln!(o, "  diff:");
        for l in diff.lines() {
            indented(o, l);
        }
    }
    let mut snippet_shown = false;
    let mut folded = 0;
    for fr in &f.frames {
        if !fr.in_workspace {
            folded += 1;
            continue;
        }
        let _ = writeln!(o, "  at {}", fr.place());
        if let (false, Some(lines)) = (snippet_shown, &fr.snippet) {
            snippet_shown = true;
            let width = lines.last().map_or(1, |l| l.line.to_string().len());
            for l in lines {
                let mark = if l.marked { '>' } else { ' ' };
                let _ = writeln!(o, "    {mark} {:>width$} | {}", l.line, l.text);
                // a caret under the column, as the framework prints it
                if let (true, Some(col)) = (l.marked, fr.column) {
                    let pad = usize::try_from(col).unwrap_or(1).saturating_sub(1);
                    let pad = pad.min(l.text.chars().count());
                    let _ = writeln!(o, "      {:>width$} | {}^", "", " ".repeat(pad));
                }
            }
        }
    }
    if folded > 0 {
        let _ = writeln!(o, "  (+{folded} frames in node_modules or node internals)");
    }
    if !f.artifacts.is_empty() {
        let _ = writeln!(o, "  artifacts: {}", f.artifacts.join(", "));
    }
}

/// One line of a message or diff, indented, without trailing blanks.
fn indented(o: &mut String, line: &str) {
    let line = line.trim_end();
    if !line.is_empty() {
        o.push_str("    ");
        o.push_str(line);
    }
    o.push('\n');
}

/// A multi-line value with its later lines under its first.
fn indent(s: &str) -> String {
    s.replace('\n', "\n            ")
}

/// A failed assertion, step or error.
pub(crate) fn is_failure(e: &TimelineEvent) -> bool {
    e.status == "failed" && matches!(e.kind.as_str(), "assertion" | "step" | "error")
}

/// Text from the run without its colour codes.
fn plain(s: &str) -> String {
    strip_sgr(s).into_owned()
}

/// A string field, or a non-string value as pretty JSON (`None`: absent or null).
fn text_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Null => None,
        Value::String(s) => Some(plain(s)),
        other => serde_json::to_string_pretty(other).ok(),
    }
}

/// The run's failures: per test (docs/per-test-events.md) each error of a failed
/// test — the test's own failed `step` and its `test.step`s only when it wrote no
/// error — its title path on each; a message the same test (or its retry, or,
/// in an old log, the run) already said is not said again, its artifacts and
/// frames kept.
fn failures(
    events: &[TimelineEvent],
    artifacts: &[Artifact],
    sources: &mut Sources,
) -> Vec<Failure> {
    let tests: HashMap<&str, &TimelineEvent> = events
        .iter()
        .filter(|e| per_test::role(e) == Role::Test)
        .filter_map(|e| Some((e.id.as_deref()?, e)))
        .collect();
    let erred: HashSet<&str> = events
        .iter()
        .filter(|e| per_test::role(e) == Role::TestError && is_failure(e))
        .filter_map(per_test::test_of)
        .collect();
    let mut out: Vec<Failure> = Vec::new();
    for ev in events.iter().filter(|e| is_failure(e)) {
        let role = per_test::role(ev);
        let test_id = per_test::test_of(ev);
        if matches!(role, Role::Test | Role::TestStep) && test_id.is_some_and(|t| erred.contains(t))
        {
            continue; // its errors say it, each once
        }
        let test = test_id.and_then(|t| tests.get(t).copied());
        let mut f = failure_at(ev, test, artifacts, sources);
        f.test = test_id.map(str::to_owned);
        f.title_path = match (role, test) {
            (Role::Other, _) => Vec::new(),
            (_, Some(t)) => per_test::title_path(t),
            (_, None) => per_test::title_path(ev),
        };
        // the same test (a retry too: its title) saying the same again
        let said = |g: &Failure| {
            (g.test == f.test || !f.title_path.is_empty() && g.title_path == f.title_path)
                && same_message(&g.message, &f.message)
        };
        if let Some(g) = out.iter_mut().find(|g| said(g)) {
            for a in f.artifacts {
                if !g.artifacts.contains(&a) {
                    g.artifacts.push(a);
                }
            }
            if !g.frames.iter().any(|fr| fr.in_workspace) {
                g.frames = f.frames;
                g.location = g.location.take().or(f.location);
            }
            continue;
        }
        // the test's own trace and screenshot (`refs.stepId` the test) go with
        // its first failure
        if let Some(t) = f
            .test
            .as_deref()
            .filter(|t| !out.iter().any(|g| g.test.as_deref() == Some(*t)))
        {
            for a in artifacts.iter().filter(|a| a.step_id.as_deref() == Some(t)) {
                if !f.artifacts.contains(&a.id) {
                    f.artifacts.push(a.id.clone());
                }
            }
        }
        out.push(f);
    }
    out
}

/// Two messages that say the same (but for colour and blank ends).
fn same_message(a: &str, b: &str) -> bool {
    let t = |s: &str| {
        s.trim()
            .strip_prefix("Error: ")
            .unwrap_or(s.trim())
            .to_owned()
    };
    !a.trim().is_empty() && t(a) == t(b)
}

/// The title paths of the tests that passed (a retried test by its last
/// attempt) and of those skipped, in the order they ended.
fn tests_not_failed(events: &[TimelineEvent]) -> (Vec<String>, Vec<String>) {
    let mut last: Vec<(&str, &TimelineEvent)> = Vec::new();
    for e in events.iter().filter(|e| per_test::role(e) == Role::Test) {
        let key = e.name.as_str();
        match last.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = e,
            None => last.push((key, e)),
        }
    }
    let of = |status: &[&str]| {
        last.iter()
            .filter(|(_, e)| status.contains(&e.status.as_str()))
            .map(|(_, e)| plain(&per_test::title_path(e).join(" › ")))
            .collect()
    };
    (of(&["ok", "passed"]), of(&["skipped"]))
}

#[cfg(test)]
fn failure_of(ev: &TimelineEvent, artifacts: &[Artifact], sources: &mut Sources) -> Failure {
    failure_at(ev, None, artifacts, sources)
}

/// One failed event; `test` the framework test it belongs to, whose line is the
/// place when the error names none in the workspace.
fn failure_at(
    ev: &TimelineEvent,
    test: Option<&TimelineEvent>,
    artifacts: &[Artifact],
    sources: &mut Sources,
) -> Failure {
    let data = &ev.data;
    let error = data.get("error").filter(|e| e.is_object());
    let field = |k: &str| error.and_then(|e| e.get(k));
    let styled = [field("message"), data.get("message")]
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .find(|m| !m.trim().is_empty())
        .unwrap_or(&ev.message)
        .to_owned();
    let message = plain(&styled);
    let (mut expected, mut received) = (text_of(field("expected")), text_of(field("actual")));
    if expected.is_none() && received.is_none() {
        // a harness's own assertion record: `data.expected` / `data.actual`
        (expected, received) = (text_of(data.get("expected")), text_of(data.get("actual")));
    }
    if expected.is_none() && received.is_none() {
        (expected, received) = expected_received(&message);
    }
    let diff = text_of(field("diff")).or_else(|| diff_block(&message));
    let test_location = test.and_then(|t| t.data.get("location"));
    let location = [data.get("location"), field("location"), test_location]
        .into_iter()
        .flatten()
        .find_map(|l| location_of(l, sources));
    let stack = text_of(field("stack")).or_else(|| text_of(data.get("stack")));
    let mut frames = parse_stack(stack.as_deref().unwrap_or(&message));
    if frames.is_empty() {
        if let Some(loc) = &location {
            frames.push(Frame {
                function: None,
                file: loc.file.clone(),
                line: loc.line,
                column: None,
                in_workspace: false,
                snippet: None,
            });
        }
    }
    for fr in &mut frames {
        (fr.file, fr.in_workspace) = sources.place(&fr.file);
    }
    // a stack all in node_modules (Playwright's `expect` of a helper, a timeout):
    // the place the runner names is the one a person opens
    if !frames.iter().any(|f| f.in_workspace) {
        if let Some(loc) = location
            .as_ref()
            .filter(|l| !frames.is_empty() && sources.place(&l.file).1)
        {
            frames.insert(
                0,
                Frame {
                    function: None,
                    file: loc.file.clone(),
                    line: loc.line,
                    column: None,
                    in_workspace: true,
                    snippet: None,
                },
            );
        }
    }
    // the frame the runner names first, then the workspace's own: the test's
    // line is what a person fixes (a harness's frame may come before it)
    let named = |f: &Frame| {
        location
            .as_ref()
            .is_some_and(|l| l.file == f.file && l.line == f.line)
    };
    frames.sort_by_key(|f| (!named(f), !f.in_workspace));
    for fr in frames
        .iter_mut()
        .filter(|f| f.in_workspace)
        .take(MAX_SNIPPETS)
    {
        fr.snippet = sources.snippet(&fr.file, fr.line);
    }
    // an assertion by `refs.assertionId`, a step by `refs.stepId`; a test's
    // error by its `assertionId` too (the screenshot of docs/per-test-events.md)
    let per_test = per_test::role(ev) == Role::TestError;
    let bound = artifacts
        .iter()
        .filter(|a| {
            ev.id.is_some()
                && (a.assertion_id == ev.id && (ev.kind == "assertion" || per_test)
                    || a.step_id == ev.id && ev.kind != "assertion")
        })
        .map(|a| a.id.clone())
        .collect();
    Failure {
        kind: ev.kind.clone(),
        name: plain(&ev.name),
        id: ev.id.clone(),
        test: None,
        title_path: Vec::new(),
        message,
        styled,
        expected,
        received,
        diff,
        location,
        frames,
        artifacts: bound,
    }
}

/// `{"file", "line"}` (or `"file:line"`), its file placed in the workspace.
fn location_of(v: &Value, sources: &Sources) -> Option<Location> {
    let (file, line) = per_test::location_value(v)?;
    Some(Location {
        file: sources.place(&plain(&file)).0,
        line,
    })
}

/// The workspace's source files, read once each through the bounded reader.
struct Sources {
    root: PathBuf,
    /// The root as the kernel spells it (stacks carry resolved paths).
    real: Option<PathBuf>,
    files: HashMap<String, Option<Vec<String>>>,
}

impl Sources {
    fn new(root: &Path) -> Sources {
        Sources {
            root: root.to_path_buf(),
            real: root.canonicalize().ok(),
            files: HashMap::new(),
        }
    }

    /// A frame's file as shown (relative to the root when inside it) and whether
    /// it is the workspace's own code.
    fn place(&self, file: &str) -> (String, bool) {
        if file.starts_with("node:") || file.starts_with('<') {
            return (file.to_owned(), false);
        }
        let path = if file.starts_with("file://") {
            match url::Url::parse(file)
                .ok()
                .and_then(|u| u.to_file_path().ok())
            {
                Some(p) => p,
                None => return (file.to_owned(), false),
            }
        } else {
            PathBuf::from(file)
        };
        let inside = if path.is_absolute() {
            [Some(&self.root), self.real.as_ref()]
                .into_iter()
                .flatten()
                .filter(|r| r.is_absolute())
                .find_map(|r| path.strip_prefix(r).ok())
                .map(Path::to_path_buf)
        } else {
            Some(path.clone())
        };
        match inside.filter(|p| super::logs::spelled_inside(p)) {
            Some(r) => {
                let shown = rel(Path::new(""), &r);
                let own = !r.components().any(|c| c.as_os_str() == "node_modules");
                (shown, own)
            }
            None => (path.to_string_lossy().into_owned(), false),
        }
    }

    /// The lines around `line` of the workspace file `file` (relative).
    fn snippet(&mut self, file: &str, line: u32) -> Option<Vec<SnippetLine>> {
        let root = &self.root;
        let lines = self
            .files
            .entry(file.to_owned())
            .or_insert_with(|| {
                let (bytes, _) =
                    read::read_head(&root.join(file), Some(root), Kind::Source).ok()?;
                Some(read::lossy(bytes).lines().map(str::to_owned).collect())
            })
            .as_ref()?;
        let at = usize::try_from(line).ok()?;
        if at == 0 || at > lines.len() {
            return None;
        }
        let from = at.saturating_sub(SNIPPET_CONTEXT as usize).max(1);
        let to = (at + SNIPPET_CONTEXT as usize).min(lines.len());
        Some(
            (from..=to)
                .map(|n| SnippetLine {
                    line: u32::try_from(n).unwrap_or(u32::MAX),
                    text: escape(&lines[n - 1]).into_owned(),
                    marked: n == at,
                })
                .collect(),
        )
    }
}

/// The run's artifacts, those bound to a failed event first.
fn bound_artifacts(run_path: &str, items: &[Artifact], failures: &[Failure]) -> Vec<BoundArtifact> {
    let mut out: Vec<BoundArtifact> = items
        .iter()
        .map(|a| BoundArtifact {
            id: a.id.clone(),
            kind: a.kind.clone(),
            path: a.path.clone(),
            file: a.inside.then(|| format!("{run_path}/{}", a.path)),
            exists: a.exists,
            bound_to: failures
                .iter()
                .find(|f| f.artifacts.contains(&a.id))
                .and_then(|f| f.id.clone()),
        })
        .collect();
    out.sort_by_key(|a| a.bound_to.is_none());
    out
}

/// The lines of the run's `runtime-events.jsonl` (its readable start).
fn runtime_lines(run_dir: &Path) -> usize {
    let file = run_dir.join(run_folder::RUNTIME_EVENTS);
    read::read_head(&file, Some(run_dir), Kind::RuntimeEvents).map_or(0, |(b, _)| {
        b.split(|&c| c == b'\n')
            .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
            .count()
    })
}

#[cfg(test)]
mod tests;
