//! The one decision and the one drawer for progress lines on long headless work.
//!
//! A spinner with a count goes to stderr while a command indexes the workspace
//! (or validates it), and only when a person watches: stderr and stdout are both
//! terminals (a pipe or a file gets nothing), the command has no `--json`, and
//! `TERM` is not `dumb`. It appears only after [`DELAY`], so a quick command prints
//! nothing, and it is cleared before the command prints its answer. The colour
//! decision beside it is the core's `color.rs`; both are taken once per process.
//! The count is the core's (`testdeck_core::progress::runs_read`): the core
//! counts, this shell draws.

use std::io::IsTerminal as _;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

/// How long work runs before its progress line appears.
pub(crate) const DELAY: Duration = Duration::from_millis(300);
/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(100);

/// Whether progress may be drawn: only for a person at a terminal.
pub(crate) fn decide(json: bool, stdout_tty: bool, stderr_tty: bool, term: Option<&str>) -> bool {
    !json && stdout_tty && stderr_tty && term != Some("dumb")
}

static ALLOWED: OnceLock<bool> = OnceLock::new();

/// Decide once, before any work, for a command with or without `--json` (later
/// calls are ignored).
pub fn allow(json: bool) {
    let _ = ALLOWED.set(decide(
        json,
        std::io::stdout().is_terminal(),
        std::io::stderr().is_terminal(),
        std::env::var("TERM").ok().as_deref(),
    ));
}

fn allowed() -> bool {
    ALLOWED.get().copied().unwrap_or(false)
}

/// The delay before the line appears: [`DELAY`], or `TESTDECK_PROGRESS_AFTER_MS`
/// (tests use 0 to see the line on a small workspace).
fn delay() -> Duration {
    std::env::var("TESTDECK_PROGRESS_AFTER_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(DELAY, Duration::from_millis)
}

/// A progress line while it lives; dropping it clears the line (and waits for
/// the drawer, so nothing is drawn after the command's answer).
pub struct Progress {
    stop: Arc<(Mutex<bool>, Condvar)>,
    drawer: Option<std::thread::JoinHandle<()>>,
}

/// Start the line for `what` (`indexing`, `validating`): `what N runs`.
pub fn start(what: &'static str) -> Progress {
    let stop = Arc::new((Mutex::new(false), Condvar::new()));
    if !allowed() {
        return Progress { stop, drawer: None };
    }
    let flag = Arc::clone(&stop);
    let drawer = std::thread::Builder::new()
        .name("progress".into())
        .spawn(move || draw(what, &flag))
        .ok();
    Progress { stop, drawer }
}

/// Wait `d` unless stopped first; whether it was stopped.
fn stopped_within(stop: &(Mutex<bool>, Condvar), d: Duration) -> bool {
    let (lock, cv) = stop;
    let Ok(guard) = lock.lock() else { return true };
    match cv.wait_timeout_while(guard, d, |s| !*s) {
        Ok((g, _)) => *g,
        Err(_) => true,
    }
}

fn draw(what: &'static str, stop: &(Mutex<bool>, Condvar)) {
    let delay = delay();
    // with no delay (a test) the line is drawn at least once, however quick the work
    if !delay.is_zero() && stopped_within(stop, delay) {
        return;
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        None,
        indicatif::ProgressDrawTarget::stderr_with_hz(10),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {msg}") {
        bar.set_style(style);
    }
    loop {
        let n = testdeck_core::progress::runs_read();
        bar.set_message(format!("{what} {} runs", testdeck_core::number::grouped(n)));
        bar.tick();
        if stopped_within(stop, TICK) {
            break;
        }
    }
    bar.finish_and_clear();
}

impl Drop for Progress {
    fn drop(&mut self) {
        let (lock, cv) = &*self.stop;
        if let Ok(mut s) = lock.lock() {
            *s = true;
        }
        cv.notify_all();
        if let Some(d) = self.drawer.take() {
            let _ = d.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::decide;

    #[test]
    fn only_a_person_at_a_terminal_sees_progress() {
        assert!(decide(false, true, true, Some("xterm-256color")));
        assert!(decide(false, true, true, None));
        assert!(!decide(true, true, true, None), "--json");
        assert!(!decide(false, false, true, None), "stdout piped");
        assert!(!decide(false, true, false, None), "stderr not a terminal");
        assert!(!decide(false, true, true, Some("dumb")));
    }
}
