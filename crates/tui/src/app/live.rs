//! The live pane and the artifacts beside it: the run shown (a run folder, a run
//! record or a launch), its filters, the rows shown and the cursors. Rows are kept
//! incrementally: appending N events costs O(N) whatever the window holds.

use super::super::action::{Command, MAX_TIMELINE_EVENTS, RunData};
use super::Effect;
use super::launch::runner_output::is_output;
use super::list::{ListState, rows_for};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::timeline::EVENT_TYPES;
use testdeck_core::workspace::timeline::TimelineEvent;
use testdeck_exec::tests_run::RUNNER_ID;

/// The live pane: the timeline (or runtime events) of one run.
#[derive(Debug, Default)]
pub struct Live {
    /// The run shown; `wanted` is what was last asked for.
    run: Option<RunData>,
    wanted: Option<RunRef>,
    follow: bool,
    failures_only: bool,
    type_filter: Option<&'static str>,
    /// Show runtime-events instead of the timeline.
    show_events: bool,
    events_filter: String,
    /// Hide the runner's output rows (`out` / `err`).
    hide_output: bool,
    /// The rows shown, after the filters: positions into `runtime_events`, or into
    /// `events` counted from `base` (the position `events[0]` had when the rows
    /// were last rebuilt), so events dropped at the front (the cap) never renumber
    /// the rows: an append costs what it brings, not what the window holds.
    rows: VecDeque<usize>,
    base: usize,
    list: ListState,
    /// The artifacts pane's cursor.
    artifacts: ListState,
    /// The launched case shown (its events are appended as they come).
    launch: Option<String>,
    /// While a batch of launch events is applied: whether it brought lines (the
    /// cursor follows once at its end).
    deferred: Option<bool>,
    /// The launch (its index) whose view the pane opened last.
    opened_for: Option<usize>,
    /// The launched case's run whose follow has not handed on its last batch
    /// yet, and its case's end row when it came first (the launch reads the
    /// run's end on its own): the row goes under the run's last events.
    awaiting: Option<String>,
    held_end: Option<TimelineEvent>,
    /// The most timeline events the pane keeps ([`MAX_TIMELINE_EVENTS`]).
    cap: usize,
    /// How many columns the rows are scrolled sideways (`<` / `>`).
    hscroll: usize,
    /// The run the selection asked for last (the pane follows its changes).
    last_want: Option<RunRef>,
}

/// How many columns `<` / `>` scroll the rows sideways.
pub const HSCROLL_STEP: usize = 10;

/// What the live pane shows: a run folder (relative to the root), a catalog run
/// record (its file, relative to the root), one catalog case's rows in a run
/// record (the file, the case id), or a launched case not yet in a folder (the
/// empty id: a launch started, its first case not yet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunRef {
    Folder(String),
    Record(String),
    Case(String, String),
    Launch(String),
}

/// `caseId · runId` of a run folder (its last two parts), unescaped.
pub fn run_name(path: &str) -> String {
    let mut parts = path.rsplit('/');
    let run = parts.next().unwrap_or("");
    match parts.next() {
        Some(case) => format!("{case} · {run}"),
        None => run.to_owned(),
    }
}

/// A run record's id from its file name (`ID.yaml` → `ID`).
fn record_id(file: &str) -> &str {
    file.strip_suffix(".yaml").unwrap_or(file)
}

/// A failed event or an error.
pub fn is_failure(e: &TimelineEvent) -> bool {
    e.status == "failed" || e.kind == "error"
}

impl Live {
    pub fn new() -> Live {
        Live {
            follow: true,
            cap: MAX_TIMELINE_EVENTS,
            ..Live::default()
        }
    }

    /// The run shown.
    pub fn run(&self) -> Option<&RunData> {
        self.run.as_ref()
    }

    /// The run shown, to change in place (a launch's end marks it ended).
    pub fn run_mut(&mut self) -> Option<&mut RunData> {
        self.run.as_mut()
    }

    /// Show `run` (or nothing); the rows are built again by [`Live::refilter`].
    pub fn set_run(&mut self, run: Option<RunData>) {
        self.run = run;
    }

