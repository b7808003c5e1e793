//! The whole `meta.json` of the run the details show: the index keeps only a
//! summary per run, so the run selected has its file read — by a feature job
//! (`FeatureWork::RunMeta`), never on the loop's thread — once per run selected.

use super::super::feature_work::FeatureWork;
use super::Effect;
use super::pane::{Component, Ctx, Published};
use testdeck_core::workspace::logs::{Meta, RawRun};

/// The run whose `meta.json` was asked for, and what it read (`None` while
/// the job is on its way, or when the file does not read).
#[derive(Debug, Default)]
pub struct RunMeta {
    held: Option<(String, Option<Box<Meta>>)>,
}

impl RunMeta {
    /// The whole `meta.json` of `r` when it is the run the details show.
    pub fn get(&self, r: &RawRun) -> Option<&Meta> {
        self.held
            .as_ref()
            .filter(|(p, _)| *p == r.path)
            .and_then(|(_, m)| m.as_deref())
    }

    /// The job read run `run`'s `meta.json`: kept while that run is the one asked for.
    pub fn read(&mut self, run: &str, meta: Option<Box<Meta>>) {
        if let Some((p, m)) = &mut self.held {
            if p == run {
                *m = meta;
            }
        }
    }
}

impl Component for RunMeta {
    fn subscribes(&self, e: &Published) -> bool {
        matches!(e, Published::Changed)
    }

    /// After each change: the run selected in the Runs tab (one with a
    /// summary) has its `meta.json` read when it is another run than the one
    /// read last.
    fn on_event(&mut self, _e: &Published, cx: &mut Ctx) {
        let want = cx.shared.selected_run().filter(|r| r.meta.is_some());
        let same = match (&self.held, want) {
            (Some((p, _)), Some(r)) => *p == r.path,
            (None, None) => true,
            _ => false,
        };
        if same {
            return;
        }
        self.held = want.map(|r| (r.path.clone(), None));
        if let Some(r) = want {
            cx.effect([Effect::Work(FeatureWork::RunMeta(Box::new(r.clone())))]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::feature_work::{FeatureResult, FeatureWork};
    use super::super::test_support::demo_app;
    use super::super::{Action, Effect};
    use crate::action::Command;

    /// The jobs for the details' `meta.json` among `fx`.
    fn meta_jobs(fx: &[Effect]) -> Vec<String> {
        fx.iter()
            .filter_map(|e| match e {
                Effect::Work(FeatureWork::RunMeta(r)) => Some(r.path.clone()),
                _ => None,
            })
            .collect()
    }

    /// A run selected in the Runs tab has its whole `meta.json` read by a job
    /// (the loop's thread reads nothing), once per run selected; what the job
    /// read is shown for that run only, and a late answer for another run is
    /// not taken.
    #[test]
    fn the_selected_run_s_meta_json_is_read_by_a_job_once() {
        let d = tempfile::tempdir().expect("tmp");
        let mut a = demo_app(d.path());
        let mut fx = a.update(Action::Cmd(Command::TabRuns));
        // the newest run that has ended (a `meta.json` to read)
        while a.shared().selected_run().is_some_and(|r| r.meta.is_none()) {
            assert!(meta_jobs(&fx).is_empty(), "no meta.json to read: {fx:?}");
            fx = a.update(Action::Cmd(Command::MoveDown));
        }
        let run = a
            .shared()
            .selected_run()
            .expect("a run with meta.json")
            .clone();
        assert_eq!(meta_jobs(&fx), std::slice::from_ref(&run.path));
        assert!(a.run_meta.get(&run).is_none(), "nothing read on the loop");
        // the job's answer, as the runtime runs it
        let job = FeatureWork::RunMeta(Box::new(run.clone()));
        let done = crate::runtime::run_now(job, d.path()).expect("a result");
        assert!(matches!(
            &done,
            FeatureResult::RunMeta { meta: Some(_), .. }
        ));
        let fx = a.update(Action::WorkDone(Box::new(done)));
        assert!(meta_jobs(&fx).is_empty(), "{fx:?}");
        assert!(a.run_meta.get(&run).is_some());
        // the same run again: no second read
        assert!(meta_jobs(&a.update(Action::Cmd(Command::Noop))).is_empty());
        // another run: its own read; the first run's late answer is not taken
        let mut fx = a.update(Action::Cmd(Command::MoveDown));
        while a.shared().selected_run().is_some_and(|r| r.meta.is_none()) {
            fx = a.update(Action::Cmd(Command::MoveDown));
        }
        let other = a.shared().selected_run().expect("another run").clone();
        assert_ne!(other.path, run.path);
        assert_eq!(meta_jobs(&fx), std::slice::from_ref(&other.path));
        let stale = FeatureResult::RunMeta {
            run: run.path.clone(),
            meta: None,
        };
        a.update(Action::WorkDone(Box::new(stale)));
        assert!(a.run_meta.get(&other).is_none());
        assert!(
            a.run_meta.get(&run).is_none(),
            "only the run selected is kept"
        );
    }
}
