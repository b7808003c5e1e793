//! What the live pane shows of a launch, as the launch hands it on: the pane
//! made ready when it starts, each case's start (its run folder followed) and
//! end, the lines a case or the runner wrote, a case left out and why — the
//! launch's view, opened for it — and a person's verdict.

use super::super::Effect;
use super::super::launch::runner_output::{self, note};
use super::{Live, status_of};
use testdeck_core::workspace::timeline::TimelineEvent;
use testdeck_exec::ExecEvent;
use testdeck_exec::record::Verdict;

/// What the live pane shows of a launch (the launch hands it on, the App
/// routes it to [`Live::launch_step`]).
#[derive(Debug, Clone)]
pub enum Shown {
    /// A launch starts.
    Starting,
    /// A batch of a launch's events begins (`true`) or is in (`false`): the
    /// cursor follows the rows once, at its end.
    Batch(bool),
    /// Events `1` of launch `0`, in order: a case's start, its output lines,
    /// its end.
    Events(usize, Vec<ExecEvent>),
    /// Rows of the runner of launch `0`: the lines it wrote, how it ended.
    RunnerLines(usize, Vec<TimelineEvent>),
    /// The launch ended.
    Ended,
    /// A person gave case `0` verdict `1`.
    Judged(String, Verdict),
}

impl Live {
    /// `s` shown (`shown_here`: the launch takes the pane, as it does outside
    /// the Runs tab); the effects (a case's run folder followed).
    pub fn launch_step(&mut self, s: Shown, shown_here: bool) -> Vec<Effect> {
        match s {
            Shown::Starting => self.launching(shown_here),
            Shown::Batch(true) => self.begin_batch(),
            Shown::Batch(false) => self.end_batch(),
            Shown::Events(index, evs) => {
                let each = evs
                    .into_iter()
                    .map(|ev| self.launch_event(index, ev, shown_here));
                return each.flatten().collect();
            }
            Shown::RunnerLines(index, rows) => {
                let each = rows.into_iter().map(|r| self.push_runner_line(index, r));
                return each.flatten().collect();
            }
            Shown::Ended => self.release_end(),
            Shown::Judged(id, verdict) => self.judged(&id, verdict),
        }
        Vec::new()
    }

    /// A launch starts: shown here (`shown_here`: not in the Runs tab, where the
    /// pane keeps the run selected) the previous run's rows leave at once;
    /// either way the launch is watched unfiltered.
    fn launching(&mut self, shown_here: bool) {
        if shown_here {
            self.starting();
        } else {
            self.reset_filters();
        }
    }

    /// Event `ev` of launch `index` as the pane shows it (`shown_here`: the
    /// launch takes the pane, as outside the Runs tab); the effects (a case's
    /// run folder followed).
    fn launch_event(&mut self, index: usize, ev: ExecEvent, shown_here: bool) -> Vec<Effect> {
        match ev {
            ExecEvent::CaseStart {
                id,
                source,
                command,
                path,
                risk,
                ..
            } if shown_here => {
                // a catalog case's path is its case file: a run folder only for tests
                let path = path.filter(|_| source != "catalog");
                let fx = self.show_launch(&id, path.as_deref());
                self.opened(index);
                let msg = command.unwrap_or_default();
                let risk = risk.map_or(String::new(), |r| format!(" [{}]", r.as_str()));
                self.push(&id, note("run", &format!("start {id}{risk}"), "info", msg));
                fx
            }
            // a case's line (the launch hands on no blank one, nor the runner's)
            ExecEvent::Output { id, stream, line } => {
                self.push(&id, runner_output::row(stream, line));
                Vec::new()
            }
            ExecEvent::CaseEnd(r) => {
                let status = status_of(r.verdict);
                let reason = r.reason.clone().unwrap_or_default();
                let fx = self.left_out(&r.id, r.verdict, &reason, shown_here);
                self.push_end(
                    &r.id,
                    note(
                        "run",
                        &format!("end {}", r.verdict.as_str()),
                        status,
                        reason,
                    ),
                );
                if self.launch() == Some(r.id.as_str()) {
                    if let Some(run) = self.run_mut() {
                        run.in_progress = false;
                    }
                }
                fx
            }
            _ => Vec::new(),
        }
    }

    /// A case of the launch that ends without having started (skipped, or left
    /// out with its `run_together` group): its reason goes into the pane — the
    /// launch's view, opened for it when nothing of the launch is shown yet.
    fn left_out(
        &mut self,
        id: &str,
        verdict: Verdict,
        reason: &str,
        shown_here: bool,
    ) -> Vec<Effect> {
        if !matches!(verdict, Verdict::Skipped | Verdict::NotRun)
            || self.launch() == Some(id)
            || !shown_here
        {
            return Vec::new();
        }
        let mut fx = Vec::new();
        if self.launch().is_none() {
            fx = self.show_launch(id, None);
        }
        let Some(shown) = self.launch().map(str::to_owned) else {
            return fx;
        };
        self.push(
            &shown,
            note(
                "run",
                &format!("{} {id}", verdict.as_str()),
                "skipped",
                reason.to_owned(),
            ),
        );
        fx
    }
}
