//! One run folder for a live view: the capped load of its timeline, artifacts and
//! runtime events, and what the run store read of a run in progress as the pane
//! takes it ([`RunUpdate`]; the follow itself is [`super::store`]'s). No
//! terminal: a shell maps each [`RunUpdate`] to its own message.

use super::{Follower, Start, TailEvent, Watch};
use crate::workspace::config::ConfigLoad as _;
use crate::workspace::logs::Artifact;
use crate::workspace::run_folder;
use crate::workspace::timeline::TimelineEvent;
use std::collections::VecDeque;
use std::path::Path;
/// The most runtime events kept from one file.
pub(crate) const MAX_RUNTIME_EVENTS: usize = 20_000;

/// The most timeline events kept for one run: the last ones, since the live pane
/// follows the end (tens of MB at most; the rest are counted in `RunData::skipped`).
pub use super::store::MAX_TIMELINE_EVENTS;
/// The most problem lines kept for one run; the rest are only counted.
pub const MAX_RUN_PROBLEMS: usize = 1_000;

/// What a loaded run folder holds for the live, events and artifacts panes.
#[derive(Debug, Default)]
pub struct RunData {
    /// The run folder, relative to the workspace root.
    pub path: String,
    /// The timeline's events, at most the last few (see [`RunData::append`]): the
    /// live pane follows the end, and a 1 GB timeline must not fill the memory.
    pub events: VecDeque<TimelineEvent>,
    /// How many earlier lines of the timeline were not loaded, or dropped, to keep that bound.
    pub skipped: u64,
    /// The run's `artifacts.json` entries.
    pub artifacts: Vec<Artifact>,
    /// `runtime-events.jsonl`, one pretty-printed JSON document per line of the file.
    pub runtime_events: Vec<String>,
    /// Located problems met while reading, as text (at most [`MAX_RUN_PROBLEMS`]).
    pub problems: Vec<String>,
    /// Problems met beyond [`MAX_RUN_PROBLEMS`], only counted.
    pub problems_skipped: u64,
    /// No `meta.json` yet: the run is in progress and is followed.
    pub in_progress: bool,
    /// The tail follower that read the timeline, stopped where reading stopped:
    /// following an in-progress run goes on with this very follower, so no line is
    /// read twice or missed between loading and following.
    pub follower: Option<Box<Follower>>,
}

impl RunData {
    /// Apply what the tail engine read: `reset` (the file was truncated or
    /// replaced) drops what was shown first; then `events` are appended, keeping
    /// the last `cap` and counting the dropped ones in `skipped`.
    pub fn append(
        &mut self,
        reset: bool,
        events: impl IntoIterator<Item = TimelineEvent>,
        problems: impl IntoIterator<Item = String>,
        cap: usize,
    ) {
        if reset {
            self.events.clear();
            self.skipped = 0;
        }
        for ev in events {
            self.events.push_back(ev);
            if self.events.len() > cap {
                self.events.pop_front();
                self.skipped += 1;
            }
        }
        for p in problems {
            self.push_problem(p);
        }
    }

    /// Keep a problem line, or only count it past [`MAX_RUN_PROBLEMS`].
    pub(crate) fn push_problem(&mut self, p: String) {
        if self.problems.len() < MAX_RUN_PROBLEMS {
            self.problems.push(p);
        } else {
            self.problems_skipped += 1;
        }
    }

    /// The problem lines to show, with a line for each bound that was reached.
    /// Not escaped: the caller escapes them for the screen.
    pub fn problem_lines(&self) -> Vec<String> {
        let mut lines = Vec::with_capacity(self.problems.len() + 2);
        if self.skipped > 0 {
            lines.push(skipped_note(self.skipped, self.events.len()));
        }
        lines.extend(self.problems.iter().cloned());
        if self.problems_skipped > 0 {
            lines.push(format!(
                "… and {} more problems not kept",
                self.problems_skipped
            ));
        }
        lines
    }
}

/// The notice for a timeline whose first events were not loaded.
pub fn skipped_note(skipped: u64, kept: usize) -> String {
    format!(
        "timeline.jsonl: {skipped} earlier lines not loaded (only the last {kept} events are kept)"
    )
}

