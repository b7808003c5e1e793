//! The event loop: one tokio runtime; terminal input, background results, signals and
//! timers all become `Action`s on one channel; effects run as tasks; frames are drawn
//! only when the state changed, at most ~60 a second.

pub use super::action::MAX_TIMELINE_EVENTS;
use super::action::{Action, RunData};
use super::app::{App, Effect};
use super::theme::Theme;
use crate::tail::{self, Follower, Start, TailEvent, Watch};
use crate::workspace::Workspace;
use crate::workspace::timeline;
use crossterm::event::{Event, EventStream, KeyEventKind};
use futures::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::mpsc::unbounded_channel;
use tokio::time::Instant;

/// The shortest gap between two frames (~60 fps).
pub const FRAME: Duration = Duration::from_millis(16);
/// How often the follow task looks for `meta.json` (the end of the run) when no
/// filesystem events can tell it (inotify unavailable or exhausted).
pub const META_CHECK: Duration = Duration::from_millis(250);
/// How long a `meta.json` that does not read as JSON is given to be completed;
/// after that the run counts as ended anyway (indexing reports the broken file).
pub const META_SETTLE: Duration = Duration::from_secs(2);
/// The most runtime events kept from one file.
pub const MAX_RUNTIME_EVENTS: usize = 20_000;

