//! Opening an artifact: the core decides which command opens it (`openers`); the
//! workspace's own opener is shown and trusted by the person before it first runs.

use super::super::action::Command;
use super::{App, Effect, Overlay, Prompt, overlay};
use std::path::Path;
use testdeck_core::sanitize::escape;

impl App {
    /// `o`: open the selected artifact with its opener.
    pub(super) fn open_artifact(&mut self) -> Vec<Effect> {
        use testdeck_core::workspace::openers::{self, Decision, OpenerKind};
        let (kind, shown, file) = match self.live.artifact_to_open(&self.opts.root) {
            Ok(a) => a,
            Err(why) => {
                self.notice = Some(why);
                return Vec::new();
            }
        };
        // which command runs is the core's decision; the TUI only asks
        let slot = OpenerKind::of(&kind, &shown);
        // absolute: the opener runs in the workspace root, not in testdeck's directory
        let file = std::path::absolute(&file).unwrap_or(file);
        let target = file.to_string_lossy().into_owned();
        match openers::decide(&self.opts.root, &self.opener_places, slot) {
            Decision::Nothing => {
                discard(&file);
                self.notice = Some("no opener configured ([open] is empty)".into());
                Vec::new()
            }
            Decision::Run(mut argv) => {
                argv.push(target);
                self.notice = Some(format!("opening {}", escape(&shown)));
                vec![Effect::Spawn(argv)]
            }
            Decision::Ask { argv, file } => {
                self.layers
                    .open(Overlay::Prompt(Prompt::TrustOpener(Box::new(
                        overlay::TrustOpener {
                            slot,
                            argv,
                            file,
                            target,
                            shown,
                            scroll: 0,
                        },
                    ))));
                Vec::new()
            }
        }
    }

    /// A key on the trust question: Enter trusts the workspace's opener (and
    /// remembers it) and opens the file; anything else opens nothing.
    /// A question too long for the screen scrolls, and `y` is refused until its
    /// end (the whole command and the question) has been on screen.
    pub(super) fn trust_command(&mut self, mut t: overlay::TrustOpener, c: Command) -> Vec<Effect> {
        let (rows, page) = (trust_rows(&t, self.size).len(), trust_page(self.size));
        let last = rows.saturating_sub(page);
        let step = match c {
            Command::MoveDown => Some(1),
            Command::MoveUp => Some(-1),
            Command::PageDown => Some(page.cast_signed()),
            Command::PageUp => Some(-page.cast_signed()),
            _ => None,
        };
        if let Some(step) = step {
            t.scroll = t.scroll.saturating_add_signed(step).min(last);
            self.layers
                .open(Overlay::Prompt(Prompt::TrustOpener(Box::new(t))));
            return Vec::new();
        }
        if c == Command::Confirm && t.scroll < last {
            self.notice = Some("the whole command first: ↓ scrolls to its end".into());
            self.layers
                .open(Overlay::Prompt(Prompt::TrustOpener(Box::new(t))));
            return Vec::new();
        }
        if c != Command::Confirm {
            discard(Path::new(&t.target));
            self.notice = Some(format!(
                "not opened: the workspace's opener for {} is not trusted",
                escape(&t.shown)
            ));
            return Vec::new();
        }
        let root = self.opts.root.clone();
        self.notice = Some(
            match testdeck_core::workspace::openers::trust(
                &root,
                &self.opener_places,
                t.slot,
                &t.argv,
            ) {
                Ok(()) => format!("opening {} (opener trusted)", escape(&t.shown)),
                Err(e) => format!(
                    "opening {} (trusted this once; not remembered: {})",
                    escape(&t.shown),
                    escape(&e.to_string())
                ),
            },
        );
        let mut argv = t.argv;
        argv.push(t.target);
        vec![Effect::Spawn(argv)]
    }
}

/// Remove the private copy made for an opener that will not run (its folder
/// holds only it).
fn discard(copy: &Path) {
    if let Some(dir) = copy.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// The columns of a trust question's rows in a terminal of `size` (the prompt box,
/// 64 columns at most, less its borders).
fn trust_width(size: (u16, u16)) -> usize {
    usize::from(size.0.min(64).saturating_sub(2).max(1))
}

/// How many rows of the trust question the prompt box shows at once in a
/// terminal of `size`: its height less the borders, the `↓ more` line and the
/// y/N line.
pub fn trust_page(size: (u16, u16)) -> usize {
    usize::from(size.1.saturating_sub(4).max(1))
}

/// The trust question as rows that fit the prompt box of a terminal of `size`:
/// the file, the command with its arguments quoted one per line (a long one
/// cut into rows, nothing left out), then the question. Drawing and the keys
/// use the same rows, so `y` is taken only once the last was shown.
pub fn trust_rows(t: &overlay::TrustOpener, size: (u16, u16)) -> Vec<String> {
    let width = trust_width(size);
    let mut rows = vec![format!(
        "{} names this opener:",
        escape(&t.file.to_string_lossy())
    )];
    for arg in t.argv.iter().chain(std::iter::once(&t.target)) {
        // quoted, so spaces and empty arguments show; escaped, so nothing is hidden
        let shown = escape(&shell_words::quote(arg)).into_owned();
        let (mut row, mut used) = (String::from("  "), 2);
        for ch in shown.chars() {
            // display columns, as the terminal draws it (wide characters take two)
            let w = ratatui::text::Span::raw(ch.to_string()).width();
            if used + w > width {
                rows.push(std::mem::replace(&mut row, String::from("  ")));
                used = 2;
            }
            row.push(ch);
            used += w;
        }
        rows.push(row);
    }
    rows.push("Trust it (remembered until the file changes)?".into());
    rows
}
