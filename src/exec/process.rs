//! One child process in its own process group: spawn, stream its output lines,
//! keep it in full in a log file, enforce a timeout, cancel, and make sure no
//! process of the group outlives it (SIGTERM, then SIGKILL after 3 s).

use super::sys;
use serde::Serialize;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Time between SIGTERM and SIGKILL to a group (SPEC §3.4).
pub const KILL_GRACE: Duration = Duration::from_secs(3);
/// How many last lines of output an outcome keeps (the record's tail).
pub const TAIL_LINES: usize = 20;
/// Longest line passed on; longer output is cut into several lines so one
/// endless line cannot exhaust memory.
pub const MAX_LINE: usize = 64 * 1024;
/// How often the loop looks at the child, the clock and the cancel flag.
const TICK: Duration = Duration::from_millis(20);
/// After the group is gone, how long to wait for the pipes to close (a process
/// that left the group could hold them open forever).
const DRAIN: Duration = Duration::from_millis(300);

/// Which pipe a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    Stdout,
    Stderr,
}

/// What to start.
#[derive(Debug, Clone)]
pub enum Program {
    /// A script for `sh -c`.
    Shell(String),
    /// A program and its arguments, no shell involved.
    Argv(Vec<String>),
}

#[derive(Debug, Clone)]
pub struct Spec {
    pub program: Program,
    pub cwd: PathBuf,
    /// Added to the inherited environment.
    pub env: Vec<(String, String)>,
    pub timeout: Option<Duration>,
    /// Every output line is appended here (the full output of the case).
    pub log: Option<PathBuf>,
}

/// How a process ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    pub exit_code: Option<i32>,
    /// The signal that ended the leader, when one did.
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub cancelled: bool,
    /// The process could not be started at all.
    pub spawn_error: Option<String>,
    /// The last [`TAIL_LINES`] lines of output.
    pub tail: Vec<String>,
    pub duration: Duration,
}

