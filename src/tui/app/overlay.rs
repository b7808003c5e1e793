//! Overlays over the panes — help, the finder, a data or problems view, the prompts —
//! and how their keys scroll them.

use super::super::action::{Command, RunData};
use super::finder::Finder;
use crate::sanitize::escape;
use crate::workspace::Workspace;

#[derive(Debug, Clone)]
pub enum Prompt {
    /// Quit while runs are live.
    QuitLive,
    /// An authorization question before a launch.
    Authorize(Box<super::launch::Asking>),
    /// A person's verdict for a case no process can judge.
    Judge(Box<super::launch::Judging>),
    /// What a launch of several cases will do, before it starts.
    Preview(Box<super::launch::Preview>),
    /// Trust the workspace's own opener (shown exactly) before it runs.
    TrustOpener(Box<TrustOpener>),
}

/// The question before a workspace opener runs for the first time.
#[derive(Debug, Clone)]
pub struct TrustOpener {
    pub slot: crate::workspace::openers::Slot,
    /// The opener as `testdeck.toml` names it.
    pub argv: Vec<String>,
    /// The workspace file that names it.
    pub file: std::path::PathBuf,
    /// The artifact to open (absolute) and as shown (run-relative).
    pub target: String,
    pub shown: String,
}

#[derive(Debug, Clone)]
pub enum Overlay {
    Help {
        scroll: usize,
    },
    Finder(Finder),
    /// Pretty-printed event data.
    Data {
        title: String,
        lines: Vec<String>,
        scroll: usize,
    },
    Prompt(Prompt),
}

/// What a text input line edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputTarget {
    RunsFilter,
    EventsFilter,
}

impl Overlay {
    /// A key on a scrolled overlay (help, data): scrolled, or `None` when it closes.
    pub fn scrolled(self, c: Command, help_len: usize) -> Option<Overlay> {
        match self {
            Overlay::Help { scroll } => {
                scroll_overlay(c, scroll, help_len).map(|s| Overlay::Help { scroll: s })
            }
            Overlay::Data {
                title,
                lines,
                scroll,
            } => {
                let n = lines.len();
                scroll_overlay(c, scroll, n).map(|s| Overlay::Data {
                    title,
                    lines,
                    scroll: s,
                })
            }
            other => Some(other),
        }
    }
}

/// Text to read in an overlay, escaped line by line.
pub fn text(title: &str, text: &str) -> Overlay {
    let lines = crate::sanitize::escape_keep_newlines(text)
        .lines()
        .map(str::to_owned)
        .collect();
    Overlay::Data {
        title: escape(title).into_owned(),
        lines,
        scroll: 0,
    }
}

/// The problems met while loading (and reading the shown run), located.
pub fn problems(ws: Option<&Workspace>, run: Option<&RunData>) -> Overlay {
    let mut lines: Vec<String> = ws
        .map(|w| {
            w.problems
                .iter()
                .map(|p| escape(&p.to_string()).into_owned())
                .collect()
        })
        .unwrap_or_default();
    if let Some(run) = run {
        lines.extend(run.problem_lines().iter().map(|p| escape(p).into_owned()));
    }
    if lines.is_empty() {
        lines.push("No problems: every file read cleanly.".into());
    }
    Overlay::Data {
        title: format!("Problems · {}", lines.len()),
        lines,
        scroll: 0,
    }
}

fn scroll_overlay(c: Command, scroll: usize, len: usize) -> Option<usize> {
    let max = len.saturating_sub(1);
    match c {
        Command::Close | Command::Quit | Command::Help => None,
        Command::MoveDown => Some((scroll + 1).min(max)),
        Command::MoveUp => Some(scroll.saturating_sub(1)),
        Command::PageDown => Some((scroll + 10).min(max)),
        Command::PageUp => Some(scroll.saturating_sub(10)),
        Command::GoTop => Some(0),
        Command::GoBottom => Some(max),
        _ => Some(scroll),
    }
}
