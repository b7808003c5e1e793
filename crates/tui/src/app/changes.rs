//! The cockpit's side of the live workspace: what the watch read is applied to
//! the model, a new run is followed when nothing else is, and the run shown is
//! read again (artifacts, details) once it has ended.

use super::live::RunRef;
use super::{App, Effect};
use std::collections::BTreeSet;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::changes::{Reread, Update};
use testdeck_core::workspace::logs::RunStatus;

#[derive(Debug, Default)]
pub struct Changes {
    /// Run folders of this session's launches.
    launched: BTreeSet<String>,
    /// Run folders the watch saw appear while the cockpit was open.
    appeared: BTreeSet<String>,
    /// The run shown, to read again once the index says it ended.
    reread: Option<String>,
    /// The run another process started while another one was shown: the status
    /// line says so and `J` selects it.
    announced: Option<String>,
}

impl Changes {
    /// Run folder `path` is one of this session's launches.
    pub fn launched(&mut self, path: String) {
        self.launched.insert(path);
    }

    /// Read `path` again once the index says it ended (`None`: nothing to read).
    pub fn set_reread(&mut self, path: Option<String>) {
        self.reread = path;
    }

    /// The run the status line announced (`J` selects it).
    pub fn announced(&self) -> Option<&str> {
        self.announced.as_deref()
    }

    /// A run another process started: it appeared, and no launch of ours wrote it.
    pub fn is_external(&self, path: &str) -> bool {
        self.appeared.contains(path) && !self.launched.contains(path)
    }

    /// How many runs other processes are writing now: external, and in progress
    /// by the index (no `meta.json` yet, not cancelled or abandoned).
    pub fn live_external(&self, ws: &testdeck_core::workspace::Workspace) -> usize {
        ws.logs
            .runs
            .iter()
            .filter(|r| r.status == RunStatus::InProgress && self.is_external(&r.path))
            .count()
    }
}

impl App {
    /// Apply what the workspace watch read; no frame when nothing changed.
    pub(super) fn workspace_changed(&mut self, updates: Vec<Update>) -> Vec<Effect> {
        // the full index on its way reads the disk as it is now
        if self.indexing {
            return Vec::new();
        }
        let Some(mut ws) = self.ws.take() else {
            return Vec::new();
        };
        let touched = super::insights::touches_cases(&updates);
        // run folders deleted: a run followed among them ends (with a note)
        let removed: Vec<String> = updates
            .iter()
            .filter_map(|u| match u {
                Update::RemoveRuns(p) => Some(p.clone()),
                _ => None,
            })
            .collect();
        let applied = ws.apply(updates);
        if applied.reread == Reread::All {
            self.ws = Some(ws);
            return vec![Effect::Reload];
        }
        // a run record another process wrote (a headless `testdeck run`): the
        // Runs tab reads the records again; a case's files changed: when, again
        let mut records: Vec<Effect> = (applied.reread == Reread::Records)
            .then_some(Effect::ReadRecords)
            .into_iter()
            .collect();
        if touched {
            records.push(super::insights::change_times_job(&ws));
        }
        if !applied.changed {
            self.ws = Some(ws);
            return records;
        }
        self.dirty = true;
        self.install_workspace(ws, true);
        self.changes
            .appeared
            .extend(applied.new_runs.iter().cloned());
        // a launch shown keeps the live pane until it ends (its reload then
        // catches the selection up)
        let launching = self.launch.running() > 0 || self.live.launch().is_some();
        // a followed run whose folder went ends first (its note on the status
        // line), then the selection's run is shown again
        let mut fx = self.end_deleted(&removed);
        if !launching {
            fx.extend(self.selection_changed());
        }
        // a new run still being written: followed live when nothing else is
        let fresh = applied
            .new_runs
            .iter()
            .rev()
            .find(|p| !applied.ended_runs.contains(p));
        if let Some(p) = fresh {
            let busy = self.launch.running() > 0 || self.live.run().is_some_and(|r| r.in_progress);
            let shown = matches!(&self.live.wanted(), Some(RunRef::Folder(w)) if w == p);
            if !shown && !self.changes.launched.contains(p) {
                if busy || self.tab == super::Tab::Catalog {
                    // another run is followed (or the catalog shown): said, not
                    // swapped in under the person
                    self.changes.announced = Some(p.clone());
                    self.notice = Some(format!(
                        "J shows the new run {} (another process)",
                        escape(&super::live::run_name(p))
                    ));
                } else {
                    // nothing else is live: the selection goes to it, and the panes with it
                    self.changes.announced = Some(p.clone());
                    fx.extend(self.jump_to_announced());
                }
            }
        }
        if let Some(p) = self.changes.reread.clone() {
            if applied.ended_runs.contains(&p) {
                fx.extend(self.reread_shown(&p));
            }
        }
        fx.extend(self.stop_following_ended());
        fx.extend(records);
        fx
    }