    /// The run last asked for.
    pub fn wanted(&self) -> Option<&RunRef> {
        self.wanted.as_ref()
    }

    /// Ask for `want`: the launch shown before it is no longer fed here. Another
    /// run than the one shown starts unfiltered (the filters reset: one rule for
    /// a selection that moves and a launch that starts).
    pub fn set_wanted(&mut self, want: Option<RunRef>) {
        self.launch = None;
        self.awaiting = None;
        self.held_end = None;
        if want != self.wanted {
            self.reset_filters();
        }
        self.wanted = want;
    }

    /// Every filter off — failures only, the type, the hidden output lines, the
    /// runtime events' text — without rebuilding the rows (the run they apply
    /// to is about to change; [`Live::refilter`] follows its load).
    pub fn reset_filters(&mut self) {
        self.failures_only = false;
        self.type_filter = None;
        self.hide_output = false;
        self.events_filter.clear();
    }

    /// The filters on, as the pane's title names them (`[failures]`,
    /// `[type: step]`, `[output hidden]`, `[s: text]`), in that order.
    pub fn active_filters(&self) -> Vec<String> {
        let mut on = Vec::new();
        if self.failures_only {
            on.push("[failures]".to_owned());
        }
        if let Some(t) = self.type_filter {
            on.push(format!("[type: {t}]"));
        }
        if self.hide_output {
            on.push("[output hidden]".to_owned());
        }
        if !self.events_filter.is_empty() {
            on.push(format!("[s: {}]", escape(&self.events_filter)));
        }
        on
    }

    /// Whether the cursor follows the last row.
    pub fn follow(&self) -> bool {
        self.follow
    }

    /// Whether only failures are shown.
    pub fn failures_only(&self) -> bool {
        self.failures_only
    }

