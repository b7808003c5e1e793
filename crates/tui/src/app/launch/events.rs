//! A launch's events as the cockpit applies them: its run record, each case's
//! start (its run folder followed) and end in the live pane (a case left out says why there), the
//! runner's lines (`runner_output`), and the closing summary.

use super::super::{App, Effect, watch};
use super::runner_output;
use super::runner_output::note;
use std::fmt::Write as _;
use testdeck_core::sanitize::escape;
use testdeck_exec::record::Verdict;

/// ` — ID: why` for the first case a launch skipped or did not run (`+N more`),
/// so the status line says why and not only how many.
pub fn skip_reasons(results: &[testdeck_exec::ResultLine]) -> String {
    let left: Vec<&testdeck_exec::ResultLine> = results
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Skipped | Verdict::NotRun) && r.reason.is_some())
        .collect();
    let Some(first) = left.first() else {
        return String::new();
    };
    let mut s = format!(
        " — {}: {}",
        escape(&first.id),
        escape(first.reason.as_deref().unwrap_or_default())
    );
    if left.len() > 1 {
        let _ = write!(s, " (+{} more)", left.len() - 1);
    }
    s
}

impl App {
    /// Several events of a launch at once, in order (a flood of output comes in
    /// batches): the live pane is refiltered once, so applying a batch costs the
    /// same whatever the pane already holds.
    pub(crate) fn exec_events(
        &mut self,
        index: usize,
        evs: impl IntoIterator<Item = testdeck_exec::ExecEvent>,
    ) -> Vec<Effect> {
        self.live.begin_batch();
        let mut fx = Vec::new();
        for ev in evs {
            fx.extend(self.exec_event(index, ev));
        }
        self.live.end_batch();
        self.clamp();
        fx
    }

    /// One event of launch `index` (`watch::WATCH_LAUNCH` for a watch's reruns).
    #[expect(
        clippy::too_many_lines,
        reason = "one arm per exec event, each a few lines"
    )]
    pub(crate) fn exec_event(&mut self, index: usize, ev: testdeck_exec::ExecEvent) -> Vec<Effect> {
        use testdeck_exec::ExecEvent as E;
        match ev {
            E::RunStart { run_id, .. } => {
                self.notice = Some(format!("run record {}", escape(&run_id)));
                self.runs.set_launched(index, run_id);
                Vec::new()
            }
            E::RunnerStart { command } => {
                self.notice = Some(format!("runner: {}", escape(&command.join(" "))));
                self.launch.runner.started();
                Vec::new()
            }
            E::Probe { category, probe } => {
                if let Some(p) = probe {
                    let msg = serde_json::to_string(&p).unwrap_or_default();
                    self.notice = Some(format!("probe {}: {}", escape(&category), escape(&msg)));
                }
                Vec::new()
            }
            E::CaseStart {
                id,
                source,
                command,
                path,
                risk,
                ..
            } => {
                // a catalog case's path is its case file: a run folder only for tests
                let path = path.filter(|_| source != "catalog");
                if let Some(p) = &path {
                    self.changes.launched(index, p.clone());
                }
                if !self.tab.shows_launch() {
                    return Vec::new();
                }
                let fx = self.live.show_launch(&id, path.as_deref());
                self.live.opened(index);
                self.publish(super::super::pane::Published::SelectLaunched(id.clone()));
                let msg = command.unwrap_or_default();
                let risk = risk.map_or(String::new(), |r| format!(" [{}]", r.as_str()));
                self.live
                    .push(&id, note("run", &format!("start {id}{risk}"), "info", msg));
                fx
            }
            E::Output { id, stream, line } => {
                // a blank line (spaces, colour codes alone) is no row of its own
                if testdeck_core::sanitize::strip_sgr(&line).trim().is_empty() {
                    return Vec::new();
                }
                if id != testdeck_exec::tests_run::RUNNER_ID {
                    self.live.push(&id, runner_output::row(stream, line));
                    return Vec::new();
                }
                let row = self.launch.runner.line(stream, line);
                if !self.tab.shows_launch() {
                    return Vec::new();
                }
                self.live.push_runner_line(index, row)
            }
            // a run's events reach the pane through the follow of its folder
            // (`Effect::Follow` from `CaseStart`), whoever started the run: the
            // runtime's sinks drop the launch's own reading of its timeline
            E::Timeline { .. } => Vec::new(),
            E::CaseEnd(r) => {
                let status = super::super::live::status_of(r.verdict);
                let reason = r.reason.clone().unwrap_or_default();
                let fx = self.left_out_in_live(&r.id, r.verdict, &reason);
                self.live.push_end(
                    &r.id,
                    note(
                        "run",
                        &format!("end {}", r.verdict.as_str()),
                        status,
                        reason.clone(),
                    ),
                );
                if self.live.launch() == Some(r.id.as_str()) {
                    if let Some(run) = self.live.run_mut() {
                        run.in_progress = false;
                    }
                }
                self.notice = Some(format!(
                    "{}: {} {}",
                    escape(&r.id),
                    r.verdict.as_str(),
                    escape(&reason)
                ));
                if r.verdict == Verdict::NotRun
                    && reason.starts_with(testdeck_exec::catalog_run::NEEDS_A_PERSON)
                {
                    self.queue_verdict(&r.id, index);
                }
                fx
            }
            E::RunnerExit {
                reason,
                exit_code,
                signal,
                runs,
            } => {
                let Some(r) = reason else {
                    return Vec::new();
                };
                self.notice = Some(format!("runner: {}", escape(&r)));
                if !runs.is_empty() || r == "cancelled" {
                    return Vec::new();
                }
                // no run to show: the pane keeps how the runner ended and what it
                // last said on stderr, and the launch's closing notice repeats it
                let row = self.launch.runner.exited(&r, exit_code, signal);
                // the problems list keeps all it said on stderr
                self.problems.failed(
                    format!("runner: {}", escape(&row.message)),
                    self.launch.runner.stderr(),
                );
                self.live.push_runner_line(index, row)
            }
            E::Summary(s) => {
                self.live.release_end();
                self.launch.running = self.launch.running.saturating_sub(1);
                self.launch.targets.remove(&index);
                self.notice = Some(format!(
                    "launch done: {}{}{}",
                    watch::counts(&s.results),
                    skip_reasons(&s.results),
                    self.launch.runner.closing()
                ));
                self.publish(super::super::pane::Published::LaunchEnded {
                    index,
                    wrote_record: s.record.is_some(),
                })
            }
        }
    }

    /// A case of the launch that ends without having started (skipped, or left
    /// out with its `run_together` group): its reason goes into the live pane —
    /// the launch's view, opened for it when nothing of the launch is shown yet.
    fn left_out_in_live(&mut self, id: &str, verdict: Verdict, reason: &str) -> Vec<Effect> {
        if !matches!(verdict, Verdict::Skipped | Verdict::NotRun)
            || self.live.launch() == Some(id)
            || !self.tab.shows_launch()
        {
            return Vec::new();
        }
        let mut fx = Vec::new();
        if self.live.launch().is_none() {
            fx = self.live.show_launch(id, None);
        }
        let Some(shown) = self.live.launch().map(str::to_owned) else {
            return fx;
        };
        self.live.push(
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
