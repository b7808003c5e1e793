//! One child process in a session of its own: spawn, stream its output lines
//! (bounded), keep it in full in a log file, enforce a timeout even while it
//! floods, cancel, and make sure no descendant outlives it, wherever it moved
//! (found through /proc, see [`super::sweep`]; frozen whole with SIGSTOP, then
//! SIGTERM, then SIGKILL after 3 s).

use super::own_children;
use super::sweep;
use super::sys;
use serde::Serialize;
use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Time between SIGTERM and SIGKILL (SPEC §3.4).
pub(crate) const KILL_GRACE: Duration = Duration::from_secs(3);
/// How many last lines of output an outcome keeps (the record's tail).
pub(crate) const TAIL_LINES: usize = 20;
/// Longest line passed on; longer output is cut into several lines so one
/// endless line cannot exhaust memory. Each piece but the last ends with
/// [`CONTINUED`] on the screen, so the pieces read as one line.
pub const MAX_LINE: usize = 64 * 1024;
/// The mark at the end of a piece of a cut line (the case log keeps the bytes).
pub(crate) const CONTINUED: &str = " ↩";
/// Output passed on line by line (to the screen, `--json`, the TUI) per case
/// with a log; past either bound the rest goes to the case log only, with a
/// marker line.
pub(crate) const SHOWN_BYTES: u64 = 4 * 1024 * 1024;
pub(crate) const SHOWN_LINES: u64 = 20_000;
/// Chunks (of at most one read, 64 KiB) a reader may have queued: a child that
/// writes faster than testdeck handles its output blocks on its full pipe.
const QUEUED_CHUNKS: usize = 16;
/// How often the loop looks at the child, the clock and the cancel flag.
const TICK: Duration = Duration::from_millis(20);
/// How often the case's processes are looked up in /proc while it runs.
const SCAN: Duration = Duration::from_millis(100);
/// How often the loop looks at the case once it is ending (frozen, signalled,
/// its processes waited for): a cancel or a quit waits for this, not [`TICK`].
const ENDING_TICK: Duration = Duration::from_millis(5);
/// After the case's processes are gone, how long to wait for the pipes to close
/// (a process that could not be killed could hold them open forever).
const DRAIN: Duration = Duration::from_millis(300);

/// Which pipe a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    /// The process's standard output.
    Stdout,
    /// The process's standard error.
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
/// How to start one process.
pub struct Spec {
    /// What to start.
    pub program: Program,
    /// The folder it runs in.
    pub cwd: PathBuf,
    /// Added to the inherited environment.
    pub env: Vec<(String, String)>,
    /// How long it may run before it is stopped.
    pub timeout: Option<Duration>,
    /// Every output line is appended here (the full output of the case).
    pub log: Option<PathBuf>,
}

/// How a process ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The leader's exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended the leader, when one did.
    pub(crate) signal: Option<i32>,
    pub(crate) timed_out: bool,
    pub(crate) cancelled: bool,
    /// The process could not be started at all.
    pub(crate) spawn_error: Option<String>,
    /// The last [`TAIL_LINES`] lines of output.
    pub tail: Vec<String>,
    pub(crate) duration: Duration,
    /// Why the log is incomplete (it could not be created or written: disk full).
    pub(crate) log_error: Option<String>,
    /// Lines (and bytes) that went to the log only, past [`SHOWN_BYTES`] /
    /// [`SHOWN_LINES`].
    pub(crate) hidden_lines: u64,
    pub(crate) hidden_bytes: u64,
}

/// A cancel switch shared between a launch and whoever may stop it.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// Ask whoever holds the switch to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    pub(crate) fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Where the lines go: the log (all), the caller (up to the cap), the tail.
struct Output<'a> {
    log: Option<std::io::BufWriter<std::fs::File>>,
    log_error: Option<String>,
    on_line: &'a mut dyn FnMut(Stream, &str),
    shown_lines: u64,
    shown_bytes: u64,
    hidden_lines: u64,
    hidden_bytes: u64,
    tail: std::collections::VecDeque<String>,
    has_log: bool,
}

