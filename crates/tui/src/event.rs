//! The event loop, only: terminal input, background results, signals and timers all
//! become `Action`s; the app's effects go to the runtime; frames are drawn only when
//! the state changed, at most ~60 a second. Keys and signals come on a channel of
//! their own, read first: they never queue behind a flood of background results.
//! The first frame waits for nothing: the graphics query is written after it, and its
//! answers are read beside the loop until they come (then crossterm's reader starts).

use super::action::Action;
use super::app::{App, Effect, Measured};
use super::runtime::Runtime;
use super::theme::Theme;
use super::view;
use crossterm::event::{Event, EventStream, KeyEventKind};
use futures_util::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio::time::Instant;

/// The shortest gap between two frames (~60 fps).
pub(crate) const FRAME: Duration = Duration::from_millis(16);
enum Msg {
    Term(Event),
    Act(Action),
    /// The graphics query ended (answered, or its wait over): what it found; terminal
    /// input is crossterm's from now.
    Queried(Box<super::graphics::Graphics>),
    /// A kitty answer came after the wait.
    LateKitty,
}

/// The graphics query's answers being read beside the loop.
struct Query {
    stop: Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Query {
    /// Write the query and read its answers on a thread of their own; keys typed
    /// meanwhile and the end come on `tx`.
    fn start(
        terminal: &mut Terminal<CrosstermBackend<std::io::Stdout>>,
        tx: UnboundedSender<Msg>,
    ) -> Option<Query> {
        use std::io::Write as _;
        // from this thread, between frames: never inside a frame's bytes
        let out = terminal.backend_mut();
        if out
            .write_all(super::graphics::QUERIES.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            let _ = tx.send(Msg::Queried(Box::default()));
            return None;
        }
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let typed = |keys: Vec<Event>| {
                for k in keys {
                    let _ = tx.send(Msg::Term(k));
                }
            };
            let answers =
                super::graphics::read_answers(super::graphics::query_timeout(), &flag, &typed);
            let _ = tx.send(Msg::Queried(Box::new(super::graphics::answered(&answers))));
        });
        Some(Query {
            stop,
            thread: Some(thread),
        })
    }

    /// Stop reading now and wait for the reader (an editor is about to take the terminal).
    fn stop(mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Query {
    /// The loop has ended: the reader stops within its poll slice.
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Where the cockpit works: the workspace, and the folder of its history cache.
pub struct At {
    /// The workspace root.
    pub root: PathBuf,
    /// The folder of the history cache (`None`: `--no-cache`, neither read nor written).
    pub history_cache: Option<PathBuf>,
}

/// Run the app until it quits. The workspace at `at.root` is loaded on a blocking
/// task so the first frame shows at once.
#[expect(
    clippy::too_many_lines,
    reason = "the event loop: one select whose arms share the terminal, the app and the timers"
)]
pub async fn run(
    mut app: App,
    theme: Theme,
    terminal: &mut Terminal<CrosstermBackend<std::io::Stdout>>,
    at: At,
    ask: bool,
) -> std::io::Result<()> {
    let At {
        root,
        history_cache,
    } = at;
    let (tx, mut rx) = unbounded_channel::<Msg>();
    // keys and signals: read before anything else (a person's `q` or a SIGTERM is
    // handled within one message's work, whatever streams in)
    let (utx, mut urgent) = unbounded_channel::<Msg>();
    // terminal input (stopped while an editor reads it; started when the graphics
    // query is over, which reads stdin until then)
    let mut input = (!ask).then(|| read_input(utx.clone()));
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
                let stx = utx.clone();
                let int = kind == SignalKind::interrupt();
                tokio::spawn(async move {
                    while s.recv().await.is_some() {
                        // Ctrl-C in the editor reaches the whole process group
                        if int && super::suspend::editing() {
                            continue;
                        }
                        let _ = stx.send(Msg::Act(Action::Terminate));
                        break;
                    }
                });
            }
        }
    }
    let send_tx = tx.clone();
    let send: super::action::ActionSink = Arc::new(move |a| {
        let _ = send_tx.send(Msg::Act(a));
    });
    let mut runtime = Runtime::new(root.clone(), send).with_history_cache(history_cache);
    runtime.start_indexing();
    runtime.start_watching();
    let size = terminal.size()?;
    app.update(Action::Resize(size.width, size.height));
    terminal.draw(|f| {
        view::draw(&app.snapshot(), &theme, f);
    })?;
    app.drawn();
    let mut query = if ask {
        Query::start(terminal, utx.clone())
    } else {
        None
    };
    let mut last_draw = Instant::now();
    let mut pictured = false;
    loop {
        let msg = if app.dirty() {
            // in this order: keys and signals, a frame when one is due, then the rest
            tokio::select! {
                biased;
                m = urgent.recv() => m,
                () = tokio::time::sleep_until(last_draw + FRAME) => {
                    // a protocol picture's pixels are no cells the diff knows: when it
                    // leaves, the whole screen is cleared and drawn again
                    if pictured && !app.graphics().on_screen() {
                        super::suspend::invalidate(terminal)?;
                    }
                    pictured = app.graphics().on_screen();
                    let mut measured = Measured::default();
                    terminal.draw(|f| measured = view::draw(&app.snapshot(), &theme, f))?;
                    trace(|| "draw".into());
                    // what was drawn bounds the scroll of wrapped text (details)
                    app.fit_scroll(&measured);
                    app.drawn();
                    last_draw = Instant::now();
                    continue;
                }
                m = rx.recv() => m,
            }
        } else {
            tokio::select! {
                biased;
                m = urgent.recv() => m,
                m = rx.recv() => m,
            }
        };
        let Some(msg) = msg else { break };
        trace(|| match &msg {
            Msg::Term(e) => format!("term {e:?}"),
            Msg::Queried(g) => format!("queried {:?}", g.kind()),
            Msg::LateKitty => "late kitty answer".into(),
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
            Msg::Queried(g) => {
                query = None;
                if input.is_none() {
                    input = Some(read_input(utx.clone()));
                }
                app.set_graphics(*g);
                // a resize while the query had stdin came as no event
                terminal.autoresize()?;
                let size = terminal.size()?;
                app.update(Action::Resize(size.width, size.height))
            }
            Msg::LateKitty => {
                if app.graphics().kind() == super::graphics::Kind::Halfblocks {
                    app.set_graphics(super::graphics::answered_late_kitty());
                }
                Vec::new()
            }
        };
        let mut queue = std::collections::VecDeque::from(effects);
        while let Some(fx) = queue.pop_front() {
            match fx {
                Effect::Edit(t) => {
                    // the input task ends (and its reader with it) before the editor
                    // starts, and so does the query's
                    if let Some(q) = query.take() {
                        q.stop();
                    }
                    if let Some(mut i) = input.take() {
                        i.abort();
                        let _ = (&mut i).await;
                    }
                    let notice = super::suspend::edit(terminal, &root, &t).await?;
                    input = Some(read_input(utx.clone()));
                    queue.extend(app.update(Action::Notice(notice)));
                }
                Effect::Copy(text) => {
                    if let Err(e) = super::suspend::copy(&text) {
                        queue.extend(app.update(Action::Notice(format!("cannot copy: {e}"))));
                    }
                }
                fx => {
                    if !runtime.apply(fx) {
                        return Ok(());
                    }
                }
            }
        }
        if app.quit() {
            break;
        }
    }
    runtime.stop();
    Ok(())
}

/// Read terminal input onto the loop's channel until the task is aborted; a graphics
/// answer that comes late is taken out ([`LateAnswers`]).
fn read_input(tx: UnboundedSender<Msg>) -> tokio::task::JoinHandle<()> {
    use super::term_answers::{HOLD, LateAnswers};
    tokio::spawn(async move {
        let mut events = EventStream::new();
        let mut late = LateAnswers::default();
        loop {
            let next = if late.holding() {
                let Ok(n) = tokio::time::timeout(HOLD, events.next()).await else {
                    // nothing more in time: a person's keys
                    for ev in late.release() {
                        let _ = tx.send(Msg::Term(ev));
                    }
                    continue;
                };
                n
            } else {
                events.next().await
            };
            let Some(Ok(ev)) = next else { break };
            let taken = late.take(ev);
            if taken.kitty {
                let _ = tx.send(Msg::LateKitty);
            }
            for ev in taken.pass {
                if tx.send(Msg::Term(ev)).is_err() {
                    return;
                }
            }
        }
    })
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
