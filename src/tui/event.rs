//! The event loop: one tokio runtime; terminal input, background results, signals and
//! timers all become `Action`s on one channel; effects run as tasks; frames are drawn
//! only when the state changed, at most ~60 a second.

use super::action::{Action, RunData};
use super::app::{App, Effect};
use super::theme::Theme;
use crate::workspace::Workspace;
use crate::workspace::timeline;
use crossterm::event::{Event, EventStream, KeyEventKind};
use futures::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio::time::Instant;

/// The shortest gap between two frames (~60 fps).
pub const FRAME: Duration = Duration::from_millis(16);
/// How often a followed timeline is checked for new lines.
pub const FOLLOW_POLL: Duration = Duration::from_millis(150);
/// The most runtime events kept from one file.
pub const MAX_RUNTIME_EVENTS: usize = 20_000;

enum Msg {
    Term(Event),
    Act(Action),
}

/// Read a run folder for the live, details and artifacts panes.
pub fn load_run(root: &Path, rel: &str) -> RunData {
    let dir = root.join(rel);
    let in_progress = !dir.join("meta.json").is_file();
    let (events, offset, mut problems) = read_lines(&dir.join("timeline.jsonl"), 0, !in_progress);
    let (artifacts, probs) = crate::workspace::logs::read_artifacts(root, &dir);
    if dir.join("artifacts.json").is_file() {
        problems.extend(probs.iter().map(ToString::to_string));
    }
    let mut runtime_events = Vec::new();
    if let Ok(text) = std::fs::read(dir.join("runtime-events.jsonl")) {
        for line in text.split(|&b| b == b'\n').take(MAX_RUNTIME_EVENTS) {
            let l = String::from_utf8_lossy(line);
            let l = l.trim();
            if !l.is_empty() {
                runtime_events.push(l.to_owned());
            }
        }
    }
    RunData {
        path: rel.to_owned(),
        events,
        offset,
        artifacts,
        runtime_events,
        problems,
        in_progress,
    }
}

/// Parse the complete lines of `file` after `offset` (and a last unterminated line when
/// `take_partial`): the events, the new offset, problems as text.
pub fn read_lines(
    file: &Path,
    offset: u64,
    take_partial: bool,
) -> (Vec<timeline::TimelineEvent>, u64, Vec<String>) {
    let mut buf = Vec::new();
    let Ok(mut fh) = std::fs::File::open(file) else {
        return (Vec::new(), offset, Vec::new());
    };
    let len = fh.metadata().map_or(0, |m| m.len());
    // a file that shrank was replaced or truncated: read it again from the start
    let start = if len < offset { 0 } else { offset };
    if fh.seek(SeekFrom::Start(start)).is_err() || fh.read_to_end(&mut buf).is_err() {
        return (Vec::new(), offset, Vec::new());
    }
    let end = if take_partial {
        buf.len()
    } else {
        buf.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1)
    };
    let mut events = Vec::new();
    let mut problems = Vec::new();
    for (i, line) in buf[..end].split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let (ev, issues) = timeline::parse_line(line);
        for is in issues {
            problems.push(format!("line {}: {}", i + 1, is.message));
        }
        events.push(ev);
    }
    (events, start + end as u64, problems)
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
    let mut follow_stop: Option<Arc<AtomicBool>> = None;
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
                Effect::StopFollow => {
                    if let Some(s) = follow_stop.take() {
                        s.store(true, Ordering::Relaxed);
                    }
                }
                Effect::Follow { path, offset } => {
                    if let Some(s) = follow_stop.take() {
                        s.store(true, Ordering::Relaxed);
                    }
                    let stop = Arc::new(AtomicBool::new(false));
                    follow_stop = Some(stop.clone());
                    let ftx = tx.clone();
                    let dir = root.join(&path);
                    tokio::task::spawn_blocking(move || follow(&dir, &path, offset, &stop, &ftx));
                }
                Effect::Launch { index, plan, ctx } => {
                    let ltx = tx.clone();
                    let sink: crate::exec::Sink = Arc::new(move |ev| {
                        let _ = ltx.send(Msg::Act(Action::Exec(index, Box::new(ev))));
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
    extras.stop();
    Ok(())
}

/// Poll a run's timeline for new complete lines until stopped or the run finishes.
fn follow(dir: &Path, path: &str, mut offset: u64, stop: &AtomicBool, tx: &UnboundedSender<Msg>) {
    let file = dir.join("timeline.jsonl");
    while !stop.load(Ordering::Relaxed) {
        let finished = dir.join("meta.json").is_file();
        let (events, new_offset, _) = read_lines(&file, offset, finished);
        if !events.is_empty() || finished || new_offset != offset {
            offset = new_offset;
            let a = Action::TimelineAppend {
                path: path.to_owned(),
                events,
                offset,
                finished,
            };
            if tx.send(Msg::Act(a)).is_err() || finished {
                return;
            }
        }
        std::thread::sleep(FOLLOW_POLL);
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
