//! The event loop, only: terminal input, background results, signals and timers all
//! become `Action`s; the app's effects go to the runtime; frames are drawn only when
//! the state changed, at most ~60 a second. Keys and signals come on a channel of
//! their own, read first: they never queue behind a flood of background results.

use super::action::Action;
use super::app::{App, Effect};
use super::runtime::Runtime;
use super::theme::Theme;
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
    // keys and signals: read before anything else (a person's `q` or a SIGTERM is
    // handled within one message's work, whatever streams in)
    let (utx, mut urgent) = unbounded_channel::<Msg>();
    // terminal input (stopped while an editor reads it)
    let mut input = read_input(utx.clone());
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
    let mut runtime = Runtime::new(root.clone(), send);
    runtime.start_indexing();
    runtime.start_watching();
    let size = terminal.size()?;
    app.update(Action::Resize(size.width, size.height));
    terminal.draw(|f| app.draw(&theme, f))?;
    app.drawn();
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
                    terminal.draw(|f| app.draw(&theme, f))?;
                    trace(|| "draw".into());
                    // what was drawn bounds the scroll of wrapped text (details)
                    app.fit_scroll(&app.measure(&theme));
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
        let mut queue = std::collections::VecDeque::from(effects);
        while let Some(fx) = queue.pop_front() {
            match fx {
                Effect::Edit(t) => {
                    // the input task ends (and its reader with it) before the editor starts
                    input.abort();
                    let _ = (&mut input).await;
                    let notice = super::suspend::edit(terminal, &root, &t).await?;
                    input = read_input(utx.clone());
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

/// Read terminal input onto the loop's channel until the task is aborted.
fn read_input(tx: UnboundedSender<Msg>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut events = EventStream::new();
        while let Some(Ok(ev)) = events.next().await {
            if tx.send(Msg::Term(ev)).is_err() {
                break;
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
