//! The cockpit's side of the live workspace: what the watch read is applied to
//! the model, a new run is followed when nothing else is, and the run shown is
//! read again (artifacts, details) once it has ended.

use super::domain::Changed;
use super::live::RunRef;
use super::pane::{Ctx, Published};
use super::{Effect, Tab};
use std::collections::{BTreeMap, BTreeSet};
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::Workspace;
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
    pub fn live_external(&self, ws: &Workspace) -> usize {
        ws.logs
            .runs
            .iter()
            .filter(|r| r.status == RunStatus::InProgress && self.is_external(&r.path))
            .count()
    }
}

impl Changes {
    /// Change `ch` of the watch was applied and the selection's run shown
    /// again: the runs that appeared are kept; the new run still being written
    /// (`running`: a launch is under way; `covered`: it asked for this run
    /// folder) is announced (`J` shows it) — or, when nothing else is live,
    /// the selection goes to it, and the panes with it.
    pub fn new_run(&mut self, ch: &Changed, (running, covered): (bool, bool), cx: &mut Ctx) {
        self.appeared.extend(ch.applied.new_runs.iter().cloned());
        let Some(p) = ch.fresh.as_deref() else {
            return;
        };
        let live = cx.shared.live;
        let busy = running || live.run().is_some_and(|r| r.in_progress);
        let shown = matches!(live.wanted(), Some(RunRef::Folder(w)) if w == p);
        // a launch of ours may show its run folder after the watch does
        if shown || self.launched.contains(p) || covered {
            return;
        }
        self.announced = Some(p.to_owned());
        if busy || cx.shared.tab == Tab::Catalog {
            // another run is followed (or the catalog shown): said, not
            // swapped in under the person
            cx.say(format!(
                "J shows the new run {} (another process)",
                escape(&super::live::run_name(p))
            ));
            return;
        }
        self.jump_to_announced(cx);
    }

    /// `J`: select the run the status line announced — its case in the Tests
    /// tab, its row in the Runs tab (from the Catalog tab too) — and the panes
    /// show it, through the selection as any other run.
    pub fn jump_to_announced(&mut self, cx: &mut Ctx) {
        let Some(p) = self.announced.take() else {
            cx.say("no new run to show");
            return;
        };
        let Some(ws) = cx.shared.ws else {
            return;
        };
        let Some(run) = ws.logs.runs.iter().position(|r| r.path == p) else {
            cx.say("that run is gone");
            return;
        };
        // the Tests tab when the run is its case's latest (what the case shows)
        let case = (cx.shared.tab == Tab::Tests).then(|| ws.logs.runs[run].key());
        let shows = case
            .as_ref()
            .and_then(|k| cx.shared.tests.case(k))
            .is_some_and(|c| cx.shared.case_run(c) == Some(RunRef::Folder(p.clone())));
        cx.publish(Published::CursorOnRun {
            case,
            run,
            runs: !shows,
        });
        cx.reselect();
    }

    /// Launch `index` ended (its summary came, a watch rerun's too): what it
    /// changed reaches the model as the watch's changes do, never by a full
    /// load. The run folders it wrote are read as they are now (a run it
    /// cancelled is told so only in testdeck's state folder, outside the
    /// workspace: no write the watch could see ends it); the run the live pane
    /// shows from it is read again (artifacts, details) once the index has it
    /// ended; and the run records when it wrote one (the Runs tab).
    pub fn launch_ended(&mut self, index: usize, wrote_record: bool, cx: &mut Ctx) {
        let runs = self.ending.remove(&index).unwrap_or_default();
        let live = cx.shared.live;
        if live.launch().is_some() {
            match live.run() {
                Some(r) => self.reread_when_ended(&r.path, cx),
                None => self.reread = None,
            }
        }
        if cx.shared.indexing {
            self.after_index.extend(runs);
        } else if !runs.is_empty() {
            cx.effect([Effect::ReadRuns(runs.into_iter().collect())]);
        }
        if wrote_record {
            cx.effect([Effect::ReadRecords]);
        }
    }

    /// Read the run `path` the live pane shows again (its artifacts and details
    /// are written last) once the index has it ended: now when the watch has
    /// already applied its end, else when the change that ends it is applied.
    pub fn reread_when_ended(&mut self, path: &str, cx: &mut Ctx) {
        self.reread = Some(path.to_owned());
        self.reread_shown(path, cx);
    }

