//! The runner's own lines in a launch: what it writes to stdout and stderr as the
//! live pane's `out` / `err` rows (which `O` hides), the stderr tail kept for when
//! it ends without writing a run, and then its `runner exit N` row and the words
//! the launch's closing notice repeats.

use std::collections::VecDeque;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::openers::telling_line;
use testdeck_core::workspace::timeline::TimelineEvent;
use testdeck_exec::process::Stream;

/// The runner's stderr lines kept for its exit row.
pub const STDERR_TAIL: usize = 20;

/// The `type` column of a line the runner wrote to stdout / stderr.
pub const OUT: &str = "out";
pub const ERR: &str = "err";

/// A row the cockpit writes into the pane itself (a launch's start and end, a
/// case left out, the runner's lines).
pub fn note(kind: &str, name: &str, status: &str, message: String) -> TimelineEvent {
    TimelineEvent {
        kind: kind.into(),
        name: name.into(),
        status: status.into(),
        message,
        ..TimelineEvent::default()
    }
}

/// Whether `line` is blank (spaces, colour codes alone): no row of its own.
pub fn blank(line: &str) -> bool {
    testdeck_core::sanitize::strip_sgr(line).trim().is_empty()
}

/// A row of the runner's own output rather than of the timeline.
pub fn is_output(e: &TimelineEvent) -> bool {
    (e.kind == OUT || e.kind == ERR) && e.name.is_empty()
}

/// A line written to `stream`, as its row: tagged in the type column, no name
/// (dimmed, and `O` hides it).
pub fn row(stream: Stream, line: String) -> TimelineEvent {
    let kind = match stream {
        Stream::Stdout => OUT,
        Stream::Stderr => ERR,
    };
    note(kind, "", "", line)
}

/// What the runner of the launch under way said, for when it ends without a run.
#[derive(Debug, Default)]
pub struct RunnerOutput {
    /// Its last stderr lines (kept whatever the cap or the filters do).
    stderr_tail: VecDeque<String>,
    /// What a runner that wrote no run said when it ended: the launch's closing
    /// notice keeps it.
    exit_note: Option<String>,
}

impl RunnerOutput {
    /// A runner starts: what an earlier one said is not its.
    pub fn started(&mut self) {
        self.stderr_tail.clear();
    }

    /// A line the runner wrote, as its row; a stderr line is kept for the exit row.
    pub fn line(&mut self, stream: Stream, line: String) -> TimelineEvent {
        if stream == Stream::Stderr {
            self.stderr_tail.push_back(line.clone());
            if self.stderr_tail.len() > STDERR_TAIL {
                self.stderr_tail.pop_front();
            }
        }
        row(stream, line)
    }

    /// The runner ended (`reason`) without writing a run: the row that says how,
    /// with its last stderr line, and every kept one in the row's data.
    pub fn exited(
        &mut self,
        reason: &str,
        exit_code: Option<i32>,
        signal: Option<i32>,
    ) -> TimelineEvent {
        let status = match (exit_code, signal) {
            (Some(c), _) => format!("exit {c}"),
            (None, Some(s)) => format!("signal {s}"),
            (None, None) => "not started".to_owned(),
        };
        let tail: Vec<String> = self.stderr_tail.iter().cloned().collect();
        // the last line that says something: a box's border is no cause
        let last = telling_line(tail.iter().map(String::as_str))
            .map_or(String::new(), |l| format!(" · {l}"));
        let mut ev = note(
            "run",
            &format!("runner {status}"),
            "failed",
            format!("{reason}{last}"),
        );
        ev.data = serde_json::json!({ "stderr": tail });
        self.exit_note = Some(format!("{reason}{last}"));
        ev
    }

    /// The stderr lines kept of the runner that ended last, escaped (the
    /// problems list keeps them).
    pub fn stderr(&self) -> Vec<String> {
        self.stderr_tail
            .iter()
            .map(|l| escape(l).into_owned())
            .collect()
    }

