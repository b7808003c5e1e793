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