impl Output<'_> {
    fn write_log(&mut self, bytes: &[u8]) {
        if let Some(f) = self.log.as_mut() {
            if let Err(e) = f.write_all(bytes).and_then(|()| f.write_all(b"\n")) {
                self.log_error = Some(e.to_string());
                self.log = None;
            }
        }
    }

    fn push_tail(&mut self, line: String) {
        self.tail.push_back(line);
        if self.tail.len() > TAIL_LINES {
            self.tail.pop_front();
        }
    }

    /// One line of the child's output (`continued`: a piece of a cut line, more follows).
    fn line(&mut self, stream: Stream, raw: &[u8], keep_tail: bool, continued: bool) {
        let mut raw = raw;
        while let [rest @ .., b'\r'] = raw {
            raw = rest;
        }
        let text = String::from_utf8_lossy(raw);
        self.write_log(text.as_bytes());
        let text = if continued {
            std::borrow::Cow::Owned(format!("{text}{CONTINUED}"))
        } else {
            text
        };
        let len = raw.len() as u64;
        // without a log (the tests runner, whose runs are on disk) every line
        // is passed on: nothing here keeps them
        if !self.has_log
            || (self.shown_lines < SHOWN_LINES && self.shown_bytes + len <= SHOWN_BYTES)
        {
            self.shown_lines += 1;
            self.shown_bytes += len;
            (self.on_line)(stream, &text);
        } else {
            if self.hidden_lines == 0 {
                (self.on_line)(
                    stream,
                    &format!(
                        "[testdeck] output past {SHOWN_LINES} lines or {} MiB is not shown: it goes on in the case log only",
                        SHOWN_BYTES >> 20
                    ),
                );
            }
            self.hidden_lines += 1;
            self.hidden_bytes += len;
        }
        if keep_tail {
            self.push_tail(text.into_owned());
        }
    }

    /// A chunk of lines from one pipe, each ended by a newline but perhaps the last:
    /// without one, the reader cut it and it goes on in the next chunk.
    fn chunk(&mut self, stream: Stream, data: &[u8]) {
        let (body, cut) = match data.strip_suffix(b"\n") {
            Some(body) => (body, false),
            None => (data, true),
        };
        let total = memchr::memchr_iter(b'\n', body).count() + 1;
        for (i, line) in body.split(|&b| b == b'\n').enumerate() {
            let keep = i + TAIL_LINES >= total;
            let goes_on = cut && i + 1 == total;
            let pieces = line.len().div_ceil(MAX_LINE).max(1);
            for (j, piece) in line.chunks(MAX_LINE).enumerate() {
                self.line(stream, piece, keep, j + 1 < pieces || goes_on);
            }
            if line.is_empty() {
                self.line(stream, line, keep, goes_on);
            }
        }
    }

    /// The one marker line saying how much went to the log only.
    fn finish(&mut self) {
        if self.hidden_lines > 0 {
            let msg = format!(
                "[testdeck] output continues in the case log: {} lines ({} bytes) not shown",
                self.hidden_lines, self.hidden_bytes
            );
            self.write_log(msg.as_bytes());
            (self.on_line)(Stream::Stderr, &msg);
            self.push_tail(msg);
        }
        if let Some(f) = self.log.as_mut() {
            if let Err(e) = f.flush() {
                self.log_error = Some(e.to_string());
            }
        }
    }
}

/// Where the run loop stands in ending the case.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ending {
    Running,
    /// SIGTERM sent at this time.
    Term(Instant),
    /// SIGKILL sent.
    Kill,
}

