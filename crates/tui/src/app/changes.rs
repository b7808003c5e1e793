//! The cockpit's side of the live workspace: what the watch read is applied to
//! the model, a new run is followed when nothing else is, and the run shown is
//! read again (artifacts, details) once it has ended.

use super::live::RunRef;
use super::{App, Effect};
use std::collections::{BTreeMap, BTreeSet};
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::changes::{Reread, Update};
use testdeck_core::workspace::logs::RunStatus;

#[derive(Debug, Default)]
pub struct Changes {
    /// Run folders of this session's launches.
    launched: BTreeSet<String>,
    /// Run folders of the launches still going, by launch number: read again
    /// when their launch ends.
    ending: BTreeMap<usize, BTreeSet<String>>,
    /// Run folders of launches that ended while the first index was on its way:
    /// read once it is done (it may have read them before they ended, and a
    /// change read meanwhile is not applied).
    after_index: BTreeSet<String>,
    /// Run folders the watch saw appear while the cockpit was open.
    appeared: BTreeSet<String>,
    /// The run shown, to read again once the index says it ended.
    reread: Option<String>,
    /// The run another process started while another one was shown: the status
    /// line says so and `J` selects it.
    announced: Option<String>,
}

impl Changes {
    /// Run folder `path` is one of launch `index`'s.
    pub fn launched(&mut self, index: usize, path: String) {
        self.ending.entry(index).or_default().insert(path.clone());
        self.launched.insert(path);
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
        self.apply_change(ws, &applied.moves, applied.tree, applied.catalog);
        self.changes
            .appeared
            .extend(applied.new_runs.iter().cloned());
        // a launch shown keeps the live pane until the person moves on (the
        // selection stays on its case meanwhile)
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
            // a launch of ours may show its run folder after the watch does
            if !shown && !self.changes.launched.contains(p) && !self.launch.covers(p) {
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

    /// Launch `index` ended (its summary came, a watch rerun's too): what it
    /// changed reaches the model as the watch's changes do, never by a full
    /// load. The run folders it wrote are read as they are now (a run it
    /// cancelled is told so only in testdeck's state folder, outside the
    /// workspace: no write the watch could see ends it); the run the live pane
    /// shows from it is read again (artifacts, details) once the index has it
    /// ended; and the run records when it wrote one (the Runs tab).
    pub(super) fn launch_ended(&mut self, index: usize, wrote_record: bool) -> Vec<Effect> {
        let runs = self.changes.ending.remove(&index).unwrap_or_default();
        let mut fx = Vec::new();
        if self.live.launch().is_some() {
            match self.live.run().map(|r| r.path.clone()) {
                Some(p) => fx.extend(self.reread_when_ended(&p)),
                None => self.changes.reread = None,
            }
        }
        if self.indexing {
            self.changes.after_index.extend(runs);
        } else if !runs.is_empty() {
            fx.push(Effect::ReadRuns(runs.into_iter().collect()));
        }
        if wrote_record {
            fx.push(Effect::ReadRecords);
        }
        fx
    }

    /// Read the run `path` the live pane shows again (its artifacts and details
    /// are written last) once the index has it ended: now when the watch has
    /// already applied its end, else when the change that ends it is applied.
    pub(super) fn reread_when_ended(&mut self, path: &str) -> Vec<Effect> {
        self.changes.reread = Some(path.to_owned());
        self.reread_shown(path)
    }

    /// The first index is done: the runs of the launches that ended meanwhile
    /// are read as they are now.
    pub(super) fn runs_after_index(&mut self) -> Option<Effect> {
        let runs = std::mem::take(&mut self.changes.after_index);
        (!runs.is_empty()).then(|| Effect::ReadRuns(runs.into_iter().collect()))
    }

    /// After a full load: the run shown that has ended since it was read is read
    /// again, so its artifacts and details are there without a key press.
    pub(super) fn changes_after_load(&mut self) -> Vec<Effect> {
        // the load read every run as it is now
        self.changes.after_index.clear();
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

#[cfg(test)]
mod tests {
    use super::super::test_support::app;
    use super::super::{Action, Effect};
    use testdeck_core::workspace::Workspace;
    use testdeck_core::workspace::changes::{Change, Reader};
    use testdeck_core::workspace::logs::RunStatus;
    use testdeck_exec::ExecEvent;

    /// A launch that ends while the first index is on its way: a change read
    /// then is not applied (the index is awaited), and the index may have read
    /// the launch's folders before they ended. Its runs are read once the
    /// index is done — not by a full load.
    #[test]
    fn a_launch_that_ends_during_the_first_index_reads_its_runs_after_it() {
        let d = tempfile::tempdir().expect("tmp");
        let root = d.path();
        testdeck_core::workspace::demo::write_demo(root).expect("demo");
        let mut a = app();
        a.opts.root = root.to_path_buf();
        let tree = Workspace::load_tree(root).expect("tree");
        a.update(Action::TreeLoaded(Box::new(tree)));
        assert!(a.indexing);
        let key = a
            .tests
            .cases()
            .iter()
            .find(|c| !c.orphan())
            .map(|c| c.key.clone())
            .expect("a case");
        let run = format!("tests/logs/{key}/29990101-120000-000");
        a.exec_queued(
            0,
            [ExecEvent::CaseStart {
                id: key.clone(),
                source: "tests".into(),
                title: None,
                category: None,
                risk: None,
                command: None,
                run_id: None,
                path: Some(run.clone()),
            }],
        );
        let dir = root.join(&run);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("timeline.jsonl"), "").expect("timeline");
        std::fs::write(
            dir.join("meta.json"),
            r#"{"schemaVersion":4,"status":"failed"}"#,
        )
        .expect("meta");
        let fx = a.exec_queued(0, [ExecEvent::Summary(testdeck_exec::Summary::default())]);
        assert!(
            !fx.iter()
                .any(|e| matches!(e, Effect::Reload | Effect::ReadRuns(_))),
            "{fx:?}"
        );
        let fx = a.update(Action::HistoryDone);
        let runs = fx
            .iter()
            .find_map(|e| match e {
                Effect::ReadRuns(r) => Some(r.clone()),
                _ => None,
            })
            .expect("the launch's runs read after the index");
        assert_eq!(runs, std::slice::from_ref(&run));
        assert!(!fx.iter().any(|e| matches!(e, Effect::Reload)), "{fx:?}");
        // read as the runtime reads them: the run is in the model, ended
        let config = a.ws.as_ref().expect("ws").config.clone();
        let changes = runs.into_iter().map(Change::Logs).collect();
        a.update(Action::Changed(Reader::new(root, &config).read(&changes)));
        let ws = a.ws.as_ref().expect("ws");
        let got = ws
            .logs
            .runs
            .iter()
            .find(|r| r.path == run)
            .map(|r| r.status);
        assert_eq!(got, Some(RunStatus::Failed));
        // read once: the next index's end has nothing left to read
        assert!(a.runs_after_index().is_none());
    }
}