    /// ` — runner: …` for the launch's closing notice, once, when the runner
    /// ended without a run (else nothing).
    pub fn closing(&mut self) -> String {
        self.exit_note
            .take()
            .map_or(String::new(), |n| format!(" — runner: {}", escape(&n)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::test_support::{app, step};
    use crate::action::Command;
    use crate::app::App;
    use testdeck_exec::process::Stream;
    use testdeck_exec::tests_run::RUNNER_ID;
    use testdeck_exec::{ExecEvent as E, ResultLine, Summary};

    fn out(stream: Stream, line: &str) -> E {
        E::Output {
            id: RUNNER_ID.into(),
            stream,
            line: line.into(),
        }
    }

    /// The rows shown, each as `type name message`.
    fn shown(a: &App) -> Vec<String> {
        let run = a.live.run().expect("a run shown");
        a.live
            .rows()
            .map(|i| {
                let e = &run.events[i];
                format!("{} {} {}", e.kind, e.name, e.message)
            })
            .collect()
    }

    #[test]
    fn runner_lines_interleave_with_the_timeline_and_o_hides_them() {
        const KEY: &str = "kb/backend/search/basic/kb-search-empty";
        let mut a = app();
        let run = format!("tests/logs/{KEY}/r1");
        // the run's events come through the follow of its folder, the runner's
        // lines through the launch: each as the runtime hands them on
        let ev = |a: &mut App, name: &str| {
            a.follow_queued(
                &run,
                testdeck_core::tail::live_run::RunUpdate {
                    events: vec![step(name)],
                    ..Default::default()
                },
            )
        };
        let fx = a.exec_queued(
            0,
            [
                E::RunnerStart {
                    command: vec!["sh".into()],
                },
                out(Stream::Stdout, "compiling"),
                E::CaseStart {
                    id: KEY.into(),
                    source: "tests".into(),
                    title: None,
                    category: None,
                    risk: None,
                    command: None,
                    run_id: Some("r1".into()),
                    path: Some(run.clone()),
                },
            ],
        );
        assert!(
            fx.iter().any(
                |e| matches!(e, crate::app::Effect::Follow { path, follower: None } if *path == run)
            ),
            "the launch's run is followed from its first line: {fx:?}"
        );
        ev(&mut a, "s1");
        a.exec_queued(0, [out(Stream::Stderr, "warning: slow")]);
        ev(&mut a, "s2");
        a.exec_queued(0, [out(Stream::Stdout, "done")]);
        let all = [
            "out  compiling",
            &format!("run start {KEY} "),
            "step s1 ",
            "err  warning: slow",
            "step s2 ",
            "out  done",
        ];
        assert_eq!(shown(&a), all);
        assert_eq!(a.live.title_id(), "kb-search-empty · r1");
        // dropping events at the front keeps the rows in step (the cap)
        ev(&mut a, "s3");
        assert_eq!(shown(&a).len(), all.len() + 1);
        a.live.command(Command::ToggleOutput);
        assert_eq!(
            shown(&a),
            [
                &format!("run start {KEY} "),
                "step s1 ",
                "step s2 ",
                "step s3 "
            ]
        );
        // hidden output stays hidden as more streams in, and comes back with O
        a.exec_queued(0, [out(Stream::Stderr, "late")]);
        ev(&mut a, "s4");
        assert!(shown(&a).iter().all(|r| !r.starts_with("err")));
        a.live.command(Command::ToggleOutput);
        assert_eq!(shown(&a).last().map(String::as_str), Some("step s4 "));
        assert!(shown(&a).contains(&"err  late".to_owned()));
    }

    /// The launch and the follow of its run are two queues: a case's end that
    /// comes before its run's last events waits under them, a timeline that
    /// appears after the follow began (a reset) clears none of the launch's
    /// rows, and a case whose run never ends (cancelled) gets its end row when
    /// the launch ends.
    #[test]
    fn a_case_s_end_row_stays_under_its_run_s_last_events() {
        const KEY: &str = "kb/backend/search/basic/kb-search-empty";
        let run = format!("tests/logs/{KEY}/r1");
        let start = |run_id: &str| E::CaseStart {
            id: KEY.into(),
            source: "tests".into(),
            title: None,
            category: None,
            risk: None,
            command: None,
            run_id: Some(run_id.into()),
            path: Some(format!("tests/logs/{KEY}/{run_id}")),
        };
        let end = |verdict| {
            E::CaseEnd(ResultLine {
                id: KEY.into(),
                verdict,
                reason: None,
                duration_ms: 1,
                exit_code: None,
                run_id: Some("r1".into()),
                tests: None,
            })
        };
        let update = |names: &[&str], reset: bool, finished: bool| {
            testdeck_core::tail::live_run::RunUpdate {
                reset,
                events: names.iter().map(|n| step(n)).collect(),
                problems: Vec::new(),
                finished,
            }
        };
        let mut a = app();
        a.exec_queued(0, [start("r1")]);
        // the timeline created after the follow began: a reset of nothing shown
        a.follow_queued(&run, update(&["s1"], true, false));
        a.exec_queued(0, [end(testdeck_exec::record::Verdict::Pass)]);
        let head = [format!("run start {KEY} "), "step s1 ".to_owned()];
        assert_eq!(shown(&a), head, "the end row came before s2");
        a.follow_queued(&run, update(&["s2"], false, true));
        assert_eq!(
            shown(&a),
            [
                &head[..],
                &["step s2 ".to_owned(), "run end pass ".to_owned()]
            ]
            .concat()
        );
        // cancelled: no meta.json, its follow never ends; the launch's end says it
        a.exec_queued(0, [start("r2")]);
        a.exec_queued(0, [end(testdeck_exec::record::Verdict::NotRun)]);
        assert_eq!(shown(&a), [format!("run start {KEY} ")]);
        a.exec_queued(0, [E::Summary(Summary::default())]);
        assert_eq!(
            shown(&a),
            [format!("run start {KEY} "), "run end not-run ".to_owned()]
        );
    }

    #[test]
    fn a_runner_that_writes_no_run_leaves_its_exit_and_stderr_in_the_pane() {
        let mut a = app();
        let reason = "the runner exited with status 3 without writing a run";
        a.exec_queued(
            0,
            vec![
                E::RunnerStart {
                    command: vec!["sh".into()],
                },
                out(Stream::Stdout, "starting"),
                out(Stream::Stderr, "Error: cannot load vitest.config.mts"),
                E::RunnerExit {
                    exit_code: Some(3),
                    signal: None,
                    runs: Vec::new(),
                    reason: Some(reason.into()),
                },
                E::Summary(Summary {
                    results: vec![ResultLine {
                        id: RUNNER_ID.into(),
                        verdict: testdeck_exec::record::Verdict::EnvironmentFail,
                        reason: Some(reason.into()),
                        duration_ms: 1,
                        exit_code: Some(3),
                        run_id: None,
                        tests: None,
                    }],
                    ..Summary::default()
                }),
            ],
        );
        let rows = shown(&a);
        assert_eq!(rows[0], "out  starting");
        assert_eq!(rows[1], "err  Error: cannot load vitest.config.mts");
        assert_eq!(
            rows[2],
            format!("run runner exit 3 {reason} · Error: cannot load vitest.config.mts")
        );
        assert_eq!(a.live.title_id(), format!("{RUNNER_ID} · launch"));
        let notice = a.notice.clone().unwrap_or_default();
        assert!(
            notice.starts_with("launch done: 1 environment-fail"),
            "{notice}"
        );
        assert!(notice.contains(reason), "{notice}");
        assert!(notice.contains("cannot load vitest.config.mts"), "{notice}");
        // the stderr lines stay in the exit row's data, even with output hidden
        a.live.command(Command::ToggleOutput);
        assert_eq!(shown(&a).len(), 1);
        let (_, data) = a.live.data().expect("the exit row's data");
        assert!(
            data.iter()
                .any(|l| l.contains("cannot load vitest.config.mts"))
        );
    }
}
