//! What a failure's message and stack say, read from their text alone: the
//! expected / received values, a diff block, a stream's short line, the frames.

use super::{Frame, MAX_FRAMES, first_line, is_failure, plain};
use crate::sanitize::strip_sgr;
use crate::workspace::per_test;
use crate::workspace::timeline::TimelineEvent;
use serde_json::Value;
use std::fmt::Write as _;

/// The `Expected…:` / `Received…:` lines of a message (Playwright, Jest), else
/// chai's `expected X to (deeply) equal Y` (vitest): what was wanted and got.
pub fn expected_received(message: &str) -> (Option<String>, Option<String>) {
    let text = strip_sgr(message);
    let expected = text.lines().find_map(|l| labelled_value(l, "Expected"));
    let received = text.lines().find_map(|l| labelled_value(l, "Received"));
    if expected.is_some() || received.is_some() {
        return (expected, received);
    }
    for line in text.lines() {
        let line = line.trim();
        let Some(rest) = line
            .strip_prefix("expected ")
            .or_else(|| line.split_once(": expected ").map(|(_, r)| r))
        else {
            continue;
        };
        for verb in [
            " to deeply equal ",
            " to strictly equal ",
            " to equal ",
            " to be ",
        ] {
            if let Some((got, want)) = rest.split_once(verb) {
                return (Some(want.trim().to_owned()), Some(got.trim().to_owned()));
            }
        }
    }
    (None, None)
}

/// `Expected…: value` of one line: `Expected:`, `Expected string:`, `Expected
/// pattern:` — not prose.
fn labelled_value(line: &str, word: &str) -> Option<String> {
    let rest = line.trim().strip_prefix(word)?;
    let (label, value) = rest.split_once(':')?;
    let label_ok =
        label.is_empty() || label.starts_with(' ') && label.split_whitespace().count() <= 2;
    (label_ok && !value.trim().is_empty()).then(|| value.trim().to_owned())
}

/// Whether a message has an `Expected…:` line and a `Received…:` line.
pub(super) fn expected_received_lines(message: &str) -> (bool, bool) {
    let text = strip_sgr(message);
    let has = |w: &str| text.lines().any(|l| labelled_value(l, w).is_some());
    (has("Expected"), has("Received"))
}

/// A failed event as one short line for a stream (`run`'s output): the event
/// without its `data` (a whole stack of `node_modules` frames), its message the
/// first line of the error and `(file:line)` where it was raised; the rest is
/// `explain`'s. `None`: no failed event, shown whole.
pub fn short_event(ev: &TimelineEvent) -> Option<TimelineEvent> {
    if !is_failure(ev) {
        return None;
    }
    let data = &ev.data;
    let error = data.get("error").filter(|e| e.is_object());
    let whole = error
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .filter(|m| !m.trim().is_empty())
        .unwrap_or(&ev.message);
    let whole = plain(whole);
    let mut message = first_line(&whole).to_owned();
    if message.is_empty() {
        message = plain(&ev.message);
    }
    let place = per_test::location(data).or_else(|| error.and_then(per_test::location));
    if let Some((file, line)) = place {
        let _ = write!(message, " ({file}:{line})");
    }
    let mut short = ev.clone();
    short.message = message;
    short.data = Value::Null;
    Some(short)
}

/// A `- Expected` / `+ Received` block of a message, from its header on.
pub(super) fn diff_block(message: &str) -> Option<String> {
    let text = strip_sgr(message);
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with("- Expected"))?;
    lines
        .get(start + 1)
        .is_some_and(|l| l.trim_start().starts_with("+ Received"))
        .then(|| lines[start..].join("\n").trim_end().to_owned())
}

/// The frames of a V8 stack: `at fn (file:line:col)`, `at file:line:col`
/// (`file://` URLs too); lines that are no frame are skipped.
pub fn parse_stack(stack: &str) -> Vec<Frame> {
    strip_sgr(stack)
        .lines()
        .filter_map(frame_of)
        .take(MAX_FRAMES)
        .collect()
}

fn frame_of(line: &str) -> Option<Frame> {
    let rest = line.trim().strip_prefix("at ")?.trim();
    let (function, place) = match rest.strip_suffix(')').and_then(|r| r.rsplit_once(" (")) {
        Some((func, place)) => (Some(func.trim().to_owned()), place),
        None => (None, rest),
    };
    // `file:line:col`, or `file:line`
    let (head, last) = place.rsplit_once(':')?;
    let last: u32 = last.parse().ok()?;
    let (file, line, column) = match head.rsplit_once(':') {
        Some((file, line)) if line.parse::<u32>().is_ok() => (file, line.parse().ok()?, Some(last)),
        _ => (head, last, None),
    };
    let file = file.strip_prefix("async ").unwrap_or(file);
    if file.is_empty() || line == 0 {
        return None;
    }
    Some(Frame {
        function: function.filter(|f| !f.is_empty()),
        file: file.to_owned(),
        line,
        column,
        in_workspace: false,
        snippet: None,
    })
}
