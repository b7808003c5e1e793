//! The queue between a launch's threads and the app: output lines and timeline
//! events are coalesced (one wake-up on the loop's channel at a time, however much
//! a child or a run writes) and a burst is bounded, so a flood neither grows memory
//! nor delays keys.

use super::queue_handle::QueueHandle;

/// Output lines and timeline events of one burst a launch queue keeps for the
/// app; older ones are dropped (counted: a line says how many output lines, the
/// run's count of earlier events not loaded takes the events): the live pane
/// shows the latest anyway.
pub(crate) const QUEUED_LINES: usize = 10_000;
/// Events applied per wake-up: keys queued behind a flood wait at most one batch.
const DRAIN_BATCH: usize = 4_000;
/// The longest output line kept for the live pane (the case log has it whole).
pub(crate) const LIVE_LINE: usize = 2_048;

/// What a launch sent and the app has not seen yet. Output lines are coalesced:
/// one [`Msg::Drain`] is on the channel at a time, however much a child writes,
/// and a burst keeps its last [`QUEUED_LINES`] lines; other events are kept in
/// order between them.
#[derive(Default)]
pub struct LaunchQueue {
    items: std::collections::VecDeque<Queued>,
    scheduled: bool,
    /// Timeline events that entered (the tests' look at which way a run came).
    timelines: u64,
}

enum Queued {
    Event(testdeck_exec::ExecEvent),
    /// A burst of output lines and timeline events, how many of its older output
    /// lines were dropped, and of its timeline events (by case).
    Lines(
        std::collections::VecDeque<testdeck_exec::ExecEvent>,
        u64,
        Vec<(String, u64)>,
    ),
}

/// What the app takes from the queue: an event, or how many timeline events of
/// case `id` were dropped before the ones that follow.
#[derive(Debug)]
pub enum Item {
    Event(testdeck_exec::ExecEvent),
    Skipped { id: String, n: u64 },
}

impl From<testdeck_exec::ExecEvent> for Item {
    fn from(ev: testdeck_exec::ExecEvent) -> Item {
        Item::Event(ev)
    }
}

/// Count one dropped event of case `id`.
fn count(skipped: &mut Vec<(String, u64)>, id: &str) {
    match skipped.iter_mut().find(|(i, _)| i == id) {
        Some((_, n)) => *n += 1,
        None => skipped.push((id.to_owned(), 1)),
    }
}

impl LaunchQueue {
    /// Timeline events that entered so far.
    #[cfg(test)]
    pub(crate) fn timelines(&self) -> u64 {
        self.timelines
    }

    /// Queue `ev`; true when the app must be woken (no drain is pending).
    pub fn push(&mut self, ev: testdeck_exec::ExecEvent) -> bool {
        use testdeck_exec::ExecEvent as E;
        if matches!(ev, E::Timeline { .. }) {
            self.timelines += 1;
        }
        let ev = match ev {
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
                E::Output { id, stream, line }
            }
            ev @ E::Timeline { .. } => ev,
            other => {
                self.items.push_back(Queued::Event(other));
                return !std::mem::replace(&mut self.scheduled, true);
            }
        };
        if let Some(Queued::Lines(lines, dropped, skipped)) = self.items.back_mut() {
            lines.push_back(ev);
            if lines.len() > QUEUED_LINES {
                match lines.pop_front() {
                    Some(E::Timeline { id, .. }) => count(skipped, &id),
                    _ => *dropped += 1,
                }
            }
        } else {
            self.items.push_back(Queued::Lines(
                std::collections::VecDeque::from([ev]),
                0,
                Vec::new(),
            ));
        }
        !std::mem::replace(&mut self.scheduled, true)
    }

    /// Up to [`DRAIN_BATCH`] events, in order; the flag says whether more wait
    /// (then the caller wakes itself again, behind whatever else is queued).
    pub fn take(&mut self) -> (Vec<Item>, bool) {
        use testdeck_exec::ExecEvent as E;
        let mut out = Vec::new();
        while out.len() < DRAIN_BATCH {
            match self.items.front_mut() {
                None => break,
                Some(Queued::Event(_)) => {
                    if let Some(Queued::Event(ev)) = self.items.pop_front() {
                        out.push(Item::Event(ev));
                    }
                }
                Some(Queued::Lines(lines, dropped, skipped)) => {
                    if *dropped > 0 {
                        let first = lines.iter().find_map(|e| match e {
                            E::Output { id, stream, .. } => Some((id.clone(), *stream)),
                            _ => None,
                        });
                        if let Some((id, stream)) = first {
                            out.push(Item::Event(E::Output {
                                id,
                                stream,
                                line: format!(
                                    "[testdeck] {dropped} lines not shown here (output came faster than the screen; the case log has them)"
                                ),
                            }));
                        }
                        *dropped = 0;
                    }
                    out.extend(skipped.drain(..).map(|(id, n)| Item::Skipped { id, n }));
                    let n = DRAIN_BATCH
                        .saturating_sub(out.len())
                        .min(lines.len())
                        .max(1);
                    out.extend(lines.drain(..n.min(lines.len())).map(Item::Event));
                    if lines.is_empty() {
                        self.items.pop_front();
                    }
                }
            }
        }
        let more = !self.items.is_empty();
        self.scheduled = more;
        (out, more)
    }
}

impl QueueHandle<LaunchQueue> {
    /// Queue `ev`; true when the app must be woken.
    pub fn push(&self, ev: testdeck_exec::ExecEvent) -> bool {
        self.with(false, |q| q.push(ev))
    }
    /// The next batch, and whether more wait.
    pub fn take(&self) -> (Vec<Item>, bool) {
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
        }));
        q.push(out(50_000));
        let mut all = Vec::new();
        loop {
            let (evs, more) = q.take();
            assert!(evs.len() <= DRAIN_BATCH);
            all.extend(evs.into_iter().filter_map(|i| match i {
                Item::Event(e) => Some(e),
                Item::Skipped { .. } => None,
            }));
            if !more {
                break;
            }
        }
        assert!(!q.scheduled);
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
    #[test]
    fn a_flood_of_timeline_events_is_bounded_and_the_dropped_ones_counted() {
        use testdeck_exec::ExecEvent as E;
        let ev = |n: usize| E::Timeline {
            run_id: "r".into(),
            id: "c".into(),
            lineno: n as u64,
            event: Box::new(testdeck_core::workspace::timeline::TimelineEvent {
                name: format!("s{n}"),
                ..Default::default()
            }),
            issues: Vec::new(),
        };
        let mut q = LaunchQueue::default();
        assert!(q.push(ev(0)));
        for n in 1..100_000 {
            assert!(!q.push(ev(n)));
        }
        let queued: usize = q
            .items
            .iter()
            .map(|i| match i {
                Queued::Lines(l, ..) => l.len(),
                Queued::Event(_) => 1,
            })
            .sum();
        assert_eq!(queued, QUEUED_LINES);
        let (first, _) = q.take();
        match first.first() {
            Some(Item::Skipped { id, n }) => {
                assert_eq!((id.as_str(), *n), ("c", (100_000 - QUEUED_LINES) as u64));
            }
            other => panic!("the dropped count comes first: {other:?}"),
        }
        match first.get(1) {
            Some(Item::Event(E::Timeline { lineno, .. })) => {
                assert_eq!(*lineno, (100_000 - QUEUED_LINES) as u64);
            }
            other => panic!("{other:?}"),
        }
    }
}