/// What the follow of a run read next in its timeline: `reset` when the file was
/// truncated or replaced (the events shown so far are gone; `events` come from the new
/// file's first line), `finished` when `meta.json` reads and this was the last of it.
#[derive(Debug, Default)]
pub struct RunUpdate {
    /// The file was truncated or replaced: drop the events shown so far.
    pub reset: bool,
    /// The timeline events read, in file order.
    pub events: Vec<TimelineEvent>,
    /// Lines that did not parse as timeline events, as messages.
    pub problems: Vec<String>,
    /// `meta.json` reads: the run is over and this was its last batch.
    pub finished: bool,
}

impl From<super::store::RunChange> for RunUpdate {
    /// A change the run store read, as the live pane takes it.
    fn from(c: super::store::RunChange) -> RunUpdate {
        let mut problems = Vec::new();
        let mut events = Vec::with_capacity(c.lines.len());
        for l in c.lines {
            problems.extend(l.issues.iter().map(|m| format!("line {}: {m}", l.lineno)));
            events.push(l.event);
        }
        problems.extend(c.unreadable.iter().map(|m| format!("timeline.jsonl: {m}")));
        RunUpdate {
            reset: c.reset,
            events,
            problems,
            finished: c.finished,
        }
    }
}

/// Read a run folder for the live, details and artifacts panes, keeping the last
/// [`MAX_TIMELINE_EVENTS`] events of its timeline.
pub fn load_run(root: &Path, rel: &str) -> RunData {
    load_run_capped(root, rel, MAX_TIMELINE_EVENTS)
}

/// [`load_run`] keeping the last `cap` (at least 1) timeline events. The timeline
/// is read by the tail engine from its last `cap` lines (the lines before are
/// counted, not parsed, so a 1 GB timeline opens in the time of reading it once):
/// a finished run (`meta.json` is there) to its very end, its unterminated last
/// line included; an in-progress run up to its last complete line, and its
/// follower is kept in [`RunData::follower`] so [`follow`] goes on from exactly there.
pub fn load_run_capped(root: &Path, rel: &str, cap: usize) -> RunData {
    load_run_known(root, rel, cap, None)
}

/// [`load_run_capped`], the timeline and `meta.json` taken from `known` (the
/// run store's snapshot of the run as it ended) instead of read again; its
/// artifacts and runtime events are read.
pub fn load_run_known(
    root: &Path,
    rel: &str,
    cap: usize,
    known: Option<&super::store::RunSnapshot>,
) -> RunData {
    let cap = cap.max(1);
    let Some(snap) = known.filter(|s| s.ended) else {
        return load_run_read(root, rel, cap);
    };
    let dir = root.join(rel);
    let mut data = RunData {
        path: rel.to_owned(),
        skipped: snap.skipped,
        ..RunData::default()
    };
    let from = snap.lines.len().saturating_sub(cap);
    data.skipped += from as u64;
    for l in &snap.lines[from..] {
        for m in &l.issues {
            data.push_problem(format!("line {}: {m}", l.lineno));
        }
        data.events.push_back(l.event.clone());
    }
    if let Some(why) = &snap.meta_refused {
        data.push_problem(format!("{rel}/{}: {why}", run_folder::META));
    }
    read_beside(root, rel, &dir, &mut data);
    data
}