enum Msg {
    Term(Event),
    Act(Action),
    /// Events of launch `.0` are waiting in its queue.
    Drain(usize, Arc<std::sync::Mutex<LaunchQueue>>),
}

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
struct LaunchQueue {
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
    fn push(&mut self, ev: crate::exec::ExecEvent) -> bool {
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
    fn take(&mut self) -> (Vec<crate::exec::ExecEvent>, bool) {
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

/// Read a run folder for the live, details and artifacts panes, keeping the last
/// [`MAX_TIMELINE_EVENTS`] events of its timeline.
pub fn load_run(root: &Path, rel: &str) -> RunData {
    load_run_capped(root, rel, MAX_TIMELINE_EVENTS)
}

/// [`load_run`] keeping the last `cap` (at least 1) timeline events. The timeline
/// is read by the tail engine from its last `cap` lines (the lines before are
/// counted, not parsed, so a 1 GB timeline opens in the time of reading it once):
/// a finished run (`meta.json` is there) to its very end, its unterminated last
/// line included; an in-progress run up to its last complete line, and its
/// follower is kept in [`RunData::follower`] so [`follow`] goes on from exactly there.
pub fn load_run_capped(root: &Path, rel: &str, cap: usize) -> RunData {
    let cap = cap.max(1);
    let dir = root.join(rel);
    let in_progress = !dir.join("meta.json").is_file();
    // the follower of an in-progress run is handed to the follow task, which sleeps
    // on filesystem events: it watches from the start so no change is missed
    let watch = if in_progress { Watch::Auto } else { Watch::Off };
    let start = Start::LastN(cap as u64);
    let mut follower = Follower::with_watch(dir.join("timeline.jsonl"), start, watch);
    let mut data = RunData {
        path: rel.to_owned(),
        in_progress,
        ..RunData::default()
    };
    let take = |data: &mut RunData, b: Batch| {
        // the first line read tells how many lines came before it
        if data.events.is_empty() {
            data.skipped += b.first_line.map_or(0, |n| n.saturating_sub(1));
        }
        b.apply(data, cap);
    };
    loop {
        let batch = follower.read_available();
        if batch.is_empty() {
            break;
        }
        take(&mut data, Batch::of(batch));
    }
    if in_progress {
        data.follower = Some(Box::new(follower));
    } else {
        take(&mut data, Batch::of(follower.finish()));
    }
    let (artifacts, probs) = crate::workspace::logs::read_artifacts(root, &dir);
    if dir.join("artifacts.json").is_file() {
        for p in &probs {
            data.push_problem(p.to_string());
        }
    }
    data.artifacts = artifacts;
    if let Ok(text) = std::fs::read(dir.join("runtime-events.jsonl")) {
        for line in text.split(|&b| b == b'\n').take(MAX_RUNTIME_EVENTS) {
            let l = String::from_utf8_lossy(line);
            let l = l.trim();
            if !l.is_empty() {
                data.runtime_events.push(l.to_owned());
            }
        }
    }
    data
}

/// A batch of the tail engine's events, as the live pane takes them.
#[derive(Debug, Default)]
struct Batch {
    /// The file was truncated, replaced or created anew: what was shown is gone.
    reset: bool,
    events: Vec<timeline::TimelineEvent>,
    /// The line number of the first of `events`.
    first_line: Option<u64>,
    problems: Vec<String>,
}

impl Batch {
    fn of(evs: Vec<TailEvent>) -> Batch {
        let mut b = Batch::default();
        for ev in evs {
            match ev {
                // an unterminated last line comes only when the writer is done
                // (or its file version ended): shown like a whole line
                TailEvent::Line(l) | TailEvent::Incomplete(l) => {
                    for is in &l.issues {
                        b.problems
                            .push(format!("line {}: {}", l.lineno, is.message));
                    }
                    b.first_line.get_or_insert(l.lineno);
                    b.events.push(l.into_event());
                }
                // a new version of the file: the live pane shows its content only
                TailEvent::Truncated | TailEvent::Replaced | TailEvent::Created => {
                    b.reset = true;
                    b.events.clear();
                    b.first_line = None;
                }
                // what was read stays shown; a file that comes back is `Created`
                TailEvent::Deleted => {}
                TailEvent::Unreadable(m) => b.problems.push(format!("timeline.jsonl: {m}")),
            }
        }
        b
    }

    fn is_empty(&self) -> bool {
        !self.reset && self.events.is_empty() && self.problems.is_empty()
    }

    fn apply(self, data: &mut RunData, cap: usize) {
        data.append(self.reset, self.events, self.problems, cap);
    }
}

/// Run the app until it quits. `root` is loaded on a blocking task so the first frame
/// shows at once.
pub async fn run(
    mut app: App,
    theme: Theme,
    terminal: &mut Terminal<CrosstermBackend<std::io::Stdout>>,
    root: PathBuf,
) -> std::io::Result<()> {
    let (tx, mut rx) = unbounded_channel::<Msg>();
    // terminal input
    let input_tx = tx.clone();
    tokio::spawn(async move {
        let mut events = EventStream::new();
        while let Some(Ok(ev)) = events.next().await {
            if input_tx.send(Msg::Term(ev)).is_err() {
                break;
            }
        }
    });
    // SIGTERM / SIGHUP / SIGINT end the app (and so restore the terminal and
    // cancel the launches; the guardian ends what is left). In raw mode Ctrl-C is
    // a key, so a SIGINT comes from `kill`, and must not kill us unrestored.
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        for kind in [
            SignalKind::terminate(),
            SignalKind::hangup(),
            SignalKind::interrupt(),
        ] {
            if let Ok(mut s) = signal(kind) {
                let stx = tx.clone();
                tokio::spawn(async move {
                    if s.recv().await.is_some() {
                        let _ = stx.send(Msg::Act(Action::Terminate));
                    }
                });
            }
        }
    }
    // indexing, with a spinner tick while it lasts
    let loaded = Arc::new(AtomicBool::new(false));
    {
        let ltx = tx.clone();
        let root = root.clone();
        let done = loaded.clone();
        let ptx = tx.clone();
        let proot = root.clone();
        let pdone = loaded.clone();
        // the tree alone is quick: show it while the history is indexed
        tokio::task::spawn_blocking(move || {
            if let Ok(Some(ws)) = std::panic::catch_unwind(|| tree_only(&proot)) {
                if !pdone.load(Ordering::Relaxed) {
                    let _ = ptx.send(Msg::Act(Action::TreeLoaded(Box::new(ws))));
                }
            }
        });
        tokio::task::spawn_blocking(move || {
            let a = match std::panic::catch_unwind(|| Workspace::load(&root)) {
                Ok(Ok(ws)) => Action::Loaded(Box::new(ws)),
                Ok(Err(e)) => Action::LoadFailed(e.to_string()),
                Err(_) => Action::LoadFailed(
                    "internal error while indexing (a bug: please report it)".into(),
                ),
            };
            done.store(true, Ordering::Relaxed);
            let _ = ltx.send(Msg::Act(a));
            let _ = ltx.send(Msg::Act(Action::Records(read_records(&root))));
        });
        let ttx = tx.clone();
        let done = loaded.clone();
        tokio::spawn(async move {
            let mut iv = tokio::time::interval(Duration::from_millis(100));
            // ticks animate the spinner until the history is indexed
            while !done.load(Ordering::Relaxed) {
                iv.tick().await;
                if ttx.send(Msg::Act(Action::Tick)).is_err() {
                    break;
                }
            }
        });
    }
    let size = terminal.size()?;
    app.update(Action::Resize(size.width, size.height));
    terminal.draw(|f| super::view::draw(&app, &theme, f))?;
    app.dirty = false;
    let mut last_draw = Instant::now();
    // the follow task of the in-progress run shown, if any
    let mut following: Option<Following> = None;
    // launches in flight or done (kept for verdicts); dropping one cancels it and
    // waits for its processes, so none outlives the app
    let mut launches: Vec<Option<crate::exec::LaunchHandle>> = Vec::new();
    // the watch thread and the jobs of `tui::extras`; dropping it stops the watch
    let mut extras = super::extras::Runtime::default();
    loop {
        let msg = if app.dirty {
            tokio::select! {
                m = rx.recv() => m,
                () = tokio::time::sleep_until(last_draw + FRAME) => {
                    terminal.draw(|f| super::view::draw(&app, &theme, f))?;
                    trace(|| "draw".into());
                    app.dirty = false;
                    last_draw = Instant::now();
                    continue;
                }
            }
        } else {
            rx.recv().await
        };
        let Some(msg) = msg else { break };
        trace(|| match &msg {
            Msg::Term(e) => format!("term {e:?}"),
            Msg::Act(a) => format!(
                "act {}",
                format!("{a:?}").chars().take(40).collect::<String>()
            ),
            Msg::Drain(i, _) => format!("drain {i}"),
        });
        let effects = match msg {
            Msg::Term(Event::Key(k)) if k.kind != KeyEventKind::Release => app.on_key(k),
            Msg::Term(Event::Mouse(m)) => app.update(Action::Mouse(m)),
            Msg::Term(Event::Resize(w, h)) => {
                terminal.autoresize()?;
                app.update(Action::Resize(w, h))
            }
            Msg::Term(_) => Vec::new(),
            Msg::Act(a) => app.update(a),
            Msg::Drain(index, queue) => {
                let (evs, more) = queue
                    .lock()
                    .map_or_else(|_| (Vec::new(), false), |mut q| q.take());
                if more {
                    let _ = tx.send(Msg::Drain(index, queue.clone()));
                }
                app.exec_events(index, evs)
            }
        };
        for fx in effects {
            match fx {
                Effect::Quit => {
                    for h in launches.iter().flatten() {
                        h.cancel();
                    }
                    extras.stop();
                    return Ok(());
                }
                Effect::LoadRun(rel) => {
                    let rtx = tx.clone();
                    let root = root.clone();
                    tokio::task::spawn_blocking(move || {
                        let data = load_run(&root, &rel);
                        let _ = rtx.send(Msg::Act(Action::RunLoaded(Box::new(data))));
                    });
                }
                Effect::Reload => {
                    let ltx = tx.clone();
                    let root = root.clone();
                    tokio::task::spawn_blocking(move || {
                        if let Ok(Ok(ws)) = std::panic::catch_unwind(|| Workspace::load(&root)) {
                            let _ = ltx.send(Msg::Act(Action::Loaded(Box::new(ws))));
                        }
                        let _ = ltx.send(Msg::Act(Action::Records(read_records(&root))));
                    });
                }
                Effect::StopFollow => following = None,
                Effect::Follow { path, follower } => {
                    // the previous task (another run) ends here
                    drop(following.take());
                    let stop = Arc::new(AtomicBool::new(false));
                    following = Some(Following {
                        stop: stop.clone(),
                        wake: follower.interrupt_handle(),
                    });
                    let ftx = tx.clone();
                    let dir = root.join(&path);
                    tokio::task::spawn_blocking(move || {
                        let send = |a| ftx.send(Msg::Act(a)).is_ok();
                        follow(*follower, &dir, &path, &stop, &send);
                    });
                }
                Effect::Launch { index, plan, ctx } => {
                    let ltx = tx.clone();
                    let queue = Arc::new(std::sync::Mutex::new(LaunchQueue::default()));
                    let sink: crate::exec::Sink = Arc::new(move |ev| {
                        let wake = queue.lock().is_ok_and(|mut q| q.push(ev));
                        if wake {
                            let _ = ltx.send(Msg::Drain(index, queue.clone()));
                        }
                    });
                    let h = crate::exec::launch(*ctx, *plan, sink);
                    if launches.len() <= index {
                        launches.resize_with(index + 1, || None);
                    }
                    launches[index] = Some(h);
                }
                Effect::Extra(job) => {
                    let etx = tx.clone();
                    let send: super::extras::ActionSink = Arc::new(move |a| {
                        let _ = etx.send(Msg::Act(a));
                    });
                    extras.run(job, &root, send);
                }
                Effect::Cancel => {
                    for h in launches.iter().flatten() {
                        h.cancel();
                    }
                }
                Effect::Judge {
                    index,
                    case_id,
                    verdict,
                    note,
                } => {
                    let msg = match launches.get(index).and_then(Option::as_ref) {
                        Some(h) => match h.judge(&case_id, verdict, note) {
                            Ok(true) => format!(
                                "{case_id}: {} recorded in the run record",
                                verdict.as_str()
                            ),
                            Ok(false) => format!("{case_id}: not in the run record"),
                            Err(e) => format!("{case_id}: cannot save the run record: {e}"),
                        },
                        None => format!("{case_id}: its launch is gone"),
                    };
                    let _ = tx.send(Msg::Act(Action::Notice(msg)));
                }
                Effect::Spawn(argv) => {
                    let ntx = tx.clone();
                    std::thread::spawn(move || {
                        let Some((prog, args)) = argv.split_first() else {
                            return;
                        };
                        let r = std::process::Command::new(prog)
                            .args(args)
                            .stdin(std::process::Stdio::null())
                            .stdout(std::process::Stdio::null())
                            .stderr(std::process::Stdio::null())
                            .spawn()
                            .and_then(|mut c| c.wait());
                        match r {
                            Ok(s) if s.success() => {}
                            Ok(s) => {
                                let _ = ntx.send(Msg::Act(Action::Notice(format!("{prog}: {s}"))));
                            }
                            Err(e) => {
                                let _ = ntx.send(Msg::Act(Action::Notice(format!("{prog}: {e}"))));
                            }
                        }
                    });
                }
            }
        }
        if app.quit {
            break;
        }
    }
    drop(following);
    extras.stop();
    Ok(())
}

/// Follow an in-progress run's timeline with the follower that loaded it, until
/// `stop` is set or `meta.json` appears: each batch the tail engine reads becomes
/// one `Action::TimelineAppend` (sent through `send`, which returns false when
/// nobody listens any more). The follower sleeps on filesystem events of the
/// timeline and of `meta.json` beside it (no timer at all); only without
/// filesystem events does it look for `meta.json` every [`META_CHECK`]. When
/// `meta.json` is there, the rest of the timeline (its unterminated last line
/// included) goes out with `finished: true`.
pub fn follow(
    mut follower: Follower,
    dir: &Path,
    path: &str,
    stop: &AtomicBool,
    send: &dyn Fn(Action) -> bool,
) {
    let meta = dir.join("meta.json");
    follower.wake_on_sibling("meta.json");
    // when meta.json was first seen not (yet) readable
    let mut unreadable_since: Option<std::time::Instant> = None;
    loop {
        // looked at before reading: whatever the writer put in the timeline before
        // it wrote meta.json is read below
        let finished = match meta_state(&meta) {
            MetaState::Absent => false,
            MetaState::Complete => true,
            // being written (its creation wakes us before its content is there),
            // or left broken: the writer has a moment to finish it
            MetaState::Unreadable => {
                unreadable_since
                    .get_or_insert_with(std::time::Instant::now)
                    .elapsed()
                    >= META_SETTLE
            }
        };
        let mut evs = if finished {
            follower.read_available()
        } else if unreadable_since.is_none() && follower.is_event_driven() {
            // asleep until the timeline or meta.json changes (or `stop`)
            follower.next_batch(None)
        } else {
            // no events to tell, or a meta.json being completed: look again soon
            follower.next_batch(Some(META_CHECK))
        };
        // caught up with a finished run: take its last line even without a newline
        let done = finished && evs.is_empty();
        if done {
            evs = follower.finish();
        }
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let b = Batch::of(evs);
        if b.is_empty() && !done {
            continue;
        }
        let a = Action::TimelineAppend {
            path: path.to_owned(),
            reset: b.reset,
            events: b.events,
            problems: b.problems,
            finished: done,
        };
        if !send(a) || done {
            return;
        }
    }
}

enum MetaState {
    Absent,
    /// There, but not JSON (yet).
    Unreadable,
    Complete,
}

/// Whether a run's `meta.json` is there and reads as JSON: the run has ended
/// only when it does (its creation is seen before its content is written).
fn meta_state(meta: &Path) -> MetaState {
    match std::fs::read(meta) {
        Err(_) => MetaState::Absent,
        Ok(bytes) if serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_ok() => {
            MetaState::Complete
        }
        Ok(_) => MetaState::Unreadable,
    }
}

/// A follow task in flight; dropping it stops the task at once (on every way
/// out of the loop, an error included).
struct Following {
    stop: Arc<AtomicBool>,
    wake: tail::Interrupt,
}

impl Drop for Following {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // the follower may be asleep on the file: wake it to see the flag now
        self.wake.interrupt();
    }
}

/// `TESTDECK_TRACE=FILE` appends one line per message and frame (for debugging the loop).
fn trace_file() -> Option<&'static PathBuf> {
    static FILE: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    FILE.get_or_init(|| std::env::var_os("TESTDECK_TRACE").map(PathBuf::from))
        .as_ref()
}

