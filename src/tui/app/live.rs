//! The live pane and the artifacts beside it: the run shown (a run folder, a run
//! record or a launch), its filters, the rows shown and the cursors.

use super::super::action::{Command, RunData};
use super::Effect;
use super::list::ListState;
use crate::sanitize::escape;
use crate::workspace::timeline::EVENT_TYPES;
use crate::workspace::timeline::TimelineEvent;
use std::path::{Path, PathBuf};

/// The live pane: the timeline (or runtime events) of one run.
#[derive(Debug, Default)]
pub struct Live {
    /// The run shown; `wanted` is what was last asked for.
    pub run: Option<RunData>,
    pub wanted: Option<RunRef>,
    pub follow: bool,
    pub failures_only: bool,
    pub type_filter: Option<&'static str>,
    /// Show runtime-events instead of the timeline.
    pub show_events: bool,
    pub events_filter: String,
    /// Indices of the rows shown (into events or runtime_events), after the filters.
    pub visible: Vec<usize>,
    pub list: ListState,
    /// The artifacts pane's cursor.
    pub artifacts: ListState,
    /// The launched case shown (its events are appended as they come).
    pub launch: Option<String>,
    /// While a batch of launch events is applied: whether it brought lines (the
    /// pane is refiltered once at its end).
    deferred: Option<bool>,
}

/// What the live pane shows: a run folder (relative to the root), a catalog run
/// record (its file, relative to the root), or a launched case not yet in a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunRef {
    Folder(String),
    Record(String),
    Launch(String),
}

/// A failed event or an error.
pub fn is_failure(e: &TimelineEvent) -> bool {
    e.status == "failed" || e.kind == "error"
}

