//! A launch's events as the launch keeps them: its run record, each case's
//! start (its run folder, the cursor that follows it) and end (a verdict a
//! person gives), the runner's lines (`runner_output`), and the closing summary.
//! What the live pane shows of them the launch hands on (`live::launch::Shown`).

use super::super::live::launch::Shown;
use super::super::pane::{Ctx, Published};
use super::super::{Tab, watch};
use super::Launch;
use super::runner_output::blank;
use std::fmt::Write as _;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::timeline::TimelineEvent;
use testdeck_exec::ExecEvent;
use testdeck_exec::ExecEvent as E;
use testdeck_exec::record::Verdict;
use testdeck_exec::tests_run::RUNNER_ID;

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

impl Launch {
    /// Several events of launch `index` at once, in order (a flood of output
    /// comes in batches): the live pane follows its rows once a batch, so
    /// applying one costs the same whatever the pane already holds.
    pub(in crate::app) fn exec_events(
        &mut self,
        index: usize,
        evs: impl IntoIterator<Item = ExecEvent>,
        cx: &mut Ctx,
    ) {
        cx.publish(Published::Live(Box::new(Shown::Batch(true))));
        for ev in evs {
            self.exec_event(index, ev, cx);
        }
        cx.publish(Published::Live(Box::new(Shown::Batch(false))));
        cx.refit();
    }

    /// Event `ev` of launch `index` (`watch::WATCH_LAUNCH` for a watch's
    /// reruns): what the live pane shows of it first (the pane's), then the
    /// launch's own part — the status line, the runner's lines kept, the runs
    /// in flight, the verdicts to ask — and what the other owners keep of it,
    /// each asked through `cx` in that order.
    pub(in crate::app) fn exec_event(&mut self, index: usize, ev: ExecEvent, cx: &mut Ctx) {
        let shown_here = cx.shared.tab != Tab::Runs;
        match ev {
            E::RunStart { run_id, .. } => {
                cx.say(format!("run record {}", escape(&run_id)));
                cx.publish(Published::RecordLaunched { index, run_id });
            }
            E::RunnerStart { command } => {
                cx.say(format!("runner: {}", escape(&command.join(" "))));
                self.runner.started();
            }
            E::Probe { category, probe } => {
                if let Some(p) = probe {
                    let msg = serde_json::to_string(&p).unwrap_or_default();
                    cx.say(format!("probe {}: {}", escape(&category), escape(&msg)));
                }
            }
            E::CaseStart {
                ref id,
                ref source,
                ref path,
                ..
            } => {
                // a catalog case's path is its case file: a run folder only for tests
                let path = path.clone().filter(|_| source != "catalog");
                let id = id.clone();
                show(cx, index, ev);
                if let Some(path) = path {
                    cx.publish(Published::RunLaunched { index, path });
                }
                // the live pane shows it: a cursor on a case follows
                if shown_here {
                    cx.publish(Published::SelectLaunched(id));
                }
            }
            // a blank line (spaces, colour codes alone) is no row of its own
            E::Output { ref line, .. } if blank(line) => {}
            E::Output { ref id, .. } if id != RUNNER_ID => show(cx, index, ev),
            E::Output { stream, line, .. } => {
                let row = self.runner.line(stream, line);
                if shown_here {
                    show_row(cx, index, row);
                }
            }
            // a run's events reach the pane through the follow of its folder
            // (`Effect::Follow` from `CaseStart`), whoever started the run: the
            // runtime's sinks drop the launch's own reading of its timeline
            E::Timeline { .. } => {}
            E::CaseEnd(r) => {
                show(cx, index, E::CaseEnd(r.clone()));
                let reason = r.reason.unwrap_or_default();
                cx.say(format!(
                    "{}: {} {}",
                    escape(&r.id),
                    r.verdict.as_str(),
                    escape(&reason)
                ));
                if r.verdict == Verdict::NotRun
                    && reason.starts_with(testdeck_exec::catalog_run::NEEDS_A_PERSON)
                {
                    self.verdict_wanted(&r.id, index, &cx.shared);
                }
            }
            E::RunnerExit {
                reason,
                exit_code,
                signal,
                runs,
            } => {
                let Some(r) = reason else {
                    return;
                };
                cx.say(format!("runner: {}", escape(&r)));
                if !runs.is_empty() || r == "cancelled" {
                    return;
                }
                // no run to show: the pane keeps how the runner ended and what it
                // last said on stderr, and the launch's closing notice repeats it
                let row = self.runner.exited(&r, exit_code, signal);
                // the problems list keeps all it said on stderr
                cx.publish(Published::Problem {
                    said: format!("runner: {}", escape(&row.message)),
                    stderr: self.runner.stderr(),
                });
                show_row(cx, index, row);
            }
            E::Summary(s) => {
                // the end row the pane held goes in before the launch ends
                cx.publish(Published::Live(Box::new(Shown::Ended)));
                self.running = self.running.saturating_sub(1);
                self.targets.remove(&index);
                cx.say(format!(
                    "launch done: {}{}{}",
                    watch::counts(&s.results),
                    skip_reasons(&s.results),
                    self.runner.closing()
                ));
                cx.publish(Published::LaunchEnded {
                    index,
                    wrote_record: s.record.is_some(),
                });
            }
        }
    }
}