fn trace(s: impl FnOnce() -> String) {
    if let Some(p) = trace_file() {
        use std::io::Write as _;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(p)
        {
            let _ = writeln!(f, "{}", s());
        }
    }
}

/// The workspace with its tests tree and plan only (no logs, no catalog): the first
/// frame's tree while the full index is built.
pub fn tree_only(root: &Path) -> Option<Workspace> {
    use crate::workspace::{config, logs, plan, tree};
    if !root.is_dir() {
        return None;
    }
    let mut problems = Vec::new();
    let config = config::Config::load(root, &mut problems);
    let plan = plan::TestPlan::load(root, &mut problems);
    let tests = tree::scan(root, &plan, &mut problems);
    Some(Workspace {
        root: root.to_path_buf(),
        config,
        tests,
        logs: logs::Logs::default(),
        plan,
        catalog: None,
        problems: Vec::new(),
    })
}

/// The catalog's run records, each relative to the root, or why it cannot be read.
pub fn read_records(root: &Path) -> Vec<(String, Result<crate::exec::record::RunRecord, String>)> {
    crate::exec::record::list_records(root)
        .into_iter()
        .map(|(p, r)| {
            (
                crate::workspace::rel(root, &p),
                r.map_err(|e| e.to_string()),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::app::Effect;
    use crate::tui::keymap::Keymap;
    use std::collections::VecDeque;
    use std::io::Write as _;
    use std::sync::mpsc;

    const REL: &str = "tests/logs/kb/backend/search/basic/kb-search-empty/20260310-120000-000";
    const META: &str = r#"{"schemaVersion":4,"runId":"20260310-120000-000","status":"passed"}"#;

    fn line(name: &str) -> String {
        format!("{{\"type\":\"step\",\"name\":\"{name}\",\"status\":\"ok\",\"message\":\"\"}}\n")
    }

    fn lines(prefix: &str, range: std::ops::RangeInclusive<u32>) -> String {
        range.map(|i| line(&format!("{prefix}{i}"))).collect()
    }

    /// A workspace with one run folder holding `timeline`; the run folder's path.
    fn run_with(timeline: &str) -> (tempfile::TempDir, PathBuf) {
        let ws = tempfile::tempdir().expect("tmp");
        let dir = ws.path().join(REL);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("timeline.jsonl"), timeline).expect("write");
        (ws, dir)
    }

    fn append(dir: &Path, text: &str) {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.join("timeline.jsonl"))
            .expect("open");
        f.write_all(text.as_bytes()).expect("append");
    }

    fn names(evs: &VecDeque<timeline::TimelineEvent>) -> Vec<String> {
        evs.iter().map(|e| e.name.clone()).collect()
    }

    /// An app showing the run: `RunLoaded` from `load_run`, and the follower its
    /// `Effect::Follow` hands on.
    fn app_showing(root: &Path) -> (App, Option<Box<Follower>>) {
        let mut app = App::new(
            crate::tui::app::Options::default(),
            Keymap::builtin("default").unwrap_or_default(),
        );
        app.live.wanted = Some(REL.into());
        let fx = app.update(Action::RunLoaded(Box::new(load_run(root, REL))));
        let follower = fx.into_iter().find_map(|e| match e {
            Effect::Follow { path, follower } if path == REL => Some(follower),
            _ => None,
        });
        (app, follower)
    }

    /// Run `follow` on its own thread, as the runtime does; its actions come on the channel.
    fn follow_on_thread(
        follower: Box<Follower>,
        dir: &Path,
    ) -> (
        mpsc::Receiver<Action>,
        Arc<AtomicBool>,
        std::thread::JoinHandle<()>,
    ) {
        let (tx, rx) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let (dir, s) = (dir.to_path_buf(), stop.clone());
        let t = std::thread::spawn(move || {
            let send = |a| tx.send(a).is_ok();
            follow(*follower, &dir, REL, &s, &send);
        });
        (rx, stop, t)
    }

    /// Apply the follow task's actions to the app until the finished one; each
    /// append as `(reset, names, finished)`.
    fn drain_until_finished(
        app: &mut App,
        rx: &mpsc::Receiver<Action>,
    ) -> Vec<(bool, Vec<String>, bool)> {
        let mut seen = Vec::new();
        loop {
            let a = rx
                .recv_timeout(Duration::from_secs(30))
                .expect("the follow task went silent before the run finished");
            let Action::TimelineAppend {
                reset,
                events,
                finished,
                ..
            } = &a
            else {
                panic!("unexpected action {a:?}");
            };
            seen.push((
                *reset,
                events.iter().map(|e| e.name.clone()).collect(),
                *finished,
            ));
            let fx = app.update(a);
            if seen.last().is_some_and(|s| s.2) {
                assert!(matches!(fx.as_slice(), [Effect::Reload]), "{fx:?}");
                return seen;
            }
        }
    }

    fn shown(app: &App) -> Vec<String> {
        names(&app.live.run.as_ref().expect("a run").events)
    }

    #[test]
    fn a_finished_run_is_read_to_its_unterminated_last_line() {
        let text =
            lines("s", 1..=2) + "{\"type\":\"step\",\"name\":\"last\"}\n{\"name\":\"no-newline\"}";
        let (ws, dir) = run_with(&text);
        std::fs::write(dir.join("meta.json"), META).expect("meta");
        let data = load_run(ws.path(), REL);
        assert!(!data.in_progress);
        assert!(data.follower.is_none(), "a finished run is not followed");
        assert_eq!(names(&data.events), ["s1", "s2", "last", "no-newline"]);
    }

    #[test]
    fn broken_lines_are_problems_with_their_line_number() {
        let text = line("a") + "\nnot json\n" + &line("b");
        let (ws, _dir) = run_with(&text);
        let data = load_run(ws.path(), REL);
        // the blank line 2 counts; the broken line is shown as its raw text
        assert_eq!(data.events.len(), 3);
        assert_eq!(data.problems.len(), 1, "{:?}", data.problems);
        assert!(
            data.problems[0].starts_with("line 3: "),
            "{:?}",
            data.problems
        );
    }

    #[test]
    fn an_in_progress_run_hides_its_partial_line_until_it_is_completed() {
        let (ws, dir) = run_with(&(lines("s", 1..=3) + "{\"type\":\"step\",\"na"));
        let (mut app, follower) = app_showing(ws.path());
        assert_eq!(shown(&app), ["s1", "s2", "s3"]);
        let follower = follower.expect("an in-progress run is followed");
        let (rx, _stop, t) = follow_on_thread(follower, &dir);
        // a writer finishes the line, appends more, then ends the run
        let wdir = dir.clone();
        let writer = std::thread::spawn(move || {
            append(&wdir, "me\":\"s4\",\"status\":\"ok\"}\n");
            for i in 5..=40 {
                append(&wdir, &line(&format!("s{i}")));
                if i % 8 == 0 {
                    std::thread::sleep(Duration::from_millis(30));
                }
            }
            // the last line never gets its newline: it shows when the run ends
            append(&wdir, "{\"type\":\"run\",\"name\":\"end\"}");
            std::thread::sleep(Duration::from_millis(50));
            std::fs::write(wdir.join("meta.json"), META).expect("meta");
        });
        let seen = drain_until_finished(&mut app, &rx);
        writer.join().expect("writer");
        joined(t);
        assert!(seen.iter().all(|s| !s.0), "no reset: {seen:?}");
        let mut want: Vec<String> = (1..=40).map(|i| format!("s{i}")).collect();
        want.push("end".into());
        // exactly once and in order, across load and follow
        assert_eq!(shown(&app), want);
        let last = seen.last().expect("appends");
        assert!(last.1.contains(&"end".to_owned()), "{seen:?}");
        assert!(!app.live.run.as_ref().expect("run").in_progress);
    }

    /// meta.json is seen the moment it is created, before its content: the run
    /// ends only once it reads as JSON (then the index finds its status), or when
    /// it stays broken for `META_SETTLE`.
    #[test]
    fn the_run_ends_when_meta_json_reads_not_when_it_appears() {
        let (ws, dir) = run_with(&lines("s", 1..=2));
        let (mut app, follower) = app_showing(ws.path());
        let (rx, _stop, t) = follow_on_thread(follower.expect("followed"), &dir);
        // half a meta.json, then a line: the line comes in a batch that does
        // not end the run
        std::fs::write(dir.join("meta.json"), &META[..20]).expect("meta");
        append(&dir, &line("after-half-meta"));
        loop {
            let a = rx
                .recv_timeout(Duration::from_secs(30))
                .expect("the line after the half meta.json");
            let Action::TimelineAppend {
                events, finished, ..
            } = &a
            else {
                panic!("unexpected action {a:?}");
            };
            assert!(!finished, "ended on a meta.json still being written");
            let got = events.iter().any(|e| e.name == "after-half-meta");
            app.update(a);
            if got {
                break;
            }
        }
        std::fs::write(dir.join("meta.json"), META).expect("meta");
        let seen = drain_until_finished(&mut app, &rx);
        joined(t);
        assert!(seen.last().is_some_and(|s| s.2));
        assert_eq!(shown(&app), ["s1", "s2", "after-half-meta"]);

        // a meta.json left broken still ends the run, after a moment
        let (ws, dir) = run_with(&lines("b", 1..=1));
        let (mut app, follower) = app_showing(ws.path());
        let (rx, _stop, t) = follow_on_thread(follower.expect("followed"), &dir);
        std::fs::write(dir.join("meta.json"), "{broken").expect("meta");
        drain_until_finished(&mut app, &rx);
        joined(t);
        assert!(!app.live.run.as_ref().expect("run").in_progress);
    }

    /// Apply the follow task's actions to the app until it shows `want`.
    fn wait_shown(app: &mut App, rx: &mpsc::Receiver<Action>, want: &[&str]) -> Vec<bool> {
        let mut resets = Vec::new();
        while shown(app) != want {
            let a = rx
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("never shown {want:?}; shown {:?}", shown(app)));
            if let Action::TimelineAppend { reset, .. } = &a {
                resets.push(*reset);
            }
            app.update(a);
        }
        resets
    }

    /// Wait for the thread to end, failing (not hanging) when it does not.
    fn joined(t: std::thread::JoinHandle<()>) {
        let start = std::time::Instant::now();
        while !t.is_finished() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the follow task did not stop"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        t.join().expect("follow task");
    }

    #[test]
    fn a_replacement_by_rename_shows_the_new_file_only() {
        let (ws, dir) = run_with(&lines("old", 1..=3));
        let (mut app, follower) = app_showing(ws.path());
        let (rx, _stop, t) = follow_on_thread(follower.expect("followed"), &dir);
        // this thread writes while the follow task reads on its own
        append(&dir, &lines("old", 4..=5));
        let resets = wait_shown(&mut app, &rx, &["old1", "old2", "old3", "old4", "old5"]);
        assert!(resets.iter().all(|r| !r), "{resets:?}");
        // the atomic-write pattern: a new file renamed over the timeline
        let tmp = dir.join("timeline.jsonl.tmp");
        std::fs::write(&tmp, lines("new", 1..=3)).expect("tmp");
        std::fs::rename(&tmp, dir.join("timeline.jsonl")).expect("rename");
        let resets = wait_shown(&mut app, &rx, &["new1", "new2", "new3"]);
        assert_eq!(resets.first(), Some(&true), "{resets:?}");
        append(&dir, &line("new4"));
        wait_shown(&mut app, &rx, &["new1", "new2", "new3", "new4"]);
        // rewritten in place at the same size: only the first line tells
        std::fs::write(dir.join("timeline.jsonl"), lines("neW", 1..=4)).expect("rewrite");
        let resets = wait_shown(&mut app, &rx, &["neW1", "neW2", "neW3", "neW4"]);
        assert_eq!(resets.first(), Some(&true), "{resets:?}");
        append(&dir, &line("neW5"));
        std::fs::write(dir.join("meta.json"), META).expect("meta");
        let seen = drain_until_finished(&mut app, &rx);
        joined(t);
        assert!(seen.iter().all(|s| !s.0), "{seen:?}");
        assert_eq!(shown(&app), ["neW1", "neW2", "neW3", "neW4", "neW5"]);
    }

    #[test]
    fn stop_ends_the_follow_task_and_it_sends_nothing_more() {
        let (ws, dir) = run_with(&lines("s", 1..=2));
        let (_app, follower) = app_showing(ws.path());
        let follower = follower.expect("followed");
        let wake = follower.interrupt_handle();
        let (rx, stop, t) = follow_on_thread(follower, &dir);
        drop(Following { stop, wake });
        joined(t);
        append(&dir, &line("late"));
        assert!(rx.try_recv().is_err(), "an action after the stop");
    }

    #[test]
    fn a_huge_timeline_keeps_its_last_events_and_says_how_many_were_not_loaded() {
        let (ws, dir) = run_with(&lines("e", 1..=250));
        std::fs::write(dir.join("meta.json"), META).expect("meta");
        let data = load_run_capped(ws.path(), REL, 100);
        assert_eq!(data.events.len(), 100);
        assert_eq!(data.events.front().map(|e| e.name.as_str()), Some("e151"));
        assert_eq!(data.events.back().map(|e| e.name.as_str()), Some("e250"));
        assert_eq!(data.skipped, 150);
        let notes = data.problem_lines();
        assert!(
            notes[0].contains("150 earlier lines not loaded"),
            "{notes:?}"
        );
        // the live pane keeps the same bound while it follows
        let (ws, dir) = run_with(&lines("e", 1..=5));
        let (mut app, follower) = app_showing(ws.path());
        app.timeline_cap = 8;
        let (rx, _stop, t) = follow_on_thread(follower.expect("followed"), &dir);
        append(&dir, &lines("e", 6..=20));
        std::fs::write(dir.join("meta.json"), META).expect("meta");
        drain_until_finished(&mut app, &rx);
        joined(t);
        let want: Vec<String> = (13..=20).map(|i| format!("e{i}")).collect();
        assert_eq!(shown(&app), want);
        assert_eq!(app.live.run.as_ref().expect("run").skipped, 12);
    }

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
