//! The one queue between a producer thread and the app — a run's follow task,
//! a launch's threads: what is pushed is coalesced (one wake-up on the loop's
//! channel pending at a time, however fast the producer goes) and bounded (a
//! burst of droppable items keeps its last ones; what it dropped is counted and
//! handed on before them), so a flood neither grows memory nor delays keys.
//! `follow_queue` and `launch_queue` say what is droppable and how a drop is said.

use std::collections::VecDeque;

/// What the producer pushed and the app has not taken yet.
#[derive(Debug)]
pub struct Coalescing<T> {
    items: VecDeque<Entry<T>>,
    /// A wake-up is on the loop's channel: the next push sends none.
    scheduled: bool,
}

impl<T> Default for Coalescing<T> {
    fn default() -> Self {
        Coalescing {
            items: VecDeque::new(),
            scheduled: false,
        }
    }
}

#[derive(Debug)]
enum Entry<T> {
    /// Never dropped (a case's start or end), kept in order between bursts.
    Kept(T),
    /// Droppable items pushed one after another, and how many of its older
    /// ones were dropped to keep its bound.
    Burst(VecDeque<T>, u64),
}

/// What the app takes: an item, or how many items of a burst were dropped
/// before the ones that follow.
#[derive(Debug, PartialEq, Eq)]
pub enum Taken<T> {
    Item(T),
    Dropped(u64),
}

impl<T> Coalescing<T> {
    /// Queue `item`, never dropped; true when the app must be woken.
    pub fn push_kept(&mut self, item: T) -> bool {
        self.items.push_back(Entry::Kept(item));
        self.wake()
    }

    /// Queue droppable `items`, the burst they join keeping its last `cap`
    /// (at least one); true when the app must be woken (even for no items: the
    /// caller has news of its own, a run's end).
    pub fn extend_bounded(&mut self, items: impl IntoIterator<Item = T>, cap: usize) -> bool {
        let mut items = items.into_iter().peekable();
        if items.peek().is_some() {
            if !matches!(self.items.back(), Some(Entry::Burst(..))) {
                self.items.push_back(Entry::Burst(VecDeque::new(), 0));
            }
            if let Some(Entry::Burst(burst, dropped)) = self.items.back_mut() {
                for item in items {
                    burst.push_back(item);
                    if burst.len() > cap.max(1) {
                        burst.pop_front();
                        *dropped += 1;
                    }
                }
            }
        }
        self.wake()
    }

    /// True when the app must be woken: no wake-up is pending.
    pub fn wake(&mut self) -> bool {
        !std::mem::replace(&mut self.scheduled, true)
    }

    /// Forget what waits, and what was dropped of it (a run's timeline replaced).
    pub fn clear(&mut self) {
        self.items.clear();
    }

    /// How many items wait.
    pub fn pending(&self) -> usize {
        self.items
            .iter()
            .map(|e| match e {
                Entry::Kept(_) => 1,
                Entry::Burst(b, _) => b.len(),
            })
            .sum()
    }

    /// Up to `batch` items (a drop's count is one), in order; the flag says
    /// whether more wait (then the caller wakes itself again, behind whatever
    /// else is queued), else the next push wakes the app.
    pub fn take(&mut self, batch: usize) -> (Vec<Taken<T>>, bool) {
        let mut out = Vec::new();
        while out.len() < batch {
            match self.items.front_mut() {
                None => break,
                Some(Entry::Kept(_)) => {
                    if let Some(Entry::Kept(item)) = self.items.pop_front() {
                        out.push(Taken::Item(item));
                    }
                }
                Some(Entry::Burst(burst, dropped)) => {
                    if *dropped > 0 {
                        out.push(Taken::Dropped(std::mem::take(dropped)));
                    }
                    let n = batch.saturating_sub(out.len()).min(burst.len());
                    out.extend(burst.drain(..n).map(Taken::Item));
                    if burst.is_empty() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_wakes_once_keeps_its_bound_and_the_kept_items_in_order() {
        let mut q = Coalescing::default();
        assert!(q.extend_bounded(0..5, 3));
        assert!(!q.push_kept(100));
        assert!(!q.extend_bounded(5..10, 3));
        assert_eq!(q.pending(), 7);
        let (got, more) = q.take(4);
        assert!(more);
        assert_eq!(
            got,
            [
                Taken::Dropped(2),
                Taken::Item(2),
                Taken::Item(3),
                Taken::Item(4)
            ]
        );
        // still scheduled: the app wakes itself for the rest, a push wakes nobody
        assert!(!q.extend_bounded([10], 3));
        let (got, more) = q.take(100);
        assert!(!more);
        assert_eq!(
            got,
            [
                Taken::Item(100),
                Taken::Dropped(3),
                Taken::Item(8),
                Taken::Item(9),
                Taken::Item(10)
            ]
        );
        // drained: the next push wakes the app again, a cleared queue holds nothing
        assert!(q.extend_bounded([1], 3));
        q.clear();
        assert_eq!(q.take(10), (Vec::new(), false));
        assert!(q.wake());
    }
}
