//! Watch mode (`w`): the watched cases, whether the watch is armed, its reruns in
//! flight and its generation (events of an older watch are dropped), and the cases a
//! `w` is asking authorization for.

use super::super::feature_work::{FeatureResult, FeatureWork};
use super::Effect;
use super::launch::Launch;
use super::pane::{Ctx, Published};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::cases::CaseRef;
use testdeck_exec::watch_mode::{WatchEvent, WatchNote, WatchOptions, Watched};
use testdeck_exec::{ExecEvent, Grants, Risk};

/// The launch number watch reruns report under (they have no handle of the app's).
pub const WATCH_LAUNCH: usize = usize::MAX;

#[derive(Debug, Default)]
pub struct Watch {
    /// Watched cases of both sources.
    watched: BTreeSet<CaseRef>,
    /// The watch is armed (its folders are being watched).
    armed: bool,
    /// Reruns of the watch in flight.
    reruns: usize,
    /// The generation of the current watch (events of older ones are dropped).
    generation: u64,
    /// The cases a `w` is asking authorization for (prompts on screen).
    asking: Option<Vec<CaseRef>>,
}

/// What a watch event asks of the app.
#[derive(Debug)]
pub enum Step {
    Say(String),
    /// A rerun is done: say so, and read what it wrote (`record`: a run record
    /// too) as a launch's end does.
    Done {
        said: String,
        record: bool,
    },
    /// A rerun's launch event, shown as a launch's.
    Exec(ExecEvent),
}

fn options(grants: Grants, targets: Vec<String>, max_risk: Option<Risk>) -> WatchOptions {
    WatchOptions {
        targets,
        grants,
        max_risk,
        label: "tui-watch".into(),
        runs: None,
        quiet: None,
        // the runtime's history cache folder, where it keeps one
        cache: None,
    }
}

/// The verdict counts of a launch summary: `2 fail, 3 pass`, and the tests
/// inside the files where the runs counted them: `2 fail, 3 pass · 40 tests: 37 ✓ 3 ✗`.
pub fn counts(results: &[testdeck_exec::ResultLine]) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for r in results {
        *counts.entry(r.verdict.as_str()).or_default() += 1;
    }
    let text: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
    let mut s = text.join(", ");
    if let Some(t) = testdeck_core::workspace::run_tests::TestCounts::sum(
        results.iter().map(|r| r.tests.as_ref()),
    ) {
        s.push_str(" · ");
        s.push_str(&t.phrase());
    }
    s
}

impl Watch {
    /// Watched cases of both sources.
    pub fn watched(&self) -> &BTreeSet<CaseRef> {
        &self.watched
    }

    /// Whether the watch is armed (its folders are being watched).
    pub fn armed(&self) -> bool {
        self.armed
    }

    /// Reruns of the watch in flight.
    pub fn reruns(&self) -> usize {
        self.reruns
    }

    /// A `w` asks authorization for `keys` (prompts on screen).
    pub fn ask(&mut self, keys: Vec<CaseRef>) {
        self.asking = Some(keys);
    }

    /// When every one of `keys` is watched already: unwatch them and say so.
    pub fn unwatch(&mut self, keys: &[CaseRef]) -> Option<String> {
        if !keys.iter().all(|k| self.watched.contains(k)) {
            return None;
        }
        for k in keys {
            self.watched.remove(k);
        }
        Some(format!(
            "unwatched {}; watching {}",
            keys.len(),
            self.watched.len()
        ))
    }

    /// The prompts of a `w` are answered (with `grants`): watch what the watch's own
    /// policy would rerun, and say what it would not. `None`: the prompts were a launch's.
    pub fn ready(
        &mut self,
        ws: &Workspace,
        grants: &Grants,
        max_risk: Option<Risk>,
    ) -> Option<String> {
        let keys = self.asking.take()?;
        let asked = Watched {
            tests: keys
                .iter()
                .filter(|k| k.catalog_id().is_none())
                .map(CaseRef::target)
                .collect(),
            catalog: keys
                .iter()
                .filter_map(|k| k.catalog_id().map(str::to_owned))
                .collect(),
        };
        // the watch decides each rerun by this very policy with these grants: what
        // it would skip is not watched at all
        let opts = options(grants.clone(), Vec::new(), max_risk);
        let (_, skipped) = testdeck_exec::watch_mode::plan_for(ws, &opts, &asked);
        let refused: HashMap<&str, &str> = skipped
            .iter()
            .map(|s| (s.id.as_str(), s.reason.as_str()))
            .collect();
        let mut not = Vec::new();
        let mut added = 0;
        for k in &keys {
            let id = k.target();
            match refused.get(id.as_str()) {
                Some(r) => not.push(format!("{id} ({r})")),
                None => {
                    added += usize::from(self.watched.insert(k.clone()));
                }
            }
        }
        let mut msg = format!(
            "watching {} (+{added}): a change to their files reruns them",
            self.watched.len()
        );
        if !not.is_empty() {
            msg = format!("{msg}; not watched, not authorized: {}", not.join(", "));
        }
        Some(escape(&msg).into_owned())
    }