/// Run `spec` to its end, calling `on_line` for every output line as it comes
/// (up to [`SHOWN_LINES`] / [`SHOWN_BYTES`], then one marker line).
#[expect(
    clippy::too_many_lines,
    reason = "spawn, read both pipes, wait and reap in one place so the child is never left behind on any path"
)]
pub fn run(spec: &Spec, cancel: &Cancel, on_line: &mut dyn FnMut(Stream, &str)) -> Outcome {
    static SUBREAPER: std::sync::Once = std::sync::Once::new();
    SUBREAPER.call_once(sys::become_subreaper);
    let start = Instant::now();
    let mut outcome = Outcome::default();
    let mut log_error = None;
    let log = spec.log.as_ref().and_then(|p| {
        if let Some(dir) = p.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        match std::fs::File::create(p) {
            Ok(f) => Some(std::io::BufWriter::with_capacity(64 * 1024, f)),
            Err(e) => {
                log_error = Some(e.to_string());
                None
            }
        }
    });
    let mut out = Output {
        log,
        log_error,
        on_line,
        shown_lines: 0,
        shown_bytes: 0,
        hidden_lines: 0,
        hidden_bytes: 0,
        tail: std::collections::VecDeque::with_capacity(TAIL_LINES + 1),
        has_log: spec.log.is_some(),
    };
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
    // registered (and given to the guardian) before anything carries the token
    let mut case = sweep::Case::new();
    let (tk, tv) = case.env();
    cmd.current_dir(&spec.cwd)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .env(tk, tv)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // a session of its own: no controlling terminal, its own group
    sys::case_session(&mut cmd);
    let mut child = match own_children::spawn_own(&mut cmd) {
        Ok(c) => c,
        Err(e) => {
            outcome.spawn_error = Some(e.to_string());
            out.write_log(format!("cannot start: {e}").as_bytes());
            out.finish();
            outcome.log_error = out.log_error;
            return outcome;
        }
    };
    case.set_leader(child.id());
    let (tx, rx) = mpsc::sync_channel::<(Stream, Vec<u8>)>(QUEUED_CHUNKS);
    if let Some(o) = child.stdout.take() {
        spawn_reader(o, Stream::Stdout, tx.clone());
    }
    if let Some(e) = child.stderr.take() {
        spawn_reader(e, Stream::Stderr, tx.clone());
    }
    drop(tx);
    // a timeout too large for the clock is no deadline (validate refuses it)
    let deadline = spec.timeout.and_then(|t| start.checked_add(t));
    let mut status = None;
    let mut ending = Ending::Running;
    let mut readers_done = false;
    let mut last_scan: Option<Instant> = None;
    let mut gone: Option<Instant> = None;
    let mut termed: std::collections::HashSet<i32> = std::collections::HashSet::new();
    let mut frozen = false;
    loop {
        let tick = if ending == Ending::Running {
            TICK
        } else {
            ENDING_TICK
        };
        match rx.recv_timeout(tick) {
            Ok((stream, data)) => out.chunk(stream, &data),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => readers_done = true,
        }
        if status.is_none() {
            status = child.try_wait().ok().flatten();
            if status.is_some() {
                own_children::forget_own(child.id());
            }
        }
        let now = Instant::now();
        if ending == Ending::Running {
            if cancel.is_cancelled() && !(status.is_some() && readers_done) {
                outcome.cancelled = true;
            } else if deadline.is_some_and(|d| now >= d) && !(status.is_some() && readers_done) {
                // still running, or still flooding its pipes past the deadline
                outcome.timed_out = true;
            }
            if outcome.cancelled || outcome.timed_out || status.is_some() {
                // the case ends: nothing of it may outlive it
                ending = Ending::Term(now);
                last_scan = None;
            }
        }
        let every = if ending == Ending::Running {
            SCAN
        } else {
            ENDING_TICK
        };
        if last_scan.is_some_and(|t| now.duration_since(t) < every) {
            continue;
        }
        last_scan = Some(now);
        let members = match ending {
            Ending::Running => case.members(),
            Ending::Term(t) if now.duration_since(t) >= KILL_GRACE => {
                ending = Ending::Kill;
                case.signal(sys::SIGKILL);
                case.members()
            }
            // the first look freezes the case whole, so that the ending signal
            // reaches every process of it at once
            Ending::Term(_) if !frozen => {
                frozen = true;
                let stopped = case.freeze();
                for &p in &stopped {
                    termed.insert(p);
                    sys::signal_pid(p, sys::SIGTERM);
                }
                sweep::Case::resume(&stopped);
                case.members()
            }
            // once each, newcomers (forked while it was ending) too
            Ending::Term(_) => {
                let m = case.members();
                for &p in &m.alive {
                    if termed.insert(p) {
                        sys::signal_pid(p, sys::SIGTERM);
                    }
                }
                m
            }
            Ending::Kill => {
                case.signal(sys::SIGKILL);
                case.members()
            }
        };
        if status.is_some() && members.alive.is_empty() && members.zombies == 0 {
            let g = *gone.get_or_insert(now);
            if readers_done || now.duration_since(g) >= DRAIN {
                break;
            }
        }
    }
    // chunks still queued after the break (at most QUEUED_CHUNKS per pipe)
    while let Ok((stream, data)) = rx.try_recv() {
        out.chunk(stream, &data);
    }
    drop(rx);
    drop(case);
    out.finish();
    if let Some(st) = status {
        outcome.exit_code = st.code();
        outcome.signal = st.signal();
    }
    outcome.tail = out.tail.into_iter().collect();
    outcome.log_error = out.log_error;
    outcome.hidden_lines = out.hidden_lines;
    outcome.hidden_bytes = out.hidden_bytes;
    outcome.duration = start.elapsed();
    outcome
}

