//! The problems list (`p`): what `testdeck validate` finds — the core's
//! `validate`, run in the background on the workspace as it is on disk — the
//! shown run's problems, and the openers' and runners' failures with their whole
//! stderr.

use super::super::feature_work::FeatureWork;
use super::Effect;
use super::overlay::{Layers, Overlay, PROBLEMS_TITLE};
use super::pane::Ctx;
use std::collections::VecDeque;
use std::fmt::Write as _;
use testdeck_core::problem::Problem;
use testdeck_core::sanitize::escape;
use testdeck_core::tail::live_run::RunData;
use testdeck_core::workspace::Workspace;

/// How many openers' and runners' failures the list keeps (the latest).
const FAILURES_KEPT: usize = 8;

/// A failure of a program testdeck started: what the status line said and its stderr.
#[derive(Debug, Clone)]
struct Failure {
    said: String,
    stderr: Vec<String>,
}

/// The problems list's own state.
#[derive(Debug, Default)]
pub struct Problems {
    /// What `validate` found at its last check (`None` before one came back).
    checked: Option<Vec<Problem>>,
    /// A check is under way.
    checking: bool,
    /// The openers' and runners' failures, the latest last.
    failures: VecDeque<Failure>,
    /// What the workspace watch said it cannot watch (each once).
    watch: Vec<Problem>,
}

impl Problems {
    /// `p`: a check starts (the list shows what is known meanwhile).
    pub fn check(&mut self) {
        self.checking = true;
    }

    /// A check came back: what `validate` finds now, or why it could not run.
    pub fn checked(&mut self, found: Result<Vec<Problem>, String>) {
        self.checking = false;
        self.checked = Some(found.unwrap_or_else(|e| vec![Problem::error("", "load", e)]));
    }

    /// A program testdeck started failed: `said` (escaped) and its stderr lines (escaped).
    pub fn failed(&mut self, said: String, stderr: Vec<String>) {
        self.failures.push_back(Failure { said, stderr });
        if self.failures.len() > FAILURES_KEPT {
            self.failures.pop_front();
        }
    }

    /// The workspace watch said what it cannot watch: kept, each once.
    pub fn watching(&mut self, found: Vec<Problem>) {
        for p in found {
            if !self.watch.contains(&p) {
                self.watch.push(p);
            }
        }
    }

    /// The located problems listed first, one a line: `validate`'s once checked,
    /// else the ones met while loading.
    fn located<'a>(&'a self, ws: Option<&'a Workspace>) -> &'a [Problem] {
        match (&self.checked, ws) {
            (Some(v), _) => v,
            (None, Some(w)) => &w.problems,
            (None, None) => &[],
        }
    }

    /// The located problem on row `row` of the list (`E` opens it).
    pub fn at<'a>(&'a self, ws: Option<&'a Workspace>, row: usize) -> Option<&'a Problem> {
        let located = self.located(ws);
        located
            .get(row)
            .or_else(|| self.watch.get(row.checked_sub(located.len())?))
    }

    /// The list as an overlay: the title counts each severity (and the failures),
    /// then the located problems, the run's, the failures with their stderr.
    pub fn overlay(&self, ws: Option<&Workspace>, run: Option<&RunData>, scroll: usize) -> Overlay {
        let located: Vec<&Problem> = self.located(ws).iter().chain(&self.watch).collect();
        let errors = located.iter().filter(|p| p.is_error()).count();
        let mut lines: Vec<String> = located
            .iter()
            .map(|p| escape(&p.to_string()).into_owned())
            .collect();
        let run_lines = run.map(RunData::problem_lines).unwrap_or_default();
        lines.extend(run_lines.iter().map(|p| escape(p).into_owned()));
        for f in &self.failures {
            lines.push(f.said.clone());
            lines.extend(f.stderr.iter().map(|l| format!("  {l}")));
        }
        let mut title = format!(
            "{PROBLEMS_TITLE} · {errors} {} · {} {}",
            plural(errors, "error"),
            located.len() - errors,
            plural(located.len() - errors, "warning")
        );
        if !run_lines.is_empty() {
            let _ = write!(title, " · {} in the run", run_lines.len());
        }
        if !self.failures.is_empty() {
            let _ = write!(
                title,
                " · {} {}",
                self.failures.len(),
                plural(self.failures.len(), "failed opener or runner")
            );
        }
        if self.checking {
            title.push_str(" · checking…");
        }
        if lines.is_empty() {
            lines.push(if self.checking || self.checked.is_none() {
                "Checking the workspace as `testdeck validate` does…".into()
            } else {
                "No problems: `testdeck validate` finds none, and no opener or runner failed."
                    .into()
            });
        }
        let last = lines.len().saturating_sub(1);
        Overlay::Data {
            title,
            lines,
            scroll: scroll.min(last),
        }
    }
}

/// The problems list as a component: `p`, and the list kept up to date while open.
impl Problems {
    /// `p`: the list over the panes, and a check of the workspace as it is on disk.
    pub(super) fn open(&mut self, cx: &mut Ctx) {
        self.check();
        cx.open(self.overlay(cx.shared.ws, cx.shared.live.run(), 0));
        cx.effect([Effect::Work(FeatureWork::Validate)]);
    }

    /// The list, when it is the overlay of `layers`, shows what is known now (its
    /// scroll kept).
    pub(super) fn refresh(&self, layers: &Layers, cx: &mut Ctx) {
        if let Some(Overlay::Data { title, scroll, .. }) = layers.overlay() {
            if title.starts_with(PROBLEMS_TITLE) {
                cx.open(self.overlay(cx.shared.ws, cx.shared.live.run(), *scroll));
            }
        }
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        word.to_owned()
    } else if let Some(stem) = word.strip_suffix(" opener or runner") {
        format!("{stem} openers or runners")
    } else {
        format!("{word}s")
    }
}