    /// The event type shown alone, if any.
    pub fn type_filter(&self) -> Option<&'static str> {
        self.type_filter
    }

    /// Whether the runtime events are shown instead of the timeline.
    pub fn show_events(&self) -> bool {
        self.show_events
    }

    /// The runtime events' filter (`/`).
    pub fn events_filter(&self) -> &str {
        &self.events_filter
    }

    /// The runtime events' filter, for the input line to edit.
    pub fn events_filter_mut(&mut self) -> &mut String {
        &mut self.events_filter
    }

    /// Whether the runner's output rows are hidden.
    pub fn hide_output(&self) -> bool {
        self.hide_output
    }

    /// The cursor and scroll over the rows.
    pub fn list(&self) -> &ListState {
        &self.list
    }

    /// The artifacts pane's cursor.
    pub fn artifacts(&self) -> &ListState {
        &self.artifacts
    }

    /// The launched case shown, if any.
    pub fn launch(&self) -> Option<&str> {
        self.launch.as_deref()
    }

    /// The launch (its index) whose view the pane opened last.
    pub fn opened_for(&self) -> Option<usize> {
        self.opened_for
    }

    /// The launch shown is no longer fed here (its run is read from its folder).
    pub fn drop_launch(&mut self) {
        self.launch = None;
        self.awaiting = None;
        self.held_end = None;
    }

    /// The pane opened launch `index`'s view.
    pub fn opened(&mut self, index: usize) {
        self.opened_for = Some(index);
    }

    /// Move the cursor by `d` rows: up pauses follow, reaching the bottom resumes it.
    pub fn step(&mut self, d: isize) {
        let len = self.rows.len();
        self.list.step(d, len);
        self.follow = len == 0 || self.list.cursor + 1 == len;
    }

    /// A click on row `row` of those shown: on the last it follows again.
    pub fn click(&mut self, row: usize) {
        let n = self.rows.len();
        if self.list.click(row, n) {
            self.follow = self.list.cursor + 1 == n;
        }
    }

    /// Keep the cursor in range and in view of `height` rows.
    pub fn fit(&mut self, height: usize) {
        self.list.fit(self.rows.len(), height);
    }

    /// Move the artifacts' cursor by `d`.
    pub fn step_artifact(&mut self, d: isize) {
        let n = self.artifact_count();
        self.artifacts.step(d, n);
    }

    /// A click on artifact `row` (the list does not scroll).
    pub fn click_artifact(&mut self, row: usize) {
        let n = self.artifact_count();
        self.artifacts.offset = 0;
        self.artifacts.click(row, n);
    }

    /// The cursor on the first row.
    pub fn top(&mut self) {
        self.list.cursor = 0;
    }

    /// `/`: the runtime events shown, their filter line opened.
    pub fn filter_events(&mut self) {
        self.show_events = true;
        self.refilter();
    }

    /// Esc: every filter off.
    pub fn clear_filters(&mut self) {
        self.reset_filters();
        self.refilter();
    }

    /// Keep at most `cap` timeline events (tests use a small one).
    #[cfg(test)]
    pub(crate) fn set_cap(&mut self, cap: usize) {
        self.cap = cap;
    }

    /// Stop following with the cursor on row `row` (as a person scrolling up would).
    #[cfg(test)]
    pub(crate) fn pause_at(&mut self, row: usize) {
        self.follow = false;
        self.list.cursor = row;
    }

    /// The keys that only concern the live pane: the cursor moves (`page` rows a
    /// page) when it has the focus (`focused`), its toggles whatever the focus.
    /// Whether `c` was one.
    pub fn handle(&mut self, c: Command, page: isize, focused: bool) -> bool {
        match c {
            Command::Follow
            | Command::FailuresOnly
            | Command::CycleType
            | Command::ToggleEvents
            | Command::ToggleOutput => {
                self.command(c);
                true
            }
            Command::ScrollLeft if focused => {
                self.hscroll = self.hscroll.saturating_sub(HSCROLL_STEP);
                true
            }
            Command::ScrollRight if focused => {
                // no further than the widest row's start
                let widest = self.widest_row();
                self.hscroll = (self.hscroll + HSCROLL_STEP).min(widest.saturating_sub(1));
                true
            }
            _ if focused => rows_for(c, page).map(|d| self.step(d)).is_some(),
            _ => false,
        }
    }

    /// How many columns the rows are scrolled sideways.
    pub fn hscroll(&self) -> usize {
        self.hscroll
    }

    /// The characters of the longest name · message among the rows (a bound for `>`;
    /// the fixed columns before it are 31 wide).
    fn widest_row(&self) -> usize {
        let Some(run) = &self.run else { return 0 };
        if self.show_events {
            return self
                .rows()
                .filter_map(|i| run.runtime_events.get(i))
                .map(|l| l.chars().count())
                .max()
                .unwrap_or(0);
        }
        self.rows()
            .filter_map(|i| run.events.get(i))
            .map(|e| 40 + e.name.chars().count() + e.message.chars().count())
            .max()
            .unwrap_or(0)
    }

    /// The cursor keys on the artifacts beside the live pane. Whether `c` was one.
    pub fn handle_artifacts(&mut self, c: Command, page: isize) -> bool {
        rows_for(c, page).map(|d| self.step_artifact(d)).is_some()
    }

    /// The live pane's own toggles: follow, failures only, the type filter, runtime events.
    pub fn command(&mut self, c: Command) {
        match c {
            Command::Follow => {
                self.follow = !self.follow;
                if self.follow {
                    self.bottom();
                }
            }
            Command::FailuresOnly => {
                self.failures_only = !self.failures_only;
                self.filter_changed();
            }
            Command::CycleType => {
                self.type_filter = match self.type_filter {
                    None => Some(EVENT_TYPES[0]),
                    Some(t) => EVENT_TYPES
                        .iter()
                        .position(|x| *x == t)
                        .and_then(|i| EVENT_TYPES.get(i + 1))
                        .copied(),
                };
                self.filter_changed();
            }
            Command::ToggleEvents => {
                self.show_events = !self.show_events;
                self.list.cursor = 0;
                self.refilter();
            }
            Command::ToggleOutput => {
                self.hide_output = !self.hide_output;
                self.filter_changed();
            }
            _ => {}
        }
    }

    /// The cursor on the last row.
    pub fn bottom(&mut self) {
        self.list.bottom(self.rows.len());
    }

    /// How many rows the filters keep.
    pub fn visible_len(&self) -> usize {
        self.rows.len()
    }

    /// The row at `pos`: its index into `events` (or `runtime_events`).
    pub fn row(&self, pos: usize) -> Option<usize> {
        let base = if self.show_events { 0 } else { self.base };
        self.rows.get(pos).map(|&i| i - base)
    }

    /// The rows shown, in order, each as [`Live::row`] gives it.
    pub fn rows(&self) -> impl Iterator<Item = usize> + '_ {
        let base = if self.show_events { 0 } else { self.base };
        self.rows.iter().map(move |&i| i - base)
    }

    /// Whether the timeline filters keep `e`.
    fn keeps(&self, e: &TimelineEvent) -> bool {
        (!self.failures_only || is_failure(e))
            && self.type_filter.is_none_or(|t| e.kind == t)
            && !(self.hide_output && is_output(e))
    }

    /// The name the live pane's title gives the run shown: the case and the run
    /// (`caseId · runId`; a record of several cases: its runId alone; a launch
    /// without a folder yet: `caseId · launch`).
    pub fn title_id(&self) -> String {
        let Some(run) = &self.run else {
            return String::new();
        };
        let last = run.path.rsplit('/').next().unwrap_or("");
        match &self.wanted {
            Some(RunRef::Launch(id)) if run.path == *id => format!("{id} · launch"),
            Some(RunRef::Case(_, id)) => format!("{id} · {}", record_id(last)),
            Some(RunRef::Record(_)) => record_id(last).to_owned(),
            _ => run_name(&run.path),
        }
    }

    /// The case whose run is shown (its id, or tests key's last part), if one is.
    pub fn case_shown(&self) -> Option<String> {
        let run = self.run.as_ref()?;
        match &self.wanted {
            Some(RunRef::Launch(id)) if run.path == *id => Some(id.clone()),
            Some(RunRef::Case(_, id)) => Some(id.clone()),
            Some(RunRef::Record(_)) => None,
            _ => run.path.rsplit('/').nth(1).map(str::to_owned),
        }
    }

    /// The run followed lost its folder (deleted): it ends here, with a note.
    pub fn vanished(&mut self) {
        self.launch = None;
        if let Some(run) = self.run.as_mut() {
            run.in_progress = false;
            run.events.push_back(super::launch::runner_output::note(
                "run",
                "folder deleted",
                "skipped",
                "the run's folder was deleted while it was followed: it ends here".into(),
            ));
        }
        self.refilter();
        if self.follow {
            self.bottom();
        }
    }

    /// A launch started: the previous run's rows leave at once (nothing of it
    /// shows under the new launch), the pane waits for the launch's first case.
    pub fn starting(&mut self) {
        self.set_wanted(Some(RunRef::Launch(String::new())));
        self.opened_for = None;
        self.follow = true;
        self.clear();
    }

    /// The number of artifacts of the run shown.
    pub fn artifact_count(&self) -> usize {
        self.run.as_ref().map_or(0, |r| r.artifacts.len())
    }

    /// Show nothing.
    pub fn clear(&mut self) {
        self.run = None;
        self.rows.clear();
        self.base = 0;
    }

    /// Edit `e` typed on the runtime events' filter line: the rows it keeps.
    pub(super) fn edit_filter(&mut self, e: super::input::Edit) {
        e.apply(&mut self.events_filter);
        self.refilter();
    }

    /// The rows the filters keep, rebuilt (a filter changed, a run was loaded).
    pub fn refilter(&mut self) {
        self.base = 0;
        let Some(run) = &self.run else {
            self.rows.clear();
            return;
        };
        if self.show_events {
            let f = self.events_filter.to_lowercase();
            self.rows = (0..run.runtime_events.len())
                .filter(|&i| f.is_empty() || run.runtime_events[i].to_lowercase().contains(&f))
                .collect();
        } else {
            self.rows = (0..run.events.len())
                .filter(|&i| self.keeps(&run.events[i]))
                .collect();
        }
        self.refit();
    }

    /// The cursor and the scroll re-fitted to the rows the filters keep now: the
    /// cursor inside them, and the window never starting below the cursor (a
    /// filter that leaves fewer rows than the offset would show the header
    /// alone). The App fits the window to its height after.
    fn refit(&mut self) {
        self.list.clamp_to(self.rows.len());
        self.list.offset = self.list.offset.min(self.list.cursor);
    }

    /// A timeline filter changed: the rows rebuilt, and a followed pane on its
    /// last row again.
    fn filter_changed(&mut self) {
        self.refilter();
        if self.follow {
            self.bottom();
        }
    }

    /// Apply `events` to the run shown (`reset`: the file was replaced) keeping
    /// the last [`Live::cap`], and the rows with them: only the new events are looked at
    /// and the rows of dropped ones leave the front. Returns how many rows left.
    fn append_rows(
        &mut self,
        reset: bool,
        events: impl IntoIterator<Item = TimelineEvent>,
        problems: Vec<String>,
    ) -> usize {
        let cap = self.cap;
        let Some(run) = self.run.as_mut() else {
            return 0;
        };
        if reset {
            let gone = self.rows.len();
            run.append(true, events, problems, cap);
            self.refilter();
            return gone;
        }
        let (len0, skipped0) = (run.events.len(), run.skipped);
        run.append(false, events, problems, cap);
        if self.show_events {
            // the rows are runtime events: rebuilt when the timeline is shown again
            return 0;
        }
        let dropped = usize::try_from(run.skipped - skipped0).unwrap_or(usize::MAX);
        let old_end = self.base + len0;
        self.base += dropped;
        let mut gone = 0;
        while self.rows.front().is_some_and(|&i| i < self.base) {
            self.rows.pop_front();
            gone += 1;
        }
        let Some(run) = self.run.as_ref() else {
            return gone;
        };
        let first = old_end.max(self.base);
        let kept: Vec<usize> = (first..self.base + run.events.len())
            .filter(|&i| self.keeps(&run.events[i - self.base]))
            .collect();
        self.rows.extend(kept);
        self.list.clamp_to(self.rows.len());
        gone
    }

    /// A run folder read; an in-progress one comes with its follower, to follow.
    pub fn loaded(&mut self, mut data: RunData) -> Vec<Effect> {
        if !matches!(&self.wanted, Some(RunRef::Folder(p)) if *p == data.path) {
            return Vec::new(); // a stale answer: the selection moved on
        }
        // only an in-progress run comes with its follower
        let follow = data.follower.take().map(|follower| Effect::Follow {
            path: data.path.clone(),
            follower: Some(follower),
        });
        // the run shown read again when it ended (its artifacts, details): the rows
        // already shown stay when they hold the runner's output lines and every
        // timeline event read from disk, so the output does not leave the pane
        // (a launch's run: its follow, begun with its case, goes on to its end)
        // A launch's view keeps its rows whatever the read found: its follow,
        // begun from the timeline's first line with the case, brings the run's
        // events after them (a busy machine can end the run and read it again
        // before that follow has handed on its first batch).
        let again = self.run.as_ref().is_some_and(|r| r.path == data.path);
        let launch_view = self.launch_rows();
        if let Some(old) = self.run.take_if(|r| r.path == data.path) {
            let timeline = old.events.iter().filter(|e| !is_output(e)).count();
            if launch_view
                || old.events.iter().any(is_output)
                    && timeline >= data.events.len()
                    && old.skipped >= data.skipped
            {
                data.events = old.events;
                data.skipped = old.skipped;
                self.run = Some(data);
                self.refilter();
                if self.follow {
                    self.bottom();
                }
                return follow.into_iter().collect();
            }
        }
        // an ended run shown again as read: a follow still under way (a
        // launch's) would add what this read already holds
        let follow = follow.or_else(|| (again && !data.in_progress).then_some(Effect::StopFollow));
        // a run of several traces opens on the failed test's own
        self.artifacts.cursor =
            testdeck_core::workspace::per_test::failed_trace(&data.artifacts, &data.events)
                .unwrap_or(0);
        self.run = Some(data);
        self.list.reset();
        self.refilter();
        if self.follow {
            self.bottom();
        }
        follow.into_iter().collect()
    }

    /// New lines of the followed run's timeline (see `Action::FollowQueued`).
    pub fn append(
        &mut self,
        path: &str,
        reset: bool,
        events: Vec<TimelineEvent>,
        problems: Vec<String>,
        finished: bool,
    ) {
        let at_end = self.follow;
        if self.run.as_ref().is_none_or(|r| r.path != path) {
            return;
        }
        let reset = reset && !self.launch_rows();
        // events dropped at the front (the cap): the rows the person looks at move up
        let gone = self.append_rows(reset, events, problems);
        if finished {
            if let Some(run) = self.run.as_mut() {
                run.in_progress = false;
            }
            if self.awaiting.as_deref() == Some(path) {
                self.release_end();
            }
        }
        if at_end {
            self.bottom();
        } else if !self.show_events {
            self.list.cursor = self.list.cursor.saturating_sub(gone);
            self.list.offset = self.list.offset.saturating_sub(gone);
        }
    }

    /// What waited in the follow queue: as [`Live::append`], and the events the
    /// queue dropped (more came than the pane keeps) counted as not loaded.
    pub fn append_queued(&mut self, path: &str, t: crate::follow_queue::Taken) {
        let u = t.update;
        let reset = u.reset && !self.launch_rows();
        if !reset {
            if let Some(run) = self.run.as_mut().filter(|r| r.path == path) {
                run.skipped += t.dropped;
            }
        }
        self.append(path, reset, u.events, u.problems, u.finished);
        if reset {
            if let Some(run) = self.run.as_mut().filter(|r| r.path == path) {
                run.skipped += t.dropped;
            }
        }
    }

    /// The selected row's data, pretty-printed: the overlay's title and lines.
    pub fn data(&self) -> Option<(String, Vec<String>)> {
        let run = self.run.as_ref()?;
        let i = self.row(self.list.cursor)?;
        if self.show_events {
            // a JSON line reads better indented; anything else is shown as it is
            let raw = &run.runtime_events[i];
            let lines = serde_json::from_str::<serde_json::Value>(raw).map_or_else(
                |_| vec![testdeck_core::sanitize::escape_keep_sgr(raw).into_owned()],
                |v| pretty_lines(&v),
            );
            return Some((format!("runtime event {}", i + 1), lines));
        }
        let e = &run.events[i];
        // the event's whole message first (its row cuts it), then its data
        let mut lines: Vec<String> = e
            .message
            .trim_end()
            .split('\n')
            .filter(|_| !e.message.trim().is_empty())
            .map(|l| testdeck_core::sanitize::escape_keep_sgr(l).into_owned())
            .collect();
        if !lines.is_empty() {
            lines.push(String::new());
        }
        let data = if e.extra.is_empty() {
            pretty_lines(&e.data)
        } else {
            let mut all = serde_json::Map::new();
            all.insert("data".into(), e.data.clone());
            for (k, v) in &e.extra {
                all.insert(k.clone(), v.clone());
            }
            pretty_lines(&serde_json::Value::Object(all))
        };
        lines.extend(data);
        Some((
            escape(&format!("{} {} — {}", e.kind, e.name, e.status)).into_owned(),
            lines,
        ))
    }

    /// The selected artifact to open: its kind, its path as shown (run-relative),
    /// its file and its run folder (which the copy handed to the opener is read
    /// beneath), or why there is none.
    pub fn artifact_to_open(
        &self,
        root: &Path,
    ) -> Result<(String, String, PathBuf, PathBuf), String> {
        let Some(run) = &self.run else {
            return Err("no run selected".into());
        };
        let Some(a) = run.artifacts.get(self.artifacts.cursor) else {
            return Err("this run has no artifacts".into());
        };
        let dir = root.join(&run.path);
        let Some(file) = a.file(&dir) else {
            return Err(format!(
                "refused: {} leaves the run folder",
                escape(&a.path)
            ));
        };
        if !a.exists {
            return Err(format!("missing: {}", escape(&a.path)));
        }
        // checked again as it is copied for its opener (the runtime's job)
        Ok((a.kind.clone(), a.path.clone(), file, dir))
    }

    /// `n` / `N`: the next (previous) failure; `Some(found)` when the timeline is shown.
    pub fn jump_failure(&mut self, forward: bool) -> Option<bool> {
        if self.show_events {
            return None;
        }
        let run = self.run.as_ref()?;
        let n = self.rows.len();
        let cur = self.list.cursor;
        let failed = |p: usize| {
            self.row(p)
                .and_then(|i| run.events.get(i))
                .is_some_and(is_failure)
        };
        let hit = if forward {
            (cur + 1..n).find(|&p| failed(p))
        } else {
            (0..cur).rev().find(|&p| failed(p))
        };
        if let Some(p) = hit {
            self.list.cursor = p;
            self.follow = p + 1 == n;
        }
        Some(hit.is_some())
    }

    /// Whether the rows shown are a launch's: its case's start and end, the
    /// runner's lines, between the run's events. A new version of the timeline
    /// (created after the follow began, rewritten) then adds its lines and
    /// clears nothing: those rows are not in the file.
    fn launch_rows(&self) -> bool {
        self.launch.is_some()
    }

    /// Show launched case `id` in the live pane, following its run folder
    /// `path` when it has one. The runner's lines shown before its first case
    /// (the launch's own view) stay, above the case's events.
    pub fn show_launch(&mut self, id: &str, path: Option<&str>) -> Vec<Effect> {
        let key = path.unwrap_or(id).to_owned();
        let carried = if self.launch.as_deref() == Some(RUNNER_ID)
            && matches!(&self.wanted, Some(RunRef::Launch(w)) if w == RUNNER_ID)
        {
            self.run.take().map(|r| (r.events, r.skipped))
        } else {
            None
        };
        self.wanted = Some(path.map_or_else(
            || RunRef::Launch(id.to_owned()),
            |p| RunRef::Folder(p.to_owned()),
        ));
        let (events, skipped) = carried.unwrap_or_default();
        self.run = Some(RunData {
            path: key,
            in_progress: true,
            events,
            skipped,
            ..RunData::default()
        });
        self.follow = true;
        self.show_events = false;
        self.launch = Some(id.to_owned());
        self.awaiting = path.map(str::to_owned);
        self.held_end = None;
        self.refilter();
        self.bottom();
        // its run's events come as those of any run followed: through the follow
        // of its folder, from the timeline's first line (the launch brings its
        // lifecycle and the runner's output only)
        vec![path.map_or(Effect::StopFollow, |p| Effect::Follow {
            path: p.to_owned(),
            follower: None,
        })]
    }

    /// Several events are about to be pushed: the cursor follows once, at [`Live::end_batch`].
    pub fn begin_batch(&mut self) {
        self.deferred = Some(false);
    }

    /// The batch is in: follow to the last row once, if it brought lines.
    pub fn end_batch(&mut self) {
        if self.deferred.take() == Some(true) && self.follow {
            self.bottom();
        }
    }

    /// An event of launched case `id`, shown when that case is.
    pub fn push(&mut self, id: &str, ev: TimelineEvent) {
        if self.launch.as_deref() != Some(id) {
            return;
        }
        self.push_shown(ev);
    }

    /// The end row of launched case `id`: under its run's last events, so held
    /// while the follow of its run has not handed on its last batch.
    pub fn push_end(&mut self, id: &str, ev: TimelineEvent) {
        if self.launch.as_deref() != Some(id) {
            return;
        }
        if self.awaiting.is_some() {
            self.held_end = Some(ev);
        } else {
            self.push_shown(ev);
        }
    }

    /// The follow of the launched case's run handed on its last batch, or the
    /// launch ended (a run cancelled, or without `meta.json`, is never
    /// finished by its follow): the end row held goes in now.
    pub fn release_end(&mut self) {
        self.awaiting = None;
        if let Some(ev) = self.held_end.take().filter(|_| self.launch.is_some()) {
            self.push_shown(ev);
        }
    }

    /// A line the runner of launch `index` wrote: shown in the launch's view,
    /// whichever of its cases is shown; the launch's own view is opened for it
    /// when that launch has shown nothing yet (a person who moved to another run
    /// keeps it).
    pub fn push_runner_line(&mut self, index: usize, ev: TimelineEvent) -> Vec<Effect> {
        let mut fx = Vec::new();
        if self.launch.is_none() {
            if self.opened_for == Some(index) {
                return fx;
            }
            fx = self.show_launch(RUNNER_ID, None);
        }
        self.opened_for = Some(index);
        self.push_shown(ev);
        fx
    }

    fn push_shown(&mut self, ev: TimelineEvent) {
        let follow = self.follow;
        let gone = self.append_rows(false, [ev], Vec::new());
        if let Some(d) = self.deferred.as_mut() {
            // a batch: the cursor follows once at its end, not once a line
            *d = true;
        } else if follow {
            self.bottom();
        }
        if !follow {
            self.list.cursor = self.list.cursor.saturating_sub(gone);
            self.list.offset = self.list.offset.saturating_sub(gone);
        }
    }

    /// A person gave launched case `id` its verdict: its end row no longer says it
    /// needs a person (when the pane still shows that case).
    pub fn judged(&mut self, id: &str, verdict: testdeck_exec::record::Verdict) {
        if self.launch.as_deref() != Some(id) {
            return;
        }
        let Some(run) = self.run.as_mut() else {
            return;
        };
        let status = status_of(verdict);
        if let Some(e) = run
            .events
            .iter_mut()
            .rev()
            .find(|e| e.kind == "run" && e.name.starts_with("end "))
        {
            e.name = format!("end {}", verdict.as_str());
            e.status = status.into();
            e.message = "judged by a person".into();
        }
        self.refilter();
    }
}