/// Read one pipe in chunks of whole lines (a line longer than [`MAX_LINE`] is
/// cut), blocking when the queue is full (so does the child, on its pipe).
fn spawn_reader<R: Read + Send + 'static>(
    mut r: R,
    stream: Stream,
    tx: mpsc::SyncSender<(Stream, Vec<u8>)>,
) {
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        let mut carry: Vec<u8> = Vec::new();
        loop {
            let n = match r.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            carry.extend_from_slice(&buf[..n]);
            let cut = match memchr::memrchr(b'\n', &carry) {
                Some(i) => i + 1,
                // whole pieces only, so a long line's pieces are all MAX_LINE but its last
                None if carry.len() >= MAX_LINE => carry.len() / MAX_LINE * MAX_LINE,
                None => 0,
            };
            if cut > 0 {
                let rest = carry.split_off(cut);
                // a chunk cut inside a line has no newline at its end: the line goes on
                let chunk = std::mem::replace(&mut carry, rest);
                if tx.send((stream, chunk)).is_err() {
                    return;
                }
            }
        }
        if !carry.is_empty() {
            carry.push(b'\n');
            let _ = tx.send((stream, carry));
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

    /// Processes whose command line holds `marker`, zombies included (state Z).
    fn with_marker(marker: &str) -> Vec<(i32, bool)> {
        let mut out = Vec::new();
        for e in std::fs::read_dir("/proc").expect("proc").flatten() {
            let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
                continue;
            };
            let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
                continue;
            };
            if String::from_utf8_lossy(&cmd).contains(marker) {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
                let zombie = stat
                    .rsplit_once(')')
                    .is_some_and(|(_, r)| r.trim_start().starts_with('Z'));
                out.push((pid, zombie));
            }
        }
        out
    }

    fn escapers(n: u32) -> String {
        format!(
            "setsid sh -c 'sleep {n}; : esc1' &\n\
             ( setsid sh -c 'sleep {n}; : esc2' & ) &\n\
             sh -c 'trap \"\" TERM HUP; sleep {n}; : esc3' &\n\
             ( trap '' TERM HUP; exec setsid sh -c 'trap \"\" TERM HUP; while :; do sleep {n}; done' ) &\n\
             env -i setsid sh -c 'sleep {n}; : esc5' &\n\
             sleep 1; echo started\n"
        )
    }

    #[test]
    fn no_descendant_outlives_a_case_wherever_it_went() {
        let n = 4000 + fastrand::u32(..5000);
        let o = run(
            &spec(&escapers(n), None),
            &Cancel::default(),
            &mut |_, _| {},
        );
        assert_eq!(o.exit_code, Some(0));
        let left = with_marker(&format!("sleep {n}"));
        assert!(left.is_empty(), "survivors or zombies: {left:?}");
    }

    #[test]
    fn cancel_and_timeout_end_every_descendant() {
        let n = 4000 + fastrand::u32(..5000);
        let cancel = Cancel::default();
        let c2 = cancel.clone();
        let script = format!("{}sleep 300\n", escapers(n));
        let t = std::thread::spawn(move || {
            run(&spec(&script, None), &c2, &mut |_, l| {
                assert_ne!(l, "never");
            })
        });
        let start = Instant::now();
        while with_marker(&format!("sleep {n}")).len() < 5
            && start.elapsed() < Duration::from_secs(30)
        {
            std::thread::sleep(Duration::from_millis(50));
        }
        cancel.cancel();
        let o = t.join().expect("run");
        assert!(o.cancelled);
        assert!(with_marker(&format!("sleep {n}")).is_empty());
        let m = 4000 + fastrand::u32(..5000);
        let o = run(
            &spec(
                &format!("{}sleep 300\n", escapers(m)),
                Some(Duration::from_secs(2)),
            ),
            &Cancel::default(),
            &mut |_, _| {},
        );
        assert!(o.timed_out);
        assert!(with_marker(&format!("sleep {m}")).is_empty());
    }

    /// Cancelled at any moment while it is still forking, a case whose
    /// processes clear their environment and leave its session loses none of
    /// them: a child forked between a look at /proc and the signal that then
    /// ends its parent is what a look-then-signal ending missed.
    #[test]
    fn a_cancel_while_the_case_forks_leaves_nothing() {
        for round in 0..4u64 {
            let n = 4000 + fastrand::u32(..5000);
            let script = format!(
                "i=0; while [ $i -lt 80 ]; do env -i setsid sh -c 'sleep {n} & sleep {n}' & i=$((i+1)); done\n\
                 sleep 300\n"
            );
            let cancel = Cancel::default();
            let c2 = cancel.clone();
            let t = std::thread::spawn(move || run(&spec(&script, None), &c2, &mut |_, _| {}));
            std::thread::sleep(Duration::from_millis(10 + round * 20 + fastrand::u64(..20)));
            cancel.cancel();
            let o = t.join().expect("run");
            assert!(o.cancelled);
            let left = with_marker(&format!("sleep {n}"));
            assert!(
                left.is_empty(),
                "round {round}: survivors or zombies: {left:?}"
            );
        }
    }

    #[test]
    fn a_case_has_no_terminal() {
        let mut seen = Vec::new();
        run(
            &spec(
                "if sh -c ': </dev/tty' 2>/dev/null; then echo TTY-OPEN; else echo NO-TTY; fi; \
                 ps -o tty= -p $$ 2>/dev/null || true",
                None,
            ),
            &Cancel::default(),
            &mut |_, l| seen.push(l.to_owned()),
        );
        assert_eq!(seen.first().map(String::as_str), Some("NO-TTY"), "{seen:?}");
    }

    #[test]
    fn a_flood_is_bounded_and_its_timeout_holds() {
        let dir = tempfile::tempdir().expect("tmp");
        let mut s = spec("yes", Some(Duration::from_secs(2)));
        s.log = Some(dir.path().join("case.log"));
        let mut shown = 0u64;
        let o = run(&s, &Cancel::default(), &mut |_, _| shown += 1);
        assert!(o.timed_out);
        assert!(o.hidden_lines > 0);
        assert!(shown <= SHOWN_LINES + 2);
        let last = o.tail.last().expect("tail");
        assert!(
            last.starts_with("[testdeck] output continues in the case log"),
            "{last}"
        );
        assert!(o.duration < Duration::from_secs(60));
    }

    #[test]
    fn a_long_line_is_cut_into_pieces_marked_as_continued() {
        let dir = tempfile::tempdir().expect("tmp");
        // 150000 bytes in one line (three pieces), then a short line
        let mut s = spec(
            "head -c 150000 /dev/zero | tr '\\0' x; echo; echo after",
            None,
        );
        s.log = Some(dir.path().join("case.log"));
        let mut seen = Vec::new();
        let o = run(&s, &Cancel::default(), &mut |_, l| seen.push(l.to_owned()));
        assert_eq!(o.exit_code, Some(0));
        assert_eq!(seen.len(), 4, "three pieces and a line");
        let x = |n: usize| "x".repeat(n);
        assert_eq!(seen[0], format!("{}{CONTINUED}", x(MAX_LINE)));
        assert_eq!(seen[1], format!("{}{CONTINUED}", x(MAX_LINE)));
        assert_eq!(
            seen[2],
            x(150_000 - 2 * MAX_LINE),
            "the last piece ends the line"
        );
        assert_eq!(seen[3], "after");
        // the case log keeps the bytes, unmarked
        let log = std::fs::read_to_string(dir.path().join("case.log")).expect("log");
        assert_eq!(log.replace('\n', ""), format!("{}after", x(150_000)));
    }

    #[test]
    fn a_log_cut_short_is_reported() {
        let mut s = spec("echo hi", None);
        s.log = Some(PathBuf::from("/dev/full"));
        let o = run(&s, &Cancel::default(), &mut |_, _| {});
        assert_eq!(o.exit_code, Some(0));
        assert!(o.log_error.is_some());
    }

    #[test]
    fn a_timeout_beyond_the_clock_does_not_panic() {
        let o = run(
            &spec("true", Some(Duration::from_secs(u64::MAX))),
            &Cancel::default(),
            &mut |_, _| {},
        );
        assert_eq!(o.exit_code, Some(0));
    }
}