/// Event `ev` of launch `index` to the live pane: with the events handed on
/// just before it when there are (a flood of lines is one request).
fn show(cx: &mut Ctx, index: usize, ev: ExecEvent) {
    if let Some(Published::Live(s)) = cx.last_published() {
        if let Shown::Events(i, evs) = &mut **s {
            if *i == index {
                evs.push(ev);
                return;
            }
        }
    }
    cx.publish(Published::Live(Box::new(Shown::Events(index, vec![ev]))));
}

/// Row `row` of the runner of launch `index` to the live pane, as [`show`].
fn show_row(cx: &mut Ctx, index: usize, row: TimelineEvent) {
    if let Some(Published::Live(s)) = cx.last_published() {
        if let Shown::RunnerLines(i, rows) = &mut **s {
            if *i == index {
                rows.push(row);
                return;
            }
        }
    }
    cx.publish(Published::Live(Box::new(Shown::RunnerLines(
        index,
        vec![row],
    ))));
}

#[cfg(test)]
mod tests {
    use super::super::super::pane::{Ctx, Published};
    use super::super::super::test_support::{app, case_start};
    use super::super::Launch;
    use super::Shown;
    use testdeck_exec::ExecEvent as E;
    use testdeck_exec::process::Stream;
    use testdeck_exec::tests_run::RUNNER_ID;

    fn out(id: &str, line: &str) -> E {
        E::Output {
            id: id.into(),
            stream: Stream::Stdout,
            line: line.into(),
        }
    }

    /// What a batch asks of the others, each request by kind (the live pane's
    /// with how many events or rows it holds).
    fn asked(evs: Vec<E>) -> Vec<String> {
        let a = app();
        let (mut fx, mut published) = (Vec::new(), Vec::new());
        let mut cx = Ctx::new(a.shared(), &mut fx, &mut published);
        Launch::default().exec_events(0, evs, &mut cx);
        published
            .iter()
            .map(|p| match p {
                Published::Live(s) => match &**s {
                    Shown::Batch(b) => format!("batch {b}"),
                    Shown::Events(_, e) => format!("events {}", e.len()),
                    Shown::RunnerLines(_, r) => format!("runner {}", r.len()),
                    other => format!("{other:?}"),
                },
                Published::Say(_) => "say".into(),
                Published::SelectLaunched(id) => format!("select {id}"),
                Published::Refit => "refit".into(),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_flood_of_lines_is_one_request_in_the_launch_s_order() {
        let evs = vec![
            out(RUNNER_ID, "compiling"),
            out(RUNNER_ID, "  "),
            out(RUNNER_ID, "compiled"),
            case_start("k/a", None),
            out("k/a", "one"),
            out("k/a", "\u{1b}[0m"),
            out("k/a", "two"),
            out("k/a", "three"),
            E::RunnerExit {
                reason: Some("cancelled".into()),
                exit_code: None,
                signal: None,
                runs: Vec::new(),
            },
            out("k/a", "four"),
        ];
        assert_eq!(
            asked(evs),
            [
                "batch true",
                // the runner's two lines that say something, as one request
                "runner 2",
                // the case's start, then the cursor follows it
                "events 1",
                "select k/a",
                // its three lines that say something
                "events 3",
                "say",
                "events 1",
                "batch false",
                "refit",
            ]
        );
    }
}