/// The timeline status a verdict is shown with.
pub fn status_of(v: testdeck_exec::record::Verdict) -> &'static str {
    use testdeck_exec::record::Verdict;
    match v {
        Verdict::Pass => "ok",
        Verdict::Fail | Verdict::EnvironmentFail => "failed",
        Verdict::Skipped | Verdict::NotRun => "skipped",
    }
}

/// Indentation of one level of [`pretty_lines`], and of a string's lines under its key.
const INDENT: &str = "  ";

/// `v` pretty-printed as JSON, except that a string of several lines is a block:
/// its key on a line of its own, then the string's lines indented under it (a
/// stack, a call log, a diff read as they were written). Every line is escaped;
/// the SGR sequences of a value are kept, for the overlay to draw as styles.
pub fn pretty_lines(v: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    pretty_value(v, 0, "", "", &mut out);
    out
}

/// `head` (a key and colon, or nothing) then `v` at depth `depth`, then `tail` (a comma).
fn pretty_value(
    v: &serde_json::Value,
    depth: usize,
    head: &str,
    tail: &str,
    out: &mut Vec<String>,
) {
    use serde_json::Value;
    let pad = INDENT.repeat(depth);
    match v {
        Value::String(s) if s.trim_end().contains('\n') => {
            out.push(format!("{pad}{}", head.trim_end()));
            for l in s.trim_end().split('\n') {
                let l = testdeck_core::sanitize::escape_keep_sgr(l.trim_end());
                out.push(if l.is_empty() {
                    String::new()
                } else {
                    format!("{pad}{INDENT}{INDENT}{l}")
                });
            }
        }
        Value::Object(m) if !m.is_empty() => {
            out.push(format!("{pad}{head}{{"));
            for (i, (k, val)) in m.iter().enumerate() {
                let comma = if i + 1 < m.len() { "," } else { "" };
                let key = serde_json::to_string(k).unwrap_or_default();
                pretty_value(val, depth + 1, &format!("{}: ", escape(&key)), comma, out);
            }
            out.push(format!("{pad}}}{tail}"));
        }
        Value::Array(a) if !a.is_empty() => {
            out.push(format!("{pad}{head}["));
            for (i, val) in a.iter().enumerate() {
                let comma = if i + 1 < a.len() { "," } else { "" };
                pretty_value(val, depth + 1, "", comma, out);
            }
            out.push(format!("{pad}]{tail}"));
        }
        other => {
            // one JSON token: a colour in a one-line string is drawn, every other
            // escape stays JSON text
            let json = serde_json::to_string(other).unwrap_or_default();
            let text = testdeck_core::sanitize::json_lines_keep_sgr(&json).concat();
            out.push(format!("{pad}{head}{text}{tail}"));
        }
    }
}

pub mod launch;
mod wanted;

#[cfg(test)]
mod tests;
