//! The queue between a launch's threads and the app: output lines are coalesced
//! (one wake-up on the loop's channel at a time, however much a child writes) and a
//! burst is bounded, so a flooding child neither grows memory nor delays keys.

use std::sync::{Arc, Mutex};

/// Output lines of one burst a launch queue keeps for the app; older ones are
/// dropped (counted in one line): the live pane shows the latest anyway.
pub const QUEUED_LINES: usize = 10_000;
/// Events applied per wake-up: keys queued behind a flood wait at most one batch.
const DRAIN_BATCH: usize = 4_000;
/// The longest output line kept for the live pane (the case log has it whole).
pub const LIVE_LINE: usize = 2_048;

/// What a launch sent and the app has not seen yet. Output lines are coalesced:
/// one [`Msg::Drain`] is on the channel at a time, however much a child writes,
/// and a burst keeps its last [`QUEUED_LINES`] lines; other events are kept in
/// order between them.
#[derive(Default)]
pub struct LaunchQueue {
    items: std::collections::VecDeque<Queued>,
    scheduled: bool,
}

enum Queued {
    Event(crate::exec::ExecEvent),
    /// A burst of output lines, and how many of its older lines were dropped.
    Lines(std::collections::VecDeque<crate::exec::ExecEvent>, u64),
}

impl LaunchQueue {
    /// Queue `ev`; true when the app must be woken (no drain is pending).
    pub fn push(&mut self, ev: crate::exec::ExecEvent) -> bool {
        use crate::exec::ExecEvent as E;
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
                let ev = E::Output { id, stream, line };
                if let Some(Queued::Lines(lines, dropped)) = self.items.back_mut() {
                    lines.push_back(ev);
                    if lines.len() > QUEUED_LINES {
                        lines.pop_front();
                        *dropped += 1;
                    }
                } else {
                    self.items
                        .push_back(Queued::Lines(std::collections::VecDeque::from([ev]), 0));
                }
            }
            other => self.items.push_back(Queued::Event(other)),
        }
        !std::mem::replace(&mut self.scheduled, true)
    }

    /// Up to [`DRAIN_BATCH`] events, in order; the flag says whether more wait
    /// (then the caller wakes itself again, behind whatever else is queued).
    pub fn take(&mut self) -> (Vec<crate::exec::ExecEvent>, bool) {
        use crate::exec::ExecEvent as E;
        let mut out = Vec::new();
        while out.len() < DRAIN_BATCH {
            match self.items.front_mut() {
                None => break,
                Some(Queued::Event(_)) => {
                    if let Some(Queued::Event(ev)) = self.items.pop_front() {
                        out.push(ev);
                    }
                }
                Some(Queued::Lines(lines, dropped)) => {
                    if *dropped > 0 {
                        if let Some(E::Output { id, stream, .. }) = lines.front() {
                            out.push(E::Output {
                                id: id.clone(),
                                stream: *stream,
                                line: format!(
                                    "[testdeck] {dropped} lines not shown here (output came faster than the screen; the case log has them)"
                                ),
                            });
                        }
                        *dropped = 0;
                    }
                    let n = (DRAIN_BATCH - out.len()).min(lines.len());
                    out.extend(lines.drain(..n));
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

/// A launch's queue as the loop passes it around: the app drains it when woken.
#[derive(Clone, Default)]
pub struct Shared(pub Arc<Mutex<LaunchQueue>>);

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LaunchQueue")
    }
}

impl Shared {
    /// Queue `ev`; true when the app must be woken.
    pub fn push(&self, ev: crate::exec::ExecEvent) -> bool {
        self.0.lock().is_ok_and(|mut q| q.push(ev))
    }
    /// The next batch, and whether more wait.
    pub fn take(&self) -> (Vec<crate::exec::ExecEvent>, bool) {
        self.0
            .lock()
            .map_or_else(|_| (Vec::new(), false), |mut q| q.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_of_launch_output_is_coalesced_bounded_and_in_order() {
        use crate::exec::ExecEvent as E;
        use crate::exec::process::Stream;
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
        q.push(E::CaseEnd(crate::exec::ResultLine {
            id: "c".into(),
            verdict: crate::exec::record::Verdict::Pass,
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
            all.extend(evs);
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
}