    /// A followed run whose folder was deleted (`removed`: the folders gone)
    /// ends, with a note in the pane: it is no longer `● live` and another run
    /// can be followed.
    fn end_deleted(&mut self, removed: &[String]) -> Vec<Effect> {
        let Some(p) = self
            .live
            .run()
            .filter(|r| r.in_progress)
            .map(|r| r.path.clone())
        else {
            return Vec::new();
        };
        let under = removed.iter().any(|r| {
            p == *r
                || p.strip_prefix(r.as_str())
                    .is_some_and(|t| t.starts_with('/'))
        });
        // a folder above it that changed is dropped from the index and read
        // again (a new run of the same case, a reporter's temporary folder):
        // the run is gone only when its folder is (one look, on this rare path)
        let gone = under
            && self
                .ws
                .as_ref()
                .is_some_and(|ws| !ws.root.join(&p).is_dir());
        if !gone {
            return Vec::new();
        }
        self.live.vanished();
        self.notice = Some(format!(
            "ended, folder deleted: run {}",
            escape(&super::live::run_name(&p))
        ));
        vec![Effect::StopFollow]
    }

    /// `J`: select the run the status line announced — its case in the Tests
    /// tab, its row in the Runs tab (from the Catalog tab too) — and the panes
    /// show it, through the selection as any other run.
    pub(super) fn jump_to_announced(&mut self) -> Vec<Effect> {
        let Some(p) = self.changes.announced.take() else {
            self.notice = Some("no new run to show".into());
            return Vec::new();
        };
        let Some(ws) = self.ws.as_ref() else {
            return Vec::new();
        };
        let Some(i) = ws.logs.runs.iter().position(|r| r.path == p) else {
            self.notice = Some("that run is gone".into());
            return Vec::new();
        };
        let key = ws.logs.runs[i].key();
        // the Tests tab when the run is its case's latest (what the case shows)
        if self.tab == super::Tab::Tests
            && self.tests.jump_to(&key)
            && self.wanted_run() == Some(RunRef::Folder(p.clone()))
        {
            return self.selection_changed();
        }
        self.tab = super::Tab::Runs;
        if let Some(pos) = self
            .runs
            .visible()
            .iter()
            .position(|r| *r == super::RunRow::Tests(i))
        {
            self.runs.set_cursor(pos);
        }
        self.selection_changed()
    }

    /// After a full load: the run shown that has ended since it was read is read
    /// again, so its artifacts and details are there without a key press.
    pub(super) fn changes_after_load(&mut self) -> Vec<Effect> {
        let mut fx = match self.changes.reread.clone() {
            Some(p) => self.reread_shown(&p),
            None => Vec::new(),
        };
        fx.extend(self.stop_following_ended());
        fx
    }

    /// The run followed in the live pane was cancelled or abandoned (it never
    /// gets a meta.json): its follow ends and it is shown as it is, ended.
    fn stop_following_ended(&mut self) -> Vec<Effect> {
        let Some(run) = self.live.run().filter(|r| r.in_progress) else {
            return Vec::new();
        };
        let p = run.path.clone();
        let shown = matches!(&self.live.wanted(), Some(RunRef::Folder(w)) if *w == p);
        let gone = self.ws.as_ref().is_some_and(|ws| {
            ws.logs.runs.iter().any(|r| {
                r.path == p && matches!(r.status, RunStatus::Cancelled | RunStatus::Abandoned)
            })
        });
        if !shown || !gone {
            return Vec::new();
        }
        self.live.drop_launch();
        vec![Effect::StopFollow, Effect::LoadRun(p)]
    }

    fn reread_shown(&mut self, p: &str) -> Vec<Effect> {
        let shown = matches!(&self.live.wanted(), Some(RunRef::Folder(w)) if w == p);
        if !shown {
            self.changes.reread = None;
            return Vec::new();
        }
        let ended = self.ws.as_ref().is_some_and(|ws| {
            ws.logs
                .runs
                .iter()
                .any(|r| r.path == p && r.status != RunStatus::InProgress)
        });
        if !ended {
            return Vec::new();
        }
        self.changes.reread = None;
        vec![Effect::LoadRun(p.to_owned())]
    }
}

/// `cancelled` / `abandoned` when the index says the run at `path` ended so
/// (without a `meta.json`).
pub fn ended_without_meta(app: &App, path: &str) -> Option<&'static str> {
    let ws = app.ws.as_ref()?;
    let r = ws.logs.runs.iter().find(|r| r.path == path)?;
    matches!(r.status, RunStatus::Cancelled | RunStatus::Abandoned).then(|| r.status.as_str())
}