/// A cancel switch shared between a launch and whoever may stop it.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Run `spec` to its end, calling `on_line` for every output line as it comes.
pub fn run(spec: &Spec, cancel: &Cancel, on_line: &mut dyn FnMut(Stream, &str)) -> Outcome {
    static SUBREAPER: std::sync::Once = std::sync::Once::new();
    SUBREAPER.call_once(sys::become_subreaper);
    let start = Instant::now();
    let mut outcome = Outcome::default();
    let mut log = spec.log.as_ref().and_then(|p| {
        if let Some(dir) = p.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        std::fs::File::create(p).ok()
    });
    let mut cmd = match &spec.program {
        Program::Shell(script) => {
            let mut c = Command::new("sh");
            c.arg("-c").arg(script);
            c
        }
        Program::Argv(argv) => {
            let Some((prog, args)) = argv.split_first() else {
                outcome.spawn_error = Some("empty command".into());
                return outcome;
            };
            let mut c = Command::new(prog);
            c.args(args);
            c
        }
    };
    cmd.current_dir(&spec.cwd)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // its own group, so a timeout or cancel reaches every descendant
        .process_group(0);
    sys::die_with_parent(&mut cmd);
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            outcome.spawn_error = Some(e.to_string());
            if let Some(f) = log.as_mut() {
                let _ = writeln!(f, "cannot start: {e}");
            }
            return outcome;
        }
    };
    let pgid = child.id();
    // should testdeck die now, even by SIGKILL, the guardian ends the group
    super::guard::watch(pgid);
    let (tx, rx) = mpsc::channel::<(Stream, String)>();
    if let Some(out) = child.stdout.take() {
        spawn_reader(out, Stream::Stdout, tx.clone());
    }
    if let Some(err) = child.stderr.take() {
        spawn_reader(err, Stream::Stderr, tx.clone());
    }
    drop(tx);
    let deadline = spec.timeout.map(|t| start + t);
    let mut status = None;
    let mut term_sent: Option<Instant> = None;
    let mut kill_sent = false;
    let mut readers_done = false;
    let mut group_gone: Option<Instant> = None;
    let mut tail = std::collections::VecDeque::with_capacity(TAIL_LINES + 1);
    loop {
        match rx.recv_timeout(TICK) {
            Ok((stream, line)) => {
                if let Some(f) = log.as_mut() {
                    let _ = writeln!(f, "{line}");
                }
                on_line(stream, &line);
                tail.push_back(line);
                if tail.len() > TAIL_LINES {
                    tail.pop_front();
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => readers_done = true,
        }
        if status.is_none() {
            status = child.try_wait().ok().flatten();
        }
        let now = Instant::now();
        if term_sent.is_none() {
            let leftovers = status.is_some() && group_gone.is_none();
            if cancel.is_cancelled() && status.is_none() {
                outcome.cancelled = true;
            } else if deadline.is_some_and(|d| now >= d) && status.is_none() {
                outcome.timed_out = true;
            }
            if outcome.cancelled || outcome.timed_out || leftovers {
                // the case ends: nothing of its group may outlive it
                sys::signal_group(pgid, sys::SIGTERM);
                term_sent = Some(now);
            }
        } else if let Some(t) = term_sent {
            if !kill_sent && now.duration_since(t) >= KILL_GRACE {
                sys::signal_group(pgid, sys::SIGKILL);
                kill_sent = true;
            }
        }
        if status.is_some() {
            if group_gone.is_none() && !sys::group_alive(pgid) {
                group_gone = Some(now);
            }
            if let Some(g) = group_gone {
                if readers_done || now.duration_since(g) >= DRAIN {
                    break;
                }
            }
        }
    }
    super::guard::release(pgid);
    // lines still queued after the break
    while let Ok((_, line)) = rx.try_recv() {
        if let Some(f) = log.as_mut() {
            let _ = writeln!(f, "{line}");
        }
        tail.push_back(line);
        if tail.len() > TAIL_LINES {
            tail.pop_front();
        }
    }
    if let Some(st) = status {
        outcome.exit_code = st.code();
        outcome.signal = st.signal();
    }
    outcome.tail = tail.into_iter().collect();
    outcome.duration = start.elapsed();
    outcome
}

fn spawn_reader<R: Read + Send + 'static>(
    r: R,
    stream: Stream,
    tx: mpsc::Sender<(Stream, String)>,
) {
    std::thread::spawn(move || {
        let mut reader = BufReader::new(r);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match reader
                .by_ref()
                .take(MAX_LINE as u64)
                .read_until(b'\n', &mut buf)
            {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    while matches!(buf.last(), Some(b'\n' | b'\r')) {
                        buf.pop();
                    }
                    let line = String::from_utf8_lossy(&buf).into_owned();
                    if tx.send((stream, line)).is_err() {
                        return;
                    }
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(script: &str, timeout: Option<Duration>) -> Spec {
        Spec {
            program: Program::Shell(script.into()),
            cwd: std::env::temp_dir(),
            env: vec![("TD_X".into(), "a b".into())],
            timeout,
            log: None,
        }
    }

    #[test]
    fn streams_lines_and_exit_code() {
        let mut seen = Vec::new();
        let o = run(
            &spec("echo one; echo \"$TD_X\" >&2; exit 3", None),
            &Cancel::default(),
            &mut |s, l| seen.push((s, l.to_owned())),
        );
        assert_eq!(o.exit_code, Some(3));
        assert!(seen.contains(&(Stream::Stdout, "one".into())));
        assert!(seen.contains(&(Stream::Stderr, "a b".into())));
        assert_eq!(o.tail.len(), 2);
    }

    #[test]
    fn timeout_kills_the_leader() {
        let o = run(
            &spec("sleep 30", Some(Duration::from_millis(200))),
            &Cancel::default(),
            &mut |_, _| {},
        );
        assert!(o.timed_out);
        assert_eq!(o.signal, Some(sys::SIGTERM));
        assert!(o.duration < Duration::from_secs(5));
    }

    #[test]
    fn missing_program_is_a_spawn_error() {
        let mut s = spec("", None);
        s.program = Program::Argv(vec!["/nonexistent/testdeck-nothing".into()]);
        let o = run(&s, &Cancel::default(), &mut |_, _| {});
        assert!(o.spawn_error.is_some());
        assert_eq!(o.exit_code, None);
    }
}