    /// The runs in `ended` ended with a change of the watch (`None`: a full
    /// load read every run as it is now): the run shown among them is read
    /// again, so its artifacts and details are there without a key press.
    pub fn reread_ended(&mut self, ended: Option<&[String]>, cx: &mut Ctx) {
        if ended.is_none() {
            self.after_index.clear();
        }
        match self.reread.clone() {
            Some(p) if ended.is_none_or(|e| e.contains(&p)) => self.reread_shown(&p, cx),
            _ => {}
        }
    }

    /// The first index is done: the runs of the launches that ended meanwhile
    /// are read as they are now.
    pub fn runs_after_index(&mut self) -> Option<Effect> {
        let runs = std::mem::take(&mut self.after_index);
        (!runs.is_empty()).then(|| Effect::ReadRuns(runs.into_iter().collect()))
    }

    fn reread_shown(&mut self, p: &str, cx: &mut Ctx) {
        let shown = matches!(cx.shared.live.wanted(), Some(RunRef::Folder(w)) if w == p);
        if !shown {
            self.reread = None;
            return;
        }
        let ended = cx.shared.ws.is_some_and(|ws| {
            ws.logs
                .runs
                .iter()
                .any(|r| r.path == p && r.status != RunStatus::InProgress)
        });
        if ended {
            self.reread = None;
            cx.effect([Effect::LoadRun(p.to_owned())]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{app, case_start, first_case};
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
        assert!(a.domain.indexing());
        let key = first_case(&a);
        let run = format!("tests/logs/{key}/29990101-120000-000");
        a.exec_queued(0, [case_start(&key, Some(run.clone()))]);
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
        let config = a.domain.ws().expect("ws").config.clone();
        let changes = runs.into_iter().map(Change::Logs).collect();
        a.update(Action::Changed(Reader::new(root, &config).read(&changes)));
        let ws = a.domain.ws().expect("ws");
        let got = ws
            .logs
            .runs
            .iter()
            .find(|r| r.path == run)
            .map(|r| r.status);
        assert_eq!(got, Some(RunStatus::Failed));
        // read once: the next index's end has nothing left to read
        assert!(a.changes.runs_after_index().is_none());
    }

    /// A run another process writes, followed in the live pane: a change of a
    /// folder above it (a reporter's temporary folder beside it) leaves it
    /// followed — the index, the change applied, still has it; its own folder
    /// deleted ends it, with a note. Nothing is looked at on the disk to tell.
    #[test]
    fn a_followed_run_ends_when_the_index_loses_it_not_when_a_folder_above_changes() {
        let d = tempfile::tempdir().expect("tmp");
        let root = d.path();
        let mut a = super::super::test_support::demo_app(root);
        let config = a.domain.ws().expect("ws").config.clone();
        let key = first_case(&a);
        let case = format!("tests/logs/{key}");
        let run = format!("{case}/29990101-120000-000");
        let write_run = |rel: &str| {
            std::fs::create_dir_all(root.join(rel)).expect("mkdir");
            std::fs::write(root.join(rel).join("timeline.jsonl"), "").expect("timeline");
        };
        let read = |a: &mut super::super::App, rel: &str| {
            let changes = std::collections::BTreeSet::from([Change::Logs(rel.to_owned())]);
            a.update(Action::Changed(Reader::new(root, &config).read(&changes)))
        };
        write_run(&run);
        let fx = read(&mut a, &run);
        assert!(
            fx.iter()
                .any(|e| matches!(e, Effect::LoadRun(p) if *p == run)),
            "{fx:?}"
        );
        let data = testdeck_core::tail::live_run::load_run(root, &run);
        a.update(Action::RunLoaded(Box::new(data)));
        assert!(a.live.run().is_some_and(|r| r.path == run && r.in_progress));
        // a reporter's temporary folder beside it: the case's folder read
        // again, the run kept
        std::fs::create_dir_all(root.join(&case).join("reporter-tmp")).expect("mkdir");
        let fx = read(&mut a, &case);
        assert!(
            !fx.iter().any(|e| matches!(e, Effect::StopFollow)),
            "{fx:?}"
        );
        assert!(a.live.run().is_some_and(|r| r.path == run && r.in_progress));
        // its own folder deleted: it ends first, said on the status line (then
        // the case's run before it is shown)
        std::fs::remove_dir_all(root.join(&run)).expect("rm");
        let fx = read(&mut a, &run);
        assert!(matches!(fx.first(), Some(Effect::StopFollow)), "{fx:?}");
        assert!(
            a.notice()
                .as_deref()
                .is_some_and(|n| n.starts_with("ended, folder deleted")),
            "{:?}",
            a.notice()
        );
    }
}
