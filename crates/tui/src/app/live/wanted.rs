//! What the live pane shows for the selection (the run it wants, from
//! `selection::wanted_run`), and how a run it follows ends when the index
//! says so (its folder deleted, cancelled, abandoned).

use super::super::super::action::RunData;
use super::super::Effect;
use super::{Live, RunRef};
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::logs::RunStatus;

impl Live {
    /// The selection wants `want` (`record`: the rows of a run record, read
    /// from the Runs tab): the pane changes only when the selection's run
    /// changes (a launch shown there stays until the person moves on). The
    /// effects: the follow stopped, the run folder loaded.
    pub fn show_wanted(
        &mut self,
        want: Option<RunRef>,
        record: impl FnOnce(&RunRef) -> Option<RunData>,
    ) -> Vec<Effect> {
        if want == self.last_want {
            return Vec::new();
        }
        self.last_want.clone_from(&want);
        // the run a launch shows is the one the selection now wants (an index
        // read while it runs has it): the launch goes on feeding the pane
        if want.as_ref() == self.wanted() {
            return Vec::new();
        }
        self.set_wanted(want.clone());
        let mut fx = vec![Effect::StopFollow];
        if let Some(w @ (RunRef::Record(_) | RunRef::Case(..))) = &want {
            // a run record is already in memory: its results are the timeline
            self.set_run(record(w));
            self.top();
            self.refilter();
            return fx;
        }
        if let Some(RunRef::Folder(p)) = want {
            if self.run().is_some_and(|r| r.path != p) {
                self.clear();
            }
            fx.push(Effect::LoadRun(p));
        } else {
            self.clear();
        }
        fx
    }

    /// The selection wants `want` now, and the pane already shows it (a
    /// launch's case the cursor moved to).
    pub fn wanted_now(&mut self, want: Option<RunRef>) {
        self.last_want = want;
    }

    /// The records changed (read again, or a verdict given): a run record
    /// shown shows what it holds now (`record`: its rows, from the Runs tab).
    pub fn records_read(&mut self, record: impl FnOnce(&RunRef) -> Option<RunData>) {
        if let Some(data) = self.wanted().and_then(record) {
            self.set_run(Some(data));
            self.refilter();
        }
    }

    /// A followed run whose folder was deleted (`removed`: the folders gone
    /// from `ws`, the change applied) ends, with a note in the pane: it is no
    /// longer `● live` and another run can be followed. The status line's note
    /// when it did.
    pub fn end_deleted(&mut self, removed: &[String], ws: Option<&Workspace>) -> Option<String> {
        let p = self.run().filter(|r| r.in_progress)?.path.clone();
        let under = removed.iter().any(|r| {
            p == *r
                || p.strip_prefix(r.as_str())
                    .is_some_and(|t| t.starts_with('/'))
        });
        // a folder above it that changed is dropped from the index and the run
        // folders still under it read again (a new run of the same case, a
        // reporter's temporary folder): the run is gone only when the index,
        // the change applied, no longer has it (no look at the disk here)
        let gone = under && ws.is_some_and(|ws| !ws.logs.runs.iter().any(|r| r.path == p));
        if !gone {
            return None;
        }
        self.vanished();
        Some(format!(
            "ended, folder deleted: run {}",
            escape(&super::run_name(&p))
        ))
    }

    /// The run followed was cancelled or abandoned by the index of `ws` (it
    /// never gets a meta.json): its follow ends and it is shown as it is, ended.
    pub fn stop_following_ended(&mut self, ws: Option<&Workspace>) -> Vec<Effect> {
        let Some(run) = self.run().filter(|r| r.in_progress) else {
            return Vec::new();
        };
        let p = run.path.clone();
        let shown = matches!(self.wanted(), Some(RunRef::Folder(w)) if *w == p);
        let gone = ws.is_some_and(|ws| {
            ws.logs.runs.iter().any(|r| {
                r.path == p && matches!(r.status, RunStatus::Cancelled | RunStatus::Abandoned)
            })
        });
        if !shown || !gone {
            return Vec::new();
        }
        self.drop_launch();
        vec![Effect::StopFollow, Effect::LoadRun(p)]
    }
}
