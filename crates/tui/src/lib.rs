//! The ratatui shell over the core: terminal setup and restore, config loading, and the
//! entry point `open`. State lives in `app`, drawing in `view`, the loop in `event`.

pub mod action;
pub mod app;
pub(crate) mod coalescing;
pub mod event;
pub mod feature_work;
pub(crate) mod follow_queue;
pub mod graphics;
pub mod image;
pub mod keymap;
pub(crate) mod launch_queue;
pub(crate) mod queue_handle;
#[expect(
    clippy::too_many_lines,
    reason = "the effect runner and the feature jobs dispatch one arm per effect and job kind"
)]
pub mod runtime;
pub(crate) mod suspend;
pub(crate) mod term_answers;
pub mod theme;
pub mod view;
pub mod workspace_watch;

use app::{App, Options};
use keymap::{ConfigError, Keymap};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use theme::Theme;

/// `$XDG_CONFIG_HOME/testdeck` (or `~/.config/testdeck`).
pub(crate) fn config_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .map(|d| d.join("testdeck"))
}

/// Load the keymap `name` (embedded, or `NAME.toml` in the user folder), then the
/// user's `keymap.toml` over it key by key. Broken files come back as errors and are skipped.
pub(crate) fn load_keymap(
    name: Option<&str>,
    user_dir: Option<&Path>,
) -> (Keymap, Vec<ConfigError>) {
    let mut errors = Vec::new();
    let wanted = name.unwrap_or("default");
    let read = |file: &str, errors: &mut Vec<ConfigError>| -> Option<Keymap> {
        let bytes = testdeck_core::workspace::read::read(
            &user_dir?.join(file),
            None,
            testdeck_core::workspace::read::Kind::UserConfig,
        )
        .ok()?;
        let text = String::from_utf8(bytes).ok()?;
        Keymap::parse(file, &text).map_err(|e| errors.push(e)).ok()
    };
    let mut km = match Keymap::builtin(wanted) {
        Some(k) => k,
        None => read(&format!("{wanted}.toml"), &mut errors).unwrap_or_else(|| {
            if errors.is_empty() {
                errors.push(ConfigError {
                    file: format!("{wanted}.toml"),
                    line: 1,
                    column: 1,
                    message: format!("no keymap named {wanted:?} (built in: default)"),
                });
            }
            Keymap::builtin("default").unwrap_or_default()
        }),
    };
    if let Some(user) = read("keymap.toml", &mut errors) {
        km.merge(user);
    }
    (km, errors)
}

/// Whether the cockpit draws without colour: `--color never`, or with `auto`
/// `NO_COLOR` (set and not empty), `CLICOLOR=0` or `TERM=dumb` (one decision,
/// [`testdeck_core::color`]).
pub fn no_color() -> bool {
    !testdeck_core::color::cockpit()
}

/// The HOST cases address (process environment first; loopback by default).
pub fn host() -> String {
    std::env::var("HOST")
        .ok()
        .filter(|h| !h.trim().is_empty())
        .unwrap_or_else(|| "127.0.0.1".to_owned())
}

/// Build the app and theme for a root, as `open` does (also used by tests).
pub(crate) fn prepare(root: &Path, theme: Option<&str>, keymap: Option<&str>) -> (App, Theme) {
    let dir = config_dir();
    let (km, mut errors) = load_keymap(keymap, dir.as_deref());
    let (th, terrs) = theme::load(theme, dir.as_deref(), no_color());
    errors.extend(terrs);
    let label = root
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| root.display().to_string());
    let mut app = App::new(
        Options {
            label,
            root: root.to_path_buf(),
            host: host(),
            use_env: true,
        },
        km,
    );
    app.set_picture_background(th.background_rgb());
    if !errors.is_empty() {
        let e: Vec<String> = errors.iter().map(ToString::to_string).collect();
        app.say(format!("{} (defaults used)", e.join("; ")));
    }
    (app, th)
}

/// Put the terminal back: raw mode off, main screen, mouse released, cursor shown.
pub(crate) fn restore_terminal() {
    use crossterm::{cursor, event, execute, terminal};
    let _ = terminal::disable_raw_mode();
    let _ = execute!(
        std::io::stdout(),
        event::DisableMouseCapture,
        terminal::LeaveAlternateScreen,
        cursor::Show
    );
}

/// Take the terminal: raw mode on, the alternate screen, and the mouse unless
/// config.toml's `mouse = false` leaves it to the terminal (at start, and again
/// after an editor had it).
fn take_terminal() -> std::io::Result<()> {
    use crossterm::{event, execute, terminal};
    terminal::enable_raw_mode()?;
    execute!(std::io::stdout(), terminal::EnterAlternateScreen)?;
    if testdeck_core::userconfig::current().mouse.unwrap_or(true) {
        execute!(std::io::stdout(), event::EnableMouseCapture)?;
    }
    Ok(())
}

/// Restores the terminal when dropped (normal exit, error, or unwinding).
struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// Open the cockpit on `root` until the person quits; the error is the message to
/// show. `history_cache`: the folder of the history cache to start from and keep
/// (`None`: `--no-cache`).
pub fn open(
    root: &Path,
    theme: Option<&str>,
    keymap: Option<&str>,
    history_cache: Option<PathBuf>,
) -> Result<(), String> {
    if !root.is_dir() {
        return Err(format!("{}: not a folder", root.display()));
    }
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        return Err(
            "the cockpit needs a terminal (stdin and stdout are not both a tty); use a headless command such as `testdeck list` instead".into(),
        );
    }
    let (mut app, th) = prepare(root, theme, keymap);
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return Err(format!("cannot start the runtime: {e}")),
    };
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // a panic on a background task is caught by tokio and the app goes on; only the
        // main thread's panic ends the program and must give the terminal back first
        if std::thread::current().name() == Some("main") {
            restore_terminal();
        }
        prev(info);
    }));
    let result = {
        let _guard = TerminalGuard;
        take_terminal()
            .and_then(|()| {
                ratatui::Terminal::new(ratatui::backend::CrosstermBackend::new(std::io::stdout()))
            })
            .and_then(|mut term| {
                // the query, if any, is written after the first frame (its answers
                // come on stdin, read by the loop)
                let (graphics, notice) = graphics::start();
                let ask = match graphics {
                    graphics::Start::Known(g) => {
                        app.set_graphics(g);
                        false
                    }
                    graphics::Start::Ask => true,
                };
                if let Some(n) = notice {
                    app.say(n);
                }
                let at = event::At {
                    root: root.to_path_buf(),
                    history_cache,
                };
                rt.block_on(event::run(app, th, &mut term, at, ask))
            })
    };
    // the guard has restored the terminal; end background tasks without waiting
    rt.shutdown_timeout(std::time::Duration::from_millis(100));
    result.map_err(|e| format!("terminal: {e}"))
}
