//! The queue between a launch's threads and the app: its lifecycle events and
//! the output lines of its processes, through the one coalescing queue
//! (`coalescing`): a flood of output keeps its last lines, and a line says how
//! many it dropped; a case's start and end are never dropped. A run's timeline
//! never comes this way: it comes through the follow of its folder.

use super::coalescing::{Coalescing, Taken};
use super::queue_handle::QueueHandle;
use testdeck_exec::ExecEvent as E;

/// Output lines of one burst a launch queue keeps for the app; older ones are
/// dropped (a line says how many): the live pane shows the latest anyway.
pub(crate) const QUEUED_LINES: usize = 10_000;
/// Events applied per wake-up: keys queued behind a flood wait at most one batch.
const DRAIN_BATCH: usize = 4_000;
/// The longest output line kept for the live pane (the case log has it whole).
pub(crate) const LIVE_LINE: usize = 2_048;

/// What a launch sent and the app has not seen yet.
#[derive(Default)]
pub struct LaunchQueue {
    queue: Coalescing<testdeck_exec::ExecEvent>,
    /// Timeline events that entered (the tests' look at which way a run came).
    timelines: u64,
}

impl LaunchQueue {
    /// Timeline events that entered so far.
    #[cfg(test)]
    pub(crate) fn timelines(&self) -> u64 {
        self.timelines
    }

    /// Queue `ev`; true when the app must be woken (no drain is pending).
    pub fn push(&mut self, ev: testdeck_exec::ExecEvent) -> bool {
        match ev {
            E::Output {
                id,
                stream,
                mut line,
            } => {
                if line.len() > LIVE_LINE {
                    let mut cut = LIVE_LINE;
                    while !line.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    line.truncate(cut);
                    line.push('…');
                }
                self.queue
                    .extend_bounded([E::Output { id, stream, line }], QUEUED_LINES)
            }
            other => {
                self.timelines += u64::from(matches!(other, E::Timeline { .. }));
                self.queue.push_kept(other)
            }
        }
    }

    /// Up to [`DRAIN_BATCH`] events, in order, the output lines a flood dropped
    /// said by a line of their own; the flag says whether more wait (then the
    /// caller wakes itself again, behind whatever else is queued).
    pub fn take(&mut self) -> (Vec<testdeck_exec::ExecEvent>, bool) {
        let (taken, more) = self.queue.take(DRAIN_BATCH);
        let mut out = Vec::with_capacity(taken.len());
        let mut taken = taken.into_iter().peekable();
        while let Some(t) = taken.next() {
            match t {
                Taken::Item(ev) => out.push(ev),
                // said as a line of the output that follows it (its case, its pipe)
                Taken::Dropped(n) => {
                    if let Some(Taken::Item(E::Output { id, stream, .. })) = taken.peek() {
                        out.push(E::Output {
                            id: id.clone(),
                            stream: *stream,
                            line: format!(
                                "[testdeck] {n} lines not shown here (output came faster than the screen; the case log has them)"
                            ),
                        });
                    }
                }
            }
        }
        (out, more)
    }
}

impl QueueHandle<LaunchQueue> {
    /// Queue `ev`; true when the app must be woken.
    pub fn push(&self, ev: testdeck_exec::ExecEvent) -> bool {
        self.with(false, |q| q.push(ev))
    }
    /// The next batch, and whether more wait.
    pub fn take(&self) -> (Vec<testdeck_exec::ExecEvent>, bool) {
        self.with((Vec::new(), false), LaunchQueue::take)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_of_launch_output_is_coalesced_bounded_and_in_order() {
        use testdeck_exec::ExecEvent as E;
        use testdeck_exec::process::Stream;
        let out = |n: usize| E::Output {
            id: "c".into(),
            stream: Stream::Stdout,
            line: format!("{n} {}", "y".repeat(if n == 49_999 { 100_000 } else { 1 })),
        };
        let mut q = LaunchQueue::default();
        // one wake for the whole flood
        assert!(q.push(out(0)));
        for n in 1..50_000 {
            assert!(!q.push(out(n)));
        }
        q.push(E::CaseEnd(testdeck_exec::ResultLine {
            id: "c".into(),
            verdict: testdeck_exec::record::Verdict::Pass,
            reason: None,
            duration_ms: 0,
            exit_code: None,
            run_id: None,
            tests: None,
        }));
        q.push(out(50_000));
        let mut all = Vec::new();
        loop {
            let (evs, more) = q.take();
            assert!(evs.len() <= DRAIN_BATCH);
            all.extend(evs);
            if !more {
                break;
            }
        }
        assert_eq!(q.queue.pending(), 0);
        let lines: Vec<&str> = all
            .iter()
            .filter_map(|e| match e {
                E::Output { line, .. } => Some(line.as_str()),
                _ => None,
            })
            .collect();
        assert!(lines[0].contains("40000 lines not shown"), "{}", lines[0]);
        assert_eq!(lines.len(), QUEUED_LINES + 2);
        assert!(lines.iter().all(|l| l.len() <= LIVE_LINE + 4));
        let end = all.iter().position(|e| matches!(e, E::CaseEnd(_)));
        assert_eq!(
            end,
            Some(all.len() - 2),
            "the case end stays between its lines"
        );
        // woken again once drained
        assert!(q.push(out(1)));
    }
}
