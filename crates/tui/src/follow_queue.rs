//! The queue between a followed run's tail task and the app: what the tail engine
//! reads is coalesced (one wake-up on the loop's channel at a time, however fast
//! the timeline grows) and bounded to the live pane's window, so a flooding writer
//! neither grows memory nor delays keys.

use super::queue_handle::QueueHandle;
use std::collections::VecDeque;
use testdeck_core::tail::live_run::RunUpdate;
use testdeck_core::workspace::timeline::TimelineEvent;

/// What the follow task read and the app has not taken yet.
#[derive(Debug, Default)]
pub struct FollowQueue {
    reset: bool,
    events: VecDeque<TimelineEvent>,
    /// Events read but dropped here (more came than the pane keeps).
    dropped: u64,
    problems: Vec<String>,
    finished: bool,
    scheduled: bool,
    /// Events handed to the app so far (the tests' look at which way a run came).
    taken: u64,
}

/// One take of the queue: a [`RunUpdate`] and how many events before its
/// first were read but not kept.
#[derive(Debug, Default)]
pub struct Taken {
    pub(crate) update: RunUpdate,
    pub(crate) dropped: u64,
}

impl FollowQueue {
    /// Queue what the tail engine read, keeping the last `cap` events; true when
    /// the app must be woken (no take is pending).
    pub fn push(&mut self, u: RunUpdate, cap: usize) -> bool {
        if u.reset {
            // a new version of the file: what waited belongs to the old one
            self.events.clear();
            self.dropped = 0;
            self.reset = true;
        }
        self.events.extend(u.events);
        let over = self.events.len().saturating_sub(cap.max(1));
        if over > 0 {
            self.events.drain(..over);
            self.dropped += over as u64;
        }
        let room =
            testdeck_core::tail::live_run::MAX_RUN_PROBLEMS.saturating_sub(self.problems.len());
        self.problems.extend(u.problems.into_iter().take(room));
        self.finished |= u.finished;
        !std::mem::replace(&mut self.scheduled, true)
    }

    /// How many events wait.
    pub fn pending(&self) -> usize {
        self.events.len()
    }

    /// Events handed to the app so far.
    #[cfg(test)]
    pub(crate) fn taken(&self) -> u64 {
        self.taken
    }

    /// Everything queued, in order; the next push wakes the app again.
    pub fn take(&mut self) -> Taken {
        self.scheduled = false;
        self.taken += self.events.len() as u64;
        Taken {
            update: RunUpdate {
                reset: std::mem::take(&mut self.reset),
                events: std::mem::take(&mut self.events).into(),
                problems: std::mem::take(&mut self.problems),
                finished: std::mem::take(&mut self.finished),
            },
            dropped: std::mem::take(&mut self.dropped),
        }
    }
}

impl QueueHandle<FollowQueue> {
    /// Queue `u`; true when the app must be woken.
    pub fn push(&self, u: RunUpdate, cap: usize) -> bool {
        self.with(false, |q| q.push(u, cap))
    }
    /// What waits.
    pub fn take(&self) -> Taken {
        self.with(Taken::default(), FollowQueue::take)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(n: usize) -> TimelineEvent {
        TimelineEvent {
            kind: "step".into(),
            name: format!("s{n}"),
            ..TimelineEvent::default()
        }
    }

    fn update(r: std::ops::Range<usize>, reset: bool) -> RunUpdate {
        RunUpdate {
            reset,
            events: r.map(ev).collect(),
            ..RunUpdate::default()
        }
    }

    #[test]
    fn a_flood_wakes_once_keeps_the_last_events_and_counts_the_rest() {
        let mut q = FollowQueue::default();
        assert!(q.push(update(0..100, false), 10));
        for i in 1..50 {
            assert!(!q.push(update(i * 100..i * 100 + 100, false), 10));
        }
        let t = q.take();
        assert_eq!(t.dropped, 4990);
        let names: Vec<&str> = t.update.events.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names.first(), Some(&"s4990"));
        assert_eq!(names.len(), 10);
        assert!(!t.update.reset && !t.update.finished);
        // woken again once taken; a reset drops what the old file queued
        assert!(q.push(update(0..5, false), 10));
        q.push(update(0..3, true), 10);
        q.push(
            RunUpdate {
                finished: true,
                ..RunUpdate::default()
            },
            10,
        );
        let t = q.take();
        assert!(t.update.reset && t.update.finished);
        assert_eq!((t.update.events.len(), t.dropped), (3, 0));
    }
}