impl Live {
    pub fn new() -> Live {
        Live {
            follow: true,
            ..Live::default()
        }
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
                self.refilter();
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
                self.refilter();
            }
            Command::ToggleEvents => {
                self.show_events = !self.show_events;
                self.list.cursor = 0;
                self.refilter();
            }
            _ => {}
        }
    }

    /// The cursor on the last row.
    pub fn bottom(&mut self) {
        self.list.bottom(self.visible.len());
    }

    /// The name the live pane's title gives the run shown: the folder's last part
    /// (the runId, or the record's file), `launch:ID` for a launch without a folder.
    pub fn title_id(&self) -> String {
        match (&self.wanted, &self.run) {
            (Some(RunRef::Launch(id)), Some(run)) if run.path == *id => format!("launch:{id}"),
            (_, Some(run)) => run.path.rsplit('/').next().unwrap_or("").to_owned(),
            (_, None) => String::new(),
        }
    }

    /// The number of artifacts of the run shown.
    pub fn artifact_count(&self) -> usize {
        self.run.as_ref().map_or(0, |r| r.artifacts.len())
    }

    /// Show nothing.
    pub fn clear(&mut self) {
        self.run = None;
        self.visible.clear();
    }

    /// The rows the filters keep.
    pub fn refilter(&mut self) {
        let Some(run) = &self.run else {
            self.visible.clear();
            return;
        };
        if self.show_events {
            let f = self.events_filter.to_lowercase();
            self.visible = (0..run.runtime_events.len())
                .filter(|&i| f.is_empty() || run.runtime_events[i].to_lowercase().contains(&f))
                .collect();
        } else {
            let (fo, tf) = (self.failures_only, self.type_filter);
            self.visible = (0..run.events.len())
                .filter(|&i| {
                    let e = &run.events[i];
                    (!fo || is_failure(e)) && tf.is_none_or(|t| e.kind == t)
                })
                .collect();
        }
        self.list.clamp_to(self.visible.len());
    }

    /// A run folder read; an in-progress one comes with its follower, to follow.
    pub fn loaded(&mut self, mut data: RunData) -> Vec<Effect> {
        if !matches!(&self.wanted, Some(RunRef::Folder(p)) if *p == data.path) {
            return Vec::new(); // a stale answer: the selection moved on
        }
        // only an in-progress run comes with its follower
        let follow = data.follower.take().map(|follower| Effect::Follow {
            path: data.path.clone(),
            follower,
        });
        self.run = Some(data);
        self.artifacts.cursor = 0;
        self.list.reset();
        self.refilter();
        if self.follow {
            self.bottom();
        }
        follow.into_iter().collect()
    }

    /// New lines of the followed run's timeline (see `Action::TimelineAppend`).
    pub fn append(
        &mut self,
        path: &str,
        reset: bool,
        events: Vec<TimelineEvent>,
        problems: Vec<String>,
        finished: bool,
        cap: usize,
    ) -> Vec<Effect> {
        let at_end = self.follow;
        let Some(run) = self.run.as_mut().filter(|r| r.path == path) else {
            return Vec::new();
        };
        let before = (run.events.len(), run.skipped);
        run.append(reset, events, problems, cap);
        // events dropped at the front (the cap): the rows the person looks at move up
        let dropped = if reset {
            before.0
        } else {
            usize::try_from(run.skipped - before.1).unwrap_or(usize::MAX)
        };
        if finished {
            run.in_progress = false;
        }
        let gone = self.visible.iter().take_while(|&&i| i < dropped).count();
        self.refilter();
        if at_end {
            self.bottom();
        } else if !self.show_events {
            self.list.cursor = self.list.cursor.saturating_sub(gone);
            self.list.offset = self.list.offset.saturating_sub(gone);
        }
        // a finished run changes statuses and statistics: index again
        if finished {
            vec![Effect::Reload]
        } else {
            Vec::new()
        }
    }

    /// The selected row's data, pretty-printed: the overlay's title and lines.
    pub fn data(&self) -> Option<(String, Vec<String>)> {
        let run = self.run.as_ref()?;
        let &i = self.visible.get(self.list.cursor)?;
        let (title, text) = if self.show_events {
            // a JSON line reads better indented; anything else is shown as it is
            let raw = &run.runtime_events[i];
            let text = serde_json::from_str::<serde_json::Value>(raw)
                .ok()
                .and_then(|v| serde_json::to_string_pretty(&v).ok())
                .unwrap_or_else(|| raw.clone());
            (format!("runtime event {}", i + 1), text)
        } else {
            let e = &run.events[i];
            let mut all = serde_json::Map::new();
            all.insert("data".into(), e.data.clone());
            for (k, v) in &e.extra {
                all.insert(k.clone(), v.clone());
            }
            let text = if e.extra.is_empty() {
                serde_json::to_string_pretty(&e.data).unwrap_or_default()
            } else {
                serde_json::to_string_pretty(&all).unwrap_or_default()
            };
            (
                escape(&format!("{} {} — {}", e.kind, e.name, e.status)).into_owned(),
                text,
            )
        };
        // an SGR sequence in a value is drawn as its style by the data overlay
        let lines = crate::sanitize::json_lines_keep_sgr(&text);
        Some((title, lines))
    }

    /// The selected artifact to open: its kind, its path as shown (run-relative)
    /// and its file, or why there is none.
    pub fn artifact_to_open(&self, root: &Path) -> Result<(String, String, PathBuf), String> {
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
        Ok((a.kind.clone(), a.path.clone(), file))
    }

    /// `n` / `N`: the next (previous) failure; `Some(found)` when the timeline is shown.
    pub fn jump_failure(&mut self, forward: bool) -> Option<bool> {
        let run = self.run.as_ref()?;
        let vis = &self.visible;
        let cur = self.list.cursor;
        let hit = if forward {
            (cur + 1..vis.len()).find(|&p| is_failure(&run.events[vis[p]]))
        } else {
            (0..cur).rev().find(|&p| is_failure(&run.events[vis[p]]))
        };
        if self.show_events {
            return None;
        }
        if let Some(p) = hit {
            self.list.cursor = p;
            self.follow = p + 1 == vis.len();
        }
        Some(hit.is_some())
    }

    /// Show launched case `id` in the live pane.
    pub fn show_launch(&mut self, id: &str, path: Option<&str>) -> Vec<Effect> {
        let key = path.unwrap_or(id).to_owned();
        self.wanted = Some(path.map_or_else(
            || RunRef::Launch(id.to_owned()),
            |p| RunRef::Folder(p.to_owned()),
        ));
        self.run = Some(RunData {
            path: key,
            in_progress: true,
            ..RunData::default()
        });
        self.follow = true;
        self.show_events = false;
        self.launch = Some(id.to_owned());
        vec![Effect::StopFollow]
    }

    /// Several events are about to be pushed: refilter once, at [`Live::end_batch`].
    pub fn begin_batch(&mut self) {
        self.deferred = Some(false);
    }

    /// The batch is in: refilter (and follow) once, if it brought lines.
    pub fn end_batch(&mut self) {
        if self.deferred.take() == Some(true) {
            self.refilter();
            if self.follow {
                self.bottom();
            }
        }
    }

    /// An event of launched case `id`, shown when that case is.
    pub fn push(&mut self, id: &str, ev: TimelineEvent, cap: usize) {
        if self.launch.as_deref() != Some(id) {
            return;
        }
        let follow = self.follow;
        if let Some(run) = self.run.as_mut() {
            run.append(false, [ev], Vec::new(), cap);
            if let Some(d) = self.deferred.as_mut() {
                // a batch: refiltered once at its end, not once a line
                *d = true;
                return;
            }
            self.refilter();
            if follow {
                self.bottom();
            }
        }
    }

    /// A person gave launched case `id` its verdict: its end row no longer says it
    /// needs a person (when the pane still shows that case).
    pub fn judged(&mut self, id: &str, verdict: crate::exec::record::Verdict) {
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
pub fn status_of(v: crate::exec::record::Verdict) -> &'static str {
    use crate::exec::record::Verdict;
    match v {
        Verdict::Pass => "ok",
        Verdict::Fail | Verdict::EnvironmentFail => "failed",
        Verdict::Skipped | Verdict::NotRun => "skipped",
    }
}
