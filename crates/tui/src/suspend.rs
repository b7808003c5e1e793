//! Effects that need the terminal itself, done by the loop: the editor, run with the
//! terminal given back to it (raw mode, alternate screen and mouse off) and taken again
//! after, and OSC 52 clipboard writes.

use super::app::EditTarget;
use crossterm::{execute, terminal};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::io::Stdout;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// True while an editor has the terminal: its Ctrl-C (a SIGINT to the whole foreground
/// process group) is the editor's, not a request to end testdeck.
static EDITING: AtomicBool = AtomicBool::new(false);

pub(crate) fn editing() -> bool {
    EDITING.load(Ordering::Relaxed)
}

/// The editor's argument vector from the environment (`$VISUAL`, `$EDITOR`, `vi`),
/// once the file is checked ([`testdeck_core::workspace::editor::hand_over`]: a
/// regular file whose real path lies inside `root`); `Err` is the reason.
pub(crate) fn editor_argv(root: &Path, t: &EditTarget) -> Result<Vec<String>, String> {
    let var = |n: &str| std::env::var(n).ok();
    let cmd = testdeck_core::workspace::editor::command(
        var("VISUAL").as_deref(),
        var("EDITOR").as_deref(),
    );
    testdeck_core::workspace::editor::hand_over(root, &cmd, &t.file, t.line)
}

/// Open `t` in the editor in `root`, the terminal suspended around it; the notice to show
/// after. The caller has stopped reading terminal input (the editor reads it now).
pub(crate) async fn edit(
    term: &mut Terminal<CrosstermBackend<Stdout>>,
    root: &Path,
    t: &EditTarget,
) -> std::io::Result<String> {
    // checked here, when it is handed over: nothing is started when it fails
    let argv = match editor_argv(root, t) {
        Ok(a) => a,
        Err(why) => return Ok(why),
    };
    let shown = testdeck_core::sanitize::escape(&t.file).into_owned();
    EDITING.store(true, Ordering::Relaxed);
    super::restore_terminal();
    let dir = root.to_path_buf();
    let run = argv.clone();
    let status = tokio::task::spawn_blocking(move || {
        let (prog, args) = run
            .split_first()
            .ok_or_else(|| std::io::Error::other("empty"))?;
        std::process::Command::new(prog)
            .args(args)
            .current_dir(dir)
            .status()
    })
    .await
    .map_err(std::io::Error::other)
    .and_then(|r| r);
    EDITING.store(false, Ordering::Relaxed);
    super::take_terminal()?;
    // the editor drew over everything: the next frame is drawn whole
    invalidate(term)?;
    let program = testdeck_core::sanitize::escape(&argv[0]).into_owned();
    Ok(match status {
        Ok(s) if s.success() => format!("edited {shown}"),
        Ok(s) => format!("{program} ended with {s} ({shown})"),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            format!("no editor {program}: set $VISUAL or $EDITOR")
        }
        Err(e) => format!("cannot start the editor {program}: {e}"),
    })
}

/// Clear the screen and make the next frame draw every cell (not `Terminal::clear`,
/// which asks the terminal where its cursor is, an answer nothing reads here).
pub(crate) fn invalidate(term: &mut Terminal<CrosstermBackend<Stdout>>) -> std::io::Result<()> {
    execute!(std::io::stdout(), terminal::Clear(terminal::ClearType::All))?;
    term.swap_buffers();
    Ok(())
}

/// Put `text` on the terminal's clipboard with OSC 52 (the terminal may refuse it
/// silently: OSC 52 has no answer).
pub(crate) fn copy(text: &str) -> std::io::Result<()> {
    execute!(
        std::io::stdout(),
        crossterm::clipboard::CopyToClipboard::to_clipboard_from(text.as_bytes())
    )
}
