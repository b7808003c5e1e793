//! How far long work has come, for a shell to show: the core counts the run
//! folders it reads (an atomic add, nothing drawn); the headless commands'
//! progress line (`testdeck-cli`'s `progress`) reads the count.

use std::sync::atomic::{AtomicU64, Ordering};

/// Run folders read so far by the core.
static DONE: AtomicU64 = AtomicU64::new(0);

/// The core reports `n` more run folders read.
pub(crate) fn advance(n: u64) {
    DONE.fetch_add(n, Ordering::Relaxed);
}

/// Run folders read so far in this process (the count a progress line shows).
pub fn runs_read() -> u64 {
    DONE.load(Ordering::Relaxed)
}
