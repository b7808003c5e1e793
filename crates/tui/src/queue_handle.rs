//! The handle by which a producer (a tail task, a launch's threads) and the app share a queue.

use std::sync::{Arc, Mutex};

/// A queue as the loop passes it around: the producer pushes under the lock and
/// wakes the app, which takes what waits when woken.
pub struct QueueHandle<Q>(pub Arc<Mutex<Q>>);

impl<Q> Clone for QueueHandle<Q> {
    fn clone(&self) -> Self {
        QueueHandle(Arc::clone(&self.0))
    }
}

impl<Q: Default> Default for QueueHandle<Q> {
    fn default() -> Self {
        QueueHandle(Arc::default())
    }
}

impl<Q> std::fmt::Debug for QueueHandle<Q> {
    /// The queue's name only: what waits may be a whole flood, and reading it would
    /// take the lock the producer needs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = std::any::type_name::<Q>();
        f.write_str(name.rsplit("::").next().unwrap_or(name))
    }
}

impl<Q> QueueHandle<Q> {
    /// `f` on the queue under the lock; `poisoned` when a thread panicked holding it
    /// (what it held is lost either way).
    pub fn with<R>(&self, poisoned: R, f: impl FnOnce(&mut Q) -> R) -> R {
        self.0.lock().map_or(poisoned, |mut q| f(&mut q))
    }
}
