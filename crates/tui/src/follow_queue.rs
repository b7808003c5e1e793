//! The queue between a followed run's tail task and the app: what the tail
//! engine reads goes through the one coalescing queue (`coalescing`), bounded
//! to the live pane's window, so a flooding writer neither grows memory nor
//! delays keys; beside it, what a run's update says besides its events.

use super::coalescing::{Coalescing, Taken as Item};
use super::queue_handle::QueueHandle;
use testdeck_core::tail::live_run::RunUpdate;
use testdeck_core::workspace::timeline::TimelineEvent;

/// What the follow task read and the app has not taken yet.
#[derive(Debug, Default)]
pub struct FollowQueue {
    /// The events, every one droppable: the pane keeps the last ones anyway.
    events: Coalescing<TimelineEvent>,
    reset: bool,
    problems: Vec<String>,
    finished: bool,
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
            self.reset = true;
        }
        let room =
            testdeck_core::tail::live_run::MAX_RUN_PROBLEMS.saturating_sub(self.problems.len());
        self.problems.extend(u.problems.into_iter().take(room));
        self.finished |= u.finished;
        self.events.extend_bounded(u.events, cap)
    }

    /// How many events wait.
    pub fn pending(&self) -> usize {
        self.events.pending()
    }

    /// Events handed to the app so far.
    #[cfg(test)]
    pub(crate) fn taken(&self) -> u64 {
        self.taken
    }

    /// Everything queued, in order; the next push wakes the app again.
    pub fn take(&mut self) -> Taken {
        let (taken, _) = self.events.take(usize::MAX);
        let mut events = Vec::with_capacity(taken.len());
        let mut dropped = 0;
        for t in taken {
            match t {
                Item::Item(ev) => events.push(ev),
                Item::Dropped(n) => dropped += n,
            }
        }
        self.taken += events.len() as u64;
        Taken {
            update: RunUpdate {
                reset: std::mem::take(&mut self.reset),
                events,
                problems: std::mem::take(&mut self.problems),
                finished: std::mem::take(&mut self.finished),
            },
            dropped,
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