fn load_run_read(root: &Path, rel: &str, cap: usize) -> RunData {
    use crate::workspace::read;
    let dir = root.join(rel);
    // the one decision: a meta.json still being written is in progress (followed
    // until it reads); one refused unread (a link out, a FIFO) ends the run and is
    // reported below, never waited on
    let state = run_folder::state(&dir);
    // a run without meta.json that testdeck cancelled (or whose writer is long
    // gone) has ended too: never followed, never shown live (the core's judge)
    let in_progress = match state {
        run_folder::RunState::InProgress => {
            let mut ignored = Vec::new();
            let config = crate::workspace::config::Config::load(root, &mut ignored);
            crate::workspace::logs::Judge::load(root, &config.runs).unfinished(rel, &dir)
                == crate::workspace::logs::RunStatus::InProgress
        }
        run_folder::RunState::MetaUnfinished => true,
        run_folder::RunState::Ended => false,
    };
    // the follower of an in-progress run is handed to the run store, which the
    // workspace watcher wakes: it watches nothing itself
    let watch = Watch::Off;
    let start = Start::LastN(cap as u64);
    // the timeline stays in its run folder: a link out is refused by the follower
    let mut follower = Follower::within(
        dir.join(run_folder::TIMELINE),
        start,
        watch,
        Some(dir.clone()),
    );
    let mut data = RunData {
        path: rel.to_owned(),
        in_progress,
        ..RunData::default()
    };
    let take = |data: &mut RunData, b: Batch| {
        // the first line read tells how many lines came before it
        if data.events.is_empty() {
            data.skipped += b.first_line.map_or(0, |n| n.saturating_sub(1));
        }
        b.apply(data, cap);
    };
    loop {
        let batch = follower.read_available();
        if batch.is_empty() {
            break;
        }
        take(&mut data, Batch::of(batch));
    }
    if in_progress {
        data.follower = Some(Box::new(follower));
    } else {
        take(&mut data, Batch::of(follower.finish()));
    }
    if state != run_folder::RunState::InProgress {
        if let Err(e) = read::read(&dir.join(run_folder::META), Some(&dir), read::Kind::RunJson) {
            data.push_problem(
                e.problem(&format!("{rel}/{}", run_folder::META), "meta")
                    .to_string(),
            );
        }
    }
    read_beside(root, rel, &dir, &mut data);
    data
}

/// The files beside the timeline: the artifacts and the runtime events.
fn read_beside(root: &Path, rel: &str, dir: &Path, data: &mut RunData) {
    use crate::workspace::read;
    let (artifacts, probs) = crate::workspace::logs::read_artifacts(root, dir);
    if std::fs::symlink_metadata(dir.join(run_folder::ARTIFACTS)).is_ok() {
        for p in &probs {
            data.push_problem(p.to_string());
        }
    }
    data.artifacts = artifacts;
    let events_file = dir.join(run_folder::RUNTIME_EVENTS);
    match read::read_head(&events_file, Some(dir), read::Kind::RuntimeEvents) {
        Ok((text, more)) => {
            if more {
                data.push_problem(format!(
                    "{rel}/runtime-events.jsonl: only the first {} MiB are shown",
                    read::Kind::RuntimeEvents.cap() >> 20
                ));
            }
            for line in text.split(|&b| b == b'\n').take(MAX_RUNTIME_EVENTS) {
                let l = String::from_utf8_lossy(line);
                let l = l.trim();
                if !l.is_empty() {
                    data.runtime_events.push(l.to_owned());
                }
            }
        }
        Err(e) if e.is_missing() => {}
        Err(e) => data.push_problem(
            e.problem(&format!("{rel}/runtime-events.jsonl"), "runtime-events")
                .to_string(),
        ),
    }
}

/// A batch of the tail engine's events, as the live pane takes them.
#[derive(Debug, Default)]
struct Batch {
    /// The file was truncated, replaced or created anew: what was shown is gone.
    reset: bool,
    events: Vec<TimelineEvent>,
    /// The line number of the first of `events`.
    first_line: Option<u64>,
    problems: Vec<String>,
}

impl Batch {
    fn of(evs: Vec<TailEvent>) -> Batch {
        let mut b = Batch::default();
        for ev in evs {
            match ev {
                // an unterminated last line comes only when the writer is done
                // (or its file version ended): shown like a whole line
                TailEvent::Line(l) | TailEvent::Incomplete(l) => {
                    for is in &l.issues {
                        b.problems
                            .push(format!("line {}: {}", l.lineno, is.message));
                    }
                    b.first_line.get_or_insert(l.lineno);
                    b.events.push(l.into_event());
                }
                // a new version of the file: the live pane shows its content only
                TailEvent::Truncated | TailEvent::Replaced | TailEvent::Created => {
                    b.reset = true;
                    b.events.clear();
                    b.first_line = None;
                }
                // what was read stays shown; a file that comes back is `Created`
                TailEvent::Deleted => {}
                TailEvent::Unreadable(m) => b.problems.push(format!("timeline.jsonl: {m}")),
            }
        }
        b
    }

    fn apply(self, data: &mut RunData, cap: usize) {
        data.append(self.reset, self.events, self.problems, cap);
    }
}