    /// Restart the watch on the watched set (or stop it when the set is empty).
    pub fn job(&mut self, grants: &Grants, max_risk: Option<Risk>) -> Effect {
        self.generation += 1;
        self.reruns = 0;
        self.armed = false;
        let targets: Vec<String> = self.watched.iter().map(CaseRef::target).collect();
        // an empty target list would mean "everything" to the watch: stop instead
        let opts =
            (!targets.is_empty()).then(|| Box::new(options(grants.clone(), targets, max_risk)));
        Effect::Work(FeatureWork::Watch(self.generation, opts))
    }

    /// The watch of `generation` ended; what to say when it failed.
    pub fn ended(&mut self, generation: u64, error: Option<String>) -> Option<String> {
        if generation != self.generation {
            return None;
        }
        self.armed = false;
        self.reruns = 0;
        // nothing is watched any more: no badge may say otherwise
        let e = error?;
        self.watched.clear();
        Some(format!("watch stopped: {}", escape(&e)))
    }

    /// An event of the watch of `generation` (`None`: an older watch's, dropped).
    pub fn event(&mut self, generation: u64, ev: WatchEvent) -> Option<Step> {
        if generation != self.generation {
            return None;
        }
        let list = |v: &[String]| escape(&v.join(", ")).into_owned();
        Some(match ev {
            WatchEvent::Note(WatchNote::WatchStart { tests, catalog, .. }) => {
                self.armed = true;
                let n = tests.len() + catalog.len();
                Step::Say(format!(
                    "watching {n} {}: a change to their files reruns them",
                    if n == 1 { "case" } else { "cases" }
                ))
            }
            WatchEvent::Note(WatchNote::WatchTrigger {
                paths,
                cases,
                skipped,
                notes,
            }) => {
                if cases.len() > skipped.len() {
                    self.reruns += 1;
                }
                let more = if paths.len() > 1 {
                    format!(" (+{})", paths.len() - 1)
                } else {
                    String::new()
                };
                // why every case, or that the change reaches none
                let why = match (notes.first(), cases.is_empty()) {
                    (Some(n), true) => return Some(Step::Say(escape(n).into_owned())),
                    (Some(n), false) if n.ends_with("every case") => {
                        format!(" ({})", escape(n))
                    }
                    _ => String::new(),
                };
                Step::Say(format!(
                    "changed {}{more}: rerunning {}{why}",
                    list(&paths[..paths.len().min(1)]),
                    list(&cases)
                ))
            }
            WatchEvent::Note(WatchNote::WatchCancel { cases }) => {
                self.reruns = self.reruns.saturating_sub(1);
                Step::Say(format!("rerun cancelled, restarting: {}", list(&cases)))
            }
            WatchEvent::Note(WatchNote::WatchError { message }) => {
                Step::Say(format!("watch: {}", escape(&message)))
            }
            WatchEvent::Exec(ExecEvent::Summary(s)) => {
                self.reruns = self.reruns.saturating_sub(1);
                Step::Done {
                    said: format!("watch rerun done: {}", counts(&s.results)),
                    record: s.record.is_some(),
                }
            }
            WatchEvent::Exec(e) => Step::Exec(e),
        })
    }
}

/// The watch as a component: `w`, and what the watch in the background says.
impl Watch {
    /// `w`: watch what is selected (asking what `r` would ask first, with the
    /// authorizations and max risk of `launch`), or stop watching it when all of it
    /// is watched already.
    pub(super) fn toggle(&mut self, launch: &Launch, cx: &mut Ctx) {
        let Some(ws) = cx.shared.ws else {
            cx.say("still indexing");
            return;
        };
        let keys = super::targets::watch_targets(cx.shared.marks, &cx.shared);
        if keys.is_empty() {
            cx.say("nothing to watch here (an orphan has no test file)");
            return;
        }
        if let Some(msg) = self.unwatch(&keys) {
            cx.say(msg);
            cx.effect([self.job(launch.grants(), launch.max_risk())]);
            return;
        }
        let tests: Vec<(String, Option<String>)> = keys
            .iter()
            .filter_map(|k| match k {
                CaseRef::Tests { scope, case_id } => Some((scope.clone(), Some(case_id.clone()))),
                CaseRef::Catalog(_) => None,
            })
            .collect();
        let catalog: Vec<String> = keys
            .iter()
            .filter_map(|k| k.catalog_id().map(str::to_owned))
            .collect();
        // the question `r` would ask first, with the session's answers
        let a = launch.asking(Some(ws), &tests, &catalog, None);
        self.ask(keys);
        cx.publish(Published::AskOrLaunch(Box::new(a)));
    }

    /// What the watch in the background says (`FeatureResult::Watch`,
    /// `FeatureResult::WatchEnded`; the others' are not its): a rerun's events
    /// are a launch's, its end read as a launch's end.
    pub(super) fn done(&mut self, d: FeatureResult, cx: &mut Ctx) {
        match d {
            FeatureResult::Watch { generation, event } => match self.event(generation, *event) {
                None => {}
                Some(Step::Say(m)) => cx.say(m),
                Some(Step::Done { said, record }) => {
                    cx.say(said);
                    cx.publish(Published::LaunchEnded {
                        index: WATCH_LAUNCH,
                        wrote_record: record,
                    });
                }
                Some(Step::Exec(e)) => cx.publish(Published::LaunchEvent {
                    index: WATCH_LAUNCH,
                    event: Box::new(e),
                }),
            },
            FeatureResult::WatchEnded { generation, error } => {
                if let Some(m) = self.ended(generation, error) {
                    cx.say(m);
                }
            }
            _ => {}
        }
    }
}
